//! Test seams: failure and timing controls users can drive from their own tests (public
//! behind the `test-seams` cargo feature). The state lives in every device, since the
//! completion and submission paths consult it; only arming it needs the feature.

#[cfg(feature = "test-seams")]
use super::Device;
use super::lock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use vigil_hal::Api;

/// Seam state of one device. The completion path reads it with atomic loads only.
#[derive(Debug, Default)]
pub(crate) struct SeamState {
    /// The next submission fails on the GPU (through the completion path).
    fail_next: AtomicBool,
    /// The serial that fails (0: none).
    faulted: AtomicU64,
    /// The next submission's completion is held back.
    hold_next: AtomicBool,
    /// The serial held back, shared with [`SeamHandle`]s (0: none).
    held: Arc<AtomicU64>,
    /// Submissions wait at a GPU-side gate: `(base gate value, submissions gated)`.
    /// Changed under the queue lock (submission) or by the seam controls.
    pause: Mutex<Option<(u64, u64)>>,
    /// Whether `pause` may hold a pause: every submission reads it, and only when it is set
    /// takes `pause`'s lock (a locked instruction on a line the submission finds cold).
    paused: AtomicBool,
    /// Writes of a granted run that take the gate's locked instruction (0: the default,
    /// [`super::runs::LOCKED_RUN_WRITES`]).
    locked_run_writes: AtomicU64,
    /// Indirect draws' first instances are checked on the GPU as on a device without
    /// `INDIRECT_FIRST_INSTANCE`, though this one has it.
    check_first_instance: AtomicBool,
    /// Buffer copies of at least this many bytes go through vigil's copy kernel whatever
    /// the device (0: the device's own choice).
    kernel_copy_min: AtomicU64,
    /// The most bytes the copy kernel binds at once (0: the device's limit).
    kernel_copy_window: AtomicU64,
    /// The least alignment of the copy kernel's windows (0: the device's).
    kernel_copy_align: AtomicU64,
}

fn nonzero(v: u64) -> Option<u64> {
    (v != 0).then_some(v)
}

impl SeamState {
    pub fn new() -> SeamState {
        SeamState::default()
    }

    /// How many writes of a granted run take the gate's locked instruction (at least one:
    /// the write that tells the gate the rest do not).
    #[inline]
    pub fn locked_run_writes(&self) -> u64 {
        match self.locked_run_writes.load(Ordering::Relaxed) {
            0 => super::runs::LOCKED_RUN_WRITES,
            n => n,
        }
    }

    /// Whether indirect draws' first instances are checked as if the device lacked
    /// `INDIRECT_FIRST_INSTANCE`.
    #[inline]
    pub fn check_first_instance(&self) -> bool {
        self.check_first_instance.load(Ordering::Relaxed)
    }

    /// Copies by kernel as armed: `(least bytes, most bytes bound at once, least window
    /// alignment)`, each 0 where not armed.
    #[inline]
    pub fn kernel_copies(&self) -> (u64, u64, u64) {
        (
            self.kernel_copy_min.load(Ordering::Relaxed),
            self.kernel_copy_window.load(Ordering::Relaxed),
            self.kernel_copy_align.load(Ordering::Relaxed),
        )
    }

    /// The serial a fault was armed for, if any.
    #[inline]
    pub fn faulted(&self) -> Option<u64> {
        nonzero(self.faulted.load(Ordering::Acquire))
    }

    /// The serial whose completion is held back, if any.
    #[inline]
    pub fn held(&self) -> Option<u64> {
        nonzero(self.held.load(Ordering::Acquire))
    }

    /// The gate value the next submission waits for, when submissions are paused.
    pub fn gate_for_next_submission(&self) -> Option<u64> {
        if !self.paused.load(Ordering::Acquire) {
            return None;
        }
        let mut p = lock(&self.pause);
        let (base, count) = (*p)?;
        let count = count.saturating_add(1);
        *p = Some((base, count));
        Some(base.saturating_add(count))
    }

    /// Starts a pause at gate value `base` (no submission gated yet).
    #[cfg(feature = "test-seams")]
    fn start_pause(&self, base: u64) {
        *lock(&self.pause) = Some((base, 0));
        self.paused.store(true, Ordering::Release);
    }

    /// Ends the pause, if any: its `(base gate value, submissions gated)`.
    fn take_pause(&self) -> Option<(u64, u64)> {
        let paused = lock(&self.pause).take();
        self.paused.store(false, Ordering::Release);
        paused
    }

    /// A gated submission was refused by the driver: it takes no gate value.
    pub fn ungate_refused(&self, gate: Option<u64>) {
        if gate.is_some() {
            let mut p = lock(&self.pause);
            if let Some((base, count)) = *p {
                *p = Some((base, count.saturating_sub(1)));
            }
        }
    }

    /// A submission got `serial`: arm the fault or hold requested for it.
    pub fn note_submitted(&self, serial: u64) {
        // Loads first: a swap is a locked instruction, which waits for its (cold) line
        // before anything after it runs, and almost no submission has anything armed. An
        // arm that happened before this submission is seen by the load as by the swap.
        if self.fail_next.load(Ordering::Acquire) && self.fail_next.swap(false, Ordering::AcqRel) {
            self.faulted.store(serial, Ordering::Release);
        }
        if self.hold_next.load(Ordering::Acquire) && self.hold_next.swap(false, Ordering::AcqRel) {
            self.held.store(serial, Ordering::Release);
        }
    }

    /// Opens the gate and releases any held completion (before the drain at drop).
    pub fn release_all<A: Api>(&self, hal: &crate::native::Hal<A>) {
        let paused = self.take_pause();
        #[cfg(feature = "test-seams")]
        if let Some((base, count)) = paused {
            use vigil_hal::TestControl as _;
            let _ = hal.open_gate(base.saturating_add(count));
        }
        #[cfg(not(feature = "test-seams"))]
        let _ = (hal, paused);
        self.held.store(0, Ordering::Release);
    }
}

/// A handle to release a held completion from any thread.
#[derive(Clone, Debug)]
pub struct SeamHandle {
    held: Arc<AtomicU64>,
}

impl SeamHandle {
    /// Publishes the completion held by `Seams::hold_next_completion`.
    pub fn release_held_completion(&self) {
        self.held.store(0, Ordering::Release);
    }
}

/// The test seams of one device (see the `test-seams` feature).
#[cfg(feature = "test-seams")]
pub struct Seams<'d, A: Api> {
    device: &'d Device<A>,
}

#[cfg(feature = "test-seams")]
impl<A: Api> Device<A> {
    /// The test seams: controls for users' own failure tests.
    pub fn seams(&self) -> Seams<'_, A> {
        Seams { device: self }
    }
}

#[cfg(feature = "test-seams")]
impl<A: Api> Seams<'_, A> {
    /// The next submission fails as one the GPU faulted on: when it completes, the device
    /// is declared lost (attributed to the driver) before its serial is reported complete.
    pub fn fail_next_submission(&self) {
        self.device.seams.fail_next.store(true, Ordering::Release);
    }

    /// Holds back the completion of the next submission, as a GPU that has not finished
    /// it looks, until [`Seams::release_held_completion`]. Later submissions complete
    /// normally meanwhile, but the completed serial stays below the held one.
    pub fn hold_next_completion(&self) {
        self.device.seams.hold_next.store(true, Ordering::Release);
    }

    /// Publishes the held completion.
    pub fn release_held_completion(&self) {
        self.device.seams.held.store(0, Ordering::Release);
    }

    /// A handle that releases the held completion from another thread.
    pub fn handle(&self) -> SeamHandle {
        SeamHandle {
            held: self.device.seams.held.clone(),
        }
    }

    /// Makes every later submission wait on the GPU at a gate, each for its own turn
    /// (numbered from one in submission order), until released.
    pub fn pause_submissions(&self) -> crate::Result<()> {
        use vigil_hal::TestControl as _;
        // An earlier pause is released in full first; the new pause gets a gate of its own.
        self.resume_submissions()?;
        let d = self.device;
        d.hal
            .fresh_gate()
            .map_err(|e| d.hal_error(e, "pause_submissions", ""))?;
        let base = d
            .hal
            .gate_value()
            .map_err(|e| d.hal_error(e, "pause_submissions", ""))?;
        d.seams.start_pause(base);
        Ok(())
    }

    /// Lets the first `count` submissions made since the pause run.
    pub fn release_paused(&self, count: u64) -> crate::Result<()> {
        use vigil_hal::TestControl as _;
        let d = self.device;
        let paused = *lock(&d.seams.pause);
        if let Some((base, _)) = paused {
            d.hal
                .open_gate(base.saturating_add(count))
                .map_err(|e| d.hal_error(e, "release_paused", ""))?;
        }
        Ok(())
    }

    /// Lets every paused submission run and stops pausing.
    pub fn resume_submissions(&self) -> crate::Result<()> {
        use vigil_hal::TestControl as _;
        let d = self.device;
        if let Some((base, count)) = d.seams.take_pause() {
            d.hal
                .open_gate(base.saturating_add(count))
                .map_err(|e| d.hal_error(e, "resume_submissions", ""))?;
        }
        Ok(())
    }

    /// How long waits look at the completion counter before blocking in the driver
    /// (default 100 us on GPUs, none on CPU drivers); zero makes every wait that is not
    /// already satisfied call the driver's wait (what a fault sweep of that call needs).
    pub fn set_spin_before_blocking(&self, spin: std::time::Duration) {
        lock(&self.device.timeouts).spin = spin;
    }

    /// How many writes of a run granted from now on take a locked instruction before the
    /// rest take none (default 256; at least 1). A small number makes short runs in a test
    /// exercise the lock-free writes and the asymmetric fence that another thread's lock
    /// then runs. Where the system has no such fence (anything but Linux, or a kernel
    /// without `membarrier`), every write of a run takes the locked instruction.
    pub fn set_locked_run_writes(&self, writes: u64) {
        self.device
            .seams
            .locked_run_writes
            .store(writes.max(1), Ordering::Relaxed);
    }

    /// Makes indirect draws recorded from now on check their first instance on the GPU as
    /// on a device without `INDIRECT_FIRST_INSTANCE` (a draw naming a first instance other
    /// than 0 then draws nothing), so that path can be tested on a device that has the
    /// feature.
    pub fn check_indirect_first_instance(&self) {
        self.device
            .seams
            .check_first_instance
            .store(true, Ordering::Relaxed);
    }

    /// Makes buffer copies of at least `min_bytes` (rounded up to 16) go through vigil's
    /// copy kernel on this device whatever its kind, binding at most `window_bytes` of
    /// each buffer at once (0: the device's binding limit; otherwise at least four times
    /// the storage offset alignment is used), so the kernel's path, its windows and its
    /// barriers can be tested on any device. Buffers made before this is armed take part
    /// too (every device-local copy buffer carries the storage usage the kernel needs
    /// when the crate is built with `test-seams`).
    pub fn copy_by_kernel(&self, min_bytes: u64, window_bytes: u64) {
        let s = &self.device.seams;
        s.kernel_copy_window.store(window_bytes, Ordering::Relaxed);
        s.kernel_copy_min
            .store(min_bytes.max(1).next_multiple_of(16), Ordering::Relaxed);
    }

    /// Makes the copy kernel's windows start at multiples of `bytes` (a power of two; the
    /// device's storage offset alignment when larger), as a device with a coarser
    /// alignment would, so that windows reaching before a copy's range are tested on any
    /// device.
    pub fn align_kernel_windows(&self, bytes: u64) {
        self.device
            .seams
            .kernel_copy_align
            .store(bytes.next_power_of_two(), Ordering::Relaxed);
    }

    /// Bounds how long waits may go without progress (default 5 s).
    pub fn set_stall_timeout(&self, timeout: std::time::Duration) {
        lock(&self.device.timeouts).stall = timeout;
    }

    /// Bounds how long one submission waits for room in all (default 60 s).
    pub fn set_wait_cap(&self, timeout: std::time::Duration) {
        lock(&self.device.timeouts).total_cap = timeout;
    }

    /// Makes the native call at `site` fail with `kind`, once or every time.
    pub fn inject_fault(&self, site: &str, kind: vigil_hal::FaultKind, mode: vigil_hal::FaultMode) {
        use vigil_hal::TestControl as _;
        self.device.hal.faults().inject(site, kind, mode);
    }

    /// Disarms every injected fault.
    pub fn clear_faults(&self) {
        use vigil_hal::TestControl as _;
        self.device.hal.faults().clear();
    }

    /// How many injected faults fired.
    pub fn faults_fired(&self) -> u64 {
        use vigil_hal::TestControl as _;
        self.device.hal.faults().fired_total()
    }

    /// Every native call site faults can be injected at, with the errors each can return.
    pub fn call_sites(&self) -> &'static [vigil_hal::CallSite] {
        use vigil_hal::TestControl as _;
        self.device.hal.call_sites()
    }

    /// Command buffers submitted and not yet seen complete.
    pub fn command_buffers_in_flight(&self) -> u64 {
        self.device.completion.command_buffers_in_flight()
    }

    /// Submissions that waited for room among the command buffers in flight.
    pub fn room_waits(&self) -> u64 {
        self.device.completion.room_waits()
    }

    /// How many times waits looked at the completion state.
    pub fn serial_wait_looks(&self) -> u64 {
        self.device.completion.wait_looks()
    }
}
