//! Plain texture and sampler types: formats and their facts, usages, views, layouts,
//! sampler state.

use bitflags::bitflags;

/// Texel formats vigil supports: a subset of WebGPU's, with its names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureFormat {
    /// 8-bit red, unsigned normalized.
    R8Unorm,
    /// 8-bit red and green, unsigned normalized.
    Rg8Unorm,
    /// 8-bit RGBA, unsigned normalized.
    Rgba8Unorm,
    /// 8-bit RGBA, unsigned normalized, sRGB-encoded.
    Rgba8UnormSrgb,
    /// 8-bit BGRA, unsigned normalized.
    Bgra8Unorm,
    /// 8-bit BGRA, unsigned normalized, sRGB-encoded.
    Bgra8UnormSrgb,
    /// 8-bit RGBA, unsigned integer.
    Rgba8Uint,
    /// 8-bit red, unsigned integer.
    R8Uint,
    /// 32-bit red, unsigned integer.
    R32Uint,
    /// 32-bit red, signed integer.
    R32Sint,
    /// 32-bit red, float.
    R32Float,
    /// 32-bit red and green, float.
    Rg32Float,
    /// 16-bit RGBA, float.
    Rgba16Float,
    /// 32-bit RGBA, float.
    Rgba32Float,
    /// 32-bit RGBA, unsigned integer.
    Rgba32Uint,
    /// 32-bit float depth.
    Depth32Float,
    /// Depth of at least 24 bits with 8-bit stencil.
    Depth24PlusStencil8,
}

/// What a shader reads from a sampled texture of some format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureSampleType {
    /// Floats; `filterable` says whether a filtering sampler may be used.
    Float {
        /// Whether linear filtering is allowed.
        filterable: bool,
    },
    /// Depth values (readable with a comparison sampler).
    Depth,
    /// Signed integers.
    Sint,
    /// Unsigned integers.
    Uint,
}

/// Facts about a format used by validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatInfo {
    /// Bytes per texel (for depth-stencil: of the depth aspect's copy form, 0 if not copyable).
    pub bytes_per_texel: u32,
    /// Number of color components (0 for depth formats).
    pub components: u32,
    /// What sampling it yields.
    pub sample_type: TextureSampleType,
    /// Whether it can be a color render target.
    pub renderable: bool,
    /// Whether it can be blended as a render target.
    pub blendable: bool,
    /// Whether it can be a storage texture.
    pub storage: bool,
    /// Whether it has a depth aspect.
    pub has_depth: bool,
    /// Whether it has a stencil aspect.
    pub has_stencil: bool,
    /// Whether it is sRGB-encoded.
    pub srgb: bool,
    /// Whether it can be multisampled.
    pub multisample: bool,
}

impl TextureFormat {
    /// Every format, for enumeration and tests.
    pub const ALL: [TextureFormat; 17] = [
        TextureFormat::R8Unorm,
        TextureFormat::Rg8Unorm,
        TextureFormat::Rgba8Unorm,
        TextureFormat::Rgba8UnormSrgb,
        TextureFormat::Bgra8Unorm,
        TextureFormat::Bgra8UnormSrgb,
        TextureFormat::Rgba8Uint,
        TextureFormat::R8Uint,
        TextureFormat::R32Uint,
        TextureFormat::R32Sint,
        TextureFormat::R32Float,
        TextureFormat::Rg32Float,
        TextureFormat::Rgba16Float,
        TextureFormat::Rgba32Float,
        TextureFormat::Rgba32Uint,
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ];

    /// Facts about this format.
    pub fn info(self) -> FormatInfo {
        use TextureFormat as F;
        let float = TextureSampleType::Float { filterable: true };
        let unfilterable = TextureSampleType::Float { filterable: false };
        let color = |bytes, components, sample_type, blendable, storage, srgb| FormatInfo {
            bytes_per_texel: bytes,
            components,
            sample_type,
            renderable: true,
            blendable,
            storage,
            has_depth: false,
            has_stencil: false,
            srgb,
            multisample: sample_type == float,
        };
        match self {
            F::R8Unorm => color(1, 1, float, true, false, false),
            F::Rg8Unorm => color(2, 2, float, true, false, false),
            F::Rgba8Unorm => color(4, 4, float, true, true, false),
            F::Rgba8UnormSrgb => color(4, 4, float, true, false, true),
            F::Bgra8Unorm => color(4, 4, float, true, false, false),
            F::Bgra8UnormSrgb => color(4, 4, float, true, false, true),
            F::Rgba8Uint => color(4, 4, TextureSampleType::Uint, false, true, false),
            F::R8Uint => color(1, 1, TextureSampleType::Uint, false, false, false),
            F::R32Uint => color(4, 1, TextureSampleType::Uint, false, true, false),
            F::R32Sint => color(4, 1, TextureSampleType::Sint, false, true, false),
            F::R32Float => color(4, 1, unfilterable, false, true, false),
            F::Rg32Float => color(8, 2, unfilterable, false, true, false),
            F::Rgba16Float => color(8, 4, float, true, true, false),
            F::Rgba32Float => color(16, 4, unfilterable, false, true, false),
            F::Rgba32Uint => color(16, 4, TextureSampleType::Uint, false, true, false),
            F::Depth32Float => FormatInfo {
                bytes_per_texel: 4,
                components: 0,
                sample_type: TextureSampleType::Depth,
                renderable: true,
                blendable: false,
                storage: false,
                has_depth: true,
                has_stencil: false,
                srgb: false,
                multisample: true,
            },
            F::Depth24PlusStencil8 => FormatInfo {
                bytes_per_texel: 0,
                components: 0,
                sample_type: TextureSampleType::Depth,
                renderable: true,
                blendable: false,
                storage: false,
                has_depth: true,
                has_stencil: true,
                srgb: false,
                multisample: true,
            },
        }
    }

    /// Whether this is a depth or depth-stencil format.
    pub fn is_depth_stencil(self) -> bool {
        self.info().has_depth || self.info().has_stencil
    }

    /// The WGSL spelling, as in `texture_storage_2d<rgba8unorm, write>`.
    pub fn wgsl_name(self) -> &'static str {
        use TextureFormat as F;
        match self {
            F::R8Unorm => "r8unorm",
            F::Rg8Unorm => "rg8unorm",
            F::Rgba8Unorm => "rgba8unorm",
            F::Rgba8UnormSrgb => "rgba8unorm-srgb",
            F::Bgra8Unorm => "bgra8unorm",
            F::Bgra8UnormSrgb => "bgra8unorm-srgb",
            F::Rgba8Uint => "rgba8uint",
            F::R8Uint => "r8uint",
            F::R32Uint => "r32uint",
            F::R32Sint => "r32sint",
            F::R32Float => "r32float",
            F::Rg32Float => "rg32float",
            F::Rgba16Float => "rgba16float",
            F::Rgba32Float => "rgba32float",
            F::Rgba32Uint => "rgba32uint",
            F::Depth32Float => "depth32float",
            F::Depth24PlusStencil8 => "depth24plus-stencil8",
        }
    }
}

bitflags! {
    /// How a texture may be used.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct TextureUsages: u32 {
        /// Source of copies.
        const COPY_SRC = 1 << 0;
        /// Destination of copies and queue writes.
        const COPY_DST = 1 << 1;
        /// Sampled in shaders.
        const TEXTURE_BINDING = 1 << 2;
        /// Storage texture in shaders.
        const STORAGE_BINDING = 1 << 3;
        /// Color or depth-stencil attachment of render passes.
        const RENDER_ATTACHMENT = 1 << 4;
    }
}

/// Dimension of a texture view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureViewDimension {
    /// One 2D layer.
    D2,
    /// Several 2D layers.
    D2Array,
    /// Six layers as a cube.
    Cube,
    /// A multiple of six layers as cubes.
    CubeArray,
}

/// Aspect of a texture a view or copy covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureAspect {
    /// Every aspect the format has.
    #[default]
    All,
    /// The depth aspect only.
    DepthOnly,
    /// The stencil aspect only.
    StencilOnly,
}

/// A range of mip levels and array layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubresourceRange {
    /// Aspect covered.
    pub aspect: TextureAspect,
    /// First mip level.
    pub base_mip_level: u32,
    /// Number of mip levels.
    pub mip_level_count: u32,
    /// First array layer.
    pub base_array_layer: u32,
    /// Number of array layers.
    pub array_layer_count: u32,
}

/// The layout an image is in, as far as the backend needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureLayout {
    /// Contents undefined; only valid as the old layout of a transition.
    Undefined,
    /// Any use (storage textures live here).
    General,
    /// Sampled in shaders.
    ShaderReadOnly,
    /// Color attachment.
    ColorAttachment,
    /// Depth-stencil attachment.
    DepthStencilAttachment,
    /// Source of copies.
    TransferSrc,
    /// Destination of copies.
    TransferDst,
    /// Handed to the presentation engine.
    Present,
}

/// What the backend needs to create a texture. The layer above validated it.
#[derive(Clone, Debug)]
pub struct TextureDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Number of array layers.
    pub array_layers: u32,
    /// Number of mip levels.
    pub mip_level_count: u32,
    /// 1 or 4.
    pub sample_count: u32,
    /// Texel format.
    pub format: TextureFormat,
    /// Allowed uses.
    pub usage: TextureUsages,
    /// Whether a cube view will be made of it.
    pub cube_compatible: bool,
}

/// What a texture needs of the memory it is placed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexturePlacement {
    /// Bytes it occupies.
    pub size: u64,
    /// Its offset must be a multiple of this (a power of two).
    pub alignment: u64,
    /// The memory types it can be placed in, one bit each.
    pub memory_types: u32,
}

/// What the backend needs to create a texture view.
#[derive(Clone, Debug)]
pub struct TextureViewDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Format of the view (the texture's, or its sRGB twin).
    pub format: TextureFormat,
    /// View dimension.
    pub dimension: TextureViewDimension,
    /// Usage the view is created for (a subset of the texture's).
    pub usage: TextureUsages,
    /// Subresources covered.
    pub range: SubresourceRange,
}

/// Texel filtering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterMode {
    /// Nearest texel.
    #[default]
    Nearest,
    /// Linear blend.
    Linear,
}

/// What happens outside [0, 1] texture coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Clamp to the edge texel.
    #[default]
    ClampToEdge,
    /// Repeat.
    Repeat,
    /// Repeat, mirrored every other time.
    MirrorRepeat,
}

/// Comparison used by depth tests, stencil tests and comparison samplers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunction {
    /// Never passes.
    Never,
    /// new < old.
    Less,
    /// new == old.
    Equal,
    /// new <= old.
    LessEqual,
    /// new > old.
    Greater,
    /// new != old.
    NotEqual,
    /// new >= old.
    GreaterEqual,
    /// Always passes.
    Always,
}

/// What the backend needs to create a sampler. The layer above validated it.
#[derive(Clone, Debug)]
pub struct SamplerDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Address modes in u, v, w.
    pub address_modes: [AddressMode; 3],
    /// Magnification filter.
    pub mag_filter: FilterMode,
    /// Minification filter.
    pub min_filter: FilterMode,
    /// Filter between mip levels.
    pub mipmap_filter: FilterMode,
    /// Smallest level of detail.
    pub lod_min_clamp: f32,
    /// Largest level of detail.
    pub lod_max_clamp: f32,
    /// Comparison for comparison samplers.
    pub compare: Option<CompareFunction>,
    /// Largest anisotropy (1 = off).
    pub anisotropy_clamp: u16,
}

/// What a device can do with a format (all false when the format is unsupported).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormatSupport {
    /// Can be sampled.
    pub sampled: bool,
    /// Can be sampled with linear filtering.
    pub filterable: bool,
    /// Can be a storage texture.
    pub storage: bool,
    /// Can be a color attachment.
    pub color_attachment: bool,
    /// Can be blended as a color attachment.
    pub blendable: bool,
    /// Can be a depth-stencil attachment.
    pub depth_stencil_attachment: bool,
    /// Can be copied to and from.
    pub copy: bool,
    /// Supports 4 samples per texel.
    pub multisample4: bool,
}
