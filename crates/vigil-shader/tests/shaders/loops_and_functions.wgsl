@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;

fn hash(x: u32) -> u32 {
    var h = x ^ 0x9e3779b9u;
    h = (h ^ (h >> 16u)) * 0x85ebca6bu;
    return h ^ (h >> 13u);
}

fn shade(i: u32) -> vec4<f32> {
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k < 16u; k++) {
        let h = hash(i * 16u + k);
        if (h & 1u) == 0u { continue; }
        acc += vec4<f32>(f32(h & 255u), f32((h >> 8u) & 255u), f32((h >> 16u) & 255u), 1.0) / 255.0;
    }
    var w = 0u;
    loop {
        w++;
        if w > 4u { break; }
    }
    return acc / f32(w);
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&out) { out[id.x] = shade(id.x); }
}
