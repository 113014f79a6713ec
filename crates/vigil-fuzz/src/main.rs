//! `vigil-fuzz`: runs seeds of the API-sequence fuzzer, each in a child process so that a
//! crash or a hang in the driver or the validation layer is reported with its seed and the
//! call that caused it.
//!
//! ```text
//! vigil-fuzz [--calls N] [--seed S] [--seeds K] [--jobs J] [--timeout-s T] [--trace] [--verbose]
//! ```
//!
//! Runs seeds `S .. S+K` (default 0, 1) with `N` calls each (default 20,000), `J` at a time,
//! and exits non-zero when any seed found anything. `--trace` (with one seed) prints every
//! call before it is made.

use std::io::Read as _;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

struct Args {
    calls: u64,
    seed: u64,
    seeds: u64,
    jobs: usize,
    timeout: Option<Duration>,
    trace: bool,
    verbose: bool,
    child: bool,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        calls: 20_000,
        seed: 0,
        seeds: 1,
        jobs: 1,
        timeout: None,
        trace: false,
        verbose: false,
        child: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.replace('_', "").parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--calls" => a.calls = value("--calls")?,
            "--seed" => a.seed = value("--seed")?,
            "--seeds" => a.seeds = value("--seeds")?,
            "--jobs" => a.jobs = usize::try_from(value("--jobs")?.max(1)).unwrap_or(1),
            "--timeout-s" => a.timeout = Some(Duration::from_secs(value("--timeout-s")?)),
            "--trace" => a.trace = true,
            "--verbose" | "-v" => a.verbose = true,
            "--child" => a.child = true,
            "--help" | "-h" => {
                return Err("usage: vigil-fuzz [--calls N] [--seed S] [--seeds K] [--jobs J] [--timeout-s T] [--trace] [--verbose]".into());
            }
            other => return Err(format!("unknown argument '{other}' (try --help)")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if args.child || args.trace {
        return child(&args);
    }
    parent(&args)
}

/// Runs one seed in this process and prints its report.
fn child(args: &Args) -> ExitCode {
    let config = vigil_fuzz::Config {
        seed: args.seed,
        calls: args.calls,
        trace: args.trace,
    };
    match vigil_fuzz::run(&config) {
        Ok(report) => {
            print!("{}", report.render(args.verbose));
            if report.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            println!("FUZZ-ERROR seed={} {e}", args.seed);
            ExitCode::from(3)
        }
    }
}

/// How one child ended.
enum Ended {
    /// It printed a result line: clean or not.
    Reported { clean: bool, output: String },
    /// It died without one (a crash), or ran past the time limit.
    Died { why: String, output: String },
}

fn spawn(args: &Args, seed: u64, trace: bool) -> std::io::Result<std::process::Child> {
    // On Linux, the running image itself: a rebuild that replaces the binary while a run
    // goes on (cargo writes a new file) would otherwise leave every later seed unable to
    // start.
    let own = std::path::Path::new("/proc/self/exe");
    let exe = if own.exists() {
        own.to_path_buf()
    } else {
        std::env::current_exe()?
    };
    let mut c = Command::new(exe);
    c.args([
        "--child",
        "--seed",
        &seed.to_string(),
        "--calls",
        &args.calls.to_string(),
    ]);
    if args.verbose {
        c.arg("--verbose");
    }
    if trace {
        c.arg("--trace");
    }
    c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()
}

/// Waits for a child up to `timeout`, collecting what it printed.
fn wait(
    mut child: std::process::Child,
    timeout: Duration,
) -> (Option<std::process::ExitStatus>, String, String) {
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_string(&mut s);
        }
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    (status, stdout, stderr)
}

fn run_seed(args: &Args, seed: u64, timeout: Duration) -> Ended {
    let child = match spawn(args, seed, false) {
        Ok(c) => c,
        Err(e) => {
            return Ended::Died {
                why: format!("could not start the child: {e}"),
                output: String::new(),
            };
        }
    };
    let (status, stdout, stderr) = wait(child, timeout);
    if stdout.contains("FUZZ-RESULT") {
        return Ended::Reported {
            clean: status.is_some_and(|s| s.success()),
            output: stdout,
        };
    }
    let why = match status {
        None => format!("no result within {} s (a hang?)", timeout.as_secs()),
        Some(s) => format!("the child died without a result ({s})"),
    };
    // Replay with every call printed: the last lines name the call that crashed or hung.
    let kind = if status.is_none() { "hang" } else { "crash" };
    let (replay, last_call) = match spawn(args, seed, true) {
        Ok(c) => {
            let (_, _, trace) = wait(c, timeout);
            let lines: Vec<&str> = trace.lines().collect();
            let tail = lines[lines.len().saturating_sub(30)..].join("\n");
            // The last call the replay started: "[index] operation(arguments)".
            let last = lines
                .iter()
                .rev()
                .find_map(|l| l.strip_prefix('['))
                .and_then(|l| l.split_once("] "))
                .map(|(index, call)| {
                    let op = call.split('(').next().unwrap_or(call);
                    let op = op.rsplit('.').next().unwrap_or(op);
                    (index.to_owned(), op.to_owned())
                });
            (
                format!("\nlast calls of the replay with --trace:\n{tail}"),
                last,
            )
        }
        Err(_) => (String::new(), None),
    };
    let (call, op) = last_call.unwrap_or_else(|| ("0".into(), "unknown".into()));
    Ended::Died {
        why,
        output: format!(
            "{stdout}\n{}{replay}\nFUZZ-FINDING seed={seed} call={call} count=1 kind={kind} sig={kind}:{op}\n",
            tail_of(&stderr, 20)
        ),
    }
}

/// Prints, per finding signature, how many seeds and calls showed it and the earliest call
/// it was seen at (the number of calls it took to find).
fn tally(results: &[(u64, Ended)]) {
    #[derive(Default)]
    struct Row {
        seeds: u64,
        count: u64,
        first: Option<(u64, u64)>,
    }
    let mut rows: std::collections::BTreeMap<String, Row> = std::collections::BTreeMap::new();
    for (_, ended) in results {
        let output = match ended {
            Ended::Reported { output, .. } | Ended::Died { output, .. } => output,
        };
        for line in output
            .lines()
            .filter_map(|l| l.strip_prefix("FUZZ-FINDING "))
        {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|kv| kv.strip_prefix(name))
                    .unwrap_or("")
                    .to_owned()
            };
            let sig = line.split_once(" sig=").map_or("", |(_, s)| s).to_owned();
            let seed: u64 = field("seed=").parse().unwrap_or(0);
            let call: u64 = field("call=").parse().unwrap_or(0);
            let count: u64 = field("count=").parse().unwrap_or(1);
            let row = rows.entry(sig).or_default();
            row.seeds += 1;
            row.count += count;
            if row.first.is_none_or(|(_, c)| call < c) {
                row.first = Some((seed, call));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    println!("\nfindings by signature (seeds, occurrences, earliest call):");
    for (sig, row) in &rows {
        let (seed, call) = row.first.unwrap_or((0, 0));
        println!(
            "  {:>4} seeds {:>6} times  first at call {call:>6} of seed {seed}  {sig}",
            row.seeds, row.count
        );
    }
}

fn tail_of(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn parent(args: &Args) -> ExitCode {
    let timeout = args
        .timeout
        .unwrap_or_else(|| Duration::from_secs(120 + args.calls / 50));
    let seeds: Vec<u64> = (args.seed..args.seed.saturating_add(args.seeds)).collect();
    let start = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..args.jobs.min(seeds.len()).max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&seed) = seeds.get(i) else { break };
                    let ended = run_seed(args, seed, timeout);
                    match &ended {
                        Ended::Reported { output, .. } => print!("{output}"),
                        Ended::Died { why, output } => {
                            println!("seed {seed}: {why}\n{output}");
                            println!("FUZZ-RESULT seed={seed} died");
                        }
                    }
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((seed, ended));
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    tally(&results);
    let mut calls = 0u64;
    let mut bad = Vec::new();
    for (seed, ended) in &results {
        match ended {
            Ended::Reported { clean, output } => {
                calls += output
                    .lines()
                    .filter_map(|l| l.strip_prefix("FUZZ-RESULT "))
                    .filter_map(|l| {
                        l.split_whitespace()
                            .find_map(|kv| kv.strip_prefix("calls="))
                    })
                    .filter_map(|n| n.parse::<u64>().ok())
                    .sum::<u64>();
                if !clean {
                    bad.push(*seed);
                }
            }
            Ended::Died { .. } => bad.push(*seed),
        }
    }
    bad.sort_unstable();
    println!(
        "FUZZ-TOTAL seeds={} calls={calls} failed={} seconds={:.0}{}",
        results.len(),
        bad.len(),
        start.elapsed().as_secs_f64(),
        if bad.is_empty() {
            String::new()
        } else {
            format!(
                " failed-seeds={bad:?} (replay one: vigil-fuzz --seed S --calls {} --trace)",
                args.calls
            )
        }
    );
    if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
