//! Slot arrays shared by every thread: a handle lookup is an index and a generation
//! compare.
//!
//! Each kind of object has one registry. A slot's state (generation, and whether it holds a
//! live object) is an atomic word in a table that never moves, so any thread can ask
//! whether a handle is live with one atomic load and no lock: that is what recording does
//! on every command. The objects themselves are `Arc`s in read-write-locked shards,
//! written when an object is created or destroyed and read when an encoder first meets a
//! handle (it keeps the `Arc` after that), so encoders on many threads meet handles at
//! once.
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
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

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

/// Object storage is split this many ways by slot index, so encoders on many threads
/// meeting handles do not all take one lock (each shard's lock has a cache line of its
/// own: a read lock writes the lock word, and threads meeting different objects should
/// not pass lines between them).
const SHARDS: usize = 128;

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

struct Slots {
    meta: Vec<SlotMeta>,
    /// Why an object was taken out where that was not a plain destroy (a bind group
    /// pool's reset), by slot: its generation, the rule and the words, for messages about
    /// its stale handles. Sparse, so creating and destroying objects never touches it.
    reasons: std::collections::HashMap<u32, (u32, Rule, Box<str>)>,
    free: Vec<u32>,
    live: usize,
}

/// One shard of a registry's objects, alone on its cache line.
#[repr(align(64))]
struct Shard<T>(RwLock<Vec<Option<Arc<T>>>>);

/// Objects of one kind.
pub(crate) struct Registry<T> {
    states: StateTable,
    /// Generations, labels and free slots: taken to create and destroy.
    slots: Mutex<Slots>,
    /// The objects, slot `i` in shard `i % SHARDS` at `i / SHARDS`.
    shards: Box<[Shard<T>]>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            states: StateTable::new(),
            shards: (0..SHARDS)
                .map(|_| Shard(RwLock::new(Vec::new())))
                .collect(),
            slots: Mutex::new(Slots {
                meta: vec![SlotMeta::default()],
                reasons: std::collections::HashMap::new(),
                free: Vec::new(),
                live: 0,
            }),
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

impl<T: Labelled> Registry<T> {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn shard(&self, index: u32) -> (usize, &Shard<T>) {
        let i = index as usize;
        (i / SHARDS, &self.shards[i % SHARDS])
    }

    fn shard_read(&self, index: u32) -> (usize, RwLockReadGuard<'_, Vec<Option<Arc<T>>>>) {
        let (at, shard) = self.shard(index);
        (at, shard.0.read().unwrap_or_else(|p| p.into_inner()))
    }

    fn shard_write(&self, index: u32) -> (usize, RwLockWriteGuard<'_, Vec<Option<Arc<T>>>>) {
        let (at, shard) = self.shard(index);
        (at, shard.0.write().unwrap_or_else(|p| p.into_inner()))
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
        let mut s = self.lock();
        let index = match s.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(s.meta.len()).ok()?;
                if i as usize >= CHUNK * CHUNKS {
                    return None;
                }
                s.meta.push(SlotMeta::default());
                i
            }
        };
        let meta = s.meta.get_mut(index as usize)?;
        let generation = meta.generation.saturating_add(1);
        let obj = Arc::new(make(index, generation));
        let kept = keep(&obj);
        meta.generation = generation;
        let before = std::mem::replace(&mut meta.label, obj.label().clone());
        meta.retired = before;
        {
            let (at, mut shard) = self.shard_write(index);
            if shard.len() <= at {
                shard.resize_with(at.saturating_add(1), || None);
            }
            if let Some(o) = shard.get_mut(at) {
                *o = Some(obj);
            }
        }
        s.live = s.live.saturating_add(1);
        self.states.store(index, generation << 1 | 1);
        Some((index, generation, kept))
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
            let (at, shard) = self.shard_read(h.index());
            if self.is_live(h.index(), h.generation()) {
                if let Some(Some(obj)) = shard.get(at) {
                    return Ok(obj.clone());
                }
            }
        }
        Err(self.explain(h, device, op))
    }

    /// Takes a live object out: every copy of its handle is stale from now on. The caller
    /// drops the `Arc` (outside any lock).
    pub fn remove<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Result<Arc<T>, Error> {
        if h.device_id() == device && h.index() != 0 {
            let mut s = self.lock();
            if self.is_live(h.index(), h.generation()) {
                let (at, mut shard) = self.shard_write(h.index());
                if let Some(obj) = shard.get_mut(at).and_then(Option::take) {
                    self.states.store(h.index(), h.generation() << 1);
                    s.live = s.live.saturating_sub(1);
                    // A slot whose generation would pass what handles carry is retired.
                    if h.generation() < MAX_GENERATION {
                        s.free.push(h.index());
                    }
                    return Ok(obj);
                }
            }
        }
        Err(self.explain(h, device, op))
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
        let obj = self.remove(h, device, op)?;
        let mut s = self.lock();
        s.reasons
            .insert(h.index(), (h.generation(), rule, Box::from(why)));
        Ok(obj)
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
            let (at, mut shard) = self.shard_write(h.index());
            if self.is_live(h.index(), h.generation()) {
                if let Some(Some(obj)) = shard.get_mut(at) {
                    return Ok(Arc::get_mut(obj).map(f));
                }
            }
        }
        Err(self.explain(h, device, op))
    }

    /// Objects currently live.
    pub fn live_count(&self) -> usize {
        self.lock().live
    }

    /// Every live object, taken out (teardown). Their handles go stale.
    pub fn drain(&self) -> Vec<Arc<T>> {
        let mut s = self.lock();
        let mut out = Vec::new();
        let count = s.meta.len();
        for i in 0..count {
            let (at, mut shard) = self.shard_write(i as u32);
            if let Some(obj) = shard.get_mut(at).and_then(Option::take) {
                let g = s.meta.get(i).map_or(0, |m| m.generation);
                self.states.store(i as u32, g << 1);
                out.push(obj);
            }
        }
        s.live = 0;
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
        let s = self.lock();
        let known = s
            .meta
            .get(h.index() as usize)
            .is_some_and(|m| h.generation() != 0 && h.generation() <= m.generation);
        if !known {
            return Error::new(
                Rule::HandleUnknown,
                op,
                "",
                format!("{h:?} names no {} of this device", H::KIND),
            );
        }
        let slot = h.index() as usize;
        let meta = s.meta.get(slot);
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
            .reasons
            .get(&h.index())
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
}
