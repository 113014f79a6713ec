//! wgpu's own examples, ported: each rendered on a real device (validation layer on) and
//! its image checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::device;
use vigil_examples::ported::{boids, cube, hello_triangle};

fn near(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tolerance)
}

#[test]
fn hello_triangle_is_red_on_green_and_covers_half_the_frame() {
    let (d, log) = device();
    let (w, h) = (128, 128);
    let img = hello_triangle::render(&d, [w, h]).unwrap();
    let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
    assert_eq!(img.pixel(64, 100), red, "inside, below the apex");
    assert_eq!(img.pixel(2, 2), green);
    assert_eq!(img.pixel(125, 2), green);
    let mut reds = 0;
    for y in 0..h {
        for x in 0..w {
            let p = img.pixel(x, y);
            assert!(p == red || p == green, "({x},{y}) = {p:?}");
            reds += u32::from(p == red);
        }
    }
    // The triangle (-1,-1), (0,1), (1,-1) covers half of the square.
    let share = f64::from(reds) / f64::from(w * h);
    assert!((0.47..0.53).contains(&share), "{share}");
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn the_cube_shows_its_mandelbrot_texture_and_nothing_else() {
    let (d, log) = device();
    let (w, h) = (256, 256);
    let img = cube::render(&d, [w, h]).unwrap();
    let clear = cube::CLEAR.map(|c| (c * 255.0).round() as u8);
    let palette: Vec<[u8; 4]> = (0..=255u8).map(cube::texel_color).collect();
    let (mut covered, mut shades) = (0u32, std::collections::BTreeSet::new());
    for y in 0..h {
        for x in 0..w {
            let p = img.pixel(x, y);
            if near(p, clear, 1) {
                continue;
            }
            // Every covered pixel is a color the fragment shader makes of some texel.
            let shade = palette.iter().position(|c| near(p, *c, 1));
            assert!(shade.is_some(), "({x},{y}) = {p:?} is no texel's color");
            covered += 1;
            shades.extend(shade);
        }
    }
    assert!(near(img.pixel(2, 2), clear, 1) && near(img.pixel(253, 253), clear, 1));
    assert!(
        !near(img.pixel(128, 128), clear, 1),
        "the cube is in the middle"
    );
    let share = f64::from(covered) / f64::from(w * h);
    assert!(
        (0.15..0.6).contains(&share),
        "the cube covers {share} of the frame"
    );
    assert!(
        shades.len() > 8,
        "the texture varies across the cube: {shades:?}"
    );
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn the_boids_flock_as_the_cpu_says_and_are_drawn_where_they_are() {
    let (d, log) = device();
    let (w, h, frames) = (256u32, 256u32, 3);
    let run = boids::run(&d, [w, h], frames).unwrap();
    let mut want = boids::initial_particles();
    for _ in 0..frames {
        want = boids::step_on_cpu(&want);
    }
    assert_eq!(run.particles.len(), want.len());
    // The GPU's float rounding may move a neighbour across a rule's distance; such a
    // particle may differ, but only a few may.
    let off = run
        .particles
        .iter()
        .zip(&want)
        .filter(|(g, c)| g.iter().zip(c.iter()).any(|(a, b)| (a - b).abs() > 1e-3))
        .count();
    assert!(
        off <= want.len() / 100,
        "{off} particles differ from the CPU's flock"
    );
    // Each particle's triangle is drawn around its position.
    let white = [255, 255, 255, 255];
    let mut found = 0;
    for p in &run.particles {
        let px = ((p[0] + 1.0) / 2.0 * w as f32) as i64;
        let py = ((1.0 - p[1]) / 2.0 * h as f32) as i64;
        let hit = (-2..=2).any(|dy| {
            (-2..=2).any(|dx| {
                let (x, y) = (px + dx, py + dy);
                (0..i64::from(w)).contains(&x)
                    && (0..i64::from(h)).contains(&y)
                    && img_pixel(&run.image, x, y) == white
            })
        });
        found += usize::from(hit);
    }
    assert!(
        found >= run.particles.len() * 95 / 100,
        "only {found} particles have a triangle at their position"
    );
    let whites = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| run.image.pixel(x, y) == white)
        .count();
    assert!(
        whites > 0 && whites < (w * h / 5) as usize,
        "{whites} white pixels"
    );
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

fn img_pixel(img: &vigil_examples::image::Image, x: i64, y: i64) -> [u8; 4] {
    img.pixel(x as u32, y as u32)
}
