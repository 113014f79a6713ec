//! wgpu's `boids` example ported to vigil (see `vigil_examples::ported::boids`); writes
//! `target/vigil-examples/wgpu_boids.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        // 60 frames of the flock; the image is the last.
        let image = vigil_examples::ported::boids::run(&device, [512, 512], 60)?.image;
        let path = std::path::Path::new("target/vigil-examples/wgpu_boids.png");
        image.save(path)?;
        println!(
            "wgpu_boids: wrote {} ({}x{}) on {}",
            path.display(),
            image.width,
            image.height,
            device.adapter_info().name
        );
        Ok(())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wgpu_boids: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
