//! Runs the `triangle` example and writes `target/vigil-examples/triangle.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        let image = vigil_examples::triangle::render(&device, [256, 256])?;
        let path = std::path::Path::new("target/vigil-examples/triangle.png");
        image.save(path)?;
        println!(
            "triangle: wrote {} ({}x{}) on {}",
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
            eprintln!("triangle: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
