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
        /// Every graphics stage.
        const ALL_GRAPHICS = Self::DRAW_INDIRECT.bits() | Self::VERTEX_INPUT.bits()
            | Self::VERTEX_SHADER.bits() | Self::FRAGMENT_SHADER.bits()
            | Self::DEPTH_STENCIL.bits() | Self::COLOR_ATTACHMENT.bits();
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

/// A layout transition of a texture's subresources, with its memory dependency.
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
    /// Stages that wait.
    pub dst: Stages,
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
