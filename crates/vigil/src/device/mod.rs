//! The validated device: one object that owns every resource, validates every call, and
//! keeps native objects alive exactly as long as the GPU needs them.
//!
//! It does not record commands (see [`crate::encoder`]) or know shader languages (see
//! `vigil-shader`); it owns the handle registries, submission serials, deferred release,
//! queue-write staging, mapping, loss and the bounded waits.

mod binding;
mod buffer;
mod mapping;
mod objects;
mod pipeline;
mod progress;
mod queue;
mod release;
mod seams;
mod texture;
mod uploads;

pub use mapping::{MapMode, MapState, MapWaitOutcome, MapWaitParams, MapWaitReport};
pub(crate) use objects::*;
pub use queue::{Completion, LossSnapshot, Stats, WaitSite};
pub(crate) use release::Retained;
pub use seams::SeamHandle;
#[cfg(feature = "test-seams")]
pub use seams::Seams;
pub use uploads::{MAX_QUEUED_WRITES, WriteStats};

use crate::DefaultApi;
use crate::encoder::Tracker;
use crate::error::{Error, ErrorKind, Result};
use crate::instance::Adapter;
use crate::registry::Registry;
use std::cell::{Cell, RefCell, RefMut};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use vigil_hal::test_backend::{TestApi, TestDevice};
use vigil_hal::{Adapter as _, AdapterInfo, Api, Device as _, Features, Limits, ValidationLog};

pub use binding::{
    BindGroupDescriptor, BindGroupEntry, BindGroupLayoutDescriptor, BindingResource, BufferBinding,
};
pub use buffer::BufferDescriptor;
pub(crate) use buffer::check_range;
pub(crate) use pipeline::check_against_layout;
pub use pipeline::{ComputePipelineDescriptor, PipelineLayoutDescriptor, ShaderModuleDescriptor};
pub(crate) use texture::{check_texture_box, layout_stages, texel_footprint};

/// How to open a device.
#[derive(Clone, Debug)]
pub struct DeviceDescriptor {
    /// Label of the device (used in error messages).
    pub label: String,
    /// Features to enable; each must be supported by the adapter.
    pub required_features: Features,
    /// Limits to enforce; each must be within the adapter's.
    pub required_limits: Limits,
    /// Bytes of queued and in-flight upload staging allowed (default 256 MiB).
    pub staging_budget: u64,
    /// Most command buffers submitted and not yet complete; a submission past it waits for
    /// room (default 64).
    pub max_command_buffers_in_flight: u32,
    /// How long the GPU may go without finishing anything (no submission, and no pass of
    /// one: every pass leaves a breadcrumb) before a wait declares it hung and the device
    /// lost. Default 5 s. A device whose single passes run longer (one huge dispatch or
    /// draw) needs more; waits on a GPU that keeps finishing passes never give up.
    pub stall_timeout: std::time::Duration,
}

impl Default for DeviceDescriptor {
    fn default() -> Self {
        DeviceDescriptor {
            label: String::new(),
            required_features: Features::empty(),
            required_limits: Limits::default(),
            staging_budget: 256 << 20,
            max_command_buffers_in_flight: 64,
            stall_timeout: std::time::Duration::from_secs(5),
        }
    }
}

/// Everything mutable the device owns. Borrowed per call; never across calls.
pub(crate) struct DeviceState<A: Api> {
    pub buffers: Registry<BufferObj<A>>,
    pub textures: Registry<TextureObj<A>>,
    pub views: Registry<ViewObj<A>>,
    pub samplers: Registry<SamplerObj<A>>,
    pub query_sets: Registry<QuerySetObj<A>>,
    pub bind_group_layouts: Registry<BindGroupLayoutObj<A>>,
    pub bind_groups: Registry<BindGroupObj<A>>,
    pub pipeline_layouts: Registry<PipelineLayoutObj<A>>,
    pub shader_modules: Registry<ShaderModuleObj<A>>,
    pub compute_pipelines: Registry<ComputePipelineObj<A>>,
    pub render_pipelines: Registry<RenderPipelineObj<A>>,
    pub mappings: Registry<mapping::MappingObj>,
    /// Destroyed objects waiting for their last use to complete and their retainers to go.
    pub retiring: Vec<Retained>,
    /// Structural identity of bind group layouts, for compatibility.
    pub layout_compat: HashMap<Vec<vigil_hal::BindGroupLayoutEntry>, u32>,
    /// Native encoders ready for reuse, each with the command buffer of its completed
    /// submission still to reset (reset when reused, by the recording side, not at submit).
    pub free_encoders: Vec<(A::CommandEncoder, Option<A::CommandBuffer>)>,
    /// Usage trackers ready for reuse (their marks carry over, stamped by epoch).
    pub free_trackers: Vec<Tracker>,
    /// Submitted work not yet seen complete, in serial order.
    pub in_flight: VecDeque<queue::InFlight<A>>,
    /// Uploads and first layouts waiting for the next submission.
    pub uploads: uploads::PendingUploads<A>,
    pub staging: uploads::StagingAccount,
    /// Staging chunks of completed uploads, kept for reuse (within the budget).
    pub spare_staging: Vec<uploads::StagingChunk<A>>,
    pub spare_staging_bytes: u64,
    /// Counts destructions and mappings: while it has not moved since a command buffer
    /// began recording, every object the recording checked is still live and unmapped.
    pub destroy_epoch: u64,
    /// Open recordings: encoders, and command buffers finished but not yet submitted.
    pub recordings: Recordings,
}

/// Open recordings by ticket. A native command buffer names the native objects recorded
/// into it, so an object destroyed while recordings are open keeps its native object until
/// every recording that was open then is closed (submitted or dropped): any of them may
/// have recorded it, and recording into (or freeing) a command buffer whose objects are
/// gone is undefined behaviour.
#[derive(Debug, Default)]
pub(crate) struct Recordings {
    issued: u64,
    open: std::collections::BTreeSet<u64>,
}

impl Recordings {
    /// Opens a recording; returns its ticket (from 1).
    pub fn open(&mut self) -> u64 {
        self.issued = self.issued.saturating_add(1);
        self.open.insert(self.issued);
        self.issued
    }

    /// Closes a recording; true when it was open.
    pub fn close(&mut self, ticket: u64) -> bool {
        self.open.remove(&ticket)
    }

    /// What an object destroyed now must wait for: the newest ticket issued, or 0 when
    /// no recording is open.
    pub fn hold_for_destroy(&self) -> u64 {
        if self.open.is_empty() { 0 } else { self.issued }
    }

    /// The oldest open ticket (`u64::MAX` when none is open).
    pub fn oldest_open(&self) -> u64 {
        self.open.first().copied().unwrap_or(u64::MAX)
    }
}

/// What a device is opened with besides its features and limits.
struct Settings {
    label: String,
    staging_budget: u64,
    max_in_flight: u64,
    stall: std::time::Duration,
}

/// A validated device over backend `A` (Vulkan by default).
///
/// `Send` but not `Sync`: one thread drives it. Completion state and loss are atomics that
/// other threads may read through [`Device::completion`].
pub struct Device<A: Api = DefaultApi> {
    pub(crate) id: u32,
    pub(crate) label: String,
    pub(crate) hal: crate::native::Hal<A>,
    pub(crate) info: AdapterInfo,
    pub(crate) features: Features,
    pub(crate) limits: Limits,
    pub(crate) state: RefCell<DeviceState<A>>,
    pub(crate) last_submitted: Cell<u64>,
    pub(crate) completion: Arc<queue::Completion>,
    pub(crate) validation: Option<Arc<ValidationLog>>,
    pub(crate) timeouts: Cell<queue::Timeouts>,
    pub(crate) stats: RefCell<queue::Stats>,
    pub(crate) seams: seams::SeamState,
    pub(crate) max_in_flight: u64,
    pub(crate) staging_budget: u64,
    pub(crate) observer: RefCell<Option<Arc<dyn crate::observer::DeviceObserver>>>,
    /// Breadcrumbs the GPU leaves after each pass.
    pub(crate) progress: progress::Progress<A>,
}

impl<A: Api> std::fmt::Debug for Device<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("id", &self.id)
            .field("label", &self.label)
            .field("adapter", &self.info.name)
            .finish()
    }
}

impl<A: Api> Device<A> {
    pub(crate) fn new(adapter: &Adapter<A>, desc: &DeviceDescriptor) -> Result<Self> {
        const OP: &str = "request_device";
        let missing = desc.required_features.difference(adapter.features());
        if !missing.is_empty() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                OP,
                &desc.label,
                format!(
                    "the adapter '{}' does not support {:?}",
                    adapter.info().name,
                    missing.names()
                ),
            ));
        }
        let violations = desc.required_limits.violations(adapter.limits());
        if let Some((name, requested, supported)) = violations.first() {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                OP,
                &desc.label,
                format!(
                    "limit {name} = {requested} is beyond what '{}' supports ({supported})",
                    adapter.info().name
                ),
            ));
        }
        let hal = adapter
            .exposed
            .adapter
            .open(desc.required_features, &desc.required_limits)
            .map(crate::native::Hal::new)
            .map_err(|e| Error::from_hal(e, OP, &desc.label))?;
        Device::assemble(
            hal,
            adapter.info().clone(),
            desc.required_features,
            desc.required_limits.clone(),
            queue::Completion::default(),
            adapter.validation_log(),
            Settings {
                label: desc.label.clone(),
                staging_budget: desc.staging_budget,
                max_in_flight: u64::from(desc.max_command_buffers_in_flight.max(1)),
                stall: desc.stall_timeout,
            },
        )
    }

    fn assemble(
        hal: crate::native::Hal<A>,
        info: AdapterInfo,
        features: Features,
        limits: Limits,
        completion: queue::Completion,
        validation: Option<Arc<ValidationLog>>,
        settings: Settings,
    ) -> Result<Self> {
        const OP: &str = "request_device";
        let progress =
            progress::Progress::new(&hal).map_err(|e| Error::from_hal(e, OP, &settings.label))?;
        let Settings {
            label,
            staging_budget,
            max_in_flight,
            stall,
        } = settings;
        Ok(Device {
            id: crate::handle::next_device_id(),
            label,
            hal,
            info,
            features,
            limits,
            state: RefCell::new(DeviceState {
                buffers: Registry::default(),
                textures: Registry::default(),
                views: Registry::default(),
                samplers: Registry::default(),
                query_sets: Registry::default(),
                bind_group_layouts: Registry::default(),
                bind_groups: Registry::default(),
                pipeline_layouts: Registry::default(),
                shader_modules: Registry::default(),
                compute_pipelines: Registry::default(),
                render_pipelines: Registry::default(),
                mappings: Registry::default(),
                retiring: Vec::new(),
                layout_compat: HashMap::new(),
                free_encoders: Vec::new(),
                free_trackers: Vec::new(),
                in_flight: VecDeque::new(),
                uploads: uploads::PendingUploads::default(),
                staging: uploads::StagingAccount::new(staging_budget),
                destroy_epoch: 0,
                recordings: Recordings::default(),
                spare_staging: Vec::new(),
                spare_staging_bytes: 0,
            }),
            last_submitted: Cell::new(0),
            completion: Arc::new(completion),
            validation,
            timeouts: Cell::new(queue::Timeouts {
                stall,
                ..queue::Timeouts::default()
            }),
            stats: RefCell::new(queue::Stats::default()),
            seams: seams::SeamState::new(),
            max_in_flight,
            staging_budget,
            observer: RefCell::new(None),
            progress,
        })
    }

    /// Another device over the same native device and queue: its own objects, handles and
    /// serials, the same loss (declared by either, seen by both, attributed once).
    pub fn share(&self) -> Result<Device<A>> {
        const OP: &str = "share";
        self.check_alive(OP)?;
        let hal = self
            .hal
            .share()
            .map_err(|e| self.hal_error(e, OP, &self.label))?;
        Device::assemble(
            hal,
            self.info.clone(),
            self.features,
            self.limits.clone(),
            queue::Completion::sharing_loss(&self.completion),
            self.validation.clone(),
            Settings {
                label: format!("{} (shared)", self.label),
                staging_budget: self.staging_budget,
                max_in_flight: self.max_in_flight,
                stall: self.timeouts.get().stall,
            },
        )
    }

    /// Drains the device (bounded by progress) and releases every native object, reporting
    /// what was left: the explicit form of dropping it.
    pub fn close(mut self) -> CloseReport {
        self.teardown();
        CloseReport {
            lost: self.completion.is_lost(),
            live_native_objects: self.hal.live_objects(),
            completed_serial: self.completion.completed(),
            last_submitted_serial: self.last_submitted.get(),
        }
    }

    /// Opens a device on the default adapter (see [`crate::Instance::default_adapter`]),
    /// with validation as [`crate::Validation::FromEnvironment`] says.
    pub fn new_default(desc: &DeviceDescriptor) -> Result<Self> {
        let instance = crate::Instance::<A>::new(&crate::InstanceDescriptor::default())?;
        instance.default_adapter()?.request_device(desc)
    }

    /// Process-unique id of this device, baked into every handle it makes.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The adapter the device runs on.
    pub fn adapter_info(&self) -> &AdapterInfo {
        &self.info
    }

    /// The features enabled on this device (every feature check uses this set).
    pub fn features(&self) -> Features {
        self.features
    }

    /// The limits this device enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Native objects currently alive on the backend (for leak checks).
    pub fn live_native_objects(&self) -> u64 {
        self.hal.live_objects()
    }

    /// Native objects among [`Device::live_native_objects`] that the device keeps for reuse
    /// rather than for any object of yours: idle command pools and staging buffers, and
    /// those of submissions not yet seen complete. Leak checks compare the live count minus
    /// this against the count of a fresh device.
    pub fn pooled_native_objects(&self) -> u64 {
        let Ok(s) = self.state.try_borrow() else {
            return 0;
        };
        let in_flight = s
            .in_flight
            .iter()
            .flat_map(|f| [f.encoders.len(), f.staging.len()]);
        [
            s.free_encoders.len(),
            s.spare_staging.len(),
            s.uploads.chunks.len(),
        ]
        .into_iter()
        .chain(in_flight)
        .fold(0u64, |n, k| n.saturating_add(k as u64))
    }

    /// What the validation layer has said so far, when validation is on.
    pub fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        self.validation.clone()
    }

    /// Borrows the state for one call.
    #[inline]
    pub(crate) fn state(&self, op: &'static str) -> Result<RefMut<'_, DeviceState<A>>> {
        self.state.try_borrow_mut().map_err(|_| {
            Error::new(
                ErrorKind::InvalidState,
                op,
                &self.label,
                "the device is already inside a call on this thread (re-entered from an observer?)",
            )
        })
    }

    /// Refuses every call that needs the GPU once the device is lost.
    #[inline]
    pub(crate) fn check_alive(&self, op: &'static str) -> Result<()> {
        if self.completion.is_lost() {
            return Err(self.lost_error(op));
        }
        Ok(())
    }

    #[cold]
    pub(crate) fn lost_error(&self, op: &'static str) -> Error {
        let why = self.completion.snapshot().map_or_else(
            || "the device is lost".to_owned(),
            |s| format!("the device is lost ({s})"),
        );
        Error::new(ErrorKind::DeviceLost, op, &self.label, why)
    }

    /// Maps a backend failure, recording loss when the driver reports it.
    #[cold]
    pub(crate) fn hal_error(
        &self,
        e: vigil_hal::DeviceError,
        op: &'static str,
        label: &str,
    ) -> Error {
        if e == vigil_hal::DeviceError::Lost {
            self.completion
                .declare_lost(WaitSite::Driver, Duration::ZERO, op);
        }
        Error::from_hal(e, op, label)
    }

    /// Objects currently alive per kind, for diagnostics: `(kind, count)`.
    pub fn live_objects(&self) -> Vec<(&'static str, usize)> {
        let Ok(s) = self.state.try_borrow() else {
            return Vec::new();
        };
        vec![
            ("buffers", s.buffers.live_count()),
            ("textures", s.textures.live_count()),
            ("texture views", s.views.live_count()),
            ("samplers", s.samplers.live_count()),
            ("query sets", s.query_sets.live_count()),
            ("bind group layouts", s.bind_group_layouts.live_count()),
            ("bind groups", s.bind_groups.live_count()),
            ("pipeline layouts", s.pipeline_layouts.live_count()),
            ("shader modules", s.shader_modules.live_count()),
            ("compute pipelines", s.compute_pipelines.live_count()),
            ("render pipelines", s.render_pipelines.live_count()),
        ]
    }
}

impl Device<TestApi> {
    /// The deterministic test backend under this device, for tests that control its
    /// completion or look at the commands that reached it.
    pub fn test_backend(&self) -> &TestDevice {
        &self.hal
    }
}

/// What [`Device::close`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloseReport {
    /// Whether the device was lost.
    pub lost: bool,
    /// Native objects still alive on the backend after the release (0 when nothing leaked;
    /// objects of other devices sharing the native device are counted too).
    pub live_native_objects: u64,
    /// Completed serial at the end.
    pub completed_serial: u64,
    /// Last submitted serial.
    pub last_submitted_serial: u64,
}

impl<A: Api> Drop for Device<A> {
    fn drop(&mut self) {
        self.teardown();
    }
}
