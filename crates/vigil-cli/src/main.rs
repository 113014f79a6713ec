//! `vigil`: inspect adapters, run the demo, translate shaders, run benchmarks.
//!
//! This binary only parses arguments and prints; every piece of GPU logic lives in the
//! library crates.

mod demo;
mod graph;
mod info;
mod shader;

use std::process::ExitCode;

const USAGE: &str = "usage:
  vigil info [--json]        list adapters with features and limits (--json: for scripts)
  vigil demo [--frames N] [--out DIR] [--no-validation] [--trace FILE.json]
                             run the demo workload and verify it
  vigil shader FILE.wgsl --target spirv|msl [--entry NAME] [--sizes-slot N | --argument-table] [-o OUT]
  vigil shader FILE.wgsl --reflect
                             [--features F1,F2,... | all] [--constant KEY=VALUE]...
                             translate a shader, or print its reflection as JSON
  vigil graph [--dot] [-o FILE]
                             the demo's deferred frame as a render graph: its plan, or DOT
  vigil bench [--json] [--save FILE] [--quick] [--workload NAME] [--path vigil|ash|wgpu|vigil-groups] [--cpus LIST|none]
                             the same workloads through vigil, raw ash and wgpu";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("info") => info::run(&args[1..]),
        Some("demo") => demo::run(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("graph") => graph::run(&args[1..]),
        Some("shader") => shader::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vigil: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "bench")]
fn bench(args: &[String]) -> Result<(), String> {
    vigil_bench::cli(args)
}

#[cfg(not(feature = "bench"))]
fn bench(_args: &[String]) -> Result<(), String> {
    Err("this build has no benchmarks (they compile wgpu); run `cargo xtask bench`".into())
}
