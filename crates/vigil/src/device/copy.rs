//! Buffer copies through a compute kernel of vigil's own.
//!
//! On the H200 (driver 580.159.04) `vkCmdCopyBuffer` between device-local buffers moves
//! about 425 GB/s, through raw ash and wgpu alike, while a compute kernel with four 16-byte
//! loads in flight per thread moves about 2,108 GB/s over the same bytes (see "Copies by
//! kernel" in `docs/performance.md`). So on a discrete GPU a copy between two buffers that
//! live in device memory, with both offsets and the size multiples of 16, of at least
//! [`KERNEL_COPY_ALONE_MIN`] bytes, or of at least [`KERNEL_COPY_MIN`] bytes right after
//! another copy of at least that size, is recorded as that kernel; every other copy stays
//! `vkCmdCopyBuffer`. The kernel binds windows of the two buffers (at most the device's
//! storage binding size each, from offsets the storage offset alignment allows) and copies
//! 16-byte elements between them, one dispatch per window; its bounds checks and an
//! element count keep every write inside the copy's destination range. The recording
//! tracks the copy as a compute-shader read of the source range and write of the
//! destination range, so barriers around it are derived as for any dispatch.

use super::indirect::{Kernel, Pipeline};
use crate::error::Result;
use std::sync::Arc;
use vigil_hal::{Api, ShaderFormat};

/// The kernel: thread `i` of a dispatch of `n` threads copies elements `i`, `i + n`,
/// `i + 2n` and `i + 3n` of the window (all four loaded before any is stored when all are
/// in range), offset by `p.src` in the source window and `p.dst` in the destination's.
const SOURCE: &str = "
struct P { src: u32, dst: u32, count: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(1) @binding(0) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) n: vec3<u32>) {
    let stride = n.x * n.y * 256u;
    let i0 = (wg.x + wg.y * n.x) * 256u + lid;
    let i1 = i0 + stride;
    let i2 = i1 + stride;
    let i3 = i2 + stride;
    if i3 < p.count {
        let v0 = src[p.src + i0];
        let v1 = src[p.src + i1];
        let v2 = src[p.src + i2];
        let v3 = src[p.src + i3];
        dst[p.dst + i0] = v0;
        dst[p.dst + i1] = v1;
        dst[p.dst + i2] = v2;
        dst[p.dst + i3] = v3;
        return;
    }
    if i0 < p.count { dst[p.dst + i0] = src[p.src + i0]; }
    if i1 < p.count { dst[p.dst + i1] = src[p.src + i1]; }
    if i2 < p.count { dst[p.dst + i2] = src[p.src + i2]; }
}
";

/// Copies of at least this many bytes go through the kernel on a device that copies by
/// kernel. On the H200 (session 47, 65,536 copies of one size in one command buffer, GPU
/// time per copy) the kernel took 0.15 µs for 4 KiB against the copy command's 1.74 µs,
/// 0.16 against 2.11 µs for 32 KiB, 0.16 against 2.60 µs for 64 KiB, 0.18 against 0.79 µs
/// for 256 KiB and 0.59 against 2.98 µs for 1 MiB (4,096 copies). Recording one costs
/// more CPU time, though (two groups for its windows and a short compute pass): 1.82
/// against 0.31 µs for 4 KiB, 1.71 against 0.48 µs for 64 KiB. From 64 KiB the GPU time
/// saved is about twice the CPU time added; at 4 KiB the two are about even, so smaller
/// copies keep the copy command. A lone copy (session 48, one copy in its own submission)
/// is another matter: the kernel took 6.7 µs against the command's 4.1 at 64 KiB, 6.8
/// against 6.5 at 256 KiB and 6.8 against 7.8 at 1 MiB: this threshold is for copies
/// recorded together, [`KERNEL_COPY_ALONE_MIN`] for the others.
pub(crate) const KERNEL_COPY_MIN: u64 = 64 << 10;

/// A copy of at least [`KERNEL_COPY_MIN`] bytes that does not come right after another
/// (the encoder's previous call was not a buffer copy of at least that size) goes through
/// the kernel only from this size: alone, the kernel loses to the copy command below
/// 256 KiB on the H200 (session 48, above) and wins from 1 MiB. With this rule a lone
/// copy took 4.9 µs at 64 KiB and 5.4 µs at 128 KiB (the command's 4.1 and 5.2), and
/// 65,536 copies of 64 KiB in a row took what they took with the kernel for all of them
/// (the first now by the command).
pub(crate) const KERNEL_COPY_ALONE_MIN: u64 = 1 << 20;

/// Bytes of the kernel's immediate data: the two windows' first elements and the count.
const IMMEDIATES: u32 = 12;

/// Bytes one workgroup copies: 256 threads, four 16-byte elements each.
const PER_GROUP: u64 = 256 * 4 * 16;

/// The most bytes one dispatch copies: 2³⁰ elements, so no index the kernel computes
/// passes `u32::MAX`.
const MAX_PIECE: u64 = 16 << 30;

const COPY: Kernel = Kernel {
    label: "vigil copy",
    file: "vigil-copy.wgsl",
    source: SOURCE,
    dst_dynamic: false,
    min_sizes: (16, 16),
    immediates: IMMEDIATES,
};

/// One dispatch of a copy by kernel: the windows bound (offset and size in each buffer),
/// the immediate data and the workgroups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    /// The source window: `(offset, size)` in bytes.
    pub src: (u64, u64),
    /// The destination window.
    pub dst: (u64, u64),
    /// First source element, first destination element and element count (16 bytes each),
    /// little-endian words.
    pub immediates: [u8; IMMEDIATES as usize],
    /// Workgroups in x and y.
    pub groups: [u32; 2],
}

/// The pieces of a copy of `size` bytes from `src_offset` to `dst_offset` (all multiples
/// of 16): windows starting at multiples of `align` (a power of two, at least 16), each at
/// most `window` bytes (at least four times `align`), dispatches of at most `max_groups`
/// workgroups in x.
pub(crate) fn pieces(
    src_offset: u64,
    dst_offset: u64,
    size: u64,
    window: u64,
    align: u64,
    max_groups: u32,
) -> impl Iterator<Item = Piece> {
    // A piece starts less than `align` past its window's start.
    let most = (window.saturating_sub(align) & !15).clamp(16, MAX_PIECE);
    let max_groups = u64::from(max_groups.max(1));
    let mut done = 0u64;
    std::iter::from_fn(move || {
        if done >= size {
            return None;
        }
        // Offsets and sizes were checked against their buffers: none of these sums nears
        // `u64::MAX`, and every element index fits a `u32` (`MAX_PIECE`).
        let len = size.saturating_sub(done).min(most);
        let (s, d) = (
            src_offset.saturating_add(done),
            dst_offset.saturating_add(done),
        );
        done = done.saturating_add(len);
        let window_of = |at: u64| {
            let base = at & !align.saturating_sub(1);
            let skip = at.saturating_sub(base);
            (base, skip.saturating_add(len), (skip / 16) as u32)
        };
        let ((src_base, src_len, src_skip), (dst_base, dst_len, dst_skip)) =
            (window_of(s), window_of(d));
        let words = [src_skip, dst_skip, (len / 16) as u32];
        let mut immediates = [0u8; IMMEDIATES as usize];
        for (at, w) in immediates.chunks_exact_mut(4).zip(words) {
            at.copy_from_slice(&w.to_le_bytes());
        }
        let needed = len.div_ceil(PER_GROUP).max(1);
        let x = needed.min(max_groups);
        let y = needed.div_ceil(x);
        let (src, dst) = ((src_base, src_len), (dst_base, dst_len));
        Some(Piece {
            src,
            dst,
            immediates,
            groups: [x as u32, y as u32],
        })
    })
}

/// What `pieces` bind of the source and of the destination, `((offset, size), (offset,
/// size))`: the ranges a copy by kernel is tracked as reading and writing. Not only the
/// copy's ranges, since a window may start below its piece (at the storage offset
/// alignment) and validation takes a storage binding's whole range as the dispatch's
/// access.
pub(crate) fn bound(pieces: &[Piece]) -> ((u64, u64), (u64, u64)) {
    let span = |window: fn(&Piece) -> (u64, u64)| {
        let (start, end) = pieces
            .iter()
            .map(window)
            .fold((u64::MAX, 0u64), |(start, end), (at, len)| {
                (start.min(at), end.max(at.saturating_add(len)))
            });
        (start.min(end), end.saturating_sub(start))
    };
    (span(|p| p.src), span(|p| p.dst))
}

/// Whether a buffer of `usage` lives in device memory (it is not mappable: mappable
/// buffers are placed in host memory), where a copy may go through the kernel.
pub(crate) fn in_device_memory(usage: vigil_hal::BufferUsages) -> bool {
    !usage.intersects(vigil_hal::BufferUsages::MAP_READ | vigil_hal::BufferUsages::MAP_WRITE)
}

impl<A: Api> super::Core<A> {
    /// Whether copies may go through the kernel on this device at all: SPIR-V shaders, and
    /// a discrete GPU (or a build with `test-seams`, where a seam may ask for it). Decided
    /// once per device; device-local copy buffers then carry the storage usage it needs.
    pub(crate) fn kernel_copies_possible(&self) -> bool {
        A::SHADER_FORMAT == ShaderFormat::SpirV
            && (self.info.device_type == vigil_hal::DeviceType::DiscreteGpu
                || cfg!(feature = "test-seams"))
    }

    /// When copies go through the kernel now: `(least bytes of a copy in a batch, least
    /// bytes of a copy alone, most bytes bound at once, window alignment)`, or `None` when
    /// none do (a seam arms both least sizes at once).
    pub(crate) fn kernel_copy_policy(&self) -> Option<(u64, u64, u64, u64)> {
        if !self.kernel_copies_possible() {
            return None;
        }
        let (armed, armed_window, armed_align) = self.seams.kernel_copies();
        let (least, alone) = if armed != 0 {
            (armed, armed)
        } else if self.info.device_type == vigil_hal::DeviceType::DiscreteGpu {
            (KERNEL_COPY_MIN, KERNEL_COPY_ALONE_MIN)
        } else {
            return None;
        };
        let align = u64::from(self.limits.min_storage_buffer_offset_alignment)
            .max(16)
            .max(armed_align)
            .next_power_of_two();
        let limit = self.limits.max_storage_buffer_binding_size & !15;
        let least_window = align.saturating_mul(4);
        let window = match armed_window {
            0 => limit,
            w => w.max(least_window).min(limit),
        };
        (window >= least_window).then_some((least, alone, window, align))
    }

    /// The copy kernel's pipeline, made on the first call (`None`: the backend's shaders
    /// are not SPIR-V).
    pub(crate) fn copy_pipeline(&self, op: &'static str) -> Result<Option<Arc<Pipeline<A>>>> {
        self.kept_kernel(&self.copies, &COPY, op)
    }

    /// A group binding a window of `buffer` for the copy kernel (`read`: its source).
    pub(crate) fn copy_group(
        &self,
        p: &Pipeline<A>,
        read: bool,
        buffer: &A::Buffer,
        window: (u64, u64),
        op: &'static str,
    ) -> Result<crate::native::Owned<A, crate::native::BindGroupKind>> {
        let layout = if read { &p.src_layout } else { &p.dst_layout };
        self.kernel_group(COPY.label, layout, buffer, window.0, window.1, op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(p: &Piece, k: usize) -> u32 {
        let mut words = p
            .immediates
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        words.nth(k).unwrap()
    }

    /// Pieces cover the copy exactly, in order; each window starts aligned, holds its
    /// piece and stays within the window size; the workgroups cover the piece.
    #[test]
    fn pieces_cover_the_copy_within_aligned_windows() {
        for &(so, dso, size, window, align) in &[
            (0u64, 0u64, 16u64, 1024u64, 256u64),
            (16, 48, 4096, 1024, 256),
            (272, 4000, 1 << 20, 4096, 256),
            (0, 0, 3 << 30, 4 << 30, 16),
            (4080, 16, (5 << 20) + 48, 1 << 20, 64),
        ] {
            let all: Vec<Piece> = pieces(so, dso, size, window, align, 65_535).collect();
            let mut done = 0u64;
            for p in &all {
                let (first_src, first_dst, count) = (word(p, 0), word(p, 1), word(p, 2));
                let len = u64::from(count) * 16;
                assert!(len > 0);
                assert_eq!(p.src.0 % align, 0);
                assert_eq!(p.dst.0 % align, 0);
                assert_eq!(p.src.0 + u64::from(first_src) * 16, so + done);
                assert_eq!(p.dst.0 + u64::from(first_dst) * 16, dso + done);
                assert_eq!(p.src.1, u64::from(first_src) * 16 + len);
                assert_eq!(p.dst.1, u64::from(first_dst) * 16 + len);
                assert!(p.src.1 <= window && p.dst.1 <= window, "{p:?}");
                let threads = u64::from(p.groups[0]) * u64::from(p.groups[1]) * 256;
                assert!(threads * 4 * 16 >= len);
                assert!(p.groups[0] <= 65_535 && p.groups[1] <= 65_535);
                done += len;
            }
            assert_eq!(done, size);
            // What they bind in all: from the first window's aligned start to the copy's end.
            let base = |at: u64| at & !(align - 1);
            assert_eq!(
                bound(&all),
                (
                    (base(so), so + size - base(so)),
                    (base(dso), dso + size - base(dso))
                )
            );
        }
        assert_eq!(bound(&[]), ((0, 0), (0, 0)));
    }
}
