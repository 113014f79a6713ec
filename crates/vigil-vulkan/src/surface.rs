//! Presentation: a `VkSurfaceKHR` over an X11 (Xlib or XCB) or Wayland window, or over no
//! window (`VK_EXT_headless_surface`), its swapchain, and the present operation — the
//! frame texture copied into the next swapchain image by a short command buffer that waits
//! for the image's acquisition and signals both the device's completion counter and the
//! semaphore the present waits for.

use crate::conv;
use crate::device::{Device, DeviceShared, Texture};
use ash::vk;
use vigil_hal as hal;
use vigil_hal::{
    CompositeAlphaMode, PresentMode, PresentOutcome, PresentSource, SurfaceCapabilities,
    SurfaceConfiguration, SurfaceStatus, TextureFormat, TextureUsages, WindowTarget,
};

/// The swapchain of a configured surface, and what presenting through it needs.
#[derive(Debug)]
struct Chain {
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// Signalled by each present's copy, waited for by the present of that image.
    rendered: Vec<vk::Semaphore>,
    /// Signalled by the acquisition, waited for by the copy.
    acquired: vk::Semaphore,
    pool: vk::CommandPool,
    cb: vk::CommandBuffer,
    extent: vk::Extent2D,
}

/// A surface and, once configured, its swapchain.
#[derive(Debug)]
pub struct Surface {
    raw: vk::SurfaceKHR,
    chain: Option<Chain>,
}

/// Presentation formats vigil hands out, and their Vulkan names.
const FORMATS: [(TextureFormat, vk::Format); 4] = [
    (TextureFormat::Bgra8Unorm, vk::Format::B8G8R8A8_UNORM),
    (TextureFormat::Bgra8UnormSrgb, vk::Format::B8G8R8A8_SRGB),
    (TextureFormat::Rgba8Unorm, vk::Format::R8G8B8A8_UNORM),
    (TextureFormat::Rgba8UnormSrgb, vk::Format::R8G8B8A8_SRGB),
];

fn present_mode(m: PresentMode) -> vk::PresentModeKHR {
    match m {
        PresentMode::Fifo => vk::PresentModeKHR::FIFO,
        PresentMode::FifoRelaxed => vk::PresentModeKHR::FIFO_RELAXED,
        PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
        PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
    }
}

fn alpha_mode(m: CompositeAlphaMode) -> vk::CompositeAlphaFlagsKHR {
    match m {
        CompositeAlphaMode::Opaque => vk::CompositeAlphaFlagsKHR::OPAQUE,
        CompositeAlphaMode::PreMultiplied => vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
        CompositeAlphaMode::PostMultiplied => vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        CompositeAlphaMode::Inherit => vk::CompositeAlphaFlagsKHR::INHERIT,
    }
}

fn unsupported(what: &str) -> hal::DeviceError {
    hal::DeviceError::Unsupported(what.to_owned())
}

impl DeviceShared {
    fn surface_loader(&self) -> hal::Result<&ash::khr::surface::Instance> {
        self.instance()
            .surface
            .as_ref()
            .ok_or_else(|| unsupported("the Vulkan loader has no VK_KHR_surface"))
    }

    fn swapchain_loader(&self) -> hal::Result<&ash::khr::swapchain::Device> {
        self.swapchain
            .as_ref()
            .ok_or_else(|| unsupported("the device has no VK_KHR_swapchain"))
    }

    fn binary_semaphore(&self) -> hal::Result<vk::Semaphore> {
        self.check("vkCreateSemaphore")?;
        // SAFETY: valid device; default create info.
        unsafe {
            self.raw
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .map_err(conv::map_result)
    }

    /// Destroys a swapchain and what goes with it. The caller made sure no present of it
    /// is still executing.
    fn drop_chain(&self, chain: Chain) {
        // SAFETY: the pool's command buffer is not pending (the caller's guarantee).
        unsafe { self.raw.destroy_command_pool(chain.pool, None) };
        for s in chain.rendered.into_iter().chain([chain.acquired]) {
            // SAFETY: no pending operation waits on or signals it (as above).
            unsafe { self.raw.destroy_semaphore(s, None) };
        }
        if let Some(loader) = self.swapchain.as_ref() {
            // SAFETY: no image of it is in use (as above); the images go with it.
            unsafe { loader.destroy_swapchain(chain.swapchain, None) };
        }
    }
}

impl Device {
    pub(crate) fn create_surface_raw(&self, target: WindowTarget) -> hal::Result<Surface> {
        let s = &self.shared;
        let inst = s.instance();
        s.check("vkCreateSurfaceKHR")?;
        let raw =
            match target {
                WindowTarget::Xlib { display, window } => {
                    let loader = inst.xlib.as_ref().ok_or_else(|| {
                        unsupported("the Vulkan loader has no VK_KHR_xlib_surface")
                    })?;
                    let info = vk::XlibSurfaceCreateInfoKHR::default()
                        .dpy(display.cast())
                        .window(window);
                    // SAFETY: the caller guarantees the display and window are valid and
                    // outlive the surface.
                    unsafe { loader.create_xlib_surface(&info, None) }
                }
                WindowTarget::Xcb { connection, window } => {
                    let loader = inst.xcb.as_ref().ok_or_else(|| {
                        unsupported("the Vulkan loader has no VK_KHR_xcb_surface")
                    })?;
                    let info = vk::XcbSurfaceCreateInfoKHR::default()
                        .connection(connection)
                        .window(window);
                    // SAFETY: as above.
                    unsafe { loader.create_xcb_surface(&info, None) }
                }
                WindowTarget::Wayland { display, surface } => {
                    let loader = inst.wayland.as_ref().ok_or_else(|| {
                        unsupported("the Vulkan loader has no VK_KHR_wayland_surface")
                    })?;
                    let info = vk::WaylandSurfaceCreateInfoKHR::default()
                        .display(display)
                        .surface(surface);
                    // SAFETY: as above.
                    unsafe { loader.create_wayland_surface(&info, None) }
                }
                WindowTarget::Headless => {
                    let loader = inst.headless.as_ref().ok_or_else(|| {
                        unsupported("the Vulkan loader has no VK_EXT_headless_surface")
                    })?;
                    let info = vk::HeadlessSurfaceCreateInfoEXT::default();
                    // SAFETY: valid instance; the create info names no external object.
                    unsafe { loader.create_headless_surface(&info, None) }
                }
            }
            .map_err(conv::map_result)?;
        let surface_loader = s.surface_loader()?;
        // SAFETY: plain query on a valid physical device and surface.
        let supported = unsafe {
            surface_loader.get_physical_device_surface_support(s.physical, s.queue_family, raw)
        };
        if !supported.unwrap_or(false) || s.swapchain.is_none() {
            // SAFETY: the surface was just made and nothing uses it.
            unsafe { surface_loader.destroy_surface(raw, None) };
            return Err(unsupported(
                "the device's queue cannot present to this window (or the device has no VK_KHR_swapchain)",
            ));
        }
        s.created();
        Ok(Surface { raw, chain: None })
    }

    pub(crate) fn surface_capabilities_raw(
        &self,
        surface: &Surface,
    ) -> hal::Result<SurfaceCapabilities> {
        let s = &self.shared;
        let loader = s.surface_loader()?;
        s.check("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        // SAFETY: plain queries on a valid physical device and surface.
        let caps =
            unsafe { loader.get_physical_device_surface_capabilities(s.physical, surface.raw) }
                .map_err(conv::map_result)?;
        // SAFETY: as above.
        let formats =
            unsafe { loader.get_physical_device_surface_formats(s.physical, surface.raw) }
                .map_err(conv::map_result)?;
        // SAFETY: as above.
        let modes =
            unsafe { loader.get_physical_device_surface_present_modes(s.physical, surface.raw) }
                .map_err(conv::map_result)?;
        let formats = FORMATS
            .iter()
            .filter(|(_, vkf)| {
                formats
                    .iter()
                    .any(|f| f.format == *vkf && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
            })
            .map(|(f, _)| *f)
            .collect();
        let present_modes = [
            PresentMode::Fifo,
            PresentMode::FifoRelaxed,
            PresentMode::Mailbox,
            PresentMode::Immediate,
        ]
        .into_iter()
        .filter(|m| modes.contains(&present_mode(*m)))
        .collect();
        let alpha_modes = [
            CompositeAlphaMode::Opaque,
            CompositeAlphaMode::PreMultiplied,
            CompositeAlphaMode::PostMultiplied,
            CompositeAlphaMode::Inherit,
        ]
        .into_iter()
        .filter(|m| caps.supported_composite_alpha.contains(alpha_mode(*m)))
        .collect();
        let current = caps.current_extent;
        let mut usages = TextureUsages::empty();
        if caps
            .supported_usage_flags
            .contains(vk::ImageUsageFlags::TRANSFER_DST)
        {
            // Frames are vigil's own textures, copied into the swapchain image: rendered
            // to, or written by copies (never bound in groups).
            usages = TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST;
        }
        Ok(SurfaceCapabilities {
            formats,
            present_modes,
            alpha_modes,
            current_extent: (current.width != u32::MAX).then_some([current.width, current.height]),
            min_extent: [caps.min_image_extent.width, caps.min_image_extent.height],
            max_extent: [caps.max_image_extent.width, caps.max_image_extent.height],
            usages,
        })
    }

    pub(crate) fn configure_surface_raw(
        &self,
        surface: &mut Surface,
        config: &SurfaceConfiguration,
    ) -> hal::Result<()> {
        let s = &self.shared;
        let loader = s.swapchain_loader()?;
        let surface_loader = s.surface_loader()?;
        let format = FORMATS
            .iter()
            .find(|(f, _)| *f == config.format)
            .map(|(_, v)| *v)
            .ok_or_else(|| unsupported("not a presentation format"))?;
        // SAFETY: plain query on a valid physical device and surface.
        let caps = unsafe {
            surface_loader.get_physical_device_surface_capabilities(s.physical, surface.raw)
        }
        .map_err(conv::map_result)?;
        let mut images = caps.min_image_count.saturating_add(1).max(2);
        if caps.max_image_count > 0 {
            images = images.min(caps.max_image_count);
        }
        let extent = vk::Extent2D {
            width: config.extent[0],
            height: config.extent[1],
        };
        let old = surface.chain.as_ref().map(|c| c.swapchain);
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface.raw)
            .min_image_count(images)
            .image_format(format)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(alpha_mode(config.alpha_mode))
            .present_mode(present_mode(config.present_mode))
            .clipped(true)
            .old_swapchain(old.unwrap_or_default());
        s.check("vkCreateSwapchainKHR")?;
        // SAFETY: valid device and surface; the create info points at locals; the old
        // swapchain (if any) has no present executing (the caller's guarantee).
        let swapchain =
            unsafe { loader.create_swapchain(&info, None) }.map_err(conv::map_result)?;
        let made = (|| -> hal::Result<Chain> {
            // SAFETY: the swapchain was just made on this device.
            let images =
                unsafe { loader.get_swapchain_images(swapchain) }.map_err(conv::map_result)?;
            let mut rendered = Vec::with_capacity(images.len());
            for _ in &images {
                rendered.push(s.binary_semaphore()?);
            }
            let acquired = s.binary_semaphore()?;
            let pool_info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(s.queue_family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            s.check("vkCreateCommandPool")?;
            // SAFETY: valid device and queue family.
            let pool =
                unsafe { s.raw.create_command_pool(&pool_info, None) }.map_err(conv::map_result)?;
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            // SAFETY: the pool was just made.
            let cb = unsafe { s.raw.allocate_command_buffers(&alloc) }
                .map_err(conv::map_result)?
                .into_iter()
                .next()
                .ok_or(hal::DeviceError::OutOfMemory)?;
            Ok(Chain {
                swapchain,
                images,
                rendered,
                acquired,
                pool,
                cb,
                extent,
            })
        })();
        let chain = match made {
            Ok(c) => c,
            Err(e) => {
                // SAFETY: the new swapchain is unused.
                unsafe { loader.destroy_swapchain(swapchain, None) };
                return Err(e);
            }
        };
        if let Some(old) = surface.chain.replace(chain) {
            self.settle_presents();
            s.drop_chain(old);
        }
        Ok(())
    }

    /// Lets the window system's presents finish with the semaphores they wait on before
    /// those go. A present's wait has no completion signal of its own (a fence for it needs
    /// `VK_EXT_swapchain_maintenance1`); what tells it — to the driver and to the
    /// validation layer, which otherwise may still count the last copy's semaphores as in
    /// use — is the queue going idle. That wait is bounded by progress only when every
    /// submission made so far is known complete (the caller waited for them, within the
    /// stall bound): then the queue holds nothing but presents. Otherwise (work still
    /// running, or the device given up on) it is skipped: the semaphores go as before.
    fn settle_presents(&self) {
        let s = &self.shared;
        let last = self.last_signalled();
        // SAFETY: the timeline semaphore belongs to this device.
        let done =
            unsafe { s.raw.get_semaphore_counter_value(self.timeline_semaphore()) }.unwrap_or(0);
        if done < last {
            return;
        }
        let queue = s.lock_queue(self.queue);
        // SAFETY: the queue is externally synchronized by the lock; every submission on it
        // from this device completed, so what remains is presentation.
        let _ = unsafe { s.raw.queue_wait_idle(*queue) };
    }

    pub(crate) fn present_raw(
        &self,
        surface: &mut Surface,
        source: &Texture,
        from: PresentSource,
        signal_value: u64,
    ) -> hal::Result<PresentOutcome> {
        let s = &self.shared;
        let loader = s.swapchain_loader()?;
        let chain = surface
            .chain
            .as_ref()
            .ok_or_else(|| unsupported("the surface is not configured"))?;
        let not_submitted = |status| PresentOutcome {
            status,
            submitted: false,
        };
        s.check("vkAcquireNextImageKHR")?;
        // SAFETY: the swapchain and semaphore are ours; the semaphore has no pending
        // signal (the previous present's copy, which waited on it, completed).
        let acquired = unsafe {
            loader.acquire_next_image(
                chain.swapchain,
                5_000_000_000,
                chain.acquired,
                vk::Fence::null(),
            )
        };
        let (index, suboptimal) = match acquired {
            Ok(r) => r,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                return Ok(not_submitted(SurfaceStatus::OutOfDate));
            }
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => {
                return Ok(not_submitted(SurfaceStatus::Lost));
            }
            Err(vk::Result::TIMEOUT | vk::Result::NOT_READY) => {
                return Err(hal::DeviceError::Unsupported(
                    "the window system handed out no image within 5 s".into(),
                ));
            }
            Err(e) => return Err(conv::map_result(e)),
        };
        let i = index as usize;
        let (Some(&image), Some(&rendered)) = (chain.images.get(i), chain.rendered.get(i)) else {
            return Err(hal::DeviceError::Unsupported(
                "the window system named an image the swapchain does not have".into(),
            ));
        };
        let cb = chain.cb;
        let color = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let barriers = [
            vk::ImageMemoryBarrier2::default()
                .image(source.raw)
                .subresource_range(color)
                .old_layout(conv::image_layout(from.layout))
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_stage_mask(conv::stages(from.stages))
                .src_access_mask(conv::access(from.access))
                .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ),
            vk::ImageMemoryBarrier2::default()
                .image(image)
                .subresource_range(color)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE),
        ];
        let to_present = [vk::ImageMemoryBarrier2::default()
            .image(image)
            .subresource_range(color)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
        let layers = vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        };
        let region = [vk::ImageCopy::default()
            .src_subresource(layers)
            .dst_subresource(layers)
            .extent(vk::Extent3D {
                width: from.extent[0].min(chain.extent.width),
                height: from.extent[1].min(chain.extent.height),
                depth: 1,
            })];
        s.check("vkBeginCommandBuffer")?;
        // SAFETY: the command buffer is not pending (the previous present completed) and
        // its pool allows resetting it.
        unsafe {
            s.raw
                .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
        }
        .map_err(conv::map_result)?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the buffer was just reset.
        unsafe { s.raw.begin_command_buffer(cb, &begin) }.map_err(conv::map_result)?;
        let dep = vk::DependencyInfo::default().image_memory_barriers(&barriers);
        // SAFETY: recording; the images are alive (the caller's guarantee for the source,
        // the swapchain's for its image).
        unsafe { s.raw.cmd_pipeline_barrier2(cb, &dep) };
        // SAFETY: recording; layouts as the barriers above left them.
        unsafe {
            s.raw.cmd_copy_image(
                cb,
                source.raw,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &region,
            )
        };
        let dep = vk::DependencyInfo::default().image_memory_barriers(&to_present);
        // SAFETY: recording.
        unsafe { s.raw.cmd_pipeline_barrier2(cb, &dep) };
        // SAFETY: recording began above.
        unsafe { s.raw.end_command_buffer(cb) }.map_err(conv::map_result)?;
        let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
        let wait = [vk::SemaphoreSubmitInfo::default()
            .semaphore(chain.acquired)
            .stage_mask(vk::PipelineStageFlags2::COPY)];
        let signal = [
            vk::SemaphoreSubmitInfo::default()
                .semaphore(self.timeline_semaphore())
                .value(signal_value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
            vk::SemaphoreSubmitInfo::default()
                .semaphore(rendered)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
        ];
        let submit = [vk::SubmitInfo2::default()
            .command_buffer_infos(&cbs)
            .wait_semaphore_infos(&wait)
            .signal_semaphore_infos(&signal)];
        s.check("vkQueueSubmit2")?;
        let queue = s.lock_queue(self.queue);
        // SAFETY: the queue is externally synchronized by the lock; the command buffer is
        // executable; the signal value is above every earlier one.
        unsafe { s.raw.queue_submit2(*queue, &submit, vk::Fence::null()) }
            .map_err(conv::map_result)?;
        self.note_signal(signal_value);
        let waits = [rendered];
        let chains = [chain.swapchain];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&chains)
            .image_indices(&indices);
        // SAFETY: as above; the image was acquired and is in the present layout once the
        // semaphore is signalled.
        let presented = unsafe { loader.queue_present(*queue, &info) };
        drop(queue);
        let status = match presented {
            Ok(false) if !suboptimal => SurfaceStatus::Good,
            Ok(_) => SurfaceStatus::Suboptimal,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => SurfaceStatus::OutOfDate,
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => SurfaceStatus::Lost,
            Err(e) => return Err(conv::map_result(e)),
        };
        Ok(PresentOutcome {
            status,
            submitted: true,
        })
    }

    pub(crate) fn destroy_surface_raw(&self, surface: Surface) {
        let s = &self.shared;
        if let Some(chain) = surface.chain {
            self.settle_presents();
            s.drop_chain(chain);
        }
        if let Ok(loader) = s.surface_loader() {
            // SAFETY: its swapchain is gone; nothing else uses it.
            unsafe { loader.destroy_surface(surface.raw, None) };
        }
        s.released();
    }
}
