//! MSL out, with the binding maps a Metal backend needs.
//!
//! naga turns WGSL's `arrayLength()` into arithmetic on an extra entry-point argument,
//! `_buffer_sizes`, a struct with one `uint` per global whose type holds a runtime-sized
//! array, in IR declaration order ([`runtime_array_bindings`]). That argument gets a
//! `[[buffer(N)]]` attribute only when the per-entry-point map names a sizes slot, and
//! when an entry point has a map, naga takes its resource list as complete. So a map
//! must number every resource, and two numberings are offered:
//!
//! - [`naga_numbering`]: resources sorted by group then binding, with separate counters
//!   for buffers, textures and samplers (what naga-style numbering gives, so MSL for
//!   ordinary resources is unchanged), and `_buffer_sizes` at a chosen slot: by default
//!   the number of buffer bindings, the first free slot.
//! - [`argument_table`]: the validated-device Metal backend's fixed scheme for group 0:
//!   buffer index 0 holds the length table, buffer binding `b` sits at index `1 + b`,
//!   textures and samplers at their binding numbers, and vertex buffers at the highest
//!   free indices at or below 30, in slot order; a layout whose vertex buffers do not fit
//!   is refused.

use crate::guard::guarded;
use crate::reflect::holds_runtime_array;
use crate::{Diagnostic, Module, Stage};
use naga::back::msl;
use std::collections::BTreeMap;
use std::fmt;

/// Highest Metal buffer argument index.
pub const MAX_BUFFER_INDEX: u8 = 30;
/// Most textures a stage can bind in the argument table scheme.
pub const MAX_TEXTURE_INDEX: u8 = 127;
/// Most samplers a stage can bind.
pub const MAX_SAMPLER_INDEX: u8 = 15;

/// Where one resource binding lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// `[[buffer(n)]]`.
    Buffer(u8),
    /// `[[texture(n)]]`.
    Texture(u8),
    /// `[[sampler(n)]]`.
    Sampler(u8),
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Buffer(n) => write!(f, "buffer({n})"),
            Slot::Texture(n) => write!(f, "texture({n})"),
            Slot::Sampler(n) => write!(f, "sampler({n})"),
        }
    }
}

/// A complete binding map: every resource's slot, the sizes slot per entry point (naga
/// emits `_buffer_sizes` only for entry points that use a runtime-sized array), and the
/// argument indices of vertex buffers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BindingMap {
    /// `(group, binding)` to slot.
    pub resources: BTreeMap<(u32, u32), Slot>,
    /// Buffer index of `_buffer_sizes`.
    pub sizes_slot: u8,
    /// Buffer index of each vertex buffer, by vertex buffer slot.
    pub vertex_buffers: Vec<u8>,
    /// Buffer index of the immediate data (`var<immediate>`), for modules that declare it.
    pub immediates_slot: Option<u8>,
}

impl BindingMap {
    /// One line per assignment, for headers and tools.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for ((g, b), slot) in &self.resources {
            out.push_str(&format!("@group({g}) @binding({b}) -> {slot}\n"));
        }
        out.push_str(&format!("_buffer_sizes -> buffer({})\n", self.sizes_slot));
        if let Some(i) = self.immediates_slot {
            out.push_str(&format!("immediates -> buffer({i})\n"));
        }
        for (i, v) in self.vertex_buffers.iter().enumerate() {
            out.push_str(&format!("vertex buffer {i} -> buffer({v})\n"));
        }
        out
    }
}

/// The kind of slot a global needs, or `None` for globals without a binding.
fn slot_kind(module: &naga::Module, var: &naga::GlobalVariable) -> Option<char> {
    var.binding.as_ref()?;
    Some(match module.types[var.ty].inner {
        naga::TypeInner::Image { .. } => 't',
        naga::TypeInner::Sampler { .. } => 's',
        _ => 'b',
    })
}

/// Whether the module declares immediate data.
fn has_immediates(module: &naga::Module) -> bool {
    module
        .global_variables
        .iter()
        .any(|(_, v)| v.space == naga::AddressSpace::Immediate)
}

/// The module's bound globals sorted by `(group, binding)`, with their slot kind.
fn bound(module: &naga::Module) -> Vec<((u32, u32), char)> {
    let mut out: Vec<_> = module
        .global_variables
        .iter()
        .filter_map(|(_, var)| {
            let rb = var.binding.as_ref()?;
            Some(((rb.group, rb.binding), slot_kind(module, var)?))
        })
        .collect();
    out.sort();
    out.dedup_by_key(|(k, _)| *k);
    out
}

/// naga-style numbering: sorted by group then binding, one counter each for buffers,
/// textures and samplers; `_buffer_sizes` at `sizes_slot`, or by default at the first
/// free buffer index (the number of buffer bindings).
pub fn naga_numbering(module: &Module, sizes_slot: Option<u8>) -> Result<BindingMap, Diagnostic> {
    let mut map = BindingMap::default();
    let (mut buffers, mut textures, mut samplers) = (0u32, 0u32, 0u32);
    let too_many = |what: &str| {
        Diagnostic::new(
            module.file(),
            format!("more {what} than a Metal stage can bind"),
        )
    };
    for (key, kind) in bound(&module.naga) {
        let slot = match kind {
            't' => {
                textures += 1;
                Slot::Texture(u8::try_from(textures - 1).map_err(|_| too_many("textures"))?)
            }
            's' => {
                samplers += 1;
                Slot::Sampler(u8::try_from(samplers - 1).map_err(|_| too_many("samplers"))?)
            }
            _ => {
                buffers += 1;
                Slot::Buffer(u8::try_from(buffers - 1).map_err(|_| too_many("buffers"))?)
            }
        };
        map.resources.insert(key, slot);
    }
    let default = u8::try_from(buffers).map_err(|_| too_many("buffers"))?;
    map.sizes_slot = sizes_slot.unwrap_or(default);
    if map.sizes_slot > MAX_BUFFER_INDEX {
        return Err(Diagnostic::new(
            module.file(),
            format!(
                "sizes slot {} is above buffer index {MAX_BUFFER_INDEX}",
                map.sizes_slot
            ),
        ));
    }
    if let Some((key, _)) = map
        .resources
        .iter()
        .find(|(_, s)| **s == Slot::Buffer(map.sizes_slot))
    {
        return Err(Diagnostic::new(
            module.file(),
            format!(
                "sizes slot {} is already @group({}) @binding({})",
                map.sizes_slot, key.0, key.1
            ),
        ));
    }
    if has_immediates(&module.naga) {
        // The first buffer index neither a resource nor the sizes table takes.
        let taken: Vec<u8> = map
            .resources
            .values()
            .filter_map(|s| match s {
                Slot::Buffer(i) => Some(*i),
                _ => None,
            })
            .chain([map.sizes_slot])
            .collect();
        map.immediates_slot = Some(
            (0..=MAX_BUFFER_INDEX)
                .find(|i| !taken.contains(i))
                .ok_or_else(|| too_many("buffers"))?,
        );
    }
    Ok(map)
}

/// The argument-table scheme (group 0 only): length table at buffer 0, buffer binding `b`
/// at `1 + b`, textures and samplers at their binding numbers, and `vertex_buffers` vertex
/// buffers at the highest free indices at or below 30 (slot 0 highest), skipping the
/// length table and every buffer a vertex entry point uses.
pub fn argument_table(module: &Module, vertex_buffers: u32) -> Result<BindingMap, Diagnostic> {
    let file = module.file();
    let mut map = BindingMap {
        sizes_slot: 0,
        ..BindingMap::default()
    };
    for ((group, binding), kind) in bound(&module.naga) {
        if group != 0 {
            return Err(Diagnostic::new(
                file,
                format!(
                    "@group({group}) @binding({binding}): the argument-table scheme binds group 0 only"
                ),
            ));
        }
        let slot = match kind {
            't' if binding <= u32::from(MAX_TEXTURE_INDEX) => Slot::Texture(binding as u8),
            's' if binding <= u32::from(MAX_SAMPLER_INDEX) => Slot::Sampler(binding as u8),
            'b' if binding < u32::from(MAX_BUFFER_INDEX) => Slot::Buffer(binding as u8 + 1),
            _ => {
                return Err(Diagnostic::new(
                    file,
                    format!(
                        "@binding({binding}) has no argument index in the argument-table scheme"
                    ),
                ));
            }
        };
        map.resources.insert((group, binding), slot);
    }
    // Buffers a vertex entry point uses occupy vertex-stage argument indices.
    let mut taken = vec![0u8];
    for ep in module
        .reflection()
        .entry_points
        .iter()
        .filter(|e| e.stage == Stage::Vertex)
    {
        for b in &ep.bindings {
            if let Some(Slot::Buffer(i)) = map.resources.get(&(b.group, b.binding)) {
                taken.push(*i);
            }
        }
    }
    let mut free = (0..=MAX_BUFFER_INDEX).rev().filter(|i| !taken.contains(i));
    if has_immediates(&module.naga) {
        // Immediate data takes the highest free index; vertex buffers come below it.
        map.immediates_slot = Some(free.next().ok_or_else(|| {
            Diagnostic::new(file, "no buffer index is left for the immediate data")
        })?);
    }
    for slot in 0..vertex_buffers {
        match free.next() {
            Some(i) => map.vertex_buffers.push(i),
            None => {
                return Err(Diagnostic::new(
                    file,
                    format!(
                        "{vertex_buffers} vertex buffers do not fit: vertex buffer {slot} finds no free buffer index at or below {MAX_BUFFER_INDEX} (the length table and {} resource buffer(s) take the others)",
                        taken.len() - 1
                    ),
                ));
            }
        }
    }
    Ok(map)
}

/// The bindings whose type holds a runtime-sized array, in IR declaration order: the order
/// of the fields of `_buffer_sizes`.
pub fn runtime_array_bindings(module: &Module) -> Vec<(u32, u32)> {
    module
        .naga
        .global_variables
        .iter()
        .filter(|(_, var)| holds_runtime_array(&module.naga, var.ty))
        .filter_map(|(_, var)| var.binding.as_ref().map(|rb| (rb.group, rb.binding)))
        .collect()
}

/// Translates to MSL with `map`: every entry point (or only `entry`), each with the full
/// resource map and `_buffer_sizes` at `map.sizes_slot`.
pub fn to_msl(
    module: &Module,
    map: &BindingMap,
    entry: Option<&str>,
) -> Result<String, Diagnostic> {
    let file = module.file();
    let f64_used = module.naga.types.iter().any(|(_, ty)| {
        ty.inner
            .scalar()
            .is_some_and(|s| s.kind == naga::ScalarKind::Float && s.width == 8)
    });
    if f64_used {
        // naga's MSL writer would stop at the type (an internal error); say it plainly.
        return Err(Diagnostic::new(
            file,
            "the module uses f64, which Metal does not have: it has no MSL translation",
        ));
    }
    let mut per_ep = msl::EntryPointResourceMap::new();
    let mut resources = msl::BindingMap::new();
    for (&(group, binding), &slot) in &map.resources {
        let mutable = module.naga.global_variables.iter().any(|(_, v)| {
            v.binding.as_ref().is_some_and(|rb| rb.group == group && rb.binding == binding)
                && matches!(v.space, naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
        });
        let mut target = msl::BindTarget {
            mutable,
            ..Default::default()
        };
        match slot {
            Slot::Buffer(n) => target.buffer = Some(n),
            Slot::Texture(n) => target.texture = Some(n),
            Slot::Sampler(n) => target.sampler = Some(msl::BindSamplerTarget::Resource(n)),
        }
        resources.insert(naga::ResourceBinding { group, binding }, target);
    }
    let mut stage_of = None;
    for ep in &module.naga.entry_points {
        if entry.is_some_and(|e| e != ep.name) {
            continue;
        }
        stage_of = Some(ep.stage);
        per_ep.insert(
            ep.name.clone(),
            msl::EntryPointResources {
                resources: resources.clone(),
                immediates_buffer: map.immediates_slot,
                sizes_buffer: Some(map.sizes_slot),
            },
        );
    }
    if let Some(name) = entry {
        if stage_of.is_none() {
            return Err(Diagnostic::new(
                file,
                format!("no entry point named '{name}'"),
            ));
        }
    }
    guarded(file, || {
        let options = msl::Options {
            lang_version: (2, 4),
            per_entry_point_map: per_ep,
            fake_missing_bindings: false,
            bounds_check_policies: crate::safe_bounds_checks(),
            zero_initialize_workgroup_memory: true,
            force_loop_bounding: true,
            ..msl::Options::default()
        };
        let pipeline = msl::PipelineOptions {
            entry_point: match (entry, stage_of) {
                (Some(name), Some(stage)) => Some((stage, name.to_owned())),
                _ => None,
            },
            ..Default::default()
        };
        let (source, info) = msl::write_string(&module.naga, &module.info, &options, &pipeline)
            .map_err(|e| Diagnostic::new(file, format!("MSL generation failed: {e}")))?;
        if let Some(Err(e)) = info.entry_point_names.iter().find(|r| r.is_err()) {
            return Err(Diagnostic::new(
                file,
                format!("MSL generation failed for an entry point: {e}"),
            ));
        }
        Ok(source)
    })
}
