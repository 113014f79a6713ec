//! Submission, completion and the waits: serials 1, 2, 3, …; a completion counter that only
//! moves forward; waits bounded by progress; sticky, attributed loss.
//!
//! A submission resolves each command buffer's first use of every resource against the
//! device's state of that resource (see [`crate::track`]): the barriers that state needs
//! go into a short command buffer of the device's own, in front of the user's (with the
//! staged uploads, when there are any), and the resources' states move on to what the
//! command buffer leaves them in.

use super::uploads::{PendingUploads, StagingAccount, StagingChunk};
use super::{Core, Device, lock};
use crate::encoder::used::SPARE_TABLES;
use crate::encoder::{CommandBuffer, Used};
use crate::error::{Error, Result};
use crate::native::Rec;
use crate::rules::Rule;
use crate::track::{State, Subresources, Transition};
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vigil_hal::{
    Access, Api, CommandEncoder as _, Device as _, DeviceError, MemoryBarrier, Stages,
    SubresourceRange, TextureAspect, TextureBarrier,
};

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
    loss: Arc<LossState>,
    pub(crate) command_buffers_in_flight: AtomicU64,
    pub(crate) room_waits: AtomicU64,
    pub(crate) wait_looks: AtomicU64,
}

impl Completion {
    /// Whether `other` is a device over the same native device (they share loss).
    pub(crate) fn same_root(&self, other: &Completion) -> bool {
        Arc::ptr_eq(&self.loss, &other.loss)
    }

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
    #[inline]
    pub fn is_lost(&self) -> bool {
        self.loss.lost.load(Ordering::Acquire)
    }

    /// The first cause of loss, once declared.
    pub fn snapshot(&self) -> Option<LossSnapshot> {
        lock(&self.loss.snapshot).clone()
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
        let mut snap = lock(&self.loss.snapshot);
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
    /// Heads of barriers (what a command buffer's first uses need against the device's
    /// state, put in front of it at submission) recorded anew.
    pub heads_recorded: u64,
    /// Heads of barriers submitted again as recorded for an earlier submission, because a
    /// command buffer needed exactly the same barriers.
    pub heads_reused: u64,
}

/// A native command pool and the command buffers it recorded.
pub(crate) type Pool<A> = (<A as Api>::CommandEncoder, Vec<<A as Api>::CommandBuffer>);

/// Submitted work not yet complete: what to recycle and release when it is.
pub(crate) struct InFlight<A: Api> {
    pub serial: u64,
    /// Command buffers of the submission (the in-flight bound counts these).
    pub command_buffers: u64,
    pub pools: Vec<Pool<A>>,
    pub staging: Vec<StagingChunk<A>>,
    pub staging_bytes: u64,
    /// Everything the submission uses, kept alive until it completes.
    pub used: Vec<Box<Used<A>>>,
    /// The uploads it carried (their destinations kept alive the same way).
    pub uploads: PendingUploads<A>,
    /// Devices on other queues whose timelines the submission waits for, kept until it
    /// completes (a semaphore a pending wait names must not go).
    pub _after: Vec<Arc<crate::native::Hal<A>>>,
}

/// Submission-side state, behind the device's queue lock.
pub(crate) struct QueueState<A: Api> {
    /// The write grant of a run of queue writes, while one is held (see `runs`). First, so
    /// dropped first: its gate closes before the staging chunk it writes into can go.
    pub grant: Option<super::runs::Grant>,
    /// Submitted work not yet seen complete, in serial order.
    pub in_flight: VecDeque<InFlight<A>>,
    /// Queue writes waiting for the next submission.
    pub uploads: PendingUploads<A>,
    pub staging: StagingAccount,
    /// Staging chunks of completed uploads, kept for reuse (within the budget).
    pub spare_staging: Vec<StagingChunk<A>>,
    pub spare_staging_bytes: u64,
    /// Textures just named by a texture heap: the next submission zeroes those never
    /// written and moves them to their sampled layout (`Core::make_resident`).
    pub resident: Vec<Arc<super::TextureObj<A>>>,
    /// Submission heads recorded once and submitted again while a command buffer needs
    /// exactly the same barriers (a frame's usual case).
    pub heads: Vec<CachedHead<A>>,
    /// Every buffer's state between submissions.
    pub buffer_states: super::BufferStates,
}

/// Most submission heads kept for resubmission.
const CACHED_HEADS: usize = 8;

/// A submission head (barriers only) kept to be submitted again: its own pool and
/// reusable command buffer, and the barriers it holds: the buffers' one global barrier,
/// and the textures' (by weak reference: while it is held, no other texture can take
/// one's address, so an address compare is an identity compare, and a head naming a
/// destroyed texture is never matched again).
pub(crate) struct CachedHead<A: Api> {
    pool: A::CommandEncoder,
    /// `None` only after a failed re-recording (never matched then).
    cb: Option<A::CommandBuffer>,
    buffers: Option<MemoryBarrier>,
    textures: Vec<(
        std::sync::Weak<super::TextureObj<A>>,
        Subresources,
        Transition,
    )>,
    /// The last submission it went in (0: none yet).
    serial: u64,
    /// Taken by the submission being planned.
    taken: bool,
}

impl<A: Api> CachedHead<A> {
    /// Whether it records exactly `b`.
    fn holds(&self, b: &Barriers<'_, A>) -> bool {
        self.cb.is_some()
            && self.buffers == b.buffers
            && self.textures.len() == b.textures.len()
            && self
                .textures
                .iter()
                .zip(&b.textures)
                .all(|((w, r, t), (obj, r2, t2))| {
                    std::ptr::eq(w.as_ptr(), Arc::as_ptr(obj)) && r == r2 && t == t2
                })
    }
}

/// A command buffer's head in a plan: recorded for this submission in the plan's pool,
/// or one of the queue's kept heads.
enum HeadCb<A: Api> {
    Own(A::CommandBuffer),
    /// A kept head, and whether it was recorded for an earlier submission.
    Cached(usize, bool),
}

impl<A: Api> QueueState<A> {
    pub fn new(staging_budget: u64) -> Self {
        QueueState {
            grant: None,
            resident: Vec::new(),
            in_flight: VecDeque::new(),
            uploads: PendingUploads::default(),
            staging: StagingAccount::new(staging_budget),
            spare_staging: Vec::new(),
            spare_staging_bytes: 0,
            heads: Vec::new(),
            buffer_states: super::BufferStates::default(),
        }
    }

    /// Native objects kept for reuse or for work in flight (pools and staging).
    pub fn pooled_native_objects(&self) -> u64 {
        let in_flight = self
            .in_flight
            .iter()
            .map(|f| f.pools.len().saturating_add(f.staging.len()) as u64)
            .fold(0u64, u64::saturating_add);
        (self.spare_staging.len() as u64)
            .saturating_add(self.uploads.chunks.len() as u64)
            .saturating_add(in_flight)
            .saturating_add(self.heads.len() as u64)
    }
}

/// How long a wait looks at the completion counter before it blocks in the driver.
const SPIN_BEFORE_BLOCKING: Duration = Duration::from_micros(100);

/// Longest a wait blocks in the driver before it looks for breadcrumbs of passes done.
const PROGRESS_SLICE: Duration = Duration::from_millis(20);

impl<A: Api> Device<A> {
    /// Serial of the most recent accepted submission (0 before the first).
    pub fn last_submitted_serial(&self) -> u64 {
        self.last_submitted.load(Ordering::Acquire)
    }

    /// Highest serial known complete (without asking the GPU; see [`Device::poll`]).
    pub fn completed_serial(&self) -> u64 {
        self.completion.completed()
    }

    /// Completion state for other threads: completed serial and loss.
    pub fn completion(&self) -> Arc<Completion> {
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
        *lock(&self.stats)
    }

    /// Asks the GPU how far it got, then releases what completed work no longer needs and
    /// recycles command pools. Returns the completed serial.
    pub fn poll(&self) -> Result<u64> {
        const OP: &str = "poll";
        let mut q = self.queue.lock();
        self.refresh(&mut q, OP)
    }

    /// Submits finished command buffers, in order, as one submission. Returns its serial.
    ///
    /// Refused (consuming no serial and running nothing) when a command buffer belongs to
    /// another device, names an object destroyed after recording, or uses a mapped buffer,
    /// or when the device is lost. When too many command buffers are in flight the call
    /// first waits for room, judged by progress: it gives up after the stall bound without
    /// a completion or the total cap (60 s), declares the device lost and is refused.
    ///
    /// Differs from WebGPU's `queue.submit`: on the device, returns the submission's
    /// serial (wait for it with [`Device::wait_for_serial_unless_stalled`]), and a refused
    /// submission consumes nothing: the command buffers are dropped unexecuted.
    pub fn submit(
        &self,
        command_buffers: impl IntoIterator<Item = CommandBuffer<A>>,
    ) -> Result<u64> {
        self.submit_waiting("submit", command_buffers, Vec::new())
    }

    /// As [`Device::submit`], but the submission's work first waits, on the GPU, until each
    /// `(device, serial)` of `after` completed: devices over the same native device, on any
    /// of its queues (a device on the compute queue and one that draws, say). The host does
    /// not wait; the submitting thread returns at once. This is how work reaching memory
    /// the devices share through pointers ([`Device::share_gpu_heap`]) is ordered across
    /// queues, where no tracked resource says what waits for what. Each device waited for
    /// stays alive until this submission completed. Refused, consuming no serial, for a
    /// device over another native device (`queue.wait-foreign`) or a serial that device
    /// has not submitted yet (`queue.wait-unsubmitted`: a wait for work that may never be
    /// submitted could not end).
    pub fn submit_after(
        &self,
        command_buffers: impl IntoIterator<Item = CommandBuffer<A>>,
        after: &[(&Device<A>, u64)],
    ) -> Result<u64> {
        const OP: &str = "submit_after";
        let mut waits: Vec<(Arc<crate::native::Hal<A>>, u64)> = Vec::new();
        for (other, serial) in after {
            if !self.completion.same_root(&other.completion) {
                return self.refused_submission(Error::new(
                    Rule::QueueWaitForeign,
                    OP,
                    &self.label,
                    format!(
                        "device '{}' is over another native device: a submission waits only for devices made with share from this one's",
                        other.label
                    ),
                ));
            }
            let submitted = other.last_submitted.load(Ordering::Acquire);
            if *serial > submitted {
                return self.refused_submission(Error::new(
                    Rule::QueueWaitUnsubmitted,
                    OP,
                    &self.label,
                    format!(
                        "device '{}' has submitted up to serial {submitted}; a wait for its serial {serial} might never end",
                        other.label
                    ),
                ));
            }
            // A wait for serial 0 is none (`wait_for` skips it).
            super::shared::wait_for(&mut waits, &other.hal, *serial);
        }
        self.submit_waiting(OP, command_buffers, waits)
    }

    /// Counts a refused submission and returns its refusal.
    fn refused_submission(&self, e: Error) -> Result<u64> {
        let mut stats = lock(&self.stats);
        stats.refused_submissions = stats.refused_submissions.wrapping_add(1);
        Err(e)
    }

    /// Submits, the GPU first waiting for each of `waits` (checked by the caller: devices
    /// over this native device, serials they submitted).
    fn submit_waiting(
        &self,
        op: &'static str,
        command_buffers: impl IntoIterator<Item = CommandBuffer<A>>,
        waits: Vec<(Arc<crate::native::Hal<A>>, u64)>,
    ) -> Result<u64> {
        let mut span = crate::timeline::CpuSpan::new(&self.timeline, "submit", op, &self.label);
        let mut cbs: Vec<CommandBuffer<A>> = command_buffers.into_iter().collect();
        let refused = |e: Error| self.refused_submission(e);
        if let Err(e) = self.check_alive(op) {
            return refused(e);
        }
        for cb in &cbs {
            cb.warm();
        }
        let mut q = self.queue.lock();
        for cb in &cbs {
            if let Err(e) = cb.validate_for_submit(&self.core) {
                drop(q);
                return refused(e);
            }
        }
        // Acceleration structures used before they were built here must be built by an
        // earlier submission or an earlier command buffer of this one (decided under the
        // queue lock, so submissions see each other's builds in order).
        let mut built_before: Vec<usize> = Vec::new();
        for cb in &cbs {
            let Some(used) = cb.used.as_deref().filter(|u| !u.accel.is_empty()) else {
                continue;
            };
            if let Some((kind, label)) = used.accel.unbuilt(&built_before) {
                let e = Error::new(
                    Rule::AccelUnbuilt,
                    op,
                    &cb.label,
                    format!(
                        "the command buffer uses {kind} '{label}', which no earlier submission or command buffer builds; build it first"
                    ),
                );
                drop(q);
                return refused(e);
            }
            built_before.extend(used.accel.built_addresses());
        }
        // Aliasable textures: which alias of shared bytes is active, in submission order.
        let aliases = match super::plan_aliases(&cbs, op) {
            Ok(a) => a,
            Err(e) => {
                drop(q);
                return refused(e);
            }
        };
        if cbs.len() as u64 > self.max_in_flight {
            drop(q);
            return refused(Error::new(
                Rule::SubmitSize,
                op,
                &self.label,
                format!(
                    "{} command buffers in one submission exceed max_command_buffers_in_flight ({}); no amount of waiting makes room for them",
                    cbs.len(),
                    self.max_in_flight
                ),
            ));
        }
        // The device's own upload command buffer counts too (within the bound: a full
        // submission with uploads waits for an empty queue, not forever).
        let needed = (cbs.len() as u64)
            .saturating_add(u64::from(!q.uploads.is_empty()))
            .min(self.max_in_flight);
        if self
            .completion
            .command_buffers_in_flight()
            .saturating_add(needed)
            > self.max_in_flight
        {
            if let Err(e) = self.wait_for_room(&mut q, needed, self.max_in_flight, op) {
                drop(q);
                return refused(e);
            }
        }
        // Textures shared with other devices over the native device: wait for the
        // producers of registrations (on the host on this queue, on the GPU across queues,
        // with every other queue's last use too), and hold each one's order lock until the
        // work is on the queue (the layouts they share then change in planned order).
        // The queue writes this submission carries (in its head) count as uses too.
        // (Plain loops: a submission runs fewer lines of code through them than through
        // the iterator chain they replaced, 488 against 494 on lavapipe in all.)
        let mut shared: Vec<Arc<super::TextureObj<A>>> = Vec::new();
        let is_shared =
            |t: &super::TextureObj<A>| t.source.is_some() || t.exported.load(Ordering::Acquire);
        for cb in &cbs {
            for t in cb.tracked_texture_objs() {
                if is_shared(t) {
                    shared.push(t.clone());
                }
            }
        }
        for w in &q.uploads.texture_writes {
            if is_shared(&w.texture) {
                shared.push(w.texture.clone());
            }
        }
        let stall = self.timeouts().stall;
        let mut order = match super::shared::order_shared(&shared, &self.hal, stall, op) {
            Ok(g) => g,
            Err(e) => {
                drop(q);
                return refused(e);
            }
        };
        for (hal, serial) in &waits {
            super::shared::wait_for(&mut order.after, hal, *serial);
        }
        let serial = self
            .last_submitted
            .load(Ordering::Acquire)
            .saturating_add(1);
        let plan = match self.plan_submission(&mut q, &cbs, serial, op) {
            Ok(p) => p,
            Err(e) => {
                drop(q);
                return refused(e);
            }
        };
        let submitted = {
            let mut natives: Vec<&A::CommandBuffer> = Vec::new();
            natives.extend(head_native(plan.heads.first(), &q.heads));
            for (i, cb) in cbs.iter().enumerate() {
                natives.extend(head_native(plan.heads.get(i.saturating_add(1)), &q.heads));
                natives.extend(cb.segments().iter());
            }
            let gate = self.seams.gate_for_next_submission();
            // (Empty lists made without running a collect: a submission's code is its
            // cost, see performance.md.)
            let after: Vec<(&crate::native::Hal<A>, u64)> = if order.after.is_empty() {
                Vec::new()
            } else {
                order.after.iter().map(|(h, v)| (&**h, *v)).collect()
            };
            let r = match gate {
                #[cfg(feature = "test-seams")]
                Some(g) => self.hal.submit_gated(&natives, serial, g, &after),
                _ if after.is_empty() => self.hal.submit(&natives, serial),
                _ => self.hal.submit_after(&natives, serial, &after),
            };
            if r.is_err() {
                self.seams.ungate_refused(gate);
            }
            r
        };
        if let Err(e) = submitted {
            // The driver refused the submission: the states move back, the staged uploads
            // it carried are dropped (the buffers keep their old contents), and the caller
            // sees the driver's error.
            plan.undo(self, &mut q, &cbs);
            drop(q);
            return refused(self.hal_error(e, op, &self.label));
        }
        self.last_submitted.store(serial, Ordering::Release);
        order.submitted(&self.hal, serial);
        if !aliases.is_empty() {
            super::commit_aliases(aliases);
        }
        self.seams.note_submitted(serial);
        let (mut draws, mut dispatches) = (0u64, 0u64);
        let mut flight = InFlight {
            serial,
            command_buffers: 0,
            pools: Vec::with_capacity(cbs.len().saturating_add(1)),
            staging: plan.staging,
            staging_bytes: plan.staging_bytes,
            used: Vec::with_capacity(cbs.len()),
            uploads: plan.uploads,
            _after: if order.after.is_empty() {
                Vec::new()
            } else {
                std::mem::take(&mut order.after)
                    .into_iter()
                    .map(|(h, _)| h)
                    .collect()
            },
        };
        q.staging.in_flight_bytes = q.staging.in_flight_bytes.saturating_add(plan.staging_bytes);
        if plan.staging_bytes > 0 {
            q.staging.batches = q.staging.batches.wrapping_add(1);
        }
        let (mut recorded, mut reused) = (0u64, 0u64);
        for h in plan.heads.iter().skip(1).flatten() {
            match h {
                HeadCb::Cached(i, again) => {
                    if let Some(k) = q.heads.get_mut(*i) {
                        k.serial = serial;
                        k.taken = false;
                    }
                    if *again {
                        reused = reused.saturating_add(1);
                    } else {
                        recorded = recorded.saturating_add(1);
                    }
                }
                HeadCb::Own(_) => recorded = recorded.saturating_add(1),
            }
        }
        if let Some(pool) = plan.pool {
            flight.pools.push((pool, own_heads(plan.heads)));
        }
        for w in plan.written {
            w.queued_writes.store(false, Ordering::Release);
        }
        if !plan.resident.is_empty() {
            // The head clears and transitions them: they live until it has run.
            flight.used.push(Box::new(Used {
                retired: plan
                    .resident
                    .into_iter()
                    .map(super::heaps::Retired::Texture)
                    .collect(),
                ..Used::default()
            }));
        }
        let count = cbs.len();
        for cb in cbs.iter_mut() {
            if let Some(used) = cb.used.as_deref_mut().filter(|u| !u.accel.is_empty()) {
                used.accel.commit();
            }
            cb.stamp(serial, &mut q.buffer_states);
            draws = draws.saturating_add(cb.draws);
            dispatches = dispatches.saturating_add(cb.dispatches);
            if let Some((pool, segments)) = cb.take_native() {
                flight.pools.push((pool, segments));
            }
            flight.used.extend(cb.take_used());
            if let Some(slot) = cb.timeline.take() {
                self.timeline.submitted(serial, span.start_ns(), slot);
            }
        }
        flight.command_buffers = needed;
        self.completion
            .command_buffers_in_flight
            .fetch_add(flight.command_buffers, Ordering::AcqRel);
        {
            let mut stats = lock(&self.stats);
            stats.submissions = stats.submissions.wrapping_add(1);
            stats.command_buffers = stats.command_buffers.wrapping_add(count as u64);
            stats.dispatches = stats.dispatches.wrapping_add(dispatches);
            stats.draws = stats.draws.wrapping_add(draws);
            stats.heads_recorded = stats.heads_recorded.wrapping_add(recorded);
            stats.heads_reused = stats.heads_reused.wrapping_add(reused);
        }
        // A cheap look keeps memory from piling up between polls: when earlier submissions
        // are still in flight, the ones done are let go here. With none (every earlier
        // one was waited for or polled away), the look would find at most this one,
        // just handed to the GPU, and is skipped: a native call less per submission for
        // callers that wait for each frame.
        let earlier = !q.in_flight.is_empty();
        q.in_flight.push_back(flight);
        if earlier {
            if let Ok(done) = self.hal.completed_value() {
                let completed = self.observe(done);
                self.process_completed(&mut q, completed);
            }
        }
        drop(q);
        span.name(|| format!("submit #{serial}"));
        self.notify(|o| {
            o.submitted(&crate::observer::SubmissionInfo {
                serial,
                command_buffers: count,
                draws,
                dispatches,
            })
        });
        Ok(serial)
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
        let mut q = self.queue.lock();
        self.refresh(&mut q, OP)?;
        Ok(self.completion.completed() >= serial)
    }

    /// Waits until `serial` completed, giving up only when the GPU made no progress (no
    /// submission completed and no pass finished) for `stall_bound`, measured from the last
    /// progress. Giving up declares the device lost, attributed to this wait.
    pub fn wait_for_serial_unless_stalled(&self, serial: u64, stall_bound: Duration) -> Result<()> {
        const OP: &str = "wait_for_serial_unless_stalled";
        self.check_wait_target(serial, OP)?;
        self.wait_progressing(serial, stall_bound, WaitSite::SerialWait, OP)?;
        let mut q = self.queue.lock();
        self.refresh(&mut q, OP)?;
        Ok(())
    }

    fn check_wait_target(&self, serial: u64, op: &'static str) -> Result<()> {
        self.check_alive(op)?;
        let last = self.last_submitted.load(Ordering::Acquire);
        if serial > last {
            return Err(Error::new(
                Rule::WaitNeverSubmitted,
                op,
                &self.label,
                format!(
                    "serial {serial} was never submitted (last submitted: {last}); waiting for it would never end"
                ),
            ));
        }
        Ok(())
    }
}

/// The states a submission's planning changed, as they were: put back if the driver
/// refuses the submission.
///
/// The uploads' destinations are kept by reference count; the command buffers' resources
/// by position only (their command buffers hold them, in the same order), so planning a
/// submission of a thousand resources clones no `Arc` for its undo.
pub(crate) struct Undo<A: Api> {
    pub buffers: Vec<(Arc<super::BufferObj<A>>, super::BufferState)>,
    pub textures: Vec<(Arc<super::TextureObj<A>>, bool, super::objects::Parts)>,
    /// Per tracked buffer of the command buffers, in order: its entry as it was.
    pub cb_buffers: Vec<super::BufferState>,
    /// Per tracked texture of the command buffers, in order: `(initialized, parts)`.
    pub cb_textures: Vec<(bool, super::objects::Parts)>,
    /// Textures a heap names whose writes were made visible between command buffers.
    /// Each was resolved by the command buffer before, whose entry is older: these go
    /// back first.
    pub flushed: Vec<(Arc<super::TextureObj<A>>, bool, super::objects::Parts)>,
}

impl<A: Api> Default for Undo<A> {
    fn default() -> Self {
        Undo {
            buffers: Vec::new(),
            textures: Vec::new(),
            cb_buffers: Vec::new(),
            cb_textures: Vec::new(),
            flushed: Vec::new(),
        }
    }
}

impl<A: Api> Undo<A> {
    /// Puts the states back, latest change first: the writes made visible between
    /// command buffers, the command buffers' (`cbs`, those the plan resolved), then the
    /// uploads'.
    fn apply(self, cbs: &[CommandBuffer<A>], states: &mut super::BufferStates) {
        let mut put_buffer = |key: super::BufferKey, old: super::BufferState| {
            *states.at(key) = old;
        };
        let put_texture = |t: &super::TextureObj<A>, initialized, parts| {
            let mut g = lock(&t.state);
            g.initialized = initialized;
            g.parts = parts;
        };
        for (t, initialized, parts) in self.flushed.into_iter().rev() {
            put_texture(&t, initialized, parts);
        }
        let buffers: Vec<super::BufferKey> = cbs
            .iter()
            .flat_map(CommandBuffer::tracked_buffers)
            .take(self.cb_buffers.len())
            .collect();
        for (b, old) in buffers.into_iter().zip(self.cb_buffers).rev() {
            put_buffer(b, old);
        }
        let textures: Vec<&super::TextureObj<A>> = cbs
            .iter()
            .flat_map(CommandBuffer::tracked_textures)
            .take(self.cb_textures.len())
            .collect();
        for (t, (initialized, parts)) in textures.into_iter().zip(self.cb_textures).rev() {
            put_texture(t, initialized, parts);
        }
        for (b, old) in self.buffers.into_iter().rev() {
            put_buffer(b.key(), old);
        }
        for (t, initialized, parts) in self.textures.into_iter().rev() {
            put_texture(&t, initialized, parts);
        }
    }
}

/// What a submission recorded of its own: the uploads, and the head command buffer in
/// front of each of the caller's (zero fills and the barriers its first uses need).
pub(crate) struct Plan<A: Api> {
    /// The pool the device's own command buffers were recorded in.
    pool: Option<A::CommandEncoder>,
    /// The uploads (position 0), then per caller command buffer its head, if any.
    heads: Vec<Option<HeadCb<A>>>,
    staging: Vec<StagingChunk<A>>,
    staging_bytes: u64,
    /// Buffers the uploads wrote (their last use is this submission).
    written: Vec<Arc<super::BufferObj<A>>>,
    /// The uploads recorded (their chunks moved to `staging`).
    uploads: PendingUploads<A>,
    /// Textures moved to their sampled layout for heaps (back to the queue if refused).
    resident: Vec<Arc<super::TextureObj<A>>>,
    undo: Undo<A>,
}

impl<A: Api> Plan<A> {
    /// Puts back what planning changed (the driver refused the submission). The staged
    /// bytes it carried are dropped and their share of the budget returned; buffers keep
    /// their old contents.
    fn undo(self, core: &Core<A>, q: &mut QueueState<A>, cbs: &[CommandBuffer<A>]) {
        self.undo.apply(cbs, &mut q.buffer_states);
        q.resident.extend(self.resident);
        for h in &mut q.heads {
            h.taken = false;
        }
        if let Some(mut pool) = self.pool {
            crate::native::reset_all::<A>(&mut pool, own_heads(self.heads));
            core.return_pool(pool);
        }
        for c in self.staging {
            core.recycle_staging(q, c);
        }
        for w in self.written {
            w.queued_writes.store(false, Ordering::Release);
        }
    }
}

/// The native command buffer of a planned head, if any.
fn head_native<'a, A: Api>(
    h: Option<&'a Option<HeadCb<A>>>,
    kept: &'a [CachedHead<A>],
) -> Option<&'a A::CommandBuffer> {
    match h {
        Some(Some(HeadCb::Own(cb))) => Some(cb),
        Some(Some(HeadCb::Cached(i, _))) => kept.get(*i).and_then(|k| k.cb.as_ref()),
        _ => None,
    }
}

/// The heads recorded in the plan's own pool.
fn own_heads<A: Api>(heads: Vec<Option<HeadCb<A>>>) -> Vec<A::CommandBuffer> {
    heads
        .into_iter()
        .filter_map(|h| match h {
            Some(HeadCb::Own(cb)) => Some(cb),
            _ => None,
        })
        .collect()
}

impl<A: Api> Core<A> {
    /// Records the device's own command buffers of a submission: the staged uploads first,
    /// then, in front of each command buffer, its zero fills and the barriers its first
    /// uses need against the device's state, moving that state on as it goes.
    fn plan_submission(
        &self,
        q: &mut QueueState<A>,
        cbs: &[CommandBuffer<A>],
        serial: u64,
        op: &'static str,
    ) -> Result<Plan<A>> {
        let mut uploads = std::mem::take(&mut q.uploads);
        let resident = std::mem::take(&mut q.resident);
        let mut plan = Plan {
            pool: None,
            heads: Vec::with_capacity(cbs.len().saturating_add(1)),
            staging: Vec::new(),
            staging_bytes: q.staging.queued_bytes,
            written: Vec::new(),
            uploads: PendingUploads::default(),
            resident: Vec::new(),
            undo: Undo::default(),
        };
        q.staging.queued_bytes = 0;
        q.staging.queued_writes = 0;
        let result = (|| -> Result<()> {
            let head = if uploads.is_empty() && resident.is_empty() {
                None
            } else {
                let pool = self.head_pool(&mut plan.pool, op)?;
                pool.begin("vigil uploads")
                    .map_err(|e| self.hal_error(e, op, &self.label))?;
                if !uploads.is_empty() {
                    plan.written = self.record_uploads(
                        &mut Rec(pool),
                        &uploads,
                        &mut plan.undo,
                        &mut q.buffer_states,
                        serial,
                    );
                }
                if !resident.is_empty() {
                    let mut head = Head::default();
                    make_resident(&resident, &mut head, &mut plan.undo.textures);
                    head.record(&mut Rec(pool));
                }
                Some(HeadCb::Own(
                    pool.end().map_err(|e| self.hal_error(e, op, &self.label))?,
                ))
            };
            plan.heads.push(head);
            // Textures a heap names that the command buffer before wrote: heap reads are
            // not tracked, so the writes are made visible to every shader stage in front
            // of the next one (after the last, in front of the next submission).
            let mut written: Option<&CommandBuffer<A>> = None;
            for cb in cbs {
                let mut head = Head::default();
                if let Some(before) = written.take() {
                    make_resident(before.heap_writes(), &mut head, &mut plan.undo.flushed);
                }
                cb.resolve(&mut head, &mut plan.undo, &mut q.buffer_states, serial);
                written = Some(cb);
                let native = if head.is_empty() {
                    None
                } else if head.zero_buffers.is_empty() && head.clear_textures.is_empty() {
                    Some(self.barrier_head(q, &mut plan.pool, &head.barriers, op)?)
                } else {
                    Some(self.own_head(&mut plan.pool, op, |rec| head.record(rec))?)
                };
                plan.heads.push(native);
            }
            if let Some(last) = written {
                q.resident.extend(last.heap_writes().cloned());
            }
            Ok(())
        })();
        // The staging goes with the submission either way (refused: back to the spares).
        plan.staging = std::mem::take(&mut uploads.chunks);
        plan.uploads = uploads;
        plan.resident = resident;
        if let Err(e) = result {
            if let Some(pool) = plan.pool.as_mut() {
                pool.discard();
            }
            plan.undo(self, q, cbs);
            return Err(e);
        }
        Ok(plan)
    }

    /// A head of barriers only: a kept one holding exactly these and done with its last
    /// submission; else these recorded into a kept slot (a new one while there is room,
    /// else the done one whose last submission is oldest); else, every kept one being in
    /// flight, recorded once into the plan's pool.
    fn barrier_head(
        &self,
        q: &mut QueueState<A>,
        pool: &mut Option<A::CommandEncoder>,
        barriers: &Barriers<'_, A>,
        op: &'static str,
    ) -> Result<HeadCb<A>> {
        let completed = self.completion.completed();
        let free = |h: &CachedHead<A>| !h.taken && h.serial <= completed;
        if let Some(i) = q.heads.iter().position(|h| free(h) && h.holds(barriers)) {
            if let Some(h) = q.heads.get_mut(i) {
                h.taken = true;
            }
            return Ok(HeadCb::Cached(i, true));
        }
        let reuse = if q.heads.len() < CACHED_HEADS {
            None
        } else {
            let oldest = q
                .heads
                .iter()
                .enumerate()
                .filter(|(_, h)| free(h))
                .min_by_key(|(_, h)| h.serial)
                .map(|(i, _)| i);
            if oldest.is_none() {
                return self.own_head(pool, op, |rec| barriers.record(rec));
            }
            oldest
        };
        let record = |enc: &mut A::CommandEncoder| -> Result<A::CommandBuffer> {
            enc.begin_reusable("vigil submission head")
                .map_err(|e| self.hal_error(e, op, &self.label))?;
            barriers.record(&mut Rec(enc));
            enc.end().map_err(|e| self.hal_error(e, op, &self.label))
        };
        let buffers = barriers.buffers;
        let textures = barriers
            .textures
            .iter()
            .map(|(x, r, t)| (Arc::downgrade(x), *r, *t))
            .collect();
        match reuse.and_then(|i| q.heads.get_mut(i).map(|h| (i, h))) {
            Some((i, h)) => {
                // Done with its last submission (`free`): its pool may be reset.
                // Until it is recorded again the slot holds nothing (`cb` is `None`).
                let spent: Vec<A::CommandBuffer> = h.cb.take().into_iter().collect();
                crate::native::reset_all::<A>(&mut h.pool, spent);
                h.serial = 0;
                let cb = record(&mut h.pool)?;
                h.cb = Some(cb);
                h.buffers = buffers;
                h.textures = textures;
                h.taken = true;
                Ok(HeadCb::Cached(i, false))
            }
            None => {
                let mut enc = self.take_pool(op)?;
                let cb = match record(&mut enc) {
                    Ok(cb) => cb,
                    Err(e) => {
                        enc.discard();
                        self.return_pool(enc);
                        return Err(e);
                    }
                };
                q.heads.push(CachedHead {
                    pool: enc,
                    cb: Some(cb),
                    buffers,
                    textures,
                    serial: 0,
                    taken: true,
                });
                Ok(HeadCb::Cached(q.heads.len().saturating_sub(1), false))
            }
        }
    }

    /// A head recorded by `f` into the plan's own pool, for this submission only.
    fn own_head(
        &self,
        pool: &mut Option<A::CommandEncoder>,
        op: &'static str,
        f: impl FnOnce(&mut Rec<'_, A>),
    ) -> Result<HeadCb<A>> {
        let pool = self.head_pool(pool, op)?;
        pool.begin("vigil submission head")
            .map_err(|e| self.hal_error(e, op, &self.label))?;
        f(&mut Rec(pool));
        Ok(HeadCb::Own(
            pool.end().map_err(|e| self.hal_error(e, op, &self.label))?,
        ))
    }

    /// The pool the device records its own command buffers of a submission in.
    fn head_pool<'p>(
        &self,
        pool: &'p mut Option<A::CommandEncoder>,
        op: &'static str,
    ) -> Result<&'p mut A::CommandEncoder> {
        if pool.is_none() {
            *pool = Some(self.take_pool(op)?);
        }
        pool.as_mut().ok_or_else(|| self.lost_error(op))
    }

    /// Gives a native pool (its command buffers reset) back for reuse.
    pub(crate) fn return_pool(&self, pool: A::CommandEncoder) {
        lock(&self.pools).push((pool, Vec::new()));
    }

    /// A native command pool from the reuse pool, or a new one.
    pub(crate) fn take_pool(&self, op: &'static str) -> Result<A::CommandEncoder> {
        let reused = lock(&self.pools).pop();
        match reused {
            Some((mut pool, spent)) => {
                if !spent.is_empty() {
                    crate::native::reset_all::<A>(&mut pool, spent);
                }
                Ok(pool)
            }
            None => self
                .hal
                .create_command_encoder("vigil encoder")
                .map_err(|e| self.hal_error(e, op, &self.label)),
        }
    }

    /// Serial of the last submission that used `b` (0: none), from the queue's table of
    /// buffer states (taking the queue lock).
    pub(crate) fn buffer_last_use(&self, b: &super::BufferObj<A>) -> u64 {
        self.queue.lock().buffer_states.last_use(b.key())
    }

    /// Reads the completion counter and processes everything up to it.
    pub(crate) fn refresh(&self, q: &mut QueueState<A>, op: &'static str) -> Result<u64> {
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        let value = self
            .hal
            .completed_value()
            .map_err(|e| self.hal_error(e, op, &self.label))?;
        let completed = self.observe(value);
        self.process_completed(q, completed);
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
        let mut value = value.min(self.last_submitted.load(Ordering::Acquire));
        if let Some(f) = self.seams.faulted() {
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
        if let Some(h) = self.seams.held() {
            value = value.min(h.saturating_sub(1));
        }
        self.completion.advance(value);
        self.completion.completed()
    }

    /// Recycles in-flight work up to `completed`: pools back to the reuse pool, staging
    /// back to the spare list, and every object the work used let go (released natively
    /// when nothing else holds it).
    pub(crate) fn process_completed(&self, q: &mut QueueState<A>, completed: u64) {
        while q.in_flight.front().is_some_and(|f| f.serial <= completed) {
            let Some(done) = q.in_flight.pop_front() else {
                break;
            };
            self.completion
                .command_buffers_in_flight
                .fetch_sub(done.command_buffers, Ordering::AcqRel);
            lock(&self.pools).extend(done.pools);
            for chunk in done.staging {
                self.recycle_staging(q, chunk);
            }
            q.staging.in_flight_bytes =
                q.staging.in_flight_bytes.saturating_sub(done.staging_bytes);
            self.collect_timestamps(done.serial, &done.used);
            self.recycle_tables(done.used);
            drop(done.uploads);
        }
    }

    /// Lets go of what completed recordings used, keeping their tables indexed by slot,
    /// emptied, for later encoders (as many as [`SPARE_TABLES`]).
    fn recycle_tables(&self, used: Vec<Box<Used<A>>>) {
        // With no room among the spares, a recording is dropped as it is: emptying tables
        // no encoder will take would only add a pass over them.
        let room = SPARE_TABLES.saturating_sub(lock(&self.spare_tables).len());
        for (n, mut u) in used.into_iter().enumerate() {
            if n >= room {
                continue;
            }
            let Some(tables) = u.take_tables() else {
                continue;
            };
            let mut spare = lock(&self.spare_tables);
            if spare.len() < SPARE_TABLES {
                spare.push(tables);
            }
        }
    }

    /// Reads the timestamps the command buffers of completed submission `serial` wrote of
    /// their own (nothing waits: the work is done), keeping the last
    /// [`KEPT_TIMESTAMPS`] submissions' for [`Device::timestamps`].
    fn collect_timestamps(&self, serial: u64, used: &[Box<Used<A>>]) {
        if used.iter().all(|u| u.stamps.is_none()) {
            return;
        }
        let period = f64::from(self.info.timestamp_period_ns);
        let mut per_buffer = Vec::new();
        for s in used.iter().filter_map(|u| u.stamps.as_ref()) {
            let mut ticks = vec![0u64; s.labels.len()];
            let read = self.hal.read_timestamps(&s.set, 0, &mut ticks);
            let stamps = match read {
                Ok(true) => s
                    .labels
                    .iter()
                    .zip(ticks)
                    .map(|(label, t)| Timestamp {
                        label: label.clone(),
                        ticks: t,
                        ns: t as f64 * period,
                    })
                    .collect(),
                // Not available although the submission completed (a lost device): none.
                _ => Vec::new(),
            };
            per_buffer.push(stamps);
        }
        let mut kept = lock(&self.timestamps);
        if kept.len() >= KEPT_TIMESTAMPS {
            kept.pop_front();
        }
        kept.push_back((serial, per_buffer));
    }

    /// Waits, judged by progress, until `needed` more command buffers fit in `budget`.
    fn wait_for_room(
        &self,
        q: &mut QueueState<A>,
        needed: u64,
        budget: u64,
        op: &'static str,
    ) -> Result<()> {
        self.completion.room_waits.fetch_add(1, Ordering::AcqRel);
        let start = Instant::now();
        let mut last_progress = start;
        loop {
            let completed = self.refresh(q, op)?;
            if self
                .completion
                .command_buffers_in_flight()
                .saturating_add(needed)
                <= budget
            {
                return Ok(());
            }
            let t = self.timeouts();
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

    /// Waits up to `timeout` for a serial above `after` to complete, or a pass to finish;
    /// returns whether either happened. Blocks in the driver in slices, so breadcrumbs
    /// of passes are looked at while a long submission runs.
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
        if next > self.last_submitted.load(Ordering::Acquire) {
            // Nothing more can complete; nothing to wait for.
            std::thread::sleep(timeout.min(Duration::from_millis(1)));
            return Ok(false);
        }
        let held = self.seams.held().is_some_and(|h| next >= h);
        let spin = self.timeouts().spin;
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

    /// The progress-judged wait every hang-detecting wait uses: gives up after `stall`
    /// without any completion (or finished pass), measured from the last one, and declares
    /// loss at `site`.
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
    /// progress), then lets go of everything: in-flight work, staging, pools and every
    /// object of the registries (released natively unless an encoder or command buffer
    /// that outlives the device still holds it). When the end of the work cannot be
    /// confirmed (the waits keep failing and the total cap passes), what the GPU may still
    /// use is left alive rather than destroyed under it.
    pub(crate) fn teardown(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.seams.release_all(&self.hal);
        let last = self.last_submitted.load(Ordering::Acquire);
        let quiet = self.teardown_drain(last);
        let mut q = self.queue.lock();
        let in_flight = std::mem::take(&mut q.in_flight);
        let uploads = std::mem::take(&mut q.uploads);
        let spare = std::mem::take(&mut q.spare_staging);
        let heads = std::mem::take(&mut q.heads);
        q.spare_staging_bytes = 0;
        drop(q);
        if !quiet {
            // The GPU may still run these: never release them (nor what they hold).
            std::mem::forget(in_flight);
            std::mem::forget(uploads);
            std::mem::forget(heads);
        } else {
            for h in heads {
                self.hal.destroy_command_encoder(h.pool);
            }
            for done in in_flight {
                for (pool, _) in done.pools {
                    self.hal.destroy_command_encoder(pool);
                }
                drop(done.staging);
                drop(done.used);
            }
            drop(uploads);
        }
        drop(spare);
        for (pool, _) in lock(&self.pools).drain(..) {
            self.hal.destroy_command_encoder(pool);
        }
        self.indirect.release(quiet);
        self.copies.release(quiet);
        // Objects still held by encoders or command buffers that outlive the device are
        // released when those go.
        drop(self.objects.drain());
        let heaps = lock(&self.descriptor_heaps).take();
        if quiet {
            drop(heaps);
        } else {
            std::mem::forget(heaps);
        }
        self.progress.release();
    }

    /// Waits, at teardown, until every submission completed, bounded by progress: a stall
    /// past the stall bound declares the device lost (attributed to the teardown drain). A
    /// failing wait falls back to polling the completion counter. Whatever the answers, the
    /// backend then confirms quiescence (done, or really lost) within what is left of the
    /// total cap; `false` when it could not, and nothing may be destroyed.
    fn teardown_drain(&self, last: u64) -> bool {
        let Timeouts {
            stall, total_cap, ..
        } = self.timeouts();
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

impl<A: Api> Drop for Core<A> {
    fn drop(&mut self) {
        // Pools returned by encoders that outlived the device's teardown: never submitted
        // (the device was closed), so nothing of theirs is pending.
        for (pool, _) in lock(&self.pools).drain(..) {
            self.hal.destroy_command_encoder(pool);
        }
    }
}

/// Moves textures a texture heap just named to their sampled layout, read by every shader
/// stage (heap reads are not tracked: this is what later uses wait for), zeroing those
/// never written first; the old states go to `undo`. The same step makes the writes of a
/// texture a heap names, by the command buffer before, visible to heap reads.
fn make_resident<'r, A: Api>(
    resident: impl IntoIterator<Item = &'r Arc<super::TextureObj<A>>>,
    head: &mut Head<'r, A>,
    undo: &mut Vec<(Arc<super::TextureObj<A>>, bool, super::objects::Parts)>,
) {
    for t in resident {
        let mut g = lock(&t.state);
        undo.push((t.clone(), g.initialized, g.saved_parts()));
        zero_if_unwritten(t, &mut g, head);
        let u = super::objects::heap_read(t.desc.usage, super::objects::HEAP_READERS);
        let layers = t.desc.layers().max(1);
        for (i, s) in g.parts.iter_mut().enumerate() {
            if let Some(tr) = crate::track::step(s, u) {
                let i = u32::try_from(i).unwrap_or(u32::MAX);
                let range = Subresources {
                    base_mip: i.checked_div(layers).unwrap_or(0),
                    mips: 1,
                    base_layer: i.checked_rem(layers).unwrap_or(0),
                    layers: 1,
                };
                head.barriers.textures.push((t, range, tr));
            }
        }
    }
}

/// A texture's first use ever: `head` zeroes it first (WebGPU textures start zeroed) and
/// its parts are left as that clear leaves them. Nothing for a texture written before.
pub(crate) fn zero_if_unwritten<'r, A: Api>(
    t: &'r super::TextureObj<A>,
    g: &mut super::TextureState,
    head: &mut Head<'r, A>,
) {
    if g.initialized {
        return;
    }
    head.clear_textures.push(t);
    g.initialized = true;
    for s in g.parts.iter_mut() {
        *s = written_by_transfer(vigil_hal::TextureLayout::TransferDst);
    }
}

/// A state as a transfer write (a zero fill or clear) leaves it.
pub(crate) fn written_by_transfer(layout: vigil_hal::TextureLayout) -> State {
    State {
        write: Some((Stages::TRANSFER, Access::TRANSFER_WRITE)),
        reads: (Stages::empty(), Access::empty()),
        visible: Stages::empty(),
        cleared: Stages::empty(),
        layout,
    }
}

/// Barriers waiting to be recorded together (one pipeline barrier), of resources that
/// outlive them (the caller's command buffers or uploads hold them).
pub(crate) struct Barriers<'r, A: Api> {
    /// The buffers' barriers as one global memory barrier over the union of their stages:
    /// a superset of what they order, as the barriers recorded inside command buffers are,
    /// and what lets a kept head match any set of buffers needing the same stages.
    pub buffers: Option<MemoryBarrier>,
    pub textures: Vec<(&'r Arc<super::TextureObj<A>>, Subresources, Transition)>,
}

impl<A: Api> Default for Barriers<'_, A> {
    fn default() -> Self {
        Barriers {
            buffers: None,
            textures: Vec::new(),
        }
    }
}

impl<A: Api> Barriers<'_, A> {
    pub fn is_empty(&self) -> bool {
        self.buffers.is_none() && self.textures.is_empty()
    }

    /// Adds a buffer's barrier (to the one global barrier the buffers' become).
    pub fn buffer(&mut self, t: Transition) {
        let m = self.buffers.get_or_insert(MemoryBarrier {
            src: Stages::empty(),
            dst: Stages::empty(),
        });
        m.src |= t.src;
        m.dst |= t.dst;
    }

    /// Records them as one pipeline barrier: the buffers' as one global memory barrier,
    /// the textures' one by one (they change layouts).
    pub fn record(&self, rec: &mut Rec<'_, A>) {
        if self.is_empty() {
            return;
        }
        let textures: Vec<TextureBarrier<'_, A>> = self
            .textures
            .iter()
            .map(|(tex, r, t)| TextureBarrier {
                texture: &*tex.raw,
                range: SubresourceRange {
                    aspect: TextureAspect::All,
                    base_mip_level: r.base_mip,
                    mip_level_count: r.mips,
                    base_array_layer: r.base_layer,
                    array_layer_count: r.layers,
                },
                old_layout: t.old_layout,
                new_layout: t.new_layout,
                src: t.src,
                src_access: t.src_access,
                dst: t.dst,
                dst_access: t.dst_access,
            })
            .collect();
        rec.barriers(self.buffers, &[], &textures);
    }
}

/// What runs in front of a command buffer: zero fills of the buffers and clears of the
/// textures it is the first to use, then the barriers its first uses need (computed
/// against the states the fills leave).
pub(crate) struct Head<'r, A: Api> {
    pub zero_buffers: Vec<&'r super::BufferObj<A>>,
    pub clear_textures: Vec<&'r super::TextureObj<A>>,
    pub barriers: Barriers<'r, A>,
}

impl<A: Api> Default for Head<'_, A> {
    fn default() -> Self {
        Head {
            zero_buffers: Vec::new(),
            clear_textures: Vec::new(),
            barriers: Barriers::default(),
        }
    }
}

impl<A: Api> Head<'_, A> {
    pub fn is_empty(&self) -> bool {
        self.zero_buffers.is_empty() && self.clear_textures.is_empty() && self.barriers.is_empty()
    }

    /// Records the fills and clears, then the barriers.
    pub fn record(&self, rec: &mut Rec<'_, A>) {
        let full = |t: &super::TextureObj<A>| SubresourceRange {
            aspect: TextureAspect::All,
            base_mip_level: 0,
            mip_level_count: t.desc.mip_level_count,
            base_array_layer: 0,
            array_layer_count: t.desc.layers(),
        };
        if !self.clear_textures.is_empty() {
            // A texture never used has no contents to keep: straight to the copy layout.
            let to_dst: Vec<TextureBarrier<'_, A>> = self
                .clear_textures
                .iter()
                .map(|t| TextureBarrier {
                    texture: &*t.raw,
                    range: full(t),
                    old_layout: vigil_hal::TextureLayout::Undefined,
                    new_layout: vigil_hal::TextureLayout::TransferDst,
                    src: Stages::empty(),
                    src_access: Access::empty(),
                    dst: Stages::TRANSFER,
                    dst_access: Access::TRANSFER_WRITE,
                })
                .collect();
            rec.barriers(None, &[], &to_dst);
        }
        for b in &self.zero_buffers {
            let size = b.size.checked_next_multiple_of(4).unwrap_or(b.size);
            rec.fill_buffer(&b.raw, 0, size, 0);
        }
        for t in &self.clear_textures {
            rec.clear_texture(&t.raw, full(t), [0.0; 4]);
        }
        self.barriers.record(rec);
    }
}

/// Completed submissions whose timestamps a device keeps for [`Device::timestamps`].
pub const KEPT_TIMESTAMPS: usize = 64;

/// One timestamp a command buffer wrote with
/// [`CommandEncoder::timestamp`](crate::CommandEncoder::timestamp).
#[derive(Clone, Debug, PartialEq)]
pub struct Timestamp {
    /// The label it was written with.
    pub label: String,
    /// The GPU's clock, in ticks.
    pub ticks: u64,
    /// The same in nanoseconds (ticks × the adapter's timestamp period); differences
    /// between timestamps of one submission are durations.
    pub ns: f64,
}

impl<A: Api> Device<A> {
    /// The timestamps the command buffers of submission `serial` wrote, per command buffer
    /// in submission order: read after the submission completed, so this never waits —
    /// a submission not yet complete is refused (`timestamp.pending`; wait for its serial
    /// first). Kept for the last [`KEPT_TIMESTAMPS`] completed submissions that wrote any;
    /// an empty list for others.
    pub fn timestamps(&self, serial: u64) -> Result<Vec<Vec<Timestamp>>> {
        const OP: &str = "timestamps";
        let completed = {
            let mut q = self.queue.lock();
            self.refresh(&mut q, OP)?
        };
        if serial > completed {
            return Err(crate::error::fail!(
                TimestampPending,
                OP,
                &self.label,
                "submission {serial} has not completed (serial {completed} is the last that has); wait for it first"
            ));
        }
        Ok(lock(&self.timestamps)
            .iter()
            .find(|(s, _)| *s == serial)
            .map(|(_, t)| t.clone())
            .unwrap_or_default())
    }
}
