//! A frame through the graph on a real device (validation and synchronization validation
//! on): two compute passes chained through bind groups, recorded by the graph and by
//! hand; both give the same results, read back from the GPU, and the layer stays silent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil::*;
use vigil_graph::{Graph, PassKind, ResourceKey, ResourceState};

fn device() -> (Device, std::sync::Arc<ValidationLog>) {
    let instance = Instance::new(&InstanceDescriptor {
        app_name: "vigil-graph tests".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .expect("a Vulkan instance with the validation layer (run `cargo xtask setup`)");
    let adapter = instance.default_adapter().unwrap();
    let log = instance.validation_log().unwrap();
    let device = adapter
        .request_device(&DeviceDescriptor {
            label: "graph".into(),
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap();
    (device, log)
}

const KERNEL: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> k: vec4<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] * k.x + k.y;
}";

struct Frame {
    pipeline: ComputePipeline,
    first: BindGroup,
    second: BindGroup,
    input: Buffer,
    middle: Buffer,
    output: Buffer,
}

const N: u64 = 256;

fn frame(d: &Device) -> Frame {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "affine",
            wgsl: KERNEL,
        })
        .unwrap();
    let e = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let storage = |read_only| BindingType::Buffer {
        ty: BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "affine",
            entries: &[
                e(0, storage(true)),
                e(1, storage(false)),
                e(
                    2,
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: None,
                    },
                ),
            ],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "affine",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "affine",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let input: Vec<u8> = (0..N as u32).flat_map(|i| i.to_le_bytes()).collect();
    let input = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "input",
            contents: &input,
            usage,
        })
        .unwrap();
    let zeroed = |label| {
        d.create_buffer(&BufferDescriptor {
            label,
            size: N * 4,
            usage,
        })
        .unwrap()
    };
    let (middle, output) = (zeroed("middle"), zeroed("output"));
    // Two parameter blocks 256 bytes apart: (3, 1) and (2, 5); the dynamic offset picks.
    let mut params = vec![0u8; 512];
    params[0..8].copy_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0]);
    params[256..264].copy_from_slice(&[2, 0, 0, 0, 5, 0, 0, 0]);
    let params = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "params",
            contents: &params,
            usage: BufferUsages::UNIFORM,
        })
        .unwrap();
    let group = |src, dst| {
        d.create_bind_group(&BindGroupDescriptor {
            label: "affine",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(src)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(dst)),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer: params,
                        offset: 0,
                        size: Some(16),
                    }),
                },
            ],
        })
        .unwrap()
    };
    Frame {
        pipeline,
        first: group(input, middle),
        second: group(middle, output),
        input,
        middle,
        output,
    }
}

/// The frame as a graph: each pass imports its group (uploads waited for, the middle and
/// output buffers unused before) and dispatches over it.
fn frame_graph(d: &Device, g: &Frame) -> Graph {
    let mut graph: Graph = Graph::new();
    let initial = |key| match key {
        ResourceKey::Buffer(b) if b == g.middle || b == g.output => ResourceState::UNUSED,
        _ => ResourceState::TRANSFER_WRITTEN,
    };
    let first = graph.import_bind_group(d, g.first, &[0], initial).unwrap();
    let second = graph
        .import_bind_group(d, g.second, &[256], initial)
        .unwrap();
    for (name, group) in [("first", first), ("second", second)] {
        let pass = graph.add_pass(name, PassKind::Compute);
        graph.use_group(pass, 0, group).unwrap();
        let pipeline = g.pipeline;
        graph
            .record(pass, move |ctx| {
                ctx.encoder
                    .begin_compute_pass(&ComputePassDescriptor::default())?;
                ctx.encoder.set_compute_pipeline(pipeline)?;
                ctx.set_bind_groups()?;
                ctx.encoder.dispatch(4, 1, 1)?;
                ctx.encoder.end_compute_pass()
            })
            .unwrap();
    }
    graph
}

fn read(d: &Device, b: Buffer) -> Vec<u32> {
    d.read_buffer(b, 0, N * 4)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn a_graph_frame_equals_the_same_frame_recorded_by_hand() {
    let (d, log) = device();
    let want: Vec<u32> = (0..N as u32).map(|i| (i * 3 + 1) * 2 + 5).collect();

    // By hand.
    let f = frame(&d);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "by hand" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(f.pipeline).unwrap();
    e.set_bind_group(0, f.first, &[0]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.set_bind_group(0, f.second, &[256]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    // By hand, the tracker puts the barrier between the dependent dispatches.
    assert_eq!(e.derived_barrier_batches(), 1);
    d.submit([e.finish().unwrap()]).unwrap();
    let by_hand = read(&d, f.output);
    assert_eq!(by_hand, want);

    // Through the graph, twice (compile once, execute many times).
    let g = frame(&d);
    let graph = frame_graph(&d, &g);
    let mut compiled = graph.compile().unwrap();
    // The input and the parameters wait for their uploads before the first pass, the
    // middle buffer for the first pass before the second; the output has nothing before
    // it, and the second pass's parameter read is covered by the first barrier.
    let plan = compiled.plan();
    assert_eq!(plan.passes.len(), 2);
    assert_eq!(plan.barrier_count(), 3, "{plan:#?}");
    for _ in 0..2 {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "graph" })
            .unwrap();
        compiled.execute(&d, &mut e).unwrap();
        // Through the graph, the plan's barriers are the only ones: the passes' own
        // commands needed none.
        assert_eq!(e.derived_barrier_batches(), 0);
        d.submit([e.finish().unwrap()]).unwrap();
        assert_eq!(read(&d, g.output), by_hand);
    }
    assert_eq!(read(&d, g.middle), read(&d, f.middle));
    let _ = (g.input, f.input);
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn transients_sharing_a_buffer_keep_their_contents_apart() {
    use vigil_graph::{TransientBuffer, Usage};
    let (d, log) = device();
    let usage = BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let make = |label, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        d.create_buffer_init(&BufferInitDescriptor {
            label,
            contents: &bytes,
            usage,
        })
        .unwrap()
    };
    let (a, b) = (make("a", &[1; 64]), make("b", &[2; 64]));
    let (out_a, out_b) = (make("out a", &[0; 64]), make("out b", &[0; 64]));
    let mut graph: Graph = Graph::new();
    let ids: Vec<_> = [("a", a), ("b", b)]
        .into_iter()
        .map(|(n, h)| {
            graph
                .import_buffer(n, h, ResourceState::TRANSFER_WRITTEN)
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = [("out a", out_a), ("out b", out_b)]
        .into_iter()
        .map(|(n, h)| {
            graph
                .import_buffer(n, h, ResourceState::TRANSFER_WRITTEN)
                .unwrap()
        })
        .collect();
    let transient =
        |graph: &mut Graph, name| graph.create_buffer(name, TransientBuffer { size: 256, usage });
    let (t1, t2) = (transient(&mut graph, "t1"), transient(&mut graph, "t2"));
    for (name, src, dst) in [
        ("fill t1", ids[0], t1),
        ("drain t1", t1, outs[0]),
        ("fill t2", ids[1], t2),
        ("drain t2", t2, outs[1]),
    ] {
        let pass = graph.add_pass(name, PassKind::Copy);
        graph.uses(pass, src, Usage::CopySrc).unwrap();
        graph.uses(pass, dst, Usage::CopyDst).unwrap();
        graph
            .record(pass, move |ctx| {
                let (Some(s), Some(t)) = (ctx.buffer(src), ctx.buffer(dst)) else {
                    return Ok(());
                };
                ctx.encoder.copy_buffer_to_buffer(s, 0, t, 0, 256)
            })
            .unwrap();
    }
    let mut compiled = graph.compile().unwrap();
    assert_eq!(compiled.plan().backings.len(), 1);
    assert_eq!(compiled.plan().transient_bytes(), 256);
    assert_eq!(compiled.plan().transient_bytes_unaliased, 512);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "aliased" })
        .unwrap();
    compiled.execute(&d, &mut e).unwrap();
    assert_eq!(e.derived_barrier_batches(), 0);
    d.submit([e.finish().unwrap()]).unwrap();
    let words = |buf| -> Vec<u32> {
        d.read_buffer(buf, 0, 256)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    assert_eq!(words(out_a), vec![1; 64]);
    assert_eq!(words(out_b), vec![2; 64]);
    compiled.release(&d).unwrap();
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}

#[test]
fn passes_recorded_on_several_threads_give_the_same_frame() {
    let (d, log) = device();
    let want: Vec<u32> = (0..N as u32).map(|i| (i * 3 + 1) * 2 + 5).collect();
    let g = frame(&d);
    let graph = frame_graph(&d, &g);
    let mut compiled = graph.compile().unwrap();
    for threads in [2, 1, 8] {
        let cbs = compiled.execute_parallel(&d, threads).unwrap();
        assert_eq!(cbs.len(), threads.min(2));
        d.submit(cbs).unwrap();
        assert_eq!(read(&d, g.output), want, "{threads} threads");
    }
    drop(d);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}
