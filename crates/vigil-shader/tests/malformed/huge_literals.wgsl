@compute @workgroup_size(1)
fn main() {
    let a = 99999999999999999999999999999999999999u;
    let b = 1e99999f;
}
