//! Every rule a call can break, with a stable code, the error kind it produces, the rule in
//! words, and where it comes from (WebGPU, Vulkan, or vigil's own). `docs/rules.md` is
//! generated from this table ([`rules_markdown`]) and checked against it in CI.
//!
//! Codes are `area.what` in lower case and never change meaning; a rule that goes away
//! leaves its code unused.

use crate::error::ErrorKind;

macro_rules! rules {
    ($(
        $(#[doc = $section:literal])?
        $name:ident: $kind:ident, $code:literal, $summary:literal, $source:literal;
    )*) => {
        /// A rule a refused call broke. Carried by every [`crate::Error`] (`err.rule()`).
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $(
                #[doc = $summary]
                $name,
            )*
        }

        impl Rule {
            /// Every rule, in the table's order.
            pub const ALL: &'static [Rule] = &[$(Rule::$name),*];

            /// The stable code, e.g. `"buffer.size-zero"`.
            pub fn code(self) -> &'static str {
                match self { $(Rule::$name => $code,)* }
            }

            /// The kind of error breaking it produces.
            pub fn kind(self) -> ErrorKind {
                match self { $(Rule::$name => ErrorKind::$kind,)* }
            }

            /// The rule in words.
            pub fn summary(self) -> &'static str {
                match self { $(Rule::$name => $summary,)* }
            }

            /// Where the rule comes from: the WebGPU or Vulkan rule, or vigil's own.
            pub fn source(self) -> &'static str {
                match self { $(Rule::$name => $source,)* }
            }
        }
    };
}

rules! {
    // Device and adapter.
    AdapterNotFound: Unsupported, "adapter.not-found", "An adapter of the kind asked for exists.", "vigil";
    DeviceFeature: Unsupported, "device.feature", "A device enables only features its adapter supports.", "WebGPU requestDevice: requiredFeatures";
    DeviceComputeQueue: Unsupported, "device.compute-queue", "A device shared onto the compute queue needs a native device opened with ASYNC_COMPUTE (its adapter has a compute-only queue family).", "Vulkan VkQueueFamilyProperties (COMPUTE without GRAPHICS)";
    QueueDraws: Unsupported, "queue.draws", "Render passes, depth-stencil textures, surfaces and graphics stages need a device whose queue draws; a device on the compute queue computes and copies.", "Vulkan VkQueueFlags (vkCmdBeginRendering, vkCmdClearDepthStencilImage: graphics queues)";
    QueueWaitForeign: DeviceMismatch, "queue.wait-foreign", "A submission waits only for devices over the same native device.", "Vulkan VkSemaphoreSubmitInfo (a semaphore of the same VkDevice)";
    QueueWaitUnsubmitted: InvalidState, "queue.wait-unsubmitted", "A submission waits only for serials the device it waits for has submitted.", "vigil; Vulkan timeline semaphores (a wait needs a signal that is submitted)";
    DeviceSecondQueue: Unsupported, "device.second-queue", "A device shared onto a second queue needs a native device with a second queue (its queue family has two or more).", "Vulkan VkQueueFamilyProperties::queueCount";
    DeviceLimit: LimitExceeded, "device.limit", "A device asks for limits within its adapter's.", "WebGPU requestDevice: requiredLimits";
    DeviceLost: DeviceLost, "device.lost", "A lost device runs nothing more; loss is sticky and shared by devices over one native device.", "vigil; Vulkan VK_ERROR_DEVICE_LOST";
    DeviceObjects: LimitExceeded, "device.objects", "A device holds at most 1,048,575 live objects of each kind.", "vigil";

    // What the driver answered.
    DriverOutOfMemory: OutOfMemory, "driver.out-of-memory", "Host or device memory was available.", "Vulkan VK_ERROR_OUT_OF_*_MEMORY";
    DriverUnsupported: Unsupported, "driver.unsupported", "The driver supports what was asked.", "Vulkan";
    DriverRefused: InvalidState, "driver.refused", "The driver accepted the call.", "Vulkan";

    // Handles.
    HandleNull: InvalidHandle, "handle.null", "A handle is not null.", "vigil";
    HandleStale: InvalidHandle, "handle.stale", "A handle names a live object: destroying an object makes every copy of its handle stale.", "WebGPU destroyed objects; vigil generations";
    HandleUnknown: InvalidHandle, "handle.unknown", "A handle names an object its device made.", "vigil";
    HandleForeign: DeviceMismatch, "handle.foreign", "A handle belongs to the device it is used with.", "WebGPU: objects valid to use with the device";
    ViewTextureDestroyed: InvalidHandle, "view.texture-destroyed", "A view is used only while its texture is alive.", "WebGPU: texture view of a destroyed texture";

    // Buffers.
    MappedAtCreationSize: InvalidDescriptor, "buffer.mapped-at-creation-size", "A buffer mapped at creation has a size that is a multiple of 4.", "WebGPU createBuffer: mappedAtCreation";
    BufferSizeZero: InvalidDescriptor, "buffer.size-zero", "A buffer holds at least one byte.", "Vulkan VUID-VkBufferCreateInfo-size-00912";
    BufferSizeLimit: LimitExceeded, "buffer.size-limit", "A buffer's size is within max_buffer_size (and rounds up to whole words).", "WebGPU createBuffer: maxBufferSize";
    BufferUsageEmpty: InvalidDescriptor, "buffer.usage-empty", "A buffer has at least one usage.", "WebGPU createBuffer: usage != 0";
    BufferMapReadUsage: InvalidDescriptor, "buffer.map-read-usage", "MAP_READ combines only with COPY_DST.", "WebGPU createBuffer: MAP_READ";
    BufferMapWriteUsage: InvalidDescriptor, "buffer.map-write-usage", "MAP_WRITE combines only with COPY_SRC.", "WebGPU createBuffer: MAP_WRITE";
    BufferRange: OutOfBounds, "buffer.range", "A range lies inside its buffer (offset + size <= the buffer's size, without overflow).", "WebGPU buffer ranges; Vulkan VkBuffer range rules";

    // Queue writes, readbacks, staging.
    WriteUsage: UsageMismatch, "write.usage", "A queue write's buffer has COPY_DST usage.", "WebGPU writeBuffer";
    WriteAlignment: OutOfBounds, "write.alignment", "A queue write's offset and size are multiples of 4.", "WebGPU writeBuffer; Vulkan VUID-vkCmdCopyBuffer alignment";
    WriteMapped: InvalidState, "write.mapped", "A mapped buffer is not written through the queue.", "WebGPU writeBuffer: buffer state unmapped";
    ReadMapped: InvalidState, "read.mapped", "A mapped buffer is read through its mapping, not read_buffer.", "vigil";
    ReadUsage: UsageMismatch, "read.usage", "A buffer read back has MAP_READ or COPY_SRC usage.", "vigil";
    StagingWrites: LimitExceeded, "staging.writes", "At most MAX_QUEUED_WRITES writes wait for the next submission.", "vigil";
    StagingBudget: LimitExceeded, "staging.budget", "Queued and in-flight staging stays within the device's staging budget.", "vigil";
    TextureWriteUsage: UsageMismatch, "texture-write.usage", "A texture written through the queue has COPY_DST usage.", "WebGPU writeTexture";
    TextureWriteData: OutOfBounds, "texture-write.data", "A texture write's data holds every byte its layout reads.", "WebGPU writeTexture: validating linear texture data";
    TextureWriteRow: LimitExceeded, "texture-write.row", "A row of a texture write or readback fits one staged copy (under 4 GiB).", "vigil";
    TextureReadUsage: UsageMismatch, "texture-read.usage", "A texture read back has COPY_SRC usage.", "vigil";

    // Mapping.
    MapUsage: UsageMismatch, "map.usage", "Mapping for reading needs MAP_READ, for writing MAP_WRITE.", "WebGPU mapAsync";
    MapAlignment: OutOfBounds, "map.alignment", "A mapping's offset is a multiple of 8 and its size of 4.", "WebGPU mapAsync";
    MapAlreadyMapped: InvalidState, "map.already-mapped", "A buffer has one mapping at a time.", "WebGPU mapAsync: buffer state unmapped";
    MapNotReady: InvalidState, "map.not-ready", "Mapped bytes are reached only once the mapping is ready.", "WebGPU getMappedRange: buffer state mapped";
    MapReadOnly: InvalidState, "map.read-only", "A mapping for reading is not written.", "WebGPU getMappedRange: MAP_READ ranges are read-only";
    MapInUse: InvalidState, "map.in-use", "A mapping is unmapped only when no closure is reading or writing it, and written by one closure at a time.", "vigil";

    // Textures.
    TextureSizeZero: InvalidDescriptor, "texture.size-zero", "A texture's size, layers and mip levels are non-zero.", "WebGPU createTexture";
    TextureSizeLimit: LimitExceeded, "texture.size-limit", "A texture's sides are within max_texture_dimension_2d (a 1D texture's width within max_texture_dimension_1d, a 3D texture's sides and depth within max_texture_dimension_3d).", "WebGPU createTexture: maxTextureDimension1D/2D/3D";
    TextureLayerLimit: LimitExceeded, "texture.layer-limit", "A 2D texture's layers are within max_texture_array_layers.", "WebGPU createTexture: maxTextureArrayLayers";
    TextureMipCount: InvalidDescriptor, "texture.mip-count", "A texture has at most floor(log2(max side)) + 1 mip levels, a 3D texture's depth counted as a side.", "WebGPU createTexture: maximum mip level count";
    TextureUsageEmpty: InvalidDescriptor, "texture.usage-empty", "A texture has at least one usage.", "WebGPU createTexture: usage != 0";
    TextureFormatUsage: Unsupported, "texture.format-usage", "A texture's format supports each of its usages on the device.", "WebGPU texture format capabilities; Vulkan format features";
    TextureDepthStencilCopy: InvalidDescriptor, "texture.depth-stencil-copy", "depth24plus-stencil8 is never copied (its depth has no copyable layout).", "WebGPU: depth24plus copy restrictions";
    TextureMultisampleUsage: InvalidDescriptor, "texture.multisample-usage", "A multisampled texture is a render attachment and not a storage texture.", "WebGPU createTexture: sampleCount > 1";
    TextureMultisampleShape: InvalidDescriptor, "texture.multisample-shape", "A multisampled texture has one mip level and one layer.", "WebGPU createTexture: sampleCount > 1";
    TextureSampleCount: InvalidDescriptor, "texture.sample-count", "Sample counts are 1 or 4.", "WebGPU sampleCount";
    TextureFormatFeature: Unsupported, "texture.format-feature", "A format behind a feature needs it enabled: BC formats TEXTURE_COMPRESSION_BC, 16-bit normalized ones TEXTURE_FORMAT_16BIT_NORM, depth32float-stencil8 DEPTH32FLOAT_STENCIL8.", "WebGPU texture-compression-bc, depth32float-stencil8; Vulkan textureCompressionBC; wgpu TEXTURE_FORMAT_16BIT_NORM";
    TextureBlockSize: InvalidDescriptor, "texture.block-size", "A compressed texture's width and height are whole blocks (multiples of 4 for BC).", "WebGPU createTexture: size multiple of the texel block";
    TextureDimension: InvalidDescriptor, "texture.dimension", "A 1D texture is one row of one layer and one mip level, and not a render attachment; 1D and 3D textures are single-sampled, of color formats that are not compressed.", "WebGPU createTexture: dimension 1d and 3d; Vulkan VkImageCreateInfo (multisampled images are 2D)";

    // Views.
    ViewFormat: InvalidDescriptor, "view.format", "A view's format is its texture's, or that format's sRGB twin.", "WebGPU createView: view formats";
    ViewMipRange: OutOfBounds, "view.mip-range", "A view's (or a transition's) mip levels lie inside its texture's.", "WebGPU createView";
    ViewLayerRange: OutOfBounds, "view.layer-range", "A view's (or a transition's) layers lie inside its texture's.", "WebGPU createView";
    ViewDimension: InvalidDescriptor, "view.dimension", "A 2d view covers one layer; a cube view six layers of a square texture; a cube-array view a multiple of six; 1D and 3D textures are viewed whole in their own dimension, and only they.", "WebGPU createView: dimension";
    ViewMultisample: InvalidDescriptor, "view.multisample", "A multisampled texture is viewed as 2d.", "WebGPU createView";
    ViewAspect: InvalidDescriptor, "view.aspect", "A depth-only or stencil-only view is of a format with that aspect.", "WebGPU createView: aspect";
    ViewUsageSubset: UsageMismatch, "view.usage-subset", "A view's usage is a subset of its texture's.", "WebGPU createView: usage";
    ViewUsageNone: UsageMismatch, "view.usage-none", "A view has a usage that goes through views (sampling, storage or rendering).", "Vulkan VUID-VkImageViewCreateInfo-image-04441";
    ViewStorageFormat: UsageMismatch, "view.storage-format", "A storage view's own format supports storage.", "Vulkan VUID-VkImageViewCreateInfo-usage-02275";

    // Samplers and queries.
    SamplerLodClamp: InvalidDescriptor, "sampler.lod-clamp", "0 <= lod_min_clamp <= lod_max_clamp.", "WebGPU createSampler";
    SamplerAnisotropy: InvalidDescriptor, "sampler.anisotropy", "Anisotropy is 1 to 16, and above 1 only with linear filters.", "WebGPU createSampler: maxAnisotropy";
    SamplerAnisotropyFeature: Unsupported, "sampler.anisotropy-feature", "Anisotropy above 1 needs the SAMPLER_ANISOTROPY feature.", "Vulkan samplerAnisotropy";
    SamplerBorderFeature: Unsupported, "sampler.border-feature", "A sampler clamps to a border color only with ADDRESS_MODE_CLAMP_TO_BORDER, and to the Zero border only with ADDRESS_MODE_CLAMP_TO_ZERO.", "wgpu create_sampler (ADDRESS_MODE_CLAMP_TO_BORDER, ADDRESS_MODE_CLAMP_TO_ZERO)";
    QueryFeature: Unsupported, "query.feature", "Timestamp queries need the TIMESTAMP_QUERY feature.", "WebGPU timestamp-query";
    QueryCount: LimitExceeded, "query.count", "A query set holds 1 to 4096 queries.", "WebGPU createQuerySet: count";
    QueryRange: OutOfBounds, "query.range", "Queries written or resolved lie inside their set.", "WebGPU writeTimestamp, resolveQuerySet";
    QuerySameTwice: InvalidDescriptor, "query.same-twice", "A pass's beginning and end timestamps are different queries.", "WebGPU timestampWrites";
    QueryResolveUsage: UsageMismatch, "query.resolve-usage", "A resolve's destination has QUERY_RESOLVE usage.", "WebGPU resolveQuerySet";
    QueryResolveAlignment: OutOfBounds, "query.resolve-alignment", "A resolve's destination offset is a multiple of 256.", "WebGPU resolveQuerySet";
    TimestampCount: LimitExceeded, "timestamp.count", "A command buffer writes at most 256 timestamps of its own, outside multiview render passes.", "vigil; Vulkan VUID-vkCmdWriteTimestamp2-query-03865 (multiview uses a query per view)";
    TimestampPending: InvalidState, "timestamp.pending", "A submission's timestamps are read once it has completed: reading them never waits.", "vigil; the reference's read_timestamps after the existing completion";
    QueryNotWritten: InvalidState, "query.not-written", "Only queries the same encoder wrote are resolved by it (a query never written would be waited for forever).", "vigil; Vulkan vkCmdCopyQueryPoolResults availability";
    QueryType: UsageMismatch, "query.type", "A query set is used for its type: timestamps are written into timestamp sets, a render pass counts occlusion into an occlusion set, pipeline statistics are counted into a pipeline-statistics set.", "WebGPU writeTimestamp, timestampWrites, GPURenderPassDescriptor.occlusionQuerySet (query set type)";
    OcclusionNoSet: InvalidState, "occlusion.no-set", "begin_occlusion_query needs a render pass that names an occlusion query set.", "WebGPU beginOcclusionQuery (occlusionQuerySet is not null)";
    OcclusionActive: InvalidState, "occlusion.active", "One occlusion query is active at a time, and none is when its pass ends.", "WebGPU beginOcclusionQuery, end() (occlusion query active)";
    OcclusionNotActive: InvalidState, "occlusion.not-active", "end_occlusion_query ends an active occlusion query.", "WebGPU endOcclusionQuery";
    OcclusionReused: InvalidState, "occlusion.reused", "A render pass begins each occlusion query at most once.", "WebGPU beginOcclusionQuery (query already used in the pass)";
    OcclusionMultiview: Unsupported, "occlusion.multiview", "A multiview render pass counts no occlusion queries (each would take one query per view).", "vigil; Vulkan VUID-vkCmdBeginQuery-query-00808";
    StatisticsFeature: Unsupported, "pipeline-statistics.feature", "Pipeline-statistics query sets need the PIPELINE_STATISTICS_QUERY feature.", "wgpu PIPELINE_STATISTICS_QUERY; Vulkan VUID-VkQueryPoolCreateInfo-queryType-00791 (pipelineStatisticsQuery)";
    StatisticsTypes: InvalidDescriptor, "pipeline-statistics.types", "A pipeline-statistics query set counts at least one statistic.", "wgpu create_query_set (PipelineStatistics); Vulkan VkQueryPoolCreateInfo (pipelineStatistics)";
    StatisticsActive: InvalidState, "pipeline-statistics.active", "One pipeline-statistics query is active at a time, and none is when its pass ends.", "wgpu begin_pipeline_statistics_query (no nesting), end of pass; Vulkan VUID-vkCmdBeginQuery-queryPool-01922 (and a query begun in a render pass ends in it)";
    StatisticsNotActive: InvalidState, "pipeline-statistics.not-active", "end_pipeline_statistics_query ends an active pipeline-statistics query.", "wgpu end_pipeline_statistics_query";
    StatisticsReused: InvalidState, "pipeline-statistics.reused", "A pass begins each pipeline-statistics query at most once.", "vigil (Vulkan resets a query between uses only outside render passes); Vulkan VUID-vkCmdBeginQuery-None-00807";
    StatisticsMultiview: Unsupported, "pipeline-statistics.multiview", "A multiview render pass counts no pipeline statistics (each query would take one query per view).", "vigil; Vulkan VUID-vkCmdBeginQuery-query-00808";

    // Bind group layouts.
    LayoutBindingDuplicate: InvalidDescriptor, "layout.binding-duplicate", "Binding numbers in a layout are unique.", "WebGPU createBindGroupLayout";
    LayoutBindingLimit: LimitExceeded, "layout.binding-limit", "Binding numbers are below max_bindings_per_bind_group.", "WebGPU maxBindingsPerBindGroup";
    LayoutVertexWritable: InvalidDescriptor, "layout.vertex-writable", "The vertex stage sees no writable storage.", "WebGPU createBindGroupLayout: vertex visibility";
    LayoutMeshVisibility: InvalidDescriptor, "layout.mesh-visibility", "Bind group layouts are seen by vertex, fragment and compute stages; task and mesh shaders reach memory through pointers and textures through heaps.", "vigil: the pointer tier's binding model for task and mesh shaders";
    LayoutMultisampled: InvalidDescriptor, "layout.multisampled", "A multisampled texture binding is 2d with a non-filterable sample type.", "WebGPU createBindGroupLayout: multisampled";
    LayoutStorageReadWrite: Unsupported, "layout.storage-read-write", "Read-write storage textures need the STORAGE_TEXTURE_READ_WRITE feature.", "WebGPU readonly_and_readwrite_storage_textures";
    LayoutStorageFormat: Unsupported, "layout.storage-format", "A storage texture binding's format supports storage on the device.", "WebGPU storage texture formats";
    LayoutStorageAccess: InvalidDescriptor, "layout.storage-access", "A Bgra8Unorm storage texture binding is write-only.", "WebGPU bgra8unorm-storage";
    LayoutStorageAtomic: Unsupported, "layout.storage-atomic", "An atomic storage texture binding needs the TEXTURE_ATOMIC feature and an r32uint or r32sint format.", "wgpu StorageTextureAccess::Atomic (TEXTURE_ATOMIC)";
    LayoutStorageCube: InvalidDescriptor, "layout.storage-cube", "Storage textures are not cube views.", "WebGPU createBindGroupLayout: storageTexture";
    LayoutStageLimit: LimitExceeded, "layout.stage-limit", "Each stage sees at most the per-stage limit of each binding kind; bindings no stage sees are held to the same limit.", "WebGPU maxSampledTexturesPerShaderStage and siblings";
    LayoutDynamicLimit: LimitExceeded, "layout.dynamic-limit", "Dynamic uniform and storage buffers stay within their per-layout limits, and a group has at most 16 dynamic offsets.", "WebGPU maxDynamic*BuffersPerPipelineLayout; vigil's per-pass table";
    LayoutArrayFeature: Unsupported, "layout.array-feature", "A binding array of sampled textures or samplers needs TEXTURE_BINDING_ARRAY, of uniform buffers BUFFER_BINDING_ARRAY, of storage buffers or storage textures STORAGE_RESOURCE_BINDING_ARRAY (enabled on the device).", "Vulkan shader*ArrayDynamicIndexing; wgpu binding arrays";
    LayoutArrayFlagFeature: Unsupported, "layout.array-flag-feature", "A partially bound array needs PARTIALLY_BOUND_BINDING_ARRAY, a variable-count one VARIABLE_COUNT_BINDING_ARRAY, an update-after-bind one the UPDATE_AFTER_BIND_* feature of its kind (enabled on the device).", "Vulkan VkDescriptorSetLayoutBindingFlagsCreateInfo";
    LayoutArrayDynamic: InvalidDescriptor, "layout.array-dynamic", "A binding array has no dynamic offsets, and a layout with an update-after-bind binding has no dynamic-offset bindings at all.", "vigil; Vulkan VUID-VkDescriptorSetLayoutCreateInfo-descriptorType-03001";
    LayoutArrayVariableLast: InvalidDescriptor, "layout.array-variable-last", "Only the layout's highest-numbered binding may be variable-count.", "Vulkan VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-pBindingFlags-03004";

    // Bind groups.
    GroupEntryDuplicate: InvalidDescriptor, "group.entry-duplicate", "A binding has one entry.", "WebGPU createBindGroup";
    GroupEntryUnknown: InvalidDescriptor, "group.entry-unknown", "Every entry names a binding of the layout.", "WebGPU createBindGroup";
    GroupEntryMissing: InvalidDescriptor, "group.entry-missing", "Every binding of the layout has an entry.", "WebGPU createBindGroup";
    GroupEntryKind: InvalidDescriptor, "group.entry-kind", "An entry gives the kind of resource its binding holds.", "WebGPU createBindGroup";
    GroupBufferUsage: UsageMismatch, "group.buffer-usage", "A uniform binding's buffer has UNIFORM usage, a storage binding's STORAGE.", "WebGPU createBindGroup";
    GroupBufferAlignment: OutOfBounds, "group.buffer-alignment", "A buffer binding's offset is a multiple of the device's offset alignment for its kind.", "WebGPU minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment";
    GroupBufferRange: OutOfBounds, "group.buffer-range", "A buffer binding is a non-empty range inside its buffer, of a multiple of 4 bytes for storage, and at least the layout's min_binding_size.", "WebGPU createBindGroup";
    GroupBufferLimit: LimitExceeded, "group.buffer-limit", "A buffer binding is within max_uniform_buffer_binding_size or max_storage_buffer_binding_size.", "WebGPU maxUniformBufferBindingSize, maxStorageBufferBindingSize";
    GroupSamplerKind: InvalidDescriptor, "group.sampler-kind", "A sampler binding's sampler is of the layout's kind (filtering, non-filtering, comparison).", "WebGPU createBindGroup: sampler";
    GroupViewUsage: UsageMismatch, "group.view-usage", "A sampled view has TEXTURE_BINDING usage, a storage view STORAGE_BINDING.", "WebGPU createBindGroup";
    GroupViewDimension: InvalidDescriptor, "group.view-dimension", "A view's dimension is the layout's.", "WebGPU createBindGroup: viewDimension";
    GroupViewMultisampled: InvalidDescriptor, "group.view-multisampled", "A view is multisampled exactly when its binding is.", "WebGPU createBindGroup: multisampled";
    GroupViewSampleType: InvalidDescriptor, "group.view-sample-type", "A sampled view's format gives the layout's sample type.", "WebGPU createBindGroup: sampleType";
    GroupViewAspect: InvalidDescriptor, "group.view-aspect", "A sampled view of a format with depth and stencil names one of them (DepthOnly or StencilOnly), not both.", "WebGPU createBindGroup: a texture binding's view has one aspect; Vulkan VUID-VkDescriptorImageInfo-imageView-01976";
    GroupStorageFormat: InvalidDescriptor, "group.storage-format", "A storage view's format is the layout's.", "WebGPU createBindGroup: storageTexture format";
    GroupStorageMips: InvalidDescriptor, "group.storage-mips", "A storage view covers exactly one mip level.", "WebGPU createBindGroup: storage texture views";
    GroupArrayLength: OutOfBounds, "group.array-length", "A binding array gets exactly its count of elements, fewer only when it is partially bound or variable-count; a write's elements lie inside the group's length of the binding.", "Vulkan descriptorCount; vigil";
    GroupWriteInUse: InvalidState, "group.write-in-use", "A bind group is written only while no open encoder has recorded it and no unfinished submission uses it.", "Vulkan vkUpdateDescriptorSets: sets in use; vigil";
    GroupUntracked: InvalidState, "group.untracked", "An untracked bind group is never written after creation and never imported by a render graph.", "vigil";
    GroupMemberDestroyed: InvalidState, "group.member-destroyed", "A bind group is inspected or imported into a render graph only while everything it binds is alive.", "vigil";
    GroupPoolReset: InvalidHandle, "group.pool-reset", "A bind group made in a pool is stale once the pool is reset or destroyed.", "vigil; reference descriptor-pool generations";

    // Pipeline layouts, shaders, pipelines.
    PipelineCacheData: InvalidDescriptor, "pipeline-cache.data", "Pipeline-cache data given back is what pipeline_cache_data wrote on a device and driver of the same identity, whole and unchanged (or the descriptor asks for an empty cache in its place).", "vigil (drivers check only their header); wgpu PipelineCacheDescriptor (fallback); Vulkan VkPipelineCacheCreateInfo (pInitialData)";
    PipelineLayoutGroups: LimitExceeded, "pipeline-layout.groups", "A pipeline layout has at most max_bind_groups group layouts.", "WebGPU createPipelineLayout: maxBindGroups";
    ImmediateSizeLimit: LimitExceeded, "pipeline-layout.immediate-size-limit", "A layout's immediate size is within max_immediate_size.", "WebGPU immediates: maxImmediateSize; Vulkan maxPushConstantsSize";
    ImmediateSizeAlign: InvalidDescriptor, "pipeline-layout.immediate-size-align", "A layout's immediate size is a multiple of 4.", "WebGPU immediates; Vulkan VUID-VkPushConstantRange-size-00369";
    PipelineLayoutDynamic: LimitExceeded, "pipeline-layout.dynamic", "A pipeline layout's dynamic buffers stay within the per-layout limits.", "WebGPU maxDynamic*BuffersPerPipelineLayout";
    ShaderCompile: InvalidDescriptor, "shader.compile", "WGSL parses and validates for the device's capabilities.", "WebGPU createShaderModule";
    ShaderFeature: Unsupported, "shader.feature", "A shader uses only the capabilities the device's enabled features grant (f16 needs SHADER_F16, f64 SHADER_F64, subgroup operations SUBGROUP, ...), and its translation declares no other.", "WebGPU createShaderModule: enable directives and features; Vulkan SPIR-V environment capabilities";
    ShaderTranslate: InvalidDescriptor, "shader.translate", "A validated module translates to the backend's code.", "vigil";
    ShaderForm: Unsupported, "shader.form", "The backend consumes the form vigil translates to (MSL modules are made per pipeline).", "vigil";
    EntryPointMissing: InvalidDescriptor, "pipeline.entry-point", "A pipeline's entry point exists in its module and is of its stage.", "WebGPU GPUProgrammableStage";
    ShaderBindingUnsupported: Unsupported, "pipeline.binding-unsupported", "Every resource a shader uses is of a kind vigil binds.", "vigil";
    ShaderBindingLayout: InvalidDescriptor, "pipeline.binding-layout", "Every resource a shader uses is in the pipeline layout, visible to the stage, of a matching type, with a large enough min_binding_size.", "WebGPU validating shader binding";
    ShaderImmediates: InvalidDescriptor, "pipeline.immediate-size", "The immediate data a shader declares fits its pipeline layout's immediate_size.", "WebGPU immediates; Vulkan VUID-VkComputePipelineCreateInfo-layout-07987";
    OverrideUnknown: InvalidDescriptor, "pipeline.override-unknown", "A stage's constants name only overrides its module declares (by @id where it has one, else by name), each once.", "WebGPU GPUProgrammableStage constants";
    OverrideMissing: InvalidDescriptor, "pipeline.override-missing", "Every override without a default is given a value.", "WebGPU GPUProgrammableStage constants";
    OverrideValue: InvalidDescriptor, "pipeline.override-value", "Each constant's value is one its override's type can hold (finite, in range, whole for integers).", "WebGPU GPUProgrammableStage constants";
    WorkgroupLimit: LimitExceeded, "pipeline.workgroup-limit", "A workgroup's size, invocations and workgroup memory are within the limits.", "WebGPU maxComputeWorkgroupSize*, maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupStorageSize";
    RenderSampleCount: InvalidDescriptor, "render-pipeline.sample-count", "A render pipeline samples 1 or 4 times.", "WebGPU multisample.count";
    StripIndexFormatTopology: InvalidDescriptor, "pipeline.strip-index-format", "Only a strip topology names a strip index format.", "WebGPU GPUPrimitiveState";
    VertexBufferLimit: LimitExceeded, "render-pipeline.vertex-buffer-limit", "Vertex buffers, strides and attribute locations are within the limits.", "WebGPU maxVertexBuffers, maxVertexBufferArrayStride, maxVertexAttributes";
    VertexLayout: InvalidDescriptor, "render-pipeline.vertex-layout", "A stride is a multiple of 4, and each attribute lies inside the stride, aligned, at a location no other attribute gives.", "WebGPU GPUVertexBufferLayout";
    VertexInput: InvalidDescriptor, "render-pipeline.vertex-input", "Every input the vertex shader reads is given by an attribute of a matching scalar type.", "WebGPU validating vertex state";
    DualSourceFeature: Unsupported, "render-pipeline.dual-source-feature", "The Src1 blend factors need the DUAL_SOURCE_BLENDING feature.", "WebGPU dual-source-blending; Vulkan dualSrcBlend";
    DualSource: InvalidDescriptor, "render-pipeline.dual-source", "A pipeline blending with Src1 factors has one color target, and its fragment shader writes @location(0) @blend_src(1).", "WebGPU dual-source-blending; Vulkan maxFragmentDualSrcAttachments";
    MultiviewFeature: Unsupported, "multiview.feature", "Multiview render passes and pipelines need the MULTIVIEW feature.", "WebGPU multiview proposal; Vulkan multiview";
    MultiviewLimit: LimitExceeded, "multiview.limit", "A multiview mask names only views below max_multiview_view_count.", "Vulkan maxMultiviewViewCount, VUID-VkRenderingInfo-viewMask-06128";
    ColorTargetLimit: LimitExceeded, "render-pipeline.color-target-limit", "A pipeline has at most max_color_attachments targets.", "WebGPU maxColorAttachments";
    ColorTargetFormat: InvalidDescriptor, "render-pipeline.color-target-format", "A color target's format is a color format, blended only if blendable.", "WebGPU GPUColorTargetState";
    ColorTargetSupport: Unsupported, "render-pipeline.color-target-support", "A color target's format can be rendered to, and multisampled when the pipeline is, on the device.", "WebGPU format capabilities";
    DepthStencilFormat: InvalidDescriptor, "render-pipeline.depth-stencil-format", "A depth-stencil state's format is a depth or stencil format, with a stencil aspect when stencil is used and a depth aspect when depth is tested or written.", "WebGPU GPUDepthStencilState";
    DepthBiasFinite: InvalidDescriptor, "render-pipeline.depth-bias-finite", "A depth bias's slope scale and clamp are finite.", "WebGPU GPUDepthStencilState (depthBiasSlopeScale, depthBiasClamp: float, not unrestricted)";
    DepthBiasTopology: InvalidDescriptor, "render-pipeline.depth-bias-topology", "A pipeline that draws points or lines has no depth bias (constant, slope scale and clamp all 0).", "WebGPU GPUDepthStencilState validation (depthBias with a point or line topology)";
    DepthStencilSupport: Unsupported, "render-pipeline.depth-stencil-support", "A depth-stencil format can be a depth-stencil attachment on the device.", "WebGPU format capabilities";
    PolygonModeFeature: Unsupported, "render-pipeline.polygon-mode-feature", "A pipeline draws triangles as lines only with the POLYGON_MODE_LINE feature, and as points only with POLYGON_MODE_POINT.", "wgpu POLYGON_MODE_LINE, POLYGON_MODE_POINT; Vulkan fillModeNonSolid";
    UnclippedDepthFeature: Unsupported, "render-pipeline.unclipped-depth-feature", "A pipeline with unclipped depth needs the DEPTH_CLIP_CONTROL feature.", "WebGPU depth-clip-control (unclippedDepth); Vulkan depthClamp";
    AlphaToCoverage: InvalidDescriptor, "render-pipeline.alpha-to-coverage", "A pipeline with alpha to coverage is multisampled, and its fragment shader writes a four-component @location(0) output into a color target 0 that has alpha.", "WebGPU GPUMultisampleState validation (alphaToCoverageEnabled)";
    FragmentOutput: InvalidDescriptor, "render-pipeline.fragment-output", "Every written color target has a fragment output of a matching scalar type.", "WebGPU validating fragment state";

    // Acceleration structures.
    AccelFeature: Unsupported, "accel.feature", "Acceleration structures, their builds, BLAS_INPUT buffers and acceleration_structure bindings need the ACCELERATION_STRUCTURE feature (which RAY_QUERY brings).", "wgpu EXPERIMENTAL_RAY_QUERY; Vulkan VK_KHR_acceleration_structure";
    BlasDescriptor: InvalidDescriptor, "blas.descriptor", "A bottom-level structure has 1 to 16,777,216 triangle geometries, each of Float32x3 positions, 1 to 2^29 triangles and at least one vertex (three per triangle when unindexed).", "Vulkan maxGeometryCount, maxPrimitiveCount (their guaranteed minimums); wgpu createBlas";
    TlasDescriptor: InvalidDescriptor, "tlas.descriptor", "A top-level structure holds 1 to 16,777,216 instances.", "Vulkan maxInstanceCount (its guaranteed minimum)";
    BlasBuildGeometry: InvalidDescriptor, "blas.build-geometry", "A bottom-level build gives one geometry per geometry the structure was made with, each indexed exactly when it was made indexed, with at most its vertices and triangles (three vertices per triangle when unindexed).", "Vulkan VUID-vkCmdBuildAccelerationStructuresKHR-pInfos-03758 and siblings; wgpu BlasBuildEntry";
    BlasInputUsage: UsageMismatch, "blas.input-usage", "The vertex and index buffers of a build have BLAS_INPUT usage.", "wgpu BufferUsages::BLAS_INPUT; Vulkan VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR";
    BlasInputRange: OutOfBounds, "blas.input-range", "The vertices and indices a build reads lie inside their buffers; the stride is at least 12 and, like the first vertex's offset, a multiple of 4; the first index's offset is a multiple of the index size.", "Vulkan VUID-VkAccelerationStructureGeometryTrianglesDataKHR-vertexStride-03735, VUID-vkCmdBuildAccelerationStructuresKHR-pInfos-03711";
    TlasBuildInstances: InvalidDescriptor, "tlas.build-instances", "A top-level build gives at most the structure's instance count, each with a custom index below 2^24 and a finite transform, naming a live bottom-level structure of the same device.", "Vulkan VkAccelerationStructureInstanceKHR; wgpu TlasInstance";
    AccelBuildDuplicate: InvalidDescriptor, "accel.build-duplicate", "One build call builds each structure at most once.", "Vulkan VUID-vkCmdBuildAccelerationStructuresKHR-dstAccelerationStructure-03698";
    AccelUnbuilt: InvalidState, "accel.unbuilt", "A structure is built before it is used: the bottom-level structures a top-level build names, and a top-level structure a bound group holds, are built earlier in the same command buffer or by an earlier submission.", "wgpu: acceleration structures built before use; Vulkan: traversal of an unbuilt structure is undefined";

    // The GPU-pointer tier.
    GpuFeature: Unsupported, "gpu.feature", "GPU heaps, pointer pipelines and roots need the BUFFER_DEVICE_ADDRESS feature.", "Vulkan bufferDeviceAddress; the reference's GPU-pointer model";
    GpuHeapDescriptor: InvalidDescriptor, "gpu.heap-descriptor", "A GPU heap holds 1 byte to max_buffer_size, a multiple of 4 bytes; ordinary buffers never have DEVICE_ADDRESS usage (heaps do).", "vigil";
    GpuPointer: OutOfBounds, "gpu.pointer", "A pointer the CPU hands the GPU (a heap pointer, a root) lies in a live heap of this device, with room for what it points at, aligned to it.", "vigil; Vulkan VUID-vkGetBufferDeviceAddress (addresses of live buffers only)";
    GpuHeapShare: DeviceMismatch, "gpu.heap-share", "A GPU heap is shared only with another device over the same native device (its addresses are that device's).", "vigil; Vulkan buffer device addresses (per VkDevice)";
    GpuHeapAccess: UsageMismatch, "gpu.heap-access", "The CPU writes only CPU-visible heaps and reads only CPU-visible and readback heaps, inside them.", "vigil; the reference's heap kinds";
    GpuShader: InvalidDescriptor, "gpu.shader", "A pointer-tier module compiles (glslc), its SPIR-V validates for Vulkan 1.3 (spirv-val), and it uses only capabilities the device enables.", "vigil; Vulkan SPIR-V environment";
    GpuBarrier: InvalidState, "gpu.barrier", "A memory barrier names source and destination stages (the host is not a source) and is recorded outside render passes.", "Vulkan vkCmdPipelineBarrier2 inside render passes; the reference's stage/access barriers";
    GpuHeapFeature: Unsupported, "gpu.heap-feature", "Texture and sampler heaps, and tier shaders that index them, need the DESCRIPTOR_HEAPS feature.", "Vulkan descriptor indexing (update-after-bind, partially bound, variable count, update unused while pending); the reference's descriptor heaps";
    GpuHeapSlots: OutOfBounds, "gpu.heap-slots", "A texture heap holds 1 to TEXTURE_HEAP_SLOTS slots and a sampler heap 1 to SAMPLER_HEAP_SLOTS; writes and copies name slots inside their heaps.", "vigil; the reference's application-chosen descriptor indices";
    GpuHeapEntry: UsageMismatch, "gpu.heap-entry", "A texture heap slot holds a live 2D view of this device with TEXTURE_BINDING usage, one sample and a color format the device can filter (heap samplers may be linear), of a texture that is neither a surface frame, nor shared between devices, nor aliasable.", "Vulkan VUID-VkWriteDescriptorSet-descriptorType-00337 (sampled usage); GLSL texture2D heap declarations";
    GpuHeapUnset: InvalidState, "gpu.heap-unset", "A pointer pipeline whose shaders index the texture (or sampler) heap draws or dispatches only after set_texture_heap (set_sampler_heap) in its pass.", "Vulkan VUID-vkCmdDraw-None-08600 (bound descriptor sets)";
    GpuHeapResident: InvalidState, "gpu.heap-resident", "While a view of a texture sits in a texture heap, the texture stays in the layout heap shaders sample it in: no copy into or out of it, no attachment use, no clear (take it out of the heap first); and a command buffer that reads the texture heap does not write a texture that entered a heap after its first heap read.", "vigil; Vulkan VUID-vkCmdDraw-None-09600 (descriptor image layouts), synchronization of descriptors read when the work runs (update-after-bind)";
    MeshFeature: Unsupported, "mesh.feature", "Mesh pipelines and mesh draws need the MESH_SHADER feature.", "Vulkan VK_EXT_mesh_shader (taskShader, meshShader)";
    MeshPipeline: InvalidState, "mesh.pipeline", "Mesh draws draw mesh pipelines, and ordinary draws draw every other render pipeline.", "Vulkan VUID-vkCmdDrawMeshTasksEXT-stage-06480, VUID-vkCmdDraw-stage-06481";
    MeshGroupCount: OutOfBounds, "mesh.group-count", "A mesh draw launches at most the device's task (or, without a task shader, mesh) workgroups per dimension and in all.", "Vulkan VUID-vkCmdDrawMeshTasksEXT-TaskEXT-07322..07325, -07326..07329";
    PlacementHeapSize: InvalidDescriptor, "placement.heap-size", "A placement heap holds 1 byte to 2^40 bytes.", "Vulkan VUID-VkMemoryAllocateInfo-allocationSize-07897 (non-zero), maxMemoryAllocationSize";
    PlacementRange: OutOfBounds, "placement.range", "A placed texture's offset is a multiple of the alignment texture_placement reports, and its size fits in its heap after it.", "Vulkan VUID-vkBindImageMemory-memoryOffset-01048, -size-01049";
    PlacementMemoryType: Unsupported, "placement.memory-type", "A texture is placed only in a heap whose memory type its image can be bound to (the driver says which per texture).", "Vulkan VUID-vkBindImageMemory-memory-01047";
    PlacementOverlap: InvalidState, "placement.overlap", "A placed texture shares no byte of its heap with another placed texture that is alive or still used by work in flight, unless both are aliasable.", "vigil; Vulkan memory aliasing (resources sharing memory must not be used at once)";
    PlacementNotAliasable: InvalidState, "placement.not-aliasable", "Only an aliasable placed texture is activated, and an aliasable texture is not exported to another device.", "the reference's TextureDesc::aliasable and activate_texture_alias";
    PlacementInactiveAlias: InvalidState, "placement.inactive-alias", "An aliasable texture is used only while it is the active one of the textures sharing its memory: after activate_texture_alias, and until an overlapping alias is activated (in a command buffer, at submission, and for queue writes and reads); a command buffer uses one of the aliases sharing bytes between activations.", "Vulkan memory aliasing (an alias's contents are undefined after another alias is written); the reference's activation barrier";
    GpuRoot: InvalidState, "gpu.root", "A root is set in a pass whose pipeline takes one (a pointer pipeline), before the dispatch that reads it.", "vigil; the reference's root ABI";

    // Encoders and passes.
    // Textures shared between devices over one native device.
    TextureExportForeign: DeviceMismatch, "texture.export-foreign", "An exported texture is registered by another device over the same native device (not by its own, not by a device over another).", "the reference's registerTexture";

    // Surfaces.
    SurfaceUnsupported: Unsupported, "surface.unsupported", "A surface is made for a window the device can present to (X11 through Xlib or XCB, or Wayland), or over no window where the driver has headless surfaces, on a device with VK_KHR_swapchain.", "Vulkan VK_KHR_surface, VK_KHR_swapchain, VK_EXT_headless_surface";
    SurfaceConfiguration: InvalidDescriptor, "surface.configuration", "A surface is configured with a format, present mode and alpha mode its capabilities list, an extent within their bounds (and not zero), and frame usages they allow.", "WebGPU GPUCanvasContext.configure; Vulkan VUID-VkSwapchainCreateInfoKHR-imageExtent-01274";
    SurfaceNotConfigured: InvalidState, "surface.not-configured", "A surface is configured before a frame is acquired.", "WebGPU getCurrentTexture";
    SurfaceFrameOutstanding: InvalidState, "surface.frame-outstanding", "A surface hands out one frame at a time: the next acquire (or a reconfiguration) waits, within the stall bound, for the frame out to be presented or abandoned, then gives up.", "vigil; the reference's drawable stall";
    SurfaceNoFrame: InvalidState, "surface.no-frame", "A frame is presented or abandoned once, after it was acquired.", "WebGPU present";
    SurfaceFrameTexture: UsageMismatch, "surface.frame-texture", "A surface's frame is rendered to or copied, never bound in a group or destroyed directly (present or abandon it).", "vigil; the reference: a bind group cannot keep a swapchain image alive";

    EncoderPoisoned: InvalidState, "encoder.poisoned", "An encoder refuses every call after its first refused call; finish reports that first error.", "WebGPU invalid encoder";
    EncoderFinished: InvalidState, "encoder.finished", "An encoder is finished once.", "WebGPU finish";
    PassOpen: InvalidState, "encoder.pass-open", "Passes do not nest, copies happen outside passes, and an encoder is finished with no pass open.", "WebGPU encoder state";
    PassNotOpen: InvalidState, "encoder.pass-not-open", "Pass commands come inside a pass of their kind.", "WebGPU encoder state";
    DebugGroupEmpty: InvalidState, "encoder.debug-group-empty", "pop_debug_group closes a debug group that is open: one the encoder opened, inside a pass one the pass opened, in a render bundle one the bundle opened.", "WebGPU popDebugGroup (the debug group stack is not empty)";
    DebugGroupOpen: InvalidState, "encoder.debug-group-open", "A debug group is closed where it was opened: a pass's before the pass ends, a render bundle's before it finishes, an encoder's before it finishes.", "WebGPU end(), finish() (the debug group stack is empty)";
    BindGroupIndex: OutOfBounds, "encoder.bind-group-index", "A bind group index is below max_bind_groups (and vigil's 8).", "WebGPU setBindGroup: maxBindGroups";
    DynamicOffsetCount: InvalidDescriptor, "encoder.dynamic-offset-count", "A bind group gets one dynamic offset per dynamic binding.", "WebGPU setBindGroup";
    DynamicOffsetAlignment: OutOfBounds, "encoder.dynamic-offset-alignment", "Dynamic offsets are multiples of their binding kind's alignment.", "WebGPU setBindGroup";
    DynamicOffsetRange: OutOfBounds, "encoder.dynamic-offset-range", "A dynamic offset keeps its binding inside the buffer.", "WebGPU setBindGroup";
    ImmediatesRange: OutOfBounds, "encoder.immediates-range", "Immediate data is set at a multiple of 4 bytes, a multiple of 4 bytes long, within max_immediate_size.", "WebGPU immediates: setImmediates; Vulkan VUID-vkCmdPushConstants-offset-00368";
    DispatchLimit: LimitExceeded, "encoder.dispatch-limit", "A dispatch's workgroup counts are within max_compute_workgroups_per_dimension.", "WebGPU dispatchWorkgroups";
    PipelineNotSet: InvalidState, "encoder.pipeline-not-set", "A draw or dispatch has a pipeline set.", "WebGPU validate encoder bind groups";
    GroupNotSet: InvalidState, "encoder.group-not-set", "Every group the pipeline uses is set, with a layout matching the pipeline's.", "WebGPU validate encoder bind groups";
    GroupTooSmall: OutOfBounds, "encoder.group-too-small", "A buffer binding is at least as large as the pipeline's shader needs.", "WebGPU minimum buffer binding size";
    IndirectUsage: UsageMismatch, "encoder.indirect-usage", "Indirect arguments come from an INDIRECT buffer.", "WebGPU drawIndirect, dispatchWorkgroupsIndirect";
    TransitionStages: InvalidDescriptor, "encoder.transition-stages", "A transition names at least one pipeline stage (not HOST or ALL_COMMANDS, no host access), and every access it names belongs to one of its stages: indirect reads to DRAW_INDIRECT, index and vertex reads to VERTEX_INPUT, uniform and shader accesses to a shader stage, color to COLOR_ATTACHMENT, depth-stencil to DEPTH_STENCIL, transfer to TRANSFER.", "Vulkan VUID-VkMemoryBarrier2-dstAccessMask-03900 to -03918";
    TransitionConflict: UsageMismatch, "encoder.transition-conflict", "One transition call does not prepare a buffer, or overlapping subresources of a texture, for a write and for another use (the barriers of one batch are not ordered with each other).", "vigil; Vulkan: barriers of one vkCmdPipelineBarrier2 are unordered";
    TransitionLayout: UsageMismatch, "encoder.transition-layout", "A texture is transitioned to a layout its usage and format allow: shader read-only needs TEXTURE_BINDING, attachments RENDER_ATTACHMENT and a color (or depth) format, transfer layouts COPY_SRC (or COPY_DST); never to undefined or present.", "Vulkan VUID-VkImageMemoryBarrier2-oldLayout-01208 to -01213";
    IndirectAlignment: OutOfBounds, "encoder.indirect-alignment", "Indirect arguments start at a multiple of 4.", "WebGPU drawIndirect";

    // Render passes and draws.
    PassAttachmentNone: InvalidDescriptor, "render-pass.no-attachment", "A render pass has at least one attachment.", "WebGPU beginRenderPass";
    PassAttachmentLimit: LimitExceeded, "render-pass.attachment-limit", "A render pass has at most max_color_attachments color attachments.", "WebGPU maxColorAttachments";
    AttachmentUsage: UsageMismatch, "render-pass.attachment-usage", "An attachment's view has RENDER_ATTACHMENT usage.", "WebGPU beginRenderPass";
    AttachmentView: InvalidDescriptor, "render-pass.attachment-view", "An attachment is a 2d view of one mip level and layer (a color attachment may be a 3d view of one mip level), of a color format for color and a depth format for depth, its texture used once in the pass (a volume's different slices apart).", "WebGPU GPURenderPassColorAttachment, GPURenderPassDepthStencilAttachment";
    AttachmentDepthSlice: InvalidDescriptor, "render-pass.depth-slice", "A color attachment of a 3d view names the depth slice it renders, inside its mip level; an attachment of any other view names none.", "WebGPU GPURenderPassColorAttachment depthSlice";
    AttachmentExtent: InvalidDescriptor, "render-pass.attachment-extent", "A pass's attachments share one size and sample count.", "WebGPU beginRenderPass";
    AspectOps: InvalidDescriptor, "render-pass.aspect-ops", "A depth-stencil attachment gives depth operations only for a format with depth and stencil operations only for one with stencil (`None` on an aspect the format has makes it read-only in the pass).", "WebGPU GPURenderPassDepthStencilAttachment";
    ResolveTarget: InvalidDescriptor, "render-pass.resolve-target", "A resolve target belongs to a multisampled attachment and is a single-sampled view of its format.", "WebGPU resolveTarget";
    PipelineTargets: InvalidState, "render-pass.pipeline-targets", "A render pipeline's targets, depth format and sample count are the pass's.", "WebGPU setPipeline in a render pass";
    DepthReadOnly: InvalidState, "render-pass.depth-read-only", "A pipeline that writes depth (depth_write_enabled) is not set in a pass or bundle whose depth is read-only.", "WebGPU setPipeline (writesDepth, depthReadOnly); Vulkan VUID-vkCmdDraw-None-06886";
    StencilReadOnly: InvalidState, "render-pass.stencil-read-only", "A pipeline that may write stencil (a nonzero write mask and an operation other than Keep) is not set in a pass or bundle whose stencil is read-only.", "WebGPU setPipeline (writesStencil, stencilReadOnly); Vulkan VUID-vkCmdDraw-None-06887";
    VertexSlot: OutOfBounds, "render-pass.vertex-slot", "A vertex buffer slot is below max_vertex_buffers (and vigil's 16).", "WebGPU setVertexBuffer";
    VertexBufferUsage: UsageMismatch, "render-pass.vertex-buffer-usage", "A vertex buffer has VERTEX usage.", "WebGPU setVertexBuffer";
    VertexBufferRange: OutOfBounds, "render-pass.vertex-buffer-range", "A vertex buffer binding starts inside its buffer at a multiple of 4.", "WebGPU setVertexBuffer; Vulkan VUID-vkCmdBindVertexBuffers-pOffsets-00626";
    StripIndexFormat: InvalidState, "render-pass.strip-index-format", "An indexed draw with a pipeline that names a strip index format has an index buffer of that format.", "WebGPU drawIndexed (stripIndexFormat)";
    IndexBufferUsage: UsageMismatch, "render-pass.index-buffer-usage", "An index buffer has INDEX usage.", "WebGPU setIndexBuffer";
    IndexBufferRange: OutOfBounds, "render-pass.index-buffer-range", "An index buffer binding starts inside its buffer at a multiple of the index size.", "WebGPU setIndexBuffer; Vulkan VUID-vkCmdBindIndexBuffer-offset-00431";
    ViewportRange: OutOfBounds, "render-pass.viewport", "A viewport is finite with a positive size within twice the largest texture side, its depth range inside 0..1 in order.", "WebGPU setViewport";
    ScissorRange: OutOfBounds, "render-pass.scissor", "A scissor rectangle lies inside the attachments.", "WebGPU setScissorRect";
    IndexBufferNotSet: InvalidState, "render-pass.index-buffer-not-set", "An indexed draw has an index buffer set.", "WebGPU drawIndexed";
    IndexRange: OutOfBounds, "render-pass.index-range", "An indexed draw's indices lie inside the bound index range.", "WebGPU drawIndexed";
    VertexBufferNotSet: InvalidState, "render-pass.vertex-buffer-not-set", "Every vertex buffer slot the pipeline reads is set.", "WebGPU validate encoder draw";
    VertexRange: OutOfBounds, "render-pass.vertex-range", "A draw's vertices and instances lie inside their bound vertex buffers.", "WebGPU draw";
    RangeInverted: InvalidDescriptor, "render-pass.range-inverted", "A draw's ranges end at or after their start.", "vigil (the native call takes a count)";
    PassUsageConflict: UsageMismatch, "render-pass.usage-conflict", "A render pass does not write a resource it also uses another way.", "WebGPU usage scope validation";
    MultiDrawCount: LimitExceeded, "render-pass.multi-draw-count", "One multi-draw call (multi_draw_indirect, multi_draw_indexed_indirect and their _count forms) records at most MAX_MULTI_DRAW_COUNT (2^20) draws.", "vigil (a bound on what one call makes the runtime and the driver hold)";
    DrawCountFeature: Unsupported, "render-pass.draw-count-feature", "Draws whose count is read from a buffer (multi_draw_indirect_count, multi_draw_indexed_indirect_count) need the MULTI_DRAW_INDIRECT_COUNT feature.", "wgpu MULTI_DRAW_INDIRECT_COUNT; Vulkan VUID-vkCmdDrawIndirectCount-None-04445 (drawIndirectCount)";
    DrawCountCheckedMost: LimitExceeded, "render-pass.draw-count-checked-most", "A draw whose count is read from a buffer and whose arguments are checked on the GPU (every multi_draw_indexed_indirect_count; every counted draw on a device without INDIRECT_FIRST_INSTANCE) names at most 1,024 draws per call: each draw's arguments are checked in front of the pass into one scratch buffer of 1,024 slots.", "vigil (indexed indirect draws' indices checked against the bound index range, first instances where the device lacks the feature); Vulkan VUID-VkDrawIndexedIndirectCommand-robustBufferAccess2-08798, VUID-VkDrawIndirectCommand-firstInstance-00501";
    BundleTargets: InvalidState, "render-pass.bundle-targets", "A render bundle executes in a pass whose color formats, depth format, sample count and view mask are the bundle's.", "WebGPU executeBundles";
    BundleReadOnly: InvalidState, "render-pass.bundle-read-only", "A render bundle executes in a pass whose depth (or stencil) is read-only only if the bundle's is too.", "WebGPU executeBundles (depthReadOnly, stencilReadOnly)";

    // Render bundles.
    BundleAttachments: InvalidDescriptor, "render-bundle.attachments", "A render bundle names at least one attachment format, at most max_color_attachments color formats, each a color format the device renders to, and a depth-stencil format that is one.", "WebGPU createRenderBundleEncoder";
    BundleSampleCount: InvalidDescriptor, "render-bundle.sample-count", "A render bundle samples 1 or 4 times.", "WebGPU createRenderBundleEncoder (sampleCount)";
    BundlePipeline: InvalidState, "render-bundle.pipeline", "A render bundle records pipelines drawn from vertex and index buffers, bind groups and immediate data: no mesh pipelines and no GPU-pointer pipelines.", "vigil (a bundle records no mesh draws and no roots)";

    // Copies.
    CopySame: InvalidDescriptor, "copy.same-object", "A copy's source and destination are different objects.", "WebGPU copyBufferToBuffer, copyTextureToTexture";
    CopyUsage: UsageMismatch, "copy.usage", "A copy reads from COPY_SRC and writes to COPY_DST objects; a clear's buffer has COPY_DST.", "WebGPU copy commands";
    CopyAlignment: OutOfBounds, "copy.alignment", "Buffer copies and clears move multiples of 4 bytes from offsets that are multiples of 4; texel copies' buffer offsets are multiples of the texel block's size (and of 4) and bytes_per_row of 256.", "WebGPU copy alignment";
    CopyMultisampled: InvalidState, "copy.multisampled", "Multisampled textures are resolved, not copied.", "WebGPU copy commands: sampleCount 1";
    CopyAspect: InvalidDescriptor, "copy.aspect", "A copied aspect has a copyable layout.", "WebGPU depth and stencil copies";
    CopyBox: OutOfBounds, "copy.box", "A copy's texel box lies inside its mip level and layers (a 3D texture's slices at that level).", "WebGPU validating texture copy range";
    CopyLayout: OutOfBounds, "copy.layout", "A texel layout's rows are at least a row long, its images at least the copy's height, and its footprint inside the buffer (or any memory).", "WebGPU validating linear texture data";
    CopyFormat: InvalidDescriptor, "copy.format", "A texture-to-texture copy keeps the format.", "WebGPU copyTextureToTexture";
    CopyDimension: InvalidDescriptor, "copy.dimension", "A texture-to-texture copy joins textures of one dimension, or a 2D and a 3D texture (layers to slices).", "Vulkan VUID-vkCmdCopyImage-srcImage-07743";
    CopyBlock: OutOfBounds, "copy.block", "A compressed texture's copy box starts on a block corner and is whole blocks; between two compressed textures, it runs past the edge of both mip levels or of neither, by as much.", "WebGPU validating texture copy range (texel block); Vulkan VUID-VkImageCopy-extent (block-compressed edges)";
    ClearTextureAspect: InvalidDescriptor, "clear-texture.aspect", "A texture clear's aspect is one the texture's format has.", "wgpu clear_texture (MissingTextureAspect)";
    ClearTextureRange: OutOfBounds, "clear-texture.range", "A texture clear's mip levels and layers lie inside the texture (a 3D texture has one layer, its slices cleared together).", "wgpu clear_texture (InvalidTextureLevelRange, InvalidTextureLayerRange)";

    // Submission and waits.
    SubmitForeign: DeviceMismatch, "submit.foreign", "A command buffer is submitted to the device that recorded it.", "WebGPU submit";
    SubmitDestroyed: InvalidState, "submit.destroyed", "A command buffer is submitted only while everything it names is alive.", "WebGPU submit: destroyed resources";
    SubmitMapped: InvalidState, "submit.mapped", "Work that uses a mapped buffer is not submitted.", "WebGPU submit: buffer state unmapped";
    SubmitSize: LimitExceeded, "submit.size", "A submission has at most max_command_buffers_in_flight command buffers.", "vigil";
    WaitNeverSubmitted: InvalidState, "wait.never-submitted", "A wait is for a serial that was submitted.", "vigil";
    ObserverInstalled: InvalidState, "observer.installed", "One observer is installed at a time.", "vigil";
}

/// `docs/rules.md`, generated from the table.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# vigil's rules\n\n\
         Every refused call breaks one of these. `err.rule()` is the rule, `err.kind()` its \
         kind, and the message names the operation, the object's label and what was wrong. \
         Generated from `crates/vigil/src/rules.rs` by `cargo xtask rules`; CI checks it is \
         current.\n\n\
         | code | kind | rule | from |\n|---|---|---|---|\n",
    );
    for r in Rule::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            r.code(),
            r.kind().name(),
            r.summary().replace('|', "\\|"),
            r.source().replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_shaped() {
        let mut codes: Vec<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
        for c in &codes {
            assert!(
                c.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '.' || ch == '-'),
                "{c}"
            );
            assert!(c.contains('.'), "{c}");
        }
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n, "duplicate rule codes");
    }
}
