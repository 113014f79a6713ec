//! The counted workloads: a device on the test backend, set up outside the count, and a
//! fixed number of operations inside [`measured`].

use vigil::*;

/// Every workload, in the order the guard counts them.
pub const NAMES: &[&str] = &[
    "draw",
    "root_draw",
    "draw_root",
    "dispatch",
    "set_bind_group",
    "submit",
    "write64",
    "write64_direct",
    "create_destroy",
    "frame",
    "frame_idle",
    "copy_early",
    "copy_late",
];

/// Operations one run of `workload` counts.
pub fn operations(workload: &str) -> Option<u64> {
    Some(match workload {
        "draw"
        | "root_draw"
        | "draw_root"
        | "dispatch"
        | "dispatch_indirect"
        | "draw_indexed_indirect"
        | "multi_draw_indexed_indirect"
        | "set_bind_group"
        | "write64"
        | "write64_direct" => 10_000,
        w if CALLS.contains(&w) => 10_000,
        "submit" | "copy_early" | "copy_late" => SUBMITS as u64,
        "create_destroy" => 1_000,
        "frame" | "frame_idle" => FRAMES as u64,
        _ => return None,
    })
}

/// The `draw` workload's calls one kind at a time, counted apart (`vigil-count calls`, in
/// `vigil-count-calls`) and kept out of the guard: a diagnosis, not a figure to hold.
pub const CALLS: &[&str] = &[
    "draw.set_bind_group",
    "draw.bundle",
    "draw.bundle_frame",
    "draw.set_vertex_buffer",
    "draw.set_index_buffer",
    "draw.draw_indexed",
    "draw.group_draw",
];

/// Distinct bind groups the recording workloads cycle through (as the benchmarks do).
pub(crate) const GROUPS: u32 = 1_000;
/// Submissions counted by `submit`, each of a command buffer that used every group.
const SUBMITS: usize = 20;
/// Frames counted by `frame` and `frame_idle`.
const FRAMES: usize = 10;
/// Idle buffers and idle textures (each) beside `frame_idle`'s frame, as the
/// idle-resources benchmark has.
const IDLE: usize = 10_000;

/// The device kind every workload uses.
pub type D = Device<TestApi>;

/// Set by `vigil-count time`: [`measured`] then records how long it ran.
pub static TIMING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Nanoseconds the last [`measured`] call ran (when [`TIMING`] is set).
pub static LAST_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs `f`: the only function whose instructions (and its callees') are counted.
#[inline(never)]
pub fn measured<R>(f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::Ordering::Relaxed;
    if !TIMING.load(Relaxed) {
        return std::hint::black_box(f());
    }
    let start = std::time::Instant::now();
    let r = std::hint::black_box(f());
    let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    LAST_NS.store(ns, Relaxed);
    r
}

pub(crate) fn device() -> D {
    device_with(Features::empty())
}

fn device_with(required_features: Features) -> D {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    adapter
        .request_device(&DeviceDescriptor {
            required_features,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap()
}

pub(crate) fn buffer(d: &D, size: u64, usage: BufferUsages) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label: "b",
        size,
        usage,
    })
    .unwrap()
}

/// Runs one workload (uncounted unless under callgrind). `None` for an unknown name.
pub fn run(workload: &str) -> Option<()> {
    match workload {
        "draw" => draw(),
        "root_draw" => root_draw(false),
        "draw_root" => root_draw(true),
        "dispatch" => dispatch(false),
        "set_bind_group" => dispatch(true),
        "submit" => submit(),
        "write64" => write64(),
        "write64_direct" => write64_direct(),
        "create_destroy" => create_destroy(),
        "frame" => frame(0),
        "frame_idle" => frame(IDLE),
        "copy_early" => copies(false),
        "copy_late" => copies(true),
        _ => return None,
    }
    Some(())
}

/// Small submissions, each of one copy between two buffers and its completion, beside
/// `IDLE` idle buffers made before the two (`late`: the copied buffers' registry slots come
/// after the idle ones') or after them. The two rows should count about the same: what a
/// recording and its completion cost follows what it uses, not how old the objects it
/// uses are.
fn copies(late: bool) {
    let d = device();
    let usage = BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let mut idle = Vec::new();
    let mut make_idle = || {
        for _ in 0..IDLE {
            idle.push(buffer(&d, 256, usage));
        }
    };
    if late {
        make_idle();
    }
    let (a, b) = (buffer(&d, 256, usage), buffer(&d, 256, usage));
    if !late {
        make_idle();
    }
    let one = || {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .unwrap();
        e.copy_buffer_to_buffer(a, 0, b, 0, 256).unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        d.poll().unwrap();
    };
    one();
    measured(|| {
        for _ in 0..SUBMITS {
            one();
        }
    });
    drop(idle);
}

/// What the `draws` frame draws with.
pub struct DrawSet {
    /// The device (test backend).
    pub d: D,
    pub(crate) pipeline: RenderPipeline,
    pub(crate) groups: Vec<BindGroup>,
    pub(crate) vbs: Vec<Buffer>,
    pub(crate) ibs: Vec<Buffer>,
}

/// The `draws` benchmark's objects: 1,000 bind groups (a texture view, a sampler, a
/// uniform range), four vertex buffers, three index buffers and a pipeline.
pub fn draw_set() -> DrawSet {
    draw_set_of(GROUPS)
}

/// [`draw_set`] with `count` distinct bind groups (1 to 1,000), repeated in order to fill
/// the set's 1,000 places: a frame cycles through `count` groups.
pub fn draw_set_of(count: u32) -> DrawSet {
    let count = count.clamp(1, GROUPS);
    let d = device();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "draw",
            wgsl: r#"
struct P { t: vec4<f32> }
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<uniform> p: P;
@vertex fn vs(@location(0) c: vec2<f32>) -> @builtin(position) vec4<f32> { return vec4<f32>(c, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return textureSampleLevel(tex, samp, vec2<f32>(0.5), 0.0) * p.t; }
"#,
        })
        .unwrap();
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::FRAGMENT,
        ty,
        array: None,
    };
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "draw",
            entries: &[
                entry(
                    0,
                    BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: true },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(1, BindingType::Sampler(SamplerBindingType::Filtering)),
                entry(
                    2,
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "draw",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let attributes = [VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    }];
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = d
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "draw",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &[VertexBufferLayout {
                    array_stride: 8,
                    step_mode: VertexStepMode::Vertex,
                    attributes: &attributes,
                }],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .unwrap();
    let views: Vec<TextureView> = (0..16)
        .map(|_| {
            let t = d
                .create_texture(&TextureDescriptor {
                    label: "t",
                    size: [4, 4],
                    format: TextureFormat::Rgba8Unorm,
                    usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                    ..TextureDescriptor::default()
                })
                .unwrap();
            d.create_texture_view(t, &TextureViewDescriptor::default())
                .unwrap()
        })
        .collect();
    let sampler = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    let uniforms = buffer(&d, u64::from(count) * 256, BufferUsages::UNIFORM);
    let vbs: Vec<Buffer> = (0..4)
        .map(|_| buffer(&d, 32, BufferUsages::VERTEX))
        .collect();
    let ibs: Vec<Buffer> = (0..3)
        .map(|_| buffer(&d, 12, BufferUsages::INDEX))
        .collect();
    let groups: Vec<BindGroup> = (0..count)
        .map(|g| {
            d.create_bind_group(&BindGroupDescriptor {
                label: "g",
                layout: bgl,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::TextureView(views[(g % 16) as usize]),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::Sampler(sampler),
                    },
                    BindGroupEntry {
                        binding: 2,
                        resource: BindingResource::Buffer(BufferBinding {
                            buffer: uniforms,
                            offset: u64::from(g) * 256,
                            size: Some(16),
                        }),
                    },
                ],
            })
            .unwrap()
        })
        .collect();
    let groups = (0..GROUPS as usize)
        .map(|i| groups[i % groups.len()])
        .collect();
    DrawSet {
        d,
        pipeline,
        groups,
        vbs,
        ibs,
    }
}

impl DrawSet {
    /// Per draw a bind group, a vertex buffer, an index buffer and an indexed draw.
    pub fn record(&self, e: &mut CommandEncoder<TestApi>, draws: u32) {
        self.record_from(e, draws, 0);
    }

    /// As [`DrawSet::record`], the groups taken from the `first`th on.
    pub fn record_from(&self, e: &mut CommandEncoder<TestApi>, draws: u32, first: u32) {
        let (groups, vbs, ibs) = (&self.groups, &self.vbs, &self.ibs);
        for i in 0..draws {
            e.set_bind_group(0, groups[(i.wrapping_add(first) % GROUPS) as usize], &[])
                .unwrap();
            e.set_vertex_buffer(0, vbs[(i % 4) as usize], 0, None)
                .unwrap();
            e.set_index_buffer(ibs[(i % 3) as usize], IndexFormat::Uint16, 0, None)
                .unwrap();
            e.draw_indexed(0..6, 0, i..i + 1).unwrap();
        }
    }

    /// The device's second encoder, with a render pass open on a new target and the
    /// pipeline bound: one frame of 10,000 draws is recorded, submitted and waited for
    /// (polled, on this backend that completes at once) first, as in the benchmark's
    /// repetitions, so the second reserves its tables as far as the first grew and takes
    /// the first's emptied tables.
    pub fn second_encoder(&self) -> CommandEncoder<TestApi> {
        let mut w = self.encoder();
        self.record(&mut w, 10_000);
        w.end_render_pass().unwrap();
        self.d.submit([w.finish().unwrap()]).unwrap();
        self.d.poll().unwrap();
        self.encoder()
    }

    /// An encoder with a render pass open on a new target and the pipeline bound.
    pub fn encoder(&self) -> CommandEncoder<TestApi> {
        render_pass(&self.d, "draw", self.pipeline)
    }

    /// An encoder with a render pass open on `view` and the pipeline bound.
    pub fn encoder_on(&self, view: TextureView) -> CommandEncoder<TestApi> {
        render_pass_on(&self.d, view, "draw", self.pipeline)
    }

    /// A 64×64 RGBA8 target's view.
    pub fn target(&self) -> TextureView {
        let t = self
            .d
            .create_texture(&TextureDescriptor {
                label: "target",
                size: [64, 64],
                format: TextureFormat::Rgba8Unorm,
                usage: TextureUsages::RENDER_ATTACHMENT,
                ..TextureDescriptor::default()
            })
            .unwrap();
        self.d
            .create_texture_view(t, &TextureViewDescriptor::default())
            .unwrap()
    }
}

/// The `draws` benchmark's frame (see [`draw_set`]), counted. One frame is recorded and
/// submitted first, uncounted, as in the benchmark's repetitions: the counted recording
/// is a device's second, whose tables are reserved as far as the first one's grew
/// (`TableHints`), where a device's first recording grows them as it goes.
fn draw() {
    let s = draw_set();
    let mut e = s.second_encoder();
    measured(|| s.record(&mut e, 10_000));
    e.end_render_pass().unwrap();
    s.d.submit([e.finish().unwrap()]).unwrap();
}

/// The idle-resources benchmark's frame: the `draws` frame recorded (10,000 draws, from
/// creating the encoder to finishing it) and submitted, with `idle` unrelated buffers and
/// as many textures live on the device, made and first submitted outside the count.
/// `frame_idle` (10,000 of each) against `frame` (none) is what the idle objects cost
/// vigil's own code per frame; the guard requires it within 1%.
fn frame(idle: usize) {
    let s = draw_set();
    let target = s.target();
    let mut kept = Vec::new();
    for _ in 0..idle {
        let b = buffer(&s.d, 256, BufferUsages::STORAGE | BufferUsages::COPY_DST);
        let t =
            s.d.create_texture(&TextureDescriptor {
                label: "idle",
                size: [4, 4],
                format: TextureFormat::Rgba8Unorm,
                usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                ..TextureDescriptor::default()
            })
            .unwrap();
        kept.push((b, t));
    }
    let one = || {
        let mut e = s.encoder_on(target);
        s.record(&mut e, 10_000);
        e.end_render_pass().unwrap();
        let cb = e.finish().unwrap();
        s.d.submit([cb]).unwrap();
        s.d.poll().unwrap();
    };
    // The first frame makes the idle objects' first layouts and zero fills.
    one();
    measured(|| {
        for _ in 0..FRAMES {
            one();
        }
    });
    drop(kept);
}

/// The `tier-draws` benchmark's frame: per draw a root (of 10,000, one per object record
/// in one heap) and a six-vertex draw of a pointer pipeline; `set_root` then `draw`, or
/// with `one_call` both in `draw_root`.
fn root_draw(one_call: bool) {
    let d = device_with(Features::BUFFER_DEVICE_ADDRESS);
    let object = "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Corners { vec2 c[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Object { vec2 origin; uint color; uint pad; Corners corners; };
VIGIL_ROOT(Object);
";
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let pipeline = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "root_draw",
            vertex_glsl: &format!(
                "{object}void main() {{ gl_Position = vec4(vigil.root.origin + vigil.root.corners.c[gl_VertexIndex % 4], 0.0, 1.0); }}"
            ),
            fragment: Some((
                &format!(
                    "{object}layout(location = 0) out vec4 color; void main() {{ color = unpackUnorm4x8(vigil.root.color); }}"
                ),
                &targets,
            )),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap();
    let heap = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "objects",
            size: 10_000 * 32,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    let roots: Vec<GpuPtr<[u64; 3]>> = (0..10_000u64)
        .map(|i| d.gpu_heap_ptr(heap, i * 32).unwrap())
        .collect();
    let record = |e: &mut CommandEncoder<TestApi>| {
        for root in &roots {
            if one_call {
                e.draw_root(*root, 0..6, 0..1).unwrap();
            } else {
                e.set_root(*root).unwrap();
                e.draw(0..6, 0..1).unwrap();
            }
        }
    };
    // One frame first, uncounted: its pool goes back with its command list grown, so the
    // counted frame's list does not grow (whether glibc grew it in place or copied it
    // moved this count by 8% between builds that did not touch its path).
    let mut e = render_pass(&d, "root_draw", pipeline);
    record(&mut e);
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.test_backend().complete_through(serial);
    d.poll().unwrap();
    let mut e = render_pass(&d, "root_draw", pipeline);
    measured(|| record(&mut e));
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

/// An encoder with a render pass open on a new 64×64 RGBA8 target, `pipeline` bound.
fn render_pass(d: &D, label: &'static str, pipeline: RenderPipeline) -> CommandEncoder<TestApi> {
    let target = d
        .create_texture(&TextureDescriptor {
            label: "target",
            size: [64, 64],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(target, &TextureViewDescriptor::default())
        .unwrap();
    render_pass_on(d, view, label, pipeline)
}

/// An encoder with a render pass open on `view`, `pipeline` bound.
fn render_pass_on(
    d: &D,
    view: TextureView,
    label: &'static str,
    pipeline: RenderPipeline,
) -> CommandEncoder<TestApi> {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label })
        .unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        label,
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.set_render_pipeline(pipeline).unwrap();
    e
}

/// A compute kernel over one uniform range and one storage buffer per group.
pub(crate) struct Compute {
    pub(crate) pipeline: ComputePipeline,
    pub(crate) groups: Vec<BindGroup>,
}

pub(crate) fn compute(d: &D) -> Compute {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "dispatch",
            wgsl: r#"
struct Params { value: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) { out[lid] = out[lid] + params.value * 64u + lid; }
"#,
        })
        .unwrap();
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "dispatch",
            entries: &[
                entry(0, BufferBindingType::Uniform),
                entry(1, BufferBindingType::Storage { read_only: false }),
            ],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "dispatch",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "dispatch",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let uniforms = buffer(d, u64::from(GROUPS) * 256, BufferUsages::UNIFORM);
    let groups = (0..GROUPS)
        .map(|g| {
            let out = buffer(d, 256, BufferUsages::STORAGE);
            d.create_bind_group(&BindGroupDescriptor {
                label: "g",
                layout: bgl,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::Buffer(BufferBinding {
                            buffer: uniforms,
                            offset: u64::from(g) * 256,
                            size: Some(16),
                        }),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::Buffer(BufferBinding::whole(out)),
                    },
                ],
            })
            .unwrap()
        })
        .collect();
    Compute { pipeline, groups }
}

/// The `dispatches` benchmark's pass: per dispatch a bind group (of 1,000) and a dispatch;
/// with `binds_only`, the binds alone. As with [`draw`], a first pass is recorded and
/// submitted uncounted (always with its dispatches, as the benchmark's are).
fn dispatch(binds_only: bool) {
    let d = device();
    let c = compute(&d);
    dispatch_pass(&d, &c, false, false);
    dispatch_pass(&d, &c, binds_only, true);
}

/// One pass of [`dispatch`], its recording counted if `counted`.
fn dispatch_pass(d: &D, c: &Compute, binds_only: bool, counted: bool) {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "dispatch" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(c.pipeline).unwrap();
    let mut record = || {
        for i in 0..10_000u32 {
            e.set_bind_group(0, c.groups[(i % GROUPS) as usize], &[])
                .unwrap();
            if !binds_only {
                e.dispatch(1, 1, 1).unwrap();
            }
        }
    };
    if counted {
        measured(record);
    } else {
        record();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    // Waited for, as the benchmark waits for each frame: the next pass's encoder takes
    // this one's emptied tables.
    d.poll().unwrap();
}

/// Submissions of command buffers that each used all 1,000 groups.
fn submit() {
    let d = device();
    let c = compute(&d);
    let record = || {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "submit" })
            .unwrap();
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        e.set_compute_pipeline(c.pipeline).unwrap();
        for &g in &c.groups {
            e.set_bind_group(0, g, &[]).unwrap();
            e.dispatch(1, 1, 1).unwrap();
        }
        e.end_compute_pass().unwrap();
        e.finish().unwrap()
    };
    // The first submission zeroes the buffers; the counted ones find them in use. It is
    // waited for (polled) before the counted ones, so they let go of no recording but
    // their own.
    d.submit([record()]).unwrap();
    d.poll().unwrap();
    let cbs: Vec<CommandBuffer<TestApi>> = (0..SUBMITS).map(|_| record()).collect();
    measured(|| {
        for cb in cbs {
            d.submit([cb]).unwrap();
        }
    });
    d.poll().unwrap();
}

/// 64-byte queue writes to a buffer the GPU is still using (so each is staged).
fn write64() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let b = buffer(
        &d,
        64 * 10_000,
        BufferUsages::STORAGE | BufferUsages::COPY_DST,
    );
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "busy" })
        .unwrap();
    e.clear_buffer(b, 0, None).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let data = [7u8; 64];
    measured(|| {
        for i in 0..10_000u64 {
            d.write_buffer(b, i * 64, &data).unwrap();
        }
    });
    assert_eq!(d.write_stats().direct_writes, 0, "every write was staged");
    d.test_backend().complete_through(d.last_submitted_serial());
}

/// 64-byte queue writes into an idle buffer whose memory the host sees (the test
/// backend's always is): each goes straight into the buffer under the queue lock, no
/// staging (the path a device with host-visible device memory takes, as lavapipe does).
fn write64_direct() {
    let d = device();
    let b = buffer(
        &d,
        64 * 10_000,
        BufferUsages::STORAGE | BufferUsages::COPY_DST,
    );
    let data = [7u8; 64];
    measured(|| {
        for i in 0..10_000u64 {
            d.write_buffer(b, i * 64, &data).unwrap();
        }
    });
    assert_eq!(
        d.write_stats().direct_writes,
        10_000,
        "every write was direct"
    );
}

/// A storage buffer and a bind group naming it, created and destroyed.
fn create_destroy() {
    let d = device();
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "churn",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                array: None,
            }],
        })
        .unwrap();
    measured(|| {
        for _ in 0..1_000 {
            let b = buffer(&d, 256, BufferUsages::STORAGE);
            let g = d
                .create_bind_group(&BindGroupDescriptor {
                    label: "churn",
                    layout: bgl,
                    entries: &[BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::Buffer(BufferBinding::whole(b)),
                    }],
                })
                .unwrap();
            d.destroy_bind_group(g).unwrap();
            d.destroy_buffer(b).unwrap();
        }
    });
}

/// Runs `workload` (with `run`, the binary's own runner) `reps` times in this process and
/// prints the wall-clock time per operation of the counted part: median, lowest and
/// highest. Not a benchmark of vigil against anything (`vigil bench` is); it tells how fast
/// this machine executes the instructions the guard counts. `None` (nothing printed) when
/// `run` does not know the workload.
pub fn time(workload: &str, reps: usize, run: impl Fn(&str) -> Option<()>) -> Option<()> {
    use std::sync::atomic::Ordering::Relaxed;
    TIMING.store(true, Relaxed);
    let ops = operations(workload)? as f64;
    let mut per_op = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        run(workload)?;
        per_op.push(LAST_NS.load(Relaxed) as f64 / ops);
    }
    per_op.sort_by(f64::total_cmp);
    let median = per_op[per_op.len() / 2];
    println!(
        "{workload}: {median:.1} ns per operation (median of {}; {:.1} to {:.1})",
        per_op.len(),
        per_op[0],
        per_op[per_op.len() - 1]
    );
    Some(())
}
