//! Progress inside a submission: breadcrumbs the GPU writes after every pass.
//!
//! Completion serials only move when a whole submission is done, so a legitimate
//! submission that runs longer than the stall bound would look hung. Each pass therefore
//! ends with a breadcrumb: the GPU, once the pass's work is done, writes a fresh value into
//! one host-visible word, and every wait that judges a stall counts a changed word as
//! progress. A stall is then "no pass and no submission finished for the stall bound", so
//! only a single pass (one draw or dispatch stream) longer than the bound is cut off; a
//! device whose passes are that long needs a longer [`crate::DeviceDescriptor::stall_timeout`].

use crate::native::{BufferKind, Hal, Owned, Rec};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use vigil_hal::{Api, BufferUsages, MemoryBarrier, Stages};

/// The word the GPU writes after each pass, and what the host last saw in it.
pub(crate) struct Progress<A: Api> {
    /// The word; taken at teardown, after which encoders that outlive the device record
    /// no breadcrumbs.
    buffer: RwLock<Option<Owned<A, BufferKind>>>,
    /// The value the next breadcrumb writes (never 0, so a fresh word always changes).
    next: AtomicU32,
    /// The value the host saw last.
    seen: AtomicU32,
}

impl<A: Api> Progress<A> {
    /// Creates the word (a 4-byte host-readable buffer).
    pub fn new(hal: &Arc<Hal<A>>) -> vigil_hal::Result<Self> {
        let buffer = hal.create_buffer(&vigil_hal::BufferDescriptor {
            label: "vigil progress",
            size: 4,
            usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
            location: vigil_hal::MemoryLocation::GpuToCpu,
        })?;
        let progress = Progress {
            buffer: RwLock::new(Some(Owned::new(hal, buffer))),
            next: AtomicU32::new(1),
            seen: AtomicU32::new(0),
        };
        let _ = progress.moved(hal);
        Ok(progress)
    }

    /// Records a breadcrumb after work in `stages`: once that work is done the GPU writes
    /// a fresh value, made visible to the host. Later device work does not wait for it
    /// (only later transfers order after the pass).
    pub fn record(&self, raw: &mut Rec<'_, A>, stages: Stages) {
        let guard = self.buffer.read().unwrap_or_else(|p| p.into_inner());
        let Some(buffer) = guard.as_ref() else { return };
        let mut value = self.next.fetch_add(1, Ordering::Relaxed);
        if value == 0 {
            value = self.next.fetch_add(1, Ordering::Relaxed);
        }
        raw.barriers(
            Some(MemoryBarrier {
                src: stages | Stages::TRANSFER,
                dst: Stages::TRANSFER,
            }),
            &[],
            &[],
        );
        raw.fill_buffer(buffer, 0, 4, value);
        raw.barriers(
            Some(MemoryBarrier {
                src: Stages::TRANSFER,
                dst: Stages::HOST,
            }),
            &[],
            &[],
        );
    }

    /// Whether the word changed since the last look (a pass finished somewhere).
    pub fn moved(&self, hal: &Hal<A>) -> bool {
        let guard = self.buffer.read().unwrap_or_else(|p| p.into_inner());
        let Some(buffer) = guard.as_ref() else {
            return false;
        };
        let mut word = [0u8; 4];
        if hal.read_mapped(buffer, 0, &mut word).is_err() {
            return false;
        }
        let value = u32::from_le_bytes(word);
        value != self.seen.swap(value, Ordering::AcqRel)
    }

    /// Releases the word (at teardown, once the GPU is done).
    pub fn release(&self) {
        let taken = self
            .buffer
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        drop(taken);
    }
}
