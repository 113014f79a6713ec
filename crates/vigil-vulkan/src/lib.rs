//! `vigil-vulkan`: the Vulkan backend, `vigil-hal` over ash and gpu-allocator.
//!
//! It owns the instance (with the Khronos validation layer and a debug messenger that feeds
//! the [`ValidationLog`](vigil_hal::ValidationLog) when asked), adapter enumeration with
//! features and limits, the logical device with one graphics+compute queue, memory through
//! gpu-allocator, descriptor pools, command pools, barriers and layout transitions, and
//! completion through one timeline semaphore whose value is the submission serial.
//!
//! It does not validate user input: the layer above did (see the `vigil-hal` contract).
//! Every native call that can fail consults the device's
//! [`FaultInjector`](vigil_hal::FaultInjector) first, under the names in [`CALL_SITES`].
//!
//! Baseline: Vulkan 1.3 with timeline semaphores, synchronization2 and dynamic rendering.
//! `unsafe` is confined to this crate, one native call per block, each with its reason.

#![warn(unsafe_op_in_unsafe_fn)]

mod accel;
mod adapter;
mod command;
mod conv;
mod descriptor;
mod device;
mod instance;
mod render_pipeline;
mod slab;
mod surface;

pub use accel::AccelerationStructure;
pub use adapter::Adapter;
pub use command::CommandEncoder;
pub use device::{
    BindGroup, BindGroupLayout, Buffer, CALL_SITES, CommandBuffer, ComputePipeline, Device,
    PipelineCache, PipelineLayout, QuerySet, RenderPipeline, Sampler, ShaderModule, Texture,
    TextureView,
};
#[cfg(feature = "test-seams")]
pub use device::{combined_stencil8_devices, force_combined_stencil8};
pub use instance::Instance;

/// The Vulkan backend.
#[derive(Clone, Debug)]
pub struct Api;

impl vigil_hal::Api for Api {
    const NAME: &'static str = "vulkan";
    const SHADER_FORMAT: vigil_hal::ShaderFormat = vigil_hal::ShaderFormat::SpirV;
    type Instance = Instance;
    type Adapter = Adapter;
    type Device = Device;
    type CommandEncoder = CommandEncoder;
    type CommandBuffer = CommandBuffer;
    type Buffer = Buffer;
    type Texture = Texture;
    type Surface = surface::Surface;
    type AccelerationStructure = accel::AccelerationStructure;
    type TextureMemory = device::TextureMemory;
    type TextureView = TextureView;
    type Sampler = Sampler;
    type QuerySet = QuerySet;
    type BindGroupLayout = BindGroupLayout;
    type BindGroup = BindGroup;
    type BindGroupKey = ash::vk::DescriptorSet;
    type PipelineLayout = PipelineLayout;
    type ShaderModule = ShaderModule;
    type ComputePipeline = ComputePipeline;
    type RenderPipeline = RenderPipeline;
    type PipelineCache = PipelineCache;

    fn bind_group_key(group: &BindGroup) -> ash::vk::DescriptorSet {
        group.raw
    }
}
