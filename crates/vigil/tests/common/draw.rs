//! Rendering helpers for the integration tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil::*;

pub const W: u32 = 64;
pub const H: u32 = 64;

/// An offscreen color target with a view.
pub struct Target {
    pub texture: Texture,
    pub view: TextureView,
    pub format: TextureFormat,
}

pub fn target(d: &Device, format: TextureFormat, samples: u32) -> Target {
    let mut usage = TextureUsages::RENDER_ATTACHMENT;
    if samples == 1 {
        usage |= TextureUsages::COPY_SRC;
    }
    let texture = d
        .create_texture(&TextureDescriptor {
            label: "target",
            size: [W, H],
            sample_count: samples,
            format,
            usage,
            ..Default::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .unwrap();
    Target {
        texture,
        view,
        format,
    }
}

pub fn depth(d: &Device, format: TextureFormat) -> (Texture, TextureView) {
    let texture = d
        .create_texture(&TextureDescriptor {
            label: "depth",
            size: [W, H],
            format,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .unwrap();
    (texture, view)
}

/// Reads an rgba8 target back as pixels.
pub fn pixels(d: &Device, t: Texture) -> Vec<[u8; 4]> {
    let bytes = d
        .read_texture(t, TexelCopyTextureInfo::default(), [W, H])
        .unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

pub fn at(p: &[[u8; 4]], x: u32, y: u32) -> [u8; 4] {
    p[(y * W + x) as usize]
}

pub fn close(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

pub fn module(d: &Device, wgsl: &str) -> ShaderModule {
    d.create_shader_module(&ShaderModuleDescriptor {
        label: "test shader",
        wgsl,
    })
    .unwrap()
}

pub fn empty_layout(d: &Device) -> PipelineLayout {
    d.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: "empty",
        bind_group_layouts: &[],
        immediate_size: 0,
    })
    .unwrap()
}

pub fn color_target(format: TextureFormat) -> Option<ColorTargetState> {
    Some(ColorTargetState {
        format,
        blend: None,
        write_mask: ColorWrites::ALL,
    })
}

pub fn vertex_buffer(d: &Device, data: &[f32]) -> Buffer {
    let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "vertices",
            size: bytes.len() as u64,
            usage: BufferUsages::VERTEX | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(b, 0, &bytes).unwrap();
    b
}

pub fn clear(color: [f64; 4], view: TextureView) -> RenderPassColorAttachment {
    RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        load: LoadOp::Clear(color),
        store: StoreOp::Store,
    }
}

pub fn encoder(d: &Device) -> CommandEncoder {
    d.create_command_encoder(&CommandEncoderDescriptor { label: "draw" })
        .unwrap()
}

pub fn pipeline_desc<'a>(
    layout: PipelineLayout,
    module: ShaderModule,
    buffers: &'a [VertexBufferLayout<'a>],
    targets: &'a [Option<ColorTargetState>],
) -> RenderPipelineDescriptor<'a> {
    RenderPipelineDescriptor {
        label: "test pipeline",
        layout,
        vertex: VertexState {
            module,
            entry_point: "vs",
            constants: &[],
            buffers,
        },
        fragment: Some(FragmentState {
            module,
            entry_point: "fs",
            constants: &[],
            targets,
        }),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        multisample: MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    }
}

/// Position (vec2) + color (vec4) per vertex.
pub const POS_COLOR: &str = r#"
struct V { @location(0) pos: vec2<f32>, @location(1) color: vec4<f32> }
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(v: V) -> O { return O(vec4<f32>(v.pos, 0.0, 1.0), v.color); }
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return i.color; }
"#;

pub const POS_COLOR_ATTRS: [VertexAttribute; 2] = [
    VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    },
    VertexAttribute {
        format: VertexFormat::Float32x4,
        offset: 8,
        shader_location: 1,
    },
];

pub fn pos_color_layout() -> VertexBufferLayout<'static> {
    VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &POS_COLOR_ATTRS,
    }
}

/// Position (with depth) and color per vertex, into an rgba8 target.
pub const DEPTH_SHADER: &str = r#"
struct V { @location(0) pos: vec3<f32>, @location(1) color: vec4<f32> }
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(v: V) -> O { return O(vec4<f32>(v.pos, 1.0), v.color); }
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return i.color; }
"#;

/// Two triangles over `x0..x1`, the whole height, at depth `z`, in color `c`: position
/// (with depth) and color per vertex, as [`DEPTH_SHADER`] reads them.
pub fn quad3(z: f32, c: [f32; 4], x0: f32, x1: f32) -> Vec<f32> {
    let v = |x: f32, y: f32| [x, y, z, c[0], c[1], c[2], c[3]];
    [
        v(x0, -1.0),
        v(x1, -1.0),
        v(x0, 1.0),
        v(x0, 1.0),
        v(x1, -1.0),
        v(x1, 1.0),
    ]
    .concat()
}

/// The pipeline of [`DEPTH_SHADER`]: position and color per vertex, into an rgba8 target
/// with depth `format`, nearer fragments passing.
pub fn depth_pipeline(d: &Device, format: TextureFormat) -> RenderPipeline {
    depth_pipeline_biased(d, format, DepthBiasState::default())
}

/// [`depth_pipeline`] with a depth bias.
pub fn depth_pipeline_biased(
    d: &Device,
    format: TextureFormat,
    bias: DepthBiasState,
) -> RenderPipeline {
    let depth = DepthStencilState {
        format,
        depth_write_enabled: true,
        depth_compare: CompareFunction::Less,
        stencil: StencilState::default(),
        bias,
    };
    pos3_pipeline(
        d,
        (empty_layout(d), module(d, DEPTH_SHADER)),
        PrimitiveState::default(),
        Some(depth),
    )
}

/// A pipeline of `module`'s `vs` and `fs` under `layout`, fed position (with depth) and
/// color per vertex as [`quad3`] lays them out, into an rgba8 target.
pub fn pos3_pipeline(
    d: &Device,
    parts: (PipelineLayout, ShaderModule),
    primitive: PrimitiveState,
    depth_stencil: Option<DepthStencilState>,
) -> RenderPipeline {
    pos3_pipeline_sampled(d, parts, primitive, depth_stencil, 1)
}

/// [`pos3_pipeline`] into targets of `samples` samples.
pub fn pos3_pipeline_sampled(
    d: &Device,
    (layout, module): (PipelineLayout, ShaderModule),
    primitive: PrimitiveState,
    depth_stencil: Option<DepthStencilState>,
    samples: u32,
) -> RenderPipeline {
    let attrs = [
        VertexAttribute {
            format: VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        },
        VertexAttribute {
            format: VertexFormat::Float32x4,
            offset: 12,
            shader_location: 1,
        },
    ];
    let vbl = [VertexBufferLayout {
        array_stride: 28,
        step_mode: VertexStepMode::Vertex,
        attributes: &attrs,
    }];
    let targets = [color_target(TextureFormat::Rgba8Unorm)];
    let mut desc = pipeline_desc(layout, module, &vbl, &targets);
    desc.primitive = primitive;
    desc.depth_stencil = depth_stencil;
    desc.multisample.count = samples;
    d.create_render_pipeline(&desc).unwrap()
}
