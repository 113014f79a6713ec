//! Render bundles: draws recorded once, every rule checked as they are recorded, then
//! executed in render passes by recording only their native commands (WebGPU's
//! `GPURenderBundle`).
//!
//! A [`RenderBundleEncoder`] records through an encoder of its own that has no native
//! pool: each call is the render pass call of the same name, with the same rules, against
//! the bundle's attachment formats. What a call would have recorded natively is kept as a
//! command holding the objects it names; the distinct resources the bundle's draws use
//! are kept as that encoder's usage scope merged them. [`CommandEncoder::execute_bundles`]
//! looks at the named objects when something was destroyed since (so a bundle naming a
//! destroyed object is refused), meets the resources, adds their uses to the pass's scope,
//! holds the bundle, and records the commands: per draw, the driver's calls and nothing of
//! vigil's checks.

use super::render::RenderState;
use super::{CommandEncoder, Pass};
use crate::DefaultApi;
use crate::device::{
    BindGroupObj, BufferObj, Core, Device, Member, PipelineLayoutObj, RenderPipelineObj,
    TextureObj, TlasObj,
};
use crate::error::{Result, fail};
use crate::handle::{BindGroup, Buffer, Handle, RenderBundle, RenderPipeline};
use crate::label::Label;
use crate::registry::Labelled;
use crate::track::{Subresources, Use};
use crate::validate::{self, render_pass::PassTargets};
use std::ops::Range;
use std::sync::Arc;
use vigil_hal::{Api, BindPoint, IndexFormat, TextureFormat};

/// How to make a [`RenderBundleEncoder`]: the attachments of the render passes its bundle
/// will execute in. As WebGPU's `GPURenderBundleEncoderDescriptor` (wgpu's
/// `RenderBundleDepthStencil` flattened into `depth_stencil_format` and the two read-only
/// flags).
#[derive(Clone, Copy, Debug)]
pub struct RenderBundleEncoderDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// The passes' color attachment formats, by index.
    pub color_formats: &'a [Option<TextureFormat>],
    /// The passes' depth-stencil attachment format.
    pub depth_stencil_format: Option<TextureFormat>,
    /// The passes' sample count (1 or 4).
    pub sample_count: u32,
    /// The passes' multiview mask (needs the `MULTIVIEW` feature).
    pub multiview_mask: Option<std::num::NonZeroU32>,
    /// The bundle writes no depth: its pipelines may not (`render-pass.depth-read-only`),
    /// and it may execute in passes whose depth is read-only. Without it, such passes
    /// refuse the bundle (`render-pass.bundle-read-only`).
    pub depth_read_only: bool,
    /// The bundle writes no stencil, as `depth_read_only` is for depth.
    pub stencil_read_only: bool,
}

impl Default for RenderBundleEncoderDescriptor<'_> {
    fn default() -> Self {
        RenderBundleEncoderDescriptor {
            label: "",
            color_formats: &[],
            depth_stencil_format: None,
            sample_count: 1,
            multiview_mask: None,
            depth_read_only: false,
            stencil_read_only: false,
        }
    }
}

/// One native command of a bundle, holding the objects it names.
enum Cmd<A: Api> {
    Pipeline(Arc<RenderPipelineObj<A>>),
    Immediates {
        layout: Arc<PipelineLayoutObj<A>>,
        data: Box<[u8]>,
    },
    Group {
        index: u32,
        group: Arc<BindGroupObj<A>>,
        layout: Arc<PipelineLayoutObj<A>>,
        offsets: Box<[u32]>,
    },
    Vertex {
        slot: u32,
        buffer: Arc<BufferObj<A>>,
        offset: u64,
    },
    Index {
        buffer: Arc<BufferObj<A>>,
        offset: u64,
        format: IndexFormat,
    },
    Draw {
        vertices: Range<u32>,
        instances: Range<u32>,
    },
    DrawIndexed {
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    },
    /// An indirect draw reading its arguments from `buffer` at `offset`; indexed: `Some` of
    /// the indices the index range bound for it holds.
    DrawIndirect {
        buffer: Arc<BufferObj<A>>,
        offset: u64,
        indices: Option<u32>,
    },
    /// A debug group opened, with its label.
    PushDebugGroup(Box<str>),
    /// The debug group opened last closed.
    PopDebugGroup,
    /// A debug marker, with its label.
    InsertDebugMarker(Box<str>),
}

/// A buffer range a bundle's draws read: `(buffer, offset, size, use)`.
type BufferUse = (Buffer, u64, u64, Use);
/// Texture subresources a bundle's draws use, and how.
type TextureUse<A> = (Arc<TextureObj<A>>, Subresources, Use);

/// A finished render bundle.
pub(crate) struct RenderBundleObj<A: Api> {
    pub handle: RenderBundle,
    pub label: Label,
    targets: PassTargets,
    cmds: Box<[Cmd<A>]>,
    draws: u64,
    /// How many of the commands are indirect draws (indexed ones checked on the GPU where
    /// the bundle is executed, and every one on a device that checks indirect draws' first
    /// instances).
    indirect: usize,
    /// Whether one of the indirect draws is indexed.
    indexed_indirect: bool,
    /// The pipelines and groups named (those its commands bind), for the checks that
    /// they are still live.
    pipeline_objs: Box<[Arc<RenderPipelineObj<A>>]>,
    group_objs: Box<[Arc<BindGroupObj<A>>]>,
    /// The distinct resources the draws use, merged as the pass's scope merges them:
    /// what an execution puts in the executing pass's scope.
    buffer_uses: Box<[BufferUse]>,
    texture_uses: Box<[TextureUse<A>]>,
    /// The acceleration structures the groups bind (each must be built before the work
    /// that executes the bundle runs).
    tlas_uses: Box<[Arc<TlasObj<A>>]>,
    /// The device's destroy epoch when the bundle was finished with every object it names
    /// live (`u64::MAX` when one was not): while the device's has not moved, an execution
    /// need not look at them.
    epoch: u64,
}

impl<A: Api> RenderBundleObj<A> {
    /// Refuses (with the stale-handle rule, naming it) the first object the bundle names
    /// that is no longer live: its pipelines, groups, the groups' members and the buffers
    /// its draws use.
    fn check_live(&self, core: &Core<A>, op: &'static str) -> Result<()> {
        named_live(
            core,
            &self.pipeline_objs,
            &self.group_objs,
            &self.buffer_uses,
            op,
        )
    }

    /// The first object the bundle names that is no longer live, as the refusal a
    /// submission that executed the bundle makes (`None` while all are).
    pub(crate) fn gone(&self, core: &Core<A>) -> Option<crate::Error> {
        self.check_live(core, "submit").err()
    }
}

/// [`RenderBundleObj::check_live`] over the pipelines, groups and buffers a bundle
/// names.
fn named_live<A: Api>(
    core: &Core<A>,
    pipelines: &[Arc<RenderPipelineObj<A>>],
    groups: &[Arc<BindGroupObj<A>>],
    buffers: &[BufferUse],
    op: &'static str,
) -> Result<()> {
    {
        let o = &core.objects;
        for p in pipelines.iter() {
            if !o
                .render_pipelines
                .is_live(p.handle.index(), p.handle.generation())
            {
                return Err(o.render_pipelines.explain(p.handle, core.id, op));
            }
        }
        for g in groups.iter() {
            if !o
                .bind_groups
                .is_live(g.handle.index(), g.handle.generation())
            {
                return Err(o.bind_groups.explain(g.handle, core.id, op));
            }
            for m in g.members.iter() {
                let gone = match m {
                    Member::Buffer { buffer, .. } => (!o
                        .buffers
                        .is_live(buffer.handle.index(), buffer.handle.generation()))
                    .then(|| o.buffers.explain(buffer.handle, core.id, op)),
                    Member::View { view, .. } => {
                        if !o
                            .views
                            .is_live(view.handle.index(), view.handle.generation())
                        {
                            Some(o.views.explain(view.handle, core.id, op))
                        } else {
                            let t = &view.texture.handle;
                            (!o.textures.is_live(t.index(), t.generation()))
                                .then(|| o.textures.explain(*t, core.id, op))
                        }
                    }
                    Member::Sampler(s) => {
                        (!o.samplers.is_live(s.handle.index(), s.handle.generation()))
                            .then(|| o.samplers.explain(s.handle, core.id, op))
                    }
                    Member::Tlas(t) => (!o.tlas.is_live(t.handle.index(), t.handle.generation()))
                        .then(|| o.tlas.explain(t.handle, core.id, op)),
                };
                if let Some(e) = gone {
                    return Err(e);
                }
            }
        }
        for &(b, ..) in buffers.iter() {
            if !o.buffers.is_live(b.index(), b.generation()) {
                return Err(o.buffers.explain(b, core.id, op));
            }
        }
        Ok(())
    }
}

impl<A: Api> Labelled for RenderBundleObj<A> {
    fn label(&self) -> &Label {
        &self.label
    }
}

/// Records draws into a [`RenderBundle`]: the render pass calls that set state and draw,
/// each checked as in a pass whose attachments are the descriptor's. Like an encoder, it
/// refuses every call after one it refused, and then refuses to finish. Made by
/// [`Device::create_render_bundle_encoder`]; `Send`, so it can record on any thread.
///
/// What a bundle records: pipelines that draw from vertex and index buffers, bind groups
/// and immediate data (no mesh or GPU-pointer pipelines: rule `render-bundle.pipeline`),
/// bind groups with their dynamic offsets, immediate data, vertex and index buffers,
/// direct draws and indirect draws, debug groups and markers. Viewports, scissors, blend
/// constants and stencil references are not recorded in bundles: they are the pass's, as
/// in WebGPU.
pub struct RenderBundleEncoder<A: Api = DefaultApi> {
    inner: CommandEncoder<A>,
    cmds: Vec<Cmd<A>>,
}

impl<A: Api> std::fmt::Debug for RenderBundleEncoder<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderBundleEncoder")
            .field("label", &self.inner.label)
            .field("poisoned", &self.inner.error.is_some())
            .finish()
    }
}

impl<A: Api> Device<A> {
    /// Creates a render bundle encoder for passes with the descriptor's attachments.
    ///
    /// As WebGPU's `createRenderBundleEncoder`; see [`RenderBundleEncoder`] for what a
    /// bundle records.
    pub fn create_render_bundle_encoder(
        &self,
        desc: &RenderBundleEncoderDescriptor<'_>,
    ) -> Result<RenderBundleEncoder<A>> {
        const OP: &str = "create_render_bundle_encoder";
        self.check_alive(OP)?;
        self.needs_drawing_queue(OP, desc.label, "a render bundle")?;
        validate::render_pass::bundle_descriptor(
            desc.label,
            desc.color_formats,
            desc.depth_stencil_format,
            desc.sample_count,
            &self.limits,
            &|f| self.format_support(f),
        )?;
        let mask = desc.multiview_mask.map_or(0, std::num::NonZeroU32::get);
        validate::render_pass::multiview(OP, desc.label, mask, self.features, &self.limits)?;
        let mut inner = self.encoder_with(desc.label, None);
        inner.pass = Pass::Render;
        inner.render = RenderState::for_bundle(PassTargets {
            colors: desc.color_formats.to_vec(),
            depth: desc.depth_stencil_format,
            samples: desc.sample_count,
            multiview_mask: mask,
            depth_read_only: desc.depth_read_only,
            stencil_read_only: desc.stencil_read_only,
        });
        Ok(RenderBundleEncoder {
            inner,
            cmds: Vec::new(),
        })
    }

    /// Destroys a render bundle. The objects it holds are released when nothing else
    /// holds them (a submission that executed it holds them until it completes).
    pub fn destroy_render_bundle(&self, bundle: RenderBundle) -> Result<()> {
        drop(self.remove(bundle, "destroy_render_bundle")?);
        Ok(())
    }
}

impl<A: Api> RenderBundleEncoder<A> {
    /// The encoder's label.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// Whether an earlier call was refused (every later call, and `finish`, is refused
    /// too).
    pub fn is_poisoned(&self) -> bool {
        self.inner.error.is_some()
    }

    /// Sets the render pipeline, as [`CommandEncoder::set_render_pipeline`]; its targets
    /// must be the bundle's, and it must be neither a mesh nor a GPU-pointer pipeline
    /// (`render-bundle.pipeline`).
    pub fn set_render_pipeline(&mut self, pipeline: RenderPipeline) -> Result<()> {
        const OP: &str = "set_render_pipeline";
        if self.inner.error.is_none() {
            if let Ok(p) = self.inner.core.lookup(pipeline, OP) {
                let kind = if p.render.mesh.is_some() {
                    Some("a mesh pipeline")
                } else if p.info.pointer {
                    Some("a GPU-pointer pipeline")
                } else {
                    None
                };
                if let Some(kind) = kind {
                    let e = fail!(
                        BundlePipeline,
                        OP,
                        &self.inner.label,
                        "pipeline '{}' is {kind}; a render bundle records no mesh draws or roots",
                        p.label
                    );
                    return Err(self.inner.latch(e));
                }
            }
        }
        self.inner.set_render_pipeline(pipeline)?;
        let (i, g) = (pipeline.index(), pipeline.generation());
        if let Some(p) = self.inner.used.render_pipelines.get(i, g) {
            self.cmds.push(Cmd::Pipeline(p.clone()));
        }
        Ok(())
    }

    /// Sets bind group `index`, as [`CommandEncoder::set_bind_group`].
    pub fn set_bind_group(
        &mut self,
        index: u32,
        group: BindGroup,
        dynamic_offsets: &[u32],
    ) -> Result<()> {
        // Bound natively by the next draw that uses it, as in a pass.
        self.inner.set_bind_group(index, group, dynamic_offsets)
    }

    /// Sets immediate data from byte `offset`, as [`CommandEncoder::set_immediates`]. A
    /// bundle's immediate data starts as zeros.
    pub fn set_immediates(&mut self, offset: u32, data: &[u8]) -> Result<()> {
        self.inner.set_immediates(offset, data)
    }

    /// Sets vertex buffer `slot`, as [`CommandEncoder::set_vertex_buffer`].
    pub fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: Buffer,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        self.inner.set_vertex_buffer(slot, buffer, offset, size)?;
        if let Some(b) = self
            .inner
            .used
            .buffers
            .get(buffer.index(), buffer.generation())
        {
            self.cmds.push(Cmd::Vertex {
                slot,
                buffer: b.clone(),
                offset,
            });
        }
        Ok(())
    }

    /// Sets the index buffer, as [`CommandEncoder::set_index_buffer`].
    pub fn set_index_buffer(
        &mut self,
        buffer: Buffer,
        format: IndexFormat,
        offset: u64,
        size: Option<u64>,
    ) -> Result<()> {
        self.inner.set_index_buffer(buffer, format, offset, size)?;
        if let Some(b) = self
            .inner
            .used
            .buffers
            .get(buffer.index(), buffer.generation())
        {
            self.cmds.push(Cmd::Index {
                buffer: b.clone(),
                offset,
                format,
            });
        }
        Ok(())
    }

    /// Opens a debug group, as [`CommandEncoder::push_debug_group`]: closed before the
    /// bundle finishes (`encoder.debug-group-open`). Executing the bundle records it
    /// inside the pass.
    pub fn push_debug_group(&mut self, label: &str) -> Result<()> {
        self.inner.push_debug_group(label)?;
        self.cmds.push(Cmd::PushDebugGroup(label.into()));
        Ok(())
    }

    /// Closes the debug group the bundle opened last, as
    /// [`CommandEncoder::pop_debug_group`] (`encoder.debug-group-empty`).
    pub fn pop_debug_group(&mut self) -> Result<()> {
        self.inner.pop_debug_group()?;
        self.cmds.push(Cmd::PopDebugGroup);
        Ok(())
    }

    /// Marks a point between the bundle's commands, as
    /// [`CommandEncoder::insert_debug_marker`].
    pub fn insert_debug_marker(&mut self, label: &str) -> Result<()> {
        self.inner.insert_debug_marker(label)?;
        self.cmds.push(Cmd::InsertDebugMarker(label.into()));
        Ok(())
    }

    /// Draws, as [`CommandEncoder::draw`].
    pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<()> {
        let dirty = self.groups_to_bind();
        self.inner.draw(vertices.clone(), instances.clone())?;
        self.after_draw(dirty);
        self.cmds.push(Cmd::Draw {
            vertices,
            instances,
        });
        Ok(())
    }

    /// Draws indexed, as [`CommandEncoder::draw_indexed`].
    pub fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<()> {
        let dirty = self.groups_to_bind();
        self.inner
            .draw_indexed(indices.clone(), base_vertex, instances.clone())?;
        self.after_draw(dirty);
        self.cmds.push(Cmd::DrawIndexed {
            indices,
            base_vertex,
            instances,
        });
        Ok(())
    }

    /// Draws with `(vertex_count, instance_count, first_vertex, first_instance)` read from
    /// `buffer` at `offset`, as [`CommandEncoder::draw_indirect`]. On a device that checks
    /// indirect draws' first instances on the GPU (one without `INDIRECT_FIRST_INSTANCE`),
    /// each execution of the bundle checks them in front of its pass, as a pass's own
    /// indirect draw is checked.
    pub fn draw_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect(buffer, offset, false)
    }

    /// Draws indexed with `(index_count, instance_count, first_index, base_vertex,
    /// first_instance)` read from `buffer` at `offset`, as
    /// [`CommandEncoder::draw_indexed_indirect`]; checked as
    /// [`RenderBundleEncoder::draw_indirect`]'s arguments are.
    pub fn draw_indexed_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        self.indirect(buffer, offset, true)
    }

    fn indirect(&mut self, buffer: Buffer, offset: u64, indexed: bool) -> Result<()> {
        let dirty = self.groups_to_bind();
        let indices = if indexed {
            self.inner.draw_indexed_indirect(buffer, offset)?;
            self.inner.render.bound_indices()
        } else {
            self.inner.draw_indirect(buffer, offset)?;
            None
        };
        self.after_draw(dirty);
        if let Some(b) = self
            .inner
            .used
            .buffers
            .get(buffer.index(), buffer.generation())
        {
            self.cmds.push(Cmd::DrawIndirect {
                buffer: b.clone(),
                offset,
                indices,
            });
        }
        Ok(())
    }

    /// The groups the next draw binds natively (read before the draw: the bits stay set,
    /// as the inner encoder has no native recording to flush them in).
    fn groups_to_bind(&self) -> u8 {
        let b = &self.inner.render.binder;
        b.dirty & b.used_mask()
    }

    /// Keeps, after a draw the inner encoder accepted, the immediate data and group binds
    /// it needs natively. What the draw uses is in the inner encoder's scope.
    fn after_draw(&mut self, dirty: u8) {
        let e = &mut self.inner;
        let layout = e.used.render_layout.clone();
        // Pushed before the groups are bound, as a pass's flush does.
        if let (Some(data), Some(layout)) = (e.render.binder.take_immediates(), layout.as_ref()) {
            self.cmds.push(Cmd::Immediates {
                layout: layout.clone(),
                data,
            });
        }
        for g in 0..super::binder::MAX_GROUPS {
            if dirty & (1u8 << g) == 0 {
                continue;
            }
            let Some(bound) = e.render.binder.groups.get(g) else {
                continue;
            };
            let Some((gi, gg)) = bound.group else {
                continue;
            };
            if let (Some(group), Some(layout)) = (e.used.groups.get(gi, gg), layout.as_ref()) {
                self.cmds.push(Cmd::Group {
                    index: g as u32,
                    group: group.clone(),
                    layout: layout.clone(),
                    offsets: bound
                        .offsets
                        .get(..bound.offset_count as usize)
                        .unwrap_or(&[])
                        .into(),
                });
            }
        }
        e.render.binder.dirty &= !dirty;
    }

    /// Finishes the bundle. Refused when a call was refused (the encoder is poisoned), or
    /// while a debug group it opened is open (`encoder.debug-group-open`).
    pub fn finish(self) -> Result<RenderBundle> {
        const OP: &str = "finish";
        let e = &self.inner;
        if let Some(first) = &e.error {
            return Err(e.poisoned(first, OP));
        }
        e.debug_groups_closed(OP, "the render bundle")?;
        e.core.check_alive(OP)?;
        let core = e.core.clone();
        let label = e.label.clone();
        let RenderBundleEncoder { inner, cmds } = self;
        let targets = inner.render.targets().clone();
        let draws = inner.draws;
        let indirect = cmds
            .iter()
            .filter(|c| matches!(c, Cmd::DrawIndirect { .. }))
            .count();
        let indexed_indirect = cmds.iter().any(|c| {
            matches!(
                c,
                Cmd::DrawIndirect {
                    indices: Some(_),
                    ..
                }
            )
        });
        // What the draws used, merged by the recording's scope, by handle and object.
        let tracker = &inner.used.tracker;
        let buffer_uses: Box<[BufferUse]> = inner
            .scope
            .buffer_uses()
            .iter()
            .filter_map(|&(slot, start, end, u)| {
                let t = tracker.buffers.get(slot)?;
                Some((t.obj.handle, start, end.saturating_sub(start), u))
            })
            .collect();
        let texture_uses: Box<[_]> = inner
            .scope
            .texture_uses()
            .filter_map(|(slot, range, u)| {
                let t = tracker.textures.get(slot)?;
                Some((t.obj.clone(), range, u))
            })
            .collect();
        // The pipelines and groups named: those the commands bind (every group a draw
        // used was bound natively by a draw), each once.
        let mut pipeline_objs: Vec<Arc<RenderPipelineObj<A>>> = Vec::new();
        let mut group_objs: Vec<Arc<BindGroupObj<A>>> = Vec::new();
        for c in &cmds {
            match c {
                Cmd::Pipeline(p) if !pipeline_objs.iter().any(|x| Arc::ptr_eq(x, p)) => {
                    pipeline_objs.push(p.clone());
                }
                Cmd::Group { group, .. } if !group_objs.iter().any(|x| Arc::ptr_eq(x, group)) => {
                    group_objs.push(group.clone());
                }
                _ => {}
            }
        }
        let mut tlas_uses: Vec<Arc<TlasObj<A>>> = Vec::new();
        for g in group_objs.iter() {
            for m in g.members.iter() {
                if let Member::Tlas(t) = m {
                    if !tlas_uses.iter().any(|x| Arc::ptr_eq(x, t)) {
                        tlas_uses.push(t.clone());
                    }
                }
            }
        }
        // Every object named live now (nothing destroyed since recording began, else each
        // looked at, after the epoch is read): executions while the epoch stays need no
        // look. Else they look, and refuse naming what went.
        let epoch = if inner.used.unchanged(&core) {
            inner.used.epoch
        } else {
            let now = core
                .destroy_epoch
                .load(std::sync::atomic::Ordering::Acquire);
            match named_live(&core, &pipeline_objs, &group_objs, &buffer_uses, OP) {
                Ok(()) => now,
                Err(_) => u64::MAX,
            }
        };
        drop(inner);
        let (_, _, obj) = core
            .objects
            .render_bundles
            .insert(|index, generation| RenderBundleObj {
                handle: RenderBundle::from_parts(index, generation, core.id),
                label: Label::new(&label),
                targets,
                cmds: cmds.into_boxed_slice(),
                draws,
                indirect,
                indexed_indirect,
                pipeline_objs: pipeline_objs.into_boxed_slice(),
                group_objs: group_objs.into_boxed_slice(),
                buffer_uses,
                texture_uses,
                tlas_uses: tlas_uses.into_boxed_slice(),
                epoch,
            })
            .ok_or_else(|| crate::device::registry_full(OP, &label, "render bundle"))?;
        Ok(obj.handle)
    }
}

impl<A: Api> CommandEncoder<A> {
    /// Executes render bundles in the open render pass, in order. Each must have been
    /// made for the pass's attachments (`render-pass.bundle-targets`), and everything it
    /// names must still be live; its resources join the pass's usage scope. Afterwards
    /// the pass has no pipeline, bind groups, vertex or index buffers set (as WebGPU's
    /// `executeBundles`); its viewport, scissor, blend constant and stencil reference
    /// stay, and the bundles' draws use them.
    pub fn execute_bundles(&mut self, bundles: &[RenderBundle]) -> Result<()> {
        const OP: &str = "execute_bundles";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            for &h in bundles {
                let b = e.core.lookup(h, OP)?;
                validate::render_pass::bundle_targets(
                    &e.label,
                    &b.label,
                    &b.targets,
                    e.render.targets(),
                )?;
                e.bundle_uses(&b, OP)?;
                let checks = e.bundle_checks(&b, OP)?;
                e.replay(&b, &checks);
                e.draws = e.draws.wrapping_add(b.draws);
            }
            if e.render.heap_read {
                // The pass's draws read the texture heap: the bundles' textures, met now,
                // join its scope as a draw's would.
                e.heap_reads_clean(OP)?;
            }
            e.render.reset_bindings();
            e.used.render_layout = None;
            e.recorded = true;
            Ok(())
        })
    }

    /// Meets what bundle `b` names and adds its uses to the pass's scope: its objects are
    /// looked at only if something was destroyed since it was finished; its distinct
    /// resources are met and scoped, its acceleration structures noted as needed built,
    /// and the recording holds the bundle (and so everything it names) until its
    /// submission completes.
    fn bundle_uses(&mut self, b: &Arc<RenderBundleObj<A>>, op: &'static str) -> Result<()> {
        if self
            .core
            .destroy_epoch
            .load(std::sync::atomic::Ordering::Acquire)
            != b.epoch
        {
            b.check_live(&self.core, op)?;
        }
        for &(buffer, offset, size, u) in b.buffer_uses.iter() {
            let (_, slot) = self.used.buffer_and_slot(&self.core, buffer, op)?;
            if self.scope.buffer(slot, offset, size, u).is_err() {
                let what = format!(
                    "buffer '{}' of the bundle",
                    self.used
                        .tracker
                        .buffers
                        .get(slot)
                        .map_or("", |t| t.obj.label.as_str())
                );
                return Err(self.conflict(op, &what));
            }
        }
        for (texture, range, u) in b.texture_uses.iter() {
            let slot = self.used.texture_slot(texture);
            if let Some(label) = self.used.tracker.retired(slot) {
                return Err(fail!(
                    PlacementInactiveAlias,
                    op,
                    &self.label,
                    "the bundle uses texture '{label}', which is inactive: an alias sharing its bytes was activated, or used, earlier in this encoder; activate '{label}' to use it"
                ));
            }
            if self.scope.texture(slot, *range, *u).is_err() {
                let what = format!("texture '{}' of the bundle", texture.label);
                return Err(self.conflict(op, &what));
            }
        }
        for t in b.tlas_uses.iter() {
            // Its first use in this recording: it must be built by then.
            self.used.accel.need_tlas(t);
        }
        if !self.used.bundles.iter().any(|h| Arc::ptr_eq(h, b)) {
            self.used.bundles.push(b.clone());
        }
        Ok(())
    }

    /// Where bundle `b`'s checked indirect draws read their checked arguments, in order:
    /// its indexed ones, and on a device that checks indirect draws' first instances on
    /// the GPU every one (empty when none is checked). Each draw's check joins the pass's,
    /// in front of it, as a pass's own indirect draw does. Taken before any of the
    /// bundle's commands is recorded natively: a refusal (no scratch memory) records none
    /// of them (and, as every refusal, poisons the encoder).
    fn bundle_checks(
        &mut self,
        b: &RenderBundleObj<A>,
        op: &'static str,
    ) -> Result<Vec<super::compute::CheckedArgs>> {
        let first_instance = self.first_instance_checked();
        if b.indirect == 0 || !(b.indexed_indirect || first_instance) || !self.indirect_check(op)? {
            return Ok(Vec::new());
        }
        let mut checks = Vec::with_capacity(b.indirect);
        for c in b.cmds.iter() {
            let Cmd::DrawIndirect {
                buffer,
                offset,
                indices,
            } = c
            else {
                continue;
            };
            if indices.is_none() && !first_instance {
                // Nothing of it to check: drawn from the bundle's own arguments.
                continue;
            }
            let check = super::compute::DrawCheck {
                indices: *indices,
                first_instance,
            };
            let key = super::used::SourceKey {
                heap: false,
                index: buffer.handle.index(),
                generation: buffer.handle.generation(),
                base: 0,
            };
            let size = if indices.is_some() { 20 } else { 16 };
            let range = *offset..offset.saturating_add(size);
            let at = self
                .checked_args(
                    None,
                    buffer.size,
                    key,
                    range,
                    super::compute::Batch::InPlace,
                    op,
                )?
                .draw(check);
            checks.push(at);
        }
        self.render.pass_checks.extend_from_slice(&checks);
        Ok(checks)
    }

    /// Records bundle `b`'s native commands; its indirect draws read from `checks` where
    /// their arguments are checked (see [`CommandEncoder::bundle_checks`]).
    fn replay(&mut self, b: &RenderBundleObj<A>, checks: &[super::compute::CheckedArgs]) {
        if !self.open {
            return;
        }
        let first_instance = self.first_instance_checked();
        let Some(pool) = self.pool.as_mut() else {
            return;
        };
        let mut r = crate::native::Rec::<A>(pool);
        if checks.is_empty() {
            // The usual loop: an indirect draw reads the bundle's own argument buffer, and
            // the loop carries nothing of the checks.
            for c in b.cmds.iter() {
                replay_one(&mut r, c, |buffer, offset, _| Some((&*buffer.raw, offset)));
            }
            return;
        }
        let leases = &self.used.indirect.leases;
        let mut checks = checks.iter();
        for c in b.cmds.iter() {
            // Checked (every indexed draw; every draw where first instances are): from the
            // check's slot of the scratch buffer, which holds the arguments, or nothing
            // drawn where they name indices past the bound range or another first instance.
            replay_one(&mut r, c, |buffer, offset, indexed| {
                if !indexed && !first_instance {
                    return Some((&*buffer.raw, offset));
                }
                let c = checks.next()?;
                let s = leases.get(c.lease).and_then(|l| l.scratch())?;
                Some((&*s.buffer, u64::from(c.slot_offset)))
            });
        }
    }
}

/// Records one command of a bundle; an indirect draw reads where `indirect` says (given
/// the bundle's argument buffer and offset, and whether the draw is indexed; `None`: not
/// drawn).
#[inline(always)]
fn replay_one<'a, A: Api>(
    r: &mut crate::native::Rec<'_, A>,
    c: &'a Cmd<A>,
    mut indirect: impl FnMut(&'a BufferObj<A>, u64, bool) -> Option<(&'a A::Buffer, u64)>,
) {
    match c {
        Cmd::Pipeline(p) => r.set_render_pipeline(&p.raw),
        Cmd::Immediates { layout, data } => r.set_immediates(&layout.raw, data),
        Cmd::Group {
            index,
            group,
            layout,
            offsets,
        } => r.set_bind_group(
            BindPoint::Render,
            &layout.raw,
            *index,
            A::bind_group_key(&group.raw),
            offsets,
        ),
        Cmd::Vertex {
            slot,
            buffer,
            offset,
        } => r.set_vertex_buffer(*slot, &buffer.raw, *offset),
        Cmd::Index {
            buffer,
            offset,
            format,
        } => r.set_index_buffer(&buffer.raw, *offset, *format),
        Cmd::Draw {
            vertices,
            instances,
        } => r.draw(vertices.clone(), instances.clone()),
        Cmd::DrawIndexed {
            indices,
            base_vertex,
            instances,
        } => r.draw_indexed(indices.clone(), *base_vertex, instances.clone()),
        Cmd::DrawIndirect {
            buffer,
            offset,
            indices,
        } => {
            let Some((raw, at)) = indirect(buffer, *offset, indices.is_some()) else {
                return;
            };
            if indices.is_some() {
                r.draw_indexed_indirect(raw, at);
            } else {
                r.draw_indirect(raw, at);
            }
        }
        Cmd::PushDebugGroup(label) => r.push_debug_group(label),
        Cmd::PopDebugGroup => r.pop_debug_group(),
        Cmd::InsertDebugMarker(label) => r.insert_debug_marker(label),
    }
}
