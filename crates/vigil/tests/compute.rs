//! Compute on a real Vulkan device: results checked element by element.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, compute_entry, gpu, kernel_with_group, read_u32, storage_buffer};
use vigil::*;

const SCALE: &str = r#"
struct Params { mul: u32, add: u32, count: u32, _pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 65535u * 64u;
    if i < params.count {
        dst[i] = src[i] * params.mul + params.add;
    }
}
"#;

struct Kernel {
    pipeline: ComputePipeline,
    layout: BindGroupLayout,
}

fn kernel(device: &Device) -> Kernel {
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "scale",
            wgsl: SCALE,
        })
        .unwrap();
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let buf = |ty| BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let layout = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "scale",
            entries: &[
                entry(0, buf(BufferBindingType::Uniform)),
                entry(1, buf(BufferBindingType::Storage { read_only: true })),
                entry(2, buf(BufferBindingType::Storage { read_only: false })),
            ],
        })
        .unwrap();
    let pl = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "scale",
            bind_group_layouts: &[layout],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "scale",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    Kernel { pipeline, layout }
}

fn storage(device: &Device, label: &str, words: usize) -> Buffer {
    device
        .create_buffer(&BufferDescriptor {
            label,
            size: words as u64 * 4,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
        })
        .unwrap()
}

fn params(device: &Device, mul: u32, add: u32, count: u32) -> Buffer {
    let b = device
        .create_buffer(&BufferDescriptor {
            label: "params",
            size: 16,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .unwrap();
    device
        .write_buffer(b, 0, &bytes_of(&[mul, add, count, 0]))
        .unwrap();
    b
}

fn group(device: &Device, k: &Kernel, p: Buffer, src: Buffer, dst: Buffer) -> BindGroup {
    device
        .create_bind_group(&BindGroupDescriptor {
            label: "scale group",
            layout: k.layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(p)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(src)),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Buffer(BufferBinding::whole(dst)),
                },
            ],
        })
        .unwrap()
}

fn dispatch_for(count: u32) -> (u32, u32) {
    let groups = count.div_ceil(64);
    if groups <= 65535 {
        (groups, 1)
    } else {
        (65535, groups.div_ceil(65535))
    }
}

#[test]
fn a_million_elements_computed_and_checked_one_by_one() {
    let gpu = gpu();
    let n: u32 = 1 << 20;
    let k = kernel(&gpu);
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761)).collect();
    let src = storage(&gpu, "src", n as usize);
    let dst = storage(&gpu, "dst", n as usize);
    gpu.write_buffer(src, 0, &bytes_of(&input)).unwrap();
    let p = params(&gpu, 3, 7, n);
    let g = group(&gpu, &k, p, src, dst);
    let mut enc = gpu
        .create_command_encoder(&CommandEncoderDescriptor { label: "million" })
        .unwrap();
    enc.begin_compute_pass(&ComputePassDescriptor {
        label: "scale",
        ..Default::default()
    })
    .unwrap();
    enc.set_compute_pipeline(k.pipeline).unwrap();
    enc.set_bind_group(0, g, &[]).unwrap();
    let (x, y) = dispatch_for(n);
    enc.dispatch(x, y, 1).unwrap();
    enc.end_compute_pass().unwrap();
    let serial = gpu.submit([enc.finish().unwrap()]).unwrap();
    assert_eq!(serial, 1);
    let out = read_u32(&gpu, dst, n as usize);
    for (i, (o, v)) in out.iter().zip(&input).enumerate() {
        assert_eq!(*o, v.wrapping_mul(3).wrapping_add(7), "element {i}");
    }
}

#[test]
fn validation_layer_is_loaded() {
    let gpu = gpu();
    let log = gpu.validation_log().expect("validation on");
    eprintln!("filtered messages: {}", log.filtered_count());
    assert!(gpu.validation_log().is_some());
}

/// Writes the first word of its dynamic uniform binding into its storage binding.
const DYNAMIC_READ: &str = "
struct U { v: vec4<u32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<u32, 4>;
@compute @workgroup_size(1) fn main() { o[0] = u.v.x; }
";

/// Clears `clear` (offset, size) of a 512-byte uniform buffer whose words are 1000 + their
/// index, then, in the same command buffer, dispatches (`indirect`: through an argument
/// buffer) a kernel reading a 16-byte dynamic binding of it at dynamic offset 256: what
/// it read.
fn dynamic_read(indirect: bool, clear: (u64, u64)) -> u32 {
    let d = gpu();
    let (p, bgl) = kernel_with_group(
        &d,
        "dynamic read",
        DYNAMIC_READ,
        &[
            compute_entry(
                0,
                BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
            ),
            compute_entry(1, storage_buffer(false)),
        ],
        &[],
    )
    .unwrap();
    let u = d
        .create_buffer(&BufferDescriptor {
            label: "u",
            size: 512,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .unwrap();
    let mut words = vec![0u32; 128];
    for (i, w) in words.iter_mut().enumerate() {
        *w = 1000 + i as u32;
    }
    d.write_buffer(u, 0, &bytes_of(&words)).unwrap();
    let o = d
        .create_buffer(&BufferDescriptor {
            label: "o",
            size: 16,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let args = d
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: 12,
            usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        })
        .unwrap();
    d.write_buffer(args, 0, &bytes_of(&[1, 1, 1])).unwrap();
    let g = d
        .create_bind_group(&BindGroupDescriptor {
            label: "g",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer: u,
                        offset: 0,
                        size: Some(16),
                    }),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(o)),
                },
            ],
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "dynamic read",
        })
        .unwrap();
    e.clear_buffer(u, clear.0, Some(clear.1)).unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[256]).unwrap();
    if indirect {
        e.dispatch_indirect(args, 0).unwrap();
    } else {
        e.dispatch(1, 1, 1).unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let v = read_u32(&d, o, 1)[0];
    d.finish();
    v
}

#[test]
fn a_dynamic_binding_is_read_at_its_offset_after_the_writes_that_overlap_it() {
    // Word 64 (byte 256) is 1064. A clear of bytes 0..4 leaves it, and needs no barrier
    // before the read (the layer this project installs reports one: see
    // vigil-vulkan's `ignores_dynamic_offsets`); a clear of bytes 256..260 is ordered
    // before the read, which sees zero.
    for indirect in [false, true] {
        assert_eq!(dynamic_read(indirect, (0, 4)), 1064);
        assert_eq!(dynamic_read(indirect, (256, 4)), 0);
    }
}
