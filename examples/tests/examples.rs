//! Every example runs on a real device and produces what it should.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{device, device_with};
use vigil_examples::{compute_to_texture, gpu_driven, ray_query, textured_quad, triangle, volume};

#[test]
fn triangle_covers_its_middle_and_leaves_the_corners() {
    let (d, log) = device();
    let img = triangle::render(&d, [128, 128]).unwrap();
    let clear = img.pixel(2, 2);
    assert_eq!(img.pixel(125, 2), clear);
    let mid = img.pixel(64, 80);
    assert_ne!(mid, clear, "the triangle covers the middle");
    // Barycentric blend of red, green and blue: every channel lit somewhat.
    assert!(mid[0] > 40 && mid[1] > 40 && mid[2] > 40, "{mid:?}");
    // Near the top vertex it is mostly red.
    let top = img.pixel(64, 20);
    assert!(top[0] > 180 && top[1] < 60 && top[2] < 60, "{top:?}");
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn textured_quad_shows_each_quadrant_of_the_texture() {
    let (d, log) = device();
    let img = textured_quad::render(&d, [100, 100]).unwrap();
    // The quad spans 10..90 in both axes; quadrant centers at 30 and 70.
    assert_eq!(img.pixel(30, 30), [255, 0, 0, 255]);
    assert_eq!(img.pixel(70, 30), [0, 255, 0, 255]);
    assert_eq!(img.pixel(30, 70), [0, 0, 255, 255]);
    assert_eq!(img.pixel(70, 70), [255, 255, 255, 255]);
    assert_eq!(img.pixel(3, 3), [0, 0, 0, 255], "outside the quad");
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn compute_to_texture_writes_every_texel() {
    let (d, log) = device();
    let size = [40, 24];
    let img = compute_to_texture::render(&d, size).unwrap();
    for y in 0..size[1] {
        for x in 0..size[0] {
            let want = compute_to_texture::expected(x, y, size).map(|v| (v * 255.0).round());
            let got = img.pixel(x, y);
            for c in 0..4 {
                assert!(
                    (f32::from(got[c]) - want[c]).abs() <= 2.0,
                    "({x},{y}) channel {c}: {got:?} vs {want:?}"
                );
            }
        }
    }
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn volume_shows_its_plane_filtered_through_the_slices_and_the_white_last_one() {
    let (d, log) = device();
    let size = [48, 40];
    let img = volume::render(&d, size).unwrap();
    for y in 0..size[1] {
        for x in 0..size[0] {
            let want = volume::expected(x, y, size).map(|v| v * 255.0);
            let got = img.pixel(x, y);
            for c in 0..4 {
                assert!(
                    (f32::from(got[c]) - want[c]).abs() <= 2.0,
                    "({x},{y}) channel {c}: {got:?} vs {want:?}"
                );
            }
        }
    }
    // The bottom rows sample the last slice, which a pass cleared to white.
    assert_eq!(img.pixel(24, 39), [255, 255, 255, 255]);
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn tiles_draws_each_tile_in_its_color_from_immediates_on_a_grid_from_an_override() {
    let (d, log) = device();
    for grid in [3u32, 5] {
        let size = [120u32, 120];
        let img = vigil_examples::tiles::render(&d, size, grid).unwrap();
        let cell = size[0] / grid;
        for i in 0..grid * grid {
            let (x, y) = ((i % grid) * cell + cell / 2, (i / grid) * cell + cell / 2);
            let want = vigil_examples::tiles::color(i, grid).map(|v| (v * 255.0).round());
            let got = img.pixel(x, y);
            for c in 0..4 {
                assert!(
                    (f32::from(got[c]) - want[c]).abs() <= 1.0,
                    "grid {grid}, tile {i} at ({x},{y}): {got:?} vs {want:?}"
                );
            }
        }
        // The gap between the first two tiles (0.2 of a tile, from the @id(0) override)
        // shows the background.
        let bg = vigil_examples::tiles::CLEAR.map(|v| (v * 255.0).round() as u8);
        assert_eq!(img.pixel(cell, cell / 2), bg, "grid {grid}: the gap");
        assert_eq!(img.pixel(1, 1), bg, "grid {grid}: the border");
    }
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn tiles_from_a_bundle_are_the_tiles_drawn_in_the_pass() {
    // The immediate data each draw pushes, recorded into a bundle and executed: the same
    // image, destroying the bundle right after executing it changes nothing.
    let (d, log) = device();
    for grid in [3u32, 5] {
        let size = [120u32, 120];
        let pass = vigil_examples::tiles::render(&d, size, grid).unwrap();
        let bundled = vigil_examples::tiles::render_bundled(&d, size, grid).unwrap();
        assert!(pass == bundled, "grid {grid}: the bundle drew otherwise");
    }
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn ray_query_traces_the_scene_the_cpu_traces() {
    let (d, log) = device_with(vigil::Features::RAY_QUERY);
    let size = [160, 120];
    if !d.features().contains(vigil::Features::RAY_QUERY) {
        // An adapter without ray queries: the example says so instead of drawing.
        let e = ray_query::render(&d, size).unwrap_err();
        assert!(e.contains("RAY_QUERY"), "{e}");
        return;
    }
    let img = ray_query::render(&d, size).unwrap();
    let want = ray_query::reference(size);
    let mut off = 0;
    for y in 0..size[1] {
        for x in 0..size[0] {
            let (g, w) = (img.pixel(x, y), want.pixel(x, y));
            if (0..4).any(|c| g[c].abs_diff(w[c]) > 2) {
                off += 1;
            }
        }
    }
    // Rays that graze an edge may round to either side; anything more is a wrong scene.
    assert!(
        off * 100 <= size[0] * size[1],
        "{off} pixels differ from the CPU's"
    );
    // Every color of the CPU's image (sky, floor and each cube, lit and in shadow) is
    // there on the GPU's too (within the rounding of 8-bit storage), each on more than a
    // few pixels.
    let mut colors: Vec<[u8; 4]> = Vec::new();
    for y in 0..size[1] {
        for x in 0..size[0] {
            let c = want.pixel(x, y);
            if !colors.contains(&c) {
                colors.push(c);
            }
        }
    }
    assert!(colors.len() >= 8, "{colors:?}");
    for c in colors {
        let n = (0..size[1])
            .flat_map(|y| (0..size[0]).map(move |x| (x, y)))
            .filter(|&(x, y)| (0..4).all(|k| img.pixel(x, y)[k].abs_diff(c[k]) <= 2))
            .count();
        assert!(n > 20, "{n} pixels of {c:?}");
    }
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn gpu_driven_frames_draw_what_the_cpu_culls() {
    let (d, log) = device_with(vigil::Features::DESCRIPTOR_HEAPS);
    assert!(
        d.features().contains(vigil::Features::DESCRIPTOR_HEAPS),
        "lavapipe and the H200 have descriptor heaps"
    );
    let size = [400, 300];
    let frames = gpu_driven::render(&d, size).unwrap();
    assert_eq!(frames.len(), gpu_driven::CAMERAS.len());
    for (n, (f, camera)) in frames.iter().zip(gpu_driven::CAMERAS).enumerate() {
        // The GPU's cull kept exactly the objects the CPU's does.
        let visible = gpu_driven::visible(camera);
        assert_eq!(f.visible as usize, visible.len(), "frame {n}");
        // Every visible object wide enough to have a clear centre shows its texture's
        // inside color there; the grid's gaps show the background.
        let pixels_per_unit = size[0] as f32 / (2.0 * camera[2]);
        let mut checked = 0;
        if gpu_driven::QUAD * pixels_per_unit >= 6.0 {
            for &i in &visible {
                let [x, y] = gpu_driven::centre_pixel(i, camera, size);
                if x < 0.0 || y < 0.0 || x >= size[0] as f32 || y >= size[1] as f32 {
                    continue;
                }
                let got = f.image.pixel(x as u32, y as u32);
                assert_eq!(
                    got,
                    gpu_driven::fill(i % gpu_driven::TEXTURES),
                    "frame {n}, object {i}"
                );
                checked += 1;
            }
            assert!(checked >= 40, "frame {n}: only {checked} objects checked");
            // A gap: half a pitch right of object's square, between two columns.
            let [x, y] = gpu_driven::centre_pixel(visible[0], camera, size);
            let gap = x + 0.5 * pixels_per_unit;
            if gap >= 0.0 && gap < size[0] as f32 && y >= 0.0 && y < size[1] as f32 {
                assert_eq!(
                    f.image.pixel(gap as u32, y as u32),
                    gpu_driven::CLEAR,
                    "frame {n}"
                );
            }
        }
    }
    // The wide frame drew all 10,000 objects.
    assert!(frames.iter().any(|f| f.visible == gpu_driven::OBJECTS));
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}
