//! The GPU-pointer tier's rules on the test backend, each refusal by its code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/heap_objects.rs"]
mod heap_objects;
#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

fn bda() -> TDevice {
    device_with(Features::BUFFER_DEVICE_ADDRESS)
}

fn heap(d: &TDevice, size: u64, kind: HeapKind) -> Result<GpuHeap> {
    d.create_gpu_heap(&GpuHeapDescriptor {
        label: "heap",
        size,
        kind,
    })
}

/// A root whose shader adds one to the `uint` it points at.
const BUMP: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
layout(local_size_x = 1) in;
void main() { vigil.root.value += 1u; }
";

fn bump(d: &TDevice) -> ComputePipeline {
    d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
        label: "bump",
        glsl: BUMP,
        cache: None,
    })
    .unwrap()
}

#[test]
fn the_tier_needs_buffer_device_addresses() {
    let d = device();
    expect_rule(heap(&d, 64, HeapKind::CpuVisible), Rule::GpuFeature);
    expect_rule(
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "bump",
            glsl: BUMP,
            cache: None,
        }),
        Rule::GpuFeature,
    );
}

#[test]
fn heaps_are_sized_and_ordinary_buffers_have_no_address() {
    let d = bda();
    expect_rule(heap(&d, 0, HeapKind::GpuOnly), Rule::GpuHeapDescriptor);
    expect_rule(heap(&d, 6, HeapKind::GpuOnly), Rule::GpuHeapDescriptor);
    expect_rule(
        heap(&d, d.limits().max_buffer_size + 4, HeapKind::GpuOnly),
        Rule::GpuHeapDescriptor,
    );
    expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "b",
            size: 64,
            usage: BufferUsages::DEVICE_ADDRESS | BufferUsages::STORAGE,
        }),
        Rule::GpuHeapDescriptor,
    );
}

#[test]
fn pointers_the_cpu_makes_stay_inside_live_heaps() {
    let d = bda();
    let h = heap(&d, 64, HeapKind::CpuVisible).unwrap();
    let p = d.gpu_heap_ptr::<u64>(h, 56).unwrap();
    let base = d.gpu_heap_ptr::<u8>(h, 0).unwrap();
    assert_eq!(p.address(), base.address() + 56);
    assert_eq!(base.cast::<u64>(), d.gpu_heap_ptr::<u64>(h, 0).unwrap());
    assert!(!base.is_null());
    expect_rule(d.gpu_heap_ptr::<u64>(h, 60), Rule::GpuPointer);
    expect_rule(d.gpu_heap_ptr::<u64>(h, 4), Rule::GpuPointer);
    expect_rule(d.gpu_heap_ptr::<u8>(h, u64::MAX), Rule::GpuPointer);
    d.destroy_gpu_heap(h).unwrap();
    expect_rule(d.gpu_heap_ptr::<u64>(h, 0), Rule::HandleStale);
}

#[test]
fn the_cpu_touches_only_heaps_it_can_see() {
    let d = bda();
    let cpu = heap(&d, 64, HeapKind::CpuVisible).unwrap();
    let gpu = heap(&d, 64, HeapKind::GpuOnly).unwrap();
    let back = heap(&d, 64, HeapKind::Readback).unwrap();
    d.write_gpu_heap(cpu, 8, &[1, 2, 3, 4]).unwrap();
    assert_eq!(d.read_gpu_heap(cpu, 8, 4).unwrap(), [1, 2, 3, 4]);
    assert_eq!(
        d.read_gpu_heap(cpu, 0, 8).unwrap(),
        [0; 8],
        "heaps start zeroed"
    );
    expect_rule(d.write_gpu_heap(gpu, 0, &[0; 4]), Rule::GpuHeapAccess);
    expect_rule(d.write_gpu_heap(back, 0, &[0; 4]), Rule::GpuHeapAccess);
    expect_rule(d.read_gpu_heap(gpu, 0, 4), Rule::GpuHeapAccess);
    d.read_gpu_heap(back, 0, 4).unwrap();
    expect_rule(d.write_gpu_heap(cpu, 62, &[0; 4]), Rule::GpuHeapAccess);
    expect_rule(d.read_gpu_heap(cpu, u64::MAX, 2), Rule::GpuHeapAccess);
}

#[test]
fn roots_point_into_live_heaps_and_every_dispatch_has_one() {
    let d = bda();
    let p = bump(&d);
    let h = heap(&d, 64, HeapKind::CpuVisible).unwrap();
    let counter = d.gpu_heap_ptr::<u32>(h, 60).unwrap();
    // Outside a pass; outside any heap; past the heap's end for the root's type.
    let mut e = encoder(&d);
    expect_rule(e.set_root(counter), Rule::GpuRoot);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    expect_rule(e.set_root(GpuPtr::<u32>::NULL), Rule::GpuPointer);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.set_root(counter.cast::<u64>()), Rule::GpuPointer);
    // A pointer pipeline's dispatch without a root, and its root written as plain data.
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    expect_rule(e.dispatch(1, 1, 1), Rule::GpuRoot);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    expect_rule(e.set_immediates(0, &[0; 8]), Rule::GpuRoot);
    // With a root: accepted and submitted; once the heap is destroyed, a command buffer
    // recorded with it is refused.
    let record = || {
        let mut e = encoder(&d);
        compute_pass(&mut e);
        e.set_compute_pipeline(p).unwrap();
        e.set_root(counter).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
        e.finish().unwrap()
    };
    d.submit([record()]).unwrap();
    let late = record();
    // An open recording that has named the heap already checks again that it is live.
    let mut open = encoder(&d);
    compute_pass(&mut open);
    open.set_root(counter).unwrap();
    d.destroy_gpu_heap(h).unwrap();
    expect_rule(d.submit([late]), Rule::SubmitDestroyed);
    expect_rule(open.set_root(counter), Rule::GpuPointer);
    // And no root can point into it any more.
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.set_root(counter), Rule::GpuPointer);
}

#[test]
fn modules_that_do_not_compile_or_need_more_are_refused() {
    let d = bda();
    let err = expect_rule(
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "broken.comp",
            glsl: "layout(local_size_x = 1) in;\nvoid main() { x = 1; }\n",
            cache: None,
        }),
        Rule::GpuShader,
    );
    assert!(err.shader_diagnostic().is_some());
    let err = expect_rule(
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label: "int64.comp",
            glsl: "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer R { uint64_t v; };
VIGIL_ROOT(R);
layout(local_size_x = 1) in;
void main() { vigil.root.v += 1ul; }",
            cache: None,
        }),
        Rule::GpuShader,
    );
    assert!(err.to_string().contains("SHADER_INT64"), "{err}");
}

#[test]
fn barriers_name_stages_and_stay_out_of_render_passes() {
    let d = bda();
    let mut e = encoder(&d);
    e.memory_barrier(Stages::COMPUTE, Stages::COMPUTE).unwrap();
    expect_rule(
        e.memory_barrier(Stages::empty(), Stages::COMPUTE),
        Rule::GpuBarrier,
    );
    let mut e = encoder(&d);
    expect_rule(
        e.memory_barrier(Stages::HOST, Stages::COMPUTE),
        Rule::GpuBarrier,
    );
    let mut e = encoder(&d);
    let t = d
        .create_texture(&TextureDescriptor {
            label: "t",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let v = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        label: "p",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: v,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    expect_rule(
        e.memory_barrier(Stages::COMPUTE, Stages::FRAGMENT_SHADER),
        Rule::GpuBarrier,
    );
}

#[test]
fn indirect_arguments_by_address_lie_in_a_live_heap() {
    let d = bda();
    let p = bump(&d);
    let h = heap(&d, 64, HeapKind::GpuOnly).unwrap();
    let counter = d.gpu_heap_ptr::<u32>(h, 0).unwrap();
    let args = d.gpu_heap_ptr::<[u32; 3]>(h, 16).unwrap();
    let run = |at: GpuPtr<[u32; 3]>| {
        let mut e = encoder(&d);
        compute_pass(&mut e);
        e.set_compute_pipeline(p).unwrap();
        e.set_root(counter).unwrap();
        e.dispatch_indirect_at(at)
    };
    run(args).unwrap();
    expect_rule(run(args.byte_add(2)), Rule::GpuPointer);
    expect_rule(run(args.byte_add(48)), Rule::GpuPointer);
    expect_rule(run(GpuPtr::NULL), Rule::GpuPointer);
    // Outside a compute pass.
    let mut e = encoder(&d);
    expect_rule(e.dispatch_indirect_at(args), Rule::PassNotOpen);
}

const VS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { vec2 p[]; };
VIGIL_ROOT(Root);
void main() { gl_Position = vec4(vigil.root.p[gl_VertexIndex], 0.0, 1.0); }
";

/// A fragment shader that writes white.
const FS: &str = "layout(location = 0) out vec4 c; void main() { c = vec4(1.0); }";

/// A pointer pipeline of [`VS`] and [`FS`] into an RGBA8 target.
fn root_pipeline(d: &TDevice) -> RenderPipeline {
    render_pipeline(d, VS, FS, TextureFormat::Rgba8Unorm).unwrap()
}

fn render_pipeline(
    d: &TDevice,
    vertex: &str,
    fragment: &str,
    format: TextureFormat,
) -> Result<RenderPipeline> {
    d.create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
        label: "pointer render",
        vertex_glsl: vertex,
        fragment: Some((
            fragment,
            &[Some(ColorTargetState {
                format,
                blend: None,
                write_mask: ColorWrites::ALL,
            })],
        )),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        sample_count: 1,
        cache: None,
    })
}

#[test]
fn pointer_render_pipelines_are_checked_like_ordinary_ones() {
    let d = bda();
    render_pipeline(&d, VS, FS, TextureFormat::Rgba8Unorm).unwrap();
    // Vertex inputs have no buffers to come from.
    expect_rule(
        render_pipeline(
            &d,
            "layout(location = 0) in vec2 pos; void main() { gl_Position = vec4(pos, 0.0, 1.0); }",
            FS,
            TextureFormat::Rgba8Unorm,
        ),
        Rule::VertexInput,
    );
    // Outputs against targets; a target written by nobody.
    expect_rule(
        render_pipeline(&d, VS, FS, TextureFormat::R32Uint),
        Rule::FragmentOutput,
    );
    expect_rule(
        render_pipeline(&d, VS, "void main() {}", TextureFormat::Rgba8Unorm),
        Rule::FragmentOutput,
    );
    // Fixed-function state as for every pipeline.
    let err = d.create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
        label: "samples",
        vertex_glsl: VS,
        fragment: None,
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        sample_count: 2,
        cache: None,
    });
    expect_rule(err, Rule::RenderSampleCount);
    expect_rule(
        render_pipeline(&d, "void main() { broken }", FS, TextureFormat::Rgba8Unorm),
        Rule::GpuShader,
    );
}

/// Opens a render pass on `view`, with `pipeline` bound if given.
fn open_pass(e: &mut CommandEncoder<TestApi>, view: TextureView, pipeline: Option<RenderPipeline>) {
    begin_pass(e, view);
    if let Some(p) = pipeline {
        e.set_render_pipeline(p).unwrap();
    }
}

#[test]
fn draws_by_address_lie_in_live_heaps() {
    let d = bda();
    let p = root_pipeline(&d);
    let h = heap(&d, 256, HeapKind::CpuVisible).unwrap();
    let root = d.gpu_heap_ptr::<[f32; 6]>(h, 0).unwrap();
    let args = d.gpu_heap_ptr::<[u32; 4]>(h, 64).unwrap();
    let v = target_view(&d, [4, 4]);
    let pass = |e: &mut CommandEncoder<TestApi>| open_pass(e, v, Some(p));
    let mut e = encoder(&d);
    pass(&mut e);
    expect_rule(e.draw(0..3, 0..1), Rule::GpuRoot);
    let mut e = encoder(&d);
    pass(&mut e);
    e.set_root(root).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.draw_indirect_at(args).unwrap();
    expect_rule(e.draw_indirect_at(args.byte_add(250)), Rule::GpuPointer);
    let mut e = encoder(&d);
    pass(&mut e);
    e.set_root(root).unwrap();
    expect_rule(e.draw_indirect_at(args.byte_add(1)), Rule::GpuPointer);
    let mut e = encoder(&d);
    expect_rule(e.draw_indirect_at(args), Rule::PassNotOpen);
    // Indices by address: inside a live heap, aligned to their size.
    let idx = d.gpu_heap_ptr::<u32>(h, 128).unwrap();
    let mut e = encoder(&d);
    pass(&mut e);
    e.set_root(root).unwrap();
    e.draw_indexed_at(idx, IndexFormat::Uint32, 32, 0, 0..1)
        .unwrap();
    expect_rule(
        e.draw_indexed_at(idx, IndexFormat::Uint32, 33, 0, 0..1),
        Rule::GpuPointer,
    );
    let mut e = encoder(&d);
    pass(&mut e);
    e.set_root(root).unwrap();
    expect_rule(
        e.draw_indexed_at(idx.byte_add(2), IndexFormat::Uint32, 3, 0, 0..1),
        Rule::GpuPointer,
    );
    // The pass has no index buffer set after it: an ordinary indexed draw is refused.
    let mut e = encoder(&d);
    pass(&mut e);
    e.set_root(root).unwrap();
    e.draw_indexed_at(idx, IndexFormat::Uint16, 3, 0, 0..1)
        .unwrap();
    expect_rule(e.draw_indexed(0..3, 0, 0..1), Rule::IndexBufferNotSet);
}

#[test]
fn draws_that_take_their_roots_check_and_record_what_set_root_and_draw_do() {
    let d = bda();
    let p = root_pipeline(&d);
    let h = heap(&d, 256, HeapKind::CpuVisible).unwrap();
    let other = heap(&d, 256, HeapKind::CpuVisible).unwrap();
    let roots: Vec<GpuPtr<[f32; 6]>> = (0..4)
        .map(|i| d.gpu_heap_ptr::<[f32; 6]>(h, i * 32).unwrap())
        .chain([d.gpu_heap_ptr::<[f32; 6]>(other, 0).unwrap()])
        .collect();
    let v = target_view(&d, [4, 4]);
    let pass = |e: &mut CommandEncoder<TestApi>| open_pass(e, v, Some(p));
    // The commands the last submission recorded, from the pipeline's bind to the pass's
    // end (as their debug text: the commands hold no comparison of their own).
    let recorded = |d: &TDevice| -> Vec<String> {
        use vigil::hal_test::TestCommand as C;
        last_commands(d)
            .into_iter()
            .skip_while(|c| !matches!(c, C::SetRenderPipeline(..)))
            .take_while(|c| !matches!(c, C::EndRenderPass))
            .map(|c| format!("{c:?}"))
            .collect()
    };
    // The same draws both ways, in and out of the first heap and between the two heaps
    // (each change of heap takes the checked path, each repeat the short one): the same
    // commands recorded.
    let order = [0usize, 1, 1, 2, 4, 4, 3, 0];
    let mut split = encoder(&d);
    pass(&mut split);
    for &i in &order {
        split.set_root(roots[i]).unwrap();
        split.draw(0..3, 0..2).unwrap();
    }
    split.end_render_pass().unwrap();
    d.submit([split.finish().unwrap()]).unwrap();
    let want = recorded(&d);
    let mut one = encoder(&d);
    pass(&mut one);
    for &i in &order {
        one.draw_root(roots[i], 0..3, 0..2).unwrap();
    }
    one.end_render_pass().unwrap();
    d.submit([one.finish().unwrap()]).unwrap();
    assert_eq!(recorded(&d), want);
    assert_eq!(
        want.iter().filter(|c| c.starts_with("Draw(")).count(),
        order.len()
    );
    assert_eq!(
        want.iter()
            .filter(|c| c.starts_with("SetImmediates("))
            .count(),
        order.len()
    );
    // Refusals, by the rules of the two calls, named for this one: outside a render pass
    // (a compute pass too), a root outside any heap, past the heap's end for its type,
    // or misaligned, ranges out of order.
    let mut e = encoder(&d);
    let err = expect_rule(e.draw_root(roots[0], 0..3, 0..1), Rule::PassNotOpen);
    assert_eq!(err.operation(), "draw_root");
    let mut e = encoder(&d);
    compute_pass(&mut e);
    expect_rule(e.draw_root(roots[0], 0..3, 0..1), Rule::PassNotOpen);
    let mut e = encoder(&d);
    pass(&mut e);
    e.draw_root(roots[0], 0..3, 0..1).unwrap();
    expect_rule(
        e.draw_root(GpuPtr::<u32>::NULL, 0..3, 0..1),
        Rule::GpuPointer,
    );
    let mut e = encoder(&d);
    pass(&mut e);
    e.draw_root(roots[0], 0..3, 0..1).unwrap();
    expect_rule(
        e.draw_root(roots[0].byte_add(240), 0..3, 0..1),
        Rule::GpuPointer,
    );
    let mut e = encoder(&d);
    pass(&mut e);
    e.draw_root(roots[0], 0..3, 0..1).unwrap();
    expect_rule(
        e.draw_root(roots[1].byte_add(2), 0..3, 0..1),
        Rule::GpuPointer,
    );
    let mut e = encoder(&d);
    pass(&mut e);
    e.draw_root(roots[0], 0..3, 0..1).unwrap();
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = 3..0;
    expect_rule(e.draw_root(roots[1], backwards, 0..1), Rule::RangeInverted);
    // A heap destroyed while the recording is open: the next draw into it is refused,
    // though the one before it took the short path.
    let mut e = encoder(&d);
    pass(&mut e);
    e.draw_root(roots[4], 0..3, 0..1).unwrap();
    e.draw_root(roots[4], 0..3, 0..1).unwrap();
    d.destroy_gpu_heap(other).unwrap();
    expect_rule(e.draw_root(roots[4], 0..3, 0..1), Rule::GpuPointer);
    // Without a pointer pipeline bound the draw is refused as a plain draw would be.
    let mut e = encoder(&d);
    open_pass(&mut e, v, None);
    expect_rule(e.draw_root(roots[0], 0..3, 0..1), Rule::PipelineNotSet);
}

/// Samples slot 0 of the texture heap with slot 0 of the sampler heap.
const HEAP_FS: &str = "
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(location = 0) out vec4 c;
void main() { c = texture(sampler2D(vigil_texture(0), vigil_sampler(0)), vec2(0.5)); }
";

/// A texture with storage usage in a one-slot texture heap, a kernel writing it through
/// a storage binding, a pointer pipeline drawing with the heap, and a target.
struct HeapScene {
    d: TDevice,
    view: TextureView,
    textures: TextureHeap,
    samplers: SamplerHeap,
    fill: (ComputePipeline, BindGroup),
    draw: RenderPipeline,
    root: GpuPtr<[f32; 6]>,
    target: TextureView,
}

fn heap_scene() -> HeapScene {
    let d = device_with(Features::BUFFER_DEVICE_ADDRESS | Features::DESCRIPTOR_HEAPS);
    let (_, v) = heap_objects::storage_texture(&d, "written, then sampled", [4, 4]);
    let (textures, samplers) = heap_objects::one_slot_heaps(&d);
    d.write_texture_heap(textures, 0, &[v]).unwrap();
    let bgl = layout(
        &d,
        &[entry(
            0,
            ShaderStages::COMPUTE,
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::Rgba8Unorm,
                view_dimension: TextureViewDimension::D2,
            },
        )],
    );
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "fill",
            wgsl: "@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1)
fn main() { textureStore(t, vec2<i32>(0, 0), vec4<f32>(1.0)); }",
        })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "fill",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let fill = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "fill",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let g = group(&d, bgl, &[(0, BindingResource::TextureView(v))]).unwrap();
    let draw = render_pipeline(&d, VS, HEAP_FS, TextureFormat::Rgba8Unorm).unwrap();
    let h = heap(&d, 64, HeapKind::CpuVisible).unwrap();
    let root = d.gpu_heap_ptr::<[f32; 6]>(h, 0).unwrap();
    let target = target_view(&d, [4, 4]);
    HeapScene {
        d,
        view: v,
        textures,
        samplers,
        fill: (fill, g),
        draw,
        root,
        target,
    }
}

impl HeapScene {
    /// A compute pass whose one dispatch writes the texture.
    fn write(&self, e: &mut CommandEncoder<TestApi>) {
        compute_pass(e);
        e.set_compute_pipeline(self.fill.0).unwrap();
        e.set_bind_group(0, self.fill.1, &[]).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
    }

    /// A render pass whose one draw reads the heap.
    fn read(&self, e: &mut CommandEncoder<TestApi>) {
        open_pass(e, self.target, Some(self.draw));
        e.set_root(self.root).unwrap();
        e.set_texture_heap(self.textures).unwrap();
        e.set_sampler_heap(self.samplers).unwrap();
        e.draw(0..3, 0..1).unwrap();
        e.end_render_pass().unwrap();
    }
}

/// The barriers of a texture kept in `GENERAL` (the storage texture's: both its uses are
/// in that layout), as `(src, dst)` stages, among `commands` after the first one `after`
/// matches (from the start when `after` is `None`) and before the next one `before`
/// matches.
fn general_waits(
    commands: &[vigil::hal_test::TestCommand],
    after: Option<fn(&vigil::hal_test::TestCommand) -> bool>,
    before: fn(&vigil::hal_test::TestCommand) -> bool,
) -> Vec<(Stages, Stages)> {
    use vigil::hal_test::TestCommand as C;
    let start = after.map_or(0, |after| {
        commands
            .iter()
            .position(after)
            .map_or(commands.len(), |i| i + 1)
    });
    commands[start..]
        .iter()
        .take_while(|c| !before(c))
        .filter_map(|c| match c {
            C::TextureBarrier {
                old: TextureLayout::General,
                new: TextureLayout::General,
                src,
                dst,
                ..
            } => Some((*src, *dst)),
            _ => None,
        })
        .collect()
}

fn is_dispatch(c: &vigil::hal_test::TestCommand) -> bool {
    matches!(c, vigil::hal_test::TestCommand::Dispatch(_))
}

fn is_pass_begin(c: &vigil::hal_test::TestCommand) -> bool {
    matches!(c, vigil::hal_test::TestCommand::BeginRenderPass(_))
}

fn is_pass_end(c: &vigil::hal_test::TestCommand) -> bool {
    matches!(c, vigil::hal_test::TestCommand::EndRenderPass)
}

#[test]
fn a_draw_reading_a_heap_waits_for_a_storage_write_of_its_texture_before_the_pass() {
    // A texture in a heap, written by a dispatch through a storage binding, then read by
    // a draw through the heap, in one recording. The heap read names no binding, so only
    // the heap tells the tracker the draw uses the texture: the read joins the pass's
    // scope, and the barrier ordering the write before it goes in front of the pass.
    // (On lavapipe the validation layer did not report this hazard when the barrier was
    // missing, so the barrier itself is checked here.)
    use vigil::hal_test::TestCommand as C;
    let s = heap_scene();
    let mut e = encoder(&s.d);
    s.write(&mut e);
    s.read(&mut e);
    s.d.submit([e.finish().unwrap()]).unwrap();
    let commands = last_commands(&s.d);
    let waits = general_waits(&commands, Some(is_dispatch), is_pass_begin);
    assert_eq!(waits.len(), 1, "{commands:?}");
    assert!(commands.iter().any(|c| matches!(c, C::Draw(..))));
}

#[test]
fn a_storage_write_after_a_draw_reading_a_heap_waits_for_the_pass() {
    // The reverse: the draw reads the heap, and a later dispatch of the recording, the
    // first use of the texture the recording tracks, writes it. The read is taken as the
    // texture's first use, so the write waits for the pass. (In `gpu_heaps.rs` the
    // dispatch-then-dispatch case is checked by the layer, and the pixels of both.)
    let s = heap_scene();
    let mut e = encoder(&s.d);
    s.read(&mut e);
    s.write(&mut e);
    s.d.submit([e.finish().unwrap()]).unwrap();
    let commands = last_commands(&s.d);
    let waits = general_waits(&commands, Some(is_pass_end), is_dispatch);
    assert_eq!(waits.len(), 1, "{commands:?}");
}

#[test]
fn a_storage_write_waits_for_heap_reads_of_earlier_command_buffers() {
    // A texture in a heap, written by a dispatch, then read through the heap by a draw
    // of another command buffer (which does not track it), then written again by a
    // third. The third's barrier must wait for the fragment shader's read as well as
    // for the first write: while a heap names the texture, every shader stage counts as
    // reading it.
    let s = heap_scene();
    let mut first = encoder(&s.d);
    s.write(&mut first);
    let mut read = encoder(&s.d);
    s.read(&mut read);
    let mut second = encoder(&s.d);
    s.write(&mut second);
    s.d.submit([first.finish().unwrap(), read.finish().unwrap()])
        .unwrap();
    s.d.submit([second.finish().unwrap()]).unwrap();
    let commands = last_commands(&s.d);
    let waits = general_waits(&commands, None, is_dispatch);
    assert_eq!(waits.len(), 1, "{commands:?}");
    let (src, dst) = waits[0];
    assert!(
        src.contains(Stages::FRAGMENT_SHADER | Stages::COMPUTE),
        "{src:?}"
    );
    assert_eq!(dst, Stages::COMPUTE);
}

#[test]
fn heap_reads_wait_for_storage_writes_of_earlier_command_buffers() {
    // A dispatch writes a texture a heap names; a draw of a later command buffer reads
    // the heap and does not track the texture. The write is made visible to every
    // shader stage in front of the next command buffer, in the same submission or, after
    // the last, in front of the next submission.
    let s = heap_scene();
    let heap_stages = Stages::VERTEX_SHADER | Stages::FRAGMENT_SHADER | Stages::COMPUTE;
    // In one submission.
    let mut write = encoder(&s.d);
    s.write(&mut write);
    let mut read = encoder(&s.d);
    s.read(&mut read);
    s.d.submit([write.finish().unwrap(), read.finish().unwrap()])
        .unwrap();
    let commands = last_commands(&s.d);
    assert_eq!(
        general_waits(&commands, Some(is_dispatch), is_pass_begin),
        [(Stages::COMPUTE, heap_stages)],
        "{commands:?}"
    );
    // In two: the second submission starts with it.
    let mut write = encoder(&s.d);
    s.write(&mut write);
    s.d.submit([write.finish().unwrap()]).unwrap();
    let mut read = encoder(&s.d);
    s.read(&mut read);
    s.d.submit([read.finish().unwrap()]).unwrap();
    let commands = last_commands(&s.d);
    assert_eq!(
        general_waits(&commands, None, is_pass_begin),
        [(Stages::COMPUTE, heap_stages)],
        "{commands:?}"
    );
}

#[cfg(feature = "test-seams")]
#[test]
fn a_refused_submission_takes_back_the_writes_it_made_visible_to_heap_reads() {
    // The driver refuses a submission of a write and a heap read (the write made visible
    // in front of the read): the texture's state goes back to what it was before, when
    // the write it saw last was visible to every shader stage. A dispatch that then
    // reads the texture through a group needs no barrier; had the state gone back only
    // to after the write, it would.
    let s = heap_scene();
    let mut read = encoder(&s.d);
    s.read(&mut read);
    s.d.submit([read.finish().unwrap()]).unwrap();
    let mut write = encoder(&s.d);
    s.write(&mut write);
    let mut read = encoder(&s.d);
    s.read(&mut read);
    s.d.seams()
        .inject_fault("submit", FaultKind::OutOfMemory, FaultMode::Once);
    let err =
        s.d.submit([write.finish().unwrap(), read.finish().unwrap()])
            .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    let bgl = layout(
        &s.d,
        &[
            entry(
                0,
                ShaderStages::COMPUTE,
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
            ),
            entry(
                1,
                ShaderStages::COMPUTE,
                buf_ty(BufferBindingType::Storage { read_only: false }, false),
            ),
        ],
    );
    let module =
        s.d.create_shader_module(&ShaderModuleDescriptor {
            label: "load",
            wgsl: "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = textureLoad(t, vec2<i32>(0, 0), 0).x; }",
        })
        .unwrap();
    let pl =
        s.d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "load",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let load =
        s.d.create_compute_pipeline(&ComputePipelineDescriptor {
            label: "load",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let out = storage(&s.d, 256);
    let g = group(
        &s.d,
        bgl,
        &[(0, BindingResource::TextureView(s.view)), (1, whole(out))],
    )
    .unwrap();
    let mut e = encoder(&s.d);
    compute_pass(&mut e);
    e.set_compute_pipeline(load).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    s.d.submit([e.finish().unwrap()]).unwrap();
    let commands = last_commands(&s.d);
    let waits = general_waits(&commands, None, is_dispatch);
    assert!(waits.is_empty(), "{commands:?}");
}

#[test]
fn a_draw_writing_a_heap_texture_after_a_heap_read_in_its_pass_is_refused() {
    // A fragment shader writing the heap's texture through a storage binding, in a pass
    // whose earlier draws read the heap. The recording meets the texture before the pass
    // (an earlier pass's draw wrote it) or only in the pass; either way the write cannot
    // be ordered after the reads inside the pass, and the draw is refused.
    let s = heap_scene();
    let module =
        s.d.create_shader_module(&ShaderModuleDescriptor {
            label: "store",
            wgsl: "@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;
@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0, 0.0, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> {
    textureStore(t, vec2<i32>(0, 0), vec4<f32>(1.0));
    return vec4<f32>(1.0);
}",
        })
        .unwrap();
    let bgl = layout(
        &s.d,
        &[entry(
            0,
            ShaderStages::FRAGMENT,
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::Rgba8Unorm,
                view_dimension: TextureViewDimension::D2,
            },
        )],
    );
    let pl =
        s.d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "store",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let store =
        s.d.create_render_pipeline(&RenderPipelineDescriptor {
            label: "store",
            layout: pl,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &[],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState {
                topology: PrimitiveTopology::PointList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: vigil_hal::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .unwrap();
    let g = group(&s.d, bgl, &[(0, BindingResource::TextureView(s.view))]).unwrap();
    let write_draw = |e: &mut CommandEncoder<TestApi>| {
        e.set_render_pipeline(store).unwrap();
        e.set_bind_group(0, g, &[]).unwrap();
        e.draw(0..1, 0..1)
    };
    let read_draws = |e: &mut CommandEncoder<TestApi>| {
        open_pass(e, s.target, Some(s.draw));
        e.set_root(s.root).unwrap();
        e.set_texture_heap(s.textures).unwrap();
        e.set_sampler_heap(s.samplers).unwrap();
        // Two reads: the second finds the pass's scope already holding the first's.
        e.draw(0..3, 0..1).unwrap();
        e.draw(0..3, 0..1).unwrap();
    };
    // The same write from a render bundle, executed after the reads: refused as well.
    let mut b =
        s.d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
            label: "store",
            color_formats: &[Some(TextureFormat::Rgba8Unorm)],
            ..Default::default()
        })
        .unwrap();
    b.set_render_pipeline(store).unwrap();
    b.set_bind_group(0, g, &[]).unwrap();
    b.draw(0..1, 0..1).unwrap();
    let bundle = b.finish().unwrap();
    for from_bundle in [false, true] {
        for met_before in [false, true] {
            let mut e = encoder(&s.d);
            if met_before {
                open_pass(&mut e, s.target, None);
                write_draw(&mut e).unwrap();
                e.end_render_pass().unwrap();
            }
            read_draws(&mut e);
            let write = if from_bundle {
                e.execute_bundles(&[bundle])
            } else {
                write_draw(&mut e)
            };
            expect_rule(write, Rule::PassUsageConflict);
        }
    }
    // In the next pass the write is ordered after the reads, and recorded.
    let mut e = encoder(&s.d);
    read_draws(&mut e);
    e.end_render_pass().unwrap();
    open_pass(&mut e, s.target, None);
    write_draw(&mut e).unwrap();
    e.end_render_pass().unwrap();
    s.d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn a_texture_entering_a_heap_after_a_recording_read_it_and_wrote_the_texture_is_refused() {
    // Heap reads sample what the slots hold when the work runs. A recording reads the heap
    // while its slot names another texture, then writes the storage texture; before it is
    // submitted the texture enters the heap, so the read would sample it with nothing
    // ordering it against the write: refused at submission. Had the texture entered
    // before the recording read the heap, the recording orders the two, and it goes in.
    let s = heap_scene();
    let other =
        s.d.create_texture(&TextureDescriptor {
            label: "other",
            size: [1, 1],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let other =
        s.d.create_texture_view(other, &TextureViewDescriptor::default())
            .unwrap();
    let record = || {
        let mut e = encoder(&s.d);
        s.read(&mut e);
        s.write(&mut e);
        e.finish().unwrap()
    };
    s.d.write_texture_heap(s.textures, 0, &[other]).unwrap();
    let cb = record();
    s.d.write_texture_heap(s.textures, 0, &[s.view]).unwrap();
    expect_rule(s.d.submit([cb]), Rule::GpuHeapResident);
    // Entered before the recording: submitted, the write waiting for the read.
    let cb = record();
    s.d.submit([cb]).unwrap();
    let commands = last_commands(&s.d);
    assert_eq!(
        general_waits(&commands, Some(is_pass_end), is_dispatch).len(),
        1,
        "{commands:?}"
    );
}

/// A run of `draw_root` (each draw after the first checking only its root) ends at any
/// other call, the short paths' included: a vertex buffer bound by `set_vertex_buffer`'s
/// short path (a buffer the recording met as a vertex buffer before) between two
/// `draw_root`s joins the pass's scope at the second, so the pass waits for the write
/// before it.
#[test]
fn a_short_path_call_ends_a_run_of_draw_root() {
    use vigil::hal_test::{Stages, TestCommand as C};
    let d = bda();
    let p = root_pipeline(&d);
    let h = heap(&d, 256, HeapKind::CpuVisible).unwrap();
    let root = d.gpu_heap_ptr::<[f32; 6]>(h, 0).unwrap();
    let v = target_view(&d, [4, 4]);
    let vb = buffer(&d, "vb", 256, BufferUsages::VERTEX | BufferUsages::COPY_DST);
    let mut e = encoder(&d);
    // The first pass meets the buffer as a vertex buffer (the checked path), so the
    // second pass's bind of it takes the short path.
    open_pass(&mut e, v, Some(p));
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw_root(root, 0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    e.clear_buffer(vb, 0, None).unwrap();
    open_pass(&mut e, v, Some(p));
    e.draw_root(root, 0..3, 0..1).unwrap();
    e.draw_root(root, 0..3, 0..1).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.draw_root(root, 0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let commands = last_commands(&d);
    // What runs between the clear (the recording's last fill of the buffer, after any
    // zero fill a submission puts first) and the second pass waits for the clear.
    let clear = commands
        .iter()
        .rposition(|c| matches!(c, C::FillBuffer { size: 256, .. }))
        .unwrap();
    let waits = commands[clear..]
        .iter()
        .take_while(|c| !matches!(c, C::BeginRenderPass(..)))
        .fold(Stages::empty(), |s, c| match c {
            C::Barrier(m) => s | m.dst,
            C::BufferBarrier { dst, .. } => s | dst.0,
            _ => s,
        });
    assert!(
        waits.contains(Stages::VERTEX_INPUT),
        "the second pass's vertex input does not wait for the clear (only {waits:?})"
    );
}
