//! Task and mesh shaders of the pointer tier on a real device with the validation layer
//! on: quads made by mesh workgroups from what the root points at, launched directly, by a
//! task shader, and with counts read from a heap; pixels read back; and the checks on mesh
//! pipelines and mesh draws.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, gpu_requiring};
use std::time::Duration;
use vigil::*;

fn device() -> Gpu {
    gpu_requiring(Features::MESH_SHADER, "mesh")
}

const ROOT: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Root { uint quads; vec4 colors[4]; };
VIGIL_ROOT(Root);
";

/// Launches `root.quads` mesh workgroups.
const TASK: &str = "
layout(local_size_x = 1) in;
void main() { EmitMeshTasksEXT(vigil.root.quads, 1, 1); }
";

/// Workgroup `q` makes quad `q`: a quarter of the width each, in the root's color `q`.
const MESH: &str = "
layout(local_size_x = 1) in;
layout(triangles, max_vertices = 4, max_primitives = 2) out;
layout(location = 0) flat out vec4 color[];
void main() {
    uint q = gl_WorkGroupID.x;
    SetMeshOutputsEXT(4, 2);
    float x0 = -0.9 + 0.5 * float(q);
    float x1 = x0 + 0.3;
    gl_MeshVerticesEXT[0].gl_Position = vec4(x0, -0.5, 0.0, 1.0);
    gl_MeshVerticesEXT[1].gl_Position = vec4(x1, -0.5, 0.0, 1.0);
    gl_MeshVerticesEXT[2].gl_Position = vec4(x0, 0.5, 0.0, 1.0);
    gl_MeshVerticesEXT[3].gl_Position = vec4(x1, 0.5, 0.0, 1.0);
    for (int i = 0; i < 4; i++) { color[i] = vigil.root.colors[q]; }
    gl_PrimitiveTriangleIndicesEXT[0] = uvec3(0, 1, 2);
    gl_PrimitiveTriangleIndicesEXT[1] = uvec3(2, 1, 3);
}
";

const FRAGMENT: &str = "
layout(location = 0) flat in vec4 color;
layout(location = 0) out vec4 target;
void main() { target = color; }
";

const COLORS: [[u8; 4]; 4] = [
    [255, 0, 0, 255],
    [0, 255, 0, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
];

fn targets() -> [Option<ColorTargetState>; 1] {
    [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })]
}

fn mesh_pipeline(d: &Device, task: bool) -> RenderPipeline {
    let label = if task { "task+mesh" } else { "mesh" };
    mesh_pipeline_of(d, label, task.then_some(TASK), MESH).unwrap()
}

/// A mesh pipeline of `task` (if any) and `mesh`, each after the root's declaration, with
/// the flat-color fragment shader and one target.
fn mesh_pipeline_of(
    d: &Device,
    label: &str,
    task: Option<&str>,
    mesh: &str,
) -> Result<RenderPipeline> {
    let task_glsl = task.map(|t| format!("{ROOT}{t}"));
    let mesh_glsl = format!("{ROOT}{mesh}");
    d.create_pointer_mesh_pipeline(&PointerMeshPipelineDescriptor {
        label,
        task_glsl: task_glsl.as_deref(),
        mesh_glsl: &mesh_glsl,
        fragment: Some((FRAGMENT, &targets())),
        cull_mode: CullMode::None,
        front_face: FrontFace::Ccw,
        depth_stencil: None,
        sample_count: 1,
        cache: None,
    })
}

struct Scene {
    target: Texture,
    view: TextureView,
    root: GpuPtr<u32>,
    args: GpuPtr<[u32; 3]>,
}

fn scene(d: &Device, quads: u32) -> Scene {
    let heap = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "scene",
            size: 256,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    let mut colors = [[0f32; 4]; 4];
    for (c, rgba) in colors.iter_mut().zip(COLORS) {
        *c = rgba.map(|v| f32::from(v) / 255.0);
    }
    d.write_gpu_values(heap, 0, &[quads]).unwrap();
    d.write_gpu_values(heap, 4, &colors).unwrap();
    d.write_gpu_values(heap, 128, &[4u32, 1, 1]).unwrap();
    let (target, view) = common::readable_target(d, [64, 16]);
    Scene {
        target,
        view,
        root: d.gpu_heap_ptr(heap, 0).unwrap(),
        args: d.gpu_heap_ptr(heap, 128).unwrap(),
    }
}

fn pass(d: &Device, s: &Scene, label: &'static str) -> CommandEncoder {
    common::clear_pass(d, label, s.view, [0.0, 0.0, 0.0, 1.0])
}

fn finish(d: &Device, s: &Scene, mut e: CommandEncoder) -> Vec<[u8; 4]> {
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    d.read_texture(s.target, TexelCopyTextureInfo::default(), [64, 16])
        .unwrap()
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// Quad `q`'s centre is pixel (8 + 16q, 8); the columns between quads stay clear.
fn check(pixels: &[[u8; 4]], quads: usize, how: &str) {
    for (q, color) in COLORS.iter().enumerate() {
        let want = if q < quads { *color } else { [0, 0, 0, 255] };
        assert_eq!(pixels[8 * 64 + 8 + 16 * q], want, "{how}: quad {q}");
        assert_eq!(pixels[8 * 64 + 16 * q], [0, 0, 0, 255], "{how}: gap {q}");
    }
    assert_eq!(pixels[8], [0, 0, 0, 255], "{how}: above the quads");
}

#[test]
fn mesh_workgroups_draw_quads_launched_directly_by_a_task_shader_and_from_a_heap() {
    let d = device();
    let s = scene(&d, 3);
    let mesh = mesh_pipeline(&d, false);
    let task = mesh_pipeline(&d, true);

    // Four mesh workgroups, launched directly.
    let mut e = pass(&d, &s, "direct");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks(4, 1, 1).unwrap();
    check(&finish(&d, &s, e), 4, "direct");

    // One task workgroup that launches `root.quads` (3) mesh workgroups.
    let mut e = pass(&d, &s, "task");
    e.set_render_pipeline(task).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks(1, 1, 1).unwrap();
    check(&finish(&d, &s, e), 3, "task");

    // Counts read from the heap by the GPU: (4, 1, 1).
    let mut e = pass(&d, &s, "indirect");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks_indirect_at(s.args).unwrap();
    check(&finish(&d, &s, e), 4, "indirect");
    d.finish();
}

#[test]
fn indirect_mesh_counts_past_the_limits_draw_nothing() {
    let d = device();
    let s = scene(&d, 3);
    let mesh = mesh_pipeline(&d, false);
    let task = mesh_pipeline(&d, true);
    let heap = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "counts",
            size: 64,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    // Past every device's limit in x; each dimension perhaps within, the product not
    // (the CPU refuses the same counts drawn directly); one task workgroup.
    d.write_gpu_values(heap, 0, &[u32::MAX, 1, 1, 4096, 4096, 1, 1, 1, 1])
        .unwrap();
    let at = |offset| d.gpu_heap_ptr::<[u32; 3]>(heap, offset).unwrap();
    let (huge, wide, one) = (at(0), at(12), at(24));
    for pipeline in [mesh, task] {
        let mut e = pass(&d, &s, "probe");
        e.set_render_pipeline(pipeline).unwrap();
        e.set_root(s.root).unwrap();
        assert_eq!(
            e.draw_mesh_tasks(4096, 4096, 1).unwrap_err().rule(),
            Rule::MeshGroupCount
        );
    }
    // Mesh workgroups: the two refused counts draw nothing, then (4, 1, 1) four quads.
    let mut e = pass(&d, &s, "mesh");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks_indirect_at(huge).unwrap();
    e.draw_mesh_tasks_indirect_at(wide).unwrap();
    check(&finish(&d, &s, e), 0, "past the mesh limits");
    let mut e = pass(&d, &s, "mesh");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks_indirect_at(huge).unwrap();
    e.draw_mesh_tasks_indirect_at(s.args).unwrap();
    e.draw_mesh_tasks_indirect_at(wide).unwrap();
    check(
        &finish(&d, &s, e),
        4,
        "past the mesh limits around (4, 1, 1)",
    );
    // Task workgroups: the same, then one task workgroup launching `root.quads` (3).
    let mut e = pass(&d, &s, "task");
    e.set_render_pipeline(task).unwrap();
    e.set_root(s.root).unwrap();
    e.draw_mesh_tasks_indirect_at(huge).unwrap();
    e.draw_mesh_tasks_indirect_at(wide).unwrap();
    e.draw_mesh_tasks_indirect_at(one).unwrap();
    check(
        &finish(&d, &s, e),
        3,
        "past the task limits, then (1, 1, 1)",
    );
    d.finish();
}

#[test]
fn mesh_draws_and_pipelines_are_checked() {
    let d = device();
    let s = scene(&d, 1);
    let mesh = mesh_pipeline(&d, false);
    let targets = targets();
    let vertex = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "vertex",
            vertex_glsl: "void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }",
            fragment: Some((
                "layout(location = 0) out vec4 t; void main() { t = vec4(1.0); }",
                &targets,
            )),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap();
    let rule = |r: Result<()>| r.unwrap_err().rule();
    // An ordinary draw of a mesh pipeline, a mesh draw of a vertex pipeline.
    let mut e = pass(&d, &s, "probe");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    assert_eq!(rule(e.draw(0..3, 0..1)), Rule::MeshPipeline);
    let mut e = pass(&d, &s, "probe");
    e.set_render_pipeline(vertex).unwrap();
    e.set_root(s.root).unwrap();
    assert_eq!(rule(e.draw_mesh_tasks(1, 1, 1)), Rule::MeshPipeline);
    // More workgroups than the device launches; no root; arguments outside any heap.
    let mut e = pass(&d, &s, "probe");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    assert_eq!(
        rule(e.draw_mesh_tasks(u32::MAX, 1, 1)),
        Rule::MeshGroupCount
    );
    let mut e = pass(&d, &s, "probe");
    e.set_render_pipeline(mesh).unwrap();
    assert_eq!(rule(e.draw_mesh_tasks(1, 1, 1)), Rule::GpuRoot);
    let mut e = pass(&d, &s, "probe");
    e.set_render_pipeline(mesh).unwrap();
    e.set_root(s.root).unwrap();
    assert_eq!(
        rule(e.draw_mesh_tasks_indirect_at(GpuPtr::from_address(8))),
        Rule::GpuPointer
    );
    // Bind groups are not for mesh shaders.
    let err = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "mesh-visible",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::MESH,
                ty: BindingType::Sampler(SamplerBindingType::Filtering),
                array: None,
            }],
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::LayoutMeshVisibility, "{err}");
    // Outside a render pass.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "outside" })
        .unwrap();
    assert!(e.draw_mesh_tasks(1, 1, 1).is_err());
    // A module that is not a mesh shader where one is expected.
    let err = d
        .create_pointer_mesh_pipeline(&PointerMeshPipelineDescriptor {
            label: "broken",
            task_glsl: None,
            mesh_glsl: "void main() { gl_Position = vec4(0.0); }",
            fragment: None,
            cull_mode: CullMode::None,
            front_face: FrontFace::Ccw,
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::GpuShader, "{err}");
    d.finish();

    // Without the feature: refused, naming it.
    let plain = gpu_requiring(Features::BUFFER_DEVICE_ADDRESS, "no mesh");
    let mesh_glsl = format!("{ROOT}{MESH}");
    let err = plain
        .create_pointer_mesh_pipeline(&PointerMeshPipelineDescriptor {
            label: "mesh",
            task_glsl: None,
            mesh_glsl: &mesh_glsl,
            fragment: Some((FRAGMENT, &targets)),
            cull_mode: CullMode::None,
            front_face: FrontFace::Ccw,
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::MeshFeature, "{err}");
    plain.finish();
}

/// Colors its one triangle, the whole frame, with what slot 0 of the texture heap holds.
const MESH_SAMPLING: &str = "
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(local_size_x = 1) in;
layout(triangles, max_vertices = 3, max_primitives = 1) out;
layout(location = 0) flat out vec4 color[];
void main() {
    SetMeshOutputsEXT(3, 1);
    vec4 c = textureLod(sampler2D(vigil_texture(0), vigil_sampler(0)), vec2(0.5), 0.0);
    gl_MeshVerticesEXT[0].gl_Position = vec4(-1.0, -1.0, 0.0, 1.0);
    gl_MeshVerticesEXT[1].gl_Position = vec4(3.0, -1.0, 0.0, 1.0);
    gl_MeshVerticesEXT[2].gl_Position = vec4(-1.0, 3.0, 0.0, 1.0);
    for (int i = 0; i < 3; i++) { color[i] = c; }
    gl_PrimitiveTriangleIndicesEXT[0] = uvec3(0, 1, 2);
}
";

#[test]
fn a_mesh_shader_reads_a_heap_texture_a_dispatch_of_the_recording_wrote() {
    // The barrier in front of the pass names the vertex shader stage for the draw's heap
    // read; on a device with mesh shaders that stage brings the task and mesh stages with
    // it, so the mesh shader's read waits for the write (the layer checks the masks are
    // ones the device allows).
    let d = gpu_requiring(
        Features::MESH_SHADER | Features::DESCRIPTOR_HEAPS,
        "mesh heap",
    );
    let (_t, v) = common::heaps::storage_texture(&d, "written");
    let (heap, samplers) = common::heaps::one_slot_heaps(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let fill = common::heaps::storage_fill(&d, v);
    let pipeline = mesh_pipeline_of(&d, "mesh sampling", None, MESH_SAMPLING).unwrap();
    let s = scene(&d, 1);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "write, then a mesh draw reads",
        })
        .unwrap();
    common::heaps::fill_in_pass(&mut e, fill);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "mesh",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: s.view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(pipeline).unwrap();
    e.set_root(s.root).unwrap();
    e.set_texture_heap(heap).unwrap();
    e.set_sampler_heap(samplers).unwrap();
    e.draw_mesh_tasks(1, 1, 1).unwrap();
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let pixels = d
        .read_texture(s.target, TexelCopyTextureInfo::default(), [64, 16])
        .unwrap();
    for px in pixels.chunks_exact(4) {
        assert_eq!(px, [204, 0, 0, 255]);
    }
    d.finish();
}
