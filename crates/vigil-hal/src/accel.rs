//! Plain acceleration-structure types: what a bottom-level structure holds (triangles), what
//! a top-level one holds (instances of bottom-level ones), and how builds name their inputs.
//!
//! An acceleration structure owns its storage and the scratch memory its builds use; the
//! layer above never sees either. Instances are 64-byte records in a buffer the layer above
//! writes ([`instance_record`]).

use crate::Api;
use crate::render::{IndexFormat, VertexFormat};
use bitflags::bitflags;

bitflags! {
    /// Build preferences of an acceleration structure.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct AccelerationStructureFlags: u32 {
        /// Spend build time for faster traversal (the default when neither is set).
        const PREFER_FAST_TRACE = 1 << 0;
        /// Build quickly, at some cost in traversal.
        const PREFER_FAST_BUILD = 1 << 1;
    }
}

/// The most a bottom-level structure's triangle geometry may hold: what its storage is
/// sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriangleGeometrySize {
    /// Vertex position format (`Float32x3`).
    pub vertex_format: VertexFormat,
    /// Most vertices a build may give.
    pub max_vertex_count: u32,
    /// Index format, or `None` for unindexed triangles (three vertices each).
    pub index_format: Option<IndexFormat>,
    /// Most triangles a build may give.
    pub max_primitive_count: u32,
    /// Whether the triangles are opaque (any-hit work skipped); ray queries see them as
    /// committed at once.
    pub opaque: bool,
}

/// What an acceleration structure is sized for.
#[derive(Clone, Copy, Debug)]
pub enum AccelerationStructureSizing<'a> {
    /// Bottom level: triangle geometries.
    Triangles(&'a [TriangleGeometrySize]),
    /// Top level: up to this many instances.
    Instances(u32),
}

/// What the backend needs to create an acceleration structure. The layer above has
/// validated it (the device has the `RAY_QUERY` feature; sizes are non-zero and within the
/// device's limits).
#[derive(Clone, Copy, Debug)]
pub struct AccelerationStructureDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Bottom or top level, and what it holds at most.
    pub sizing: AccelerationStructureSizing<'a>,
    /// Build preferences.
    pub flags: AccelerationStructureFlags,
}

/// One triangle geometry of a bottom-level build.
#[derive(Clone, Copy, Debug)]
pub struct TriangleGeometry<'a, A: Api> {
    /// The size this geometry was created with (formats, opacity).
    pub size: TriangleGeometrySize,
    /// Buffer holding the positions.
    pub vertex_buffer: &'a A::Buffer,
    /// Byte offset of the first position.
    pub vertex_offset: u64,
    /// Bytes from one position to the next.
    pub vertex_stride: u64,
    /// Vertices the buffer holds from `vertex_offset` (every index must be below it).
    pub vertex_count: u32,
    /// Index buffer and byte offset of the first index, when the geometry is indexed.
    pub index: Option<(&'a A::Buffer, u64)>,
    /// Triangles to build.
    pub primitive_count: u32,
}

/// What a build reads.
#[derive(Clone, Copy, Debug)]
pub enum BuildInput<'a, A: Api> {
    /// Bottom level: one entry per geometry the structure was created with.
    Triangles(&'a [TriangleGeometry<'a, A>]),
    /// Top level: `count` 64-byte instance records at `offset` in `buffer`.
    Instances {
        /// Buffer of instance records.
        buffer: &'a A::Buffer,
        /// Byte offset of the first record (a multiple of 16).
        offset: u64,
        /// Records to build from.
        count: u32,
    },
}

/// Bytes of one instance record.
pub const INSTANCE_RECORD_SIZE: u64 = 64;

/// The 64-byte record of one top-level instance, as Vulkan's
/// `VkAccelerationStructureInstanceKHR` (and Metal's indirect instance descriptor) lays it
/// out: a row-major 3×4 transform, the 24-bit custom index and 8-bit mask, the 24-bit
/// shader binding table offset (0) and 8-bit flags, and the bottom-level structure's
/// address.
pub fn instance_record(
    transform: &[f32; 12],
    custom_index: u32,
    mask: u8,
    blas_address: u64,
) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (chunk, v) in out.chunks_exact_mut(4).zip(transform.iter()) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    let index_mask = (custom_index & 0x00ff_ffff) | (u32::from(mask) << 24);
    out[48..52].copy_from_slice(&index_mask.to_le_bytes());
    // Shader binding table offset 0; flags 0 (the geometry's own opacity applies).
    out[52..56].copy_from_slice(&0u32.to_le_bytes());
    out[56..64].copy_from_slice(&blas_address.to_le_bytes());
    out
}
