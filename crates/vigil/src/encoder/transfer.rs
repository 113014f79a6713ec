//! Copies, clears, timestamps and query resolves: commands outside passes. Each is a
//! usage scope of its own, recorded after the barriers its uses need.

use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle, QuerySet, Texture};
use crate::texture::{TexelCopyBufferLayout, TexelCopyTextureInfo};
use crate::track::{Subresources, Use};
use crate::validate;
use vigil_hal::{Access, Api, BufferCopy, BufferTextureCopy, Stages, TextureCopy, TextureLayout};

pub use crate::validate::copy::{COPY_BYTES_PER_ROW_ALIGNMENT, QUERY_RESOLVE_ALIGNMENT};

const READ: Use = Use::buffer(Stages::TRANSFER, Access::TRANSFER_READ);
const WRITE: Use = Use::buffer(Stages::TRANSFER, Access::TRANSFER_WRITE);
/// A copy by kernel's uses (see `device/copy.rs`): a storage read and a storage write.
const KERNEL_READ: Use = Use::buffer(Stages::COMPUTE, Access::SHADER_READ);
const KERNEL_WRITE: Use = Use::buffer(Stages::COMPUTE, Access::SHADER_WRITE);
const TEX_READ: Use = Use {
    stages: Stages::TRANSFER,
    access: Access::TRANSFER_READ,
    layout: TextureLayout::TransferSrc,
};
const TEX_WRITE: Use = Use {
    stages: Stages::TRANSFER,
    access: Access::TRANSFER_WRITE,
    layout: TextureLayout::TransferDst,
};

/// The subresources a copy of `layers` layers (slices of a 3D texture) from `at` of a
/// texture described by `desc` touches.
fn copied(
    desc: &crate::texture::TextureDescriptorOwned,
    at: &TexelCopyTextureInfo,
    layers: u32,
) -> Subresources {
    let (base_layer, layers) = desc.copied_layers(at.array_layer, layers);
    Subresources {
        base_mip: at.mip_level,
        mips: 1,
        base_layer,
        layers,
    }
}

impl<A: Api> CommandEncoder<A> {
    /// Copies `size` bytes from `src` at `src_offset` to `dst` at `dst_offset`. Offsets and
    /// size are multiples of 4; `src` needs `COPY_SRC`, `dst` `COPY_DST`; they differ.
    ///
    /// On a discrete GPU a copy between buffers without `MAP_READ` or `MAP_WRITE` usage,
    /// with offsets and size multiples of 16, runs as a compute kernel of vigil's own when
    /// it is of at least 1 MiB, or of at least 64 KiB and made right after another copy of
    /// at least 64 KiB (the encoder's previous call): on the H200 many copies in a row take
    /// between a fifth (1 MiB) and a twentieth (128 KiB) of the native copy command's GPU
    /// time, while a lone copy gains only from 1 MiB (see `device/copy.rs`). Recording one
    /// costs about 1.2 µs more CPU time. It is ordered against other work as a compute
    /// dispatch reading `src` and writing `dst` would be. Other copies use the native copy
    /// command.
    pub fn copy_buffer_to_buffer(
        &mut self,
        src: Buffer,
        src_offset: u64,
        dst: Buffer,
        dst_offset: u64,
        size: u64,
    ) -> Result<()> {
        const OP: &str = "copy_buffer_to_buffer";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let s = find(&mut e.used.buffers, &e.core, src, OP)?.clone();
            let d = find(&mut e.used.buffers, &e.core, dst, OP)?.clone();
            validate::copy::buffers(
                &e.label,
                src == dst,
                s.facts(),
                src_offset,
                d.facts(),
                dst_offset,
                size,
            )?;
            if size == 0 {
                return Ok(());
            }
            e.copy_words_unchecked(&s, src_offset, &d, dst_offset, size, OP)
        })
    }

    /// Records a buffer copy after the barriers it needs (arguments already checked): by
    /// vigil's copy kernel where the device copies so (see `device/copy.rs`), else by the
    /// native copy command.
    fn copy_words_unchecked(
        &mut self,
        s: &std::sync::Arc<crate::device::BufferObj<A>>,
        src_offset: u64,
        d: &std::sync::Arc<crate::device::BufferObj<A>>,
        dst_offset: u64,
        size: u64,
        op: &'static str,
    ) -> Result<()> {
        let copy = CopySpan {
            src_offset,
            dst_offset,
            size,
        };
        if let Some((least, alone, window, align)) = self.core.kernel_copy_policy() {
            // A copy made right after another of at least `least` bytes is one of a
            // batch; one that is not takes the kernel only from `alone` bytes (see
            // `device/copy.rs`).
            let follows = self.kernel_sized_copy == self.calls.count.wrapping_sub(1);
            let sized = size >= least;
            if sized {
                self.kernel_sized_copy = self.calls.count;
            }
            if sized
                && (size >= alone || follows)
                && (src_offset | dst_offset | size) % 16 == 0
                && crate::device::copy::in_device_memory(s.usage)
                && crate::device::copy::in_device_memory(d.usage)
                && self.copy_by_kernel(s, d, copy, (window, align), op)?
            {
                return Ok(());
            }
        }
        let ranges = ((copy.src_offset, copy.size), (copy.dst_offset, copy.size));
        self.track_copy(s, d, ranges, (READ, WRITE), op)?;
        if let Some(mut r) = self.rec() {
            r.copy_buffer_to_buffer(
                &s.raw,
                &d.raw,
                BufferCopy {
                    src_offset,
                    dst_offset,
                    size,
                },
            );
        }
        self.recorded = true;
        Ok(())
    }

    /// Adds a copy's read of `s` and write of `d` (as `uses`) to the tracker as a scope of
    /// their own and records the barriers they need; the copy's commands go next.
    fn track_copy(
        &mut self,
        s: &std::sync::Arc<crate::device::BufferObj<A>>,
        d: &std::sync::Arc<crate::device::BufferObj<A>>,
        ((src_offset, src_size), (dst_offset, dst_size)): ((u64, u64), (u64, u64)),
        (read, write): (Use, Use),
        op: &'static str,
    ) -> Result<()> {
        let (ss, ds) = (self.used.buffer_slot(s), self.used.buffer_slot(d));
        self.used.next_scope();
        self.used
            .use_buffer(ss, src_offset, src_size, read, &mut self.pending);
        self.used
            .use_buffer(ds, dst_offset, dst_size, write, &mut self.pending);
        self.flush_pending(op)?;
        self.ensure_open(op)
    }

    /// Records a copy as dispatches of vigil's copy kernel, one per window of at most
    /// `window` bytes from offsets aligned to `align`; `false` (nothing recorded) where the
    /// backend has no kernel. The groups binding the windows are made before anything is
    /// recorded, so a refusal changes nothing.
    fn copy_by_kernel(
        &mut self,
        s: &std::sync::Arc<crate::device::BufferObj<A>>,
        d: &std::sync::Arc<crate::device::BufferObj<A>>,
        copy: CopySpan,
        (window, align): (u64, u64),
        op: &'static str,
    ) -> Result<bool> {
        let kernel = match self.used.copy_kernel.clone() {
            Some(k) => k,
            None => match self.core.copy_pipeline(op)? {
                Some(k) => k,
                None => return Ok(false),
            },
        };
        let max_groups = self.core.limits.max_compute_workgroups_per_dimension;
        let CopySpan {
            src_offset,
            dst_offset,
            size,
        } = copy;
        let pieces: Vec<_> =
            crate::device::copy::pieces(src_offset, dst_offset, size, window, align, max_groups)
                .collect();
        let mut groups = Vec::with_capacity(pieces.len().saturating_mul(2));
        for p in &pieces {
            groups.push(self.core.copy_group(&kernel, true, &s.raw, p.src, op)?);
            groups.push(self.core.copy_group(&kernel, false, &d.raw, p.dst, op)?);
        }
        let ranges = crate::device::copy::bound(&pieces);
        self.track_copy(s, d, ranges, (KERNEL_READ, KERNEL_WRITE), op)?;
        if let Some(mut r) = self.rec() {
            r.begin_compute_pass(&vigil_hal::ComputePassDescriptor {
                label: "vigil copy",
                timestamp_writes: None,
            });
            r.set_compute_pipeline(&kernel.pipeline);
            for (p, pair) in pieces.iter().zip(groups.chunks_exact(2)) {
                let point = vigil_hal::BindPoint::Compute;
                r.set_bind_group(point, &kernel.layout, 0, A::bind_group_key(&pair[0]), &[]);
                r.set_bind_group(point, &kernel.layout, 1, A::bind_group_key(&pair[1]), &[]);
                r.set_immediates(&kernel.layout, &p.immediates);
                r.dispatch([p.groups[0], p.groups[1], 1]);
            }
            r.end_compute_pass();
        }
        self.used.copy_groups.append(&mut groups);
        self.used.copy_kernel = Some(kernel);
        self.recorded = true;
        Ok(true)
    }

    /// Copies whole words for the device's own readback (the range may reach into the
    /// padding that rounds a buffer up to whole words).
    pub(crate) fn copy_words(
        &mut self,
        src: Buffer,
        src_offset: u64,
        dst: Buffer,
        size: u64,
    ) -> Result<()> {
        const OP: &str = "read_buffer";
        self.step(OP, |e| {
            let s = find(&mut e.used.buffers, &e.core, src, OP)?.clone();
            let d = find(&mut e.used.buffers, &e.core, dst, OP)?.clone();
            let padded = s.size.checked_next_multiple_of(4).unwrap_or(s.size);
            validate::buffer::range(OP, &s.label, "read", src_offset, size, padded)?;
            e.copy_words_unchecked(&s, src_offset, &d, 0, size, OP)
        })
    }

    /// Zeroes `size` bytes (default: to the end) of `buffer` from `offset`; both multiples
    /// of 4; the buffer needs `COPY_DST`.
    pub fn clear_buffer(&mut self, buffer: Buffer, offset: u64, size: Option<u64>) -> Result<()> {
        const OP: &str = "clear_buffer";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let b = find(&mut e.used.buffers, &e.core, buffer, OP)?.clone();
            let size = validate::copy::clear(&e.label, b.facts(), offset, size)?;
            if size == 0 {
                return Ok(());
            }
            let slot = e.used.buffer_slot(&b);
            e.used.next_scope();
            e.used.use_buffer(slot, offset, size, WRITE, &mut e.pending);
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            if let Some(mut r) = e.rec() {
                r.fill_buffer(&b.raw, offset, size, 0);
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// Zeroes `range` of `texture`: its mip levels and layers, of one aspect or all
    /// (wgpu's `clear_texture`, there behind the `CLEAR_TEXTURE` feature; every vigil
    /// device has it). Any texture may be cleared, without `COPY_DST` usage: color,
    /// depth and stencil formats, compressed ones (whole blocks of zeroes), multisampled
    /// ones and 3D ones (a 3D texture has one layer: its slices are cleared together).
    /// Refused inside a pass, for an aspect the format lacks (`clear-texture.aspect`) and
    /// for mip levels or layers outside the texture (`clear-texture.range`); an empty
    /// range clears nothing.
    pub fn clear_texture(
        &mut self,
        texture: Texture,
        range: &crate::texture::ImageSubresourceRange,
    ) -> Result<()> {
        const OP: &str = "clear_texture";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let t = find(&mut e.used.textures, &e.core, texture, OP)?.clone();
            let [base_mip, mips, base_layer, layers] =
                validate::texture::clear(&e.label, &t.label, &t.desc, range)?;
            if mips == 0 || layers == 0 {
                return Ok(());
            }
            let slot = e.used.texture_slot(&t);
            e.check_alias(slot, OP)?;
            e.used.next_scope();
            let cleared = Subresources {
                base_mip,
                mips,
                base_layer,
                layers,
            };
            e.used.use_texture(slot, cleared, TEX_WRITE, &mut e.pending);
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            let native = vigil_hal::SubresourceRange {
                aspect: range.aspect,
                base_mip_level: base_mip,
                mip_level_count: mips,
                base_array_layer: base_layer,
                array_layer_count: layers,
            };
            if let Some(mut r) = e.rec() {
                r.clear_texture(&t.raw, native, [0.0; 4]);
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// Copies texel rows from a buffer into a texture box. `bytes_per_row` must be a
    /// multiple of 256 and the offset a multiple of the texel size. For compressed formats
    /// the box is whole blocks and rows are rows of blocks (`rows_per_image` counts them).
    /// A 3D texture's box is `[width, height, depth]`, from slice `at.array_layer`.
    pub fn copy_buffer_to_texture(
        &mut self,
        src: Buffer,
        layout: TexelCopyBufferLayout,
        dst: Texture,
        at: TexelCopyTextureInfo,
        size: [u32; 3],
    ) -> Result<()> {
        self.buffer_texture_copy("copy_buffer_to_texture", src, layout, dst, at, size, true)
    }

    /// Copies a texture box into texel rows of a buffer. `bytes_per_row` must be a multiple
    /// of 256 and the offset a multiple of the texel size. For compressed formats the box
    /// is whole blocks and rows are rows of blocks.
    pub fn copy_texture_to_buffer(
        &mut self,
        src: Texture,
        at: TexelCopyTextureInfo,
        dst: Buffer,
        layout: TexelCopyBufferLayout,
        size: [u32; 3],
    ) -> Result<()> {
        self.buffer_texture_copy("copy_texture_to_buffer", dst, layout, src, at, size, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn buffer_texture_copy(
        &mut self,
        op: &'static str,
        buffer: Buffer,
        layout: TexelCopyBufferLayout,
        texture: Texture,
        at: TexelCopyTextureInfo,
        size: [u32; 3],
        to_texture: bool,
    ) -> Result<()> {
        self.step(op, |e| {
            e.expect_pass(Pass::None, op)?;
            let b = find(&mut e.used.buffers, &e.core, buffer, op)?.clone();
            let t = find(&mut e.used.textures, &e.core, texture, op)?.clone();
            let fp = validate::copy::buffer_texture(
                op,
                &e.label,
                to_texture,
                b.facts(),
                &layout,
                &t.label,
                &t.desc,
                &at,
                size,
            )?;
            if size.contains(&0) {
                return Ok(());
            }
            let bs = e.used.buffer_slot_of(buffer.index(), buffer.generation());
            let ts = e
                .used
                .texture_slot_of(texture.index(), texture.generation());
            e.check_alias(ts, op)?;
            let (bu, tu) = if to_texture {
                (READ, TEX_WRITE)
            } else {
                (WRITE, TEX_READ)
            };
            e.used.next_scope();
            e.used
                .use_buffer(bs, layout.offset, fp.len, bu, &mut e.pending);
            e.used
                .use_texture(ts, copied(&t.desc, &at, size[2]), tu, &mut e.pending);
            e.flush_pending(op)?;
            e.ensure_open(op)?;
            let region = BufferTextureCopy {
                buffer_offset: layout.offset,
                bytes_per_row: layout.bytes_per_row,
                rows_per_image: layout
                    .rows_per_image
                    .unwrap_or(validate::copy::blocks(t.desc.format, size)[1]),
                mip_level: at.mip_level,
                base_array_layer: at.array_layer,
                origin: at.origin,
                size,
                aspect: at.aspect,
            };
            if let Some(mut r) = e.rec() {
                if to_texture {
                    r.copy_buffer_to_texture(&b.raw, &t.raw, &region);
                } else {
                    r.copy_texture_to_buffer(&t.raw, &b.raw, &region);
                }
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// Copies a `[width, height, layers]` box between two textures of the same format (or
    /// sRGB twins) and sample count. A 3D texture's layers are its slices: a 2D array and a
    /// 3D texture copy into each other layer to slice; other textures of different
    /// dimensions are refused (`copy.dimension`).
    pub fn copy_texture_to_texture(
        &mut self,
        src: Texture,
        src_at: TexelCopyTextureInfo,
        dst: Texture,
        dst_at: TexelCopyTextureInfo,
        size: [u32; 3],
    ) -> Result<()> {
        const OP: &str = "copy_texture_to_texture";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let s = find(&mut e.used.textures, &e.core, src, OP)?.clone();
            let d = find(&mut e.used.textures, &e.core, dst, OP)?.clone();
            validate::copy::textures(
                &e.label,
                src == dst,
                &s.label,
                &s.desc,
                &src_at,
                &d.label,
                &d.desc,
                &dst_at,
                size,
            )?;
            if size.contains(&0) {
                return Ok(());
            }
            let (ss, ds) = (e.used.texture_slot(&s), e.used.texture_slot(&d));
            e.check_alias(ss, OP)?;
            e.check_alias(ds, OP)?;
            e.used.next_scope();
            e.used.use_texture(
                ss,
                copied(&s.desc, &src_at, size[2]),
                TEX_READ,
                &mut e.pending,
            );
            e.used.use_texture(
                ds,
                copied(&d.desc, &dst_at, size[2]),
                TEX_WRITE,
                &mut e.pending,
            );
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            let region = TextureCopy {
                src_mip_level: src_at.mip_level,
                src_base_array_layer: src_at.array_layer,
                src_origin: src_at.origin,
                dst_mip_level: dst_at.mip_level,
                dst_base_array_layer: dst_at.array_layer,
                dst_origin: dst_at.origin,
                size,
                aspect: src_at.aspect,
            };
            if let Some(mut r) = e.rec() {
                r.copy_texture_to_texture(&s.raw, &d.raw, &region);
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// Writes a timestamp into query `index` once all earlier work finished.
    pub fn write_timestamp(&mut self, set: QuerySet, index: u32) -> Result<()> {
        const OP: &str = "write_timestamp";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let q = find(&mut e.used.query_sets, &e.core, set, OP)?;
            validate::encoder::timestamp_set(OP, &e.label, &q.label, q.ty)?;
            validate::encoder::pass_timestamps(OP, &e.label, &q.label, q.count, Some(index), None)?;
            e.prepare_query_write(set, index, OP)?;
            if let (Some(q), Some(pool)) = (
                e.used.query_sets.get(set.index(), set.generation()),
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool).write_timestamp(&q.raw, index);
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// Copies `count` query results from `first` into `dst` at `offset`, a `u64` each:
    /// timestamps as ticks (multiply by the adapter's timestamp period for nanoseconds),
    /// occlusion queries as a count that is nonzero when any sample passed, and
    /// pipeline-statistics queries as one `u64` per statistic their set counts, in the
    /// order of [`PipelineStatisticsTypes`](crate::PipelineStatisticsTypes)' flags. Only
    /// queries this encoder wrote (or ended) are resolved (`query.not-written`).
    pub fn resolve_query_set(
        &mut self,
        set: QuerySet,
        first: u32,
        count: u32,
        dst: Buffer,
        offset: u64,
    ) -> Result<()> {
        const OP: &str = "resolve_query_set";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let q = find(&mut e.used.query_sets, &e.core, set, OP)?.clone();
            let b = find(&mut e.used.buffers, &e.core, dst, OP)?.clone();
            // Each query is one u64 per value (several for pipeline statistics).
            let per = u64::from(q.ty.values()).saturating_mul(8);
            validate::copy::resolve(
                &e.label,
                &q.label,
                q.count,
                (first, count, per),
                b.facts(),
                offset,
            )?;
            if count == 0 {
                // Nothing to copy, and Vulkan wants the offset inside the buffer even then.
                return Ok(());
            }
            let end = first.saturating_add(count);
            if let Some(n) = (first..end).find(|&n| !e.query_written(set.index(), n)) {
                // Resolving a query nothing wrote would wait on the GPU forever.
                return Err(fail!(QueryNotWritten, OP, &e.label, "query {n} of '{}' was not written by this encoder; only queries written here can be resolved here", q.label));
            }
            let slot = e.used.buffer_slot(&b);
            let bytes = u64::from(count).saturating_mul(per);
            e.used.next_scope();
            e.used.use_buffer(slot, offset, bytes, WRITE, &mut e.pending);
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            if let Some(mut r) = e.rec() {
                r.resolve_queries(&q.raw, first, count, &b.raw, offset);
            }
            e.recorded = true;
            Ok(())
        })
    }
}

/// A buffer copy's offsets and size, in bytes.
#[derive(Clone, Copy)]
struct CopySpan {
    src_offset: u64,
    dst_offset: u64,
    size: u64,
}
