//! Queue writes that cannot go straight into memory: staged in host-visible chunks and
//! copied at the start of the next submission, in order with the work recorded after it.
//!
//! Writes are kept as a list until that submission, so a destroyed destination drops its
//! writes, and a repeated write of the same range overwrites the staged bytes in place.

use super::{BufferObj, Core, Device, TextureObj, lock, queue::QueueState};
use crate::error::{Result, fail};
use crate::handle::Handle;
use crate::native::{BufferKind, Owned, Rec};
use crate::texture::TexelCopyTextureInfo;
use crate::track::{Subresources, Use, step};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use vigil_hal::{
    Access, Api, BufferCopy, BufferTextureCopy, BufferUsages, MemoryBarrier, Stages, TextureLayout,
};

/// Most separate write regions that may wait for one submission.
pub const MAX_QUEUED_WRITES: u32 = 16_384;

/// Regions per batched upload copy: enough to amortize the command, few enough that
/// tools checking regions pairwise for overlap (the validation layer does) stay quick.
const MAX_REGIONS_PER_COPY: usize = 256;

/// Bytes per staging chunk; larger writes get a chunk of their own.
const CHUNK_BYTES: u64 = 1 << 20;

/// Writes of at least this many bytes are staged in write-combined memory, smaller ones in
/// cached host memory. Measured on the H200, paired against raw ash (which stages in
/// write-combined memory), `docs/results/writes-staging-h200/`: 64-byte writes cost 206 to
/// 263 ns a call in write-combined memory (most likely because each locked instruction a
/// write takes after its copy drains the write-combining buffers across the bus) and 79 to
/// 112 ns in cached memory; 1 MiB writes cost 0.99 to 1.01x raw ash in write-combined
/// memory and 1.56 to 1.58x in cached memory, where a large copy goes through the caches
/// and the GPU reads system memory.
const LARGE_WRITE: u64 = 64 << 10;

/// A host-visible buffer writes are staged in.
pub(crate) struct StagingChunk<A: Api> {
    pub buffer: Owned<A, BufferKind>,
    pub size: u64,
    pub used: u64,
    /// In cached host memory (for small writes), else write-combined (for large ones).
    pub cached: bool,
}

/// A staged buffer write.
pub(crate) struct PendingWrite<A: Api> {
    pub dst: Arc<BufferObj<A>>,
    /// Cleared when the destination is destroyed before the submission.
    pub live: bool,
    pub dst_offset: u64,
    pub chunk: usize,
    pub src_offset: u64,
    pub size: u64,
}

/// A staged texture write: tightly packed rows in a chunk.
pub(crate) struct PendingTextureWrite<A: Api> {
    pub texture: Arc<TextureObj<A>>,
    pub live: bool,
    pub chunk: usize,
    pub src_offset: u64,
    pub bytes_per_row: u32,
    pub rows_per_image: u32,
    pub at: TexelCopyTextureInfo,
    pub size: [u32; 3],
    pub bytes: u64,
}

/// A hasher for the small integer keys of the coalescing map: a multiply-rotate mix per
/// word, much cheaper than the default (keys come from this process, not an adversary
/// that could aim collisions at it; a collision costs a slower lookup, never a wrong one).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Uploads waiting for the next submission.
pub(crate) struct PendingUploads<A: Api> {
    pub writes: Vec<PendingWrite<A>>,
    pub texture_writes: Vec<PendingTextureWrite<A>>,
    pub chunks: Vec<StagingChunk<A>>,
    /// The latest pending write to each destination (by its address), for folding a
    /// repeat of its range into it and for continuing it.
    latest: HashMap<usize, usize, BuildHasherDefault<KeyHasher>>,
}

impl<A: Api> Default for PendingUploads<A> {
    fn default() -> Self {
        PendingUploads {
            writes: Vec::new(),
            texture_writes: Vec::new(),
            chunks: Vec::new(),
            latest: HashMap::default(),
        }
    }
}

impl<A: Api> PendingUploads<A> {
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.texture_writes.is_empty()
    }
}

/// Counters of the queue-write path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Separate write regions waiting for the next submission (at most
    /// [`MAX_QUEUED_WRITES`]): a write that continues the last one in the same buffer
    /// joins its region, and a repeat of the latest write's range to a buffer replaces it.
    pub pending_writes: u32,
    /// Staged bytes waiting for the next submission.
    pub pending_bytes: u64,
    /// Staged bytes of submitted uploads not yet complete.
    pub in_flight_bytes: u64,
    /// Staging chunks ever allocated.
    pub staging_allocations: u64,
    /// Submissions that carried uploads.
    pub upload_batches: u64,
    /// Writes folded into the latest pending write to the same buffer and range.
    pub coalesced_writes: u64,
    /// Writes that continued the last pending write, in its buffer and its staging, and
    /// so joined its region.
    pub merged_writes: u64,
    /// Writes that went straight into idle host-visible memory.
    pub direct_writes: u64,
    /// The staging budget in bytes.
    pub budget: u64,
}

/// Staging bytes: queued, in flight, and the budget they share.
#[derive(Debug)]
pub(crate) struct StagingAccount {
    pub budget: u64,
    pub queued_bytes: u64,
    pub in_flight_bytes: u64,
    pub queued_writes: u32,
    pub allocations: u64,
    pub batches: u64,
    pub coalesced: u64,
    pub merged: u64,
    pub direct_writes: u64,
}

impl StagingAccount {
    pub fn new(budget: u64) -> Self {
        StagingAccount {
            budget,
            queued_bytes: 0,
            in_flight_bytes: 0,
            queued_writes: 0,
            allocations: 0,
            batches: 0,
            coalesced: 0,
            merged: 0,
            direct_writes: 0,
        }
    }

    /// Refuses a new write region of `size` staged bytes past the region count or the
    /// budget.
    ///
    /// The label is read only when refusing (an object's [`crate::label::Label`] is passed
    /// as is: a write that fits does not read it).
    pub fn check_room(
        &self,
        op: &'static str,
        label: &(impl AsRef<str> + ?Sized),
        size: u64,
    ) -> Result<()> {
        if self.queued_writes >= MAX_QUEUED_WRITES {
            return Err(fail!(
                StagingWrites,
                op,
                label.as_ref(),
                "{MAX_QUEUED_WRITES} separate write regions already wait for the next submission; submit before writing more"
            ));
        }
        self.check_bytes(op, label, size)
    }

    /// Staged bytes the budget still has room for.
    #[inline]
    pub fn room(&self) -> u64 {
        self.budget
            .saturating_sub(self.queued_bytes.saturating_add(self.in_flight_bytes))
    }

    /// Whether `size` more staged bytes fit the budget ([`StagingAccount::check_bytes`]
    /// without the refusal).
    #[inline(always)]
    pub fn has_bytes(&self, size: u64) -> bool {
        self.queued_bytes
            .saturating_add(self.in_flight_bytes)
            .saturating_add(size)
            <= self.budget
    }

    /// Refuses `size` more staged bytes past the budget.
    #[inline]
    pub fn check_bytes(
        &self,
        op: &'static str,
        label: &(impl AsRef<str> + ?Sized),
        size: u64,
    ) -> Result<()> {
        if !self.has_bytes(size) {
            return Err(self.over_budget(op, label.as_ref(), size));
        }
        Ok(())
    }

    /// The refusal of `size` more staged bytes past the budget.
    #[cold]
    fn over_budget(&self, op: &'static str, label: &str, size: u64) -> crate::Error {
        fail!(
            StagingBudget,
            op,
            label,
            "staging {size} more bytes would exceed the budget: {} queued + {} in flight of {} bytes; submit and let work complete first",
            self.queued_bytes,
            self.in_flight_bytes,
            self.budget
        )
    }
}

impl<A: Api> Device<A> {
    /// Counters of queue writes and staging.
    pub fn write_stats(&self) -> WriteStats {
        let q = self.queue.lock();
        WriteStats {
            pending_writes: q.staging.queued_writes,
            pending_bytes: q.staging.queued_bytes,
            in_flight_bytes: q.staging.in_flight_bytes,
            staging_allocations: q.staging.allocations,
            upload_batches: q.staging.batches,
            coalesced_writes: q.staging.coalesced,
            merged_writes: q.staging.merged,
            direct_writes: q.staging.direct_writes,
            budget: q.staging.budget,
        }
    }
}

impl<A: Api> Core<A> {
    /// Appends `data` to the last pending write when the write continues it: the same
    /// buffer, at the pending write's end, with room after its staged bytes in the last
    /// staging chunk, and a write the checks accept within the budget. That is a run of
    /// sequential writes, the common case, handled on the pending write's own reference
    /// to the buffer (no registry lookup, no reference count taken): the region grows by
    /// `data`.
    ///
    /// `Ok(false)`: not such a write, nothing done; the caller takes the general path,
    /// which refuses a write the checks refuse, with its rule. `Err` only when the copy
    /// into staging fails. The queue lock is held (`q`).
    #[inline(always)]
    pub(crate) fn continue_last_write(
        &self,
        q: &mut QueueState<A>,
        buffer: crate::Buffer,
        offset: u64,
        data: &[u8],
        op: &'static str,
    ) -> Result<bool> {
        let size = data.len() as u64;
        // The last chunk: a pending write continues only in the chunk staged last.
        let last = q.uploads.chunks.len().wrapping_sub(1);
        let Some(w) = q.uploads.writes.last_mut() else {
            return Ok(false);
        };
        // A live pending write's buffer is not destroyed: destroying it clears `live` under
        // the queue lock, held here, so its handle needs no registry look.
        if size == 0
            || !w.live
            || w.dst.handle != buffer
            || w.chunk != last
            || w.dst_offset.wrapping_add(w.size) != offset
        {
            return Ok(false);
        }
        let Some(c) = q.uploads.chunks.get_mut(last) else {
            return Ok(false);
        };
        let end = w.src_offset.wrapping_add(w.size);
        // Anything else (an empty or refused write, a full chunk, the budget reached)
        // takes the general path, which refuses it the way it refuses any write.
        if c.used != end
            || !crate::validate::inside(end, size, c.size)
            || !crate::validate::buffer::write_passes(w.dst.facts(), offset, size)
            || !q.staging.has_bytes(size)
        {
            return Ok(false);
        }
        self.hal
            .write_mapped(&c.buffer, end, data)
            .map_err(|e| self.hal_error(e, op, &w.dst.label))?;
        c.used = end.wrapping_add(size);
        w.size = w.size.wrapping_add(size);
        q.staging.merged = q.staging.merged.wrapping_add(1);
        q.staging.queued_bytes = q.staging.queued_bytes.wrapping_add(size);
        Ok(true)
    }

    /// Stages `data` for `buffer` at `offset` and queues its copy (the queue lock held).
    ///
    /// A write that continues the last pending write is appended to it by
    /// [`Core::continue_last_write`], which `write_buffer` tries before this; the other
    /// callers write at offset 0, which continues no pending write.
    pub(crate) fn queue_write(
        &self,
        q: &mut QueueState<A>,
        buffer: &Arc<BufferObj<A>>,
        offset: u64,
        data: &[u8],
        op: &'static str,
    ) -> Result<()> {
        let size = data.len() as u64;
        let dst = Arc::as_ptr(buffer) as usize;
        let count = q.uploads.writes.len();
        // The latest pending write to this buffer: the last one of all (the usual case),
        // else the one the map names.
        let latest = match q.uploads.writes.last() {
            Some(w) if Arc::ptr_eq(&w.dst, buffer) => Some(count.saturating_sub(1)),
            _ => q.uploads.latest.get(&dst).copied(),
        };
        if let Some(w) = latest
            .and_then(|i| q.uploads.writes.get(i))
            .filter(|w| w.live && Arc::ptr_eq(&w.dst, buffer))
        {
            if w.dst_offset == offset && w.size == size {
                // The same range as the latest write to this buffer: no later write can
                // cover any of it, so the staged bytes are replaced in place.
                if let Some(c) = q.uploads.chunks.get(w.chunk) {
                    self.hal
                        .write_mapped(&c.buffer, w.src_offset, data)
                        .map_err(|e| self.hal_error(e, op, &buffer.label))?;
                    q.staging.coalesced = q.staging.coalesced.wrapping_add(1);
                    return Ok(());
                }
            }
        }
        q.staging.check_room(op, &buffer.label, size)?;
        let (chunk, src_offset) = self
            .staging_space(q, size)
            .map_err(|e| self.hal_error(e, op, &buffer.label))?;
        if let Some(c) = q.uploads.chunks.get_mut(chunk) {
            self.hal
                .write_mapped(&c.buffer, src_offset, data)
                .map_err(|e| self.hal_error(e, op, &buffer.label))?;
            c.used = src_offset.saturating_add(size);
        }
        q.uploads.writes.push(PendingWrite {
            dst: buffer.clone(),
            live: true,
            dst_offset: offset,
            chunk,
            src_offset,
            size,
        });
        q.uploads.latest.insert(dst, count);
        q.staging.queued_writes = q.staging.queued_writes.saturating_add(1);
        q.staging.queued_bytes = q.staging.queued_bytes.saturating_add(size);
        buffer.queued_writes.store(true, Ordering::Release);
        Ok(())
    }

    /// Finds `size` bytes of staging: in the batch's last chunk of the write's kind (cached
    /// for small writes, write-combined for large ones), else in a spare chunk
    /// from a completed submission, else in a new one. Returns chunk index and offset.
    pub(crate) fn staging_space(
        &self,
        q: &mut QueueState<A>,
        size: u64,
    ) -> vigil_hal::Result<(usize, u64)> {
        // Sizes are within the staging budget (checked by the callers), far from u64::MAX.
        let size = size.checked_next_multiple_of(4).unwrap_or(u64::MAX);
        let cached = size < LARGE_WRITE;
        if let Some((i, c)) = q
            .uploads
            .chunks
            .iter()
            .enumerate()
            .rev()
            .find(|(_, c)| c.cached == cached)
        {
            let at = c.used.checked_next_multiple_of(16).unwrap_or(u64::MAX);
            if at.checked_add(size).is_some_and(|end| end <= c.size) {
                return Ok((i, at));
            }
        }
        let spare = q
            .spare_staging
            .iter()
            .position(|c| c.cached == cached && c.size >= size);
        let chunk = match spare {
            Some(i) => {
                let c = q.spare_staging.swap_remove(i);
                q.spare_staging_bytes = q.spare_staging_bytes.saturating_sub(c.size);
                c
            }
            None => {
                let chunk_size = size.max(CHUNK_BYTES);
                let buffer = self.hal.create_buffer(&vigil_hal::BufferDescriptor {
                    label: "vigil staging",
                    size: chunk_size,
                    usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
                    location: if cached {
                        vigil_hal::MemoryLocation::Staging
                    } else {
                        vigil_hal::MemoryLocation::CpuToGpu
                    },
                })?;
                q.staging.allocations = q.staging.allocations.wrapping_add(1);
                StagingChunk {
                    buffer: Owned::new(&self.hal, buffer),
                    size: chunk_size,
                    used: 0,
                    cached,
                }
            }
        };
        q.uploads.chunks.push(StagingChunk { used: 0, ..chunk });
        Ok((q.uploads.chunks.len().saturating_sub(1), 0))
    }

    /// Keeps a chunk whose upload completed for reuse, while the spare chunks stay within
    /// the staging budget; else releases it.
    pub(crate) fn recycle_staging(&self, q: &mut QueueState<A>, chunk: StagingChunk<A>) {
        let spare = q.spare_staging_bytes.saturating_add(chunk.size);
        if spare <= q.staging.budget {
            q.spare_staging_bytes = spare;
            q.spare_staging.push(chunk);
        }
    }

    /// Drops the unsubmitted writes to a destroyed buffer or texture, returning their share
    /// of the staging budget and of the write count.
    pub(crate) fn drop_queued_writes_to(
        &self,
        q: &mut QueueState<A>,
        buffer: Option<&BufferObj<A>>,
        texture: Option<&TextureObj<A>>,
    ) {
        if q.staging.queued_writes == 0 {
            return;
        }
        let (mut bytes, mut count) = (0u64, 0u32);
        if let Some(b) = buffer {
            for w in q
                .uploads
                .writes
                .iter_mut()
                .filter(|w| w.live && std::ptr::eq(&*w.dst, b))
            {
                w.live = false;
                bytes = bytes.saturating_add(w.size);
                count = count.saturating_add(1);
            }
        }
        if let Some(t) = texture {
            for w in q
                .uploads
                .texture_writes
                .iter_mut()
                .filter(|w| w.live && std::ptr::eq(&*w.texture, t))
            {
                w.live = false;
                bytes = bytes.saturating_add(w.bytes);
                count = count.saturating_add(1);
            }
        }
        q.staging.queued_bytes = q.staging.queued_bytes.saturating_sub(bytes);
        q.staging.queued_writes = q.staging.queued_writes.saturating_sub(count);
    }

    /// Records the staged uploads: the barriers their destinations need against earlier
    /// work (and a zero fill of buffers never used), then the copies. Moves each
    /// destination's state on, keeping the old one in `undo`; returns the buffers written.
    pub(crate) fn record_uploads(
        &self,
        rec: &mut Rec<'_, A>,
        uploads: &PendingUploads<A>,
        undo: &mut super::Undo<A>,
        states: &mut super::BufferStates,
        serial: u64,
    ) -> Vec<Arc<BufferObj<A>>> {
        const WRITE: Use = Use::buffer(Stages::TRANSFER, Access::TRANSFER_WRITE);
        const TEX_WRITE: Use = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_WRITE,
            layout: TextureLayout::TransferDst,
        };
        let o = &self.objects;
        let mut written: Vec<Arc<BufferObj<A>>> = Vec::new();
        let mut head = super::Head::<A>::default();
        // Every destination once: its barrier against earlier work, and the zero fill of a
        // buffer never used (WebGPU buffers start zeroed; a write covers only its range).
        let mut seen: HashMap<usize, (), BuildHasherDefault<KeyHasher>> = HashMap::default();
        for w in uploads.writes.iter().filter(|w| {
            w.live
                && o.buffers
                    .is_live(w.dst.handle.index(), w.dst.handle.generation())
        }) {
            if seen.insert(Arc::as_ptr(&w.dst) as usize, ()).is_some() {
                continue;
            }
            let g = states.of(&w.dst);
            undo.buffers.push((w.dst.clone(), *g));
            g.last_use = serial;
            if !g.zeroed {
                head.zero_buffers.push(&w.dst);
                g.zeroed = true;
                g.state = super::written_by_transfer(TextureLayout::General);
            }
            if let Some(t) = step(&mut g.state, WRITE) {
                head.barriers.buffer(t);
            }
            written.push(w.dst.clone());
        }
        let mut textures_seen: Vec<usize> = Vec::new();
        for w in uploads.texture_writes.iter().filter(|w| {
            w.live
                && o.textures
                    .is_live(w.texture.handle.index(), w.texture.handle.generation())
        }) {
            let t = &w.texture;
            let mut g = lock(&t.state);
            if !textures_seen.contains(&(Arc::as_ptr(t) as usize)) {
                textures_seen.push(Arc::as_ptr(t) as usize);
                undo.textures
                    .push((t.clone(), g.initialized, g.saved_parts()));
            }
            super::zero_if_unwritten(t, &mut g, &mut head);
            let layers = t.desc.layers().max(1);
            let (base, count) = t.desc.copied_layers(w.at.array_layer, w.size[2]);
            for layer in base..base.saturating_add(count) {
                let i = (w.at.mip_level as usize)
                    .saturating_mul(layers as usize)
                    .saturating_add(layer as usize);
                // Against earlier work (and the zero clear); writes to one texture in one
                // batch are ordered among themselves by the barrier between copies below.
                if let Some(tr) = g.parts.get_mut(i).and_then(|s| step(s, TEX_WRITE)) {
                    let range = Subresources {
                        base_mip: w.at.mip_level,
                        mips: 1,
                        base_layer: layer,
                        layers: 1,
                    };
                    head.barriers.textures.push((t, range, tr));
                }
            }
        }
        head.record(rec);
        // Runs of writes from one staging chunk to one buffer, each starting at or after the
        // end of the one before (the usual, sequential case), go as one copy command with
        // a region per write; anything else starts a new run, so regions never overlap
        // and overlapping writes keep their order.
        let mut run: Vec<BufferCopy> = Vec::new();
        let mut run_key: Option<(usize, usize)> = None;
        let flush =
            |rec: &mut Rec<'_, A>, run: &mut Vec<BufferCopy>, key: Option<(usize, usize)>| {
                if let Some((chunk, w)) = key {
                    if let (Some(c), Some(w)) = (uploads.chunks.get(chunk), uploads.writes.get(w)) {
                        rec.copy_buffer_regions(&c.buffer, &w.dst.raw, run);
                    }
                }
                run.clear();
            };
        // Per destination, the span written since the last barrier: a write that reaches
        // into it must wait for the earlier copies (a transfer barrier), else their order
        // on the GPU is undefined. Sequential writes never reach back.
        let mut spans: HashMap<usize, (u64, u64), BuildHasherDefault<KeyHasher>> =
            HashMap::default();
        let mut first_of_run = 0usize;
        for (wi, w) in uploads.writes.iter().enumerate() {
            if !w.live
                || !o
                    .buffers
                    .is_live(w.dst.handle.index(), w.dst.handle.generation())
            {
                continue;
            }
            let dst = Arc::as_ptr(&w.dst) as usize;
            let (start, end) = (w.dst_offset, w.dst_offset.saturating_add(w.size));
            if spans
                .get(&dst)
                .is_some_and(|&(lo, hi)| start < hi && end > lo)
            {
                flush(rec, &mut run, run_key.map(|(c, _)| (c, first_of_run)));
                run_key = None;
                rec.barriers(
                    Some(MemoryBarrier {
                        src: Stages::TRANSFER,
                        dst: Stages::TRANSFER,
                    }),
                    &[],
                    &[],
                );
                spans.clear();
            }
            let span = spans.entry(dst).or_insert((start, end));
            *span = (span.0.min(start), span.1.max(end));
            let key = Some((w.chunk, dst));
            let follows = run
                .last()
                .is_some_and(|r| w.dst_offset >= r.dst_offset.saturating_add(r.size));
            if key != run_key || !follows || run.len() >= MAX_REGIONS_PER_COPY {
                flush(rec, &mut run, run_key.map(|(c, _)| (c, first_of_run)));
                run_key = key;
                first_of_run = wi;
            }
            run.push(BufferCopy {
                src_offset: w.src_offset,
                dst_offset: w.dst_offset,
                size: w.size,
            });
        }
        flush(rec, &mut run, run_key.map(|(c, _)| (c, first_of_run)));
        let mut written_textures: Vec<usize> = Vec::new();
        for w in uploads.texture_writes.iter() {
            if !w.live
                || !o
                    .textures
                    .is_live(w.texture.handle.index(), w.texture.handle.generation())
            {
                continue;
            }
            let Some(c) = uploads.chunks.get(w.chunk) else {
                continue;
            };
            let t = Arc::as_ptr(&w.texture) as usize;
            if written_textures.contains(&t) {
                rec.barriers(
                    Some(MemoryBarrier {
                        src: Stages::TRANSFER,
                        dst: Stages::TRANSFER,
                    }),
                    &[],
                    &[],
                );
                written_textures.clear();
            }
            written_textures.push(t);
            rec.copy_buffer_to_texture(
                &c.buffer,
                &w.texture.raw,
                &BufferTextureCopy {
                    buffer_offset: w.src_offset,
                    bytes_per_row: w.bytes_per_row,
                    rows_per_image: w.rows_per_image,
                    mip_level: w.at.mip_level,
                    base_array_layer: w.at.array_layer,
                    origin: w.at.origin,
                    size: w.size,
                    aspect: w.at.aspect,
                },
            );
            w.texture.last_use.store(
                self.last_submitted
                    .load(Ordering::Acquire)
                    .saturating_add(1),
                Ordering::Release,
            );
        }
        written
    }
}
