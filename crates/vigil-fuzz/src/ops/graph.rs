//! Render graphs over the world's objects: bind groups imported (live or not, with edge
//! dynamic offsets and initial states that may conflict), buffers imported and made
//! transient, transient textures, passes that copy between the graph's buffers (each
//! preceded by the plan's transitions); compiled, sometimes left with
//! a group destroyed before it runs, and executed into new encoders (one or several
//! threads) whose command buffers join the world's.

use super::encode::MAX_FINISHED;
use crate::rng::Rng;
use crate::world::{GroupMeta, World};
use vigil::{BufferUsages, CommandEncoderDescriptor, TextureFormat, TextureUsages};
use vigil_graph::{
    Access, Graph, GraphError, Layout, PassKind, ResourceId, ResourceState, Stages,
    TransientBuffer, TransientTexture, Usage,
};

const STATES: [ResourceState; 4] = [
    ResourceState::UNUSED,
    ResourceState::TRANSFER_WRITTEN,
    ResourceState::new(Stages::COMPUTE, Access::SHADER_READ, Layout::Undefined),
    ResourceState::new(
        Stages::FRAGMENT_SHADER,
        Access::SHADER_READ,
        Layout::ShaderReadOnly,
    ),
];

const USAGES: [Usage; 6] = [
    Usage::CopySrc,
    Usage::CopyDst,
    Usage::ShaderRead(Stages::COMPUTE),
    Usage::ShaderWrite(Stages::COMPUTE),
    Usage::Uniform(Stages::VERTEX_SHADER),
    Usage::Vertex,
];

/// A graph refusal that is not the device's is an answer, not a failure of the call.
fn device_error(e: GraphError) -> vigil::Result<()> {
    match e {
        GraphError::Device(e) | GraphError::Recording { error: e, .. } => Err(e),
        _ => Ok(()),
    }
}

pub fn graph(w: &mut World<'_>, r: &mut Rng) {
    if w.command_buffers.len() >= MAX_FINISHED {
        return super::queue::submit(w, r);
    }
    let what = "graph: import, compile, execute".to_owned();
    w.call("graph", what, false, |w| {
        let mut g: Graph = Graph::new();
        let mut resources: Vec<ResourceId> = Vec::new();
        let mut groups = Vec::new();
        for _ in 0..r.below(3) {
            let (group, meta, _) = w.groups.pick(r, w.id);
            let dynamic = meta.as_ref().map_or(0, GroupMeta::dynamic_count);
            let count = if r.chance(90) { dynamic } else { r.index(3) };
            let offsets: Vec<u32> = (0..count)
                .map(|_| r.pick(&[0, 0, 256, 512, 4, u32::MAX]))
                .collect();
            let state = STATES[r.index(STATES.len())];
            match g.import_bind_group(w.device, group, &offsets, |_| state) {
                Ok(id) => groups.push((id, group)),
                Err(e) => device_error(e)?,
            }
        }
        for _ in 0..r.below(3) {
            let Some((b, _)) = w.buffers.any_live(r) else {
                break;
            };
            match g.import_buffer("fuzz", b, STATES[r.index(STATES.len())]) {
                Ok(id) => resources.push(id),
                Err(e) => device_error(e)?,
            }
        }
        // Transients are released when the call ends (a graph's buffers are its own), so
        // a command buffer using one is refused at submission: that too is exercised,
        // now and then.
        if r.chance(25) {
            resources.push(g.create_buffer(
                "fuzz transient",
                TransientBuffer {
                    size: r.pick(&[4, 256, 4096]),
                    usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
                },
            ));
        }
        if r.chance(20) {
            let side = r.pick(&[4, 16]);
            resources.push(g.create_texture(
                "fuzz transient texture",
                TransientTexture {
                    size: [side, side],
                    array_layers: r.pick(&[1, 2]),
                    mip_level_count: r.pick(&[1, 2]),
                    sample_count: 1,
                    format: TextureFormat::Rgba8Unorm,
                    usage: TextureUsages::COPY_SRC
                        | TextureUsages::COPY_DST
                        | TextureUsages::TEXTURE_BINDING,
                },
            ));
        }
        for p in 0..1 + r.below(4) {
            let pass = g.add_pass("fuzz pass", PassKind::Copy);
            if !groups.is_empty() && r.chance(50) {
                let (id, _) = groups[r.index(groups.len())];
                if let Err(e) = g.use_group(pass, 0, id) {
                    device_error(e)?;
                }
            }
            let mut picked = Vec::new();
            for _ in 0..r.below(3) {
                if resources.is_empty() {
                    break;
                }
                let res = resources[r.index(resources.len())];
                if let Err(e) = g.uses(pass, res, USAGES[r.index(USAGES.len())]) {
                    device_error(e)?;
                }
                picked.push(res);
            }
            if r.chance(30) || p == 0 {
                let _ = g.keep(pass);
            }
            let size = r.pick(&[4u64, 8, 256]);
            g.record(pass, move |ctx| {
                if let [a, b, ..] = picked.as_slice() {
                    if let (Some(src), Some(dst)) = (ctx.buffer(*a), ctx.buffer(*b)) {
                        ctx.encoder.copy_buffer_to_buffer(src, 0, dst, 0, size)?;
                    }
                }
                Ok(())
            })
            .or_else(device_error)?;
        }
        let mut compiled = match g.compile() {
            Ok(c) => c,
            Err(e) => return device_error(e),
        };
        // A group destroyed between compiling and running: the execution is refused.
        if !groups.is_empty() && r.chance(10) {
            let (_, group) = groups[r.index(groups.len())];
            if w.device.destroy_bind_group(group).is_ok() {
                w.groups.kill(group);
            }
        }
        let ran: vigil::Result<()> = if r.chance(30) {
            match compiled.execute_parallel(w.device, 1 + r.index(3)) {
                Ok(cbs) => {
                    w.command_buffers.extend(cbs);
                    Ok(())
                }
                Err(e) => device_error(e),
            }
        } else {
            match w.device.create_command_encoder(&CommandEncoderDescriptor {
                label: "fuzz graph",
            }) {
                Ok(mut e) => match compiled.execute(w.device, &mut e) {
                    Ok(()) => e.finish().map(|cb| w.command_buffers.push(cb)),
                    Err(err) => device_error(err),
                },
                Err(e) => Err(e),
            }
        };
        // The transients go once the work using them completes, whatever happened above
        // (they belong to the graph, not to the world's books).
        compiled.release(w.device).or_else(device_error)?;
        ran
    });
}
