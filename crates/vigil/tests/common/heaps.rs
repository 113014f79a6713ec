//! Texture heaps in the real-device tests: a texture written through a storage binding
//! and read through a heap, the kernels that do both, and the heaps.

use vigil::*;

#[path = "heap_objects.rs"]
mod heap_objects;

/// A 1×1 RGBA8 texture that shaders may sample (through a heap) and write (through a
/// storage binding), and its view.
pub fn storage_texture(d: &Device, label: &str) -> (Texture, TextureView) {
    heap_objects::storage_texture(d, label, [1, 1])
}

/// A texture heap and a sampler heap of one slot each.
pub fn one_slot_heaps(d: &Device) -> (TextureHeap, SamplerHeap) {
    heap_objects::one_slot_heaps(d)
}

/// A pointer compute pipeline sampling slot 0 of the texture heap with slot 0 of the
/// sampler heap, writing the red channel (0–255) to its root, and a heap for that root.
pub fn slot_zero_sampler(d: &Device) -> (ComputePipeline, GpuHeap) {
    let sample = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "sample slot 0",
            glsl: "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(local_size_x = 1) in;
void main() {
    vec4 c = textureLod(sampler2D(vigil_texture(0), vigil_sampler(0)), vec2(0.5), 0.0);
    vigil.root.value = uint(c.x * 255.0);
}
",
            cache: None,
        })
        .unwrap();
    let counter = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "counter",
            size: 64,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    (sample, counter)
}

/// The `u32` a sampling kernel wrote through its root into `counter`.
pub fn root_value(d: &Device, counter: GpuHeap) -> u32 {
    let bytes = d.read_gpu_heap(counter, 0, 4).unwrap();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// A kernel writing (204, 0, 0, 255) to texel (0, 0) of `v` through a storage binding,
/// and its group.
pub fn storage_fill(d: &Device, v: TextureView) -> (ComputePipeline, BindGroup) {
    let (fill, bgl) = super::kernel_with_group(
        d,
        "fill",
        "@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1)
fn main() { textureStore(t, vec2<i32>(0, 0), vec4<f32>(0.8, 0.0, 0.0, 1.0)); }",
        &[BindGroupLayoutEntry {
            binding: 0,
            visibility: ShaderStages::COMPUTE,
            ty: BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::Rgba8Unorm,
                view_dimension: TextureViewDimension::D2,
            },
            array: None,
        }],
        &[],
    )
    .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "fill",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(v),
            }],
        })
        .unwrap();
    (fill, group)
}

/// Records a compute pass in `e` whose one dispatch runs `fill` with `group`.
pub fn fill_in_pass(e: &mut CommandEncoder, (fill, group): (ComputePipeline, BindGroup)) {
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(fill).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
}

/// Records a compute pass in `e` whose one dispatch reads slot 0 of `heap`; the
/// dispatch's refusal, if any, is returned.
pub fn sample_in_pass(
    d: &Device,
    e: &mut CommandEncoder,
    (sample, counter): (ComputePipeline, GpuHeap),
    heap: TextureHeap,
    samplers: SamplerHeap,
) -> Result<()> {
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(sample).unwrap();
    e.set_root(d.gpu_heap_ptr::<u32>(counter, 0).unwrap())
        .unwrap();
    e.set_texture_heap(heap).unwrap();
    e.set_sampler_heap(samplers).unwrap();
    e.dispatch(1, 1, 1)?;
    e.end_compute_pass()
}
