@group(0) @binding(0) var src: texture_storage_2d<rgba8unorm, read>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba32float, write>;
@group(0) @binding(2) var counts: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(3) var arr: texture_2d_array<u32>;
@group(0) @binding(4) var cube: texture_cube<f32>;
@group(0) @binding(5) var ms: texture_multisampled_2d<f32>;
@group(0) @binding(6) var s: sampler;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<i32>(id.xy);
    let c = textureLoad(src, p);
    let n = textureLoad(counts, p).x + textureLoad(arr, p, 0, 0).x;
    textureStore(counts, p, vec4<u32>(n + 1u));
    let e = textureSampleLevel(cube, s, vec3<f32>(1.0, 0.0, 0.0), 0.0);
    textureStore(dst, p, c + e + textureLoad(ms, p, 0));
}
