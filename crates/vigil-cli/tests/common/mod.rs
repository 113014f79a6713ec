//! What the command's tests share: the binary to run.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

/// The `vigil` binary: `VIGIL_BIN` when set (a copied binary, as on a machine the test
/// executables were moved to), else the one cargo built.
pub fn bin() -> PathBuf {
    std::env::var_os("VIGIL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vigil")))
}

/// Runs `vigil` with `args`, requires success, and returns what it printed.
pub fn run_ok(args: &[&str]) -> String {
    let out = Command::new(bin()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
