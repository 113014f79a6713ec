//! Runs the `compute_to_texture` example and writes `target/vigil-examples/compute_to_texture.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("compute_to_texture", |d| {
        vigil_examples::compute_to_texture::render(d, [256, 256])
    })
}
