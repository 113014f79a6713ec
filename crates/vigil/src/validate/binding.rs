//! Bind group layouts, bind groups and pipeline layouts.

use super::{ensure, inside};
use crate::device::{BindGroupEntry, BindingResource, BufferBinding};
use crate::error::{Error, Result, fail};
use vigil_hal::{
    BindGroupLayoutEntry, BindingArrayFlags, BindingType, BufferBindingType, BufferUsages,
    Features, Limits, SamplerBindingType, ShaderStages, StorageTextureAccess, TextureAspect,
    TextureFormat, TextureSampleType, TextureUsages, TextureViewDimension,
};

/// Most dynamic offsets one bind group may have (the size of an encoder's offset table).
pub const MAX_DYNAMIC_OFFSETS: usize = 16;

/// A bind group layout's entries against the limits and the device's enabled features;
/// returns them sorted by binding. `storage_format_ok` says whether the device can store
/// to a format.
pub(crate) fn layout_entries(
    label: &str,
    entries: &[BindGroupLayoutEntry],
    limits: &Limits,
    features: Features,
    storage_format_ok: &dyn Fn(TextureFormat) -> bool,
) -> Result<Vec<BindGroupLayoutEntry>> {
    const OP: &str = "create_bind_group_layout";
    let storage_read_write = features.contains(Features::STORAGE_TEXTURE_READ_WRITE);
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| e.binding);
    for pair in sorted.windows(2) {
        ensure!(
            pair[0].binding != pair[1].binding,
            LayoutBindingDuplicate,
            OP,
            label,
            "binding {} appears twice",
            pair[0].binding
        );
    }
    // Per stage: vertex, fragment, compute, and a fourth row for bindings no counted stage
    // sees, held to the same limits (their descriptors are made all the same: a layout of
    // 2^32 - 1 samplers visible nowhere made a driver throw; a fuzzer finding on lavapipe).
    let mut per_stage = [[0u32; 6]; 4];
    let (mut dyn_uniform, mut dyn_storage) = (0u32, 0u32);
    let last = sorted.last().map(|e| e.binding);
    for e in &sorted {
        let b = e.binding;
        array(label, e, features, last)?;
        ensure!(
            b < limits.max_bindings_per_bind_group,
            LayoutBindingLimit,
            OP,
            label,
            "binding {b} is not below max_bindings_per_bind_group ({})",
            limits.max_bindings_per_bind_group
        );
        ensure!(
            !e.visibility.contains(ShaderStages::MESH),
            LayoutMeshVisibility,
            OP,
            label,
            "binding {b} is visible to task and mesh shaders; they reach memory through pointers and textures through heaps"
        );
        ensure!(
            !(e.visibility.contains(ShaderStages::VERTEX) && e.ty.is_writable()),
            LayoutVertexWritable,
            OP,
            label,
            "binding {b} is a writable {} visible to the vertex stage, which may not write resources",
            e.ty.describe()
        );
        let class = match e.ty {
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset,
                ..
            } => {
                dyn_uniform = dyn_uniform.saturating_add(u32::from(has_dynamic_offset));
                0
            }
            BindingType::Buffer {
                has_dynamic_offset, ..
            } => {
                dyn_storage = dyn_storage.saturating_add(u32::from(has_dynamic_offset));
                1
            }
            BindingType::Sampler(_) => 2,
            BindingType::Texture {
                multisampled,
                sample_type,
                view_dimension,
            } => {
                let ok = !multisampled
                    || (view_dimension == TextureViewDimension::D2
                        && sample_type != (TextureSampleType::Float { filterable: true }));
                ensure!(
                    ok,
                    LayoutMultisampled,
                    OP,
                    label,
                    "binding {b}: a multisampled texture binding must be 2d with a non-filterable sample type"
                );
                3
            }
            BindingType::StorageTexture {
                access,
                format,
                view_dimension,
            } => {
                ensure!(
                    access != StorageTextureAccess::ReadWrite || storage_read_write,
                    LayoutStorageReadWrite,
                    OP,
                    label,
                    "binding {b}: read-write storage textures need the STORAGE_TEXTURE_READ_WRITE feature"
                );
                ensure!(
                    storage_format_ok(format),
                    LayoutStorageFormat,
                    OP,
                    label,
                    "binding {b}: {} cannot be a storage texture on this device",
                    format.wgsl_name()
                );
                ensure!(
                    access != StorageTextureAccess::Atomic
                        || (features.contains(Features::TEXTURE_ATOMIC)
                            && matches!(format, TextureFormat::R32Uint | TextureFormat::R32Sint)),
                    LayoutStorageAtomic,
                    OP,
                    label,
                    "binding {b}: atomic storage textures need the TEXTURE_ATOMIC feature and the r32uint or r32sint format, not {}",
                    format.wgsl_name()
                );
                ensure!(
                    format != TextureFormat::Bgra8Unorm
                        || access == StorageTextureAccess::WriteOnly,
                    LayoutStorageAccess,
                    OP,
                    label,
                    "binding {b}: a bgra8unorm storage texture is write-only, not {access:?}"
                );
                ensure!(
                    !matches!(
                        view_dimension,
                        TextureViewDimension::Cube | TextureViewDimension::CubeArray
                    ),
                    LayoutStorageCube,
                    OP,
                    label,
                    "binding {b}: storage textures cannot be cube views"
                );
                4
            }
            BindingType::AccelerationStructure => {
                ensure!(
                    features.contains(Features::ACCELERATION_STRUCTURE),
                    AccelFeature,
                    OP,
                    label,
                    "binding {b} holds an acceleration structure, which needs the ACCELERATION_STRUCTURE feature (or RAY_QUERY) enabled on the device"
                );
                5
            }
        };
        let counted = [
            ShaderStages::VERTEX,
            ShaderStages::FRAGMENT,
            ShaderStages::COMPUTE,
        ];
        for (s, stage) in counted.iter().enumerate() {
            if e.visibility.contains(*stage) {
                per_stage[s][class] = per_stage[s][class].saturating_add(e.count());
            }
        }
        if !counted.iter().any(|stage| e.visibility.contains(*stage)) {
            per_stage[3][class] = per_stage[3][class].saturating_add(e.count());
        }
    }
    let caps = [
        (
            "uniform buffers",
            limits.max_uniform_buffers_per_shader_stage,
        ),
        (
            "storage buffers",
            limits.max_storage_buffers_per_shader_stage,
        ),
        ("samplers", limits.max_samplers_per_shader_stage),
        (
            "sampled textures",
            limits.max_sampled_textures_per_shader_stage,
        ),
        (
            "storage textures",
            limits.max_storage_textures_per_shader_stage,
        ),
        // Vulkan's guaranteed maxPerStageDescriptorAccelerationStructures.
        ("acceleration structures", 16),
    ];
    for (row, counts) in per_stage.iter().enumerate() {
        let place = if row < 3 {
            "in one stage"
        } else {
            "visible to no stage (held to the per-stage limit all the same)"
        };
        for (class, (name, cap)) in caps.iter().enumerate() {
            ensure!(
                counts[class] <= *cap,
                LayoutStageLimit,
                OP,
                label,
                "{} {name} {place} exceed the limit of {cap}",
                counts[class]
            );
        }
    }
    // Vulkan forbids dynamic buffers anywhere in a layout with an update-after-bind binding
    // (VUID-VkDescriptorSetLayoutCreateInfo-descriptorType-03001); found by the fuzzer on
    // the H200.
    let update_after_bind = sorted.iter().find(|e| {
        e.array_flags()
            .contains(BindingArrayFlags::UPDATE_AFTER_BIND)
    });
    if let Some(u) = update_after_bind {
        ensure!(
            dyn_uniform == 0 && dyn_storage == 0,
            LayoutArrayDynamic,
            OP,
            label,
            "binding {} is update-after-bind, so no binding of the layout may have dynamic offsets",
            u.binding
        );
    }
    dynamic_limits(OP, label, dyn_uniform, dyn_storage, limits, true)?;
    Ok(sorted)
}

/// A binding's array part: the kind's array feature, each flag's feature, no dynamic
/// offsets, variable count only on the last binding.
fn array(
    label: &str,
    e: &BindGroupLayoutEntry,
    features: Features,
    last: Option<u32>,
) -> Result<()> {
    const OP: &str = "create_bind_group_layout";
    let b = e.binding;
    let Some(a) = e.array else {
        return Ok(());
    };
    let (array_feature, update_feature) = match e.ty {
        BindingType::Buffer {
            ty: BufferBindingType::Uniform,
            ..
        } => (
            Features::BUFFER_BINDING_ARRAY,
            Features::UPDATE_AFTER_BIND_UNIFORM_BUFFERS,
        ),
        BindingType::Buffer { .. } => (
            Features::STORAGE_RESOURCE_BINDING_ARRAY,
            Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS,
        ),
        BindingType::Sampler(_) | BindingType::Texture { .. } => (
            Features::TEXTURE_BINDING_ARRAY,
            Features::UPDATE_AFTER_BIND_SAMPLED_TEXTURES,
        ),
        BindingType::StorageTexture { .. } => (
            Features::STORAGE_RESOURCE_BINDING_ARRAY,
            Features::UPDATE_AFTER_BIND_STORAGE_TEXTURES,
        ),
        BindingType::AccelerationStructure => {
            return Err(fail!(
                LayoutArrayFeature,
                OP,
                label,
                "binding {b} is an array of acceleration structures, which vigil does not offer; bind one top-level structure per binding"
            ));
        }
    };
    let needs = |f: Features| f.names().join("");
    ensure!(
        features.contains(array_feature),
        LayoutArrayFeature,
        OP,
        label,
        "binding {b} is an array of {} {}s, which needs the {} feature enabled on the device",
        a.count,
        e.ty.describe(),
        needs(array_feature)
    );
    ensure!(
        !matches!(
            e.ty,
            BindingType::Buffer {
                has_dynamic_offset: true,
                ..
            }
        ),
        LayoutArrayDynamic,
        OP,
        label,
        "binding {b} is an array of {}s with dynamic offsets, which vigil does not support",
        e.ty.describe()
    );
    for (flag, feature) in [
        (
            BindingArrayFlags::PARTIALLY_BOUND,
            Features::PARTIALLY_BOUND_BINDING_ARRAY,
        ),
        (
            BindingArrayFlags::VARIABLE_COUNT,
            Features::VARIABLE_COUNT_BINDING_ARRAY,
        ),
        (BindingArrayFlags::UPDATE_AFTER_BIND, update_feature),
    ] {
        ensure!(
            !a.flags.contains(flag) || features.contains(feature),
            LayoutArrayFlagFeature,
            OP,
            label,
            "binding {b} is {} ({} {}s), which needs the {} feature enabled on the device",
            needs_flag(flag),
            a.count,
            e.ty.describe(),
            needs(feature)
        );
    }
    ensure!(
        !a.flags.contains(BindingArrayFlags::VARIABLE_COUNT) || last == Some(b),
        LayoutArrayVariableLast,
        OP,
        label,
        "binding {b} is variable-count but is not the layout's highest-numbered binding"
    );
    Ok(())
}

fn needs_flag(flag: BindingArrayFlags) -> &'static str {
    if flag == BindingArrayFlags::PARTIALLY_BOUND {
        "partially bound"
    } else if flag == BindingArrayFlags::VARIABLE_COUNT {
        "variable-count"
    } else {
        "update-after-bind"
    }
}

fn dynamic_limits(
    op: &'static str,
    label: &str,
    uniform: u32,
    storage: u32,
    limits: &Limits,
    group: bool,
) -> Result<()> {
    let u_max = limits.max_dynamic_uniform_buffers_per_pipeline_layout;
    let s_max = limits.max_dynamic_storage_buffers_per_pipeline_layout;
    if group {
        ensure!(
            uniform <= u_max,
            LayoutDynamicLimit,
            op,
            label,
            "{uniform} dynamic uniform buffers exceed the limit of {u_max}"
        );
        ensure!(
            storage <= s_max,
            LayoutDynamicLimit,
            op,
            label,
            "{storage} dynamic storage buffers exceed the limit of {s_max}"
        );
        let dynamic = uniform.saturating_add(storage) as usize;
        ensure!(
            dynamic <= MAX_DYNAMIC_OFFSETS,
            LayoutDynamicLimit,
            op,
            label,
            "{dynamic} dynamic-offset bindings exceed the {MAX_DYNAMIC_OFFSETS} one bind group may have in vigil"
        );
    } else {
        ensure!(
            uniform <= u_max,
            PipelineLayoutDynamic,
            op,
            label,
            "{uniform} dynamic uniform buffers exceed the limit of {u_max}"
        );
        ensure!(
            storage <= s_max,
            PipelineLayoutDynamic,
            op,
            label,
            "{storage} dynamic storage buffers exceed the limit of {s_max}"
        );
    }
    Ok(())
}

/// A pipeline layout's immediate data size.
pub(crate) fn immediate_size(label: &str, size: u32, limits: &Limits) -> Result<()> {
    const OP: &str = "create_pipeline_layout";
    ensure!(
        size <= limits.max_immediate_size,
        ImmediateSizeLimit,
        OP,
        label,
        "immediate_size {size} exceeds max_immediate_size ({})",
        limits.max_immediate_size
    );
    ensure!(
        size % 4 == 0,
        ImmediateSizeAlign,
        OP,
        label,
        "immediate_size {size} is not a multiple of 4"
    );
    Ok(())
}

/// A pipeline layout made of group layouts with these entries.
pub(crate) fn pipeline_layout(
    label: &str,
    groups: &[&[BindGroupLayoutEntry]],
    limits: &Limits,
) -> Result<()> {
    const OP: &str = "create_pipeline_layout";
    ensure!(
        groups.len() as u64 <= u64::from(limits.max_bind_groups),
        PipelineLayoutGroups,
        OP,
        label,
        "{} bind group layouts exceed max_bind_groups ({})",
        groups.len(),
        limits.max_bind_groups
    );
    let (mut u, mut s) = (0u32, 0u32);
    for e in groups.iter().flat_map(|g| g.iter()) {
        match e.ty {
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset: true,
                ..
            } => u = u.saturating_add(1),
            BindingType::Buffer {
                has_dynamic_offset: true,
                ..
            } => s = s.saturating_add(1),
            _ => {}
        }
    }
    dynamic_limits(OP, label, u, s, limits, false)
}

const GROUP: &str = "create_bind_group";

/// A bind group's entries against its layout's bindings: one entry per binding, no more.
pub(crate) fn group_entries(
    label: &str,
    layout_label: &str,
    layout: &[BindGroupLayoutEntry],
    entries: &[BindGroupEntry<'_>],
) -> Result<()> {
    let duplicate = duplicate_binding(entries);
    ensure!(
        duplicate.is_none(),
        GroupEntryDuplicate,
        GROUP,
        label,
        "binding {} has more than one entry",
        duplicate.unwrap_or_default()
    );
    for e in entries {
        ensure!(
            layout.iter().any(|l| l.binding == e.binding),
            GroupEntryUnknown,
            GROUP,
            label,
            "binding {} is not in the layout '{layout_label}'",
            e.binding
        );
    }
    for l in layout {
        ensure!(
            entries.iter().any(|e| e.binding == l.binding),
            GroupEntryMissing,
            GROUP,
            label,
            "binding {} ({}) of layout '{layout_label}' has no entry",
            l.binding,
            l.ty.describe()
        );
    }
    Ok(())
}

/// A binding number two entries share, if any. A group's few entries are compared pairwise
/// (no allocation on the creation path); many are sorted.
fn duplicate_binding(entries: &[BindGroupEntry<'_>]) -> Option<u32> {
    const PAIRWISE: usize = 16;
    if entries.len() <= PAIRWISE {
        return entries.iter().enumerate().find_map(|(i, e)| {
            entries
                .get(i.saturating_add(1)..)?
                .iter()
                .any(|f| f.binding == e.binding)
                .then_some(e.binding)
        });
    }
    let mut seen: Vec<u32> = entries.iter().map(|e| e.binding).collect();
    seen.sort_unstable();
    seen.windows(2).find(|p| p[0] == p[1]).map(|p| p[0])
}

/// An entry that gives another kind of resource than its binding holds (`got`: "a
/// buffer", "a sampler", "a texture view").
#[cold]
pub(crate) fn entry_kind(label: &str, l: &BindGroupLayoutEntry, got: &str) -> Error {
    fail!(
        GroupEntryKind,
        GROUP,
        label,
        "binding {} is a {} binding, but the entry gives {got}",
        l.binding,
        l.ty.describe()
    )
}

/// How many elements an entry (`length` `None`) or a write from `first` (`length`: the
/// group's length of the binding) gives at layout entry `l`: an array variant exactly
/// for an array binding, its count of elements unless partially bound or variable-count,
/// a write inside the length.
pub(crate) fn array_length(
    label: &str,
    l: &BindGroupLayoutEntry,
    resource: &BindingResource<'_>,
    first: u32,
    length: Option<u32>,
) -> Result<u32> {
    let b = l.binding;
    let op = if length.is_some() {
        "write_bind_group"
    } else {
        GROUP
    };
    match l.array {
        None => {
            ensure!(
                !resource.is_array(),
                GroupEntryKind,
                op,
                label,
                "binding {b} holds one {}, but the entry gives an array of {}",
                l.ty.describe(),
                resource.len()
            );
            ensure!(
                first == 0,
                GroupArrayLength,
                op,
                label,
                "binding {b} holds one {}; element {first} does not exist",
                l.ty.describe()
            );
            Ok(1)
        }
        Some(a) => {
            ensure!(
                resource.is_array(),
                GroupEntryKind,
                op,
                label,
                "binding {b} is an array of {} {}s, but the entry gives a single resource (use the array variant)",
                a.count,
                l.ty.describe()
            );
            let n = u32::try_from(resource.len()).unwrap_or(u32::MAX);
            match length {
                None => {
                    let count = a.count.get();
                    let shorter = a.flags.intersects(
                        vigil_hal::BindingArrayFlags::PARTIALLY_BOUND
                            | vigil_hal::BindingArrayFlags::VARIABLE_COUNT,
                    );
                    ensure!(
                        n <= count,
                        GroupArrayLength,
                        op,
                        label,
                        "binding {b} holds at most {count} elements, but the entry gives {n}"
                    );
                    ensure!(
                        n == count || shorter,
                        GroupArrayLength,
                        op,
                        label,
                        "binding {b} holds {count} elements and is neither partially bound nor variable-count, but the entry gives {n}"
                    );
                }
                Some(len) => {
                    ensure!(
                        first.checked_add(n).is_some_and(|end| end <= len),
                        GroupArrayLength,
                        op,
                        label,
                        "binding {b}: {n} elements from element {first} pass the group's length of {len}"
                    );
                }
            }
            Ok(n)
        }
    }
}

/// What a buffer binding checks of its buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BufferFacts<'a> {
    pub label: &'a str,
    pub size: u64,
    pub usage: BufferUsages,
}

/// A buffer binding of type `ty` at `binding`; returns the bound size and the offset
/// alignment of its kind.
pub(crate) fn buffer(
    label: &str,
    binding: u32,
    ty: BufferBindingType,
    min_binding_size: Option<std::num::NonZeroU64>,
    b: &BufferBinding,
    buf: BufferFacts<'_>,
    limits: &Limits,
) -> Result<(u64, u32)> {
    let (needed, align, max, kind) = match ty {
        BufferBindingType::Uniform => (
            BufferUsages::UNIFORM,
            limits.min_uniform_buffer_offset_alignment,
            limits.max_uniform_buffer_binding_size,
            "uniform",
        ),
        BufferBindingType::Storage { .. } => (
            BufferUsages::STORAGE,
            limits.min_storage_buffer_offset_alignment,
            limits.max_storage_buffer_binding_size,
            "storage",
        ),
    };
    let name = buf.label;
    ensure!(
        buf.usage.contains(needed),
        GroupBufferUsage,
        GROUP,
        label,
        "binding {binding} is a {kind} buffer binding, but buffer '{name}' was created with {:?} (needs {needed:?})",
        buf.usage
    );
    ensure!(
        b.offset.checked_rem(u64::from(align)) == Some(0),
        GroupBufferAlignment,
        GROUP,
        label,
        "binding {binding}: offset {} is not a multiple of the {kind} offset alignment {align}",
        b.offset
    );
    ensure!(
        b.offset <= buf.size,
        GroupBufferRange,
        GROUP,
        label,
        "binding {binding}: offset {} is past the end of buffer '{name}' ({} bytes)",
        b.offset,
        buf.size
    );
    let size = b.size.unwrap_or(buf.size.saturating_sub(b.offset));
    ensure!(
        size != 0,
        GroupBufferRange,
        GROUP,
        label,
        "binding {binding}: the bound range of buffer '{name}' is empty"
    );
    ensure!(
        inside(b.offset, size, buf.size),
        GroupBufferRange,
        GROUP,
        label,
        "binding {binding}: {size} bytes at offset {} are outside buffer '{name}' ({} bytes)",
        b.offset,
        buf.size
    );
    ensure!(
        size <= max,
        GroupBufferLimit,
        GROUP,
        label,
        "binding {binding}: {size} bytes exceed the {kind} binding limit of {max}"
    );
    ensure!(
        !matches!(ty, BufferBindingType::Storage { .. }) || size % 4 == 0,
        GroupBufferRange,
        GROUP,
        label,
        "binding {binding}: a storage binding's size ({size}) must be a multiple of 4"
    );
    if let Some(min) = min_binding_size {
        ensure!(
            size >= min.get(),
            GroupBufferRange,
            GROUP,
            label,
            "binding {binding}: {size} bytes are fewer than the layout's min_binding_size {}",
            min.get()
        );
    }
    Ok((size, align))
}

/// A sampler binding of `kind`.
pub(crate) fn sampler(
    label: &str,
    binding: u32,
    kind: SamplerBindingType,
    name: &str,
    comparison: bool,
    filtering: bool,
) -> Result<()> {
    let ok = match kind {
        SamplerBindingType::Comparison => comparison,
        SamplerBindingType::Filtering => !comparison,
        SamplerBindingType::NonFiltering => !comparison && !filtering,
    };
    let is = if comparison {
        "a comparison sampler"
    } else if filtering {
        "a filtering sampler"
    } else {
        "a non-filtering sampler"
    };
    ensure!(
        ok,
        GroupSamplerKind,
        GROUP,
        label,
        "binding {binding} wants a {kind:?} sampler; sampler '{name}' is {is}"
    );
    Ok(())
}

/// What a texture binding checks of its view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewFacts<'a> {
    pub label: &'a str,
    pub usage: TextureUsages,
    pub dimension: TextureViewDimension,
    pub sample_count: u32,
    pub format: TextureFormat,
    pub aspect: TextureAspect,
    pub mip_level_count: u32,
    /// Whether the device filters the view's format.
    pub filterable: bool,
}

fn view_common(
    label: &str,
    binding: u32,
    v: &ViewFacts<'_>,
    usage: TextureUsages,
    dimension: TextureViewDimension,
) -> Result<()> {
    ensure!(
        v.usage.contains(usage),
        GroupViewUsage,
        GROUP,
        label,
        "binding {binding}: view '{}' lacks {usage:?} usage ({:?})",
        v.label,
        v.usage
    );
    ensure!(
        v.dimension == dimension,
        GroupViewDimension,
        GROUP,
        label,
        "binding {binding} wants a {dimension:?} view; view '{}' is {:?}",
        v.label,
        v.dimension
    );
    Ok(())
}

/// A sampled texture binding.
pub(crate) fn texture(
    label: &str,
    binding: u32,
    sample_type: TextureSampleType,
    dimension: TextureViewDimension,
    multisampled: bool,
    v: &ViewFacts<'_>,
) -> Result<()> {
    view_common(label, binding, v, TextureUsages::TEXTURE_BINDING, dimension)?;
    ensure!(
        multisampled == (v.sample_count > 1),
        GroupViewMultisampled,
        GROUP,
        label,
        "binding {binding}: multisampled is {multisampled} in the layout but view '{}' has {} samples",
        v.label,
        v.sample_count
    );
    let info = v.format.info();
    ensure!(
        !(info.has_depth && info.has_stencil) || v.aspect != TextureAspect::All,
        GroupViewAspect,
        GROUP,
        label,
        "binding {binding}: view '{}' of {} has both its depth and its stencil aspect; a sampled binding reads one, so make the view DepthOnly or StencilOnly",
        v.label,
        v.format.wgsl_name()
    );
    let format_type = if v.format.is_depth_stencil() {
        // Stencil reads as unsigned integers (a stencil-only format's whole view too).
        if v.aspect == TextureAspect::StencilOnly || !info.has_depth {
            TextureSampleType::Uint
        } else {
            TextureSampleType::Depth
        }
    } else {
        // Float formats filter as the device and the features allow (`v.filterable`).
        match info.sample_type {
            TextureSampleType::Float { .. } => TextureSampleType::Float {
                filterable: v.filterable,
            },
            t => t,
        }
    };
    let compatible = match (sample_type, format_type) {
        (
            TextureSampleType::Float { filterable: false },
            TextureSampleType::Float { .. } | TextureSampleType::Depth,
        ) => true,
        (a, b) => a == b,
    };
    ensure!(
        compatible,
        GroupViewSampleType,
        GROUP,
        label,
        "binding {binding} wants {sample_type:?} texels; view '{}' ({}) gives {format_type:?}",
        v.label,
        v.format.wgsl_name()
    );
    Ok(())
}

/// A storage texture binding.
pub(crate) fn storage_texture(
    label: &str,
    binding: u32,
    format: TextureFormat,
    dimension: TextureViewDimension,
    v: &ViewFacts<'_>,
) -> Result<()> {
    view_common(label, binding, v, TextureUsages::STORAGE_BINDING, dimension)?;
    ensure!(
        v.format == format,
        GroupStorageFormat,
        GROUP,
        label,
        "binding {binding} wants a {} storage texture; view '{}' is {}",
        format.wgsl_name(),
        v.label,
        v.format.wgsl_name()
    );
    ensure!(
        v.mip_level_count == 1,
        GroupStorageMips,
        GROUP,
        label,
        "binding {binding}: a storage view must cover exactly one mip level; view '{}' covers {}",
        v.label,
        v.mip_level_count
    );
    Ok(())
}

/// The stages a shader-visible binding is accessed in.
pub(crate) fn shader_stages(v: ShaderStages) -> vigil_hal::Stages {
    use vigil_hal::Stages;
    let mut s = Stages::empty();
    if v.contains(ShaderStages::VERTEX) {
        s |= Stages::VERTEX_SHADER;
    }
    if v.contains(ShaderStages::FRAGMENT) {
        s |= Stages::FRAGMENT_SHADER;
    }
    if v.contains(ShaderStages::COMPUTE) {
        s |= Stages::COMPUTE;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    #[test]
    fn a_layout_with_more_dynamic_offsets_than_a_pass_holds_is_refused() {
        // Limits that allow more than vigil's per-group table, as some adapters do.
        let limits = Limits {
            max_dynamic_uniform_buffers_per_pipeline_layout: 12,
            max_dynamic_storage_buffers_per_pipeline_layout: 12,
            max_uniform_buffers_per_shader_stage: 64,
            max_storage_buffers_per_shader_stage: 64,
            ..Limits::default()
        };
        let entries = |n: u32| -> Vec<BindGroupLayoutEntry> {
            (0..n)
                .map(|binding| BindGroupLayoutEntry {
                    binding,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::Buffer {
                        ty: if binding < 12 {
                            BufferBindingType::Uniform
                        } else {
                            BufferBindingType::Storage { read_only: true }
                        },
                        has_dynamic_offset: true,
                        min_binding_size: None,
                    },
                    array: None,
                })
                .collect()
        };
        let check = |n| layout_entries("many", &entries(n), &limits, Features::empty(), &|_| true);
        assert!(check(16).is_ok());
        let e = check(17).unwrap_err();
        assert_eq!(e.rule(), Rule::LayoutDynamicLimit);
        assert!(e.message().contains("17 dynamic-offset bindings"), "{e}");
    }
}
