//! Plain texture and sampler types: formats and their facts, usages, views, layouts,
//! sampler state.

use bitflags::bitflags;

/// Texel formats vigil supports: WebGPU's uncompressed formats (with
/// [`Features::DEPTH32FLOAT_STENCIL8`](crate::Features::DEPTH32FLOAT_STENCIL8) for
/// `depth32float-stencil8`), its BC compressed formats (with
/// [`Features::TEXTURE_COMPRESSION_BC`](crate::Features::TEXTURE_COMPRESSION_BC)), and wgpu's
/// 16-bit normalized formats (with
/// [`Features::TEXTURE_FORMAT_16BIT_NORM`](crate::Features::TEXTURE_FORMAT_16BIT_NORM)), with
/// their names.
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
    /// 8-bit red, signed normalized (sampled only, as in WebGPU).
    R8Snorm,
    /// 8-bit red, signed integer.
    R8Sint,
    /// 8-bit red and green, signed normalized (sampled only).
    Rg8Snorm,
    /// 8-bit red and green, unsigned integer.
    Rg8Uint,
    /// 8-bit red and green, signed integer.
    Rg8Sint,
    /// 8-bit RGBA, signed normalized (sampled and storage, not rendered to, as in
    /// WebGPU).
    Rgba8Snorm,
    /// 8-bit RGBA, signed integer.
    Rgba8Sint,
    /// 16-bit red, unsigned integer.
    R16Uint,
    /// 16-bit red, signed integer.
    R16Sint,
    /// 16-bit red, float.
    R16Float,
    /// 16-bit red and green, unsigned integer.
    Rg16Uint,
    /// 16-bit red and green, signed integer.
    Rg16Sint,
    /// 16-bit red and green, float.
    Rg16Float,
    /// 16-bit RGBA, unsigned integer.
    Rgba16Uint,
    /// 16-bit RGBA, signed integer.
    Rgba16Sint,
    /// 32-bit red and green, unsigned integer.
    Rg32Uint,
    /// 32-bit red and green, signed integer.
    Rg32Sint,
    /// 32-bit RGBA, signed integer.
    Rgba32Sint,
    /// 10-bit RGB and 2-bit alpha, unsigned integer, packed in 32 bits.
    Rgb10a2Uint,
    /// 10-bit RGB and 2-bit alpha, unsigned normalized, packed in 32 bits.
    Rgb10a2Unorm,
    /// 11-bit red and green and 10-bit blue, unsigned float, packed in 32 bits (sampled
    /// only: WebGPU renders to it only with a feature).
    Rg11b10Ufloat,
    /// 9-bit RGB with a shared 5-bit exponent, unsigned float, packed in 32 bits (sampled
    /// only).
    Rgb9e5Ufloat,
    /// 16-bit depth, unsigned normalized.
    Depth16Unorm,
    /// Depth of at least 24 bits, no stencil: the device picks (on Vulkan 24-bit depth
    /// where it is an attachment format, else 32-bit float). Not copyable, as in WebGPU.
    Depth24Plus,
    /// 32-bit float depth.
    Depth32Float,
    /// Depth of at least 24 bits with 8-bit stencil.
    Depth24PlusStencil8,
    /// BC1 (DXT1): 4×4 blocks of 8 bytes, RGB with 1-bit alpha, unsigned normalized.
    Bc1RgbaUnorm,
    /// BC1, sRGB-encoded.
    Bc1RgbaUnormSrgb,
    /// BC2 (DXT3): 4×4 blocks of 16 bytes, RGB with explicit 4-bit alpha.
    Bc2RgbaUnorm,
    /// BC2, sRGB-encoded.
    Bc2RgbaUnormSrgb,
    /// BC3 (DXT5): 4×4 blocks of 16 bytes, RGB with interpolated alpha.
    Bc3RgbaUnorm,
    /// BC3, sRGB-encoded.
    Bc3RgbaUnormSrgb,
    /// BC4: 4×4 blocks of 8 bytes, one channel (red), unsigned normalized.
    Bc4RUnorm,
    /// BC4, signed normalized.
    Bc4RSnorm,
    /// BC5: 4×4 blocks of 16 bytes, two channels (red and green), unsigned normalized.
    Bc5RgUnorm,
    /// BC5, signed normalized.
    Bc5RgSnorm,
    /// BC6H: 4×4 blocks of 16 bytes, RGB half floats, unsigned.
    Bc6hRgbUfloat,
    /// BC6H, signed.
    Bc6hRgbFloat,
    /// BC7: 4×4 blocks of 16 bytes, RGBA, unsigned normalized.
    Bc7RgbaUnorm,
    /// BC7, sRGB-encoded.
    Bc7RgbaUnormSrgb,
    /// 16-bit red, unsigned normalized.
    R16Unorm,
    /// 16-bit red, signed normalized.
    R16Snorm,
    /// 16-bit red and green, unsigned normalized.
    Rg16Unorm,
    /// 16-bit red and green, signed normalized.
    Rg16Snorm,
    /// 16-bit RGBA, unsigned normalized.
    Rgba16Unorm,
    /// 16-bit RGBA, signed normalized.
    Rgba16Snorm,
    /// 32-bit float depth with 8-bit stencil; each aspect copies on its own (4 and 1
    /// bytes a texel).
    Depth32FloatStencil8,
    /// 8-bit stencil, no depth: sampled as unsigned integers, copied as bytes. On Vulkan
    /// it is `S8_UINT` where the device has it as an attachment format, else the stencil
    /// aspect of `D24_UNORM_S8_UINT` (or `D32_SFLOAT_S8_UINT`), whose depth nothing reads.
    Stencil8,
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
    /// Bytes per texel block: per texel for uncompressed formats (for depth-stencil: of the
    /// depth aspect's copy form, 0 if not copyable), per `block` of texels for compressed
    /// ones.
    pub bytes_per_texel: u32,
    /// Width and height in texels of one block: `[1, 1]` for uncompressed formats, `[4, 4]`
    /// for BC. Copies and texture sizes are in whole blocks.
    pub block: [u32; 2],
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
    pub const ALL: [TextureFormat; 63] = [
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
        TextureFormat::R8Snorm,
        TextureFormat::R8Sint,
        TextureFormat::Rg8Snorm,
        TextureFormat::Rg8Uint,
        TextureFormat::Rg8Sint,
        TextureFormat::Rgba8Snorm,
        TextureFormat::Rgba8Sint,
        TextureFormat::R16Uint,
        TextureFormat::R16Sint,
        TextureFormat::R16Float,
        TextureFormat::Rg16Uint,
        TextureFormat::Rg16Sint,
        TextureFormat::Rg16Float,
        TextureFormat::Rgba16Uint,
        TextureFormat::Rgba16Sint,
        TextureFormat::Rg32Uint,
        TextureFormat::Rg32Sint,
        TextureFormat::Rgba32Sint,
        TextureFormat::Rgb10a2Uint,
        TextureFormat::Rgb10a2Unorm,
        TextureFormat::Rg11b10Ufloat,
        TextureFormat::Rgb9e5Ufloat,
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
        TextureFormat::Depth16Unorm,
        TextureFormat::Depth24Plus,
        TextureFormat::Bc1RgbaUnorm,
        TextureFormat::Bc1RgbaUnormSrgb,
        TextureFormat::Bc2RgbaUnorm,
        TextureFormat::Bc2RgbaUnormSrgb,
        TextureFormat::Bc3RgbaUnorm,
        TextureFormat::Bc3RgbaUnormSrgb,
        TextureFormat::Bc4RUnorm,
        TextureFormat::Bc4RSnorm,
        TextureFormat::Bc5RgUnorm,
        TextureFormat::Bc5RgSnorm,
        TextureFormat::Bc6hRgbUfloat,
        TextureFormat::Bc6hRgbFloat,
        TextureFormat::Bc7RgbaUnorm,
        TextureFormat::Bc7RgbaUnormSrgb,
        TextureFormat::R16Unorm,
        TextureFormat::R16Snorm,
        TextureFormat::Rg16Unorm,
        TextureFormat::Rg16Snorm,
        TextureFormat::Rgba16Unorm,
        TextureFormat::Rgba16Snorm,
        TextureFormat::Depth32FloatStencil8,
        TextureFormat::Stencil8,
    ];

    /// The 16-bit normalized formats, which need
    /// [`Features::TEXTURE_FORMAT_16BIT_NORM`](crate::Features::TEXTURE_FORMAT_16BIT_NORM).
    pub const NORM16: [TextureFormat; 6] = [
        TextureFormat::R16Unorm,
        TextureFormat::R16Snorm,
        TextureFormat::Rg16Unorm,
        TextureFormat::Rg16Snorm,
        TextureFormat::Rgba16Unorm,
        TextureFormat::Rgba16Snorm,
    ];

    /// The device feature this format needs, if any: BC formats need
    /// `TEXTURE_COMPRESSION_BC`, 16-bit normalized ones `TEXTURE_FORMAT_16BIT_NORM`,
    /// `Depth32FloatStencil8` `DEPTH32FLOAT_STENCIL8`.
    pub fn required_feature(self) -> Option<crate::Features> {
        if self == TextureFormat::Depth32FloatStencil8 {
            Some(crate::Features::DEPTH32FLOAT_STENCIL8)
        } else if self.is_compressed() {
            Some(crate::Features::TEXTURE_COMPRESSION_BC)
        } else if Self::NORM16.contains(&self) {
            Some(crate::Features::TEXTURE_FORMAT_16BIT_NORM)
        } else {
            None
        }
    }

    /// The BC compressed formats, which need
    /// [`Features::TEXTURE_COMPRESSION_BC`](crate::Features::TEXTURE_COMPRESSION_BC).
    pub const BC: [TextureFormat; 14] = [
        TextureFormat::Bc1RgbaUnorm,
        TextureFormat::Bc1RgbaUnormSrgb,
        TextureFormat::Bc2RgbaUnorm,
        TextureFormat::Bc2RgbaUnormSrgb,
        TextureFormat::Bc3RgbaUnorm,
        TextureFormat::Bc3RgbaUnormSrgb,
        TextureFormat::Bc4RUnorm,
        TextureFormat::Bc4RSnorm,
        TextureFormat::Bc5RgUnorm,
        TextureFormat::Bc5RgSnorm,
        TextureFormat::Bc6hRgbUfloat,
        TextureFormat::Bc6hRgbFloat,
        TextureFormat::Bc7RgbaUnorm,
        TextureFormat::Bc7RgbaUnormSrgb,
    ];

    /// The format that holds the same bits with or without sRGB encoding, for formats that
    /// have one: a view may name it, and copies between the two are copies of one format.
    pub fn srgb_twin(self) -> Option<TextureFormat> {
        use TextureFormat as F;
        let pairs = [
            (F::Rgba8Unorm, F::Rgba8UnormSrgb),
            (F::Bgra8Unorm, F::Bgra8UnormSrgb),
            (F::Bc1RgbaUnorm, F::Bc1RgbaUnormSrgb),
            (F::Bc2RgbaUnorm, F::Bc2RgbaUnormSrgb),
            (F::Bc3RgbaUnorm, F::Bc3RgbaUnormSrgb),
            (F::Bc7RgbaUnorm, F::Bc7RgbaUnormSrgb),
        ];
        pairs.iter().find_map(|&(a, b)| {
            if self == a {
                Some(b)
            } else if self == b {
                Some(a)
            } else {
                None
            }
        })
    }

    /// Whether this is a block-compressed format (texel blocks larger than one texel).
    pub fn is_compressed(self) -> bool {
        self.info().block != [1, 1]
    }

    /// Facts about this format.
    pub fn info(self) -> FormatInfo {
        use TextureFormat as F;
        let float = TextureSampleType::Float { filterable: true };
        let unfilterable = TextureSampleType::Float { filterable: false };
        let (uint, sint) = (TextureSampleType::Uint, TextureSampleType::Sint);
        // Formats WebGPU samples (and some stores) but does not render to.
        let sampled = |bytes, components, sample_type, storage| FormatInfo {
            bytes_per_texel: bytes,
            block: [1, 1],
            components,
            sample_type,
            renderable: false,
            blendable: false,
            storage,
            has_depth: false,
            has_stencil: false,
            srgb: false,
            multisample: false,
        };
        let depth = |bytes| FormatInfo {
            bytes_per_texel: bytes,
            block: [1, 1],
            components: 0,
            sample_type: TextureSampleType::Depth,
            renderable: true,
            blendable: false,
            storage: false,
            has_depth: true,
            has_stencil: false,
            srgb: false,
            multisample: true,
        };
        // BC formats: sampled (filtered) and copied in 4×4 blocks, nothing else.
        let bc = |bytes, components, srgb| FormatInfo {
            bytes_per_texel: bytes,
            block: [4, 4],
            components,
            sample_type: float,
            renderable: false,
            blendable: false,
            storage: false,
            has_depth: false,
            has_stencil: false,
            srgb,
            multisample: false,
        };
        let color = |bytes, components, sample_type, blendable, storage, srgb| FormatInfo {
            bytes_per_texel: bytes,
            block: [1, 1],
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
            F::R8Snorm => sampled(1, 1, float, false),
            F::R8Sint => color(1, 1, sint, false, false, false),
            F::Rg8Snorm => sampled(2, 2, float, false),
            F::Rg8Uint => color(2, 2, uint, false, false, false),
            F::Rg8Sint => color(2, 2, sint, false, false, false),
            F::Rgba8Snorm => sampled(4, 4, float, true),
            F::Rgba8Sint => color(4, 4, sint, false, true, false),
            F::R16Uint => color(2, 1, uint, false, false, false),
            F::R16Sint => color(2, 1, sint, false, false, false),
            F::R16Float => color(2, 1, float, true, false, false),
            F::Rg16Uint => color(4, 2, uint, false, false, false),
            F::Rg16Sint => color(4, 2, sint, false, false, false),
            F::Rg16Float => color(4, 2, float, true, false, false),
            F::Rgba16Uint => color(8, 4, uint, false, true, false),
            F::Rgba16Sint => color(8, 4, sint, false, true, false),
            F::Rg32Uint => color(8, 2, uint, false, true, false),
            F::Rg32Sint => color(8, 2, sint, false, true, false),
            F::Rgba32Sint => color(16, 4, sint, false, true, false),
            F::Rgb10a2Uint => color(4, 4, uint, false, false, false),
            F::Rgb10a2Unorm => color(4, 4, float, true, false, false),
            F::Rg11b10Ufloat => sampled(4, 3, float, false),
            F::Rgb9e5Ufloat => sampled(4, 3, float, false),
            F::Depth16Unorm => depth(2),
            F::Depth24Plus => depth(0),
            F::Depth32Float => FormatInfo {
                bytes_per_texel: 4,
                block: [1, 1],
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
            F::Stencil8 => FormatInfo {
                bytes_per_texel: 1,
                block: [1, 1],
                components: 0,
                sample_type: TextureSampleType::Uint,
                renderable: true,
                blendable: false,
                storage: false,
                has_depth: false,
                has_stencil: true,
                srgb: false,
                multisample: true,
            },
            F::Depth24PlusStencil8 | F::Depth32FloatStencil8 => FormatInfo {
                // Never copied whole: depth32float-stencil8 by aspect (4 and 1 bytes),
                // depth24plus-stencil8 by its stencil aspect only.
                bytes_per_texel: 0,
                block: [1, 1],
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
            F::Bc1RgbaUnorm => bc(8, 4, false),
            F::Bc1RgbaUnormSrgb => bc(8, 4, true),
            F::Bc2RgbaUnorm => bc(16, 4, false),
            F::Bc2RgbaUnormSrgb => bc(16, 4, true),
            F::Bc3RgbaUnorm => bc(16, 4, false),
            F::Bc3RgbaUnormSrgb => bc(16, 4, true),
            F::Bc4RUnorm | F::Bc4RSnorm => bc(8, 1, false),
            F::Bc5RgUnorm | F::Bc5RgSnorm => bc(16, 2, false),
            F::Bc6hRgbUfloat | F::Bc6hRgbFloat => bc(16, 3, false),
            F::Bc7RgbaUnorm => bc(16, 4, false),
            F::Bc7RgbaUnormSrgb => bc(16, 4, true),
            // Rendered to, blended and filtered as wgpu allows them (where the device can);
            // not stored: WGSL has no such storage formats.
            F::R16Unorm | F::R16Snorm => color(2, 1, float, true, false, false),
            F::Rg16Unorm | F::Rg16Snorm => color(4, 2, float, true, false, false),
            F::Rgba16Unorm | F::Rgba16Snorm => color(8, 4, float, true, false, false),
        }
    }

    /// Whether this is a depth or depth-stencil format.
    pub fn is_depth_stencil(self) -> bool {
        self.info().has_depth || self.info().has_stencil
    }

    /// The WGSL spelling, as in `texture_storage_2d<rgba8unorm, write>` (WebGPU's name for
    /// formats WGSL never names, such as `bc1-rgba-unorm`).
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
            F::R8Snorm => "r8snorm",
            F::R8Sint => "r8sint",
            F::Rg8Snorm => "rg8snorm",
            F::Rg8Uint => "rg8uint",
            F::Rg8Sint => "rg8sint",
            F::Rgba8Snorm => "rgba8snorm",
            F::Rgba8Sint => "rgba8sint",
            F::R16Uint => "r16uint",
            F::R16Sint => "r16sint",
            F::R16Float => "r16float",
            F::Rg16Uint => "rg16uint",
            F::Rg16Sint => "rg16sint",
            F::Rg16Float => "rg16float",
            F::Rgba16Uint => "rgba16uint",
            F::Rgba16Sint => "rgba16sint",
            F::Rg32Uint => "rg32uint",
            F::Rg32Sint => "rg32sint",
            F::Rgba32Sint => "rgba32sint",
            F::Rgb10a2Uint => "rgb10a2uint",
            F::Rgb10a2Unorm => "rgb10a2unorm",
            F::Rg11b10Ufloat => "rg11b10ufloat",
            F::Rgb9e5Ufloat => "rgb9e5ufloat",
            F::Depth16Unorm => "depth16unorm",
            F::Depth24Plus => "depth24plus",
            F::Bc1RgbaUnorm => "bc1-rgba-unorm",
            F::Bc1RgbaUnormSrgb => "bc1-rgba-unorm-srgb",
            F::Bc2RgbaUnorm => "bc2-rgba-unorm",
            F::Bc2RgbaUnormSrgb => "bc2-rgba-unorm-srgb",
            F::Bc3RgbaUnorm => "bc3-rgba-unorm",
            F::Bc3RgbaUnormSrgb => "bc3-rgba-unorm-srgb",
            F::Bc4RUnorm => "bc4-r-unorm",
            F::Bc4RSnorm => "bc4-r-snorm",
            F::Bc5RgUnorm => "bc5-rg-unorm",
            F::Bc5RgSnorm => "bc5-rg-snorm",
            F::Bc6hRgbUfloat => "bc6h-rgb-ufloat",
            F::Bc6hRgbFloat => "bc6h-rgb-float",
            F::Bc7RgbaUnorm => "bc7-rgba-unorm",
            F::Bc7RgbaUnormSrgb => "bc7-rgba-unorm-srgb",
            F::R16Unorm => "r16unorm",
            F::R16Snorm => "r16snorm",
            F::Rg16Unorm => "rg16unorm",
            F::Rg16Snorm => "rg16snorm",
            F::Rgba16Unorm => "rgba16unorm",
            F::Rgba16Snorm => "rgba16snorm",
            F::Depth32FloatStencil8 => "depth32float-stencil8",
            F::Stencil8 => "stencil8",
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

/// Dimension of a texture: how many coordinates address its texels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    /// A row of texels (`texture_1d`): one layer, one mip level, height 1.
    D1,
    /// Rows and columns, in one or more layers (`texture_2d`, arrays and cubes).
    #[default]
    D2,
    /// A volume (`texture_3d`): one layer, its depth in slices that each mip level halves.
    D3,
}

/// Dimension of a texture view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureViewDimension {
    /// A 1D texture.
    D1,
    /// One 2D layer.
    D2,
    /// Several 2D layers.
    D2Array,
    /// Six layers as a cube.
    Cube,
    /// A multiple of six layers as cubes.
    CubeArray,
    /// A 3D texture, every slice of the mip levels covered.
    D3,
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
    /// 1D, 2D or 3D.
    pub dimension: TextureDimension,
    /// Width in texels.
    pub width: u32,
    /// Height in texels (1 for a 1D texture).
    pub height: u32,
    /// Depth in texels (1 unless 3D).
    pub depth: u32,
    /// Number of array layers (1 for a 1D or 3D texture).
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
    /// Outside the texture, the sampler's border color
    /// ([`SamplerBorderColor`]; wgpu's `ADDRESS_MODE_CLAMP_TO_BORDER`).
    ClampToBorder,
}

/// What a sampler clamping to its border returns outside the texture, as wgpu's
/// `SamplerBorderColor`. A comparison sampler compares against the color's first
/// component (so `OpaqueWhite` is a depth of 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SamplerBorderColor {
    /// `[0, 0, 0, 0]`.
    #[default]
    TransparentBlack,
    /// `[0, 0, 0, 1]`.
    OpaqueBlack,
    /// `[1, 1, 1, 1]`.
    OpaqueWhite,
    /// `[0, 0, 0, 0]` for every channel, alpha too (wgpu's `ADDRESS_MODE_CLAMP_TO_ZERO`;
    /// on Vulkan the same as `TransparentBlack`).
    Zero,
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
    /// The border color of `ClampToBorder` address modes (`None`: transparent black).
    pub border_color: Option<SamplerBorderColor>,
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
    /// Can be a render attachment of 4 samples per texel (a 4-sample texture of another
    /// usage may still be refused by the backend when its driver would not make it).
    pub multisample4: bool,
}
