//! A GPU-driven scene: a compute pass culls 10,000 objects and writes the indirect draw's
//! arguments; one indirect draw fetches the visible objects through pointers and samples
//! their textures from a heap by index. Writes one PNG per camera,
//! `target/vigil-examples/gpu_driven_N.png` (the last also as `gpu_driven.png`). Needs an
//! adapter with `DESCRIPTOR_HEAPS` (lavapipe and the H200 have it); elsewhere it says which
//! feature is missing and fails.

use vigil_examples::gpu_driven;

fn main() -> std::process::ExitCode {
    vigil_examples::run_example_with("gpu_driven", vigil::Features::DESCRIPTOR_HEAPS, |d| {
        let mut frames = gpu_driven::render(d, [400, 300])?;
        for (n, f) in frames.iter().enumerate() {
            let path = format!("target/vigil-examples/gpu_driven_{n}.png");
            f.image.save(std::path::Path::new(&path))?;
            println!(
                "frame {n}: {} of {} objects visible, drawn by one indirect draw ({path})",
                f.visible,
                gpu_driven::OBJECTS
            );
        }
        frames
            .pop()
            .map(|f| f.image)
            .ok_or_else(|| "no frame was drawn".to_owned())
    })
}
