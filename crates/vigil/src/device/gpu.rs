//! The GPU-pointer tier, first part: heaps with device addresses, typed pointers into
//! them, and compute pipelines whose shaders follow pointers from one root address per
//! dispatch (see `docs/gpu-pointers.md`).
//!
//! The application owns the layout of its heaps; vigil checks every address the CPU hands
//! the GPU (each root lies inside a live heap, with room for what it points at) and keeps a
//! destroyed heap's memory until all work submitted before the destroy has completed, since
//! any of it may reach the heap through pointers. What shaders do with pointers cannot be
//! seen from the CPU and is not checked.

use super::{Device, GpuHeapObj, PipelineInfo};
use crate::error::{Result, fail};
use crate::handle::{ComputePipeline, GpuHeap, Handle, RenderPipeline, ShaderModule};
use crate::native::Owned;
use crate::validate;
use std::marker::PhantomData;
use std::sync::Arc;
use vigil_hal::Device as _;
use vigil_hal::{
    Api, BufferUsages, ColorTargetState, DepthStencilState, Features, MemoryLocation,
    PrimitiveState,
};
use vigil_shader::Stage;

/// Where a heap's memory lives and who may touch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeapKind {
    /// Host-visible: the CPU writes it (`write_gpu_heap`) and may read it; the GPU reads and
    /// writes it. For roots, tables and data the CPU prepares each frame.
    CpuVisible,
    /// Device-local: only the GPU touches it.
    GpuOnly,
    /// Host-visible and cached for reading: the GPU writes it, the CPU reads it
    /// (`read_gpu_heap`) once the work is complete.
    Readback,
}

/// How to make a GPU heap.
#[derive(Clone, Copy, Debug)]
pub struct GpuHeapDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bytes (a multiple of 4).
    pub size: u64,
    /// Where it lives.
    pub kind: HeapKind,
}

/// A typed device address: what a `buffer_reference` of type `T` holds in a shader, 8
/// bytes, `#[repr(transparent)]` over the address so it can sit in structures shared with
/// shaders (written with [`GpuPtr::to_bytes`]). Made by [`Device::gpu_heap_ptr`], which
/// checks it lies in a live heap with room for a `T`; arithmetic on it is the
/// application's, and the GPU follows whatever it is given.
#[repr(transparent)]
pub struct GpuPtr<T> {
    address: u64,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for GpuPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GpuPtr<T> {}
impl<T> PartialEq for GpuPtr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.address == other.address
    }
}
impl<T> Eq for GpuPtr<T> {}
impl<T> std::fmt::Debug for GpuPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuPtr({:#x})", self.address)
    }
}

impl<T> GpuPtr<T> {
    /// The null pointer (address 0), what shaders test with `VIGIL_IS_NULL`.
    pub const NULL: GpuPtr<T> = GpuPtr {
        address: 0,
        _t: PhantomData,
    };

    /// A pointer to whatever is at `address`: for addresses the application computes or
    /// reads back from the GPU. Nothing is checked here; vigil checks a pointer when it is
    /// handed one (`set_root`).
    pub fn from_address(address: u64) -> Self {
        GpuPtr {
            address,
            _t: PhantomData,
        }
    }

    /// The pointer `bytes` further on (saturating at the top of the address space).
    pub fn byte_add(self, bytes: u64) -> Self {
        GpuPtr::from_address(self.address.saturating_add(bytes))
    }

    /// The device address.
    pub fn address(self) -> u64 {
        self.address
    }

    /// Whether it is null.
    pub fn is_null(self) -> bool {
        self.address == 0
    }

    /// The same address as a pointer to `U`.
    pub fn cast<U>(self) -> GpuPtr<U> {
        GpuPtr {
            address: self.address,
            _t: PhantomData,
        }
    }

    /// The address as the 8 little-endian bytes shaders read.
    pub fn to_bytes(self) -> [u8; 8] {
        self.address.to_le_bytes()
    }
}

/// `len` values of type `T` in a row at a device address: what a shader's unsized array
/// in a `buffer_reference` block (`T v[]`) points at. Made by [`Device::gpu_heap_slice`],
/// which checks it lies in a live heap, aligned to `T`.
pub struct GpuSlice<T> {
    ptr: GpuPtr<T>,
    len: u64,
}

impl<T> Clone for GpuSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GpuSlice<T> {}
impl<T> std::fmt::Debug for GpuSlice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuSlice({:#x}, {})", self.ptr.address, self.len)
    }
}

impl<T> GpuSlice<T> {
    /// Its first value's pointer (what a shader's block pointer holds).
    pub fn ptr(self) -> GpuPtr<T> {
        self.ptr
    }

    /// How many values it holds.
    pub fn len(self) -> u64 {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// A pointer to value `i`, or `None` past the end.
    pub fn get(self, i: u64) -> Option<GpuPtr<T>> {
        (i < self.len).then(|| {
            self.ptr
                .byte_add(i.saturating_mul(std::mem::size_of::<T>() as u64))
        })
    }
}

/// How to make a pointer pipeline: a compute shader in the tier's GLSL (see
/// [`vigil_shader::glsl`]), entry point `main`, one root per dispatch.
#[derive(Clone, Copy, Debug)]
pub struct PointerComputePipelineDescriptor<'a> {
    /// Label (also the file name in diagnostics).
    pub label: &'a str,
    /// GLSL after the tier's prelude: declare `buffer_reference` blocks and the root with
    /// `VIGIL_ROOT(Type);`, then `void main()`.
    pub glsl: &'a str,
    /// A pipeline cache the driver may read compiled code from and add this pipeline's to
    /// (see [`Device::create_pipeline_cache`]).
    pub cache: Option<crate::PipelineCache>,
}

/// How to make a pointer render pipeline: vertex (and fragment) shaders in the tier's GLSL,
/// entry points `main`, one root per draw seen by both stages, no vertex buffers (vertices
/// are fetched through pointers, by `gl_VertexIndex`).
#[derive(Clone, Copy, Debug)]
pub struct PointerRenderPipelineDescriptor<'a> {
    /// Label (also the file name in diagnostics).
    pub label: &'a str,
    /// The vertex shader.
    pub vertex_glsl: &'a str,
    /// The fragment shader, and the color targets it writes (`None` for depth-only).
    pub fragment: Option<(&'a str, &'a [Option<ColorTargetState>])>,
    /// Primitive state.
    pub primitive: PrimitiveState,
    /// Depth-stencil state.
    pub depth_stencil: Option<DepthStencilState>,
    /// Sample count (1 or 4).
    pub sample_count: u32,
    /// A pipeline cache the driver may read compiled code from and add this pipeline's to.
    pub cache: Option<crate::PipelineCache>,
}

/// How to make a mesh pipeline: tier GLSL for an optional task shader, a mesh shader
/// and a fragment shader (entry points `main`), one root per draw seen by every stage.
#[derive(Clone, Copy, Debug)]
pub struct PointerMeshPipelineDescriptor<'a> {
    /// Label (also the file name in diagnostics).
    pub label: &'a str,
    /// The task shader (`GL_EXT_mesh_shader` is enabled for it), if any.
    pub task_glsl: Option<&'a str>,
    /// The mesh shader.
    pub mesh_glsl: &'a str,
    /// The fragment shader and the color targets it writes.
    pub fragment: Option<(&'a str, &'a [Option<ColorTargetState>])>,
    /// Which faces are culled.
    pub cull_mode: vigil_hal::CullMode,
    /// Which winding faces the front.
    pub front_face: vigil_hal::FrontFace,
    /// Depth-stencil state.
    pub depth_stencil: Option<DepthStencilState>,
    /// Sample count (1 or 4).
    pub sample_count: u32,
    /// A pipeline cache the driver may read compiled code from and add this pipeline's to.
    pub cache: Option<crate::PipelineCache>,
}

/// What geometry a pointer pipeline draws with.
#[derive(Clone, Copy)]
enum Geometry<'a> {
    /// A vertex shader.
    Vertex(&'a str),
    /// A mesh shader, after an optional task shader.
    Mesh {
        task: Option<&'a str>,
        mesh: &'a str,
    },
}

/// Which pointer pipelines a root layout serves, so the root is pushed to their stages
/// only (a push to stages no pipeline has is not free: on the H200 a compute stage in a
/// draw's push range cost some 10 ns a push).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RootStages {
    /// Compute pipelines.
    Compute,
    /// Vertex (and fragment) pipelines.
    Render,
    /// Mesh pipelines: task, mesh and fragment stages.
    Mesh,
}

impl RootStages {
    /// The stages that see the root.
    pub(crate) fn stages(self) -> vigil_hal::ShaderStages {
        use vigil_hal::ShaderStages as S;
        match self {
            RootStages::Compute => S::COMPUTE,
            RootStages::Render => S::VERTEX_FRAGMENT,
            RootStages::Mesh => S::MESH | S::FRAGMENT,
        }
    }
}

/// What pointer pipelines that draw share besides their geometry.
struct PointerGraphics<'a> {
    label: &'a str,
    fragment: Option<(&'a str, &'a [Option<ColorTargetState>])>,
    primitive: PrimitiveState,
    depth_stencil: Option<DepthStencilState>,
    sample_count: u32,
    cache: Option<crate::PipelineCache>,
}

impl<A: Api> Device<A> {
    /// Makes a GPU heap of `desc.size` bytes with a device address. Needs
    /// `BUFFER_DEVICE_ADDRESS`. CPU-visible heaps start zeroed; others hold whatever the
    /// GPU writes first.
    pub fn create_gpu_heap(&self, desc: &GpuHeapDescriptor<'_>) -> Result<GpuHeap> {
        const OP: &str = "create_gpu_heap";
        let label = desc.label;
        self.check_alive(OP)?;
        self.gpu_feature(OP, label)?;
        if desc.size == 0 || desc.size % 4 != 0 || desc.size > self.limits.max_buffer_size {
            return Err(fail!(
                GpuHeapDescriptor,
                OP,
                label,
                "size {} must be a non-zero multiple of 4 within max_buffer_size ({})",
                desc.size,
                self.limits.max_buffer_size
            ));
        }
        let location = match desc.kind {
            HeapKind::CpuVisible => MemoryLocation::CpuToGpu,
            HeapKind::GpuOnly => MemoryLocation::GpuOnly,
            HeapKind::Readback => MemoryLocation::GpuToCpu,
        };
        let raw = self
            .hal
            .create_buffer(&vigil_hal::BufferDescriptor {
                label,
                size: desc.size,
                // Storage for what shaders reach; indirect for arguments read by address.
                usage: BufferUsages::DEVICE_ADDRESS
                    | BufferUsages::STORAGE
                    | BufferUsages::INDIRECT
                    | BufferUsages::INDEX,
                location,
            })
            .map_err(|e| self.hal_error(e, OP, label))?;
        // Owned first: a failure below releases the buffer.
        let raw = Owned::<A, crate::native::BufferKind>::new(&self.hal, raw);
        if desc.kind == HeapKind::CpuVisible {
            let zeros = vec![0u8; usize::try_from(desc.size).unwrap_or(0)];
            self.hal
                .write_mapped(&raw, 0, &zeros)
                .map_err(|e| self.hal_error(e, OP, label))?;
        }
        let address = self.hal.buffer_address(&raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .gpu_heaps
            .insert(|index, generation| GpuHeapObj {
                raw: Arc::new(raw),
                handle: GpuHeap::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                size: desc.size,
                kind: desc.kind,
                address,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, label, "GPU heap"))?;
        self.add_heap(obj, label)
    }

    /// Puts a new heap among the live ones, by address (what roots are checked against).
    fn add_heap(&self, obj: Arc<GpuHeapObj<A>>, label: &str) -> Result<GpuHeap> {
        let handle = obj.handle;
        let mut heaps = self.lock_heaps();
        let at = heaps.partition_point(|h| h.address < obj.address);
        heaps.insert(at, obj);
        drop(heaps);
        self.notify_created("GPU heap", label);
        Ok(handle)
    }

    /// Shares `heap` with `with`, another device over the same native device (one on
    /// another queue, say): returns `with`'s handle of the same memory, at the same
    /// addresses, so its roots and arguments may point into it. Each device destroys its
    /// own handle; the memory goes when the last handle is destroyed and every submission
    /// of either device made before then has completed. Nothing orders the two devices'
    /// uses of the memory but the application: across queues with
    /// [`Device::submit_after`], on one queue with barriers. Refused for a device over
    /// another native device, or this device itself (`gpu.heap-share`).
    pub fn share_gpu_heap(&self, heap: GpuHeap, with: &Device<A>) -> Result<GpuHeap> {
        const OP: &str = "share_gpu_heap";
        self.check_alive(OP)?;
        let h = self.lookup(heap, OP)?;
        if Arc::ptr_eq(&self.core, &with.core) || !self.completion.same_root(&with.completion) {
            return Err(fail!(
                GpuHeapShare,
                OP,
                &h.label,
                "a heap is shared with another device over the same native device (made with share from this one), not with this device itself or a device over another native device"
            ));
        }
        with.check_alive(OP)?;
        let label = format!("{} (shared)", h.label);
        let id = with.id;
        let (_, _, obj) = with
            .objects
            .gpu_heaps
            .insert(|index, generation| GpuHeapObj {
                raw: h.raw.clone(),
                handle: GpuHeap::from_parts(index, generation, id),
                label: crate::label::Label::new(&label),
                size: h.size,
                kind: h.kind,
                address: h.address,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, &label, "GPU heap"))?;
        with.add_heap(obj, &label)
    }

    /// A pointer to a `T` at byte `offset` of `heap`: the heap is live, `offset` is a
    /// multiple of `T`'s alignment and a `T` fits there (`gpu.pointer`).
    pub fn gpu_heap_ptr<T>(&self, heap: GpuHeap, offset: u64) -> Result<GpuPtr<T>> {
        const OP: &str = "gpu_heap_ptr";
        let h = self.lookup(heap, OP)?;
        let size = std::mem::size_of::<T>() as u64;
        let align = std::mem::align_of::<T>() as u64;
        if offset.checked_rem(align) != Some(0) || !validate::inside(offset, size.max(1), h.size) {
            return Err(fail!(
                GpuPointer,
                OP,
                &h.label,
                "a {size}-byte value aligned to {align} does not fit at offset {offset} of the heap's {} bytes",
                h.size
            ));
        }
        Ok(GpuPtr {
            address: h.address.saturating_add(offset),
            _t: PhantomData,
        })
    }

    /// `len` values of `T` from byte `offset` of `heap`: the heap is live, `offset` is a
    /// multiple of `T`'s alignment and all of them fit (`gpu.pointer`).
    pub fn gpu_heap_slice<T>(&self, heap: GpuHeap, offset: u64, len: u64) -> Result<GpuSlice<T>> {
        const OP: &str = "gpu_heap_slice";
        let h = self.lookup(heap, OP)?;
        let size = (std::mem::size_of::<T>() as u64).saturating_mul(len);
        let align = std::mem::align_of::<T>() as u64;
        if offset.checked_rem(align) != Some(0) || !validate::inside(offset, size, h.size) {
            return Err(fail!(
                GpuPointer,
                OP,
                &h.label,
                "{len} values of {} bytes aligned to {align} do not fit at offset {offset} of the heap's {} bytes",
                std::mem::size_of::<T>(),
                h.size
            ));
        }
        Ok(GpuSlice {
            ptr: GpuPtr {
                address: h.address.saturating_add(offset),
                _t: PhantomData,
            },
            len,
        })
    }

    /// Writes `values` at byte `offset` of a CPU-visible heap, as their bytes (`T` is
    /// plain data: `#[repr(C)]` with bytemuck's `Pod`, its layout the shader block's with
    /// `scalar` packing). `offset` must be a multiple of `T`'s alignment (`gpu.pointer`);
    /// otherwise as [`Device::write_gpu_heap`].
    pub fn write_gpu_values<T: bytemuck::Pod>(
        &self,
        heap: GpuHeap,
        offset: u64,
        values: &[T],
    ) -> Result<()> {
        const OP: &str = "write_gpu_values";
        self.value_alignment::<T>(OP, heap, offset)?;
        let bytes: &[u8] = bytemuck::cast_slice(values);
        let h = self.lookup(heap, OP)?;
        self.check_alive(OP)?;
        self.heap_access(OP, &h, offset, bytes.len() as u64, &[HeapKind::CpuVisible])?;
        self.hal
            .write_mapped(&h.raw, offset, bytes)
            .map_err(|e| self.hal_error(e, OP, &h.label))
    }

    /// Reads `count` values of `T` at byte `offset` of a CPU-visible or readback heap (as
    /// [`Device::read_gpu_heap`]; `offset` aligned to `T`).
    pub fn read_gpu_values<T: bytemuck::Pod>(
        &self,
        heap: GpuHeap,
        offset: u64,
        count: u64,
    ) -> Result<Vec<T>> {
        const OP: &str = "read_gpu_values";
        self.value_alignment::<T>(OP, heap, offset)?;
        let size = std::mem::size_of::<T>() as u64;
        let bytes = self.read_gpu_heap(heap, offset, size.saturating_mul(count))?;
        Ok(bytes
            .chunks_exact(std::mem::size_of::<T>().max(1))
            .map(bytemuck::pod_read_unaligned)
            .collect())
    }

    fn value_alignment<T>(&self, op: &'static str, heap: GpuHeap, offset: u64) -> Result<()> {
        let align = std::mem::align_of::<T>() as u64;
        if offset.checked_rem(align) == Some(0) {
            return Ok(());
        }
        let h = self.lookup(heap, op)?;
        Err(fail!(
            GpuPointer,
            op,
            &h.label,
            "offset {offset} is not a multiple of the values' alignment ({align})"
        ))
    }

    /// Writes `data` at byte `offset` of a CPU-visible heap. Work in flight that reads the
    /// same bytes sees old or new values (the application partitions its heaps per frame);
    /// nothing the CPU can do here reaches outside the heap.
    pub fn write_gpu_heap(&self, heap: GpuHeap, offset: u64, data: &[u8]) -> Result<()> {
        const OP: &str = "write_gpu_heap";
        self.check_alive(OP)?;
        let h = self.lookup(heap, OP)?;
        self.heap_access(OP, &h, offset, data.len() as u64, &[HeapKind::CpuVisible])?;
        self.hal
            .write_mapped(&h.raw, offset, data)
            .map_err(|e| self.hal_error(e, OP, &h.label))
    }

    /// Reads `len` bytes at `offset` of a CPU-visible or readback heap, as the memory holds
    /// them now (wait for the work that writes them first).
    pub fn read_gpu_heap(&self, heap: GpuHeap, offset: u64, len: u64) -> Result<Vec<u8>> {
        const OP: &str = "read_gpu_heap";
        self.check_alive(OP)?;
        let h = self.lookup(heap, OP)?;
        self.heap_access(
            OP,
            &h,
            offset,
            len,
            &[HeapKind::CpuVisible, HeapKind::Readback],
        )?;
        let mut out = vec![0u8; usize::try_from(len).unwrap_or(0)];
        self.hal
            .read_mapped(&h.raw, offset, &mut out)
            .map_err(|e| self.hal_error(e, OP, &h.label))?;
        Ok(out)
    }

    /// Destroys a heap: its handle is stale at once, and command buffers whose roots point
    /// into it are refused at submission. Its memory stays until every submission made
    /// before now has completed (any of them may reach it through pointers).
    pub fn destroy_gpu_heap(&self, heap: GpuHeap) -> Result<()> {
        let obj = self.remove(heap, "destroy_gpu_heap")?;
        self.lock_heaps().retain(|h| !Arc::ptr_eq(h, &obj));
        super::heaps::keep_in_flight(
            &mut self.queue.lock(),
            vec![super::heaps::Retired::GpuHeap(obj)],
        );
        Ok(())
    }

    /// Makes a compute pipeline from tier GLSL: compiled with `glslc`, checked with
    /// `spirv-val` and against the device's enabled features (`gpu.shader`), with a layout
    /// of no groups and the 8-byte root as its immediate data. Needs
    /// `BUFFER_DEVICE_ADDRESS`. Bind it with `set_compute_pipeline`, give each dispatch its
    /// root with `set_root`.
    pub fn create_pointer_compute_pipeline(
        &self,
        desc: &PointerComputePipelineDescriptor<'_>,
    ) -> Result<ComputePipeline> {
        const OP: &str = "create_pointer_compute_pipeline";
        let label = desc.label;
        self.check_alive(OP)?;
        self.gpu_feature(OP, label)?;
        let cache = self.pipeline_cache_of(desc.cache, OP)?;
        let words = vigil_shader::glsl::compile_compute(label, desc.glsl, self.features)
            .map_err(|d| shader_error(OP, label, d))?;
        let heaps = self.heaps_of(OP, label, &words)?;
        let layout = self.root_layout(OP, label, RootStages::Compute)?;
        let module = self.spirv_module(OP, label, &words)?;
        let raw = self
            .hal
            .create_compute_pipeline(&vigil_hal::ComputePipelineDescriptor {
                label,
                layout: &layout.raw,
                module: &module,
                entry_point: "main",
                cache: cache.as_deref().map(|c| &*c.raw),
            })
            .map_err(|e| self.hal_error(e, OP, label))?;
        drop(module);
        let raw = Owned::new(&self.hal, raw);
        self.register_compute_pipeline(OP, label, raw, PipelineInfo::pointer(layout, heaps))
    }

    /// Makes a render pipeline from tier GLSL: each stage compiled and checked as for
    /// [`Device::create_pointer_compute_pipeline`]; the fixed-function state checked as for
    /// [`Device::create_render_pipeline`] (targets, formats, sample count, strip formats),
    /// no vertex inputs (there are no vertex buffers), and the fragment outputs read from the
    /// SPIR-V checked against the targets. Bind it with `set_render_pipeline`, give each
    /// draw its root with `set_root`.
    pub fn create_pointer_render_pipeline(
        &self,
        desc: &PointerRenderPipelineDescriptor<'_>,
    ) -> Result<RenderPipeline> {
        self.pointer_graphics(
            "create_pointer_render_pipeline",
            Geometry::Vertex(desc.vertex_glsl),
            &PointerGraphics {
                label: desc.label,
                fragment: desc.fragment,
                primitive: desc.primitive,
                depth_stencil: desc.depth_stencil,
                sample_count: desc.sample_count,
                cache: desc.cache,
            },
        )
    }

    /// Makes a mesh pipeline from tier GLSL (needs `MESH_SHADER`): an optional task
    /// shader launching mesh workgroups, a mesh shader emitting vertices and primitives
    /// (reading whatever it needs through the root), and a fragment shader, each compiled
    /// and checked as for [`Device::create_pointer_compute_pipeline`]; fixed-function state
    /// as for [`Device::create_pointer_render_pipeline`] (the topology is the mesh
    /// shader's). Draw it with
    /// [`CommandEncoder::draw_mesh_tasks`](crate::CommandEncoder::draw_mesh_tasks).
    pub fn create_pointer_mesh_pipeline(
        &self,
        desc: &PointerMeshPipelineDescriptor<'_>,
    ) -> Result<RenderPipeline> {
        const OP: &str = "create_pointer_mesh_pipeline";
        if !self.features.contains(Features::MESH_SHADER) {
            return Err(fail!(
                MeshFeature,
                OP,
                desc.label,
                "mesh pipelines need the MESH_SHADER feature; enable it when opening the device (the adapter must support it)"
            ));
        }
        self.pointer_graphics(
            OP,
            Geometry::Mesh {
                task: desc.task_glsl,
                mesh: desc.mesh_glsl,
            },
            &PointerGraphics {
                label: desc.label,
                fragment: desc.fragment,
                primitive: PrimitiveState {
                    cull_mode: desc.cull_mode,
                    front_face: desc.front_face,
                    ..PrimitiveState::default()
                },
                depth_stencil: desc.depth_stencil,
                sample_count: desc.sample_count,
                cache: desc.cache,
            },
        )
    }

    /// A pointer pipeline that draws: vertex or mesh geometry, then the fragment stage.
    fn pointer_graphics(
        &self,
        op: &'static str,
        geometry: Geometry<'_>,
        desc: &PointerGraphics<'_>,
    ) -> Result<RenderPipeline> {
        let l = desc.label;
        self.check_alive(op)?;
        self.gpu_feature(op, l)?;
        let cache = self.pipeline_cache_of(desc.cache, op)?;
        let targets = desc.fragment.map_or(&[][..], |(_, t)| t);
        // The fixed-function checks of ordinary pipelines, on the same state.
        let fixed = crate::render::RenderPipelineDescriptor {
            label: l,
            layout: crate::handle::PipelineLayout::NULL,
            vertex: crate::render::VertexState {
                module: ShaderModule::NULL,
                entry_point: "main",
                constants: &[],
                buffers: &[],
            },
            fragment: desc
                .fragment
                .map(|(_, targets)| crate::render::FragmentState {
                    module: ShaderModule::NULL,
                    entry_point: "main",
                    constants: &[],
                    targets,
                }),
            primitive: desc.primitive,
            depth_stencil: desc.depth_stencil,
            multisample: vigil_hal::MultisampleState {
                count: desc.sample_count,
                ..Default::default()
            },
            multiview_mask: None,
            cache: None,
        };
        let vertex = validate::pipeline::render_fixed(&fixed, self.features, &self.limits, &|f| {
            self.format_support(f)
        })?;
        let shader = |d: vigil_shader::Diagnostic| shader_error(op, l, d);
        let stage =
            |glsl: &str, stage: Stage| -> Result<(Vec<u32>, vigil_shader::EntryPointReflection)> {
                let words =
                    vigil_shader::glsl::compile(l, glsl, stage, self.features).map_err(shader)?;
                let reflection = vigil_shader::glsl::reflect(l, &words, stage).map_err(shader)?;
                Ok((words, reflection))
            };
        let mut heaps = 0;
        let (gwords, task_words) = match geometry {
            Geometry::Vertex(glsl) => {
                let (vwords, vs) = stage(glsl, Stage::Vertex)?;
                validate::pipeline::vertex_inputs(l, &vs, &vertex.locations)?;
                (vwords, None)
            }
            Geometry::Mesh { task, mesh } => {
                let words = vigil_shader::glsl::compile_mesh(l, mesh, false, self.features)
                    .map_err(shader)?;
                let task = match task {
                    Some(glsl) => {
                        let t = vigil_shader::glsl::compile_mesh(l, glsl, true, self.features)
                            .map_err(shader)?;
                        heaps |= self.heaps_of(op, l, &t)?;
                        Some(t)
                    }
                    None => None,
                };
                (words, task)
            }
        };
        heaps |= self.heaps_of(op, l, &gwords)?;
        let fragment = match desc.fragment {
            Some((glsl, targets)) => {
                let (words, fs) = stage(glsl, Stage::Fragment)?;
                heaps |= self.heaps_of(op, l, &words)?;
                validate::pipeline::dual_source(l, self.features, &fs, targets)?;
                validate::pipeline::fragment_outputs(l, &fs, targets)?;
                Some(words)
            }
            None => None,
        };
        let kind = match geometry {
            Geometry::Vertex(_) => RootStages::Render,
            Geometry::Mesh { .. } => RootStages::Mesh,
        };
        let layout = self.root_layout(op, l, kind)?;
        let gmodule = self.spirv_module(op, l, &gwords)?;
        let tmodule = match &task_words {
            Some(words) => Some(self.spirv_module(op, l, words)?),
            None => None,
        };
        let fmodule = match &fragment {
            Some(words) => Some(self.spirv_module(op, l, words)?),
            None => None,
        };
        let mesh = match geometry {
            Geometry::Vertex(_) => None,
            Geometry::Mesh { .. } => Some(vigil_hal::MeshStages {
                task: tmodule.as_ref().map(|m| (&**m, "main")),
            }),
        };
        let has_mesh = mesh.is_some();
        let raw = self
            .hal
            .create_render_pipeline(&vigil_hal::RenderPipelineDescriptor {
                label: l,
                layout: &layout.raw,
                vertex_module: &gmodule,
                vertex_entry: "main",
                vertex_buffers: &[],
                fragment: fmodule.as_ref().map(|m| (&**m, "main")),
                targets,
                primitive: desc.primitive,
                depth_stencil: desc.depth_stencil,
                multisample: vigil_hal::MultisampleState {
                    count: desc.sample_count,
                    ..Default::default()
                },
                view_mask: 0,
                mesh,
                cache: cache.as_deref().map(|c| &*c.raw),
            })
            .map_err(|e| self.hal_error(e, op, l))?;
        drop((gmodule, tmodule, fmodule));
        let raw = Owned::new(&self.hal, raw);
        let render = crate::render::RenderPipelineFacts {
            vertex_buffers: Box::new([]),
            color_formats: targets.iter().map(|t| t.map(|t| t.format)).collect(),
            depth_format: desc.depth_stencil.map(|d| d.format),
            writes_depth: desc.depth_stencil.is_some_and(|d| d.depth_write_enabled),
            writes_stencil: desc.depth_stencil.is_some_and(|d| d.writes_stencil()),
            sample_count: desc.sample_count,
            strip_index_format: desc.primitive.strip_index_format,
            multiview_mask: 0,
            mesh: has_mesh.then_some(task_words.is_some()),
        };
        self.register_render_pipeline(op, l, raw, PipelineInfo::pointer(layout, heaps), render)
    }

    /// A native module from checked SPIR-V, released when the returned owner goes.
    fn spirv_module(
        &self,
        op: &'static str,
        label: &str,
        words: &[u32],
    ) -> Result<Owned<A, crate::native::ShaderModuleKind>> {
        let module = self
            .hal
            .create_shader_module(&vigil_hal::ShaderModuleDescriptor {
                label,
                code: vigil_hal::ShaderCode::SpirV(words),
            })
            .map_err(|e| self.hal_error(e, op, label))?;
        Ok(Owned::new(&self.hal, module))
    }

    /// The heaps a module indexes (bit 0 textures, bit 1 samplers): only on a device with
    /// `DESCRIPTOR_HEAPS` (`gpu.heap-feature`), and no other descriptors (`gpu.shader`).
    fn heaps_of(&self, op: &'static str, label: &str, words: &[u32]) -> Result<u8> {
        let heaps = vigil_shader::glsl::heap_use(label, words)
            .map_err(|d| fail!(GpuShader, op, label, "{}", d.message).with_diagnostic(d))?;
        if heaps != 0 && !self.features.contains(Features::DESCRIPTOR_HEAPS) {
            return Err(fail!(
                GpuHeapFeature,
                op,
                label,
                "the module indexes a texture or sampler heap, which needs the DESCRIPTOR_HEAPS feature; enable it when opening the device"
            ));
        }
        Ok(heaps)
    }

    /// The layout of pointer pipelines of `kind`: the root as immediate data seen by their
    /// stages, and on a device with `DESCRIPTOR_HEAPS` the heaps at sets 1 and 2 (one
    /// layout every pointer pipeline of the kind shares); else no groups, the pipeline's
    /// own (out of the registry, held by it).
    fn root_layout(
        &self,
        op: &'static str,
        label: &str,
        kind: RootStages,
    ) -> Result<Arc<super::PipelineLayoutObj<A>>> {
        if self.features.contains(Features::DESCRIPTOR_HEAPS) {
            let shared = self.heap_shared(op, label)?;
            let [compute, render, mesh] = &shared.pipelines;
            return Ok(match kind {
                RootStages::Compute => compute,
                RootStages::Render => render,
                RootStages::Mesh => mesh,
            }
            .clone());
        }
        let layout = self.pipeline_layout_for(
            &super::PipelineLayoutDescriptor {
                label,
                bind_group_layouts: &[],
                immediate_size: vigil_shader::glsl::ROOT_SIZE,
            },
            kind.stages(),
        )?;
        self.remove(layout, op)
    }

    fn gpu_feature(&self, op: &'static str, label: &str) -> Result<()> {
        if self.features.contains(Features::BUFFER_DEVICE_ADDRESS) {
            return Ok(());
        }
        Err(fail!(
            GpuFeature,
            op,
            label,
            "the GPU-pointer tier needs the BUFFER_DEVICE_ADDRESS feature; enable it when opening the device"
        ))
    }

    fn heap_access(
        &self,
        op: &'static str,
        h: &GpuHeapObj<A>,
        offset: u64,
        len: u64,
        kinds: &[HeapKind],
    ) -> Result<()> {
        if !kinds.contains(&h.kind) {
            return Err(fail!(
                GpuHeapAccess,
                op,
                &h.label,
                "the heap is {:?}; this needs one of {kinds:?}",
                h.kind
            ));
        }
        if !validate::inside(offset, len, h.size) {
            return Err(fail!(
                GpuHeapAccess,
                op,
                &h.label,
                "{len} bytes at offset {offset} are outside the heap's {} bytes",
                h.size
            ));
        }
        Ok(())
    }
}

/// A tier module's refusal: `gpu.heap-feature` when it needs descriptor heaps the device
/// lacks, else `gpu.shader`.
fn shader_error(op: &'static str, label: &str, d: vigil_shader::Diagnostic) -> crate::Error {
    if d.features_needed.contains(Features::DESCRIPTOR_HEAPS) {
        fail!(GpuHeapFeature, op, label, "{}", d.message).with_diagnostic(d)
    } else {
        fail!(GpuShader, op, label, "{}", d.message).with_diagnostic(d)
    }
}

impl<A: Api> super::Core<A> {
    fn lock_heaps(&self) -> std::sync::MutexGuard<'_, Vec<Arc<GpuHeapObj<A>>>> {
        super::lock(&self.heaps)
    }

    /// The live heap holding `address..address + size`, if one does.
    pub(crate) fn heap_at(&self, address: u64, size: u64) -> Option<Arc<GpuHeapObj<A>>> {
        let heaps = self.lock_heaps();
        let at = heaps.partition_point(|h| h.address <= address);
        let h = heaps.get(at.checked_sub(1)?)?;
        let offset = address.checked_sub(h.address)?;
        validate::inside(offset, size, h.size).then(|| h.clone())
    }
}
