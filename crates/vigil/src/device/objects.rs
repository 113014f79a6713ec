//! What the device keeps per object, beside the native object itself.

use crate::handle::BindGroupLayout;
use vigil_hal::{
    Api, BindGroupLayoutEntry, BufferUsages, Stages, TextureFormat, TextureLayout, TextureUsages,
};

/// A buffer.
#[derive(Debug)]
pub(crate) struct BufferObj<A: Api> {
    pub raw: A::Buffer,
    pub label: String,
    pub size: u64,
    pub usage: BufferUsages,
    pub host_visible: bool,
    /// Queued writes wait for the next submission.
    pub queued_writes: bool,
    /// An open mapping (see `mapping`), if any.
    pub mapping: Option<u32>,
}

/// A texture.
#[derive(Debug)]
pub(crate) struct TextureObj<A: Api> {
    pub raw: A::Texture,
    pub label: String,
    pub desc: crate::texture::TextureDescriptorOwned,
    /// The layout the texture rests in between commands (decided by its usage).
    pub resting: TextureLayout,
}

/// A texture view.
#[derive(Debug)]
pub(crate) struct ViewObj<A: Api> {
    pub raw: A::TextureView,
    pub label: String,
    pub texture: (u32, u32),
    pub format: TextureFormat,
    pub dimension: vigil_hal::TextureViewDimension,
    pub usage: TextureUsages,
    pub range: vigil_hal::SubresourceRange,
    pub sample_count: u32,
    pub extent: [u32; 2],
    pub resting: TextureLayout,
}

/// A sampler.
#[derive(Debug)]
pub(crate) struct SamplerObj<A: Api> {
    pub raw: A::Sampler,
    pub label: String,
    pub comparison: bool,
    pub filtering: bool,
}

/// A timestamp query set.
#[derive(Debug)]
pub(crate) struct QuerySetObj<A: Api> {
    pub raw: A::QuerySet,
    pub label: String,
    pub count: u32,
}

/// A bind group layout.
#[derive(Debug)]
pub(crate) struct BindGroupLayoutObj<A: Api> {
    pub raw: A::BindGroupLayout,
    pub label: String,
    /// Sorted by binding.
    pub entries: Vec<BindGroupLayoutEntry>,
    /// Equal for structurally identical layouts, which are interchangeable.
    pub compat: u32,
}

/// An object a bind group retains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    Buffer(u32, u32),
    View(u32, u32),
    Sampler(u32, u32),
}

/// What a draw or dispatch does to a resource through a bind group entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupUse {
    pub member: Member,
    /// Buffer or texture slot whose hazards this use is tracked under.
    pub tracked: Tracked,
    pub write: bool,
    pub stages: Stages,
}

/// The resource barriers are tracked on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tracked {
    Buffer(u32),
    Texture(u32),
    None,
}

/// One dynamic-offset binding of a bind group, in binding order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DynamicBinding {
    pub binding: u32,
    pub offset: u64,
    pub size: u64,
    pub buffer_size: u64,
    pub alignment: u32,
}

/// A resource access a bind group implies, for barrier tracking, computed at creation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TrackedUse {
    pub index: u32,
    pub texture: bool,
    pub write: bool,
    pub stages: Stages,
}

/// A bind group: its native set plus everything a draw needs from it, computed once.
#[derive(Debug)]
pub(crate) struct BindGroupObj<A: Api> {
    pub raw: A::BindGroup,
    pub label: String,
    pub layout: BindGroupLayout,
    pub compat: u32,
    pub uses: Box<[GroupUse]>,
    /// The buffers and textures of `uses`, in the form barrier tracking walks.
    pub tracked: Box<[TrackedUse]>,
    pub dynamic: Box<[DynamicBinding]>,
    /// Bound size per layout entry (0 for non-buffers), in layout entry order.
    pub sizes: Box<[u64]>,
    /// The device's destroy epoch when every member was last seen live and unmapped.
    pub members_live_at: std::cell::Cell<u64>,
}

/// A pipeline layout.
#[derive(Debug)]
pub(crate) struct PipelineLayoutObj<A: Api> {
    pub raw: A::PipelineLayout,
    pub label: String,
    pub groups: Vec<BindGroupLayout>,
    pub compat: Vec<u32>,
}

/// A shader module: native code plus the reflection pipelines are checked against.
#[derive(Debug)]
pub(crate) struct ShaderModuleObj<A: Api> {
    pub raw: A::ShaderModule,
    pub label: String,
    pub reflection: vigil_shader::Reflection,
}

/// A size check deferred to the draw or dispatch: the layout gave no minimum binding size,
/// so the bound range must be at least what the shader needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LateSizeCheck {
    pub group: u32,
    pub entry: u32,
    pub binding: u32,
    pub min: u64,
}

/// What draws and dispatches need to know about a pipeline.
#[derive(Debug)]
pub(crate) struct PipelineInfo {
    pub layout: (u32, u32),
    pub group_compat: Box<[u32]>,
    pub late_checks: Box<[LateSizeCheck]>,
}

/// A compute pipeline.
#[derive(Debug)]
pub(crate) struct ComputePipelineObj<A: Api> {
    pub raw: A::ComputePipeline,
    pub label: String,
    pub info: PipelineInfo,
}

/// A render pipeline.
#[derive(Debug)]
pub(crate) struct RenderPipelineObj<A: Api> {
    pub raw: A::RenderPipeline,
    pub label: String,
    pub info: PipelineInfo,
    pub render: crate::render::RenderPipelineFacts,
}
