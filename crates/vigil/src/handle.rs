//! Handles: small `Copy` values naming an object of one device.
//!
//! A handle is a slot index, the slot's generation when the object was made, and the id of
//! the device that made it. Destroying an object moves its slot's generation on, so every
//! copy of the handle goes stale at once. Index 0 is never used: a zeroed handle is null.

use std::sync::atomic::{AtomicU32, Ordering};

static NEXT_DEVICE_ID: AtomicU32 = AtomicU32::new(1);

/// A process-unique device id (starts at 1, never reused within the process).
pub(crate) fn next_device_id() -> u32 {
    NEXT_DEVICE_ID.fetch_add(1, Ordering::Relaxed)
}

/// What every handle type offers.
pub trait Handle: Copy + Eq + std::fmt::Debug {
    /// The kind's name, as error messages spell it ("buffer").
    const KIND: &'static str;
    /// The slot index.
    fn index(&self) -> u32;
    /// The slot generation it was made with.
    fn generation(&self) -> u32;
    /// The id of the device that made it.
    fn device_id(&self) -> u32;
    /// Makes a handle (used by the device only).
    #[doc(hidden)]
    fn from_parts(index: u32, generation: u32, device: u32) -> Self;
    /// Whether this is the null handle.
    fn is_null(&self) -> bool {
        self.index() == 0
    }
}

macro_rules! handles {
    ($($(#[$doc:meta])* $name:ident = $kind:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name {
            index: u32,
            generation: u32,
            device: u32,
        }

        impl $name {
            /// The null handle: refused by every call.
            pub const NULL: $name = $name { index: 0, generation: 0, device: 0 };
        }

        impl Handle for $name {
            const KIND: &'static str = $kind;
            #[inline]
            fn index(&self) -> u32 { self.index }
            #[inline]
            fn generation(&self) -> u32 { self.generation }
            #[inline]
            fn device_id(&self) -> u32 { self.device }
            #[inline]
            fn from_parts(index: u32, generation: u32, device: u32) -> Self {
                $name { index, generation, device }
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if self.index == 0 {
                    write!(f, concat!(stringify!($name), "(null)"))
                } else {
                    write!(f, concat!(stringify!($name), "({}v{}@{})"), self.index, self.generation, self.device)
                }
            }
        }
    )*};
}

handles! {
    /// A buffer.
    Buffer = "buffer";
    /// A 2D texture (with mips and layers).
    Texture = "texture";
    /// A view of a texture.
    TextureView = "texture view";
    /// A sampler.
    Sampler = "sampler";
    /// A set of timestamp queries.
    QuerySet = "query set";
    /// A bind group layout.
    BindGroupLayout = "bind group layout";
    /// A bind group.
    BindGroup = "bind group";
    /// A pool of bind groups that is reset as a whole (per-frame groups).
    BindGroupPool = "bind group pool";
    /// A pipeline layout.
    PipelineLayout = "pipeline layout";
    /// A shader module.
    ShaderModule = "shader module";
    /// A compute pipeline.
    ComputePipeline = "compute pipeline";
    /// A render pipeline.
    RenderPipeline = "render pipeline";
    /// A pipeline cache: compiled pipelines kept by the driver, saved as bytes and given
    /// back in a later run ([`crate::Device::create_pipeline_cache`]).
    PipelineCache = "pipeline cache";
    /// Draws recorded once and checked once, executed in render passes of matching
    /// attachments ([`crate::RenderBundleEncoder`]).
    RenderBundle = "render bundle";
    /// A surface presenting to a window.
    Surface = "surface";
    /// An open mapping of a buffer range.
    BufferMapping = "buffer mapping";
    /// A bottom-level acceleration structure: triangles (needs `RAY_QUERY`).
    Blas = "bottom-level acceleration structure";
    /// A top-level acceleration structure: instances of bottom-level ones, what ray queries
    /// traverse (needs `RAY_QUERY`).
    Tlas = "top-level acceleration structure";
    /// A GPU heap: memory with a device address that pointer-tier shaders follow.
    GpuHeap = "GPU heap";
    /// A placement heap: device memory textures are placed in at offsets the application
    /// chooses (aliasable ones may share bytes).
    PlacementHeap = "placement heap";
    /// A texture heap: slots of sampled texture views that pointer-tier shaders index by
    /// integer (needs `DESCRIPTOR_HEAPS`).
    TextureHeap = "texture heap";
    /// A sampler heap: slots of samplers that pointer-tier shaders index by integer (needs
    /// `DESCRIPTOR_HEAPS`).
    SamplerHeap = "sampler heap";
}
