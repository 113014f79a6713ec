//! A compute shader writes a storage texture; the texture is read back.

use crate::image::Image;
use crate::{Result, err, read_image};
use vigil::*;

const SHADER: &str = r#"
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(img);
    if id.x >= size.x || id.y >= size.y { return; }
    let uv = vec2<f32>(id.xy) / vec2<f32>(size - vec2<u32>(1u));
    let ring = 0.5 + 0.5 * cos(length(uv - vec2<f32>(0.5)) * 40.0);
    textureStore(img, vec2<i32>(id.xy), vec4<f32>(uv.x, uv.y, ring, 1.0));
}
"#;

/// The value the kernel writes at `(x, y)` of a `size` texture, before 8-bit rounding.
pub fn expected(x: u32, y: u32, size: [u32; 2]) -> [f32; 4] {
    let u = x as f32 / (size[0] - 1) as f32;
    let v = y as f32 / (size[1] - 1) as f32;
    let d = ((u - 0.5).powi(2) + (v - 0.5).powi(2)).sqrt();
    [u, v, 0.5 + 0.5 * (d * 40.0).cos(), 1.0]
}

/// Fills a `size` texture in a compute pass and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    let texture = device
        .create_texture(&TextureDescriptor {
            label: "compute output",
            size,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .map_err(err)?;
    let view = device
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .map_err(err)?;
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "compute output",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }],
        })
        .map_err(err)?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "compute output",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "compute",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(err)?;
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "rings",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "rings",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(err)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "compute to texture",
        })
        .map_err(err)?;
    enc.begin_compute_pass(&ComputePassDescriptor {
        label: "rings",
        ..Default::default()
    })
    .map_err(err)?;
    enc.set_compute_pipeline(pipeline).map_err(err)?;
    enc.set_bind_group(0, group, &[]).map_err(err)?;
    enc.dispatch(size[0].div_ceil(8), size[1].div_ceil(8), 1)
        .map_err(err)?;
    enc.end_compute_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}
