//! Roots of the GPU-pointer tier: each dispatch of a pointer pipeline reads one device
//! address from its immediate data, checked here to lie in a live heap.

use super::used::SourceKey;
use super::{CommandEncoder, Pass};
use crate::device::GpuPtr;
use crate::error::{Result, fail};
use crate::handle::Handle;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use vigil_hal::{Api, IndexFormat, MemoryBarrier, Stages};

/// Timestamps a command buffer may write of its own.
const STAMPS: u32 = 256;

/// Where `item` is in `list` (added at the end the first time).
fn index_of<T>(list: &mut Vec<Arc<T>>, item: Arc<T>) -> usize {
    match list.iter().position(|x| Arc::ptr_eq(x, &item)) {
        Some(at) => at,
        None => {
            list.push(item);
            list.len().saturating_sub(1)
        }
    }
}

impl<A: Api> CommandEncoder<A> {
    /// The live heap holding `size` bytes at `address`, aligned to `align` (`gpu.pointer`,
    /// naming `what`), kept with the recording so submission checks it is still live;
    /// returns its place in the recording's list of heaps. The heaps this recording has
    /// named already are looked at first: a range compare and, when something was
    /// destroyed since recording began, the registry's liveness word; no lock and no
    /// reference count change (a root per draw costs that much).
    fn heap_for(
        &mut self,
        op: &'static str,
        what: &'static str,
        address: u64,
        size: u64,
        align: u64,
    ) -> Result<usize> {
        let size = size.max(1);
        let holds = |h: &crate::device::GpuHeapObj<A>| {
            address
                .checked_sub(h.address)
                .is_some_and(|offset| crate::validate::inside(offset, size, h.size))
        };
        let registry = &self.core.objects.gpu_heaps;
        // While nothing was destroyed since recording began, every heap it named is live.
        let unchanged = self.used.unchanged(&self.core);
        let known = self.used.gpu_heaps.iter().position(|h| {
            holds(h) && (unchanged || registry.is_live(h.handle.index(), h.handle.generation()))
        });
        let at = match known {
            Some(at) => at,
            None => {
                let Some(heap) = self.core.heap_at(address, size) else {
                    return Err(fail!(
                        GpuPointer,
                        op,
                        &self.label,
                        "{what} at {address:#x} does not lie in a live GPU heap of this device ({size} bytes)"
                    ));
                };
                index_of(&mut self.used.gpu_heaps, heap)
            }
        };
        self.last_heap = self.used.gpu_heaps.get(at).map(|h| (h.address, h.size));
        // Alignments are powers of two (a type's, an index's width): a mask, not a division.
        if !align.is_power_of_two() || address & align.wrapping_sub(1) != 0 {
            return Err(fail!(
                GpuPointer,
                op,
                &self.label,
                "{what} at {address:#x} is not aligned to {align} bytes"
            ));
        }
        Ok(at)
    }

    /// Records `f` with the recording's heap `at` (from [`Self::heap_for`]): its native
    /// buffer and the offset of `address` in it.
    fn rec_at_heap(
        &mut self,
        at: usize,
        address: u64,
        f: impl FnOnce(&mut crate::native::Rec<'_, A>, &A::Buffer, u64),
    ) {
        if !self.open {
            return;
        }
        if let (Some(pool), Some(heap)) = (self.pool.as_mut(), self.used.gpu_heaps.get(at)) {
            f(
                &mut crate::native::Rec(pool),
                &heap.raw,
                address.saturating_sub(heap.address),
            );
        }
    }

    /// Sets the root the next dispatches (or draws: every graphics stage sees it) of the
    /// open pass read: `root` must point into a live GPU heap of this device, with room for
    /// a `T` (`gpu.pointer`). The heap is checked again at submission (a command buffer
    /// whose root's heap was destroyed is refused); what the shader reaches from the root is
    /// the application's.
    pub fn set_root<T>(&mut self, root: GpuPtr<T>) -> Result<()> {
        const OP: &str = "set_root";
        self.step(OP, |e| e.root_in_pass(OP, root))
    }

    /// [`CommandEncoder::set_root`]'s checks and effect, for `op`.
    #[inline]
    fn root_in_pass<T>(&mut self, op: &'static str, root: GpuPtr<T>) -> Result<()> {
        if self.pass == Pass::None {
            return Err(fail!(
                GpuRoot,
                op,
                &self.label,
                "a root is set inside a compute or render pass, and none is open"
            ));
        }
        let size = std::mem::size_of::<T>() as u64;
        let align = std::mem::align_of::<T>() as u64;
        self.heap_for(op, "the root", root.address(), size, align)?;
        super::compute::pass_binder(self.pass, &mut self.compute, &mut self.render)
            .set_root(root.address());
        Ok(())
    }

    /// Draws `vertices` for `instances` of the bound pointer pipeline with `root` as the
    /// draw's root: [`CommandEncoder::set_root`] then [`CommandEncoder::draw`], in one
    /// call, as the reference model's draws take their root. The checks are theirs, and
    /// the root stays set for later draws. When the pass's state is what a run of such
    /// draws leaves — the pipeline's state bound, nothing else changed since the last draw,
    /// the root inside the heap the last one lay in and nothing destroyed since recording
    /// began — the draw costs a few compares besides its two native commands. (Any other
    /// call in between, or a root in another heap, makes the next one check it all.)
    #[inline]
    pub fn draw_root<T>(
        &mut self,
        root: GpuPtr<T>,
        vertices: std::ops::Range<u32>,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        let address = root.address();
        let size = (std::mem::size_of::<T>() as u64).max(1);
        let align = std::mem::align_of::<T>() as u64;
        // Inside the run's heap, by the check every range takes (an address under `base`
        // wraps past the heap's size). A run of none has size 0, and `size` is at least 1.
        let (base, len) = self.calls.root_run;
        if crate::validate::inside(address.wrapping_sub(base), size, len)
            && address & align.wrapping_sub(1) == 0
            && vertices.start <= vertices.end
            && instances.start <= instances.end
            && self.used.unchanged(&self.core)
        {
            if let (Some(pool), Some(layout)) =
                (self.pool.as_mut(), self.used.render_layout.as_ref())
            {
                let mut rec = crate::native::Rec::<A>(pool);
                if self
                    .render
                    .binder
                    .push_root(address, &*layout.raw, &mut rec)
                {
                    rec.draw(vertices, instances);
                    self.draws = self.draws.wrapping_add(1);
                    return Ok(());
                }
            }
        }
        self.draw_root_checked(root, vertices, instances)
    }

    /// [`CommandEncoder::draw_root`] with every check made (out of line: the run of draws
    /// above does not pay for its frame).
    #[inline(never)]
    fn draw_root_checked<T>(
        &mut self,
        root: GpuPtr<T>,
        vertices: std::ops::Range<u32>,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw_root";
        self.step(OP, |e| {
            // A render pass first: a compute pass's root is not this draw's to set.
            e.expect_pass(Pass::Render, OP)?;
            e.root_in_pass(OP, root)?;
            e.draw_in_pass(OP, vertices, instances)
        })?;
        // What the short path takes for granted holds until another call: a native
        // recording open, the pass's layout, and nothing but the root left to push. The
        // run's heap is the one this root lay in.
        let run = self.open
            && self.pool.is_some()
            && self.used.render_layout.is_some()
            && self.render.root_only();
        self.calls.root_run = match self.last_heap {
            Some(heap) if run => heap,
            _ => (0, 0),
        };
        Ok(())
    }

    /// Sets the texture heap the open pass's pointer pipelines index (`vigil_texture(i)`):
    /// a live heap of this device, checked again at submission. Slot contents are read when
    /// the work runs (the heap is update-after-bind): what a slot names then is what the
    /// shader samples.
    pub fn set_texture_heap(&mut self, heap: crate::TextureHeap) -> Result<()> {
        const OP: &str = "set_texture_heap";
        self.step(OP, |e| {
            e.heap_pass(OP)?;
            let h = e.core.lookup(heap, OP)?;
            let at = index_of(&mut e.used.texture_heaps, h);
            e.bind_heap(0, at);
            Ok(())
        })
    }

    /// Sets the sampler heap the open pass's pointer pipelines index (`vigil_sampler(i)`).
    pub fn set_sampler_heap(&mut self, heap: crate::SamplerHeap) -> Result<()> {
        const OP: &str = "set_sampler_heap";
        self.step(OP, |e| {
            e.heap_pass(OP)?;
            let h = e.core.lookup(heap, OP)?;
            let at = index_of(&mut e.used.sampler_heaps, h);
            e.bind_heap(1, at);
            Ok(())
        })
    }

    /// Marks heap kind `which` (0 textures, 1 samplers) set to the recording's heap `at`,
    /// bound natively before the next draw or dispatch.
    fn bind_heap(&mut self, which: usize, at: usize) {
        let b = super::compute::pass_binder(self.pass, &mut self.compute, &mut self.render);
        if let Some(slot) = b.heaps.get_mut(which) {
            *slot = Some(at);
        }
        b.heaps_dirty |= 1 << which;
    }

    /// Heaps are set inside a pass, on a device with `DESCRIPTOR_HEAPS`.
    fn heap_pass(&self, op: &'static str) -> Result<()> {
        if !self
            .core
            .features
            .contains(vigil_hal::Features::DESCRIPTOR_HEAPS)
        {
            return Err(fail!(
                GpuHeapFeature,
                op,
                &self.label,
                "texture and sampler heaps need the DESCRIPTOR_HEAPS feature"
            ));
        }
        if self.pass == Pass::None {
            return Err(fail!(
                GpuHeapUnset,
                op,
                &self.label,
                "heaps are set inside a compute or render pass, and none is open"
            ));
        }
        Ok(())
    }

    /// The checks of a pointer pipeline's draw or dispatch: a root, and the heaps its
    /// shaders index (`gpu.root`, `gpu.heap-unset`); a read of the texture heap is then
    /// checked against, and made a use of, the recording's textures a heap names
    /// ([`CommandEncoder::heap_reads_clean`]).
    #[inline]
    pub(super) fn pointer_ready(&mut self, op: &'static str) -> Result<()> {
        let b = if self.pass == Pass::Render {
            &self.render.binder
        } else {
            &self.compute.binder
        };
        if !b.root_set {
            return Err(fail!(
                GpuRoot,
                op,
                &self.label,
                "the pipeline is a pointer pipeline and no root was set in this pass; call set_root first"
            ));
        }
        if b.heaps_needed == 0 {
            return Ok(());
        }
        for (bit, what, call) in [
            (0usize, "texture", "set_texture_heap"),
            (1, "sampler", "set_sampler_heap"),
        ] {
            if b.heaps_needed & (1 << bit) != 0 && b.heaps.get(bit).copied().flatten().is_none() {
                return Err(fail!(
                    GpuHeapUnset,
                    op,
                    &self.label,
                    "the pipeline's shaders index the {what} heap and none was set in this pass; call {call} first"
                ));
            }
        }
        if b.heaps_needed & 1 != 0 {
            self.heap_reads_clean(op)?;
        }
        Ok(())
    }

    /// Makes a read of the texture heap a use of the recording's textures a heap names:
    /// each is read, whole, in its sampled layout by the pipeline's stages (in a render
    /// pass, in the pass's scope, whose barriers go in front of the pass; for a dispatch,
    /// straight to the tracker, its barriers recorded in front of the dispatch), so an
    /// earlier write of it in the recording (a storage binding's) is ordered before the
    /// read like any other. Refuses the read (`gpu.heap-resident`) when
    /// such a texture was used in another layout than its sampled one earlier in the
    /// recording, whether it entered the heap before that use or after: the read would
    /// sample it where the recording left it a copy's or an attachment's (submission
    /// refuses that command buffer too, while the texture is in a heap; uses recorded
    /// after the last read are left to it), and `pass.usage-conflict` when the pass also
    /// writes it. Heap reads are otherwise untracked: this is the one point where the
    /// recording meets them. While no texture entered a heap and the recording tracks no
    /// new texture since a look found none of its textures in a heap, or since a look in
    /// the same render pass (whose scope holds the reads it added), it does not look
    /// again.
    #[inline(never)]
    pub(super) fn heap_reads_clean(&mut self, op: &'static str) -> Result<()> {
        // The reading stages, and the render pass a look may serve (none for a dispatch).
        let (stages, pass) = if self.pass == Pass::Render {
            self.render.heap_read = true;
            (
                Stages::VERTEX_SHADER | Stages::FRAGMENT_SHADER,
                self.render.pass_id,
            )
        } else {
            (Stages::COMPUTE, u64::MAX)
        };
        let entries = self.core.heap_entries.load(Ordering::Acquire);
        let tracked = self.used.tracker.textures.len();
        if let Some((e, t, p)) = self.heap_clean {
            if e == entries && t == tracked && (p == 0 || p == pass) {
                self.note_heap_read(stages, entries);
                return Ok(());
            }
        }
        let mut resident = false;
        let mut reads = Vec::new();
        for (slot, t) in self.used.tracker.textures.iter().enumerate() {
            if t.obj.heap_slots.load(Ordering::Acquire) == 0 {
                continue;
            }
            resident = true;
            if t.left_sampled_layout() {
                return Err(fail!(
                    GpuHeapResident,
                    op,
                    &self.label,
                    "the texture heap is read here (by this call's shaders, or in a render pass by an earlier draw of the pass), and texture '{}', which a texture heap names, was used earlier in this recording in another layout than the one heap shaders sample it in (a copy, attachment or clear); write it in a command buffer of its own while no heap names it",
                    t.obj.label
                ));
            }
            let read = crate::device::objects::heap_read(t.obj.desc.usage, stages);
            let whole = super::used::whole_texture(&t.obj);
            if self.pass != Pass::Render {
                // A pointer pipeline binds no groups, so a dispatch has no other use to
                // conflict with: the read goes to the tracker, its barriers to the pending
                // list the dispatch records in front of itself.
                reads.push((slot, whole, read));
                continue;
            }
            if self.scope.texture(slot, whole, read).is_err() {
                let label = t.obj.label.clone();
                return Err(fail!(
                    PassUsageConflict,
                    op,
                    &self.label,
                    "the pass reads the texture heap, which names texture '{label}', and writes that texture too; a pass cannot order the two"
                ));
            }
        }
        if !reads.is_empty() {
            // The reads are a scope of their own, numbered before the dispatch's.
            self.used.next_scope();
            for (slot, whole, read) in reads {
                self.used.use_texture(slot, whole, read, &mut self.pending);
            }
        }
        // A dispatch's reads go to the tracker each time (a write between two dispatches
        // must be ordered before the second's read); a render pass's stay in its scope.
        self.heap_clean = if !resident {
            Some((entries, tracked, 0))
        } else if self.pass == Pass::Render {
            Some((entries, tracked, pass))
        } else {
            None
        };
        self.note_heap_read(stages, entries);
        Ok(())
    }

    /// Notes a read of the texture heap by `stages` at this point of the recording, the
    /// device's count of heap entries being `entries`: a texture a heap names that the
    /// recording meets later is taken as read by it
    /// ([`super::used::Tracker::heap_read`]).
    #[inline]
    fn note_heap_read(&mut self, stages: Stages, entries: u64) {
        let tracker = &mut self.used.tracker;
        let seen = match tracker.heap_read {
            Some((s, _)) => s | stages,
            None => {
                tracker.heap_read_from = entries;
                stages
            }
        };
        tracker.heap_read = Some((seen, self.used.seq));
    }

    /// Dispatches with `(x, y, z)` read by the GPU from `args`, an address in a live heap
    /// (12 bytes, 4-aligned: `gpu.pointer`) — arguments a previous dispatch may have
    /// written (order the two with [`CommandEncoder::memory_barrier`] from the writer's
    /// stage to `DRAW_INDIRECT`). The counts are checked on the GPU as for
    /// [`CommandEncoder::dispatch_indirect`]: all three are taken as zero (the dispatch does
    /// nothing) when any exceeds `max_compute_workgroups_per_dimension`.
    pub fn dispatch_indirect_at(&mut self, args: GpuPtr<[u32; 3]>) -> Result<()> {
        const OP: &str = "dispatch_indirect_at";
        self.step(OP, |e| {
            e.expect_pass(Pass::Compute, OP)?;
            let at = e.heap_for(OP, "the arguments", args.address(), 12, 4)?;
            if !e.indirect_check(OP)? {
                e.prepare_dispatch(None, true, OP)?;
                e.rec_at_heap(at, args.address(), |r, heap, offset| {
                    r.dispatch_indirect(heap, offset);
                });
                e.dispatches = e.dispatches.wrapping_add(1);
                return Ok(());
            }
            let checked = e.heap_checked_args(at, args.address(), 12, OP)?;
            e.prepare_dispatch(None, false, OP)?;
            if let (true, Some(pool)) = (e.open, e.pool.as_mut()) {
                // The application ordered the arguments' writer before `DRAW_INDIRECT`; the
                // check reads them in the compute stage, after that stage (a chain).
                crate::native::Rec::<A>(pool).barriers(
                    Some(MemoryBarrier {
                        src: Stages::DRAW_INDIRECT,
                        dst: Stages::COMPUTE,
                    }),
                    &[],
                    &[],
                );
            }
            e.record_checked_dispatch(checked);
            e.dispatches = e.dispatches.wrapping_add(1);
            Ok(())
        })
    }

    /// Draws with `(vertex_count, instance_count, first_vertex, first_instance)` read by the
    /// GPU from `args`, an address in a live heap (16 bytes, 4-aligned: `gpu.pointer`):
    /// arguments a compute pass may have written (order them with
    /// [`CommandEncoder::memory_barrier`] from `COMPUTE` to `DRAW_INDIRECT` before the render
    /// pass). The counts are the GPU's; on a device without `INDIRECT_FIRST_INSTANCE` the
    /// arguments are copied in front of the render pass (read as they are when it begins),
    /// and a first instance other than 0 makes the draw do nothing.
    pub fn draw_indirect_at(&mut self, args: GpuPtr<[u32; 4]>) -> Result<()> {
        const OP: &str = "draw_indirect_at";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let at = e.heap_for(OP, "the arguments", args.address(), 16, 4)?;
            e.prepare_draw_apart(OP, None, None, &(0..0), false)?;
            if e.first_instance_checked() && e.indirect_check(OP)? {
                let check = super::compute::DrawCheck {
                    indices: None,
                    first_instance: true,
                };
                let checked = e.heap_checked_args(at, args.address(), 16, OP)?.draw(check);
                e.draw_checked_args(checked, false);
                return Ok(());
            }
            e.rec_at_heap(at, args.address(), |r, heap, offset| {
                r.draw_indirect(heap, offset);
            });
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Draws `count` indices read from `indices` (an address in a live heap, aligned to the
    /// index size, with room for all of them: `gpu.pointer`), adding `base_vertex` to each,
    /// for `instances`: the index "buffer" is named by address, as the reference model's
    /// indexed draws take it. Afterwards the pass has no index buffer set (set one again
    /// before an ordinary indexed draw). Index values are the application's: with vertices
    /// fetched through pointers, they index the shader's own arrays.
    pub fn draw_indexed_at(
        &mut self,
        indices: GpuPtr<u32>,
        format: IndexFormat,
        count: u32,
        base_vertex: i32,
        instances: std::ops::Range<u32>,
    ) -> Result<()> {
        const OP: &str = "draw_indexed_at";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let width = format.size();
            let bytes = u64::from(count).saturating_mul(width);
            let at = e.heap_for(OP, "the indices", indices.address(), bytes, width)?;
            crate::validate::render_pass::range_order(OP, &e.label, "instances", &instances)?;
            e.prepare_draw_apart(OP, None, None, &instances, false)?;
            e.rec_at_heap(at, indices.address(), |r, heap, offset| {
                r.set_index_buffer(heap, offset, format);
                r.draw_indexed(0..count, base_vertex, instances);
            });
            // The native index buffer is the heap now: ordinary indexed draws need theirs
            // set again.
            e.render.clear_index();
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// Launches `count` workgroups of the bound mesh pipeline's task shader (or of its mesh
    /// shader, when it has none): each dimension and their product within the device's
    /// limits (`mesh.group-count`). Needs a mesh pipeline (`mesh.pipeline`), its root set
    /// and the heaps its shaders index (as every pointer pipeline's draw).
    pub fn draw_mesh_tasks(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        const OP: &str = "draw_mesh_tasks";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let task = e.prepare_mesh_draw(OP)?;
            let (per, total, what) = e.mesh_group_limits(task, OP)?;
            let all = u64::from(x)
                .saturating_mul(u64::from(y))
                .saturating_mul(u64::from(z));
            if x > per[0] || y > per[1] || z > per[2] || all > u64::from(total) {
                return Err(fail!(
                    MeshGroupCount,
                    OP,
                    &e.label,
                    "({x}, {y}, {z}) {what} workgroups exceed the device's {per:?} per dimension or {total} in all"
                ));
            }
            if let Some(mut r) = e.rec() {
                r.draw_mesh_tasks([x, y, z]);
            }
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// As [`CommandEncoder::draw_mesh_tasks`], with the counts read by the GPU from `args`
    /// (12 bytes in a live heap, 4-aligned: `gpu.pointer`) — counts a compute pass may have
    /// written (order them with [`CommandEncoder::memory_barrier`] from `COMPUTE` to
    /// `DRAW_INDIRECT`, before the render pass). The counts are checked on the GPU against
    /// the limits [`CommandEncoder::draw_mesh_tasks`] checks on the CPU: past them, all three
    /// are taken as zero and the draw does nothing. The check runs in front of the render
    /// pass, so the counts are read as they are when the pass begins.
    pub fn draw_mesh_tasks_indirect_at(&mut self, args: GpuPtr<[u32; 3]>) -> Result<()> {
        const OP: &str = "draw_mesh_tasks_indirect_at";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let at = e.heap_for(OP, "the arguments", args.address(), 12, 4)?;
            let task = e.prepare_mesh_draw(OP)?;
            if !e.indirect_check(OP)? {
                e.rec_at_heap(at, args.address(), |r, heap, offset| {
                    r.draw_mesh_tasks_indirect(heap, offset);
                });
                e.draws = e.draws.wrapping_add(1);
                return Ok(());
            }
            let (per, total, _) = e.mesh_group_limits(task, OP)?;
            let mut checked = e.heap_checked_args(at, args.address(), 12, OP)?;
            checked.limits = [per[0], per[1], per[2], total.max(1), 0];
            e.render.pass_checks.push(checked);
            let ind = &e.used.indirect;
            if let (Some(scratch), true, Some(pool)) = (
                ind.leases.get(checked.lease).and_then(|l| l.scratch()),
                e.open,
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool)
                    .draw_mesh_tasks_indirect(&scratch.buffer, u64::from(checked.slot_offset));
            }
            e.draws = e.draws.wrapping_add(1);
            Ok(())
        })
    }

    /// [`CommandEncoder::checked_args`] for `len` bytes of arguments at `address` in the
    /// recording's heap `at` (found by `heap_for`), a check of their own for each call
    /// (heaps are not tracked, so no check of the same words is known to serve again).
    fn heap_checked_args(
        &mut self,
        at: usize,
        address: u64,
        len: u64,
        op: &'static str,
    ) -> Result<super::compute::CheckedArgs> {
        let Some(heap) = self.used.gpu_heaps.get(at).cloned() else {
            return Err(fail!(
                GpuPointer,
                op,
                &self.label,
                "the arguments at {address:#x} do not lie in a live GPU heap of this device"
            ));
        };
        let key = SourceKey {
            heap: true,
            index: heap.handle.index(),
            generation: heap.handle.generation(),
            base: 0,
        };
        let offset = address.saturating_sub(heap.address);
        self.checked_args(
            Some(&heap.raw),
            heap.size,
            key,
            offset..offset.saturating_add(len),
            super::compute::Batch::InPlace,
            op,
        )
    }

    /// The workgroup limits of a mesh draw (per dimension, and in all) and whose they are:
    /// the task shader's when `task`, else the mesh shader's.
    fn mesh_group_limits(
        &self,
        task: bool,
        op: &'static str,
    ) -> Result<([u32; 3], u32, &'static str)> {
        let limits = vigil_hal::Device::mesh_limits(&**self.core.hal).ok_or_else(|| {
            fail!(
                MeshFeature,
                op,
                &self.label,
                "the device has no mesh shaders"
            )
        })?;
        Ok(if task {
            (
                limits.max_task_work_group_count,
                limits.max_task_work_group_total_count,
                "task",
            )
        } else {
            (
                limits.max_mesh_work_group_count,
                limits.max_mesh_work_group_total_count,
                "mesh",
            )
        })
    }

    /// The checks and binds of a mesh draw: a mesh pipeline bound with its root and heaps;
    /// whether it has a task shader.
    fn prepare_mesh_draw(&mut self, op: &'static str) -> Result<bool> {
        if !self.render.binder.ready() {
            return Err(self.not_ready(op));
        }
        let Some((pi, pg)) = self.render.binder.pipeline else {
            return Err(self.not_ready(op));
        };
        let Some(p) = self.used.render_pipelines.get(pi, pg) else {
            return Err(self.not_ready(op));
        };
        let Some(task) = p.render.mesh else {
            return Err(fail!(
                MeshPipeline,
                op,
                &self.label,
                "pipeline '{}' is not a mesh pipeline: mesh draws draw pipelines made by create_pointer_mesh_pipeline",
                p.label
            ));
        };
        self.pointer_ready(op)?;
        let Some(p) = self.used.render_pipelines.get(pi, pg) else {
            return Err(self.not_ready(op));
        };
        if let Some(pool) = self.pool.as_mut() {
            self.render.binder.flush(
                &self.used,
                &p.info.layout.raw,
                &mut crate::native::Rec(pool),
                vigil_hal::BindPoint::Render,
            );
        }
        Ok(task)
    }

    /// Writes a timestamp named `label` when all earlier work of the command buffer has
    /// finished, into queries the command buffer owns: no query set to manage, nothing to
    /// resolve. Read them with [`Device::timestamps`](crate::Device::timestamps) once the
    /// submission completes; they cost no GPU work beyond the writes, and reading waits for
    /// nothing. Needs `TIMESTAMP_QUERY` (`query.feature`); at most 256 per command buffer,
    /// not inside multiview passes (`timestamp.count`).
    pub fn timestamp(&mut self, label: &str) -> Result<()> {
        const OP: &str = "timestamp";
        self.step(OP, |e| {
            if !e
                .core
                .features
                .contains(vigil_hal::Features::TIMESTAMP_QUERY)
            {
                return Err(fail!(
                    QueryFeature,
                    OP,
                    &e.label,
                    "timestamps need the TIMESTAMP_QUERY feature"
                ));
            }
            if e.pass == Pass::Render && e.render.multiview_mask() != 0 {
                return Err(fail!(
                    TimestampCount,
                    OP,
                    &e.label,
                    "a multiview render pass is open: a timestamp there writes one query per view"
                ));
            }
            if e.used.stamps.is_none() {
                let set = e
                    .core
                    .hal
                    .create_query_set(&e.label, vigil_hal::QueryType::Timestamp, STAMPS)
                    .map_err(|err| e.core.hal_error(err, OP, &e.label))?;
                let set = crate::native::Owned::new(&e.core.hal, set);
                e.core
                    .hal
                    .reset_queries_on_host(&set, 0, STAMPS)
                    .map_err(|err| e.core.hal_error(err, OP, &e.label))?;
                e.used.stamps = Some(super::used::Stamps {
                    set,
                    labels: Vec::new(),
                });
            }
            let n = e.used.stamps.as_ref().map_or(0, |s| s.labels.len());
            if n >= STAMPS as usize {
                return Err(fail!(
                    TimestampCount,
                    OP,
                    &e.label,
                    "the command buffer wrote {STAMPS} timestamps already"
                ));
            }
            e.ensure_open(OP)?;
            if let (Some(s), Some(pool)) = (e.used.stamps.as_mut(), e.pool.as_mut()) {
                crate::native::Rec::<A>(pool).write_timestamp(&s.set, n as u32);
                s.labels.push(label.to_owned());
            }
            e.recorded = true;
            Ok(())
        })
    }

    /// A global memory barrier: everything the `src` stages wrote before it is visible to
    /// the `dst` stages after it. The tier's heaps are not tracked (what shaders reach
    /// through pointers cannot be seen), so ordering dispatches that share heap memory is
    /// the application's, as in the reference model; uses vigil tracks get their barriers
    /// as always. Outside render passes; both stage sets non-empty.
    pub fn memory_barrier(&mut self, src: Stages, dst: Stages) -> Result<()> {
        const OP: &str = "memory_barrier";
        self.step(OP, |e| {
            if e.pass == Pass::Render {
                return Err(fail!(
                    GpuBarrier,
                    OP,
                    &e.label,
                    "a render pass is open; barriers go between passes"
                ));
            }
            if src.is_empty() || dst.is_empty() || src.contains(Stages::HOST) {
                return Err(fail!(
                    GpuBarrier,
                    OP,
                    &e.label,
                    "the barrier needs source and destination stages (not the host): {src:?} -> {dst:?}"
                ));
            }
            e.core
                .stages_on_queue(OP, &e.label, "a barrier in stages", src | dst)?;
            e.ensure_open(OP)?;
            if let Some(mut r) = e.rec() {
                r.barriers(Some(MemoryBarrier { src, dst }), &[], &[]);
            }
            Ok(())
        })
    }
}
