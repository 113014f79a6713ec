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
