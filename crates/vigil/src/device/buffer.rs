//! Buffers: creation, destruction, queue writes and readback.

use super::{BufferObj, Device, Retained, WaitSite};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle};
use vigil_hal::{Api, BufferUsages, MemoryLocation};

/// How to create a buffer.
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

/// Checks a buffer descriptor against the device's limits (pure; no device state).
pub(crate) fn validate_buffer_descriptor(desc: &BufferDescriptor<'_>, max_size: u64) -> Result<()> {
    const OP: &str = "create_buffer";
    if desc.size == 0 {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            desc.label,
            "size is 0; a buffer holds at least one byte"
        ));
    }
    if desc.size > max_size {
        return Err(fail!(
            LimitExceeded,
            OP,
            desc.label,
            "size {} exceeds the device's max_buffer_size {max_size}",
            desc.size
        ));
    }
    if desc.usage.is_empty() {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            desc.label,
            "usage is empty; say how the buffer will be used"
        ));
    }
    if desc.usage.contains(BufferUsages::MAP_READ)
        && !(BufferUsages::MAP_READ | BufferUsages::COPY_DST).contains(desc.usage)
    {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            desc.label,
            "MAP_READ combines only with COPY_DST (got {:?}); copy results into a separate readback buffer",
            desc.usage
        ));
    }
    if desc.usage.contains(BufferUsages::MAP_WRITE)
        && !(BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC).contains(desc.usage)
    {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            desc.label,
            "MAP_WRITE combines only with COPY_SRC (got {:?}); upload through a separate staging buffer",
            desc.usage
        ));
    }
    Ok(())
}

/// Checks that `offset..offset + size` lies in a buffer of `buffer_size` bytes.
#[inline]
pub(crate) fn check_range(
    op: &'static str,
    label: &str,
    what: &str,
    offset: u64,
    size: u64,
    buffer_size: u64,
) -> Result<()> {
    match offset.checked_add(size) {
        Some(end) if end <= buffer_size => Ok(()),
        _ => Err(fail!(
            OutOfBounds,
            op,
            label,
            "{what} range of {size} bytes at offset {offset} is outside the buffer's {buffer_size} bytes"
        )),
    }
}

impl<A: Api> Device<A> {
    /// Creates a buffer. Its contents start zeroed.
    pub fn create_buffer(&self, desc: &BufferDescriptor<'_>) -> Result<Buffer> {
        const OP: &str = "create_buffer";
        self.check_alive(OP)?;
        validate_buffer_descriptor(desc, self.limits.max_buffer_size)?;
        let location = if desc.usage.contains(BufferUsages::MAP_READ) {
            MemoryLocation::GpuToCpu
        } else if desc.usage.contains(BufferUsages::MAP_WRITE) {
            MemoryLocation::CpuToGpu
        } else {
            MemoryLocation::GpuOnly
        };
        let mut st = self.state(OP)?;
        // Sizes round up to whole words so fills and storage views of the tail are legal.
        let Some(native_size) = desc.size.checked_next_multiple_of(4) else {
            return Err(fail!(
                LimitExceeded,
                OP,
                desc.label,
                "size {} cannot be rounded up to whole words",
                desc.size
            ));
        };
        let raw = self
            .hal
            .create_buffer(&vigil_hal::BufferDescriptor {
                label: desc.label,
                size: native_size,
                usage: desc.usage,
                location,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let host_visible = self.hal.buffer_host_visible(&raw);
        if host_visible {
            // Fresh memory is not guaranteed zero; make it so (WebGPU's rule, and ours).
            let zeros = vec![0u8; native_size as usize];
            if let Err(e) = self.hal.write_mapped(&raw, 0, &zeros) {
                self.hal.destroy_buffer(raw);
                return Err(self.hal_error(e, OP, desc.label));
            }
        }
        let (index, generation) = st.buffers.insert(BufferObj {
            raw,
            label: desc.label.to_owned(),
            size: desc.size,
            usage: desc.usage,
            host_visible,
            queued_writes: false,
            mapping: None,
        });
        let handle = Buffer::from_parts(index, generation, self.id);
        drop(st);
        if !host_visible {
            // Device-local memory is zeroed by a fill at the start of the next submission.
            self.queue_fill_zero(handle, native_size)?;
        }
        self.notify_created("buffer", desc.label);
        Ok(handle)
    }

    /// Destroys a buffer: the handle (and every copy) is stale at once; the memory goes
    /// when the last submission using it completed and no bind group names it. Unsubmitted
    /// queue writes to it are dropped; an open mapping is closed.
    pub fn destroy_buffer(&self, buffer: Buffer) -> Result<()> {
        const OP: &str = "destroy_buffer";
        let mut st = self.state(OP)?;
        st.buffers.get(buffer, self.id, OP)?;
        self.close_mapping_of(&mut st, buffer.index());
        st.drop_queued_writes_to((buffer.index(), buffer.generation()), None);
        self.retire(&mut st, Retained::Buffer(buffer.index()));
        Ok(())
    }

    /// Size in bytes the buffer was created with.
    pub fn buffer_size(&self, buffer: Buffer) -> Result<u64> {
        let st = self.state("buffer_size")?;
        Ok(st.buffers.value(buffer, self.id, "buffer_size")?.size)
    }

    /// Usage the buffer was created with.
    pub fn buffer_usage(&self, buffer: Buffer) -> Result<BufferUsages> {
        let st = self.state("buffer_usage")?;
        Ok(st.buffers.value(buffer, self.id, "buffer_usage")?.usage)
    }

    /// Writes `data` into `buffer` at `offset`, ordered before every later submission.
    ///
    /// A buffer no pending submission uses, in host-visible memory, is written at once;
    /// otherwise the bytes are staged and copied at the start of the next submission.
    /// `offset` and `data.len()` must be multiples of 4; the buffer needs `COPY_DST`.
    pub fn write_buffer(&self, buffer: Buffer, offset: u64, data: &[u8]) -> Result<()> {
        const OP: &str = "write_buffer";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let completed = self.completion.completed();
        let slot = st.buffers.get(buffer, self.id, OP)?;
        let last_use = slot.last_use;
        let Some(obj) = slot.value.as_ref() else {
            return Err(fail!(InvalidHandle, OP, "", "{buffer:?} has no object"));
        };
        if !obj.usage.contains(BufferUsages::COPY_DST) {
            return Err(fail!(
                UsageMismatch,
                OP,
                &obj.label,
                "queue writes need COPY_DST usage; the buffer has {:?}",
                obj.usage
            ));
        }
        if offset % 4 != 0 || data.len() % 4 != 0 {
            return Err(fail!(
                OutOfBounds,
                OP,
                &obj.label,
                "offset {offset} and size {} must be multiples of 4",
                data.len()
            ));
        }
        check_range(OP, &obj.label, "write", offset, data.len() as u64, obj.size)?;
        if obj.mapping.is_some() {
            return Err(fail!(
                InvalidState,
                OP,
                &obj.label,
                "the buffer is mapped; unmap it before writing through the queue"
            ));
        }
        if data.is_empty() {
            return Ok(());
        }
        if obj.host_visible && !obj.queued_writes && last_use <= completed {
            self.hal
                .write_mapped(&obj.raw, offset, data)
                .map_err(|e| self.hal_error(e, OP, &obj.label))?;
            st.staging.direct_writes = st.staging.direct_writes.wrapping_add(1);
            drop(st);
            self.notify_wrote(
                crate::observer::WriteTarget::Buffer(buffer),
                data.len() as u64,
                false,
            );
            return Ok(());
        }
        self.queue_write(&mut st, buffer, offset, data, OP)?;
        drop(st);
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
        let (usage, label, queued, mapped) = {
            let st = self.state(OP)?;
            let obj = st.buffers.value(buffer, self.id, OP)?;
            check_range(OP, &obj.label, "read", offset, size, obj.size)?;
            (
                obj.usage,
                obj.label.clone(),
                obj.queued_writes,
                obj.mapping.is_some(),
            )
        };
        if mapped {
            return Err(fail!(
                InvalidState,
                OP,
                &label,
                "the buffer is mapped; read it through its mapping"
            ));
        }
        if usage.contains(BufferUsages::MAP_READ) {
            if queued {
                // Queued writes land with the next submission; make that happen now.
                self.submit(std::iter::empty())?;
            }
            let last_use = self.state(OP)?.buffers.get(buffer, self.id, OP)?.last_use;
            if last_use > self.completion.completed() {
                self.wait_progressing(
                    last_use,
                    self.timeouts.get().stall,
                    WaitSite::SerialWait,
                    OP,
                )?;
                let mut st = self.state(OP)?;
                self.refresh(&mut st, OP)?;
            }
            let st = self.state(OP)?;
            let obj = st.buffers.value(buffer, self.id, OP)?;
            let mut out = vec![0u8; size as usize];
            self.hal
                .read_mapped(&obj.raw, offset, &mut out)
                .map_err(|e| self.hal_error(e, OP, &label))?;
            return Ok(out);
        }
        if !usage.contains(BufferUsages::COPY_SRC) {
            return Err(fail!(
                UsageMismatch,
                OP,
                &label,
                "reading back needs MAP_READ or COPY_SRC usage; the buffer has {usage:?}"
            ));
        }
        // Copies move whole words: read the words covering the range, then cut it out.
        // `check_range` above guarantees `offset + size` fits and lies in the buffer.
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
