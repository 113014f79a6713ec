//! Texture and sampler heaps of the GPU-pointer tier on a real device with the validation
//! layer (synchronization validation included) on: 10,000 textures drawn by index from
//! one heap, slots rewritten and emptied by destroys between frames, and the checks on
//! heaps, their slots and the textures they name — every result read back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, gpu_requiring, heaps};
use std::time::Duration;
use vigil::*;

fn device() -> Gpu {
    gpu_requiring(Features::DESCRIPTOR_HEAPS, "gpu heaps")
}

/// The frame is `SIDE × SIDE` pixels; point `i` lands on pixel `(i % SIDE, i / SIDE)`.
const SIDE: u32 = 100;
const COUNT: u32 = SIDE * SIDE;

/// One point per texture, at its pixel's centre, carrying its slot number.
const POINTS_VS: &str = "
layout(location = 0) flat out uint slot;
void main() {
    uint i = uint(gl_VertexIndex);
    vec2 pixel = vec2(float(i % 100u), float(i / 100u)) + 0.5;
    gl_Position = vec4(pixel / 50.0 - 1.0, 0.0, 1.0);
    gl_PointSize = 1.0;
    slot = i;
}
";

/// Samples slot `slot` of the texture heap with slot 0 of the sampler heap.
const POINTS_FS: &str = "
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(location = 0) flat in uint slot;
layout(location = 0) out vec4 color;
void main() {
    color = texture(sampler2D(vigil_texture(slot), vigil_sampler(0)), vec2(0.5));
}
";

/// Texture `i`'s one texel.
fn texel(i: u32) -> [u8; 4] {
    [
        (i & 0xff) as u8,
        (i >> 8) as u8,
        (i.wrapping_mul(37) & 0xff) as u8,
        255,
    ]
}

fn texture_of(d: &Device, label: &str, usage: TextureUsages) -> (Texture, TextureView) {
    made(
        d,
        &TextureDescriptor {
            label,
            size: [1, 1],
            format: TextureFormat::Rgba8Unorm,
            usage,
            ..TextureDescriptor::default()
        },
    )
}

/// A texture made from `desc`, and its default view.
fn made(d: &Device, desc: &TextureDescriptor<'_>) -> (Texture, TextureView) {
    let t = d.create_texture(desc).unwrap();
    let v = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    (t, v)
}

fn points_pipeline(d: &Device) -> RenderPipeline {
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    d.create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
        label: "points",
        vertex_glsl: POINTS_VS,
        fragment: Some((POINTS_FS, &targets)),
        primitive: PrimitiveState {
            topology: PrimitiveTopology::PointList,
            ..PrimitiveState::default()
        },
        depth_stencil: None,
        sample_count: 1,
        cache: None,
    })
    .unwrap()
}

struct Frame {
    target: Texture,
    view: TextureView,
    root: GpuPtr<u64>,
    pipeline: RenderPipeline,
}

fn frame(d: &Device) -> Frame {
    let (target, view) = common::readable_target(d, [SIDE, SIDE]);
    // The shaders read nothing through the root, but every tier draw takes one.
    let heap = d
        .create_gpu_heap(&GpuHeapDescriptor {
            label: "root",
            size: 64,
            kind: HeapKind::CpuVisible,
        })
        .unwrap();
    let root = d.gpu_heap_ptr::<u64>(heap, 0).unwrap();
    Frame {
        target,
        view,
        root,
        pipeline: points_pipeline(d),
    }
}

/// An encoder in a render pass over the frame's target, the points pipeline and the root
/// set (no heaps yet).
fn points_pass(d: &Device, f: &Frame, label: &'static str) -> CommandEncoder {
    let mut e = common::clear_pass(d, label, f.view, [0.0, 0.0, 0.0, 0.0]);
    e.set_render_pipeline(f.pipeline).unwrap();
    e.set_root(f.root).unwrap();
    e
}

/// Draws the `COUNT` points with `textures` and `samplers` set, returns the pixels.
fn draw(d: &Device, f: &Frame, textures: TextureHeap, samplers: SamplerHeap) -> Vec<[u8; 4]> {
    let mut e = points_pass(d, f, "points");
    e.set_texture_heap(textures).unwrap();
    e.set_sampler_heap(samplers).unwrap();
    e.draw(0..COUNT, 0..1).unwrap();
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(60))
        .unwrap();
    d.read_texture(f.target, TexelCopyTextureInfo::default(), [SIDE, SIDE])
        .unwrap()
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// Begins a render pass in `e` over the frame's target (cleared), with the points
/// pipeline, the root and both heaps set.
fn points_in(e: &mut CommandEncoder, f: &Frame, textures: TextureHeap, samplers: SamplerHeap) {
    e.begin_render_pass(&RenderPassDescriptor {
        label: "points",
        color_attachments: &[Some(RenderPassColorAttachment {
            view: f.view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0, 0.0, 0.0, 0.0]),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(f.pipeline).unwrap();
    e.set_root(f.root).unwrap();
    e.set_texture_heap(textures).unwrap();
    e.set_sampler_heap(samplers).unwrap();
}

/// A buffer holding one texel, (200, 100, 50, 255), to copy into a texture.
fn texel_source(d: &Device) -> Buffer {
    d.create_buffer_init(&BufferInitDescriptor {
        label: "texel",
        contents: &[200, 100, 50, 255],
        usage: BufferUsages::COPY_SRC,
    })
    .unwrap()
}

fn nearest(d: &Device) -> Sampler {
    d.create_sampler(&SamplerDescriptor {
        label: "nearest",
        ..SamplerDescriptor::default()
    })
    .unwrap()
}

#[test]
fn ten_thousand_textures_are_drawn_by_index_from_one_heap() {
    let d = device();
    let f = frame(&d);
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST;
    let (textures, views): (Vec<Texture>, Vec<TextureView>) = (0..COUNT)
        .map(|i| texture_of(&d, &format!("t{i}"), usage))
        .unzip();
    for (i, &t) in (0u32..).zip(&textures) {
        d.write_texture(
            t,
            TexelCopyTextureInfo::default(),
            &texel(i),
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 4,
                rows_per_image: None,
            },
            [1, 1, 1],
        )
        .unwrap();
    }
    let heap = d
        .create_texture_heap(&TextureHeapDescriptor {
            label: "ten thousand",
            slots: COUNT,
        })
        .unwrap();
    d.write_texture_heap(heap, 0, &views).unwrap();
    let samplers = d
        .create_sampler_heap(&SamplerHeapDescriptor {
            label: "samplers",
            slots: 4,
        })
        .unwrap();
    d.write_sampler_heap(samplers, 0, &[nearest(&d)]).unwrap();
    let pixels = draw(&d, &f, heap, samplers);
    for i in 0..COUNT {
        assert_eq!(pixels[i as usize], texel(i), "pixel {i}");
    }

    // Slot 7 rewritten to texture 9's view, slot 8 copied from slot 3 (both now read the
    // texture they name), texture 5 destroyed (its slot reads the zero placeholder), slot
    // 6's view destroyed likewise: the next frame shows each.
    d.write_texture_heap(heap, 7, &[views[9]]).unwrap();
    d.copy_texture_heap(heap, 3, heap, 8, 1).unwrap();
    d.destroy_texture(textures[5]).unwrap();
    d.destroy_texture_view(views[6]).unwrap();
    let pixels = draw(&d, &f, heap, samplers);
    for i in 0..COUNT {
        let want = match i {
            7 => texel(9),
            8 => texel(3),
            5 | 6 => [0, 0, 0, 0],
            _ => texel(i),
        };
        assert_eq!(pixels[i as usize], want, "pixel {i} after the rewrites");
    }
    d.finish();
}

#[test]
fn a_texture_in_a_heap_keeps_its_sampled_layout_until_it_leaves() {
    let d = device();
    let f = frame(&d);
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST;
    let (t, v) = texture_of(&d, "resident", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    // Never written: the heap's first submission zeroes it, as WebGPU textures start.
    // Points 1.. index past the heap's one slot: they read the zero placeholder (the set
    // has every slot a shader can name, and the macros clamp indices), not memory.
    let pixels = draw(&d, &f, heap, samplers);
    assert_eq!(pixels[0], [0, 0, 0, 0]);
    assert!(pixels[1..].iter().all(|p| *p == [0, 0, 0, 0]));

    // A copy into it while a heap names it: refused at submission, and nothing changes.
    let source = texel_source(&d);
    let copy = |d: &Device| {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .unwrap();
        e.copy_buffer_to_texture(
            source,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 256,
                rows_per_image: None,
            },
            t,
            TexelCopyTextureInfo::default(),
            [1, 1, 1],
        )
        .unwrap();
        e.finish().unwrap()
    };
    let err = d.submit([copy(&d)]).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    assert_eq!(draw(&d, &f, heap, samplers)[0], [0, 0, 0, 0]);

    // Out of the heap (its slot rewritten with another view), the copy goes through; back
    // in, the heap's next frame samples what it wrote.
    let (_, other) = texture_of(&d, "other", usage);
    d.write_texture_heap(heap, 0, &[other]).unwrap();
    let serial = d.submit([copy(&d)]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let pixels = draw(&d, &f, heap, samplers);
    assert_eq!(pixels[0], [200, 100, 50, 255]);
    assert!(pixels[1..].iter().all(|p| *p == [0, 0, 0, 0]));

    // A clear while the heap names it (`clear_texture` needs no COPY_DST usage, and is a
    // transfer write all the same): refused at submission, the texel kept.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "clear" })
        .unwrap();
    e.clear_texture(t, &ImageSubresourceRange::default())
        .unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    assert_eq!(draw(&d, &f, heap, samplers)[0], [200, 100, 50, 255]);
    d.finish();
}

#[test]
fn a_texture_in_a_heap_cleared_as_an_attachment_is_refused_at_submission_or_at_a_heap_read() {
    // A pass clearing a texture on the recording's first use of it records the texture's
    // barrier in front of the pass, unless a heap names the texture: then its first use is
    // left to submission, which refuses it (the texture must stay in its sampled layout).
    // A read of the texture heap later in the same recording is refused where it is
    // recorded (`gpu.heap-resident`), as for a texture that entered the heap after the
    // clear (the next test): heap shaders would sample it where the recording left it an
    // attachment. The validation layer, synchronization checks on, sees nothing amiss in
    // what is recorded.
    let d = device();
    let f = frame(&d);
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::RENDER_ATTACHMENT;
    let (_t, v) = texture_of(&d, "resident", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    assert_eq!(draw(&d, &f, heap, samplers)[0], [0, 0, 0, 0]);
    let mut e = common::clear_pass(&d, "clear the resident", v, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    // The clear, then a compute pass reading the heap, in the same native command buffer
    // (a render pass's stays open for what follows): refused at the dispatch.
    let kernel = heaps::slot_zero_sampler(&d);
    let mut e = common::clear_pass(&d, "clear, then read", v, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    let err = heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    assert!(err.to_string().contains("'resident'"), "{err}");
    // A draw reading it after the clear, likewise.
    let mut e = common::clear_pass(&d, "clear, then draw", v, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    points_in(&mut e, &f, heap, samplers);
    let err = e.draw(0..COUNT, 0..1).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    // Nothing ran: the heap still samples the zeroed texture.
    assert_eq!(draw(&d, &f, heap, samplers)[0], [0, 0, 0, 0]);
    assert_eq!(sampled_red(&d, kernel, heap, samplers), 0);
    d.finish();
}

/// The root's value after one dispatch of `sample` reading slot 0 of `heap` (the red
/// channel of what it names, 0–255), recorded alone and waited for.
fn sampled_red(
    d: &Device,
    (sample, counter): (ComputePipeline, GpuHeap),
    heap: TextureHeap,
    samplers: SamplerHeap,
) -> u32 {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "sample" })
        .unwrap();
    heaps::sample_in_pass(d, &mut e, (sample, counter), heap, samplers).unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(60))
        .unwrap();
    heaps::root_value(d, counter)
}

#[test]
fn a_texture_cleared_and_then_put_in_a_heap_the_same_recording_reads_is_refused_at_the_read() {
    // The fuzzer's seed 6398 on the H200: a recording clears a texture as an attachment
    // while no heap names it (so the pass records the texture's barrier in front of
    // itself); then a view of the texture enters a heap, and the same recording reads that
    // heap. The read would sample the texture in its sampled layout where the recording
    // left it an attachment (the validation layer called it a hazard as the dispatch was
    // recorded): refused at the read, before anything is recorded.
    let d = device();
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::RENDER_ATTACHMENT;
    let (_t, v) = texture_of(&d, "late resident", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    let kernel = heaps::slot_zero_sampler(&d);
    let mut e = common::clear_pass(&d, "clear, then read", v, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let err = heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    assert!(err.to_string().contains("late resident"), "{err}");
    // The encoder stays refused, and nothing of it ran: the heap samples the texture as
    // it starts, zeroed.
    assert!(e.finish().is_err());
    assert_eq!(sampled_red(&d, kernel, heap, samplers), 0);
    // In that order across recordings, it is fine: a texture cleared and submitted while
    // no heap names it (its slot rewritten with another view), then put back, is read
    // there with what the clear wrote.
    let (_, other) = texture_of(&d, "other", usage);
    d.write_texture_heap(heap, 0, &[other]).unwrap();
    let mut e = common::clear_pass(&d, "clear", v, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    assert_eq!(sampled_red(&d, kernel, heap, samplers), 255);
    d.finish();
}

#[test]
fn a_texture_in_a_heap_copied_into_or_rendered_to_after_a_heap_read_is_refused_at_submission() {
    // The other order: the recording reads a heap naming the texture, then copies into it
    // or renders to it. The recording's first use of the texture is the copy or the pass,
    // whose barrier is left to submission; nothing recorded stands between the read and
    // the write (the validation layer, synchronization checks on, would say so), and
    // submission refuses the command buffer (`gpu.heap-resident`).
    let d = device();
    let usage =
        TextureUsages::TEXTURE_BINDING | TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_DST;
    let (t, v) = texture_of(&d, "resident", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    let kernel = heaps::slot_zero_sampler(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let source = texel_source(&d);
    let read_first = || {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor {
                label: "read first",
            })
            .unwrap();
        heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap();
        e
    };
    let mut copy = read_first();
    copy.copy_buffer_to_texture(
        source,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        t,
        TexelCopyTextureInfo::default(),
        [1, 1, 1],
    )
    .unwrap();
    let mut render = read_first();
    render
        .begin_render_pass(&RenderPassDescriptor {
            label: "load",
            color_attachments: &[Some(common::loaded(v))],
            ..Default::default()
        })
        .unwrap();
    render.end_render_pass().unwrap();
    for e in [copy, render] {
        let err = d.submit([e.finish().unwrap()]).unwrap_err();
        assert_eq!(err.rule(), Rule::GpuHeapResident, "{err}");
    }
    // Nothing ran; the heap's texture is still the zeroed one.
    assert_eq!(sampled_red(&d, kernel, heap, samplers), 0);
    d.finish();
}

#[test]
fn a_heap_read_after_a_storage_write_of_its_texture_in_the_same_recording_is_ordered() {
    // The fuzzer's seed 22482 on lavapipe: a texture with storage usage (its sampled layout
    // is GENERAL, the storage layout too) sits in a heap; a dispatch writes it through a
    // storage binding, and a later dispatch of the same recording reads it through the
    // heap. The read is a use of the texture like any other now: the tracker orders the
    // write before it (the validation layer, synchronization checks on, reported the
    // hazard before), and the read sees what the write wrote.
    let d = device();
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING;
    let (_t, v) = texture_of(&d, "written in a heap", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    let kernel = heaps::slot_zero_sampler(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let (fill, group) = heaps::storage_fill(&d, v);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "write, then read",
        })
        .unwrap();
    heaps::fill_in_pass(&mut e, (fill, group));
    heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    assert_eq!(heaps::root_value(&d, kernel.1), 204);
    // The same write, then a render pass whose draw reads the heap: the read joins the
    // pass's scope, whose barrier goes in front of the pass; point 0 samples slot 0.
    // (With the read left out of the scope, the layer reported nothing in this case
    // either; the pixel is the check here, and `rules_gpu.rs` checks the barrier itself.)
    let f = frame(&d);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "write, then draw",
        })
        .unwrap();
    heaps::fill_in_pass(&mut e, (fill, group));
    points_in(&mut e, &f, heap, samplers);
    e.draw(0..1, 0..1).unwrap();
    e.end_render_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let pixels = d
        .read_texture(f.target, TexelCopyTextureInfo::default(), [SIDE, SIDE])
        .unwrap();
    assert_eq!(&pixels[..4], &[204, 0, 0, 255]);
    d.finish();
}

#[test]
fn heaps_and_their_slots_are_checked() {
    let d = device();
    let f = frame(&d);
    let rule = |r: Result<()>| r.unwrap_err().rule();
    for slots in [0, vigil_hal::TEXTURE_HEAP_SLOTS + 1] {
        let err = d
            .create_texture_heap(&TextureHeapDescriptor { label: "t", slots })
            .unwrap_err();
        assert_eq!(err.rule(), Rule::GpuHeapSlots, "{slots} slots: {err}");
    }
    let err = d
        .create_sampler_heap(&SamplerHeapDescriptor {
            label: "s",
            slots: vigil_hal::SAMPLER_HEAP_SLOTS + 1,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapSlots);
    let heap = d
        .create_texture_heap(&TextureHeapDescriptor {
            label: "four",
            slots: 4,
        })
        .unwrap();
    let samplers = d
        .create_sampler_heap(&SamplerHeapDescriptor {
            label: "two",
            slots: 2,
        })
        .unwrap();
    let (_, v) = texture_of(&d, "ok", TextureUsages::TEXTURE_BINDING);
    assert_eq!(
        rule(d.write_texture_heap(heap, 3, &[v, v])),
        Rule::GpuHeapSlots
    );
    assert_eq!(
        rule(d.copy_texture_heap(heap, 2, heap, 0, 3)),
        Rule::GpuHeapSlots
    );
    // What a slot may hold.
    let (_, unsampled) = texture_of(&d, "unsampled", TextureUsages::RENDER_ATTACHMENT);
    assert_eq!(
        rule(d.write_texture_heap(heap, 0, &[unsampled])),
        Rule::GpuHeapEntry
    );
    let (_, uint) = made(
        &d,
        &TextureDescriptor {
            label: "uint",
            size: [1, 1],
            format: TextureFormat::R32Uint,
            usage: TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        },
    );
    assert_eq!(
        rule(d.write_texture_heap(heap, 0, &[uint])),
        Rule::GpuHeapEntry
    );
    let (_, array) = made(
        &d,
        &TextureDescriptor {
            label: "layers",
            size: [1, 1],
            array_layers: 2,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        },
    );
    assert_eq!(
        rule(d.write_texture_heap(heap, 0, &[array])),
        Rule::GpuHeapEntry
    );
    let comparison = d
        .create_sampler(&SamplerDescriptor {
            label: "comparison",
            compare: Some(CompareFunction::Less),
            ..SamplerDescriptor::default()
        })
        .unwrap();
    assert_eq!(
        rule(d.write_sampler_heap(samplers, 0, &[comparison])),
        Rule::GpuHeapEntry
    );
    // A refused write changes nothing: the slots still hold the placeholder.
    let pixels = draw(&d, &f, heap, samplers);
    assert_eq!(pixels[0], [0, 0, 0, 0]);
    // Stale handles.
    let destroyed = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    d.destroy_sampler(destroyed).unwrap();
    assert_eq!(
        rule(d.write_sampler_heap(samplers, 0, &[destroyed])),
        Rule::HandleStale
    );

    // A heap destroyed between recording and submission: the submission is refused.
    let mut e = points_pass(&d, &f, "late");
    e.set_texture_heap(heap).unwrap();
    e.set_sampler_heap(samplers).unwrap();
    e.draw(0..1, 0..1).unwrap();
    e.end_render_pass().unwrap();
    let cb = e.finish().unwrap();
    d.destroy_texture_heap(heap).unwrap();
    assert_eq!(d.submit([cb]).unwrap_err().rule(), Rule::SubmitDestroyed);
    assert_eq!(rule(d.write_texture_heap(heap, 0, &[v])), Rule::HandleStale);
    // A draw whose shaders index a heap not set in its pass (each probe its own encoder:
    // a refused call poisons the encoder).
    for set_textures in [false, true] {
        let mut e = points_pass(&d, &f, "probe");
        let other = d
            .create_texture_heap(&TextureHeapDescriptor {
                label: "other",
                slots: 1,
            })
            .unwrap();
        if set_textures {
            e.set_texture_heap(other).unwrap();
        }
        assert_eq!(rule(e.draw(0..1, 0..1)), Rule::GpuHeapUnset);
    }
    // Heaps are set inside passes.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "outside" })
        .unwrap();
    assert_eq!(rule(e.set_sampler_heap(samplers)), Rule::GpuHeapUnset);
    d.finish();
}

#[test]
fn heaps_need_their_feature() {
    let d = gpu_requiring(Features::BUFFER_DEVICE_ADDRESS, "no heaps");
    let err = d
        .create_texture_heap(&TextureHeapDescriptor {
            label: "t",
            slots: 1,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapFeature, "{err}");
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let err = d
        .create_pointer_render_pipeline(&PointerRenderPipelineDescriptor {
            label: "points",
            vertex_glsl: POINTS_VS,
            fragment: Some((POINTS_FS, &targets)),
            primitive: PrimitiveState {
                topology: PrimitiveTopology::PointList,
                ..PrimitiveState::default()
            },
            depth_stencil: None,
            sample_count: 1,
            cache: None,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::GpuHeapFeature, "{err}");
    d.finish();
}

#[test]
fn a_storage_write_after_a_heap_read_in_the_same_recording_waits_for_the_read() {
    // The reverse of the test above: the heap read comes first and the storage write
    // later, and the recording meets the texture only at the write. The read is taken as
    // the texture's first use in the recording, so the tracker orders the write after it
    // (the validation layer reported SYNC-HAZARD-WRITE-AFTER-READ at the writing dispatch
    // before). In a render pass the two cannot be ordered: a draw writing the texture
    // after a draw of the same pass read the heap is refused.
    let d = device();
    let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING;
    let (_t, v) = texture_of(&d, "read, then written", usage);
    let (heap, samplers) = heaps::one_slot_heaps(&d);
    let kernel = heaps::slot_zero_sampler(&d);
    d.write_texture_heap(heap, 0, &[v]).unwrap();
    let fill = heaps::storage_fill(&d, v);
    let encoder = |label| {
        d.create_command_encoder(&CommandEncoderDescriptor { label })
            .unwrap()
    };
    let run = |e: CommandEncoder| {
        let serial = d.submit([e.finish().unwrap()]).unwrap();
        d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
            .unwrap();
    };
    // A heap read in a later command buffer: submission makes the write visible to it.
    let sample_after = || {
        let mut e = encoder("sample");
        heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap();
        run(e);
        heaps::root_value(&d, kernel.1)
    };
    // A dispatch reads the heap (the texel is zero, as every texture starts), then a
    // dispatch writes the texture.
    let mut e = encoder("read, then write");
    heaps::sample_in_pass(&d, &mut e, kernel, heap, samplers).unwrap();
    heaps::fill_in_pass(&mut e, fill);
    run(e);
    assert_eq!(heaps::root_value(&d, kernel.1), 0);
    assert_eq!(sample_after(), 204);
    // A draw reads the heap (point 0 samples slot 0), then a draw of the next pass writes
    // the texture in its fragment shader: the write waits for the first pass.
    let f = frame(&d);
    let store = fragment_store(&d, v);
    let mut e = encoder("draw reads, a later pass writes");
    points_in(&mut e, &f, heap, samplers);
    e.draw(0..1, 0..1).unwrap();
    e.end_render_pass().unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        label: "writes",
        color_attachments: &[Some(common::loaded(f.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(store.0).unwrap();
    e.set_bind_group(0, store.1, &[]).unwrap();
    e.draw(0..1, 0..1).unwrap();
    e.end_render_pass().unwrap();
    run(e);
    let pixels = d
        .read_texture(f.target, TexelCopyTextureInfo::default(), [SIDE, SIDE])
        .unwrap();
    assert_eq!(&pixels[..4], &[204, 0, 0, 255]);
    assert_eq!(sample_after(), 51);
    // The same two draws in one pass: the second is refused, nothing of it recorded.
    let mut e = encoder("draw reads, a draw of the pass writes");
    points_in(&mut e, &f, heap, samplers);
    e.draw(0..1, 0..1).unwrap();
    e.set_render_pipeline(store.0).unwrap();
    e.set_bind_group(0, store.1, &[]).unwrap();
    let err = e.draw(0..1, 0..1).unwrap_err();
    assert_eq!(err.rule(), Rule::PassUsageConflict, "{err}");
    d.finish();
}

/// A point-list pipeline drawing one point in the far corner of the frame, whose fragment
/// shader writes (51, 0, 0, 255) to texel (0, 0) of `v` through a storage binding, and
/// its group.
fn fragment_store(d: &Device, v: TextureView) -> (RenderPipeline, BindGroup) {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "store",
            wgsl: "@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;
@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.99, 0.99, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> {
    textureStore(t, vec2<i32>(0, 0), vec4<f32>(0.2, 0.0, 0.0, 1.0));
    return vec4<f32>(1.0);
}",
        })
        .unwrap();
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "store",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::FRAGMENT,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
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
    let pipeline = d
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "store",
            layout,
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
            multisample: MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "store",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(v),
            }],
        })
        .unwrap();
    (pipeline, group)
}
