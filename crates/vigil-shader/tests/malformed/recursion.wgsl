fn f(x: u32) -> u32 { return g(x); }
fn g(x: u32) -> u32 { return f(x); }
@compute @workgroup_size(1) fn main() { _ = f(1u); }
