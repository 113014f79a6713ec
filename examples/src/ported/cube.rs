//! wgpu's `cube`: a cube textured with a Mandelbrot set held in an `R8Uint` texture, read
//! with `textureLoad` and turned into color by the fragment shader, seen through a
//! projection × view matrix in a uniform buffer.
//!
//! Changes from the wgpu version: an offscreen `Rgba8Unorm` target instead of a window's
//! surface; the texture is created and then written (`create_texture` + `write_texture`,
//! as vigil has no `create_texture_with_data`); the matrix math is the examples' own
//! (`glam`'s `perspective_rh` and `look_at_rh` conventions); the optional wireframe
//! pipeline is left out, because vigil has no line polygon mode.

use crate::image::Image;
use crate::math::{Mat4, bytes, look_at, mul, perspective};
use crate::{Result, err, read_image, render_target};
use vigil::*;

/// wgpu's `shader.wgsl` for this example (the wireframe entry point left out).
const SHADER: &str = r#"
struct VertexOutput {
    @location(0) tex_coord: vec2<f32>,
    @builtin(position) position: vec4<f32>,
};

@group(0)
@binding(0)
var<uniform> transform: mat4x4<f32>;

@vertex
fn vs_main(
    @location(0) position: vec4<f32>,
    @location(1) tex_coord: vec2<f32>,
) -> VertexOutput {
    var result: VertexOutput;
    result.tex_coord = tex_coord;
    result.position = transform * position;
    return result;
}

@group(0)
@binding(1)
var r_color: texture_2d<u32>;

@fragment
fn fs_main(vertex: VertexOutput) -> @location(0) vec4<f32> {
    let tex = textureLoad(r_color, vec2<i32>(vertex.tex_coord * 256.0), 0);
    let v = f32(tex.x) / 255.0;
    return vec4<f32>(1.0 - (v * 5.0), 1.0 - (v * 15.0), 1.0 - (v * 50.0), 1.0);
}
"#;

/// The clear color of wgpu's example.
pub const CLEAR: [f64; 4] = [0.1, 0.2, 0.3, 1.0];
/// The texture's side, in texels.
pub const TEXELS: u32 = 256;

fn vertex(pos: [i8; 3], tc: [i8; 2]) -> [f32; 6] {
    [
        f32::from(pos[0]),
        f32::from(pos[1]),
        f32::from(pos[2]),
        1.0,
        f32::from(tc[0]),
        f32::from(tc[1]),
    ]
}

/// The 24 vertices (position, texture coordinate) and 36 indices of wgpu's cube.
pub fn create_vertices() -> (Vec<[f32; 6]>, Vec<u16>) {
    let vertex_data = [
        // top (0, 0, 1)
        vertex([-1, -1, 1], [0, 0]),
        vertex([1, -1, 1], [1, 0]),
        vertex([1, 1, 1], [1, 1]),
        vertex([-1, 1, 1], [0, 1]),
        // bottom (0, 0, -1)
        vertex([-1, 1, -1], [1, 0]),
        vertex([1, 1, -1], [0, 0]),
        vertex([1, -1, -1], [0, 1]),
        vertex([-1, -1, -1], [1, 1]),
        // right (1, 0, 0)
        vertex([1, -1, -1], [0, 0]),
        vertex([1, 1, -1], [1, 0]),
        vertex([1, 1, 1], [1, 1]),
        vertex([1, -1, 1], [0, 1]),
        // left (-1, 0, 0)
        vertex([-1, -1, 1], [1, 0]),
        vertex([-1, 1, 1], [0, 0]),
        vertex([-1, 1, -1], [0, 1]),
        vertex([-1, -1, -1], [1, 1]),
        // front (0, 1, 0)
        vertex([1, 1, -1], [1, 0]),
        vertex([-1, 1, -1], [0, 0]),
        vertex([-1, 1, 1], [0, 1]),
        vertex([1, 1, 1], [1, 1]),
        // back (0, -1, 0)
        vertex([1, -1, 1], [0, 0]),
        vertex([-1, -1, 1], [1, 0]),
        vertex([-1, -1, -1], [1, 1]),
        vertex([1, -1, -1], [0, 1]),
    ];
    let index_data: Vec<u16> = vec![
        0, 1, 2, 2, 3, 0, // top
        4, 5, 6, 6, 7, 4, // bottom
        8, 9, 10, 10, 11, 8, // right
        12, 13, 14, 14, 15, 12, // left
        16, 17, 18, 18, 19, 16, // front
        20, 21, 22, 22, 23, 20, // back
    ];
    (vertex_data.to_vec(), index_data)
}

/// The Mandelbrot texels of wgpu's example: per texel, the iterations (up to 255) before
/// the point escapes.
pub fn create_texels(size: usize) -> Vec<u8> {
    (0..size * size)
        .map(|id| {
            // Get the x and y coordinates of the texel, from -2.0 to 1.0 and -1.0 to 1.0.
            let cx = 3.0 * (id % size) as f32 / (size - 1) as f32 - 2.0;
            let cy = 2.0 * (id / size) as f32 / (size - 1) as f32 - 1.0;
            let (mut x, mut y, mut count) = (cx, cy, 0);
            while count < 0xFF && x * x + y * y < 4.0 {
                let old_x = x;
                x = x * x - y * y + cx;
                y = 2.0 * old_x * y + cy;
                count += 1;
            }
            count
        })
        .collect()
}

/// The matrix of wgpu's example: a 45° perspective over the cube seen from (1.5, -5, 3).
pub fn generate_matrix(aspect_ratio: f32) -> Mat4 {
    let projection = perspective(std::f32::consts::FRAC_PI_4, aspect_ratio, 1.0, 10.0);
    let view = look_at([1.5, -5.0, 3.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    mul(&projection, &view)
}

/// The color the fragment shader gives a texel of value `t`, as an `Rgba8Unorm` target
/// stores it.
pub fn texel_color(t: u8) -> [u8; 4] {
    let v = f32::from(t) / 255.0;
    let unorm = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    [
        unorm(1.0 - v * 5.0),
        unorm(1.0 - v * 15.0),
        unorm(1.0 - v * 50.0),
        255,
    ]
}

/// Renders one frame at `size` and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    // Create the vertex and index buffers.
    let (vertex_data, index_data) = create_vertices();
    let vertex_bytes: Vec<u8> = vertex_data.iter().flat_map(|v| bytes(v)).collect();
    let vertex_buf = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "Vertex Buffer",
            contents: &vertex_bytes,
            usage: BufferUsages::VERTEX,
        })
        .map_err(err)?;
    let index_bytes: Vec<u8> = index_data.iter().flat_map(|i| i.to_le_bytes()).collect();
    let index_buf = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "Index Buffer",
            contents: &index_bytes,
            usage: BufferUsages::INDEX,
        })
        .map_err(err)?;

    // Create the pipeline layout.
    let bind_group_layout = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "cube",
            entries: &[
                BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::VERTEX,
                    ty: BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: std::num::NonZeroU64::new(64),
                    },
                    array: None,
                },
                BindGroupLayoutEntry {
                    binding: 1,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Texture {
                        sample_type: TextureSampleType::Uint,
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    array: None,
                },
            ],
        })
        .map_err(err)?;
    let pipeline_layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "cube",
            bind_group_layouts: &[bind_group_layout],
            immediate_size: 0,
        })
        .map_err(err)?;

    // Create the texture.
    let texels = create_texels(TEXELS as usize);
    let texture = device
        .create_texture(&TextureDescriptor {
            label: "mandelbrot",
            size: [TEXELS, TEXELS],
            format: TextureFormat::R8Uint,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .map_err(err)?;
    device
        .write_texture(
            texture,
            TexelCopyTextureInfo::default(),
            &texels,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: TEXELS,
                rows_per_image: None,
            },
            [TEXELS, TEXELS, 1],
        )
        .map_err(err)?;
    let texture_view = device
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .map_err(err)?;

    // Create other resources.
    let mx_total = generate_matrix(size[0] as f32 / size[1] as f32);
    let uniform_buf = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "Uniform Buffer",
            contents: &bytes(&mx_total.concat()),
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .map_err(err)?;

    // Create bind group.
    let bind_group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "cube",
            layout: bind_group_layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer: uniform_buf,
                        offset: 0,
                        size: None,
                    }),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureView(texture_view),
                },
            ],
        })
        .map_err(err)?;

    let shader = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "cube",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let vertex_attributes = [
        VertexAttribute {
            format: VertexFormat::Float32x4,
            offset: 0,
            shader_location: 0,
        },
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 16,
            shader_location: 1,
        },
    ];
    let vertex_buffers = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &vertex_attributes,
    }];
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "cube",
            layout: pipeline_layout,
            vertex: VertexState {
                module: shader,
                entry_point: "vs_main",
                constants: &[],
                buffers: &vertex_buffers,
            },
            fragment: Some(FragmentState {
                module: shader,
                entry_point: "fs_main",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState {
                cull_mode: CullMode::Back,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(err)?;

    // Render.
    let (frame, view) = render_target(device, "cube frame", size)?;
    let mut encoder = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "cube" })
        .map_err(err)?;
    encoder
        .begin_render_pass(&RenderPassDescriptor {
            label: "cube",
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear(CLEAR),
                store: StoreOp::Store,
            })],
            ..Default::default()
        })
        .map_err(err)?;
    encoder.set_render_pipeline(pipeline).map_err(err)?;
    encoder.set_bind_group(0, bind_group, &[]).map_err(err)?;
    encoder
        .set_index_buffer(index_buf, IndexFormat::Uint16, 0, None)
        .map_err(err)?;
    encoder
        .set_vertex_buffer(0, vertex_buf, 0, None)
        .map_err(err)?;
    encoder
        .draw_indexed(0..index_data.len() as u32, 0, 0..1)
        .map_err(err)?;
    encoder.end_render_pass().map_err(err)?;
    device
        .submit([encoder.finish().map_err(err)?])
        .map_err(err)?;
    read_image(device, frame, size)
}
