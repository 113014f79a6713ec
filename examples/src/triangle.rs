//! The smallest render: one triangle with per-vertex colors into an offscreen target.

use crate::image::Image;
use crate::{Result, err, math::bytes, read_image, render_target};
use vigil::*;

const SHADER: &str = r#"
struct V { @location(0) pos: vec2<f32>, @location(1) color: vec3<f32> }
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec3<f32> }
@vertex fn vs(v: V) -> O { return O(vec4<f32>(v.pos, 0.0, 1.0), v.color); }
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return vec4<f32>(i.color, 1.0); }
"#;

/// Renders the triangle at `size` and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "triangle",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "triangle",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .map_err(err)?;
    let attributes = [
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 0,
            shader_location: 0,
        },
        VertexAttribute {
            format: VertexFormat::Float32x3,
            offset: 8,
            shader_location: 1,
        },
    ];
    let buffers = [VertexBufferLayout {
        array_stride: 20,
        step_mode: VertexStepMode::Vertex,
        attributes: &attributes,
    }];
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "triangle",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &buffers,
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
    #[rustfmt::skip]
    let vertices = bytes(&[
        0.0, 0.8, 1.0, 0.0, 0.0,
        -0.8, -0.8, 0.0, 1.0, 0.0,
        0.8, -0.8, 0.0, 0.0, 1.0,
    ]);
    let vb = device
        .create_buffer(&BufferDescriptor {
            label: "triangle vertices",
            size: vertices.len() as u64,
            usage: BufferUsages::VERTEX | BufferUsages::COPY_DST,
        })
        .map_err(err)?;
    device.write_buffer(vb, 0, &vertices).map_err(err)?;
    let (texture, view) = render_target(device, "triangle target", size)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "triangle" })
        .map_err(err)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "triangle",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.05, 0.05, 0.08, 1.0]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .map_err(err)?;
    enc.set_render_pipeline(pipeline).map_err(err)?;
    enc.set_vertex_buffer(0, vb, 0, None).map_err(err)?;
    enc.draw(0..3, 0..1).map_err(err)?;
    enc.end_render_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}
