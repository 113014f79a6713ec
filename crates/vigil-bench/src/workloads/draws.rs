//! **draws**: many indexed draws in one render pass, each changing bind group (a texture,
//! a sampler and a uniform range, from a set of groups), vertex buffer and index buffer.
//! Draw `i` fills cell `i` of a grid (its first instance is `i`), so the image read back
//! shows every draw, with the colour of its group's texture and tint and the footprint of
//! its vertex buffer.
//!
//! **draws-indirect** (run on request) is the same frame with each draw's arguments read
//! from a buffer of 10,000 commands, one after another (`draw_indexed_indirect` at
//! `20 * i`): vigil checks each draw's index range on the GPU in front of the pass (in
//! runs, one dispatch per 1,024 draws), raw ash reads the commands unchecked, wgpu checks
//! them its own way.
//!
//! **idle-resources** runs the same frame with many unrelated live buffers and textures
//! beside it: the cost of a frame must not grow with resources that exist but are unused.
//! Each path has two devices, and every repetition runs one frame on each (see
//! `alternate`); the idle objects live on one of them, the second device for the first
//! half of the repetitions and the first for the second half (see `crossover`).

use super::PathResult;
use crate::harness::{Plan, Stats, parallel, repeat};
use crate::raw::{Bind, Raw, RawBuffer, RawImage};
use crate::wgpu_ctx::Wgpu;
use ash::vk;
use std::time::{Duration, Instant};

const SHADER: &str = r#"
struct Params { tint: vec4<f32> }
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<uniform> params: Params;
struct O { @builtin(position) pos: vec4<f32> }
const GRID: u32 = GRID_SIZEu;
@vertex fn vs(@location(0) corner: vec2<f32>, @builtin(instance_index) cell: u32) -> O {
    let at = vec2<f32>(f32(cell % GRID), f32(cell / GRID)) + corner;
    let ndc = at * (2.0 / f32(GRID)) - vec2<f32>(1.0);
    return O(vec4<f32>(ndc.x, -ndc.y, 0.0, 1.0));
}
@fragment fn fs() -> @location(0) vec4<f32> {
    return textureSampleLevel(tex, samp, vec2<f32>(0.5), 0.0) * params.tint;
}
"#;

/// Distinct textures, samplers, vertex buffers and index buffers the groups and draws use.
const TEXTURES: u32 = 16;
const SAMPLERS: u32 = 4;
const VERTEX_BUFFERS: u32 = 4;
const INDEX_BUFFERS: u32 = 3;
/// Each group's uniform slice (the common offset alignment).
const SLOT: u64 = 256;
/// Pixels per grid cell, on a side.
const CELL: u32 = 2;

/// Workload size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Distinct bind groups.
    pub groups: u32,
    /// Draws per frame.
    pub draws: u32,
    /// Unrelated live buffers and textures (each) beside the frame.
    pub idle: u32,
    /// Also time recording the frame on 1, 2, 4 and 8 threads at once (`parallel-record`).
    pub parallel: bool,
    /// Each draw reads its arguments from a buffer of commands (`draws-indirect`).
    pub indirect: bool,
}

/// Thread counts of the parallel recording, and the names of their timings.
pub const THREADS: [usize; 4] = [1, 2, 4, 8];
/// Metric names of [`THREADS`]: the wall time for that many threads to record one frame each.
pub const RECORD: [&str; 4] = ["record x1", "record x2", "record x4", "record x8"];

impl Size {
    fn grid(&self) -> u32 {
        (f64::from(self.draws).sqrt().ceil() as u32).max(1)
    }

    fn target(&self) -> [u32; 2] {
        [self.grid() * CELL, self.grid() * CELL]
    }

    fn shader(&self) -> String {
        SHADER.replace("GRID_SIZE", &self.grid().to_string())
    }
}

fn texels(t: u32) -> Vec<u8> {
    let c = [
        (t * 37 % 256) as u8,
        (t * 91 % 256) as u8,
        (255 - t * 13 % 256) as u8,
        255,
    ];
    c.repeat(16)
}

fn tints(groups: u32) -> Vec<u8> {
    let mut bytes = vec![0u8; (u64::from(groups) * SLOT) as usize];
    for g in 0..groups {
        let at = (u64::from(g) * SLOT) as usize;
        let tint = [
            (g % 4 + 1) as f32 / 4.0,
            ((g / 4) % 2 + 1) as f32 / 2.0,
            1.0,
            1.0f32,
        ];
        for (k, v) in tint.iter().enumerate() {
            bytes[at + k * 4..at + k * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    bytes
}

/// Quad corners of vertex buffer `k`: a full cell, or its top-left quarter.
fn corners(k: u32) -> Vec<u8> {
    let s = if k.is_multiple_of(2) { 1.0f32 } else { 0.5 };
    [[0.0, 0.0], [s, 0.0], [0.0, s], [s, s]]
        .iter()
        .flat_map(|c: &[f32; 2]| c.iter().flat_map(|v| v.to_le_bytes()))
        .collect()
}

/// The indirect commands of `draws` draws: draw `i` is six indices of instance `i`, as the
/// direct frame's `draw_indexed(0..6, 0, i..i + 1)`.
fn commands(draws: u32) -> Vec<u8> {
    (0..draws)
        .flat_map(|i| [6u32, 1, 0, 0, i])
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// Index buffer `k`: the same two triangles, in a different order.
fn indices(k: u32) -> Vec<u8> {
    let orders: [[u16; 6]; 3] = [[0, 1, 2, 2, 1, 3], [1, 3, 0, 0, 3, 2], [2, 0, 3, 3, 0, 1]];
    orders[(k % 3) as usize]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect()
}

/// Timings of one path: `[encode, submit]` without and with the idle resources.
pub struct Timings {
    /// Without idle resources.
    pub plain: [Stats; 2],
    /// With them (when asked for).
    pub idle: Option<[Stats; 2]>,
    /// Recording on several threads at once (when asked for), per [`THREADS`].
    pub parallel: Vec<Stats>,
}

fn result(path: &'static str, t: Timings, output: Vec<u8>) -> PathResult {
    let [encode, submit] = t.plain;
    let mut metrics = vec![("encode", encode), ("submit", submit)];
    if let Some([encode, submit]) = t.idle {
        metrics.push(("encode+idle", encode));
        metrics.push(("submit+idle", submit));
    }
    for (name, s) in RECORD.iter().zip(t.parallel) {
        metrics.push((name, s));
    }
    PathResult {
        path,
        metrics,
        output,
    }
}

/// The frame's objects on `device`: what records the frame, and the target it draws.
type VigilRecord<'d> =
    Box<dyn Fn() -> Result<(vigil::CommandBuffer, Duration), String> + Sync + 'd>;

/// With `bundle`, the frame's draws are recorded once into a render bundle, and each
/// frame executes it (the `vigil-bundle` path).
fn vigil_scene(
    device: &vigil::Device,
    size: Size,
    bundle: bool,
) -> Result<(VigilRecord<'_>, vigil::Texture), String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "draws",
            wgsl: &size.shader(),
        })
        .map_err(e)?;
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::FRAGMENT,
        ty,
        array: None,
    };
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "draws",
            entries: &[
                entry(
                    0,
                    BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: true },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(1, BindingType::Sampler(SamplerBindingType::Filtering)),
                entry(
                    2,
                    BindingType::Buffer {
                        ty: BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        })
        .map_err(e)?;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "draws",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .map_err(e)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let attributes = [VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    }];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "draws",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &[],
                buffers: &[VertexBufferLayout {
                    array_stride: 8,
                    step_mode: VertexStepMode::Vertex,
                    attributes: &attributes,
                }],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(e)?;
    let mut views = Vec::new();
    for t in 0..TEXTURES {
        let tex = device
            .create_texture(&TextureDescriptor {
                label: "draw texture",
                size: [4, 4],
                format: TextureFormat::Rgba8Unorm,
                usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                ..Default::default()
            })
            .map_err(e)?;
        device
            .write_texture(
                tex,
                TexelCopyTextureInfo::default(),
                &texels(t),
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: 16,
                    rows_per_image: None,
                },
                [4, 4, 1],
            )
            .map_err(e)?;
        views.push(
            device
                .create_texture_view(tex, &TextureViewDescriptor::default())
                .map_err(e)?,
        );
    }
    let modes = [
        AddressMode::ClampToEdge,
        AddressMode::Repeat,
        AddressMode::MirrorRepeat,
        AddressMode::ClampToEdge,
    ];
    let mut samplers = Vec::new();
    for m in modes.iter().take(SAMPLERS as usize) {
        samplers.push(
            device
                .create_sampler(&SamplerDescriptor {
                    label: "draw sampler",
                    address_modes: [*m; 3],
                    ..Default::default()
                })
                .map_err(e)?,
        );
    }
    let uniforms = device
        .create_buffer(&BufferDescriptor {
            label: "tints",
            size: u64::from(size.groups) * SLOT,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        })
        .map_err(e)?;
    device
        .write_buffer(uniforms, 0, &tints(size.groups))
        .map_err(e)?;
    let filled = |label, usage, bytes: Vec<u8>| -> Result<Buffer, String> {
        let b = device
            .create_buffer(&BufferDescriptor {
                label,
                size: bytes.len() as u64,
                usage: usage | BufferUsages::COPY_DST,
            })
            .map_err(e)?;
        device.write_buffer(b, 0, &bytes).map_err(e)?;
        Ok(b)
    };
    let vbs = (0..VERTEX_BUFFERS)
        .map(|k| filled("corners", BufferUsages::VERTEX, corners(k)))
        .collect::<Result<Vec<_>, _>>()?;
    let ibs = (0..INDEX_BUFFERS)
        .map(|k| filled("indices", BufferUsages::INDEX, indices(k)))
        .collect::<Result<Vec<_>, _>>()?;
    let args = filled(
        "commands",
        BufferUsages::INDIRECT,
        commands(size.draws.max(1)),
    )?;
    let mut groups = Vec::new();
    for g in 0..size.groups {
        groups.push(
            device
                .create_bind_group(&BindGroupDescriptor {
                    label: "draw group",
                    layout: bgl,
                    entries: &[
                        BindGroupEntry {
                            binding: 0,
                            resource: BindingResource::TextureView(views[(g % TEXTURES) as usize]),
                        },
                        BindGroupEntry {
                            binding: 1,
                            resource: BindingResource::Sampler(samplers[(g % SAMPLERS) as usize]),
                        },
                        BindGroupEntry {
                            binding: 2,
                            resource: BindingResource::Buffer(BufferBinding {
                                buffer: uniforms,
                                offset: u64::from(g) * SLOT,
                                size: Some(16),
                            }),
                        },
                    ],
                })
                .map_err(e)?,
        );
    }
    let target_size = size.target();
    let target = device
        .create_texture(&TextureDescriptor {
            label: "draws target",
            size: target_size,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .map_err(e)?;
    let target_view = device
        .create_texture_view(target, &TextureViewDescriptor::default())
        .map_err(e)?;
    // A frame's encoder with its render pass open on the target, cleared.
    let open = move || -> Result<CommandEncoder, String> {
        let mut enc = device
            .create_command_encoder(&CommandEncoderDescriptor { label: "draws" })
            .map_err(e)?;
        enc.begin_render_pass(&RenderPassDescriptor {
            label: "draws",
            color_attachments: &[Some(RenderPassColorAttachment {
                view: target_view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
                store: StoreOp::Store,
            })],
            ..Default::default()
        })
        .map_err(e)?;
        Ok(enc)
    };
    // The frame's draws on `$enc` (the pass's encoder, or the bundle's): each changes bind
    // group, vertex buffer and index buffer.
    macro_rules! draws {
        ($enc:expr) => {
            for i in 0..size.draws {
                $enc.set_bind_group(0, groups[(i % size.groups) as usize], &[])
                    .map_err(e)?;
                $enc.set_vertex_buffer(0, vbs[(i % VERTEX_BUFFERS) as usize], 0, None)
                    .map_err(e)?;
                $enc.set_index_buffer(
                    ibs[(i % INDEX_BUFFERS) as usize],
                    IndexFormat::Uint16,
                    0,
                    None,
                )
                .map_err(e)?;
                if size.indirect {
                    $enc.draw_indexed_indirect(args, 20 * u64::from(i))
                        .map_err(e)?;
                } else {
                    $enc.draw_indexed(0..6, 0, i..i + 1).map_err(e)?;
                }
            }
        };
    }
    if bundle {
        // The same calls, checked once, into a bundle; a frame executes it.
        let mut b = device
            .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                label: "draws",
                color_formats: &[Some(TextureFormat::Rgba8Unorm)],
                ..Default::default()
            })
            .map_err(e)?;
        b.set_render_pipeline(pipeline).map_err(e)?;
        draws!(b);
        let bundle = b.finish().map_err(e)?;
        let record = move || -> Result<(CommandBuffer, Duration), String> {
            let t = Instant::now();
            let mut enc = open()?;
            enc.execute_bundles(&[bundle]).map_err(e)?;
            enc.end_render_pass().map_err(e)?;
            let cb = enc.finish().map_err(e)?;
            Ok((cb, t.elapsed()))
        };
        return Ok((Box::new(record), target));
    }
    let record = move || -> Result<(CommandBuffer, Duration), String> {
        let t = Instant::now();
        let mut enc = open()?;
        enc.set_render_pipeline(pipeline).map_err(e)?;
        draws!(enc);
        enc.end_render_pass().map_err(e)?;
        let cb = enc.finish().map_err(e)?;
        Ok((cb, t.elapsed()))
    };
    Ok((Box::new(record), target))
}

/// Submits one frame, waits for it and reads its target back.
fn vigil_first(
    device: &vigil::Device,
    record: &VigilRecord<'_>,
    target: vigil::Texture,
    size: Size,
) -> Result<Vec<u8>, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let (cb, _) = record()?;
    let s = device.submit([cb]).map_err(e)?;
    device
        .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
        .map_err(e)?;
    device
        .read_texture(target, TexelCopyTextureInfo::default(), size.target())
        .map_err(e)
}

/// One timed frame: `[encode, submit]`, then the wait for the GPU.
fn vigil_frame(device: &vigil::Device, record: &VigilRecord<'_>) -> Result<[Duration; 2], String> {
    super::vigil_submit_timed(device, record()?)
}

/// Timed frames of each device per repetition of the idle-resources phase; each of the
/// repetition's four figures is the median of its five. One frame's submit time spreads by
/// about ±10%, and the phase's submit figure is a quotient of four such timings; the
/// median of five narrows each timing's spread, and so the quotient's, without more
/// repetitions (whose count sets how wide the interval's ranks are).
const TIMED: usize = 5;

/// Per repetition [`TIMED`] timed frames through `plain` and as many through `idle`,
/// alternated, in an order that swaps every repetition; the repetition's figures are
/// their medians, `[encode, submit, encode+idle, submit+idle]`. The timed frames are led by
/// one untimed frame of each in the same order, so no timed frame is the first of its
/// path's turn: measured on the H200 before the lead-in, the first frame after another
/// path ran submitted in ~55 µs and the next in ~36 µs, whichever device, which split the
/// per-repetition ratios into two modes. With the lead-in, each timed frame follows its
/// own device's last frame by one frame of the other device, in both orders.
fn alternate(
    plan: Plan,
    mut plain: impl FnMut() -> Result<[Duration; 2], String>,
    mut idle: impl FnMut() -> Result<[Duration; 2], String>,
) -> Result<[Stats; 4], String> {
    let mut turn = false;
    repeat(plan, || {
        turn = !turn;
        // `[encode, submit]` of each timed frame, plain's and idle's.
        let mut times = [[[Duration::ZERO; TIMED]; 2]; 2];
        let mut one = |which: usize, k: Option<usize>| -> Result<(), String> {
            let t = if which == 0 { plain()? } else { idle()? };
            if let Some(k) = k {
                times[which][0][k] = t[0];
                times[which][1][k] = t[1];
            }
            Ok(())
        };
        let order = if turn { [0, 1] } else { [1, 0] };
        for w in order {
            one(w, None)?;
        }
        for k in 0..TIMED {
            for w in order {
                one(w, Some(k))?;
            }
        }
        let median = |mut v: [Duration; TIMED]| {
            v.sort_unstable();
            v[TIMED / 2]
        };
        let [[e, s], [ei, si]] = times;
        Ok([median(e), median(s), median(ei), median(si)])
    })
}

/// The two halves of the idle-resources phase as one `[encode, submit, encode+idle,
/// submit+idle]`: in `first` the idle objects live on the second device, in `second` on
/// the first (a crossover), so whatever makes one device faster than the other for
/// reasons of its own counts for the idle objects in one half and against them in the
/// other.
fn crossover(first: [Stats; 4], second: [Stats; 4]) -> ([Stats; 2], [Stats; 2]) {
    let [e1, s1, ei1, si1] = first;
    let [e2, s2, ei2, si2] = second;
    ([e1.then(e2), s1.then(s2)], [ei1.then(ei2), si1.then(si2)])
}

/// `n` idle buffers and `n` idle textures on `device`, made and first used (their zero
/// fills and layouts) by one frame of `record`, whose image must be `output`.
fn vigil_idle(
    device: &vigil::Device,
    n: u32,
    record: &VigilRecord<'_>,
    target: vigil::Texture,
    size: Size,
    output: &[u8],
) -> Result<(Vec<vigil::Buffer>, Vec<vigil::Texture>), String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let mut buffers = Vec::new();
    let mut textures = Vec::new();
    for _ in 0..n {
        buffers.push(
            device
                .create_buffer(&BufferDescriptor {
                    label: "idle",
                    size: 256,
                    usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                })
                .map_err(e)?,
        );
        textures.push(
            device
                .create_texture(&TextureDescriptor {
                    label: "idle",
                    size: [4, 4],
                    format: TextureFormat::Rgba8Unorm,
                    usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                    ..Default::default()
                })
                .map_err(e)?,
        );
    }
    if vigil_first(device, record, target, size)? != output {
        return Err("vigil: the frame beside the idle objects differs".into());
    }
    Ok((buffers, textures))
}

/// Destroys what [`vigil_idle`] made.
fn vigil_unidle(
    device: &vigil::Device,
    (buffers, textures): (Vec<vigil::Buffer>, Vec<vigil::Texture>),
) -> Result<(), String> {
    for b in buffers {
        device.destroy_buffer(b).map_err(|e| e.to_string())?;
    }
    for t in textures {
        device.destroy_texture(t).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Through vigil. With `second` (idle-resources), the frame also runs on that device: one
/// frame on each per repetition, the idle objects on `second` for the first half of the
/// repetitions and on `device` for the second.
pub fn vigil(
    device: &vigil::Device,
    second: Option<&vigil::Device>,
    size: Size,
    plan: Plan,
) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let (record, target) = vigil_scene(device, size, false)?;
    let output = vigil_first(device, &record, target, size)?;
    let (plain, idle) = match second {
        None => (repeat(plan, || vigil_frame(device, &record))?, None),
        Some(other) => {
            let (record_b, target_b) = vigil_scene(other, size, false)?;
            let frame_a = || vigil_frame(device, &record);
            let frame_b = || vigil_frame(other, &record_b);
            let idle = vigil_idle(other, size.idle, &record_b, target_b, size, &output)?;
            let first = alternate(plan, frame_a, frame_b)?;
            vigil_unidle(other, idle)?;
            let idle = vigil_idle(device, size.idle, &record, target, size, &output)?;
            let second = alternate(plan, frame_b, frame_a)?;
            vigil_unidle(device, idle)?;
            let (plain, idle) = crossover(first, second);
            (plain, Some(idle))
        }
    };
    let mut par = Vec::new();
    if size.parallel {
        let mut last: Vec<CommandBuffer> = Vec::new();
        par = parallel(
            &THREADS,
            plan,
            |_| record().map(|(cb, _)| cb),
            |cbs| last = cbs,
        )?;
        // The last round's command buffers, recorded on eight threads, draw the frame.
        let s = device.submit(last).map_err(e)?;
        device
            .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
            .map_err(e)?;
        let again = device
            .read_texture(target, TexelCopyTextureInfo::default(), size.target())
            .map_err(e)?;
        if again != output {
            return Err("vigil: the frame recorded on several threads differs".into());
        }
    }
    Ok(result(
        "vigil",
        Timings {
            plain,
            idle,
            parallel: par,
        },
        output,
    ))
}

/// Through vigil, the frame's draws recorded once into a render bundle and executed by each
/// frame (`vigil-bundle`): what the same draws cost when their checks were made once,
/// paired with raw ash recording the same native commands by hand every frame.
pub fn vigil_bundle(device: &vigil::Device, size: Size, plan: Plan) -> Result<PathResult, String> {
    let (record, target) = vigil_scene(device, size, true)?;
    let output = vigil_first(device, &record, target, size)?;
    let plain = repeat(plan, || vigil_frame(device, &record))?;
    Ok(result(
        "vigil-bundle",
        Timings {
            plain,
            idle: None,
            parallel: Vec::new(),
        },
        output,
    ))
}

/// The frame's objects on one raw device.
struct AshScene {
    d: ash::Device,
    size: Size,
    vs: vk::ShaderModule,
    fs: vk::ShaderModule,
    dsl: vk::DescriptorSetLayout,
    pl: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    images: Vec<RawImage>,
    samplers: Vec<vk::Sampler>,
    uniforms: RawBuffer,
    vbs: Vec<RawBuffer>,
    ibs: Vec<RawBuffer>,
    vb_raw: Vec<vk::Buffer>,
    ib_raw: Vec<vk::Buffer>,
    /// The indirect commands (read when `size.indirect`).
    args: RawBuffer,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    target: RawImage,
    cmd_pool: vk::CommandPool,
    cb: vk::CommandBuffer,
}

impl AshScene {
    fn new(raw: &mut Raw, size: Size) -> Result<AshScene, String> {
        let err = |e: vk::Result| format!("Vulkan error {e:?}");
        let module = vigil_shader::Module::from_wgsl(&size.shader(), "draws.wgsl")
            .map_err(|d| d.to_string())?;
        let vs_words = module
            .to_spirv_for(&vigil_shader::SpirvOptions::default(), Some("vs"))
            .map_err(|d| d.to_string())?;
        let fs_words = module
            .to_spirv_for(&vigil_shader::SpirvOptions::default(), Some("fs"))
            .map_err(|d| d.to_string())?;
        let vs = raw.shader(&vs_words)?;
        let fs = raw.shader(&fs_words)?;
        let d = raw.device.clone();
        let fragment = vk::ShaderStageFlags::FRAGMENT;
        let dsl = raw.set_layout(&[
            (0, vk::DescriptorType::SAMPLED_IMAGE, fragment),
            (1, vk::DescriptorType::SAMPLER, fragment),
            (2, vk::DescriptorType::UNIFORM_BUFFER, fragment),
        ])?;
        let pl = raw.pipeline_layout(&[dsl])?;
        let vb_desc = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: 8,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attr_desc = [vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: vk::Format::R32G32_SFLOAT,
            offset: 0,
        }];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vb_desc)
            .vertex_attribute_descriptions(&attr_desc);
        let pipeline = raw.target_pipeline((vs, c"vs"), (fs, c"fs"), &vertex_input, pl)?;
        let mut images = Vec::new();
        for t in 0..TEXTURES {
            let img = raw.image(
                [4, 4],
                vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
            )?;
            raw.upload_image(&img, &texels(t), vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)?;
            images.push(img);
        }
        let modes = [
            vk::SamplerAddressMode::CLAMP_TO_EDGE,
            vk::SamplerAddressMode::REPEAT,
            vk::SamplerAddressMode::MIRRORED_REPEAT,
            vk::SamplerAddressMode::CLAMP_TO_EDGE,
        ];
        let mut samplers = Vec::new();
        for m in modes.iter().take(SAMPLERS as usize) {
            let info = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(*m)
                .address_mode_v(*m)
                .address_mode_w(*m)
                .max_lod(32.0);
            // SAFETY: valid create info.
            samplers.push(unsafe { d.create_sampler(&info, None) }.map_err(err)?);
        }
        let uniforms = raw.buffer(
            u64::from(size.groups) * SLOT,
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            gpu_allocator::MemoryLocation::CpuToGpu,
        )?;
        raw.write(&uniforms, 0, &tints(size.groups))?;
        let mut vbs = Vec::new();
        for k in 0..VERTEX_BUFFERS {
            let b = raw.buffer(
                32,
                vk::BufferUsageFlags::VERTEX_BUFFER,
                gpu_allocator::MemoryLocation::CpuToGpu,
            )?;
            raw.write(&b, 0, &corners(k))?;
            vbs.push(b);
        }
        let mut ibs = Vec::new();
        for k in 0..INDEX_BUFFERS {
            let b = raw.buffer(
                12,
                vk::BufferUsageFlags::INDEX_BUFFER,
                gpu_allocator::MemoryLocation::CpuToGpu,
            )?;
            raw.write(&b, 0, &indices(k))?;
            ibs.push(b);
        }
        let args = raw.buffer(
            u64::from(size.draws.max(1)) * 20,
            vk::BufferUsageFlags::INDIRECT_BUFFER,
            gpu_allocator::MemoryLocation::CpuToGpu,
        )?;
        raw.write(&args, 0, &commands(size.draws.max(1)))?;
        let pool = raw.descriptor_pool(
            size.groups,
            &[
                (vk::DescriptorType::SAMPLED_IMAGE, size.groups),
                (vk::DescriptorType::SAMPLER, size.groups),
                (vk::DescriptorType::UNIFORM_BUFFER, size.groups),
            ],
            false,
        )?;
        let mut sets = Vec::new();
        for g in 0..size.groups {
            let set = raw.allocate_set(pool, dsl)?;
            raw.write_set(
                set,
                &[
                    (0, Bind::SampledImage(images[(g % TEXTURES) as usize].view)),
                    (1, Bind::Sampler(samplers[(g % SAMPLERS) as usize])),
                    (
                        2,
                        Bind::Buffer(
                            vk::DescriptorType::UNIFORM_BUFFER,
                            uniforms.raw,
                            u64::from(g) * SLOT,
                            16,
                        ),
                    ),
                ],
            );
            sets.push(set);
        }
        let target_size = size.target();
        let target = raw.render_target(target_size)?;
        let (cmd_pool, cb) = raw.command_buffer()?;
        let vb_raw = vbs.iter().map(|b| b.raw).collect();
        let ib_raw = ibs.iter().map(|b| b.raw).collect();
        Ok(AshScene {
            d,
            size,
            vs,
            fs,
            dsl,
            pl,
            pipeline,
            images,
            samplers,
            uniforms,
            vbs,
            ibs,
            args,
            vb_raw,
            ib_raw,
            pool,
            sets,
            target,
            cmd_pool,
            cb,
        })
    }

    /// Records the frame into `cb` of `cmd_pool`; the time it took.
    fn record_on(
        &self,
        cmd_pool: vk::CommandPool,
        cb: vk::CommandBuffer,
    ) -> Result<Duration, String> {
        let d = &self.d;
        let t = Instant::now();
        Raw::begin_frame_on(
            d,
            cmd_pool,
            cb,
            self.target.view,
            self.size.target(),
            self.pipeline,
        )?;
        for i in 0..self.size.draws {
            let set = [self.sets[(i % self.size.groups) as usize]];
            // SAFETY: a set of the pipeline's layout.
            unsafe {
                d.cmd_bind_descriptor_sets(
                    cb,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.pl,
                    0,
                    &set,
                    &[],
                )
            };
            // SAFETY: a vertex buffer of this device.
            unsafe {
                d.cmd_bind_vertex_buffers(
                    cb,
                    0,
                    &self.vb_raw[(i % VERTEX_BUFFERS) as usize..][..1],
                    &[0],
                )
            };
            // SAFETY: an index buffer of this device.
            unsafe {
                d.cmd_bind_index_buffer(
                    cb,
                    self.ib_raw[(i % INDEX_BUFFERS) as usize],
                    0,
                    vk::IndexType::UINT16,
                )
            };
            if self.size.indirect {
                let at = 20 * u64::from(i);
                // SAFETY: as the direct draw's below; command `i` lies in the INDIRECT
                // buffer at `at` and names those six indices.
                unsafe { d.cmd_draw_indexed_indirect(cb, self.args.raw, at, 1, 20) };
            } else {
                // SAFETY: pipeline, set, vertex and index buffers bound; 6 indices exist.
                unsafe { d.cmd_draw_indexed(cb, 6, 1, 0, 0, i) };
            }
        }
        // SAFETY: matches the begin.
        unsafe { d.cmd_end_rendering(cb) };
        Raw::end_on(d, cb)?;
        Ok(t.elapsed())
    }

    /// One frame into the scene's own command buffer, submitted and waited for.
    fn frame(&self, raw: &mut Raw) -> Result<[Duration; 2], String> {
        let encode = self.record_on(self.cmd_pool, self.cb)?;
        let t = Instant::now();
        let s = raw.submit(&[self.cb])?;
        let submit = t.elapsed();
        raw.wait(s)?;
        Ok([encode, submit])
    }

    /// Submits one frame, waits for it and reads its target back.
    fn first(&self, raw: &mut Raw) -> Result<Vec<u8>, String> {
        self.record_on(self.cmd_pool, self.cb)?;
        let s = raw.submit(&[self.cb])?;
        raw.wait(s)?;
        raw.read_image(&self.target, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
    }

    /// Destroys everything (the device is idle: every submission was waited for).
    fn destroy(self, raw: &mut Raw) {
        let d = &self.d;
        // SAFETY: idle (every submission was waited for); objects created above.
        unsafe { d.destroy_command_pool(self.cmd_pool, None) };
        // SAFETY: as above.
        unsafe { d.destroy_descriptor_pool(self.pool, None) };
        // SAFETY: as above.
        unsafe { d.destroy_pipeline(self.pipeline, None) };
        // SAFETY: as above.
        unsafe { d.destroy_pipeline_layout(self.pl, None) };
        // SAFETY: as above.
        unsafe { d.destroy_descriptor_set_layout(self.dsl, None) };
        // SAFETY: as above.
        unsafe { d.destroy_shader_module(self.vs, None) };
        // SAFETY: as above.
        unsafe { d.destroy_shader_module(self.fs, None) };
        for s in self.samplers {
            // SAFETY: as above.
            unsafe { d.destroy_sampler(s, None) };
        }
        for i in self.images {
            raw.destroy_image(i);
        }
        raw.destroy_image(self.target);
        for b in self.vbs.into_iter().chain(self.ibs) {
            raw.destroy_buffer(b);
        }
        raw.destroy_buffer(self.uniforms);
        raw.destroy_buffer(self.args);
    }
}

/// `n` idle buffers and `n` idle images on `raw`, with whether all were made (what was
/// made is returned either way, to be destroyed).
fn ash_idle(raw: &mut Raw, n: u32) -> (Vec<RawBuffer>, Vec<RawImage>, Result<(), String>) {
    let mut bufs = Vec::new();
    let mut imgs = Vec::new();
    for _ in 0..n {
        match raw.buffer(
            256,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            gpu_allocator::MemoryLocation::GpuOnly,
        ) {
            Ok(b) => bufs.push(b),
            Err(x) => return (bufs, imgs, Err(x)),
        }
        match raw.image(
            [4, 4],
            vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        ) {
            Ok(i) => imgs.push(i),
            Err(x) => return (bufs, imgs, Err(x)),
        }
    }
    (bufs, imgs, Ok(()))
}

/// Destroys what [`ash_idle`] made.
fn ash_unidle(raw: &mut Raw, bufs: Vec<RawBuffer>, imgs: Vec<RawImage>) {
    for b in bufs {
        raw.destroy_buffer(b);
    }
    for i in imgs {
        raw.destroy_image(i);
    }
}

/// The idle-resources phase of raw ash: the frame on `raw` and on `other`, one of each per
/// repetition (see [`alternate`]), the idle objects on `other` for the first half and on
/// `raw` for the second (see [`crossover`]).
fn ash_paired(
    raw: &mut Raw,
    other: &mut Raw,
    scene: &AshScene,
    size: Size,
    plan: Plan,
    output: &[u8],
) -> Result<([Stats; 2], [Stats; 2]), String> {
    let scene_b = AshScene::new(other, size)?;
    let (bufs, imgs, made) = ash_idle(other, size.idle);
    let first = made.and_then(|()| {
        if scene_b.first(other)? != output {
            return Err("ash: the frame on the second device differs".to_string());
        }
        alternate(plan, || scene.frame(raw), || scene_b.frame(other))
    });
    ash_unidle(other, bufs, imgs);
    let both = first.and_then(|first| {
        let (bufs, imgs, made) = ash_idle(raw, size.idle);
        let second = made.and_then(|()| {
            if scene.first(raw)? != output {
                return Err("ash: the frame beside the idle objects differs".to_string());
            }
            alternate(plan, || scene_b.frame(other), || scene.frame(raw))
        });
        ash_unidle(raw, bufs, imgs);
        Ok(crossover(first, second?))
    });
    scene_b.destroy(other);
    both
}

/// Through raw ash: the calls vigil makes, unchecked. With `second` (idle-resources), the
/// frame also runs on that device, as in [`vigil()`].
pub fn ash(
    raw: &mut Raw,
    second: Option<&mut Raw>,
    size: Size,
    plan: Plan,
) -> Result<PathResult, String> {
    let scene = AshScene::new(raw, size)?;
    let output = scene.first(raw);
    let (plain, idle) = match (second, &output) {
        (None, _) => (repeat(plan, || scene.frame(raw)), None),
        (Some(_), Err(x)) => (Err(x.clone()), None),
        (Some(other), Ok(out)) => match ash_paired(raw, other, &scene, size, plan, out) {
            Ok((plain, idle)) => (Ok(plain), Some(Ok::<_, String>(idle))),
            Err(x) => (Err(x), None),
        },
    };
    let mut par = Vec::new();
    if size.parallel && plain.is_ok() {
        let d = &scene.d;
        // One pool per thread, as a Vulkan program recording on several threads has.
        let most = THREADS.iter().copied().max().unwrap_or(1);
        let pools = (0..most)
            .map(|_| raw.command_buffer())
            .collect::<Result<Vec<_>, _>>()?;
        let mut last = Vec::new();
        par = parallel(
            &THREADS,
            plan,
            |i| {
                let (p, c) = pools[i];
                scene.record_on(p, c)?;
                Ok(c)
            },
            |cbs| last = cbs,
        )?;
        let s = raw.submit(&last)?;
        raw.wait(s)?;
        let again = raw.read_image(&scene.target, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)?;
        for (p, _) in pools {
            // SAFETY: idle (waited for above); the pool was created above.
            unsafe { d.destroy_command_pool(p, None) };
        }
        if output.as_ref().ok() != Some(&again) {
            return Err("ash: the frame recorded on several threads differs".into());
        }
    }
    scene.destroy(raw);
    let idle = idle.transpose()?;
    Ok(result(
        "ash",
        Timings {
            plain: plain?,
            idle,
            parallel: par,
        },
        output?,
    ))
}

/// What records the frame through wgpu.
type WgpuRecord<'w> = Box<dyn Fn() -> (wgpu::CommandBuffer, Duration) + Sync + 'w>;

/// The frame's objects on `w`: what records the frame, and the target it draws. With
/// `bundle`, the frame's draws are recorded once into a render bundle, and each frame
/// executes it (`wgpu-bundle`).
fn wgpu_scene(w: &Wgpu, size: Size, bundle: bool) -> (WgpuRecord<'_>, wgpu::Texture) {
    let dev = &w.device;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("draws"),
        source: wgpu::ShaderSource::Wgsl(size.shader().into()),
    });
    let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty,
        count: None,
    };
    let bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("draws"),
        entries: &[
            entry(
                0,
                wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
            ),
            entry(
                1,
                wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            ),
            entry(
                2,
                wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            ),
        ],
    });
    let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("draws"),
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let attributes = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    }];
    let pipeline = dev.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("draws"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 8,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::Rgba8Unorm,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    });
    let views: Vec<wgpu::TextureView> = (0..TEXTURES)
        .map(|t| {
            let tex = wgpu_small_texture(dev, "draw texture");
            w.queue.write_texture(
                tex.as_image_copy(),
                &texels(t),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(16),
                    rows_per_image: None,
                },
                wgpu::Extent3d {
                    width: 4,
                    height: 4,
                    depth_or_array_layers: 1,
                },
            );
            tex.create_view(&wgpu::TextureViewDescriptor::default())
        })
        .collect();
    let modes = [
        wgpu::AddressMode::ClampToEdge,
        wgpu::AddressMode::Repeat,
        wgpu::AddressMode::MirrorRepeat,
        wgpu::AddressMode::ClampToEdge,
    ];
    let samplers: Vec<wgpu::Sampler> = modes
        .iter()
        .take(SAMPLERS as usize)
        .map(|m| {
            dev.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("draw sampler"),
                address_mode_u: *m,
                address_mode_v: *m,
                address_mode_w: *m,
                ..Default::default()
            })
        })
        .collect();
    let uniforms = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("tints"),
        size: u64::from(size.groups) * SLOT,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    w.queue.write_buffer(&uniforms, 0, &tints(size.groups));
    let small = |label, bytes: Vec<u8>, usage| {
        let b = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        w.queue.write_buffer(&b, 0, &bytes);
        b
    };
    let vbs: Vec<wgpu::Buffer> = (0..VERTEX_BUFFERS)
        .map(|k| small("corners", corners(k), wgpu::BufferUsages::VERTEX))
        .collect();
    let ibs: Vec<wgpu::Buffer> = (0..INDEX_BUFFERS)
        .map(|k| small("indices", indices(k), wgpu::BufferUsages::INDEX))
        .collect();
    let args = small(
        "commands",
        commands(size.draws.max(1)),
        wgpu::BufferUsages::INDIRECT,
    );
    let groups: Vec<wgpu::BindGroup> = (0..size.groups)
        .map(|g| {
            dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("draw group"),
                layout: &bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(
                            &views[(g % TEXTURES) as usize],
                        ),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(
                            &samplers[(g % SAMPLERS) as usize],
                        ),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &uniforms,
                            offset: u64::from(g) * SLOT,
                            size: std::num::NonZeroU64::new(16),
                        }),
                    },
                ],
            })
        })
        .collect();
    let target_size = size.target();
    let target = dev.create_texture(&wgpu::TextureDescriptor {
        label: Some("draws target"),
        size: wgpu::Extent3d {
            width: target_size[0],
            height: target_size[1],
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let target_view = target.create_view(&wgpu::TextureViewDescriptor::default());
    // The frame's draws on `$pass` (the pass, or the bundle's encoder).
    macro_rules! draws {
        ($pass:expr) => {
            $pass.set_pipeline(&pipeline);
            for i in 0..size.draws {
                $pass.set_bind_group(0, &groups[(i % size.groups) as usize], &[]);
                $pass.set_vertex_buffer(0, vbs[(i % VERTEX_BUFFERS) as usize].slice(..));
                $pass.set_index_buffer(
                    ibs[(i % INDEX_BUFFERS) as usize].slice(..),
                    wgpu::IndexFormat::Uint16,
                );
                if size.indirect {
                    $pass.draw_indexed_indirect(&args, 20 * u64::from(i));
                } else {
                    $pass.draw_indexed(0..6, 0, i..i + 1);
                }
            }
        };
    }
    let recorded = bundle.then(|| {
        let mut b = dev.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
            label: Some("draws"),
            color_formats: &[Some(wgpu::TextureFormat::Rgba8Unorm)],
            depth_stencil: None,
            sample_count: 1,
            multiview: None,
        });
        draws!(b);
        b.finish(&wgpu::RenderBundleDescriptor {
            label: Some("draws"),
        })
    });
    let record = move || -> (wgpu::CommandBuffer, Duration) {
        let t = Instant::now();
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("draws"),
        });
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("draws"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            match &recorded {
                Some(b) => pass.execute_bundles(std::iter::once(b)),
                None => {
                    draws!(pass);
                }
            }
        }
        let cb = enc.finish();
        (cb, t.elapsed())
    };
    (Box::new(record), target)
}

/// Submits one frame, waits for it and reads its target back.
fn wgpu_first(
    w: &Wgpu,
    record: &WgpuRecord<'_>,
    target: &wgpu::Texture,
    size: Size,
) -> Result<Vec<u8>, String> {
    let (cb, _) = record();
    w.queue.submit([cb]);
    w.read_texture(target, size.target())
}

/// One timed frame: `[encode, submit]`, then the wait for the GPU.
fn wgpu_frame(w: &Wgpu, record: &WgpuRecord<'_>) -> Result<[Duration; 2], String> {
    let (cb, encode) = record();
    let t = Instant::now();
    w.queue.submit([cb]);
    let submit = t.elapsed();
    w.wait()?;
    Ok([encode, submit])
}

/// A 4×4 RGBA8 texture to sample and copy into: the scene's textures and the idle ones.
fn wgpu_small_texture(dev: &wgpu::Device, label: &str) -> wgpu::Texture {
    dev.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

/// `n` idle buffers and `n` idle textures on `w` (they go when dropped).
fn wgpu_idle(w: &Wgpu, n: u32) -> Vec<(wgpu::Buffer, wgpu::Texture)> {
    (0..n)
        .map(|_| {
            let b = w.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("idle"),
                size: 256,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let t = wgpu_small_texture(&w.device, "idle");
            (b, t)
        })
        .collect()
}

/// Through wgpu. With `second` (idle-resources), the frame also runs on that device, as in
/// [`vigil()`].
pub fn wgpu(w: &Wgpu, second: Option<&Wgpu>, size: Size, plan: Plan) -> Result<PathResult, String> {
    let (record, target) = wgpu_scene(w, size, false);
    let output = wgpu_first(w, &record, &target, size)?;
    let (plain, idle) = match second {
        None => (repeat(plan, || wgpu_frame(w, &record))?, None),
        Some(other) => {
            let (record_b, target_b) = wgpu_scene(other, size, false);
            let frame_a = || wgpu_frame(w, &record);
            let frame_b = || wgpu_frame(other, &record_b);
            let idle = wgpu_idle(other, size.idle);
            if wgpu_first(other, &record_b, &target_b, size)? != output {
                return Err("wgpu: the frame on the second device differs".into());
            }
            let first = alternate(plan, frame_a, frame_b)?;
            drop(idle);
            let idle = wgpu_idle(w, size.idle);
            if wgpu_first(w, &record, &target, size)? != output {
                return Err("wgpu: the frame beside the idle objects differs".into());
            }
            let second = alternate(plan, frame_b, frame_a)?;
            drop(idle);
            let (plain, idle) = crossover(first, second);
            (plain, Some(idle))
        }
    };
    let mut par = Vec::new();
    if size.parallel {
        let mut last = Vec::new();
        par = parallel(&THREADS, plan, |_| Ok(record().0), |cbs| last = cbs)?;
        w.queue.submit(last);
        let again = w.read_texture(&target, size.target())?;
        if again != output {
            return Err("wgpu: the frame recorded on several threads differs".into());
        }
    }
    Ok(result(
        "wgpu",
        Timings {
            plain,
            idle,
            parallel: par,
        },
        output,
    ))
}

/// Through wgpu, the frame's draws recorded once into a render bundle and executed by each
/// frame (`wgpu-bundle`): the same frame as [`vigil_bundle`]'s, paired with it.
pub fn wgpu_bundle(w: &Wgpu, size: Size, plan: Plan) -> Result<PathResult, String> {
    let (record, target) = wgpu_scene(w, size, true);
    let output = wgpu_first(w, &record, &target, size)?;
    let plain = repeat(plan, || wgpu_frame(w, &record))?;
    Ok(result(
        "wgpu-bundle",
        Timings {
            plain,
            idle: None,
            parallel: Vec::new(),
        },
        output,
    ))
}

/// The image every path must produce, computed on the CPU.
pub fn expected(size: Size) -> Vec<u8> {
    let [w, h] = size.target();
    let grid = size.grid();
    let mut out = vec![0u8; (w * h * 4) as usize];
    for px in out.chunks_exact_mut(4) {
        px[3] = 255;
    }
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let all = tints(size.groups);
    for i in 0..size.draws {
        let g = i % size.groups;
        let t = texels(g % TEXTURES);
        let tint = &all[(u64::from(g) * SLOT) as usize..][..16];
        let tint: Vec<f32> = tint
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let colour: Vec<u8> = (0..4)
            .map(|k| unorm(f32::from(t[k]) / 255.0 * tint[k]))
            .collect();
        let span = if (i % VERTEX_BUFFERS).is_multiple_of(2) {
            CELL
        } else {
            CELL / 2
        };
        let (cx, cy) = (i % grid * CELL, i / grid * CELL);
        for y in cy..cy + span {
            for x in cx..cx + span {
                let at = ((y * w + x) * 4) as usize;
                out[at..at + 4].copy_from_slice(&colour);
            }
        }
    }
    out
}
