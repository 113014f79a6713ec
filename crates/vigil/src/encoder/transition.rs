//! Resource transitions: the barriers a coming pass needs, recorded ahead of it in one
//! batch. The tracker stays in charge: a transition is checked like any command, its
//! barrier's source side comes from what the tracker knows (never from the caller), and a
//! use a transition did not prepare still gets its own barrier.

use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Buffer, Handle, Texture};
use crate::track::{Subresources, Use};
use crate::validate;
use vigil_hal::{Access, Api, Stages, TextureLayout};

/// A buffer range to make ready for a use ([`CommandEncoder::transition_resources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferTransition {
    /// The buffer.
    pub buffer: Buffer,
    /// First byte.
    pub offset: u64,
    /// Length; `None`: to the end.
    pub size: Option<u64>,
    /// The stages of the coming use.
    pub stages: Stages,
    /// Its accesses.
    pub access: Access,
}

/// Texture subresources to make ready for a use ([`CommandEncoder::transition_resources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureTransition {
    /// The texture.
    pub texture: Texture,
    /// First mip level.
    pub base_mip_level: u32,
    /// Mip levels; `None`: the rest.
    pub mip_level_count: Option<u32>,
    /// First layer.
    pub base_array_layer: u32,
    /// Layers; `None`: the rest.
    pub array_layer_count: Option<u32>,
    /// The stages of the coming use.
    pub stages: Stages,
    /// Its accesses.
    pub access: Access,
    /// The layout it needs.
    pub layout: TextureLayout,
}

impl<A: Api> CommandEncoder<A> {
    /// Makes resources ready for the uses the next commands make, recording the barriers
    /// they need now, as one batch: what a render graph does before each pass. The
    /// commands that follow need no barrier of their own for what was prepared, as long as
    /// they use it as declared (a write prepared in some stages leaves its part ready for
    /// the next use only, if that is a write in those stages or a read in them).
    ///
    /// Only the destination side is the caller's: what must finish first is the
    /// tracker's, so a wrong or missing transition costs a barrier, never a hazard.
    /// Refused inside a pass, for stages and accesses that do not go together
    /// (`encoder.transition-stages`), layouts the texture's usage or format does not allow
    /// (`encoder.transition-layout`), ranges outside the resource, and a write and another
    /// use of one buffer, or of overlapping texture subresources, in one call
    /// (`encoder.transition-conflict`; uses of one buffer in one call merge, as in a pass).
    pub fn transition_resources(
        &mut self,
        buffers: &[BufferTransition],
        textures: &[TextureTransition],
    ) -> Result<()> {
        const OP: &str = "transition_resources";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            // Everything is checked first, then merged in the scope, before the tracker
            // moves.
            let mut bs = Vec::with_capacity(buffers.len());
            for t in buffers {
                let b = find(&mut e.used.buffers, &e.core, t.buffer, OP)?.clone();
                validate::transition::scope(OP, &e.label, t.stages, t.access)?;
                e.core
                    .stages_on_queue(OP, &e.label, "a transition for stages", t.stages)?;
                let f = b.facts();
                let size = t.size.unwrap_or(f.size.saturating_sub(t.offset));
                validate::buffer::range(OP, &e.label, "transition", t.offset, size, f.size)?;
                if size > 0 {
                    bs.push((b, t.offset, size, Use::buffer(t.stages, t.access)));
                }
            }
            let mut ts = Vec::with_capacity(textures.len());
            for t in textures {
                let tex = find(&mut e.used.textures, &e.core, t.texture, OP)?.clone();
                validate::transition::scope(OP, &e.label, t.stages, t.access)?;
                e.core
                    .stages_on_queue(OP, &e.label, "a transition for stages", t.stages)?;
                let d = &tex.desc;
                let mips = t
                    .mip_level_count
                    .unwrap_or(d.mip_level_count.saturating_sub(t.base_mip_level));
                let layers = t
                    .array_layer_count
                    .unwrap_or(d.layers().saturating_sub(t.base_array_layer));
                validate::transition::texture(
                    OP,
                    &e.label,
                    &tex.label,
                    d,
                    t.layout,
                    t.base_mip_level,
                    mips,
                    t.base_array_layer,
                    layers,
                )?;
                let range = Subresources {
                    base_mip: t.base_mip_level,
                    mips,
                    base_layer: t.base_array_layer,
                    layers,
                };
                let u = Use {
                    stages: t.stages,
                    access: t.access,
                    layout: t.layout,
                };
                ts.push((t.texture, tex.label.clone(), range, u));
            }
            let slots: Vec<usize> = ts
                .iter()
                .map(|(texture, ..)| {
                    e.used
                        .texture_slot_of(texture.index(), texture.generation())
                })
                .collect();
            for &slot in &slots {
                e.check_alias(slot, OP)?;
            }
            let mut conflict = None;
            for (b, offset, size, u) in bs {
                let slot = e.used.buffer_slot(&b);
                if e.scope.buffer(slot, offset, size, u).is_err() {
                    conflict.get_or_insert_with(|| b.label.clone());
                }
            }
            for ((_, label, range, u), slot) in ts.into_iter().zip(slots) {
                if e.scope.texture(slot, range, u).is_err() {
                    conflict.get_or_insert(label);
                }
            }
            if let Some(label) = conflict {
                e.scope.clear();
                return Err(fail!(
                    TransitionConflict,
                    OP,
                    &e.label,
                    "'{label}' is prepared for a write and another use in one call (of one buffer, or of overlapping texture subresources); give them to separate calls"
                ));
            }
            e.scope.prepare(&mut e.used, &mut e.pending);
            if !e.pending.is_empty() {
                e.recorded = true;
            }
            e.record_pending(OP)
        })
    }

    /// Activates an aliasable placed texture: a barrier in every stage (all earlier work
    /// finished, its writes visible), after which the texture's contents are undefined
    /// and it may be used; every alias sharing its bytes is inactive from here on (a use of
    /// one in this encoder is refused, and at submission an inactive alias's first use is
    /// too). Outside passes. `placement.not-aliasable` for any other texture.
    pub fn activate_texture_alias(&mut self, texture: Texture) -> Result<()> {
        const OP: &str = "activate_texture_alias";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            let t = find(&mut e.used.textures, &e.core, texture, OP)?.clone();
            if !t.placed.as_ref().is_some_and(|p| p.aliasable) {
                return Err(fail!(
                    PlacementNotAliasable,
                    OP,
                    &e.label,
                    "texture '{}' is not an aliasable placed texture; only those are activated",
                    t.label
                ));
            }
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            if let Some(mut r) = e.rec() {
                r.barriers(
                    Some(vigil_hal::MemoryBarrier {
                        src: Stages::ALL_COMMANDS,
                        dst: Stages::ALL_COMMANDS,
                    }),
                    &[],
                    &[],
                );
            }
            e.recorded = true;
            e.used.next_scope();
            let now = e.used.seq;
            // Everything before the barrier is finished and visible to every stage.
            e.used.fence = Some(crate::track::Fence {
                at: now,
                dst: Stages::ALL_COMMANDS,
            });
            e.used.tracker.activate(&t, now);
            Ok(())
        })
    }

    /// Refuses a use of the texture in tracker slot `slot` when an alias sharing its bytes
    /// was activated later in this recording (`placement.inactive-alias`).
    #[inline]
    pub(crate) fn check_alias(&self, slot: usize, op: &'static str) -> Result<()> {
        match self.used.tracker.retired(slot) {
            None => Ok(()),
            Some(label) => Err(fail!(
                PlacementInactiveAlias,
                op,
                &self.label,
                "texture '{label}' is inactive: an alias sharing its bytes was activated, or used, earlier in this encoder; activate '{label}' to use it"
            )),
        }
    }

    /// Refuses a draw (`render`) or dispatch whose groups in `mask` name a texture an
    /// activation in this recording made inactive.
    #[cold]
    pub(crate) fn groups_alias(&self, render: bool, mask: u8, op: &'static str) -> Result<()> {
        let binder = if render {
            &self.render.binder
        } else {
            &self.compute.binder
        };
        for g in 0..binder.count {
            if mask & (1 << g) == 0 {
                continue;
            }
            if let Some(label) = binder.retired_member(&self.used, g) {
                return Err(fail!(
                    PlacementInactiveAlias,
                    op,
                    &self.label,
                    "group {g} names texture '{label}', which is inactive: an alias sharing its bytes was activated, or used, earlier in this encoder; activate '{label}' to use it"
                ));
            }
        }
        Ok(())
    }

    /// Pipeline barriers the tracker recorded in this encoder for commands' own uses —
    /// those no [`CommandEncoder::transition_resources`] call had prepared. Zero when
    /// transitions prepared every use (a render graph's plan covering its passes).
    /// Barriers resolved at submission (a command buffer's first use of each resource,
    /// against the device's state) are not recorded here and not counted.
    pub fn derived_barrier_batches(&self) -> u64 {
        self.derived_batches
    }
}
