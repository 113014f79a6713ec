//! `cargo xtask`: the project's commands. No product logic lives here.
//!
//! - `setup`: make sure a Vulkan driver, the Khronos validation layer and the tools the
//!   tests use are installed (installing them on Debian when missing)
//! - `demo`: set-up, then build and run `vigil demo`
//! - `test`: set-up, then the whole test suite with the validation layer on
//! - `bench`: set-up, then `vigil bench` (extra arguments are passed on)
//! - `fuzz`: set-up, then the API-sequence fuzzer (`vigil-fuzz`; extra arguments such as
//!   `--calls N --seed S --seeds K --jobs J` are passed on)
//! - `ci`: `test`, then `cargo fmt --check` and `cargo clippy -D warnings`

mod setup;

use std::process::{Command, ExitCode};

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run(mut cmd: Command) -> Result<(), String> {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed ({status})"))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(task) = args.first() else {
        eprintln!("usage: cargo xtask <setup|demo|test|bench|fuzz|count|rules|ci> [args]");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match task.as_str() {
        "setup" => setup::ensure(),
        "demo" => setup::ensure().and_then(|()| {
            let mut c = cargo();
            c.args([
                "run",
                "--release",
                "-p",
                "vigil-cli",
                "--bin",
                "vigil",
                "--",
                "demo",
            ])
            .args(rest);
            run(c)
        }),
        "test" => setup::ensure().and_then(|()| test(rest)),
        "bench" => setup::ensure().and_then(|()| {
            let mut c = cargo();
            c.args([
                "run",
                "--release",
                "-p",
                "vigil-cli",
                "--features",
                "bench",
                "--bin",
                "vigil",
                "--",
                "bench",
            ])
            .args(rest);
            run(c)
        }),
        "fuzz" => setup::ensure().and_then(|()| {
            // The debug profile keeps overflow checks on, so wrapping arithmetic in
            // validation shows up as a panic the fuzzer reports, not as a silent wrap.
            let mut c = cargo();
            c.args(["run", "-p", "vigil-fuzz", "--bin", "vigil-fuzz", "--"])
                .args(rest);
            run(c)
        }),
        "count" => setup::ensure().and_then(|()| {
            // Instructions per operation of vigil's own code against the committed
            // baseline; `-- --bless` rewrites the baseline (say why in the commit).
            // Both of its binaries (one workload is counted in one of its own).
            let mut build = cargo();
            build.args(["build", "--release", "-p", "vigil-count", "--bins"]);
            run(build)?;
            let mut c = cargo();
            c.args(["run", "--release", "-p", "vigil-count", "--", "guard"])
                .args(rest);
            run(c)
        }),
        "rules" => {
            // Regenerates docs/rules.md from the rule table (the same test checks it in CI).
            let mut c = cargo();
            c.args(["test", "-p", "vigil", "--test", "rules_doc"])
                .env("VIGIL_BLESS", "1");
            run(c)
        }
        "ci" => setup::ensure().and_then(|()| test(rest)).and_then(|()| {
            let mut fmt = cargo();
            fmt.args(["fmt", "--all", "--", "--check"]);
            run(fmt)?;
            let mut clippy = cargo();
            clippy.args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]);
            run(clippy)
        }),
        other => Err(format!(
            "unknown task '{other}'; try setup, demo, test, bench, fuzz, count, rules or ci"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The whole suite: unit tests, integration tests on the real device (validation on, as
/// each test sets it), examples, doc tests, with the test seams compiled in; then the
/// instruction-count guard.
fn test(rest: &[String]) -> Result<(), String> {
    let mut c = cargo();
    c.args(["test", "--workspace", "--all-features"]).args(rest);
    // One test at a time within each test executable: every test opens its own device with
    // the validation layer on, and that layer (1.3.239, Debian 12's) crashes when several
    // of its devices live in one process at once — measured on the H200, 4 of 6 to 6 of 6
    // runs of six threads with a device each, none without the layer; a CI run here died of
    // SIGSEGV in an executable whose three tests each open one, likely the same. vigil's
    // own concurrency is tested by tests that run
    // threads themselves (one device shared by many threads, and devices on many threads
    // without the layer). RUST_TEST_THREADS set by the caller wins.
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        c.env("RUST_TEST_THREADS", "1");
    }
    run(c)?;
    // The instruction-count guard: vigil's own code per draw, dispatch, bind, submit,
    // write and create/destroy, counted by callgrind in a release build, against the
    // committed baseline (more than 5% over fails).
    let mut build = cargo();
    build.args(["build", "--release", "-q", "-p", "vigil-count", "--bins"]);
    run(build)?;
    let mut guard = cargo();
    guard.args(["run", "--release", "-q", "-p", "vigil-count", "--", "guard"]);
    run(guard)
}
