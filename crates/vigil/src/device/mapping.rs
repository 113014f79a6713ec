//! Async mapping: host access to a buffer range once the GPU is done with it.
//!
//! `map_buffer_async` starts a mapping and returns a handle; `poll_mapping` checks once
//! without blocking; `wait_for_mapping` waits in slices until ready, cancelled, timed out
//! or the device is lost (loss is reported before readiness). Bytes are reachable only
//! once ready, inside a closure (so no borrow outlives the call); closures on several
//! threads may read one mapping at once, a writing closure has it alone, and `unmap` is
//! refused while any runs. `unmap` invalidates the handle and every copy. One mapping per
//! buffer; submitting work that uses a mapped buffer is refused; destroying the buffer
//! closes its mapping.

use super::{BufferObj, Device, MappingObj, WRITING};
use crate::error::{Result, fail};
use crate::handle::{Buffer, BufferMapping, Handle};
use crate::validate;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use vigil_hal::Api;

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

/// Packs a mapping handle into a buffer's mapping word.
fn word(h: BufferMapping) -> u64 {
    u64::from(h.index()) << 32 | u64::from(h.generation())
}

impl<A: Api> Device<A> {
    /// Starts mapping `size` bytes of `buffer` at `offset` (offset a multiple of 8, size of
    /// 4) for `mode`; the mapping is ready once every submission that used the buffer
    /// completed. Queued writes to the buffer are submitted first.
    ///
    /// Differs from WebGPU's `mapAsync`: no callback or promise; poll it
    /// ([`Device::poll_mapping`]) or wait for it, bounded ([`Device::wait_for_mapping`]),
    /// and reach the bytes through [`Device::mapped_bytes`] / `mapped_bytes_mut`.
    pub fn map_buffer_async(
        &self,
        buffer: Buffer,
        mode: MapMode,
        offset: u64,
        size: u64,
    ) -> Result<BufferMapping> {
        const OP: &str = "map_buffer_async";
        self.check_alive(OP)?;
        let b = self.lookup(buffer, OP)?;
        validate::buffer::map(b.facts(), mode == MapMode::Write, offset, size)?;
        if b.queued_writes.load(Ordering::Acquire) {
            // Queued writes land before the mapping sees the bytes.
            self.submit(std::iter::empty())?;
        }
        let id = self.id;
        let ready_serial = self.buffer_last_use(&b);
        let (_, _, m) = self
            .objects
            .mappings
            .insert(|index, generation| MappingObj {
                handle: BufferMapping::from_parts(index, generation, id),
                label: b.label.clone(),
                buffer: b.clone(),
                mode,
                offset,
                size,
                ready_serial,
                access: AtomicU32::new(0),
                shadow: None,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, &b.label, "buffer mapping"))?;
        if b.mapping
            .compare_exchange(0, word(m.handle), Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // Another thread mapped the buffer meanwhile.
            let _ = self.objects.mappings.remove(m.handle, id, OP);
            return Err(fail!(
                MapAlreadyMapped,
                OP,
                &b.label,
                "the buffer is already mapped; unmap it first"
            ));
        }
        self.destroy_epoch.fetch_add(1, Ordering::AcqRel);
        Ok(m.handle)
    }

    fn mapping_state(&self, m: &MappingObj<A>) -> MapState {
        if self.completion.completed() >= m.ready_serial {
            MapState::Ready
        } else {
            MapState::Pending
        }
    }

    /// Checks a mapping once, without blocking. A lost device is reported as an error
    /// before any readiness.
    pub fn poll_mapping(&self, mapping: BufferMapping) -> Result<MapState> {
        const OP: &str = "poll_mapping";
        self.check_alive(OP)?;
        let m = self.lookup(mapping, OP)?;
        let mut q = self.queue.lock();
        self.refresh(&mut q, OP)?;
        Ok(self.mapping_state(&m))
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
            let report = |outcome| MapWaitReport {
                outcome,
                waited: start.elapsed(),
                slices,
            };
            if self.poll_mapping(mapping)? == MapState::Ready {
                return Ok(report(MapWaitOutcome::Ready));
            }
            if should_cancel() {
                return Ok(report(MapWaitOutcome::Cancelled));
            }
            let remaining = params.timeout.saturating_sub(start.elapsed());
            if remaining.is_zero() {
                return Ok(report(MapWaitOutcome::TimedOut));
            }
            let slice = params.slice.max(Duration::from_micros(100)).min(remaining);
            self.wait_next(self.completion.completed(), slice, OP)?;
            slices = u32::saturating_add(slices, 1);
        }
    }

    /// The mapping, checked ready.
    fn ready_mapping(
        &self,
        mapping: BufferMapping,
        op: &'static str,
    ) -> Result<std::sync::Arc<MappingObj<A>>> {
        self.check_alive(op)?;
        let m = self.lookup(mapping, op)?;
        if self.mapping_state(&m) != MapState::Ready {
            return Err(fail!(
                MapNotReady,
                op,
                &m.label,
                "the mapping is not ready; poll or wait for it first"
            ));
        }
        Ok(m)
    }

    /// Calls `f` with the mapped bytes of a ready mapping. Closures on other threads may
    /// read the same mapping meanwhile.
    pub fn mapped_bytes<R>(&self, mapping: BufferMapping, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        const OP: &str = "mapped_bytes";
        let m = self.ready_mapping(mapping, OP)?;
        let entered = m
            .access
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                n.checked_add(1).filter(|&v| v < WRITING)
            });
        if entered.is_err() {
            return Err(fail!(
                MapInUse,
                OP,
                &m.label,
                "a closure is writing the mapping; read it once that returns"
            ));
        }
        let r = match &m.shadow {
            Some(shadow) => Ok(f(&super::lock(shadow))),
            None => self.hal.with_mapped(&m.buffer.raw, m.offset, m.size, f),
        };
        m.access.fetch_sub(1, Ordering::AcqRel);
        r.map_err(|e| self.hal_error(e, OP, &m.label))
    }

    /// Calls `f` with the mapped bytes of a ready write mapping, to fill them. No other
    /// closure reaches the mapping meanwhile.
    pub fn mapped_bytes_mut<R>(
        &self,
        mapping: BufferMapping,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R> {
        const OP: &str = "mapped_bytes_mut";
        let m = self.ready_mapping(mapping, OP)?;
        if m.mode != MapMode::Write {
            return Err(fail!(
                MapReadOnly,
                OP,
                &m.label,
                "the mapping is for reading; map with MapMode::Write to write"
            ));
        }
        if m.access
            .compare_exchange(0, WRITING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(fail!(
                MapInUse,
                OP,
                &m.label,
                "another closure is using the mapping; write it once that returns"
            ));
        }
        let r = match &m.shadow {
            Some(shadow) => Ok(f(&mut super::lock(shadow))),
            None => self.hal.with_mapped_mut(&m.buffer.raw, m.offset, m.size, f),
        };
        m.access.store(0, Ordering::Release);
        r.map_err(|e| self.hal_error(e, OP, &m.label))
    }

    /// Ends a mapping: the handle and every copy go stale; the buffer can be used again.
    /// Refused while a closure is reading or writing it. A mapping made at creation
    /// ([`Device::create_buffer_mapped`]) hands its bytes to the buffer now (directly, or
    /// staged for the next submission as a queue write is); refused within the staging
    /// bounds, it stays mapped.
    pub fn unmap(&self, mapping: BufferMapping) -> Result<()> {
        const OP: &str = "unmap";
        let m = self.lookup(mapping, OP)?;
        if m.access
            .compare_exchange(0, WRITING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(fail!(
                MapInUse,
                OP,
                &m.label,
                "a closure is reading or writing the mapping; unmap it once that returns"
            ));
        }
        if let Some(shadow) = &m.shadow {
            let bytes = super::lock(shadow);
            let b = &m.buffer;
            let landed = if b.host_visible {
                self.hal
                    .write_mapped(&b.raw, 0, &bytes)
                    .map_err(|e| self.hal_error(e, OP, &b.label))
            } else {
                let mut q = self.queue.lock();
                self.queue_write(&mut q, b, 0, &bytes, OP)
            };
            if let Err(e) = landed {
                m.access.store(0, Ordering::Release);
                return Err(e);
            }
        }
        self.close_mapping_of(&m.buffer);
        Ok(())
    }

    /// Creates a buffer that starts mapped for writing, as WebGPU's `mappedAtCreation`:
    /// fill it through [`Device::mapped_bytes_mut`] (it starts zeroed), then [`unmap`]
    /// hands the bytes to the buffer. Any usage may be mapped this way (no `MAP_WRITE`
    /// needed); the size must be a multiple of 4. Until it is unmapped, submissions that
    /// use the buffer are refused.
    ///
    /// [`unmap`]: Device::unmap
    pub fn create_buffer_mapped(
        &self,
        desc: &super::BufferDescriptor<'_>,
    ) -> Result<(Buffer, BufferMapping)> {
        const OP: &str = "create_buffer_mapped";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        crate::validate::ensure!(
            desc.size % 4 == 0,
            MappedAtCreationSize,
            OP,
            desc.label,
            "a buffer mapped at creation is {} bytes; its size must be a multiple of 4",
            desc.size
        );
        let extra = if desc.usage.contains(vigil_hal::BufferUsages::MAP_WRITE) {
            vigil_hal::BufferUsages::empty()
        } else {
            vigil_hal::BufferUsages::COPY_DST
        };
        let (_, b) = self.make_buffer(desc, extra, OP, true, std::sync::Arc::clone)?;
        let id = self.id;
        let made = self
            .objects
            .mappings
            .insert(|index, generation| MappingObj {
                handle: BufferMapping::from_parts(index, generation, id),
                label: b.label.clone(),
                buffer: b.clone(),
                mode: MapMode::Write,
                offset: 0,
                size: desc.size,
                ready_serial: 0,
                access: AtomicU32::new(0),
                shadow: Some(std::sync::Mutex::new(vec![
                    0;
                    usize::try_from(desc.size)
                        .unwrap_or(0)
                ])),
            });
        let Some((_, _, m)) = made else {
            let handle = b.handle;
            drop(b);
            let _ = self.destroy_buffer(handle);
            return Err(super::buffer::registry_full(
                OP,
                desc.label,
                "buffer mapping",
            ));
        };
        b.mapping.store(word(m.handle), Ordering::Release);
        self.destroy_epoch.fetch_add(1, Ordering::AcqRel);
        self.notify_created("buffer", desc.label);
        Ok((b.handle, m.handle))
    }

    /// Closes the mapping of a buffer, if any (unmap, or the buffer's destruction).
    pub(crate) fn close_mapping_of(&self, b: &BufferObj<A>) {
        // Most buffers are never mapped: a load, not a locked swap, finds that.
        if b.mapping.load(Ordering::Acquire) == 0 {
            return;
        }
        let w = b.mapping.swap(0, Ordering::AcqRel);
        if w == 0 {
            return;
        }
        let h =
            BufferMapping::from_parts((w >> 32) as u32, (w & u64::from(u32::MAX)) as u32, self.id);
        let _ = self.objects.mappings.remove(h, self.id, "unmap");
        self.destroy_epoch.fetch_add(1, Ordering::AcqRel);
    }
}
