//! Render passes: attachments and their layouts, pipelines, vertex and index buffers,
//! dynamic state, draws.
//!
//! A render pass is one usage scope: the encoder orders it after earlier work with one
//! barrier at its start, and refuses a pass that uses a resource in conflicting ways (read
//! one way and written another), since no barrier can go inside it.

use super::binder::Binder;
use super::compute::PassTimestampWrites;
use super::{Access, CommandEncoder, Kind, Pass};
use crate::device::{DeviceState, PipelineInfo, check_range};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle, RenderPipeline, TextureView};
use vigil_hal::{
    Api, BindPoint, BufferUsages, Features, IndexFormat, LoadOp, Stages, StoreOp, TextureBarrier,
    TextureFormat, TextureLayout, TextureUsages, TextureViewDimension, VertexStepMode,
};

/// Most vertex buffer slots vigil tracks.
const MAX_VERTEX_SLOTS: usize = 16;

/// A color attachment of a render pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderPassColorAttachment {
    /// The view rendered to (2d, one mip level).
    pub view: TextureView,
    /// Where a multisampled view resolves to (a single-sampled view of the same format).
    pub resolve_target: Option<TextureView>,
    /// Clear (to a value in the format's own number kind) or keep the contents.
    pub load: LoadOp<[f64; 4]>,
    /// Keep or discard what was rendered.
    pub store: StoreOp,
}

/// The depth-stencil attachment of a render pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderPassDepthStencilAttachment {
    /// The view rendered to.
    pub view: TextureView,
    /// Depth load.
    pub depth_load: LoadOp<f32>,
    /// Depth store.
    pub depth_store: StoreOp,
    /// Stencil load (ignored without a stencil aspect).
    pub stencil_load: LoadOp<u32>,
    /// Stencil store.
    pub stencil_store: StoreOp,
}

/// How to begin a render pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderPassDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Color attachments by index.
    pub color_attachments: &'a [Option<RenderPassColorAttachment>],
    /// Depth-stencil attachment.
    pub depth_stencil_attachment: Option<RenderPassDepthStencilAttachment>,
    /// Timestamps to write.
    pub timestamp_writes: Option<PassTimestampWrites>,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct VertexBinding {
    buffer: (u32, u32),
    offset: u64,
    size: u64,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexBinding {
    buffer: (u32, u32),
    size: u64,
    format: IndexFormat,
}

/// A texture the pass transitions in and out of an attachment layout.
#[derive(Clone, Copy, Debug)]
struct AttachmentTransition {
    texture: u32,
    range: vigil_hal::SubresourceRange,
    resting: TextureLayout,
    layout: TextureLayout,
}

/// What a render pass has bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct RenderState {
    pub binder: Binder,
    extent: [u32; 2],
    color_formats: Vec<Option<TextureFormat>>,
    depth_format: Option<TextureFormat>,
    sample_count: u32,
    transitions: Vec<AttachmentTransition>,
    vertex: [Option<VertexBinding>; MAX_VERTEX_SLOTS],
    /// Vertex buffer slots the pipeline reads.
    vertex_slots: usize,
    index: Option<IndexBinding>,
    /// Vertex slots and the index buffer changed since their accesses were last recorded.
    vertex_touched: u32,
    index_touched: bool,
}

/// Refuses a range whose end lies below its start: the native call takes a count, and
/// `end - start` would wrap to about four billion.
fn check_range_order(
    op: &'static str,
    label: &str,
    what: &str,
    range: &std::ops::Range<u32>,
) -> Result<()> {
    if range.end < range.start {
        return Err(fail!(
            InvalidDescriptor,
            op,
            label,
            "{what} {}..{} end below their start",
            range.start,
            range.end
        ));
    }
    Ok(())
}

/// Checks bound groups against a pipeline: every group present, layouts compatible, and
/// the late minimum-size checks.
pub(crate) fn check_groups<A: Api>(
    encoder_label: &str,
    op: &'static str,
    pipeline_label: &str,
    info: &PipelineInfo,
    bindings: &Binder,
    st: &DeviceState<A>,
) -> Result<()> {
    for (g, &compat) in info.group_compat.iter().enumerate() {
        let Some((gi, _)) = bindings.groups.get(g).and_then(|b| b.group) else {
            return Err(fail!(
                InvalidState,
                op,
                encoder_label,
                "pipeline '{pipeline_label}' uses bind group {g}, but none is set at index {g}"
            ));
        };
        let Some(group) = st.bind_groups.slot(gi).and_then(|s| s.value.as_ref()) else {
            return Err(fail!(
                InvalidState,
                op,
                encoder_label,
                "the bind group at index {g} is gone"
            ));
        };
        if group.compat != compat {
            return Err(fail!(
                InvalidState,
                op,
                encoder_label,
                "bind group '{}' at index {g} follows a layout that does not match group {g} of pipeline '{pipeline_label}'",
                group.label
            ));
        }
    }
    for c in info.late_checks.iter() {
        let bound = bindings.groups[c.group as usize]
            .group
            .and_then(|(gi, _)| st.bind_groups.slot(gi))
            .and_then(|s| s.value.as_ref());
        let Some(group) = bound else { continue };
        let size = group.sizes.get(c.entry as usize).copied().unwrap_or(0);
        if size < c.min {
            return Err(fail!(
                OutOfBounds,
                op,
                encoder_label,
                "bind group '{}' binds {size} bytes at @group({}) @binding({}), but pipeline '{pipeline_label}' needs at least {}",
                group.label,
                c.group,
                c.binding,
                c.min
            ));
        }
    }
    Ok(())
}

impl<'d, A: Api> CommandEncoder<'d, A> {
    /// Begins a render pass: checks attachments agree in size and sample count and allow
    /// rendering, orders the pass after earlier work and moves attachments into their
    /// attachment layouts.
    pub fn begin_render_pass(&mut self, desc: &RenderPassDescriptor<'_>) -> Result<()> {
        const OP: &str = "begin_render_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let st = e.state(OP)?;
            let id = e.device.id;
            if desc.color_attachments.iter().all(Option::is_none) && desc.depth_stencil_attachment.is_none() {
                return Err(fail!(InvalidDescriptor, OP, &e.label, "a render pass needs at least one attachment"));
            }
            if desc.color_attachments.len() > e.device.limits.max_color_attachments as usize {
                return Err(fail!(LimitExceeded, OP, &e.label, "{} color attachments exceed max_color_attachments ({})", desc.color_attachments.len(), e.device.limits.max_color_attachments));
            }
            let mut extent: Option<[u32; 2]> = None;
            let mut samples: Option<u32> = None;
            let mut textures: Vec<u32> = Vec::new();
            let mut check_view = |view: TextureView, what: &str, want_depth: bool| -> Result<&crate::device::ViewObj<A>> {
                let v = st.views.value(view, id, OP)?;
                if !st.textures.is_live(v.texture.0, v.texture.1) {
                    return Err(fail!(InvalidHandle, OP, &e.label, "{what}: the texture of view '{}' was destroyed", v.label));
                }
                if !v.usage.contains(TextureUsages::RENDER_ATTACHMENT) {
                    return Err(fail!(UsageMismatch, OP, &e.label, "{what}: view '{}' lacks RENDER_ATTACHMENT usage ({:?})", v.label, v.usage));
                }
                if v.dimension != TextureViewDimension::D2 || v.range.mip_level_count != 1 || v.range.array_layer_count != 1 {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "{what}: view '{}' must be 2d with one mip level and one layer", v.label));
                }
                if v.format.is_depth_stencil() != want_depth {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "{what}: view '{}' has format {}, which is {} a depth format", v.label, v.format.wgsl_name(), if want_depth { "not" } else { "" }));
                }
                if textures.contains(&v.texture.0) {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "{what}: the texture of view '{}' is already an attachment of this pass", v.label));
                }
                textures.push(v.texture.0);
                if *extent.get_or_insert(v.extent) != v.extent {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "{what}: view '{}' is {}x{}, other attachments are {}x{}", v.label, v.extent[0], v.extent[1], extent.map_or(0, |x| x[0]), extent.map_or(0, |x| x[1])));
                }
                Ok(v)
            };
            let mut colors = Vec::with_capacity(desc.color_attachments.len());
            let mut transitions = Vec::new();
            let mut writes = Vec::new();
            for (i, a) in desc.color_attachments.iter().enumerate() {
                let Some(a) = a else {
                    colors.push(None);
                    continue;
                };
                let v = check_view(a.view, &format!("color attachment {i}"), false)?;
                if *samples.get_or_insert(v.sample_count) != v.sample_count {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "color attachment {i} has {} samples, other attachments {}", v.sample_count, samples.unwrap_or(0)));
                }
                let mut resolve = None;
                if let Some(r) = a.resolve_target {
                    if v.sample_count == 1 {
                        return Err(fail!(InvalidDescriptor, OP, &e.label, "color attachment {i} is not multisampled, so it cannot resolve"));
                    }
                    let rv = check_view(r, &format!("resolve target {i}"), false)?;
                    if rv.sample_count != 1 || rv.format != v.format {
                        return Err(fail!(InvalidDescriptor, OP, &e.label, "resolve target {i} must be single-sampled {} (it is {} with {} samples)", v.format.wgsl_name(), rv.format.wgsl_name(), rv.sample_count));
                    }
                    resolve = Some(rv);
                    transitions.push(AttachmentTransition { texture: rv.texture.0, range: rv.range, resting: rv.resting, layout: TextureLayout::ColorAttachment });
                    writes.push((rv.texture, Stages::COLOR_ATTACHMENT));
                }
                transitions.push(AttachmentTransition { texture: v.texture.0, range: v.range, resting: v.resting, layout: TextureLayout::ColorAttachment });
                writes.push((v.texture, Stages::COLOR_ATTACHMENT));
                colors.push(Some((v, resolve, a.load, a.store)));
            }
            let mut depth = None;
            if let Some(d) = &desc.depth_stencil_attachment {
                let v = check_view(d.view, "depth-stencil attachment", true)?;
                if *samples.get_or_insert(v.sample_count) != v.sample_count {
                    return Err(fail!(InvalidDescriptor, OP, &e.label, "the depth-stencil attachment has {} samples, other attachments {}", v.sample_count, samples.unwrap_or(0)));
                }
                let range = vigil_hal::SubresourceRange { aspect: vigil_hal::TextureAspect::All, ..v.range };
                transitions.push(AttachmentTransition { texture: v.texture.0, range, resting: v.resting, layout: TextureLayout::DepthStencilAttachment });
                writes.push((v.texture, Stages::DEPTH_STENCIL));
                depth = Some((v, d));
            }
            let ts = e.prepare_pass_timestamps(&st, desc.timestamp_writes, OP)?;
            // The pass is one usage scope: everything before it is ordered before it.
            if e.barriers.first || !e.barriers.pending.is_empty() {
                e.barrier();
            }
            let barriers: Vec<TextureBarrier<'_, A>> = transitions
                .iter()
                .filter(|t| t.resting != t.layout)
                .filter_map(|t| {
                    let tex = st.textures.slot(t.texture).and_then(|s| s.value.as_ref())?;
                    Some(TextureBarrier {
                        texture: &tex.raw,
                        range: t.range,
                        old_layout: t.resting,
                        new_layout: t.layout,
                        src: Stages::ALL_COMMANDS,
                        dst: if t.layout == TextureLayout::DepthStencilAttachment { Stages::DEPTH_STENCIL } else { Stages::COLOR_ATTACHMENT },
                    })
                })
                .collect();
            let color_hal: Vec<Option<vigil_hal::ColorAttachment<'_, A>>> = colors
                .iter()
                .map(|c| {
                    c.map(|(v, r, load, store)| vigil_hal::ColorAttachment {
                        view: &v.raw,
                        format: v.format,
                        resolve_target: r.map(|r| &r.raw),
                        load,
                        store,
                    })
                })
                .collect();
            let depth_hal = depth.map(|(v, d)| vigil_hal::DepthStencilAttachment {
                view: &v.raw,
                format: v.format,
                depth: (d.depth_load, d.depth_store),
                stencil: (d.stencil_load, d.stencil_store),
            });
            let ts_hal = match ts {
                None => None,
                Some(super::compute::TimestampPlan { set: i, beginning, end }) => {
                    let set = st.query_sets.slot(i).and_then(|s| s.value.as_ref());
                    let set = set.ok_or_else(|| fail!(InvalidHandle, OP, &e.label, "the query set is gone"))?;
                    Some(vigil_hal::PassTimestampWrites { query_set: &set.raw, beginning, end })
                }
            };
            let ext = extent.unwrap_or([1, 1]);
            let label = desc.label;
            e.record(|r| {
                if !barriers.is_empty() {
                    r.texture_barriers(&barriers);
                }
                r.begin_render_pass(&vigil_hal::RenderPassDescriptor {
                    label,
                    extent: ext,
                    color_attachments: &color_hal,
                    depth_stencil_attachment: depth_hal,
                    timestamp_writes: ts_hal,
                });
                // WebGPU's defaults for the dynamic state a pass may leave unset: every
                // pipeline reads them, and the driver's own are undefined.
                r.set_blend_constant([0.0; 4]);
                r.set_stencil_reference(0);
            });
            let color_formats: Vec<_> = colors.iter().map(|c| c.map(|(v, ..)| v.format)).collect();
            let depth_format = depth.map(|(v, _)| v.format);
            let used_views: Vec<(u32, u32)> = desc
                .color_attachments
                .iter()
                .flatten()
                .flat_map(|a| std::iter::once(a.view).chain(a.resolve_target))
                .chain(desc.depth_stencil_attachment.map(|d| d.view))
                .map(|v| (v.index(), v.generation()))
                .collect();
            drop(barriers);
            drop(color_hal);
            drop(st);
            for (view_index, view_gen) in used_views {
                if e.tracker.seen_views.first_use(view_index, e.tracker.epoch) {
                    e.used.views.push((view_index, view_gen));
                }
            }
            for ((ti, _), stages) in writes {
                e.tracker.record(Kind::Texture, ti, Access { write: true, stages }, &mut e.barriers);
            }
            e.render = RenderState {
                extent: ext,
                color_formats,
                depth_format,
                sample_count: samples.unwrap_or(1),
                transitions,
                ..RenderState::default()
            };
            e.pass = Pass::Render;
            e.recorded = true;
            Ok(())
        })
    }

    /// Ends the render pass and returns attachments to their resting layouts.
    pub fn end_render_pass(&mut self) -> Result<()> {
        const OP: &str = "end_render_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let st = e.state(OP)?;
            let transitions = std::mem::take(&mut e.render.transitions);
            let barriers: Vec<TextureBarrier<'_, A>> = transitions
                .iter()
                .filter(|t| t.resting != t.layout)
                .filter_map(|t| {
                    let tex = st.textures.slot(t.texture).and_then(|s| s.value.as_ref())?;
                    Some(TextureBarrier {
                        texture: &tex.raw,
                        range: t.range,
                        old_layout: t.layout,
                        new_layout: t.resting,
                        src: if t.layout == TextureLayout::DepthStencilAttachment {
                            Stages::DEPTH_STENCIL
                        } else {
                            Stages::COLOR_ATTACHMENT
                        },
                        dst: Stages::ALL_COMMANDS,
                    })
                })
                .collect();
            let progress = &e.device.progress;
            e.record(|r| {
                r.end_render_pass();
                if !barriers.is_empty() {
                    r.texture_barriers(&barriers);
                }
                progress.record(r, Stages::ALL_GRAPHICS);
            });
            drop(barriers);
            drop(st);
            e.pass = Pass::None;
            Ok(())
        })
    }

    /// Binds a render pipeline; its targets, depth format and sample count must match the
    /// pass's attachments.
    pub fn set_render_pipeline(&mut self, pipeline: RenderPipeline) -> Result<()> {
        const OP: &str = "set_render_pipeline";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let key = (pipeline.index(), pipeline.generation());
            let st = e.state(OP)?;
            // Looked up before the repeat check: a stale or foreign handle equal in slot
            // and generation to the bound pipeline is still refused.
            let p = st.render_pipelines.value(pipeline, e.device.id, OP)?;
            if e.render.binder.pipeline == Some(key) {
                return Ok(());
            }
            let n = p.render.color_formats.len().max(e.render.color_formats.len());
            let fmt = |v: &[Option<TextureFormat>], i: usize| v.get(i).copied().flatten();
            if (0..n).any(|i| fmt(&p.render.color_formats, i) != fmt(&e.render.color_formats, i))
                || p.render.depth_format != e.render.depth_format
                || p.render.sample_count != e.render.sample_count
            {
                return Err(fail!(
                    InvalidState,
                    OP,
                    &e.label,
                    "pipeline '{}' renders to {:?} / depth {:?} with {} samples, but the pass has {:?} / depth {:?} with {} samples",
                    p.label,
                    p.render.color_formats,
                    p.render.depth_format,
                    p.render.sample_count,
                    e.render.color_formats,
                    e.render.depth_format,
                    e.render.sample_count
                ));
            }
            e.record(|r| r.set_render_pipeline(&p.raw));
            e.render.binder.set_pipeline(&st, key, &p.info);
            e.render.vertex_slots = p.render.vertex_buffers.len();
            drop(st);
            if e.tracker.seen_render.first_use(key.0, e.tracker.epoch) {
                e.used.render_pipelines.push(key);
            }
            Ok(())
        })
    }

    /// Binds `size` bytes (default: to the end) of `buffer` from `offset` as vertex buffer
    /// `slot`.
    pub fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: Buffer,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        const OP: &str = "set_vertex_buffer";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let cap = (e.device.limits.max_vertex_buffers as usize).min(MAX_VERTEX_SLOTS);
            if slot as usize >= cap {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "vertex buffer slot {slot} is not below max_vertex_buffers ({cap})"
                ));
            }
            let key = (buffer.index(), buffer.generation());
            let st = e.state(OP)?;
            let b = st.buffers.value(buffer, e.device.id, OP)?;
            if !b.usage.contains(BufferUsages::VERTEX) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "buffer '{}' lacks VERTEX usage ({:?})",
                    b.label,
                    b.usage
                ));
            }
            if offset % 4 != 0 {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "vertex buffer offset {offset} is not a multiple of 4"
                ));
            }
            // Vulkan binds a vertex buffer at an offset inside it (VUID-vkCmdBindVertexBuffers-pOffsets-00626);
            // an empty binding at the very end has no native form.
            if offset >= b.size {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "offset {offset} is not inside buffer '{}' ({} bytes); a vertex buffer binding must start inside its buffer",
                    b.label,
                    b.size
                ));
            }
            let size = size.unwrap_or(b.size.saturating_sub(offset));
            check_range(OP, &e.label, "vertex buffer", offset, size, b.size)?;
            let binding = VertexBinding {
                buffer: key,
                offset,
                size,
            };
            if let Some(cur) = e.render.vertex[slot as usize] {
                if cur.buffer == key && cur.offset == offset && cur.size == size {
                    return Ok(());
                }
            }
            e.record(|r| r.set_vertex_buffer(slot, &b.raw, offset));
            drop(st);
            e.render.vertex[slot as usize] = Some(binding);
            e.render.vertex_touched |= 1 << slot;
            e.use_buffer(key.0, key.1);
            Ok(())
        })
    }

    /// Binds the index buffer. 32-bit indices are refused on a device that does not honour
    /// their full range (`FULL_DRAW_INDEX_UINT32` not enabled).
    pub fn set_index_buffer(
        &mut self,
        buffer: Buffer,
        format: IndexFormat,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        const OP: &str = "set_index_buffer";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            if format == IndexFormat::Uint32 && !e.device.features.contains(Features::FULL_DRAW_INDEX_UINT32) {
                return Err(fail!(
                    Unsupported,
                    OP,
                    &e.label,
                    "32-bit indices need the FULL_DRAW_INDEX_UINT32 feature on this device, which would otherwise cut index values short; use 16-bit indices or enable the feature"
                ));
            }
            let key = (buffer.index(), buffer.generation());
            let st = e.state(OP)?;
            let b = st.buffers.value(buffer, e.device.id, OP)?;
            if !b.usage.contains(BufferUsages::INDEX) {
                return Err(fail!(UsageMismatch, OP, &e.label, "buffer '{}' lacks INDEX usage ({:?})", b.label, b.usage));
            }
            if offset.checked_rem(format.size()) != Some(0) {
                return Err(fail!(OutOfBounds, OP, &e.label, "index buffer offset {offset} is not a multiple of {}", format.size()));
            }
            // As for vertex buffers, Vulkan needs the offset inside the buffer (VUID-vkCmdBindIndexBuffer-offset-00431).
            if offset >= b.size {
                return Err(fail!(OutOfBounds, OP, &e.label, "offset {offset} is not inside buffer '{}' ({} bytes); an index buffer binding must start inside its buffer", b.label, b.size));
            }
            let size = size.unwrap_or(b.size.saturating_sub(offset));
            check_range(OP, &e.label, "index buffer", offset, size, b.size)?;
            e.record(|r| r.set_index_buffer(&b.raw, offset, format));
            drop(st);
            e.render.index = Some(IndexBinding { buffer: key, size, format });
            e.render.index_touched = true;
            e.use_buffer(key.0, key.1);
            Ok(())
        })
    }

    /// Sets the viewport `[x, y, width, height]` and depth range.
    pub fn set_viewport(
        &mut self,
        x: f32,
        y: f32,
        width: f32,
        height: f32,
        min_depth: f32,
        max_depth: f32,
    ) -> Result<()> {
        const OP: &str = "set_viewport";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let max = 2.0 * e.device.limits.max_texture_dimension_2d as f32;
            let finite = [x, y, width, height, min_depth, max_depth].iter().all(|v| v.is_finite());
            if !finite || width <= 0.0 || height <= 0.0 || x < -max || y < -max || x + width > max || y + height > max {
                return Err(fail!(OutOfBounds, OP, &e.label, "viewport ({x}, {y}, {width}, {height}) must be finite with a positive size within ±{max}"));
            }
            if !(0.0..=1.0).contains(&min_depth) || !(0.0..=1.0).contains(&max_depth) || min_depth > max_depth {
                return Err(fail!(OutOfBounds, OP, &e.label, "depth range {min_depth}..{max_depth} must lie in 0..1 with min <= max"));
            }
            e.record(|r| r.set_viewport([x, y, width, height], [min_depth, max_depth]));
            Ok(())
        })
    }

    /// Sets the scissor rectangle; it must lie inside the attachments.
    pub fn set_scissor_rect(&mut self, x: u32, y: u32, width: u32, height: u32) -> Result<()> {
        const OP: &str = "set_scissor_rect";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let [w, h] = e.render.extent;
            let outside = |start: u32, len: u32, limit: u32| {
                start.checked_add(len).is_none_or(|end| end > limit)
            };
            if outside(x, width, w) || outside(y, height, h) {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "scissor ({x}, {y}, {width}, {height}) leaves the {w}x{h} attachments"
                ));
            }
            e.record(|r| r.set_scissor([x, y, width, height]));
            Ok(())
        })
    }

    /// Sets the blend constant.
    pub fn set_blend_constant(&mut self, color: [f32; 4]) -> Result<()> {
        const OP: &str = "set_blend_constant";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            e.record(|r| r.set_blend_constant(color));
            Ok(())
        })
    }

    /// Sets the stencil reference.
    pub fn set_stencil_reference(&mut self, reference: u32) -> Result<()> {
        const OP: &str = "set_stencil_reference";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            e.record(|r| r.set_stencil_reference(reference));
            Ok(())
        })
    }

    /// Draws `vertices` of `instances`.
    pub fn draw(
        &mut self,
        vertices: std::ops::Range<u32>,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            check_range_order(OP, &e.label, "vertices", &vertices)?;
            check_range_order(OP, &e.label, "instances", &instances)?;
            let st = e.state(OP)?;
            e.prepare_draw(
                &st,
                OP,
                None,
                Some(vertices.clone()),
                instances.clone(),
                false,
            )?;
            e.record(|r| r.draw(vertices, instances));
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Draws `indices` of the index buffer, adding `base_vertex` to each, for `instances`.
    pub fn draw_indexed(
        &mut self,
        indices: std::ops::Range<u32>,
        base_vertex: i32,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw_indexed";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let Some(ib) = e.render.index else {
                return Err(fail!(InvalidState, OP, &e.label, "no index buffer is set"));
            };
            check_range_order(OP, &e.label, "indices", &indices)?;
            check_range_order(OP, &e.label, "instances", &instances)?;
            let end = u64::from(indices.end).saturating_mul(ib.format.size());
            if end > ib.size {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "indices {}..{} need {end} bytes of index buffer; {} are bound",
                    indices.start,
                    indices.end,
                    ib.size
                ));
            }
            let st = e.state(OP)?;
            e.prepare_draw(&st, OP, None, None, instances.clone(), true)?;
            e.record(|r| r.draw_indexed(indices, base_vertex, instances));
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Draws with `(vertex_count, instance_count, first_vertex, first_instance)` read from
    /// `buffer` at `offset`.
    pub fn draw_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect_draw("draw_indirect", buffer, offset, false)
    }

    /// Draws indexed with `(index_count, instance_count, first_index, base_vertex,
    /// first_instance)` read from `buffer` at `offset`.
    pub fn draw_indexed_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect_draw("draw_indexed_indirect", buffer, offset, true)
    }

    fn indirect_draw(
        &mut self,
        op: &'static str,
        buffer: Buffer,
        offset: u64,
        indexed: bool,
    ) -> Result<()> {
        self.step(op, |e| {
            e.expect_pass(Pass::Render, op)?;
            if indexed && e.render.index.is_none() {
                return Err(fail!(InvalidState, op, &e.label, "no index buffer is set"));
            }
            let st = e.state(op)?;
            let b = st.buffers.value(buffer, e.device.id, op)?;
            super::check_indirect(op, &e.label, b, offset, if indexed { 20 } else { 16 })?;
            e.prepare_draw(&st, op, Some(buffer.index()), None, 0..0, indexed)?;
            if indexed {
                e.record(|r| r.draw_indexed_indirect(&b.raw, offset));
            } else {
                e.record(|r| r.draw_indirect(&b.raw, offset));
            }
            drop(st);
            e.use_buffer(buffer.index(), buffer.generation());
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Checks the draw's state, binds changed groups, checks vertex ranges and records the
    /// pass's accesses (refusing conflicting ones).
    fn prepare_draw(
        &mut self,
        st: &DeviceState<A>,
        op: &'static str,
        indirect: Option<u32>,
        vertices: Option<std::ops::Range<u32>>,
        instances: std::ops::Range<u32>,
        indexed: bool,
    ) -> Result<()> {
        if !self.render.binder.ready() {
            return Err(self.not_ready(st, op));
        }
        let Some(p) = self
            .render
            .binder
            .pipeline
            .and_then(|(pi, _)| st.render_pipelines.slot(pi))
            .and_then(|s| s.value.as_ref())
        else {
            return Err(fail!(
                InvalidState,
                op,
                &self.label,
                "the render pipeline is gone"
            ));
        };
        for slot in 0..self.render.vertex_slots {
            if self.render.vertex[slot].is_none() {
                return Err(fail!(
                    InvalidState,
                    op,
                    &self.label,
                    "pipeline '{}' reads vertex buffer slot {slot}, but none is set",
                    p.label
                ));
            }
        }
        // Vertex and instance ranges against the bound sizes.
        for (slot, vb) in p.render.vertex_buffers.iter().enumerate() {
            let Some(bound) = self.render.vertex[slot] else {
                continue;
            };
            let range = match vb.step {
                VertexStepMode::Vertex => match &vertices {
                    Some(v) => v.clone(),
                    None => continue,
                },
                VertexStepMode::Instance => instances.clone(),
            };
            if range.end <= range.start || vb.element_size == 0 {
                continue;
            }
            // `range.end > range.start >= 0` here, so `end - 1` does not wrap.
            let need = u64::from(range.end.saturating_sub(1))
                .saturating_mul(vb.stride)
                .saturating_add(vb.element_size);
            if need > bound.size {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &self.label,
                    "vertex buffer slot {slot} holds {} bytes but {} {}..{} need {need}",
                    bound.size,
                    if vb.step == VertexStepMode::Vertex {
                        "vertices"
                    } else {
                        "instances"
                    },
                    range.start,
                    range.end
                ));
            }
        }
        self.render
            .binder
            .flush(st, self.raw.as_mut(), BindPoint::Render);
        // Accesses of what changed since the last draw; conflicts inside a pass are errors.
        let touched = self.render.binder.touched & self.render.binder.used_mask();
        if touched != 0 {
            for g in 0..self.render.binder.count {
                if touched & (1 << g) == 0 {
                    continue;
                }
                let Some(group) = self.render.binder.groups[g]
                    .group
                    .and_then(|(i, _)| st.bind_groups.slot(i))
                    .and_then(|s| s.value.as_ref())
                else {
                    continue;
                };
                for u in group.tracked.iter() {
                    let kind = if u.texture {
                        Kind::Texture
                    } else {
                        Kind::Buffer
                    };
                    self.scope_access(
                        st,
                        kind,
                        u.index,
                        Access {
                            write: u.write,
                            stages: u.stages,
                        },
                        op,
                    )?;
                }
            }
            self.render.binder.touched &= !touched;
        }
        let read = |stages| Access {
            write: false,
            stages,
        };
        // Only the slots set since the last draw (their bits), not every slot.
        let mut touched_slots = self.render.vertex_touched;
        while touched_slots != 0 {
            let slot = touched_slots.trailing_zeros() as usize;
            touched_slots &= touched_slots.wrapping_sub(1);
            if let Some(v) = self.render.vertex.get(slot).copied().flatten() {
                self.scope_access(st, Kind::Buffer, v.buffer.0, read(Stages::VERTEX_INPUT), op)?;
            }
        }
        self.render.vertex_touched = 0;
        if indexed && self.render.index_touched {
            if let Some(ib) = self.render.index {
                self.scope_access(
                    st,
                    Kind::Buffer,
                    ib.buffer.0,
                    read(Stages::VERTEX_INPUT),
                    op,
                )?;
            }
            self.render.index_touched = false;
        }
        if let Some(i) = indirect {
            self.scope_access(st, Kind::Buffer, i, read(Stages::DRAW_INDIRECT), op)?;
        }
        Ok(())
    }

    /// Records an access inside the render pass's usage scope, refusing one that conflicts
    /// with an earlier access in the same pass (written one way, read another).
    #[inline]
    fn scope_access(
        &mut self,
        st: &DeviceState<A>,
        kind: Kind,
        index: u32,
        access: Access,
        op: &'static str,
    ) -> Result<()> {
        if self
            .tracker
            .scope_access(kind, index, access, &mut self.barriers)
        {
            return Err(self.scope_conflict(st, kind, index, op));
        }
        Ok(())
    }

    /// The error for an access that conflicts with another in the same render pass.
    #[cold]
    #[inline(never)]
    fn scope_conflict(
        &self,
        st: &DeviceState<A>,
        kind: Kind,
        index: u32,
        op: &'static str,
    ) -> crate::Error {
        let what = match kind {
            Kind::Buffer => format!(
                "buffer '{}'",
                st.buffers
                    .slot(index)
                    .and_then(|s| s.value.as_ref())
                    .map_or("", |b| b.label.as_str())
            ),
            Kind::Texture => format!(
                "texture '{}'",
                st.textures
                    .slot(index)
                    .and_then(|s| s.value.as_ref())
                    .map_or("", |t| t.label.as_str())
            ),
        };
        fail!(
            UsageMismatch,
            op,
            &self.label,
            "{what} is both written and read in this render pass (as an attachment or read-write storage, and another way); a pass cannot order the two"
        )
    }
}
