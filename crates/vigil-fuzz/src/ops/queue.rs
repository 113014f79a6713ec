//! The queue: submissions, queue writes, readbacks, mappings, polls and bounded waits.

use crate::report::FindingKind;
use crate::rng::Rng;
use crate::world::{MapMeta, Validity, World};
use std::time::Duration;
use vigil::{BufferUsages, MapMode, MapWaitParams, TexelCopyBufferLayout, TexelCopyTextureInfo};

/// Most bytes one write or read moves (the fuzzer looks for rule breaks, not bandwidth).
const MAX_BYTES: u64 = 1 << 20;

/// Bytes every 32-bit (and 16-bit) word of which is below 16: what the fuzzer writes, so
/// that buffers used for indirect arguments and indices only ever ask for small work.
pub fn small_bytes(r: &mut Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    for (i, b) in v.iter_mut().enumerate() {
        if i % 4 == 0 {
            *b = r.below(16) as u8;
        }
    }
    v
}

pub fn submit(w: &mut World<'_>, r: &mut Rng) {
    let n = match r.below(10) {
        0 => 0,
        1..=6 => 1,
        7 | 8 => 2,
        _ => 3,
    }
    .min(w.command_buffers.len());
    let mut chosen = Vec::with_capacity(n);
    for _ in 0..n {
        let i = r.index(w.command_buffers.len());
        chosen.push(w.command_buffers.remove(i));
    }
    let labels: Vec<String> = chosen.iter().map(|c| c.label().to_owned()).collect();
    let what = format!("submit({} command buffer(s) {labels:?})", chosen.len());
    w.call("submit", what, false, |w| w.device.submit(chosen).map(drop));
}

/// A submission waiting on the GPU for serials of this device or of the other one: some
/// submitted (including 0), some not yet (refused: `queue.wait-unsubmitted`). The other
/// device sometimes submits first, so its serials move.
pub fn submit_after(w: &mut World<'_>, r: &mut Rng) {
    let Some(other) = w.other else {
        return;
    };
    if r.chance(30) {
        w.call(
            "submit_other",
            "other.submit(nothing)".into(),
            false,
            |_| other.submit(std::iter::empty()).map(drop),
        );
    }
    let mut chosen = Vec::new();
    if !w.command_buffers.is_empty() && r.chance(70) {
        let i = r.index(w.command_buffers.len());
        chosen.push(w.command_buffers.remove(i));
    }
    let mut waits = Vec::new();
    let mut invalid = false;
    for _ in 0..r.below(3) {
        let d = if r.chance(50) { w.device } else { other };
        let last = d.last_submitted_serial();
        let serial = match r.below(6) {
            0 => 0,
            1 | 2 => last,
            3 => r.below(last.saturating_add(1)),
            4 => last.saturating_add(1),
            _ => u64::MAX,
        };
        invalid |= serial > last;
        waits.push((d, serial));
    }
    let what = format!(
        "submit_after({} command buffer(s), waits {:?})",
        chosen.len(),
        waits.iter().map(|(d, s)| (d.id(), *s)).collect::<Vec<_>>()
    );
    w.call("submit_after", what, invalid, |w| {
        w.device.submit_after(chosen, &waits).map(drop)
    });
}

pub fn drop_command_buffer(w: &mut World<'_>, r: &mut Rng) {
    if w.command_buffers.is_empty() {
        return;
    }
    let cb = w.command_buffers.remove(r.index(w.command_buffers.len()));
    w.call(
        "drop_command_buffer",
        "drop(command buffer)".into(),
        false,
        |_| {
            drop(cb);
            Ok(())
        },
    );
}

pub fn write_buffer(w: &mut World<'_>, r: &mut Rng) {
    let (b, meta, v) = w.buffers.pick(r, w.id);
    let size = meta.map_or(64, |m| m.size);
    let offset = if r.chance(60) { 0 } else { r.edge_u64(size, 4) };
    let len = match r.below(10) {
        0 => 0,
        1 => 3,
        2 => size.saturating_add(4),
        3 => size.saturating_sub(offset),
        _ => size
            .saturating_sub(offset.min(size))
            .min(r.pick(&[4, 16, 64, 256, 4096])),
    }
    .min(MAX_BYTES);
    let data = small_bytes(r, len as usize);
    let what = format!("write_buffer({b:?}, {offset}, {len} bytes)");
    w.call("write_buffer", what, v.invalid(), |w| {
        w.device.write_buffer(b, offset, &data)
    });
}

/// A run of sequential writes into one buffer, each starting where the last ended, or
/// more of the last run after whatever came between (a submission, a destroy, a mapping,
/// other writes): the path on which a thread is granted the run and writes without the
/// queue lock (and, in a long run, without a locked instruction). Now and then a piece of
/// the run is refused (not whole words, or past the buffer), and the run goes on after it.
pub fn write_run(w: &mut World<'_>, r: &mut Rng) {
    let again = w.run.filter(|_| r.chance(50));
    let (b, size, mut offset, v) = match again {
        Some((b, next)) => {
            let meta = w
                .buffers
                .items
                .iter()
                .find(|e| e.handle == b)
                .map(|e| (e.meta.size, e.live));
            let (size, live) = meta.unwrap_or((64, false));
            let v = if live {
                Validity::Live
            } else {
                Validity::Stale
            };
            (b, size, next, v)
        }
        None => {
            let (b, meta, v) = w.buffers.pick(r, w.id);
            let size = meta.map_or(64, |m| m.size);
            let offset = if r.chance(50) {
                0
            } else {
                r.edge_u64(size, 4) & !3
            };
            (b, size, offset, v)
        }
    };
    // Half the time the buffer is made busy first: a submission that clears it, held at a
    // GPU-side gate until the run is over, so the run's writes are staged (continuing a
    // pending write, which grants the run) rather than written straight in.
    let held = r.chance(50) && hold_busy(w, b, v.invalid());
    // Now and then a run long enough that its granted writes stop taking the gate's
    // locked instruction (past a grant's 256th write; see vigil's `device::runs`).
    let long = r.chance(3);
    let piece = if long {
        4
    } else {
        r.pick(&[4u64, 16, 64, 256])
    };
    let count = if long {
        260 + r.below(200)
    } else {
        2 + r.below(14)
    };
    for _ in 0..count {
        let len = if r.chance(5) { piece + 2 } else { piece };
        let data = small_bytes(r, len as usize);
        let what = format!("write_buffer({b:?}, {offset}, {len} bytes) in a run");
        let done = w.call("write_buffer", what, v.invalid(), |w| {
            w.device.write_buffer(b, offset, &data)
        });
        if done.is_some() {
            offset = offset.saturating_add(len);
        }
        if offset >= size {
            break;
        }
    }
    if held {
        resume(w);
    }
    w.run = Some((b, offset));
}

/// A run of sequential 16-byte writes into one busy buffer on another thread, while this
/// thread makes calls that take the queue lock (polls, write statistics, writes into
/// other buffers): each of those ends the other thread's grant, whose writes may have
/// gone light (no locked instruction, so the close runs the asymmetric fence). Then every
/// piece the other thread wrote is read back: each must hold its own bytes.
pub fn write_run_across_threads(w: &mut World<'_>, r: &mut Rng) {
    let want = BufferUsages::COPY_DST | BufferUsages::COPY_SRC;
    let Some((b, meta)) = w
        .buffers
        .live_where(r, |m| m.usage.contains(want) && m.size >= 64)
    else {
        return;
    };
    if !hold_busy(w, b, false) {
        return;
    }
    let pieces = (meta.size / 16).min(64 + r.below(400));
    let others: Vec<vigil::Buffer> = (0..4)
        .filter_map(|_| {
            w.buffers
                .live_where(r, |m| {
                    m.usage.contains(BufferUsages::COPY_DST) && m.size >= 16
                })
                .map(|(o, _)| o)
        })
        .filter(|o| *o != b)
        .collect();
    let lock_takers = 4 + r.below(20);
    let device = w.device;
    let seed = r.next_u64();
    let written = std::thread::scope(|s| {
        let writer = s.spawn(move || {
            super::threads::caught(|| {
                (0..pieces)
                    .map(|i| {
                        let piece = piece_bytes(seed, i);
                        device.write_buffer(b, i * 16, &piece).is_ok()
                    })
                    .collect::<Vec<bool>>()
            })
        });
        for k in 0..lock_takers {
            match k % 3 {
                0 => {
                    w.call(
                        "poll",
                        "poll() beside a run on another thread".into(),
                        false,
                        |w| w.device.poll(),
                    );
                }
                1 => {
                    let _ = w.device.write_stats();
                }
                _ => {
                    if let Some(&o) = others.get(k as usize % others.len().max(1)) {
                        // Small words, as everywhere: the buffer may be read as
                        // indices or indirect arguments.
                        let what = format!("write_buffer({o:?}, 0, 16 bytes) beside a run");
                        w.call("write_buffer", what, false, |w| {
                            w.device.write_buffer(o, 0, &piece_bytes(seed, k))
                        });
                    }
                }
            }
            std::thread::yield_now();
        }
        writer
            .join()
            .unwrap_or_else(|_| Err("(the writing thread could not be joined)".into()))
    });
    resume(w);
    let written = match written {
        Ok(written) => written,
        Err(message) => {
            let at = w.calls;
            w.finding(
                FindingKind::Panic,
                at,
                format!(
                    "write_buffer({b:?}) on another thread panicked in a run of {pieces}: {message}"
                ),
            );
            return;
        }
    };
    let what = format!(
        "read_buffer({b:?}, 0, {}) after a run on another thread",
        pieces * 16
    );
    let Some(bytes) = w.call("read_buffer", what, false, |w| {
        w.device.read_buffer(b, 0, pieces * 16)
    }) else {
        return;
    };
    let wrong = written
        .iter()
        .zip(bytes.chunks_exact(16))
        .enumerate()
        .find(|(i, (ok, got))| **ok && **got != piece_bytes(seed, *i as u64)[..]);
    if let Some((i, _)) = wrong {
        let at = w.calls;
        w.finding(
            FindingKind::WrongData,
            at,
            format!(
                "{b:?}: piece {i} of a run of {pieces} written on another thread while this one took the queue lock {lock_takers} times does not read back"
            ),
        );
    }
}

/// The 16 bytes of piece `i` of a run: the low 16 bits of `i ^ seed`, four bits in the
/// low byte of each word (so every word stays below 16, as `small_bytes` keeps them):
/// distinct for every piece of a run, and unlike an earlier run's with another seed.
fn piece_bytes(seed: u64, i: u64) -> [u8; 16] {
    let mut p = [0u8; 16];
    let v = i ^ seed;
    for (k, word) in p.chunks_exact_mut(4).enumerate() {
        word[0] = ((v >> (k * 4)) & 0xf) as u8;
    }
    p
}

/// Resumes the submissions `hold_busy` paused.
fn resume(w: &mut World<'_>) {
    w.call(
        "resume_submissions",
        "resume_submissions()".into(),
        false,
        |w| w.device.seams().resume_submissions(),
    );
}

/// Pauses submissions and submits a clear of `b`, so that `b` is in use by a submission
/// that cannot complete until `resume_submissions`: `true` when that is so (paused and
/// submitted), `false` (and nothing held) otherwise. `invalid`: `b` is not live.
fn hold_busy(w: &mut World<'_>, b: vigil::Buffer, invalid: bool) -> bool {
    let paused = w.call(
        "pause_submissions",
        "pause_submissions()".into(),
        false,
        |w| w.device.seams().pause_submissions(),
    );
    if paused.is_none() {
        return false;
    }
    let what = format!("clear_buffer({b:?}) submitted to hold it busy");
    let submitted = w.call("submit", what, invalid, |w| {
        let mut e = w
            .device
            .create_command_encoder(&vigil::CommandEncoderDescriptor { label: "held run" })?;
        e.clear_buffer(b, 0, None)?;
        let cb = e.finish()?;
        w.device.submit([cb])
    });
    if submitted.is_none() {
        resume(w);
        return false;
    }
    true
}

pub fn write_texture(w: &mut World<'_>, r: &mut Rng) {
    let (t, meta, v) = w.textures.pick(r, w.id);
    let (size, mips, layers, texel) = meta.map_or(([4, 4], 1, 1, 4), |m| {
        (
            m.size,
            m.mips,
            m.layers,
            m.format.info().bytes_per_texel.max(1),
        )
    });
    let at = TexelCopyTextureInfo {
        mip_level: if r.chance(85) { 0 } else { r.edge_u32(mips) },
        origin: if r.chance(85) {
            [0, 0]
        } else {
            [r.edge_u32(size[0]), r.edge_u32(size[1])]
        },
        array_layer: if r.chance(85) { 0 } else { r.edge_u32(layers) },
        aspect: vigil::TextureAspect::All,
    };
    let extent = if r.chance(75) {
        [size[0], size[1], 1]
    } else {
        [r.edge_u32(size[0]), r.edge_u32(size[1]), r.edge_u32(1)]
    };
    let row = u64::from(extent[0].min(size[0])) * u64::from(texel);
    let layout = TexelCopyBufferLayout {
        offset: if r.chance(80) { 0 } else { r.edge_u64(row, 4) },
        bytes_per_row: if r.chance(80) {
            u32::try_from(row).unwrap_or(u32::MAX)
        } else {
            r.pick(&[0, 1, 255, u32::MAX, u32::MAX - 3])
        },
        rows_per_image: if r.chance(85) {
            None
        } else {
            Some(r.edge_u32(size[1]))
        },
    };
    let needed = row.saturating_mul(u64::from(extent[1].min(size[1])));
    let len = match r.below(8) {
        0 => needed.saturating_sub(1),
        1 => 0,
        _ => needed.saturating_add(layout.offset.min(1024)),
    }
    .min(MAX_BYTES);
    let data = small_bytes(r, len as usize);
    let what = format!("write_texture({t:?}, {at:?}, {len} bytes, {layout:?}, {extent:?})");
    w.call("write_texture", what, v.invalid(), |w| {
        w.device.write_texture(t, at, &data, layout, extent)
    });
}

pub fn read(w: &mut World<'_>, r: &mut Rng) {
    if r.chance(60) {
        let (b, meta, v) = w.buffers.pick(r, w.id);
        let size = meta.map_or(64, |m| m.size);
        let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 4) };
        let len = if r.chance(70) {
            size.min(MAX_BYTES) / 4 * 4
        } else {
            r.edge_u64(size, 4)
        };
        let what = format!("read_buffer({b:?}, {offset}, {len})");
        w.call("read_buffer", what, v.invalid(), |w| {
            w.device.read_buffer(b, offset, len).map(drop)
        });
    } else {
        let (t, meta, v) = w.textures.pick(r, w.id);
        let size = meta.map_or([4, 4], |m| m.size);
        let at = TexelCopyTextureInfo {
            mip_level: if r.chance(85) { 0 } else { r.edge_u32(4) },
            ..TexelCopyTextureInfo::default()
        };
        let extent = if r.chance(75) {
            size
        } else {
            [r.edge_u32(size[0]), r.edge_u32(size[1])]
        };
        let what = format!("read_texture({t:?}, {at:?}, {extent:?})");
        w.call("read_texture", what, v.invalid(), |w| {
            w.device.read_texture(t, at, extent).map(drop)
        });
    }
}

pub fn mapping(w: &mut World<'_>, r: &mut Rng) {
    match r.below(6) {
        0 | 1 => {
            let mode = if r.chance(50) {
                MapMode::Read
            } else {
                MapMode::Write
            };
            let usage = match mode {
                MapMode::Read => BufferUsages::MAP_READ,
                MapMode::Write => BufferUsages::MAP_WRITE,
            };
            let (b, size, v) = match w.buffers.live_where(r, |m| m.usage.contains(usage)) {
                Some((b, m)) if r.chance(90) => (b, m.size, Validity::Live),
                _ => {
                    let (b, m, v) = w.buffers.pick(r, w.id);
                    (b, m.map_or(0, |m| m.size), v)
                }
            };
            let offset = if r.chance(70) { 0 } else { r.edge_u64(size, 8) };
            let len = if r.chance(70) {
                size.saturating_sub(offset) / 4 * 4
            } else {
                r.edge_u64(size, 4)
            };
            let what = format!("map_buffer_async({b:?}, {mode:?}, {offset}, {len})");
            w.call("map_buffer_async", what, v.invalid(), |w| {
                let m = w.device.map_buffer_async(b, mode, offset, len)?;
                w.mappings.add(
                    m,
                    MapMeta {
                        buffer: b,
                        mode,
                        size: len,
                    },
                );
                Ok(())
            });
        }
        2 => {
            let (m, _, v) = w.mappings.pick(r, w.id);
            w.call(
                "poll_mapping",
                format!("poll_mapping({m:?})"),
                v.invalid(),
                |w| w.device.poll_mapping(m).map(drop),
            );
        }
        3 => {
            let (m, _, v) = w.mappings.pick(r, w.id);
            let timeout = Duration::from_millis(r.pick(&[0, 1, 20]));
            let what = format!("wait_for_mapping({m:?}, {timeout:?})");
            w.call("wait_for_mapping", what, v.invalid(), |w| {
                let params = MapWaitParams {
                    timeout,
                    slice: Duration::from_millis(1),
                };
                w.device.wait_for_mapping(m, &params, &|| false).map(drop)
            });
        }
        4 => {
            let (m, meta, v) = w.mappings.pick(r, w.id);
            let write = meta.is_some_and(|m| m.mode == MapMode::Write) && r.chance(80);
            let len = meta.map_or(0, |m| m.size).min(MAX_BYTES) as usize;
            let data = small_bytes(r, len);
            if write {
                let what = format!("mapped_bytes_mut({m:?})");
                w.call("mapped_bytes_mut", what, v.invalid(), |w| {
                    w.device.mapped_bytes_mut(m, |bytes| {
                        let n = bytes.len().min(data.len());
                        bytes[..n].copy_from_slice(&data[..n]);
                    })
                });
            } else {
                let what = format!("mapped_bytes({m:?})");
                w.call("mapped_bytes", what, v.invalid(), |w| {
                    w.device.mapped_bytes(m, |bytes| bytes.len()).map(drop)
                });
            }
        }
        _ => {
            let (m, _, v) = w.mappings.pick(r, w.id);
            w.call("unmap", format!("unmap({m:?})"), v.invalid(), |w| {
                w.device.unmap(m)?;
                w.mappings.kill(m);
                Ok(())
            });
        }
    }
}

pub fn poll_and_wait(w: &mut World<'_>, r: &mut Rng) {
    let last = w.device.last_submitted_serial();
    let completed = w.device.completed_serial();
    let serial = r.pick(&[0, completed, last, last, last.saturating_add(1), u64::MAX]);
    match r.below(3) {
        0 => {
            w.call("poll", "poll()".into(), false, |w| {
                w.device.poll().map(drop)
            });
        }
        1 => {
            let timeout = Duration::from_millis(r.pick(&[0, 1, 10]));
            let what = format!("wait_for_serial({serial}, {timeout:?})");
            w.call("wait_for_serial", what, false, |w| {
                w.device.wait_for_serial(serial, timeout).map(drop)
            });
        }
        _ => {
            let what = format!("wait_for_serial_unless_stalled({serial}, 10 s)");
            w.call("wait_for_serial_unless_stalled", what, false, |w| {
                w.device
                    .wait_for_serial_unless_stalled(serial, Duration::from_secs(10))
            });
        }
    }
}

/// The timeline: started, collected (never waits) or stopped at any moment.
pub fn timeline(w: &mut World<'_>, r: &mut Rng) {
    match r.below(3) {
        0 => {
            w.call("start_timeline", "start_timeline()".into(), false, |w| {
                w.device.start_timeline()
            });
        }
        1 => {
            w.call("timeline", "timeline()".into(), false, |w| {
                let t = w.device.timeline()?;
                // Well-formed whatever was recorded.
                let trace = t.to_chrome_trace();
                debug_assert!(trace.starts_with('[') && trace.ends_with("]\n"));
                Ok(())
            });
        }
        _ => {
            w.call("stop_timeline", "stop_timeline()".into(), false, |w| {
                w.device.stop_timeline();
                Ok(())
            });
        }
    }
}
