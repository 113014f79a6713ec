@compute @workgroup_size(1)
fn main() {
    let x: f32 = 1u + true;
}
