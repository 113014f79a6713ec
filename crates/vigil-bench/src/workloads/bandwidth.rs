//! **bandwidth**: a WGSL copy kernel (four 16-byte loads, then four stores, per thread) over
//! pairs of buffers adding up to the total size, timed on the GPU by timestamps around
//! the one compute pass that copies them all. Rates are bytes copied per second (each
//! byte copied is read once and written once).
//!
//! The sources are filled on the GPU with a pattern; the output hashes the start and the
//! end of every destination, read back after the last run.

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::{Bind, Raw, RawBuffer};
use crate::wgpu_ctx::Wgpu;
use crate::workloads::writes::hash;
use ash::vk;
use std::time::{Duration, Instant};

const FILL: &str = r#"
@group(0) @binding(0) var<storage, read_write> buf: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let stride = n.x * 256u;
    let len = arrayLength(&buf);
    for (var i = id.x; i < len; i += stride) {
        let v = i * 4u;
        buf[i] = vec4<u32>(v, v + 1u, v + 2u, v + 3u) * 2654435761u;
    }
}
"#;

const COPY: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    // Four 16-byte loads in flight per thread before the stores, each coalesced across
    // the workgroup; the dispatch covers the buffer exactly (see `copy_groups`).
    let stride = n.x * 256u;
    let i = id.x;
    let a = src[i];
    let b = src[i + stride];
    let c = src[i + 2u * stride];
    let d = src[i + 3u * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2u * stride] = c;
    dst[i + 3u * stride] = d;
}
"#;

/// Workgroups of the fill (a grid-stride loop, not timed).
const WORKGROUPS: u32 = 4096;
/// Bytes hashed at each end of each destination.
const PROBE: u64 = 64 * 1024;

/// Workload size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Bytes copied per run, in all.
    pub total: u64,
    /// Bytes per buffer (at most the adapter's storage binding size).
    pub chunk: u64,
}

impl Size {
    /// Buffer pairs.
    pub fn pairs(&self) -> u64 {
        self.total.div_ceil(self.chunk)
    }

    /// Workgroups of one copy dispatch: 256 threads of four 16-byte elements each cover
    /// a chunk exactly (chunks are multiples of 16 KiB, at most 1 GiB).
    pub fn copy_groups(&self) -> u32 {
        (self.chunk / (16 * 4 * 256)) as u32
    }
}

/// The fill kernel: every element's value depends on its index alone, so each source
/// holds the same pattern.
fn fill_shader() -> String {
    FILL.to_string()
}

fn probes(
    read: &mut dyn FnMut(u64, u64) -> Result<Vec<u8>, String>,
    size: Size,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for k in 0..size.pairs() {
        bytes.extend(read(k, 0)?);
        bytes.extend(read(k, size.chunk - PROBE)?);
    }
    Ok(hash(&bytes))
}

/// What every path must produce: the pattern the fill writes, probed the same way.
pub fn expected(size: Size) -> Vec<u8> {
    let word = |w: u64| ((w as u32).wrapping_mul(2_654_435_761)).to_le_bytes();
    let range = |from: u64| -> Vec<u8> { (from / 4..(from + PROBE) / 4).flat_map(word).collect() };
    let mut bytes = Vec::new();
    for _ in 0..size.pairs() {
        bytes.extend(range(0));
        bytes.extend(range(size.chunk - PROBE));
    }
    hash(&bytes)
}

/// Through vigil.
pub fn vigil(device: &vigil::Device, size: Size, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let storage = |binding, read_only| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let fill_bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "fill",
            entries: &[storage(0, false)],
        })
        .map_err(e)?;
    let copy_bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "copy",
            entries: &[storage(0, true), storage(1, false)],
        })
        .map_err(e)?;
    let pipeline = |label, wgsl: &str, bgl| -> Result<ComputePipeline, String> {
        let module = device
            .create_shader_module(&ShaderModuleDescriptor { label, wgsl })
            .map_err(e)?;
        let layout = device
            .create_pipeline_layout(&PipelineLayoutDescriptor {
                label,
                bind_group_layouts: &[bgl],
                immediate_size: 0,
            })
            .map_err(e)?;
        device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label,
                layout,
                module,
                entry_point: "main",
                constants: &[],
            })
            .map_err(e)
    };
    let fill = pipeline("fill", &fill_shader(), fill_bgl)?;
    let copy = pipeline("copy", COPY, copy_bgl)?;
    let mut pairs = Vec::new();
    for _ in 0..size.pairs() {
        let buffer = |label| {
            device.create_buffer(&BufferDescriptor {
                label,
                size: size.chunk,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            })
        };
        let (src, dst) = (buffer("src").map_err(e)?, buffer("dst").map_err(e)?);
        let whole = |b| BindGroupEntry {
            binding: 0,
            resource: BindingResource::Buffer(BufferBinding::whole(b)),
        };
        let fill_group = device
            .create_bind_group(&BindGroupDescriptor {
                label: "fill",
                layout: fill_bgl,
                entries: &[whole(src)],
            })
            .map_err(e)?;
        let copy_group = device
            .create_bind_group(&BindGroupDescriptor {
                label: "copy",
                layout: copy_bgl,
                entries: &[
                    whole(src),
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::Buffer(BufferBinding::whole(dst)),
                    },
                ],
            })
            .map_err(e)?;
        pairs.push((src, dst, fill_group, copy_group));
    }
    let queries = device.create_query_set("bandwidth", 2).map_err(e)?;
    let ticks = device
        .create_buffer(&BufferDescriptor {
            label: "ticks",
            size: 16,
            usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        })
        .map_err(e)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "fill" })
        .map_err(e)?;
    enc.begin_compute_pass(&ComputePassDescriptor::default())
        .map_err(e)?;
    enc.set_compute_pipeline(fill).map_err(e)?;
    for p in &pairs {
        enc.set_bind_group(0, p.2, &[]).map_err(e)?;
        enc.dispatch(WORKGROUPS, 1, 1).map_err(e)?;
    }
    enc.end_compute_pass().map_err(e)?;
    device.submit([enc.finish().map_err(e)?]).map_err(e)?;
    let period = f64::from(device.adapter_info().timestamp_period_ns);
    let [gpu] = repeat(plan, || {
        let mut enc = device
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .map_err(e)?;
        enc.begin_compute_pass(&ComputePassDescriptor {
            label: "copy",
            timestamp_writes: Some(PassTimestampWrites {
                query_set: queries,
                beginning: Some(0),
                end: Some(1),
            }),
        })
        .map_err(e)?;
        enc.set_compute_pipeline(copy).map_err(e)?;
        for p in &pairs {
            enc.set_bind_group(0, p.3, &[]).map_err(e)?;
            enc.dispatch(size.copy_groups(), 1, 1).map_err(e)?;
        }
        enc.end_compute_pass().map_err(e)?;
        enc.resolve_query_set(queries, 0, 2, ticks, 0).map_err(e)?;
        let s = device.submit([enc.finish().map_err(e)?]).map_err(e)?;
        device
            .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
            .map_err(e)?;
        let t = device.read_buffer(ticks, 0, 16).map_err(e)?;
        Ok([elapsed(&t, period)])
    })?;
    let output = probes(
        &mut |k, at| {
            device
                .read_buffer(pairs[k as usize].1, at, PROBE)
                .map_err(e)
        },
        size,
    )?;
    for (src, dst, a, b) in pairs {
        device.destroy_bind_group(a).map_err(e)?;
        device.destroy_bind_group(b).map_err(e)?;
        device.destroy_buffer(src).map_err(e)?;
        device.destroy_buffer(dst).map_err(e)?;
    }
    device.poll().map_err(e)?;
    Ok(PathResult {
        path: "vigil",
        metrics: vec![("gpu copy", gpu)],
        output,
    })
}

/// Two little-endian u64 ticks to the time between them.
fn elapsed(ticks: &[u8], period_ns: f64) -> Duration {
    let at = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&ticks[i * 8..i * 8 + 8]);
        u64::from_le_bytes(b)
    };
    Duration::from_secs_f64(at(1).saturating_sub(at(0)) as f64 * period_ns * 1e-9)
}

/// Through raw ash.
pub fn ash(raw: &mut Raw, size: Size, plan: Plan) -> Result<PathResult, String> {
    let err = |e: vk::Result| format!("Vulkan error {e:?}");
    let d = raw.device.clone();
    let compute = vk::ShaderStageFlags::COMPUTE;
    let sb = vk::DescriptorType::STORAGE_BUFFER;
    let fill_dsl = raw.set_layout(&[(0, sb, compute)])?;
    let copy_dsl = raw.set_layout(&[(0, sb, compute), (1, sb, compute)])?;
    let fill_pl = raw.pipeline_layout(&[fill_dsl])?;
    let copy_pl = raw.pipeline_layout(&[copy_dsl])?;
    let mut modules = Vec::new();
    let mut pipeline = |wgsl: &str, name: &str, layout| -> Result<vk::Pipeline, String> {
        let m = vigil_shader::Module::from_wgsl(wgsl, name).map_err(|d| d.to_string())?;
        let words = m
            .to_spirv(&vigil_shader::SpirvOptions::default())
            .map_err(|d| d.to_string())?;
        let shader = raw.shader(&words)?;
        modules.push(shader);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(Raw::entry_name());
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)];
        // SAFETY: module and layout match (the same WGSL vigil checks).
        unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
            .map_err(|(_, e)| err(e))
            .map(|p| p[0])
    };
    let fill = pipeline(&fill_shader(), "fill.wgsl", fill_pl)?;
    let copy = pipeline(COPY, "copy.wgsl", copy_pl)?;
    let n = size.pairs() as u32;
    let pool = raw.descriptor_pool(2 * n, &[(sb, 3 * n)], false)?;
    let mut pairs: Vec<(RawBuffer, RawBuffer, vk::DescriptorSet, vk::DescriptorSet)> = Vec::new();
    let mut made = Ok(());
    for _ in 0..n {
        let mk = |raw: &mut Raw| {
            raw.buffer(
                size.chunk,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                gpu_allocator::MemoryLocation::GpuOnly,
            )
        };
        let (src, dst) = match (mk(raw), mk(raw)) {
            (Ok(s), Ok(d)) => (s, d),
            (a, b) => {
                made = Err(a.err().or(b.err()).unwrap_or_default());
                break;
            }
        };
        let sets = raw
            .allocate_set(pool, fill_dsl)
            .and_then(|f| Ok((f, raw.allocate_set(pool, copy_dsl)?)));
        let (fs, cs) = match sets {
            Ok(s) => s,
            Err(e) => {
                made = Err(e);
                break;
            }
        };
        let whole = |b: &RawBuffer| Bind::Buffer(sb, b.raw, 0, vk::WHOLE_SIZE);
        raw.write_set(fs, &[(0, whole(&src))]);
        raw.write_set(cs, &[(0, whole(&src)), (1, whole(&dst))]);
        pairs.push((src, dst, fs, cs));
    }
    let queries = raw.timestamps(2)?;
    let period = f64::from(raw.timestamp_period);
    let (cmd_pool, cb) = raw.command_buffer()?;
    let dispatch_all = |raw: &Raw, pipeline, layout, copy_sets: bool| {
        let groups = if copy_sets {
            size.copy_groups()
        } else {
            WORKGROUPS
        };
        // SAFETY: recording; a compute pipeline.
        unsafe { d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline) };
        for p in &pairs {
            let set = [if copy_sets { p.3 } else { p.2 }];
            // SAFETY: a set of the pipeline's layout.
            unsafe {
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &set, &[])
            };
            // SAFETY: pipeline and set bound.
            unsafe { d.cmd_dispatch(cb, groups, 1, 1) };
        }
        let _ = raw;
    };
    let result = made.and_then(|()| {
        raw.begin(cmd_pool, cb)?;
        raw.barrier(
            cb,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
        );
        dispatch_all(raw, fill, fill_pl, false);
        raw.end(cb)?;
        let s = raw.submit(&[cb])?;
        raw.wait(s)?;
        repeat(plan, || {
            raw.begin(cmd_pool, cb)?;
            // SAFETY: recording, outside any pass.
            unsafe { d.cmd_reset_query_pool(cb, queries, 0, 2) };
            raw.barrier(
                cb,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::PipelineStageFlags2::COMPUTE_SHADER,
            );
            // SAFETY: the query was reset above.
            unsafe {
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, queries, 0)
            };
            dispatch_all(raw, copy, copy_pl, true);
            // SAFETY: as above.
            unsafe {
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, queries, 1)
            };
            raw.end(cb)?;
            let s = raw.submit(&[cb])?;
            raw.wait(s)?;
            let t = raw.query_results(queries, 2)?;
            Ok::<_, String>([Duration::from_secs_f64(
                t[1].saturating_sub(t[0]) as f64 * period * 1e-9,
            )])
        })
    });
    let output = match &result {
        Ok(_) => {
            let mut read = |k: u64, at: u64| -> Result<Vec<u8>, String> {
                let probe = raw.buffer(
                    PROBE,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    gpu_allocator::MemoryLocation::GpuToCpu,
                )?;
                let (src, dst) = (pairs[k as usize].1.raw, probe.raw);
                let r = raw.one_shot(|raw, cb| {
                    let region = [vk::BufferCopy::default().src_offset(at).size(PROBE)];
                    // SAFETY: in-range copy between buffers of this device.
                    unsafe { raw.device.cmd_copy_buffer(cb, src, dst, &region) };
                });
                let out = r.and_then(|()| raw.read(&probe, 0, PROBE as usize));
                raw.destroy_buffer(probe);
                out
            };
            Some(probes(&mut read, size))
        }
        Err(_) => None,
    };
    // SAFETY: idle (every submission was waited for); objects created above.
    unsafe { d.destroy_command_pool(cmd_pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_query_pool(queries, None) };
    // SAFETY: as above.
    unsafe { d.destroy_descriptor_pool(pool, None) };
    for p in [fill, copy] {
        // SAFETY: as above.
        unsafe { d.destroy_pipeline(p, None) };
    }
    for l in [fill_pl, copy_pl] {
        // SAFETY: as above.
        unsafe { d.destroy_pipeline_layout(l, None) };
    }
    for l in [fill_dsl, copy_dsl] {
        // SAFETY: as above.
        unsafe { d.destroy_descriptor_set_layout(l, None) };
    }
    for m in modules {
        // SAFETY: as above.
        unsafe { d.destroy_shader_module(m, None) };
    }
    for (src, dst, _, _) in pairs {
        raw.destroy_buffer(src);
        raw.destroy_buffer(dst);
    }
    let [gpu] = result?;
    Ok(PathResult {
        path: "ash",
        metrics: vec![("gpu copy", gpu)],
        output: output.ok_or("no output")??,
    })
}

/// Through wgpu.
pub fn wgpu(w: &Wgpu, size: Size, plan: Plan) -> Result<PathResult, String> {
    let dev = &w.device;
    let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let fill_bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("fill"),
        entries: &[storage(0, false)],
    });
    let copy_bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("copy"),
        entries: &[storage(0, true), storage(1, false)],
    });
    let pipeline = |label, wgsl: String, bgl: &wgpu::BindGroupLayout| {
        let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(bgl)],
            immediate_size: 0,
        });
        dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let fill = pipeline("fill", fill_shader(), &fill_bgl);
    let copy = pipeline("copy", COPY.to_string(), &copy_bgl);
    let pairs: Vec<_> = (0..size.pairs())
        .map(|_| {
            let buffer = |label| {
                dev.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.chunk,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            };
            let (src, dst) = (buffer("src"), buffer("dst"));
            let fill_group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("fill"),
                layout: &fill_bgl,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                }],
            });
            let copy_group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("copy"),
                layout: &copy_bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: src.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: dst.as_entire_binding(),
                    },
                ],
            });
            (src, dst, fill_group, copy_group)
        })
        .collect();
    let queries = dev.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bandwidth"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let resolve = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ticks"),
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&fill);
        for p in &pairs {
            pass.set_bind_group(0, &p.2, &[]);
            pass.dispatch_workgroups(WORKGROUPS, 1, 1);
        }
    }
    w.queue.submit([enc.finish()]);
    let period = f64::from(w.queue.get_timestamp_period());
    let [gpu] = repeat(plan, || {
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("copy"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&copy);
            for p in &pairs {
                pass.set_bind_group(0, &p.3, &[]);
                pass.dispatch_workgroups(size.copy_groups(), 1, 1);
            }
        }
        enc.resolve_query_set(&queries, 0..2, &resolve, 0);
        w.queue.submit([enc.finish()]);
        let t = w.read(&resolve, 16)?;
        Ok([elapsed(&t, period)])
    })?;
    let output = probes(
        &mut |k, at| w.read_range(&pairs[k as usize].1, at, PROBE),
        size,
    )?;
    for (src, dst, _, _) in &pairs {
        src.destroy();
        dst.destroy();
    }
    drop(pairs);
    w.wait()?;
    Ok(PathResult {
        path: "wgpu",
        metrics: vec![("gpu copy", gpu)],
        output,
    })
}

/// The host's reference, as a paired path named `reference`: on a machine with PyTorch
/// and CUDA, one `copy_` of the same bytes per repetition, timed with CUDA events (the
/// device-to-device rate `torch` reaches); else `memcpy` of the same bytes on the host.
/// What it was goes into `what`.
pub fn reference(
    bytes: u64,
    plan: Plan,
    what: &std::sync::Mutex<String>,
) -> Result<PathResult, String> {
    use std::io::{BufRead, BufReader, Write};
    // One process for the whole phase: each line on stdin asks for one timed copy, whose
    // milliseconds come back as a line.
    const SCRIPT: &str = r#"
import sys, torch
n = int(sys.argv[1])
assert torch.cuda.is_available()
a = torch.empty(n, dtype=torch.uint8, device="cuda")
b = torch.empty_like(a)
a.fill_(1)
for _ in range(3):
    b.copy_(a)
torch.cuda.synchronize()
print("ready", torch.cuda.get_device_name(0), flush=True)
for _ in sys.stdin:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); b.copy_(a); e.record(); e.synchronize()
    print(s.elapsed_time(e), flush=True)
"#;
    let say = |w: String| {
        if let Ok(mut slot) = what.lock() {
            *slot = w;
        }
    };
    let child = std::process::Command::new("python3")
        .args(["-c", SCRIPT, &bytes.to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child
        && let (Some(mut input), Some(out)) = (child.stdin.take(), child.stdout.take())
    {
        let mut lines = BufReader::new(out).lines();
        if let Some(Ok(first)) = lines.next()
            && let Some(name) = first.strip_prefix("ready ")
        {
            say(format!("PyTorch copy_ on {name}"));
            let timed = repeat(plan, || {
                writeln!(input, "go").map_err(|e| format!("PyTorch reference: {e}"))?;
                let ms = lines
                    .next()
                    .and_then(Result::ok)
                    .and_then(|l| l.trim().parse::<f64>().ok())
                    .ok_or("PyTorch reference: no time")?;
                Ok([Duration::from_secs_f64(ms / 1e3)])
            });
            drop(input);
            let _ = child.wait();
            let [copy] = timed?;
            return Ok(PathResult {
                path: "reference",
                metrics: vec![("gpu copy", copy)],
                output: Vec::new(),
            });
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    // No CUDA PyTorch here: the host's own memcpy, single thread.
    say("host memcpy (one thread)".into());
    let src = vec![1u8; bytes as usize];
    let mut dst = vec![0u8; bytes as usize];
    let [copy] = repeat(plan, || {
        let t = Instant::now();
        dst.copy_from_slice(&src);
        std::hint::black_box(&mut dst);
        Ok([t.elapsed()])
    })?;
    Ok(PathResult {
        path: "reference",
        metrics: vec![("gpu copy", copy)],
        output: Vec::new(),
    })
}
