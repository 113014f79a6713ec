//! `vigil`: a fail-closed GPU runtime with a WebGPU-shaped, validated device.
//!
//! # The contract
//!
//! - **Every call is validated.** Invalid input gets an [`Error`] whose [`ErrorKind`] a
//!   program can match and whose message names the operation, the object's label and the
//!   rule broken. Nothing panics, nothing unvalidated reaches the driver, and a refused
//!   call changes nothing.
//! - **Handles** ([`Buffer`], [`Texture`], …) are small `Copy` values: slot, generation,
//!   device id. Destroying an object makes every copy stale at once; stale, null and
//!   foreign handles are refused.
//! - **Lifetime.** `destroy_*` returns at once; the native object is released when the
//!   last submission that used it completed and no live bind group (or view, or pipeline)
//!   retains it. Submitting work that names a destroyed object is refused.
//! - **Submissions** get serials 1, 2, 3, …; a refused submission consumes none.
//!   [`Device::completed_serial`] only moves forward, in order.
//! - **Encoders** record passes; the first refused call latches and
//!   [`CommandEncoder::finish`] reports it. Passes cannot nest; copies are outside passes.
//! - **Synchronisation is implicit.** The encoder inserts the barriers and layout
//!   transitions recorded usage needs, with work proportional to the resources a command
//!   uses, never to the resources that exist.
//! - **Waits are bounded by progress**; loss is detected, sticky and attributed
//!   ([`Device::loss_snapshot`]).
//!
//! # Layout of this crate
//!
//! | module | owns |
//! |---|---|
//! | [`instance`] | instances, adapters, the default adapter choice |
//! | `device` | the device: registries, validation of object creation, submission, lifetime, waits |
//! | `encoder` | command encoders, passes, barrier tracking |
//! | [`texture`] | texture, view, sampler and copy descriptors |
//! | [`render`] | render pipeline descriptors and checks |
//! | `registry`, [`handle`] | slot arrays and handles |
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
mod native;
pub mod observer;
mod registry;
pub mod render;
pub mod texture;

pub use device::BindGroupLayoutDescriptor;
#[cfg(feature = "test-seams")]
pub use device::Seams;
pub use device::{
    BindGroupDescriptor, BindGroupEntry, BindingResource, BufferBinding, BufferDescriptor,
    Completion, ComputePipelineDescriptor, Device, DeviceDescriptor, LossSnapshot,
    MAX_QUEUED_WRITES, PipelineLayoutDescriptor, ShaderModuleDescriptor, Stats, WaitSite,
    WriteStats,
};
pub use device::{
    CloseReport, MapMode, MapState, MapWaitOutcome, MapWaitParams, MapWaitReport, SeamHandle,
};
pub use encoder::{
    CommandBuffer, CommandEncoder, CommandEncoderDescriptor, ComputePassDescriptor,
    PassTimestampWrites, RenderPassColorAttachment, RenderPassDepthStencilAttachment,
    RenderPassDescriptor,
};
pub use error::{Error, ErrorKind, Result};
pub use handle::{
    BindGroup, BindGroupLayout, Buffer, BufferMapping, ComputePipeline, Handle, PipelineLayout,
    QuerySet, RenderPipeline, Sampler, ShaderModule, Texture, TextureView,
};
pub use instance::{Adapter, Instance, InstanceDescriptor, Validation};
pub use render::{FragmentState, RenderPipelineDescriptor, VertexState};
pub use texture::{
    SamplerDescriptor, TexelCopyBufferLayout, TexelCopyTextureInfo, TextureDescriptor,
    TextureDescriptorOwned, TextureViewDescriptor,
};

pub use vigil_hal::{
    AdapterInfo, AddressMode, BindGroupLayoutEntry, BindingType, BlendComponent, BlendFactor,
    BlendOperation, BlendState, BufferBindingType, BufferUsages, ColorTargetState, ColorWrites,
    CompareFunction, CullMode, DepthStencilState, DeviceType, Features, FilterMode, FormatSupport,
    FrontFace, IndexFormat, Limits, LoadOp, PrimitiveState, PrimitiveTopology, SamplerBindingType,
    ShaderStages, StencilFaceState, StencilOperation, StorageTextureAccess, StoreOp, TextureAspect,
    TextureFormat, TextureSampleType, TextureUsages, TextureViewDimension, ValidationLog,
    ValidationMessage, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
/// The plain types shared with the backend layer (formats, usages, states, limits).
pub use vigil_hal::{CallSite, FaultKind, FaultMode};

/// The shader front end, for reflection and diagnostics.
pub use vigil_shader as shader;

/// The backend `vigil::Device` uses when none is named: Vulkan.
pub type DefaultApi = vigil_vulkan::Api;

/// The deterministic test backend (no GPU), for validation tests.
pub use vigil_hal::test_backend::TestApi;

/// The test backend's recorded commands, for tests that look at what reached the backend.
pub mod hal_test {
    pub use vigil_hal::test_backend::{TestCommand, TestDevice};
    pub use vigil_hal::{MemoryBarrier, Stages};
}
