//! Several threads at once on one real device, with the validation layer and its
//! synchronization validation on: each thread creates, writes, records, submits, maps and
//! destroys its own objects while sharing one pipeline, and checks every result.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, src_dst_group, src_dst_kernel};
use std::sync::Barrier;
use std::time::Duration;
use vigil::*;

const THREADS: u32 = 8;
const ROUNDS: u32 = 40;
const WORDS: u32 = 1024;

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&src) {
        dst[id.x] = src[id.x] * 3u + 1u;
    }
}
"#;

fn buffer(d: &Device, label: &str, usage: BufferUsages) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label,
        size: u64::from(WORDS) * 4,
        usage,
    })
    .unwrap()
}

/// One thread's round: its own buffers and bind group, a dispatch and a copy recorded on
/// this thread, submitted from it, the result mapped and checked, everything destroyed
/// right after submission (the device keeps it until the GPU is done).
fn round(d: &Device, pipeline: ComputePipeline, bgl: BindGroupLayout, t: u32, r: u32) {
    let input: Vec<u32> = (0..WORDS).map(|i| t * 1_000_000 + r * 10_000 + i).collect();
    let src = buffer(d, "src", BufferUsages::STORAGE | BufferUsages::COPY_DST);
    let dst = buffer(d, "dst", BufferUsages::STORAGE | BufferUsages::COPY_SRC);
    let readback = buffer(
        d,
        "readback",
        BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    );
    d.write_buffer(src, 0, &bytes_of(&input)).unwrap();
    let group = src_dst_group(d, bgl, src, dst);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "thread" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(WORDS / 64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.copy_buffer_to_buffer(dst, 0, readback, 0, u64::from(WORDS) * 4)
        .unwrap();
    let cb = e.finish().unwrap();
    d.submit([cb]).unwrap();
    // Destroyed while the GPU may still run the submission: released when it completes.
    d.destroy_bind_group(group).unwrap();
    d.destroy_buffer(src).unwrap();
    d.destroy_buffer(dst).unwrap();
    let m = d
        .map_buffer_async(readback, MapMode::Read, 0, u64::from(WORDS) * 4)
        .unwrap();
    let params = MapWaitParams {
        timeout: Duration::from_secs(60),
        ..MapWaitParams::default()
    };
    let report = d.wait_for_mapping(m, &params, &|| false).unwrap();
    assert_eq!(report.outcome, MapWaitOutcome::Ready);
    let out: Vec<u32> = d
        .mapped_bytes(m, |b| {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .unwrap();
    for (i, (&x, &y)) in input.iter().zip(&out).enumerate() {
        assert_eq!(y, x * 3 + 1, "thread {t} round {r} word {i}");
    }
    d.unmap(m).unwrap();
    d.destroy_buffer(readback).unwrap();
}

/// Every few rounds a thread also writes a texture through the queue and reads it back.
fn texture_round(d: &Device, t: u32, r: u32) {
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "t",
            size: [16, 16],
            usage: TextureUsages::COPY_DST
                | TextureUsages::COPY_SRC
                | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let texels: Vec<u8> = (0..16 * 16 * 4)
        .map(|i| (i as u32 + t * 7 + r) as u8)
        .collect();
    let at = TexelCopyTextureInfo::default();
    d.write_texture(
        tex,
        at,
        &texels,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 64,
            rows_per_image: None,
        },
        [16, 16, 1],
    )
    .unwrap();
    assert_eq!(
        d.read_texture(tex, at, [16, 16]).unwrap(),
        texels,
        "thread {t} round {r}"
    );
    d.destroy_texture(tex).unwrap();
}

#[test]
fn eight_threads_create_record_submit_map_and_destroy_at_once() {
    let gpu = gpu();
    let d: &Device = &gpu;
    let (pipeline, bgl) = src_dst_kernel(d, "times three plus one", KERNEL);
    let start = Barrier::new(THREADS as usize);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let start = &start;
            s.spawn(move || {
                start.wait();
                for r in 0..ROUNDS {
                    round(d, pipeline, bgl, t, r);
                    if r % 6 == t % 6 {
                        texture_round(d, t, r);
                    }
                }
            });
        }
    });
    assert!(!d.is_lost());
    // Every round submitted once, plus the texture readbacks.
    assert!(
        d.stats().submissions >= u64::from(THREADS * ROUNDS),
        "{:?}",
        d.stats()
    );
    assert_eq!(d.stats().refused_submissions, 0);
    d.poll().unwrap();
    let left: Vec<(&str, usize)> = d
        .live_objects()
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .collect();
    assert_eq!(
        left,
        vec![
            ("compute pipelines", 1),
            ("pipeline layouts", 1),
            ("bind group layouts", 1),
            ("shader modules", 1)
        ],
        "every object the threads made was destroyed"
    );
    gpu.finish();
}

#[test]
fn encoders_record_on_other_threads_than_the_one_that_submits() {
    let gpu = gpu();
    let d: &Device = &gpu;
    let (pipeline, bgl) = src_dst_kernel(d, "times three plus one", KERNEL);
    let input: Vec<u32> = (0..WORDS).collect();
    let src = buffer(d, "src", BufferUsages::STORAGE | BufferUsages::COPY_DST);
    d.write_buffer(src, 0, &bytes_of(&input)).unwrap();
    let outs: Vec<Buffer> = (0..THREADS)
        .map(|_| buffer(d, "dst", BufferUsages::STORAGE | BufferUsages::COPY_SRC))
        .collect();
    let groups: Vec<BindGroup> = outs
        .iter()
        .map(|&dst| src_dst_group(d, bgl, src, dst))
        .collect();
    // Encoders made here, moved to threads that record them, command buffers moved back.
    let encoders: Vec<CommandEncoder> = (0..THREADS)
        .map(|_| {
            d.create_command_encoder(&CommandEncoderDescriptor { label: "moved" })
                .unwrap()
        })
        .collect();
    let cbs: Vec<CommandBuffer> = std::thread::scope(|s| {
        let handles: Vec<_> = encoders
            .into_iter()
            .zip(groups.iter().copied())
            .map(|(mut e, g)| {
                s.spawn(move || {
                    e.begin_compute_pass(&ComputePassDescriptor::default())
                        .unwrap();
                    e.set_compute_pipeline(pipeline).unwrap();
                    e.set_bind_group(0, g, &[]).unwrap();
                    e.dispatch(WORDS / 64, 1, 1).unwrap();
                    e.end_compute_pass().unwrap();
                    e.finish().unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let serial = d.submit(cbs).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    for &dst in &outs {
        let out = common::read_u32(d, dst, WORDS as usize);
        assert!(out.iter().enumerate().all(|(i, &y)| y == i as u32 * 3 + 1));
    }
    gpu.finish();
}
