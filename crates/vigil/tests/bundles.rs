//! Render bundles on a real device: what a bundle draws is what the same calls draw in a
//! pass, read back and checked, with the validation layer (synchronization validation
//! included) saying nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;
#[path = "common/quads.rs"]
#[macro_use]
mod quads;

use common::gpu;
use draw::*;
use quads::*;
use vigil::*;

/// Quadrant `q`'s centre in clip space (y up) and its pixel in the target (y down).
const CENTRES: [([f32; 2], (u32, u32)); 4] = [
    ([-0.5, 0.5], (16, 16)),
    ([0.5, 0.5], (48, 16)),
    ([-0.5, -0.5], (16, 48)),
    ([0.5, -0.5], (48, 48)),
];
const COLORS: [[u8; 4]; 4] = [
    [255, 0, 0, 255],
    [0, 255, 0, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
];
const BLACK: [u8; 4] = [0, 0, 0, 255];

/// Four quads, one per quadrant, each drawn with a bind group of its own over one uniform
/// buffer (offset and color), from one of two vertex and two index buffers.
struct Scene {
    pipeline: RenderPipeline,
    uniforms: Buffer,
    groups: Vec<BindGroup>,
    vbs: [Buffer; 2],
    ibs: [Buffer; 2],
}

fn uniform_bytes(q: usize, color: [u8; 4]) -> Vec<u8> {
    let [x, y] = CENTRES[q].0;
    [x, y, 0.0, 0.0]
        .into_iter()
        .chain(color.map(|c| f32::from(c) / 255.0))
        .flat_map(f32::to_le_bytes)
        .collect()
}

fn scene(d: &Device) -> Scene {
    let uniforms = d
        .create_buffer(&BufferDescriptor {
            label: "uniforms",
            size: 1024,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .unwrap();
    for (q, &c) in COLORS.iter().enumerate() {
        d.write_buffer(uniforms, q as u64 * 256, &uniform_bytes(q, c))
            .unwrap();
    }
    let (bgl, groups) = quad_groups(d, uniforms, false);
    let pipeline = quads_pipeline(
        d,
        quads_layout(d, &[bgl], 0),
        QUADS,
        TextureFormat::Rgba8Unorm,
    );
    let corners = [-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0];
    let indices: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let ib = || {
        let b = d
            .create_buffer(&BufferDescriptor {
                label: "indices",
                size: 12,
                usage: BufferUsages::INDEX | BufferUsages::COPY_DST,
            })
            .unwrap();
        d.write_buffer(b, 0, &indices).unwrap();
        b
    };
    Scene {
        pipeline,
        uniforms,
        groups,
        vbs: [vertex_buffer(d, &corners), vertex_buffer(d, &corners)],
        ibs: [ib(), ib()],
    }
}

/// A bundle encoder for the scene's RGBA8 target.
fn bundle_encoder(d: &Device) -> RenderBundleEncoder {
    d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
        label: "quads",
        color_formats: &[Some(TextureFormat::Rgba8Unorm)],
        ..Default::default()
    })
    .unwrap()
}

fn bundle_of(d: &Device, s: &Scene, quads: std::ops::Range<usize>) -> RenderBundle {
    let mut b = bundle_encoder(d);
    b.set_render_pipeline(s.pipeline).unwrap();
    for q in quads {
        quad!(b, s, q);
    }
    b.finish().unwrap()
}

fn begin(e: &mut CommandEncoder, t: &Target) {
    e.begin_render_pass(&RenderPassDescriptor {
        label: "quads",
        color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
        ..Default::default()
    })
    .unwrap();
}

/// A frame of one pass that executes `bundle` into a new target: its pixels.
fn frame_of(d: &Device, bundle: RenderBundle) -> Vec<[u8; 4]> {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(d);
    begin(&mut e, &t);
    e.execute_bundles(&[bundle]).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    pixels(d, t.texture)
}

fn quadrants(px: &[[u8; 4]]) -> [[u8; 4]; 4] {
    CENTRES.map(|(_, (x, y))| at(px, x, y))
}

#[test]
fn a_bundle_draws_what_the_same_calls_draw_in_a_pass() {
    let d = gpu();
    let s = scene(&d);

    // The four quads drawn in the pass.
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(&d);
    begin(&mut e, &t);
    e.set_render_pipeline(s.pipeline).unwrap();
    for q in 0..4 {
        quad!(e, s, q);
    }
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let inline = pixels(&d, t.texture);
    assert_eq!(quadrants(&inline), COLORS);
    // Each quad covers the middle half of its quadrant and nothing else.
    assert_eq!(at(&inline, 32, 2), BLACK);
    assert_eq!(at(&inline, 2, 32), BLACK);

    // The same draws from a bundle, executed in two frames.
    let bundle = bundle_of(&d, &s, 0..4);
    for _ in 0..2 {
        let px = frame_of(&d, bundle);
        assert!(px == inline, "the bundle drew otherwise");
    }

    // A bundle reads its buffers when it runs: a new color for quadrant 0.
    d.write_buffer(s.uniforms, 0, &uniform_bytes(0, [255, 0, 255, 255]))
        .unwrap();
    let px = frame_of(&d, bundle);
    assert_eq!(
        quadrants(&px),
        [[255, 0, 255, 255], COLORS[1], COLORS[2], COLORS[3]]
    );
    d.destroy_render_bundle(bundle).unwrap();
    d.finish();
}

#[test]
fn a_pass_draws_on_after_its_bundles_with_its_state_set_again() {
    let d = gpu();
    let s = scene(&d);
    let middle = bundle_of(&d, &s, 1..3);
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(&d);
    begin(&mut e, &t);
    e.set_viewport(0.0, 0.0, W as f32, H as f32, 0.0, 1.0)
        .unwrap();
    e.set_render_pipeline(s.pipeline).unwrap();
    quad!(e, s, 0);
    e.execute_bundles(&[middle]).unwrap();
    // The pass's pipeline and bindings went with the bundle; set again, it draws on.
    e.set_render_pipeline(s.pipeline).unwrap();
    quad!(e, s, 3);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(quadrants(&pixels(&d, t.texture)), COLORS);
    d.finish();
}

#[test]
fn a_copy_before_the_pass_is_ordered_before_the_bundle_s_reads() {
    let d = gpu();
    let s = scene(&d);
    let bundle = bundle_of(&d, &s, 0..4);
    // New colors for every quadrant, copied into the uniforms in the same command buffer
    // as the pass that executes the bundle: the bundle's groups join the pass's scope, so
    // the copy is ordered before the pass.
    let staging = d
        .create_buffer(&BufferDescriptor {
            label: "new colors",
            size: 1024,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let swapped: Vec<[u8; 4]> = COLORS.iter().rev().copied().collect();
    for (q, &c) in swapped.iter().enumerate() {
        d.write_buffer(staging, q as u64 * 256, &uniform_bytes(q, c))
            .unwrap();
    }
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(staging, 0, s.uniforms, 0, 1024)
        .unwrap();
    begin(&mut e, &t);
    e.execute_bundles(&[bundle]).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(quadrants(&pixels(&d, t.texture)).to_vec(), swapped);
    d.finish();
}

#[test]
fn debug_groups_around_a_copy_a_pass_and_a_bundle_change_nothing_drawn() {
    let d = gpu();
    let s = scene(&d);
    // The bundle's own group, with a marker between its draws.
    let mut b = bundle_encoder(&d);
    b.push_debug_group("bundle").unwrap();
    b.set_render_pipeline(s.pipeline).unwrap();
    for q in 0..4 {
        if q == 2 {
            b.insert_debug_marker("half way").unwrap();
        }
        quad!(b, s, q);
    }
    b.pop_debug_group().unwrap();
    let bundle = b.finish().unwrap();
    // Quadrant 3's color copied in the same command buffer: the pass's end puts the
    // barrier in a native command buffer in front of the pass's, and the encoder's group,
    // opened before both, closes after them.
    let staging = d
        .create_buffer(&BufferDescriptor {
            label: "new color",
            size: 256,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let white = [255, 255, 255, 255];
    d.write_buffer(staging, 0, &uniform_bytes(3, white))
        .unwrap();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    e.insert_debug_marker("copy").unwrap();
    e.copy_buffer_to_buffer(staging, 0, s.uniforms, 3 * 256, 32)
        .unwrap();
    begin(&mut e, &t);
    e.push_debug_group("pass").unwrap();
    e.execute_bundles(&[bundle]).unwrap();
    e.pop_debug_group().unwrap();
    e.end_render_pass().unwrap();
    e.pop_debug_group().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(
        quadrants(&pixels(&d, t.texture)),
        [COLORS[0], COLORS[1], COLORS[2], white]
    );
    d.finish();
}
