//! Render bundle rules with exact error kinds, and what executing a bundle records, on
//! the deterministic test backend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/quads.rs"]
#[macro_use]
mod quads;
#[path = "common/rules.rs"]
mod rules;

use quads::*;
use rules::*;
use vigil::hal_test::TestCommand;
use vigil::*;

/// A scene of four quads: a pipeline reading one uniform group, four groups, two vertex
/// and two index buffers.
struct Scene {
    pipeline: RenderPipeline,
    groups: Vec<BindGroup>,
    vbs: [Buffer; 2],
    ibs: [Buffer; 2],
    bgl: BindGroupLayout,
    uniforms: Buffer,
}

fn scene(d: &TDevice, format: TextureFormat, immediates: u32) -> Scene {
    let uniforms = buffer(
        d,
        "uniforms",
        1024,
        BufferUsages::UNIFORM | BufferUsages::COPY_DST,
    );
    let (bgl, groups) = quad_groups(d, uniforms, false);
    let pipeline = quads_pipeline(d, quads_layout(d, &[bgl], immediates), QUADS, format);
    let vb = || {
        buffer(
            d,
            "corners",
            32,
            BufferUsages::VERTEX | BufferUsages::COPY_DST,
        )
    };
    let ib = || buffer(d, "indices", 12, BufferUsages::INDEX);
    Scene {
        pipeline,
        groups,
        vbs: [vb(), vb()],
        ibs: [ib(), ib()],
        bgl,
        uniforms,
    }
}

fn bundle_desc(formats: &[Option<TextureFormat>]) -> RenderBundleEncoderDescriptor<'_> {
    RenderBundleEncoderDescriptor {
        label: "quads",
        color_formats: formats,
        ..Default::default()
    }
}

const RGBA: &[Option<TextureFormat>] = &[Some(TextureFormat::Rgba8Unorm)];

/// A bundle encoder for the scene's target with the scene's pipeline set.
fn drawing_bundle(d: &TDevice, s: &Scene) -> RenderBundleEncoder<TestApi> {
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    b.set_render_pipeline(s.pipeline).unwrap();
    b
}

/// The scene's four draws recorded into a bundle.
fn quads_bundle(d: &TDevice, s: &Scene) -> RenderBundle {
    let mut b = drawing_bundle(d, s);
    for q in 0..4 {
        quad!(b, s, q);
    }
    b.finish().unwrap()
}

/// A command buffer whose one render pass, on `view`, executes `bundles`.
fn executing(d: &TDevice, view: TextureView, bundles: &[RenderBundle]) -> CommandBuffer<TestApi> {
    let mut e = encoder(d);
    begin_pass(&mut e, view);
    e.execute_bundles(bundles).unwrap();
    e.end_render_pass().unwrap();
    e.finish().unwrap()
}

/// Executes `bundle` in a new pass on `view`, which must be refused as naming a stale
/// handle; the refusal's message.
fn stale_execution(d: &TDevice, view: TextureView, bundle: RenderBundle) -> String {
    let mut e = encoder(d);
    begin_pass(&mut e, view);
    expect_rule(e.execute_bundles(&[bundle]), Rule::HandleStale).to_string()
}

/// Submits [`executing`]'s command buffer.
fn submit_executing(d: &TDevice, view: TextureView, bundles: &[RenderBundle]) {
    d.submit([executing(d, view, bundles)]).unwrap();
}

/// The submitted commands of the pass, from its pipeline on (what the pass's calls or
/// its bundles recorded), up to its end, as text (`TestCommand` has no `PartialEq`).
fn pass_commands(d: &TDevice) -> Vec<String> {
    let all = last_commands(d);
    let start = all
        .iter()
        .position(|c| matches!(c, TestCommand::SetRenderPipeline { .. }))
        .unwrap();
    let end = all
        .iter()
        .position(|c| matches!(c, TestCommand::EndRenderPass))
        .unwrap();
    all[start..end].iter().map(|c| format!("{c:?}")).collect()
}

#[test]
fn a_bundle_records_the_native_commands_of_the_same_calls_in_a_pass() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(&d, [16, 16]);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_render_pipeline(s.pipeline).unwrap();
    for q in 0..4 {
        quad!(e, s, q);
    }
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let inline = pass_commands(&d);
    assert_eq!(
        inline
            .iter()
            .filter(|c| c.starts_with("DrawIndexed("))
            .count(),
        4
    );

    let bundle = quads_bundle(&d, &s);
    for _ in 0..2 {
        submit_executing(&d, view, &[bundle]);
        assert_eq!(pass_commands(&d), inline);
    }
}

#[test]
fn a_bundle_with_dynamic_offsets_binds_each_draw_s_offsets() {
    let d = device();
    let uniforms = buffer(&d, "uniforms", 1024, BufferUsages::UNIFORM);
    // A group whose uniform binding moves by a dynamic offset.
    let (bgl, dynamic) = quad_groups(&d, uniforms, true);
    let g = dynamic[0];
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let p = quads_pipeline(
        &d,
        quads_layout(&d, &[bgl], 0),
        QUADS,
        TextureFormat::Rgba8Unorm,
    );
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    b.set_render_pipeline(p).unwrap();
    b.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    b.set_index_buffer(s.ibs[0], IndexFormat::Uint16, 0, None)
        .unwrap();
    for q in 0..4u32 {
        b.set_bind_group(0, g, &[q * 256]).unwrap();
        b.draw_indexed(0..6, 0, 0..1).unwrap();
    }
    // An offset past the buffer is refused as in a pass.
    expect_rule(b.set_bind_group(0, g, &[1024]), Rule::DynamicOffsetRange);
    assert!(b.is_poisoned());
    expect_rule(b.finish(), Rule::EncoderPoisoned);

    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    b.set_render_pipeline(p).unwrap();
    b.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    b.set_index_buffer(s.ibs[0], IndexFormat::Uint16, 0, None)
        .unwrap();
    for q in 0..4u32 {
        b.set_bind_group(0, g, &[q * 256]).unwrap();
        b.draw_indexed(0..6, 0, 0..1).unwrap();
    }
    let bundle = b.finish().unwrap();
    let view = target_view(&d, [16, 16]);
    submit_executing(&d, view, &[bundle]);
    let offsets: Vec<Vec<u32>> = last_commands(&d)
        .into_iter()
        .filter_map(|c| match c {
            TestCommand::SetBindGroup { offsets, .. } => Some(offsets),
            _ => None,
        })
        .collect();
    assert_eq!(offsets, vec![vec![0], vec![256], vec![512], vec![768]]);
}

#[test]
fn bundle_descriptors_are_checked() {
    let d = device();
    expect_rule(
        d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
            sample_count: 3,
            ..bundle_desc(RGBA)
        }),
        Rule::BundleSampleCount,
    );
    expect_rule(
        d.create_render_bundle_encoder(&bundle_desc(&[])),
        Rule::BundleAttachments,
    );
    expect_rule(
        d.create_render_bundle_encoder(&bundle_desc(&[None])),
        Rule::BundleAttachments,
    );
    expect_rule(
        d.create_render_bundle_encoder(&bundle_desc(&[Some(TextureFormat::Depth32Float)])),
        Rule::BundleAttachments,
    );
    expect_rule(
        d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
            depth_stencil_format: Some(TextureFormat::Rgba8Unorm),
            ..bundle_desc(RGBA)
        }),
        Rule::BundleAttachments,
    );
    let too_many = vec![Some(TextureFormat::Rgba8Unorm); 64];
    expect_rule(
        d.create_render_bundle_encoder(&bundle_desc(&too_many)),
        Rule::BundleAttachments,
    );
    expect_rule(
        d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
            multiview_mask: std::num::NonZeroU32::new(0b11),
            ..bundle_desc(RGBA)
        }),
        Rule::MultiviewFeature,
    );
    // A depth-only bundle is fine.
    d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
        depth_stencil_format: Some(TextureFormat::Depth32Float),
        ..bundle_desc(&[])
    })
    .unwrap();
}

#[test]
fn a_bundle_checks_its_calls_as_a_pass_does() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    // A pipeline for other targets.
    let other = scene(&d, TextureFormat::Bgra8Unorm, 0);
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    expect_rule(b.set_render_pipeline(other.pipeline), Rule::PipelineTargets);
    expect_rule(b.finish(), Rule::EncoderPoisoned);

    // Drawing with nothing set.
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    expect_rule(b.draw(0..3, 0..1), Rule::PipelineNotSet);
    expect_rule(b.draw(0..3, 0..1), Rule::EncoderPoisoned);

    // An index range past the index buffer.
    let mut b = drawing_bundle(&d, &s);
    b.set_bind_group(0, s.groups[0], &[]).unwrap();
    b.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    b.set_index_buffer(s.ibs[0], IndexFormat::Uint16, 0, None)
        .unwrap();
    expect_rule(b.draw_indexed(0..7, 0, 0..1), Rule::IndexRange);

    // A buffer without VERTEX usage.
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    expect_rule(
        b.set_vertex_buffer(0, s.ibs[0], 0, None),
        Rule::VertexBufferUsage,
    );

    // A GPU-pointer pipeline (its root is set per draw, which a bundle does not record).
    let d = device_with(Features::BUFFER_DEVICE_ADDRESS);
    let pointer = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "pointer",
            vertex_glsl: "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { vec2 p[]; };
VIGIL_ROOT(Root);
void main() { gl_Position = vec4(vigil.root.p[gl_VertexIndex], 0.0, 1.0); }
",
            fragment: Some((
                "layout(location = 0) out vec4 c; void main() { c = vec4(1.0); }",
                &[Some(ColorTargetState {
                    format: TextureFormat::Rgba8Unorm,
                    blend: None,
                    write_mask: ColorWrites::ALL,
                })],
            )),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap();
    let mut b = d.create_render_bundle_encoder(&bundle_desc(RGBA)).unwrap();
    let err = expect_rule(b.set_render_pipeline(pointer), Rule::BundlePipeline);
    assert!(err.to_string().contains("GPU-pointer"), "{err}");
    assert!(b.is_poisoned());
}

#[test]
fn a_bundle_s_immediate_data_is_pushed_as_a_pass_pushes_it() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 16);
    let view = target_view(&d, [16, 16]);
    // Pushed at a draw after it changes; zeros where unset, as in a pass.
    macro_rules! frame {
        ($e:expr) => {
            for q in 0..4usize {
                quad!($e, s, q);
                $e.set_immediates(4 * q as u32, &[q as u8 + 1; 4]).unwrap();
                $e.draw_indexed(0..6, 0, 0..1).unwrap();
            }
        };
    }
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_render_pipeline(s.pipeline).unwrap();
    frame!(e);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let inline = pass_commands(&d);
    assert_eq!(
        inline
            .iter()
            .filter(|c| c.starts_with("SetImmediates"))
            .count(),
        5
    );

    let mut b = drawing_bundle(&d, &s);
    frame!(b);
    let bundle = b.finish().unwrap();
    submit_executing(&d, view, &[bundle]);
    assert_eq!(pass_commands(&d), inline);
}

#[test]
fn executing_a_bundle_is_checked() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let bundle = quads_bundle(&d, &s);
    let view = target_view(&d, [16, 16]);

    // Outside a render pass.
    let mut e = encoder(&d);
    expect_rule(e.execute_bundles(&[bundle]), Rule::PassNotOpen);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.execute_bundles(&[bundle]), Rule::PassNotOpen);

    // In a pass of other formats.
    let bgra = d
        .create_texture(&TextureDescriptor {
            label: "bgra",
            size: [16, 16],
            format: TextureFormat::Bgra8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .unwrap();
    let bgra = d
        .create_texture_view(bgra, &TextureViewDescriptor::default())
        .unwrap();
    let mut e = encoder(&d);
    begin_pass(&mut e, bgra);
    expect_rule(e.execute_bundles(&[bundle]), Rule::BundleTargets);

    // The pass's pipeline and bindings are gone after the bundles.
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_render_pipeline(s.pipeline).unwrap();
    e.set_bind_group(0, s.groups[0], &[]).unwrap();
    e.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    e.set_index_buffer(s.ibs[0], IndexFormat::Uint16, 0, None)
        .unwrap();
    e.draw_indexed(0..6, 0, 0..1).unwrap();
    e.execute_bundles(&[bundle, bundle]).unwrap();
    expect_rule(e.draw(0..3, 0..1), Rule::PipelineNotSet);

    // ... and set again, the pass draws on.
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.execute_bundles(&[]).unwrap();
    e.execute_bundles(&[bundle]).unwrap();
    e.set_render_pipeline(s.pipeline).unwrap();
    e.set_bind_group(0, s.groups[1], &[]).unwrap();
    e.set_vertex_buffer(0, s.vbs[1], 0, None).unwrap();
    expect_rule(e.draw_indexed(0..6, 0, 0..1), Rule::IndexBufferNotSet);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.execute_bundles(&[bundle]).unwrap();
    e.set_render_pipeline(s.pipeline).unwrap();
    e.set_bind_group(0, s.groups[1], &[]).unwrap();
    e.set_vertex_buffer(0, s.vbs[1], 0, None).unwrap();
    e.set_index_buffer(s.ibs[1], IndexFormat::Uint16, 0, None)
        .unwrap();
    e.draw_indexed(0..6, 0, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let draws = last_commands(&d)
        .iter()
        .filter(|c| matches!(c, TestCommand::DrawIndexed { .. }))
        .count();
    assert_eq!(draws, 5);
}

#[test]
fn a_bundle_naming_a_destroyed_object_is_refused_and_keeps_its_natives() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(&d, [16, 16]);
    let bundle = quads_bundle(&d, &s);
    // Native objects of the caller's (the device also keeps some for reuse).
    let natives = || d.live_native_objects() - d.pooled_native_objects();
    let live = natives();
    d.destroy_buffer(s.vbs[1]).unwrap();
    // The bundle holds the buffer's native object.
    assert_eq!(natives(), live);
    let err = stale_execution(&d, view, bundle);
    assert!(err.contains("corners"), "{err}");
    d.destroy_render_bundle(bundle).unwrap();
    d.poll().unwrap();
    assert_eq!(natives(), live - 1);
    // A destroyed bundle's handle is stale.
    stale_execution(&d, view, bundle);
    expect_rule(d.destroy_render_bundle(bundle), Rule::HandleStale);
}

#[test]
fn a_bundle_s_buffers_join_the_pass_s_usage_scope() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let bundle = quads_bundle(&d, &s);
    let view = target_view(&d, [16, 16]);
    // A group the pass's own draw writes through its fragment shader, over a buffer the
    // bundle reads as vertices.
    let both = buffer(&d, "both", 32, BufferUsages::VERTEX | BufferUsages::STORAGE);
    let wgsl = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(p, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { out[0] = 1u; return vec4<f32>(1.0); }
"#;
    let bgl = layout(
        &d,
        &[entry(
            0,
            ShaderStages::FRAGMENT,
            buf_ty(BufferBindingType::Storage { read_only: false }, false),
        )],
    );
    let g = group(&d, bgl, &[(0, whole(both))]).unwrap();
    let writer = quads_pipeline(
        &d,
        quads_layout(&d, &[bgl], 0),
        wgsl,
        TextureFormat::Rgba8Unorm,
    );
    // A bundle drawing from `both` as vertices.
    let mut b = drawing_bundle(&d, &s);
    b.set_bind_group(0, s.groups[0], &[]).unwrap();
    b.set_vertex_buffer(0, both, 0, None).unwrap();
    b.draw(0..3, 0..1).unwrap();
    let reader = b.finish().unwrap();

    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_render_pipeline(writer).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.execute_bundles(&[bundle]).unwrap();
    expect_rule(e.execute_bundles(&[reader]), Rule::PassUsageConflict);
    let _ = s.bgl;
}

#[test]
fn a_copy_into_a_bundle_s_group_is_ordered_before_the_pass_that_executes_it() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let bundle = quads_bundle(&d, &s);
    let view = target_view(&d, [16, 16]);
    let src = buffer(&d, "src", 1024, BufferUsages::COPY_SRC);
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(src, 0, s.uniforms, 0, 1024)
        .unwrap();
    begin_pass(&mut e, view);
    e.execute_bundles(&[bundle]).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    // Between them, a barrier from the copy to the stages that read the groups' uniforms.
    let shaders = hal_test::Stages::VERTEX_SHADER | hal_test::Stages::FRAGMENT_SHADER;
    assert!(
        copy_ordered_before_pass(&d, shaders),
        "no barrier orders the copy before the bundle's reads"
    );
}

/// Whether the last submission has, between its buffer copy and its render pass, a
/// barrier from the copy to (at least) stages `dst`.
fn copy_ordered_before_pass(d: &TDevice, dst: hal_test::Stages) -> bool {
    let all = last_commands(d);
    let copy = all
        .iter()
        .position(|c| matches!(c, TestCommand::CopyBuffer { .. }))
        .unwrap();
    let pass = all
        .iter()
        .position(|c| matches!(c, TestCommand::BeginRenderPass(_)))
        .unwrap();
    all[copy..pass].iter().any(|c| {
        matches!(
            c,
            TestCommand::Barrier(b)
                if b.src.contains(hal_test::Stages::TRANSFER) && b.dst.contains(dst)
        )
    })
}

#[test]
fn a_submission_that_executed_a_bundle_is_refused_once_the_bundle_names_a_destroyed_object() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(&d, [16, 16]);
    let bundle = quads_bundle(&d, &s);
    // A group's member destroyed after the bundle was finished: its executions are refused.
    let cb = executing(&d, view, &[bundle]);
    d.destroy_buffer(s.uniforms).unwrap();
    let err = expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    assert!(err.to_string().contains("uniforms"), "{err}");
    let err = stale_execution(&d, view, bundle);
    assert!(err.contains("uniforms"), "{err}");
}

#[test]
fn work_in_flight_holds_what_its_bundles_name() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let natives = || d.live_native_objects() - d.pooled_native_objects();
    let before = natives();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(&d, [16, 16]);
    let bundle = quads_bundle(&d, &s);
    let serial = d.submit([executing(&d, view, &[bundle])]).unwrap();
    let live = natives();
    // The bundle and everything it names destroyed while the work is in flight.
    d.destroy_render_bundle(bundle).unwrap();
    for &g in &s.groups {
        d.destroy_bind_group(g).unwrap();
    }
    for b in s.vbs.iter().chain(&s.ibs).chain([&s.uniforms]) {
        d.destroy_buffer(*b).unwrap();
    }
    d.destroy_render_pipeline(s.pipeline).unwrap();
    d.poll().unwrap();
    assert_eq!(natives(), live, "released while in flight");
    d.test_backend().complete_through(serial);
    d.poll().unwrap();
    assert!(natives() < live);
    // The pipeline's layout, module and group layout, and the target, are still live.
    assert!(natives() > before);
}

/// The scene's first two quads drawn indirectly (one plain, one indexed) from `args`, into
/// encoder or bundle `$e`.
macro_rules! indirect_quads {
    ($e:expr, $s:expr, $args:expr) => {{
        $e.set_bind_group(0, $s.groups[0], &[]).unwrap();
        $e.set_vertex_buffer(0, $s.vbs[0], 0, None).unwrap();
        $e.draw_indirect($args, 0).unwrap();
        $e.set_bind_group(0, $s.groups[1], &[]).unwrap();
        $e.set_index_buffer($s.ibs[0], IndexFormat::Uint16, 0, None)
            .unwrap();
        $e.draw_indexed_indirect($args, 16).unwrap();
    }};
}

/// The scene, a target view and an argument buffer for [`indirect_quads!`].
fn indirect_scene(d: &TDevice) -> (Scene, TextureView, Buffer) {
    let s = scene(d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(d, [16, 16]);
    let args = buffer(
        d,
        "args",
        64,
        BufferUsages::INDIRECT | BufferUsages::COPY_DST,
    );
    (s, view, args)
}

/// [`indirect_quads!`] recorded into a bundle.
fn indirect_bundle(d: &TDevice, s: &Scene, args: Buffer) -> RenderBundle {
    let mut b = drawing_bundle(d, s);
    indirect_quads!(b, s, args);
    b.finish().unwrap()
}

#[test]
fn a_bundle_s_indirect_draws_record_what_the_pass_s_own_record() {
    let d = device();
    let (s, view, args) = indirect_scene(&d);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_render_pipeline(s.pipeline).unwrap();
    indirect_quads!(e, s, args);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let inline = pass_commands(&d);
    assert_eq!(
        inline
            .iter()
            .filter(|c| c.starts_with("DrawIndirect") || c.starts_with("DrawIndexedIndirect"))
            .count(),
        2,
        "{inline:?}"
    );

    // Refused as in a pass: an offset past the buffer's end, a buffer without `INDIRECT`.
    for (buffer, offset, rule) in [
        (args, 60, Rule::BufferRange),
        (s.uniforms, 0, Rule::IndirectUsage),
    ] {
        let mut bad = drawing_bundle(&d, &s);
        bad.set_bind_group(0, s.groups[0], &[]).unwrap();
        bad.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
        expect_rule(bad.draw_indirect(buffer, offset), rule);
    }

    // The indexed draw reads a checked copy of its arguments (its indices checked against
    // the bound range on the GPU in front of the pass): a slot of a scratch buffer, which
    // may be another for each submission.
    let id = |c: &str| c.split(['(', ',']).nth(1).map(str::to_owned);
    let plain = inline.iter().find(|c| c.starts_with("DrawIndirect"));
    let indexed = inline.iter().find(|c| c.starts_with("DrawIndexedIndirect"));
    assert_ne!(plain.and_then(|c| id(c)), indexed.and_then(|c| id(c)));
    let checked = |cmds: Vec<String>| -> Vec<String> {
        cmds.into_iter()
            .map(|c| {
                if c.starts_with("DrawIndexedIndirect") {
                    "DrawIndexedIndirect(checked copy)".to_owned()
                } else {
                    c
                }
            })
            .collect()
    };
    let bundle = indirect_bundle(&d, &s, args);
    submit_executing(&d, view, &[bundle]);
    assert_eq!(checked(pass_commands(&d)), checked(inline.clone()));

    // The argument buffer is named: destroyed, the bundle's executions are refused.
    d.destroy_buffer(args).unwrap();
    let err = stale_execution(&d, view, bundle);
    assert!(err.contains("args"), "{err}");
}

#[test]
fn arguments_copied_before_the_pass_are_ordered_before_the_bundle_s_indirect_reads() {
    let d = device();
    let (s, view, args) = indirect_scene(&d);
    let bundle = indirect_bundle(&d, &s, args);
    let src = buffer(&d, "src", 64, BufferUsages::COPY_SRC);
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(src, 0, args, 0, 64).unwrap();
    begin_pass(&mut e, view);
    e.execute_bundles(&[bundle]).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert!(
        copy_ordered_before_pass(&d, hal_test::Stages::DRAW_INDIRECT),
        "no barrier orders the copy before the bundle's indirect reads"
    );
}

#[test]
fn a_bundle_records_its_debug_groups_and_markers_where_it_is_executed() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let view = target_view(&d, [16, 16]);
    let mut b = drawing_bundle(&d, &s);
    b.push_debug_group("quads").unwrap();
    quad!(b, s, 0);
    b.insert_debug_marker("between").unwrap();
    quad!(b, s, 1);
    b.pop_debug_group().unwrap();
    let bundle = b.finish().unwrap();
    submit_executing(&d, view, &[bundle]);
    let cmds = pass_commands(&d);
    let debug: Vec<&str> = cmds
        .iter()
        .map(String::as_str)
        .filter(|c| c.contains("Debug") || c.starts_with("DrawIndexed"))
        .collect();
    assert_eq!(
        debug,
        [
            r#"PushDebugGroup("quads")"#,
            "DrawIndexed(0..6, 0, 0..1)",
            r#"InsertDebugMarker("between")"#,
            "DrawIndexed(0..6, 0, 0..1)",
            "PopDebugGroup",
        ]
    );
}

#[test]
fn a_bundle_closes_the_debug_groups_it_opens() {
    let d = device();
    let s = scene(&d, TextureFormat::Rgba8Unorm, 0);
    let mut b = drawing_bundle(&d, &s);
    let err = expect_rule(b.pop_debug_group(), Rule::DebugGroupEmpty);
    assert!(err.message().contains("render bundle"), "{err}");
    let mut b = drawing_bundle(&d, &s);
    b.push_debug_group("quads").unwrap();
    quad!(b, s, 0);
    let err = expect_rule(b.finish(), Rule::DebugGroupOpen);
    assert!(err.message().contains("the render bundle"), "{err}");
}
