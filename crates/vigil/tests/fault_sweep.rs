//! The fault sweep: at every native call site, each error the site can return is injected
//! into a workload that touches every kind of object. Each time vigil returns errors (it
//! never panics), no native object leaks (live counts after close, and the validation
//! layer's object tracking at device destruction), and no wait outlives its bound.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};
use vigil::*;

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) { data[id.x] = data[id.x] + u32(textureSampleLevel(tex, samp, vec2<f32>(0.5), 0.0).x * 10.0); }
}
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(f32(i & 1u) * 2.0 - 1.0, f32(i >> 1u) * 2.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.5, 0.25, 1.0); }
"#;

/// Sites where one fault may be absorbed by a retry (see the sweep).
const ABSORBED_ONCE: &[&str] = &["vkGetSemaphoreCounterValue"];

/// Runs every kind of call once; returns how many were refused, and the longest wait.
fn workload(d: &Device) -> (usize, Duration) {
    let mut errors = 0;
    let mut longest = Duration::ZERO;
    let mut note = |r: Result<()>| {
        if let Err(e) = r {
            assert!(!e.message().is_empty());
            errors += 1;
        }
    };
    let mut timed = |f: &mut dyn FnMut() -> Result<()>, note: &mut dyn FnMut(Result<()>)| {
        let t = Instant::now();
        let r = f();
        longest = longest.max(t.elapsed());
        note(r);
    };
    let storage = d.create_buffer(&BufferDescriptor {
        label: "data",
        size: 1024,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
    });
    let readback = d.create_buffer(&BufferDescriptor {
        label: "readback",
        size: 1024,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    });
    let texture = d.create_texture(&TextureDescriptor {
        label: "tex",
        size: [8, 8],
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::TEXTURE_BINDING
            | TextureUsages::COPY_DST
            | TextureUsages::RENDER_ATTACHMENT
            | TextureUsages::COPY_SRC,
        ..Default::default()
    });
    let view = texture
        .as_ref()
        .ok()
        .map(|t| d.create_texture_view(*t, &TextureViewDescriptor::default()));
    let sampler = d.create_sampler(&SamplerDescriptor::default());
    let module = d.create_shader_module(&ShaderModuleDescriptor {
        label: "sweep",
        wgsl: KERNEL,
    });
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        array: None,
    };
    let bgl = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "sweep",
        entries: &[
            entry(
                0,
                BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            ),
            entry(
                1,
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
            ),
            entry(2, BindingType::Sampler(SamplerBindingType::Filtering)),
        ],
    });
    for r in [
        storage.as_ref().err(),
        readback.as_ref().err(),
        texture.as_ref().err(),
        view.as_ref().and_then(|v| v.as_ref().err()),
        sampler.as_ref().err(),
        module.as_ref().err(),
        bgl.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    {
        note(Err(r.clone()));
    }
    if let (
        Ok(storage),
        Ok(readback),
        Ok(texture),
        Some(Ok(view)),
        Ok(sampler),
        Ok(module),
        Ok(bgl),
    ) = (storage, readback, texture, view, sampler, module, bgl)
    {
        note(d.write_buffer(storage, 0, &[1; 1024]));
        note(d.write_texture(
            texture,
            TexelCopyTextureInfo::default(),
            &[200; 256],
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 32,
                rows_per_image: None,
            },
            [8, 8, 1],
        ));
        let group = d.create_bind_group(&BindGroupDescriptor {
            label: "sweep",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(storage)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureView(view),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Sampler(sampler),
                },
            ],
        });
        let layout = d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "sweep",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        });
        let empty = d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "empty",
            bind_group_layouts: &[],
            immediate_size: 0,
        });
        // The pipeline through a pipeline cache, whose data is read back after.
        let cache = d.create_pipeline_cache(&PipelineCacheDescriptor {
            label: "sweep",
            ..Default::default()
        });
        let pipeline = layout.clone().and_then(|l| {
            d.create_compute_pipeline(&ComputePipelineDescriptor {
                label: "sweep",
                layout: l,
                module,
                entry_point: "main",
                constants: &[],
                cache: cache.clone().ok(),
            })
        });
        match cache {
            Ok(c) => note(d.pipeline_cache_data(c).map(drop)),
            Err(e) => note(Err(e)),
        }
        let target = d.create_texture(&TextureDescriptor {
            label: "rt",
            size: [8, 8],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
            ..Default::default()
        });
        let rt_view = target
            .clone()
            .and_then(|t| d.create_texture_view(t, &TextureViewDescriptor::default()));
        let targets = [Some(ColorTargetState {
            format: TextureFormat::Rgba8Unorm,
            blend: None,
            write_mask: ColorWrites::ALL,
        })];
        let render = empty.clone().and_then(|l| {
            d.create_render_pipeline(&RenderPipelineDescriptor {
                label: "sweep",
                layout: l,
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
                    topology: PrimitiveTopology::TriangleStrip,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: MultisampleState::default(),
                multiview_mask: None,
                cache: None,
            })
        });
        let queries = d
            .features()
            .contains(Features::TIMESTAMP_QUERY)
            .then(|| d.create_query_set("sweep", 2));
        if let Some(Err(e)) = &queries {
            note(Err(e.clone()));
        }
        let record = || -> Result<CommandBuffer> {
            let mut e = d.create_command_encoder(&CommandEncoderDescriptor { label: "sweep" })?;
            e.begin_compute_pass(&ComputePassDescriptor::default())?;
            e.set_compute_pipeline(pipeline.clone()?)?;
            e.set_bind_group(0, group.clone()?, &[])?;
            e.dispatch(16, 1, 1)?;
            e.end_compute_pass()?;
            e.begin_render_pass(&RenderPassDescriptor {
                label: "sweep",
                color_attachments: &[Some(RenderPassColorAttachment {
                    view: rt_view.clone()?,
                    depth_slice: None,
                    resolve_target: None,
                    load: LoadOp::Clear([0.0; 4]),
                    store: StoreOp::Store,
                })],
                ..Default::default()
            })?;
            e.set_render_pipeline(render.clone()?)?;
            e.draw(0..4, 0..1)?;
            e.end_render_pass()?;
            if let Some(Ok(q)) = &queries {
                e.write_timestamp(*q, 0)?;
                e.write_timestamp(*q, 1)?;
            }
            e.copy_buffer_to_buffer(storage, 0, readback, 0, 1024)?;
            e.finish()
        };
        match record() {
            Ok(cb) => match d.submit([cb]) {
                Ok(serial) => {
                    timed(
                        &mut || {
                            d.wait_for_serial_unless_stalled(serial, Duration::from_millis(500))
                        },
                        &mut note,
                    );
                    timed(
                        &mut || {
                            let m = d.map_buffer_async(readback, MapMode::Read, 0, 1024)?;
                            d.wait_for_mapping(
                                m,
                                &MapWaitParams {
                                    timeout: Duration::from_millis(500),
                                    slice: Duration::from_millis(5),
                                },
                                &|| false,
                            )?;
                            d.mapped_bytes(m, |b| b.len())?;
                            d.unmap(m)
                        },
                        &mut note,
                    );
                }
                Err(e) => note(Err(e)),
            },
            Err(e) => note(Err(e)),
        }
        timed(&mut || d.read_buffer(storage, 0, 64).map(|_| ()), &mut note);
        timed(
            &mut || {
                d.read_texture(texture, TexelCopyTextureInfo::default(), [8, 8])
                    .map(|_| ())
            },
            &mut note,
        );
        match d.share() {
            Ok(other) => {
                let r = other
                    .create_command_encoder(&CommandEncoderDescriptor::default())
                    .and_then(|e| e.finish())
                    .and_then(|cb| other.submit([cb]).map(|_| ()));
                note(r);
            }
            Err(e) => note(Err(e)),
        }
        note(d.poll().map(|_| ()));
    }
    (errors, longest)
}

#[test]
fn every_fault_at_every_call_site_fails_closed_and_leaks_nothing() {
    let instance = Instance::<DefaultApi>::new(&InstanceDescriptor {
        app_name: "fault sweep".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .unwrap();
    let log = instance.validation_log().unwrap();
    let adapter = instance.default_adapter().unwrap();
    let open = || {
        adapter
            .request_device(&DeviceDescriptor {
                required_features: adapter.features() & Features::TIMESTAMP_QUERY,
                required_limits: adapter.limits().clone(),
                ..DeviceDescriptor::default()
            })
            .unwrap()
    };
    // A clean run first: the workload itself is error-free.
    let d = open();
    let (errors, _) = workload(&d);
    assert_eq!(errors, 0, "the workload has errors without faults");
    let report = d.close();
    assert_eq!(report.live_native_objects, 0);
    let sites = open().seams().call_sites().to_vec();
    let mut runs = 0;
    let mut unreached = Vec::new();
    for site in &sites {
        for &kind in site.errors {
            for mode in [FaultMode::Always, FaultMode::Once] {
                let d = open();
                d.seams().set_stall_timeout(Duration::from_millis(500));
                // Waits must reach the driver's wait for its faults to be tried.
                d.seams().set_spin_before_blocking(Duration::ZERO);
                d.seams().inject_fault(site.name, kind, mode);
                let (errors, longest) = workload(&d);
                let fired = d.seams().faults_fired();
                d.seams().clear_faults();
                if fired == 0 {
                    // Only sites that some devices never reach may go unfired, and those
                    // are reported; every other site must be reached by the workload.
                    let why = site.only_if.unwrap_or_else(|| {
                        panic!("{} was never called by the workload", site.name)
                    });
                    println!("{}: not reached on this device (only on {why})", site.name);
                    unreached.push(site.name);
                    let _ = d.close();
                    continue;
                }
                // A single failed completion query may land in the opportunistic poll after a
                // successful submission, which asks again next time instead of failing a call
                // that already succeeded. Every other fault must surface as an error.
                let absorbed =
                    mode == FaultMode::Once && ABSORBED_ONCE.contains(&site.name) && errors == 0;
                assert!(
                    errors > 0 || absorbed,
                    "{} {kind:?} {mode:?}: fired {fired} times but no call was refused",
                    site.name
                );
                assert!(
                    longest < Duration::from_millis(1500),
                    "{} {kind:?}: a wait ran {longest:?}",
                    site.name
                );
                let report = d.close();
                assert_eq!(
                    report.live_native_objects, 0,
                    "{} {kind:?} {mode:?} leaked native objects",
                    site.name
                );
                assert_eq!(
                    log.count(),
                    0,
                    "{} {kind:?} {mode:?}: {:?}",
                    site.name,
                    log.messages()
                );
                runs += 1;
            }
        }
    }
    let reached = sites
        .iter()
        .filter(|s| !unreached.contains(&s.name))
        .count();
    assert!(
        reached > 0 && runs >= 2 * reached,
        "{runs} runs over {reached} sites"
    );
    println!("{runs} faulted runs over {reached} call sites");
}
