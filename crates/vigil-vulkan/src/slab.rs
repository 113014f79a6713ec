//! Small device-local buffers placed in slabs of memory vigil sub-divides itself.
//!
//! gpu-allocator's free-list allocator searches its free ranges and records every
//! allocation in a hash map: on an NVIDIA H100's host (session 73) an `allocate` took
//! about 260–370 ns and a `free` 210–300 ns, through vigil and through raw ash alike, a
//! third or more of what raw ash spends making a small buffer. A buffer of at most
//! [`MAX_SLOT`] bytes in device-local memory instead takes a slot of a power-of-two size
//! from a slab: one allocation of [`SLAB_BYTES`] from gpu-allocator cut into equal slots,
//! each at an offset that is a multiple of its size (so aligned to it). Taking a slot and
//! giving it back is a pop and a push on the slab's list of free slots.
//!
//! A slab whose slots are all free is given back to gpu-allocator, except one per slot
//! size and memory-type mask, kept for the next buffer (as gpu-allocator keeps a memory
//! block): memory held for buffers the application no longer has is at most one slab per
//! size. Slabs are not native objects of their own: each buffer in one counts as one, as a
//! buffer with its own allocation does.
//!
//! The bookkeeping is generic over what a slab's memory is (`C`): gpu-allocator's
//! `Allocation` on a device, a number in the tests below.

use ash::vk;

/// Bytes of one slab.
pub(crate) const SLAB_BYTES: u64 = 2 << 20;
/// The smallest slot.
const MIN_SLOT: u64 = 256;
/// The largest slot: larger buffers get an allocation of their own.
pub(crate) const MAX_SLOT: u64 = 64 << 10;

/// Where a buffer's slot is, to give it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    class: u32,
    slab: u32,
    index: u32,
}

struct Slab<C> {
    memory: C,
    /// Free slots; the next taken is the last.
    free: Vec<u32>,
    used: u32,
}

/// Slabs of one slot size and memory-type mask.
struct Class<C> {
    type_bits: u32,
    slot: u64,
    slabs: Vec<Option<Slab<C>>>,
    /// Slabs with a free slot (the last is taken from first).
    room: Vec<u32>,
    /// The slab kept while all its slots are free.
    empty: Option<u32>,
}

/// Every slab of a device, under the allocator's lock.
pub(crate) struct Slabs<C> {
    classes: Vec<Class<C>>,
}

impl<C> Default for Slabs<C> {
    fn default() -> Self {
        Slabs {
            classes: Vec::new(),
        }
    }
}

/// The slot size a buffer with `requirements` takes, if it goes in a slab.
pub(crate) fn slot_size(requirements: &vk::MemoryRequirements) -> Option<u64> {
    let slot = requirements
        .size
        .max(requirements.alignment)
        .max(MIN_SLOT)
        .checked_next_power_of_two()?;
    (slot <= MAX_SLOT).then_some(slot)
}

impl<C> Slabs<C> {
    /// A slot of `slot` bytes (from [`slot_size`]) in memory of a type in `type_bits`:
    /// from a slab with room, or a new one whose [`SLAB_BYTES`] `allocate` makes (aligned
    /// to `slot`, of a type in `type_bits`). Returns the slot, its slab's memory and the
    /// slot's offset in it; on `allocate`'s error (`Some`), nothing changed. `None` would
    /// mean the bookkeeping lost a class or slab it had just looked at: refused, not a
    /// panic.
    pub fn take<E>(
        &mut self,
        type_bits: u32,
        slot: u64,
        allocate: impl FnOnce() -> Result<C, E>,
    ) -> Result<(Slot, &C, u64), Option<E>> {
        let c = match self
            .classes
            .iter()
            .position(|c| c.slot == slot && c.type_bits == type_bits)
        {
            Some(c) => c,
            None => {
                // The new class is kept even if `allocate` fails below: it is empty.
                self.classes.push(Class {
                    type_bits,
                    slot,
                    slabs: Vec::new(),
                    room: Vec::new(),
                    empty: None,
                });
                self.classes.len().saturating_sub(1)
            }
        };
        let class = self.classes.get_mut(c).ok_or(None)?;
        let s = match class.room.last() {
            Some(&s) => s,
            None => {
                let memory = allocate().map_err(Some)?;
                let slots = u32::try_from(SLAB_BYTES / slot).unwrap_or(u32::MAX);
                let slab = Slab {
                    memory,
                    free: (0..slots).rev().collect(),
                    used: 0,
                };
                let at = match class.slabs.iter().position(Option::is_none) {
                    Some(at) => at,
                    None => {
                        class.slabs.push(None);
                        class.slabs.len().saturating_sub(1)
                    }
                };
                if let Some(place) = class.slabs.get_mut(at) {
                    *place = Some(slab);
                }
                let s = u32::try_from(at).unwrap_or(u32::MAX);
                class.room.push(s);
                s
            }
        };
        if class.empty == Some(s) {
            class.empty = None;
        }
        let slab = class
            .slabs
            .get_mut(s as usize)
            .and_then(Option::as_mut)
            .ok_or(None)?;
        // A slab in `room` has a free slot.
        let index = slab.free.pop().ok_or(None)?;
        slab.used = slab.used.saturating_add(1);
        if slab.free.is_empty() {
            class.room.pop();
        }
        let slot_at = Slot {
            class: u32::try_from(c).unwrap_or(u32::MAX),
            slab: s,
            index,
        };
        Ok((slot_at, &slab.memory, u64::from(index) * slot))
    }

    /// Gives a slot back. A slab left with none in use goes to `release` unless it is the
    /// one kept for its class.
    pub fn give(&mut self, slot: Slot, release: impl FnOnce(C)) {
        let Some(class) = self.classes.get_mut(slot.class as usize) else {
            return;
        };
        let Some(Some(slab)) = class.slabs.get_mut(slot.slab as usize) else {
            return;
        };
        slab.free.push(slot.index);
        slab.used = slab.used.saturating_sub(1);
        if slab.free.len() == 1 {
            class.room.push(slot.slab);
        }
        if slab.used > 0 {
            return;
        }
        match class.empty {
            None => class.empty = Some(slot.slab),
            Some(kept) if kept == slot.slab => {}
            Some(_) => {
                let taken = class
                    .slabs
                    .get_mut(slot.slab as usize)
                    .and_then(Option::take);
                class.room.retain(|&r| r != slot.slab);
                if let Some(slab) = taken {
                    release(slab.memory);
                }
            }
        }
    }

    /// Gives every slab to `release` (teardown, after every buffer is destroyed).
    pub fn release_all(&mut self, mut release: impl FnMut(C)) {
        for class in self.classes.drain(..) {
            for slab in class.slabs.into_iter().flatten() {
                release(slab.memory);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn req(size: u64, alignment: u64) -> vk::MemoryRequirements {
        vk::MemoryRequirements {
            size,
            alignment,
            memory_type_bits: 1,
        }
    }

    /// Slabs whose memory is a number, counting what was allocated and released.
    struct Book {
        slabs: Slabs<u32>,
        made: u32,
        released: Vec<u32>,
    }

    impl Book {
        fn new() -> Book {
            Book {
                slabs: Slabs::default(),
                made: 0,
                released: Vec::new(),
            }
        }

        fn take(&mut self, type_bits: u32, slot: u64) -> (Slot, u32, u64) {
            let made = &mut self.made;
            let (s, m, at) = self
                .slabs
                .take(type_bits, slot, || -> Result<u32, ()> {
                    *made += 1;
                    Ok(*made)
                })
                .unwrap();
            (s, *m, at)
        }

        fn give(&mut self, slot: Slot) {
            let released = &mut self.released;
            self.slabs.give(slot, |m| released.push(m));
        }
    }

    #[test]
    fn slot_sizes_are_powers_of_two_from_256_bytes_to_64_kib() {
        assert_eq!(slot_size(&req(4, 4)), Some(256));
        assert_eq!(slot_size(&req(256, 16)), Some(256));
        assert_eq!(slot_size(&req(257, 16)), Some(512));
        assert_eq!(
            slot_size(&req(4, 1024)),
            Some(1024),
            "the alignment decides"
        );
        assert_eq!(slot_size(&req(64 << 10, 256)), Some(64 << 10));
        assert_eq!(slot_size(&req((64 << 10) + 1, 256)), None);
        assert_eq!(slot_size(&req(4, 128 << 10)), None);
        assert_eq!(slot_size(&req(u64::MAX, 1)), None);
    }

    #[test]
    fn slots_never_overlap_and_slabs_are_made_as_they_fill() {
        let mut b = Book::new();
        let per_slab = (SLAB_BYTES / MAX_SLOT) as usize;
        let mut seen = HashSet::new();
        let mut slots = Vec::new();
        for _ in 0..per_slab * 2 + 6 {
            let (s, memory, at) = b.take(1, MAX_SLOT);
            assert_eq!(at % MAX_SLOT, 0, "aligned to the slot's size");
            assert!(at + MAX_SLOT <= SLAB_BYTES, "inside the slab");
            assert!(
                seen.insert((memory, at)),
                "slot {at} of slab {memory} taken twice"
            );
            slots.push(s);
        }
        assert_eq!(b.made, 3, "a slab is made only when the others are full");
        // A slot given back is the next one taken, in the slab it came from.
        let freed = slots.swap_remove(5);
        b.give(freed);
        let (again, _, _) = b.take(1, MAX_SLOT);
        assert_eq!(again, freed);
        assert_eq!(b.made, 3);
        assert!(b.released.is_empty());
    }

    #[test]
    fn empty_slabs_go_back_but_one_per_class_is_kept() {
        let mut b = Book::new();
        let slots: Vec<Slot> = (0..100).map(|_| b.take(1, MAX_SLOT).0).collect();
        assert_eq!(b.made, 4);
        for s in slots {
            b.give(s);
        }
        assert_eq!(b.released.len(), 3, "all but one empty slab released");
        // The kept slab serves the next buffers; nothing new is made until it is full.
        let per_slab = (SLAB_BYTES / MAX_SLOT) as usize;
        let again: Vec<Slot> = (0..per_slab).map(|_| b.take(1, MAX_SLOT).0).collect();
        assert_eq!(b.made, 4);
        b.take(1, MAX_SLOT);
        assert_eq!(b.made, 5);
        // Teardown releases every slab still held, once each.
        for s in again {
            b.give(s);
        }
        let mut rest = Vec::new();
        b.slabs.release_all(|m| rest.push(m));
        let mut all: Vec<u32> = b.released.iter().chain(&rest).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (1..=5).collect::<Vec<_>>(), "every slab released once");
    }

    #[test]
    fn sizes_and_memory_types_get_slabs_of_their_own() {
        let mut b = Book::new();
        let (_, small, _) = b.take(1, 256);
        let (_, large, _) = b.take(1, 4096);
        let (_, other_type, _) = b.take(2, 256);
        let (_, small_again, _) = b.take(1, 256);
        assert_eq!(b.made, 3);
        assert_ne!(small, large);
        assert_ne!(small, other_type);
        assert_eq!(small, small_again);
    }

    #[test]
    fn a_failed_slab_allocation_changes_nothing() {
        let mut b = Book::new();
        let failed = b
            .slabs
            .take(1, 256, || -> Result<u32, &str> { Err("out of memory") });
        assert!(matches!(failed, Err(Some("out of memory"))));
        let (s, memory, at) = b.take(1, 256);
        assert_eq!((memory, at), (1, 0));
        b.give(s);
        assert!(b.released.is_empty(), "the one empty slab is kept");
    }
}
