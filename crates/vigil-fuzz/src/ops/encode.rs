//! Encoders: passes, bindings, draws, dispatches, copies, timestamps; finishing and
//! dropping them at any moment.

use super::objects::{controlled, make_texture};
use crate::recipes::{RECIPES, Shape};
use crate::rng::Rng;
use crate::world::{Bound, GroupMeta, Open, PassState, Validity, ViewMeta, World};
use vigil::{
    BufferUsages, CommandEncoderDescriptor, ComputePassDescriptor, IndexFormat, LoadOp, Operations,
    PassTimestampWrites, RenderPassColorAttachment, RenderPassDepthStencilAttachment,
    RenderPassDescriptor, StoreOp, TexelCopyBufferLayout, TexelCopyTextureInfo, TextureAspect,
    TextureDimension, TextureFormat, TextureUsages, TextureViewDescriptor,
};

/// Most encoders open at once.
const MAX_OPEN: usize = 4;
/// Most finished command buffers waiting.
pub(crate) const MAX_FINISHED: usize = 8;

/// An open encoder that is usable (not poisoned by a refused call) and in a pass `want`
/// accepts; now and then any encoder at all (to reach the wrong-state refusals). `None`
/// when there is none: the caller then makes the state it needs (opens an encoder or a
/// pass) instead, which keeps the call stream deep rather than refused at the door.
pub(super) fn pick_encoder(
    w: &World<'_>,
    r: &mut Rng,
    want: impl Fn(&PassState) -> bool,
) -> Option<usize> {
    if w.encoders.is_empty() {
        return None;
    }
    if r.chance(4) {
        return Some(r.index(w.encoders.len()));
    }
    let matching: Vec<usize> = (0..w.encoders.len())
        .filter(|&i| !w.encoders[i].encoder.is_poisoned() && want(&w.encoders[i].pass))
        .collect();
    if matching.is_empty() {
        return None;
    }
    Some(matching[r.index(matching.len())])
}

/// Finishes or drops a poisoned encoder, if there is one.
fn retire_poisoned(w: &mut World<'_>, r: &mut Rng) -> bool {
    let Some(i) = (0..w.encoders.len()).find(|&i| w.encoders[i].encoder.is_poisoned()) else {
        return false;
    };
    let open = w.encoders.remove(i);
    if r.chance(50) {
        let what = format!("enc{}.finish()", open.id);
        w.call("finish", what, false, |w| {
            let cb = open.encoder.finish()?;
            w.command_buffers.push(cb);
            Ok(())
        });
    } else {
        w.call(
            "drop_encoder",
            format!("drop(enc{})", open.id),
            false,
            |_| {
                drop(open);
                Ok(())
            },
        );
    }
    true
}

pub(super) fn in_render(p: &PassState) -> bool {
    matches!(p, PassState::Render { .. })
}

/// Runs `f` on encoder `i` as one logged call; a refusal poisons the encoder (vigil's
/// rule), which the fuzzer then finishes or drops before long.
pub(super) fn on_encoder<T>(
    w: &mut World<'_>,
    i: usize,
    op: &'static str,
    what: String,
    invalid: bool,
    f: impl FnOnce(&mut Open) -> vigil::Result<T>,
) -> Option<T> {
    let id = w.encoders[i].id;
    w.call(op, format!("enc{id}.{what}"), invalid, |w| {
        f(&mut w.encoders[i])
    })
}

pub fn create_encoder(w: &mut World<'_>, r: &mut Rng) {
    if r.chance(70) && retire_poisoned(w, r) {
        return;
    }
    if w.encoders.len() >= MAX_OPEN {
        return finish_encoder(w, r);
    }
    let id = w.encoder_count;
    w.encoder_count += 1;
    w.call(
        "create_command_encoder",
        format!("create_command_encoder() -> enc{id}"),
        false,
        |w| {
            let encoder = w.device.create_command_encoder(&CommandEncoderDescriptor {
                label: "fuzz encoder",
            })?;
            w.encoders.push(Open {
                encoder,
                pass: PassState::None,
                id,
                bound: Bound::default(),
                debug: Default::default(),
            });
            Ok(())
        },
    );
}

pub fn finish_encoder(w: &mut World<'_>, r: &mut Rng) {
    if w.encoders.is_empty() {
        return create_encoder(w, r);
    }
    if w.command_buffers.len() >= MAX_FINISHED {
        return super::queue::submit(w, r);
    }
    // One outside a pass (finishing inside one is refused), else close a pass first.
    if retire_poisoned(w, r) {
        return;
    }
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return end_pass(w, r);
    };
    // Debug groups are closed first, mostly; else the finish is refused.
    let groups = w.encoders[i].debug.open;
    if groups > 0 && r.chance(85) {
        return pop_debug_group(w, i);
    }
    let open = w.encoders.remove(i);
    let what = format!("enc{}.finish()", open.id);
    w.call("finish", what, groups > 0, |w| {
        let cb = open.encoder.finish()?;
        w.command_buffers.push(cb);
        Ok(())
    });
}

pub fn drop_encoder(w: &mut World<'_>, r: &mut Rng) {
    if w.encoders.is_empty() {
        return;
    }
    let i = r.index(w.encoders.len());
    let open = w.encoders.remove(i);
    w.call(
        "drop_encoder",
        format!("drop(enc{})", open.id),
        false,
        |_| {
            drop(open);
            Ok(())
        },
    );
}

/// Labels debug groups and markers take: empty, ordinary, with a NUL (which a C string
/// cannot hold), long.
pub(super) fn debug_label(r: &mut Rng) -> String {
    match r.below(8) {
        0 => String::new(),
        1 => "a\0b".into(),
        2 => "x".repeat(300),
        _ => format!("group {}", r.below(100)),
    }
}

/// Opens or closes a debug group, or inserts a marker, in or out of a pass; now and then a
/// pop with nothing to close (refused).
pub fn debug_group(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |_| true) else {
        return create_encoder(w, r);
    };
    match r.below(10) {
        0..=3 => {
            let label = debug_label(r);
            let what = format!("push_debug_group({:?})", label.get(..20).unwrap_or(&label));
            on_encoder(w, i, "push_debug_group", what, false, |o| {
                o.encoder.push_debug_group(&label)?;
                o.debug.open += 1;
                Ok(())
            });
        }
        4..=7 => pop_debug_group(w, i),
        _ => {
            let label = debug_label(r);
            let what = format!(
                "insert_debug_marker({:?})",
                label.get(..20).unwrap_or(&label)
            );
            on_encoder(w, i, "insert_debug_marker", what, false, |o| {
                o.encoder.insert_debug_marker(&label)
            });
        }
    }
}

/// Closes encoder `i`'s last debug group: refused (and known to be) when none the open
/// pass (or, outside passes, the encoder) opened is open.
fn pop_debug_group(w: &mut World<'_>, i: usize) {
    let in_pass = w.encoders[i].pass != PassState::None;
    let none = w.encoders[i].debug.closable(in_pass) == 0;
    on_encoder(
        w,
        i,
        "pop_debug_group",
        "pop_debug_group()".into(),
        none,
        |o| {
            o.encoder.pop_debug_group()?;
            o.debug.open = o.debug.open.saturating_sub(1);
            Ok(())
        },
    );
}

fn pass_timestamps(w: &World<'_>, r: &mut Rng) -> (Option<PassTimestampWrites>, bool) {
    // With no live timestamp set (a device without TIMESTAMP_QUERY never has one) mostly
    // none: a null or stale set refuses the pass and poisons its encoder.
    if !r.chance(10) || (w.query_sets.live_count() == 0 && r.chance(80)) {
        return (None, false);
    }
    let (set, count, v) = w.query_sets.pick(r, w.id);
    let count = count.unwrap_or(2);
    let q = |r: &mut Rng| {
        if r.chance(30) {
            None
        } else {
            Some(r.edge_u32(count.min(64)))
        }
    };
    (
        Some(PassTimestampWrites {
            query_set: set,
            beginning: q(r),
            end: q(r),
        }),
        v.invalid(),
    )
}

/// Makes an encoder outside any pass available: ends a pass or opens an encoder.
pub(super) fn outside_pass(w: &mut World<'_>, r: &mut Rng) {
    if w.encoders.len() >= MAX_OPEN || r.chance(30) {
        end_pass(w, r)
    } else {
        create_encoder(w, r)
    }
}

pub fn begin_compute_pass(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    let (ts, invalid) = pass_timestamps(w, r);
    on_encoder(
        w,
        i,
        "begin_compute_pass",
        format!("begin_compute_pass({ts:?})"),
        invalid,
        |o| {
            o.encoder.begin_compute_pass(&ComputePassDescriptor {
                label: "fuzz compute pass",
                timestamp_writes: ts,
            })?;
            o.pass = PassState::Compute;
            o.debug.before_pass = o.debug.open;
            o.bound = Bound {
                last_written: o.bound.last_written,
                ..Bound::default()
            };
            Ok(())
        },
    );
}

pub fn end_pass(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p != PassState::None) else {
        return;
    };
    // An active occlusion query is ended first, mostly; else the end is refused.
    if w.encoders[i].bound.occlusion_active.is_some() && r.chance(85) {
        return occlusion_query(w, r);
    }
    // So is an active pipeline-statistics query.
    if w.encoders[i].bound.statistics_active.is_some() && r.chance(85) {
        return end_statistics_query(w, i);
    }
    // Debug groups the pass opened are closed first, mostly; else the end is refused.
    let open = w.encoders[i].debug.closable(true);
    if open > 0 && r.chance(85) {
        return pop_debug_group(w, i);
    }
    let render = in_render(&w.encoders[i].pass) != r.chance(5);
    if render {
        on_encoder(
            w,
            i,
            "end_render_pass",
            "end_render_pass()".into(),
            open > 0,
            |o| {
                o.encoder.end_render_pass()?;
                o.pass = PassState::None;
                Ok(())
            },
        );
    } else {
        on_encoder(
            w,
            i,
            "end_compute_pass",
            "end_compute_pass()".into(),
            open > 0,
            |o| {
                o.encoder.end_compute_pass()?;
                o.pass = PassState::None;
                Ok(())
            },
        );
    }
}

/// A view to render to: `format`, `samples`, one level and layer, `extent` (any when
/// `None`). Made (a texture and a view, two logged calls) when none exists.
fn target_view(
    w: &mut World<'_>,
    r: &mut Rng,
    format: TextureFormat,
    samples: u32,
    extent: Option<[u32; 2]>,
    taken: &[vigil::Texture],
) -> Option<(vigil::TextureView, ViewMeta)> {
    let textures = &w.textures;
    // Mostly a texture the pass does not already render to (a second attachment of one
    // texture is refused).
    let again = r.chance(5);
    let want = |m: &ViewMeta| {
        textures.is_live(m.texture)
            && (again || !taken.contains(&m.texture))
            && m.usage.contains(TextureUsages::RENDER_ATTACHMENT)
            && m.format == format
            && m.samples == samples
            && m.single
            && extent.is_none_or(|e| e == m.extent)
    };
    if let Some(found) = w.views.live_where(r, want) {
        if r.chance(85) {
            return Some(found);
        }
    }
    let side = extent.unwrap_or_else(|| {
        let s = r.pick(&[16, 64, 1, 8]);
        [s, s]
    });
    let mut usage = TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING;
    if samples == 1 {
        usage |= TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
    }
    let texture = make_texture(w, TextureDimension::D2, side, 1, 1, samples, format, usage)?;
    let meta = ViewMeta {
        texture,
        format,
        dimension: vigil::TextureViewDimension::D2,
        usage,
        samples,
        single: true,
        extent: side,
    };
    default_view(w, meta)
}

/// The default view of `meta.texture` (one logged call), remembered as `meta` says.
pub(super) fn default_view(
    w: &mut World<'_>,
    meta: ViewMeta,
) -> Option<(vigil::TextureView, ViewMeta)> {
    let texture = meta.texture;
    w.call(
        "create_texture_view",
        format!("create_texture_view({texture:?}, default)"),
        false,
        |w| {
            let v = w
                .device
                .create_texture_view(texture, &TextureViewDescriptor::default())?;
            w.views.add(v, meta);
            Ok((v, meta))
        },
    )
}

/// A 3D texture of `format` and `extent` (any when `None`) that passes can render into,
/// 2 or 4 slices deep, and its 3d view (two logged calls); with the view, its depth.
fn volume_target(
    w: &mut World<'_>,
    r: &mut Rng,
    format: TextureFormat,
    extent: Option<[u32; 2]>,
) -> Option<(vigil::TextureView, ViewMeta, u32)> {
    let side = extent.unwrap_or_else(|| {
        let s = r.pick(&[16, 8]);
        [s, s]
    });
    let depth = r.pick(&[2, 4]);
    let usage = TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC;
    let texture = make_texture(w, TextureDimension::D3, side, depth, 1, 1, format, usage)?;
    let meta = ViewMeta {
        texture,
        format,
        dimension: vigil::TextureViewDimension::D3,
        usage,
        samples: 1,
        single: false,
        extent: side,
    };
    default_view(w, meta).map(|(v, m)| (v, m, depth))
}

pub fn begin_render_pass(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    // Mostly a pass some live pipeline can draw in; now and then any recipe's.
    let (recipe, samples) = match w.render.any_live(r) {
        Some((_, m)) if r.chance(85) => (&RECIPES[m.recipe], m.samples),
        _ => {
            let renders: Vec<usize> = (0..RECIPES.len())
                .filter(|&k| matches!(RECIPES[k].shape, Shape::Render { .. }))
                .collect();
            let recipe = &RECIPES[renders[r.index(renders.len())]];
            (recipe, if r.chance(15) { 4 } else { 1 })
        }
    };
    let mut extent = None;
    let mut colors = Vec::new();
    let mut formats = Vec::new();
    let mut invalid = false;
    // Per color attachment, whether it names a slice past its volume (apart, since the
    // first attachment may be replaced below).
    let mut past_volume = Vec::new();
    // The volume an earlier attachment of this pass renders a slice of: a later attachment
    // of its format mostly renders another slice of it (now and then the same one, which
    // is refused; counted at the end, once the attachments are settled).
    let mut volume: Option<(vigil::TextureView, ViewMeta, u32)> = None;
    // The textures the pass's attachments so far render to.
    let mut taken: Vec<vigil::Texture> = Vec::new();
    for &format in recipe.targets {
        // Now and then a slice of a volume (mostly one inside it).
        let mut depth_slice = None;
        let mut past = false;
        let again = match volume {
            Some(v) if v.1.format == format && r.chance(70) => Some(v),
            _ => None,
        };
        let target = if again.is_some() || (samples == 1 && r.chance(6)) {
            again
                .or_else(|| volume_target(w, r, format, extent))
                .map(|(v, m, depth)| {
                    volume = Some((v, m, depth));
                    let z = if r.chance(85) {
                        r.pick(&[0, depth - 1])
                    } else {
                        past = true;
                        depth
                    };
                    depth_slice = Some(z);
                    (v, m)
                })
        } else {
            target_view(w, r, format, samples, extent, &taken)
        };
        let Some((view, meta)) = target else {
            return;
        };
        taken.push(meta.texture);
        extent = Some(meta.extent);
        let resolve_target = if samples == 4 && r.chance(60) {
            target_view(w, r, format, 1, extent, &taken).map(|(v, m)| {
                taken.push(m.texture);
                v
            })
        } else {
            None
        };
        let load = if r.chance(70) {
            LoadOp::Clear([0.0, r.pick(&[0.5, 1.0, f64::NAN, 1e300]), 0.0, 1.0])
        } else {
            LoadOp::Load
        };
        colors.push(Some(RenderPassColorAttachment {
            view,
            depth_slice,
            resolve_target,
            load,
            store: if r.chance(85) {
                StoreOp::Store
            } else {
                StoreOp::Discard
            },
        }));
        formats.push(Some(format));
        past_volume.push(past);
    }
    let mut depth = None;
    if let Some(format) = recipe.depth {
        let Some((view, meta)) = target_view(w, r, format, samples, extent, &taken) else {
            return;
        };
        extent = Some(meta.extent);
        depth = Some(RenderPassDepthStencilAttachment {
            view,
            depth_ops: r.chance(90).then(|| Operations {
                load: LoadOp::Clear(r.pick(&[1.0, 0.0, f32::NAN, 2.0])),
                store: StoreOp::Store,
            }),
            // Sometimes on a depth-only format, where they are refused.
            stencil_ops: r.chance(50).then(|| Operations {
                load: LoadOp::Clear(r.pick(&[0, 1, u32::MAX])),
                store: StoreOp::Store,
            }),
        });
    }
    let _ = extent;
    if r.chance(8) {
        // A stranger attachment: any view at all, in place of the first color one.
        let (v, _, validity) = w.views.pick(r, w.id);
        invalid |= validity.invalid();
        // Mostly no slice; now and then one, of whatever view it is.
        let depth_slice = if r.chance(15) {
            Some(r.pick(&[0, 1, 3, 4]))
        } else {
            None
        };
        if let Some(Some(c)) = colors.first_mut() {
            c.view = v;
            c.depth_slice = depth_slice;
            // Whatever the replaced attachment's slice was, it is gone.
            if let Some(p) = past_volume.first_mut() {
                *p = false;
            }
        } else {
            colors.push(Some(RenderPassColorAttachment {
                view: v,
                depth_slice,
                resolve_target: None,
                load: LoadOp::Load,
                store: StoreOp::Store,
            }));
            formats.push(None);
        }
    }
    invalid |= past_volume.contains(&true);
    // One slice of this pass's volume rendered by two attachments is refused.
    if let Some((vol, ..)) = volume {
        let mut slices = Vec::new();
        for c in colors.iter().flatten().filter(|c| c.view == vol) {
            if let Some(z) = c.depth_slice {
                invalid |= slices.contains(&z);
                slices.push(z);
            }
        }
    }
    let (ts, ts_invalid) = pass_timestamps(w, r);
    invalid |= ts_invalid;
    // Now and then an occlusion query set (with none live, mostly not: a null or stale set
    // refuses the pass); rarely a timestamp set in its place.
    let (occlusion, occlusion_count) =
        if r.chance(35) && (w.occlusion_sets.live_count() > 0 || r.chance(20)) {
            let timestamps = r.chance(10);
            let (set, count, v) = if timestamps {
                w.query_sets.pick(r, w.id)
            } else {
                w.occlusion_sets.pick(r, w.id)
            };
            invalid |= timestamps || v.invalid();
            (Some(set), count)
        } else {
            (None, None)
        };
    // Rarely multiview: refused without the feature or layered attachments.
    let multiview_mask = if r.chance(3) {
        std::num::NonZeroU32::new(r.pick(&[0b1, 0b11, 1 << 31]))
    } else {
        None
    };
    let what = format!("begin_render_pass({colors:?}, {depth:?}, {ts:?}, {multiview_mask:?})");
    let pass = PassState::Render {
        colors: formats,
        depth: recipe.depth,
        samples,
    };
    on_encoder(w, i, "begin_render_pass", what, invalid, |o| {
        o.encoder.begin_render_pass(&RenderPassDescriptor {
            label: "fuzz render pass",
            color_attachments: &colors,
            depth_stencil_attachment: depth,
            timestamp_writes: ts,
            multiview_mask,
            occlusion_query_set: occlusion,
        })?;
        o.pass = pass;
        o.debug.before_pass = o.debug.open;
        o.bound = Bound {
            last_written: o.bound.last_written,
            occlusion: occlusion.and(occlusion_count),
            ..Bound::default()
        };
        Ok(())
    });
}

/// Begins an occlusion query (mostly one inside the pass's set, now and then past it or
/// while one is active) or ends the active one (now and then when none is).
pub fn occlusion_query(w: &mut World<'_>, r: &mut Rng) {
    // Mostly a pass that names a set.
    let counting = (0..w.encoders.len()).find(|&i| {
        let o = &w.encoders[i];
        !o.encoder.is_poisoned() && in_render(&o.pass) && o.bound.occlusion.is_some()
    });
    let Some(i) = counting
        .filter(|_| r.chance(85))
        .or_else(|| pick_encoder(w, r, in_render))
    else {
        return begin_render_pass(w, r);
    };
    let bound = w.encoders[i].bound;
    if bound.occlusion_active.is_some() || r.chance(20) {
        let none = bound.occlusion_active.is_none();
        on_encoder(
            w,
            i,
            "end_occlusion_query",
            "end_occlusion_query()".into(),
            none,
            |o| {
                o.encoder.end_occlusion_query()?;
                o.bound.occlusion_active = None;
                Ok(())
            },
        );
        return;
    }
    let count = bound.occlusion.unwrap_or(1).max(1);
    let index = if r.chance(10) {
        r.edge_u32(count)
    } else {
        r.below(u64::from(count.min(64))) as u32
    };
    let refused = bound.occlusion.is_none() || index >= count;
    let what = format!("begin_occlusion_query({index})");
    on_encoder(w, i, "begin_occlusion_query", what, refused, |o| {
        o.encoder.begin_occlusion_query(index)?;
        o.bound.occlusion_active = Some(index);
        Ok(())
    });
}

/// Begins a pipeline-statistics query in a pass (mostly of a statistics set, inside it;
/// now and then past it, of an occlusion set, while one is active) or ends the active one
/// (now and then when none is).
pub fn statistics_query(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p != PassState::None) else {
        return begin_some_pass(w, r);
    };
    let bound = w.encoders[i].bound;
    if bound.statistics_active.is_some() || r.chance(20) {
        return end_statistics_query(w, i);
    }
    let (set, count, v, occlusion) = if r.chance(10) {
        let (s, c, v) = w.occlusion_sets.pick(r, w.id);
        (s, c, v, true)
    } else {
        let (s, c, v) = w.statistics_sets.pick(r, w.id);
        (s, c, v, false)
    };
    let count = count.unwrap_or(1).max(1);
    let index = if r.chance(10) {
        r.edge_u32(count)
    } else {
        r.below(u64::from(count.min(8))) as u32
    };
    let what = format!("begin_pipeline_statistics_query({set:?}, {index})");
    let refused = occlusion || v.invalid() || index >= count;
    on_encoder(
        w,
        i,
        "begin_pipeline_statistics_query",
        what,
        refused,
        |o| {
            o.encoder.begin_pipeline_statistics_query(set, index)?;
            o.bound.statistics_active = Some(index);
            Ok(())
        },
    );
}

/// Ends encoder `i`'s active pipeline-statistics query (refused when none is).
fn end_statistics_query(w: &mut World<'_>, i: usize) {
    let none = w.encoders[i].bound.statistics_active.is_none();
    on_encoder(
        w,
        i,
        "end_pipeline_statistics_query",
        "end_pipeline_statistics_query()".into(),
        none,
        |o| {
            o.encoder.end_pipeline_statistics_query()?;
            o.bound.statistics_active = None;
            Ok(())
        },
    );
}

/// Opens a pass of either kind (the state most commands need).
fn begin_some_pass(w: &mut World<'_>, r: &mut Rng) {
    if r.chance(50) {
        begin_compute_pass(w, r)
    } else {
        begin_render_pass(w, r)
    }
}

pub fn set_pipeline(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p != PassState::None) else {
        return begin_some_pass(w, r);
    };
    set_pipeline_on(w, r, i);
}

fn set_pipeline_on(w: &mut World<'_>, r: &mut Rng, i: usize) {
    match w.encoders[i].pass.clone() {
        PassState::Render {
            colors, samples, ..
        } => {
            let fits = |m: &crate::world::RenderMeta| {
                let recipe = &RECIPES[m.recipe];
                m.samples == samples
                    && recipe.targets.len() == colors.len()
                    && recipe
                        .targets
                        .iter()
                        .zip(&colors)
                        .all(|(a, b)| Some(*a) == *b)
            };
            let (p, recipe, v) = match w.render.live_where(r, fits) {
                Some((p, m)) if r.chance(90) => (p, Some(m.recipe), Validity::Live),
                _ => {
                    let (p, m, v) = w.render.pick(r, w.id);
                    (p, m.map(|m| m.recipe), v)
                }
            };
            let what = format!("set_render_pipeline({p:?})");
            on_encoder(w, i, "set_render_pipeline", what, v.invalid(), |o| {
                o.encoder.set_render_pipeline(p)?;
                o.bound.pipeline = recipe;
                Ok(())
            });
        }
        _ => {
            let (p, recipe, v) = w.compute.pick(r, w.id);
            let what = format!("set_compute_pipeline({p:?})");
            on_encoder(w, i, "set_compute_pipeline", what, v.invalid(), |o| {
                o.encoder.set_compute_pipeline(p)?;
                o.bound.pipeline = recipe;
                Ok(())
            });
        }
    }
}

pub fn set_bind_group(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p != PassState::None) else {
        return begin_some_pass(w, r);
    };
    set_bind_group_on(w, r, i);
}

fn set_bind_group_on(w: &mut World<'_>, r: &mut Rng, i: usize) {
    let index = match r.below(12) {
        0 => r.pick(&[1, 3, 4, 7, 8, 16, u32::MAX]),
        _ => 0,
    };
    let want = w.encoders[i].bound.pipeline;
    let (group, meta, v) = match w
        .groups
        .live_where(r, |m| want.is_some() && m.recipe == want)
    {
        Some((g, m)) if r.chance(85) => (g, Some(m), Validity::Live),
        _ => w.groups.pick(r, w.id),
    };
    let recipe = meta.as_ref().and_then(|m| m.recipe);
    let align = w.limits.min_uniform_buffer_offset_alignment.max(1);
    let mut offsets: Vec<u32> = (0..meta.as_ref().map_or(0, GroupMeta::dynamic_count))
        .map(|_| match r.below(10) {
            0 => r.edge_u32(align),
            1 => align,
            _ => 0,
        })
        .collect();
    if r.chance(6) {
        if r.chance(50) {
            offsets.push(0);
        } else {
            offsets.pop();
        }
    }
    let what = format!("set_bind_group({index}, {group:?}, {offsets:?})");
    on_encoder(w, i, "set_bind_group", what, v.invalid(), |o| {
        o.encoder.set_bind_group(index, group, &offsets)?;
        if index == 0 {
            o.bound.group = recipe;
        }
        Ok(())
    });
}

pub fn set_immediates(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p != PassState::None) else {
        return begin_some_pass(w, r);
    };
    let max = w.limits.max_immediate_size;
    let (offset, len) = match r.below(8) {
        0 => (r.edge_u32(4), r.pick(&[0usize, 2, 4, 8, 260])),
        1 => (max.saturating_sub(4), 8),
        _ => (4 * r.below(u64::from(max / 4).max(1)) as u32, 4),
    };
    let data: Vec<u8> = (0..len).map(|_| r.below(256) as u8).collect();
    let what = format!("set_immediates({offset}, {len} bytes)");
    on_encoder(w, i, "set_immediates", what, false, |o| {
        o.encoder.set_immediates(offset, &data)
    });
}

/// A live buffer with `usage` (and, when `only_controlled`, one the fuzzer keeps small
/// values in), or any pick.
pub(super) fn buffer_for(
    w: &World<'_>,
    r: &mut Rng,
    usage: BufferUsages,
) -> (vigil::Buffer, u64, Validity) {
    if r.chance(90) {
        if let Some((b, m)) = w.buffers.live_where(r, |m| m.usage.contains(usage)) {
            return (b, m.size, Validity::Live);
        }
    }
    let (b, m, v) = w.buffers.pick(r, w.id);
    (b, m.map_or(0, |m| m.size), v)
}

pub fn set_vertex_buffer(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, in_render) else {
        return begin_render_pass(w, r);
    };
    let slot = match r.below(10) {
        0 => r.pick(&[w.limits.max_vertex_buffers, 16, 17, u32::MAX]),
        1..=4 => 1,
        _ => 0,
    };
    set_vertex_buffer_on(w, r, i, slot);
}

fn set_vertex_buffer_on(w: &mut World<'_>, r: &mut Rng, i: usize, slot: u32) {
    let (buffer, size, v) = buffer_for(w, r, BufferUsages::VERTEX);
    let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 4) };
    let range = if r.chance(70) {
        None
    } else {
        Some(r.edge_u64(size, 4))
    };
    let what = format!("set_vertex_buffer({slot}, {buffer:?}, {offset}, {range:?})");
    on_encoder(w, i, "set_vertex_buffer", what, v.invalid(), |o| {
        o.encoder.set_vertex_buffer(slot, buffer, offset, range)?;
        if slot < 32 {
            o.bound.vertex_slots |= 1 << slot;
        }
        Ok(())
    });
}

pub fn set_index_buffer(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, in_render) else {
        return begin_render_pass(w, r);
    };
    set_index_buffer_on(w, r, i, false);
}

/// Sets an index buffer on encoder `i`: with `careful` (a draw's prerequisite) a live
/// index buffer whole (made first when there is none), else also offsets and ranges at
/// the edges and buffers of other usages.
fn set_index_buffer_on(w: &mut World<'_>, r: &mut Rng, i: usize, careful: bool) {
    if careful
        && w.buffers
            .live_where(r, |m| m.usage.contains(BufferUsages::INDEX))
            .is_none()
    {
        super::objects::make_buffer(w, 256, BufferUsages::INDEX | BufferUsages::COPY_DST);
    }
    let (buffer, size, v) = buffer_for(w, r, BufferUsages::INDEX);
    let format = r.pick(&[IndexFormat::Uint16, IndexFormat::Uint32]);
    let offset = if careful || r.chance(70) {
        0
    } else {
        r.edge_u64(size, 4)
    };
    let range = if careful || r.chance(70) {
        None
    } else {
        Some(r.edge_u64(size, 2))
    };
    let what = format!("set_index_buffer({buffer:?}, {format:?}, {offset}, {range:?})");
    on_encoder(w, i, "set_index_buffer", what, v.invalid(), |o| {
        o.encoder.set_index_buffer(buffer, format, offset, range)?;
        o.bound.index = true;
        Ok(())
    });
}

pub fn set_dynamic_state(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, in_render) else {
        return begin_render_pass(w, r);
    };
    match r.below(4) {
        0 => {
            // Mostly one that holds (a small rectangle, depths ordered within 0..=1),
            // which draws then run under; otherwise one value at an edge.
            let unit = |r: &mut Rng| r.below(1001) as f32 / 1000.0;
            let min_depth = unit(r) * 0.5;
            let mut v = [
                unit(r) * 8.0,
                unit(r) * 8.0,
                1.0 + unit(r) * 31.0,
                1.0 + unit(r) * 31.0,
                min_depth,
                min_depth + unit(r) * (1.0 - min_depth),
            ];
            if r.chance(30) {
                let k = r.index(v.len());
                v[k] = r.edge_f32(v[k]);
            }
            on_encoder(
                w,
                i,
                "set_viewport",
                format!("set_viewport({v:?})"),
                false,
                |o| o.encoder.set_viewport(v[0], v[1], v[2], v[3], v[4], v[5]),
            );
        }
        1 => {
            // Mostly a small rectangle at the corner (inside most targets), otherwise
            // values at the edges.
            let s = if r.chance(60) {
                let small = |r: &mut Rng| r.below(3) as u32;
                [small(r), small(r), 1 + small(r), 1 + small(r)]
            } else {
                [r.edge_u32(4), r.edge_u32(4), r.edge_u32(16), r.edge_u32(16)]
            };
            let what = format!("set_scissor_rect({s:?})");
            on_encoder(w, i, "set_scissor_rect", what, false, |o| {
                o.encoder.set_scissor_rect(s[0], s[1], s[2], s[3])
            });
        }
        2 => {
            let c = [
                r.edge_f32(1.0),
                r.edge_f32(1.0),
                r.edge_f32(1.0),
                r.edge_f32(1.0),
            ];
            let what = format!("set_blend_constant({c:?})");
            on_encoder(w, i, "set_blend_constant", what, false, |o| {
                o.encoder.set_blend_constant(c)
            });
        }
        _ => {
            let reference = r.edge_u32(255);
            let what = format!("set_stencil_reference({reference})");
            on_encoder(w, i, "set_stencil_reference", what, false, |o| {
                o.encoder.set_stencil_reference(reference)
            });
        }
    }
}

/// A range of small length starting anywhere (edges included), inverted now and then.
pub(super) fn range(r: &mut Rng, typical: u32) -> std::ops::Range<u32> {
    let start = match r.below(10) {
        0 => r.pick(&[u32::MAX - 1, u32::MAX, 1 << 31, 100]),
        _ => r.below(4) as u32,
    };
    let len = r.pick(&[0, 1, 3, typical, typical.saturating_mul(4)]);
    if r.chance(6) {
        let end = start.saturating_sub(r.pick(&[1, 3]));
        return start.max(1)..end.min(start.saturating_sub(1));
    }
    start..start.saturating_add(len)
}

/// Makes the call a draw or dispatch on encoder `i` still lacks, if any (most of the
/// time: a draw with state missing is refused and poisons the encoder, and a draw takes
/// up to five of these steps, so a skip each time in seven left few draws standing);
/// `true` when it made one.
fn prerequisite(w: &mut World<'_>, r: &mut Rng, i: usize, indexed: bool) -> bool {
    if !r.chance(93) {
        return false;
    }
    let bound = w.encoders[i].bound;
    let Some(recipe) = bound.pipeline else {
        set_pipeline_on(w, r, i);
        return true;
    };
    let needs_group = !(RECIPES[recipe].group)().is_empty();
    if needs_group && bound.group != Some(recipe) {
        set_bind_group_on(w, r, i);
        return true;
    }
    if in_render(&w.encoders[i].pass) {
        let slots = RECIPES[recipe].vertex_buffers.len() as u32;
        let missing = (0..slots).find(|s| bound.vertex_slots & (1 << s) == 0);
        if let Some(slot) = missing {
            set_vertex_buffer_on(w, r, i, slot);
            return true;
        }
        if indexed && !bound.index {
            set_index_buffer_on(w, r, i, true);
            return true;
        }
    }
    false
}

pub fn draw(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, in_render) else {
        return begin_render_pass(w, r);
    };
    let kind = r.below(10);
    if prerequisite(w, r, i, (5..=7).contains(&kind) || kind == 9) {
        return;
    }
    match kind {
        0..=4 => {
            let (vertices, instances) = (range(r, 6), range(r, 2));
            let what = format!("draw({vertices:?}, {instances:?})");
            on_encoder(w, i, "draw", what, false, |o| {
                o.encoder.draw(vertices, instances)
            });
        }
        5..=7 => {
            let (indices, instances) = (range(r, 6), range(r, 2));
            let base = r.pick(&[0, 0, 0, 1, -1, i32::MAX, i32::MIN]);
            let what = format!("draw_indexed({indices:?}, {base}, {instances:?})");
            on_encoder(w, i, "draw_indexed", what, false, |o| {
                o.encoder.draw_indexed(indices, base, instances)
            });
        }
        _ => {
            let indexed = kind == 9;
            let (buffer, size, v) = args_buffer(w, r);
            let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 4) };
            if r.chance(25) {
                // Several draws in one call: as many as fit, one past them, none, or past
                // the per-call bound.
                let stride = if indexed { 20 } else { 16 };
                let fit = u32::try_from(size.saturating_sub(offset) / stride).unwrap_or(0);
                let count = r.pick(&[
                    fit,
                    fit.saturating_add(1),
                    fit.min(2),
                    0,
                    vigil::MAX_MULTI_DRAW_COUNT + 1,
                ]);
                if r.chance(40) {
                    // The count read by the GPU: from another INDIRECT buffer (or the same,
                    // or one refused), at an edge of it; the device may lack the feature
                    // or check first instances, and the count the buffer holds is what
                    // the fuzzer's writes left there.
                    let (cbuf, csize, cv) = args_buffer(w, r);
                    let at = if r.chance(60) {
                        0
                    } else {
                        r.edge_u64(csize, 4)
                    };
                    let what = format!(
                        "multi_draw_count(indexed {indexed}, {buffer:?}, {offset}, {cbuf:?}, {at}, {count})"
                    );
                    let invalid = v.invalid() || cv.invalid();
                    on_encoder(w, i, "multi_draw_indirect_count", what, invalid, |o| {
                        if indexed {
                            o.encoder
                                .multi_draw_indexed_indirect_count(buffer, offset, cbuf, at, count)
                        } else {
                            o.encoder
                                .multi_draw_indirect_count(buffer, offset, cbuf, at, count)
                        }
                    });
                    return;
                }
                let what = format!("multi_draw(indexed {indexed}, {buffer:?}, {offset}, {count})");
                on_encoder(w, i, "multi_draw_indirect", what, v.invalid(), |o| {
                    if indexed {
                        o.encoder.multi_draw_indexed_indirect(buffer, offset, count)
                    } else {
                        o.encoder.multi_draw_indirect(buffer, offset, count)
                    }
                });
            } else if indexed {
                if r.chance(25) {
                    return huge_draw_args(w, r, i);
                }
                let what = format!("draw_indexed_indirect({buffer:?}, {offset})");
                on_encoder(w, i, "draw_indexed_indirect", what, v.invalid(), |o| {
                    o.encoder.draw_indexed_indirect(buffer, offset)
                });
            } else {
                let what = format!("draw_indirect({buffer:?}, {offset})");
                on_encoder(w, i, "draw_indirect", what, v.invalid(), |o| {
                    o.encoder.draw_indirect(buffer, offset)
                });
            }
        }
    }
}

/// `words` as a buffer holds them.
fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A buffer made for one operation, outside the world's pools (`what`: the call as the
/// trace shows it).
fn own_buffer(
    w: &mut World<'_>,
    label: &str,
    size: u64,
    usage: BufferUsages,
    what: String,
) -> Option<vigil::Buffer> {
    let desc = vigil::BufferDescriptor { label, size, usage };
    w.call("create_buffer", what, false, |w| {
        w.device.create_buffer(&desc)
    })
}

/// An indexed indirect draw in encoder `i`'s render pass whose arguments name indices far
/// past any index range the world binds (its buffers are at most 64 MiB: 2^25 16-bit
/// indices), from a buffer of its own that nothing else reads (kept until the health
/// check): vigil's check on the GPU must make it draw nothing. Without that check lavapipe
/// ran such a draw for minutes (seed 50039).
fn huge_draw_args(w: &mut World<'_>, r: &mut Rng, i: usize) {
    let args: [u32; 5] = if r.chance(50) {
        [r.pick(&[u32::MAX, 1 << 31, (1 << 28) + 3]), 1, 0, 0, 0]
    } else {
        [3, 1, r.pick(&[u32::MAX - 2, u32::MAX, 1 << 30]), 0, 0]
    };
    let usage = BufferUsages::INDIRECT | BufferUsages::COPY_DST;
    let what = format!("create_buffer(huge draw args {args:?})");
    let Some(b) = own_buffer(w, "huge draw args", 20, usage, what) else {
        return;
    };
    w.huge_args.push(b);
    let bytes = le_bytes(&args);
    let what = format!("write_buffer({b:?}, 0, huge draw args)");
    w.call("write_buffer", what, false, |w| {
        w.device.write_buffer(b, 0, &bytes)
    });
    let what = format!("draw_indexed_indirect({b:?}, 0) of {args:?}");
    on_encoder(w, i, "draw_indexed_indirect", what, false, |o| {
        o.encoder.draw_indexed_indirect(b, 0)
    });
}

/// An indirect-argument buffer the fuzzer keeps small values in, or any pick.
pub(super) fn args_buffer(w: &World<'_>, r: &mut Rng) -> (vigil::Buffer, u64, Validity) {
    if r.chance(90) {
        if let Some((b, m)) = w
            .buffers
            .live_where(r, |m| m.usage.contains(BufferUsages::INDIRECT))
        {
            return (b, m.size, Validity::Live);
        }
    }
    // Any other buffer: its usage lacks INDIRECT (refused) or it is controlled too.
    let (b, m, v) = w.buffers.pick(r, w.id);
    (b, m.map_or(0, |m| m.size), v)
}

pub fn dispatch(w: &mut World<'_>, r: &mut Rng) {
    if r.chance(6) {
        return huge_counts(w, r);
    }
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::Compute) else {
        return begin_compute_pass(w, r);
    };
    if prerequisite(w, r, i, false) {
        return;
    }
    if r.chance(80) {
        let max = w.limits.max_compute_workgroups_per_dimension;
        let mut dims = [r.pick(&[1, 1, 2, 7, 0]), 1, r.pick(&[1, 1, 2])];
        if r.chance(10) {
            dims[r.index(3)] = r.pick(&[max, max.saturating_add(1), u32::MAX]);
        }
        let what = format!("dispatch({dims:?})");
        on_encoder(w, i, "dispatch", what, false, |o| {
            o.encoder.dispatch(dims[0], dims[1], dims[2])
        });
    } else {
        let (buffer, size, v) = args_buffer(w, r);
        let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 4) };
        let what = format!("dispatch_indirect({buffer:?}, {offset})");
        on_encoder(w, i, "dispatch_indirect", what, v.invalid(), |o| {
            o.encoder.dispatch_indirect(buffer, offset)
        });
    }
}

/// An indirect dispatch whose counts pass the limit, from a buffer of its own that
/// nothing else in the world reads (the world's buffers hold only small words, so no
/// draw or index reads ask for much work), recorded into a new encoder with a live
/// pipeline and group bound, then submitted: vigil's check on the GPU must turn it into a
/// dispatch of nothing. Half the time the counts reach the buffer through a copy the same
/// recording makes before its pass (so the check runs in front of the pass), otherwise
/// through a queue write. The buffers are destroyed once submitted, while the GPU may still
/// be reading them.
fn huge_counts(w: &mut World<'_>, r: &mut Rng) {
    let max = w.limits.max_compute_workgroups_per_dimension;
    let mut counts = [1u32, 1, 1];
    counts[r.index(3)] = r.pick(&[max.saturating_add(1), u32::MAX, 1 << 31]);
    if r.chance(30) {
        counts = [u32::MAX; 3];
    }
    let offset = 4 * r.below(4);
    let usage = BufferUsages::INDIRECT | BufferUsages::COPY_DST;
    let what = format!("create_buffer(huge counts {counts:?} at {offset})");
    let Some(b) = own_buffer(w, "huge counts", 32, usage, what) else {
        return;
    };
    let bytes = le_bytes(&counts);
    // Half the time the counts are copied in by the recording itself, before its pass
    // (vigil checks them in front of the pass), from a buffer of their own; the
    // argument buffer holds counts of one until then.
    let copied = r.chance(50);
    let src = if copied {
        let usage = BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
        let what = "create_buffer(huge counts source)".to_owned();
        own_buffer(w, "huge counts source", 32, usage, what)
    } else {
        None
    };
    let (target, first) = match src {
        Some(s) => (s, [1u8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0].to_vec()),
        None => (b, Vec::new()),
    };
    if !first.is_empty() {
        let what = format!("write_buffer({b:?}, {offset}, counts of one)");
        w.call("write_buffer", what, false, |w| {
            w.device.write_buffer(b, offset, &first)
        });
    }
    let what = format!("write_buffer({target:?}, {offset}, huge counts)");
    w.call("write_buffer", what, false, |w| {
        w.device.write_buffer(target, offset, &bytes)
    });
    let open = match src {
        Some(s) => {
            let what = format!("copy_buffer_to_buffer({s:?}, 0, {b:?}, 0, 32), ");
            super::threads::ready_encoder(w, r, &what, |e| e.copy_buffer_to_buffer(s, 0, b, 0, 32))
        }
        None => super::threads::ready_encoder(w, r, "", |_| Ok(())),
    };
    let destroy = |w: &mut World<'_>| {
        for x in std::iter::once(b).chain(src) {
            let what = format!("destroy_buffer({x:?}) (huge counts)");
            w.call("destroy_buffer", what, false, |w| {
                w.device.destroy_buffer(x)
            });
        }
    };
    let Some((mut open, _, _)) = open else {
        return destroy(w);
    };
    let id = open.id;
    let what = format!("enc{id}.dispatch_indirect({b:?}, {offset}) of {counts:?}");
    let accepted = w
        .call("dispatch_indirect", what, false, |_| {
            open.encoder.dispatch_indirect(b, offset)
        })
        .is_some();
    let what = format!("enc{id}: end_compute_pass, finish, submit (accepted: {accepted})");
    w.call("submit", what, false, |w| {
        open.encoder.end_compute_pass()?;
        w.device.submit([open.encoder.finish()?]).map(drop)
    });
    destroy(w);
}

fn copy_at(r: &mut Rng, mips: u32, layers: u32) -> TexelCopyTextureInfo {
    TexelCopyTextureInfo {
        mip_level: if r.chance(80) { 0 } else { r.edge_u32(mips) },
        origin: if r.chance(80) {
            [0, 0]
        } else {
            [r.edge_u32(16), r.edge_u32(16)]
        },
        array_layer: if r.chance(80) { 0 } else { r.edge_u32(layers) },
        aspect: if r.chance(90) {
            TextureAspect::All
        } else {
            r.pick(&[TextureAspect::DepthOnly, TextureAspect::StencilOnly])
        },
    }
}

fn copy_size(r: &mut Rng, size: [u32; 2]) -> [u32; 3] {
    if r.chance(70) {
        [size[0], size[1], 1]
    } else {
        [r.edge_u32(size[0]), r.edge_u32(size[1]), r.edge_u32(1)]
    }
}

fn buffer_layout(r: &mut Rng, bytes_per_row: u32, rows: u32, size: u64) -> TexelCopyBufferLayout {
    TexelCopyBufferLayout {
        offset: if r.chance(75) {
            0
        } else {
            r.edge_u64(size, 256)
        },
        bytes_per_row: if r.chance(75) {
            bytes_per_row.div_ceil(256) * 256
        } else {
            r.pick(&[0, 255, 256, 512, u32::MAX, bytes_per_row])
        },
        rows_per_image: if r.chance(80) {
            None
        } else {
            Some(r.edge_u32(rows))
        },
    }
}

pub fn copy(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    // Destinations never include controlled buffers (see `controlled`).
    let dst_buffer = |w: &World<'_>, r: &mut Rng| -> (vigil::Buffer, u64, Validity) {
        if r.chance(92) {
            if let Some((b, m)) = w.buffers.live_where(r, |m| {
                m.usage.contains(BufferUsages::COPY_DST) && !controlled(m.usage)
            }) {
                return (b, m.size, Validity::Live);
            }
        }
        let (b, m, v) = w.buffers.pick(r, w.id);
        if v == Validity::Live && m.is_some_and(|m| controlled(m.usage)) {
            return (vigil::Buffer::NULL, 0, Validity::Null);
        }
        (b, m.map_or(0, |m| m.size), v)
    };
    match r.below(7) {
        0 | 1 => {
            let (src, src_size, sv) = match w.encoders[i].bound.last_written {
                Some(b) if r.chance(50) && w.buffers.is_live(b) => {
                    let m = w
                        .buffers
                        .items
                        .iter()
                        .find(|e| e.handle == b)
                        .map(|e| e.meta);
                    (b, m.map_or(0, |m| m.size), Validity::Live)
                }
                _ => buffer_for(w, r, BufferUsages::COPY_SRC),
            };
            let (dst, dst_size, dv) = dst_buffer(w, r);
            let size = if r.chance(60) {
                src_size.min(dst_size) / 4 * 4
            } else {
                r.edge_u64(src_size.min(dst_size), 4)
            };
            let so = if r.chance(70) {
                0
            } else {
                r.edge_u64(src_size, 4)
            };
            let d_o = if r.chance(70) {
                0
            } else {
                r.edge_u64(dst_size, 4)
            };
            // A third of the copies have offsets and size in whole 16-byte elements, as
            // copies by kernel need (seeds that arm the seam then take the kernel).
            let (so, d_o, size) = if r.chance(33) {
                (so & !15, d_o & !15, size & !15)
            } else {
                (so, d_o, size)
            };
            let what = format!("copy_buffer_to_buffer({src:?}, {so}, {dst:?}, {d_o}, {size})");
            on_encoder(
                w,
                i,
                "copy_buffer_to_buffer",
                what,
                sv.invalid() || dv.invalid(),
                |o| {
                    o.encoder.copy_buffer_to_buffer(src, so, dst, d_o, size)?;
                    o.bound.last_written = Some(dst);
                    Ok(())
                },
            );
        }
        2 => {
            let (b, size, v) = buffer_for(w, r, BufferUsages::COPY_DST);
            let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 4) };
            let len = if r.chance(50) {
                None
            } else {
                Some(r.edge_u64(size, 4))
            };
            let what = format!("clear_buffer({b:?}, {offset}, {len:?})");
            on_encoder(w, i, "clear_buffer", what, v.invalid(), |o| {
                o.encoder.clear_buffer(b, offset, len)
            });
        }
        3 | 4 => {
            let to_texture = r.chance(50);
            let want = if to_texture {
                TextureUsages::COPY_DST
            } else {
                TextureUsages::COPY_SRC
            };
            let (t, tm, tv) = match w.textures.live_where(r, |m| m.usage.contains(want)) {
                Some((t, m)) if r.chance(90) => (t, Some(m), Validity::Live),
                _ => w.textures.pick(r, w.id),
            };
            let (size, mips, layers, texel) = tm.map_or(([4, 4], 1, 1, 4), |m| {
                (
                    m.size,
                    m.mips,
                    m.layers,
                    m.format.info().bytes_per_texel.max(1),
                )
            });
            let (b, bsize, bv) = if to_texture {
                buffer_for(w, r, BufferUsages::COPY_SRC)
            } else {
                dst_buffer(w, r)
            };
            let at = copy_at(r, mips, layers);
            let extent = copy_size(r, size);
            let layout = buffer_layout(r, size[0].saturating_mul(texel), size[1], bsize);
            let invalid = tv.invalid() || bv.invalid();
            if to_texture {
                let what =
                    format!("copy_buffer_to_texture({b:?}, {layout:?}, {t:?}, {at:?}, {extent:?})");
                on_encoder(w, i, "copy_buffer_to_texture", what, invalid, |o| {
                    o.encoder.copy_buffer_to_texture(b, layout, t, at, extent)
                });
            } else {
                let what =
                    format!("copy_texture_to_buffer({t:?}, {at:?}, {b:?}, {layout:?}, {extent:?})");
                on_encoder(w, i, "copy_texture_to_buffer", what, invalid, |o| {
                    o.encoder.copy_texture_to_buffer(t, at, b, layout, extent)
                });
            }
        }
        6 => clear_texture(w, r, i),
        _ => {
            let (src, sm, sv) = match w
                .textures
                .live_where(r, |m| m.usage.contains(TextureUsages::COPY_SRC))
            {
                Some((t, m)) if r.chance(90) => (t, Some(m), Validity::Live),
                _ => w.textures.pick(r, w.id),
            };
            let (dst, dm, dv) = match w.textures.live_where(r, |m| {
                m.usage.contains(TextureUsages::COPY_DST) && sm.is_none_or(|s| s.format == m.format)
            }) {
                Some((t, m)) if r.chance(90) => (t, Some(m), Validity::Live),
                _ => w.textures.pick(r, w.id),
            };
            let size = match (sm, dm) {
                (Some(s), Some(d)) => [s.size[0].min(d.size[0]), s.size[1].min(d.size[1])],
                _ => [4, 4],
            };
            let src_at = copy_at(r, sm.map_or(1, |m| m.mips), sm.map_or(1, |m| m.layers));
            let dst_at = copy_at(r, dm.map_or(1, |m| m.mips), dm.map_or(1, |m| m.layers));
            let extent = copy_size(r, size);
            let what = format!(
                "copy_texture_to_texture({src:?}, {src_at:?}, {dst:?}, {dst_at:?}, {extent:?})"
            );
            on_encoder(
                w,
                i,
                "copy_texture_to_texture",
                what,
                sv.invalid() || dv.invalid(),
                |o| {
                    o.encoder
                        .copy_texture_to_texture(src, src_at, dst, dst_at, extent)
                },
            );
        }
    }
}

/// `clear_texture` of any texture (live mostly, or stale, null, foreign), of an aspect it
/// may lack, over mip levels and layers at and past its edges; refused exactly when the
/// handle or the range is wrong.
fn clear_texture(w: &mut World<'_>, r: &mut Rng, i: usize) {
    let (t, m, v) = match w.textures.live_where(r, |_| true) {
        Some((t, m)) if r.chance(90) => (t, Some(m), Validity::Live),
        _ => w.textures.pick(r, w.id),
    };
    let (mips, layers) = m.map_or((1, 1), |m| {
        let layers = if m.dimension == vigil::TextureDimension::D3 {
            1
        } else {
            m.layers
        };
        (m.mips, layers)
    });
    let aspect = if r.chance(80) {
        vigil::TextureAspect::All
    } else {
        r.pick(&[
            vigil::TextureAspect::DepthOnly,
            vigil::TextureAspect::StencilOnly,
        ])
    };
    let mut edge = |n: u32| {
        let base = if r.chance(70) { 0 } else { r.edge_u32(n) };
        let count = if r.chance(60) {
            None
        } else {
            Some(r.edge_u32(n))
        };
        (base, count)
    };
    let (base_mip_level, mip_level_count) = edge(mips);
    let (base_array_layer, array_layer_count) = edge(layers);
    let range = vigil::ImageSubresourceRange {
        aspect,
        base_mip_level,
        mip_level_count,
        base_array_layer,
        array_layer_count,
    };
    let outside = |base: u32, count: Option<u32>, n: u32| {
        let count = count.unwrap_or(n.saturating_sub(base));
        u64::from(base) + u64::from(count) > u64::from(n)
    };
    let wrong = m.is_some_and(|m| {
        let info = m.format.info();
        let aspect_missing = match aspect {
            vigil::TextureAspect::DepthOnly => !info.has_depth,
            vigil::TextureAspect::StencilOnly => !info.has_stencil,
            vigil::TextureAspect::All => false,
        };
        aspect_missing
            || outside(base_mip_level, mip_level_count, mips)
            || outside(base_array_layer, array_layer_count, layers)
    });
    let what = format!("clear_texture({t:?}, {range:?})");
    on_encoder(w, i, "clear_texture", what, v.invalid() || wrong, |o| {
        o.encoder.clear_texture(t, &range)
    });
}

pub fn timestamps(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    // Now and then an occlusion set: resolved as a timestamp set is, never written into;
    // or a pipeline-statistics set (its queries several values each).
    let occlusion = r.chance(30);
    // With no live set of the kind, mostly make one first (writes and resolves of null
    // and stale sets are most of what they were otherwise).
    let none_live = if occlusion {
        w.statistics_sets.live_count() + w.occlusion_sets.live_count() == 0
    } else {
        w.query_sets.live_count() == 0
    };
    if none_live && r.chance(70) {
        return super::objects::create_query_set(w, r);
    }
    let (set, count, v) = if occlusion && r.chance(50) {
        w.statistics_sets.pick(r, w.id)
    } else if occlusion {
        w.occlusion_sets.pick(r, w.id)
    } else {
        w.query_sets.pick(r, w.id)
    };
    let count = count.unwrap_or(2);
    if r.chance(50) {
        let index = r.edge_u32(count.min(64));
        let what = format!("write_timestamp({set:?}, {index})");
        on_encoder(
            w,
            i,
            "write_timestamp",
            what,
            occlusion || v.invalid(),
            |o| o.encoder.write_timestamp(set, index),
        );
    } else {
        let (dst, size, dv) = if r.chance(90) {
            match w
                .buffers
                .live_where(r, |m| m.usage.contains(BufferUsages::QUERY_RESOLVE))
            {
                Some((b, m)) => (b, m.size, Validity::Live),
                None => (vigil::Buffer::NULL, 0, Validity::Null),
            }
        } else {
            (vigil::Buffer::NULL, 0, Validity::Null)
        };
        let first = if r.chance(70) { 0 } else { r.edge_u32(count) };
        let n = if r.chance(60) {
            count.min(8)
        } else {
            r.edge_u32(count)
        };
        let offset = if r.chance(70) {
            0
        } else {
            r.edge_u64(size, 256)
        };
        let what = format!("resolve_query_set({set:?}, {first}, {n}, {dst:?}, {offset})");
        on_encoder(
            w,
            i,
            "resolve_query_set",
            what,
            v.invalid() || dv.invalid(),
            |o| o.encoder.resolve_query_set(set, first, n, dst, offset),
        );
    }
}

/// Stages a transition names: mostly one that goes with its access, now and then any.
const TRANSITION_STAGES: [vigil::Stages; 9] = [
    vigil::Stages::TRANSFER,
    vigil::Stages::COMPUTE,
    vigil::Stages::DRAW_INDIRECT,
    vigil::Stages::VERTEX_INPUT,
    vigil::Stages::VERTEX_SHADER,
    vigil::Stages::FRAGMENT_SHADER,
    vigil::Stages::DEPTH_STENCIL,
    vigil::Stages::COLOR_ATTACHMENT,
    vigil::Stages::HOST,
];

/// A use to prepare: stages, access and layout that go together (mostly), or a random mix.
fn transition_use(r: &mut Rng) -> (vigil::Stages, vigil::Access, vigil::TextureLayout) {
    use vigil::{Access as A, Stages as S, TextureLayout as L};
    let uses = [
        (S::COMPUTE, A::SHADER_READ, L::General),
        (S::COMPUTE, A::SHADER_READ | A::SHADER_WRITE, L::General),
        (S::FRAGMENT_SHADER, A::SHADER_READ, L::ShaderReadOnly),
        (
            S::VERTEX_SHADER | S::FRAGMENT_SHADER,
            A::UNIFORM_READ,
            L::General,
        ),
        (S::VERTEX_INPUT, A::VERTEX_READ | A::INDEX_READ, L::General),
        (S::DRAW_INDIRECT, A::INDIRECT_READ, L::General),
        (S::TRANSFER, A::TRANSFER_READ, L::TransferSrc),
        (S::TRANSFER, A::TRANSFER_WRITE, L::TransferDst),
        (
            S::COLOR_ATTACHMENT,
            A::COLOR_READ | A::COLOR_WRITE,
            L::ColorAttachment,
        ),
        (
            S::DEPTH_STENCIL,
            A::DEPTH_STENCIL_READ | A::DEPTH_STENCIL_WRITE,
            L::DepthStencilAttachment,
        ),
    ];
    if r.chance(85) {
        return uses[r.index(uses.len())];
    }
    let layouts = [
        L::Undefined,
        L::General,
        L::ShaderReadOnly,
        L::ColorAttachment,
        L::DepthStencilAttachment,
        L::TransferSrc,
        L::TransferDst,
        L::Present,
    ];
    let mut stages = S::empty();
    for _ in 0..r.below(3) {
        stages |= r.pick(&TRANSITION_STAGES);
    }
    let access = A::from_bits_truncate(r.below(1 << 14) as u32);
    (stages, access, r.pick(&layouts))
}

/// Prepares buffers and textures for the next commands of an encoder: mostly live objects
/// and uses their usages allow, now and then a stale handle, a bad range, a stage that
/// does not go with the access, or a layout the texture cannot take.
pub fn transition(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    let mut invalid = false;
    let mut buffers = Vec::new();
    for _ in 0..r.below(3) {
        let (buffer, meta, v) = w.buffers.pick(r, w.id);
        invalid |= v.invalid();
        let size = meta.map_or(0, |m| m.size);
        let (stages, access, _) = transition_use(r);
        let (offset, len) = if r.chance(70) {
            (0, None)
        } else {
            (r.edge_u64(size, 4), Some(r.edge_u64(size, 4)))
        };
        buffers.push(vigil::BufferTransition {
            buffer,
            offset,
            size: len,
            stages,
            access,
        });
    }
    let mut textures = Vec::new();
    for _ in 0..r.below(3) {
        let (texture, meta, v) = w.textures.pick(r, w.id);
        invalid |= v.invalid();
        let (mips, layers) = meta.map_or((1, 1), |m| (m.mips, m.layers));
        let (stages, access, layout) = transition_use(r);
        let (base_mip_level, mip_level_count) = if r.chance(70) {
            (0, None)
        } else {
            (r.edge_u32(mips), Some(r.edge_u32(mips)))
        };
        let (base_array_layer, array_layer_count) = if r.chance(70) {
            (0, None)
        } else {
            (r.edge_u32(layers), Some(r.edge_u32(layers)))
        };
        textures.push(vigil::TextureTransition {
            texture,
            base_mip_level,
            mip_level_count,
            base_array_layer,
            array_layer_count,
            stages,
            access,
            layout,
        });
    }
    let what = format!(
        "transition_resources({} buffers, {} textures)",
        buffers.len(),
        textures.len()
    );
    on_encoder(w, i, "transition_resources", what, invalid, |o| {
        o.encoder.transition_resources(&buffers, &textures)
    });
}
