//! wgpu's `hello_triangle` example ported to vigil (see `vigil_examples::ported::hello_triangle`); writes
//! `target/vigil-examples/wgpu_hello_triangle.png`.

fn main() -> std::process::ExitCode {
    let run = || -> vigil_examples::Result<()> {
        let device = vigil_examples::open_device()?;
        let image = vigil_examples::ported::hello_triangle::render(&device, [256, 256])?;
        let path = std::path::Path::new("target/vigil-examples/wgpu_hello_triangle.png");
        image.save(path)?;
        println!(
            "wgpu_hello_triangle: wrote {} ({}x{}) on {}",
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
            eprintln!("wgpu_hello_triangle: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
