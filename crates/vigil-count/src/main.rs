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
//! vigil-count threads 8 21 --groups 10   # the draws frame on 1-8 threads, 10 groups cycled
//! vigil-count-indirect run dispatch_indirect   # the indirect workloads, in a binary of their own
//! vigil-count calls           # the draw's four calls one kind at a time (not guarded)
//! ```
//!
//! The guard fails when a workload costs more than 5% above its baseline. A deliberate
//! increase updates `baseline.txt` in the same commit, with the reason in its message. It
//! also fails when `frame_idle` (a frame with 10,000 idle buffers and textures live) costs
//! more than 1% above `frame` (the same frame without them), baseline or not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod workloads;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// Workloads counted in a binary of their own (`vigil-count-indirect`), so that adding them
/// changes nothing the compiler inlines in the others.
const APART: &[&str] = &[
    "dispatch_indirect",
    "draw_indexed_indirect",
    "multi_draw_indexed_indirect",
];

/// How far above its baseline a workload may go.
const TOLERANCE: f64 = 0.05;
/// How much more `frame_idle` may cost than `frame`.
const IDLE_TOLERANCE: f64 = 0.01;

fn baseline_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("baseline.txt")
}

/// Runs `workload` under callgrind, counting only inside [`workloads::measured`]; returns
/// instructions per operation.
fn count(workload: &str) -> Result<f64, String> {
    let mut exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut toggle = "--toggle-collect=*vigil_count::workloads::measured*";
    let apart = if APART.contains(&workload) {
        Some((
            "vigil-count-indirect",
            "--toggle-collect=*vigil_count_indirect::workloads::measured*",
        ))
    } else if workloads::CALLS.contains(&workload) {
        Some((
            "vigil-count-calls",
            "--toggle-collect=*vigil_count_calls::workloads::measured*",
        ))
    } else {
        None
    };
    if let Some((name, apart_toggle)) = apart {
        exe.set_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        toggle = apart_toggle;
        if !exe.exists() {
            return Err(format!(
                "{} is missing: `cargo build --release -p vigil-count --bins` builds it",
                exe.display()
            ));
        }
    }
    let out =
        std::env::temp_dir().join(format!("vigil-count-{workload}-{}.out", std::process::id()));
    let status = Command::new("valgrind")
        .args(["--tool=callgrind", toggle, "--collect-atstart=no"])
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
        "{:<27} {:>12} {:>12} {:>8}",
        "workload", "now", "baseline", "change"
    );
    let mut counted = std::collections::HashMap::new();
    for w in workloads::NAMES.iter().chain(APART) {
        let now = count(w)?;
        let base = baseline.iter().find(|(n, _)| n == w).map(|(_, v)| *v);
        let change = base.map(|b| now / b - 1.0);
        let over = change.is_some_and(|c| c > TOLERANCE);
        ok &= !over || bless;
        println!(
            "{:<27} {:>12.1} {:>12} {:>7}{}",
            w,
            now,
            base.map_or("-".to_owned(), |b| format!("{b:.1}")),
            change.map_or("new".to_owned(), |c| format!("{:+.1}%", c * 100.0)),
            if over { "  over the 5% tolerance" } else { "" }
        );
        lines.push(format!("{w} {now:.1}"));
        counted.insert(*w, now);
    }
    // Idle resources change nothing: a frame with 10,000 unrelated buffers and textures
    // live costs vigil's code what it costs without them (within 1%), whatever the
    // baseline says.
    if let (Some(plain), Some(idle)) = (counted.get("frame"), counted.get("frame_idle")) {
        let change = idle / plain - 1.0;
        let over = change > IDLE_TOLERANCE;
        ok &= !over;
        println!(
            "frame_idle / frame: {:+.2}%{}",
            change * 100.0,
            if over {
                "  over the 1% idle objects may cost"
            } else {
                ""
            }
        );
    }
    if bless {
        std::fs::write(baseline_path(), lines.join("\n") + "\n").map_err(|e| e.to_string())?;
        println!("baseline written to {}", baseline_path().display());
    }
    Ok(ok)
}

/// Records the `draw` workload's frame (10,000 draws) on 1, 2, 4, … `most` threads at
/// once, each with its own encoder on one shared device, `reps` times, and prints per
/// thread count the median wall time of a round and the median over rounds of the rate
/// against one thread (paired by round). The test backend does no driver work, so this
/// is how vigil's own recording scales. With `spread`, thread `i` starts its walk over the
/// groups at the `125 i`th, so threads do not meet the same group at the same moment.
/// `groups` distinct groups are cycled (see [`workloads::draw_set_of`]).
fn threads(most: usize, reps: usize, spread: bool, groups: u32) {
    use std::sync::{Barrier, Mutex};
    use std::time::Instant;
    const DRAWS: u32 = 10_000;
    let set = workloads::draw_set_of(groups);
    let views: Vec<_> = (0..most).map(|_| set.target()).collect();
    let mut counts = vec![1usize];
    while counts.last().is_some_and(|&c| c * 2 <= most) {
        counts.push(counts.last().map_or(1, |c| c * 2));
    }
    let (start, end) = (Barrier::new(most + 1), Barrier::new(most + 1));
    let active = std::sync::atomic::AtomicUsize::new(0);
    type Kept = Option<(vigil::CommandBuffer<vigil::TestApi>, Instant, Instant)>;
    let kept: Vec<Mutex<Kept>> = (0..most).map(|_| Mutex::new(None)).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
    std::thread::scope(|s| {
        for (i, view) in views.iter().enumerate() {
            let (start, end, active, set, kept) = (&start, &end, &active, &set, &kept);
            s.spawn(move || {
                loop {
                    start.wait();
                    let n = active.load(std::sync::atomic::Ordering::Acquire);
                    if n == 0 {
                        break;
                    }
                    if i < n {
                        let began = Instant::now();
                        let mut e = set.encoder_on(*view);
                        set.record_from(&mut e, DRAWS, if spread { i as u32 * 125 } else { 0 });
                        e.end_render_pass().unwrap();
                        let cb = e.finish().unwrap();
                        *kept[i].lock().unwrap() = Some((cb, began, Instant::now()));
                    }
                    end.wait();
                }
            });
        }
        for rep in 0..reps + 2 {
            for (k, &t) in counts.iter().enumerate() {
                active.store(t, std::sync::atomic::Ordering::Release);
                start.wait();
                end.wait();
                // From the first thread's start to the last one's end (each thread reads
                // its own clock: the main thread may not run at once on a small host).
                let mut span: Option<(Instant, Instant)> = None;
                for slot in &kept {
                    // The command buffers are dropped outside the timed part.
                    if let Some((_, a, b)) = slot.lock().unwrap().take() {
                        span = Some(span.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
                    }
                }
                let took = span.map_or(0.0, |(a, b)| (b - a).as_secs_f64() * 1e6);
                // Two warm-up rounds are not kept.
                if rep >= 2 {
                    times[k].push(took);
                }
            }
        }
        active.store(0, std::sync::atomic::Ordering::Release);
        start.wait();
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (k, &t) in counts.iter().enumerate() {
        let mut rates: Vec<f64> = times[0]
            .iter()
            .zip(&times[k])
            .map(|(one, many)| t as f64 * one / many)
            .collect();
        let rate = median(&mut rates);
        let mut mine = times[k].clone();
        let m = median(&mut mine);
        println!(
            "{t} threads: {m:.0} µs per round ({:.1} ns per draw per thread), rate {rate:.2}× one thread",
            m * 1000.0 / f64::from(DRAWS)
        );
    }
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
            Some(w) if workloads::NAMES.contains(&w) => {
                let reps = args
                    .get(2)
                    .and_then(|r| r.parse::<usize>().ok())
                    .unwrap_or(21);
                match workloads::time(w, reps, workloads::run) {
                    Some(()) => ExitCode::SUCCESS,
                    None => ExitCode::FAILURE,
                }
            }
            _ => {
                eprintln!(
                    "unknown workload; workloads: {}",
                    workloads::NAMES.join(", ")
                );
                ExitCode::from(2)
            }
        },
        Some("calls") => {
            // Each call kind alone, on the guard's terms (callgrind, test backend).
            for w in workloads::CALLS {
                match count(w) {
                    Ok(n) => println!("{w:<24} {n:>8.1} instructions per call"),
                    Err(e) => {
                        eprintln!("{e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Some("threads") => {
            // Positional: the arguments before the first option.
            let plain: Vec<&String> = args[1..]
                .iter()
                .take_while(|a| !a.starts_with("--"))
                .collect();
            let most = plain.first().and_then(|r| r.parse().ok()).unwrap_or(8);
            let reps = plain.get(1).and_then(|r| r.parse().ok()).unwrap_or(21);
            let groups = args
                .iter()
                .position(|a| a == "--groups")
                .and_then(|i| args.get(i + 1))
                .and_then(|n| n.parse().ok())
                .unwrap_or(1_000);
            threads(most, reps, args.iter().any(|a| a == "--spread"), groups);
            ExitCode::SUCCESS
        }
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
                "usage: vigil-count guard [--bless] | vigil-count run <workload> | vigil-count time <workload> [reps] | vigil-count threads [most] [reps] [--spread] [--groups N]"
            );
            ExitCode::from(2)
        }
    }
}
