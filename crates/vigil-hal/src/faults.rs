//! Native-error injection: a backend consults a [`FaultInjector`] before each native call
//! that can fail, so tests (ours and users') can make any call site fail on purpose.
//!
//! The check costs one relaxed atomic load while nothing is armed.

use crate::DeviceError;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// An error a native call site can return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// Host or device memory exhausted.
    OutOfMemory,
    /// The device was lost.
    DeviceLost,
}

impl FaultKind {
    /// The backend error this fault produces.
    pub fn to_error(self) -> DeviceError {
        match self {
            FaultKind::OutOfMemory => DeviceError::OutOfMemory,
            FaultKind::DeviceLost => DeviceError::Lost,
        }
    }
}

/// A named native call site and the errors the native API documents for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The native function's name, e.g. `"vkQueueSubmit2"`.
    pub name: &'static str,
    /// Errors it can return.
    pub errors: &'static [FaultKind],
    /// When the site is reached only on some devices, the condition in words (e.g. the
    /// flush of non-coherent memory); `None` when every device reaches it.
    pub only_if: Option<&'static str>,
}

/// How often an armed fault fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultMode {
    /// The next call at the site fails, then the fault disarms.
    Once,
    /// Every call at the site fails until cleared.
    Always,
}

#[derive(Debug)]
struct Armed {
    site: String,
    kind: FaultKind,
    mode: FaultMode,
    fired: u64,
}

/// Armed faults of one backend device.
#[derive(Debug, Default)]
pub struct FaultInjector {
    any_armed: AtomicBool,
    armed: Mutex<Vec<Armed>>,
    fired_total: AtomicU64,
}

impl FaultInjector {
    /// Arms a fault at `site`. A site already armed is re-armed with the new kind and mode.
    pub fn inject(&self, site: &str, kind: FaultKind, mode: FaultMode) {
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        armed.retain(|a| a.site != site);
        armed.push(Armed {
            site: site.to_owned(),
            kind,
            mode,
            fired: 0,
        });
        self.any_armed.store(true, Ordering::Release);
    }

    /// Disarms every fault.
    pub fn clear(&self) {
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        armed.clear();
        self.any_armed.store(false, Ordering::Release);
    }

    /// How many injected faults have fired in all.
    pub fn fired_total(&self) -> u64 {
        self.fired_total.load(Ordering::Acquire)
    }

    /// Called by a backend just before the native call at `site`: returns the injected
    /// error if a fault is armed there.
    #[inline]
    pub fn check(&self, site: &str) -> Result<(), DeviceError> {
        if !self.any_armed.load(Ordering::Acquire) {
            return Ok(());
        }
        self.check_slow(site)
    }

    #[cold]
    fn check_slow(&self, site: &str) -> Result<(), DeviceError> {
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        let Some(pos) = armed.iter().position(|a| a.site == site) else {
            return Ok(());
        };
        let kind = armed[pos].kind;
        armed[pos].fired += 1;
        if armed[pos].mode == FaultMode::Once {
            armed.remove(pos);
            if armed.is_empty() {
                self.any_armed.store(false, Ordering::Release);
            }
        }
        self.fired_total.fetch_add(1, Ordering::AcqRel);
        Err(kind.to_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_fires_once_and_always_keeps_firing() {
        let f = FaultInjector::default();
        assert_eq!(f.check("a"), Ok(()));
        f.inject("a", FaultKind::OutOfMemory, FaultMode::Once);
        f.inject("b", FaultKind::DeviceLost, FaultMode::Always);
        assert_eq!(f.check("a"), Err(DeviceError::OutOfMemory));
        assert_eq!(f.check("a"), Ok(()));
        assert_eq!(f.check("b"), Err(DeviceError::Lost));
        assert_eq!(f.check("b"), Err(DeviceError::Lost));
        assert_eq!(f.fired_total(), 3);
        f.clear();
        assert_eq!(f.check("b"), Ok(()));
    }
}
