//! Names the commit the benchmarks are built from (`VIGIL_BENCH_COMMIT`, the crate's
//! `COMMIT`), so a run's table and JSON say which code they measured: figures in
//! `docs/performance.md` are quoted with their commit, and a binary carried to another
//! machine keeps its own. "unknown" outside a git checkout.

use std::process::Command;

/// What the binary is built from, relative to this crate: the workspace crates linked into
/// it (`cargo tree -p vigil-bench -e normal`) and the workspace's manifest and lock file.
/// Watched for changes, and looked at for uncommitted ones. Only these: watching all of
/// `crates/` rebuilt vigil-bench after an edit anywhere (vigil-fuzz, vigil-count, …).
const CODE: [&str; 8] = [
    ".",
    "../vigil",
    "../vigil-hal",
    "../vigil-vulkan",
    "../vigil-shader",
    "../vigil-graph",
    "../../Cargo.toml",
    "../../Cargo.lock",
];

/// `git ARGS`' trimmed output, run in this crate's folder; `None` when git fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    // Run again when the code changes or when HEAD, or the branch it names, moves.
    for path in CODE {
        println!("cargo:rerun-if-changed={path}");
    }
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
            let mut status = vec!["status", "--porcelain", "--"];
            status.extend(CODE);
            let changed = git(&status).is_some_and(|s| !s.is_empty());
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
