//! Compute on a real Vulkan device: results checked element by element.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32};
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
