//! What a resource's use is, in synchronization2 terms: the pipeline stages that touch it,
//! how (the access), and for textures the layout it must be in.

pub use vigil::{Access, Stages};

/// The writing part of an access.
pub fn writes_of(access: Access) -> Access {
    access & Access::WRITES
}

/// The reading part of an access.
pub fn reads_of(access: Access) -> Access {
    access - Access::WRITES
}

/// The layout a texture is in for a use (buffers have none: [`Layout::Undefined`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Contents undefined (a buffer, or a texture whose contents do not matter).
    #[default]
    Undefined,
    /// Any use (storage textures).
    General,
    /// Sampled reads.
    ShaderReadOnly,
    /// Color attachment.
    ColorAttachment,
    /// Depth/stencil attachment, written.
    DepthStencilAttachment,
    /// Depth/stencil, read only.
    DepthStencilReadOnly,
    /// Copy source.
    TransferSrc,
    /// Copy destination.
    TransferDst,
}

impl From<vigil::TextureLayout> for Layout {
    fn from(l: vigil::TextureLayout) -> Layout {
        use vigil::TextureLayout as T;
        match l {
            T::Undefined | T::Present => Layout::Undefined,
            T::General => Layout::General,
            T::ShaderReadOnly => Layout::ShaderReadOnly,
            T::ColorAttachment => Layout::ColorAttachment,
            T::DepthStencilAttachment => Layout::DepthStencilAttachment,
            T::TransferSrc => Layout::TransferSrc,
            T::TransferDst => Layout::TransferDst,
        }
    }
}

/// A resource's state: how it was last used before the graph runs (its initial state), or
/// how a pass uses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ResourceState {
    /// Stages.
    pub stages: Stages,
    /// Accesses.
    pub access: Access,
    /// Layout (textures).
    pub layout: Layout,
}

impl ResourceState {
    /// Not used before the graph: no stage, no access, contents undefined.
    pub const UNUSED: ResourceState = ResourceState {
        stages: Stages::empty(),
        access: Access::empty(),
        layout: Layout::Undefined,
    };

    /// Written by copies or uploads before the graph (vigil's queue writes and
    /// `create_buffer_init` land as transfer writes).
    pub const TRANSFER_WRITTEN: ResourceState = ResourceState {
        stages: Stages::TRANSFER,
        access: Access::TRANSFER_WRITE,
        layout: Layout::TransferDst,
    };

    /// A state from its parts.
    pub const fn new(stages: Stages, access: Access, layout: Layout) -> ResourceState {
        ResourceState {
            stages,
            access,
            layout,
        }
    }
}

/// How a pass uses a resource it declares by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// Read in shaders of `stages` (storage buffer read, or a sampled texture).
    ShaderRead(Stages),
    /// Written (and read) in shaders of `stages` (storage buffer or texture).
    ShaderWrite(Stages),
    /// Uniform reads in `stages`.
    Uniform(Stages),
    /// Rendered to as a color attachment (loaded and stored).
    ColorAttachment,
    /// Depth/stencil attachment, tested and written.
    DepthAttachment,
    /// Depth/stencil attachment, tested against and not written (vigil's read-only depth
    /// and stencil: a pass attachment without operations). In the layout sampled reads
    /// take, so the same pass may also sample it (`ShaderRead`).
    DepthReadOnly,
    /// Vertex buffer.
    Vertex,
    /// Index buffer.
    Index,
    /// Indirect arguments.
    Indirect,
    /// Copy source.
    CopySrc,
    /// Copy destination.
    CopyDst,
}

impl Usage {
    /// The state a pass needs the resource in; `texture` picks the layout.
    pub fn state(self, texture: bool) -> ResourceState {
        let (stages, access, layout) = match self {
            Usage::ShaderRead(s) => (
                s,
                Access::SHADER_READ,
                if texture {
                    Layout::ShaderReadOnly
                } else {
                    Layout::Undefined
                },
            ),
            Usage::ShaderWrite(s) => (
                s,
                Access::SHADER_READ | Access::SHADER_WRITE,
                if texture {
                    Layout::General
                } else {
                    Layout::Undefined
                },
            ),
            Usage::Uniform(s) => (s, Access::UNIFORM_READ, Layout::Undefined),
            Usage::ColorAttachment => (
                Stages::COLOR_ATTACHMENT,
                Access::COLOR_READ | Access::COLOR_WRITE,
                Layout::ColorAttachment,
            ),
            Usage::DepthAttachment => (
                Stages::DEPTH_STENCIL,
                Access::DEPTH_STENCIL_READ | Access::DEPTH_STENCIL_WRITE,
                Layout::DepthStencilAttachment,
            ),
            Usage::DepthReadOnly => (
                Stages::DEPTH_STENCIL,
                Access::DEPTH_STENCIL_READ,
                Layout::ShaderReadOnly,
            ),
            Usage::Vertex => (Stages::VERTEX_INPUT, Access::VERTEX_READ, Layout::Undefined),
            Usage::Index => (Stages::VERTEX_INPUT, Access::INDEX_READ, Layout::Undefined),
            Usage::Indirect => (
                Stages::DRAW_INDIRECT,
                Access::INDIRECT_READ,
                Layout::Undefined,
            ),
            Usage::CopySrc => (
                Stages::TRANSFER,
                Access::TRANSFER_READ,
                if texture {
                    Layout::TransferSrc
                } else {
                    Layout::Undefined
                },
            ),
            Usage::CopyDst => (
                Stages::TRANSFER,
                Access::TRANSFER_WRITE,
                if texture {
                    Layout::TransferDst
                } else {
                    Layout::Undefined
                },
            ),
        };
        ResourceState::new(stages, access, layout)
    }
}

/// The graph stages a binding's shader visibility means.
pub fn shader_stages(visibility: vigil::ShaderStages) -> Stages {
    let mut s = Stages::empty();
    if visibility.contains(vigil::ShaderStages::VERTEX) {
        s |= Stages::VERTEX_SHADER;
    }
    if visibility.contains(vigil::ShaderStages::FRAGMENT) {
        s |= Stages::FRAGMENT_SHADER;
    }
    if visibility.contains(vigil::ShaderStages::COMPUTE) {
        s |= Stages::COMPUTE;
    }
    s
}
