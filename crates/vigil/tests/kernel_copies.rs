//! Buffer copies through vigil's copy kernel (validation layer and synchronization
//! validation on). A discrete GPU takes the kernel for large copies between buffers in
//! device memory; the `copy_by_kernel` seam makes any device take it from a chosen size,
//! with small windows, so its pieces, its barriers against what comes before and after it,
//! and the state a compute pass finds after it are exercised here on every device. Every
//! result is read back and compared with what the copies must leave.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32, src_dst_group, src_dst_kernel};
use vigil::*;

const ALL: BufferUsages = BufferUsages::STORAGE
    .union(BufferUsages::COPY_SRC)
    .union(BufferUsages::COPY_DST);

/// Word `i` of the pattern the sources hold.
fn pattern(i: usize, seed: u32) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) | 1
}

fn filled(d: &Device, label: &str, words: usize, seed: u32) -> (Buffer, Vec<u32>) {
    let data: Vec<u32> = (0..words).map(|i| pattern(i, seed)).collect();
    let b = d
        .create_buffer_init(&BufferInitDescriptor {
            label,
            contents: &bytes_of(&data),
            usage: ALL,
        })
        .unwrap();
    (b, data)
}

fn zeroed(d: &Device, label: &str, words: usize) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label,
        size: words as u64 * 4,
        usage: ALL,
    })
    .unwrap()
}

fn encoder(d: &Device) -> CommandEncoder {
    d.create_command_encoder(&CommandEncoderDescriptor { label: "copies" })
        .unwrap()
}

/// `(src_offset, dst_offset, size)` in bytes applied to a model of the destination.
fn apply(model: &mut [u32], src: &[u32], (so, dso, size): (u64, u64, u64)) {
    let (s, t, n) = ((so / 4) as usize, (dso / 4) as usize, (size / 4) as usize);
    model[t..t + n].copy_from_slice(&src[s..s + n]);
}

#[test]
fn copies_by_kernel_land_every_byte_through_many_windows() {
    let g = gpu();
    let d = &*g;
    // From 16 bytes, windows of 4 KiB (or four times the storage offset alignment): a
    // 40 KiB copy takes a dozen dispatches, each window starting below its piece.
    d.seams().copy_by_kernel(16, 4096);
    let words = 16 * 1024;
    let (src, data) = filled(d, "src", words, 7);
    let dst = zeroed(d, "dst", words);
    let mut model = vec![0u32; words];
    let copies = [
        (0u64, 0u64, 16u64),
        (4096 + 16, 32, 40_000),
        (48, 50_000, 12_288),
        // Offsets that are multiples of 4 but not of 16 take the copy command.
        (4, 40_004, 100),
        (60_000, 61_008, 4_000),
    ];
    let mut e = encoder(d);
    for (k, &c) in copies.iter().enumerate() {
        let before = d.pooled_native_objects();
        e.copy_buffer_to_buffer(src, c.0, dst, c.1, c.2).unwrap();
        // The first copy made the kernel's pipeline (two set layouts, a pipeline layout and
        // the pipeline), which the device keeps for later copies.
        let made = if k == 0 { 4 } else { 0 };
        assert_eq!(d.pooled_native_objects(), before + made, "copy {k}");
        apply(&mut model, &data, c);
    }
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(d, dst, words), model);
    g.finish();
}

#[test]
fn a_window_reaching_before_the_copy_is_ordered_after_what_wrote_there() {
    let g = gpu();
    let d = &*g;
    // Windows from multiples of 256 bytes, as on a device whose storage offset alignment
    // is 256: a copy from offset 128 binds from offset 0 of both buffers.
    d.seams().copy_by_kernel(16, 0);
    d.seams().align_kernel_windows(256);
    let words = 1024;
    let (src, data) = filled(d, "src", words, 23);
    let (other, other_data) = filled(d, "other", words, 29);
    let dst = zeroed(d, "dst", words);
    let mut src_model = data.clone();
    let mut dst_model = vec![0u32; words];
    let mut e = encoder(d);
    // The copy command (offsets not multiples of 16) writes bytes 4..104 of `src` and of
    // `dst`, inside the windows the kernel copy below binds but outside its ranges.
    let before = (4, 4, 100);
    e.copy_buffer_to_buffer(other, before.0, src, before.1, before.2)
        .unwrap();
    apply(&mut src_model, &other_data, before);
    e.copy_buffer_to_buffer(other, before.0, dst, before.1, before.2)
        .unwrap();
    apply(&mut dst_model, &other_data, before);
    let kernel = (128, 128, 2048);
    e.copy_buffer_to_buffer(src, kernel.0, dst, kernel.1, kernel.2)
        .unwrap();
    let now = src_model.clone();
    apply(&mut dst_model, &now, kernel);
    // And the copy command after it writes into the kernel's windows again.
    let after = (8, 16, 64);
    e.copy_buffer_to_buffer(other, after.0, dst, after.1, after.2)
        .unwrap();
    apply(&mut dst_model, &other_data, after);
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(d, src, words), src_model);
    assert_eq!(read_u32(d, dst, words), dst_model);
    g.finish();
}

#[test]
fn copies_by_kernel_are_ordered_after_and_before_other_work() {
    let g = gpu();
    let d = &*g;
    d.seams().copy_by_kernel(16, 0);
    let words = 4096;
    let (a, data) = filled(d, "a", words, 3);
    let (b, c, out) = (
        zeroed(d, "b", words),
        zeroed(d, "c", words),
        zeroed(d, "out", words),
    );
    // A queue write into `a` (a transfer) before the first copy reads it.
    let written: Vec<u32> = (0..256).map(|i| 0xdead_0000 | i).collect();
    d.write_buffer(a, 1024, &bytes_of(&written)).unwrap();
    let mut expected = data.clone();
    expected[256..512].copy_from_slice(&written);
    // A kernel that doubles `src` into `dst`, as a compute pass of the application's.
    let double = src_dst_kernel(
        d,
        "double",
        r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] * 2u;
}
"#,
    );
    let group = src_dst_group(d, double.1, b, c);
    let mut e = encoder(d);
    // a → b by kernel (a compute write), b doubled into c by the application's pass (a
    // compute read after it, a compute write), c → out by kernel (a compute read after
    // that), then 64 bytes of out back into a by the copy command (offsets not multiples
    // of 16: a transfer read after the kernel's write, a transfer write after its read).
    e.copy_buffer_to_buffer(a, 0, b, 0, words as u64 * 4)
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(double.0).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(words as u32 / 64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.copy_buffer_to_buffer(c, 0, out, 0, words as u64 * 4)
        .unwrap();
    e.copy_buffer_to_buffer(out, 4, a, 4, 64).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let doubled: Vec<u32> = expected.iter().map(|w| w.wrapping_mul(2)).collect();
    assert_eq!(read_u32(d, b, words), expected);
    assert_eq!(read_u32(d, out, words), doubled);
    let mut a_now = expected.clone();
    a_now[1..17].copy_from_slice(&doubled[1..17]);
    assert_eq!(read_u32(d, a, words), a_now);
    // A second submission reads what the first copied: the queue's states carry the
    // kernel's write across submissions.
    let mut e = encoder(d);
    e.copy_buffer_to_buffer(out, 0, b, 0, words as u64 * 4)
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(d, b, words), doubled);
    g.finish();
}

#[test]
fn a_compute_pass_after_a_copy_by_kernel_binds_its_own_state() {
    let g = gpu();
    let d = &*g;
    d.seams().copy_by_kernel(16, 0);
    // The application's kernel uses immediate data and the same group indices as the
    // copy kernel: after the copy, its pipeline, group and immediates are its own.
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "add",
            wgsl: r#"
struct P { add: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] + p.add;
}
"#,
        })
        .unwrap();
    let (_, bgl) = src_dst_kernel(
        d,
        "layout only",
        r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(1)
fn main() { dst[0] = src[0]; }
"#,
    );
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "add",
            bind_group_layouts: &[bgl],
            immediate_size: 4,
        })
        .unwrap();
    let add = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "add",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let words = 1024;
    let (src, data) = filled(d, "src", words, 11);
    let (mid, out) = (zeroed(d, "mid", words), zeroed(d, "out", words));
    let group = src_dst_group(d, bgl, mid, out);
    let mut e = encoder(d);
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(add).unwrap();
    e.set_immediates(0, &5u32.to_le_bytes()).unwrap();
    e.end_compute_pass().unwrap();
    e.copy_buffer_to_buffer(src, 0, mid, 0, words as u64 * 4)
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(add).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.set_immediates(0, &9u32.to_le_bytes()).unwrap();
    e.dispatch(words as u32 / 64, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let want: Vec<u32> = data.iter().map(|w| w.wrapping_add(9)).collect();
    assert_eq!(read_u32(d, out, words), want);
    g.finish();
}

#[test]
fn copies_below_the_size_or_with_mappable_buffers_take_the_copy_command() {
    let g = gpu();
    let d = &*g;
    // Kernel copies from 1 KiB: a smaller copy, and copies into or out of mappable
    // buffers (host memory on a discrete GPU), keep the copy command, and land alike.
    d.seams().copy_by_kernel(1024, 0);
    let words = 2048;
    let (src, data) = filled(d, "src", words, 5);
    let dst = zeroed(d, "dst", words);
    let readback = d
        .create_buffer(&BufferDescriptor {
            label: "readback",
            size: words as u64 * 4,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        })
        .unwrap();
    let upload = d
        .create_buffer(&BufferDescriptor {
            label: "upload",
            size: words as u64 * 4,
            usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = encoder(d);
    let before = d.pooled_native_objects();
    e.copy_buffer_to_buffer(src, 0, dst, 0, 512).unwrap();
    e.copy_buffer_to_buffer(src, 0, readback, 0, words as u64 * 4)
        .unwrap();
    e.copy_buffer_to_buffer(upload, 0, dst, 4096, 4096).unwrap();
    // No copy took the kernel: its pipeline was never made.
    assert_eq!(d.pooled_native_objects(), before);
    d.submit([e.finish().unwrap()]).unwrap();
    let mut model = vec![0u32; words];
    model[..128].copy_from_slice(&data[..128]);
    assert_eq!(read_u32(d, dst, words), model);
    assert_eq!(read_u32(d, readback, words), data);
    g.finish();
}

/// Without the seam a discrete GPU copies by kernel a copy of at least 64 KiB that comes
/// right after another copy of at least 64 KiB (one of a batch), and a copy of at least
/// 1 MiB alone; other copies, and every copy on other devices, take the copy command. A
/// copy by kernel makes two groups, live until the submission completes; the first also
/// makes the kernel's pipeline, which the device keeps.
#[test]
fn without_the_seam_a_discrete_gpu_copies_by_kernel_in_batches_from_64_kib_alone_from_1_mib() {
    let g = gpu();
    let d = &*g;
    let discrete = d.adapter_info().device_type == DeviceType::DiscreteGpu;
    let words = (2 << 20) / 4;
    let (src, data) = filled(d, "src", words, 13);
    let dst = zeroed(d, "dst", words);
    let mut model = vec![0u32; words];
    let mut e = encoder(d);
    // Objects the device keeps for reuse, and the others.
    let counts = || {
        let pooled = d.pooled_native_objects();
        (pooled, d.live_native_objects() - pooled)
    };
    let kib = 1u64 << 10;
    let copy = |e: &mut CommandEncoder,
                model: &mut [u32],
                c: (u64, u64, u64),
                kernel: bool,
                first: bool| {
        let (pooled, own) = counts();
        e.copy_buffer_to_buffer(src, c.0, dst, c.1, c.2).unwrap();
        apply(model, &data, c);
        let by_kernel = kernel && discrete;
        let made = (
            if by_kernel && first { 4 } else { 0 },
            if by_kernel { 2 } else { 0 },
        );
        assert_eq!(counts(), (pooled + made.0, own + made.1), "{c:?}");
    };
    // 16 bytes short of 64 KiB: the copy command.
    copy(&mut e, &mut model, (0, 0, 64 * kib - 16), false, false);
    // 64 KiB after a smaller copy, alone: the copy command.
    copy(&mut e, &mut model, (16, 32, 64 * kib), false, false);
    // 64 KiB right after it: one of a batch, by kernel (its pipeline made now).
    copy(
        &mut e,
        &mut model,
        (64 * kib + 16, 64 * kib + 32, 64 * kib),
        true,
        true,
    );
    copy(
        &mut e,
        &mut model,
        (128 * kib, 128 * kib, 64 * kib),
        true,
        false,
    );
    // After another call (a clear of 16 bytes), 64 KiB is alone again; 1 MiB alone takes
    // the kernel.
    let clear = |e: &mut CommandEncoder, model: &mut [u32]| {
        e.clear_buffer(dst, 1 << 20, Some(16)).unwrap();
        model[(1 << 20) / 4..(1 << 20) / 4 + 4].fill(0);
    };
    clear(&mut e, &mut model);
    copy(
        &mut e,
        &mut model,
        (256 * kib, 256 * kib, 64 * kib),
        false,
        false,
    );
    clear(&mut e, &mut model);
    copy(&mut e, &mut model, (1 << 20, 1 << 20, 1 << 20), true, false);
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(read_u32(d, dst, words), model);
    g.finish();
}
