struct S { a: u32,
@compute @workgroup_size(1) fn main() {
  let x = 