//! `vigil`: a fail-closed GPU runtime with a WebGPU-shaped, validated device.
//!
//! # The contract
//!
//! - **Every call is validated.** Invalid input gets an [`Error`] carrying the [`Rule`] it
//!   broke (a stable code, listed in `docs/rules.md`) and its [`ErrorKind`], with a message
//!   naming the operation, the object's label and what was wrong. Nothing panics, nothing
//!   unvalidated reaches the driver, and a refused call changes nothing. The checks live in
//!   one place per kind of object or command ([`validate`](crate#layout-of-this-crate)).
//! - **Handles** ([`Buffer`], [`Texture`], …) are small `Copy` values: slot, generation,
//!   device id. Destroying an object makes every copy stale at once; stale, null and
//!   foreign handles are refused.
//! - **Lifetime.** `destroy_*` returns at once; the native object is released when nothing
//!   can use it any more: no live bind group, view or pipeline holds it, no open encoder or
//!   unsubmitted command buffer recorded it, and every submission that used it completed.
//!   Submitting work that names a destroyed object is refused.
//! - **Threads.** [`Device`] is `Send + Sync`; a [`CommandEncoder`] owns its native pool
//!   and records on any thread, so N encoders record on N threads at once, and any thread
//!   may submit.
//! - **Submissions** get serials 1, 2, 3, …; a refused submission consumes none.
//!   [`Device::completed_serial`] only moves forward, in order.
//! - **Encoders** record passes; the first refused call latches and
//!   [`CommandEncoder::finish`] reports it. Passes cannot nest; copies are outside passes.
//! - **Synchronisation is implicit.** A per-resource tracker ([`track`]) follows buffer
//!   ranges and texture subresources with their layouts; the encoder inserts exactly the
//!   barriers recorded usage needs, and submission resolves each command buffer's first
//!   uses against the device's state, with work proportional to the resources a command
//!   uses, never to the resources that exist.
//! - **Waits are bounded by progress**; loss is detected, sticky and attributed
//!   ([`Device::loss_snapshot`]).
//!
//! # Layout of this crate
//!
//! | module | owns |
//! |---|---|
//! | [`instance`] | instances, adapters, the default adapter choice |
//! | `device` | the device: object creation, submission, lifetime, waits, mapping, staging |
//! | `encoder` | command encoders, passes, what each command buffer uses |
//! | `validate` | every check, one module per kind of object or command, each naming its [`Rule`] |
//! | [`track`] | per-resource usage tracking: which barriers a sequence of uses needs |
//! | [`rules`] | the rules and their codes |
//! | [`texture`] | texture, view, sampler and copy descriptors |
//! | [`render`] | render pipeline descriptors and checks |
//! | `registry`, [`handle`] | lock-free slot arrays and handles; `device::kinds` lists the kinds of object once |
//!
//! The backend's calls that trust their input are `unsafe fn`s; `native` is the one module
//! that calls them, each call with the validation that establishes its contract named.

#![deny(unsafe_code)]
// Validation arithmetic never wraps: every operation on a number a caller can influence is
// checked, saturating, or done in a width that cannot overflow (see DESIGN.md).
#![warn(clippy::arithmetic_side_effects)]

mod device;
mod encoder;
mod error;
pub mod handle;
pub mod instance;
mod label;
mod native;
pub mod observer;
mod registry;
pub mod render;
pub mod rules;
pub mod texture;
pub mod timeline;
pub mod track;
mod validate;

/// The plain-data traits [`Device::write_gpu_values`] takes (derive them with bytemuck's
/// `derive` feature in your own crate).
pub use bytemuck;
pub use device::BindGroupLayoutDescriptor;
pub use device::MAX_QUERIES;
#[cfg(feature = "test-seams")]
pub use device::Seams;
pub use device::{
    BindGroupDescriptor, BindGroupEntry, BindGroupPoolDescriptor, BindGroupWrite, BindingResource,
    BlasDescriptor, BufferBinding, BufferDescriptor, BufferInitDescriptor, Completion,
    ComputePipelineDescriptor, Device, DeviceDescriptor, GpuHeapDescriptor, GpuPtr, GpuSlice,
    GroupBinding, GroupResource, HeapKind, LossSnapshot, MAX_PLACEMENT_HEAP_SIZE,
    MAX_QUEUED_WRITES, PipelineCacheDescriptor, PipelineLayoutDescriptor, PlacedTextureDescriptor,
    PlacementHeapDescriptor, PointerComputePipelineDescriptor, PointerMeshPipelineDescriptor,
    PointerRenderPipelineDescriptor, SamplerHeapDescriptor, ShaderModuleDescriptor, Stats,
    SurfaceConfiguration, SurfaceFrame, TextureExport, TextureHeapDescriptor, TexturePlacement,
    TlasDescriptor, WaitSite, WriteStats, sampled_layout,
};
pub use device::{
    CloseReport, MapMode, MapState, MapWaitOutcome, MapWaitParams, MapWaitReport, SeamHandle,
};
pub use device::{KEPT_TIMESTAMPS, Timestamp};
pub use encoder::{BlasBuildEntry, BlasTriangleGeometry, TlasBuildEntry, TlasInstance};
pub use encoder::{
    BufferTransition, CommandBuffer, CommandEncoder, CommandEncoderDescriptor,
    ComputePassDescriptor, Operations, PassTimestampWrites, RenderBundleEncoder,
    RenderBundleEncoderDescriptor, RenderPassColorAttachment, RenderPassDepthStencilAttachment,
    RenderPassDescriptor, TextureTransition,
};
pub use encoder::{COPY_BYTES_PER_ROW_ALIGNMENT, MAX_MULTI_DRAW_COUNT, QUERY_RESOLVE_ALIGNMENT};
pub use error::{Error, ErrorKind, Result};
pub use handle::{
    BindGroup, BindGroupLayout, BindGroupPool, Blas, Buffer, BufferMapping, ComputePipeline,
    GpuHeap, Handle, PipelineCache, PipelineLayout, PlacementHeap, QuerySet, RenderBundle,
    RenderPipeline, Sampler, SamplerHeap, ShaderModule, Surface, Texture, TextureHeap, TextureView,
    Tlas,
};
pub use instance::{Adapter, Instance, InstanceDescriptor, Validation};
pub use render::{FragmentState, RenderPipelineDescriptor, VertexState};
pub use rules::Rule;
pub use texture::{
    ImageSubresourceRange, SamplerDescriptor, TexelCopyBufferLayout, TexelCopyTextureInfo,
    TextureDescriptor, TextureDescriptorOwned, TextureViewDescriptor, texture_bytes,
};
pub use timeline::{Timeline, TimelineEvent, Track};
/// Vulkan devices opened so far that keep `Stencil8` in a depth-stencil format (the
/// `test-seams` feature).
#[cfg(feature = "test-seams")]
pub use vigil_vulkan::combined_stencil8_devices;
/// Makes Vulkan devices opened from now on keep `Stencil8` in a depth-stencil format even
/// where the device has `S8_UINT` attachments, so tests see the fallback a device without
/// them takes (the `test-seams` feature; process-wide).
#[cfg(feature = "test-seams")]
pub use vigil_vulkan::force_combined_stencil8;

/// The window-handle traits a window passed to [`Device::create_surface`] implements.
pub use raw_window_handle;
pub use vigil_hal::{AccelerationStructureFlags, TriangleGeometrySize};
pub use vigil_hal::{
    AdapterInfo, AddressMode, BindGroupLayoutEntry, BindingArray, BindingArrayFlags, BindingType,
    BlendComponent, BlendFactor, BlendOperation, BlendState, BufferBindingType, BufferUsages,
    ColorTargetState, ColorWrites, CompareFunction, CullMode, DepthBiasState, DepthStencilState,
    DeviceType, Features, FilterMode, FormatSupport, FrontFace, IndexFormat, Limits, LoadOp,
    MultisampleState, PipelineStatisticsTypes, PolygonMode, PrimitiveState, PrimitiveTopology,
    SamplerBindingType, SamplerBorderColor, ShaderStages, StencilFaceState, StencilOperation,
    StencilState, StorageTextureAccess, StoreOp, TextureAspect, TextureDimension, TextureFormat,
    TextureSampleType, TextureUsages, TextureViewDimension, ValidationLog, ValidationMessage,
    VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
/// The plain types shared with the backend layer (formats, usages, states, limits).
pub use vigil_hal::{CallSite, FaultKind, FaultMode};
/// Presentation types shared with the backend layer.
pub use vigil_hal::{CompositeAlphaMode, PresentMode, SurfaceCapabilities, SurfaceStatus};

/// The shader front end, for reflection and diagnostics.
pub use vigil_shader as shader;

/// The backend `vigil::Device` uses when none is named: Vulkan.
pub type DefaultApi = vigil_vulkan::Api;

/// The backend trait [`Device`] and [`CommandEncoder`] are generic over (for code, like a
/// render graph, that works with any backend, the test backend included).
pub use vigil_hal::Api;
/// Pipeline stages, memory accesses and texture layouts as barriers see them (what the
/// render graph plans with, and [`CommandEncoder::transition_resources`] takes).
pub use vigil_hal::{Access, Stages, TextureLayout};

/// The deterministic test backend (no GPU), for validation tests.
pub use vigil_hal::test_backend::TestApi;

/// The test backend's recorded commands, for tests that look at what reached the backend.
pub mod hal_test {
    pub use vigil_hal::test_backend::{TestCommand, TestDevice};
    pub use vigil_hal::{Access, MemoryBarrier, Stages};
}

/// The threading model, checked at compile time: devices are shared between threads,
/// encoders (render bundle encoders too) and command buffers move between them.
#[allow(dead_code)]
fn _threading_model() {
    fn shared<T: Send + Sync>() {}
    fn sent<T: Send>() {}
    shared::<Device<DefaultApi>>();
    shared::<Device<TestApi>>();
    sent::<CommandEncoder<DefaultApi>>();
    sent::<CommandBuffer<DefaultApi>>();
    sent::<CommandEncoder<TestApi>>();
    sent::<CommandBuffer<TestApi>>();
    sent::<RenderBundleEncoder<DefaultApi>>();
    sent::<RenderBundleEncoder<TestApi>>();
}
