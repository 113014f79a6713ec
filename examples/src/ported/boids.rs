//! wgpu's `boids`: 1,500 particles flocking by three rules in a compute shader that reads
//! one storage buffer and writes the other (swapping each frame), then drawn as small
//! triangles pointing along their velocity, one instance per particle, straight from the
//! buffer the compute pass wrote.
//!
//! Changes from the wgpu version: an offscreen `Rgba8Unorm` target instead of a window's
//! surface; the starting particles come from a fixed-seed generator (wgpu's uses `rand`),
//! so a test can simulate the same flock on the CPU; a run renders `frames` frames and
//! returns the last image and the particles.

use crate::image::Image;
use crate::math::bytes;
use crate::{Result, err, read_image, render_target};
use vigil::*;

/// Particles in the flock.
pub const NUM_PARTICLES: u32 = 1500;
/// The compute shader's workgroup size.
pub const PARTICLES_PER_GROUP: u32 = 64;

/// wgpu's `compute.wgsl`, unchanged.
const COMPUTE: &str = r#"
struct Particle {
  pos : vec2<f32>,
  vel : vec2<f32>,
};

struct SimParams {
  deltaT : f32,
  rule1Distance : f32,
  rule2Distance : f32,
  rule3Distance : f32,
  rule1Scale : f32,
  rule2Scale : f32,
  rule3Scale : f32,
};

@group(0) @binding(0) var<uniform> params : SimParams;
@group(0) @binding(1) var<storage, read> particlesSrc : array<Particle>;
@group(0) @binding(2) var<storage, read_write> particlesDst : array<Particle>;

// https://github.com/austinEng/Project6-Vulkan-Flocking/blob/master/data/shaders/computeparticles/particle.comp
@compute
@workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
  let total = arrayLength(&particlesSrc);
  let index = global_invocation_id.x;
  if (index >= total) {
    return;
  }

  var vPos : vec2<f32> = particlesSrc[index].pos;
  var vVel : vec2<f32> = particlesSrc[index].vel;

  var cMass : vec2<f32> = vec2<f32>(0.0, 0.0);
  var cVel : vec2<f32> = vec2<f32>(0.0, 0.0);
  var colVel : vec2<f32> = vec2<f32>(0.0, 0.0);
  var cMassCount : i32 = 0;
  var cVelCount : i32 = 0;

  var i : u32 = 0u;
  loop {
    if (i >= total) {
      break;
    }
    if (i == index) {
      continue;
    }

    let pos = particlesSrc[i].pos;
    let vel = particlesSrc[i].vel;

    if (distance(pos, vPos) < params.rule1Distance) {
      cMass += pos;
      cMassCount += 1;
    }
    if (distance(pos, vPos) < params.rule2Distance) {
      colVel -= pos - vPos;
    }
    if (distance(pos, vPos) < params.rule3Distance) {
      cVel += vel;
      cVelCount += 1;
    }

    continuing {
      i = i + 1u;
    }
  }
  if (cMassCount > 0) {
    cMass = cMass * (1.0 / f32(cMassCount)) - vPos;
  }
  if (cVelCount > 0) {
    cVel *= 1.0 / f32(cVelCount);
  }

  vVel = vVel + (cMass * params.rule1Scale) +
      (colVel * params.rule2Scale) +
      (cVel * params.rule3Scale);

  // clamp velocity for a more pleasing simulation
  vVel = normalize(vVel) * clamp(length(vVel), 0.0, 0.1);

  // kinematic update
  vPos += vVel * params.deltaT;

  // Wrap around boundary
  if (vPos.x < -1.0) {
    vPos.x = 1.0;
  }
  if (vPos.x > 1.0) {
    vPos.x = -1.0;
  }
  if (vPos.y < -1.0) {
    vPos.y = 1.0;
  }
  if (vPos.y > 1.0) {
    vPos.y = -1.0;
  }

  // Write back
  particlesDst[index] = Particle(vPos, vVel);
}
"#;

/// wgpu's `draw.wgsl`, unchanged.
const DRAW: &str = r#"
@vertex
fn main_vs(
    @location(0) particle_pos: vec2<f32>,
    @location(1) particle_vel: vec2<f32>,
    @location(2) position: vec2<f32>,
) -> @builtin(position) vec4<f32> {
    let angle = -atan2(particle_vel.x, particle_vel.y);
    let pos = vec2<f32>(
        position.x * cos(angle) - position.y * sin(angle),
        position.x * sin(angle) + position.y * cos(angle)
    );
    return vec4<f32>(pos + particle_pos, 0.0, 1.0);
}

@fragment
fn main_fs() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 1.0, 1.0, 1.0);
}
"#;

/// The simulation's parameters, as wgpu's example sets them (the `SimParams` uniform).
pub const SIM_PARAMS: [f32; 7] = [
    0.04,  // deltaT
    0.1,   // rule1Distance
    0.025, // rule2Distance
    0.025, // rule3Distance
    0.02,  // rule1Scale
    0.05,  // rule2Scale
    0.005, // rule3Scale
];

/// One particle: position and velocity.
pub type Particle = [f32; 4];

/// The starting flock: positions in -1..1, velocities in -0.1..0.1, from a fixed seed.
pub fn initial_particles() -> Vec<Particle> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut unif = move || {
        // xorshift64*, mapped to -1..1.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let x = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        (x as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    (0..NUM_PARTICLES)
        .map(|_| [unif(), unif(), unif() * 0.1, unif() * 0.1])
        .collect()
}

/// One step of the flock on the CPU, as the compute shader does it (for checking).
pub fn step_on_cpu(src: &[Particle]) -> Vec<Particle> {
    let [dt, d1, d2, d3, s1, s2, s3] = SIM_PARAMS;
    let dist = |a: [f32; 2], b: [f32; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    src.iter()
        .enumerate()
        .map(|(index, p)| {
            let v_pos = [p[0], p[1]];
            let mut v_vel = [p[2], p[3]];
            let (mut c_mass, mut c_vel, mut col_vel) = ([0.0f32; 2], [0.0f32; 2], [0.0f32; 2]);
            let (mut c_mass_count, mut c_vel_count) = (0, 0);
            for (i, q) in src.iter().enumerate() {
                if i == index {
                    continue;
                }
                let (pos, vel) = ([q[0], q[1]], [q[2], q[3]]);
                let d = dist(pos, v_pos);
                if d < d1 {
                    c_mass = [c_mass[0] + pos[0], c_mass[1] + pos[1]];
                    c_mass_count += 1;
                }
                if d < d2 {
                    col_vel = [
                        col_vel[0] - (pos[0] - v_pos[0]),
                        col_vel[1] - (pos[1] - v_pos[1]),
                    ];
                }
                if d < d3 {
                    c_vel = [c_vel[0] + vel[0], c_vel[1] + vel[1]];
                    c_vel_count += 1;
                }
            }
            if c_mass_count > 0 {
                let k = 1.0 / c_mass_count as f32;
                c_mass = [c_mass[0] * k - v_pos[0], c_mass[1] * k - v_pos[1]];
            }
            if c_vel_count > 0 {
                let k = 1.0 / c_vel_count as f32;
                c_vel = [c_vel[0] * k, c_vel[1] * k];
            }
            for c in 0..2 {
                v_vel[c] += c_mass[c] * s1 + col_vel[c] * s2 + c_vel[c] * s3;
            }
            let len = (v_vel[0] * v_vel[0] + v_vel[1] * v_vel[1]).sqrt();
            let k = len.clamp(0.0, 0.1) / len;
            v_vel = [v_vel[0] * k, v_vel[1] * k];
            let mut pos = [v_pos[0] + v_vel[0] * dt, v_pos[1] + v_vel[1] * dt];
            for c in &mut pos {
                if *c < -1.0 {
                    *c = 1.0;
                } else if *c > 1.0 {
                    *c = -1.0;
                }
            }
            [pos[0], pos[1], v_vel[0], v_vel[1]]
        })
        .collect()
}

/// What a run produced: the last frame and the particles it drew.
pub struct Run {
    /// The last frame.
    pub image: Image,
    /// The particles after the last compute pass (the ones the last frame drew).
    pub particles: Vec<Particle>,
}

/// Simulates and draws `frames` frames at `size`; returns the last frame and the flock.
pub fn run(device: &Device, size: [u32; 2], frames: u32) -> Result<Run> {
    let compute_shader = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "boids compute",
            wgsl: COMPUTE,
        })
        .map_err(err)?;
    let draw_shader = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "boids draw",
            wgsl: DRAW,
        })
        .map_err(err)?;

    // Buffer for simulation parameters uniform.
    let sim_param_buffer = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "Simulation Parameter Buffer",
            contents: &bytes(&SIM_PARAMS),
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .map_err(err)?;

    // Create compute bind layout group and compute pipeline layout.
    let storage = |binding, read_only| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: std::num::NonZeroU64::new(u64::from(NUM_PARTICLES) * 16),
        },
        array: None,
    };
    let compute_bind_group_layout = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "boids compute",
            entries: &[
                BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: std::num::NonZeroU64::new(28),
                    },
                    array: None,
                },
                storage(1, true),
                storage(2, false),
            ],
        })
        .map_err(err)?;
    let compute_pipeline_layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "compute",
            bind_group_layouts: &[compute_bind_group_layout],
            immediate_size: 0,
        })
        .map_err(err)?;

    // Create render pipeline with empty pipeline layout.
    let render_pipeline_layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "render",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .map_err(err)?;
    let particle_attributes = [
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 0,
            shader_location: 0,
        },
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 8,
            shader_location: 1,
        },
    ];
    let triangle_attributes = [VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 2,
    }];
    let vertex_buffers = [
        VertexBufferLayout {
            array_stride: 4 * 4,
            step_mode: VertexStepMode::Instance,
            attributes: &particle_attributes,
        },
        VertexBufferLayout {
            array_stride: 2 * 4,
            step_mode: VertexStepMode::Vertex,
            attributes: &triangle_attributes,
        },
    ];
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let render_pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "boids draw",
            layout: render_pipeline_layout,
            vertex: VertexState {
                module: draw_shader,
                entry_point: "main_vs",
                constants: &[],
                buffers: &vertex_buffers,
            },
            fragment: Some(FragmentState {
                module: draw_shader,
                entry_point: "main_fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(err)?;

    // Create compute pipeline.
    let compute_pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "Compute pipeline",
            layout: compute_pipeline_layout,
            module: compute_shader,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .map_err(err)?;

    // Buffer for the three 2d triangle vertices of each instance.
    let vertex_buffer_data = [-0.01f32, -0.02, 0.01, -0.02, 0.00, 0.02];
    let vertices_buffer = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "Vertex Buffer",
            contents: &bytes(&vertex_buffer_data),
            usage: BufferUsages::VERTEX | BufferUsages::COPY_DST,
        })
        .map_err(err)?;

    // Buffers for the particles (two, swapped each frame), with their starting state.
    let initial: Vec<f32> = initial_particles().concat();
    let mut particle_buffers = Vec::new();
    for i in 0..2 {
        particle_buffers.push(
            device
                .create_buffer_init(&BufferInitDescriptor {
                    label: if i == 0 {
                        "Particle Buffer 0"
                    } else {
                        "Particle Buffer 1"
                    },
                    contents: &bytes(&initial),
                    usage: BufferUsages::VERTEX
                        | BufferUsages::STORAGE
                        | BufferUsages::COPY_DST
                        | BufferUsages::COPY_SRC,
                })
                .map_err(err)?,
        );
    }

    // Bind groups: the one of frame `i` reads buffer `i` and writes the other.
    let mut particle_bind_groups = Vec::new();
    for i in 0..2 {
        let whole = |buffer| {
            BindingResource::Buffer(BufferBinding {
                buffer,
                offset: 0,
                size: None,
            })
        };
        particle_bind_groups.push(
            device
                .create_bind_group(&BindGroupDescriptor {
                    label: "particles",
                    layout: compute_bind_group_layout,
                    entries: &[
                        BindGroupEntry {
                            binding: 0,
                            resource: whole(sim_param_buffer),
                        },
                        BindGroupEntry {
                            binding: 1,
                            resource: whole(particle_buffers[i]),
                        },
                        BindGroupEntry {
                            binding: 2,
                            resource: whole(particle_buffers[(i + 1) % 2]),
                        },
                    ],
                })
                .map_err(err)?,
        );
    }

    let work_group_count = NUM_PARTICLES.div_ceil(PARTICLES_PER_GROUP);
    let (frame_texture, view) = render_target(device, "boids frame", size)?;
    for frame_num in 0..frames as usize {
        let mut command_encoder = device
            .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
            .map_err(err)?;
        command_encoder
            .begin_compute_pass(&ComputePassDescriptor {
                label: "compute",
                ..Default::default()
            })
            .map_err(err)?;
        command_encoder
            .set_compute_pipeline(compute_pipeline)
            .map_err(err)?;
        command_encoder
            .set_bind_group(0, particle_bind_groups[frame_num % 2], &[])
            .map_err(err)?;
        command_encoder
            .dispatch(work_group_count, 1, 1)
            .map_err(err)?;
        command_encoder.end_compute_pass().map_err(err)?;
        command_encoder
            .begin_render_pass(&RenderPassDescriptor {
                label: "render",
                color_attachments: &[Some(RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
                    store: StoreOp::Store,
                })],
                ..Default::default()
            })
            .map_err(err)?;
        command_encoder
            .set_render_pipeline(render_pipeline)
            .map_err(err)?;
        // Render dst particles.
        command_encoder
            .set_vertex_buffer(0, particle_buffers[(frame_num + 1) % 2], 0, None)
            .map_err(err)?;
        // The three instance-local vertices.
        command_encoder
            .set_vertex_buffer(1, vertices_buffer, 0, None)
            .map_err(err)?;
        command_encoder.draw(0..3, 0..NUM_PARTICLES).map_err(err)?;
        command_encoder.end_render_pass().map_err(err)?;
        device
            .submit([command_encoder.finish().map_err(err)?])
            .map_err(err)?;
    }
    let image = read_image(device, frame_texture, size)?;
    let last = particle_buffers[frames as usize % 2];
    let raw = device
        .read_buffer(last, 0, u64::from(NUM_PARTICLES) * 16)
        .map_err(err)?;
    let particles = raw
        .chunks_exact(16)
        .map(|c| {
            let f = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
            [f(0), f(4), f(8), f(12)]
        })
        .collect();
    Ok(Run { image, particles })
}
