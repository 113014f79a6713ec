//! What the shader tests share.

// Each test file uses part of this.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Asserts that `spirv-val` accepts `words` for Vulkan 1.3; `what` names them in the
/// failure. `spirv-val` comes with SPIRV-Tools, which `cargo xtask setup` installs.
pub fn spirv_val(words: &[u32], what: &str) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("vigil-spirv-val-{}-{n}.spv", std::process::id()));
    std::fs::write(
        &file,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let result = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&file)
        .output()
        .expect("spirv-val (SPIRV-Tools) is installed; run `cargo xtask setup`");
    let _ = std::fs::remove_file(&file);
    assert!(
        result.status.success(),
        "{what} fails spirv-val:\n{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
}

/// The `.wgsl` files of `tests/<dir>`, sorted; at least `min` of them.
pub fn wgsl_files(dir: &str, min: usize) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    assert!(
        files.len() >= min,
        "the corpus in {} is incomplete",
        dir.display()
    );
    files
}
