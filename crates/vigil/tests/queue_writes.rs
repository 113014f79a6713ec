//! Queue writes on a real device: ordering around work in flight, coalescing, the budget
//! and the write-count limit, destroyed destinations, and the budget coming back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Pauses, bytes_of, gpu, gpu_with, read_u32, storage_kernel};
use vigil::*;

fn storage(d: &Device, label: &str, size: u64) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label,
        size,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
    })
    .unwrap()
}

fn copy(d: &Device, src: Buffer, dst: Buffer, size: u64) -> u64 {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
        .unwrap();
    e.copy_buffer_to_buffer(src, 0, dst, 0, size).unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

/// A buffer of `size` bytes that work held at the paused gate reads (its first word is
/// copied into a buffer of `out_size` bytes, also returned), so writes to it are staged.
fn paused_and_busy(d: &Device, size: u64, out_size: u64) -> (Buffer, Buffer) {
    let (a, out) = (storage(d, "a", size), storage(d, "out", out_size));
    d.seams().pause_submissions().unwrap();
    copy(d, a, out, 4);
    (a, out)
}

#[test]
fn a_write_to_a_busy_buffer_lands_after_earlier_work_and_before_later_work() {
    let d = gpu();
    let (a, before, after) = (
        storage(&d, "a", 64),
        storage(&d, "before", 64),
        storage(&d, "after", 64),
    );
    d.write_buffer(a, 0, &bytes_of(&[1; 16])).unwrap();
    d.seams().pause_submissions().unwrap();
    let first = copy(&d, a, before, 64);
    // `a` is used by work still held at the gate: the write must be staged.
    d.write_buffer(a, 0, &bytes_of(&[2; 16])).unwrap();
    let stats = d.write_stats();
    assert_eq!(
        (stats.pending_writes, stats.pending_bytes),
        (1, 64),
        "{stats:?}"
    );
    let second = copy(&d, a, after, 64);
    assert_eq!(
        d.write_stats().pending_writes,
        0,
        "the staged write went with the next submission"
    );
    assert!(d.completed_serial() < first);
    d.seams().resume_submissions().unwrap();
    d.wait_for_serial_unless_stalled(second, std::time::Duration::from_secs(10))
        .unwrap();
    assert_eq!(
        read_u32(&d, before, 16),
        vec![1; 16],
        "earlier work saw the old bytes"
    );
    assert_eq!(
        read_u32(&d, after, 16),
        vec![2; 16],
        "later work saw the write"
    );
}

#[test]
fn a_submission_the_driver_refuses_leaves_its_buffers_idle() {
    // A readback buffer is host-visible on every device, so a write to it goes straight
    // into its memory while no pending submission uses it, and is staged otherwise.
    let d = gpu();
    let src = storage(&d, "src", 64);
    let rb = d
        .create_buffer(&BufferDescriptor {
            label: "rb",
            size: 64,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(src, 0, &bytes_of(&[5; 16])).unwrap();
    d.write_buffer(rb, 0, &bytes_of(&[1; 16])).unwrap();
    let direct = d.write_stats().direct_writes;
    assert!(direct >= 1, "an unused readback buffer is written directly");
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "refused" })
        .unwrap();
    e.copy_buffer_to_buffer(src, 0, rb, 0, 64).unwrap();
    let before = d.last_submitted_serial();
    d.seams()
        .inject_fault("vkQueueSubmit2", FaultKind::OutOfMemory, FaultMode::Once);
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    assert_eq!(d.last_submitted_serial(), before);
    // The refused submission marked nothing as using `rb`: the next write goes straight in
    // again, and reading it back waits for nothing.
    d.write_buffer(rb, 0, &bytes_of(&[2; 16])).unwrap();
    let stats = d.write_stats();
    assert_eq!(stats.direct_writes, direct + 1, "{stats:?}");
    assert_eq!(stats.pending_writes, 0, "{stats:?}");
    assert_eq!(read_u32(&d, rb, 16), vec![2; 16]);
    // A submission the driver takes does mark it: a write is staged behind that work.
    d.seams().hold_next_completion();
    let taken = copy(&d, src, rb, 64);
    assert_eq!(taken, before + 1, "the refused submission used no serial");
    d.write_buffer(rb, 0, &bytes_of(&[3; 16])).unwrap();
    assert_eq!(d.write_stats().pending_writes, 1, "staged behind the copy");
    d.seams().release_held_completion();
    let last = d.submit(std::iter::empty()).unwrap();
    d.wait_for_serial_unless_stalled(last, std::time::Duration::from_secs(10))
        .unwrap();
    assert_eq!(
        read_u32(&d, rb, 16),
        vec![3; 16],
        "the write landed after the copy"
    );
}

#[test]
fn repeated_writes_of_a_range_coalesce() {
    let d = gpu();
    let (a, out) = (storage(&d, "a", 256), storage(&d, "out", 256));
    d.seams().pause_submissions().unwrap();
    copy(&d, out, a, 4);
    for v in 1..=5u32 {
        d.write_buffer(a, 64, &bytes_of(&[v; 8])).unwrap();
    }
    d.write_buffer(a, 128, &bytes_of(&[9; 4])).unwrap();
    let s = d.write_stats();
    assert_eq!(
        (s.pending_writes, s.coalesced_writes, s.pending_bytes),
        (2, 4, 48),
        "{s:?}"
    );
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, 64);
    assert_eq!(&words[16..24], &[5; 8], "the last write of the range wins");
    assert_eq!(&words[32..36], &[9; 4]);
}

#[test]
fn a_repeated_write_after_an_overlapping_one_still_wins() {
    // A, then B overlapping A's second half, then A's range again: the last write of each
    // byte wins, so A's repeat must not be folded back into the first write (which the
    // copy of B would then overwrite).
    let d = gpu();
    let (a, out) = (storage(&d, "a", 256), storage(&d, "out", 256));
    d.seams().pause_submissions().unwrap();
    copy(&d, out, a, 4);
    d.write_buffer(a, 0, &bytes_of(&[1; 16])).unwrap();
    d.write_buffer(a, 32, &bytes_of(&[2; 16])).unwrap();
    d.write_buffer(a, 0, &bytes_of(&[3; 16])).unwrap();
    assert_eq!(d.write_stats().coalesced_writes, 0);
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, 24);
    assert_eq!(&words[..16], &[3; 16], "the repeat of A wins over B");
    assert_eq!(&words[16..24], &[2; 8], "B's tail past A stays");
}

#[test]
fn sequential_writes_join_one_region() {
    let d = gpu();
    let count = u64::from(MAX_QUEUED_WRITES) * 2;
    let (a, _out) = paused_and_busy(&d, count * 4, 4);
    for i in 0..count {
        d.write_buffer(a, i * 4, &(i as u32).to_le_bytes()).unwrap();
    }
    let s = d.write_stats();
    assert_eq!(
        (s.pending_writes, s.pending_bytes, s.merged_writes),
        (1, count * 4, count - 1),
        "each write continued the one before: {s:?}"
    );
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, count as usize);
    assert!(words.iter().enumerate().all(|(i, w)| *w == i as u32));
}

#[test]
fn a_refused_write_that_continues_a_run_changes_nothing() {
    // Writes that continue the last pending write take a shorter path; each refusal there
    // must be the general path's, leave the batch as it was, and let the run go on.
    let d = gpu_with(|adapter| DeviceDescriptor {
        required_limits: adapter.limits().clone(),
        staging_budget: 4096,
        ..DeviceDescriptor::default()
    });
    let (a, _out) = paused_and_busy(&d, 8192, 4);
    d.write_buffer(a, 0, &[1u8; 1024]).unwrap();
    d.write_buffer(a, 1024, &[2u8; 1024]).unwrap();
    let before = d.write_stats();
    assert_eq!((before.pending_writes, before.merged_writes), (1, 1));
    let refusals = [
        // Past the buffer's end.
        (
            d.write_buffer(a, 2048, &[3u8; 8192]).unwrap_err(),
            Rule::BufferRange,
        ),
        // Not a whole number of words.
        (
            d.write_buffer(a, 2048, &[3u8; 6]).unwrap_err(),
            Rule::WriteAlignment,
        ),
    ];
    for (e, rule) in refusals {
        assert_eq!(e.rule(), rule, "{e}");
        assert_eq!(d.write_stats(), before, "{e} left the batch as it was");
    }
    // Past the staging budget: the staging of the copy above holds none, the run holds
    // 2048 of 4096 bytes.
    let e = d.write_buffer(a, 2048, &[3u8; 2052]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!(d.write_stats(), before);
    // A destroyed buffer's handle is stale on this path too.
    let b = storage(&d, "b", 64);
    d.write_buffer(b, 0, &[5u8; 32]).unwrap();
    d.destroy_buffer(b).unwrap();
    let e = d.write_buffer(b, 32, &[5u8; 32]).unwrap_err();
    assert_eq!(e.rule(), Rule::HandleStale, "{e}");
    // The run goes on where it was.
    d.write_buffer(a, 2048, &[4u8; 2048]).unwrap();
    d.seams().resume_submissions().unwrap();
    let bytes = d.read_buffer(a, 0, 4096).unwrap();
    for (i, want) in [1u8, 2, 4, 4].into_iter().enumerate() {
        assert!(
            bytes[i * 1024..(i + 1) * 1024].iter().all(|b| *b == want),
            "kilobyte {i} holds {want}"
        );
    }
}

/// A 64-byte piece of `word`s.
fn piece(word: u32) -> Vec<u8> {
    bytes_of(&[word; 16])
}

#[test]
fn a_run_granted_to_one_thread_ends_when_another_thread_takes_the_queue() {
    grant_ended_by_another_thread(None);
}

#[test]
fn a_run_writing_without_locked_instructions_ends_when_another_thread_takes_the_queue() {
    // The same with the run's writes after its first granted one taking no locked
    // instruction: the other thread's lock runs the asymmetric fence before it looks.
    grant_ended_by_another_thread(Some(1));
}

/// A device whose granted runs take the gate's locked instruction for their first
/// `locked` writes (the device's default if `None`).
fn gpu_with_locked_run_writes(locked: Option<u64>) -> common::Gpu {
    let d = gpu();
    if let Some(n) = locked {
        d.seams().set_locked_run_writes(n);
    }
    d
}

/// The thread whose write continues the last pending write appends the run's next writes
/// without the queue lock; a write from another thread takes the lock, which ends that
/// grant first, so a write made after it comes after it. `locked`: how many of a grant's
/// writes take the gate's locked instruction (the device's default if `None`).
fn grant_ended_by_another_thread(locked: Option<u64>) {
    let d = gpu_with_locked_run_writes(locked);
    let (a, _out) = paused_and_busy(&d, 320, 4);
    for i in 0..4 {
        d.write_buffer(a, i * 64, &piece(1)).unwrap();
    }
    std::thread::scope(|s| {
        s.spawn(|| d.write_buffer(a, 64, &piece(2)).unwrap());
    });
    // After the other thread's write: this run's grant is over, so this is a write of its
    // own, after the other thread's.
    d.write_buffer(a, 256, &piece(3)).unwrap();
    let s = d.write_stats();
    assert_eq!(
        (s.pending_writes, s.pending_bytes, s.merged_writes),
        (3, 384, 3),
        "three regions: the run of four, the other thread's, the write after: {s:?}"
    );
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, 80);
    let want: Vec<u32> = [1, 2, 1, 1, 3].iter().flat_map(|w| [*w; 16]).collect();
    assert_eq!(words, want);
}

#[test]
fn a_buffer_mapped_during_a_run_refuses_the_runs_next_write() {
    // Mapping a buffer with queued writes submits them first, which takes the queue lock
    // and ends the run's grant: the next write of the run is checked again and refused.
    let d = gpu();
    let (src, rb) = (
        storage(&d, "src", 256),
        d.create_buffer(&BufferDescriptor {
            label: "rb",
            size: 256,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        })
        .unwrap(),
    );
    d.seams().pause_submissions().unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
        .unwrap();
    e.copy_buffer_to_buffer(src, 0, rb, 0, 256).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    // `rb` is busy: these are staged, the second one continuing the first.
    d.write_buffer(rb, 0, &piece(7)).unwrap();
    d.write_buffer(rb, 64, &piece(7)).unwrap();
    d.write_buffer(rb, 128, &piece(7)).unwrap();
    let m = d.map_buffer_async(rb, MapMode::Read, 0, 256).unwrap();
    let e = d.write_buffer(rb, 192, &piece(8)).unwrap_err();
    assert_eq!(e.rule(), Rule::WriteMapped, "{e}");
    d.seams().resume_submissions().unwrap();
    d.wait_for_mapping(m, &MapWaitParams::default(), &|| false)
        .unwrap();
    let words: Vec<u32> = d
        .mapped_bytes(m, |bytes| {
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .unwrap();
    let mut want = vec![7u32; 48];
    want.extend([0u32; 16]);
    assert_eq!(
        words, want,
        "the run's three writes landed, the refused one did not"
    );
}

#[test]
fn runs_of_writes_on_several_threads_land_while_another_thread_submits() {
    several_writers_and_a_submitter(None);
}

#[test]
fn runs_without_locked_instructions_on_several_threads_land_while_another_thread_submits() {
    // The same with every granted write after a grant's first two taking no locked
    // instruction, so nearly every lock taken closes a light gate from another thread.
    several_writers_and_a_submitter(Some(2));
}

/// Each writer's runs are granted, ended by the submitter's lock (or another writer's)
/// and granted again, many times over; every byte must land, in order. `locked`: as in
/// `grant_ended_by_another_thread`.
///
/// The work reading the buffers is held at the paused gate until every writer is done, so
/// every write is staged whatever the threads' timing (work that completed early would let
/// later writes go straight into the buffers, and none would continue a run). The submitter
/// submits once per `PIECES / 10` pieces written (39 submissions, well inside the 64
/// command buffers a device lets wait), so its locks fall between the writers' writes.
fn several_writers_and_a_submitter(locked: Option<u64>) {
    const WRITERS: u32 = 4;
    const PIECES: u64 = 3000;
    const EVERY: u64 = PIECES / 10;
    let d = gpu_with_locked_run_writes(locked);
    let buffers: Vec<Buffer> = (0..WRITERS)
        .map(|_| storage(&d, "run", PIECES * 64))
        .collect();
    let out = storage(&d, "out", 4);
    d.seams().pause_submissions().unwrap();
    for &b in &buffers {
        copy(&d, b, out, 4);
    }
    let written = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        for (t, &b) in buffers.iter().enumerate() {
            let (d, written) = (&d, &written);
            s.spawn(move || {
                for i in 0..PIECES {
                    let word = (t as u32) << 24 | i as u32;
                    d.write_buffer(b, i * 64, &piece(word)).unwrap();
                    written.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
        s.spawn(|| {
            let all = u64::from(WRITERS) * PIECES;
            let mut next = EVERY;
            while next < all {
                if written.load(std::sync::atomic::Ordering::SeqCst) >= next {
                    d.submit(std::iter::empty()).unwrap();
                    d.poll().unwrap();
                    next += EVERY;
                } else {
                    std::thread::yield_now();
                }
            }
        });
    });
    d.seams().resume_submissions().unwrap();
    let merged = d.write_stats().merged_writes;
    for (t, &b) in buffers.iter().enumerate() {
        let words = read_u32(&d, b, (PIECES * 16) as usize);
        for (i, chunk) in words.chunks_exact(16).enumerate() {
            let want = (t as u32) << 24 | i as u32;
            assert!(
                chunk.iter().all(|w| *w == want),
                "writer {t}, piece {i}: {chunk:?}"
            );
        }
    }
    assert!(merged > 0, "some writes continued a run");
}

#[test]
fn the_staging_budget_is_enforced_and_a_refused_write_changes_nothing() {
    let d = gpu_with(|adapter| DeviceDescriptor {
        required_limits: adapter.limits().clone(),
        staging_budget: 4096,
        ..DeviceDescriptor::default()
    });
    let (a, _out) = paused_and_busy(&d, 8192, 8192);
    d.write_buffer(a, 0, &vec![7u8; 3000]).unwrap();
    let before = d.write_stats();
    let e = d.write_buffer(a, 4096, &vec![8u8; 2000]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.message().contains("budget"), "{e}");
    assert_eq!(
        d.write_stats(),
        before,
        "the refused write left the batch as it was"
    );
    d.seams().resume_submissions().unwrap();
    let bytes = d.read_buffer(a, 0, 8192).unwrap();
    assert!(bytes[..3000].iter().all(|b| *b == 7));
    assert!(
        bytes[4096..6096].iter().all(|b| *b == 0),
        "the refused write never landed"
    );
    // Completion returns the in-flight bytes to the budget.
    d.poll().unwrap();
    assert_eq!(d.write_stats().in_flight_bytes, 0);
    assert_eq!(d.write_stats().pending_bytes, 0);
}

#[test]
fn at_most_16384_separate_write_regions_may_wait() {
    let d = gpu();
    let count = MAX_QUEUED_WRITES as u64;
    // Every other word: no write continues the one before, so each is a region.
    let (a, _out) = paused_and_busy(&d, (count + 1) * 8, 4);
    for i in 0..count {
        d.write_buffer(a, i * 8, &(i as u32).to_le_bytes()).unwrap();
    }
    let before = d.write_stats();
    assert_eq!(before.pending_writes, MAX_QUEUED_WRITES);
    assert_eq!(
        d.write_buffer(a, count * 8, &[1, 2, 3, 4])
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(d.write_stats(), before);
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, 2 * count as usize + 2);
    assert!((0..count as usize).all(|i| words[2 * i] == i as u32 && words[2 * i + 1] == 0));
    assert_eq!(words[2 * count as usize], 0);
}

#[test]
fn destroying_a_destination_drops_its_unsubmitted_writes() {
    let d = gpu();
    let (a, b, out) = (
        storage(&d, "a", 64),
        storage(&d, "b", 64),
        storage(&d, "out", 64),
    );
    d.seams().pause_submissions().unwrap();
    copy(&d, a, out, 4);
    copy(&d, b, out, 4);
    d.write_buffer(a, 0, &[1; 64]).unwrap();
    d.write_buffer(b, 0, &[2; 64]).unwrap();
    assert_eq!(d.write_stats().pending_writes, 2);
    d.destroy_buffer(a).unwrap();
    let s = d.write_stats();
    assert_eq!((s.pending_writes, s.pending_bytes), (1, 64), "{s:?}");
    d.seams().resume_submissions().unwrap();
    assert_eq!(d.read_buffer(b, 0, 64).unwrap(), vec![2; 64]);
}

#[test]
fn a_destroyed_destination_of_the_latest_pending_write_is_refused_and_its_slot_reused_cleanly() {
    // A run of writes into one buffer finds it through its latest pending write: that
    // must not outlive a destroy, nor answer for the next buffer in the same slot.
    let d = gpu();
    let (a, out) = paused_and_busy(&d, 64, 64);
    d.write_buffer(a, 0, &[1; 16]).unwrap();
    d.write_buffer(a, 16, &[2; 16]).unwrap();
    assert_eq!(
        d.write_stats().pending_writes,
        1,
        "the second write joins the first"
    );
    d.destroy_buffer(a).unwrap();
    let e = d.write_buffer(a, 32, &[3; 16]).unwrap_err();
    assert_eq!(e.rule(), Rule::HandleStale, "{e}");
    let c = storage(&d, "c", 64);
    assert_eq!(c.index(), a.index(), "the slot is reused");
    copy(&d, c, out, 4);
    d.write_buffer(c, 0, &[4; 64]).unwrap();
    let e = d.write_buffer(a, 0, &[5; 16]).unwrap_err();
    assert_eq!(e.rule(), Rule::HandleStale, "{e}");
    let s = d.write_stats();
    assert_eq!((s.pending_writes, s.pending_bytes), (1, 64), "{s:?}");
    d.seams().resume_submissions().unwrap();
    assert_eq!(d.read_buffer(c, 0, 64).unwrap(), vec![4; 64]);
}

#[test]
fn texture_writes_to_a_busy_texture_keep_their_order() {
    let d = gpu();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "t",
            size: [4, 4],
            format: TextureFormat::R32Uint,
            usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: 16,
        rows_per_image: None,
    };
    d.write_texture(
        t,
        TexelCopyTextureInfo::default(),
        &bytes_of(&[1; 16]),
        layout,
        [4, 4, 1],
    )
    .unwrap();
    let snap = storage(&d, "snapshot", 1024);
    d.seams().pause_submissions().unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    e.copy_texture_to_buffer(
        t,
        TexelCopyTextureInfo::default(),
        snap,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        [4, 4, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    // Only the 2x2 block at (1, 1) changes, after the snapshot.
    d.write_texture(
        t,
        TexelCopyTextureInfo {
            origin: [1, 1],
            ..Default::default()
        },
        &bytes_of(&[9; 4]),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 8,
            rows_per_image: None,
        },
        [2, 2, 1],
    )
    .unwrap();
    d.seams().resume_submissions().unwrap();
    let now: Vec<u32> = d
        .read_texture(t, TexelCopyTextureInfo::default(), [4, 4])
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for y in 0..4 {
        for x in 0..4 {
            let want = if (1..3).contains(&x) && (1..3).contains(&y) {
                9
            } else {
                1
            };
            assert_eq!(now[y * 4 + x], want, "({x},{y})");
        }
    }
    let old = d.read_buffer(snap, 0, 1024).unwrap();
    assert!(
        old[..16].chunks_exact(4).all(|c| c == [1, 0, 0, 0]),
        "the snapshot predates the write"
    );
}

const ADD_ONE: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { data[id.x] = data[id.x] + 1u; }
"#;

/// A buffer the GPU reaches only through a bind group is in use just the same: a write
/// while that work is pending is staged and lands after it.
#[test]
fn a_write_to_a_buffer_bound_by_pending_work_lands_after_it() {
    let d = gpu();
    let data = storage(&d, "data", 64);
    let (pipeline, group) = storage_kernel(&d, "add one", ADD_ONE, 0, data);
    d.write_buffer(data, 0, &bytes_of(&[10; 16])).unwrap();
    d.poll().unwrap();
    d.seams().pause_submissions().unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "add" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    // The dispatch is held at the gate: it has not read `data` yet.
    d.write_buffer(data, 0, &bytes_of(&[100; 16])).unwrap();
    assert_eq!(d.write_stats().pending_writes, 1, "the write was staged");
    d.seams().resume_submissions().unwrap();
    d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(10))
        .unwrap();
    assert_eq!(
        read_u32(&d, data, 16),
        vec![100; 16],
        "the dispatch saw 10 (and wrote 11) before the write of 100 landed"
    );
}

#[test]
fn staging_of_completed_uploads_is_reused() {
    let d = gpu();
    let (a, b) = (storage(&d, "a", 4096), storage(&d, "b", 4096));
    for round in 0..3u32 {
        d.seams().pause_submissions().unwrap();
        copy(&d, a, b, 4096);
        // `a` is busy: the write is staged.
        d.write_buffer(a, 0, &bytes_of(&[round; 1024])).unwrap();
        let serial = copy(&d, a, b, 4096);
        d.seams().resume_submissions().unwrap();
        d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(10))
            .unwrap();
        assert_eq!(read_u32(&d, b, 1024), vec![round; 1024]);
        assert_eq!(
            d.write_stats().staging_allocations,
            1,
            "round {round} allocated staging again"
        );
    }
}

#[test]
fn small_and_large_staged_writes_interleaved_land_in_order() {
    // Small writes are staged in cached host memory and large ones (64 KiB and more) in
    // write-combined memory, in chunks of their own kind: interleaved, each lands where
    // and when it was written, and a second round reuses the chunks of both kinds.
    const BIG: usize = 96 << 10;
    let d = gpu();
    let (a, out) = (
        storage(&d, "a", 4 * BIG as u64),
        storage(&d, "out", 4 * BIG as u64),
    );
    let big = |seed: u8| -> Vec<u8> {
        (0..BIG)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    };
    for round in 0..2u8 {
        d.seams().pause_submissions().unwrap();
        copy(&d, out, a, 4);
        // Large at 0, small at the start of the second quarter, large over the third,
        // small again over the large write's last word (later, so it wins).
        d.write_buffer(a, 0, &big(round)).unwrap();
        d.write_buffer(a, BIG as u64, &bytes_of(&[7 + u32::from(round); 16]))
            .unwrap();
        d.write_buffer(a, 2 * BIG as u64, &big(round + 100))
            .unwrap();
        d.write_buffer(a, BIG as u64 - 4, &bytes_of(&[9])).unwrap();
        let serial = copy(&d, a, out, 4 * BIG as u64);
        d.seams().resume_submissions().unwrap();
        d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(10))
            .unwrap();
        let got = d.read_buffer(out, 0, 3 * BIG as u64).unwrap();
        let mut want = big(round);
        want[BIG - 4..].copy_from_slice(&9u32.to_le_bytes());
        want.extend_from_slice(&bytes_of(&[7 + u32::from(round); 16]));
        want.resize(2 * BIG, 0);
        want.extend_from_slice(&big(round + 100));
        assert!(
            got[..BIG] == want[..BIG],
            "round {round}: the first large write"
        );
        assert!(
            got[BIG..BIG + 64] == want[BIG..BIG + 64],
            "round {round}: the small write"
        );
        assert!(
            got[2 * BIG..] == want[2 * BIG..],
            "round {round}: the second large write"
        );
    }
    // One chunk of each kind for the small writes and one for each large write (a chunk
    // holds 1 MiB, so both large writes fit one), made in the first round only.
    assert_eq!(d.write_stats().staging_allocations, 2);
}

#[test]
fn overlapping_staged_writes_land_in_the_order_they_were_made() {
    let d = gpu();
    let (a, out) = (storage(&d, "a", 256), storage(&d, "out", 256));
    d.seams().pause_submissions().unwrap();
    copy(&d, out, a, 4);
    // Bytes 0..64 = 1, then 32..96 = 2 (over the tail of the first), then 16..32 = 3 and
    // 128..144 = 4 (after a gap, in the same run of sequential writes).
    d.write_buffer(a, 0, &bytes_of(&[1; 16])).unwrap();
    d.write_buffer(a, 32, &bytes_of(&[2; 16])).unwrap();
    d.write_buffer(a, 16, &bytes_of(&[3; 4])).unwrap();
    d.write_buffer(a, 128, &bytes_of(&[4; 4])).unwrap();
    d.seams().resume_submissions().unwrap();
    let words = read_u32(&d, a, 64);
    assert_eq!(&words[0..4], &[1; 4]);
    assert_eq!(&words[4..8], &[3; 4]);
    assert_eq!(&words[8..24], &[2; 16]);
    assert_eq!(&words[24..32], &[0; 8]);
    assert_eq!(&words[32..36], &[4; 4]);
}

#[test]
fn a_buffer_created_with_contents_holds_them_padded_to_whole_words() {
    let d = gpu();
    let b = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "init",
            contents: &[1, 2, 3, 4, 5, 6, 7],
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    assert_eq!(
        d.buffer_size(b).unwrap(),
        8,
        "rounded up to a multiple of 4"
    );
    // The contents came without COPY_DST, and the buffer still has only what was asked.
    assert_eq!(
        d.buffer_usage(b).unwrap(),
        BufferUsages::STORAGE | BufferUsages::COPY_SRC
    );
    assert_eq!(d.read_buffer(b, 0, 8).unwrap(), [1, 2, 3, 4, 5, 6, 7, 0]);
    assert_eq!(
        d.write_buffer(b, 0, &[0; 4]).unwrap_err().rule(),
        Rule::WriteUsage,
        "later writes need COPY_DST as ever"
    );
    // Empty contents would make a buffer of size zero.
    let e = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "empty",
            contents: &[],
            usage: BufferUsages::STORAGE,
        })
        .unwrap_err();
    assert_eq!(e.rule(), Rule::BufferSizeZero, "{e}");
}

#[test]
fn a_buffer_mapped_at_creation_gets_its_bytes_when_unmapped() {
    let d = gpu();
    let (b, m) = d
        .create_buffer_mapped(&BufferDescriptor {
            label: "mapped at creation",
            size: 16,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    // It starts zeroed, and any usage can be mapped this way.
    d.mapped_bytes(m, |bytes| assert_eq!(bytes, [0; 16]))
        .unwrap();
    d.mapped_bytes_mut(m, |bytes| {
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = i as u8 + 1;
        }
    })
    .unwrap();
    // Still mapped: work that uses it is refused.
    let out = storage(&d, "out", 16);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "early" })
        .unwrap();
    e.copy_buffer_to_buffer(b, 0, out, 0, 16).unwrap();
    assert_eq!(
        d.submit([e.finish().unwrap()]).unwrap_err().rule(),
        Rule::SubmitMapped
    );
    d.unmap(m).unwrap();
    assert_eq!(d.unmap(m).unwrap_err().rule(), Rule::HandleStale);
    let want: Vec<u8> = (1..=16).collect();
    assert_eq!(d.read_buffer(b, 0, 16).unwrap(), want);
    copy(&d, b, out, 16);
    assert_eq!(d.read_buffer(out, 0, 16).unwrap(), want);
    let e = d
        .create_buffer_mapped(&BufferDescriptor {
            label: "odd",
            size: 6,
            usage: BufferUsages::STORAGE,
        })
        .unwrap_err();
    assert_eq!(e.rule(), Rule::MappedAtCreationSize, "{e}");
}

/// A small deterministic generator (xorshift64*), so a failing sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_writes_copies_and_pauses_match_a_model_of_the_bytes() {
    // Queue writes (direct when the buffer is idle, staged when work in flight uses it,
    // folded, joined, dropped with a destroyed buffer) interleaved with copies between two
    // buffers and with paused submissions; every read must equal a CPU model that applies
    // each write at its call and each copy at its submission.
    const WORDS: u64 = 64;
    for seed in 1..=6u64 {
        let d = gpu();
        let bufs = [storage(&d, "a", WORDS * 4), storage(&d, "b", WORDS * 4)];
        let mut model = [vec![0u8; WORDS as usize * 4], vec![0u8; WORDS as usize * 4]];
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut pauses = Pauses::default();
        let mut log = Vec::new();
        for step in 0..400 {
            match r.below(10) {
                // Writes, often short and near each other: sequential runs, repeats and
                // overlaps all come up.
                0..=5 => {
                    let k = r.below(2) as usize;
                    let most = if r.below(4) == 0 { 24 } else { 4 };
                    let words = 1 + r.below(most);
                    let at = r.below(WORDS - words + 1);
                    let fill = (step as u32).wrapping_mul(2_654_435_761) ^ seed as u32;
                    let data: Vec<u8> = (0..words as u32)
                        .flat_map(|i| fill.wrapping_add(i).to_le_bytes())
                        .collect();
                    d.write_buffer(bufs[k], at * 4, &data).unwrap();
                    model[k][at as usize * 4..][..data.len()].copy_from_slice(&data);
                    log.push(format!("write {k} @{at} x{words}"));
                }
                // A copy between the buffers: the pending writes land before it.
                6 | 7 => {
                    let k = r.below(2) as usize;
                    let words = 1 + r.below(16);
                    let (from, to) = (r.below(WORDS - words + 1), r.below(WORDS - words + 1));
                    let mut e = d
                        .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
                        .unwrap();
                    e.copy_buffer_to_buffer(bufs[k], from * 4, bufs[1 - k], to * 4, words * 4)
                        .unwrap();
                    d.submit([e.finish().unwrap()]).unwrap();
                    pauses.submitted(&d);
                    let moved = model[k][from as usize * 4..][..words as usize * 4].to_vec();
                    model[1 - k][to as usize * 4..][..moved.len()].copy_from_slice(&moved);
                    log.push(format!("copy {k}@{from} -> {}@{to} x{words}", 1 - k));
                }
                // Holding submissions back keeps the buffers busy, so writes are staged.
                8 => {
                    pauses.toggle(&d, &mut log);
                }
                _ => {
                    pauses.resume(&d);
                    for k in 0..2 {
                        let got = d.read_buffer(bufs[k], 0, WORDS * 4).unwrap();
                        assert!(
                            got == model[k],
                            "seed {seed} step {step}: buffer {k} differs from the model after:\n{}",
                            log.join("\n")
                        );
                    }
                    log.push("read".into());
                }
            }
        }
        d.seams().resume_submissions().unwrap();
        for k in 0..2 {
            assert_eq!(
                d.read_buffer(bufs[k], 0, WORDS * 4).unwrap(),
                model[k],
                "seed {seed}: buffer {k} at the end"
            );
        }
    }
}
