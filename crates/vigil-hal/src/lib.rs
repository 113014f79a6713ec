//! `vigil-hal`: the backend traits and the plain types every vigil layer shares.
//!
//! # Contract
//!
//! The layer above (`vigil`) validates every input before it reaches a backend: handles are
//! live and belong to the device, ranges are in bounds and aligned, usages and features are
//! allowed, pipelines match their layouts. A backend therefore checks none of this; it turns
//! validated requests into native calls and reports only what the driver reports, as a
//! [`DeviceError`]. Lifetimes are the caller's job too: an object is destroyed only once no
//! pending GPU work uses it.
//!
//! Backends are static: [`Api`] names a backend's object types, as `wgpu-hal` does, and the
//! layers above are generic over it. [`test_backend`] is a deterministic backend with no GPU
//! for validation tests; `vigil-vulkan` is the real one.
//!
//! This crate has no native dependencies and no `unsafe` code of its own: it only declares
//! the `unsafe fn`s whose contracts the layer above must meet.

pub mod accel;
pub mod adapter;
pub mod api;
pub mod binding;
pub mod buffer;
pub mod command;
mod error;
pub mod faults;
pub mod pipeline;
pub mod render;
pub mod surface;
pub mod test_backend;
pub mod texture;
pub mod validation_log;

pub use accel::{
    AccelerationStructureDescriptor, AccelerationStructureFlags, AccelerationStructureSizing,
    BuildInput, INSTANCE_RECORD_SIZE, TriangleGeometry, TriangleGeometrySize, instance_record,
};
pub use adapter::{AdapterInfo, DeviceType, Features, Limits};
#[cfg(feature = "test-seams")]
pub use api::TestControl;
pub use api::{
    Adapter, Api, BindGroupDescriptor, BindGroupEntry, BindPoint, BoundResource, CommandEncoder,
    Device, ExposedAdapter, Instance, InstanceDescriptor, Mapping,
};
pub use binding::{
    BindGroupLayoutDescriptor, BindGroupLayoutEntry, BindingArray, BindingArrayFlags, BindingType,
    BufferBindingType, SAMPLER_HEAP_SLOTS, SamplerBindingType, ShaderStages, StorageTextureAccess,
    TEXTURE_HEAP_SLOTS,
};
pub use buffer::{BufferCopy, BufferDescriptor, BufferUsages, MemoryLocation};
pub use command::{
    Access, BufferBarrier, ComputePassDescriptor, MemoryBarrier, PassTimestampWrites,
    PipelineStatisticsTypes, QueryType, Stages, TextureBarrier,
};
pub use error::{DeviceError, Result};
pub use faults::{CallSite, FaultInjector, FaultKind, FaultMode};
pub use pipeline::{
    ComputePipelineDescriptor, PipelineLayoutDescriptor, ShaderCode, ShaderFormat,
    ShaderModuleDescriptor,
};
pub use render::*;
pub use surface::*;
pub use texture::*;
pub use validation_log::{Severity, ValidationLog, ValidationMessage};
