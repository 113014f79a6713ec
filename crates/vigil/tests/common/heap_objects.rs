//! Texture-heap objects shared by the real-device tests (`heaps.rs`) and the test-backend
//! rule tests (`rules_gpu.rs`), for a device of any backend.

use vigil::*;

/// An RGBA8 texture of `size` that shaders may sample (through a heap) and write (through
/// a storage binding), and its view.
pub fn storage_texture<A: Api>(
    d: &Device<A>,
    label: &str,
    size: [u32; 2],
) -> (Texture, TextureView) {
    let t = d
        .create_texture(&TextureDescriptor {
            label,
            size,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let v = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    (t, v)
}

/// A texture heap and a sampler heap of one slot each.
pub fn one_slot_heaps<A: Api>(d: &Device<A>) -> (TextureHeap, SamplerHeap) {
    let textures = d
        .create_texture_heap(&TextureHeapDescriptor {
            label: "one",
            slots: 1,
        })
        .unwrap();
    let samplers = d
        .create_sampler_heap(&SamplerHeapDescriptor {
            label: "samplers",
            slots: 1,
        })
        .unwrap();
    (textures, samplers)
}
