//! What the shader tests share.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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
