//! The demo scene in a resizable window (X11 or Wayland), presented through a vigil surface,
//! with the frame time in the title.
//!
//! ```text
//! cargo run -p vigil-examples --example window
//! cargo run -p vigil-examples --example window -- --frames 120 --screenshot shot.png
//! ```
//!
//! `--xcb` presents through the window's XCB connection instead of its Xlib display (X11
//! only), so both ways onto X11 are exercised.
//!
//! With `--frames N` it renders N frames, resizing the window twice on the way (at a third
//! and at two thirds), saves the last frame it presented to `--screenshot` (read back from
//! the frame before presenting it), prints a report and exits — so it runs without a
//! person, under Xvfb in the tests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use vigil::*;
use vigil_examples::scene::Scene;
use vigil_examples::{err, read_image};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// What the command line asked for.
struct Options {
    frames: Option<u32>,
    screenshot: Option<PathBuf>,
    xcb: bool,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        frames: None,
        screenshot: None,
        xcb: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--frames" => {
                o.frames = Some(
                    args.next()
                        .and_then(|n| n.parse().ok())
                        .ok_or("--frames needs a number")?,
                )
            }
            "--screenshot" => {
                o.screenshot = Some(args.next().ok_or("--screenshot needs a file")?.into())
            }
            "--xcb" => o.xcb = true,
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok(o)
}

/// A winit X11 window seen through XCB: the XCB connection under its Xlib display, and
/// the same window id.
struct XcbWindow {
    window: Arc<Window>,
    connection: std::ptr::NonNull<std::ffi::c_void>,
    id: std::num::NonZeroU32,
}

// SAFETY: the connection pointer is only handed to the surface, and XCB connections may be
// used from any thread.
unsafe impl Send for XcbWindow {}
// SAFETY: as above; nothing here dereferences it.
unsafe impl Sync for XcbWindow {}

impl XcbWindow {
    fn of(window: Arc<Window>) -> Result<XcbWindow, String> {
        use winit::raw_window_handle::{
            HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle,
        };
        let display = window.display_handle().map_err(|e| e.to_string())?.as_raw();
        let handle = window.window_handle().map_err(|e| e.to_string())?.as_raw();
        let (RawDisplayHandle::Xlib(d), RawWindowHandle::Xlib(w)) = (display, handle) else {
            return Err("--xcb needs an X11 window".into());
        };
        let dpy = d.display.ok_or("the Xlib display is null")?;
        let lib = x11_dl::xlib_xcb::Xlib_xcb::open().map_err(|e| e.to_string())?;
        // SAFETY: `dpy` is winit's open display, alive as long as the window.
        let conn = unsafe { (lib.XGetXCBConnection)(dpy.as_ptr().cast()) };
        Ok(XcbWindow {
            window,
            connection: std::ptr::NonNull::new(conn).ok_or("no XCB connection")?,
            id: u32::try_from(w.window)
                .ok()
                .and_then(std::num::NonZeroU32::new)
                .ok_or("window id out of XCB's range")?,
        })
    }
}

impl winit::raw_window_handle::HasWindowHandle for XcbWindow {
    fn window_handle(
        &self,
    ) -> Result<winit::raw_window_handle::WindowHandle<'_>, winit::raw_window_handle::HandleError>
    {
        let raw = winit::raw_window_handle::XcbWindowHandle::new(self.id);
        // SAFETY: the window id names the live window `self.window` holds.
        Ok(unsafe { winit::raw_window_handle::WindowHandle::borrow_raw(raw.into()) })
    }
}

impl winit::raw_window_handle::HasDisplayHandle for XcbWindow {
    fn display_handle(
        &self,
    ) -> Result<winit::raw_window_handle::DisplayHandle<'_>, winit::raw_window_handle::HandleError>
    {
        let _ = &self.window;
        let raw = winit::raw_window_handle::XcbDisplayHandle::new(Some(self.connection), 0);
        // SAFETY: the connection belongs to the display the window holds open.
        Ok(unsafe { winit::raw_window_handle::DisplayHandle::borrow_raw(raw.into()) })
    }
}

/// A window with its surface and a scene of its size.
struct Shown {
    window: Arc<Window>,
    surface: Surface,
    scene: Scene,
    pipeline: RenderPipeline,
    format: TextureFormat,
}

struct App {
    device: Device,
    options: Options,
    shown: Option<Shown>,
    /// Frames presented.
    presented: u32,
    /// Reconfigurations after the first configuration, with the size each chose.
    reconfigured: Vec<[u32; 2]>,
    last: Instant,
    error: Option<String>,
}

const FIRST_SIZE: [u32; 2] = [320, 240];
/// The sizes the unattended run resizes to.
const RESIZES: [[u32; 2]; 2] = [[400, 300], [256, 192]];

impl App {
    fn open(&mut self, el: &ActiveEventLoop) -> Result<(), String> {
        let attrs = Window::default_attributes()
            .with_title("vigil")
            .with_inner_size(PhysicalSize::new(FIRST_SIZE[0], FIRST_SIZE[1]));
        let window = Arc::new(el.create_window(attrs).map_err(|e| e.to_string())?);
        let surface = if self.options.xcb {
            let xcb = Arc::new(XcbWindow::of(window.clone())?);
            self.device.create_surface("window (xcb)", xcb)
        } else {
            self.device.create_surface("window", window.clone())
        }
        .map_err(err)?;
        let caps = self.device.surface_capabilities(surface).map_err(err)?;
        let format = [TextureFormat::Bgra8Unorm, TextureFormat::Rgba8Unorm]
            .into_iter()
            .find(|f| caps.formats.contains(f))
            .ok_or_else(|| format!("no 8-bit UNORM format among {:?}", caps.formats))?;
        let inner = window.inner_size();
        let size = caps.current_extent.unwrap_or([inner.width, inner.height]);
        let size = if size.contains(&0) { FIRST_SIZE } else { size };
        let scene = Scene::new(&self.device, size)?;
        let pipeline = scene.pipeline_for(&self.device, format)?;
        let shown = Shown {
            window,
            surface,
            scene,
            pipeline,
            format,
        };
        self.configure(&shown, size)?;
        shown.window.request_redraw();
        self.shown = Some(shown);
        Ok(())
    }

    fn configure(&self, shown: &Shown, size: [u32; 2]) -> Result<(), String> {
        self.device
            .configure_surface(
                shown.surface,
                &SurfaceConfiguration {
                    format: shown.format,
                    extent: size,
                    present_mode: PresentMode::Fifo,
                    alpha_mode: CompositeAlphaMode::Opaque,
                    usage: TextureUsages::RENDER_ATTACHMENT,
                },
            )
            .map_err(err)
    }

    /// Reconfigures for the window's size now (the application's response to a resize or
    /// an out-of-date frame) and makes a scene of that size. The surface names the size
    /// where the window system fixes it (X11); elsewhere (Wayland) the window's is taken.
    fn resize(&mut self) -> Result<(), String> {
        let Some(shown) = self.shown.as_mut() else {
            return Ok(());
        };
        let caps = self
            .device
            .surface_capabilities(shown.surface)
            .map_err(err)?;
        let inner = shown.window.inner_size();
        let size = caps.current_extent.unwrap_or([inner.width, inner.height]);
        if size == shown.scene.size() || size.contains(&0) {
            return Ok(());
        }
        shown.scene = Scene::new(&self.device, size)?;
        let shown = self.shown.as_ref().ok_or("no window")?;
        self.configure(shown, size)?;
        self.reconfigured.push(size);
        Ok(())
    }

    fn draw(&mut self, el: &ActiveEventLoop) -> Result<(), String> {
        let Some(shown) = self.shown.as_ref() else {
            return Ok(());
        };
        let frame = self
            .device
            .acquire_current_texture(shown.surface)
            .map_err(err)?;
        let texture = match (frame.status, frame.texture) {
            (SurfaceStatus::Good | SurfaceStatus::Suboptimal, Some(t)) => t,
            (SurfaceStatus::OutOfDate, _) => {
                self.resize()?;
                if let Some(s) = &self.shown {
                    s.window.request_redraw();
                }
                return Ok(());
            }
            (status, _) => return Err(format!("no frame: {status:?}")),
        };
        let view = self
            .device
            .create_texture_view(texture, &TextureViewDescriptor::default())
            .map_err(err)?;
        let index = self.presented;
        shown
            .scene
            .render_into(&self.device, index, view, shown.pipeline)?;
        let last = self.options.frames.is_some_and(|n| index + 1 >= n);
        if let (true, Some(path)) = (last, &self.options.screenshot) {
            let size = shown.scene.size();
            let mut image = read_image(&self.device, texture, size)?;
            if shown.format == TextureFormat::Bgra8Unorm {
                for px in image.rgba.chunks_exact_mut(4) {
                    px.swap(0, 2);
                }
            }
            image.save(path)?;
            println!(
                "screenshot: {} ({}x{}, frame {index})",
                path.display(),
                size[0],
                size[1]
            );
        }
        self.device.destroy_texture_view(view).map_err(err)?;
        let status = self.device.present_surface(shown.surface).map_err(err)?;
        if status != SurfaceStatus::Good {
            println!("frame {index}: {status:?}");
        }
        if matches!(status, SurfaceStatus::Good | SurfaceStatus::Suboptimal) {
            self.presented += 1;
        }
        let ms = self.last.elapsed().as_secs_f64() * 1e3;
        self.last = Instant::now();
        shown
            .window
            .set_title(&format!("vigil — {ms:.2} ms per frame"));
        match self.options.frames {
            Some(n) if self.presented >= n => el.exit(),
            Some(n) => {
                // The unattended run resizes the window twice on the way.
                let mut resized_now = false;
                for (k, size) in RESIZES.iter().enumerate() {
                    let at = n * (k as u32 + 1) / 3;
                    if self.presented == at {
                        // Some window systems (Wayland) resize at once and send no event.
                        resized_now |= shown
                            .window
                            .request_inner_size(PhysicalSize::new(size[0], size[1]))
                            .is_some();
                    }
                }
                shown.window.request_redraw();
                if resized_now {
                    self.resize()?;
                }
            }
            None => shown.window.request_redraw(),
        }
        Ok(())
    }

    fn fail(&mut self, el: &ActiveEventLoop, e: String) {
        self.error.get_or_insert(e);
        el.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.shown.is_some() {
            return;
        }
        if let Err(e) = self.open(el) {
            self.fail(el, e);
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let result = match event {
            WindowEvent::CloseRequested => {
                el.exit();
                Ok(())
            }
            WindowEvent::Resized(_) => self.resize(),
            WindowEvent::RedrawRequested => self.draw(el),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.fail(el, e);
        }
    }
}

fn main() -> std::process::ExitCode {
    let run = || -> Result<(), String> {
        let options = parse()?;
        let device = vigil_examples::open_device()?;
        let event_loop = EventLoop::new().map_err(|e| e.to_string())?;
        let mut app = App {
            device,
            options,
            shown: None,
            presented: 0,
            reconfigured: Vec::new(),
            last: Instant::now(),
            error: None,
        };
        event_loop.run_app(&mut app).map_err(|e| e.to_string())?;
        if let Some(e) = app.error.take() {
            return Err(e);
        }
        if let Some(shown) = app.shown.take() {
            app.device.destroy_surface(shown.surface).map_err(err)?;
        }
        println!(
            "window: {} frames presented, reconfigured {} times ({:?}) on {}",
            app.presented,
            app.reconfigured.len(),
            app.reconfigured,
            app.device.adapter_info().name
        );
        match app.device.validation_log() {
            Some(log) => {
                println!("validation: {} message(s)", log.count());
                for m in log.messages() {
                    println!("  {}: {}", m.id, m.text);
                }
            }
            None => println!("validation: off"),
        }
        Ok(())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("window: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
