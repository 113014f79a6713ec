//! Surfaces over no window (`create_headless_surface`): made, configured (mostly within
//! their capabilities; now and then a size of zero or past the bounds, a format, mode or
//! usage they lack), frames acquired, presented and abandoned, and surfaces destroyed with
//! a frame out. Each frame joins the world's textures with a view of it, so the other
//! operations render into it, copy it, try to bind, export and destroy it, and keep using
//! its handle and view after it was presented. On a device without such surfaces every
//! creation is refused, which is exercised too.
//!
//! A frame out is presented or abandoned before its surface is configured or acquired
//! again: both would wait the device's whole stall bound for it (the tests cover that
//! wait).

use crate::rng::Rng;
use crate::world::{SurfaceMeta, TextureMeta, ViewMeta, World};
use vigil::{
    CompositeAlphaMode, PresentMode, Surface, SurfaceConfiguration, TextureDimension,
    TextureFormat, TextureUsages, TextureViewDimension,
};

/// Most live surfaces (each configured one holds a swapchain).
const MOST: usize = 3;

/// One of the operations below: mostly the next step of a live surface's life (configure
/// it, acquire a frame, present or abandon that), now and then any of them.
pub fn surfaces(w: &mut World<'_>, r: &mut Rng) {
    if w.surfaces.live_count() == 0 && r.chance(70) {
        return create(w);
    }
    if r.chance(75) {
        if let Some((s, m)) = w.surfaces.any_live(r) {
            return match (m.config, m.frame) {
                (None, _) => configure_one(w, r, s, false),
                (Some(_), None) if r.chance(85) => acquire_one(w, r, s, false),
                (Some(_), None) => configure_one(w, r, s, false),
                (Some(_), Some(_)) if r.chance(80) => present_one(w, s, false),
                (Some(_), Some(_)) => abandon_one(w, s, false),
            };
        }
    }
    match r.below(12) {
        0 => create(w),
        1 => capabilities(w, r),
        2 | 3 => configure(w, r),
        4..=6 => acquire(w, r),
        7 | 8 => present(w, r),
        9 => abandon(w, r),
        _ => destroy(w, r),
    }
}

fn create(w: &mut World<'_>) {
    if w.surfaces.live_count() >= MOST {
        return;
    }
    w.call(
        "create_headless_surface",
        "create_headless_surface()".into(),
        false,
        |w| {
            let s = w.device.create_headless_surface("fuzz surface")?;
            w.surfaces.add(s, SurfaceMeta::default());
            Ok(s)
        },
    );
}

/// The surface's entry in the books (a live one the world made).
fn meta_mut<'a>(w: &'a mut World<'_>, s: Surface) -> Option<&'a mut SurfaceMeta> {
    w.surfaces
        .items
        .iter_mut()
        .find(|e| e.live && e.handle == s)
        .map(|e| &mut e.meta)
}

/// Takes the frame of `s` out of the books: its texture handle goes stale (its view stays
/// in the world, live as a view).
fn frame_ended(w: &mut World<'_>, s: Surface) {
    if let Some(t) = meta_mut(w, s).and_then(|m| m.frame.take()) {
        w.textures.kill(t);
    }
}

/// Presents (or now and then abandons) the frame `s` has out, if it has one.
fn end_frame_first(w: &mut World<'_>, r: &mut Rng, s: Surface) {
    if meta_mut(w, s).is_some_and(|m| m.frame.is_some()) {
        if r.chance(70) {
            present_one(w, s, false);
        } else {
            abandon_one(w, s, false);
        }
    }
}

fn capabilities(w: &mut World<'_>, r: &mut Rng) {
    let (s, _, v) = w.surfaces.pick(r, w.id);
    w.call(
        "surface_capabilities",
        format!("surface_capabilities({s:?})"),
        v.invalid(),
        |w| w.device.surface_capabilities(s),
    );
}

fn configure(w: &mut World<'_>, r: &mut Rng) {
    let (s, _, v) = w.surfaces.pick(r, w.id);
    configure_one(w, r, s, v.invalid());
}

fn configure_one(w: &mut World<'_>, r: &mut Rng, s: Surface, invalid: bool) {
    if !invalid {
        end_frame_first(w, r, s);
    }
    let caps = w.device.surface_capabilities(s).ok();
    // Mostly a configuration within the capabilities; otherwise one thing outside them.
    let flaw = if r.chance(30) { r.below(5) } else { 5 };
    let format = match caps.as_ref().filter(|c| !c.formats.is_empty()) {
        Some(c) if flaw != 0 => c.formats[r.index(c.formats.len())],
        _ => r.pick(&[
            TextureFormat::Rgba8Unorm,
            TextureFormat::Bgra8UnormSrgb,
            TextureFormat::Rgba16Float,
            TextureFormat::R8Unorm,
            TextureFormat::Depth32Float,
        ]),
    };
    let max = caps.as_ref().map_or([4096, 4096], |c| c.max_extent);
    let extent = if flaw == 1 {
        match r.below(4) {
            0 => [0, 1 + r.bits(5)],
            1 => [1 + r.bits(5), 0],
            2 => [max[0].saturating_add(1), 8],
            _ => [8, max[1].saturating_add(1)],
        }
    } else {
        [1 + r.bits(7) % 96, 1 + r.bits(7) % 96]
    };
    let usage = if flaw != 2 {
        r.pick(&[
            TextureUsages::RENDER_ATTACHMENT,
            TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_DST,
            TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
            TextureUsages::COPY_DST,
        ])
    } else {
        r.pick(&[
            TextureUsages::empty(),
            TextureUsages::TEXTURE_BINDING,
            TextureUsages::STORAGE_BINDING | TextureUsages::RENDER_ATTACHMENT,
        ])
    };
    let config = SurfaceConfiguration {
        format,
        extent,
        present_mode: if flaw != 3 {
            caps.as_ref()
                .filter(|c| !c.present_modes.is_empty())
                .map_or(PresentMode::Fifo, |c| {
                    c.present_modes[r.index(c.present_modes.len())]
                })
        } else {
            r.pick(&[
                PresentMode::FifoRelaxed,
                PresentMode::Mailbox,
                PresentMode::Immediate,
            ])
        },
        alpha_mode: if flaw != 4 {
            caps.as_ref()
                .filter(|c| !c.alpha_modes.is_empty())
                .map_or(CompositeAlphaMode::Opaque, |c| {
                    c.alpha_modes[r.index(c.alpha_modes.len())]
                })
        } else {
            r.pick(&[
                CompositeAlphaMode::PreMultiplied,
                CompositeAlphaMode::PostMultiplied,
                CompositeAlphaMode::Inherit,
            ])
        },
        usage,
    };
    w.call(
        "configure_surface",
        format!("configure_surface({s:?}, {config:?})"),
        invalid,
        |w| {
            w.device.configure_surface(s, &config)?;
            if let Some(m) = meta_mut(w, s) {
                m.config = Some(config);
            }
            Ok(())
        },
    );
}

/// Mostly a live surface `want` holds for, else any the pool picks (stale, null, foreign
/// and forged ones among them); whether every call must refuse it.
fn mostly(w: &World<'_>, r: &mut Rng, want: impl Fn(&SurfaceMeta) -> bool) -> (Surface, bool) {
    match w.surfaces.live_where(r, want) {
        Some((s, _)) if r.chance(80) => (s, false),
        _ => {
            let (s, _, v) = w.surfaces.pick(r, w.id);
            (s, v.invalid())
        }
    }
}

fn acquire(w: &mut World<'_>, r: &mut Rng) {
    // Mostly a configured surface (acquiring from one that is not is refused).
    let (s, invalid) = mostly(w, r, |m| m.config.is_some());
    acquire_one(w, r, s, invalid);
}

fn acquire_one(w: &mut World<'_>, r: &mut Rng, s: Surface, invalid: bool) {
    if !invalid {
        end_frame_first(w, r, s);
    }
    let Some(frame) = w.call(
        "acquire_current_texture",
        format!("acquire_current_texture({s:?})"),
        invalid,
        |w| w.device.acquire_current_texture(s),
    ) else {
        return;
    };
    let Some(t) = frame.texture else {
        return;
    };
    let Some(m) = meta_mut(w, s) else {
        return;
    };
    let Some(config) = m.config else {
        return;
    };
    m.frame = Some(t);
    let usage = config.usage | TextureUsages::COPY_SRC;
    w.textures.add(
        t,
        TextureMeta {
            dimension: TextureDimension::D2,
            size: config.extent,
            layers: 1,
            mips: 1,
            samples: 1,
            format: config.format,
            usage,
        },
    );
    // A view of it, so that render passes draw into it.
    super::encode::default_view(
        w,
        ViewMeta {
            texture: t,
            format: config.format,
            dimension: TextureViewDimension::D2,
            usage,
            samples: 1,
            single: true,
            extent: config.extent,
        },
    );
}

fn present(w: &mut World<'_>, r: &mut Rng) {
    // Mostly a surface with a frame out (presenting with none is refused).
    let (s, invalid) = mostly(w, r, |m| m.frame.is_some());
    present_one(w, s, invalid);
}

fn present_one(w: &mut World<'_>, s: Surface, invalid: bool) {
    w.call(
        "present_surface",
        format!("present_surface({s:?})"),
        invalid,
        |w| w.device.present_surface(s),
    );
    // Presented or not (no frame out, a status without a present), the frame is gone.
    frame_ended(w, s);
}

fn abandon(w: &mut World<'_>, r: &mut Rng) {
    let (s, invalid) = mostly(w, r, |m| m.frame.is_some());
    abandon_one(w, s, invalid);
}

fn abandon_one(w: &mut World<'_>, s: Surface, invalid: bool) {
    w.call(
        "abandon_current_texture",
        format!("abandon_current_texture({s:?})"),
        invalid,
        |w| w.device.abandon_current_texture(s),
    );
    frame_ended(w, s);
}

fn destroy(w: &mut World<'_>, r: &mut Rng) {
    let (s, _, v) = w.surfaces.pick(r, w.id);
    destroy_one(w, s, v.invalid());
}

/// Destroys `s`, a frame out with it.
pub fn destroy_one(w: &mut World<'_>, s: Surface, invalid: bool) -> bool {
    w.call(
        "destroy_surface",
        format!("destroy_surface({s:?})"),
        invalid,
        |w| {
            w.device.destroy_surface(s)?;
            frame_ended(w, s);
            w.surfaces.kill(s);
            Ok(())
        },
    )
    .is_some()
}
