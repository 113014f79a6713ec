//! **churn**: create many small storage buffers, each with a bind group over it, then
//! destroy them all. Timed in two parts, creation and destruction (vigil's destruction
//! includes the poll that releases what the GPU no longer uses).
//!
//! The output is what each path counted: objects created and destroyed, and the native
//! objects left over (zero when nothing leaked).

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::{Bind, Raw};
use crate::wgpu_ctx::Wgpu;
use ash::vk;
use std::time::Instant;

/// Buffer size, bytes.
const SIZE: u64 = 256;

fn output(created: u32, destroyed: u32, leaked: u64) -> Vec<u8> {
    let mut out = created.to_le_bytes().to_vec();
    out.extend(destroyed.to_le_bytes());
    out.extend(leaked.to_le_bytes());
    out
}

/// Through vigil.
pub fn vigil(device: &vigil::Device, count: u32, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "churn",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                array: None,
            }],
        })
        .map_err(e)?;
    device.poll().map_err(e)?;
    let baseline = device.live_native_objects();
    let code = crate::code_load::blocks_chosen();
    let mut counts = (0, 0);
    let [create, destroy] = repeat(plan, || {
        let t = Instant::now();
        let mut made = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let buffer = device
                .create_buffer(&BufferDescriptor {
                    label: "churn",
                    size: SIZE,
                    usage: BufferUsages::STORAGE,
                })
                .map_err(e)?;
            let group = device
                .create_bind_group(&BindGroupDescriptor {
                    label: "churn",
                    layout: bgl,
                    entries: &[BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::Buffer(BufferBinding::whole(buffer)),
                    }],
                })
                .map_err(e)?;
            made.push((buffer, group));
            crate::code_load::run(code);
        }
        let create = t.elapsed();
        let t = Instant::now();
        let mut destroyed = 0;
        for (buffer, group) in made {
            device.destroy_bind_group(group).map_err(e)?;
            device.destroy_buffer(buffer).map_err(e)?;
            destroyed += 1;
            crate::code_load::run(code);
        }
        device.poll().map_err(e)?;
        let destroy = t.elapsed();
        counts = (count, destroyed);
        Ok([create, destroy])
    })?;
    let leaked = device.live_native_objects().saturating_sub(baseline);
    device.destroy_bind_group_layout(bgl).map_err(e)?;
    Ok(PathResult {
        path: "vigil",
        metrics: vec![("create", create), ("destroy", destroy)],
        output: output(counts.0, counts.1, leaked),
    })
}

/// Through raw ash: a buffer, its memory and a descriptor set each, freed one by one.
pub fn ash(raw: &mut Raw, count: u32, plan: Plan) -> Result<PathResult, String> {
    let d = raw.device.clone();
    let dsl = raw.set_layout(&[(
        0,
        vk::DescriptorType::STORAGE_BUFFER,
        vk::ShaderStageFlags::COMPUTE,
    )])?;
    let pool = raw.descriptor_pool(count, &[(vk::DescriptorType::STORAGE_BUFFER, count)], true)?;
    let code = crate::code_load::blocks_chosen();
    if code > 0 {
        eprintln!(
            "code load: {} KiB a unit; run back to back, {:.1} ns a run",
            code as u64 * crate::code_load::BLOCK_KIB,
            crate::code_load::hot_ns(code)
        );
    }
    let mut counts = (0, 0);
    let result = repeat(plan, || {
        let t = Instant::now();
        let mut made = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let buffer = raw.buffer(
                SIZE,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                gpu_allocator::MemoryLocation::GpuOnly,
            )?;
            let set = raw.allocate_set(pool, dsl)?;
            raw.write_set(
                set,
                &[(
                    0,
                    Bind::Buffer(vk::DescriptorType::STORAGE_BUFFER, buffer.raw, 0, SIZE),
                )],
            );
            made.push((buffer, set));
            crate::code_load::run(code);
        }
        let create = t.elapsed();
        let t = Instant::now();
        let mut destroyed = 0;
        for (buffer, set) in made {
            // SAFETY: the set is unused; the pool allows freeing single sets.
            let _ = unsafe { d.free_descriptor_sets(pool, &[set]) };
            raw.destroy_buffer(buffer);
            destroyed += 1;
            crate::code_load::run(code);
        }
        let destroy = t.elapsed();
        counts = (count, destroyed);
        Ok::<_, String>([create, destroy])
    });
    // SAFETY: every set was freed; nothing is pending.
    unsafe { d.destroy_descriptor_pool(pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_descriptor_set_layout(dsl, None) };
    let [create, destroy] = result?;
    Ok(PathResult {
        path: "ash",
        metrics: vec![("create", create), ("destroy", destroy)],
        output: output(counts.0, counts.1, 0),
    })
}

/// Through wgpu (destruction is the drop of the objects, then a poll).
pub fn wgpu(w: &Wgpu, count: u32, plan: Plan) -> Result<PathResult, String> {
    let dev = &w.device;
    let bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("churn"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let mut counts = (0, 0);
    let [create, destroy] = repeat(plan, || {
        let t = Instant::now();
        let mut made = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let buffer = dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("churn"),
                size: SIZE,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            let group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("churn"),
                layout: &bgl,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            });
            made.push((buffer, group));
        }
        let create = t.elapsed();
        let t = Instant::now();
        let mut destroyed = 0;
        for (buffer, group) in made {
            drop(group);
            buffer.destroy();
            drop(buffer);
            destroyed += 1;
        }
        w.wait()?;
        let destroy = t.elapsed();
        counts = (count, destroyed);
        Ok::<_, String>([create, destroy])
    })?;
    Ok(PathResult {
        path: "wgpu",
        metrics: vec![("create", create), ("destroy", destroy)],
        output: output(counts.0, counts.1, 0),
    })
}

/// What every path must report.
pub fn expected(count: u32) -> Vec<u8> {
    output(count, count, 0)
}
