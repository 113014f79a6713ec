//! The demo's compute workload: a kernel over millions of elements, verified one by one.

use std::time::Instant;
use vigil::*;

const KERNEL: &str = r#"
struct Params { count: u32, rounds: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// A small integer hash, iterated, so the work is not just a copy.
fn mix(x: u32) -> u32 {
    var h = x ^ 0x9e3779b9u;
    h = (h ^ (h >> 16u)) * 0x85ebca6bu;
    h = (h ^ (h >> 13u)) * 0xc2b2ae35u;
    return h ^ (h >> 16u);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = id.x + id.y * groups.x * 256u;
    if i >= params.count { return; }
    var v = src[i];
    for (var r = 0u; r < params.rounds; r++) { v = mix(v + r); }
    dst[i] = v;
}
"#;

fn mix(x: u32) -> u32 {
    let mut h = x ^ 0x9e37_79b9;
    h = (h ^ (h >> 16)).wrapping_mul(0x85eb_ca6b);
    h = (h ^ (h >> 13)).wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

fn expected(x: u32, rounds: u32) -> u32 {
    (0..rounds).fold(x, |v, r| mix(v.wrapping_add(r)))
}

fn err(e: Error) -> String {
    e.to_string()
}

pub fn run(device: &Device) -> Result<(), String> {
    let count: u32 = 1 << 22;
    let rounds = 8u32;
    let t0 = Instant::now();
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "demo kernel",
            wgsl: KERNEL,
        })
        .map_err(err)?;
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let buffer = |ty| BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "demo kernel",
            entries: &[
                entry(0, buffer(BufferBindingType::Uniform)),
                entry(1, buffer(BufferBindingType::Storage { read_only: true })),
                entry(2, buffer(BufferBindingType::Storage { read_only: false })),
            ],
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "demo kernel",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(err)?;
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "demo kernel",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(err)?;
    let bytes = u64::from(count) * 4;
    let storage = BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC;
    let src = device
        .create_buffer(&BufferDescriptor {
            label: "demo src",
            size: bytes,
            usage: storage,
        })
        .map_err(err)?;
    let dst = device
        .create_buffer(&BufferDescriptor {
            label: "demo dst",
            size: bytes,
            usage: storage,
        })
        .map_err(err)?;
    let params = device
        .create_buffer(&BufferDescriptor {
            label: "demo params",
            size: 8,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .map_err(err)?;
    let input: Vec<u32> = (0..count).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let input_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let setup = t0.elapsed();
    let t1 = Instant::now();
    device.write_buffer(src, 0, &input_bytes).map_err(err)?;
    device
        .write_buffer(
            params,
            0,
            &[count.to_le_bytes(), rounds.to_le_bytes()].concat(),
        )
        .map_err(err)?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "demo kernel",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(params)),
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
        .map_err(err)?;
    let timestamps = device.features().contains(Features::TIMESTAMP_QUERY);
    let queries = if timestamps {
        Some(device.create_query_set("demo timestamps", 2).map_err(err)?)
    } else {
        None
    };
    let resolve = match queries {
        Some(_) => Some(
            device
                .create_buffer(&BufferDescriptor {
                    label: "demo timestamps",
                    size: 16,
                    usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
                })
                .map_err(err)?,
        ),
        None => None,
    };
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "demo compute",
        })
        .map_err(err)?;
    enc.begin_compute_pass(&ComputePassDescriptor {
        label: "demo kernel",
        timestamp_writes: queries.map(|q| PassTimestampWrites {
            query_set: q,
            beginning: Some(0),
            end: Some(1),
        }),
    })
    .map_err(err)?;
    enc.set_compute_pipeline(pipeline).map_err(err)?;
    enc.set_bind_group(0, group, &[]).map_err(err)?;
    let workgroups = count.div_ceil(256);
    let (x, y) = if workgroups <= 65535 {
        (workgroups, 1)
    } else {
        (65535, workgroups.div_ceil(65535))
    };
    enc.dispatch(x, y, 1).map_err(err)?;
    enc.end_compute_pass().map_err(err)?;
    if let (Some(q), Some(r)) = (queries, resolve) {
        enc.resolve_query_set(q, 0, 2, r, 0).map_err(err)?;
    }
    let serial = device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    device
        .wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(10))
        .map_err(err)?;
    let run = t1.elapsed();
    let t2 = Instant::now();
    let out = device.read_buffer(dst, 0, bytes).map_err(err)?;
    let readback = t2.elapsed();
    let mut wrong = 0usize;
    for (i, chunk) in out.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        if got != expected(input[i], rounds) {
            if wrong < 5 {
                eprintln!(
                    "  element {i}: got {got:#x}, expected {:#x}",
                    expected(input[i], rounds)
                );
            }
            wrong += 1;
        }
    }
    let gpu_ms = match resolve {
        Some(r) => {
            let t = device.read_buffer(r, 0, 16).map_err(err)?;
            let begin = u64::from_le_bytes(t[0..8].try_into().unwrap_or_default());
            let end = u64::from_le_bytes(t[8..16].try_into().unwrap_or_default());
            Some(
                end.saturating_sub(begin) as f64
                    * f64::from(device.adapter_info().timestamp_period_ns)
                    / 1e6,
            )
        }
        None => None,
    };
    println!("compute: {count} elements x {rounds} hash rounds");
    println!(
        "  setup {:.2} ms, upload+dispatch+wait {:.2} ms, readback {:.2} ms{}",
        setup.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3,
        readback.as_secs_f64() * 1e3,
        gpu_ms.map_or_else(String::new, |g| format!(", kernel GPU time {g:.3} ms"))
    );
    if wrong > 0 {
        return Err(format!("compute: {wrong} of {count} elements are wrong"));
    }
    println!("  verified: all {count} elements correct");
    Ok(())
}
