struct Camera { view_proj: mat4x4<f32>, light: vec4<f32> }
@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
@group(1) @binding(0) var shadow: texture_depth_2d;
@group(1) @binding(1) var shadow_samp: sampler_comparison;

struct V { @location(0) pos: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) uv: vec2<f32> }
struct O { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32>, @location(1) uv: vec2<f32> }

@vertex fn vs(v: V) -> O {
    return O(cam.view_proj * vec4<f32>(v.pos, 1.0), v.normal, v.uv);
}

@fragment fn fs(i: O) -> @location(0) vec4<f32> {
    let lit = max(dot(normalize(i.normal), -cam.light.xyz), 0.0);
    let s = textureSampleCompare(shadow, shadow_samp, i.uv, 0.5);
    return vec4<f32>(textureSample(tex, samp, i.uv).rgb * (0.2 + 0.8 * lit * s), 1.0);
}
