//! Copies, clears, timestamps and query resolves: commands outside passes.

use super::{Access, CommandEncoder, Kind, Pass};
use crate::device::{check_range, layout_stages};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle, QuerySet, Texture};
use crate::texture::{TexelCopyBufferLayout, TexelCopyTextureInfo};
use vigil_hal::{
    Api, BufferCopy, BufferTextureCopy, BufferUsages, Stages, SubresourceRange, TextureAspect,
    TextureBarrier, TextureCopy, TextureLayout, TextureUsages,
};

/// Bytes-per-row alignment of buffer-texture copies recorded in encoders.
pub const COPY_BYTES_PER_ROW_ALIGNMENT: u32 = 256;
/// Offset alignment of query resolves.
pub const QUERY_RESOLVE_ALIGNMENT: u64 = 256;

impl<'d, A: Api> CommandEncoder<'d, A> {
    /// Barrier bookkeeping for a transfer touching buffers.
    fn transfer_accesses(&mut self, reads: &[u32], writes: &[u32]) {
        let r = Access {
            write: false,
            stages: Stages::TRANSFER,
        };
        let w = Access {
            write: true,
            stages: Stages::TRANSFER,
        };
        let mut need = self.barriers.first;
        for &i in reads {
            need |= self.tracker.hazard(Kind::Buffer, i, r, &self.barriers);
        }
        for &i in writes {
            need |= self.tracker.hazard(Kind::Buffer, i, w, &self.barriers);
        }
        if need {
            self.barrier();
        }
        for &i in reads {
            self.tracker.record(Kind::Buffer, i, r, &mut self.barriers);
        }
        for &i in writes {
            self.tracker.record(Kind::Buffer, i, w, &mut self.barriers);
        }
        self.recorded = true;
    }

    /// Copies `size` bytes from `src` at `src_offset` to `dst` at `dst_offset`. Offsets and
    /// size are multiples of 4; `src` needs `COPY_SRC`, `dst` `COPY_DST`; they differ.
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
            let st = e.state(OP)?;
            let s = st.buffers.value(src, e.device.id, OP)?;
            let d = st.buffers.value(dst, e.device.id, OP)?;
            if src == dst {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    &e.label,
                    "source and destination are the same buffer '{}'",
                    s.label
                ));
            }
            if !s.usage.contains(BufferUsages::COPY_SRC) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "source '{}' lacks COPY_SRC usage ({:?})",
                    s.label,
                    s.usage
                ));
            }
            if !d.usage.contains(BufferUsages::COPY_DST) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "destination '{}' lacks COPY_DST usage ({:?})",
                    d.label,
                    d.usage
                ));
            }
            if src_offset % 4 != 0 || dst_offset % 4 != 0 || size % 4 != 0 {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "offsets {src_offset}, {dst_offset} and size {size} must be multiples of 4"
                ));
            }
            check_range(OP, &e.label, "source", src_offset, size, s.size)?;
            check_range(OP, &e.label, "destination", dst_offset, size, d.size)?;
            if size == 0 {
                return Ok(());
            }
            e.transfer_accesses(&[src.index()], &[dst.index()]);
            e.record(|r| {
                r.copy_buffer_to_buffer(
                    &s.raw,
                    &d.raw,
                    BufferCopy {
                        src_offset,
                        dst_offset,
                        size,
                    },
                )
            });
            drop(st);
            e.use_buffer(src.index(), src.generation());
            e.use_buffer(dst.index(), dst.generation());
            Ok(())
        })
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
            let st = e.state(OP)?;
            let s = st.buffers.value(src, e.device.id, OP)?;
            let d = st.buffers.value(dst, e.device.id, OP)?;
            check_range(
                OP,
                &s.label,
                "read",
                src_offset,
                size,
                s.size.checked_next_multiple_of(4).unwrap_or(s.size),
            )?;
            e.transfer_accesses(&[src.index()], &[dst.index()]);
            e.record(|r| {
                r.copy_buffer_to_buffer(
                    &s.raw,
                    &d.raw,
                    BufferCopy {
                        src_offset,
                        dst_offset: 0,
                        size,
                    },
                )
            });
            drop(st);
            e.use_buffer(src.index(), src.generation());
            e.use_buffer(dst.index(), dst.generation());
            Ok(())
        })
    }

    /// Zeroes `size` bytes (default: to the end) of `buffer` from `offset`; both multiples
    /// of 4; the buffer needs `COPY_DST`.
    pub fn clear_buffer(&mut self, buffer: Buffer, offset: u64, size: Option<u64>) -> Result<()> {
        const OP: &str = "clear_buffer";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let st = e.state(OP)?;
            let b = st.buffers.value(buffer, e.device.id, OP)?;
            if !b.usage.contains(BufferUsages::COPY_DST) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "clearing needs COPY_DST usage; buffer '{}' has {:?}",
                    b.label,
                    b.usage
                ));
            }
            if offset > b.size {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "offset {offset} is past the end of buffer '{}' ({} bytes)",
                    b.label,
                    b.size
                ));
            }
            let size = size.unwrap_or(b.size.saturating_sub(offset));
            if offset % 4 != 0 || size % 4 != 0 {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "offset {offset} and size {size} must be multiples of 4"
                ));
            }
            check_range(OP, &e.label, "clear", offset, size, b.size)?;
            if size == 0 {
                return Ok(());
            }
            e.transfer_accesses(&[], &[buffer.index()]);
            e.record(|r| r.fill_buffer(&b.raw, offset, size, 0));
            drop(st);
            e.use_buffer(buffer.index(), buffer.generation());
            Ok(())
        })
    }

    /// Copies texel rows from a buffer into a texture box. `bytes_per_row` must be a
    /// multiple of 256 and the offset a multiple of the texel size.
    pub fn copy_buffer_to_texture(
        &mut self,
        src: Buffer,
        layout: TexelCopyBufferLayout,
        dst: Texture,
        at: TexelCopyTextureInfo,
        size: [u32; 3],
    ) -> Result<()> {
        const OP: &str = "copy_buffer_to_texture";
        self.buffer_texture_copy(OP, src, layout, dst, at, size, true)
    }

    /// Copies a texture box into texel rows of a buffer. `bytes_per_row` must be a multiple
    /// of 256 and the offset a multiple of the texel size.
    pub fn copy_texture_to_buffer(
        &mut self,
        src: Texture,
        at: TexelCopyTextureInfo,
        dst: Buffer,
        layout: TexelCopyBufferLayout,
        size: [u32; 3],
    ) -> Result<()> {
        const OP: &str = "copy_texture_to_buffer";
        self.buffer_texture_copy(OP, dst, layout, src, at, size, false)
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
            let st = e.state(op)?;
            let b = st.buffers.value(buffer, e.device.id, op)?;
            let t = st.textures.value(texture, e.device.id, op)?;
            let (bu, tu) = if to_texture {
                (BufferUsages::COPY_SRC, TextureUsages::COPY_DST)
            } else {
                (BufferUsages::COPY_DST, TextureUsages::COPY_SRC)
            };
            if !b.usage.contains(bu) {
                return Err(fail!(
                    UsageMismatch,
                    op,
                    &e.label,
                    "buffer '{}' lacks {bu:?} usage ({:?})",
                    b.label,
                    b.usage
                ));
            }
            if !t.desc.usage.contains(tu) {
                return Err(fail!(
                    UsageMismatch,
                    op,
                    &e.label,
                    "texture '{}' lacks {tu:?} usage ({:?})",
                    t.label,
                    t.desc.usage
                ));
            }
            let texel = crate::device::check_texture_box(op, &t.label, &t.desc, &at, size)?;
            if layout.bytes_per_row % COPY_BYTES_PER_ROW_ALIGNMENT != 0 {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &e.label,
                    "bytes_per_row {} is not a multiple of {COPY_BYTES_PER_ROW_ALIGNMENT}",
                    layout.bytes_per_row
                ));
            }
            if layout.offset.checked_rem(u64::from(texel.max(4))) != Some(0) {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &e.label,
                    "buffer offset {} is not a multiple of {}",
                    layout.offset,
                    texel.max(4)
                ));
            }
            let Some(fp) = crate::device::texel_footprint(&layout, texel, size) else {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &e.label,
                    "the buffer layout {layout:?} puts the {}x{}x{} box past the end of any buffer",
                    size[0],
                    size[1],
                    size[2]
                ));
            };
            let row = fp.row;
            if u64::from(layout.bytes_per_row) < row {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &e.label,
                    "bytes_per_row {} is less than a row of {row} bytes",
                    layout.bytes_per_row
                ));
            }
            let rows_per_image = layout.rows_per_image.unwrap_or(size[1]);
            if rows_per_image < size[1] {
                return Err(fail!(
                    OutOfBounds,
                    op,
                    &e.label,
                    "rows_per_image {rows_per_image} is less than the height {}",
                    size[1]
                ));
            }
            if size.contains(&0) {
                return Ok(());
            }
            check_range(op, &e.label, "buffer", layout.offset, fp.len, b.size)?;
            let range = SubresourceRange {
                aspect: TextureAspect::All,
                base_mip_level: at.mip_level,
                mip_level_count: 1,
                base_array_layer: at.array_layer,
                array_layer_count: size[2],
            };
            let copy_layout = if to_texture {
                TextureLayout::TransferDst
            } else {
                TextureLayout::TransferSrc
            };
            let region = BufferTextureCopy {
                buffer_offset: layout.offset,
                bytes_per_row: layout.bytes_per_row,
                rows_per_image,
                mip_level: at.mip_level,
                base_array_layer: at.array_layer,
                origin: at.origin,
                size,
                aspect: at.aspect,
            };
            if to_texture {
                e.transfer_accesses(&[buffer.index()], &[]);
            } else {
                e.transfer_accesses(&[], &[buffer.index()]);
            }
            let rest = t.resting;
            e.record(|r| {
                r.texture_barriers(&[TextureBarrier {
                    texture: &t.raw,
                    range,
                    old_layout: rest,
                    new_layout: copy_layout,
                    src: Stages::ALL_COMMANDS,
                    dst: Stages::TRANSFER,
                }]);
                if to_texture {
                    r.copy_buffer_to_texture(&b.raw, &t.raw, &region);
                } else {
                    r.copy_texture_to_buffer(&t.raw, &b.raw, &region);
                }
                r.texture_barriers(&[TextureBarrier {
                    texture: &t.raw,
                    range,
                    old_layout: copy_layout,
                    new_layout: rest,
                    src: Stages::TRANSFER,
                    dst: Stages::ALL_COMMANDS | layout_stages(rest),
                }]);
            });
            drop(st);
            e.use_buffer(buffer.index(), buffer.generation());
            e.use_texture(texture.index(), texture.generation());
            Ok(())
        })
    }

    /// Copies a `[width, height, layers]` box between two textures of the same format (or
    /// sRGB twins) and sample count.
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
            let st = e.state(OP)?;
            let s = st.textures.value(src, e.device.id, OP)?;
            let d = st.textures.value(dst, e.device.id, OP)?;
            if src == dst {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    &e.label,
                    "source and destination are the same texture '{}'",
                    s.label
                ));
            }
            if !s.desc.usage.contains(TextureUsages::COPY_SRC) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "source '{}' lacks COPY_SRC usage ({:?})",
                    s.label,
                    s.desc.usage
                ));
            }
            if !d.desc.usage.contains(TextureUsages::COPY_DST) {
                return Err(fail!(
                    UsageMismatch,
                    OP,
                    &e.label,
                    "destination '{}' lacks COPY_DST usage ({:?})",
                    d.label,
                    d.desc.usage
                ));
            }
            let strip = |f: vigil_hal::TextureFormat| match f {
                vigil_hal::TextureFormat::Rgba8UnormSrgb => vigil_hal::TextureFormat::Rgba8Unorm,
                vigil_hal::TextureFormat::Bgra8UnormSrgb => vigil_hal::TextureFormat::Bgra8Unorm,
                f => f,
            };
            if strip(s.desc.format) != strip(d.desc.format) {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    &e.label,
                    "formats differ: {} and {}",
                    s.desc.format.wgsl_name(),
                    d.desc.format.wgsl_name()
                ));
            }
            crate::device::check_texture_box(OP, &s.label, &s.desc, &src_at, size)?;
            crate::device::check_texture_box(OP, &d.label, &d.desc, &dst_at, size)?;
            if size.contains(&0) {
                return Ok(());
            }
            let range = |at: &TexelCopyTextureInfo| SubresourceRange {
                aspect: TextureAspect::All,
                base_mip_level: at.mip_level,
                mip_level_count: 1,
                base_array_layer: at.array_layer,
                array_layer_count: size[2],
            };
            let (sr, dr) = (range(&src_at), range(&dst_at));
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
            e.recorded = true;
            e.record(|r| {
                r.texture_barriers(&[
                    TextureBarrier {
                        texture: &s.raw,
                        range: sr,
                        old_layout: s.resting,
                        new_layout: TextureLayout::TransferSrc,
                        src: Stages::ALL_COMMANDS,
                        dst: Stages::TRANSFER,
                    },
                    TextureBarrier {
                        texture: &d.raw,
                        range: dr,
                        old_layout: d.resting,
                        new_layout: TextureLayout::TransferDst,
                        src: Stages::ALL_COMMANDS,
                        dst: Stages::TRANSFER,
                    },
                ]);
                r.copy_texture_to_texture(&s.raw, &d.raw, &region);
                r.texture_barriers(&[
                    TextureBarrier {
                        texture: &s.raw,
                        range: sr,
                        old_layout: TextureLayout::TransferSrc,
                        new_layout: s.resting,
                        src: Stages::TRANSFER,
                        dst: Stages::ALL_COMMANDS,
                    },
                    TextureBarrier {
                        texture: &d.raw,
                        range: dr,
                        old_layout: TextureLayout::TransferDst,
                        new_layout: d.resting,
                        src: Stages::TRANSFER,
                        dst: Stages::ALL_COMMANDS,
                    },
                ]);
            });
            drop(st);
            e.use_texture(src.index(), src.generation());
            e.use_texture(dst.index(), dst.generation());
            Ok(())
        })
    }

    /// Writes a timestamp into query `index` once all earlier work finished.
    pub fn write_timestamp(&mut self, set: QuerySet, index: u32) -> Result<()> {
        const OP: &str = "write_timestamp";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let st = e.state(OP)?;
            let q = st.query_sets.value(set, e.device.id, OP)?;
            if index >= q.count {
                return Err(fail!(
                    OutOfBounds,
                    OP,
                    &e.label,
                    "query {index} is outside query set '{}' ({} queries)",
                    q.label,
                    q.count
                ));
            }
            e.reset_queries_once(&st, set);
            e.reset_if_rewritten(&q.raw, set.index(), index);
            e.record(|r| r.write_timestamp(&q.raw, index));
            e.note_query_written(set.index(), index);
            e.recorded = true;
            Ok(())
        })
    }

    /// Copies `count` query results from `first` into `dst` at `offset` as u64 ticks
    /// (multiply by the adapter's timestamp period for nanoseconds).
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
            let st = e.state(OP)?;
            let q = st.query_sets.value(set, e.device.id, OP)?;
            let b = st.buffers.value(dst, e.device.id, OP)?;
            if first >= q.count || first.checked_add(count).is_none_or(|end| end > q.count) {
                return Err(fail!(OutOfBounds, OP, &e.label, "{count} queries from query {first} are outside query set '{}' ({} queries)", q.label, q.count));
            }
            if !b.usage.contains(BufferUsages::QUERY_RESOLVE) {
                return Err(fail!(UsageMismatch, OP, &e.label, "buffer '{}' lacks QUERY_RESOLVE usage ({:?})", b.label, b.usage));
            }
            if offset % QUERY_RESOLVE_ALIGNMENT != 0 {
                return Err(fail!(OutOfBounds, OP, &e.label, "resolve offset {offset} is not a multiple of {QUERY_RESOLVE_ALIGNMENT}"));
            }
            check_range(OP, &e.label, "resolve", offset, u64::from(count).saturating_mul(8), b.size)?;
            if count == 0 {
                // Nothing to copy, and Vulkan wants the offset inside the buffer even then.
                return Ok(());
            }
            // `first + count <= q.count` was checked above.
            let end = first.saturating_add(count);
            if let Some(q) = (first..end).find(|&q| !e.query_written(set.index(), q)) {
                // Resolving a query nothing wrote would wait on the GPU forever.
                return Err(fail!(
                    InvalidState,
                    OP,
                    &e.label,
                    "query {q} of '{}' was not written by this encoder; only queries written here can be resolved here",
                    q_label(&st, set.index())
                ));
            }
            e.transfer_accesses(&[], &[dst.index()]);
            e.record(|r| r.resolve_queries(&q.raw, first, count, &b.raw, offset));
            drop(st);
            e.use_buffer(dst.index(), dst.generation());
            Ok(())
        })
    }
}

fn q_label<A: Api>(st: &crate::device::DeviceState<A>, index: u32) -> String {
    st.query_sets
        .slot(index)
        .and_then(|s| s.value.as_ref())
        .map(|q| q.label.clone())
        .unwrap_or_default()
}

impl<A: Api> CommandEncoder<'_, A> {
    /// Before a query this encoder already wrote is written again: resets it. WebGPU lets
    /// a timestamp be overwritten; Vulkan wants a reset between two writes of one query.
    pub(crate) fn reset_if_rewritten(&mut self, raw: &A::QuerySet, set: u32, index: u32) {
        if self.query_written(set, index) {
            self.record(|r| r.reset_queries(raw, index, 1));
        }
    }

    /// Remembers that this encoder wrote query `index` of set slot `set`.
    pub(crate) fn note_query_written(&mut self, set: u32, index: u32) {
        let bits = match self.written_queries.iter_mut().find(|(s, _)| *s == set) {
            Some((_, bits)) => bits,
            None => {
                self.written_queries.push((set, Vec::new()));
                let last = self.written_queries.len().saturating_sub(1);
                &mut self.written_queries[last].1
            }
        };
        let word = index as usize / 64;
        if bits.len() <= word {
            bits.resize(word.saturating_add(1), 0);
        }
        bits[word] |= 1 << (index % 64);
    }

    fn query_written(&self, set: u32, index: u32) -> bool {
        self.written_queries
            .iter()
            .find(|(s, _)| *s == set)
            .and_then(|(_, bits)| bits.get(index as usize / 64))
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }
}
