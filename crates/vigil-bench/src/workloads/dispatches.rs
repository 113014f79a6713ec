//! **dispatches**: many single-workgroup dispatches, each with a different bind group (a
//! uniform range and its own storage buffer). Every dispatch accumulates into its group's
//! buffer, so a group reused later in the pass depends on its earlier dispatch: every path
//! needs a barrier each time the groups wrap around, and no other.
//!
//! With `indirect` (workload `dispatches-indirect`, run on request) every dispatch reads
//! `(1, 1, 1)` from an indirect buffer instead: vigil checks the counts on the GPU in
//! front of each, raw ash does not, wgpu does its own check. With `written` as well
//! (workload `dispatches-indirect-written`, run on request) each frame first copies those
//! counts into the indirect buffer, so the dispatches read arguments written earlier in the
//! same recording (vigil checks them in front of the pass, the GPU-driven pattern).

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::{Bind, Raw};
use crate::wgpu_ctx::Wgpu;
use ash::vk;
use std::time::{Duration, Instant};

const KERNEL: &str = r#"
struct Params { value: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    out[lid] = out[lid] + params.value * 64u + lid;
}
"#;

/// Size of each group's output and uniform slice (the common offset alignment).
const SLOT: u64 = 256;

/// Workload size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Distinct bind groups.
    pub groups: u32,
    /// Dispatches per run.
    pub dispatches: u32,
    /// Whether each dispatch reads its counts from an indirect buffer.
    pub indirect: bool,
    /// Whether each frame first copies the counts into that buffer (with `indirect`).
    pub written: bool,
}

/// The indirect arguments every dispatch of `dispatches-indirect` reads.
const ARGS: [u8; 12] = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0];

fn params(groups: u32) -> Vec<u8> {
    let mut bytes = vec![0u8; (u64::from(groups) * SLOT) as usize];
    for g in 0..groups {
        let at = (u64::from(g) * SLOT) as usize;
        bytes[at..at + 4].copy_from_slice(&g.to_le_bytes());
    }
    bytes
}

/// Through vigil.
pub fn vigil(device: &vigil::Device, size: Size, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "dispatch kernel",
            wgsl: KERNEL,
        })
        .map_err(e)?;
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "dispatch",
            entries: &[
                entry(
                    0,
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
                entry(
                    1,
                    BindingType::Buffer {
                        ty: BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        })
        .map_err(e)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "dispatch",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(e)?;
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "dispatch",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(e)?;
    let uniforms = device
        .create_buffer(&BufferDescriptor {
            label: "params",
            size: u64::from(size.groups) * SLOT,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .map_err(e)?;
    device
        .write_buffer(uniforms, 0, &params(size.groups))
        .map_err(e)?;
    let args = device
        .create_buffer(&BufferDescriptor {
            label: "args",
            size: 12,
            usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        })
        .map_err(e)?;
    device.write_buffer(args, 0, &ARGS).map_err(e)?;
    let args_src = device
        .create_buffer(&BufferDescriptor {
            label: "args source",
            size: 12,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .map_err(e)?;
    device.write_buffer(args_src, 0, &ARGS).map_err(e)?;
    let mut outs = Vec::new();
    let mut groups = Vec::new();
    for g in 0..size.groups {
        let out = device
            .create_buffer(&BufferDescriptor {
                label: "out",
                size: SLOT,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
            })
            .map_err(e)?;
        let group = device
            .create_bind_group(&BindGroupDescriptor {
                label: "dispatch",
                layout: bgl,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::Buffer(BufferBinding {
                            buffer: uniforms,
                            offset: u64::from(g) * SLOT,
                            size: Some(16),
                        }),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::Buffer(BufferBinding::whole(out)),
                    },
                ],
            })
            .map_err(e)?;
        outs.push(out);
        groups.push(group);
    }
    let record = || -> Result<(CommandBuffer, Duration), String> {
        let t = Instant::now();
        let mut enc = device
            .create_command_encoder(&CommandEncoderDescriptor {
                label: "dispatches",
            })
            .map_err(e)?;
        if size.written {
            enc.copy_buffer_to_buffer(args_src, 0, args, 0, 12)
                .map_err(e)?;
        }
        enc.begin_compute_pass(&ComputePassDescriptor::default())
            .map_err(e)?;
        enc.set_compute_pipeline(pipeline).map_err(e)?;
        for i in 0..size.dispatches {
            enc.set_bind_group(0, groups[(i % size.groups) as usize], &[])
                .map_err(e)?;
            if size.indirect {
                enc.dispatch_indirect(args, 0).map_err(e)?;
            } else {
                enc.dispatch(1, 1, 1).map_err(e)?;
            }
        }
        enc.end_compute_pass().map_err(e)?;
        let cb = enc.finish().map_err(e)?;
        Ok((cb, t.elapsed()))
    };
    // The checked run, from zeroed outputs.
    let mut clear = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "clear" })
        .map_err(e)?;
    for &o in &outs {
        clear.clear_buffer(o, 0, None).map_err(e)?;
    }
    device.submit([clear.finish().map_err(e)?]).map_err(e)?;
    let (cb, _) = record()?;
    device.submit([cb]).map_err(e)?;
    let mut output = Vec::new();
    for &o in &outs {
        output.extend(device.read_buffer(o, 0, SLOT).map_err(e)?);
    }
    let [encode, submit] = repeat(plan, || super::vigil_submit_timed(device, record()?))?;
    Ok(PathResult {
        path: "vigil",
        metrics: vec![("encode", encode), ("submit", submit)],
        output,
    })
}

/// Through raw ash: the same calls, no validation, no tracking.
pub fn ash(raw: &mut Raw, size: Size, plan: Plan) -> Result<PathResult, String> {
    let err = |e: vk::Result| format!("Vulkan error {e:?}");
    let module =
        vigil_shader::Module::from_wgsl(KERNEL, "dispatch.wgsl").map_err(|d| d.to_string())?;
    let words = module
        .to_spirv(&vigil_shader::SpirvOptions::default())
        .map_err(|d| d.to_string())?;
    let shader = raw.shader(&words)?;
    let d = raw.device.clone();
    let bindings = [
        vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE),
        vk::DescriptorSetLayoutBinding::default()
            .binding(1)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE),
    ];
    // SAFETY: valid create info.
    let dsl = unsafe {
        d.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )
    }
    .map_err(err)?;
    let dsls = [dsl];
    // SAFETY: valid set layout.
    let pl = unsafe {
        d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().set_layouts(&dsls),
            None,
        )
    }
    .map_err(err)?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(shader)
        .name(Raw::entry_name());
    let info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(pl)];
    // SAFETY: module and layout match (the same WGSL vigil checks).
    let pipeline = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
        .map_err(|(_, e)| err(e))?[0];
    let uniforms = raw.buffer(
        u64::from(size.groups) * SLOT,
        vk::BufferUsageFlags::UNIFORM_BUFFER,
        gpu_allocator::MemoryLocation::CpuToGpu,
    )?;
    raw.write(&uniforms, 0, &params(size.groups))?;
    let args = raw.buffer(
        12,
        vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        gpu_allocator::MemoryLocation::CpuToGpu,
    )?;
    raw.write(&args, 0, &ARGS)?;
    let args_src = raw.buffer(
        12,
        vk::BufferUsageFlags::TRANSFER_SRC,
        gpu_allocator::MemoryLocation::CpuToGpu,
    )?;
    raw.write(&args_src, 0, &ARGS)?;
    let mut outs = Vec::new();
    for _ in 0..size.groups {
        outs.push(raw.buffer(
            SLOT,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            gpu_allocator::MemoryLocation::GpuToCpu,
        )?);
    }
    let sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER,
            descriptor_count: size.groups,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: size.groups,
        },
    ];
    // SAFETY: valid create info.
    let pool = unsafe {
        d.create_descriptor_pool(
            &vk::DescriptorPoolCreateInfo::default()
                .max_sets(size.groups)
                .pool_sizes(&sizes),
            None,
        )
    }
    .map_err(err)?;
    let layouts = vec![dsl; size.groups as usize];
    // SAFETY: the pool has room for exactly these sets.
    let sets = unsafe {
        d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts),
        )
    }
    .map_err(err)?;
    for (g, &set) in sets.iter().enumerate() {
        raw.write_set(
            set,
            &[
                (
                    0,
                    Bind::Buffer(
                        vk::DescriptorType::UNIFORM_BUFFER,
                        uniforms.raw,
                        g as u64 * SLOT,
                        16,
                    ),
                ),
                (
                    1,
                    Bind::Buffer(vk::DescriptorType::STORAGE_BUFFER, outs[g].raw, 0, SLOT),
                ),
            ],
        );
    }
    let (cmd_pool, cb) = raw.command_buffer()?;
    let record = |raw: &Raw| -> Result<Duration, String> {
        let t = Instant::now();
        raw.begin(cmd_pool, cb)?;
        if size.written {
            let region = [vk::BufferCopy::default().size(12)];
            // SAFETY: recording; both buffers hold 12 bytes; the first barrier below
            // orders the copy before every dispatch.
            unsafe { d.cmd_copy_buffer(cb, args_src.raw, args.raw, &region) };
        }
        // SAFETY: recording; compute pipeline.
        unsafe { d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline) };
        for i in 0..size.dispatches {
            if i == 0 {
                raw.barrier(
                    cb,
                    vk::PipelineStageFlags2::ALL_COMMANDS,
                    vk::PipelineStageFlags2::COMPUTE_SHADER
                        | vk::PipelineStageFlags2::DRAW_INDIRECT,
                );
            } else if i % size.groups == 0 {
                raw.barrier(
                    cb,
                    vk::PipelineStageFlags2::COMPUTE_SHADER,
                    vk::PipelineStageFlags2::COMPUTE_SHADER
                        | vk::PipelineStageFlags2::DRAW_INDIRECT,
                );
            }
            let set = [sets[(i % size.groups) as usize]];
            // SAFETY: a set of the pipeline's layout.
            unsafe {
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &set, &[])
            };
            if size.indirect {
                // SAFETY: pipeline and set bound; 12 bytes of counts within the limits.
                unsafe { d.cmd_dispatch_indirect(cb, args.raw, 0) };
            } else {
                // SAFETY: pipeline and set bound.
                unsafe { d.cmd_dispatch(cb, 1, 1, 1) };
            }
        }
        raw.end(cb)?;
        Ok(t.elapsed())
    };
    for o in &outs {
        raw.write(o, 0, &[0u8; SLOT as usize])?;
    }
    record(raw)?;
    let s = raw.submit(&[cb])?;
    raw.wait(s)?;
    let mut output = Vec::new();
    for o in &outs {
        output.extend(raw.read(o, 0, SLOT as usize)?);
    }
    let result = repeat(plan, || {
        let encode = record(raw)?;
        let t = Instant::now();
        let s = raw.submit(&[cb])?;
        let submit = t.elapsed();
        raw.wait(s)?;
        Ok([encode, submit])
    });
    // SAFETY: idle (every submission was waited for); objects created above.
    unsafe { d.destroy_command_pool(cmd_pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_descriptor_pool(pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_pipeline(pipeline, None) };
    // SAFETY: as above.
    unsafe { d.destroy_pipeline_layout(pl, None) };
    // SAFETY: as above.
    unsafe { d.destroy_descriptor_set_layout(dsl, None) };
    // SAFETY: as above.
    unsafe { d.destroy_shader_module(shader, None) };
    for o in outs {
        raw.destroy_buffer(o);
    }
    raw.destroy_buffer(uniforms);
    raw.destroy_buffer(args);
    raw.destroy_buffer(args_src);
    let [encode, submit] = result?;
    Ok(PathResult {
        path: "ash",
        metrics: vec![("encode", encode), ("submit", submit)],
        output,
    })
}

/// Through wgpu.
pub fn wgpu(w: &Wgpu, size: Size, plan: Plan) -> Result<PathResult, String> {
    let dev = &w.device;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("dispatch"),
        source: wgpu::ShaderSource::Wgsl(KERNEL.into()),
    });
    let bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("dispatch"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    });
    let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("dispatch"),
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("dispatch"),
        layout: Some(&layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let uniforms = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("params"),
        size: u64::from(size.groups) * SLOT,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    w.queue.write_buffer(&uniforms, 0, &params(size.groups));
    let args = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("args"),
        size: 12,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    w.queue.write_buffer(&args, 0, &ARGS);
    let args_src = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("args source"),
        size: 12,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    w.queue.write_buffer(&args_src, 0, &ARGS);
    let outs: Vec<wgpu::Buffer> = (0..size.groups)
        .map(|_| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("out"),
                size: SLOT,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect();
    let groups: Vec<wgpu::BindGroup> = (0..size.groups)
        .map(|g| {
            dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dispatch"),
                layout: &bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &uniforms,
                            offset: u64::from(g) * SLOT,
                            size: std::num::NonZeroU64::new(16),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: outs[g as usize].as_entire_binding(),
                    },
                ],
            })
        })
        .collect();
    let record = || -> (wgpu::CommandBuffer, Duration) {
        let t = Instant::now();
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("dispatches"),
        });
        if size.written {
            enc.copy_buffer_to_buffer(&args_src, 0, &args, 0, 12);
        }
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            for i in 0..size.dispatches {
                pass.set_bind_group(0, &groups[(i % size.groups) as usize], &[]);
                if size.indirect {
                    pass.dispatch_workgroups_indirect(&args, 0);
                } else {
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
        }
        let cb = enc.finish();
        (cb, t.elapsed())
    };
    let mut clear = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    for o in &outs {
        clear.clear_buffer(o, 0, None);
    }
    w.queue.submit([clear.finish()]);
    let (cb, _) = record();
    w.queue.submit([cb]);
    let mut output = Vec::new();
    for o in &outs {
        output.extend(w.read(o, SLOT)?);
    }
    let [encode, submit] = repeat(plan, || {
        let (cb, encode) = record();
        let t = Instant::now();
        w.queue.submit([cb]);
        let submit = t.elapsed();
        w.wait()?;
        Ok([encode, submit])
    })?;
    Ok(PathResult {
        path: "wgpu",
        metrics: vec![("encode", encode), ("submit", submit)],
        output,
    })
}

/// The value every path must produce: each group's slot accumulated once per use.
pub fn expected(size: Size) -> Vec<u8> {
    let uses =
        |g: u32| (size.dispatches / size.groups) + u32::from(g < size.dispatches % size.groups);
    let mut out = Vec::new();
    for g in 0..size.groups {
        for lid in 0..(SLOT / 4) as u32 {
            let v = if lid < 64 {
                (g * 64 + lid).wrapping_mul(uses(g))
            } else {
                0
            };
            out.extend(v.to_le_bytes());
        }
    }
    out
}
