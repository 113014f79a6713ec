//! Runs the `triangle` example and writes `target/vigil-examples/triangle.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("triangle", |d| {
        vigil_examples::triangle::render(d, [256, 256])
    })
}
