//! What the device keeps per object: the native object (released when the last holder lets
//! go, see [`Owned`]), the facts validation and recording read, and the little state that
//! changes (last use, mapping, the tracker's view between submissions).
//!
//! Objects are shared as `Arc`s and immutable but for atomics and the few locks below; the
//! per-kind registries own them while their handles are live. The objects recording reads
//! are aligned to a cache line, so the reference count `Arc` keeps in front of them sits on
//! a line of its own: encoders on other threads taking a reference do not evict the object
//! from the caches of encoders reading it.

use crate::handle::{
    BindGroup, BindGroupLayout, BindGroupPool, Buffer, BufferMapping, ComputePipeline,
    PipelineLayout, QuerySet, RenderPipeline, Sampler, ShaderModule, Surface, Texture, TextureView,
};
use crate::handle::{Blas, GpuHeap, PipelineCache, SamplerHeap, TextureHeap, Tlas};
use crate::label::Label;
use crate::native::{
    AccelKind, BindGroupKind, BindGroupLayoutKind, BufferKind, ComputePipelineKind, Owned,
    PipelineCacheKind, PipelineLayoutKind, QuerySetKind, RenderPipelineKind, SamplerKind,
    ShaderModuleKind, SurfaceKind, TextureKind, ViewKind,
};
use crate::registry::Labelled;
use crate::track::{State, Subresources, Use};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex};
use vigil_hal::{
    Api, BindGroupLayoutEntry, BufferUsages, SubresourceRange, TextureFormat, TextureLayout,
    TextureUsages, TextureViewDimension,
};

macro_rules! labelled {
    ($($obj:ident),*) => {$(
        impl<A: Api> Labelled for $obj<A> {
            fn label(&self) -> &Label {
                &self.label
            }
        }
    )*};
}

labelled!(
    BufferObj,
    TextureObj,
    ViewObj,
    SamplerObj,
    QuerySetObj,
    PipelineCacheObj,
    BindGroupLayoutObj,
    BindGroupObj,
    BindGroupPoolObj,
    PipelineLayoutObj,
    ShaderModuleObj,
    ComputePipelineObj,
    RenderPipelineObj,
    MappingObj,
    SurfaceObj,
    BlasObj,
    TlasObj,
    GpuHeapObj,
    TextureHeapObj,
    SamplerHeapObj,
    PlacementHeapObj
);

/// What one slot of a descriptor heap names.
pub(crate) enum HeapSlot<A: Api> {
    /// The device's placeholder (a 1×1 zero texture, or a nearest-filtering sampler): what
    /// a slot holds until written, and after what it named is destroyed.
    Placeholder,
    /// A texture view (texture heaps).
    View(Arc<ViewObj<A>>),
    /// A sampler (sampler heaps).
    Sampler(Arc<SamplerObj<A>>),
}

/// A texture or sampler heap: one native descriptor set of `capacity` slots, every slot
/// written (with the placeholder until the application writes it), holding what each slot
/// names so no slot ever names a released native object.
pub(crate) struct DescriptorHeapObj<A: Api, H> {
    pub raw: Owned<A, BindGroupKind>,
    pub handle: H,
    pub label: Label,
    pub capacity: u32,
    pub slots: Mutex<Vec<HeapSlot<A>>>,
}

/// A texture heap.
pub(crate) type TextureHeapObj<A> = DescriptorHeapObj<A, TextureHeap>;
/// A sampler heap.
pub(crate) type SamplerHeapObj<A> = DescriptorHeapObj<A, SamplerHeap>;

/// A GPU heap: a buffer with a device address, partitioned by the application.
pub(crate) struct GpuHeapObj<A: Api> {
    /// Its memory, shared with the heaps of other devices that share it
    /// ([`crate::Device::share_gpu_heap`]): released when the last of them goes.
    pub raw: Arc<Owned<A, BufferKind>>,
    pub handle: GpuHeap,
    pub label: Label,
    pub size: u64,
    pub kind: super::gpu::HeapKind,
    /// Its first byte's device address.
    pub address: u64,
}

/// A bottom-level acceleration structure.
pub(crate) struct BlasObj<A: Api> {
    pub raw: Owned<A, AccelKind>,
    pub handle: Blas,
    pub label: Label,
    /// What each geometry may hold at most.
    pub geometries: Box<[vigil_hal::TriangleGeometrySize]>,
    /// Its device address (what instance records name).
    pub address: u64,
    /// A submission that builds it was made: instances may name it.
    pub built: AtomicBool,
}

/// A top-level acceleration structure.
pub(crate) struct TlasObj<A: Api> {
    pub raw: Owned<A, AccelKind>,
    pub handle: Tlas,
    pub label: Label,
    pub max_instances: u32,
    /// A submission that builds it was made: shaders may traverse it.
    pub built: AtomicBool,
    /// The bottom-level structures its last submitted build named: kept alive while it
    /// may be traversed.
    pub blas: Mutex<Vec<Arc<BlasObj<A>>>>,
}

/// A buffer.
pub(crate) struct BufferObj<A: Api> {
    pub raw: Owned<A, BufferKind>,
    pub handle: Buffer,
    pub label: Label,
    pub size: u64,
    pub usage: BufferUsages,
    pub host_visible: bool,
    /// Writes staged for the next submission wait for it.
    pub queued_writes: AtomicBool,
    /// An open mapping (`slot << 32 | generation`; 0: none). Submissions that use a mapped buffer are
    /// refused.
    pub mapping: AtomicU64,
}

/// A buffer's state between submissions (kept in [`BufferStates`]).
#[derive(Clone, Copy)]
pub(crate) struct BufferState {
    /// Zeroed at least once: WebGPU buffers start zeroed. Host-visible ones are zeroed at
    /// creation, device-local ones by a fill in front of their first use.
    pub zeroed: bool,
    pub state: State,
    /// Serial of the last submission that used it (0: none).
    pub last_use: u64,
}

/// Every buffer's [`BufferState`] between submissions, by registry slot: whether it was
/// zeroed yet, the tracker's state of it and the last submission that used it. It lives in
/// the queue's state, read and moved on at submission under the queue lock, rather than in
/// each buffer (behind a mutex, and an atomic for the last use): a submission resolves
/// every buffer it uses in turn, and reaching into each object put a memory access to
/// wherever its allocation lies on every one (a mutex two locked instructions too, each
/// waiting for the accesses before it), where the table's entries lie together and are
/// changed in place.
#[derive(Default)]
pub(crate) struct BufferStates {
    /// Per slot: the generation of the buffer the entry is for, and its state.
    slots: Vec<(u32, BufferState)>,
    /// What [`BufferStates::of`] hands out when the table cannot grow to a slot.
    spare: Option<BufferState>,
}

impl BufferStates {
    /// The state of `b`, a fresh one when its slot's entry is another buffer's (or none):
    /// zeroed when host-visible (zeroed at creation), otherwise to be zeroed by a fill in
    /// front of its first use; used by no submission.
    #[inline]
    pub fn of<A: Api>(&mut self, b: &BufferObj<A>) -> &mut BufferState {
        self.at(b.key())
    }

    /// [`BufferStates::of`] by the buffer's key, for callers that keep it (a command
    /// buffer's tracker does, so a submission resolving a thousand buffers reads none of
    /// their objects).
    #[inline]
    pub fn at(&mut self, key: BufferKey) -> &mut BufferState {
        let index = key.index as usize;
        if self.slots.len() <= index {
            self.grow(index);
        }
        match self.slots.get_mut(index) {
            Some(e) => {
                if e.0 != key.generation {
                    *e = (key.generation, BufferState::fresh(key.host_visible));
                }
                &mut e.1
            }
            None => self.spare.insert(BufferState::fresh(key.host_visible)),
        }
    }

    /// Makes room for slot `index`.
    #[cold]
    fn grow(&mut self, index: usize) {
        // Generation 0 is never a live buffer's: a new entry is another buffer's.
        self.slots
            .resize(index.saturating_add(1), (0, BufferState::fresh(false)));
    }

    /// Records that submission `serial` used the buffer `key` names, whose entry the
    /// submission's resolution made or found.
    #[inline]
    pub fn stamp(&mut self, key: BufferKey, serial: u64) {
        match self.slots.get_mut(key.index as usize) {
            Some((generation, s)) if *generation == key.generation => s.last_use = serial,
            _ => self.at(key).last_use = serial,
        }
    }

    /// Serial of the last submission that used the buffer `key` names (0: none since it
    /// was made).
    #[inline]
    pub fn last_use(&self, key: BufferKey) -> u64 {
        match self.slots.get(key.index as usize) {
            Some((generation, s)) if *generation == key.generation => s.last_use,
            _ => 0,
        }
    }
}

impl BufferState {
    /// A buffer no submission has used: zeroed when host-visible (zeroed at creation),
    /// otherwise to be zeroed by a fill in front of its first use.
    #[inline]
    fn fresh(host_visible: bool) -> BufferState {
        BufferState {
            zeroed: host_visible,
            state: State::fresh(TextureLayout::General),
            last_use: 0,
        }
    }
}

/// What [`BufferStates`] finds a buffer's entry by: its registry slot and generation, and
/// whether its memory is host-visible (a fresh entry's `zeroed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferKey {
    pub index: u32,
    pub generation: u32,
    pub host_visible: bool,
}

impl<A: Api> BufferObj<A> {
    /// Its entry's key in [`BufferStates`].
    #[inline]
    pub fn key(&self) -> BufferKey {
        use crate::handle::Handle;
        BufferKey {
            index: self.handle.index(),
            generation: self.handle.generation(),
            host_visible: self.host_visible,
        }
    }

    /// What a recorded binding's checks need of the buffer (no mapping state).
    #[inline]
    pub fn shape(&self) -> crate::validate::buffer::Shape<'_> {
        crate::validate::buffer::Shape {
            label: &self.label,
            size: self.size,
            usage: self.usage,
        }
    }

    /// What validation checks of the buffer.
    #[inline]
    pub fn facts(&self) -> crate::validate::buffer::Facts<'_> {
        crate::validate::buffer::Facts {
            label: &self.label,
            size: self.size,
            usage: self.usage,
            mapped: self.mapping.load(std::sync::atomic::Ordering::Acquire) != 0,
        }
    }
}

/// A texture.
pub(crate) struct TextureObj<A: Api> {
    pub raw: Owned<A, TextureKind>,
    pub handle: Texture,
    pub label: Label,
    pub desc: crate::texture::TextureDescriptorOwned,
    /// Serial of the last submission that used it (0: none).
    pub last_use: AtomicU64,
    /// Between submissions: whether its contents were zeroed yet, and each subresource's
    /// state (mip-major). Shared with the registrations of an exported texture in other
    /// devices over the same native device (one native image, one set of layouts).
    pub state: Arc<Mutex<TextureState>>,
    /// A surface's frame: presented or abandoned through its surface, never destroyed
    /// directly or bound in a group.
    pub frame: bool,
    /// For a registration of another device's exported texture: that texture and its
    /// device.
    pub source: Option<TextureSource<A>>,
    /// Whether the texture was exported (its submissions then take `order`).
    pub exported: AtomicBool,
    /// Held by any device submitting work on the texture (its own or a registration) from
    /// planning to the native submission, so the shared layouts change in queue order;
    /// holds each device's last submission using it (what work on another queue waits
    /// for).
    pub order: Arc<Mutex<super::shared::SharedUses<A>>>,
    /// Texture-heap slots naming a view of it: while non-zero, the texture stays in its
    /// sampled layout (`gpu.heap-resident`).
    pub heap_slots: AtomicU32,
    /// The value the device's count of heap entries (`Core::heap_entries`) took when the
    /// texture last entered a heap (0: never): a recording whose first heap read saw a
    /// lower count read the heap without it, though its reads, which take the slots as
    /// they are when the work runs, may sample it.
    pub heap_since: std::sync::atomic::AtomicU64,
    /// For a texture placed in a placement heap: where. Last, so the image goes before
    /// the memory it lies in.
    pub placed: Option<Placed<A>>,
}

/// Where a placed texture lies, and (for an aliasable one) whether it is the active alias.
pub(crate) struct Placed<A: Api> {
    /// The heap (its memory lives while any texture placed in it does).
    pub heap: Arc<PlacementHeapObj<A>>,
    /// First byte.
    pub offset: u64,
    /// Bytes it occupies.
    pub size: u64,
    /// Whether other aliasable textures may share its bytes.
    pub aliasable: bool,
    /// For an aliasable texture, between submissions: whether it is the active alias of
    /// its bytes (changed in submission order, under the queue lock).
    pub active: AtomicBool,
}

impl<A: Api> Placed<A> {
    /// Whether `self` and `other` share a byte of one heap.
    pub fn overlaps(&self, other: &Placed<A>) -> bool {
        Arc::ptr_eq(&self.heap, &other.heap)
            && self.offset < other.offset.saturating_add(other.size)
            && other.offset < self.offset.saturating_add(self.size)
    }
}

/// Device memory textures are placed in.
pub(crate) struct PlacementHeapObj<A: Api> {
    pub raw: Owned<A, crate::native::TextureMemoryKind>,
    pub handle: crate::handle::PlacementHeap,
    pub label: Label,
    pub size: u64,
    /// The memory type (textures whose images cannot be bound to it are refused).
    pub memory_type: u32,
    /// The textures placed in it, alive or kept by work in flight (dead entries are
    /// dropped as placements look).
    pub placed: Mutex<Vec<std::sync::Weak<TextureObj<A>>>>,
}

/// Where a registered texture comes from.
pub(crate) struct TextureSource<A: Api> {
    /// The exporting device's texture (kept alive by the registration).
    pub texture: Arc<TextureObj<A>>,
    /// The exporting device.
    pub producer: Arc<crate::device::Core<A>>,
}

/// A surface: the native surface (with its swapchain), the window it presents to (held
/// so it outlives the native surface), and its frame.
pub(crate) struct SurfaceObj<A: Api> {
    pub handle: Surface,
    pub label: Label,
    pub state: Mutex<SurfaceState<A>>,
    /// Signalled when a frame is presented or abandoned (a waiting acquire looks again).
    pub frame_done: std::sync::Condvar,
    /// The application's window, kept alive for as long as the native surface; dropped
    /// after it (fields drop in order, and `state` holds the native surface).
    pub _window: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// What changes in a surface.
pub(crate) struct SurfaceState<A: Api> {
    pub raw: Owned<A, SurfaceKind>,
    pub config: Option<crate::device::SurfaceConfiguration>,
    /// The frame handed out and not yet presented or abandoned.
    pub frame: Option<Arc<TextureObj<A>>>,
    /// Serial of the last present's copy (0: none).
    pub last_present: u64,
}

/// A texture's state between submissions.
pub(crate) struct TextureState {
    /// Zeroed (or fully written) at least once: WebGPU textures start zeroed.
    pub initialized: bool,
    /// Per subresource, `mip * layers + layer` (one inline: most textures have one, and a
    /// submission copies each texture's parts for its undo).
    pub parts: Parts,
}

impl TextureState {
    /// A copy of the per-subresource states, for a submission's undo. (`from_slice`
    /// copies them at once; `SmallVec::clone` pushes them one by one.)
    #[inline]
    pub fn saved_parts(&self) -> Parts {
        Parts::from_slice(&self.parts)
    }
}

/// A texture's per-subresource states.
pub(crate) type Parts = smallvec::SmallVec<[State; 1]>;

/// A texture view.
pub(crate) struct ViewObj<A: Api> {
    pub raw: Owned<A, ViewKind>,
    pub handle: TextureView,
    pub label: Label,
    pub texture: Arc<TextureObj<A>>,
    pub format: TextureFormat,
    pub dimension: TextureViewDimension,
    pub usage: TextureUsages,
    pub range: SubresourceRange,
    pub sample_count: u32,
    pub extent: [u32; 2],
    /// Of a 3d view, the 2D views of the slices passes rendered to (by slice), made at a
    /// pass's beginning and kept as long as the view: a recording that rendered one holds
    /// the view, so the slice's native view outlives its commands.
    pub slices: Mutex<Vec<(u32, SliceView<A>)>>,
}

/// A native 2D view of one slice of a 3d view, shared by the passes that render it.
pub(crate) type SliceView<A> = Arc<Owned<A, ViewKind>>;

impl<A: Api> ViewObj<A> {
    /// The native 2D view of slice `z` of this 3d view's mip level, for rendering to it
    /// (`z` inside the level's slices, checked by the caller).
    pub fn slice(
        &self,
        hal: &Arc<crate::native::Hal<A>>,
        z: u32,
    ) -> vigil_hal::Result<SliceView<A>> {
        let mut slices = super::lock(&self.slices);
        if let Some((_, v)) = slices.iter().find(|(at, _)| *at == z) {
            return Ok(v.clone());
        }
        let raw = hal.create_texture_view(
            &self.texture.raw,
            &vigil_hal::TextureViewDescriptor {
                label: self.label.as_str(),
                format: self.format,
                dimension: TextureViewDimension::D2,
                usage: TextureUsages::RENDER_ATTACHMENT,
                range: SubresourceRange {
                    aspect: vigil_hal::TextureAspect::All,
                    base_mip_level: self.range.base_mip_level,
                    mip_level_count: 1,
                    base_array_layer: z,
                    array_layer_count: 1,
                },
            },
        )?;
        let v: SliceView<A> = Arc::new(Owned::new(hal, raw));
        slices.push((z, v.clone()));
        Ok(v)
    }

    /// The subresources the view covers.
    pub fn subresources(&self) -> Subresources {
        Subresources {
            base_mip: self.range.base_mip_level,
            mips: self.range.mip_level_count,
            base_layer: self.range.base_array_layer,
            layers: self.range.array_layer_count,
        }
    }
}

/// A sampler.
pub(crate) struct SamplerObj<A: Api> {
    pub raw: Owned<A, SamplerKind>,
    pub handle: Sampler,
    pub label: Label,
    pub comparison: bool,
    pub filtering: bool,
}

/// A pipeline cache.
pub(crate) struct PipelineCacheObj<A: Api> {
    pub raw: Owned<A, PipelineCacheKind>,
    pub handle: PipelineCache,
    pub label: Label,
}

/// A query set.
pub(crate) struct QuerySetObj<A: Api> {
    pub raw: Owned<A, QuerySetKind>,
    pub handle: QuerySet,
    pub label: Label,
    pub count: u32,
    /// What its queries measure.
    pub ty: vigil_hal::QueryType,
}

/// A bind group layout.
pub(crate) struct BindGroupLayoutObj<A: Api> {
    pub raw: Owned<A, BindGroupLayoutKind>,
    pub handle: BindGroupLayout,
    pub label: Label,
    /// Sorted by binding.
    pub entries: Vec<BindGroupLayoutEntry>,
    /// Equal for structurally identical layouts, which are interchangeable.
    pub compat: u32,
}

/// One resource a bind group reaches, and how a draw or dispatch uses it.
pub(crate) enum Member<A: Api> {
    /// A buffer range; `dynamic` is the index of its dynamic offset, if it has one.
    Buffer {
        buffer: Arc<BufferObj<A>>,
        offset: u64,
        size: u64,
        dynamic: Option<usize>,
        usage: Use,
    },
    /// A texture view, in the layout the group's descriptor names.
    View { view: Arc<ViewObj<A>>, usage: Use },
    /// A sampler (nothing to track).
    Sampler(Arc<SamplerObj<A>>),
    /// A top-level acceleration structure. Not tracked per resource: every build is
    /// fenced by global barriers on both sides (see `encoder/accel.rs`).
    Tlas(Arc<TlasObj<A>>),
}

/// Whether `members` are at most [`crate::encoder::used::DIRECT_MEMBERS`] and no two of them
/// name the same buffer, or views of the same texture (samplers and acceleration
/// structures are not tracked, so they never conflict).
pub(crate) fn members_distinct<A: Api>(members: &[Member<A>]) -> bool {
    if members.len() > crate::encoder::used::DIRECT_MEMBERS {
        return false;
    }
    let same = |a: &Member<A>, b: &Member<A>| match (a, b) {
        (Member::Buffer { buffer: x, .. }, Member::Buffer { buffer: y, .. }) => Arc::ptr_eq(x, y),
        (Member::View { view: x, .. }, Member::View { view: y, .. }) => {
            Arc::ptr_eq(&x.texture, &y.texture)
        }
        _ => false,
    };
    members
        .iter()
        .enumerate()
        .all(|(i, m)| !members.iter().skip(i.saturating_add(1)).any(|n| same(m, n)))
}

impl<A: Api> Clone for Member<A> {
    fn clone(&self) -> Self {
        match self {
            Member::Buffer {
                buffer,
                offset,
                size,
                dynamic,
                usage,
            } => Member::Buffer {
                buffer: buffer.clone(),
                offset: *offset,
                size: *size,
                dynamic: *dynamic,
                usage: *usage,
            },
            Member::View { view, usage } => Member::View {
                view: view.clone(),
                usage: *usage,
            },
            Member::Sampler(s) => Member::Sampler(s.clone()),
            Member::Tlas(t) => Member::Tlas(t.clone()),
        }
    }
}

/// One dynamic-offset binding of a bind group, in binding order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DynamicBinding {
    pub binding: u32,
    pub offset: u64,
    pub size: u64,
    pub buffer_size: u64,
    pub alignment: u32,
}

/// A bind group: its native set plus everything a draw needs from it, computed once. In
/// declaration order (`repr(C)`): the native set, which every bind reads, comes first.
#[repr(C)]
pub(crate) struct BindGroupObj<A: Api> {
    /// Declared first, so dropped first: the native set goes before what it names.
    pub raw: Owned<A, BindGroupKind>,
    pub handle: BindGroup,
    pub label: Label,
    pub compat: u32,
    /// The device's destroy epoch before its members were checked live at creation: while
    /// the device's is still this, every member is live.
    pub epoch: u64,
    pub members: GroupMembers<A>,
    /// Whether its members are few enough and name distinct resources (no buffer or
    /// texture twice), so their uses in one dispatch cannot conflict: worked out when its
    /// members are set ([`members_distinct`]), read at each recording's first meeting.
    pub distinct: bool,
    pub dynamic: Box<[DynamicBinding]>,
    /// Bound size per layout entry (0 for non-buffers), in layout entry order; for a
    /// buffer array, the smallest element's (`u64::MAX` while none is bound). For a layout
    /// with arrays, the group's length of each entry follows (what variable-count checks
    /// read).
    pub sizes: GroupSizes,
    /// Its layout (for writes).
    pub layout: Arc<BindGroupLayoutObj<A>>,
    /// What only groups with arrays, groups of a pool and untracked groups have (`None`
    /// for the common group, which keeps its object small).
    pub extra: Option<Box<GroupExtra>>,
}

/// A group's members: held in the group object for a group of one member (most groups),
/// so making one allocates no list of its own.
pub(crate) type GroupMembers<A> = smallvec::SmallVec<[Member<A>; 1]>;

/// A group's sizes table: held in the group object for groups of up to two layout
/// entries (most groups), so making one allocates no table of its own.
pub(crate) type GroupSizes = smallvec::SmallVec<[u64; 2]>;

/// The rarer facts of a bind group.
#[derive(Debug, Default)]
pub(crate) struct GroupExtra {
    /// Where each member is bound: `(binding, array element)`, sorted, one per member;
    /// empty for a layout without arrays, whose members are its entries in order.
    pub places: Box<[(u32, u32)]>,
    /// The group's length of each layout entry (its count, or the variable count); empty
    /// for a layout without arrays (every length is 1).
    pub lengths: Box<[u32]>,
    /// Made by `create_bind_group_untracked`: retains and tracks nothing (`members` is
    /// empty), is never written.
    pub untracked: bool,
    /// The pool it was made in, with the pool's generation then.
    pub pool: Option<(BindGroupPool, u32)>,
}

impl<A: Api> BindGroupObj<A> {
    /// Where each member is bound (empty: the layout's entries in order).
    pub fn places(&self) -> &[(u32, u32)] {
        self.extra.as_ref().map_or(&[], |e| &e.places)
    }

    /// The group's length of each layout entry (empty: every length is 1).
    pub fn lengths(&self) -> &[u32] {
        self.extra.as_ref().map_or(&[], |e| &e.lengths)
    }
}

/// A bind group pool: its generation and the groups made in it since the last reset.
pub(crate) struct BindGroupPoolObj<A: Api> {
    pub handle: BindGroupPool,
    pub label: Label,
    pub state: Mutex<PoolState>,
    pub _api: std::marker::PhantomData<fn() -> A>,
}

/// What a bind group pool's lock guards.
#[derive(Debug, Default)]
pub(crate) struct PoolState {
    /// Moves on at every reset.
    pub generation: u32,
    /// Groups made since the last reset (some may have been destroyed one by one).
    pub groups: Vec<BindGroup>,
    /// Set when the pool is destroyed: a creation that looked the pool up before then
    /// and waited for its lock is refused rather than adding to a pool nobody resets.
    pub destroyed: bool,
}

/// A pipeline layout.
pub(crate) struct PipelineLayoutObj<A: Api> {
    pub raw: Owned<A, PipelineLayoutKind>,
    pub handle: PipelineLayout,
    pub label: Label,
    pub groups: Vec<Arc<BindGroupLayoutObj<A>>>,
    pub compat: Vec<u32>,
    /// Bytes of immediate data.
    pub immediate_size: u32,
}

/// A shader module: the checked module, and its native code when it has no overrides to
/// fix (a module with overrides is translated per pipeline, with that pipeline's values).
pub(crate) struct ShaderModuleObj<A: Api> {
    pub raw: Option<Owned<A, ShaderModuleKind>>,
    pub handle: ShaderModule,
    pub label: Label,
    pub module: vigil_shader::Module,
}

/// A size check deferred to the draw or dispatch: the layout gave no minimum binding size,
/// so the bound range must be at least what the shader needs; or (`elements`) a
/// variable-count array, whose group's length must be at least the shader's array length.
/// `entry` indexes the group's `sizes` (lengths follow the per-entry sizes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LateSizeCheck {
    pub group: u32,
    pub entry: u32,
    pub binding: u32,
    pub min: u64,
    pub elements: bool,
}

/// What draws and dispatches need to know about a pipeline.
pub(crate) struct PipelineInfo<A: Api> {
    pub layout: Arc<PipelineLayoutObj<A>>,
    pub group_compat: Box<[u32]>,
    pub late_checks: Box<[LateSizeCheck]>,
    /// A pointer pipeline: its first 8 bytes of immediate data are the root, set only
    /// through `set_root`.
    pub pointer: bool,
    /// Heaps a pointer pipeline's shaders index: bit 0 textures, bit 1 samplers.
    pub heaps: u8,
}

impl<A: Api> PipelineInfo<A> {
    /// What a pointer pipeline keeps: its own root layout, no groups.
    pub fn pointer(layout: Arc<PipelineLayoutObj<A>>, heaps: u8) -> Self {
        PipelineInfo {
            group_compat: Box::new([]),
            late_checks: Box::new([]),
            layout,
            pointer: true,
            heaps,
        }
    }
}

/// A compute pipeline.
pub(crate) struct ComputePipelineObj<A: Api> {
    pub raw: Owned<A, ComputePipelineKind>,
    pub handle: ComputePipeline,
    pub label: Label,
    pub info: PipelineInfo<A>,
}

/// A render pipeline.
pub(crate) struct RenderPipelineObj<A: Api> {
    pub raw: Owned<A, RenderPipelineKind>,
    pub handle: RenderPipeline,
    pub label: Label,
    pub info: PipelineInfo<A>,
    pub render: crate::render::RenderPipelineFacts,
}

/// An open mapping of a buffer range.
pub(crate) struct MappingObj<A: Api> {
    pub handle: BufferMapping,
    pub label: Label,
    pub buffer: Arc<BufferObj<A>>,
    pub mode: super::mapping::MapMode,
    pub offset: u64,
    pub size: u64,
    /// The submission whose completion makes it ready.
    pub ready_serial: u64,
    /// Closures reading it now, or `WRITING` while one writes.
    pub access: AtomicU32,
    /// For a buffer mapped at creation: the bytes the closures see, written into the
    /// buffer when it is unmapped (its memory may not be host-visible).
    pub shadow: Option<std::sync::Mutex<Vec<u8>>>,
}

/// `MappingObj::access` while a closure writes.
pub(crate) const WRITING: u32 = u32::MAX;

/// The stages that may read a texture through a texture heap.
pub(crate) const HEAP_READERS: vigil_hal::Stages = vigil_hal::Stages::VERTEX_SHADER
    .union(vigil_hal::Stages::FRAGMENT_SHADER)
    .union(vigil_hal::Stages::COMPUTE);

/// A read by `stages` of a texture of `usage` through a texture heap: a sampled read in
/// the layout shaders see it in ([`shader_layout`]).
pub(crate) fn heap_read(usage: TextureUsages, stages: vigil_hal::Stages) -> Use {
    Use {
        stages,
        access: vigil_hal::Access::SHADER_READ,
        layout: shader_layout(usage),
    }
}

/// The layout shaders see a texture in: `General` for textures that can be storage
/// textures (so sampled and storage uses of them never disagree), `ShaderReadOnly` for the
/// rest. Bind groups name it when they are created.
pub(crate) fn shader_layout(usage: TextureUsages) -> TextureLayout {
    if usage.contains(TextureUsages::STORAGE_BINDING) {
        TextureLayout::General
    } else {
        TextureLayout::ShaderReadOnly
    }
}

#[cfg(test)]
mod tests {
    use super::{BufferKey, BufferStates};
    use vigil_hal::{Access, Stages};

    fn key(index: u32, generation: u32, host_visible: bool) -> BufferKey {
        BufferKey {
            index,
            generation,
            host_visible,
        }
    }

    #[test]
    fn a_buffer_states_entry_follows_its_buffer_and_starts_fresh_for_the_next_in_its_slot() {
        let mut states = BufferStates::default();
        let first = key(7, 1, false);
        assert_eq!(states.last_use(first), 0, "never submitted");
        let g = states.at(first);
        assert!(!g.zeroed, "device-local: zeroed by a fill before first use");
        g.zeroed = true;
        g.state.write = Some((Stages::COMPUTE, Access::SHADER_WRITE));
        states.stamp(first, 5);
        assert_eq!(states.last_use(first), 5);
        assert!(
            states.at(first).zeroed,
            "the entry is kept between submissions"
        );
        // The slot's next buffer: its own entry, nothing of the first one's.
        let second = key(7, 2, true);
        assert_eq!(
            states.last_use(second),
            0,
            "the old entry is not this buffer's"
        );
        let g = states.at(second);
        assert!(g.zeroed, "host-visible: zeroed at creation");
        assert_eq!(g.state.write, None);
        assert_eq!(g.last_use, 0);
        assert_eq!(states.last_use(first), 0, "a stale key finds no entry");
        // Stamping a key whose entry was never made makes it.
        states.stamp(key(40, 3, false), 9);
        assert_eq!(states.last_use(key(40, 3, false)), 9);
        assert_eq!(states.last_use(key(40, 2, false)), 0);
    }
}
