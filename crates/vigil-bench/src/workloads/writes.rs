//! **writes**: queue writes of many small pieces (64 bytes) and of large ones (1 MiB) into
//! an idle device buffer, then a submission that makes them land. Timed twice: the write
//! calls alone ("write", CPU time), and through to the GPU having them ("total"). A fourth
//! path, `memcpy`, copies the same pieces into host memory: the floor for the write calls.
//!
//! The output is a hash of the destination read back after the last run.

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::Raw;
use crate::wgpu_ctx::Wgpu;
use ash::vk;
use std::time::{Duration, Instant};

/// One part of the workload: `count` writes of `piece` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Bytes per write.
    pub piece: u64,
    /// Writes per run.
    pub count: u64,
}

impl Size {
    /// Bytes per run.
    pub fn total(&self) -> u64 {
        self.piece * self.count
    }
}

/// The bytes written: a pattern no two pieces share.
pub fn source(size: Size) -> Vec<u8> {
    (0..size.total())
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// FNV-1a over the bytes.
pub fn hash(bytes: &[u8]) -> Vec<u8> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h.to_le_bytes().to_vec()
}

fn result(
    path: &'static str,
    write: crate::harness::Stats,
    total: crate::harness::Stats,
    output: Vec<u8>,
) -> PathResult {
    PathResult {
        path,
        metrics: vec![("write", write), ("total", total)],
        output,
    }
}

/// Through vigil.
pub fn vigil(
    device: &vigil::Device,
    size: Size,
    src: &[u8],
    plan: Plan,
) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let dst = device
        .create_buffer(&BufferDescriptor {
            label: "writes",
            size: size.total(),
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .map_err(e)?;
    // The buffer's zero fill goes first, outside the timing.
    let flush = || -> Result<(), String> {
        let cb = device
            .create_command_encoder(&CommandEncoderDescriptor { label: "land" })
            .and_then(|enc| enc.finish())
            .map_err(e)?;
        let s = device.submit([cb]).map_err(e)?;
        device
            .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
            .map_err(e)
    };
    flush()?;
    // Staged writes are bounded (at most MAX_QUEUED_WRITES wait, within the staging
    // budget): a writer that meets the bound submits what waits and writes on, as vigil's
    // error says to. Direct writes into host-visible memory are not queued.
    let [write, total] = repeat(plan, || {
        let t = Instant::now();
        for (k, piece) in src.chunks_exact(size.piece as usize).enumerate() {
            let offset = k as u64 * size.piece;
            match device.write_buffer(dst, offset, piece) {
                Err(err) if err.kind() == ErrorKind::LimitExceeded => {
                    let s = device.submit(std::iter::empty()).map_err(e)?;
                    if device.write_buffer(dst, offset, piece).is_err() {
                        // The budget is held by uploads in flight: wait for them.
                        device
                            .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
                            .map_err(e)?;
                        device.write_buffer(dst, offset, piece).map_err(e)?;
                    }
                }
                r => r.map_err(e)?,
            }
        }
        let write = t.elapsed();
        flush()?;
        Ok([write, t.elapsed()])
    })?;
    let output = hash(&device.read_buffer(dst, 0, size.total()).map_err(e)?);
    device.destroy_buffer(dst).map_err(e)?;
    Ok(result("vigil", write, total, output))
}

/// Through raw ash: into the mapping where the buffer's memory is host-visible, else
/// through a persistent staging buffer and one copy command with a region per write.
pub fn ash(raw: &mut Raw, size: Size, src: &[u8], plan: Plan) -> Result<PathResult, String> {
    let dst = raw.buffer(
        size.total(),
        vk::BufferUsageFlags::STORAGE_BUFFER,
        gpu_allocator::MemoryLocation::GpuOnly,
    )?;
    let direct = Raw::is_mapped(&dst);
    let staging = if direct {
        None
    } else {
        Some(raw.buffer(
            size.total(),
            vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_allocator::MemoryLocation::CpuToGpu,
        )?)
    };
    let (pool, cb) = raw.command_buffer()?;
    let d = raw.device.clone();
    let timed = repeat(plan, || {
        let t = Instant::now();
        let target = staging.as_ref().unwrap_or(&dst);
        for (k, piece) in src.chunks_exact(size.piece as usize).enumerate() {
            raw.write(target, k as u64 * size.piece, piece)?;
        }
        let write = t.elapsed();
        raw.begin(pool, cb)?;
        if let Some(s) = &staging {
            let regions: Vec<vk::BufferCopy> = (0..size.count)
                .map(|k| {
                    vk::BufferCopy::default()
                        .src_offset(k * size.piece)
                        .dst_offset(k * size.piece)
                        .size(size.piece)
                })
                .collect();
            // SAFETY: in-range regions between buffers of this device.
            unsafe { d.cmd_copy_buffer(cb, s.raw, dst.raw, &regions) };
        }
        raw.end(cb)?;
        let s = raw.submit(&[cb])?;
        raw.wait(s)?;
        Ok::<_, String>([write, t.elapsed()])
    });
    // SAFETY: the last submission was waited for.
    unsafe { d.destroy_command_pool(pool, None) };
    let output = timed
        .as_ref()
        .ok()
        .map(|_| raw.read_any(&dst, size.total()));
    if let Some(s) = staging {
        raw.destroy_buffer(s);
    }
    raw.destroy_buffer(dst);
    let [write, total] = timed?;
    let output = output.ok_or("no output")??;
    Ok(result("ash", write, total, hash(&output)))
}

/// Through wgpu.
pub fn wgpu(w: &Wgpu, size: Size, src: &[u8], plan: Plan) -> Result<PathResult, String> {
    let dst = w.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("writes"),
        size: size.total(),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let [write, total] = repeat(plan, || {
        let t = Instant::now();
        for (k, piece) in src.chunks_exact(size.piece as usize).enumerate() {
            w.queue.write_buffer(&dst, k as u64 * size.piece, piece);
        }
        let write = t.elapsed();
        w.queue.submit([]);
        w.wait()?;
        Ok([write, t.elapsed()])
    })?;
    let output = hash(&w.read(&dst, size.total())?);
    dst.destroy();
    Ok(result("wgpu", write, total, output))
}

/// The floor: the same pieces copied into host memory.
pub fn memcpy(size: Size, src: &[u8], plan: Plan) -> Result<PathResult, String> {
    let mut dst = vec![0u8; size.total() as usize];
    // Its writes are its whole work: both metrics are the one time (the phase is paired
    // with the GPU paths', which time two).
    let [write, total] = repeat(plan, || {
        let t = Instant::now();
        for (k, piece) in src.chunks_exact(size.piece as usize).enumerate() {
            let at = k * size.piece as usize;
            dst[at..at + piece.len()].copy_from_slice(piece);
        }
        std::hint::black_box(&mut dst);
        let d = t.elapsed();
        Ok([d, d])
    })?;
    Ok(result("memcpy", write, total, hash(&dst)))
}
