//! **tier-draws**: the GPU-pointer tier's draws against the bind-group path and raw ash, on
//! one scene: a grid of squares (100 across), each drawn by its own draw with its own
//! origin and color. Through the tier each draw takes a root — the address of its object
//! record, which holds the origin, the color and a pointer to the square's corners — and
//! the vertex shader fetches the corners through that pointer (`draw_root`; path
//! `vigil-set-root` sets the root with a call of its own, `set_root` then `draw`). Raw
//! ash does the same with no checks: the root's 8 bytes pushed, then `vkCmdDraw`. The
//! bind-group path reads the object from a uniform buffer at a dynamic offset per draw and
//! the corners from a vertex and an index buffer (`set_bind_group` with an offset,
//! `draw_indexed`). All three draw the same image, which is checked.

use super::PathResult;
use crate::harness::{Plan, Stats, repeat};
use crate::raw::Raw;
use ash::vk;
use std::time::{Duration, Instant};

/// Squares across the grid.
const COLUMNS: u32 = 100;
/// Pixels per square side.
const CELL: u32 = 2;
/// Bytes per object record in the tier's heap (24 used; 32 keeps every record 8-aligned).
const RECORD: u64 = 32;
/// Bytes per object in the bind-group path's uniform buffer (the dynamic-offset alignment
/// every device accepts).
const SLOT: u64 = 256;

/// The object record through the tier, in GLSL's scalar layout: origin (8 bytes), color
/// (4), padding (4), the corners' address (8).
const OBJECT_GLSL: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Corners { vec2 c[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Object { vec2 origin; uint color; uint pad; Corners corners; };
VIGIL_ROOT(Object);
";

/// The square's two triangles, as indices of its four corners.
const VERTEX_GLSL: &str = "
const int CORNER[6] = int[6](0, 1, 2, 2, 1, 3);
void main() {
    gl_Position = vec4(vigil.root.origin + vigil.root.corners.c[CORNER[gl_VertexIndex]], 0.0, 1.0);
}
";

const FRAGMENT_GLSL: &str = "
layout(location = 0) out vec4 color;
void main() { color = unpackUnorm4x8(vigil.root.color); }
";

const WGSL: &str = r#"
struct Object { origin: vec2<f32>, color: u32 }
@group(0) @binding(0) var<uniform> object: Object;
struct O { @builtin(position) pos: vec4<f32> }
@vertex fn vs(@location(0) corner: vec2<f32>) -> O {
    // The scene is laid out in Vulkan's clip space (y down), as the tier's GLSL sees it;
    // WGSL's clip space has y up.
    let p = object.origin + corner;
    return O(vec4<f32>(p.x, -p.y, 0.0, 1.0));
}
@fragment fn fs() -> @location(0) vec4<f32> { return unpack4x8unorm(object.color); }
"#;

/// Workload size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Rows of the grid: `100 × rows` squares, one draw each.
    pub rows: u32,
}

impl Size {
    /// Draws per frame.
    pub fn draws(self) -> u32 {
        COLUMNS.saturating_mul(self.rows)
    }

    /// The target's size in pixels.
    pub fn target(self) -> [u32; 2] {
        [COLUMNS * CELL, self.rows * CELL]
    }

    /// The square's corners in clip space, relative to its origin.
    fn corners(self) -> [[f32; 2]; 4] {
        let (w, h) = (2.0 / COLUMNS as f32, 2.0 / self.rows.max(1) as f32);
        [[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]]
    }

    /// Object `i`'s origin in clip space.
    fn origin(self, i: u32) -> [f32; 2] {
        let (w, h) = (2.0 / COLUMNS as f32, 2.0 / self.rows.max(1) as f32);
        [
            -1.0 + (i % COLUMNS) as f32 * w,
            -1.0 + (i / COLUMNS) as f32 * h,
        ]
    }
}

/// Object `i`'s color, RGBA8 packed little-endian (red in the low byte), opaque.
fn color(i: u32) -> u32 {
    let r = (i.wrapping_mul(7)) & 255;
    let g = ((i / COLUMNS) * 2) & 255;
    let b = ((i % COLUMNS) * 2) & 255;
    r | (g << 8) | (b << 16) | (255 << 24)
}

/// The image every path must draw.
pub fn expected(size: Size) -> Vec<u8> {
    let [w, h] = size.target();
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let i = (y / CELL) * COLUMNS + x / CELL;
            out.extend_from_slice(&color(i).to_le_bytes());
        }
    }
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The tier's heap contents: the records, then the corners at `size.draws() × RECORD`,
/// each record pointing at `corners` (the corners' device address).
fn records(size: Size, corners: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity((u64::from(size.draws()) * RECORD + 32) as usize);
    for i in 0..size.draws() {
        bytes.extend(f32s(&size.origin(i)));
        bytes.extend(color(i).to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(corners.to_le_bytes());
        bytes.resize(bytes.len() + (RECORD - 24) as usize, 0);
    }
    bytes.extend(f32s(size.corners().as_flattened()));
    bytes
}

/// Where the corners lie in the tier's heap, and the heap's size.
fn layout(size: Size) -> (u64, u64) {
    let corners = u64::from(size.draws()) * RECORD;
    (corners, corners + 32)
}

fn result(path: &'static str, [encode, submit]: [Stats; 2], output: Vec<u8>) -> PathResult {
    PathResult {
        path,
        metrics: vec![("encode", encode), ("submit", submit)],
        output,
    }
}

/// Times frames of `record` (returning its command buffer and the encode time) through
/// `device`, after one frame whose image is the output.
fn frames(
    device: &vigil::Device,
    plan: Plan,
    target: vigil::Texture,
    size: Size,
    record: impl Fn() -> Result<(vigil::CommandBuffer, Duration), String>,
) -> Result<([Stats; 2], Vec<u8>), String> {
    let e = |e: vigil::Error| e.to_string();
    let (cb, _) = record()?;
    device.submit([cb]).map_err(e)?;
    let output = device
        .read_texture(
            target,
            vigil::TexelCopyTextureInfo::default(),
            size.target(),
        )
        .map_err(e)?;
    let stats = repeat(plan, || super::vigil_submit_timed(device, record()?))?;
    Ok((stats, output))
}

/// The render target every vigil path draws into, and its view.
fn target(
    device: &vigil::Device,
    size: Size,
) -> Result<(vigil::Texture, vigil::TextureView), String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let texture = device
        .create_texture(&TextureDescriptor {
            label: "tier-draws target",
            size: size.target(),
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .map_err(e)?;
    let view = device
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .map_err(e)?;
    Ok((texture, view))
}

/// Opens the frame's render pass on `view` and binds `pipeline`.
fn begin(
    device: &vigil::Device,
    view: vigil::TextureView,
    pipeline: vigil::RenderPipeline,
) -> Result<vigil::CommandEncoder, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "tier-draws",
        })
        .map_err(e)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "tier-draws",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .map_err(e)?;
    enc.set_render_pipeline(pipeline).map_err(e)?;
    Ok(enc)
}

const TARGETS: [Option<vigil::ColorTargetState>; 1] = [Some(vigil::ColorTargetState {
    format: vigil::TextureFormat::Rgba8Unorm,
    blend: None,
    write_mask: vigil::ColorWrites::ALL,
})];

/// Through vigil's pointer tier: a draw per square taking its root (`draw_root`), or with
/// `split` the root set first (`set_root`, then `draw`: path `vigil-set-root`).
pub fn vigil_tier(
    device: &vigil::Device,
    size: Size,
    plan: Plan,
    split: bool,
) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let pipeline = device
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "tier-draws",
            vertex_glsl: &format!("{OBJECT_GLSL}{VERTEX_GLSL}"),
            fragment: Some((&format!("{OBJECT_GLSL}{FRAGMENT_GLSL}"), &TARGETS)),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .map_err(e)?;
    let (corners_at, bytes) = layout(size);
    let heap = device
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "objects",
            size: bytes,
            kind: HeapKind::CpuVisible,
        })
        .map_err(e)?;
    let corners = device
        .gpu_heap_ptr::<[f32; 8]>(heap, corners_at)
        .map_err(e)?;
    device
        .write_gpu_heap(heap, 0, &records(size, corners.address()))
        .map_err(e)?;
    let roots = (0..size.draws())
        .map(|i| device.gpu_heap_ptr::<[u64; 3]>(heap, u64::from(i) * RECORD))
        .collect::<Result<Vec<_>>>()
        .map_err(e)?;
    let (target, view) = target(device, size)?;
    let record = || -> std::result::Result<(CommandBuffer, Duration), String> {
        let t = Instant::now();
        let mut enc = begin(device, view, pipeline)?;
        // One loop per path, so neither pays a per-draw test of which it is.
        if split {
            for root in &roots {
                enc.set_root(*root).map_err(e)?;
                enc.draw(0..6, 0..1).map_err(e)?;
            }
        } else {
            for root in &roots {
                enc.draw_root(*root, 0..6, 0..1).map_err(e)?;
            }
        }
        enc.end_render_pass().map_err(e)?;
        let cb = enc.finish().map_err(e)?;
        Ok((cb, t.elapsed()))
    };
    let (stats, output) = frames(device, plan, target, size, record)?;
    device.destroy_texture(target).map_err(e)?;
    device.destroy_gpu_heap(heap).map_err(e)?;
    device.destroy_render_pipeline(pipeline).map_err(e)?;
    let path = if split { "vigil-set-root" } else { "vigil" };
    Ok(result(path, stats, output))
}

/// Through vigil's bind groups: one group whose uniform binding has a dynamic offset, moved
/// per square; the corners from a vertex and an index buffer.
pub fn vigil_groups(device: &vigil::Device, size: Size, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "tier-draws groups",
            wgsl: WGSL,
        })
        .map_err(e)?;
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "object",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::VERTEX | ShaderStages::FRAGMENT,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                array: None,
            }],
        })
        .map_err(e)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "object",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(e)?;
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "tier-draws groups",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &[VertexBufferLayout {
                    array_stride: 8,
                    step_mode: VertexStepMode::Vertex,
                    attributes: &[VertexAttribute {
                        format: VertexFormat::Float32x2,
                        offset: 0,
                        shader_location: 0,
                    }],
                }],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &TARGETS,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(e)?;
    let buffer = |label, bytes: &[u8], usage| -> std::result::Result<Buffer, String> {
        let b = device
            .create_buffer(&BufferDescriptor {
                label,
                size: bytes.len() as u64,
                usage: usage | BufferUsages::COPY_DST,
            })
            .map_err(e)?;
        device.write_buffer(b, 0, bytes).map_err(e)?;
        Ok(b)
    };
    let mut objects = vec![0u8; (u64::from(size.draws()) * SLOT) as usize];
    for i in 0..size.draws() {
        let at = (u64::from(i) * SLOT) as usize;
        let mut record = f32s(&size.origin(i));
        record.extend(color(i).to_le_bytes());
        objects[at..at + 12].copy_from_slice(&record);
    }
    let uniforms = buffer("objects", &objects, BufferUsages::UNIFORM)?;
    let vertices = buffer(
        "corners",
        &f32s(size.corners().as_flattened()),
        BufferUsages::VERTEX,
    )?;
    let indices: Vec<u8> = [0u16, 1, 2, 2, 1, 3, 0, 0]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let indices = buffer("indices", &indices, BufferUsages::INDEX)?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "object",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding {
                    buffer: uniforms,
                    offset: 0,
                    size: Some(16),
                }),
            }],
        })
        .map_err(e)?;
    let (target, view) = target(device, size)?;
    let record = || -> std::result::Result<(CommandBuffer, Duration), String> {
        let t = Instant::now();
        let mut enc = begin(device, view, pipeline)?;
        enc.set_vertex_buffer(0, vertices, 0, None).map_err(e)?;
        enc.set_index_buffer(indices, IndexFormat::Uint16, 0, None)
            .map_err(e)?;
        for i in 0..size.draws() {
            let offset = (u64::from(i) * SLOT) as u32;
            enc.set_bind_group(0, group, &[offset]).map_err(e)?;
            enc.draw_indexed(0..6, 0, 0..1).map_err(e)?;
        }
        enc.end_render_pass().map_err(e)?;
        let cb = enc.finish().map_err(e)?;
        Ok((cb, t.elapsed()))
    };
    let (stats, output) = frames(device, plan, target, size, record)?;
    device.destroy_bind_group(group).map_err(e)?;
    device.destroy_texture(target).map_err(e)?;
    for b in [uniforms, vertices, indices] {
        device.destroy_buffer(b).map_err(e)?;
    }
    device.destroy_render_pipeline(pipeline).map_err(e)?;
    Ok(result("vigil-groups", stats, output))
}

/// Through raw ash: the root's 8 bytes pushed and a draw per square, nothing checked.
pub fn ash(raw: &mut Raw, size: Size, plan: Plan) -> Result<PathResult, String> {
    if !raw.addresses {
        return Err("raw ash: the adapter has no buffer device addresses".into());
    }
    let compile = |source: &str, stage| {
        vigil_shader::glsl::compile(
            "tier-draws.glsl",
            &format!("{OBJECT_GLSL}{source}"),
            stage,
            vigil::Features::BUFFER_DEVICE_ADDRESS,
        )
        .map_err(|d| d.to_string())
    };
    let vs = raw.shader(&compile(VERTEX_GLSL, vigil_shader::Stage::Vertex)?)?;
    let fs = raw.shader(&compile(FRAGMENT_GLSL, vigil_shader::Stage::Fragment)?)?;
    let d = raw.device.clone();
    let pl = raw.push_layout(8)?;
    let no_vertices = vk::PipelineVertexInputStateCreateInfo::default();
    let pipeline = raw.target_pipeline((vs, c"main"), (fs, c"main"), &no_vertices, pl)?;
    let (corners_at, bytes) = layout(size);
    let heap = raw.buffer(
        bytes,
        vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS | vk::BufferUsageFlags::STORAGE_BUFFER,
        gpu_allocator::MemoryLocation::CpuToGpu,
    )?;
    let base = raw.address(&heap);
    raw.write(&heap, 0, &records(size, base + corners_at))?;
    let roots: Vec<[u8; 8]> = (0..u64::from(size.draws()))
        .map(|i| (base + i * RECORD).to_le_bytes())
        .collect();
    let target_size = size.target();
    let target = raw.render_target(target_size)?;
    let (cmd_pool, cb) = raw.command_buffer()?;
    let view = target.view;
    let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    let record = || -> Result<Duration, String> {
        let t = Instant::now();
        Raw::begin_frame_on(&d, cmd_pool, cb, view, target_size, pipeline)?;
        for root in &roots {
            // SAFETY: 8 bytes within the layout's push-constant range, its stages.
            unsafe { d.cmd_push_constants(cb, pl, stages, 0, root) };
            // SAFETY: the pipeline is bound and its root pushed; it reads no vertex input.
            unsafe { d.cmd_draw(cb, 6, 1, 0, 0) };
        }
        // SAFETY: matches the begin.
        unsafe { d.cmd_end_rendering(cb) };
        Raw::end_on(&d, cb)?;
        Ok(t.elapsed())
    };
    record()?;
    let s = raw.submit(&[cb])?;
    raw.wait(s)?;
    let output = raw.read_image(&target, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
    let stats = repeat(plan, || {
        let encode = record()?;
        let t = Instant::now();
        let s = raw.submit(&[cb])?;
        let submit = t.elapsed();
        raw.wait(s)?;
        Ok([encode, submit])
    });
    // SAFETY: idle (every submission was waited for); objects created above.
    unsafe { d.destroy_command_pool(cmd_pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_pipeline(pipeline, None) };
    // SAFETY: as above.
    unsafe { d.destroy_pipeline_layout(pl, None) };
    // SAFETY: as above.
    unsafe { d.destroy_shader_module(vs, None) };
    // SAFETY: as above.
    unsafe { d.destroy_shader_module(fs, None) };
    raw.destroy_image(target);
    raw.destroy_buffer(heap);
    Ok(result("ash", stats?, output?))
}
