//! What a command buffer uses: every object it recorded, kept alive until its submission
//! completes (or it is dropped), and the per-resource tracker of its uses.
//!
//! Objects named by handle are found through [`Seen`]: a vector indexed by the handle's
//! slot, holding the generation and the object. The registry's lock-free state word says
//! whether the handle is live; the slot says whether this recording has the object
//! already. After the first use of a handle, a lookup is an atomic load, an index and two
//! compares: no lock, no reference count change, no allocation.

use crate::device::{
    BindGroupObj, BlasObj, BufferObj, ComputePipelineObj, Core, QuerySetObj, RenderPipelineObj,
    TextureObj, TlasObj, ViewObj, kinds::Kind,
};
use crate::error::Result;
use crate::registry::Labelled;
use crate::track::{BufferTrack, Fence, Subresources, TextureTrack, Transition, Use};
use std::sync::Arc;
use vigil_hal::Api;

/// One entry of a [`Seen`] table: the object's generation, the object, and the number the
/// recording keeps with it.
type SeenEntry<T> = Option<(u32, Arc<T>, u32)>;

/// Objects of one kind a recording has met, by slot: generation, object, and a number the
/// recording keeps with it (a buffer's or texture's tracker slot, a group's member list).
///
/// The table is as long as the highest slot met, but nothing but a lookup reads it by
/// position: the slots met are listed apart (`met`), so going through the objects, and
/// letting go of them, takes as long as the objects met, not as the table, and an emptied
/// table is handed to a later recording (see [`SlotTables`]) instead of being made again.
pub(crate) struct Seen<T> {
    by_slot: Vec<SeenEntry<T>>,
    /// The slots that hold an object, in the order they were met.
    met: Vec<u32>,
    /// Objects pushed out of their slot by a newer object in the same slot (the older
    /// one was destroyed while this recording held it).
    displaced: Vec<Arc<T>>,
}

impl<T> Default for Seen<T> {
    fn default() -> Self {
        Seen {
            by_slot: Vec::new(),
            met: Vec::new(),
            displaced: Vec::new(),
        }
    }
}

impl<T> Seen<T> {
    /// The object in `index` if it has generation `generation`.
    #[inline]
    pub fn get(&self, index: u32, generation: u32) -> Option<&Arc<T>> {
        match self.by_slot.get(index as usize) {
            Some(Some((g, obj, _))) if *g == generation => Some(obj),
            _ => None,
        }
    }

    /// The object in `index` if it has generation `generation`, with the number kept with
    /// it (`u32::MAX` until set): one look into the table for both.
    #[inline]
    pub fn get_with_aux(&self, index: u32, generation: u32) -> Option<(&Arc<T>, u32)> {
        match self.by_slot.get(index as usize) {
            Some(Some((g, obj, aux))) if *g == generation => Some((obj, *aux)),
            _ => None,
        }
    }

    /// The number kept with the object in `index` (`u32::MAX` until set).
    #[inline]
    pub fn aux(&self, index: u32, generation: u32) -> u32 {
        match self.by_slot.get(index as usize) {
            Some(Some((g, _, aux))) if *g == generation => *aux,
            _ => u32::MAX,
        }
    }

    /// Sets the number kept with the object in `index`.
    #[inline]
    pub fn set_aux(&mut self, index: u32, generation: u32, value: u32) {
        if let Some(Some((g, _, aux))) = self.by_slot.get_mut(index as usize) {
            if *g == generation {
                *aux = value;
            }
        }
    }

    /// Remembers `obj` under its slot and generation.
    pub fn insert(&mut self, index: u32, generation: u32, obj: Arc<T>) {
        let i = index as usize;
        if self.by_slot.len() <= i {
            self.by_slot.resize_with(i.saturating_add(1), || None);
        }
        if let Some(slot) = self.by_slot.get_mut(i) {
            match slot.replace((generation, obj, u32::MAX)) {
                Some((_, old, _)) => self.displaced.push(old),
                None => self.met.push(index),
            }
        }
    }

    /// Every object met (in the order their slots were first met, then the displaced).
    pub fn iter(&self) -> impl Iterator<Item = &Arc<T>> + '_ {
        self.met
            .iter()
            .filter_map(|&i| match self.by_slot.get(i as usize) {
                Some(Some((_, o, _))) => Some(o),
                _ => None,
            })
            .chain(self.displaced.iter())
    }

    /// Lets go of every object met and hands back the table, every entry empty and its
    /// length kept, with the emptied list of slots met: what a later recording takes over
    /// (see [`Seen::adopt`]).
    fn empty_table(&mut self) -> SeenTable<T> {
        vacate(
            &mut self.by_slot,
            self.met.drain(..).map(|i| i as usize),
            || None,
        );
        self.displaced.clear();
        SeenTable {
            by_slot: std::mem::take(&mut self.by_slot),
            met: std::mem::take(&mut self.met),
        }
    }

    /// Takes over an emptied table (from [`Seen::empty_table`]) for a recording that has
    /// met nothing yet.
    fn adopt(&mut self, table: SeenTable<T>) {
        if self.met.is_empty() && self.by_slot.is_empty() {
            self.by_slot = table.by_slot;
            self.met = table.met;
        }
    }
}

/// An emptied [`Seen`] table and its list of slots met (empty, its room kept).
pub(crate) struct SeenTable<T> {
    by_slot: Vec<SeenEntry<T>>,
    met: Vec<u32>,
}

/// Finds the live object `h` names, recording it as used on first meeting. After the first
/// meeting: the registry's state word, the recording's slot, two compares.
#[inline]
pub(crate) fn find<'s, A: Api, H: Kind<A>>(
    seen: &'s mut Seen<H::Obj>,
    core: &Core<A>,
    h: H,
    op: &'static str,
) -> Result<&'s Arc<H::Obj>>
where
    H::Obj: Labelled,
{
    let (i, g) = (h.index(), h.generation());
    let known = h.device_id() == core.id
        && H::registry(&core.objects).is_live(i, g)
        && seen.get(i, g).is_some();
    if !known {
        meet(seen, core, h, op)?;
    }
    seen.get(i, g)
        .ok_or_else(|| H::registry(&core.objects).explain(h, core.id, op))
}

/// The first meeting of a recording with a handle (or a refusal): the registry lookup.
#[cold]
#[inline(never)]
fn meet<A: Api, H: Kind<A>>(
    seen: &mut Seen<H::Obj>,
    core: &Core<A>,
    h: H,
    op: &'static str,
) -> Result<()>
where
    H::Obj: Labelled,
{
    let reg = H::registry(&core.objects);
    if h.device_id() != core.id || !reg.is_live(h.index(), h.generation()) {
        return Err(reg.explain(h, core.id, op));
    }
    let obj = reg.get(h, core.id, op)?;
    seen.insert(h.index(), h.generation(), obj);
    Ok(())
}

/// A buffer a command buffer uses, with the history of its ranges.
pub(crate) struct TrackedBuffer<A: Api> {
    pub obj: Arc<BufferObj<A>>,
    /// Its entry's key in the queue's buffer states, copied from `obj` when first met: a
    /// submission finds and stamps the entry without reading the object.
    pub key: crate::device::BufferKey,
    pub track: BufferTrack,
}

/// A texture a command buffer uses, with the history of its subresources.
pub(crate) struct TrackedTexture<A: Api> {
    pub obj: Arc<TextureObj<A>>,
    pub track: TextureTrack,
    /// An aliasable texture another alias of its bytes was activated over later in this
    /// recording, or that another alias of its bytes was used before in it with no
    /// activation since: no further use until it is activated (`placement.inactive-alias`).
    pub retired: bool,
}

impl<A: Api> TrackedTexture<A> {
    /// Whether the recording uses the texture in another layout than the one shaders
    /// sample it in (a copy, an attachment, a clear, a storage binding): what a texture a
    /// heap names may not do (`gpu.heap-resident`).
    pub fn left_sampled_layout(&self) -> bool {
        let sampled = crate::device::objects::shader_layout(self.obj.desc.usage);
        self.track.parts().any(|(_, _, p)| {
            p.first.is_some_and(|u| u.layout != sampled) || p.state.layout != sampled
        })
    }

    /// Whether the recording writes the texture (or moves it out of a layout): a part's
    /// state keeps a write from its first write on.
    pub fn written(&self) -> bool {
        self.track.parts().any(|(_, _, p)| p.state.write.is_some())
    }
}

/// What a recording does with aliasable textures, in order (checked at submission against
/// which alias is active).
pub(crate) enum AliasEvent<A: Api> {
    /// Its first use, before any activation of it here: it must be active already.
    Use(Arc<TextureObj<A>>),
    /// Activated here: active from now on, the aliases sharing its bytes inactive.
    Activate(Arc<TextureObj<A>>),
}

/// Everything a recording uses, and the tracker of its buffers and textures.
pub(crate) struct Used<A: Api> {
    pub buffers: Seen<BufferObj<A>>,
    pub textures: Seen<TextureObj<A>>,
    pub views: Seen<ViewObj<A>>,
    pub groups: Seen<BindGroupObj<A>>,
    pub compute_pipelines: Seen<ComputePipelineObj<A>>,
    pub render_pipelines: Seen<RenderPipelineObj<A>>,
    pub query_sets: Seen<QuerySetObj<A>>,
    pub blas: Seen<BlasObj<A>>,
    pub tlas: Seen<TlasObj<A>>,
    /// GPU heaps the recording's roots point into (checked live at submission).
    pub gpu_heaps: Vec<Arc<crate::device::GpuHeapObj<A>>>,
    /// Texture and sampler heaps the recording set (checked live at submission).
    pub texture_heaps: Vec<Arc<crate::device::TextureHeapObj<A>>>,
    pub sampler_heaps: Vec<Arc<crate::device::SamplerHeapObj<A>>>,
    /// What heaps let go of while work was in flight, kept until it completes (held only
    /// to be dropped then).
    #[allow(dead_code)]
    pub retired: Vec<crate::device::heaps::Retired<A>>,
    /// The recording's own timestamps: read when its submission completes.
    pub stamps: Option<Stamps<A>>,
    /// What the recording built and what it needs built before it runs.
    pub accel: AccelUse<A>,
    /// Tracked buffers and textures.
    pub tracker: Tracker<A>,
    /// What the recording keeps of each group it met, indexed by the number `groups` keeps
    /// with the group.
    pub group_info: Vec<GroupInfo<A::BindGroupKey>>,
    /// What uses of the groups' members need (their tracker slots, ranges and uses), in
    /// one list: a dispatch or a render pass's scope reads these, not the group objects.
    pub member_uses: Vec<MemberUse>,
    /// The groups' bound sizes per layout entry, in one list.
    pub group_sizes: Vec<u64>,
    /// Uses are numbered by usage scope (a dispatch, a copy, a render pass), in order.
    pub seq: u64,
    /// The last global barrier recorded.
    pub fence: Option<Fence>,
    /// Every stage a use so far was in (what a global barrier waits for).
    pub stages_used: vigil_hal::Stages,
    /// The device's destroy epoch when recording began (`u64::MAX`: unknown). While the
    /// device's has not moved, nothing this recording met was destroyed since, so a
    /// handle it holds needs no registry look ([`Used::unchanged`]).
    pub epoch: u64,
    /// The layout of the render pipeline bound last (what draws bind groups against).
    pub render_layout: Option<Arc<crate::device::PipelineLayoutObj<A>>>,
    /// What the checks of the recording's indirect dispatches use.
    pub indirect: IndirectUse<A>,
    /// The copy kernel's pipeline, once a copy of the recording took it.
    pub copy_kernel: Option<Arc<crate::device::indirect::Pipeline<A>>>,
    /// The groups binding the windows of the recording's copies by kernel.
    pub copy_groups: Vec<crate::native::Owned<A, crate::native::BindGroupKind>>,
    /// Render bundles executed (holding every object they name; checked live at
    /// submission).
    pub bundles: Vec<Arc<super::RenderBundleObj<A>>>,
}

/// The hasher of [`IndirectUse::early_at`]: fixed keys, so an empty table (every
/// recording's, and every submission's `Used::default`) costs no random seed.
pub(crate) type EarlyHash =
    std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// Which buffer an argument group binds, and from where.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceKey {
    /// A GPU heap's buffer (else a buffer's).
    pub heap: bool,
    /// The heap's or buffer's registry slot and generation.
    pub index: u32,
    pub generation: u32,
    /// The binding's offset (0: the whole buffer).
    pub base: u64,
}

/// A group binding an argument buffer for the indirect-dispatch check.
pub(crate) type IndirectSource<A> = crate::native::Owned<A, crate::native::BindGroupKind>;

/// What the checks in front of a recording's indirect dispatches use (see
/// `device/indirect.rs`), kept until its submission completes: the scratch buffers it
/// leased and the groups binding its argument buffers.
pub(crate) struct IndirectUse<A: Api> {
    /// The check's pipeline, once the recording met it.
    pub pipeline: Option<Arc<crate::device::indirect::Pipeline<A>>>,
    /// Leased scratch buffers; the last one's slots are taken in order.
    pub leases: Vec<crate::device::indirect::Lease<A>>,
    /// Slots taken in the last lease.
    pub taken: u32,
    /// Checks recorded in front of the recording (arguments nothing before them in the
    /// recording wrote), one per argument range.
    pub early: Vec<crate::encoder::compute::CheckedArgs>,
    /// Where in `early` the check of each `(source, word)` is.
    pub early_at: std::collections::HashMap<(usize, u32), usize, EarlyHash>,
    /// The early check found or made last.
    pub early_last: Option<crate::encoder::compute::CheckedArgs>,
    /// Checks recorded in front of the open compute pass (arguments written earlier in the
    /// recording, but not since the pass began), one per argument range.
    pub front: Vec<crate::encoder::compute::CheckedArgs>,
    /// Where in `front` the check of each `(source, word)` is.
    pub front_at: std::collections::HashMap<(usize, u32), usize, EarlyHash>,
    /// Groups binding argument buffers, by buffer and the binding's offset.
    pub sources: Vec<(SourceKey, IndirectSource<A>)>,
}

impl<A: Api> Default for IndirectUse<A> {
    fn default() -> Self {
        IndirectUse {
            pipeline: None,
            leases: Vec::new(),
            taken: 0,
            early: Vec::new(),
            early_at: std::collections::HashMap::default(),
            early_last: None,
            front: Vec::new(),
            front_at: std::collections::HashMap::default(),
            sources: Vec::new(),
        }
    }
}

impl<A: Api> IndirectUse<A> {
    /// Makes the next `n` checks (`n` at most a scratch buffer's slots) take slots one
    /// after another in one scratch buffer: a new one is leased for the first of them
    /// when the last lease has fewer left.
    pub fn room_for(&mut self, n: u32) {
        if self.taken.saturating_add(n) > crate::device::indirect::SLOTS {
            self.taken = crate::device::indirect::SLOTS;
        }
    }
}

/// The buffers and textures a recording tracks, in first-use order, with their histories.
pub(crate) struct Tracker<A: Api> {
    pub buffers: Vec<TrackedBuffer<A>>,
    pub textures: Vec<TrackedTexture<A>>,
    /// Aliasable textures' first uses and activations, in order.
    pub alias_events: Vec<AliasEvent<A>>,
    /// How many tracked textures are retired (none: no use needs looking at).
    retired_count: usize,
    /// Slots in `buffers` of buffers made with `INDIRECT` usage (what a compute pass asks
    /// about before its indirect dispatches: were any of them written).
    indirect_slots: Vec<u32>,
    /// Where each tracked buffer is in `buffers`, by its handle's index: the handle's
    /// generation and the slot (`u32::MAX`: none). Every buffer a recording meets is this
    /// device's (other devices' handles are refused before they reach the tracker), so
    /// index and generation name one object, and the registry's indices are dense: a
    /// short table, and a look is an index and a compare. An entry, once made, is never
    /// replaced: a buffer whose index another generation holds (its registry slot reused
    /// after a destruction) is in `buffer_overflow` instead, so each buffer has one slot.
    buffer_at: Vec<(u32, u32)>,
    /// Tracked buffers whose index in `buffer_at` holds another generation, by address.
    buffer_overflow: std::collections::HashMap<usize, u32, PtrHash>,
    /// Where each tracked texture is in `textures`, by its address.
    texture_index: std::collections::HashMap<usize, u32, PtrHash>,
    /// The stages that have read the texture heap so far in this recording, and the use
    /// number of the last such read (none yet: `None`). A heap read is a use of the
    /// recording's textures a heap names only when the recording tracks them; a texture
    /// such a heap names that the recording first meets after a heap read is taken as
    /// read by it, so a later write in the recording waits for the read.
    pub heap_read: Option<(vigil_hal::Stages, u64)>,
    /// The device's count of heap entries when the recording first read the texture heap
    /// (see `TextureObj::heap_since`).
    pub heap_read_from: u64,
}

/// Every subresource of `t`.
pub(crate) fn whole_texture<A: Api>(t: &TextureObj<A>) -> Subresources {
    Subresources {
        base_mip: 0,
        mips: t.desc.mip_level_count.max(1),
        base_layer: 0,
        layers: t.desc.layers().max(1),
    }
}

impl<A: Api> Default for Tracker<A> {
    fn default() -> Self {
        Tracker {
            buffers: Vec::new(),
            textures: Vec::new(),
            alias_events: Vec::new(),
            retired_count: 0,
            indirect_slots: Vec::new(),
            buffer_at: Vec::new(),
            buffer_overflow: Default::default(),
            texture_index: Default::default(),
            heap_read: None,
            heap_read_from: 0,
        }
    }
}

impl<A: Api> Tracker<A> {
    /// Empties the table of tracked buffers by handle index (the entries this recording
    /// made, one per tracked buffer) and hands it back, its length kept.
    fn empty_buffer_at(&mut self) -> Vec<(u32, u32)> {
        vacate(
            &mut self.buffer_at,
            self.buffers.iter().map(|t| t.key.index as usize),
            || (0, u32::MAX),
        );
        std::mem::take(&mut self.buffer_at)
    }

    /// The tracker slot of a buffer, made on first use.
    #[inline]
    pub fn buffer_slot(&mut self, b: &Arc<BufferObj<A>>) -> usize {
        let key = b.key();
        let at = key.index as usize;
        if let Some(&(generation, i)) = self.buffer_at.get(at) {
            if generation == key.generation && i != u32::MAX {
                return i as usize;
            }
        }
        self.new_buffer_slot(b)
    }

    /// [`Tracker::buffer_slot`] past its table's hit: a buffer in the overflow map, or one
    /// met for the first time, tracked in a new slot.
    #[inline(never)]
    fn new_buffer_slot(&mut self, b: &Arc<BufferObj<A>>) -> usize {
        let key = b.key();
        let at = key.index as usize;
        let taken = self.buffer_at.get(at).is_some_and(|e| e.1 != u32::MAX);
        let address = Arc::as_ptr(b) as usize;
        if taken {
            if let Some(&i) = self.buffer_overflow.get(&address) {
                return i as usize;
            }
        }
        let i = self.buffers.len();
        self.buffers.push(TrackedBuffer {
            obj: b.clone(),
            key,
            track: BufferTrack::new(b.size.checked_next_multiple_of(4).unwrap_or(b.size)),
        });
        if taken {
            self.buffer_overflow.insert(address, i as u32);
        } else {
            if self.buffer_at.len() <= at {
                self.buffer_at.resize(at.saturating_add(1), (0, u32::MAX));
            }
            if let Some(e) = self.buffer_at.get_mut(at) {
                *e = (key.generation, i as u32);
            }
        }
        if b.usage.contains(crate::BufferUsages::INDIRECT) {
            self.indirect_slots.push(i as u32);
        }
        i
    }

    /// The tracker slot of a texture, made on first use.
    #[inline]
    pub fn texture_slot(&mut self, t: &Arc<TextureObj<A>>) -> usize {
        let key = Arc::as_ptr(t) as usize;
        if let Some(&i) = self.texture_index.get(&key) {
            return i as usize;
        }
        let aliasable = t.placed.as_ref().is_some_and(|p| p.aliasable);
        let retired = aliasable && self.first_use_of_alias(t);
        self.retired_count = self.retired_count.saturating_add(usize::from(retired));
        self.new_texture_slot(key, t, retired)
    }

    /// Starts tracking `t` (whose address is `key`) in a new slot.
    fn new_texture_slot(&mut self, key: usize, t: &Arc<TextureObj<A>>, retired: bool) -> usize {
        let i = self.textures.len();
        let mut track = TextureTrack::new(t.desc.mip_level_count, t.desc.layers());
        if let Some((stages, at)) = self.heap_read {
            if t.heap_slots.load(std::sync::atomic::Ordering::Acquire) != 0 {
                // A heap this recording read earlier names it: its first use here is
                // that read, whole, in its sampled layout (a first use needs no barrier
                // of the recording's own; submission orders it after earlier ones).
                let read = crate::device::objects::heap_read(t.desc.usage, stages);
                track.apply_to(whole_texture(t), read, at, None, |_, _, _| {});
            }
        }
        self.textures.push(TrackedTexture {
            obj: t.clone(),
            track,
            retired,
        });
        self.texture_index.insert(key, i as u32);
        i
    }

    /// Notes the first use of aliasable texture `t` in this recording; returns whether it
    /// is retired from the start: an alias sharing its bytes was activated here before,
    /// or was used here since the last activation. In the second case the two cannot
    /// both be active when the recording is submitted, and their commands would reach the
    /// same memory with no barrier between them (an activation records one): the later
    /// alias is refused here rather than at submission.
    #[cold]
    fn first_use_of_alias(&mut self, t: &Arc<TextureObj<A>>) -> bool {
        let displaced = self.alias_events.iter().any(|e| match e {
            AliasEvent::Activate(a) => overlap(a, t),
            AliasEvent::Use(_) => false,
        });
        let since = self
            .alias_events
            .iter()
            .rposition(|e| matches!(e, AliasEvent::Activate(_)))
            .map_or(0, |i| i.saturating_add(1));
        let clashes = self.alias_events.get(since..).is_some_and(|events| {
            events
                .iter()
                .any(|e| matches!(e, AliasEvent::Use(u) if !Arc::ptr_eq(u, t) && overlap(u, t)))
        });
        if !displaced && !clashes {
            self.alias_events.push(AliasEvent::Use(t.clone()));
        }
        displaced || clashes
    }

    /// Activates aliasable texture `t` at use number `now` (the caller recorded the global
    /// barrier): its contents are discarded, it may be used from here on, and every alias
    /// sharing its bytes that this recording tracks is retired. Returns its slot.
    pub fn activate(&mut self, t: &Arc<TextureObj<A>>, now: u64) -> usize {
        let key = Arc::as_ptr(t) as usize;
        // An activation is not a use: no first-use event for it.
        let slot = match self.texture_index.get(&key) {
            Some(&i) => i as usize,
            None => self.new_texture_slot(key, t, false),
        };
        for (i, tracked) in self.textures.iter_mut().enumerate() {
            if i == slot {
                tracked.retired = false;
                tracked.track.discard(now);
            } else if overlap(&tracked.obj, t) {
                tracked.retired = true;
            }
        }
        self.retired_count = self.textures.iter().filter(|t| t.retired).count();
        self.alias_events.push(AliasEvent::Activate(t.clone()));
        slot
    }

    /// Whether any tracked texture was retired by an activation.
    #[inline]
    pub fn any_retired(&self) -> bool {
        self.retired_count > 0
    }

    /// Whether the texture in `slot` was retired by an activation (see
    /// [`TrackedTexture::retired`]).
    #[inline]
    pub fn retired(&self, slot: usize) -> Option<&str> {
        self.textures
            .get(slot)
            .filter(|t| t.retired)
            .map(|t| t.obj.label.as_str())
    }
}

/// Whether two placed textures share a byte.
pub(crate) fn overlap<A: Api>(a: &TextureObj<A>, b: &TextureObj<A>) -> bool {
    match (&a.placed, &b.placed) {
        (Some(x), Some(y)) => x.overlaps(y),
        _ => false,
    }
}

/// A finished recording's tables indexed by registry slot, emptied: every entry vacant,
/// each table as long as the highest slot it was met with. A table indexed by slot is as
/// long as the highest slot its recording met, however few objects it met: made new for
/// each recording, a recording that copies one buffer made after ten thousand others would
/// fill and free tables of ten thousand entries, at recording and at completion, on every
/// submission. Emptied through the lists of what was met and handed to the next encoder, a
/// table costs each recording what it met.
pub(crate) struct SlotTables<A: Api> {
    buffers: SeenTable<BufferObj<A>>,
    textures: SeenTable<TextureObj<A>>,
    views: SeenTable<ViewObj<A>>,
    groups: SeenTable<BindGroupObj<A>>,
    compute_pipelines: SeenTable<ComputePipelineObj<A>>,
    render_pipelines: SeenTable<RenderPipelineObj<A>>,
    query_sets: SeenTable<QuerySetObj<A>>,
    blas: SeenTable<BlasObj<A>>,
    tlas: SeenTable<TlasObj<A>>,
    buffer_at: Vec<(u32, u32)>,
}

/// A table at most this many times as long as the entries a recording made in it is
/// emptied in one pass over it; a longer one entry by entry, through what was met.
const DENSE: usize = 8;

/// Sets the entries of `table` that `filled` names (every filled one) to `vacant()`: in one
/// pass over the table when they are at least a [`DENSE`]th of it, else one by one.
fn vacate<E>(
    table: &mut [E],
    filled: impl ExactSizeIterator<Item = usize>,
    vacant: impl Fn() -> E,
) {
    if filled.len().saturating_mul(DENSE) >= table.len() {
        table.iter_mut().for_each(|e| *e = vacant());
    } else {
        for i in filled {
            if let Some(e) = table.get_mut(i) {
                *e = vacant();
            }
        }
    }
}

/// Emptied tables a device keeps for its next encoders (more would only hold memory: as
/// many recordings rarely finish between two encoders made).
pub(crate) const SPARE_TABLES: usize = 8;

/// Longest table kept for a later recording: a table past it (a recording that met an
/// object of a slot past 262,144) is freed rather than held.
const MAX_KEPT_TABLE: usize = 1 << 18;

macro_rules! slot_tables {
    ($($kind:ident),*) => {
        impl<A: Api> Used<A> {
            /// Lets go of everything the recording met through its tables indexed by
            /// slot and hands the emptied tables back (`None` when one is too long to
            /// keep).
            pub(crate) fn take_tables(&mut self) -> Option<SlotTables<A>> {
                let tables = SlotTables {
                    $($kind: self.$kind.empty_table(),)*
                    buffer_at: self.tracker.empty_buffer_at(),
                };
                let longest = [$(tables.$kind.by_slot.len(),)* tables.buffer_at.len()]
                    .into_iter()
                    .max()
                    .unwrap_or(0);
                (longest <= MAX_KEPT_TABLE).then_some(tables)
            }

            /// Takes over emptied tables for a recording that has met nothing yet.
            pub(crate) fn adopt_tables(&mut self, tables: SlotTables<A>) {
                $(self.$kind.adopt(tables.$kind);)*
                if self.tracker.buffers.is_empty() && self.tracker.buffer_at.is_empty() {
                    self.tracker.buffer_at = tables.buffer_at;
                }
            }
        }
    };
}

slot_tables!(
    buffers,
    textures,
    views,
    groups,
    compute_pipelines,
    render_pipelines,
    query_sets,
    blas,
    tlas
);

/// How far a recording's growing tables went, kept by the device for the next encoder:
/// it reserves that much when it is made, where each table would otherwise grow by
/// doubling, every doubling a copy of all it held (a frame meeting 1,000 groups copied its
/// tables some ten times over while recording). A hint follows the largest recent
/// recording and shrinks by a quarter with each smaller one, and is capped, so a one-off
/// large recording does not make every later small one reserve its size for long. Where
/// small recordings come between large ones (a readback after each frame), each small one
/// reserves about what the large ones use and takes the hints down by a quarter, so the
/// next large one grows each table once, where without hints it doubled them all the way.
#[derive(Default)]
pub(crate) struct TableHints {
    /// Per table, in the order of [`TableHints::lens`]: entries to reserve.
    lens: [std::sync::atomic::AtomicU32; 7],
}

impl TableHints {
    /// Most entries a hint asks for (larger recordings grow their tables past it).
    const CAP: usize = 4096;
    /// Fewest entries a hint reserves: smaller tables grow as they did (tables reserved
    /// together lie side by side, so a reserved table that outgrows its hint is moved where
    /// one grown alone could have been extended in place).
    const MIN: u32 = 64;

    /// The lengths of `used`'s growing tables.
    fn lens<A: Api>(used: &Used<A>) -> [usize; 7] {
        [
            used.groups.by_slot.len(),
            used.buffers.by_slot.len(),
            used.tracker.buffers.len(),
            used.tracker.buffer_at.len(),
            used.group_info.len(),
            used.member_uses.len(),
            used.group_sizes.len(),
        ]
    }

    /// Takes note of a finished recording's tables.
    pub fn note<A: Api>(&self, used: &Used<A>) {
        use std::sync::atomic::Ordering::Relaxed;
        for (hint, len) in self.lens.iter().zip(Self::lens(used)) {
            let old = hint.load(Relaxed);
            let len = u32::try_from(len.min(Self::CAP)).unwrap_or(0);
            // (A plain load and store: two recordings finishing at once may each leave
            // their own, which serves as well.)
            let new = len.max(old.saturating_sub(old / 4));
            if new != old {
                hint.store(new, Relaxed);
            }
        }
    }

    /// Reserves a new recording's tables as the hints say.
    pub fn reserve<A: Api>(&self, used: &mut Used<A>) {
        use std::sync::atomic::Ordering::Relaxed;
        let [groups, buffers, tracked, buffer_at, info, members, sizes] =
            self.lens.each_ref().map(|h| match h.load(Relaxed) {
                n if n >= Self::MIN => n as usize,
                _ => 0,
            });
        // Tables by slot taken over from a completed recording (`SlotTables`) are already
        // as long as that one needed: reserving would add to their length.
        if used.groups.by_slot.is_empty() {
            used.groups.by_slot.reserve(groups);
        }
        if used.buffers.by_slot.is_empty() {
            used.buffers.by_slot.reserve(buffers);
        }
        used.tracker.buffers.reserve(tracked);
        if used.tracker.buffer_at.is_empty() {
            used.tracker.buffer_at.reserve(buffer_at);
        }
        used.group_info.reserve(info);
        used.member_uses.reserve(members);
        used.group_sizes.reserve(sizes);
    }
}

// A default `Used` owns no memory: every encoder starts from one (its tables then reserved
// by `TableHints`), and a submission builds one for the textures it makes resident.
impl<A: Api> Default for Used<A> {
    fn default() -> Self {
        Used {
            buffers: Seen::default(),
            textures: Seen::default(),
            views: Seen::default(),
            groups: Seen::default(),
            compute_pipelines: Seen::default(),
            render_pipelines: Seen::default(),
            query_sets: Seen::default(),
            blas: Seen::default(),
            tlas: Seen::default(),
            gpu_heaps: Vec::new(),
            texture_heaps: Vec::new(),
            sampler_heaps: Vec::new(),
            retired: Vec::new(),
            stamps: None,
            accel: AccelUse::default(),
            tracker: Tracker::default(),
            group_info: Vec::new(),
            member_uses: Vec::new(),
            group_sizes: Vec::new(),
            seq: 0,
            fence: None,
            stages_used: vigil_hal::Stages::empty(),
            epoch: u64::MAX,
            render_layout: None,
            indirect: IndirectUse::default(),
            copy_kernel: None,
            copy_groups: Vec::new(),
            bundles: Vec::new(),
        }
    }
}

/// Most members of a group whose uses a dispatch may apply without a usage scope.
pub(crate) const DIRECT_MEMBERS: usize = 8;

/// Hashes an address: objects are at least 8-byte aligned and spread well.
#[derive(Clone, Copy, Default)]
pub(crate) struct PtrHash;

impl std::hash::BuildHasher for PtrHash {
    type Hasher = PtrHasher;
    fn build_hasher(&self) -> PtrHasher {
        PtrHasher(0)
    }
}

/// See [`PtrHash`].
pub(crate) struct PtrHasher(u64);

impl std::hash::Hasher for PtrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = ((n as u64) >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl<A: Api> Used<A> {
    /// The tracker slot of a buffer, made on first use.
    #[inline]
    pub fn buffer_slot(&mut self, b: &Arc<BufferObj<A>>) -> usize {
        self.tracker.buffer_slot(b)
    }

    /// The tracker slot of a texture, made on first use.
    #[inline]
    pub fn texture_slot(&mut self, t: &Arc<TextureObj<A>>) -> usize {
        self.tracker.texture_slot(t)
    }

    /// Whether nothing was destroyed or mapped on the device since recording began: then
    /// every object this recording met is still live (one atomic load, no registry).
    #[inline]
    pub fn unchanged(&self, core: &Core<A>) -> bool {
        core.destroy_epoch
            .load(std::sync::atomic::Ordering::Acquire)
            == self.epoch
    }

    /// The live buffer `h` names and its tracker slot, recording it as used on first
    /// meeting. Once met, and while nothing was destroyed since recording began, this is
    /// an atomic load, an index and two compares.
    #[inline(always)]
    pub fn buffer_and_slot(
        &mut self,
        core: &Core<A>,
        h: crate::handle::Buffer,
        op: &'static str,
    ) -> Result<(&Arc<BufferObj<A>>, usize)> {
        use crate::handle::Handle;
        let (i, g) = (h.index(), h.generation());
        // The epoch's load (acquire) comes first, so the two looks into `buffers` below
        // are one: no ordered load stands between them.
        let met = h.device_id() == core.id && self.unchanged(core);
        let aux = self.buffers.aux(i, g);
        if !met || aux == u32::MAX {
            return self.buffer_and_slot_slow(core, h, op);
        }
        match self.buffers.get(i, g) {
            Some(b) => Ok((b, aux as usize)),
            None => Err(core.objects.buffers.explain(h, core.id, op)),
        }
    }

    /// The live buffer `h` names and its tracker slot when this recording met it before
    /// and nothing was destroyed since (one load, one look into the table); `None` for
    /// anything else, which [`Used::buffer_and_slot`] decides. The recording's short
    /// paths ask it.
    #[inline(always)]
    pub fn known_buffer(
        &self,
        core: &Core<A>,
        h: crate::handle::Buffer,
    ) -> Option<(&Arc<BufferObj<A>>, usize)> {
        use crate::handle::Handle;
        if h.device_id() != core.id || !self.unchanged(core) {
            return None;
        }
        match self.buffers.get_with_aux(h.index(), h.generation()) {
            Some((b, slot)) if slot != u32::MAX => Some((b, slot as usize)),
            _ => None,
        }
    }

    /// [`Used::buffer_and_slot`] on first meeting, or after something was destroyed.
    #[inline(never)]
    fn buffer_and_slot_slow(
        &mut self,
        core: &Core<A>,
        h: crate::handle::Buffer,
        op: &'static str,
    ) -> Result<(&Arc<BufferObj<A>>, usize)> {
        use crate::handle::Handle;
        let (i, g) = (h.index(), h.generation());
        find(&mut self.buffers, core, h, op)?;
        let slot = self.buffer_slot_of(i, g);
        match self.buffers.get(i, g) {
            Some(b) => Ok((b, slot)),
            None => Err(core.objects.buffers.explain(h, core.id, op)),
        }
    }

    /// The tracker slot of a buffer met by handle `(index, generation)` (kept with it, so
    /// found again with an index).
    #[inline]
    pub fn buffer_slot_of(&mut self, index: u32, generation: u32) -> usize {
        let aux = self.buffers.aux(index, generation);
        if aux != u32::MAX {
            return aux as usize;
        }
        let Some(b) = self.buffers.get(index, generation) else {
            return usize::MAX;
        };
        let slot = self.tracker.buffer_slot(b);
        self.buffers.set_aux(index, generation, slot as u32);
        slot
    }

    /// Whether a use recorded so far wrote any of `offset..offset + len` of the buffer at
    /// tracker slot `slot` (an unknown slot counts as written).
    pub fn buffer_written(&self, slot: usize, offset: u64, len: u64) -> bool {
        let Some(b) = self.tracker.buffers.get(slot) else {
            return true;
        };
        let end = offset.saturating_add(len);
        b.track.parts().any(|(start, size, part)| {
            start < end && offset < start.saturating_add(size) && part.state.write.is_some()
        })
    }

    /// Whether a use numbered `since` or later wrote any of `offset..offset + len` of the
    /// buffer at tracker slot `slot` (an unknown slot counts as written).
    pub fn buffer_written_since(&self, slot: usize, offset: u64, len: u64, since: u64) -> bool {
        let Some(b) = self.tracker.buffers.get(slot) else {
            return true;
        };
        let end = offset.saturating_add(len);
        b.track.parts().any(|(start, size, part)| {
            start < end
                && offset < start.saturating_add(size)
                && part.state.write.is_some()
                && part.written_at >= since
        })
    }

    /// Whether a use recorded so far wrote a buffer made with `INDIRECT` usage.
    pub fn indirect_args_written(&self) -> bool {
        self.tracker.indirect_slots.iter().any(|&s| {
            self.tracker
                .buffers
                .get(s as usize)
                .is_some_and(|b| b.track.parts().any(|(_, _, p)| p.state.write.is_some()))
        })
    }

    /// The tracker slot of a texture met by handle.
    #[inline]
    pub fn texture_slot_of(&mut self, index: u32, generation: u32) -> usize {
        let aux = self.textures.aux(index, generation);
        if aux != u32::MAX {
            return aux as usize;
        }
        let Some(t) = self.textures.get(index, generation) else {
            return usize::MAX;
        };
        let slot = self.tracker.texture_slot(t);
        self.textures.set_aux(index, generation, slot as u32);
        slot
    }

    /// The index in `group_info` of a group met by handle: its members' tracker slots and
    /// what draws check of it, worked out the first time the recording binds it.
    #[inline]
    pub fn group_info_of(&mut self, index: u32, generation: u32) -> usize {
        let aux = self.groups.aux(index, generation);
        if aux != u32::MAX {
            return aux as usize;
        }
        let Used {
            groups,
            tracker,
            member_uses,
            group_sizes,
            group_info,
            accel,
            ..
        } = self;
        let Some(g) = groups.get(index, generation) else {
            return usize::MAX;
        };
        let start = member_uses.len();
        for m in g.members.iter() {
            let rec = match m {
                crate::device::Member::Buffer {
                    buffer,
                    offset,
                    size,
                    dynamic,
                    usage,
                } => MemberUse::buffer(
                    tracker.buffer_slot(buffer),
                    *offset,
                    *size,
                    *dynamic,
                    *usage,
                ),
                crate::device::Member::View { view, usage } => {
                    MemberUse::view(tracker.texture_slot(&view.texture), *usage)
                }
                crate::device::Member::Sampler(_) => MemberUse::UNTRACKED,
                crate::device::Member::Tlas(t) => {
                    // Its first use in this recording: it must be built by then.
                    accel.need_tlas(t);
                    MemberUse::UNTRACKED
                }
            };
            member_uses.push(rec);
        }
        // Distinct members (worked out when they were set) have distinct tracker slots:
        // the tracker keeps one slot per buffer and per texture.
        let distinct = g.distinct;
        let sizes = group_sizes.len();
        group_sizes.extend_from_slice(&g.sizes);
        let at = group_info.len();
        // A group's members, dynamic offsets and layout entries are each far fewer than
        // `u32::MAX` (the device's limits bound them).
        group_info.push(GroupInfo {
            start,
            len: g.members.len() as u32,
            compat: g.compat,
            dynamic: g.dynamic.len() as u32,
            sizes,
            len_sizes: g.sizes.len() as u32,
            key: A::bind_group_key(&g.raw),
            scoped_in: 0,
            fits_checks: 0,
            distinct,
        });
        groups.set_aux(index, generation, at as u32);
        at
    }

    /// Starts the next usage scope: its uses get the next number.
    #[inline]
    pub fn next_scope(&mut self) {
        self.seq = self.seq.wrapping_add(1);
    }

    /// Applies a use of a buffer range, collecting the barriers it needs.
    #[inline]
    pub fn use_buffer(&mut self, slot: usize, offset: u64, size: u64, u: Use, out: &mut Pending) {
        self.stages_used |= u.stages;
        if let Some(t) = self.tracker.buffers.get_mut(slot) {
            let list = &mut out.buffers;
            t.track
                .apply_to(offset, size, u, self.seq, self.fence, |o, s, tr| {
                    list.push((slot, o, s, tr));
                });
        }
    }

    /// Prepares a buffer range for a use ([`crate::track::Part::prepare`]), collecting the
    /// barriers it needs.
    pub fn prepare_buffer(
        &mut self,
        slot: usize,
        offset: u64,
        size: u64,
        u: Use,
        out: &mut Pending,
    ) {
        self.stages_used |= u.stages;
        if let Some(t) = self.tracker.buffers.get_mut(slot) {
            let list = &mut out.buffers;
            t.track
                .prepare_to(offset, size, u, self.seq, self.fence, |o, s, tr| {
                    list.push((slot, o, s, tr));
                });
        }
    }

    /// Prepares texture subresources for a use, collecting the barriers they need.
    pub fn prepare_texture(&mut self, slot: usize, range: Subresources, u: Use, out: &mut Pending) {
        self.stages_used |= u.stages;
        if let Some(t) = self.tracker.textures.get_mut(slot) {
            let list = &mut out.textures;
            t.track
                .prepare_to(range, u, self.seq, self.fence, |mip, layer, tr| {
                    list.push((slot, mip, layer, tr));
                });
        }
    }

    /// Applies the uses of a bound group's members seen from `stages` as the next usage
    /// scope, without building one, when its members are distinct resources
    /// ([`GroupInfo::distinct`]: none of its uses can conflict with another). `false`
    /// (nothing applied) otherwise.
    #[inline(always)]
    pub fn apply_group_direct(
        &mut self,
        bound: &super::binder::BoundGroup,
        stages: vigil_hal::Stages,
        out: &mut Pending,
    ) -> bool {
        let Some((i, generation)) = bound.group else {
            return false;
        };
        let Used {
            groups,
            group_info,
            member_uses,
            tracker,
            stages_used,
            seq,
            fence,
            ..
        } = self;
        let Some(info) = group_info.get(bound.info).filter(|g| g.distinct) else {
            return false;
        };
        let recs = info.members(member_uses);
        *seq = seq.wrapping_add(1);
        for (k, rec) in recs.iter().enumerate() {
            let Some(u) = super::binder::seen_from(rec.usage(), stages) else {
                continue;
            };
            match rec.kind {
                MemberKind::Buffer => {
                    *stages_used |= u.stages;
                    let slot = rec.slot();
                    if let Some(t) = tracker.buffers.get_mut(slot) {
                        let list = &mut out.buffers;
                        t.track.apply_to(
                            rec.start(bound),
                            rec.size,
                            u,
                            *seq,
                            *fence,
                            |o, s, tr| list.push((slot, o, s, tr)),
                        );
                    }
                }
                MemberKind::View => {
                    // A view's subresources are read from the group's own member.
                    let Some(crate::device::Member::View { view, .. }) =
                        groups.get(i, generation).and_then(|g| g.members.get(k))
                    else {
                        continue;
                    };
                    *stages_used |= u.stages;
                    let slot = rec.slot();
                    if let Some(t) = tracker.textures.get_mut(slot) {
                        let list = &mut out.textures;
                        t.track
                            .apply_to(view.subresources(), u, *seq, *fence, |mip, layer, tr| {
                                list.push((slot, mip, layer, tr));
                            });
                    }
                }
                MemberKind::Untracked => {}
            }
        }
        true
    }

    /// Applies a use of texture subresources, collecting the barriers it needs.
    #[inline]
    pub fn use_texture(&mut self, slot: usize, range: Subresources, u: Use, out: &mut Pending) {
        self.stages_used |= u.stages;
        if let Some(t) = self.tracker.textures.get_mut(slot) {
            let list = &mut out.textures;
            t.track
                .apply_to(range, u, self.seq, self.fence, |mip, layer, tr| {
                    list.push((slot, mip, layer, tr));
                });
        }
    }
}

/// A recording's own timestamp queries (reset from the host when made) and their labels,
/// in the order written.
pub(crate) struct Stamps<A: Api> {
    pub set: crate::native::Owned<A, crate::native::QuerySetKind>,
    pub labels: Vec<String>,
}

/// Bottom-level structures a top-level build names.
pub(crate) type BlasList<A> = Vec<Arc<BlasObj<A>>>;

/// Acceleration structures a recording builds, and those it uses that must be built before
/// it runs (checked at submission, in submission order).
pub(crate) struct AccelUse<A: Api> {
    /// Bottom-level structures built, in order.
    pub built_blas: Vec<Arc<BlasObj<A>>>,
    /// Top-level structures built, each with the bottom-level structures its last build in
    /// this recording named.
    pub built_tlas: Vec<(Arc<TlasObj<A>>, BlasList<A>)>,
    /// Used before this recording built them (or never built here).
    pub need_blas: Vec<Arc<BlasObj<A>>>,
    pub need_tlas: Vec<Arc<TlasObj<A>>>,
    /// Buffers of instance records written for top-level builds, kept until the
    /// submission completes.
    pub instances: Vec<crate::native::Owned<A, crate::native::BufferKind>>,
    /// What top-level structures held before this submission's builds replaced it: kept
    /// until the submission completes, since earlier work may still traverse it (held
    /// only to be dropped then).
    #[allow(dead_code)]
    pub retired: Vec<Arc<BlasObj<A>>>,
}

impl<A: Api> Default for AccelUse<A> {
    fn default() -> Self {
        AccelUse {
            built_blas: Vec::new(),
            built_tlas: Vec::new(),
            need_blas: Vec::new(),
            need_tlas: Vec::new(),
            instances: Vec::new(),
            retired: Vec::new(),
        }
    }
}

impl<A: Api> AccelUse<A> {
    /// Notes a use of `b`: fine when it was submitted built or was built earlier here.
    pub fn need_blas(&mut self, b: &Arc<BlasObj<A>>) {
        let built = b.built.load(std::sync::atomic::Ordering::Acquire)
            || self.built_blas.iter().any(|x| Arc::ptr_eq(x, b));
        if !built && !self.need_blas.iter().any(|x| Arc::ptr_eq(x, b)) {
            self.need_blas.push(b.clone());
        }
    }

    /// Notes a use of `t` (a bound group holding it, at the group's first binding here).
    pub fn need_tlas(&mut self, t: &Arc<TlasObj<A>>) {
        let built = t.built.load(std::sync::atomic::Ordering::Acquire)
            || self.built_tlas.iter().any(|(x, _)| Arc::ptr_eq(x, t));
        if !built && !self.need_tlas.iter().any(|x| Arc::ptr_eq(x, t)) {
            self.need_tlas.push(t.clone());
        }
    }

    /// The first structure this recording needs built that is neither built on the device
    /// nor built by an earlier command buffer of the submission (`earlier`: addresses of
    /// those), as `(kind, label)`.
    pub fn unbuilt(&self, earlier: &[usize]) -> Option<(&'static str, &str)> {
        let ready = |built: bool, p: usize| built || earlier.contains(&p);
        let acquire = std::sync::atomic::Ordering::Acquire;
        if let Some(b) = self
            .need_blas
            .iter()
            .find(|b| !ready(b.built.load(acquire), Arc::as_ptr(b) as usize))
        {
            return Some(("bottom-level acceleration structure", &b.label));
        }
        self.need_tlas
            .iter()
            .find(|t| !ready(t.built.load(acquire), Arc::as_ptr(t) as usize))
            .map(|t| ("top-level acceleration structure", t.label.as_str()))
    }

    /// Whether the recording neither builds nor needs an acceleration structure (the
    /// usual case: submission then skips them, one test).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.built_blas.is_empty()
            && self.built_tlas.is_empty()
            && self.need_blas.is_empty()
            && self.need_tlas.is_empty()
    }

    /// Addresses of the structures this recording builds.
    pub fn built_addresses(&self) -> impl Iterator<Item = usize> + '_ {
        self.built_blas
            .iter()
            .map(|b| Arc::as_ptr(b) as usize)
            .chain(self.built_tlas.iter().map(|(t, _)| Arc::as_ptr(t) as usize))
    }

    /// The submission went to the queue: what it builds counts as built, and each top-level
    /// structure now holds what its build named (the old list retired with this recording).
    pub fn commit(&mut self) {
        let release = std::sync::atomic::Ordering::Release;
        for b in &self.built_blas {
            b.built.store(true, release);
        }
        for (t, named) in self.built_tlas.drain(..) {
            t.built.store(true, release);
            let mut held = t.blas.lock().unwrap_or_else(|p| p.into_inner());
            let old = std::mem::replace(&mut *held, named);
            drop(held);
            self.retired.extend(old);
        }
    }
}

/// What a recording keeps of a bind group it met, with `K`, the key the backend binds it
/// by ([`vigil_hal::Api::bind_group_key`]): binding it again reads no group object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupInfo<K> {
    /// Its members' records: `member_uses[start..start + len]`.
    pub start: usize,
    pub len: u32,
    /// Its layout's compatibility class.
    pub compat: u32,
    /// How many dynamic offsets it takes (its ranges change with them).
    pub dynamic: u32,
    /// Its bound sizes per layout entry: `group_sizes[sizes..sizes + len_sizes]`.
    pub sizes: usize,
    pub len_sizes: u32,
    /// Its native key.
    pub key: K,
    /// The render pass whose scope already holds its uses (0: none).
    pub scoped_in: u64,
    /// The late size checks (a pipeline's, by address) it last met (0: none).
    pub fits_checks: usize,
    /// Its tracked members are distinct buffers and textures, at most
    /// [`DIRECT_MEMBERS`] of them: no two of its uses can conflict, so a dispatch that
    /// uses only this group applies them without a usage scope.
    pub distinct: bool,
}

impl<K> GroupInfo<K> {
    /// Its members' records, in the order of the group's members.
    #[inline]
    pub fn members<'a>(&self, member_uses: &'a [MemberUse]) -> &'a [MemberUse] {
        member_uses
            .get(self.start..self.start.saturating_add(self.len as usize))
            .unwrap_or(&[])
    }
}

/// What a recording keeps of one member of a group it met, worked out at the group's
/// first meeting: everything a use of a buffer member needs, so the recording's dispatches
/// and scopes read this list (contiguous per group) and not the group's member objects.
/// 32 bytes, aligned to them, so one record never straddles two cache lines and a
/// two-member group's often share one.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub(crate) struct MemberUse {
    /// A buffer member's range: its offset (before any dynamic offset, see
    /// [`MemberUse::start`]) and size.
    pub offset: u64,
    pub size: u64,
    /// Its tracker slot (`u32::MAX` for untracked members). A recording tracks each buffer
    /// and texture once, and a registry holds about a million of each kind: a slot fits.
    slot: u32,
    /// Its use, as the group's layout entry declares it, in parts (a [`Use`] would pad).
    stages: vigil_hal::Stages,
    access: vigil_hal::Access,
    layout: vigil_hal::TextureLayout,
    /// A buffer member's index among the group's dynamic offsets (`u16::MAX`: none; a
    /// group takes at most [`super::binder::MAX_DYNAMIC`]).
    dynamic: u16,
    pub kind: MemberKind,
}

/// Which kind of member a [`MemberUse`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemberKind {
    /// A buffer range: the record holds all its use needs.
    Buffer,
    /// A texture view: its subresources are the view's.
    View,
    /// A sampler or an acceleration structure: nothing to track.
    Untracked,
}

impl MemberUse {
    /// A member with nothing to track.
    pub const UNTRACKED: MemberUse = MemberUse {
        offset: 0,
        size: 0,
        slot: u32::MAX,
        stages: vigil_hal::Stages::empty(),
        access: vigil_hal::Access::empty(),
        layout: vigil_hal::TextureLayout::General,
        dynamic: u16::MAX,
        kind: MemberKind::Untracked,
    };

    /// A buffer member's record.
    #[inline]
    fn buffer(slot: usize, offset: u64, size: u64, dynamic: Option<usize>, usage: Use) -> Self {
        MemberUse {
            offset,
            size,
            slot: slot as u32,
            stages: usage.stages,
            access: usage.access,
            layout: usage.layout,
            dynamic: dynamic.map_or(u16::MAX, |d| d as u16),
            kind: MemberKind::Buffer,
        }
    }

    /// A view member's record.
    #[inline]
    fn view(slot: usize, usage: Use) -> Self {
        MemberUse {
            offset: 0,
            size: 0,
            slot: slot as u32,
            stages: usage.stages,
            access: usage.access,
            layout: usage.layout,
            dynamic: u16::MAX,
            kind: MemberKind::View,
        }
    }

    /// Its tracker slot: for an untracked member `u32::MAX`, which names no slot (a
    /// recording tracks far fewer objects), so a lookup by it finds nothing.
    #[inline]
    pub fn slot(&self) -> usize {
        self.slot as usize
    }

    /// Its use, as the group's layout entry declares it.
    #[inline]
    pub fn usage(&self) -> Use {
        Use {
            stages: self.stages,
            access: self.access,
            layout: self.layout,
        }
    }

    /// Where this buffer member's range starts as `bound` binds it: its offset plus the
    /// dynamic offset the binding gives it (none when it takes none).
    #[inline]
    pub fn start(&self, bound: &super::binder::BoundGroup) -> u64 {
        let d = usize::from(self.dynamic);
        let extra = if d < bound.offset_count as usize {
            bound.offsets.get(d).copied().unwrap_or(0)
        } else {
            0
        };
        self.offset.saturating_add(u64::from(extra))
    }
}

/// Barriers a command needs before it, by tracker slot.
#[derive(Default)]
pub(crate) struct Pending {
    pub buffers: Vec<(usize, u64, u64, Transition)>,
    pub textures: Vec<(usize, u32, u32, Transition)>,
}

impl Pending {
    /// Whether no barrier is needed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty() && self.textures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::{Seen, TableHints, Used};
    use std::sync::Arc;
    use vigil_hal::test_backend::TestApi;

    /// The objects `seen` holds, by value.
    fn held(seen: &Seen<u32>) -> Vec<u32> {
        seen.iter().map(|o| **o).collect()
    }

    #[test]
    fn a_seen_table_lists_what_was_met_and_empties_through_it_keeping_its_length() {
        // Sparse (three slots of 1,001) and dense (every slot of four) tables: each way of
        // emptying.
        for slots in [vec![5u32, 1000, 3], vec![0, 1, 2, 3]] {
            let mut seen = Seen::<u32>::default();
            let objects: Vec<Arc<u32>> = slots.iter().map(|&i| Arc::new(i + 7)).collect();
            for (&i, o) in slots.iter().zip(&objects) {
                seen.insert(i, 1, o.clone());
            }
            // A newer object in a slot met before displaces the older one; both are held.
            let newer = Arc::new(99);
            seen.insert(slots[0], 2, newer.clone());
            let mut expected: Vec<u32> = slots.iter().map(|&i| i + 7).collect();
            expected[0] = 99;
            expected.push(slots[0] + 7);
            assert_eq!(held(&seen), expected, "met order, then the displaced");
            let longest = slots.iter().max().copied().unwrap_or(0) as usize + 1;
            let table = seen.empty_table();
            assert_eq!(table.by_slot.len(), longest, "the table keeps its length");
            assert!(
                table.by_slot.iter().all(Option::is_none),
                "every entry is empty"
            );
            assert!(table.met.is_empty(), "and its list of slots met");
            assert!(objects.iter().all(|o| Arc::strong_count(o) == 1));
            assert_eq!(Arc::strong_count(&newer), 1, "nothing is held");
            // A new recording takes the table over: it holds nothing, meets afresh.
            let mut next = Seen::<u32>::default();
            next.adopt(table);
            assert!(next.get(slots[1], 1).is_none());
            assert_eq!(held(&next), Vec::<u32>::new());
            next.insert(slots[1], 3, Arc::new(42));
            assert_eq!(next.get(slots[1], 3).map(|o| **o), Some(42));
            assert_eq!(held(&next), vec![42]);
        }
    }

    /// A `Used` as a recording of `groups` one-size, two-member groups leaves two of its
    /// tables (only the tables' lengths are read; the others stay empty).
    fn used_with_groups(groups: usize) -> Used<TestApi> {
        let mut u = Used::<TestApi>::default();
        u.group_sizes.resize(groups, 0);
        u.member_uses
            .resize(groups.saturating_mul(2), super::MemberUse::UNTRACKED);
        u
    }

    #[test]
    fn a_member_record_fills_half_a_cache_line_and_never_straddles_two() {
        use super::MemberUse;
        assert_eq!(std::mem::size_of::<MemberUse>(), 32);
        assert_eq!(std::mem::align_of::<MemberUse>(), 32);
        let list = [MemberUse::UNTRACKED; 4];
        for r in &list {
            let at = std::ptr::from_ref(r) as usize;
            assert_eq!(at / 64, (at + 31) / 64, "a record within one line");
        }
        assert_eq!(
            list[0].slot(),
            u32::MAX as usize,
            "an untracked member's slot"
        );
    }

    #[test]
    fn a_new_recording_reserves_what_the_last_large_one_used_and_hints_decay_and_stay_capped() {
        let hints = TableHints::default();
        let mut fresh = Used::<TestApi>::default();
        hints.reserve(&mut fresh);
        assert_eq!(
            fresh.group_sizes.capacity(),
            0,
            "no hint yet: nothing reserved"
        );

        hints.note(&used_with_groups(1000));
        let mut next = Used::<TestApi>::default();
        hints.reserve(&mut next);
        assert!(next.group_sizes.capacity() >= 1000);
        assert!(next.member_uses.capacity() >= 2000);
        assert_eq!(
            next.tracker.buffers.capacity(),
            0,
            "an empty table's hint is none"
        );

        // A smaller recording takes the hint down by a quarter, not to its own size.
        hints.note(&used_with_groups(10));
        let mut after_small = Used::<TestApi>::default();
        hints.reserve(&mut after_small);
        assert!(after_small.group_sizes.capacity() >= 750);
        assert!(after_small.group_sizes.capacity() < 1000);

        // Hints below the floor reserve nothing: small tables grow as they always did.
        for _ in 0..20 {
            hints.note(&used_with_groups(10));
        }
        let mut small = Used::<TestApi>::default();
        hints.reserve(&mut small);
        assert_eq!(small.group_sizes.capacity(), 0);

        // A huge recording's hint is capped.
        hints.note(&used_with_groups(100_000));
        let mut capped = Used::<TestApi>::default();
        hints.reserve(&mut capped);
        assert!(capped.group_sizes.capacity() >= TableHints::CAP);
        assert!(capped.group_sizes.capacity() < 2 * TableHints::CAP);
    }
}
