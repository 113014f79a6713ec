//! Per-resource usage tracking: which barriers a sequence of uses needs.
//!
//! This module knows stages, accesses and layouts, not devices or Vulkan: command encoders
//! drive it, and so can a render graph (state an initial [`State`], feed it [`Use`]s, read
//! the barriers and the final state).
//!
//! The unit is a *part*: a range of a buffer, or one subresource (mip level and layer) of a
//! texture. Within one command buffer a part's first use is not known to follow anything:
//! it becomes the command buffer's requirement on that part (reads before the first write
//! or layout change merge into it), resolved at submission against the device's state with
//! [`resolve`]. Every later use is compared with the part's state by [`step`], which says
//! whether a barrier is needed and with exactly which stages, accesses and layouts.
//!
//! The rules: a write waits for every earlier read and write of the part; a read waits for
//! the last write unless that write is already visible to the read's stages; a layout
//! change waits for everything before it and counts as a write of the new layout.
//!
//! A part can also be *prepared* for a use ([`Part::prepare`]): the barrier the use would
//! need is taken now (a caller batching the barriers of a whole pass ahead of it, as a
//! render graph does), and the use itself, when it comes next, needs none. A prepared read
//! is a read; a prepared write leaves the part *cleared* for the write's stages: every
//! earlier use is finished before them, so the next use, if it is a write in those stages,
//! waits for nothing more.

pub use vigil_hal::{Access, Stages, TextureLayout};

/// One use of a part by a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// Stages that access it.
    pub stages: Stages,
    /// How they access it.
    pub access: Access,
    /// The layout the use needs (`General` for buffers).
    pub layout: TextureLayout,
}

impl Use {
    /// A buffer use.
    pub const fn buffer(stages: Stages, access: Access) -> Use {
        Use {
            stages,
            access,
            layout: TextureLayout::General,
        }
    }

    /// Whether the use writes.
    #[inline]
    pub fn is_write(&self) -> bool {
        self.access.intersects(Access::WRITES)
    }
}

/// What is known of a part between uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// The last write (or layout change): its stages and accesses.
    pub write: Option<(Stages, Access)>,
    /// Stages and accesses that read the part since the last write.
    pub reads: (Stages, Access),
    /// Stages the last write is already visible to.
    pub visible: Stages,
    /// Stages every earlier use is finished before (a prepared write's, until the next
    /// use).
    pub cleared: Stages,
    /// The part's layout.
    pub layout: TextureLayout,
}

impl State {
    /// A part nothing has touched, in `layout` (`Undefined` for a new texture, `General`
    /// for a buffer).
    pub const fn fresh(layout: TextureLayout) -> State {
        State {
            write: None,
            reads: (Stages::empty(), Access::empty()),
            visible: Stages::empty(),
            cleared: Stages::empty(),
            layout,
        }
    }

    /// A state no use can skip a barrier against: `self` and `other` both happened (in
    /// some order), as the state of a whole buffer whose ranges were used differently.
    pub fn merge(self, other: State) -> State {
        let write = match (self.write, other.write) {
            (Some((s, a)), Some((t, b))) => Some((s | t, a | b)),
            (w, None) | (None, w) => w,
        };
        State {
            write,
            reads: (self.reads.0 | other.reads.0, self.reads.1 | other.reads.1),
            visible: self.visible & other.visible,
            cleared: self.cleared & other.cleared,
            layout: self.layout,
        }
    }
}

/// A barrier a part needs before a use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Stages that must finish first.
    pub src: Stages,
    /// Writes made available.
    pub src_access: Access,
    /// Stages that wait.
    pub dst: Stages,
    /// Accesses the writes are made visible to.
    pub dst_access: Access,
    /// Layout before.
    pub old_layout: TextureLayout,
    /// Layout after.
    pub new_layout: TextureLayout,
}

/// Applies `u` to a part in `state`: returns the barrier it needs, if any, and moves the
/// state on.
#[inline]
pub fn step(state: &mut State, u: Use) -> Option<Transition> {
    let relayout = state.layout != u.layout;
    let write = u.is_write();
    let (ws, wa) = state.write.unwrap_or((Stages::empty(), Access::empty()));
    let barrier = if relayout || write {
        // Everything earlier finishes first: writes (made available), reads (executed) —
        // unless a prepared write already waited for them, for these stages.
        let src = ws | state.reads.0;
        let cleared = !relayout && state.cleared.contains(u.stages);
        (relayout || !(src.is_empty() || cleared)).then_some(Transition {
            src,
            src_access: wa,
            dst: u.stages,
            dst_access: u.access,
            old_layout: state.layout,
            new_layout: u.layout,
        })
    } else if state.write.is_some() && !state.visible.contains(u.stages) {
        Some(Transition {
            src: ws,
            src_access: wa,
            dst: u.stages,
            dst_access: u.access,
            old_layout: state.layout,
            new_layout: u.layout,
        })
    } else {
        None
    };
    if write {
        *state = State {
            write: Some((u.stages, u.access)),
            reads: (Stages::empty(), Access::empty()),
            visible: Stages::empty(),
            cleared: Stages::empty(),
            layout: u.layout,
        };
    } else if relayout {
        // The transition is a write the reading stages already see.
        *state = State {
            write: Some((u.stages, Access::empty())),
            reads: (u.stages, u.access),
            visible: u.stages,
            cleared: Stages::empty(),
            layout: u.layout,
        };
    } else {
        state.reads = (state.reads.0 | u.stages, state.reads.1 | u.access);
        state.cleared = Stages::empty();
        if barrier.is_some() {
            state.visible |= u.stages;
        }
    }
    barrier
}

/// The barrier `u` needs of a part in `state` (what [`step`] returns), leaving the state
/// as it is: for a caller that sets the state after `u` itself. (`step` on a copy: once
/// inlined, the copy's updates are dead and the compiler drops them.)
#[inline(always)]
pub fn barrier_for(state: &State, u: Use) -> Option<Transition> {
    let mut scratch = *state;
    step(&mut scratch, u)
}

/// A global barrier recorded in a command buffer before the uses numbered `at`: all work
/// before it, in every stage, finished and its writes made visible to the `dst` stages.
/// A use it covers needs no barrier of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The number of the first uses after it.
    pub at: u64,
    /// Stages it makes earlier writes visible to (and that wait for earlier work).
    pub dst: Stages,
}

/// One part as a command buffer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// What the command buffer needs of the part when it starts (`None`: untouched).
    pub first: Option<Use>,
    /// Whether a write or layout change followed the first use (it no longer grows).
    pub sealed: bool,
    /// The part's state after the command buffer's uses so far.
    pub state: State,
    /// The number of the last write (or layout change) of the part (uses are numbered by
    /// the command buffer, in order; see [`Fence`]).
    pub written_at: u64,
    /// The number of the last read of the part.
    pub read_at: u64,
}

impl Part {
    /// An untouched part.
    pub const UNTOUCHED: Part = Part {
        first: None,
        sealed: false,
        state: State::fresh(TextureLayout::Undefined),
        written_at: 0,
        read_at: 0,
    };

    /// Whether two parts have the same history but for when it happened (neighbouring
    /// parts that do are merged, keeping the later numbers).
    pub fn same(&self, other: &Part) -> bool {
        self.first == other.first && self.sealed == other.sealed && self.state == other.state
    }

    /// Applies use number `now`: the first becomes (or grows) the requirement; later ones
    /// may need a barrier inside the command buffer, unless `fence` (the last global
    /// barrier) already covers them.
    pub fn apply(&mut self, u: Use, now: u64, fence: Option<Fence>) -> Option<Transition> {
        let (prior_write, prior_read) = (self.written_at, self.read_at);
        if u.is_write() || self.state.layout != u.layout {
            self.written_at = self.written_at.max(now);
        } else {
            self.read_at = self.read_at.max(now);
        }
        match &mut self.first {
            None => {
                self.first = Some(u);
                self.sealed = u.is_write();
                self.state = State {
                    write: u.is_write().then_some((u.stages, u.access)),
                    reads: if u.is_write() {
                        (Stages::empty(), Access::empty())
                    } else {
                        (u.stages, u.access)
                    },
                    visible: Stages::empty(),
                    cleared: Stages::empty(),
                    layout: u.layout,
                };
                None
            }
            Some(first) if !self.sealed && !u.is_write() && first.layout == u.layout => {
                first.stages |= u.stages;
                first.access |= u.access;
                self.state.reads = (self.state.reads.0 | u.stages, self.state.reads.1 | u.access);
                None
            }
            Some(_) => {
                self.sealed = true;
                if let Some(f) = fence.filter(|f| f.dst.contains(u.stages)) {
                    // Everything the part saw before the fence is finished and visible to
                    // this use's stages.
                    let write_covered = prior_write < f.at;
                    let reads_covered = prior_read < f.at;
                    if u.layout == self.state.layout {
                        if u.is_write() && write_covered && reads_covered {
                            self.state.write = None;
                            self.state.reads = (Stages::empty(), Access::empty());
                        } else if !u.is_write() && write_covered {
                            self.state.visible |= u.stages;
                        }
                    }
                }
                step(&mut self.state, u)
            }
        }
    }
}

impl Part {
    /// [`Part::apply`] of read `u` when it changes nothing but the number of the last read:
    /// the part is still growing its first use, which already has `u`'s stages and
    /// accesses in `u`'s layout (a uniform buffer every dispatch reads, say). `false`, the
    /// part unchanged, otherwise. Inline, so the usual repeated read makes no call.
    #[inline(always)]
    pub fn apply_repeated_read(&mut self, u: Use, now: u64) -> bool {
        let Some(first) = self.first else {
            return false;
        };
        let same = !self.sealed
            && !u.is_write()
            && first.layout == u.layout
            && self.state.layout == u.layout
            && first.stages.contains(u.stages)
            && first.access.contains(u.access)
            && self.state.reads.0.contains(u.stages)
            && self.state.reads.1.contains(u.access);
        if same {
            self.read_at = self.read_at.max(now);
        }
        same
    }
}

impl Part {
    /// Prepares the part for use `u` (number `now`): returns the barrier the use needs, as
    /// [`Part::apply`] would, and leaves the part so that `u`, when it comes next, needs
    /// none. A prepared write records a write-like point in `u`'s stages with nothing to
    /// make available (later uses in other stages wait for it, and through it for
    /// everything before), and clears the part for those stages.
    pub fn prepare(&mut self, u: Use, now: u64, fence: Option<Fence>) -> Option<Transition> {
        let barrier = self.apply(u, now, fence);
        if u.is_write() {
            self.state.write = Some((u.stages, Access::empty()));
            self.state.reads = (Stages::empty(), Access::empty());
            self.state.visible = u.stages;
            self.state.cleared = u.stages;
        }
        barrier
    }
}

/// The first "use" of a part whose contents a command buffer discards before touching it
/// (an alias activated): no layout to come from, nothing to wait for at submission.
pub const DISCARD: Use = Use {
    stages: Stages::ALL_COMMANDS,
    access: Access::empty(),
    layout: TextureLayout::Undefined,
};

impl Part {
    /// Discards the part's contents at use number `now`, just after a global barrier in
    /// every stage: the next use transitions it from `Undefined` (what Vulkan asks of an
    /// alias whose memory another resource wrote), after that barrier.
    pub fn discard(&mut self, now: u64) {
        if self.first.is_none() {
            self.first = Some(DISCARD);
        }
        self.sealed = true;
        self.state = State {
            write: Some((Stages::ALL_COMMANDS, Access::empty())),
            reads: (Stages::empty(), Access::empty()),
            visible: Stages::empty(),
            cleared: Stages::empty(),
            layout: TextureLayout::Undefined,
        };
        self.written_at = self.written_at.max(now);
    }
}

/// Every way a texture is written: shaders, attachments (and resolves), copies and clears.
/// (Host and acceleration-structure writes never reach a texture; naming them in a
/// barrier would need features the device may not have.)
pub const TEXTURE_WRITES: Access = Access::SHADER_WRITE
    .union(Access::COLOR_WRITE)
    .union(Access::DEPTH_STENCIL_WRITE)
    .union(Access::TRANSFER_WRITE);

impl Part {
    /// Takes the part for write `u` that replaces all of its contents before anything reads
    /// them (a render pass's cleared attachment), at use number `now`, when the command
    /// buffer has not used the part yet: returns the barrier to record now, which waits for
    /// every earlier command, makes every earlier write of a texture available and moves
    /// the part out of `Undefined` (so it is right whatever the device's state is at
    /// submission, and submission resolves nothing for the part), and leaves the part
    /// prepared for `u` ([`Part::prepare`]). `None`, the part unchanged, when the command
    /// buffer used it.
    pub fn overwrite(&mut self, u: Use, now: u64) -> Option<Transition> {
        if self.first.is_some() {
            return None;
        }
        self.first = Some(DISCARD);
        self.sealed = true;
        self.state = State {
            write: Some((u.stages, Access::empty())),
            reads: (Stages::empty(), Access::empty()),
            visible: u.stages,
            cleared: u.stages,
            layout: u.layout,
        };
        self.written_at = self.written_at.max(now);
        Some(Transition {
            src: Stages::ALL_COMMANDS,
            src_access: TEXTURE_WRITES,
            dst: u.stages,
            dst_access: u.access,
            old_layout: TextureLayout::Undefined,
            new_layout: u.layout,
        })
    }
}

/// Resolves a command buffer's part against the device's state when it is submitted:
/// returns the barrier that must run before the command buffer, and moves the device's
/// state to the part's state after it. `None` when the part is untouched.
#[inline]
pub fn resolve(device: &mut State, part: &Part) -> Option<Transition> {
    let first = part.first?;
    if first.layout == TextureLayout::Undefined {
        // Discarded before any use: whatever the device had is not waited for or kept.
        *device = part.state;
        return None;
    }
    if part.sealed {
        // A later write or layout change set the state after the command buffer: the
        // state after this first use is not needed.
        let barrier = barrier_for(device, first);
        *device = part.state;
        return barrier;
    }
    step(device, first)
}

/// Most parts a buffer is tracked in before its history is merged into one (see
/// [`BufferTrack`]): enough for the ranges one pass usually uses apart, few enough that
/// splitting a part stays a short move.
pub const MAX_BUFFER_PARTS: usize = 64;

/// The parts of one buffer a command buffer uses: ranges with their own history.
#[derive(Clone, Debug)]
pub struct BufferTrack {
    size: u64,
    /// Parts by start offset; each runs to the next one's start (the last to `size`).
    /// One part (a buffer used as a whole) stays inline.
    parts: smallvec::SmallVec<[(u64, Part); 1]>,
}

impl BufferTrack {
    /// An untouched buffer of `size` bytes.
    pub fn new(size: u64) -> BufferTrack {
        BufferTrack {
            size,
            parts: smallvec::smallvec![(0, Part::UNTOUCHED)],
        }
    }

    fn split_at(&mut self, at: u64) -> usize {
        match self.parts.binary_search_by_key(&at, |p| p.0) {
            Ok(i) => i,
            Err(i) => {
                let part = self.parts[i.saturating_sub(1)].1;
                self.parts.insert(i, (at, part));
                i
            }
        }
    }

    /// Applies use number `now` to `offset..offset + size` (clamped to the buffer), handing
    /// each barrier it needs (none where `fence` covers it) to `push` as `(offset, size,
    /// transition)`: the recording's list, tagged with the buffer's slot, takes them with no
    /// list of the buffer's own between.
    #[inline]
    pub fn apply_to(
        &mut self,
        offset: u64,
        size: u64,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        push: impl FnMut(u64, u64, Transition),
    ) {
        self.apply_as(offset, size, u, now, fence, false, push);
    }

    /// [`BufferTrack::apply_to`] collecting into `out` (the unit tests' form).
    #[cfg(test)]
    fn apply(
        &mut self,
        offset: u64,
        size: u64,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        out: &mut Vec<(u64, u64, Transition)>,
    ) {
        self.apply_to(offset, size, u, now, fence, |o, s, t| out.push((o, s, t)));
    }

    /// As [`BufferTrack::apply_to`], preparing the range for `u` ([`Part::prepare`]).
    pub fn prepare_to(
        &mut self,
        offset: u64,
        size: u64,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        push: impl FnMut(u64, u64, Transition),
    ) {
        self.apply_as(offset, size, u, now, fence, true, push);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn apply_as(
        &mut self,
        offset: u64,
        size: u64,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        prepare: bool,
        mut push: impl FnMut(u64, u64, Transition),
    ) {
        let step = |part: &mut Part| {
            if prepare {
                part.prepare(u, now, fence)
            } else {
                part.apply(u, now, fence)
            }
        };
        let start = offset.min(self.size);
        let end = offset.saturating_add(size).min(self.size);
        if start >= end {
            return;
        }
        // The usual case, a buffer used as a whole while it is one part: what the general
        // path below does, without its searches, splits and merges.
        // A read takes the parts it touches whole (below), so a read of a buffer that is
        // one part takes that part, wherever the range lies.
        if (start == 0 && end == self.size) || !u.is_write() {
            if let [(0, part)] = self.parts.as_mut_slice() {
                if !prepare && part.apply_repeated_read(u, now) {
                    return;
                }
                if let Some(t) = step(part) {
                    push(0, self.size, t);
                }
                return;
            }
        }
        // A write splits parts at its ends, so what it wrote is known exactly. A read takes
        // the parts it touches whole: reads never wait for reads, and taking a part as read
        // beyond the range only adds a wait to a later write there. So the many small ranges
        // a uniform buffer is read in do not each become a part.
        let (first, last) = if u.is_write() {
            let first = self.split_at(start);
            let last = if end < self.size {
                self.split_at(end)
            } else {
                self.parts.len()
            };
            (first, last)
        } else {
            let first = match self.parts.binary_search_by_key(&start, |p| p.0) {
                Ok(i) => i,
                Err(i) => i.saturating_sub(1),
            };
            let last = match self.parts.binary_search_by_key(&end, |p| p.0) {
                Ok(j) | Err(j) => j,
            };
            (first, last)
        };
        for i in first..last {
            let part_end = self
                .parts
                .get(i.saturating_add(1))
                .map_or(self.size, |p| p.0);
            if let Some(t) = step(&mut self.parts[i].1) {
                push(self.parts[i].0, part_end.saturating_sub(self.parts[i].0), t);
            }
        }
        // Neighbours that ended up identical become one part again.
        let lo = first.saturating_sub(1);
        let hi = last.saturating_add(1).min(self.parts.len());
        let mut i = lo.saturating_add(1);
        let mut end_i = hi;
        while i < end_i {
            let prev = i.saturating_sub(1);
            if self.parts[i].1.same(&self.parts[prev].1) {
                let (w, r) = (self.parts[i].1.written_at, self.parts[i].1.read_at);
                let p = &mut self.parts[prev].1;
                p.written_at = p.written_at.max(w);
                p.read_at = p.read_at.max(r);
                self.parts.remove(i);
                end_i = end_i.saturating_sub(1);
            } else {
                i = i.saturating_add(1);
            }
        }
        if self.parts.len() > MAX_BUFFER_PARTS {
            self.coarsen();
        }
    }

    /// Merges every part into one whose history covers them all: what a buffer used in
    /// more distinct ranges than [`MAX_BUFFER_PARTS`] is tracked as from then on (until new
    /// ranges split it again). Later uses may get barriers they did not strictly need,
    /// never miss one.
    fn coarsen(&mut self) {
        let mut all = self.parts.iter().map(|(_, p)| *p);
        let Some(mut merged) = all.next() else {
            return;
        };
        for p in all {
            merged.first = match (merged.first, p.first) {
                (Some(a), Some(b)) => Some(Use {
                    stages: a.stages | b.stages,
                    access: a.access | b.access,
                    layout: a.layout,
                }),
                (a, b) => a.or(b),
            };
            merged.sealed |= p.sealed;
            merged.state = merged.state.merge(p.state);
            merged.written_at = merged.written_at.max(p.written_at);
            merged.read_at = merged.read_at.max(p.read_at);
        }
        self.parts.clear();
        self.parts.push((0, merged));
    }

    /// The one part, when the buffer was used as a whole (or one way throughout).
    #[inline]
    pub fn single(&self) -> Option<&Part> {
        match self.parts.as_slice() {
            [(_, part)] => Some(part),
            _ => None,
        }
    }

    /// The buffer's size as tracked.
    #[inline]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The parts, as `(offset, size, part)`.
    pub fn parts(&self) -> impl Iterator<Item = (u64, u64, &Part)> + '_ {
        self.parts.iter().enumerate().map(|(i, (start, part))| {
            let end = self
                .parts
                .get(i.saturating_add(1))
                .map_or(self.size, |p| p.0);
            (*start, end.saturating_sub(*start), part)
        })
    }
}

/// The subresources of one texture a command buffer uses.
#[derive(Clone, Debug)]
pub struct TextureTrack {
    mips: u32,
    layers: u32,
    parts: Vec<Part>,
}

/// A rectangle of subresources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subresources {
    /// First mip level.
    pub base_mip: u32,
    /// Mip levels.
    pub mips: u32,
    /// First layer.
    pub base_layer: u32,
    /// Layers.
    pub layers: u32,
}

impl TextureTrack {
    /// An untouched texture of `mips` levels and `layers` layers.
    pub fn new(mips: u32, layers: u32) -> TextureTrack {
        let count = (mips as usize).saturating_mul(layers as usize);
        TextureTrack {
            mips,
            layers,
            parts: vec![Part::UNTOUCHED; count],
        }
    }

    /// Applies `u` to the subresources in `range` (clamped to the texture), handing each
    /// barrier they need to `push` as `(mip, layer, transition)`.
    #[inline]
    pub fn apply_to(
        &mut self,
        range: Subresources,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        push: impl FnMut(u32, u32, Transition),
    ) {
        self.apply_as(range, u, now, fence, false, push);
    }

    /// [`TextureTrack::apply_to`] collecting into `out` (the unit tests' form).
    #[cfg(test)]
    fn apply(
        &mut self,
        range: Subresources,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        out: &mut Vec<(u32, u32, Transition)>,
    ) {
        self.apply_to(range, u, now, fence, |m, l, t| out.push((m, l, t)));
    }

    /// As [`TextureTrack::apply_to`], preparing the subresources for `u`
    /// ([`Part::prepare`]).
    pub fn prepare_to(
        &mut self,
        range: Subresources,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        push: impl FnMut(u32, u32, Transition),
    ) {
        self.apply_as(range, u, now, fence, true, push);
    }

    #[inline]
    fn apply_as(
        &mut self,
        range: Subresources,
        u: Use,
        now: u64,
        fence: Option<Fence>,
        prepare: bool,
        mut push: impl FnMut(u32, u32, Transition),
    ) {
        for (mip, layer, i) in self.subresources(range) {
            let Some(part) = self.parts.get_mut(i) else {
                continue;
            };
            let t = if prepare {
                part.prepare(u, now, fence)
            } else {
                part.apply(u, now, fence)
            };
            if let Some(t) = t {
                push(mip, layer, t);
            }
        }
    }

    /// The subresources in `range` (clamped to the texture), as `(mip, layer, index of
    /// its part)`.
    fn subresources(&self, range: Subresources) -> impl Iterator<Item = (u32, u32, usize)> + use<> {
        let mip_end = range.base_mip.saturating_add(range.mips).min(self.mips);
        let layer_end = range
            .base_layer
            .saturating_add(range.layers)
            .min(self.layers);
        let layers = self.layers as usize;
        (range.base_mip..mip_end).flat_map(move |mip| {
            (range.base_layer..layer_end).map(move |layer| {
                let i = (mip as usize)
                    .saturating_mul(layers)
                    .saturating_add(layer as usize);
                (mip, layer, i)
            })
        })
    }

    /// [`Part::overwrite`] for every subresource in `range` (clamped to the texture), each
    /// barrier handed to `push` as `(mip, layer, transition)`, when the command buffer has
    /// used none of them; else changes nothing and returns `false`.
    pub fn overwrite(
        &mut self,
        range: Subresources,
        u: Use,
        now: u64,
        mut push: impl FnMut(u32, u32, Transition),
    ) -> bool {
        let mut parts = self.subresources(range).peekable();
        let untouched = parts.peek().is_some()
            && parts.all(|(_, _, i)| self.parts.get(i).is_some_and(|p| p.first.is_none()));
        if !untouched {
            return false;
        }
        for (mip, layer, i) in self.subresources(range) {
            if let Some(t) = self.parts.get_mut(i).and_then(|p| p.overwrite(u, now)) {
                push(mip, layer, t);
            }
        }
        true
    }

    /// Discards every subresource's contents at use number `now` ([`Part::discard`]).
    pub fn discard(&mut self, now: u64) {
        for part in &mut self.parts {
            part.discard(now);
        }
    }

    /// The parts, as `(mip, layer, part)`.
    pub fn parts(&self) -> impl Iterator<Item = (u32, u32, &Part)> + '_ {
        let layers = self.layers.max(1);
        self.parts.iter().enumerate().map(move |(i, p)| {
            (
                (i as u32).div_euclid(layers),
                (i as u32).rem_euclid(layers),
                p,
            )
        })
    }

    /// Mip levels and layers.
    pub fn shape(&self) -> (u32, u32) {
        (self.mips, self.layers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATTACHMENT: Use = Use {
        stages: Stages::COLOR_ATTACHMENT,
        access: Access::COLOR_READ.union(Access::COLOR_WRITE),
        layout: TextureLayout::ColorAttachment,
    };

    #[test]
    fn barrier_for_is_steps_barrier_and_a_sealed_part_resolves_as_before() {
        let compute_write = Use::buffer(
            Stages::COMPUTE,
            Access::SHADER_READ.union(Access::SHADER_WRITE),
        );
        let vertex_read = Use::buffer(Stages::VERTEX_INPUT, Access::VERTEX_READ);
        let copy_write = Use::buffer(Stages::TRANSFER, Access::TRANSFER_WRITE);
        let uses = [compute_write, vertex_read, copy_write, ATTACHMENT];
        // Every state two steps can reach from a fresh buffer or texture, against every use.
        let mut states = vec![
            State::fresh(TextureLayout::General),
            State::fresh(TextureLayout::Undefined),
        ];
        for _ in 0..2 {
            let mut next = Vec::new();
            for s in &states {
                for &u in &uses {
                    let mut t = *s;
                    step(&mut t, u);
                    next.push(t);
                }
            }
            states.extend(next);
        }
        for s in &states {
            for &u in &uses {
                let mut stepped = *s;
                let expected = step(&mut stepped, u);
                assert_eq!(barrier_for(s, u), expected, "{s:?} then {u:?}");
            }
        }
        // A sealed part at submission: the barrier of its first use, then its own state.
        let mut part = Part::UNTOUCHED;
        part.first = Some(compute_write);
        part.sealed = true;
        part.state = State::fresh(TextureLayout::General);
        part.state.write = Some((Stages::TRANSFER, Access::TRANSFER_WRITE));
        for s in &states {
            let mut device = *s;
            let mut stepped = *s;
            let expected = step(&mut stepped, compute_write);
            assert_eq!(resolve(&mut device, &part), expected);
            assert_eq!(device, part.state);
        }
    }

    #[test]
    fn an_overwritten_part_carries_its_own_barrier_and_needs_nothing_at_submission() {
        let mut part = Part::UNTOUCHED;
        let t = part.overwrite(ATTACHMENT, 1).unwrap();
        assert_eq!(t.src, Stages::ALL_COMMANDS);
        assert_eq!(t.src_access, TEXTURE_WRITES);
        assert_eq!(
            (t.dst, t.dst_access),
            (ATTACHMENT.stages, ATTACHMENT.access)
        );
        assert_eq!(
            (t.old_layout, t.new_layout),
            (TextureLayout::Undefined, TextureLayout::ColorAttachment)
        );
        // The pass's own use, applied when it ends, needs nothing more.
        assert_eq!(part.apply(ATTACHMENT, 2, None), None);
        // Whatever the device last did with it (the last frame drew into it, a copy read
        // it in another layout), submission adds no barrier and takes the pass's state.
        for before in [
            State {
                write: Some((Stages::COLOR_ATTACHMENT, Access::COLOR_WRITE)),
                reads: (Stages::empty(), Access::empty()),
                visible: Stages::empty(),
                cleared: Stages::empty(),
                layout: TextureLayout::ColorAttachment,
            },
            State {
                write: None,
                reads: (Stages::TRANSFER, Access::TRANSFER_READ),
                visible: Stages::empty(),
                cleared: Stages::empty(),
                layout: TextureLayout::TransferSrc,
            },
        ] {
            let mut device = before;
            assert_eq!(resolve(&mut device, &part), None);
            assert_eq!(device, part.state);
            assert_eq!(device.write, Some((ATTACHMENT.stages, ATTACHMENT.access)));
            assert_eq!(device.layout, TextureLayout::ColorAttachment);
        }
    }

    #[test]
    fn a_part_the_command_buffer_used_is_not_overwritten() {
        let sampled = Use {
            stages: Stages::FRAGMENT_SHADER,
            access: Access::SHADER_READ,
            layout: TextureLayout::ShaderReadOnly,
        };
        let mut part = Part::UNTOUCHED;
        assert_eq!(part.apply(sampled, 1, None), None);
        let kept = part;
        assert_eq!(part.overwrite(ATTACHMENT, 2), None);
        assert_eq!(part, kept);
        // A texture of which one subresource in the range was used: none is overwritten.
        let mut tex = TextureTrack::new(1, 2);
        let layer = |l| Subresources {
            base_mip: 0,
            mips: 1,
            base_layer: l,
            layers: 1,
        };
        let both = Subresources {
            layers: 2,
            ..layer(0)
        };
        tex.apply_to(layer(1), sampled, 1, None, |_, _, _| {});
        let mut pushed = Vec::new();
        assert!(!tex.overwrite(both, ATTACHMENT, 2, |m, l, t| pushed.push((m, l, t))));
        assert!(pushed.is_empty());
        assert!(tex.parts().all(|(_, l, p)| p.first.is_some() == (l == 1)));
        // The untouched layer alone is.
        assert!(tex.overwrite(layer(0), ATTACHMENT, 2, |m, l, t| pushed.push((m, l, t))));
        assert_eq!(pushed.len(), 1);
        assert_eq!((pushed[0].0, pushed[0].1), (0, 0));
        // An empty or outside range overwrites nothing.
        let outside = Subresources {
            base_layer: 2,
            ..layer(0)
        };
        assert!(!TextureTrack::new(1, 2).overwrite(outside, ATTACHMENT, 1, |_, _, _| {}));
    }

    #[test]
    fn a_discarded_part_needs_nothing_at_submission_and_transitions_from_undefined() {
        let sampled = Use {
            stages: Stages::FRAGMENT_SHADER,
            access: Access::SHADER_READ,
            layout: TextureLayout::ShaderReadOnly,
        };
        let write = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_WRITE,
            layout: TextureLayout::TransferDst,
        };
        let mut device = State::fresh(TextureLayout::Undefined);
        assert!(step(&mut device, sampled).is_some());
        // Discarded first: nothing at submission; the write after it waits for every stage
        // (the activation's global barrier) and comes from `Undefined`.
        let mut part = Part::UNTOUCHED;
        part.discard(1);
        let t = part.apply(write, 2, None).unwrap();
        assert_eq!(t.src, Stages::ALL_COMMANDS);
        assert_eq!(t.old_layout, TextureLayout::Undefined);
        assert_eq!(t.new_layout, TextureLayout::TransferDst);
        assert_eq!(resolve(&mut device, &part), None);
        assert_eq!(device.layout, TextureLayout::TransferDst);
        // Discarded after a use: the use is the requirement; the discard is inside.
        let mut part = Part::UNTOUCHED;
        assert_eq!(part.apply(sampled, 1, None), None);
        part.discard(2);
        let t = part.apply(write, 3, None).unwrap();
        assert_eq!(t.old_layout, TextureLayout::Undefined);
        assert_eq!(part.first, Some(sampled));
    }

    const COMPUTE_WRITE: Use = Use::buffer(Stages::COMPUTE, Access::SHADER_WRITE);
    const COMPUTE_READ: Use = Use::buffer(Stages::COMPUTE, Access::SHADER_READ);
    const COPY_READ: Use = Use::buffer(Stages::TRANSFER, Access::TRANSFER_READ);
    const COPY_WRITE: Use = Use::buffer(Stages::TRANSFER, Access::TRANSFER_WRITE);
    const VERTEX: Use = Use::buffer(Stages::VERTEX_INPUT, Access::VERTEX_READ);

    #[test]
    fn read_after_write_waits_for_the_write_with_exact_stages_and_accesses() {
        let mut s = State::fresh(TextureLayout::General);
        assert_eq!(step(&mut s, COMPUTE_WRITE), None, "nothing before it");
        let t = step(&mut s, COPY_READ).unwrap();
        assert_eq!(
            (t.src, t.src_access),
            (Stages::COMPUTE, Access::SHADER_WRITE)
        );
        assert_eq!(
            (t.dst, t.dst_access),
            (Stages::TRANSFER, Access::TRANSFER_READ)
        );
        assert_eq!(
            step(&mut s, COPY_READ),
            None,
            "already visible to transfers"
        );
        let t = step(&mut s, VERTEX).unwrap();
        assert_eq!(t.src, Stages::COMPUTE, "not yet visible to vertex input");
    }

    #[test]
    fn a_prepared_write_takes_the_barrier_its_write_would_have_needed() {
        let mut p = Part::UNTOUCHED;
        p.apply(COPY_WRITE, 1, None);
        p.apply(VERTEX, 2, None);
        // Prepared: the barrier waits for the copy and the vertex fetch, now.
        let t = p.prepare(COMPUTE_WRITE, 3, None).unwrap();
        assert_eq!(t.src, Stages::TRANSFER | Stages::VERTEX_INPUT);
        assert_eq!(t.src_access, Access::TRANSFER_WRITE);
        // The write itself needs nothing more.
        assert_eq!(p.apply(COMPUTE_WRITE, 4, None), None);
        // The clearance was for that one use: the next write waits for it.
        let t = p.apply(COMPUTE_WRITE, 5, None).unwrap();
        assert_eq!(t.src, Stages::COMPUTE);
    }

    #[test]
    fn a_use_in_other_stages_after_a_prepared_write_still_waits() {
        let mut p = Part::UNTOUCHED;
        p.apply(COPY_WRITE, 1, None);
        p.apply(VERTEX, 2, None);
        p.prepare(COMPUTE_WRITE, 3, None);
        // A copy before the prepared write comes: it waits for the point the transition
        // made in compute (which waited for everything before it).
        let t = p.apply(COPY_WRITE, 4, None).unwrap();
        assert_eq!(t.src, Stages::COMPUTE);
        // A read in another stage after the prepared write: waits too.
        let mut p = Part::UNTOUCHED;
        p.apply(COPY_WRITE, 1, None);
        p.apply(COPY_READ, 2, None);
        p.prepare(COMPUTE_WRITE, 3, None);
        assert_eq!(
            p.apply(VERTEX, 4, None).map(|t| t.src),
            Some(Stages::COMPUTE)
        );
        // A read in the prepared stages needs nothing.
        let mut p = Part::UNTOUCHED;
        p.apply(COPY_WRITE, 1, None);
        p.apply(COPY_READ, 2, None);
        p.prepare(COMPUTE_WRITE, 3, None);
        assert_eq!(p.apply(COMPUTE_READ, 4, None), None);
        // A prepared read is a read: the write after it waits for it.
        let mut p = Part::UNTOUCHED;
        p.apply(COPY_WRITE, 1, None);
        p.apply(COPY_READ, 2, None);
        let t = p.prepare(COMPUTE_READ, 3, None).unwrap();
        assert_eq!((t.src, t.dst), (Stages::TRANSFER, Stages::COMPUTE));
        assert_eq!(p.apply(COMPUTE_READ, 4, None), None);
        let t = p.apply(COMPUTE_WRITE, 5, None).unwrap();
        assert_eq!(t.src, Stages::TRANSFER | Stages::COMPUTE);
    }

    #[test]
    fn a_write_waits_for_every_read_and_write_before_it() {
        let mut s = State::fresh(TextureLayout::General);
        step(&mut s, COMPUTE_WRITE);
        step(&mut s, COPY_READ);
        step(&mut s, VERTEX);
        let t = step(&mut s, COPY_WRITE).unwrap();
        assert_eq!(
            t.src,
            Stages::COMPUTE | Stages::TRANSFER | Stages::VERTEX_INPUT,
            "write-after-read and write-after-write"
        );
        assert_eq!(
            t.src_access,
            Access::SHADER_WRITE,
            "only writes are made available"
        );
    }

    #[test]
    fn reads_share_without_barriers() {
        let mut s = State::fresh(TextureLayout::General);
        assert_eq!(step(&mut s, COPY_READ), None);
        assert_eq!(step(&mut s, VERTEX), None);
        assert_eq!(step(&mut s, COMPUTE_READ), None);
    }

    #[test]
    fn a_layout_change_waits_for_everything_and_counts_as_a_write() {
        let sampled = Use {
            stages: Stages::FRAGMENT_SHADER,
            access: Access::SHADER_READ,
            layout: TextureLayout::ShaderReadOnly,
        };
        let copy_dst = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_WRITE,
            layout: TextureLayout::TransferDst,
        };
        let mut s = State::fresh(TextureLayout::Undefined);
        let t = step(&mut s, copy_dst).unwrap();
        assert_eq!(
            (t.old_layout, t.new_layout),
            (TextureLayout::Undefined, TextureLayout::TransferDst)
        );
        let t = step(&mut s, sampled).unwrap();
        assert_eq!(
            (t.src, t.src_access),
            (Stages::TRANSFER, Access::TRANSFER_WRITE)
        );
        assert_eq!(t.new_layout, TextureLayout::ShaderReadOnly);
        let compute_sampled = Use {
            stages: Stages::COMPUTE,
            ..sampled
        };
        let t = step(&mut s, compute_sampled).unwrap();
        assert_eq!(
            t.src,
            Stages::FRAGMENT_SHADER,
            "waits for the transition's stages"
        );
        assert_eq!(t.old_layout, t.new_layout);
    }

    #[test]
    fn a_command_buffers_first_reads_merge_into_its_requirement() {
        let mut p = Part::UNTOUCHED;
        assert_eq!(p.apply(COPY_READ, 1, None), None);
        assert_eq!(p.apply(VERTEX, 1, None), None);
        assert_eq!(
            p.first.unwrap().stages,
            Stages::TRANSFER | Stages::VERTEX_INPUT
        );
        let t = p.apply(COMPUTE_WRITE, 1, None).unwrap();
        assert_eq!(t.src, Stages::TRANSFER | Stages::VERTEX_INPUT);
        assert!(p.sealed);
        assert_eq!(p.apply(COPY_READ, 1, None).unwrap().src, Stages::COMPUTE);
        assert_eq!(
            p.first.unwrap().stages,
            Stages::TRANSFER | Stages::VERTEX_INPUT
        );
    }

    #[test]
    fn submission_resolves_the_requirement_against_the_device_state() {
        let mut device = State::fresh(TextureLayout::General);
        step(&mut device, COMPUTE_WRITE);
        let mut p = Part::UNTOUCHED;
        p.apply(VERTEX, 1, None);
        let t = resolve(&mut device, &p).unwrap();
        assert_eq!((t.src, t.dst), (Stages::COMPUTE, Stages::VERTEX_INPUT));
        // Only reads: the device keeps the write, now visible to vertex input.
        assert_eq!(device.write.unwrap().0, Stages::COMPUTE);
        assert!(device.visible.contains(Stages::VERTEX_INPUT));
        let mut q = Part::UNTOUCHED;
        q.apply(VERTEX, 1, None);
        assert_eq!(resolve(&mut device, &q), None, "visible already");
        let mut w = Part::UNTOUCHED;
        w.apply(COPY_WRITE, 1, None);
        w.apply(COPY_READ, 1, None);
        assert!(resolve(&mut device, &w).is_some());
        assert_eq!(
            device, w.state,
            "a sealed part's state becomes the device's"
        );
    }

    #[test]
    fn buffer_ranges_are_tracked_apart_and_merge_back() {
        let mut b = BufferTrack::new(256);
        let mut out = Vec::new();
        b.apply(0, 128, COMPUTE_WRITE, 1, None, &mut out);
        b.apply(128, 128, COMPUTE_WRITE, 1, None, &mut out);
        assert!(out.is_empty(), "disjoint ranges do not wait for each other");
        assert_eq!(b.parts().count(), 1, "identical neighbours merged");
        b.apply(0, 64, COPY_WRITE, 2, None, &mut out);
        assert_eq!(
            out,
            vec![(0, 64, out[0].2)],
            "a write splits at its ends and waits for what was there"
        );
        assert_eq!(b.parts().count(), 2);
        // A read takes the parts it touches whole: it does not split them.
        b.apply(8, 16, COMPUTE_READ, 3, None, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].0, out[1].1), (0, 64), "the part read, whole");
        assert_eq!(b.parts().count(), 2);
        b.apply(0, 256, COMPUTE_WRITE, 4, None, &mut out);
        assert_eq!(out.len(), 4, "one barrier per part");
        assert_eq!(b.parts().count(), 1);
        b.apply(300, 8, COPY_READ, 5, None, &mut out);
        assert_eq!(out.len(), 4, "outside the buffer: nothing");
    }

    #[test]
    fn a_buffer_used_whole_keeps_one_part_and_gets_whole_barriers() {
        let mut b = BufferTrack::new(256);
        let mut out = Vec::new();
        b.apply(0, 256, COMPUTE_WRITE, 1, None, &mut out);
        assert!(
            out.is_empty(),
            "a first use is the command buffer's requirement"
        );
        b.apply(0, 300, COPY_READ, 2, None, &mut out);
        b.apply(0, 256, COMPUTE_WRITE, 3, None, &mut out);
        assert_eq!(
            out.iter().map(|(o, s, _)| (*o, *s)).collect::<Vec<_>>(),
            [(0, 256), (0, 256)],
            "read after write, then write after read, each over the whole buffer"
        );
        let mut split = BufferTrack::new(256);
        let mut expect = Vec::new();
        split.apply(0, 128, COMPUTE_WRITE, 1, None, &mut expect);
        split.apply(128, 128, COMPUTE_WRITE, 1, None, &mut expect);
        split.apply(0, 256, COPY_READ, 2, None, &mut expect);
        split.apply(0, 256, COMPUTE_WRITE, 3, None, &mut expect);
        assert_eq!(
            out, expect,
            "the same as a buffer that reached one part by merging"
        );
        assert_eq!(b.parts().count(), 1);
    }

    #[test]
    fn a_buffer_written_in_many_ranges_is_merged_into_one_part() {
        let mut b = BufferTrack::new(4096);
        let mut out = Vec::new();
        for i in 0..100u64 {
            b.apply(i * 32, 16, COMPUTE_WRITE, i, None, &mut out);
        }
        assert!(b.parts().count() <= MAX_BUFFER_PARTS);
        // The merged history still orders a read of any written range after the writes.
        out.clear();
        b.apply(99 * 32, 16, COPY_READ, 200, None, &mut out);
        assert!(!out.is_empty());
    }

    #[test]
    fn texture_subresources_are_tracked_apart() {
        let mut t = TextureTrack::new(3, 2);
        let mut out = Vec::new();
        let dst = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_WRITE,
            layout: TextureLayout::TransferDst,
        };
        let src = Use {
            stages: Stages::TRANSFER,
            access: Access::TRANSFER_READ,
            layout: TextureLayout::TransferSrc,
        };
        let all = Subresources {
            base_mip: 0,
            mips: 3,
            base_layer: 0,
            layers: 2,
        };
        t.apply(all, dst, 1, None, &mut out);
        let one = Subresources {
            base_mip: 1,
            mips: 1,
            base_layer: 1,
            layers: 1,
        };
        t.apply(one, src, 1, None, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].0, out[0].1), (1, 1));
        let firsts: Vec<_> = t
            .parts()
            .filter(|(_, _, p)| p.first.is_some())
            .map(|(m, l, _)| (m, l))
            .collect();
        assert_eq!(firsts.len(), 6);
    }

    #[test]
    fn a_global_barrier_covers_what_came_before_it() {
        let mut a = Part::UNTOUCHED;
        let mut b = Part::UNTOUCHED;
        a.apply(COMPUTE_WRITE, 1, None);
        b.apply(COMPUTE_WRITE, 2, None);
        // Use 3 reads `a`: a barrier, recorded as a global one (a fence before use 3).
        assert!(a.apply(COMPUTE_READ, 3, None).is_some());
        let fence = Some(Fence {
            at: 3,
            dst: Stages::COMPUTE,
        });
        // `b` was written before the fence: reading and writing it again need nothing more.
        assert_eq!(b.apply(COMPUTE_READ, 4, fence), None);
        assert!(
            b.apply(COMPUTE_WRITE, 5, fence).is_some(),
            "its read (4) came after the fence"
        );
        let mut c = Part::UNTOUCHED;
        c.apply(COMPUTE_WRITE, 1, None);
        c.apply(COMPUTE_READ, 2, None);
        assert_eq!(
            c.apply(COMPUTE_WRITE, 4, fence),
            None,
            "write and read both before the fence"
        );
        // A stage the fence does not reach still waits.
        let mut d = Part::UNTOUCHED;
        d.apply(COMPUTE_WRITE, 1, None);
        d.apply(COMPUTE_WRITE, 2, None);
        assert!(d.apply(COPY_READ, 4, fence).is_some());
    }

    #[test]
    fn a_repeated_read_taken_inline_leaves_what_apply_would() {
        // Every sequence of up to three uses from a mixed set, then every use once more:
        // where the inline path takes the last use, the part is what `apply` makes of it
        // (and `apply` would have needed no barrier).
        let uses = [
            Use::buffer(Stages::COMPUTE, Access::UNIFORM_READ),
            Use::buffer(Stages::COMPUTE, Access::SHADER_READ),
            Use::buffer(Stages::FRAGMENT_SHADER, Access::SHADER_READ),
            Use::buffer(Stages::COMPUTE, Access::SHADER_READ | Access::SHADER_WRITE),
            Use::buffer(Stages::TRANSFER, Access::TRANSFER_READ),
            Use {
                stages: Stages::FRAGMENT_SHADER,
                access: Access::SHADER_READ,
                layout: TextureLayout::ShaderReadOnly,
            },
        ];
        let mut taken = 0;
        let n = uses.len();
        for len in 0..=3u32 {
            for code in 0..n.pow(len) {
                let mut part = Part::UNTOUCHED;
                let mut c = code;
                for at in 0..len {
                    part.apply(uses[c % n], u64::from(at) + 1, None);
                    c /= n;
                }
                for &u in &uses {
                    let mut inline = part;
                    let mut applied = part;
                    let barrier = applied.apply(u, 10, None);
                    if inline.apply_repeated_read(u, 10) {
                        taken += 1;
                        assert_eq!(inline, applied, "{u:?} after sequence {code} of {len}");
                        assert_eq!(barrier, None);
                    } else {
                        assert_eq!(inline, part, "refused and changed");
                    }
                }
            }
        }
        assert!(taken > 0);
    }
}
