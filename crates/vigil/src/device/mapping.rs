//! Async mapping: host access to a buffer range once the GPU is done with it.
//!
//! `map_buffer_async` starts a mapping and returns a handle; `poll_mapping` checks once
//! without blocking; `wait_for_mapping` waits in slices until ready, cancelled, timed out
//! or the device is lost (loss is reported before readiness). Bytes are reachable only
//! once ready, inside a closure (so no borrow outlives the call). `unmap` invalidates the
//! handle and every copy. One mapping per buffer; submitting work that uses a mapped
//! buffer is refused; destroying the buffer closes its mapping.

use super::{Device, DeviceState};
use crate::error::{Result, fail};
use crate::handle::{Buffer, BufferMapping, Handle};
use std::time::{Duration, Instant};
use vigil_hal::{Api, BufferUsages};

/// Host access wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapMode {
    /// Read results (needs `MAP_READ`).
    Read,
    /// Write data for later GPU work (needs `MAP_WRITE`).
    Write,
}

/// Where a mapping stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapState {
    /// Waiting for earlier GPU work on the buffer.
    Pending,
    /// The bytes are reachable.
    Ready,
}

/// How to wait for a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapWaitParams {
    /// Give up after this long in all.
    pub timeout: Duration,
    /// Look for cancellation at least this often.
    pub slice: Duration,
}

impl Default for MapWaitParams {
    fn default() -> Self {
        MapWaitParams {
            timeout: Duration::from_secs(5),
            slice: Duration::from_millis(10),
        }
    }
}

/// How a wait for a mapping ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapWaitOutcome {
    /// The mapping is ready.
    Ready,
    /// `should_cancel` returned true.
    Cancelled,
    /// The timeout ran out first.
    TimedOut,
}

/// What a wait for a mapping did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapWaitReport {
    /// How it ended.
    pub outcome: MapWaitOutcome,
    /// How long it waited.
    pub waited: Duration,
    /// Slices it waited in.
    pub slices: u32,
}

/// An open mapping.
#[derive(Debug)]
pub(crate) struct MappingObj {
    pub buffer: (u32, u32),
    pub mode: MapMode,
    pub offset: u64,
    pub size: u64,
    pub ready_serial: u64,
}

impl<A: Api> Device<A> {
    /// Starts mapping `size` bytes of `buffer` at `offset` (offset a multiple of 8, size of
    /// 4) for `mode`; the mapping is ready once every submission that used the buffer
    /// completed. Queued writes to the buffer are submitted first.
    pub fn map_buffer_async(
        &self,
        buffer: Buffer,
        mode: MapMode,
        offset: u64,
        size: u64,
    ) -> Result<BufferMapping> {
        const OP: &str = "map_buffer_async";
        self.check_alive(OP)?;
        let queued = {
            let st = self.state(OP)?;
            let b = st.buffers.value(buffer, self.id, OP)?;
            let needed = match mode {
                MapMode::Read => BufferUsages::MAP_READ,
                MapMode::Write => BufferUsages::MAP_WRITE,
            };
            if !b.usage.contains(needed) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &b.label,
                    "mapping for {mode:?} needs {needed:?} usage; the buffer has {:?}",
                    b.usage
                ));
            }
            if offset % 8 != 0 || size % 4 != 0 {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &b.label,
                    "offset {offset} must be a multiple of 8 and size {size} of 4"
                ));
            }
            super::check_range(OP, &b.label, "mapped", offset, size, b.size)?;
            if b.mapping.is_some() {
                return Err(fail!(
                    InvalidState,
                    OP,
                    &b.label,
                    "the buffer is already mapped; unmap it first"
                ));
            }
            b.queued_writes
        };
        if queued {
            // Queued writes land before the mapping sees the bytes.
            self.submit(std::iter::empty())?;
        }
        let mut st = self.state(OP)?;
        let ready_serial = st.buffers.get(buffer, self.id, OP)?.last_use;
        let (i, g) = st.mappings.insert(MappingObj {
            buffer: (buffer.index(), buffer.generation()),
            mode,
            offset,
            size,
            ready_serial,
        });
        if let Some(b) = st
            .buffers
            .slot_mut(buffer.index())
            .and_then(|s| s.value.as_mut())
        {
            b.mapping = Some(i);
            st.destroy_epoch = st.destroy_epoch.wrapping_add(1);
        }
        Ok(BufferMapping::from_parts(i, g, self.id))
    }

    fn mapping_state(
        &self,
        st: &DeviceState<A>,
        mapping: BufferMapping,
        op: &'static str,
    ) -> Result<MapState> {
        let m = st.mappings.value(mapping, self.id, op)?;
        Ok(if self.completion.completed() >= m.ready_serial {
            MapState::Ready
        } else {
            MapState::Pending
        })
    }

    /// Checks a mapping once, without blocking. A lost device is reported as an error
    /// before any readiness.
    pub fn poll_mapping(&self, mapping: BufferMapping) -> Result<MapState> {
        const OP: &str = "poll_mapping";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        st.mappings.get(mapping, self.id, OP)?;
        self.refresh(&mut st, OP)?;
        self.mapping_state(&st, mapping, OP)
    }

    /// Waits for a mapping in slices of `params.slice`, until it is ready, `should_cancel`
    /// returns true, `params.timeout` passes, or the device is lost (an error, reported
    /// before readiness).
    pub fn wait_for_mapping(
        &self,
        mapping: BufferMapping,
        params: &MapWaitParams,
        should_cancel: &dyn Fn() -> bool,
    ) -> Result<MapWaitReport> {
        const OP: &str = "wait_for_mapping";
        let start = Instant::now();
        let mut slices = 0;
        loop {
            if self.completion.is_lost() {
                return Err(self.lost_error(OP));
            }
            if self.poll_mapping(mapping)? == MapState::Ready {
                return Ok(MapWaitReport {
                    outcome: MapWaitOutcome::Ready,
                    waited: start.elapsed(),
                    slices,
                });
            }
            if should_cancel() {
                return Ok(MapWaitReport {
                    outcome: MapWaitOutcome::Cancelled,
                    waited: start.elapsed(),
                    slices,
                });
            }
            let remaining = params.timeout.saturating_sub(start.elapsed());
            if remaining.is_zero() {
                return Ok(MapWaitReport {
                    outcome: MapWaitOutcome::TimedOut,
                    waited: start.elapsed(),
                    slices,
                });
            }
            let slice = params.slice.max(Duration::from_micros(100)).min(remaining);
            self.wait_next(self.completion.completed(), slice, OP)?;
            slices = u32::saturating_add(slices, 1);
        }
    }

    /// Calls `f` with the mapped bytes of a ready mapping.
    pub fn mapped_bytes<R>(&self, mapping: BufferMapping, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        const OP: &str = "mapped_bytes";
        self.check_alive(OP)?;
        let st = self.state(OP)?;
        if self.mapping_state(&st, mapping, OP)? != MapState::Ready {
            return Err(fail!(
                InvalidState,
                OP,
                &self.label,
                "the mapping is not ready; poll or wait for it first"
            ));
        }
        let m = st.mappings.value(mapping, self.id, OP)?;
        let b = st
            .buffers
            .slot(m.buffer.0)
            .and_then(|s| s.value.as_ref())
            .ok_or_else(|| fail!(InvalidHandle, OP, &self.label, "the mapped buffer is gone"))?;
        self.hal
            .with_mapped(&b.raw, m.offset, m.size, f)
            .map_err(|e| self.hal_error(e, OP, &b.label))
    }

    /// Calls `f` with the mapped bytes of a ready write mapping, to fill them.
    pub fn mapped_bytes_mut<R>(
        &self,
        mapping: BufferMapping,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R> {
        const OP: &str = "mapped_bytes_mut";
        self.check_alive(OP)?;
        let st = self.state(OP)?;
        if self.mapping_state(&st, mapping, OP)? != MapState::Ready {
            return Err(fail!(
                InvalidState,
                OP,
                &self.label,
                "the mapping is not ready; poll or wait for it first"
            ));
        }
        let m = st.mappings.value(mapping, self.id, OP)?;
        if m.mode != MapMode::Write {
            return Err(fail!(
                InvalidState,
                OP,
                &self.label,
                "the mapping is for reading; map with MapMode::Write to write"
            ));
        }
        let b = st
            .buffers
            .slot(m.buffer.0)
            .and_then(|s| s.value.as_ref())
            .ok_or_else(|| fail!(InvalidHandle, OP, &self.label, "the mapped buffer is gone"))?;
        self.hal
            .with_mapped_mut(&b.raw, m.offset, m.size, f)
            .map_err(|e| self.hal_error(e, OP, &b.label))
    }

    /// Ends a mapping: the handle and every copy go stale; the buffer can be used again.
    pub fn unmap(&self, mapping: BufferMapping) -> Result<()> {
        const OP: &str = "unmap";
        let mut st = self.state(OP)?;
        let buffer = st.mappings.value(mapping, self.id, OP)?.buffer.0;
        self.close_mapping_of(&mut st, buffer);
        Ok(())
    }

    /// Closes the mapping of buffer slot `index`, if any (unmap, or the buffer's destruction).
    pub(crate) fn close_mapping_of(&self, st: &mut DeviceState<A>, index: u32) {
        let mapping = st
            .buffers
            .slot_mut(index)
            .and_then(|s| s.value.as_mut())
            .and_then(|b| b.mapping.take());
        if let Some(m) = mapping {
            st.mappings.retire(m);
            st.mappings.release(m);
        }
    }
}
