@group(0) @binding(0) var<storage, read_write> a: u32;
@group(0) @binding(0) var<storage, read_write> b: u32;
@compute @workgroup_size(1) fn main() { a = b; }
