//! Bind group layouts, bind groups and pipeline layouts, with the rules that make a bind
//! group safe to use in any draw or dispatch whose layout matches.

use super::{
    BindGroupLayoutObj, BindGroupObj, Device, DeviceState, DynamicBinding, GroupUse, Member,
    PipelineLayoutObj, Retained, Tracked, TrackedUse,
};
use crate::error::{Result, fail};
use crate::handle::{
    BindGroup, BindGroupLayout, Buffer, Handle, PipelineLayout, Sampler, TextureView,
};
use vigil_hal::{
    Api, BindGroupLayoutEntry, BindingType, BufferBindingType, BufferUsages, Device as _, Limits,
    SamplerBindingType, ShaderStages, Stages, StorageTextureAccess, TextureSampleType,
    TextureUsages,
};

/// The view a texture or storage-texture binding names, checked the same way for both:
/// live (and its texture), created with `usage`, of the layout's dimension.
fn bound_view<'s, A: Api>(
    st: &'s DeviceState<A>,
    v: TextureView,
    device: u32,
    binding: u32,
    (usage, usage_name): (TextureUsages, &str),
    dimension: vigil_hal::TextureViewDimension,
    label: &str,
) -> Result<&'s super::ViewObj<A>> {
    const OP: &str = "create_bind_group";
    let view = st.views.value(v, device, OP)?;
    if !st.textures.is_live(view.texture.0, view.texture.1) {
        return Err(fail!(
            InvalidHandle,
            OP,
            label,
            "binding {binding}: the texture of view '{}' was destroyed",
            view.label
        ));
    }
    if !view.usage.contains(usage) {
        return Err(fail!(
            UsageMismatch,
            OP,
            label,
            "binding {binding}: view '{}' lacks {usage_name} usage ({:?})",
            view.label,
            view.usage
        ));
    }
    if view.dimension != dimension {
        return Err(fail!(
            InvalidDescriptor,
            OP,
            label,
            "binding {binding} wants a {dimension:?} view; view '{}' is {:?}",
            view.label,
            view.dimension
        ));
    }
    Ok(view)
}

/// How to create a bind group layout.
#[derive(Clone, Debug, Default)]
pub struct BindGroupLayoutDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bindings, in any order; binding numbers unique.
    pub entries: &'a [BindGroupLayoutEntry],
}

/// A buffer range bound to a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferBinding {
    /// The buffer.
    pub buffer: Buffer,
    /// Start of the range (aligned to the device's min offset alignment for its kind).
    pub offset: u64,
    /// Length of the range; `None` binds to the end of the buffer.
    pub size: Option<u64>,
}

impl BufferBinding {
    /// The whole buffer.
    pub fn whole(buffer: Buffer) -> BufferBinding {
        BufferBinding {
            buffer,
            offset: 0,
            size: None,
        }
    }
}

/// What an entry binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingResource {
    /// A buffer range.
    Buffer(BufferBinding),
    /// A sampler.
    Sampler(Sampler),
    /// A texture view.
    TextureView(TextureView),
}

/// One entry of a bind group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindGroupEntry {
    /// Binding number in the layout.
    pub binding: u32,
    /// What it binds.
    pub resource: BindingResource,
}

/// How to create a bind group.
#[derive(Clone, Debug)]
pub struct BindGroupDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// The layout it follows.
    pub layout: BindGroupLayout,
    /// One entry per layout binding.
    pub entries: &'a [BindGroupEntry],
}

/// Stages a shader-visible binding is accessed in, for barriers.
pub(crate) fn shader_stages_to_barrier(v: ShaderStages) -> Stages {
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

/// Checks a bind group layout's entries (pure: features, limits, support of formats are
/// passed in). Returns the entries sorted by binding.
pub(crate) fn validate_layout_entries(
    label: &str,
    entries: &[BindGroupLayoutEntry],
    limits: &Limits,
    storage_read_write: bool,
    storage_format_ok: &dyn Fn(vigil_hal::TextureFormat) -> bool,
) -> Result<Vec<BindGroupLayoutEntry>> {
    const OP: &str = "create_bind_group_layout";
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| e.binding);
    for pair in sorted.windows(2) {
        if pair[0].binding == pair[1].binding {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                label,
                "binding {} appears twice",
                pair[0].binding
            ));
        }
    }
    let mut per_stage = [[0u32; 5]; 3];
    let (mut dyn_uniform, mut dyn_storage) = (0, 0);
    for e in &sorted {
        if e.binding >= limits.max_bindings_per_bind_group {
            return Err(fail!(
                LimitExceeded,
                OP,
                label,
                "binding {} is not below max_bindings_per_bind_group ({})",
                e.binding,
                limits.max_bindings_per_bind_group
            ));
        }
        if e.visibility.contains(ShaderStages::VERTEX) && e.ty.is_writable() {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                label,
                "binding {} is a writable {} visible to the vertex stage, which may not write resources",
                e.binding,
                e.ty.describe()
            ));
        }
        let class = match e.ty {
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset,
                ..
            } => {
                dyn_uniform = u32::saturating_add(dyn_uniform, u32::from(has_dynamic_offset));
                0
            }
            BindingType::Buffer {
                has_dynamic_offset, ..
            } => {
                dyn_storage = u32::saturating_add(dyn_storage, u32::from(has_dynamic_offset));
                1
            }
            BindingType::Sampler(_) => 2,
            BindingType::Texture {
                multisampled,
                sample_type,
                view_dimension,
            } => {
                if multisampled
                    && (view_dimension != vigil_hal::TextureViewDimension::D2
                        || sample_type == (TextureSampleType::Float { filterable: true }))
                {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        label,
                        "binding {}: a multisampled texture binding must be 2d with a non-filterable sample type",
                        e.binding
                    ));
                }
                3
            }
            BindingType::StorageTexture {
                access,
                format,
                view_dimension,
            } => {
                if access == StorageTextureAccess::ReadWrite && !storage_read_write {
                    return Err(fail!(
                        Unsupported,
                        OP,
                        label,
                        "binding {}: read-write storage textures need the STORAGE_TEXTURE_READ_WRITE feature",
                        e.binding
                    ));
                }
                if !storage_format_ok(format) {
                    return Err(fail!(
                        Unsupported,
                        OP,
                        label,
                        "binding {}: {} cannot be a storage texture on this device",
                        e.binding,
                        format.wgsl_name()
                    ));
                }
                if matches!(
                    view_dimension,
                    vigil_hal::TextureViewDimension::Cube
                        | vigil_hal::TextureViewDimension::CubeArray
                ) {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        label,
                        "binding {}: storage textures cannot be cube views",
                        e.binding
                    ));
                }
                4
            }
        };
        for (s, stage) in [
            ShaderStages::VERTEX,
            ShaderStages::FRAGMENT,
            ShaderStages::COMPUTE,
        ]
        .iter()
        .enumerate()
        {
            if e.visibility.contains(*stage) {
                per_stage[s][class] = per_stage[s][class].saturating_add(1);
            }
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
    ];
    for counts in per_stage {
        for (class, (name, cap)) in caps.iter().enumerate() {
            if counts[class] > *cap {
                return Err(fail!(
                    LimitExceeded,
                    OP,
                    label,
                    "{} {name} in one stage exceed the limit of {cap}",
                    counts[class]
                ));
            }
        }
    }
    if dyn_uniform > limits.max_dynamic_uniform_buffers_per_pipeline_layout {
        return Err(fail!(
            LimitExceeded,
            OP,
            label,
            "{dyn_uniform} dynamic uniform buffers exceed the limit of {}",
            limits.max_dynamic_uniform_buffers_per_pipeline_layout
        ));
    }
    if dyn_storage > limits.max_dynamic_storage_buffers_per_pipeline_layout {
        return Err(fail!(
            LimitExceeded,
            OP,
            label,
            "{dyn_storage} dynamic storage buffers exceed the limit of {}",
            limits.max_dynamic_storage_buffers_per_pipeline_layout
        ));
    }
    let dynamic = dyn_uniform.saturating_add(dyn_storage);
    if dynamic as usize > crate::encoder::MAX_DYNAMIC_OFFSETS {
        return Err(fail!(
            LimitExceeded,
            OP,
            label,
            "{dynamic} dynamic-offset bindings exceed the {} one bind group may have in vigil",
            crate::encoder::MAX_DYNAMIC_OFFSETS
        ));
    }
    Ok(sorted)
}

impl<A: Api> Device<A> {
    /// Creates a bind group layout.
    pub fn create_bind_group_layout(
        &self,
        desc: &BindGroupLayoutDescriptor<'_>,
    ) -> Result<BindGroupLayout> {
        const OP: &str = "create_bind_group_layout";
        self.check_alive(OP)?;
        let sorted = validate_layout_entries(
            desc.label,
            desc.entries,
            &self.limits,
            self.features
                .contains(vigil_hal::Features::STORAGE_TEXTURE_READ_WRITE),
            &|f| self.hal.format_support(f).storage,
        )?;
        let mut st = self.state(OP)?;
        let raw = self
            .hal
            .create_bind_group_layout(&vigil_hal::BindGroupLayoutDescriptor {
                label: desc.label,
                entries: &sorted,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let next = u32::try_from(st.layout_compat.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        let compat = *st.layout_compat.entry(sorted.clone()).or_insert(next);
        let (i, g) = st.bind_group_layouts.insert(BindGroupLayoutObj {
            raw,
            label: desc.label.to_owned(),
            entries: sorted,
            compat,
        });
        drop(st);
        self.notify_created("bind group layout", desc.label);
        Ok(BindGroupLayout::from_parts(i, g, self.id))
    }

    /// Destroys a bind group layout (bind groups and pipeline layouts made from it keep it).
    pub fn destroy_bind_group_layout(&self, layout: BindGroupLayout) -> Result<()> {
        const OP: &str = "destroy_bind_group_layout";
        let mut st = self.state(OP)?;
        st.bind_group_layouts.get(layout, self.id, OP)?;
        self.retire(&mut st, Retained::BindGroupLayout(layout.index()));
        Ok(())
    }

    /// Creates a bind group: every layout binding matched by exactly one live entry of the
    /// right kind and usage, with its range in bounds and aligned. The group keeps what it
    /// binds alive until it is destroyed and its last use completed.
    pub fn create_bind_group(&self, desc: &BindGroupDescriptor<'_>) -> Result<BindGroup> {
        const OP: &str = "create_bind_group";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let plan = self.plan_bind_group(&st, desc)?;
        let layout = st.bind_group_layouts.value(desc.layout, self.id, OP)?;
        let gone = || {
            fail!(
                InvalidHandle,
                OP,
                desc.label,
                "an object named by the bind group vanished"
            )
        };
        let hal_entries = plan
            .entries
            .iter()
            .map(|(binding, r)| {
                let resource = match *r {
                    Planned::Buffer {
                        index,
                        offset,
                        size,
                    } => vigil_hal::BoundResource::Buffer {
                        buffer: &st
                            .buffers
                            .slot(index)
                            .and_then(|s| s.value.as_ref())
                            .ok_or_else(gone)?
                            .raw,
                        offset,
                        size,
                    },
                    Planned::Sampler(index) => vigil_hal::BoundResource::Sampler(
                        &st.samplers
                            .slot(index)
                            .and_then(|s| s.value.as_ref())
                            .ok_or_else(gone)?
                            .raw,
                    ),
                    Planned::View(index, layout) => vigil_hal::BoundResource::TextureView(
                        &st.views
                            .slot(index)
                            .and_then(|s| s.value.as_ref())
                            .ok_or_else(gone)?
                            .raw,
                        layout,
                    ),
                };
                Ok(vigil_hal::BindGroupEntry {
                    binding: *binding,
                    resource,
                })
            })
            .collect::<Result<Vec<vigil_hal::BindGroupEntry<'_, A>>>>()?;
        let raw = self
            .hal
            .create_bind_group(&vigil_hal::BindGroupDescriptor {
                label: desc.label,
                layout: &layout.raw,
                entries: &hal_entries,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        drop(hal_entries);
        let compat = layout.compat;
        for u in plan.uses.iter() {
            st.retain(match u.member {
                Member::Buffer(i, _) => Retained::Buffer(i),
                Member::View(i, _) => Retained::View(i),
                Member::Sampler(i, _) => Retained::Sampler(i),
            });
        }
        st.retain(Retained::BindGroupLayout(desc.layout.index()));
        let tracked = plan
            .uses
            .iter()
            .filter_map(|u| match u.tracked {
                Tracked::Buffer(index) => Some(TrackedUse {
                    index,
                    texture: false,
                    write: u.write,
                    stages: u.stages,
                }),
                Tracked::Texture(index) => Some(TrackedUse {
                    index,
                    texture: true,
                    write: u.write,
                    stages: u.stages,
                }),
                Tracked::None => None,
            })
            .collect();
        let epoch = st.destroy_epoch;
        let (i, g) = st.bind_groups.insert(BindGroupObj {
            raw,
            label: desc.label.to_owned(),
            layout: desc.layout,
            compat,
            uses: plan.uses.into_boxed_slice(),
            tracked,
            dynamic: plan.dynamic.into_boxed_slice(),
            sizes: plan.sizes.into_boxed_slice(),
            members_live_at: std::cell::Cell::new(epoch),
        });
        drop(st);
        self.notify_created("bind group", desc.label);
        Ok(BindGroup::from_parts(i, g, self.id))
    }

    /// Destroys a bind group.
    pub fn destroy_bind_group(&self, group: BindGroup) -> Result<()> {
        const OP: &str = "destroy_bind_group";
        let mut st = self.state(OP)?;
        st.bind_groups.get(group, self.id, OP)?;
        self.retire(&mut st, Retained::BindGroup(group.index()));
        Ok(())
    }

    /// Every check of a bind group descriptor, against live objects; nothing is changed.
    fn plan_bind_group(
        &self,
        st: &DeviceState<A>,
        desc: &BindGroupDescriptor<'_>,
    ) -> Result<BindGroupPlan> {
        const OP: &str = "create_bind_group";
        let label = desc.label;
        let layout = st.bind_group_layouts.value(desc.layout, self.id, OP)?;
        let mut seen: Vec<u32> = desc.entries.iter().map(|e| e.binding).collect();
        seen.sort_unstable();
        for pair in seen.windows(2) {
            if pair[0] == pair[1] {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    label,
                    "binding {} has more than one entry",
                    pair[0]
                ));
            }
        }
        for e in desc.entries {
            if !layout.entries.iter().any(|l| l.binding == e.binding) {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    label,
                    "binding {} is not in the layout '{}'",
                    e.binding,
                    layout.label
                ));
            }
        }
        let mut plan = BindGroupPlan::default();
        for l in &layout.entries {
            let Some(entry) = desc.entries.iter().find(|e| e.binding == l.binding) else {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    label,
                    "binding {} ({}) of layout '{}' has no entry",
                    l.binding,
                    l.ty.describe(),
                    layout.label
                ));
            };
            let stages = shader_stages_to_barrier(l.visibility);
            match (l.ty, entry.resource) {
                (
                    BindingType::Buffer {
                        ty,
                        has_dynamic_offset,
                        min_binding_size,
                    },
                    BindingResource::Buffer(b),
                ) => {
                    let buf = st.buffers.value(b.buffer, self.id, OP)?;
                    let (needed, align, max, kind) = match ty {
                        BufferBindingType::Uniform => (
                            BufferUsages::UNIFORM,
                            self.limits.min_uniform_buffer_offset_alignment,
                            self.limits.max_uniform_buffer_binding_size,
                            "uniform",
                        ),
                        BufferBindingType::Storage { .. } => (
                            BufferUsages::STORAGE,
                            self.limits.min_storage_buffer_offset_alignment,
                            self.limits.max_storage_buffer_binding_size,
                            "storage",
                        ),
                    };
                    if !buf.usage.contains(needed) {
                        return Err(fail!(
                            UsageMismatch,
                            OP,
                            label,
                            "binding {} is a {kind} buffer binding, but buffer '{}' was created with {:?} (needs {needed:?})",
                            l.binding,
                            buf.label,
                            buf.usage
                        ));
                    }
                    if b.offset.checked_rem(u64::from(align)) != Some(0) {
                        return Err(fail!(
                            OutOfBounds,
                            OP,
                            label,
                            "binding {}: offset {} is not a multiple of the {kind} offset alignment {align}",
                            l.binding,
                            b.offset
                        ));
                    }
                    if b.offset > buf.size {
                        return Err(fail!(
                            OutOfBounds,
                            OP,
                            label,
                            "binding {}: offset {} is past the end of buffer '{}' ({} bytes)",
                            l.binding,
                            b.offset,
                            buf.label,
                            buf.size
                        ));
                    }
                    let size = b.size.unwrap_or(buf.size.saturating_sub(b.offset));
                    if size == 0 {
                        return Err(fail!(
                            OutOfBounds,
                            OP,
                            label,
                            "binding {}: the bound range of buffer '{}' is empty",
                            l.binding,
                            buf.label
                        ));
                    }
                    super::buffer::check_range(OP, label, "binding", b.offset, size, buf.size)?;
                    if size > max {
                        return Err(fail!(
                            LimitExceeded,
                            OP,
                            label,
                            "binding {}: {size} bytes exceed the {kind} binding limit of {max}",
                            l.binding
                        ));
                    }
                    if matches!(ty, BufferBindingType::Storage { .. }) && size % 4 != 0 {
                        return Err(fail!(
                            OutOfBounds,
                            OP,
                            label,
                            "binding {}: a storage binding's size ({size}) must be a multiple of 4",
                            l.binding
                        ));
                    }
                    if let Some(min) = min_binding_size {
                        if size < min.get() {
                            return Err(fail!(
                                OutOfBounds,
                                OP,
                                label,
                                "binding {}: {size} bytes are fewer than the layout's min_binding_size {}",
                                l.binding,
                                min.get()
                            ));
                        }
                    }
                    let write = matches!(ty, BufferBindingType::Storage { read_only: false });
                    plan.uses.push(GroupUse {
                        member: Member::Buffer(b.buffer.index(), b.buffer.generation()),
                        tracked: Tracked::Buffer(b.buffer.index()),
                        write,
                        stages,
                    });
                    if has_dynamic_offset {
                        plan.dynamic.push(DynamicBinding {
                            binding: l.binding,
                            offset: b.offset,
                            size,
                            buffer_size: buf.size,
                            alignment: align,
                        });
                    }
                    plan.sizes.push(size);
                    plan.entries.push((
                        l.binding,
                        Planned::Buffer {
                            index: b.buffer.index(),
                            offset: b.offset,
                            size,
                        },
                    ));
                }
                (BindingType::Sampler(kind), BindingResource::Sampler(s)) => {
                    let sampler = st.samplers.value(s, self.id, OP)?;
                    let ok = match kind {
                        SamplerBindingType::Comparison => sampler.comparison,
                        SamplerBindingType::Filtering => !sampler.comparison,
                        SamplerBindingType::NonFiltering => {
                            !sampler.comparison && !sampler.filtering
                        }
                    };
                    if !ok {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            label,
                            "binding {} wants a {:?} sampler; sampler '{}' is {}",
                            l.binding,
                            kind,
                            sampler.label,
                            if sampler.comparison {
                                "a comparison sampler"
                            } else if sampler.filtering {
                                "a filtering sampler"
                            } else {
                                "a non-filtering sampler"
                            }
                        ));
                    }
                    plan.uses.push(GroupUse {
                        member: Member::Sampler(s.index(), s.generation()),
                        tracked: Tracked::None,
                        write: false,
                        stages,
                    });
                    plan.sizes.push(0);
                    plan.entries.push((l.binding, Planned::Sampler(s.index())));
                }
                (
                    BindingType::Texture {
                        sample_type,
                        view_dimension,
                        multisampled,
                    },
                    BindingResource::TextureView(v),
                ) => {
                    let view = bound_view(
                        st,
                        v,
                        self.id,
                        l.binding,
                        (TextureUsages::TEXTURE_BINDING, "TEXTURE_BINDING"),
                        view_dimension,
                        label,
                    )?;
                    if multisampled != (view.sample_count > 1) {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            label,
                            "binding {}: multisampled is {multisampled} in the layout but view '{}' has {} samples",
                            l.binding,
                            view.label,
                            view.sample_count
                        ));
                    }
                    let format_type = if view.format.is_depth_stencil() {
                        if view.range.aspect == vigil_hal::TextureAspect::StencilOnly {
                            TextureSampleType::Uint
                        } else {
                            TextureSampleType::Depth
                        }
                    } else {
                        let t = view.format.info().sample_type;
                        if t == (TextureSampleType::Float { filterable: true })
                            && !self.hal.format_support(view.format).filterable
                        {
                            TextureSampleType::Float { filterable: false }
                        } else {
                            t
                        }
                    };
                    let compatible = match (sample_type, format_type) {
                        (
                            TextureSampleType::Float { filterable: false },
                            TextureSampleType::Float { .. } | TextureSampleType::Depth,
                        ) => true,
                        (
                            TextureSampleType::Float { filterable: true },
                            TextureSampleType::Float { filterable: true },
                        ) => true,
                        (a, b) => a == b,
                    };
                    if !compatible {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            label,
                            "binding {} wants {:?} texels; view '{}' ({}) gives {:?}",
                            l.binding,
                            sample_type,
                            view.label,
                            view.format.wgsl_name(),
                            format_type
                        ));
                    }
                    plan.uses.push(GroupUse {
                        member: Member::View(v.index(), v.generation()),
                        tracked: Tracked::Texture(view.texture.0),
                        write: false,
                        stages,
                    });
                    plan.sizes.push(0);
                    plan.entries
                        .push((l.binding, Planned::View(v.index(), view.resting)));
                }
                (
                    BindingType::StorageTexture {
                        access,
                        format,
                        view_dimension,
                    },
                    BindingResource::TextureView(v),
                ) => {
                    let view = bound_view(
                        st,
                        v,
                        self.id,
                        l.binding,
                        (TextureUsages::STORAGE_BINDING, "STORAGE_BINDING"),
                        view_dimension,
                        label,
                    )?;
                    if view.format != format {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            label,
                            "binding {} wants a {} storage texture; view '{}' is {}",
                            l.binding,
                            format.wgsl_name(),
                            view.label,
                            view.format.wgsl_name()
                        ));
                    }
                    if view.range.mip_level_count != 1 {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            label,
                            "binding {}: a storage view must cover exactly one mip level; view '{}' covers {}",
                            l.binding,
                            view.label,
                            view.range.mip_level_count
                        ));
                    }
                    plan.uses.push(GroupUse {
                        member: Member::View(v.index(), v.generation()),
                        tracked: Tracked::Texture(view.texture.0),
                        write: access != StorageTextureAccess::ReadOnly,
                        stages,
                    });
                    plan.sizes.push(0);
                    plan.entries
                        .push((l.binding, Planned::View(v.index(), view.resting)));
                }
                (ty, resource) => {
                    let got = match resource {
                        BindingResource::Buffer(_) => "a buffer",
                        BindingResource::Sampler(_) => "a sampler",
                        BindingResource::TextureView(_) => "a texture view",
                    };
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        label,
                        "binding {} is a {} binding, but the entry gives {got}",
                        l.binding,
                        ty.describe()
                    ));
                }
            }
        }
        Ok(plan)
    }

    /// Creates a pipeline layout from bind group layouts, in group order.
    pub fn create_pipeline_layout(
        &self,
        desc: &super::PipelineLayoutDescriptor<'_>,
    ) -> Result<PipelineLayout> {
        const OP: &str = "create_pipeline_layout";
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        if desc.bind_group_layouts.len() as u64 > u64::from(self.limits.max_bind_groups) {
            return Err(fail!(
                LimitExceeded,
                OP,
                desc.label,
                "{} bind group layouts exceed max_bind_groups ({})",
                desc.bind_group_layouts.len(),
                self.limits.max_bind_groups
            ));
        }
        let mut raws = Vec::with_capacity(desc.bind_group_layouts.len());
        let mut compat = Vec::with_capacity(desc.bind_group_layouts.len());
        let (mut dyn_u, mut dyn_s) = (0u32, 0u32);
        for &h in desc.bind_group_layouts {
            let l = st.bind_group_layouts.value(h, self.id, OP)?;
            for e in &l.entries {
                match e.ty {
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        ..
                    } => dyn_u = u32::saturating_add(dyn_u, 1),
                    BindingType::Buffer {
                        has_dynamic_offset: true,
                        ..
                    } => dyn_s = u32::saturating_add(dyn_s, 1),
                    _ => {}
                }
            }
            raws.push(&l.raw);
            compat.push(l.compat);
        }
        if dyn_u > self.limits.max_dynamic_uniform_buffers_per_pipeline_layout {
            return Err(fail!(
                LimitExceeded,
                OP,
                desc.label,
                "{dyn_u} dynamic uniform buffers exceed the limit of {}",
                self.limits.max_dynamic_uniform_buffers_per_pipeline_layout
            ));
        }
        if dyn_s > self.limits.max_dynamic_storage_buffers_per_pipeline_layout {
            return Err(fail!(
                LimitExceeded,
                OP,
                desc.label,
                "{dyn_s} dynamic storage buffers exceed the limit of {}",
                self.limits.max_dynamic_storage_buffers_per_pipeline_layout
            ));
        }
        let raw = self
            .hal
            .create_pipeline_layout(&vigil_hal::PipelineLayoutDescriptor {
                label: desc.label,
                bind_group_layouts: &raws,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        drop(raws);
        for &h in desc.bind_group_layouts {
            st.retain(Retained::BindGroupLayout(h.index()));
        }
        let (i, g) = st.pipeline_layouts.insert(PipelineLayoutObj {
            raw,
            label: desc.label.to_owned(),
            groups: desc.bind_group_layouts.to_vec(),
            compat,
        });
        drop(st);
        self.notify_created("pipeline layout", desc.label);
        Ok(PipelineLayout::from_parts(i, g, self.id))
    }

    /// Destroys a pipeline layout (pipelines made with it keep it).
    pub fn destroy_pipeline_layout(&self, layout: PipelineLayout) -> Result<()> {
        const OP: &str = "destroy_pipeline_layout";
        let mut st = self.state(OP)?;
        st.pipeline_layouts.get(layout, self.id, OP)?;
        self.retire(&mut st, Retained::PipelineLayout(layout.index()));
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
enum Planned {
    Buffer { index: u32, offset: u64, size: u64 },
    Sampler(u32),
    View(u32, vigil_hal::TextureLayout),
}

#[derive(Default)]
struct BindGroupPlan {
    entries: Vec<(u32, Planned)>,
    uses: Vec<GroupUse>,
    dynamic: Vec<DynamicBinding>,
    sizes: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let entry = |binding: u32, ty: BufferBindingType| BindGroupLayoutEntry {
            binding,
            visibility: ShaderStages::COMPUTE,
            ty: BindingType::Buffer {
                ty,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
        };
        let entries = |n: u32| -> Vec<BindGroupLayoutEntry> {
            (0..n)
                .map(|b| {
                    let ty = if b < 12 {
                        BufferBindingType::Uniform
                    } else {
                        BufferBindingType::Storage { read_only: true }
                    };
                    entry(b, ty)
                })
                .collect()
        };
        let check = |n| validate_layout_entries("many", &entries(n), &limits, false, &|_| true);
        assert!(check(16).is_ok());
        let e = check(17).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::LimitExceeded);
        assert!(e.message().contains("17 dynamic-offset bindings"), "{e}");
    }
}
