//! Command recording: one native command pool per encoder, one command buffer in recording
//! at a time, recycled once its submission completed.

use crate::device::{
    Buffer, CommandBuffer, ComputePipeline, DeviceShared, PipelineLayout, QuerySet, RenderPipeline,
    Texture,
};
use crate::{Api, conv};
use ash::vk;
use std::ffi::CString;
use std::ops::Range;
use std::sync::Arc;
use vigil_hal as hal;

/// A Vulkan command encoder.
pub struct CommandEncoder {
    /// The device (its entry points: `shared.raw`). Not a copy of `ash::Device` here: that
    /// is some 1.5 KB of entry points, which every move of an encoder or of a finished
    /// command buffer holding it would copy.
    shared: Arc<DeviceShared>,
    pool: vk::CommandPool,
    free: Vec<vk::CommandBuffer>,
    active: vk::CommandBuffer,
    pass_end_timestamp: Option<(vk::QueryPool, u32)>,
    pass_labelled: bool,
    /// The pool's queue draws; when not (the compute-only family), barriers name only the
    /// stages and accesses that queue has.
    draws: bool,
}

impl std::fmt::Debug for CommandEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandEncoder")
            .field("pool", &self.pool)
            .finish()
    }
}

impl CommandEncoder {
    /// A pool for submissions to queue `queue` of the device.
    pub(crate) fn new(shared: Arc<DeviceShared>, queue: usize, label: &str) -> hal::Result<Self> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(shared.family_of(queue));
        let draws = shared.draws(queue);
        shared.check("vkCreateCommandPool")?;
        // SAFETY: valid device and queue family.
        let pool =
            unsafe { shared.raw.create_command_pool(&info, None) }.map_err(conv::map_result)?;
        shared.set_name(pool, label);
        shared.created();
        Ok(CommandEncoder {
            shared,
            pool,
            free: Vec::new(),
            active: vk::CommandBuffer::null(),
            pass_end_timestamp: None,
            pass_labelled: false,
            draws,
        })
    }

    pub(crate) fn destroy(self) {
        // SAFETY: no command buffer of this pool is pending (the layer above recycles an
        // encoder only after its work completed, and drains before teardown).
        unsafe { self.shared.raw.destroy_command_pool(self.pool, None) };
        self.shared.released();
    }

    fn begin_label(&mut self, label: &str) -> bool {
        if label.is_empty() || self.shared.debug_utils.is_none() {
            return false;
        }
        self.open_label(label);
        true
    }

    /// Opens a debug label named `label` (NULs, which a C string cannot hold, shown as
    /// spaces), when the device labels commands.
    fn open_label(&mut self, label: &str) {
        let Some(du) = &self.shared.debug_utils else {
            return;
        };
        let name = c_label(label);
        let info = vk::DebugUtilsLabelEXT::default().label_name(&name);
        // SAFETY: recording command buffer; the label is copied during the call.
        unsafe { du.cmd_begin_debug_utils_label(self.active, &info) };
    }

    fn end_label(&mut self) {
        if let Some(du) = &self.shared.debug_utils {
            // SAFETY: matches a begin recorded by `open_label` in this recording (the pass's
            // own label, or a debug group the layer above checked is open).
            unsafe { du.cmd_end_debug_utils_label(self.active) };
        }
    }

    fn begin_pass_common(&mut self, label: &str, ts: Option<&hal::PassTimestampWrites<'_, Api>>) {
        self.pass_labelled = self.begin_label(label);
        self.pass_end_timestamp = None;
        if let Some(ts) = ts {
            if let Some(q) = ts.beginning {
                // SAFETY: the query set is alive and `q` in range (checked above us), and
                // the query was reset earlier in this command buffer.
                unsafe { hal::CommandEncoder::write_timestamp(self, ts.query_set, q) };
            }
            self.pass_end_timestamp = ts.end.map(|q| (ts.query_set.raw, q));
        }
    }

    fn end_pass_common(&mut self) {
        if let Some((pool, q)) = self.pass_end_timestamp.take() {
            // SAFETY: the query was reset earlier in this command buffer (checked above us).
            unsafe {
                self.shared.raw.cmd_write_timestamp2(
                    self.active,
                    vk::PipelineStageFlags2::ALL_COMMANDS,
                    pool,
                    q,
                )
            };
        }
        if self.pass_labelled {
            self.end_label();
            self.pass_labelled = false;
        }
    }

    /// Fills `range` of a compressed texture in TRANSFER_DST_OPTIMAL with zeroes, copied
    /// from the device's zero source in boxes of whole block rows that each fit in it.
    fn zero_compressed(&mut self, texture: &Texture, range: &hal::SubresourceRange) {
        let zeros = crate::device::lock_zeros(&self.shared);
        let Some(src) = zeros.as_ref() else {
            // Made with every compressed texture; without it there is nothing to copy.
            return;
        };
        let info = texture.format.info();
        let [bw, bh] = info.block;
        let block = u64::from(info.bytes_per_texel.max(1));
        let mut regions = Vec::new();
        let mips = range.base_mip_level..range.base_mip_level.saturating_add(range.mip_level_count);
        for mip in mips {
            let w = (texture.size[0] >> mip).max(1);
            let h = (texture.size[1] >> mip).max(1);
            let row = u64::from(w.div_ceil(bw)).saturating_mul(block);
            // Block rows per box. A row of the widest texture (16,384 texels: 4,096 blocks
            // of 16 bytes) fits in the source; a wider one would be cut into columns that
            // do.
            let rows = (crate::device::ZERO_BYTES / row.max(1)).max(1);
            let cols = if row > crate::device::ZERO_BYTES {
                crate::device::ZERO_BYTES / block
            } else {
                u64::from(w.div_ceil(bw))
            };
            let step_y = u32::try_from(rows.saturating_mul(u64::from(bh))).unwrap_or(u32::MAX);
            let step_x = u32::try_from(cols.saturating_mul(u64::from(bw))).unwrap_or(u32::MAX);
            let layers = range.base_array_layer
                ..range
                    .base_array_layer
                    .saturating_add(range.array_layer_count);
            for layer in layers {
                let mut y = 0;
                while y < h {
                    let mut x = 0;
                    while x < w {
                        regions.push(vk::BufferImageCopy {
                            buffer_offset: 0,
                            buffer_row_length: 0,
                            buffer_image_height: 0,
                            image_subresource: vk::ImageSubresourceLayers {
                                aspect_mask: vk::ImageAspectFlags::COLOR,
                                mip_level: mip,
                                base_array_layer: layer,
                                layer_count: 1,
                            },
                            image_offset: vk::Offset3D {
                                x: x as i32,
                                y: y as i32,
                                z: 0,
                            },
                            image_extent: vk::Extent3D {
                                width: step_x.min(w - x),
                                height: step_y.min(h - y),
                                depth: 1,
                            },
                        });
                        x = x.saturating_add(step_x.max(1));
                    }
                    y = y.saturating_add(step_y.max(1));
                }
            }
        }
        if regions.is_empty() {
            return;
        }
        // SAFETY: the image is in TRANSFER_DST_OPTIMAL (the layer above's barrier); each
        // box starts on a block, is whole blocks or reaches the mip's edge, and reads at
        // most ZERO_BYTES from the start of the zero source, a TRANSFER_SRC buffer that
        // lives as long as the device.
        unsafe {
            self.shared.raw.cmd_copy_buffer_to_image(
                self.active,
                src.raw,
                texture.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            )
        };
    }

    fn texel_bytes(texture: &Texture, aspect: hal::TextureAspect) -> u32 {
        match aspect {
            hal::TextureAspect::StencilOnly => 1,
            hal::TextureAspect::DepthOnly if texture.format == hal::TextureFormat::Depth16Unorm => {
                2
            }
            hal::TextureAspect::DepthOnly => 4,
            hal::TextureAspect::All => texture.format.info().bytes_per_texel.max(1),
        }
    }

    /// A copy box's width and height as Vulkan takes them: a compressed box may run into
    /// the last blocks past the mip level's edge, and Vulkan wants it up to the edge (whole
    /// blocks or reaching it).
    fn to_edge(texture: &Texture, mip: u32, origin: [u32; 2], size: [u32; 3]) -> [u32; 2] {
        if !texture.format.is_compressed() {
            return [size[0], size[1]];
        }
        let mw = (texture.size[0] >> mip).max(1);
        let mh = (texture.size[1] >> mip).max(1);
        [
            size[0].min(mw.saturating_sub(origin[0])),
            size[1].min(mh.saturating_sub(origin[1])),
        ]
    }

    /// A copy's `count` layers from `base` as Vulkan takes them for `texture`: `(first
    /// layer, layers, z, depth)`. A 3D image has one layer; the copy's layers are its slices.
    fn slab(texture: &Texture, base: u32, count: u32) -> (u32, u32, i32, u32) {
        if texture.d3 {
            // The layer above keeps slices within the image's depth, which fits an i32.
            (0, 1, i32::try_from(base).unwrap_or(i32::MAX), count)
        } else {
            (base, count, 0, 1)
        }
    }

    fn buffer_image_copy(texture: &Texture, r: &hal::BufferTextureCopy) -> vk::BufferImageCopy {
        let texel = Self::texel_bytes(texture, r.aspect);
        let [bw, bh] = texture.format.info().block;
        let [w, h] = Self::to_edge(texture, r.mip_level, r.origin, r.size);
        let (layer, layers, z, depth) = Self::slab(texture, r.base_array_layer, r.size[2]);
        vk::BufferImageCopy {
            buffer_offset: r.buffer_offset,
            // Vulkan counts the buffer's rows and images in texels, whole blocks of them.
            buffer_row_length: r.bytes_per_row / texel * bw,
            // With one layer the height between images is never used (the layer above lets
            // it be any count): tight. With more, the layer above checked it fits in texels.
            buffer_image_height: if r.size[2] <= 1 {
                0
            } else {
                r.rows_per_image.saturating_mul(bh)
            },
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: conv::aspect(texture.format, r.aspect),
                mip_level: r.mip_level,
                base_array_layer: layer,
                layer_count: layers,
            },
            image_offset: vk::Offset3D {
                x: r.origin[0] as i32,
                y: r.origin[1] as i32,
                z,
            },
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth,
            },
        }
    }
}

impl CommandEncoder {
    /// Begins a command buffer (a free one of the pool, or a new one) with `flags`.
    fn begin_with(&mut self, flags: vk::CommandBufferUsageFlags) -> hal::Result<()> {
        let cb = match self.free.pop() {
            Some(cb) => cb,
            None => {
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                self.shared.check("vkAllocateCommandBuffers")?;
                // SAFETY: the pool is ours and only used from this encoder.
                let bufs = unsafe { self.shared.raw.allocate_command_buffers(&info) }
                    .map_err(conv::map_result)?;
                bufs.into_iter()
                    .next()
                    .ok_or(hal::DeviceError::OutOfMemory)?
            }
        };
        let info = vk::CommandBufferBeginInfo::default().flags(flags);
        if let Err(e) = self.shared.check("vkBeginCommandBuffer").and_then(|()| {
            // SAFETY: the buffer is in the initial state (fresh or from a reset pool).
            unsafe { self.shared.raw.begin_command_buffer(cb, &info) }.map_err(conv::map_result)
        }) {
            self.free.push(cb);
            return Err(e);
        }
        self.active = cb;
        Ok(())
    }
}

/// `label` as a C string: NULs, which it cannot hold, become spaces (so it always converts).
fn c_label(label: &str) -> CString {
    CString::new(label.replace('\0', " ")).unwrap_or_default()
}

// The commands recorded per draw or dispatch are one native call each and marked
// `#[inline]`, so they inline into the layer above (as ash's own wrappers do): without it
// every command paid a call of its own on top of ash's.
impl hal::CommandEncoder for CommandEncoder {
    type A = Api;

    fn begin(&mut self, _label: &str) -> hal::Result<()> {
        self.begin_with(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT)
    }

    fn begin_reusable(&mut self, _label: &str) -> hal::Result<()> {
        self.begin_with(vk::CommandBufferUsageFlags::empty())
    }

    fn end(&mut self) -> hal::Result<CommandBuffer> {
        let cb = std::mem::replace(&mut self.active, vk::CommandBuffer::null());
        let ended = self.shared.check("vkEndCommandBuffer").and_then(|()| {
            // SAFETY: the buffer is recording and every pass was ended (checked above us).
            unsafe { self.shared.raw.end_command_buffer(cb) }.map_err(conv::map_result)
        });
        match ended {
            Ok(()) => Ok(CommandBuffer { raw: cb }),
            Err(e) => {
                self.free.push(cb);
                // SAFETY: nothing of this pool is pending; resetting returns `cb` to initial.
                let _ = unsafe {
                    self.shared
                        .raw
                        .reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())
                };
                Err(e)
            }
        }
    }

    fn discard(&mut self) {
        let cb = std::mem::replace(&mut self.active, vk::CommandBuffer::null());
        if cb == vk::CommandBuffer::null() {
            return;
        }
        // SAFETY: nothing recorded from this pool is pending execution (the layer above
        // recycles an encoder only once its work completed), so the pool may be reset.
        let _ = unsafe {
            self.shared
                .raw
                .reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())
        };
        self.free.push(cb);
    }

    unsafe fn reset_all(&mut self, buffers: Vec<CommandBuffer>) {
        // SAFETY: every buffer of the pool has completed execution (caller's guarantee).
        let _ = unsafe {
            self.shared
                .raw
                .reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())
        };
        self.free.extend(buffers.into_iter().map(|b| b.raw));
    }

    unsafe fn barriers(
        &mut self,
        memory: Option<hal::MemoryBarrier>,
        buffers: &[hal::BufferBarrier<'_, Api>],
        textures: &[hal::TextureBarrier<'_, Api>],
    ) {
        // On a queue that does not draw, the source half of a barrier may name graphics
        // uses made on another queue (a shared texture's): that queue's work is ordered
        // before this submission by the timeline wait, which also makes its writes
        // available, so what remains to wait for here is this queue's own earlier work.
        let src = |stages: hal::Stages, access: hal::Access| {
            if self.draws {
                (stages, access)
            } else {
                conv::on_compute_queue(stages, access)
            }
        };
        // The destination half likewise names only this queue's stages: graphics ones
        // (a heap texture made visible to every shader stage, say) have no work here.
        let dst = |stages: hal::Stages, access: hal::Access| {
            if self.draws {
                (stages, access)
            } else {
                conv::dst_on_compute_queue(stages, access)
            }
        };
        let mesh = self.draws && self.shared.mesh.is_some();
        let stages = |s: hal::Stages| conv::stages_with_mesh(s, mesh);
        let global: Vec<vk::MemoryBarrier2<'_>> = memory
            .iter()
            .map(|m| {
                let (from, _) = src(m.src, hal::Access::empty());
                let (to, _) = dst(m.dst, hal::Access::empty());
                vk::MemoryBarrier2::default()
                    .src_stage_mask(stages(from))
                    .src_access_mask(conv::write_access(from))
                    .dst_stage_mask(stages(to))
                    .dst_access_mask(conv::any_access(to))
            })
            .collect();
        let buffer_barriers: Vec<vk::BufferMemoryBarrier2<'_>> = buffers
            .iter()
            .map(|b| {
                let (from, from_access) = src(b.src, b.src_access);
                let (to, to_access) = dst(b.dst, b.dst_access);
                vk::BufferMemoryBarrier2::default()
                    .src_stage_mask(stages(from))
                    .src_access_mask(conv::access(from_access))
                    .dst_stage_mask(stages(to))
                    .dst_access_mask(conv::access(to_access))
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .buffer(b.buffer.raw)
                    .offset(b.offset)
                    .size(b.size)
            })
            .collect();
        let image_barriers: Vec<vk::ImageMemoryBarrier2<'_>> = textures
            .iter()
            .map(|b| {
                let (from, from_access) = src(b.src, b.src_access);
                let (to, to_access) = dst(b.dst, b.dst_access);
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(stages(from))
                    .src_access_mask(conv::access(from_access))
                    .dst_stage_mask(stages(to))
                    .dst_access_mask(conv::access(to_access))
                    .old_layout(conv::image_layout(b.old_layout))
                    .new_layout(conv::image_layout(b.new_layout))
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(b.texture.raw)
                    .subresource_range(vk::ImageSubresourceRange {
                        // Layouts are the whole image's: every aspect its format has.
                        aspect_mask: b.texture.aspects,
                        ..conv::subresource_range(b.texture.format, &b.range)
                    })
            })
            .collect();
        let dep = vk::DependencyInfo::default()
            .memory_barriers(&global)
            .buffer_memory_barriers(&buffer_barriers)
            .image_memory_barriers(&image_barriers);
        // SAFETY: recording, outside a render pass instance; layouts tracked above us.
        unsafe { self.shared.raw.cmd_pipeline_barrier2(self.active, &dep) };
    }

    unsafe fn build_acceleration_structure(
        &mut self,
        dst: &crate::accel::AccelerationStructure,
        input: hal::BuildInput<'_, Api>,
    ) {
        crate::accel::record_build(&self.shared, self.active, dst, input);
    }

    unsafe fn copy_buffer_to_buffer(
        &mut self,
        src: &Buffer,
        dst: &Buffer,
        region: hal::BufferCopy,
    ) {
        let r = [vk::BufferCopy {
            src_offset: region.src_offset,
            dst_offset: region.dst_offset,
            size: region.size,
        }];
        // SAFETY: ranges validated above us.
        unsafe {
            self.shared
                .raw
                .cmd_copy_buffer(self.active, src.raw, dst.raw, &r)
        };
    }

    unsafe fn copy_buffer_regions(
        &mut self,
        src: &Buffer,
        dst: &Buffer,
        regions: &[hal::BufferCopy],
    ) {
        let r: Vec<vk::BufferCopy> = regions
            .iter()
            .map(|r| vk::BufferCopy {
                src_offset: r.src_offset,
                dst_offset: r.dst_offset,
                size: r.size,
            })
            .collect();
        // SAFETY: ranges validated above us; the caller keeps regions from overlapping.
        unsafe {
            self.shared
                .raw
                .cmd_copy_buffer(self.active, src.raw, dst.raw, &r)
        };
    }

    unsafe fn fill_buffer(&mut self, buffer: &Buffer, offset: u64, size: u64, value: u32) {
        // SAFETY: offset and size are 4-aligned and in range (validated above us).
        unsafe {
            self.shared
                .raw
                .cmd_fill_buffer(self.active, buffer.raw, offset, size, value)
        };
    }

    unsafe fn copy_buffer_to_texture(
        &mut self,
        src: &Buffer,
        dst: &Texture,
        region: &hal::BufferTextureCopy,
    ) {
        let r = [Self::buffer_image_copy(dst, region)];
        // SAFETY: the image is in TRANSFER_DST_OPTIMAL; the region was validated above us.
        unsafe {
            self.shared.raw.cmd_copy_buffer_to_image(
                self.active,
                src.raw,
                dst.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &r,
            )
        };
    }

    unsafe fn copy_texture_to_buffer(
        &mut self,
        src: &Texture,
        dst: &Buffer,
        region: &hal::BufferTextureCopy,
    ) {
        let r = [Self::buffer_image_copy(src, region)];
        // SAFETY: the image is in TRANSFER_SRC_OPTIMAL; the region was validated above us.
        unsafe {
            self.shared.raw.cmd_copy_image_to_buffer(
                self.active,
                src.raw,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.raw,
                &r,
            )
        };
    }

    unsafe fn copy_texture_to_texture(
        &mut self,
        src: &Texture,
        dst: &Texture,
        r: &hal::TextureCopy,
    ) {
        // The box runs as far past the destination's edge as past the source's (checked
        // above us).
        let [w, h] = Self::to_edge(src, r.src_mip_level, r.src_origin, r.size);
        // Between a 2D array and a 3D image, layers on one side are slices on the other.
        let (s_layer, s_layers, s_z, s_depth) = Self::slab(src, r.src_base_array_layer, r.size[2]);
        let (d_layer, d_layers, d_z, d_depth) = Self::slab(dst, r.dst_base_array_layer, r.size[2]);
        let region = [vk::ImageCopy {
            src_subresource: vk::ImageSubresourceLayers {
                aspect_mask: conv::aspect(src.format, r.aspect),
                mip_level: r.src_mip_level,
                base_array_layer: s_layer,
                layer_count: s_layers,
            },
            src_offset: vk::Offset3D {
                x: r.src_origin[0] as i32,
                y: r.src_origin[1] as i32,
                z: s_z,
            },
            dst_subresource: vk::ImageSubresourceLayers {
                aspect_mask: conv::aspect(dst.format, r.aspect),
                mip_level: r.dst_mip_level,
                base_array_layer: d_layer,
                layer_count: d_layers,
            },
            dst_offset: vk::Offset3D {
                x: r.dst_origin[0] as i32,
                y: r.dst_origin[1] as i32,
                z: d_z,
            },
            extent: vk::Extent3D {
                width: w,
                height: h,
                depth: s_depth.max(d_depth),
            },
        }];
        // SAFETY: layouts are TRANSFER_SRC/DST; the region was validated above us.
        unsafe {
            self.shared.raw.cmd_copy_image(
                self.active,
                src.raw,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &region,
            )
        };
    }

    unsafe fn clear_texture(
        &mut self,
        texture: &Texture,
        range: hal::SubresourceRange,
        value: [f32; 4],
    ) {
        let ranges = [conv::subresource_range(texture.format, &range)];
        if texture.format.is_depth_stencil() {
            let v = vk::ClearDepthStencilValue {
                depth: value[0],
                stencil: value[1] as u32,
            };
            // SAFETY: a depth-stencil image in TRANSFER_DST_OPTIMAL.
            unsafe {
                self.shared.raw.cmd_clear_depth_stencil_image(
                    self.active,
                    texture.raw,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &v,
                    &ranges,
                )
            };
            return;
        }
        if texture.format.is_compressed() {
            // Block-compressed images cannot be cleared: only zeroes are ever asked for
            // (a texture's first fill), so they are copied from the zero source.
            self.zero_compressed(texture, &range);
            return;
        }
        let color = conv::clear_color(texture.format, value.map(f64::from));
        // SAFETY: a color image in TRANSFER_DST_OPTIMAL.
        unsafe {
            self.shared.raw.cmd_clear_color_image(
                self.active,
                texture.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &color,
                &ranges,
            )
        };
    }

    unsafe fn reset_queries(&mut self, set: &QuerySet, first: u32, count: u32) {
        // SAFETY: range within the pool (validated above us); outside render passes.
        unsafe {
            self.shared
                .raw
                .cmd_reset_query_pool(self.active, set.raw, first, count)
        };
    }

    unsafe fn write_timestamp(&mut self, set: &QuerySet, index: u32) {
        // SAFETY: the query was reset earlier in this command buffer.
        unsafe {
            self.shared.raw.cmd_write_timestamp2(
                self.active,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                set.raw,
                index,
            )
        };
    }

    unsafe fn begin_occlusion_query(&mut self, set: &QuerySet, index: u32) {
        // SAFETY: inside a render pass with no view mask, no query active; the query was
        // reset since its last use (checked above us). Not precise: a count that is nonzero
        // when any sample passed is what WebGPU promises.
        unsafe {
            self.shared.raw.cmd_begin_query(
                self.active,
                set.raw,
                index,
                vk::QueryControlFlags::empty(),
            )
        };
    }

    unsafe fn end_occlusion_query(&mut self, set: &QuerySet, index: u32) {
        // SAFETY: the query is active, begun in this render pass (checked above us).
        unsafe { self.shared.raw.cmd_end_query(self.active, set.raw, index) };
    }

    unsafe fn begin_pipeline_statistics_query(&mut self, set: &QuerySet, index: u32) {
        // SAFETY: inside a pass (a render pass without a view mask), no other such query
        // active, the query reset since its last use, graphics statistics only on a queue
        // that draws (checked above us).
        unsafe {
            self.shared.raw.cmd_begin_query(
                self.active,
                set.raw,
                index,
                vk::QueryControlFlags::empty(),
            )
        };
    }

    unsafe fn end_pipeline_statistics_query(&mut self, set: &QuerySet, index: u32) {
        // SAFETY: the query is active, begun in this pass (checked above us).
        unsafe { self.shared.raw.cmd_end_query(self.active, set.raw, index) };
    }

    unsafe fn resolve_queries(
        &mut self,
        set: &QuerySet,
        first: u32,
        count: u32,
        dst: &Buffer,
        offset: u64,
    ) {
        // SAFETY: range and destination validated above us (a query's values each); waits
        // for availability.
        unsafe {
            self.shared.raw.cmd_copy_query_pool_results(
                self.active,
                set.raw,
                first,
                count,
                dst.raw,
                offset,
                8 * u64::from(set.values),
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        };
    }

    #[inline]
    unsafe fn set_immediates(&mut self, layout: &PipelineLayout, data: &[u8]) {
        // SAFETY: the layout declares one push-constant range of `data.len()` bytes for
        // these stages (validated above us).
        unsafe {
            self.shared.raw.cmd_push_constants(
                self.active,
                layout.raw,
                layout.immediate_stages,
                0,
                data,
            )
        };
    }

    #[inline]
    unsafe fn set_bind_group(
        &mut self,
        point: hal::BindPoint,
        layout: &PipelineLayout,
        index: u32,
        group: vk::DescriptorSet,
        dynamic_offsets: &[u32],
    ) {
        let bind_point = match point {
            hal::BindPoint::Compute => vk::PipelineBindPoint::COMPUTE,
            hal::BindPoint::Render => vk::PipelineBindPoint::GRAPHICS,
        };
        // SAFETY: the set is compatible with the layout at `index` and the offsets are
        // counted, aligned and in range (validated above us).
        unsafe {
            self.shared.raw.cmd_bind_descriptor_sets(
                self.active,
                bind_point,
                layout.raw,
                index,
                std::slice::from_ref(&group),
                dynamic_offsets,
            )
        };
    }

    unsafe fn begin_compute_pass(&mut self, desc: &hal::ComputePassDescriptor<'_, Api>) {
        self.begin_pass_common(desc.label, desc.timestamp_writes.as_ref());
    }

    unsafe fn end_compute_pass(&mut self) {
        self.end_pass_common();
    }

    #[inline]
    unsafe fn set_compute_pipeline(&mut self, pipeline: &ComputePipeline) {
        // SAFETY: recording; valid pipeline.
        unsafe {
            self.shared.raw.cmd_bind_pipeline(
                self.active,
                vk::PipelineBindPoint::COMPUTE,
                pipeline.raw,
            )
        };
    }

    #[inline]
    unsafe fn dispatch(&mut self, count: [u32; 3]) {
        // SAFETY: pipeline and descriptor sets bound; counts within limits (checked above us).
        unsafe {
            self.shared
                .raw
                .cmd_dispatch(self.active, count[0], count[1], count[2])
        };
    }

    #[inline]
    unsafe fn dispatch_indirect(&mut self, buffer: &Buffer, offset: u64) {
        // SAFETY: the argument range lies in an INDIRECT buffer (checked above us).
        unsafe {
            self.shared
                .raw
                .cmd_dispatch_indirect(self.active, buffer.raw, offset)
        };
    }

    unsafe fn begin_render_pass(&mut self, desc: &hal::RenderPassDescriptor<'_, Api>) {
        self.begin_pass_common(desc.label, desc.timestamp_writes.as_ref());
        let colors: Vec<_> = desc
            .color_attachments
            .iter()
            .map(|a| match a {
                None => vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::null()),
                Some(a) => {
                    let mut info = vk::RenderingAttachmentInfo::default()
                        .image_view(a.view.raw)
                        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .store_op(conv::store_op(a.store));
                    info = match a.load {
                        hal::LoadOp::Load => info.load_op(vk::AttachmentLoadOp::LOAD),
                        hal::LoadOp::Clear(c) => info
                            .load_op(vk::AttachmentLoadOp::CLEAR)
                            .clear_value(vk::ClearValue {
                                color: conv::clear_color(a.format, c),
                            }),
                    };
                    if let Some(resolve) = a.resolve_target {
                        info = info
                            .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                            .resolve_image_view(resolve.raw)
                            .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
                    }
                    info
                }
            })
            .collect();
        let ds = desc.depth_stencil_attachment.as_ref();
        // A read-only attachment is loaded and not stored, in the layout its sampled reads
        // share (`ShaderReadOnly`'s).
        let ds_layout = |d: &hal::DepthStencilAttachment<'_, super::Api>| {
            if d.read_only {
                conv::image_layout(hal::TextureLayout::ShaderReadOnly)
            } else {
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
            }
        };
        let ds_store = |d: &hal::DepthStencilAttachment<'_, super::Api>, op| {
            if d.read_only {
                vk::AttachmentStoreOp::NONE
            } else {
                conv::store_op(op)
            }
        };
        let depth = ds.map(|d| {
            let info = vk::RenderingAttachmentInfo::default()
                .image_view(d.view.raw)
                .image_layout(ds_layout(d))
                .store_op(ds_store(d, d.depth.1));
            match d.depth.0 {
                hal::LoadOp::Load => info.load_op(vk::AttachmentLoadOp::LOAD),
                hal::LoadOp::Clear(v) => {
                    info.load_op(vk::AttachmentLoadOp::CLEAR)
                        .clear_value(vk::ClearValue {
                            depth_stencil: vk::ClearDepthStencilValue {
                                depth: v,
                                stencil: 0,
                            },
                        })
                }
            }
        });
        let stencil = ds.filter(|d| d.format.info().has_stencil).map(|d| {
            let info = vk::RenderingAttachmentInfo::default()
                .image_view(d.view.raw)
                .image_layout(ds_layout(d))
                .store_op(ds_store(d, d.stencil.1));
            match d.stencil.0 {
                hal::LoadOp::Load => info.load_op(vk::AttachmentLoadOp::LOAD),
                hal::LoadOp::Clear(v) => {
                    info.load_op(vk::AttachmentLoadOp::CLEAR)
                        .clear_value(vk::ClearValue {
                            depth_stencil: vk::ClearDepthStencilValue {
                                depth: 0.0,
                                stencil: v,
                            },
                        })
                }
            }
        });
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: desc.extent[0],
                height: desc.extent[1],
            },
        };
        let mut info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .view_mask(desc.view_mask)
            .color_attachments(&colors);
        if let Some(d) = depth
            .as_ref()
            .filter(|_| ds.is_some_and(|d| d.format.info().has_depth))
        {
            info = info.depth_attachment(d);
        }
        if let Some(s) = stencil.as_ref() {
            info = info.stencil_attachment(s);
        }
        // SAFETY: attachments are in their attachment layouts (transitioned above us) and
        // share the render area's extent.
        unsafe { self.shared.raw.cmd_begin_rendering(self.active, &info) };
        let viewport = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: desc.extent[0] as f32,
            height: desc.extent[1] as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        // SAFETY: dynamic state of every pipeline vigil creates.
        unsafe { self.shared.raw.cmd_set_viewport(self.active, 0, &viewport) };
        // SAFETY: as above.
        unsafe { self.shared.raw.cmd_set_scissor(self.active, 0, &[area]) };
    }

    unsafe fn end_render_pass(&mut self) {
        // SAFETY: matches the begin.
        unsafe { self.shared.raw.cmd_end_rendering(self.active) };
        self.end_pass_common();
    }

    #[inline]
    unsafe fn set_render_pipeline(&mut self, pipeline: &RenderPipeline) {
        // SAFETY: recording inside a compatible rendering instance.
        unsafe {
            self.shared.raw.cmd_bind_pipeline(
                self.active,
                vk::PipelineBindPoint::GRAPHICS,
                pipeline.raw,
            )
        };
    }

    #[inline]
    unsafe fn set_vertex_buffer(&mut self, slot: u32, buffer: &Buffer, offset: u64) {
        // SAFETY: a VERTEX buffer, offset in range.
        unsafe {
            self.shared.raw.cmd_bind_vertex_buffers(
                self.active,
                slot,
                std::slice::from_ref(&buffer.raw),
                &[offset],
            )
        };
    }

    #[inline]
    unsafe fn set_index_buffer(&mut self, buffer: &Buffer, offset: u64, format: hal::IndexFormat) {
        // SAFETY: an INDEX buffer, offset aligned to the index size.
        unsafe {
            self.shared.raw.cmd_bind_index_buffer(
                self.active,
                buffer.raw,
                offset,
                conv::index_type(format),
            )
        };
    }

    unsafe fn set_viewport(&mut self, rect: [f32; 4], depth: [f32; 2]) {
        let v = [vk::Viewport {
            x: rect[0],
            y: rect[1],
            width: rect[2],
            height: rect[3],
            min_depth: depth[0],
            max_depth: depth[1],
        }];
        // SAFETY: validated viewport.
        unsafe { self.shared.raw.cmd_set_viewport(self.active, 0, &v) };
    }

    unsafe fn set_scissor(&mut self, rect: [u32; 4]) {
        let r = [vk::Rect2D {
            offset: vk::Offset2D {
                x: rect[0] as i32,
                y: rect[1] as i32,
            },
            extent: vk::Extent2D {
                width: rect[2],
                height: rect[3],
            },
        }];
        // SAFETY: validated rectangle inside the render area.
        unsafe { self.shared.raw.cmd_set_scissor(self.active, 0, &r) };
    }

    unsafe fn set_blend_constant(&mut self, color: [f32; 4]) {
        // SAFETY: dynamic state of every pipeline vigil creates.
        unsafe { self.shared.raw.cmd_set_blend_constants(self.active, &color) };
    }

    unsafe fn set_stencil_reference(&mut self, reference: u32) {
        // SAFETY: dynamic state of every pipeline vigil creates.
        unsafe {
            self.shared.raw.cmd_set_stencil_reference(
                self.active,
                vk::StencilFaceFlags::FRONT_AND_BACK,
                reference,
            )
        };
    }

    unsafe fn push_debug_group(&mut self, label: &str) {
        self.open_label(label);
    }

    unsafe fn pop_debug_group(&mut self) {
        self.end_label();
    }

    unsafe fn insert_debug_marker(&mut self, label: &str) {
        let Some(du) = &self.shared.debug_utils else {
            return;
        };
        let name = c_label(label);
        let info = vk::DebugUtilsLabelEXT::default().label_name(&name);
        // SAFETY: recording command buffer; the label is copied during the call.
        unsafe { du.cmd_insert_debug_utils_label(self.active, &info) };
    }

    #[inline]
    unsafe fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        // SAFETY: state bound and ranges validated above us.
        unsafe {
            self.shared.raw.cmd_draw(
                self.active,
                vertices.end - vertices.start,
                instances.end - instances.start,
                vertices.start,
                instances.start,
            )
        };
    }

    #[inline]
    unsafe fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) {
        // SAFETY: state bound and ranges validated above us.
        unsafe {
            self.shared.raw.cmd_draw_indexed(
                self.active,
                indices.end - indices.start,
                instances.end - instances.start,
                indices.start,
                base_vertex,
                instances.start,
            )
        };
    }

    #[inline]
    unsafe fn draw_indirect(&mut self, buffer: &Buffer, offset: u64) {
        // SAFETY: the argument range lies in an INDIRECT buffer.
        unsafe {
            self.shared
                .raw
                .cmd_draw_indirect(self.active, buffer.raw, offset, 1, 16)
        };
    }

    #[inline]
    unsafe fn draw_indexed_indirect(&mut self, buffer: &Buffer, offset: u64) {
        // SAFETY: the argument range lies in an INDIRECT buffer.
        unsafe {
            self.shared
                .raw
                .cmd_draw_indexed_indirect(self.active, buffer.raw, offset, 1, 20)
        };
    }

    unsafe fn draw_indirect_multi(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) {
        // SAFETY: `count` commands `stride` bytes apart (a multiple of 4, at least 16) lie
        // in an INDIRECT buffer from `offset`, and the device has multiDrawIndirect when
        // `count` is above 1 (checked above us).
        unsafe {
            self.shared
                .raw
                .cmd_draw_indirect(self.active, buffer.raw, offset, count, stride)
        };
    }

    unsafe fn draw_indirect_count(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        count_buffer: &Buffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    ) {
        // SAFETY: `max_count` commands `stride` bytes apart (a multiple of 4, at least 16)
        // lie in an INDIRECT buffer from `offset`, the count in one at `count_offset`, both
        // offsets multiples of 4, the device has drawIndirectCount with a
        // maxDrawIndirectCount of every u32, and first instances are 0 where it lacks
        // drawIndirectFirstInstance (checked above us).
        unsafe {
            self.shared.raw.cmd_draw_indirect_count(
                self.active,
                buffer.raw,
                offset,
                count_buffer.raw,
                count_offset,
                max_count,
                stride,
            )
        };
    }

    unsafe fn draw_indexed_indirect_count(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        count_buffer: &Buffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    ) {
        // SAFETY: as draw_indirect_count's, with 20-byte commands (`stride` at least 20)
        // whose indices lie within the bound index range (checked above us).
        unsafe {
            self.shared.raw.cmd_draw_indexed_indirect_count(
                self.active,
                buffer.raw,
                offset,
                count_buffer.raw,
                count_offset,
                max_count,
                stride,
            )
        };
    }

    unsafe fn draw_indexed_indirect_multi(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) {
        // SAFETY: as draw_indirect_multi's, with 20-byte commands (`stride` at least 20)
        // whose indices lie within the bound index range (checked above us).
        unsafe {
            self.shared.raw.cmd_draw_indexed_indirect(
                self.active,
                buffer.raw,
                offset,
                count,
                stride,
            )
        };
    }

    #[inline]
    unsafe fn draw_mesh_tasks(&mut self, count: [u32; 3]) {
        let Some(mesh) = self.shared.mesh.as_ref() else {
            return;
        };
        let [x, y, z] = count;
        // SAFETY: a mesh pipeline is bound (the caller's contract) on a device with the
        // extension, and the counts are within its limits.
        unsafe { mesh.cmd_draw_mesh_tasks(self.active, x, y, z) };
    }

    #[inline]
    unsafe fn draw_mesh_tasks_indirect(&mut self, buffer: &Buffer, offset: u64) {
        let Some(mesh) = self.shared.mesh.as_ref() else {
            return;
        };
        // SAFETY: a mesh pipeline is bound; the 12 argument bytes lie in an INDIRECT buffer.
        unsafe { mesh.cmd_draw_mesh_tasks_indirect(self.active, buffer.raw, offset, 1, 12) };
    }
}
