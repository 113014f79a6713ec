//! The logical device: resource creation and release, mapped memory, submission and the
//! timeline semaphore that counts completed submissions.

use crate::accel::AccelerationStructure;
use crate::adapter::Adapter;
use crate::command::CommandEncoder;
use crate::descriptor::DescriptorPools;
use crate::instance::InstanceShared;
use crate::surface::Surface;
use crate::{Api, conv};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use smallvec::SmallVec;
use std::ffi::CString;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use vigil_hal as hal;
use vigil_hal::{CallSite, FaultInjector, FaultKind, Features, TextureFormat};

const OOM: &[FaultKind] = &[FaultKind::OutOfMemory];
const OOM_LOST: &[FaultKind] = &[FaultKind::OutOfMemory, FaultKind::DeviceLost];

/// Every native call site the backend consults its fault injector at, with the errors the
/// Vulkan specification lists for it.
pub const CALL_SITES: &[CallSite] = &[
    CallSite {
        name: "vkCreateBuffer",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkAllocateMemory",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkBindBufferMemory",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateImage",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkBindImageMemory",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateImageView",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateSampler",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateAccelerationStructureKHR",
        errors: OOM,
        only_if: Some("devices with ACCELERATION_STRUCTURE enabled"),
    },
    CallSite {
        name: "vkCreateQueryPool",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreatePipelineCache",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkGetPipelineCacheData",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateDescriptorSetLayout",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkAllocateDescriptorSets",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreatePipelineLayout",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateShaderModule",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateComputePipelines",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateGraphicsPipelines",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkCreateCommandPool",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkAllocateCommandBuffers",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkBeginCommandBuffer",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkEndCommandBuffer",
        errors: OOM,
        only_if: None,
    },
    CallSite {
        name: "vkQueueSubmit2",
        errors: OOM_LOST,
        only_if: None,
    },
    CallSite {
        name: "vkGetSemaphoreCounterValue",
        errors: OOM_LOST,
        only_if: None,
    },
    CallSite {
        name: "vkWaitSemaphores",
        errors: OOM_LOST,
        only_if: None,
    },
    CallSite {
        name: "vkFlushMappedMemoryRanges",
        errors: OOM,
        only_if: Some("host writes to non-coherent memory"),
    },
    CallSite {
        name: "vkInvalidateMappedMemoryRanges",
        errors: OOM,
        only_if: Some("host reads of non-coherent memory"),
    },
];

/// A host pointer into mapped memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MappedPtr(NonNull<u8>);
// SAFETY: the pointer is into persistently mapped device memory owned by the allocation it
// came from, which moves with the object holding both.
unsafe impl Send for MappedPtr {}
// SAFETY: a shared `MappedPtr` only hands out the pointer's value; every access through it
// is an `unsafe` backend call whose caller guarantees no conflicting access (the layer
// above allows one writer or many readers per mapped range, and none while the GPU uses it).
unsafe impl Sync for MappedPtr {}

/// What a buffer's memory came from, to give it back.
#[derive(Debug)]
enum Backing {
    /// An allocation of its own from the allocator.
    Own(Allocation),
    /// A slot of a slab (see `slab.rs`).
    Slot(crate::slab::Slot),
    /// Memory it does not own.
    None,
}

/// A buffer and its memory.
#[derive(Debug)]
pub struct Buffer {
    pub(crate) raw: vk::Buffer,
    backing: Backing,
    mapped: Option<MappedPtr>,
    coherent: bool,
    memory: vk::DeviceMemory,
    memory_offset: u64,
    /// Where the allocation its memory lies in ends, in that memory (flushed ranges stop
    /// there).
    memory_end: u64,
    size: u64,
    /// Device address (0 unless created for acceleration structure builds).
    pub(crate) address: u64,
}

impl Buffer {
    /// The native handle.
    pub fn raw(&self) -> vk::Buffer {
        self.raw
    }
}

/// An image and its memory.
#[derive(Debug)]
pub struct Texture {
    pub(crate) raw: vk::Image,
    allocation: Option<Allocation>,
    pub(crate) format: TextureFormat,
    /// Every aspect of the image's Vulkan format: what a barrier over the whole texture
    /// names (a `Stencil8` kept in a depth-stencil format has a depth aspect too).
    pub(crate) aspects: vk::ImageAspectFlags,
    /// Width and height of mip level 0, in texels.
    pub(crate) size: [u32; 2],
    /// Whether it is a 3D image, whose copies' layers are slices (its `z`).
    pub(crate) d3: bool,
    /// Whether destroying it destroys the image (an alias names another's image).
    owned: bool,
}

/// Device memory textures are placed in.
#[derive(Debug)]
pub struct TextureMemory {
    pub(crate) raw: vk::DeviceMemory,
}

/// An image view.
#[derive(Debug)]
pub struct TextureView {
    pub(crate) raw: vk::ImageView,
}

/// A sampler.
#[derive(Debug)]
pub struct Sampler {
    pub(crate) raw: vk::Sampler,
}

/// A pipeline cache.
#[derive(Debug)]
pub struct PipelineCache {
    pub(crate) raw: vk::PipelineCache,
}

/// A query pool.
#[derive(Debug)]
pub struct QuerySet {
    pub(crate) raw: vk::QueryPool,
    /// The `u64`s one query resolves to (several for pipeline statistics).
    pub(crate) values: u32,
}

/// A descriptor set layout, with its entries (for writing descriptor sets).
#[derive(Debug)]
pub struct BindGroupLayout {
    pub(crate) raw: vk::DescriptorSetLayout,
    pub(crate) entries: Vec<hal::BindGroupLayoutEntry>,
    /// Whether its sets need a pool of their own (binding arrays, update-after-bind).
    pub(crate) dedicated: bool,
    /// Whether a binding is update-after-bind (the layout and pool are created for it).
    pub(crate) update_after_bind: bool,
}

/// Writes `entries` into `set`, one element per write.
fn write_descriptors(
    device: &ash::Device,
    set: vk::DescriptorSet,
    layout: &BindGroupLayout,
    entries: &[hal::BindGroupEntry<'_, Api>],
) {
    if let [entry] = entries {
        if write_one_descriptor(device, set, layout, entry) {
            return;
        }
    }
    // On the stack for groups of up to eight entries: making a group allocates nothing here.
    let mut buffer_infos: SmallVec<[vk::DescriptorBufferInfo; 8]> = SmallVec::new();
    let mut image_infos: SmallVec<[vk::DescriptorImageInfo; 8]> = SmallVec::new();
    let mut structures: SmallVec<[vk::AccelerationStructureKHR; 2]> = SmallVec::new();
    for entry in entries {
        match info_of(&entry.resource) {
            Info::Buffer(b) => buffer_infos.push(b),
            Info::Image(i) => image_infos.push(i),
            Info::Structure(s) => structures.push(s),
        }
    }
    let mut structure_infos: SmallVec<[_; 2]> = structures
        .iter()
        .map(|s| {
            vk::WriteDescriptorSetAccelerationStructureKHR::default()
                .acceleration_structures(std::slice::from_ref(s))
        })
        .collect();
    let mut structure_infos = structure_infos.iter_mut();
    let (mut bi, mut ii) = (0, 0);
    let writes: SmallVec<[vk::WriteDescriptorSet<'_>; 8]> = entries
        .iter()
        .filter_map(|entry| {
            let write = write_of(set, layout, entry)?;
            Some(match entry.resource {
                hal::BoundResource::Buffer { .. } => {
                    bi += 1;
                    write.buffer_info(std::slice::from_ref(buffer_infos.get(bi - 1)?))
                }
                hal::BoundResource::AccelerationStructure(_) => {
                    // The structure travels in the chained struct; the count is set by hand.
                    let mut w = write.push_next(structure_infos.next()?);
                    w.descriptor_count = 1;
                    w
                }
                _ => {
                    ii += 1;
                    write.image_info(std::slice::from_ref(image_infos.get(ii - 1)?))
                }
            })
        })
        .collect();
    // SAFETY: every write was validated above us (kind, range, element inside the set's
    // length), and no recording or pending command buffer uses the set (the caller's
    // guarantee for `update_bind_group`; a fresh set for `create_bind_group`).
    unsafe { device.update_descriptor_sets(&writes, &[]) };
}

/// Writes a group's only entry, a buffer, sampler or texture view, with no lists built
/// (most groups have one entry, and the general path's stack lists cost more than the
/// write). Returns whether it did; `false` leaves the entry to the general path.
fn write_one_descriptor(
    device: &ash::Device,
    set: vk::DescriptorSet,
    layout: &BindGroupLayout,
    entry: &hal::BindGroupEntry<'_, Api>,
) -> bool {
    let Some(write) = write_of(set, layout, entry) else {
        return false;
    };
    let (buffer, image);
    let write = match info_of(&entry.resource) {
        Info::Buffer(b) => {
            buffer = [b];
            write.buffer_info(&buffer)
        }
        Info::Image(i) => {
            image = [i];
            write.image_info(&image)
        }
        Info::Structure(_) => return false,
    };
    // SAFETY: as in `write_descriptors`: the write was validated above us, and no recording
    // or pending command buffer uses the set.
    unsafe { device.update_descriptor_sets(&[write], &[]) };
    true
}

/// The write of one group entry into `set`, its descriptor type from the entry's layout
/// binding, without its info; `None` for a binding the layout lacks.
fn write_of<'a>(
    set: vk::DescriptorSet,
    layout: &BindGroupLayout,
    entry: &hal::BindGroupEntry<'_, Api>,
) -> Option<vk::WriteDescriptorSet<'a>> {
    let layout_entry = layout.entries.iter().find(|e| e.binding == entry.binding)?;
    Some(
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(entry.binding)
            .dst_array_element(entry.array_element)
            .descriptor_type(conv::descriptor_type(&layout_entry.ty)),
    )
}

/// What a bound resource's descriptor write carries.
enum Info {
    Buffer(vk::DescriptorBufferInfo),
    Image(vk::DescriptorImageInfo),
    /// Travels in a chained struct of the write, not in an info.
    Structure(vk::AccelerationStructureKHR),
}

/// What the descriptor write of `resource` carries.
fn info_of(resource: &hal::BoundResource<'_, Api>) -> Info {
    match resource {
        hal::BoundResource::Buffer {
            buffer,
            offset,
            size,
        } => Info::Buffer(
            vk::DescriptorBufferInfo::default()
                .buffer(buffer.raw)
                .offset(*offset)
                .range(*size),
        ),
        hal::BoundResource::Sampler(sampler) => {
            Info::Image(vk::DescriptorImageInfo::default().sampler(sampler.raw))
        }
        hal::BoundResource::TextureView(view, image_layout) => Info::Image(
            vk::DescriptorImageInfo::default()
                .image_view(view.raw)
                .image_layout(conv::image_layout(*image_layout)),
        ),
        hal::BoundResource::AccelerationStructure(s) => Info::Structure(s.raw),
    }
}

/// Where a descriptor set came from.
#[derive(Debug)]
pub(crate) enum SetPool {
    /// One of the device's shared pools, by index.
    Shared(usize),
    /// A pool made for this set alone.
    Dedicated(vk::DescriptorPool),
}

/// A descriptor set and the pool it came from.
#[derive(Debug)]
pub struct BindGroup {
    pub(crate) raw: vk::DescriptorSet,
    pub(crate) pool: SetPool,
}

/// A pipeline layout.
#[derive(Debug)]
pub struct PipelineLayout {
    pub(crate) raw: vk::PipelineLayout,
    /// The stages of its push-constant range (what every push names).
    pub(crate) immediate_stages: vk::ShaderStageFlags,
}

/// A shader module.
#[derive(Debug)]
pub struct ShaderModule {
    pub(crate) raw: vk::ShaderModule,
}

/// A compute pipeline.
#[derive(Debug)]
pub struct ComputePipeline {
    pub(crate) raw: vk::Pipeline,
}

/// A graphics pipeline.
#[derive(Debug)]
pub struct RenderPipeline {
    pub(crate) raw: vk::Pipeline,
}

/// A finished command buffer.
#[derive(Debug)]
pub struct CommandBuffer {
    pub(crate) raw: vk::CommandBuffer,
}

/// The memory allocator and how many allocations it has handed out (each stands for
/// the buffer or image it backs in the live-object count), under one lock.
struct Memory {
    allocator: Option<Allocator>,
    allocations: i64,
    /// Small device-local buffers' slabs.
    slabs: crate::slab::Slabs<Allocation>,
}

/// Memory a new buffer is bound to.
struct Placement {
    backing: Backing,
    memory: vk::DeviceMemory,
    offset: u64,
    end: u64,
    mapped: Option<MappedPtr>,
    coherent: bool,
}

impl Placement {
    /// The memory `at` bytes into allocation `a`, given back through `backing`.
    fn within(a: &Allocation, at: u64, backing: Backing) -> Placement {
        Placement {
            backing,
            // SAFETY: reading the memory handle of an allocation this device owns.
            memory: unsafe { a.memory() },
            offset: a.offset().saturating_add(at),
            end: a.offset().saturating_add(a.size()),
            // `at` lies inside the allocation, so inside its mapping where it has one.
            mapped: a.mapped_ptr().and_then(|p| {
                NonNull::new(p.as_ptr().cast::<u8>().wrapping_add(at as usize)).map(MappedPtr)
            }),
            coherent: a
                .memory_properties()
                .contains(vk::MemoryPropertyFlags::HOST_COHERENT),
        }
    }
}

/// State shared by the device and its command encoders.
pub(crate) struct DeviceShared {
    pub raw: ash::Device,
    /// Keeps the instance alive for as long as the device.
    instance: Arc<InstanceShared>,
    pub physical: vk::PhysicalDevice,
    /// Swapchains (present when the device has VK_KHR_swapchain).
    pub swapchain: Option<ash::khr::swapchain::Device>,
    /// Debug-utils entry points, present only when native labels are on.
    pub debug_utils: Option<ash::ext::debug_utils::Device>,
    pub queue_family: u32,
    /// The device's queues, each with its family and externally synchronized: the first of
    /// `queue_family`, then its second (`second_queue`), then the compute-only family's
    /// (`compute_queue`), as the device has them.
    queues: Vec<(Mutex<vk::Queue>, u32)>,
    /// Which of `queues` is the main family's second, and which the compute family's.
    second_queue: Option<usize>,
    compute_queue: Option<usize>,
    /// The families buffers and images are shared by: more than one makes them concurrent.
    sharing_families: Vec<u32>,
    allocator: Mutex<Memory>,
    descriptors: Mutex<DescriptorPools>,
    /// Native objects live, but for buffers and images with memory of their own and
    /// bind groups from the shared pools: those are counted under the lock their creation
    /// takes anyway (`Memory::allocations`, the pools' sets), so making and destroying
    /// them takes no locked instruction for the count.
    pub live: AtomicI64,
    pub faults: FaultInjector,
    pub features: Features,
    non_coherent_atom: u64,
    depth24_stencil8: vk::Format,
    /// What `Depth24Plus` is on this device (24-bit depth, or 32-bit float without it).
    depth24: vk::Format,
    /// What `Stencil8` is on this device: `S8_UINT` where that is an attachment format,
    /// else the stencil aspect of `depth24_stencil8`'s format, as wgpu picks it.
    stencil8: vk::Format,
    format_support: Vec<(TextureFormat, hal::FormatSupport)>,
    /// Acceleration structure calls (present when the device was opened with `RAY_QUERY`).
    pub accel: Option<ash::khr::acceleration_structure::Device>,
    /// Mesh draws, on devices opened with `MESH_SHADER`.
    pub mesh: Option<ash::ext::mesh_shader::Device>,
    /// What mesh draws may launch there.
    pub mesh_limits: Option<hal::MeshLimits>,
    /// Alignment of build scratch addresses.
    pub scratch_align: u64,
    /// Zeroed host memory that compressed textures are first filled from (a clear cannot
    /// write block-compressed images): made with the first such texture, kept until the
    /// device goes, and not counted among its live objects (nothing of the user's).
    pub zeros: Mutex<Option<Buffer>>,
    /// Semaphores of shares dropped before the native device, destroyed after its wait for
    /// idle (see `Device`'s drop).
    pub retired_semaphores: Mutex<Vec<vk::Semaphore>>,
}

/// Bytes of [`DeviceShared::zeros`].
pub(crate) const ZERO_BYTES: u64 = 256 * 1024;

impl std::fmt::Debug for DeviceShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceShared")
            .field("live", &self.live)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The device's zero source, locked.
pub(crate) fn lock_zeros(s: &DeviceShared) -> MutexGuard<'_, Option<Buffer>> {
    lock(&s.zeros)
}

impl DeviceShared {
    pub(crate) fn new(
        adapter: &Adapter,
        raw: ash::Device,
        features: Features,
        swapchain: bool,
    ) -> hal::Result<Self> {
        let instance = adapter.instance.clone();
        // SAFETY: the queue family and index were part of the device's create info.
        let queue = unsafe { raw.get_device_queue(adapter.queue_family, 0) };
        let mut queues = vec![(Mutex::new(queue), adapter.queue_family)];
        let mut second_queue = None;
        if adapter.second_queue {
            // SAFETY: as above: the device was created with two queues of the family.
            let second = unsafe { raw.get_device_queue(adapter.queue_family, 1) };
            second_queue = Some(queues.len());
            queues.push((Mutex::new(second), adapter.queue_family));
        }
        let mut compute_queue = None;
        let mut sharing_families = vec![adapter.queue_family];
        if let Some(family) = adapter.compute_family(features) {
            // SAFETY: as above: the device was created with one queue of this family.
            let compute = unsafe { raw.get_device_queue(family, 0) };
            compute_queue = Some(queues.len());
            queues.push((Mutex::new(compute), family));
            sharing_families.push(family);
        }
        let allocator = Allocator::new(&gpu_allocator::vulkan::AllocatorCreateDesc {
            instance: instance.raw.clone(),
            device: raw.clone(),
            physical_device: adapter.raw,
            debug_settings: {
                let mut d = gpu_allocator::AllocatorDebugSettings::default();
                // vigil reports leaks itself (live native object counts).
                d.log_leaks_on_shutdown = false;
                d
            },
            buffer_device_address: features.intersects(
                Features::BUFFER_DEVICE_ADDRESS
                    | Features::ACCELERATION_STRUCTURE
                    | Features::RAY_QUERY,
            ),
            allocation_sizes: gpu_allocator::AllocationSizes::default(),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: nothing was created from the device yet (the caller holds
                // `loader_lock`).
                unsafe { raw.destroy_device(None) };
                return Err(conv::map_alloc_error(e));
            }
        };
        // Extension tables resolve device entry points (under the caller's `loader_lock`).
        // Debug names only when asked for: each is a driver call per object.
        let debug_utils = instance
            .debug_utils
            .as_ref()
            .filter(|_| instance.native_labels)
            .map(|_| ash::ext::debug_utils::Device::new(&instance.raw, &raw));
        let structures =
            features.intersects(Features::ACCELERATION_STRUCTURE | Features::RAY_QUERY);
        let accel =
            structures.then(|| ash::khr::acceleration_structure::Device::new(&instance.raw, &raw));
        let swapchain = swapchain.then(|| ash::khr::swapchain::Device::new(&instance.raw, &raw));
        let mesh = features
            .contains(Features::MESH_SHADER)
            .then(|| ash::ext::mesh_shader::Device::new(&instance.raw, &raw));
        let mesh_limits = mesh.as_ref().map(|_| {
            let mut p = vk::PhysicalDeviceMeshShaderPropertiesEXT::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p);
            // SAFETY: plain query; the device has the extension (it was enabled).
            unsafe {
                instance
                    .raw
                    .get_physical_device_properties2(adapter.raw, &mut props2)
            };
            hal::MeshLimits {
                max_task_work_group_count: p.max_task_work_group_count,
                max_task_work_group_total_count: p.max_task_work_group_total_count,
                max_mesh_work_group_count: p.max_mesh_work_group_count,
                max_mesh_work_group_total_count: p.max_mesh_work_group_total_count,
            }
        });
        let format_props = |f: vk::Format| {
            // SAFETY: plain query.
            unsafe {
                instance
                    .raw
                    .get_physical_device_format_properties(adapter.raw, f)
            }
        };
        let ds_ok = |f: vk::Format| {
            format_props(f)
                .optimal_tiling_features
                .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
        };
        let depth24_stencil8 = if ds_ok(vk::Format::D24_UNORM_S8_UINT) {
            vk::Format::D24_UNORM_S8_UINT
        } else if ds_ok(vk::Format::D32_SFLOAT_S8_UINT) {
            vk::Format::D32_SFLOAT_S8_UINT
        } else {
            vk::Format::UNDEFINED
        };
        // Depth24Plus: 24-bit depth where it is an attachment format, as wgpu picks it.
        let depth24 = if ds_ok(vk::Format::X8_D24_UNORM_PACK32) {
            vk::Format::X8_D24_UNORM_PACK32
        } else {
            vk::Format::D32_SFLOAT
        };
        // Stencil8: S8_UINT where it is an attachment format, else the stencil of a
        // depth-stencil format whose depth nothing reads (as wgpu does).
        let stencil8 = if ds_ok(vk::Format::S8_UINT) && !combined_stencil8_forced() {
            vk::Format::S8_UINT
        } else {
            depth24_stencil8
        };
        #[cfg(feature = "test-seams")]
        if stencil8 != vk::Format::S8_UINT && stencil8 != vk::Format::UNDEFINED {
            COMBINED_STENCIL8_DEVICES.fetch_add(1, Ordering::Relaxed);
        }
        let limits = &adapter.limits;
        let format_support = TextureFormat::ALL
            .iter()
            .map(|&format| {
                let vk_format = match format {
                    TextureFormat::Depth24PlusStencil8 => depth24_stencil8,
                    TextureFormat::Depth24Plus => depth24,
                    TextureFormat::Stencil8 => stencil8,
                    _ => conv::texture_format(format),
                };
                if vk_format == vk::Format::UNDEFINED {
                    return (format, hal::FormatSupport::default());
                }
                let f = format_props(vk_format).optimal_tiling_features;
                use vk::FormatFeatureFlags as F;
                let samples = if format.is_depth_stencil() {
                    // Every aspect of the native format is in the attachment, so each
                    // aspect's counts apply: Stencil8 kept in D24S8 needs both.
                    let aspects = conv::format_aspects(vk_format);
                    let mut counts = vk::SampleCountFlags::from_raw(u32::MAX);
                    if aspects.contains(vk::ImageAspectFlags::DEPTH) {
                        counts &= limits.framebuffer_depth_sample_counts;
                    }
                    if aspects.contains(vk::ImageAspectFlags::STENCIL) {
                        counts &= limits.framebuffer_stencil_sample_counts;
                    }
                    counts
                } else if format.info().sample_type == hal::TextureSampleType::Uint
                    || format.info().sample_type == hal::TextureSampleType::Sint
                {
                    limits.framebuffer_color_sample_counts
                        & limits.sampled_image_integer_sample_counts
                } else {
                    limits.framebuffer_color_sample_counts
                };
                // The limits say what the device's attachments take; the driver says
                // what this format takes as one (a 2D, optimally tiled image that is also
                // a copy destination: it is cleared when first used). Not asked of a
                // format that is no attachment.
                let (attachment, attachment_usage) = if format.is_depth_stencil() {
                    (
                        F::DEPTH_STENCIL_ATTACHMENT,
                        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                    )
                } else {
                    (F::COLOR_ATTACHMENT, vk::ImageUsageFlags::COLOR_ATTACHMENT)
                };
                let driver_samples = if f.contains(attachment) {
                    let info = vk::ImageCreateInfo::default()
                        .format(vk_format)
                        .image_type(vk::ImageType::TYPE_2D)
                        .tiling(vk::ImageTiling::OPTIMAL)
                        .usage(attachment_usage | vk::ImageUsageFlags::TRANSFER_DST);
                    Self::image_format_properties(&instance, adapter.raw, &info)
                        .map_or(vk::SampleCountFlags::empty(), |p| p.sample_counts)
                } else {
                    vk::SampleCountFlags::empty()
                };
                let samples = samples & driver_samples;
                let support = hal::FormatSupport {
                    sampled: f.contains(F::SAMPLED_IMAGE),
                    filterable: f.contains(F::SAMPLED_IMAGE_FILTER_LINEAR),
                    storage: f.contains(F::STORAGE_IMAGE),
                    color_attachment: f.contains(F::COLOR_ATTACHMENT),
                    blendable: f.contains(F::COLOR_ATTACHMENT_BLEND),
                    depth_stencil_attachment: f.contains(F::DEPTH_STENCIL_ATTACHMENT),
                    copy: f.contains(F::TRANSFER_SRC) && f.contains(F::TRANSFER_DST),
                    multisample4: samples.contains(vk::SampleCountFlags::TYPE_4),
                };
                (format, support)
            })
            .collect();
        let scratch_align = if structures {
            let mut accel_props = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut accel_props);
            // SAFETY: plain query; the device has the extension (it was enabled).
            unsafe {
                instance
                    .raw
                    .get_physical_device_properties2(adapter.raw, &mut props2)
            };
            u64::from(accel_props.min_acceleration_structure_scratch_offset_alignment).max(1)
        } else {
            1
        };
        Ok(DeviceShared {
            accel,
            mesh,
            mesh_limits,
            scratch_align,
            swapchain,
            raw,
            instance,
            physical: adapter.raw,
            debug_utils,
            queue_family: adapter.queue_family,
            queues,
            second_queue,
            compute_queue,
            sharing_families,
            allocator: Mutex::new(Memory {
                allocator: Some(allocator),
                allocations: 0,
                slabs: crate::slab::Slabs::default(),
            }),
            descriptors: Mutex::new(DescriptorPools::default()),
            live: AtomicI64::new(0),
            faults: FaultInjector::default(),
            features,
            non_coherent_atom: limits.non_coherent_atom_size.max(1),
            depth24_stencil8,
            depth24,
            stencil8,
            format_support,
            zeros: Mutex::new(None),
            retired_semaphores: Mutex::new(Vec::new()),
        })
    }

    /// Makes [`DeviceShared::zeros`] if it is not there yet.
    pub(crate) fn ensure_zeros(&self) -> hal::Result<()> {
        let mut zeros = lock(&self.zeros);
        if zeros.is_some() {
            return Ok(());
        }
        let b = self.make_buffer(
            "vigil zeros",
            ZERO_BYTES,
            vk::BufferUsageFlags::TRANSFER_SRC,
            hal::MemoryLocation::CpuToGpu,
        )?;
        let Some(ptr) = b.mapped else {
            self.destroy_buffer(b);
            return Err(hal::DeviceError::OutOfMemory);
        };
        // SAFETY: the mapping covers the buffer's ZERO_BYTES bytes, and nothing else uses
        // the fresh buffer yet.
        unsafe { std::ptr::write_bytes(ptr.0.as_ptr(), 0, ZERO_BYTES as usize) };
        if !b.coherent {
            let range = self.mapped_range(&b, 0, ZERO_BYTES);
            let flushed = self.check("vkFlushMappedMemoryRanges").and_then(|()| {
                // SAFETY: the range lies in this buffer's mapped memory.
                unsafe { self.raw.flush_mapped_memory_ranges(&[range]) }.map_err(conv::map_result)
            });
            if let Err(e) = flushed {
                // Not kept, so not leaked: the next compressed texture tries again.
                self.destroy_buffer(b);
                return Err(e);
            }
        }
        *zeros = Some(b);
        Ok(())
    }

    /// Creates a buffer with native usage `usage`, bound to fresh memory at `location`.
    pub(crate) fn make_buffer(
        &self,
        label: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: hal::MemoryLocation,
    ) -> hal::Result<Buffer> {
        let s = self;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(s.sharing_mode())
            .queue_family_indices(s.concurrent_families());
        s.check("vkCreateBuffer")?;
        // SAFETY: valid device and create info (size non-zero, validated above).
        let raw = unsafe { s.raw.create_buffer(&info, None) }.map_err(conv::map_result)?;
        // SAFETY: `raw` is a live buffer of this device.
        let requirements = unsafe { s.raw.get_buffer_memory_requirements(raw) };
        let placed = match s.place(label, requirements, location) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: not bound, not used.
                unsafe { s.raw.destroy_buffer(raw, None) };
                return Err(e);
            }
        };
        let memory = placed.memory;
        let bind = s.check("vkBindBufferMemory").and_then(|()| {
            // SAFETY: memory satisfies the buffer's requirements (the allocator chose it, or
            // a slab of memory it chose for the same requirements, at an offset aligned to
            // the slot's size, which is at least the required alignment).
            unsafe { s.raw.bind_buffer_memory(raw, memory, placed.offset) }
                .map_err(conv::map_result)
        });
        if let Err(e) = bind {
            s.free_backing(placed.backing);
            // SAFETY: not used.
            unsafe { s.raw.destroy_buffer(raw, None) };
            return Err(e);
        }
        s.set_name(raw, label);
        // Counted live by its allocation or slot (see `DeviceShared::live`).
        let mapped = placed.mapped;
        let coherent = placed.coherent;
        let memory_offset = placed.offset;
        let address = if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
            let info = vk::BufferDeviceAddressInfo::default().buffer(raw);
            // SAFETY: a live buffer created with SHADER_DEVICE_ADDRESS, bound to memory
            // allocated with the device-address flag (the allocator sets it on devices
            // with buffer device addresses, which such usage implies).
            unsafe { s.raw.get_buffer_device_address(&info) }
        } else {
            0
        };
        Ok(Buffer {
            raw,
            backing: placed.backing,
            mapped,
            coherent,
            memory,
            memory_offset,
            memory_end: placed.end,
            size,
            address,
        })
    }

    /// The instance.
    pub(crate) fn instance(&self) -> &InstanceShared {
        &self.instance
    }

    /// Queue `index` (clamped to the queues the device has), locked (it is externally
    /// synchronized).
    pub(crate) fn lock_queue(&self, index: usize) -> MutexGuard<'_, vk::Queue> {
        lock(&self.queue_slot(index).0)
    }

    /// Queue `index` and its family, clamped to the queues the device has.
    fn queue_slot(&self, index: usize) -> &(Mutex<vk::Queue>, u32) {
        let last = self.queues.len().saturating_sub(1);
        // The device always has its first queue (see `new`).
        &self.queues[index.min(last)]
    }

    /// The family of queue `index` (clamped as in `lock_queue`).
    pub(crate) fn family_of(&self, index: usize) -> u32 {
        self.queue_slot(index).1
    }

    /// Whether queue `index` is of a family that draws.
    pub(crate) fn draws(&self, index: usize) -> bool {
        self.compute_queue != Some(index)
    }

    /// Consults the fault injector before the native call at `site`.
    #[inline]
    pub(crate) fn check(&self, site: &'static str) -> hal::Result<()> {
        self.faults.check(site)
    }

    /// The create info of a texture's image (optimal tiling, exclusive).
    pub(crate) fn image_info(&self, desc: &hal::TextureDescriptor<'_>) -> vk::ImageCreateInfo<'_> {
        let mut flags = vk::ImageCreateFlags::empty();
        if desc.cube_compatible {
            flags |= vk::ImageCreateFlags::CUBE_COMPATIBLE;
        }
        if desc.format.srgb_twin().is_some() {
            // Views may reinterpret between a format and its sRGB twin.
            flags |= vk::ImageCreateFlags::MUTABLE_FORMAT;
        }
        if desc.dimension == hal::TextureDimension::D3
            && desc.usage.contains(hal::TextureUsages::RENDER_ATTACHMENT)
        {
            // A pass renders a slice through a 2D view of it (Vulkan 1.1 core).
            flags |= vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE;
        }
        vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(match desc.dimension {
                hal::TextureDimension::D1 => vk::ImageType::TYPE_1D,
                hal::TextureDimension::D2 => vk::ImageType::TYPE_2D,
                hal::TextureDimension::D3 => vk::ImageType::TYPE_3D,
            })
            .format(self.vk_format(desc.format))
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: desc.depth.max(1),
            })
            .mip_levels(desc.mip_level_count)
            .array_layers(desc.array_layers)
            .samples(if desc.sample_count == 4 {
                vk::SampleCountFlags::TYPE_4
            } else {
                vk::SampleCountFlags::TYPE_1
            })
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(conv::texture_usage(desc.usage, desc.format))
            .sharing_mode(self.sharing_mode())
            .queue_family_indices(self.concurrent_families())
            .initial_layout(vk::ImageLayout::UNDEFINED)
    }

    /// Exclusive with one queue family open; concurrent with two, so buffers and images
    /// cross between the families' queues with no ownership transfer.
    fn sharing_mode(&self) -> vk::SharingMode {
        if self.sharing_families.len() > 1 {
            vk::SharingMode::CONCURRENT
        } else {
            vk::SharingMode::EXCLUSIVE
        }
    }

    /// The families a concurrent resource is shared by (none for an exclusive one).
    fn concurrent_families(&self) -> &[u32] {
        if self.sharing_families.len() > 1 {
            &self.sharing_families
        } else {
            &[]
        }
    }

    /// Refuses a 1D or 3D image, or a multisampled one, the driver cannot make as `info`
    /// describes: the format's features are reported for every image type together, a 3D
    /// image's largest extent and mip count are the driver's to say per format and usage
    /// (VUID-VkImageCreateInfo-extent-02252 to -02254 and -mipLevels-02255, which checking
    /// only the limits would not meet), and so are the sample counts of a format with a
    /// given usage (VUID-VkImageCreateInfo-samples-02258: the limits' counts are the
    /// device's for attachments in general, a format or a sampled usage may have fewer).
    /// Single-sampled 2D images are what the format's support describes.
    pub(crate) fn image_supported(&self, info: &vk::ImageCreateInfo<'_>) -> hal::Result<()> {
        if info.image_type == vk::ImageType::TYPE_2D && info.samples == vk::SampleCountFlags::TYPE_1
        {
            return Ok(());
        }
        let props = Self::image_format_properties(&self.instance, self.physical, info).map_err(
            |e| match e {
                vk::Result::ERROR_FORMAT_NOT_SUPPORTED => hal::DeviceError::Unsupported(format!(
                    "a {:?} image of {:?} with usage {:?}",
                    info.image_type, info.format, info.usage
                )),
                other => conv::map_result(other),
            },
        )?;
        fits(info, &props)
    }

    /// What the driver makes of images of `info`'s format, type, tiling, usage and flags
    /// (`ERROR_FORMAT_NOT_SUPPORTED` if it makes none).
    fn image_format_properties(
        instance: &InstanceShared,
        physical: vk::PhysicalDevice,
        info: &vk::ImageCreateInfo<'_>,
    ) -> ash::prelude::VkResult<vk::ImageFormatProperties> {
        // SAFETY: the device's own physical device; a query, nothing is created.
        unsafe {
            instance.raw.get_physical_device_image_format_properties(
                physical,
                info.format,
                info.image_type,
                info.tiling,
                info.usage,
                info.flags,
            )
        }
    }

    /// What an image made from `info` needs of its memory, without making it.
    pub(crate) fn image_requirements(
        &self,
        info: &vk::ImageCreateInfo<'_>,
    ) -> vk::MemoryRequirements {
        let query = vk::DeviceImageMemoryRequirements::default().create_info(info);
        let mut out = vk::MemoryRequirements2::default();
        // SAFETY: a valid image create info (Vulkan 1.3 core query; nothing is created).
        unsafe {
            self.raw
                .get_device_image_memory_requirements(&query, &mut out)
        };
        out.memory_requirements
    }

    /// Destroys a buffer made by [`DeviceShared::make_buffer`] and frees its memory.
    pub(crate) fn destroy_buffer(&self, mut buffer: Buffer) {
        // SAFETY: the caller guarantees no pending GPU work uses it.
        unsafe { self.raw.destroy_buffer(buffer.raw, None) };
        self.free_backing(std::mem::replace(&mut buffer.backing, Backing::None));
    }

    /// Gives back a buffer's memory; one it did not own was counted live on its own.
    fn free_backing(&self, backing: Backing) {
        match backing {
            // Counted live by its allocation or slot.
            Backing::Own(a) => self.free(a),
            Backing::Slot(slot) => {
                let mut guard = lock(&self.allocator);
                let m = &mut *guard;
                m.allocations = m.allocations.wrapping_sub(1);
                let allocator = &mut m.allocator;
                m.slabs.give(slot, |slab| {
                    if let Some(allocator) = allocator.as_mut() {
                        // A failed free means the allocator lost track of it; nothing to do.
                        let _ = allocator.free(slab);
                    }
                });
            }
            Backing::None => self.released(),
        }
    }

    /// Memory for a new buffer with `requirements` at `location`: a slot of a slab for a
    /// small device-local one (see `slab.rs`), else an allocation of its own.
    fn place(
        &self,
        label: &str,
        requirements: vk::MemoryRequirements,
        location: hal::MemoryLocation,
    ) -> hal::Result<Placement> {
        if location == hal::MemoryLocation::GpuOnly {
            if let Some(slot) = crate::slab::slot_size(&requirements) {
                self.check("vkAllocateMemory")?;
                let mut guard = lock(&self.allocator);
                let m = &mut *guard;
                let allocator = m.allocator.as_mut().ok_or(hal::DeviceError::Lost)?;
                let (taken, a, at) = m
                    .slabs
                    .take(requirements.memory_type_bits, slot, || {
                        allocator.allocate(&AllocationCreateDesc {
                            name: "vigil slab",
                            requirements: vk::MemoryRequirements {
                                size: crate::slab::SLAB_BYTES,
                                alignment: slot,
                                memory_type_bits: requirements.memory_type_bits,
                            },
                            location: conv::memory_location(location),
                            linear: true,
                            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                        })
                    })
                    .map_err(|e| match e {
                        Some(e) => conv::map_alloc_error(e),
                        None => hal::DeviceError::Other("slab bookkeeping lost a slab".into()),
                    })?;
                // The slot lies inside the slab (at + slot ≤ its size).
                let placement = Placement::within(a, at, Backing::Slot(taken));
                m.allocations = m.allocations.wrapping_add(1);
                return Ok(placement);
            }
        }
        let a = self.allocate(label, requirements, conv::memory_location(location), true)?;
        let placement = Placement::within(&a, 0, Backing::None);
        Ok(Placement {
            backing: Backing::Own(a),
            ..placement
        })
    }

    pub(crate) fn created(&self) {
        self.live.fetch_add(1, Ordering::Relaxed);
    }

    /// The one pipeline a `vkCreate*Pipelines` call with one create info made, named
    /// `label` and counted live.
    pub(crate) fn one_pipeline(
        &self,
        made: Vec<vk::Pipeline>,
        label: &str,
    ) -> hal::Result<vk::Pipeline> {
        let raw = made
            .into_iter()
            .next()
            .ok_or_else(|| hal::DeviceError::Other("no pipeline".into()))?;
        self.set_name(raw, label);
        self.created();
        Ok(raw)
    }

    pub(crate) fn released(&self) {
        self.live.fetch_sub(1, Ordering::Relaxed);
    }

    /// Gives a native object a debug name (a no-op without debug utils or label).
    pub(crate) fn set_name<H: vk::Handle>(&self, handle: H, label: &str) {
        let Some(du) = &self.debug_utils else { return };
        if label.is_empty() {
            return;
        }
        let Ok(name) = CString::new(label.replace('\0', " ")) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle is a live object of this device; naming cannot affect it. A
        // failure to name is not worth failing the creation for.
        let _ = unsafe { du.set_debug_utils_object_name(&info) };
    }

    fn allocate(
        &self,
        label: &str,
        requirements: vk::MemoryRequirements,
        location: gpu_allocator::MemoryLocation,
        linear: bool,
    ) -> hal::Result<Allocation> {
        self.check("vkAllocateMemory")?;
        // The allocator keeps a copy of each allocation's name, a string allocated per
        // buffer and texture, for its own reports, which vigil does not ask for (it counts
        // leaks itself). Names are given only when native labels are on, as they are to the
        // driver.
        let name = match self.debug_utils {
            Some(_) if label.is_empty() => "vigil",
            Some(_) => label,
            None => "",
        };
        let mut guard = lock(&self.allocator);
        let allocator = guard.allocator.as_mut().ok_or(hal::DeviceError::Lost)?;
        let made = allocator
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(conv::map_alloc_error)?;
        guard.allocations = guard.allocations.wrapping_add(1);
        Ok(made)
    }

    fn free(&self, allocation: Allocation) {
        let mut guard = lock(&self.allocator);
        guard.allocations = guard.allocations.wrapping_sub(1);
        if let Some(allocator) = guard.allocator.as_mut() {
            // A failed free means the allocator lost track of it; nothing the caller can do.
            let _ = allocator.free(allocation);
        }
    }

    /// Native objects live (see [`DeviceShared::live`]).
    fn live_objects(&self) -> i64 {
        let counted = self.live.load(Ordering::Acquire);
        let allocations = lock(&self.allocator).allocations;
        let sets = lock(&self.descriptors).live_sets();
        // The zero source is the device's own (counted by its allocation).
        let zeros = i64::from(lock(&self.zeros).is_some());
        counted
            .wrapping_add(allocations)
            .wrapping_add(sets)
            .wrapping_sub(zeros)
    }

    /// The Vulkan format for a vigil format on this device.
    pub(crate) fn vk_format(&self, format: TextureFormat) -> vk::Format {
        match format {
            TextureFormat::Depth24PlusStencil8 => self.depth24_stencil8,
            TextureFormat::Depth24Plus => self.depth24,
            TextureFormat::Stencil8 => self.stencil8,
            _ => conv::texture_format(format),
        }
    }

    fn mapped_range(
        &self,
        buffer: &Buffer,
        offset: u64,
        len: u64,
    ) -> vk::MappedMemoryRange<'static> {
        let atom = self.non_coherent_atom;
        let start = (buffer.memory_offset + offset) / atom * atom;
        let end = (buffer.memory_offset + offset + len).div_ceil(atom) * atom;
        let limit = buffer.memory_end;
        let size = if end > limit {
            vk::WHOLE_SIZE
        } else {
            end - start
        };
        vk::MappedMemoryRange::default()
            .memory(buffer.memory)
            .offset(start)
            .size(size)
    }
}

/// Whether an image made as `info` describes is within what the driver said it makes of
/// that format, type, tiling, usage and flags (`props`): its extent, mip levels, layers
/// and sample count.
fn fits(info: &vk::ImageCreateInfo<'_>, props: &vk::ImageFormatProperties) -> hal::Result<()> {
    let e = info.extent;
    let m = props.max_extent;
    if e.width > m.width
        || e.height > m.height
        || e.depth > m.depth
        || info.mip_levels > props.max_mip_levels
        || info.array_layers > props.max_array_layers
    {
        return Err(hal::DeviceError::Unsupported(format!(
            "a {:?} image of {:?} of {}x{}x{} with {} mip levels and {} layers (the driver makes at most {}x{}x{} with {} and {})",
            info.image_type,
            info.format,
            e.width,
            e.height,
            e.depth,
            info.mip_levels,
            info.array_layers,
            m.width,
            m.height,
            m.depth,
            props.max_mip_levels,
            props.max_array_layers
        )));
    }
    if !props.sample_counts.contains(info.samples) {
        return Err(hal::DeviceError::Unsupported(format!(
            "a {:?} image of {:?} with usage {:?} and {:?} samples (the driver makes {:?})",
            info.image_type, info.format, info.usage, info.samples, props.sample_counts
        )));
    }
    Ok(())
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // SAFETY: waiting for idle is always valid; teardown needs the GPU finished with
        // everything. A lost device reports an error here, which changes nothing below.
        let _ = unsafe { self.raw.device_wait_idle() };
        // The rest of the teardown holds `loader_lock` (the wait above need not: other
        // threads' devices should not wait for this one's GPU work).
        let _loader = crate::instance::loader_lock();
        for semaphore in std::mem::take(&mut *lock(&self.retired_semaphores)) {
            // SAFETY: the device is idle; no batch refers to it any more.
            unsafe { self.raw.destroy_semaphore(semaphore, None) };
        }
        if let Some(b) = lock(&self.zeros).take() {
            self.destroy_buffer(b);
        }
        lock(&self.descriptors).destroy_all(&self.raw);
        // The allocator frees its memory blocks when dropped; it must go before the device.
        // The slabs go back to it first (every buffer in them is destroyed by now).
        {
            let mut guard = lock(&self.allocator);
            let m = &mut *guard;
            if let Some(a) = m.allocator.as_mut() {
                m.slabs.release_all(|slab| {
                    let _ = a.free(slab);
                });
            }
            drop(m.allocator.take());
        }
        // SAFETY: every object made from the device has been released by the layer above
        // (it drains and destroys everything before dropping the device).
        unsafe { self.raw.destroy_device(None) };
    }
}

/// The Vulkan device: a share of a native device, with its own completion counter (a
/// timeline semaphore whose value is the submission serial) and gate.
#[derive(Debug)]
pub struct Device {
    pub(crate) shared: Arc<DeviceShared>,
    /// Which of the native device's queues this device submits to.
    pub(crate) queue: usize,
    timeline: vk::Semaphore,
    gate: Mutex<Gate>,
    /// Highest value submitted to signal `timeline`.
    last_signal: std::sync::atomic::AtomicU64,
}

/// The test seams' gate: a timeline semaphore gated submissions wait on, raised from the
/// host. Each pause gets a fresh one, so a host signal never meets waits from an earlier
/// pause (whose retirement the validation layer may not have noticed yet).
#[derive(Debug)]
struct Gate {
    current: vk::Semaphore,
    /// Highest value a submission waits for on `current` (0: none did).
    max_wait: u64,
    /// Earlier gates, fully opened; destroyed with the device.
    old: Vec<vk::Semaphore>,
}

fn timeline_semaphore(raw: &ash::Device) -> hal::Result<vk::Semaphore> {
    let mut type_info = vk::SemaphoreTypeCreateInfo::default()
        .semaphore_type(vk::SemaphoreType::TIMELINE)
        .initial_value(0);
    let info = vk::SemaphoreCreateInfo::default().push_next(&mut type_info);
    // SAFETY: valid device; the create info points at locals.
    unsafe { raw.create_semaphore(&info, None) }.map_err(conv::map_result)
}

impl Device {
    /// A device over `shared`, with fresh semaphores.
    pub(crate) fn over(shared: Arc<DeviceShared>, queue: usize) -> hal::Result<Device> {
        let timeline = timeline_semaphore(&shared.raw)?;
        let gate = match timeline_semaphore(&shared.raw) {
            Ok(g) => g,
            Err(e) => {
                // SAFETY: unused semaphore of this device.
                unsafe { shared.raw.destroy_semaphore(timeline, None) };
                return Err(e);
            }
        };
        Ok(Device {
            shared,
            queue,
            timeline,
            gate: Mutex::new(Gate {
                current: gate,
                max_wait: 0,
                old: Vec::new(),
            }),
            last_signal: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The native device, for interoperability.
    pub fn raw(&self) -> &ash::Device {
        &self.shared.raw
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let s = &self.shared;
        // A gate left closed would keep gated work (and the drain below) waiting forever:
        // raise it to the highest value any submission waits for, if it is not there yet.
        let gate = match self.gate.get_mut() {
            Ok(g) => std::mem::replace(
                g,
                Gate {
                    current: vk::Semaphore::null(),
                    max_wait: 0,
                    old: Vec::new(),
                },
            ),
            Err(p) => std::mem::replace(
                p.into_inner(),
                Gate {
                    current: vk::Semaphore::null(),
                    max_wait: 0,
                    old: Vec::new(),
                },
            ),
        };
        if gate.max_wait > 0 {
            // SAFETY: querying our own semaphore.
            let now = unsafe { s.raw.get_semaphore_counter_value(gate.current) }.unwrap_or(0);
            if now < gate.max_wait {
                let info = vk::SemaphoreSignalInfo::default()
                    .semaphore(gate.current)
                    .value(gate.max_wait);
                // SAFETY: host signal of our own gate to a value above its current one.
                let _ = unsafe { s.raw.signal_semaphore(&info) };
            }
        }
        // This share's own work finishes before its semaphores go; bounded, since the layer
        // above already drained (by progress) and a hung GPU must not hang the drop.
        let sems = [self.timeline];
        let values = [self.last_signal.load(Ordering::Acquire)];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        // SAFETY: waits on our own timeline semaphore.
        let _ = unsafe { s.raw.wait_semaphores(&info, 5_000_000_000) };
        // The semaphores themselves go with the native device, after its wait for idle.
        // Mesa's queue thread (lavapipe's) lets go of a batch's waits on a timeline only
        // after the batch signals, so a semaphore destroyed as soon as its value is seen was
        // touched after it was freed: the compute-queue test crashed lavapipe about once in
        // 50 runs under load. Waiting here for the queue to pass a batch of our own would
        // wait behind another share's gated work.
        lock(&s.retired_semaphores)
            .extend(gate.old.into_iter().chain([gate.current, self.timeline]));
    }
}

impl hal::Device for Device {
    type A = Api;

    unsafe fn create_buffer(&self, desc: &hal::BufferDescriptor<'_>) -> hal::Result<Buffer> {
        self.shared.make_buffer(
            desc.label,
            desc.size,
            conv::buffer_usage(desc.usage),
            desc.location,
        )
    }

    unsafe fn destroy_buffer(&self, buffer: Buffer) {
        self.shared.destroy_buffer(buffer);
    }

    unsafe fn create_acceleration_structure(
        &self,
        desc: &hal::AccelerationStructureDescriptor<'_>,
    ) -> hal::Result<AccelerationStructure> {
        self.shared.create_acceleration_structure(desc)
    }

    unsafe fn destroy_acceleration_structure(&self, structure: AccelerationStructure) {
        self.shared.destroy_acceleration_structure(structure);
    }

    fn buffer_address(&self, buffer: &Buffer) -> u64 {
        buffer.address
    }

    fn mesh_limits(&self) -> Option<hal::MeshLimits> {
        self.shared.mesh_limits
    }

    fn acceleration_structure_address(&self, structure: &AccelerationStructure) -> u64 {
        structure.address()
    }

    // Read per queued write or mapped copy: inlined into the layer above (as the
    // per-draw commands are, see command.rs).
    #[inline]
    fn mapping(&self, buffer: &Buffer) -> Option<hal::Mapping> {
        buffer.mapped.map(|p| hal::Mapping {
            ptr: p.0,
            len: buffer.size,
            coherent: buffer.coherent,
        })
    }

    #[inline]
    unsafe fn flush(&self, buffer: &Buffer, offset: u64, len: u64) -> hal::Result<()> {
        if buffer.mapped.is_none() || buffer.coherent {
            return Ok(());
        }
        let s = &self.shared;
        let range = s.mapped_range(buffer, offset, len);
        s.check("vkFlushMappedMemoryRanges")?;
        // SAFETY: the range lies in mapped memory of this device (the caller's contract).
        unsafe { s.raw.flush_mapped_memory_ranges(&[range]) }.map_err(conv::map_result)
    }

    #[inline]
    unsafe fn invalidate(&self, buffer: &Buffer, offset: u64, len: u64) -> hal::Result<()> {
        if buffer.mapped.is_none() || buffer.coherent {
            return Ok(());
        }
        let s = &self.shared;
        let range = s.mapped_range(buffer, offset, len);
        s.check("vkInvalidateMappedMemoryRanges")?;
        // SAFETY: the range lies in mapped memory of this device (the caller's contract).
        unsafe { s.raw.invalidate_mapped_memory_ranges(&[range]) }.map_err(conv::map_result)
    }

    unsafe fn create_texture(&self, desc: &hal::TextureDescriptor<'_>) -> hal::Result<Texture> {
        let s = &self.shared;
        if desc.format.is_compressed() {
            // Its first use fills it from the zero source.
            s.ensure_zeros()?;
        }
        let info = s.image_info(desc);
        s.image_supported(&info)?;
        s.check("vkCreateImage")?;
        // SAFETY: valid create info (checked against the format's support above us).
        let raw = unsafe { s.raw.create_image(&info, None) }.map_err(conv::map_result)?;
        // SAFETY: live image of this device.
        let requirements = unsafe { s.raw.get_image_memory_requirements(raw) };
        let allocation = match s.allocate(
            desc.label,
            requirements,
            gpu_allocator::MemoryLocation::GpuOnly,
            false,
        ) {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: unused image.
                unsafe { s.raw.destroy_image(raw, None) };
                return Err(e);
            }
        };
        let bind = s.check("vkBindImageMemory").and_then(|()| {
            // SAFETY: memory satisfies the image's requirements.
            unsafe {
                s.raw
                    .bind_image_memory(raw, allocation.memory(), allocation.offset())
            }
            .map_err(conv::map_result)
        });
        if let Err(e) = bind {
            s.free(allocation);
            // SAFETY: unused image.
            unsafe { s.raw.destroy_image(raw, None) };
            return Err(e);
        }
        s.set_name(raw, desc.label);
        // Counted live by its allocation (see `DeviceShared::live`).
        Ok(Texture {
            raw,
            allocation: Some(allocation),
            format: desc.format,
            aspects: conv::format_aspects(s.vk_format(desc.format)),
            size: [desc.width, desc.height],
            d3: desc.dimension == hal::TextureDimension::D3,
            owned: true,
        })
    }

    unsafe fn create_texture_memory(
        &self,
        label: &str,
        size: u64,
    ) -> hal::Result<(TextureMemory, u32)> {
        let s = &self.shared;
        // The memory type: device-local, and one a general-purpose color image may live
        // in (every placement is checked against it again).
        let probe = s.image_info(&hal::TextureDescriptor {
            label,
            dimension: hal::TextureDimension::D2,
            width: 64,
            height: 64,
            depth: 1,
            array_layers: 1,
            mip_level_count: 1,
            sample_count: 1,
            format: TextureFormat::Rgba8Unorm,
            usage: hal::TextureUsages::TEXTURE_BINDING
                | hal::TextureUsages::RENDER_ATTACHMENT
                | hal::TextureUsages::COPY_SRC
                | hal::TextureUsages::COPY_DST,
            cube_compatible: false,
        });
        let types = s.image_requirements(&probe).memory_type_bits;
        let instance = &s.instance.raw;
        // SAFETY: the device's own physical device.
        let props = unsafe { instance.get_physical_device_memory_properties(s.physical) };
        let count = (props.memory_type_count as usize).min(props.memory_types.len());
        let Some(index) = props.memory_types[..count]
            .iter()
            .enumerate()
            .position(|(i, t)| {
                types & (1 << i) != 0
                    && t.property_flags
                        .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            })
        else {
            return Err(hal::DeviceError::Unsupported(
                "no device-local memory type holds images".into(),
            ));
        };
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .memory_type_index(index as u32);
        s.check("vkAllocateMemory")?;
        // SAFETY: a memory type of this device, a non-zero size (the caller's contract).
        let raw = unsafe { s.raw.allocate_memory(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, label);
        s.created();
        Ok((TextureMemory { raw }, index as u32))
    }

    unsafe fn destroy_texture_memory(&self, memory: TextureMemory) {
        // SAFETY: no image bound to it is alive (the caller's contract).
        unsafe { self.shared.raw.free_memory(memory.raw, None) };
        self.shared.released();
    }

    unsafe fn texture_placement(
        &self,
        desc: &hal::TextureDescriptor<'_>,
    ) -> hal::Result<hal::TexturePlacement> {
        let s = &self.shared;
        let info = s.image_info(desc);
        s.image_supported(&info)?;
        let r = s.image_requirements(&info);
        Ok(hal::TexturePlacement {
            size: r.size,
            alignment: r.alignment.max(1),
            memory_types: r.memory_type_bits,
        })
    }

    unsafe fn create_placed_texture(
        &self,
        desc: &hal::TextureDescriptor<'_>,
        memory: &TextureMemory,
        offset: u64,
    ) -> hal::Result<Texture> {
        let s = &self.shared;
        if desc.format.is_compressed() {
            s.ensure_zeros()?;
        }
        let info = s.image_info(desc);
        s.image_supported(&info)?;
        s.check("vkCreateImage")?;
        // SAFETY: valid create info (checked against the format's support above us).
        let raw = unsafe { s.raw.create_image(&info, None) }.map_err(conv::map_result)?;
        let bind = s.check("vkBindImageMemory").and_then(|()| {
            // SAFETY: the caller checked the offset's alignment, the room after it and the
            // memory's type against this image's requirements.
            unsafe { s.raw.bind_image_memory(raw, memory.raw, offset) }.map_err(conv::map_result)
        });
        if let Err(e) = bind {
            // SAFETY: unused image.
            unsafe { s.raw.destroy_image(raw, None) };
            return Err(e);
        }
        s.set_name(raw, desc.label);
        s.created();
        Ok(Texture {
            raw,
            allocation: None,
            format: desc.format,
            aspects: conv::format_aspects(s.vk_format(desc.format)),
            size: [desc.width, desc.height],
            d3: desc.dimension == hal::TextureDimension::D3,
            owned: true,
        })
    }

    unsafe fn destroy_texture(&self, mut texture: Texture) {
        let s = &self.shared;
        if texture.owned {
            // SAFETY: no pending GPU work uses it (caller's guarantee).
            unsafe { s.raw.destroy_image(texture.raw, None) };
        }
        match texture.allocation.take() {
            // Counted live by its allocation.
            Some(a) => s.free(a),
            None => s.released(),
        }
    }

    unsafe fn alias_texture(&self, texture: &Texture) -> hal::Result<Texture> {
        self.shared.check("alias_texture")?;
        self.shared.created();
        Ok(Texture {
            raw: texture.raw,
            allocation: None,
            format: texture.format,
            aspects: texture.aspects,
            size: texture.size,
            d3: texture.d3,
            owned: false,
        })
    }

    unsafe fn create_texture_view(
        &self,
        texture: &Texture,
        desc: &hal::TextureViewDescriptor<'_>,
    ) -> hal::Result<TextureView> {
        let s = &self.shared;
        let mut usage_info = vk::ImageViewUsageCreateInfo::default()
            .usage(conv::texture_usage(desc.usage, desc.format));
        let info = vk::ImageViewCreateInfo::default()
            .image(texture.raw)
            .view_type(conv::view_type(desc.dimension))
            .format(s.vk_format(desc.format))
            .subresource_range(conv::subresource_range(desc.format, &desc.range))
            .push_next(&mut usage_info);
        s.check("vkCreateImageView")?;
        // SAFETY: valid image and subresource range (validated above us).
        let raw = unsafe { s.raw.create_image_view(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, desc.label);
        s.created();
        Ok(TextureView { raw })
    }

    unsafe fn destroy_texture_view(&self, view: TextureView) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_image_view(view.raw, None) };
        self.shared.released();
    }

    unsafe fn create_sampler(&self, desc: &hal::SamplerDescriptor<'_>) -> hal::Result<Sampler> {
        let s = &self.shared;
        let anisotropy = desc.anisotropy_clamp > 1;
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(conv::filter(desc.mag_filter))
            .min_filter(conv::filter(desc.min_filter))
            .mipmap_mode(conv::mipmap_mode(desc.mipmap_filter))
            .address_mode_u(conv::address_mode(desc.address_modes[0]))
            .address_mode_v(conv::address_mode(desc.address_modes[1]))
            .address_mode_w(conv::address_mode(desc.address_modes[2]))
            .min_lod(desc.lod_min_clamp)
            .max_lod(desc.lod_max_clamp)
            .anisotropy_enable(anisotropy)
            .max_anisotropy(f32::from(desc.anisotropy_clamp.max(1)))
            .compare_enable(desc.compare.is_some())
            .compare_op(desc.compare.map_or(vk::CompareOp::NEVER, conv::compare_op))
            .border_color(conv::border_color(desc.border_color));
        s.check("vkCreateSampler")?;
        // SAFETY: valid create info.
        let raw = unsafe { s.raw.create_sampler(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, desc.label);
        s.created();
        Ok(Sampler { raw })
    }

    unsafe fn destroy_sampler(&self, sampler: Sampler) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_sampler(sampler.raw, None) };
        self.shared.released();
    }

    unsafe fn create_query_set(
        &self,
        label: &str,
        ty: hal::QueryType,
        count: u32,
    ) -> hal::Result<QuerySet> {
        let s = &self.shared;
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(match ty {
                hal::QueryType::Timestamp => vk::QueryType::TIMESTAMP,
                hal::QueryType::Occlusion => vk::QueryType::OCCLUSION,
                hal::QueryType::PipelineStatistics(_) => vk::QueryType::PIPELINE_STATISTICS,
            })
            .pipeline_statistics(match ty {
                hal::QueryType::PipelineStatistics(t) => conv::pipeline_statistics(t),
                _ => vk::QueryPipelineStatisticFlags::empty(),
            })
            .query_count(count);
        s.check("vkCreateQueryPool")?;
        // SAFETY: valid create info.
        let raw = unsafe { s.raw.create_query_pool(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, label);
        s.created();
        Ok(QuerySet {
            raw,
            values: ty.values(),
        })
    }

    unsafe fn destroy_query_set(&self, set: QuerySet) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_query_pool(set.raw, None) };
        self.shared.released();
    }

    unsafe fn reset_queries_on_host(
        &self,
        set: &QuerySet,
        first: u32,
        count: u32,
    ) -> hal::Result<()> {
        self.shared.check("vkResetQueryPool")?;
        // SAFETY: the queries lie in the pool, no pending work uses them, and the device has
        // hostQueryReset (enabled with TIMESTAMP_QUERY).
        unsafe { self.shared.raw.reset_query_pool(set.raw, first, count) };
        Ok(())
    }

    unsafe fn read_timestamps(
        &self,
        set: &QuerySet,
        first: u32,
        out: &mut [u64],
    ) -> hal::Result<bool> {
        // SAFETY: the queries lie in the pool and were reset; no WAIT flag: a query not yet
        // written reports NOT_READY instead of blocking.
        let r = unsafe {
            self.shared.raw.get_query_pool_results(
                set.raw,
                first,
                out,
                vk::QueryResultFlags::TYPE_64,
            )
        };
        match r {
            Ok(()) => Ok(true),
            Err(vk::Result::NOT_READY) => Ok(false),
            Err(e) => Err(conv::map_result(e)),
        }
    }

    unsafe fn create_bind_group_layout(
        &self,
        desc: &hal::BindGroupLayoutDescriptor<'_>,
    ) -> hal::Result<BindGroupLayout> {
        let s = &self.shared;
        let bindings: Vec<_> = desc
            .entries
            .iter()
            .map(|e| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(e.binding)
                    .descriptor_type(conv::descriptor_type(&e.ty))
                    .descriptor_count(e.count())
                    .stage_flags(conv::shader_stages(e.visibility))
            })
            .collect();
        let flags: Vec<vk::DescriptorBindingFlags> = desc
            .entries
            .iter()
            .map(|e| {
                let mut f = conv::binding_flags(e.array_flags());
                // On a device with descriptor heaps, update-after-bind bindings also take
                // writes of elements no pending work reads: what the tier's heaps need. It
                // only permits more (bind groups are still written only while unused).
                if f.contains(vk::DescriptorBindingFlags::UPDATE_AFTER_BIND)
                    && self.shared.features.contains(Features::DESCRIPTOR_HEAPS)
                {
                    f |= vk::DescriptorBindingFlags::UPDATE_UNUSED_WHILE_PENDING;
                }
                f
            })
            .collect();
        let update_after_bind = desc.entries.iter().any(|e| {
            e.array_flags()
                .contains(hal::BindingArrayFlags::UPDATE_AFTER_BIND)
        });
        // Arrays and acceleration structures get pools of their own: the shared pools'
        // sizes name only the descriptor types every device has.
        let dedicated = desc
            .entries
            .iter()
            .any(|e| e.array.is_some() || e.ty == hal::BindingType::AccelerationStructure);
        let mut flag_info =
            vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        if update_after_bind {
            info = info.flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL);
        }
        if flags.iter().any(|f| !f.is_empty()) {
            info = info.push_next(&mut flag_info);
        }
        s.check("vkCreateDescriptorSetLayout")?;
        // SAFETY: valid create info; every flag's feature was enabled (checked above us).
        let raw =
            unsafe { s.raw.create_descriptor_set_layout(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, desc.label);
        s.created();
        Ok(BindGroupLayout {
            raw,
            entries: desc.entries.to_vec(),
            dedicated: dedicated || update_after_bind,
            update_after_bind,
        })
    }

    unsafe fn destroy_bind_group_layout(&self, layout: BindGroupLayout) {
        // SAFETY: no set or pipeline being created uses it.
        unsafe {
            self.shared
                .raw
                .destroy_descriptor_set_layout(layout.raw, None)
        };
        self.shared.released();
    }

    unsafe fn create_bind_group(
        &self,
        desc: &hal::BindGroupDescriptor<'_, Api>,
    ) -> hal::Result<BindGroup> {
        let s = &self.shared;
        s.check("vkAllocateDescriptorSets")?;
        let (raw, pool) = if desc.layout.dedicated {
            let (set, pool) =
                DescriptorPools::allocate_dedicated(&s.raw, desc.layout, desc.variable_count)?;
            (set, SetPool::Dedicated(pool))
        } else {
            let (set, index) = lock(&s.descriptors).allocate(&s.raw, desc.layout)?;
            (set, SetPool::Shared(index))
        };
        write_descriptors(&s.raw, raw, desc.layout, desc.entries);
        s.set_name(raw, desc.label);
        // A set from the shared pools is counted live by them (see `DeviceShared::live`).
        if matches!(pool, SetPool::Dedicated(_)) {
            s.created();
        }
        Ok(BindGroup { raw, pool })
    }

    unsafe fn destroy_bind_group(&self, group: BindGroup) {
        let s = &self.shared;
        match group.pool {
            SetPool::Shared(index) => lock(&s.descriptors).free(&s.raw, index, group.raw),
            SetPool::Dedicated(pool) => {
                // SAFETY: the pool holds only this set, which no pending GPU work uses.
                unsafe { s.raw.destroy_descriptor_pool(pool, None) };
                s.released();
            }
        }
    }

    unsafe fn update_bind_group(
        &self,
        group: &BindGroup,
        layout: &BindGroupLayout,
        entries: &[hal::BindGroupEntry<'_, Api>],
    ) -> hal::Result<()> {
        write_descriptors(&self.shared.raw, group.raw, layout, entries);
        Ok(())
    }

    unsafe fn create_pipeline_layout(
        &self,
        desc: &hal::PipelineLayoutDescriptor<'_, Api>,
    ) -> hal::Result<PipelineLayout> {
        let s = &self.shared;
        let sets: Vec<_> = desc.bind_group_layouts.iter().map(|l| l.raw).collect();
        let mut stages = desc.immediate_stages;
        if s.mesh.is_none() {
            // Task and mesh stages exist only with the extension.
            stages.remove(hal::ShaderStages::MESH);
        }
        let immediate_stages = if desc.immediate_size > 0 {
            conv::shader_stages(stages)
        } else {
            vk::ShaderStageFlags::empty()
        };
        let ranges = [vk::PushConstantRange {
            stage_flags: immediate_stages,
            offset: 0,
            size: desc.immediate_size,
        }];
        let ranges = if desc.immediate_size > 0 {
            &ranges[..]
        } else {
            &[]
        };
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&sets)
            .push_constant_ranges(ranges);
        s.check("vkCreatePipelineLayout")?;
        // SAFETY: valid set layouts.
        let raw = unsafe { s.raw.create_pipeline_layout(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, desc.label);
        s.created();
        Ok(PipelineLayout {
            raw,
            immediate_stages,
        })
    }

    unsafe fn destroy_pipeline_layout(&self, layout: PipelineLayout) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_pipeline_layout(layout.raw, None) };
        self.shared.released();
    }

    unsafe fn create_shader_module(
        &self,
        desc: &hal::ShaderModuleDescriptor<'_>,
    ) -> hal::Result<ShaderModule> {
        let s = &self.shared;
        let hal::ShaderCode::SpirV(words) = desc.code else {
            return Err(hal::DeviceError::Unsupported(
                "the Vulkan backend takes SPIR-V only".into(),
            ));
        };
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        s.check("vkCreateShaderModule")?;
        // SAFETY: SPIR-V produced by naga from validated WGSL.
        let raw = unsafe { s.raw.create_shader_module(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, desc.label);
        s.created();
        Ok(ShaderModule { raw })
    }

    unsafe fn destroy_shader_module(&self, module: ShaderModule) {
        // SAFETY: modules may be destroyed once pipelines are created from them.
        unsafe { self.shared.raw.destroy_shader_module(module.raw, None) };
        self.shared.released();
    }

    fn pipeline_cache_key(&self) -> Vec<u8> {
        let s = &self.shared;
        // SAFETY: a plain query of the device's own physical device.
        let p = unsafe { s.instance.raw.get_physical_device_properties(s.physical) };
        // What Vulkan's own cache header names, and the driver's version besides.
        let mut key = Vec::with_capacity(28);
        key.extend_from_slice(&p.vendor_id.to_le_bytes());
        key.extend_from_slice(&p.device_id.to_le_bytes());
        key.extend_from_slice(&p.driver_version.to_le_bytes());
        key.extend_from_slice(&p.pipeline_cache_uuid);
        key
    }

    unsafe fn create_pipeline_cache(&self, label: &str, data: &[u8]) -> hal::Result<PipelineCache> {
        let s = &self.shared;
        let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
        s.check("vkCreatePipelineCache")?;
        // SAFETY: `data` is empty or this device's own cache data, unchanged (checked above
        // us); the cache is internally synchronized (no EXTERNALLY_SYNCHRONIZED flag).
        let raw = unsafe { s.raw.create_pipeline_cache(&info, None) }.map_err(conv::map_result)?;
        s.set_name(raw, label);
        s.created();
        Ok(PipelineCache { raw })
    }

    unsafe fn pipeline_cache_data(&self, cache: &PipelineCache) -> hal::Result<Vec<u8>> {
        let s = &self.shared;
        s.check("vkGetPipelineCacheData")?;
        // SAFETY: a live cache of this device; ash asks for the size and then the data.
        unsafe { s.raw.get_pipeline_cache_data(cache.raw) }.map_err(conv::map_result)
    }

    unsafe fn destroy_pipeline_cache(&self, cache: PipelineCache) {
        // SAFETY: no pipeline is being created with it (the caller holds it while one is).
        unsafe { self.shared.raw.destroy_pipeline_cache(cache.raw, None) };
        self.shared.released();
    }

    unsafe fn create_compute_pipeline(
        &self,
        desc: &hal::ComputePipelineDescriptor<'_, Api>,
    ) -> hal::Result<ComputePipeline> {
        let s = &self.shared;
        let entry = CString::new(desc.entry_point)
            .map_err(|_| hal::DeviceError::Other("entry point name contains NUL".into()))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(desc.module.raw)
            .name(&entry);
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(desc.layout.raw)];
        s.check("vkCreateComputePipelines")?;
        // SAFETY: the module holds this compute entry point and its bindings match the
        // layout (checked above us).
        let raw = unsafe {
            s.raw.create_compute_pipelines(
                desc.cache.map_or(vk::PipelineCache::null(), |c| c.raw),
                &info,
                None,
            )
        }
        .map_err(|(_, e)| conv::map_result(e))?;
        let raw = s.one_pipeline(raw, desc.label)?;
        Ok(ComputePipeline { raw })
    }

    unsafe fn destroy_compute_pipeline(&self, pipeline: ComputePipeline) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_pipeline(pipeline.raw, None) };
        self.shared.released();
    }

    unsafe fn create_render_pipeline(
        &self,
        desc: &hal::RenderPipelineDescriptor<'_, Api>,
    ) -> hal::Result<RenderPipeline> {
        crate::render_pipeline::create(&self.shared, desc)
    }

    unsafe fn destroy_render_pipeline(&self, pipeline: RenderPipeline) {
        // SAFETY: no pending GPU work uses it.
        unsafe { self.shared.raw.destroy_pipeline(pipeline.raw, None) };
        self.shared.released();
    }

    fn create_command_encoder(&self, label: &str) -> hal::Result<CommandEncoder> {
        CommandEncoder::new(self.shared.clone(), self.queue, label)
    }

    unsafe fn destroy_command_encoder(&self, encoder: CommandEncoder) {
        encoder.destroy();
    }

    unsafe fn submit(
        &self,
        command_buffers: &[&CommandBuffer],
        signal_value: u64,
    ) -> hal::Result<()> {
        // SAFETY: the caller's contract is the one `submit_with` needs.
        unsafe { self.submit_with(command_buffers, signal_value, None, &[]) }
    }

    unsafe fn create_surface(&self, target: hal::WindowTarget) -> hal::Result<Surface> {
        self.create_surface_raw(target)
    }

    fn surface_capabilities(&self, surface: &Surface) -> hal::Result<hal::SurfaceCapabilities> {
        self.surface_capabilities_raw(surface)
    }

    unsafe fn configure_surface(
        &self,
        surface: &mut Surface,
        config: &hal::SurfaceConfiguration,
    ) -> hal::Result<()> {
        self.configure_surface_raw(surface, config)
    }

    unsafe fn present(
        &self,
        surface: &mut Surface,
        source: &Texture,
        from: hal::PresentSource,
        signal_value: u64,
    ) -> hal::Result<hal::PresentOutcome> {
        self.present_raw(surface, source, from, signal_value)
    }

    unsafe fn destroy_surface(&self, surface: Surface) {
        self.destroy_surface_raw(surface);
    }

    fn share(&self) -> hal::Result<Device> {
        Device::over(self.shared.clone(), self.queue)
    }

    fn share_on_second_queue(&self) -> hal::Result<Option<Device>> {
        match self.shared.second_queue {
            Some(q) => Device::over(self.shared.clone(), q).map(Some),
            None => Ok(None),
        }
    }

    fn share_on_compute_queue(&self) -> hal::Result<Option<Device>> {
        match self.shared.compute_queue {
            Some(q) => Device::over(self.shared.clone(), q).map(Some),
            None => Ok(None),
        }
    }

    fn queue_index(&self) -> u32 {
        self.queue as u32
    }

    fn queue_draws(&self) -> bool {
        self.shared.draws(self.queue)
    }

    unsafe fn submit_after(
        &self,
        command_buffers: &[&CommandBuffer],
        signal_value: u64,
        after: &[(&Device, u64)],
    ) -> hal::Result<()> {
        let waits: Vec<(vk::Semaphore, u64)> =
            after.iter().map(|(d, v)| (d.timeline, *v)).collect();
        // SAFETY: the caller's contract is the one `submit_with` needs, and the waited
        // devices' semaphores outlive the submission.
        unsafe { self.submit_with(command_buffers, signal_value, None, &waits) }
    }

    fn completed_value(&self) -> hal::Result<u64> {
        let s = &self.shared;
        s.check("vkGetSemaphoreCounterValue")?;
        // SAFETY: the timeline semaphore belongs to this device.
        unsafe { s.raw.get_semaphore_counter_value(self.timeline) }.map_err(conv::map_result)
    }

    fn wait_for_value(&self, value: u64, timeout: Duration) -> hal::Result<bool> {
        let s = &self.shared;
        let semaphores = [self.timeline];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        s.check("vkWaitSemaphores")?;
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: waits on this device's own timeline semaphore.
        match unsafe { s.raw.wait_semaphores(&info, nanos) } {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(conv::map_result(e)),
        }
    }

    fn quiesce(&self, timeout: Duration) -> bool {
        let sems = [self.timeline];
        let values = [self.last_signal.load(Ordering::Acquire)];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: waits on this device's own timeline semaphore.
        match unsafe { self.shared.raw.wait_semaphores(&info, nanos) } {
            Ok(()) | Err(vk::Result::ERROR_DEVICE_LOST) => true,
            Err(_) => false,
        }
    }

    fn live_objects(&self) -> u64 {
        self.shared.live_objects().max(0) as u64
    }

    fn supports_full_index_range(&self, format: hal::IndexFormat) -> bool {
        format == hal::IndexFormat::Uint16
            || self
                .shared
                .features
                .contains(Features::FULL_DRAW_INDEX_UINT32)
    }

    fn format_support(&self, format: TextureFormat) -> hal::FormatSupport {
        self.shared
            .format_support
            .iter()
            .find(|(f, _)| *f == format)
            .map(|(_, s)| *s)
            .unwrap_or_default()
    }
}

impl Device {
    /// Submits, waiting first on the gate when `gate_wait` is set.
    ///
    /// # Safety
    /// As for [`hal::Device::submit`].
    unsafe fn submit_with(
        &self,
        command_buffers: &[&CommandBuffer],
        signal_value: u64,
        gate_wait: Option<u64>,
        after: &[(vk::Semaphore, u64)],
    ) -> hal::Result<()> {
        let s = &self.shared;
        let mut infos = [vk::CommandBufferSubmitInfo::default(); 8];
        let mut heap = Vec::new();
        let infos: &[vk::CommandBufferSubmitInfo<'_>] = if command_buffers.len() <= infos.len() {
            for (slot, cb) in infos.iter_mut().zip(command_buffers) {
                *slot = vk::CommandBufferSubmitInfo::default().command_buffer(cb.raw);
            }
            &infos[..command_buffers.len()]
        } else {
            heap.extend(
                command_buffers
                    .iter()
                    .map(|cb| vk::CommandBufferSubmitInfo::default().command_buffer(cb.raw)),
            );
            &heap
        };
        let signal = [vk::SemaphoreSubmitInfo::default()
            .semaphore(self.timeline)
            .value(signal_value)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        // Waits: the test gate, and other queues' timelines (each wait covers every stage,
        // so the whole submission runs after the work it waits for).
        let mut waits: Vec<vk::SemaphoreSubmitInfo<'_>> = Vec::new();
        if let Some(v) = gate_wait {
            let mut gate = lock(&self.gate);
            gate.max_wait = gate.max_wait.max(v);
            waits.push(
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(gate.current)
                    .value(v)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
            );
        }
        waits.extend(after.iter().map(|&(semaphore, v)| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .value(v)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        }));
        let mut submit = vk::SubmitInfo2::default()
            .command_buffer_infos(infos)
            .signal_semaphore_infos(&signal);
        if !waits.is_empty() {
            submit = submit.wait_semaphore_infos(&waits);
        }
        let submit = [submit];
        s.check("vkQueueSubmit2")?;
        let queue = s.lock_queue(self.queue);
        // SAFETY: the queue is externally synchronized by the lock; the command buffers are
        // executable and the signal value is above every earlier one (serials increase).
        unsafe { s.raw.queue_submit2(*queue, &submit, vk::Fence::null()) }
            .map_err(conv::map_result)?;
        self.last_signal.fetch_max(signal_value, Ordering::AcqRel);
        Ok(())
    }

    /// The completion counter's semaphore.
    pub(crate) fn timeline_semaphore(&self) -> vk::Semaphore {
        self.timeline
    }

    /// Notes a value a submission made elsewhere (a present) will signal.
    pub(crate) fn note_signal(&self, value: u64) {
        self.last_signal.fetch_max(value, Ordering::AcqRel);
    }

    /// The highest value any submission of this device signals its timeline to.
    pub(crate) fn last_signalled(&self) -> u64 {
        self.last_signal.load(Ordering::Acquire)
    }
}

/// Whether devices opened from now on keep `Stencil8` in a depth-stencil format even where
/// the device has `S8_UINT` (the `test-seams` feature), so the fallback runs on any device.
#[cfg(feature = "test-seams")]
static COMBINED_STENCIL8: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes devices opened from now on keep `Stencil8` in a depth-stencil format, as on a
/// device without `S8_UINT` attachments (`on`), or not; process-wide (the `test-seams`
/// feature: the fallback is otherwise seen only on such devices).
#[cfg(feature = "test-seams")]
pub fn force_combined_stencil8(on: bool) {
    COMBINED_STENCIL8.store(on, Ordering::Relaxed);
}

/// Devices opened so far that keep `Stencil8` in a depth-stencil format (the `test-seams`
/// feature: tests see that [`force_combined_stencil8`] took).
#[cfg(feature = "test-seams")]
pub fn combined_stencil8_devices() -> usize {
    COMBINED_STENCIL8_DEVICES.load(Ordering::Relaxed)
}

#[cfg(feature = "test-seams")]
static COMBINED_STENCIL8_DEVICES: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

#[cfg(feature = "test-seams")]
fn combined_stencil8_forced() -> bool {
    COMBINED_STENCIL8.load(Ordering::Relaxed)
}

#[cfg(not(feature = "test-seams"))]
fn combined_stencil8_forced() -> bool {
    false
}

#[cfg(feature = "test-seams")]
impl hal::TestControl for Device {
    fn faults(&self) -> &FaultInjector {
        &self.shared.faults
    }

    fn call_sites(&self) -> &'static [CallSite] {
        CALL_SITES
    }

    unsafe fn submit_gated(
        &self,
        command_buffers: &[&CommandBuffer],
        signal_value: u64,
        gate_wait: u64,
        after: &[(&Device, u64)],
    ) -> hal::Result<()> {
        let waits: Vec<(vk::Semaphore, u64)> =
            after.iter().map(|(d, v)| (d.timeline, *v)).collect();
        // SAFETY: the caller's contract is the one `submit_with` needs.
        unsafe { self.submit_with(command_buffers, signal_value, Some(gate_wait), &waits) }
    }

    fn open_gate(&self, value: u64) -> hal::Result<()> {
        // Held across the look and the signal, so two openings cannot cross.
        let held = lock(&self.gate);
        // SAFETY: querying our own semaphore.
        let now = unsafe { self.shared.raw.get_semaphore_counter_value(held.current) }
            .map_err(conv::map_result)?;
        // A host signal must raise the value: opening to where the gate already is (a
        // resume with nothing held back) is done already.
        if value <= now {
            return Ok(());
        }
        let info = vk::SemaphoreSignalInfo::default()
            .semaphore(held.current)
            .value(value);
        // SAFETY: host signal of our own timeline semaphore to a value above its current one.
        unsafe { self.shared.raw.signal_semaphore(&info) }.map_err(conv::map_result)
    }

    fn gate_value(&self) -> hal::Result<u64> {
        let gate = lock(&self.gate).current;
        // SAFETY: querying our own semaphore.
        unsafe { self.shared.raw.get_semaphore_counter_value(gate) }.map_err(conv::map_result)
    }

    fn fresh_gate(&self) -> hal::Result<()> {
        let fresh = timeline_semaphore(&self.shared.raw)?;
        let mut gate = lock(&self.gate);
        let old = std::mem::replace(&mut gate.current, fresh);
        gate.old.push(old);
        gate.max_wait = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a driver might answer for a 2D colour format: 4096² with 13 mips and 8 layers,
    /// in `samples`.
    fn answer(samples: vk::SampleCountFlags) -> vk::ImageFormatProperties {
        vk::ImageFormatProperties {
            max_extent: vk::Extent3D {
                width: 4096,
                height: 4096,
                depth: 1,
            },
            max_mip_levels: 13,
            max_array_layers: 8,
            sample_counts: samples,
            max_resource_size: 1 << 32,
        }
    }

    fn image(samples: vk::SampleCountFlags) -> vk::ImageCreateInfo<'static> {
        vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R16G16B16A16_SFLOAT)
            .extent(vk::Extent3D {
                width: 64,
                height: 64,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(samples)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED)
    }

    fn refusal(r: hal::Result<()>) -> String {
        match r {
            Err(hal::DeviceError::Unsupported(why)) => why,
            other => panic!("expected an unsupported refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_sample_count_the_driver_does_not_list_for_the_usage_is_refused() {
        use vk::SampleCountFlags as S;
        let one = answer(S::TYPE_1);
        let why = refusal(fits(&image(S::TYPE_4), &one));
        assert!(why.contains("TYPE_4 samples"), "{why}");
        assert!(why.contains("the driver makes TYPE_1"), "{why}");
        assert!(
            why.contains("SAMPLED"),
            "the refusal names the usage: {why}"
        );
        // The same image where the driver lists 4 samples, and a single-sampled one where it
        // lists only 1.
        assert!(fits(&image(S::TYPE_4), &answer(S::TYPE_1 | S::TYPE_4)).is_ok());
        assert!(fits(&image(S::TYPE_1), &one).is_ok());
        // Listing 2 and 8 is not listing 4.
        assert!(
            fits(
                &image(S::TYPE_4),
                &answer(S::TYPE_1 | S::TYPE_2 | S::TYPE_8)
            )
            .is_err()
        );
    }

    #[test]
    fn extents_mips_and_layers_past_the_drivers_answer_are_refused() {
        use vk::SampleCountFlags as S;
        let a = answer(S::TYPE_1);
        let wide = image(S::TYPE_1).extent(vk::Extent3D {
            width: 4097,
            height: 64,
            depth: 1,
        });
        assert!(refusal(fits(&wide, &a)).contains("4097x64x1"));
        assert!(fits(&image(S::TYPE_1).mip_levels(14), &a).is_err());
        assert!(fits(&image(S::TYPE_1).mip_levels(13), &a).is_ok());
        let why = refusal(fits(&image(S::TYPE_1).array_layers(9), &a));
        assert!(why.contains("9 layers") && why.contains("and 8)"), "{why}");
        assert!(fits(&image(S::TYPE_1).array_layers(8), &a).is_ok());
    }
}
