//! The defect classes the API-sequence fuzzer found (see `vigil-fuzz` and
//! docs/reliability.md), one rule test each, on the deterministic test backend: wrapping
//! arithmetic, destroy while recording, barriers that did not cover what follows, unset
//! dynamic state, unchecked ranges and caps, and progress inside a submission.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Inverted ranges are what some of these tests pass on purpose.
#![allow(clippy::reversed_empty_ranges)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::hal_test::{Stages, TestCommand};
use vigil::*;

const TRIANGLE: &str = r#"
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(p, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
"#;

const POS: [VertexAttribute; 1] = [VertexAttribute {
    format: VertexFormat::Float32x2,
    offset: 0,
    shader_location: 0,
}];

fn pipeline_with(d: &TDevice, attributes: &[VertexAttribute]) -> Result<RenderPipeline> {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "tri",
            wgsl: TRIANGLE,
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "tri",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .unwrap();
    let buffers = [VertexBufferLayout {
        array_stride: 8,
        step_mode: VertexStepMode::Vertex,
        attributes,
    }];
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    d.create_render_pipeline(&RenderPipelineDescriptor {
        label: "tri",
        layout,
        vertex: VertexState {
            module,
            entry_point: "vs",
            constants: &[],
            buffers: &buffers,
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
}

/// Native objects not in the device's reuse pools: the users' objects and the command
/// pools of open encoders and unsubmitted command buffers (which return to the reuse pools
/// when those go).
fn own_objects(d: &TDevice) -> u64 {
    d.live_native_objects() - d.pooled_native_objects()
}

// Class 1: arithmetic that wrapped.

#[test]
fn view_ranges_that_would_wrap_are_refused() {
    let d = device();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "t",
            size: [16, 16],
            mip_level_count: 4,
            array_layers: 2,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap();
    let view = |desc: TextureViewDescriptor<'_>| d.create_texture_view(t, &desc);
    expect_rule(
        view(TextureViewDescriptor {
            base_mip_level: 1,
            mip_level_count: Some(u32::MAX),
            ..Default::default()
        }),
        Rule::ViewMipRange,
    );
    expect_rule(
        view(TextureViewDescriptor {
            dimension: Some(TextureViewDimension::D2Array),
            base_array_layer: 1,
            array_layer_count: Some(u32::MAX),
            ..Default::default()
        }),
        Rule::ViewLayerRange,
    );
}

#[test]
fn texel_layouts_that_would_overflow_are_refused() {
    let d = device();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "t",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::COPY_DST | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .unwrap();
    let data = [0u8; 64];
    let write = |layout: TexelCopyBufferLayout| {
        d.write_texture(t, TexelCopyTextureInfo::default(), &data, layout, [4, 4, 1])
    };
    expect_rule(
        write(TexelCopyBufferLayout {
            offset: u64::MAX - 3,
            bytes_per_row: 16,
            rows_per_image: None,
        }),
        Rule::CopyLayout,
    );
    expect_rule(
        write(TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: u32::MAX,
            rows_per_image: Some(u32::MAX),
        }),
        Rule::TextureWriteData,
    );
    let b = buffer(&d, "b", 256, BufferUsages::COPY_SRC);
    let mut e = encoder(&d);
    expect_rule(
        e.copy_buffer_to_texture(
            b,
            TexelCopyBufferLayout {
                offset: u64::MAX - 255,
                bytes_per_row: 256,
                rows_per_image: None,
            },
            t,
            TexelCopyTextureInfo::default(),
            [4, 4, 1],
        ),
        Rule::CopyLayout,
    );
}

#[test]
fn a_vertex_attribute_past_u64_is_refused() {
    let d = device();
    let far = [VertexAttribute {
        offset: u64::MAX - 2,
        ..POS[0]
    }];
    expect_rule(pipeline_with(&d, &far), Rule::VertexLayout);
}

#[test]
fn inverted_draw_ranges_are_refused_before_they_reach_the_driver() {
    let d = device();
    let view = target_view(&d, [8, 8]);
    let p = pipeline_with(&d, &POS).unwrap();
    let vb = buffer(&d, "vb", 64, BufferUsages::VERTEX);
    let ib = buffer(&d, "ib", 64, BufferUsages::INDEX);
    let attempt = |f: &dyn Fn(&mut CommandEncoder<TestApi>) -> Result<()>| {
        let mut e = encoder(&d);
        begin_pass(&mut e, view);
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e.set_index_buffer(ib, IndexFormat::Uint16, 0, None)
            .unwrap();
        f(&mut e)
    };
    let err = expect_rule(attempt(&|e| e.draw(0..3, 3..0)), Rule::RangeInverted);
    assert!(err.message().contains("instances 3..0"), "{err}");
    expect_rule(attempt(&|e| e.draw(5..2, 0..1)), Rule::RangeInverted);
    expect_rule(
        attempt(&|e| e.draw_indexed(6..0, 0, 0..1)),
        Rule::RangeInverted,
    );
    expect_rule(
        attempt(&|e| e.draw_indexed(0..3, 0, 1..0)),
        Rule::RangeInverted,
    );
    // Ranges at the very top of u32 are fine as long as they are in order.
    attempt(&|e| e.draw(u32::MAX - 1..u32::MAX, 0..1)).unwrap_or_else(|e| {
        // The vertex buffer bounds the vertices: refused for its size, not for wrapping.
        assert_eq!(e.kind(), ErrorKind::OutOfBounds, "{e}");
    });
}

// Class 2: destroy while recording.

#[test]
fn objects_destroyed_while_an_encoder_may_have_recorded_them_outlive_the_encoder() {
    let d = device();
    let k = copy_kernel(&d);
    let (src, dst) = (storage(&d, 256), storage(&d, 256));
    let g = group(&d, k.bgl, &[(0, whole(src)), (1, whole(dst))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    let before = own_objects(&d);
    d.destroy_compute_pipeline(k.pipeline).unwrap();
    d.destroy_bind_group(g).unwrap();
    d.destroy_buffer(src).unwrap();
    d.destroy_buffer(dst).unwrap();
    d.poll().unwrap();
    assert_eq!(
        own_objects(&d),
        before,
        "nothing recorded is released while its encoder is open"
    );
    // The handles are stale at once, though.
    expect_rule(e.set_bind_group(0, g, &[]), Rule::HandleStale);
    drop(e);
    d.poll().unwrap();
    assert_eq!(
        own_objects(&d),
        before - 4 - 1,
        "dropping the encoder lets the pipeline, the group and both buffers go (and its pool back)"
    );
}

#[test]
fn a_finished_command_buffer_keeps_what_it_recorded_until_refused_or_dropped() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 64).unwrap();
    let cb = e.finish().unwrap();
    let before = own_objects(&d);
    d.destroy_buffer(a).unwrap();
    d.poll().unwrap();
    assert_eq!(own_objects(&d), before);
    // Submitting it is refused (it names a destroyed buffer); the refusal drops it.
    expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
    d.poll().unwrap();
    assert_eq!(
        own_objects(&d),
        before - 1 - 1,
        "the buffer goes, and the command buffer's pool returns for reuse"
    );
}

#[test]
fn only_encoders_that_recorded_an_object_hold_it() {
    let d = device();
    let a = storage(&d, 64);
    let mut first = encoder(&d);
    first.clear_buffer(a, 0, None).unwrap();
    let other = encoder(&d);
    let before = own_objects(&d);
    d.destroy_buffer(a).unwrap();
    assert_eq!(own_objects(&d), before, "the first encoder recorded it");
    let later = encoder(&d);
    assert_eq!(own_objects(&d), before + 1);
    drop(first);
    d.poll().unwrap();
    assert_eq!(
        own_objects(&d),
        before - 1,
        "with only encoders that never recorded it left, the buffer goes (and the first encoder's pool returns)"
    );
    drop((other, later));
}

// Class 3: barriers cover every later command.

#[test]
fn copies_on_both_sides_of_a_render_pass_are_ordered() {
    let d = device();
    let view = target_view(&d, [8, 8]);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 64).unwrap();
    begin_pass(&mut e, view);
    e.end_render_pass().unwrap();
    e.copy_buffer_to_buffer(b, 0, a, 0, 64).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let copies: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::CopyBuffer { .. }))
        .map(|(i, _)| i)
        .collect();
    let end = cmds
        .iter()
        .position(|c| matches!(c, TestCommand::EndRenderPass))
        .unwrap();
    assert!(copies[0] < end && end < copies[1], "{cmds:?}");
    // The second copy reads what the first wrote (b) and overwrites what it read (a): one
    // barrier from the transfers before to the transfer after orders both.
    let barrier = cmds[copies[0]..copies[1]]
        .iter()
        .rev()
        .find_map(|c| match c {
            TestCommand::Barrier(m) => Some(*m),
            _ => None,
        })
        .expect("a barrier between the copies");
    assert!(
        barrier.src.contains(Stages::TRANSFER) && barrier.dst.contains(Stages::TRANSFER),
        "{barrier:?}"
    );
}

// Class 4: dynamic state starts at WebGPU's defaults.

#[test]
fn a_render_pass_starts_with_webgpu_dynamic_state_defaults() {
    let d = device();
    let view = target_view(&d, [8, 8]);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let begin = cmds
        .iter()
        .position(|c| matches!(c, TestCommand::BeginRenderPass(_)))
        .unwrap();
    let after: Vec<&TestCommand> = cmds[begin + 1..].iter().take(2).collect();
    assert!(
        matches!(after[0], TestCommand::SetBlendConstant)
            && matches!(after[1], TestCommand::SetStencilReference(0)),
        "blend constant (0, 0, 0, 0) and stencil reference 0 are set first: {after:?}"
    );
}

// Class 6: ranges and caps.

#[test]
fn a_view_needs_a_use_that_goes_through_views() {
    let d = device();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "copy only",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    expect_rule(
        d.create_texture_view(t, &TextureViewDescriptor::default()),
        Rule::ViewUsageNone,
    );
}

#[test]
fn vertex_and_index_buffers_bind_inside_their_buffer() {
    let d = device();
    let view = target_view(&d, [8, 8]);
    let vb = buffer(&d, "vb", 64, BufferUsages::VERTEX);
    let ib = buffer(&d, "ib", 64, BufferUsages::INDEX);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    expect_rule(
        e.set_vertex_buffer(0, vb, 64, None),
        Rule::VertexBufferRange,
    );
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    expect_rule(
        e.set_index_buffer(ib, IndexFormat::Uint16, 64, None),
        Rule::IndexBufferRange,
    );
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.set_vertex_buffer(0, vb, 60, None).unwrap();
    e.set_index_buffer(ib, IndexFormat::Uint16, 62, None)
        .unwrap();
}

#[test]
fn query_resolves_stay_inside_the_set_and_the_buffer() {
    let d = device();
    let q = d.create_query_set("q", 4).unwrap();
    let b = buffer(&d, "resolve", 256, BufferUsages::QUERY_RESOLVE);
    // Each refusal poisons its encoder, so each case gets one that wrote every query.
    let written = || {
        let mut e = encoder(&d);
        for i in 0..4 {
            e.write_timestamp(q, i).unwrap();
        }
        e
    };
    // A first query past the end is refused even for no queries.
    expect_rule(written().resolve_query_set(q, 4, 0, b, 0), Rule::QueryRange);
    expect_rule(written().resolve_query_set(q, 3, 2, b, 0), Rule::QueryRange);
    expect_rule(
        written().resolve_query_set(q, 0, 1, b, 256),
        Rule::BufferRange,
    );
    // No queries at the buffer's very end: accepted, and nothing reaches the driver.
    let mut e = written();
    e.resolve_query_set(q, 0, 0, b, 256).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert!(
        !last_commands(&d)
            .iter()
            .any(|c| matches!(c, TestCommand::ResolveQueries(_)))
    );
}

#[test]
fn a_query_written_twice_in_one_encoder_is_reset_in_between() {
    let d = device();
    let q = d.create_query_set("q", 2).unwrap();
    let mut e = encoder(&d);
    e.write_timestamp(q, 1).unwrap();
    e.write_timestamp(q, 1).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let writes: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::WriteTimestamp(_, 1)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(writes.len(), 2);
    assert!(
        cmds[writes[0]..writes[1]]
            .iter()
            .any(|c| matches!(c, TestCommand::ResetQueries(..))),
        "{cmds:?}"
    );
}

#[test]
fn a_submission_larger_than_the_in_flight_bound_is_refused_not_waited_for() {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    let d = adapter
        .request_device(&DeviceDescriptor {
            max_command_buffers_in_flight: 2,
            ..Default::default()
        })
        .unwrap();
    let cbs: Vec<_> = (0..3)
        .map(|_| {
            d.create_command_encoder(&CommandEncoderDescriptor::default())
                .unwrap()
                .finish()
                .unwrap()
        })
        .collect();
    expect_rule(d.submit(cbs), Rule::SubmitSize);
    assert!(!d.is_lost());
}

// Class 7: progress inside a submission.

#[test]
fn every_pass_leaves_a_breadcrumb() {
    let d = device();
    let view = target_view(&d, [8, 8]);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.end_compute_pass().unwrap();
    begin_pass(&mut e, view);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let fills_after = |end: usize| {
        cmds[end..]
            .iter()
            .take(4)
            .any(|c| matches!(c, TestCommand::FillBuffer { size: 4, .. }))
    };
    for (i, c) in cmds.iter().enumerate() {
        if matches!(c, TestCommand::EndComputePass | TestCommand::EndRenderPass) {
            assert!(fills_after(i), "no breadcrumb after {c:?}: {cmds:?}");
        }
    }
}

#[test]
fn the_stall_bound_is_a_device_setting() {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    assert_eq!(
        DeviceDescriptor::default().stall_timeout,
        std::time::Duration::from_secs(5)
    );
    let d = adapter
        .request_device(&DeviceDescriptor {
            stall_timeout: std::time::Duration::from_millis(50),
            ..Default::default()
        })
        .unwrap();
    d.test_backend().set_auto_complete(false);
    let serial = d
        .submit([d
            .create_command_encoder(&CommandEncoderDescriptor::default())
            .unwrap()
            .finish()
            .unwrap()])
        .unwrap();
    // A buffer read waits for the buffer's work with the device's stall bound.
    let b = buffer(&d, "b", 4, BufferUsages::COPY_SRC | BufferUsages::COPY_DST);
    let mut e = encoder(&d);
    e.clear_buffer(b, 0, None).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let start = std::time::Instant::now();
    let err = expect_rule(d.read_buffer(b, 0, 4), Rule::DeviceLost);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(2),
        "gave up after the 50 ms bound, not the 5 s default: {err}"
    );
    assert!(serial > 0);
    // Let the held work finish, so dropping the device need not wait out its drain cap.
    d.test_backend().set_auto_complete(true);
}

// Found by the fuzzer after the first fixes: a repeated pipeline bind skipped the lookup.

#[test]
fn rebinding_the_bound_pipeline_still_checks_the_handle() {
    let d = device();
    let other = d.share().unwrap();
    let k = copy_kernel(&d);
    let foreign = copy_kernel(&other);
    assert_eq!(
        (foreign.pipeline.index(), foreign.pipeline.generation()),
        (k.pipeline.index(), k.pipeline.generation()),
        "the two devices' first pipelines share slot and generation"
    );
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    expect_rule(
        e.set_compute_pipeline(foreign.pipeline),
        Rule::HandleForeign,
    );
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    d.destroy_compute_pipeline(k.pipeline).unwrap();
    expect_rule(e.set_compute_pipeline(k.pipeline), Rule::HandleStale);
}

#[test]
fn a_view_format_must_allow_the_views_usage() {
    let d = device();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "storage",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::STORAGE_BINDING | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap();
    let srgb = |usage| {
        d.create_texture_view(
            t,
            &TextureViewDescriptor {
                format: Some(TextureFormat::Rgba8UnormSrgb),
                usage,
                ..Default::default()
            },
        )
    };
    expect_rule(srgb(None), Rule::ViewStorageFormat);
    srgb(Some(TextureUsages::TEXTURE_BINDING)).unwrap();
}
