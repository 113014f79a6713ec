//! Override constants on a real device: one module, pipelines with different constants,
//! each result read back; a workgroup size that comes from an override.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{gpu, run_src_dst, src_dst_kernel_with};
use vigil::*;

const AFFINE: &str = r#"
@id(1) override scale: u32 = 2;
override offset: u32;
override negate: bool = false;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&dst) { return; }
    var v = src[i] * scale + offset;
    if negate { v = 0u - v; }
    dst[i] = v;
}
"#;

#[test]
fn one_module_two_pipelines_two_results() {
    let d = gpu();
    let src: Vec<u32> = (0..256).collect();
    let a = src_dst_kernel_with(&d, "affine", AFFINE, &[("offset", 7.0)]).unwrap();
    let b = src_dst_kernel_with(
        &d,
        "affine",
        AFFINE,
        &[("1", 5.0), ("offset", 1.0), ("negate", 1.0)],
    )
    .unwrap();
    let ra = run_src_dst(&d, a, &src, 256, 4);
    let rb = run_src_dst(&d, b, &src, 256, 4);
    for (i, (x, y)) in ra.iter().zip(&rb).enumerate() {
        let i = i as u32;
        assert_eq!(*x, i * 2 + 7, "default scale, offset 7, element {i}");
        assert_eq!(
            *y,
            0u32.wrapping_sub(i * 5 + 1),
            "scale 5, offset 1, negated, element {i}"
        );
    }
}

const WORKGROUP: &str = r#"
override size: u32 = 64;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(size)
fn main(@builtin(local_invocation_index) i: u32, @builtin(num_workgroups) n: vec3<u32>) {
    // Every invocation of the one workgroup writes its index; the rest stays zero.
    dst[i] = i + 1u + src[0] * n.x;
}
"#;

#[test]
fn the_workgroup_size_comes_from_the_override() {
    let d = gpu();
    for size in [32u32, 64, 256] {
        let k =
            src_dst_kernel_with(&d, "workgroup", WORKGROUP, &[("size", f64::from(size))]).unwrap();
        let out = run_src_dst(&d, k, &[0], 512, 1);
        let written = out.iter().take_while(|v| **v != 0).count();
        assert_eq!(written as u32, size, "workgroup of {size}");
        assert!(
            out[..size as usize]
                .iter()
                .enumerate()
                .all(|(i, v)| *v == i as u32 + 1)
        );
    }
    // Larger than the device allows: refused before the driver sees it.
    let limit = d.limits().max_compute_invocations_per_workgroup;
    let e = src_dst_kernel_with(
        &d,
        "workgroup",
        WORKGROUP,
        &[("size", f64::from(limit) * 2.0)],
    )
    .unwrap_err();
    assert_eq!(e.rule(), Rule::WorkgroupLimit, "{e}");
}

const TINT: &str = r#"
override red: f32;
@id(3) override green: f32 = 0.0;
override blue: f32 = 0.0;
@vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {
    let p = array(vec2f(-1.0, -1.0), vec2f(3.0, -1.0), vec2f(-1.0, 3.0));
    return vec4f(p[v] * blue * 0.0 + p[v], 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return vec4f(red, green, blue, 1.0); }
"#;

#[test]
fn vertex_and_fragment_stages_take_their_own_constants() {
    let d = gpu();
    let format = TextureFormat::Rgba8Unorm;
    let module = draw::module(&d, TINT);
    let layout = draw::empty_layout(&d);
    let targets = [draw::color_target(format)];
    let pipeline = |fragment: &[(&str, f64)]| {
        d.create_render_pipeline(&RenderPipelineDescriptor {
            label: "tint",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                // Constants are per stage: the vertex stage does not use `red`, so it
                // needs no value for it.
                constants: &[("blue", 1.0)],
                buffers: &[],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: fragment,
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
    };
    for (constants, expect) in [
        (&[("red", 1.0)][..], [255, 0, 0, 255]),
        (
            &[("red", 0.0), ("3", 1.0), ("blue", 1.0)][..],
            [0, 255, 255, 255],
        ),
    ] {
        let p = pipeline(constants).unwrap();
        let t = draw::target(&d, format, 1);
        let mut e = draw::encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "tint",
            color_attachments: &[Some(draw::clear([0.0; 4], t.view))],
            ..RenderPassDescriptor::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        e.draw(0..3, 0..1).unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = draw::pixels(&d, t.texture);
        assert!(
            px.iter().all(|p| *p == expect),
            "{constants:?}: {:?}",
            px[0]
        );
    }
    // The fragment stage without its required `red` is refused, naming it.
    let e = pipeline(&[("blue", 1.0)]).unwrap_err();
    assert_eq!(e.rule(), Rule::OverrideMissing, "{e}");
    assert!(e.to_string().contains("'red'"), "{e}");
}
