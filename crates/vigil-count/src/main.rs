//! `vigil-count`: instructions per operation of vigil's own code.
//!
//! Wall-clock benchmarks on a shared host drift by more than the differences they are
//! meant to show; an instruction count does not. Each workload here sets up a device on the
//! deterministic test backend (no driver), then runs a fixed number of operations inside
//! [`measured`](workloads::measured), and callgrind counts the instructions executed inside it (`--toggle-collect`),
//! so set-up and teardown are not counted. The test backend's own recording (a few pushes
//! onto a vector per command) is counted too; it is the same for every build.
//!
//! ```sh
//! vigil-count guard           # count every workload, compare with baseline.txt
//! vigil-count guard --bless   # write the counts as the new baseline
//! vigil-count run draw        # one workload, uncounted (what callgrind runs)
//! vigil-count time draw 21     # its counted part timed, 21 runs: ns per operation
//! ```
//!
//! The guard fails when a workload costs more than 5% above its baseline. A deliberate
//! increase updates `baseline.txt` in the same commit, with the reason in its message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod workloads;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// How far above its baseline a workload may go.
const TOLERANCE: f64 = 0.05;

fn baseline_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("baseline.txt")
}

/// Runs `workload` under callgrind, counting only inside [`workloads::measured`]; returns
/// instructions per operation.
fn count(workload: &str) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out =
        std::env::temp_dir().join(format!("vigil-count-{workload}-{}.out", std::process::id()));
    let status = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--toggle-collect=*vigil_count::workloads::measured*",
            "--collect-atstart=no",
        ])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(["run", workload])
        .env("VIGIL_COUNT_QUIET", "1")
        .output()
        .map_err(|e| format!("valgrind could not run ({e}); `cargo xtask setup` installs it"))?;
    if !status.status.success() {
        return Err(format!(
            "valgrind on {workload} failed:\n{}",
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    let total: u64 = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or("no instruction total in the callgrind output")?;
    let ops = workloads::operations(workload).ok_or("unknown workload")?;
    Ok(total as f64 / ops as f64)
}

fn read_baseline() -> Vec<(String, f64)> {
    std::fs::read_to_string(baseline_path())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_owned(), it.next()?.parse().ok()?))
        })
        .collect()
}

fn guard(bless: bool) -> Result<bool, String> {
    let baseline = read_baseline();
    let mut ok = true;
    let mut lines = vec![
        "# Instructions per operation of vigil's own code (plus the test backend's recording),"
            .to_owned(),
        "# counted by callgrind; `cargo xtask count --bless` rewrites this file.".to_owned(),
    ];
    println!(
        "{:<16} {:>12} {:>12} {:>8}",
        "workload", "now", "baseline", "change"
    );
    for w in workloads::NAMES {
        let now = count(w)?;
        let base = baseline.iter().find(|(n, _)| n == w).map(|(_, v)| *v);
        let change = base.map(|b| now / b - 1.0);
        let over = change.is_some_and(|c| c > TOLERANCE);
        ok &= !over || bless;
        println!(
            "{:<16} {:>12.1} {:>12} {:>7}{}",
            w,
            now,
            base.map_or("-".to_owned(), |b| format!("{b:.1}")),
            change.map_or("new".to_owned(), |c| format!("{:+.1}%", c * 100.0)),
            if over { "  over the 5% tolerance" } else { "" }
        );
        lines.push(format!("{w} {now:.1}"));
    }
    if bless {
        std::fs::write(baseline_path(), lines.join("\n") + "\n").map_err(|e| e.to_string())?;
        println!("baseline written to {}", baseline_path().display());
    }
    Ok(ok)
}

/// Runs `workload` `reps` times in this process and prints the wall-clock time per
/// operation of the counted part: median, lowest and highest. Not a benchmark of vigil
/// against anything (`vigil bench` is); it tells how fast this machine executes the
/// instructions the guard counts.
fn time(workload: &str, reps: usize) {
    use std::sync::atomic::Ordering::Relaxed;
    workloads::TIMING.store(true, Relaxed);
    let ops = workloads::operations(workload).unwrap_or(1) as f64;
    let mut per_op: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            workloads::run(workload);
            workloads::LAST_NS.load(Relaxed) as f64 / ops
        })
        .collect();
    per_op.sort_by(f64::total_cmp);
    let median = per_op[per_op.len() / 2];
    println!(
        "{workload}: {median:.1} ns per operation (median of {}; {:.1} to {:.1})",
        per_op.len(),
        per_op[0],
        per_op[per_op.len() - 1]
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => match args.get(1).map(String::as_str).and_then(workloads::run) {
            Some(()) => ExitCode::SUCCESS,
            None => {
                eprintln!(
                    "unknown workload; workloads: {}",
                    workloads::NAMES.join(", ")
                );
                ExitCode::from(2)
            }
        },
        Some("time") => match args.get(1).map(String::as_str) {
            Some(w) if workloads::operations(w).is_some() => {
                let reps = args
                    .get(2)
                    .and_then(|r| r.parse::<usize>().ok())
                    .unwrap_or(21);
                time(w, reps);
                ExitCode::SUCCESS
            }
            _ => {
                eprintln!(
                    "unknown workload; workloads: {}",
                    workloads::NAMES.join(", ")
                );
                ExitCode::from(2)
            }
        },
        Some("guard") => match guard(args.iter().any(|a| a == "--bless")) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => {
                eprintln!("vigil-count: a workload costs more than 5% over its baseline");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("vigil-count: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!(
                "usage: vigil-count guard [--bless] | vigil-count run <workload> | vigil-count time <workload> [reps]"
            );
            ExitCode::from(2)
        }
    }
}
