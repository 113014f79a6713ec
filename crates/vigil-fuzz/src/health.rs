//! Before and after the calls: foreign handles from a second device, and the check that
//! the device is still whole (nothing left behind, a compute job still right).

use crate::recipes::RECIPES;
use crate::report::{FindingKind, Report};
use crate::world::World;
use std::time::Duration;
use vigil::{
    BindGroupDescriptor, BindGroupEntry, BindGroupLayoutDescriptor, BindingResource, BufferBinding,
    BufferDescriptor, BufferUsages, CommandEncoderDescriptor, ComputePassDescriptor,
    ComputePipelineDescriptor, Device, PipelineLayoutDescriptor, SamplerDescriptor,
    ShaderModuleDescriptor, TextureDescriptor, TextureFormat, TextureUsages, TextureViewDescriptor,
};

/// Makes one object of most kinds on `other` (a second device over the same native
/// device) so that calls can be handed foreign handles.
pub fn make_foreign<'d>(w: &mut World<'d>, other: &'d Device) {
    w.other = Some(other);
    if let Ok(b) = other.create_buffer(&BufferDescriptor {
        label: "foreign buffer",
        size: 256,
        usage: BufferUsages::all() - BufferUsages::MAP_READ - BufferUsages::MAP_WRITE,
    }) {
        w.buffers.foreign.push(b);
    }
    if let Ok(t) = other.create_texture(&TextureDescriptor {
        label: "foreign texture",
        size: [16, 16],
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::all(),
        ..TextureDescriptor::default()
    }) {
        w.textures.foreign.push(t);
        if let Ok(v) = other.create_texture_view(t, &TextureViewDescriptor::default()) {
            w.views.foreign.push(v);
        }
    }
    if let Ok(s) = other.create_sampler(&SamplerDescriptor::default()) {
        w.samplers.foreign.push(s);
    }
    if let Ok(s) = other.create_headless_surface("foreign surface") {
        w.surfaces.foreign.push(s);
    }
    let recipe = &RECIPES[0];
    if let Ok(l) = other.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "foreign layout",
        entries: &(recipe.group)(),
    }) {
        w.layouts.foreign.push(l);
        if let Ok(p) = other.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "foreign pipeline layout",
            bind_group_layouts: &[l],
            immediate_size: 0,
        }) {
            w.pipeline_layouts.foreign.push(p);
            if let Ok(m) = other.create_shader_module(&ShaderModuleDescriptor {
                label: "foreign module",
                wgsl: recipe.wgsl,
            }) {
                w.modules.foreign.push(m);
                if let Ok(c) = other.create_compute_pipeline(&ComputePipelineDescriptor {
                    label: "foreign pipeline",
                    layout: p,
                    module: m,
                    entry_point: "main",
                    constants: &[],
                    cache: None,
                }) {
                    w.compute.foreign.push(c);
                }
            }
        }
        if let Some(&b) = w.buffers.foreign.first() {
            let whole = BindingResource::Buffer(BufferBinding::whole(b));
            if let Ok(g) = other.create_bind_group(&BindGroupDescriptor {
                label: "foreign group",
                layout: l,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: whole,
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: whole,
                    },
                ],
            }) {
                w.groups.foreign.push(g);
            }
        }
    }
}

/// Ends everything open, destroys every live object, drains the queue, checks that no
/// object is left, and runs a small compute job whose result is checked.
pub fn drain_and_check(w: &mut World<'_>, report: &mut Report) {
    let at = w.calls;
    w.encoders.clear();
    w.command_buffers.clear();
    let device = w.device;
    macro_rules! destroy_all {
        ($pool:ident, $method:ident) => {
            let live: Vec<_> = w
                .$pool
                .items
                .iter()
                .filter(|e| e.live)
                .map(|e| e.handle)
                .collect();
            for h in live {
                if let Err(e) = device.$method(h) {
                    if !device.is_lost() {
                        w.finding(
                            FindingKind::HealthCheck,
                            at,
                            format!("{} of a live handle was refused: {e}", stringify!($method)),
                        );
                    }
                }
                w.$pool.kill(h);
            }
        };
    }
    destroy_all!(mappings, unmap);
    destroy_all!(bundles, destroy_render_bundle);
    destroy_all!(groups, destroy_bind_group);
    destroy_all!(tlas, destroy_tlas);
    destroy_all!(blas, destroy_blas);
    destroy_all!(gpu_heaps, destroy_gpu_heap);
    destroy_all!(texture_heaps, destroy_texture_heap);
    destroy_all!(sampler_heaps, destroy_sampler_heap);
    // The world's own pipelines and heap, outside its pools.
    let refused = |w: &mut World<'_>, what: &str, r: vigil::Result<()>| {
        if let Err(e) = r {
            if !device.is_lost() {
                w.finding(
                    FindingKind::HealthCheck,
                    at,
                    format!("destroying {what} was refused: {e}"),
                );
            }
        }
    };
    for p in [w.pull.take(), w.mesh_triangle.take(), w.sample_draw.take()]
        .into_iter()
        .flatten()
    {
        refused(
            w,
            "a pointer render pipeline",
            device.destroy_render_pipeline(p),
        );
    }
    if let Some((h, _)) = w.args.take() {
        refused(w, "the draw arguments heap", device.destroy_gpu_heap(h));
    }
    for b in std::mem::take(&mut w.huge_args) {
        refused(
            w,
            "a buffer of huge draw arguments",
            device.destroy_buffer(b),
        );
    }
    if let Some(p) = w.sample.take() {
        refused(
            w,
            "the heap-sampling pipeline",
            device.destroy_compute_pipeline(p),
        );
    }
    if let Some(p) = w.bump.take() {
        refused(
            w,
            "the pointer pipeline",
            device.destroy_compute_pipeline(p),
        );
    }
    destroy_all!(bind_group_pools, destroy_bind_group_pool);
    w.pool_groups.clear();
    destroy_all!(compute, destroy_compute_pipeline);
    destroy_all!(render, destroy_render_pipeline);
    destroy_all!(pipeline_layouts, destroy_pipeline_layout);
    destroy_all!(layouts, destroy_bind_group_layout);
    destroy_all!(modules, destroy_shader_module);
    // Surfaces before textures: a frame out goes with its surface (destroying it is
    // refused), and leaves the textures with its surface.
    let surfaces: Vec<_> = w
        .surfaces
        .items
        .iter()
        .filter(|e| e.live)
        .map(|e| e.handle)
        .collect();
    for s in surfaces {
        if !crate::ops::surfaces::destroy_one(w, s, false) && !device.is_lost() {
            w.finding(
                FindingKind::HealthCheck,
                at,
                format!("destroy_surface of a live surface ({s:?}) was refused"),
            );
        }
    }
    destroy_all!(views, destroy_texture_view);
    destroy_all!(textures, destroy_texture);
    destroy_all!(placement_heaps, destroy_placement_heap);
    destroy_all!(samplers, destroy_sampler);
    destroy_all!(query_sets, destroy_query_set);
    destroy_all!(occlusion_sets, destroy_query_set);
    destroy_all!(statistics_sets, destroy_query_set);
    destroy_all!(pipeline_caches, destroy_pipeline_cache);
    destroy_all!(buffers, destroy_buffer);
    if device.is_lost() {
        report.health_ok = false;
        return;
    }
    let last = device.last_submitted_serial();
    if let Err(e) = device.wait_for_serial_unless_stalled(last, Duration::from_secs(30)) {
        w.finding(
            FindingKind::HealthCheck,
            at,
            format!("draining to serial {last} failed: {e}"),
        );
    }
    let _ = device.poll();
    // The timeline's own objects go once it is stopped and collected.
    device.stop_timeline();
    let _ = device.timeline();
    let left: Vec<String> = device
        .live_objects()
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    if !left.is_empty() {
        w.finding(
            FindingKind::Leak,
            at,
            format!(
                "after destroying everything, vigil still counts {}",
                left.join(", ")
            ),
        );
    }
    match compute_job(device) {
        Ok(()) => report.health_ok = true,
        Err(why) => {
            report.health_ok = false;
            w.finding(FindingKind::HealthCheck, at, why);
        }
    }
    w.check_validation(at, "health check");
}

/// The native object counts after everything was destroyed (and the second device closed).
pub fn native_counts(device: &Device, report: &mut Report) {
    let _ = device.poll();
    report.native_after = device.live_native_objects();
    report.native_pooled = device.pooled_native_objects();
    let own = report.native_after.saturating_sub(report.native_pooled);
    if own != report.native_baseline {
        report.findings.push(crate::report::Finding {
            kind: FindingKind::Leak,
            call: report.calls,
            signature: "leak:native-after-destroy".into(),
            detail: format!(
                "after destroying everything: {} native objects, {} of them pooled for reuse; a new device had {}",
                report.native_after, report.native_pooled, report.native_baseline
            ),
            recent: Vec::new(),
            more: 0,
        });
    }
}

/// `dst[i] = src[i] + 1` over 1,024 words, checked.
fn compute_job(device: &Device) -> Result<(), String> {
    const N: u32 = 1024;
    let step = |what: &str, e: vigil::Error| format!("health check: {what} failed: {e}");
    let recipe = &RECIPES[0];
    let buffer = |label, usage| {
        device.create_buffer(&BufferDescriptor {
            label,
            size: u64::from(N) * 4,
            usage,
        })
    };
    let src = buffer("health src", BufferUsages::STORAGE | BufferUsages::COPY_DST)
        .map_err(|e| step("create_buffer", e))?;
    let dst = buffer("health dst", BufferUsages::STORAGE | BufferUsages::COPY_SRC)
        .map_err(|e| step("create_buffer", e))?;
    let words: Vec<u8> = (0..N).flat_map(|i| (i * 3).to_le_bytes()).collect();
    device
        .write_buffer(src, 0, &words)
        .map_err(|e| step("write_buffer", e))?;
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "health",
            entries: &(recipe.group)(),
        })
        .map_err(|e| step("create_bind_group_layout", e))?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "health",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(|e| step("create_pipeline_layout", e))?;
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "health",
            wgsl: recipe.wgsl,
        })
        .map_err(|e| step("create_shader_module", e))?;
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "health",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(|e| step("create_compute_pipeline", e))?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "health",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(src)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(dst)),
                },
            ],
        })
        .map_err(|e| step("create_bind_group", e))?;
    let mut encoder = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "health" })
        .map_err(|e| step("create_command_encoder", e))?;
    encoder
        .begin_compute_pass(&ComputePassDescriptor::default())
        .and_then(|()| encoder.set_compute_pipeline(pipeline))
        .and_then(|()| encoder.set_bind_group(0, group, &[]))
        .and_then(|()| encoder.dispatch(N / 8, 1, 1))
        .and_then(|()| encoder.end_compute_pass())
        .map_err(|e| step("recording", e))?;
    let cb = encoder.finish().map_err(|e| step("finish", e))?;
    device.submit([cb]).map_err(|e| step("submit", e))?;
    let bytes = device
        .read_buffer(dst, 0, u64::from(N) * 4)
        .map_err(|e| step("read_buffer", e))?;
    let wrong = bytes
        .chunks_exact(4)
        .enumerate()
        .filter(|(i, c)| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) != *i as u32 * 3 + 1)
        .count();
    let _ = device.destroy_bind_group(group);
    let _ = device.destroy_compute_pipeline(pipeline);
    let _ = device.destroy_shader_module(module);
    let _ = device.destroy_pipeline_layout(layout);
    let _ = device.destroy_bind_group_layout(bgl);
    let _ = device.destroy_buffer(src);
    let _ = device.destroy_buffer(dst);
    let _ = device.poll();
    if wrong > 0 {
        return Err(format!(
            "health check: {wrong} of {N} words of the compute job's result are wrong"
        ));
    }
    Ok(())
}
