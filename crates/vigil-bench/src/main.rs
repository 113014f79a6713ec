//! `vigil-bench [--json] [--quick] [--workload NAME]` (also reachable as `vigil bench`).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match vigil_bench::cli(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vigil-bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
