//! Compute passes: pipelines, bind groups with dynamic offsets, dispatches.

use super::binder::{Binder, MAX_GROUPS};
use super::{Access, CommandEncoder, Kind, Pass};
use crate::device::DeviceState;
use crate::error::{Result, fail};
use crate::handle::{BindGroup, ComputePipeline, Handle, QuerySet};
use vigil_hal::{Api, BindPoint, Stages};

/// Timestamps written at the start and end of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassTimestampWrites {
    /// Query set written.
    pub query_set: QuerySet,
    /// Query written when the pass begins.
    pub beginning: Option<u32>,
    /// Query written when the pass ends.
    pub end: Option<u32>,
}

/// How to begin a compute pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ComputePassDescriptor<'a> {
    /// Label (a debug label region in tools that show them).
    pub label: &'a str,
    /// Timestamps to write.
    pub timestamp_writes: Option<PassTimestampWrites>,
}

/// Pass timestamps after validation: query set slot and the queries to write.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimestampPlan {
    pub set: u32,
    pub beginning: Option<u32>,
    pub end: Option<u32>,
}

/// What a compute pass has bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComputeState {
    pub binder: Binder,
}

impl<'d, A: Api> CommandEncoder<'d, A> {
    /// Begins a compute pass. Passes cannot nest.
    pub fn begin_compute_pass(&mut self, desc: &super::ComputePassDescriptor<'_>) -> Result<()> {
        const OP: &str = "begin_compute_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let st = e.state(OP)?;
            let ts = e.prepare_pass_timestamps(&st, desc.timestamp_writes, OP)?;
            let writes = match ts {
                None => None,
                Some(TimestampPlan {
                    set: i,
                    beginning,
                    end,
                }) => {
                    let set = st.query_sets.slot(i).and_then(|s| s.value.as_ref());
                    let set = set.ok_or_else(|| {
                        fail!(InvalidHandle, OP, &e.label, "the query set is gone")
                    })?;
                    Some(vigil_hal::PassTimestampWrites {
                        query_set: &set.raw,
                        beginning,
                        end,
                    })
                }
            };
            let label = desc.label;
            e.record(|r| {
                r.begin_compute_pass(&vigil_hal::ComputePassDescriptor {
                    label,
                    timestamp_writes: writes,
                })
            });
            drop(st);
            e.pass = Pass::Compute;
            e.compute = ComputeState::default();
            e.recorded = true;
            Ok(())
        })
    }

    /// Ends the compute pass.
    pub fn end_compute_pass(&mut self) -> Result<()> {
        const OP: &str = "end_compute_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let progress = &e.device.progress;
            e.record(|r| {
                r.end_compute_pass();
                progress.record(r, Stages::COMPUTE);
            });
            e.pass = Pass::None;
            Ok(())
        })
    }

    /// Binds a compute pipeline.
    pub fn set_compute_pipeline(&mut self, pipeline: ComputePipeline) -> Result<()> {
        const OP: &str = "set_compute_pipeline";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let key = (pipeline.index(), pipeline.generation());
            let st = e.state(OP)?;
            // Looked up before the repeat check: a stale or foreign handle equal in slot
            // and generation to the bound pipeline is still refused.
            let p = st.compute_pipelines.value(pipeline, e.device.id, OP)?;
            if e.compute.binder.pipeline == Some(key) {
                return Ok(());
            }
            e.record(|r| r.set_compute_pipeline(&p.raw));
            e.compute.binder.set_pipeline(&st, key, &p.info);
            drop(st);
            if e.tracker.seen_compute.first_use(key.0, e.tracker.epoch) {
                e.used.compute_pipelines.push(key);
            }
            Ok(())
        })
    }

    /// Binds a bind group at `index` for the open pass, with one dynamic offset per
    /// dynamic binding of its layout, in binding order.
    pub fn set_bind_group(
        &mut self,
        index: u32,
        group: BindGroup,
        dynamic_offsets: &[u32],
    ) -> Result<()> {
        const OP: &str = "set_bind_group";
        self.step(OP, |e| {
            if e.pass == Pass::None {
                return Err(fail!(InvalidState, OP, &e.label, "bind groups are set inside a compute or render pass; none is open"));
            }
            let cap = (e.device.limits.max_bind_groups as usize).min(MAX_GROUPS);
            if index as usize >= cap {
                return Err(fail!(OutOfBounds, OP, &e.label, "group index {index} is not below max_bind_groups ({cap})"));
            }
            let st = e.state(OP)?;
            let g = st.bind_groups.value(group, e.device.id, OP)?;
            if dynamic_offsets.len() != g.dynamic.len() {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    &e.label,
                    "bind group '{}' has {} dynamic binding(s) but {} offset(s) were given",
                    g.label,
                    g.dynamic.len(),
                    dynamic_offsets.len()
                ));
            }
            for (&o, d) in dynamic_offsets.iter().zip(g.dynamic.iter()) {
                if o.checked_rem(d.alignment) != Some(0) {
                    return Err(fail!(
                        OutOfBounds,
                        OP,
                        &e.label,
                        "dynamic offset {o} for binding {} of '{}' is not a multiple of {}",
                        d.binding,
                        g.label,
                        d.alignment
                    ));
                }
                let end = d
                    .offset
                    .checked_add(u64::from(o))
                    .and_then(|start| start.checked_add(d.size));
                if end.is_none_or(|end| end > d.buffer_size) {
                    return Err(fail!(
                        OutOfBounds,
                        OP,
                        &e.label,
                        "dynamic offset {o} moves the {} bytes of binding {} of '{}' from offset {} past the buffer's {} bytes",
                        d.size,
                        d.binding,
                        g.label,
                        d.offset,
                        d.buffer_size
                    ));
                }
            }
            let key = (group.index(), group.generation());
            let binder = if e.pass == Pass::Compute { &mut e.compute.binder } else { &mut e.render.binder };
            if binder.set_group(&st, index as usize, key, dynamic_offsets) && e.tracker.seen_groups.first_use(key.0, e.tracker.epoch) {
                e.used.groups.push(key);
                if g.members_live_at.get() != st.destroy_epoch {
                    if super::members_ok(&st, g) {
                        g.members_live_at.set(st.destroy_epoch);
                    } else {
                        e.used.stale = true;
                    }
                }
                for u in g.tracked.iter() {
                    if u.texture {
                        if e.tracker.seen_member_textures.first_use(u.index, e.tracker.epoch) {
                            e.used.member_textures.push(u.index);
                        }
                    } else if e.tracker.seen_member_buffers.first_use(u.index, e.tracker.epoch) {
                        e.used.member_buffers.push(u.index);
                    }
                }
            }
            Ok(())
        })
    }

    /// Dispatches `x * y * z` workgroups.
    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        const OP: &str = "dispatch";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let max = e.device.limits.max_compute_workgroups_per_dimension;
            if x > max || y > max || z > max {
                return Err(fail!(
                    LimitExceeded,
                    OP,
                    &e.label,
                    "dispatch of {x}x{y}x{z} exceeds max_compute_workgroups_per_dimension ({max})"
                ));
            }
            let st = e.state(OP)?;
            e.prepare_dispatch(&st, None, OP)?;
            e.record(|r| r.dispatch([x, y, z]));
            e.dispatches = e.dispatches.wrapping_add(1);
            Ok(())
        })
    }

    /// Dispatches with `(x, y, z)` read from `buffer` at `offset` (12 bytes, 4-aligned, in
    /// an `INDIRECT` buffer).
    pub fn dispatch_indirect(&mut self, buffer: crate::Buffer, offset: u64) -> Result<()> {
        const OP: &str = "dispatch_indirect";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let st = e.state(OP)?;
            let b = st.buffers.value(buffer, e.device.id, OP)?;
            super::check_indirect(OP, &e.label, b, offset, 12)?;
            e.prepare_dispatch(&st, Some(buffer.index()), OP)?;
            e.record(|r| r.dispatch_indirect(&b.raw, offset));
            drop(st);
            e.use_buffer(buffer.index(), buffer.generation());
            e.dispatches = e.dispatches.wrapping_add(1);
            Ok(())
        })
    }

    /// Checks the pass is ready to dispatch (a bit test), binds changed groups, and
    /// inserts the barrier the dispatch's accesses need.
    #[inline]
    fn prepare_dispatch(
        &mut self,
        st: &DeviceState<A>,
        indirect: Option<u32>,
        op: &'static str,
    ) -> Result<()> {
        if !self.compute.binder.ready() {
            return Err(self.not_ready(st, op));
        }
        self.compute
            .binder
            .flush(st, self.raw.as_mut(), BindPoint::Compute);
        if self.walk_dispatch(st, indirect) {
            self.barrier();
            // Stamp this dispatch's accesses again, after the barrier.
            self.walk_dispatch(st, indirect);
        }
        Ok(())
    }

    /// Records the dispatch's accesses in the current barrier generation; returns whether
    /// any of them conflicts with an access since the last barrier.
    #[inline]
    fn walk_dispatch(&mut self, st: &DeviceState<A>, indirect: Option<u32>) -> bool {
        let (t, b) = (&mut self.tracker, &mut self.barriers);
        let mut need = b.first;
        if let Some(i) = indirect {
            let access = Access {
                write: false,
                stages: Stages::DRAW_INDIRECT,
            };
            need |= t.access(Kind::Buffer, i, access, b);
        }
        let binder = &self.compute.binder;
        for bound in &binder.groups[..binder.count] {
            let Some(group) = bound
                .group
                .and_then(|(i, _)| st.bind_groups.slot(i))
                .and_then(|s| s.value.as_ref())
            else {
                continue;
            };
            for u in group.tracked.iter() {
                let access = Access {
                    write: u.write,
                    stages: Stages::COMPUTE,
                };
                let kind = if u.texture {
                    Kind::Texture
                } else {
                    Kind::Buffer
                };
                need |= t.access(kind, u.index, access, b);
            }
        }
        need
    }

    /// Why a pass is not ready to draw or dispatch (the slow path of `Binder::ready`).
    #[cold]
    pub(crate) fn not_ready(&self, st: &DeviceState<A>, op: &'static str) -> crate::Error {
        let (binder, what) = match self.pass {
            Pass::Render => (&self.render.binder, "render"),
            _ => (&self.compute.binder, "compute"),
        };
        let Some((pi, _)) = binder.pipeline else {
            return fail!(InvalidState, op, &self.label, "no {what} pipeline is set");
        };
        let info = match self.pass {
            Pass::Render => st
                .render_pipelines
                .slot(pi)
                .and_then(|s| s.value.as_ref())
                .map(|p| (&p.label, &p.info)),
            _ => st
                .compute_pipelines
                .slot(pi)
                .and_then(|s| s.value.as_ref())
                .map(|p| (&p.label, &p.info)),
        };
        match info {
            Some((label, info)) => {
                match super::render::check_groups(&self.label, op, label, info, binder, st) {
                    Err(e) => e,
                    Ok(()) => fail!(
                        InvalidState,
                        op,
                        &self.label,
                        "the bound groups do not fit the pipeline"
                    ),
                }
            }
            None => fail!(InvalidState, op, &self.label, "the {what} pipeline is gone"),
        }
    }

    /// Validates pass timestamp writes and resets their query set on first use.
    pub(crate) fn prepare_pass_timestamps(
        &mut self,
        st: &DeviceState<A>,
        ts: Option<PassTimestampWrites>,
        op: &'static str,
    ) -> Result<Option<TimestampPlan>> {
        let Some(ts) = ts else { return Ok(None) };
        let set = st.query_sets.value(ts.query_set, self.device.id, op)?;
        for q in [ts.beginning, ts.end].into_iter().flatten() {
            if q >= set.count {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &self.label,
                    "query {q} is outside query set '{}' ({} queries)",
                    set.label,
                    set.count
                ));
            }
        }
        if ts.beginning.is_some() && ts.beginning == ts.end {
            return Err(fail!(
                InvalidDescriptor,
                op,
                &self.label,
                "the beginning and end timestamps name the same query"
            ));
        }
        self.reset_queries_once(st, ts.query_set);
        for q in [ts.beginning, ts.end].into_iter().flatten() {
            self.reset_if_rewritten(&set.raw, ts.query_set.index(), q);
            self.note_query_written(ts.query_set.index(), q);
        }
        Ok(Some(TimestampPlan {
            set: ts.query_set.index(),
            beginning: ts.beginning,
            end: ts.end,
        }))
    }

    /// Resets a whole query set the first time this encoder uses it.
    pub(crate) fn reset_queries_once(&mut self, st: &DeviceState<A>, set: QuerySet) {
        if !self
            .tracker
            .seen_query_sets
            .first_use(set.index(), self.tracker.epoch)
        {
            return;
        }
        self.used.query_sets.push((set.index(), set.generation()));
        if let Some(q) = st
            .query_sets
            .slot(set.index())
            .and_then(|s| s.value.as_ref())
        {
            let count = q.count;
            self.record(|r| r.reset_queries(&q.raw, 0, count));
        }
    }
}
