//! The CPU/GPU timeline on a real device: creation, recording and submission spans on the
//! CPU, pass and submission times from GPU timestamps, collected without waiting, and the
//! Chrome trace export.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32};
use std::time::Duration;
use vigil::*;

const DOUBLE: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) { data[id.x] = data[id.x] * 2u; }
}
"#;

struct Job {
    pipeline: ComputePipeline,
    group: BindGroup,
    data: Buffer,
}

fn job(d: &Device) -> Job {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "double",
            wgsl: DOUBLE,
        })
        .unwrap();
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "double",
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
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "double",
            bind_group_layouts: &[layout],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "double",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let data = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "numbers",
            contents: &bytes_of(&(0..256).collect::<Vec<u32>>()),
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "double",
            layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding {
                    buffer: data,
                    offset: 0,
                    size: None,
                }),
            }],
        })
        .unwrap();
    Job {
        pipeline,
        group,
        data,
    }
}

fn record(d: &Device, j: &Job, label: &str, passes: &[&str]) -> CommandBuffer {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label })
        .unwrap();
    for p in passes {
        e.begin_compute_pass(&ComputePassDescriptor {
            label: p,
            ..Default::default()
        })
        .unwrap();
        e.set_compute_pipeline(j.pipeline).unwrap();
        e.set_bind_group(0, j.group, &[]).unwrap();
        e.dispatch(4, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
    }
    e.finish().unwrap()
}

fn find<'t>(t: &'t Timeline, name: &str) -> Vec<&'t TimelineEvent> {
    t.events.iter().filter(|e| e.name == name).collect()
}

#[test]
fn the_timeline_shows_cpu_spans_and_gpu_pass_times_side_by_side() {
    let g = gpu();
    let d = &*g;
    assert!(
        d.features().contains(Features::TIMESTAMP_QUERY),
        "the test devices have timestamps"
    );
    d.start_timeline().unwrap();
    let j = job(d);
    let cb = record(d, &j, "frame", &["first", "second"]);
    let serial = d.submit([cb]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
        .unwrap();
    // The work itself is unchanged by the timestamps around its passes.
    let doubled: Vec<u32> = (0..256).map(|i| i * 4).collect();
    assert_eq!(read_u32(d, j.data, 256), doubled);
    let t = d.timeline().unwrap();
    let cpu = |name: &str, category: &str| {
        let found = find(&t, name);
        assert_eq!(found.len(), 1, "{name}: {:#?}", t.events);
        assert_eq!(found[0].category, category, "{name}");
        assert!(matches!(found[0].track, Track::Cpu(_)), "{name}");
        found[0].clone()
    };
    cpu("create_buffer_init 'numbers'", "create");
    cpu("create_compute_pipeline 'double'", "create");
    let rec = cpu("record 'frame'", "record");
    let first_cpu = cpu("record compute pass 'first'", "pass");
    assert!(
        first_cpu.start_ns >= rec.start_ns && first_cpu.start_ns <= rec.start_ns + rec.duration_ns
    );
    let submit = cpu(&format!("submit #{serial}"), "submit");
    // On the GPU row: the command buffer, each pass inside it, and the submission
    // around its command buffers, placed no earlier than the submission was made.
    let gpu_pass = |name: &str| {
        let found = find(&t, &format!("compute pass '{name}' in 'frame'"));
        assert_eq!(found.len(), 1, "{name}: {:#?}", t.events);
        assert_eq!(found[0].track, Track::Gpu);
        found[0].clone()
    };
    let (a, b) = (gpu_pass("first"), gpu_pass("second"));
    assert!(a.start_ns >= submit.start_ns, "{a:?} before {submit:?}");
    assert!(
        b.start_ns >= a.start_ns + a.duration_ns,
        "passes in order: {a:?} {b:?}"
    );
    let cb = find(&t, "command buffer 'frame'");
    assert_eq!(cb.len(), 1, "{:#?}", t.events);
    assert!(cb[0].start_ns >= submit.start_ns);
    assert!(cb[0].start_ns <= a.start_ns);
    assert!(cb[0].start_ns + cb[0].duration_ns >= b.start_ns + b.duration_ns);
    let whole = find(&t, &format!("submission #{serial} (GPU)"));
    assert_eq!(whole.len(), 1);
    assert_eq!(
        (whole[0].start_ns, whole[0].duration_ns),
        (cb[0].start_ns, cb[0].duration_ns)
    );
    // The trace: both rows named, every span a complete event.
    let trace = t.to_chrome_trace();
    assert!(trace.starts_with("[\n") && trace.ends_with("]\n"));
    assert!(trace.contains("\"name\":\"thread_name\",\"args\":{\"name\":\"GPU\"}"));
    assert_eq!(trace.matches("\"ph\":\"X\"").count(), t.events.len());
    // The picture: a bar per event, both rows named.
    let svg = t.to_svg(800);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    assert_eq!(svg.matches("<rect x=").count(), t.events.len());
    assert!(svg.contains(">GPU</text>") && svg.contains(">CPU thread 0</text>"));
    // Collected events are drained; a command buffer without passes (a copy) is on the
    // GPU row too.
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "copy target",
            size: 1024,
            usage: BufferUsages::COPY_DST,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "copy only" })
        .unwrap();
    e.copy_buffer_to_buffer(j.data, 0, out, 0, 1024).unwrap();
    let copied = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(copied, Duration::from_secs(10))
        .unwrap();
    let later = d.timeline().unwrap();
    assert!(find(&later, "record 'frame'").is_empty());
    assert_eq!(find(&later, "command buffer 'copy only'").len(), 1);
    assert_eq!(
        find(&later, &format!("submission #{copied} (GPU)")).len(),
        1
    );
}

#[test]
fn collecting_never_waits_for_the_gpu() {
    let g = gpu();
    let d = &*g;
    d.start_timeline().unwrap();
    let j = job(d);
    d.seams().pause_submissions().unwrap();
    let serial = d.submit([record(d, &j, "held", &["held pass"])]).unwrap();
    // The submission is held at the gate: collecting returns at once, without its GPU
    // times, and leaves them for later.
    let t = d.timeline().unwrap();
    assert!(d.completed_serial() < serial);
    assert!(find(&t, "compute pass 'held pass' in 'held'").is_empty());
    assert_eq!(find(&t, &format!("submit #{serial}")).len(), 1);
    d.seams().resume_submissions().unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
        .unwrap();
    let t = d.timeline().unwrap();
    assert_eq!(find(&t, "compute pass 'held pass' in 'held'").len(), 1);
    // Stopped (and collected), the timeline's own query sets and buffers are gone.
    let count = |kind: &str| {
        d.live_objects()
            .into_iter()
            .find(|(k, _)| *k == kind)
            .map_or(0, |(_, n)| n)
    };
    assert!(count("query sets") > 0);
    d.stop_timeline();
    d.timeline().unwrap();
    assert_eq!(count("query sets"), 0, "{:?}", d.live_objects());
}

#[test]
fn a_pass_with_its_own_timestamps_keeps_them_and_an_unstarted_timeline_records_nothing() {
    let g = gpu();
    let d = &*g;
    let j = job(d);
    let cb = record(d, &j, "quiet", &["p"]);
    let serial = d.submit([cb]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
        .unwrap();
    // Never started: nothing recorded, and collecting makes nothing of its own.
    let live = d.live_native_objects();
    assert!(d.timeline().unwrap().events.is_empty());
    assert_eq!(d.live_native_objects(), live);
    // Started: a pass that names its own query set writes that one, not the timeline's.
    d.start_timeline().unwrap();
    let set = d.create_query_set("mine", 2).unwrap();
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "ticks",
            size: 16,
            usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "own" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor {
        label: "timed by the caller",
        timestamp_writes: Some(PassTimestampWrites {
            query_set: set,
            beginning: Some(0),
            end: Some(1),
        }),
    })
    .unwrap();
    e.set_compute_pipeline(j.pipeline).unwrap();
    e.set_bind_group(0, j.group, &[]).unwrap();
    e.dispatch(4, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.resolve_query_set(set, 0, 2, out, 0).unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
        .unwrap();
    let ticks = read_u32(d, out, 4);
    let (b, e) = (
        u64::from(ticks[0]) | u64::from(ticks[1]) << 32,
        u64::from(ticks[2]) | u64::from(ticks[3]) << 32,
    );
    assert!(
        e >= b && b > 0,
        "the caller's queries were written: {b} {e}"
    );
    // The timeline timed it too, with timestamps of its own around the pass.
    let t = d.timeline().unwrap();
    assert_eq!(
        find(&t, "compute pass 'timed by the caller' in 'own'").len(),
        1
    );
    assert_eq!(
        find(&t, "record compute pass 'timed by the caller'").len(),
        1
    );
}

/// A `tracing` subscriber that remembers the `op` and `label` of every span opened.
#[derive(Default)]
struct Spans(std::sync::Mutex<Vec<String>>);

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push_str(&format!("{}={value} ", field.name()));
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
}

impl tracing::Subscriber for Spans {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut f = Fields(String::new());
        span.record(&mut f);
        let mut all = self.0.lock().unwrap();
        all.push(f.0.trim_end().to_owned());
        tracing::span::Id::from_u64(all.len() as u64)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn creation_recording_and_submission_are_tracing_spans() {
    let g = gpu();
    let d = &*g;
    let spans = std::sync::Arc::new(Spans::default());
    tracing::subscriber::with_default(spans.clone(), || {
        let j = job(d);
        let serial = d.submit([record(d, &j, "traced", &["step"])]).unwrap();
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
            .unwrap();
    });
    let seen = spans.0.lock().unwrap().clone();
    for want in [
        "op=create_compute_pipeline label=double",
        "op=create_buffer_init label=numbers",
        "op=record label=traced",
        "op=compute pass label=step",
        "op=submit label=test device",
    ] {
        assert!(seen.iter().any(|s| s == want), "{want} not in {seen:#?}");
    }
}
