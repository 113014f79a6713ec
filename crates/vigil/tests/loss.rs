//! Loss and bounded waits on a real device: a hung GPU is caught within the stall bound,
//! a slow one that keeps completing work is never cut off, work in flight is bounded, and
//! loss is sticky, shared and attributed to its first cause.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, gpu_with};
use std::time::{Duration, Instant};
use vigil::*;

fn trivial(d: &Device) -> CommandBuffer {
    d.create_command_encoder(&CommandEncoderDescriptor { label: "trivial" })
        .unwrap()
        .finish()
        .unwrap()
}

#[test]
fn a_pause_with_nothing_held_back_resumes_without_loss() {
    // Resuming opens the gate to where it already is; that must not reach the driver as a
    // host signal that does not raise the semaphore (invalid, and reported as loss).
    let d = gpu();
    for _ in 0..3 {
        d.seams().pause_submissions().unwrap();
        d.seams().resume_submissions().unwrap();
    }
    d.seams().pause_submissions().unwrap();
    let serial = d.submit([trivial(&d)]).unwrap();
    d.seams().release_paused(0).unwrap();
    d.seams().resume_submissions().unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
        .unwrap();
    assert!(!d.is_lost());
    assert!(d.completed_serial() >= serial);
}

#[test]
fn a_paused_submission_is_declared_lost_within_the_stall_bound() {
    let d = gpu();
    let other = d.share().unwrap();
    let stall = Duration::from_millis(200);
    d.seams().pause_submissions().unwrap();
    let serial = d.submit([trivial(&d)]).unwrap();
    let late = trivial(&d);
    let t = Instant::now();
    let err = d.wait_for_serial_unless_stalled(serial, stall).unwrap_err();
    let took = t.elapsed();
    assert_eq!(err.kind(), ErrorKind::DeviceLost);
    assert!(
        took >= stall && took < stall + Duration::from_millis(400),
        "gave up after {took:?}"
    );
    let snap = d.loss_snapshot().unwrap();
    assert_eq!(snap.site, WaitSite::SerialWait);
    assert!(
        snap.elapsed >= stall && snap.elapsed < stall + Duration::from_millis(400),
        "{snap:?}"
    );
    // Every later wait returns at once, and every GPU call is refused.
    let t = Instant::now();
    assert_eq!(
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
            .unwrap_err()
            .kind(),
        ErrorKind::DeviceLost
    );
    assert_eq!(
        d.wait_for_serial(serial, Duration::from_secs(30))
            .unwrap_err()
            .kind(),
        ErrorKind::DeviceLost
    );
    assert_eq!(d.submit([late]).unwrap_err().kind(), ErrorKind::DeviceLost);
    assert_eq!(
        d.create_command_encoder(&CommandEncoderDescriptor::default())
            .map(|_| ())
            .unwrap_err()
            .kind(),
        ErrorKind::DeviceLost
    );
    assert_eq!(d.poll().unwrap_err().kind(), ErrorKind::DeviceLost);
    assert!(t.elapsed() < Duration::from_millis(100));
    // The other device over the same native device sees the same loss, with the first cause.
    assert!(other.is_lost());
    assert_eq!(other.loss_snapshot().unwrap(), snap);
    assert_eq!(
        other
            .create_buffer(&BufferDescriptor {
                label: "x",
                size: 4,
                usage: BufferUsages::STORAGE
            })
            .unwrap_err()
            .kind(),
        ErrorKind::DeviceLost
    );
    // A later cause does not overwrite the first.
    d.seams().fail_next_submission();
    assert_eq!(d.loss_snapshot().unwrap().site, WaitSite::SerialWait);
    drop(other);
    let t = Instant::now();
    drop(d);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "teardown opened the gate and drained: {:?}",
        t.elapsed()
    );
}

const SPIN: &str = r#"
struct P { iterations: u32, _pad: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> flags: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var acc = 0u;
    for (var i = 0u; i < p.iterations; i++) {
        // The host never writes this value; the loop runs its full count.
        if flags[0] == 0xfffffff0u { break; }
        acc = acc * 1664525u + flags[(i + id.x) % 64u] + 1u;
    }
    flags[64u + id.x % 64u] = acc;
}
"#;

struct Spin {
    pipeline: ComputePipeline,
    group: BindGroup,
    params: Buffer,
}

fn spin_setup(d: &Device) -> Spin {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "spin",
            wgsl: SPIN,
        })
        .unwrap();
    let e = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "spin",
            entries: &[
                e(
                    0,
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
                e(
                    1,
                    BindingType::Buffer {
                        ty: BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "spin",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "spin",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let params = d
        .create_buffer(&BufferDescriptor {
            label: "spin params",
            size: 8,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .unwrap();
    let flags = d
        .create_buffer(&BufferDescriptor {
            label: "flags",
            size: 512,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "spin",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(params)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(flags)),
                },
            ],
        })
        .unwrap();
    Spin {
        pipeline,
        group,
        params,
    }
}

/// Submits one spin of `iterations` per invocation over 64 workgroups.
fn spin(d: &Device, s: &Spin, iterations: u32) -> u64 {
    d.write_buffer(s.params, 0, &bytes_of(&[iterations, 0]))
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "spin" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(s.pipeline).unwrap();
    e.set_bind_group(0, s.group, &[]).unwrap();
    e.dispatch(64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

/// Iterations that make one spin take about `target` on this device.
fn calibrate(d: &Device, s: &Spin, target: Duration) -> u32 {
    let mut iterations = 1000u32;
    loop {
        let t = Instant::now();
        let serial = spin(d, s, iterations);
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
            .unwrap();
        let took = t.elapsed();
        if took >= Duration::from_millis(40) || iterations >= 1 << 30 {
            let scale = target.as_secs_f64() / took.as_secs_f64().max(1e-4);
            return ((f64::from(iterations) * scale) as u64).clamp(1, u64::from(u32::MAX)) as u32;
        }
        iterations = iterations.saturating_mul(4);
    }
}

#[test]
fn a_shader_that_spins_past_the_stall_bound_is_declared_lost_in_time() {
    let d = gpu();
    let s = spin_setup(&d);
    let iterations = calibrate(&d, &s, Duration::from_millis(1500));
    let stall = Duration::from_millis(200);
    let serial = spin(&d, &s, iterations);
    let t = Instant::now();
    let err = d.wait_for_serial_unless_stalled(serial, stall).unwrap_err();
    let took = t.elapsed();
    assert_eq!(err.kind(), ErrorKind::DeviceLost);
    assert!(
        took >= stall && took < stall + Duration::from_millis(500),
        "gave up after {took:?}"
    );
    assert_eq!(d.loss_snapshot().unwrap().site, WaitSite::SerialWait);
    // Dropping waits for the still-running spin before releasing its objects (the layer
    // would report objects destroyed while in use).
}

#[test]
fn a_slow_device_that_keeps_completing_work_is_never_cut_off() {
    let d = gpu();
    let s = spin_setup(&d);
    // About 1.5 s of work in 50 ms pieces: well past the bound even if the device turns
    // out several times faster than calibrated, and never 400 ms without a completion.
    let iterations = calibrate(&d, &s, Duration::from_millis(50));
    let stall = Duration::from_millis(400);
    let t = Instant::now();
    let mut last = 0;
    for _ in 0..30 {
        last = spin(&d, &s, iterations);
    }
    d.wait_for_serial_unless_stalled(last, stall).unwrap();
    assert!(!d.is_lost());
    assert!(
        t.elapsed() > stall,
        "the stream outlasted the stall bound ({:?}) without being cut off",
        t.elapsed()
    );
}

#[test]
fn submissions_wait_for_room_while_work_progresses() {
    let d = gpu_with(|a| DeviceDescriptor {
        required_limits: a.limits().clone(),
        max_command_buffers_in_flight: 2,
        ..DeviceDescriptor::default()
    });
    d.seams().hold_next_completion();
    let first = d.submit([trivial(&d)]).unwrap();
    d.submit([trivial(&d)]).unwrap();
    assert_eq!(d.seams().command_buffers_in_flight(), 2);
    let handle = d.seams().handle();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        handle.release_held_completion();
    });
    let t = Instant::now();
    let third = d.submit([trivial(&d)]).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "the third submission waited for room"
    );
    assert_eq!(third, first + 2);
    assert_eq!(d.seams().room_waits(), 1);
    releaser.join().unwrap();
    assert!(!d.is_lost());
}

#[test]
fn a_submission_with_no_room_and_no_progress_declares_loss_and_is_refused() {
    let d = gpu_with(|a| DeviceDescriptor {
        required_limits: a.limits().clone(),
        max_command_buffers_in_flight: 2,
        ..DeviceDescriptor::default()
    });
    d.seams().set_stall_timeout(Duration::from_millis(200));
    d.seams().pause_submissions().unwrap();
    d.submit([trivial(&d)]).unwrap();
    let last = d.submit([trivial(&d)]).unwrap();
    let t = Instant::now();
    let err = d.submit([trivial(&d)]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceLost);
    assert!(
        t.elapsed() < Duration::from_millis(800),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(d.last_submitted_serial(), last, "no serial consumed");
    assert_eq!(d.loss_snapshot().unwrap().site, WaitSite::QueueWait);
}

#[test]
fn the_total_wait_cap_bounds_a_room_wait_that_sees_progress() {
    let d = gpu_with(|a| DeviceDescriptor {
        required_limits: a.limits().clone(),
        max_command_buffers_in_flight: 1,
        ..DeviceDescriptor::default()
    });
    d.seams().set_stall_timeout(Duration::from_secs(20));
    d.seams().set_wait_cap(Duration::from_millis(250));
    d.seams().pause_submissions().unwrap();
    d.submit([trivial(&d)]).unwrap();
    let t = Instant::now();
    assert_eq!(
        d.submit([trivial(&d)]).unwrap_err().kind(),
        ErrorKind::DeviceLost
    );
    assert!(t.elapsed() >= Duration::from_millis(250) && t.elapsed() < Duration::from_secs(2));
    let snap = d.loss_snapshot().unwrap();
    assert_eq!(snap.site, WaitSite::QueueWait);
    assert!(snap.reason.contains("total wait cap"), "{snap}");
}

#[test]
fn a_failed_submission_is_lost_through_the_completion_path() {
    let d = gpu();
    let ok = d.submit([trivial(&d)]).unwrap();
    d.seams().fail_next_submission();
    let bad = d.submit([trivial(&d)]).unwrap();
    assert_eq!(
        d.wait_for_serial_unless_stalled(bad, Duration::from_secs(10))
            .unwrap_err()
            .kind(),
        ErrorKind::DeviceLost
    );
    assert!(
        d.completed_serial() >= ok && d.completed_serial() < bad,
        "completed {} ok {ok} bad {bad}",
        d.completed_serial()
    );
    let snap = d.loss_snapshot().unwrap();
    assert_eq!(
        (snap.site, snap.elapsed),
        (WaitSite::Driver, Duration::ZERO)
    );
}

#[test]
fn a_long_submission_whose_passes_keep_finishing_is_never_cut_off() {
    let d = gpu();
    let s = spin_setup(&d);
    // One submission of about 1.5 s in 30 passes of about 50 ms: the serial moves only
    // at its end, but every pass leaves a breadcrumb the waits count as progress. The
    // calibration runs while other tests load the CPU (lavapipe), so a submission that
    // came out shorter than the stall bound proves nothing: it is made longer and run
    // again (the check is that a long one is never cut off, whatever its length).
    let stall = Duration::from_millis(400);
    let mut iterations = calibrate(&d, &s, Duration::from_millis(50));
    let mut outlasted = false;
    for _ in 0..4 {
        d.write_buffer(s.params, 0, &bytes_of(&[iterations, 0]))
            .unwrap();
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "long" })
            .unwrap();
        for _ in 0..30 {
            e.begin_compute_pass(&ComputePassDescriptor::default())
                .unwrap();
            e.set_compute_pipeline(s.pipeline).unwrap();
            e.set_bind_group(0, s.group, &[]).unwrap();
            e.dispatch(64, 1, 1).unwrap();
            e.end_compute_pass().unwrap();
        }
        let t = Instant::now();
        let serial = d.submit([e.finish().unwrap()]).unwrap();
        d.wait_for_serial_unless_stalled(serial, stall).unwrap();
        assert!(!d.is_lost());
        if t.elapsed() > stall {
            outlasted = true;
            break;
        }
        iterations = iterations.saturating_mul(4);
    }
    assert!(
        outlasted,
        "no submission outlasted the stall bound ({stall:?}), so none tested the cut-off"
    );
}

#[test]
fn the_device_stall_bound_governs_its_own_waits() {
    // A read waits for the buffer's last use with the device's stall bound: a spin far
    // longer than it is declared lost after the bound, attributed to the serial wait.
    let d = gpu_with(|adapter| DeviceDescriptor {
        label: "short stall".into(),
        required_limits: adapter.limits().clone(),
        stall_timeout: Duration::from_millis(300),
        ..DeviceDescriptor::default()
    });
    let s = spin_setup(&d);
    let iterations = calibrate(&d, &s, Duration::from_millis(2000));
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "after the spin",
            size: 4,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(s.params, 0, &bytes_of(&[iterations, 0]))
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "spin" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(s.pipeline).unwrap();
    e.set_bind_group(0, s.group, &[]).unwrap();
    e.dispatch(64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.clear_buffer(out, 0, None).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let t = Instant::now();
    let err = d.read_buffer(out, 0, 4).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceLost, "{err}");
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "gave up after the 300 ms bound: {:?}",
        t.elapsed()
    );
}
