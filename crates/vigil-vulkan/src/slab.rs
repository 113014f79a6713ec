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

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};

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

/// What a buffer placed in a slot binds: the slab's memory at the slot's offset.
#[derive(Debug)]
pub(crate) struct Placed {
    pub slot: Slot,
    pub memory: vk::DeviceMemory,
    pub offset: u64,
    /// The slot's host address, where the slab's memory is mapped.
    pub mapped: Option<std::ptr::NonNull<u8>>,
    pub properties: vk::MemoryPropertyFlags,
    /// Where the slab's allocation ends in its memory (the bound of flushed ranges).
    pub end: u64,
}

struct Slab {
    allocation: Allocation,
    /// Free slots; the next taken is the last.
    free: Vec<u32>,
    used: u32,
}

/// Slabs of one slot size and memory-type mask.
struct Class {
    type_bits: u32,
    slot: u64,
    slabs: Vec<Option<Slab>>,
    /// Slabs with a free slot (the last is taken from first).
    room: Vec<u32>,
    /// The slab kept while all its slots are free.
    empty: Option<u32>,
}

/// Every slab of a device, under the allocator's lock.
#[derive(Default)]
pub(crate) struct Slabs {
    classes: Vec<Class>,
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

impl Slabs {
    /// A slot of `slot` bytes (from [`slot_size`]) in memory `requirements` allow, from a
    /// slab with room or a new one allocated at `location`.
    pub fn take(
        &mut self,
        allocator: &mut Allocator,
        requirements: &vk::MemoryRequirements,
        slot: u64,
        location: gpu_allocator::MemoryLocation,
    ) -> gpu_allocator::Result<Placed> {
        let type_bits = requirements.memory_type_bits;
        let c = match self
            .classes
            .iter()
            .position(|c| c.slot == slot && c.type_bits == type_bits)
        {
            Some(c) => c,
            None => {
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
        let class = self
            .classes
            .get_mut(c)
            .ok_or_else(|| internal("no class"))?;
        if class.room.is_empty() {
            let allocation = allocator.allocate(&AllocationCreateDesc {
                name: "vigil slab",
                requirements: vk::MemoryRequirements {
                    size: SLAB_BYTES,
                    alignment: slot,
                    memory_type_bits: type_bits,
                },
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })?;
            let slots = u32::try_from(SLAB_BYTES / slot).unwrap_or(u32::MAX);
            let slab = Slab {
                allocation,
                free: (0..slots).rev().collect(),
                used: 0,
            };
            let at = match class.slabs.iter().position(Option::is_none) {
                Some(at) => {
                    if let Some(s) = class.slabs.get_mut(at) {
                        *s = Some(slab);
                    }
                    at
                }
                None => {
                    class.slabs.push(Some(slab));
                    class.slabs.len().saturating_sub(1)
                }
            };
            class.room.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        let s = *class.room.last().ok_or_else(|| internal("no room"))?;
        let slab = class
            .slabs
            .get_mut(s as usize)
            .and_then(Option::as_mut)
            .ok_or_else(|| internal("no slab"))?;
        let index = slab.free.pop().ok_or_else(|| internal("full slab"))?;
        slab.used = slab.used.saturating_add(1);
        if slab.free.is_empty() {
            class.room.pop();
        }
        if class.empty == Some(s) {
            class.empty = None;
        }
        let offset = u64::from(index) * slot;
        let a = &slab.allocation;
        Ok(Placed {
            slot: Slot {
                class: u32::try_from(c).unwrap_or(u32::MAX),
                slab: s,
                index,
            },
            // SAFETY: reading the memory handle of an allocation this device owns.
            memory: unsafe { a.memory() },
            offset: a.offset() + offset,
            // The slot lies inside the slab's mapping (offset + slot ≤ SLAB_BYTES).
            mapped: a.mapped_ptr().and_then(|p| {
                std::ptr::NonNull::new(p.as_ptr().cast::<u8>().wrapping_add(offset as usize))
            }),
            properties: a.memory_properties(),
            end: a.offset() + a.size(),
        })
    }

    /// Gives a slot back; a slab left with none in use goes back to `allocator` unless it
    /// is the one kept for its class (or `allocator` is gone with the device).
    pub fn give(&mut self, allocator: Option<&mut Allocator>, slot: Slot) {
        let Some(class) = self.classes.get_mut(slot.class as usize) else {
            return;
        };
        let Some(slab) = class
            .slabs
            .get_mut(slot.slab as usize)
            .and_then(Option::as_mut)
        else {
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
                if let Some(Some(slab)) = class.slabs.get_mut(slot.slab as usize).map(Option::take)
                {
                    class.room.retain(|&r| r != slot.slab);
                    if let Some(allocator) = allocator {
                        // A failed free means the allocator lost track of it; nothing to do.
                        let _ = allocator.free(slab.allocation);
                    }
                }
            }
        }
    }

    /// Gives every slab back (teardown, after every buffer is destroyed).
    pub fn release_all(&mut self, allocator: &mut Allocator) {
        for class in self.classes.drain(..) {
            for slab in class.slabs.into_iter().flatten() {
                let _ = allocator.free(slab.allocation);
            }
        }
    }
}

fn internal(what: &str) -> gpu_allocator::AllocationError {
    gpu_allocator::AllocationError::Internal(format!("slab: {what}"))
}
