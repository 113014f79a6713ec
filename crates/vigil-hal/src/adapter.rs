//! What an adapter is and what it can do: identity, type, features and limits.

use bitflags::bitflags;
use std::fmt;

/// The kind of device behind an adapter, in the order vigil prefers them by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceType {
    /// A GPU with its own memory.
    DiscreteGpu,
    /// A GPU sharing memory with the host processor.
    IntegratedGpu,
    /// A virtualised GPU.
    VirtualGpu,
    /// A software rasteriser running on the host processor (lavapipe, SwiftShader).
    Cpu,
    /// Anything the driver does not classify.
    Other,
}

impl DeviceType {
    /// Rank used by the default adapter choice: lower is preferred.
    pub fn preference_rank(self) -> u8 {
        match self {
            DeviceType::DiscreteGpu => 0,
            DeviceType::IntegratedGpu => 1,
            DeviceType::VirtualGpu => 2,
            DeviceType::Cpu => 3,
            DeviceType::Other => 4,
        }
    }
}

impl fmt::Display for DeviceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceType::DiscreteGpu => "discrete GPU",
            DeviceType::IntegratedGpu => "integrated GPU",
            DeviceType::VirtualGpu => "virtual GPU",
            DeviceType::Cpu => "CPU",
            DeviceType::Other => "other",
        })
    }
}

/// Identity of an adapter, as the driver reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterInfo {
    /// Device name, e.g. "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// PCI vendor id (or a Khronos vendor id for software drivers).
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// Kind of device.
    pub device_type: DeviceType,
    /// Driver name, e.g. "llvmpipe" or "NVIDIA".
    pub driver: String,
    /// Driver's own description, typically its version.
    pub driver_info: String,
    /// Highest API version the device supports, as `major.minor.patch`.
    pub api_version: (u32, u32, u32),
    /// Name of the backend that exposes this adapter ("vulkan", "test").
    pub backend: &'static str,
    /// Nanoseconds per timestamp tick (0 where timestamps are unsupported).
    pub timestamp_period_ns: f32,
}

bitflags! {
    /// Optional capabilities. A device enables a subset of what its adapter supports, and
    /// every feature check consults the device's enabled set, never the adapter's.
    ///
    /// Differs from WebGPU's `GPUFeatureName`: the names are Vulkan's capabilities
    /// (`FULL_DRAW_INDEX_UINT32`, `BUFFER_DEVICE_ADDRESS`, …), not WebGPU's list.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Features: u64 {
        /// Timestamp queries in command encoders and passes.
        const TIMESTAMP_QUERY = 1 << 0;
        /// 32-bit index buffers honour every index value (Vulkan `fullDrawIndexUint32`).
        const FULL_DRAW_INDEX_UINT32 = 1 << 1;
        /// Anisotropic filtering in samplers.
        const SAMPLER_ANISOTROPY = 1 << 2;
        /// Indirect draws may use a non-zero first instance (without it, vigil checks
        /// indirect draws' arguments on the GPU and such a draw does nothing).
        const INDIRECT_FIRST_INSTANCE = 1 << 3;
        /// Several draws from one indirect buffer in one call.
        const MULTI_DRAW_INDIRECT = 1 << 4;
        /// BC compressed texture formats ([`TextureFormat::BC`](crate::TextureFormat::BC)):
        /// sampled and copied in 4×4 blocks.
        const TEXTURE_COMPRESSION_BC = 1 << 5;
        /// 64-bit device addresses of buffers (the GPU-pointer tier).
        const BUFFER_DEVICE_ADDRESS = 1 << 6;
        /// Arrays of sampled textures and of samplers (`binding_array<texture_2d<f32>, N>`),
        /// indexed by dynamically uniform values (Vulkan
        /// `shaderSampledImageArrayDynamicIndexing`).
        const TEXTURE_BINDING_ARRAY = 1 << 7;
        /// 16-bit floats (`f16`) in shaders, in storage and uniform buffers too (Vulkan
        /// `shaderFloat16` with 16-bit storage and uniform buffer access).
        const SHADER_F16 = 1 << 8;
        /// 64-bit integers in shaders.
        const SHADER_INT64 = 1 << 9;
        /// Storage textures that are both read and written in one shader.
        const STORAGE_TEXTURE_READ_WRITE = 1 << 10;
        /// 64-bit floats (`f64`) in shaders (Vulkan `shaderFloat64`).
        const SHADER_F64 = 1 << 11;
        /// The `clip_distances` built-in (`enable clip_distances;`; Vulkan
        /// `shaderClipDistance`).
        const SHADER_CLIP_DISTANCES = 1 << 12;
        /// The `primitive_index` built-in in fragment shaders (Vulkan `geometryShader`,
        /// which the SPIR-V `PrimitiveId` input needs).
        const SHADER_PRIMITIVE_INDEX = 1 << 13;
        /// The `sample_index` built-in and per-sample interpolation (Vulkan
        /// `sampleRateShading`). Part of WebGPU's core: enabled whenever the adapter has it.
        const SAMPLE_RATE_SHADING = 1 << 14;
        /// Subgroup built-ins and operations (basic, vote, ballot, arithmetic, shuffle,
        /// relative shuffle and quad) in compute and fragment shaders, and subgroup
        /// barriers (Vulkan 1.1 subgroup properties).
        const SUBGROUP = 1 << 15;
        /// 64-bit integer atomics on storage buffers and workgroup memory (Vulkan
        /// `shaderBufferInt64Atomics` and `shaderSharedInt64Atomics`); the `u64`/`i64`
        /// types themselves need `SHADER_INT64`.
        const SHADER_INT64_ATOMICS = 1 << 16;
        /// Dual-source blending: `@blend_src` outputs (`enable dual_source_blending;`) and
        /// the `Src1*` blend factors, with one color target (Vulkan `dualSrcBlend`).
        const DUAL_SOURCE_BLENDING = 1 << 17;
        /// The `draw_index` built-in in vertex shaders (`enable draw_index;`; Vulkan
        /// `shaderDrawParameters`).
        const SHADER_DRAW_INDEX = 1 << 18;
        /// Multiview rendering: render passes and pipelines with a view mask, and the
        /// `view_index` built-in (Vulkan `multiview`).
        const MULTIVIEW = 1 << 19;
        /// Arrays of uniform buffers (Vulkan `shaderUniformBufferArrayDynamicIndexing`).
        const BUFFER_BINDING_ARRAY = 1 << 20;
        /// Arrays of storage buffers and of storage textures (Vulkan
        /// `shaderStorageBufferArrayDynamicIndexing` and
        /// `shaderStorageImageArrayDynamicIndexing`).
        const STORAGE_RESOURCE_BINDING_ARRAY = 1 << 21;
        /// Binding arrays indexed by values that differ between invocations, for every kind
        /// (Vulkan's four `shader*ArrayNonUniformIndexing` features).
        const BINDING_ARRAY_NON_UNIFORM_INDEXING = 1 << 22;
        /// Binding arrays whose elements may be left empty
        /// ([`BindingArrayFlags::PARTIALLY_BOUND`](crate::BindingArrayFlags::PARTIALLY_BOUND);
        /// Vulkan `descriptorBindingPartiallyBound`).
        const PARTIALLY_BOUND_BINDING_ARRAY = 1 << 23;
        /// A last binding whose length each bind group chooses
        /// ([`BindingArrayFlags::VARIABLE_COUNT`](crate::BindingArrayFlags::VARIABLE_COUNT);
        /// Vulkan `descriptorBindingVariableDescriptorCount`).
        const VARIABLE_COUNT_BINDING_ARRAY = 1 << 24;
        /// Update-after-bind uniform buffer bindings (Vulkan
        /// `descriptorBindingUniformBufferUpdateAfterBind`).
        const UPDATE_AFTER_BIND_UNIFORM_BUFFERS = 1 << 25;
        /// Update-after-bind storage buffer bindings (Vulkan
        /// `descriptorBindingStorageBufferUpdateAfterBind`).
        const UPDATE_AFTER_BIND_STORAGE_BUFFERS = 1 << 26;
        /// Update-after-bind sampled texture and sampler bindings (Vulkan
        /// `descriptorBindingSampledImageUpdateAfterBind`).
        const UPDATE_AFTER_BIND_SAMPLED_TEXTURES = 1 << 27;
        /// Update-after-bind storage texture bindings (Vulkan
        /// `descriptorBindingStorageImageUpdateAfterBind`).
        const UPDATE_AFTER_BIND_STORAGE_TEXTURES = 1 << 28;
        /// WGSL ray queries (`enable wgpu_ray_query;`) through top-level acceleration
        /// structures: Vulkan `VK_KHR_ray_query`. Implies `ACCELERATION_STRUCTURE` (a device
        /// asking for it gets both).
        const RAY_QUERY = 1 << 29;
        /// Acceleration structures (bottom level over triangles, top level over instances),
        /// their builds and `acceleration_structure` bindings: Vulkan
        /// `VK_KHR_acceleration_structure`, with buffer device addresses, which builds read
        /// their inputs through. What traverses them is `RAY_QUERY`.
        const ACCELERATION_STRUCTURE = 1 << 30;
        /// Texture and sampler descriptor heaps of the GPU-pointer tier: application-owned
        /// arrays of [`TEXTURE_HEAP_SLOTS`](crate::TEXTURE_HEAP_SLOTS) sampled textures and
        /// [`SAMPLER_HEAP_SLOTS`](crate::SAMPLER_HEAP_SLOTS) samplers that tier shaders index
        /// by integer. Vulkan: descriptor indexing (non-uniform indexing of sampled images,
        /// partially bound, variable-count and update-after-bind bindings, updates of
        /// unused descriptors while pending) with update-after-bind limits of at least those
        /// counts. Brings `BUFFER_DEVICE_ADDRESS`, `TEXTURE_BINDING_ARRAY`,
        /// `BINDING_ARRAY_NON_UNIFORM_INDEXING`, `PARTIALLY_BOUND_BINDING_ARRAY`,
        /// `VARIABLE_COUNT_BINDING_ARRAY` and `UPDATE_AFTER_BIND_SAMPLED_TEXTURES` with it.
        const DESCRIPTOR_HEAPS = 1 << 31;
        /// Task and mesh shaders and the draws that launch them (`draw_mesh_tasks`,
        /// `draw_mesh_tasks_indirect_at`): Vulkan `VK_EXT_mesh_shader` with `taskShader`
        /// and `meshShader`. Mesh pipelines are pointer-tier pipelines, so it brings
        /// `BUFFER_DEVICE_ADDRESS` with it.
        const MESH_SHADER = 1 << 32;
        /// A queue of a family that computes and copies but does not draw (an async
        /// compute family, such as NVIDIA's), opened with the device: devices shared onto
        /// it (`share_on_compute_queue`) run compute and copies beside the first queue's
        /// work. Buffers and textures are then made shareable by both families (Vulkan's
        /// concurrent sharing), so what the queues share needs no ownership transfers.
        const ASYNC_COMPUTE = 1 << 33;
        /// Pipelines that rasterize triangles as their edges (`PolygonMode::Line`,
        /// wireframes; Vulkan `fillModeNonSolid`).
        const POLYGON_MODE_LINE = 1 << 34;
        /// Pipelines that rasterize triangles as their vertices (`PolygonMode::Point`;
        /// Vulkan `fillModeNonSolid`).
        const POLYGON_MODE_POINT = 1 << 35;
        /// Pipelines with `unclipped_depth`: primitives are not clipped against the near and
        /// far planes, and depth is clamped instead (wgpu's `DEPTH_CLIP_CONTROL`; Vulkan
        /// `depthClamp`).
        const DEPTH_CLIP_CONTROL = 1 << 36;
        /// Indirect draws whose count the GPU reads from a buffer
        /// (`multi_draw_indirect_count`; wgpu's `MULTI_DRAW_INDIRECT_COUNT`; Vulkan
        /// `drawIndirectCount`, offered where `maxDrawIndirectCount` takes any `u32`, so
        /// that no count a buffer holds is out of the driver's range).
        const MULTI_DRAW_INDIRECT_COUNT = 1 << 37;
        /// Pipeline-statistics query sets and their queries in render and compute passes
        /// (wgpu's `PIPELINE_STATISTICS_QUERY`; Vulkan `pipelineStatisticsQuery`).
        const PIPELINE_STATISTICS_QUERY = 1 << 38;
        /// The 16-bit normalized texture formats
        /// ([`TextureFormat::NORM16`](crate::TextureFormat::NORM16), wgpu's
        /// `TEXTURE_FORMAT_16BIT_NORM`), offered where the device samples and copies all six.
        const TEXTURE_FORMAT_16BIT_NORM = 1 << 39;
        /// The `Depth32FloatStencil8` texture format (WebGPU's `depth32float-stencil8`),
        /// offered where the device renders to, samples and copies it.
        const DEPTH32FLOAT_STENCIL8 = 1 << 40;
        /// `R32Float`, `Rg32Float` and `Rgba32Float` sampled with filtering (WebGPU's
        /// `float32-filterable`): bound as filterable float textures, read through linear
        /// samplers. Offered where the device filters all three.
        const FLOAT32_FILTERABLE = 1 << 41;
        /// Samplers whose address modes clamp to a border color
        /// ([`AddressMode::ClampToBorder`](crate::AddressMode::ClampToBorder), wgpu's
        /// `ADDRESS_MODE_CLAMP_TO_BORDER`); every Vulkan device has it.
        const ADDRESS_MODE_CLAMP_TO_BORDER = 1 << 42;
        /// The border color [`SamplerBorderColor::Zero`](crate::SamplerBorderColor::Zero)
        /// (wgpu's `ADDRESS_MODE_CLAMP_TO_ZERO`); every Vulkan device has it.
        const ADDRESS_MODE_CLAMP_TO_ZERO = 1 << 43;
        /// `Rg11b10Ufloat` rendered to, blended and multisampled (WebGPU's
        /// `rg11b10ufloat-renderable`), offered where the device renders to and blends it.
        const RG11B10UFLOAT_RENDERABLE = 1 << 44;
        /// `R32Float`, `Rg32Float` and `Rgba32Float` blended (WebGPU's `float32-blendable`),
        /// offered where the device blends all three.
        const FLOAT32_BLENDABLE = 1 << 45;
        /// `Bgra8Unorm` storage textures, written only (WebGPU's `bgra8unorm-storage`),
        /// offered where the device stores the format and writes storage images without a
        /// declared format (SPIR-V has none for it: Vulkan `shaderStorageImageWriteWithoutFormat`).
        const BGRA8UNORM_STORAGE = 1 << 46;
        /// Atomic storage textures of `R32Uint` and `R32Sint`
        /// ([`StorageTextureAccess::Atomic`](crate::StorageTextureAccess::Atomic), WGSL's
        /// `textureAtomic*`; wgpu's `TEXTURE_ATOMIC`), offered where the device does image
        /// atomics on both formats (every Vulkan device must).
        const TEXTURE_ATOMIC = 1 << 47;
    }
}

impl Features {
    /// Names of the set flags, for printing.
    pub fn names(self) -> Vec<&'static str> {
        self.iter_names().map(|(name, _)| name).collect()
    }
}

/// Numeric limits of an adapter or device.
///
/// An adapter reports what it supports; a device enforces what was requested at creation
/// (by default [`Limits::default`], the WebGPU defaults, so code tested against them runs
/// anywhere). Alignment limits are "at least this coarse": a requested alignment must be a
/// multiple of the adapter's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest 1D texture width, in texels.
    pub max_texture_dimension_1d: u32,
    /// Largest 2D texture side, in texels.
    pub max_texture_dimension_2d: u32,
    /// Largest 3D texture side (width, height or depth), in texels.
    pub max_texture_dimension_3d: u32,
    /// Most array layers in one texture.
    pub max_texture_array_layers: u32,
    /// Most bind groups a pipeline layout may hold.
    pub max_bind_groups: u32,
    /// Largest binding number plus one in a bind group layout.
    pub max_bindings_per_bind_group: u32,
    /// Most dynamic-offset uniform buffers in one pipeline layout.
    pub max_dynamic_uniform_buffers_per_pipeline_layout: u32,
    /// Most dynamic-offset storage buffers in one pipeline layout.
    pub max_dynamic_storage_buffers_per_pipeline_layout: u32,
    /// Most sampled textures visible to one shader stage.
    pub max_sampled_textures_per_shader_stage: u32,
    /// Most samplers visible to one shader stage.
    pub max_samplers_per_shader_stage: u32,
    /// Most storage buffers visible to one shader stage.
    pub max_storage_buffers_per_shader_stage: u32,
    /// Most storage textures visible to one shader stage.
    pub max_storage_textures_per_shader_stage: u32,
    /// Most uniform buffers visible to one shader stage.
    pub max_uniform_buffers_per_shader_stage: u32,
    /// Largest uniform buffer binding, in bytes.
    pub max_uniform_buffer_binding_size: u64,
    /// Largest storage buffer binding, in bytes.
    pub max_storage_buffer_binding_size: u64,
    /// Uniform buffer binding offsets must be multiples of this.
    pub min_uniform_buffer_offset_alignment: u32,
    /// Storage buffer binding offsets must be multiples of this.
    pub min_storage_buffer_offset_alignment: u32,
    /// Most vertex buffers in one render pipeline.
    pub max_vertex_buffers: u32,
    /// Largest buffer, in bytes.
    pub max_buffer_size: u64,
    /// Most vertex attributes in one render pipeline.
    pub max_vertex_attributes: u32,
    /// Largest vertex buffer stride, in bytes.
    pub max_vertex_buffer_array_stride: u32,
    /// Most color attachments in one render pass.
    pub max_color_attachments: u32,
    /// Most workgroup memory one compute entry point may declare, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// Most invocations in one workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Largest workgroup size in x.
    pub max_compute_workgroup_size_x: u32,
    /// Largest workgroup size in y.
    pub max_compute_workgroup_size_y: u32,
    /// Largest workgroup size in z.
    pub max_compute_workgroup_size_z: u32,
    /// Most workgroups in each dimension of one dispatch.
    pub max_compute_workgroups_per_dimension: u32,
    /// Most bytes of immediate data (`var<immediate>`; Vulkan push constants) a pipeline
    /// layout may hold.
    pub max_immediate_size: u32,
    /// Views a multiview render pass may render (its mask's highest bit is below this).
    pub max_multiview_view_count: u32,
}

impl Default for Limits {
    /// The WebGPU default limits.
    fn default() -> Self {
        Limits {
            max_texture_dimension_1d: 8192,
            max_texture_dimension_2d: 8192,
            max_texture_dimension_3d: 2048,
            max_texture_array_layers: 256,
            max_bind_groups: 4,
            max_bindings_per_bind_group: 1000,
            max_dynamic_uniform_buffers_per_pipeline_layout: 8,
            max_dynamic_storage_buffers_per_pipeline_layout: 4,
            max_sampled_textures_per_shader_stage: 16,
            max_samplers_per_shader_stage: 16,
            max_storage_buffers_per_shader_stage: 8,
            max_storage_textures_per_shader_stage: 4,
            max_uniform_buffers_per_shader_stage: 12,
            max_uniform_buffer_binding_size: 64 << 10,
            max_storage_buffer_binding_size: 128 << 20,
            min_uniform_buffer_offset_alignment: 256,
            min_storage_buffer_offset_alignment: 256,
            max_vertex_buffers: 8,
            max_buffer_size: 256 << 20,
            max_vertex_attributes: 16,
            max_vertex_buffer_array_stride: 2048,
            max_color_attachments: 8,
            max_compute_workgroup_storage_size: 16384,
            max_compute_invocations_per_workgroup: 256,
            max_compute_workgroup_size_x: 256,
            max_compute_workgroup_size_y: 256,
            max_compute_workgroup_size_z: 64,
            max_compute_workgroups_per_dimension: 65535,
            max_immediate_size: 64,
            max_multiview_view_count: 4,
        }
    }
}

/// One limit that a request exceeds, as `(name, requested, supported)`.
pub type LimitViolation = (&'static str, u64, u64);

macro_rules! limit_fields {
    ($mac:ident) => {
        $mac! {
            max: max_texture_dimension_1d, max_texture_dimension_2d, max_texture_dimension_3d,
                max_texture_array_layers, max_bind_groups,
                max_bindings_per_bind_group, max_dynamic_uniform_buffers_per_pipeline_layout,
                max_dynamic_storage_buffers_per_pipeline_layout,
                max_sampled_textures_per_shader_stage, max_samplers_per_shader_stage,
                max_storage_buffers_per_shader_stage, max_storage_textures_per_shader_stage,
                max_uniform_buffers_per_shader_stage, max_uniform_buffer_binding_size,
                max_storage_buffer_binding_size, max_vertex_buffers, max_buffer_size,
                max_vertex_attributes, max_vertex_buffer_array_stride, max_color_attachments,
                max_compute_workgroup_storage_size, max_compute_invocations_per_workgroup,
                max_compute_workgroup_size_x, max_compute_workgroup_size_y,
                max_compute_workgroup_size_z, max_compute_workgroups_per_dimension,
                max_immediate_size, max_multiview_view_count;
            align: min_uniform_buffer_offset_alignment, min_storage_buffer_offset_alignment
        }
    };
}

impl Limits {
    /// Every limit `self` asks for that `supported` does not give: a maximum above the
    /// supported one, or an alignment finer than (not a multiple of) the supported one.
    pub fn violations(&self, supported: &Limits) -> Vec<LimitViolation> {
        let mut out = Vec::new();
        macro_rules! check {
            (max: $($m:ident),*; align: $($a:ident),*) => {
                $(
                    if u64::from(self.$m) > u64::from(supported.$m) {
                        out.push((stringify!($m), u64::from(self.$m), u64::from(supported.$m)));
                    }
                )*
                $(
                    let (req, sup) = (self.$a, supported.$a);
                    if req == 0 || !req.is_power_of_two() || req < sup || req % sup.max(1) != 0 {
                        out.push((stringify!($a), u64::from(req), u64::from(sup)));
                    }
                )*
            };
        }
        limit_fields!(check);
        out
    }

    /// Every limit as `(name, value)`, for printing.
    pub fn entries(&self) -> Vec<(&'static str, u64)> {
        let mut out = Vec::new();
        macro_rules! list {
            (max: $($m:ident),*; align: $($a:ident),*) => {
                $( out.push((stringify!($m), u64::from(self.$m))); )*
                $( out.push((stringify!($a), u64::from(self.$a))); )*
            };
        }
        limit_fields!(list);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fit_themselves() {
        assert!(Limits::default().violations(&Limits::default()).is_empty());
    }

    #[test]
    fn a_larger_maximum_and_a_finer_alignment_are_violations() {
        let supported = Limits::default();
        let request = Limits {
            max_bind_groups: 5,
            min_uniform_buffer_offset_alignment: 64,
            ..Limits::default()
        };
        let names: Vec<_> = request.violations(&supported).iter().map(|v| v.0).collect();
        assert_eq!(
            names,
            ["max_bind_groups", "min_uniform_buffer_offset_alignment"]
        );
    }

    #[test]
    fn a_coarser_alignment_is_allowed() {
        let request = Limits {
            min_storage_buffer_offset_alignment: 512,
            ..Limits::default()
        };
        assert!(request.violations(&Limits::default()).is_empty());
    }
}
