//! Runs the `volume` example and writes `target/vigil-examples/volume.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("volume", |d| vigil_examples::volume::render(d, [256, 256]))
}
