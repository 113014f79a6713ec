//! Acceleration structure builds.
//!
//! The structures themselves are not tracked per resource: each build call is fenced by
//! two global barriers — before it, everything that may have read or built a structure
//! (shaders, earlier builds) finishes; after it, its writes are visible to every later
//! build and shader — so no traversal or build can overlap a build of the same structure,
//! in this command buffer or any submitted after. Builds are rare next to draws, and the
//! fences cost nothing on the draw path. The vertex and index buffers a build reads are
//! tracked like any other buffer use, in the build stage.

use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Blas, Buffer, Tlas};
use crate::track::Use;
use crate::validate;
use std::sync::Arc;
use vigil_hal::{
    Access, Api, BufferDescriptor, BufferUsages, BuildInput, INSTANCE_RECORD_SIZE, MemoryBarrier,
    MemoryLocation, Stages, TriangleGeometry,
};

/// One triangle geometry of a bottom-level build (wgpu's `BlasTriangleGeometry`, with the
/// counts given here rather than in a size descriptor).
#[derive(Clone, Copy, Debug)]
pub struct BlasTriangleGeometry {
    /// Buffer of Float32x3 positions (`BLAS_INPUT` usage).
    pub vertex_buffer: Buffer,
    /// Index of the first position in the buffer.
    pub first_vertex: u32,
    /// Bytes from one position to the next (a multiple of 4, at least 12).
    pub vertex_stride: u64,
    /// Positions the geometry has from `first_vertex` (every index must be below it).
    pub vertex_count: u32,
    /// Index buffer (`BLAS_INPUT` usage), exactly when the geometry was made indexed.
    pub index_buffer: Option<Buffer>,
    /// Index of the first index in the index buffer.
    pub first_index: u32,
    /// Triangles: three indices (or three vertices, unindexed) each.
    pub primitive_count: u32,
}

/// One bottom-level structure to build.
#[derive(Clone, Copy, Debug)]
pub struct BlasBuildEntry<'a> {
    /// The structure.
    pub blas: Blas,
    /// One geometry per geometry it was made with, in order.
    pub geometries: &'a [BlasTriangleGeometry],
}

/// One instance of a top-level build (wgpu's `TlasInstance`).
#[derive(Clone, Copy, Debug)]
pub struct TlasInstance {
    /// The bottom-level structure instanced; built before the top-level build runs.
    pub blas: Blas,
    /// Object to world, row-major 3×4 (the last column is the translation).
    pub transform: [f32; 12],
    /// What shaders read as `instance_custom_index` (24 bits).
    pub custom_index: u32,
    /// Rays whose cull mask shares no bit with it skip the instance.
    pub mask: u8,
}

impl TlasInstance {
    /// An instance of `blas` with `transform`, `custom_index` and `mask`.
    pub fn new(blas: Blas, transform: [f32; 12], custom_index: u32, mask: u8) -> Self {
        TlasInstance {
            blas,
            transform,
            custom_index,
            mask,
        }
    }

    /// The identity transform.
    pub const IDENTITY: [f32; 12] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
}

/// One top-level structure to build.
#[derive(Clone, Copy, Debug)]
pub struct TlasBuildEntry<'a> {
    /// The structure.
    pub tlas: Tlas,
    /// Its instances (at most the count it was made for); what it held before is replaced.
    pub instances: &'a [TlasInstance],
}

/// A build read of an input buffer.
const INPUT: Use = Use::buffer(Stages::ACCELERATION_STRUCTURE_BUILD, Access::SHADER_READ);
/// Stages that read or write acceleration structures.
const TRAVERSAL: Stages = Stages::COMPUTE
    .union(Stages::VERTEX_SHADER)
    .union(Stages::FRAGMENT_SHADER);

/// A checked geometry: its buffers and where the build reads.
struct Checked<A: Api> {
    vertex: Arc<crate::device::BufferObj<A>>,
    vertex_offset: u64,
    vertex_span: u64,
    index: Option<(Arc<crate::device::BufferObj<A>>, u64, u64)>,
    g: BlasTriangleGeometry,
}

impl<A: Api> CommandEncoder<A> {
    /// Builds bottom-level structures, then top-level ones (which may instance the
    /// bottom-level ones built here), replacing what each held. Needs `RAY_QUERY`; outside
    /// passes. Every input is checked before anything is recorded; a structure this
    /// command buffer needs built (an instanced bottom-level structure) must be built here
    /// first or by an earlier submission, checked when it is submitted (`accel.unbuilt`).
    ///
    /// As wgpu's `build_acceleration_structures`; what cannot be checked on the CPU is the
    /// index values: each must be below its geometry's `vertex_count`.
    pub fn build_acceleration_structures(
        &mut self,
        blas: &[BlasBuildEntry<'_>],
        tlas: &[TlasBuildEntry<'_>],
    ) -> Result<()> {
        const OP: &str = "build_acceleration_structures";
        self.step(OP, |e| {
            e.expect_pass(Pass::None, OP)?;
            validate::accel::feature(OP, &e.label, e.core.features)?;
            // Check everything first: a refused call records nothing.
            let mut blas_checked = Vec::with_capacity(blas.len());
            for entry in blas {
                let b = find(&mut e.used.blas, &e.core, entry.blas, OP)?.clone();
                if blas_checked
                    .iter()
                    .any(|(x, _): &(Arc<crate::device::BlasObj<A>>, _)| Arc::ptr_eq(x, &b))
                {
                    return Err(fail!(
                        AccelBuildDuplicate,
                        OP,
                        &b.label,
                        "the structure is built twice in one call"
                    ));
                }
                if entry.geometries.len() != b.geometries.len() {
                    return Err(fail!(
                        BlasBuildGeometry,
                        OP,
                        &b.label,
                        "the build gives {} geometries; the structure was made with {}",
                        entry.geometries.len(),
                        b.geometries.len()
                    ));
                }
                let mut geometries = Vec::with_capacity(entry.geometries.len());
                for (i, (g, size)) in entry.geometries.iter().zip(b.geometries.iter()).enumerate() {
                    let vb = find(&mut e.used.buffers, &e.core, g.vertex_buffer, OP)?.clone();
                    let ib = match g.index_buffer {
                        Some(h) => Some(find(&mut e.used.buffers, &e.core, h, OP)?.clone()),
                        None => None,
                    };
                    let at = validate::accel::blas_geometry(
                        &b.label,
                        i,
                        size,
                        &validate::accel::GeometryFacts {
                            vertex: vb.facts(),
                            first_vertex: g.first_vertex,
                            vertex_stride: g.vertex_stride,
                            vertex_count: g.vertex_count,
                            index: ib.as_ref().map(|ib| ib.facts()),
                            first_index: g.first_index,
                            primitive_count: g.primitive_count,
                        },
                    )?;
                    let vertex_span = u64::from(g.vertex_count)
                        .saturating_sub(1)
                        .saturating_mul(g.vertex_stride)
                        .saturating_add(12);
                    let index = ib.map(|ib| {
                        let width = size.index_format.map_or(4, |f| f.size());
                        let len = u64::from(g.primitive_count)
                            .saturating_mul(3)
                            .saturating_mul(width);
                        (ib, at.index, len)
                    });
                    geometries.push(Checked {
                        vertex: vb,
                        vertex_offset: at.vertex,
                        vertex_span,
                        index,
                        g: *g,
                    });
                }
                blas_checked.push((b, geometries));
            }
            let mut tlas_checked = Vec::with_capacity(tlas.len());
            for entry in tlas {
                let t = find(&mut e.used.tlas, &e.core, entry.tlas, OP)?.clone();
                if tlas_checked
                    .iter()
                    .any(|(x, _, _): &(Arc<crate::device::TlasObj<A>>, _, _)| Arc::ptr_eq(x, &t))
                {
                    return Err(fail!(
                        AccelBuildDuplicate,
                        OP,
                        &t.label,
                        "the structure is built twice in one call"
                    ));
                }
                if entry.instances.len() > t.max_instances as usize {
                    return Err(fail!(
                        TlasBuildInstances,
                        OP,
                        &t.label,
                        "{} instances; the structure was made for {}",
                        entry.instances.len(),
                        t.max_instances
                    ));
                }
                let mut named: Vec<Arc<crate::device::BlasObj<A>>> = Vec::new();
                let mut records = Vec::with_capacity(entry.instances.len());
                for (i, inst) in entry.instances.iter().enumerate() {
                    validate::accel::instance(&t.label, i, &inst.transform, inst.custom_index)?;
                    let b = find(&mut e.used.blas, &e.core, inst.blas, OP)?.clone();
                    records.push(vigil_hal::instance_record(
                        &inst.transform,
                        inst.custom_index,
                        inst.mask,
                        b.address,
                    ));
                    if !named.iter().any(|x| Arc::ptr_eq(x, &b)) {
                        named.push(b);
                    }
                }
                tlas_checked.push((t, named, records));
            }
            // The instance records go into buffers of their own, made before anything is
            // recorded (a failure to make one records nothing).
            let mut instance_buffers = Vec::with_capacity(tlas_checked.len());
            for (t, _, records) in &tlas_checked {
                // At least one record's room, so an empty build still names a buffer.
                let size = (records.len().max(1) as u64).saturating_mul(INSTANCE_RECORD_SIZE);
                let raw = e
                    .core
                    .hal
                    .create_buffer(&BufferDescriptor {
                        label: &t.label,
                        size,
                        usage: BufferUsages::BLAS_INPUT,
                        location: MemoryLocation::CpuToGpu,
                    })
                    .map_err(|err| e.core.hal_error(err, OP, &t.label))?;
                // Owned first: a failed write releases the buffer.
                let raw =
                    crate::native::Owned::<A, crate::native::BufferKind>::new(&e.core.hal, raw);
                let mut bytes: Vec<u8> = records.iter().flatten().copied().collect();
                bytes.resize(usize::try_from(size).unwrap_or(0), 0);
                e.core
                    .hal
                    .write_mapped(&raw, 0, &bytes)
                    .map_err(|err| e.core.hal_error(err, OP, &t.label))?;
                instance_buffers.push(raw);
            }
            // The inputs' uses, in the build stage, and their barriers.
            e.used.next_scope();
            for (_, geometries) in &blas_checked {
                for c in geometries {
                    let slot = e.used.buffer_slot(&c.vertex);
                    e.used
                        .use_buffer(slot, c.vertex_offset, c.vertex_span, INPUT, &mut e.pending);
                    if let Some((ib, offset, len)) = &c.index {
                        let slot = e.used.buffer_slot(ib);
                        e.used
                            .use_buffer(slot, *offset, *len, INPUT, &mut e.pending);
                    }
                }
            }
            e.flush_pending(OP)?;
            e.ensure_open(OP)?;
            // What may use a structure finishes before the builds begin.
            if let Some(mut r) = e.rec() {
                r.barriers(
                    Some(MemoryBarrier {
                        src: TRAVERSAL | Stages::ACCELERATION_STRUCTURE_BUILD,
                        dst: Stages::ACCELERATION_STRUCTURE_BUILD,
                    }),
                    &[],
                    &[],
                );
                for (b, geometries) in &blas_checked {
                    let natives: Vec<TriangleGeometry<'_, A>> = geometries
                        .iter()
                        .zip(b.geometries.iter())
                        .map(|(c, size)| TriangleGeometry {
                            size: *size,
                            vertex_buffer: &*c.vertex.raw,
                            vertex_offset: c.vertex_offset,
                            vertex_stride: c.g.vertex_stride,
                            vertex_count: c.g.vertex_count,
                            index: c.index.as_ref().map(|(ib, offset, _)| (&*ib.raw, *offset)),
                            primitive_count: c.g.primitive_count,
                        })
                        .collect();
                    r.build_acceleration_structure(&b.raw, BuildInput::Triangles(&natives));
                }
                if !blas_checked.is_empty() && !tlas_checked.is_empty() {
                    // Top-level builds read the bottom-level structures just built.
                    r.barriers(
                        Some(MemoryBarrier {
                            src: Stages::ACCELERATION_STRUCTURE_BUILD,
                            dst: Stages::ACCELERATION_STRUCTURE_BUILD,
                        }),
                        &[],
                        &[],
                    );
                }
                for ((t, _, records), buffer) in tlas_checked.iter().zip(&instance_buffers) {
                    r.build_acceleration_structure(
                        &t.raw,
                        BuildInput::Instances {
                            buffer,
                            offset: 0,
                            // At most `max_instances` (checked), itself within u32.
                            count: u32::try_from(records.len()).unwrap_or(u32::MAX),
                        },
                    );
                }
                // The builds' writes are visible to every later build and traversal.
                r.barriers(
                    Some(MemoryBarrier {
                        src: Stages::ACCELERATION_STRUCTURE_BUILD,
                        dst: TRAVERSAL | Stages::ACCELERATION_STRUCTURE_BUILD,
                    }),
                    &[],
                    &[],
                );
            }
            // What this recording built and needs built.
            for (b, _) in blas_checked {
                e.used.accel.built_blas.push(b);
            }
            for (t, named, _) in tlas_checked {
                for b in &named {
                    e.used.accel.need_blas(b);
                }
                e.used.accel.built_tlas.retain(|(x, _)| !Arc::ptr_eq(x, &t));
                e.used.accel.built_tlas.push((t, named));
            }
            e.used.accel.instances.extend(instance_buffers);
            e.recorded = true;
            Ok(())
        })
    }
}
