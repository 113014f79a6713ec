//! What a pass has bound, checked incrementally: a group is checked against the pipeline
//! when either changes, so a draw or dispatch only tests a bit mask, and native binds are
//! issued once per change, right before the draw or dispatch that needs them.

use crate::device::{DeviceState, LateSizeCheck, PipelineInfo};
use vigil_hal::{Api, BindPoint};

/// Most bind groups vigil tracks per pipeline.
pub(crate) const MAX_GROUPS: usize = 8;
/// Most dynamic offsets per bind group.
pub(crate) const MAX_DYNAMIC: usize = 16;

/// One bind group slot of a pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BoundGroup {
    pub group: Option<(u32, u32)>,
    pub offsets: [u32; MAX_DYNAMIC],
    pub offset_count: u8,
}

/// Bind group slots of a pass and the pipeline they are checked against.
#[derive(Clone, Debug, Default)]
pub(crate) struct Binder {
    pub groups: [BoundGroup; MAX_GROUPS],
    pub pipeline: Option<(u32, u32)>,
    /// Pipeline layout slot of the pipeline.
    pub layout: u32,
    /// Groups the pipeline uses.
    pub count: usize,
    compat: [u32; MAX_GROUPS],
    late: Vec<LateSizeCheck>,
    /// Groups to bind natively before the next draw or dispatch.
    pub dirty: u8,
    /// Groups known to fit the pipeline.
    ok: u8,
    /// Groups set since their accesses were last recorded (render passes).
    pub touched: u8,
}

#[inline]
fn mask(count: usize) -> u8 {
    // At most 8 groups: the mask of the lowest `count` bits fits a u8.
    u8::MAX
        .checked_shr(u32::try_from(MAX_GROUPS.saturating_sub(count)).unwrap_or(8))
        .unwrap_or(0)
}

impl Binder {
    /// Whether the group at `g` fits the pipeline: compatible layout, late sizes met.
    fn fits<A: Api>(&self, st: &DeviceState<A>, g: usize) -> bool {
        let Some(group) = self.groups[g]
            .group
            .and_then(|(i, _)| st.bind_groups.slot(i))
            .and_then(|s| s.value.as_ref())
        else {
            return false;
        };
        group.compat == self.compat[g]
            && self.late.iter().filter(|c| c.group as usize == g).all(|c| {
                group
                    .sizes
                    .get(c.entry as usize)
                    .is_some_and(|&size| size >= c.min)
            })
    }

    /// Binds a pipeline; returns whether its layout differs from the last one.
    pub fn set_pipeline<A: Api>(
        &mut self,
        st: &DeviceState<A>,
        key: (u32, u32),
        info: &PipelineInfo,
    ) -> bool {
        let changed = self.pipeline.is_none() || self.layout != info.layout.0;
        self.pipeline = Some(key);
        self.layout = info.layout.0;
        self.count = info.group_compat.len().min(MAX_GROUPS);
        self.compat = [0; MAX_GROUPS];
        self.compat[..self.count].copy_from_slice(&info.group_compat[..self.count]);
        self.late.clear();
        self.late.extend_from_slice(&info.late_checks);
        if changed {
            // Another layout: every bound group must be bound again against it.
            self.dirty = self.groups.iter().enumerate().fold(0, |m, (i, g)| {
                if g.group.is_some() { m | (1 << i) } else { m }
            });
        }
        self.ok = 0;
        for g in 0..self.count {
            if self.fits(st, g) {
                self.ok |= 1 << g;
            }
        }
        changed
    }

    /// Sets group `g`; returns false when it was already bound with these offsets.
    pub fn set_group<A: Api>(
        &mut self,
        st: &DeviceState<A>,
        g: usize,
        key: (u32, u32),
        offsets: &[u32],
    ) -> bool {
        let slot = &mut self.groups[g];
        if slot.group == Some(key) && slot.offsets[..slot.offset_count as usize] == *offsets {
            return false;
        }
        slot.group = Some(key);
        slot.offset_count = offsets.len() as u8;
        slot.offsets[..offsets.len()].copy_from_slice(offsets);
        self.dirty |= 1 << g;
        self.touched |= 1 << g;
        if self.pipeline.is_some() && g < self.count {
            if self.fits(st, g) {
                self.ok |= 1 << g;
            } else {
                self.ok &= !(1 << g);
            }
        }
        true
    }

    /// Whether a pipeline is bound and every group it uses fits it.
    #[inline]
    pub fn ready(&self) -> bool {
        let need = mask(self.count);
        self.pipeline.is_some() && self.ok & need == need
    }

    /// Binds natively the groups the pipeline uses that changed.
    #[inline]
    pub fn flush<A: Api>(
        &mut self,
        st: &DeviceState<A>,
        raw: Option<&mut A::CommandEncoder>,
        point: BindPoint,
    ) {
        let dirty = self.dirty & mask(self.count);
        if dirty == 0 {
            return;
        }
        if let (Some(raw), Some(layout)) = (
            raw,
            st.pipeline_layouts
                .slot(self.layout)
                .and_then(|s| s.value.as_ref()),
        ) {
            for g in 0..self.count {
                if dirty & (1 << g) == 0 {
                    continue;
                }
                let bound = &self.groups[g];
                if let Some(group) = bound
                    .group
                    .and_then(|(i, _)| st.bind_groups.slot(i))
                    .and_then(|s| s.value.as_ref())
                {
                    crate::native::Rec::<A>(&mut *raw).set_bind_group(
                        point,
                        &layout.raw,
                        g as u32,
                        &group.raw,
                        &bound.offsets[..bound.offset_count as usize],
                    );
                }
            }
        }
        self.dirty &= !dirty;
    }

    /// Mask of the groups the pipeline uses.
    #[inline]
    pub fn used_mask(&self) -> u8 {
        mask(self.count)
    }
}
