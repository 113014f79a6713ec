//! Runs the `textured_quad` example and writes `target/vigil-examples/textured_quad.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        let image = vigil_examples::textured_quad::render(&device, [256, 256])?;
        let path = std::path::Path::new("target/vigil-examples/textured_quad.png");
        image.save(path)?;
        println!(
            "textured_quad: wrote {} ({}x{}) on {}",
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
            eprintln!("textured_quad: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
