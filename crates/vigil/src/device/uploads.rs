//! Queue writes that cannot go straight into memory: staged in host-visible chunks and
//! copied at the start of the next submission, in order with the work recorded after it.
//!
//! Writes are kept as a list until that submission, so a destroyed destination drops its
//! writes, and a repeated write of the same range overwrites the staged bytes in place.

use super::{Device, DeviceState};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use vigil_hal::{Api, BufferCopy, BufferUsages, CommandEncoder as _, MemoryBarrier, Stages};

/// Most writes that may wait for one submission.
pub const MAX_QUEUED_WRITES: u32 = 16_384;

/// Regions per batched upload copy: enough to amortize the command, few enough that
/// tools checking regions pairwise for overlap (the validation layer does) stay quick.
const MAX_REGIONS_PER_COPY: usize = 256;

/// Bytes per staging chunk; larger writes get a chunk of their own.
const CHUNK_BYTES: u64 = 1 << 20;

pub(crate) struct StagingChunk<A: Api> {
    pub buffer: A::Buffer,
    pub size: u64,
    pub used: u64,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingWrite {
    pub dst: (u32, u32),
    /// Cleared when the destination is destroyed before the submission.
    pub live: bool,
    pub dst_offset: u64,
    pub chunk: usize,
    pub src_offset: u64,
    pub size: u64,
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

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Uploads and first layouts waiting for the next submission.
pub(crate) struct PendingUploads<A: Api> {
    pub writes: Vec<PendingWrite>,
    pub zero_fills: Vec<((u32, u32), u64)>,
    pub texture_writes: Vec<crate::texture::PendingTextureWrite>,
    pub texture_inits: Vec<(u32, u32)>,
    pub chunks: Vec<StagingChunk<A>>,
    coalesce: HashMap<(u32, u64, u64), usize, BuildHasherDefault<KeyHasher>>,
}

impl<A: Api> Default for PendingUploads<A> {
    fn default() -> Self {
        PendingUploads {
            writes: Vec::new(),
            zero_fills: Vec::new(),
            texture_writes: Vec::new(),
            texture_inits: Vec::new(),
            chunks: Vec::new(),
            coalesce: HashMap::default(),
        }
    }
}

impl<A: Api> PendingUploads<A> {
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
            && self.zero_fills.is_empty()
            && self.texture_writes.is_empty()
            && self.texture_inits.is_empty()
    }
}

/// Counters of the queue-write path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Writes waiting for the next submission.
    pub pending_writes: u32,
    /// Staged bytes waiting for the next submission.
    pub pending_bytes: u64,
    /// Staged bytes of submitted uploads not yet complete.
    pub in_flight_bytes: u64,
    /// Staging chunks ever allocated.
    pub staging_allocations: u64,
    /// Submissions that carried uploads.
    pub upload_batches: u64,
    /// Writes folded into an earlier write of the same range.
    pub coalesced_writes: u64,
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
            direct_writes: 0,
        }
    }
}

/// A built prelude: the command buffer and what it used.
pub(crate) struct BuiltPrelude<A: Api> {
    pub encoder: A::CommandEncoder,
    pub cb: A::CommandBuffer,
    pub staging: Vec<StagingChunk<A>>,
    pub staging_bytes: u64,
    pub buffers: Vec<(u32, u32)>,
    pub textures: Vec<(u32, u32)>,
    /// The first uses it carries, put back for the next submission if this one is refused.
    pub zero_fills: Vec<((u32, u32), u64)>,
    /// As above: textures whose first layout it records.
    pub texture_inits: Vec<(u32, u32)>,
}

impl<A: Api> Device<A> {
    /// Counters of queue writes and staging.
    pub fn write_stats(&self) -> WriteStats {
        let Ok(st) = self.state.try_borrow() else {
            return WriteStats::default();
        };
        WriteStats {
            pending_writes: st.staging.queued_writes,
            pending_bytes: st.staging.queued_bytes,
            in_flight_bytes: st.staging.in_flight_bytes,
            staging_allocations: st.staging.allocations,
            upload_batches: st.staging.batches,
            coalesced_writes: st.staging.coalesced,
            direct_writes: st.staging.direct_writes,
            budget: st.staging.budget,
        }
    }

    /// Stages `data` for the buffer slot and queues its copy.
    pub(crate) fn queue_write(
        &self,
        st: &mut DeviceState<A>,
        buffer: Buffer,
        offset: u64,
        data: &[u8],
        op: &'static str,
    ) -> Result<()> {
        let size = data.len() as u64;
        let key = (buffer.index(), offset, size);
        // The label is looked up only for an error: a clone per write would cost more
        // than the write.
        let label = |st: &DeviceState<A>| {
            st.buffers
                .slot(buffer.index())
                .and_then(|s| s.value.as_ref())
                .map(|b| b.label.clone())
                .unwrap_or_default()
        };
        // A repeated write of the same range replaces the staged bytes in place.
        if let Some(&i) = st.uploads.coalesce.get(&key) {
            if let Some(w) = st.uploads.writes.get(i).copied() {
                if w.live && w.dst == (buffer.index(), buffer.generation()) {
                    let chunk = &st.uploads.chunks[w.chunk];
                    if let Err(e) = self.hal.write_mapped(&chunk.buffer, w.src_offset, data) {
                        return Err(self.hal_error(e, op, &label(st)));
                    }
                    st.staging.coalesced = st.staging.coalesced.wrapping_add(1);
                    return Ok(());
                }
            }
        }
        if st.staging.queued_writes >= MAX_QUEUED_WRITES {
            return Err(fail!(
                LimitExceeded,
                op,
                &label(st),
                "{MAX_QUEUED_WRITES} writes already wait for the next submission; submit before writing more"
            ));
        }
        let total = st
            .staging
            .queued_bytes
            .saturating_add(st.staging.in_flight_bytes);
        if total.saturating_add(size) > st.staging.budget {
            return Err(fail!(
                LimitExceeded,
                op,
                &label(st),
                "staging {size} more bytes would exceed the budget: {} queued + {} in flight of {} bytes; submit and let work complete first",
                st.staging.queued_bytes,
                st.staging.in_flight_bytes,
                st.staging.budget
            ));
        }
        let (chunk, src_offset) = match self.staging_space(st, size) {
            Ok(at) => at,
            Err(e) => return Err(self.hal_error(e, op, &label(st))),
        };
        if let Err(e) = self
            .hal
            .write_mapped(&st.uploads.chunks[chunk].buffer, src_offset, data)
        {
            return Err(self.hal_error(e, op, &label(st)));
        }
        st.uploads.chunks[chunk].used = src_offset.saturating_add(size);
        st.uploads.writes.push(PendingWrite {
            dst: (buffer.index(), buffer.generation()),
            live: true,
            dst_offset: offset,
            chunk,
            src_offset,
            size,
        });
        st.uploads
            .coalesce
            .insert(key, st.uploads.writes.len().saturating_sub(1));
        st.staging.queued_writes = st.staging.queued_writes.saturating_add(1);
        st.staging.queued_bytes = st.staging.queued_bytes.saturating_add(size);
        if let Some(b) = st
            .buffers
            .slot_mut(buffer.index())
            .and_then(|s| s.value.as_mut())
        {
            b.queued_writes = true;
        }
        Ok(())
    }

    /// Finds `size` bytes of staging: in the batch's last chunk, else in a spare chunk
    /// from a completed submission, else in a new one. Returns chunk index and offset.
    pub(crate) fn staging_space(
        &self,
        st: &mut DeviceState<A>,
        size: u64,
    ) -> vigil_hal::Result<(usize, u64)> {
        // Sizes are within the staging budget (checked by the callers), far from u64::MAX.
        let size = size.checked_next_multiple_of(4).unwrap_or(u64::MAX);
        if let Some((i, c)) = st.uploads.chunks.iter().enumerate().last() {
            let at = c.used.checked_next_multiple_of(16).unwrap_or(u64::MAX);
            if at.checked_add(size).is_some_and(|end| end <= c.size) {
                return Ok((i, at));
            }
        }
        let chunk = match st.spare_staging.iter().position(|c| c.size >= size) {
            Some(i) => {
                let c = st.spare_staging.swap_remove(i);
                st.spare_staging_bytes = st.spare_staging_bytes.saturating_sub(c.size);
                c
            }
            None => {
                let chunk_size = size.max(CHUNK_BYTES);
                let buffer = self.hal.create_buffer(&vigil_hal::BufferDescriptor {
                    label: "vigil staging",
                    size: chunk_size,
                    usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
                    location: vigil_hal::MemoryLocation::CpuToGpu,
                })?;
                st.staging.allocations = st.staging.allocations.wrapping_add(1);
                StagingChunk {
                    buffer,
                    size: chunk_size,
                    used: 0,
                }
            }
        };
        st.uploads.chunks.push(StagingChunk { used: 0, ..chunk });
        Ok((st.uploads.chunks.len().saturating_sub(1), 0))
    }

    /// Keeps a chunk whose upload completed for reuse, while the spare chunks stay within
    /// the staging budget; else releases it.
    pub(crate) fn recycle_staging(&self, st: &mut DeviceState<A>, chunk: StagingChunk<A>) {
        let spare = st.spare_staging_bytes.saturating_add(chunk.size);
        if spare <= st.staging.budget {
            st.spare_staging_bytes = spare;
            st.spare_staging.push(chunk);
        } else {
            self.hal.destroy_buffer(chunk.buffer);
        }
    }

    /// Zeroes a fresh device-local buffer at the start of the next submission.
    pub(crate) fn queue_fill_zero(&self, buffer: Buffer, native_size: u64) -> Result<()> {
        let mut st = self.state("create_buffer")?;
        st.uploads
            .zero_fills
            .push(((buffer.index(), buffer.generation()), native_size));
        st.compact_first_uses();
        if let Some(b) = st
            .buffers
            .slot_mut(buffer.index())
            .and_then(|s| s.value.as_mut())
        {
            b.queued_writes = true;
        }
        Ok(())
    }

    /// Records the pending uploads into a command buffer of their own, skipping
    /// destinations destroyed since. `None` when nothing is pending.
    pub(crate) fn build_prelude(
        &self,
        st: &mut DeviceState<A>,
        op: &'static str,
    ) -> Result<Option<BuiltPrelude<A>>> {
        if st.uploads.is_empty() {
            // Staging allocated for writes that were all dropped goes straight back.
            for c in std::mem::take(&mut st.uploads.chunks) {
                self.recycle_staging(st, c);
            }
            return Ok(None);
        }
        let mut encoder = self.take_encoder(st, "vigil uploads", op)?;
        if let Err(e) = encoder.begin("vigil uploads") {
            st.free_encoders.push((encoder, None));
            return Err(self.hal_error(e, op, &self.label));
        }
        let uploads = std::mem::take(&mut st.uploads);
        let mut buffers = Vec::new();
        let mut textures = Vec::new();
        self.record_texture_inits(
            st,
            &mut crate::native::Rec(&mut encoder),
            &uploads.texture_inits,
            &mut textures,
        );
        if !uploads.writes.is_empty()
            || !uploads.zero_fills.is_empty()
            || !uploads.texture_writes.is_empty()
        {
            // Uploads land after everything submitted before them.
            crate::native::Rec::<A>(&mut encoder).memory_barrier(MemoryBarrier {
                src: Stages::ALL_COMMANDS,
                dst: Stages::TRANSFER,
            });
        }
        for &((i, g), size) in &uploads.zero_fills {
            if let Some(b) = st
                .buffers
                .is_live(i, g)
                .then(|| st.buffers.slot(i))
                .flatten()
                .and_then(|s| s.value.as_ref())
            {
                crate::native::Rec::<A>(&mut encoder).fill_buffer(&b.raw, 0, size, 0);
                buffers.push((i, g));
            }
        }
        if !uploads.zero_fills.is_empty() && !uploads.writes.is_empty() {
            crate::native::Rec::<A>(&mut encoder).memory_barrier(MemoryBarrier {
                src: Stages::TRANSFER,
                dst: Stages::TRANSFER,
            });
        }
        // Runs of writes from one staging chunk to one buffer, each starting at or after the
        // end of the one before (the usual, sequential case), go as one copy command with
        // a region per write; anything else starts a new run, so regions never overlap
        // and overlapping writes keep their order.
        let mut run: Vec<BufferCopy> = Vec::new();
        let mut run_key: Option<(usize, (u32, u32))> = None;
        let flush = |encoder: &mut crate::native::Rec<'_, A>,
                     run: &mut Vec<BufferCopy>,
                     key: Option<(usize, (u32, u32))>| {
            if let Some((chunk, (i, _))) = key {
                if let Some(dst) = st.buffers.slot(i).and_then(|s| s.value.as_ref()) {
                    encoder.copy_buffer_regions(&uploads.chunks[chunk].buffer, &dst.raw, run);
                }
            }
            run.clear();
        };
        // Per destination, the span written since the last barrier: a write that reaches
        // into it must wait for the earlier copies (a transfer barrier), else their order
        // on the GPU is undefined. Sequential writes never reach back.
        let mut spans: HashMap<(u32, u32), (u64, u64), BuildHasherDefault<KeyHasher>> =
            HashMap::default();
        for w in uploads.writes.iter().filter(|w| w.live) {
            let (i, g) = w.dst;
            if !st.buffers.is_live(i, g) {
                continue;
            }
            let (start, end) = (w.dst_offset, w.dst_offset.saturating_add(w.size));
            if spans
                .get(&(i, g))
                .is_some_and(|&(lo, hi)| start < hi && end > lo)
            {
                flush(&mut crate::native::Rec(&mut encoder), &mut run, run_key);
                run_key = None;
                crate::native::Rec::<A>(&mut encoder).memory_barrier(MemoryBarrier {
                    src: Stages::TRANSFER,
                    dst: Stages::TRANSFER,
                });
                spans.clear();
            }
            let span = spans.entry((i, g)).or_insert((start, end));
            *span = (span.0.min(start), span.1.max(end));
            let key = Some((w.chunk, (i, g)));
            let follows = run
                .last()
                .is_some_and(|r| w.dst_offset >= r.dst_offset.saturating_add(r.size));
            if key != run_key || !follows || run.len() >= MAX_REGIONS_PER_COPY {
                flush(&mut crate::native::Rec(&mut encoder), &mut run, run_key);
                if run_key.map(|(_, d)| d) != Some((i, g)) {
                    buffers.push((i, g));
                }
                run_key = key;
            }
            run.push(BufferCopy {
                src_offset: w.src_offset,
                dst_offset: w.dst_offset,
                size: w.size,
            });
        }
        flush(&mut crate::native::Rec(&mut encoder), &mut run, run_key);
        self.record_texture_writes(
            st,
            &mut crate::native::Rec(&mut encoder),
            &uploads,
            &mut textures,
        );
        let cb = match encoder.end() {
            Ok(cb) => cb,
            Err(e) => {
                encoder.discard();
                st.free_encoders.push((encoder, None));
                for c in uploads.chunks {
                    self.hal.destroy_buffer(c.buffer);
                }
                st.restore_first_uses(uploads.zero_fills, uploads.texture_inits);
                st.staging.queued_bytes = 0;
                st.staging.queued_writes = 0;
                return Err(self.hal_error(e, op, &self.label));
            }
        };
        let staging_bytes = st.staging.queued_bytes;
        st.staging.queued_bytes = 0;
        st.staging.queued_writes = 0;
        Ok(Some(BuiltPrelude {
            encoder,
            cb,
            staging: uploads.chunks,
            staging_bytes,
            buffers,
            textures,
            zero_fills: uploads.zero_fills,
            texture_inits: uploads.texture_inits,
        }))
    }
}

impl<A: Api> DeviceState<A> {
    /// Drops the zero fills and first layouts of destroyed objects once their lists have
    /// doubled (amortized constant work per entry), so creating and destroying objects
    /// without ever submitting cannot grow them without bound.
    pub(crate) fn compact_first_uses(&mut self) {
        let n = self.uploads.zero_fills.len();
        if n >= 1024 && n.is_power_of_two() {
            let buffers = &self.buffers;
            self.uploads
                .zero_fills
                .retain(|&((i, g), _)| buffers.is_live(i, g));
        }
        let n = self.uploads.texture_inits.len();
        if n >= 1024 && n.is_power_of_two() {
            let textures = &self.textures;
            self.uploads
                .texture_inits
                .retain(|&(i, g)| textures.is_live(i, g));
        }
    }

    /// Puts the first uses of a refused prelude (zero fills, first layouts) back in the
    /// queue: a buffer must never be read before it is zeroed, nor a texture before its
    /// first layout, whatever happened to the submission that carried them.
    pub(crate) fn restore_first_uses(
        &mut self,
        zero_fills: Vec<((u32, u32), u64)>,
        texture_inits: Vec<(u32, u32)>,
    ) {
        self.uploads.texture_inits.extend(
            texture_inits
                .into_iter()
                .filter(|&(i, g)| self.textures.is_live(i, g)),
        );
        for ((i, g), size) in zero_fills {
            if !self.buffers.is_live(i, g) {
                continue;
            }
            if let Some(b) = self.buffers.slot_mut(i).and_then(|s| s.value.as_mut()) {
                b.queued_writes = true;
            }
            self.uploads.zero_fills.push(((i, g), size));
        }
    }

    /// Drops the unsubmitted writes to a destroyed buffer (or texture), returning their
    /// share of the staging budget and of the write count.
    pub(crate) fn drop_queued_writes_to(
        &mut self,
        buffer: (u32, u32),
        texture: Option<(u32, u32)>,
    ) {
        // Zero fills and first layouts of destroyed objects are skipped when the prelude is
        // built (it checks liveness), so a destroy only has staged bytes to give back, and
        // only when some are queued: destroying many fresh buffers stays linear.
        if self.staging.queued_writes == 0 {
            return;
        }
        let (mut bytes, mut count) = (0u64, 0u32);
        for w in self
            .uploads
            .writes
            .iter_mut()
            .filter(|w| w.live && w.dst == buffer)
        {
            w.live = false;
            bytes = bytes.saturating_add(w.size);
            count = count.saturating_add(1);
        }
        if let Some(t) = texture {
            let before = self.uploads.texture_writes.len();
            self.uploads.texture_writes.retain(|w| {
                if w.texture == t {
                    bytes = bytes.saturating_add(
                        u64::from(w.bytes_per_row)
                            .saturating_mul(u64::from(w.rows_per_image))
                            .saturating_mul(u64::from(w.size[2])),
                    );
                    false
                } else {
                    true
                }
            });
            let dropped = before.saturating_sub(self.uploads.texture_writes.len());
            count = count.saturating_add(u32::try_from(dropped).unwrap_or(u32::MAX));
        }
        self.staging.queued_bytes = self.staging.queued_bytes.saturating_sub(bytes);
        self.staging.queued_writes = self.staging.queued_writes.saturating_sub(count);
    }
}
