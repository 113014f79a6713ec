//! Acceleration structures and WGSL ray queries on a real device, with the validation
//! layer (synchronization validation included) on: rays traced in a compute shader, their
//! hits read back and compared with what the scene's geometry says.
//!
//! On an adapter without `RAY_QUERY` the tests check the refusals instead: the feature
//! cannot be requested, and every acceleration structure call is refused naming it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, gpu_with, read_u32};
use std::time::Duration;
use vigil::*;

/// A device with `RAY_QUERY`, or `None` on an adapter without it, after checking that
/// asking for it there is refused.
fn device() -> Option<Gpu> {
    let mut supported = false;
    let gpu = gpu_with(|adapter| {
        supported = adapter.features().contains(Features::RAY_QUERY);
        if !supported {
            let err = adapter
                .request_device(&DeviceDescriptor {
                    required_features: Features::RAY_QUERY,
                    ..DeviceDescriptor::default()
                })
                .unwrap_err();
            assert_eq!(err.rule(), Rule::DeviceFeature);
        }
        DeviceDescriptor {
            label: "ray queries".into(),
            required_features: adapter.features() & Features::RAY_QUERY,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        }
    });
    supported.then_some(gpu)
}

/// Positions (Float32x3) or indices in a `BLAS_INPUT` buffer.
fn input(d: &Device, bytes: &[u8]) -> Buffer {
    d.create_buffer_init(&BufferInitDescriptor {
        label: "blas input",
        contents: bytes,
        usage: BufferUsages::BLAS_INPUT | BufferUsages::STORAGE,
    })
    .unwrap()
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn translate(x: f32, y: f32, z: f32) -> [f32; 12] {
    [1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, z]
}

const QUAD_SIZE: TriangleGeometrySize = TriangleGeometrySize {
    vertex_format: VertexFormat::Float32x3,
    max_vertex_count: 4,
    index_format: Some(IndexFormat::Uint16),
    max_primitive_count: 2,
    opaque: true,
};

const TRIANGLE_SIZE: TriangleGeometrySize = TriangleGeometrySize {
    vertex_format: VertexFormat::Float32x3,
    max_vertex_count: 3,
    index_format: None,
    max_primitive_count: 1,
    opaque: true,
};

/// The unit quad (indexed, x and y in 0..1 at z 0) and the triangle (0,0), (1,0), (0,1),
/// as bottom-level structures with their build entries' geometries.
struct Scene {
    quad: Blas,
    triangle: Blas,
    quad_geometry: [BlasTriangleGeometry; 1],
    triangle_geometry: [BlasTriangleGeometry; 1],
}

fn scene(d: &Device) -> Scene {
    let quad_vertices = input(
        d,
        &floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]),
    );
    let quad_indices = input(
        d,
        &[0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let triangle_vertices = input(d, &floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]));
    let quad = d
        .create_blas(&BlasDescriptor {
            label: "quad",
            geometries: &[QUAD_SIZE],
            flags: AccelerationStructureFlags::PREFER_FAST_TRACE,
        })
        .unwrap();
    let triangle = d
        .create_blas(&BlasDescriptor {
            label: "triangle",
            geometries: &[TRIANGLE_SIZE],
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap();
    Scene {
        quad,
        triangle,
        quad_geometry: [BlasTriangleGeometry {
            vertex_buffer: quad_vertices,
            first_vertex: 0,
            vertex_stride: 12,
            vertex_count: 4,
            index_buffer: Some(quad_indices),
            first_index: 0,
            primitive_count: 2,
        }],
        triangle_geometry: [BlasTriangleGeometry {
            vertex_buffer: triangle_vertices,
            first_vertex: 0,
            vertex_stride: 12,
            vertex_count: 3,
            index_buffer: None,
            first_index: 0,
            primitive_count: 1,
        }],
    }
}

/// Twelve rays along +z from x = -2.75 + 0.5 i, y = 0.5; per ray: the committed hit's kind,
/// custom index and distance (bits) with every instance, and its kind when the cull mask
/// leaves out instances whose mask is 0x02.
const TRACE: &str = "enable wgpu_ray_query;
@group(0) @binding(0) var acc: acceleration_structure;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 48>;
fn trace(origin: vec3<f32>, mask: u32) -> RayIntersection {
    var rq: ray_query;
    rayQueryInitialize(&rq, acc, RayDesc(0u, mask, 0.0, 100.0, origin, vec3<f32>(0.0, 0.0, 1.0)));
    while (rayQueryProceed(&rq)) {}
    return rayQueryGetCommittedIntersection(&rq);
}
@compute @workgroup_size(12) fn main(@builtin(local_invocation_index) i: u32) {
    let origin = vec3<f32>(-2.75 + 0.5 * f32(i), 0.5, 0.0);
    let all = trace(origin, 0xFFu);
    out[i * 4u] = all.kind;
    out[i * 4u + 1u] = all.instance_custom_data;
    out[i * 4u + 2u] = bitcast<u32>(all.t);
    out[i * 4u + 3u] = trace(origin, 0x01u).kind;
}";

struct Tracer {
    pipeline: ComputePipeline,
    layout: BindGroupLayout,
    out: Buffer,
}

fn tracer(d: &Device) -> Tracer {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "trace",
            wgsl: TRACE,
        })
        .unwrap();
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "trace",
            entries: &[
                BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::AccelerationStructure,
                    array: None,
                },
                BindGroupLayoutEntry {
                    binding: 1,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::Buffer {
                        ty: BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    array: None,
                },
            ],
        })
        .unwrap();
    let pipeline_layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "trace",
            bind_group_layouts: &[layout],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "trace",
            layout: pipeline_layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "hits",
            size: 48 * 4,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    Tracer {
        pipeline,
        layout,
        out,
    }
}

fn trace_group(d: &Device, t: &Tracer, tlas: Tlas) -> BindGroup {
    d.create_bind_group(&BindGroupDescriptor {
        label: "trace",
        layout: t.layout,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::AccelerationStructure(tlas),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::Buffer(BufferBinding::whole(t.out)),
            },
        ],
    })
    .unwrap()
}

fn record_trace(e: &mut CommandEncoder, t: &Tracer, group: BindGroup) {
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(t.pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
}

/// One instance placed over x = `x`..`x + 1` at depth `z`.
#[derive(Clone, Copy)]
struct Placed {
    blas_is_quad: bool,
    x: f32,
    z: f32,
    custom: u32,
    mask: u8,
}

/// What the tracer writes for `placed`, worked out from the geometry on the CPU.
fn expected(placed: &[Placed]) -> Vec<u32> {
    let mut out = Vec::new();
    for i in 0..12 {
        let (x, y) = (-2.75 + 0.5 * i as f32, 0.5f32);
        let hit = |mask: u8| {
            placed
                .iter()
                .filter(|p| p.mask & mask != 0)
                .filter(|p| {
                    let (u, v) = (x - p.x, y);
                    if p.blas_is_quad {
                        (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v)
                    } else {
                        u >= 0.0 && v >= 0.0 && u + v <= 1.0
                    }
                })
                .min_by(|a, b| a.z.total_cmp(&b.z))
                .copied()
        };
        match hit(0xFF) {
            Some(p) => out.extend([1, p.custom, p.z.to_bits()]),
            None => out.extend([0, 0, 0]),
        }
        out.push(u32::from(hit(0x01).is_some()));
    }
    out
}

fn instances(s: &Scene, placed: &[Placed]) -> Vec<TlasInstance> {
    placed
        .iter()
        .map(|p| {
            TlasInstance::new(
                if p.blas_is_quad { s.quad } else { s.triangle },
                translate(p.x, 0.0, p.z),
                p.custom,
                p.mask,
            )
        })
        .collect()
}

fn wait(d: &Device, serial: u64) {
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
}

/// Submits `e`, waits, and reads the tracer's output with misses normalised.
fn traced(d: &Device, t: &Tracer, e: CommandEncoder) -> Vec<u32> {
    wait(d, d.submit([e.finish().unwrap()]).unwrap());
    let mut got = read_u32(d, t.out, 48);
    miss_words(&mut got);
    got
}

/// A miss leaves every word of its ray 0 but the kind, which is 0 too; zeroing the output
/// first makes the comparison exact for misses (the shader writes t and the index anyway).
fn miss_words(got: &mut [u32]) {
    for ray in got.chunks_exact_mut(4) {
        if ray[0] == 0 {
            ray[1] = 0;
            ray[2] = 0;
        }
    }
}

#[test]
fn rays_hit_the_instances_the_scene_places_and_skip_the_masked_one() {
    let Some(d) = device() else {
        return;
    };
    let s = scene(&d);
    let t = tracer(&d);
    let placed = [
        Placed {
            blas_is_quad: true,
            x: 0.0,
            z: 5.0,
            custom: 7,
            mask: 0x01,
        },
        Placed {
            blas_is_quad: true,
            x: 2.0,
            z: 3.0,
            custom: 9,
            mask: 0x01,
        },
        Placed {
            blas_is_quad: false,
            x: -2.0,
            z: 4.0,
            custom: 11,
            mask: 0x02,
        },
    ];
    let tlas = d
        .create_tlas(&TlasDescriptor {
            label: "scene",
            max_instances: 8,
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap();
    let group = trace_group(&d, &t, tlas);
    // Builds and the trace in one command buffer: the fences order them.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "build+trace",
        })
        .unwrap();
    e.build_acceleration_structures(
        &[
            BlasBuildEntry {
                blas: s.quad,
                geometries: &s.quad_geometry,
            },
            BlasBuildEntry {
                blas: s.triangle,
                geometries: &s.triangle_geometry,
            },
        ],
        &[TlasBuildEntry {
            tlas,
            instances: &instances(&s, &placed),
        }],
    )
    .unwrap();
    record_trace(&mut e, &t, group);
    let got = traced(&d, &t, e);
    let want = expected(&placed);
    assert_eq!(got, want);
    // Rays that hit: two quads (two rays each) and the triangle (one ray).
    assert_eq!(got.chunks(4).filter(|r| r[0] == 1).count(), 5);

    // Rebuilt in a later submission with the instances moved: the same group sees the new
    // contents, and the bottom-level structures are reused without a rebuild.
    let moved = [
        Placed {
            x: -3.0,
            z: 2.0,
            ..placed[0]
        },
        Placed {
            x: 1.0,
            z: 6.0,
            ..placed[1]
        },
    ];
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "rebuild" })
        .unwrap();
    e.build_acceleration_structures(
        &[],
        &[TlasBuildEntry {
            tlas,
            instances: &instances(&s, &moved),
        }],
    )
    .unwrap();
    record_trace(&mut e, &t, group);
    let got = traced(&d, &t, e);
    assert_eq!(got, expected(&moved));

    // The bottom-level structures destroyed: the top-level one keeps them, so tracing it
    // again gives the same hits.
    d.destroy_blas(s.quad).unwrap();
    d.destroy_blas(s.triangle).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "after destroy",
        })
        .unwrap();
    record_trace(&mut e, &t, group);
    let got = traced(&d, &t, e);
    assert_eq!(got, expected(&moved));
    d.finish();
}

#[test]
fn a_structure_is_used_only_once_a_build_of_it_was_submitted() {
    let Some(d) = device() else {
        return;
    };
    let s = scene(&d);
    let t = tracer(&d);
    let tlas = d
        .create_tlas(&TlasDescriptor {
            label: "later",
            max_instances: 1,
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap();
    let group = trace_group(&d, &t, tlas);
    // Traced before any build: refused at submission, naming the structure.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "too early" })
        .unwrap();
    record_trace(&mut e, &t, group);
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::AccelUnbuilt);
    assert!(err.to_string().contains("'later'"), "{err}");
    // A top-level build naming a bottom-level structure nobody built: refused likewise.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "unbuilt blas",
        })
        .unwrap();
    e.build_acceleration_structures(
        &[],
        &[TlasBuildEntry {
            tlas,
            instances: &[TlasInstance::new(s.quad, TlasInstance::IDENTITY, 1, 0xFF)],
        }],
    )
    .unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::AccelUnbuilt);
    assert!(err.to_string().contains("'quad'"), "{err}");
    // The bottom-level build in one command buffer, the top-level build and the trace in
    // the next of the same submission: accepted, and the ray at x = 0.25 hits.
    let mut first = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "blas" })
        .unwrap();
    first
        .build_acceleration_structures(
            &[BlasBuildEntry {
                blas: s.quad,
                geometries: &s.quad_geometry,
            }],
            &[],
        )
        .unwrap();
    let mut second = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "tlas+trace",
        })
        .unwrap();
    let placed = [Placed {
        blas_is_quad: true,
        x: 0.0,
        z: 1.5,
        custom: 3,
        mask: 0xFF,
    }];
    second
        .build_acceleration_structures(
            &[],
            &[TlasBuildEntry {
                tlas,
                instances: &instances(&s, &placed),
            }],
        )
        .unwrap();
    record_trace(&mut second, &t, group);
    let serial = d
        .submit([first.finish().unwrap(), second.finish().unwrap()])
        .unwrap();
    wait(&d, serial);
    let mut got = read_u32(&d, t.out, 48);
    miss_words(&mut got);
    assert_eq!(got, expected(&placed));
    d.finish();
}

/// On a device opened without `RAY_QUERY` (whatever the adapter supports): each call is
/// refused with `accel.feature`, and a ray-query shader with `shader.feature`.
#[test]
fn without_the_feature_every_call_is_refused_naming_it() {
    let d = gpu_with(|adapter| DeviceDescriptor {
        label: "no ray queries".into(),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    });
    let err = d
        .create_blas(&BlasDescriptor {
            label: "b",
            geometries: &[QUAD_SIZE],
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::AccelFeature);
    let err = d
        .create_tlas(&TlasDescriptor {
            label: "t",
            max_instances: 1,
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::AccelFeature);
    let err = d
        .create_buffer(&BufferDescriptor {
            label: "input",
            size: 64,
            usage: BufferUsages::BLAS_INPUT,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::AccelFeature);
    let err = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "trace",
            wgsl: TRACE,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::ShaderFeature);
    d.finish();
}

/// Acceleration structures without ray queries (what a device whose driver builds them but
/// has no `VK_KHR_ray_query` offers, the H200's among them): positions written by a compute
/// shader are built from (the build waits for the write), structures are rebuilt, bound in
/// a group that a dispatch uses, destroyed while a top-level structure holds them, and
/// everything is released at the end; the layer, synchronization validation included,
/// stays silent. A ray-query shader is refused on such a device, naming `RAY_QUERY`.
#[test]
fn structures_build_bind_and_release_without_ray_queries() {
    let mut supported = false;
    let d = gpu_with(|adapter| {
        supported = adapter
            .features()
            .contains(Features::ACCELERATION_STRUCTURE);
        DeviceDescriptor {
            label: "acceleration structures".into(),
            required_features: adapter.features() & Features::ACCELERATION_STRUCTURE,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        }
    });
    if !supported {
        let err = d
            .create_tlas(&TlasDescriptor {
                label: "t",
                max_instances: 1,
                flags: AccelerationStructureFlags::empty(),
            })
            .unwrap_err();
        assert_eq!(err.rule(), Rule::AccelFeature);
        return;
    }
    assert!(!d.features().contains(Features::RAY_QUERY));
    let err = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "trace",
            wgsl: TRACE,
        })
        .unwrap_err();
    assert_eq!(err.rule(), Rule::ShaderFeature);
    assert!(err.to_string().contains("RAY_QUERY"), "{err}");
    // A compute shader writes a quad's positions (4 × Float32x3) and indices.
    let positions = d
        .create_buffer(&BufferDescriptor {
            label: "positions",
            size: 48,
            usage: BufferUsages::BLAS_INPUT | BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let indices = input(
        &d,
        &[0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "positions",
            wgsl: "@group(0) @binding(0) var<storage, read_write> p: array<f32, 12>;
            @compute @workgroup_size(12) fn main(@builtin(local_invocation_index) i: u32) {
                let corner = i / 3u;
                let axis = i % 3u;
                let x = f32((corner == 1u) || (corner == 2u));
                let y = f32(corner >= 2u);
                p[i] = select(0.0, select(y, x, axis == 0u), axis != 2u);
            }",
        })
        .unwrap();
    let entries = [
        BindGroupLayoutEntry {
            binding: 0,
            visibility: ShaderStages::COMPUTE,
            ty: BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            array: None,
        },
        BindGroupLayoutEntry {
            binding: 1,
            visibility: ShaderStages::COMPUTE,
            ty: BindingType::AccelerationStructure,
            array: None,
        },
    ];
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "positions",
            entries: &entries,
        })
        .unwrap();
    let pipeline_layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "positions",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "positions",
            layout: pipeline_layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let quad = d
        .create_blas(&BlasDescriptor {
            label: "quad",
            geometries: &[QUAD_SIZE],
            flags: AccelerationStructureFlags::PREFER_FAST_BUILD,
        })
        .unwrap();
    let tlas = d
        .create_tlas(&TlasDescriptor {
            label: "scene",
            max_instances: 4,
            flags: AccelerationStructureFlags::empty(),
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "positions",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(positions)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::AccelerationStructure(tlas),
                },
            ],
        })
        .unwrap();
    let geometry = [BlasTriangleGeometry {
        vertex_buffer: positions,
        first_vertex: 0,
        vertex_stride: 12,
        vertex_count: 4,
        index_buffer: Some(indices),
        first_index: 0,
        primitive_count: 2,
    }];
    let instances: Vec<TlasInstance> = (0..4)
        .map(|i| TlasInstance::new(quad, translate(i as f32 * 2.0, 0.0, 1.0), i, 0xFF))
        .collect();
    // Write the positions, build both levels from them, then a dispatch whose group holds
    // the structure just built: one command buffer, every hazard ordered by vigil.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor {
            label: "write+build",
        })
        .unwrap();
    let run = |e: &mut CommandEncoder| {
        e.begin_compute_pass(&ComputePassDescriptor::default())
            .unwrap();
        e.set_compute_pipeline(pipeline).unwrap();
        e.set_bind_group(0, group, &[]).unwrap();
        e.dispatch(1, 1, 1).unwrap();
        e.end_compute_pass().unwrap();
    };
    // The group's first use precedes the build here: refused at submission.
    run(&mut e);
    e.build_acceleration_structures(
        &[BlasBuildEntry {
            blas: quad,
            geometries: &geometry,
        }],
        &[TlasBuildEntry {
            tlas,
            instances: &instances,
        }],
    )
    .unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::AccelUnbuilt);
    // Built in a submission of its own first (from the zeroed positions: degenerate
    // triangles, which builds accept).
    let mut first = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "build" })
        .unwrap();
    first
        .build_acceleration_structures(
            &[BlasBuildEntry {
                blas: quad,
                geometries: &geometry,
            }],
            &[TlasBuildEntry {
                tlas,
                instances: &instances,
            }],
        )
        .unwrap();
    let serial = d.submit([first.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    // Now the structure is built: the dispatch rewrites the positions, the bottom level is
    // rebuilt from them (after the write) and the top level from it, then another dispatch
    // uses the group again (after the builds).
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "again" })
        .unwrap();
    run(&mut e);
    e.build_acceleration_structures(
        &[BlasBuildEntry {
            blas: quad,
            geometries: &geometry,
        }],
        &[TlasBuildEntry {
            tlas,
            instances: &instances[..2],
        }],
    )
    .unwrap();
    run(&mut e);
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    // The positions the shader wrote are the quad's corners.
    let p: Vec<f32> = d
        .read_buffer(positions, 0, 48)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(
        p,
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    );
    // The bottom level destroyed: the top level keeps it; a dispatch still runs.
    d.destroy_blas(quad).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "after" })
        .unwrap();
    run(&mut e);
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    // The group and the top level destroyed: once the GPU is done, both structures'
    // native objects (each a structure, its storage and its scratch: 6) and the group's
    // set (1) are released.
    d.poll().unwrap();
    let before = d.live_native_objects();
    d.destroy_bind_group(group).unwrap();
    d.destroy_tlas(tlas).unwrap();
    d.poll().unwrap();
    assert_eq!(before - d.live_native_objects(), 7);
    d.finish();
}
