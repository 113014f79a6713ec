//! The one module that calls the backend's `unsafe fn`s.
//!
//! `vigil-hal`'s methods that trust their input are `unsafe`; everything else in this crate
//! is safe code. The wrappers here are `pub(crate)` and keep the backend's names, so the
//! rest of the crate calls `hal.create_buffer(..)` or `r.draw(..)` as before, and each
//! wrapper's `SAFETY` line names the validation that establishes the contract. That
//! validation happens before the wrapper is reached: descriptors in `device/*` and
//! `render.rs`, commands in `encoder/*`, lifetimes in the registry and release code.
//!
//! Host access to mapped memory is here too: the backend hands out a pointer, and the
//! copies in and out of it are checked against the mapping's length before they are made.

#![allow(unsafe_code)]

use std::ops::{Deref, Range};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use vigil_hal::Device as _;
use vigil_hal::{
    Api, BindGroupDescriptor, BindPoint, BufferBarrier, BufferCopy, BufferDescriptor,
    BufferTextureCopy, ComputePassDescriptor, ComputePipelineDescriptor, IndexFormat,
    MemoryBarrier, PipelineLayoutDescriptor, RenderPassDescriptor, RenderPipelineDescriptor,
    SamplerDescriptor, ShaderModuleDescriptor, SubresourceRange, TextureBarrier, TextureCopy,
    TextureDescriptor, TextureViewDescriptor,
};

/// The backend device, with safe wrappers for the calls that trust their input. Its safe
/// methods (completion counters, waits, queries) are reached through `Deref`.
#[derive(Debug)]
pub(crate) struct Hal<A: Api>(A::Device);

impl<A: Api> Deref for Hal<A> {
    type Target = A::Device;
    fn deref(&self) -> &A::Device {
        &self.0
    }
}

/// The host-memory range `offset..offset + len` of a mapping, or why not (inlined
/// always: every queued write's copy asks it; the refusals are out of line).
#[inline(always)]
fn mapped_range(
    mapping: Option<vigil_hal::Mapping>,
    offset: u64,
    len: usize,
) -> vigil_hal::Result<*mut u8> {
    let refuse = |why: &str| vigil_hal::DeviceError::Other(why.to_owned());
    let m = mapping.ok_or_else(|| refuse("the buffer's memory is not host-visible"))?;
    let outside = || refuse("the range is not inside the buffer's mapped memory");
    let end = offset.checked_add(len as u64).ok_or_else(outside)?;
    if end > m.len {
        return Err(outside());
    }
    let offset = usize::try_from(offset).map_err(|_| outside())?;
    // SAFETY: `offset + len <= m.len`, the length of the allocation `m.ptr` points into, so
    // the result stays inside it.
    Ok(unsafe { m.ptr.as_ptr().add(offset) })
}

/// The handshake between the thread holding a write grant, which appends to the last
/// pending queue write without the queue lock, and whoever takes the queue lock next
/// (see `device::runs`). The holder raises `busy`, then checks `open`; the lock's taker
/// lowers `open`, then waits for `busy` to fall. Both in sequentially consistent order, so
/// at least one of them sees the other: either the holder finds the gate closed and writes
/// nothing, or the taker waits for its write to finish, and then reads what the holder
/// appended.
///
/// Raising `busy` in that order is a locked instruction, which waits for the copy before
/// it to reach its cache line. Where the system has an asymmetric fence
/// ([`heavy_fence_ready`]), a holder whose run has gone on for a while stops paying it: it
/// says so once (`light`, stored by a write that still takes the locked instruction), and
/// from then on raises `busy` with a plain store and only a compiler fence before checking
/// `open`. A taker from another thread that finds `light` set runs the heavy fence between
/// lowering `open` and waiting for `busy`: it makes every thread of the process execute a
/// full barrier, so again either the holder's `busy` is seen or the holder sees `open`
/// lowered. A taker on the holder's own thread needs no fence: no write of the run is in
/// progress while it takes the lock.
#[derive(Debug)]
pub(crate) struct Gate {
    open: AtomicBool,
    busy: AtomicBool,
    /// The holder raises `busy` without a locked instruction (stored by the holder alone,
    /// before `busy` falls).
    light: AtomicBool,
    /// Bytes and writes the holder appended (stored by the holder alone, before `busy`
    /// falls).
    bytes: AtomicU64,
    writes: AtomicU64,
}

/// How a write through a [`Gate`] raises `busy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Raise {
    /// With a locked instruction.
    Locked,
    /// With a locked instruction, and tells the gate that the writes after this one do
    /// not take it.
    LockedThenLight,
    /// With a plain store (the gate was told by an earlier write).
    Light,
}

impl Gate {
    /// An open gate, nothing appended yet.
    pub fn open() -> Gate {
        Gate {
            open: AtomicBool::new(true),
            busy: AtomicBool::new(false),
            light: AtomicBool::new(false),
            bytes: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        }
    }

    /// Closes the gate and waits out a write in progress through it; returns the bytes
    /// and writes appended through it. `holder_here` tells whether the caller runs on the
    /// holder's thread (so no write through the gate is in progress); it is asked only
    /// when the gate went light. The wait is one copy long
    /// unless the holder's thread was descheduled mid-copy, so it spins briefly, then
    /// yields. Closing a closed gate waits for nothing and runs no fence (the queue closes
    /// a grant, then drops it, which closes it again).
    pub fn close(&self, holder_here: impl FnOnce() -> bool) -> (u64, u64) {
        if self.open.swap(false, Ordering::SeqCst) {
            self.wait_out(holder_here);
        }
        (
            self.bytes.load(Ordering::Acquire),
            self.writes.load(Ordering::Acquire),
        )
    }

    /// What [`Gate::close`] does after lowering `open`: waits until no write through the
    /// gate is in progress, with the heavy fence first where a light write may be.
    fn wait_out(&self, holder_here: impl FnOnce() -> bool) {
        self.wait_idle();
        // Any write that raised `busy` with a plain store came after the write that set
        // `light`, whose `busy` the wait above saw raised or saw fall (an acquire), so
        // `light` is seen here whenever a light write can be under way.
        if self.light.load(Ordering::Acquire) && !holder_here() {
            if !heavy_fence() {
                // Not expected once registration succeeded (the kernel documents no
                // failure then). A raised `busy` still in the holder's store buffer is
                // visible within nanoseconds; look for it for far longer than that.
                let start = std::time::Instant::now();
                while start.elapsed() < std::time::Duration::from_micros(200) {
                    self.wait_idle();
                    std::thread::yield_now();
                }
            }
            self.wait_idle();
        }
    }

    /// Waits until `busy` is seen down.
    fn wait_idle(&self) {
        let mut spins = 0u32;
        while self.busy.load(Ordering::SeqCst) {
            if spins < 256 {
                std::hint::spin_loop();
                spins = spins.saturating_add(1);
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Whether this process can run the asymmetric fence a light [`Gate`] write pairs with
/// (registered on the first call; Linux's `membarrier`, private expedited).
pub(crate) fn heavy_fence_ready() -> bool {
    fence_sys::ready()
}

/// Makes every running thread of this process execute a full memory barrier before it
/// returns; `false` when the system refused.
fn heavy_fence() -> bool {
    fence_sys::fence()
}

#[cfg(target_os = "linux")]
mod fence_sys {
    use std::sync::OnceLock;

    // `linux/membarrier.h`.
    const QUERY: libc::c_long = 0;
    const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    static READY: OnceLock<bool> = OnceLock::new();

    pub fn ready() -> bool {
        *READY.get_or_init(|| {
            // SAFETY: membarrier's query takes no pointer and touches no memory of ours.
            let commands = unsafe { libc::syscall(libc::SYS_membarrier, QUERY, 0, 0) };
            if commands < 0 || commands & PRIVATE_EXPEDITED == 0 {
                return false;
            }
            // SAFETY: registration takes no pointer and touches no memory of ours.
            let r =
                unsafe { libc::syscall(libc::SYS_membarrier, REGISTER_PRIVATE_EXPEDITED, 0, 0) };
            r == 0
        })
    }

    pub fn fence() -> bool {
        // SAFETY: the fence takes no pointer and touches no memory of ours.
        let r = unsafe { libc::syscall(libc::SYS_membarrier, PRIVATE_EXPEDITED, 0, 0) };
        r == 0
    }
}

#[cfg(not(target_os = "linux"))]
mod fence_sys {
    pub fn ready() -> bool {
        false
    }

    pub fn fence() -> bool {
        false
    }
}

/// A staging chunk's mapping, written by the thread holding a write grant through a
/// [`Gate`] (not `Send`: it stays in that thread's run).
#[derive(Debug)]
pub(crate) struct Window {
    base: std::ptr::NonNull<u8>,
    len: u64,
}

impl Window {
    /// The window onto `mapping`.
    ///
    /// The contract its writes rely on (as the wrappers above rely on validation done
    /// elsewhere; `device::runs` keeps it): `mapping` is of coherent memory, and it stays
    /// mapped, with no one else writing the bytes the grant's holder appends to, for as
    /// long as the gate the window is written through is open or busy; the chunk's owner
    /// closes that gate ([`Gate::close`]) before it changes the chunk's pending write or
    /// lets the chunk go.
    pub fn new(mapping: vigil_hal::Mapping) -> Window {
        Window {
            base: mapping.ptr,
            len: mapping.len,
        }
    }

    /// Copies `data` to `at` through `gate`, raising its `busy` as `raise` says, then
    /// records the holder's running totals (`bytes`, `writes`) in it; `false`, with
    /// nothing written, when the gate is closed or the range is outside the window. Then
    /// asks the CPU to fetch, for writing, the line 128 bytes past the write's end: a run
    /// of small writes finds its next lines owned, so the next write's locked instruction
    /// (if it takes one) waits for no line to arrive.
    ///
    /// [`Raise::Light`] is only for a thread that gave this gate
    /// [`Raise::LockedThenLight`] in a write that went through, and only where
    /// [`heavy_fence_ready`] said yes.
    #[inline(always)]
    pub fn write(
        &self,
        gate: &Gate,
        at: u64,
        data: &[u8],
        (bytes, writes): (u64, u64),
        raise: Raise,
    ) -> bool {
        let Ok(dst) = mapped_range(
            Some(vigil_hal::Mapping {
                ptr: self.base,
                len: self.len,
                coherent: true,
            }),
            at,
            data.len(),
        ) else {
            return false;
        };
        let open = if raise == Raise::Light {
            gate.busy.store(true, Ordering::Relaxed);
            // The closing taker's heavy fence stands in for the processor's half of
            // this fence (see `Gate`).
            std::sync::atomic::compiler_fence(Ordering::SeqCst);
            gate.open.load(Ordering::Relaxed)
        } else {
            gate.busy.store(true, Ordering::SeqCst);
            gate.open.load(Ordering::SeqCst)
        };
        if !open {
            gate.busy.store(false, Ordering::Release);
            return false;
        }
        if raise == Raise::LockedThenLight {
            gate.light.store(true, Ordering::Relaxed);
        }
        // SAFETY: `dst..dst + data.len()` lies in the mapping (checked above), which stays
        // mapped and written by no one else while the gate is open or busy (the contract
        // `Window::new` states, kept by `device::runs`): it was open after `busy` rose.
        // `data` is the caller's host memory, so the two do not overlap. Coherent memory
        // needs no flush.
        unsafe { copy_small(data, dst) };
        prefetch_for_write(
            self,
            at.saturating_add(data.len() as u64).saturating_add(128),
        );
        gate.bytes.store(bytes, Ordering::Relaxed);
        gate.writes.store(writes, Ordering::Relaxed);
        gate.busy.store(false, Ordering::Release);
        true
    }
}

/// Copies `data` to `dst`. A run's writes are mostly small: up to 64 bytes the copy is
/// two fixed-size copies from either end (overlapping in the middle where the length is
/// not their sum), inline, instead of a call into `memcpy` that picks the same moves after
/// testing the length itself.
///
/// # Safety
///
/// `dst..dst + data.len()` is memory the caller may write, and does not overlap `data`.
#[inline(always)]
unsafe fn copy_small(data: &[u8], dst: *mut u8) {
    match data.len() {
        // SAFETY: the caller's contract; the length is at least 32.
        32..=64 => unsafe { copy_ends::<32>(data, dst) },
        // SAFETY: the caller's contract; the length is at least 16.
        16..=31 => unsafe { copy_ends::<16>(data, dst) },
        // SAFETY: the caller's contract; the length is at least 8.
        8..=15 => unsafe { copy_ends::<8>(data, dst) },
        // SAFETY: the caller's contract; the length is at least 4.
        4..=7 => unsafe { copy_ends::<4>(data, dst) },
        n => {
            // SAFETY: the caller's contract: `dst` has room for `n` bytes and does not
            // overlap `data`.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, n) };
        }
    }
}

/// [`copy_small`]'s move for `K <= data.len() <= 2 * K`: `K` bytes from the start and `K`
/// ending at the end, each a fixed-size copy; where the length is less than `2 * K` the
/// two overlap and write the same bytes twice.
///
/// # Safety
///
/// As [`copy_small`], and `K <= data.len()`.
#[inline(always)]
unsafe fn copy_ends<const K: usize>(data: &[u8], dst: *mut u8) {
    let (src, tail) = (data.as_ptr(), data.len().wrapping_sub(K));
    // SAFETY: the caller's contract (`dst` has room for `data.len()` bytes and does not
    // overlap it); `K <= data.len()`, so `src..src + K` and `dst..dst + K` are inside.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, K) };
    // SAFETY: as above; `tail + K == data.len()`, so both ranges end where the copy's do.
    unsafe { std::ptr::copy_nonoverlapping(src.wrapping_add(tail), dst.wrapping_add(tail), K) };
}

/// A hint to fetch the window's line at `offset` for writing (nothing outside it, or off
/// x86-64).
#[inline(always)]
fn prefetch_for_write(w: &Window, offset: u64) {
    #[cfg(target_arch = "x86_64")]
    if offset < w.len {
        if let Ok(at) = usize::try_from(offset) {
            // SAFETY: `offset` is below the mapping's length, so the pointer stays inside
            // it; a prefetch reads and writes nothing in any case.
            let p = unsafe { w.base.as_ptr().add(at) };
            // SAFETY: a prefetch hint has no effect on memory.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(
                    p.cast_const().cast(),
                )
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (w, offset);
}

impl<A: Api> Hal<A> {
    /// Wraps a device the backend opened.
    pub fn new(device: A::Device) -> Self {
        Hal(device)
    }

    /// A buffer (descriptor checked by `validate_buffer_descriptor`).
    pub fn create_buffer(&self, desc: &BufferDescriptor<'_>) -> vigil_hal::Result<A::Buffer> {
        // SAFETY: the device validated size (within max_buffer_size, rounded to words) and
        // usage (MAP_* only with their copy usage) before any call reaches here.
        unsafe { self.0.create_buffer(desc) }
    }

    /// An alias of another device's texture (over the same native device).
    pub fn alias_texture(&self, texture: &A::Texture) -> vigil_hal::Result<A::Texture> {
        // SAFETY: the texture comes from an export token of a device over the same native
        // device (checked by `register_texture`); the registration holds the exporting
        // texture object, so the image outlives the alias.
        unsafe { self.0.alias_texture(texture) }
    }

    /// A surface over `target`, whose window the caller's surface object keeps alive.
    pub fn create_surface(&self, target: vigil_hal::WindowTarget) -> vigil_hal::Result<A::Surface> {
        // SAFETY: the window `target` names is held (an `Arc` of the application's window)
        // by the surface object for as long as the native surface lives, or is the test
        // backend's headless target.
        unsafe { self.0.create_surface(target) }
    }

    /// Configures a surface (configuration checked against its capabilities).
    pub fn configure_surface(
        &self,
        surface: &mut A::Surface,
        config: &vigil_hal::SurfaceConfiguration,
    ) -> vigil_hal::Result<()> {
        // SAFETY: the device checked format, extent, present and alpha modes against the
        // surface's capabilities, and waited for the surface's last present to complete.
        unsafe { self.0.configure_surface(surface, config) }
    }

    /// Presents a frame texture through a surface.
    pub fn present(
        &self,
        surface: &mut A::Surface,
        source: &A::Texture,
        from: vigil_hal::PresentSource,
        signal_value: u64,
    ) -> vigil_hal::Result<vigil_hal::PresentOutcome> {
        // SAFETY: the surface is configured; the frame texture was made for that
        // configuration (format, extent, COPY_SRC) and is held by the submission record
        // until `signal_value` completes; the previous present's serial completed (the
        // device waited for it); `signal_value` is the next serial, under the queue lock.
        unsafe { self.0.present(surface, source, from, signal_value) }
    }

    /// Releases a surface.
    pub fn destroy_surface(&self, surface: A::Surface) {
        // SAFETY: reached only from `Owned::drop`: the surface object is gone, and its
        // last present completed (waited for when the surface was destroyed) or the device
        // is lost.
        unsafe { self.0.destroy_surface(surface) }
    }

    /// An acceleration structure (descriptor checked by `validate::accel`).
    pub fn create_acceleration_structure(
        &self,
        desc: &vigil_hal::AccelerationStructureDescriptor<'_>,
    ) -> vigil_hal::Result<A::AccelerationStructure> {
        // SAFETY: the device has `RAY_QUERY` enabled, every count is non-zero and within
        // vigil's caps, and the vertex format is Float32x3 (checked by `validate::accel`).
        unsafe { self.0.create_acceleration_structure(desc) }
    }

    /// Releases an acceleration structure nothing uses any more.
    pub fn destroy_acceleration_structure(&self, structure: A::AccelerationStructure) {
        // SAFETY: reached only from `Owned::drop`, when the last holder let go: no
        // registry, group, top-level structure built over it, open recording or
        // submission in flight names it.
        unsafe { self.0.destroy_acceleration_structure(structure) }
    }

    /// Releases a buffer nothing uses any more.
    pub fn destroy_buffer(&self, buffer: A::Buffer) {
        // SAFETY: reached only from `Owned::drop`, when the last holder of the buffer let
        // go: no registry, bind group, open recording or submission in flight names it.
        unsafe { self.0.destroy_buffer(buffer) }
    }

    /// Copies `data` into a mapped buffer at `offset` and makes it visible to the device.
    /// The caller checked that no pending GPU work uses the range. (Inlined always: a
    /// queued write's copy.)
    #[inline(always)]
    pub fn write_mapped(
        &self,
        buffer: &A::Buffer,
        offset: u64,
        data: &[u8],
    ) -> vigil_hal::Result<()> {
        let dst = mapped_range(self.0.mapping(buffer), offset, data.len())?;
        // SAFETY: `dst..dst + data.len()` lies in the buffer's mapping (checked above); the
        // caller guarantees no GPU access to it while we write, and `data` is host memory
        // of ours, so the two do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        // SAFETY: the range was checked to lie inside the mapped buffer.
        unsafe { self.0.flush(buffer, offset, data.len() as u64) }
    }

    /// Zeroes the first `len` bytes of a mapped buffer and makes them visible to the
    /// device (no allocation: a fresh buffer's zeroing). The caller checked that no GPU
    /// work uses the buffer.
    pub fn zero_mapped(&self, buffer: &A::Buffer, len: u64) -> vigil_hal::Result<()> {
        let n = usize::try_from(len).map_err(|_| {
            vigil_hal::DeviceError::Other(
                "the buffer is larger than this host's address space".into(),
            )
        })?;
        let dst = mapped_range(self.0.mapping(buffer), 0, n)?;
        // SAFETY: `dst..dst + n` lies in the buffer's mapping (checked above), and the
        // caller guarantees no GPU access to it while we write.
        unsafe { std::ptr::write_bytes(dst, 0, n) };
        // SAFETY: the range was checked to lie inside the mapped buffer.
        unsafe { self.0.flush(buffer, 0, len) }
    }

    /// Copies from a mapped buffer at `offset` into `out`, after making device writes
    /// visible to the host. The caller checked that the GPU is done writing the range.
    pub fn read_mapped(
        &self,
        buffer: &A::Buffer,
        offset: u64,
        out: &mut [u8],
    ) -> vigil_hal::Result<()> {
        let src = mapped_range(self.0.mapping(buffer), offset, out.len())?;
        // SAFETY: the range was checked to lie inside the mapped buffer.
        unsafe { self.0.invalidate(buffer, offset, out.len() as u64) }?;
        // SAFETY: `src..src + out.len()` lies in the mapping; the GPU is done with it (the
        // caller's check), and `out` is our own memory.
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Calls `f` with the bytes `offset..offset + len` of a mapped buffer (device writes
    /// made visible first). The caller guarantees no GPU access to them and no other host
    /// access while `f` runs (the buffer is mapped, so no submission may use it).
    pub fn with_mapped<R>(
        &self,
        buffer: &A::Buffer,
        offset: u64,
        len: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> vigil_hal::Result<R> {
        let n = usize::try_from(len).unwrap_or(usize::MAX);
        let src = mapped_range(self.0.mapping(buffer), offset, n)?;
        // SAFETY: the range was checked to lie inside the mapped buffer.
        unsafe { self.0.invalidate(buffer, offset, len) }?;
        // SAFETY: the range lies in the mapping and nothing else accesses it while the
        // slice lives (the caller's guarantee); the slice does not outlive `f`.
        let bytes = unsafe { std::slice::from_raw_parts(src.cast_const(), n) };
        Ok(f(bytes))
    }

    /// As [`Hal::with_mapped`], for writing; the writes are made visible to the device
    /// when `f` returns.
    pub fn with_mapped_mut<R>(
        &self,
        buffer: &A::Buffer,
        offset: u64,
        len: u64,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> vigil_hal::Result<R> {
        let n = usize::try_from(len).unwrap_or(usize::MAX);
        let dst = mapped_range(self.0.mapping(buffer), offset, n)?;
        // SAFETY: as in `with_mapped`; this is the only access to the range while it lives.
        let bytes = unsafe { std::slice::from_raw_parts_mut(dst, n) };
        let r = f(bytes);
        // SAFETY: the range was checked to lie inside the mapped buffer.
        unsafe { self.0.flush(buffer, offset, len) }?;
        Ok(r)
    }

    /// A texture (descriptor checked by `validate_texture_descriptor`).
    pub fn create_texture(&self, desc: &TextureDescriptor<'_>) -> vigil_hal::Result<A::Texture> {
        // SAFETY: size, layers, mips, samples, format and usage were checked against the
        // device's limits and the format's support.
        unsafe { self.0.create_texture(desc) }
    }

    /// Releases a texture nothing uses any more.
    pub fn destroy_texture(&self, texture: A::Texture) {
        // SAFETY: as for buffers; views retain their texture, so none is alive.
        unsafe { self.0.destroy_texture(texture) }
    }

    /// Memory textures are placed in (`size` checked non-zero by
    /// `create_placement_heap`), and its memory type.
    pub fn create_texture_memory(
        &self,
        label: &str,
        size: u64,
    ) -> vigil_hal::Result<(A::TextureMemory, u32)> {
        // SAFETY: `create_placement_heap` refuses a zero size.
        unsafe { self.0.create_texture_memory(label, size) }
    }

    /// Releases texture memory no texture lies in any more.
    pub fn destroy_texture_memory(&self, memory: A::TextureMemory) {
        // SAFETY: every placed texture holds its heap's object, which owns the memory, so
        // the memory goes only after the last texture placed in it.
        unsafe { self.0.destroy_texture_memory(memory) }
    }

    /// What a texture of `desc` needs when placed (descriptor checked as for
    /// `create_texture`).
    pub fn texture_placement(
        &self,
        desc: &TextureDescriptor<'_>,
    ) -> vigil_hal::Result<vigil_hal::TexturePlacement> {
        // SAFETY: the descriptor was checked by `validate::texture::descriptor`.
        unsafe { self.0.texture_placement(desc) }
    }

    /// A texture placed in `memory` at `offset` (checked by `create_placed_texture`).
    pub fn create_placed_texture(
        &self,
        desc: &TextureDescriptor<'_>,
        memory: &A::TextureMemory,
        offset: u64,
    ) -> vigil_hal::Result<A::Texture> {
        // SAFETY: the descriptor was checked; the offset is a multiple of the placement's
        // alignment with its size inside the heap, the heap's memory type is one of the
        // placement's, and the texture object holds the heap (so the memory outlives it).
        unsafe { self.0.create_placed_texture(desc, memory, offset) }
    }

    /// A view of a live texture (descriptor checked by `create_texture_view`).
    pub fn create_texture_view(
        &self,
        texture: &A::Texture,
        desc: &TextureViewDescriptor<'_>,
    ) -> vigil_hal::Result<A::TextureView> {
        // SAFETY: the texture is live (looked up by handle); range, format, dimension and
        // usage were checked against it.
        unsafe { self.0.create_texture_view(texture, desc) }
    }

    /// Releases a view nothing uses any more.
    pub fn destroy_texture_view(&self, view: A::TextureView) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_texture_view(view) }
    }

    /// A sampler (descriptor checked by `create_sampler`).
    pub fn create_sampler(&self, desc: &SamplerDescriptor<'_>) -> vigil_hal::Result<A::Sampler> {
        // SAFETY: clamps, filters and anisotropy (and its feature) were checked.
        unsafe { self.0.create_sampler(desc) }
    }

    /// Releases a sampler nothing uses any more.
    pub fn destroy_sampler(&self, sampler: A::Sampler) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_sampler(sampler) }
    }

    /// A query set of `ty` (feature and count checked by `create_query_set`, count by
    /// `create_occlusion_query_set`).
    pub fn create_query_set(
        &self,
        label: &str,
        ty: vigil_hal::QueryType,
        count: u32,
    ) -> vigil_hal::Result<A::QuerySet> {
        // SAFETY: `count` is within 1..=4096, and timestamps are enabled for timestamp sets.
        unsafe { self.0.create_query_set(label, ty, count) }
    }

    /// What pipeline-cache data must have been written on (the device and driver).
    pub fn pipeline_cache_key(&self) -> Vec<u8> {
        self.0.pipeline_cache_key()
    }

    /// A pipeline cache, empty or holding `data`.
    pub fn create_pipeline_cache(
        &self,
        label: &str,
        data: &[u8],
    ) -> vigil_hal::Result<A::PipelineCache> {
        // SAFETY: callers pass an empty slice, or the payload of data vigil wrote from this
        // backend's `pipeline_cache_data` under this device's key, whose checksum matched
        // (`validate::pipeline::cache_data`).
        unsafe { self.0.create_pipeline_cache(label, data) }
    }

    /// What a live pipeline cache holds.
    pub fn pipeline_cache_data(&self, cache: &A::PipelineCache) -> vigil_hal::Result<Vec<u8>> {
        // SAFETY: callers pass a cache they hold (live).
        unsafe { self.0.pipeline_cache_data(cache) }
    }

    /// Releases a pipeline cache nothing uses any more.
    pub fn destroy_pipeline_cache(&self, cache: A::PipelineCache) {
        // SAFETY: as for buffers; a pipeline being created with it holds its object.
        unsafe { self.0.destroy_pipeline_cache(cache) }
    }

    /// Releases a query set nothing uses any more.
    pub fn destroy_query_set(&self, set: A::QuerySet) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_query_set(set) }
    }

    /// Resets every query of a set just made (no GPU work has seen it).
    pub fn reset_queries_on_host(
        &self,
        set: &A::QuerySet,
        first: u32,
        count: u32,
    ) -> vigil_hal::Result<()> {
        // SAFETY: callers pass a set made with at least `first + count` queries that no
        // submission has used yet.
        unsafe { self.0.reset_queries_on_host(set, first, count) }
    }

    /// Reads timestamps of a completed submission (never waits).
    pub fn read_timestamps(
        &self,
        set: &A::QuerySet,
        first: u32,
        out: &mut [u64],
    ) -> vigil_hal::Result<bool> {
        // SAFETY: callers read queries of a set that was reset when made and written by a
        // submission that has completed, inside the set.
        unsafe { self.0.read_timestamps(set, first, out) }
    }

    /// A bind group layout (entries checked and sorted by `validate_layout_entries`).
    pub fn create_bind_group_layout(
        &self,
        desc: &vigil_hal::BindGroupLayoutDescriptor<'_>,
    ) -> vigil_hal::Result<A::BindGroupLayout> {
        // SAFETY: the entries are sorted, unique, and within the limits and features.
        unsafe { self.0.create_bind_group_layout(desc) }
    }

    /// Releases a bind group layout nothing uses any more.
    pub fn destroy_bind_group_layout(&self, layout: A::BindGroupLayout) {
        // SAFETY: as for buffers; groups and pipeline layouts retain their layouts.
        unsafe { self.0.destroy_bind_group_layout(layout) }
    }

    /// A bind group (every entry checked against its layout by `create_bind_group`).
    pub fn create_bind_group(
        &self,
        desc: &BindGroupDescriptor<'_, A>,
    ) -> vigil_hal::Result<A::BindGroup> {
        // SAFETY: each entry matches its layout entry and names a live object of the device.
        unsafe { self.0.create_bind_group(desc) }
    }

    /// Releases a bind group nothing uses any more.
    pub fn destroy_bind_group(&self, group: A::BindGroup) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_bind_group(group) }
    }

    /// Rewrites elements of a bind group that nothing else holds (`write_bind_group`
    /// checked every entry and holds the group uniquely, so no encoder has recorded it and
    /// no submission in flight uses it).
    pub fn update_bind_group(
        &self,
        group: &A::BindGroup,
        layout: &A::BindGroupLayout,
        entries: &[vigil_hal::BindGroupEntry<'_, A>],
    ) -> vigil_hal::Result<()> {
        // SAFETY: each entry matches its layout entry, lies inside the group's length and
        // names a live object of the device; no recording or pending command buffer uses
        // the group.
        unsafe { self.0.update_bind_group(group, layout, entries) }
    }

    /// Rewrites slots of a texture or sampler heap, which work in flight may be using.
    pub fn write_heap(
        &self,
        heap: &A::BindGroup,
        layout: &A::BindGroupLayout,
        entries: &[vigil_hal::BindGroupEntry<'_, A>],
    ) -> vigil_hal::Result<()> {
        // SAFETY: each entry is a view or sampler of the heap's kind (checked by the heap
        // calls: 2D, sampled usage, one sample, float formats; filtering samplers), names a
        // live object of the device that the heap holds from now on, and lies inside the
        // heap's length. The heap's binding is update-after-bind and
        // update-unused-while-pending (devices with DESCRIPTOR_HEAPS), so pending work may
        // use the set; which slots that work reads the CPU cannot see, and writing one it
        // reads is the application's race (the tier's documented contract), never a
        // release of what it reads: old contents stay alive until that work completes.
        unsafe { self.0.update_bind_group(heap, layout, entries) }
    }

    /// A pipeline layout (group layouts live, limits checked by `create_pipeline_layout`).
    pub fn create_pipeline_layout(
        &self,
        desc: &PipelineLayoutDescriptor<'_, A>,
    ) -> vigil_hal::Result<A::PipelineLayout> {
        // SAFETY: every group layout is live and together they fit the limits.
        unsafe { self.0.create_pipeline_layout(desc) }
    }

    /// Releases a pipeline layout nothing uses any more.
    pub fn destroy_pipeline_layout(&self, layout: A::PipelineLayout) {
        // SAFETY: as for buffers; pipelines retain their layouts.
        unsafe { self.0.destroy_pipeline_layout(layout) }
    }

    /// A shader module from code the translator produced.
    pub fn create_shader_module(
        &self,
        desc: &ShaderModuleDescriptor<'_>,
    ) -> vigil_hal::Result<A::ShaderModule> {
        // SAFETY: the code is naga's output for a module that parsed and validated with the
        // device's enabled capabilities.
        unsafe { self.0.create_shader_module(desc) }
    }

    /// Releases a shader module.
    pub fn destroy_shader_module(&self, module: A::ShaderModule) {
        // SAFETY: modules are only read at pipeline creation, which holds the device state.
        unsafe { self.0.destroy_shader_module(module) }
    }

    /// A compute pipeline (entry point, bindings and workgroup size checked).
    pub fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor<'_, A>,
    ) -> vigil_hal::Result<A::ComputePipeline> {
        // SAFETY: the entry point exists and is a compute stage whose bindings match the
        // live layout and whose workgroup size is within the limits.
        unsafe { self.0.create_compute_pipeline(desc) }
    }

    /// Releases a compute pipeline nothing uses any more.
    pub fn destroy_compute_pipeline(&self, pipeline: A::ComputePipeline) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_compute_pipeline(pipeline) }
    }

    /// A render pipeline (stages, vertex layouts, targets and depth-stencil checked).
    pub fn create_render_pipeline(
        &self,
        desc: &RenderPipelineDescriptor<'_, A>,
    ) -> vigil_hal::Result<A::RenderPipeline> {
        // SAFETY: `create_render_pipeline` checked every part against the others, the live
        // layout, the formats' capabilities and the device's features.
        unsafe { self.0.create_render_pipeline(desc) }
    }

    /// Releases a render pipeline nothing uses any more.
    pub fn destroy_render_pipeline(&self, pipeline: A::RenderPipeline) {
        // SAFETY: as for buffers.
        unsafe { self.0.destroy_render_pipeline(pipeline) }
    }

    /// Releases a command encoder none of whose command buffers is pending.
    pub fn destroy_command_encoder(&self, encoder: A::CommandEncoder) {
        // SAFETY: reached only for encoders never submitted, or after their submission
        // completed (or the device was confirmed quiescent at teardown).
        unsafe { self.0.destroy_command_encoder(encoder) }
    }

    /// Submits command buffers as one submission signalling `signal_value`.
    pub fn submit(
        &self,
        command_buffers: &[&A::CommandBuffer],
        signal_value: u64,
    ) -> vigil_hal::Result<()> {
        // SAFETY: `submit` checked that every command buffer belongs to this device, is
        // finished and unsubmitted, and names only live, unmapped objects (which the
        // in-flight record keeps alive until completion); serials only increase.
        unsafe { self.0.submit(command_buffers, signal_value) }
    }

    /// Submits behind the test seams' gate.
    #[cfg(feature = "test-seams")]
    pub fn submit_gated(
        &self,
        command_buffers: &[&A::CommandBuffer],
        signal_value: u64,
        gate: u64,
        after: &[(&Hal<A>, u64)],
    ) -> vigil_hal::Result<()> {
        use vigil_hal::TestControl as _;
        let after: Vec<(&A::Device, u64)> = after.iter().map(|(h, v)| (&h.0, *v)).collect();
        // SAFETY: as for `submit_after`.
        unsafe {
            self.0
                .submit_gated(command_buffers, signal_value, gate, &after)
        }
    }

    /// Whether the buffer's memory is host-visible.
    pub fn buffer_host_visible(&self, buffer: &A::Buffer) -> bool {
        self.0.mapping(buffer).is_some()
    }

    /// Another device over the same native device.
    pub fn share(&self) -> vigil_hal::Result<Self> {
        self.0.share().map(Hal)
    }

    /// Another device over the same native device, on its second queue (`None`: it has
    /// one).
    pub fn share_on_second_queue(&self) -> vigil_hal::Result<Option<Self>> {
        Ok(self.0.share_on_second_queue()?.map(Hal))
    }

    /// Another device over the same native device, on its compute-only queue (`None`: it
    /// has none).
    pub fn share_on_compute_queue(&self) -> vigil_hal::Result<Option<Self>> {
        Ok(self.0.share_on_compute_queue()?.map(Hal))
    }

    /// Which of the native device's queues the device submits to.
    pub fn queue_index(&self) -> u32 {
        self.0.queue_index()
    }

    /// Whether the device's queue draws.
    pub fn queue_draws(&self) -> bool {
        self.0.queue_draws()
    }

    /// As [`Hal::submit`], the GPU first waiting for each `(device, value)` of `after`
    /// (devices on other queues of the same native device).
    pub fn submit_after(
        &self,
        command_buffers: &[&A::CommandBuffer],
        signal_value: u64,
        after: &[(&Hal<A>, u64)],
    ) -> vigil_hal::Result<()> {
        let after: Vec<(&A::Device, u64)> = after.iter().map(|(h, v)| (&h.0, *v)).collect();
        // SAFETY: as for `submit`; and `submit` waits only for values the devices in `after`
        // (shares of this native device, found through a shared texture's last users)
        // already submitted, and keeps each of them alive in the in-flight record until
        // this submission completes.
        unsafe { self.0.submit_after(command_buffers, signal_value, &after) }
    }
}

/// Recycles command buffers whose execution completed (or that were never submitted).
pub(crate) fn reset_all<A: Api>(encoder: &mut A::CommandEncoder, buffers: Vec<A::CommandBuffer>) {
    use vigil_hal::CommandEncoder as _;
    // SAFETY: callers pass command buffers whose submission completed (from the completed
    // in-flight records) or that were never submitted.
    unsafe { encoder.reset_all(buffers) }
}

/// A command encoder while vigil records into it: safe methods for the backend's recording
/// calls. Every command reaches here after the encoder's checks for it (pass state, bound
/// state, handles live, ranges and alignments, layouts tracked), which is what the
/// backend's recording contract asks for.
pub(crate) struct Rec<'a, A: Api>(pub &'a mut A::CommandEncoder);

macro_rules! recording {
    ($($(#[$doc:meta])* fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*);)*) => {
        impl<A: Api> Rec<'_, A> {
            $(
                $(#[$doc])*
                #[inline]
                pub fn $name(&mut self $(, $arg: $ty)*) {
                    use vigil_hal::CommandEncoder as _;
                    // SAFETY: the encoder validated this command before recording it (see
                    // the type's documentation): pass state, bindings, live objects of this
                    // device, ranges, alignments and layouts.
                    unsafe { self.0.$name($($arg),*) }
                }
            )*
        }
    };
}

recording! {
    /// An acceleration structure build.
    fn build_acceleration_structure(&mut self, dst: &A::AccelerationStructure, input: vigil_hal::BuildInput<'_, A>);
    /// One pipeline barrier: global, buffer ranges, texture subresources.
    fn barriers(&mut self, memory: Option<MemoryBarrier>, buffers: &[BufferBarrier<'_, A>], textures: &[TextureBarrier<'_, A>]);
    /// A buffer copy.
    fn copy_buffer_to_buffer(&mut self, src: &A::Buffer, dst: &A::Buffer, region: BufferCopy);
    /// Several regions between two buffers.
    fn copy_buffer_regions(&mut self, src: &A::Buffer, dst: &A::Buffer, regions: &[BufferCopy]);
    /// A fill.
    fn fill_buffer(&mut self, buffer: &A::Buffer, offset: u64, size: u64, value: u32);
    /// A buffer-to-texture copy.
    fn copy_buffer_to_texture(&mut self, src: &A::Buffer, dst: &A::Texture, region: &BufferTextureCopy);
    /// A texture-to-buffer copy.
    fn copy_texture_to_buffer(&mut self, src: &A::Texture, dst: &A::Buffer, region: &BufferTextureCopy);
    /// A texture-to-texture copy.
    fn copy_texture_to_texture(&mut self, src: &A::Texture, dst: &A::Texture, region: &TextureCopy);
    /// A texture clear.
    fn clear_texture(&mut self, texture: &A::Texture, range: SubresourceRange, value: [f32; 4]);
    /// Query resets.
    fn reset_queries(&mut self, set: &A::QuerySet, first: u32, count: u32);
    /// A timestamp.
    fn write_timestamp(&mut self, set: &A::QuerySet, index: u32);
    /// An occlusion query begun (inside a pass, none active, the query reset).
    fn begin_occlusion_query(&mut self, set: &A::QuerySet, index: u32);
    /// The active occlusion query ended.
    fn end_occlusion_query(&mut self, set: &A::QuerySet, index: u32);
    /// A pipeline-statistics query begun (inside a pass without a view mask, none active,
    /// the query reset, graphics statistics on a queue that draws).
    fn begin_pipeline_statistics_query(&mut self, set: &A::QuerySet, index: u32);
    /// The active pipeline-statistics query ended.
    fn end_pipeline_statistics_query(&mut self, set: &A::QuerySet, index: u32);
    /// A query resolve.
    fn resolve_queries(&mut self, set: &A::QuerySet, first: u32, count: u32, dst: &A::Buffer, offset: u64);
    /// Immediate data, from byte 0, the layout's whole size.
    fn set_immediates(&mut self, layout: &A::PipelineLayout, data: &[u8]);
    /// A bind group.
    fn set_bind_group(&mut self, point: BindPoint, layout: &A::PipelineLayout, index: u32, group: A::BindGroupKey, dynamic_offsets: &[u32]);
    /// A compute pass begins.
    fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_, A>);
    /// The compute pass ends.
    fn end_compute_pass(&mut self);
    /// A compute pipeline.
    fn set_compute_pipeline(&mut self, pipeline: &A::ComputePipeline);
    /// A dispatch.
    fn dispatch(&mut self, count: [u32; 3]);
    /// An indirect dispatch.
    fn dispatch_indirect(&mut self, buffer: &A::Buffer, offset: u64);
    /// A render pass begins.
    fn begin_render_pass(&mut self, desc: &RenderPassDescriptor<'_, A>);
    /// The render pass ends.
    fn end_render_pass(&mut self);
    /// A render pipeline.
    fn set_render_pipeline(&mut self, pipeline: &A::RenderPipeline);
    /// A vertex buffer.
    fn set_vertex_buffer(&mut self, slot: u32, buffer: &A::Buffer, offset: u64);
    /// The index buffer.
    fn set_index_buffer(&mut self, buffer: &A::Buffer, offset: u64, format: IndexFormat);
    /// The viewport.
    fn set_viewport(&mut self, rect: [f32; 4], depth: [f32; 2]);
    /// The scissor.
    fn set_scissor(&mut self, rect: [u32; 4]);
    /// The blend constant.
    fn set_blend_constant(&mut self, color: [f32; 4]);
    /// The stencil reference.
    fn set_stencil_reference(&mut self, reference: u32);
    /// A draw.
    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>);
    /// An indexed draw.
    fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>);
    /// An indirect draw.
    fn draw_indirect(&mut self, buffer: &A::Buffer, offset: u64);
    /// An indexed indirect draw.
    fn draw_indexed_indirect(&mut self, buffer: &A::Buffer, offset: u64);
    /// `count` indirect draws `stride` bytes apart (a multiple of 4, at least 16) in one
    /// command (at most 65,535; above 1 only with `MULTI_DRAW_INDIRECT`).
    fn draw_indirect_multi(&mut self, buffer: &A::Buffer, offset: u64, count: u32, stride: u32);
    /// `count` indexed indirect draws in one command (as `draw_indirect_multi`, `stride` at
    /// least 20).
    fn draw_indexed_indirect_multi(&mut self, buffer: &A::Buffer, offset: u64, count: u32, stride: u32);
    /// Up to `max_count` indirect draws `stride` bytes apart (at least 16), as many as the
    /// GPU reads at `count_offset` of `count_buffer` (the device has
    /// `MULTI_DRAW_INDIRECT_COUNT`; without `INDIRECT_FIRST_INSTANCE` the commands are
    /// checked copies whose first instance is 0).
    fn draw_indirect_count(&mut self, buffer: &A::Buffer, offset: u64, count_buffer: &A::Buffer, count_offset: u64, max_count: u32, stride: u32);
    /// As `draw_indirect_count`, indexed (`stride` at least 20).
    fn draw_indexed_indirect_count(&mut self, buffer: &A::Buffer, offset: u64, count_buffer: &A::Buffer, count_offset: u64, max_count: u32, stride: u32);
    /// A mesh draw (a mesh pipeline bound, counts within the device's limits).
    fn draw_mesh_tasks(&mut self, count: [u32; 3]);
    /// A mesh draw with counts read from a buffer (a mesh pipeline bound).
    fn draw_mesh_tasks_indirect(&mut self, buffer: &A::Buffer, offset: u64);
    /// A debug group opened.
    fn push_debug_group(&mut self, label: &str);
    /// The debug group opened last closed (one is open in this recording, and in this
    /// pass when inside one).
    fn pop_debug_group(&mut self);
    /// A debug marker.
    fn insert_debug_marker(&mut self, label: &str);
}

/// A kind of native object vigil owns: how to release one.
pub(crate) trait NativeKind {
    /// The backend's type for it.
    type Raw<A: Api>;
    /// Releases it.
    fn destroy<A: Api>(hal: &Hal<A>, raw: Self::Raw<A>);
}

/// A native object released when dropped. vigil's objects hold theirs in one of these,
/// and are themselves shared (`Arc`) by whatever keeps them alive: the registry while the
/// handle is live, bind groups and views that retain them, encoders that recorded them,
/// and submissions until they complete. The last holder to let go releases the native
/// object, so none is released while anything can still use it.
pub(crate) struct Owned<A: Api, K: NativeKind> {
    hal: std::sync::Arc<Hal<A>>,
    raw: std::mem::ManuallyDrop<K::Raw<A>>,
}

impl<A: Api, K: NativeKind> Owned<A, K> {
    /// Takes ownership of `raw`.
    pub fn new(hal: &std::sync::Arc<Hal<A>>, raw: K::Raw<A>) -> Self {
        Owned {
            hal: hal.clone(),
            raw: std::mem::ManuallyDrop::new(raw),
        }
    }
}

impl<A: Api, K: NativeKind> Owned<A, K> {
    /// The native object, to change (a surface's configuration; callers hold the lock
    /// around it).
    pub fn get_mut(&mut self) -> &mut K::Raw<A> {
        &mut self.raw
    }
}

impl<A: Api, K: NativeKind> Deref for Owned<A, K> {
    type Target = K::Raw<A>;
    #[inline]
    fn deref(&self) -> &K::Raw<A> {
        &self.raw
    }
}

impl<A: Api, K: NativeKind> Drop for Owned<A, K> {
    fn drop(&mut self) {
        // SAFETY: `raw` is taken exactly once, here, and never touched again.
        let raw = unsafe { std::mem::ManuallyDrop::take(&mut self.raw) };
        K::destroy(&self.hal, raw);
    }
}

impl<A: Api, K: NativeKind> std::fmt::Debug for Owned<A, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owned")
    }
}

macro_rules! native_kinds {
    ($($kind:ident: $raw:ident => $destroy:ident;)*) => {$(
        /// A native object kind (see [`NativeKind`]).
        pub(crate) struct $kind;
        impl NativeKind for $kind {
            type Raw<A: Api> = A::$raw;
            fn destroy<A: Api>(hal: &Hal<A>, raw: A::$raw) {
                hal.$destroy(raw);
            }
        }
    )*};
}

native_kinds! {
    BufferKind: Buffer => destroy_buffer;
    TextureKind: Texture => destroy_texture;
    ViewKind: TextureView => destroy_texture_view;
    SamplerKind: Sampler => destroy_sampler;
    QuerySetKind: QuerySet => destroy_query_set;
    PipelineCacheKind: PipelineCache => destroy_pipeline_cache;
    BindGroupLayoutKind: BindGroupLayout => destroy_bind_group_layout;
    BindGroupKind: BindGroup => destroy_bind_group;
    PipelineLayoutKind: PipelineLayout => destroy_pipeline_layout;
    ShaderModuleKind: ShaderModule => destroy_shader_module;
    ComputePipelineKind: ComputePipeline => destroy_compute_pipeline;
    RenderPipelineKind: RenderPipeline => destroy_render_pipeline;
    SurfaceKind: Surface => destroy_surface;
    AccelKind: AccelerationStructure => destroy_acceleration_structure;
    TextureMemoryKind: TextureMemory => destroy_texture_memory;
}
