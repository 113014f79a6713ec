//! Runs wgpu's `boids` example ported to vigil (see `vigil_examples::ported::boids`), 60 frames and writes `target/vigil-examples/wgpu_boids.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("wgpu_boids", |d| {
        vigil_examples::ported::boids::run(d, [512, 512], 60).map(|r| r.image)
    })
}
