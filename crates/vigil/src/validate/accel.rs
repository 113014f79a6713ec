//! Acceleration structures: descriptors, build inputs and instances.
//!
//! vigil caps counts at the minimums Vulkan guarantees on every device that has acceleration
//! structures (`maxGeometryCount` and `maxInstanceCount` 2^24, `maxPrimitiveCount` 2^29),
//! so a structure that passes here can be made on any such device.

use super::{ensure, inside};
use crate::error::Result;
use vigil_hal::{BufferUsages, Features, IndexFormat, TriangleGeometrySize, VertexFormat};

/// Most geometries of a bottom-level structure.
pub(crate) const MAX_GEOMETRIES: u32 = 1 << 24;
/// Most instances of a top-level structure.
pub(crate) const MAX_INSTANCES: u32 = 1 << 24;
/// Most triangles of a bottom-level structure (over all its geometries).
pub(crate) const MAX_PRIMITIVES: u64 = 1 << 29;

/// The device has `ACCELERATION_STRUCTURE` enabled (`RAY_QUERY` brings it).
pub(crate) fn feature(op: &'static str, label: &str, features: Features) -> Result<()> {
    ensure!(
        features.contains(Features::ACCELERATION_STRUCTURE),
        AccelFeature,
        op,
        label,
        "acceleration structures need the ACCELERATION_STRUCTURE feature (or RAY_QUERY, which brings it); enable it when opening the device (the adapter must support it)"
    );
    Ok(())
}

/// A buffer with `BLAS_INPUT` usage is made only on a device with acceleration structures.
pub(crate) fn input_usage(label: &str, usage: BufferUsages, features: Features) -> Result<()> {
    if usage.contains(BufferUsages::BLAS_INPUT) {
        feature("create_buffer", label, features)?;
    }
    Ok(())
}

/// A bottom-level structure's geometries.
pub(crate) fn blas(label: &str, geometries: &[TriangleGeometrySize]) -> Result<()> {
    const OP: &str = "create_blas";
    ensure!(
        !geometries.is_empty() && geometries.len() <= MAX_GEOMETRIES as usize,
        BlasDescriptor,
        OP,
        label,
        "{} geometries; a bottom-level structure has 1 to {MAX_GEOMETRIES}",
        geometries.len()
    );
    let mut total = 0u64;
    for (i, g) in geometries.iter().enumerate() {
        ensure!(
            g.vertex_format == VertexFormat::Float32x3,
            BlasDescriptor,
            OP,
            label,
            "geometry {i}: vertex format {:?}; positions are Float32x3",
            g.vertex_format
        );
        ensure!(
            g.max_primitive_count != 0 && g.max_vertex_count != 0,
            BlasDescriptor,
            OP,
            label,
            "geometry {i}: {} triangles and {} vertices at most; each must be at least 1",
            g.max_primitive_count,
            g.max_vertex_count
        );
        ensure!(
            g.index_format.is_some()
                || u64::from(g.max_primitive_count).saturating_mul(3)
                    <= u64::from(g.max_vertex_count),
            BlasDescriptor,
            OP,
            label,
            "geometry {i}: {} unindexed triangles need {} vertices, more than its {} at most",
            g.max_primitive_count,
            u64::from(g.max_primitive_count).saturating_mul(3),
            g.max_vertex_count
        );
        total = total.saturating_add(u64::from(g.max_primitive_count));
    }
    ensure!(
        total <= MAX_PRIMITIVES,
        BlasDescriptor,
        OP,
        label,
        "{total} triangles over all geometries; at most {MAX_PRIMITIVES}"
    );
    Ok(())
}

/// A top-level structure's size.
pub(crate) fn tlas(label: &str, max_instances: u32) -> Result<()> {
    ensure!(
        max_instances != 0 && max_instances <= MAX_INSTANCES,
        TlasDescriptor,
        "create_tlas",
        label,
        "{max_instances} instances; a top-level structure holds 1 to {MAX_INSTANCES}"
    );
    Ok(())
}

/// What a build's geometry names, with the facts of its buffers.
pub(crate) struct GeometryFacts<'a> {
    pub vertex: crate::validate::buffer::Facts<'a>,
    pub first_vertex: u32,
    pub vertex_stride: u64,
    pub vertex_count: u32,
    pub index: Option<crate::validate::buffer::Facts<'a>>,
    pub first_index: u32,
    pub primitive_count: u32,
}

/// Where the build reads: the first vertex's byte offset and the first index's (0 when
/// unindexed).
pub(crate) struct GeometryOffsets {
    pub vertex: u64,
    pub index: u64,
}

/// One geometry of a bottom-level build against the size it was made for.
pub(crate) fn blas_geometry(
    blas: &str,
    i: usize,
    size: &TriangleGeometrySize,
    g: &GeometryFacts<'_>,
) -> Result<GeometryOffsets> {
    const OP: &str = "build_acceleration_structures";
    ensure!(
        g.index.is_some() == size.index_format.is_some(),
        BlasBuildGeometry,
        OP,
        blas,
        "geometry {i} was made {}, and the build gives {}",
        if size.index_format.is_some() {
            "indexed"
        } else {
            "unindexed"
        },
        if g.index.is_some() {
            "an index buffer"
        } else {
            "none"
        }
    );
    ensure!(
        g.vertex_count <= size.max_vertex_count && g.primitive_count <= size.max_primitive_count,
        BlasBuildGeometry,
        OP,
        blas,
        "geometry {i}: {} vertices and {} triangles, beyond the {} and {} it was made for",
        g.vertex_count,
        g.primitive_count,
        size.max_vertex_count,
        size.max_primitive_count
    );
    ensure!(
        g.vertex_count != 0
            && (g.index.is_some()
                || u64::from(g.primitive_count).saturating_mul(3) <= u64::from(g.vertex_count)),
        BlasBuildGeometry,
        OP,
        blas,
        "geometry {i}: {} vertices cannot hold {} triangles",
        g.vertex_count,
        g.primitive_count
    );
    ensure!(
        g.vertex.usage.contains(BufferUsages::BLAS_INPUT),
        BlasInputUsage,
        OP,
        blas,
        "geometry {i}: vertex buffer '{}' needs BLAS_INPUT usage; it has {:?}",
        g.vertex.label,
        g.vertex.usage
    );
    let position = VertexFormat::Float32x3.size();
    ensure!(
        g.vertex_stride >= position
            && g.vertex_stride % 4 == 0
            && g.vertex_stride <= u64::from(u32::MAX),
        BlasInputRange,
        OP,
        blas,
        "geometry {i}: vertex stride {} must be a multiple of 4 from {position} up to 2^32 - 1",
        g.vertex_stride
    );
    let vertex = u64::from(g.first_vertex).saturating_mul(g.vertex_stride);
    let span = u64::from(g.vertex_count)
        .saturating_sub(1)
        .saturating_mul(g.vertex_stride)
        .saturating_add(position);
    ensure!(
        inside(vertex, span, g.vertex.size),
        BlasInputRange,
        OP,
        blas,
        "geometry {i}: {} vertices from vertex {} (bytes {vertex}..{}) run past the end of '{}' ({} bytes)",
        g.vertex_count,
        g.first_vertex,
        vertex.saturating_add(span),
        g.vertex.label,
        g.vertex.size
    );
    let mut index = 0;
    if let (Some(ib), Some(format)) = (g.index, size.index_format) {
        ensure!(
            ib.usage.contains(BufferUsages::BLAS_INPUT),
            BlasInputUsage,
            OP,
            blas,
            "geometry {i}: index buffer '{}' needs BLAS_INPUT usage; it has {:?}",
            ib.label,
            ib.usage
        );
        let width = match format {
            IndexFormat::Uint16 => 2u64,
            IndexFormat::Uint32 => 4,
        };
        index = u64::from(g.first_index).saturating_mul(width);
        let len = u64::from(g.primitive_count)
            .saturating_mul(3)
            .saturating_mul(width);
        ensure!(
            inside(index, len, ib.size),
            BlasInputRange,
            OP,
            blas,
            "geometry {i}: {} indices from index {} run past the end of '{}' ({} bytes)",
            u64::from(g.primitive_count).saturating_mul(3),
            g.first_index,
            ib.label,
            ib.size
        );
    }
    Ok(GeometryOffsets { vertex, index })
}

/// One instance of a top-level build.
pub(crate) fn instance(
    tlas: &str,
    i: usize,
    transform: &[f32; 12],
    custom_index: u32,
) -> Result<()> {
    const OP: &str = "build_acceleration_structures";
    ensure!(
        custom_index < 1 << 24,
        TlasBuildInstances,
        OP,
        tlas,
        "instance {i}: custom index {custom_index} does not fit in 24 bits"
    );
    ensure!(
        transform.iter().all(|v| v.is_finite()),
        TlasBuildInstances,
        OP,
        tlas,
        "instance {i}: the transform has a value that is not finite"
    );
    Ok(())
}
