@compute @workgroup_size(0, 1, 1) fn main() {}
