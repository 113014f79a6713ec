//! Compiling a graph: which passes run (culling), and the barriers each needs before it,
//! planned per resource from the uses of every pass.

use crate::error::{GraphError, Result};
use crate::graph::{
    Graph, GraphResource, PassContext, PassId, Range, Recorder, ResourceId, ResourceKey, Scope,
    Transient, writes,
};
use crate::state::{Access, Layout, ResourceState, Stages};
use std::collections::{BTreeMap, HashMap};
use vigil::{
    Api, BindGroup, BindGroupDescriptor, BindGroupEntry, BindingResource, Buffer, BufferBinding,
    BufferDescriptor, BufferTransition, CommandBuffer, CommandEncoder, CommandEncoderDescriptor,
    DefaultApi, Device, Texture, TextureLayout, TextureTransition, TextureView,
    TextureViewDescriptor,
};

/// One barrier the plan puts before a pass: the earlier uses of a resource it waits for,
/// the pass's use it makes them visible to, and the layout transition it performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Barrier {
    /// The resource.
    pub resource: ResourceId,
    /// The part the pass uses.
    pub range: Range,
    /// Stages of the earlier uses waited for.
    pub src_stages: Stages,
    /// Their writes made available (empty for a write after reads: an execution
    /// dependency only).
    pub src_access: Access,
    /// The pass's stages.
    pub dst_stages: Stages,
    /// The pass's accesses.
    pub dst_access: Access,
    /// The layout before (textures).
    pub old_layout: Layout,
    /// The layout after.
    pub new_layout: Layout,
}

/// A pass that runs, with its merged uses and the barriers before it (one batch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedPass {
    /// The pass.
    pub pass: PassId,
    /// Its name.
    pub name: String,
    /// Its uses, merged per resource.
    pub scopes: Vec<Scope>,
    /// The barriers before it.
    pub barriers: Vec<Barrier>,
}

/// A compiled graph's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The passes that run, in order.
    pub passes: Vec<PlannedPass>,
    /// Passes culled: nothing they write reaches an imported resource or a kept pass.
    pub culled: Vec<PassId>,
    /// The backing each transient resource lives in: transients whose lifetimes (first
    /// to last running pass that uses them) do not overlap share one — buffers any
    /// buffer, textures one of the same shape and format.
    pub aliases: Vec<(ResourceId, usize)>,
    /// The buffers and textures transients live in: a buffer as large as the largest of
    /// its transients, and each with the usages of all of them.
    pub backings: Vec<Transient>,
    /// Bytes the running passes' transients would take without sharing.
    pub transient_bytes_unaliased: u64,
}

impl Plan {
    /// Bytes the transients take with sharing (the sum of the backings).
    pub fn transient_bytes(&self) -> u64 {
        self.backings
            .iter()
            .fold(0u64, |sum, b| sum.saturating_add(b.bytes()))
    }

    /// Barriers in the whole plan.
    pub fn barrier_count(&self) -> usize {
        self.passes.iter().map(|p| p.barriers.len()).sum()
    }
}

/// What the planner knows of a resource between passes.
#[derive(Clone, Copy, Debug)]
struct Track {
    /// The last write (stages, accesses), if any.
    last_write: Option<(Stages, Access)>,
    /// Uses since the last write (for a write after reads).
    readers: Stages,
    /// Stages and accesses the last write was made visible to.
    visible: (Stages, Access),
    layout: Layout,
}

/// A resource's tracking: one state for a buffer; for a texture, one per mip and layer a
/// pass has named, and one for every subresource no pass has named yet.
#[derive(Clone, Debug)]
enum Tracked {
    Whole(Track),
    Texture(TextureTrack),
}

#[derive(Clone, Debug)]
struct TextureTrack {
    /// Subresources no use has named one by one.
    rest: Track,
    /// By `(mip, layer)`.
    each: BTreeMap<(u32, u32), Track>,
}

/// Mips and layers a group of subresources spans: first and last mip, first and last
/// layer.
type Span = (u32, u32, u32, u32);

impl TextureTrack {
    /// The barriers a use of some subresources needs: one per distinct earlier state,
    /// over the use's range (or, when the subresources were in different states, over
    /// each one's own mip and layer).
    fn use_scope(&mut self, s: &Scope) -> Vec<Barrier> {
        let mut found: Vec<((u32, u32), Barrier)> = Vec::new();
        match s.range {
            Range::Subresources {
                base_mip_level,
                mip_level_count,
                base_array_layer,
                array_layer_count,
            } => {
                for mip in base_mip_level..base_mip_level.saturating_add(mip_level_count) {
                    for layer in
                        base_array_layer..base_array_layer.saturating_add(array_layer_count)
                    {
                        let rest = self.rest;
                        let t = self.each.entry((mip, layer)).or_insert(rest);
                        if let Some(b) = t.use_scope(s, true) {
                            found.push(((mip, layer), b));
                        }
                    }
                }
            }
            _ => {
                if let Some(b) = self.rest.use_scope(s, true) {
                    found.push(((u32::MAX, u32::MAX), b));
                }
                for (&at, t) in self.each.iter_mut() {
                    if let Some(b) = t.use_scope(s, true) {
                        found.push((at, b));
                    }
                }
            }
        }
        let key = |b: &Barrier| (b.src_stages, b.src_access, b.old_layout);
        // Group the subresources by the state they were in: one barrier per group over
        // the mips and layers it spans, when it fills that span exactly and no two
        // groups' spans meet (otherwise one barrier per subresource).
        let mut groups: Vec<(Barrier, Option<Span>, u64)> = Vec::new();
        for &((mip, layer), b) in &found {
            let here = (mip != u32::MAX).then_some((mip, mip, layer, layer));
            match groups.iter_mut().find(|(g, ..)| key(g) == key(&b)) {
                Some((_, span, count)) => {
                    *count = count.saturating_add(1);
                    *span = match (*span, here) {
                        (Some((m0, m1, l0, l1)), Some((m, _, l, _))) => {
                            Some((m0.min(m), m1.max(m), l0.min(l), l1.max(l)))
                        }
                        _ => None,
                    }
                }
                None => groups.push((b, here, 1)),
            }
        }
        let range_of = |(m0, m1, l0, l1): Span| Range::Subresources {
            base_mip_level: m0,
            mip_level_count: m1 - m0 + 1,
            base_array_layer: l0,
            array_layer_count: l1 - l0 + 1,
        };
        // Subresources no use had named (the rest) have no span: alone, their barrier
        // covers the use's range.
        if let [(b, None, _)] = groups.as_slice() {
            return vec![*b];
        }
        let area =
            |(m0, m1, l0, l1): Span| u64::from(m1 - m0 + 1).saturating_mul(u64::from(l1 - l0 + 1));
        let meets = |a: Span, b: Span| a.0 <= b.1 && b.0 <= a.1 && a.2 <= b.3 && b.2 <= a.3;
        let spans: Vec<Option<Span>> = groups.iter().map(|(_, sp, _)| *sp).collect();
        let exact = groups
            .iter()
            .all(|(_, span, count)| span.is_some_and(|sp| area(sp) == *count));
        let apart = spans.iter().enumerate().all(|(x, a)| {
            spans
                .iter()
                .skip(x + 1)
                .all(|b| !matches!((a, b), (Some(a), Some(b)) if meets(*a, *b)))
        });
        if exact && apart {
            return groups
                .into_iter()
                .filter_map(|(b, span, _)| {
                    span.map(|sp| Barrier {
                        range: range_of(sp),
                        ..b
                    })
                })
                .collect();
        }
        found
            .into_iter()
            .map(|((mip, layer), b)| Barrier {
                range: if mip == u32::MAX {
                    s.range
                } else {
                    range_of((mip, mip, layer, layer))
                },
                ..b
            })
            .collect()
    }
}

impl Track {
    fn from_initial(initial: ResourceState) -> Track {
        let writes = crate::state::writes_of(initial.access);
        Track {
            last_write: (!writes.is_empty()).then_some((initial.stages, writes)),
            readers: if writes.is_empty() {
                initial.stages
            } else {
                Stages::empty()
            },
            visible: (Stages::empty(), Access::empty()),
            layout: initial.layout,
        }
    }

    /// The barrier a use needs before it, if any, and the state after it.
    fn use_scope(&mut self, s: &Scope, texture: bool) -> Option<Barrier> {
        let state = s.state;
        let relayout = texture && state.layout != self.layout;
        let barrier = |src_stages, src_access, old_layout| Barrier {
            resource: s.resource,
            range: s.range,
            src_stages,
            src_access,
            dst_stages: state.stages,
            dst_access: state.access,
            old_layout: if texture {
                old_layout
            } else {
                Layout::Undefined
            },
            new_layout: if texture {
                state.layout
            } else {
                Layout::Undefined
            },
        };
        if relayout || writes(&state) {
            // After reads, waiting for them is enough: they waited for the last write,
            // whose results are already available. Without reads since, the write itself
            // is waited for and made available.
            let (src_stages, src_access) = if self.readers.is_empty() {
                self.last_write.unwrap_or_default()
            } else {
                (self.readers, Access::empty())
            };
            let out = (relayout || !src_stages.is_empty())
                .then(|| barrier(src_stages, src_access, self.layout));
            self.last_write = Some((state.stages, crate::state::writes_of(state.access)));
            self.readers = Stages::empty();
            // After a write, a later pass's reads need a barrier (reads in the same pass
            // need none); after a transition for reading, the barrier made the texture
            // visible to this pass's stages and accesses.
            self.visible = if writes(&state) {
                (Stages::empty(), Access::empty())
            } else {
                (state.stages, state.access)
            };
            self.layout = if texture { state.layout } else { self.layout };
            return out;
        }
        self.readers |= state.stages;
        let (w_stages, w_access) = self.last_write?;
        let covered =
            self.visible.0.contains(state.stages) && self.visible.1.contains(state.access);
        if covered {
            return None;
        }
        self.visible.0 |= state.stages;
        self.visible.1 |= state.access;
        Some(barrier(w_stages, w_access, self.layout))
    }
}

impl<A: Api> Graph<A> {
    /// Compiles the graph: culls passes nobody's output reaches, merges each pass's uses
    /// per resource, and plans the barriers before each pass. The result runs any number
    /// of times ([`CompiledGraph::execute`]).
    pub fn compile(self) -> Result<CompiledGraph<A>> {
        let mut scopes = Vec::with_capacity(self.passes.len());
        for i in 0..self.passes.len() {
            scopes.push(self.pass_scopes(PassId(u32::try_from(i).unwrap_or(u32::MAX)))?);
        }
        // Culling, from the last pass back: a pass runs when it is kept, or writes an
        // imported resource, or writes something a running later pass reads.
        let mut needed = vec![false; self.resources.len()];
        let mut live = vec![false; self.passes.len()];
        for i in (0..self.passes.len()).rev() {
            let (Some(p), Some(s)) = (self.passes.get(i), scopes.get(i)) else {
                continue;
            };
            let output = s.iter().any(|s| {
                writes(&s.state)
                    && (needed.get(s.resource.0 as usize).copied().unwrap_or(false)
                        || self
                            .resources
                            .get(s.resource.0 as usize)
                            .is_some_and(|r| r.key.is_some()))
            });
            if p.keep || output {
                if let Some(l) = live.get_mut(i) {
                    *l = true;
                }
                for r in s
                    .iter()
                    .filter(|s| !crate::state::reads_of(s.state.access).is_empty())
                {
                    if let Some(n) = needed.get_mut(r.resource.0 as usize) {
                        *n = true;
                    }
                }
            }
        }
        let mut plan = Plan::default();
        self.alias_transients(&scopes, &live, &mut plan);
        // Barriers are planned per backing: a transient sharing a buffer with an earlier
        // one waits for the earlier one's last uses before its first (its contents are
        // undefined then).
        // Tracks by index: resources first, then backings.
        let n = self.resources.len();
        let mut track_of: Vec<usize> = (0..n).collect();
        for (r, slot) in &plan.aliases {
            if let Some(t) = track_of.get_mut(r.0 as usize) {
                *t = n.saturating_add(*slot);
            }
        }
        let mut tracks: Vec<Option<Tracked>> = vec![None; n.saturating_add(plan.backings.len())];
        for (i, s) in scopes.into_iter().enumerate() {
            let id = PassId(u32::try_from(i).unwrap_or(u32::MAX));
            if !live.get(i).copied().unwrap_or(false) {
                plan.culled.push(id);
                continue;
            }
            let mut barriers = Vec::new();
            for scope in &s {
                let r = self
                    .resources
                    .get(scope.resource.0 as usize)
                    .ok_or(GraphError::UnknownId("resource", scope.resource.0))?;
                let key = track_of
                    .get(scope.resource.0 as usize)
                    .copied()
                    .unwrap_or(usize::MAX);
                let Some(slot) = tracks.get_mut(key) else {
                    continue;
                };
                let tracked = slot.get_or_insert_with(|| {
                    if r.texture {
                        Tracked::Texture(TextureTrack {
                            rest: Track::from_initial(r.initial),
                            each: BTreeMap::new(),
                        })
                    } else {
                        Tracked::Whole(Track::from_initial(r.initial))
                    }
                });
                match tracked {
                    Tracked::Whole(track) => {
                        if let Some(b) = track.use_scope(scope, false) {
                            barriers.push(b);
                        }
                    }
                    Tracked::Texture(t) => barriers.extend(t.use_scope(scope)),
                }
            }
            plan.passes.push(PlannedPass {
                pass: id,
                name: self
                    .passes
                    .get(i)
                    .map(|p| p.name.clone())
                    .unwrap_or_default(),
                scopes: s,
                barriers,
            });
        }
        Ok(CompiledGraph {
            graph: self,
            plan,
            backings: Vec::new(),
        })
    }
}

impl<A: Api> Graph<A> {
    /// Assigns each transient used by a running pass a backing, sharing one between
    /// transients whose lifetimes do not overlap and whose descriptions fit (greedy, in
    /// order of first use).
    fn alias_transients(&self, scopes: &[Vec<Scope>], live: &[bool], plan: &mut Plan) {
        let mut lifetimes: Vec<(ResourceId, usize, usize, Transient)> = Vec::new();
        let mut at: Vec<Option<usize>> = vec![None; self.resources.len()];
        for (order, s) in scopes
            .iter()
            .enumerate()
            .filter(|(i, _)| live.get(*i).copied().unwrap_or(false))
            .map(|(_, s)| s)
            .enumerate()
        {
            for scope in s {
                let Some(t) = self
                    .resources
                    .get(scope.resource.0 as usize)
                    .and_then(|r| r.transient)
                else {
                    continue;
                };
                let index = at.get(scope.resource.0 as usize).copied().flatten();
                match index.and_then(|k| lifetimes.get_mut(k)) {
                    Some(l) => l.2 = order,
                    None => {
                        if let Some(a) = at.get_mut(scope.resource.0 as usize) {
                            *a = Some(lifetimes.len());
                        }
                        lifetimes.push((scope.resource, order, order, t));
                    }
                }
            }
        }
        lifetimes.sort_by_key(|l| l.1);
        // Each backing: its description and the last pass (in running order) using it.
        let mut slots: Vec<(Transient, usize)> = Vec::new();
        for (id, first, last, t) in lifetimes {
            plan.transient_bytes_unaliased =
                plan.transient_bytes_unaliased.saturating_add(t.bytes());
            let free = slots.iter().position(|(b, end)| {
                *end < first
                    && match (b, &t) {
                        (Transient::Buffer(_), Transient::Buffer(_)) => true,
                        (Transient::Texture(a), Transient::Texture(b)) => a.fits(b),
                        _ => false,
                    }
            });
            let slot = match free {
                Some(k) => {
                    if let Some((b, end)) = slots.get_mut(k) {
                        match (b, t) {
                            (Transient::Buffer(b), Transient::Buffer(t)) => {
                                b.size = b.size.max(t.size);
                                b.usage |= t.usage;
                            }
                            (Transient::Texture(b), Transient::Texture(t)) => b.usage |= t.usage,
                            _ => {}
                        }
                        *end = last;
                    }
                    k
                }
                None => {
                    slots.push((t, last));
                    slots.len() - 1
                }
            };
            plan.aliases.push((id, slot));
        }
        plan.backings = slots.into_iter().map(|(b, _)| b).collect();
    }
}

/// A pass's recorder taken out of the graph for a recording thread: the pass's place in the
/// plan, the pass, its name and the recorder.
type Taken<A> = (usize, PassId, String, Option<Box<Recorder<A>>>);

/// What a recording thread gives back: the recorders it took, and its command buffer.
type Outcome<A> = (
    Vec<(PassId, Option<Box<Recorder<A>>>)>,
    Result<CommandBuffer<A>>,
);

/// What an execution hands its recorders: every resource's buffer or texture, and the
/// groups each running pass binds (set index, group, dynamic offsets).
struct Resolved {
    buffers: HashMap<ResourceId, Buffer>,
    textures: HashMap<ResourceId, (Texture, Option<TextureView>)>,
    groups: HashMap<PassId, Vec<(u32, BindGroup, Vec<u32>)>>,
}

impl Resolved {
    /// Records the plan's barriers before a pass, as transitions of the resources to the
    /// states the pass uses them in: vigil takes each barrier's source side from its
    /// tracker, so the pass's own commands then need none (and a use the plan missed
    /// still gets one).
    fn transitions<A: Api>(
        &self,
        planned: &PlannedPass,
        encoder: &mut CommandEncoder<A>,
    ) -> vigil::Result<()> {
        let mut buffers = Vec::new();
        let mut textures = Vec::new();
        for b in &planned.barriers {
            if let Some(&buffer) = self.buffers.get(&b.resource) {
                let (offset, size) = match b.range {
                    Range::Bytes { offset, size } => (offset, Some(size)),
                    _ => (0, None),
                };
                buffers.push(BufferTransition {
                    buffer,
                    offset,
                    size,
                    stages: b.dst_stages,
                    access: b.dst_access,
                });
            } else if let Some(&(texture, _)) = self.textures.get(&b.resource) {
                let layout = match b.new_layout {
                    Layout::Undefined => continue,
                    Layout::General => TextureLayout::General,
                    Layout::ShaderReadOnly => TextureLayout::ShaderReadOnly,
                    Layout::ColorAttachment => TextureLayout::ColorAttachment,
                    Layout::DepthStencilAttachment | Layout::DepthStencilReadOnly => {
                        TextureLayout::DepthStencilAttachment
                    }
                    Layout::TransferSrc => TextureLayout::TransferSrc,
                    Layout::TransferDst => TextureLayout::TransferDst,
                };
                let (base_mip_level, mip_level_count, base_array_layer, array_layer_count) =
                    match b.range {
                        Range::Subresources {
                            base_mip_level,
                            mip_level_count,
                            base_array_layer,
                            array_layer_count,
                        } => (
                            base_mip_level,
                            Some(mip_level_count),
                            base_array_layer,
                            Some(array_layer_count),
                        ),
                        _ => (0, None, 0, None),
                    };
                textures.push(TextureTransition {
                    texture,
                    base_mip_level,
                    mip_level_count,
                    base_array_layer,
                    array_layer_count,
                    stages: b.dst_stages,
                    access: b.dst_access,
                    layout,
                });
            }
        }
        if buffers.is_empty() && textures.is_empty() {
            return Ok(());
        }
        encoder.transition_resources(&buffers, &textures)
    }

    fn context<'a, A: Api>(
        &'a self,
        pass: PassId,
        encoder: &'a mut CommandEncoder<A>,
    ) -> PassContext<'a, A> {
        PassContext {
            encoder,
            groups: self.groups.get(&pass).map_or(&[], |g| g.as_slice()),
            buffers: &self.buffers,
            textures: &self.textures,
        }
    }
}

/// A backing the graph made.
enum Made {
    Buffer(Buffer),
    Texture(Texture, TextureView),
}

/// A compiled graph: its plan, and what it needs to run.
pub struct CompiledGraph<A: Api = DefaultApi> {
    pub(crate) graph: Graph<A>,
    plan: Plan,
    /// The buffers and textures made for the plan's backings, at the first execution.
    backings: Vec<Made>,
}

impl<A: Api> CompiledGraph<A> {
    /// The plan: passes that run, with their barriers, and the passes culled.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The graph it was compiled from.
    pub fn graph(&self) -> &Graph<A> {
        &self.graph
    }

    /// Records the graph's passes into `encoder`, in order, each (its barriers and its
    /// commands) inside a debug group named after it ([`CommandEncoder::push_debug_group`]:
    /// tools that show the command stream show the graph's passes). Every imported bind group is
    /// checked again first (stale after a pool reset, untracked, binding a destroyed
    /// resource: refused before anything is recorded); transient buffers and textures,
    /// and the groups the graph makes over them, are made at the first execution and
    /// kept.
    ///
    /// Before each pass, the plan's barriers are recorded as one batch
    /// ([`CommandEncoder::transition_resources`], each resource moved to the state the
    /// pass uses it in); the pass's own commands then need none
    /// ([`CommandEncoder::derived_barrier_batches`] stays 0 when the plan covers them).
    /// vigil's tracker stays in charge of what each barrier waits for, and still adds a
    /// barrier for any use the plan did not prepare (a pass using a resource it did not
    /// declare, or a recorder doing more than one dependent dispatch).
    pub fn execute(&mut self, device: &Device<A>, encoder: &mut CommandEncoder<A>) -> Result<()> {
        let resolved = self.prepare(device)?;
        for planned in &self.plan.passes {
            let Some(pass) = self.graph.passes.get_mut(planned.pass.0 as usize) else {
                continue;
            };
            let Some(record) = pass.record.as_mut() else {
                continue;
            };
            let failed = |error| GraphError::Recording {
                pass: pass.name.clone(),
                error,
            };
            encoder.push_debug_group(&pass.name).map_err(failed)?;
            resolved.transitions(planned, encoder).map_err(failed)?;
            let mut ctx = resolved.context(planned.pass, encoder);
            record(&mut ctx).map_err(failed)?;
            encoder.pop_debug_group().map_err(failed)?;
        }
        Ok(())
    }

    /// Records the graph's passes on up to `threads` threads: the running passes are split
    /// into that many runs of consecutive passes, each recorded into its own encoder on
    /// its own thread. Returns the finished command buffers in pass order; submit them
    /// together, in that order (vigil orders what one command buffer does before the next
    /// one's uses when it resolves the submission). Checks, and debug groups, as
    /// [`CompiledGraph::execute`].
    pub fn execute_parallel(
        &mut self,
        device: &Device<A>,
        threads: usize,
    ) -> Result<Vec<CommandBuffer<A>>>
    where
        Device<A>: Sync,
        CommandBuffer<A>: Send,
    {
        let resolved = self.prepare(device)?;
        let order: Vec<PassId> = self.plan.passes.iter().map(|p| p.pass).collect();
        let threads = threads.clamp(1, order.len().max(1));
        let per = order.len().div_ceil(threads).max(1);
        // Each thread takes the recorders of its passes out of the graph, and gives them
        // back when done.
        let mut chunks: Vec<Vec<Taken<A>>> = Vec::new();
        for (k, ids) in order.chunks(per).enumerate() {
            chunks.push(
                ids.iter()
                    .enumerate()
                    .map(|(i, id)| {
                        let pass = self.graph.passes.get_mut(id.0 as usize);
                        let name = pass.as_ref().map(|p| p.name.clone()).unwrap_or_default();
                        let at = k.saturating_mul(per).saturating_add(i);
                        (at, *id, name, pass.and_then(|p| p.record.take()))
                    })
                    .collect(),
            );
        }
        let (resolved, plan) = (&resolved, &self.plan);
        let outcomes: Vec<Outcome<A>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .into_iter()
                .enumerate()
                .map(|(k, mut chunk)| {
                    scope.spawn(move || {
                        let mut run = || -> Result<CommandBuffer<A>> {
                            let mut encoder =
                                device.create_command_encoder(&CommandEncoderDescriptor {
                                    label: &format!("graph part {k}"),
                                })?;
                            for (at, id, name, record) in chunk.iter_mut() {
                                let Some(record) = record.as_mut() else {
                                    continue;
                                };
                                let failed = |error| GraphError::Recording {
                                    pass: name.clone(),
                                    error,
                                };
                                encoder.push_debug_group(name).map_err(failed)?;
                                if let Some(planned) = plan.passes.get(*at) {
                                    resolved
                                        .transitions(planned, &mut encoder)
                                        .map_err(failed)?;
                                }
                                let mut ctx = resolved.context(*id, &mut encoder);
                                record(&mut ctx).map_err(failed)?;
                                encoder.pop_debug_group().map_err(failed)?;
                            }
                            Ok(encoder.finish()?)
                        };
                        let result = run();
                        let back = chunk.into_iter().map(|(_, id, _, r)| (id, r)).collect();
                        (back, result)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        (
                            Vec::new(),
                            Err(GraphError::UnknownId("recording thread", 0)),
                        )
                    })
                })
                .collect()
        });
        let mut out = Vec::with_capacity(outcomes.len());
        let mut first_error = None;
        for (back, result) in outcomes {
            for (id, record) in back {
                if let Some(pass) = self.graph.passes.get_mut(id.0 as usize) {
                    pass.record = record;
                }
            }
            match result {
                Ok(cb) => out.push(cb),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// What every execution does first: re-checks the imported groups, makes the
    /// transients' backings and the groups the graph makes (once), and maps every
    /// resource to its buffer or texture and every running pass to its groups.
    fn prepare(&mut self, device: &Device<A>) -> Result<Resolved> {
        for g in self.graph.groups.iter().filter(|g| g.owned.is_none()) {
            if let Some(group) = g.group {
                device.bind_group_bindings(group)?;
            }
        }
        for (k, t) in self
            .plan
            .backings
            .iter()
            .enumerate()
            .skip(self.backings.len())
        {
            let label = format!("graph transient {k}");
            let made = match t {
                Transient::Buffer(b) => Made::Buffer(device.create_buffer(&BufferDescriptor {
                    label: &label,
                    size: b.size,
                    usage: b.usage,
                })?),
                Transient::Texture(t) => {
                    let texture = device.create_texture(&t.descriptor(&label))?;
                    let view = device.create_texture_view(
                        texture,
                        &TextureViewDescriptor {
                            label: &label,
                            ..Default::default()
                        },
                    );
                    match view {
                        Ok(view) => Made::Texture(texture, view),
                        Err(e) => {
                            // Not kept: nothing else holds it.
                            device.destroy_texture(texture)?;
                            return Err(e.into());
                        }
                    }
                }
            };
            self.backings.push(made);
        }
        let mut buffers = HashMap::new();
        let mut textures = HashMap::new();
        for (id, slot) in &self.plan.aliases {
            match self.backings.get(*slot) {
                Some(Made::Buffer(b)) => {
                    buffers.insert(*id, *b);
                }
                Some(Made::Texture(t, v)) => {
                    textures.insert(*id, (*t, Some(*v)));
                }
                None => {}
            }
        }
        for (key, id) in &self.graph.index {
            match key {
                ResourceKey::Buffer(b) => {
                    buffers.insert(*id, *b);
                }
                ResourceKey::Texture(t) => {
                    textures.insert(*id, (*t, None));
                }
            }
        }
        // The groups the graph makes, for the passes that run.
        for planned in &self.plan.passes {
            let Some(pass) = self.graph.passes.get(planned.pass.0 as usize) else {
                continue;
            };
            for (_, g) in &pass.groups {
                let Some(entry) = self.graph.groups.get_mut(g.0 as usize) else {
                    continue;
                };
                let (None, Some(owned)) = (entry.group, entry.owned.as_ref()) else {
                    continue;
                };
                let mut resources = Vec::with_capacity(owned.entries.len());
                for e in &owned.entries {
                    let missing = |id: ResourceId| GraphError::UnknownId("made resource", id.0);
                    resources.push(match e.resource {
                        GraphResource::Buffer {
                            resource,
                            offset,
                            size,
                        } => BindingResource::Buffer(BufferBinding {
                            buffer: *buffers.get(&resource).ok_or(missing(resource))?,
                            offset,
                            size,
                        }),
                        GraphResource::Texture(resource) => BindingResource::TextureView(
                            textures
                                .get(&resource)
                                .and_then(|(_, v)| *v)
                                .ok_or(missing(resource))?,
                        ),
                        GraphResource::Sampler(s) => BindingResource::Sampler(s),
                    });
                }
                let entries: Vec<BindGroupEntry<'_>> = owned
                    .entries
                    .iter()
                    .zip(resources)
                    .map(|(e, resource)| BindGroupEntry {
                        binding: e.binding,
                        resource,
                    })
                    .collect();
                entry.group = Some(device.create_bind_group(&BindGroupDescriptor {
                    label: &owned.label,
                    layout: owned.layout,
                    entries: &entries,
                })?);
            }
        }
        let groups = self
            .plan
            .passes
            .iter()
            .filter_map(|planned| {
                let pass = self.graph.passes.get(planned.pass.0 as usize)?;
                let groups = pass
                    .groups
                    .iter()
                    .filter_map(|(set, g)| {
                        let e = self.graph.groups.get(g.0 as usize)?;
                        Some((*set, e.group?, e.offsets.clone()))
                    })
                    .collect();
                Some((planned.pass, groups))
            })
            .collect();
        Ok(Resolved {
            buffers,
            textures,
            groups,
        })
    }

    /// Destroys what the executions made — the groups the graph made, then the transient
    /// buffers and textures (each goes once the work using it completes). A later
    /// execution makes them again.
    pub fn release(&mut self, device: &Device<A>) -> Result<()> {
        for g in self.graph.groups.iter_mut().filter(|g| g.owned.is_some()) {
            if let Some(group) = g.group.take() {
                device.destroy_bind_group(group)?;
            }
        }
        for made in self.backings.drain(..) {
            match made {
                Made::Buffer(b) => device.destroy_buffer(b)?,
                Made::Texture(t, v) => {
                    device.destroy_texture_view(v)?;
                    device.destroy_texture(t)?;
                }
            }
        }
        Ok(())
    }
}
