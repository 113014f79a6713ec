//! Runnable vigil programs, each a function the `examples/` binaries call and the tests
//! check: [`triangle`], [`textured_quad`], [`compute_to_texture`], [`tiles`] (override
//! constants and immediate data), [`volume`] (a 3D texture written by a compute shader,
//! rendered into a slice at a time and sampled trilinearly), and [`scene`], the demo (a
//! compute-generated, compute-mipmapped texture on lit, depth-tested, instanced cubes).
//!
//! [`ported`] holds three of wgpu's own examples (hello_triangle, cube, boids) ported to
//! vigil.
//!
//! [`image`] reads and writes PNGs and compares images against goldens.

pub mod compute_to_texture;
pub mod gpu_driven;
pub mod image;
pub mod math;
pub mod ported;
pub mod ray_query;
pub mod scene;
pub mod textured_quad;
pub mod tiles;
pub mod triangle;
pub mod volume;

/// An example's failure, in words.
pub type Result<T> = std::result::Result<T, String>;

/// Turns a vigil error into the example's error.
pub fn err(e: vigil::Error) -> String {
    e.to_string()
}

/// Opens the default adapter with validation as the environment says, and the features
/// the examples can use when present.
pub fn open_device() -> Result<vigil::Device> {
    open_device_with(vigil::Features::TIMESTAMP_QUERY)
}

/// Opens the default adapter's device with whichever of `features` it supports (the
/// validation layer as the environment says).
pub fn open_device_with(features: vigil::Features) -> Result<vigil::Device> {
    let instance = vigil::Instance::<vigil::DefaultApi>::new(&vigil::InstanceDescriptor {
        app_name: "vigil example".into(),
        validation: vigil::Validation::FromEnvironment,
        ..Default::default()
    })
    .map_err(err)?;
    let adapter = instance.default_adapter().map_err(err)?;
    adapter
        .request_device(&vigil::DeviceDescriptor {
            label: "example".into(),
            required_features: adapter.features() & features,
            required_limits: adapter.limits().clone(),
            ..vigil::DeviceDescriptor::default()
        })
        .map_err(err)
}

/// The body of every example binary: opens the default device, renders with `render`,
/// writes the image to `target/vigil-examples/NAME.png` and reports; a failure is printed
/// and becomes the exit status.
pub fn run_example(
    name: &str,
    render: impl FnOnce(&vigil::Device) -> Result<image::Image>,
) -> std::process::ExitCode {
    run_example_with(name, vigil::Features::TIMESTAMP_QUERY, render)
}

/// As [`run_example`], on a device with whichever of `features` the adapter supports.
pub fn run_example_with(
    name: &str,
    features: vigil::Features,
    render: impl FnOnce(&vigil::Device) -> Result<image::Image>,
) -> std::process::ExitCode {
    let run = || -> Result<()> {
        let device = open_device_with(features)?;
        let image = render(&device)?;
        let path = std::path::PathBuf::from(format!("target/vigil-examples/{name}.png"));
        image.save(&path)?;
        println!(
            "{name}: wrote {} ({}x{}) on {}",
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
            eprintln!("{name}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Reads an RGBA8 texture (with `COPY_SRC`) back as an image.
pub fn read_image(
    device: &vigil::Device,
    texture: vigil::Texture,
    size: [u32; 2],
) -> Result<image::Image> {
    let rgba = device
        .read_texture(texture, vigil::TexelCopyTextureInfo::default(), size)
        .map_err(err)?;
    Ok(image::Image {
        width: size[0],
        height: size[1],
        rgba,
    })
}

/// An RGBA8 render target that can be read back, and its view.
pub fn render_target(
    device: &vigil::Device,
    label: &str,
    size: [u32; 2],
) -> Result<(vigil::Texture, vigil::TextureView)> {
    let texture = device
        .create_texture(&vigil::TextureDescriptor {
            label,
            size,
            format: vigil::TextureFormat::Rgba8Unorm,
            usage: vigil::TextureUsages::RENDER_ATTACHMENT | vigil::TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .map_err(err)?;
    let view = device
        .create_texture_view(texture, &vigil::TextureViewDescriptor::default())
        .map_err(err)?;
    Ok((texture, view))
}
