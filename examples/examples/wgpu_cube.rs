//! Runs wgpu's `cube` example ported to vigil (see `vigil_examples::ported::cube`) and writes `target/vigil-examples/wgpu_cube.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("wgpu_cube", |d| {
        vigil_examples::ported::cube::render(d, [512, 512])
    })
}
