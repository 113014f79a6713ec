struct Params { scale: f32, count: u32 }
struct Data { header: u32, values: array<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: Data;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < min(params.count, arrayLength(&dst.values)) {
        dst.values[i] = src[i] * params.scale;
    }
    if i == 0u { dst.header = arrayLength(&src); }
}
