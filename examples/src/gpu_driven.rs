//! A GPU-driven scene in the pointer tier: 10,000 textured quads on a 100 × 100 grid,
//! culled against the camera by a compute pass that writes the indirect draw's arguments
//! and the list of visible objects; one indirect draw then fetches each visible object
//! through pointers and samples its texture from a texture heap by index. No vertex
//! buffers, no bind groups: the CPU writes the objects and the camera once per frame and
//! hands each pass one root address.
//!
//! [`visible()`] culls on the CPU with the same arithmetic, so tests can check the GPU's
//! count and the pixel at every visible object's centre.

use crate::image::Image;
use crate::{Result, err, read_image};
use std::time::Duration;
use vigil::*;

/// Objects in the scene (a 100 × 100 grid).
pub const OBJECTS: u32 = 10_000;
/// Textures in the heap; object `i` samples texture `i % TEXTURES`.
pub const TEXTURES: u32 = 16;
/// A texture's side in texels.
const TEXTURE_SIDE: u32 = 8;
/// A quad's side in world units (the grid's pitch is 1).
pub const QUAD: f32 = 0.8;

/// The cameras of the frames the example draws: centre `(x, y)` and half extents
/// `(w, h)` in world units (`w / h` is the image's aspect, so quads stay square).
pub const CAMERAS: [[f32; 4]; 4] = [
    [10.3, 7.7, 8.0, 6.0],
    [49.9, 49.9, 66.7, 50.0],
    [97.3, 3.1, 16.0, 12.0],
    [33.4, 61.6, 4.0, 3.0],
];

/// The types and the root every shader of the example declares.
const COMMON: &str = "
struct Object { vec2 pos; float size; uint tex; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Objects { Object o[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Visible { uint id[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Args {
    uint vertex_count; uint instance_count; uint first_vertex; uint first_instance;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root {
    Objects objects; Visible visible; Args args; vec4 camera; uint count;
};
VIGIL_ROOT(Root);
";

/// Resets the draw's arguments: six vertices per quad, no instances yet.
const RESET: &str = "
layout(local_size_x = 1) in;
void main() {
    vigil.root.args.vertex_count = 6u;
    vigil.root.args.instance_count = 0u;
    vigil.root.args.first_vertex = 0u;
    vigil.root.args.first_instance = 0u;
}
";

/// Appends every object whose square meets the camera's rectangle to the visible list,
/// counting it in the draw's instance count.
const CULL: &str = "
layout(local_size_x = 64) in;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= vigil.root.count) { return; }
    Object ob = vigil.root.objects.o[i];
    vec4 c = vigil.root.camera;
    vec2 lo = c.xy - c.zw;
    vec2 hi = c.xy + c.zw;
    if (ob.pos.x + ob.size < lo.x || ob.pos.x > hi.x || ob.pos.y + ob.size < lo.y || ob.pos.y > hi.y) {
        return;
    }
    uint slot = atomicAdd(vigil.root.args.instance_count, 1u);
    vigil.root.visible.id[slot] = i;
}
";

/// Instance `k` draws visible object `k`: its square, fetched through pointers.
const VERTEX: &str = "
layout(location = 0) out vec2 uv;
layout(location = 1) flat out uint tex;
const vec2 CORNERS[6] = vec2[6](vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
                                vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0));
void main() {
    Object ob = vigil.root.objects.o[vigil.root.visible.id[gl_InstanceIndex]];
    vec2 corner = CORNERS[gl_VertexIndex];
    vec4 c = vigil.root.camera;
    gl_Position = vec4((ob.pos + corner * ob.size - c.xy) / c.zw, 0.0, 1.0);
    uv = corner;
    tex = ob.tex;
}
";

/// Samples the object's texture from the heap by its index.
const FRAGMENT: &str = "
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in uint tex;
layout(location = 0) out vec4 color;
void main() {
    color = texture(sampler2D(vigil_texture(tex), vigil_sampler(0)), uv);
}
";

/// The background.
pub const CLEAR: [u8; 4] = [20, 20, 28, 255];

/// Texture `t`'s inside color (its one-texel border is [`border`]).
pub fn fill(t: u32) -> [u8; 4] {
    let h = t.wrapping_mul(2_654_435_761);
    [
        64 + (h >> 24) as u8 % 192,
        64 + (h >> 16) as u8 % 192,
        64 + (h >> 8) as u8 % 192,
        255,
    ]
}

/// Texture `t`'s border color.
pub fn border(t: u32) -> [u8; 4] {
    let [r, g, b, a] = fill(t);
    [r / 3, g / 3, b / 3, a]
}

/// Object `i`'s corner (its square spans `QUAD` from there).
pub fn position(i: u32) -> [f32; 2] {
    [(i % 100) as f32, (i / 100) as f32]
}

/// The objects the camera sees, culled as the compute shader culls them.
pub fn visible(camera: [f32; 4]) -> Vec<u32> {
    let [cx, cy, w, h] = camera;
    let (lo, hi) = ([cx - w, cy - h], [cx + w, cy + h]);
    (0..OBJECTS)
        .filter(|&i| {
            let [x, y] = position(i);
            !(x + QUAD < lo[0] || x > hi[0] || y + QUAD < lo[1] || y > hi[1])
        })
        .collect()
}

/// Where object `i`'s centre lands in an image of `size` (pixel column and row), as the
/// vertex shader maps it (NDC y grows downwards in Vulkan).
pub fn centre_pixel(i: u32, camera: [f32; 4], size: [u32; 2]) -> [f32; 2] {
    let [x, y] = position(i);
    let [cx, cy, w, h] = camera;
    let ndc = [(x + QUAD / 2.0 - cx) / w, (y + QUAD / 2.0 - cy) / h];
    [
        (ndc[0] * 0.5 + 0.5) * size[0] as f32,
        (ndc[1] * 0.5 + 0.5) * size[1] as f32,
    ]
}

/// One frame: the image and how many objects the GPU drew.
pub struct Frame {
    /// What the camera saw.
    pub image: Image,
    /// Objects the GPU's cull kept (the indirect draw's instance count).
    pub visible: u32,
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Renders a frame per camera of [`CAMERAS`] at `size`. Needs `DESCRIPTOR_HEAPS` (which
/// brings `BUFFER_DEVICE_ADDRESS`).
pub fn render(d: &Device, size: [u32; 2]) -> Result<Vec<Frame>> {
    if !d.features().contains(Features::DESCRIPTOR_HEAPS) {
        return Err(format!(
            "the GPU-driven example needs the DESCRIPTOR_HEAPS feature, which {} does not have",
            d.adapter_info().name
        ));
    }
    // The scene: objects (pos, size, texture) in a CPU-visible heap, written once.
    let object_bytes = 16 * u64::from(OBJECTS);
    let objects = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "objects",
            size: object_bytes,
            kind: HeapKind::CpuVisible,
        })
        .map_err(err)?;
    let mut scene = Vec::with_capacity(object_bytes as usize);
    for i in 0..OBJECTS {
        let [x, y] = position(i);
        scene.extend(bytes_f32(&[x, y, QUAD]));
        scene.extend((i % TEXTURES).to_le_bytes());
    }
    d.write_gpu_heap(objects, 0, &scene).map_err(err)?;
    // What the GPU writes: the visible list (GPU-only) and the draw's arguments (CPU-visible,
    // so the frame can report the count).
    let visible_list = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "visible",
            size: 4 * u64::from(OBJECTS),
            kind: HeapKind::GpuOnly,
        })
        .map_err(err)?;
    let frame_heap = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "frame",
            size: 256,
            kind: HeapKind::CpuVisible,
        })
        .map_err(err)?;
    let root = d.gpu_heap_ptr::<[u8; 48]>(frame_heap, 0).map_err(err)?;
    let args = d.gpu_heap_ptr::<[u32; 4]>(frame_heap, 128).map_err(err)?;

    let textures = d
        .create_texture_heap(&TextureHeapDescriptor {
            label: "materials",
            slots: TEXTURES,
        })
        .map_err(err)?;
    let mut views = Vec::new();
    for t in 0..TEXTURES {
        let texture = d
            .create_texture(&TextureDescriptor {
                label: "material",
                size: [TEXTURE_SIDE, TEXTURE_SIDE],
                format: TextureFormat::Rgba8Unorm,
                usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                ..TextureDescriptor::default()
            })
            .map_err(err)?;
        let texels: Vec<u8> = (0..TEXTURE_SIDE * TEXTURE_SIDE)
            .flat_map(|k| {
                let (x, y) = (k % TEXTURE_SIDE, k / TEXTURE_SIDE);
                let edge = x == 0 || y == 0 || x == TEXTURE_SIDE - 1 || y == TEXTURE_SIDE - 1;
                if edge { border(t) } else { fill(t) }
            })
            .collect();
        d.write_texture(
            texture,
            TexelCopyTextureInfo::default(),
            &texels,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 4 * TEXTURE_SIDE,
                rows_per_image: None,
            },
            [TEXTURE_SIDE, TEXTURE_SIDE, 1],
        )
        .map_err(err)?;
        views.push(
            d.create_texture_view(texture, &TextureViewDescriptor::default())
                .map_err(err)?,
        );
    }
    d.write_texture_heap(textures, 0, &views).map_err(err)?;
    let samplers = d
        .create_sampler_heap(&SamplerHeapDescriptor {
            label: "samplers",
            slots: 1,
        })
        .map_err(err)?;
    let nearest = d
        .create_sampler(&SamplerDescriptor {
            label: "nearest",
            ..SamplerDescriptor::default()
        })
        .map_err(err)?;
    d.write_sampler_heap(samplers, 0, &[nearest]).map_err(err)?;

    let reset = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "reset",
            glsl: &format!("{COMMON}{RESET}"),
            cache: None,
        })
        .map_err(err)?;
    let cull = d
        .create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "cull",
            glsl: &format!("{COMMON}{CULL}"),
            cache: None,
        })
        .map_err(err)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let vertex = format!("{COMMON}{VERTEX}");
    let draw = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "objects",
            vertex_glsl: &vertex,
            fragment: Some((FRAGMENT, &targets)),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .map_err(err)?;
    let (target, view) = crate::render_target(d, "gpu-driven frame", size)?;
    let clear = CLEAR.map(|c| f64::from(c) / 255.0);

    let mut frames = Vec::new();
    for camera in CAMERAS {
        // The root: three pointers, the camera, the object count (scalar layout).
        let mut r = Vec::with_capacity(48);
        r.extend(d.gpu_heap_ptr::<u8>(objects, 0).map_err(err)?.to_bytes());
        r.extend(
            d.gpu_heap_ptr::<u8>(visible_list, 0)
                .map_err(err)?
                .to_bytes(),
        );
        r.extend(args.to_bytes());
        r.extend(bytes_f32(&camera));
        r.extend(OBJECTS.to_le_bytes());
        d.write_gpu_heap(frame_heap, 0, &r).map_err(err)?;

        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
            .map_err(err)?;
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .map_err(err)?;
        e.set_compute_pipeline(reset).map_err(err)?;
        e.set_root(root).map_err(err)?;
        e.dispatch(1, 1, 1).map_err(err)?;
        e.end_compute_pass().map_err(err)?;
        e.memory_barrier(Stages::COMPUTE, Stages::COMPUTE)
            .map_err(err)?;
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .map_err(err)?;
        e.set_compute_pipeline(cull).map_err(err)?;
        e.set_root(root).map_err(err)?;
        e.dispatch(OBJECTS.div_ceil(64), 1, 1).map_err(err)?;
        e.end_compute_pass().map_err(err)?;
        // The cull wrote the arguments and the list; the draw reads both.
        e.memory_barrier(
            Stages::COMPUTE,
            Stages::DRAW_INDIRECT | Stages::VERTEX_SHADER,
        )
        .map_err(err)?;
        e.begin_render_pass(&RenderPassDescriptor {
            label: "objects",
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear(clear),
                store: StoreOp::Store,
            })],
            ..RenderPassDescriptor::default()
        })
        .map_err(err)?;
        e.set_render_pipeline(draw).map_err(err)?;
        e.set_root(root).map_err(err)?;
        e.set_texture_heap(textures).map_err(err)?;
        e.set_sampler_heap(samplers).map_err(err)?;
        e.draw_indirect_at(args).map_err(err)?;
        e.end_render_pass().map_err(err)?;
        let serial = d.submit([e.finish().map_err(err)?]).map_err(err)?;
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(60))
            .map_err(err)?;
        let counts = d.read_gpu_heap(frame_heap, 128, 16).map_err(err)?;
        let visible = u32::from_le_bytes([counts[4], counts[5], counts[6], counts[7]]);
        frames.push(Frame {
            image: read_image(d, target, size)?,
            visible,
        });
    }
    Ok(frames)
}
