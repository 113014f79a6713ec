//! Names the commit the benchmarks are built from (`VIGIL_BENCH_COMMIT`, the crate's
//! `COMMIT`), so a run's table and JSON say which code they measured: figures in
//! `docs/performance.md` are quoted with their commit, and a binary carried to another
//! machine keeps its own. "unknown" outside a git checkout.

use std::process::Command;

/// `git ARGS`' trimmed output, run in this crate's folder; `None` when git fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    // Run again when the code changes (any file under crates/, or the lock file) or when
    // HEAD, or the branch it names, moves.
    println!("cargo:rerun-if-changed=../../crates");
    println!("cargo:rerun-if-changed=../../Cargo.lock");
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"])
        && branch.starts_with("refs/")
    {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let commit = match git(&["rev-parse", "--short=7", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            // Uncommitted changes to the code (not to docs) are said, not hidden.
            let changed = git(&[
                "status",
                "--porcelain",
                "--",
                "../../crates",
                "../../Cargo.toml",
                "../../Cargo.lock",
            ])
            .is_some_and(|s| !s.is_empty());
            if changed {
                format!("{c} with uncommitted changes")
            } else {
                c
            }
        }
        _ => "unknown".to_owned(),
    };
    println!("cargo:rustc-env=VIGIL_BENCH_COMMIT={commit}");
}
