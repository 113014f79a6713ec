//! Acceleration structures (`VK_KHR_acceleration_structure`): each owns a storage buffer
//! sized by the driver and a scratch buffer its builds use, so a build names no memory the
//! layer above manages except its inputs.

use crate::conv;
use crate::device::{Buffer, DeviceShared};
use ash::vk;
use vigil_hal as hal;

/// An acceleration structure with its storage and scratch.
#[derive(Debug)]
pub struct AccelerationStructure {
    pub(crate) raw: vk::AccelerationStructureKHR,
    storage: Buffer,
    scratch: Buffer,
    /// The scratch buffer's address rounded up to the device's scratch alignment.
    scratch_address: u64,
    address: u64,
    top_level: bool,
    flags: vk::BuildAccelerationStructureFlagsKHR,
}

fn build_flags(flags: hal::AccelerationStructureFlags) -> vk::BuildAccelerationStructureFlagsKHR {
    if flags.contains(hal::AccelerationStructureFlags::PREFER_FAST_BUILD) {
        vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_BUILD
    } else {
        vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE
    }
}

fn index_type(format: Option<hal::IndexFormat>) -> vk::IndexType {
    format.map_or(vk::IndexType::NONE_KHR, conv::index_type)
}

fn geometry_flags(opaque: bool) -> vk::GeometryFlagsKHR {
    if opaque {
        vk::GeometryFlagsKHR::OPAQUE
    } else {
        vk::GeometryFlagsKHR::empty()
    }
}

/// A triangle geometry; the addresses are 0 for a size query.
fn triangles(
    size: &hal::TriangleGeometrySize,
    vertex_address: u64,
    vertex_stride: u64,
    max_vertex: u32,
    index_address: u64,
) -> vk::AccelerationStructureGeometryKHR<'static> {
    let data = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
        .vertex_format(vk::Format::R32G32B32_SFLOAT)
        .vertex_data(vk::DeviceOrHostAddressConstKHR {
            device_address: vertex_address,
        })
        .vertex_stride(vertex_stride)
        .max_vertex(max_vertex)
        .index_type(index_type(size.index_format))
        .index_data(vk::DeviceOrHostAddressConstKHR {
            device_address: index_address,
        });
    vk::AccelerationStructureGeometryKHR::default()
        .geometry_type(vk::GeometryTypeKHR::TRIANGLES)
        .geometry(vk::AccelerationStructureGeometryDataKHR { triangles: data })
        .flags(geometry_flags(size.opaque))
}

fn instances(address: u64) -> vk::AccelerationStructureGeometryKHR<'static> {
    let data = vk::AccelerationStructureGeometryInstancesDataKHR::default()
        .array_of_pointers(false)
        .data(vk::DeviceOrHostAddressConstKHR {
            device_address: address,
        });
    vk::AccelerationStructureGeometryKHR::default()
        .geometry_type(vk::GeometryTypeKHR::INSTANCES)
        .geometry(vk::AccelerationStructureGeometryDataKHR { instances: data })
}

fn kind(top_level: bool) -> vk::AccelerationStructureTypeKHR {
    if top_level {
        vk::AccelerationStructureTypeKHR::TOP_LEVEL
    } else {
        vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL
    }
}

impl DeviceShared {
    pub(crate) fn create_acceleration_structure(
        &self,
        desc: &hal::AccelerationStructureDescriptor<'_>,
    ) -> hal::Result<AccelerationStructure> {
        let Some(ext) = self.accel.as_ref() else {
            return Err(hal::DeviceError::Unsupported(
                "acceleration structures need the ACCELERATION_STRUCTURE feature".into(),
            ));
        };
        let (geometries, counts, top_level): (Vec<_>, Vec<u32>, bool) = match desc.sizing {
            hal::AccelerationStructureSizing::Triangles(sizes) => (
                sizes
                    .iter()
                    .map(|g| triangles(g, 0, 12, g.max_vertex_count.saturating_sub(1), 0))
                    .collect(),
                sizes.iter().map(|g| g.max_primitive_count).collect(),
                false,
            ),
            hal::AccelerationStructureSizing::Instances(n) => (vec![instances(0)], vec![n], true),
        };
        let flags = build_flags(desc.flags);
        let info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
            .ty(kind(top_level))
            .flags(flags)
            .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
            .geometries(&geometries);
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        self.check("vkGetAccelerationStructureBuildSizesKHR")?;
        // SAFETY: the extension is enabled; the geometry counts match `info`'s geometries.
        unsafe {
            ext.get_acceleration_structure_build_sizes(
                vk::AccelerationStructureBuildTypeKHR::DEVICE,
                &info,
                &counts,
                &mut sizes,
            )
        };
        let storage = self.make_buffer(
            desc.label,
            sizes.acceleration_structure_size.max(256),
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR
                | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
            hal::MemoryLocation::GpuOnly,
        )?;
        let scratch = match self.make_buffer(
            desc.label,
            sizes
                .build_scratch_size
                .max(4)
                .saturating_add(self.scratch_align),
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
            hal::MemoryLocation::GpuOnly,
        ) {
            Ok(b) => b,
            Err(e) => {
                self.destroy_buffer(storage);
                return Err(e);
            }
        };
        let create = vk::AccelerationStructureCreateInfoKHR::default()
            .buffer(storage.raw)
            .offset(0)
            .size(sizes.acceleration_structure_size)
            .ty(kind(top_level));
        let created = self
            .check("vkCreateAccelerationStructureKHR")
            .and_then(|()| {
                // SAFETY: the storage buffer is live, bound, created for acceleration structure
                // storage and at least the size the driver asked for.
                unsafe { ext.create_acceleration_structure(&create, None) }
                    .map_err(conv::map_result)
            });
        let raw = match created {
            Ok(raw) => raw,
            Err(e) => {
                self.destroy_buffer(storage);
                self.destroy_buffer(scratch);
                return Err(e);
            }
        };
        let info =
            vk::AccelerationStructureDeviceAddressInfoKHR::default().acceleration_structure(raw);
        // SAFETY: `raw` is a live acceleration structure of this device.
        let address = unsafe { ext.get_acceleration_structure_device_address(&info) };
        self.set_name(raw, desc.label);
        self.created();
        let align = self.scratch_align;
        let scratch_address = scratch.address.div_ceil(align).saturating_mul(align);
        Ok(AccelerationStructure {
            raw,
            storage,
            scratch,
            scratch_address,
            address,
            top_level,
            flags,
        })
    }

    pub(crate) fn destroy_acceleration_structure(&self, s: AccelerationStructure) {
        if let Some(ext) = self.accel.as_ref() {
            // SAFETY: the caller guarantees no pending GPU work uses it.
            unsafe { ext.destroy_acceleration_structure(s.raw, None) };
        }
        self.destroy_buffer(s.storage);
        self.destroy_buffer(s.scratch);
        self.released();
    }
}

impl AccelerationStructure {
    /// Its device address.
    pub(crate) fn address(&self) -> u64 {
        self.address
    }
}

/// Records one build of `dst` from `input` into `cb`.
pub(crate) fn record_build(
    shared: &DeviceShared,
    cb: vk::CommandBuffer,
    dst: &AccelerationStructure,
    input: hal::BuildInput<'_, crate::Api>,
) {
    let Some(ext) = shared.accel.as_ref() else {
        return;
    };
    let (geometries, ranges): (Vec<_>, Vec<_>) = match input {
        hal::BuildInput::Triangles(list) => list
            .iter()
            .map(|g| {
                let index_address = g
                    .index
                    .map_or(0, |(b, offset)| b.address.saturating_add(offset));
                (
                    triangles(
                        &g.size,
                        g.vertex_buffer.address.saturating_add(g.vertex_offset),
                        g.vertex_stride,
                        g.vertex_count.saturating_sub(1),
                        index_address,
                    ),
                    vk::AccelerationStructureBuildRangeInfoKHR::default()
                        .primitive_count(g.primitive_count),
                )
            })
            .unzip(),
        hal::BuildInput::Instances {
            buffer,
            offset,
            count,
        } => (
            vec![instances(buffer.address.saturating_add(offset))],
            vec![vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(count)],
        ),
    };
    let info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
        .ty(kind(dst.top_level))
        .flags(dst.flags)
        .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
        .dst_acceleration_structure(dst.raw)
        .geometries(&geometries)
        .scratch_data(vk::DeviceOrHostAddressKHR {
            device_address: dst.scratch_address,
        });
    // SAFETY: `cb` is recording outside any pass; the inputs were validated above us
    // (ranges in bounds, usages, counts within what `dst` was created for), the scratch is
    // `dst`'s own and sized by the driver for it, and barriers order this build against
    // other uses of `dst` and its scratch (the caller's contract).
    unsafe { ext.cmd_build_acceleration_structures(cb, &[info], &[&ranges]) };
}
