//! **round-trip**: submit an empty command buffer and wait for it to complete, many times
//! over: the fixed cost of one submission and one wait. The output is how many round
//! trips completed.

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::Raw;
use crate::wgpu_ctx::Wgpu;
use std::time::{Duration, Instant};

fn output(n: u32) -> Vec<u8> {
    n.to_le_bytes().to_vec()
}

/// Through vigil.
pub fn vigil(device: &vigil::Device, trips: u32, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let mut done = 0;
    let [all] = repeat(plan, || {
        let t = Instant::now();
        done = 0;
        for _ in 0..trips {
            let cb = device
                .create_command_encoder(&CommandEncoderDescriptor { label: "empty" })
                .and_then(|enc| enc.finish())
                .map_err(e)?;
            let s = device.submit([cb]).map_err(e)?;
            device
                .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
                .map_err(e)?;
            if device.completed_serial() >= s {
                done += 1;
            }
        }
        Ok([t.elapsed()])
    })?;
    Ok(PathResult {
        path: "vigil",
        metrics: vec![("round-trip", all)],
        output: output(done),
    })
}

/// Through raw ash.
pub fn ash(raw: &mut Raw, trips: u32, plan: Plan) -> Result<PathResult, String> {
    let (pool, cb) = raw.command_buffer()?;
    let mut done = 0;
    let result = repeat(plan, || {
        let t = Instant::now();
        done = 0;
        for _ in 0..trips {
            raw.begin(pool, cb)?;
            raw.end(cb)?;
            let s = raw.submit(&[cb])?;
            raw.wait(s)?;
            done += 1;
        }
        Ok::<_, String>([t.elapsed()])
    });
    // SAFETY: the last submission was waited for.
    unsafe { raw.device.destroy_command_pool(pool, None) };
    let [all] = result?;
    Ok(PathResult {
        path: "ash",
        metrics: vec![("round-trip", all)],
        output: output(done),
    })
}

/// Through wgpu.
pub fn wgpu(w: &Wgpu, trips: u32, plan: Plan) -> Result<PathResult, String> {
    let mut done = 0;
    let [all] = repeat(plan, || {
        let t = Instant::now();
        done = 0;
        for _ in 0..trips {
            let enc = w
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("empty"),
                });
            w.queue.submit([enc.finish()]);
            w.wait()?;
            done += 1;
        }
        Ok([t.elapsed()])
    })?;
    Ok(PathResult {
        path: "wgpu",
        metrics: vec![("round-trip", all)],
        output: output(done),
    })
}

/// What every path must report.
pub fn expected(trips: u32) -> Vec<u8> {
    output(trips)
}
