//! `vigil-count-calls`: the `draw` workload's four calls counted one kind at a time, in a
//! binary of its own (as `vigil-count-indirect` is: workloads added to `vigil-count` itself
//! can change what the compiler inlines in the guard's). `vigil-count calls` runs each under
//! callgrind and prints instructions per call; they are not in the guard's baseline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
#[path = "workloads.rs"]
mod workloads;

use std::process::ExitCode;
use vigil::*;
use workloads::{GROUPS, draw_set, measured};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("run"), Some(w)) if run(w).is_some() => ExitCode::SUCCESS,
        (Some("time"), Some(w)) if workloads::CALLS.contains(&w.as_str()) => {
            let reps = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(21);
            match workloads::time(w, reps, run) {
                Some(()) => ExitCode::SUCCESS,
                None => ExitCode::FAILURE,
            }
        }
        _ => {
            eprintln!(
                "usage: vigil-count-calls run|time WORKLOAD [REPS] (see `vigil-count calls`)"
            );
            ExitCode::from(2)
        }
    }
}

/// The `draw` workload's calls one kind at a time, 10,000 of it in a recording that has met
/// every group and buffer already (1,000 draws of the frame recorded first): what each of
/// the frame's four calls costs on its own. `draw.set_index_buffer` and
/// `draw.set_vertex_buffer` alternate the set's buffers (so none is a repeat the call skips),
/// `draw.set_bind_group` the groups (binding natively waits for the next draw),
/// `draw.draw_indexed` draws with nothing changed, `draw.group_draw` sets a group and
/// draws (the group's native binding and its place in the pass's scope), and `draw.bundle`
/// executes the frame's 10,000 draws recorded into a render bundle (per draw), and
/// `draw.bundle_frame` does so in a frame of its own (a new encoder and pass, as the bench's
/// `vigil-bundle` path: per draw, the frame's cost shared out). Not in the guard:
/// a diagnosis of where a draw's instructions go, not a figure to hold.
fn run(kind: &str) -> Option<()> {
    let s = draw_set();
    let mut e = s.second_encoder();
    s.record_from(&mut e, GROUPS, 0);
    let (groups, vbs, ibs) = (&s.groups, &s.vbs, &s.ibs);
    let group = |i: u32| groups[(i % GROUPS) as usize];
    match kind {
        "draw.set_index_buffer" => measured(|| {
            for i in 0..10_000u32 {
                e.set_index_buffer(ibs[(i % 3) as usize], IndexFormat::Uint16, 0, None)
                    .unwrap();
            }
        }),
        "draw.set_vertex_buffer" => measured(|| {
            for i in 0..10_000u32 {
                e.set_vertex_buffer(0, vbs[(i % 4) as usize], 0, None)
                    .unwrap();
            }
        }),
        "draw.set_bind_group" => measured(|| {
            for i in 0..10_000u32 {
                e.set_bind_group(0, group(i), &[]).unwrap();
            }
        }),
        "draw.draw_indexed" => measured(|| {
            for i in 0..10_000u32 {
                e.draw_indexed(0..6, 0, i..i + 1).unwrap();
            }
        }),
        "draw.bundle" | "draw.bundle_frame" => {
            // The frame's 10,000 draws recorded once into a bundle (not counted), then
            // executed: what a draw costs when its checks were made at recording.
            let mut b =
                s.d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                    label: "draws",
                    color_formats: &[Some(TextureFormat::Rgba8Unorm)],
                    ..Default::default()
                })
                .unwrap();
            b.set_render_pipeline(s.pipeline).unwrap();
            for i in 0..10_000u32 {
                b.set_bind_group(0, group(i), &[]).unwrap();
                b.set_vertex_buffer(0, vbs[(i % 4) as usize], 0, None)
                    .unwrap();
                b.set_index_buffer(ibs[(i % 3) as usize], IndexFormat::Uint16, 0, None)
                    .unwrap();
                b.draw_indexed(0..6, 0, i..i + 1).unwrap();
            }
            let bundle = b.finish().unwrap();
            if kind == "draw.bundle" {
                measured(|| e.execute_bundles(&[bundle]).unwrap());
            } else {
                // A frame as the bench's: a new encoder, its pass, the bundle, finished.
                measured(|| {
                    let mut f = s.encoder();
                    f.execute_bundles(&[bundle]).unwrap();
                    f.end_render_pass().unwrap();
                    drop(f.finish().unwrap());
                });
            }
        }
        "draw.group_draw" => measured(|| {
            for i in 0..10_000u32 {
                e.set_bind_group(0, group(i), &[]).unwrap();
                e.draw_indexed(0..6, 0, i..i + 1).unwrap();
            }
        }),
        _ => return None,
    }
    e.end_render_pass().unwrap();
    s.d.submit([e.finish().unwrap()]).unwrap();
    Some(())
}
