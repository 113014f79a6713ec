//! Buffers: creation, destruction, queue writes and readback.

use super::{BufferObj, Device, WaitSite};
use crate::error::{Error, Result, fail};
use crate::handle::{Buffer, Handle};
use crate::native::Owned;
use crate::validate;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use vigil_hal::{Api, BufferUsages, MemoryLocation};

/// How to create a buffer.
///
/// Differs from WebGPU's `GPUBufferDescriptor`: no `mappedAtCreation` flag; use
/// [`Device::create_buffer_mapped`] (or [`Device::create_buffer_init`] for contents you
/// already have).
#[derive(Clone, Debug, Default)]
pub struct BufferDescriptor<'a> {
    /// Label, used in error messages and as the native debug name.
    pub label: &'a str,
    /// Size in bytes (non-zero, at most `max_buffer_size`).
    pub size: u64,
    /// Allowed uses. `MAP_READ` combines only with `COPY_DST`, `MAP_WRITE` only with
    /// `COPY_SRC`.
    pub usage: BufferUsages,
}

/// How to create a buffer with contents (wgpu's `util::BufferInitDescriptor`).
#[derive(Clone, Debug, Default)]
pub struct BufferInitDescriptor<'a> {
    /// Label, used in error messages and as the native debug name.
    pub label: &'a str,
    /// The buffer's first contents. Its size is their length rounded up to a multiple of
    /// 4 (the padding is zero), as in wgpu; it may not be empty.
    pub contents: &'a [u8],
    /// Allowed uses. `COPY_DST` is not needed for the contents to arrive.
    pub usage: BufferUsages,
}

/// The refusal for a registry with no free slot.
#[cold]
pub(crate) fn registry_full(op: &'static str, label: &str, kind: &str) -> Error {
    fail!(
        DeviceObjects,
        op,
        label,
        "the device holds as many {kind}s as it can; destroy some first"
    )
}

impl<A: Api> Device<A> {
    /// Creates a buffer. Its contents start zeroed.
    pub fn create_buffer(&self, desc: &BufferDescriptor<'_>) -> Result<Buffer> {
        const OP: &str = "create_buffer";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        let (handle, ()) = self.make_buffer(desc, BufferUsages::empty(), OP, true, |_| ())?;
        self.notify_created("buffer", desc.label);
        Ok(handle)
    }

    /// Creates a buffer holding `desc.contents` (zero-padded to a multiple of 4 bytes), as
    /// wgpu's `create_buffer_init` does. The contents are written at once into host-visible
    /// memory, or staged and copied in front of the next submission (as a queue write is,
    /// within the same bounds); the buffer needs no `COPY_DST` for that. Refused, nothing
    /// stays behind.
    pub fn create_buffer_init(&self, desc: &BufferInitDescriptor<'_>) -> Result<Buffer> {
        const OP: &str = "create_buffer_init";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        let len = desc.contents.len() as u64;
        let size = len.checked_next_multiple_of(4).unwrap_or(u64::MAX);
        let plain = BufferDescriptor {
            label: desc.label,
            size,
            usage: desc.usage,
        };
        // The contents arrive by a copy when the memory is not host-visible; a MAP_WRITE
        // buffer is always host-visible (and may not carry COPY_DST).
        let extra = if desc.usage.contains(BufferUsages::MAP_WRITE) {
            BufferUsages::empty()
        } else {
            BufferUsages::COPY_DST
        };
        let (_, obj) = self.make_buffer(&plain, extra, OP, false, std::sync::Arc::clone)?;
        let mut padded = desc.contents.to_vec();
        padded.resize(usize::try_from(size).unwrap_or(0), 0);
        let written = if obj.host_visible {
            self.hal
                .write_mapped(&obj.raw, 0, &padded)
                .map_err(|e| self.hal_error(e, OP, desc.label))
        } else {
            let mut q = self.queue.lock();
            self.queue_write(&mut q, &obj, 0, &padded, OP)
        };
        if let Err(e) = written {
            // Nothing used it yet: take it out again, so the refused call leaves nothing.
            let handle = obj.handle;
            drop(obj);
            let _ = self.destroy_buffer(handle);
            return Err(e);
        }
        self.notify_created("buffer", desc.label);
        Ok(obj.handle)
    }

    /// Validates `desc`, creates the native buffer (with `extra` native usages beyond the
    /// ones the buffer reports) and registers it. `zero` fills host-visible memory with
    /// zeros (a caller writing every byte itself skips it). Returns the handle and what
    /// `keep` took of the object (a reference, for a caller that goes on using it; nothing,
    /// for one that needs the handle alone).
    pub(crate) fn make_buffer<R>(
        &self,
        desc: &BufferDescriptor<'_>,
        extra: BufferUsages,
        op: &'static str,
        zero: bool,
        keep: impl FnOnce(&std::sync::Arc<BufferObj<A>>) -> R,
    ) -> Result<(Buffer, R)> {
        self.check_alive(op)?;
        let native_size = validate::buffer::descriptor(desc, self.limits.max_buffer_size)?;
        validate::accel::input_usage(desc.label, desc.usage, self.features)?;
        let location = if desc.usage.contains(BufferUsages::MAP_READ) {
            MemoryLocation::GpuToCpu
        } else if desc.usage.contains(BufferUsages::MAP_WRITE) {
            MemoryLocation::CpuToGpu
        } else {
            MemoryLocation::GpuOnly
        };
        let raw = self
            .hal
            .create_buffer(&vigil_hal::BufferDescriptor {
                label: desc.label,
                size: native_size,
                usage: desc.usage
                    | extra
                    | check_reads(desc.usage)
                    | self.kernel_copy_usage(desc.usage),
                location,
            })
            .map_err(|e| self.hal_error(e, op, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let host_visible = self.hal.buffer_host_visible(&raw);
        if host_visible && zero {
            // Fresh memory is not guaranteed zero; make it so (WebGPU's rule, and ours).
            self.hal
                .zero_mapped(&raw, native_size)
                .map_err(|e| self.hal_error(e, op, desc.label))?;
        }
        let id = self.id;
        let (index, generation, kept) = self
            .objects
            .buffers
            .insert_then(
                |index, generation| BufferObj {
                    raw,
                    handle: Buffer::from_parts(index, generation, id),
                    label: crate::label::Label::new(desc.label),
                    size: desc.size,
                    usage: desc.usage,
                    host_visible,
                    queued_writes: AtomicBool::new(false),
                    mapping: AtomicU64::new(0),
                },
                keep,
            )
            .ok_or_else(|| registry_full(op, desc.label, "buffer"))?;
        Ok((Buffer::from_parts(index, generation, id), kept))
    }

    /// Destroys a buffer: the handle (and every copy) is stale at once; the memory goes
    /// when nothing uses it any more (bind groups naming it, encoders and command buffers
    /// that recorded it, submissions in flight). Unsubmitted queue writes to it are
    /// dropped; an open mapping is closed.
    pub fn destroy_buffer(&self, buffer: Buffer) -> Result<()> {
        const OP: &str = "destroy_buffer";
        let obj = self.remove(buffer, OP)?;
        self.close_mapping_of(&obj);
        // Only a buffer that ever had writes staged can have some waiting (the flag is set
        // under the queue lock when one is staged); the others skip the lock.
        if obj.queued_writes.load(Ordering::Acquire) {
            let mut q = self.queue.lock();
            self.drop_queued_writes_to(&mut q, Some(&obj), None);
        }
        drop(obj);
        Ok(())
    }

    /// Size in bytes the buffer was created with.
    pub fn buffer_size(&self, buffer: Buffer) -> Result<u64> {
        Ok(self.lookup(buffer, "buffer_size")?.size)
    }

    /// Usage the buffer was created with.
    pub fn buffer_usage(&self, buffer: Buffer) -> Result<BufferUsages> {
        Ok(self.lookup(buffer, "buffer_usage")?.usage)
    }

    /// Writes `data` into `buffer` at `offset`, ordered before every later submission.
    ///
    /// A buffer no pending submission uses, in host-visible memory, is written at once;
    /// otherwise the bytes are staged and copied at the start of the next submission.
    /// `offset` and `data.len()` must be multiples of 4; the buffer needs `COPY_DST`.
    ///
    /// Differs from WebGPU's `queue.writeBuffer`: on the device (one queue), and bounded:
    /// past [`crate::MAX_QUEUED_WRITES`] separate waiting write regions or the staging
    /// budget the call is refused (`LimitExceeded`) instead of growing without limit;
    /// submit and write on. A write that continues the last one, in the same buffer, joins
    /// its region (a run of sequential writes is one region and one copy), and a repeat of
    /// the range of the latest waiting write to a buffer replaces its bytes. Once a write
    /// has continued a run, the same thread's next writes of the run take no lock (they
    /// are copied straight into the run's staging until whoever takes the queue lock next
    /// ends the grant; see `docs/architecture.md`, "Threads").
    pub fn write_buffer(&self, buffer: Buffer, offset: u64, data: &[u8]) -> Result<()> {
        const OP: &str = "write_buffer";
        self.check_alive(OP)?;
        // The next write of a run this thread holds the grant of takes no lock (see
        // `runs`). That path is kept small: what it has no use for (the locked path, the
        // observer's call) is out of line, so the call saves few registers and builds
        // nothing on its stack.
        if !self.run_write(buffer, offset, data) {
            return self.write_buffer_locked(buffer, offset, data);
        }
        if self.observed.load(Ordering::Acquire) {
            self.notify_staged_write(buffer, data.len());
        }
        Ok(())
    }

    /// [`Device::write_buffer`] under the queue lock: a write that continues the last
    /// pending one is granted the run, any other takes the general path.
    #[inline(never)]
    fn write_buffer_locked(&self, buffer: Buffer, offset: u64, data: &[u8]) -> Result<()> {
        const OP: &str = "write_buffer";
        let mut q = self.queue.lock();
        if !self.continue_last_write(&mut q, buffer, offset, data, OP)? {
            return self.write_buffer_general(q, buffer, offset, data);
        }
        self.grant_run(&mut q);
        drop(q);
        self.notify_wrote(
            crate::observer::WriteTarget::Buffer(buffer),
            data.len() as u64,
            true,
        );
        Ok(())
    }

    /// Tells an installed observer of a staged write (out of line: most devices have none).
    #[cold]
    #[inline(never)]
    fn notify_staged_write(&self, buffer: Buffer, bytes: usize) {
        self.notify_wrote(
            crate::observer::WriteTarget::Buffer(buffer),
            bytes as u64,
            true,
        );
    }

    /// [`Device::write_buffer`] for a write that does not continue the last pending one:
    /// part of [`Device::write_buffer_locked`], which is out of line, so the granted path
    /// saves no registers for it (and a direct write makes one call, not two).
    #[inline(always)]
    fn write_buffer_general(
        &self,
        mut q: std::sync::MutexGuard<'_, super::queue::QueueState<A>>,
        buffer: Buffer,
        offset: u64,
        data: &[u8],
    ) -> Result<()> {
        const OP: &str = "write_buffer";
        // Another write into the buffer of the latest pending write: that write holds the
        // buffer already, so while its handle's state word says it is live the registry is
        // not asked again (no shard lock). Otherwise it is looked up under the queue lock,
        // which is safe: the registry's locks are only ever held inside its own methods,
        // never while the queue lock is taken.
        let held = q
            .uploads
            .writes
            .last()
            .filter(|w| {
                w.live
                    && w.dst.handle == buffer
                    && self
                        .objects
                        .buffers
                        .is_live(buffer.index(), buffer.generation())
            })
            .map(|w| std::sync::Arc::clone(&w.dst));
        let obj = match held {
            Some(obj) => obj,
            None => self.lookup(buffer, OP)?,
        };
        validate::buffer::write(obj.facts(), offset, data.len() as u64)?;
        if data.is_empty() {
            return Ok(());
        }
        let idle = q.buffer_states.last_use(obj.key()) <= self.completion.completed();
        if obj.host_visible && !obj.queued_writes.load(Ordering::Acquire) && idle {
            // Under the queue lock: no submission can start using the buffer meanwhile.
            self.hal
                .write_mapped(&obj.raw, offset, data)
                .map_err(|e| self.hal_error(e, OP, &obj.label))?;
            q.staging.direct_writes = q.staging.direct_writes.wrapping_add(1);
            drop(q);
            self.notify_wrote(
                crate::observer::WriteTarget::Buffer(buffer),
                data.len() as u64,
                false,
            );
            return Ok(());
        }
        self.queue_write(&mut q, &obj, offset, data, OP)?;
        drop(q);
        self.notify_wrote(
            crate::observer::WriteTarget::Buffer(buffer),
            data.len() as u64,
            true,
        );
        Ok(())
    }

    /// Reads `size` bytes at `offset` back from `buffer`, after every submission that used
    /// it completed.
    ///
    /// A `MAP_READ` buffer is read directly; a `COPY_SRC` buffer is copied into a readback
    /// buffer by a submission of its own first. The wait is bounded by progress: a GPU that
    /// stops completing work for the stall bound is declared lost.
    pub fn read_buffer(&self, buffer: Buffer, offset: u64, size: u64) -> Result<Vec<u8>> {
        const OP: &str = "read_buffer";
        self.check_alive(OP)?;
        let obj = self.lookup(buffer, OP)?;
        validate::buffer::read(obj.facts(), offset, size)?;
        if obj.usage.contains(BufferUsages::MAP_READ) {
            if obj.queued_writes.load(Ordering::Acquire) {
                // Queued writes land with the next submission; make that happen now.
                self.submit(std::iter::empty())?;
            }
            let last_use = self.buffer_last_use(&obj);
            if last_use > self.completion.completed() {
                self.wait_progressing(last_use, self.timeouts().stall, WaitSite::SerialWait, OP)?;
                let mut q = self.queue.lock();
                self.refresh(&mut q, OP)?;
            }
            let mut out = vec![0u8; usize::try_from(size).unwrap_or(0)];
            self.hal
                .read_mapped(&obj.raw, offset, &mut out)
                .map_err(|e| self.hal_error(e, OP, &obj.label))?;
            return Ok(out);
        }
        drop(obj);
        // Copies move whole words: read the words covering the range, then cut it out.
        // The range was checked to lie in the buffer, so none of this saturates.
        let start = offset & !3;
        let end = offset
            .saturating_add(size)
            .checked_next_multiple_of(4)
            .unwrap_or(u64::MAX);
        let span = end.saturating_sub(start).max(4);
        let readback = self.create_buffer(&BufferDescriptor {
            label: "vigil readback",
            size: span,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        })?;
        let result = (|| {
            let mut enc = self.create_command_encoder(&crate::CommandEncoderDescriptor {
                label: "vigil readback",
            })?;
            enc.copy_words(buffer, start, readback, span)?;
            self.submit([enc.finish()?])?;
            let bytes = self.read_buffer(readback, 0, span)?;
            let skip = (offset & 3) as usize;
            let len = usize::try_from(size).unwrap_or(usize::MAX);
            Ok(bytes
                .get(skip..)
                .and_then(|b| b.get(..len))
                .unwrap_or_default()
                .to_vec())
        })();
        let _ = self.destroy_buffer(readback);
        result
    }
}

impl<A: Api> Device<A> {
    /// Native usage a copy buffer in device memory needs beyond its own where copies may go
    /// through vigil's copy kernel (see `device/copy.rs`), which binds it as a storage
    /// buffer.
    fn kernel_copy_usage(&self, usage: BufferUsages) -> BufferUsages {
        if super::copy::in_device_memory(usage)
            && usage.intersects(BufferUsages::COPY_SRC | BufferUsages::COPY_DST)
            && self.kernel_copies_possible()
        {
            BufferUsages::STORAGE
        } else {
            BufferUsages::empty()
        }
    }
}

/// Native usage an argument buffer needs beyond its own: indirect arguments are read by
/// the check in front of each indirect dispatch (see `device/indirect.rs`) as a storage
/// buffer.
fn check_reads(usage: BufferUsages) -> BufferUsages {
    if usage.contains(BufferUsages::INDIRECT) {
        BufferUsages::STORAGE
    } else {
        BufferUsages::empty()
    }
}
