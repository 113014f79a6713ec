//! The defect classes the API-sequence fuzzer found, on a real device with the validation
//! layer and synchronization validation on: each case runs the sequence that used to crash,
//! hang or draw a message, checks that the layer stays silent (the `Gpu` wrapper fails the
//! test on any message), and reads back a result.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Inverted ranges are what some of these tests pass on purpose.
#![allow(clippy::reversed_empty_ranges)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{
    bytes_of, compute_entry, gpu, kernel_with_group, read_u32, src_dst_group, src_dst_kernel,
    storage_buffer,
};
use draw::*;
use vigil::*;

const COPY: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&dst) { dst[id.x] = src[id.x] * 2u; }
}
"#;

fn storage(d: &Device, label: &str, words: &[u32]) -> Buffer {
    let b = d
        .create_buffer(&BufferDescriptor {
            label,
            size: (words.len() * 4) as u64,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(b, 0, &bytes_of(words)).unwrap();
    b
}

/// A full-target triangle drawn from `vertex_index`, in one color whose channels are exact
/// in 8 bits (0.5 would round to 127 on some drivers and 128 on others).
const QUAD: &str = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.5, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.6, 0.2, 1.0); }
"#;

fn quad_pipeline(
    d: &Device,
    targets: &[Option<ColorTargetState>],
    depth_stencil: Option<DepthStencilState>,
    topology: PrimitiveTopology,
) -> RenderPipeline {
    let module = module(d, QUAD);
    let mut desc = pipeline_desc(empty_layout(d), module, &[], targets);
    desc.depth_stencil = depth_stencil;
    desc.primitive.topology = topology;
    d.create_render_pipeline(&desc).unwrap()
}

#[test]
fn inverted_ranges_are_refused_and_the_device_keeps_drawing() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let p = quad_pipeline(
        &d,
        &[color_target(t.format)],
        None,
        PrimitiveTopology::TriangleList,
    );
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    // Recorded as `end - start`, this was an instance count of about four billion.
    let err = e.draw(0..3, 3..0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidDescriptor);
    drop(e);
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(at(&pixels(&d, t.texture), 1, 1), [255, 153, 51, 255]);
}

#[test]
fn destroying_what_an_open_encoder_recorded_leaves_it_safe_to_keep_recording() {
    let d = gpu();
    let (pipeline, bgl) = src_dst_kernel(&d, "double", COPY);
    let src = storage(&d, "src", &[1; 64]);
    let dst = storage(&d, "dst", &[0; 64]);
    let group = src_dst_group(&d, bgl, src, dst);
    let (a, b) = (storage(&d, "a", &[7; 64]), storage(&d, "b", &[0; 64]));
    let mut e = encoder(&d);
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    // Everything the encoder recorded goes away from under it.
    d.destroy_compute_pipeline(pipeline).unwrap();
    d.destroy_bind_group(group).unwrap();
    d.destroy_buffer(src).unwrap();
    d.destroy_buffer(dst).unwrap();
    d.poll().unwrap();
    // The native command buffer still names them; recording on must stay defined (the
    // validation layer crashed here when they were released at once).
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.copy_buffer_to_buffer(a, 0, b, 0, 256).unwrap();
    let cb = e.finish().unwrap();
    let err = d.submit([cb]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidState, "{err}");
    // The device goes on: the same copy in a fresh encoder lands.
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 256).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(&d, b, 64), vec![7; 64]);
}

#[test]
fn copies_on_both_sides_of_a_render_pass_are_ordered() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let words: Vec<u32> = (0..64).collect();
    let a = storage(&d, "a", &words);
    let b = storage(&d, "b", &[0; 64]);
    let c = storage(&d, "c", &[0; 64]);
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 256).unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    // Read after the first copy's write, and write after... the barrier before the pass
    // must cover these transfers too (synchronization validation checks it).
    e.copy_buffer_to_buffer(b, 0, c, 0, 256).unwrap();
    e.copy_buffer_to_buffer(c, 0, a, 0, 256).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(&d, c, 64), words);
    assert_eq!(read_u32(&d, a, 64), words);
}

#[test]
fn dynamic_state_left_unset_reads_webgpu_defaults() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let (_, ds_view) = depth(&d, TextureFormat::Depth24PlusStencil8);
    let equal = StencilFaceState {
        compare: CompareFunction::Equal,
        ..StencilFaceState::default()
    };
    let stencil = DepthStencilState {
        format: TextureFormat::Depth24PlusStencil8,
        depth_write_enabled: false,
        depth_compare: CompareFunction::Always,
        stencil: StencilState {
            front: equal,
            back: equal,
            read_mask: 0xff,
            write_mask: 0xff,
        },
        bias: DepthBiasState::default(),
    };
    // Passes only where the stencil equals the reference: 0 by default.
    let stencil_test = quad_pipeline(
        &d,
        &[color_target(t.format)],
        Some(stencil),
        PrimitiveTopology::TriangleList,
    );
    // Color = source * constant + destination * 0: the constant is 0 by default.
    let constant_blend = quad_pipeline(
        &d,
        &[Some(ColorTargetState {
            format: t.format,
            blend: Some(BlendState {
                color: BlendComponent {
                    src_factor: BlendFactor::Constant,
                    dst_factor: BlendFactor::Zero,
                    operation: BlendOperation::Add,
                },
                alpha: BlendComponent::REPLACE,
            }),
            write_mask: ColorWrites::ALL,
        })],
        None,
        PrimitiveTopology::TriangleList,
    );
    let run = |p: RenderPipeline, with_depth: bool| {
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            color_attachments: &[Some(clear([1.0, 1.0, 1.0, 1.0], t.view))],
            depth_stencil_attachment: with_depth.then_some(RenderPassDepthStencilAttachment {
                view: ds_view,
                depth_ops: Some(Operations {
                    load: LoadOp::Clear(1.0),
                    store: StoreOp::Store,
                }),
                stencil_ops: Some(Operations {
                    load: LoadOp::Clear(0),
                    store: StoreOp::Store,
                }),
            }),
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.draw(0..3, 0..1).unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        at(&pixels(&d, t.texture), 1, 1)
    };
    assert_eq!(
        run(stencil_test, true),
        [255, 153, 51, 255],
        "reference 0 == cleared 0"
    );
    assert_eq!(
        run(constant_blend, false),
        [0, 0, 0, 255],
        "constant (0, 0, 0, 0)"
    );
}

#[test]
fn point_lists_independent_blends_and_cube_arrays_are_enabled() {
    let d = gpu();
    // A point list: the vertex stage writes PointSize (1), the point lands on its pixel.
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    // The center of pixel (10, 10) of the 64x64 target, in WebGPU's clip space.
    const POINT: &str = r#"
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return vec4<f32>(10.5 / 32.0 - 1.0, 1.0 - 10.5 / 32.0, 0.5, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.6, 0.2, 1.0); }
"#;
    let point_targets = [color_target(t.format)];
    let mut desc = pipeline_desc(empty_layout(&d), module(&d, POINT), &[], &point_targets);
    desc.primitive.topology = PrimitiveTopology::PointList;
    let points = d.create_render_pipeline(&desc).unwrap();
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(points).unwrap();
    e.draw(0..1, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(&d, t.texture);
    assert_eq!(at(&px, 10, 10), [255, 153, 51, 255]);
    assert_eq!(
        px.iter().filter(|p| p[3] != 0).count(),
        1,
        "one point, one pixel"
    );

    // Two targets with different blend states and write masks.
    let a = target(&d, TextureFormat::Rgba8Unorm, 1);
    let b = target(&d, TextureFormat::Rgba8Unorm, 1);
    const TWO: &str = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.5, 1.0);
}
struct T { @location(0) a: vec4<f32>, @location(1) b: vec4<f32> }
@fragment fn fs() -> T { return T(vec4<f32>(1.0, 0.6, 0.2, 1.0), vec4<f32>(1.0, 0.6, 0.2, 1.0)); }
"#;
    let module = module(&d, TWO);
    let targets = [
        Some(ColorTargetState {
            format: a.format,
            blend: None,
            write_mask: ColorWrites::ALL,
        }),
        Some(ColorTargetState {
            format: b.format,
            blend: Some(BlendState {
                color: BlendComponent {
                    src_factor: BlendFactor::Zero,
                    dst_factor: BlendFactor::One,
                    operation: BlendOperation::Add,
                },
                alpha: BlendComponent::REPLACE,
            }),
            write_mask: ColorWrites::RED | ColorWrites::ALPHA,
        }),
    ];
    let p = d
        .create_render_pipeline(&pipeline_desc(empty_layout(&d), module, &[], &targets))
        .unwrap();
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[
            Some(clear([0.0, 0.0, 0.0, 0.0], a.view)),
            Some(clear([0.0, 0.0, 1.0, 0.0], b.view)),
        ],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(at(&pixels(&d, a.texture), 1, 1), [255, 153, 51, 255]);
    // Target b keeps its destination color (blend Zero/One) in the one channel written.
    assert_eq!(at(&pixels(&d, b.texture), 1, 1), [0, 0, 255, 255]);

    // A cube-array view (12 layers, two cubes) sampled in a compute shader.
    let cubes = d
        .create_texture(&TextureDescriptor {
            label: "cubes",
            size: [4, 4],
            array_layers: 12,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    let texels = vec![200u8; 4 * 4 * 4 * 12];
    d.write_texture(
        cubes,
        TexelCopyTextureInfo::default(),
        &texels,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 16,
            rows_per_image: Some(4),
        },
        [4, 4, 12],
    )
    .unwrap();
    let view = d
        .create_texture_view(
            cubes,
            &TextureViewDescriptor {
                dimension: Some(TextureViewDimension::CubeArray),
                ..Default::default()
            },
        )
        .unwrap();
    const SAMPLE: &str = r#"
@group(0) @binding(0) var cubes: texture_cube_array<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    let c = textureSampleLevel(cubes, s, vec3<f32>(1.0, 0.0, 0.0), 1, 0.0);
    out[0] = u32(round(c.r * 255.0));
}
"#;
    let cube_array = BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: true },
        view_dimension: TextureViewDimension::CubeArray,
        multisampled: false,
    };
    let (pipeline, bgl) = kernel_with_group(
        &d,
        "cubes",
        SAMPLE,
        &[
            compute_entry(0, cube_array),
            compute_entry(1, BindingType::Sampler(SamplerBindingType::Filtering)),
            compute_entry(2, storage_buffer(false)),
        ],
        &[],
    )
    .unwrap();
    let out = storage(&d, "out", &[0]);
    let sampler = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "cubes",
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
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Buffer(BufferBinding::whole(out)),
                },
            ],
        })
        .unwrap();
    let mut enc = encoder(&d);
    enc.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    enc.set_compute_pipeline(pipeline).unwrap();
    enc.set_bind_group(0, group, &[]).unwrap();
    enc.dispatch(1, 1, 1).unwrap();
    enc.end_compute_pass().unwrap();
    d.submit([enc.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(&d, out, 1), vec![200]);
}

#[test]
fn range_checks_that_vulkan_needs_are_made_before_the_driver() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let vb = d
        .create_buffer(&BufferDescriptor {
            label: "vb",
            size: 64,
            usage: BufferUsages::VERTEX | BufferUsages::INDEX,
        })
        .unwrap();
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        e.set_vertex_buffer(0, vb, 64, None).unwrap_err().kind(),
        ErrorKind::OutOfBounds
    );
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        e.set_index_buffer(vb, IndexFormat::Uint32, 64, None)
            .unwrap_err()
            .kind(),
        ErrorKind::OutOfBounds
    );
    // A view no use can go through is refused before a native view exists.
    let copy_only = d
        .create_texture(&TextureDescriptor {
            label: "copy only",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        d.create_texture_view(copy_only, &TextureViewDescriptor::default())
            .unwrap_err()
            .kind(),
        ErrorKind::UsageMismatch
    );
    if d.features().contains(Features::TIMESTAMP_QUERY) {
        let q = d.create_query_set("q", 2).unwrap();
        let dst = d
            .create_buffer(&BufferDescriptor {
                label: "resolve",
                size: 512,
                usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
            })
            .unwrap();
        let mut e = encoder(&d);
        e.write_timestamp(q, 0).unwrap();
        e.write_timestamp(q, 1).unwrap();
        // Query 1 written twice: reset in between, as Vulkan wants.
        e.write_timestamp(q, 1).unwrap();
        assert_eq!(
            e.resolve_query_set(q, 2, 0, dst, 0).unwrap_err().kind(),
            ErrorKind::OutOfBounds
        );
        let mut e = encoder(&d);
        e.write_timestamp(q, 0).unwrap();
        e.write_timestamp(q, 1).unwrap();
        e.write_timestamp(q, 1).unwrap();
        e.resolve_query_set(q, 0, 0, dst, 512).unwrap();
        e.resolve_query_set(q, 0, 2, dst, 0).unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let ticks = d.read_buffer(dst, 0, 16).unwrap();
        let first = u64::from_le_bytes(ticks[0..8].try_into().unwrap());
        let second = u64::from_le_bytes(ticks[8..16].try_into().unwrap());
        assert!(
            second >= first,
            "timestamps in order: {first} then {second}"
        );
    }
}

const DEPTH_READ: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(depth, vec2<i32>(3, 5), 0);
}
"#;

/// A bind group sampling a depth24plus-stencil8 view with both its aspects reached the
/// driver (seed 5047 on the H200, VUID-VkDescriptorImageInfo-imageView-01976: a sampled
/// depth-stencil view has one aspect). Such a view is refused with `group.view-aspect`;
/// a DepthOnly view of the same texture binds, and a kernel reads through it the depth a
/// render pass cleared.
#[test]
fn a_sampled_depth_stencil_view_names_one_aspect() {
    let d = gpu();
    let texture = d
        .create_texture(&TextureDescriptor {
            label: "depth-stencil",
            size: [W, H],
            format: TextureFormat::Depth24PlusStencil8,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap();
    let both = d
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .unwrap();
    let depth_only = d
        .create_texture_view(
            texture,
            &TextureViewDescriptor {
                aspect: TextureAspect::DepthOnly,
                ..Default::default()
            },
        )
        .unwrap();
    let depth_texture = BindingType::Texture {
        sample_type: TextureSampleType::Depth,
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    };
    let (pipeline, bgl) = kernel_with_group(
        &d,
        "depth read",
        DEPTH_READ,
        &[
            compute_entry(0, depth_texture),
            compute_entry(1, storage_buffer(false)),
        ],
        &[],
    )
    .unwrap();
    let out = storage(&d, "depth out", &[0]);
    let group = |view| {
        d.create_bind_group(&BindGroupDescriptor {
            label: "depth read",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(view),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(out)),
                },
            ],
        })
    };
    let err = group(both).unwrap_err();
    assert_eq!(err.rule(), Rule::GroupViewAspect, "{err}");
    assert!(err.message().contains("DepthOnly or StencilOnly"), "{err}");
    let g = group(depth_only).unwrap();
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
            view: both,
            depth_ops: Some(Operations {
                load: LoadOp::Clear(0.25),
                store: StoreOp::Store,
            }),
            stencil_ops: Some(Operations {
                load: LoadOp::Clear(7),
                store: StoreOp::Store,
            }),
        }),
        ..Default::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let read = f32::from_bits(read_u32(&d, out, 1)[0]);
    // 0.25 in 24-bit unorm (or 32-bit float, where the driver backs the format so).
    assert!((read - 0.25).abs() < 1e-6, "read {read}");
}
