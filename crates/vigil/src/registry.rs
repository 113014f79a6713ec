//! Slot arrays: a handle lookup is an index and a generation compare.
//!
//! A slot is `Free`, `Live`, or `Retiring` (destroyed by the user, its native object still
//! held until the GPU is done with it and nothing retains it). Destroying moves the slot's
//! generation on at once, so every copy of the handle is stale from then; the slot goes
//! back on the free list only once its object is released. Slot 0 is never used.

use crate::error::{Error, ErrorKind};
use crate::handle::Handle;

/// Lifecycle of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotState {
    Free,
    Live,
    Retiring,
}

/// One slot.
#[derive(Debug)]
pub(crate) struct Slot<T> {
    pub generation: u32,
    pub state: SlotState,
    pub value: Option<T>,
    /// Serial of the last submission that used the object (0: none).
    pub last_use: u64,
    /// Live objects that retain this one (bind groups, views, pipelines).
    pub refs: u32,
    /// For a retiring slot: the newest recording ticket issued when it was destroyed. The
    /// native object waits until every recording up to that ticket is closed, since any
    /// of them may have recorded it (0: no recording was open).
    pub hold: u64,
}

/// Objects of one kind.
#[derive(Debug)]
pub(crate) struct Registry<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            slots: vec![Slot {
                generation: 0,
                state: SlotState::Free,
                value: None,
                last_use: 0,
                refs: 0,
                hold: 0,
            }],
            free: Vec::new(),
            live: 0,
        }
    }
}

impl<T> Registry<T> {
    /// Stores a new object; returns its index and generation.
    pub fn insert(&mut self, value: T) -> (u32, u32) {
        self.live = self.live.saturating_add(1);
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.state = SlotState::Live;
            slot.value = Some(value);
            slot.last_use = 0;
            slot.refs = 0;
            slot.hold = 0;
            return (index, slot.generation);
        }
        let index = self.slots.len() as u32;
        self.slots.push(Slot {
            generation: 1,
            state: SlotState::Live,
            value: Some(value),
            last_use: 0,
            refs: 0,
            hold: 0,
        });
        (index, 1)
    }

    /// Objects currently live (not destroyed).
    pub fn live_count(&self) -> usize {
        self.live
    }

    /// The live slot a handle names, or why not.
    #[inline]
    pub fn get<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Result<&Slot<T>, Error> {
        match self.slots.get(h.index() as usize) {
            Some(s)
                if s.generation == h.generation()
                    && s.state == SlotState::Live
                    && h.device_id() == device
                    && h.index() != 0 =>
            {
                Ok(s)
            }
            _ => Err(self.explain(h, device, op)),
        }
    }

    /// The live object a handle names.
    #[inline]
    pub fn value<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Result<&T, Error> {
        match self.get(h, device, op)?.value.as_ref() {
            Some(v) => Ok(v),
            None => Err(self.explain(h, device, op)),
        }
    }

    /// Whether `(index, generation)` is a live object (no device check: the pair came from
    /// this registry).
    #[inline]
    pub fn is_live(&self, index: u32, generation: u32) -> bool {
        matches!(self.slots.get(index as usize), Some(s) if s.generation == generation && s.state == SlotState::Live)
    }

    /// The slot at `index`, whatever its state.
    #[inline]
    pub fn slot(&self, index: u32) -> Option<&Slot<T>> {
        self.slots.get(index as usize)
    }

    /// Mutable slot at `index`, whatever its state.
    #[inline]
    pub fn slot_mut(&mut self, index: u32) -> Option<&mut Slot<T>> {
        self.slots.get_mut(index as usize)
    }

    /// Marks a live slot destroyed: its generation moves on (every handle copy goes stale).
    pub fn retire(&mut self, index: u32) {
        if let Some(slot) = self.slots.get_mut(index as usize) {
            if slot.state == SlotState::Live {
                slot.state = SlotState::Retiring;
                slot.generation = slot.generation.wrapping_add(1);
                self.live = self.live.saturating_sub(1);
            }
        }
    }

    /// Whether a retiring slot can release its object at completed serial `completed`,
    /// with `oldest_open` the oldest recording ticket still open (`u64::MAX`: none).
    pub fn releasable(&self, index: u32, completed: u64, oldest_open: u64) -> bool {
        matches!(self.slots.get(index as usize), Some(s) if s.state == SlotState::Retiring
            && s.refs == 0
            && s.last_use <= completed
            && (s.hold == 0 || s.hold < oldest_open))
    }

    /// Takes a retiring slot's object and frees the slot (unless its generations ran out).
    pub fn release(&mut self, index: u32) -> Option<T> {
        let slot = self.slots.get_mut(index as usize)?;
        if slot.state != SlotState::Retiring {
            return None;
        }
        slot.state = SlotState::Free;
        let value = slot.value.take();
        // A slot whose generation would wrap back to one an old handle carries is retired
        // for good rather than reused.
        if slot.generation != u32::MAX {
            self.free.push(index);
        }
        value
    }

    /// Takes every object still held (live or retiring), for teardown.
    pub fn drain(&mut self) -> Vec<T> {
        self.live = 0;
        self.free.clear();
        self.slots
            .iter_mut()
            .filter_map(|s| {
                s.state = SlotState::Free;
                s.value.take()
            })
            .collect()
    }

    #[cold]
    fn explain<H: Handle>(&self, h: H, device: u32, op: &'static str) -> Error {
        if h.is_null() {
            return Error::new(
                ErrorKind::InvalidHandle,
                op,
                "",
                format!("the {} handle is null", H::KIND),
            );
        }
        if h.device_id() != device {
            return Error::new(
                ErrorKind::DeviceMismatch,
                op,
                "",
                format!(
                    "{h:?} belongs to device {}, not to this device ({device})",
                    h.device_id()
                ),
            );
        }
        match self.slots.get(h.index() as usize) {
            None => Error::new(
                ErrorKind::InvalidHandle,
                op,
                "",
                format!("{h:?} names no {} of this device", H::KIND),
            ),
            Some(_) => Error::new(
                ErrorKind::InvalidHandle,
                op,
                "",
                format!("{h:?} is stale: its {} was destroyed", H::KIND),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handle::Buffer;

    fn handle(r: &Registry<u8>, (i, g): (u32, u32)) -> Buffer {
        let _ = r;
        Buffer::from_parts(i, g, 7)
    }

    #[test]
    fn stale_null_and_foreign_handles_are_refused() {
        let mut r = Registry::<u8>::default();
        let a = r.insert(1);
        let h = handle(&r, a);
        assert_eq!(*r.value(h, 7, "t").unwrap(), 1);
        assert_eq!(
            r.get(Buffer::NULL, 7, "t").unwrap_err().kind(),
            ErrorKind::InvalidHandle
        );
        assert_eq!(
            r.get(h, 8, "t").unwrap_err().kind(),
            ErrorKind::DeviceMismatch
        );
        r.retire(a.0);
        assert_eq!(
            r.get(h, 7, "t").unwrap_err().kind(),
            ErrorKind::InvalidHandle
        );
    }

    #[test]
    fn slots_are_reused_only_after_release_and_with_a_new_generation() {
        let mut r = Registry::<u8>::default();
        let a = r.insert(1);
        r.retire(a.0);
        let b = r.insert(2);
        assert_ne!(a.0, b.0, "a retiring slot is not reused");
        assert_eq!(r.release(a.0), Some(1));
        let c = r.insert(3);
        assert_eq!(c.0, a.0);
        assert_ne!(c.1, a.1);
        assert!(r.get(handle(&r, a), 7, "t").is_err());
        assert!(r.get(handle(&r, c), 7, "t").is_ok());
    }

    #[test]
    fn release_waits_for_refs_and_serials() {
        let mut r = Registry::<u8>::default();
        let a = r.insert(1);
        r.slot_mut(a.0).unwrap().last_use = 5;
        r.slot_mut(a.0).unwrap().refs = 1;
        r.retire(a.0);
        assert!(!r.releasable(a.0, 10, u64::MAX));
        r.slot_mut(a.0).unwrap().refs = 0;
        assert!(!r.releasable(a.0, 4, u64::MAX));
        assert!(r.releasable(a.0, 5, u64::MAX));
    }

    #[test]
    fn release_waits_for_every_recording_open_at_the_destroy() {
        let mut r = Registry::<u8>::default();
        let a = r.insert(1);
        r.retire(a.0);
        r.slot_mut(a.0).unwrap().hold = 7;
        assert!(
            !r.releasable(a.0, 0, 3),
            "recording 3 was open at the destroy"
        );
        assert!(
            !r.releasable(a.0, 0, 7),
            "recording 7 was the newest at the destroy"
        );
        assert!(r.releasable(a.0, 0, 8), "only later recordings are open");
        assert!(r.releasable(a.0, 0, u64::MAX), "none is open");
    }
}
