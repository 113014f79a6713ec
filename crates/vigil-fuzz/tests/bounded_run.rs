//! The bounded fuzz run of the test suite: a few seeds on the real device with the
//! validation layer on, each in its own process. Every seed must come back clean: no
//! panic, no validation message, no handle accepted that is not live, no leak, no loss,
//! and a verified compute job at the end. A failure prints the seed and the calls before
//! the defect; `cargo xtask fuzz --seed S --calls N --trace` replays it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// Seeds and calls per seed: about half a minute on lavapipe in a debug build.
const SEEDS: u64 = 16;
const CALLS: u64 = 5000;

#[test]
fn a_bounded_run_over_several_seeds_is_clean() {
    let out = Command::new(env!("CARGO_BIN_EXE_vigil-fuzz"))
        .args([
            "--seed",
            "0",
            "--seeds",
            &SEEDS.to_string(),
            "--calls",
            &CALLS.to_string(),
        ])
        .output()
        .expect("the fuzzer runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let total = stdout
        .lines()
        .find(|l| l.starts_with("FUZZ-TOTAL"))
        .unwrap_or_else(|| panic!("no total line; output:\n{stdout}"));
    assert!(
        out.status.success() && total.contains("failed=0"),
        "{total}\n\n{stdout}"
    );
    let calls: u64 = total
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("calls="))
        .and_then(|n| n.parse().ok())
        .unwrap();
    // Ops that find nothing to act on make no call; most do.
    assert!(
        calls > SEEDS * CALLS / 2,
        "only {calls} calls were made: {total}"
    );
    assert_eq!(
        stdout.matches("health=ok").count() as u64,
        SEEDS,
        "every seed's health check passed"
    );
}
