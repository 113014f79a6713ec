//! Command encoders and command buffers.
//!
//! An encoder stands alone: it holds the device's core (not a borrow of the device), its
//! own native command pool, and the list of everything it recorded, so encoders record on
//! as many threads as there are encoders while the device creates, destroys, writes and
//! submits on others. Every call is validated first (the checks are in
//! [`crate::validate`]); the first refused call poisons the encoder, and
//! [`CommandEncoder::finish`] reports it. Passes are opened and closed on the encoder
//! (they cannot nest) and copies happen outside them.
//!
//! Barriers come from a per-resource tracker ([`crate::track`]): each command's uses of
//! buffer ranges and texture subresources are compared with what came before in this
//! command buffer, and only what conflicts gets a barrier, with exact stages, accesses and
//! layouts. A render pass is one usage scope recorded into a native command buffer of its
//! own; the barriers it needs go into a short command buffer recorded in front of it when
//! the pass ends. What a command buffer needs of each resource before its first use is
//! resolved at submission against the device's state of the resource.

mod accel;
mod binder;
mod bundle;
pub(crate) mod compute;
mod debug;
mod gpu;
mod occlusion;
mod render;
mod scope;
mod statistics;
mod transfer;
mod transition;
pub(crate) mod used;

pub use accel::{BlasBuildEntry, BlasTriangleGeometry, TlasBuildEntry, TlasInstance};
pub(crate) use bundle::RenderBundleObj;
pub use bundle::{RenderBundleEncoder, RenderBundleEncoderDescriptor};
pub use compute::{ComputePassDescriptor, PassTimestampWrites};
pub use render::MAX_MULTI_DRAW_COUNT;
pub use render::{
    Operations, RenderPassColorAttachment, RenderPassDepthStencilAttachment, RenderPassDescriptor,
};
pub use transfer::{COPY_BYTES_PER_ROW_ALIGNMENT, QUERY_RESOLVE_ALIGNMENT};
pub use transition::{BufferTransition, TextureTransition};
pub(crate) use used::Used;

use crate::DefaultApi;
use crate::device::{Core, Device, Head, lock};
use crate::error::{Error, Result, fail};
use crate::handle::Handle;
use crate::native::Rec;
use crate::track::{State, Subresources, resolve};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use used::Pending;
use vigil_hal::{
    Api, CommandEncoder as _, MemoryBarrier, Stages, SubresourceRange, TextureAspect,
    TextureBarrier, TextureLayout,
};

/// How to create a command encoder.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandEncoderDescriptor<'a> {
    /// Label.
    pub label: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    None,
    Compute,
    Render,
}

/// Records commands for one command buffer. Owns its native command pool; `Send`, so it
/// can be moved to (and record on) any thread.
pub struct CommandEncoder<A: Api = DefaultApi> {
    pub(crate) core: Arc<Core<A>>,
    pub(crate) label: String,
    pub(crate) error: Option<Error>,
    pub(crate) pass: Pass,
    /// The native pool; present until `finish` or drop.
    pub(crate) pool: Option<A::CommandEncoder>,
    /// Whether a native command buffer is being recorded in the pool.
    pub(crate) open: bool,
    /// Native command buffers already ended, in submission order.
    pub(crate) segments: Vec<A::CommandBuffer>,
    pub(crate) used: Used<A>,
    /// Barriers the next command needs.
    pub(crate) pending: Pending,
    /// The usage scope of the open render pass or of the next dispatch.
    pub(crate) scope: scope::Scope,
    /// Pipeline barriers the tracker recorded for commands' own uses (not for
    /// transitions).
    pub(crate) derived_batches: u64,
    pub(crate) compute: compute::ComputeState,
    pub(crate) render: render::RenderState,
    pub(crate) dispatches: u64,
    pub(crate) draws: u64,
    pub(crate) recorded: bool,
    /// Render passes begun so far.
    pub(crate) passes: u64,
    /// Queries written by this encoder: `(set slot, bitset)`.
    pub(crate) written_queries: Vec<(u32, Vec<u64>)>,
    /// The timeline's query slot for this recording's passes (timeline on).
    pub(crate) timeline: Option<crate::timeline::Slot>,
    /// When the recording began and the open pass began (timeline clock, ns).
    pub(crate) started_ns: u64,
    pub(crate) pass_started: Option<(u64, &'static str, String)>,
    /// The timeline's query to write when the open pass ends.
    pub(crate) timeline_end: Option<(crate::handle::QuerySet, u32)>,
    /// `tracing` spans of the recording and of its open pass (closed when dropped).
    pub(crate) span: tracing::Span,
    pub(crate) pass_span: tracing::Span,
    /// The device's destroy epoch when recording began.
    pub(crate) epoch: u64,
    /// `(address, size)` of the heap the latest pointer or root checked lay in, one of the
    /// recording's heaps: while nothing was destroyed since recording began, an address
    /// inside it needs no other look (see [`CommandEncoder::draw_root`]).
    pub(crate) last_heap: Option<(u64, u64)>,
    /// What every call does on entry ([`Calls::enter`]): counted, and any run of
    /// [`CommandEncoder::draw_root`] ended.
    pub(crate) calls: Calls,
    /// The call that made the latest buffer copy large enough for the copy kernel (see
    /// `copy_words_unchecked`): a copy made by the very next call follows it.
    pub(crate) kernel_sized_copy: u32,
    /// `(heap entries, tracked textures, pass)` when a read of the texture heap last
    /// looked: while the first two stay the same, the next read need not look again (see
    /// [`CommandEncoder::heap_reads_clean`]) if that look found none of the recording's
    /// textures in a heap (`pass` 0), or in render pass `pass`, whose scope holds the
    /// reads that look added.
    pub(crate) heap_clean: Option<(u64, usize, u64)>,
    /// Debug groups open ([`CommandEncoder::push_debug_group`]), and how many of them were
    /// open when the open pass began.
    pub(crate) debug_groups: u64,
    pub(crate) pass_debug_groups: u64,
    /// The open pass's pipeline-statistics queries.
    pub(crate) statistics: statistics::Statistics,
}

/// What every call on an encoder updates on entry (its count, the run of `draw_root` it
/// ends), apart from the rest of the encoder's state so that a short path can update it
/// while it holds a borrow of the recording's tables.
#[derive(Default)]
pub(crate) struct Calls {
    /// Calls made on the encoder (wrapping).
    pub(crate) count: u32,
    /// `(address, size)` of the heap of a run of [`CommandEncoder::draw_root`]: set when
    /// the latest call was one that left the pass as a run of them needs it
    /// ([`render::RenderState::root_only`]), its root in that heap; then the next one
    /// checks only its root against the heap and its ranges. Every other call sets the size
    /// to 0 on entry ([`Calls::enter`]), so no change of state can slip past it.
    pub(crate) root_run: (u64, u64),
}

impl Calls {
    /// A call's entry: counted, and a run of `draw_root` ended. [`CommandEncoder::step`]
    /// makes it for every checked call, and each short path where it commits to the call.
    #[inline(always)]
    pub(crate) fn enter(&mut self) {
        self.root_run.1 = 0;
        self.count = self.count.wrapping_add(1);
    }
}

/// A finished command buffer, ready for [`Device::submit`] on any thread.
pub struct CommandBuffer<A: Api = DefaultApi> {
    pub(crate) core: Arc<Core<A>>,
    pub(crate) label: String,
    /// The native pool and the command buffers recorded in it, in order.
    pub(crate) native: Option<(A::CommandEncoder, Vec<A::CommandBuffer>)>,
    /// What it uses, boxed: a submission takes it ([`CommandBuffer::take_used`]) by
    /// moving a pointer, where the `Used` itself (1.3 KB) was copied into the submission's
    /// list and an empty one built in its place, and the command buffer that moves from
    /// `finish` to the submission's list is some 260 bytes instead of 1,576 (with the
    /// Vulkan backend). `None` once taken.
    pub(crate) used: Option<Box<Used<A>>>,
    pub(crate) dispatches: u64,
    pub(crate) draws: u64,
    pub(crate) epoch: u64,
    /// The timeline's query slot, resolved by this command buffer.
    pub(crate) timeline: Option<crate::timeline::Slot>,
}

impl<A: Api> std::fmt::Debug for CommandEncoder<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandEncoder")
            .field("label", &self.label)
            .field("poisoned", &self.error.is_some())
            .finish()
    }
}

impl<A: Api> std::fmt::Debug for CommandBuffer<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandBuffer")
            .field("label", &self.label)
            .finish()
    }
}

impl<A: Api> Device<A> {
    /// Creates a command encoder. It records without touching the device: move it to
    /// another thread to record there.
    pub fn create_command_encoder(
        &self,
        desc: &CommandEncoderDescriptor<'_>,
    ) -> Result<CommandEncoder<A>> {
        const OP: &str = "create_command_encoder";
        self.check_alive(OP)?;
        let pool = self.take_pool(OP)?;
        let mut encoder = self.encoder_with(desc.label, Some(pool));
        encoder.timeline = self.timeline_slot(desc.label);
        if self.timeline.on() {
            encoder.started_ns = self.timeline.now_ns();
        }
        // Timeline on: the command buffer's first timestamp opens it.
        if let Some(set) = encoder.timeline.as_ref().map(|s| s.objects.set) {
            if let Err(e) = encoder.write_timestamp(set, 0) {
                encoder.error = None;
                if let Some(slot) = encoder.timeline.take() {
                    self.timeline.give_back(slot.objects);
                }
                return Err(e);
            }
        }
        Ok(encoder)
    }

    /// An encoder recording into `pool` (none: it only checks, as a render bundle's
    /// does), without a timeline slot.
    pub(crate) fn encoder_with(
        &self,
        label: &str,
        pool: Option<A::CommandEncoder>,
    ) -> CommandEncoder<A> {
        let mut used = Used {
            epoch: self.destroy_epoch.load(Ordering::Acquire),
            ..Used::default()
        };
        // A render bundle's recording (no pool) keeps its tables as long as the bundle
        // lives: it takes no spares, which may be long.
        let spare = if pool.is_some() {
            crate::device::lock(&self.spare_tables).pop()
        } else {
            None
        };
        if let Some(tables) = spare {
            used.adopt_tables(tables);
        }
        self.table_hints.reserve(&mut used);
        CommandEncoder {
            core: self.core.clone(),
            label: label.to_owned(),
            error: None,
            pass: Pass::None,
            pool,
            open: false,
            segments: Vec::new(),
            used,
            pending: Pending::default(),
            scope: scope::Scope::default(),
            derived_batches: 0,
            compute: compute::ComputeState::default(),
            render: render::RenderState::default(),
            dispatches: 0,
            draws: 0,
            recorded: false,
            passes: 0,
            written_queries: Vec::new(),
            epoch: self.destroy_epoch.load(Ordering::Acquire),
            timeline: None,
            started_ns: 0,
            pass_started: None,
            timeline_end: None,
            span: tracing::debug_span!(target: "vigil", "vigil", op = "record", label = label),
            pass_span: tracing::Span::none(),
            last_heap: None,
            calls: Calls::default(),
            kernel_sized_copy: u32::MAX,
            heap_clean: None,
            debug_groups: 0,
            pass_debug_groups: 0,
            statistics: Default::default(),
        }
    }
}

impl<A: Api> CommandEncoder<A> {
    /// Whether an earlier call was refused (every later call is refused too).
    pub fn is_poisoned(&self) -> bool {
        self.error.is_some()
    }

    /// The encoder's label.
    pub fn label(&self) -> &str {
        &self.label
    }

    #[cold]
    fn poisoned(&self, first: &Error, op: &'static str) -> Error {
        fail!(
            EncoderPoisoned,
            op,
            &self.label,
            "the encoder is poisoned by an earlier refused call: {first}"
        )
    }

    /// Latches `e` as the encoder's first error and returns it.
    #[cold]
    pub(crate) fn latch(&mut self, e: Error) -> Error {
        if self.error.is_none() {
            self.error = Some(e.clone());
        }
        e
    }

    /// Runs a recording step: refused when poisoned; an error latches.
    #[inline]
    pub(crate) fn step<T>(
        &mut self,
        op: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.calls.enter();
        if let Some(first) = &self.error {
            return Err(self.poisoned(first, op));
        }
        match f(self) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.latch(e)),
        }
    }

    /// Makes sure a native command buffer is being recorded.
    #[inline]
    pub(crate) fn ensure_open(&mut self, op: &'static str) -> Result<()> {
        if self.open {
            return Ok(());
        }
        let Some(pool) = self.pool.as_mut() else {
            return Err(fail!(
                EncoderFinished,
                op,
                &self.label,
                "the encoder is finished"
            ));
        };
        pool.begin(&self.label)
            .map_err(|e| self.core.hal_error(e, op, &self.label))?;
        self.open = true;
        Ok(())
    }

    /// Ends the native command buffer being recorded (if any) and keeps it as a segment.
    pub(crate) fn cut(&mut self, op: &'static str) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let Some(pool) = self.pool.as_mut() else {
            return Ok(());
        };
        let cb = pool
            .end()
            .map_err(|e| self.core.hal_error(e, op, &self.label))?;
        self.segments.push(cb);
        Ok(())
    }

    /// The open native command buffer, for recording (call `ensure_open` first).
    #[inline]
    pub(crate) fn rec(&mut self) -> Option<Rec<'_, A>> {
        if !self.open {
            return None;
        }
        self.pool.as_mut().map(Rec)
    }

    /// Records the barriers collected in `pending` as one pipeline barrier. Most draws and
    /// dispatches need none: that test is inline, the recording out of line.
    #[inline(always)]
    pub(crate) fn flush_pending(&mut self, op: &'static str) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.flush_pending_now(op)
    }

    /// [`CommandEncoder::flush_pending`] with barriers to record.
    #[inline(never)]
    fn flush_pending_now(&mut self, op: &'static str) -> Result<()> {
        self.derived_batches = self.derived_batches.saturating_add(1);
        self.record_pending(op)
    }

    /// Records the barriers collected in `pending`, whoever asked for them.
    pub(crate) fn record_pending(&mut self, op: &'static str) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.ensure_open(op)?;
        let Some(pool) = self.pool.as_mut() else {
            return Ok(());
        };
        record_barriers(
            &mut Rec(pool),
            &mut self.used,
            &self.pending.buffers,
            &self.pending.textures,
        );
        self.pending.buffers.clear();
        self.pending.textures.clear();
        Ok(())
    }

    /// Refuses outside the expected pass.
    #[inline]
    pub(crate) fn expect_pass(&self, want: Pass, op: &'static str) -> Result<()> {
        if self.pass == want {
            return Ok(());
        }
        Err(self.pass_error(want, op))
    }

    #[cold]
    fn pass_error(&self, want: Pass, op: &'static str) -> Error {
        match (want, self.pass) {
            (Pass::None, Pass::Compute) => fail!(
                PassOpen,
                op,
                &self.label,
                "a compute pass is open; end it first (passes cannot nest, and copies happen outside passes)"
            ),
            (Pass::None, _) => fail!(
                PassOpen,
                op,
                &self.label,
                "a render pass is open; end it first (passes cannot nest, and copies happen outside passes)"
            ),
            (Pass::Compute, _) => fail!(
                PassNotOpen,
                op,
                &self.label,
                "this command belongs in a compute pass; none is open"
            ),
            (Pass::Render, _) => fail!(
                PassNotOpen,
                op,
                &self.label,
                "this command belongs in a render pass; none is open"
            ),
        }
    }

    /// Finishes recording. Reports the first refused call, an open pass, or an open debug
    /// group (`encoder.debug-group-open`).
    pub fn finish(mut self) -> Result<CommandBuffer<A>> {
        const OP: &str = "finish";
        if let Some(first) = self.error.take() {
            // The first refused call is what the caller needs to hear about.
            return Err(first);
        }
        if self.pass != Pass::None {
            let e = fail!(
                PassOpen,
                OP,
                &self.label,
                "a pass is still open; end it before finishing"
            );
            return Err(self.latch(e));
        }
        self.debug_groups_closed(OP, "the encoder")
            .map_err(|e| self.latch(e))?;
        // The timeline's pass timestamps go to a host-readable buffer by this same command
        // buffer, to be read once it completed.
        if let Some(slot) = self.timeline.take() {
            let o = slot.objects;
            let n = slot.written();
            let timed = self
                .write_timestamp(o.set, 1)
                .and_then(|()| self.resolve_query_set(o.set, 0, n, o.resolve, 0))
                .and_then(|()| {
                    self.copy_buffer_to_buffer(
                        o.resolve,
                        0,
                        o.readback,
                        0,
                        u64::from(n).saturating_mul(8),
                    )
                });
            match timed {
                Ok(()) => self.timeline = Some(slot),
                Err(e) => {
                    self.core.timeline.give_back(o);
                    return Err(e);
                }
            }
        }
        if self.recorded {
            // The command buffer's writes become visible to host reads after completion.
            self.ensure_open(OP).map_err(|e| self.latch(e))?;
            if let Some(mut r) = self.rec() {
                r.barriers(
                    Some(MemoryBarrier {
                        src: Stages::ALL_COMMANDS,
                        dst: Stages::HOST,
                    }),
                    &[],
                    &[],
                );
            }
        }
        self.cut(OP).map_err(|e| self.latch(e))?;
        self.record_early_checks(OP).map_err(|e| self.latch(e))?;
        let Some(pool) = self.pool.take() else {
            return Err(fail!(EncoderFinished, OP, &self.label, "already finished"));
        };
        self.core.table_hints.note(&self.used);
        let label = &self.label;
        self.core
            .timeline
            .cpu("record", || format!("record '{label}'"), self.started_ns);
        Ok(CommandBuffer {
            core: self.core.clone(),
            label: std::mem::take(&mut self.label),
            native: Some((pool, std::mem::take(&mut self.segments))),
            used: Some(Box::new(std::mem::take(&mut self.used))),
            dispatches: self.dispatches,
            draws: self.draws,
            epoch: self.epoch,
            timeline: self.timeline.take(),
        })
    }

    /// Before a pass begins (timeline on): its CPU span starts, and a timestamp of the
    /// timeline's own is written just before it, its pair to follow the pass's end (the
    /// caller's own `timestamp_writes`, if any, are left as they are).
    pub(crate) fn timeline_pass(&mut self, kind: &'static str, label: &str) -> Result<()> {
        if self.pass == Pass::None && !self.span.is_disabled() {
            self.pass_span = tracing::debug_span!(target: "vigil", parent: &self.span, "vigil", op = kind, label);
        }
        if !self.core.timeline.on() || self.pass != Pass::None || self.error.is_some() {
            return Ok(());
        }
        self.pass_started = Some((self.core.timeline.now_ns(), kind, label.to_owned()));
        let name = format!("{kind} '{label}' in '{}'", self.label);
        let Some(slot) = self.timeline.as_mut() else {
            return Ok(());
        };
        let Some((beginning, end)) = slot.next_pair() else {
            return Ok(());
        };
        slot.passes.push(name);
        let set = slot.objects.set;
        self.timeline_end = Some((set, end));
        self.write_timestamp(set, beginning)
    }

    /// After a pass ended: its CPU span ends and the timeline's second timestamp follows.
    pub(crate) fn timeline_pass_end(&mut self) -> Result<()> {
        self.pass_span = tracing::Span::none();
        if let Some((start, kind, label)) = self.pass_started.take() {
            self.core
                .timeline
                .cpu("pass", || format!("record {kind} '{label}'"), start);
        }
        match self.timeline_end.take() {
            Some((set, end)) => self.write_timestamp(set, end),
            None => Ok(()),
        }
    }

    /// Remembers that this encoder wrote query `index` of set slot `set`.
    pub(crate) fn note_query_written(&mut self, set: u32, index: u32) {
        let bits = match self.written_queries.iter_mut().position(|(s, _)| *s == set) {
            Some(i) => &mut self.written_queries[i].1,
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

    /// Whether this encoder wrote query `index` of set slot `set`.
    pub(crate) fn query_written(&self, set: u32, index: u32) -> bool {
        self.written_queries
            .iter()
            .find(|(s, _)| *s == set)
            .and_then(|(_, bits)| bits.get(index as usize / 64))
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }
}

/// Records tracker barriers (by tracker slot) as one pipeline barrier. Buffer dependencies
/// become one global memory barrier from every stage used so far to the stages that wait:
/// as cheap for the GPU as the buffer barriers it replaces, and it also covers every other
/// earlier write for those stages, so the uses after it need no barrier of their own (the
/// tracker's [`crate::track::Fence`]). Texture layout transitions stay per subresource.
pub(crate) fn record_barriers<A: Api>(
    rec: &mut Rec<'_, A>,
    used: &mut Used<A>,
    buffers: &[(usize, u64, u64, crate::track::Transition)],
    textures: &[(usize, u32, u32, crate::track::Transition)],
) {
    let memory = if buffers.is_empty() {
        None
    } else {
        let dst = buffers
            .iter()
            .fold(Stages::empty(), |d, (_, _, _, t)| d | t.dst);
        let src = buffers
            .iter()
            .fold(used.stages_used, |s, (_, _, _, t)| s | t.src);
        used.fence = Some(crate::track::Fence { at: used.seq, dst });
        Some(MemoryBarrier { src, dst })
    };
    let mut tb: Vec<TextureBarrier<'_, A>> = Vec::with_capacity(textures.len());
    for &(slot, mip, layer, t) in textures {
        let Some(tex) = used.tracker.textures.get(slot) else {
            continue;
        };
        // Neighbouring layers of one mip with the same transition become one barrier.
        if let Some(last) = tb.last_mut() {
            let r = &last.range;
            if std::ptr::eq(last.texture, &*tex.obj.raw)
                && r.base_mip_level == mip
                && r.base_array_layer.saturating_add(r.array_layer_count) == layer
                && (last.old_layout, last.new_layout, last.src, last.dst)
                    == (t.old_layout, t.new_layout, t.src, t.dst)
                && (last.src_access, last.dst_access) == (t.src_access, t.dst_access)
            {
                last.range.array_layer_count = last.range.array_layer_count.saturating_add(1);
                continue;
            }
        }
        tb.push(texture_barrier(&*tex.obj.raw, &tex.obj.desc, mip, layer, t));
    }
    if memory.is_some() || !tb.is_empty() {
        rec.barriers(memory, &[], &tb);
    }
}

/// A barrier for one subresource.
pub(crate) fn texture_barrier<'a, A: Api>(
    raw: &'a A::Texture,
    desc: &crate::texture::TextureDescriptorOwned,
    mip: u32,
    layer: u32,
    t: crate::track::Transition,
) -> TextureBarrier<'a, A> {
    let _ = desc;
    TextureBarrier {
        texture: raw,
        range: SubresourceRange {
            aspect: TextureAspect::All,
            base_mip_level: mip,
            mip_level_count: 1,
            base_array_layer: layer,
            array_layer_count: 1,
        },
        old_layout: t.old_layout,
        new_layout: t.new_layout,
        src: t.src,
        src_access: t.src_access,
        dst: t.dst,
        dst_access: t.dst_access,
    }
}

impl<A: Api> Drop for CommandEncoder<A> {
    fn drop(&mut self) {
        if let Some(slot) = self.timeline.take() {
            self.core.timeline.give_back(slot.objects);
        }
        if let Some(mut pool) = self.pool.take() {
            // Never submitted: nothing of it is pending, so the pool is reset and reused.
            pool.discard();
            let segments = std::mem::take(&mut self.segments);
            crate::native::reset_all::<A>(&mut pool, segments);
            self.core.return_pool(pool);
        }
        // `used` is dropped after the native recording is gone: objects destroyed while
        // this encoder held them are released now.
    }
}

impl<A: Api> CommandBuffer<A> {
    /// Label the encoder had.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Checks that the command buffer can be submitted to `core`: recorded on it, and
    /// everything it names still live and unmapped. When nothing was destroyed or mapped
    /// since recording began, only the mapping words of its buffers are read.
    pub(crate) fn validate_for_submit(&self, core: &Core<A>) -> Result<()> {
        const OP: &str = "submit";
        if self.core.id != core.id {
            return Err(fail!(
                SubmitForeign,
                OP,
                &self.label,
                "the command buffer was recorded on device {}, not this one ({})",
                self.core.id,
                core.id
            ));
        }
        // A buffer's mapping word is set only while the device's mapping registry holds
        // its mapping (set after the insertion, cleared before the removal): with no live
        // mapping, no buffer is mapped and none needs a look.
        let Some(used) = self.used.as_deref() else {
            // Taken by a submission: nothing left to check.
            return Ok(());
        };
        let mapped = (core.objects.mappings.live_count() > 0)
            .then(|| {
                used.tracker
                    .buffers
                    .iter()
                    .map(|t| &t.obj)
                    .chain(used.buffers.iter())
                    .find(|b| b.mapping.load(Ordering::Acquire) != 0)
            })
            .flatten();
        if let Some(b) = mapped {
            return Err(fail!(
                SubmitMapped,
                OP,
                &self.label,
                "buffer '{}' is mapped; unmap it before submitting work that uses it",
                b.label
            ));
        }
        if core
            .features
            .contains(vigil_hal::Features::DESCRIPTOR_HEAPS)
        {
            self.check_resident()?;
        }
        if core.destroy_epoch.load(Ordering::Acquire) == self.epoch {
            return Ok(());
        }
        let o = &core.objects;
        let gone = |kind: &str, label: &str| {
            Err(fail!(
                SubmitDestroyed,
                OP,
                &self.label,
                "the command buffer uses {kind} '{label}', which was destroyed after recording"
            ))
        };
        macro_rules! live {
            ($obj:expr, $reg:ident) => {
                o.$reg
                    .is_live($obj.handle.index(), $obj.handle.generation())
            };
        }
        for b in used.buffers.iter() {
            if !live!(b, buffers) {
                return gone("buffer", &b.label);
            }
        }
        for t in used.textures.iter() {
            if !live!(t, textures) {
                return gone("texture", &t.label);
            }
        }
        for v in used.views.iter() {
            if !live!(v, views) || !live!(v.texture, textures) {
                return gone("texture view", &v.label);
            }
        }
        for p in used.compute_pipelines.iter() {
            if !live!(p, compute_pipelines) {
                return gone("compute pipeline", &p.label);
            }
        }
        for p in used.render_pipelines.iter() {
            if !live!(p, render_pipelines) {
                return gone("render pipeline", &p.label);
            }
        }
        for q in used.query_sets.iter() {
            if !live!(q, query_sets) {
                return gone("query set", &q.label);
            }
        }
        for h in &used.gpu_heaps {
            if !live!(h, gpu_heaps) {
                return gone("GPU heap", &h.label);
            }
        }
        for h in &used.texture_heaps {
            if !live!(h, texture_heaps) {
                return gone("texture heap", &h.label);
            }
        }
        for h in &used.sampler_heaps {
            if !live!(h, sampler_heaps) {
                return gone("sampler heap", &h.label);
            }
        }
        for b in used.blas.iter() {
            if !live!(b, blas) {
                return gone("bottom-level acceleration structure", &b.label);
            }
        }
        for t in used.tlas.iter() {
            if !live!(t, tlas) {
                return gone("top-level acceleration structure", &t.label);
            }
        }
        for g in used.groups.iter() {
            if !live!(g, bind_groups) {
                return gone("bind group", &g.label);
            }
            for m in g.members.iter() {
                let (alive, kind, label) = match m {
                    crate::device::Member::Buffer { buffer, .. } => {
                        (live!(buffer, buffers), "buffer", &buffer.label)
                    }
                    crate::device::Member::View { view, .. } => (
                        live!(view, views) && live!(view.texture, textures),
                        "texture view",
                        &view.label,
                    ),
                    crate::device::Member::Sampler(s) => (live!(s, samplers), "sampler", &s.label),
                    crate::device::Member::Tlas(t) => {
                        (live!(t, tlas), "top-level acceleration structure", &t.label)
                    }
                };
                if !alive {
                    return Err(fail!(
                        SubmitDestroyed,
                        OP,
                        &self.label,
                        "bind group '{}' binds {kind} '{label}', which was destroyed",
                        g.label
                    ));
                }
            }
        }
        for b in &used.bundles {
            if let Some(e) = b.gone(core) {
                return Err(fail!(
                    SubmitDestroyed,
                    OP,
                    &self.label,
                    "the command buffer executes render bundle '{}', which names an object destroyed since: {}",
                    b.label,
                    e.message()
                ));
            }
        }
        Ok(())
    }

    /// Refuses a command buffer that uses a texture a heap names in another layout than
    /// its sampled one (`gpu.heap-resident`): heap shaders read it in that layout whenever
    /// they run, so it may not leave it.
    fn check_resident(&self) -> Result<()> {
        let Some(used) = self.used.as_deref() else {
            return Ok(());
        };
        let tracker = &used.tracker;
        for t in &tracker.textures {
            if t.obj.heap_slots.load(Ordering::Acquire) == 0 {
                continue;
            }
            if t.left_sampled_layout() {
                return Err(fail!(
                    GpuHeapResident,
                    "submit",
                    &self.label,
                    "texture '{}' is named by a texture heap, and the command buffer uses it in another layout than the one heap shaders sample it in (a copy, attachment or clear); take its views out of heaps first",
                    t.obj.label
                ));
            }
            // Heap reads take the slots as they are when the work runs: a texture that
            // entered a heap after the recording's first heap read may be sampled by reads
            // the recording did not order against its writes of it.
            let late = tracker.heap_read.is_some()
                && t.obj.heap_since.load(Ordering::Acquire) > tracker.heap_read_from;
            if late && t.written() {
                return Err(fail!(
                    GpuHeapResident,
                    "submit",
                    &self.label,
                    "texture '{}' entered a texture heap after this command buffer first read the heap, and the command buffer writes it: its heap reads, which sample what the slots hold when the work runs, were recorded without ordering them against that write; submit it before the texture enters a heap, or write the texture in a command buffer of its own",
                    t.obj.label
                ));
            }
        }
        Ok(())
    }

    /// Resolves the command buffer's first uses against the device's state of each
    /// resource (called at submission, under the queue lock): what must run before it
    /// (zero fills of buffers and textures never used, barriers) goes into `head`, and the
    /// states move on to what the command buffer leaves them in. The old states are kept
    /// in `undo` so a refused submission can put them back.
    pub(crate) fn resolve<'r>(
        &'r self,
        head: &mut Head<'r, A>,
        undo: &mut crate::device::Undo<A>,
        states: &mut crate::device::BufferStates,
        serial: u64,
    ) {
        let Some(used) = self.used.as_deref() else {
            return;
        };
        // The undo keeps one entry per tracked resource: room for all of them up front
        // spares the growth of these lists one push at a time.
        undo.cb_buffers.reserve(used.tracker.buffers.len());
        undo.cb_textures.reserve(used.tracker.textures.len());
        for t in &used.tracker.buffers {
            let g = states.at(t.key);
            undo.cb_buffers.push(*g);
            g.last_use = serial;
            if !g.zeroed {
                head.zero_buffers.push(&t.obj);
                g.zeroed = true;
                g.state = State {
                    write: Some((Stages::TRANSFER, vigil_hal::Access::TRANSFER_WRITE)),
                    reads: (Stages::empty(), vigil_hal::Access::empty()),
                    visible: Stages::empty(),
                    cleared: Stages::empty(),
                    layout: TextureLayout::General,
                };
            }
            if let Some(part) = t.track.single() {
                // One part (the usual case): resolved in place.
                if let Some(tr) = resolve(&mut g.state, part) {
                    head.barriers.buffer(tr);
                }
                continue;
            }
            let before = g.state;
            let mut after: Option<State> = None;
            for (_, _, part) in t.track.parts() {
                let mut s = before;
                if let Some(tr) = resolve(&mut s, part) {
                    head.barriers.buffer(tr);
                }
                after = Some(after.map_or(s, |a| a.merge(s)));
            }
            g.state = after.unwrap_or(before);
        }
        for t in &used.tracker.textures {
            let mut g = lock(&t.obj.state);
            undo.cb_textures.push((g.initialized, g.saved_parts()));
            crate::device::zero_if_unwritten(&t.obj, &mut g, head);
            let layers = t.obj.desc.layers().max(1);
            // Heap reads in other command buffers are not tracked: while a heap names the
            // texture, every shader stage counts as reading it, so a write here waits for
            // whatever read it through a heap before.
            let in_heap = t.obj.heap_slots.load(Ordering::Acquire) != 0;
            for (mip, layer, part) in t.track.parts() {
                let i = (mip as usize)
                    .saturating_mul(layers as usize)
                    .saturating_add(layer as usize);
                if let Some(s) = g.parts.get_mut(i) {
                    if in_heap {
                        // (A preparation for this use made before such reads waits for
                        // none of them: it no longer stands.)
                        s.reads.0 |= crate::device::objects::HEAP_READERS;
                        s.reads.1 |= vigil_hal::Access::SHADER_READ;
                        s.cleared = Stages::empty();
                    }
                    if let Some(tr) = resolve(s, part) {
                        let range = Subresources {
                            base_mip: mip,
                            mips: 1,
                            base_layer: layer,
                            layers: 1,
                        };
                        head.barriers.textures.push((&t.obj, range, tr));
                    }
                }
            }
        }
    }

    /// Reads what the submission will read of each texture the command buffer tracks, one
    /// texture after another with nothing between, before the queue lock is taken: after a
    /// recording (or other work) these objects are out of the cache, and the reads here
    /// wait for their memory side by side, where `resolve` would wait for each in turn
    /// (each texture's state is locked there, and a locked instruction waits for its line
    /// before anything after it runs).
    pub(crate) fn warm(&self) {
        for o in self.tracked_textures() {
            std::hint::black_box((
                o.heap_slots.load(Ordering::Relaxed),
                o.exported.load(Ordering::Relaxed),
                o.last_use.load(Ordering::Relaxed),
                o.desc.array_layers,
                o.state.is_poisoned(),
            ));
        }
    }

    /// The textures a heap names that the command buffer writes (or moves out of a layout):
    /// their device states may hold writes that heap reads, which no tracker sees, must
    /// wait for.
    pub(crate) fn heap_writes(
        &self,
    ) -> impl Iterator<Item = &Arc<crate::device::TextureObj<A>>> + '_ {
        self.used
            .iter()
            .flat_map(|u| &u.tracker.textures)
            .filter(|t| t.obj.heap_slots.load(Ordering::Acquire) != 0 && t.written())
            .map(|t| &t.obj)
    }

    /// The keys of the buffers the tracker follows, in its order (the order `resolve`
    /// visits them).
    pub(crate) fn tracked_buffers(&self) -> impl Iterator<Item = crate::device::BufferKey> + '_ {
        self.used
            .iter()
            .flat_map(|u| &u.tracker.buffers)
            .map(|t| t.key)
    }

    /// The textures the tracker follows, as their objects' `Arc`s.
    pub(crate) fn tracked_texture_objs(
        &self,
    ) -> impl Iterator<Item = &Arc<crate::device::TextureObj<A>>> + '_ {
        self.used
            .iter()
            .flat_map(|u| &u.tracker.textures)
            .map(|t| &t.obj)
    }

    /// The textures the tracker follows, in its order.
    pub(crate) fn tracked_textures(&self) -> impl Iterator<Item = &crate::device::TextureObj<A>> {
        self.tracked_texture_objs().map(|t| &**t)
    }

    /// Marks what the command buffer uses as used by submission `serial`: the buffers it
    /// named (those it tracks were marked as `resolve` moved their states on) in the
    /// queue's table of their states, the textures in their objects.
    pub(crate) fn stamp(&self, serial: u64, states: &mut crate::device::BufferStates) {
        let Some(used) = self.used.as_deref() else {
            return;
        };
        for b in used.buffers.iter() {
            states.stamp(b.key(), serial);
        }
        for t in &used.tracker.textures {
            t.obj.last_use.store(serial, Ordering::Release);
        }
    }

    /// Takes the native pool and command buffers (to submit, then recycle).
    pub(crate) fn take_native(&mut self) -> Option<(A::CommandEncoder, Vec<A::CommandBuffer>)> {
        self.native.take()
    }

    /// Takes what the command buffer uses (kept alive until its submission completes).
    /// `None` when taken before (a command buffer is submitted once).
    pub(crate) fn take_used(&mut self) -> Option<Box<Used<A>>> {
        self.used.take()
    }

    /// The native command buffers, in order.
    pub(crate) fn segments(&self) -> &[A::CommandBuffer] {
        self.native.as_ref().map_or(&[], |(_, s)| s.as_slice())
    }
}

impl<A: Api> Drop for CommandBuffer<A> {
    fn drop(&mut self) {
        if let Some(slot) = self.timeline.take() {
            // Never submitted (a submitted one's slot went to the timeline).
            self.core.timeline.give_back(slot.objects);
        }
        if let Some((mut pool, segments)) = self.native.take() {
            // Never submitted: nothing of it is pending, so the pool can be reset.
            crate::native::reset_all::<A>(&mut pool, segments);
            self.core.return_pool(pool);
        }
        // `used`, unless a submission took it, drops after this body.
    }
}
