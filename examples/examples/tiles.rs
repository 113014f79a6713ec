//! Runs the `tiles` example (override constants and immediate data) and writes
//! `target/vigil-examples/tiles.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("tiles", |d| vigil_examples::tiles::render(d, [256, 256], 5))
}
