//! Plain rendering types: vertex layouts, fixed-function state, render pipeline and pass
//! descriptors, and texture copy regions.

use crate::Api;
use crate::command::PassTimestampWrites;
use crate::texture::{CompareFunction, TextureAspect, TextureFormat};
use bitflags::bitflags;

/// Format of index buffer elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexFormat {
    /// 16-bit indices.
    Uint16,
    /// 32-bit indices.
    Uint32,
}

impl IndexFormat {
    /// Bytes per index.
    pub fn size(self) -> u64 {
        match self {
            IndexFormat::Uint16 => 2,
            IndexFormat::Uint32 => 4,
        }
    }
}

/// The scalar kind a vertex format delivers to the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexScalar {
    /// f32 (also normalized integer formats).
    Float,
    /// u32.
    Uint,
    /// i32.
    Sint,
}

/// Format of one vertex attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// One f32.
    Float32,
    /// Two f32.
    Float32x2,
    /// Three f32.
    Float32x3,
    /// Four f32.
    Float32x4,
    /// One u32.
    Uint32,
    /// Two u32.
    Uint32x2,
    /// Four u32.
    Uint32x4,
    /// One i32.
    Sint32,
    /// Four u8, normalized to [0, 1].
    Unorm8x4,
    /// Two f16.
    Float16x2,
    /// Four f16.
    Float16x4,
}

impl VertexFormat {
    /// Bytes the attribute occupies.
    pub fn size(self) -> u64 {
        use VertexFormat as V;
        match self {
            V::Float32 | V::Uint32 | V::Sint32 | V::Unorm8x4 | V::Float16x2 => 4,
            V::Float32x2 | V::Uint32x2 | V::Float16x4 => 8,
            V::Float32x3 => 12,
            V::Float32x4 | V::Uint32x4 => 16,
        }
    }

    /// Components and their scalar kind as the shader sees them.
    pub fn shader_type(self) -> (u32, VertexScalar) {
        use VertexFormat as V;
        match self {
            V::Float32 => (1, VertexScalar::Float),
            V::Float32x2 | V::Float16x2 => (2, VertexScalar::Float),
            V::Float32x3 => (3, VertexScalar::Float),
            V::Float32x4 | V::Unorm8x4 | V::Float16x4 => (4, VertexScalar::Float),
            V::Uint32 => (1, VertexScalar::Uint),
            V::Uint32x2 => (2, VertexScalar::Uint),
            V::Uint32x4 => (4, VertexScalar::Uint),
            V::Sint32 => (1, VertexScalar::Sint),
        }
    }
}

/// Whether a vertex buffer advances per vertex or per instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VertexStepMode {
    /// Per vertex.
    #[default]
    Vertex,
    /// Per instance.
    Instance,
}

/// One attribute of a vertex buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    /// Format.
    pub format: VertexFormat,
    /// Byte offset within one element.
    pub offset: u64,
    /// `@location(n)` in the vertex shader.
    pub shader_location: u32,
}

/// Layout of one vertex buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexBufferLayout<'a> {
    /// Bytes between consecutive elements.
    pub array_stride: u64,
    /// Per vertex or per instance.
    pub step_mode: VertexStepMode,
    /// Attributes read from each element.
    pub attributes: &'a [VertexAttribute],
}

/// How vertices assemble into primitives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrimitiveTopology {
    /// Points.
    PointList,
    /// Separate lines.
    LineList,
    /// Connected lines.
    LineStrip,
    /// Separate triangles.
    #[default]
    TriangleList,
    /// Connected triangles.
    TriangleStrip,
}

/// Winding of front faces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FrontFace {
    /// Counter-clockwise.
    #[default]
    Ccw,
    /// Clockwise.
    Cw,
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CullMode {
    /// None.
    #[default]
    None,
    /// Front faces.
    Front,
    /// Back faces.
    Back,
}

/// Primitive assembly and rasterisation state.
///
/// Differs from wgpu's: no `conservative` rasterization.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PrimitiveState {
    /// Topology.
    pub topology: PrimitiveTopology,
    /// Front face winding.
    pub front_face: FrontFace,
    /// Culling.
    pub cull_mode: CullMode,
    /// For strip topologies drawn with indices: the index format, which turns on primitive
    /// restart (the all-ones index, `0xFFFF` or `0xFFFF_FFFF`, starts a new strip), as in
    /// WebGPU. Indexed draws with such a pipeline need an index buffer of this format.
    /// Only strip topologies may set it.
    pub strip_index_format: Option<IndexFormat>,
    /// How triangles are rasterized: filled (the default), as their edges (needs
    /// `POLYGON_MODE_LINE`) or as their vertices (needs `POLYGON_MODE_POINT`). Point and
    /// line topologies are drawn as they are whatever it says.
    pub polygon_mode: PolygonMode,
    /// Primitives are not clipped against the near and far planes; fragment depth is
    /// clamped to the viewport's depth range instead (needs `DEPTH_CLIP_CONTROL`), as
    /// wgpu's `unclipped_depth`. Shadow maps use it so casters behind the light's near
    /// plane still write depth.
    pub unclipped_depth: bool,
}

/// How a pipeline rasterizes triangles, as wgpu's `PolygonMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PolygonMode {
    /// Filled.
    #[default]
    Fill,
    /// Their edges only.
    Line,
    /// Their vertices only.
    Point,
}

/// What a stencil test does to the stored value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StencilOperation {
    /// Keep it.
    #[default]
    Keep,
    /// Set it to zero.
    Zero,
    /// Replace it with the reference.
    Replace,
    /// Invert its bits.
    Invert,
    /// Increment, clamping.
    IncrementClamp,
    /// Decrement, clamping.
    DecrementClamp,
    /// Increment, wrapping.
    IncrementWrap,
    /// Decrement, wrapping.
    DecrementWrap,
}

/// Stencil state of one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilFaceState {
    /// Comparison against the reference.
    pub compare: CompareFunction,
    /// On stencil failure.
    pub fail_op: StencilOperation,
    /// On depth failure.
    pub depth_fail_op: StencilOperation,
    /// On pass.
    pub pass_op: StencilOperation,
}

impl Default for StencilFaceState {
    fn default() -> Self {
        StencilFaceState {
            compare: CompareFunction::Always,
            fail_op: StencilOperation::Keep,
            depth_fail_op: StencilOperation::Keep,
            pass_op: StencilOperation::Keep,
        }
    }
}

/// Stencil test state (WebGPU's `GPUStencil*` fields of the depth-stencil state). The
/// default keeps the stencil as it is: always pass, keep, all mask bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilState {
    /// Front-face stencil.
    pub front: StencilFaceState,
    /// Back-face stencil.
    pub back: StencilFaceState,
    /// Stencil read mask.
    pub read_mask: u32,
    /// Stencil write mask.
    pub write_mask: u32,
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState {
            front: StencilFaceState::default(),
            back: StencilFaceState::default(),
            read_mask: u32::MAX,
            write_mask: u32::MAX,
        }
    }
}

/// Depth bias: an offset added to each fragment's depth before the depth test, as
/// WebGPU's `depthBias`, `depthBiasSlopeScale` and `depthBiasClamp` (and wgpu's
/// `DepthBiasState`): shadow maps and decals use it against self-shadowing and
/// z-fighting. All zero (the default) is no bias.
#[derive(Clone, Copy, Debug, Default)]
pub struct DepthBiasState {
    /// Constant offset, in units of the depth format's smallest resolvable difference.
    pub constant: i32,
    /// Offset per unit of the primitive's depth slope (its largest depth change per pixel).
    pub slope_scale: f32,
    /// The bias's limit: a positive clamp caps it from above, a negative one from below,
    /// 0 leaves it as it is.
    pub clamp: f32,
}

impl DepthBiasState {
    /// Whether any of the three is set.
    pub fn is_enabled(&self) -> bool {
        self.constant != 0 || self.slope_scale != 0.0 || self.clamp != 0.0
    }
}

// Compared and hashed by the floats' bits, so a state is equal to itself (whatever it
// holds) and the depth-stencil state around it can be a key.
impl PartialEq for DepthBiasState {
    fn eq(&self, other: &Self) -> bool {
        self.constant == other.constant
            && self.slope_scale.to_bits() == other.slope_scale.to_bits()
            && self.clamp.to_bits() == other.clamp.to_bits()
    }
}

impl Eq for DepthBiasState {}

impl std::hash::Hash for DepthBiasState {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.constant.hash(state);
        self.slope_scale.to_bits().hash(state);
        self.clamp.to_bits().hash(state);
    }
}

/// Depth and stencil test state. For a depth-only format leave `stencil` at its default
/// (`StencilState::default()`), as WebGPU lets a depth-only pipeline omit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilState {
    /// Format of the depth-stencil attachment.
    pub format: TextureFormat,
    /// Whether passing fragments write depth.
    pub depth_write_enabled: bool,
    /// Depth comparison.
    pub depth_compare: CompareFunction,
    /// Stencil test.
    pub stencil: StencilState,
    /// Depth bias (`DepthBiasState::default()`: none).
    pub bias: DepthBiasState,
}

impl DepthStencilState {
    /// Whether any stencil face state differs from "always pass, keep".
    pub fn stencil_enabled(&self) -> bool {
        let off = StencilFaceState::default();
        self.stencil.front != off || self.stencil.back != off
    }
    /// Whether drawing may write stencil: a nonzero write mask and an operation other than
    /// `Keep` on either face (culling aside, as Vulkan's rule for read-only stencil is).
    pub fn writes_stencil(&self) -> bool {
        let writes = |f: &StencilFaceState| {
            [f.fail_op, f.depth_fail_op, f.pass_op]
                .iter()
                .any(|&op| op != StencilOperation::Keep)
        };
        self.stencil.write_mask != 0 && (writes(&self.stencil.front) || writes(&self.stencil.back))
    }
}

/// Blend factor.
///
/// Differs from WebGPU's: no `src-alpha-saturated`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// Source color.
    Src,
    /// 1 - source color.
    OneMinusSrc,
    /// Source alpha.
    SrcAlpha,
    /// 1 - source alpha.
    OneMinusSrcAlpha,
    /// Destination color.
    Dst,
    /// 1 - destination color.
    OneMinusDst,
    /// Destination alpha.
    DstAlpha,
    /// 1 - destination alpha.
    OneMinusDstAlpha,
    /// The blend constant.
    Constant,
    /// 1 - the blend constant.
    OneMinusConstant,
    /// `min(source alpha, 1 - destination alpha)` for color, 1 for alpha.
    SrcAlphaSaturated,
    /// The fragment shader's second source color (`@blend_src(1)`); needs the
    /// `DUAL_SOURCE_BLENDING` feature.
    Src1,
    /// 1 - the second source color.
    OneMinusSrc1,
    /// The second source's alpha.
    Src1Alpha,
    /// 1 - the second source's alpha.
    OneMinusSrc1Alpha,
}

impl BlendFactor {
    /// Whether the factor reads the fragment shader's second source (dual-source blending).
    pub fn uses_src1(self) -> bool {
        matches!(
            self,
            BlendFactor::Src1
                | BlendFactor::OneMinusSrc1
                | BlendFactor::Src1Alpha
                | BlendFactor::OneMinusSrc1Alpha
        )
    }
}

/// Blend operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlendOperation {
    /// src + dst.
    #[default]
    Add,
    /// src - dst.
    Subtract,
    /// dst - src.
    ReverseSubtract,
    /// min(src, dst).
    Min,
    /// max(src, dst).
    Max,
}

/// Blending of one channel group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendComponent {
    /// Factor applied to the source.
    pub src_factor: BlendFactor,
    /// Factor applied to the destination.
    pub dst_factor: BlendFactor,
    /// Operation.
    pub operation: BlendOperation,
}

impl BlendComponent {
    /// Source replaces destination (WebGPU's `REPLACE`: one, zero, add).
    pub const REPLACE: BlendComponent = BlendComponent {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::Zero,
        operation: BlendOperation::Add,
    };
    /// Porter-Duff "over" for premultiplied values, as in wgpu: `src + dst × (1 − src.a)`
    /// (one, one-minus-src-alpha, add).
    pub const OVER: BlendComponent = BlendComponent {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::OneMinusSrcAlpha,
        operation: BlendOperation::Add,
    };
}

/// Blending of color and alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendState {
    /// RGB channels.
    pub color: BlendComponent,
    /// Alpha channel.
    pub alpha: BlendComponent,
}

impl BlendState {
    /// No blending: source replaces destination in every channel.
    pub const REPLACE: BlendState = BlendState {
        color: BlendComponent::REPLACE,
        alpha: BlendComponent::REPLACE,
    };
    /// Straight (non-premultiplied) alpha blending, as in wgpu: color
    /// `src × src.a + dst × (1 − src.a)`, alpha [`BlendComponent::OVER`]
    /// (`src.a + dst.a × (1 − src.a)`).
    pub const ALPHA_BLENDING: BlendState = BlendState {
        color: BlendComponent {
            src_factor: BlendFactor::SrcAlpha,
            dst_factor: BlendFactor::OneMinusSrcAlpha,
            operation: BlendOperation::Add,
        },
        alpha: BlendComponent::OVER,
    };
    /// Premultiplied alpha blending, as in wgpu: [`BlendComponent::OVER`] for color and
    /// alpha.
    pub const PREMULTIPLIED_ALPHA_BLENDING: BlendState = BlendState {
        color: BlendComponent::OVER,
        alpha: BlendComponent::OVER,
    };
}

bitflags! {
    /// Channels a color target writes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct ColorWrites: u32 {
        /// Red.
        const RED = 1 << 0;
        /// Green.
        const GREEN = 1 << 1;
        /// Blue.
        const BLUE = 1 << 2;
        /// Alpha.
        const ALPHA = 1 << 3;
        /// All four.
        const ALL = 0b1111;
    }
}

impl Default for ColorWrites {
    fn default() -> Self {
        ColorWrites::ALL
    }
}

/// One color target of a render pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorTargetState {
    /// Format of the attachment.
    pub format: TextureFormat,
    /// Blending, or none.
    pub blend: Option<BlendState>,
    /// Channels written.
    pub write_mask: ColorWrites,
}

/// How a render pipeline samples, as wgpu's (WebGPU's `GPUMultisampleState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MultisampleState {
    /// Samples per pixel: 1, or 4 for multisampling; the pass's attachments must have as
    /// many.
    pub count: u32,
    /// Which samples are written: bit `i` for sample `i` (bits past `count` are ignored).
    /// All ones for every sample.
    pub mask: u64,
    /// Whether the alpha of the fragment shader's output at location 0 also decides which
    /// samples are covered (alpha 0 none, 1 all, an implementation's pattern between).
    /// Needs `count` 4 and a color target 0 with alpha.
    pub alpha_to_coverage_enabled: bool,
}

impl Default for MultisampleState {
    /// One sample, all of it written, no alpha to coverage.
    fn default() -> Self {
        MultisampleState {
            count: 1,
            mask: !0,
            alpha_to_coverage_enabled: false,
        }
    }
}

/// What the backend needs to create a render pipeline. Validated above.
pub struct RenderPipelineDescriptor<'a, A: Api> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Layout.
    pub layout: &'a A::PipelineLayout,
    /// Module of the vertex entry point.
    pub vertex_module: &'a A::ShaderModule,
    /// Vertex entry point.
    pub vertex_entry: &'a str,
    /// Vertex buffers, by slot.
    pub vertex_buffers: &'a [VertexBufferLayout<'a>],
    /// Module and entry point of the fragment stage, if any.
    pub fragment: Option<(&'a A::ShaderModule, &'a str)>,
    /// Color targets, by attachment index (`None` leaves an index unused).
    pub targets: &'a [Option<ColorTargetState>],
    /// Primitive state.
    pub primitive: PrimitiveState,
    /// Depth-stencil state.
    pub depth_stencil: Option<DepthStencilState>,
    /// Sample count, sample mask and alpha to coverage.
    pub multisample: MultisampleState,
    /// The view mask of the passes it is used in (0 for none).
    pub view_mask: u32,
    /// `Some` for a mesh pipeline: `vertex_module` and `vertex_entry` then name the mesh
    /// shader, `vertex_buffers` is empty and the topology is the mesh shader's.
    pub mesh: Option<MeshStages<'a, A>>,
    /// A pipeline cache to look the pipeline up in and add it to.
    pub cache: Option<&'a A::PipelineCache>,
}

/// What a mesh pipeline has besides its mesh shader.
pub struct MeshStages<'a, A: Api> {
    /// The task shader launching the mesh workgroups, if any.
    pub task: Option<(&'a A::ShaderModule, &'a str)>,
}

/// Workgroup counts a mesh draw may launch (`VkPhysicalDeviceMeshShaderPropertiesEXT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshLimits {
    /// Most task workgroups per dimension of one draw.
    pub max_task_work_group_count: [u32; 3],
    /// Most task workgroups in all of one draw.
    pub max_task_work_group_total_count: u32,
    /// Most mesh workgroups per dimension of one draw (without a task shader).
    pub max_mesh_work_group_count: [u32; 3],
    /// Most mesh workgroups in all of one draw.
    pub max_mesh_work_group_total_count: u32,
}

/// What to do with an attachment at the start of a pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadOp<V> {
    /// Clear it to a value.
    Clear(V),
    /// Keep its contents.
    Load,
}

/// What to do with an attachment at the end of a pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoreOp {
    /// Keep what was rendered.
    #[default]
    Store,
    /// Contents become undefined.
    Discard,
}

/// A color attachment, in backend terms.
pub struct ColorAttachment<'a, A: Api> {
    /// Rendered view.
    pub view: &'a A::TextureView,
    /// Format of the view (decides how the clear value is read).
    pub format: TextureFormat,
    /// Multisample resolve destination.
    pub resolve_target: Option<&'a A::TextureView>,
    /// Load operation; clear values in the format's own number kind.
    pub load: LoadOp<[f64; 4]>,
    /// Store operation.
    pub store: StoreOp,
}

/// A depth-stencil attachment, in backend terms.
pub struct DepthStencilAttachment<'a, A: Api> {
    /// Rendered view.
    pub view: &'a A::TextureView,
    /// Format of the view.
    pub format: TextureFormat,
    /// Depth load and store.
    pub depth: (LoadOp<f32>, StoreOp),
    /// Stencil load and store (ignored when the format has no stencil).
    pub stencil: (LoadOp<u32>, StoreOp),
    /// Every aspect of the format is read-only in the pass: the attachment is in the
    /// `ShaderReadOnly` layout (where the pass's shaders may also sample it), loaded, and
    /// not stored; `depth` and `stencil` are then `(Load, Store)` and not used.
    pub read_only: bool,
}

/// What the backend needs to begin a render pass.
pub struct RenderPassDescriptor<'a, A: Api> {
    /// Debug label of the pass.
    pub label: &'a str,
    /// Render area, `[width, height]`.
    pub extent: [u32; 2],
    /// Color attachments by index.
    pub color_attachments: &'a [Option<ColorAttachment<'a, A>>],
    /// Depth-stencil attachment.
    pub depth_stencil_attachment: Option<DepthStencilAttachment<'a, A>>,
    /// Timestamps to write.
    pub timestamp_writes: Option<PassTimestampWrites<'a, A>>,
    /// Multiview: bit `i` renders view `i` into layer `i` of every attachment; 0 for none.
    pub view_mask: u32,
}

/// One region of a buffer-texture copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferTextureCopy {
    /// Byte offset of the first texel in the buffer.
    pub buffer_offset: u64,
    /// Bytes between rows of texel blocks in the buffer (rows of texels for uncompressed
    /// formats).
    pub bytes_per_row: u32,
    /// Rows of texel blocks between images (layers) in the buffer.
    pub rows_per_image: u32,
    /// Mip level.
    pub mip_level: u32,
    /// First array layer (of a 3D texture: the first slice, its `z`).
    pub base_array_layer: u32,
    /// Texel origin `[x, y]` (on a block's corner).
    pub origin: [u32; 2],
    /// `[width, height, layers]` (of a 3D texture: `[width, height, depth]`), in texels:
    /// whole blocks, which for a compressed format may reach past the mip level's edge into
    /// its last blocks (the backend copies up to the edge).
    pub size: [u32; 3],
    /// Aspect copied.
    pub aspect: TextureAspect,
}

/// One region of a texture-to-texture copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureCopy {
    /// Source mip level.
    pub src_mip_level: u32,
    /// Source first layer (of a 3D texture: the first slice, its `z`).
    pub src_base_array_layer: u32,
    /// Source origin.
    pub src_origin: [u32; 2],
    /// Destination mip level.
    pub dst_mip_level: u32,
    /// Destination first layer (of a 3D texture: the first slice, its `z`).
    pub dst_base_array_layer: u32,
    /// Destination origin.
    pub dst_origin: [u32; 2],
    /// `[width, height, layers]`; layers are slices of a 3D side (a 3D texture and a 2D
    /// array copy slices to layers).
    pub size: [u32; 3],
    /// Aspect copied.
    pub aspect: TextureAspect,
}
