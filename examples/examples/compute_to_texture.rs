//! Runs the `compute_to_texture` example and writes `target/vigil-examples/compute_to_texture.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        let image = vigil_examples::compute_to_texture::render(&device, [256, 256])?;
        let path = std::path::Path::new("target/vigil-examples/compute_to_texture.png");
        image.save(path)?;
        println!(
            "compute_to_texture: wrote {} ({}x{}) on {}",
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
            eprintln!("compute_to_texture: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
