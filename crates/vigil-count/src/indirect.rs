//! `vigil-count-indirect`: the guard's `dispatch_indirect` workload, in a binary of its own.
//!
//! Every workload in `vigil-count` shares one binary, whose compiler decides what to inline
//! across all of them: adding this workload there moved `root_draw` by +7.6% and `draw` by
//! +2.6% with no change to vigil. Here it cannot move the others. `vigil-count guard` runs
//! it under callgrind as it runs the rest (`vigil-count-indirect run dispatch_indirect`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
#[path = "workloads.rs"]
mod workloads;

use vigil::*;
use workloads::{GROUPS, buffer, compute, device, measured};

/// As `dispatch`, each dispatch reading its counts from one range of an indirect buffer
/// nothing in the recording wrote: the checked path's steady state (one check, in front of
/// the recording, made by a dispatch before the counted ones).
fn dispatch_indirect() {
    let d = device();
    let c = compute(&d);
    let args = buffer(&d, 12, BufferUsages::INDIRECT | BufferUsages::COPY_DST);
    d.write_buffer(args, 0, &[1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "dispatch_indirect",
        })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(c.pipeline).unwrap();
    e.set_bind_group(0, c.groups[0], &[]).unwrap();
    e.dispatch_indirect(args, 0).unwrap();
    measured(|| {
        for i in 0..10_000u32 {
            e.set_bind_group(0, c.groups[(i % GROUPS) as usize], &[])
                .unwrap();
            e.dispatch_indirect(args, 0).unwrap();
        }
    });
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["run", "dispatch_indirect"] => {
            dispatch_indirect();
            std::process::ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: vigil-count-indirect run dispatch_indirect");
            std::process::ExitCode::FAILURE
        }
    }
}
