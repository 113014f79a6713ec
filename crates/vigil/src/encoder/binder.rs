//! What a pass has bound, checked incrementally: a group is checked against the pipeline
//! when either changes, so a draw or dispatch only tests a bit mask, and native binds are
//! issued once per change, right before the draw or dispatch that needs them.

use super::used::{GroupInfo, MemberKind, MemberUse, Seen, Used};
use crate::device::{BindGroupObj, LateSizeCheck, Member, PipelineInfo};
use crate::track::Use;
use vigil_hal::{Api, BindPoint, Stages};

/// Most bind groups vigil tracks per pipeline.
pub(crate) const MAX_GROUPS: usize = 8;
/// Most dynamic offsets per bind group.
pub(crate) const MAX_DYNAMIC: usize = crate::validate::binding::MAX_DYNAMIC_OFFSETS;

/// One bind group slot of a pass.
#[derive(Clone, Debug, Default)]
pub(crate) struct BoundGroup {
    /// `(slot, generation)` of the group.
    pub group: Option<(u32, u32)>,
    pub offsets: [u32; MAX_DYNAMIC],
    pub offset_count: u8,
    /// What the recording keeps of it (`Used::group_info`).
    pub info: usize,
}

impl BoundGroup {
    /// The recording's record of the group bound here (`None` when none is).
    #[inline]
    pub fn record<'u, K>(&self, records: &'u [GroupInfo<K>]) -> Option<&'u GroupInfo<K>> {
        self.group.and(records.get(self.info))
    }
}

/// Bind group slots of a pass and the pipeline they are checked against.
#[derive(Clone, Debug, Default)]
pub(crate) struct Binder {
    pub groups: [BoundGroup; MAX_GROUPS],
    /// `(slot, generation)` of the pipeline.
    pub pipeline: Option<(u32, u32)>,
    /// Address of the pipeline's layout object: groups are bound again when it changes.
    layout: usize,
    /// Groups the pipeline uses.
    pub count: usize,
    /// Their mask: `mask(count)`.
    need: u8,
    compat: [u32; MAX_GROUPS],
    late: Vec<LateSizeCheck>,
    /// Groups `late` has checks for.
    late_groups: u8,
    /// The bound pipeline's late checks by address (unique while the recording holds the
    /// pipeline): what a group that met them remembers.
    late_key: usize,
    /// Groups to bind natively before the next draw or dispatch.
    pub dirty: u8,
    /// Groups known to fit the pipeline.
    ok: u8,
    /// Groups set since their uses were last added to a scope (render passes).
    pub touched: u8,
    /// The pass's immediate data: zero until set (grown to what was set).
    immediates: Vec<u8>,
    /// The pipeline layout's immediate size.
    immediate_size: u32,
    /// Immediate data to push before the next draw or dispatch.
    immediates_dirty: bool,
    /// The bound pipeline is a pointer pipeline (its root comes from `set_root`).
    pub pointer: bool,
    /// A root was set in this pass (and no immediate write covered it since).
    pub root_set: bool,
    /// Heaps the bound pointer pipeline's shaders index: bit 0 textures, bit 1 samplers.
    pub heaps_needed: u8,
    /// The texture and sampler heaps set in this pass, as indexes of the recording's
    /// `texture_heaps` and `sampler_heaps`.
    pub heaps: [Option<usize>; 2],
    /// Heaps to bind natively before the next draw or dispatch.
    pub heaps_dirty: u8,
}

#[inline]
pub(crate) fn mask(count: usize) -> u8 {
    // At most 8 groups: the mask of the lowest `count` bits fits a u8.
    u8::MAX
        .checked_shr(u32::try_from(MAX_GROUPS.saturating_sub(count)).unwrap_or(8))
        .unwrap_or(0)
}

impl Binder {
    fn group<'u, A: Api>(
        &self,
        groups: &'u Seen<BindGroupObj<A>>,
        g: usize,
    ) -> Option<&'u std::sync::Arc<BindGroupObj<A>>> {
        let (i, generation) = self.groups.get(g)?.group?;
        groups.get(i, generation)
    }

    /// Whether the group at `g` fits the pipeline: compatible layout, late sizes met.
    fn fits<A: Api>(&self, used: &Used<A>, g: usize) -> bool {
        let Some(info) = self.groups.get(g).and_then(|b| b.record(&used.group_info)) else {
            return false;
        };
        if self.compat.get(g) != Some(&info.compat) {
            return false;
        }
        let sizes = used
            .group_sizes
            .get(info.sizes..info.sizes.saturating_add(info.len_sizes as usize))
            .unwrap_or(&[]);
        self.late.iter().filter(|c| c.group as usize == g).all(|c| {
            sizes
                .get(c.entry as usize)
                .is_some_and(|&size| size >= c.min)
        })
    }

    /// Whether the group whose record is `info` met this pipeline's late size checks
    /// before (its record remembers the last checks it met): the common case, inline.
    #[inline(always)]
    fn met_late<A: Api>(&self, used: &Used<A>, info: usize) -> bool {
        used.group_info
            .get(info)
            .is_some_and(|i| i.fits_checks == self.late_key)
    }

    /// [`Binder::fits`] for a group just set that did not meet this pipeline's late
    /// checks before ([`Binder::met_late`]), remembering them in the group's record when
    /// it fits.
    #[inline(never)]
    fn fits_late<A: Api>(&self, used: &mut Used<A>, g: usize, info: usize) -> bool {
        let fits = self.fits(used, g);
        if fits {
            if let Some(i) = used.group_info.get_mut(info) {
                i.fits_checks = self.late_key;
            }
        }
        fits
    }

    /// Binds a pipeline.
    pub fn set_pipeline<A: Api>(
        &mut self,
        used: &Used<A>,
        key: (u32, u32),
        info: &PipelineInfo<A>,
    ) {
        let layout = std::sync::Arc::as_ptr(&info.layout) as usize;
        let changed = self.pipeline.is_none() || self.layout != layout;
        self.pipeline = Some(key);
        self.layout = layout;
        self.pointer = info.pointer;
        self.heaps_needed = info.heaps;
        if changed {
            // Another layout (an ordinary pipeline's groups may have replaced sets 1 and
            // 2): the heaps set are bound again.
            self.heaps_dirty = 0b11;
        }
        self.count = info.group_compat.len().min(MAX_GROUPS);
        self.need = mask(self.count);
        self.compat = [0; MAX_GROUPS];
        for (c, &v) in self.compat.iter_mut().zip(info.group_compat.iter()) {
            *c = v;
        }
        self.late.clear();
        self.late.extend_from_slice(&info.late_checks);
        self.late_key = info.late_checks.as_ptr() as usize;
        self.late_groups = info
            .late_checks
            .iter()
            .fold(0, |m, c| m | 1u8.checked_shl(c.group).unwrap_or(0));
        let size = info.layout.immediate_size;
        if changed && size > 0 {
            // Another layout: its immediate data is pushed again (zeros where unset).
            self.immediates_dirty = true;
        }
        self.immediate_size = size;
        if changed {
            // Another layout: every bound group must be bound again against it.
            self.dirty = self.groups.iter().enumerate().fold(0, |m, (i, g)| {
                if g.group.is_some() { m | (1 << i) } else { m }
            });
        }
        self.ok = 0;
        for g in 0..self.count {
            if self.fits(used, g) {
                self.ok |= 1 << g;
            }
        }
    }

    /// Sets group `g` (`info`: its index in `Used::group_info`, `compat`: its layout's
    /// compatibility class); returns false when it was already bound with these offsets.
    /// Inlined into both of `set_bind_group`'s paths: the short one is mostly this.
    #[inline(always)]
    pub fn set_group<A: Api>(
        &mut self,
        used: &mut Used<A>,
        g: usize,
        key: (u32, u32),
        info: usize,
        compat: u32,
        offsets: &[u32],
    ) -> bool {
        let Some(slot) = self.groups.get_mut(g) else {
            return false;
        };
        let same_offsets = slot.offset_count as usize == offsets.len()
            && (offsets.is_empty() || slot.offsets.get(..offsets.len()) == Some(offsets));
        if slot.group == Some(key) && same_offsets {
            return false;
        }
        slot.group = Some(key);
        slot.info = info;
        if !offsets.is_empty() || slot.offset_count != 0 {
            slot.offset_count = offsets.len().min(MAX_DYNAMIC) as u8;
            for (o, &v) in slot.offsets.iter_mut().zip(offsets) {
                *o = v;
            }
        }
        let bit = 1u8 << g;
        self.dirty |= bit;
        self.touched |= bit;
        if self.pipeline.is_some() && self.need & bit != 0 {
            // The layout's class decides unless the pipeline has late size checks here;
            // a group that met this pipeline's checks before is not checked again (the
            // recording's copy of its sizes does not change).
            let fits = self.compat.get(g) == Some(&compat)
                && (self.late_groups & bit == 0
                    || self.met_late(used, info)
                    || self.fits_late(used, g, info));
            if fits {
                self.ok |= bit;
            } else {
                self.ok &= !bit;
            }
        }
        true
    }

    /// Sets immediate data at `offset` (checked against the limit by the caller).
    pub fn set_immediates(&mut self, offset: usize, data: &[u8]) {
        let end = offset.saturating_add(data.len());
        if offset < vigil_shader::glsl::ROOT_SIZE as usize && end > offset {
            // Bytes of the root overwritten: a pointer pipeline needs `set_root` again.
            self.root_set = false;
        }
        if self.immediates.len() < end {
            self.immediates.resize(end, 0);
        }
        if let Some(dst) = self.immediates.get_mut(offset..end) {
            dst.copy_from_slice(data);
        }
        self.immediates_dirty = true;
    }

    /// Sets the root (the first 8 bytes of immediate data) and marks it set.
    #[inline]
    pub fn set_root(&mut self, address: u64) {
        const ROOT: usize = vigil_shader::glsl::ROOT_SIZE as usize;
        if self.immediates.len() < ROOT {
            self.immediates.resize(ROOT, 0);
        }
        if let Some(dst) = self.immediates.get_mut(..ROOT) {
            dst.copy_from_slice(&address.to_le_bytes());
        }
        self.immediates_dirty = true;
        self.root_set = true;
    }

    /// Whether a draw of the bound pointer pipeline needs nothing bound natively but its
    /// root: a pointer pipeline is bound, its groups fit and none is left to bind or to
    /// add to the pass's scope, the heaps its shaders index are set and bound, and the
    /// immediate data holds a root (see [`Binder::push_root`]).
    #[inline]
    pub fn root_only(&self) -> bool {
        const ROOT: usize = vigil_shader::glsl::ROOT_SIZE as usize;
        let heaps = u8::from(self.heaps[0].is_some()) | u8::from(self.heaps[1].is_some()) << 1;
        self.pointer
            && self.pipeline.is_some()
            && self.ok & self.need == self.need
            && (self.dirty | self.touched) & self.need == 0
            && self.heaps_dirty == 0
            && self.heaps_needed & !heaps == 0
            && self.immediates.len() >= (self.immediate_size as usize).max(ROOT)
    }

    /// Sets the root to `address` and pushes the immediate data natively at once, for the
    /// draws of a run of `draw_root` after its first: what [`Binder::set_root`] and the next
    /// [`Binder::flush`] would do while the state [`Binder::root_only`] found at the run's
    /// first draw still holds (no other call came between). The immediate data is then long
    /// enough, the root already counts as set and nothing is left dirty, so only the root's
    /// bytes change. `false`, with nothing changed or recorded, when the data is shorter
    /// than that state promises (the caller takes the checked path).
    #[inline(always)]
    pub fn push_root<A: Api>(
        &mut self,
        address: u64,
        layout: &A::PipelineLayout,
        rec: &mut crate::native::Rec<'_, A>,
    ) -> bool {
        const ROOT: usize = vigil_shader::glsl::ROOT_SIZE as usize;
        let size = self.immediate_size as usize;
        let Some(bytes) = self.immediates.get_mut(..size.max(ROOT)) else {
            return false;
        };
        if let Some(root) = bytes.get_mut(..ROOT) {
            root.copy_from_slice(&address.to_le_bytes());
        }
        rec.set_immediates(layout, bytes.get(..size).unwrap_or(&[]));
        true
    }

    /// Pushes the pass's immediate data (the layout's size of it, zeros where unset).
    #[inline(always)]
    fn push_immediates<A: Api>(
        &mut self,
        layout: &A::PipelineLayout,
        rec: &mut crate::native::Rec<'_, A>,
    ) {
        let size = self.immediate_size as usize;
        if self.immediates.len() < size {
            self.immediates.resize(size, 0);
        }
        rec.set_immediates(layout, self.immediates.get(..size).unwrap_or(&[]));
        self.immediates_dirty = false;
    }

    /// The immediate data the next flush would push (the pipeline's whole size of it,
    /// zeros where unset), marked pushed; `None` when there is none to push. For a render
    /// bundle's recording, which has no native recording to push it in.
    pub fn take_immediates(&mut self) -> Option<Box<[u8]>> {
        if !self.immediates_dirty || self.immediate_size == 0 {
            return None;
        }
        let size = self.immediate_size as usize;
        if self.immediates.len() < size {
            self.immediates.resize(size, 0);
        }
        self.immediates_dirty = false;
        self.immediates.get(..size).map(Box::from)
    }

    /// Marks everything the pipeline uses to be bound again at the next flush (after
    /// vigil's own pipeline replaced the pass's natively).
    pub fn rebind_all(&mut self) {
        self.dirty |= self.need;
        self.immediates_dirty = true;
        if self.pointer {
            self.heaps_dirty = 3;
        }
    }

    /// Whether a pipeline is bound and every group it uses fits it.
    #[inline]
    pub fn ready(&self) -> bool {
        self.pipeline.is_some() && self.ok & self.need == self.need
    }

    /// Whether [`Binder::flush`] has anything to bind.
    #[inline]
    pub fn needs_flush(&self) -> bool {
        self.dirty & self.need != 0
            || (self.immediates_dirty && self.immediate_size > 0)
            || (self.pointer && self.heaps_dirty != 0)
    }

    /// Binds natively the groups the pipeline uses that changed.
    #[inline(always)]
    pub fn flush<A: Api>(
        &mut self,
        used: &Used<A>,
        layout: &A::PipelineLayout,
        rec: &mut crate::native::Rec<'_, A>,
        point: BindPoint,
    ) {
        if self.immediates_dirty && self.immediate_size > 0 {
            self.push_immediates(layout, rec);
        }
        if self.pointer && self.heaps_dirty != 0 {
            self.flush_heaps(used, layout, rec, point);
        }
        let dirty = self.dirty & self.need;
        if dirty == 0 {
            return;
        }
        let mut left = dirty;
        while left != 0 {
            let g = left.trailing_zeros() as usize;
            left &= left.wrapping_sub(1);
            let bound = &self.groups[g];
            // The key kept in the recording's record of the group: the group object is
            // not read.
            let key = bound.record(&used.group_info).map(|i| i.key);
            if let Some(key) = key {
                rec.set_bind_group(
                    point,
                    layout,
                    g as u32,
                    key,
                    bound
                        .offsets
                        .get(..bound.offset_count as usize)
                        .unwrap_or(&[]),
                );
            }
        }
        self.dirty &= !dirty;
    }

    /// Binds the heaps set in this pass at sets 1 (textures) and 2 (samplers) of the
    /// pointer pipelines' layout.
    #[cold]
    fn flush_heaps<A: Api>(
        &mut self,
        used: &Used<A>,
        layout: &A::PipelineLayout,
        rec: &mut crate::native::Rec<'_, A>,
        point: BindPoint,
    ) {
        if self.heaps_dirty & 1 != 0 {
            if let Some(h) = self.heaps[0].and_then(|i| used.texture_heaps.get(i)) {
                rec.set_bind_group(point, layout, 1, A::bind_group_key(&h.raw), &[]);
            }
        }
        if self.heaps_dirty & 2 != 0 {
            if let Some(h) = self.heaps[1].and_then(|i| used.sampler_heaps.get(i)) {
                rec.set_bind_group(point, layout, 2, A::bind_group_key(&h.raw), &[]);
            }
        }
        self.heaps_dirty = 0;
    }

    /// Mask of the groups the pipeline uses.
    #[inline]
    pub fn used_mask(&self) -> u8 {
        self.need
    }

    /// The label of a texture group `g` names that an activation in this recording made
    /// inactive (see [`super::used::TrackedTexture::retired`]).
    #[cold]
    pub fn retired_member<'u, A: Api>(&self, used: &'u Used<A>, g: usize) -> Option<&'u str> {
        let (_, recs) = self.members(used, g)?;
        recs.iter()
            .filter(|r| r.kind == MemberKind::View)
            .find_map(|r| used.tracker.retired(r.slot()))
    }

    /// What the recording keeps of group `g`'s members (`None` when no group is bound
    /// there), with the group's binding (its dynamic offsets).
    #[inline]
    fn members<'s, 'u, A: Api>(
        &'s self,
        used: &'u Used<A>,
        g: usize,
    ) -> Option<(&'s BoundGroup, &'u [MemberUse])> {
        let bound = self.groups.get(g)?;
        bound.group?;
        let recs = bound
            .record(&used.group_info)
            .map_or(&[][..], |i| i.members(&used.member_uses));
        Some((bound, recs))
    }

    /// Adds the uses of group `g`'s members, seen from `stages`, to a scope. `Err` names
    /// the member's label when it conflicts with another use in the scope.
    pub fn scope_group<A: Api>(
        &self,
        used: &Used<A>,
        scope: &mut super::scope::Scope,
        g: usize,
        stages: Stages,
    ) -> Result<(), String> {
        let Some((bound, recs)) = self.members(used, g) else {
            return Ok(());
        };
        for (k, rec) in recs.iter().enumerate() {
            let Some(u) = seen_from(rec.usage(), stages) else {
                continue;
            };
            match rec.kind {
                MemberKind::Buffer => {
                    if scope
                        .buffer(rec.slot(), rec.start(bound), rec.size, u)
                        .is_err()
                    {
                        return Err(match self.member(used, g, k) {
                            Some(Member::Buffer { buffer, .. }) => {
                                format!("buffer '{}'", buffer.label)
                            }
                            _ => "a buffer".to_owned(),
                        });
                    }
                }
                MemberKind::View => {
                    let Some(Member::View { view, .. }) = self.member(used, g, k) else {
                        continue;
                    };
                    if scope.texture(rec.slot(), view.subresources(), u).is_err() {
                        return Err(format!("texture '{}'", view.texture.label));
                    }
                }
                MemberKind::Untracked => {}
            }
        }
        Ok(())
    }

    /// Member `k` of the group bound at `g`, from the group's own object.
    fn member<'u, A: Api>(&self, used: &'u Used<A>, g: usize, k: usize) -> Option<&'u Member<A>> {
        self.group(&used.groups, g)?.members.get(k)
    }
}

/// A member's use restricted to the stages of the pass (`None` when it is not visible
/// there).
#[inline]
pub(crate) fn seen_from(u: Use, stages: Stages) -> Option<Use> {
    let s = u.stages & stages;
    (!s.is_empty()).then_some(Use { stages: s, ..u })
}
