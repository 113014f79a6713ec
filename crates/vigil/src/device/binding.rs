//! Bind group layouts, bind groups and pipeline layouts. A bind group holds what it binds
//! (the objects themselves), so their native objects outlive the group's last use.

use super::{
    BindGroupLayoutObj, BindGroupObj, BindGroupPoolObj, Device, DynamicBinding, GroupExtra,
    GroupMembers, GroupSizes, Member, PipelineLayoutObj, PoolState, shader_layout,
};
use crate::error::Result;
use crate::handle::{
    BindGroup, BindGroupLayout, BindGroupPool, Buffer, Handle, PipelineLayout, Sampler,
    TextureView, Tlas,
};
use crate::native::Owned;
use crate::track::Use;
use crate::validate::{self, binding as check};
use std::sync::Arc;
use vigil_hal::{
    Access, Api, BindingType, BufferBindingType, Features, StorageTextureAccess, TextureFormat,
    TextureSampleType,
};

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

/// What an entry binds: one resource, or the elements of a binding array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingResource<'a> {
    /// A buffer range.
    Buffer(BufferBinding),
    /// A sampler.
    Sampler(Sampler),
    /// A texture view.
    TextureView(TextureView),
    /// Buffer ranges of a binding array, from its first element (or a write's first).
    BufferArray(&'a [BufferBinding]),
    /// Samplers of a binding array.
    SamplerArray(&'a [Sampler]),
    /// Texture views of a binding array.
    TextureViewArray(&'a [TextureView]),
    /// A top-level acceleration structure (`acceleration_structure` in WGSL; needs
    /// `RAY_QUERY`).
    AccelerationStructure(Tlas),
}

/// One resource of a [`BindingResource`].
#[derive(Clone, Copy, Debug)]
enum Element {
    Buffer(BufferBinding),
    Sampler(Sampler),
    View(TextureView),
    Tlas(Tlas),
}

impl BindingResource<'_> {
    /// Whether it gives array elements.
    pub fn is_array(&self) -> bool {
        matches!(
            self,
            BindingResource::BufferArray(_)
                | BindingResource::SamplerArray(_)
                | BindingResource::TextureViewArray(_)
        )
    }

    /// How many resources it gives.
    pub fn len(&self) -> usize {
        match self {
            BindingResource::BufferArray(a) => a.len(),
            BindingResource::SamplerArray(a) => a.len(),
            BindingResource::TextureViewArray(a) => a.len(),
            _ => 1,
        }
    }

    /// Whether it gives no resource (an empty array).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn element(&self, i: usize) -> Option<Element> {
        match *self {
            BindingResource::Buffer(b) if i == 0 => Some(Element::Buffer(b)),
            BindingResource::Sampler(s) if i == 0 => Some(Element::Sampler(s)),
            BindingResource::TextureView(v) if i == 0 => Some(Element::View(v)),
            BindingResource::AccelerationStructure(t) if i == 0 => Some(Element::Tlas(t)),
            BindingResource::BufferArray(a) => a.get(i).copied().map(Element::Buffer),
            BindingResource::SamplerArray(a) => a.get(i).copied().map(Element::Sampler),
            BindingResource::TextureViewArray(a) => a.get(i).copied().map(Element::View),
            _ => None,
        }
    }
}

/// One entry of a bind group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindGroupEntry<'a> {
    /// Binding number in the layout.
    pub binding: u32,
    /// What it binds; for a binding array, its elements from element 0.
    pub resource: BindingResource<'a>,
}

/// How to create a bind group.
#[derive(Clone, Debug)]
pub struct BindGroupDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// The layout it follows.
    pub layout: BindGroupLayout,
    /// One entry per layout binding.
    pub entries: &'a [BindGroupEntry<'a>],
}

/// Elements written into an existing bind group by [`Device::write_bind_group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindGroupWrite<'a> {
    /// Binding number in the layout.
    pub binding: u32,
    /// The first element written (0 for a single resource).
    pub first_element: u32,
    /// The resources, one per element from `first_element`: a single resource for a
    /// binding that is not an array, an array variant for one that is.
    pub resource: BindingResource<'a>,
}

/// One element a bind group binds, as [`Device::bind_group_bindings`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupBinding {
    /// The bound object's label (a view's texture's, for textures).
    pub label: String,
    /// Binding number.
    pub binding: u32,
    /// Array element (0 for a single resource).
    pub element: u32,
    /// The stages that may use it (the layout entry's visibility).
    pub visibility: vigil_hal::ShaderStages,
    /// The layout entry's kind.
    pub ty: BindingType,
    /// What is bound.
    pub resource: GroupResource,
}

/// What one element of a bind group binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupResource {
    /// A buffer range (its base range: dynamic offsets come at bind time).
    Buffer {
        /// The buffer.
        buffer: Buffer,
        /// Start of the range.
        offset: u64,
        /// Length of the range.
        size: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A texture view, with its texture and the mips and layers it covers.
    Texture {
        /// The view.
        view: TextureView,
        /// Its texture.
        texture: crate::handle::Texture,
        /// First mip level.
        base_mip_level: u32,
        /// Mip levels.
        mip_level_count: u32,
        /// First array layer.
        base_array_layer: u32,
        /// Array layers.
        array_layer_count: u32,
        /// The layout shaders see it in through this group ([`sampled_layout`] for a
        /// sampled texture, `General` for a storage texture).
        layout: vigil_hal::TextureLayout,
    },
    /// A sampler.
    Sampler(Sampler),
    /// A top-level acceleration structure (nothing for a graph to track: builds fence
    /// themselves).
    AccelerationStructure(Tlas),
}

/// The layout sampled reads of a texture with `usage` happen in: `General` when it can
/// also be a storage texture (so its sampled and storage uses never disagree),
/// `ShaderReadOnly` otherwise. Bind groups record it when they are made; a render graph
/// plans with it.
pub fn sampled_layout(usage: vigil_hal::TextureUsages) -> vigil_hal::TextureLayout {
    super::objects::shader_layout(usage)
}

/// How to create a bind group pool.
#[derive(Clone, Debug, Default)]
pub struct BindGroupPoolDescriptor<'a> {
    /// Label.
    pub label: &'a str,
}

/// A group's elements resolved and checked, ready for the backend.
struct Resolved<A: Api> {
    /// What is bound, sorted by binding then element.
    members: GroupMembers<A>,
    /// `(binding, element)` of each member; empty for a layout without arrays, whose
    /// members are its entries in order (so the common group allocates nothing for it).
    places: Vec<(u32, u32)>,
    /// As `BindGroupObj::sizes`.
    sizes: GroupSizes,
    /// The group's length of each entry; empty for a layout without arrays.
    lengths: Vec<u32>,
    dynamic: Vec<DynamicBinding>,
    variable_count: Option<u32>,
}

/// Where member `i` of a group is bound: from `places`, or for a layout without arrays
/// (empty `places`) the `i`-th layout entry's element 0.
fn place_of(
    places: &[(u32, u32)],
    layout: &[vigil_hal::BindGroupLayoutEntry],
    i: usize,
) -> (u32, u32) {
    match places.get(i) {
        Some(p) => *p,
        None => (layout.get(i).map_or(u32::MAX, |l| l.binding), 0),
    }
}

/// The native entry of a group's member bound at `(binding, array_element)`.
fn hal_entry<'m, A: Api>(
    (binding, array_element): (u32, u32),
    m: &'m Member<A>,
) -> vigil_hal::BindGroupEntry<'m, A> {
    vigil_hal::BindGroupEntry {
        binding,
        array_element,
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
            Member::Tlas(t) => vigil_hal::BoundResource::AccelerationStructure(&*t.raw),
        },
    }
}

/// The native entries of a group's members (on the stack for groups of up to eight: a
/// group is made without allocating for them).
fn hal_entries<'m, A: Api>(
    elements: impl Iterator<Item = ((u32, u32), &'m Member<A>)>,
) -> smallvec::SmallVec<[vigil_hal::BindGroupEntry<'m, A>; 8]> {
    elements.map(|(place, m)| hal_entry(place, m)).collect()
}

/// What draw-time checks read of a group, per layout entry: the smallest bound size of its
/// buffer elements (`u64::MAX` for a buffer entry with none bound; 0 for other kinds),
/// then, after one per entry, the group's length of each entry (for variable-count arrays
/// against the shader's array length).
fn entry_sizes<A: Api>(
    layout: &[vigil_hal::BindGroupLayoutEntry],
    places: &[(u32, u32)],
    members: &[Member<A>],
    lengths: &[u32],
) -> GroupSizes {
    if places.is_empty() && lengths.is_empty() && members.len() == layout.len() {
        // No arrays and every entry bound: member `i` is entry `i`'s only element.
        return members
            .iter()
            .map(|m| match m {
                Member::Buffer { size, .. } => *size,
                _ => 0,
            })
            .collect();
    }
    let mut sizes = GroupSizes::with_capacity(layout.len().saturating_add(lengths.len()));
    sizes.extend(layout.iter().map(|l| match l.ty {
        BindingType::Buffer { .. } => u64::MAX,
        _ => 0,
    }));
    // Layout entries are sorted by binding: one search per member.
    for (i, m) in members.iter().enumerate() {
        let Member::Buffer { size, .. } = m else {
            continue;
        };
        let (binding, _) = place_of(places, layout, i);
        let at = layout.binary_search_by_key(&binding, |l| l.binding).ok();
        if let Some(s) = at.and_then(|at| sizes.get_mut(at)) {
            *s = (*s).min(*size);
        }
    }
    sizes.extend(lengths.iter().map(|&n| u64::from(n)));
    sizes
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
        let sorted = check::layout_entries(
            desc.label,
            desc.entries,
            &self.limits,
            self.features,
            &|f| self.format_support(f).storage,
        )?;
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
                label: crate::label::Label::new(desc.label),
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

    /// A layout's entries, sorted by binding number: what a render graph reads to derive
    /// the uses of a group it will make over this layout.
    pub fn bind_group_layout_entries(
        &self,
        layout: BindGroupLayout,
    ) -> Result<Vec<vigil_hal::BindGroupLayoutEntry>> {
        Ok(self
            .lookup(layout, "bind_group_layout_entries")?
            .entries
            .clone())
    }

    /// Creates a bind group: every layout binding matched by exactly one live entry of the
    /// right kind and usage, with its range in bounds and aligned (a binding array: its
    /// count of elements, or fewer when it is partially bound or variable-count; a
    /// variable-count binding's length is the number of elements given). The group keeps
    /// what it binds alive until it is destroyed and its last use completed.
    pub fn create_bind_group(&self, desc: &BindGroupDescriptor<'_>) -> Result<BindGroup> {
        self.make_bind_group("create_bind_group", desc, None, false)
    }

    /// Creates a bind group in `pool`: as [`Device::create_bind_group`], and the group
    /// goes stale when the pool is reset ([`Device::reset_bind_group_pool`]).
    pub fn create_bind_group_in(
        &self,
        pool: BindGroupPool,
        desc: &BindGroupDescriptor<'_>,
    ) -> Result<BindGroup> {
        const OP: &str = "create_bind_group_in";
        self.check_alive(OP)?;
        let handle = pool;
        let pool = self.lookup(pool, OP)?;
        let mut st = super::lock(&pool.state);
        if st.destroyed {
            return Err(self.objects.bind_group_pools.explain(handle, self.id, OP));
        }
        let generation = st.generation;
        let group = self.make_bind_group(OP, desc, Some((pool.handle, generation)), false)?;
        st.groups.push(group);
        Ok(group)
    }

    /// Creates a bind group that retains and tracks nothing: validated as
    /// [`Device::create_bind_group`] is at creation, but the group keeps none of what it
    /// binds alive, vigil inserts no barrier or layout transition for it, and a submission
    /// using it is not refused when something it binds was destroyed. It can never be
    /// written ([`Device::write_bind_group`]) and a render graph refuses to import it.
    ///
    /// # Safety
    /// Until every submission that uses the group has completed, the caller keeps every
    /// buffer, texture, view and sampler it binds alive (not destroyed), and makes sure by
    /// its own means (other commands' barriers, waits) that what the shaders read through
    /// it was written before and is not written while they run.
    // The one `unsafe` item outside `native.rs`: it performs no unsafe operation, it hands
    // the caller a contract vigil cannot check.
    #[allow(unsafe_code)]
    pub unsafe fn create_bind_group_untracked(
        &self,
        desc: &BindGroupDescriptor<'_>,
    ) -> Result<BindGroup> {
        self.make_bind_group("create_bind_group_untracked", desc, None, true)
    }

    fn make_bind_group(
        &self,
        op: &'static str,
        desc: &BindGroupDescriptor<'_>,
        pool: Option<(BindGroupPool, u32)>,
        untracked: bool,
    ) -> Result<BindGroup> {
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", op, desc.label);
        self.check_alive(op)?;
        // Read before the members are checked: a member destroyed after that moves it.
        let epoch = self
            .destroy_epoch
            .load(std::sync::atomic::Ordering::Acquire);
        let label = desc.label;
        let layout = self.lookup(desc.layout, op)?;
        check::group_entries(label, &layout.label, &layout.entries, desc.entries)?;
        let resolved = self.resolve_group(op, label, &layout.entries, desc.entries)?;
        let raw = {
            // A group of one member (most groups) needs no list built.
            let (one, many);
            let entries: &[vigil_hal::BindGroupEntry<'_, A>] = if let [m] = &resolved.members[..] {
                one = [hal_entry(place_of(&resolved.places, &layout.entries, 0), m)];
                &one
            } else {
                many = hal_entries(
                    resolved
                        .members
                        .iter()
                        .enumerate()
                        .map(|(i, m)| (place_of(&resolved.places, &layout.entries, i), m)),
                );
                &many
            };
            self.hal
                .create_bind_group(&vigil_hal::BindGroupDescriptor {
                    label,
                    layout: &layout.raw,
                    entries,
                    variable_count: resolved.variable_count,
                })
                .map_err(|e| self.hal_error(e, op, label))?
        };
        let raw = Owned::new(&self.hal, raw);
        let Resolved {
            mut members,
            mut places,
            sizes,
            lengths,
            dynamic,
            ..
        } = resolved;
        if untracked {
            members = GroupMembers::new();
            places = Vec::new();
        }
        let id = self.id;
        let compat = layout.compat;
        let (index, generation) = self
            .objects
            .bind_groups
            .insert_only(|index, generation| BindGroupObj {
                raw,
                handle: BindGroup::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                compat,
                epoch,
                distinct: super::objects::members_distinct(&members),
                members,
                dynamic: dynamic.into_boxed_slice(),
                sizes,
                layout,
                extra: (!places.is_empty() || !lengths.is_empty() || untracked || pool.is_some())
                    .then(|| {
                        Box::new(GroupExtra {
                            places: places.into_boxed_slice(),
                            lengths: lengths.into_boxed_slice(),
                            untracked,
                            pool,
                        })
                    }),
            })
            .ok_or_else(|| super::buffer::registry_full(op, label, "bind group"))?;
        self.notify_created("bind group", label);
        Ok(BindGroup::from_parts(index, generation, id))
    }

    /// Every element of a new group's entries, checked against its layout entry.
    fn resolve_group(
        &self,
        op: &'static str,
        label: &str,
        layout: &[vigil_hal::BindGroupLayoutEntry],
        entries: &[BindGroupEntry<'_>],
    ) -> Result<Resolved<A>> {
        let arrays = layout.iter().any(|l| l.array.is_some());
        let mut out = Resolved {
            members: GroupMembers::with_capacity(layout.len()),
            places: Vec::new(),
            sizes: GroupSizes::new(),
            lengths: Vec::new(),
            dynamic: Vec::new(),
            variable_count: None,
        };
        for l in layout {
            let Some(entry) = entries.iter().find(|e| e.binding == l.binding) else {
                continue;
            };
            let n = check::array_length(label, l, &entry.resource, 0, None)?;
            if arrays {
                let variable = l
                    .array_flags()
                    .contains(vigil_hal::BindingArrayFlags::VARIABLE_COUNT);
                if variable {
                    out.variable_count = Some(n);
                }
                out.lengths.push(if variable { n } else { l.count() });
            }
            for i in 0..n {
                let Some(element) = entry.resource.element(i as usize) else {
                    continue;
                };
                let bound = self.bind_element(op, label, l, element, &mut out.dynamic)?;
                out.members.push(bound);
                if arrays {
                    out.places.push((l.binding, i));
                }
            }
        }
        out.sizes = entry_sizes(layout, &out.places, &out.members, &out.lengths);
        Ok(out)
    }

    /// One element bound at layout entry `l`: the object looked up and checked.
    fn bind_element(
        &self,
        op: &'static str,
        label: &str,
        l: &vigil_hal::BindGroupLayoutEntry,
        element: Element,
        dynamic: &mut Vec<DynamicBinding>,
    ) -> Result<Member<A>> {
        let stages = check::shader_stages(l.visibility);
        match (l.ty, element) {
            (
                BindingType::Buffer {
                    ty,
                    has_dynamic_offset,
                    min_binding_size,
                },
                Element::Buffer(b),
            ) => {
                let buf = self.lookup(b.buffer, op)?;
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
                Ok(Member::Buffer {
                    buffer: buf,
                    offset: b.offset,
                    size,
                    dynamic: d,
                    usage: Use::buffer(stages, access),
                })
            }
            (BindingType::Sampler(kind), Element::Sampler(s)) => {
                let sampler = self.lookup(s, op)?;
                check::sampler(
                    label,
                    l.binding,
                    kind,
                    &sampler.label,
                    sampler.comparison,
                    sampler.filtering,
                )?;
                Ok(Member::Sampler(sampler))
            }
            (
                BindingType::Texture {
                    sample_type,
                    view_dimension,
                    multisampled,
                },
                Element::View(v),
            ) => {
                let view = self.bound_view(v, op, label)?;
                check::texture(
                    label,
                    l.binding,
                    sample_type,
                    view_dimension,
                    multisampled,
                    &self.view_facts(&view),
                )?;
                let usage = Use {
                    stages,
                    access: Access::SHADER_READ,
                    layout: shader_layout(view.texture.desc.usage),
                };
                Ok(Member::View { view, usage })
            }
            (
                BindingType::StorageTexture {
                    access,
                    format,
                    view_dimension,
                },
                Element::View(v),
            ) => {
                let view = self.bound_view(v, op, label)?;
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
                    StorageTextureAccess::ReadWrite | StorageTextureAccess::Atomic => {
                        Access::SHADER_READ | Access::SHADER_WRITE
                    }
                };
                let usage = Use {
                    stages,
                    access,
                    layout: shader_layout(view.texture.desc.usage),
                };
                Ok(Member::View { view, usage })
            }
            (BindingType::AccelerationStructure, Element::Tlas(t)) => {
                Ok(Member::Tlas(self.lookup(t, op)?))
            }
            (_, element) => Err(check::entry_kind(
                label,
                l,
                match element {
                    Element::Buffer(_) => "a buffer",
                    Element::Sampler(_) => "a sampler",
                    Element::View(_) => "a texture view",
                    Element::Tlas(_) => "an acceleration structure",
                },
            )),
        }
    }

    /// Writes elements into a bind group: each checked as at creation, inside the group's
    /// length of its binding. The native descriptors are updated first; the group lets go
    /// of what it held at those elements (and keeps the new resources) only once that
    /// succeeded. A refused write changes nothing.
    ///
    /// A group is written only while nothing uses it: no open encoder has recorded it and
    /// no unfinished submission uses it (`group.write-in-use`; finish or drop the encoder,
    /// wait for the submission). Commands recorded after the write see the new elements.
    /// For bindless tables written every frame, keep one group per frame in flight.
    ///
    /// Differs from WebGPU, whose bind groups never change; follows Vulkan's
    /// `vkUpdateDescriptorSets` with its in-use rule enforced.
    pub fn write_bind_group(&self, group: BindGroup, writes: &[BindGroupWrite<'_>]) -> Result<()> {
        const OP: &str = "write_bind_group";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, "");
        self.check_alive(OP)?;
        let obj = self.lookup(group, OP)?;
        let label = obj.label.clone();
        if obj.extra.as_ref().is_some_and(|e| e.untracked) {
            return Err(crate::error::fail!(
                GroupUntracked,
                OP,
                &label,
                "the group was made untracked, and an untracked group is never written"
            ));
        }
        let layout = obj.layout.clone();
        let lengths: Box<[u32]> = obj.lengths().into();
        drop(obj);
        let arrays = !lengths.is_empty();
        let mut elements: Vec<((u32, u32), Member<A>)> = Vec::new();
        let mut dynamic = Vec::new();
        for w in writes {
            let Some((at, l)) = layout
                .entries
                .iter()
                .enumerate()
                .find(|(_, l)| l.binding == w.binding)
            else {
                return Err(crate::error::fail!(
                    GroupEntryUnknown,
                    OP,
                    &label,
                    "binding {} is not in the layout '{}'",
                    w.binding,
                    layout.label
                ));
            };
            let length = lengths.get(at).copied().unwrap_or(l.count());
            let n = check::array_length(&label, l, &w.resource, w.first_element, Some(length))?;
            for i in 0..n {
                let Some(element) = w.resource.element(i as usize) else {
                    continue;
                };
                let bound = self.bind_element(OP, &label, l, element, &mut dynamic)?;
                let place = (w.binding, w.first_element.saturating_add(i));
                elements.retain(|(p, _)| *p != place);
                elements.push((place, bound));
            }
        }
        elements.sort_by_key(|(p, _)| *p);
        let entries = hal_entries(elements.iter().map(|(p, m)| (*p, m)));
        let apply = |g: &mut BindGroupObj<A>| -> Result<()> {
            self.hal
                .update_bind_group(&g.raw, &g.layout.raw, &entries)
                .map_err(|e| self.hal_error(e, OP, &label))?;
            let places: Box<[(u32, u32)]> = g.places().into();
            let mut placed: Vec<((u32, u32), Member<A>)> = std::mem::take(&mut g.members)
                .into_iter()
                .enumerate()
                .map(|(i, m)| (place_of(&places, &g.layout.entries, i), m))
                .collect();
            for (place, bound) in &elements {
                let mut member = bound.clone();
                // A dynamic binding keeps its slot in the group's offset table (the index
                // `bind_element` gave counts this write's bindings, not the group's).
                if let Member::Buffer {
                    dynamic: dynamic @ Some(_),
                    ..
                } = &mut member
                {
                    *dynamic = g.dynamic.iter().position(|d| d.binding == place.0);
                }
                match placed.binary_search_by_key(place, |(p, _)| *p) {
                    Ok(i) => {
                        if let Some(slot) = placed.get_mut(i) {
                            slot.1 = member;
                        }
                    }
                    Err(i) => placed.insert(i, (*place, member)),
                }
            }
            // A dynamic binding rewritten takes its new range in its slot.
            for (_, m) in placed.iter_mut() {
                if let Member::Buffer {
                    dynamic: Some(d),
                    offset,
                    size,
                    buffer,
                    ..
                } = m
                {
                    if let Some(slot) = g.dynamic.get_mut(*d) {
                        slot.offset = *offset;
                        slot.size = *size;
                        slot.buffer_size = buffer.size;
                    }
                }
            }
            let (places, members): (Vec<(u32, u32)>, GroupMembers<A>) = placed.into_iter().unzip();
            g.sizes = entry_sizes(&g.layout.entries, &places, &members, g.lengths());
            // A layout without arrays keeps its members in entry order, one each.
            if arrays {
                g.extra.get_or_insert_with(Box::default).places = places.into_boxed_slice();
            }
            g.distinct = super::objects::members_distinct(&members);
            g.members = members;
            Ok(())
        };
        let mut outcome = self
            .objects
            .bind_groups
            .with_unique(group, self.id, OP, |g| apply(g))?;
        if outcome.is_none() {
            // Completed submissions may still hold the group until their release runs.
            self.poll()?;
            outcome = self
                .objects
                .bind_groups
                .with_unique(group, self.id, OP, |g| apply(g))?;
        }
        match outcome {
            Some(r) => r,
            None => Err(crate::error::fail!(
                GroupWriteInUse,
                OP,
                &label,
                "an open encoder has recorded the group or an unfinished submission uses it; write it before recording, or after the work completed"
            )),
        }
    }

    /// Creates a bind group pool: groups made in it ([`Device::create_bind_group_in`]) go
    /// stale together when it is reset.
    pub fn create_bind_group_pool(
        &self,
        desc: &BindGroupPoolDescriptor<'_>,
    ) -> Result<BindGroupPool> {
        const OP: &str = "create_bind_group_pool";
        self.check_alive(OP)?;
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .bind_group_pools
            .insert(|index, generation| BindGroupPoolObj {
                handle: BindGroupPool::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                state: std::sync::Mutex::new(PoolState::default()),
                _api: std::marker::PhantomData,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "bind group pool"))?;
        self.notify_created("bind group pool", desc.label);
        Ok(obj.handle)
    }

    /// Resets a bind group pool: every group made in it is stale from now on (any use is
    /// refused with `group.pool-reset`), and the pool's generation moves on. Safe at any
    /// moment: each group's native descriptor set goes back to the device once the last
    /// submission using it has completed (work already recorded or submitted keeps it).
    /// Returns the pool's new generation.
    pub fn reset_bind_group_pool(&self, pool: BindGroupPool) -> Result<u32> {
        const OP: &str = "reset_bind_group_pool";
        let obj = self.lookup(pool, OP)?;
        self.reset_pool(&obj, OP, false)
    }

    fn reset_pool(
        &self,
        pool: &BindGroupPoolObj<A>,
        op: &'static str,
        destroying: bool,
    ) -> Result<u32> {
        let mut st = super::lock(&pool.state);
        st.destroyed |= destroying;
        let generation = st.generation.wrapping_add(1);
        let why = format!(
            "was made in generation {} of bind group pool '{}', which was reset (now generation {generation})",
            st.generation, pool.label
        );
        let groups = std::mem::take(&mut st.groups);
        st.generation = generation;
        drop(st);
        let mut taken = Vec::with_capacity(groups.len());
        for g in groups {
            // A group destroyed one by one is no longer there; that is fine.
            if let Ok(obj) = self.objects.bind_groups.remove_because(
                g,
                self.id,
                op,
                crate::rules::Rule::GroupPoolReset,
                &why,
            ) {
                taken.push(obj);
            }
        }
        drop(taken);
        Ok(generation)
    }

    /// Destroys a bind group pool, resetting it first (its groups go stale).
    pub fn destroy_bind_group_pool(&self, pool: BindGroupPool) -> Result<()> {
        const OP: &str = "destroy_bind_group_pool";
        let obj = self.remove(pool, OP)?;
        self.reset_pool(&obj, OP, true)?;
        Ok(())
    }

    /// Every element a bind group binds, in binding then element order: what a render
    /// graph imports through the group. Refused for a stale group, an untracked one (it
    /// retains nothing to report, `group.untracked`), and one binding a resource that was
    /// destroyed since (`group.member-destroyed`).
    pub fn bind_group_bindings(&self, group: BindGroup) -> Result<Vec<GroupBinding>> {
        const OP: &str = "bind_group_bindings";
        let g = self.lookup(group, OP)?;
        if g.extra.as_ref().is_some_and(|e| e.untracked) {
            return Err(crate::error::fail!(
                GroupUntracked,
                OP,
                &g.label,
                "the group is untracked: it retains nothing, so nothing can be imported through it"
            ));
        }
        let places = g.places();
        let mut out = Vec::with_capacity(g.members.len());
        for (i, m) in g.members.iter().enumerate() {
            let (binding, element) = place_of(places, &g.layout.entries, i);
            let Some(l) = g.layout.entries.iter().find(|l| l.binding == binding) else {
                continue;
            };
            let gone = |kind: &str, label: &str| {
                crate::error::fail!(
                    GroupMemberDestroyed,
                    OP,
                    &g.label,
                    "binding {binding} element {element}: its {kind} '{label}' was destroyed"
                )
            };
            let label = match m {
                Member::Buffer { buffer, .. } => buffer.label.clone(),
                Member::View { view, .. } => view.texture.label.clone(),
                Member::Sampler(s) => s.label.clone(),
                Member::Tlas(t) => t.label.clone(),
            };
            let resource = match m {
                Member::Buffer {
                    buffer,
                    offset,
                    size,
                    ..
                } => {
                    let h = buffer.handle;
                    if !self.objects.buffers.is_live(h.index(), h.generation()) {
                        return Err(gone("buffer", &buffer.label));
                    }
                    GroupResource::Buffer {
                        buffer: h,
                        offset: *offset,
                        size: *size,
                        buffer_size: buffer.size,
                    }
                }
                Member::View { view, usage } => {
                    let (v, t) = (view.handle, view.texture.handle);
                    if !self.objects.views.is_live(v.index(), v.generation()) {
                        return Err(gone("texture view", &view.label));
                    }
                    if !self.objects.textures.is_live(t.index(), t.generation()) {
                        return Err(gone("texture", &view.texture.label));
                    }
                    GroupResource::Texture {
                        view: v,
                        texture: t,
                        base_mip_level: view.range.base_mip_level,
                        mip_level_count: view.range.mip_level_count,
                        base_array_layer: view.range.base_array_layer,
                        array_layer_count: view.range.array_layer_count,
                        layout: usage.layout,
                    }
                }
                Member::Sampler(s) => {
                    let h = s.handle;
                    if !self.objects.samplers.is_live(h.index(), h.generation()) {
                        return Err(gone("sampler", &s.label));
                    }
                    GroupResource::Sampler(h)
                }
                Member::Tlas(t) => {
                    let h = t.handle;
                    if !self.objects.tlas.is_live(h.index(), h.generation()) {
                        return Err(gone("top-level acceleration structure", &t.label));
                    }
                    GroupResource::AccelerationStructure(h)
                }
            };
            out.push(GroupBinding {
                label: label.to_string(),
                binding,
                element,
                visibility: l.visibility,
                ty: l.ty,
                resource,
            });
        }
        Ok(out)
    }

    /// The pool a bind group was made in and the pool's generation then (`None` for a group
    /// made outside a pool). Refused for a stale group, as every use of one is.
    pub fn bind_group_pool_of(&self, group: BindGroup) -> Result<Option<(BindGroupPool, u32)>> {
        Ok(self
            .lookup(group, "bind_group_pool_of")?
            .extra
            .as_ref()
            .and_then(|e| e.pool))
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
        if view.texture.frame {
            // A group would keep the frame past its present, which a swapchain image
            // cannot outlive.
            return Err(crate::error::fail!(
                SurfaceFrameTexture,
                op,
                label,
                "view '{}' is of a surface's frame, which is rendered to or copied, never bound in a group",
                view.label
            ));
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
            filterable: self.filterable(view.format),
        }
    }

    /// Whether a sampled binding may filter views of `format`: WebGPU's capability (the
    /// 32-bit floats only with `FLOAT32_FILTERABLE`) and the device's.
    fn filterable(&self, format: TextureFormat) -> bool {
        use TextureFormat as F;
        let webgpu = match format.info().sample_type {
            TextureSampleType::Float { filterable } => {
                filterable
                    || (self.features.contains(Features::FLOAT32_FILTERABLE)
                        && matches!(format, F::R32Float | F::Rg32Float | F::Rgba32Float))
            }
            _ => false,
        };
        webgpu && self.format_support(format).filterable
    }

    /// Destroys a bind group.
    pub fn destroy_bind_group(&self, group: BindGroup) -> Result<()> {
        drop(self.remove(group, "destroy_bind_group")?);
        Ok(())
    }

    /// Creates a pipeline layout from bind group layouts, in group order. Its immediate
    /// data is visible to every stage the device has.
    pub fn create_pipeline_layout(
        &self,
        desc: &super::PipelineLayoutDescriptor<'_>,
    ) -> Result<PipelineLayout> {
        // The backend leaves out the task and mesh stages on a device without them.
        let every = vigil_hal::ShaderStages::VERTEX_FRAGMENT
            | vigil_hal::ShaderStages::COMPUTE
            | vigil_hal::ShaderStages::MESH;
        self.pipeline_layout_for(desc, every)
    }

    /// [`Device::create_pipeline_layout`] with the immediate data visible to `stages` only
    /// (the pointer tier's layouts: those of the pipelines they serve).
    pub(crate) fn pipeline_layout_for(
        &self,
        desc: &super::PipelineLayoutDescriptor<'_>,
        stages: vigil_hal::ShaderStages,
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
                    immediate_stages: stages,
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
                label: crate::label::Label::new(desc.label),
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
