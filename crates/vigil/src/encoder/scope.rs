//! A usage scope: every use of every resource by one render pass (or one dispatch), merged
//! per buffer and per texture subresource range. Uses in one scope are not ordered against
//! each other, so a scope refuses a resource used in ways that would need ordering
//! (written one way and read or written another); the merged uses are applied to the
//! command buffer's tracker at once, before the scope's commands.

use super::used::{Pending, Used};
use crate::track::{Subresources, Use};
use vigil_hal::Api;

/// The merged uses of one scope.
#[derive(Default)]
pub(crate) struct Scope {
    /// Per buffer (tracker slot): the span used and the merged use.
    buffers: Vec<(usize, u64, u64, Use)>,
    /// Where a tracker slot's entry is in `buffers` (`u32::MAX`: none).
    buffer_pos: Vec<u32>,
    /// Per texture subresource range: the merged use, and the previous entry of the same
    /// texture (`u32::MAX`: none).
    textures: Vec<(usize, Subresources, Use, u32)>,
    /// The last entry of each texture (by tracker slot) in `textures` (`u32::MAX`: none).
    texture_last: Vec<u32>,
}

/// Whether two uses of one resource in one scope need no ordering between them.
#[inline]
fn compatible(a: Use, b: Use) -> bool {
    a.layout == b.layout && (a.access == b.access || !(a.is_write() || b.is_write()))
}

#[inline]
fn merge(a: Use, b: Use) -> Use {
    Use {
        stages: a.stages | b.stages,
        access: a.access | b.access,
        layout: a.layout,
    }
}

fn overlap(a: Subresources, b: Subresources) -> bool {
    let a_mips = a.base_mip..a.base_mip.saturating_add(a.mips);
    let a_layers = a.base_layer..a.base_layer.saturating_add(a.layers);
    a_mips.start < b.base_mip.saturating_add(b.mips)
        && b.base_mip < a_mips.end
        && a_layers.start < b.base_layer.saturating_add(b.layers)
        && b.base_layer < a_layers.end
}

impl Scope {
    /// Adds a use of a buffer range; `Err(())` when it conflicts with an earlier use of
    /// the buffer in this scope.
    #[inline(always)]
    pub fn buffer(&mut self, slot: usize, offset: u64, size: u64, u: Use) -> Result<(), ()> {
        let end = offset.saturating_add(size);
        if let Some(&pos) = self.buffer_pos.get(slot) {
            if let Some(e) = self.buffers.get(pos as usize) {
                if e.3 == u && e.1 <= offset && end <= e.2 {
                    // The same use of a range already in the scope (a buffer bound
                    // again): nothing changes.
                    return Ok(());
                }
            }
        }
        self.add_buffer(slot, offset, end, u)
    }

    /// [`Scope::buffer`] when the scope changes: a new buffer, range or use.
    #[inline]
    fn add_buffer(&mut self, slot: usize, offset: u64, end: u64, u: Use) -> Result<(), ()> {
        if self.buffer_pos.len() <= slot {
            self.buffer_pos.resize(slot.saturating_add(1), u32::MAX);
        }
        match self.buffer_pos.get(slot).copied() {
            Some(pos) if pos != u32::MAX => {
                let Some(e) = self.buffers.get_mut(pos as usize) else {
                    return Ok(());
                };
                if !compatible(e.3, u) {
                    return Err(());
                }
                e.1 = e.1.min(offset);
                e.2 = e.2.max(end);
                e.3 = merge(e.3, u);
            }
            _ => {
                if let Some(p) = self.buffer_pos.get_mut(slot) {
                    *p = self.buffers.len() as u32;
                }
                self.buffers.push((slot, offset, end, u));
            }
        }
        Ok(())
    }

    /// Adds a use of texture subresources; `Err(())` when it conflicts with an earlier use
    /// of any of them in this scope.
    pub fn texture(&mut self, slot: usize, range: Subresources, u: Use) -> Result<(), ()> {
        if let Some(&last) = self.texture_last.get(slot) {
            if let Some(&(_, r, e, prev)) = self.textures.get(last as usize) {
                if prev == u32::MAX && r == range && e == u {
                    // The texture's only entry: the same use of the same subresources.
                    return Ok(());
                }
            }
        }
        if self.texture_last.len() <= slot {
            self.texture_last.resize(slot.saturating_add(1), u32::MAX);
        }
        let last = self.texture_last.get(slot).copied().unwrap_or(u32::MAX);
        let mut same = None;
        let mut at = last;
        while let Some(&(_, r, e, prev)) = self.textures.get(at as usize) {
            if overlap(r, range) {
                if !compatible(e, u) {
                    return Err(());
                }
                if r == range {
                    same = Some(at as usize);
                }
            }
            at = prev;
        }
        match same {
            Some(i) => {
                if let Some(e) = self.textures.get_mut(i) {
                    e.2 = merge(e.2, u);
                }
            }
            None => {
                if let Some(l) = self.texture_last.get_mut(slot) {
                    *l = self.textures.len() as u32;
                }
                self.textures.push((slot, range, u, last));
            }
        }
        Ok(())
    }

    /// Applies every merged use to the tracker, collecting barriers, and empties the scope.
    #[inline]
    pub fn apply<A: Api>(&mut self, used: &mut Used<A>, out: &mut Pending) {
        self.apply_as(used, out, false);
    }

    /// Prepares the tracker for every merged use ([`crate::track::Part::prepare`]),
    /// collecting barriers, and empties the scope.
    pub fn prepare<A: Api>(&mut self, used: &mut Used<A>, out: &mut Pending) {
        self.apply_as(used, out, true);
    }

    #[inline]
    fn apply_as<A: Api>(&mut self, used: &mut Used<A>, out: &mut Pending, prepare: bool) {
        used.next_scope();
        for &(slot, start, end, u) in &self.buffers {
            let size = end.saturating_sub(start);
            if prepare {
                used.prepare_buffer(slot, start, size, u, out);
            } else {
                used.use_buffer(slot, start, size, u, out);
            }
            if let Some(p) = self.buffer_pos.get_mut(slot) {
                *p = u32::MAX;
            }
        }
        self.buffers.clear();
        for &(slot, range, u, _) in &self.textures {
            if prepare {
                used.prepare_texture(slot, range, u, out);
            } else {
                used.use_texture(slot, range, u, out);
            }
            if let Some(l) = self.texture_last.get_mut(slot) {
                *l = u32::MAX;
            }
        }
        self.textures.clear();
    }

    /// The merged buffer uses: `(tracker slot, start, end, use)`.
    pub fn buffer_uses(&self) -> &[(usize, u64, u64, Use)] {
        &self.buffers
    }

    /// The merged texture uses: `(tracker slot, subresources, use)`.
    pub fn texture_uses(&self) -> impl Iterator<Item = (usize, Subresources, Use)> + '_ {
        self.textures
            .iter()
            .map(|&(slot, range, u, _)| (slot, range, u))
    }

    /// Forgets the scope without applying it.
    pub fn clear(&mut self) {
        for &(slot, ..) in &self.buffers {
            if let Some(p) = self.buffer_pos.get_mut(slot) {
                *p = u32::MAX;
            }
        }
        self.buffers.clear();
        for &(slot, ..) in &self.textures {
            if let Some(l) = self.texture_last.get_mut(slot) {
                *l = u32::MAX;
            }
        }
        self.textures.clear();
    }
}
