//! Acceleration structures: made with edge-value sizes, built from world buffers (mostly
//! fitting, now and then out of range, of the wrong usage or stale), instanced into
//! top-level structures, bound in groups, destroyed. On a device without `RAY_QUERY` every
//! call is refused, which is exercised too.

use super::encode::{on_encoder, outside_pass, pick_encoder};
use crate::rng::Rng;
use crate::world::{GroupMeta, LayoutMeta, PassState, World};
use std::sync::Arc;
use vigil::{
    AccelerationStructureFlags, BindGroupDescriptor, BindGroupEntry, BindGroupLayoutDescriptor,
    BindGroupLayoutEntry, BindingResource, BindingType, BlasBuildEntry, BlasDescriptor,
    BlasTriangleGeometry, BufferUsages, IndexFormat, ShaderStages, TlasBuildEntry, TlasDescriptor,
    TlasInstance, TriangleGeometrySize, VertexFormat,
};

/// One of the operations below.
pub fn acceleration_structures(w: &mut World<'_>, r: &mut Rng) {
    match r.below(12) {
        0 | 1 => create_blas(w, r),
        2 => create_tlas(w, r),
        _ if !w.features.contains(vigil::Features::ACCELERATION_STRUCTURE) => {}
        _ if w.blas.live_count() < 2 => create_blas(w, r),
        _ if w.tlas.live_count() == 0 => create_tlas(w, r),
        _ if w
            .buffers
            .live_where(r, |m| m.usage.contains(BufferUsages::BLAS_INPUT))
            .is_none() =>
        {
            input_buffer(w)
        }
        3..=6 => build(w, r),
        7 | 8 => bind(w, r),
        9 => {
            let (b, _, v) = w.blas.pick(r, w.id);
            w.call(
                "destroy_blas",
                format!("destroy_blas({b:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_blas(b)?;
                    w.blas.kill(b);
                    Ok(())
                },
            );
        }
        10 => {
            let (t, _, v) = w.tlas.pick(r, w.id);
            w.call(
                "destroy_tlas",
                format!("destroy_tlas({t:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_tlas(t)?;
                    w.tlas.kill(t);
                    Ok(())
                },
            );
        }
        _ => create_blas(w, r),
    }
}

fn create_blas(w: &mut World<'_>, r: &mut Rng) {
    if w.blas.full() {
        return;
    }
    let count = r.pick(&[1usize, 1, 1, 2, 3, 0]);
    let fitting = r.chance(80);
    let sizes: Vec<TriangleGeometrySize> = (0..count)
        .map(|_| {
            let index_format = r.pick(&[
                None,
                None,
                Some(IndexFormat::Uint16),
                Some(IndexFormat::Uint32),
            ]);
            if fitting {
                // A shape every rule accepts: three vertices per unindexed triangle.
                let max_vertex_count = r.pick(&[3u32, 4, 6, 8, 64]);
                let most = if index_format.is_some() {
                    16
                } else {
                    max_vertex_count / 3
                };
                return TriangleGeometrySize {
                    vertex_format: VertexFormat::Float32x3,
                    max_vertex_count,
                    index_format,
                    max_primitive_count: 1 + r.below(u64::from(most)) as u32,
                    opaque: r.chance(80),
                };
            }
            TriangleGeometrySize {
                vertex_format: if r.chance(80) {
                    VertexFormat::Float32x3
                } else {
                    VertexFormat::Float32x2
                },
                max_vertex_count: r.pick(&[3, 3, 4, 6, 8, 64, 0]),
                index_format,
                // Sizes stay small (the driver sizes the storage from them); the one past
                // the cap is refused before anything is made.
                max_primitive_count: r.pick(&[1, 1, 2, 4, 16, 0, (1 << 29) + 1]),
                opaque: r.chance(80),
            }
        })
        .collect();
    let what = format!("create_blas({sizes:?})");
    w.call("create_blas", what, false, |w| {
        let b = w.device.create_blas(&BlasDescriptor {
            label: "fuzz blas",
            geometries: &sizes,
            flags: if r.chance(50) {
                AccelerationStructureFlags::PREFER_FAST_BUILD
            } else {
                AccelerationStructureFlags::empty()
            },
        })?;
        w.blas.add(b, Arc::from(sizes.as_slice()));
        Ok(())
    });
}

/// A buffer builds can read, with room for 256 positions.
fn input_buffer(w: &mut World<'_>) {
    if w.buffers.full() {
        return;
    }
    let usage = BufferUsages::BLAS_INPUT | BufferUsages::COPY_DST | BufferUsages::STORAGE;
    w.call(
        "create_buffer",
        "create_buffer(3072, BLAS_INPUT)".into(),
        false,
        |w| {
            let b = w.device.create_buffer(&vigil::BufferDescriptor {
                label: "fuzz blas input",
                size: 3072,
                usage,
            })?;
            w.buffers
                .add(b, crate::world::BufferMeta { size: 3072, usage });
            Ok(())
        },
    );
}

fn create_tlas(w: &mut World<'_>, r: &mut Rng) {
    if w.tlas.full() {
        return;
    }
    let max = r.pick(&[1u32, 2, 4, 4, 16, 16, 0, (1 << 24) + 1]);
    w.call("create_tlas", format!("create_tlas({max})"), false, |w| {
        let t = w.device.create_tlas(&TlasDescriptor {
            label: "fuzz tlas",
            max_instances: max,
            flags: AccelerationStructureFlags::empty(),
        })?;
        w.tlas.add(t, max);
        Ok(())
    });
}

/// A geometry for `size`: mostly one every rule accepts, over a live `BLAS_INPUT` buffer;
/// now and then one field pushed to an edge value.
fn geometry(
    w: &World<'_>,
    r: &mut Rng,
    size: Option<&TriangleGeometrySize>,
    invalid: &mut bool,
) -> BlasTriangleGeometry {
    let max_vertices = size.map_or(3, |s| s.max_vertex_count);
    let max_prims = size.map_or(1, |s| s.max_primitive_count);
    let indexed = size.map_or(r.chance(30), |s| s.index_format.is_some());
    let stride = r.pick(&[12u64, 12, 16]);
    // Room for the vertices and for three 32-bit indices per triangle.
    let need = (u64::from(max_vertices) * stride).max(u64::from(max_prims) * 12);
    let input = |w: &World<'_>, r: &mut Rng, invalid: &mut bool| {
        if r.chance(95) {
            if let Some((b, _)) = w.buffers.live_where(r, |m| {
                m.usage.contains(BufferUsages::BLAS_INPUT) && m.size >= need
            }) {
                return b;
            }
        }
        let (b, _, v) = w.buffers.pick(r, w.id);
        *invalid |= v.invalid();
        b
    };
    let mut g = BlasTriangleGeometry {
        vertex_buffer: input(w, r, invalid),
        first_vertex: 0,
        vertex_stride: stride,
        vertex_count: max_vertices,
        index_buffer: indexed.then(|| input(w, r, invalid)),
        first_index: 0,
        primitive_count: if indexed {
            max_prims
        } else {
            max_prims.min(max_vertices / 3)
        },
    };
    if r.chance(12) {
        match r.below(7) {
            0 => g.vertex_stride = r.pick(&[8, 14, u64::from(u32::MAX) + 4]),
            1 => g.vertex_count = r.edge_u32(max_vertices.saturating_add(1)),
            2 => g.primitive_count = r.edge_u32(max_prims.saturating_add(1)),
            3 => g.first_vertex = r.edge_u32(4096),
            4 => g.first_index = r.edge_u32(4096),
            5 => g.index_buffer = if indexed { None } else { Some(g.vertex_buffer) },
            _ => g.vertex_count = 0,
        }
    }
    g
}

fn build(w: &mut World<'_>, r: &mut Rng) {
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::None) else {
        return outside_pass(w, r);
    };
    let mut invalid = false;
    let mut blas_entries: Vec<(vigil::Blas, Vec<BlasTriangleGeometry>)> = Vec::new();
    for _ in 0..r.pick(&[0usize, 1, 1, 2]) {
        let (b, sizes, v) = w.blas.pick(r, w.id);
        invalid |= v.invalid();
        let n = sizes.as_ref().map_or(1, |s| s.len());
        let n = if r.chance(95) { n } else { n + 1 };
        let geometries = (0..n)
            .map(|k| geometry(w, r, sizes.as_ref().and_then(|s| s.get(k)), &mut invalid))
            .collect();
        blas_entries.push((b, geometries));
    }
    let mut tlas_entries: Vec<(vigil::Tlas, Vec<TlasInstance>)> = Vec::new();
    for _ in 0..r.pick(&[0usize, 1, 1, 2]) {
        let (t, max, v) = w.tlas.pick(r, w.id);
        invalid |= v.invalid();
        let n = r.below(u64::from(max.unwrap_or(2).min(4)) + 2) as usize;
        let instances = (0..n)
            .map(|_| {
                let (b, _, v) = w.blas.pick(r, w.id);
                invalid |= v.invalid();
                let mut transform = TlasInstance::IDENTITY;
                if r.chance(3) {
                    transform[r.index(12)] = f32::NAN;
                }
                transform[3] = r.edge_f32(2.0);
                TlasInstance::new(
                    b,
                    transform,
                    r.pick(&[0, 7, (1 << 24) - 1, 1 << 24]),
                    r.bits(8) as u8,
                )
            })
            .collect();
        tlas_entries.push((t, instances));
    }
    let what = format!("build_acceleration_structures({blas_entries:?}, {tlas_entries:?})");
    on_encoder(w, i, "build_acceleration_structures", what, invalid, |o| {
        let blas: Vec<BlasBuildEntry<'_>> = blas_entries
            .iter()
            .map(|(b, g)| BlasBuildEntry {
                blas: *b,
                geometries: g,
            })
            .collect();
        let tlas: Vec<TlasBuildEntry<'_>> = tlas_entries
            .iter()
            .map(|(t, inst)| TlasBuildEntry {
                tlas: *t,
                instances: inst,
            })
            .collect();
        o.encoder.build_acceleration_structures(&blas, &tlas)
    });
}

/// A layout with one top-level structure (and at times an array of them, refused), and a
/// group binding a picked one; both join the world's pools, so passes bind the group.
fn bind(w: &mut World<'_>, r: &mut Rng) {
    if w.layouts.full() || w.groups.full() {
        return;
    }
    let mut entry = BindGroupLayoutEntry {
        binding: 0,
        visibility: r.pick(&[
            ShaderStages::COMPUTE,
            ShaderStages::FRAGMENT,
            ShaderStages::VERTEX_FRAGMENT,
        ]),
        ty: BindingType::AccelerationStructure,
        array: None,
    };
    if r.chance(5) {
        entry.array = vigil::BindingArray::of(2);
    }
    let (t, _, v) = w.tlas.pick(r, w.id);
    let what = format!("layout {entry:?} and a group binding {t:?}");
    w.call("bind_tlas", what, v.invalid(), |w| {
        let entries: Arc<[BindGroupLayoutEntry]> = Arc::from(vec![entry]);
        let layout = w
            .device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: "fuzz tlas layout",
                entries: &entries,
            })?;
        w.layouts.add(
            layout,
            LayoutMeta {
                entries: entries.clone(),
                recipe: None,
            },
        );
        let group = w.device.create_bind_group(&BindGroupDescriptor {
            label: "fuzz tlas group",
            layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::AccelerationStructure(t),
            }],
        })?;
        w.groups.add(
            group,
            GroupMeta {
                entries,
                recipe: None,
            },
        );
        Ok(())
    });
}
