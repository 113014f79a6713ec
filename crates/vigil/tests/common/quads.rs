//! The render bundle tests' scene, shared by the real-device tests (`bundles.rs`) and the
//! test-backend rule tests (`rules_bundles.rs`): quads placed and colored by a uniform
//! group, drawn from a vertex buffer of corners.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil::*;

/// Draws its corners at half a quarter of the target's size, moved by `u.offset`, in
/// `u.color`.
pub const QUADS: &str = r#"
struct U { offset: vec2<f32>, pad: vec2<f32>, color: vec4<f32> }
@group(0) @binding(0) var<uniform> u: U;
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(p * 0.25 + u.offset, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return u.color; }
"#;

const CORNERS: [VertexAttribute; 1] = [VertexAttribute {
    format: VertexFormat::Float32x2,
    offset: 0,
    shader_location: 0,
}];

/// A render pipeline of `wgsl` (entry points `vs` and `fs`; one vertex buffer of
/// `vec2<f32>` corners at location 0) over `layout`, drawing into one `format` target.
pub fn quads_pipeline<A: Api>(
    d: &Device<A>,
    layout: PipelineLayout,
    wgsl: &str,
    format: TextureFormat,
) -> RenderPipeline {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "quads",
            wgsl,
        })
        .unwrap();
    let vbl = [VertexBufferLayout {
        array_stride: 8,
        step_mode: VertexStepMode::Vertex,
        attributes: &CORNERS,
    }];
    let targets = [Some(ColorTargetState {
        format,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    d.create_render_pipeline(&RenderPipelineDescriptor {
        label: "quads",
        layout,
        vertex: VertexState {
            module,
            entry_point: "vs",
            constants: &[],
            buffers: &vbl,
        },
        fragment: Some(FragmentState {
            module,
            entry_point: "fs",
            constants: &[],
            targets: &targets,
        }),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        multisample: MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    })
    .unwrap()
}

/// A pipeline layout of `groups` and `immediates` bytes of immediate data.
pub fn quads_layout<A: Api>(
    d: &Device<A>,
    groups: &[BindGroupLayout],
    immediates: u32,
) -> PipelineLayout {
    d.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: "quads",
        bind_group_layouts: groups,
        immediate_size: immediates,
    })
    .unwrap()
}

/// A uniform group layout (binding 0, vertex and fragment stages, `dynamic` offsets or
/// not), and four groups over 32 bytes of `uniforms` at 256-byte steps (one per quad).
pub fn quad_groups<A: Api>(
    d: &Device<A>,
    uniforms: Buffer,
    dynamic: bool,
) -> (BindGroupLayout, Vec<BindGroup>) {
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "quad",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::VERTEX_FRAGMENT,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    has_dynamic_offset: dynamic,
                    min_binding_size: None,
                },
                array: None,
            }],
        })
        .unwrap();
    let groups = (0..4u64)
        .map(|q| {
            d.create_bind_group(&BindGroupDescriptor {
                label: "quad",
                layout: bgl,
                entries: &[BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer: uniforms,
                        offset: q * 256,
                        size: Some(32),
                    }),
                }],
            })
            .unwrap()
        })
        .collect();
    (bgl, groups)
}

/// Quad `q`'s draw on `$e` (a pass's encoder or a bundle's) from scene `$s` (its
/// `groups`, two `vbs` and two `ibs`): the group, the buffers and the indexed draw.
macro_rules! quad {
    ($e:expr, $s:expr, $q:expr) => {{
        let q: usize = $q;
        $e.set_bind_group(0, $s.groups[q], &[]).unwrap();
        $e.set_vertex_buffer(0, $s.vbs[q % 2], 0, None).unwrap();
        $e.set_index_buffer($s.ibs[q % 2], IndexFormat::Uint16, 0, None)
            .unwrap();
        $e.draw_indexed(0..6, 0, 0..1).unwrap();
    }};
}
