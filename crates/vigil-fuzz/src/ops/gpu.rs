//! The GPU-pointer tier: heaps made, written, read and destroyed, pointers asked for at
//! edge offsets, and dispatches of a pointer pipeline with roots that mostly point into a
//! live heap and now and then do not (null, past the end, into a destroyed heap; such a
//! root is expected refused only when no live heap holds it).
//!
//! The pipeline only touches the word its root points at, which `set_root` checks lies in
//! a live heap: a stream of valid calls can never make the GPU follow a bad address.

use super::encode::{on_encoder, outside_pass, pick_encoder};
use crate::rng::Rng;
use crate::world::{PassState, World};
use vigil::{GpuHeapDescriptor, GpuPtr, HeapKind, PointerComputePipelineDescriptor, Stages};

const BUMP: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
layout(local_size_x = 1) in;
void main() { vigil.root.value += 1u; }
";

/// Shares a heap with the other device (its handle there then serves as a foreign handle
/// here), or with this device itself (refused: `gpu.heap-share`).
fn share(w: &mut World<'_>, r: &mut Rng) {
    let Some(other) = w.other else {
        return;
    };
    let (h, _, v) = w.gpu_heaps.pick(r, w.id);
    let to_self = r.chance(20);
    let what = format!(
        "share_gpu_heap({h:?}, {})",
        if to_self {
            "itself"
        } else {
            "the other device"
        }
    );
    let shared = w.call("share_gpu_heap", what, v.invalid() || to_self, |w| {
        w.device
            .share_gpu_heap(h, if to_self { w.device } else { other })
    });
    if let Some(s) = shared {
        if !to_self && w.gpu_heaps.foreign.len() < 8 {
            w.gpu_heaps.foreign.push(s);
        }
    }
}

/// One of the operations below.
pub fn gpu_pointers(w: &mut World<'_>, r: &mut Rng) {
    match r.below(10) {
        0 | 1 => create_heap(w, r),
        2 => write(w, r),
        3 => read(w, r),
        4 => {
            let (h, meta, v) = w.gpu_heaps.pick(r, w.id);
            let offset = r.edge_u64(meta.map_or(64, |m| m.0), 8);
            let what = format!("gpu_heap_ptr::<u64>({h:?}, {offset})");
            w.call("gpu_heap_ptr", what, v.invalid(), |w| {
                w.device.gpu_heap_ptr::<u64>(h, offset).map(|_| ())
            });
        }
        5 if r.chance(25) => share(w, r),
        5 => {
            let (h, _, v) = w.gpu_heaps.pick(r, w.id);
            w.call(
                "destroy_gpu_heap",
                format!("destroy_gpu_heap({h:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_gpu_heap(h)?;
                    w.gpu_heaps.kill(h);
                    Ok(())
                },
            );
        }
        _ => dispatch(w, r),
    }
}

fn create_heap(w: &mut World<'_>, r: &mut Rng) {
    if w.gpu_heaps.full() {
        return;
    }
    let size = r.pick(&[64u64, 256, 4096, 65536, 0, 6]);
    let kind = r.pick(&[HeapKind::CpuVisible, HeapKind::GpuOnly, HeapKind::Readback]);
    let what = format!("create_gpu_heap({size}, {kind:?})");
    w.call("create_gpu_heap", what, false, |w| {
        let h = w.device.create_gpu_heap(&GpuHeapDescriptor {
            label: "fuzz heap",
            size,
            kind,
        })?;
        let base = w.device.gpu_heap_ptr::<u8>(h, 0)?.address();
        w.gpu_heaps.add(h, (size, kind, base));
        Ok(())
    });
}

fn write(w: &mut World<'_>, r: &mut Rng) {
    let (h, meta, v) = match w.gpu_heaps.live_where(r, |m| m.1 == HeapKind::CpuVisible) {
        Some((h, m)) if r.chance(80) => (h, Some(m), crate::world::Validity::Live),
        _ => w.gpu_heaps.pick(r, w.id),
    };
    let size = meta.map_or(64, |m| m.0);
    let offset = if r.chance(85) {
        r.below(size / 4) * 4
    } else {
        r.edge_u64(size, 4)
    };
    let len = r.pick(&[4usize, 8, 16, 64]);
    let what = format!("write_gpu_heap({h:?}, {offset}, {len} bytes)");
    w.call("write_gpu_heap", what, v.invalid(), |w| {
        w.device.write_gpu_heap(h, offset, &vec![0x5a; len])
    });
}

fn read(w: &mut World<'_>, r: &mut Rng) {
    let (h, meta, v) = w.gpu_heaps.pick(r, w.id);
    let size = meta.map_or(64, |m| m.0);
    let offset = r.edge_u64(size, 4);
    let len = r.pick(&[4u64, 8, 64]);
    let what = format!("read_gpu_heap({h:?}, {offset}, {len})");
    w.call("read_gpu_heap", what, v.invalid(), |w| {
        w.device.read_gpu_heap(h, offset, len).map(|_| ())
    });
}

fn dispatch(w: &mut World<'_>, r: &mut Rng) {
    if w.bump.is_none() {
        if !w.features.contains(vigil::Features::BUFFER_DEVICE_ADDRESS) && !r.chance(5) {
            return;
        }
        // Now and then through a pipeline cache, live or not, as ordinary pipelines are.
        let (cache, cv) = super::objects::some_cache(w, r);
        w.call(
            "create_pointer_compute_pipeline",
            format!("bump, cache {cache:?}"),
            cv.invalid(),
            |w| {
                let p = w.device.create_pointer_compute_pipeline(
                    &PointerComputePipelineDescriptor {
                        label: "fuzz bump",
                        glsl: BUMP,
                        cache,
                    },
                )?;
                w.bump = Some(p);
                Ok(())
            },
        );
        return;
    }
    let Some(pipeline) = w.bump else { return };
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::Compute) else {
        return outside_pass(w, r);
    };
    // Mostly a word inside a live heap; else null, past a heap's end, or in a destroyed one.
    let (root, invalid) = match w.gpu_heaps.live_where(r, |m| m.0 >= 4) {
        Some((_, (size, _, base))) if r.chance(85) => (
            GpuPtr::<u32>::from_address(base + r.below(size / 4) * 4),
            false,
        ),
        _ => {
            let stale = w.gpu_heaps.items.iter().find(|e| !e.live).map(|e| e.meta.2);
            match (r.below(3), stale) {
                (0, Some(base)) => (GpuPtr::from_address(base), true),
                (1, _) => (GpuPtr::NULL, true),
                _ => {
                    let end = w
                        .gpu_heaps
                        .items
                        .iter()
                        .find(|e| e.live)
                        .map_or(0, |e| e.meta.2 + e.meta.0);
                    (GpuPtr::from_address(end), true)
                }
            }
        }
    };
    // Invalid only when no live heap holds the word: a destroyed heap's addresses, or the
    // end of one heap, may be inside another (drivers reuse and pack address ranges).
    let inside = |base: u64, size: u64| {
        root.address() >= base && root.address().saturating_add(4) <= base + size
    };
    let held = w.gpu_heaps.items.iter().any(|e| {
        let (size, _, base) = e.meta;
        e.live && inside(base, size)
    }) || w.args.is_some_and(|(_, base)| inside(base, ARGS_BYTES));
    let invalid = invalid && !held;
    let barrier = r.chance(50);
    // Now and then the counts come from 12 bytes of a live heap, whatever its words hold
    // (zeros, counts bumped by earlier dispatches, or 0x5a5a5a5a from CPU writes): vigil's
    // check on the GPU lets only counts within the limit through.
    let args = match w.gpu_heaps.live_where(r, |m| m.0 >= 12) {
        Some((_, (size, _, base))) if r.chance(25) => Some(GpuPtr::<[u32; 3]>::from_address(
            base + r.below((size - 12) / 4 + 1) * 4,
        )),
        _ => None,
    };
    let what = format!(
        "set_compute_pipeline(bump), set_root({root:?}), {} (barrier after: {barrier})",
        args.map_or("dispatch".to_owned(), |a| format!(
            "dispatch_indirect_at({a:?})"
        ))
    );
    on_encoder(w, i, "pointer_dispatch", what, invalid, |o| {
        o.bound.pipeline = None;
        o.bound.group = None;
        o.encoder.set_compute_pipeline(pipeline)?;
        o.encoder.set_root(root)?;
        match args {
            Some(a) => o.encoder.dispatch_indirect_at(a)?,
            None => o.encoder.dispatch(1, 1, 1)?,
        }
        if barrier {
            o.encoder.memory_barrier(Stages::COMPUTE, Stages::COMPUTE)?;
        }
        Ok(())
    });
}

/// A triangle whose height depends on the word the root points at (read, never followed).
pub(super) const PULL_VS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Word { uint value; };
VIGIL_ROOT(Word);
void main() {
    float lift = float(vigil.root.value & 1u) * 0.25;
    gl_Position = vec4(float(gl_VertexIndex & 1u) - 0.5, float(gl_VertexIndex >> 1u) - 0.5 + lift, 0.0, 1.0);
}
";

/// One triangle per mesh workgroup, placed by the word the root points at.
const TRIANGLE_MESH: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Word { uint value; };
VIGIL_ROOT(Word);
layout(local_size_x = 1) in;
layout(triangles, max_vertices = 3, max_primitives = 1) out;
void main() {
    SetMeshOutputsEXT(3, 1);
    float lift = float(vigil.root.value & 1u) * 0.25;
    for (int i = 0; i < 3; i++) {
        gl_MeshVerticesEXT[i].gl_Position = vec4(float(i & 1) - 0.5, float(i >> 1) - 0.5 + lift, 0.0, 1.0);
    }
    gl_PrimitiveTriangleIndicesEXT[0] = uvec3(0, 1, 2);
}
";

/// Bytes of the draw arguments heap.
const ARGS_BYTES: u64 = 64;

const FLAT_FS: &str = "
layout(location = 0) out vec4 color;
void main() { color = vec4(0.2, 0.4, 0.6, 1.0); }
";

/// Draws of the tier in a render pass: a pointer pipeline drawn directly (its root set
/// first, or taken by runs of `draw_root`), indirectly and indexed by address, and a mesh
/// pipeline drawn directly and indirectly. The arguments
/// the GPU reads come from a heap only this operation writes, with counts within every
/// limit (the GPU's counts are the application's to keep in bounds; vigil cannot see
/// them); roots point mostly into a live heap, now and then not.
pub fn pointer_draws(w: &mut World<'_>, r: &mut Rng) {
    if w.pull.is_none() || w.args.is_none() {
        if !w.features.contains(vigil::Features::BUFFER_DEVICE_ADDRESS) && !r.chance(5) {
            return;
        }
        return make_draw_pipelines(w, r);
    }
    let (Some(pull), Some((_, args_base))) = (w.pull, w.args) else {
        return;
    };
    // Mostly a pass the pipelines fit (one Rgba8Unorm target, one sample, no depth); now
    // and then any render pass (then refused for the mismatch).
    let fits = r.chance(85);
    let Some(i) = pick_encoder(w, r, |p| one_target_pass(p, fits)) else {
        return outside_pass(w, r);
    };
    let (root, invalid) = match w.gpu_heaps.live_where(r, |m| m.0 >= 4) {
        Some((_, (size, _, base))) if r.chance(90) => (
            GpuPtr::<u32>::from_address(base + r.below(size / 4) * 4),
            false,
        ),
        _ => (GpuPtr::NULL, true),
    };
    let mesh = w.mesh_triangle.filter(|_| r.chance(40));
    let how = r.below(4);
    // A run of draws that take their roots (`how` 3): after the first, the fast path's.
    let run = 1 + r.below(4);
    let x = r.pick(&[1u32, 2, 0, 64, u32::MAX]);
    let what = format!(
        "pointer draw: mesh {}, how {how} (run {run}), root {root:?}, count {x}",
        mesh.is_some()
    );
    on_encoder(w, i, "pointer_draw", what, invalid, |o| {
        o.bound.pipeline = None;
        o.bound.group = None;
        match mesh {
            Some(m) => {
                o.encoder.set_render_pipeline(m)?;
                o.encoder.set_root(root)?;
                if how == 0 {
                    o.encoder
                        .draw_mesh_tasks_indirect_at(GpuPtr::from_address(args_base + 32))
                } else {
                    o.encoder.draw_mesh_tasks(x, 1, 1)
                }
            }
            None => {
                o.encoder.set_render_pipeline(pull)?;
                o.encoder.set_root(root)?;
                match how {
                    0 => o.encoder.draw_indirect_at(GpuPtr::from_address(args_base)),
                    1 => o.encoder.draw_indexed_at(
                        GpuPtr::from_address(args_base + 16),
                        vigil::IndexFormat::Uint32,
                        3,
                        0,
                        0..1,
                    ),
                    2 => o.encoder.draw(0..3, 0..1),
                    _ => (0..run).try_for_each(|_| o.encoder.draw_root(root, 0..3, 0..1)),
                }
            }
        }
    });
}

/// The one color target of the tier's draw pipelines.
fn one_target() -> [Option<vigil::ColorTargetState>; 1] {
    [Some(vigil::ColorTargetState {
        format: vigil::TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: vigil::ColorWrites::ALL,
    })]
}

/// A pointer pipeline drawing [`PULL_VS`]'s triangle with fragment shader `fragment`
/// into one `Rgba8Unorm` target (the passes [`one_target_pass`] picks), made through
/// `cache` when one is given.
pub(super) fn pull_pipeline(
    w: &World<'_>,
    label: &str,
    fragment: &str,
    cache: Option<vigil::PipelineCache>,
) -> vigil::Result<vigil::RenderPipeline> {
    w.device
        .create_pointer_render_pipeline(&vigil::PointerRenderPipelineDescriptor {
            label,
            vertex_glsl: PULL_VS,
            fragment: Some((fragment, &one_target())),
            primitive: vigil::PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache,
        })
}

/// Whether `p` is a render pass the tier's draw pipelines fit (one `Rgba8Unorm` target,
/// one sample, no depth); any render pass when not `fits` (the draw then refused for the
/// mismatch).
pub(super) fn one_target_pass(p: &PassState, fits: bool) -> bool {
    match p {
        PassState::Render {
            colors,
            depth,
            samples,
        } => {
            !fits
                || (colors.as_slice() == [Some(vigil::TextureFormat::Rgba8Unorm)]
                    && depth.is_none()
                    && *samples == 1)
        }
        _ => false,
    }
}

/// The draw pipelines and the arguments heap: `[3, 1, 0, 0]` at 0 (a draw), indices
/// `[0, 1, 2]` at 16, `[1, 1, 1]` at 32 (mesh workgroups).
/// Each now and then through a pipeline cache, live or not, as ordinary pipelines are.
fn make_draw_pipelines(w: &mut World<'_>, r: &mut Rng) {
    let targets = one_target();
    // Each made only while missing: made on an earlier try whose other pipeline (or the
    // heap below) was refused, it is kept (a second one would replace the world's only
    // handle of the first, which then could never be destroyed).
    if w.pull.is_none() {
        let (cache, cv) = super::objects::some_cache(w, r);
        w.call(
            "create_pointer_render_pipeline",
            format!("pull, cache {cache:?}"),
            cv.invalid(),
            |w| {
                w.pull = Some(pull_pipeline(w, "fuzz pull", FLAT_FS, cache)?);
                Ok(())
            },
        );
    }
    if w.features.contains(vigil::Features::MESH_SHADER) && w.mesh_triangle.is_none() {
        let (cache, cv) = super::objects::some_cache(w, r);
        w.call(
            "create_pointer_mesh_pipeline",
            format!("triangle, cache {cache:?}"),
            cv.invalid(),
            |w| {
                let p = w.device.create_pointer_mesh_pipeline(
                    &vigil::PointerMeshPipelineDescriptor {
                        label: "fuzz mesh",
                        task_glsl: None,
                        mesh_glsl: TRIANGLE_MESH,
                        fragment: Some((FLAT_FS, &targets)),
                        cull_mode: vigil::CullMode::None,
                        front_face: vigil::FrontFace::Ccw,
                        depth_stencil: None,
                        sample_count: 1,
                        cache,
                    },
                )?;
                w.mesh_triangle = Some(p);
                Ok(())
            },
        );
    }
    if w.args.is_some() {
        // Made on an earlier try whose pipelines were refused: kept, not made again (a
        // second one would replace the world's only handle of the first).
        return;
    }
    w.call("create_gpu_heap", "draw arguments".into(), false, |w| {
        let h = w.device.create_gpu_heap(&GpuHeapDescriptor {
            label: "fuzz draw arguments",
            size: ARGS_BYTES,
            kind: HeapKind::CpuVisible,
        })?;
        w.device
            .write_gpu_values(h, 0, &[3u32, 1, 0, 0, 0, 1, 2, 0, 1, 1, 1])?;
        let base = w.device.gpu_heap_ptr::<u8>(h, 0)?.address();
        w.args = Some((h, base));
        Ok(())
    });
}
