//! Every example runs on a real device and produces what it should.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::device;
use vigil_examples::{compute_to_texture, textured_quad, triangle};

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
