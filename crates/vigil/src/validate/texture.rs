//! Textures, views, samplers and query sets.

use super::ensure;
use crate::error::{Result, fail};
use crate::texture::{
    SamplerDescriptor, TextureDescriptor, TextureDescriptorOwned, TextureViewDescriptor,
};
use vigil_hal::{
    AddressMode, Features, FilterMode, FormatSupport, SamplerBorderColor, SubresourceRange,
    TextureDimension, TextureFormat, TextureUsages, TextureViewDimension,
};

/// Most queries in one query set.
pub const MAX_QUERIES: u32 = 4096;

/// A texture descriptor against the limits and what the device can do with its format.
pub(crate) fn descriptor(
    desc: &TextureDescriptor<'_>,
    limits: &vigil_hal::Limits,
    features: Features,
    support: FormatSupport,
) -> Result<()> {
    const OP: &str = "create_texture";
    let l = desc.label;
    let [w, h] = desc.size;
    let format = desc.format;
    let needs = format.required_feature().unwrap_or(Features::empty());
    ensure!(
        features.contains(needs),
        TextureFormatFeature,
        OP,
        l,
        "{} needs the {} feature, which this device was not given",
        format.wgsl_name(),
        needs.names().join(" | ")
    );
    let [bw, bh] = format.info().block;
    ensure!(
        w.checked_rem(bw) == Some(0) && h.checked_rem(bh) == Some(0),
        TextureBlockSize,
        OP,
        l,
        "size {w}x{h} is not whole {bw}x{bh} blocks of {}",
        format.wgsl_name()
    );
    ensure!(
        w != 0 && h != 0 && desc.array_layers != 0 && desc.mip_level_count != 0,
        TextureSizeZero,
        OP,
        l,
        "size {w}x{h}, {} layers and {} mips must all be non-zero",
        desc.array_layers,
        desc.mip_level_count
    );
    let d3 = desc.dimension == TextureDimension::D3;
    let (max, limit) = match desc.dimension {
        TextureDimension::D1 => (limits.max_texture_dimension_1d, "max_texture_dimension_1d"),
        TextureDimension::D2 => (limits.max_texture_dimension_2d, "max_texture_dimension_2d"),
        TextureDimension::D3 => (limits.max_texture_dimension_3d, "max_texture_dimension_3d"),
    };
    ensure!(
        w <= max && h <= max && (!d3 || desc.array_layers <= max),
        TextureSizeLimit,
        OP,
        l,
        "size {w}x{h}{} exceeds {limit} ({max})",
        if d3 {
            format!("x{}", desc.array_layers)
        } else {
            String::new()
        }
    );
    ensure!(
        d3 || desc.array_layers <= limits.max_texture_array_layers,
        TextureLayerLimit,
        OP,
        l,
        "{} layers exceed max_texture_array_layers ({})",
        desc.array_layers,
        limits.max_texture_array_layers
    );
    // A 3D texture's mip levels halve its depth too.
    let side = if d3 {
        w.max(h).max(desc.array_layers)
    } else {
        w.max(h)
    };
    let max_mips = u32::BITS.saturating_sub(side.leading_zeros());
    ensure!(
        desc.mip_level_count <= max_mips,
        TextureMipCount,
        OP,
        l,
        "{} mip levels; a texture whose largest side is {side} has at most {max_mips}",
        desc.mip_level_count
    );
    if desc.dimension != TextureDimension::D2 {
        dimension(desc)?;
    }
    ensure!(
        !desc.usage.is_empty(),
        TextureUsageEmpty,
        OP,
        l,
        "usage is empty"
    );
    let name = desc.format.wgsl_name();
    let u = desc.usage;
    ensure!(
        support != FormatSupport::default(),
        TextureFormatUsage,
        OP,
        l,
        "{name} cannot be used at all on this device"
    );
    ensure!(
        !u.contains(TextureUsages::TEXTURE_BINDING) || support.sampled,
        TextureFormatUsage,
        OP,
        l,
        "{name} cannot be sampled on this device"
    );
    ensure!(
        !u.contains(TextureUsages::STORAGE_BINDING) || support.storage,
        TextureFormatUsage,
        OP,
        l,
        "{name} cannot be a storage texture on this device"
    );
    ensure!(
        !u.contains(TextureUsages::RENDER_ATTACHMENT)
            || support.color_attachment
            || support.depth_stencil_attachment,
        TextureFormatUsage,
        OP,
        l,
        "{name} cannot be a render attachment on this device"
    );
    let copies = u.intersects(TextureUsages::COPY_SRC | TextureUsages::COPY_DST);
    ensure!(
        !copies || support.copy,
        TextureFormatUsage,
        OP,
        l,
        "{name} cannot be copied on this device"
    );
    ensure!(
        !copies
            || !matches!(
                desc.format,
                TextureFormat::Depth24PlusStencil8 | TextureFormat::Depth24Plus
            ),
        TextureDepthStencilCopy,
        OP,
        l,
        "{name} has no copyable depth layout (its bits are the device's choice); use depth32float, depth16unorm or depth32float-stencil8 to copy depth"
    );
    ensure!(
        matches!(desc.sample_count, 1 | 4),
        TextureSampleCount,
        OP,
        l,
        "sample count {}; vigil supports 1 and 4",
        desc.sample_count
    );
    if desc.sample_count == 4 {
        ensure!(
            u.contains(TextureUsages::RENDER_ATTACHMENT)
                && !u.contains(TextureUsages::STORAGE_BINDING),
            TextureMultisampleUsage,
            OP,
            l,
            "a multisampled texture must be a render attachment and cannot be a storage texture"
        );
        ensure!(
            desc.mip_level_count == 1 && desc.array_layers == 1,
            TextureMultisampleShape,
            OP,
            l,
            "a multisampled texture has one mip level and one layer"
        );
        ensure!(
            support.multisample4,
            TextureFormatUsage,
            OP,
            l,
            "{name} cannot be multisampled on this device"
        );
    }
    Ok(())
}

/// What a 1D or 3D texture may not be: multisampled, depth or stencil, compressed; and a
/// 1D texture is one row, one layer and one mip level, and not a render attachment (a 3D
/// texture's slices are rendered one at a time, `RenderPassColorAttachment::depth_slice`).
fn dimension(desc: &TextureDescriptor<'_>) -> Result<()> {
    const OP: &str = "create_texture";
    let l = desc.label;
    let d = desc.dimension;
    let name = desc.format.wgsl_name();
    if d == TextureDimension::D1 {
        ensure!(
            desc.size[1] == 1 && desc.array_layers == 1 && desc.mip_level_count == 1,
            TextureDimension,
            OP,
            l,
            "a 1D texture is one row of one layer and one mip level, not {}x{} with {} layers and {} mip levels",
            desc.size[0],
            desc.size[1],
            desc.array_layers,
            desc.mip_level_count
        );
    }
    ensure!(
        desc.sample_count == 1,
        TextureDimension,
        OP,
        l,
        "a {d:?} texture is single-sampled, not {} samples",
        desc.sample_count
    );
    let info = desc.format.info();
    ensure!(
        !info.has_depth && !info.has_stencil && !desc.format.is_compressed(),
        TextureDimension,
        OP,
        l,
        "a {d:?} texture cannot be {name}: 1D and 3D textures are of color formats that are not compressed"
    );
    ensure!(
        d != TextureDimension::D1 || !desc.usage.contains(TextureUsages::RENDER_ATTACHMENT),
        TextureDimension,
        OP,
        l,
        "a 1D texture cannot be a render attachment; render to a 2D texture of height 1 instead"
    );
    Ok(())
}

/// A view descriptor checked against its texture: the view's format, dimension, usage and
/// subresources.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewShape {
    pub format: TextureFormat,
    pub dimension: TextureViewDimension,
    pub usage: TextureUsages,
    pub range: SubresourceRange,
}

/// A view of a texture described by `td`; `support` says what the device can do with a
/// format (asked for the view's own format).
pub(crate) fn view(
    desc: &TextureViewDescriptor<'_>,
    td: &TextureDescriptorOwned,
    support: impl Fn(TextureFormat) -> FormatSupport,
) -> Result<ViewShape> {
    const OP: &str = "create_texture_view";
    let l = desc.label;
    let format = desc.format.unwrap_or(td.format);
    let twin = td.format.srgb_twin() == Some(format);
    ensure!(
        format == td.format || twin,
        ViewFormat,
        OP,
        l,
        "a {} texture cannot be viewed as {}",
        td.format.wgsl_name(),
        format.wgsl_name()
    );
    ensure!(
        desc.base_mip_level < td.mip_level_count,
        ViewMipRange,
        OP,
        l,
        "base mip level {} is outside the texture's {} levels",
        desc.base_mip_level,
        td.mip_level_count
    );
    let mips = desc
        .mip_level_count
        .unwrap_or(td.mip_level_count.saturating_sub(desc.base_mip_level));
    let mips_end = desc.base_mip_level.checked_add(mips);
    ensure!(
        mips != 0 && mips_end.is_some_and(|end| end <= td.mip_level_count),
        ViewMipRange,
        OP,
        l,
        "{mips} mip levels from level {} are outside the texture's {} levels",
        desc.base_mip_level,
        td.mip_level_count
    );
    // A 3D texture's slices are not layers: it has one, which its views cover.
    let tex_layers = td.layers();
    ensure!(
        desc.base_array_layer < tex_layers,
        ViewLayerRange,
        OP,
        l,
        "base layer {} is outside the texture's {tex_layers} layers",
        desc.base_array_layer
    );
    let dimension = desc.dimension.unwrap_or(match td.dimension {
        TextureDimension::D1 => TextureViewDimension::D1,
        TextureDimension::D3 => TextureViewDimension::D3,
        TextureDimension::D2 if td.array_layers == 1 => TextureViewDimension::D2,
        TextureDimension::D2 => TextureViewDimension::D2Array,
    });
    let own = match dimension {
        TextureViewDimension::D1 => td.dimension == TextureDimension::D1,
        TextureViewDimension::D3 => td.dimension == TextureDimension::D3,
        _ => td.dimension == TextureDimension::D2,
    };
    ensure!(
        own,
        ViewDimension,
        OP,
        l,
        "a {dimension:?} view cannot be made of a {:?} texture",
        td.dimension
    );
    let layers = desc.array_layer_count.unwrap_or(match dimension {
        TextureViewDimension::D2 => 1,
        TextureViewDimension::Cube => 6,
        _ => tex_layers.saturating_sub(desc.base_array_layer),
    });
    let layers_end = desc.base_array_layer.checked_add(layers);
    ensure!(
        layers != 0 && layers_end.is_some_and(|end| end <= tex_layers),
        ViewLayerRange,
        OP,
        l,
        "{layers} layers from layer {} are outside the texture's {tex_layers} layers",
        desc.base_array_layer
    );
    ensure!(
        dimension != TextureViewDimension::D2 || layers == 1,
        ViewDimension,
        OP,
        l,
        "a 2d view covers one layer, not {layers}"
    );
    if matches!(
        dimension,
        TextureViewDimension::Cube | TextureViewDimension::CubeArray
    ) {
        ensure!(
            td.size[0] == td.size[1] && td.array_layers >= 6,
            ViewDimension,
            OP,
            l,
            "a cube view needs a square texture with at least 6 layers"
        );
        let fits = layers % 6 == 0 && (dimension != TextureViewDimension::Cube || layers == 6);
        ensure!(
            fits,
            ViewDimension,
            OP,
            l,
            "a {dimension:?} view covers a multiple of 6 layers (6 for a cube), not {layers}"
        );
    }
    ensure!(
        td.sample_count == 1 || dimension == TextureViewDimension::D2,
        ViewMultisample,
        OP,
        l,
        "a multisampled texture can only be viewed as 2d"
    );
    let info = td.format.info();
    let aspect_ok = match desc.aspect {
        vigil_hal::TextureAspect::DepthOnly => info.has_depth,
        vigil_hal::TextureAspect::StencilOnly => info.has_stencil,
        vigil_hal::TextureAspect::All => true,
    };
    ensure!(
        aspect_ok,
        ViewAspect,
        OP,
        l,
        "{} has no {:?} aspect",
        td.format.wgsl_name(),
        desc.aspect
    );
    let usage = desc.usage.unwrap_or(td.usage);
    ensure!(
        td.usage.contains(usage),
        ViewUsageSubset,
        OP,
        l,
        "view usage {usage:?} is not a subset of the texture's {:?}",
        td.usage
    );
    // A native view needs a use that reads or writes through views
    // (VUID-VkImageViewCreateInfo-image-04441); copies work on the texture itself.
    let viewable = TextureUsages::TEXTURE_BINDING
        | TextureUsages::STORAGE_BINDING
        | TextureUsages::RENDER_ATTACHMENT;
    ensure!(
        usage.intersects(viewable),
        ViewUsageNone,
        OP,
        l,
        "a view is used for sampling, storage or rendering, but its usage {usage:?} allows none of them"
    );
    // The view's own format must allow what the view is used for: an sRGB view of a
    // storage texture cannot be a storage view (VUID-VkImageViewCreateInfo-usage-02275).
    let storage_ok = !usage.contains(TextureUsages::STORAGE_BINDING) || support(format).storage;
    ensure!(
        storage_ok,
        ViewStorageFormat,
        OP,
        l,
        "a {} view cannot be a storage view; give the view a usage without STORAGE_BINDING",
        format.wgsl_name()
    );
    Ok(ViewShape {
        format,
        dimension,
        usage,
        range: SubresourceRange {
            aspect: desc.aspect,
            base_mip_level: desc.base_mip_level,
            mip_level_count: mips,
            base_array_layer: desc.base_array_layer,
            array_layer_count: layers,
        },
    })
}

/// A sampler descriptor; returns whether it filters.
pub(crate) fn sampler(desc: &SamplerDescriptor<'_>, features: Features) -> Result<bool> {
    const OP: &str = "create_sampler";
    let l = desc.label;
    ensure!(
        desc.lod_min_clamp >= 0.0 && desc.lod_max_clamp >= desc.lod_min_clamp,
        SamplerLodClamp,
        OP,
        l,
        "LOD clamp {}..{} must satisfy 0 <= min <= max",
        desc.lod_min_clamp,
        desc.lod_max_clamp
    );
    ensure!(
        (1..=16).contains(&desc.anisotropy_clamp),
        SamplerAnisotropy,
        OP,
        l,
        "anisotropy clamp {} must be 1 to 16",
        desc.anisotropy_clamp
    );
    ensure!(
        !desc.address_modes.contains(&AddressMode::ClampToBorder)
            || features.contains(Features::ADDRESS_MODE_CLAMP_TO_BORDER),
        SamplerBorderFeature,
        OP,
        l,
        "address mode ClampToBorder needs the ADDRESS_MODE_CLAMP_TO_BORDER feature"
    );
    ensure!(
        desc.border_color != Some(SamplerBorderColor::Zero)
            || features.contains(Features::ADDRESS_MODE_CLAMP_TO_ZERO),
        SamplerBorderFeature,
        OP,
        l,
        "border color Zero needs the ADDRESS_MODE_CLAMP_TO_ZERO feature"
    );
    let filters = [desc.mag_filter, desc.min_filter, desc.mipmap_filter];
    if desc.anisotropy_clamp > 1 {
        ensure!(
            features.contains(Features::SAMPLER_ANISOTROPY),
            SamplerAnisotropyFeature,
            OP,
            l,
            "anisotropic filtering needs the SAMPLER_ANISOTROPY feature"
        );
        ensure!(
            !filters.contains(&FilterMode::Nearest),
            SamplerAnisotropy,
            OP,
            l,
            "anisotropic filtering needs linear mag, min and mipmap filters"
        );
    }
    Ok(filters.contains(&FilterMode::Linear))
}

/// A query set of `count` timestamps.
pub(crate) fn query_set(label: &str, count: u32, features: Features) -> Result<()> {
    const OP: &str = "create_query_set";
    ensure!(
        features.contains(Features::TIMESTAMP_QUERY),
        QueryFeature,
        OP,
        label,
        "timestamp queries need the TIMESTAMP_QUERY feature"
    );
    query_count(OP, label, count)
}

/// A pipeline-statistics query set: the feature, at least one statistic, its size.
pub(crate) fn statistics_set(
    label: &str,
    count: u32,
    types: vigil_hal::PipelineStatisticsTypes,
    features: Features,
) -> Result<()> {
    const OP: &str = "create_pipeline_statistics_query_set";
    ensure!(
        features.contains(Features::PIPELINE_STATISTICS_QUERY),
        StatisticsFeature,
        OP,
        label,
        "pipeline-statistics queries need the PIPELINE_STATISTICS_QUERY feature, which the device was not opened with"
    );
    ensure!(
        !types.is_empty(),
        StatisticsTypes,
        OP,
        label,
        "a pipeline-statistics query set counts at least one statistic; none was given"
    );
    query_count(OP, label, count)
}

/// A query set's size.
pub(crate) fn query_count(op: &'static str, label: &str, count: u32) -> Result<()> {
    ensure!(
        (1..=MAX_QUERIES).contains(&count),
        QueryCount,
        op,
        label,
        "{count} queries; a set holds 1 to {MAX_QUERIES}"
    );
    Ok(())
}

/// A refusal for a texture view whose texture was destroyed.
#[cold]
pub(crate) fn texture_destroyed(op: &'static str, label: &str) -> crate::Error {
    fail!(
        ViewTextureDestroyed,
        op,
        label,
        "the view's texture was destroyed"
    )
}

/// A surface configuration against the surface's capabilities.
pub(crate) fn surface_configuration(
    label: &str,
    config: &crate::device::SurfaceConfiguration,
    caps: &vigil_hal::SurfaceCapabilities,
) -> Result<()> {
    const OP: &str = "configure_surface";
    ensure!(
        caps.formats.contains(&config.format),
        SurfaceConfiguration,
        OP,
        label,
        "format {:?} is not one the surface presents ({:?})",
        config.format,
        caps.formats
    );
    ensure!(
        caps.present_modes.contains(&config.present_mode),
        SurfaceConfiguration,
        OP,
        label,
        "present mode {:?} is not one the surface has ({:?})",
        config.present_mode,
        caps.present_modes
    );
    ensure!(
        caps.alpha_modes.contains(&config.alpha_mode),
        SurfaceConfiguration,
        OP,
        label,
        "alpha mode {:?} is not one the surface has ({:?})",
        config.alpha_mode,
        caps.alpha_modes
    );
    let [w, h] = config.extent;
    ensure!(
        w > 0
            && h > 0
            && (caps.min_extent[0]..=caps.max_extent[0]).contains(&w)
            && (caps.min_extent[1]..=caps.max_extent[1]).contains(&h),
        SurfaceConfiguration,
        OP,
        label,
        "extent {w}x{h} is outside {:?}..={:?} (or zero)",
        caps.min_extent,
        caps.max_extent
    );
    ensure!(
        caps.usages.contains(config.usage) && !config.usage.is_empty(),
        SurfaceConfiguration,
        OP,
        label,
        "frame usage {:?} is not within what the surface allows ({:?}), or empty",
        config.usage,
        caps.usages
    );
    Ok(())
}

/// A texture clear ([`CommandEncoder::clear_texture`](crate::CommandEncoder::clear_texture)):
/// its aspect is one the format has and its mip levels and layers lie inside the texture.
/// Returns the subresources as `[base mip, mips, base layer, layers]`, the counts left to
/// default resolved (a 3D texture has one layer).
pub(crate) fn clear(
    label: &str,
    texture: &str,
    desc: &TextureDescriptorOwned,
    range: &crate::texture::ImageSubresourceRange,
) -> Result<[u32; 4]> {
    const OP: &str = "clear_texture";
    let info = desc.format.info();
    let aspect_ok = match range.aspect {
        vigil_hal::TextureAspect::DepthOnly => info.has_depth,
        vigil_hal::TextureAspect::StencilOnly => info.has_stencil,
        vigil_hal::TextureAspect::All => true,
    };
    ensure!(
        aspect_ok,
        ClearTextureAspect,
        OP,
        label,
        "texture '{texture}' ({}) has no {:?} aspect",
        desc.format.wgsl_name(),
        range.aspect
    );
    let base_mip = range.base_mip_level;
    let mips = range
        .mip_level_count
        .unwrap_or(desc.mip_level_count.saturating_sub(base_mip));
    ensure!(
        super::inside(
            u64::from(base_mip),
            u64::from(mips),
            u64::from(desc.mip_level_count)
        ),
        ClearTextureRange,
        OP,
        label,
        "mip levels {base_mip}..+{mips} of texture '{texture}', which has {}",
        desc.mip_level_count
    );
    let base_layer = range.base_array_layer;
    let layers = range
        .array_layer_count
        .unwrap_or(desc.layers().saturating_sub(base_layer));
    ensure!(
        super::inside(
            u64::from(base_layer),
            u64::from(layers),
            u64::from(desc.layers())
        ),
        ClearTextureRange,
        OP,
        label,
        "layers {base_layer}..+{layers} of texture '{texture}', which has {}{}",
        desc.layers(),
        if desc.dimension == TextureDimension::D3 {
            " (a 3D texture's slices are one layer, cleared together)"
        } else {
            ""
        }
    );
    Ok([base_mip, mips, base_layer, layers])
}
