//! Placement heaps: heaps made (sizes at the edges) and destroyed, textures placed in them
//! at offsets aligned or not, inside or past the end, overlapping or not, aliasable or not
//! (placed textures join the world's textures, so every other operation copies into them,
//! renders to them, views them and binds them), and aliases activated on open encoders.

use super::encode::{on_encoder, outside_pass, pick_encoder};
use crate::rng::Rng;
use crate::world::{PassState, TextureMeta, World};
use vigil::{
    PlacedTextureDescriptor, PlacementHeapDescriptor, TextureDescriptor, TextureFormat,
    TextureUsages,
};

/// One of the operations below.
pub fn placement(w: &mut World<'_>, r: &mut Rng) {
    if w.placement_heaps.live_count() == 0 && r.chance(60) {
        return create_heap(w, r);
    }
    match r.below(10) {
        0 => create_heap(w, r),
        1 => {
            let (h, _, v) = w.placement_heaps.pick(r, w.id);
            w.call(
                "destroy_placement_heap",
                format!("destroy_placement_heap({h:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_placement_heap(h)?;
                    w.placement_heaps.kill(h);
                    Ok(())
                },
            );
        }
        2..=5 => place(w, r),
        _ => activate(w, r),
    }
}

fn create_heap(w: &mut World<'_>, r: &mut Rng) {
    if w.placement_heaps.full() {
        return;
    }
    let size = match r.below(10) {
        0 => r.pick(&[0u64, 1, 4096, (1 << 40) + 1]),
        1 | 2 => 1 << 16,
        _ => r.pick(&[1u64 << 20, 4 << 20]),
    };
    w.call(
        "create_placement_heap",
        format!("create_placement_heap({size})"),
        false,
        |w| {
            let h = w.device.create_placement_heap(&PlacementHeapDescriptor {
                label: "fuzz placement",
                size,
            })?;
            w.placement_heaps.add(h, size);
            Ok(())
        },
    );
}

fn place(w: &mut World<'_>, r: &mut Rng) {
    if w.textures.full() {
        return;
    }
    let (heap, heap_size, v) = match w.placement_heaps.live_where(r, |_| true) {
        Some((h, m)) if r.chance(90) => (h, Some(m), crate::world::Validity::Live),
        _ => w.placement_heaps.pick(r, w.id),
    };
    let side = r.pick(&[1u32, 4, 16, 64, 0]);
    let format = r.pick(&[
        TextureFormat::Rgba8Unorm,
        TextureFormat::R32Float,
        TextureFormat::Depth32Float,
    ]);
    let usage = if format == TextureFormat::Depth32Float {
        TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC
    } else {
        TextureUsages::RENDER_ATTACHMENT
            | TextureUsages::TEXTURE_BINDING
            | TextureUsages::COPY_SRC
            | TextureUsages::COPY_DST
    };
    let texture = TextureDescriptor {
        label: "fuzz placed",
        size: [side, side],
        format,
        usage,
        ..TextureDescriptor::default()
    };
    let need = w.device.texture_placement(&texture).ok();
    let align = need.map_or(256, |n| n.alignment.max(1));
    let size = heap_size.unwrap_or(4096);
    // Mostly offsets the aliases below share (0 and one alignment step), now and then
    // misaligned or past the end.
    let offset = match r.below(12) {
        0 => 1,
        1 => size,
        2 => size.saturating_sub(align),
        3..=5 => need.map_or(align, |n| n.size.next_multiple_of(align)),
        _ => 0,
    };
    let aliasable = r.chance(60);
    let what = format!(
        "create_placed_texture({side}x{side} {format:?}, {heap:?}, offset {offset}, aliasable {aliasable})"
    );
    w.call("create_placed_texture", what, v.invalid(), |w| {
        let t = w.device.create_placed_texture(&PlacedTextureDescriptor {
            texture,
            heap,
            offset,
            aliasable,
        })?;
        if aliasable {
            w.aliases.push(t);
        }
        w.textures.add(
            t,
            TextureMeta {
                dimension: vigil::TextureDimension::D2,
                size: [side, side],
                layers: 1,
                mips: 1,
                samples: 1,
                format,
                usage,
            },
        );
        Ok(())
    });
}

fn activate(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    w.aliases.retain(|&t| w.textures.is_live(t));
    let (t, v) = match w.aliases.get(r.index(w.aliases.len().max(1))) {
        Some(&t) if r.chance(85) => (t, crate::world::Validity::Live),
        _ => {
            let (t, _, v) = w.textures.pick(r, w.id);
            (t, v)
        }
    };
    on_encoder(
        w,
        i,
        "activate_texture_alias",
        format!("activate_texture_alias({t:?})"),
        v.invalid(),
        |o| o.encoder.activate_texture_alias(t),
    );
}
