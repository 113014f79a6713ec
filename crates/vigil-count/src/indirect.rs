//! `vigil-count-indirect`: the guard's indirect workloads (`dispatch_indirect`,
//! `draw_indexed_indirect`, `multi_draw_indexed_indirect`), in a binary of their own.
//!
//! Every workload in `vigil-count` shares one binary, whose compiler decides what to inline
//! across all of them: adding this workload there moved `root_draw` by +7.6% and `draw` by
//! +2.6% with no change to vigil. Here it cannot move the others. `vigil-count guard` runs
//! them under callgrind as it runs the rest (`vigil-count-indirect run dispatch_indirect`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
#[path = "workloads.rs"]
mod workloads;

use vigil::*;
use workloads::{GROUPS, buffer, compute, device, draw_set, measured};

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

/// Indexed draws whose arguments are read from one buffer of 10,000 commands, one after
/// another, in one render pass, counted to the pass's end: every indexed indirect draw's
/// arguments are checked on the GPU in front of the pass (indices inside the bound range),
/// and the end of the pass is where those checks are recorded. `multi`: one
/// `multi_draw_indexed_indirect` of all 10,000; otherwise one `draw_indexed_indirect` each,
/// the `i`th at `20 * i`.
fn draw_indexed_indirect(multi: bool) {
    const DRAWS: u32 = 10_000;
    let s = draw_set();
    let args = buffer(
        &s.d,
        u64::from(DRAWS) * 20,
        BufferUsages::INDIRECT | BufferUsages::COPY_DST,
    );
    let words: Vec<u8> = (0..DRAWS)
        .flat_map(|i| [6u32, 1, 0, 0, i])
        .flat_map(u32::to_le_bytes)
        .collect();
    s.d.write_buffer(args, 0, &words).unwrap();
    let mut e = s.second_encoder();
    e.set_bind_group(0, s.groups[0], &[]).unwrap();
    e.set_vertex_buffer(0, s.vbs[0], 0, None).unwrap();
    e.set_index_buffer(s.ibs[0], IndexFormat::Uint16, 0, None)
        .unwrap();
    measured(|| {
        if multi {
            e.multi_draw_indexed_indirect(args, 0, DRAWS).unwrap();
        } else {
            for i in 0..u64::from(DRAWS) {
                e.draw_indexed_indirect(args, 20 * i).unwrap();
            }
        }
        e.end_render_pass().unwrap();
    });
    s.d.submit([e.finish().unwrap()]).unwrap();
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
        [
            "run",
            w @ ("draw_indexed_indirect" | "multi_draw_indexed_indirect"),
        ] => {
            draw_indexed_indirect(w.starts_with("multi"));
            std::process::ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: vigil-count-indirect run dispatch_indirect|draw_indexed_indirect|multi_draw_indexed_indirect"
            );
            std::process::ExitCode::FAILURE
        }
    }
}
