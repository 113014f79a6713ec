//! Queue rules on the test backend: the compute-only queue (what it refuses because it does
//! not draw), explicit waits across devices (`submit_after`), and GPU heaps shared between
//! devices over one native device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

fn with_compute_queue() -> (TDevice, TDevice) {
    let d = device_with(
        Features::ASYNC_COMPUTE | Features::BUFFER_DEVICE_ADDRESS | Features::TIMESTAMP_QUERY,
    );
    let c = d.share_on_compute_queue().unwrap();
    (d, c)
}

#[test]
fn the_compute_queue_needs_async_compute() {
    let d = device();
    let e = expect_rule(d.share_on_compute_queue(), Rule::DeviceComputeQueue);
    assert!(e.message().contains("ASYNC_COMPUTE"), "{e}");
    let (first, compute) = with_compute_queue();
    assert!(first.queue_draws());
    assert!(!compute.queue_draws());
    assert_ne!(compute.queue_index(), first.queue_index());
    // A share of the compute-queue device stays on its queue.
    let again = compute.share().unwrap();
    assert_eq!(again.queue_index(), compute.queue_index());
    assert!(!again.queue_draws());
}

#[test]
fn a_device_on_the_compute_queue_refuses_what_needs_drawing() {
    let (_first, c) = with_compute_queue();
    // Render passes.
    let view = target_view(&c, [4, 4]);
    let mut e = encoder(&c);
    expect_rule(
        e.begin_render_pass(&RenderPassDescriptor {
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear([0.0; 4]),
                store: StoreOp::Store,
            })],
            ..RenderPassDescriptor::default()
        }),
        Rule::QueueDraws,
    );
    // Pipeline statistics of graphics work (compute invocations alone are counted there).
    let sc = device_with(Features::ASYNC_COMPUTE | Features::PIPELINE_STATISTICS_QUERY)
        .share_on_compute_queue()
        .unwrap();
    expect_rule(
        sc.create_pipeline_statistics_query_set(
            "graphics",
            1,
            PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS
                | PipelineStatisticsTypes::VERTEX_SHADER_INVOCATIONS,
        ),
        Rule::QueueDraws,
    );
    let set = sc
        .create_pipeline_statistics_query_set(
            "compute",
            1,
            PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS,
        )
        .unwrap();
    let mut e = encoder(&sc);
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.begin_pipeline_statistics_query(set, 0).unwrap();
    e.end_pipeline_statistics_query().unwrap();
    e.end_compute_pass().unwrap();
    sc.submit([e.finish().unwrap()]).unwrap();
    // Depth-stencil textures (neither cleared nor copied on such a queue).
    expect_rule(
        c.create_texture(&TextureDescriptor {
            label: "depth",
            size: [4, 4],
            format: TextureFormat::Depth32Float,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..TextureDescriptor::default()
        }),
        Rule::QueueDraws,
    );
    // Graphics stages in barriers and transitions.
    let mut e = encoder(&c);
    expect_rule(
        e.memory_barrier(Stages::COMPUTE, Stages::FRAGMENT_SHADER),
        Rule::QueueDraws,
    );
    let b = storage(&c, 64);
    let mut e = encoder(&c);
    expect_rule(
        e.transition_resources(
            &[BufferTransition {
                buffer: b,
                offset: 0,
                size: None,
                stages: Stages::VERTEX_SHADER,
                access: Access::SHADER_READ,
            }],
            &[],
        ),
        Rule::QueueDraws,
    );
    // What the queue has is accepted: a barrier between compute stages, a transition
    // for the compute stage, and a compute pass's dispatch.
    let mut e = encoder(&c);
    e.memory_barrier(Stages::COMPUTE, Stages::COMPUTE | Stages::TRANSFER)
        .unwrap();
    e.transition_resources(
        &[BufferTransition {
            buffer: b,
            offset: 0,
            size: None,
            stages: Stages::COMPUTE,
            access: Access::SHADER_READ,
        }],
        &[],
    )
    .unwrap();
    let k = copy_kernel(&c);
    let (src, dst) = (storage(&c, 64), storage(&c, 64));
    let g = group(&c, k.bgl, &[(0, whole(src)), (1, whole(dst))]).unwrap();
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    assert_eq!(c.submit([e.finish().unwrap()]).unwrap(), 1);
}

#[test]
fn a_depth_texture_is_not_registered_on_the_compute_queue() {
    let (first, c) = with_compute_queue();
    let depth = first
        .create_texture(&TextureDescriptor {
            label: "depth",
            size: [4, 4],
            format: TextureFormat::Depth32Float,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let export = first.export_texture(depth).unwrap();
    expect_rule(c.register_texture(&export), Rule::QueueDraws);
    // A color texture crosses.
    let color = first
        .create_texture(&TextureDescriptor {
            label: "color",
            size: [4, 4],
            usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let export = first.export_texture(color).unwrap();
    c.register_texture(&export).unwrap();
}

#[test]
fn waits_name_devices_of_the_native_device_and_serials_they_submitted() {
    let (first, c) = with_compute_queue();
    let other = device();
    let e = encoder(&c);
    expect_rule(
        c.submit_after([e.finish().unwrap()], &[(&other, 0)]),
        Rule::QueueWaitForeign,
    );
    let e = encoder(&c);
    let err = expect_rule(
        c.submit_after([e.finish().unwrap()], &[(&first, 1)]),
        Rule::QueueWaitUnsubmitted,
    );
    assert!(err.message().contains("serial 1"), "{err}");
    // Refused: no serial consumed, nothing run, counted as refused.
    assert_eq!(c.last_submitted_serial(), 0);
    assert_eq!(c.test_backend().submitted_commands().len(), 0);
    assert_eq!(c.stats().refused_submissions, 2);
    // A wait for what the other device submitted (and for serial 0: nothing) goes.
    let done = first.submit([encoder(&first).finish().unwrap()]).unwrap();
    let e = encoder(&c);
    assert_eq!(
        c.submit_after([e.finish().unwrap()], &[(&first, done), (&first, 0)])
            .unwrap(),
        1
    );
    // A device may name itself: its own earlier serial.
    let e = encoder(&c);
    assert_eq!(
        c.submit_after([e.finish().unwrap()], &[(&c, 1)]).unwrap(),
        2
    );
}

#[test]
fn a_gpu_heap_is_shared_with_devices_of_the_native_device_only() {
    let (first, c) = with_compute_queue();
    let heap = first
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "shared",
            size: 256,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    expect_rule(first.share_gpu_heap(heap, &first), Rule::GpuHeapShare);
    let other = device_with(Features::BUFFER_DEVICE_ADDRESS);
    expect_rule(first.share_gpu_heap(heap, &other), Rule::GpuHeapShare);
    let theirs = first.share_gpu_heap(heap, &c).unwrap();
    // The same memory at the same addresses.
    assert_eq!(
        first.gpu_heap_ptr::<u32>(heap, 16).unwrap().address(),
        c.gpu_heap_ptr::<u32>(theirs, 16).unwrap().address()
    );
    first.write_gpu_heap(heap, 0, &[7, 0, 0, 0]).unwrap();
    assert_eq!(c.read_gpu_heap(theirs, 0, 4).unwrap(), [7, 0, 0, 0]);
    // The original's handle goes; the share keeps the memory.
    first.destroy_gpu_heap(heap).unwrap();
    expect_rule(first.read_gpu_heap(heap, 0, 4), Rule::HandleStale);
    c.write_gpu_heap(theirs, 4, &[9, 0, 0, 0]).unwrap();
    assert_eq!(
        c.read_gpu_heap(theirs, 0, 8).unwrap(),
        [7, 0, 0, 0, 9, 0, 0, 0]
    );
    // Its pointers are roots on the device it was shared with.
    let root = c.gpu_heap_ptr::<u32>(theirs, 0).unwrap();
    let mut e = encoder(&c);
    compute_pass(&mut e);
    e.set_root(root).unwrap();
    c.destroy_gpu_heap(theirs).unwrap();
    first.poll().unwrap();
    c.poll().unwrap();
}
