//! Shader capabilities on a real device, each behind its device feature: with the feature
//! enabled a shader using it runs and its result is read back (the validation layer, on,
//! checks the SPIR-V against the Vulkan features vigil enabled); without it the module is
//! refused naming the feature. A feature the adapter lacks is checked for its refusal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{Gpu, gpu_with, run_src_dst, src_dst_kernel_with};
use vigil::*;

/// Every feature that grants a shader capability.
const SHADER_FEATURES: Features = Features::SHADER_F16
    .union(Features::SHADER_F64)
    .union(Features::SHADER_INT64)
    .union(Features::SHADER_INT64_ATOMICS)
    .union(Features::SUBGROUP)
    .union(Features::SHADER_CLIP_DISTANCES)
    .union(Features::SHADER_PRIMITIVE_INDEX)
    .union(Features::SAMPLE_RATE_SHADING)
    .union(Features::DUAL_SOURCE_BLENDING)
    .union(Features::SHADER_DRAW_INDEX);

fn device(features: impl Fn(Features) -> Features) -> Gpu {
    gpu_with(|adapter| DeviceDescriptor {
        label: "shader features".into(),
        required_features: features(adapter.features()),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    })
}

/// Compute kernels over `src[i] = i`: the feature, the source, the expected `dst[i]`.
type Expect = fn(u32) -> u32;
const KERNELS: &[(Features, &str, Expect)] = &[
    (
        Features::SHADER_F16,
        "enable f16;
        @group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<u32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let h = f16(src[id.x]) * 1.5h;
            dst[id.x] = u32(f32(h) * 2.0);
        }",
        |i| i * 3,
    ),
    (
        Features::SHADER_F64,
        "@group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<u32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let x = f64(src[id.x]) / 3.0lf;
            dst[id.x] = u32(x * 3.0lf + 0.5lf) + 7u;
        }",
        |i| i + 7,
    ),
    (
        Features::SHADER_INT64,
        "@group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<u32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let wide = u64(src[id.x]) << 40u;
            dst[id.x] = u32(wide >> 39u) + 1u;
        }",
        |i| i * 2 + 1,
    ),
    (
        Features::SUBGROUP,
        "@group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<u32>;
        @compute @workgroup_size(64)
        fn main(@builtin(global_invocation_id) id: vec3<u32>,
                @builtin(subgroup_size) size: u32,
                @builtin(subgroup_invocation_id) lane: u32) {
            // Every lane is active: the sum of ones is the subgroup size, and the first
            // lane's id is 0.
            let all = select(0u, 1u, subgroupAdd(1u) == size);
            let first = select(0u, 10u, subgroupBroadcastFirst(lane) == 0u);
            dst[id.x] = src[id.x] + all + first;
        }",
        |i| i + 11,
    ),
];

#[test]
fn compute_capabilities_run_with_their_feature_and_are_refused_without() {
    let src: Vec<u32> = (0..256).collect();
    let with = device(|supported| supported & SHADER_FEATURES);
    let without = device(|_| Features::empty());
    for (feature, wgsl, expect) in KERNELS {
        let name = feature.names().join("");
        let refused = src_dst_kernel_with(&without, &name, wgsl, &[]).unwrap_err();
        assert_eq!(refused.rule(), Rule::ShaderFeature, "{name}: {refused}");
        assert_eq!(
            refused.shader_diagnostic().unwrap().features_needed,
            *feature,
            "{name}"
        );
        if !with.features().contains(*feature) {
            // The adapter lacks it: refused the same way on the device that has all it can.
            let e = src_dst_kernel_with(&with, &name, wgsl, &[]).unwrap_err();
            assert_eq!(e.rule(), Rule::ShaderFeature, "{name}: {e}");
            continue;
        }
        let k = src_dst_kernel_with(&with, &name, wgsl, &[]).unwrap();
        let out = run_src_dst(&with, k, &src, 256, 4);
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, expect(i as u32), "{name}, element {i}");
        }
    }
}

#[test]
fn sixty_four_bit_atomics_add_across_invocations() {
    let wgsl = "@group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<atomic<u64>>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            atomicAdd(&dst[0], u64(src[id.x]) << 32u);
            atomicMax(&dst[1], u64(src[id.x]) + 0x100000000lu);
        }";
    let needed = Features::SHADER_INT64 | Features::SHADER_INT64_ATOMICS;
    let d = device(|supported| supported & needed);
    if !d.features().contains(needed) {
        let e = src_dst_kernel_with(&d, "atomics", wgsl, &[]).unwrap_err();
        assert_eq!(e.rule(), Rule::ShaderFeature, "{e}");
        return;
    }
    let src: Vec<u32> = (0..256).collect();
    let k = src_dst_kernel_with(&d, "atomics", wgsl, &[]).unwrap();
    let out = run_src_dst(&d, k, &src, 4, 4);
    // [0]: low word 0, high word the sum; [1]: 255 + 2^32.
    assert_eq!(out, [0, (0..256).sum::<u32>(), 255, 1]);
}

/// Whether `d` lacks `feature` (its adapter does not have it); if so, checks that a module
/// of `wgsl` is refused naming it.
fn refused_for_want_of(d: &Device, feature: Features, wgsl: &str) -> bool {
    if d.features().contains(feature) {
        return false;
    }
    let e = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "feature",
            wgsl,
        })
        .unwrap_err();
    assert_eq!(e.rule(), Rule::ShaderFeature, "{feature:?}: {e}");
    assert_eq!(e.shader_diagnostic().unwrap().features_needed, feature);
    true
}

/// Draws `vertices` with `wgsl`'s `vs` and `fs` into a cleared 64×64 target.
fn render(d: &Device, wgsl: &str, vertices: u32) -> Vec<[u8; 4]> {
    let targets = [draw::color_target(TextureFormat::Rgba8Unorm)];
    render_with(d, wgsl, vertices, &targets, [0.0, 0.0, 0.0, 1.0])
}

/// Draws `vertices` with `wgsl`'s `vs` and `fs` into one rgba8 target cleared to `clear`.
fn render_with(
    d: &Device,
    wgsl: &str,
    vertices: u32,
    targets: &[Option<ColorTargetState>],
    clear: [f64; 4],
) -> Vec<[u8; 4]> {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "render",
            wgsl,
        })
        .unwrap();
    let pipeline = d
        .create_render_pipeline(&draw::pipeline_desc(
            draw::empty_layout(d),
            module,
            &[],
            targets,
        ))
        .unwrap();
    let t = draw::target(d, TextureFormat::Rgba8Unorm, 1);
    let mut e = draw::encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "render",
        color_attachments: &[Some(draw::clear(clear, t.view))],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.set_render_pipeline(pipeline).unwrap();
    e.draw(0..vertices, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    draw::pixels(d, t.texture)
}

/// Two triangles covering the target: the first the upper left half, the second the
/// lower right.
const QUAD: &str = "
    fn corner(v: u32) -> vec4f {
        let p = array(vec2f(-1.0, -1.0), vec2f(-1.0, 1.0), vec2f(1.0, 1.0),
                      vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(1.0, -1.0));
        return vec4f(p[v], 0.0, 1.0);
    }";

/// The color expected at a pixel.
type Pixel = fn(u32, u32) -> [u8; 4];

#[test]
fn render_capabilities_run_with_their_feature() {
    let d = device(|supported| supported & SHADER_FEATURES);
    let cases: [(Features, String, Pixel); 4] = [
        (
            Features::SHADER_DRAW_INDEX,
            format!(
                "enable draw_index; {QUAD}
                struct V {{ @builtin(position) p: vec4f, @location(0) @interpolate(flat) d: u32 }}
                @vertex fn vs(@builtin(vertex_index) v: u32, @builtin(draw_index) d: u32) -> V {{
                    return V(corner(v), d + 1u);
                }}
                @fragment fn fs(v: V) -> @location(0) vec4f {{
                    // A direct draw is draw 0.
                    return vec4f(0.0, 0.0, f32(v.d), 1.0);
                }}"
            ),
            |_, _| [0, 0, 255, 255],
        ),
        (
            Features::SHADER_PRIMITIVE_INDEX,
            format!(
                "enable primitive_index; {QUAD}
                @vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {{
                    return corner(v);
                }}
                @fragment fn fs(@builtin(primitive_index) p: u32) -> @location(0) vec4f {{
                    return vec4f(f32(p), 1.0 - f32(p), 0.0, 1.0);
                }}"
            ),
            // Row 0 is the top (y = +1). The diagonal from the bottom left to the top
            // right is x + y = 63 in texels: above it the first triangle (green), below
            // it the second (red).
            |x, y| {
                if x + y < 63 {
                    [0, 255, 0, 255]
                } else {
                    [255, 0, 0, 255]
                }
            },
        ),
        (
            Features::SHADER_CLIP_DISTANCES,
            format!(
                "enable clip_distances; {QUAD}
                struct V {{ @builtin(position) p: vec4f, @builtin(clip_distances) c: array<f32, 1> }}
                @vertex fn vs(@builtin(vertex_index) v: u32) -> V {{
                    // Clip everything left of x = 0.
                    let p = corner(v);
                    return V(p, array<f32, 1>(p.x));
                }}
                @fragment fn fs() -> @location(0) vec4f {{ return vec4f(0.0, 0.0, 1.0, 1.0); }}"
            ),
            |x, _| {
                if x < draw::W / 2 {
                    [0, 0, 0, 255]
                } else {
                    [0, 0, 255, 255]
                }
            },
        ),
        (
            Features::SAMPLE_RATE_SHADING,
            format!(
                "{QUAD}
                @vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {{
                    return corner(v);
                }}
                @fragment fn fs(@builtin(sample_index) s: u32) -> @location(0) vec4f {{
                    // One sample per pixel: its index is 0.
                    return vec4f(1.0 - f32(s), 1.0, 1.0, 1.0);
                }}"
            ),
            |_, _| [255, 255, 255, 255],
        ),
    ];
    for (feature, wgsl, expect) in &cases {
        let name = feature.names().join("");
        if refused_for_want_of(&d, *feature, wgsl) {
            continue;
        }
        let px = render(&d, wgsl, 6);
        // Away from the diagonal (x + y = 63) and the clip edge (x = 32), where
        // rasterization rules decide.
        for y in [3u32, 20, 40, 60] {
            for x in [2u32, 12, 28, 36, 50, 61] {
                if (x + y).abs_diff(63) < 2 {
                    continue;
                }
                let got = px[(y * draw::W + x) as usize];
                assert_eq!(got, expect(x, y), "{name} at ({x}, {y})");
            }
        }
    }
}

#[test]
fn dual_source_blending_weighs_the_first_source_by_the_second() {
    let d = device(|supported| supported & SHADER_FEATURES);
    let wgsl = format!(
        "enable dual_source_blending; {QUAD}
        @vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {{
            return corner(v);
        }}
        struct O {{ @location(0) @blend_src(0) a: vec4f, @location(0) @blend_src(1) b: vec4f }}
        @fragment fn fs() -> O {{
            return O(vec4f(1.0, 1.0, 0.5, 1.0), vec4f(0.5, 0.25, 1.0, 1.0));
        }}"
    );
    if refused_for_want_of(&d, Features::DUAL_SOURCE_BLENDING, &wgsl) {
        return;
    }
    // color = src * src1 + dst * (1 - src1); alpha = src.a.
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: Some(BlendState {
            color: BlendComponent {
                src_factor: BlendFactor::Src1,
                dst_factor: BlendFactor::OneMinusSrc1,
                operation: BlendOperation::Add,
            },
            alpha: BlendComponent::REPLACE,
        }),
        write_mask: ColorWrites::ALL,
    })];
    // Cleared to (0, 0, 1, 1): blue survives where src1 leaves room for it.
    let px = render_with(&d, &wgsl, 6, &targets, [0.0, 0.0, 1.0, 1.0]);
    // r = 1 * 0.5 + 0 = 0.5; g = 1 * 0.25 = 0.25; b = 0.5 * 1 + 1 * 0 = 0.5.
    for p in [px[0], px[2080], px[4095]] {
        assert!(
            draw::close(p, [128, 64, 128, 255], 1),
            "dual-source result {p:?}"
        );
    }
}

#[test]
fn multiview_renders_each_view_into_its_layer() {
    let d = device(|supported| supported & SHADER_FEATURES.union(Features::MULTIVIEW));
    let wgsl = format!(
        "{QUAD}
        @vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {{
            return corner(v);
        }}
        @fragment fn fs(@builtin(view_index) view: u32) -> @location(0) vec4f {{
            return vec4f(1.0 - f32(view), f32(view), 0.25, 1.0);
        }}"
    );
    if refused_for_want_of(&d, Features::MULTIVIEW, &wgsl) {
        return;
    }
    let format = TextureFormat::Rgba8Unorm;
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "multiview",
            wgsl: &wgsl,
        })
        .unwrap();
    let mask = std::num::NonZeroU32::new(0b11);
    let targets = [draw::color_target(format)];
    let pipeline = d
        .create_render_pipeline(&RenderPipelineDescriptor {
            multiview_mask: mask,
            ..draw::pipeline_desc(draw::empty_layout(&d), module, &[], &targets)
        })
        .unwrap();
    let texture = d
        .create_texture(&TextureDescriptor {
            label: "layers",
            size: [draw::W, draw::H],
            array_layers: 2,
            format,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(
            texture,
            &TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2Array),
                ..Default::default()
            },
        )
        .unwrap();
    let mut e = draw::encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "multiview",
        color_attachments: &[Some(draw::clear([0.0; 4], view))],
        multiview_mask: mask,
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.set_render_pipeline(pipeline).unwrap();
    e.draw(0..6, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    for (layer, expect) in [(0, [255, 0, 64, 255]), (1, [0, 255, 64, 255])] {
        let bytes = d
            .read_texture(
                texture,
                TexelCopyTextureInfo {
                    array_layer: layer,
                    ..Default::default()
                },
                [draw::W, draw::H],
            )
            .unwrap();
        for px in [0usize, 2080, 4095] {
            let p = &bytes[px * 4..px * 4 + 4];
            assert!(
                draw::close([p[0], p[1], p[2], p[3]], expect, 1),
                "layer {layer}, pixel {px}: {p:?}"
            );
        }
    }
}
