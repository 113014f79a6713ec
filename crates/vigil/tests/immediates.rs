//! Immediate data (push constants) on a real device: each dispatch and draw sees what was
//! set before it, zero where nothing was; read back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{bytes_of, gpu, read_u32, storage_kernel};
use vigil::*;

const AFFINE: &str = "struct P { scale: u32, add: u32, slot: u32 }
    var<immediate> p: P;
    @group(0) @binding(0) var<storage, read_write> out: array<u32>;
    @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
        // Each dispatch writes its own 64-element slot.
        out[p.slot * 64u + id.x] = id.x * p.scale + p.add;
    }";

#[test]
fn each_dispatch_sees_the_immediates_set_before_it() {
    let d = gpu();
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "out",
            size: 4 * 64 * 4,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(out, 0, &bytes_of(&[u32::MAX; 256])).unwrap();
    let (pipeline, group) = storage_kernel(&d, "affine", AFFINE, 12, out);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "imm" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    // Set before the pipeline: kept.
    e.set_immediates(0, &bytes_of(&[2, 1])).unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    // Part of it: scale stays 2.
    e.set_immediates(4, &bytes_of(&[100, 1])).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_immediates(0, &bytes_of(&[3, 7, 2])).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    // A new pass starts from zero: scale 0, add 0, slot 0 — then slot 3 is set alone.
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.set_immediates(8, &bytes_of(&[3])).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let got = read_u32(&d, out, 256);
    for i in 0..64u32 {
        let at = |slot: u32| got[(slot * 64 + i) as usize];
        assert_eq!(at(0), i * 2 + 1, "first dispatch, element {i}");
        assert_eq!(at(1), i * 2 + 100, "second dispatch, element {i}");
        assert_eq!(at(2), i * 3 + 7, "third dispatch, element {i}");
        assert_eq!(at(3), 0, "a new pass starts at zero, element {i}");
    }
}

#[test]
fn vertex_and_fragment_stages_see_the_same_immediates() {
    let d = gpu();
    let wgsl = "struct P { color: vec4f, shift: f32 }
        var<immediate> p: P;
        @vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {
            let c = array(vec2f(-1.0, -1.0), vec2f(3.0, -1.0), vec2f(-1.0, 3.0));
            // Shifted right by `shift`: the left part of the target stays clear.
            return vec4f(c[v].x + p.shift, c[v].y, 0.0, 1.0);
        }
        @fragment fn fs() -> @location(0) vec4f { return p.color; }";
    let format = TextureFormat::Rgba8Unorm;
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "imm draw",
            wgsl,
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "imm draw",
            bind_group_layouts: &[],
            immediate_size: 32,
        })
        .unwrap();
    let targets = [draw::color_target(format)];
    let pipeline = d
        .create_render_pipeline(&draw::pipeline_desc(layout, module, &[], &targets))
        .unwrap();
    let t = draw::target(&d, format, 1);
    let mut e = draw::encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "imm draw",
        color_attachments: &[Some(draw::clear([0.0, 0.0, 0.0, 1.0], t.view))],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.set_render_pipeline(pipeline).unwrap();
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    e.set_immediates(0, &floats(&[0.0, 1.0, 0.0, 1.0, 1.0]))
        .unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = draw::pixels(&d, t.texture);
    for y in [5u32, 30, 60] {
        assert_eq!(
            px[(y * draw::W + 10) as usize],
            [0, 0, 0, 255],
            "left, row {y}"
        );
        assert_eq!(
            px[(y * draw::W + 50) as usize],
            [0, 255, 0, 255],
            "right, row {y}"
        );
    }
}
