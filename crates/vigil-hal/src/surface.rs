//! Presentation: surfaces over platform windows, their capabilities and configuration, and
//! what presenting reports.

use crate::texture::{TextureFormat, TextureUsages};

/// A platform window to present to, as raw handles (the caller keeps the window alive for
/// as long as the surface; vigil's safe API holds the window itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowTarget {
    /// An X11 window through Xlib: the `Display*` and the window id.
    Xlib {
        /// The display connection.
        display: *mut std::ffi::c_void,
        /// The window.
        window: u64,
    },
    /// An X11 window through XCB: the `xcb_connection_t*` and the window id.
    Xcb {
        /// The connection.
        connection: *mut std::ffi::c_void,
        /// The window.
        window: u32,
    },
    /// A Wayland surface: the `wl_display*` and the `wl_surface*`.
    Wayland {
        /// The display.
        display: *mut std::ffi::c_void,
        /// The surface.
        surface: *mut std::ffi::c_void,
    },
    /// No window: presents that show nothing (the test backend logs them; Vulkan needs
    /// `VK_EXT_headless_surface`).
    Headless,
}

// SAFETY: the handles are plain identifiers of platform objects; whoever creates a surface
// from them guarantees the objects outlive it and may be used from the device's threads.
unsafe impl Send for WindowTarget {}
// SAFETY: as above; the handles are never dereferenced by this type.
unsafe impl Sync for WindowTarget {}

/// How presented frames are paced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PresentMode {
    /// Wait for vertical blank, queueing frames (always supported).
    #[default]
    Fifo,
    /// As `Fifo`, but a late frame is shown at once.
    FifoRelaxed,
    /// Replace the waiting frame with the newest one.
    Mailbox,
    /// Show at once, tearing allowed.
    Immediate,
}

/// How the window system composes the surface's alpha.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CompositeAlphaMode {
    /// Alpha ignored: opaque.
    #[default]
    Opaque,
    /// Colors are premultiplied by alpha.
    PreMultiplied,
    /// Colors are not premultiplied; the compositor multiplies.
    PostMultiplied,
    /// Whatever the platform does.
    Inherit,
}

/// What a surface supports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SurfaceCapabilities {
    /// Formats frames can have (preferred first).
    pub formats: Vec<TextureFormat>,
    /// Present modes (`Fifo` always).
    pub present_modes: Vec<PresentMode>,
    /// Alpha modes.
    pub alpha_modes: Vec<CompositeAlphaMode>,
    /// The window's size now, when the platform fixes it (`None`: the configuration
    /// decides, within the bounds).
    pub current_extent: Option<[u32; 2]>,
    /// Smallest extent.
    pub min_extent: [u32; 2],
    /// Largest extent.
    pub max_extent: [u32; 2],
    /// Usages a frame texture can have.
    pub usages: TextureUsages,
}

/// How a surface presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceConfiguration {
    /// The frames' format.
    pub format: TextureFormat,
    /// The frames' size.
    pub extent: [u32; 2],
    /// Pacing.
    pub present_mode: PresentMode,
    /// Alpha compositing.
    pub alpha_mode: CompositeAlphaMode,
}

/// The state of a surface, as acquiring or presenting found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfaceStatus {
    /// All well.
    Good,
    /// Presented (or acquired), but the window changed: reconfigure soon.
    Suboptimal,
    /// The window changed: nothing was presented (or acquired); reconfigure.
    OutOfDate,
    /// The window is gone.
    Lost,
    /// The device is lost: no frame is handed out, none presented.
    DeviceLost,
}

/// Where a frame texture was before presenting copies it: the layout and the last
/// accesses the copy must wait for (the device's tracker knows them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresentSource {
    /// Its layout.
    pub layout: crate::texture::TextureLayout,
    /// Stages whose work on it must finish first.
    pub stages: crate::command::Stages,
    /// Writes to make available.
    pub access: crate::command::Access,
    /// Its size.
    pub extent: [u32; 2],
}

/// What a present did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresentOutcome {
    /// The surface's state.
    pub status: SurfaceStatus,
    /// Whether the copy was submitted (and will signal its value).
    pub submitted: bool,
}
