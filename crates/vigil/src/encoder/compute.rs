//! Compute passes: pipelines, bind groups with dynamic offsets, dispatches. Every dispatch
//! is a usage scope of its own: its uses are applied to the tracker before it, with the
//! barriers they need recorded in front of it.

use super::binder::{Binder, MAX_GROUPS};
use super::used::SourceKey;
use super::used::find;
use super::{CommandEncoder, Pass};
use crate::device::indirect::{self, Pipeline};
use crate::error::{Result, fail};
use crate::handle::{BindGroup, Buffer, ComputePipeline, Handle, QuerySet};
use crate::track::Use;
use crate::validate;
use vigil_hal::{Access, Api, BindPoint, BufferBarrier, CommandEncoder as _, Stages};

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

/// A pass's timestamp queries after validation: the set's `(slot, generation)`, and the
/// queries written at its beginning and end.
pub(crate) type PassQueries = ((u32, u32), Option<u32>, Option<u32>);

/// What a compute pass has bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComputeState {
    pub binder: Binder,
    /// When the pass began in a native command buffer of its own (the recording had written
    /// an `INDIRECT` buffer before it): the number of its first uses. Indirect dispatches
    /// whose arguments nothing wrote since are checked in one batch in front of the pass.
    pub front: Option<u64>,
}

/// Where an indirect call's check is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// In front of the recording, with its other early checks (arguments nothing in the
    /// recording wrote before them).
    Early,
    /// In front of the open compute pass (arguments written earlier in the recording, but
    /// not since the pass began).
    Front,
    /// Just before the call.
    InPlace,
}

/// The use of indirect arguments the dispatch reads itself (no check on the backend).
const INDIRECT: Use = Use::buffer(Stages::DRAW_INDIRECT, Access::INDIRECT_READ);

/// The use of indirect arguments the check reads (a storage read in a compute shader).
const CHECKED: Use = Use::buffer(Stages::COMPUTE, Access::SHADER_READ);

/// Where an indirect dispatch's check reads and writes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CheckedArgs {
    /// Index of the argument buffer's group in the recording's sources.
    source: usize,
    /// The word of that binding the arguments start at.
    word: u32,
    /// Index of the scratch buffer's lease in the recording's leases.
    pub(super) lease: usize,
    /// The slot's offset in the scratch buffer (the dynamic offset of its group).
    pub(super) slot_offset: u32,
    /// The limits the counts are checked against: per dimension, in all (0: none), and 0.
    /// For draw arguments ([`CheckedArgs::draw`]): 0, the first instance's word (the
    /// arguments' words when it is not checked), the arguments' words, 1 for an indexed
    /// draw, and the indices the bound index range holds.
    pub(super) limits: [u32; 5],
}

/// The draw arguments one indirect draw's check copies (see `device/indirect.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DrawCheck {
    /// Indexed: `Some` of the indices the bound index range holds (the arguments' index
    /// range must lie within them); `None` for a draw that is not indexed.
    pub indices: Option<u32>,
    /// Whether a first instance other than 0 makes the draw do nothing (a device without
    /// `INDIRECT_FIRST_INSTANCE`).
    pub first_instance: bool,
}

impl CheckedArgs {
    /// Checks draw arguments instead of counts: an indexed draw's five words, with the
    /// first instance last, or a draw's four (see `device/indirect.rs`).
    pub(super) fn draw(mut self, check: DrawCheck) -> CheckedArgs {
        let (words, first) = if check.indices.is_some() {
            (5, 4)
        } else {
            (4, 3)
        };
        let first = if check.first_instance { first } else { words };
        let (indexed, indices) = check.indices.map_or((0, 0), |n| (1, n));
        self.limits = [0, first, words, indexed, indices];
        self
    }

    /// Clamps a draw count to `max` instead (see `device/indirect.rs`).
    pub(super) fn count(mut self, max: u32) -> CheckedArgs {
        self.limits = [0, max, 0, 0, 0];
        self
    }

    /// The check's immediate data for a run of `count` arguments from this one on, `stride`
    /// words apart, into slots `slot_words` apart: the word, the limits, the first slot's
    /// word, then those three.
    fn immediates(
        &self,
        slot_words: u32,
        count: u32,
        stride: u32,
    ) -> [u8; indirect::IMMEDIATES as usize] {
        let mut out = [0u8; indirect::IMMEDIATES as usize];
        let [a, b, c, d, e] = self.limits;
        let words = [
            self.word,
            a,
            b,
            c,
            d,
            e,
            self.slot_offset / 4,
            slot_words,
            count,
            stride,
        ];
        for (o, w) in out.chunks_exact_mut(4).zip(words) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Whether `next` continues a run of `count` checks from this one whose arguments lie
    /// `stride` words apart (`None`: a run of one, whose stride `next` sets): the same
    /// argument binding, scratch buffer and limits, its slot the run's next and its
    /// arguments the next at the stride. Returns the run's stride.
    fn continued_by(
        &self,
        next: &CheckedArgs,
        count: u32,
        stride: Option<u32>,
        slot_bytes: u32,
    ) -> Option<u32> {
        let same =
            self.source == next.source && self.lease == next.lease && self.limits == next.limits;
        let slot = count
            .checked_mul(slot_bytes)
            .and_then(|o| self.slot_offset.checked_add(o));
        if !same || slot != Some(next.slot_offset) {
            return None;
        }
        let stride = stride.unwrap_or_else(|| next.word.wrapping_sub(self.word));
        (self.word.wrapping_add(count.wrapping_mul(stride)) == next.word).then_some(stride)
    }
}

impl<A: Api> CommandEncoder<A> {
    /// Begins a compute pass. Passes cannot nest.
    ///
    /// Differs from WebGPU's `beginComputePass`: no pass object; the pass's commands are
    /// called on the encoder until [`CommandEncoder::end_compute_pass`].
    pub fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_>) -> Result<()> {
        const OP: &str = "begin_compute_pass";
        self.timeline_pass("compute pass", desc.label)?;
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let ts = e.prepare_pass_timestamps(desc.timestamp_writes, OP)?;
            // Indirect arguments written earlier in the recording are checked in one batch
            // in front of the pass, which therefore begins a native command buffer of its
            // own (the batch goes between it and what came before; see `end_compute_pass`).
            let front = e.used.indirect_args_written() && matches!(e.indirect_check(OP), Ok(true));
            if front {
                e.flush_pending(OP)?;
                e.cut(OP)?;
            }
            e.ensure_open(OP)?;
            let writes = ts.and_then(|(key, beginning, end)| {
                let set = e.used.query_sets.get(key.0, key.1)?;
                Some(vigil_hal::PassTimestampWrites {
                    query_set: &*set.raw,
                    beginning,
                    end,
                })
            });
            if let Some(pool) = e.pool.as_mut() {
                crate::native::Rec::<A>(pool).begin_compute_pass(
                    &vigil_hal::ComputePassDescriptor {
                        label: desc.label,
                        timestamp_writes: writes,
                    },
                );
            }
            e.pass = Pass::Compute;
            e.pass_begins_debug();
            e.pass_begins_statistics();
            e.compute = ComputeState {
                front: front.then_some(e.used.seq.wrapping_add(1)),
                ..ComputeState::default()
            };
            e.recorded = true;
            Ok(())
        })
    }

    /// Ends the compute pass.
    pub fn end_compute_pass(&mut self) -> Result<()> {
        const OP: &str = "end_compute_pass";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            e.debug_groups_closed(OP, "the pass")?;
            e.statistics_closed(OP)?;
            let core = e.core.clone();
            if let Some(mut r) = e.rec() {
                r.end_compute_pass();
                core.progress.record(&mut r, Stages::COMPUTE);
            }
            e.pass = Pass::None;
            e.record_front_checks(OP)
        })?;
        self.timeline_pass_end()
    }

    /// Binds a compute pipeline.
    pub fn set_compute_pipeline(&mut self, pipeline: ComputePipeline) -> Result<()> {
        const OP: &str = "set_compute_pipeline";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let key = (pipeline.index(), pipeline.generation());
            // Looked up before the repeat check: a stale or foreign handle equal in slot
            // and generation to the bound pipeline is still refused.
            let p = find(&mut e.used.compute_pipelines, &e.core, pipeline, OP)?;
            if e.compute.binder.pipeline == Some(key) {
                return Ok(());
            }
            let p = p.clone();
            if let Some(pool) = e.pool.as_mut() {
                crate::native::Rec::<A>(pool).set_compute_pipeline(&p.raw);
            }
            e.compute.binder.set_pipeline(&e.used, key, &p.info);
            Ok(())
        })
    }

    /// Binds a bind group at `index` for the open pass, with one dynamic offset per
    /// dynamic binding of its layout, in binding order.
    #[inline]
    pub fn set_bind_group(
        &mut self,
        index: u32,
        group: BindGroup,
        dynamic_offsets: &[u32],
    ) -> Result<()> {
        if dynamic_offsets.is_empty() && self.set_known_group(index, group) {
            return Ok(());
        }
        self.set_bind_group_checked(index, group, dynamic_offsets)
    }

    /// [`CommandEncoder::set_bind_group`]'s short path: a group without dynamic offsets,
    /// met before in this recording and still live, set in an open pass of an encoder
    /// that refused nothing. What the checks need is then in the recording's own record
    /// of the group; the call is one step, as [`CommandEncoder::step`] counts them. `false`
    /// (nothing done) for anything else, which the checked path decides, refusing with
    /// the rule where one is broken.
    #[inline(always)]
    fn set_known_group(&mut self, index: u32, group: BindGroup) -> bool {
        if self.error.is_some()
            || self.pass == Pass::None
            || !validate::encoder::group_index_fits(index, &self.core.limits, MAX_GROUPS)
            || !self.group_live(group)
        {
            return false;
        }
        let (gi, gg) = (group.index(), group.generation());
        let info = self.used.groups.aux(gi, gg);
        let Some(compat) = self
            .used
            .group_info
            .get(info as usize)
            .filter(|i| i.dynamic == 0)
            .map(|i| i.compat)
        else {
            return false;
        };
        self.calls.enter();
        pass_binder(self.pass, &mut self.compute, &mut self.render).set_group(
            &mut self.used,
            index as usize,
            (gi, gg),
            info as usize,
            compat,
            &[],
        );
        true
    }

    /// Whether `group` is of this device and live: nothing was destroyed since recording
    /// began (one load), else its registry slot says so. Both of `set_bind_group`'s
    /// paths ask it.
    #[inline(always)]
    fn group_live(&self, group: BindGroup) -> bool {
        group.device_id() == self.core.id
            && (self.used.unchanged(&self.core)
                || self
                    .core
                    .objects
                    .bind_groups
                    .is_live(group.index(), group.generation()))
    }

    /// [`CommandEncoder::set_bind_group`] through [`CommandEncoder::step`], every rule
    /// checked.
    #[inline(never)]
    fn set_bind_group_checked(
        &mut self,
        index: u32,
        group: BindGroup,
        dynamic_offsets: &[u32],
    ) -> Result<()> {
        const OP: &str = "set_bind_group";
        self.step(OP, |e| {
            e.expect_some_pass(OP, "bind groups")?;
            validate::encoder::group_index(OP, &e.label, index, &e.core.limits, MAX_GROUPS)?;
            let (gi, gg) = (group.index(), group.generation());
            let info = e.used.groups.aux(gi, gg);
            let live = e.group_live(group);
            let known = e.used.group_info.get(info as usize).filter(|_| live);
            let (info, compat) = match known {
                // Met before in this recording and still live: what the checks need is in
                // the recording's own compact record of the group.
                Some(i) if i.dynamic == 0 && dynamic_offsets.is_empty() => {
                    (info as usize, i.compat)
                }
                _ => {
                    let first_meeting = info == u32::MAX;
                    let g = find(&mut e.used.groups, &e.core, group, OP)?;
                    validate::encoder::dynamic_offsets(
                        OP,
                        &e.label,
                        &g.label,
                        &g.dynamic,
                        dynamic_offsets,
                    )?;
                    // Members are live while nothing was destroyed since the group was
                    // made; otherwise each is looked at.
                    if first_meeting && g.epoch != e.used.epoch && !members_live(&e.core, g) {
                        // A member went before recording began: submission checks
                        // everything (and refuses, naming it).
                        e.epoch = u64::MAX;
                    }
                    let info = e.used.group_info_of(gi, gg);
                    let compat = e.used.group_info.get(info).map_or(u32::MAX, |i| i.compat);
                    (info, compat)
                }
            };
            pass_binder(e.pass, &mut e.compute, &mut e.render).set_group(
                &mut e.used,
                index as usize,
                (gi, gg),
                info,
                compat,
                dynamic_offsets,
            );
            Ok(())
        })
    }

    /// Sets `data` as the open pass's immediate data (`var<immediate>` in WGSL) from byte
    /// `offset`. A pass starts with all of it zero; each draw or dispatch sees what was set
    /// before it, up to its pipeline layout's `immediate_size`. `offset` and `data.len()`
    /// are multiples of 4 and end within `max_immediate_size`.
    ///
    /// WebGPU's proposed `setImmediates` (wgpu's `set_immediates`; push constants before).
    pub fn set_immediates(&mut self, offset: u32, data: &[u8]) -> Result<()> {
        const OP: &str = "set_immediates";
        self.step(OP, |e| {
            e.expect_some_pass(OP, "immediate data")?;
            validate::encoder::immediates(&e.label, offset, data.len(), &e.core.limits)?;
            let b = pass_binder(e.pass, &mut e.compute, &mut e.render);
            if b.pointer && offset < vigil_shader::glsl::ROOT_SIZE && !data.is_empty() {
                return Err(fail!(
                    GpuRoot,
                    OP,
                    &e.label,
                    "the first {} bytes of a pointer pipeline's immediate data are its root; set it with set_root",
                    vigil_shader::glsl::ROOT_SIZE
                ));
            }
            pass_binder(e.pass, &mut e.compute, &mut e.render)
                .set_immediates(offset as usize, data);
            Ok(())
        })
    }

    /// Refuses a pass command (`what` is set in a pass) when no pass is open.
    fn expect_some_pass(&self, op: &'static str, what: &str) -> Result<()> {
        if self.pass == Pass::None {
            return Err(fail!(
                PassNotOpen,
                op,
                &self.label,
                "{what} can only be set inside a compute or render pass, and none is open"
            ));
        }
        Ok(())
    }

    /// Dispatches `x * y * z` workgroups (WebGPU's `dispatchWorkgroups`, shorter name).
    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        const OP: &str = "dispatch";
        self.step(OP, move |e| {
            e.expect_pass(Pass::Compute, OP)?;
            validate::encoder::dispatch(&e.label, [x, y, z], &e.core.limits)?;
            e.prepare_dispatch(None, true, OP)?;
            if let Some(mut r) = e.rec() {
                r.dispatch([x, y, z]);
            }
            e.dispatches = e.dispatches.wrapping_add(1);
            Ok(())
        })
    }

    /// Dispatches with `(x, y, z)` read from `buffer` at `offset` (12 bytes, 4-aligned, in
    /// an `INDIRECT` buffer).
    ///
    /// The counts are checked on the GPU: a small dispatch of vigil's own copies them in
    /// front of this one, all three zero when any exceeds `max_compute_workgroups_per_dimension`
    /// — then the dispatch does nothing, as in WebGPU — so counts written by the GPU
    /// cannot make a dispatch the driver does not define. The copy reads the arguments as
    /// a storage buffer in the compute stage: order a writer before the dispatch as for
    /// any compute read (vigil derives that barrier itself when the writer is recorded
    /// through vigil).
    pub fn dispatch_indirect(&mut self, buffer: Buffer, offset: u64) -> Result<()> {
        const OP: &str = "dispatch_indirect";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let b = find(&mut e.used.buffers, &e.core, buffer, OP)?;
            validate::encoder::indirect(OP, &e.label, b.shape(), offset, 12)?;
            let size = b.size;
            let (bi, bg) = (buffer.index(), buffer.generation());
            let slot = e.used.buffer_slot_of(bi, bg);
            if !e.indirect_check(OP)? {
                // No check on this backend: the counts go to the driver as they are.
                e.prepare_dispatch(Some((slot, offset, INDIRECT)), true, OP)?;
                if let (Some(b), Some(pool)) = (e.used.buffers.get(bi, bg), e.pool.as_mut()) {
                    crate::native::Rec::<A>(pool).dispatch_indirect(&b.raw, offset);
                }
                e.dispatches = e.dispatches.wrapping_add(1);
                return Ok(());
            }
            let key = SourceKey {
                heap: false,
                index: bi,
                generation: bg,
                base: 0,
            };
            // Arguments nothing in this recording wrote before this dispatch hold at this
            // point what they held when the command buffer began: checked in front of it,
            // in one batch (one check per argument range). Arguments nothing wrote since the
            // pass began, when it began a native command buffer of its own, are checked in
            // one batch in front of the pass. Others are checked just before the dispatch.
            let batch = if !e.used.buffer_written(slot, offset, 12) {
                Batch::Early
            } else if e
                .compute
                .front
                .is_some_and(|since| !e.used.buffer_written_since(slot, offset, 12, since))
            {
                Batch::Front
            } else {
                Batch::InPlace
            };
            let checks = e.used.indirect.early.len();
            let at = e.checked_args(
                None,
                size,
                key,
                offset..offset.saturating_add(12),
                batch,
                OP,
            )?;
            if batch == Batch::InPlace {
                e.prepare_dispatch(Some((slot, offset, CHECKED)), false, OP)?;
                e.record_checked_dispatch(at);
                e.dispatches = e.dispatches.wrapping_add(1);
                return Ok(());
            }
            // The groups as for a direct dispatch; then the arguments' read, which no write
            // before it in the recording (in the pass, for a check in front of the pass)
            // needs ordering against (the dispatch's own groups writing them is the
            // conflict WebGPU refuses).
            e.prepare_dispatch(None, true, OP)?;
            let written = match (batch, e.compute.front) {
                (Batch::Front, Some(since)) => e.used.buffer_written_since(slot, offset, 12, since),
                _ => e.used.buffer_written(slot, offset, 12),
            };
            if written {
                return Err(fail!(
                    PassUsageConflict,
                    OP,
                    &e.label,
                    "the indirect buffer is also written by the dispatch"
                ));
            }
            if batch == Batch::Early {
                // The check reads them once, in front of the recording: its read goes to
                // the tracker with the check's first dispatch (later writes wait for it).
                if e.used.indirect.early.len() != checks {
                    e.used.use_buffer(slot, offset, 12, CHECKED, &mut e.pending);
                    e.flush_pending(OP)?;
                }
            } else {
                // The check in front of the pass reads them after a barrier of its own from
                // every earlier write: the tracker moves on (later writes wait for the
                // read), and the barrier it would ask for here is that one.
                let n = e.pending.buffers.len();
                e.used.use_buffer(slot, offset, 12, CHECKED, &mut e.pending);
                e.pending.buffers.truncate(n);
            }
            let ind = &e.used.indirect;
            if let (Some(scratch), Some(pool)) = (
                ind.leases.get(at.lease).and_then(|l| l.scratch()),
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool)
                    .dispatch_indirect(&scratch.buffer, u64::from(at.slot_offset));
            }
            e.dispatches = e.dispatches.wrapping_add(1);
            Ok(())
        })
    }

    /// Whether indirect counts are checked (`false`: the backend has no check): the
    /// check's pipeline, made on the device's first use, kept by the recording once met.
    pub(super) fn indirect_check(&mut self, op: &'static str) -> Result<bool> {
        if self.used.indirect.pipeline.is_none() {
            self.used.indirect.pipeline = self.core.indirect_pipeline(op)?;
        }
        Ok(self.used.indirect.pipeline.is_some())
    }

    /// Takes a scratch slot for an indirect call's checked arguments and finds (or makes)
    /// the group binding the buffer they are in (`size` bytes, `key` naming it with the
    /// binding's offset left 0; `raw`, or the recording's buffer of `key` when `None`), at
    /// the bytes `args` of it. `batch`: where the check goes; in front of the command buffer
    /// or of the pass, a check of the same arguments already there serves again. Needs the
    /// check's pipeline met ([`CommandEncoder::indirect_check`]).
    pub(super) fn checked_args(
        &mut self,
        raw: Option<&A::Buffer>,
        size: u64,
        mut key: SourceKey,
        args: std::ops::Range<u64>,
        batch: Batch,
        op: &'static str,
    ) -> Result<CheckedArgs> {
        let offset = args.start;
        let core = &self.core;
        let super::used::Used {
            indirect: ind,
            buffers,
            ..
        } = &mut self.used;
        // The argument buffer is bound whole when it fits one storage binding, else from
        // the aligned offset below its arguments.
        let whole = size & !3;
        let (base, size) = if whole <= core.limits.max_storage_buffer_binding_size {
            (0, whole)
        } else {
            let align = u64::from(core.limits.min_storage_buffer_offset_alignment).max(4);
            let base = offset.saturating_sub(offset.checked_rem(align).unwrap_or(0));
            (base, args.end.saturating_sub(base))
        };
        key.base = base;
        let source = match ind.sources.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let (Some(check), Some(raw)) = (
                    ind.pipeline.as_deref(),
                    raw.or_else(|| buffers.get(key.index, key.generation).map(|b| &*b.raw)),
                ) else {
                    return Err(no_check(op, &self.label));
                };
                let g = core.indirect_group(&check.src_layout, raw, base, size, op)?;
                ind.sources.push((key, g));
                ind.sources.len().saturating_sub(1)
            }
        };
        let word = u32::try_from(offset.saturating_sub(base) / 4).unwrap_or(u32::MAX);
        match batch {
            Batch::Early => {
                // Most often the same arguments as the last dispatch's: no hashing for those.
                if let Some(at) = ind
                    .early_last
                    .filter(|a| a.source == source && a.word == word)
                {
                    return Ok(at);
                }
                if let Some(at) = ind
                    .early_at
                    .get(&(source, word))
                    .and_then(|&i| ind.early.get(i))
                {
                    ind.early_last = Some(*at);
                    return Ok(*at);
                }
            }
            Batch::Front => {
                if let Some(at) = ind
                    .front_at
                    .get(&(source, word))
                    .and_then(|&i| ind.front.get(i))
                {
                    return Ok(*at);
                }
            }
            Batch::InPlace => {}
        }
        if ind.leases.is_empty() || ind.taken >= indirect::SLOTS {
            let Some(check) = ind.pipeline.as_deref() else {
                return Err(no_check(op, &self.label));
            };
            let lease = core.lease_scratch(check, op)?;
            ind.leases.push(lease);
            ind.taken = 0;
        }
        let slot = ind.taken;
        ind.taken = slot.saturating_add(1);
        let slot_offset = u64::from(slot).saturating_mul(indirect::slot_size(&core.limits));
        let max = core.limits.max_compute_workgroups_per_dimension;
        let at = CheckedArgs {
            source,
            word,
            lease: ind.leases.len().saturating_sub(1),
            slot_offset: u32::try_from(slot_offset).unwrap_or(0),
            limits: [max, max, max, 0, 0],
        };
        match batch {
            Batch::Early => {
                ind.early_at.insert((source, word), ind.early.len());
                ind.early.push(at);
                ind.early_last = Some(at);
            }
            Batch::Front => {
                ind.front_at.insert((source, word), ind.front.len());
                ind.front.push(at);
            }
            Batch::InPlace => {}
        }
        Ok(at)
    }

    /// Records the early checks (see [`CommandEncoder::checked_args`]) in a native command
    /// buffer of their own, placed in front of the recording's: one pipeline, a dispatch
    /// per run of checks, then one barrier from their writes to every indirect read.
    pub(super) fn record_early_checks(&mut self, op: &'static str) -> Result<()> {
        let slot_bytes = self.slot_bytes();
        let ind = &self.used.indirect;
        let (false, Some(check), Some(pool)) = (
            ind.early.is_empty(),
            ind.pipeline.as_ref(),
            self.pool.as_mut(),
        ) else {
            return Ok(());
        };
        pool.begin(&self.label)
            .map_err(|e| self.core.hal_error(e, op, &self.label))?;
        let mut r = crate::native::Rec::<A>(pool);
        record_check_batch(&mut r, check, ind, &ind.early, slot_bytes);
        let cb = pool
            .end()
            .map_err(|e| self.core.hal_error(e, op, &self.label))?;
        self.segments.insert(0, cb);
        Ok(())
    }

    /// Records the checks of the render pass that just ended (its indirect arguments) at
    /// the end of the open native command buffer, which goes in front of the pass's: after
    /// the application's barriers to `DRAW_INDIRECT` (chained to the checks' compute
    /// stage), and before one barrier from the checks' writes to every indirect read.
    pub(super) fn record_pass_checks(&mut self, op: &'static str) -> Result<()> {
        if self.render.pass_checks.is_empty() {
            return Ok(());
        }
        let checks = std::mem::take(&mut self.render.pass_checks);
        let Some(check) = self.used.indirect.pipeline.clone() else {
            return Ok(());
        };
        let slot_bytes = self.slot_bytes();
        self.ensure_open(op)?;
        let Some(pool) = self.pool.as_mut() else {
            return Ok(());
        };
        let mut r = crate::native::Rec::<A>(pool);
        wait_for_indirect_reads(&mut r);
        record_check_batch(&mut r, &check, &self.used.indirect, &checks, slot_bytes);
        Ok(())
    }

    /// Records the checks batched in front of the compute pass that just ended (see
    /// [`Batch::Front`]) in a native command buffer of their own, placed between the pass's
    /// and the one before it: a barrier from every earlier write to the checks' reads, the
    /// checks, then one barrier from their writes to every indirect read.
    pub(super) fn record_front_checks(&mut self, op: &'static str) -> Result<()> {
        if self.used.indirect.front.is_empty() {
            return Ok(());
        }
        let checks = std::mem::take(&mut self.used.indirect.front);
        self.used.indirect.front_at.clear();
        let Some(check) = self.used.indirect.pipeline.clone() else {
            return Ok(());
        };
        let slot_bytes = self.slot_bytes();
        self.cut(op)?;
        let pass = self.segments.pop();
        self.ensure_open(op)?;
        if let Some(pool) = self.pool.as_mut() {
            let mut r = crate::native::Rec::<A>(pool);
            r.barriers(
                Some(vigil_hal::MemoryBarrier {
                    src: Stages::ALL_COMMANDS,
                    dst: Stages::COMPUTE,
                }),
                &[],
                &[],
            );
            record_check_batch(&mut r, &check, &self.used.indirect, &checks, slot_bytes);
        }
        self.cut(op)?;
        self.segments.extend(pass);
        Ok(())
    }

    /// Bytes from one scratch slot to the next on this device.
    pub(super) fn slot_bytes(&self) -> u32 {
        u32::try_from(indirect::slot_size(&self.core.limits)).unwrap_or(u32::MAX)
    }

    /// Records the check's dispatch, restores the pass's pipeline and bindings, and
    /// dispatches with the checked counts.
    pub(super) fn record_checked_dispatch(&mut self, at: CheckedArgs) {
        let slot_bytes = self.slot_bytes();
        let ind = &self.used.indirect;
        let (Some(check), Some(scratch), Some(_), Some(pool)) = (
            ind.pipeline.as_deref(),
            ind.leases.get(at.lease).and_then(|l| l.scratch()),
            ind.sources.get(at.source),
            self.pool.as_mut(),
        ) else {
            return;
        };
        let mut r = crate::native::Rec::<A>(pool);
        // The check writes through a binding of the whole scratch buffer, where earlier
        // indirect reads of the recording read other slots: disjoint bytes, but a
        // validation layer sees the binding's range, so the check waits for those reads.
        wait_for_indirect_reads(&mut r);
        record_checks(&mut r, check, ind, std::slice::from_ref(&at), slot_bytes);
        let slot_offset = u64::from(at.slot_offset);
        r.barriers(
            None,
            &[BufferBarrier {
                buffer: &scratch.buffer,
                offset: slot_offset,
                size: 12,
                src: Stages::COMPUTE,
                src_access: Access::SHADER_WRITE,
                dst: Stages::DRAW_INDIRECT,
                dst_access: Access::INDIRECT_READ,
            }],
            &[],
        );
        // The check's pipeline and groups replaced the pass's: bind them all again.
        let binder = &mut self.compute.binder;
        if let Some(p) = binder
            .pipeline
            .and_then(|(i, g)| self.used.compute_pipelines.get(i, g))
        {
            r.set_compute_pipeline(&p.raw);
            binder.rebind_all();
            binder.flush(&self.used, &p.info.layout.raw, &mut r, BindPoint::Compute);
        }
        r.dispatch_indirect(&scratch.buffer, slot_offset);
    }

    /// Checks the pass is ready to dispatch (a bit test), records the barriers the
    /// dispatch's uses need, and (`bind`) binds changed groups; an indirect dispatch whose
    /// check binds everything again after it leaves that to the check.
    // Always inlined: with the indirect paths calling it too, the compiler would otherwise
    // keep it out of line in every dispatch (~30 instructions more per dispatch, the guard's
    // `dispatch`).
    #[inline(always)]
    pub(super) fn prepare_dispatch(
        &mut self,
        indirect: Option<(usize, u64, Use)>,
        bind: bool,
        op: &'static str,
    ) -> Result<()> {
        if !self.compute.binder.ready() {
            return Err(self.not_ready(op));
        }
        if self.compute.binder.pointer {
            self.pointer_ready(op)?;
        }
        if self.used.tracker.any_retired() {
            let all = self.compute.binder.used_mask();
            self.groups_alias(false, all, op)?;
        }
        let binder = &self.compute.binder;
        // One group of distinct resources: its uses cannot conflict, so they go to the
        // tracker as one scope would apply them, without building the scope.
        if binder.count == 1 && indirect.is_none() {
            if let Some(bound) = binder.groups.first() {
                if self
                    .used
                    .apply_group_direct(bound, Stages::COMPUTE, &mut self.pending)
                {
                    return self.dispatch_flush(bind, op);
                }
            }
        }
        for g in 0..binder.count {
            if let Err(what) = binder.scope_group(&self.used, &mut self.scope, g, Stages::COMPUTE) {
                self.scope.clear();
                return Err(fail!(
                    PassUsageConflict,
                    op,
                    &self.label,
                    "{what} is written and used another way by one dispatch; a dispatch cannot order the two"
                ));
            }
        }
        if let Some((slot, offset, use_)) = indirect {
            if self.scope.buffer(slot, offset, 12, use_).is_err() {
                self.scope.clear();
                return Err(fail!(
                    PassUsageConflict,
                    op,
                    &self.label,
                    "the indirect buffer is also written by the dispatch"
                ));
            }
        }
        self.scope.apply(&mut self.used, &mut self.pending);
        self.dispatch_flush(bind, op)
    }

    /// Records the barriers a dispatch's uses need and (`bind`) binds changed groups.
    #[inline]
    fn dispatch_flush(&mut self, bind: bool, op: &'static str) -> Result<()> {
        self.flush_pending(op)?;
        if !bind {
            return Ok(());
        }
        let Some((pi, pg)) = self.compute.binder.pipeline else {
            return Ok(());
        };
        if let (Some(p), Some(pool)) = (self.used.compute_pipelines.get(pi, pg), self.pool.as_mut())
        {
            self.compute.binder.flush(
                &self.used,
                &p.info.layout.raw,
                &mut crate::native::Rec(pool),
                BindPoint::Compute,
            );
        }
        Ok(())
    }

    /// Why a pass is not ready to draw or dispatch (the slow path of `Binder::ready`).
    #[cold]
    pub(crate) fn not_ready(&self, op: &'static str) -> crate::Error {
        let (binder, what) = match self.pass {
            Pass::Render => (&self.render.binder, "render"),
            _ => (&self.compute.binder, "compute"),
        };
        let Some((pi, pg)) = binder.pipeline else {
            return fail!(PipelineNotSet, op, &self.label, "no {what} pipeline is set");
        };
        let info = match self.pass {
            Pass::Render => self
                .used
                .render_pipelines
                .get(pi, pg)
                .map(|p| (p.label.as_str(), &p.info)),
            _ => self
                .used
                .compute_pipelines
                .get(pi, pg)
                .map(|p| (p.label.as_str(), &p.info)),
        };
        let Some((label, info)) = info else {
            return fail!(PipelineNotSet, op, &self.label, "no {what} pipeline is set");
        };
        let bound = |g: usize| {
            let (i, generation) = binder.groups.get(g)?.group?;
            let group = self.used.groups.get(i, generation)?;
            Some(validate::encoder::BoundFacts {
                label: &group.label,
                compat: group.compat,
                sizes: &group.sizes,
            })
        };
        validate::encoder::groups_not_ready(
            op,
            &self.label,
            label,
            &info.group_compat,
            &info.late_checks,
            &bound,
        )
    }

    /// Validates pass timestamp writes and resets their queries where needed (in the
    /// open native command buffer, before the pass begins). Returns the set's key and the
    /// queries.
    pub(crate) fn prepare_pass_timestamps(
        &mut self,
        ts: Option<PassTimestampWrites>,
        op: &'static str,
    ) -> Result<Option<PassQueries>> {
        let Some(ts) = ts else { return Ok(None) };
        let set = find(&mut self.used.query_sets, &self.core, ts.query_set, op)?;
        validate::encoder::timestamp_set(op, &self.label, &set.label, set.ty)?;
        validate::encoder::pass_timestamps(
            op,
            &self.label,
            &set.label,
            set.count,
            ts.beginning,
            ts.end,
        )?;
        for q in [ts.beginning, ts.end].into_iter().flatten() {
            self.prepare_query_write(ts.query_set, q, op)?;
        }
        Ok(Some((
            (ts.query_set.index(), ts.query_set.generation()),
            ts.beginning,
            ts.end,
        )))
    }

    /// Before a query is written: resets its set the first time this encoder uses it, and
    /// the query itself when this encoder wrote it already (WebGPU lets a timestamp be
    /// overwritten; Vulkan wants a reset between two writes).
    pub(crate) fn prepare_query_write(
        &mut self,
        set: QuerySet,
        index: u32,
        op: &'static str,
    ) -> Result<()> {
        self.ensure_open(op)?;
        let rewritten = self.query_written(set.index(), index);
        if !self.reset_query_set_once(set, op)? && rewritten {
            if let (Some(q), Some(pool)) = (
                self.used.query_sets.get(set.index(), set.generation()),
                self.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool).reset_queries(&q.raw, index, 1);
            }
        }
        self.note_query_written(set.index(), index);
        Ok(())
    }

    /// Resets the whole of `set` the first time this encoder uses it (outside passes: a
    /// timestamp's write, or a render pass that counts occlusion into it, about to begin);
    /// whether it did. Every query is then reset before its first use in the recording.
    pub(crate) fn reset_query_set_once(&mut self, set: QuerySet, op: &'static str) -> Result<bool> {
        if self.written_queries.iter().any(|(s, _)| *s == set.index()) {
            return Ok(false);
        }
        self.ensure_open(op)?;
        if let (Some(q), Some(pool)) = (
            self.used.query_sets.get(set.index(), set.generation()),
            self.pool.as_mut(),
        ) {
            crate::native::Rec::<A>(pool).reset_queries(&q.raw, 0, q.count);
        }
        self.written_queries.push((set.index(), Vec::new()));
        Ok(true)
    }
}

/// Whether every member of a bind group is live (views with their textures).
fn members_live<A: Api>(core: &crate::device::Core<A>, g: &crate::device::BindGroupObj<A>) -> bool {
    let o = &core.objects;
    g.members.iter().all(|m| match m {
        crate::device::Member::Buffer { buffer, .. } => o
            .buffers
            .is_live(buffer.handle.index(), buffer.handle.generation()),
        crate::device::Member::View { view, .. } => {
            o.views
                .is_live(view.handle.index(), view.handle.generation())
                && o.textures.is_live(
                    view.texture.handle.index(),
                    view.texture.handle.generation(),
                )
        }
        crate::device::Member::Sampler(s) => {
            o.samplers.is_live(s.handle.index(), s.handle.generation())
        }
        crate::device::Member::Tlas(t) => o.tlas.is_live(t.handle.index(), t.handle.generation()),
    })
}

/// The binder of the open pass: the compute pass's, else the render pass's.
pub(super) fn pass_binder<'s>(
    pass: Pass,
    compute: &'s mut ComputeState,
    render: &'s mut super::render::RenderState,
) -> &'s mut Binder {
    if pass == Pass::Compute {
        &mut compute.binder
    } else {
        &mut render.binder
    }
}

/// A barrier from every earlier indirect read (`DRAW_INDIRECT`) to the checks' compute
/// stage: the application's own barriers to indirect reads chain through it to the checks,
/// and the checks' writes to a scratch buffer wait for earlier reads of it.
fn wait_for_indirect_reads<A: Api>(r: &mut crate::native::Rec<'_, A>) {
    r.barriers(
        Some(vigil_hal::MemoryBarrier {
            src: Stages::DRAW_INDIRECT,
            dst: Stages::COMPUTE,
        }),
        &[],
        &[],
    );
}

/// Records a batch of checks recorded ahead of the commands that read them (in a compute
/// pass of their own), then one barrier from their writes to every indirect read.
fn record_check_batch<A: Api>(
    r: &mut crate::native::Rec<'_, A>,
    check: &Pipeline<A>,
    ind: &crate::encoder::used::IndirectUse<A>,
    checks: &[CheckedArgs],
    slot_bytes: u32,
) {
    r.begin_compute_pass(&vigil_hal::ComputePassDescriptor {
        label: "vigil indirect checks",
        timestamp_writes: None,
    });
    record_checks(r, check, ind, checks, slot_bytes);
    r.end_compute_pass();
    r.barriers(
        Some(vigil_hal::MemoryBarrier {
            src: Stages::COMPUTE,
            dst: Stages::DRAW_INDIRECT,
        }),
        &[],
        &[],
    );
}

/// Records `checks` into `r`: the check's pipeline, then for each run of them (see
/// [`CheckedArgs::continued_by`]; slots `slot_bytes` apart) its argument group and its
/// scratch buffer's group (when they change), its immediates and one dispatch, an
/// invocation per check.
fn record_checks<A: Api>(
    r: &mut crate::native::Rec<'_, A>,
    check: &Pipeline<A>,
    ind: &crate::encoder::used::IndirectUse<A>,
    checks: &[CheckedArgs],
    slot_bytes: u32,
) {
    r.set_compute_pipeline(&check.pipeline);
    let (mut source, mut lease) = (usize::MAX, usize::MAX);
    let mut rest = checks;
    while let Some((first, after)) = rest.split_first() {
        let (mut count, mut stride) = (1u32, None);
        for next in after {
            match first.continued_by(next, count, stride, slot_bytes) {
                Some(s) if count < indirect::SLOTS => {
                    stride = Some(s);
                    count = count.saturating_add(1);
                }
                _ => break,
            }
        }
        rest = after.get(count.saturating_sub(1) as usize..).unwrap_or(&[]);
        let (Some(scratch), Some((_, group))) = (
            ind.leases.get(first.lease).and_then(|l| l.scratch()),
            ind.sources.get(first.source),
        ) else {
            continue;
        };
        if source != first.source {
            let key = A::bind_group_key(group);
            r.set_bind_group(BindPoint::Compute, &check.layout, 0, key, &[]);
            source = first.source;
        }
        if lease != first.lease {
            let key = A::bind_group_key(&scratch.group);
            r.set_bind_group(BindPoint::Compute, &check.layout, 1, key, &[]);
            lease = first.lease;
        }
        let immediates = first.immediates(slot_bytes / 4, count, stride.unwrap_or(0));
        r.set_immediates(&check.layout, &immediates);
        r.dispatch([count.div_ceil(indirect::CHECK_GROUP), 1, 1]);
    }
}

/// The refusal of a checked indirect call whose check's pipeline was never made (a defect in
/// vigil: callers make it first).
#[cold]
fn no_check(op: &'static str, label: &str) -> crate::Error {
    fail!(
        ShaderTranslate,
        op,
        label,
        "vigil's indirect-argument check is missing for this recording"
    )
}
