//! Slot arrays shared by every thread: a handle lookup is an index and a generation
//! compare.
//!
//! Each kind of object has one registry. A slot's state (generation, and whether it holds a
//! live object) is an atomic word in a table that never moves, so any thread can ask
//! whether a handle is live with one atomic load and no lock: that is what recording does
//! on every command. The objects themselves are `Arc`s in read-write-locked shards,
//! written when an object is created or destroyed and read when an encoder first meets a
//! handle (it keeps the `Arc` after that), so encoders on many threads meet handles at
//! once. A shard also keeps its slots' generations, labels and free list, so creating or
//! destroying an object takes one shard's lock and no registry-wide one.
//!
//! Destroying an object moves its slot's generation on at once, so every copy of the
//! handle is stale from then; the `Arc` leaves the registry, and the native object goes
//! when the last holder (a bind group, an encoder, a submission in flight) lets go. A slot
//! is reused with a new generation; one whose generation would wrap is retired instead.
//! Slot 0 is never used: a zeroed handle is null.

use crate::error::Error;
use crate::handle::Handle;
use crate::label::Label;
use crate::rules::Rule;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Slots per chunk of the state table.
const CHUNK: usize = 1024;
/// Chunks per table: a kind has at most `CHUNK * CHUNKS` slots (about a million).
const CHUNKS: usize = 1024;
/// Largest generation a handle carries (31 bits: the state word keeps a live bit).
const MAX_GENERATION: u32 = u32::MAX >> 1;

/// One atomic state word per slot: `generation << 1 | live`.
struct StateTable {
    chunks: Box<[OnceLock<Box<[AtomicU32]>>]>,
}

impl StateTable {
    fn new() -> Self {
        StateTable {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
        }
    }

    #[inline]
    fn word(&self, index: u32) -> Option<&AtomicU32> {
        let i = index as usize;
        self.chunks.get(i / CHUNK)?.get()?.get(i % CHUNK)
    }

    /// Sets a slot's word, making its chunk on first use (under the registry lock).
    fn store(&self, index: u32, word: u32) {
        let i = index as usize;
        let Some(cell) = self.chunks.get(i / CHUNK) else {
            return;
        };
        let chunk = cell.get_or_init(|| (0..CHUNK).map(|_| AtomicU32::new(0)).collect());
        if let Some(w) = chunk.get(i % CHUNK) {
            w.store(word, Ordering::Release);
        }
    }
}

/// Each registry is split this many ways by slot index: slot `i` lives in shard
/// `i % SHARDS`, which holds its object, its generation and labels, and its shard's free
/// slots under one lock. Creating or destroying an object takes that one lock (no
/// registry-wide lock), and encoders on many threads meeting handles do not all take one
/// lock either (each shard's lock has a cache line of its own: a read lock writes the lock
/// word, and threads meeting different objects should not pass lines between them).
const SHARDS: usize = 128;
// `Registry::has_free` is one bit per shard in two words, read as one `u128`.
const _: () = assert!(SHARDS == 128);
/// Slots per shard (what the state table can hold, split evenly).
const SHARD_SLOTS: usize = CHUNK * CHUNKS / SHARDS;

/// What a slot remembers between objects, kept together so creating or destroying an
/// object touches one cache line of it, not one per field.
#[derive(Default)]
struct SlotMeta {
    generation: u32,
    /// The label the slot's last object had, for messages about destroyed objects.
    label: Label,
    /// The label of the object before it in the slot (slots are reused at once, so a
    /// stale handle usually names that one).
    retired: Label,
}

/// One shard's slots, by position (slot `position * SHARDS + shard`).
struct ShardSlots<T> {
    objects: Vec<Option<Arc<T>>>,
    meta: Vec<SlotMeta>,
    /// Free positions, the last freed on top.
    free: Vec<u32>,
    live: usize,
    /// Why an object was taken out where that was not a plain destroy (a bind group
    /// pool's reset), by slot: its generation, the rule and the words, for messages about
    /// its stale handles. Sparse, so creating and destroying objects never touches it.
    reasons: std::collections::HashMap<u32, (u32, Rule, Box<str>)>,
}

/// One shard of a registry, alone on its cache line.
#[repr(align(64))]
struct Shard<T>(RwLock<ShardSlots<T>>);

/// Objects of one kind.
pub(crate) struct Registry<T> {
    states: StateTable,
    shards: Box<[Shard<T>]>,
    /// The shard looked in first for a freed slot: the one an object was last created or
    /// destroyed in (so a slot freed last, still in the caches, is reused first). A hint,
    /// read and written without a locked instruction: threads creating at once may pick
    /// the same shard, whose lock sorts them out.
    next: std::sync::atomic::AtomicUsize,
    /// The first slot index never used (a hint, as `next` is).
    fresh: std::sync::atomic::AtomicUsize,
    /// Which shards may have a freed slot, a bit each, changed only under the shard's lock:
    /// set when a slot is freed, cleared when a creation finds the shard has none. A
    /// creation finds a freed slot without looking in every shard, and churn changes a
    /// bit (a locked instruction) about once per shard emptied, not once per object.
    has_free: [std::sync::atomic::AtomicU64; 2],
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            states: StateTable::new(),
            shards: (0..SHARDS)
                .map(|k| {
                    // Slot 0 (shard 0's first position) is never used: a zeroed handle
                    // is null.
                    let reserved = usize::from(k == 0);
                    Shard(RwLock::new(ShardSlots {
                        objects: (0..reserved).map(|_| None).collect(),
                        meta: (0..reserved).map(|_| SlotMeta::default()).collect(),
                        free: Vec::new(),
                        live: 0,
                        reasons: std::collections::HashMap::new(),
                    }))
                })
                .collect(),
            next: std::sync::atomic::AtomicUsize::new(0),
            // Slot 0 is never used.
            fresh: std::sync::atomic::AtomicUsize::new(1),
            has_free: [
                std::sync::atomic::AtomicU64::new(0),
                std::sync::atomic::AtomicU64::new(0),
            ],
        }
    }
}

impl<T> std::fmt::Debug for Registry<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

/// What a registry needs of its objects.
pub(crate) trait Labelled {
    /// The object's label, remembered for messages after it is destroyed (a copy of a
    /// [`Label`] allocates nothing for a short one).
    fn label(&self) -> &Label;
}

/// The slot at `position` of shard `shard` (`None` past what a handle can name).
#[inline]
fn slot_of(shard: usize, position: usize) -> Option<u32> {
    let i = position.checked_mul(SHARDS)?.checked_add(shard)?;
    u32::try_from(i).ok()
}

/// The shard and position of slot `index`.
#[inline]
fn place(index: u32) -> (usize, usize) {
    let i = index as usize;
    (i % SHARDS, i / SHARDS)
}

impl<T: Labelled> Registry<T> {
    fn shard_read(&self, shard: usize) -> Option<RwLockReadGuard<'_, ShardSlots<T>>> {
        let s = self.shards.get(shard)?;
        Some(s.0.read().unwrap_or_else(|p| p.into_inner()))
    }

    fn shard_write(&self, shard: usize) -> Option<RwLockWriteGuard<'_, ShardSlots<T>>> {
        let s = self.shards.get(shard)?;
        Some(s.0.write().unwrap_or_else(|p| p.into_inner()))
    }

    /// Stores a new object made by `make` from its slot and generation; returns them with
    /// the object. `None` when every slot is taken.
    pub fn insert(&self, make: impl FnOnce(u32, u32) -> T) -> Option<(u32, u32, Arc<T>)> {
        self.insert_then(make, Arc::clone)
    }

    /// Stores a new object as [`Registry::insert`] does, returning only its slot and
    /// generation: for a caller that needs the handle alone, the registry's reference is
    /// the only one made (no count taken and given back).
    pub fn insert_only(&self, make: impl FnOnce(u32, u32) -> T) -> Option<(u32, u32)> {
        self.insert_then(make, |_| ())
            .map(|(index, generation, ())| (index, generation))
    }

    /// Stores a new object as [`Registry::insert`] does; `keep` takes what the caller needs
    /// of it (a reference, or nothing) before it moves into its shard.
    pub fn insert_then<R>(
        &self,
        make: impl FnOnce(u32, u32) -> T,
        keep: impl FnOnce(&Arc<T>) -> R,
    ) -> Option<(u32, u32, R)> {
        let (k, position, mut s) = self.claim()?;
        self.next.store(k, Ordering::Relaxed);
        let index = slot_of(k, position)?;
        let meta = s.meta.get_mut(position)?;
        let generation = meta.generation.saturating_add(1);
        let obj = Arc::new(make(index, generation));
        let kept = keep(&obj);
        meta.generation = generation;
        let before = std::mem::replace(&mut meta.label, obj.label().clone());
        meta.retired = before;
        *s.objects.get_mut(position)? = Some(obj);
        s.live = s.live.saturating_add(1);
        self.states.store(index, generation << 1 | 1);
        Some((index, generation, kept))
    }

    /// A free slot, locked: a freed one if any shard has one (this registry's last
    /// shard first, so the slot freed last is reused first), else a new one at the first
    /// index never used (so slots stay dense). One shard lock, unless another thread took
    /// the slot first.
    fn claim(&self) -> Option<(usize, usize, RwLockWriteGuard<'_, ShardSlots<T>>)> {
        let (first, fresh) = self.pick();
        for k in (first..SHARDS).chain(0..first) {
            let Some(mut s) = self.shard_write(k) else {
                continue;
            };
            let position = match s.free.pop() {
                Some(p) => p as usize,
                // The shard's bit is left set when its last freed slot is taken (a shard
                // freeing and taking one slot over and over then never touches the bits);
                // a shard found empty is cleared here, and a freed slot elsewhere is still
                // reused before a new one is made.
                None if !fresh && {
                    self.mark_free(k, false);
                    !self.pick().1
                } =>
                {
                    continue;
                }
                None if s.meta.len() < SHARD_SLOTS => {
                    s.meta.push(SlotMeta::default());
                    s.objects.push(None);
                    let p = s.meta.len().saturating_sub(1);
                    if let Some(index) = slot_of(k, p) {
                        self.fresh
                            .store(index.saturating_add(1) as usize, Ordering::Relaxed);
                    }
                    p
                }
                None => continue,
            };
            return Some((k, position, s));
        }
        None
    }

    /// Where to look for a slot first, and whether that is a new one: the last shard if
    /// it may have a freed slot, else the next shard that may, else the shard of the
    /// first index never used. Read without a lock (a hint, checked under the shard's
    /// lock).
    fn pick(&self) -> (usize, bool) {
        let next = self.next.load(Ordering::Relaxed) % SHARDS;
        let [low, high] = &self.has_free;
        let mask = u128::from(high.load(Ordering::Acquire)) << 64
            | u128::from(low.load(Ordering::Acquire));
        if mask == 0 {
            return (self.fresh.load(Ordering::Relaxed) % SHARDS, true);
        }
        let ahead = mask.rotate_right(next as u32).trailing_zeros() as usize;
        (next.wrapping_add(ahead) % SHARDS, false)
    }

    /// Records whether shard `k` may have a freed slot (called under its lock; only a
    /// change of the bit takes a locked instruction, and only shard `k`'s lock holder
    /// changes it, so a plain read of it first is exact).
    fn mark_free(&self, k: usize, free: bool) {
        if let Some(word) = self.has_free.get(k / 64) {
            let bit = 1u64 << (k % 64);
            if (word.load(Ordering::Relaxed) & bit != 0) == free {
                return;
            }
            if free {
                word.fetch_or(bit, Ordering::Release);
            } else {
                word.fetch_and(!bit, Ordering::Release);
            }
        }
    }

    /// Whether `(index, generation)` names a live object: one atomic load, no lock.
    #[inline]
    pub fn is_live(&self, index: u32, generation: u32) -> bool {
        self.states
            .word(index)
            .is_some_and(|w| w.load(Ordering::Acquire) == (generation << 1 | 1))
    }

    /// The live object a handle names, or why not.
    #[inline]
    pub fn get<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Result<Arc<T>, Error> {
        if h.device_id() == device && h.index() != 0 {
            let (k, at) = place(h.index());
            if let Some(shard) = self.shard_read(k) {
                if self.is_live(h.index(), h.generation()) {
                    if let Some(Some(obj)) = shard.objects.get(at) {
                        return Ok(obj.clone());
                    }
                }
            }
        }
        Err(self.explain(h, device, op))
    }

    /// Takes a live object out: every copy of its handle is stale from now on. The caller
    /// drops the `Arc` (outside any lock).
    pub fn remove<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Result<Arc<T>, Error> {
        self.take_out(h, device, op, None)
    }

    /// Takes a live object out as [`Registry::remove`] does, remembering why: a later use
    /// of a copy of its handle is refused with `rule` and `why`.
    pub fn remove_because<H: Handle>(
        &self,
        h: H,
        device: u32,
        op: &'static str,
        rule: Rule,
        why: &str,
    ) -> Result<Arc<T>, Error> {
        self.take_out(h, device, op, Some((rule, why)))
    }

    fn take_out<H: Handle>(
        &self,
        h: H,
        device: u32,
        op: &'static str,
        reason: Option<(Rule, &str)>,
    ) -> Result<Arc<T>, Error> {
        if h.device_id() == device && h.index() != 0 {
            let (k, at) = place(h.index());
            if let Some(mut s) = self.shard_write(k) {
                if self.is_live(h.index(), h.generation()) {
                    if let Some(obj) = s.objects.get_mut(at).and_then(Option::take) {
                        self.states.store(h.index(), h.generation() << 1);
                        s.live = s.live.saturating_sub(1);
                        // A slot whose generation would pass what handles carry is retired.
                        if h.generation() < MAX_GENERATION {
                            s.free.push(at as u32);
                            self.mark_free(k, true);
                        }
                        if let Some((rule, why)) = reason {
                            s.reasons
                                .insert(h.index(), (h.generation(), rule, Box::from(why)));
                        }
                        self.next.store(k, Ordering::Relaxed);
                        return Ok(obj);
                    }
                }
            }
        }
        Err(self.explain(h, device, op))
    }

    /// Runs `f` on the live object a handle names when nothing but the registry holds it
    /// (no encoder has met it, no submission in flight keeps it): `Ok(Some(..))`; `Ok(None)`
    /// when something else holds it. While `f` runs no encoder can meet the object (the
    /// object's shard is write-locked), so nothing starts using it half-changed.
    pub fn with_unique<H: Handle, R>(
        &self,
        h: H,
        device: u32,
        op: &'static str,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<Option<R>, Error> {
        if h.device_id() == device && h.index() != 0 {
            let (k, at) = place(h.index());
            if let Some(mut s) = self.shard_write(k) {
                if self.is_live(h.index(), h.generation()) {
                    if let Some(Some(obj)) = s.objects.get_mut(at) {
                        return Ok(Arc::get_mut(obj).map(f));
                    }
                }
            }
        }
        Err(self.explain(h, device, op))
    }

    /// Objects currently live (every shard read: for reports and teardown, not hot paths).
    pub fn live_count(&self) -> usize {
        (0..SHARDS)
            .filter_map(|k| self.shard_read(k).map(|s| s.live))
            .sum()
    }

    /// Every live object, taken out (teardown). Their handles go stale.
    pub fn drain(&self) -> Vec<Arc<T>> {
        let mut out = Vec::new();
        for k in 0..SHARDS {
            let Some(mut s) = self.shard_write(k) else {
                continue;
            };
            let s = &mut *s;
            for (position, (obj, meta)) in s.objects.iter_mut().zip(&s.meta).enumerate() {
                if let Some(obj) = obj.take() {
                    if let Some(index) = slot_of(k, position) {
                        self.states.store(index, meta.generation << 1);
                    }
                    out.push(obj);
                }
            }
            s.live = 0;
        }
        out
    }

    /// Why a handle is not a live object of this registry.
    #[cold]
    pub fn explain<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Error {
        if h.is_null() {
            return Error::new(
                Rule::HandleNull,
                op,
                "",
                format!("the {} handle is null", H::KIND),
            );
        }
        if h.device_id() != device {
            return Error::new(
                Rule::HandleForeign,
                op,
                "",
                format!(
                    "{h:?} belongs to device {}, not to this device ({device})",
                    h.device_id()
                ),
            );
        }
        let (k, at) = place(h.index());
        let s = self.shard_read(k);
        let meta = s.as_ref().and_then(|s| s.meta.get(at));
        let known = meta.is_some_and(|m| h.generation() != 0 && h.generation() <= m.generation);
        if !known {
            return Error::new(
                Rule::HandleUnknown,
                op,
                "",
                format!("{h:?} names no {} of this device", H::KIND),
            );
        }
        let current = meta.map_or(0, |m| m.generation);
        // The label of the very object the handle named: the slot's last, or the one before
        // it; an older one's label is no longer kept.
        let label = if h.generation() == current {
            meta.map(|m| &m.label)
        } else if h.generation().saturating_add(1) == current {
            meta.map(|m| &m.retired)
        } else {
            None
        };
        let reason = s
            .as_ref()
            .and_then(|s| s.reasons.get(&h.index()))
            .filter(|(generation, _, _)| *generation == h.generation());
        if let (Some(label), Some((_, rule, why))) = (label, reason) {
            return Error::new(
                *rule,
                op,
                label,
                format!("{h:?} is stale: {} '{label}' {why}", H::KIND),
            );
        }
        match label {
            Some(label) => Error::new(
                Rule::HandleStale,
                op,
                label,
                format!("{h:?} is stale: its {} '{label}' was destroyed", H::KIND),
            ),
            None => Error::new(
                Rule::HandleStale,
                op,
                "",
                format!(
                    "{h:?} is stale: its {} was destroyed, and its slot has held {} objects since (its label is no longer kept)",
                    H::KIND,
                    current.saturating_sub(h.generation())
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handle::Buffer;

    #[derive(Debug)]
    struct Obj(Label);
    impl Labelled for Obj {
        fn label(&self) -> &Label {
            &self.0
        }
    }

    fn handle((i, g, _): &(u32, u32, Arc<Obj>)) -> Buffer {
        Buffer::from_parts(*i, *g, 7)
    }

    #[test]
    fn stale_null_foreign_and_unknown_handles_are_refused_with_their_rules() {
        let r = Registry::<Obj>::default();
        let a = r.insert(|_, _| Obj(Label::new("a"))).unwrap();
        let h = handle(&a);
        assert_eq!(r.get(h, 7, "t").unwrap().0.as_str(), "a");
        assert!(r.is_live(a.0, a.1));
        assert_eq!(
            r.get(Buffer::NULL, 7, "t").unwrap_err().rule(),
            Rule::HandleNull
        );
        assert_eq!(r.get(h, 8, "t").unwrap_err().rule(), Rule::HandleForeign);
        assert_eq!(
            r.get(Buffer::from_parts(99, 1, 7), 7, "t")
                .unwrap_err()
                .rule(),
            Rule::HandleUnknown
        );
        r.remove(h, 7, "t").unwrap();
        assert!(!r.is_live(a.0, a.1));
        let e = r.get(h, 7, "t").unwrap_err();
        assert_eq!(e.rule(), Rule::HandleStale);
        assert_eq!(
            e.label(),
            "a",
            "a destroyed object's refusal keeps its label"
        );
        assert_eq!(r.remove(h, 7, "t").unwrap_err().rule(), Rule::HandleStale);
    }

    #[test]
    fn slots_are_reused_with_a_new_generation() {
        let r = Registry::<Obj>::default();
        let a = r.insert(|_, _| Obj(Label::new("a"))).unwrap();
        r.remove(handle(&a), 7, "t").unwrap();
        let b = r.insert(|_, _| Obj(Label::new("b"))).unwrap();
        assert_eq!(b.0, a.0);
        assert_ne!(b.1, a.1);
        assert!(r.get(handle(&a), 7, "t").is_err());
        assert_eq!(r.get(handle(&b), 7, "t").unwrap().0.as_str(), "b");
        assert_eq!(r.live_count(), 1);
    }

    #[test]
    fn a_stale_handle_is_named_by_its_own_label_after_its_slot_is_reused() {
        let r = Registry::<Obj>::default();
        let a = r.insert(|_, _| Obj(Label::new("first"))).unwrap();
        r.remove(handle(&a), 7, "t").unwrap();
        let b = r.insert(|_, _| Obj(Label::new("second"))).unwrap();
        assert_eq!(b.0, a.0, "the slot was reused");
        let e = r.get(handle(&a), 7, "t").unwrap_err();
        assert_eq!((e.rule(), e.label()), (Rule::HandleStale, "first"), "{e}");
        r.remove(handle(&b), 7, "t").unwrap();
        let c = r.insert(|_, _| Obj(Label::new("third"))).unwrap();
        assert_eq!(r.get(handle(&b), 7, "t").unwrap_err().label(), "second");
        // Two objects later the first one's label is gone, and the refusal says so rather
        // than naming another object.
        let e = r.get(handle(&a), 7, "t").unwrap_err();
        assert_eq!((e.rule(), e.label()), (Rule::HandleStale, ""));
        assert!(e.message().contains("no longer kept"), "{e}");
        drop(c);
    }

    #[test]
    fn a_removed_object_lives_on_while_someone_holds_it() {
        let r = Registry::<Obj>::default();
        let a = r.insert(|_, _| Obj(Label::new("a"))).unwrap();
        let held = r.get(handle(&a), 7, "t").unwrap();
        drop(r.remove(handle(&a), 7, "t").unwrap());
        drop(a);
        assert_eq!(held.0.as_str(), "a");
        assert_eq!(Arc::strong_count(&held), 1);
    }

    #[test]
    fn slots_fill_in_index_order_across_shards_and_are_all_reused() {
        let r = Registry::<Obj>::default();
        let n = 3 * SHARDS as u32 + 5;
        let made: Vec<_> = (0..n)
            .map(|i| r.insert(|_, _| Obj(Label::new(i.to_string()))).unwrap())
            .collect();
        let indices: Vec<u32> = made.iter().map(|m| m.0).collect();
        assert_eq!(indices, (1..=n).collect::<Vec<_>>(), "dense, from slot 1");
        assert_eq!(r.live_count(), n as usize);
        for m in &made {
            assert_eq!(r.get(handle(m), 7, "t").unwrap().0.as_str(), m.2.0.as_str());
        }
        for m in &made {
            r.remove(handle(m), 7, "t").unwrap();
        }
        assert_eq!(r.live_count(), 0);
        let again: Vec<_> = (0..n)
            .map(|_| r.insert(|_, _| Obj(Label::new("again"))).unwrap())
            .collect();
        let mut reused: Vec<u32> = again.iter().map(|m| m.0).collect();
        reused.sort_unstable();
        assert_eq!(
            reused, indices,
            "every freed slot is reused before a new one"
        );
        assert!(
            again.iter().all(|m| m.1 == 2),
            "each with its next generation"
        );
        for m in &made {
            assert_eq!(
                r.get(handle(m), 7, "t").unwrap_err().rule(),
                Rule::HandleStale
            );
        }
        let drained = r.drain();
        assert_eq!(drained.len(), n as usize);
        assert!(again.iter().all(|m| !r.is_live(m.0, m.1)));
    }
}
