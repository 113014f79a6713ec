//! The device observer: one installable listener told of every accepted submission,
//! queue write and resource creation (for profilers, leak trackers, frame capture).

use crate::device::Device;
use crate::error::{Result, fail};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use vigil_hal::Api;

/// An accepted submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmissionInfo {
    /// Its serial.
    pub serial: u64,
    /// Command buffers it held (the device's own upload buffer not counted).
    pub command_buffers: usize,
    /// Draws recorded in them (a draw whose count the GPU reads counts as its most).
    pub draws: u64,
    /// Dispatches recorded in them.
    pub dispatches: u64,
}

/// What a queue write went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteTarget {
    /// A buffer.
    Buffer(crate::Buffer),
    /// A texture.
    Texture(crate::Texture),
}

/// An accepted queue write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteInfo {
    /// Destination.
    pub target: WriteTarget,
    /// Bytes accepted.
    pub bytes: u64,
    /// Whether it was staged for the next submission (rather than written at once).
    pub staged: bool,
}

/// A created resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreationInfo {
    /// Kind ("buffer", "texture", …).
    pub kind: &'static str,
    /// Its label.
    pub label: String,
}

/// Told of device activity. Called on the thread that made the call, after the call's work
/// is done and with no lock of the device held; it may call the device again.
pub trait DeviceObserver: Send + Sync {
    /// A submission was accepted.
    fn submitted(&self, _info: &SubmissionInfo) {}
    /// A queue write was accepted.
    fn wrote(&self, _info: &WriteInfo) {}
    /// A resource was created.
    fn created(&self, _info: &CreationInfo) {}
}

impl<A: Api> Device<A> {
    /// Installs `observer`. Refused while a different observer is installed.
    pub fn install_observer(&self, observer: Arc<dyn DeviceObserver>) -> Result<()> {
        let mut slot = self.observer.write().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(current) if !Arc::ptr_eq(current, &observer) => Err(fail!(
                ObserverInstalled,
                "install_observer",
                &self.label,
                "another observer is installed; remove it first"
            )),
            _ => {
                *slot = Some(observer);
                self.observed.store(true, Ordering::Release);
                Ok(())
            }
        }
    }

    /// Removes `observer` if it is the one installed; returns whether it was.
    pub fn remove_observer(&self, observer: &Arc<dyn DeviceObserver>) -> bool {
        let mut slot = self.observer.write().unwrap_or_else(|p| p.into_inner());
        if slot
            .as_ref()
            .is_some_and(|current| Arc::ptr_eq(current, observer))
        {
            *slot = None;
            self.observed.store(false, Ordering::Release);
            true
        } else {
            false
        }
    }

    /// Calls the observer, if any, with no device state borrowed.
    #[inline(always)]
    pub(crate) fn notify(&self, f: impl FnOnce(&dyn DeviceObserver)) {
        // The common case, no observer, is one load where the call is; the rest is out of
        // line.
        if self.observed.load(Ordering::Acquire) {
            self.notify_installed(f);
        }
    }

    /// [`Device::notify`] with an observer installed (or being removed).
    #[inline(never)]
    fn notify_installed(&self, f: impl FnOnce(&dyn DeviceObserver)) {
        let observer = self
            .observer
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(o) = observer {
            f(o.as_ref());
        }
    }

    /// Tells the observer a queue write was accepted.
    #[inline]
    pub(crate) fn notify_wrote(&self, target: WriteTarget, bytes: u64, staged: bool) {
        self.notify(|o| {
            o.wrote(&WriteInfo {
                target,
                bytes,
                staged,
            })
        });
    }

    /// Tells the observer a resource was created.
    pub(crate) fn notify_created(&self, kind: &'static str, label: &str) {
        self.notify(|o| {
            o.created(&CreationInfo {
                kind,
                label: label.to_owned(),
            })
        });
    }
}
