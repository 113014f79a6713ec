//! Pure mappings from vigil-hal's plain types to Vulkan's. No state, no calls.

use ash::vk;
use vigil_hal as hal;

pub fn buffer_usage(usage: hal::BufferUsages) -> vk::BufferUsageFlags {
    let mut out = vk::BufferUsageFlags::empty();
    // Every buffer can be the target of queue writes and the source of readback copies
    // issued by the device itself; the layer above enforces the user-visible usage.
    out |= vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    if usage.contains(hal::BufferUsages::INDEX) {
        out |= vk::BufferUsageFlags::INDEX_BUFFER;
    }
    if usage.contains(hal::BufferUsages::VERTEX) {
        out |= vk::BufferUsageFlags::VERTEX_BUFFER;
    }
    if usage.contains(hal::BufferUsages::UNIFORM) {
        out |= vk::BufferUsageFlags::UNIFORM_BUFFER;
    }
    if usage.contains(hal::BufferUsages::STORAGE) {
        out |= vk::BufferUsageFlags::STORAGE_BUFFER;
    }
    if usage.contains(hal::BufferUsages::INDIRECT) {
        out |= vk::BufferUsageFlags::INDIRECT_BUFFER;
    }
    if usage.contains(hal::BufferUsages::DEVICE_ADDRESS) {
        out |= vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
    }
    if usage.contains(hal::BufferUsages::BLAS_INPUT) {
        out |= vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
    }
    out
}

/// The statistics a pipeline-statistics pool counts. Vulkan writes a query's values in the
/// order of its flags' bits, which is the order of wgpu's (and vigil's) flags.
pub fn pipeline_statistics(t: hal::PipelineStatisticsTypes) -> vk::QueryPipelineStatisticFlags {
    use hal::PipelineStatisticsTypes as T;
    use vk::QueryPipelineStatisticFlags as F;
    let mut f = F::empty();
    for (ours, theirs) in [
        (T::VERTEX_SHADER_INVOCATIONS, F::VERTEX_SHADER_INVOCATIONS),
        (T::CLIPPER_INVOCATIONS, F::CLIPPING_INVOCATIONS),
        (T::CLIPPER_PRIMITIVES_OUT, F::CLIPPING_PRIMITIVES),
        (
            T::FRAGMENT_SHADER_INVOCATIONS,
            F::FRAGMENT_SHADER_INVOCATIONS,
        ),
        (T::COMPUTE_SHADER_INVOCATIONS, F::COMPUTE_SHADER_INVOCATIONS),
    ] {
        if t.contains(ours) {
            f |= theirs;
        }
    }
    f
}

pub fn memory_location(location: hal::MemoryLocation) -> gpu_allocator::MemoryLocation {
    match location {
        hal::MemoryLocation::GpuOnly => gpu_allocator::MemoryLocation::GpuOnly,
        hal::MemoryLocation::CpuToGpu => gpu_allocator::MemoryLocation::CpuToGpu,
        hal::MemoryLocation::GpuToCpu => gpu_allocator::MemoryLocation::GpuToCpu,
        // The allocator's readback location is the one that prefers host-cached memory.
        hal::MemoryLocation::Staging => gpu_allocator::MemoryLocation::GpuToCpu,
    }
}

pub fn stages(stages: hal::Stages) -> vk::PipelineStageFlags2 {
    use hal::Stages as S;
    use vk::PipelineStageFlags2 as V;
    if stages.contains(S::ALL_COMMANDS) {
        return V::ALL_COMMANDS;
    }
    let mut out = V::NONE;
    let map = [
        (S::TRANSFER, V::ALL_TRANSFER),
        (S::COMPUTE, V::COMPUTE_SHADER),
        (S::DRAW_INDIRECT, V::DRAW_INDIRECT),
        (S::VERTEX_INPUT, V::VERTEX_INPUT),
        (S::VERTEX_SHADER, V::VERTEX_SHADER),
        (S::FRAGMENT_SHADER, V::FRAGMENT_SHADER),
        (
            S::DEPTH_STENCIL,
            V::EARLY_FRAGMENT_TESTS | V::LATE_FRAGMENT_TESTS,
        ),
        (S::COLOR_ATTACHMENT, V::COLOR_ATTACHMENT_OUTPUT),
        (S::HOST, V::HOST),
        (
            S::ACCELERATION_STRUCTURE_BUILD,
            V::ACCELERATION_STRUCTURE_BUILD_KHR,
        ),
    ];
    for (ours, theirs) in map {
        if stages.contains(ours) {
            out |= theirs;
        }
    }
    out
}

/// [`stages`] on a queue of a device that may have mesh shaders (`mesh`): the vertex
/// shader stage stands for every stage that makes primitives, so the task and mesh stages
/// come with it (a mesh pipeline's shaders read, through the root and the heaps, what a
/// draw's barriers make visible to a vertex shader; without them a barrier's second scope
/// would not reach them, those stages being logically earlier than the fragment stage).
pub fn stages_with_mesh(stages: hal::Stages, mesh: bool) -> vk::PipelineStageFlags2 {
    let v = self::stages(stages);
    if mesh && v.contains(vk::PipelineStageFlags2::VERTEX_SHADER) {
        v | vk::PipelineStageFlags2::TASK_SHADER_EXT | vk::PipelineStageFlags2::MESH_SHADER_EXT
    } else {
        v
    }
}

/// The source half of a barrier recorded on a queue that does not draw: the stages and
/// accesses that queue has. Graphics stages and accesses (uses on another queue, which a
/// timeline wait orders first) become a wait for everything this queue did before, with
/// nothing more to make available.
pub fn on_compute_queue(stages: hal::Stages, access: hal::Access) -> (hal::Stages, hal::Access) {
    use hal::Access as A;
    use hal::Stages as S;
    let accesses = A::INDIRECT_READ
        | A::UNIFORM_READ
        | A::SHADER_READ
        | A::SHADER_WRITE
        | A::TRANSFER_READ
        | A::TRANSFER_WRITE
        | A::HOST_READ
        | A::HOST_WRITE
        | A::ACCELERATION_STRUCTURE_READ
        | A::ACCELERATION_STRUCTURE_WRITE;
    if S::COMPUTE_QUEUE.contains(stages) {
        return (stages, access & accesses);
    }
    (S::ALL_COMMANDS, access & accesses)
}

/// The destination half of a barrier recorded on a queue that does not draw: the stages
/// that queue has (no graphics work runs there to wait), and of the accesses only those
/// its remaining stages make. (A texture a heap names, say, is made visible to every
/// shader stage that may read it, graphics ones included, wherever it was written.)
pub fn dst_on_compute_queue(
    stages: hal::Stages,
    access: hal::Access,
) -> (hal::Stages, hal::Access) {
    use hal::Access as A;
    use hal::Stages as S;
    let stages = stages & S::COMPUTE_QUEUE;
    if stages.contains(S::ALL_COMMANDS) {
        let (_, access) = on_compute_queue(stages, access);
        return (stages, access);
    }
    let mut allowed = A::empty();
    if stages.contains(S::COMPUTE) {
        allowed |=
            A::UNIFORM_READ | A::SHADER_READ | A::SHADER_WRITE | A::ACCELERATION_STRUCTURE_READ;
    }
    if stages.contains(S::TRANSFER) {
        allowed |= A::TRANSFER_READ | A::TRANSFER_WRITE;
    }
    if stages.contains(S::DRAW_INDIRECT) {
        allowed |= A::INDIRECT_READ;
    }
    if stages.contains(S::HOST) {
        allowed |= A::HOST_READ | A::HOST_WRITE;
    }
    if stages.contains(S::ACCELERATION_STRUCTURE_BUILD) {
        allowed |= A::ACCELERATION_STRUCTURE_READ
            | A::ACCELERATION_STRUCTURE_WRITE
            | A::SHADER_READ
            | A::TRANSFER_READ
            | A::TRANSFER_WRITE
            | A::INDIRECT_READ;
    }
    (stages, access & allowed)
}

/// Writes a stage set can make (for the source half of a barrier).
pub fn write_access(stages: hal::Stages) -> vk::AccessFlags2 {
    if stages.is_empty() {
        vk::AccessFlags2::NONE
    } else if stages == hal::Stages::HOST {
        vk::AccessFlags2::HOST_WRITE
    } else {
        vk::AccessFlags2::MEMORY_WRITE
    }
}

/// Accesses a stage set can make (for the destination half of a barrier).
pub fn any_access(stages: hal::Stages) -> vk::AccessFlags2 {
    if stages.is_empty() {
        vk::AccessFlags2::NONE
    } else if stages == hal::Stages::HOST {
        vk::AccessFlags2::HOST_READ | vk::AccessFlags2::HOST_WRITE
    } else {
        vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE
    }
}

/// Exact access kinds.
pub fn access(access: hal::Access) -> vk::AccessFlags2 {
    use hal::Access as A;
    use vk::AccessFlags2 as V;
    let map = [
        (A::INDIRECT_READ, V::INDIRECT_COMMAND_READ),
        (A::INDEX_READ, V::INDEX_READ),
        (A::VERTEX_READ, V::VERTEX_ATTRIBUTE_READ),
        (A::UNIFORM_READ, V::UNIFORM_READ),
        (A::SHADER_READ, V::SHADER_READ),
        (A::SHADER_WRITE, V::SHADER_WRITE),
        (A::COLOR_READ, V::COLOR_ATTACHMENT_READ),
        (A::COLOR_WRITE, V::COLOR_ATTACHMENT_WRITE),
        (A::DEPTH_STENCIL_READ, V::DEPTH_STENCIL_ATTACHMENT_READ),
        (A::DEPTH_STENCIL_WRITE, V::DEPTH_STENCIL_ATTACHMENT_WRITE),
        (A::TRANSFER_READ, V::TRANSFER_READ),
        (A::TRANSFER_WRITE, V::TRANSFER_WRITE),
        (A::HOST_READ, V::HOST_READ),
        (A::HOST_WRITE, V::HOST_WRITE),
        (
            A::ACCELERATION_STRUCTURE_READ,
            V::ACCELERATION_STRUCTURE_READ_KHR,
        ),
        (
            A::ACCELERATION_STRUCTURE_WRITE,
            V::ACCELERATION_STRUCTURE_WRITE_KHR,
        ),
    ];
    let mut out = V::NONE;
    for (ours, theirs) in map {
        if access.contains(ours) {
            out |= theirs;
        }
    }
    out
}

pub fn image_layout(layout: hal::TextureLayout) -> vk::ImageLayout {
    match layout {
        hal::TextureLayout::Undefined => vk::ImageLayout::UNDEFINED,
        hal::TextureLayout::General => vk::ImageLayout::GENERAL,
        // Not SHADER_READ_ONLY_OPTIMAL: a depth-stencil attachment that is read-only in a
        // pass is in this layout while the pass's shaders sample it, and
        // SHADER_READ_ONLY_OPTIMAL is no attachment's layout. READ_ONLY_OPTIMAL
        // (synchronization2, core in Vulkan 1.3) is both.
        hal::TextureLayout::ShaderReadOnly => vk::ImageLayout::READ_ONLY_OPTIMAL,
        hal::TextureLayout::ColorAttachment => vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        hal::TextureLayout::DepthStencilAttachment => {
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        }
        hal::TextureLayout::TransferSrc => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        hal::TextureLayout::TransferDst => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        hal::TextureLayout::Present => vk::ImageLayout::PRESENT_SRC_KHR,
    }
}

/// The Vulkan format of a vigil format. `Depth24PlusStencil8` and `Depth24Plus` are resolved
/// per device (see `Device::depth24_stencil8`, `Device::depth24`); this returns the
/// preferred choice.
pub fn texture_format(format: hal::TextureFormat) -> vk::Format {
    use hal::TextureFormat as F;
    match format {
        F::R8Unorm => vk::Format::R8_UNORM,
        F::Rg8Unorm => vk::Format::R8G8_UNORM,
        F::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
        F::Rgba8UnormSrgb => vk::Format::R8G8B8A8_SRGB,
        F::Bgra8Unorm => vk::Format::B8G8R8A8_UNORM,
        F::Bgra8UnormSrgb => vk::Format::B8G8R8A8_SRGB,
        F::Rgba8Uint => vk::Format::R8G8B8A8_UINT,
        F::R8Uint => vk::Format::R8_UINT,
        F::R32Uint => vk::Format::R32_UINT,
        F::R32Sint => vk::Format::R32_SINT,
        F::R32Float => vk::Format::R32_SFLOAT,
        F::Rg32Float => vk::Format::R32G32_SFLOAT,
        F::Rgba16Float => vk::Format::R16G16B16A16_SFLOAT,
        F::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
        F::Rgba32Uint => vk::Format::R32G32B32A32_UINT,
        F::Depth32Float => vk::Format::D32_SFLOAT,
        F::Depth24PlusStencil8 => vk::Format::D24_UNORM_S8_UINT,
        F::R8Snorm => vk::Format::R8_SNORM,
        F::R8Sint => vk::Format::R8_SINT,
        F::Rg8Snorm => vk::Format::R8G8_SNORM,
        F::Rg8Uint => vk::Format::R8G8_UINT,
        F::Rg8Sint => vk::Format::R8G8_SINT,
        F::Rgba8Snorm => vk::Format::R8G8B8A8_SNORM,
        F::Rgba8Sint => vk::Format::R8G8B8A8_SINT,
        F::R16Uint => vk::Format::R16_UINT,
        F::R16Sint => vk::Format::R16_SINT,
        F::R16Float => vk::Format::R16_SFLOAT,
        F::Rg16Uint => vk::Format::R16G16_UINT,
        F::Rg16Sint => vk::Format::R16G16_SINT,
        F::Rg16Float => vk::Format::R16G16_SFLOAT,
        F::Rgba16Uint => vk::Format::R16G16B16A16_UINT,
        F::Rgba16Sint => vk::Format::R16G16B16A16_SINT,
        F::Rg32Uint => vk::Format::R32G32_UINT,
        F::Rg32Sint => vk::Format::R32G32_SINT,
        F::Rgba32Sint => vk::Format::R32G32B32A32_SINT,
        F::Rgb10a2Uint => vk::Format::A2B10G10R10_UINT_PACK32,
        F::Rgb10a2Unorm => vk::Format::A2B10G10R10_UNORM_PACK32,
        F::Rg11b10Ufloat => vk::Format::B10G11R11_UFLOAT_PACK32,
        F::Rgb9e5Ufloat => vk::Format::E5B9G9R9_UFLOAT_PACK32,
        F::Depth16Unorm => vk::Format::D16_UNORM,
        F::Depth24Plus => vk::Format::X8_D24_UNORM_PACK32,
        F::Bc1RgbaUnorm => vk::Format::BC1_RGBA_UNORM_BLOCK,
        F::Bc1RgbaUnormSrgb => vk::Format::BC1_RGBA_SRGB_BLOCK,
        F::Bc2RgbaUnorm => vk::Format::BC2_UNORM_BLOCK,
        F::Bc2RgbaUnormSrgb => vk::Format::BC2_SRGB_BLOCK,
        F::Bc3RgbaUnorm => vk::Format::BC3_UNORM_BLOCK,
        F::Bc3RgbaUnormSrgb => vk::Format::BC3_SRGB_BLOCK,
        F::Bc4RUnorm => vk::Format::BC4_UNORM_BLOCK,
        F::Bc4RSnorm => vk::Format::BC4_SNORM_BLOCK,
        F::Bc5RgUnorm => vk::Format::BC5_UNORM_BLOCK,
        F::Bc5RgSnorm => vk::Format::BC5_SNORM_BLOCK,
        F::Bc6hRgbUfloat => vk::Format::BC6H_UFLOAT_BLOCK,
        F::Bc6hRgbFloat => vk::Format::BC6H_SFLOAT_BLOCK,
        F::Bc7RgbaUnorm => vk::Format::BC7_UNORM_BLOCK,
        F::Bc7RgbaUnormSrgb => vk::Format::BC7_SRGB_BLOCK,
        F::R16Unorm => vk::Format::R16_UNORM,
        F::R16Snorm => vk::Format::R16_SNORM,
        F::Rg16Unorm => vk::Format::R16G16_UNORM,
        F::Rg16Snorm => vk::Format::R16G16_SNORM,
        F::Rgba16Unorm => vk::Format::R16G16B16A16_UNORM,
        F::Rgba16Snorm => vk::Format::R16G16B16A16_SNORM,
        F::Depth32FloatStencil8 => vk::Format::D32_SFLOAT_S8_UINT,
        F::Stencil8 => vk::Format::S8_UINT,
    }
}

pub fn aspect(format: hal::TextureFormat, aspect: hal::TextureAspect) -> vk::ImageAspectFlags {
    let info = format.info();
    match aspect {
        hal::TextureAspect::DepthOnly => vk::ImageAspectFlags::DEPTH,
        hal::TextureAspect::StencilOnly => vk::ImageAspectFlags::STENCIL,
        hal::TextureAspect::All => {
            let mut out = vk::ImageAspectFlags::empty();
            if info.has_depth {
                out |= vk::ImageAspectFlags::DEPTH;
            }
            if info.has_stencil {
                out |= vk::ImageAspectFlags::STENCIL;
            }
            if out.is_empty() {
                out = vk::ImageAspectFlags::COLOR;
            }
            out
        }
    }
}

/// Every aspect a Vulkan image format has.
pub fn format_aspects(format: vk::Format) -> vk::ImageAspectFlags {
    use vk::Format as F;
    match format {
        F::D16_UNORM | F::X8_D24_UNORM_PACK32 | F::D32_SFLOAT => vk::ImageAspectFlags::DEPTH,
        F::S8_UINT => vk::ImageAspectFlags::STENCIL,
        F::D16_UNORM_S8_UINT | F::D24_UNORM_S8_UINT | F::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

pub fn subresource_range(
    format: hal::TextureFormat,
    range: &hal::SubresourceRange,
) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect(format, range.aspect),
        base_mip_level: range.base_mip_level,
        level_count: range.mip_level_count,
        base_array_layer: range.base_array_layer,
        layer_count: range.array_layer_count,
    }
}

pub fn texture_usage(usage: hal::TextureUsages, format: hal::TextureFormat) -> vk::ImageUsageFlags {
    // Every image is cleared once when it is first used (textures start zeroed).
    let mut out = vk::ImageUsageFlags::TRANSFER_DST;
    if usage.contains(hal::TextureUsages::COPY_SRC) {
        out |= vk::ImageUsageFlags::TRANSFER_SRC;
    }
    if usage.contains(hal::TextureUsages::COPY_DST) {
        out |= vk::ImageUsageFlags::TRANSFER_DST;
    }
    if usage.contains(hal::TextureUsages::TEXTURE_BINDING) {
        out |= vk::ImageUsageFlags::SAMPLED;
    }
    if usage.contains(hal::TextureUsages::STORAGE_BINDING) {
        out |= vk::ImageUsageFlags::STORAGE;
    }
    if usage.contains(hal::TextureUsages::RENDER_ATTACHMENT) {
        out |= if format.is_depth_stencil() {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        } else {
            vk::ImageUsageFlags::COLOR_ATTACHMENT
        };
    }
    out
}

pub fn view_type(dimension: hal::TextureViewDimension) -> vk::ImageViewType {
    match dimension {
        hal::TextureViewDimension::D1 => vk::ImageViewType::TYPE_1D,
        hal::TextureViewDimension::D2 => vk::ImageViewType::TYPE_2D,
        hal::TextureViewDimension::D2Array => vk::ImageViewType::TYPE_2D_ARRAY,
        hal::TextureViewDimension::Cube => vk::ImageViewType::CUBE,
        hal::TextureViewDimension::CubeArray => vk::ImageViewType::CUBE_ARRAY,
        hal::TextureViewDimension::D3 => vk::ImageViewType::TYPE_3D,
    }
}

pub fn filter(mode: hal::FilterMode) -> vk::Filter {
    match mode {
        hal::FilterMode::Nearest => vk::Filter::NEAREST,
        hal::FilterMode::Linear => vk::Filter::LINEAR,
    }
}

pub fn mipmap_mode(mode: hal::FilterMode) -> vk::SamplerMipmapMode {
    match mode {
        hal::FilterMode::Nearest => vk::SamplerMipmapMode::NEAREST,
        hal::FilterMode::Linear => vk::SamplerMipmapMode::LINEAR,
    }
}

pub fn address_mode(mode: hal::AddressMode) -> vk::SamplerAddressMode {
    match mode {
        hal::AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        hal::AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
        hal::AddressMode::MirrorRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        hal::AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
    }
}

pub fn border_color(color: Option<hal::SamplerBorderColor>) -> vk::BorderColor {
    match color.unwrap_or_default() {
        hal::SamplerBorderColor::TransparentBlack | hal::SamplerBorderColor::Zero => {
            vk::BorderColor::FLOAT_TRANSPARENT_BLACK
        }
        hal::SamplerBorderColor::OpaqueBlack => vk::BorderColor::FLOAT_OPAQUE_BLACK,
        hal::SamplerBorderColor::OpaqueWhite => vk::BorderColor::FLOAT_OPAQUE_WHITE,
    }
}

pub fn compare_op(f: hal::CompareFunction) -> vk::CompareOp {
    use hal::CompareFunction as C;
    match f {
        C::Never => vk::CompareOp::NEVER,
        C::Less => vk::CompareOp::LESS,
        C::Equal => vk::CompareOp::EQUAL,
        C::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        C::Greater => vk::CompareOp::GREATER,
        C::NotEqual => vk::CompareOp::NOT_EQUAL,
        C::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        C::Always => vk::CompareOp::ALWAYS,
    }
}

pub fn shader_stages(stages: hal::ShaderStages) -> vk::ShaderStageFlags {
    let mut out = vk::ShaderStageFlags::empty();
    if stages.contains(hal::ShaderStages::VERTEX) {
        out |= vk::ShaderStageFlags::VERTEX;
    }
    if stages.contains(hal::ShaderStages::FRAGMENT) {
        out |= vk::ShaderStageFlags::FRAGMENT;
    }
    if stages.contains(hal::ShaderStages::COMPUTE) {
        out |= vk::ShaderStageFlags::COMPUTE;
    }
    if stages.contains(hal::ShaderStages::MESH) {
        out |= vk::ShaderStageFlags::TASK_EXT | vk::ShaderStageFlags::MESH_EXT;
    }
    out
}

/// A binding's array flags as Vulkan binding flags.
pub fn binding_flags(flags: hal::BindingArrayFlags) -> vk::DescriptorBindingFlags {
    let mut out = vk::DescriptorBindingFlags::empty();
    if flags.contains(hal::BindingArrayFlags::PARTIALLY_BOUND) {
        out |= vk::DescriptorBindingFlags::PARTIALLY_BOUND;
    }
    if flags.contains(hal::BindingArrayFlags::UPDATE_AFTER_BIND) {
        out |= vk::DescriptorBindingFlags::UPDATE_AFTER_BIND;
    }
    if flags.contains(hal::BindingArrayFlags::VARIABLE_COUNT) {
        out |= vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT;
    }
    out
}

pub fn descriptor_type(ty: &hal::BindingType) -> vk::DescriptorType {
    match ty {
        hal::BindingType::Buffer {
            ty: hal::BufferBindingType::Uniform,
            has_dynamic_offset,
            ..
        } => {
            if *has_dynamic_offset {
                vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
            } else {
                vk::DescriptorType::UNIFORM_BUFFER
            }
        }
        hal::BindingType::Buffer {
            has_dynamic_offset, ..
        } => {
            if *has_dynamic_offset {
                vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
            } else {
                vk::DescriptorType::STORAGE_BUFFER
            }
        }
        hal::BindingType::Sampler(_) => vk::DescriptorType::SAMPLER,
        hal::BindingType::Texture { .. } => vk::DescriptorType::SAMPLED_IMAGE,
        hal::BindingType::StorageTexture { .. } => vk::DescriptorType::STORAGE_IMAGE,
        hal::BindingType::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}

pub fn index_type(format: hal::IndexFormat) -> vk::IndexType {
    match format {
        hal::IndexFormat::Uint16 => vk::IndexType::UINT16,
        hal::IndexFormat::Uint32 => vk::IndexType::UINT32,
    }
}

pub fn vertex_format(format: hal::VertexFormat) -> vk::Format {
    use hal::VertexFormat as V;
    match format {
        V::Float32 => vk::Format::R32_SFLOAT,
        V::Float32x2 => vk::Format::R32G32_SFLOAT,
        V::Float32x3 => vk::Format::R32G32B32_SFLOAT,
        V::Float32x4 => vk::Format::R32G32B32A32_SFLOAT,
        V::Uint32 => vk::Format::R32_UINT,
        V::Uint32x2 => vk::Format::R32G32_UINT,
        V::Uint32x4 => vk::Format::R32G32B32A32_UINT,
        V::Sint32 => vk::Format::R32_SINT,
        V::Unorm8x4 => vk::Format::R8G8B8A8_UNORM,
        V::Float16x2 => vk::Format::R16G16_SFLOAT,
        V::Float16x4 => vk::Format::R16G16B16A16_SFLOAT,
    }
}

pub fn topology(t: hal::PrimitiveTopology) -> vk::PrimitiveTopology {
    match t {
        hal::PrimitiveTopology::PointList => vk::PrimitiveTopology::POINT_LIST,
        hal::PrimitiveTopology::LineList => vk::PrimitiveTopology::LINE_LIST,
        hal::PrimitiveTopology::LineStrip => vk::PrimitiveTopology::LINE_STRIP,
        hal::PrimitiveTopology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
        hal::PrimitiveTopology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
    }
}

pub fn front_face(f: hal::FrontFace) -> vk::FrontFace {
    match f {
        hal::FrontFace::Ccw => vk::FrontFace::COUNTER_CLOCKWISE,
        hal::FrontFace::Cw => vk::FrontFace::CLOCKWISE,
    }
}

pub fn cull_mode(c: hal::CullMode) -> vk::CullModeFlags {
    match c {
        hal::CullMode::None => vk::CullModeFlags::NONE,
        hal::CullMode::Front => vk::CullModeFlags::FRONT,
        hal::CullMode::Back => vk::CullModeFlags::BACK,
    }
}

pub fn stencil_op(op: hal::StencilOperation) -> vk::StencilOp {
    use hal::StencilOperation as S;
    match op {
        S::Keep => vk::StencilOp::KEEP,
        S::Zero => vk::StencilOp::ZERO,
        S::Replace => vk::StencilOp::REPLACE,
        S::Invert => vk::StencilOp::INVERT,
        S::IncrementClamp => vk::StencilOp::INCREMENT_AND_CLAMP,
        S::DecrementClamp => vk::StencilOp::DECREMENT_AND_CLAMP,
        S::IncrementWrap => vk::StencilOp::INCREMENT_AND_WRAP,
        S::DecrementWrap => vk::StencilOp::DECREMENT_AND_WRAP,
    }
}

pub fn stencil_face(
    face: &hal::StencilFaceState,
    read_mask: u32,
    write_mask: u32,
) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: stencil_op(face.fail_op),
        pass_op: stencil_op(face.pass_op),
        depth_fail_op: stencil_op(face.depth_fail_op),
        compare_op: compare_op(face.compare),
        compare_mask: read_mask,
        write_mask,
        reference: 0,
    }
}

pub fn blend_factor(f: hal::BlendFactor) -> vk::BlendFactor {
    use hal::BlendFactor as B;
    match f {
        B::Zero => vk::BlendFactor::ZERO,
        B::One => vk::BlendFactor::ONE,
        B::Src => vk::BlendFactor::SRC_COLOR,
        B::OneMinusSrc => vk::BlendFactor::ONE_MINUS_SRC_COLOR,
        B::SrcAlpha => vk::BlendFactor::SRC_ALPHA,
        B::OneMinusSrcAlpha => vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        B::Dst => vk::BlendFactor::DST_COLOR,
        B::OneMinusDst => vk::BlendFactor::ONE_MINUS_DST_COLOR,
        B::DstAlpha => vk::BlendFactor::DST_ALPHA,
        B::OneMinusDstAlpha => vk::BlendFactor::ONE_MINUS_DST_ALPHA,
        B::Src1 => vk::BlendFactor::SRC1_COLOR,
        B::OneMinusSrc1 => vk::BlendFactor::ONE_MINUS_SRC1_COLOR,
        B::Src1Alpha => vk::BlendFactor::SRC1_ALPHA,
        B::OneMinusSrc1Alpha => vk::BlendFactor::ONE_MINUS_SRC1_ALPHA,
        B::Constant => vk::BlendFactor::CONSTANT_COLOR,
        B::OneMinusConstant => vk::BlendFactor::ONE_MINUS_CONSTANT_COLOR,
        B::SrcAlphaSaturated => vk::BlendFactor::SRC_ALPHA_SATURATE,
    }
}

pub fn blend_op(op: hal::BlendOperation) -> vk::BlendOp {
    match op {
        hal::BlendOperation::Add => vk::BlendOp::ADD,
        hal::BlendOperation::Subtract => vk::BlendOp::SUBTRACT,
        hal::BlendOperation::ReverseSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        hal::BlendOperation::Min => vk::BlendOp::MIN,
        hal::BlendOperation::Max => vk::BlendOp::MAX,
    }
}

pub fn color_writes(mask: hal::ColorWrites) -> vk::ColorComponentFlags {
    let mut out = vk::ColorComponentFlags::empty();
    if mask.contains(hal::ColorWrites::RED) {
        out |= vk::ColorComponentFlags::R;
    }
    if mask.contains(hal::ColorWrites::GREEN) {
        out |= vk::ColorComponentFlags::G;
    }
    if mask.contains(hal::ColorWrites::BLUE) {
        out |= vk::ColorComponentFlags::B;
    }
    if mask.contains(hal::ColorWrites::ALPHA) {
        out |= vk::ColorComponentFlags::A;
    }
    out
}

pub fn store_op(op: hal::StoreOp) -> vk::AttachmentStoreOp {
    match op {
        hal::StoreOp::Store => vk::AttachmentStoreOp::STORE,
        hal::StoreOp::Discard => vk::AttachmentStoreOp::DONT_CARE,
    }
}

pub fn clear_color(format: hal::TextureFormat, v: [f64; 4]) -> vk::ClearColorValue {
    match format.info().sample_type {
        hal::TextureSampleType::Uint => vk::ClearColorValue {
            uint32: [v[0] as u32, v[1] as u32, v[2] as u32, v[3] as u32],
        },
        hal::TextureSampleType::Sint => vk::ClearColorValue {
            int32: [v[0] as i32, v[1] as i32, v[2] as i32, v[3] as i32],
        },
        _ => vk::ClearColorValue {
            float32: [v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32],
        },
    }
}

pub fn device_type(t: vk::PhysicalDeviceType) -> hal::DeviceType {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => hal::DeviceType::DiscreteGpu,
        vk::PhysicalDeviceType::INTEGRATED_GPU => hal::DeviceType::IntegratedGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => hal::DeviceType::VirtualGpu,
        vk::PhysicalDeviceType::CPU => hal::DeviceType::Cpu,
        _ => hal::DeviceType::Other,
    }
}

pub fn map_result(r: vk::Result) -> hal::DeviceError {
    match r {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY
        | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        | vk::Result::ERROR_OUT_OF_POOL_MEMORY
        | vk::Result::ERROR_FRAGMENTED_POOL
        | vk::Result::ERROR_FRAGMENTATION => hal::DeviceError::OutOfMemory,
        vk::Result::ERROR_DEVICE_LOST => hal::DeviceError::Lost,
        vk::Result::ERROR_FEATURE_NOT_PRESENT
        | vk::Result::ERROR_FORMAT_NOT_SUPPORTED
        | vk::Result::ERROR_EXTENSION_NOT_PRESENT
        | vk::Result::ERROR_LAYER_NOT_PRESENT
        | vk::Result::ERROR_INCOMPATIBLE_DRIVER => hal::DeviceError::Unsupported(format!("{r:?}")),
        other => hal::DeviceError::Other(format!("Vulkan error {other:?}")),
    }
}

pub fn map_alloc_error(e: gpu_allocator::AllocationError) -> hal::DeviceError {
    match e {
        gpu_allocator::AllocationError::OutOfMemory => hal::DeviceError::OutOfMemory,
        gpu_allocator::AllocationError::NoCompatibleMemoryTypeFound => {
            hal::DeviceError::Unsupported("no compatible memory type".into())
        }
        other => hal::DeviceError::Other(format!("allocator: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::PipelineStageFlags2 as V;

    #[test]
    fn the_vertex_stage_brings_task_and_mesh_where_mesh_shaders_may_run() {
        let shading = hal::Stages::VERTEX_SHADER | hal::Stages::FRAGMENT_SHADER;
        assert_eq!(
            stages_with_mesh(shading, true),
            V::VERTEX_SHADER | V::FRAGMENT_SHADER | V::TASK_SHADER_EXT | V::MESH_SHADER_EXT
        );
        assert_eq!(
            stages_with_mesh(shading, false),
            V::VERTEX_SHADER | V::FRAGMENT_SHADER
        );
        // Without the vertex stage nothing is added; every command stays every command.
        assert_eq!(
            stages_with_mesh(hal::Stages::FRAGMENT_SHADER | hal::Stages::COMPUTE, true),
            V::FRAGMENT_SHADER | V::COMPUTE_SHADER
        );
        assert_eq!(
            stages_with_mesh(hal::Stages::ALL_COMMANDS, true),
            V::ALL_COMMANDS
        );
    }

    #[test]
    fn a_compute_queue_waits_only_in_its_own_stages() {
        use hal::{Access as A, Stages as S};
        // What makes a heap texture visible to every shader stage that may read it.
        let heap = S::VERTEX_SHADER | S::FRAGMENT_SHADER | S::COMPUTE;
        assert_eq!(
            dst_on_compute_queue(heap, A::SHADER_READ),
            (S::COMPUTE, A::SHADER_READ)
        );
        // Graphics only: nothing there waits, and no access is named.
        assert_eq!(
            dst_on_compute_queue(S::FRAGMENT_SHADER | S::COLOR_ATTACHMENT, A::COLOR_READ),
            (S::empty(), A::empty())
        );
        // Accesses follow the stages that remain.
        assert_eq!(
            dst_on_compute_queue(
                S::TRANSFER | S::FRAGMENT_SHADER,
                A::TRANSFER_READ | A::SHADER_READ
            ),
            (S::TRANSFER, A::TRANSFER_READ)
        );
        assert_eq!(
            dst_on_compute_queue(
                S::COMPUTE | S::TRANSFER,
                A::SHADER_WRITE | A::TRANSFER_WRITE
            ),
            (
                S::COMPUTE | S::TRANSFER,
                A::SHADER_WRITE | A::TRANSFER_WRITE
            )
        );
        assert_eq!(
            dst_on_compute_queue(S::ALL_COMMANDS, A::SHADER_READ | A::COLOR_READ),
            (S::ALL_COMMANDS, A::SHADER_READ)
        );
    }
}
