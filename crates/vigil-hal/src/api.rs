//! The backend traits.
//!
//! A backend implements [`Api`] and the traits its associated types name. Every method that
//! relies on validated input is an `unsafe fn` whose `# Safety` section says what the caller
//! guarantees: descriptors are valid for the device (sizes, usages, formats, features and
//! limits checked), objects passed in belong to the device and are alive, ranges lie inside
//! their objects, and no native object is destroyed while GPU work that uses it may be
//! pending. A backend checks none of that again; it reports only what the driver reports
//! ([`DeviceError`](crate::DeviceError)). Methods that are safe to call with any argument
//! (queries, waits, completion counters) are safe.
//!
//! Host access to buffer memory is a pointer ([`Device::mapping`]) plus the two cache
//! operations non-coherent memory needs ([`Device::flush`], [`Device::invalidate`]); the
//! caller copies, so no backend runs caller code while it holds its own state.
//!
//! Failure injection and the GPU-side gates used to simulate hangs live in a separate trait,
//! `TestControl`, compiled only with the `test-seams` feature.

use crate::adapter::{AdapterInfo, Features, Limits};
use crate::binding::BindGroupLayoutDescriptor;
use crate::buffer::{BufferCopy, BufferDescriptor};
use crate::command::{BufferBarrier, ComputePassDescriptor, MemoryBarrier, TextureBarrier};
#[cfg(feature = "test-seams")]
use crate::faults::{CallSite, FaultInjector};
use crate::pipeline::{
    ComputePipelineDescriptor, PipelineLayoutDescriptor, ShaderFormat, ShaderModuleDescriptor,
};
use crate::render::{
    BufferTextureCopy, RenderPassDescriptor, RenderPipelineDescriptor, TextureCopy,
};
use crate::surface::{
    PresentOutcome, PresentSource, SurfaceCapabilities, SurfaceConfiguration, WindowTarget,
};
use crate::texture::{
    SamplerDescriptor, TextureDescriptor, TexturePlacement, TextureViewDescriptor,
};
use crate::validation_log::ValidationLog;
use crate::{IndexFormat, Result};
use std::fmt::Debug;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

/// A backend: the set of native object types that belong together.
pub trait Api: Clone + Debug + Send + Sync + Sized + 'static {
    /// Short name ("vulkan", "test").
    const NAME: &'static str;
    /// The shader form the backend consumes.
    const SHADER_FORMAT: ShaderFormat;

    /// Entry point: enumerates adapters.
    type Instance: Instance<A = Self>;
    /// A physical device.
    type Adapter: Adapter<A = Self>;
    /// A logical device with its queue.
    #[cfg(not(feature = "test-seams"))]
    type Device: Device<A = Self>;
    /// A logical device with its queue, and its test controls.
    #[cfg(feature = "test-seams")]
    type Device: Device<A = Self> + TestControl;
    /// Records one command buffer at a time from its own pool.
    type CommandEncoder: CommandEncoder<A = Self>;
    /// A finished command buffer.
    type CommandBuffer: Debug + Send;
    /// A buffer and its memory.
    type Buffer: Debug + Send + Sync;
    /// A texture and its memory.
    type Texture: Debug + Send + Sync;
    /// A view of a texture.
    type TextureView: Debug + Send + Sync;
    /// A sampler.
    type Sampler: Debug + Send + Sync;
    /// A set of timestamp queries.
    type QuerySet: Debug + Send + Sync;
    /// A bind group layout.
    type BindGroupLayout: Debug + Send + Sync;
    /// A bind group (descriptor set).
    type BindGroup: Debug + Send + Sync;
    /// What a command encoder binds a bind group by: a plain copy of its native handle
    /// ([`Api::bind_group_key`]). A recording keeps it beside its own record of each group
    /// it met, so binding the group again reads nothing of the group object.
    type BindGroupKey: Copy + Debug + Send + Sync;
    /// A pipeline layout.
    type PipelineLayout: Debug + Send + Sync;
    /// A shader module.
    type ShaderModule: Debug + Send + Sync;
    /// A compute pipeline.
    type ComputePipeline: Debug + Send + Sync;
    /// A render pipeline.
    type RenderPipeline: Debug + Send + Sync;
    /// A pipeline cache: compiled pipelines the driver keeps and gives back as bytes, so a
    /// later run creates them faster. Safe to use from several threads at once.
    type PipelineCache: Debug + Send + Sync;
    /// A presentation surface (a window's, with its swapchain).
    type Surface: Debug + Send + Sync;
    /// An acceleration structure, with its own storage and build scratch.
    type AccelerationStructure: Debug + Send + Sync;
    /// Device memory that textures are placed in at chosen offsets.
    type TextureMemory: Debug + Send + Sync;

    /// The key [`CommandEncoder::set_bind_group`] binds `group` by. It names the group
    /// only while the group is alive.
    fn bind_group_key(group: &Self::BindGroup) -> Self::BindGroupKey;
}

/// How to create an instance.
#[derive(Clone, Debug, Default)]
pub struct InstanceDescriptor<'a> {
    /// Application name reported to the driver.
    pub app_name: &'a str,
    /// Turn on the driver's validation layer and capture its messages.
    pub validation: bool,
    /// Give native objects and command-buffer regions debug names from their labels (for
    /// the validation layer's messages and tools such as RenderDoc). Each name is a driver
    /// call, so it stays off unless asked for.
    pub native_labels: bool,
}

/// An adapter as enumerated, with what it supports.
#[derive(Debug)]
pub struct ExposedAdapter<A: Api> {
    /// The adapter.
    pub adapter: A::Adapter,
    /// Its identity.
    pub info: AdapterInfo,
    /// Features it supports.
    pub features: Features,
    /// Limits it supports.
    pub limits: Limits,
}

/// Entry point of a backend.
pub trait Instance: Sized + Send + Sync + Debug {
    /// The backend.
    type A: Api;
    /// Creates the instance.
    fn init(desc: &InstanceDescriptor<'_>) -> Result<Self>;
    /// Every adapter the backend can drive.
    fn enumerate_adapters(&self) -> Vec<ExposedAdapter<Self::A>>;
    /// The validation log, when validation is on.
    fn validation_log(&self) -> Option<Arc<ValidationLog>>;
}

/// A physical device.
pub trait Adapter: Send + Sync + Debug {
    /// The backend.
    type A: Api;
    /// Opens a logical device with exactly these features and limits (both already checked
    /// against what the adapter supports).
    fn open(&self, features: Features, limits: &Limits) -> Result<<Self::A as Api>::Device>;
}

/// What a bind group entry binds, in backend terms.
pub enum BoundResource<'a, A: Api> {
    /// A buffer range.
    Buffer {
        /// The buffer.
        buffer: &'a A::Buffer,
        /// Start of the range.
        offset: u64,
        /// Length of the range.
        size: u64,
    },
    /// A sampler.
    Sampler(&'a A::Sampler),
    /// A texture view, in the layout it will be in whenever the group is used.
    TextureView(&'a A::TextureView, crate::texture::TextureLayout),
    /// A top-level acceleration structure.
    AccelerationStructure(&'a A::AccelerationStructure),
}

/// One element of a bind group.
pub struct BindGroupEntry<'a, A: Api> {
    /// Binding number.
    pub binding: u32,
    /// Element of a binding array (0 for a single resource).
    pub array_element: u32,
    /// What it binds.
    pub resource: BoundResource<'a, A>,
}

/// What the backend needs to create a bind group.
pub struct BindGroupDescriptor<'a, A: Api> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Its layout.
    pub layout: &'a A::BindGroupLayout,
    /// The elements bound, sorted by binding then element; elements of a partially
    /// bound array may be missing.
    pub entries: &'a [BindGroupEntry<'a, A>],
    /// Length of the layout's variable-count last binding, if it has one.
    pub variable_count: Option<u32>,
}

/// Which pipeline kind a bind group is bound for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindPoint {
    /// Compute.
    Compute,
    /// Graphics.
    Render,
}

/// The host's view of a host-visible buffer: its persistent mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// The buffer's first byte in host memory.
    pub ptr: NonNull<u8>,
    /// Bytes reachable from `ptr` (the buffer's size as created).
    pub len: u64,
    /// Host writes reach the device without [`Device::flush`] (coherent memory): the
    /// flush is a no-op, so a writer may skip calling it.
    pub coherent: bool,
}

/// A logical device with one queue.
///
/// `Sync`: the layer above calls it from several threads (creation and destruction from
/// any thread; submission serialized by the caller).
pub trait Device: Send + Sync + Debug {
    /// The backend.
    type A: Api;

    /// Creates a buffer.
    ///
    /// # Safety
    /// `desc` is valid for this device: size within the limits, usages allowed together.
    unsafe fn create_buffer(&self, desc: &BufferDescriptor<'_>)
    -> Result<<Self::A as Api>::Buffer>;
    /// Releases a buffer.
    ///
    /// # Safety
    /// The buffer belongs to this device, and no pending GPU work and no recording command
    /// buffer uses it.
    unsafe fn destroy_buffer(&self, buffer: <Self::A as Api>::Buffer);
    /// The buffer's persistent host mapping, when its memory is host-visible.
    fn mapping(&self, buffer: &<Self::A as Api>::Buffer) -> Option<Mapping>;
    /// Makes host writes to `offset..offset + len` of a mapped buffer visible to the device
    /// (a no-op on coherent memory).
    ///
    /// # Safety
    /// The buffer belongs to this device and is mapped; the range lies inside it.
    unsafe fn flush(&self, buffer: &<Self::A as Api>::Buffer, offset: u64, len: u64) -> Result<()>;
    /// Makes device writes to `offset..offset + len` of a mapped buffer visible to the host
    /// (a no-op on coherent memory).
    ///
    /// # Safety
    /// As for [`Device::flush`].
    unsafe fn invalidate(
        &self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        len: u64,
    ) -> Result<()>;

    /// Creates a texture.
    ///
    /// # Safety
    /// `desc` is valid for this device (size, layers, mips, samples, format and usage within
    /// what it supports).
    unsafe fn create_texture(
        &self,
        desc: &TextureDescriptor<'_>,
    ) -> Result<<Self::A as Api>::Texture>;
    /// Releases a texture.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`]; no view of it is alive.
    unsafe fn destroy_texture(&self, texture: <Self::A as Api>::Texture);
    /// Creates a texture view.
    ///
    /// # Safety
    /// The texture belongs to this device and is alive; `desc` is valid for it (range
    /// inside it, format compatible, usage a subset its format allows).
    unsafe fn create_texture_view(
        &self,
        texture: &<Self::A as Api>::Texture,
        desc: &TextureViewDescriptor<'_>,
    ) -> Result<<Self::A as Api>::TextureView>;
    /// Releases a texture view.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_texture_view(&self, view: <Self::A as Api>::TextureView);
    /// Creates a sampler.
    ///
    /// # Safety
    /// `desc` is valid (clamps ordered, anisotropy allowed and with linear filters).
    unsafe fn create_sampler(
        &self,
        desc: &SamplerDescriptor<'_>,
    ) -> Result<<Self::A as Api>::Sampler>;
    /// Releases a sampler.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_sampler(&self, sampler: <Self::A as Api>::Sampler);
    /// Creates `count` queries of type `ty`.
    ///
    /// # Safety
    /// `count` is between 1 and the device's cap; for timestamps, timestamps are enabled on
    /// the device.
    unsafe fn create_query_set(
        &self,
        label: &str,
        ty: crate::QueryType,
        count: u32,
    ) -> Result<<Self::A as Api>::QuerySet>;
    /// Releases a query set.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_query_set(&self, set: <Self::A as Api>::QuerySet);
    /// Resets queries `first..first + count` from the host: no GPU work.
    ///
    /// # Safety
    /// The queries lie in the set, and no pending GPU work uses them.
    unsafe fn reset_queries_on_host(
        &self,
        set: &<Self::A as Api>::QuerySet,
        first: u32,
        count: u32,
    ) -> Result<()>;
    /// Reads `out.len()` timestamps from query `first` on, in ticks, without waiting:
    /// `Ok(false)` when any is not available yet.
    ///
    /// # Safety
    /// The queries lie in the set and were reset since their last read.
    unsafe fn read_timestamps(
        &self,
        set: &<Self::A as Api>::QuerySet,
        first: u32,
        out: &mut [u64],
    ) -> Result<bool>;

    /// Creates a bind group layout.
    ///
    /// # Safety
    /// The entries are sorted, unique and valid for the device's limits and features.
    unsafe fn create_bind_group_layout(
        &self,
        desc: &BindGroupLayoutDescriptor<'_>,
    ) -> Result<<Self::A as Api>::BindGroupLayout>;
    /// Releases a bind group layout.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`]; no pipeline layout being created uses it.
    unsafe fn destroy_bind_group_layout(&self, layout: <Self::A as Api>::BindGroupLayout);
    /// Creates a bind group.
    ///
    /// # Safety
    /// Every entry matches its layout entry (kind, range, usage, view dimension and sample
    /// type) and every object named is alive and belongs to this device.
    unsafe fn create_bind_group(
        &self,
        desc: &BindGroupDescriptor<'_, Self::A>,
    ) -> Result<<Self::A as Api>::BindGroup>;
    /// Releases a bind group.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_bind_group(&self, group: <Self::A as Api>::BindGroup);
    /// Replaces elements of a bind group.
    ///
    /// # Safety
    /// Each entry matches its layout entry as for [`Device::create_bind_group`], its element
    /// lies inside the group's length for that binding, and no command buffer that is
    /// recording or pending uses the group — except for a group of update-after-bind
    /// bindings on a device opened with `DESCRIPTOR_HEAPS` (whose update-after-bind
    /// bindings also take updates while pending), where pending command buffers may use the
    /// group but must not read the elements written.
    unsafe fn update_bind_group(
        &self,
        group: &<Self::A as Api>::BindGroup,
        layout: &<Self::A as Api>::BindGroupLayout,
        entries: &[BindGroupEntry<'_, Self::A>],
    ) -> Result<()>;
    /// Creates a pipeline layout.
    ///
    /// # Safety
    /// The group layouts are alive, belong to this device and fit its limits together.
    unsafe fn create_pipeline_layout(
        &self,
        desc: &PipelineLayoutDescriptor<'_, Self::A>,
    ) -> Result<<Self::A as Api>::PipelineLayout>;
    /// Releases a pipeline layout.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_pipeline_layout(&self, layout: <Self::A as Api>::PipelineLayout);
    /// Creates a shader module.
    ///
    /// # Safety
    /// The code is valid for the backend (SPIR-V the translator produced for the device's
    /// enabled capabilities).
    unsafe fn create_shader_module(
        &self,
        desc: &ShaderModuleDescriptor<'_>,
    ) -> Result<<Self::A as Api>::ShaderModule>;
    /// Releases a shader module.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_shader_module(&self, module: <Self::A as Api>::ShaderModule);
    /// What pipeline-cache data must have been written on to be given to
    /// [`Device::create_pipeline_cache`]: the device and driver (on Vulkan the vendor and
    /// device ids, the driver version and `pipelineCacheUUID`). Data written under another
    /// key is not given to the driver.
    fn pipeline_cache_key(&self) -> Vec<u8>;
    /// Creates a pipeline cache, empty or holding `data`.
    ///
    /// # Safety
    /// `data` is empty or came from [`Device::pipeline_cache_data`] of a device with the
    /// same [`Device::pipeline_cache_key`], unchanged (drivers check only its header).
    unsafe fn create_pipeline_cache(
        &self,
        label: &str,
        data: &[u8],
    ) -> Result<<Self::A as Api>::PipelineCache>;
    /// What a pipeline cache holds, as bytes to give to a later
    /// [`Device::create_pipeline_cache`].
    ///
    /// # Safety
    /// `cache` is alive.
    unsafe fn pipeline_cache_data(
        &self,
        cache: &<Self::A as Api>::PipelineCache,
    ) -> Result<Vec<u8>>;
    /// Releases a pipeline cache.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`]; no pipeline is being created with it.
    unsafe fn destroy_pipeline_cache(&self, cache: <Self::A as Api>::PipelineCache);
    /// Creates a compute pipeline.
    ///
    /// # Safety
    /// The entry point exists and is a compute stage whose bindings and workgroup size fit
    /// the layout and the limits; every object named is alive.
    unsafe fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor<'_, Self::A>,
    ) -> Result<<Self::A as Api>::ComputePipeline>;
    /// Releases a compute pipeline.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_compute_pipeline(&self, pipeline: <Self::A as Api>::ComputePipeline);
    /// Creates a render pipeline.
    ///
    /// # Safety
    /// Stages, vertex layouts, targets and depth-stencil state agree with each other, the
    /// layout, the formats' capabilities and the device's features; every object named is
    /// alive.
    unsafe fn create_render_pipeline(
        &self,
        desc: &RenderPipelineDescriptor<'_, Self::A>,
    ) -> Result<<Self::A as Api>::RenderPipeline>;
    /// Releases a render pipeline.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`].
    unsafe fn destroy_render_pipeline(&self, pipeline: <Self::A as Api>::RenderPipeline);

    /// Creates a command encoder with its own pool.
    fn create_command_encoder(&self, label: &str) -> Result<<Self::A as Api>::CommandEncoder>;
    /// Releases a command encoder and every command buffer it made.
    ///
    /// # Safety
    /// None of its command buffers is pending on the GPU.
    unsafe fn destroy_command_encoder(&self, encoder: <Self::A as Api>::CommandEncoder);

    /// Submits command buffers in order as one submission that, when all of them complete,
    /// sets the device's completion counter to `signal_value`. On error nothing was
    /// submitted.
    ///
    /// # Safety
    /// The command buffers were recorded by encoders of this device, are finished, are not
    /// pending, and every object they name is alive and stays alive until the submission
    /// completes; `signal_value` is above every value signalled before.
    unsafe fn submit(
        &self,
        command_buffers: &[&<Self::A as Api>::CommandBuffer],
        signal_value: u64,
    ) -> Result<()>;
    /// Device-local memory of `size` bytes that textures can be placed in
    /// ([`Device::create_placed_texture`]), and the memory type it is of (a bit of
    /// [`TexturePlacement::memory_types`]).
    ///
    /// # Safety
    /// `size` is non-zero.
    unsafe fn create_texture_memory(
        &self,
        label: &str,
        size: u64,
    ) -> Result<(<Self::A as Api>::TextureMemory, u32)>;
    /// Releases texture memory.
    ///
    /// # Safety
    /// No texture placed in it is alive.
    unsafe fn destroy_texture_memory(&self, memory: <Self::A as Api>::TextureMemory);
    /// What a texture of `desc` needs when placed in texture memory.
    ///
    /// # Safety
    /// `desc` is valid (as for [`Device::create_texture`]).
    unsafe fn texture_placement(&self, desc: &TextureDescriptor<'_>) -> Result<TexturePlacement>;
    /// A texture of `desc` in `memory` at `offset`: its contents are whatever the memory
    /// holds, and destroying it leaves the memory.
    ///
    /// # Safety
    /// `desc` is valid; `memory` is of this device and outlives the texture; `offset` is a
    /// multiple of the placement's alignment and the placement's size fits after it; the
    /// memory's type is one of the placement's `memory_types`.
    unsafe fn create_placed_texture(
        &self,
        desc: &TextureDescriptor<'_>,
        memory: &<Self::A as Api>::TextureMemory,
        offset: u64,
    ) -> Result<<Self::A as Api>::Texture>;
    /// Another texture object naming `texture`'s native image (for a device over the same
    /// native device to use it): destroying the alias releases only the alias.
    ///
    /// # Safety
    /// `texture` belongs to a device over the same native device, and outlives the alias.
    unsafe fn alias_texture(
        &self,
        texture: &<Self::A as Api>::Texture,
    ) -> Result<<Self::A as Api>::Texture>;

    /// Creates an acceleration structure sized for `desc`, with the storage and scratch
    /// memory its builds need.
    ///
    /// # Safety
    /// The device was opened with `RAY_QUERY`; every count in `desc` is non-zero; the
    /// vertex format is `Float32x3`.
    unsafe fn create_acceleration_structure(
        &self,
        desc: &crate::accel::AccelerationStructureDescriptor<'_>,
    ) -> Result<<Self::A as Api>::AccelerationStructure>;
    /// Releases an acceleration structure.
    ///
    /// # Safety
    /// As for [`Device::destroy_buffer`]; no top-level structure that pending work may
    /// traverse holds an instance of it.
    unsafe fn destroy_acceleration_structure(
        &self,
        structure: <Self::A as Api>::AccelerationStructure,
    );
    /// The device address of a buffer made with `DEVICE_ADDRESS` (0 for any other).
    fn buffer_address(&self, buffer: &<Self::A as Api>::Buffer) -> u64;
    /// What mesh draws may launch, on a device opened with `MESH_SHADER`.
    fn mesh_limits(&self) -> Option<crate::render::MeshLimits> {
        None
    }
    /// The device address of an acceleration structure (what instance records hold).
    fn acceleration_structure_address(
        &self,
        structure: &<Self::A as Api>::AccelerationStructure,
    ) -> u64;

    /// Creates a surface presenting to `target`.
    ///
    /// # Safety
    /// The platform objects `target` names are valid and outlive the surface.
    unsafe fn create_surface(&self, target: WindowTarget) -> Result<<Self::A as Api>::Surface>;
    /// What `surface` supports now (the window's current size among it).
    fn surface_capabilities(
        &self,
        surface: &<Self::A as Api>::Surface,
    ) -> Result<SurfaceCapabilities>;
    /// Configures (or reconfigures) how `surface` presents.
    ///
    /// # Safety
    /// The configuration was checked against the surface's capabilities; no present of the
    /// surface is still executing (the last one's signal value completed). When every
    /// value signalled so far completed, a backend may wait for its queue to go idle so the
    /// window system's presents finish before their semaphores go.
    unsafe fn configure_surface(
        &self,
        surface: &mut <Self::A as Api>::Surface,
        config: &SurfaceConfiguration,
    ) -> Result<()>;
    /// Presents `source`: takes the surface's next image, copies `source` into it on the
    /// queue (after `from`'s accesses, leaving `source` in the transfer-source layout) and
    /// hands it to the window system. When it submits, the copy's completion sets the
    /// completion counter to `signal_value`. Reports the surface's state; an out-of-date
    /// or lost surface submits nothing.
    ///
    /// # Safety
    /// The surface is configured; `source` is alive, of the configured format and extent,
    /// has transfer-source usage, and stays alive until `signal_value` completes; the
    /// previous present's signal value completed; `signal_value` is above every value
    /// signalled before.
    unsafe fn present(
        &self,
        surface: &mut <Self::A as Api>::Surface,
        source: &<Self::A as Api>::Texture,
        from: PresentSource,
        signal_value: u64,
    ) -> Result<PresentOutcome>;
    /// Destroys a surface and its swapchain.
    ///
    /// # Safety
    /// No present of the surface is still executing.
    unsafe fn destroy_surface(&self, surface: <Self::A as Api>::Surface);

    /// Another logical device over the same native device and queue, with its own
    /// completion counter: what several vigil devices over one native device use.
    fn share(&self) -> Result<Self>
    where
        Self: Sized;
    /// Another logical device over the same native device that submits to the native
    /// device's second queue (of the same queue family, opened with the device when the
    /// family has two), with its own completion counter. `Ok(None)` when the native device
    /// has no second queue.
    fn share_on_second_queue(&self) -> Result<Option<Self>>
    where
        Self: Sized,
    {
        Ok(None)
    }
    /// Another logical device over the same native device that submits to the queue of
    /// its compute-only family (opened with the device when it was asked for
    /// `ASYNC_COMPUTE`), with its own completion counter. `Ok(None)` when the native
    /// device has no such queue.
    fn share_on_compute_queue(&self) -> Result<Option<Self>>
    where
        Self: Sized,
    {
        Ok(None)
    }
    /// Which of the native device's queues this device submits to (0: the first). Devices
    /// over one native device with the same index share a queue, and so its order.
    fn queue_index(&self) -> u32 {
        0
    }
    /// Whether this device's queue draws (its family has graphics). A device on a
    /// compute-only queue records compute passes, copies and clears of color textures, and
    /// its barriers name only the stages that queue has.
    fn queue_draws(&self) -> bool {
        true
    }
    /// As [`Device::submit`], but the submission's work first waits, on the GPU, until
    /// each `(device, value)` pair's completion counter reaches `value`: a wait across
    /// queues, with no host wait. Backends without a second queue accept only an empty
    /// `after`.
    ///
    /// # Safety
    /// As for [`Device::submit`]; and each device in `after` is over the same native device
    /// as this one, already submitted work that signals its `value` (so the wait ends
    /// unless the device is lost), and stays alive until this submission completes.
    unsafe fn submit_after(
        &self,
        command_buffers: &[&<Self::A as Api>::CommandBuffer],
        signal_value: u64,
        after: &[(&Self, u64)],
    ) -> Result<()>
    where
        Self: Sized,
    {
        if !after.is_empty() {
            return Err(crate::DeviceError::Unsupported(
                "waits across queues (the backend has one queue)".into(),
            ));
        }
        // SAFETY: the caller's contract includes `submit`'s.
        unsafe { self.submit(command_buffers, signal_value) }
    }
    /// The completion counter: the highest signal value whose submission completed.
    fn completed_value(&self) -> Result<u64>;
    /// Sleeps until the counter reaches `value` or `timeout` passes; `Ok(false)` on time-out.
    fn wait_for_value(&self, value: u64, timeout: Duration) -> Result<bool>;
    /// The last line before destruction: waits (up to `timeout`) until everything this
    /// device submitted has completed, or the native device is really lost (either makes
    /// destroying its objects safe). Never consults the fault injector: injected faults
    /// simulate what a driver may answer, but must not make vigil destroy objects the GPU
    /// still uses. `false` when neither was confirmed in time.
    fn quiesce(&self, timeout: Duration) -> bool;

    /// Native objects currently alive (created and not yet destroyed), for leak checks.
    fn live_objects(&self) -> u64;
    /// Whether 32-bit indices honour every value on this device.
    fn supports_full_index_range(&self, format: IndexFormat) -> bool;
    /// What the device can do with a format.
    fn format_support(
        &self,
        format: crate::texture::TextureFormat,
    ) -> crate::texture::FormatSupport;
}

/// Test controls of a backend device (the `test-seams` feature): the fault injector its
/// native call sites consult, and a GPU-side gate that holds submissions back, as a hung
/// GPU would.
#[cfg(feature = "test-seams")]
pub trait TestControl: Device {
    /// The device's fault injector (see [`FaultInjector`]).
    fn faults(&self) -> &FaultInjector;
    /// Native call sites this backend consults the injector at.
    fn call_sites(&self) -> &'static [CallSite];
    /// As [`Device::submit_after`], but the submission also waits on the GPU until the
    /// gate reaches `gate_wait` (see [`TestControl::open_gate`]).
    ///
    /// # Safety
    /// As for [`Device::submit_after`].
    unsafe fn submit_gated(
        &self,
        command_buffers: &[&<Self::A as Api>::CommandBuffer],
        signal_value: u64,
        gate_wait: u64,
        after: &[(&Self, u64)],
    ) -> Result<()>
    where
        Self: Sized;
    /// Raises the gate that gated submissions wait for, from the host.
    fn open_gate(&self, value: u64) -> Result<()>;
    /// The gate's current value.
    fn gate_value(&self) -> Result<u64>;
    /// Starts a new gate for a new pause (the old one, fully opened, is kept until the
    /// device goes). A backend whose gate has no history to shed may keep its gate.
    fn fresh_gate(&self) -> Result<()>;
}

/// Records command buffers, one at a time, from a pool it owns.
///
/// Recording methods cannot fail (the native calls return nothing); `begin` and `end` can.
/// Every recording method is `unsafe`: the caller guarantees that a command buffer is being
/// recorded, that the command is valid in the current pass state (passes do not nest;
/// copies, fills, resets and barriers only outside passes; draws only inside a render pass
/// with a pipeline and everything it uses bound; dispatches likewise in a compute pass),
/// that every object named is alive and belongs to the encoder's device, that every range
/// lies inside its object and is aligned as the native API requires, that textures are in
/// the layouts the command expects, and that the objects outlive the command buffer's
/// execution.
pub trait CommandEncoder: Send + Debug {
    /// The backend.
    type A: Api;

    /// Starts recording a new command buffer, to be submitted once.
    fn begin(&mut self, label: &str) -> Result<()>;
    /// Starts recording a new command buffer that may be submitted again once each
    /// earlier submission of it completed (until its encoder is reset).
    fn begin_reusable(&mut self, label: &str) -> Result<()>;
    /// Finishes recording and hands the command buffer out.
    fn end(&mut self) -> Result<<Self::A as Api>::CommandBuffer>;
    /// Abandons the command buffer being recorded.
    fn discard(&mut self);
    /// Recycles command buffers this encoder made.
    ///
    /// # Safety
    /// None of them is pending on the GPU.
    unsafe fn reset_all(&mut self, buffers: Vec<<Self::A as Api>::CommandBuffer>);

    /// Records one pipeline barrier: an optional global memory dependency, buffer range
    /// dependencies and texture transitions, ordered together.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); outside any pass; the old
    /// layouts are the subresources' current ones.
    unsafe fn barriers(
        &mut self,
        memory: Option<MemoryBarrier>,
        buffers: &[BufferBarrier<'_, Self::A>],
        textures: &[TextureBarrier<'_, Self::A>],
    );
    /// Builds `dst` from `input`, replacing what it held.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); outside any pass; `input`
    /// matches what `dst` was created for (bottom level: one entry per geometry, counts
    /// within the maxima; top level: at most its instance count); every range read lies in
    /// its buffer, buffers have `BLAS_INPUT`; every index is below its geometry's
    /// `vertex_count`; every instance record names a built bottom-level structure that
    /// outlives every traversal of `dst`; barriers order the build after earlier uses of
    /// `dst` and of its inputs, and later uses after it.
    unsafe fn build_acceleration_structure(
        &mut self,
        dst: &<Self::A as Api>::AccelerationStructure,
        input: crate::accel::BuildInput<'_, Self::A>,
    );
    /// Copies between buffers.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn copy_buffer_to_buffer(
        &mut self,
        src: &<Self::A as Api>::Buffer,
        dst: &<Self::A as Api>::Buffer,
        region: BufferCopy,
    );
    /// Copies several regions between two buffers in one command. Destination regions
    /// must not overlap one another (nor source regions).
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn copy_buffer_regions(
        &mut self,
        src: &<Self::A as Api>::Buffer,
        dst: &<Self::A as Api>::Buffer,
        regions: &[BufferCopy],
    );
    /// Fills a buffer range with a repeated 32-bit value.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn fill_buffer(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        size: u64,
        value: u32,
    );
    /// Copies from a buffer into a texture (texture in `TransferDst`).
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn copy_buffer_to_texture(
        &mut self,
        src: &<Self::A as Api>::Buffer,
        dst: &<Self::A as Api>::Texture,
        region: &BufferTextureCopy,
    );
    /// Copies from a texture (in `TransferSrc`) into a buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn copy_texture_to_buffer(
        &mut self,
        src: &<Self::A as Api>::Texture,
        dst: &<Self::A as Api>::Buffer,
        region: &BufferTextureCopy,
    );
    /// Copies between textures (`TransferSrc` to `TransferDst`).
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn copy_texture_to_texture(
        &mut self,
        src: &<Self::A as Api>::Texture,
        dst: &<Self::A as Api>::Texture,
        region: &TextureCopy,
    );
    /// Clears a color texture's subresources (in `TransferDst`).
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn clear_texture(
        &mut self,
        texture: &<Self::A as Api>::Texture,
        range: crate::texture::SubresourceRange,
        value: [f32; 4],
    );

    /// Resets queries before they are written.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn reset_queries(&mut self, set: &<Self::A as Api>::QuerySet, first: u32, count: u32);
    /// Writes a timestamp once all earlier work finished.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn write_timestamp(&mut self, set: &<Self::A as Api>::QuerySet, index: u32);
    /// Begins occlusion query `index` of `set` (an occlusion set): the draws until
    /// [`end_occlusion_query`](CommandEncoder::end_occlusion_query) count into it.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); inside a render pass with
    /// no view mask and no other query active; the query was reset since its last use.
    unsafe fn begin_occlusion_query(&mut self, set: &<Self::A as Api>::QuerySet, index: u32);
    /// Ends the occlusion query begun last.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); query `index` of `set` is
    /// active, begun in this render pass.
    unsafe fn end_occlusion_query(&mut self, set: &<Self::A as Api>::QuerySet, index: u32);
    /// Begins pipeline-statistics query `index` of `set` (a pipeline-statistics set): the
    /// work until [`end_pipeline_statistics_query`](CommandEncoder::end_pipeline_statistics_query)
    /// counts into it.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); inside a compute pass, or a
    /// render pass with no view mask; no other pipeline-statistics query active; the query
    /// was reset since its last use; graphics statistics only on a queue that draws.
    unsafe fn begin_pipeline_statistics_query(
        &mut self,
        set: &<Self::A as Api>::QuerySet,
        index: u32,
    );
    /// Ends the pipeline-statistics query begun last.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); query `index` of `set` is
    /// active, begun in this pass.
    unsafe fn end_pipeline_statistics_query(
        &mut self,
        set: &<Self::A as Api>::QuerySet,
        index: u32,
    );
    /// Copies query results as u64 into a buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn resolve_queries(
        &mut self,
        set: &<Self::A as Api>::QuerySet,
        first: u32,
        count: u32,
        dst: &<Self::A as Api>::Buffer,
        offset: u64,
    );

    /// Binds a bind group, by its key ([`Api::bind_group_key`]), for the given pipeline
    /// kind.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); `group` is the key of a
    /// bind group of this device that stays alive until the command buffer has completed
    /// or is dropped.
    unsafe fn set_bind_group(
        &mut self,
        point: BindPoint,
        layout: &<Self::A as Api>::PipelineLayout,
        index: u32,
        group: <Self::A as Api>::BindGroupKey,
        dynamic_offsets: &[u32],
    );

    /// Sets the immediate data (push constants) from byte 0: `data` is the whole of what
    /// `layout` declares.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); `data.len()` is the
    /// layout's immediate size, a multiple of 4.
    unsafe fn set_immediates(&mut self, layout: &<Self::A as Api>::PipelineLayout, data: &[u8]);

    /// Begins a compute pass.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_, Self::A>);
    /// Ends the compute pass.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn end_compute_pass(&mut self);
    /// Binds a compute pipeline.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_compute_pipeline(&mut self, pipeline: &<Self::A as Api>::ComputePipeline);
    /// Dispatches workgroups.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn dispatch(&mut self, count: [u32; 3]);
    /// Dispatches with arguments read from a buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn dispatch_indirect(&mut self, buffer: &<Self::A as Api>::Buffer, offset: u64);

    /// Begins a render pass (attachments already in their attachment layouts).
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn begin_render_pass(&mut self, desc: &RenderPassDescriptor<'_, Self::A>);
    /// Ends the render pass.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn end_render_pass(&mut self);
    /// Binds a render pipeline.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_render_pipeline(&mut self, pipeline: &<Self::A as Api>::RenderPipeline);
    /// Binds a vertex buffer at a slot.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
    );
    /// Binds the index buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_index_buffer(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        format: IndexFormat,
    );
    /// Sets the viewport.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_viewport(&mut self, rect: [f32; 4], depth: [f32; 2]);
    /// Sets the scissor rectangle.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_scissor(&mut self, rect: [u32; 4]);
    /// Sets the blend constant.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_blend_constant(&mut self, color: [f32; 4]);
    /// Sets the stencil reference.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn set_stencil_reference(&mut self, reference: u32);
    /// Draws vertices.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn draw(&mut self, vertices: std::ops::Range<u32>, instances: std::ops::Range<u32>);
    /// Draws indexed vertices.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn draw_indexed(
        &mut self,
        indices: std::ops::Range<u32>,
        base_vertex: i32,
        instances: std::ops::Range<u32>,
    );
    /// Draws with arguments read from a buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn draw_indirect(&mut self, buffer: &<Self::A as Api>::Buffer, offset: u64);
    /// Draws indexed with arguments read from a buffer.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); the arguments' indices lie
    /// within the bound index range when the GPU reads them
    /// (VUID-VkDrawIndexedIndirectCommand-robustBufferAccess2-08798).
    unsafe fn draw_indexed_indirect(&mut self, buffer: &<Self::A as Api>::Buffer, offset: u64);
    /// Draws `count` times with arguments read from a buffer, 16-byte
    /// `DrawIndirectCommand`s `stride` bytes apart from `offset`, in one native command.
    /// The default records `count` single indirect draws.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); `count` is at most 65,535
    /// (Vulkan's least `maxDrawIndirectCount` where multi-draw is supported), and above 1
    /// only on a device opened with `MULTI_DRAW_INDIRECT`; `stride` is a multiple of 4 and
    /// at least 16, and the `count` commands lie in `buffer`.
    unsafe fn draw_indirect_multi(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) {
        for i in 0..u64::from(count) {
            let at = offset.saturating_add(i.saturating_mul(u64::from(stride)));
            // SAFETY: this call's contract covers each of the draws.
            unsafe { self.draw_indirect(buffer, at) };
        }
    }
    /// Up to `max_count` draws from 16-byte `DrawIndirectCommand`s `stride` bytes apart
    /// from `offset`, as many as the `u32` at `count_offset` of `count_buffer` holds when
    /// the command executes.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); the device was opened with
    /// `MULTI_DRAW_INDIRECT_COUNT`, and with `INDIRECT_FIRST_INSTANCE` unless every
    /// command's first instance is 0 when the GPU reads it; `stride` is a multiple of
    /// 4 and at least 16; `max_count` commands lie in `buffer` from `offset` and four bytes
    /// in `count_buffer` from `count_offset`, both offsets multiples of 4 and both buffers
    /// of INDIRECT usage.
    unsafe fn draw_indirect_count(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        count_buffer: &<Self::A as Api>::Buffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    );
    /// As [`CommandEncoder::draw_indirect_count`], indexed: 20-byte
    /// `DrawIndexedIndirectCommand`s (`stride` at least 20).
    ///
    /// # Safety
    /// As [`CommandEncoder::draw_indirect_count`], and each draw's indices lie within the
    /// bound index range (VUID-VkDrawIndexedIndirectCommand-robustBufferAccess2-08798).
    unsafe fn draw_indexed_indirect_count(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        count_buffer: &<Self::A as Api>::Buffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    );
    /// As [`CommandEncoder::draw_indirect_multi`], indexed: 20-byte
    /// `DrawIndexedIndirectCommand`s (`stride` at least 20).
    ///
    /// # Safety
    /// As [`CommandEncoder::draw_indirect_multi`], and each draw's indices lie within the
    /// bound index range.
    unsafe fn draw_indexed_indirect_multi(
        &mut self,
        buffer: &<Self::A as Api>::Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) {
        for i in 0..u64::from(count) {
            let at = offset.saturating_add(i.saturating_mul(u64::from(stride)));
            // SAFETY: this call's contract covers each of the draws.
            unsafe { self.draw_indexed_indirect(buffer, at) };
        }
    }
    /// Launches `count` task workgroups (or mesh workgroups, without a task shader) of the
    /// bound mesh pipeline.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); a mesh pipeline is bound and
    /// `count` is within the device's [`MeshLimits`](crate::render::MeshLimits).
    unsafe fn draw_mesh_tasks(&mut self, count: [u32; 3]);
    /// As [`CommandEncoder::draw_mesh_tasks`], the counts read from `buffer` at `offset`
    /// (three `u32`s) when the GPU runs it.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); a mesh pipeline is bound and
    /// the 12 bytes lie in the buffer, 4-aligned.
    unsafe fn draw_mesh_tasks_indirect(&mut self, buffer: &<Self::A as Api>::Buffer, offset: u64);
    /// Opens a debug group named `label` (which may be empty): tools that show the
    /// command stream (RenderDoc, Nsight, the validation layer's messages) group the
    /// commands that follow under it until the matching
    /// [`pop_debug_group`](CommandEncoder::pop_debug_group). A backend without a way to
    /// label commands records nothing.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); every group is closed in
    /// the recording that opened it: one opened inside a pass before the pass ends, one
    /// opened outside passes before the recording ends.
    unsafe fn push_debug_group(&mut self, label: &str);
    /// Closes the debug group opened last.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]); a group opened by
    /// [`push_debug_group`](CommandEncoder::push_debug_group) in the same recording (and,
    /// inside a pass, in the same pass) is open.
    unsafe fn pop_debug_group(&mut self);
    /// Marks one point of the command stream with `label`, as a debug group would, for the
    /// same tools.
    ///
    /// # Safety
    /// The trait's recording contract (see [`CommandEncoder`]).
    unsafe fn insert_debug_marker(&mut self, label: &str);
}
