//! Lifetime on a real device: native objects live until the GPU is done with them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32, src_dst_group, src_dst_kernel};
use std::time::Duration;
use vigil::*;

const SLOW_COPY: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&dst) { return; }
    var acc = src[i];
    for (var r = 0u; r < 2000u; r++) { acc = acc * 1103515245u + 12345u; }
    dst[i] = src[i] + (acc & 0u);
}
"#;

fn setup(d: &Device, n: usize) -> (ComputePipeline, BindGroupLayout, Buffer, Buffer) {
    let (p, bgl) = src_dst_kernel(d, "slow", SLOW_COPY);
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let src = d
        .create_buffer(&BufferDescriptor {
            label: "src",
            size: n as u64 * 4,
            usage,
        })
        .unwrap();
    let dst = d
        .create_buffer(&BufferDescriptor {
            label: "dst",
            size: n as u64 * 4,
            usage,
        })
        .unwrap();
    (p, bgl, src, dst)
}

#[test]
fn destroying_while_in_flight_keeps_the_object_until_completion() {
    let d = gpu();
    let n = 1 << 16;
    let (p, bgl, src, dst) = setup(&d, n);
    let input: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
    d.write_buffer(src, 0, &bytes_of(&input)).unwrap();
    // Flush the upload (device-local memory goes through staging, released on completion)
    // so the count below sees only the objects this test destroys.
    let flushed = d.submit(std::iter::empty()).unwrap();
    d.wait_for_serial_unless_stalled(flushed, Duration::from_secs(30))
        .unwrap();
    d.poll().unwrap();
    let g = d
        .create_bind_group(&BindGroupDescriptor {
            label: "slow",
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
            ],
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "slow" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch((n / 64) as u32, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    let live = d.live_native_objects();
    // Destroy what the in-flight work reads: handles go stale at once…
    d.destroy_bind_group(g).unwrap();
    d.destroy_buffer(src).unwrap();
    assert_eq!(
        d.buffer_size(src).unwrap_err().kind(),
        ErrorKind::InvalidHandle
    );
    // …but nothing native goes before the submission completed.
    if d.completed_serial() < serial {
        assert_eq!(d.live_native_objects(), live, "released while in flight");
    }
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        live - 2,
        "group and buffer released after completion"
    );
    // The work read valid memory all along.
    assert_eq!(read_u32(&d, dst, n), input);
}

#[test]
fn a_refused_submission_leaves_the_serial_unchanged_and_runs_nothing() {
    let d = gpu();
    let n = 256;
    let (_, _, src, dst) = setup(&d, n);
    d.write_buffer(src, 0, &bytes_of(&vec![9u32; n])).unwrap();
    let mut ok = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "ok" })
        .unwrap();
    ok.copy_buffer_to_buffer(src, 0, dst, 0, 64).unwrap();
    let serial = d.submit([ok.finish().unwrap()]).unwrap();
    let before = d.last_submitted_serial();
    assert_eq!(before, serial);
    let victim = d
        .create_buffer(&BufferDescriptor {
            label: "victim",
            size: 1024,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "refused" })
        .unwrap();
    e.clear_buffer(dst, 0, None).unwrap();
    e.copy_buffer_to_buffer(victim, 0, dst, 0, 64).unwrap();
    let cb = e.finish().unwrap();
    d.destroy_buffer(victim).unwrap();
    let err = d.submit([cb]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidState);
    assert_eq!(d.last_submitted_serial(), before);
    // The clear in the refused submission never ran.
    assert_eq!(read_u32(&d, dst, 16), vec![9; 16]);
    // The next submission gets the next serial.
    let e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "next" })
        .unwrap();
    assert_eq!(
        d.submit([e.finish().unwrap()]).unwrap(),
        before + 2,
        "the readback above submitted once"
    );
}

#[test]
fn objects_churn_without_leaking() {
    let d = gpu();
    let base = d.live_native_objects();
    for round in 0..3 {
        let mut bufs = Vec::new();
        for i in 0..200 {
            let b = d
                .create_buffer(&BufferDescriptor {
                    label: "churn",
                    size: 256 + 4 * i,
                    usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                })
                .unwrap();
            bufs.push(b);
        }
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "churn" })
            .unwrap();
        for b in &bufs {
            e.clear_buffer(*b, 0, None).unwrap();
        }
        let s = d.submit([e.finish().unwrap()]).unwrap();
        for b in bufs {
            d.destroy_buffer(b).unwrap();
        }
        d.wait_for_serial_unless_stalled(s, Duration::from_secs(30))
            .unwrap();
        d.poll().unwrap();
        // Encoders (and their pools) are kept for reuse; buffers are all gone.
        assert!(
            d.live_native_objects() <= base + 3,
            "round {round}: {} live",
            d.live_native_objects()
        );
    }
}

/// Native objects held for the application's objects: live less those the device keeps
/// for reuse (command pools, staging, readback), as every leak check counts them.
fn held(d: &Device) -> u64 {
    d.live_native_objects() - d.pooled_native_objects()
}

/// Small device-local buffers share slabs of memory the Vulkan backend cuts into slots
/// (`vigil-vulkan`'s `slab.rs`): buffers of every slot size, more of the largest than one
/// slab holds, each keep their own bytes; slots freed and taken again by new buffers leave
/// their neighbours' bytes alone; and nothing is left once all are destroyed.
#[test]
fn small_buffers_sharing_slabs_keep_their_own_bytes() {
    let d = gpu();
    let base = held(&d);
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    // A slot of each size from 256 bytes to 64 KiB, and one word over it (a buffer with an
    // allocation of its own); 40 of 64 KiB fill more than one 2 MiB slab of 32 slots.
    let sizes: Vec<u64> = [4u64, 256, 1000, 4096, 65536, 65540]
        .iter()
        .flat_map(|&s| std::iter::repeat_n(s, if s == 65536 { 40 } else { 12 }))
        .collect();
    let make = |d: &Device, size: u64, tag: u32| -> (Buffer, Vec<u32>) {
        let b = d
            .create_buffer(&BufferDescriptor {
                label: "slab",
                size,
                usage,
            })
            .unwrap();
        let words: Vec<u32> = (0..size as u32 / 4).map(|w| (tag << 16) ^ w).collect();
        d.write_buffer(b, 0, &bytes_of(&words)).unwrap();
        (b, words)
    };
    let check = |d: &Device, live: &[(Buffer, Vec<u32>)], when: &str| {
        for (i, (b, words)) in live.iter().enumerate() {
            assert!(
                read_u32(d, *b, words.len()) == *words,
                "{when}: buffer {i} ({} bytes) does not hold what was written to it",
                words.len() * 4
            );
        }
    };
    let mut live: Vec<(Buffer, Vec<u32>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| make(&d, s, i as u32 + 1))
        .collect();
    check(&d, &live, "first");
    // Every other buffer destroyed and made again with other bytes: the new ones take the
    // freed slots, between the ones kept.
    for (i, &size) in sizes.iter().enumerate().step_by(2) {
        d.destroy_buffer(live[i].0).unwrap();
        live[i] = make(&d, size, 1000 + i as u32);
    }
    check(&d, &live, "after reuse");
    for (b, _) in live {
        d.destroy_buffer(b).unwrap();
    }
    let flushed = d.submit(std::iter::empty()).unwrap();
    d.wait_for_serial_unless_stalled(flushed, Duration::from_secs(30))
        .unwrap();
    d.poll().unwrap();
    assert_eq!(
        held(&d),
        base,
        "native objects held (live {}, pooled {}) against {base} before",
        d.live_native_objects(),
        d.pooled_native_objects()
    );
}

const PLUS_ONE: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&dst) { dst[id.x] = src[id.x] + 1u; }
}
"#;

/// The registry index in a handle's debug form (`Buffer(5v2@1)`: index 5, generation 2).
fn index_of(b: Buffer) -> String {
    let s = format!("{b:?}");
    s.split(['(', 'v']).nth(1).unwrap_or_default().to_string()
}

/// A recording meets a buffer whose handle was destroyed (a group still holds it) and the
/// buffer that took its registry slot, in turns. The recording tracks them apart (one slot
/// each, whichever meets the slot's table first) and is refused at submission for the
/// destroyed member, changing nothing; the new buffer's own work then reads back right.
#[test]
fn a_recording_meeting_two_generations_of_one_slot_tracks_them_apart() {
    let d = gpu();
    let n = 256usize;
    let (p, bgl) = src_dst_kernel(&d, "generations", PLUS_ONE);
    let buffer = |label| {
        d.create_buffer(&BufferDescriptor {
            label,
            size: n as u64 * 4,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap()
    };
    let group = |src, dst| src_dst_group(&d, bgl, src, dst);
    let (old, out_old, out_new) = (buffer("old"), buffer("out old"), buffer("out new"));
    let g_old = group(old, out_old);
    d.destroy_buffer(old).unwrap();
    let new = buffer("new");
    assert_eq!(
        index_of(new),
        index_of(old),
        "the new buffer takes the destroyed one's registry slot"
    );
    assert_ne!(format!("{new:?}"), format!("{old:?}"));
    d.write_buffer(new, 0, &bytes_of(&vec![7u32; n])).unwrap();
    d.write_buffer(out_new, 0, &bytes_of(&vec![0u32; n]))
        .unwrap();
    let g_new = group(new, out_new);
    let record = |groups: &[BindGroup]| {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor {
                label: "generations",
            })
            .unwrap();
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        e.set_compute_pipeline(p).unwrap();
        for &g in groups {
            e.set_bind_group(0, g, &[]).unwrap();
            e.dispatch((n / 64) as u32, 1, 1).unwrap();
        }
        e.end_compute_pass().unwrap();
        e.finish().unwrap()
    };
    let before = d.last_submitted_serial();
    let mixed = record(&[g_old, g_new, g_old, g_new]);
    let err = d.submit([mixed]).unwrap_err();
    assert_eq!(err.rule(), Rule::SubmitDestroyed, "{err}");
    assert!(
        err.to_string().contains("buffer 'old'"),
        "names the member: {err}"
    );
    assert_eq!(d.last_submitted_serial(), before, "nothing submitted");
    assert_eq!(read_u32(&d, out_new, n), vec![0; n], "nothing ran");
    let s = d.submit([record(&[g_new])]).unwrap();
    d.wait_for_serial_unless_stalled(s, Duration::from_secs(30))
        .unwrap();
    assert_eq!(read_u32(&d, out_new, n), vec![8; n]);
}

/// A completed recording's tables by registry slot go, emptied, to the next encoder: what
/// the next recording finds in them is nothing. A buffer made in a slot an earlier
/// recording used (the earlier buffer destroyed) is met as the new buffer: it reads as
/// zeros, not as what the old one held; and the spare tables keep nothing alive.
#[test]
fn a_slot_an_earlier_recording_used_holds_nothing_for_the_next_one() {
    let d = gpu();
    let usage = BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let make = |label: &str| {
        d.create_buffer(&BufferDescriptor {
            label,
            size: 16,
            usage,
        })
        .unwrap()
    };
    // Objects made first, so the copied buffers' slots are well into the tables.
    let fillers: Vec<Buffer> = (0..300).map(|_| make("filler")).collect();
    let dst = make("dst");
    let copy_into_dst = |src: Buffer| {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .unwrap();
        e.copy_buffer_to_buffer(src, 0, dst, 0, 16).unwrap();
        let s = d.submit([e.finish().unwrap()]).unwrap();
        d.wait_for_serial_unless_stalled(s, Duration::from_secs(30))
            .unwrap();
        d.poll().unwrap();
        read_u32(&d, dst, 4)
    };
    // Native objects of the device's own pools (command pools, staging, readback) are not
    // what a recording met: they are taken out of the count, as the other leak checks do.
    // Set after the first round; each later round leaves the same count.
    let mut live = None;
    for round in 0..5u32 {
        let src = make("src");
        if round % 2 == 0 {
            let words = [round + 1, 0xdead_beef, round * 7, 42];
            d.write_buffer(src, 0, &bytes_of(&words)).unwrap();
            assert_eq!(copy_into_dst(src), words, "round {round}: written");
        } else {
            // The slot of the last round's buffer, now another buffer never written.
            assert_eq!(
                copy_into_dst(src),
                [0; 4],
                "round {round}: a new buffer is zero"
            );
        }
        d.destroy_buffer(src).unwrap();
        d.poll().unwrap();
        let now = held(&d);
        assert_eq!(
            *live.get_or_insert(now),
            now,
            "round {round}: nothing the recordings met is held after completion ({} live, {} \
             pooled)",
            d.live_native_objects(),
            d.pooled_native_objects()
        );
    }
    for b in fillers {
        d.destroy_buffer(b).unwrap();
    }
    d.destroy_buffer(dst).unwrap();
}
