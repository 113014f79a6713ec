//! The raw ash path: hand-written Vulkan issuing the same calls vigil issues, with no
//! validation, no handle lookups and no tracking. The baseline vigil is measured against.
//!
//! `unsafe` here cannot be avoided: this is the unchecked path by definition. Each block
//! holds one native call and says why it is sound.

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use std::ffi::CStr;

/// A Vulkan device opened by hand on the same adapter vigil picks.
pub struct Raw {
    _entry: ash::Entry,
    instance: ash::Instance,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub family: u32,
    allocator: Option<Allocator>,
    timeline: vk::Semaphore,
    serial: u64,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Whether buffer device addresses are enabled.
    pub addresses: bool,
}

/// A buffer with its memory.
pub struct RawBuffer {
    /// The buffer.
    pub raw: vk::Buffer,
    allocation: Option<Allocation>,
    /// Size in bytes.
    pub size: u64,
}

fn err(e: vk::Result) -> String {
    format!("Vulkan error {e:?}")
}

impl Raw {
    /// Opens the adapter whose name vigil's default choice has.
    pub fn new(adapter_name: &str) -> Result<Raw, String> {
        // SAFETY: loads the system Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| e.to_string())?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info, no layers or extensions.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(err)?;
        // SAFETY: valid instance.
        let pds = unsafe { instance.enumerate_physical_devices() }.map_err(err)?;
        let pd = pds
            .into_iter()
            .find(|&pd| {
                // SAFETY: valid physical device.
                let props = unsafe { instance.get_physical_device_properties(pd) };
                props
                    .device_name_as_c_str()
                    .is_ok_and(|n| n.to_string_lossy() == adapter_name)
            })
            .ok_or_else(|| format!("raw ash: no adapter named {adapter_name}"))?;
        // SAFETY: valid physical device.
        let props = unsafe { instance.get_physical_device_properties(pd) };
        // SAFETY: valid physical device.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let family = families
            .iter()
            .position(|f| {
                f.queue_flags
                    .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            })
            .ok_or("raw ash: no graphics+compute queue")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // Buffer device addresses where the adapter has them (the pointer tier's workload
        // pushes addresses): vigil's device enables them too.
        let mut have12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut have = vk::PhysicalDeviceFeatures2::default().push_next(&mut have12);
        // SAFETY: valid physical device; the chain is one Vulkan 1.2 features struct.
        unsafe { instance.get_physical_device_features2(pd, &mut have) };
        // First instances in indirect draws (`draws-indirect`), as vigil's device enables.
        let first_instance = have.features.draw_indirect_first_instance == vk::TRUE;
        let addresses = have12.buffer_device_address == vk::TRUE;
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .buffer_device_address(addresses);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true);
        let core = vk::PhysicalDeviceFeatures::default()
            .robust_buffer_access(raw_robust())
            .full_draw_index_uint32(true)
            .draw_indirect_first_instance(first_instance);
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .features(core)
            .push_next(&mut v12)
            .push_next(&mut v13);
        let dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut f2);
        // SAFETY: the features requested are the ones vigil requests on this adapter.
        let device = unsafe { instance.create_device(pd, &dinfo, None) }.map_err(err)?;
        // SAFETY: family and index from the create info.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let mut ty =
            vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
        let sinfo = vk::SemaphoreCreateInfo::default().push_next(&mut ty);
        // SAFETY: valid device.
        let timeline = unsafe { device.create_semaphore(&sinfo, None) }.map_err(err)?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: pd,
            debug_settings: Default::default(),
            buffer_device_address: addresses,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| e.to_string())?;
        Ok(Raw {
            _entry: entry,
            instance,
            device,
            queue,
            family,
            allocator: Some(allocator),
            timeline,
            serial: 0,
            timestamp_period: props.limits.timestamp_period,
            addresses,
        })
    }

    /// A buffer in `location` memory.
    pub fn buffer(
        &mut self,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<RawBuffer, String> {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage | vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: non-zero size.
        let raw = unsafe { self.device.create_buffer(&info, None) }.map_err(err)?;
        // SAFETY: live buffer.
        let requirements = unsafe { self.device.get_buffer_memory_requirements(raw) };
        let allocation = self
            .allocator
            .as_mut()
            .ok_or("allocator gone")?
            .allocate(&AllocationCreateDesc {
                name: "raw",
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| e.to_string())?;
        // SAFETY: memory chosen for these requirements; the memory handle is read only.
        unsafe {
            self.device
                .bind_buffer_memory(raw, allocation.memory(), allocation.offset())
        }
        .map_err(err)?;
        Ok(RawBuffer {
            raw,
            allocation: Some(allocation),
            size,
        })
    }

    /// Copies into a host-visible buffer.
    pub fn write(&self, b: &RawBuffer, offset: u64, data: &[u8]) -> Result<(), String> {
        let ptr = b
            .allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .ok_or("raw ash: buffer not host-visible")?;
        // SAFETY: offset + len lies in the mapping (callers pass in-range writes) and the GPU is idle on it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                ptr.as_ptr().cast::<u8>().add(offset as usize),
                data.len(),
            )
        };
        Ok(())
    }

    /// Copies out of a host-visible buffer.
    pub fn read(&self, b: &RawBuffer, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let ptr = b
            .allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .ok_or("raw ash: buffer not host-visible")?;
        let mut out = vec![0; len];
        // SAFETY: in-range read of completed GPU writes (made host-visible by the command buffer's final barrier).
        unsafe {
            std::ptr::copy_nonoverlapping(
                ptr.as_ptr().cast::<u8>().add(offset as usize),
                out.as_mut_ptr(),
                len,
            )
        };
        Ok(out)
    }

    /// Releases a buffer (the GPU must be done with it).
    pub fn destroy_buffer(&mut self, mut b: RawBuffer) {
        // SAFETY: idle buffer.
        unsafe { self.device.destroy_buffer(b.raw, None) };
        if let (Some(a), Some(alloc)) = (b.allocation.take(), self.allocator.as_mut()) {
            let _ = alloc.free(a);
        }
    }

    /// A shader module from SPIR-V.
    pub fn shader(&self, words: &[u32]) -> Result<vk::ShaderModule, String> {
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: valid SPIR-V from naga.
        unsafe { self.device.create_shader_module(&info, None) }.map_err(err)
    }

    /// A command pool and one primary command buffer.
    pub fn command_buffer(&self) -> Result<(vk::CommandPool, vk::CommandBuffer), String> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(self.family);
        // SAFETY: valid device.
        let pool = unsafe { self.device.create_command_pool(&info, None) }.map_err(err)?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        let cb = unsafe { self.device.allocate_command_buffers(&alloc) }.map_err(err)?;
        Ok((pool, cb[0]))
    }

    /// Resets a pool and begins its command buffer.
    pub fn begin(&self, pool: vk::CommandPool, cb: vk::CommandBuffer) -> Result<(), String> {
        Raw::begin_on(&self.device, pool, cb)
    }

    /// As [`Raw::begin`], with only the device (for recording on other threads).
    pub fn begin_on(
        device: &ash::Device,
        pool: vk::CommandPool,
        cb: vk::CommandBuffer,
    ) -> Result<(), String> {
        // SAFETY: nothing from the pool is pending (callers wait before reuse), and only
        // this thread uses the pool.
        unsafe { device.reset_command_pool(pool, vk::CommandPoolResetFlags::empty()) }
            .map_err(err)?;
        let info = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the buffer is in the initial state after the reset.
        unsafe { device.begin_command_buffer(cb, &info) }.map_err(err)
    }

    /// A global barrier, as vigil records them.
    pub fn barrier(
        &self,
        cb: vk::CommandBuffer,
        src: vk::PipelineStageFlags2,
        dst: vk::PipelineStageFlags2,
    ) {
        Raw::barrier_on(&self.device, cb, src, dst);
    }

    /// As [`Raw::barrier`], with only the device.
    pub fn barrier_on(
        device: &ash::Device,
        cb: vk::CommandBuffer,
        src: vk::PipelineStageFlags2,
        dst: vk::PipelineStageFlags2,
    ) {
        let b = [vk::MemoryBarrier2::default()
            .src_stage_mask(src)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(dst)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
        let dep = vk::DependencyInfo::default().memory_barriers(&b);
        // SAFETY: recording command buffer.
        unsafe { device.cmd_pipeline_barrier2(cb, &dep) };
    }

    /// Ends recording with the host-visibility barrier vigil adds.
    pub fn end(&self, cb: vk::CommandBuffer) -> Result<(), String> {
        Raw::end_on(&self.device, cb)
    }

    /// As [`Raw::end`], with only the device.
    pub fn end_on(device: &ash::Device, cb: vk::CommandBuffer) -> Result<(), String> {
        let b = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        let dep = vk::DependencyInfo::default().memory_barriers(&b);
        // SAFETY: recording command buffer.
        unsafe { device.cmd_pipeline_barrier2(cb, &dep) };
        // SAFETY: recording, no open render pass.
        unsafe { device.end_command_buffer(cb) }.map_err(err)
    }

    /// Submits with the next timeline value; returns it.
    pub fn submit(&mut self, cbs: &[vk::CommandBuffer]) -> Result<u64, String> {
        self.serial += 1;
        let infos: Vec<_> = cbs
            .iter()
            .map(|&c| vk::CommandBufferSubmitInfo::default().command_buffer(c))
            .collect();
        let signal = [vk::SemaphoreSubmitInfo::default()
            .semaphore(self.timeline)
            .value(self.serial)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let submit = [vk::SubmitInfo2::default()
            .command_buffer_infos(&infos)
            .signal_semaphore_infos(&signal)];
        // SAFETY: executable command buffers; increasing signal value.
        unsafe {
            self.device
                .queue_submit2(self.queue, &submit, vk::Fence::null())
        }
        .map_err(err)?;
        Ok(self.serial)
    }

    /// Waits for a timeline value.
    pub fn wait(&self, value: u64) -> Result<(), String> {
        let sems = [self.timeline];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        // SAFETY: our own timeline semaphore.
        unsafe { self.device.wait_semaphores(&info, 60_000_000_000) }.map_err(err)
    }

    /// The entry point name naga gives.
    pub fn entry_name() -> &'static CStr {
        c"main"
    }

    /// Whether the buffer's memory is mapped (host-visible).
    pub fn is_mapped(b: &RawBuffer) -> bool {
        b.allocation.as_ref().and_then(|a| a.mapped_ptr()).is_some()
    }

    /// A 2d RGBA8 image with its memory and a view.
    pub fn image(
        &mut self,
        size: [u32; 2],
        usage: vk::ImageUsageFlags,
    ) -> Result<RawImage, String> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D {
                width: size[0],
                height: size[1],
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info.
        let raw = unsafe { self.device.create_image(&info, None) }.map_err(err)?;
        // SAFETY: live image.
        let requirements = unsafe { self.device.get_image_memory_requirements(raw) };
        let allocation = self
            .allocator
            .as_mut()
            .ok_or("allocator gone")?
            .allocate(&AllocationCreateDesc {
                name: "raw image",
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| e.to_string())?;
        // SAFETY: memory chosen for these requirements.
        unsafe {
            self.device
                .bind_image_memory(raw, allocation.memory(), allocation.offset())
        }
        .map_err(err)?;
        let vinfo = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .subresource_range(COLOR_RANGE);
        // SAFETY: a view of the whole image.
        let view = unsafe { self.device.create_image_view(&vinfo, None) }.map_err(err)?;
        Ok(RawImage {
            raw,
            view,
            allocation: Some(allocation),
            size,
        })
    }

    /// Releases an image (the GPU must be done with it).
    pub fn destroy_image(&mut self, mut i: RawImage) {
        // SAFETY: idle view.
        unsafe { self.device.destroy_image_view(i.view, None) };
        // SAFETY: idle image.
        unsafe { self.device.destroy_image(i.raw, None) };
        if let (Some(a), Some(alloc)) = (i.allocation.take(), self.allocator.as_mut()) {
            let _ = alloc.free(a);
        }
    }

    /// Records into a fresh command buffer, submits it and waits.
    pub fn one_shot(&mut self, f: impl FnOnce(&Raw, vk::CommandBuffer)) -> Result<(), String> {
        let (pool, cb) = self.command_buffer()?;
        self.begin(pool, cb)?;
        f(self, cb);
        let r = self.end(cb).and_then(|()| {
            let s = self.submit(&[cb])?;
            self.wait(s)
        });
        // SAFETY: the submission was waited for (or never made).
        unsafe { self.device.destroy_command_pool(pool, None) };
        r
    }

    /// A layout transition of a whole colour image.
    pub fn image_barrier(
        &self,
        cb: vk::CommandBuffer,
        image: vk::Image,
        from: vk::ImageLayout,
        to: vk::ImageLayout,
    ) {
        let b = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
            .old_layout(from)
            .new_layout(to)
            .image(image)
            .subresource_range(COLOR_RANGE)];
        let dep = vk::DependencyInfo::default().image_memory_barriers(&b);
        // SAFETY: recording command buffer; the image is in `from`.
        unsafe { self.device.cmd_pipeline_barrier2(cb, &dep) };
    }

    /// Fills an image with `texels` (tightly packed RGBA8) through a staging buffer and
    /// leaves it in `layout`.
    pub fn upload_image(
        &mut self,
        image: &RawImage,
        texels: &[u8],
        layout: vk::ImageLayout,
    ) -> Result<(), String> {
        let staging = self.buffer(
            texels.len() as u64,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        self.write(&staging, 0, texels)?;
        let (img, size, src) = (image.raw, image.size, staging.raw);
        let r = self.one_shot(|raw, cb| {
            raw.image_barrier(
                cb,
                img,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            let region = [image_copy(size)];
            // SAFETY: in-range copy into an image in TRANSFER_DST layout.
            unsafe {
                raw.device.cmd_copy_buffer_to_image(
                    cb,
                    src,
                    img,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &region,
                )
            };
            raw.image_barrier(cb, img, vk::ImageLayout::TRANSFER_DST_OPTIMAL, layout);
        });
        self.destroy_buffer(staging);
        r
    }

    /// Reads an RGBA8 image resting in `layout` back, tightly packed.
    pub fn read_image(
        &mut self,
        image: &RawImage,
        layout: vk::ImageLayout,
    ) -> Result<Vec<u8>, String> {
        let len = u64::from(image.size[0]) * u64::from(image.size[1]) * 4;
        let readback = self.buffer(
            len,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let (img, size, dst) = (image.raw, image.size, readback.raw);
        let r = self.one_shot(|raw, cb| {
            raw.image_barrier(cb, img, layout, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            let region = [image_copy(size)];
            // SAFETY: in-range copy out of an image in TRANSFER_SRC layout.
            unsafe {
                raw.device.cmd_copy_image_to_buffer(
                    cb,
                    img,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst,
                    &region,
                )
            };
            raw.image_barrier(cb, img, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, layout);
        });
        let out = r.and_then(|()| self.read(&readback, 0, len as usize));
        self.destroy_buffer(readback);
        out
    }

    /// Reads a buffer of any memory back through a host-visible copy.
    pub fn read_any(&mut self, b: &RawBuffer, len: u64) -> Result<Vec<u8>, String> {
        let readback = self.buffer(
            len,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let (src, dst) = (b.raw, readback.raw);
        let r = self.one_shot(|raw, cb| {
            let region = [vk::BufferCopy::default().size(len)];
            // SAFETY: in-range copy between buffers of this device.
            unsafe { raw.device.cmd_copy_buffer(cb, src, dst, &region) };
        });
        let out = r.and_then(|()| self.read(&readback, 0, len as usize));
        self.destroy_buffer(readback);
        out
    }

    /// A descriptor set layout from `(binding, type, stages)`.
    pub fn set_layout(
        &self,
        bindings: &[(u32, vk::DescriptorType, vk::ShaderStageFlags)],
    ) -> Result<vk::DescriptorSetLayout, String> {
        let b: Vec<_> = bindings
            .iter()
            .map(|&(binding, ty, stages)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
        // SAFETY: valid create info.
        unsafe {
            self.device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&b),
                None,
            )
        }
        .map_err(err)
    }

    /// A pipeline layout over `sets`.
    pub fn pipeline_layout(
        &self,
        sets: &[vk::DescriptorSetLayout],
    ) -> Result<vk::PipelineLayout, String> {
        // SAFETY: valid set layouts.
        unsafe {
            self.device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(sets),
                None,
            )
        }
        .map_err(err)
    }

    /// A pipeline layout of no sets and `bytes` of push constants seen by the vertex and
    /// fragment stages.
    pub fn push_layout(&self, bytes: u32) -> Result<vk::PipelineLayout, String> {
        let range = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
            offset: 0,
            size: bytes,
        }];
        // SAFETY: a valid range within every device's push-constant limit (128 bytes).
        unsafe {
            self.device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&range),
                None,
            )
        }
        .map_err(err)
    }

    /// A pipeline drawing triangle lists into one RGBA8 target (dynamic rendering, dynamic
    /// viewport and scissor, no culling, no blending), entry points `vs` and `fs`. With
    /// `VIGIL_BENCH_RAW_DYNAMIC=vigil` it declares the dynamic state vigil's render
    /// pipelines declare (blend constants and stencil reference as well, set at the start
    /// of rendering), to measure what that declaration costs the driver per draw.
    pub fn target_pipeline(
        &self,
        (vs, vs_name): (vk::ShaderModule, &CStr),
        (fs, fs_name): (vk::ShaderModule, &CStr),
        vertex_input: &vk::PipelineVertexInputStateCreateInfo<'_>,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, String> {
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vs)
                .name(vs_name),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fs)
                .name(fs_name),
        ];
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend_att = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_att);
        let dynamic = [
            vk::DynamicState::VIEWPORT,
            vk::DynamicState::SCISSOR,
            vk::DynamicState::BLEND_CONSTANTS,
            vk::DynamicState::STENCIL_REFERENCE,
        ];
        let declared = if vigil_dynamic_state() { 4 } else { 2 };
        let dynamic =
            vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic[..declared]);
        let formats = [vk::Format::R8G8B8A8_UNORM];
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let info = [vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .push_next(&mut rendering)];
        // SAFETY: the caller's shaders and layout agree; the target format is the one the
        // rendering names.
        let made = unsafe {
            self.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &info, None)
        };
        made.map_err(|(_, e)| err(e))?
            .first()
            .copied()
            .ok_or_else(|| "no pipeline made".into())
    }

    /// Begins rendering into `view` (an RGBA8 image of `size` in its attachment layout),
    /// cleared to opaque black, with the whole target as viewport and scissor.
    pub fn begin_target_on(
        device: &ash::Device,
        cb: vk::CommandBuffer,
        view: vk::ImageView,
        size: [u32; 2],
    ) {
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: size[0],
                height: size[1],
            },
        };
        let color = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 0.0, 1.0],
                },
            })];
        let info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .color_attachments(&color);
        // SAFETY: the target is in its attachment layout (the caller's contract).
        unsafe { device.cmd_begin_rendering(cb, &info) };
        let vp = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: size[0] as f32,
            height: size[1] as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        // SAFETY: dynamic state of the pipelines made by `target_pipeline`.
        unsafe { device.cmd_set_viewport(cb, 0, &vp) };
        // SAFETY: as above.
        unsafe { device.cmd_set_scissor(cb, 0, &[area]) };
        if vigil_dynamic_state() {
            // SAFETY: blend constants are dynamic in these pipelines with the setting on.
            unsafe { device.cmd_set_blend_constants(cb, &[0.0; 4]) };
            // SAFETY: as above, the stencil reference too.
            unsafe {
                device.cmd_set_stencil_reference(cb, vk::StencilFaceFlags::FRONT_AND_BACK, 0)
            };
        }
    }

    /// An RGBA8 render target of `size` (also a copy source, for reading it back), in its
    /// attachment layout.
    pub fn render_target(&mut self, size: [u32; 2]) -> Result<RawImage, String> {
        let target = self.image(
            size,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let image = target.raw;
        let moved = self.one_shot(|raw, cb| {
            raw.image_barrier(
                cb,
                image,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            );
        });
        match moved {
            Ok(()) => Ok(target),
            Err(e) => {
                self.destroy_image(target);
                Err(e)
            }
        }
    }

    /// Opens a benchmark frame in `cb` (from `pool`): begins it, waits for every earlier
    /// command before the graphics stages (as vigil's encoders do), begins rendering into
    /// `view` ([`Raw::begin_target_on`]) and binds `pipeline`.
    pub fn begin_frame_on(
        device: &ash::Device,
        pool: vk::CommandPool,
        cb: vk::CommandBuffer,
        view: vk::ImageView,
        size: [u32; 2],
        pipeline: vk::Pipeline,
    ) -> Result<(), String> {
        Raw::begin_on(device, pool, cb)?;
        Raw::barrier_on(
            device,
            cb,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::PipelineStageFlags2::ALL_GRAPHICS,
        );
        Raw::begin_target_on(device, cb, view, size);
        // SAFETY: the caller's pipeline draws into the rendering's one RGBA8 target.
        unsafe { device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline) };
        Ok(())
    }

    /// A buffer's device address (buffer device addresses enabled, the buffer made with
    /// `SHADER_DEVICE_ADDRESS`).
    pub fn address(&self, b: &RawBuffer) -> u64 {
        let info = vk::BufferDeviceAddressInfo::default().buffer(b.raw);
        // SAFETY: the caller made the buffer with the device-address usage.
        unsafe { self.device.get_buffer_device_address(&info) }
    }

    /// A descriptor pool for `max_sets` sets of the given type counts.
    pub fn descriptor_pool(
        &self,
        max_sets: u32,
        sizes: &[(vk::DescriptorType, u32)],
        free: bool,
    ) -> Result<vk::DescriptorPool, String> {
        let sizes: Vec<_> = sizes
            .iter()
            .map(|&(ty, descriptor_count)| vk::DescriptorPoolSize {
                ty,
                descriptor_count,
            })
            .collect();
        let flags = if free {
            vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET
        } else {
            vk::DescriptorPoolCreateFlags::empty()
        };
        // SAFETY: valid create info.
        unsafe {
            self.device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .flags(flags)
                    .max_sets(max_sets)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(err)
    }

    /// One set of `layout` from `pool`.
    pub fn allocate_set(
        &self,
        pool: vk::DescriptorPool,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet, String> {
        let layouts = [layout];
        // SAFETY: the pool has room (callers size it).
        let sets = unsafe {
            self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(err)?;
        sets.first()
            .copied()
            .ok_or_else(|| "no set allocated".into())
    }

    /// Writes one descriptor per `(binding, what)` into `set` (one native call).
    pub fn write_set(&self, set: vk::DescriptorSet, bindings: &[(u32, Bind)]) {
        let infos: Vec<(vk::DescriptorBufferInfo, vk::DescriptorImageInfo)> = bindings
            .iter()
            .map(|(_, b)| match *b {
                Bind::Buffer(_, buffer, offset, range) => (
                    vk::DescriptorBufferInfo::default()
                        .buffer(buffer)
                        .offset(offset)
                        .range(range),
                    vk::DescriptorImageInfo::default(),
                ),
                Bind::SampledImage(view) => (
                    vk::DescriptorBufferInfo::default(),
                    vk::DescriptorImageInfo::default()
                        .image_view(view)
                        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
                ),
                Bind::Sampler(sampler) => (
                    vk::DescriptorBufferInfo::default(),
                    vk::DescriptorImageInfo::default().sampler(sampler),
                ),
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet<'_>> = bindings
            .iter()
            .zip(&infos)
            .map(|((binding, b), (buffer, image))| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding);
                match *b {
                    Bind::Buffer(ty, ..) => w
                        .descriptor_type(ty)
                        .buffer_info(std::slice::from_ref(buffer)),
                    Bind::SampledImage(_) => w
                        .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                        .image_info(std::slice::from_ref(image)),
                    Bind::Sampler(_) => w
                        .descriptor_type(vk::DescriptorType::SAMPLER)
                        .image_info(std::slice::from_ref(image)),
                }
            })
            .collect();
        // SAFETY: the set is not in use; the buffers, views and samplers are live.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
    }

    /// A timestamp query pool of `count` queries.
    pub fn timestamps(&self, count: u32) -> Result<vk::QueryPool, String> {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: valid create info.
        unsafe { self.device.create_query_pool(&info, None) }.map_err(err)
    }

    /// Waits for and returns `count` 64-bit query results.
    pub fn query_results(&self, pool: vk::QueryPool, count: u32) -> Result<Vec<u64>, String> {
        let mut out = vec![0u64; count as usize];
        // SAFETY: the queries were written by a completed submission.
        unsafe {
            self.device.get_query_pool_results(
                pool,
                0,
                &mut out,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(err)?;
        Ok(out)
    }
}

/// What one descriptor of a set holds.
#[derive(Clone, Copy, Debug)]
pub enum Bind {
    /// A buffer range as a descriptor of the given type: `(type, buffer, offset, range)`.
    Buffer(vk::DescriptorType, vk::Buffer, u64, u64),
    /// A sampled image view (in the shader-read-only layout).
    SampledImage(vk::ImageView),
    /// A sampler.
    Sampler(vk::Sampler),
}

/// The whole of a one-level, one-layer colour image.
pub const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

fn image_copy(size: [u32; 2]) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        })
        .image_extent(vk::Extent3D {
            width: size[0],
            height: size[1],
            depth: 1,
        })
}

/// An image with its memory and a whole-image view.
pub struct RawImage {
    /// The image.
    pub raw: vk::Image,
    /// Its view.
    pub view: vk::ImageView,
    allocation: Option<Allocation>,
    /// Width and height.
    pub size: [u32; 2],
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: teardown; waiting for idle first.
        let _ = unsafe { self.device.device_wait_idle() };
        drop(self.allocator.take());
        // SAFETY: created by this device.
        unsafe { self.device.destroy_semaphore(self.timeline, None) };
        // SAFETY: every child object was destroyed by the workloads.
        unsafe { self.device.destroy_device(None) };
        // SAFETY: the device is gone.
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// Whether raw ash's device enables `robustBufferAccess`, as vigil's does: yes unless
/// `VIGIL_BENCH_RAW_ROBUST=off`. To measure what the driver's own bounds checks cost the
/// copy kernel (vigil's shaders check their indices themselves).
fn raw_robust() -> bool {
    std::env::var("VIGIL_BENCH_RAW_ROBUST").map_or(true, |v| v != "off")
}

/// Whether raw ash's render pipelines declare vigil's dynamic state
/// (`VIGIL_BENCH_RAW_DYNAMIC=vigil`; read once).
fn vigil_dynamic_state() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("VIGIL_BENCH_RAW_DYNAMIC").is_ok_and(|v| v == "vigil"))
}
