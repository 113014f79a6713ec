//! The demo's frames against golden images, within the tolerance in
//! `vigil_examples::image` (a pixel matches when every channel is within 24 of the golden;
//! a frame matches when at most 1% of its pixels do not).
//!
//! `VIGIL_UPDATE_GOLDEN=1` rewrites the goldens from this device instead of comparing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use vigil::*;
use vigil_examples::image::{CHANNEL, Image, compare};
use vigil_examples::scene;

/// Frames and size the demo renders (see `vigil demo`).
const FRAMES: u32 = 4;
const SIZE: [u32; 2] = [320, 240];

fn golden(i: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(format!("frame_{i}.png"))
}

#[test]
fn demo_frames_match_the_goldens() {
    let instance = Instance::<DefaultApi>::new(&InstanceDescriptor {
        app_name: "golden".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .unwrap();
    let log = instance.validation_log().unwrap();
    let adapter = instance.default_adapter().unwrap();
    let device = adapter
        .request_device(&DeviceDescriptor {
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap();
    let frames = scene::render_frames(&device, SIZE, FRAMES).unwrap();
    let update = std::env::var("VIGIL_UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let mut report = Vec::new();
    for (i, frame) in frames.iter().enumerate() {
        let path = golden(i as u32);
        if update {
            frame.image.save(&path).unwrap();
            continue;
        }
        let want = Image::load(&path).unwrap();
        let diff = compare(&frame.image, &want, CHANNEL).unwrap();
        // Printed for the record (run with --nocapture to see it on another device).
        eprintln!(
            "golden frame {i} on {}: {} of {} pixels differ at all, {} beyond {CHANNEL}, largest channel difference {}",
            adapter.info().name,
            diff.pixels_different,
            diff.total,
            diff.pixels_over,
            diff.max_channel
        );
        report.push((i, diff));
    }
    drop(device);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
    for (i, diff) in report {
        assert!(
            diff.within_tolerance(),
            "frame {i} differs from its golden: {diff:?}"
        );
    }
}
