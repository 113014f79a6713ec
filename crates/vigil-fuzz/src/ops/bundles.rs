//! Render bundles: recorded from a few calls of the kinds a pass makes (mostly what a live
//! render pipeline can draw, directly and indirectly; now and then stale handles and wrong
//! formats), executed in render passes (mostly ones of their formats), destroyed at any
//! moment.

use super::encode::{
    args_buffer, begin_render_pass, buffer_for, in_render, on_encoder, pick_encoder, range,
};
use crate::recipes::{RECIPES, Shape};
use crate::rng::Rng;
use crate::world::{Bound, BundleMeta, GroupMeta, PassState, Validity, World};
use vigil::{BufferUsages, IndexFormat, RenderBundleEncoder, RenderBundleEncoderDescriptor};

/// Most calls recorded into one bundle.
const MAX_CALLS: u64 = 24;

/// Records a bundle and finishes it (now and then drops it unfinished).
pub fn record_bundle(w: &mut World<'_>, r: &mut Rng) {
    if w.bundles.full() {
        let (h, _, v) = w.bundles.pick(r, w.id);
        let what = format!("destroy_render_bundle({h:?})");
        w.call("destroy_render_bundle", what, v.invalid(), |w| {
            w.device.destroy_render_bundle(h)?;
            w.bundles.kill(h);
            Ok(())
        });
        return;
    }
    // Without a render pipeline a bundle draws nothing: mostly make one first.
    if w.render.live_count() == 0 && r.chance(90) {
        return super::objects::create_render_pipeline(w, r);
    }
    // Mostly the attachments of a live render pipeline; sometimes another recipe's, and
    // rarely a descriptor every device refuses.
    let (recipe, samples) = match w.render.any_live(r) {
        Some((_, m)) if r.chance(85) => (m.recipe, m.samples),
        _ => {
            let renders: Vec<usize> = (0..RECIPES.len())
                .filter(|&k| matches!(RECIPES[k].shape, Shape::Render { .. }))
                .collect();
            (
                renders[r.index(renders.len())],
                if r.chance(15) { 4 } else { 1 },
            )
        }
    };
    let mut meta = BundleMeta {
        colors: RECIPES[recipe].targets.iter().map(|&f| Some(f)).collect(),
        depth: RECIPES[recipe].depth,
        samples,
        // Now and then a bundle that writes no depth or stencil: its pipelines that do
        // are refused, and it may execute in passes where they are read-only.
        read_only: (r.chance(20), r.chance(20)),
    };
    match r.below(30) {
        0 => {
            meta.colors.clear();
            meta.depth = None;
        }
        1 => meta.samples = r.pick(&[0, 2, 3, 8]),
        2 => meta.colors.push(Some(vigil::TextureFormat::Depth32Float)),
        3 => meta.colors.push(None),
        _ => {}
    }
    let what = format!(
        "create_render_bundle_encoder({:?}, {:?}, {}, read-only {:?})",
        meta.colors, meta.depth, meta.samples, meta.read_only
    );
    let desc_meta = meta.clone();
    let Some(mut b) = w.call("create_render_bundle_encoder", what, false, |w| {
        w.device
            .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                label: "fuzz bundle",
                color_formats: &desc_meta.colors,
                depth_stencil_format: desc_meta.depth,
                sample_count: desc_meta.samples,
                multiview_mask: None,
                depth_read_only: desc_meta.read_only.0,
                stencil_read_only: desc_meta.read_only.1,
            })
    }) else {
        return;
    };
    // Half of the bundles are recorded with careful arguments (no edge values), so that
    // enough of them finish to be executed; the others as any call stream.
    let careful = r.chance(50);
    let mut bound = Bound::default();
    let mut groups = 0u32;
    for _ in 0..r.below(MAX_CALLS) {
        if b.is_poisoned() && r.chance(70) {
            break;
        }
        if r.chance(8) {
            bundle_debug(w, r, &mut b, &mut groups, false);
        } else {
            record_one(w, r, &mut b, &mut bound, &meta, careful);
        }
    }
    // Its debug groups are closed before it finishes, mostly; else the finish is refused.
    while groups > 0 && r.chance(90) && !b.is_poisoned() {
        bundle_debug(w, r, &mut b, &mut groups, true);
    }
    if r.chance(5) {
        w.call(
            "drop_bundle_encoder",
            "drop(bundle encoder)".into(),
            false,
            |_| {
                drop(b);
                Ok(())
            },
        );
        return;
    }
    w.call("finish_bundle", "bundle.finish()".into(), groups > 0, |w| {
        let h = b.finish()?;
        w.bundles.add(h, meta);
        Ok(())
    });
}

/// A debug group opened or closed (`pop`: closed), or a marker, in bundle encoder `b`, whose
/// open groups `groups` counts; a pop with none open is known to be refused.
fn bundle_debug(
    w: &mut World<'_>,
    r: &mut Rng,
    b: &mut RenderBundleEncoder,
    groups: &mut u32,
    pop: bool,
) {
    let kind = if pop { 1 } else { r.below(3) };
    let label = super::encode::debug_label(r);
    let short = label.get(..20).unwrap_or(&label).to_owned();
    match kind {
        0 => {
            let what = format!("bundle.push_debug_group({short:?})");
            if w.call("bundle_push_debug_group", what, false, |_| {
                b.push_debug_group(&label)
            })
            .is_some()
            {
                *groups += 1;
            }
        }
        1 => {
            let what = "bundle.pop_debug_group()".to_owned();
            let none = *groups == 0;
            if w.call("bundle_pop_debug_group", what, none, |_| {
                b.pop_debug_group()
            })
            .is_some()
            {
                *groups = groups.saturating_sub(1);
            }
        }
        _ => {
            let what = format!("bundle.insert_debug_marker({short:?})");
            w.call("bundle_insert_debug_marker", what, false, |_| {
                b.insert_debug_marker(&label)
            });
        }
    }
}

/// One call into bundle encoder `b`: mostly the one its draws still lack, else a draw;
/// `careful`: with the arguments most likely to be accepted.
fn record_one(
    w: &mut World<'_>,
    r: &mut Rng,
    b: &mut RenderBundleEncoder,
    bound: &mut Bound,
    meta: &BundleMeta,
    careful: bool,
) {
    // A careful stream takes the edge cases out of `r`'s picks.
    let edge = |r: &mut Rng, p: u64| !careful && r.chance(p);
    let missing_group = bound
        .pipeline
        .is_some_and(|p| !(RECIPES[p].group)().is_empty() && bound.group != Some(p));
    let missing_vertex = bound.pipeline.is_some_and(|p| {
        let slots = RECIPES[p].vertex_buffers.len() as u32;
        (0..slots).any(|s| bound.vertex_slots & (1 << s) == 0)
    });
    let mut kind = if bound.pipeline.is_none() && r.chance(85) {
        0
    } else if missing_group && r.chance(85) {
        1
    } else if missing_vertex && r.chance(85) {
        2
    } else {
        r.below(12)
    };
    if (kind == 11 || (5..=6).contains(&kind)) && !bound.index && r.chance(85) {
        kind = 4;
    }
    match kind {
        0 => {
            let fits = |m: &crate::world::RenderMeta| {
                let recipe = &RECIPES[m.recipe];
                m.samples == meta.samples
                    && recipe.targets.len() == meta.colors.len()
                    && recipe
                        .targets
                        .iter()
                        .zip(&meta.colors)
                        .all(|(a, b)| Some(*a) == *b)
            };
            let (p, recipe, v) = match w.render.live_where(r, fits) {
                Some((p, m)) if !edge(r, 5) => (p, Some(m.recipe), Validity::Live),
                _ => {
                    let (p, m, v) = w.render.pick(r, w.id);
                    (p, m.map(|m| m.recipe), v)
                }
            };
            let what = format!("bundle.set_render_pipeline({p:?})");
            w.call("bundle.set_render_pipeline", what, v.invalid(), |_| {
                b.set_render_pipeline(p)?;
                bound.pipeline = recipe;
                Ok(())
            });
        }
        1 => {
            let want = bound.pipeline;
            let (group, gm, v) = match w
                .groups
                .live_where(r, |m| want.is_some() && m.recipe == want)
            {
                Some((g, m)) if !edge(r, 15) => (g, Some(m), Validity::Live),
                _ => w.groups.pick(r, w.id),
            };
            let recipe = gm.as_ref().and_then(|m| m.recipe);
            let align = w.limits.min_uniform_buffer_offset_alignment.max(1);
            let offsets: Vec<u32> = (0..gm.as_ref().map_or(0, GroupMeta::dynamic_count))
                .map(|_| if edge(r, 10) { r.edge_u32(align) } else { 0 })
                .collect();
            let what = format!("bundle.set_bind_group(0, {group:?}, {offsets:?})");
            w.call("bundle.set_bind_group", what, v.invalid(), |_| {
                b.set_bind_group(0, group, &offsets)?;
                bound.group = recipe;
                Ok(())
            });
        }
        2 | 3 => {
            let needed = bound
                .pipeline
                .map_or(1, |p| RECIPES[p].vertex_buffers.len() as u32);
            let slot = match (bound.vertex_slots, edge(r, 20)) {
                (_, true) => r.pick(&[1, 2, 16]),
                (set, false) => (0..needed).find(|s| set & (1 << s) == 0).unwrap_or(0),
            };
            let (buffer, size, v) = buffer_for(w, r, BufferUsages::VERTEX);
            let offset = if edge(r, 20) { r.edge_u64(size, 4) } else { 0 };
            let what = format!("bundle.set_vertex_buffer({slot}, {buffer:?}, {offset})");
            w.call("bundle.set_vertex_buffer", what, v.invalid(), |_| {
                b.set_vertex_buffer(slot, buffer, offset, None)?;
                if slot < 32 {
                    bound.vertex_slots |= 1 << slot;
                }
                Ok(())
            });
        }
        4 => {
            let (buffer, size, v) = buffer_for(w, r, BufferUsages::INDEX);
            let format = r.pick(&[IndexFormat::Uint16, IndexFormat::Uint32]);
            let offset = if edge(r, 20) { r.edge_u64(size, 4) } else { 0 };
            let what = format!("bundle.set_index_buffer({buffer:?}, {format:?}, {offset})");
            w.call("bundle.set_index_buffer", what, v.invalid(), |_| {
                b.set_index_buffer(buffer, format, offset, None)?;
                bound.index = true;
                Ok(())
            });
        }
        5 | 6 => {
            let (indices, instances) = if careful {
                (0..3, 0..1)
            } else {
                (range(r, 6), range(r, 2))
            };
            let what = format!("bundle.draw_indexed({indices:?}, 0, {instances:?})");
            w.call("bundle.draw_indexed", what, false, |_| {
                b.draw_indexed(indices, 0, instances)
            });
        }
        10 | 11 => {
            let indexed = kind == 11;
            let (buffer, size, v) = args_buffer(w, r);
            let offset = if careful || r.chance(70) {
                0
            } else {
                r.edge_u64(size, 4)
            };
            let op = if indexed {
                "bundle.draw_indexed_indirect"
            } else {
                "bundle.draw_indirect"
            };
            let what = format!("{op}({buffer:?}, {offset})");
            w.call(op, what, v.invalid(), |_| {
                if indexed {
                    b.draw_indexed_indirect(buffer, offset)
                } else {
                    b.draw_indirect(buffer, offset)
                }
            });
        }
        _ => {
            let (vertices, instances) = if careful {
                (0..3, 0..1)
            } else {
                (range(r, 6), range(r, 2))
            };
            let what = format!("bundle.draw({vertices:?}, {instances:?})");
            w.call("bundle.draw", what, false, |_| b.draw(vertices, instances));
        }
    }
}

/// Executes up to three bundles in a render pass (mostly ones made for its attachments).
pub fn execute_bundles(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, in_render) else {
        return begin_render_pass(w, r);
    };
    let PassState::Render {
        colors,
        depth,
        samples,
    } = w.encoders[i].pass.clone()
    else {
        // A wrong-state pick: executing outside a render pass is refused.
        let (h, _, _) = w.bundles.pick(r, w.id);
        let what = format!("execute_bundles([{h:?}])");
        on_encoder(w, i, "execute_bundles", what, false, |o| {
            o.encoder.execute_bundles(&[h])
        });
        return;
    };
    let fits = |m: &BundleMeta| m.colors == colors && m.depth == depth && m.samples == samples;
    let mut bundles = Vec::new();
    let mut invalid = false;
    for _ in 0..r.below(4) {
        match w.bundles.live_where(r, fits) {
            Some((h, _)) if r.chance(90) => bundles.push(h),
            _ => {
                let (h, _, v) = w.bundles.pick(r, w.id);
                invalid |= v.invalid();
                bundles.push(h);
            }
        }
    }
    let what = format!("execute_bundles({bundles:?})");
    on_encoder(w, i, "execute_bundles", what, invalid, |o| {
        o.encoder.execute_bundles(&bundles)?;
        // The pass's pipeline and bindings are gone after bundles, as in WebGPU; its
        // occlusion and pipeline-statistics queries are the pass's own.
        o.bound = Bound {
            last_written: o.bound.last_written,
            occlusion: o.bound.occlusion,
            occlusion_active: o.bound.occlusion_active,
            statistics_active: o.bound.statistics_active,
            ..Bound::default()
        };
        Ok(())
    });
}
