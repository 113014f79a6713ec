//! `vigil demo`, the main job, end to end: the compute check, the frames in immediate
//! mode, the same frames through the render graph (which must be identical), the deferred
//! frames both ways (identical too, the graph's in less transient memory), and a silent
//! validation layer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

#[test]
fn the_demo_verifies_its_frames_both_ways_with_a_silent_layer() {
    let out_dir = std::env::temp_dir().join(format!("vigil-demo-test-{}", std::process::id()));
    let out = Command::new(common::bin())
        .args(["demo", "--frames", "2", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("verified: all"), "{stdout}");
    for i in 0..2 {
        assert!(out_dir.join(format!("frame_{i}.png")).is_file());
        assert!(out_dir.join(format!("deferred_{i}.png")).is_file());
        assert!(
            stdout.contains(&format!(
                "deferred frame {i}: identical through the graph and in immediate mode"
            )),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("graph frame {i}: CPU+readback")),
            "{stdout}"
        );
    }
    assert_eq!(
        stdout
            .matches("identical to the immediate-mode frame")
            .count(),
        2,
        "{stdout}"
    );
    // 320x240: six 16-bit float targets and a depth buffer, one texture each, against
    // three and one.
    assert!(
        stdout.contains("transient memory: 3900 KiB unshared (one texture each, as the immediate-mode frame makes them) -> 2100 KiB shared (46% less)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("validation summary: 0 message(s)"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}
