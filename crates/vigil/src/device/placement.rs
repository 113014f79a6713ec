//! Placement heaps: device memory the application places textures in, at offsets it
//! chooses (the reference's application-managed texture placement).
//!
//! A placed texture owns no memory of its own: it lies in its heap at an offset that is a
//! multiple of the alignment [`Device::texture_placement`] reports, and its heap's memory
//! lives while any texture placed in it does (destroying the heap only makes its handle
//! stale). Two placed textures share no byte unless both are *aliasable*; a texture
//! still used by work in flight keeps its bytes until that work completes.
//!
//! Aliasable textures that share bytes are used one at a time: a command encoder
//! *activates* one ([`crate::CommandEncoder::activate_texture_alias`]) — a barrier in every
//! stage, after which its contents are undefined (they are whatever the memory holds) and
//! the aliases sharing its bytes are inactive. Every use of an inactive alias is refused:
//! in the recording that activated another (at the call), at submission (a command buffer
//! whose first use of an alias comes before any activation of it must find it active when
//! it runs, in submission order), and for queue writes and reads. An aliasable texture
//! starts inactive and is never zeroed.

use super::{Device, Placed, PlacementHeapObj, TextureObj, lock};
use crate::error::{Error, Result, fail};
use crate::handle::{Handle, PlacementHeap, Texture};
use crate::native::Owned;
use crate::rules::Rule;
use crate::texture::TextureDescriptor;
use crate::validate;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use vigil_hal::Api;

/// Largest placement heap (1 TiB): more than any device has; the driver refuses what it
/// cannot allocate (`OutOfMemory`).
pub const MAX_PLACEMENT_HEAP_SIZE: u64 = 1 << 40;

/// How to make a placement heap.
#[derive(Clone, Debug)]
pub struct PlacementHeapDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bytes (1 to [`MAX_PLACEMENT_HEAP_SIZE`]).
    pub size: u64,
}

/// How to place a texture.
#[derive(Clone, Debug)]
pub struct PlacedTextureDescriptor<'a> {
    /// The texture, as for [`Device::create_texture`].
    pub texture: TextureDescriptor<'a>,
    /// The heap it lies in.
    pub heap: PlacementHeap,
    /// Its first byte in the heap: a multiple of [`TexturePlacement::alignment`].
    pub offset: u64,
    /// Whether it may share bytes with other aliasable textures (then it is used only while
    /// activated, and its contents are undefined after each activation).
    pub aliasable: bool,
}

/// What a texture needs of the heap it is placed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexturePlacement {
    /// Bytes it occupies.
    pub size: u64,
    /// Its offset must be a multiple of this (a power of two).
    pub alignment: u64,
}

impl<A: Api> Device<A> {
    /// Makes a placement heap of `desc.size` bytes of device memory (`placement.heap-size`).
    pub fn create_placement_heap(
        &self,
        desc: &PlacementHeapDescriptor<'_>,
    ) -> Result<PlacementHeap> {
        const OP: &str = "create_placement_heap";
        let label = desc.label;
        self.check_alive(OP)?;
        if desc.size == 0 || desc.size > MAX_PLACEMENT_HEAP_SIZE {
            return Err(fail!(
                PlacementHeapSize,
                OP,
                label,
                "size {} must be 1 byte to {MAX_PLACEMENT_HEAP_SIZE} bytes",
                desc.size
            ));
        }
        let (raw, memory_type) = self
            .hal
            .create_texture_memory(label, desc.size)
            .map_err(|e| self.hal_error(e, OP, label))?;
        let raw = Owned::<A, crate::native::TextureMemoryKind>::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .placement_heaps
            .insert(|index, generation| PlacementHeapObj {
                raw,
                handle: PlacementHeap::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                size: desc.size,
                memory_type,
                placed: Mutex::new(Vec::new()),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, label, "placement heap"))?;
        self.notify_created("placement heap", label);
        Ok(obj.handle)
    }

    /// Destroys a placement heap's handle. Its memory stays while textures placed in it
    /// are alive (or used by work in flight), and goes with the last of them.
    pub fn destroy_placement_heap(&self, heap: PlacementHeap) -> Result<()> {
        drop(self.remove(heap, "destroy_placement_heap")?);
        Ok(())
    }

    /// The size and alignment a texture of `desc` needs when placed (the descriptor is
    /// checked as for [`Device::create_texture`]).
    pub fn texture_placement(&self, desc: &TextureDescriptor<'_>) -> Result<TexturePlacement> {
        const OP: &str = "texture_placement";
        self.check_texture_descriptor(desc)?;
        let p = self
            .hal
            .texture_placement(&super::texture::hal_texture(desc))
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        Ok(TexturePlacement {
            size: p.size,
            alignment: p.alignment,
        })
    }

    /// Places a texture in a heap at `desc.offset`: aligned, inside the heap
    /// (`placement.range`), in memory its image can use (`placement.memory-type`), sharing
    /// no byte with a texture placed there that is alive or used by work in flight unless
    /// both are aliasable (`placement.overlap`). A texture that is not aliasable starts
    /// zeroed, as every texture does; an aliasable one starts inactive, its contents
    /// undefined.
    pub fn create_placed_texture(&self, desc: &PlacedTextureDescriptor<'_>) -> Result<Texture> {
        const OP: &str = "create_placed_texture";
        let t = &desc.texture;
        let label = t.label;
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, label);
        self.check_alive(OP)?;
        let heap = self.lookup(desc.heap, OP)?;
        self.check_texture_descriptor(t)?;
        self.depth_on_queue(OP, label, t.format)?;
        let hal_desc = super::texture::hal_texture(t);
        let need = self
            .hal
            .texture_placement(&hal_desc)
            .map_err(|e| self.hal_error(e, OP, label))?;
        if need.memory_types & (1u32.checked_shl(heap.memory_type).unwrap_or(0)) == 0 {
            return Err(fail!(
                PlacementMemoryType,
                OP,
                label,
                "the texture's image cannot be bound to heap '{}''s memory type {} (its types: {:#b})",
                heap.label,
                heap.memory_type,
                need.memory_types
            ));
        }
        let aligned =
            need.alignment.is_power_of_two() && desc.offset & need.alignment.wrapping_sub(1) == 0;
        if !aligned || !validate::inside(desc.offset, need.size, heap.size) {
            return Err(fail!(
                PlacementRange,
                OP,
                label,
                "{} bytes at offset {} (alignment {}) do not fit heap '{}' of {} bytes aligned",
                need.size,
                desc.offset,
                need.alignment,
                heap.label,
                heap.size
            ));
        }
        // Placements of one heap are decided one at a time.
        let mut placed = lock(&heap.placed);
        placed.retain(|w| w.strong_count() > 0);
        let wanted = Placed {
            heap: heap.clone(),
            offset: desc.offset,
            size: need.size,
            aliasable: desc.aliasable,
            active: std::sync::atomic::AtomicBool::new(false),
        };
        for other in placed.iter().filter_map(std::sync::Weak::upgrade) {
            let Some(p) = &other.placed else { continue };
            if p.overlaps(&wanted) && !(p.aliasable && desc.aliasable) {
                return Err(fail!(
                    PlacementOverlap,
                    OP,
                    label,
                    "bytes {}..{} of heap '{}' overlap texture '{}' ({}..{}{}), and {}",
                    desc.offset,
                    desc.offset.saturating_add(need.size),
                    heap.label,
                    other.label,
                    p.offset,
                    p.offset.saturating_add(p.size),
                    if self
                        .objects
                        .textures
                        .is_live(other.handle.index(), other.handle.generation())
                    {
                        ""
                    } else {
                        ", destroyed but still used by work in flight"
                    },
                    if desc.aliasable || p.aliasable {
                        "only two aliasable textures may share bytes"
                    } else {
                        "neither is aliasable"
                    }
                ));
            }
        }
        let raw = self
            .hal
            .create_placed_texture(&hal_desc, &heap.raw, desc.offset)
            .map_err(|e| self.hal_error(e, OP, label))?;
        let raw = Owned::new(&self.hal, raw);
        let obj = self.register_texture_obj(t, raw, false, Some(wanted), OP)?;
        placed.push(Arc::downgrade(&obj));
        Ok(obj.handle)
    }
}

/// An aliasable texture used outside a command buffer (a queue write or read) must be the
/// active alias of its bytes (`placement.inactive-alias`).
pub(crate) fn check_active<A: Api>(t: &TextureObj<A>, op: &'static str) -> Result<()> {
    match &t.placed {
        Some(p) if p.aliasable && !p.active.load(Ordering::Acquire) => Err(fail!(
            PlacementInactiveAlias,
            op,
            &t.label,
            "texture '{}' is an aliasable texture that is not the active alias of its bytes; activate it in a command buffer (activate_texture_alias) and submit that first",
            t.label
        )),
        _ => Ok(()),
    }
}

/// Which aliases a submission leaves active: the command buffers' alias events walked in
/// submission order, from the device's state. Refuses a command buffer whose first use of
/// an alias finds it inactive.
pub(crate) fn plan_aliases<A: Api>(
    cbs: &[crate::encoder::CommandBuffer<A>],
    op: &'static str,
) -> Result<Vec<(Arc<TextureObj<A>>, bool)>> {
    use crate::encoder::used::AliasEvent;
    let mut view: Vec<(Arc<TextureObj<A>>, bool)> = Vec::new();
    if cbs.iter().all(|cb| {
        cb.used
            .as_ref()
            .is_none_or(|u| u.tracker.alias_events.is_empty())
    }) {
        // No aliasable texture used: nothing to plan (the usual submission).
        return Ok(view);
    }
    let active = |view: &[(Arc<TextureObj<A>>, bool)], t: &Arc<TextureObj<A>>| {
        view.iter()
            .rev()
            .find(|(v, _)| Arc::ptr_eq(v, t))
            .map(|(_, a)| *a)
            .unwrap_or_else(|| {
                t.placed
                    .as_ref()
                    .is_some_and(|p| p.active.load(Ordering::Acquire))
            })
    };
    for cb in cbs {
        for event in cb.used.iter().flat_map(|u| &u.tracker.alias_events) {
            match event {
                AliasEvent::Use(t) => {
                    if !active(&view, t) {
                        return Err(Error::new(
                            Rule::PlacementInactiveAlias,
                            op,
                            &cb.label,
                            format!(
                                "the command buffer uses aliasable texture '{}' before activating it, and it is not the active alias of its bytes when the command buffer runs; activate it first (activate_texture_alias)",
                                t.label
                            ),
                        ));
                    }
                }
                AliasEvent::Activate(t) => {
                    let Some(p) = &t.placed else { continue };
                    let others: Vec<Arc<TextureObj<A>>> = lock(&p.heap.placed)
                        .iter()
                        .filter_map(std::sync::Weak::upgrade)
                        .filter(|o| !Arc::ptr_eq(o, t) && crate::encoder::used::overlap(o, t))
                        .collect();
                    for o in others {
                        view.push((o, false));
                    }
                    view.push((t.clone(), true));
                }
            }
        }
    }
    Ok(view)
}

/// Makes a submission's alias plan the device's state (once the submission is on the
/// queue).
pub(crate) fn commit_aliases<A: Api>(plan: Vec<(Arc<TextureObj<A>>, bool)>) {
    for (t, active) in plan {
        if let Some(p) = &t.placed {
            p.active.store(active, Ordering::Release);
        }
    }
}
