//! Plain buffer types: usage flags and the backend's buffer descriptor.

use bitflags::bitflags;

bitflags! {
    /// How a buffer may be used. Every use is checked against these flags.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct BufferUsages: u32 {
        /// Host may map it for reading. Combinable only with `COPY_DST`.
        const MAP_READ = 1 << 0;
        /// Host may map it for writing. Combinable only with `COPY_SRC`.
        const MAP_WRITE = 1 << 1;
        /// Source of copies.
        const COPY_SRC = 1 << 2;
        /// Destination of copies, clears and queue writes.
        const COPY_DST = 1 << 3;
        /// Index buffer of indexed draws.
        const INDEX = 1 << 4;
        /// Vertex buffer of draws.
        const VERTEX = 1 << 5;
        /// Uniform buffer binding.
        const UNIFORM = 1 << 6;
        /// Storage buffer binding (read-only or read-write).
        const STORAGE = 1 << 7;
        /// Arguments of indirect draws and dispatches.
        const INDIRECT = 1 << 8;
        /// Destination of query resolves.
        const QUERY_RESOLVE = 1 << 9;
        /// Vertex or index input of acceleration structure builds (needs
        /// `ACCELERATION_STRUCTURE`).
        const BLAS_INPUT = 1 << 10;
        /// Has a device address shaders follow: what the GPU-pointer tier's heaps are made
        /// with (`Device::create_gpu_heap`); `create_buffer` refuses it.
        const DEVICE_ADDRESS = 1 << 11;
    }
}

/// Where a buffer's memory should live, derived from its usage by the layer above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryLocation {
    /// Device-local; the host reaches it only through copies (or directly where the device
    /// memory happens to be host-visible, as on CPU drivers and resizable-BAR GPUs).
    GpuOnly,
    /// Host-visible, written by the host and read by the device.
    CpuToGpu,
    /// Host-visible and cached, written by the device and read by the host.
    GpuToCpu,
    /// Host-visible and, where the device has such memory, cached: written by the host
    /// through its caches, read by the device's copies (staging). Write-combined memory
    /// (device-local and host-visible, as behind a resizable BAR) takes a burst of writes
    /// well, but every locked instruction between writes drains the write-combining
    /// buffers to the device, so small writes interleaved with other work stall there.
    Staging,
}

/// What the backend needs to create a buffer. The layer above has validated it.
#[derive(Clone, Debug)]
pub struct BufferDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Size in bytes, non-zero, a multiple of 4.
    pub size: u64,
    /// Allowed uses.
    pub usage: BufferUsages,
    /// Memory placement.
    pub location: MemoryLocation,
}

/// One region of a buffer-to-buffer copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferCopy {
    /// Byte offset in the source.
    pub src_offset: u64,
    /// Byte offset in the destination.
    pub dst_offset: u64,
    /// Bytes to copy.
    pub size: u64,
}
