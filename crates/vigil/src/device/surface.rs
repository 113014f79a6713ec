//! Surfaces: presenting frames to a window.
//!
//! A surface hands out one frame at a time (`acquire_current_texture`): a texture of the
//! configured format and size that the application renders to like any other. Presenting
//! waits — bounded by progress, like every wait — for the frame's own submissions to
//! complete, then copies it into the window's next swapchain image on the queue and hands
//! that to the window system; abandoning drops it. Either way the frame's handle goes
//! stale. A frame is handed out only while the window still has the configured size
//! (otherwise the status says `OutOfDate`: reconfigure and acquire again), never on a lost
//! device, and is never bound in a group or destroyed directly.

use super::{Device, SurfaceObj, SurfaceState, TextureObj, lock, queue::InFlight};
use crate::error::{Result, fail};
use crate::handle::{Handle, Surface, Texture};
use crate::native::Owned;
use crate::texture::TextureDescriptor;
use crate::track::{Use, step};
use raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use vigil_hal::Device as _;
use vigil_hal::{
    Access, Api, CompositeAlphaMode, PresentMode, PresentSource, Stages, SurfaceCapabilities,
    SurfaceStatus, TextureFormat, TextureLayout, TextureUsages, WindowTarget,
};

/// How a surface presents (WebGPU's canvas configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceConfiguration {
    /// The frames' format: one of the capabilities' formats.
    pub format: TextureFormat,
    /// The frames' size: the window's, when its capabilities name one.
    pub extent: [u32; 2],
    /// Pacing.
    pub present_mode: PresentMode,
    /// Alpha compositing.
    pub alpha_mode: CompositeAlphaMode,
    /// What the frames are used as (`RENDER_ATTACHMENT` usually; copies and storage where
    /// the capabilities allow).
    pub usage: TextureUsages,
}

/// What acquiring found: the frame, when one was handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceFrame {
    /// `Good` with a texture; `OutOfDate` (reconfigure), `Lost` (the window is gone) or
    /// `DeviceLost` without one.
    pub status: SurfaceStatus,
    /// The frame's texture, until it is presented or abandoned.
    pub texture: Option<Texture>,
}

fn target_of(display: RawDisplayHandle, window: RawWindowHandle) -> Option<WindowTarget> {
    match (display, window) {
        (RawDisplayHandle::Xlib(d), RawWindowHandle::Xlib(w)) => Some(WindowTarget::Xlib {
            display: d.display?.as_ptr(),
            window: w.window,
        }),
        (RawDisplayHandle::Xcb(d), RawWindowHandle::Xcb(w)) => Some(WindowTarget::Xcb {
            connection: d.connection?.as_ptr(),
            window: w.window.get(),
        }),
        (RawDisplayHandle::Wayland(d), RawWindowHandle::Wayland(w)) => {
            Some(WindowTarget::Wayland {
                display: d.display.as_ptr(),
                surface: w.surface.as_ptr(),
            })
        }
        _ => None,
    }
}

impl<A: Api> Device<A> {
    /// Creates a surface presenting to `window` (X11 through Xlib or XCB, or Wayland),
    /// which the surface keeps alive. Refused (`surface.unsupported`) for other window
    /// systems and when the device's queue cannot present to the window.
    pub fn create_surface<W>(&self, label: &str, window: Arc<W>) -> Result<Surface>
    where
        W: HasWindowHandle + HasDisplayHandle + Send + Sync + 'static,
    {
        const OP: &str = "create_surface";
        self.check_alive(OP)?;
        let unsupported = |why: String| fail!(SurfaceUnsupported, OP, label, "{why}");
        let display = window
            .display_handle()
            .map_err(|e| unsupported(format!("the window has no display handle: {e}")))?
            .as_raw();
        let handle = window
            .window_handle()
            .map_err(|e| unsupported(format!("the window has no window handle: {e}")))?
            .as_raw();
        let target = target_of(display, handle).ok_or_else(|| {
            unsupported(format!(
                "windows of this kind ({display:?}) are not presented to: X11 (Xlib, XCB) and Wayland are"
            ))
        })?;
        self.make_surface(label, target, Some(window), OP)
    }

    /// Creates a surface over no window: it is configured, hands out frames and presents
    /// them as a window's surface does, and nothing is shown. On Vulkan its capabilities
    /// name no current size (any extent within their bounds is taken); the test backend's
    /// has the size its tests set. For running a present loop in tests and on machines
    /// without a window system. Refused
    /// (`surface.unsupported`) where the backend has no such surfaces (on Vulkan, a loader
    /// or driver without `VK_EXT_headless_surface`) or the queue cannot present to them.
    pub fn create_headless_surface(&self, label: &str) -> Result<Surface> {
        const OP: &str = "create_headless_surface";
        self.check_alive(OP)?;
        self.make_surface(label, WindowTarget::Headless, None, OP)
    }

    pub(crate) fn make_surface(
        &self,
        label: &str,
        target: WindowTarget,
        window: Option<Arc<dyn std::any::Any + Send + Sync>>,
        op: &'static str,
    ) -> Result<Surface> {
        self.needs_drawing_queue(op, label, "a surface")?;
        let raw = self.hal.create_surface(target).map_err(|e| match e {
            vigil_hal::DeviceError::Unsupported(why) => {
                fail!(SurfaceUnsupported, op, label, "{why}")
            }
            e => self.hal_error(e, op, label),
        })?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .surfaces
            .insert(|index, generation| SurfaceObj {
                handle: Surface::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                state: std::sync::Mutex::new(SurfaceState {
                    raw,
                    config: None,
                    frame: None,
                    last_present: 0,
                }),
                frame_done: std::sync::Condvar::new(),
                _window: window,
            })
            .ok_or_else(|| super::buffer::registry_full(op, label, "surface"))?;
        self.notify_created("surface", label);
        Ok(obj.handle)
    }

    /// What `surface` supports now: formats, present and alpha modes, the window's size
    /// and the bounds on it, frame usages.
    pub fn surface_capabilities(&self, surface: Surface) -> Result<SurfaceCapabilities> {
        const OP: &str = "surface_capabilities";
        let obj = self.lookup(surface, OP)?;
        let st = lock(&obj.state);
        self.hal
            .surface_capabilities(&st.raw)
            .map_err(|e| self.hal_error(e, OP, &obj.label))
    }

    /// Configures how `surface` presents, replacing any earlier configuration (what an
    /// application does when its window is resized). Waits for a frame out to be
    /// presented or abandoned, and for the work submitted so far (the last present among
    /// it) to complete, both bounded by progress; the window system's presents then finish
    /// before the old swapchain goes.
    pub fn configure_surface(&self, surface: Surface, config: &SurfaceConfiguration) -> Result<()> {
        const OP: &str = "configure_surface";
        self.check_alive(OP)?;
        let obj = self.lookup(surface, OP)?;
        let mut st = self.without_frame(&obj, OP)?;
        let caps = self
            .hal
            .surface_capabilities(&st.raw)
            .map_err(|e| self.hal_error(e, OP, &obj.label))?;
        crate::validate::texture::surface_configuration(&obj.label, config, &caps)?;
        self.wait_for_submitted(OP)?;
        self.hal
            .configure_surface(
                st.raw.get_mut(),
                &vigil_hal::SurfaceConfiguration {
                    format: config.format,
                    extent: config.extent,
                    present_mode: config.present_mode,
                    alpha_mode: config.alpha_mode,
                },
            )
            .map_err(|e| self.hal_error(e, OP, &obj.label))?;
        st.config = Some(*config);
        Ok(())
    }

    /// The surface's state with no frame out: waits (within the stall bound) for another
    /// thread to present or abandon the frame out, then refuses.
    fn without_frame<'s>(
        &self,
        obj: &'s SurfaceObj<A>,
        op: &'static str,
    ) -> Result<std::sync::MutexGuard<'s, SurfaceState<A>>> {
        let bound = self.timeouts().stall;
        let start = Instant::now();
        let mut st = lock(&obj.state);
        while st.frame.is_some() {
            let left = bound.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(fail!(
                    SurfaceFrameOutstanding,
                    op,
                    &obj.label,
                    "a frame is out (acquired, neither presented nor abandoned) and stayed out for {bound:?}"
                ));
            }
            st = obj
                .frame_done
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        Ok(st)
    }

    /// Waits, bounded by progress, for everything submitted so far to complete: before a
    /// swapchain goes, so that the backend can let the window system's presents finish
    /// (a present's own wait has no completion signal; the queue going idle is what tells
    /// it, and that wait is bounded only once nothing but presents is left on the queue).
    fn wait_for_submitted(&self, op: &'static str) -> Result<()> {
        let last = self.last_submitted.load(Ordering::Acquire);
        if last == 0 {
            return Ok(());
        }
        let stall = self.timeouts().stall;
        self.wait_progressing(last, stall, super::WaitSite::Present, op)
    }

    /// Waits, bounded by progress, for the surface's last present to complete.
    fn wait_for_present(&self, st: &SurfaceState<A>, op: &'static str) -> Result<()> {
        if st.last_present == 0 {
            return Ok(());
        }
        let stall = self.timeouts().stall;
        self.wait_progressing(st.last_present, stall, super::WaitSite::Present, op)
    }

    /// Acquires the texture for the next frame of `surface`: a texture of the configured
    /// format, size and usages (plus `COPY_SRC`), whose contents start zeroed. One frame
    /// is out at a time: while one is, this waits (within the stall bound) for it to be
    /// presented or abandoned, then refuses (`surface.frame-outstanding`). No frame is
    /// handed out when the window's size is no longer the configured one (`OutOfDate`:
    /// reconfigure and acquire again) or the device is lost (`DeviceLost`).
    pub fn acquire_current_texture(&self, surface: Surface) -> Result<SurfaceFrame> {
        const OP: &str = "acquire_current_texture";
        let none = |status| SurfaceFrame {
            status,
            texture: None,
        };
        let obj = self.lookup(surface, OP)?;
        if self.completion.is_lost() {
            return Ok(none(SurfaceStatus::DeviceLost));
        }
        let config = lock(&obj.state).config.ok_or_else(|| {
            fail!(
                SurfaceNotConfigured,
                OP,
                &obj.label,
                "configure the surface before acquiring a frame"
            )
        })?;
        let mut st = self.without_frame(&obj, OP)?;
        let caps = self
            .hal
            .surface_capabilities(&st.raw)
            .map_err(|e| self.hal_error(e, OP, &obj.label))?;
        if caps.current_extent.is_some_and(|e| e != config.extent) {
            return Ok(none(SurfaceStatus::OutOfDate));
        }
        let frame = self.make_texture(
            &TextureDescriptor {
                label: &format!("{} frame", obj.label),
                size: config.extent,
                format: config.format,
                usage: config.usage | TextureUsages::COPY_SRC,
                ..TextureDescriptor::default()
            },
            true,
            OP,
        )?;
        let handle = frame.handle;
        st.frame = Some(frame);
        Ok(SurfaceFrame {
            status: SurfaceStatus::Good,
            texture: Some(handle),
        })
    }

    /// Takes the frame out of `st`, making its handle stale.
    fn end_frame(
        &self,
        obj: &SurfaceObj<A>,
        st: &mut SurfaceState<A>,
        op: &'static str,
    ) -> Result<Arc<TextureObj<A>>> {
        let frame = st.frame.take().ok_or_else(|| {
            fail!(
                SurfaceNoFrame,
                op,
                &obj.label,
                "no frame is out: acquire one first (each is presented or abandoned once)"
            )
        })?;
        // Later uses of the handle are refused, saying why.
        drop(self.objects.textures.remove_because(
            frame.handle,
            self.id,
            op,
            crate::rules::Rule::SurfaceNoFrame,
            "it was a surface's frame, and the frame was presented or abandoned",
        ));
        obj.frame_done.notify_all();
        Ok(frame)
    }

    /// Drops the frame out without presenting it (a frame the application decided not to
    /// show); its handle goes stale.
    pub fn abandon_current_texture(&self, surface: Surface) -> Result<()> {
        const OP: &str = "abandon_current_texture";
        let obj = self.lookup(surface, OP)?;
        let mut st = lock(&obj.state);
        self.end_frame(&obj, &mut st, OP).map(drop)
    }

    /// Presents the frame out: waits — bounded by progress — for the submissions that
    /// used it to complete, then copies it into the window's next image and hands that to
    /// the window system. The frame's handle goes stale. Reports the surface's state:
    /// `OutOfDate` or `Lost` (nothing shown; reconfigure), `Suboptimal` (shown; reconfigure
    /// soon), `DeviceLost` (the device is lost, or was declared lost while waiting: the
    /// frame is abandoned).
    pub fn present_surface(&self, surface: Surface) -> Result<SurfaceStatus> {
        const OP: &str = "present_surface";
        let obj = self.lookup(surface, OP)?;
        let mut st = lock(&obj.state);
        let frame = self.end_frame(&obj, &mut st, OP)?;
        if self.completion.is_lost() {
            return Ok(SurfaceStatus::DeviceLost);
        }
        let stall = self.timeouts().stall;
        let last = frame.last_use.load(Ordering::Acquire);
        let waited = self
            .wait_progressing(last, stall, super::WaitSite::Present, OP)
            .and_then(|()| self.wait_for_present(&st, OP));
        if let Err(e) = waited {
            return if self.completion.is_lost() {
                Ok(SurfaceStatus::DeviceLost)
            } else {
                Err(e)
            };
        }
        // The copy reads the frame: from where its last use left it. (The queue first,
        // then the texture's state: the order submissions take them in.)
        let mut q = self.queue.lock();
        let mut parts = lock(&frame.state);
        let before = parts
            .parts
            .first()
            .copied()
            .unwrap_or(crate::track::State::fresh(TextureLayout::Undefined));
        let mut after = before;
        let read = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_READ,
            layout: TextureLayout::TransferSrc,
        };
        let t = step(&mut after, read);
        let from = PresentSource {
            layout: before.layout,
            stages: t.map_or(Stages::empty(), |t| t.src),
            access: t.map_or(Access::empty(), |t| t.src_access),
            extent: frame.desc.size,
        };
        let serial = self
            .last_submitted
            .load(Ordering::Acquire)
            .saturating_add(1);
        let out = self
            .hal
            .present(st.raw.get_mut(), &frame.raw, from, serial)
            .map_err(|e| self.hal_error(e, OP, &obj.label))?;
        if out.submitted {
            self.last_submitted.store(serial, Ordering::Release);
            self.seams.note_submitted(serial);
            frame.last_use.store(serial, Ordering::Release);
            if let Some(p) = parts.parts.first_mut() {
                *p = after;
            }
            st.last_present = serial;
            // The record of the copy keeps the frame alive until it completes.
            let mut used = crate::encoder::Used::default();
            let h = frame.handle;
            used.textures
                .insert(h.index(), h.generation(), frame.clone());
            q.in_flight.push_back(InFlight {
                serial,
                command_buffers: 1,
                pools: Vec::new(),
                staging: Vec::new(),
                staging_bytes: 0,
                used: vec![Box::new(used)],
                uploads: Default::default(),
                _after: Vec::new(),
            });
            self.completion
                .command_buffers_in_flight
                .fetch_add(1, Ordering::AcqRel);
        }
        Ok(out.status)
    }

    /// Destroys a surface: a frame out is abandoned, and the work submitted so far (its
    /// last present among it) completes first (bounded by progress).
    pub fn destroy_surface(&self, surface: Surface) -> Result<()> {
        const OP: &str = "destroy_surface";
        let obj = self.remove(surface, OP)?;
        let mut st = lock(&obj.state);
        if st.frame.is_some() {
            drop(self.end_frame(&obj, &mut st, OP));
        }
        // A wait that gives up declares the device lost, after which releasing the native
        // surface is safe too.
        let _ = self.wait_for_submitted(OP);
        drop(st);
        drop(obj);
        Ok(())
    }
}

impl Device<vigil_hal::test_backend::TestApi> {
    /// A surface of the test backend, presenting into its command log; its window's size
    /// is the test backend's (`test_backend().set_surface_extent`).
    pub fn create_test_surface(&self, label: &str) -> Result<Surface> {
        self.make_surface(label, WindowTarget::Headless, None, "create_surface")
    }
}
