//! A 3D texture: a compute shader fills a 16×16×16 volume (`texture_storage_3d`), a render
//! pass clears its last slice to white (`depth_slice`), and a fragment shader draws a
//! diagonal plane through it with trilinear filtering (`texture_3d`).

use crate::image::Image;
use crate::{Result, err, read_image, render_target};
use vigil::*;

/// The volume's side, in texels.
pub const SIDE: u32 = 16;

const FILL: &str = r#"
@group(0) @binding(0) var volume: texture_storage_3d<rgba8unorm, write>;
@compute @workgroup_size(4, 4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // Each texel's coordinates, 0 to 1 across the volume.
    textureStore(volume, id, vec4<f32>(vec3<f32>(id) / 15.0, 1.0));
}
"#;

const DRAW: &str = r#"
struct O { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }
@group(0) @binding(0) var volume: texture_3d<f32>;
@group(0) @binding(1) var samp: sampler;
@vertex fn vs(@builtin(vertex_index) i: u32) -> O {
    // One triangle covering the target, uv 0..1 from the top left.
    let c = vec2<f32>(f32(i & 1u) * 2.0, f32(i >> 1u) * 2.0);
    return O(vec4<f32>(c.x * 2.0 - 1.0, 1.0 - c.y * 2.0, 0.0, 1.0), c);
}
@fragment fn fs(i: O) -> @location(0) vec4<f32> {
    // The plane z = v: the bottom of the image reaches the white last slice.
    return textureSampleLevel(volume, samp, vec3<f32>(i.uv, i.uv.y), 0.0);
}
"#;

/// The color the image has at `(x, y)` of `size`, before 8-bit rounding: the plane's point
/// `(u, v, v)` filtered trilinearly between the volume's texels (each its coordinates over
/// 15, but the last slice white).
pub fn expected(x: u32, y: u32, size: [u32; 2]) -> [f32; 4] {
    let u = (x as f32 + 0.5) / size[0] as f32;
    let v = (y as f32 + 0.5) / size[1] as f32;
    let last = (SIDE - 1) as f32;
    let texel_coord = |t: f32| (t * SIDE as f32 - 0.5).clamp(0.0, last);
    let (cx, cy, cz) = (texel_coord(u), texel_coord(v), texel_coord(v));
    let slice = |k: f32| {
        if k >= last {
            [1.0; 3]
        } else {
            [cx / last, cy / last, k / last]
        }
    };
    let (k0, f) = (cz.floor(), cz.fract());
    let (a, b) = (slice(k0), slice((k0 + 1.0).min(last)));
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
        1.0,
    ]
}

/// One compute pass of `pipeline` with `group`, over `groups` workgroups.
fn compute(
    device: &Device,
    pipeline: ComputePipeline,
    group: BindGroup,
    groups: [u32; 3],
) -> Result<()> {
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "fill" })
        .map_err(err)?;
    enc.begin_compute_pass(&ComputePassDescriptor {
        label: "fill",
        ..Default::default()
    })
    .map_err(err)?;
    enc.set_compute_pipeline(pipeline).map_err(err)?;
    enc.set_bind_group(0, group, &[]).map_err(err)?;
    enc.dispatch(groups[0], groups[1], groups[2]).map_err(err)?;
    enc.end_compute_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    Ok(())
}

/// A bind group layout of `entries`, each at the binding of its place, for `visibility`.
fn layout_of(
    device: &Device,
    label: &str,
    visibility: ShaderStages,
    entries: &[BindingType],
) -> Result<(BindGroupLayout, PipelineLayout)> {
    let entries: Vec<_> = entries
        .iter()
        .zip(0u32..)
        .map(|(ty, binding)| BindGroupLayoutEntry {
            binding,
            visibility,
            ty: *ty,
            array: None,
        })
        .collect();
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label,
            entries: &entries,
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label,
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(err)?;
    Ok((bgl, layout))
}

/// Fills the volume, clears its last slice, draws the plane at `size` and reads it back.
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    let volume = device
        .create_texture(&TextureDescriptor {
            label: "volume",
            dimension: TextureDimension::D3,
            size: [SIDE, SIDE],
            array_layers: SIDE,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::STORAGE_BINDING
                | TextureUsages::TEXTURE_BINDING
                | TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .map_err(err)?;
    let view = device
        .create_texture_view(volume, &TextureViewDescriptor::default())
        .map_err(err)?;

    // The volume's texels, from a compute shader.
    let (fill_bgl, fill_layout) = layout_of(
        device,
        "fill",
        ShaderStages::COMPUTE,
        &[BindingType::StorageTexture {
            access: StorageTextureAccess::WriteOnly,
            format: TextureFormat::Rgba8Unorm,
            view_dimension: TextureViewDimension::D3,
        }],
    )?;
    let fill_group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "fill",
            layout: fill_bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
        .map_err(err)?;
    let fill = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "fill",
            layout: fill_layout,
            module: device
                .create_shader_module(&ShaderModuleDescriptor {
                    label: "fill",
                    wgsl: FILL,
                })
                .map_err(err)?,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(err)?;
    compute(device, fill, fill_group, [SIDE / 4; 3])?;

    // Its last slice cleared to white by a render pass.
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "volume" })
        .map_err(err)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "last slice",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: Some(SIDE - 1),
            resolve_target: None,
            load: LoadOp::Clear([1.0; 4]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .map_err(err)?;
    enc.end_render_pass().map_err(err)?;

    // The plane through it, filtered.
    let sampler = device
        .create_sampler(&SamplerDescriptor {
            label: "trilinear",
            mag_filter: FilterMode::Linear,
            min_filter: FilterMode::Linear,
            ..Default::default()
        })
        .map_err(err)?;
    let (draw_bgl, draw_layout) = layout_of(
        device,
        "plane",
        ShaderStages::FRAGMENT,
        &[
            BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D3,
                multisampled: false,
            },
            BindingType::Sampler(SamplerBindingType::Filtering),
        ],
    )?;
    let draw_group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "plane",
            layout: draw_bgl,
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
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "plane",
            wgsl: DRAW,
        })
        .map_err(err)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "plane",
            layout: draw_layout,
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
            multisample: MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(err)?;
    let (texture, target) = render_target(device, "plane target", size)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "plane",
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
    enc.set_bind_group(0, draw_group, &[]).map_err(err)?;
    enc.draw(0..3, 0..1).map_err(err)?;
    enc.end_render_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}
