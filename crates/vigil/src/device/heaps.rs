//! Texture and sampler heaps of the GPU-pointer tier: application-owned arrays of
//! descriptors that tier shaders index by integer (`vigil_texture(i)`, `vigil_sampler(i)`;
//! see `docs/gpu-pointers.md`).
//!
//! A heap is one native descriptor set of an update-after-bind binding. The native set
//! always has every slot shaders can name ([`TEXTURE_HEAP_SLOTS`], [`SAMPLER_HEAP_SLOTS`];
//! the shader macros clamp indices to them), whatever the heap's size: the size is what
//! the CPU may write, and a shader index past it reads the placeholder instead of memory
//! outside the set. Every slot always names a live native object: slots start as the device's placeholder
//! (a 1×1 zero texture, a nearest sampler), the heap holds what each slot names, and
//! destroying a texture, view or sampler a slot names puts the placeholder back in that
//! slot, keeping the old object until the work already submitted is complete. A texture
//! that a slot names stays in the layout shaders sample it in (`gpu.heap-resident`); the
//! next submission moves a texture newly put in a heap there (and zeroes it if nothing
//! wrote it yet).

use super::{Core, Device, lock};
use crate::device::objects::{
    DescriptorHeapObj, HeapSlot, PipelineLayoutObj, SamplerHeapObj, SamplerObj, TextureHeapObj,
    TextureObj, ViewObj,
};
use crate::error::{Result, fail};
use crate::handle::{Handle, PipelineLayout, Sampler, SamplerHeap, TextureHeap, TextureView};
use crate::native::{BindGroupLayoutKind, Owned};
use crate::texture::{SamplerDescriptor, TextureDescriptor, TextureViewDescriptor};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use vigil_hal::{
    Api, BindGroupEntry, BindGroupLayoutEntry, BindingArray, BindingArrayFlags, BindingType,
    BoundResource, Features, SAMPLER_HEAP_SLOTS, SamplerBindingType, ShaderStages,
    TEXTURE_HEAP_SLOTS, TextureFormat, TextureSampleType, TextureUsages, TextureViewDimension,
};

/// How to make a texture heap.
#[derive(Clone, Copy, Debug)]
pub struct TextureHeapDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Slots the application writes, 1 to [`TEXTURE_HEAP_SLOTS`]. A shader index past
    /// them (or past the binding) reads the 1×1 zero placeholder, never outside the heap.
    pub slots: u32,
}

/// How to make a sampler heap.
#[derive(Clone, Copy, Debug)]
pub struct SamplerHeapDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Slots the application writes, 1 to [`SAMPLER_HEAP_SLOTS`]; a shader index past them
    /// reads the placeholder (a nearest sampler).
    pub slots: u32,
}

/// What every heap of a device shares: the two set layouts, the pointer pipelines' layout
/// (set 0 empty, set 1 textures, set 2 samplers, the root as immediate data) and the
/// placeholders.
pub(crate) struct HeapShared<A: Api> {
    pub textures: Owned<A, BindGroupLayoutKind>,
    pub samplers: Owned<A, BindGroupLayoutKind>,
    /// The pointer pipelines' layout (sets 1 and 2 the heaps), one per
    /// [`super::gpu::RootStages`] (indexed by it): the root pushed to their stages only.
    pub pipelines: [Arc<PipelineLayoutObj<A>>; 3],
    pub placeholder_view: Arc<ViewObj<A>>,
    pub placeholder_sampler: Arc<SamplerObj<A>>,
    /// Live texture heaps (what destroying a texture or view looks through).
    pub texture_heaps: std::sync::Mutex<Vec<Arc<TextureHeapObj<A>>>>,
    /// Live sampler heaps.
    pub sampler_heaps: std::sync::Mutex<Vec<Arc<SamplerHeapObj<A>>>>,
}

/// The set layout of one heap kind: one update-after-bind, variable-count array.
fn heap_layout_entry(ty: BindingType, slots: u32, mesh: bool) -> BindGroupLayoutEntry {
    let mut visibility = ShaderStages::VERTEX | ShaderStages::FRAGMENT | ShaderStages::COMPUTE;
    if mesh {
        visibility |= ShaderStages::MESH;
    }
    BindGroupLayoutEntry {
        binding: 0,
        visibility,
        ty,
        array: Some(BindingArray {
            count: std::num::NonZeroU32::new(slots).unwrap_or(std::num::NonZeroU32::MIN),
            flags: BindingArrayFlags::PARTIALLY_BOUND
                | BindingArrayFlags::UPDATE_AFTER_BIND
                | BindingArrayFlags::VARIABLE_COUNT,
        }),
    }
}

/// The texture heaps' binding type: what `texture2D` declares.
const HEAP_TEXTURE: BindingType = BindingType::Texture {
    sample_type: TextureSampleType::Float { filterable: true },
    view_dimension: TextureViewDimension::D2,
    multisampled: false,
};

impl<A: Api> Device<A> {
    /// The device's heap layouts and placeholders, made on first use (`gpu.heap-feature`
    /// without `DESCRIPTOR_HEAPS`).
    pub(crate) fn heap_shared(&self, op: &'static str, label: &str) -> Result<Arc<HeapShared<A>>> {
        if !self.features.contains(Features::DESCRIPTOR_HEAPS) {
            return Err(fail!(
                GpuHeapFeature,
                op,
                label,
                "texture and sampler heaps need the DESCRIPTOR_HEAPS feature; enable it when opening the device (the adapter must support it)"
            ));
        }
        let mut shared = lock(&self.descriptor_heaps);
        if let Some(s) = shared.as_ref() {
            return Ok(s.clone());
        }
        let layout = |name: &str, ty| -> Result<Owned<A, BindGroupLayoutKind>> {
            let slots = if ty == HEAP_TEXTURE {
                TEXTURE_HEAP_SLOTS
            } else {
                SAMPLER_HEAP_SLOTS
            };
            let mesh = self.features.contains(Features::MESH_SHADER);
            let entries = [heap_layout_entry(ty, slots, mesh)];
            let raw = self
                .hal
                .create_bind_group_layout(&vigil_hal::BindGroupLayoutDescriptor {
                    label: name,
                    entries: &entries,
                })
                .map_err(|e| self.hal_error(e, op, name))?;
            Ok(Owned::new(&self.hal, raw))
        };
        let textures = layout("vigil texture heaps", HEAP_TEXTURE)?;
        let samplers = layout(
            "vigil sampler heaps",
            BindingType::Sampler(SamplerBindingType::Filtering),
        )?;
        let empty = {
            let raw = self
                .hal
                .create_bind_group_layout(&vigil_hal::BindGroupLayoutDescriptor {
                    label: "vigil empty set",
                    entries: &[],
                })
                .map_err(|e| self.hal_error(e, op, label))?;
            Owned::<A, BindGroupLayoutKind>::new(&self.hal, raw)
        };
        let pipeline = |kind: super::gpu::RootStages| -> Result<Arc<PipelineLayoutObj<A>>> {
            let label = "vigil pointer pipelines with heaps";
            let raw = self
                .hal
                .create_pipeline_layout(&vigil_hal::PipelineLayoutDescriptor {
                    label,
                    bind_group_layouts: &[&*empty, &*textures, &*samplers],
                    immediate_size: vigil_shader::glsl::ROOT_SIZE,
                    immediate_stages: kind.stages(),
                })
                .map_err(|e| self.hal_error(e, op, label))?;
            Ok(Arc::new(PipelineLayoutObj {
                raw: Owned::new(&self.hal, raw),
                handle: PipelineLayout::NULL,
                label: label.into(),
                groups: Vec::new(),
                compat: Vec::new(),
                immediate_size: vigil_shader::glsl::ROOT_SIZE,
            }))
        };
        use super::gpu::RootStages;
        let pipelines = [
            pipeline(RootStages::Compute)?,
            pipeline(RootStages::Render)?,
            pipeline(RootStages::Mesh)?,
        ];
        // The empty set's layout may go once the pipeline layouts exist.
        drop(empty);
        let texture = self.create_texture(&TextureDescriptor {
            label: "vigil heap placeholder",
            size: [1, 1],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })?;
        let view = self.create_texture_view(
            texture,
            &TextureViewDescriptor {
                label: "vigil heap placeholder",
                ..TextureViewDescriptor::default()
            },
        );
        let texture = self.remove(texture, op)?;
        let placeholder_view = self.remove(view?, op)?;
        // The placeholder is sampled by heaps from their first submission on: zeroed and
        // moved to its sampled layout then, as any texture put in a heap.
        texture.heap_slots.store(1, Ordering::Release);
        self.queue.lock().resident.push(texture);
        let sampler = self.create_sampler(&SamplerDescriptor {
            label: "vigil heap placeholder",
            ..SamplerDescriptor::default()
        })?;
        let placeholder_sampler = self.remove(sampler, op)?;
        let s = Arc::new(HeapShared {
            textures,
            samplers,
            pipelines,
            placeholder_view,
            placeholder_sampler,
            texture_heaps: std::sync::Mutex::new(Vec::new()),
            sampler_heaps: std::sync::Mutex::new(Vec::new()),
        });
        *shared = Some(s.clone());
        Ok(s)
    }

    /// Makes a texture heap of `desc.slots` slots, each holding a 1×1 zero texture until
    /// written. Needs `DESCRIPTOR_HEAPS`. Tier shaders bind it with
    /// [`CommandEncoder::set_texture_heap`](crate::CommandEncoder::set_texture_heap) and read
    /// slot `i` as `vigil_texture(i)`.
    pub fn create_texture_heap(&self, desc: &TextureHeapDescriptor<'_>) -> Result<TextureHeap> {
        const OP: &str = "create_texture_heap";
        self.check_alive(OP)?;
        let shared = self.heap_shared(OP, desc.label)?;
        slot_count(OP, desc.label, desc.slots, TEXTURE_HEAP_SLOTS)?;
        let view = &shared.placeholder_view;
        let layout = shader_layout(view);
        let raw = self.heap_set(OP, desc.label, &shared.textures, TEXTURE_HEAP_SLOTS, |_| {
            BoundResource::TextureView(&*view.raw, layout)
        })?;
        let slots = (0..desc.slots).map(|_| HeapSlot::Placeholder).collect();
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .texture_heaps
            .insert(|index, generation| DescriptorHeapObj {
                raw,
                handle: TextureHeap::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                capacity: desc.slots,
                slots: std::sync::Mutex::new(slots),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "texture heap"))?;
        lock(&shared.texture_heaps).push(obj.clone());
        self.notify_created("texture heap", desc.label);
        Ok(obj.handle)
    }

    /// Makes a sampler heap of `desc.slots` slots, each a nearest-filtering sampler until
    /// written. Needs `DESCRIPTOR_HEAPS`.
    pub fn create_sampler_heap(&self, desc: &SamplerHeapDescriptor<'_>) -> Result<SamplerHeap> {
        const OP: &str = "create_sampler_heap";
        self.check_alive(OP)?;
        let shared = self.heap_shared(OP, desc.label)?;
        slot_count(OP, desc.label, desc.slots, SAMPLER_HEAP_SLOTS)?;
        let sampler = &shared.placeholder_sampler;
        let raw = self.heap_set(OP, desc.label, &shared.samplers, SAMPLER_HEAP_SLOTS, |_| {
            BoundResource::Sampler(&*sampler.raw)
        })?;
        let slots = (0..desc.slots).map(|_| HeapSlot::Placeholder).collect();
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .sampler_heaps
            .insert(|index, generation| DescriptorHeapObj {
                raw,
                handle: SamplerHeap::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                capacity: desc.slots,
                slots: std::sync::Mutex::new(slots),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "sampler heap"))?;
        lock(&shared.sampler_heaps).push(obj.clone());
        self.notify_created("sampler heap", desc.label);
        Ok(obj.handle)
    }

    /// A native set of `slots` elements of `layout` (its whole binding), element `i` written
    /// with `resource(i)`.
    fn heap_set<'r>(
        &self,
        op: &'static str,
        label: &str,
        layout: &A::BindGroupLayout,
        slots: u32,
        resource: impl Fn(u32) -> BoundResource<'r, A>,
    ) -> Result<Owned<A, crate::native::BindGroupKind>>
    where
        A: 'r,
    {
        let entries: Vec<BindGroupEntry<'r, A>> = (0..slots)
            .map(|i| BindGroupEntry {
                binding: 0,
                array_element: i,
                resource: resource(i),
            })
            .collect();
        let raw = self
            .hal
            .create_bind_group(&vigil_hal::BindGroupDescriptor {
                label,
                layout,
                entries: &entries,
                variable_count: Some(slots),
            })
            .map_err(|e| self.hal_error(e, op, label))?;
        Ok(Owned::new(&self.hal, raw))
    }

    /// Writes `views` into slots `first..first + views.len()` of `heap`. Each view must be a
    /// live 2D view of this device with `TEXTURE_BINDING` usage, one sample and a color
    /// format the device can filter (any sampler of a sampler heap may sample it:
    /// `gpu.heap-entry`), the slots inside the heap (`gpu.heap-slots`). A
    /// texture named by a slot stays in its sampled layout (`gpu.heap-resident`); the next
    /// submission moves it there. What a slot named before stays alive until the work
    /// already submitted is complete; work in flight that reads a slot being written sees
    /// the old or the new texture (the slots are the application's to partition).
    pub fn write_texture_heap(
        &self,
        heap: TextureHeap,
        first: u32,
        views: &[TextureView],
    ) -> Result<()> {
        const OP: &str = "write_texture_heap";
        self.check_alive(OP)?;
        let h = self.lookup(heap, OP)?;
        slot_range(OP, &h.label, first, views.len(), h.capacity)?;
        let objs = views
            .iter()
            .map(|&v| {
                let view = self.lookup(v, OP)?;
                heap_view(
                    OP,
                    &h.label,
                    &view,
                    self.format_support(view.format).filterable,
                )?;
                Ok(view)
            })
            .collect::<Result<Vec<_>>>()?;
        let shared = self.heap_shared(OP, &h.label)?;
        let slots = objs.into_iter().map(HeapSlot::View).collect();
        self.put_slots(OP, &h, &shared, true, first, slots)
    }

    /// Writes `samplers` into slots `first..first + samplers.len()` of `heap` (live
    /// samplers of this device, not comparison samplers: `gpu.heap-entry`; slots inside the
    /// heap: `gpu.heap-slots`).
    pub fn write_sampler_heap(
        &self,
        heap: SamplerHeap,
        first: u32,
        samplers: &[Sampler],
    ) -> Result<()> {
        const OP: &str = "write_sampler_heap";
        self.check_alive(OP)?;
        let h = self.lookup(heap, OP)?;
        slot_range(OP, &h.label, first, samplers.len(), h.capacity)?;
        let objs = samplers
            .iter()
            .map(|&s| {
                let sampler = self.lookup(s, OP)?;
                if sampler.comparison {
                    return Err(fail!(
                        GpuHeapEntry,
                        OP,
                        &h.label,
                        "sampler '{}' is a comparison sampler; sampler heaps hold filtering and nearest samplers (GLSL `sampler`)",
                        sampler.label
                    ));
                }
                Ok(sampler)
            })
            .collect::<Result<Vec<_>>>()?;
        let shared = self.heap_shared(OP, &h.label)?;
        let slots = objs.into_iter().map(HeapSlot::Sampler).collect();
        self.put_slots(OP, &h, &shared, false, first, slots)
    }

    /// Copies `count` slots of `src` from `src_first` into `dst` from `dst_first` (both
    /// inside their heaps; the two may be one heap, with overlapping ranges copied as if
    /// through a temporary).
    pub fn copy_texture_heap(
        &self,
        src: TextureHeap,
        src_first: u32,
        dst: TextureHeap,
        dst_first: u32,
        count: u32,
    ) -> Result<()> {
        const OP: &str = "copy_texture_heap";
        self.check_alive(OP)?;
        let s = self.lookup(src, OP)?;
        let d = self.lookup(dst, OP)?;
        slot_range(OP, &s.label, src_first, count as usize, s.capacity)?;
        slot_range(OP, &d.label, dst_first, count as usize, d.capacity)?;
        let shared = self.heap_shared(OP, &d.label)?;
        let taken: Vec<HeapSlot<A>> = {
            let slots = lock(&s.slots);
            (src_first..src_first.saturating_add(count))
                .map(|i| match slots.get(i as usize) {
                    Some(HeapSlot::View(v)) => HeapSlot::View(v.clone()),
                    _ => HeapSlot::Placeholder,
                })
                .collect()
        };
        self.put_slots(OP, &d, &shared, true, dst_first, taken)
    }

    /// Writes `new` into the slots of `heap` from `first` (checked to fit), natively and in
    /// the heap's record: views entering make their textures resident, and what the slots
    /// held before is retired (see [`Device::retire_slots`]). `textures`: a texture heap
    /// (its placeholder is the 1×1 view), else a sampler heap.
    fn put_slots<H>(
        &self,
        op: &'static str,
        heap: &DescriptorHeapObj<A, H>,
        shared: &HeapShared<A>,
        textures: bool,
        first: u32,
        new: Vec<HeapSlot<A>>,
    ) -> Result<()> {
        let placeholder = || {
            if textures {
                let v = &shared.placeholder_view;
                BoundResource::TextureView(&*v.raw, shader_layout(v))
            } else {
                BoundResource::Sampler(&*shared.placeholder_sampler.raw)
            }
        };
        let entries: Vec<BindGroupEntry<'_, A>> = new
            .iter()
            .zip(first..)
            .map(|(slot, i)| BindGroupEntry {
                binding: 0,
                array_element: i,
                resource: match slot {
                    HeapSlot::View(v) => BoundResource::TextureView(&*v.raw, shader_layout(v)),
                    HeapSlot::Sampler(s) => BoundResource::Sampler(&*s.raw),
                    HeapSlot::Placeholder => placeholder(),
                },
            })
            .collect();
        let layout = if textures {
            &shared.textures
        } else {
            &shared.samplers
        };
        let mut slots = lock(&heap.slots);
        // The textures' counts move before the native write, so a recording reading the
        // heap on another thread once the slots name them sees them as in a heap
        // (`CommandEncoder::heap_reads_clean`); a refused write puts the counts back (the
        // Vulkan backend's descriptor writes cannot fail, and the test backend has no
        // heaps, so no test reaches that).
        let mut resident = Vec::new();
        for slot in &new {
            if let HeapSlot::View(v) = slot {
                if v.texture.heap_slots.fetch_add(1, Ordering::AcqRel) == 0 {
                    resident.push(v.texture.clone());
                }
            }
        }
        if !resident.is_empty() {
            let at = self
                .heap_entries
                .fetch_add(1, Ordering::AcqRel)
                .wrapping_add(1);
            for t in &resident {
                t.heap_since.store(at, Ordering::Release);
            }
        }
        if let Err(e) = self.hal.write_heap(&heap.raw, layout, &entries) {
            for slot in &new {
                if let HeapSlot::View(v) = slot {
                    v.texture.heap_slots.fetch_sub(1, Ordering::AcqRel);
                }
            }
            return Err(self.hal_error(e, op, &heap.label));
        }
        drop(entries);
        let mut old = Vec::new();
        for (slot, i) in new.into_iter().zip(first..) {
            if let Some(at) = slots.get_mut(i as usize) {
                old.push(std::mem::replace(at, slot));
            }
        }
        drop(slots);
        self.retire_slots(old, resident);
        Ok(())
    }

    /// Destroys a texture heap: its handle is stale at once, command buffers that set it
    /// are refused at submission, and it (with what its slots name) stays until the work
    /// already submitted is complete.
    pub fn destroy_texture_heap(&self, heap: TextureHeap) -> Result<()> {
        const OP: &str = "destroy_texture_heap";
        let obj = self.remove(heap, OP)?;
        if let Some(shared) = lock(&self.descriptor_heaps).clone() {
            lock(&shared.texture_heaps).retain(|h| !Arc::ptr_eq(h, &obj));
        }
        let old: Vec<HeapSlot<A>> = std::mem::take(&mut *lock(&obj.slots));
        self.retire_slots(old, Vec::new());
        self.keep_until_done(Retired::TextureHeap(obj));
        Ok(())
    }

    /// Destroys a sampler heap (as [`Device::destroy_texture_heap`]).
    pub fn destroy_sampler_heap(&self, heap: SamplerHeap) -> Result<()> {
        const OP: &str = "destroy_sampler_heap";
        let obj = self.remove(heap, OP)?;
        if let Some(shared) = lock(&self.descriptor_heaps).clone() {
            lock(&shared.sampler_heaps).retain(|h| !Arc::ptr_eq(h, &obj));
        }
        self.keep_until_done(Retired::SamplerHeap(obj));
        Ok(())
    }

    /// What slots named before: views give up their texture's residency, and everything
    /// stays until the work already submitted is complete. `resident`: textures that just
    /// entered a heap, moved to their sampled layout at the next submission.
    fn retire_slots(&self, old: Vec<HeapSlot<A>>, resident: Vec<Arc<TextureObj<A>>>) {
        let kept = old.into_iter().filter_map(retire).collect();
        let mut q = self.queue.lock();
        q.resident.extend(resident);
        keep_in_flight(&mut q, kept);
    }

    /// Keeps `obj` until every submission made so far is complete.
    fn keep_until_done(&self, obj: Retired<A>) {
        keep_in_flight(&mut self.queue.lock(), vec![obj]);
    }
}

/// Keeps `kept` with the last submission in flight, so it goes when every submission made
/// so far has completed (at once when none is in flight).
pub(crate) fn keep_in_flight<A: Api>(q: &mut super::queue::QueueState<A>, kept: Vec<Retired<A>>) {
    if kept.is_empty() {
        return;
    }
    if let Some(last) = q.in_flight.back_mut() {
        last.used.push(Box::new(crate::encoder::used::Used {
            retired: kept,
            ..Default::default()
        }));
    }
}

/// What a slot held, to keep until submitted work completes; a view gives up its
/// texture's residency.
fn retire<A: Api>(slot: HeapSlot<A>) -> Option<Retired<A>> {
    match slot {
        HeapSlot::Placeholder => None,
        HeapSlot::View(v) => {
            v.texture.heap_slots.fetch_sub(1, Ordering::AcqRel);
            Some(Retired::View(v))
        }
        HeapSlot::Sampler(s) => Some(Retired::Sampler(s)),
    }
}

impl<A: Api> Core<A> {
    /// Puts the placeholder in every texture-heap slot naming a view `gone` picks (a
    /// destroyed view, or a view of a destroyed texture), keeping what they named until
    /// the work already submitted is complete.
    pub(crate) fn evict_views(&self, gone: impl Fn(&ViewObj<A>) -> bool) {
        let Some(shared) = lock(&self.descriptor_heaps).clone() else {
            return;
        };
        let view = &shared.placeholder_view;
        let layout = shader_layout(view);
        let heaps = lock(&shared.texture_heaps).clone();
        let kept = self.evict(
            &heaps,
            &shared.textures,
            || BoundResource::TextureView(&*view.raw, layout),
            |s| matches!(s, HeapSlot::View(v) if gone(v)),
        );
        keep_in_flight(&mut self.queue.lock(), kept);
    }

    /// Puts the placeholder sampler in every sampler-heap slot naming `sampler`.
    pub(crate) fn evict_sampler(&self, sampler: &Arc<SamplerObj<A>>) {
        let Some(shared) = lock(&self.descriptor_heaps).clone() else {
            return;
        };
        let placeholder = &shared.placeholder_sampler;
        let heaps = lock(&shared.sampler_heaps).clone();
        let kept = self.evict(
            &heaps,
            &shared.samplers,
            || BoundResource::Sampler(&*placeholder.raw),
            |s| matches!(s, HeapSlot::Sampler(x) if Arc::ptr_eq(x, sampler)),
        );
        keep_in_flight(&mut self.queue.lock(), kept);
    }

    /// Rewrites the slots of `heaps` that `hit` picks with `placeholder`, returning what
    /// they held. A refused write leaves a heap's slots as they are: they keep naming (and
    /// holding) what they named, so nothing they name is released.
    fn evict<'p, H>(
        &self,
        heaps: &[Arc<DescriptorHeapObj<A, H>>],
        layout: &A::BindGroupLayout,
        placeholder: impl Fn() -> BoundResource<'p, A>,
        hit: impl Fn(&HeapSlot<A>) -> bool,
    ) -> Vec<Retired<A>>
    where
        A: 'p,
    {
        let mut kept = Vec::new();
        for h in heaps {
            let mut slots = lock(&h.slots);
            let at: Vec<u32> = slots
                .iter()
                .zip(0u32..)
                .filter(|(s, _)| hit(s))
                .map(|(_, i)| i)
                .collect();
            if at.is_empty() {
                continue;
            }
            let entries: Vec<BindGroupEntry<'_, A>> = at
                .iter()
                .map(|&i| BindGroupEntry {
                    binding: 0,
                    array_element: i,
                    resource: placeholder(),
                })
                .collect();
            if self.hal.write_heap(&h.raw, layout, &entries).is_err() {
                continue;
            }
            for i in at {
                if let Some(slot) = slots.get_mut(i as usize) {
                    kept.extend(retire(std::mem::replace(slot, HeapSlot::Placeholder)));
                }
            }
        }
        kept
    }
}

/// Something kept only until the work submitted before it was let go is complete.
#[allow(dead_code)]
pub(crate) enum Retired<A: Api> {
    Texture(Arc<TextureObj<A>>),
    View(Arc<ViewObj<A>>),
    Sampler(Arc<SamplerObj<A>>),
    TextureHeap(Arc<TextureHeapObj<A>>),
    SamplerHeap(Arc<SamplerHeapObj<A>>),
    GpuHeap(Arc<super::GpuHeapObj<A>>),
}

/// The layout a heap's descriptor names for `view`: its texture's sampled layout.
fn shader_layout<A: Api>(view: &ViewObj<A>) -> vigil_hal::TextureLayout {
    crate::device::objects::shader_layout(view.texture.desc.usage)
}

fn slot_count(op: &'static str, label: &str, slots: u32, most: u32) -> Result<()> {
    if slots == 0 || slots > most {
        return Err(fail!(
            GpuHeapSlots,
            op,
            label,
            "a heap holds 1 to {most} slots; {slots} were asked for"
        ));
    }
    Ok(())
}

fn slot_range(
    op: &'static str,
    label: &str,
    first: u32,
    count: usize,
    capacity: u32,
) -> Result<()> {
    let end = u64::from(first).saturating_add(count as u64);
    if end > u64::from(capacity) {
        return Err(fail!(
            GpuHeapSlots,
            op,
            label,
            "slots {first}..{end} are outside the heap's {capacity}"
        ));
    }
    Ok(())
}

/// What a texture-heap slot may name (`gpu.heap-entry`).
fn heap_view<A: Api>(op: &'static str, heap: &str, v: &ViewObj<A>, filterable: bool) -> Result<()> {
    let t = &v.texture;
    let why = if v.dimension != TextureViewDimension::D2 {
        Some(format!(
            "is a {:?} view; heap shaders declare texture2D",
            v.dimension
        ))
    } else if !v.usage.contains(TextureUsages::TEXTURE_BINDING) {
        Some("lacks TEXTURE_BINDING usage".to_owned())
    } else if v.sample_count != 1 {
        Some("is multisampled".to_owned())
    } else if !filterable || v.format.is_depth_stencil() {
        Some(format!(
            "has the format {:?}, which the device cannot filter; heap textures are sampled with any sampler of the sampler heap, linear ones included (bind such textures through groups)",
            v.format
        ))
    } else if t.frame {
        Some("is a surface's frame".to_owned())
    } else if t.source.is_some() || t.exported.load(Ordering::Acquire) {
        Some("is of a texture shared between devices".to_owned())
    } else if t.placed.as_ref().is_some_and(|p| p.aliasable) {
        Some("is of an aliasable texture (heap residency would change the layout of bytes another alias may be using)".to_owned())
    } else {
        None
    };
    match why {
        Some(why) => Err(fail!(GpuHeapEntry, op, heap, "view '{}' {why}", v.label)),
        None => Ok(()),
    }
}
