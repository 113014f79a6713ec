//! Runs the `textured_quad` example and writes `target/vigil-examples/textured_quad.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("textured_quad", |d| {
        vigil_examples::textured_quad::render(d, [256, 256])
    })
}
