//! Rendering on a real device: pixels read back and checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::gpu;
use draw::*;
use vigil::*;

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

fn tri(color: [f32; 4], pts: [[f32; 2]; 3]) -> Vec<f32> {
    pts.iter()
        .flat_map(|p| [p[0], p[1], color[0], color[1], color[2], color[3]])
        .collect()
}

/// The `POS_COLOR` pipeline (no bind groups, no blending) drawing into `format`.
fn pos_color_pipeline(d: &Device, format: TextureFormat) -> RenderPipeline {
    let m = module(d, POS_COLOR);
    let vbl = [pos_color_layout()];
    let targets = [color_target(format)];
    d.create_render_pipeline(&pipeline_desc(empty_layout(d), m, &vbl, &targets))
        .unwrap()
}

#[test]
fn pipelines_created_through_a_saved_pipeline_cache_draw_as_others_do() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let vb = vertex_buffer(&d, &tri(RED, [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]]));
    let m = module(&d, POS_COLOR);
    let vbl = [pos_color_layout()];
    let targets = [color_target(t.format)];
    // A pipeline through `cache`: it draws the whole target red.
    let draw_with = |cache: PipelineCache| {
        let p = d
            .create_render_pipeline(&RenderPipelineDescriptor {
                cache: Some(cache),
                ..pipeline_desc(empty_layout(&d), m, &vbl, &targets)
            })
            .unwrap();
        let px = one_draw(&d, &t, (p, vb), 3, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(at(&px, 5, 5), [255, 0, 0, 255]);
        assert_eq!(at(&px, 60, 60), [255, 0, 0, 255]);
    };
    // The next run loads what the first saved and creates the same pipeline through it.
    let (first, second, saved) = common::through_saved_cache(&d, draw_with);
    assert!(!d.pipeline_cache_data(second).unwrap().is_empty());
    // Data of another device or driver never reaches this driver; with `fallback` the
    // cache starts empty and works.
    let mut other = saved.clone();
    other[16] ^= 0xff;
    let err = d
        .create_pipeline_cache(&PipelineCacheDescriptor {
            label: "another driver's",
            data: Some(&other),
            fallback: false,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::PipelineCacheData, "{err}");
    let fresh = d
        .create_pipeline_cache(&PipelineCacheDescriptor {
            label: "another driver's",
            data: Some(&other),
            fallback: true,
        })
        .unwrap();
    draw_with(fresh);
    for c in [first, second, fresh] {
        d.destroy_pipeline_cache(c).unwrap();
    }
    d.finish();
}

#[test]
fn a_triangle_covers_its_pixels_and_no_others() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let p = pos_color_pipeline(&d, t.format);
    // Lower-left half of the target (NDC y up; framebuffer rows go down).
    let vb = vertex_buffer(&d, &tri(RED, [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]));
    let px = one_draw(&d, &t, (p, vb), 3, [0.0, 0.0, 1.0, 1.0]);
    let (red, blue) = ([255, 0, 0, 255], [0, 0, 255, 255]);
    for y in 0..H {
        for x in 0..W {
            // Pixel centers strictly inside or outside the diagonal x + y = 63 (rows down).
            let sum = x as i32 + (H - 1 - y) as i32;
            if sum < 62 {
                assert_eq!(at(&px, x, y), red, "({x},{y}) should be covered");
            } else if sum > 64 {
                assert_eq!(at(&px, x, y), blue, "({x},{y}) should be clear");
            }
        }
    }
}

/// The read-only pass's shader: the attachment's depth at the fragment, sampled through a
/// bind group, in red (blue 1 marks where it drew).
const SAMPLES_DEPTH: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(@location(0) pos: vec3<f32>, @location(1) color: vec4<f32>) -> O {
    return O(vec4<f32>(pos, 1.0), color);
}
@fragment fn fs(i: O) -> @location(0) vec4<f32> {
    return vec4<f32>(textureLoad(depth, vec2<i32>(i.pos.xy), 0), 0.0, 1.0, 1.0);
}
"#;

#[test]
fn a_read_only_depth_attachment_is_tested_against_and_sampled_in_one_pass() {
    let d = gpu();
    let l = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "depth",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::FRAGMENT,
                ty: BindingType::Texture {
                    sample_type: TextureSampleType::Depth,
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
                array: None,
            }],
        })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "depth",
            bind_group_layouts: &[l],
            immediate_size: 0,
        })
        .unwrap();
    let m = module(&d, SAMPLES_DEPTH);
    for format in [
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ] {
        let t = target(&d, TextureFormat::Rgba8Unorm, 1);
        let dt = d
            .create_texture(&TextureDescriptor {
                label: "depth",
                size: [W, H],
                format,
                usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
                ..Default::default()
            })
            .unwrap();
        let dv = d
            .create_texture_view(dt, &TextureViewDescriptor::default())
            .unwrap();
        let sampled = d
            .create_texture_view(
                dt,
                &TextureViewDescriptor {
                    aspect: TextureAspect::DepthOnly,
                    ..Default::default()
                },
            )
            .unwrap();
        let g = d
            .create_bind_group(&BindGroupDescriptor {
                label: "depth",
                layout: l,
                entries: &[BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(sampled),
                }],
            })
            .unwrap();
        // Tested with `compare` against the depth of the first pass, written by none.
        let reader = |compare| {
            let depth = DepthStencilState {
                format,
                depth_write_enabled: false,
                depth_compare: compare,
                stencil: StencilState::default(),
                bias: DepthBiasState::default(),
            };
            pos3_pipeline(&d, (pl, m), PrimitiveState::default(), Some(depth))
        };
        let (less, greater) = (
            reader(CompareFunction::Less),
            reader(CompareFunction::Greater),
        );
        let writer = depth_pipeline(&d, format);
        // The first pass writes depth 0.25 over the left half (green) and leaves 1.0 on
        // the right.
        let left = vertex_buffer(&d, &quad3(0.25, [0.0, 1.0, 0.0, 1.0], -1.0, 0.0));
        let whole = vertex_buffer(&d, &quad3(0.5, [0.0; 4], -1.0, 1.0));
        let mut e = depth_pass(&d, &t, dv, format, "writes depth");
        e.set_render_pipeline(writer).unwrap();
        e.set_vertex_buffer(0, left, 0, None).unwrap();
        e.draw(0..6, 0..1).unwrap();
        e.end_render_pass().unwrap();
        // The second leaves depth read-only: a quad at 0.5 passes `Less` on the right and
        // `Greater` on the left, and each fragment reads the depth under it.
        e.begin_render_pass(&RenderPassDescriptor {
            label: "reads depth",
            color_attachments: &[Some(common::loaded(t.view))],
            depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                view: dv,
                depth_ops: None,
                stencil_ops: None,
            }),
            ..Default::default()
        })
        .unwrap();
        e.set_bind_group(0, g, &[]).unwrap();
        e.set_vertex_buffer(0, whole, 0, None).unwrap();
        for p in [less, greater] {
            e.set_render_pipeline(p).unwrap();
            e.draw(0..6, 0..1).unwrap();
        }
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(&d, t.texture);
        for (x, want) in [(8, [64, 0, 255, 255]), (56, [255, 0, 255, 255])] {
            assert!(
                close(at(&px, x, 32), want, 1),
                "{format:?} at x {x}: {:?}, want {want:?}",
                at(&px, x, 32)
            );
        }
    }
    d.finish();
}

/// A pipeline of [`DEPTH_SHADER`] (position with depth, color) into an rgba8 target with
/// no depth attachment, rasterizing as `primitive` says.
fn raster_pipeline(d: &Device, primitive: PrimitiveState) -> RenderPipeline {
    pos3_pipeline(
        d,
        (empty_layout(d), module(d, DEPTH_SHADER)),
        primitive,
        None,
    )
}

/// The pixels of one draw of `vertices` (`[x, y, z, r, g, b, a]` each) by `p` over black.
fn drawn(d: &Device, p: RenderPipeline, vertices: &[f32]) -> Vec<[u8; 4]> {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let vb = vertex_buffer(d, vertices);
    one_draw(
        d,
        &t,
        (p, vb),
        (vertices.len() / 7) as u32,
        [0.0, 0.0, 0.0, 1.0],
    )
}

/// The pixels of `t` after one pass cleared to `background` and one draw of `vertices`
/// vertices from `vb` by `p`.
fn one_draw(
    d: &Device,
    t: &Target,
    (p, vb): (RenderPipeline, Buffer),
    vertices: u32,
    background: [f64; 4],
) -> Vec<[u8; 4]> {
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "one draw",
        color_attachments: &[Some(clear(background, t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw(0..vertices, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    pixels(d, t.texture)
}

#[test]
fn wireframes_draw_edges_and_unclipped_depth_keeps_what_the_far_plane_would_cut() {
    let d = common::gpu_requiring(
        Features::POLYGON_MODE_LINE | Features::POLYGON_MODE_POINT | Features::DEPTH_CLIP_CONTROL,
        "raster",
    );
    let prim = |polygon_mode, unclipped_depth| PrimitiveState {
        polygon_mode,
        unclipped_depth,
        ..Default::default()
    };
    // A red right triangle over pixels 16..48 of both axes, its right angle lower left.
    let v = |x: f32, y: f32| [x, y, 0.5, 1.0, 0.0, 0.0, 1.0];
    let tri = [v(-0.5, -0.5), v(0.5, -0.5), v(-0.5, 0.5)].concat();
    let red = |px: &[[u8; 4]]| px.iter().filter(|p| p[0] > 128).count();
    let filled = drawn(
        &d,
        raster_pipeline(&d, prim(PolygonMode::Fill, false)),
        &tri,
    );
    let lines = drawn(
        &d,
        raster_pipeline(&d, prim(PolygonMode::Line, false)),
        &tri,
    );
    // Filled: half of the 32×32 square; inside it, red.
    assert!(
        (450..=580).contains(&red(&filled)),
        "filled: {}",
        red(&filled)
    );
    assert_eq!(at(&filled, 22, 42)[0], 255);
    // Its edges only: about the perimeter (32 + 32 + 45 pixels), and the inside black.
    assert!((80..=200).contains(&red(&lines)), "edges: {}", red(&lines));
    assert_eq!(at(&lines, 22, 42), [0, 0, 0, 255]);
    // Each edge is there: some red pixel beside the left edge and beside the bottom one.
    assert!((20..44).all(|y| (14..=18).any(|x| at(&lines, x, y)[0] == 255)));
    assert!((20..44).all(|x| (46..=50).any(|y| at(&lines, x, y)[0] == 255)));
    // Its vertices only: a point (one pixel, the size WGSL's vertex stage leaves) at each
    // corner that lies in the target.
    let points = drawn(
        &d,
        raster_pipeline(&d, prim(PolygonMode::Point, false)),
        &tri,
    );
    assert!((1..=12).contains(&red(&points)), "points: {}", red(&points));
    for (x, y) in [(16, 48), (48, 48), (16, 16)] {
        let near = (x - 1..=x).any(|x| (y - 1..=y).any(|y| at(&points, x, y)[0] == 255));
        assert!(near, "no point at ({x}, {y})");
    }
    // A quad past the far plane (z 1.5): clipped away, unless depth is unclipped.
    let far = quad3(1.5, [1.0, 0.0, 0.0, 1.0], -1.0, 1.0);
    let clipped = drawn(
        &d,
        raster_pipeline(&d, prim(PolygonMode::Fill, false)),
        &far,
    );
    let kept = drawn(&d, raster_pipeline(&d, prim(PolygonMode::Fill, true)), &far);
    assert_eq!(red(&clipped), 0);
    assert_eq!(red(&kept), (W * H) as usize);
    d.finish();
}

/// Green at z 0.2 over the left 3/4 and red at z 0.6 over the right 3/4: `(near, far)`.
fn depth_quads(d: &Device) -> (Buffer, Buffer) {
    (
        vertex_buffer(d, &quad3(0.2, [0.0, 1.0, 0.0, 1.0], -1.0, 0.5)),
        vertex_buffer(d, &quad3(0.6, [1.0, 0.0, 0.0, 1.0], -0.5, 1.0)),
    )
}

/// An encoder in a pass over `t` cleared to black and `dv` cleared to depth 1 (and
/// stencil 0 where `format` has it).
fn depth_pass(
    d: &Device,
    t: &Target,
    dv: TextureView,
    format: TextureFormat,
    label: &'static str,
) -> CommandEncoder {
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label,
        color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
        depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
            view: dv,
            depth_ops: Some(Operations {
                load: LoadOp::Clear(1.0),
                store: StoreOp::Store,
            }),
            // A depth-only format takes no stencil operations, as in WebGPU.
            stencil_ops: format.info().has_stencil.then_some(Operations {
                load: LoadOp::Clear(0),
                store: StoreOp::Store,
            }),
        }),
        ..Default::default()
    })
    .unwrap();
    e
}

#[test]
fn the_nearer_primitive_wins_whatever_the_draw_order() {
    let d = gpu();
    for format in [
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ] {
        for near_first in [true, false] {
            let t = target(&d, TextureFormat::Rgba8Unorm, 1);
            let (_dt, dv) = depth(&d, format);
            let p = depth_pipeline(&d, format);
            let (near, far) = depth_quads(&d);
            let mut e = depth_pass(&d, &t, dv, format, "depth");
            e.set_render_pipeline(p).unwrap();
            let order = if near_first { [near, far] } else { [far, near] };
            for vb in order {
                e.set_vertex_buffer(0, vb, 0, None).unwrap();
                e.draw(0..6, 0..1).unwrap();
            }
            e.end_render_pass().unwrap();
            d.submit([e.finish().unwrap()]).unwrap();
            let px = pixels(&d, t.texture);
            assert_eq!(
                at(&px, 32, 32),
                [0, 255, 0, 255],
                "{format:?} near_first={near_first}: overlap shows the nearer"
            );
            assert_eq!(at(&px, 4, 32), [0, 255, 0, 255]);
            assert_eq!(at(&px, 60, 32), [255, 0, 0, 255], "only the far one there");
        }
    }
}

#[test]
fn a_depth_bias_moves_a_coplanar_primitive_in_front_and_its_clamp_limits_it() {
    let d = gpu();
    // Green at depth 0.5, then red at the same depth through a pipeline with `bias`: the
    // red passes the `Less` test only where its bias brings it nearer. -1,000 units of the
    // smallest resolvable difference near 0.5 (2^-24 for both formats) is some 6e-5; a
    // clamp of -1e-12 leaves less than depth 0.5 can tell apart in either format.
    let toward = DepthBiasState {
        constant: -1000,
        ..DepthBiasState::default()
    };
    let clamped = DepthBiasState {
        clamp: -1e-12,
        ..toward
    };
    let away = DepthBiasState {
        constant: 1000,
        ..DepthBiasState::default()
    };
    for format in [
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ] {
        for (bias, want) in [
            (DepthBiasState::default(), [0, 255, 0, 255]),
            (toward, [255, 0, 0, 255]),
            (clamped, [0, 255, 0, 255]),
            (away, [0, 255, 0, 255]),
        ] {
            let t = target(&d, TextureFormat::Rgba8Unorm, 1);
            let (_dt, dv) = depth(&d, format);
            let plain = depth_pipeline(&d, format);
            let biased = depth_pipeline_biased(&d, format, bias);
            let green = vertex_buffer(&d, &quad3(0.5, [0.0, 1.0, 0.0, 1.0], -1.0, 1.0));
            let red = vertex_buffer(&d, &quad3(0.5, [1.0, 0.0, 0.0, 1.0], -1.0, 1.0));
            let mut e = depth_pass(&d, &t, dv, format, "bias");
            for (p, vb) in [(plain, green), (biased, red)] {
                e.set_render_pipeline(p).unwrap();
                e.set_vertex_buffer(0, vb, 0, None).unwrap();
                e.draw(0..6, 0..1).unwrap();
            }
            e.end_render_pass().unwrap();
            d.submit([e.finish().unwrap()]).unwrap();
            let px = pixels(&d, t.texture);
            assert_eq!(at(&px, 32, 32), want, "{format:?} with {bias:?}");
        }
    }
}

/// Occlusion query results of a frame on `set`: a near quad over the whole target in query
/// 0, then a far one hidden behind it in query 1, and nothing drawn in query 2; with
/// `again`, a second pass of the same encoder begins query 1 anew over a depth cleared
/// again, where the far quad shows. Resolved by the encoder, read back.
fn occlusion_results(d: &Device, set: QuerySet, again: bool) -> [u64; 3] {
    let format = TextureFormat::Depth32Float;
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let (_dt, dv) = depth(d, format);
    let p = depth_pipeline(d, format);
    let near = vertex_buffer(d, &quad3(0.2, [0.0, 1.0, 0.0, 1.0], -1.0, 1.0));
    let far = vertex_buffer(d, &quad3(0.6, [1.0, 0.0, 0.0, 1.0], -1.0, 1.0));
    let dst = d
        .create_buffer(&BufferDescriptor {
            label: "occlusion results",
            size: 24,
            usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = encoder(d);
    let passes: &[&[(u32, Option<Buffer>)]] = if again {
        &[
            &[(0, Some(near)), (1, Some(far)), (2, None)],
            &[(1, Some(far))],
        ]
    } else {
        &[&[(0, Some(near)), (1, Some(far)), (2, None)]]
    };
    for queries in passes {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "counted",
            color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
            depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                view: dv,
                depth_ops: Some(Operations {
                    load: LoadOp::Clear(1.0),
                    store: StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            occlusion_query_set: Some(set),
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        for &(q, draw) in *queries {
            e.begin_occlusion_query(q).unwrap();
            if let Some(vb) = draw {
                e.set_vertex_buffer(0, vb, 0, None).unwrap();
                e.draw(0..6, 0..1).unwrap();
            }
            e.end_occlusion_query().unwrap();
        }
        e.end_render_pass().unwrap();
    }
    e.resolve_query_set(set, 0, 3, dst, 0).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let bytes = d.read_buffer(dst, 0, 24).unwrap();
    [0, 1, 2].map(|q| u64::from_le_bytes(bytes[q * 8..q * 8 + 8].try_into().unwrap()))
}

#[test]
fn occlusion_queries_count_what_passes_the_depth_test() {
    let d = gpu();
    let set = d.create_occlusion_query_set("occlusion", 3).unwrap();
    // Query 0's quad passes everywhere, query 1's nowhere, query 2 drew nothing.
    let [near, hidden, empty] = occlusion_results(&d, set, false);
    assert!(near > 0, "the near quad's samples passed: {near}");
    assert_eq!((hidden, empty), (0, 0));
    // The same set again: each encoder resets it before its first pass, and query 1,
    // begun anew in a second pass over a cleared depth, counts the far quad there.
    let [near, again, empty] = occlusion_results(&d, set, true);
    assert!(near > 0 && again > 0, "{near}, {again}");
    assert_eq!(empty, 0);
    d.finish();
}

/// What [`statistics_results`] counts in its render passes.
const GRAPHICS_STATS: PipelineStatisticsTypes = PipelineStatisticsTypes::VERTEX_SHADER_INVOCATIONS
    .union(PipelineStatisticsTypes::CLIPPER_INVOCATIONS)
    .union(PipelineStatisticsTypes::FRAGMENT_SHADER_INVOCATIONS);

/// Pipeline statistics of one encoder, resolved and read back: in a render pass, query 0
/// of `graphics` (vertex invocations, clipper invocations, fragment invocations) around a
/// triangle over the lower-left half of the target and query 1 around no draw, both
/// resolved; in a second render pass query 1 again around two instances of the triangle;
/// in a compute pass query 0 of `compute` around 4 workgroups of 64 invocations. `[[v, c,
/// f]; 3]` (the first pass's two queries, then the second pass's) and the compute
/// invocations.
fn statistics_results(d: &Device, graphics: QuerySet, compute: QuerySet) -> ([[u64; 3]; 3], u64) {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let p = pos_color_pipeline(d, t.format);
    let vb = vertex_buffer(d, &tri(RED, [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]));
    let cp = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "64 invocations a group",
            layout: empty_layout(d),
            module: module(d, "@compute @workgroup_size(64) fn main() {}"),
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    // Graphics results at 0 (two queries) and 256 (the one begun again); compute at 512.
    let dst = d
        .create_buffer(&BufferDescriptor {
            label: "statistics",
            size: 520,
            usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = encoder(d);
    let pass = |e: &mut CommandEncoder, queries: &[(u32, u32)]| {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "counted",
            color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        for &(q, instances) in queries {
            e.begin_pipeline_statistics_query(graphics, q).unwrap();
            if instances > 0 {
                e.draw(0..3, 0..instances).unwrap();
            }
            e.end_pipeline_statistics_query().unwrap();
        }
        e.end_render_pass().unwrap();
    };
    pass(&mut e, &[(0, 1), (1, 0)]);
    e.resolve_query_set(graphics, 0, 2, dst, 0).unwrap();
    pass(&mut e, &[(1, 2)]);
    e.resolve_query_set(graphics, 1, 1, dst, 256).unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(cp).unwrap();
    e.begin_pipeline_statistics_query(compute, 0).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.end_pipeline_statistics_query().unwrap();
    e.end_compute_pass().unwrap();
    e.resolve_query_set(compute, 0, 1, dst, 512).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let b = d.read_buffer(dst, 0, 520).unwrap();
    let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let three = |at: usize| [0, 8, 16].map(|v| u(at + v));
    ([three(0), three(24), three(256)], u(512))
}

#[test]
fn pipeline_statistics_count_a_pass_s_work() {
    let d = common::gpu_requiring(Features::PIPELINE_STATISTICS_QUERY, "statistics");
    let graphics = d
        .create_pipeline_statistics_query_set("graphics", 2, GRAPHICS_STATS)
        .unwrap();
    let compute = d
        .create_pipeline_statistics_query_set(
            "compute",
            1,
            PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS,
        )
        .unwrap();
    let ([one, none, two], computed) = statistics_results(&d, graphics, compute);
    eprintln!("one triangle {one:?}, none {none:?}, two {two:?}, compute {computed}");
    // A triangle over half of a 64x64 target: at least its 3 vertices shaded, one
    // primitive clipped, and at least the 2,016 pixels wholly inside it shaded (a driver
    // may shade a vertex twice and count helper invocations).
    let [v, c, f] = one;
    assert!((3..=12).contains(&v), "vertex invocations {v}");
    assert!((1..=4).contains(&c), "clipper invocations {c}");
    assert!((2016..4096).contains(&f), "fragment invocations {f}");
    // Nothing drawn, nothing counted.
    assert_eq!(none, [0, 0, 0]);
    // Two instances of it, counted into the query begun again in a later pass (reset in
    // front of it): twice the primitives and fragments. Vertex invocations need not double:
    // the NVIDIA driver shades the three vertices once for both instances of a shader that
    // does not read the instance index (3 for both, where lavapipe counts 6).
    let [v2, c2, f2] = two;
    assert!(v2 >= v && c2 >= 2 && f2 >= 2 * 2016, "{two:?}");
    assert!(
        v2 <= 2 * v && c2 <= 2 * c && f2 <= 2 * f,
        "{two:?} against {one:?}"
    );
    // 4 workgroups of 64.
    assert_eq!(computed, 256);
    d.finish();
}

#[test]
fn blend_states_mean_what_they_mean_in_webgpu() {
    let d = gpu();
    // Source (1, 0, 0, 0.5) over a destination cleared to (0, 0, 1, 0).
    //   ALPHA_BLENDING: color src*a + dst*(1-a) = (0.5, 0, 0.5); alpha a + dst.a*(1-a) = 0.5.
    //   PREMULTIPLIED_ALPHA_BLENDING: color src + dst*(1-a) = (1, 0, 0.5); alpha 0.5.
    //   REPLACE: the source.
    //   Color src*SrcAlphaSaturated + dst over a destination of alpha 0.75: the factor is
    //   min(0.5, 1 - 0.75) = 0.25, so (0.25, 0, 1); alpha replaced, 0.5.
    let saturated = BlendState {
        color: BlendComponent {
            src_factor: BlendFactor::SrcAlphaSaturated,
            dst_factor: BlendFactor::One,
            operation: BlendOperation::Add,
        },
        alpha: BlendComponent::REPLACE,
    };
    let under = [0.0, 0.0, 1.0, 0.0];
    for (blend, dst, want) in [
        (BlendState::ALPHA_BLENDING, under, [128, 0, 128, 128]),
        (
            BlendState::PREMULTIPLIED_ALPHA_BLENDING,
            under,
            [255, 0, 128, 128],
        ),
        (BlendState::REPLACE, under, [255, 0, 0, 128]),
        (saturated, [0.0, 0.0, 1.0, 0.75], [64, 0, 255, 128]),
    ] {
        let t = target(&d, TextureFormat::Rgba8Unorm, 1);
        let m = module(&d, POS_COLOR);
        let vbl = [pos_color_layout()];
        let targets = [Some(ColorTargetState {
            format: t.format,
            blend: Some(blend),
            write_mask: ColorWrites::ALL,
        })];
        let p = d
            .create_render_pipeline(&pipeline_desc(empty_layout(&d), m, &vbl, &targets))
            .unwrap();
        let vb = vertex_buffer(
            &d,
            &tri(
                [1.0, 0.0, 0.0, 0.5],
                [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]],
            ),
        );
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "blend",
            color_attachments: &[Some(clear(dst, t.view))],
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e.draw(0..3, 0..1).unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(&d, t.texture);
        assert!(
            close(at(&px, 10, 10), want, 1),
            "{blend:?}: {:?}, want {want:?}",
            at(&px, 10, 10)
        );
    }
}

const STRIP: &str = r#"
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(p, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.0, 0.0, 1.0); }
"#;

#[test]
fn the_all_ones_index_restarts_a_strip_and_32_bit_indices_need_no_request() {
    let d = gpu();
    // Requested by no one: enabled because the adapter has it.
    assert!(d.features().contains(Features::FULL_DRAW_INDEX_UINT32));
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let m = module(&d, STRIP);
    let attrs = [VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    }];
    let vbl = [VertexBufferLayout {
        array_stride: 8,
        step_mode: VertexStepMode::Vertex,
        attributes: &attrs,
    }];
    let targets = [color_target(t.format)];
    // Two quads as strips: the left fifth and the right fifth of the target.
    let corners: [[f32; 2]; 8] = [
        [-1.0, -1.0],
        [-0.6, -1.0],
        [-1.0, 1.0],
        [-0.6, 1.0],
        [0.6, -1.0],
        [1.0, -1.0],
        [0.6, 1.0],
        [1.0, 1.0],
    ];
    let vb = vertex_buffer(&d, &corners.concat());
    for format in [IndexFormat::Uint16, IndexFormat::Uint32] {
        let mut desc = pipeline_desc(empty_layout(&d), m, &vbl, &targets);
        desc.primitive = PrimitiveState {
            topology: PrimitiveTopology::TriangleStrip,
            strip_index_format: Some(format),
            ..Default::default()
        };
        let p = d.create_render_pipeline(&desc).unwrap();
        let bytes: Vec<u8> = match format {
            IndexFormat::Uint16 => [0u16, 1, 2, 3, 0xFFFF, 4, 5, 6, 7]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            IndexFormat::Uint32 => [0u32, 1, 2, 3, u32::MAX, 4, 5, 6, 7]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
        };
        let ib = d
            .create_buffer_init(&BufferInitDescriptor {
                label: "strip indices",
                contents: &bytes,
                usage: BufferUsages::INDEX,
            })
            .unwrap();
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "strips",
            color_attachments: &[Some(clear([0.0, 0.0, 1.0, 1.0], t.view))],
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e.set_index_buffer(ib, format, 0, None).unwrap();
        e.draw_indexed(0..9, 0, 0..1).unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(&d, t.texture);
        let (red, blue) = ([255, 0, 0, 255], [0, 0, 255, 255]);
        // Without the restart, the strip would join the quads across the middle.
        assert_eq!(at(&px, 3, 32), red, "{format:?}: left quad");
        assert_eq!(at(&px, 60, 32), red, "{format:?}: right quad");
        for x in [16, 32, 47] {
            assert_eq!(
                at(&px, x, 32),
                blue,
                "{format:?}: ({x}, 32) between the quads"
            );
        }
    }
}

const TEXTURED: &str = r#"
struct O { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@vertex fn vs(@builtin(vertex_index) i: u32) -> O {
    // A full-screen triangle; u runs from -1 to 2 across the visible square, v stays in
    // the first texel row.
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var o: O;
    o.pos = vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
    o.uv = vec2<f32>(p.x * 3.0 - 1.0, 0.25);
    return o;
}
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return textureSample(tex, samp, i.uv); }
"#;

fn checker(d: &Device) -> (Texture, TextureView) {
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "checker",
            size: [2, 2],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    // (0,0) red, (1,0) green, (0,1) blue, (1,1) white.
    let data = [
        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
    ];
    d.write_texture(
        tex,
        TexelCopyTextureInfo::default(),
        &data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 8,
            rows_per_image: None,
        },
        [2, 2, 1],
    )
    .unwrap();
    let view = d
        .create_texture_view(tex, &TextureViewDescriptor::default())
        .unwrap();
    (tex, view)
}

fn sample_with(d: &Device, mode: AddressMode) -> Vec<[u8; 4]> {
    sample_grouped(d, mode, None, false)
}

/// The textured scene, with the view and the sampler in one group, or (`split`) each in
/// a group of its own (a one-entry group's descriptor is written on a shorter path).
fn sample_grouped(
    d: &Device,
    mode: AddressMode,
    border_color: Option<SamplerBorderColor>,
    split: bool,
) -> Vec<[u8; 4]> {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let (_tex, view) = checker(d);
    let sampler = d
        .create_sampler(&SamplerDescriptor {
            address_modes: [mode; 3],
            border_color,
            ..Default::default()
        })
        .unwrap();
    let texture_entry = BindGroupLayoutEntry {
        binding: 0,
        visibility: ShaderStages::FRAGMENT,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Float { filterable: true },
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        array: None,
    };
    let sampler_entry = |binding| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::FRAGMENT,
        ty: BindingType::Sampler(SamplerBindingType::Filtering),
        array: None,
    };
    let layout_of = |entries: &[BindGroupLayoutEntry]| {
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "tex",
            entries,
        })
        .unwrap()
    };
    let group_of = |layout, entries: &[BindGroupEntry<'_>]| {
        d.create_bind_group(&BindGroupDescriptor {
            label: "tex",
            layout,
            entries,
        })
        .unwrap()
    };
    let view_entry = BindGroupEntry {
        binding: 0,
        resource: BindingResource::TextureView(view),
    };
    let (layouts, groups, shader) = if split {
        let (a, b) = (layout_of(&[texture_entry]), layout_of(&[sampler_entry(0)]));
        let sampler_group = group_of(
            b,
            &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Sampler(sampler),
            }],
        );
        let shader = TEXTURED.replace(
            "@group(0) @binding(1) var samp",
            "@group(1) @binding(0) var samp",
        );
        (
            vec![a, b],
            vec![group_of(a, &[view_entry]), sampler_group],
            shader,
        )
    } else {
        let a = layout_of(&[texture_entry, sampler_entry(1)]);
        let group = group_of(
            a,
            &[
                view_entry,
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Sampler(sampler),
                },
            ],
        );
        (vec![a], vec![group], TEXTURED.to_owned())
    };
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "tex",
            bind_group_layouts: &layouts,
            immediate_size: 0,
        })
        .unwrap();
    let targets = [color_target(t.format)];
    let p = d
        .create_render_pipeline(&pipeline_desc(layout, module(d, &shader), &[], &targets))
        .unwrap();
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "sample",
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    for (i, g) in groups.into_iter().enumerate() {
        e.set_bind_group(i as u32, g, &[]).unwrap();
    }
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    pixels(d, t.texture)
}

#[test]
fn a_view_and_a_sampler_in_groups_of_their_own_sample_as_one_group_does() {
    let d = gpu();
    for mode in [AddressMode::Repeat, AddressMode::ClampToEdge] {
        let one = sample_grouped(&d, mode, None, false);
        let split = sample_grouped(&d, mode, None, true);
        assert!(
            one.contains(&[255, 0, 0, 255]) && one.contains(&[0, 255, 0, 255]),
            "the scene shows both texels"
        );
        assert_eq!(one, split, "{mode:?}: the same pixels");
    }
}

#[test]
fn sampling_follows_the_address_mode() {
    let d = gpu();
    // Across the 64-pixel target, u runs from -1 to 2 (each texel is ~10.7 pixels wide).
    let red = [255, 0, 0, 255];
    let green = [0, 255, 0, 255];
    let u_at = |x: u32| (x as f32 + 0.5) / 64.0 * 3.0 - 1.0;
    let row = 5; // v in the first texel row
    let repeat = sample_with(&d, AddressMode::Repeat);
    let clamp = sample_with(&d, AddressMode::ClampToEdge);
    let mirror = sample_with(&d, AddressMode::MirrorRepeat);
    for x in [2u32, 8, 24, 30, 40, 46, 56, 62] {
        let u = u_at(x);
        let texel = |u: f32| {
            if (u.rem_euclid(1.0)) < 0.5 {
                red
            } else {
                green
            }
        };
        let want_repeat = texel(u);
        let want_clamp = if u < 0.5 { red } else { green };
        let m = u.rem_euclid(2.0);
        let want_mirror = texel(if m > 1.0 { 2.0 - m } else { m });
        assert_eq!(at(&repeat, x, row), want_repeat, "repeat at u={u}");
        assert_eq!(at(&clamp, x, row), want_clamp, "clamp at u={u}");
        assert_eq!(at(&mirror, x, row), want_mirror, "mirror at u={u}");
    }
}

#[test]
fn clamping_to_the_border_samples_its_color_outside_the_texture() {
    let d = gpu();
    let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
    // u runs from -1 to 2 across the target: below 0 and above 1 is the border.
    let u_at = |x: u32| (x as f32 + 0.5) / 64.0 * 3.0 - 1.0;
    for (border, color) in [
        (None, [0, 0, 0, 0]),
        (Some(SamplerBorderColor::TransparentBlack), [0, 0, 0, 0]),
        (Some(SamplerBorderColor::OpaqueBlack), [0, 0, 0, 255]),
        (Some(SamplerBorderColor::OpaqueWhite), [255, 255, 255, 255]),
        (Some(SamplerBorderColor::Zero), [0, 0, 0, 0]),
    ] {
        let px = sample_grouped(&d, AddressMode::ClampToBorder, border, false);
        for x in [2u32, 18, 24, 30, 36, 40, 46, 62] {
            let u = u_at(x);
            let want = if !(0.0..1.0).contains(&u) {
                color
            } else if u < 0.5 {
                red
            } else {
                green
            };
            assert_eq!(at(&px, x, 5), want, "{border:?} at u={u}");
        }
    }
}

#[test]
fn a_comparison_sampler_compares_against_the_border_depth() {
    // A depth texture of 0.25 sampled at its middle and outside it, compared with
    // `0.5 < depth`: inside fails; outside the border's first component is the depth (1
    // for opaque white, 0 for transparent black).
    let d = gpu();
    let depth = d
        .create_texture(&TextureDescriptor {
            label: "shadow map",
            size: [4, 4],
            format: TextureFormat::Depth32Float,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    d.write_texture(
        depth,
        TexelCopyTextureInfo::default(),
        &0.25f32.to_le_bytes().repeat(16),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 16,
            rows_per_image: None,
        },
        [4, 4, 1],
    )
    .unwrap();
    let view = d
        .create_texture_view(depth, &TextureViewDescriptor::default())
        .unwrap();
    let wgsl = r#"
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var cmp: sampler_comparison;
@group(0) @binding(2) var<storage, read_write> out: array<f32, 2>;
@compute @workgroup_size(1) fn main() {
    out[0] = textureSampleCompareLevel(depth, cmp, vec2<f32>(0.5, 0.5), 0.5);
    out[1] = textureSampleCompareLevel(depth, cmp, vec2<f32>(-0.5, 0.5), 0.5);
}
"#;
    for (border, outside) in [
        (SamplerBorderColor::OpaqueWhite, 1.0f32),
        (SamplerBorderColor::TransparentBlack, 0.0),
    ] {
        let cmp = d
            .create_sampler(&SamplerDescriptor {
                address_modes: [AddressMode::ClampToBorder; 3],
                border_color: Some(border),
                compare: Some(CompareFunction::Less),
                ..Default::default()
            })
            .unwrap();
        let out = d
            .create_buffer(&BufferDescriptor {
                label: "compared",
                size: 8,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            })
            .unwrap();
        let (bgl, group) = common::group_of(
            &d,
            ShaderStages::COMPUTE,
            &[
                (
                    BindingType::Texture {
                        sample_type: TextureSampleType::Depth,
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    BindingResource::TextureView(view),
                ),
                (
                    BindingType::Sampler(SamplerBindingType::Comparison),
                    BindingResource::Sampler(cmp),
                ),
                (
                    BindingType::Buffer {
                        ty: BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    BindingResource::Buffer(BufferBinding::whole(out)),
                ),
            ],
        );
        common::dispatch_wgsl(&d, wgsl, bgl, group, [1, 1, 1]);
        let got: Vec<f32> = d
            .read_buffer(out, 0, 8)
            .unwrap()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [0.0, outside], "{border:?}");
    }
}

#[test]
fn multisampled_edges_resolve_to_partial_coverage() {
    let d = gpu();
    let ms = MultisampleState {
        count: 4,
        ..Default::default()
    };
    let px = msaa_frame(&d, ms, [1.0; 4], [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]);
    assert_eq!(at(&px, 5, 60), [255, 255, 255, 255], "interior");
    assert_eq!(at(&px, 60, 5), [0, 0, 0, 255], "exterior");
    // Pixels the diagonal crosses are averaged from 4 samples.
    let partial = (0..W)
        .filter(|&x| {
            let v = at(&px, x, x)[0];
            v > 0 && v < 255
        })
        .count();
    assert!(
        partial > 40,
        "only {partial} partially covered pixels on the diagonal"
    );
}

/// A 4-sample target cleared black, a triangle `pts` drawn in `color` with `ms`, resolved
/// and read back.
fn msaa_frame(
    d: &Device,
    ms: MultisampleState,
    color: [f32; 4],
    pts: [[f32; 2]; 3],
) -> Vec<[u8; 4]> {
    let target4 = target(d, TextureFormat::Rgba8Unorm, 4);
    let resolved = target(d, TextureFormat::Rgba8Unorm, 1);
    let m = module(d, POS_COLOR);
    let vbl = [pos_color_layout()];
    let targets = [color_target(TextureFormat::Rgba8Unorm)];
    let mut desc = pipeline_desc(empty_layout(d), m, &vbl, &targets);
    desc.multisample = ms;
    let p = d.create_render_pipeline(&desc).unwrap();
    let vb = vertex_buffer(d, &tri(color, pts));
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "msaa",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: target4.view,
            depth_slice: None,
            resolve_target: Some(resolved.view),
            load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
            store: StoreOp::Discard,
        })],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    pixels(d, resolved.texture)
}

/// The least, greatest and mean red of [`msaa_frame`] after a triangle over the whole
/// target in (1, 1, 1, `alpha`) with `ms`.
fn resolved_red(d: &Device, ms: MultisampleState, alpha: f32) -> (u8, u8, f64) {
    let whole = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]];
    let px = msaa_frame(d, ms, [1.0, 1.0, 1.0, alpha], whole);
    let reds = px.iter().map(|p| p[0]);
    let mean = reds.clone().map(f64::from).sum::<f64>() / px.len() as f64;
    (reds.clone().min().unwrap(), reds.max().unwrap(), mean)
}

#[test]
fn the_sample_mask_and_alpha_to_coverage_choose_the_samples_written() {
    let d = gpu();
    let ms = |mask, alpha_to_coverage_enabled| MultisampleState {
        count: 4,
        mask,
        alpha_to_coverage_enabled,
    };
    // Every sample, two of four, none: white, half white, black in every pixel.
    assert_eq!(resolved_red(&d, ms(!0, false), 1.0).0, 255);
    let (lo, hi, _) = resolved_red(&d, ms(0b0011, false), 1.0);
    assert!(
        (126..=129).contains(&lo) && (126..=129).contains(&hi),
        "{lo}..{hi}"
    );
    assert_eq!(resolved_red(&d, ms(0, false), 1.0).1, 0);
    // Alpha to coverage: alpha 0 covers no sample and 1 every one; between, some but not
    // all (the pattern is the implementation's).
    assert_eq!(resolved_red(&d, ms(!0, true), 0.0).1, 0);
    assert_eq!(resolved_red(&d, ms(!0, true), 1.0).0, 255);
    let (_, _, mean) = resolved_red(&d, ms(!0, true), 0.5);
    assert!(mean > 0.2 * 255.0 && mean < 0.8 * 255.0, "mean red {mean}");
    // The mask still applies: with alpha 1, samples 2 and 3 only.
    let (lo, hi, _) = resolved_red(&d, ms(0b1100, true), 1.0);
    assert!(
        (126..=129).contains(&lo) && (126..=129).contains(&hi),
        "{lo}..{hi}"
    );
    d.finish();
}

const INSTANCED: &str = r#"
struct V { @location(0) corner: vec2<f32>, @location(1) offset: vec2<f32>, @location(2) color: vec4<f32> }
struct O { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(v: V) -> O { return O(vec4<f32>(v.corner * 0.5 + v.offset, 0.0, 1.0), v.color); }
@fragment fn fs(i: O) -> @location(0) vec4<f32> { return i.color; }
"#;

#[test]
fn indexed_instanced_and_indirect_draws() {
    let d = gpu();
    let m = module(&d, INSTANCED);
    let per_vertex = [VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    }];
    let per_instance = [
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 0,
            shader_location: 1,
        },
        VertexAttribute {
            format: VertexFormat::Float32x4,
            offset: 8,
            shader_location: 2,
        },
    ];
    let vbl = [
        VertexBufferLayout {
            array_stride: 8,
            step_mode: VertexStepMode::Vertex,
            attributes: &per_vertex,
        },
        VertexBufferLayout {
            array_stride: 24,
            step_mode: VertexStepMode::Instance,
            attributes: &per_instance,
        },
    ];
    let targets = [color_target(TextureFormat::Rgba8Unorm)];
    let p = d
        .create_render_pipeline(&pipeline_desc(empty_layout(&d), m, &vbl, &targets))
        .unwrap();
    // A unit quad (4 corners, 6 indices) placed in each quadrant by its instance.
    let corners = vertex_buffer(&d, &[-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0]);
    let colors = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    let offsets = [[-0.5, 0.5], [0.5, 0.5], [-0.5, -0.5], [0.5, -0.5]];
    let inst: Vec<f32> = (0..4)
        .flat_map(|i| {
            [
                offsets[i][0],
                offsets[i][1],
                colors[i][0],
                colors[i][1],
                colors[i][2],
                colors[i][3],
            ]
        })
        .collect();
    let instances = vertex_buffer(&d, &inst);
    let idx: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let index = d
        .create_buffer(&BufferDescriptor {
            label: "indices",
            size: 12,
            usage: BufferUsages::INDEX | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(index, 0, &idx).unwrap();
    let args = d
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: 64,
            usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        })
        .unwrap();
    // draw_indexed_indirect: 6 indices, instances 2..4; draw_indirect: 3 vertices (first half of quad) of instance 0.
    let words: [u32; 9] = [6, 2, 0, 0, 2, 3, 1, 0, 0];
    d.write_buffer(
        args,
        0,
        &words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let expect = |px: &[[u8; 4]], which: [bool; 4]| {
        for (q, (x, y)) in [(16, 16), (48, 16), (16, 48), (48, 48)]
            .into_iter()
            .enumerate()
        {
            let want = if which[q] {
                colors[q].map(|c| (c * 255.0) as u8)
            } else {
                [0, 0, 0, 255]
            };
            assert_eq!(at(px, x, y), want, "quadrant {q}");
        }
    };
    for mode in 0..3 {
        let t = target(&d, TextureFormat::Rgba8Unorm, 1);
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "inst",
            color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, corners, 0, None).unwrap();
        e.set_vertex_buffer(1, instances, 0, None).unwrap();
        e.set_index_buffer(index, IndexFormat::Uint16, 0, None)
            .unwrap();
        match mode {
            0 => e.draw_indexed(0..6, 0, 0..4).unwrap(),
            1 => e.draw_indexed_indirect(args, 0).unwrap(),
            _ => e.draw_indexed(0..6, 0, 1..2).unwrap(),
        }
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(&d, t.texture);
        match mode {
            0 => expect(&px, [true; 4]),
            1 => expect(&px, [false, false, true, true]),
            _ => expect(&px, [false, true, false, false]),
        }
    }
    // Out-of-range draws are refused before they reach the GPU.
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "oob",
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, corners, 0, None).unwrap();
    e.set_vertex_buffer(1, instances, 0, None).unwrap();
    e.set_index_buffer(index, IndexFormat::Uint16, 0, None)
        .unwrap();
    assert_eq!(
        e.draw_indexed(0..7, 0, 0..1).unwrap_err().kind(),
        ErrorKind::OutOfBounds
    );
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "oob",
        color_attachments: &[Some(clear([0.0; 4], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, corners, 0, None).unwrap();
    e.set_vertex_buffer(1, instances, 0, None).unwrap();
    assert_eq!(
        e.draw(0..4, 0..5).unwrap_err().kind(),
        ErrorKind::OutOfBounds,
        "instance 4 is past the instance buffer"
    );
}

#[test]
fn draw_indirect_reads_its_arguments() {
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let p = pos_color_pipeline(&d, t.format);
    let vb = vertex_buffer(
        &d,
        &[
            tri(
                [0.0, 0.0, 1.0, 1.0],
                [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]],
            ),
            tri(RED, [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]]),
        ]
        .concat(),
    );
    let args = d
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: 16,
            usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        })
        .unwrap();
    // 3 vertices from vertex 3 (the red full-screen triangle), 1 instance.
    d.write_buffer(
        args,
        0,
        &[3u32, 1, 3, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "indirect",
        color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw_indirect(args, 0).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(&d, t.texture);
    assert_eq!(at(&px, 60, 4), [255, 0, 0, 255]);
    assert_eq!(at(&px, 2, 60), [255, 0, 0, 255]);
}

/// How [`multi_drawn`]'s draws get their count.
#[derive(Clone, Copy, Debug)]
enum Count {
    /// The call's own.
    Call,
    /// Read by the GPU: this value, copied into the arguments' buffer after the draws in
    /// front of the pass (the copy's write ordered before the draws' read).
    Copied(u32),
    /// Read by the GPU from a buffer of its own, written with this value.
    Written(u32),
}

/// Three quads, red, green and blue over the left, middle and right thirds of the target,
/// drawn by one `multi_draw_indirect` (or `_indexed_`) call of `count` draws, or with
/// `how` a GPU-read count one `multi_draw_indirect_count` call of at most `count`: read
/// back.
fn multi_drawn(d: &Device, indexed: bool, count: u32, how: Count) -> Vec<[u8; 4]> {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let p = raster_pipeline(d, PrimitiveState::default());
    let third = 2.0 / 3.0;
    let vb = vertex_buffer(
        d,
        &[
            quad3(0.5, [1.0, 0.0, 0.0, 1.0], -1.0, -1.0 + third),
            quad3(0.5, [0.0, 1.0, 0.0, 1.0], -1.0 + third, 1.0 - third),
            quad3(0.5, [0.0, 0.0, 1.0, 1.0], 1.0 - third, 1.0),
        ]
        .concat(),
    );
    let words: Vec<u32> = (0..3u32)
        .flat_map(|q| {
            if indexed {
                // 6 indices from index 6q, base vertex 0, one instance.
                vec![6, 1, 6 * q, 0, 0]
            } else {
                // 6 vertices from vertex 6q, one instance.
                vec![6, 1, 6 * q, 0]
            }
        })
        .collect();
    let bytes = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let indirect = |label, words: &[u32]| {
        let b = d
            .create_buffer(&BufferDescriptor {
                label,
                size: words.len() as u64 * 4,
                usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
            })
            .unwrap();
        d.write_buffer(b, 0, &bytes(words)).unwrap();
        b
    };
    // The draws, then a word for a count (0 until a copy writes it).
    let count_at = words.len() as u64 * 4;
    let args = indirect("args", &[words, vec![0]].concat());
    let ib = d
        .create_buffer(&BufferDescriptor {
            label: "indices",
            size: 18 * 4,
            usage: BufferUsages::INDEX | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(ib, 0, &bytes(&(0..18).collect::<Vec<u32>>()))
        .unwrap();
    let mut e = encoder(d);
    let counted = match how {
        Count::Call => None,
        Count::Copied(n) => {
            e.copy_buffer_to_buffer(indirect("copied count", &[n]), 0, args, count_at, 4)
                .unwrap();
            Some((args, count_at))
        }
        Count::Written(n) => Some((indirect("count", &[n]), 0)),
    };
    e.begin_render_pass(&RenderPassDescriptor {
        label: "multi",
        color_attachments: &[Some(clear([0.0, 0.0, 0.0, 1.0], t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    if indexed {
        e.set_index_buffer(ib, IndexFormat::Uint32, 0, None)
            .unwrap();
    }
    match (counted, indexed) {
        (None, true) => e.multi_draw_indexed_indirect(args, 0, count),
        (None, false) => e.multi_draw_indirect(args, 0, count),
        (Some((c, at)), true) => e.multi_draw_indexed_indirect_count(args, 0, c, at, count),
        (Some((c, at)), false) => e.multi_draw_indirect_count(args, 0, c, at, count),
    }
    .unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    pixels(d, t.texture)
}

const RED_PX: [u8; 4] = [255, 0, 0, 255];
const GREEN_PX: [u8; 4] = [0, 255, 0, 255];
const BLUE_PX: [u8; 4] = [0, 0, 255, 255];
const BLACK_PX: [u8; 4] = [0, 0, 0, 255];

/// [`multi_drawn`]'s three thirds.
fn thirds(px: &[[u8; 4]]) -> [[u8; 4]; 3] {
    [at(px, 10, 32), at(px, 32, 32), at(px, 54, 32)]
}

#[test]
fn multi_draw_indirect_draws_each_of_its_draws() {
    // One native command per call (the feature), one per draw (without it), and each draw
    // checked on the GPU apart (as without INDIRECT_FIRST_INSTANCE, which the device is
    // given whenever its adapter has it: the seam makes it check as if it had not).
    for (features, checked) in [
        (
            Features::MULTI_DRAW_INDIRECT | Features::INDIRECT_FIRST_INSTANCE,
            false,
        ),
        (Features::INDIRECT_FIRST_INSTANCE, false),
        // The seam is the `test-seams` feature's (the suite's command builds with it).
        #[cfg(feature = "test-seams")]
        (Features::MULTI_DRAW_INDIRECT, true),
    ] {
        let d = common::gpu_requiring(features, "multi-draw");
        #[cfg(feature = "test-seams")]
        if checked {
            d.seams().check_indirect_first_instance();
        }
        for indexed in [false, true] {
            for (count, want) in [
                (3, [RED_PX, GREEN_PX, BLUE_PX]),
                (2, [RED_PX, GREEN_PX, BLACK_PX]),
                (0, [BLACK_PX, BLACK_PX, BLACK_PX]),
            ] {
                let px = multi_drawn(&d, indexed, count, Count::Call);
                assert_eq!(
                    thirds(&px),
                    want,
                    "{features:?}, checked {checked}, indexed {indexed}, count {count}"
                );
            }
        }
        d.finish();
    }
}

#[test]
fn multi_draw_indirect_count_draws_as_many_as_the_gpu_reads() {
    // The count in a buffer of its own, or copied into the arguments' buffer in front of
    // the pass; above the call's most it draws the most. With and without
    // MULTI_DRAW_INDIRECT, which Vulkan's counted draws do not need.
    for features in [
        Features::MULTI_DRAW_INDIRECT_COUNT,
        Features::MULTI_DRAW_INDIRECT_COUNT | Features::MULTI_DRAW_INDIRECT,
    ] {
        let d = common::gpu_requiring(features, "counted draws");
        for indexed in [false, true] {
            for (max, how, want) in [
                (3, Count::Written(3), [RED_PX, GREEN_PX, BLUE_PX]),
                (3, Count::Written(2), [RED_PX, GREEN_PX, BLACK_PX]),
                (3, Count::Copied(1), [RED_PX, BLACK_PX, BLACK_PX]),
                (3, Count::Copied(0), [BLACK_PX, BLACK_PX, BLACK_PX]),
                (2, Count::Written(u32::MAX), [RED_PX, GREEN_PX, BLACK_PX]),
                (2, Count::Copied(7), [RED_PX, GREEN_PX, BLACK_PX]),
                (0, Count::Written(3), [BLACK_PX, BLACK_PX, BLACK_PX]),
            ] {
                let px = multi_drawn(&d, indexed, max, how);
                assert_eq!(
                    thirds(&px),
                    want,
                    "{features:?}, indexed {indexed}, at most {max}, {how:?}"
                );
            }
        }
        d.finish();
    }
}

/// Records one frame into `t`: its pass loads with `load`, then a red triangle over the
/// lower-left half.
fn frame_into(d: &Device, t: &Target, p: RenderPipeline, vb: Buffer, load: LoadOp<[f64; 4]>) {
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "frame",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: t.view,
            depth_slice: None,
            resolve_target: None,
            load,
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

/// Whether the pixels are `under` in the lower-left half (the triangle) and `rest` in the
/// upper-right half, away from the diagonal.
fn halves(px: &[[u8; 4]], under: [u8; 4], rest: [u8; 4]) -> bool {
    (0..H).all(|y| {
        (0..W).all(|x| {
            let sum = x as i32 + (H - 1 - y) as i32;
            (sum >= 62 || at(px, x, y) == under) && (sum <= 64 || at(px, x, y) == rest)
        })
    })
}

#[test]
fn a_pass_clearing_its_target_first_needs_no_barrier_in_front_of_its_command_buffer() {
    // A color attachment cleared where a command buffer first uses it carries its own
    // barrier (from `Undefined`, after all earlier work): its frames are submitted with
    // no head, whatever the target went through before. A pass that loads the target
    // still has its first use resolved at submission, in a head.
    let d = gpu();
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let p = pos_color_pipeline(&d, t.format);
    let vb = vertex_buffer(&d, &tri(RED, [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]));
    let (red, green, blue) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]);
    let heads = |d: &Device| {
        let s = d.stats();
        s.heads_recorded + s.heads_reused
    };
    // The first frame: the target was never written (its zero fill is a head's).
    frame_into(&d, &t, p, vb, LoadOp::Clear([0.0, 0.0, 1.0, 1.0]));
    assert!(halves(&pixels(&d, t.texture), red, blue));
    // Frames after it, the last one's drawing and the readback's copy (another layout)
    // before each: no head.
    for clear in [
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
    ] {
        let before = heads(&d);
        frame_into(&d, &t, p, vb, LoadOp::Clear(clear));
        frame_into(&d, &t, p, vb, LoadOp::Clear(clear));
        assert_eq!(
            heads(&d),
            before,
            "a cleared frame was submitted with a head"
        );
        let rest = if clear[1] == 1.0 { green } else { blue };
        assert!(halves(&pixels(&d, t.texture), red, rest));
    }
    // A pass that loads: what the last frame left stays (green above the diagonal), and
    // the target's first use is resolved in front of the command buffer.
    let before = heads(&d);
    frame_into(&d, &t, p, vb, LoadOp::Load);
    assert_eq!(heads(&d), before + 1, "a loading frame needs its head");
    assert!(halves(&pixels(&d, t.texture), red, green));
    // A clearing pass after another use of the target in the same recording: that pass's
    // barrier is the recording's own, from the state the first pass left.
    let mut e = encoder(&d);
    for (i, color) in [[0.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]]
        .into_iter()
        .enumerate()
    {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "twice",
            color_attachments: &[Some(clear(color, t.view))],
            ..Default::default()
        })
        .unwrap();
        if i == 1 {
            e.set_render_pipeline(p).unwrap();
            e.set_vertex_buffer(0, vb, 0, None).unwrap();
            e.draw(0..3, 0..1).unwrap();
        }
        e.end_render_pass().unwrap();
    }
    let before = heads(&d);
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(heads(&d), before);
    assert!(halves(&pixels(&d, t.texture), red, green));
}

#[test]
fn depth_cleared_first_in_every_frame_stays_right_with_no_head() {
    // Depth (and stencil, where the format has it) cleared on the recording's first use
    // of the attachment: the nearer quad wins in every frame, each frame submitted with
    // no head after the first.
    let d = gpu();
    for format in [
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ] {
        let t = target(&d, TextureFormat::Rgba8Unorm, 1);
        let (_dt, dv) = depth(&d, format);
        let p = depth_pipeline(&d, format);
        // The frames alternate which quad is drawn first.
        let (near, far) = depth_quads(&d);
        for frame in 0..4 {
            let mut e = depth_pass(&d, &t, dv, format, "depth frame");
            e.set_render_pipeline(p).unwrap();
            let order = if frame % 2 == 0 {
                [near, far]
            } else {
                [far, near]
            };
            for vb in order {
                e.set_vertex_buffer(0, vb, 0, None).unwrap();
                e.draw(0..6, 0..1).unwrap();
            }
            e.end_render_pass().unwrap();
            let s = d.stats();
            let heads = s.heads_recorded + s.heads_reused;
            d.submit([e.finish().unwrap()]).unwrap();
            let s = d.stats();
            let after = s.heads_recorded + s.heads_reused;
            if frame > 0 {
                assert_eq!(after, heads, "{format:?} frame {frame} had a head");
            }
            let px = pixels(&d, t.texture);
            for x in [2, W / 2 - 4] {
                assert_eq!(
                    at(&px, x, H / 2),
                    [0, 255, 0, 255],
                    "{format:?} frame {frame}"
                );
            }
            assert_eq!(
                at(&px, W - 3, H / 2),
                [255, 0, 0, 255],
                "{format:?} frame {frame}"
            );
        }
    }
}
