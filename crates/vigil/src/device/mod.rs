//! The validated device: one object that owns every resource, validates every call, and
//! keeps native objects alive exactly as long as the GPU needs them.
//!
//! A [`Device`] is a handle to a shared [`Core`]: its registries (one per kind of object,
//! looked up without locks on the recording path), the submission-side state behind one
//! lock, completion and loss (atomics), the waits and the test seams. Command encoders
//! hold the core too, so they record on any thread without borrowing the device.
//!
//! It does not record commands (see [`crate::encoder`]) or know shader languages (see
//! `vigil-shader`); its checks are pure functions in [`crate::validate`].

mod accel;
mod binding;
mod buffer;
pub(crate) mod copy;
mod gpu;
pub(crate) mod heaps;
pub(crate) mod indirect;
pub(crate) mod kinds;
pub(crate) mod mapping;
pub(crate) mod objects;
mod pipeline;
mod pipeline_cache;
mod placement;
mod progress;
mod queue;
mod runs;
mod seams;
mod shared;
mod surface;
mod texture;
mod uploads;

pub(crate) use buffer::registry_full;
pub use mapping::{MapMode, MapState, MapWaitOutcome, MapWaitParams, MapWaitReport};
pub(crate) use objects::*;
pub(crate) use pipeline::group_facts;
pub use placement::{
    MAX_PLACEMENT_HEAP_SIZE, PlacedTextureDescriptor, PlacementHeapDescriptor, TexturePlacement,
};
pub(crate) use placement::{check_active, commit_aliases, plan_aliases};
pub use queue::{Completion, KEPT_TIMESTAMPS, LossSnapshot, Stats, Timestamp, WaitSite};
pub(crate) use queue::{Head, Undo, written_by_transfer, zero_if_unwritten};
pub use seams::SeamHandle;
#[cfg(feature = "test-seams")]
pub use seams::Seams;
pub use texture::MAX_QUERIES;
pub use uploads::{MAX_QUEUED_WRITES, WriteStats};

use crate::DefaultApi;
use crate::error::{Error, Result, fail};
use crate::instance::Adapter;
use crate::native::Hal;
use crate::rules::Rule;
use kinds::{Kind, Registries};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;
use vigil_hal::test_backend::{TestApi, TestDevice};
use vigil_hal::{Adapter as _, AdapterInfo, Api, Device as _, Features, Limits, ValidationLog};

pub use accel::{BlasDescriptor, TlasDescriptor};
pub use binding::{
    BindGroupDescriptor, BindGroupEntry, BindGroupLayoutDescriptor, BindGroupPoolDescriptor,
    BindGroupWrite, BindingResource, BufferBinding, GroupBinding, GroupResource, sampled_layout,
};
pub use buffer::{BufferDescriptor, BufferInitDescriptor};
pub use gpu::{
    GpuHeapDescriptor, GpuPtr, GpuSlice, HeapKind, PointerComputePipelineDescriptor,
    PointerMeshPipelineDescriptor, PointerRenderPipelineDescriptor,
};
pub use heaps::{SamplerHeapDescriptor, TextureHeapDescriptor};
pub use pipeline::{ComputePipelineDescriptor, PipelineLayoutDescriptor, ShaderModuleDescriptor};
pub use pipeline_cache::PipelineCacheDescriptor;
pub use shared::TextureExport;
pub use surface::{SurfaceConfiguration, SurfaceFrame};

/// How to open a device.
///
/// Beyond WebGPU's `GPUDeviceDescriptor`: the staging budget, the bound on command buffers
/// in flight and the stall bound every wait uses.
#[derive(Clone, Debug)]
pub struct DeviceDescriptor {
    /// Label of the device (used in error messages).
    pub label: String,
    /// Features to enable; each must be supported by the adapter. `FULL_DRAW_INDEX_UINT32`,
    /// `SAMPLE_RATE_SHADING` and `INDIRECT_FIRST_INSTANCE` are enabled whenever the adapter
    /// has them, requested or not; `RAY_QUERY` brings `ACCELERATION_STRUCTURE` with it.
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
    pub stall_timeout: Duration,
}

impl Default for DeviceDescriptor {
    fn default() -> Self {
        DeviceDescriptor {
            label: String::new(),
            required_features: Features::empty(),
            required_limits: Limits::default(),
            staging_budget: 256 << 20,
            max_command_buffers_in_flight: 64,
            stall_timeout: Duration::from_secs(5),
        }
    }
}

/// What a device is opened with besides its features and limits.
struct Settings {
    label: String,
    staging_budget: u64,
    max_in_flight: u64,
    stall: Duration,
}

/// Everything a device shares with its command encoders.
#[doc(hidden)]
pub struct Core<A: Api> {
    pub(crate) id: u32,
    pub(crate) label: String,
    pub(crate) hal: Arc<Hal<A>>,
    pub(crate) info: AdapterInfo,
    pub(crate) features: Features,
    pub(crate) limits: Limits,
    pub(crate) objects: Registries<A>,
    /// Submission-side state: in-flight work, staged uploads, the queue.
    pub(crate) queue: runs::QueueLock<A>,
    /// Native command pools ready for reuse, each with the command buffers of its last
    /// (completed or never submitted) recording still to reset.
    pub(crate) pools: Mutex<Vec<queue::Pool<A>>>,
    pub(crate) last_submitted: AtomicU64,
    pub(crate) completion: Arc<queue::Completion>,
    pub(crate) validation: Option<Arc<ValidationLog>>,
    pub(crate) timeouts: Mutex<queue::Timeouts>,
    pub(crate) stats: Mutex<queue::Stats>,
    pub(crate) seams: seams::SeamState,
    pub(crate) max_in_flight: u64,
    pub(crate) staging_budget: u64,
    pub(crate) observer: RwLock<Option<Arc<dyn crate::observer::DeviceObserver>>>,
    /// Whether an observer is installed (set and cleared under `observer`'s write lock),
    /// so that calls with none installed take no lock to find that out.
    pub(crate) observed: std::sync::atomic::AtomicBool,
    /// Breadcrumbs the GPU leaves after each pass.
    pub(crate) progress: progress::Progress<A>,
    /// Moves on every destruction and mapping: while it has not moved since a command
    /// buffer began recording, everything the recording checked is still live and
    /// unmapped, and submission checks nothing per object.
    pub(crate) destroy_epoch: AtomicU64,
    /// Moves whenever a texture enters a texture heap (a slot comes to name a texture no
    /// slot named): a recording that checked its textures against the heaps at one value
    /// need not look again at the same value (see `CommandEncoder::heap_reads_clean`).
    pub(crate) heap_entries: AtomicU64,
    /// How far recent recordings' tables grew: what a new encoder reserves.
    pub(crate) table_hints: crate::encoder::used::TableHints,
    /// Completed recordings' tables indexed by registry slot, emptied: what a new encoder
    /// takes over (see `SlotTables`).
    pub(crate) spare_tables: Mutex<Vec<crate::encoder::used::SlotTables<A>>>,
    /// Structural identity of bind group layouts, for compatibility.
    pub(crate) layout_compat: Mutex<HashMap<Vec<vigil_hal::BindGroupLayoutEntry>, u32>>,
    /// Set once the device is closed (dropped): its encoders can no longer submit.
    pub(crate) closed: AtomicBool,
    /// The CPU/GPU timeline, when started.
    pub(crate) timeline: crate::timeline::TimelineState,
    /// Textures this device exported (for the shared tail it reports).
    pub(crate) exports: Mutex<Vec<std::sync::Weak<TextureObj<A>>>>,
    /// Live GPU heaps by address (what roots are checked against).
    pub(crate) heaps: Mutex<Vec<Arc<GpuHeapObj<A>>>>,
    /// What texture and sampler heaps share, made with the first heap.
    pub(crate) descriptor_heaps: Mutex<Option<Arc<heaps::HeapShared<A>>>>,
    /// Timestamps of the last completed submissions that wrote any, by serial.
    pub(crate) timestamps: Mutex<VecDeque<(u64, Vec<Vec<queue::Timestamp>>)>>,
    /// Whether the device's queue draws (not a device on the compute-only queue).
    pub(crate) draws: bool,
    /// The check of indirect dispatch arguments: its pipeline and scratch buffers.
    pub(crate) indirect: indirect::IndirectCheck<A>,
    /// The copy kernel's pipeline, once a copy took it.
    pub(crate) copies: indirect::KernelSlot<A>,
}

/// A validated device over backend `A` (Vulkan by default).
///
/// `Send` and `Sync`: any thread may create, destroy, write, map, submit and wait;
/// command encoders record on their own threads without touching it.
pub struct Device<A: Api = DefaultApi> {
    pub(crate) core: Arc<Core<A>>,
}

/// The device's methods and the core's are one set: a device is a handle to its core.
/// (Nothing of the core is reachable outside the crate.)
#[doc(hidden)]
impl<A: Api> std::ops::Deref for Device<A> {
    type Target = Core<A>;
    #[inline]
    fn deref(&self) -> &Core<A> {
        &self.core
    }
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

/// Locks a mutex, recovering from a poisoned one (no lock is held across user code, so a
/// panic elsewhere cannot leave the protected state half-changed).
#[inline]
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<A: Api> Device<A> {
    pub(crate) fn new(adapter: &Adapter<A>, desc: &DeviceDescriptor) -> Result<Self> {
        const OP: &str = "request_device";
        let missing = desc.required_features.difference(adapter.features());
        if !missing.is_empty() {
            return Err(Error::new(
                Rule::DeviceFeature,
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
                Rule::DeviceLimit,
                OP,
                &desc.label,
                format!(
                    "limit {name} = {requested} is beyond what '{}' supports ({supported})",
                    adapter.info().name
                ),
            ));
        }
        // Enabled whenever the adapter has them, as WebGPU's core assumes: in Vulkan
        // `fullDrawIndexUint32` governs the largest index value, not whether 32-bit indices
        // may be used, and `sampleRateShading` is what WGSL's `sample_index` needs.
        // `drawIndirectFirstInstance` too: without it an indirect draw whose arguments
        // (which the GPU may have written) name a first instance other than 0 is undefined
        // behaviour (VUID-VkDrawIndirectCommand-firstInstance-00501), and nothing on the
        // CPU can see those arguments.
        let mut features = desc.required_features
            | (adapter.features()
                & (Features::FULL_DRAW_INDEX_UINT32
                    | Features::SAMPLE_RATE_SHADING
                    | Features::INDIRECT_FIRST_INSTANCE));
        // Ray queries traverse acceleration structures: asking for them brings those.
        if features.contains(Features::RAY_QUERY) {
            features |= Features::ACCELERATION_STRUCTURE;
        }
        // Descriptor heaps are binding arrays with every flag, indexed by pointer shaders.
        // Mesh pipelines are pointer pipelines.
        if features.contains(Features::MESH_SHADER) {
            features |= Features::BUFFER_DEVICE_ADDRESS;
        }
        if features.contains(Features::DESCRIPTOR_HEAPS) {
            features |= Features::BUFFER_DEVICE_ADDRESS
                | Features::TEXTURE_BINDING_ARRAY
                | Features::BINDING_ARRAY_NON_UNIFORM_INDEXING
                | Features::PARTIALLY_BOUND_BINDING_ARRAY
                | Features::VARIABLE_COUNT_BINDING_ARRAY
                | Features::UPDATE_AFTER_BIND_SAMPLED_TEXTURES;
        }
        let hal = adapter
            .exposed
            .adapter
            .open(features, &desc.required_limits)
            .map(Hal::new)
            .map_err(|e| Error::from_hal(e, OP, &desc.label))?;
        Device::assemble(
            hal,
            adapter.info().clone(),
            features,
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
        hal: Hal<A>,
        info: AdapterInfo,
        features: Features,
        limits: Limits,
        completion: queue::Completion,
        validation: Option<Arc<ValidationLog>>,
        settings: Settings,
    ) -> Result<Self> {
        const OP: &str = "request_device";
        let hal = Arc::new(hal);
        let draws = hal.queue_draws();
        let progress =
            progress::Progress::new(&hal).map_err(|e| Error::from_hal(e, OP, &settings.label))?;
        let Settings {
            label,
            staging_budget,
            max_in_flight,
            stall,
        } = settings;
        Ok(Device {
            core: Arc::new(Core {
                id: crate::handle::next_device_id(),
                label,
                hal,
                info,
                features,
                limits,
                objects: Registries::default(),
                queue: runs::QueueLock::new(queue::QueueState::new(staging_budget)),
                pools: Mutex::new(Vec::new()),
                last_submitted: AtomicU64::new(0),
                completion: Arc::new(completion),
                validation,
                timeouts: Mutex::new(queue::Timeouts {
                    stall,
                    ..queue::Timeouts::default()
                }),
                stats: Mutex::new(queue::Stats::default()),
                seams: seams::SeamState::new(),
                max_in_flight,
                staging_budget,
                observer: RwLock::new(None),
                observed: std::sync::atomic::AtomicBool::new(false),
                progress,
                destroy_epoch: AtomicU64::new(0),
                heap_entries: AtomicU64::new(0),
                table_hints: Default::default(),
                spare_tables: Mutex::new(Vec::new()),
                layout_compat: Mutex::new(HashMap::new()),
                closed: AtomicBool::new(false),
                timeline: crate::timeline::TimelineState::default(),
                exports: Mutex::new(Vec::new()),
                heaps: Mutex::new(Vec::new()),
                descriptor_heaps: Mutex::new(None),
                timestamps: Mutex::new(VecDeque::new()),
                draws,
                indirect: indirect::IndirectCheck::default(),
                copies: indirect::KernelSlot::default(),
            }),
        })
    }

    /// A device over `hal` (a share of this device's native device): this one's adapter,
    /// features, limits, settings and loss, its label followed by `what`.
    fn shared_over(&self, hal: Hal<A>, what: &str) -> Result<Device<A>> {
        Device::assemble(
            hal,
            self.info.clone(),
            self.features,
            self.limits.clone(),
            queue::Completion::sharing_loss(&self.completion),
            self.validation.clone(),
            Settings {
                label: format!("{} ({what})", self.label),
                staging_budget: self.staging_budget,
                max_in_flight: self.max_in_flight,
                stall: lock(&self.timeouts).stall,
            },
        )
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
        self.shared_over(hal, "shared")
    }

    /// As [`Device::share`], but the new device submits to the native device's second queue
    /// (of the same queue family, so it can do everything this one can), and its work runs
    /// alongside this one's. Work on the two queues is ordered only through the textures
    /// they share ([`Device::export_texture`]): a submission using a shared texture waits,
    /// on the GPU, for the last submission of every device on the other queue that used
    /// it, and the host waits for nothing. Refused (`device.second-queue`) when the native
    /// device has one queue (lavapipe's family has one; NVIDIA's graphics family has
    /// sixteen).
    pub fn share_on_second_queue(&self) -> Result<Device<A>> {
        const OP: &str = "share_on_second_queue";
        self.check_alive(OP)?;
        let hal = self
            .hal
            .share_on_second_queue()
            .map_err(|e| self.hal_error(e, OP, &self.label))?
            .ok_or_else(|| {
                Error::new(
                    Rule::DeviceSecondQueue,
                    OP,
                    &self.label,
                    "the native device was opened with one queue: its adapter's queue family has no second",
                )
            })?;
        self.shared_over(hal, "second queue")
    }

    /// As [`Device::share`], but the new device submits to the queue of the adapter's
    /// compute-only family (an async compute queue), opened with the native device when
    /// it was asked for `ASYNC_COMPUTE`: its compute passes and copies run beside this
    /// device's work. It does not draw: render passes, depth-stencil textures, surfaces and
    /// graphics stages in barriers are refused there (`queue.draws`). Work is ordered
    /// across the queues through shared textures (as for [`Device::share_on_second_queue`])
    /// and explicitly with [`Device::submit_after`]. Refused (`device.compute-queue`)
    /// without `ASYNC_COMPUTE` (lavapipe has no such family; NVIDIA's has eight queues).
    pub fn share_on_compute_queue(&self) -> Result<Device<A>> {
        const OP: &str = "share_on_compute_queue";
        self.check_alive(OP)?;
        let hal = self
            .hal
            .share_on_compute_queue()
            .map_err(|e| self.hal_error(e, OP, &self.label))?
            .ok_or_else(|| {
                Error::new(
                    Rule::DeviceComputeQueue,
                    OP,
                    &self.label,
                    if self.features.contains(Features::ASYNC_COMPUTE) {
                        "the native device has no compute-only queue".to_owned()
                    } else {
                        "the device was opened without ASYNC_COMPUTE: ask for it in required_features (the adapter must have a compute-only queue family)".to_owned()
                    },
                )
            })?;
        self.shared_over(hal, "compute queue")
    }

    /// Which of the native device's queues the device submits to: 0, 1 for a device made
    /// with [`Device::share_on_second_queue`], and the last for one made with
    /// [`Device::share_on_compute_queue`] (a share of either stays on its queue).
    pub fn queue_index(&self) -> u32 {
        self.hal.queue_index()
    }

    /// Whether the device's queue draws: false only for a device made with
    /// [`Device::share_on_compute_queue`] (and its shares).
    pub fn queue_draws(&self) -> bool {
        self.draws
    }

    /// Drains the device (bounded by progress) and releases every native object, reporting
    /// what was left: the explicit form of dropping it. Objects still held by encoders or
    /// command buffers that outlive the device are released when those go, and counted as
    /// left here.
    pub fn close(self) -> CloseReport {
        self.core.teardown();
        CloseReport {
            lost: self.completion.is_lost(),
            live_native_objects: self.hal.live_objects(),
            completed_serial: self.completion.completed(),
            last_submitted_serial: self.last_submitted.load(Ordering::Acquire),
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
    /// rather than for any object of yours: idle command pools and staging buffers, those
    /// of submissions not yet seen complete, what texture and sampler heaps share (set
    /// layouts, the pointer pipelines' layouts, placeholders) once one was made, and the
    /// indirect-dispatch check's pipeline and idle scratch buffers once one was made, and the
    /// copy kernel's pipeline once a copy took it. Leak checks
    /// compare the live count minus this against the count of a fresh device.
    pub fn pooled_native_objects(&self) -> u64 {
        let pools = lock(&self.pools).len() as u64;
        // What every texture and sampler heap shares, once the first was made: two set
        // layouts, the pointer pipelines' three layouts (compute, render, mesh), and the
        // placeholder texture, view and sampler.
        let heaps = if lock(&self.descriptor_heaps).is_some() {
            8
        } else {
            0
        };
        pools
            .saturating_add(heaps)
            .saturating_add(self.indirect.pooled())
            .saturating_add(self.copies.pooled())
            .saturating_add(self.queue.lock().pooled_native_objects())
    }

    /// What the validation layer has said so far, when validation is on.
    pub fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        self.validation.clone()
    }

    /// Objects currently alive per kind, for diagnostics: `(kind, count)`.
    pub fn live_objects(&self) -> Vec<(&'static str, usize)> {
        self.objects.live_counts()
    }
}

impl<A: Api> Core<A> {
    /// Refuses stages the device's queue does not have (graphics stages on the compute
    /// queue), named by the caller as `what`.
    pub(crate) fn stages_on_queue(
        &self,
        op: &'static str,
        label: &str,
        what: &str,
        stages: vigil_hal::Stages,
    ) -> Result<()> {
        if self.draws || vigil_hal::Stages::COMPUTE_QUEUE.contains(stages) {
            return Ok(());
        }
        self.needs_drawing_queue(op, label, &format!("{what} {stages:?}"))
    }

    /// Refuses `what` (graphics work) on a device whose queue does not draw.
    pub(crate) fn needs_drawing_queue(
        &self,
        op: &'static str,
        label: &str,
        what: &str,
    ) -> Result<()> {
        if self.draws {
            return Ok(());
        }
        Err(fail!(
            QueueDraws,
            op,
            label,
            "{what} needs a queue that draws; this device is on the compute queue (compute passes, copies and color clears only)"
        ))
    }
}

impl<A: Api> Core<A> {
    /// The live object a handle names.
    #[inline]
    pub(crate) fn lookup<H: Kind<A>>(&self, h: H, op: &'static str) -> Result<Arc<H::Obj>>
    where
        H::Obj: crate::registry::Labelled,
    {
        H::registry(&self.objects).get(h, self.id, op)
    }

    /// Takes a live object out of its registry: its handle is stale from now on. The
    /// object (and its native object) lives on while anything else holds it.
    pub(crate) fn remove<H: Kind<A>>(&self, h: H, op: &'static str) -> Result<Arc<H::Obj>>
    where
        H::Obj: crate::registry::Labelled,
    {
        let obj = H::registry(&self.objects).remove(h, self.id, op)?;
        self.destroy_epoch.fetch_add(1, Ordering::AcqRel);
        Ok(obj)
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
        Error::new(Rule::DeviceLost, op, &self.label, why)
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

    /// The current stall bound and wait caps.
    pub(crate) fn timeouts(&self) -> queue::Timeouts {
        *lock(&self.timeouts)
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
        self.core.teardown();
    }
}
