//! Surfaces over no window (`create_headless_surface`), on the real device with the
//! validation layer (synchronization validation included) on: the whole present path of a
//! window's surface — swapchain creation and re-creation, acquisition, the copy into the
//! swapchain image, the present and its semaphores — runs on the driver, with nothing shown.
//! Each frame is cleared to its own colour and read back before it is presented, frames
//! keep the configured size across reconfigurations, and the surface rules hold there as on
//! the test backend.
//!
//! Mesa's drivers have `VK_EXT_headless_surface`; on lavapipe the test requires it.
//! Elsewhere a refusal must be `surface.unsupported`, naming the extension; with
//! `VIGIL_EXPECT_HEADLESS_SURFACE` set, a refusal fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;
#[path = "common/rules.rs"]
mod rules;

use draw::{clear, encoder};
use rules::expect_rule;
use vigil::*;

fn config(format: TextureFormat, extent: [u32; 2]) -> SurfaceConfiguration {
    SurfaceConfiguration {
        format,
        extent,
        present_mode: PresentMode::Fifo,
        alpha_mode: CompositeAlphaMode::Opaque,
        usage: TextureUsages::RENDER_ATTACHMENT,
    }
}

/// The headless surface, or `None` after checking the refusal on a driver without them.
fn headless(d: &Device) -> Option<Surface> {
    let info = d.adapter_info();
    let expected = std::env::var_os("VIGIL_EXPECT_HEADLESS_SURFACE").is_some()
        || info.driver.to_lowercase().contains("llvmpipe")
        || info.name.to_lowercase().contains("llvmpipe");
    match d.create_headless_surface("headless") {
        Ok(s) => Some(s),
        Err(e) => {
            assert_eq!(e.rule(), Rule::SurfaceUnsupported, "{e}");
            assert!(e.message().contains("VK_EXT_headless_surface"), "{e}");
            assert!(
                !expected,
                "{} ({}) should have headless surfaces: {e}",
                info.name, info.driver
            );
            None
        }
    }
}

/// Clears `frame` to `color` in a render pass and submits.
fn clear_frame(d: &Device, frame: Texture, color: [f64; 4]) {
    let view = d
        .create_texture_view(frame, &TextureViewDescriptor::default())
        .unwrap();
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear(color, view))],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

/// A present's status says the frame went to the window system.
#[track_caller]
fn assert_shown(status: SurfaceStatus) {
    assert!(
        matches!(status, SurfaceStatus::Good | SurfaceStatus::Suboptimal),
        "{status:?}"
    );
}

/// The texel a clear to `color` leaves in a frame of `format`, as its bytes.
fn texel(format: TextureFormat, color: [f64; 4]) -> [u8; 4] {
    let [r, g, b, a] = color.map(|c| (c * 255.0).round() as u8);
    match format {
        TextureFormat::Bgra8Unorm => [b, g, r, a],
        TextureFormat::Rgba8Unorm => [r, g, b, a],
        other => panic!("the test clears only to 0 and 1 of unorm formats, not {other:?}"),
    }
}

#[test]
fn frames_are_drawn_read_back_and_presented_through_the_driver() {
    let d = common::gpu();
    let Some(s) = headless(&d) else {
        return;
    };
    let caps = d.surface_capabilities(s).unwrap();
    // No window: no size of its own, and the frames' size is the configuration's.
    assert_eq!(caps.current_extent, None, "{caps:?}");
    assert!(caps.present_modes.contains(&PresentMode::Fifo), "{caps:?}");
    assert!(caps.usages.contains(TextureUsages::RENDER_ATTACHMENT));
    let format = *caps
        .formats
        .iter()
        .find(|f| matches!(f, TextureFormat::Bgra8Unorm | TextureFormat::Rgba8Unorm))
        .expect("a linear 8-bit presentation format");
    expect_rule(d.acquire_current_texture(s), Rule::SurfaceNotConfigured);

    let colors = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    // Each size twice: configured, then reconfigured to the next (a resized window).
    for (round, extent) in [[64, 48], [32, 32], [80, 16]].into_iter().enumerate() {
        d.configure_surface(s, &config(format, extent)).unwrap();
        for (n, color) in colors.iter().enumerate() {
            let frame = d.acquire_current_texture(s).unwrap();
            assert_eq!(frame.status, SurfaceStatus::Good);
            let t = frame.texture.unwrap();
            let desc = d.texture_descriptor(t).unwrap();
            assert_eq!((desc.size, desc.format), (extent, format));
            clear_frame(&d, t, *color);
            let bytes = d
                .read_texture(t, TexelCopyTextureInfo::default(), extent)
                .unwrap();
            let want = texel(format, *color);
            assert_eq!(bytes.len(), (extent[0] * extent[1] * 4) as usize);
            assert!(
                bytes.chunks(4).all(|p| p == want),
                "round {round} frame {n}: not every texel is {want:?}"
            );
            assert_shown(d.present_surface(s).unwrap());
            let err = expect_rule(d.texture_descriptor(t), Rule::SurfaceNoFrame);
            assert!(err.message().contains("presented or abandoned"), "{err}");
        }
    }
    // A frame with no work on it presents too (what it shows is undefined: nothing is).
    d.acquire_current_texture(s).unwrap().texture.unwrap();
    assert_shown(d.present_surface(s).unwrap());
    // Abandoned: its handle goes stale; a second abandon or present has no frame.
    let t = d.acquire_current_texture(s).unwrap().texture.unwrap();
    d.abandon_current_texture(s).unwrap();
    expect_rule(d.texture_descriptor(t), Rule::SurfaceNoFrame);
    expect_rule(d.abandon_current_texture(s), Rule::SurfaceNoFrame);
    expect_rule(d.present_surface(s), Rule::SurfaceNoFrame);
    // Destroyed with a frame out: the frame goes with it.
    let t = d.acquire_current_texture(s).unwrap().texture.unwrap();
    clear_frame(&d, t, colors[0]);
    d.destroy_surface(s).unwrap();
    expect_rule(d.texture_descriptor(t), Rule::SurfaceNoFrame);
    expect_rule(d.surface_capabilities(s), Rule::HandleStale);
    expect_rule(d.present_surface(s), Rule::HandleStale);
    d.finish();
}

#[test]
fn configurations_outside_the_bounds_and_direct_destroys_are_refused() {
    let d = common::gpu();
    let Some(s) = headless(&d) else {
        return;
    };
    let caps = d.surface_capabilities(s).unwrap();
    let format = caps.formats[0];
    // A refused configuration changes nothing: the surface stays unconfigured.
    expect_rule(
        d.configure_surface(s, &config(format, [0, 16])),
        Rule::SurfaceConfiguration,
    );
    let too_wide = caps.max_extent[0].saturating_add(1);
    expect_rule(
        d.configure_surface(s, &config(format, [too_wide, 16])),
        Rule::SurfaceConfiguration,
    );
    expect_rule(
        d.configure_surface(
            s,
            &SurfaceConfiguration {
                usage: TextureUsages::empty(),
                ..config(format, [16, 16])
            },
        ),
        Rule::SurfaceConfiguration,
    );
    expect_rule(d.acquire_current_texture(s), Rule::SurfaceNotConfigured);
    d.configure_surface(s, &config(format, [16, 16])).unwrap();
    let t = d.acquire_current_texture(s).unwrap().texture.unwrap();
    // Never destroyed directly.
    expect_rule(d.destroy_texture(t), Rule::SurfaceFrameTexture);
    // Reconfiguring with a frame out waits for it within the stall bound, then refuses;
    // the test device's bound is the default, so present first and reconfigure after.
    assert_shown(d.present_surface(s).unwrap());
    d.configure_surface(s, &config(format, [24, 8])).unwrap();
    let t = d.acquire_current_texture(s).unwrap().texture.unwrap();
    assert_eq!(d.texture_descriptor(t).unwrap().size, [24, 8]);
    d.abandon_current_texture(s).unwrap();
    d.destroy_surface(s).unwrap();
    d.finish();
}
