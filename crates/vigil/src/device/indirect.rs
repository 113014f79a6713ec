//! Indirect dispatch arguments checked on the GPU.
//!
//! A dispatch whose workgroup counts exceed the device's limit is undefined behaviour in
//! Vulkan (VUID-VkDispatchIndirectCommand-x-00417), and counts an indirect dispatch reads
//! are written by the application or by the GPU itself, so the CPU cannot check them. So
//! every [`crate::CommandEncoder::dispatch_indirect`] first runs a compute shader of
//! vigil's own that copies the three counts into a slot of a scratch buffer,
//! all three set to zero when any is above `max_compute_workgroups_per_dimension` (the
//! dispatch then does nothing, as WebGPU specifies), and the dispatch reads the slot.
//! Indirect mesh-task counts are checked the same way against the task or mesh limits.
//! Indexed indirect draws' arguments are copied with the index count zero when their
//! indices run past the bound index range (undefined behaviour in Vulkan without
//! `robustBufferAccess2`, VUID-VkDrawIndexedIndirectCommand-robustBufferAccess2-08798),
//! and on a device without `drawIndirectFirstInstance` every indirect draw's arguments are
//! copied with the instance count and the first instance zero when the first instance is
//! not (undefined behaviour there, VUID-VkDrawIndirectCommand-firstInstance-00501).
//!
//! Checks recorded together (in front of a pass or of the command buffer) go in runs: one
//! dispatch checks arguments that lie at one stride in one buffer, checked the same way,
//! into slots one after another (a multi-draw's, or consecutive draws' from one buffer of
//! commands), one invocation each.
//!
//! The pipeline is made on the first indirect dispatch and kept for the device's life.
//! Scratch buffers (1,024 slots each, one per checked call or draw) are leased by recordings and come
//! back to the device's free list when the recording's lease is dropped: when its
//! submission completed, or when it was never submitted.

use crate::error::{Error, Result};
use crate::native::{BindGroupKind, BindGroupLayoutKind, BufferKind, Hal, Owned};
use crate::native::{ComputePipelineKind, PipelineLayoutKind};
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use vigil_hal::{Api, BufferUsages, ShaderFormat, ShaderStages};

/// Slots in one scratch buffer (32 KiB to 256 KiB, by the storage offset alignment): a
/// frame of 10,000 indirect dispatches leases ten.
pub(crate) const SLOTS: u32 = 1024;

/// Scratch buffers kept free at most (more are released when their lease ends): enough for
/// frames of 64,000 indirect dispatches to lease only buffers made before.
const KEEP_FREE: usize = 64;

/// The shader: `src` is the argument buffer, `dst` the recording's scratch buffer, whole.
/// One dispatch checks a run of `p.count` arguments: invocation `i` reads the arguments at
/// word `p.at + i * p.stride` of `src` and writes slot `i` of the run, at word
/// `p.slot + i * p.slot_words` of `dst` (a run's arguments all checked the same way, its
/// slots one after another; see `record_checks` in `encoder/compute.rs`).
///
/// Dispatch and mesh-task counts (`p.x` not 0): they pass when each is within its
/// dimension's limit (`p.x`, `p.y`, `p.z`) and, when `p.total` is not 0, their product is
/// within it (checked by division, so nothing overflows); otherwise all three are zero.
///
/// Draw arguments (`p.x` 0, which no dimension's limit is): the `p.z` words (4, or 5 for an
/// indexed draw) are copied, with the instance count and the first instance zero when the
/// first instance (word `p.y`, checked only when `p.y` is below `p.z`: on a device without
/// `drawIndirectFirstInstance`) is not 0. For an indexed draw (`p.total` 1), the index
/// count is zero when the indices `first_index..first_index + index_count` are not all
/// within the `p.indices` the bound index range holds: reading past it is undefined
/// behaviour in Vulkan without `robustBufferAccess2`
/// (VUID-VkDrawIndexedIndirectCommand-robustBufferAccess2-08798), and such a count, any
/// `u32` a buffer holds, may ask for billions of indices. Either way the draw then does
/// nothing, as WebGPU specifies.
///
/// A draw count (`p.x` and `p.z` 0): the word, at most `p.y`, the call's most draws. A
/// counted draw reads its count from the slot: the count a buffer holds may be any `u32`,
/// and the NVIDIA driver given `u32::MAX` with a most of 2 did not finish the draw (see
/// `CommandEncoder::multi_draw_indirect_count`).
const SOURCE: &str = "
struct P { at: u32, x: u32, y: u32, z: u32, total: u32, indices: u32, slot: u32, slot_words: u32, count: u32, stride: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(1) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= p.count {
        return;
    }
    let at = p.at + i * p.stride;
    let o = p.slot + i * p.slot_words;
    if p.x == 0u && p.z == 0u {
        dst[o] = min(src[at], p.y);
        return;
    }
    if p.x == 0u {
        for (var k = 0u; k < p.z; k++) {
            dst[o + k] = src[at + k];
        }
        if p.y < p.z && src[at + p.y] != 0u {
            dst[o + 1u] = 0u;
            dst[o + p.y] = 0u;
        }
        if p.total != 0u {
            let count = src[at];
            if count > p.indices || src[at + 2u] > p.indices - count {
                dst[o] = 0u;
            }
        }
        return;
    }
    let x = src[at];
    let y = src[at + 1u];
    let z = src[at + 2u];
    var ok = x <= p.x && y <= p.y && z <= p.z;
    if ok && p.total != 0u && x != 0u && y != 0u && z != 0u {
        ok = y <= p.total / x && z <= p.total / (x * y);
    }
    dst[o] = select(0u, x, ok);
    dst[o + 1u] = select(0u, y, ok);
    dst[o + 2u] = select(0u, z, ok);
}
";

/// Invocations in one workgroup of the check: a dispatch checks a run in
/// `count.div_ceil(CHECK_GROUP)` workgroups.
pub(crate) const CHECK_GROUP: u32 = 64;

/// Bytes of the check's immediate data: the word, three limits, the total, the indices,
/// the first slot's word, the words from one slot to the next, the run's count and the
/// words from one argument to the next.
pub(crate) const IMMEDIATES: u32 = 40;

/// The check's native objects.
pub(crate) struct Pipeline<A: Api> {
    /// Group 0: the argument buffer, whole.
    pub src_layout: Owned<A, BindGroupLayoutKind>,
    /// Group 1: a scratch buffer, whole.
    pub dst_layout: Owned<A, BindGroupLayoutKind>,
    pub layout: Owned<A, PipelineLayoutKind>,
    pub pipeline: Owned<A, ComputePipelineKind>,
}

/// A scratch buffer and its group (binding the whole buffer).
pub(crate) struct Scratch<A: Api> {
    pub group: Owned<A, BindGroupKind>,
    pub buffer: Owned<A, BufferKind>,
}

/// Where leased scratch buffers come back to.
struct Home<A: Api> {
    free: Mutex<Vec<Scratch<A>>>,
    /// Set when the device closes: scratch buffers coming back are released instead.
    closed: AtomicBool,
    /// Scratch buffers leased now.
    leased: AtomicU64,
}

/// A scratch buffer a recording holds; back to the device's free list when dropped.
pub(crate) struct Lease<A: Api> {
    scratch: Option<Scratch<A>>,
    home: Arc<Home<A>>,
}

impl<A: Api> Lease<A> {
    /// The scratch buffer and its group.
    pub fn scratch(&self) -> Option<&Scratch<A>> {
        self.scratch.as_ref()
    }
}

impl<A: Api> Drop for Lease<A> {
    fn drop(&mut self) {
        let Some(s) = self.scratch.take() else { return };
        self.home.leased.fetch_sub(1, Ordering::AcqRel);
        if self.home.closed.load(Ordering::Acquire) {
            return;
        }
        let mut free = super::lock(&self.home.free);
        if free.len() < KEEP_FREE {
            free.push(s);
        }
    }
}

/// One of vigil's own kernels as the device keeps it: its pipeline, made on first use and
/// kept until the device closes.
pub(crate) struct KernelSlot<A: Api> {
    made: RwLock<Option<Arc<Pipeline<A>>>>,
    closed: AtomicBool,
}

impl<A: Api> Default for KernelSlot<A> {
    fn default() -> Self {
        KernelSlot {
            made: RwLock::new(None),
            closed: AtomicBool::new(false),
        }
    }
}

impl<A: Api> KernelSlot<A> {
    /// Native objects kept for the kernel: its two set layouts, pipeline layout and
    /// pipeline, once made.
    pub fn pooled(&self) -> u64 {
        let made = self
            .made
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        u64::from(made).saturating_mul(4)
    }

    /// At the device's close: lets go of the pipeline (`quiet`: the GPU is done;
    /// otherwise it is never released, as the GPU may still run it). A pipeline made
    /// after this lives with its recording alone.
    pub fn release(&self, quiet: bool) {
        self.closed.store(true, Ordering::Release);
        let made = self.made.write().unwrap_or_else(|p| p.into_inner()).take();
        if !quiet {
            std::mem::forget(made);
        }
    }
}

/// The device's part: the pipeline (made on first use) and the free scratch buffers.
pub(crate) struct IndirectCheck<A: Api> {
    kernel: KernelSlot<A>,
    home: Arc<Home<A>>,
}

impl<A: Api> Default for IndirectCheck<A> {
    fn default() -> Self {
        IndirectCheck {
            kernel: KernelSlot::default(),
            home: Arc::new(Home {
                free: Mutex::new(Vec::new()),
                closed: AtomicBool::new(false),
                leased: AtomicU64::new(0),
            }),
        }
    }
}

impl<A: Api> IndirectCheck<A> {
    /// Native objects kept for reuse: the pipeline's four, two per scratch buffer (free,
    /// or leased by a recording).
    pub fn pooled(&self) -> u64 {
        let free = super::lock(&self.home.free).len() as u64;
        let leased = self.home.leased.load(Ordering::Acquire);
        self.kernel
            .pooled()
            .saturating_add(free.saturating_add(leased).saturating_mul(2))
    }

    /// At the device's close: releases the pipeline and the free scratch buffers (`quiet`:
    /// the GPU is done; otherwise they are never released, as the GPU may still run
    /// them), and makes buffers still leased be released when their lease ends.
    pub fn release(&self, quiet: bool) {
        self.home.closed.store(true, Ordering::Release);
        self.kernel.release(quiet);
        let free = std::mem::take(&mut *super::lock(&self.home.free));
        if !quiet {
            std::mem::forget(free);
        }
    }
}

/// Bytes from one slot to the next: the storage offset alignment, at least 32 (room for
/// the 20 bytes of an indexed draw's five words, the most a check writes; the alignment is a power of two, so 32 is a multiple of a smaller one).
pub(crate) fn slot_size(limits: &vigil_hal::Limits) -> u64 {
    u64::from(limits.min_storage_buffer_offset_alignment).max(32)
}

fn storage(read_only: bool, dynamic: bool, min: u64) -> vigil_hal::BindGroupLayoutEntry {
    vigil_hal::BindGroupLayoutEntry {
        binding: 0,
        visibility: ShaderStages::COMPUTE,
        ty: vigil_hal::BindingType::Buffer {
            ty: vigil_hal::BufferBindingType::Storage { read_only },
            has_dynamic_offset: dynamic,
            min_binding_size: NonZeroU64::new(min),
        },
        array: None,
    }
}

/// One of vigil's own compute kernels: a read-only storage buffer in group 0, a read-write
/// one in group 1 (its offset dynamic or not), and immediate data.
pub(crate) struct Kernel {
    /// The native objects' label.
    pub label: &'static str,
    /// The WGSL source's file name, for diagnostics.
    pub file: &'static str,
    /// The WGSL source.
    pub source: &'static str,
    /// Whether group 1's offset is dynamic.
    pub dst_dynamic: bool,
    /// Smallest binding sizes of groups 0 and 1.
    pub min_sizes: (u64, u64),
    /// Bytes of immediate data.
    pub immediates: u32,
}

/// The indirect check's kernel.
const CHECK: Kernel = Kernel {
    label: "vigil indirect check",
    file: "vigil-indirect-check.wgsl",
    source: SOURCE,
    dst_dynamic: false,
    min_sizes: (4, 12),
    immediates: IMMEDIATES,
};

impl<A: Api> super::Core<A> {
    /// The check's pipeline, made on the first call (`None`: the backend's shaders are not
    /// SPIR-V, and indirect counts go unchecked).
    pub(crate) fn indirect_pipeline(&self, op: &'static str) -> Result<Option<Arc<Pipeline<A>>>> {
        self.kept_kernel(&self.indirect.kernel, &CHECK, op)
    }

    /// `kernel`'s pipeline from `slot`, or made now and kept there unless the device closed
    /// meanwhile (then it lives with the recording alone). Two threads may both make one:
    /// the first kept wins, the other is dropped.
    pub(crate) fn kept_kernel(
        &self,
        slot: &KernelSlot<A>,
        kernel: &Kernel,
        op: &'static str,
    ) -> Result<Option<Arc<Pipeline<A>>>> {
        let kept = slot.made.read().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(p) = kept {
            return Ok(Some(p));
        }
        let Some(new) = self.make_kernel(kernel, op)? else {
            return Ok(None);
        };
        let new = Arc::new(new);
        let mut kept = slot.made.write().unwrap_or_else(|p| p.into_inner());
        if slot.closed.load(Ordering::Acquire) {
            return Ok(Some(new));
        }
        Ok(Some(kept.get_or_insert(new).clone()))
    }

    /// Makes `kernel`'s pipeline (`None`: the backend's shaders are not SPIR-V).
    #[cold]
    pub(crate) fn make_kernel(
        &self,
        kernel: &Kernel,
        op: &'static str,
    ) -> Result<Option<Pipeline<A>>> {
        let label = kernel.label;
        let hal_err = |e| self.hal_error(e, op, label);
        let words;
        let code = match A::SHADER_FORMAT {
            ShaderFormat::SpirV => {
                let module = vigil_shader::Module::from_wgsl(kernel.source, kernel.file)
                    .map_err(|d| internal(op, label, &d.message))?;
                words = module
                    .to_spirv(&vigil_shader::SpirvOptions::default())
                    .map_err(|d| internal(op, label, &d.message))?;
                vigil_hal::ShaderCode::SpirV(&words)
            }
            ShaderFormat::None => vigil_hal::ShaderCode::None,
            ShaderFormat::Msl => return Ok(None),
        };
        let hal = &self.hal;
        let layout_of = |entry| -> Result<Owned<A, BindGroupLayoutKind>> {
            let raw = hal
                .create_bind_group_layout(&vigil_hal::BindGroupLayoutDescriptor {
                    label,
                    entries: &[entry],
                })
                .map_err(hal_err)?;
            Ok(Owned::new(hal, raw))
        };
        let src_layout = layout_of(storage(true, false, kernel.min_sizes.0))?;
        let dst_layout = layout_of(storage(false, kernel.dst_dynamic, kernel.min_sizes.1))?;
        let layout = hal
            .create_pipeline_layout(&vigil_hal::PipelineLayoutDescriptor {
                label,
                bind_group_layouts: &[&*src_layout, &*dst_layout],
                immediate_size: kernel.immediates,
                immediate_stages: ShaderStages::COMPUTE,
            })
            .map_err(hal_err)?;
        let layout = Owned::new(hal, layout);
        let module = hal
            .create_shader_module(&vigil_hal::ShaderModuleDescriptor { label, code })
            .map_err(hal_err)?;
        let module = Owned::<A, crate::native::ShaderModuleKind>::new(hal, module);
        let pipeline = hal
            .create_compute_pipeline(&vigil_hal::ComputePipelineDescriptor {
                label,
                layout: &layout,
                module: &module,
                entry_point: "main",
                cache: None,
            })
            .map_err(hal_err)?;
        Ok(Some(Pipeline {
            src_layout,
            dst_layout,
            layout,
            pipeline: Owned::new(hal, pipeline),
        }))
    }

    /// A scratch buffer for a recording: a free one, or a new one.
    pub(crate) fn lease_scratch(&self, p: &Pipeline<A>, op: &'static str) -> Result<Lease<A>> {
        let reused = super::lock(&self.indirect.home.free).pop();
        let scratch = match reused {
            Some(s) => s,
            None => self.make_scratch(p, op)?,
        };
        self.indirect.home.leased.fetch_add(1, Ordering::AcqRel);
        Ok(Lease {
            scratch: Some(scratch),
            home: self.indirect.home.clone(),
        })
    }

    #[cold]
    fn make_scratch(&self, p: &Pipeline<A>, op: &'static str) -> Result<Scratch<A>> {
        const LABEL: &str = "vigil indirect arguments";
        let hal: &Arc<Hal<A>> = &self.hal;
        let size = slot_size(&self.limits).saturating_mul(u64::from(SLOTS));
        let raw = hal
            .create_buffer(&vigil_hal::BufferDescriptor {
                label: LABEL,
                size,
                usage: BufferUsages::STORAGE | BufferUsages::INDIRECT,
                location: vigil_hal::MemoryLocation::GpuOnly,
            })
            .map_err(|e| self.hal_error(e, op, LABEL))?;
        let buffer = Owned::<A, BufferKind>::new(hal, raw);
        let group = self.indirect_group(&p.dst_layout, &buffer, 0, size, op)?;
        Ok(Scratch { group, buffer })
    }

    /// A group binding `size` bytes of `buffer` from `offset` at binding 0 of `layout`.
    pub(crate) fn indirect_group(
        &self,
        layout: &A::BindGroupLayout,
        buffer: &A::Buffer,
        offset: u64,
        size: u64,
        op: &'static str,
    ) -> Result<Owned<A, BindGroupKind>> {
        self.kernel_group(CHECK.label, layout, buffer, offset, size, op)
    }

    /// A group labelled `label` binding `size` bytes of `buffer` from `offset` at binding 0
    /// of `layout` (one of a kernel's layouts).
    pub(crate) fn kernel_group(
        &self,
        label: &'static str,
        layout: &A::BindGroupLayout,
        buffer: &A::Buffer,
        offset: u64,
        size: u64,
        op: &'static str,
    ) -> Result<Owned<A, BindGroupKind>> {
        let raw = self
            .hal
            .create_bind_group(&vigil_hal::BindGroupDescriptor {
                label,
                layout,
                entries: &[vigil_hal::BindGroupEntry {
                    binding: 0,
                    array_element: 0,
                    resource: vigil_hal::BoundResource::Buffer {
                        buffer,
                        offset,
                        size,
                    },
                }],
                variable_count: None,
            })
            .map_err(|e| self.hal_error(e, op, label))?;
        Ok(Owned::new(&self.hal, raw))
    }
}

/// vigil's own shader failed to compile: a defect in vigil, reported, not a panic.
#[cold]
fn internal(op: &'static str, label: &str, message: &str) -> Error {
    crate::error::fail!(
        ShaderTranslate,
        op,
        label,
        "vigil's own kernel '{label}' does not compile: {message}"
    )
}
