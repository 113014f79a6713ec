//! Command encoder rules: passes, latching, dynamic offsets, dispatch state, copies, and
//! the barriers the encoder inserts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::hal_test::TestCommand;
use vigil::*;

const C: ShaderStages = ShaderStages::COMPUTE;

fn ready(d: &TDevice) -> (CopyKernel, BindGroup, Buffer, Buffer) {
    let k = copy_kernel(d);
    let (a, b) = (storage(d, 256), storage(d, 256));
    let g = group(d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    (k, g, a, b)
}

#[test]
fn passes_cannot_nest() {
    let d = device();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    let err = expect_rule(
        e.begin_compute_pass(&ComputePassDescriptor::default()),
        Rule::PassOpen,
    );
    assert!(err.message().contains("cannot nest"), "{err}");
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(
        e.begin_render_pass(&RenderPassDescriptor::default()),
        Rule::PassOpen,
    );
}

#[test]
fn copies_are_refused_inside_a_pass() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.copy_buffer_to_buffer(a, 0, b, 0, 64), Rule::PassOpen);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.clear_buffer(a, 0, None), Rule::PassOpen);
}

#[test]
fn pass_commands_need_their_pass() {
    let d = device();
    let (k, g, ..) = ready(&d);
    let mut e = encoder(&d);
    expect_rule(e.dispatch(1, 1, 1), Rule::PassNotOpen);
    let mut e = encoder(&d);
    expect_rule(e.set_compute_pipeline(k.pipeline), Rule::PassNotOpen);
    let mut e = encoder(&d);
    expect_rule(e.set_bind_group(0, g, &[]), Rule::PassNotOpen);
    let mut e = encoder(&d);
    expect_rule(e.end_compute_pass(), Rule::PassNotOpen);
}

#[test]
fn the_first_error_latches_and_finish_reports_it() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(a, 2, b, 0, 4), Rule::CopyAlignment);
    assert!(e.is_poisoned());
    // Later valid calls are refused too.
    expect_rule(
        e.copy_buffer_to_buffer(a, 0, b, 0, 4),
        Rule::EncoderPoisoned,
    );
    let err = expect_rule(e.finish(), Rule::CopyAlignment);
    assert_eq!(err.operation(), "copy_buffer_to_buffer");
}

#[test]
fn finish_refuses_an_open_pass() {
    let d = device();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.finish(), Rule::PassOpen);
}

#[test]
fn dispatch_needs_a_pipeline_and_all_its_groups() {
    let d = device();
    let (k, g, ..) = ready(&d);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.dispatch(1, 1, 1), Rule::PipelineNotSet);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    let err = expect_rule(e.dispatch(1, 1, 1), Rule::GroupNotSet);
    assert!(err.message().contains("bind group 0"), "{err}");
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    expect_rule(
        e.dispatch(d.limits().max_compute_workgroups_per_dimension + 1, 1, 1),
        Rule::DispatchLimit,
    );
}

#[test]
fn groups_of_another_layout_are_refused_at_dispatch() {
    let d = device();
    let (k, ..) = ready(&d);
    let other = layout(&d, &[entry(0, C, buf_ty(RW, false))]);
    let g = group(&d, other, &[(0, whole(storage(&d, 64)))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    expect_rule(e.dispatch(1, 1, 1), Rule::GroupNotSet);
}

#[test]
fn group_indices_are_bounded() {
    let d = device();
    let (_, g, ..) = ready(&d);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(
        e.set_bind_group(d.limits().max_bind_groups, g, &[]),
        Rule::BindGroupIndex,
    );
}

/// A group met before in the recording takes `set_bind_group`'s short path; each rule
/// still refuses it there: an index past the limit, no pass open, another device's
/// group, the group destroyed since, an encoder already poisoned.
#[test]
fn a_group_met_before_is_refused_by_the_same_rules() {
    let d = device();
    let (k, g, ..) = ready(&d);
    let met = |d: &TDevice| {
        let mut e = encoder(d);
        compute_pass(&mut e);
        e.set_compute_pipeline(k.pipeline).unwrap();
        e.set_bind_group(0, g, &[]).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e
    };
    let mut e = met(&d);
    e.set_bind_group(0, g, &[]).unwrap();
    expect_rule(
        e.set_bind_group(d.limits().max_bind_groups, g, &[]),
        Rule::BindGroupIndex,
    );
    let mut e = met(&d);
    e.end_compute_pass().unwrap();
    expect_rule(e.set_bind_group(0, g, &[]), Rule::PassNotOpen);
    let other = device();
    let (_, foreign, ..) = ready(&other);
    let mut e = met(&d);
    expect_rule(e.set_bind_group(0, foreign, &[]), Rule::HandleForeign);
    let mut e = met(&d);
    d.destroy_bind_group(g).unwrap();
    expect_rule(e.set_bind_group(0, g, &[]), Rule::HandleStale);
    let (k2, g2, ..) = ready(&d);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k2.pipeline).unwrap();
    e.set_bind_group(0, g2, &[]).unwrap();
    expect_rule(
        e.dispatch(d.limits().max_compute_workgroups_per_dimension + 1, 1, 1),
        Rule::DispatchLimit,
    );
    expect_rule(e.set_bind_group(0, g2, &[]), Rule::EncoderPoisoned);
}

#[test]
fn dynamic_offsets_are_counted_aligned_and_in_range() {
    let d = device();
    let l = layout(&d, &[entry(0, C, buf_ty(RW, true))]);
    let b = storage(&d, 1024);
    let g = group(
        &d,
        l,
        &[(
            0,
            BindingResource::Buffer(BufferBinding {
                buffer: b,
                offset: 0,
                size: Some(256),
            }),
        )],
    )
    .unwrap();
    let align = d.limits().min_storage_buffer_offset_alignment;
    let mut e = encoder(&d);
    compute_pass(&mut e);
    let err = expect_rule(e.set_bind_group(0, g, &[]), Rule::DynamicOffsetCount);
    assert!(err.message().contains("1 dynamic binding"), "{err}");
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.set_bind_group(0, g, &[0, 0]), Rule::DynamicOffsetCount);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(
        e.set_bind_group(0, g, &[align / 2]),
        Rule::DynamicOffsetAlignment,
    );
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.set_bind_group(0, g, &[1024]), Rule::DynamicOffsetRange);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_bind_group(0, g, &[768]).unwrap();
}

#[test]
fn indirect_dispatch_ranges_are_checked() {
    let d = device();
    let (k, g, ..) = ready(&d);
    let args = buffer(
        &d,
        "args",
        16,
        BufferUsages::INDIRECT | BufferUsages::COPY_DST,
    );
    let not_indirect = storage(&d, 16);
    let start = |e: &mut CommandEncoder<TestApi>| {
        compute_pass(e);
        e.set_compute_pipeline(k.pipeline).unwrap();
        e.set_bind_group(0, g, &[]).unwrap();
    };
    let mut e = encoder(&d);
    start(&mut e);
    expect_rule(e.dispatch_indirect(not_indirect, 0), Rule::IndirectUsage);
    let mut e = encoder(&d);
    start(&mut e);
    expect_rule(e.dispatch_indirect(args, 8), Rule::BufferRange);
    let mut e = encoder(&d);
    start(&mut e);
    expect_rule(e.dispatch_indirect(args, 2), Rule::IndirectAlignment);
    let mut e = encoder(&d);
    start(&mut e);
    e.dispatch_indirect(args, 4).unwrap();
}

/// The commands submitted for one recording of 100 pairs of indirect dispatches reading
/// two ranges of a 24-byte argument buffer, the recording first clearing the buffer
/// (outside any pass) when `clear`: with the positions of the clears of that buffer, of
/// the checks and of the indirect dispatches.
fn two_ranges_dispatched(clear: bool) -> (Vec<TestCommand>, [Vec<usize>; 3]) {
    let d = device();
    let (k, g, ..) = ready(&d);
    let args = buffer(
        &d,
        "args",
        24,
        BufferUsages::INDIRECT | BufferUsages::COPY_DST,
    );
    let mut e = encoder(&d);
    if clear {
        e.clear_buffer(args, 0, None).unwrap();
    }
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    for _ in 0..100 {
        e.dispatch_indirect(args, 0).unwrap();
        e.dispatch_indirect(args, 12).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds: Vec<TestCommand> = d
        .test_backend()
        .submitted_commands()
        .into_iter()
        .flat_map(|(_, c)| c)
        .collect();
    let at = |f: &dyn Fn(&TestCommand) -> bool| -> Vec<usize> {
        (0..cmds.len()).filter(|&i| f(&cmds[i])).collect()
    };
    let found = [
        at(&|c| matches!(c, TestCommand::FillBuffer { size: 24, .. })),
        at(&|c| matches!(c, TestCommand::Dispatch([1, 1, 1]))),
        at(&|c| matches!(c, TestCommand::DispatchIndirect(..))),
    ];
    (cmds, found)
}

/// The checks each indirect check's dispatch in `cmds` makes (its immediates' ninth word).
fn run_counts(cmds: &[TestCommand]) -> Vec<u32> {
    cmds.iter()
        .filter_map(|c| match c {
            TestCommand::SetImmediates(b) if b.len() == 40 => {
                Some(u32::from_le_bytes(b[32..36].try_into().unwrap()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn unwritten_indirect_arguments_are_checked_once_per_range_in_front_of_the_recording() {
    let (cmds, [_, checks, indirect]) = two_ranges_dispatched(false);
    // Two checks (one per range, in one run: one dispatch, an invocation each), before
    // every indirect dispatch; each of the 200 reads vigil's checked copy, none the
    // arguments themselves.
    assert_eq!((checks.len(), indirect.len()), (1, 200), "{cmds:?}");
    assert_eq!(run_counts(&cmds), [2]);
    assert!(checks.iter().all(|c| indirect.iter().all(|i| c < i)));
    let sources: std::collections::HashSet<_> = indirect
        .iter()
        .map(|&i| match &cmds[i] {
            TestCommand::DispatchIndirect(buffer, _) => *buffer,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(sources.len(), 1, "one scratch buffer: {sources:?}");
}

#[test]
fn arguments_written_before_the_pass_are_checked_once_per_range_in_front_of_the_pass() {
    let (cmds, [clears, checks, indirect]) = two_ranges_dispatched(true);
    // The clear, then two checks (one per range, in one run), then the 200 indirect
    // dispatches, each reading vigil's checked copy: none checked where it is read.
    assert_eq!(
        (clears.len(), checks.len(), indirect.len()),
        (1, 1, 200),
        "{cmds:?}"
    );
    assert_eq!(run_counts(&cmds), [2]);
    assert!(
        checks
            .iter()
            .all(|c| clears[0] < *c && indirect.iter().all(|i| c < i))
    );
}

#[test]
fn a_check_where_arguments_are_read_waits_for_earlier_indirect_reads() {
    // Arguments a dispatch of the same pass wrote are checked where they are read, and the
    // check writes through a binding of the whole scratch buffer, whose other slots
    // earlier indirect dispatches read: each such check waits for those reads
    // (DRAW_INDIRECT to COMPUTE) before it writes.
    let d = device();
    let k = copy_kernel(&d);
    let a = storage(&d, 256);
    let usage = BufferUsages::STORAGE | BufferUsages::INDIRECT;
    let args = buffer(&d, "args", 256, usage);
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(args))]).unwrap();
    let other = storage(&d, 256);
    let reads = group(&d, k.bgl, &[(0, whole(a)), (1, whole(other))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    // The indirect dispatches' own group writes another buffer.
    e.set_bind_group(0, reads, &[]).unwrap();
    for at in [0, 12, 0] {
        e.dispatch_indirect(args, at).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let checks: Vec<usize> = (0..cmds.len())
        .filter(|&i| matches!(&cmds[i], TestCommand::SetImmediates(b) if b.len() == 40))
        .collect();
    assert_eq!(checks.len(), 3, "{cmds:?}");
    for &c in &checks {
        let since = cmds[..c]
            .iter()
            .rposition(|x| matches!(x, TestCommand::DispatchIndirect(..)))
            .unwrap_or(0);
        assert!(
            cmds[since..c].iter().any(|x| matches!(
                x,
                TestCommand::Barrier(m) if m.src.contains(Stages::DRAW_INDIRECT)
                    && m.dst.contains(Stages::COMPUTE)
            )),
            "no wait for earlier indirect reads before the check at {c}: {cmds:?}"
        );
    }
}

#[test]
fn copy_rules() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let no_src = buffer(&d, "no src", 64, BufferUsages::COPY_DST);
    let no_dst = buffer(&d, "no dst", 64, BufferUsages::COPY_SRC);
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(no_src, 0, b, 0, 4), Rule::CopyUsage);
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(a, 0, no_dst, 0, 4), Rule::CopyUsage);
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(a, 0, b, 0, 6), Rule::CopyAlignment);
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(a, 32, b, 0, 64), Rule::BufferRange);
    let mut e = encoder(&d);
    expect_rule(e.copy_buffer_to_buffer(a, 0, a, 32, 4), Rule::CopySame);
    let mut e = encoder(&d);
    expect_rule(e.clear_buffer(a, 4, Some(64)), Rule::BufferRange);
    let mut e = encoder(&d);
    expect_rule(
        e.clear_buffer(no_src, 0, None)
            .and(Ok(()))
            .and_then(|_| e.clear_buffer(no_dst, 0, None)),
        Rule::CopyUsage,
    );
}

#[test]
fn texture_clear_rules() {
    let d = device();
    let tex = |label, format, layers, dimension| {
        d.create_texture(&TextureDescriptor {
            label,
            dimension,
            size: [8, 8],
            array_layers: layers,
            mip_level_count: 2,
            format,
            usage: TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap()
    };
    let color = tex("color", TextureFormat::Rgba8Unorm, 3, TextureDimension::D2);
    let depth = tex(
        "depth",
        TextureFormat::Depth32Float,
        1,
        TextureDimension::D2,
    );
    let volume = tex("volume", TextureFormat::Rgba8Unorm, 4, TextureDimension::D3);
    let range = |aspect, base_mip_level, mips, base_array_layer, layers| ImageSubresourceRange {
        aspect,
        base_mip_level,
        mip_level_count: mips,
        base_array_layer,
        array_layer_count: layers,
    };
    let all = TextureAspect::All;
    // Aspects the format lacks.
    for (t, aspect) in [
        (color, TextureAspect::DepthOnly),
        (color, TextureAspect::StencilOnly),
        (depth, TextureAspect::StencilOnly),
    ] {
        let mut e = encoder(&d);
        let err = expect_rule(
            e.clear_texture(t, &range(aspect, 0, None, 0, None)),
            Rule::ClearTextureAspect,
        );
        assert!(err.message().contains("aspect"), "{err}");
    }
    // Levels and layers outside the texture; a volume has one layer.
    for (t, r) in [
        (color, range(all, 3, None, 0, None)),
        (color, range(all, 1, Some(2), 0, None)),
        (color, range(all, 0, None, 3, Some(1))),
        (color, range(all, 0, None, 1, Some(u32::MAX))),
        (volume, range(all, 0, None, 1, Some(1))),
        (volume, range(all, 0, None, 0, Some(4))),
    ] {
        let mut e = encoder(&d);
        expect_rule(e.clear_texture(t, &r), Rule::ClearTextureRange);
    }
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.clear_texture(color, &Default::default()), Rule::PassOpen);
    // What fits is recorded: one clear per call, after a barrier into the copy layout; an
    // empty range records nothing.
    let mut e = encoder(&d);
    e.clear_texture(depth, &range(TextureAspect::DepthOnly, 1, None, 0, None))
        .unwrap();
    e.clear_texture(volume, &Default::default()).unwrap();
    e.clear_texture(color, &range(all, 0, Some(0), 0, None))
        .unwrap();
    e.clear_texture(color, &range(all, 0, None, 3, None))
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let clears: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::ClearTexture(_)))
        .map(|(i, _)| i)
        .collect();
    // The two textures' first fills in front of the recording, then the two clears.
    assert_eq!(clears.len(), 4, "{cmds:?}");
    assert!(
        cmds[clears[1]..clears[2]].iter().any(is_barrier),
        "{cmds:?}"
    );
    d.destroy_texture(color).unwrap();
    let mut e = encoder(&d);
    expect_rule(
        e.clear_texture(color, &Default::default()),
        Rule::HandleStale,
    );
}

#[test]
fn dependent_dispatches_get_a_barrier_between_them() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b, c) = (storage(&d, 256), storage(&d, 256), storage(&d, 256));
    let ab = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let bc = group(&d, k.bgl, &[(0, whole(b)), (1, whole(c))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, ab, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.set_bind_group(0, bc, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let dispatches: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::Dispatch(_)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(dispatches.len(), 2);
    assert!(
        cmds[dispatches[0]..dispatches[1]].iter().any(is_barrier),
        "b is written then read with no barrier: {cmds:?}"
    );
}

#[test]
fn independent_dispatches_get_no_barrier() {
    let d = device();
    let k = copy_kernel(&d);
    let bufs: Vec<Buffer> = (0..4).map(|_| storage(&d, 256)).collect();
    let g1 = group(&d, k.bgl, &[(0, whole(bufs[0])), (1, whole(bufs[1]))]).unwrap();
    let g2 = group(&d, k.bgl, &[(0, whole(bufs[2])), (1, whole(bufs[3]))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g1, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.set_bind_group(0, g2, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let dispatches: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::Dispatch(_)))
        .map(|(i, _)| i)
        .collect();
    assert!(
        !cmds[dispatches[0]..dispatches[1]].iter().any(is_barrier),
        "unneeded barrier: {cmds:?}"
    );
}

#[test]
fn a_write_after_read_gets_a_barrier_and_repeated_binds_are_filtered() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 256), storage(&d, 256));
    let ab = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let ba = group(&d, k.bgl, &[(0, whole(b)), (1, whole(a))]).unwrap();
    let mut e = encoder(&d);
    e.copy_buffer_to_buffer(a, 0, b, 0, 256).unwrap();
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, ba, &[]).unwrap();
    e.set_bind_group(0, ba, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_bind_group(0, ab, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let pipelines = cmds
        .iter()
        .filter(|c| matches!(c, TestCommand::SetComputePipeline(_)))
        .count();
    let binds = cmds
        .iter()
        .filter(|c| matches!(c, TestCommand::SetBindGroup { .. }))
        .count();
    assert_eq!(
        (pipelines, binds),
        (1, 2),
        "redundant state reached the backend: {cmds:?}"
    );
    let copy = cmds
        .iter()
        .position(|c| matches!(c, TestCommand::CopyBuffer { .. }))
        .unwrap();
    let first = cmds
        .iter()
        .position(|c| matches!(c, TestCommand::Dispatch(_)))
        .unwrap();
    assert!(
        cmds[copy..first].iter().any(is_barrier),
        "copy writes b, the dispatch reads it"
    );
}

#[test]
fn a_command_buffer_is_ordered_after_earlier_submissions_that_used_the_same_buffers() {
    let d = device();
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    for round in 0..2 {
        let mut e = encoder(&d);
        e.copy_buffer_to_buffer(a, 0, b, 0, 64).unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let cmds = last_commands(&d);
        let copy = cmds
            .iter()
            .position(|c| matches!(c, TestCommand::CopyBuffer { .. }))
            .unwrap();
        // The first round has nothing to wait for; the second writes b again.
        assert_eq!(cmds[..copy].iter().any(is_barrier), round == 1, "{cmds:?}");
    }
}

#[test]
fn a_dispatch_that_reads_and_writes_one_buffer_through_its_group_is_refused() {
    // One group naming the same buffer read-only and read-write: the dispatch's two uses
    // of it cannot be ordered. Its distinct-members shortcut must not apply here.
    let d = device();
    let k = copy_kernel(&d);
    let a = storage(&d, 256);
    let same = group(&d, k.bgl, &[(0, whole(a)), (1, whole(a))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, same, &[]).unwrap();
    let err = expect_rule(e.dispatch(1, 1, 1), Rule::PassUsageConflict);
    assert!(err.message().contains("one dispatch"), "{err}");
    // Usage scopes are per buffer, as in WebGPU: disjoint halves of one buffer, one
    // written, conflict just the same.
    let b = storage(&d, 512);
    let halves = group(
        &d,
        k.bgl,
        &[
            (
                0,
                BindingResource::Buffer(BufferBinding {
                    buffer: b,
                    offset: 0,
                    size: Some(256),
                }),
            ),
            (
                1,
                BindingResource::Buffer(BufferBinding {
                    buffer: b,
                    offset: 256,
                    size: Some(256),
                }),
            ),
        ],
    )
    .unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, halves, &[]).unwrap();
    expect_rule(e.dispatch(1, 1, 1), Rule::PassUsageConflict);
    // A group made over two buffers, then written to name one of them twice: whether its
    // members are distinct is worked out again when they are written.
    let c = storage(&d, 256);
    let rewritten = group(&d, k.bgl, &[(0, whole(a)), (1, whole(c))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, rewritten, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    drop(e);
    d.write_bind_group(
        rewritten,
        &[BindGroupWrite {
            binding: 1,
            first_element: 0,
            resource: whole(a),
        }],
    )
    .unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, rewritten, &[]).unwrap();
    expect_rule(e.dispatch(1, 1, 1), Rule::PassUsageConflict);
}

/// The debug commands of the last submission, with the passes and dispatches between them,
/// as text (`TestCommand` has no `PartialEq`).
fn debug_commands(d: &TDevice) -> Vec<String> {
    last_commands(d)
        .into_iter()
        .filter(|c| {
            matches!(
                c,
                TestCommand::PushDebugGroup(_)
                    | TestCommand::PopDebugGroup
                    | TestCommand::InsertDebugMarker(_)
                    | TestCommand::BeginComputePass(_)
                    | TestCommand::EndComputePass
                    | TestCommand::BeginRenderPass(_)
                    | TestCommand::EndRenderPass
                    | TestCommand::Dispatch(_)
            )
        })
        .map(|c| format!("{c:?}"))
        .collect()
}

#[test]
fn debug_groups_and_markers_reach_the_native_commands_in_order() {
    let d = device();
    let (k, g, ..) = ready(&d);
    let view = target_view(&d, [4, 4]);
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    e.insert_debug_marker("start").unwrap();
    compute_pass(&mut e);
    e.push_debug_group("").unwrap();
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.pop_debug_group().unwrap();
    e.end_compute_pass().unwrap();
    begin_pass(&mut e, view);
    e.push_debug_group("pass").unwrap();
    e.push_debug_group("nested").unwrap();
    e.insert_debug_marker("inside").unwrap();
    e.pop_debug_group().unwrap();
    e.pop_debug_group().unwrap();
    e.end_render_pass().unwrap();
    e.pop_debug_group().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(
        debug_commands(&d),
        [
            r#"PushDebugGroup("frame")"#,
            r#"InsertDebugMarker("start")"#,
            r#"BeginComputePass("")"#,
            r#"PushDebugGroup("")"#,
            "Dispatch([1, 1, 1])",
            "PopDebugGroup",
            "EndComputePass",
            r#"BeginRenderPass("pass")"#,
            r#"PushDebugGroup("pass")"#,
            r#"PushDebugGroup("nested")"#,
            r#"InsertDebugMarker("inside")"#,
            "PopDebugGroup",
            "PopDebugGroup",
            "EndRenderPass",
            "PopDebugGroup",
        ]
    );
}

#[test]
fn popping_a_debug_group_that_is_not_open_is_refused() {
    let d = device();
    let mut e = encoder(&d);
    let err = expect_rule(e.pop_debug_group(), Rule::DebugGroupEmpty);
    assert!(err.message().contains("no debug group is open"), "{err}");
    // The refusal poisons the encoder, as every refusal does.
    expect_rule(e.finish(), Rule::DebugGroupEmpty);
    // A pass cannot close a group opened before it.
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    compute_pass(&mut e);
    let err = expect_rule(e.pop_debug_group(), Rule::DebugGroupEmpty);
    assert!(err.message().contains("opened in this pass"), "{err}");
    let view = target_view(&d, [4, 4]);
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    begin_pass(&mut e, view);
    expect_rule(e.pop_debug_group(), Rule::DebugGroupEmpty);
    // Pushes and pops balance: one pop too many is refused.
    let mut e = encoder(&d);
    e.push_debug_group("a").unwrap();
    e.pop_debug_group().unwrap();
    expect_rule(e.pop_debug_group(), Rule::DebugGroupEmpty);
}

#[test]
fn a_debug_group_left_open_refuses_the_end_of_its_pass_and_the_finish() {
    let d = device();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.push_debug_group("dispatches").unwrap();
    let err = expect_rule(e.end_compute_pass(), Rule::DebugGroupOpen);
    assert!(
        err.message()
            .contains("1 debug group(s) opened in the pass"),
        "{err}"
    );
    // The first refusal is what finish reports.
    let err = expect_rule(e.finish(), Rule::DebugGroupOpen);
    assert!(err.message().contains("the pass"), "{err}");
    let view = target_view(&d, [4, 4]);
    let mut e = encoder(&d);
    begin_pass(&mut e, view);
    e.push_debug_group("draws").unwrap();
    e.push_debug_group("more").unwrap();
    e.pop_debug_group().unwrap();
    expect_rule(e.end_render_pass(), Rule::DebugGroupOpen);
    // A group opened outside passes may stay open across one, and must be closed before
    // the encoder finishes.
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    begin_pass(&mut e, view);
    e.end_render_pass().unwrap();
    e.push_debug_group("copies").unwrap();
    e.pop_debug_group().unwrap();
    let err = expect_rule(e.finish(), Rule::DebugGroupOpen);
    assert!(err.message().contains("opened in the encoder"), "{err}");
    let mut e = encoder(&d);
    e.push_debug_group("frame").unwrap();
    begin_pass(&mut e, view);
    e.end_render_pass().unwrap();
    e.pop_debug_group().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}
