//! The test backend's instance, adapter and device.

use super::encoder::{TestCommand, TestCommandBuffer, TestCommandEncoder};
use super::{TestApi, TestBuffer, TestObject, TestSurface, next_id};
use crate::adapter::{AdapterInfo, DeviceType, Features, Limits};
use crate::api::{
    Adapter, BindGroupDescriptor, BindGroupEntry, Device, ExposedAdapter, Instance,
    InstanceDescriptor, Mapping,
};
use crate::binding::BindGroupLayoutDescriptor;
use crate::buffer::BufferDescriptor;
use crate::faults::FaultInjector;
#[cfg(feature = "test-seams")]
use crate::faults::{CallSite, FaultKind};
use crate::pipeline::{
    ComputePipelineDescriptor, PipelineLayoutDescriptor, ShaderModuleDescriptor,
};
use crate::render::RenderPipelineDescriptor;
use crate::surface::{
    CompositeAlphaMode, PresentMode, PresentOutcome, PresentSource, SurfaceCapabilities,
    SurfaceConfiguration, SurfaceStatus, WindowTarget,
};
use crate::texture::{
    SamplerDescriptor, TextureDescriptor, TextureFormat, TexturePlacement, TextureUsages,
    TextureViewDescriptor,
};
use crate::validation_log::ValidationLog;
use crate::{DeviceError, IndexFormat, Result};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The test instance: one adapter, "vigil test adapter".
#[derive(Debug)]
pub struct TestInstance;

/// The test adapter: supports every feature, with the limits it was built with.
#[derive(Debug)]
pub struct TestAdapter {
    limits: Limits,
}

impl Instance for TestInstance {
    type A = TestApi;

    fn init(_desc: &InstanceDescriptor<'_>) -> Result<Self> {
        Ok(TestInstance)
    }

    fn enumerate_adapters(&self) -> Vec<ExposedAdapter<TestApi>> {
        let limits = TestAdapter::supported_limits();
        vec![ExposedAdapter {
            adapter: TestAdapter {
                limits: limits.clone(),
            },
            info: AdapterInfo {
                name: "vigil test adapter".into(),
                vendor_id: 0,
                device_id: 0,
                device_type: DeviceType::Cpu,
                driver: "test".into(),
                driver_info: "deterministic".into(),
                api_version: (1, 3, 0),
                backend: "test",
                timestamp_period_ns: 1.0,
            },
            features: TestAdapter::supported_features(),
            limits,
        }]
    }

    fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        None
    }
}

impl TestAdapter {
    /// Features of the test adapter: every one except `FULL_DRAW_INDEX_UINT32`, so tests can
    /// see the refusal of 32-bit indices on a device that does not honour their full range.
    pub fn supported_features() -> Features {
        Features::all() - Features::FULL_DRAW_INDEX_UINT32
    }

    /// Limits of the test adapter: the WebGPU defaults with larger buffers.
    pub fn supported_limits() -> Limits {
        Limits {
            max_buffer_size: 1 << 40,
            max_storage_buffer_binding_size: 1 << 32,
            // What every Vulkan device offers.
            max_immediate_size: 128,
            ..Limits::default()
        }
    }

    /// An adapter with other limits, for tests of limit checks.
    pub fn with_limits(limits: Limits) -> TestAdapter {
        TestAdapter { limits }
    }
}

impl Adapter for TestAdapter {
    type A = TestApi;

    fn open(&self, features: Features, _limits: &Limits) -> Result<TestDevice> {
        let _ = &self.limits;
        Ok(TestDevice::new(features))
    }
}

/// Call sites the test device consults its fault injector at.
#[cfg(feature = "test-seams")]
pub const TEST_CALL_SITES: &[CallSite] = &[
    CallSite {
        name: "create_pipeline_cache",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "pipeline_cache_data",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "create_buffer",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "create_texture",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "create_texture_memory",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "create_bind_group",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "update_bind_group",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "create_compute_pipeline",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "begin_command_buffer",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "end_command_buffer",
        errors: &[FaultKind::OutOfMemory],
        only_if: None,
    },
    CallSite {
        name: "submit",
        errors: &[FaultKind::OutOfMemory, FaultKind::DeviceLost],
        only_if: None,
    },
    CallSite {
        name: "wait",
        errors: &[FaultKind::DeviceLost],
        only_if: None,
    },
];

/// The queue index of test devices on the compute-only queue.
const COMPUTE_QUEUE: u32 = 2;

/// The test device.
#[derive(Debug)]
pub struct TestDevice {
    features: Features,
    /// Live native objects of the root (shared by every device made with `share`).
    live: Arc<AtomicI64>,
    /// Loss of the root (shared likewise).
    lost: Arc<AtomicBool>,
    completed: AtomicU64,
    submitted: AtomicU64,
    /// Submissions may complete up to this signal value (`u64::MAX` completes at once).
    limit: AtomicU64,
    gate: AtomicU64,
    /// Submitted and not yet complete: `(signal value, gate wait)`, in order.
    pending: Mutex<std::collections::VecDeque<(u64, Option<u64>)>>,
    faults: Arc<FaultInjector>,
    log: Mutex<Vec<(u64, Vec<TestCommand>)>>,
    /// The size of every test surface's window.
    surface_extent: Arc<Mutex<[u32; 2]>>,
    /// The queue it submits to: 0, or 2 for a device on the compute-only queue (which does
    /// not draw).
    queue: u32,
}

impl TestDevice {
    fn new(features: Features) -> TestDevice {
        TestDevice {
            features,
            live: Arc::new(AtomicI64::new(0)),
            lost: Arc::new(AtomicBool::new(false)),
            completed: AtomicU64::new(0),
            submitted: AtomicU64::new(0),
            limit: AtomicU64::new(u64::MAX),
            gate: AtomicU64::new(0),
            pending: Mutex::new(std::collections::VecDeque::new()),
            faults: Arc::new(FaultInjector::default()),
            log: Mutex::new(Vec::new()),
            surface_extent: Arc::new(Mutex::new([64, 64])),
            queue: 0,
        }
    }

    /// Whether submissions complete as soon as they are submitted (the default).
    pub fn set_auto_complete(&self, on: bool) {
        let limit = if on {
            u64::MAX
        } else {
            self.completed.load(Ordering::Acquire)
        };
        self.limit.store(limit, Ordering::Release);
        self.advance();
    }

    /// Lets submissions complete up to and including signal value `value`.
    pub fn complete_through(&self, value: u64) {
        self.limit.fetch_max(value, Ordering::AcqRel);
        self.advance();
    }

    /// Moves completion over every submission allowed to complete, in order.
    fn advance(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let limit = self.limit.load(Ordering::Acquire);
        let gate = self.gate.load(Ordering::Acquire);
        while let Some(&(signal, wait)) = pending.front() {
            if signal > limit || wait.is_some_and(|w| gate < w) {
                break;
            }
            self.completed.fetch_max(signal, Ordering::AcqRel);
            pending.pop_front();
        }
    }

    /// Makes every later call report a lost device.
    pub fn set_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// The commands of every submission so far, with its signal value.
    pub fn submitted_commands(&self) -> Vec<(u64, Vec<TestCommand>)> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A shared view of the live-object count that outlives the device, for checking that
    /// everything was released by the time it was dropped.
    pub fn live_counter(&self) -> Arc<AtomicI64> {
        self.live.clone()
    }

    /// The features the device was opened with.
    pub fn features(&self) -> Features {
        self.features
    }

    fn check(&self, site: &str) -> Result<()> {
        if self.lost.load(Ordering::Acquire) {
            return Err(DeviceError::Lost);
        }
        self.faults.check(site)
    }

    /// Resizes the window of every surface of this device (and of devices sharing its
    /// root): what a user dragging the window's corner does.
    pub fn set_surface_extent(&self, extent: [u32; 2]) {
        *self
            .surface_extent
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = extent;
    }

    fn object(&self, site: &str, label: &str) -> Result<TestObject> {
        self.check(site)?;
        self.live.fetch_add(1, Ordering::AcqRel);
        Ok(TestObject {
            id: next_id(),
            label: label.to_owned(),
        })
    }

    fn release(&self) {
        self.live.fetch_sub(1, Ordering::AcqRel);
    }

    fn replay(commands: &[TestCommand]) {
        for command in commands {
            match command {
                TestCommand::CopyBuffer {
                    region,
                    src_data,
                    dst_data,
                    ..
                } => {
                    let (s, d, n) = (
                        region.src_offset as usize,
                        region.dst_offset as usize,
                        region.size as usize,
                    );
                    let bytes: Vec<u8> = {
                        let src = src_data.lock().unwrap_or_else(|p| p.into_inner());
                        src.get(s..s + n).map(<[u8]>::to_vec).unwrap_or_default()
                    };
                    let mut dst = dst_data.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some(out) = dst.get_mut(d..d + bytes.len()) {
                        out.copy_from_slice(&bytes);
                    }
                }
                TestCommand::FillBuffer {
                    offset,
                    size,
                    value,
                    data,
                    ..
                } => {
                    let mut dst = data.lock().unwrap_or_else(|p| p.into_inner());
                    let range = *offset as usize..(*offset + *size) as usize;
                    if let Some(out) = dst.get_mut(range) {
                        for chunk in out.chunks_mut(4) {
                            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl Device for TestDevice {
    type A = TestApi;

    unsafe fn create_buffer(&self, desc: &BufferDescriptor<'_>) -> Result<TestBuffer> {
        self.check("create_buffer")?;
        self.live.fetch_add(1, Ordering::AcqRel);
        Ok(TestBuffer {
            id: next_id(),
            data: Arc::new(Mutex::new(vec![0; desc.size as usize])),
        })
    }

    unsafe fn destroy_buffer(&self, _buffer: TestBuffer) {
        self.release();
    }

    fn mapping(&self, buffer: &TestBuffer) -> Option<Mapping> {
        // The contents never move (the vector is never resized), so the pointer stays good
        // for as long as the buffer; the caller keeps GPU work off the bytes it touches.
        let mut mem = buffer.data.lock().unwrap_or_else(|p| p.into_inner());
        Some(Mapping {
            ptr: NonNull::new(mem.as_mut_ptr()).unwrap_or(NonNull::dangling()),
            len: mem.len() as u64,
            // Host memory, read by nothing but the host: nothing to flush (its `flush` only
            // checks for injected faults).
            coherent: true,
        })
    }

    unsafe fn flush(&self, _buffer: &TestBuffer, _offset: u64, _len: u64) -> Result<()> {
        self.check("flush")
    }

    unsafe fn invalidate(&self, _buffer: &TestBuffer, _offset: u64, _len: u64) -> Result<()> {
        self.check("invalidate")
    }

    unsafe fn create_texture(&self, desc: &TextureDescriptor<'_>) -> Result<TestObject> {
        self.object("create_texture", desc.label)
    }

    unsafe fn destroy_texture(&self, _texture: TestObject) {
        self.release();
    }

    unsafe fn create_texture_view(
        &self,
        _texture: &TestObject,
        desc: &TextureViewDescriptor<'_>,
    ) -> Result<TestObject> {
        self.object("create_texture_view", desc.label)
    }

    unsafe fn destroy_texture_view(&self, _view: TestObject) {
        self.release();
    }

    unsafe fn create_sampler(&self, desc: &SamplerDescriptor<'_>) -> Result<TestObject> {
        self.object("create_sampler", desc.label)
    }

    unsafe fn destroy_sampler(&self, _sampler: TestObject) {
        self.release();
    }

    fn pipeline_cache_key(&self) -> Vec<u8> {
        b"test backend".to_vec()
    }

    unsafe fn create_pipeline_cache(&self, label: &str, _data: &[u8]) -> Result<TestObject> {
        self.object("create_pipeline_cache", label)
    }

    unsafe fn pipeline_cache_data(&self, _cache: &TestObject) -> Result<Vec<u8>> {
        self.check("pipeline_cache_data")?;
        Ok(b"the test backend's pipelines".to_vec())
    }

    unsafe fn destroy_pipeline_cache(&self, _cache: TestObject) {
        self.release();
    }

    unsafe fn create_query_set(
        &self,
        label: &str,
        _ty: crate::QueryType,
        _count: u32,
    ) -> Result<TestObject> {
        self.object("create_query_set", label)
    }

    unsafe fn destroy_query_set(&self, _set: TestObject) {
        self.release();
    }

    unsafe fn reset_queries_on_host(
        &self,
        _set: &TestObject,
        _first: u32,
        _count: u32,
    ) -> Result<()> {
        Ok(())
    }

    unsafe fn read_timestamps(
        &self,
        _set: &TestObject,
        _first: u32,
        out: &mut [u64],
    ) -> Result<bool> {
        // The test backend runs nothing: every timestamp reads as tick 0.
        out.fill(0);
        Ok(true)
    }

    unsafe fn create_bind_group_layout(
        &self,
        desc: &BindGroupLayoutDescriptor<'_>,
    ) -> Result<TestObject> {
        self.object("create_bind_group_layout", desc.label)
    }

    unsafe fn destroy_bind_group_layout(&self, _layout: TestObject) {
        self.release();
    }

    unsafe fn create_bind_group(
        &self,
        desc: &BindGroupDescriptor<'_, TestApi>,
    ) -> Result<TestObject> {
        self.object("create_bind_group", desc.label)
    }

    unsafe fn destroy_bind_group(&self, _group: TestObject) {
        self.release();
    }

    unsafe fn update_bind_group(
        &self,
        _group: &TestObject,
        _layout: &TestObject,
        _entries: &[BindGroupEntry<'_, TestApi>],
    ) -> Result<()> {
        self.check("update_bind_group")
    }

    unsafe fn create_pipeline_layout(
        &self,
        desc: &PipelineLayoutDescriptor<'_, TestApi>,
    ) -> Result<TestObject> {
        self.object("create_pipeline_layout", desc.label)
    }

    unsafe fn destroy_pipeline_layout(&self, _layout: TestObject) {
        self.release();
    }

    unsafe fn create_shader_module(&self, desc: &ShaderModuleDescriptor<'_>) -> Result<TestObject> {
        self.object("create_shader_module", desc.label)
    }

    unsafe fn destroy_shader_module(&self, _module: TestObject) {
        self.release();
    }

    unsafe fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor<'_, TestApi>,
    ) -> Result<TestObject> {
        self.object("create_compute_pipeline", desc.label)
    }

    unsafe fn destroy_compute_pipeline(&self, _pipeline: TestObject) {
        self.release();
    }

    unsafe fn create_render_pipeline(
        &self,
        desc: &RenderPipelineDescriptor<'_, TestApi>,
    ) -> Result<TestObject> {
        self.object("create_render_pipeline", desc.label)
    }

    unsafe fn destroy_render_pipeline(&self, _pipeline: TestObject) {
        self.release();
    }

    fn create_command_encoder(&self, _label: &str) -> Result<TestCommandEncoder> {
        self.check("create_command_encoder")?;
        self.live.fetch_add(1, Ordering::AcqRel);
        Ok(TestCommandEncoder {
            faults: Some(self.faults.clone()),
            ..Default::default()
        })
    }

    unsafe fn destroy_command_encoder(&self, _encoder: TestCommandEncoder) {
        self.release();
    }

    unsafe fn submit(
        &self,
        command_buffers: &[&TestCommandBuffer],
        signal_value: u64,
    ) -> Result<()> {
        self.submit_with(command_buffers, signal_value, None)
    }

    unsafe fn create_texture_memory(&self, label: &str, _size: u64) -> Result<(TestObject, u32)> {
        Ok((self.object("create_texture_memory", label)?, 0))
    }

    unsafe fn destroy_texture_memory(&self, _memory: TestObject) {
        self.release();
    }

    unsafe fn texture_placement(&self, desc: &TextureDescriptor<'_>) -> Result<TexturePlacement> {
        // Every texel of every mip and layer and sample, rounded up to a 256-byte page:
        // deterministic, and what a real driver needs at least.
        let texel = u64::from(desc.format.info().bytes_per_texel.max(4));
        let mut bytes = 0u64;
        for mip in 0..desc.mip_level_count {
            let w = u64::from((desc.width >> mip).max(1));
            let h = u64::from((desc.height >> mip).max(1));
            bytes = bytes.saturating_add(w.saturating_mul(h).saturating_mul(texel));
        }
        // A 3D texture's mip levels halve its depth too; adding them whole is an upper bound.
        let bytes = bytes
            .saturating_mul(u64::from(desc.array_layers))
            .saturating_mul(u64::from(desc.depth.max(1)))
            .saturating_mul(u64::from(desc.sample_count));
        Ok(TexturePlacement {
            size: bytes.div_ceil(256).saturating_mul(256).max(256),
            alignment: 256,
            memory_types: 1,
        })
    }

    unsafe fn create_placed_texture(
        &self,
        desc: &TextureDescriptor<'_>,
        _memory: &TestObject,
        _offset: u64,
    ) -> Result<TestObject> {
        self.object("create_texture", desc.label)
    }

    unsafe fn alias_texture(&self, texture: &TestObject) -> Result<TestObject> {
        self.check("alias_texture")?;
        self.live.fetch_add(1, Ordering::AcqRel);
        // The same identity: commands naming the alias name the texture.
        Ok(TestObject {
            id: texture.id,
            label: texture.label.clone(),
        })
    }

    unsafe fn create_surface(&self, _target: WindowTarget) -> Result<TestSurface> {
        self.check("create_surface")?;
        self.live.fetch_add(1, Ordering::AcqRel);
        Ok(TestSurface {
            id: next_id(),
            config: None,
        })
    }

    fn surface_capabilities(&self, _surface: &TestSurface) -> Result<SurfaceCapabilities> {
        self.check("surface_capabilities")?;
        let extent = *self
            .surface_extent
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Ok(SurfaceCapabilities {
            formats: vec![TextureFormat::Bgra8Unorm, TextureFormat::Rgba8Unorm],
            present_modes: vec![PresentMode::Fifo, PresentMode::Mailbox],
            alpha_modes: vec![CompositeAlphaMode::Opaque],
            current_extent: Some(extent),
            min_extent: [1, 1],
            max_extent: [16384, 16384],
            usages: TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::COPY_DST
                | TextureUsages::COPY_SRC,
        })
    }

    unsafe fn configure_surface(
        &self,
        surface: &mut TestSurface,
        config: &SurfaceConfiguration,
    ) -> Result<()> {
        self.check("configure_surface")?;
        surface.config = Some(*config);
        Ok(())
    }

    unsafe fn present(
        &self,
        surface: &mut TestSurface,
        source: &TestObject,
        _from: PresentSource,
        signal_value: u64,
    ) -> Result<PresentOutcome> {
        self.check("present")?;
        let extent = *self
            .surface_extent
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if surface.config.is_none_or(|c| c.extent != extent) {
            return Ok(PresentOutcome {
                status: SurfaceStatus::OutOfDate,
                submitted: false,
            });
        }
        let cb = TestCommandBuffer {
            label: "present".to_owned(),
            commands: vec![TestCommand::Present {
                surface: surface.id,
                source: source.id,
            }],
        };
        self.submit_with(&[&cb], signal_value, None)?;
        Ok(PresentOutcome {
            status: SurfaceStatus::Good,
            submitted: true,
        })
    }

    unsafe fn destroy_surface(&self, _surface: TestSurface) {
        self.release();
    }

    unsafe fn create_acceleration_structure(
        &self,
        desc: &crate::accel::AccelerationStructureDescriptor<'_>,
    ) -> Result<TestObject> {
        self.object("create_acceleration_structure", desc.label)
    }

    unsafe fn destroy_acceleration_structure(&self, _structure: TestObject) {
        self.release();
    }

    fn buffer_address(&self, buffer: &TestBuffer) -> u64 {
        // Made up, distinct per buffer and far apart (no two ranges overlap below 1 TiB).
        buffer.id.wrapping_mul(1 << 40)
    }

    fn acceleration_structure_address(&self, structure: &TestObject) -> u64 {
        // A made-up address, distinct per object and aligned as Vulkan's are.
        structure.id.wrapping_mul(256)
    }

    fn share(&self) -> Result<TestDevice> {
        self.check("share")?;
        let mut other = TestDevice::new(self.features);
        other.live = self.live.clone();
        other.lost = self.lost.clone();
        other.surface_extent = self.surface_extent.clone();
        other.queue = self.queue;
        Ok(other)
    }

    fn share_on_compute_queue(&self) -> Result<Option<TestDevice>> {
        if !self.features.contains(Features::ASYNC_COMPUTE) {
            return Ok(None);
        }
        let mut other = self.share()?;
        other.queue = COMPUTE_QUEUE;
        Ok(Some(other))
    }

    fn queue_index(&self) -> u32 {
        self.queue
    }

    fn queue_draws(&self) -> bool {
        self.queue != COMPUTE_QUEUE
    }

    unsafe fn submit_after(
        &self,
        command_buffers: &[&TestCommandBuffer],
        signal_value: u64,
        _after: &[(&TestDevice, u64)],
    ) -> Result<()> {
        // The test backend runs nothing: waits across its queues order nothing.
        self.submit_with(command_buffers, signal_value, None)
    }

    fn completed_value(&self) -> Result<u64> {
        self.check("completed_value")?;
        self.advance();
        Ok(self.completed.load(Ordering::Acquire))
    }

    fn wait_for_value(&self, value: u64, timeout: Duration) -> Result<bool> {
        self.check("wait")?;
        if self.completed.load(Ordering::Acquire) >= value {
            return Ok(true);
        }
        // Completion moves only when the test says so; a bounded sleep keeps the wait honest
        // for tests that release it from another thread.
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1).min(timeout));
            self.check("wait")?;
            self.advance();
            if self.completed.load(Ordering::Acquire) >= value {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn quiesce(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            self.advance();
            if self.lost.load(Ordering::Acquire)
                || self.completed.load(Ordering::Acquire) >= self.submitted.load(Ordering::Acquire)
            {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1).min(timeout));
        }
    }

    fn live_objects(&self) -> u64 {
        self.live.load(Ordering::Acquire).max(0) as u64
    }

    fn format_support(&self, format: crate::TextureFormat) -> crate::FormatSupport {
        let info = format.info();
        let float = matches!(info.sample_type, crate::TextureSampleType::Float { .. });
        let color = !format.is_depth_stencil() && !format.is_compressed();
        // As lavapipe and the GPUs tested, more than WebGPU allows: every float format
        // filters and blends, every uncompressed color format is rendered to, stored and
        // multisampled (WebGPU's capabilities are the layer above's to apply).
        crate::FormatSupport {
            sampled: true,
            filterable: float,
            storage: color,
            color_attachment: color,
            blendable: color && float,
            depth_stencil_attachment: format.is_depth_stencil(),
            copy: true,
            multisample4: !format.is_compressed(),
        }
    }

    fn supports_full_index_range(&self, format: IndexFormat) -> bool {
        format == IndexFormat::Uint16 || self.features.contains(Features::FULL_DRAW_INDEX_UINT32)
    }
}

impl TestDevice {
    fn submit_with(
        &self,
        command_buffers: &[&TestCommandBuffer],
        signal_value: u64,
        gate_wait: Option<u64>,
    ) -> Result<()> {
        self.check("submit")?;
        let mut commands = Vec::new();
        for cb in command_buffers {
            Self::replay(&cb.commands);
            commands.extend(cb.commands.iter().cloned());
        }
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((signal_value, commands));
        self.submitted.fetch_max(signal_value, Ordering::AcqRel);
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back((signal_value, gate_wait));
        self.advance();
        Ok(())
    }
}

#[cfg(feature = "test-seams")]
impl crate::api::TestControl for TestDevice {
    fn faults(&self) -> &FaultInjector {
        &self.faults
    }

    fn call_sites(&self) -> &'static [CallSite] {
        TEST_CALL_SITES
    }

    unsafe fn submit_gated(
        &self,
        command_buffers: &[&TestCommandBuffer],
        signal_value: u64,
        gate_wait: u64,
        _after: &[(&TestDevice, u64)],
    ) -> Result<()> {
        // As `submit_after`: the waits order nothing here.
        self.submit_with(command_buffers, signal_value, Some(gate_wait))
    }

    fn open_gate(&self, value: u64) -> Result<()> {
        self.gate.fetch_max(value, Ordering::AcqRel);
        self.advance();
        Ok(())
    }

    fn gate_value(&self) -> Result<u64> {
        Ok(self.gate.load(Ordering::Acquire))
    }

    fn fresh_gate(&self) -> Result<()> {
        Ok(())
    }
}
