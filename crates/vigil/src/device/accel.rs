//! Acceleration structures: bottom-level ones over triangles, top-level ones over
//! instances of those, what WGSL ray queries traverse. Made here, built by
//! [`crate::CommandEncoder::build_acceleration_structures`], bound as
//! [`crate::BindingResource::AccelerationStructure`].

use super::{BlasObj, Device, TlasObj};
use crate::error::Result;
use crate::handle::{Blas, Handle, Tlas};
use crate::native::Owned;
use crate::validate;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use vigil_hal::Device as _;
use vigil_hal::{
    AccelerationStructureDescriptor, AccelerationStructureFlags, AccelerationStructureSizing, Api,
    TriangleGeometrySize,
};

/// How to make a bottom-level acceleration structure (wgpu's `CreateBlasDescriptor` with its
/// `BlasGeometrySizeDescriptors`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BlasDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// What each triangle geometry may hold at most; builds give one geometry per entry.
    pub geometries: &'a [TriangleGeometrySize],
    /// Build preferences.
    pub flags: AccelerationStructureFlags,
}

/// How to make a top-level acceleration structure (wgpu's `CreateTlasDescriptor`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TlasDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Most instances a build may give.
    pub max_instances: u32,
    /// Build preferences.
    pub flags: AccelerationStructureFlags,
}

impl<A: Api> Device<A> {
    /// Makes a bottom-level acceleration structure sized for `desc.geometries`. Needs
    /// `RAY_QUERY`. It holds nothing until a build fills it; a top-level build naming it
    /// before then is refused (`accel.unbuilt`).
    pub fn create_blas(&self, desc: &BlasDescriptor<'_>) -> Result<Blas> {
        const OP: &str = "create_blas";
        let label = desc.label;
        self.check_alive(OP)?;
        validate::accel::feature(OP, label, self.features)?;
        validate::accel::blas(label, desc.geometries)?;
        let raw = self
            .hal
            .create_acceleration_structure(&AccelerationStructureDescriptor {
                label,
                sizing: AccelerationStructureSizing::Triangles(desc.geometries),
                flags: desc.flags,
            })
            .map_err(|e| self.hal_error(e, OP, label))?;
        let address = self.hal.acceleration_structure_address(&raw);
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .blas
            .insert(|index, generation| BlasObj {
                raw,
                handle: Blas::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                geometries: desc.geometries.into(),
                address,
                built: AtomicBool::new(false),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, label, "bottom-level structure"))?;
        self.notify_created("bottom-level acceleration structure", label);
        Ok(obj.handle)
    }

    /// Makes a top-level acceleration structure for up to `desc.max_instances` instances.
    /// Needs `RAY_QUERY`. Shaders may traverse it once a build was submitted.
    pub fn create_tlas(&self, desc: &TlasDescriptor<'_>) -> Result<Tlas> {
        const OP: &str = "create_tlas";
        let label = desc.label;
        self.check_alive(OP)?;
        validate::accel::feature(OP, label, self.features)?;
        validate::accel::tlas(label, desc.max_instances)?;
        let raw = self
            .hal
            .create_acceleration_structure(&AccelerationStructureDescriptor {
                label,
                sizing: AccelerationStructureSizing::Instances(desc.max_instances),
                flags: desc.flags,
            })
            .map_err(|e| self.hal_error(e, OP, label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .tlas
            .insert(|index, generation| TlasObj {
                raw,
                handle: Tlas::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                max_instances: desc.max_instances,
                built: AtomicBool::new(false),
                blas: Mutex::new(Vec::new()),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, label, "top-level structure"))?;
        self.notify_created("top-level acceleration structure", label);
        Ok(obj.handle)
    }

    /// Destroys a bottom-level structure: its handle is stale at once; the native
    /// structure lives on while a top-level structure built over it, a recording or a
    /// submission in flight holds it.
    pub fn destroy_blas(&self, blas: Blas) -> Result<()> {
        drop(self.remove(blas, "destroy_blas")?);
        Ok(())
    }

    /// Destroys a top-level structure: its handle is stale at once; the native structure
    /// lives on while a bind group, a recording or a submission in flight holds it.
    pub fn destroy_tlas(&self, tlas: Tlas) -> Result<()> {
        drop(self.remove(tlas, "destroy_tlas")?);
        Ok(())
    }
}
