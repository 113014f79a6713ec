//! Ray queries: a floor and three cubes as instances of two bottom-level acceleration
//! structures, traced per pixel by a compute shader with a shadow ray towards the light.
//! [`reference()`] traces the same scene on the CPU, so tests can compare every pixel.

use crate::image::Image;
use crate::{Result, err, read_image};
use vigil::*;

/// Sky, floor and the three cubes' colors, by instance custom index (sky last).
const PALETTE: [[f32; 3]; 5] = [
    [0.8, 0.8, 0.8],
    [0.9, 0.2, 0.2],
    [0.2, 0.8, 0.3],
    [0.2, 0.4, 0.9],
    [0.55, 0.7, 0.95],
];
/// How much light a point in shadow gets.
const SHADOW: f32 = 0.35;

const SHADER: &str = r#"
enable wgpu_ray_query;
@group(0) @binding(0) var acc: acceleration_structure;
@group(0) @binding(1) var img: texture_storage_2d<rgba8unorm, write>;

const PALETTE = array<vec3<f32>, 5>(
    vec3<f32>(0.8, 0.8, 0.8), vec3<f32>(0.9, 0.2, 0.2), vec3<f32>(0.2, 0.8, 0.3),
    vec3<f32>(0.2, 0.4, 0.9), vec3<f32>(0.55, 0.7, 0.95));

fn camera_ray(x: u32, y: u32, size: vec2<u32>) -> vec3<f32> {
    let u = (f32(x) + 0.5) / f32(size.x) * 2.0 - 1.0;
    let v = 1.0 - (f32(y) + 0.5) / f32(size.y) * 2.0;
    let aspect = f32(size.x) / f32(size.y);
    return normalize(vec3<f32>(u * aspect * 0.6, v * 0.6 - 0.25, 1.0));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(img);
    if id.x >= size.x || id.y >= size.y { return; }
    let origin = vec3<f32>(0.0, 2.0, -6.0);
    let dir = camera_ray(id.x, id.y, size);
    var rq: ray_query;
    rayQueryInitialize(&rq, acc, RayDesc(0u, 0xFFu, 0.001, 100.0, origin, dir));
    while (rayQueryProceed(&rq)) {}
    let hit = rayQueryGetCommittedIntersection(&rq);
    var color = PALETTE[4];
    if hit.kind != 0u {
        let p = origin + dir * (hit.t - 0.001);
        var shadow: ray_query;
        rayQueryInitialize(&shadow, acc, RayDesc(0x04u, 0xFFu, 0.001, 100.0, p, normalize(vec3<f32>(-0.5, 1.0, -0.3))));
        while (rayQueryProceed(&shadow)) {}
        let lit = select(0.35, 1.0, rayQueryGetCommittedIntersection(&shadow).kind == 0u);
        color = PALETTE[min(hit.instance_custom_data, 3u)] * lit;
    }
    textureStore(img, vec2<i32>(id.xy), vec4<f32>(color, 1.0));
}
"#;

/// The floor: a quad from -1 to 1 in x and z at y = 0 (indexed).
const FLOOR: ([[f32; 3]; 4], [u16; 6]) = (
    [
        [-1.0, 0.0, -1.0],
        [1.0, 0.0, -1.0],
        [1.0, 0.0, 1.0],
        [-1.0, 0.0, 1.0],
    ],
    [0, 1, 2, 0, 2, 3],
);

/// The unit cube around the origin: 8 corners, 12 triangles.
fn cube() -> ([[f32; 3]; 8], [u16; 36]) {
    let mut v = [[0.0; 3]; 8];
    for (i, c) in v.iter_mut().enumerate() {
        *c = [
            if i & 1 == 0 { -0.5 } else { 0.5 },
            if i & 2 == 0 { -0.5 } else { 0.5 },
            if i & 4 == 0 { -0.5 } else { 0.5 },
        ];
    }
    let faces: [[u16; 4]; 6] = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let mut idx = [0u16; 36];
    for (f, q) in faces.iter().enumerate() {
        idx[f * 6..f * 6 + 6].copy_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
    }
    (v, idx)
}

/// Instances: `(is_cube, row-major 3×4 transform, custom index)`.
fn instances() -> [(bool, [f32; 12]); 4] {
    let (s, c) = (
        std::f32::consts::FRAC_PI_4.sin(),
        std::f32::consts::FRAC_PI_4.cos(),
    );
    [
        (
            false,
            [6.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 6.0, 2.0],
        ),
        (
            true,
            [1.0, 0.0, 0.0, -1.8, 0.0, 1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 1.0],
        ),
        (
            true,
            [1.5, 0.0, 0.0, 0.0, 0.0, 1.5, 0.0, 0.75, 0.0, 0.0, 1.5, 2.5],
        ),
        (true, [c, 0.0, s, 1.8, 0.0, 1.0, 0.0, 0.5, -s, 0.0, c, 0.5]),
    ]
}

fn bytes<T: Copy, const N: usize>(v: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| to(x)).collect()
}

/// Traces a `size` image of the scene on `device` (which needs `RAY_QUERY`).
pub fn render(device: &Device, size: [u32; 2]) -> Result<Image> {
    if !device.features().contains(Features::RAY_QUERY) {
        return Err(format!(
            "the device has no RAY_QUERY feature ('{}' does not offer ray queries)",
            device.adapter_info().name
        ));
    }
    let input = |label, contents: &[u8]| {
        device
            .create_buffer_init(&BufferInitDescriptor {
                label,
                contents,
                usage: BufferUsages::BLAS_INPUT,
            })
            .map_err(err)
    };
    let (cube_v, cube_i) = cube();
    let flat = |v: &[[f32; 3]]| bytes(&v.concat(), f32::to_le_bytes);
    let floor_vb = input("floor positions", &flat(&FLOOR.0))?;
    let floor_ib = input("floor indices", &bytes(&FLOOR.1, u16::to_le_bytes))?;
    let cube_vb = input("cube positions", &flat(&cube_v))?;
    let cube_ib = input("cube indices", &bytes(&cube_i, u16::to_le_bytes))?;
    let size_of = |vertices, triangles| TriangleGeometrySize {
        vertex_format: VertexFormat::Float32x3,
        max_vertex_count: vertices,
        index_format: Some(IndexFormat::Uint16),
        max_primitive_count: triangles,
        opaque: true,
    };
    let floor = device
        .create_blas(&BlasDescriptor {
            label: "floor",
            geometries: &[size_of(4, 2)],
            flags: AccelerationStructureFlags::PREFER_FAST_TRACE,
        })
        .map_err(err)?;
    let cube_blas = device
        .create_blas(&BlasDescriptor {
            label: "cube",
            geometries: &[size_of(8, 12)],
            flags: AccelerationStructureFlags::PREFER_FAST_TRACE,
        })
        .map_err(err)?;
    let tlas = device
        .create_tlas(&TlasDescriptor {
            label: "scene",
            max_instances: 4,
            flags: AccelerationStructureFlags::PREFER_FAST_TRACE,
        })
        .map_err(err)?;
    let geometry = |vb, ib, vertices, triangles| BlasTriangleGeometry {
        vertex_buffer: vb,
        first_vertex: 0,
        vertex_stride: 12,
        vertex_count: vertices,
        index_buffer: Some(ib),
        first_index: 0,
        primitive_count: triangles,
    };
    let placed: Vec<TlasInstance> = instances()
        .iter()
        .enumerate()
        .map(|(i, (is_cube, t))| {
            TlasInstance::new(if *is_cube { cube_blas } else { floor }, *t, i as u32, 0xFF)
        })
        .collect();
    let texture = device
        .create_texture(&TextureDescriptor {
            label: "traced",
            size,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .map_err(err)?;
    let view = device
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .map_err(err)?;
    let bgl = device
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
                    ty: BindingType::StorageTexture {
                        access: StorageTextureAccess::WriteOnly,
                        format: TextureFormat::Rgba8Unorm,
                        view_dimension: TextureViewDimension::D2,
                    },
                    array: None,
                },
            ],
        })
        .map_err(err)?;
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "trace",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::AccelerationStructure(tlas),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureView(view),
                },
            ],
        })
        .map_err(err)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "trace",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(err)?;
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "trace",
            wgsl: SHADER,
        })
        .map_err(err)?;
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "trace",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(err)?;
    let mut e = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "ray query" })
        .map_err(err)?;
    e.build_acceleration_structures(
        &[
            BlasBuildEntry {
                blas: floor,
                geometries: &[geometry(floor_vb, floor_ib, 4, 2)],
            },
            BlasBuildEntry {
                blas: cube_blas,
                geometries: &[geometry(cube_vb, cube_ib, 8, 12)],
            },
        ],
        &[TlasBuildEntry {
            tlas,
            instances: &placed,
        }],
    )
    .map_err(err)?;
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .map_err(err)?;
    e.set_compute_pipeline(pipeline).map_err(err)?;
    e.set_bind_group(0, group, &[]).map_err(err)?;
    e.dispatch(size[0].div_ceil(8), size[1].div_ceil(8), 1)
        .map_err(err)?;
    e.end_compute_pass().map_err(err)?;
    device.submit([e.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// The scene's triangles in world space, with their instance's custom index.
fn world_triangles() -> Vec<([[f32; 3]; 3], usize)> {
    let (cube_v, cube_i) = cube();
    let mut out = Vec::new();
    for (custom, (is_cube, t)) in instances().iter().enumerate() {
        let (v, i): (&[[f32; 3]], &[u16]) = if *is_cube {
            (&cube_v, &cube_i)
        } else {
            (&FLOOR.0, &FLOOR.1)
        };
        let at = |p: [f32; 3]| {
            [
                t[0] * p[0] + t[1] * p[1] + t[2] * p[2] + t[3],
                t[4] * p[0] + t[5] * p[1] + t[6] * p[2] + t[7],
                t[8] * p[0] + t[9] * p[1] + t[10] * p[2] + t[11],
            ]
        };
        for tri in i.chunks_exact(3) {
            out.push((
                [
                    at(v[tri[0] as usize]),
                    at(v[tri[1] as usize]),
                    at(v[tri[2] as usize]),
                ],
                custom,
            ));
        }
    }
    out
}

/// The nearest hit along a ray (Möller–Trumbore), as `(t, custom index)`.
fn nearest(
    tris: &[([[f32; 3]; 3], usize)],
    o: [f32; 3],
    d: [f32; 3],
    t_min: f32,
) -> Option<(f32, usize)> {
    let mut best: Option<(f32, usize)> = None;
    for (tri, custom) in tris {
        let (e1, e2) = (sub(tri[1], tri[0]), sub(tri[2], tri[0]));
        let p = cross(d, e2);
        let det = dot(e1, p);
        if det.abs() < 1e-9 {
            continue;
        }
        let s = sub(o, tri[0]);
        let u = dot(s, p) / det;
        let q = cross(s, e1);
        let v = dot(d, q) / det;
        let t = dot(e2, q) / det;
        let inside = u >= 0.0 && v >= 0.0 && u + v <= 1.0;
        if inside && t >= t_min && t <= 100.0 && best.is_none_or(|(b, _)| t < b) {
            best = Some((t, *custom));
        }
    }
    best
}

/// The same image traced on the CPU: what the GPU's should be, but for pixels whose rays
/// graze an edge (where the two may round differently).
pub fn reference(size: [u32; 2]) -> Image {
    let tris = world_triangles();
    let origin = [0.0, 2.0, -6.0];
    let light = normalize([-0.5, 1.0, -0.3]);
    let mut rgba = Vec::with_capacity((size[0] * size[1] * 4) as usize);
    for y in 0..size[1] {
        for x in 0..size[0] {
            let u = (x as f32 + 0.5) / size[0] as f32 * 2.0 - 1.0;
            let v = 1.0 - (y as f32 + 0.5) / size[1] as f32 * 2.0;
            let aspect = size[0] as f32 / size[1] as f32;
            let d = normalize([u * aspect * 0.6, v * 0.6 - 0.25, 1.0]);
            let color = match nearest(&tris, origin, d, 0.001) {
                None => PALETTE[4],
                Some((t, custom)) => {
                    let p = [
                        origin[0] + d[0] * (t - 0.001),
                        origin[1] + d[1] * (t - 0.001),
                        origin[2] + d[2] * (t - 0.001),
                    ];
                    let lit = if nearest(&tris, p, light, 0.001).is_some() {
                        SHADOW
                    } else {
                        1.0
                    };
                    PALETTE[custom.min(3)].map(|c| c * lit)
                }
            };
            for c in color {
                rgba.push((c.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
            rgba.push(255);
        }
    }
    Image {
        width: size[0],
        height: size[1],
        rgba,
    }
}
