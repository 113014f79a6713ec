//! Textures, views, samplers and query sets; texture writes and readback; the first
//! layout every texture gets.
//!
//! Layouts: every texture rests in one layout chosen from its usage (storage textures in
//! `General`, sampled ones in `ShaderReadOnly`, pure render targets in their attachment
//! layout). Commands that need another layout transition to it and back, so bind groups
//! can name a texture's layout once, at creation, and never go stale.

use super::{Device, DeviceState, QuerySetObj, Retained, SamplerObj, TextureObj, ViewObj};
use crate::error::{Result, fail};
use crate::handle::{Handle, QuerySet, Sampler, Texture, TextureView};
use crate::texture::{
    PendingTextureWrite, SamplerDescriptor, TexelCopyBufferLayout, TexelCopyTextureInfo,
    TextureDescriptor, TextureDescriptorOwned, TextureViewDescriptor,
};
use vigil_hal::{
    Api, BufferTextureCopy, Device as _, Features, FilterMode, FormatSupport, Stages,
    SubresourceRange, TextureAspect, TextureBarrier, TextureFormat, TextureLayout, TextureUsages,
    TextureViewDimension,
};

/// Most queries in one query set.
pub const MAX_QUERIES: u32 = 4096;

/// The layout a texture of this usage and format rests in.
pub(crate) fn resting_layout(usage: TextureUsages, format: TextureFormat) -> TextureLayout {
    if usage.contains(TextureUsages::STORAGE_BINDING) {
        TextureLayout::General
    } else if usage.contains(TextureUsages::TEXTURE_BINDING) {
        TextureLayout::ShaderReadOnly
    } else if usage.contains(TextureUsages::RENDER_ATTACHMENT) {
        if format.is_depth_stencil() {
            TextureLayout::DepthStencilAttachment
        } else {
            TextureLayout::ColorAttachment
        }
    } else {
        TextureLayout::General
    }
}

/// Stages that may touch a texture resting in `layout`.
pub(crate) fn layout_stages(layout: TextureLayout) -> Stages {
    match layout {
        TextureLayout::ColorAttachment => Stages::COLOR_ATTACHMENT,
        TextureLayout::DepthStencilAttachment => Stages::DEPTH_STENCIL,
        TextureLayout::TransferSrc | TextureLayout::TransferDst => Stages::TRANSFER,
        _ => Stages::ALL_COMMANDS,
    }
}

/// Bytes per texel of a format's aspect, when it can be copied.
pub(crate) fn copy_texel_bytes(format: TextureFormat, aspect: TextureAspect) -> Option<u32> {
    let info = format.info();
    match (aspect, format) {
        (TextureAspect::StencilOnly, _) if info.has_stencil => Some(1),
        (TextureAspect::DepthOnly, TextureFormat::Depth32Float) => Some(4),
        (TextureAspect::All, f) if !f.is_depth_stencil() => Some(info.bytes_per_texel),
        (TextureAspect::All, TextureFormat::Depth32Float) => Some(4),
        _ => None,
    }
}

/// Checks a texture descriptor (pure).
pub(crate) fn validate_texture_descriptor(
    desc: &TextureDescriptor<'_>,
    limits: &vigil_hal::Limits,
    support: FormatSupport,
) -> Result<()> {
    const OP: &str = "create_texture";
    let l = desc.label;
    let [w, h] = desc.size;
    if w == 0 || h == 0 || desc.array_layers == 0 || desc.mip_level_count == 0 {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            l,
            "size {w}x{h}, {} layers and {} mips must all be non-zero",
            desc.array_layers,
            desc.mip_level_count
        ));
    }
    if w > limits.max_texture_dimension_2d || h > limits.max_texture_dimension_2d {
        return Err(fail!(
            LimitExceeded,
            OP,
            l,
            "size {w}x{h} exceeds max_texture_dimension_2d ({})",
            limits.max_texture_dimension_2d
        ));
    }
    if desc.array_layers > limits.max_texture_array_layers {
        return Err(fail!(
            LimitExceeded,
            OP,
            l,
            "{} layers exceed max_texture_array_layers ({})",
            desc.array_layers,
            limits.max_texture_array_layers
        ));
    }
    let max_mips = u32::BITS.saturating_sub(w.max(h).leading_zeros());
    if desc.mip_level_count > max_mips {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            l,
            "{} mip levels; a {w}x{h} texture has at most {max_mips}",
            desc.mip_level_count
        ));
    }
    if desc.usage.is_empty() {
        return Err(fail!(InvalidDescriptor, OP, l, "usage is empty"));
    }
    let no = |what: &str| {
        fail!(
            Unsupported,
            OP,
            l,
            "{} cannot be {what} on this device",
            desc.format.wgsl_name()
        )
    };
    if support == FormatSupport::default() {
        return Err(no("used at all"));
    }
    if desc.usage.contains(TextureUsages::TEXTURE_BINDING) && !support.sampled {
        return Err(no("sampled"));
    }
    if desc.usage.contains(TextureUsages::STORAGE_BINDING)
        && !(support.storage && desc.format.info().storage)
    {
        return Err(no("a storage texture"));
    }
    if desc.usage.contains(TextureUsages::RENDER_ATTACHMENT)
        && !(support.color_attachment || support.depth_stencil_attachment)
    {
        return Err(no("a render attachment"));
    }
    let copies = desc
        .usage
        .intersects(TextureUsages::COPY_SRC | TextureUsages::COPY_DST);
    if copies && !support.copy {
        return Err(no("copied"));
    }
    if copies && desc.format == TextureFormat::Depth24PlusStencil8 {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            l,
            "depth24plus-stencil8 has no copyable depth layout; use depth32float to copy depth"
        ));
    }
    match desc.sample_count {
        1 => {}
        4 => {
            if !desc.usage.contains(TextureUsages::RENDER_ATTACHMENT)
                || desc.usage.contains(TextureUsages::STORAGE_BINDING)
            {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "a multisampled texture must be a render attachment and cannot be a storage texture"
                ));
            }
            if desc.mip_level_count != 1 || desc.array_layers != 1 {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "a multisampled texture has one mip level and one layer"
                ));
            }
            if !support.multisample4 || !desc.format.info().multisample {
                return Err(no("multisampled"));
            }
        }
        n => {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "sample count {n}; vigil supports 1 and 4"
            ));
        }
    }
    Ok(())
}

impl<A: Api> Device<A> {
    /// Creates a 2D texture. Its texels start zeroed.
    pub fn create_texture(&self, desc: &TextureDescriptor<'_>) -> Result<Texture> {
        const OP: &str = "create_texture";
        self.check_alive(OP)?;
        validate_texture_descriptor(desc, &self.limits, self.hal.format_support(desc.format))?;
        let mut st = self.state(OP)?;
        let raw = self
            .hal
            .create_texture(&vigil_hal::TextureDescriptor {
                label: desc.label,
                width: desc.size[0],
                height: desc.size[1],
                array_layers: desc.array_layers,
                mip_level_count: desc.mip_level_count,
                sample_count: desc.sample_count,
                format: desc.format,
                usage: desc.usage,
                cube_compatible: desc.array_layers >= 6 && desc.size[0] == desc.size[1],
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let (i, g) = st.textures.insert(TextureObj {
            raw,
            label: desc.label.to_owned(),
            desc: TextureDescriptorOwned {
                label: desc.label.to_owned(),
                size: desc.size,
                array_layers: desc.array_layers,
                mip_level_count: desc.mip_level_count,
                sample_count: desc.sample_count,
                format: desc.format,
                usage: desc.usage,
            },
            resting: resting_layout(desc.usage, desc.format),
        });
        st.uploads.texture_inits.push((i, g));
        st.compact_first_uses();
        drop(st);
        self.notify_created("texture", desc.label);
        Ok(Texture::from_parts(i, g, self.id))
    }

    /// Destroys a texture (views and bind groups naming it keep it until they go).
    pub fn destroy_texture(&self, texture: Texture) -> Result<()> {
        const OP: &str = "destroy_texture";
        let mut st = self.state(OP)?;
        st.textures.get(texture, self.id, OP)?;
        st.drop_queued_writes_to(
            (u32::MAX, u32::MAX),
            Some((texture.index(), texture.generation())),
        );
        self.retire(&mut st, Retained::Texture(texture.index()));
        Ok(())
    }

    /// The descriptor `texture` was created with.
    pub fn texture_descriptor(&self, texture: Texture) -> Result<TextureDescriptorOwned> {
        const OP: &str = "texture_descriptor";
        let st = self.state(OP)?;
        Ok(st.textures.value(texture, self.id, OP)?.desc.clone())
    }

    /// What the device can do with a format.
    pub fn format_support(&self, format: TextureFormat) -> FormatSupport {
        self.hal.format_support(format)
    }

    /// Creates a view of a texture; refuses ranges outside the texture.
    pub fn create_texture_view(
        &self,
        texture: Texture,
        desc: &TextureViewDescriptor<'_>,
    ) -> Result<TextureView> {
        const OP: &str = "create_texture_view";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let tex = st.textures.value(texture, self.id, OP)?;
        let l = desc.label;
        let td = &tex.desc;
        let format = desc.format.unwrap_or(td.format);
        let twins = [
            (TextureFormat::Rgba8Unorm, TextureFormat::Rgba8UnormSrgb),
            (TextureFormat::Bgra8Unorm, TextureFormat::Bgra8UnormSrgb),
        ];
        if format != td.format
            && !twins
                .iter()
                .any(|&(a, b)| (a, b) == (format, td.format) || (b, a) == (format, td.format))
        {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "a {} texture cannot be viewed as {}",
                td.format.wgsl_name(),
                format.wgsl_name()
            ));
        }
        if desc.base_mip_level >= td.mip_level_count {
            return Err(fail!(
                OutOfBounds,
                OP,
                l,
                "base mip level {} is outside the texture's {} levels",
                desc.base_mip_level,
                td.mip_level_count
            ));
        }
        let mips = desc
            .mip_level_count
            .unwrap_or(td.mip_level_count.saturating_sub(desc.base_mip_level));
        let mips_end = desc.base_mip_level.checked_add(mips);
        if mips == 0 || mips_end.is_none_or(|end| end > td.mip_level_count) {
            return Err(fail!(
                OutOfBounds,
                OP,
                l,
                "{mips} mip levels from level {} are outside the texture's {} levels",
                desc.base_mip_level,
                td.mip_level_count
            ));
        }
        if desc.base_array_layer >= td.array_layers {
            return Err(fail!(
                OutOfBounds,
                OP,
                l,
                "base layer {} is outside the texture's {} layers",
                desc.base_array_layer,
                td.array_layers
            ));
        }
        let dimension = desc.dimension.unwrap_or(if td.array_layers == 1 {
            TextureViewDimension::D2
        } else {
            TextureViewDimension::D2Array
        });
        let layers = desc.array_layer_count.unwrap_or(match dimension {
            TextureViewDimension::D2 => 1,
            TextureViewDimension::Cube => 6,
            _ => td.array_layers.saturating_sub(desc.base_array_layer),
        });
        let layers_end = desc.base_array_layer.checked_add(layers);
        if layers == 0 || layers_end.is_none_or(|end| end > td.array_layers) {
            return Err(fail!(
                OutOfBounds,
                OP,
                l,
                "{layers} layers from layer {} are outside the texture's {} layers",
                desc.base_array_layer,
                td.array_layers
            ));
        }
        match dimension {
            TextureViewDimension::D2 if layers != 1 => {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "a 2d view covers one layer, not {layers}"
                ));
            }
            TextureViewDimension::Cube | TextureViewDimension::CubeArray => {
                if td.size[0] != td.size[1] || td.array_layers < 6 {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        l,
                        "a cube view needs a square texture with at least 6 layers"
                    ));
                }
                if (dimension == TextureViewDimension::Cube && layers != 6) || layers % 6 != 0 {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        l,
                        "a {:?} view covers a multiple of 6 layers (6 for a cube), not {layers}",
                        dimension
                    ));
                }
            }
            _ => {}
        }
        if td.sample_count > 1 && dimension != TextureViewDimension::D2 {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "a multisampled texture can only be viewed as 2d"
            ));
        }
        let info = td.format.info();
        match desc.aspect {
            TextureAspect::DepthOnly if !info.has_depth => {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "{} has no depth aspect",
                    td.format.wgsl_name()
                ));
            }
            TextureAspect::StencilOnly if !info.has_stencil => {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "{} has no stencil aspect",
                    td.format.wgsl_name()
                ));
            }
            _ => {}
        }
        let usage = desc.usage.unwrap_or(td.usage);
        if !td.usage.contains(usage) {
            return Err(fail!(
                UsageMismatch,
                OP,
                l,
                "view usage {usage:?} is not a subset of the texture's {:?}",
                td.usage
            ));
        }
        // A native view needs a use that reads or writes through views
        // (VUID-VkImageViewCreateInfo-image-04441); copies work on the texture itself.
        let viewable = TextureUsages::TEXTURE_BINDING
            | TextureUsages::STORAGE_BINDING
            | TextureUsages::RENDER_ATTACHMENT;
        if !usage.intersects(viewable) {
            return Err(fail!(
                UsageMismatch,
                OP,
                l,
                "a view is used for sampling, storage or rendering, but its usage {usage:?} allows none of them"
            ));
        }
        // The view's own format must allow what the view is used for: an sRGB view of a
        // storage texture cannot be a storage view (VUID-VkImageViewCreateInfo-usage-02275).
        if usage.contains(TextureUsages::STORAGE_BINDING)
            && !(format.info().storage && self.hal.format_support(format).storage)
        {
            return Err(fail!(
                UsageMismatch,
                OP,
                l,
                "a {} view cannot be a storage view; give the view a usage without STORAGE_BINDING",
                format.wgsl_name()
            ));
        }
        let range = SubresourceRange {
            aspect: desc.aspect,
            base_mip_level: desc.base_mip_level,
            mip_level_count: mips,
            base_array_layer: desc.base_array_layer,
            array_layer_count: layers,
        };
        let raw = self
            .hal
            .create_texture_view(
                &tex.raw,
                &vigil_hal::TextureViewDescriptor {
                    label: l,
                    format,
                    dimension,
                    usage,
                    range,
                },
            )
            .map_err(|e| self.hal_error(e, OP, l))?;
        let obj = ViewObj {
            raw,
            label: l.to_owned(),
            texture: (texture.index(), texture.generation()),
            format,
            dimension,
            usage,
            range,
            sample_count: td.sample_count,
            extent: td.mip_size(desc.base_mip_level),
            resting: tex.resting,
        };
        st.retain(Retained::Texture(texture.index()));
        let (i, g) = st.views.insert(obj);
        drop(st);
        self.notify_created("texture view", l);
        Ok(TextureView::from_parts(i, g, self.id))
    }

    /// Destroys a texture view.
    pub fn destroy_texture_view(&self, view: TextureView) -> Result<()> {
        const OP: &str = "destroy_texture_view";
        let mut st = self.state(OP)?;
        st.views.get(view, self.id, OP)?;
        self.retire(&mut st, Retained::View(view.index()));
        Ok(())
    }

    /// Creates a sampler.
    pub fn create_sampler(&self, desc: &SamplerDescriptor<'_>) -> Result<Sampler> {
        const OP: &str = "create_sampler";
        self.check_alive(OP)?;
        let l = desc.label;
        if !(desc.lod_min_clamp >= 0.0 && desc.lod_max_clamp >= desc.lod_min_clamp) {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "LOD clamp {}..{} must satisfy 0 <= min <= max",
                desc.lod_min_clamp,
                desc.lod_max_clamp
            ));
        }
        if desc.anisotropy_clamp == 0 || desc.anisotropy_clamp > 16 {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "anisotropy clamp {} must be 1 to 16",
                desc.anisotropy_clamp
            ));
        }
        let filtering =
            [desc.mag_filter, desc.min_filter, desc.mipmap_filter].contains(&FilterMode::Linear);
        if desc.anisotropy_clamp > 1 {
            if !self.features.contains(Features::SAMPLER_ANISOTROPY) {
                return Err(fail!(
                    Unsupported,
                    OP,
                    l,
                    "anisotropic filtering needs the SAMPLER_ANISOTROPY feature"
                ));
            }
            if [desc.mag_filter, desc.min_filter, desc.mipmap_filter].contains(&FilterMode::Nearest)
            {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "anisotropic filtering needs linear mag, min and mipmap filters"
                ));
            }
        }
        let mut st = self.state(OP)?;
        let raw = self
            .hal
            .create_sampler(&vigil_hal::SamplerDescriptor {
                label: l,
                address_modes: desc.address_modes,
                mag_filter: desc.mag_filter,
                min_filter: desc.min_filter,
                mipmap_filter: desc.mipmap_filter,
                lod_min_clamp: desc.lod_min_clamp,
                lod_max_clamp: desc.lod_max_clamp,
                compare: desc.compare,
                anisotropy_clamp: desc.anisotropy_clamp,
            })
            .map_err(|e| self.hal_error(e, OP, l))?;
        let (i, g) = st.samplers.insert(SamplerObj {
            raw,
            label: l.to_owned(),
            comparison: desc.compare.is_some(),
            filtering,
        });
        drop(st);
        self.notify_created("sampler", l);
        Ok(Sampler::from_parts(i, g, self.id))
    }

    /// Destroys a sampler.
    pub fn destroy_sampler(&self, sampler: Sampler) -> Result<()> {
        const OP: &str = "destroy_sampler";
        let mut st = self.state(OP)?;
        st.samplers.get(sampler, self.id, OP)?;
        self.retire(&mut st, Retained::Sampler(sampler.index()));
        Ok(())
    }

    /// Creates a set of `count` timestamp queries (needs `TIMESTAMP_QUERY`).
    pub fn create_query_set(&self, label: &str, count: u32) -> Result<QuerySet> {
        const OP: &str = "create_query_set";
        self.check_alive(OP)?;
        if !self.features.contains(Features::TIMESTAMP_QUERY) {
            return Err(fail!(
                Unsupported,
                OP,
                label,
                "timestamp queries need the TIMESTAMP_QUERY feature"
            ));
        }
        if count == 0 || count > MAX_QUERIES {
            return Err(fail!(
                LimitExceeded,
                OP,
                label,
                "{count} queries; a set holds 1 to {MAX_QUERIES}"
            ));
        }
        let mut st = self.state(OP)?;
        let raw = self
            .hal
            .create_query_set(label, count)
            .map_err(|e| self.hal_error(e, OP, label))?;
        let (i, g) = st.query_sets.insert(QuerySetObj {
            raw,
            label: label.to_owned(),
            count,
        });
        drop(st);
        self.notify_created("query set", label);
        Ok(QuerySet::from_parts(i, g, self.id))
    }

    /// Destroys a query set.
    pub fn destroy_query_set(&self, set: QuerySet) -> Result<()> {
        const OP: &str = "destroy_query_set";
        let mut st = self.state(OP)?;
        st.query_sets.get(set, self.id, OP)?;
        self.retire(&mut st, Retained::QuerySet(set.index()));
        Ok(())
    }

    /// Writes texel rows from `data` into the `size` (`[width, height, layers]`) box of
    /// `texture` starting at `at`; texels outside it keep their contents. Lands before
    /// every later submission.
    pub fn write_texture(
        &self,
        texture: Texture,
        at: TexelCopyTextureInfo,
        data: &[u8],
        layout: TexelCopyBufferLayout,
        size: [u32; 3],
    ) -> Result<()> {
        const OP: &str = "write_texture";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let tex = st.textures.value(texture, self.id, OP)?;
        let label = tex.label.clone();
        if !tex.desc.usage.contains(TextureUsages::COPY_DST) {
            return Err(fail!(
                UsageMismatch,
                OP,
                &label,
                "texture writes need COPY_DST usage; the texture has {:?}",
                tex.desc.usage
            ));
        }
        let texel = check_texture_box(OP, &label, &tex.desc, &at, size)?;
        let Some(fp) = texel_footprint(&layout, texel, size) else {
            return Err(fail!(
                OutOfBounds,
                OP,
                &label,
                "the data layout {layout:?} puts the {}x{}x{} box past the end of any memory",
                size[0],
                size[1],
                size[2]
            ));
        };
        let row = fp.row;
        let Ok(row32) = u32::try_from(row) else {
            return Err(fail!(
                LimitExceeded,
                OP,
                &label,
                "a row of {row} bytes is longer than one write can stage"
            ));
        };
        let rows_per_image = layout.rows_per_image.unwrap_or(size[1]);
        if (size[1] > 1 || size[2] > 1) && u64::from(layout.bytes_per_row) < row {
            return Err(fail!(
                OutOfBounds,
                OP,
                &label,
                "bytes_per_row {} is less than a row of {row} bytes",
                layout.bytes_per_row
            ));
        }
        if size[2] > 1 && rows_per_image < size[1] {
            return Err(fail!(
                OutOfBounds,
                OP,
                &label,
                "rows_per_image {rows_per_image} is less than the height {}",
                size[1]
            ));
        }
        // `texel_footprint` checked that offset + len fits.
        let needed = if fp.len == 0 {
            0
        } else {
            layout.offset.saturating_add(fp.len)
        };
        if needed > data.len() as u64 {
            return Err(fail!(
                OutOfBounds,
                OP,
                &label,
                "the write reads {needed} bytes but data holds {}",
                data.len()
            ));
        }
        if needed == 0 {
            return Ok(());
        }
        // Rows are packed tightly into staging; `tight` is at most `needed`, so it fits.
        let tight = row
            .saturating_mul(u64::from(size[1]))
            .saturating_mul(u64::from(size[2]));
        if st.staging.queued_writes >= super::MAX_QUEUED_WRITES {
            return Err(fail!(
                LimitExceeded,
                OP,
                &label,
                "{} writes already wait for the next submission",
                super::MAX_QUEUED_WRITES
            ));
        }
        if st
            .staging
            .queued_bytes
            .saturating_add(st.staging.in_flight_bytes)
            .saturating_add(tight)
            > st.staging.budget
        {
            return Err(fail!(
                LimitExceeded,
                OP,
                &label,
                "staging {tight} more bytes would exceed the budget of {} bytes",
                st.staging.budget
            ));
        }
        // Every row lies inside `data` (`needed <= data.len()`), so none of this saturates.
        let mut packed = Vec::with_capacity(usize::try_from(tight).unwrap_or(0));
        let row_len = usize::try_from(row).unwrap_or(usize::MAX);
        for z in 0..u64::from(size[2]) {
            for y in 0..u64::from(size[1]) {
                let start = layout
                    .offset
                    .saturating_add(z.saturating_mul(fp.image))
                    .saturating_add(y.saturating_mul(fp.pitch));
                let start = usize::try_from(start).unwrap_or(usize::MAX);
                if let Some(bytes) = data.get(start..).and_then(|d| d.get(..row_len)) {
                    packed.extend_from_slice(bytes);
                }
            }
        }
        let (chunk, src_offset) = self
            .staging_space(&mut st, tight)
            .map_err(|e| self.hal_error(e, OP, &label))?;
        self.hal
            .write_mapped(&st.uploads.chunks[chunk].buffer, src_offset, &packed)
            .map_err(|e| self.hal_error(e, OP, &label))?;
        st.uploads.chunks[chunk].used = src_offset.saturating_add(tight);
        st.uploads.texture_writes.push(PendingTextureWrite {
            texture: (texture.index(), texture.generation()),
            chunk,
            src_offset,
            bytes_per_row: row32,
            rows_per_image: size[1],
            at,
            size,
        });
        st.staging.queued_writes = st.staging.queued_writes.saturating_add(1);
        st.staging.queued_bytes = st.staging.queued_bytes.saturating_add(tight);
        drop(st);
        self.notify_wrote(crate::observer::WriteTarget::Texture(texture), tight, true);
        Ok(())
    }

    /// Reads a `[width, height]` rectangle of one layer and mip level back, rows packed
    /// tightly. Waits for the work before it (bounded by progress).
    pub fn read_texture(
        &self,
        texture: Texture,
        at: TexelCopyTextureInfo,
        size: [u32; 2],
    ) -> Result<Vec<u8>> {
        const OP: &str = "read_texture";
        self.check_alive(OP)?;
        let texel = {
            let st = self.state(OP)?;
            let tex = st.textures.value(texture, self.id, OP)?;
            if !tex.desc.usage.contains(TextureUsages::COPY_SRC) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &tex.label,
                    "reading back needs COPY_SRC usage; the texture has {:?}",
                    tex.desc.usage
                ));
            }
            check_texture_box(OP, &tex.label, &tex.desc, &at, [size[0], size[1], 1])?
        };
        let row = u64::from(size[0]).saturating_mul(u64::from(texel));
        let Some(pitch) = row
            .checked_next_multiple_of(256)
            .and_then(|p| u32::try_from(p).ok())
        else {
            return Err(fail!(
                LimitExceeded,
                OP,
                "",
                "a row of {row} bytes is longer than one readback can copy"
            ));
        };
        let bytes = u64::from(pitch).saturating_mul(u64::from(size[1].max(1)));
        let readback = self.create_buffer(&super::BufferDescriptor {
            label: "vigil texture readback",
            size: bytes.max(4),
            usage: vigil_hal::BufferUsages::MAP_READ | vigil_hal::BufferUsages::COPY_DST,
        })?;
        let result = (|| {
            let mut enc = self.create_command_encoder(&crate::CommandEncoderDescriptor {
                label: "vigil texture readback",
            })?;
            enc.copy_texture_to_buffer(
                texture,
                at,
                readback,
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: pitch,
                    rows_per_image: Some(size[1]),
                },
                [size[0], size[1], 1],
            )?;
            self.submit([enc.finish()?])?;
            let raw = self.read_buffer(readback, 0, bytes.max(4))?;
            let row = usize::try_from(row).unwrap_or(usize::MAX);
            let mut out = Vec::with_capacity(row.saturating_mul(size[1] as usize));
            for line in raw.chunks((pitch as usize).max(1)).take(size[1] as usize) {
                out.extend_from_slice(line.get(..row).unwrap_or(line));
            }
            Ok(out)
        })();
        let _ = self.destroy_buffer(readback);
        result
    }

    /// Records the first layout (and zero contents) of new textures.
    pub(crate) fn record_texture_inits(
        &self,
        st: &mut DeviceState<A>,
        encoder: &mut crate::native::Rec<'_, A>,
        inits: &[(u32, u32)],
        used: &mut Vec<(u32, u32)>,
    ) {
        let mut to_dst = Vec::new();
        let mut to_rest = Vec::new();
        for &(i, g) in inits {
            let Some(tex) = st
                .textures
                .is_live(i, g)
                .then(|| st.textures.slot(i))
                .flatten()
                .and_then(|s| s.value.as_ref())
            else {
                continue;
            };
            let range = full_range(&tex.desc);
            to_dst.push(TextureBarrier {
                texture: &tex.raw,
                range,
                old_layout: TextureLayout::Undefined,
                new_layout: TextureLayout::TransferDst,
                src: Stages::empty(),
                dst: Stages::TRANSFER,
            });
            to_rest.push(TextureBarrier {
                texture: &tex.raw,
                range,
                old_layout: TextureLayout::TransferDst,
                new_layout: tex.resting,
                src: Stages::TRANSFER,
                dst: Stages::ALL_COMMANDS,
            });
            used.push((i, g));
        }
        if to_dst.is_empty() {
            return;
        }
        encoder.texture_barriers(&to_dst);
        for b in &to_dst {
            encoder.clear_texture(b.texture, b.range, [0.0; 4]);
        }
        encoder.texture_barriers(&to_rest);
    }

    /// Records queued texture writes (destinations destroyed since are skipped).
    pub(crate) fn record_texture_writes(
        &self,
        st: &mut DeviceState<A>,
        encoder: &mut crate::native::Rec<'_, A>,
        uploads: &super::uploads::PendingUploads<A>,
        used: &mut Vec<(u32, u32)>,
    ) {
        for w in &uploads.texture_writes {
            let (i, g) = w.texture;
            let Some(tex) = st
                .textures
                .is_live(i, g)
                .then(|| st.textures.slot(i))
                .flatten()
                .and_then(|s| s.value.as_ref())
            else {
                continue;
            };
            let range = SubresourceRange {
                aspect: w.at.aspect,
                base_mip_level: w.at.mip_level,
                mip_level_count: 1,
                base_array_layer: w.at.array_layer,
                array_layer_count: w.size[2],
            };
            let range = SubresourceRange {
                aspect: TextureAspect::All,
                ..range
            };
            encoder.texture_barriers(&[TextureBarrier {
                texture: &tex.raw,
                range,
                old_layout: tex.resting,
                new_layout: TextureLayout::TransferDst,
                src: Stages::ALL_COMMANDS,
                dst: Stages::TRANSFER,
            }]);
            encoder.copy_buffer_to_texture(
                &uploads.chunks[w.chunk].buffer,
                &tex.raw,
                &BufferTextureCopy {
                    buffer_offset: w.src_offset,
                    bytes_per_row: w.bytes_per_row,
                    rows_per_image: w.rows_per_image,
                    mip_level: w.at.mip_level,
                    base_array_layer: w.at.array_layer,
                    origin: w.at.origin,
                    size: w.size,
                    aspect: w.at.aspect,
                },
            );
            encoder.texture_barriers(&[TextureBarrier {
                texture: &tex.raw,
                range,
                old_layout: TextureLayout::TransferDst,
                new_layout: tex.resting,
                src: Stages::TRANSFER,
                dst: Stages::ALL_COMMANDS,
            }]);
            used.push((i, g));
        }
    }
}

/// Every subresource of a texture.
pub(crate) fn full_range(desc: &TextureDescriptorOwned) -> SubresourceRange {
    SubresourceRange {
        aspect: TextureAspect::All,
        base_mip_level: 0,
        mip_level_count: desc.mip_level_count,
        base_array_layer: 0,
        array_layer_count: desc.array_layers,
    }
}

/// Checks a copy box `size` at `at` lies in the texture and its aspect is copyable;
/// returns bytes per texel.
/// Where a texel copy's rows lie in linear memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TexelFootprint {
    /// Bytes of one row of texels.
    pub row: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Bytes from one layer to the next.
    pub image: u64,
    /// Bytes of linear memory the copy touches from the layout's offset on (0 when empty).
    pub len: u64,
}

/// The linear footprint of copying a `size` box of `texel`-byte texels laid out as
/// `layout` says; `None` when it does not fit in 64 bits (so no such buffer or slice can
/// hold it). Rows are at least `row` bytes apart and images at least `size[1]` rows.
pub(crate) fn texel_footprint(
    layout: &TexelCopyBufferLayout,
    texel: u32,
    size: [u32; 3],
) -> Option<TexelFootprint> {
    let row = u64::from(size[0]).checked_mul(u64::from(texel))?;
    let pitch = u64::from(layout.bytes_per_row).max(row);
    let rows = layout.rows_per_image.unwrap_or(size[1]).max(size[1]);
    let image = pitch.checked_mul(u64::from(rows))?;
    let len = if size.contains(&0) {
        0
    } else {
        image
            .checked_mul(u64::from(size[2].saturating_sub(1)))?
            .checked_add(pitch.checked_mul(u64::from(size[1].saturating_sub(1)))?)?
            .checked_add(row)?
    };
    layout.offset.checked_add(len)?;
    Some(TexelFootprint {
        row,
        pitch,
        image,
        len,
    })
}

pub(crate) fn check_texture_box(
    op: &'static str,
    label: &str,
    desc: &TextureDescriptorOwned,
    at: &TexelCopyTextureInfo,
    size: [u32; 3],
) -> Result<u32> {
    if desc.sample_count > 1 {
        return Err(fail!(
            InvalidState,
            op,
            label,
            "multisampled textures cannot be copied; resolve them first"
        ));
    }
    let Some(texel) = copy_texel_bytes(desc.format, at.aspect) else {
        return Err(fail!(
            InvalidDescriptor,
            op,
            label,
            "the {:?} aspect of {} cannot be copied",
            at.aspect,
            desc.format.wgsl_name()
        ));
    };
    if at.mip_level >= desc.mip_level_count {
        return Err(fail!(
            OutOfBounds,
            op,
            label,
            "mip level {} is outside the texture's {} levels",
            at.mip_level,
            desc.mip_level_count
        ));
    }
    let [mw, mh] = desc.mip_size(at.mip_level);
    let outside =
        |start: u32, len: u32, limit: u32| start.checked_add(len).is_none_or(|end| end > limit);
    if outside(at.origin[0], size[0], mw)
        || outside(at.origin[1], size[1], mh)
        || outside(at.array_layer, size[2], desc.array_layers)
    {
        return Err(fail!(
            OutOfBounds,
            op,
            label,
            "the box at ({}, {}) layer {} of {}x{}x{} leaves mip level {} ({mw}x{mh}, {} layers)",
            at.origin[0],
            at.origin[1],
            at.array_layer,
            size[0],
            size[1],
            size[2],
            at.mip_level,
            desc.array_layers
        ));
    }
    Ok(texel)
}
