//! Public texture, view and sampler descriptors.

use vigil_hal::{
    AddressMode, CompareFunction, FilterMode, SamplerBorderColor, TextureAspect, TextureDimension,
    TextureFormat, TextureUsages, TextureViewDimension,
};

/// How to create a texture: 2D (with layers), 1D or 3D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// 1D, 2D (the default) or 3D.
    pub dimension: TextureDimension,
    /// `[width, height]` in texels (a 1D texture's height is 1).
    pub size: [u32; 2],
    /// Array layers (1 for a plain 2D texture, 6 for a cube; 1 for a 1D texture). For a 3D
    /// texture, its depth in texels: WebGPU's `depthOrArrayLayers`.
    pub array_layers: u32,
    /// Mip levels (1 for none); at most `floor(log2(max(w, h))) + 1`, counting the depth
    /// too for a 3D texture; 1 for a 1D texture.
    pub mip_level_count: u32,
    /// Samples per texel: 1, or 4 for a multisampled render target.
    pub sample_count: u32,
    /// Texel format.
    pub format: TextureFormat,
    /// Allowed uses.
    pub usage: TextureUsages,
}

impl Default for TextureDescriptor<'_> {
    fn default() -> Self {
        TextureDescriptor {
            label: "",
            dimension: TextureDimension::D2,
            size: [1, 1],
            array_layers: 1,
            mip_level_count: 1,
            sample_count: 1,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::empty(),
        }
    }
}

/// What a texture was created with, as [`crate::Device::texture_descriptor`] returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureDescriptorOwned {
    /// Label.
    pub label: String,
    /// 1D, 2D or 3D.
    pub dimension: TextureDimension,
    /// `[width, height]`.
    pub size: [u32; 2],
    /// Array layers; a 3D texture's depth.
    pub array_layers: u32,
    /// Mip levels.
    pub mip_level_count: u32,
    /// Samples per texel.
    pub sample_count: u32,
    /// Format.
    pub format: TextureFormat,
    /// Usage.
    pub usage: TextureUsages,
}

impl TextureDescriptorOwned {
    /// The descriptor, borrowing the label.
    pub fn descriptor(&self) -> TextureDescriptor<'_> {
        TextureDescriptor {
            label: &self.label,
            dimension: self.dimension,
            size: self.size,
            array_layers: self.array_layers,
            mip_level_count: self.mip_level_count,
            sample_count: self.sample_count,
            format: self.format,
            usage: self.usage,
        }
    }

    /// Size of a mip level, `[width, height]`.
    pub fn mip_size(&self, level: u32) -> [u32; 2] {
        [
            (self.size[0] >> level).max(1),
            (self.size[1] >> level).max(1),
        ]
    }

    /// Its subresources' layers: its array layers, or 1 for a 3D texture (whose slices are
    /// not subresources: a barrier or a view covers them all).
    pub fn layers(&self) -> u32 {
        match self.dimension {
            TextureDimension::D3 => 1,
            _ => self.array_layers,
        }
    }

    /// What a copy's third coordinate reaches at mip level `level`: the array layers, or
    /// for a 3D texture the level's depth (halved with each level).
    pub fn mip_layers(&self, level: u32) -> u32 {
        match self.dimension {
            TextureDimension::D3 => self.array_layers.checked_shr(level).unwrap_or(0).max(1),
            _ => self.array_layers,
        }
    }

    /// The subresource layers a copy of `count` layers (slices of a 3D texture) from
    /// `base` touches, as `(first, count)`.
    pub(crate) fn copied_layers(&self, base: u32, count: u32) -> (u32, u32) {
        match self.dimension {
            TextureDimension::D3 => (0, 1),
            _ => (base, count),
        }
    }
}

/// How to view a texture. `None` fields default to the texture's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureViewDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Format: the texture's, or its sRGB / linear twin.
    pub format: Option<TextureFormat>,
    /// Dimension: `D2` for one layer, `D2Array` for several, `Cube` for six; `D1` and `D3`
    /// for 1D and 3D textures (their only view dimensions).
    pub dimension: Option<TextureViewDimension>,
    /// Aspect of a depth-stencil texture.
    pub aspect: TextureAspect,
    /// First mip level.
    pub base_mip_level: u32,
    /// Mip levels (default: the rest).
    pub mip_level_count: Option<u32>,
    /// First layer.
    pub base_array_layer: u32,
    /// Layers (default: the rest, or 1 for a `D2` view).
    pub array_layer_count: Option<u32>,
    /// Usage subset the view is for (default: the texture's).
    pub usage: Option<TextureUsages>,
}

/// Subresources of a texture to clear ([`CommandEncoder::clear_texture`](crate::CommandEncoder::clear_texture)),
/// wgpu's `ImageSubresourceRange`. `Default` is the whole texture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageSubresourceRange {
    /// The aspect: `All`, or one aspect of a depth-stencil format.
    pub aspect: TextureAspect,
    /// First mip level.
    pub base_mip_level: u32,
    /// Mip levels (default: the rest).
    pub mip_level_count: Option<u32>,
    /// First layer (a 3D texture has one: its slices are cleared together).
    pub base_array_layer: u32,
    /// Layers (default: the rest).
    pub array_layer_count: Option<u32>,
}

/// How to create a sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Address modes `[u, v, w]`.
    pub address_modes: [AddressMode; 3],
    /// Magnification filter.
    pub mag_filter: FilterMode,
    /// Minification filter.
    pub min_filter: FilterMode,
    /// Filter between mip levels.
    pub mipmap_filter: FilterMode,
    /// Smallest level of detail (≥ 0).
    pub lod_min_clamp: f32,
    /// Largest level of detail (≥ `lod_min_clamp`).
    pub lod_max_clamp: f32,
    /// Makes it a comparison sampler.
    pub compare: Option<CompareFunction>,
    /// Largest anisotropy, 1 to 16 (above 1 needs linear filters and the feature).
    pub anisotropy_clamp: u16,
    /// What `AddressMode::ClampToBorder` returns outside the texture (`None`: transparent
    /// black); the other address modes ignore it.
    pub border_color: Option<SamplerBorderColor>,
}

impl Default for SamplerDescriptor<'_> {
    fn default() -> Self {
        SamplerDescriptor {
            label: "",
            address_modes: [AddressMode::ClampToEdge; 3],
            mag_filter: FilterMode::Nearest,
            min_filter: FilterMode::Nearest,
            mipmap_filter: FilterMode::Nearest,
            lod_min_clamp: 0.0,
            lod_max_clamp: 32.0,
            compare: None,
            anisotropy_clamp: 1,
            border_color: None,
        }
    }
}

/// How texel rows are laid out in host memory or a buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TexelCopyBufferLayout {
    /// Byte offset of the first texel.
    pub offset: u64,
    /// Bytes from one row to the next (at least a row's texels).
    pub bytes_per_row: u32,
    /// Rows from one layer to the next (default: the copy's height).
    pub rows_per_image: Option<u32>,
}

/// Where in a texture a copy starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TexelCopyTextureInfo {
    /// Mip level.
    pub mip_level: u32,
    /// `[x, y]` of the first texel.
    pub origin: [u32; 2],
    /// First array layer; of a 3D texture, the first slice (`z`). A copy's third size
    /// counts layers, or slices of a 3D texture.
    pub array_layer: u32,
    /// Aspect (for depth-stencil formats).
    pub aspect: TextureAspect,
}

/// Bytes the texels of a texture so described take: every mip level of every layer, times
/// the samples (what a driver allocates is at least this).
pub fn texture_bytes(desc: &TextureDescriptor<'_>) -> u64 {
    let info = desc.format.info();
    let texel = u64::from(info.bytes_per_texel);
    let [bw, bh] = info.block;
    let d3 = desc.dimension == TextureDimension::D3;
    let mut sum = 0u64;
    for mip in 0..desc.mip_level_count.min(32) {
        // In texel blocks (texels for uncompressed formats).
        let w = u64::from((desc.size[0] >> mip).max(1).div_ceil(bw));
        let h = u64::from((desc.size[1] >> mip).max(1).div_ceil(bh));
        // A 3D texture's levels halve its depth; a 2D texture's layers are whole.
        let d = u64::from(if d3 {
            (desc.array_layers >> mip).max(1)
        } else {
            desc.array_layers
        });
        sum = sum.saturating_add(w.saturating_mul(h).saturating_mul(d));
    }
    sum.saturating_mul(texel)
        .saturating_mul(u64::from(desc.sample_count))
}
