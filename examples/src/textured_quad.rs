//! A texture uploaded with `write_texture` and sampled onto a quad.

use crate::image::Image;
use crate::{Result, err, read_image, render_target};
use vigil::*;

const SHADER: &str = r#"
struct O { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@vertex fn vs(@builtin(vertex_index) i: u32) -> O {
    // Two triangles covering the middle of the target, uv 0..1 from the top left.
    var corners = array<vec2<f32>, 6>(vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0), vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0));
    let c = corners[i];
    return O(vec4<f32>(c.x * 1.6 - 0.8, 0.8 - c.y * 1.6, 0.0, 1.0), c);
}
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return textureSample(tex, samp, i.uv); }
"#;

/// The 4x4 texture: quadrants red, green, blue, white (top left, top right, bottom left,
/// bottom right).
pub fn texels() -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            out.extend_from_slice(match (x < 2, y < 2) {
                (true, true) => &[255, 0, 0, 255],
                (false, true) => &[0, 255, 0, 255],
                (true, false) => &[0, 0, 255, 255],
                (false, false) => &[255, 255, 255, 255],
            });
        }
    }
    out
}

/// Renders the quad at `size` and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    let tex = device
        .create_texture(&TextureDescriptor {
            label: "quad texture",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .map_err(err)?;
    device
        .write_texture(
            tex,
            TexelCopyTextureInfo::default(),
            &texels(),
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 16,
                rows_per_image: None,
            },
            [4, 4, 1],
        )
        .map_err(err)?;
    let view = device
        .create_texture_view(tex, &TextureViewDescriptor::default())
        .map_err(err)?;
    let sampler = device
        .create_sampler(&SamplerDescriptor {
            label: "nearest",
            ..Default::default()
        })
        .map_err(err)?;
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "quad",
            entries: &[
                BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: true },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    array: None,
                },
                BindGroupLayoutEntry {
                    binding: 1,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Sampler(SamplerBindingType::Filtering),
                    array: None,
                },
            ],
        })
        .map_err(err)?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "quad",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(view),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Sampler(sampler),
                },
            ],
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "quad",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(err)?;
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "quad",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "quad",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &[],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(err)?;
    let (texture, target) = render_target(device, "quad target", size)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "quad" })
        .map_err(err)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "quad",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .map_err(err)?;
    enc.set_render_pipeline(pipeline).map_err(err)?;
    enc.set_bind_group(0, group, &[]).map_err(err)?;
    enc.draw(0..6, 0..1).map_err(err)?;
    enc.end_render_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}
