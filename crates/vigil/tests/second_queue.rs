//! Two queues of one native device, on the real device with the validation layer
//! (synchronization validation included) on: a device shared onto the second queue reads a
//! texture the first queue's device writes, and the ordering between them is a timeline
//! wait on the GPU, never a host wait — shown by holding one side's work back on the GPU
//! (the test seams' gate) and seeing the other side's submission return at once, its work
//! not complete until the held work is let go, and the bytes read back the right ones, in
//! both directions (a read after a write, a write after a read).
//!
//! On a native device with one queue (lavapipe's family has one) the share is refused with
//! `device.second-queue`, which is what the test checks there; with
//! `VIGIL_EXPECT_SECOND_QUEUE` set (the H200 runs set it) a refusal fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;
use vigil::*;

const W: u32 = 64;
const H: u32 = 4;
const BYTES: u64 = (W * H * 4) as u64;

/// The device on the second queue, or `None` after checking the refusal on a native
/// device with one queue.
fn second_queue(first: &Device) -> Option<Device> {
    let expected = std::env::var_os("VIGIL_EXPECT_SECOND_QUEUE").is_some();
    match first.share_on_second_queue() {
        Ok(second) => {
            assert_eq!(first.queue_index(), 0);
            assert_eq!(second.queue_index(), 1);
            // A share of the second-queue device stays on its queue.
            assert_eq!(second.share().unwrap().queue_index(), 1);
            Some(second)
        }
        Err(e) => {
            assert_eq!(e.rule(), Rule::DeviceSecondQueue, "{e}");
            assert_eq!(e.kind(), ErrorKind::Unsupported);
            assert!(
                !expected,
                "VIGIL_EXPECT_SECOND_QUEUE is set but the device refused: {e}"
            );
            eprintln!(
                "{}: one queue, the refusal checked",
                first.adapter_info().name
            );
            None
        }
    }
}

fn layout() -> TexelCopyBufferLayout {
    TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: W * 4,
        rows_per_image: None,
    }
}

fn pattern(seed: u8) -> Vec<u8> {
    (0..BYTES)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
        .collect()
}

/// Records and submits, on `d`, a copy of `data` (through `staging`) into `t`.
fn write(d: &Device, staging: Buffer, t: Texture, data: &[u8]) -> u64 {
    d.write_buffer(staging, 0, data).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "write" })
        .unwrap();
    e.copy_buffer_to_texture(
        staging,
        layout(),
        t,
        TexelCopyTextureInfo::default(),
        [W, H, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

/// Records and submits, on `d`, a copy of `t` into `dst`.
fn read(d: &Device, t: Texture, dst: Buffer) -> u64 {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "read" })
        .unwrap();
    e.copy_texture_to_buffer(t, TexelCopyTextureInfo::default(), dst, layout(), [W, H, 1])
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

fn readback(d: &Device, label: &'static str) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label,
        size: BYTES,
        usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
    })
    .unwrap()
}

#[test]
fn work_across_queues_waits_on_the_gpu_in_both_directions() {
    let gpu = common::gpu();
    let first: &Device = &gpu;
    let Some(second) = second_queue(first) else {
        return;
    };
    let t = first
        .create_texture(&TextureDescriptor {
            label: "shared across queues",
            size: [W, H],
            usage: TextureUsages::COPY_DST | TextureUsages::COPY_SRC,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let staging = first
        .create_buffer(&BufferDescriptor {
            label: "staging",
            size: BYTES,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let export = first.export_texture(t).unwrap();
    let r = second.register_texture(&export).unwrap();
    let (a, b) = (pattern(1), pattern(100));
    let short = Duration::from_millis(200);

    // A read after a write: the first queue's write is held on the GPU; the second
    // queue's read is submitted without a host wait and does not run before it.
    first.seams().pause_submissions().unwrap();
    let written = write(first, staging, t, &a);
    let dst = readback(&second, "read after write");
    let read_serial = read(&second, r, dst);
    assert!(
        !second.wait_for_serial(read_serial, short).unwrap(),
        "the read ran before the write it waits for was let go"
    );
    assert!(!first.wait_for_serial(written, Duration::ZERO).unwrap());
    first.seams().resume_submissions().unwrap();
    assert_eq!(second.read_buffer(dst, 0, BYTES).unwrap(), a);
    assert!(first.wait_for_serial(written, Duration::ZERO).unwrap());

    // A write after a read: the second queue's read is held; the first queue's next
    // write waits for it on the GPU, so the read sees the old bytes.
    second.seams().pause_submissions().unwrap();
    let dst_old = readback(&second, "read before write");
    let held_read = read(&second, r, dst_old);
    let rewritten = write(first, staging, t, &b);
    assert!(
        !first.wait_for_serial(rewritten, short).unwrap(),
        "the write ran before the read it waits for was let go"
    );
    second.seams().resume_submissions().unwrap();
    first
        .wait_for_serial_unless_stalled(rewritten, Duration::from_secs(5))
        .unwrap();
    second
        .wait_for_serial_unless_stalled(held_read, Duration::from_secs(5))
        .unwrap();
    assert_eq!(second.read_buffer(dst_old, 0, BYTES).unwrap(), a);
    let dst_new = readback(&second, "read after rewrite");
    read(&second, r, dst_new);
    assert_eq!(second.read_buffer(dst_new, 0, BYTES).unwrap(), b);

    drop(export);
    second.destroy_texture(r).unwrap();
    first.destroy_texture(t).unwrap();
    second.poll().unwrap();
    first.poll().unwrap();
    assert_eq!(first.shared_texture_tail_bytes(), 0);
    drop(second);
}

#[test]
fn frames_written_on_one_queue_and_read_on_the_other_arrive_whole() {
    let gpu = common::gpu();
    let producer: &Device = &gpu;
    let Some(consumer) = second_queue(producer) else {
        return;
    };
    let t = producer
        .create_texture(&TextureDescriptor {
            label: "frame",
            size: [W, H],
            usage: TextureUsages::COPY_DST
                | TextureUsages::COPY_SRC
                | TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let view = producer
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let export = producer.export_texture(t).unwrap();
    let r = consumer.register_texture(&export).unwrap();
    for frame in 0..6u8 {
        // A clear on the producer's queue, then a queue write over the first row (carried
        // by its next submission's head), with no host wait between the queues.
        let shade = f64::from(frame) * 40.0 / 255.0;
        let mut e = common::clear_pass(producer, "clear", view, [shade, 1.0 - shade, 0.25, 1.0]);
        e.end_render_pass().unwrap();
        producer.submit([e.finish().unwrap()]).unwrap();
        producer
            .write_texture(
                t,
                TexelCopyTextureInfo::default(),
                &vec![frame; (W * 4) as usize],
                layout(),
                [W, 1, 1],
            )
            .unwrap();
        producer.submit(std::iter::empty()).unwrap();
        let dst = readback(&consumer, "frame readback");
        read(&consumer, r, dst);
        let got = consumer.read_buffer(dst, 0, BYTES).unwrap();
        assert!(
            got[..(W * 4) as usize].iter().all(|&v| v == frame),
            "frame {frame}: first row"
        );
        let want = [frame * 40, 255 - frame * 40, 64, 255];
        for px in got[(W * 4) as usize..].chunks_exact(4) {
            for (c, (&g, &w)) in px.iter().zip(&want).enumerate() {
                assert!(
                    g.abs_diff(w) <= 1,
                    "frame {frame}: channel {c} is {g}, wanted {w}"
                );
            }
        }
        consumer.destroy_buffer(dst).unwrap();
    }
    producer.destroy_texture_view(view).unwrap();
    drop(export);
    consumer.destroy_texture(r).unwrap();
    producer.destroy_texture(t).unwrap();
    drop(consumer);
}
