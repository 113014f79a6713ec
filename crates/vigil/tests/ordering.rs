//! Ordering on a real device: chains of dependent passes, copies and submissions whose
//! results are only right when the barriers are.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32, src_dst_kernel};
use vigil::*;

/// `dst[i] = src[i] + 1` with many rounds of busy work so a missing barrier shows.
const STEP: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&dst) { return; }
    var v = src[i];
    var spin = 0u;
    for (var r = 0u; r < 64u; r++) { spin = spin * 1664525u + 1013904223u + v; }
    dst[i] = v + 1u + (spin & 0u);
}
"#;

struct Step {
    bgl: BindGroupLayout,
    pipeline: ComputePipeline,
}

fn step(d: &Device) -> Step {
    let (pipeline, bgl) = src_dst_kernel(d, "step", STEP);
    Step { bgl, pipeline }
}

fn pair(d: &Device, s: &Step, src: Buffer, dst: Buffer) -> BindGroup {
    d.create_bind_group(&BindGroupDescriptor {
        label: "step",
        layout: s.bgl,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding::whole(src)),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::Buffer(BufferBinding::whole(dst)),
            },
        ],
    })
    .unwrap()
}

const N: usize = 1 << 16;

fn buffers(d: &Device) -> (Buffer, Buffer) {
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let a = d
        .create_buffer(&BufferDescriptor {
            label: "ping",
            size: N as u64 * 4,
            usage,
        })
        .unwrap();
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "pong",
            size: N as u64 * 4,
            usage,
        })
        .unwrap();
    (a, b)
}

#[test]
fn a_chain_of_dependent_dispatches_in_one_pass() {
    let d = gpu();
    let s = step(&d);
    let (a, b) = buffers(&d);
    let start: Vec<u32> = (0..N as u32).collect();
    d.write_buffer(a, 0, &bytes_of(&start)).unwrap();
    let ab = pair(&d, &s, a, b);
    let ba = pair(&d, &s, b, a);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "chain" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(s.pipeline).unwrap();
    for i in 0..20 {
        e.set_bind_group(0, if i % 2 == 0 { ab } else { ba }, &[])
            .unwrap();
        e.dispatch((N / 64) as u32, 1, 1).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let out = read_u32(&d, a, N);
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, i as u32 + 20, "element {i}");
    }
}

#[test]
fn a_chain_across_passes_copies_and_submissions() {
    let d = gpu();
    let s = step(&d);
    let (a, b) = buffers(&d);
    let start: Vec<u32> = (0..N as u32).map(|i| i * 3).collect();
    d.write_buffer(a, 0, &bytes_of(&start)).unwrap();
    let ab = pair(&d, &s, a, b);
    let mut expected_add = 0;
    for round in 0..6 {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "round" })
            .unwrap();
        for _ in 0..3 {
            // b = a + 1 (compute), then a = b (copy): +1 per step, each step depends on the last.
            e.begin_compute_pass(&ComputePassDescriptor::default())
                .unwrap();
            e.set_compute_pipeline(s.pipeline).unwrap();
            e.set_bind_group(0, ab, &[]).unwrap();
            e.dispatch((N / 64) as u32, 1, 1).unwrap();
            e.end_compute_pass().unwrap();
            e.copy_buffer_to_buffer(b, 0, a, 0, N as u64 * 4).unwrap();
            expected_add += 1;
        }
        // Alternate: submit now, or queue a write that must land after this round.
        d.submit([e.finish().unwrap()]).unwrap();
        if round == 2 {
            // A queued write to a buffer in use lands after the work submitted before it.
            d.write_buffer(a, 0, &bytes_of(&[7777])).unwrap();
        }
    }
    let out = read_u32(&d, a, N);
    for (i, v) in out.iter().enumerate().skip(1) {
        assert_eq!(*v, i as u32 * 3 + expected_add, "element {i}");
    }
    assert_eq!(out[0], 7777 + 9, "the write landed between rounds 3 and 4");
}

#[test]
fn several_command_buffers_in_one_submission_are_ordered() {
    let d = gpu();
    let s = step(&d);
    let (a, b) = buffers(&d);
    d.write_buffer(a, 0, &bytes_of(&vec![5u32; N])).unwrap();
    let ab = pair(&d, &s, a, b);
    let ba = pair(&d, &s, b, a);
    let mut cbs = Vec::new();
    for i in 0..8 {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "part" })
            .unwrap();
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        e.set_compute_pipeline(s.pipeline).unwrap();
        e.set_bind_group(0, if i % 2 == 0 { ab } else { ba }, &[])
            .unwrap();
        e.dispatch((N / 64) as u32, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
        cbs.push(e.finish().unwrap());
    }
    let serial = d.submit(cbs).unwrap();
    d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(30))
        .unwrap();
    assert!(read_u32(&d, a, N).iter().all(|v| *v == 13));
}

#[test]
fn many_buffers_written_by_one_submission_are_read_right_by_the_next() {
    // 40 buffers written by dispatches in one submission and read by copies in the next:
    // the second submission's first uses need more barriers than it records one by one,
    // so they go as one global barrier; the results must still be right.
    let d = gpu();
    let s = step(&d);
    let n = 40usize;
    let mut srcs = Vec::new();
    let mut dsts = Vec::new();
    for i in 0..n {
        let (src, dst) = buffers(&d);
        d.write_buffer(src, 0, &bytes_of(&vec![i as u32 * 100; 256]))
            .unwrap();
        srcs.push(src);
        dsts.push(dst);
    }
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "write" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(s.pipeline).unwrap();
    for (src, dst) in srcs.iter().zip(&dsts) {
        let g = pair(&d, &s, *src, *dst);
        e.set_bind_group(0, g, &[]).unwrap();
        e.dispatch(4, 1, 1).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "gathered",
            size: (n * 1024) as u64,
            usage: BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "gather" })
        .unwrap();
    for (i, dst) in dsts.iter().enumerate() {
        e.copy_buffer_to_buffer(*dst, 0, out, (i * 1024) as u64, 1024)
            .unwrap();
    }
    d.submit([e.finish().unwrap()]).unwrap();
    let words = read_u32(&d, out, n * 256);
    for i in 0..n {
        assert!(
            words[i * 256..(i + 1) * 256]
                .iter()
                .all(|w| *w == i as u32 * 100 + 1),
            "buffer {i}: {:?}",
            &words[i * 256..i * 256 + 4]
        );
    }
}

/// One frame over `(a, b)`: a submission of two dispatches, `a` into `b` then `b` into `a`
/// (each adds 1), so `a` gains 2. With `wait`, the frame is waited for before returning.
fn ping_pong_frame(d: &Device, s: &Step, ab: BindGroup, ba: BindGroup, wait: bool) {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(s.pipeline).unwrap();
    for g in [ab, ba] {
        e.set_bind_group(0, g, &[]).unwrap();
        e.dispatch((N / 64) as u32, 1, 1).unwrap();
    }
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    if wait {
        d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(30))
            .unwrap();
    }
}

#[test]
fn a_frame_repeated_reuses_its_head_and_stays_ordered() {
    // Every frame's first uses need the same two barriers against the frame before (a
    // read of what it wrote, a write over what it read): from the third frame on, the head
    // recorded for the second is submitted again. The sums say every barrier was there.
    let d = gpu();
    let s = step(&d);
    let (a, b) = buffers(&d);
    let start: Vec<u32> = (0..N as u32).collect();
    d.write_buffer(a, 0, &bytes_of(&start)).unwrap();
    let (ab, ba) = (pair(&d, &s, a, b), pair(&d, &s, b, a));
    let before = d.stats();
    const FRAMES: u32 = 12;
    for _ in 0..FRAMES {
        ping_pong_frame(&d, &s, ab, ba, true);
    }
    let after = d.stats();
    let out = read_u32(&d, a, N);
    assert!(
        out.iter().zip(&start).all(|(o, s)| *o == s + 2 * FRAMES),
        "{:?}",
        &out[..4]
    );
    // At most the first two frames' heads are recorded (the first frame's first uses
    // meet the upload's writes, not a frame's); every later frame's is submitted again.
    let (recorded, reused) = (
        after.heads_recorded - before.heads_recorded,
        after.heads_reused - before.heads_reused,
    );
    assert!(recorded <= 2, "{recorded} heads recorded");
    assert!(reused >= u64::from(FRAMES - 2), "{reused} heads reused");
    assert!(recorded + reused <= u64::from(FRAMES));
}

#[test]
fn frames_in_flight_and_more_heads_than_are_kept_stay_ordered() {
    // Ten pairs of buffers take frames in turn, without waiting: ten different heads,
    // more than the device keeps, some needed again while the last submission of theirs
    // is still running. Each pair's sums must come out exact.
    let d = gpu();
    let s = step(&d);
    let pairs: Vec<(Buffer, BindGroup, BindGroup, u32)> = (0..10u32)
        .map(|i| {
            let (a, b) = buffers(&d);
            d.write_buffer(a, 0, &bytes_of(&vec![i * 1000; N])).unwrap();
            (a, pair(&d, &s, a, b), pair(&d, &s, b, a), i * 1000)
        })
        .collect();
    const ROUNDS: u32 = 4;
    for _ in 0..ROUNDS {
        for (i, (_, ab, ba, _)) in pairs.iter().enumerate() {
            ping_pong_frame(&d, &s, *ab, *ba, i % 3 == 0);
        }
    }
    for (a, _, _, base) in &pairs {
        let out = read_u32(&d, *a, N);
        assert!(
            out.iter().all(|v| *v == base + 2 * ROUNDS),
            "base {base}: {:?}",
            &out[..4]
        );
    }
}

#[test]
fn a_head_naming_destroyed_buffers_is_not_submitted_for_new_ones() {
    // A kept head names its buffers; once they are destroyed, frames over new buffers
    // (which may be made where the old ones were) must get heads of their own.
    let d = gpu();
    let s = step(&d);
    for round in 0..3u32 {
        let (a, b) = buffers(&d);
        d.write_buffer(a, 0, &bytes_of(&vec![round; N])).unwrap();
        let (ab, ba) = (pair(&d, &s, a, b), pair(&d, &s, b, a));
        for _ in 0..3 {
            ping_pong_frame(&d, &s, ab, ba, true);
        }
        assert!(read_u32(&d, a, N).iter().all(|v| *v == round + 6));
        d.destroy_bind_group(ab).unwrap();
        d.destroy_bind_group(ba).unwrap();
        d.destroy_buffer(a).unwrap();
        d.destroy_buffer(b).unwrap();
    }
}
