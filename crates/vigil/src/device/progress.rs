//! Progress inside a submission: breadcrumbs the GPU writes after every pass.
//!
//! Completion serials only move when a whole submission is done, so a legitimate
//! submission that runs longer than the stall bound would look hung. Each pass therefore
//! ends with a breadcrumb: the GPU, once the pass's work is done, writes a fresh value into
//! one host-visible word, and every wait that judges a stall counts a changed word as
//! progress. A stall is then "no pass and no submission finished for the stall bound", so
//! only a single pass (one draw or dispatch stream) longer than the bound is cut off; a
//! device whose passes are that long needs a longer [`crate::DeviceDescriptor::stall_timeout`].

use crate::native::{Hal, Rec};
use std::cell::Cell;
use vigil_hal::{Api, BufferUsages, MemoryBarrier, Stages};

/// The word the GPU writes after each pass, and what the host last saw in it.
pub(crate) struct Progress<A: Api> {
    /// The word (taken at teardown).
    buffer: Option<A::Buffer>,
    /// The value the next breadcrumb writes (never 0, so a fresh word always changes).
    next: Cell<u32>,
    /// The value the host saw last.
    seen: Cell<u32>,
}

impl<A: Api> Progress<A> {
    /// Creates the word (a 4-byte host-readable buffer).
    pub fn new(hal: &Hal<A>) -> vigil_hal::Result<Self> {
        let buffer = hal.create_buffer(&vigil_hal::BufferDescriptor {
            label: "vigil progress",
            size: 4,
            usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
            location: vigil_hal::MemoryLocation::GpuToCpu,
        })?;
        let progress = Progress {
            buffer: Some(buffer),
            next: Cell::new(1),
            seen: Cell::new(0),
        };
        let _ = progress.moved(hal);
        Ok(progress)
    }

    /// Records a breadcrumb after work in `stages`: once that work is done the GPU writes
    /// a fresh value, made visible to the host. Later device work does not wait for it
    /// (only later transfers order after the pass, which copies need anyway).
    pub fn record(&self, raw: &mut Rec<'_, A>, stages: Stages) {
        let Some(buffer) = &self.buffer else { return };
        let value = self.next.get();
        self.next.set(value.wrapping_add(1).max(1));
        raw.memory_barrier(MemoryBarrier {
            src: stages | Stages::TRANSFER,
            dst: Stages::TRANSFER,
        });
        raw.fill_buffer(buffer, 0, 4, value);
        raw.memory_barrier(MemoryBarrier {
            src: Stages::TRANSFER,
            dst: Stages::HOST,
        });
    }

    /// Whether the word changed since the last look (a pass finished somewhere).
    pub fn moved(&self, hal: &Hal<A>) -> bool {
        let Some(buffer) = &self.buffer else {
            return false;
        };
        let mut word = [0u8; 4];
        if hal.read_mapped(buffer, 0, &mut word).is_err() {
            return false;
        }
        let value = u32::from_le_bytes(word);
        value != self.seen.replace(value)
    }

    /// Releases the word (at teardown, once the GPU is done).
    pub fn release(&mut self, hal: &Hal<A>) {
        if let Some(buffer) = self.buffer.take() {
            hal.destroy_buffer(buffer);
        }
    }
}
