//! Textures, views, samplers and query sets; texture writes and readback.
//!
//! A texture's subresources each have a layout the tracker follows (see
//! [`crate::track`]); commands move them to the layout they need. Bind groups name the
//! layout shaders see a texture in once, at creation (`General` for textures that can be
//! storage textures, `ShaderReadOnly` otherwise), so they never go stale.

use super::{
    Device, QuerySetObj, SamplerObj, TextureObj, TextureState, ViewObj,
    uploads::PendingTextureWrite,
};
use crate::error::{Result, fail};
use crate::handle::{Handle, QuerySet, Sampler, Texture, TextureView};
use crate::native::Owned;
use crate::texture::{
    SamplerDescriptor, TexelCopyBufferLayout, TexelCopyTextureInfo, TextureDescriptor,
    TextureDescriptorOwned, TextureViewDescriptor,
};
use crate::track::State;
use crate::validate;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use vigil_hal::{
    Api, Device as _, Features, FormatSupport, TextureFormat, TextureLayout, TextureUsages,
};

pub use crate::validate::texture::MAX_QUERIES;

impl<A: Api> Device<A> {
    /// Creates a texture (2D, 1D or 3D, as `desc.dimension` says). Its texels start zeroed.
    pub fn create_texture(&self, desc: &TextureDescriptor<'_>) -> Result<Texture> {
        Ok(self.make_texture(desc, false, "create_texture")?.handle)
    }

    /// Creates a texture: an application's, or (`frame`) a surface's frame.
    pub(crate) fn make_texture(
        &self,
        desc: &TextureDescriptor<'_>,
        frame: bool,
        op: &'static str,
    ) -> Result<std::sync::Arc<TextureObj<A>>> {
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", op, desc.label);
        self.check_alive(op)?;
        self.check_texture_descriptor(desc)?;
        self.depth_on_queue(op, desc.label, desc.format)?;
        let raw = self
            .hal
            .create_texture(&hal_texture(desc))
            .map_err(|e| self.hal_error(e, op, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        self.register_texture_obj(desc, raw, frame, None, op)
    }

    /// Refuses a depth-stencil texture on a device whose queue does not draw (it could be
    /// neither cleared to zero nor copied there).
    pub(crate) fn depth_on_queue(
        &self,
        op: &'static str,
        label: &str,
        format: vigil_hal::TextureFormat,
    ) -> Result<()> {
        let info = format.info();
        if info.has_depth || info.has_stencil {
            self.needs_drawing_queue(op, label, "a depth-stencil texture")?;
        }
        Ok(())
    }

    /// Registers a native texture made for `desc`: zeroed at its first use unless it is an
    /// aliasable placed texture (whose contents are undefined until written, by contract).
    pub(crate) fn register_texture_obj(
        &self,
        desc: &TextureDescriptor<'_>,
        raw: Owned<A, crate::native::TextureKind>,
        frame: bool,
        placed: Option<super::Placed<A>>,
        op: &'static str,
    ) -> Result<std::sync::Arc<TextureObj<A>>> {
        let owned = TextureDescriptorOwned {
            label: desc.label.to_owned(),
            dimension: desc.dimension,
            size: desc.size,
            array_layers: desc.array_layers,
            mip_level_count: desc.mip_level_count,
            sample_count: desc.sample_count,
            format: desc.format,
            usage: desc.usage,
        };
        let parts = (desc.mip_level_count as usize).saturating_mul(owned.layers() as usize);
        let id = self.id;
        let initialized = placed.as_ref().is_some_and(|p| p.aliasable);
        let (_, _, obj) = self
            .objects
            .textures
            .insert(|index, generation| TextureObj {
                raw,
                handle: Texture::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                desc: owned,
                last_use: AtomicU64::new(0),
                state: std::sync::Arc::new(Mutex::new(TextureState {
                    initialized,
                    parts: smallvec::smallvec![State::fresh(TextureLayout::Undefined); parts],
                })),
                frame,
                source: None,
                exported: std::sync::atomic::AtomicBool::new(false),
                order: std::sync::Arc::new(Mutex::new(super::shared::SharedUses::default())),
                heap_slots: std::sync::atomic::AtomicU32::new(0),
                heap_since: std::sync::atomic::AtomicU64::new(0),
                placed,
            })
            .ok_or_else(|| super::buffer::registry_full(op, desc.label, "texture"))?;
        self.notify_created("texture", desc.label);
        Ok(obj)
    }

    /// Destroys a texture (views and bind groups naming it keep its memory until they go,
    /// but refuse to be used).
    pub fn destroy_texture(&self, texture: Texture) -> Result<()> {
        const OP: &str = "destroy_texture";
        if self.lookup(texture, OP)?.frame {
            return Err(fail!(
                SurfaceFrameTexture,
                OP,
                "",
                "{texture:?} is a surface's frame: present it or abandon it through its surface"
            ));
        }
        let obj = self.remove(texture, OP)?;
        let mut q = self.queue.lock();
        self.drop_queued_writes_to(&mut q, None, Some(&obj));
        drop(q);
        if obj.heap_slots.load(std::sync::atomic::Ordering::Acquire) > 0 {
            // Heap slots naming its views get the placeholder back.
            self.evict_views(|v| std::sync::Arc::ptr_eq(&v.texture, &obj));
        }
        drop(obj);
        Ok(())
    }

    /// The descriptor `texture` was created with.
    pub fn texture_descriptor(&self, texture: Texture) -> Result<TextureDescriptorOwned> {
        Ok(self.lookup(texture, "texture_descriptor")?.desc.clone())
    }

    /// A texture descriptor against this device's limits, features and format support.
    pub(crate) fn check_texture_descriptor(&self, desc: &TextureDescriptor<'_>) -> Result<()> {
        validate::texture::descriptor(
            desc,
            &self.limits,
            self.features,
            self.format_support(desc.format),
        )
    }

    /// What the device can do with a format: nothing when the format needs a feature
    /// ([`TextureFormat::required_feature`]) the device was not given, else what WebGPU
    /// lets the format do (widened by the device's `RG11B10UFLOAT_RENDERABLE`,
    /// `FLOAT32_BLENDABLE` and `BGRA8UNORM_STORAGE`) and the backend reports, both. So a
    /// format a driver happens to render to, blend, store or multisample beyond WebGPU's
    /// table (the snorm formats as render targets, 32-bit floats blended) is refused as on
    /// any other device. Every check of a format's support goes through here.
    pub fn format_support(&self, format: TextureFormat) -> FormatSupport {
        match format.required_feature() {
            Some(f) if !self.features.contains(f) => FormatSupport::default(),
            _ => webgpu_support(format, self.features, self.hal.format_support(format)),
        }
    }

    /// Creates a view of a texture; refuses ranges outside the texture.
    pub fn create_texture_view(
        &self,
        texture: Texture,
        desc: &TextureViewDescriptor<'_>,
    ) -> Result<TextureView> {
        const OP: &str = "create_texture_view";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let tex = self.lookup(texture, OP)?;
        let shape = validate::texture::view(desc, &tex.desc, |f| self.format_support(f))?;
        let raw = self
            .hal
            .create_texture_view(
                &tex.raw,
                &vigil_hal::TextureViewDescriptor {
                    label: desc.label,
                    format: shape.format,
                    dimension: shape.dimension,
                    usage: shape.usage,
                    range: shape.range,
                },
            )
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let extent = tex.desc.mip_size(desc.base_mip_level);
        let sample_count = tex.desc.sample_count;
        let (_, _, obj) = self
            .objects
            .views
            .insert(|index, generation| ViewObj {
                raw,
                handle: TextureView::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                texture: tex,
                format: shape.format,
                dimension: shape.dimension,
                usage: shape.usage,
                range: shape.range,
                sample_count,
                extent,
                slices: Mutex::new(Vec::new()),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "texture view"))?;
        self.notify_created("texture view", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a texture view.
    pub fn destroy_texture_view(&self, view: TextureView) -> Result<()> {
        let obj = self.remove(view, "destroy_texture_view")?;
        if obj
            .texture
            .heap_slots
            .load(std::sync::atomic::Ordering::Acquire)
            > 0
        {
            self.evict_views(|v| std::ptr::eq(v, &*obj));
        }
        Ok(())
    }

    /// Creates a sampler.
    pub fn create_sampler(&self, desc: &SamplerDescriptor<'_>) -> Result<Sampler> {
        const OP: &str = "create_sampler";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let filtering = validate::texture::sampler(desc, self.features)?;
        let raw = self
            .hal
            .create_sampler(&vigil_hal::SamplerDescriptor {
                label: desc.label,
                address_modes: desc.address_modes,
                mag_filter: desc.mag_filter,
                min_filter: desc.min_filter,
                mipmap_filter: desc.mipmap_filter,
                lod_min_clamp: desc.lod_min_clamp,
                lod_max_clamp: desc.lod_max_clamp,
                compare: desc.compare,
                anisotropy_clamp: desc.anisotropy_clamp,
                border_color: desc.border_color,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .samplers
            .insert(|index, generation| SamplerObj {
                raw,
                handle: Sampler::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                comparison: desc.compare.is_some(),
                filtering,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "sampler"))?;
        self.notify_created("sampler", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a sampler.
    pub fn destroy_sampler(&self, sampler: Sampler) -> Result<()> {
        let obj = self.remove(sampler, "destroy_sampler")?;
        self.evict_sampler(&obj);
        Ok(())
    }

    /// Creates a set of `count` timestamp queries (needs `TIMESTAMP_QUERY`).
    pub fn create_query_set(&self, label: &str, count: u32) -> Result<QuerySet> {
        const OP: &str = "create_query_set";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, label);
        self.check_alive(OP)?;
        validate::texture::query_set(label, count, self.features)?;
        self.make_query_set(OP, label, vigil_hal::QueryType::Timestamp, count)
    }

    /// Creates `count` occlusion queries (1 to 4,096, `query.count`): a render pass names
    /// the set ([`RenderPassDescriptor::occlusion_query_set`](crate::RenderPassDescriptor)),
    /// and each [`CommandEncoder::begin_occlusion_query`](crate::CommandEncoder::begin_occlusion_query)
    /// / `end_occlusion_query` pair in it counts whether any sample of the draws between
    /// passed the depth and stencil tests. [`CommandEncoder::resolve_query_set`](crate::CommandEncoder::resolve_query_set)
    /// copies the results as `u64`s, nonzero where any sample passed (how far above zero is
    /// the driver's to say), as WebGPU's `"occlusion"` query sets. No feature is needed; the
    /// device's queue must draw (`queue.draws`).
    pub fn create_occlusion_query_set(&self, label: &str, count: u32) -> Result<QuerySet> {
        const OP: &str = "create_occlusion_query_set";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, label);
        self.check_alive(OP)?;
        self.needs_drawing_queue(OP, label, "an occlusion query set")?;
        validate::texture::query_count(OP, label, count)?;
        self.make_query_set(OP, label, vigil_hal::QueryType::Occlusion, count)
    }

    /// Creates `count` pipeline-statistics queries (1 to 4,096, `query.count`), each
    /// counting `types` (at least one, `pipeline-statistics.types`), as wgpu's
    /// `QueryType::PipelineStatistics`; needs `PIPELINE_STATISTICS_QUERY`
    /// (`pipeline-statistics.feature`). A render or compute pass counts into one query at
    /// a time between [`CommandEncoder::begin_pipeline_statistics_query`](crate::CommandEncoder::begin_pipeline_statistics_query)
    /// and `end_pipeline_statistics_query`; [`CommandEncoder::resolve_query_set`](crate::CommandEncoder::resolve_query_set)
    /// copies each query as one `u64` per statistic, in the order of
    /// [`PipelineStatisticsTypes`](crate::PipelineStatisticsTypes)' flags. Statistics of
    /// graphics work need a device whose queue draws (`queue.draws`).
    pub fn create_pipeline_statistics_query_set(
        &self,
        label: &str,
        count: u32,
        types: vigil_hal::PipelineStatisticsTypes,
    ) -> Result<QuerySet> {
        const OP: &str = "create_pipeline_statistics_query_set";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, label);
        self.check_alive(OP)?;
        validate::texture::statistics_set(label, count, types, self.features)?;
        if types.graphics() {
            self.needs_drawing_queue(OP, label, "a query set of graphics statistics")?;
        }
        self.make_query_set(
            OP,
            label,
            vigil_hal::QueryType::PipelineStatistics(types),
            count,
        )
    }

    /// A query set of `ty`, its arguments checked.
    fn make_query_set(
        &self,
        op: &'static str,
        label: &str,
        ty: vigil_hal::QueryType,
        count: u32,
    ) -> Result<QuerySet> {
        let raw = self
            .hal
            .create_query_set(label, ty, count)
            .map_err(|e| self.hal_error(e, op, label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .query_sets
            .insert(|index, generation| QuerySetObj {
                raw,
                handle: QuerySet::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                count,
                ty,
            })
            .ok_or_else(|| super::buffer::registry_full(op, label, "query set"))?;
        self.notify_created("query set", label);
        Ok(obj.handle)
    }

    /// Destroys a query set.
    pub fn destroy_query_set(&self, set: QuerySet) -> Result<()> {
        drop(self.remove(set, "destroy_query_set")?);
        Ok(())
    }

    /// Writes texel rows from `data` into the `size` (`[width, height, layers]`; of a 3D
    /// texture `[width, height, depth]`) box of `texture` starting at `at`; texels outside
    /// it keep their contents. Lands before every later submission.
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
        let tex = self.lookup(texture, OP)?;
        super::check_active(&tex, OP)?;
        let label = &tex.label;
        if !tex.desc.usage.contains(TextureUsages::COPY_DST) {
            return Err(fail!(
                TextureWriteUsage,
                OP,
                label,
                "texture writes need COPY_DST usage; the texture has {:?}",
                tex.desc.usage
            ));
        }
        let texel = validate::copy::texture_box(OP, label, &tex.desc, &at, size)?;
        // Rows and images in blocks of texels from here on (texels for most formats).
        let texel_size = size;
        let size = validate::copy::blocks(tex.desc.format, size);
        let fp = validate::copy::texel_layout(OP, label, &layout, texel, size)?;
        let row = fp.row;
        let Ok(row32) = u32::try_from(row) else {
            return Err(fail!(
                TextureWriteRow,
                OP,
                label,
                "a row of {row} bytes is longer than one write can stage"
            ));
        };
        // `texel_layout` checked that offset + len fits.
        let needed = if fp.len == 0 {
            0
        } else {
            layout.offset.saturating_add(fp.len)
        };
        if needed > data.len() as u64 {
            return Err(fail!(
                TextureWriteData,
                OP,
                label,
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
        let mut q = self.queue.lock();
        q.staging.check_room(OP, label, tight)?;
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
            .staging_space(&mut q, tight)
            .map_err(|e| self.hal_error(e, OP, label))?;
        if let Some(c) = q.uploads.chunks.get_mut(chunk) {
            self.hal
                .write_mapped(&c.buffer, src_offset, &packed)
                .map_err(|e| self.hal_error(e, OP, label))?;
            c.used = src_offset.saturating_add(tight);
        }
        q.uploads.texture_writes.push(PendingTextureWrite {
            texture: tex.clone(),
            live: true,
            chunk,
            src_offset,
            bytes_per_row: row32,
            rows_per_image: size[1],
            at,
            size: texel_size,
            bytes: tight,
        });
        q.staging.queued_writes = q.staging.queued_writes.saturating_add(1);
        q.staging.queued_bytes = q.staging.queued_bytes.saturating_add(tight);
        drop(q);
        self.notify_wrote(crate::observer::WriteTarget::Texture(texture), tight, true);
        Ok(())
    }

    /// Reads a `[width, height]` rectangle of one layer (of a 3D texture: one slice,
    /// `at.array_layer`) and mip level back, rows packed tightly (for compressed formats:
    /// whole blocks, rows of blocks). Waits for the work before it (bounded by progress).
    pub fn read_texture(
        &self,
        texture: Texture,
        at: TexelCopyTextureInfo,
        size: [u32; 2],
    ) -> Result<Vec<u8>> {
        const OP: &str = "read_texture";
        self.check_alive(OP)?;
        let (texel, blocks) = {
            let tex = self.lookup(texture, OP)?;
            super::check_active(&tex, OP)?;
            if !tex.desc.usage.contains(TextureUsages::COPY_SRC) {
                return Err(fail!(
                    TextureReadUsage,
                    OP,
                    &tex.label,
                    "reading back needs COPY_SRC usage; the texture has {:?}",
                    tex.desc.usage
                ));
            }
            let texel =
                validate::copy::texture_box(OP, &tex.label, &tex.desc, &at, [size[0], size[1], 1])?;
            (
                texel,
                validate::copy::blocks(tex.desc.format, [size[0], size[1], 1]),
            )
        };
        let row = u64::from(blocks[0]).saturating_mul(u64::from(texel));
        let Some(pitch) = row
            .checked_next_multiple_of(256)
            .and_then(|p| u32::try_from(p).ok())
        else {
            return Err(fail!(
                TextureWriteRow,
                OP,
                "",
                "a row of {row} bytes is longer than one readback can copy"
            ));
        };
        let bytes = u64::from(pitch).saturating_mul(u64::from(blocks[1].max(1)));
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
                    rows_per_image: Some(blocks[1]),
                },
                [size[0], size[1], 1],
            )?;
            self.submit([enc.finish()?])?;
            let raw = self.read_buffer(readback, 0, bytes.max(4))?;
            let row = usize::try_from(row).unwrap_or(usize::MAX);
            let mut out = Vec::with_capacity(row.saturating_mul(blocks[1] as usize));
            for line in raw.chunks((pitch as usize).max(1)).take(blocks[1] as usize) {
                out.extend_from_slice(line.get(..row).unwrap_or(line));
            }
            Ok(out)
        })();
        let _ = self.destroy_buffer(readback);
        result
    }
}

/// The backend's descriptor of a checked texture descriptor.
pub(crate) fn hal_texture<'a>(desc: &TextureDescriptor<'a>) -> vigil_hal::TextureDescriptor<'a> {
    let d3 = desc.dimension == vigil_hal::TextureDimension::D3;
    vigil_hal::TextureDescriptor {
        label: desc.label,
        dimension: desc.dimension,
        width: desc.size[0],
        height: desc.size[1],
        depth: if d3 { desc.array_layers } else { 1 },
        array_layers: if d3 { 1 } else { desc.array_layers },
        mip_level_count: desc.mip_level_count,
        sample_count: desc.sample_count,
        format: desc.format,
        usage: desc.usage,
        cube_compatible: desc.dimension == vigil_hal::TextureDimension::D2
            && desc.array_layers >= 6
            && desc.size[0] == desc.size[1],
    }
}

/// `device`'s support of `format` narrowed to what WebGPU allows the format, with the
/// capabilities `features` add: rendering, blending and multisampling of `Rg11b10Ufloat`
/// (`RG11B10UFLOAT_RENDERABLE`), blending of the 32-bit floats (`FLOAT32_BLENDABLE`),
/// storage of `Bgra8Unorm` (`BGRA8UNORM_STORAGE`).
fn webgpu_support(
    format: TextureFormat,
    features: Features,
    device: FormatSupport,
) -> FormatSupport {
    use TextureFormat as F;
    let info = format.info();
    let rg11b10 =
        format == F::Rg11b10Ufloat && features.contains(Features::RG11B10UFLOAT_RENDERABLE);
    let float32 = matches!(format, F::R32Float | F::Rg32Float | F::Rgba32Float)
        && features.contains(Features::FLOAT32_BLENDABLE);
    let bgra8 = format == F::Bgra8Unorm && features.contains(Features::BGRA8UNORM_STORAGE);
    FormatSupport {
        color_attachment: device.color_attachment && (info.renderable || rg11b10),
        blendable: device.blendable && (info.blendable || rg11b10 || float32),
        storage: device.storage && (info.storage || bgra8),
        multisample4: device.multisample4 && (info.multisample || rg11b10),
        ..device
    }
}
