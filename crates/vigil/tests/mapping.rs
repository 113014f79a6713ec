//! Async mapping on a real device: readiness, reading and writing, refusals, cancel,
//! time-out and loss.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32};
use std::cell::Cell;
use std::time::Duration;
use vigil::*;

fn readback(d: &Device, size: u64) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label: "readback",
        size,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    })
    .unwrap()
}

fn filled(d: &Device, words: &[u32]) -> Buffer {
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "src",
            size: words.len() as u64 * 4,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(b, 0, &bytes_of(words)).unwrap();
    b
}

fn copy(d: &Device, src: Buffer, dst: Buffer, size: u64) -> u64 {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    e.copy_buffer_to_buffer(src, 0, dst, 0, size).unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

#[test]
fn a_read_mapping_becomes_ready_after_the_work_and_reads_its_results() {
    let d = gpu();
    let src = filled(&d, &(0..64).collect::<Vec<_>>());
    let rb = readback(&d, 256);
    copy(&d, src, rb, 256);
    let m = d.map_buffer_async(rb, MapMode::Read, 64, 128).unwrap();
    let report = d
        .wait_for_mapping(m, &MapWaitParams::default(), &|| false)
        .unwrap();
    assert_eq!(report.outcome, MapWaitOutcome::Ready);
    let words: Vec<u32> = d
        .mapped_bytes(m, |b| {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .unwrap();
    assert_eq!(words, (16..48).collect::<Vec<_>>());
    d.unmap(m).unwrap();
}

#[test]
fn a_write_mapping_feeds_later_work() {
    let d = gpu();
    let upload = d
        .create_buffer(&BufferDescriptor {
            label: "upload",
            size: 64,
            usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let dst = filled(&d, &[0; 16]);
    let m = d.map_buffer_async(upload, MapMode::Write, 0, 64).unwrap();
    assert_eq!(
        d.poll_mapping(m).unwrap(),
        MapState::Ready,
        "an unused buffer maps at once"
    );
    d.mapped_bytes_mut(m, |b| b.copy_from_slice(&bytes_of(&[42; 16])))
        .unwrap();
    d.unmap(m).unwrap();
    copy(&d, upload, dst, 64);
    assert_eq!(read_u32(&d, dst, 16), vec![42; 16]);
}

#[test]
fn mappings_are_validated_and_exclusive() {
    let d = gpu();
    let rb = readback(&d, 256);
    let src = filled(&d, &[1; 64]);
    let upload = d
        .create_buffer(&BufferDescriptor {
            label: "upload",
            size: 64,
            usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    assert_eq!(
        d.map_buffer_async(src, MapMode::Read, 0, 64)
            .unwrap_err()
            .kind(),
        ErrorKind::UsageMismatch
    );
    assert_eq!(
        d.map_buffer_async(rb, MapMode::Write, 0, 64)
            .unwrap_err()
            .kind(),
        ErrorKind::UsageMismatch
    );
    assert_eq!(
        d.map_buffer_async(rb, MapMode::Read, 4, 64)
            .unwrap_err()
            .kind(),
        ErrorKind::OutOfBounds
    );
    assert_eq!(
        d.map_buffer_async(rb, MapMode::Read, 0, 6)
            .unwrap_err()
            .kind(),
        ErrorKind::OutOfBounds
    );
    assert_eq!(
        d.map_buffer_async(rb, MapMode::Read, 200, 64)
            .unwrap_err()
            .kind(),
        ErrorKind::OutOfBounds
    );
    let m = d.map_buffer_async(rb, MapMode::Read, 0, 256).unwrap();
    let copy_of_handle = m;
    assert_eq!(
        d.map_buffer_async(rb, MapMode::Read, 0, 64)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidState,
        "one mapping per buffer"
    );
    // Work using a mapped buffer is refused at submit.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    e.copy_buffer_to_buffer(src, 0, rb, 0, 64).unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidState);
    assert!(err.message().contains("mapped"), "{err}");
    assert_eq!(
        d.write_buffer(rb, 0, &[0; 4]).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    // A read mapping cannot be written.
    d.wait_for_mapping(m, &MapWaitParams::default(), &|| false)
        .unwrap();
    assert_eq!(
        d.mapped_bytes_mut(m, |_| ()).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    d.unmap(m).unwrap();
    assert_eq!(
        d.mapped_bytes(copy_of_handle, |_| ()).unwrap_err().kind(),
        ErrorKind::InvalidHandle,
        "unmap invalidates every copy"
    );
    assert_eq!(
        d.unmap(copy_of_handle).unwrap_err().kind(),
        ErrorKind::InvalidHandle
    );
    // Destroying the buffer invalidates its mapping.
    let m = d.map_buffer_async(upload, MapMode::Write, 0, 64).unwrap();
    d.destroy_buffer(upload).unwrap();
    assert_eq!(
        d.poll_mapping(m).unwrap_err().kind(),
        ErrorKind::InvalidHandle
    );
}

#[test]
fn a_pending_mapping_is_not_readable_and_can_be_cancelled_or_time_out() {
    let d = gpu();
    let src = filled(&d, &[3; 64]);
    let rb = readback(&d, 256);
    d.seams().hold_next_completion();
    copy(&d, src, rb, 256);
    let m = d.map_buffer_async(rb, MapMode::Read, 0, 256).unwrap();
    assert_eq!(d.poll_mapping(m).unwrap(), MapState::Pending);
    assert_eq!(
        d.mapped_bytes(m, |_| ()).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    let looks = Cell::new(0);
    let r = d
        .wait_for_mapping(
            m,
            &MapWaitParams {
                timeout: Duration::from_secs(5),
                slice: Duration::from_millis(5),
            },
            &|| {
                looks.set(looks.get() + 1);
                looks.get() > 3
            },
        )
        .unwrap();
    assert_eq!(r.outcome, MapWaitOutcome::Cancelled);
    assert!(r.slices >= 3 && r.waited < Duration::from_secs(2), "{r:?}");
    let r = d
        .wait_for_mapping(
            m,
            &MapWaitParams {
                timeout: Duration::from_millis(60),
                slice: Duration::from_millis(10),
            },
            &|| false,
        )
        .unwrap();
    assert_eq!(r.outcome, MapWaitOutcome::TimedOut);
    assert!(
        r.waited >= Duration::from_millis(60) && r.waited < Duration::from_secs(2),
        "{r:?}"
    );
    d.seams().release_held_completion();
    let r = d
        .wait_for_mapping(m, &MapWaitParams::default(), &|| false)
        .unwrap();
    assert_eq!(r.outcome, MapWaitOutcome::Ready);
    assert_eq!(
        d.mapped_bytes(m, |b| b[..4].to_vec()).unwrap(),
        vec![3, 0, 0, 0]
    );
}

#[test]
fn loss_is_reported_before_readiness() {
    let d = gpu();
    let src = filled(&d, &[5; 64]);
    let rb = readback(&d, 256);
    // The copy is held at the GPU-side gate until the mapping is requested (else the poll
    // after the submission may see the failure first and refuse the mapping itself).
    d.seams().pause_submissions().unwrap();
    d.seams().fail_next_submission();
    let serial = copy(&d, src, rb, 256);
    let m = d.map_buffer_async(rb, MapMode::Read, 0, 256).unwrap();
    d.seams().resume_submissions().unwrap();
    // The copy completes on the GPU, but its submission failed: the device is lost and the
    // mapping reports that, never readiness.
    let err = d
        .wait_for_mapping(m, &MapWaitParams::default(), &|| false)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceLost);
    assert!(d.completed_serial() < serial);
    assert_eq!(d.poll_mapping(m).unwrap_err().kind(), ErrorKind::DeviceLost);
    assert_eq!(
        d.mapped_bytes(m, |_| ()).unwrap_err().kind(),
        ErrorKind::DeviceLost
    );
    let snap = d.loss_snapshot().unwrap();
    assert_eq!(snap.site, WaitSite::Driver);
    assert!(
        snap.reason.contains(&format!("submission {serial}")),
        "{snap}"
    );
}

#[test]
fn device_local_buffers_made_in_reused_slots_read_as_zero() {
    // A device-local buffer is zeroed by a fill in front of its first use, which the
    // submission decides from the buffer's state: a buffer made in the slot of one that was
    // written (a new generation there) starts from a state of its own, not the old one's.
    // Filled buffers are destroyed and new ones of the same sizes made in the same slots
    // (and, from the allocator, likely the same memory), and every byte reads as zero.
    let d = gpu();
    let sizes = [256u64, 4096, 65536];
    let make = |size: u64| {
        d.create_buffer(&BufferDescriptor {
            label: "device-local",
            size,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap()
    };
    let mut last: Vec<Buffer> = Vec::new();
    for round in 0..3 {
        let made: Vec<Buffer> = sizes.iter().map(|&s| make(s)).collect();
        for (old, new) in last.iter().zip(&made) {
            assert_eq!(
                new.index(),
                old.index(),
                "round {round}: the slot is reused"
            );
            assert_ne!(new.generation(), old.generation());
        }
        for (&b, &size) in made.iter().zip(&sizes) {
            let bytes = d.read_buffer(b, 0, size).unwrap();
            assert_eq!(bytes.len() as u64, size);
            assert!(
                bytes.iter().all(|&x| x == 0),
                "round {round}: a new {size}-byte buffer holds non-zero bytes"
            );
            d.write_buffer(b, 0, &vec![0x5A; size as usize]).unwrap();
        }
        d.submit(std::iter::empty()).unwrap();
        for (&b, &size) in made.iter().zip(&sizes) {
            assert!(
                d.read_buffer(b, 0, size)
                    .unwrap()
                    .iter()
                    .all(|&x| x == 0x5A),
                "round {round}: the written bytes did not arrive"
            );
        }
        for &b in made.iter().rev() {
            d.destroy_buffer(b).unwrap();
        }
        d.poll().unwrap();
        last = made;
    }
}

#[test]
fn host_visible_buffers_made_in_reused_memory_read_as_zero() {
    // A host-visible buffer is zeroed in place when made: filled buffers are destroyed
    // and new ones of the same sizes made (the allocator hands the same memory back), and
    // every byte of every new one reads as zero.
    let d = gpu();
    let sizes = [256u64, 4096, (1 << 20) + 12];
    let make = |size: u64| {
        d.create_buffer(&BufferDescriptor {
            label: "host-visible",
            size,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        })
        .unwrap()
    };
    for round in 0..3 {
        let made: Vec<Buffer> = sizes.iter().map(|&s| make(s)).collect();
        for (&b, &size) in made.iter().zip(&sizes) {
            let bytes = d.read_buffer(b, 0, size).unwrap();
            assert_eq!(bytes.len() as u64, size);
            assert!(
                bytes.iter().all(|&x| x == 0),
                "round {round}: a new {size}-byte buffer holds non-zero bytes"
            );
            d.write_buffer(b, 0, &vec![0xA5; size as usize]).unwrap();
        }
        d.submit(std::iter::empty()).unwrap();
        for (&b, &size) in made.iter().zip(&sizes) {
            assert!(
                d.read_buffer(b, 0, size)
                    .unwrap()
                    .iter()
                    .all(|&x| x == 0xA5)
            );
            d.destroy_buffer(b).unwrap();
        }
        d.poll().unwrap();
    }
}
