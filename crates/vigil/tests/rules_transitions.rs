//! Resource transitions (`CommandEncoder::transition_resources`): the barriers a coming
//! use needs, taken ahead of it in one batch, after which the use needs none; uses a
//! transition did not prepare still get their barriers from the tracker; and the rules a
//! transition can break.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::hal_test::TestCommand;
use vigil::*;

const READ: Access = Access::SHADER_READ;
const RW: Access = Access::SHADER_READ.union(Access::SHADER_WRITE);

fn prepare(buffer: Buffer, stages: Stages, access: Access) -> BufferTransition {
    BufferTransition {
        buffer,
        offset: 0,
        size: None,
        stages,
        access,
    }
}

/// Two dependent dispatches (a -> b, then b -> c), with `between` called between them;
/// returns the encoder's derived barrier count and the commands between the dispatches.
fn chain(
    between: impl FnOnce(&mut CommandEncoder<TestApi>, [Buffer; 3]),
) -> (u64, Vec<TestCommand>) {
    let d = device();
    let k = copy_kernel(&d);
    let bufs = [storage(&d, 256), storage(&d, 256), storage(&d, 256)];
    let [a, b, c] = bufs;
    let ab = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let bc = group(&d, k.bgl, &[(0, whole(b)), (1, whole(c))]).unwrap();
    let mut e = encoder(&d);
    let dispatch = |e: &mut CommandEncoder<TestApi>, g| {
        compute_pass(e);
        e.set_compute_pipeline(k.pipeline).unwrap();
        e.set_bind_group(0, g, &[]).unwrap();
        e.dispatch(4, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
    };
    dispatch(&mut e, ab);
    between(&mut e, bufs);
    dispatch(&mut e, bc);
    let derived = e.derived_barrier_batches();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let at: Vec<usize> = cmds
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, TestCommand::Dispatch(_)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 2);
    (derived, cmds[at[0]..at[1]].to_vec())
}

#[test]
fn a_prepared_use_needs_no_barrier_of_its_own() {
    const C: Stages = Stages::COMPUTE;
    // Unprepared: the tracker puts its own barrier before the second dispatch.
    let (derived, between) = chain(|_, _| {});
    assert_eq!(derived, 1);
    assert!(between.iter().any(is_barrier), "{between:?}");
    // Prepared exactly as the second dispatch uses them: the transition's barrier is the
    // only one, and the dispatch adds none.
    let (derived, between) = chain(|e, [_, b, c]| {
        e.transition_resources(&[prepare(b, C, READ), prepare(c, C, RW)], &[])
            .unwrap();
    });
    assert_eq!(derived, 0);
    // (Between the dispatches the device also records its progress marker, with its own
    // barriers to TRANSFER and HOST.)
    let for_compute = between
        .iter()
        .filter(|c| matches!(c, TestCommand::Barrier(m) if m.dst.contains(Stages::COMPUTE)))
        .count();
    assert_eq!(for_compute, 1, "{between:?}");
    // Prepared for another stage than the use: the use still gets its barrier.
    let (derived, _) = chain(|e, [_, b, _]| {
        e.transition_resources(&[prepare(b, Stages::FRAGMENT_SHADER, READ)], &[])
            .unwrap();
    });
    assert_eq!(derived, 1);
}

#[test]
fn a_prepared_write_clears_the_part_for_its_next_use_only() {
    const C: Stages = Stages::COMPUTE;
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 256), storage(&d, 256));
    let ab = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let mut e = encoder(&d);
    let dispatch = |e: &mut CommandEncoder<TestApi>| {
        compute_pass(e);
        e.set_compute_pipeline(k.pipeline).unwrap();
        e.set_bind_group(0, ab, &[]).unwrap();
        e.dispatch(4, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
    };
    dispatch(&mut e);
    e.transition_resources(&[prepare(b, C, RW), prepare(a, C, READ)], &[])
        .unwrap();
    dispatch(&mut e);
    assert_eq!(e.derived_barrier_batches(), 0);
    // The next write of b (a third dispatch) waits for the second: the clearance was
    // used up.
    dispatch(&mut e);
    assert_eq!(e.derived_barrier_batches(), 1);
    d.submit([e.finish().unwrap()]).unwrap();
}

fn texture(d: &TDevice, format: TextureFormat, usage: TextureUsages) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "t",
        size: [8, 8],
        mip_level_count: 2,
        array_layers: 2,
        format,
        usage,
        ..TextureDescriptor::default()
    })
    .unwrap()
}

fn to_layout(texture: Texture, layout: TextureLayout) -> TextureTransition {
    TextureTransition {
        texture,
        base_mip_level: 0,
        mip_level_count: None,
        base_array_layer: 0,
        array_layer_count: None,
        stages: Stages::FRAGMENT_SHADER,
        access: Access::SHADER_READ,
        layout,
    }
}

#[test]
fn a_texture_transition_changes_its_layout_per_subresource() {
    let d = device();
    let t = texture(
        &d,
        TextureFormat::Rgba8Unorm,
        TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
    );
    let mut e = encoder(&d);
    e.transition_resources(
        &[],
        &[TextureTransition {
            base_mip_level: 1,
            mip_level_count: Some(1),
            ..to_layout(t, TextureLayout::ShaderReadOnly)
        }],
    )
    .unwrap();
    // A second transition of what the first prepared needs no barrier.
    e.transition_resources(
        &[],
        &[TextureTransition {
            base_mip_level: 1,
            mip_level_count: Some(1),
            ..to_layout(t, TextureLayout::ShaderReadOnly)
        }],
    )
    .unwrap();
    assert_eq!(e.derived_barrier_batches(), 0);
    d.submit([e.finish().unwrap()]).unwrap();
    // The first use in the command buffer is resolved at submission: mip 1's two
    // layers go to the read-only layout (mip 0, untouched, stays as it was).
    let all = d.test_backend().submitted_commands();
    let moved: Vec<(TextureLayout, TextureLayout)> = all
        .iter()
        .flat_map(|(_, cmds)| cmds.iter())
        .filter_map(|c| match c {
            TestCommand::TextureBarrier { old, new, .. } => Some((*old, *new)),
            _ => None,
        })
        .filter(|(_, new)| *new == TextureLayout::ShaderReadOnly)
        .collect();
    assert_eq!(moved.len(), 2, "{all:?}");
}

#[test]
fn transitions_are_refused_when_they_break_a_rule() {
    let d = device();
    let b = storage(&d, 256);
    let sampled = texture(
        &d,
        TextureFormat::Rgba8Unorm,
        TextureUsages::TEXTURE_BINDING,
    );
    let depth = texture(
        &d,
        TextureFormat::Depth32Float,
        TextureUsages::RENDER_ATTACHMENT,
    );
    let refused = |buffers: &[BufferTransition], textures: &[TextureTransition], rule| {
        let mut e = encoder(&d);
        let err = expect_rule(e.transition_resources(buffers, textures), rule);
        assert_eq!(err.operation(), "transition_resources");
        err
    };
    // Inside a pass.
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(
        e.transition_resources(&[prepare(b, Stages::COMPUTE, READ)], &[]),
        Rule::PassOpen,
    );
    // Stages and accesses.
    refused(
        &[prepare(b, Stages::empty(), READ)],
        &[],
        Rule::TransitionStages,
    );
    refused(
        &[prepare(b, Stages::HOST, Access::HOST_READ)],
        &[],
        Rule::TransitionStages,
    );
    refused(
        &[prepare(b, Stages::ALL_COMMANDS, READ)],
        &[],
        Rule::TransitionStages,
    );
    let err = refused(
        &[prepare(b, Stages::COMPUTE, Access::COLOR_WRITE)],
        &[],
        Rule::TransitionStages,
    );
    assert!(err.message().contains("COLOR_ATTACHMENT"), "{err}");
    refused(
        &[prepare(b, Stages::VERTEX_INPUT, Access::HOST_WRITE)],
        &[],
        Rule::TransitionStages,
    );
    // Ranges.
    refused(
        &[BufferTransition {
            offset: 200,
            size: Some(100),
            ..prepare(b, Stages::COMPUTE, READ)
        }],
        &[],
        Rule::BufferRange,
    );
    refused(
        &[],
        &[TextureTransition {
            base_mip_level: 1,
            mip_level_count: Some(2),
            ..to_layout(sampled, TextureLayout::ShaderReadOnly)
        }],
        Rule::ViewMipRange,
    );
    refused(
        &[],
        &[TextureTransition {
            base_array_layer: 2,
            ..to_layout(sampled, TextureLayout::ShaderReadOnly)
        }],
        Rule::ViewLayerRange,
    );
    // Layouts the usage or format does not allow.
    let layout = |t, l| refused(&[], &[to_layout(t, l)], Rule::TransitionLayout);
    layout(depth, TextureLayout::ShaderReadOnly);
    layout(sampled, TextureLayout::ColorAttachment);
    layout(sampled, TextureLayout::TransferDst);
    layout(sampled, TextureLayout::Undefined);
    layout(sampled, TextureLayout::Present);
    let err = refused(
        &[],
        &[TextureTransition {
            stages: Stages::COLOR_ATTACHMENT,
            access: Access::COLOR_WRITE,
            ..to_layout(depth, TextureLayout::ColorAttachment)
        }],
        Rule::TransitionLayout,
    );
    assert!(err.message().contains("color format"), "{err}");
    // A write and another use of one part in one call.
    refused(
        &[
            prepare(b, Stages::COMPUTE, RW),
            prepare(b, Stages::FRAGMENT_SHADER, READ),
        ],
        &[],
        Rule::TransitionConflict,
    );
    // Stale handles.
    let gone = storage(&d, 64);
    d.destroy_buffer(gone).unwrap();
    refused(
        &[prepare(gone, Stages::COMPUTE, READ)],
        &[],
        Rule::HandleStale,
    );
    // Reads of one part in several stages merge into one use.
    let mut e = encoder(&d);
    e.transition_resources(
        &[
            prepare(b, Stages::COMPUTE, READ),
            prepare(b, Stages::FRAGMENT_SHADER, READ),
        ],
        &[],
    )
    .unwrap();
    // Disjoint subresources of a texture may be prepared for different uses (a buffer is
    // one use per call, as in a pass).
    let storage_tex = texture(
        &d,
        TextureFormat::Rgba8Unorm,
        TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
    );
    e.transition_resources(
        &[],
        &[
            TextureTransition {
                mip_level_count: Some(1),
                ..to_layout(storage_tex, TextureLayout::ShaderReadOnly)
            },
            TextureTransition {
                base_mip_level: 1,
                stages: Stages::COMPUTE,
                access: Access::SHADER_WRITE,
                ..to_layout(storage_tex, TextureLayout::General)
            },
        ],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}
