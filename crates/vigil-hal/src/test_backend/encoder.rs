//! The test backend's command encoder: records commands into a list.

use super::{ObjectId, TestApi, TestBuffer, TestObject};
use crate::api::{BindPoint, CommandEncoder};
use crate::buffer::BufferCopy;
use crate::command::{
    Access, BufferBarrier, ComputePassDescriptor, MemoryBarrier, Stages, TextureBarrier,
};
use crate::render::{BufferTextureCopy, RenderPassDescriptor, TextureCopy};
use crate::texture::{SubresourceRange, TextureLayout};
use crate::{IndexFormat, Result};
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// One recorded command.
#[derive(Clone, Debug)]
pub enum TestCommand {
    /// A frame presented: the texture copied to the surface (recorded by `present`).
    Present {
        /// The surface.
        surface: ObjectId,
        /// The texture presented.
        source: ObjectId,
    },
    /// A global memory barrier.
    Barrier(MemoryBarrier),
    /// An acceleration structure build.
    BuildAccelerationStructure {
        /// The structure built.
        dst: ObjectId,
        /// Triangles built (bottom level) or instances (top level).
        primitives: u64,
        /// Whether it is a top-level build.
        top_level: bool,
    },
    /// A dependency on a buffer range.
    BufferBarrier {
        /// Buffer.
        buffer: ObjectId,
        /// Start of the range.
        offset: u64,
        /// Length of the range.
        size: u64,
        /// Source stages and accesses.
        src: (Stages, Access),
        /// Destination stages and accesses.
        dst: (Stages, Access),
    },
    /// A dependency on a texture, with its layout transition (if the layouts differ).
    TextureBarrier {
        /// Texture.
        texture: ObjectId,
        /// Layout before.
        old: TextureLayout,
        /// Layout after.
        new: TextureLayout,
        /// Stages that must finish first.
        src: Stages,
        /// Stages that wait.
        dst: Stages,
    },
    /// A buffer copy (with the memories, for replay).
    CopyBuffer {
        /// Source.
        src: ObjectId,
        /// Destination.
        dst: ObjectId,
        /// Region.
        region: BufferCopy,
        /// Source memory.
        src_data: Arc<Mutex<Vec<u8>>>,
        /// Destination memory.
        dst_data: Arc<Mutex<Vec<u8>>>,
    },
    /// A buffer fill.
    FillBuffer {
        /// Buffer.
        buffer: ObjectId,
        /// Offset.
        offset: u64,
        /// Size.
        size: u64,
        /// Value.
        value: u32,
        /// Memory, for replay.
        data: Arc<Mutex<Vec<u8>>>,
    },
    /// A buffer-to-texture copy.
    CopyBufferToTexture {
        /// Source buffer.
        src: ObjectId,
        /// Destination texture.
        dst: ObjectId,
    },
    /// A texture-to-buffer copy.
    CopyTextureToBuffer {
        /// Source texture.
        src: ObjectId,
        /// Destination buffer.
        dst: ObjectId,
    },
    /// A texture-to-texture copy.
    CopyTextureToTexture {
        /// Source.
        src: ObjectId,
        /// Destination.
        dst: ObjectId,
    },
    /// A texture clear.
    ClearTexture(ObjectId),
    /// Query reset: the set, the first query and how many.
    ResetQueries(ObjectId, u32, u32),
    /// Timestamp write.
    WriteTimestamp(ObjectId, u32),
    /// Query resolve.
    ResolveQueries(ObjectId),
    /// Immediate data set (its bytes; up to 16 held inline, so recording a root, as a
    /// driver would, allocates nothing).
    SetImmediates(smallvec::SmallVec<[u8; 16]>),
    /// Bind group bound.
    SetBindGroup {
        /// Group index.
        index: u32,
        /// Bind group.
        group: ObjectId,
        /// Dynamic offsets.
        offsets: Vec<u32>,
    },
    /// Compute pass start.
    BeginComputePass(String),
    /// Compute pass end.
    EndComputePass,
    /// Compute pipeline bound.
    SetComputePipeline(ObjectId),
    /// Dispatch.
    Dispatch([u32; 3]),
    /// Indirect dispatch.
    DispatchIndirect(ObjectId, u64),
    /// Render pass start.
    BeginRenderPass(String),
    /// Render pass end.
    EndRenderPass,
    /// Render pipeline bound.
    SetRenderPipeline(ObjectId),
    /// Vertex buffer bound.
    SetVertexBuffer(u32, ObjectId, u64),
    /// Index buffer bound.
    SetIndexBuffer(ObjectId, u64, IndexFormat),
    /// Viewport set.
    SetViewport,
    /// Scissor set.
    SetScissor([u32; 4]),
    /// Blend constant set.
    SetBlendConstant,
    /// Stencil reference set.
    SetStencilReference(u32),
    /// Draw.
    Draw(Range<u32>, Range<u32>),
    /// Indexed draw.
    DrawIndexed(Range<u32>, i32, Range<u32>),
    /// Indirect draw.
    DrawIndirect(ObjectId, u64),
    /// Indexed indirect draw.
    DrawIndexedIndirect(ObjectId, u64),
    /// Indirect draws whose count the GPU reads: the arguments' buffer, offset and stride,
    /// the count's buffer and offset, the most draws, and whether indexed.
    DrawIndirectCount {
        /// The arguments' buffer.
        buffer: ObjectId,
        /// Where the first draw's arguments start.
        offset: u64,
        /// The count's buffer.
        count_buffer: ObjectId,
        /// Where the count lies.
        count_offset: u64,
        /// The most draws.
        max_count: u32,
        /// Bytes from one draw's arguments to the next.
        stride: u32,
        /// Indexed draws (20-byte arguments).
        indexed: bool,
    },
    /// A mesh draw: the workgroup counts.
    DrawMeshTasks([u32; 3]),
    /// A mesh draw with counts read from a buffer: the buffer and offset.
    DrawMeshTasksIndirect(ObjectId, u64),
    /// A debug group opened, with its label.
    PushDebugGroup(String),
    /// The debug group opened last closed.
    PopDebugGroup,
    /// A debug marker, with its label.
    InsertDebugMarker(String),
    /// An occlusion query begun: the set and the index.
    BeginOcclusionQuery(ObjectId, u32),
    /// An occlusion query ended: the set and the index.
    EndOcclusionQuery(ObjectId, u32),
    /// A pipeline-statistics query begun: the set and the index.
    BeginPipelineStatisticsQuery(ObjectId, u32),
    /// A pipeline-statistics query ended: the set and the index.
    EndPipelineStatisticsQuery(ObjectId, u32),
}

/// A finished test command buffer.
#[derive(Debug)]
pub struct TestCommandBuffer {
    /// Label given at `begin`.
    pub label: String,
    /// Commands in order.
    pub commands: Vec<TestCommand>,
}

/// The test encoder.
#[derive(Debug, Default)]
pub struct TestCommandEncoder {
    pub(super) recording: Option<TestCommandBuffer>,
    pub(super) faults: Option<Arc<crate::faults::FaultInjector>>,
    /// Command lists of reset buffers, emptied, for the next recordings to reuse (as a
    /// driver's pool keeps its memory across resets): a recording's cost then does not
    /// depend on how the heap happens to lie, which the instruction-count guard needs.
    pub(super) spare: Vec<Vec<TestCommand>>,
}

impl TestCommandEncoder {
    fn push(&mut self, command: TestCommand) {
        if let Some(cb) = self.recording.as_mut() {
            cb.commands.push(command);
        }
    }
}

impl CommandEncoder for TestCommandEncoder {
    type A = TestApi;

    fn begin(&mut self, label: &str) -> Result<()> {
        if let Some(f) = &self.faults {
            f.check("begin_command_buffer")?;
        }
        self.recording = Some(TestCommandBuffer {
            label: label.to_owned(),
            commands: self.spare.pop().unwrap_or_default(),
        });
        Ok(())
    }

    fn begin_reusable(&mut self, label: &str) -> Result<()> {
        self.begin(label)
    }

    fn end(&mut self) -> Result<TestCommandBuffer> {
        if let Some(f) = &self.faults {
            f.check("end_command_buffer")?;
        }
        Ok(self.recording.take().unwrap_or(TestCommandBuffer {
            label: String::new(),
            commands: Vec::new(),
        }))
    }

    fn discard(&mut self) {
        self.recording = None;
    }

    unsafe fn reset_all(&mut self, buffers: Vec<TestCommandBuffer>) {
        for b in buffers {
            let mut commands = b.commands;
            commands.clear();
            self.spare.push(commands);
        }
    }

    unsafe fn barriers(
        &mut self,
        memory: Option<MemoryBarrier>,
        buffers: &[BufferBarrier<'_, TestApi>],
        textures: &[TextureBarrier<'_, TestApi>],
    ) {
        if let Some(m) = memory {
            self.push(TestCommand::Barrier(m));
        }
        for b in buffers {
            self.push(TestCommand::BufferBarrier {
                buffer: b.buffer.id,
                offset: b.offset,
                size: b.size,
                src: (b.src, b.src_access),
                dst: (b.dst, b.dst_access),
            });
        }
        for b in textures {
            self.push(TestCommand::TextureBarrier {
                texture: b.texture.id,
                old: b.old_layout,
                new: b.new_layout,
                src: b.src,
                dst: b.dst,
            });
        }
    }

    unsafe fn build_acceleration_structure(
        &mut self,
        dst: &TestObject,
        input: crate::accel::BuildInput<'_, TestApi>,
    ) {
        let (primitives, top_level) = match input {
            crate::accel::BuildInput::Triangles(g) => {
                (g.iter().map(|g| u64::from(g.primitive_count)).sum(), false)
            }
            crate::accel::BuildInput::Instances { count, .. } => (u64::from(count), true),
        };
        self.push(TestCommand::BuildAccelerationStructure {
            dst: dst.id,
            primitives,
            top_level,
        });
    }

    unsafe fn copy_buffer_to_buffer(
        &mut self,
        src: &TestBuffer,
        dst: &TestBuffer,
        region: BufferCopy,
    ) {
        self.push(TestCommand::CopyBuffer {
            src: src.id,
            dst: dst.id,
            region,
            src_data: src.data.clone(),
            dst_data: dst.data.clone(),
        });
    }

    unsafe fn copy_buffer_regions(
        &mut self,
        src: &TestBuffer,
        dst: &TestBuffer,
        regions: &[BufferCopy],
    ) {
        for &region in regions {
            self.push(TestCommand::CopyBuffer {
                src: src.id,
                dst: dst.id,
                region,
                src_data: src.data.clone(),
                dst_data: dst.data.clone(),
            });
        }
    }

    unsafe fn fill_buffer(&mut self, buffer: &TestBuffer, offset: u64, size: u64, value: u32) {
        self.push(TestCommand::FillBuffer {
            buffer: buffer.id,
            offset,
            size,
            value,
            data: buffer.data.clone(),
        });
    }

    unsafe fn copy_buffer_to_texture(
        &mut self,
        src: &TestBuffer,
        dst: &TestObject,
        _: &BufferTextureCopy,
    ) {
        self.push(TestCommand::CopyBufferToTexture {
            src: src.id,
            dst: dst.id,
        });
    }

    unsafe fn copy_texture_to_buffer(
        &mut self,
        src: &TestObject,
        dst: &TestBuffer,
        _: &BufferTextureCopy,
    ) {
        self.push(TestCommand::CopyTextureToBuffer {
            src: src.id,
            dst: dst.id,
        });
    }

    unsafe fn copy_texture_to_texture(
        &mut self,
        src: &TestObject,
        dst: &TestObject,
        _: &TextureCopy,
    ) {
        self.push(TestCommand::CopyTextureToTexture {
            src: src.id,
            dst: dst.id,
        });
    }

    unsafe fn clear_texture(&mut self, texture: &TestObject, _: SubresourceRange, _: [f32; 4]) {
        self.push(TestCommand::ClearTexture(texture.id));
    }

    unsafe fn reset_queries(&mut self, set: &TestObject, first: u32, count: u32) {
        self.push(TestCommand::ResetQueries(set.id, first, count));
    }

    unsafe fn write_timestamp(&mut self, set: &TestObject, index: u32) {
        self.push(TestCommand::WriteTimestamp(set.id, index));
    }

    unsafe fn begin_occlusion_query(&mut self, set: &TestObject, index: u32) {
        self.push(TestCommand::BeginOcclusionQuery(set.id, index));
    }

    unsafe fn end_occlusion_query(&mut self, set: &TestObject, index: u32) {
        self.push(TestCommand::EndOcclusionQuery(set.id, index));
    }

    unsafe fn begin_pipeline_statistics_query(&mut self, set: &TestObject, index: u32) {
        self.push(TestCommand::BeginPipelineStatisticsQuery(set.id, index));
    }

    unsafe fn end_pipeline_statistics_query(&mut self, set: &TestObject, index: u32) {
        self.push(TestCommand::EndPipelineStatisticsQuery(set.id, index));
    }

    unsafe fn resolve_queries(&mut self, set: &TestObject, _: u32, _: u32, _: &TestBuffer, _: u64) {
        self.push(TestCommand::ResolveQueries(set.id));
    }

    unsafe fn set_immediates(&mut self, _layout: &TestObject, data: &[u8]) {
        self.push(TestCommand::SetImmediates(smallvec::SmallVec::from_slice(
            data,
        )));
    }

    unsafe fn set_bind_group(
        &mut self,
        _point: BindPoint,
        _layout: &TestObject,
        index: u32,
        group: ObjectId,
        dynamic_offsets: &[u32],
    ) {
        self.push(TestCommand::SetBindGroup {
            index,
            group,
            offsets: dynamic_offsets.to_vec(),
        });
    }

    unsafe fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_, TestApi>) {
        self.push(TestCommand::BeginComputePass(desc.label.to_owned()));
    }

    unsafe fn end_compute_pass(&mut self) {
        self.push(TestCommand::EndComputePass);
    }

    unsafe fn set_compute_pipeline(&mut self, pipeline: &TestObject) {
        self.push(TestCommand::SetComputePipeline(pipeline.id));
    }

    unsafe fn dispatch(&mut self, count: [u32; 3]) {
        self.push(TestCommand::Dispatch(count));
    }

    unsafe fn dispatch_indirect(&mut self, buffer: &TestBuffer, offset: u64) {
        self.push(TestCommand::DispatchIndirect(buffer.id, offset));
    }

    unsafe fn begin_render_pass(&mut self, desc: &RenderPassDescriptor<'_, TestApi>) {
        self.push(TestCommand::BeginRenderPass(desc.label.to_owned()));
    }

    unsafe fn end_render_pass(&mut self) {
        self.push(TestCommand::EndRenderPass);
    }

    unsafe fn set_render_pipeline(&mut self, pipeline: &TestObject) {
        self.push(TestCommand::SetRenderPipeline(pipeline.id));
    }

    unsafe fn set_vertex_buffer(&mut self, slot: u32, buffer: &TestBuffer, offset: u64) {
        self.push(TestCommand::SetVertexBuffer(slot, buffer.id, offset));
    }

    unsafe fn set_index_buffer(&mut self, buffer: &TestBuffer, offset: u64, format: IndexFormat) {
        self.push(TestCommand::SetIndexBuffer(buffer.id, offset, format));
    }

    unsafe fn set_viewport(&mut self, _: [f32; 4], _: [f32; 2]) {
        self.push(TestCommand::SetViewport);
    }

    unsafe fn set_scissor(&mut self, rect: [u32; 4]) {
        self.push(TestCommand::SetScissor(rect));
    }

    unsafe fn set_blend_constant(&mut self, _: [f32; 4]) {
        self.push(TestCommand::SetBlendConstant);
    }

    unsafe fn set_stencil_reference(&mut self, reference: u32) {
        self.push(TestCommand::SetStencilReference(reference));
    }

    unsafe fn push_debug_group(&mut self, label: &str) {
        self.push(TestCommand::PushDebugGroup(label.to_owned()));
    }

    unsafe fn pop_debug_group(&mut self) {
        self.push(TestCommand::PopDebugGroup);
    }

    unsafe fn insert_debug_marker(&mut self, label: &str) {
        self.push(TestCommand::InsertDebugMarker(label.to_owned()));
    }

    unsafe fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        self.push(TestCommand::Draw(vertices, instances));
    }

    unsafe fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) {
        self.push(TestCommand::DrawIndexed(indices, base_vertex, instances));
    }

    unsafe fn draw_indirect(&mut self, buffer: &TestBuffer, offset: u64) {
        self.push(TestCommand::DrawIndirect(buffer.id, offset));
    }

    unsafe fn draw_indexed_indirect(&mut self, buffer: &TestBuffer, offset: u64) {
        self.push(TestCommand::DrawIndexedIndirect(buffer.id, offset));
    }

    unsafe fn draw_indirect_count(
        &mut self,
        buffer: &TestBuffer,
        offset: u64,
        count_buffer: &TestBuffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    ) {
        self.push(TestCommand::DrawIndirectCount {
            buffer: buffer.id,
            offset,
            count_buffer: count_buffer.id,
            count_offset,
            max_count,
            stride,
            indexed: false,
        });
    }

    unsafe fn draw_indexed_indirect_count(
        &mut self,
        buffer: &TestBuffer,
        offset: u64,
        count_buffer: &TestBuffer,
        count_offset: u64,
        max_count: u32,
        stride: u32,
    ) {
        self.push(TestCommand::DrawIndirectCount {
            buffer: buffer.id,
            offset,
            count_buffer: count_buffer.id,
            count_offset,
            max_count,
            stride,
            indexed: true,
        });
    }

    unsafe fn draw_mesh_tasks(&mut self, count: [u32; 3]) {
        self.push(TestCommand::DrawMeshTasks(count));
    }

    unsafe fn draw_mesh_tasks_indirect(&mut self, buffer: &TestBuffer, offset: u64) {
        self.push(TestCommand::DrawMeshTasksIndirect(buffer.id, offset));
    }
}
