//! Command encoders and command buffers.
//!
//! An encoder records into its own native command buffer as calls arrive (no intermediate
//! command list). Every call is validated first; the first refused call latches, poisons
//! the encoder, and [`CommandEncoder::finish`] reports it. Passes are opened and closed on
//! the encoder (they cannot nest) and copies happen outside them. The encoder inserts the
//! barriers and layout transitions recorded usage needs (see [`tracker`]).

mod binder;
mod compute;
mod render;
mod tracker;
mod transfer;

pub use compute::{ComputePassDescriptor, PassTimestampWrites};
pub use render::{
    RenderPassColorAttachment, RenderPassDepthStencilAttachment, RenderPassDescriptor,
};
pub use tracker::Tracker;
/// Most dynamic-offset bindings one bind group may have (each pass keeps a fixed table).
pub(crate) const MAX_DYNAMIC_OFFSETS: usize = binder::MAX_DYNAMIC;
pub(crate) use tracker::{Access, BarrierState, Kind};

use crate::DefaultApi;
use crate::device::{Device, DeviceState};
use crate::error::{Error, ErrorKind, Result, fail};
use vigil_hal::{Api, CommandEncoder as _, MemoryBarrier, Stages};

/// How to create a command encoder.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandEncoderDescriptor<'a> {
    /// Label.
    pub label: &'a str,
}

/// Objects a command buffer names directly, each once: `(slot, generation)`.
#[derive(Debug, Default)]
pub(crate) struct Used {
    pub buffers: Vec<(u32, u32)>,
    pub textures: Vec<(u32, u32)>,
    pub views: Vec<(u32, u32)>,
    pub groups: Vec<(u32, u32)>,
    pub compute_pipelines: Vec<(u32, u32)>,
    pub render_pipelines: Vec<(u32, u32)>,
    pub query_sets: Vec<(u32, u32)>,
    /// Buffers and textures reached through bind groups (indices), for last-use stamps.
    pub member_buffers: Vec<u32>,
    pub member_textures: Vec<u32>,
    /// The device's destroy epoch when recording began.
    pub epoch: u64,
    /// A group used here had a member destroyed or mapped: submit checks everything.
    pub stale: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    None,
    Compute,
    Render,
}

/// Records commands for one command buffer. Borrowed from its device.
pub struct CommandEncoder<'d, A: Api = DefaultApi> {
    pub(crate) device: &'d Device<A>,
    pub(crate) raw: Option<A::CommandEncoder>,
    pub(crate) label: String,
    pub(crate) error: Option<Error>,
    pub(crate) pass: Pass,
    pub(crate) tracker: Tracker,
    pub(crate) barriers: BarrierState,
    pub(crate) used: Used,
    pub(crate) compute: compute::ComputeState,
    pub(crate) render: render::RenderState,
    pub(crate) dispatches: u64,
    pub(crate) draws: u64,
    pub(crate) recorded: bool,
    /// Queries written by this encoder: `(set slot, bitset)`.
    pub(crate) written_queries: Vec<(u32, Vec<u64>)>,
    /// This recording's ticket (see `Recordings`): closed when the encoder is dropped, or
    /// handed to its command buffer by `finish`.
    pub(crate) ticket: u64,
}

/// Whether buffer `(i, g)` is live and unmapped.
#[inline]
pub(crate) fn buffer_ok<A: Api>(st: &DeviceState<A>, i: u32, g: u32) -> bool {
    st.buffers.is_live(i, g)
        && st
            .buffers
            .slot(i)
            .and_then(|s| s.value.as_ref())
            .is_some_and(|b| b.mapping.is_none())
}

/// Whether view `(i, g)` and its texture are live.
#[inline]
pub(crate) fn view_ok<A: Api>(st: &DeviceState<A>, i: u32, g: u32) -> bool {
    st.views.is_live(i, g)
        && st
            .views
            .slot(i)
            .and_then(|s| s.value.as_ref())
            .is_some_and(|v| st.textures.is_live(v.texture.0, v.texture.1))
}

/// Whether every member of `group` is live (and its buffers unmapped).
pub(crate) fn members_ok<A: Api>(
    st: &DeviceState<A>,
    group: &crate::device::BindGroupObj<A>,
) -> bool {
    group.uses.iter().all(|u| match u.member {
        crate::device::Member::Buffer(bi, bg) => buffer_ok(st, bi, bg),
        crate::device::Member::View(vi, vg) => view_ok(st, vi, vg),
        crate::device::Member::Sampler(si, sg) => st.samplers.is_live(si, sg),
    })
}

/// Checks `size` bytes of indirect arguments at `offset` in `b`: `INDIRECT` usage, a
/// 4-byte-aligned offset, and the range inside the buffer.
pub(crate) fn check_indirect<A: Api>(
    op: &'static str,
    label: &str,
    b: &crate::device::BufferObj<A>,
    offset: u64,
    size: u64,
) -> Result<()> {
    if !b.usage.contains(vigil_hal::BufferUsages::INDIRECT) {
        return Err(fail!(
            UsageMismatch,
            op,
            label,
            "indirect arguments need INDIRECT usage; buffer '{}' has {:?}",
            b.label,
            b.usage
        ));
    }
    if offset % 4 != 0 {
        return Err(fail!(
            OutOfBounds,
            op,
            label,
            "indirect offset {offset} is not a multiple of 4"
        ));
    }
    crate::device::check_range(op, label, "indirect arguments", offset, size, b.size)
}

/// A finished command buffer, ready for [`Device::submit`].
pub struct CommandBuffer<'d, A: Api = DefaultApi> {
    pub(crate) device: &'d Device<A>,
    pub(crate) hal: Option<(A::CommandEncoder, A::CommandBuffer)>,
    pub(crate) label: String,
    pub(crate) used: Used,
    pub(crate) dispatches: u64,
    pub(crate) draws: u64,
    /// The recording's ticket, closed when the command buffer is submitted or dropped.
    pub(crate) ticket: u64,
}

impl<A: Api> std::fmt::Debug for CommandEncoder<'_, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandEncoder")
            .field("label", &self.label)
            .field("poisoned", &self.error.is_some())
            .finish()
    }
}

impl<A: Api> std::fmt::Debug for CommandBuffer<'_, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandBuffer")
            .field("label", &self.label)
            .finish()
    }
}

impl<A: Api> Device<A> {
    /// Creates a command encoder.
    pub fn create_command_encoder(
        &self,
        desc: &CommandEncoderDescriptor<'_>,
    ) -> Result<CommandEncoder<'_, A>> {
        const OP: &str = "create_command_encoder";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let mut raw = self.take_encoder(&mut st, desc.label, OP)?;
        if let Err(e) = raw.begin(desc.label) {
            st.free_encoders.push((raw, None));
            return Err(self.hal_error(e, OP, desc.label));
        }
        let mut tracker = st.free_trackers.pop().unwrap_or_default();
        tracker.begin();
        let ticket = st.recordings.open();
        let used = Used {
            epoch: st.destroy_epoch,
            ..Used::default()
        };
        Ok(CommandEncoder {
            device: self,
            raw: Some(raw),
            label: desc.label.to_owned(),
            error: None,
            pass: Pass::None,
            tracker,
            barriers: BarrierState::default(),
            used,
            compute: compute::ComputeState::default(),
            render: render::RenderState::default(),
            dispatches: 0,
            draws: 0,
            recorded: false,
            written_queries: Vec::new(),
            ticket,
        })
    }

    /// Closes a recording and releases what waited only for it.
    pub(crate) fn close_recording(&self, st: &mut DeviceState<A>, ticket: u64) {
        if ticket != 0 && st.recordings.close(ticket) {
            self.release_retired(st, self.completion.completed());
        }
    }
}

impl<'d, A: Api> CommandEncoder<'d, A> {
    /// Whether an earlier call was refused (every later call is refused too).
    pub fn is_poisoned(&self) -> bool {
        self.error.is_some()
    }

    /// Refuses the call when the encoder is already poisoned.
    #[inline]
    pub(crate) fn check_usable(&self, op: &'static str) -> Result<()> {
        match &self.error {
            None => Ok(()),
            Some(first) => Err(self.poisoned(first, op)),
        }
    }

    #[cold]
    fn poisoned(&self, first: &Error, op: &'static str) -> Error {
        Error::new(
            ErrorKind::InvalidState,
            op,
            &self.label,
            format!("the encoder is poisoned by an earlier refused call: {first}"),
        )
    }

    /// Latches `e` as the encoder's first error and returns it.
    #[cold]
    pub(crate) fn latch(&mut self, e: Error) -> Error {
        if self.error.is_none() {
            self.error = Some(e.clone());
        }
        e
    }

    /// Runs a recording step: refused when poisoned; an error latches.
    #[inline]
    pub(crate) fn step<T>(
        &mut self,
        op: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.check_usable(op)?;
        match f(self) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.latch(e)),
        }
    }

    /// The state, borrowed for one step.
    #[inline]
    pub(crate) fn state(&self, op: &'static str) -> Result<std::cell::RefMut<'d, DeviceState<A>>> {
        self.device.state(op)
    }

    /// Records into the native encoder. It is present from creation until `finish` or
    /// drop, both of which take the encoder, so the `None` arm never runs.
    #[inline]
    pub(crate) fn record(&mut self, f: impl FnOnce(&mut crate::native::Rec<'_, A>)) {
        if let Some(raw) = self.raw.as_mut() {
            f(&mut crate::native::Rec(raw));
        }
    }

    /// Refuses outside the expected pass.
    #[inline]
    pub(crate) fn expect_pass(&self, want: Pass, op: &'static str) -> Result<()> {
        if self.pass == want {
            return Ok(());
        }
        Err(self.pass_error(want, op))
    }

    #[cold]
    fn pass_error(&self, want: Pass, op: &'static str) -> Error {
        let msg = match (want, self.pass) {
            (Pass::None, Pass::Compute) => {
                "a compute pass is open; end it first (passes cannot nest, and copies happen outside passes)"
            }
            (Pass::None, Pass::Render) => {
                "a render pass is open; end it first (passes cannot nest, and copies happen outside passes)"
            }
            (Pass::Compute, _) => "this command belongs in a compute pass; none is open",
            (Pass::Render, _) => "this command belongs in a render pass; none is open",
            (Pass::None, Pass::None) => "unexpected pass state",
        };
        Error::new(ErrorKind::InvalidState, op, &self.label, msg)
    }

    /// Emits a global barrier from everything pending to every later command and starts a
    /// new generation. The new generation means "every earlier access is ordered before
    /// whatever comes next", so the barrier's destination is all commands, whatever kind
    /// of command asked for it: a barrier to graphics stages only, before a render pass,
    /// would leave a later copy unordered against the copies before the pass.
    #[inline]
    pub(crate) fn barrier(&mut self) {
        let src = if self.barriers.first {
            Stages::ALL_COMMANDS
        } else {
            self.barriers.pending
        };
        self.record(|r| {
            r.memory_barrier(MemoryBarrier {
                src,
                dst: Stages::ALL_COMMANDS,
            })
        });
        self.barriers.generation = self.barriers.generation.wrapping_add(1).max(1);
        self.barriers.pending = Stages::empty();
        self.barriers.pending_writes = false;
        self.barriers.first = false;
    }

    /// Notes an object named directly by this command buffer (first time only).
    #[inline]
    pub(crate) fn use_buffer(&mut self, index: u32, generation: u32) {
        if self
            .tracker
            .seen_buffers
            .first_use(index, self.tracker.epoch)
        {
            self.used.buffers.push((index, generation));
        }
    }

    /// Notes a texture named directly.
    #[inline]
    pub(crate) fn use_texture(&mut self, index: u32, generation: u32) {
        if self
            .tracker
            .seen_textures
            .first_use(index, self.tracker.epoch)
        {
            self.used.textures.push((index, generation));
        }
    }

    /// Finishes recording. Reports the first refused call, or an open pass.
    pub fn finish(mut self) -> Result<CommandBuffer<'d, A>> {
        const OP: &str = "finish";
        if let Some(first) = self.error.take() {
            // The first refused call is what the caller needs to hear about.
            return Err(first);
        }
        if self.pass != Pass::None {
            let e = Error::new(
                ErrorKind::InvalidState,
                OP,
                &self.label,
                "a pass is still open; end it before finishing",
            );
            return Err(self.latch(e));
        }
        if self.recorded {
            // Make the command buffer's writes visible to host reads after completion.
            let src = if self.barriers.first {
                Stages::ALL_COMMANDS
            } else {
                self.barriers.pending | Stages::ALL_COMMANDS
            };
            self.record(|r| {
                r.memory_barrier(MemoryBarrier {
                    src,
                    dst: Stages::HOST,
                })
            });
        }
        let Some(mut raw) = self.raw.take() else {
            return Err(Error::new(
                ErrorKind::InvalidState,
                OP,
                &self.label,
                "already finished",
            ));
        };
        match raw.end() {
            Ok(cb) => Ok(CommandBuffer {
                device: self.device,
                hal: Some((raw, cb)),
                label: std::mem::take(&mut self.label),
                used: std::mem::take(&mut self.used),
                dispatches: self.dispatches,
                draws: self.draws,
                ticket: std::mem::take(&mut self.ticket),
            }),
            Err(e) => {
                self.raw = Some(raw);
                let label = self.label.clone();
                Err(self.device.hal_error(e, OP, &label))
            }
        }
    }
}

impl<A: Api> Drop for CommandEncoder<'_, A> {
    fn drop(&mut self) {
        let tracker = std::mem::take(&mut self.tracker);
        match self.device.state.try_borrow_mut() {
            Ok(mut st) => {
                if let Some(mut raw) = self.raw.take() {
                    raw.discard();
                    st.free_encoders.push((raw, None));
                }
                st.free_trackers.push(tracker);
                self.device.close_recording(&mut st, self.ticket);
            }
            Err(_) => {
                if let Some(raw) = self.raw.take() {
                    self.device.hal.destroy_command_encoder(raw);
                }
            }
        }
    }
}

impl<'d, A: Api> CommandBuffer<'d, A> {
    /// Label the encoder had.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Checks that everything the command buffer names is still alive and usable. The
    /// common case is generation compares only; messages are built on failure.
    pub(crate) fn validate_for_submit(
        &self,
        device: &Device<A>,
        st: &DeviceState<A>,
    ) -> Result<()> {
        if self.device.id != device.id {
            return Err(Error::new(
                ErrorKind::DeviceMismatch,
                "submit",
                &self.label,
                format!(
                    "the command buffer was recorded on device {}, not this one ({})",
                    self.device.id, device.id
                ),
            ));
        }
        let buffer_ok = |i: u32, g: u32| buffer_ok(st, i, g);
        if !self.used.stale && st.destroy_epoch == self.used.epoch {
            // Nothing was destroyed or mapped since recording began, so everything the
            // recording checked is still live and every group's members were seen live
            // and unmapped. Buffers named directly may have been mapped before recording
            // began (recording allows that; submission does not), so they are checked.
            if self.used.buffers.iter().all(|&(i, g)| buffer_ok(i, g)) {
                return Ok(());
            }
            return Err(self.explain_refusal(st));
        }
        let view_ok = |i: u32, g: u32| view_ok(st, i, g);
        let all_ok = self.used.buffers.iter().all(|&(i, g)| buffer_ok(i, g))
            && self
                .used
                .textures
                .iter()
                .all(|&(i, g)| st.textures.is_live(i, g))
            && self.used.views.iter().all(|&(i, g)| view_ok(i, g))
            && self
                .used
                .compute_pipelines
                .iter()
                .all(|&(i, g)| st.compute_pipelines.is_live(i, g))
            && self
                .used
                .render_pipelines
                .iter()
                .all(|&(i, g)| st.render_pipelines.is_live(i, g))
            && self
                .used
                .query_sets
                .iter()
                .all(|&(i, g)| st.query_sets.is_live(i, g))
            && self.used.groups.iter().all(|&(i, g)| {
                st.bind_groups.is_live(i, g)
                    && st
                        .bind_groups
                        .slot(i)
                        .and_then(|s| s.value.as_ref())
                        .is_some_and(|group| members_ok(st, group))
            });
        if all_ok {
            Ok(())
        } else {
            Err(self.explain_refusal(st))
        }
    }

    /// Names the first object that makes the submission invalid.
    #[cold]
    fn explain_refusal(&self, st: &DeviceState<A>) -> Error {
        const OP: &str = "submit";
        let label_of = |l: Option<&str>| l.unwrap_or("").to_owned();
        let gone = |kind: &str, label: String| {
            Error::new(
                ErrorKind::InvalidState,
                OP,
                &self.label,
                format!(
                    "the command buffer uses {kind} '{label}', which was destroyed after recording"
                ),
            )
        };
        let mapped = |label: &str, via: &str| {
            Error::new(
                ErrorKind::InvalidState,
                OP,
                &self.label,
                format!(
                    "buffer '{label}'{via} is mapped; unmap it before submitting work that uses it"
                ),
            )
        };
        for &(i, g) in &self.used.buffers {
            let b = st.buffers.slot(i).and_then(|s| s.value.as_ref());
            if !st.buffers.is_live(i, g) {
                return gone("buffer", label_of(b.map(|b| b.label.as_str())));
            }
            if let Some(b) = b.filter(|b| b.mapping.is_some()) {
                return mapped(&b.label, "");
            }
        }
        for &(i, g) in &self.used.textures {
            if !st.textures.is_live(i, g) {
                return gone(
                    "texture",
                    label_of(
                        st.textures
                            .slot(i)
                            .and_then(|s| s.value.as_ref())
                            .map(|t| t.label.as_str()),
                    ),
                );
            }
        }
        for &(i, g) in &self.used.views {
            let view = st.views.slot(i).and_then(|s| s.value.as_ref());
            if !st.views.is_live(i, g)
                || !view.is_some_and(|v| st.textures.is_live(v.texture.0, v.texture.1))
            {
                return gone("texture view", label_of(view.map(|v| v.label.as_str())));
            }
        }
        for &(i, g) in &self.used.groups {
            let Some(group) = st.bind_groups.slot(i).and_then(|s| s.value.as_ref()) else {
                return gone("bind group", String::new());
            };
            if !st.bind_groups.is_live(i, g) {
                return gone("bind group", group.label.clone());
            }
            for u in group.uses.iter() {
                let (alive, kind, label) = match u.member {
                    crate::device::Member::Buffer(bi, bg) => {
                        let b = st.buffers.slot(bi).and_then(|s| s.value.as_ref());
                        if let Some(b) = b.filter(|b| b.mapping.is_some()) {
                            return mapped(
                                &b.label,
                                &format!(" (bound by bind group '{}')", group.label),
                            );
                        }
                        (
                            st.buffers.is_live(bi, bg),
                            "buffer",
                            b.map(|b| b.label.clone()),
                        )
                    }
                    crate::device::Member::View(vi, vg) => {
                        let v = st.views.slot(vi).and_then(|s| s.value.as_ref());
                        let tex_live =
                            v.is_some_and(|v| st.textures.is_live(v.texture.0, v.texture.1));
                        (
                            st.views.is_live(vi, vg) && tex_live,
                            "texture view",
                            v.map(|v| v.label.clone()),
                        )
                    }
                    crate::device::Member::Sampler(si, sg) => (
                        st.samplers.is_live(si, sg),
                        "sampler",
                        st.samplers
                            .slot(si)
                            .and_then(|s| s.value.as_ref())
                            .map(|s| s.label.clone()),
                    ),
                };
                if !alive {
                    return Error::new(
                        ErrorKind::InvalidState,
                        OP,
                        &self.label,
                        format!(
                            "bind group '{}' binds {kind} '{}', which was destroyed",
                            group.label,
                            label.unwrap_or_default()
                        ),
                    );
                }
            }
        }
        for &(i, g) in &self.used.compute_pipelines {
            if !st.compute_pipelines.is_live(i, g) {
                return gone(
                    "compute pipeline",
                    label_of(
                        st.compute_pipelines
                            .slot(i)
                            .and_then(|s| s.value.as_ref())
                            .map(|p| p.label.as_str()),
                    ),
                );
            }
        }
        for &(i, g) in &self.used.render_pipelines {
            if !st.render_pipelines.is_live(i, g) {
                return gone(
                    "render pipeline",
                    label_of(
                        st.render_pipelines
                            .slot(i)
                            .and_then(|s| s.value.as_ref())
                            .map(|p| p.label.as_str()),
                    ),
                );
            }
        }
        for &(i, g) in &self.used.query_sets {
            if !st.query_sets.is_live(i, g) {
                return gone(
                    "query set",
                    label_of(
                        st.query_sets
                            .slot(i)
                            .and_then(|s| s.value.as_ref())
                            .map(|q| q.label.as_str()),
                    ),
                );
            }
        }
        Error::new(
            ErrorKind::InvalidState,
            OP,
            &self.label,
            "the command buffer names an object that is no longer usable",
        )
    }

    /// Stamps everything the command buffer names with the submission's serial.
    pub(crate) fn mark_used(&self, st: &mut DeviceState<A>, serial: u64) {
        for &i in &self.used.member_buffers {
            if let Some(s) = st.buffers.slot_mut(i) {
                s.last_use = serial;
            }
        }
        for &i in &self.used.member_textures {
            if let Some(s) = st.textures.slot_mut(i) {
                s.last_use = serial;
            }
        }
        macro_rules! stamp {
            ($reg:ident, $list:ident) => {
                for &(i, _) in &self.used.$list {
                    if let Some(s) = st.$reg.slot_mut(i) {
                        s.last_use = serial;
                    }
                }
            };
        }
        stamp!(buffers, buffers);
        stamp!(textures, textures);
        stamp!(views, views);
        // Groups are not stamped: a destroyed group waits for all earlier submissions.
        stamp!(compute_pipelines, compute_pipelines);
        stamp!(render_pipelines, render_pipelines);
        stamp!(query_sets, query_sets);
    }
}

impl<A: Api> Drop for CommandBuffer<'_, A> {
    fn drop(&mut self) {
        match self.device.state.try_borrow_mut() {
            Ok(mut st) => {
                if let Some((mut raw, cb)) = self.hal.take() {
                    // Never submitted: nothing of it is pending, so the pool can be reset.
                    crate::native::reset_all::<A>(&mut raw, vec![cb]);
                    st.free_encoders.push((raw, None));
                }
                // After the pool reset: the native command buffer no longer names anything.
                self.device.close_recording(&mut st, self.ticket);
            }
            Err(_) => {
                if let Some((raw, _)) = self.hal.take() {
                    self.device.hal.destroy_command_encoder(raw);
                }
            }
        }
    }
}
