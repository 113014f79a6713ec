//! Plain command types: pipeline stages for barriers, barriers, and pass descriptors.

use crate::Api;
use crate::texture::{SubresourceRange, TextureLayout};
use bitflags::bitflags;

bitflags! {
    /// Pipeline stages, as barriers see them.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Stages: u32 {
        /// Copies, clears, fills and resolves.
        const TRANSFER = 1 << 0;
        /// Compute shaders.
        const COMPUTE = 1 << 1;
        /// Reading indirect arguments.
        const DRAW_INDIRECT = 1 << 2;
        /// Fetching vertices and indices.
        const VERTEX_INPUT = 1 << 3;
        /// Vertex shaders.
        const VERTEX_SHADER = 1 << 4;
        /// Fragment shaders.
        const FRAGMENT_SHADER = 1 << 5;
        /// Depth and stencil tests and writes.
        const DEPTH_STENCIL = 1 << 6;
        /// Color attachment writes, blending and resolves.
        const COLOR_ATTACHMENT = 1 << 7;
        /// Host reads and writes of mapped memory.
        const HOST = 1 << 8;
        /// Every stage of every command.
        const ALL_COMMANDS = 1 << 9;
        /// Acceleration structure builds (only on devices with `RAY_QUERY`).
        const ACCELERATION_STRUCTURE_BUILD = 1 << 10;
        /// Every graphics stage.
        const ALL_GRAPHICS = Self::DRAW_INDIRECT.bits() | Self::VERTEX_INPUT.bits()
            | Self::VERTEX_SHADER.bits() | Self::FRAGMENT_SHADER.bits()
            | Self::DEPTH_STENCIL.bits() | Self::COLOR_ATTACHMENT.bits();
        /// The stages a queue of a compute-only family has (no graphics).
        const COMPUTE_QUEUE = Self::TRANSFER.bits() | Self::COMPUTE.bits()
            | Self::DRAW_INDIRECT.bits() | Self::HOST.bits() | Self::ALL_COMMANDS.bits()
            | Self::ACCELERATION_STRUCTURE_BUILD.bits();
    }
}

bitflags! {
    /// Kinds of memory access, as barriers see them.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Access: u32 {
        /// Reading indirect arguments.
        const INDIRECT_READ = 1 << 0;
        /// Reading indices.
        const INDEX_READ = 1 << 1;
        /// Reading vertex attributes.
        const VERTEX_READ = 1 << 2;
        /// Reading uniform buffers.
        const UNIFORM_READ = 1 << 3;
        /// Shader reads of storage buffers, sampled and storage textures.
        const SHADER_READ = 1 << 4;
        /// Shader writes of storage buffers and textures.
        const SHADER_WRITE = 1 << 5;
        /// Reading color attachments (blending, load).
        const COLOR_READ = 1 << 6;
        /// Writing color attachments (and resolves).
        const COLOR_WRITE = 1 << 7;
        /// Reading depth-stencil attachments (tests, load).
        const DEPTH_STENCIL_READ = 1 << 8;
        /// Writing depth-stencil attachments.
        const DEPTH_STENCIL_WRITE = 1 << 9;
        /// Copy sources.
        const TRANSFER_READ = 1 << 10;
        /// Copy, fill and clear destinations, query resolves.
        const TRANSFER_WRITE = 1 << 11;
        /// Host reads of mapped memory.
        const HOST_READ = 1 << 12;
        /// Host writes of mapped memory.
        const HOST_WRITE = 1 << 13;
        /// Reading acceleration structures: traversal in shaders, builds reading their
        /// inputs' structures and scratch (only on devices with `RAY_QUERY`).
        const ACCELERATION_STRUCTURE_READ = 1 << 14;
        /// Acceleration structure builds writing the structure and its scratch.
        const ACCELERATION_STRUCTURE_WRITE = 1 << 15;
        /// Every write kind.
        const WRITES = Self::SHADER_WRITE.bits() | Self::COLOR_WRITE.bits()
            | Self::DEPTH_STENCIL_WRITE.bits() | Self::TRANSFER_WRITE.bits()
            | Self::HOST_WRITE.bits() | Self::ACCELERATION_STRUCTURE_WRITE.bits();
    }
}

/// A memory dependency over all resources: writes done in `src` stages become visible to
/// every access in `dst` stages. An empty `src` makes it an execution dependency only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBarrier {
    /// Stages whose work (and writes) must finish first.
    pub src: Stages,
    /// Stages that wait.
    pub dst: Stages,
}

/// A dependency on one range of one buffer, with exact stages and accesses.
pub struct BufferBarrier<'a, A: Api> {
    /// The buffer.
    pub buffer: &'a A::Buffer,
    /// Start of the range.
    pub offset: u64,
    /// Length of the range.
    pub size: u64,
    /// Stages whose work must finish first.
    pub src: Stages,
    /// Writes in those stages made available.
    pub src_access: Access,
    /// Stages that wait.
    pub dst: Stages,
    /// Accesses in those stages the writes are made visible to.
    pub dst_access: Access,
}

/// A dependency on some subresources of one texture, with their layout transition.
pub struct TextureBarrier<'a, A: Api> {
    /// The texture.
    pub texture: &'a A::Texture,
    /// Subresources transitioned.
    pub range: SubresourceRange,
    /// Layout before.
    pub old_layout: TextureLayout,
    /// Layout after.
    pub new_layout: TextureLayout,
    /// Stages whose work must finish first.
    pub src: Stages,
    /// Writes in those stages made available.
    pub src_access: Access,
    /// Stages that wait.
    pub dst: Stages,
    /// Accesses in those stages the writes are made visible to.
    pub dst_access: Access,
}

/// Timestamp writes at the start and end of a pass.
pub struct PassTimestampWrites<'a, A: Api> {
    /// Query set written.
    pub query_set: &'a A::QuerySet,
    /// Query written when the pass begins.
    pub beginning: Option<u32>,
    /// Query written when the pass ends.
    pub end: Option<u32>,
}

/// What the backend needs to begin a compute pass.
pub struct ComputePassDescriptor<'a, A: Api> {
    /// Debug label of the pass (a debug-utils label region where supported).
    pub label: &'a str,
    /// Timestamps to write.
    pub timestamp_writes: Option<PassTimestampWrites<'a, A>>,
}

/// What a query set's queries measure (WebGPU's `GPUQueryType`, wgpu's `QueryType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryType {
    /// GPU timestamps, in ticks of the adapter's timestamp period.
    Timestamp,
    /// Whether any sample of the draws between a render pass's `begin_occlusion_query` and
    /// `end_occlusion_query` passed the depth and stencil tests: a nonzero count if any did
    /// (how many is the driver's to say), zero if none did.
    Occlusion,
    /// Counts of the work between a pass's `begin_pipeline_statistics_query` and
    /// `end_pipeline_statistics_query`, one `u64` per statistic the set counts.
    PipelineStatistics(PipelineStatisticsTypes),
}

impl QueryType {
    /// The `u64`s one query resolves to: one per counted statistic, one otherwise.
    pub fn values(self) -> u32 {
        match self {
            QueryType::PipelineStatistics(t) => t.bits().count_ones(),
            QueryType::Timestamp | QueryType::Occlusion => 1,
        }
    }
}

bitflags! {
    /// What a pipeline-statistics query counts (wgpu's `PipelineStatisticsTypes`). A query
    /// resolves to one `u64` per flag set, in the order of the flags below.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct PipelineStatisticsTypes: u8 {
        /// Vertex shader invocations (Vulkan `VERTEX_SHADER_INVOCATIONS`; a vertex may be
        /// shaded more than once, as the driver chooses).
        const VERTEX_SHADER_INVOCATIONS = 1 << 0;
        /// Primitives that reached the clipper (Vulkan `CLIPPING_INVOCATIONS`).
        const CLIPPER_INVOCATIONS = 1 << 1;
        /// Primitives the clipper output (Vulkan `CLIPPING_PRIMITIVES`): culled ones are
        /// not, clipped ones may count more than once.
        const CLIPPER_PRIMITIVES_OUT = 1 << 2;
        /// Fragment shader invocations (Vulkan `FRAGMENT_SHADER_INVOCATIONS`; helper
        /// invocations may count).
        const FRAGMENT_SHADER_INVOCATIONS = 1 << 3;
        /// Compute shader invocations (Vulkan `COMPUTE_SHADER_INVOCATIONS`).
        const COMPUTE_SHADER_INVOCATIONS = 1 << 4;
    }
}

impl PipelineStatisticsTypes {
    /// Whether any of the statistics counts graphics work (all but compute invocations),
    /// which only a queue that draws can count.
    pub fn graphics(self) -> bool {
        self.intersects(!PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS)
    }
}
