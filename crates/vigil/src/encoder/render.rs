//! Render passes: attachments, pipelines, vertex and index buffers, dynamic state, draws.
//!
//! A render pass is one usage scope recorded into a native command buffer of its own. The
//! uses of everything it touches (attachments, bind group members, vertex, index and
//! indirect buffers) are merged as draws arrive; a resource used in ways that would need
//! ordering inside the pass is refused. When the pass ends, its uses go to the tracker at
//! once, and the barriers they need are recorded into a short command buffer placed in
//! front of the pass.

use super::binder::Binder;
use super::compute::PassTimestampWrites;
use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle, RenderPipeline, TextureView};
use crate::track::{Subresources, Use};
use crate::validate::{self, render_pass::PassTargets};
use std::sync::Arc;
use vigil_hal::{
    Access, Api, BindPoint, IndexFormat, LoadOp, Stages, StoreOp, TextureFormat, TextureLayout,
};

/// Most vertex buffer slots vigil tracks.
const MAX_VERTEX_SLOTS: usize = 16;

/// A color attachment of a render pass.
///
/// Differs from wgpu's: `load` and `store` are fields of their own (no `ops`), and the
/// clear value is `[f64; 4]` read in the format's own number kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderPassColorAttachment {
    /// The view rendered to (2d, or 3d, of one mip level).
    pub view: TextureView,
    /// Of a 3d view, the slice (`z`) of its mip level rendered to; `None` for any other
    /// view. As WebGPU's `depthSlice`.
    pub depth_slice: Option<u32>,
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
    /// What to do with depth, as wgpu's `depth_ops`. `None` makes depth read-only in the
    /// pass, as in wgpu (WebGPU's `depthReadOnly`): it is loaded, tested against and kept,
    /// and pipelines that write depth are refused (`render-pass.depth-read-only`). Refused
    /// on a format without depth.
    pub depth_ops: Option<Operations<f32>>,
    /// What to do with stencil, as wgpu's `stencil_ops`. `None` makes stencil read-only,
    /// as `depth_ops` does depth (`render-pass.stencil-read-only`). Refused on a format
    /// without stencil, so a depth-only attachment leaves it `None`.
    ///
    /// When every aspect the format has is read-only, so is the attachment: the pass's
    /// shaders may then sample the same texture through a bind group (both are reads). An
    /// attachment with one aspect read-only and the other written is a written one, and a
    /// bind group of the same texture in the pass is refused (`pass.usage-conflict`).
    pub stencil_ops: Option<Operations<u32>>,
}

/// Load and store operations of one attachment aspect (wgpu's `Operations`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Operations<V> {
    /// At the start of the pass.
    pub load: LoadOp<V>,
    /// At its end.
    pub store: StoreOp,
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
    /// Multiview: bit `i` renders view `i` (`view_index` in WGSL) into layer `i` of every
    /// attachment, which are then 2d-array views with enough layers; needs the `MULTIVIEW`
    /// feature, and pipelines with the same mask. As wgpu's `multiview_mask`.
    pub multiview_mask: Option<std::num::NonZeroU32>,
    /// The occlusion query set the pass's [`CommandEncoder::begin_occlusion_query`] count
    /// into: a set of [`Device::create_occlusion_query_set`](crate::Device::create_occlusion_query_set)
    /// (`query.type`), in a pass without a view mask (`occlusion.multiview`).
    pub occlusion_query_set: Option<crate::handle::QuerySet>,
}

#[derive(Clone, Copy, Debug)]
struct VertexBinding {
    /// `(slot, generation)` of the buffer.
    buffer: (u32, u32),
    /// Tracker slot.
    slot: usize,
    offset: u64,
    size: u64,
}

#[derive(Clone, Copy, Debug)]
struct IndexBinding {
    slot: usize,
    offset: u64,
    size: u64,
    format: IndexFormat,
}

/// The indices `size` bytes of `format` hold: `u32::MAX` when there are more, which no
/// draw's arguments (a first index and a count, each a `u32`, within `u32::MAX` in all
/// when checked on the GPU) can tell from more.
pub(super) fn index_count(size: u64, format: IndexFormat) -> u32 {
    u32::try_from(size.checked_div(format.size()).unwrap_or(0)).unwrap_or(u32::MAX)
}

/// What a render pass has bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct RenderState {
    pub binder: Binder,
    /// Checks of the pass's indirect mesh draws, and of its indirect draws on a device
    /// without `drawIndirectFirstInstance`, recorded in front of the pass when it ends.
    pub pass_checks: Vec<super::compute::CheckedArgs>,
    extent: [u32; 2],
    targets: PassTargets,
    vertex: [Option<VertexBinding>; MAX_VERTEX_SLOTS],
    /// Vertex buffer slots set (bit per slot).
    vertex_set: u32,
    /// Vertex buffer slots the bound pipeline reads (bit per slot).
    vertex_needed: u32,
    /// Slots whose ranges a draw checks: stepped per vertex, per instance (elements of
    /// non-zero size).
    vertex_per_vertex: u32,
    vertex_per_instance: u32,
    /// The bound pipeline's vertex buffer layouts, by slot.
    vertex_facts: [crate::render::VertexBufferFacts; MAX_VERTEX_SLOTS],
    /// The bound pipeline is a mesh pipeline.
    mesh: bool,
    index: Option<IndexBinding>,
    /// The bound pipeline's strip index format.
    strip_index_format: Option<IndexFormat>,
    /// Vertex slots and the index buffer changed since their uses went into the scope.
    vertex_touched: u32,
    index_touched: bool,
    /// This pass's number in the recording (from 1): a group whose uses are already in the
    /// scope of this pass is not added again.
    pub pass_id: u64,
    /// A draw of this pass read the texture heap: every later draw of the pass puts the
    /// heap's textures the recording tracks in the pass's scope too, so a texture met
    /// after the read and written in the pass is refused as a conflict (a pass cannot
    /// order the read before the write).
    pub heap_read: bool,
    /// The pass's occlusion queries.
    pub occlusion: super::occlusion::Occlusion,
    /// Queries this pass begins that need a reset first (occlusion queries an earlier pass
    /// of the encoder wrote, every pipeline-statistics query): reset in front of the pass
    /// when it ends, since Vulkan resets queries only outside render passes.
    pub query_resets: Vec<(crate::handle::QuerySet, u32)>,
}

impl RenderState {
    /// The state a render bundle records in: a pass of `targets`, of no particular size
    /// (a bundle sets no scissor).
    pub(super) fn for_bundle(targets: PassTargets) -> RenderState {
        RenderState {
            pass_id: 1,
            extent: [u32::MAX; 2],
            targets,
            ..RenderState::default()
        }
    }

    /// The pass's color formats, depth format, sample count and view mask.
    pub(super) fn targets(&self) -> &PassTargets {
        &self.targets
    }

    /// Forgets the pipeline, bind groups, immediate data, vertex and index buffers, as
    /// WebGPU's `executeBundles` does; what belongs to the pass itself stays.
    pub(super) fn reset_bindings(&mut self) {
        *self = RenderState {
            binder: Binder::default(),
            pass_checks: std::mem::take(&mut self.pass_checks),
            extent: self.extent,
            targets: std::mem::take(&mut self.targets),
            pass_id: self.pass_id,
            heap_read: self.heap_read,
            occlusion: std::mem::take(&mut self.occlusion),
            query_resets: std::mem::take(&mut self.query_resets),
            ..RenderState::default()
        };
    }

    /// The open pass's multiview mask (0 for none).
    pub(crate) fn multiview_mask(&self) -> u32 {
        self.targets.multiview_mask
    }

    /// The indices the bound index range holds (see [`index_count`]), when one is bound.
    pub(super) fn bound_indices(&self) -> Option<u32> {
        self.index.map(|ib| index_count(ib.size, ib.format))
    }

    /// Forgets the index buffer (another was bound natively).
    pub(crate) fn clear_index(&mut self) {
        self.index = None;
    }

    /// Whether a direct, non-indexed draw needs of [`CommandEncoder::prepare_draw`] only
    /// its root pushed: the bound pointer pipeline reads no vertex buffer, no vertex or
    /// index buffer set since the last draw waits to join the pass's scope, and
    /// [`Binder::root_only`] holds.
    #[inline]
    pub(crate) fn root_only(&self) -> bool {
        !self.mesh
            && (self.vertex_needed
                | self.vertex_per_vertex
                | self.vertex_per_instance
                | self.vertex_touched)
                == 0
            && self.binder.root_only()
    }
}

const COLOR: Use = Use {
    stages: Stages::COLOR_ATTACHMENT,
    access: Access::COLOR_READ.union(Access::COLOR_WRITE),
    layout: TextureLayout::ColorAttachment,
};
const DEPTH: Use = Use {
    stages: Stages::DEPTH_STENCIL,
    access: Access::DEPTH_STENCIL_READ.union(Access::DEPTH_STENCIL_WRITE),
    layout: TextureLayout::DepthStencilAttachment,
};
/// Most draws one `multi_draw_indirect` or `multi_draw_indexed_indirect` call records
/// (`render-pass.multi-draw-count`): a bound on what one call may make vigil hold (a
/// checked copy of each draw's arguments where first instances are checked on the GPU)
/// and the driver record (a native draw each without `MULTI_DRAW_INDIRECT`).
pub const MAX_MULTI_DRAW_COUNT: u32 = 1 << 20;

/// A depth-stencil attachment every aspect of which is read-only in the pass: tested
/// against, never written, in the layout the pass's shaders may sample it in.
const DEPTH_READ: Use = Use {
    stages: Stages::DEPTH_STENCIL,
    access: Access::DEPTH_STENCIL_READ,
    layout: TextureLayout::ShaderReadOnly,
};
const VERTEX: Use = Use::buffer(Stages::VERTEX_INPUT, Access::VERTEX_READ);
const INDEX: Use = Use::buffer(Stages::VERTEX_INPUT, Access::INDEX_READ);
const INDIRECT: Use = Use::buffer(Stages::DRAW_INDIRECT, Access::INDIRECT_READ);
const SHADERS: Stages = Stages::VERTEX_SHADER.union(Stages::FRAGMENT_SHADER);

/// Which aspects of a depth-stencil attachment of `format` are read-only in the pass, as
/// WebGPU's `depthReadOnly` and `stencilReadOnly` are (and wgpu's `None` operations): an
/// aspect the format has and the attachment gives no operations for. The third is whether
/// the whole attachment is (every aspect the format has).
fn read_only(format: TextureFormat, d: &RenderPassDepthStencilAttachment) -> (bool, bool, bool) {
    let info = format.info();
    let depth = info.has_depth && d.depth_ops.is_none();
    let stencil = info.has_stencil && d.stencil_ops.is_none();
    (
        depth,
        stencil,
        (depth || !info.has_depth) && (stencil || !info.has_stencil),
    )
}

impl<A: Api> CommandEncoder<A> {
    /// The facts an attachment check needs of a view, after looking it up.
    fn attachment_view(
        &mut self,
        view: TextureView,
        op: &'static str,
    ) -> Result<Arc<crate::device::ViewObj<A>>> {
        let v = find(&mut self.used.views, &self.core, view, op)?.clone();
        let t = &v.texture;
        if !self
            .core
            .objects
            .textures
            .is_live(t.handle.index(), t.handle.generation())
        {
            return Err(validate::texture::texture_destroyed(op, &v.label));
        }
        Ok(v)
    }

    /// Begins a render pass: checks attachments agree in size and sample count and allow
    /// rendering.
    ///
    /// Differs from WebGPU's `beginRenderPass`: no pass object; the pass's commands are
    /// called on the encoder until [`CommandEncoder::end_render_pass`].
    pub fn begin_render_pass(&mut self, desc: &RenderPassDescriptor<'_>) -> Result<()> {
        const OP: &str = "begin_render_pass";
        self.timeline_pass("render pass", desc.label)?;
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            e.core.needs_drawing_queue(OP, &e.label, "a render pass")?;
            let view_mask = desc.multiview_mask.map_or(0, std::num::NonZeroU32::get);
            validate::render_pass::multiview(
                OP,
                &e.label,
                view_mask,
                e.core.features,
                &e.core.limits,
            )?;
            let view_layers = validate::render_pass::multiview_layers(view_mask);
            let any = desc.color_attachments.iter().any(Option::is_some)
                || desc.depth_stencil_attachment.is_some();
            validate::render_pass::attachment_count(
                &e.label,
                desc.color_attachments.len(),
                any,
                &e.core.limits,
            )?;
            let mut views = Vec::with_capacity(desc.color_attachments.len().saturating_add(1));
            let mut shape: Option<([u32; 2], u32)> = None;
            // Each attachment's texture, and of a 3d view the (mip level, slice) it renders:
            // a texture is one attachment, or slices of one volume apart.
            let mut textures: Vec<(usize, Option<(u32, u32)>)> = Vec::new();
            let mut check = |e: &mut Self,
                             view: TextureView,
                             what: &str,
                             depth: bool,
                             slice: Option<u32>|
             -> Result<Arc<crate::device::ViewObj<A>>> {
                let v = e.attachment_view(view, OP)?;
                let facts = validate::render_pass::AttachmentFacts {
                    label: &v.label,
                    usage: v.usage,
                    dimension: v.dimension,
                    mips: v.range.mip_level_count,
                    layers: v.range.array_layer_count,
                    format: v.format,
                    sample_count: v.sample_count,
                    extent: v.extent,
                };
                let tex = Arc::as_ptr(&v.texture) as usize;
                let key = slice
                    .filter(|_| v.dimension == vigil_hal::TextureViewDimension::D3)
                    .map(|z| (v.range.base_mip_level, z));
                let seen = textures
                    .iter()
                    .any(|&(t, k)| t == tex && (k.is_none() || key.is_none() || k == key));
                validate::render_pass::attachment(
                    &e.label,
                    what,
                    &facts,
                    depth,
                    seen,
                    view_layers,
                )?;
                textures.push((tex, key));
                let (extent, samples) = *shape.get_or_insert((v.extent, v.sample_count));
                if !what.starts_with("resolve") {
                    validate::render_pass::same_shape(&e.label, what, &facts, extent, samples)?;
                } else {
                    validate::render_pass::same_shape(&e.label, what, &facts, extent, 1)?;
                }
                Ok(v)
            };
            let mut colors = Vec::with_capacity(desc.color_attachments.len());
            for (i, a) in desc.color_attachments.iter().enumerate() {
                let Some(a) = a else {
                    colors.push(None);
                    continue;
                };
                let what = format!("color attachment {i}");
                let v = check(e, a.view, &what, false, a.depth_slice)?;
                validate::render_pass::depth_slice(
                    &e.label,
                    &what,
                    &v.label,
                    v.dimension,
                    a.depth_slice,
                    v.texture.desc.mip_layers(v.range.base_mip_level),
                )?;
                // A 3d view renders one slice, through a 2D view of it.
                let slice = match a.depth_slice {
                    Some(z) => Some(
                        v.slice(&e.core.hal, z)
                            .map_err(|err| e.core.hal_error(err, OP, &e.label))?,
                    ),
                    None => None,
                };
                let resolve = match a.resolve_target {
                    Some(r) => {
                        let rv = e.attachment_view(r, OP)?;
                        let facts = validate::render_pass::AttachmentFacts {
                            label: &rv.label,
                            usage: rv.usage,
                            dimension: rv.dimension,
                            mips: rv.range.mip_level_count,
                            layers: rv.range.array_layer_count,
                            format: rv.format,
                            sample_count: rv.sample_count,
                            extent: rv.extent,
                        };
                        validate::render_pass::resolve_target(
                            &e.label,
                            i,
                            v.sample_count,
                            v.format,
                            &facts,
                        )?;
                        Some(check(e, r, &format!("resolve target {i}"), false, None)?)
                    }
                    None => None,
                };
                views.push((v.clone(), COLOR));
                if let Some(r) = &resolve {
                    views.push((r.clone(), COLOR));
                }
                colors.push(Some((v, resolve, a.load, a.store, slice)));
            }
            let depth = match &desc.depth_stencil_attachment {
                Some(d) => {
                    let v = check(e, d.view, "depth-stencil attachment", true, None)?;
                    validate::render_pass::aspect_ops(
                        &e.label,
                        v.format,
                        d.depth_ops.is_some(),
                        d.stencil_ops.is_some(),
                    )?;
                    let ro = read_only(v.format, d);
                    views.push((v.clone(), if ro.2 { DEPTH_READ } else { DEPTH }));
                    Some((v, *d, ro))
                }
                None => None,
            };
            // (depth read-only, stencil read-only, the whole attachment read-only)
            let (depth_ro, stencil_ro, all_ro) = depth
                .as_ref()
                .map_or((false, false, false), |&(_, _, ro)| ro);
            for (v, _) in &views {
                let slot = e.used.texture_slot(&v.texture);
                e.check_alias(slot, OP)?;
            }
            let occlusion = e.pass_occlusion_set(desc.occlusion_query_set, view_mask, OP)?;
            let ts = e.prepare_pass_timestamps(desc.timestamp_writes, OP)?;
            if let Some((set, _)) = occlusion {
                e.reset_query_set_once(set, OP)?;
            }
            // The pass goes into a native command buffer of its own.
            e.flush_pending(OP)?;
            e.cut(OP)?;
            e.ensure_open(OP)?;
            // What a pass renders of an attachment: its view's mip, all its view layers.
            let range = |v: &crate::device::ViewObj<A>| Subresources {
                base_mip: v.range.base_mip_level,
                mips: 1,
                base_layer: v.range.base_array_layer,
                layers: view_layers.max(1),
            };
            // Attachments cleared on this recording's first use of them keep nothing of
            // their contents: their barrier comes from `Undefined` after all earlier work,
            // recorded here in front of the pass, and submission has nothing to resolve
            // for them (no barrier in a head of its own in front of the command buffer).
            // (Not a 3d view: its slice is cleared, the level's other slices are kept.)
            let mut overwritten: Vec<(&Arc<crate::device::ViewObj<A>>, Use)> = colors
                .iter()
                .flatten()
                .filter(|(_, _, load, _, slice)| {
                    matches!(load, LoadOp::Clear(_)) && slice.is_none()
                })
                .map(|(v, _, _, _, _)| (v, COLOR))
                .collect();
            if let Some((v, d, _)) = &depth {
                let info = v.format.info();
                let depth_cleared = d
                    .depth_ops
                    .is_some_and(|o| matches!(o.load, LoadOp::Clear(_)));
                let stencil_cleared = d
                    .stencil_ops
                    .is_some_and(|o| matches!(o.load, LoadOp::Clear(_)));
                if (!info.has_depth || depth_cleared) && (!info.has_stencil || stencil_cleared) {
                    overwritten.push((v, DEPTH));
                }
            }
            // Not for aliasable textures (their first uses are checked against the active
            // alias at submission), nor for textures a texture heap names: those must stay
            // in their sampled layout (a command buffer moving one is refused at
            // submission), and a transition recorded here would stand in front of the
            // heap's reads later in the recording.
            overwritten.retain(|(v, _)| {
                !v.texture.placed.as_ref().is_some_and(|p| p.aliasable)
                    && v.texture
                        .heap_slots
                        .load(std::sync::atomic::Ordering::Acquire)
                        == 0
            });
            if !overwritten.is_empty() {
                e.used.next_scope();
                let now = e.used.seq;
                for (v, u) in overwritten {
                    let slot = e.used.texture_slot(&v.texture);
                    let pending = &mut e.pending.textures;
                    if let Some(t) = e.used.tracker.textures.get_mut(slot) {
                        t.track.overwrite(range(v), u, now, |mip, layer, tr| {
                            pending.push((slot, mip, layer, tr));
                        });
                    }
                }
                e.flush_pending(OP)?;
            }
            for (v, u) in &views {
                let slot = e.used.texture_slot(&v.texture);
                // Attachments are distinct textures, or slices of one volume, which use its
                // level alike (checked above): no conflict here.
                let _ = e.scope.texture(slot, range(v), *u);
            }
            let (extent, samples) = shape.unwrap_or(([1, 1], 1));
            {
                let color_hal: Vec<Option<vigil_hal::ColorAttachment<'_, A>>> = colors
                    .iter()
                    .map(|c| {
                        c.as_ref()
                            .map(|(v, r, load, store, slice)| vigil_hal::ColorAttachment {
                                view: slice.as_ref().map_or(&*v.raw, |s| &***s),
                                format: v.format,
                                resolve_target: r.as_ref().map(|r| &*r.raw),
                                load: *load,
                                store: *store,
                            })
                    })
                    .collect();
                let depth_hal = depth
                    .as_ref()
                    .map(|(v, d, _)| vigil_hal::DepthStencilAttachment {
                        view: &*v.raw,
                        format: v.format,
                        read_only: all_ro,
                        depth: d
                            .depth_ops
                            .map_or((LoadOp::Load, StoreOp::Store), |o| (o.load, o.store)),
                        stencil: d
                            .stencil_ops
                            .map_or((LoadOp::Load, StoreOp::Store), |o| (o.load, o.store)),
                    });
                let ts_hal = ts.and_then(|(key, beginning, end)| {
                    let set = e.used.query_sets.get(key.0, key.1)?;
                    Some(vigil_hal::PassTimestampWrites {
                        query_set: &*set.raw,
                        beginning,
                        end,
                    })
                });
                if let Some(pool) = e.pool.as_mut() {
                    let mut r = crate::native::Rec::<A>(pool);
                    r.begin_render_pass(&vigil_hal::RenderPassDescriptor {
                        label: desc.label,
                        extent,
                        color_attachments: &color_hal,
                        depth_stencil_attachment: depth_hal,
                        timestamp_writes: ts_hal,
                        view_mask,
                    });
                    // WebGPU's defaults for the dynamic state a pass may leave unset: every
                    // pipeline reads them, and the driver's own are undefined.
                    r.set_blend_constant([0.0; 4]);
                    r.set_stencil_reference(0);
                }
            }
            e.passes = e.passes.wrapping_add(1);
            e.render = RenderState {
                pass_id: e.passes,
                extent,
                targets: PassTargets {
                    colors: colors
                        .iter()
                        .map(|c| c.as_ref().map(|(v, ..)| v.format))
                        .collect(),
                    depth: depth.as_ref().map(|(v, ..)| v.format),
                    samples,
                    multiview_mask: view_mask,
                    depth_read_only: depth_ro,
                    stencil_read_only: stencil_ro,
                },
                occlusion: super::occlusion::Occlusion::new(occlusion),
                ..RenderState::default()
            };
            e.pass = Pass::Render;
            e.pass_begins_debug();
            e.pass_begins_statistics();
            e.recorded = true;
            Ok(())
        })
    }

    /// Ends the render pass.
    pub fn end_render_pass(&mut self) -> Result<()> {
        const OP: &str = "end_render_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            e.debug_groups_closed(OP, "the pass")?;
            e.occlusion_closed(OP)?;
            e.statistics_closed(OP)?;
            if let (true, Some(pool)) = (e.open, e.pool.as_mut()) {
                let mut r = crate::native::Rec::<A>(pool);
                r.end_render_pass();
                e.core.progress.record(&mut r, Stages::ALL_GRAPHICS);
            }
            e.pass = Pass::None;
            e.scope.apply(&mut e.used, &mut e.pending);
            if !e.pending.is_empty()
                || !e.render.pass_checks.is_empty()
                || !e.render.query_resets.is_empty()
            {
                // The barriers, the checks of the pass's indirect arguments and the resets
                // of occlusion queries it writes again and of the pipeline-statistics
                // queries it begins go in front of the pass, in a command buffer of their
                // own: the pass's ends here.
                e.cut(OP)?;
                let pass = e.segments.pop();
                e.flush_pending(OP)?;
                e.record_pass_checks(OP)?;
                e.record_query_resets(OP)?;
                e.cut(OP)?;
                e.segments.extend(pass);
            }
            // Otherwise the pass's command buffer stays open for what follows (the end of
            // the recording's barrier among it): no native command buffer of its own.
            Ok(())
        })?;
        self.timeline_pass_end()
    }

    /// Records the resets of the queries the ending pass begins
    /// ([`RenderState::query_resets`]), into the native command buffer being recorded (the
    /// one in front of the pass).
    fn record_query_resets(&mut self, op: &'static str) -> Result<()> {
        let resets = std::mem::take(&mut self.render.query_resets);
        if resets.is_empty() {
            return Ok(());
        }
        self.ensure_open(op)?;
        if let Some(pool) = self.pool.as_mut() {
            let mut r = crate::native::Rec::<A>(pool);
            for (set, index) in resets {
                if let Some(q) = self.used.query_sets.get(set.index(), set.generation()) {
                    r.reset_queries(&q.raw, index, 1);
                }
            }
        }
        Ok(())
    }

    /// Binds a render pipeline; its targets, depth format and sample count must match the
    /// pass's attachments.
    pub fn set_render_pipeline(&mut self, pipeline: RenderPipeline) -> Result<()> {
        const OP: &str = "set_render_pipeline";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let key = (pipeline.index(), pipeline.generation());
            // Looked up before the repeat check: a stale or foreign handle equal in slot
            // and generation to the bound pipeline is still refused.
            let p = find(&mut e.used.render_pipelines, &e.core, pipeline, OP)?;
            if e.render.binder.pipeline == Some(key) {
                return Ok(());
            }
            let p = p.clone();
            validate::render_pass::pipeline_targets(
                &e.label,
                &p.label,
                &p.render,
                &e.render.targets,
            )?;
            if let Some(mut r) = e.pool.as_mut().map(crate::native::Rec::<A>) {
                r.set_render_pipeline(&p.raw);
            }
            e.render.binder.set_pipeline(&e.used, key, &p.info);
            e.render.strip_index_format = p.render.strip_index_format;
            e.render.mesh = p.render.mesh.is_some();
            let (mut needed, mut per_vertex, mut per_instance) = (0u32, 0u32, 0u32);
            for (slot, vb) in p.render.vertex_buffers.iter().enumerate() {
                // Pipelines have at most `max_vertex_buffers` (≤ 16) layouts; a slot
                // beyond vigil's 16 would never be set and fails the draw's check.
                let bit = 1u32.checked_shl(slot as u32).unwrap_or(0);
                needed |= if bit == 0 { u32::MAX } else { bit };
                if let Some(f) = e.render.vertex_facts.get_mut(slot) {
                    *f = *vb;
                }
                if vb.element_size > 0 {
                    match vb.step {
                        vigil_hal::VertexStepMode::Vertex => per_vertex |= bit,
                        vigil_hal::VertexStepMode::Instance => per_instance |= bit,
                    }
                }
            }
            e.render.vertex_needed = needed;
            e.render.vertex_per_vertex = per_vertex;
            e.render.vertex_per_instance = per_instance;
            e.used.render_layout = Some(p.info.layout.clone());
            Ok(())
        })
    }

    /// Binds `size` bytes (default: to the end) of `buffer` from `offset` as vertex buffer
    /// `slot`. As WebGPU's `setVertexBuffer`; wgpu's takes a buffer slice instead.
    #[inline(always)]
    pub fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: Buffer,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        if self.set_known_vertex_buffer(slot, buffer, offset, size) {
            return Ok(());
        }
        self.set_vertex_buffer_checked(slot, buffer, offset, size)
    }

    /// [`CommandEncoder::set_vertex_buffer`]'s short path: a buffer met before in this
    /// recording, with nothing destroyed since, set in an open render pass of an encoder
    /// that refused nothing, and every rule of the binding holding
    /// ([`validate::render_pass::vertex_buffer_fits`]). `false` (nothing done) for
    /// anything else, which the checked path decides.
    #[inline(always)]
    fn set_known_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: Buffer,
        offset: u64,
        size: Option<u64>,
    ) -> bool {
        if self.error.is_some() || self.pass != Pass::Render {
            return false;
        }
        let Some((b, tracker_slot)) = self.used.known_buffer(&self.core, buffer) else {
            return false;
        };
        let cap = (self.core.limits.max_vertex_buffers as usize).min(MAX_VERTEX_SLOTS);
        let Some(size) =
            validate::render_pass::vertex_buffer_fits(slot, cap, b.usage, b.size, offset, size)
        else {
            return false;
        };
        let key = (buffer.index(), buffer.generation());
        let Some(v) = self.render.vertex.get_mut(slot as usize) else {
            return false;
        };
        self.calls.enter();
        if let Some(cur) = v {
            if cur.buffer == key && cur.offset == offset && cur.size == size {
                return true;
            }
        }
        *v = Some(VertexBinding {
            buffer: key,
            slot: tracker_slot,
            offset,
            size,
        });
        if let Some(pool) = self.pool.as_mut() {
            crate::native::Rec::<A>(pool).set_vertex_buffer(slot, &b.raw, offset);
        }
        self.render.vertex_touched |= 1 << slot;
        self.render.vertex_set |= 1 << slot;
        true
    }

    /// [`CommandEncoder::set_vertex_buffer`] through [`CommandEncoder::step`], every rule
    /// checked.
    #[inline(never)]
    fn set_vertex_buffer_checked(
        &mut self,
        slot: u32,
        buffer: Buffer,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        const OP: &str = "set_vertex_buffer";
        self.step(OP, move |e| {
            e.expect_pass(Pass::Render, OP)?;
            let cap = (e.core.limits.max_vertex_buffers as usize).min(MAX_VERTEX_SLOTS);
            let (b, tracker_slot) = e.used.buffer_and_slot(&e.core, buffer, OP)?;
            let size =
                validate::render_pass::vertex_buffer(&e.label, slot, cap, b.shape(), offset, size)?;
            let key = (buffer.index(), buffer.generation());
            if let Some(cur) = e.render.vertex.get(slot as usize).copied().flatten() {
                if cur.buffer == key && cur.offset == offset && cur.size == size {
                    return Ok(());
                }
            }
            if let Some(pool) = e.pool.as_mut() {
                crate::native::Rec::<A>(pool).set_vertex_buffer(slot, &b.raw, offset);
            }
            if let Some(v) = e.render.vertex.get_mut(slot as usize) {
                *v = Some(VertexBinding {
                    buffer: key,
                    slot: tracker_slot,
                    offset,
                    size,
                });
            }
            e.render.vertex_touched |= 1 << slot;
            e.render.vertex_set |= 1 << slot;
            Ok(())
        })
    }

    /// Binds the index buffer. Both formats are accepted everywhere, as in WebGPU; a device
    /// is given `FULL_DRAW_INDEX_UINT32` whenever its adapter has it, and on an adapter
    /// without it 32-bit index values above the adapter's `maxDrawIndexedIndexValue`
    /// (2²⁴ − 1 on such hardware) do not draw what they name.
    #[inline(always)]
    pub fn set_index_buffer(
        &mut self,
        buffer: Buffer,
        format: IndexFormat,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        if self.set_known_index_buffer(buffer, format, offset, size) {
            return Ok(());
        }
        self.set_index_buffer_checked(buffer, format, offset, size)
    }

    /// [`CommandEncoder::set_index_buffer`]'s short path, as
    /// [`CommandEncoder::set_vertex_buffer`]'s: a known buffer
    /// ([`validate::render_pass::index_buffer_fits`] holding), else `false` and nothing
    /// done.
    #[inline(always)]
    fn set_known_index_buffer(
        &mut self,
        buffer: Buffer,
        format: IndexFormat,
        offset: u64,
        size: Option<u64>,
    ) -> bool {
        if self.error.is_some() || self.pass != Pass::Render {
            return false;
        }
        let Some((b, slot)) = self.used.known_buffer(&self.core, buffer) else {
            return false;
        };
        let Some(size) =
            validate::render_pass::index_buffer_fits(b.usage, b.size, format, offset, size)
        else {
            return false;
        };
        self.calls.enter();
        if let Some(pool) = self.pool.as_mut() {
            crate::native::Rec::<A>(pool).set_index_buffer(&b.raw, offset, format);
        }
        self.render.index = Some(IndexBinding {
            slot,
            offset,
            size,
            format,
        });
        self.render.index_touched = true;
        true
    }

    /// [`CommandEncoder::set_index_buffer`] through [`CommandEncoder::step`], every rule
    /// checked.
    #[inline(never)]
    fn set_index_buffer_checked(
        &mut self,
        buffer: Buffer,
        format: IndexFormat,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        const OP: &str = "set_index_buffer";
        self.step(OP, move |e| {
            e.expect_pass(Pass::Render, OP)?;
            let (b, slot) = e.used.buffer_and_slot(&e.core, buffer, OP)?;
            let size =
                validate::render_pass::index_buffer(&e.label, b.shape(), format, offset, size)?;
            if let Some(pool) = e.pool.as_mut() {
                crate::native::Rec::<A>(pool).set_index_buffer(&b.raw, offset, format);
            }
            e.render.index = Some(IndexBinding {
                slot,
                offset,
                size,
                format,
            });
            e.render.index_touched = true;
            Ok(())
        })
    }

    /// Sets the viewport and depth range.
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
            validate::render_pass::viewport(
                &e.label,
                [x, y, width, height],
                [min_depth, max_depth],
                &e.core.limits,
            )?;
            if let Some(mut r) = e.rec() {
                r.set_viewport([x, y, width, height], [min_depth, max_depth]);
            }
            Ok(())
        })
    }

    /// Sets the scissor rectangle; it must lie inside the attachments.
    pub fn set_scissor_rect(&mut self, x: u32, y: u32, width: u32, height: u32) -> Result<()> {
        const OP: &str = "set_scissor_rect";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            validate::render_pass::scissor(&e.label, [x, y, width, height], e.render.extent)?;
            if let Some(mut r) = e.rec() {
                r.set_scissor([x, y, width, height]);
            }
            Ok(())
        })
    }

    /// Sets the blend constant.
    pub fn set_blend_constant(&mut self, color: [f32; 4]) -> Result<()> {
        const OP: &str = "set_blend_constant";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            if let Some(mut r) = e.rec() {
                r.set_blend_constant(color);
            }
            Ok(())
        })
    }

    /// Sets the stencil reference.
    pub fn set_stencil_reference(&mut self, reference: u32) -> Result<()> {
        const OP: &str = "set_stencil_reference";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            if let Some(mut r) = e.rec() {
                r.set_stencil_reference(reference);
            }
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
        self.step(OP, move |e| e.draw_in_pass(OP, vertices, instances))
    }

    /// [`CommandEncoder::draw`]'s checks and effect, for `op`.
    #[inline]
    pub(super) fn draw_in_pass(
        &mut self,
        op: &'static str,
        vertices: std::ops::Range<u32>,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        self.expect_pass(Pass::Render, op)?;
        validate::render_pass::range_order(op, &self.label, "vertices", &vertices)?;
        validate::render_pass::range_order(op, &self.label, "instances", &instances)?;
        self.prepare_draw(op, None, Some(&vertices), &instances, false)?;
        if let Some(mut r) = self.rec() {
            r.draw(vertices, instances);
        }
        self.draws = self.draws.wrapping_add(1);
        Ok(())
    }

    /// Draws `indices` of the index buffer, adding `base_vertex` to each, for `instances`.
    #[inline(always)]
    pub fn draw_indexed(
        &mut self,
        indices: std::ops::Range<u32>,
        base_vertex: i32,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw_indexed";
        // The short path: in an open render pass of an encoder that refused nothing, with
        // an index buffer bound and the draw's own rules holding as one yes or no
        // (`validate::render_pass::indexed_fits`), the call's entry (`Calls::enter`) is
        // made here and the draw's state checked as on the checked path (a refusal there
        // latches as `step` would latch it). Anything else takes the checked path.
        if self.error.is_none() && self.pass == Pass::Render {
            if let Some(ib) = self.render.index {
                if validate::render_pass::indexed_fits(
                    &indices,
                    &instances,
                    ib.format,
                    ib.size,
                    self.render.strip_index_format,
                ) {
                    self.calls.enter();
                    if let Err(e) = self.prepare_draw(OP, None, None, &instances, true) {
                        return Err(self.latch(e));
                    }
                    if let Some(mut r) = self.rec() {
                        r.draw_indexed(indices, base_vertex, instances);
                    }
                    self.draws = self.draws.wrapping_add(1);
                    return Ok(());
                }
            }
        }
        self.draw_indexed_checked(indices, base_vertex, instances)
    }

    /// [`CommandEncoder::draw_indexed`] through [`CommandEncoder::step`], every rule
    /// checked.
    #[inline(never)]
    fn draw_indexed_checked(
        &mut self,
        indices: std::ops::Range<u32>,
        base_vertex: i32,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw_indexed";
        self.step(OP, move |e| {
            e.expect_pass(Pass::Render, OP)?;
            let Some(ib) = e.render.index else {
                return Err(fail!(
                    IndexBufferNotSet,
                    OP,
                    &e.label,
                    "no index buffer is set"
                ));
            };
            validate::render_pass::range_order(OP, &e.label, "indices", &indices)?;
            validate::render_pass::range_order(OP, &e.label, "instances", &instances)?;
            validate::render_pass::index_range(OP, &e.label, &indices, ib.format, ib.size)?;
            validate::render_pass::strip_format(
                OP,
                &e.label,
                e.render.strip_index_format,
                ib.format,
            )?;
            e.prepare_draw_apart(OP, None, None, &instances, true)?;
            if let Some(mut r) = e.rec() {
                r.draw_indexed(indices, base_vertex, instances);
            }
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Draws with `(vertex_count, instance_count, first_vertex, first_instance)` read from
    /// `buffer` at `offset`. On a device without `INDIRECT_FIRST_INSTANCE` a first instance
    /// other than 0 makes the draw do nothing (checked on the GPU in front of the pass, as
    /// WebGPU specifies); every device is given the feature when its adapter has it.
    pub fn draw_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect_draw("draw_indirect", buffer, offset, 1, false)
    }

    /// Draws indexed with `(index_count, instance_count, first_index, base_vertex,
    /// first_instance)` read from `buffer` at `offset`; the first instance as for
    /// [`CommandEncoder::draw_indirect`]. Indices `first_index..first_index + index_count`
    /// past the bound index range make the draw do nothing, as WebGPU specifies (reading
    /// them is undefined behaviour in Vulkan without `robustBufferAccess2`): the arguments
    /// are checked on the GPU in front of the pass and the draw reads the checked copy, so
    /// write them before the pass begins (a write inside the pass is not seen).
    pub fn draw_indexed_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect_draw("draw_indexed_indirect", buffer, offset, 1, true)
    }

    /// `count` draws as [`CommandEncoder::draw_indirect`]'s, their 16-byte arguments one
    /// after another from `offset` (wgpu's `multi_draw_indirect`): all of them must lie in
    /// the buffer, and `count` 0 draws nothing. On a device with `MULTI_DRAW_INDIRECT` they
    /// are one native command (per 65,535 draws), elsewhere one per draw; each draw's first
    /// instance is checked as a single indirect draw's is.
    pub fn multi_draw_indirect(&mut self, buffer: Buffer, offset: u64, count: u32) -> Result<()> {
        self.indirect_draw("multi_draw_indirect", buffer, offset, count, false)
    }

    /// `count` indexed draws as [`CommandEncoder::draw_indexed_indirect`]'s, 20 bytes of
    /// arguments each (wgpu's `multi_draw_indexed_indirect`); otherwise as
    /// [`CommandEncoder::multi_draw_indirect`].
    pub fn multi_draw_indexed_indirect(
        &mut self,
        buffer: Buffer,
        offset: u64,
        count: u32,
    ) -> Result<()> {
        self.indirect_draw("multi_draw_indexed_indirect", buffer, offset, count, true)
    }

    /// Up to `max_count` draws as [`CommandEncoder::multi_draw_indirect`]'s, as many as the
    /// `u32` at `count_offset` of `count_buffer` says when the GPU executes the pass (wgpu's
    /// `multi_draw_indirect_count`; Vulkan `vkCmdDrawIndirectCount`). All `max_count` draws'
    /// arguments must lie in `buffer`, and the count's four bytes in `count_buffer` (INDIRECT
    /// usage, `count_offset` a multiple of 4); a count above `max_count` draws `max_count`:
    /// vigil clamps it on the GPU in front of the pass and the draw reads the clamped copy,
    /// since the count is any `u32` a buffer holds and a driver given it as it is may not
    /// finish: on an H100 (driver 580.159.04) a count of `u32::MAX` with a most of 2 lost
    /// the device, where 2^26 drew at once.
    /// Needs `MULTI_DRAW_INDIRECT_COUNT`. On a device without `INDIRECT_FIRST_INSTANCE` each
    /// of the most draws' arguments is checked on the GPU too (a first instance other than
    /// 0 draws nothing), into its own slot of one scratch buffer that the counted draw
    /// reads: at most 1,024 draws per call there (`render-pass.draw-count-checked-most`).
    pub fn multi_draw_indirect_count(
        &mut self,
        buffer: Buffer,
        offset: u64,
        count_buffer: Buffer,
        count_offset: u64,
        max_count: u32,
    ) -> Result<()> {
        self.indirect_draw_at(
            "multi_draw_indirect_count",
            buffer,
            offset,
            max_count,
            Some((count_buffer, count_offset)),
            false,
        )
    }

    /// As [`CommandEncoder::multi_draw_indirect_count`], indexed: 20 bytes of arguments
    /// each, as [`CommandEncoder::draw_indexed_indirect`]'s, each draw's indices checked on
    /// the GPU as its are (wgpu's `multi_draw_indexed_indirect_count`). At most 1,024
    /// draws per call on every device (`render-pass.draw-count-checked-most`): each is
    /// checked into its own slot of one scratch buffer, which the counted draw reads.
    pub fn multi_draw_indexed_indirect_count(
        &mut self,
        buffer: Buffer,
        offset: u64,
        count_buffer: Buffer,
        count_offset: u64,
        max_count: u32,
    ) -> Result<()> {
        self.indirect_draw_at(
            "multi_draw_indexed_indirect_count",
            buffer,
            offset,
            max_count,
            Some((count_buffer, count_offset)),
            true,
        )
    }

    fn indirect_draw(
        &mut self,
        op: &'static str,
        buffer: Buffer,
        offset: u64,
        count: u32,
        indexed: bool,
    ) -> Result<()> {
        self.indirect_draw_at(op, buffer, offset, count, None, indexed)
    }

    /// Indirect draws: `count` of them from `buffer` at `offset`, or with `count_at` (a
    /// buffer and offset) at most `count`, as many as the GPU reads there.
    fn indirect_draw_at(
        &mut self,
        op: &'static str,
        buffer: Buffer,
        offset: u64,
        count: u32,
        count_at: Option<(Buffer, u64)>,
        indexed: bool,
    ) -> Result<()> {
        self.step(op, |e| {
            e.expect_pass(Pass::Render, op)?;
            if count_at.is_some() {
                e.draw_count_allowed(op)?;
            }
            // Indexed: the indices the bound range holds (more than a u32 counts as all a
            // draw's arguments can name, less one).
            let indices = if indexed {
                let Some(ib) = e.render.index else {
                    return Err(fail!(
                        IndexBufferNotSet,
                        op,
                        &e.label,
                        "no index buffer is set"
                    ));
                };
                validate::render_pass::strip_format(
                    op,
                    &e.label,
                    e.render.strip_index_format,
                    ib.format,
                )?;
                Some(index_count(ib.size, ib.format))
            } else {
                None
            };
            let check = super::compute::DrawCheck {
                indices,
                first_instance: e.first_instance_checked(),
            };
            if count > MAX_MULTI_DRAW_COUNT {
                return Err(fail!(
                    MultiDrawCount,
                    op,
                    &e.label,
                    "{count} draws in one call; at most MAX_MULTI_DRAW_COUNT ({MAX_MULTI_DRAW_COUNT}) are recorded per call: split them"
                ));
            }
            let b = find(&mut e.used.buffers, &e.core, buffer, op)?;
            let stride: u64 = if indexed { 20 } else { 16 };
            // At most 2^32 - 1 draws of 20 bytes: no overflow in u64.
            let size = stride.saturating_mul(u64::from(count));
            validate::encoder::indirect(op, &e.label, b.shape(), offset, size)?;
            let whole = b.size;
            let (bi, bg) = (buffer.index(), buffer.generation());
            let slot = e.used.buffer_slot_of(bi, bg);
            // The draw's state is checked whatever the count; no draw, no use of the buffer.
            let uses = (count > 0).then_some((slot, offset, size));
            // The count's buffer, checked and met before the draw's state is.
            // Whether each draw's arguments are checked on the GPU.
            let checked_each = indexed || check.first_instance;
            if count_at.is_some() && checked_each && count > crate::device::indirect::SLOTS {
                return Err(fail!(
                    DrawCountCheckedMost,
                    op,
                    &e.label,
                    "a most of {count} draws whose count is read from a buffer; at most {} are recorded per call where each draw's arguments are checked on the GPU (indexed draws' indices, or first instances on a device without INDIRECT_FIRST_INSTANCE), in front of the pass, into one scratch buffer of that many slots",
                    crate::device::indirect::SLOTS
                ));
            }
            let counted = match count_at {
                Some((cb, at)) => {
                    let c = find(&mut e.used.buffers, &e.core, cb, op)?;
                    validate::encoder::indirect(op, &e.label, c.shape(), at, 4)?;
                    let slot = e.used.buffer_slot_of(cb.index(), cb.generation());
                    Some((cb.index(), cb.generation(), slot, at))
                }
                None => None,
            };
            e.prepare_draw_apart(op, uses, None, &(0..0), indexed)?;
            if let Some((ci, cg, cslot, at)) = counted {
                if count == 0 {
                    return Ok(());
                }
                if e.scope.buffer(cslot, at, 4, INDIRECT).is_err() {
                    return Err(e.conflict(op, "the count buffer"));
                }
                // The count is clamped to `count` on the GPU in front of the pass, and the
                // draw reads the clamped copy: given the count itself, whatever the most, a
                // driver may not finish (u32::MAX lost an H100's device).
                let cwhole = e.used.buffers.get(ci, cg).map_or(0, |c| c.size);
                let ckey = super::used::SourceKey {
                    heap: false,
                    index: ci,
                    generation: cg,
                    base: 0,
                };
                let batch = super::compute::Batch::InPlace;
                // Without the check's pipeline `checked_args` refuses the call.
                e.indirect_check(op)?;
                let checked = e
                    .checked_args(None, cwhole, ckey, at..at.saturating_add(4), batch, op)?
                    .count(count);
                e.render.pass_checks.push(checked);
                // Checked: each of the most draws' arguments is checked into a slot of its
                // own, the slots one after another in one scratch buffer, and the counted
                // draw reads them there at the slots' stride.
                let first = if checked_each {
                    e.used.indirect.room_for(count);
                    let from = e.check_each_draw((bi, bg, whole), offset, count, stride, check, op)?;
                    e.render.pass_checks.get(from).copied()
                } else {
                    None
                };
                let ind = &e.used.indirect;
                let step = e.slot_bytes();
                if let (Some(b), Some(scratch), Some(pool)) = (
                    e.used.buffers.get(bi, bg),
                    ind.leases.get(checked.lease).and_then(|l| l.scratch()),
                    e.pool.as_mut(),
                ) {
                    let mut r = crate::native::Rec::<A>(pool);
                    let slot = u64::from(checked.slot_offset);
                    let args = match first {
                        Some(f) => ind
                            .leases
                            .get(f.lease)
                            .and_then(|l| l.scratch())
                            .map(|a| (&*a.buffer, u64::from(f.slot_offset), step)),
                        None => Some((&*b.raw, offset, 16)),
                    };
                    match (args, indexed) {
                        (Some((args, at, step)), true) => r.draw_indexed_indirect_count(
                            args,
                            at,
                            &scratch.buffer,
                            slot,
                            count,
                            step,
                        ),
                        (Some((args, at, step)), false) => {
                            r.draw_indirect_count(args, at, &scratch.buffer, slot, count, step)
                        }
                        (None, _) => {}
                    }
                }
                e.draws = e.draws.wrapping_add(u64::from(count));
                return Ok(());
            }
            // A render bundle's encoder records nothing natively: the check is made where
            // the bundle is executed. Indexed draws' index ranges are checked on every
            // device, first instances on a device without `INDIRECT_FIRST_INSTANCE`.
            let multi = e
                .core
                .features
                .contains(vigil_hal::Features::MULTI_DRAW_INDIRECT);
            if count > 0 && e.pool.is_some() && checked_each && e.indirect_check(op)? {
                // Each draw's arguments are checked apart, and the draws read their checked
                // copies: with multi-draw, a scratch buffer's worth at a time, their slots
                // one after another, in one native draw; otherwise one native draw each.
                let mut first = 0u32;
                while first < count {
                    let n = crate::device::indirect::SLOTS.min(count.saturating_sub(first));
                    let at = offset.saturating_add(u64::from(first).saturating_mul(stride));
                    if multi {
                        e.used.indirect.room_for(n);
                    }
                    let from = e.check_each_draw((bi, bg, whole), at, n, stride, check, op)?;
                    e.draw_checked_run(from, multi, indexed);
                    first = first.saturating_add(n);
                }
                return Ok(());
            }
            if let (Some(b), Some(pool)) = (e.used.buffers.get(bi, bg), e.pool.as_mut()) {
                let mut r = crate::native::Rec::<A>(pool);
                // Per native command: up to 65,535 draws with the feature (the least
                // maxDrawIndirectCount a device that has it offers), one without.
                let per: u32 = if multi { u32::from(u16::MAX) } else { 1 };
                let mut first = 0u32;
                while first < count {
                    let n = per.min(count.saturating_sub(first));
                    let at = offset.saturating_add(u64::from(first).saturating_mul(stride));
                    if indexed {
                        r.draw_indexed_indirect_multi(&b.raw, at, n, 20);
                    } else {
                        r.draw_indirect_multi(&b.raw, at, n, 16);
                    }
                    first = first.saturating_add(n);
                }
            }
            e.draws = e.draws.wrapping_add(u64::from(count));
            Ok(())
        })
    }

    /// Whether a draw whose count the GPU reads may be recorded: the device has
    /// `MULTI_DRAW_INDIRECT_COUNT`.
    fn draw_count_allowed(&self, op: &'static str) -> Result<()> {
        if !self
            .core
            .features
            .contains(vigil_hal::Features::MULTI_DRAW_INDIRECT_COUNT)
        {
            return Err(fail!(
                DrawCountFeature,
                op,
                &self.label,
                "draws whose count is read from a buffer need the MULTI_DRAW_INDIRECT_COUNT feature, which the device was not opened with"
            ));
        }
        Ok(())
    }

    /// Whether indirect draws' arguments are checked on the GPU: on a device without
    /// `INDIRECT_FIRST_INSTANCE`, where a first instance other than 0 is undefined
    /// behaviour (VUID-VkDrawIndirectCommand-firstInstance-00501), or when a test seam asks.
    pub(super) fn first_instance_checked(&self) -> bool {
        !self
            .core
            .features
            .contains(vigil_hal::Features::INDIRECT_FIRST_INSTANCE)
            || self.core.seams.check_first_instance()
    }

    /// Queues the checks of `count` draws' arguments, `stride` bytes apart from `offset` of
    /// the buffer `(index, generation, size)`, each into a slot of its own, in order (their
    /// slots one after another when the recording made room for them), for the check in
    /// front of the pass. Returns where in the pass's checks the first of them is.
    fn check_each_draw(
        &mut self,
        (index, generation, size): (u32, u32, u64),
        offset: u64,
        count: u32,
        stride: u64,
        check: super::compute::DrawCheck,
        op: &'static str,
    ) -> Result<usize> {
        let key = super::used::SourceKey {
            heap: false,
            index,
            generation,
            base: 0,
        };
        let batch = super::compute::Batch::InPlace;
        let from = self.render.pass_checks.len();
        for i in 0..u64::from(count) {
            let at = offset.saturating_add(i.saturating_mul(stride));
            let args = at..at.saturating_add(stride);
            let checked = self
                .checked_args(None, size, key, args, batch, op)?
                .draw(check);
            self.render.pass_checks.push(checked);
        }
        Ok(from)
    }

    /// Queues `checked` (draw arguments) for the check in front of the pass and draws from
    /// its slot: nothing when the arguments name a first instance other than 0.
    pub(super) fn draw_checked_args(
        &mut self,
        checked: super::compute::CheckedArgs,
        indexed: bool,
    ) {
        self.render.pass_checks.push(checked);
        self.draw_from_slot(checked, indexed);
    }

    /// Draws from `checked`'s slot, one native draw.
    fn draw_from_slot(&mut self, checked: super::compute::CheckedArgs, indexed: bool) {
        self.draw_from_slots(checked, 1, indexed);
    }

    /// Draws from the slots of the pass's checks from `from` on (draw arguments): one
    /// native draw each, or (`multi`: the device has `MULTI_DRAW_INDIRECT`, and their slots
    /// are one after another in one scratch buffer, see
    /// [`IndirectUse::room_for`](super::used::IndirectUse::room_for)) one native multi-draw.
    fn draw_checked_run(&mut self, from: usize, multi: bool, indexed: bool) {
        let checks = self.render.pass_checks.get(from..).unwrap_or(&[]);
        let Some(&first) = checks.first() else { return };
        if !multi {
            for i in from..self.render.pass_checks.len() {
                if let Some(&checked) = self.render.pass_checks.get(i) {
                    self.draw_from_slot(checked, indexed);
                }
            }
            return;
        }
        let n = u32::try_from(checks.len()).unwrap_or(u32::MAX);
        self.draw_from_slots(first, n, indexed);
    }

    /// Draws `n` times from `first`'s slot and the `n - 1` slots after it in its scratch
    /// buffer, in one native command (`n` above 1 only on a device with
    /// `MULTI_DRAW_INDIRECT`).
    fn draw_from_slots(&mut self, first: super::compute::CheckedArgs, n: u32, indexed: bool) {
        // (The stride only for several: a single draw is the common case.)
        let step = if n > 1 { self.slot_bytes() } else { 0 };
        let ind = &self.used.indirect;
        if let (Some(scratch), Some(pool)) = (
            ind.leases.get(first.lease).and_then(|l| l.scratch()),
            self.pool.as_mut(),
        ) {
            let mut r = crate::native::Rec::<A>(pool);
            let at = u64::from(first.slot_offset);
            match (indexed, n) {
                (true, 1) => r.draw_indexed_indirect(&scratch.buffer, at),
                (false, 1) => r.draw_indirect(&scratch.buffer, at),
                (true, _) => r.draw_indexed_indirect_multi(&scratch.buffer, at, n, step),
                (false, _) => r.draw_indirect_multi(&scratch.buffer, at, n, step),
            }
        }
        self.draws = self.draws.wrapping_add(u64::from(n));
    }

    /// [`CommandEncoder::prepare_draw`] out of line, for the draws that are not recorded by
    /// the thousand (indirect draws, and draws whose arguments or indices are heap
    /// addresses): one copy of its code between them.
    #[inline(never)]
    pub(super) fn prepare_draw_apart(
        &mut self,
        op: &'static str,
        indirect: Option<(usize, u64, u64)>,
        vertices: Option<&std::ops::Range<u32>>,
        instances: &std::ops::Range<u32>,
        indexed: bool,
    ) -> Result<()> {
        self.prepare_draw(op, indirect, vertices, instances, indexed)
    }

    /// Checks the draw's state, binds changed groups, checks vertex ranges and adds the
    /// uses that changed to the pass's scope (refusing conflicting ones). Inlined always
    /// into `draw` and `draw_indexed`'s short path (the call, its arguments and its saved
    /// registers were some 60 instructions of the guard's ~920 a draw), and through
    /// `draw_in_pass` into `draw_root`'s checked path; the other draws, and
    /// `draw_indexed`'s checked path, take [`CommandEncoder::prepare_draw_apart`].
    #[inline(always)]
    pub(super) fn prepare_draw(
        &mut self,
        op: &'static str,
        indirect: Option<(usize, u64, u64)>,
        vertices: Option<&std::ops::Range<u32>>,
        instances: &std::ops::Range<u32>,
        indexed: bool,
    ) -> Result<()> {
        if !self.render.binder.ready() {
            return Err(self.not_ready(op));
        }
        if self.render.binder.pointer {
            self.pointer_ready(op)?;
        } else if self.render.heap_read {
            self.heap_reads_clean(op)?;
        }
        if self.render.mesh {
            return Err(self.mesh_pipeline(op));
        }
        let needed = self.render.vertex_needed;
        if self.render.vertex_set & needed != needed {
            return Err(self.vertex_unset(op));
        }
        let mut check = if vertices.is_some() {
            self.render.vertex_per_vertex
        } else {
            0
        };
        if instances.end > instances.start {
            check |= self.render.vertex_per_instance;
        }
        while check != 0 {
            let slot = check.trailing_zeros() as usize;
            check &= check.wrapping_sub(1);
            if let (Some(vb), Some(Some(bound))) = (
                self.render.vertex_facts.get(slot),
                self.render.vertex.get(slot),
            ) {
                validate::render_pass::vertex_range(
                    op,
                    &self.label,
                    slot,
                    vb,
                    bound.size,
                    vertices,
                    instances,
                )?;
            }
        }
        if self.render.binder.needs_flush() {
            if let (Some(pool), Some(layout)) =
                (self.pool.as_mut(), self.used.render_layout.as_ref())
            {
                self.render.binder.flush(
                    &self.used,
                    &layout.raw,
                    &mut crate::native::Rec(pool),
                    BindPoint::Render,
                );
            }
        }
        let touched = self.render.binder.touched & self.render.binder.used_mask();
        if touched != 0 && self.used.tracker.any_retired() {
            self.groups_alias(true, touched, op)?;
        }
        if touched != 0 {
            let mut left = touched;
            while left != 0 {
                let g = left.trailing_zeros() as usize;
                left &= left.wrapping_sub(1);
                // A group without dynamic offsets uses the same ranges every time: once in
                // the pass's scope is enough.
                let info = self.render.binder.groups[g].info;
                let pass = self.render.pass_id;
                let scoped = self.used.group_info.get(info);
                if scoped.is_some_and(|i| i.dynamic == 0 && i.scoped_in == pass) {
                    continue;
                }
                if let Err(what) =
                    self.render
                        .binder
                        .scope_group(&self.used, &mut self.scope, g, SHADERS)
                {
                    return Err(self.conflict(op, &what));
                }
                if let Some(i) = self.used.group_info.get_mut(info) {
                    i.scoped_in = pass;
                }
            }
            self.render.binder.touched &= !touched;
        }
        let mut slots = self.render.vertex_touched;
        while slots != 0 {
            let s = slots.trailing_zeros() as usize;
            slots &= slots.wrapping_sub(1);
            if let Some(v) = self.render.vertex.get(s).copied().flatten() {
                if self.scope.buffer(v.slot, v.offset, v.size, VERTEX).is_err() {
                    return Err(self.conflict(op, "a vertex buffer"));
                }
            }
        }
        self.render.vertex_touched = 0;
        if indexed && self.render.index_touched {
            if let Some(ib) = self.render.index {
                if self
                    .scope
                    .buffer(ib.slot, ib.offset, ib.size, INDEX)
                    .is_err()
                {
                    return Err(self.conflict(op, "the index buffer"));
                }
            }
            self.render.index_touched = false;
        }
        if let Some((slot, offset, size)) = indirect {
            if self.scope.buffer(slot, offset, size, INDIRECT).is_err() {
                return Err(self.conflict(op, "the indirect buffer"));
            }
        }
        Ok(())
    }

    /// The label of the bound render pipeline (for refusals; empty when none is bound).
    fn render_pipeline_label(&self) -> &str {
        self.render
            .binder
            .pipeline
            .and_then(|(i, g)| self.used.render_pipelines.get(i, g))
            .map_or("", |p| p.label.as_str())
    }

    /// The refusal of a draw (not a mesh draw) with a mesh pipeline bound.
    #[cold]
    fn mesh_pipeline(&self, op: &'static str) -> crate::Error {
        let label = self.render_pipeline_label();
        fail!(
            MeshPipeline,
            op,
            &self.label,
            "pipeline '{label}' is a mesh pipeline: draw it with draw_mesh_tasks or draw_mesh_tasks_indirect_at"
        )
    }

    /// The refusal of a draw whose pipeline reads a vertex buffer slot that is not set.
    #[cold]
    fn vertex_unset(&self, op: &'static str) -> crate::Error {
        let missing = self.render.vertex_needed & !self.render.vertex_set;
        let slot = missing.trailing_zeros();
        let label = self.render_pipeline_label();
        fail!(
            VertexBufferNotSet,
            op,
            &self.label,
            "pipeline '{label}' reads vertex buffer slot {slot}, but none is set"
        )
    }

    #[cold]
    pub(super) fn conflict(&self, op: &'static str, what: &str) -> crate::Error {
        fail!(
            PassUsageConflict,
            op,
            &self.label,
            "{what} is both written and used another way in this render pass (as an attachment or read-write storage, and otherwise); a pass cannot order the two"
        )
    }
}
