//! Submission, completion and the waits: serials 1, 2, 3, …; a completion counter that only
//! moves forward; waits bounded by progress; sticky, attributed loss.

use super::{Device, DeviceState};
use crate::encoder::CommandBuffer;
use crate::error::{Error, ErrorKind, Result};
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use vigil_hal::{Api, Device as _, DeviceError};

/// Which wait gave up on the GPU, or who else declared the loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitSite {
    /// A submission waiting for room among the command buffers in flight.
    QueueWait,
    /// `wait_for_serial_unless_stalled` or a readback waiting for a buffer's last use.
    SerialWait,
    /// A mapping wait.
    Mapping,
    /// A present waiting for its frame.
    Present,
    /// The drain when the device is dropped.
    Teardown,
    /// Not a wait: the driver reported the loss (or a submission failed on the GPU).
    Driver,
}

impl fmt::Display for WaitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WaitSite::QueueWait => "queue wait",
            WaitSite::SerialWait => "serial wait",
            WaitSite::Mapping => "mapping wait",
            WaitSite::Present => "present wait",
            WaitSite::Teardown => "teardown drain",
            WaitSite::Driver => "reported by the driver",
        })
    }
}

/// Who declared a device lost, first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LossSnapshot {
    /// Which wait gave up, or `Driver`.
    pub site: WaitSite,
    /// How long that wait actually ran (zero for `Driver`).
    pub elapsed: Duration,
    /// What was going on.
    pub reason: String,
}

impl fmt::Display for LossSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.site == WaitSite::Driver {
            write!(f, "reported by the driver during {}", self.reason)
        } else {
            write!(
                f,
                "{} gave up after {:.3} s without progress: {}",
                self.site,
                self.elapsed.as_secs_f64(),
                self.reason
            )
        }
    }
}

/// Loss of a native device, shared by every vigil device over it: sticky, and attributed
/// to the first cause only.
#[derive(Debug, Default)]
pub(crate) struct LossState {
    lost: AtomicBool,
    snapshot: Mutex<Option<LossSnapshot>>,
}

/// Completion state another thread may read: the completed serial, loss, and counters.
#[derive(Debug, Default)]
pub struct Completion {
    completed: AtomicU64,
    loss: std::sync::Arc<LossState>,
    pub(crate) command_buffers_in_flight: AtomicU64,
    pub(crate) room_waits: AtomicU64,
    pub(crate) wait_looks: AtomicU64,
}

impl Completion {
    /// Completion for another device over the same native device: its own serials, the
    /// same loss.
    pub(crate) fn sharing_loss(other: &Completion) -> Completion {
        Completion {
            loss: other.loss.clone(),
            ..Completion::default()
        }
    }

    /// The highest serial seen complete (every earlier one is complete too).
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }

    /// Whether the native device is lost.
    pub fn is_lost(&self) -> bool {
        self.loss.lost.load(Ordering::Acquire)
    }

    /// The first cause of loss, once declared.
    pub fn snapshot(&self) -> Option<LossSnapshot> {
        self.loss
            .snapshot
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Command buffers submitted and not yet seen complete.
    pub fn command_buffers_in_flight(&self) -> u64 {
        self.command_buffers_in_flight.load(Ordering::Acquire)
    }

    /// Submissions that found too many command buffers in flight and waited for room.
    pub fn room_waits(&self) -> u64 {
        self.room_waits.load(Ordering::Acquire)
    }

    /// How many times waits looked at the completion state.
    pub fn wait_looks(&self) -> u64 {
        self.wait_looks.load(Ordering::Acquire)
    }

    pub(crate) fn advance(&self, to: u64) {
        self.completed.fetch_max(to, Ordering::AcqRel);
    }

    /// Declares loss; only the first declaration is kept.
    pub(crate) fn declare_lost(&self, site: WaitSite, elapsed: Duration, reason: &str) {
        let mut snap = self.loss.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        if snap.is_none() {
            *snap = Some(LossSnapshot {
                site,
                elapsed,
                reason: reason.to_owned(),
            });
        }
        self.loss.lost.store(true, Ordering::Release);
    }
}

/// Bounds of the waits that detect a hung GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// No progress for this long means hung.
    pub stall: Duration,
    /// No single submission waits for room longer than this in all.
    pub total_cap: Duration,
    /// How long a wait looks at the completion counter before it blocks in the driver.
    pub spin: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            stall: Duration::from_secs(5),
            total_cap: Duration::from_secs(60),
            spin: SPIN_BEFORE_BLOCKING,
        }
    }
}

/// Counters for summaries and the observer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted submissions.
    pub submissions: u64,
    /// Command buffers in accepted submissions.
    pub command_buffers: u64,
    /// Dispatches in accepted submissions.
    pub dispatches: u64,
    /// Draws in accepted submissions.
    pub draws: u64,
    /// Submissions refused.
    pub refused_submissions: u64,
}

/// Submitted work not yet complete: what to recycle when it is.
pub(crate) struct InFlight<A: Api> {
    pub serial: u64,
    /// Command buffers of the submission (the in-flight bound counts these).
    pub command_buffers: u64,
    pub encoders: Vec<(A::CommandEncoder, A::CommandBuffer)>,
    pub staging: Vec<super::uploads::StagingChunk<A>>,
    pub staging_bytes: u64,
}

/// How long a wait looks at the completion counter before it blocks in the driver.
const SPIN_BEFORE_BLOCKING: Duration = Duration::from_micros(100);

/// Longest a wait blocks in the driver before it looks for breadcrumbs of passes done.
const PROGRESS_SLICE: Duration = Duration::from_millis(20);

impl<A: Api> Device<A> {
    /// Serial of the most recent accepted submission (0 before the first).
    pub fn last_submitted_serial(&self) -> u64 {
        self.last_submitted.get()
    }

    /// Highest serial known complete (without asking the GPU; see [`Device::poll`]).
    pub fn completed_serial(&self) -> u64 {
        self.completion.completed()
    }

    /// Completion state for other threads: completed serial and loss.
    pub fn completion(&self) -> std::sync::Arc<Completion> {
        self.completion.clone()
    }

    /// Whether the device is lost.
    pub fn is_lost(&self) -> bool {
        self.completion.is_lost()
    }

    /// The first cause of loss, if lost.
    pub fn loss_snapshot(&self) -> Option<LossSnapshot> {
        self.completion.snapshot()
    }

    /// Counters of accepted work.
    pub fn stats(&self) -> Stats {
        *self.stats.borrow()
    }

    /// Asks the GPU how far it got, then releases what completed work no longer needs and
    /// recycles command buffers. Returns the completed serial.
    pub fn poll(&self) -> Result<u64> {
        const OP: &str = "poll";
        let mut st = self.state(OP)?;
        self.refresh(&mut st, OP)
    }

    /// Reads the completion counter and processes everything up to it.
    pub(crate) fn refresh(&self, st: &mut DeviceState<A>, op: &'static str) -> Result<u64> {
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        let value = self
            .hal
            .completed_value()
            .map_err(|e| self.hal_error(e, op, &self.label))?;
        let completed = self.observe(value);
        self.process_completed(st, completed);
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        Ok(completed)
    }

    /// Turns the backend's completion counter into the device's completed serial: never
    /// past what was submitted, never backwards, and through the test seams (a held
    /// completion, a submission failing on the GPU).
    pub(crate) fn observe(&self, value: u64) -> u64 {
        self.completion.wait_looks.fetch_add(1, Ordering::Relaxed);
        let mut value = value.min(self.last_submitted.get());
        if let Some(f) = self.seams.faulted.get() {
            if value >= f {
                // As a command buffer the GPU faulted on completes: the root is lost before
                // the serial is reported complete.
                self.completion.declare_lost(
                    WaitSite::Driver,
                    Duration::ZERO,
                    &format!("submission {f} failed on the GPU"),
                );
                value = f.saturating_sub(1);
            }
        }
        if let Some(h) = self.seams.held.get() {
            value = value.min(h.saturating_sub(1));
        }
        self.completion.advance(value);
        self.completion.completed()
    }

    /// Recycles in-flight work and releases retired objects up to `completed`.
    pub(crate) fn process_completed(&self, st: &mut DeviceState<A>, completed: u64) {
        while st.in_flight.front().is_some_and(|f| f.serial <= completed) {
            let Some(done) = st.in_flight.pop_front() else {
                break;
            };
            self.completion
                .command_buffers_in_flight
                .fetch_sub(done.command_buffers, Ordering::AcqRel);
            for (encoder, cb) in done.encoders {
                st.free_encoders.push((encoder, Some(cb)));
            }
            for chunk in done.staging {
                self.recycle_staging(st, chunk);
            }
            st.staging.in_flight_bytes = st
                .staging
                .in_flight_bytes
                .saturating_sub(done.staging_bytes);
        }
        self.release_retired(st, completed);
    }

    /// A native encoder from the pool, or a new one.
    pub(crate) fn take_encoder(
        &self,
        st: &mut DeviceState<A>,
        label: &str,
        op: &'static str,
    ) -> Result<A::CommandEncoder> {
        match st.free_encoders.pop() {
            Some((mut e, spent)) => {
                if let Some(cb) = spent {
                    crate::native::reset_all::<A>(&mut e, vec![cb]);
                }
                Ok(e)
            }
            None => self
                .hal
                .create_command_encoder(label)
                .map_err(|e| self.hal_error(e, op, label)),
        }
    }

    /// Submits finished command buffers, in order, as one submission. Returns its serial.
    ///
    /// Refused (consuming no serial and running nothing) when a command buffer belongs to
    /// another device, names an object destroyed after recording, or uses a mapped buffer,
    /// or when the device is lost. When too many command buffers are in flight the call
    /// first waits for room, judged by progress: it gives up after the stall bound without
    /// a completion (5 s) or the total cap (60 s), declares the device lost and is refused.
    pub fn submit<'d>(
        &'d self,
        command_buffers: impl IntoIterator<Item = CommandBuffer<'d, A>>,
    ) -> Result<u64> {
        const OP: &str = "submit";
        let mut cbs: Vec<CommandBuffer<'d, A>> = command_buffers.into_iter().collect();
        let refused = |e: Error| {
            let mut stats = self.stats.borrow_mut();
            stats.refused_submissions = stats.refused_submissions.wrapping_add(1);
            Err(e)
        };
        if let Err(e) = self.check_alive(OP) {
            return refused(e);
        }
        let mut st = self.state(OP)?;
        for cb in &cbs {
            if let Err(e) = cb.validate_for_submit(self, &st) {
                drop(st);
                return refused(e);
            }
        }
        let needed = (cbs.len() as u64).saturating_add(u64::from(!st.uploads.is_empty()));
        if needed > self.max_in_flight {
            drop(st);
            return refused(Error::new(
                ErrorKind::LimitExceeded,
                OP,
                &self.label,
                format!(
                    "{needed} command buffers in one submission exceed max_command_buffers_in_flight ({}); no amount of waiting makes room for them",
                    self.max_in_flight
                ),
            ));
        }
        if self
            .completion
            .command_buffers_in_flight()
            .saturating_add(needed)
            > self.max_in_flight
        {
            if let Err(e) = self.wait_for_room(&mut st, needed, OP) {
                drop(st);
                return refused(e);
            }
        }
        let serial = self.last_submitted.get().saturating_add(1);
        let prelude = match self.build_prelude(&mut st, OP) {
            Ok(p) => p,
            Err(e) => {
                drop(st);
                return refused(e);
            }
        };
        let mut natives: Vec<&A::CommandBuffer> = Vec::with_capacity(cbs.len().saturating_add(1));
        if let Some(p) = &prelude {
            natives.push(&p.cb);
        }
        for cb in &cbs {
            if let Some((_, native)) = cb.hal.as_ref() {
                natives.push(native);
            }
        }
        let gate = self.seams.gate_for_next_submission();
        let submitted = match gate {
            #[cfg(feature = "test-seams")]
            Some(g) => self.hal.submit_gated(&natives, serial, g),
            _ => self.hal.submit(&natives, serial),
        };
        if let Err(e) = submitted {
            drop(natives);
            self.seams.ungate_refused(gate);
            // The driver refused the submission: the uploads queued with it are dropped (the
            // buffers keep their old contents) and the caller sees the driver's error.
            if let Some(mut p) = prelude {
                crate::native::reset_all::<A>(&mut p.encoder, vec![p.cb]);
                st.free_encoders.push((p.encoder, None));
                for c in p.staging {
                    self.hal.destroy_buffer(c.buffer);
                }
                for (i, _) in p.buffers {
                    if let Some(b) = st.buffers.slot_mut(i).and_then(|s| s.value.as_mut()) {
                        b.queued_writes = false;
                    }
                }
                st.restore_first_uses(p.zero_fills, p.texture_inits);
            }
            drop(st);
            return refused(self.hal_error(e, OP, &self.label));
        }
        drop(natives);
        self.last_submitted.set(serial);
        self.seams.note_submitted(serial);
        let mut flight = InFlight {
            serial,
            command_buffers: 0,
            encoders: Vec::with_capacity(cbs.len().saturating_add(1)),
            staging: Vec::new(),
            staging_bytes: 0,
        };
        if let Some(p) = prelude {
            for &(i, _) in &p.buffers {
                if let Some(s) = st.buffers.slot_mut(i) {
                    s.last_use = serial;
                    if let Some(b) = s.value.as_mut() {
                        b.queued_writes = false;
                    }
                }
            }
            for &(i, _) in &p.textures {
                if let Some(s) = st.textures.slot_mut(i) {
                    s.last_use = serial;
                }
            }
            st.staging.in_flight_bytes = st.staging.in_flight_bytes.saturating_add(p.staging_bytes);
            st.staging.batches = st.staging.batches.wrapping_add(1);
            flight.staging = p.staging;
            flight.staging_bytes = p.staging_bytes;
            flight.encoders.push((p.encoder, p.cb));
        }
        let (mut draws, mut dispatches) = (0, 0);
        for cb in &mut cbs {
            cb.mark_used(&mut st, serial);
            draws = u64::saturating_add(draws, cb.draws);
            dispatches = u64::saturating_add(dispatches, cb.dispatches);
            if let Some(pair) = cb.hal.take() {
                flight.encoders.push(pair);
            }
        }
        flight.command_buffers = flight.encoders.len() as u64;
        self.completion
            .command_buffers_in_flight
            .fetch_add(flight.command_buffers, Ordering::AcqRel);
        {
            let mut stats = self.stats.borrow_mut();
            stats.submissions = stats.submissions.wrapping_add(1);
            stats.command_buffers = stats.command_buffers.wrapping_add(cbs.len() as u64);
            stats.dispatches = stats.dispatches.wrapping_add(dispatches);
            stats.draws = stats.draws.wrapping_add(draws);
        }
        st.in_flight.push_back(flight);
        // Cheap opportunistic completion check keeps memory from piling up between polls.
        if let Ok(done) = self.hal.completed_value() {
            let completed = self.observe(done);
            self.process_completed(&mut st, completed);
        }
        drop(st);
        self.notify(|o| {
            o.submitted(&crate::observer::SubmissionInfo {
                serial,
                command_buffers: cbs.len(),
                draws,
                dispatches,
            })
        });
        Ok(serial)
    }

    /// Waits, judged by progress, until `needed` more command buffers fit in flight.
    fn wait_for_room(&self, st: &mut DeviceState<A>, needed: u64, op: &'static str) -> Result<()> {
        self.completion.room_waits.fetch_add(1, Ordering::AcqRel);
        let start = Instant::now();
        let mut last_progress = start;
        loop {
            let completed = self.refresh(st, op)?;
            if self
                .completion
                .command_buffers_in_flight()
                .saturating_add(needed)
                <= self.max_in_flight
            {
                return Ok(());
            }
            let t = self.timeouts.get();
            let stalled = last_progress.elapsed() >= t.stall;
            if stalled || start.elapsed() >= t.total_cap {
                let why = format!(
                    "a submission waited for room among {} command buffers in flight; serial {completed} was the last to complete{}",
                    self.completion.command_buffers_in_flight(),
                    if stalled {
                        ""
                    } else {
                        " (the total wait cap ran out)"
                    }
                );
                self.completion
                    .declare_lost(WaitSite::QueueWait, start.elapsed(), &why);
                return Err(self.lost_error(op));
            }
            let remaining = t
                .stall
                .saturating_sub(last_progress.elapsed())
                .min(t.total_cap.saturating_sub(start.elapsed()));
            if self.wait_next(completed, remaining, op)? {
                last_progress = Instant::now();
            }
        }
    }

    /// Waits up to `timeout` for a serial above `after` to complete; returns whether one
    /// did. Looks at completion state only when it changes (or, with a completion held
    /// back by a test seam, in short slices).
    pub(crate) fn wait_next(
        &self,
        after: u64,
        timeout: Duration,
        op: &'static str,
    ) -> Result<bool> {
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        let next = after.saturating_add(1);
        if next > self.last_submitted.get() {
            // Nothing more can complete; nothing to wait for.
            std::thread::sleep(timeout.min(Duration::from_millis(1)));
            return Ok(false);
        }
        let held = self.seams.held.get().is_some_and(|h| next >= h);
        let spin = self.timeouts.get().spin;
        if !held && !spin.is_zero() && self.info.device_type != vigil_hal::DeviceType::Cpu {
            // Short GPU work is often done within microseconds, sooner than a blocking
            // wait wakes up: look at the counter for a moment first. (Not on a CPU
            // driver, whose workers need the cores this would spin on.)
            let start = Instant::now();
            let until = timeout.min(spin);
            loop {
                let value = self
                    .hal
                    .completed_value()
                    .map_err(|e| self.hal_error(e, op, &self.label))?;
                if value >= next {
                    return Ok(self.observe(value) > after);
                }
                if start.elapsed() >= until {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        if held {
            std::thread::sleep(timeout.min(Duration::from_millis(2)));
        } else {
            // In slices, so that breadcrumbs are looked at while a long submission runs.
            self.hal
                .wait_for_value(next, timeout.min(PROGRESS_SLICE))
                .map_err(|e| self.hal_error(e, op, &self.label))?;
        }
        let value = self
            .hal
            .completed_value()
            .map_err(|e| self.hal_error(e, op, &self.label))?;
        let completed = self.observe(value) > after;
        // A pass that finished inside a submission is progress too.
        Ok(self.progress.moved(&self.hal) || completed)
    }

    /// Waits until `serial` completed or `timeout` passed; `Ok(true)` when it completed.
    pub fn wait_for_serial(&self, serial: u64, timeout: Duration) -> Result<bool> {
        const OP: &str = "wait_for_serial";
        self.check_wait_target(serial, OP)?;
        let start = Instant::now();
        while self.completion.completed() < serial {
            let remaining = timeout.saturating_sub(start.elapsed());
            if remaining.is_zero() {
                break;
            }
            self.wait_next(self.completion.completed(), remaining, OP)?;
        }
        let mut st = self.state(OP)?;
        self.refresh(&mut st, OP)?;
        Ok(self.completion.completed() >= serial)
    }

    /// Waits until `serial` completed, giving up only when the GPU made no progress (no
    /// submission completed) for `stall_bound`, measured from the last progress. Giving up
    /// declares the device lost, attributed to this wait.
    pub fn wait_for_serial_unless_stalled(&self, serial: u64, stall_bound: Duration) -> Result<()> {
        const OP: &str = "wait_for_serial_unless_stalled";
        self.check_wait_target(serial, OP)?;
        self.wait_progressing(serial, stall_bound, WaitSite::SerialWait, OP)?;
        let mut st = self.state(OP)?;
        self.refresh(&mut st, OP)?;
        Ok(())
    }

    fn check_wait_target(&self, serial: u64, op: &'static str) -> Result<()> {
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        if serial > self.last_submitted.get() {
            return Err(Error::new(
                ErrorKind::InvalidState,
                op,
                &self.label,
                format!(
                    "serial {serial} was never submitted (last submitted: {}); waiting for it would never end",
                    self.last_submitted.get()
                ),
            ));
        }
        Ok(())
    }

    /// The progress-judged wait every hang-detecting wait uses: gives up after `stall`
    /// without any completion, measured from the last one, and declares loss at `site`.
    pub(crate) fn wait_progressing(
        &self,
        serial: u64,
        stall: Duration,
        site: WaitSite,
        op: &'static str,
    ) -> Result<()> {
        let start = Instant::now();
        let mut last_progress = start;
        loop {
            if self.completion.is_lost() {
                return Err(self.lost_error(op));
            }
            let completed = self.completion.completed();
            if completed >= serial {
                return Ok(());
            }
            let remaining = stall.saturating_sub(last_progress.elapsed());
            if remaining.is_zero() {
                let why = format!(
                    "{op} waited for serial {serial}; serial {completed} was the last to complete"
                );
                self.completion.declare_lost(site, start.elapsed(), &why);
                return Err(self.lost_error(op));
            }
            if self.wait_next(completed, remaining, op)? {
                last_progress = Instant::now();
            }
        }
    }

    /// Drains at drop: opens any test-seam gate, waits for the last submission (bounded by
    /// progress), then releases every native object. When the end of the work cannot be
    /// confirmed (the waits keep failing and the total cap passes), the native objects are
    /// left alive rather than destroyed under the GPU.
    pub(crate) fn teardown(&mut self) {
        self.seams.release_all::<A>(&self.hal);
        let last = self.last_submitted.get();
        if !self.teardown_drain(last) {
            return;
        }
        let Ok(mut st) = self.state.try_borrow_mut() else {
            return;
        };
        let st = &mut *st;
        while let Some(done) = st.in_flight.pop_front() {
            for (encoder, _cb) in done.encoders {
                self.hal.destroy_command_encoder(encoder);
            }
            for c in done.staging {
                self.hal.destroy_buffer(c.buffer);
            }
        }
        for c in std::mem::take(&mut st.uploads.chunks)
            .into_iter()
            .chain(std::mem::take(&mut st.spare_staging))
        {
            self.hal.destroy_buffer(c.buffer);
        }
        st.spare_staging_bytes = 0;
        for (encoder, _) in st.free_encoders.drain(..) {
            self.hal.destroy_command_encoder(encoder);
        }
        self.release_everything(st);
        self.progress.release(&self.hal);
    }

    /// Waits, at teardown, until every submission completed, bounded by progress: a stall
    /// past the stall bound declares the device lost (attributed to the teardown drain). A
    /// failing wait falls back to polling the completion counter. Whatever the answers, the
    /// backend then confirms quiescence (done, or really lost) within what is left of the
    /// total cap; `false` when it could not, and nothing may be destroyed.
    fn teardown_drain(&self, last: u64) -> bool {
        let Timeouts {
            stall, total_cap, ..
        } = self.timeouts.get();
        let start = Instant::now();
        let mut last_progress = start;
        let mut seen = self.completion.completed();
        while seen < last && !self.completion.is_lost() && start.elapsed() < total_cap {
            let waited = self.hal.wait_for_value(last, Duration::from_millis(10));
            if self.progress.moved(&self.hal) {
                last_progress = Instant::now();
            }
            match self.hal.completed_value() {
                Ok(v) if v.min(last) > seen => {
                    seen = v.min(last);
                    last_progress = Instant::now();
                    self.completion.advance(seen);
                }
                Err(DeviceError::Lost) => {
                    self.completion.declare_lost(
                        WaitSite::Teardown,
                        start.elapsed(),
                        "the driver reported the device lost",
                    );
                }
                Ok(_) | Err(_) => {
                    if waited.is_err() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
            if seen < last && last_progress.elapsed() > stall {
                let why = format!(
                    "drop waited for serial {last}; serial {seen} was the last to complete"
                );
                self.completion
                    .declare_lost(WaitSite::Teardown, start.elapsed(), &why);
            }
        }
        self.hal.quiesce(
            total_cap
                .saturating_sub(start.elapsed())
                .max(Duration::from_millis(1)),
        )
    }
}
