//! Runs wgpu's `hello_triangle` example ported to vigil (see `vigil_examples::ported::hello_triangle`) and writes `target/vigil-examples/wgpu_hello_triangle.png`.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example("wgpu_hello_triangle", |d| {
        vigil_examples::ported::hello_triangle::render(d, [256, 256])
    })
}
