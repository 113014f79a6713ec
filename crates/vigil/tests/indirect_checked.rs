//! Indirect dispatch counts are checked on the GPU (validation layer and synchronization
//! validation on): counts within `max_compute_workgroups_per_dimension` dispatch as
//! written, counts past it dispatch nothing, and the pass's pipeline, groups and immediate
//! data are as the application left them after each check. Every result is read back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{bytes_of, gpu, gpu_requiring, gpu_with, read_u32};
use draw::{at, clear, color_target, empty_layout, module, pipeline_desc, pixels, target};
use vigil::*;

/// Each invocation adds the immediate `add` to `sum[0]` and counts itself in `sum[1]`;
/// `args` (group 1) is where the writer kernel puts counts.
const COUNT: &str = r#"
struct P { add: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read_write> sum: array<atomic<u32>, 2>;
@compute @workgroup_size(1)
fn main() {
    atomicAdd(&sum[0], p.add);
    atomicAdd(&sum[1], 1u);
}
"#;

/// Writes the three counts in `counts` into `args` at word `at`: arguments the GPU wrote.
const WRITE_ARGS: &str = r#"
struct W { at: u32, x: u32, y: u32, z: u32 }
var<immediate> w: W;
@group(0) @binding(0) var<storage, read_write> args: array<u32>;
@compute @workgroup_size(1)
fn main() {
    args[w.at] = w.x;
    args[w.at + 1u] = w.y;
    args[w.at + 2u] = w.z;
}
"#;

struct Kit {
    count: ComputePipeline,
    write: ComputePipeline,
    sum: Buffer,
    sum_group: BindGroup,
    args: Buffer,
    args_group: BindGroup,
}

fn storage_layout(
    d: &Device,
    label: &str,
    immediate_size: u32,
) -> (BindGroupLayout, PipelineLayout) {
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label,
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                array: None,
            }],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label,
            bind_group_layouts: &[bgl],
            immediate_size,
        })
        .unwrap();
    (bgl, layout)
}

fn pipeline(d: &Device, label: &str, wgsl: &str, layout: PipelineLayout) -> ComputePipeline {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor { label, wgsl })
        .unwrap();
    d.create_compute_pipeline(&ComputePipelineDescriptor {
        label,
        layout,
        module,
        entry_point: "main",
        constants: &[],
        cache: None,
    })
    .unwrap()
}

/// A group binding the first `size` bytes of `buffer`.
fn group(d: &Device, layout: BindGroupLayout, buffer: Buffer, size: u64) -> BindGroup {
    d.create_bind_group(&BindGroupDescriptor {
        label: "g",
        layout,
        entries: &[BindGroupEntry {
            binding: 0,
            resource: BindingResource::Buffer(BufferBinding {
                buffer,
                offset: 0,
                size: Some(size),
            }),
        }],
    })
    .unwrap()
}

/// `args_bytes` of arguments (STORAGE, so a kernel can write them, and INDIRECT).
fn kit(d: &Device, args_bytes: u64) -> Kit {
    let (count_bgl, count_layout) = storage_layout(d, "count", 4);
    let (write_bgl, write_layout) = storage_layout(d, "write", 16);
    let count = pipeline(d, "count", COUNT, count_layout);
    let write = pipeline(d, "write args", WRITE_ARGS, write_layout);
    let sum = d
        .create_buffer(&BufferDescriptor {
            label: "sum",
            size: 8,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let args = d
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: args_bytes,
            usage: BufferUsages::STORAGE
                | BufferUsages::INDIRECT
                | BufferUsages::COPY_DST
                | BufferUsages::COPY_SRC,
        })
        .unwrap();
    Kit {
        count,
        write,
        sum,
        sum_group: group(d, count_bgl, sum, 8),
        args,
        // The writer reaches the first KiB (all a device with small bindings binds).
        args_group: group(d, write_bgl, args, args_bytes.min(1024)),
    }
}

impl Kit {
    /// Records, in an open compute pass, the writer putting `counts` at byte `offset`.
    fn write_args(&self, e: &mut CommandEncoder, offset: u64, counts: [u32; 3]) {
        e.set_compute_pipeline(self.write).unwrap();
        e.set_bind_group(0, self.args_group, &[]).unwrap();
        let at = u32::try_from(offset / 4).unwrap();
        e.set_immediates(0, &bytes_of(&[at, counts[0], counts[1], counts[2]]))
            .unwrap();
        e.dispatch(1, 1, 1).unwrap();
    }

    /// Records, in an open compute pass, the counting kernel bound with `add`.
    fn bind_count(&self, e: &mut CommandEncoder, add: u32) {
        e.set_compute_pipeline(self.count).unwrap();
        e.set_bind_group(0, self.sum_group, &[]).unwrap();
        e.set_immediates(0, &add.to_le_bytes()).unwrap();
    }

    /// `(sum of adds, invocations)` so far.
    fn read(&self, d: &Device) -> (u32, u32) {
        let w = read_u32(d, self.sum, 2);
        (w[0], w[1])
    }
}

fn encoder(d: &Device) -> CommandEncoder {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "indirect" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e
}

fn submit(d: &Device, mut e: CommandEncoder) {
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn counts_the_gpu_wrote_within_the_limit_dispatch_as_written() {
    let g = gpu();
    let d = &*g;
    let k = kit(d, 64);
    let mut e = encoder(d);
    k.write_args(&mut e, 0, [2, 3, 4]);
    k.bind_count(&mut e, 5);
    e.dispatch_indirect(k.args, 0).unwrap();
    submit(d, e);
    assert_eq!(k.read(d), (24 * 5, 24));
    // The arguments themselves are as the writer left them: the check only reads them.
    assert_eq!(read_u32(d, k.args, 3), vec![2, 3, 4]);
}

#[test]
fn counts_past_the_limit_dispatch_nothing_and_the_pass_goes_on() {
    let g = gpu();
    let d = &*g;
    let max = d.limits().max_compute_workgroups_per_dimension;
    let k = kit(d, 256);
    let mut e = encoder(d);
    // Past the limit in each dimension in turn, all three at u32::MAX, then at the limit
    // exactly in x (which dispatches), each written by the GPU at its own offset.
    let cases: [[u32; 3]; 5] = [
        [max + 1, 1, 1],
        [1, max + 1, 1],
        [1, 1, max + 1],
        [u32::MAX; 3],
        [max, 1, 1],
    ];
    for (i, counts) in cases.iter().enumerate() {
        k.write_args(&mut e, i as u64 * 12, *counts);
    }
    // Each refused dispatch is followed by a valid direct one with another immediate: it
    // must still run with the pass's pipeline, group and immediate data.
    for i in 0..cases.len() {
        k.bind_count(&mut e, 1 << i);
        e.dispatch_indirect(k.args, i as u64 * 12).unwrap();
        e.dispatch(1, 1, 1).unwrap();
    }
    submit(d, e);
    let (sum, invocations) = k.read(d);
    // Refused: nothing; the direct dispatches: one invocation each adding 1 << i; the
    // last indirect one: `max` invocations adding 1 << 4.
    assert_eq!(invocations, 5 + max);
    assert_eq!(sum, 0b11111 + max * 16);
    assert!(!d.is_lost());
}

#[test]
fn many_checked_dispatches_at_unaligned_offsets_each_read_their_own_counts() {
    const N: u32 = 1100;
    let g = gpu();
    let d = &*g;
    let k = kit(d, 4 + u64::from(N) * 12);
    // Counts from the CPU this time, at offsets 4, 16, 28, … (4-aligned, most not
    // aligned to the storage offset alignment): 1,100 dispatches, more than one scratch
    // buffer's 1,024 slots.
    let words: Vec<u32> = std::iter::once(0)
        .chain((0..N).flat_map(|i| [i % 3 + 1, i % 2 + 1, 1]))
        .collect();
    d.write_buffer(k.args, 0, &bytes_of(&words)).unwrap();
    let mut e = encoder(d);
    k.bind_count(&mut e, 1);
    for i in 0..u64::from(N) {
        e.dispatch_indirect(k.args, 4 + i * 12).unwrap();
    }
    submit(d, e);
    let expected: u32 = (0..N).map(|i| (i % 3 + 1) * (i % 2 + 1)).sum();
    assert_eq!(k.read(d), (expected, expected));
}

#[test]
fn arguments_written_earlier_in_the_recording_are_checked_where_they_are_read() {
    // Arguments nothing in the recording wrote before a dispatch are checked in front of
    // the command buffer, once per range however many dispatches read it; once a dispatch
    // of the recording wrote them, later dispatches must see the new counts.
    let g = gpu();
    let d = &*g;
    let k = kit(d, 64);
    d.write_buffer(k.args, 0, &bytes_of(&[2, 1, 1, u32::MAX, 1, 1]))
        .unwrap();
    let mut e = encoder(d);
    k.bind_count(&mut e, 1);
    for _ in 0..100 {
        e.dispatch_indirect(k.args, 0).unwrap();
        e.dispatch_indirect(k.args, 12).unwrap();
    }
    k.write_args(&mut e, 0, [3, 1, 1]);
    k.bind_count(&mut e, 1);
    e.dispatch_indirect(k.args, 0).unwrap();
    e.dispatch_indirect(k.args, 0).unwrap();
    e.dispatch_indirect(k.args, 12).unwrap();
    submit(d, e);
    // 100 x 2 before the write, 2 x 3 after it; u32::MAX counts nothing either time.
    assert_eq!(k.read(d), (206, 206));
}

#[test]
fn arguments_written_in_an_earlier_pass_are_checked_in_front_of_the_reading_pass() {
    // Arguments an earlier pass of the recording wrote are checked in one batch in front
    // of the pass that reads them; arguments that pass writes itself are checked where
    // they are read, and the batch in front must not see those writes.
    let g = gpu();
    let d = &*g;
    let max = d.limits().max_compute_workgroups_per_dimension;
    let k = kit(d, 64);
    let mut e = encoder(d);
    k.write_args(&mut e, 0, [2, 3, 1]);
    k.write_args(&mut e, 12, [max + 1, 1, 1]);
    k.write_args(&mut e, 24, [1, 1, 1]);
    e.end_compute_pass().unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    k.bind_count(&mut e, 1);
    for _ in 0..50 {
        e.dispatch_indirect(k.args, 0).unwrap();
        e.dispatch_indirect(k.args, 12).unwrap();
    }
    e.dispatch_indirect(k.args, 24).unwrap();
    k.write_args(&mut e, 24, [4, 1, 1]);
    k.bind_count(&mut e, 1);
    e.dispatch_indirect(k.args, 24).unwrap();
    e.end_compute_pass().unwrap();
    // A third pass reads what the second wrote (in front of it), then writes and reads
    // again (in place).
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    k.bind_count(&mut e, 1);
    e.dispatch_indirect(k.args, 24).unwrap();
    k.write_args(&mut e, 24, [7, 1, 1]);
    k.bind_count(&mut e, 1);
    e.dispatch_indirect(k.args, 24).unwrap();
    submit(d, e);
    // 50 x 6; past the limit: nothing; 1, then 4; then 4 and 7.
    assert_eq!(k.read(d), (316, 316));
    assert_eq!(
        read_u32(d, k.args, 9),
        vec![2, 3, 1, max + 1, 1, 1, 7, 1, 1]
    );
}

#[test]
fn arguments_an_earlier_command_buffer_of_the_submission_wrote_are_read_as_written() {
    // The second command buffer did not write its arguments, so its check goes in front
    // of it; the first wrote them on the GPU in the same submission: the check must see
    // that write.
    let g = gpu();
    let d = &*g;
    let k = kit(d, 12);
    d.write_buffer(k.args, 0, &bytes_of(&[1, 1, 1])).unwrap();
    let mut writer = encoder(d);
    k.write_args(&mut writer, 0, [5, 2, 1]);
    writer.end_compute_pass().unwrap();
    let mut reader = encoder(d);
    k.bind_count(&mut reader, 1);
    reader.dispatch_indirect(k.args, 0).unwrap();
    reader.end_compute_pass().unwrap();
    d.submit([writer.finish().unwrap(), reader.finish().unwrap()])
        .unwrap();
    assert_eq!(k.read(d), (10, 10));
}

#[test]
fn arguments_a_copy_before_the_pass_wrote_are_checked_as_copied() {
    // The arguments hold counts of one until a copy earlier in the recording (outside any
    // pass) overwrites them: the check must read what the copy wrote, in front of the pass
    // or in place, never what the buffer held when the command buffer began.
    let g = gpu();
    let d = &*g;
    let max = d.limits().max_compute_workgroups_per_dimension;
    let k = kit(d, 32);
    let source = d
        .create_buffer(&BufferDescriptor {
            label: "counts source",
            size: 32,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    for (copied, expected) in [([u32::MAX; 3], 0), ([max + 1, 1, 1], 0), ([2, 2, 1], 4)] {
        let before = k.read(d).1;
        d.write_buffer(k.args, 8, &bytes_of(&[1, 1, 1])).unwrap();
        d.write_buffer(source, 8, &bytes_of(&copied)).unwrap();
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "copied" })
            .unwrap();
        e.copy_buffer_to_buffer(source, 0, k.args, 0, 32).unwrap();
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        k.bind_count(&mut e, 1);
        e.dispatch_indirect(k.args, 8).unwrap();
        submit(d, e);
        assert_eq!(k.read(d).1 - before, expected, "counts {copied:?}");
    }
}

#[test]
fn arguments_beyond_one_storage_binding_are_read_through_a_window() {
    // A device whose storage bindings are at most 1 KiB: a 4 KiB argument buffer cannot be
    // bound whole, so the check binds the aligned stretch that holds the arguments.
    let g = gpu_with(|adapter| {
        let mut limits = adapter.limits().clone();
        limits.max_storage_buffer_binding_size = 1024;
        DeviceDescriptor {
            label: "small bindings".into(),
            required_limits: limits,
            ..DeviceDescriptor::default()
        }
    });
    let d = &*g;
    let max = d.limits().max_compute_workgroups_per_dimension;
    let k = kit(d, 4096);
    let mut words = vec![0u32; 1024];
    words[1000..1003].copy_from_slice(&[3, 1, 2]);
    words[1009..1012].copy_from_slice(&[max + 1, 1, 1]);
    d.write_buffer(k.args, 0, &bytes_of(&words)).unwrap();
    let mut e = encoder(d);
    k.bind_count(&mut e, 1);
    e.dispatch_indirect(k.args, 4000).unwrap();
    e.dispatch_indirect(k.args, 4036).unwrap();
    submit(d, e);
    assert_eq!(k.read(d), (6, 6));
}

#[test]
fn checked_dispatches_in_submissions_one_after_another_reuse_scratch_correctly() {
    // Scratch buffers come back when a submission completes and are leased again: ten
    // frames, each with its own counts, must each dispatch their own.
    let g = gpu();
    let d = &*g;
    let k = kit(d, 12);
    let mut expected = 0;
    for frame in 1..=10u32 {
        let mut e = encoder(d);
        k.write_args(&mut e, 0, [frame, 1, 1]);
        k.bind_count(&mut e, 1);
        e.dispatch_indirect(k.args, 0).unwrap();
        e.end_compute_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        expected += frame;
    }
    assert_eq!(k.read(d), (expected, expected));
}

/// A full-target triangle whose red channel is its instance index (flat), over 255.
const INSTANCE: &str = r#"
struct O { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) i: u32 }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> O {
    let x = f32(i32(v & 1u) * 4 - 1);
    let y = f32(i32(v >> 1u) * 4 - 1);
    return O(vec4<f32>(x, y, 0.5, 1.0), i);
}
@fragment fn fs(o: O) -> @location(0) vec4<f32> {
    return vec4<f32>(f32(o.i) / 255.0, 0.0, 0.0, 1.0);
}
"#;

/// The [`INSTANCE`] pipeline, for targets of `format`.
fn instance_pipeline(d: &Device, format: TextureFormat) -> RenderPipeline {
    let formats = [color_target(format)];
    d.create_render_pipeline(&pipeline_desc(
        empty_layout(d),
        module(d, INSTANCE),
        &[],
        &formats,
    ))
    .unwrap()
}

/// A buffer of `usage` made holding `bytes`.
fn buffer_with(d: &Device, label: &str, bytes: &[u8], usage: BufferUsages) -> Buffer {
    d.create_buffer_init(&BufferInitDescriptor {
        label,
        contents: bytes,
        usage,
    })
    .unwrap()
}

/// An encoder in a render pass that clears `t` blue.
fn blue_pass(d: &Device, t: &draw::Target) -> CommandEncoder {
    let mut e = draw::encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "indirect draws",
        color_attachments: &[Some(clear([0.0, 0.0, 1.0, 1.0], t.view))],
        ..Default::default()
    })
    .unwrap();
    e
}

/// Ends `e`'s pass, submits it and reads `t` back: its pixel at (2, 2), which must be the
/// same at (60, 60).
fn drawn_pixel(d: &Device, mut e: CommandEncoder, t: &draw::Target) -> [u8; 4] {
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(d, t.texture);
    assert_eq!(at(&px, 2, 2), at(&px, 60, 60));
    at(&px, 2, 2)
}

#[test]
fn a_first_instance_read_by_an_indirect_draw_is_defined_without_asking_for_it() {
    // Asked for no feature: INDIRECT_FIRST_INSTANCE comes whenever the adapter has it
    // (lavapipe and the H200 do), so arguments naming instance 7 draw instance 7 instead
    // of being undefined behaviour.
    let g = gpu_with(|adapter| {
        assert!(
            adapter
                .features()
                .contains(Features::INDIRECT_FIRST_INSTANCE),
            "the adapter lacks drawIndirectFirstInstance: {:?}",
            adapter.info()
        );
        DeviceDescriptor {
            label: "no features asked".into(),
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        }
    });
    let d = &*g;
    assert!(d.features().contains(Features::INDIRECT_FIRST_INSTANCE));
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let p = instance_pipeline(d, t.format);
    // 3 vertices, 1 instance, first vertex 0, first instance 7.
    let args = buffer_with(d, "args", &bytes_of(&[3, 1, 0, 7]), BufferUsages::INDIRECT);
    let mut e = blue_pass(d, &t);
    e.set_render_pipeline(p).unwrap();
    e.draw_indirect(args, 0).unwrap();
    assert_eq!(drawn_pixel(d, e, &t), [7, 0, 0, 255]);
}

// The seam is the `test-seams` feature's (the suite's command builds with it).
#[cfg(feature = "test-seams")]
#[test]
fn without_indirect_first_instance_a_draw_naming_another_first_instance_draws_nothing() {
    // On a device without drawIndirectFirstInstance the arguments are copied in front of
    // the pass with the instance count zero when the first instance is not (the seam makes
    // this device check as such a device would): those draws leave the clear colour, the
    // others draw their instances (the last one's index is the red channel).
    let g = gpu();
    g.seams().check_indirect_first_instance();
    assert_eq!(four_indirect_draws(&g, false), CHECKED);
}

/// What [`four_indirect_draws`] leaves where first instances are checked: the draws naming
/// another first instance than 0 draw nothing (the clear colour stays), the others their
/// last instance's index in red.
#[cfg(feature = "test-seams")]
const CHECKED: [[u8; 4]; 4] = [
    [0, 0, 255, 255],
    [1, 0, 0, 255],
    [0, 0, 255, 255],
    [2, 0, 0, 255],
];

/// Four passes, each one indirect draw of a full-target triangle per instance, coloured by
/// its instance index: draws at 0 and 16 of the arguments (3 vertices, 2 instances, first
/// vertex 0, first instance 7 / 0), indexed draws at 32 and 52 (3 indices, 3 instances,
/// first index 0, base vertex 0, first instance 5 / 0). With `bundled`, each pass executes
/// a bundle that draws instead. Each pass's pixel, the same at (2, 2) and (60, 60).
fn four_indirect_draws(d: &Device, bundled: bool) -> [[u8; 4]; 4] {
    let targets: Vec<_> = (0..4)
        .map(|_| target(d, TextureFormat::Rgba8Unorm, 1))
        .collect();
    let p = instance_pipeline(d, targets[0].format);
    let args = d
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: 80,
            usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let words = [3, 2, 0, 7, 3, 2, 0, 0, 3, 3, 0, 0, 5, 3, 3, 0, 0, 0, 0, 0];
    d.write_buffer(args, 0, &bytes_of(&words)).unwrap();
    let indices = d
        .create_buffer(&BufferDescriptor {
            label: "indices",
            size: 12,
            usage: BufferUsages::INDEX | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(indices, 0, &bytes_of(&[0, 1, 2])).unwrap();
    // Draw `i` on `$e`, a pass or a bundle encoder.
    macro_rules! draw {
        ($e:expr, $i:expr) => {{
            $e.set_render_pipeline(p).unwrap();
            if $i < 2 {
                $e.draw_indirect(args, 16 * $i as u64).unwrap();
            } else {
                $e.set_index_buffer(indices, IndexFormat::Uint32, 0, None)
                    .unwrap();
                $e.draw_indexed_indirect(args, 32 + 20 * ($i as u64 - 2))
                    .unwrap();
            }
        }};
    }
    let color_formats = [Some(targets[0].format)];
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "four indirect draws",
        })
        .unwrap();
    for (i, t) in targets.iter().enumerate() {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "four indirect draws",
            color_attachments: &[Some(clear([0.0, 0.0, 1.0, 1.0], t.view))],
            ..Default::default()
        })
        .unwrap();
        if bundled {
            let mut b = d
                .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                    label: "indirect",
                    color_formats: &color_formats,
                    ..Default::default()
                })
                .unwrap();
            draw!(b, i);
            e.execute_bundles(&[b.finish().unwrap()]).unwrap();
        } else {
            draw!(e, i);
        }
        e.end_render_pass().unwrap();
    }
    d.submit([e.finish().unwrap()]).unwrap();
    let mut out = [[0u8; 4]; 4];
    for (o, t) in out.iter_mut().zip(&targets) {
        let px = pixels(d, t.texture);
        assert_eq!(at(&px, 2, 2), at(&px, 60, 60));
        *o = at(&px, 2, 2);
    }
    // The arguments themselves are as written: a check only reads them.
    assert_eq!(read_u32(d, args, 20), words.to_vec());
    out
}

#[test]
fn indirect_draws_from_a_bundle_draw_the_instances_their_arguments_name() {
    // The last instance drawn colours the target: first instance 7 of 2 draws 7 and 8.
    let g = gpu();
    let want = [
        [8, 0, 0, 255],
        [1, 0, 0, 255],
        [7, 0, 0, 255],
        [2, 0, 0, 255],
    ];
    assert_eq!(four_indirect_draws(&g, true), want);
}

// The seam is the `test-seams` feature's (the suite's command builds with it).
#[cfg(feature = "test-seams")]
#[test]
fn a_bundle_s_indirect_draws_are_checked_where_it_is_executed() {
    // As a pass's own indirect draws on a device without drawIndirectFirstInstance: those
    // naming a first instance other than 0 draw nothing.
    let g = gpu();
    g.seams().check_indirect_first_instance();
    assert_eq!(four_indirect_draws(&g, true), CHECKED);
}

/// How [`indexed_draw`] records its one indexed indirect draw.
#[derive(Clone, Copy, Debug)]
enum Indexed {
    /// `draw_indexed_indirect` in the pass.
    Pass,
    /// `draw_indexed_indirect` in a render bundle the pass executes.
    Bundle,
    /// `multi_draw_indexed_indirect` of two draws: an empty one (no instances), then it.
    Multi,
    /// `multi_draw_indexed_indirect_count` of the same two and a third, the count 2 read
    /// from a buffer, at most 3.
    Counted,
}

/// One pass clearing a target blue, then one indexed indirect draw of a full-target
/// triangle per instance (red: the instance index) with the arguments `args` (index
/// count, instances, first index, base vertex, first instance), from six indices
/// `[0, 1, 2, 0, 1, 2]` of `format` bound from index `from` with `size` bytes (`None`: to
/// the end). The pixel at (2, 2), the same as at (60, 60).
fn indexed_draw(
    d: &Device,
    how: Indexed,
    args: [u32; 5],
    format: IndexFormat,
    from: u64,
    size: Option<u64>,
) -> [u8; 4] {
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let p = instance_pipeline(d, t.format);
    // The empty draw, the draw, a third one (five instances) a count of 2 leaves out, and
    // the count.
    let words: Vec<u32> = [[3, 0, 0, 0, 0], args, [3, 5, 0, 0, 0]].concat();
    let usage = BufferUsages::INDIRECT | BufferUsages::COPY_SRC;
    let arguments = buffer_with(d, "args", &bytes_of(&[words, vec![2]].concat()), usage);
    let index_bytes: Vec<u8> = match format {
        IndexFormat::Uint16 => [0u16, 1, 2, 0, 1, 2]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect(),
        IndexFormat::Uint32 => bytes_of(&[0, 1, 2, 0, 1, 2]),
    };
    let indices = buffer_with(d, "indices", &index_bytes, BufferUsages::INDEX);
    let offset = from * format.size();
    let mut e = blue_pass(d, &t);
    match how {
        Indexed::Bundle => {
            let mut b = d
                .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                    label: "indexed",
                    color_formats: &[Some(t.format)],
                    ..Default::default()
                })
                .unwrap();
            b.set_render_pipeline(p).unwrap();
            b.set_index_buffer(indices, format, offset, size).unwrap();
            b.draw_indexed_indirect(arguments, 20).unwrap();
            e.execute_bundles(&[b.finish().unwrap()]).unwrap();
        }
        _ => {
            e.set_render_pipeline(p).unwrap();
            e.set_index_buffer(indices, format, offset, size).unwrap();
            match how {
                Indexed::Pass => e.draw_indexed_indirect(arguments, 20),
                Indexed::Multi => e.multi_draw_indexed_indirect(arguments, 0, 2),
                _ => e.multi_draw_indexed_indirect_count(arguments, 0, arguments, 60, 3),
            }
            .unwrap();
        }
    }
    let pixel = drawn_pixel(d, e, &t);
    // The arguments are as written: the check only reads them.
    assert_eq!(read_u32(d, arguments, 10)[5..], args);
    pixel
}

#[test]
fn indexed_indirect_draws_whose_indices_run_past_the_bound_range_draw_nothing() {
    // Indices past the bound range are undefined behaviour in Vulkan without
    // robustBufferAccess2; WebGPU says such a draw does nothing. The arguments come from a
    // buffer (any u32 a GPU or an application wrote), so vigil checks them on the GPU in
    // front of the pass: in the pass, in a bundle, in a multi-draw and in a counted one.
    let g = gpu_requiring(
        Features::MULTI_DRAW_INDIRECT | Features::MULTI_DRAW_INDIRECT_COUNT,
        "indexed indirect",
    );
    let d = &*g;
    const DRAWN: [u8; 4] = [1, 0, 0, 255];
    const NOTHING: [u8; 4] = [0, 0, 255, 255];
    let max = u32::MAX;
    // (arguments, format, first bound index, bound bytes, what the draw leaves).
    type Case = ([u32; 5], IndexFormat, u64, Option<u64>, [u8; 4]);
    let cases: [Case; 12] = [
        ([3, 2, 0, 0, 0], IndexFormat::Uint32, 0, None, DRAWN),
        ([3, 2, 3, 0, 0], IndexFormat::Uint32, 0, None, DRAWN),
        ([3, 2, 4, 0, 0], IndexFormat::Uint32, 0, None, NOTHING),
        ([7, 2, 0, 0, 0], IndexFormat::Uint32, 0, None, NOTHING),
        ([max, 2, 0, 0, 0], IndexFormat::Uint32, 0, None, NOTHING),
        ([3, 2, max, 0, 0], IndexFormat::Uint32, 0, None, NOTHING),
        ([3, 2, max - 2, 0, 0], IndexFormat::Uint32, 0, None, NOTHING),
        // Three indices bound from the fourth: 0..3 lie within them, 1..4 do not.
        ([3, 2, 0, 0, 0], IndexFormat::Uint32, 3, Some(12), DRAWN),
        ([3, 2, 1, 0, 0], IndexFormat::Uint32, 3, Some(12), NOTHING),
        ([3, 2, 0, 0, 0], IndexFormat::Uint32, 3, None, DRAWN),
        // Six 16-bit indices.
        ([3, 2, 3, 0, 0], IndexFormat::Uint16, 0, None, DRAWN),
        ([3, 2, 4, 0, 0], IndexFormat::Uint16, 0, None, NOTHING),
    ];
    for how in [
        Indexed::Pass,
        Indexed::Bundle,
        Indexed::Multi,
        Indexed::Counted,
    ] {
        for (args, format, from, size, want) in cases {
            let got = indexed_draw(d, how, args, format, from, size);
            assert_eq!(
                got, want,
                "{how:?} {args:?} {format:?} from {from} size {size:?}"
            );
        }
    }
    assert!(!d.is_lost());
}

// The seam is the `test-seams` feature's (the suite's command builds with it).
#[cfg(feature = "test-seams")]
#[test]
fn where_first_instances_are_checked_counted_draws_check_each_draw() {
    // As on a device without INDIRECT_FIRST_INSTANCE (the seam): a counted draw checks each
    // of its draws, and one naming a first instance other than 0 draws nothing. Two draws
    // counted by a buffer holding 2, each a full-target triangle per instance (red: the
    // instance index): the first draws instances 0 and 1, the second names first instance
    // 7 and must leave the first's colour; indexed the same.
    let g = gpu_requiring(
        Features::MULTI_DRAW_INDIRECT | Features::MULTI_DRAW_INDIRECT_COUNT,
        "counted, first instances checked",
    );
    g.seams().check_indirect_first_instance();
    let d = &*g;
    for (args, want) in [
        ([3, 2, 0, 0, 7], [0, 0, 255, 255]),
        ([3, 2, 0, 0, 0], [1, 0, 0, 255]),
    ] {
        // Indexed: the helper's first draw names no instances; its second is `args`.
        let got = indexed_draw(d, Indexed::Counted, args, IndexFormat::Uint32, 0, None);
        assert_eq!(got, want, "indexed {args:?}");
    }
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let p = instance_pipeline(d, t.format);
    // Draw 0: instances 0 and 1; draw 1: two instances from 7; then the count.
    let words = [3, 2, 0, 0, 3, 2, 0, 7, 2];
    let args = buffer_with(d, "args", &bytes_of(&words), BufferUsages::INDIRECT);
    let mut e = blue_pass(d, &t);
    e.set_render_pipeline(p).unwrap();
    e.multi_draw_indirect_count(args, 0, args, 32, 2).unwrap();
    assert_eq!(drawn_pixel(d, e, &t), [1, 0, 0, 255]);
    assert!(!d.is_lost());
}

/// Draw `i` (its first instance) fills pixel `(i % 64, i / 64)` of a 64×64 target with red
/// `i % 256` and green 255, from three indices naming the corners of a triangle that
/// covers that pixel's centre and no other's.
const CELLS: &str = r#"
struct O { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) i: u32 }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> O {
    let corner = vec2<f32>(f32(v == 1u), f32(v == 2u)) * 1.9;
    let p = vec2<f32>(f32(i % 64u), f32(i / 64u)) + corner;
    return O(vec4<f32>(p.x / 32.0 - 1.0, 1.0 - p.y / 32.0, 0.5, 1.0), i);
}
@fragment fn fs(o: O) -> @location(0) vec4<f32> {
    return vec4<f32>(f32(o.i % 256u) / 255.0, 1.0, 0.0, 1.0);
}
"#;

#[test]
fn indexed_indirect_draws_by_the_thousand_are_each_checked_and_drawn() {
    // 1,500 indexed indirect draws from one buffer of commands, one after another: their
    // checks go in runs (one dispatch checks many, more than a workgroup's worth, and the
    // runs break where a scratch buffer's 1,024 slots end), and a multi-draw of them reads
    // its checked copies in native multi-draws. Every draw's own pixel is read back: draws
    // whose indices run past the three bound draw nothing, the rest draw their instance.
    let g = gpu_requiring(
        Features::MULTI_DRAW_INDIRECT
            | Features::MULTI_DRAW_INDIRECT_COUNT
            | Features::INDIRECT_FIRST_INSTANCE,
        "indexed indirect by the thousand",
    );
    let d = &*g;
    const DRAWS: u32 = 1500;
    let past = |i: u32| i % 7 == 3 || i % 11 == 5;
    let words: Vec<u32> = (0..DRAWS)
        .flat_map(|i| match (i % 7 == 3, i % 11 == 5) {
            (true, _) => [3, 1, 1, 0, i],
            (_, true) => [u32::MAX, 1, 0, 0, i],
            _ => [3, 1, 0, 0, i],
        })
        .chain([1000])
        .collect();
    let args = buffer_with(d, "args", &bytes_of(&words), BufferUsages::INDIRECT);
    let count_at = u64::from(DRAWS) * 20;
    let indices = buffer_with(d, "indices", &bytes_of(&[0, 1, 2]), BufferUsages::INDEX);
    let t = target(d, TextureFormat::Rgba8Unorm, 1);
    let formats = [color_target(t.format)];
    let p = d
        .create_render_pipeline(&pipeline_desc(
            empty_layout(d),
            module(d, CELLS),
            &[],
            &formats,
        ))
        .unwrap();
    for how in [
        Indexed::Pass,
        Indexed::Bundle,
        Indexed::Multi,
        Indexed::Counted,
    ] {
        let mut e = blue_pass(d, &t);
        let drawn = match how {
            Indexed::Bundle => {
                let mut b = d
                    .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                        label: "cells",
                        color_formats: &[Some(t.format)],
                        ..Default::default()
                    })
                    .unwrap();
                b.set_render_pipeline(p).unwrap();
                b.set_index_buffer(indices, IndexFormat::Uint32, 0, None)
                    .unwrap();
                for i in 0..u64::from(DRAWS) {
                    b.draw_indexed_indirect(args, 20 * i).unwrap();
                }
                e.execute_bundles(&[b.finish().unwrap()]).unwrap();
                DRAWS
            }
            _ => {
                e.set_render_pipeline(p).unwrap();
                e.set_index_buffer(indices, IndexFormat::Uint32, 0, None)
                    .unwrap();
                match how {
                    Indexed::Pass => {
                        for i in 0..u64::from(DRAWS) {
                            e.draw_indexed_indirect(args, 20 * i).unwrap();
                        }
                        DRAWS
                    }
                    Indexed::Multi => {
                        e.multi_draw_indexed_indirect(args, 0, DRAWS).unwrap();
                        DRAWS
                    }
                    _ => {
                        // The count the buffer holds: 1,000 of at most 1,000.
                        e.multi_draw_indexed_indirect_count(args, 0, args, count_at, 1000)
                            .unwrap();
                        1000
                    }
                }
            }
        };
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(d, t.texture);
        for i in 0..64 * 64 {
            let want = if i < drawn && !past(i) {
                [(i % 256) as u8, 255, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            assert_eq!(at(&px, i % 64, i / 64), want, "{how:?} draw {i}");
        }
    }
    assert!(!d.is_lost());
}
