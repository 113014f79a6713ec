//! Work on two queues of one native device ordered by timeline waits on the GPU, on the real
//! device with the validation layer (synchronization validation included) on:
//!
//! - a GPU heap shared between the devices (`share_gpu_heap`), written by a pointer
//!   dispatch on one queue and read by a pointer dispatch on the other, which waits for it
//!   explicitly (`submit_after`): with the producer's work held back on the GPU (the test
//!   seams' gate) the consumer's submission returns at once and does not complete until the
//!   held work is let go, and every word read back is the one the producer wrote — in both
//!   directions;
//! - frames rendered into a texture by the device that draws and copied out by the other
//!   through a registration (the implicit waits of shared textures, whose barriers on a
//!   queue that does not draw name only its own stages).
//!
//! The other device is on the adapter's compute-only queue family (`ASYNC_COMPUTE`: the
//! H200's async compute family). On an adapter without one (lavapipe) that is refused with
//! `device.compute-queue`, which is checked, and the same work runs between two devices on
//! the one queue (`share`), where the waits are timeline waits on that queue. With
//! `VIGIL_EXPECT_COMPUTE_QUEUE` set (the H200 runs set it) a refusal fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, gpu_with};
use std::time::Duration;
use vigil::*;

const N: u32 = 4096;

fn first_device() -> Gpu {
    gpu_with(|adapter| DeviceDescriptor {
        label: "draws".into(),
        required_features: adapter.features()
            & (Features::ASYNC_COMPUTE | Features::BUFFER_DEVICE_ADDRESS),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    })
}

/// The device on the compute queue, or (after checking the refusal, where the adapter has
/// no compute-only family) a device on the first device's queue.
fn other_device(first: &Device) -> Device {
    let expected = std::env::var_os("VIGIL_EXPECT_COMPUTE_QUEUE").is_some();
    match first.share_on_compute_queue() {
        Ok(c) => {
            assert!(!c.queue_draws());
            assert!(first.queue_draws());
            assert_ne!(c.queue_index(), first.queue_index());
            c
        }
        Err(e) => {
            assert_eq!(e.rule(), Rule::DeviceComputeQueue, "{e}");
            assert!(
                !expected,
                "VIGIL_EXPECT_COMPUTE_QUEUE is set but the device refused: {e}"
            );
            assert!(!first.features().contains(Features::ASYNC_COMPUTE));
            eprintln!(
                "{}: no compute-only queue family, the refusal checked; the devices share one queue",
                first.adapter_info().name
            );
            first.share().unwrap()
        }
    }
}

/// Writes `words[i] = i * seed + 1` for `i < n`.
const FILL: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Words words; uint n; uint seed; };
VIGIL_ROOT(Root);
layout(local_size_x = 64) in;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < vigil.root.n) { vigil.root.words.v[i] = i * vigil.root.seed + 1u; }
}
";

/// Writes `dst[i] = src[i] * 2 + 1` for `i < n`.
const DOUBLE: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Words src; Words dst; uint n; uint pad; };
VIGIL_ROOT(Root);
layout(local_size_x = 64) in;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < vigil.root.n) { vigil.root.dst.v[i] = vigil.root.src.v[i] * 2u + 1u; }
}
";

/// One device's side: its two pipelines and a CPU-visible heap for its roots.
struct Side {
    fill: ComputePipeline,
    double: ComputePipeline,
    roots: GpuHeap,
}

fn side(d: &Device, label: &'static str) -> Side {
    let pipeline = |glsl| {
        d.create_pointer_compute_pipeline(&PointerComputePipelineDescriptor {
            label,
            glsl,
            cache: None,
        })
        .unwrap()
    };
    Side {
        fill: pipeline(FILL),
        double: pipeline(DOUBLE),
        roots: d
            .create_gpu_heap(&GpuHeapDescriptor {
                label,
                size: 256,
                kind: HeapKind::CpuVisible,
            })
            .unwrap(),
    }
}

/// Records one pointer dispatch over `N` words with `root` (24 bytes) in the side's root
/// heap: the fill's at its start, the doubling's after it (both may be in flight at once).
fn dispatch(d: &Device, s: &Side, pipeline: ComputePipeline, root: &[u8]) -> CommandBuffer {
    let at = if pipeline == s.fill { 0 } else { 64 };
    d.write_gpu_heap(s.roots, at, root).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "dispatch" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_root(d.gpu_heap_ptr::<[u64; 3]>(s.roots, at).unwrap())
        .unwrap();
    e.dispatch(N / 64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.finish().unwrap()
}

fn fill_root(words: u64, seed: u32) -> Vec<u8> {
    [
        words.to_le_bytes().as_slice(),
        &N.to_le_bytes(),
        &seed.to_le_bytes(),
        &[0; 8],
    ]
    .concat()
}

fn double_root(src: u64, dst: u64) -> Vec<u8> {
    [
        src.to_le_bytes().as_slice(),
        &dst.to_le_bytes(),
        &N.to_le_bytes(),
        &0u32.to_le_bytes(),
    ]
    .concat()
}

/// Asserts `got == want`, naming the first word that differs (not printing thousands).
#[track_caller]
fn same(got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let wrong = (0..got.len()).filter(|&i| got[i] != want[i]).count();
        panic!(
            "{wrong} of {} words differ; the first is word {i}: {} where {} was written",
            got.len(),
            got[i],
            want[i]
        );
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `producer` fills `data` (its handle) with `seed`, held back on the GPU; `consumer`
/// doubles it into `out` after an explicit wait, and must not finish before the fill is
/// let go. Returns what `consumer` wrote, read through `reader`'s handle of `out`.
fn produce_then_consume(
    producer: (&Device, &Side, GpuHeap),
    consumer: (&Device, &Side, GpuHeap, GpuHeap),
    seed: u32,
) -> Vec<u32> {
    let (p, ps, p_data) = producer;
    let (c, cs, c_data, c_out) = consumer;
    let data_at = |d: &Device, h| d.gpu_heap_ptr::<u32>(h, 0).unwrap().address();
    p.seams().pause_submissions().unwrap();
    let filled = p
        .submit([dispatch(
            p,
            ps,
            ps.fill,
            &fill_root(data_at(p, p_data), seed),
        )])
        .unwrap();
    let cb = dispatch(
        c,
        cs,
        cs.double,
        &double_root(data_at(c, c_data), data_at(c, c_out)),
    );
    let doubled = c.submit_after([cb], &[(p, filled)]).unwrap();
    assert!(
        !c.wait_for_serial(doubled, Duration::from_millis(200))
            .unwrap(),
        "the consumer's work ran before the work it waits for was let go"
    );
    assert!(!p.wait_for_serial(filled, Duration::ZERO).unwrap());
    p.seams().resume_submissions().unwrap();
    c.wait_for_serial_unless_stalled(doubled, Duration::from_secs(10))
        .unwrap();
    assert!(p.wait_for_serial(filled, Duration::ZERO).unwrap());
    words(&c.read_gpu_heap(c_out, 0, u64::from(N) * 4).unwrap())
}

#[test]
fn heap_memory_crosses_queues_in_the_order_explicit_waits_give() {
    let gpu = first_device();
    let first: &Device = &gpu;
    let other = other_device(first);
    let (fs, os) = (side(first, "first"), side(&other, "other"));
    let size = u64::from(N) * 4;
    let heap = |d: &Device, label, kind| {
        d.create_gpu_heap(&GpuHeapDescriptor { label, size, kind })
            .unwrap()
    };
    let data = heap(first, "data", HeapKind::GpuOnly);
    let data_other = first.share_gpu_heap(data, &other).unwrap();
    let out_other = heap(&other, "out on other", HeapKind::Readback);
    let out_first = heap(first, "out on first", HeapKind::Readback);
    let want = |seed: u32| -> Vec<u32> { (0..N).map(|i| (i * seed + 1) * 2 + 1).collect() };

    // The first queue writes, the other reads.
    let got = produce_then_consume((first, &fs, data), (&other, &os, data_other, out_other), 3);
    same(&got, &want(3));
    // The other queue writes the same memory, the first reads it.
    let got = produce_then_consume((&other, &os, data_other), (first, &fs, data, out_first), 7);
    same(&got, &want(7));
    // The memory lives on through the share once the first device's handle is gone.
    first.destroy_gpu_heap(data).unwrap();
    first.poll().unwrap();
    let again = other
        .submit([dispatch(
            &other,
            &os,
            os.fill,
            &fill_root(
                other.gpu_heap_ptr::<u32>(data_other, 0).unwrap().address(),
                5,
            ),
        )])
        .unwrap();
    let cb = dispatch(
        &other,
        &os,
        os.double,
        &double_root(
            other.gpu_heap_ptr::<u32>(data_other, 0).unwrap().address(),
            other.gpu_heap_ptr::<u32>(out_other, 0).unwrap().address(),
        ),
    );
    let done = other.submit_after([cb], &[(&other, again)]).unwrap();
    other
        .wait_for_serial_unless_stalled(done, Duration::from_secs(10))
        .unwrap();
    same(
        &words(&other.read_gpu_heap(out_other, 0, size).unwrap()),
        &want(5),
    );
    other.destroy_gpu_heap(data_other).unwrap();
    other.poll().unwrap();
    drop(other);
}

#[test]
fn frames_rendered_on_the_queue_that_draws_are_copied_out_on_the_other() {
    const W: u32 = 64;
    const H: u32 = 4;
    let gpu = first_device();
    let producer: &Device = &gpu;
    let consumer = other_device(producer);
    let t = producer
        .create_texture(&TextureDescriptor {
            label: "frame",
            size: [W, H],
            usage: TextureUsages::COPY_SRC
                | TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let view = producer
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let export = producer.export_texture(t).unwrap();
    let r = consumer.register_texture(&export).unwrap();
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: W * 4,
        rows_per_image: None,
    };
    for frame in 0..4u8 {
        let shade = f64::from(frame) * 60.0 / 255.0;
        let mut e = common::clear_pass(producer, "render", view, [shade, 1.0 - shade, 0.5, 1.0]);
        e.end_render_pass().unwrap();
        producer.submit([e.finish().unwrap()]).unwrap();
        let dst = consumer
            .create_buffer(&BufferDescriptor {
                label: "frame readback",
                size: u64::from(W * H * 4),
                usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
            })
            .unwrap();
        let mut e = consumer
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy out" })
            .unwrap();
        e.copy_texture_to_buffer(r, TexelCopyTextureInfo::default(), dst, layout, [W, H, 1])
            .unwrap();
        consumer.submit([e.finish().unwrap()]).unwrap();
        let got = consumer.read_buffer(dst, 0, u64::from(W * H * 4)).unwrap();
        let want = [frame * 60, 255 - frame * 60, 128, 255];
        for px in got.chunks_exact(4) {
            for (c, (&g, &w)) in px.iter().zip(&want).enumerate() {
                assert!(
                    g.abs_diff(w) <= 1,
                    "frame {frame}: channel {c} is {g}, wanted {w}"
                );
            }
        }
        consumer.destroy_buffer(dst).unwrap();
    }
    producer.destroy_texture_view(view).unwrap();
    drop(export);
    consumer.destroy_texture(r).unwrap();
    producer.destroy_texture(t).unwrap();
    drop(consumer);
}

#[test]
fn a_texture_heap_on_the_compute_queue_names_only_its_stages() {
    // A texture enters a heap, a dispatch writes it through a storage binding and a
    // dispatch of the next command buffer reads it through the heap, all on the device
    // on the compute queue. The barriers that make the texture visible to every shader
    // stage that may read it (graphics ones included) name only the compute queue's
    // stages there (the layer checks the masks), and the read sees the write.
    let first = gpu_with(|adapter| DeviceDescriptor {
        label: "draws".into(),
        required_features: adapter.features()
            & (Features::ASYNC_COMPUTE
                | Features::BUFFER_DEVICE_ADDRESS
                | Features::DESCRIPTOR_HEAPS),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    });
    assert!(first.features().contains(Features::DESCRIPTOR_HEAPS));
    let c = other_device(&first);
    let (_t, v) = common::heaps::storage_texture(&c, "in a heap");
    let (textures, samplers) = common::heaps::one_slot_heaps(&c);
    c.write_texture_heap(textures, 0, &[v]).unwrap();
    let fill = common::heaps::storage_fill(&c, v);
    let (sample, counter) = common::heaps::slot_zero_sampler(&c);
    let mut write = c
        .create_command_encoder(&CommandEncoderDescriptor { label: "write" })
        .unwrap();
    common::heaps::fill_in_pass(&mut write, fill);
    let mut read = c
        .create_command_encoder(&CommandEncoderDescriptor { label: "read" })
        .unwrap();
    common::heaps::sample_in_pass(&c, &mut read, (sample, counter), textures, samplers).unwrap();
    let serial = c
        .submit([write.finish().unwrap(), read.finish().unwrap()])
        .unwrap();
    c.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    assert_eq!(common::heaps::root_value(&c, counter), 204);
    drop(c);
    first.finish();
}
