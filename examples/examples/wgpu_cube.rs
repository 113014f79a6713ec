//! wgpu's `cube` example ported to vigil (see `vigil_examples::ported::cube`); writes
//! `target/vigil-examples/wgpu_cube.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        let image = vigil_examples::ported::cube::render(&device, [512, 512])?;
        let path = std::path::Path::new("target/vigil-examples/wgpu_cube.png");
        image.save(path)?;
        println!(
            "wgpu_cube: wrote {} ({}x{}) on {}",
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
            eprintln!("wgpu_cube: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
