//! Physical devices: what they are and support, and opening a logical device on one.

use crate::device::{Device, DeviceShared};
use crate::instance::InstanceShared;
use crate::{Api, conv};
use ash::vk;
use std::sync::Arc;
use vigil_hal as hal;
use vigil_hal::{Features, Limits};

/// A Vulkan physical device that meets vigil's baseline: Vulkan 1.3 with timeline
/// semaphores, synchronization2 and dynamic rendering, the two core features WebGPU takes
/// for granted (independent blend per color target, cube-array views), and a queue family
/// that does graphics and compute.
#[derive(Debug)]
pub struct Adapter {
    pub(crate) instance: Arc<InstanceShared>,
    pub(crate) raw: vk::PhysicalDevice,
    pub(crate) queue_family: u32,
    /// Whether the family has a second queue (devices then open both: see
    /// [`hal::Device::share_on_second_queue`]).
    pub(crate) second_queue: bool,
    /// A family that computes and copies but does not draw, when the adapter has one whose
    /// timestamps are as good as the main family's (`ASYNC_COMPUTE`).
    pub(crate) compute_family: Option<u32>,
    pub(crate) robust_buffer_access: bool,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    /// What the driver offers for acceleration structures and tracing through them.
    pub(crate) ray: RayNative,
}

/// The driver's acceleration structures and the ways it can trace through them. Vulkan
/// lets a device size or build structures only with a tracing feature enabled (ray queries
/// or ray-tracing pipelines: VUID-vkGetAccelerationStructureBuildSizesKHR-rayTracingPipeline-03617),
/// so a device opened with `ACCELERATION_STRUCTURE` alone enables whichever the driver has,
/// natively, without offering it to shaders.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RayNative {
    /// Acceleration structures with ray queries.
    pub ray_query: bool,
    /// Acceleration structures with ray-tracing pipelines.
    pub pipeline: bool,
}

/// Every feature struct we read, chained.
#[derive(Default)]
struct FeatureSet {
    core: vk::PhysicalDeviceFeatures,
    v11: vk::PhysicalDeviceVulkan11Features<'static>,
    v12: vk::PhysicalDeviceVulkan12Features<'static>,
    v13: vk::PhysicalDeviceVulkan13Features<'static>,
}

fn query_features(instance: &ash::Instance, pd: vk::PhysicalDevice) -> FeatureSet {
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut v11)
        .push_next(&mut v12)
        .push_next(&mut v13);
    // SAFETY: valid physical device; the chain points at locals alive for the call.
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    let core = f2.features;
    let mut out = FeatureSet {
        core,
        ..Default::default()
    };
    // Copy the values out without their p_next pointers, which point at locals.
    out.v11 = vk::PhysicalDeviceVulkan11Features {
        p_next: std::ptr::null_mut(),
        ..v11
    };
    out.v12 = vk::PhysicalDeviceVulkan12Features {
        p_next: std::ptr::null_mut(),
        ..v12
    };
    out.v13 = vk::PhysicalDeviceVulkan13Features {
        p_next: std::ptr::null_mut(),
        ..v13
    };
    out
}

fn supported_features(f: &FeatureSet, timestamps: bool, subgroups: bool) -> Features {
    let mut out = Features::STORAGE_TEXTURE_READ_WRITE;
    let on = |b: vk::Bool32| b == vk::TRUE;
    out.set(Features::TIMESTAMP_QUERY, timestamps);
    out.set(
        Features::FULL_DRAW_INDEX_UINT32,
        on(f.core.full_draw_index_uint32),
    );
    out.set(Features::SAMPLER_ANISOTROPY, on(f.core.sampler_anisotropy));
    out.set(
        Features::INDIRECT_FIRST_INSTANCE,
        on(f.core.draw_indirect_first_instance),
    );
    out.set(
        Features::MULTI_DRAW_INDIRECT,
        on(f.core.multi_draw_indirect),
    );
    out.set(
        Features::TEXTURE_COMPRESSION_BC,
        on(f.core.texture_compression_bc),
    );
    out.set(Features::SHADER_INT64, on(f.core.shader_int64));
    out.set(
        Features::BUFFER_DEVICE_ADDRESS,
        on(f.v12.buffer_device_address),
    );
    out.set(
        Features::TEXTURE_BINDING_ARRAY,
        on(f.core.shader_sampled_image_array_dynamic_indexing),
    );
    out.set(
        Features::BUFFER_BINDING_ARRAY,
        on(f.core.shader_uniform_buffer_array_dynamic_indexing),
    );
    out.set(
        Features::STORAGE_RESOURCE_BINDING_ARRAY,
        on(f.core.shader_storage_buffer_array_dynamic_indexing)
            && on(f.core.shader_storage_image_array_dynamic_indexing),
    );
    out.set(
        Features::BINDING_ARRAY_NON_UNIFORM_INDEXING,
        on(f.v12.shader_sampled_image_array_non_uniform_indexing)
            && on(f.v12.shader_storage_buffer_array_non_uniform_indexing)
            && on(f.v12.shader_uniform_buffer_array_non_uniform_indexing)
            && on(f.v12.shader_storage_image_array_non_uniform_indexing),
    );
    out.set(
        Features::PARTIALLY_BOUND_BINDING_ARRAY,
        on(f.v12.descriptor_binding_partially_bound),
    );
    out.set(
        Features::VARIABLE_COUNT_BINDING_ARRAY,
        on(f.v12.descriptor_binding_variable_descriptor_count),
    );
    out.set(
        Features::UPDATE_AFTER_BIND_UNIFORM_BUFFERS,
        on(f.v12.descriptor_binding_uniform_buffer_update_after_bind),
    );
    out.set(
        Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS,
        on(f.v12.descriptor_binding_storage_buffer_update_after_bind),
    );
    out.set(
        Features::UPDATE_AFTER_BIND_SAMPLED_TEXTURES,
        on(f.v12.descriptor_binding_sampled_image_update_after_bind),
    );
    out.set(
        Features::UPDATE_AFTER_BIND_STORAGE_TEXTURES,
        on(f.v12.descriptor_binding_storage_image_update_after_bind),
    );
    out.set(
        Features::SHADER_F16,
        on(f.v12.shader_float16)
            && on(f.v11.storage_buffer16_bit_access)
            && on(f.v11.uniform_and_storage_buffer16_bit_access),
    );
    out.set(
        Features::SHADER_INT64_ATOMICS,
        on(f.v12.shader_buffer_int64_atomics) && on(f.v12.shader_shared_int64_atomics),
    );
    out.set(Features::SHADER_F64, on(f.core.shader_float64));
    out.set(
        Features::SHADER_CLIP_DISTANCES,
        on(f.core.shader_clip_distance),
    );
    out.set(Features::SHADER_PRIMITIVE_INDEX, on(f.core.geometry_shader));
    out.set(
        Features::SAMPLE_RATE_SHADING,
        on(f.core.sample_rate_shading),
    );
    out.set(Features::SUBGROUP, subgroups);
    out.set(Features::DUAL_SOURCE_BLENDING, on(f.core.dual_src_blend));
    out.set(
        Features::SHADER_DRAW_INDEX,
        on(f.v11.shader_draw_parameters),
    );
    out.set(Features::MULTIVIEW, on(f.v11.multiview));
    out.set(Features::POLYGON_MODE_LINE, on(f.core.fill_mode_non_solid));
    out.set(Features::POLYGON_MODE_POINT, on(f.core.fill_mode_non_solid));
    out.set(Features::DEPTH_CLIP_CONTROL, on(f.core.depth_clamp));
    out.set(
        Features::PIPELINE_STATISTICS_QUERY,
        on(f.core.pipeline_statistics_query),
    );
    out
}

/// Whether the device samples and copies every 16-bit normalized format (what else each
/// does is asked per format when a device is opened).
fn norm16(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    use vk::FormatFeatureFlags as F;
    let needed = F::SAMPLED_IMAGE | F::TRANSFER_SRC | F::TRANSFER_DST;
    hal::TextureFormat::NORM16.iter().all(|&f| {
        // SAFETY: plain query of a physical device of this instance.
        let props =
            unsafe { raw.get_physical_device_format_properties(pd, conv::texture_format(f)) };
        props.optimal_tiling_features.contains(needed)
    })
}

/// Whether every format of `formats` has all of `needed` in optimal tiling.
fn all_have(
    raw: &ash::Instance,
    pd: vk::PhysicalDevice,
    formats: &[vk::Format],
    needed: vk::FormatFeatureFlags,
) -> bool {
    formats.iter().all(|&f| {
        // SAFETY: plain query of a physical device of this instance.
        let props = unsafe { raw.get_physical_device_format_properties(pd, f) };
        props.optimal_tiling_features.contains(needed)
    })
}

/// The three 32-bit float color formats.
const FLOAT32: [vk::Format; 3] = [
    vk::Format::R32_SFLOAT,
    vk::Format::R32G32_SFLOAT,
    vk::Format::R32G32B32A32_SFLOAT,
];

/// Whether the device filters the three 32-bit float color formats.
fn float32_filterable(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    all_have(
        raw,
        pd,
        &FLOAT32,
        vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
    )
}

/// Whether the device renders to `B10G11R11_UFLOAT_PACK32`, blends it and multisamples it
/// 4 times (WebGPU's `rg11b10ufloat-renderable`).
fn rg11b10_renderable(
    raw: &ash::Instance,
    pd: vk::PhysicalDevice,
    color_samples: vk::SampleCountFlags,
) -> bool {
    use vk::FormatFeatureFlags as F;
    all_have(
        raw,
        pd,
        &[vk::Format::B10G11R11_UFLOAT_PACK32],
        F::COLOR_ATTACHMENT | F::COLOR_ATTACHMENT_BLEND,
    ) && color_samples.contains(vk::SampleCountFlags::TYPE_4)
}

/// Whether the device blends all three 32-bit float color formats (WebGPU's
/// `float32-blendable`).
fn float32_blendable(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    use vk::FormatFeatureFlags as F;
    all_have(
        raw,
        pd,
        &FLOAT32,
        F::COLOR_ATTACHMENT | F::COLOR_ATTACHMENT_BLEND,
    )
}

/// Whether the device does image atomics on `R32_UINT` and `R32_SINT` images (mandatory in
/// Vulkan, asked all the same).
fn r32_image_atomics(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    all_have(
        raw,
        pd,
        &[vk::Format::R32_UINT, vk::Format::R32_SINT],
        vk::FormatFeatureFlags::STORAGE_IMAGE_ATOMIC,
    )
}

/// Whether the device stores `B8G8R8A8_UNORM` images (WebGPU's `bgra8unorm-storage`).
fn bgra8_storage(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    all_have(
        raw,
        pd,
        &[vk::Format::B8G8R8A8_UNORM],
        vk::FormatFeatureFlags::STORAGE_IMAGE,
    )
}

/// Whether the device renders to, samples and copies `D32_SFLOAT_S8_UINT`.
fn depth32_stencil8(raw: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    use vk::FormatFeatureFlags as F;
    let needed = F::DEPTH_STENCIL_ATTACHMENT | F::SAMPLED_IMAGE | F::TRANSFER_SRC | F::TRANSFER_DST;
    // SAFETY: plain query of a physical device of this instance.
    let props =
        unsafe { raw.get_physical_device_format_properties(pd, vk::Format::D32_SFLOAT_S8_UINT) };
    props.optimal_tiling_features.contains(needed)
}

/// Whether the device can hold the tier's texture and sampler heaps: one update-after-bind,
/// partially bound, variable-count binding of [`hal::TEXTURE_HEAP_SLOTS`] sampled images
/// and one of [`hal::SAMPLER_HEAP_SLOTS`] samplers in one pipeline layout, indexed
/// non-uniformly, with slots written while work that does not read them is pending.
fn descriptor_heaps(f: &FeatureSet, p: &vk::PhysicalDeviceVulkan12Properties<'_>) -> bool {
    let on = |b: vk::Bool32| b == vk::TRUE;
    let (textures, samplers) = (hal::TEXTURE_HEAP_SLOTS, hal::SAMPLER_HEAP_SLOTS);
    on(f.v12.buffer_device_address)
        && on(f.core.shader_sampled_image_array_dynamic_indexing)
        && on(f.v12.shader_sampled_image_array_non_uniform_indexing)
        && on(f.v12.descriptor_binding_partially_bound)
        && on(f.v12.descriptor_binding_variable_descriptor_count)
        && on(f.v12.descriptor_binding_sampled_image_update_after_bind)
        && on(f.v12.descriptor_binding_update_unused_while_pending)
        && p.max_per_stage_descriptor_update_after_bind_sampled_images >= textures
        && p.max_descriptor_set_update_after_bind_sampled_images >= textures
        && p.max_per_stage_descriptor_update_after_bind_samplers >= samplers
        && p.max_descriptor_set_update_after_bind_samplers >= samplers
        && p.max_per_stage_update_after_bind_resources >= textures.saturating_add(samplers)
}

/// Device extensions acceleration structures need (deferred host operations must be
/// enabled beside them, though vigil builds only on the device).
const ACCELERATION_STRUCTURE_EXTENSIONS: [&std::ffi::CStr; 2] = [
    ash::khr::acceleration_structure::NAME,
    ash::khr::deferred_host_operations::NAME,
];

fn has_extensions(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    names: &[&std::ffi::CStr],
) -> bool {
    // SAFETY: plain query on a valid physical device.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
    names.iter().all(|want| {
        exts.iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == *want))
    })
}

/// What the device has of acceleration structures, ray queries and ray-tracing pipelines.
fn ray_native(instance: &ash::Instance, pd: vk::PhysicalDevice) -> RayNative {
    if !has_extensions(instance, pd, &ACCELERATION_STRUCTURE_EXTENSIONS) {
        return RayNative::default();
    }
    let rq_ext = has_extensions(instance, pd, &[ash::khr::ray_query::NAME]);
    let rt_ext = has_extensions(instance, pd, &[ash::khr::ray_tracing_pipeline::NAME]);
    let mut accel = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default();
    let mut rq = vk::PhysicalDeviceRayQueryFeaturesKHR::default();
    let mut rt = vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut accel);
    if rq_ext {
        f2 = f2.push_next(&mut rq);
    }
    if rt_ext {
        f2 = f2.push_next(&mut rt);
    }
    // SAFETY: valid physical device that has the extensions whose structs are chained; the
    // chain points at locals.
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    let accel = accel.acceleration_structure == vk::TRUE;
    RayNative {
        ray_query: accel && rq_ext && rq.ray_query == vk::TRUE,
        pipeline: accel && rt_ext && rt.ray_tracing_pipeline == vk::TRUE,
    }
}

/// Whether the device has task and mesh shaders (`VK_EXT_mesh_shader`).
fn mesh_native(instance: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    if !has_extensions(instance, pd, &[ash::ext::mesh_shader::NAME]) {
        return false;
    }
    let mut mesh = vk::PhysicalDeviceMeshShaderFeaturesEXT::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut mesh);
    // SAFETY: valid physical device that has the extension whose struct is chained; the
    // chain points at a local.
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    mesh.task_shader == vk::TRUE && mesh.mesh_shader == vk::TRUE
}

/// Whether the subgroup operations naga can emit are there in compute and fragment shaders.
fn subgroups_supported(p: &vk::PhysicalDeviceVulkan11Properties<'_>) -> bool {
    let stages = vk::ShaderStageFlags::COMPUTE | vk::ShaderStageFlags::FRAGMENT;
    let ops = vk::SubgroupFeatureFlags::BASIC
        | vk::SubgroupFeatureFlags::VOTE
        | vk::SubgroupFeatureFlags::ARITHMETIC
        | vk::SubgroupFeatureFlags::BALLOT
        | vk::SubgroupFeatureFlags::SHUFFLE
        | vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE
        | vk::SubgroupFeatureFlags::QUAD;
    p.subgroup_supported_stages.contains(stages) && p.subgroup_supported_operations.contains(ops)
}

fn limits_of(
    p: &vk::PhysicalDeviceLimits,
    v11: &vk::PhysicalDeviceVulkan11Properties<'_>,
    max_buffer_size: u64,
) -> Limits {
    Limits {
        max_texture_dimension_1d: p.max_image_dimension1_d,
        max_texture_dimension_2d: p.max_image_dimension2_d,
        max_texture_dimension_3d: p.max_image_dimension3_d,
        max_texture_array_layers: p.max_image_array_layers,
        max_bind_groups: p.max_bound_descriptor_sets.min(8),
        max_bindings_per_bind_group: 1000,
        max_dynamic_uniform_buffers_per_pipeline_layout: p
            .max_descriptor_set_uniform_buffers_dynamic,
        max_dynamic_storage_buffers_per_pipeline_layout: p
            .max_descriptor_set_storage_buffers_dynamic,
        max_sampled_textures_per_shader_stage: p.max_per_stage_descriptor_sampled_images,
        max_samplers_per_shader_stage: p.max_per_stage_descriptor_samplers,
        max_storage_buffers_per_shader_stage: p.max_per_stage_descriptor_storage_buffers,
        max_storage_textures_per_shader_stage: p.max_per_stage_descriptor_storage_images,
        max_uniform_buffers_per_shader_stage: p.max_per_stage_descriptor_uniform_buffers,
        max_uniform_buffer_binding_size: u64::from(p.max_uniform_buffer_range),
        max_storage_buffer_binding_size: u64::from(p.max_storage_buffer_range),
        min_uniform_buffer_offset_alignment: (p.min_uniform_buffer_offset_alignment.max(1) as u32)
            .next_power_of_two(),
        min_storage_buffer_offset_alignment: (p.min_storage_buffer_offset_alignment.max(1) as u32)
            .next_power_of_two(),
        max_vertex_buffers: p.max_vertex_input_bindings.min(16),
        max_buffer_size,
        max_vertex_attributes: p.max_vertex_input_attributes.min(32),
        max_vertex_buffer_array_stride: p.max_vertex_input_binding_stride,
        max_color_attachments: p.max_color_attachments.min(8),
        max_compute_workgroup_storage_size: p.max_compute_shared_memory_size,
        max_compute_invocations_per_workgroup: p.max_compute_work_group_invocations,
        max_compute_workgroup_size_x: p.max_compute_work_group_size[0],
        max_compute_workgroup_size_y: p.max_compute_work_group_size[1],
        max_compute_workgroup_size_z: p.max_compute_work_group_size[2],
        max_compute_workgroups_per_dimension: p
            .max_compute_work_group_count
            .iter()
            .copied()
            .min()
            .unwrap_or(0),
        // vigil keeps up to 256 bytes of immediate data per pass.
        max_immediate_size: p.max_push_constants_size.min(256),
        max_multiview_view_count: v11.max_multiview_view_count.min(32),
    }
}

impl Adapter {
    /// Describes a physical device, or `None` when it misses vigil's baseline.
    pub(crate) fn expose(
        instance: &Arc<InstanceShared>,
        pd: vk::PhysicalDevice,
    ) -> Option<hal::ExposedAdapter<Api>> {
        let raw = &instance.raw;
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut v11p = vk::PhysicalDeviceVulkan11Properties::default();
        let mut v12p = vk::PhysicalDeviceVulkan12Properties::default();
        let mut v13p = vk::PhysicalDeviceVulkan13Properties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut driver)
            .push_next(&mut v11p)
            .push_next(&mut v12p)
            .push_next(&mut v13p);
        // SAFETY: valid physical device; the chain points at locals.
        unsafe { raw.get_physical_device_properties2(pd, &mut props2) };
        let props = props2.properties;
        let max_buffer_size = v13p.max_buffer_size;
        if props.api_version < vk::API_VERSION_1_3 {
            return None;
        }
        let features = query_features(raw, pd);
        let bda = features.v12.buffer_device_address == vk::TRUE;
        let ray = ray_native(raw, pd);
        let accel = bda && (ray.ray_query || ray.pipeline);
        let ray_query = bda && ray.ray_query;
        if features.v12.timeline_semaphore != vk::TRUE
            || features.v13.synchronization2 != vk::TRUE
            || features.v13.dynamic_rendering != vk::TRUE
            || features.core.independent_blend != vk::TRUE
            || features.core.image_cube_array != vk::TRUE
            || features.core.fragment_stores_and_atomics != vk::TRUE
            || features.core.depth_bias_clamp != vk::TRUE
        {
            return None;
        }
        // SAFETY: plain query.
        let families = unsafe { raw.get_physical_device_queue_family_properties(pd) };
        let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let (family, family_props) = families
            .iter()
            .enumerate()
            .find(|(_, f)| f.queue_flags.contains(wanted) && f.queue_count > 0)?;
        let timestamps = props.limits.timestamp_compute_and_graphics == vk::TRUE
            && family_props.timestamp_valid_bits > 0
            && features.v12.host_query_reset == vk::TRUE;
        // An async compute family: compute without graphics, with timestamps wherever the
        // main family has them (a device's features hold on every queue it has).
        let compute_family = families
            .iter()
            .enumerate()
            .find(|(_, f)| {
                f.queue_flags.contains(vk::QueueFlags::COMPUTE)
                    && !f.queue_flags.contains(vk::QueueFlags::GRAPHICS)
                    && f.queue_count > 0
                    && (!timestamps || f.timestamp_valid_bits > 0)
            })
            .map(|(i, _)| i as u32);
        // SAFETY: plain query.
        let memory = unsafe { raw.get_physical_device_memory_properties(pd) };
        let largest_heap = memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
        let name = props
            .device_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned());
        let info = hal::AdapterInfo {
            name: name.unwrap_or_default(),
            vendor_id: props.vendor_id,
            device_id: props.device_id,
            device_type: conv::device_type(props.device_type),
            driver: driver
                .driver_name_as_c_str()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            driver_info: driver
                .driver_info_as_c_str()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            api_version: (
                vk::api_version_major(props.api_version),
                vk::api_version_minor(props.api_version),
                vk::api_version_patch(props.api_version),
            ),
            backend: "vulkan",
            timestamp_period_ns: if timestamps {
                props.limits.timestamp_period
            } else {
                0.0
            },
        };
        Some(hal::ExposedAdapter {
            adapter: Adapter {
                instance: instance.clone(),
                raw: pd,
                queue_family: family as u32,
                second_queue: family_props.queue_count >= 2,
                compute_family,
                robust_buffer_access: features.core.robust_buffer_access == vk::TRUE,
                limits: props.limits,
                ray,
            },
            info,
            features: {
                let mut f = supported_features(&features, timestamps, subgroups_supported(&v11p));
                f.set(Features::ACCELERATION_STRUCTURE, accel);
                f.set(Features::RAY_QUERY, ray_query);
                f.set(
                    Features::DESCRIPTOR_HEAPS,
                    descriptor_heaps(&features, &v12p),
                );
                f.set(Features::MESH_SHADER, bda && mesh_native(raw, pd));
                f.set(Features::ASYNC_COMPUTE, compute_family.is_some());
                // Only where any count a buffer holds is in the driver's range
                // (VUID-vkCmdDrawIndirectCount-countBuffer-02717): vigil cannot see it.
                f.set(Features::TEXTURE_FORMAT_16BIT_NORM, norm16(raw, pd));
                f.set(Features::DEPTH32FLOAT_STENCIL8, depth32_stencil8(raw, pd));
                f.set(Features::FLOAT32_FILTERABLE, float32_filterable(raw, pd));
                f.set(
                    Features::RG11B10UFLOAT_RENDERABLE,
                    rg11b10_renderable(raw, pd, props.limits.framebuffer_color_sample_counts),
                );
                f.set(Features::FLOAT32_BLENDABLE, float32_blendable(raw, pd));
                f.set(Features::TEXTURE_ATOMIC, r32_image_atomics(raw, pd));
                f.set(
                    Features::BGRA8UNORM_STORAGE,
                    features.core.shader_storage_image_write_without_format == vk::TRUE
                        && bgra8_storage(raw, pd),
                );
                // Core Vulkan: CLAMP_TO_BORDER and the transparent black border.
                f |= Features::ADDRESS_MODE_CLAMP_TO_BORDER | Features::ADDRESS_MODE_CLAMP_TO_ZERO;
                f.set(
                    Features::MULTI_DRAW_INDIRECT_COUNT,
                    features.v12.draw_indirect_count == vk::TRUE
                        && props.limits.max_draw_indirect_count == u32::MAX,
                );
                f
            },
            limits: limits_of(&props.limits, &v11p, max_buffer_size.min(largest_heap)),
        })
    }
}

impl Adapter {
    /// The compute-only family a device opened with `requested` features has a queue of.
    pub(crate) fn compute_family(&self, requested: Features) -> Option<u32> {
        self.compute_family
            .filter(|_| requested.contains(Features::ASYNC_COMPUTE))
    }
}

impl hal::Adapter for Adapter {
    type A = Api;

    fn open(&self, requested: Features, _limits: &Limits) -> hal::Result<Device> {
        // The whole creation, failures' cleanup included (see `loader_lock`).
        let _loader = crate::instance::loader_lock();
        let raw = &self.instance.raw;
        // Two queues of the one family when it has them: the second serves devices shared
        // onto it (`share_on_second_queue`), ordered against the first by timeline waits.
        let priorities = [1.0f32, 1.0];
        let queues = if self.second_queue { 2 } else { 1 };
        let mut queue_info = vec![
            vk::DeviceQueueCreateInfo::default()
                .queue_family_index(self.queue_family)
                .queue_priorities(&priorities[..queues]),
        ];
        // And one of the compute-only family when asked for (see `ASYNC_COMPUTE`).
        if let Some(family) = self.compute_family(requested) {
            queue_info.push(
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(family)
                    .queue_priorities(&priorities[..1]),
            );
        }
        let on = |b: bool| if b { vk::TRUE } else { vk::FALSE };
        let core = vk::PhysicalDeviceFeatures {
            // Out-of-range vertex fetches and descriptor accesses stay inside their buffers
            // (the shader-side checks cover shader indexing; this covers fixed function).
            robust_buffer_access: on(self.robust_buffer_access),
            // Part of the baseline (see `expose`): color targets may blend and mask
            // differently, and views may be cube arrays, as in WebGPU.
            independent_blend: vk::TRUE,
            image_cube_array: vk::TRUE,
            // Also baseline: fragment shaders may write storage buffers and textures, as
            // WebGPU's may (without it the driver is given modules the spec forbids,
            // VUID-RuntimeSpirv-NonWritable-06340).
            fragment_stores_and_atomics: vk::TRUE,
            // Also baseline: a depth bias may be clamped, as WebGPU's may
            // (VUID-VkPipelineRasterizationStateCreateInfo-depthBiasClamp-00314).
            depth_bias_clamp: vk::TRUE,
            full_draw_index_uint32: on(requested.contains(Features::FULL_DRAW_INDEX_UINT32)),
            sampler_anisotropy: on(requested.contains(Features::SAMPLER_ANISOTROPY)),
            draw_indirect_first_instance: on(requested.contains(Features::INDIRECT_FIRST_INSTANCE)),
            multi_draw_indirect: on(requested.contains(Features::MULTI_DRAW_INDIRECT)),
            texture_compression_bc: on(requested.contains(Features::TEXTURE_COMPRESSION_BC)),
            shader_int64: on(requested.contains(Features::SHADER_INT64)),
            shader_float64: on(requested.contains(Features::SHADER_F64)),
            shader_clip_distance: on(requested.contains(Features::SHADER_CLIP_DISTANCES)),
            geometry_shader: on(requested.contains(Features::SHADER_PRIMITIVE_INDEX)),
            sample_rate_shading: on(requested.contains(Features::SAMPLE_RATE_SHADING)),
            dual_src_blend: on(requested.contains(Features::DUAL_SOURCE_BLENDING)),
            fill_mode_non_solid: on(
                requested.intersects(Features::POLYGON_MODE_LINE | Features::POLYGON_MODE_POINT)
            ),
            depth_clamp: on(requested.contains(Features::DEPTH_CLIP_CONTROL)),
            shader_storage_image_write_without_format: on(
                requested.contains(Features::BGRA8UNORM_STORAGE)
            ),
            pipeline_statistics_query: on(requested.contains(Features::PIPELINE_STATISTICS_QUERY)),
            shader_sampled_image_array_dynamic_indexing: on(
                requested.contains(Features::TEXTURE_BINDING_ARRAY)
            ),
            shader_uniform_buffer_array_dynamic_indexing: on(
                requested.contains(Features::BUFFER_BINDING_ARRAY)
            ),
            shader_storage_buffer_array_dynamic_indexing: on(
                requested.contains(Features::STORAGE_RESOURCE_BINDING_ARRAY)
            ),
            shader_storage_image_array_dynamic_indexing: on(
                requested.contains(Features::STORAGE_RESOURCE_BINDING_ARRAY)
            ),
            ..Default::default()
        };
        let non_uniform = requested.contains(Features::BINDING_ARRAY_NON_UNIFORM_INDEXING);
        let has = |f: Features| requested.contains(f);
        let f16 = requested.contains(Features::SHADER_F16);
        let int64_atomics = requested.contains(Features::SHADER_INT64_ATOMICS);
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(f16)
            .uniform_and_storage_buffer16_bit_access(f16)
            .shader_draw_parameters(requested.contains(Features::SHADER_DRAW_INDEX))
            .multiview(requested.contains(Features::MULTIVIEW));
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .draw_indirect_count(requested.contains(Features::MULTI_DRAW_INDIRECT_COUNT))
            // Encoders' own timestamps are reset from the host (no GPU work).
            .host_query_reset(requested.contains(Features::TIMESTAMP_QUERY))
            .buffer_device_address(requested.intersects(
                Features::BUFFER_DEVICE_ADDRESS
                    | Features::ACCELERATION_STRUCTURE
                    | Features::RAY_QUERY,
            ))
            .shader_float16(f16)
            .shader_buffer_int64_atomics(int64_atomics)
            .shader_shared_int64_atomics(int64_atomics)
            .shader_sampled_image_array_non_uniform_indexing(non_uniform)
            .shader_storage_buffer_array_non_uniform_indexing(non_uniform)
            .shader_uniform_buffer_array_non_uniform_indexing(non_uniform)
            .shader_storage_image_array_non_uniform_indexing(non_uniform)
            .descriptor_binding_partially_bound(has(Features::PARTIALLY_BOUND_BINDING_ARRAY))
            // Heaps take writes of slots that pending work does not read (see `conv::binding_flags`).
            .descriptor_binding_update_unused_while_pending(has(Features::DESCRIPTOR_HEAPS))
            .descriptor_binding_variable_descriptor_count(has(
                Features::VARIABLE_COUNT_BINDING_ARRAY,
            ))
            .descriptor_binding_uniform_buffer_update_after_bind(has(
                Features::UPDATE_AFTER_BIND_UNIFORM_BUFFERS,
            ))
            .descriptor_binding_storage_buffer_update_after_bind(has(
                Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS,
            ))
            .descriptor_binding_sampled_image_update_after_bind(has(
                Features::UPDATE_AFTER_BIND_SAMPLED_TEXTURES,
            ))
            .descriptor_binding_storage_image_update_after_bind(has(
                Features::UPDATE_AFTER_BIND_STORAGE_TEXTURES,
            ));
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true);
        let ray_query = requested.contains(Features::RAY_QUERY);
        let structures = ray_query || requested.contains(Features::ACCELERATION_STRUCTURE);
        let mut accel = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default()
            .acceleration_structure(true);
        let mut rq = vk::PhysicalDeviceRayQueryFeaturesKHR::default().ray_query(true);
        let mut rt =
            vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default().ray_tracing_pipeline(true);
        let mesh = requested.contains(Features::MESH_SHADER);
        let mut mesh_features = vk::PhysicalDeviceMeshShaderFeaturesEXT::default()
            .task_shader(true)
            .mesh_shader(true);
        // Structures need a tracing feature enabled natively (see `RayNative`): ray queries
        // where the driver has them, else ray-tracing pipelines (never offered to shaders).
        let native_rq = structures && self.ray.ray_query;
        let native_rt = structures && !native_rq && self.ray.pipeline;
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .features(core)
            .push_next(&mut v11)
            .push_next(&mut v12)
            .push_next(&mut v13);
        if structures {
            f2 = f2.push_next(&mut accel);
        }
        if native_rq {
            f2 = f2.push_next(&mut rq);
        }
        if native_rt {
            f2 = f2.push_next(&mut rt);
        }
        if mesh {
            f2 = f2.push_next(&mut mesh_features);
        }
        // Swapchains, where the device has them (and the instance has surfaces).
        // SAFETY: plain query on a valid physical device.
        let device_exts =
            unsafe { raw.enumerate_device_extension_properties(self.raw) }.unwrap_or_default();
        let swapchain = self.instance.surface.is_some()
            && device_exts.iter().any(|e| {
                e.extension_name_as_c_str()
                    .is_ok_and(|n| n == ash::khr::swapchain::NAME)
            });
        let mut ext_names: Vec<*const std::ffi::c_char> = if swapchain {
            vec![ash::khr::swapchain::NAME.as_ptr()]
        } else {
            Vec::new()
        };
        if structures {
            ext_names.extend(ACCELERATION_STRUCTURE_EXTENSIONS.iter().map(|n| n.as_ptr()));
        }
        if native_rq {
            ext_names.push(ash::khr::ray_query::NAME.as_ptr());
        }
        if native_rt {
            ext_names.push(ash::khr::ray_tracing_pipeline::NAME.as_ptr());
        }
        if mesh {
            ext_names.push(ash::ext::mesh_shader::NAME.as_ptr());
        }
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&ext_names)
            .push_next(&mut f2);
        // SAFETY: valid physical device; the create info points at locals alive for the call.
        let device =
            unsafe { raw.create_device(self.raw, &create, None) }.map_err(conv::map_result)?;
        let shared = Arc::new(DeviceShared::new(self, device, requested, swapchain)?);
        Device::over(shared, 0)
    }
}
