//! Usage tracking for barriers and for submission bookkeeping.
//!
//! Per encoder, per resource slot, a mark says in which "barrier generation" the resource
//! was last read and last written. A command that reads something written in the current
//! generation, or writes something read or written in it, needs a barrier first; the
//! barrier starts a new generation. Marks are stamped with the encoder's epoch, so a
//! tracker is reused across encoders without clearing, and the work per command is
//! proportional to the resources the command uses, never to the resources that exist.

use vigil_hal::Stages;

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mark {
    epoch: u32,
    read_gen: u32,
    write_gen: u32,
}

/// Seen-marks for objects that need no hazard tracking, only "used once" bookkeeping.
#[derive(Debug, Default)]
pub(crate) struct SeenSet {
    marks: Vec<u32>,
}

impl SeenSet {
    /// True the first time `index` is seen under `epoch`.
    #[inline]
    pub fn first_use(&mut self, index: u32, epoch: u32) -> bool {
        let i = index as usize;
        if i >= self.marks.len() {
            self.marks.resize(i.saturating_add(1), 0);
        }
        if self.marks[i] == epoch {
            false
        } else {
            self.marks[i] = epoch;
            true
        }
    }
}

/// What one command does to one resource.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub write: bool,
    pub stages: Stages,
}

/// Hazard marks of buffers and textures, plus seen-sets for everything else.
#[derive(Debug, Default)]
pub struct Tracker {
    pub(crate) epoch: u32,
    buffers: Vec<Mark>,
    textures: Vec<Mark>,
    pub(crate) seen_buffers: SeenSet,
    pub(crate) seen_textures: SeenSet,
    pub(crate) seen_views: SeenSet,
    pub(crate) seen_groups: SeenSet,
    pub(crate) seen_compute: SeenSet,
    pub(crate) seen_render: SeenSet,
    pub(crate) seen_query_sets: SeenSet,
    pub(crate) seen_member_buffers: SeenSet,
    pub(crate) seen_member_textures: SeenSet,
}

/// The barrier state of one encoder.
#[derive(Debug)]
pub(crate) struct BarrierState {
    /// Current generation; accesses stamped with it have had no barrier after them.
    pub generation: u32,
    /// Stages that accessed anything since the last barrier.
    pub pending: Stages,
    /// Whether anything was written since the last barrier.
    pub pending_writes: bool,
    /// Work from earlier submissions is not yet ordered before this command buffer.
    pub first: bool,
}

impl Default for BarrierState {
    fn default() -> Self {
        BarrierState {
            generation: 1,
            pending: Stages::empty(),
            pending_writes: false,
            first: true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Buffer,
    Texture,
}

impl Tracker {
    /// Starts a new encoder's use of the tracker.
    pub fn begin(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: old stamps could collide with new ones, so start clean.
            *self = Tracker {
                epoch: 1,
                ..Tracker::default()
            };
        }
    }

    #[inline]
    fn mark(&mut self, kind: &Kind, index: u32) -> &mut Mark {
        let marks = match kind {
            Kind::Buffer => &mut self.buffers,
            Kind::Texture => &mut self.textures,
        };
        let i = index as usize;
        if i >= marks.len() {
            marks.resize(i.saturating_add(1), Mark::default());
        }
        &mut marks[i]
    }

    /// Whether `access` to the resource conflicts with accesses since the last barrier.
    #[inline]
    pub fn hazard(
        &mut self,
        kind: Kind,
        index: u32,
        access: Access,
        barriers: &BarrierState,
    ) -> bool {
        let epoch = self.epoch;
        let m = *self.mark(&kind, index);
        if m.epoch != epoch {
            return false;
        }
        m.write_gen == barriers.generation || (access.write && m.read_gen == barriers.generation)
    }

    /// Checks `access` for a hazard and records it, touching the mark once. Returns
    /// whether it conflicts with an access since the last barrier.
    #[inline]
    pub fn access(
        &mut self,
        kind: Kind,
        index: u32,
        access: Access,
        barriers: &mut BarrierState,
    ) -> bool {
        let epoch = self.epoch;
        let generation = barriers.generation;
        let m = self.mark(&kind, index);
        let hazard = if m.epoch == epoch {
            m.write_gen == generation || (access.write && m.read_gen == generation)
        } else {
            *m = Mark {
                epoch,
                read_gen: 0,
                write_gen: 0,
            };
            false
        };
        if access.write {
            m.write_gen = generation;
            barriers.pending_writes = true;
        } else {
            m.read_gen = generation;
        }
        barriers.pending |= access.stages;
        hazard
    }

    /// Inside one usage scope (a render pass): checks `access` against the scope's earlier
    /// accesses and, when it does not conflict, records it — one mark lookup for both.
    /// Returns whether it conflicts (and then records nothing).
    #[inline]
    pub fn scope_access(
        &mut self,
        kind: Kind,
        index: u32,
        access: Access,
        barriers: &mut BarrierState,
    ) -> bool {
        let epoch = self.epoch;
        let generation = barriers.generation;
        let m = self.mark(&kind, index);
        if m.epoch != epoch {
            *m = Mark {
                epoch,
                read_gen: 0,
                write_gen: 0,
            };
        } else if access.write {
            if m.read_gen == generation {
                return true;
            }
        } else if m.write_gen == generation {
            return true;
        }
        if access.write {
            m.write_gen = generation;
            barriers.pending_writes = true;
        } else {
            m.read_gen = generation;
        }
        barriers.pending |= access.stages;
        false
    }

    /// Records `access` in the current generation.
    #[inline]
    pub fn record(&mut self, kind: Kind, index: u32, access: Access, barriers: &mut BarrierState) {
        let epoch = self.epoch;
        let generation = barriers.generation;
        let m = self.mark(&kind, index);
        if m.epoch != epoch {
            *m = Mark {
                epoch,
                read_gen: 0,
                write_gen: 0,
            };
        }
        if access.write {
            m.write_gen = generation;
            barriers.pending_writes = true;
        } else {
            m.read_gen = generation;
        }
        barriers.pending |= access.stages;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rd() -> Access {
        Access {
            write: false,
            stages: Stages::COMPUTE,
        }
    }
    fn wr() -> Access {
        Access {
            write: true,
            stages: Stages::COMPUTE,
        }
    }

    #[test]
    fn inside_a_scope_reads_and_writes_of_one_resource_conflict_but_writes_do_not() {
        let mut t = Tracker::default();
        t.begin();
        let mut b = BarrierState::default();
        assert!(!t.scope_access(Kind::Buffer, 3, rd(), &mut b));
        assert!(
            !t.scope_access(Kind::Buffer, 3, rd(), &mut b),
            "reads share"
        );
        assert!(
            t.scope_access(Kind::Buffer, 3, wr(), &mut b),
            "write after read"
        );
        assert!(!t.scope_access(Kind::Buffer, 4, wr(), &mut b));
        assert!(
            !t.scope_access(Kind::Buffer, 4, wr(), &mut b),
            "writes share"
        );
        assert!(
            t.scope_access(Kind::Buffer, 4, rd(), &mut b),
            "read after write"
        );
        assert!(
            !t.scope_access(Kind::Texture, 4, rd(), &mut b),
            "textures are marked apart from buffers"
        );
        assert!(b.pending_writes);
    }

    #[test]
    fn read_after_write_and_write_after_read_are_hazards_until_a_barrier() {
        let mut t = Tracker::default();
        t.begin();
        let mut b = BarrierState::default();
        assert!(!t.hazard(Kind::Buffer, 3, wr(), &b));
        t.record(Kind::Buffer, 3, wr(), &mut b);
        assert!(t.hazard(Kind::Buffer, 3, rd(), &b), "RAW");
        assert!(!t.hazard(Kind::Buffer, 4, rd(), &b), "other buffer");
        b.generation += 1;
        assert!(!t.hazard(Kind::Buffer, 3, rd(), &b), "after barrier");
        t.record(Kind::Buffer, 3, rd(), &mut b);
        assert!(!t.hazard(Kind::Buffer, 3, rd(), &b), "RAR is fine");
        assert!(t.hazard(Kind::Buffer, 3, wr(), &b), "WAR");
    }

    #[test]
    fn a_new_epoch_forgets_the_previous_encoder() {
        let mut t = Tracker::default();
        t.begin();
        let mut b = BarrierState::default();
        t.record(Kind::Texture, 1, wr(), &mut b);
        t.begin();
        let b = BarrierState::default();
        assert!(!t.hazard(Kind::Texture, 1, rd(), &b));
    }
}
