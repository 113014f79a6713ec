//! Buffers: descriptors, ranges, queue writes, readbacks and mappings.

use super::{ensure, inside};
use crate::device::BufferDescriptor;
use crate::error::Result;
use vigil_hal::BufferUsages;

/// A buffer descriptor against the device's limits. Returns the native size (rounded up to
/// whole words, so fills and storage views of the tail are legal).
pub(crate) fn descriptor(desc: &BufferDescriptor<'_>, max_size: u64) -> Result<u64> {
    const OP: &str = "create_buffer";
    let l = desc.label;
    ensure!(
        desc.size != 0,
        BufferSizeZero,
        OP,
        l,
        "size is 0; a buffer holds at least one byte"
    );
    ensure!(
        desc.size <= max_size,
        BufferSizeLimit,
        OP,
        l,
        "size {} exceeds the device's max_buffer_size {max_size}",
        desc.size
    );
    ensure!(
        !desc.usage.contains(BufferUsages::DEVICE_ADDRESS),
        GpuHeapDescriptor,
        OP,
        l,
        "DEVICE_ADDRESS is a GPU heap's usage: make one with create_gpu_heap"
    );
    ensure!(
        !desc.usage.is_empty(),
        BufferUsageEmpty,
        OP,
        l,
        "usage is empty; say how the buffer will be used"
    );
    ensure!(
        !desc.usage.contains(BufferUsages::MAP_READ)
            || (BufferUsages::MAP_READ | BufferUsages::COPY_DST).contains(desc.usage),
        BufferMapReadUsage,
        OP,
        l,
        "MAP_READ combines only with COPY_DST (got {:?}); copy results into a separate readback buffer",
        desc.usage
    );
    ensure!(
        !desc.usage.contains(BufferUsages::MAP_WRITE)
            || (BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC).contains(desc.usage),
        BufferMapWriteUsage,
        OP,
        l,
        "MAP_WRITE combines only with COPY_SRC (got {:?}); upload through a separate staging buffer",
        desc.usage
    );
    let native = desc.size.checked_next_multiple_of(4);
    ensure!(
        native.is_some(),
        BufferSizeLimit,
        OP,
        l,
        "size {} cannot be rounded up to whole words",
        desc.size
    );
    Ok(native.unwrap_or(desc.size))
}

/// `offset..offset + size` lies in a buffer of `len` bytes.
#[inline]
pub(crate) fn range(
    op: &'static str,
    label: &(impl AsRef<str> + ?Sized),
    what: &str,
    offset: u64,
    size: u64,
    len: u64,
) -> Result<()> {
    // The label is read only when refusing.
    ensure!(
        inside(offset, size, len),
        BufferRange,
        op,
        label.as_ref(),
        "{what} range of {size} bytes at offset {offset} is outside the buffer's {len} bytes"
    );
    Ok(())
}

/// A buffer's facts, as the checks below need them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts<'a> {
    pub label: &'a crate::label::Label,
    pub size: u64,
    pub usage: BufferUsages,
    pub mapped: bool,
}

/// What a recorded binding checks of a buffer: its facts without the mapping state, which
/// submission checks (a binding's checks then load no atomic).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    pub label: &'a crate::label::Label,
    pub size: u64,
    pub usage: BufferUsages,
}

/// A queue write of `len` bytes at `offset` (inlined always: checked per queued write).
#[inline(always)]
pub(crate) fn write(b: Facts<'_>, offset: u64, len: u64) -> Result<()> {
    const OP: &str = "write_buffer";
    let l = b.label;
    ensure!(
        b.usage.contains(BufferUsages::COPY_DST),
        WriteUsage,
        OP,
        l,
        "queue writes need COPY_DST usage; the buffer has {:?}",
        b.usage
    );
    ensure!(
        offset % 4 == 0 && len % 4 == 0,
        WriteAlignment,
        OP,
        l,
        "offset {offset} and size {len} must be multiples of 4"
    );
    range(OP, l, "write", offset, len, b.size)?;
    ensure!(
        !b.mapped,
        WriteMapped,
        OP,
        l,
        "the buffer is mapped; unmap it before writing through the queue"
    );
    Ok(())
}

/// Whether [`write`] accepts the write, without building a refusal: the test a queue write
/// continuing the last pending one takes, leaving refusals to the general path. Agrees
/// with [`write`] on every input (the unit test below sweeps them).
#[inline(always)]
pub(crate) fn write_passes(b: Facts<'_>, offset: u64, len: u64) -> bool {
    b.usage.contains(BufferUsages::COPY_DST)
        && offset % 4 == 0
        && len % 4 == 0
        && inside(offset, len, b.size)
        && !b.mapped
}

/// A readback of `size` bytes at `offset`.
pub(crate) fn read(b: Facts<'_>, offset: u64, size: u64) -> Result<()> {
    const OP: &str = "read_buffer";
    let l = b.label;
    range(OP, l, "read", offset, size, b.size)?;
    ensure!(
        !b.mapped,
        ReadMapped,
        OP,
        l,
        "the buffer is mapped; read it through its mapping"
    );
    ensure!(
        b.usage
            .intersects(BufferUsages::MAP_READ | BufferUsages::COPY_SRC),
        ReadUsage,
        OP,
        l,
        "reading back needs MAP_READ or COPY_SRC usage; the buffer has {:?}",
        b.usage
    );
    Ok(())
}

/// A mapping of `size` bytes at `offset` for reading (`write` false) or writing.
pub(crate) fn map(b: Facts<'_>, write: bool, offset: u64, size: u64) -> Result<()> {
    const OP: &str = "map_buffer_async";
    let l = b.label;
    let need = if write {
        BufferUsages::MAP_WRITE
    } else {
        BufferUsages::MAP_READ
    };
    ensure!(
        b.usage.contains(need),
        MapUsage,
        OP,
        l,
        "mapping for {} needs {need:?}; the buffer has {:?}",
        if write { "writing" } else { "reading" },
        b.usage
    );
    ensure!(
        offset % 8 == 0 && size % 4 == 0,
        MapAlignment,
        OP,
        l,
        "offset {offset} must be a multiple of 8 and size {size} of 4"
    );
    range(OP, l, "mapped", offset, size, b.size)?;
    ensure!(
        !b.mapped,
        MapAlreadyMapped,
        OP,
        l,
        "the buffer is already mapped; unmap it first"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Facts, write, write_passes};
    use crate::label::Label;
    use vigil_hal::BufferUsages;

    /// The continuing write's test accepts exactly what `write` accepts.
    #[test]
    fn write_passes_agrees_with_write() {
        let label = Label::new("b");
        let usages = [
            BufferUsages::COPY_DST,
            BufferUsages::COPY_DST | BufferUsages::STORAGE,
            BufferUsages::STORAGE,
            BufferUsages::MAP_READ,
        ];
        let edges = [0, 1, 2, 3, 4, 8, 60, 63, 64, 65, 68, u64::MAX - 3, u64::MAX];
        let (mut accepted, mut refused) = (0, 0);
        for usage in usages {
            for mapped in [false, true] {
                for size in [0, 4, 64, 66, 128] {
                    let b = Facts {
                        label: &label,
                        size,
                        usage,
                        mapped,
                    };
                    for offset in edges {
                        for len in edges {
                            let ok = write(b, offset, len).is_ok();
                            assert_eq!(write_passes(b, offset, len), ok, "{b:?} {offset} {len}");
                            accepted += usize::from(ok);
                            refused += usize::from(!ok);
                        }
                    }
                }
            }
        }
        // Both outcomes were met, so the sweep compared each.
        assert!(
            accepted > 0 && refused > 0,
            "{accepted} accepted, {refused} refused"
        );
    }
}
