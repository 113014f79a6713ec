//! Bind group layouts, bind groups and pipeline layouts. A bind group holds what it binds
//! (the objects themselves), so their native objects outlive the group's last use.

use super::{
    BindGroupLayoutObj, BindGroupObj, Device, DynamicBinding, Member, PipelineLayoutObj,
    shader_layout,
};
use crate::error::Result;
use crate::handle::{
    BindGroup, BindGroupLayout, Buffer, Handle, PipelineLayout, Sampler, TextureView,
};
use crate::native::Owned;
use crate::track::Use;
use crate::validate::{self, binding as check};
use std::sync::Arc;
use vigil_hal::{Access, Api, BindingType, BufferBindingType, Device as _, StorageTextureAccess};

/// How to create a bind group layout.
#[derive(Clone, Debug, Default)]
pub struct BindGroupLayoutDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bindings, in any order; binding numbers unique.
    pub entries: &'a [vigil_hal::BindGroupLayoutEntry],
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

impl<A: Api> Device<A> {
    /// Creates a bind group layout.
    pub fn create_bind_group_layout(
        &self,
        desc: &BindGroupLayoutDescriptor<'_>,
    ) -> Result<BindGroupLayout> {
        const OP: &str = "create_bind_group_layout";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let read_write = self
            .features
            .contains(vigil_hal::Features::STORAGE_TEXTURE_READ_WRITE);
        let sorted =
            check::layout_entries(desc.label, desc.entries, &self.limits, read_write, &|f| {
                self.hal.format_support(f).storage
            })?;
        let raw = self
            .hal
            .create_bind_group_layout(&vigil_hal::BindGroupLayoutDescriptor {
                label: desc.label,
                entries: &sorted,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let compat = {
            let mut table = super::lock(&self.layout_compat);
            let next = u32::try_from(table.len())
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            *table.entry(sorted.clone()).or_insert(next)
        };
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .bind_group_layouts
            .insert(|index, generation| BindGroupLayoutObj {
                raw,
                handle: BindGroupLayout::from_parts(index, generation, id),
                label: desc.label.to_owned(),
                entries: sorted,
                compat,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "bind group layout"))?;
        self.notify_created("bind group layout", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a bind group layout (bind groups and pipeline layouts made from it keep it).
    pub fn destroy_bind_group_layout(&self, layout: BindGroupLayout) -> Result<()> {
        drop(self.remove(layout, "destroy_bind_group_layout")?);
        Ok(())
    }

    /// Creates a bind group: every layout binding matched by exactly one live entry of the
    /// right kind and usage, with its range in bounds and aligned. The group keeps what it
    /// binds alive until it is destroyed and its last use completed.
    pub fn create_bind_group(&self, desc: &BindGroupDescriptor<'_>) -> Result<BindGroup> {
        const OP: &str = "create_bind_group";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let label = desc.label;
        let layout = self.lookup(desc.layout, OP)?;
        check::group_entries(label, &layout.label, &layout.entries, desc.entries)?;
        let mut members: Vec<Member<A>> = Vec::with_capacity(layout.entries.len());
        let mut dynamic: Vec<DynamicBinding> = Vec::new();
        let mut sizes: Vec<u64> = Vec::with_capacity(layout.entries.len());
        for l in &layout.entries {
            let Some(entry) = desc.entries.iter().find(|e| e.binding == l.binding) else {
                continue;
            };
            let stages = check::shader_stages(l.visibility);
            match (l.ty, entry.resource) {
                (
                    BindingType::Buffer {
                        ty,
                        has_dynamic_offset,
                        min_binding_size,
                    },
                    BindingResource::Buffer(b),
                ) => {
                    let buf = self.lookup(b.buffer, OP)?;
                    let facts = check::BufferFacts {
                        label: &buf.label,
                        size: buf.size,
                        usage: buf.usage,
                    };
                    let (size, alignment) = check::buffer(
                        label,
                        l.binding,
                        ty,
                        min_binding_size,
                        &b,
                        facts,
                        &self.limits,
                    )?;
                    let access = match ty {
                        BufferBindingType::Uniform => Access::UNIFORM_READ,
                        BufferBindingType::Storage { read_only: true } => Access::SHADER_READ,
                        BufferBindingType::Storage { read_only: false } => {
                            Access::SHADER_READ | Access::SHADER_WRITE
                        }
                    };
                    let d = has_dynamic_offset.then(|| {
                        dynamic.push(DynamicBinding {
                            binding: l.binding,
                            offset: b.offset,
                            size,
                            buffer_size: buf.size,
                            alignment,
                        });
                        dynamic.len().saturating_sub(1)
                    });
                    sizes.push(size);
                    members.push(Member::Buffer {
                        buffer: buf,
                        offset: b.offset,
                        size,
                        dynamic: d,
                        usage: Use::buffer(stages, access),
                    });
                }
                (BindingType::Sampler(kind), BindingResource::Sampler(s)) => {
                    let sampler = self.lookup(s, OP)?;
                    check::sampler(
                        label,
                        l.binding,
                        kind,
                        &sampler.label,
                        sampler.comparison,
                        sampler.filtering,
                    )?;
                    sizes.push(0);
                    members.push(Member::Sampler(sampler));
                }
                (
                    BindingType::Texture {
                        sample_type,
                        view_dimension,
                        multisampled,
                    },
                    BindingResource::TextureView(v),
                ) => {
                    let view = self.bound_view(v, OP, label)?;
                    check::texture(
                        label,
                        l.binding,
                        sample_type,
                        view_dimension,
                        multisampled,
                        &self.view_facts(&view),
                    )?;
                    let u = Use {
                        stages,
                        access: Access::SHADER_READ,
                        layout: shader_layout(view.texture.desc.usage),
                    };
                    sizes.push(0);
                    members.push(Member::View { view, usage: u });
                }
                (
                    BindingType::StorageTexture {
                        access,
                        format,
                        view_dimension,
                    },
                    BindingResource::TextureView(v),
                ) => {
                    let view = self.bound_view(v, OP, label)?;
                    check::storage_texture(
                        label,
                        l.binding,
                        format,
                        view_dimension,
                        &self.view_facts(&view),
                    )?;
                    let access = match access {
                        StorageTextureAccess::ReadOnly => Access::SHADER_READ,
                        StorageTextureAccess::WriteOnly => Access::SHADER_WRITE,
                        StorageTextureAccess::ReadWrite => {
                            Access::SHADER_READ | Access::SHADER_WRITE
                        }
                    };
                    let u = Use {
                        stages,
                        access,
                        layout: shader_layout(view.texture.desc.usage),
                    };
                    sizes.push(0);
                    members.push(Member::View { view, usage: u });
                }
                (_, resource) => return Err(check::entry_kind(label, l, &resource)),
            }
        }
        let raw = {
            let entries: Vec<vigil_hal::BindGroupEntry<'_, A>> = members
                .iter()
                .zip(layout.entries.iter())
                .map(|(m, l)| vigil_hal::BindGroupEntry {
                    binding: l.binding,
                    resource: match m {
                        Member::Buffer {
                            buffer,
                            offset,
                            size,
                            ..
                        } => vigil_hal::BoundResource::Buffer {
                            buffer: &*buffer.raw,
                            offset: *offset,
                            size: *size,
                        },
                        Member::Sampler(s) => vigil_hal::BoundResource::Sampler(&*s.raw),
                        Member::View { view, usage } => {
                            vigil_hal::BoundResource::TextureView(&*view.raw, usage.layout)
                        }
                    },
                })
                .collect();
            self.hal
                .create_bind_group(&vigil_hal::BindGroupDescriptor {
                    label,
                    layout: &layout.raw,
                    entries: &entries,
                })
                .map_err(|e| self.hal_error(e, OP, label))?
        };
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let compat = layout.compat;
        let (_, _, obj) = self
            .objects
            .bind_groups
            .insert(|index, generation| BindGroupObj {
                raw,
                handle: BindGroup::from_parts(index, generation, id),
                label: label.to_owned(),
                compat,
                members: members.into_boxed_slice(),
                dynamic: dynamic.into_boxed_slice(),
                sizes: sizes.into_boxed_slice(),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, label, "bind group"))?;
        self.notify_created("bind group", label);
        Ok(obj.handle)
    }

    /// The view a texture binding names: live, and its texture live.
    fn bound_view(
        &self,
        v: TextureView,
        op: &'static str,
        label: &str,
    ) -> Result<Arc<super::ViewObj<A>>> {
        let view = self.lookup(v, op)?;
        let t = &view.texture.handle;
        if !self.objects.textures.is_live(t.index(), t.generation()) {
            return Err(validate::texture::texture_destroyed(op, label));
        }
        Ok(view)
    }

    fn view_facts<'v>(&self, view: &'v super::ViewObj<A>) -> check::ViewFacts<'v> {
        check::ViewFacts {
            label: &view.label,
            usage: view.usage,
            dimension: view.dimension,
            sample_count: view.sample_count,
            format: view.format,
            aspect: view.range.aspect,
            mip_level_count: view.range.mip_level_count,
            filterable: self.hal.format_support(view.format).filterable,
        }
    }

    /// Destroys a bind group.
    pub fn destroy_bind_group(&self, group: BindGroup) -> Result<()> {
        drop(self.remove(group, "destroy_bind_group")?);
        Ok(())
    }

    /// Creates a pipeline layout from bind group layouts, in group order.
    pub fn create_pipeline_layout(
        &self,
        desc: &super::PipelineLayoutDescriptor<'_>,
    ) -> Result<PipelineLayout> {
        const OP: &str = "create_pipeline_layout";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        check::immediate_size(desc.label, desc.immediate_size, &self.limits)?;
        if desc.bind_group_layouts.len() as u64 > u64::from(self.limits.max_bind_groups) {
            check::pipeline_layout(
                desc.label,
                &vec![&[][..]; desc.bind_group_layouts.len()],
                &self.limits,
            )?;
        }
        let groups = desc
            .bind_group_layouts
            .iter()
            .map(|&h| self.lookup(h, OP))
            .collect::<Result<Vec<_>>>()?;
        let entries: Vec<&[vigil_hal::BindGroupLayoutEntry]> =
            groups.iter().map(|g| g.entries.as_slice()).collect();
        check::pipeline_layout(desc.label, &entries, &self.limits)?;
        let raw = {
            let raws: Vec<&A::BindGroupLayout> = groups.iter().map(|g| &*g.raw).collect();
            self.hal
                .create_pipeline_layout(&vigil_hal::PipelineLayoutDescriptor {
                    label: desc.label,
                    bind_group_layouts: &raws,
                    immediate_size: desc.immediate_size,
                })
                .map_err(|e| self.hal_error(e, OP, desc.label))?
        };
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let compat = groups.iter().map(|g| g.compat).collect();
        let (_, _, obj) = self
            .objects
            .pipeline_layouts
            .insert(|index, generation| PipelineLayoutObj {
                raw,
                handle: PipelineLayout::from_parts(index, generation, id),
                label: desc.label.to_owned(),
                groups,
                compat,
                immediate_size: desc.immediate_size,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "pipeline layout"))?;
        self.notify_created("pipeline layout", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a pipeline layout (pipelines made with it keep it).
    pub fn destroy_pipeline_layout(&self, layout: PipelineLayout) -> Result<()> {
        drop(self.remove(layout, "destroy_pipeline_layout")?);
        Ok(())
    }
}
