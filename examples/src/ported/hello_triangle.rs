//! wgpu's `hello_triangle`: a red triangle from `vertex_index` alone, on green.
//!
//! Changes from the wgpu version: an offscreen `Rgba8Unorm` target instead of a window's
//! surface; the pipeline layout is explicit (vigil has no implicit layouts); the pass's
//! commands are called on the encoder between `begin_render_pass` and `end_render_pass`.

use crate::image::Image;
use crate::{Result, err, read_image, render_target};
use vigil::*;

/// wgpu's `shader.wgsl` for this example, unchanged.
const SHADER: &str = r#"
@vertex
fn vs_main(@builtin(vertex_index) in_vertex_index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(in_vertex_index) - 1);
    let y = f32(i32(in_vertex_index & 1u) * 2 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 0.0, 0.0, 1.0);
}
"#;

/// Renders one frame at `size` and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    let shader = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "hello_triangle",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let pipeline_layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "hello_triangle",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .map_err(err)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let render_pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "hello_triangle",
            layout: pipeline_layout,
            vertex: VertexState {
                module: shader,
                entry_point: "vs_main",
                constants: &[],
                buffers: &[],
            },
            fragment: Some(FragmentState {
                module: shader,
                entry_point: "fs_main",
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
    let (texture, view) = render_target(device, "hello_triangle frame", size)?;
    let mut encoder = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .map_err(err)?;
    encoder
        .begin_render_pass(&RenderPassDescriptor {
            label: "frame",
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear([0.0, 1.0, 0.0, 1.0]),
                store: StoreOp::Store,
            })],
            ..Default::default()
        })
        .map_err(err)?;
    encoder.set_render_pipeline(render_pipeline).map_err(err)?;
    encoder.draw(0..3, 0..1).map_err(err)?;
    encoder.end_render_pass().map_err(err)?;
    device
        .submit([encoder.finish().map_err(err)?])
        .map_err(err)?;
    read_image(device, texture, size)
}
