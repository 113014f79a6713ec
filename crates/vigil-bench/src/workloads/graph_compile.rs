//! vigil-graph's compile time at 100, 1,000 and 10,000 passes, each size a path of its own
//! (vigil only: no other runtime has this graph). A frame of `n` compute passes over 64
//! imported buffers and a transient per pass: pass `i` reads buffers `i` and `i + 1`
//! (mod 64) and the transient of pass `i - 1`, writes buffer `i + 2` and its own transient.
//! Building the graph is not timed; compiling it (culling, merging, sharing transients,
//! planning barriers) is.

use crate::harness::{Plan, repeat};
use crate::workloads::PathResult;
use std::time::Instant;
use vigil::{Buffer, BufferDescriptor, BufferUsages, Device};
use vigil_graph::{Graph, PassKind, ResourceState, Stages, TransientBuffer, Usage};

/// Buffers the passes cycle through.
const RING: usize = 64;

/// The imported buffers (made once, shared by every size).
pub fn ring(device: &Device) -> Result<Vec<Buffer>, String> {
    (0..RING)
        .map(|_| {
            device
                .create_buffer(&BufferDescriptor {
                    label: "graph ring",
                    size: 256,
                    usage: BufferUsages::STORAGE,
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn build(ring: &[Buffer], n: usize) -> Result<Graph, String> {
    let mut g: Graph = Graph::new();
    let ids = ring
        .iter()
        .map(|&b| g.import_buffer("ring", b, ResourceState::UNUSED))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let c = Stages::COMPUTE;
    let mut previous = None;
    for i in 0..n {
        let pass = g.add_pass("pass", PassKind::Compute);
        let own = g.create_buffer(
            "scratch",
            TransientBuffer {
                size: 4096,
                usage: BufferUsages::STORAGE,
            },
        );
        let at = |k: usize| ids.get((i + k) % RING).copied();
        let (Some(a), Some(b), Some(out)) = (at(0), at(1), at(2)) else {
            return Err("ring index".into());
        };
        let mut uses = vec![
            (a, Usage::ShaderRead(c)),
            (b, Usage::ShaderRead(c)),
            (out, Usage::ShaderWrite(c)),
            (own, Usage::ShaderWrite(c)),
        ];
        if let Some(p) = previous {
            uses.push((p, Usage::ShaderRead(c)));
        }
        for (r, u) in uses {
            g.uses(pass, r, u).map_err(|e| e.to_string())?;
        }
        previous = Some(own);
    }
    Ok(g)
}

/// One size as a path: compile time per repetition.
pub fn path(
    ring: &[Buffer],
    n: usize,
    name: &'static str,
    plan: Plan,
) -> Result<PathResult, String> {
    let [compile] = repeat(plan, || {
        let g = build(ring, n)?;
        let start = Instant::now();
        let compiled = g.compile().map_err(|e| e.to_string())?;
        let took = start.elapsed();
        let barriers = compiled.plan().barrier_count();
        drop(compiled);
        if barriers == 0 {
            return Err("a graph with no barriers".into());
        }
        Ok([took])
    })?;
    Ok(PathResult {
        path: name,
        metrics: vec![("compile", compile)],
        output: Vec::new(),
    })
}
