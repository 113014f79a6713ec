//! Building a graph: resources (imported with their initial state, or transient), bind
//! groups imported with everything they bind, and passes with their uses and recorders.

use crate::error::{GraphError, Result};
use crate::state::{Access, Layout, ResourceState, Usage, shader_stages};
use std::collections::HashMap;
use vigil::{
    Api, BindGroup, BindGroupLayout, BindingType, Buffer, BufferBindingType, BufferUsages,
    CommandEncoder, DefaultApi, Device, GroupResource, Sampler, StorageTextureAccess, Texture,
    TextureFormat, TextureUsages, TextureView,
};

/// What identifies an imported resource: its handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKey {
    /// A buffer.
    Buffer(Buffer),
    /// A texture (a view's texture, for views bound in groups).
    Texture(Texture),
}

/// A resource of one graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub(crate) u32);

/// A pass of one graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassId(pub(crate) u32);

/// A bind group imported into one graph (with its dynamic offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId(pub(crate) u32);

/// The part of a resource a use covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Range {
    /// All of it.
    Whole,
    /// Bytes `offset..offset + size` of a buffer.
    Bytes {
        /// First byte.
        offset: u64,
        /// Length.
        size: u64,
    },
    /// Mips and layers of a texture.
    Subresources {
        /// First mip level.
        base_mip_level: u32,
        /// Mip levels.
        mip_level_count: u32,
        /// First array layer.
        base_array_layer: u32,
        /// Array layers.
        array_layer_count: u32,
    },
}

impl Range {
    /// Mips and layers as `(first mip, mips, first layer, layers)`, for a subresource range.
    fn subresources(&self) -> Option<(u32, u32, u32, u32)> {
        match *self {
            Range::Subresources {
                base_mip_level,
                mip_level_count,
                base_array_layer,
                array_layer_count,
            } => Some((
                base_mip_level,
                mip_level_count,
                base_array_layer,
                array_layer_count,
            )),
            _ => None,
        }
    }

    /// Whether two ranges of one resource share any part.
    pub fn overlaps(&self, other: &Range) -> bool {
        let meet =
            |a: u64, an: u64, b: u64, bn: u64| a < b.saturating_add(bn) && b < a.saturating_add(an);
        if let (Some((m, mn, l, ln)), Some((m2, mn2, l2, ln2))) =
            (self.subresources(), other.subresources())
        {
            let w = u64::from;
            return meet(w(m), w(mn), w(m2), w(mn2)) && meet(w(l), w(ln), w(l2), w(ln2));
        }
        match (self, other) {
            (
                Range::Bytes { offset, size },
                Range::Bytes {
                    offset: o2,
                    size: s2,
                },
            ) => meet(*offset, *size, *o2, *s2),
            _ => true,
        }
    }

    /// The smallest range covering both.
    pub fn union(&self, other: &Range) -> Range {
        if let (Some((m, mn, l, ln)), Some((m2, mn2, l2, ln2))) =
            (self.subresources(), other.subresources())
        {
            let (m0, l0) = (m.min(m2), l.min(l2));
            let m1 = m.saturating_add(mn).max(m2.saturating_add(mn2));
            let l1 = l.saturating_add(ln).max(l2.saturating_add(ln2));
            return Range::Subresources {
                base_mip_level: m0,
                mip_level_count: m1 - m0,
                base_array_layer: l0,
                array_layer_count: l1 - l0,
            };
        }
        match (self, other) {
            (
                Range::Bytes { offset, size },
                Range::Bytes {
                    offset: o2,
                    size: s2,
                },
            ) => {
                let start = (*offset).min(*o2);
                let end = offset.saturating_add(*size).max(o2.saturating_add(*s2));
                Range::Bytes {
                    offset: start,
                    size: end - start,
                }
            }
            (a, b) if a == b => *a,
            _ => Range::Whole,
        }
    }
}

/// One use of a resource by a pass: which part, and in what state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The resource.
    pub resource: ResourceId,
    /// The part used.
    pub range: Range,
    /// How.
    pub state: ResourceState,
}

/// A transient buffer the graph creates at its first execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransientBuffer {
    /// Size in bytes.
    pub size: u64,
    /// Usages.
    pub usage: BufferUsages,
}

/// A transient texture the graph creates at its first execution (a 2D texture, or an
/// array of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransientTexture {
    /// `[width, height]` in texels.
    pub size: [u32; 2],
    /// Array layers.
    pub array_layers: u32,
    /// Mip levels.
    pub mip_level_count: u32,
    /// Samples per texel.
    pub sample_count: u32,
    /// Texel format.
    pub format: TextureFormat,
    /// Usages.
    pub usage: TextureUsages,
}

impl TransientTexture {
    /// Bytes its texels take: every mip level of every layer, times the samples (what a
    /// driver allocates is at least this).
    pub fn bytes(&self) -> u64 {
        vigil::texture_bytes(&self.descriptor(""))
    }

    /// The descriptor a texture made for it has.
    pub fn descriptor<'a>(&self, label: &'a str) -> vigil::TextureDescriptor<'a> {
        vigil::TextureDescriptor {
            label,
            dimension: vigil::TextureDimension::D2,
            size: self.size,
            array_layers: self.array_layers,
            mip_level_count: self.mip_level_count,
            sample_count: self.sample_count,
            format: self.format,
            usage: self.usage,
        }
    }

    /// Whether `other` can live in a texture made for `self`: the same shape and format
    /// (usages are joined).
    pub fn fits(&self, other: &TransientTexture) -> bool {
        TransientTexture {
            usage: other.usage,
            ..*self
        } == *other
    }
}

/// A resource the graph makes: a buffer or a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transient {
    /// A buffer.
    Buffer(TransientBuffer),
    /// A texture.
    Texture(TransientTexture),
}

impl Transient {
    /// Its bytes ([`TransientTexture::bytes`] for a texture).
    pub fn bytes(&self) -> u64 {
        match self {
            Transient::Buffer(b) => b.size,
            Transient::Texture(t) => t.bytes(),
        }
    }
}

pub(crate) struct ResourceEntry {
    pub name: String,
    pub key: Option<ResourceKey>,
    pub initial: ResourceState,
    pub texture: bool,
    pub transient: Option<Transient>,
}

pub(crate) struct GroupEntry {
    /// The group: an imported one's handle, or the one the graph made over its layout
    /// (at the first execution that runs a pass using it).
    pub group: Option<BindGroup>,
    pub offsets: Vec<u32>,
    pub scopes: Vec<Scope>,
    /// For a group the graph makes: its label, layout and entries.
    pub owned: Option<OwnedGroup>,
}

pub(crate) struct OwnedGroup {
    pub label: String,
    pub layout: BindGroupLayout,
    pub entries: Vec<GraphGroupEntry>,
}

/// What one binding of a group the graph makes binds ([`Graph::create_bind_group`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphResource {
    /// A range of a buffer resource (imported or transient); `size: None` binds to its
    /// end.
    Buffer {
        /// The resource.
        resource: ResourceId,
        /// First byte.
        offset: u64,
        /// Length.
        size: Option<u64>,
    },
    /// A whole transient texture, through the view the graph makes of it.
    Texture(ResourceId),
    /// A sampler.
    Sampler(Sampler),
}

/// One binding of a group the graph makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphGroupEntry {
    /// Binding number in the layout.
    pub binding: u32,
    /// What it binds.
    pub resource: GraphResource,
}

/// The context a pass records in: the encoder, and the groups and transient buffers the
/// pass was given.
pub struct PassContext<'a, A: Api = DefaultApi> {
    /// The encoder of the execution.
    pub encoder: &'a mut CommandEncoder<A>,
    pub(crate) groups: &'a [(u32, BindGroup, Vec<u32>)],
    pub(crate) buffers: &'a HashMap<ResourceId, Buffer>,
    pub(crate) textures: &'a HashMap<ResourceId, (Texture, Option<TextureView>)>,
}

impl<'a, A: Api> PassContext<'a, A> {
    /// Binds every group the pass uses at its set index, with the dynamic offsets it was
    /// imported with (ordered by binding number, as the layout orders them).
    pub fn set_bind_groups(&mut self) -> vigil::Result<()> {
        PassGroups(self.groups).bind(self.encoder)
    }

    /// The encoder and the pass's groups apart, for recording code that takes the encoder
    /// and binds the groups in the middle (after beginning a pass and setting a
    /// pipeline).
    pub fn parts(&mut self) -> (&mut CommandEncoder<A>, PassGroups<'a>) {
        (self.encoder, PassGroups(self.groups))
    }

    /// The buffer behind a resource: an imported buffer's handle, or the buffer the graph
    /// made for a transient one.
    pub fn buffer(&self, id: ResourceId) -> Option<Buffer> {
        self.buffers.get(&id).copied()
    }

    /// The texture behind a resource: an imported texture's handle, or the texture the
    /// graph made for a transient one (shared with transients whose lifetimes do not
    /// overlap this one's).
    pub fn texture(&self, id: ResourceId) -> Option<Texture> {
        self.textures.get(&id).map(|(t, _)| *t)
    }

    /// The view of the whole texture the graph made for a transient texture (for its
    /// attachments); `None` for imported textures, whose views the caller has.
    pub fn view(&self, id: ResourceId) -> Option<TextureView> {
        self.textures.get(&id).and_then(|(_, v)| *v)
    }
}

/// The groups a pass binds ([`PassContext::parts`]).
#[derive(Clone, Copy, Debug)]
pub struct PassGroups<'a>(&'a [(u32, BindGroup, Vec<u32>)]);

impl PassGroups<'_> {
    /// Binds every group at its set index with its dynamic offsets, as
    /// [`PassContext::set_bind_groups`] does.
    pub fn bind<A: Api>(&self, encoder: &mut CommandEncoder<A>) -> vigil::Result<()> {
        for (set, group, offsets) in self.0 {
            encoder.set_bind_group(*set, *group, offsets)?;
        }
        Ok(())
    }
}

/// What a pass records, given its context.
pub type Recorder<A> = dyn FnMut(&mut PassContext<'_, A>) -> vigil::Result<()> + Send;

/// What kind of pass it is (shown in the DOT export).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    /// Compute dispatches.
    Compute,
    /// A render pass.
    Render,
    /// Copies.
    Copy,
}

pub(crate) struct PassEntry<A: Api> {
    pub name: String,
    pub kind: PassKind,
    pub scopes: Vec<Scope>,
    pub groups: Vec<(u32, GroupId)>,
    pub keep: bool,
    pub record: Option<Box<Recorder<A>>>,
}

/// A render graph under construction. [`Graph::compile`] turns it into a
/// [`crate::CompiledGraph`] that runs any number of times.
pub struct Graph<A: Api = DefaultApi> {
    pub(crate) resources: Vec<ResourceEntry>,
    pub(crate) index: HashMap<ResourceKey, ResourceId>,
    pub(crate) groups: Vec<GroupEntry>,
    pub(crate) passes: Vec<PassEntry<A>>,
}

impl<A: Api> Default for Graph<A> {
    fn default() -> Self {
        Graph {
            resources: Vec::new(),
            index: HashMap::new(),
            groups: Vec::new(),
            passes: Vec::new(),
        }
    }
}

fn id32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<A: Api> Graph<A> {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Imports a buffer in `initial` state. Importing it again (directly or through a bind
    /// group) gives the same resource, if the state is the same.
    pub fn import_buffer(
        &mut self,
        name: &str,
        buffer: Buffer,
        initial: ResourceState,
    ) -> Result<ResourceId> {
        self.import(name, ResourceKey::Buffer(buffer), initial)
    }

    /// Imports a texture in `initial` state (see [`Graph::import_buffer`]).
    pub fn import_texture(
        &mut self,
        name: &str,
        texture: Texture,
        initial: ResourceState,
    ) -> Result<ResourceId> {
        self.import(name, ResourceKey::Texture(texture), initial)
    }

    fn import(
        &mut self,
        name: &str,
        key: ResourceKey,
        initial: ResourceState,
    ) -> Result<ResourceId> {
        if let Some(&id) = self.index.get(&key) {
            let e = self.resource(id)?;
            if e.initial != initial {
                return Err(GraphError::ConflictingInitialState {
                    resource: e.name.clone(),
                    first: e.initial,
                    second: initial,
                });
            }
            return Ok(id);
        }
        let id = ResourceId(id32(self.resources.len()));
        self.resources.push(ResourceEntry {
            name: name.to_owned(),
            key: Some(key),
            initial,
            texture: matches!(key, ResourceKey::Texture(_)),
            transient: None,
        });
        self.index.insert(key, id);
        Ok(id)
    }

    /// A buffer the graph creates at its first execution and keeps for the next ones.
    pub fn create_buffer(&mut self, name: &str, desc: TransientBuffer) -> ResourceId {
        let id = ResourceId(id32(self.resources.len()));
        self.resources.push(ResourceEntry {
            name: name.to_owned(),
            key: None,
            initial: ResourceState::UNUSED,
            texture: false,
            transient: Some(Transient::Buffer(desc)),
        });
        id
    }

    /// A texture the graph creates at its first execution and keeps for the next ones,
    /// with a view of all of it ([`PassContext::view`]). Its contents are undefined at
    /// its first use in each execution: textures whose lifetimes do not overlap and
    /// whose descriptions fit share one.
    pub fn create_texture(&mut self, name: &str, desc: TransientTexture) -> ResourceId {
        let id = ResourceId(id32(self.resources.len()));
        self.resources.push(ResourceEntry {
            name: name.to_owned(),
            key: None,
            initial: ResourceState::UNUSED,
            texture: true,
            transient: Some(Transient::Texture(desc)),
        });
        id
    }

    pub(crate) fn resource(&self, id: ResourceId) -> Result<&ResourceEntry> {
        self.resources
            .get(id.0 as usize)
            .ok_or(GraphError::UnknownId("resource", id.0))
    }

    /// The resource an imported handle became, if it was imported.
    pub fn resource_of(&self, key: ResourceKey) -> Option<ResourceId> {
        self.index.get(&key).copied()
    }

    /// Every resource, in the order they were added, with its name.
    pub fn resources(&self) -> impl Iterator<Item = (ResourceId, &str)> + '_ {
        self.resources
            .iter()
            .enumerate()
            .map(|(i, e)| (ResourceId(id32(i)), e.name.as_str()))
    }

    /// A resource's name and initial state.
    pub fn describe(&self, id: ResourceId) -> Option<(&str, ResourceState)> {
        self.resources
            .get(id.0 as usize)
            .map(|e| (e.name.as_str(), e.initial))
    }

    /// Imports a bind group and, through it, every resource it binds: each is imported as
    /// [`Graph::import_buffer`] / [`Graph::import_texture`] would, in the state `initial`
    /// gives for it (so a resource already imported must be given the same state). The
    /// group's uses become scopes of the passes that use it: uniform buffers a uniform
    /// read over the exact range (the dynamic offset applied), storage buffers a read, or
    /// read and write unless read-only, sampled textures a shader read in the read-only
    /// layout over the view's mips and layers, storage textures their access in the
    /// general layout, samplers nothing.
    ///
    /// Refused: an untracked or stale group, one binding a destroyed resource (the
    /// device's error), and dynamic offsets of the wrong number, alignment or range.
    pub fn import_bind_group(
        &mut self,
        device: &Device<A>,
        group: BindGroup,
        dynamic_offsets: &[u32],
        initial: impl Fn(ResourceKey) -> ResourceState,
    ) -> Result<GroupId> {
        let bindings = device.bind_group_bindings(group)?;
        let dynamic: Vec<usize> = bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                matches!(
                    b.ty,
                    BindingType::Buffer {
                        has_dynamic_offset: true,
                        ..
                    }
                )
            })
            .map(|(i, _)| i)
            .collect();
        if dynamic.len() != dynamic_offsets.len() {
            return Err(GraphError::DynamicOffsetCount {
                expected: dynamic.len(),
                given: dynamic_offsets.len(),
            });
        }
        let limits = device.limits();
        let mut offsets_of = HashMap::new();
        for (&i, &offset) in dynamic.iter().zip(dynamic_offsets) {
            let Some(b) = bindings.get(i) else { continue };
            let alignment = match b.ty {
                BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    ..
                } => limits.min_uniform_buffer_offset_alignment,
                _ => limits.min_storage_buffer_offset_alignment,
            }
            .max(1);
            if offset % alignment != 0 {
                return Err(GraphError::DynamicOffsetAlignment {
                    binding: b.binding,
                    offset,
                    alignment,
                });
            }
            if let GroupResource::Buffer {
                offset: base,
                size,
                buffer_size,
                ..
            } = b.resource
            {
                let end = base
                    .checked_add(u64::from(offset))
                    .and_then(|start| start.checked_add(size));
                if end.is_none_or(|end| end > buffer_size) {
                    return Err(GraphError::DynamicOffsetRange {
                        binding: b.binding,
                        offset,
                        base,
                        size,
                        buffer_size,
                    });
                }
            }
            offsets_of.insert(i, offset);
        }
        let mut scopes = Vec::with_capacity(bindings.len());
        for (i, b) in bindings.iter().enumerate() {
            let stages = shader_stages(b.visibility);
            match b.resource {
                GroupResource::Sampler(_) | GroupResource::AccelerationStructure(_) => {}
                GroupResource::Buffer {
                    buffer,
                    offset,
                    size,
                    ..
                } => {
                    let key = ResourceKey::Buffer(buffer);
                    let id = self.import(&b.label, key, initial(key))?;
                    let access = match b.ty {
                        BindingType::Buffer { ty, .. } => buffer_access(ty),
                        _ => Access::SHADER_READ | Access::SHADER_WRITE,
                    };
                    let dynamic = u64::from(offsets_of.get(&i).copied().unwrap_or(0));
                    scopes.push(Scope {
                        resource: id,
                        range: Range::Bytes {
                            offset: offset.saturating_add(dynamic),
                            size,
                        },
                        state: ResourceState::new(stages, access, Layout::Undefined),
                    });
                }
                GroupResource::Texture {
                    texture,
                    base_mip_level,
                    mip_level_count,
                    base_array_layer,
                    array_layer_count,
                    layout,
                    ..
                } => {
                    let key = ResourceKey::Texture(texture);
                    let id = self.import(&b.label, key, initial(key))?;
                    // The layout is the one the group's descriptor names.
                    let (access, _) = texture_access(b.ty, TextureUsages::empty());
                    let layout = Layout::from(layout);
                    scopes.push(Scope {
                        resource: id,
                        range: Range::Subresources {
                            base_mip_level,
                            mip_level_count,
                            base_array_layer,
                            array_layer_count,
                        },
                        state: ResourceState::new(stages, access, layout),
                    });
                }
            }
        }
        let id = GroupId(id32(self.groups.len()));
        self.groups.push(GroupEntry {
            group: Some(group),
            offsets: dynamic_offsets.to_vec(),
            scopes,
            owned: None,
        });
        Ok(id)
    }

    /// A bind group the graph makes over `layout`, binding graph resources: transient
    /// buffers and textures (which exist only once the graph runs) as well as imported
    /// buffers. Its uses are derived from the layout as for an imported group (see
    /// [`Graph::import_bind_group`]); the group is made by the first execution that runs
    /// a pass using it, through [`Device::create_bind_group`] and its checks, and kept.
    ///
    /// Refused here: a layout binding with no entry or an entry with no binding, an entry
    /// of the wrong kind for its binding (a buffer for a texture binding, …), a texture
    /// entry naming a resource the graph does not make, binding arrays and dynamic
    /// offsets (give such groups by [`Graph::import_bind_group`]).
    pub fn create_bind_group(
        &mut self,
        device: &Device<A>,
        label: &str,
        layout: BindGroupLayout,
        entries: &[GraphGroupEntry],
    ) -> Result<GroupId> {
        let layout_entries = device.bind_group_layout_entries(layout)?;
        let refuse = |binding: u32, reason: &str| GraphError::GroupEntry {
            group: label.to_owned(),
            binding,
            reason: reason.to_owned(),
        };
        if let Some(e) = entries
            .iter()
            .find(|e| !layout_entries.iter().any(|l| l.binding == e.binding))
        {
            return Err(refuse(e.binding, "the layout has no such binding"));
        }
        let mut scopes = Vec::with_capacity(layout_entries.len());
        for l in &layout_entries {
            let mut given = entries.iter().filter(|e| e.binding == l.binding);
            let (Some(e), None) = (given.next(), given.next()) else {
                return Err(refuse(
                    l.binding,
                    "each layout binding takes exactly one entry",
                ));
            };
            if l.array.is_some() {
                return Err(refuse(
                    l.binding,
                    "binding arrays are not made by the graph: import such a group",
                ));
            }
            let stages = shader_stages(l.visibility);
            match (l.ty, e.resource) {
                (BindingType::Sampler { .. }, GraphResource::Sampler(_)) => {}
                (
                    BindingType::Buffer {
                        has_dynamic_offset: true,
                        ..
                    },
                    _,
                ) => {
                    return Err(refuse(
                        l.binding,
                        "dynamic offsets are not given to groups the graph makes",
                    ));
                }
                (
                    BindingType::Buffer { ty, .. },
                    GraphResource::Buffer {
                        resource,
                        offset,
                        size,
                    },
                ) => {
                    let entry = self.resource(resource)?;
                    if entry.texture {
                        return Err(refuse(l.binding, "a buffer binding given a texture"));
                    }
                    let end = match entry.transient {
                        Some(Transient::Buffer(t)) => t.size,
                        _ => u64::MAX,
                    };
                    let range = match size {
                        None if offset == 0 => Range::Whole,
                        _ => Range::Bytes {
                            offset,
                            size: size.unwrap_or(end.saturating_sub(offset)),
                        },
                    };
                    scopes.push(Scope {
                        resource,
                        range,
                        state: ResourceState::new(stages, buffer_access(ty), Layout::Undefined),
                    });
                }
                (
                    BindingType::Texture { .. } | BindingType::StorageTexture { .. },
                    GraphResource::Texture(resource),
                ) => {
                    let Some(Transient::Texture(t)) = self.resource(resource)?.transient else {
                        return Err(refuse(
                            l.binding,
                            "a texture entry names a texture the graph makes (its view is the graph's)",
                        ));
                    };
                    let (access, layout) = texture_access(l.ty, t.usage);
                    scopes.push(Scope {
                        resource,
                        range: Range::Subresources {
                            base_mip_level: 0,
                            mip_level_count: t.mip_level_count,
                            base_array_layer: 0,
                            array_layer_count: t.array_layers,
                        },
                        state: ResourceState::new(stages, access, layout),
                    });
                }
                _ => {
                    return Err(refuse(
                        l.binding,
                        "the entry is not of the binding's kind (buffer, texture or sampler)",
                    ));
                }
            }
        }
        let id = GroupId(id32(self.groups.len()));
        self.groups.push(GroupEntry {
            group: None,
            offsets: Vec::new(),
            scopes,
            owned: Some(OwnedGroup {
                label: label.to_owned(),
                layout,
                entries: entries.to_vec(),
            }),
        });
        Ok(id)
    }

    /// The scopes an imported group contributes to a pass using it.
    pub fn group_scopes(&self, group: GroupId) -> Result<&[Scope]> {
        self.groups
            .get(group.0 as usize)
            .map(|g| g.scopes.as_slice())
            .ok_or(GraphError::UnknownId("group", group.0))
    }

    /// Adds a pass; passes run in the order they are added.
    pub fn add_pass(&mut self, name: &str, kind: PassKind) -> PassId {
        let id = PassId(id32(self.passes.len()));
        self.passes.push(PassEntry {
            name: name.to_owned(),
            kind,
            scopes: Vec::new(),
            groups: Vec::new(),
            keep: false,
            record: None,
        });
        id
    }

    fn pass_mut(&mut self, pass: PassId) -> Result<&mut PassEntry<A>> {
        self.passes
            .get_mut(pass.0 as usize)
            .ok_or(GraphError::UnknownId("pass", pass.0))
    }

    /// Declares a use of (all of) a resource by a pass.
    pub fn uses(&mut self, pass: PassId, resource: ResourceId, usage: Usage) -> Result<()> {
        self.uses_range(pass, resource, Range::Whole, usage)
    }

    /// Declares a use of part of a resource by a pass.
    pub fn uses_range(
        &mut self,
        pass: PassId,
        resource: ResourceId,
        range: Range,
        usage: Usage,
    ) -> Result<()> {
        let entry = self.resource(resource)?;
        let texture = entry.texture;
        let state = usage.state(texture);
        // A transient texture's usage is known: its sampled reads are in the layout vigil
        // samples such a texture in.
        let mut state = state;
        if let (Some(Transient::Texture(t)), Layout::ShaderReadOnly) =
            (entry.transient, state.layout)
        {
            state.layout = Layout::from(vigil::sampled_layout(t.usage));
        }
        // A transient texture's shape is known: "all of it" is its mips and layers, so
        // the planner tracks them one by one like the parts groups name.
        let range = match (range, entry.transient) {
            (Range::Whole, Some(Transient::Texture(t))) => Range::Subresources {
                base_mip_level: 0,
                mip_level_count: t.mip_level_count,
                base_array_layer: 0,
                array_layer_count: t.array_layers,
            },
            _ => range,
        };
        self.pass_mut(pass)?.scopes.push(Scope {
            resource,
            range,
            state,
        });
        Ok(())
    }

    /// Gives a pass an imported group at set index `set`: its uses become the pass's, and
    /// [`PassContext::set_bind_groups`] binds it.
    pub fn use_group(&mut self, pass: PassId, set: u32, group: GroupId) -> Result<()> {
        self.group_scopes(group)?;
        self.pass_mut(pass)?.groups.push((set, group));
        Ok(())
    }

    /// Keeps a pass even when nothing it writes is used (it has effects the graph does not
    /// see).
    pub fn keep(&mut self, pass: PassId) -> Result<()> {
        self.pass_mut(pass)?.keep = true;
        Ok(())
    }

    /// Sets what a pass records.
    pub fn record(
        &mut self,
        pass: PassId,
        f: impl FnMut(&mut PassContext<'_, A>) -> vigil::Result<()> + Send + 'static,
    ) -> Result<()> {
        self.pass_mut(pass)?.record = Some(Box::new(f));
        Ok(())
    }

    /// A pass's uses, merged per resource: the uses of one buffer in one pass combine their
    /// stages, accesses and ranges, and so do the uses of overlapping parts of one texture
    /// (uses of parts apart stay apart); texture uses of overlapping parts that need
    /// different layouts are refused.
    pub fn pass_scopes(&self, pass: PassId) -> Result<Vec<Scope>> {
        let p = self
            .passes
            .get(pass.0 as usize)
            .ok_or(GraphError::UnknownId("pass", pass.0))?;
        let mut all: Vec<Scope> = p.scopes.clone();
        for (_, g) in &p.groups {
            all.extend_from_slice(self.group_scopes(*g)?);
        }
        let mut merged: Vec<Scope> = Vec::new();
        for s in all {
            let texture = self.resource(s.resource)?.texture;
            let mut placed = false;
            for m in merged.iter_mut().filter(|m| m.resource == s.resource) {
                // A texture's uses of parts apart stay apart (a pass reading one mip and
                // writing the next writes only that one).
                if texture && !m.range.overlaps(&s.range) {
                    continue;
                }
                if texture && m.state.layout != s.state.layout {
                    return Err(GraphError::LayoutConflict {
                        pass: p.name.clone(),
                        resource: self.resource(s.resource)?.name.clone(),
                        first: m.state.layout,
                        second: s.state.layout,
                    });
                }
                m.range = m.range.union(&s.range);
                m.state.stages |= s.state.stages;
                m.state.access |= s.state.access;
                placed = true;
                break;
            }
            if !placed {
                merged.push(s);
            }
        }
        Ok(merged)
    }
}

/// What a buffer binding of this kind does to its range.
fn buffer_access(ty: BufferBindingType) -> Access {
    match ty {
        BufferBindingType::Uniform => Access::UNIFORM_READ,
        BufferBindingType::Storage { read_only: true } => Access::SHADER_READ,
        BufferBindingType::Storage { read_only: false } => {
            Access::SHADER_READ | Access::SHADER_WRITE
        }
    }
}

/// What a texture binding of this kind does to the subresources of a texture with `usage`,
/// and in which layout (vigil's: see [`vigil::sampled_layout`]).
fn texture_access(ty: BindingType, usage: TextureUsages) -> (Access, Layout) {
    match ty {
        BindingType::StorageTexture { access, .. } => (
            match access {
                StorageTextureAccess::ReadOnly => Access::SHADER_READ,
                StorageTextureAccess::WriteOnly => Access::SHADER_WRITE,
                StorageTextureAccess::ReadWrite | StorageTextureAccess::Atomic => {
                    Access::SHADER_READ | Access::SHADER_WRITE
                }
            },
            Layout::General,
        ),
        _ => (
            Access::SHADER_READ,
            Layout::from(vigil::sampled_layout(usage)),
        ),
    }
}

/// Whether a use writes.
pub(crate) fn writes(state: &ResourceState) -> bool {
    !crate::state::writes_of(state.access).is_empty()
}
