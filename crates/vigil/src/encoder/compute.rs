//! Compute passes: pipelines, bind groups with dynamic offsets, dispatches.

use super::{Access, CommandEncoder, Kind, Pass};
use crate::device::{DeviceState, Tracked};
use crate::error::{Result, fail};
use crate::handle::{BindGroup, ComputePipeline, Handle, QuerySet};
use vigil_hal::{Api, BindPoint, BufferUsages, CommandEncoder as _, Stages};

/// Most bind groups vigil tracks per pipeline.
pub(crate) const MAX_GROUPS: usize = 8;
/// Most dynamic offsets per bind group.
pub(crate) const MAX_DYNAMIC: usize = 16;

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

/// One bind group slot of a pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BoundGroup {
    pub group: Option<(u32, u32)>,
    pub offsets: [u32; MAX_DYNAMIC],
    pub offset_count: u8,
}

/// Bind group slots of a pass, with what changed since the last draw or dispatch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bindings {
    pub groups: [BoundGroup; MAX_GROUPS],
    /// Groups to bind natively before the next draw or dispatch.
    pub dirty: u8,
    /// Whether pipeline and groups were checked against each other since the last change.
    pub validated: bool,
    /// Groups set since their accesses were last recorded (render passes).
    pub touched: u8,
}

/// What a compute pass has bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComputeState {
    pub pipeline: Option<(u32, u32)>,
    pub layout: u32,
    pub bindings: Bindings,
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
            e.record(|r| r.end_compute_pass());
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
            if e.compute.pipeline == Some(key) {
                return Ok(());
            }
            let st = e.state(OP)?;
            let p = st.compute_pipelines.value(pipeline, e.device.id, OP)?;
            let layout = p.info.layout.0;
            e.record(|r| r.set_compute_pipeline(&p.raw));
            drop(st);
            if e.compute.layout != layout {
                // A different layout: every group must be bound again against it.
                e.compute.bindings.dirty =
                    e.compute
                        .bindings
                        .groups
                        .iter()
                        .enumerate()
                        .fold(
                            0u8,
                            |m, (i, g)| {
                                if g.group.is_some() { m | (1 << i) } else { m }
                            },
                        );
            }
            e.compute.pipeline = Some(key);
            e.compute.layout = layout;
            e.compute.bindings.validated = false;
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
                if o % d.alignment != 0 {
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
                let end = d.offset + u64::from(o) + d.size;
                if end > d.buffer_size {
                    return Err(fail!(
                        OutOfBounds,
                        OP,
                        &e.label,
                        "dynamic offset {o} moves binding {} of '{}' to {}..{end}, past the buffer's {} bytes",
                        d.binding,
                        g.label,
                        d.offset + u64::from(o),
                        d.buffer_size
                    ));
                }
            }
            drop(st);
            let key = (group.index(), group.generation());
            let bindings = if e.pass == Pass::Compute { &mut e.compute.bindings } else { &mut e.render.bindings };
            let slot = &mut bindings.groups[index as usize];
            let n = dynamic_offsets.len();
            if slot.group == Some(key) && slot.offsets[..slot.offset_count as usize] == *dynamic_offsets {
                return Ok(());
            }
            slot.group = Some(key);
            slot.offset_count = n as u8;
            slot.offsets[..n].copy_from_slice(dynamic_offsets);
            bindings.dirty |= 1 << index;
            bindings.touched |= 1 << index;
            bindings.validated = false;
            if e.tracker.seen_groups.first_use(key.0, e.tracker.epoch) {
                e.used.groups.push(key);
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
            e.dispatches += 1;
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
            if !b.usage.contains(BufferUsages::INDIRECT) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "indirect arguments need INDIRECT usage; buffer '{}' has {:?}",
                    b.label,
                    b.usage
                ));
            }
            if offset % 4 != 0 {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "indirect offset {offset} is not a multiple of 4"
                ));
            }
            crate::device::check_range(OP, &e.label, "indirect arguments", offset, 12, b.size)?;
            e.prepare_dispatch(&st, Some(buffer.index()), OP)?;
            e.record(|r| r.dispatch_indirect(&b.raw, offset));
            drop(st);
            e.use_buffer(buffer.index(), buffer.generation());
            e.dispatches += 1;
            Ok(())
        })
    }

    /// Checks pipeline and groups agree (once per change), binds changed groups, and
    /// inserts the barrier the dispatch's accesses need.
    fn prepare_dispatch(
        &mut self,
        st: &DeviceState<A>,
        indirect: Option<u32>,
        op: &'static str,
    ) -> Result<()> {
        let Some((pi, _)) = self.compute.pipeline else {
            return Err(fail!(
                InvalidState,
                op,
                &self.label,
                "no compute pipeline is set"
            ));
        };
        let Some(p) = st.compute_pipelines.slot(pi).and_then(|s| s.value.as_ref()) else {
            return Err(fail!(
                InvalidState,
                op,
                &self.label,
                "the compute pipeline is gone"
            ));
        };
        let count = p.info.group_compat.len();
        if !self.compute.bindings.validated {
            super::render::check_groups(
                &self.label,
                op,
                &p.label,
                &p.info,
                &self.compute.bindings,
                st,
            )?;
            self.compute.bindings.validated = true;
        }
        let dirty = self.compute.bindings.dirty & ((1u16 << count) - 1) as u8;
        if dirty != 0 {
            if let Some(layout) = st
                .pipeline_layouts
                .slot(p.info.layout.0)
                .and_then(|s| s.value.as_ref())
            {
                for g in 0..count {
                    if dirty & (1 << g) == 0 {
                        continue;
                    }
                    let bound = self.compute.bindings.groups[g];
                    let Some(group) = bound
                        .group
                        .and_then(|(i, _)| st.bind_groups.slot(i))
                        .and_then(|s| s.value.as_ref())
                    else {
                        continue;
                    };
                    let offsets = &bound.offsets[..bound.offset_count as usize];
                    self.record(|r| {
                        r.set_bind_group(
                            BindPoint::Compute,
                            &layout.raw,
                            g as u32,
                            &group.raw,
                            offsets,
                        )
                    });
                }
            }
            self.compute.bindings.dirty &= !dirty;
        }
        // Barriers: does anything this dispatch touches conflict with what came before?
        let mut need = self.barriers.first;
        let indirect_access = Access {
            write: false,
            stages: Stages::DRAW_INDIRECT,
        };
        if let Some(i) = indirect {
            need |= self
                .tracker
                .hazard(Kind::Buffer, i, indirect_access, &self.barriers);
        }
        for g in 0..count {
            let Some(group) = self.compute.bindings.groups[g]
                .group
                .and_then(|(i, _)| st.bind_groups.slot(i))
                .and_then(|s| s.value.as_ref())
            else {
                continue;
            };
            for u in group.uses.iter() {
                let access = Access {
                    write: u.write,
                    stages: Stages::COMPUTE,
                };
                need |= match u.tracked {
                    Tracked::Buffer(i) => {
                        self.tracker.hazard(Kind::Buffer, i, access, &self.barriers)
                    }
                    Tracked::Texture(i) => {
                        self.tracker
                            .hazard(Kind::Texture, i, access, &self.barriers)
                    }
                    Tracked::None => false,
                };
            }
        }
        if need {
            self.barrier(Stages::COMPUTE | Stages::DRAW_INDIRECT);
        }
        if let Some(i) = indirect {
            self.tracker
                .record(Kind::Buffer, i, indirect_access, &mut self.barriers);
        }
        for g in 0..count {
            let Some(group) = self.compute.bindings.groups[g]
                .group
                .and_then(|(i, _)| st.bind_groups.slot(i))
                .and_then(|s| s.value.as_ref())
            else {
                continue;
            };
            for u in group.uses.iter() {
                let access = Access {
                    write: u.write,
                    stages: Stages::COMPUTE,
                };
                match u.tracked {
                    Tracked::Buffer(i) => {
                        self.tracker
                            .record(Kind::Buffer, i, access, &mut self.barriers)
                    }
                    Tracked::Texture(i) => {
                        self.tracker
                            .record(Kind::Texture, i, access, &mut self.barriers)
                    }
                    Tracked::None => {}
                }
            }
        }
        Ok(())
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
