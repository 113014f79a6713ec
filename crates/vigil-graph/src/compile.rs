//! Compiling a graph: which passes run (culling), and the barriers each needs before it,
//! planned per resource from the uses of every pass.

use crate::error::{GraphError, Result};
use crate::graph::{Graph, PassContext, PassId, Range, ResourceId, ResourceKey, Scope, writes};
use crate::state::{Access, Layout, ResourceState, Stages};
use std::collections::{HashMap, HashSet};
use vigil::{Api, BindGroup, Buffer, BufferDescriptor, CommandEncoder, DefaultApi, Device};

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
}

impl Plan {
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

impl Track {
    fn from_initial(initial: ResourceState) -> Track {
        let writes = initial.access.writes();
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
            let (w_stages, w_access) = self.last_write.unwrap_or_default();
            let src_stages = w_stages | self.readers;
            let out = (relayout || !src_stages.is_empty())
                .then(|| barrier(src_stages, w_access, self.layout));
            self.last_write = Some((state.stages, state.access.writes()));
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
        let mut needed: HashSet<ResourceId> = HashSet::new();
        let mut live = vec![false; self.passes.len()];
        for i in (0..self.passes.len()).rev() {
            let (Some(p), Some(s)) = (self.passes.get(i), scopes.get(i)) else {
                continue;
            };
            let output = s.iter().any(|s| {
                writes(&s.state)
                    && (needed.contains(&s.resource)
                        || self
                            .resources
                            .get(s.resource.0 as usize)
                            .is_some_and(|r| r.key.is_some()))
            });
            if p.keep || output {
                if let Some(l) = live.get_mut(i) {
                    *l = true;
                }
                needed.extend(
                    s.iter()
                        .filter(|s| !s.state.access.reads().is_empty())
                        .map(|s| s.resource),
                );
            }
        }
        let mut tracks: HashMap<ResourceId, Track> = HashMap::new();
        let mut plan = Plan::default();
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
                let track = tracks
                    .entry(scope.resource)
                    .or_insert_with(|| Track::from_initial(r.initial));
                if let Some(b) = track.use_scope(scope, r.texture) {
                    barriers.push(b);
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
            transients: HashMap::new(),
        })
    }
}

/// A compiled graph: its plan, and what it needs to run.
pub struct CompiledGraph<A: Api = DefaultApi> {
    pub(crate) graph: Graph<A>,
    plan: Plan,
    transients: HashMap<ResourceId, Buffer>,
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

    /// Records the graph's passes into `encoder`, in order. Every imported bind group is
    /// checked again first (stale after a pool reset, untracked, binding a destroyed
    /// resource: refused before anything is recorded); transient buffers are made at the
    /// first execution and kept.
    ///
    /// The native barriers are vigil's own: the encoder's tracker derives them from the
    /// same uses at record time, so a graph frame is synchronized exactly like the same
    /// commands recorded by hand. The plan states what the graph derives, for inspection
    /// and the DOT export.
    pub fn execute(&mut self, device: &Device<A>, encoder: &mut CommandEncoder<A>) -> Result<()> {
        for g in &self.graph.groups {
            device.bind_group_bindings(g.group)?;
        }
        for (i, r) in self.graph.resources.iter().enumerate() {
            let id = ResourceId(u32::try_from(i).unwrap_or(u32::MAX));
            if let (Some(t), false) = (r.transient, self.transients.contains_key(&id)) {
                let b = device.create_buffer(&BufferDescriptor {
                    label: &r.name,
                    size: t.size,
                    usage: t.usage,
                })?;
                self.transients.insert(id, b);
            }
        }
        let mut buffers = self.transients.clone();
        for (key, id) in &self.graph.index {
            if let ResourceKey::Buffer(b) = key {
                buffers.insert(*id, *b);
            }
        }
        for planned in &self.plan.passes {
            let Some(pass) = self.graph.passes.get_mut(planned.pass.0 as usize) else {
                continue;
            };
            let groups: Vec<(u32, BindGroup, Vec<u32>)> = pass
                .groups
                .iter()
                .filter_map(|(set, g)| {
                    self.graph
                        .groups
                        .get(g.0 as usize)
                        .map(|e| (*set, e.group, e.offsets.clone()))
                })
                .collect();
            let Some(record) = pass.record.as_mut() else {
                continue;
            };
            let mut ctx = PassContext {
                encoder,
                groups: &groups,
                buffers: &buffers,
            };
            record(&mut ctx).map_err(|error| GraphError::Recording {
                pass: pass.name.clone(),
                error,
            })?;
        }
        Ok(())
    }

    /// Destroys the transient buffers the executions made (they go once the work using
    /// them completes).
    pub fn release(&mut self, device: &Device<A>) -> Result<()> {
        for (_, b) in self.transients.drain() {
            device.destroy_buffer(b)?;
        }
        Ok(())
    }
}
