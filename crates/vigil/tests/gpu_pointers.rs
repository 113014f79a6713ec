//! The GPU-pointer tier on a real device with the validation layer on: a linked list built
//! by the CPU in a heap, walked by a shader through pointers from one root, results read
//! back from a readback heap; and the checks on roots and heaps.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, gpu_requiring};
use std::time::Duration;
use vigil::*;

fn device() -> Gpu {
    gpu_requiring(Features::BUFFER_DEVICE_ADDRESS, "gpu pointers")
}

/// Walks the list from `root.head`, writing the sum of the values and the node count.
const WALK: &str = "
layout(buffer_reference) buffer Node;
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Node { uint value; uint pad; Node next; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Out { uint sum; uint count; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Node head; Out result; };
VIGIL_ROOT(Root);
layout(local_size_x = 1) in;
void main() {
    Node n = vigil.root.head;
    uint sum = 0u;
    uint count = 0u;
    while (!VIGIL_IS_NULL(n) && count < 100000u) {
        sum += n.value;
        count += 1u;
        n = n.next;
    }
    vigil.root.result.sum = sum;
    vigil.root.result.count = count;
}
";

/// What the CPU lays out: `#[repr(C)]` twins of the shader's blocks.
#[repr(C)]
struct Root {
    head: GpuPtr<Node>,
    result: GpuPtr<Out>,
}
#[repr(C)]
struct Node {
    value: u32,
    pad: u32,
    next: GpuPtr<Node>,
}
#[repr(C)]
struct Out {
    sum: u32,
    count: u32,
}

fn heap(d: &Device, label: &str, size: u64, kind: HeapKind) -> GpuHeap {
    d.create_gpu_heap(&GpuHeapDescriptor { label, size, kind })
        .unwrap()
}

fn walk(d: &Device, pipeline: ComputePipeline, root: GpuPtr<Root>) -> CommandBuffer {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "walk" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_root(root).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.finish().unwrap()
}

/// Lays out `n` nodes in a scrambled order after the root; returns the expected sum.
fn build_list(d: &Device, nodes: GpuHeap, out: GpuHeap, n: u32) -> u32 {
    // Node i sits in slot (i * 7919) % n: following `next` jumps around the heap.
    let slot = |i: u32| u64::from((i.wrapping_mul(7919)) % n);
    let node_at = |i: u32| d.gpu_heap_ptr::<Node>(nodes, 256 + slot(i) * 16).unwrap();
    let mut sum = 0u32;
    for i in 0..n {
        let value = i * 3 + 1;
        sum = sum.wrapping_add(value);
        let next = if i + 1 < n {
            node_at(i + 1)
        } else {
            GpuPtr::NULL
        };
        let mut bytes = Vec::with_capacity(16);
        bytes.extend_from_slice(&value.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&next.to_bytes());
        d.write_gpu_heap(nodes, 256 + slot(i) * 16, &bytes).unwrap();
    }
    let mut root = Vec::with_capacity(16);
    root.extend_from_slice(&node_at(0).to_bytes());
    root.extend_from_slice(&d.gpu_heap_ptr::<Out>(out, 0).unwrap().to_bytes());
    d.write_gpu_heap(nodes, 0, &root).unwrap();
    sum
}

#[test]
fn a_shader_walks_a_linked_list_the_cpu_built() {
    let d = device();
    let pipeline = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "walk",
            glsl: WALK,
            cache: None,
        })
        .unwrap();
    let nodes = heap(&d, "nodes", 256 + 1000 * 16, HeapKind::CpuVisible);
    let out = heap(&d, "out", 256, HeapKind::Readback);
    let want = build_list(&d, nodes, out, 1000);
    let root = d.gpu_heap_ptr::<Root>(nodes, 0).unwrap();
    let serial = d.submit([walk(&d, pipeline, root)]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let got = d.read_gpu_heap(out, 0, 8).unwrap();
    let sum = u32::from_le_bytes(got[0..4].try_into().unwrap());
    let count = u32::from_le_bytes(got[4..8].try_into().unwrap());
    assert_eq!((sum, count), (want, 1000));
    // The list cut after 10 nodes: the same pipeline, the same root, the new contents.
    let tenth = d
        .gpu_heap_ptr::<Node>(nodes, 256 + u64::from((9u32 * 7919) % 1000) * 16)
        .unwrap();
    d.write_gpu_heap(
        nodes,
        tenth.address() - root.address() + 8,
        &GpuPtr::<Node>::NULL.to_bytes(),
    )
    .unwrap();
    let serial = d.submit([walk(&d, pipeline, root)]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let got = d.read_gpu_heap(out, 0, 8).unwrap();
    let want10: u32 = (0..10u32).map(|i| i * 3 + 1).sum();
    assert_eq!(got, [want10.to_le_bytes(), 10u32.to_le_bytes()].concat());
    d.finish();
}

#[test]
fn pointer_pipelines_are_created_through_saved_pipeline_caches() {
    // The walk pipeline through a fresh cache, then through one loaded from its saved
    // data: both walk the list; a destroyed cache is refused before anything compiles.
    let d = device();
    let nodes = heap(&d, "nodes", 256 + 100 * 16, HeapKind::CpuVisible);
    let out = heap(&d, "out", 256, HeapKind::Readback);
    let want = build_list(&d, nodes, out, 100);
    let root = d.gpu_heap_ptr::<Root>(nodes, 0).unwrap();
    let walk_with = |cache| {
        let pipeline = d
            .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
                label: "walk",
                glsl: WALK,
                cache: Some(cache),
            })
            .unwrap();
        let serial = d.submit([walk(&d, pipeline, root)]).unwrap();
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
            .unwrap();
        let got = d.read_gpu_heap(out, 0, 8).unwrap();
        assert_eq!(got, [want.to_le_bytes(), 100u32.to_le_bytes()].concat());
    };
    let (first, _, _) = common::through_saved_cache(&d, walk_with);
    d.destroy_pipeline_cache(first).unwrap();
    let err = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "walk",
            glsl: WALK,
            cache: Some(first),
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidHandle, "{err}");
    d.finish();
}

#[test]
fn roots_and_heaps_are_checked() {
    let d = device();
    let pipeline = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "walk",
            glsl: WALK,
            cache: None,
        })
        .unwrap();
    let nodes = heap(&d, "nodes", 1024, HeapKind::CpuVisible);
    let out = heap(&d, "out", 256, HeapKind::Readback);
    build_list(&d, nodes, out, 4);
    let root = d.gpu_heap_ptr::<Root>(nodes, 0).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "checks" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    // A dispatch before any root: refused (it would follow a null pointer).
    assert_eq!(e.dispatch(1, 1, 1).unwrap_err().rule(), Rule::GpuRoot);
    drop(e);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "checks" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    // A root past the heap's end, or between heaps: refused.
    let past = GpuPtr::<Root>::NULL;
    assert_eq!(e.set_root(past).unwrap_err().rule(), Rule::GpuPointer);
    drop(e);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "checks" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    // The root's bytes cannot be written as plain immediate data.
    assert_eq!(
        e.set_immediates(0, &[0; 8]).unwrap_err().rule(),
        Rule::GpuRoot
    );
    drop(e);
    // Pointers the CPU makes stay inside their heap.
    assert_eq!(
        d.gpu_heap_ptr::<Root>(nodes, 1024 - 8).unwrap_err().rule(),
        Rule::GpuPointer
    );
    assert_eq!(
        d.gpu_heap_ptr::<Root>(nodes, 4).unwrap_err().rule(),
        Rule::GpuPointer
    );
    // The CPU writes only CPU-visible heaps, inside them.
    assert_eq!(
        d.write_gpu_heap(out, 0, &[0; 4]).unwrap_err().rule(),
        Rule::GpuHeapAccess
    );
    assert_eq!(
        d.write_gpu_heap(nodes, 1020, &[0; 8]).unwrap_err().rule(),
        Rule::GpuHeapAccess
    );
    // A command buffer whose root's heap was destroyed after recording: refused.
    let cb = walk(&d, pipeline, root);
    let serial = d.submit([walk(&d, pipeline, root)]).unwrap();
    d.destroy_gpu_heap(nodes).unwrap();
    assert_eq!(d.submit([cb]).unwrap_err().rule(), Rule::SubmitDestroyed);
    // The submission made before the destroy still completes, reading the heap.
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let got = d.read_gpu_heap(out, 0, 8).unwrap();
    assert_eq!(got[4..8], 4u32.to_le_bytes());
    // A module that does not compile: refused with glslc's words.
    let err = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "broken",
            glsl: "void main() { undefined_thing = 1; }",
            cache: None,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::GpuShader);
    assert!(err.to_string().contains("undefined_thing"), "{err}");
    d.finish();
}

/// Adds one to the `uint` the root points at.
const BUMP: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
layout(local_size_x = 1) in;
void main() { vigil.root.value += 1u; }
";

#[test]
fn dispatches_sharing_heap_memory_are_ordered_by_the_applications_barriers() {
    let d = device();
    let bump = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "bump",
            glsl: BUMP,
            cache: None,
        })
        .unwrap();
    let counters = heap(&d, "counters", 64, HeapKind::Readback);
    let a = d.gpu_heap_ptr::<u32>(counters, 0).unwrap();
    let b = d.gpu_heap_ptr::<u32>(counters, 4).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "bumps" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(bump).unwrap();
    // Three bumps of `a`, each after a barrier from the one before; one of `b`.
    for _ in 0..3 {
        e.set_root(a).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e.memory_barrier(Stages::COMPUTE, Stages::COMPUTE).unwrap();
    }
    e.set_root(b).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let got = d.read_gpu_heap(counters, 0, 8).unwrap();
    assert_eq!(got, [3u32.to_le_bytes(), 1u32.to_le_bytes()].concat());
    d.finish();
}

/// Writes `(4, 1, 1)` where the root points: the workgroup counts of the next dispatch.
const WRITE_ARGS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Args { uint x; uint y; uint z; };
VIGIL_ROOT(Args);
layout(local_size_x = 1) in;
void main() { vigil.root.x = 4u; vigil.root.y = 1u; vigil.root.z = 1u; }
";

/// Each workgroup adds one to the word at the root.
const COUNT: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
layout(local_size_x = 1) in;
void main() { atomicAdd(vigil.root.value, 1u); }
";

/// Writes `(1, 65536, 1)` where the root points: past the limit of a device whose
/// smallest `maxComputeWorkGroupCount` is Vulkan's minimum, 65,535 (lavapipe's and the
/// H200's), and small enough to run, and be counted, if the check let it through.
const WRITE_HUGE_ARGS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Args { uint x; uint y; uint z; };
VIGIL_ROOT(Args);
layout(local_size_x = 1) in;
void main() { vigil.root.x = 1u; vigil.root.y = 65536u; vigil.root.z = 1u; }
";

#[test]
fn counts_past_the_limit_read_from_a_heap_dispatch_nothing() {
    let d = device();
    assert_eq!(
        d.limits().max_compute_workgroups_per_dimension,
        65535,
        "the test's counts are past this limit only"
    );
    let pipe = |label, glsl| {
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label,
            glsl,
            cache: None,
        })
        .unwrap()
    };
    let write_ok = pipe("write args", WRITE_ARGS);
    let write_huge = pipe("write huge args", WRITE_HUGE_ARGS);
    let count = pipe("count", COUNT);
    let work = heap(&d, "work", 256, HeapKind::GpuOnly);
    let out = heap(&d, "out", 64, HeapKind::Readback);
    let ok = d.gpu_heap_ptr::<[u32; 3]>(work, 16).unwrap();
    let huge = d.gpu_heap_ptr::<[u32; 3]>(work, 36).unwrap();
    let counter = d.gpu_heap_ptr::<u32>(out, 0).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "huge" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(write_ok).unwrap();
    e.set_root(ok).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_compute_pipeline(write_huge).unwrap();
    e.set_root(huge).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.memory_barrier(Stages::COMPUTE, Stages::DRAW_INDIRECT)
        .unwrap();
    e.set_compute_pipeline(count).unwrap();
    e.set_root(counter).unwrap();
    // Past the limit: nothing. Then 4 workgroups, then one direct: the check in front of
    // each indirect dispatch leaves the pipeline and the root as they were.
    e.dispatch_indirect_at(huge).unwrap();
    e.dispatch_indirect_at(ok).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    assert_eq!(d.read_gpu_heap(out, 0, 4).unwrap(), 5u32.to_le_bytes());
    assert!(!d.is_lost());
    d.finish();
}

#[test]
fn a_dispatch_reads_its_workgroup_counts_from_a_heap_the_gpu_wrote() {
    let d = device();
    let pipe = |label, glsl| {
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label,
            glsl,
            cache: None,
        })
        .unwrap()
    };
    let (write_args, count) = (pipe("write args", WRITE_ARGS), pipe("count", COUNT));
    let work = heap(&d, "work", 256, HeapKind::GpuOnly);
    let out = heap(&d, "out", 64, HeapKind::Readback);
    let args = d.gpu_heap_ptr::<[u32; 3]>(work, 16).unwrap();
    let counter = d.gpu_heap_ptr::<u32>(out, 0).unwrap();
    // One dispatch writes the counts, a barrier, then a dispatch reads them.
    let record = || {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor {
                label: "gpu-driven",
            })
            .unwrap();
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        e.set_compute_pipeline(write_args).unwrap();
        e.set_root(args).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e.memory_barrier(Stages::COMPUTE, Stages::DRAW_INDIRECT | Stages::COMPUTE)
            .unwrap();
        e.set_compute_pipeline(count).unwrap();
        e.set_root(counter).unwrap();
        e.dispatch_indirect_at(args).unwrap();
        e
    };
    // Arguments outside every heap: refused (and that encoder is dropped).
    let mut e = record();
    assert_eq!(
        e.dispatch_indirect_at(GpuPtr::NULL).unwrap_err().rule(),
        Rule::GpuPointer
    );
    drop(e);
    let mut e = record();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    assert_eq!(d.read_gpu_heap(out, 0, 4).unwrap(), 4u32.to_le_bytes());
    d.finish();
}

/// Vertices fetched through the root (`positions[gl_VertexIndex]`), the color from it too:
/// both stages see the same root.
const PULL_VS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Positions { vec2 p[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Positions positions; vec4 color; };
VIGIL_ROOT(Root);
void main() { gl_Position = vec4(vigil.root.positions.p[gl_VertexIndex], 0.0, 1.0); }
";
const PULL_FS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Positions { vec2 p[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Positions positions; vec4 color; };
VIGIL_ROOT(Root);
layout(location = 0) out vec4 color;
void main() { color = vigil.root.color; }
";

/// The one RGBA8 target the pull pipeline draws into.
const PULL_TARGETS: [Option<ColorTargetState>; 1] = [Some(ColorTargetState {
    format: TextureFormat::Rgba8Unorm,
    blend: None,
    write_mask: ColorWrites::ALL,
})];

/// The pointer render pipeline of [`PULL_VS`] and [`PULL_FS`].
fn pull_pipeline(d: &Device) -> RenderPipeline {
    d.create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
        label: "pull",
        vertex_glsl: PULL_VS,
        fragment: Some((PULL_FS, &PULL_TARGETS)),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        sample_count: 1,
        cache: None,
    })
    .unwrap()
}

/// An encoder with a render pass open on `view` (cleared to opaque black) and `pipeline`
/// bound.
fn clear_pass(d: &Device, view: TextureView, pipeline: RenderPipeline) -> CommandEncoder {
    let mut e = common::clear_pass(d, "pull", view, [0.0, 0.0, 0.0, 1.0]);
    e.set_render_pipeline(pipeline).unwrap();
    e
}

/// Ends `e`'s render pass, submits it, waits, and reads the 32×32 `target` back.
fn end_and_read(d: &Device, mut e: CommandEncoder, target: Texture) -> Vec<u8> {
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    d.read_texture(target, TexelCopyTextureInfo::default(), [32, 32])
        .unwrap()
}

/// A 256-byte CPU-visible heap holding the pull pipeline's scene: its root at 0 (the
/// positions pointer, then the color at offset 8: scalar layout) and one triangle's
/// positions at 64; bytes 128 on are the caller's. Returns the heap and the root.
fn pull_scene(d: &Device) -> (GpuHeap, GpuPtr<[f32; 6]>) {
    let data = heap(d, "scene", 256, HeapKind::CpuVisible);
    let root = d.gpu_heap_ptr::<[f32; 6]>(data, 0).unwrap();
    let positions = d.gpu_heap_ptr::<[f32; 6]>(data, 64).unwrap();
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut root_bytes = positions.to_bytes().to_vec();
    // 0.4 is 102 exactly in 8 bits (0.5 would round either way: drivers differ).
    root_bytes.extend(f(&[0.0, 0.4, 1.0, 1.0]));
    d.write_gpu_heap(data, 0, &root_bytes).unwrap();
    d.write_gpu_heap(data, 64, &f(&[-0.5, -0.5, 0.5, -0.5, 0.0, 0.5]))
        .unwrap();
    (data, root)
}

#[test]
fn a_triangle_is_drawn_from_vertices_fetched_through_pointers() {
    let d = device();
    let targets = PULL_TARGETS;
    let pipeline = pull_pipeline(&d);
    // The scene and the draw's arguments, all in one CPU-visible heap.
    let (data, root) = pull_scene(&d);
    let args = d.gpu_heap_ptr::<[u32; 4]>(data, 128).unwrap();
    let a: Vec<u8> = [3u32, 1, 0, 0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    d.write_gpu_heap(data, 128, &a).unwrap();
    let indices = d.gpu_heap_ptr::<u32>(data, 192).unwrap();
    let i: Vec<u8> = [2u32, 0, 1].iter().flat_map(|x| x.to_le_bytes()).collect();
    d.write_gpu_heap(data, 192, &i).unwrap();
    let (target, view) = common::readable_target(&d, [32, 32]);
    for mode in ["direct", "indirect", "indexed", "draw_root"] {
        let mut e = clear_pass(&d, view, pipeline);
        // A draw before the root: refused.
        if mode == "direct" {
            let mut probe = d
                .create_command_encoder(&CommandEncoderDescriptor { label: "probe" })
                .unwrap();
            probe
                .begin_render_pass(&RenderPassDescriptor {
                    label: "probe",
                    color_attachments: &[Some(common::loaded(view))],
                    ..RenderPassDescriptor::default()
                })
                .unwrap();
            probe.set_render_pipeline(pipeline).unwrap();
            assert_eq!(probe.draw(0..3, 0..1).unwrap_err().rule(), Rule::GpuRoot);
        }
        if mode == "draw_root" {
            // Draws that take their root: the first checks it, the second (the same root
            // in the same heap) takes the short path; both draw the same triangle.
            e.draw_root(root, 0..3, 0..1).unwrap();
            e.draw_root(root, 0..3, 0..1).unwrap();
        } else {
            e.set_root(root).unwrap();
        }
        match mode {
            "draw_root" => {}
            "indirect" => e.draw_indirect_at(args).unwrap(),
            "indexed" => e
                .draw_indexed_at(indices, IndexFormat::Uint32, 3, 0, 0..1)
                .unwrap(),
            _ => e.draw(0..3, 0..1).unwrap(),
        }
        let pixels = end_and_read(&d, e, target);
        let at = |x: usize, y: usize| &pixels[(y * 32 + x) * 4..(y * 32 + x) * 4 + 4];
        assert_eq!(at(16, 16), [0, 102, 255, 255], "inside ({mode})");
        assert_eq!(at(1, 1), [0, 0, 0, 255], "outside ({mode})");
    }
    // A fragment shader whose output type does not match the target: refused.
    let err = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "mismatch",
            vertex_glsl: PULL_VS,
            fragment: Some((
                "layout(location = 0) out uvec4 color; void main() { color = uvec4(1u); }",
                &targets,
            )),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::FragmentOutput);
    d.finish();
}

// The seam is the `test-seams` feature's (the suite's command builds with it).
#[cfg(feature = "test-seams")]
#[test]
fn without_indirect_first_instance_a_draw_by_address_naming_another_draws_nothing() {
    // As on a device without drawIndirectFirstInstance (the seam makes this one check as
    // such a device would): arguments by address naming a first instance other than 0 draw
    // nothing, those naming 0 draw.
    let d = device();
    d.seams().check_indirect_first_instance();
    let pipeline = pull_pipeline(&d);
    let (data, root) = pull_scene(&d);
    let words: Vec<u8> = [3u32, 1, 0, 3, 3, 1, 0, 0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    d.write_gpu_heap(data, 128, &words).unwrap();
    let (target, view) = common::readable_target(&d, [32, 32]);
    for (offset, drawn) in [(128, false), (144, true)] {
        let args = d.gpu_heap_ptr::<[u32; 4]>(data, offset).unwrap();
        let mut e = clear_pass(&d, view, pipeline);
        e.set_root(root).unwrap();
        e.draw_indirect_at(args).unwrap();
        let pixels = end_and_read(&d, e, target);
        let at = |x: usize, y: usize| &pixels[(y * 32 + x) * 4..(y * 32 + x) * 4 + 4];
        let inside: &[u8] = if drawn {
            &[0, 102, 255, 255]
        } else {
            &[0, 0, 0, 255]
        };
        assert_eq!(at(16, 16), inside, "inside (arguments at {offset})");
        assert_eq!(at(1, 1), [0, 0, 0, 255], "outside (arguments at {offset})");
    }
    d.finish();
}

#[test]
fn draws_that_take_their_roots_each_push_their_own() {
    let d = device();
    let pipeline = pull_pipeline(&d);
    // Two roots in one heap: a triangle on the left in orange, one on the right in blue.
    let data = heap(&d, "scene", 256, HeapKind::CpuVisible);
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut roots = Vec::new();
    for (i, (positions, color)) in [
        ([-0.9, -0.5, -0.1, -0.5, -0.5, 0.5], [1.0, 0.4, 0.0, 1.0]),
        ([0.1, -0.5, 0.9, -0.5, 0.5, 0.5], [0.0, 0.4, 1.0, 1.0]),
    ]
    .iter()
    .enumerate()
    {
        let at = i as u64 * 32;
        let p = d.gpu_heap_ptr::<[f32; 6]>(data, 64 + at * 2).unwrap();
        d.write_gpu_heap(data, 64 + at * 2, &f(positions)).unwrap();
        let mut root = p.to_bytes().to_vec();
        root.extend(f(color));
        d.write_gpu_heap(data, at, &root).unwrap();
        roots.push(d.gpu_heap_ptr::<[f32; 6]>(data, at).unwrap());
    }
    let (target, view) = common::readable_target(&d, [32, 32]);
    let mut e = clear_pass(&d, view, pipeline);
    // Alternating roots, each draw its own: every one after the first takes the short path.
    for i in [0, 1, 0, 1, 1] {
        e.draw_root(roots[i], 0..3, 0..1).unwrap();
    }
    let pixels = end_and_read(&d, e, target);
    let at = |x: usize, y: usize| &pixels[(y * 32 + x) * 4..(y * 32 + x) * 4 + 4];
    assert_eq!(at(8, 16), [255, 102, 0, 255], "the left triangle");
    assert_eq!(at(24, 16), [0, 102, 255, 255], "the right triangle");
    assert_eq!(at(16, 16), [0, 0, 0, 255], "between them");
    d.finish();
}

/// Sums `n` words of a slice the root points at into the root's `sum`.
const SUM: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Words words; uint n; uint sum; };
VIGIL_ROOT(Root);
layout(local_size_x = 1) in;
void main() {
    uint s = 0u;
    for (uint i = 0u; i < vigil.root.n; i++) { s += vigil.root.words.v[i]; }
    vigil.root.sum = s;
}
";

#[test]
fn typed_values_and_slices_are_written_read_and_followed() {
    let d = device();
    let h = heap(&d, "values", 1024, HeapKind::CpuVisible);
    // A slice of 100 words at byte 256, written as values; the root (pointer, count, sum)
    // at byte 0 as plain data: [u32; 4] is the block's scalar layout.
    let words = d.gpu_heap_slice::<u32>(h, 256, 100).unwrap();
    assert_eq!(words.len(), 100);
    assert_eq!(
        words.get(99).unwrap().address(),
        words.ptr().address() + 396
    );
    assert!(words.get(100).is_none());
    let values: Vec<u32> = (1..=100).collect();
    d.write_gpu_values(h, 256, &values).unwrap();
    let address = words.ptr().address();
    let root = [address as u32, (address >> 32) as u32, 100, 0];
    d.write_gpu_values(h, 0, &[root]).unwrap();
    assert_eq!(d.read_gpu_values::<u32>(h, 256, 3).unwrap(), vec![1, 2, 3]);
    // Checked: alignment of the values, room in the heap, the heap's kind.
    assert_eq!(
        d.write_gpu_values(h, 2, &[1u32]).unwrap_err().rule(),
        Rule::GpuPointer
    );
    assert_eq!(
        d.read_gpu_values::<u64>(h, 4, 1).unwrap_err().rule(),
        Rule::GpuPointer
    );
    assert_eq!(
        d.gpu_heap_slice::<u32>(h, 256, 200).unwrap_err().rule(),
        Rule::GpuPointer
    );
    assert_eq!(
        d.write_gpu_values(h, 1020, &[1u32, 2]).unwrap_err().rule(),
        Rule::GpuHeapAccess
    );
    let gpu_only = heap(&d, "gpu only", 64, HeapKind::GpuOnly);
    assert_eq!(
        d.write_gpu_values(gpu_only, 0, &[1u32]).unwrap_err().rule(),
        Rule::GpuHeapAccess
    );
    let sum = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "sum",
            glsl: SUM,
            cache: None,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "sum" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(sum).unwrap();
    e.set_root(d.gpu_heap_ptr::<[u32; 4]>(h, 0).unwrap())
        .unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    assert_eq!(d.read_gpu_values::<[u32; 4]>(h, 0, 1).unwrap()[0][3], 5050);
    d.finish();
}
