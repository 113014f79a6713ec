struct V { @location(0) corner: vec2<f32>, @location(1) offset: vec2<f32>, @location(2) color: vec4<f32>, @location(3) id: u32 }
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32>, @location(1) @interpolate(flat) id: u32 }
@vertex fn vs(v: V, @builtin(instance_index) inst: u32) -> O {
    return O(vec4<f32>(v.corner * 0.5 + v.offset, 0.0, 1.0), v.color, v.id + inst);
}
struct F { @location(0) color: vec4<f32>, @location(1) id: vec4<u32> }
@fragment fn fs(i: O) -> F { return F(i.color, vec4<u32>(i.id)); }
