//! The demo's deferred frame: the scene's texture passes, then a G-buffer pass (the cubes'
//! albedo and normals), lighting, a bloom (bright pass and a two-pass blur) and a
//! composite into an RGBA8 image. It renders two ways — with textures made by hand
//! (immediate mode) and as a render graph whose intermediate textures are transients the
//! graph makes, sharing memory where their lifetimes allow — and the two are compared
//! pixel for pixel.

use super::{
    BACKGROUND, GraphFrame, Passes, Scene, entry, mesh_pipeline, module_and_layout, run_graph,
};
use crate::image::Image;
use crate::{Result, err, read_image};
use vigil::*;
use vigil_graph::{
    CompiledGraph, Graph, GraphError, GraphGroupEntry, GraphResource, PassKind, ResourceState,
    TransientTexture, Usage,
};

/// A triangle covering the target, and the fragment shaders reading the G-buffer and the
/// bloom chain by texel (no filtering, so every device computes the same values).
const FULLSCREEN: &str = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}
"#;

const LIGHTING: &str = r#"
struct Camera { view_proj: mat4x4<f32>, light: vec4<f32> }
@group(0) @binding(0) var albedo: texture_2d<f32>;
@group(0) @binding(1) var normal: texture_2d<f32>;
@group(0) @binding(2) var<uniform> cam: Camera;
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let at = vec2<i32>(p.xy);
    let a = textureLoad(albedo, at, 0);
    let n = textureLoad(normal, at, 0);
    if n.w == 0.0 { return a; }
    let lambert = max(dot(normalize(n.xyz), -cam.light.xyz), 0.0);
    return vec4<f32>(a.rgb * (0.2 + 1.4 * lambert), 1.0);
}
"#;

const BLOOM: &str = r#"
@group(0) @binding(0) var src: texture_2d<f32>;
fn at(p: vec2<i32>) -> vec3<f32> {
    let last = vec2<i32>(textureDimensions(src)) - vec2<i32>(1, 1);
    return textureLoad(src, clamp(p, vec2<i32>(0, 0), last), 0).rgb;
}
@fragment fn bright(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(max(at(vec2<i32>(p.xy)) - vec3<f32>(0.7), vec3<f32>(0.0)), 1.0);
}
fn blur(p: vec2<i32>, step: vec2<i32>) -> vec4<f32> {
    let w = array<f32, 5>(0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216);
    var c = at(p) * w[0];
    for (var k = 1; k < 5; k++) {
        c += (at(p + step * k) + at(p - step * k)) * w[k];
    }
    return vec4<f32>(c, 1.0);
}
@fragment fn blur_h(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return blur(vec2<i32>(p.xy), vec2<i32>(2, 0));
}
@fragment fn blur_v(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return blur(vec2<i32>(p.xy), vec2<i32>(0, 2));
}
"#;

const COMPOSITE: &str = r#"
@group(0) @binding(0) var hdr: texture_2d<f32>;
@group(0) @binding(1) var bloom: texture_2d<f32>;
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let at = vec2<i32>(p.xy);
    let c = textureLoad(hdr, at, 0).rgb + 0.8 * textureLoad(bloom, at, 0).rgb;
    return vec4<f32>(min(c / (c + vec3<f32>(0.5)) * 1.5, vec3<f32>(1.0)), 1.0);
}
"#;

/// The format of every intermediate color texture: lighting leaves values above 1.
const HDR: TextureFormat = TextureFormat::Rgba16Float;

/// The pipelines of the frame's fullscreen passes.
#[derive(Clone, Copy)]
struct Post {
    lighting: RenderPipeline,
    bright: RenderPipeline,
    blur_h: RenderPipeline,
    blur_v: RenderPipeline,
    composite: RenderPipeline,
}

/// A pass drawing one fullscreen triangle with `pipeline` into `target`, its groups bound
/// by `bind` (a group by hand, or the graph's).
fn fullscreen(
    enc: &mut CommandEncoder,
    label: &str,
    pipeline: RenderPipeline,
    target: TextureView,
    bind: impl FnOnce(&mut CommandEncoder) -> vigil::Result<()>,
) -> vigil::Result<()> {
    enc.begin_render_pass(&RenderPassDescriptor {
        label,
        color_attachments: &[Some(RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0, 0.0, 0.0, 1.0]),
            store: StoreOp::Store,
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        multiview_mask: None,
        occlusion_query_set: None,
    })?;
    enc.set_render_pipeline(pipeline)?;
    bind(enc)?;
    enc.draw(0..3, 0..1)?;
    enc.end_render_pass()
}

/// Binds `group` at set 0.
fn with(group: BindGroup) -> impl FnOnce(&mut CommandEncoder) -> vigil::Result<()> {
    move |enc| enc.set_bind_group(0, group, &[])
}

/// The G-buffer pass: the cubes' albedo and normals (alpha 0 where nothing was drawn).
fn gbuffer(
    passes: &Passes,
    pipeline: RenderPipeline,
    enc: &mut CommandEncoder,
    albedo: TextureView,
    normal: TextureView,
    depth: TextureView,
) -> vigil::Result<()> {
    let target = |view, clear| {
        Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear(clear),
            store: StoreOp::Store,
        })
    };
    passes.cubes(
        enc,
        "g-buffer",
        pipeline,
        &[
            target(albedo, BACKGROUND),
            target(normal, [0.0, 0.0, 0.0, 0.0]),
        ],
        depth,
        None,
    )
}

/// The intermediate textures of the immediate-mode frame, one each, and the groups over
/// them.
struct Targets {
    albedo: TextureView,
    normal: TextureView,
    depth: TextureView,
    hdr: TextureView,
    bright: TextureView,
    blur_a: TextureView,
    blur_b: TextureView,
    lighting: BindGroup,
    bright_group: BindGroup,
    blur_h: BindGroup,
    blur_v: BindGroup,
    composite: BindGroup,
}

/// The deferred frame: its pipelines and layouts, its output, and the immediate-mode
/// frame's own intermediate textures.
pub struct Deferred {
    size: [u32; 2],
    gbuffer: RenderPipeline,
    post: Post,
    /// Layouts: lighting (two textures and the camera), one texture, two textures.
    layouts: [BindGroupLayout; 3],
    output: Texture,
    output_view: TextureView,
    targets: Targets,
}

impl Deferred {
    /// Creates the frame's pipelines, output and (for immediate mode) intermediate
    /// textures, over `scene`'s texture, meshes and camera.
    pub fn new(device: &Device, scene: &Scene) -> Result<Deferred> {
        let size = scene.size;
        let color_target = |format| {
            [Some(ColorTargetState {
                format,
                blend: None,
                write_mask: ColorWrites::ALL,
            })]
        };
        let gbuffer = mesh_pipeline(
            device,
            scene.mesh_layout,
            scene.mesh_module,
            "fs_gbuffer",
            &[color_target(HDR)[0], color_target(HDR)[0]],
        )?;
        let texture = |binding| {
            entry(
                binding,
                ShaderStages::FRAGMENT,
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: false },
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
            )
        };
        let camera = entry(
            2,
            ShaderStages::FRAGMENT,
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
        );
        let layout = |label, entries: &[BindGroupLayoutEntry]| {
            device
                .create_bind_group_layout(&BindGroupLayoutDescriptor { label, entries })
                .map_err(err)
        };
        let layouts = [
            layout("lighting", &[texture(0), texture(1), camera])?,
            layout("one texture", &[texture(0)])?,
            layout("two textures", &[texture(0), texture(1)])?,
        ];
        let vertex = device
            .create_shader_module(&ShaderModuleDescriptor {
                label: "fullscreen",
                wgsl: FULLSCREEN,
            })
            .map_err(err)?;
        let pipeline = |label, wgsl, fs, bgl, format| -> Result<RenderPipeline> {
            let (module, layout) = module_and_layout(device, label, wgsl, bgl)?;
            device
                .create_render_pipeline(&RenderPipelineDescriptor {
                    label,
                    layout,
                    vertex: VertexState {
                        module: vertex,
                        entry_point: "vs",
                        constants: &[],
                        buffers: &[],
                    },
                    fragment: Some(FragmentState {
                        module,
                        entry_point: fs,
                        constants: &[],
                        targets: &color_target(format),
                    }),
                    primitive: PrimitiveState {
                        topology: PrimitiveTopology::TriangleList,
                        front_face: FrontFace::Ccw,
                        cull_mode: CullMode::None,
                        strip_index_format: None,
                        ..Default::default()
                    },
                    depth_stencil: None,
                    multisample: vigil::MultisampleState::default(),
                    multiview_mask: None,
                    cache: None,
                })
                .map_err(err)
        };
        let [lighting_bgl, one, two] = layouts;
        let post = Post {
            lighting: pipeline("lighting", LIGHTING, "fs", lighting_bgl, HDR)?,
            bright: pipeline("bright", BLOOM, "bright", one, HDR)?,
            blur_h: pipeline("blur h", BLOOM, "blur_h", one, HDR)?,
            blur_v: pipeline("blur v", BLOOM, "blur_v", one, HDR)?,
            composite: pipeline("composite", COMPOSITE, "fs", two, TextureFormat::Rgba8Unorm)?,
        };
        let (output, output_view) = crate::render_target(device, "deferred output", size)?;
        let targets = Self::targets(device, size, layouts, scene.camera)?;
        Ok(Deferred {
            size,
            gbuffer,
            post,
            layouts,
            output,
            output_view,
            targets,
        })
    }

    /// The textures an intermediate of the frame is made as: a G-buffer or bloom target
    /// the next passes read, or the depth buffer.
    fn intermediate(size: [u32; 2], depth: bool) -> TransientTexture {
        TransientTexture {
            size,
            array_layers: 1,
            mip_level_count: 1,
            sample_count: 1,
            format: if depth {
                TextureFormat::Depth32Float
            } else {
                HDR
            },
            usage: if depth {
                TextureUsages::RENDER_ATTACHMENT
            } else {
                TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING
            },
        }
    }

    /// The immediate-mode frame's intermediates: one texture each, made by hand.
    fn targets(
        device: &Device,
        size: [u32; 2],
        [lighting, one, two]: [BindGroupLayout; 3],
        camera: Buffer,
    ) -> Result<Targets> {
        let make = |label, depth| -> Result<TextureView> {
            let texture = device
                .create_texture(&Self::intermediate(size, depth).descriptor(label))
                .map_err(err)?;
            device
                .create_texture_view(texture, &TextureViewDescriptor::default())
                .map_err(err)
        };
        let (albedo, normal, depth) = (
            make("albedo", false)?,
            make("normal", false)?,
            make("depth", true)?,
        );
        let (hdr, bright, blur_a, blur_b) = (
            make("hdr", false)?,
            make("bright", false)?,
            make("blur a", false)?,
            make("blur b", false)?,
        );
        let group = |label, layout, resources: &[BindingResource<'_>]| {
            let entries: Vec<BindGroupEntry<'_>> = resources
                .iter()
                .enumerate()
                .map(|(i, &resource)| BindGroupEntry {
                    binding: i as u32,
                    resource,
                })
                .collect();
            device
                .create_bind_group(&BindGroupDescriptor {
                    label,
                    layout,
                    entries: &entries,
                })
                .map_err(err)
        };
        use BindingResource::TextureView as V;
        Ok(Targets {
            lighting: group(
                "lighting",
                lighting,
                &[
                    V(albedo),
                    V(normal),
                    BindingResource::Buffer(BufferBinding::whole(camera)),
                ],
            )?,
            bright_group: group("bright", one, &[V(hdr)])?,
            blur_h: group("blur h", one, &[V(bright)])?,
            blur_v: group("blur v", one, &[V(blur_a)])?,
            composite: group("composite", two, &[V(hdr), V(blur_b)])?,
            albedo,
            normal,
            depth,
            hdr,
            bright,
            blur_a,
            blur_b,
        })
    }

    /// Bytes the immediate-mode frame's intermediate textures take (one texture each).
    pub fn immediate_bytes(&self) -> u64 {
        let (color, depth) = (
            Self::intermediate(self.size, false).bytes(),
            Self::intermediate(self.size, true).bytes(),
        );
        6 * color + depth
    }

    /// Renders frame `index` in immediate mode — every pass recorded by hand, into
    /// textures made by hand — and reads it back.
    pub fn frame(&self, device: &Device, scene: &Scene, index: u32) -> Result<Image> {
        scene.update(device, index)?;
        let mut enc = device
            .create_command_encoder(&CommandEncoderDescriptor {
                label: "deferred frame",
            })
            .map_err(err)?;
        let (passes, post, t) = (scene.passes(), self.post, &self.targets);
        let run = |enc: &mut CommandEncoder| -> vigil::Result<()> {
            passes.pattern(enc, None)?;
            passes.mips(enc, &scene.mip_groups, None)?;
            gbuffer(&passes, self.gbuffer, enc, t.albedo, t.normal, t.depth)?;
            fullscreen(enc, "lighting", post.lighting, t.hdr, with(t.lighting))?;
            fullscreen(enc, "bright", post.bright, t.bright, with(t.bright_group))?;
            fullscreen(enc, "blur h", post.blur_h, t.blur_a, with(t.blur_h))?;
            fullscreen(enc, "blur v", post.blur_v, t.blur_b, with(t.blur_v))?;
            fullscreen(
                enc,
                "composite",
                post.composite,
                self.output_view,
                with(t.composite),
            )
        };
        run(&mut enc).map_err(err)?;
        device.submit([enc.finish().map_err(err)?]).map_err(err)?;
        read_image(device, self.output, self.size)
    }

    /// The same frame as a render graph: the scene's texture passes with their groups
    /// imported, then the G-buffer, lighting, bloom and composite passes over transient
    /// textures the graph makes, bound through groups the graph makes over them. The
    /// seven intermediates share four textures: those whose lifetimes end before
    /// another's begins are made once (see [`vigil_graph::Plan::transient_bytes`]).
    pub fn graph(&self, device: &Device, scene: &Scene) -> Result<CompiledGraph> {
        let ge = |e: GraphError| e.to_string();
        let mut g: Graph = Graph::new();
        scene.texture_passes(&mut g, device)?;
        let size = self.size;
        let mut transient = |name| g.create_texture(name, Self::intermediate(size, false));
        let (albedo, normal, hdr, bright, blur_a, blur_b) = (
            transient("albedo"),
            transient("normal"),
            transient("hdr"),
            transient("bright"),
            transient("blur a"),
            transient("blur b"),
        );
        let depth = g.create_texture("depth", Self::intermediate(size, true));
        let output = g
            .import_texture("output", self.output, ResourceState::UNUSED)
            .map_err(ge)?;

        let geometry = g.add_pass("g-buffer", PassKind::Render);
        scene.mesh_uses(&mut g, device, geometry)?;
        for target in [albedo, normal] {
            g.uses(geometry, target, Usage::ColorAttachment)
                .map_err(ge)?;
        }
        g.uses(geometry, depth, Usage::DepthAttachment)
            .map_err(ge)?;
        let (passes, pipeline) = (scene.passes(), self.gbuffer);
        g.record(geometry, move |ctx| {
            // The graph makes a view for every transient a running pass uses; were one
            // missing, the null handle is refused by the device.
            let view = |id| ctx.view(id).unwrap_or(TextureView::NULL);
            let (a, n, d) = (view(albedo), view(normal), view(depth));
            gbuffer(&passes, pipeline, ctx.encoder, a, n, d)
        })
        .map_err(ge)?;

        let camera = g
            .import_buffer("camera", scene.camera, ResourceState::TRANSFER_WRITTEN)
            .map_err(ge)?;
        let [lighting_bgl, one, two] = self.layouts;
        let texture = |binding, id| GraphGroupEntry {
            binding,
            resource: GraphResource::Texture(id),
        };
        let camera_entry = GraphGroupEntry {
            binding: 2,
            resource: GraphResource::Buffer {
                resource: camera,
                offset: 0,
                size: None,
            },
        };
        let post = self.post;
        let steps = [
            (
                "lighting",
                post.lighting,
                lighting_bgl,
                vec![texture(0, albedo), texture(1, normal), camera_entry],
                hdr,
            ),
            ("bright", post.bright, one, vec![texture(0, hdr)], bright),
            ("blur h", post.blur_h, one, vec![texture(0, bright)], blur_a),
            ("blur v", post.blur_v, one, vec![texture(0, blur_a)], blur_b),
        ];
        for (name, pipeline, layout, entries, target) in steps {
            let group = g
                .create_bind_group(device, name, layout, &entries)
                .map_err(ge)?;
            let pass = g.add_pass(name, PassKind::Render);
            g.use_group(pass, 0, group).map_err(ge)?;
            g.uses(pass, target, Usage::ColorAttachment).map_err(ge)?;
            g.record(pass, move |ctx| {
                let view = ctx.view(target).unwrap_or(TextureView::NULL);
                let (encoder, groups) = ctx.parts();
                fullscreen(encoder, name, pipeline, view, |enc| groups.bind(enc))
            })
            .map_err(ge)?;
        }
        let group = g
            .create_bind_group(
                device,
                "composite",
                two,
                &[texture(0, hdr), texture(1, blur_b)],
            )
            .map_err(ge)?;
        let composite = g.add_pass("composite", PassKind::Render);
        g.use_group(composite, 0, group).map_err(ge)?;
        g.uses(composite, output, Usage::ColorAttachment)
            .map_err(ge)?;
        let view = self.output_view;
        g.record(composite, move |ctx| {
            let (encoder, groups) = ctx.parts();
            fullscreen(encoder, "composite", post.composite, view, |enc| {
                groups.bind(enc)
            })
        })
        .map_err(ge)?;
        g.compile().map_err(ge)
    }

    /// Renders frame `index` through a graph from [`Deferred::graph`] and reads it back.
    pub fn frame_with_graph(
        &self,
        device: &Device,
        scene: &Scene,
        graph: &mut CompiledGraph,
        index: u32,
    ) -> Result<GraphFrame> {
        scene.update(device, index)?;
        let derived_barrier_batches = run_graph(device, graph, "deferred frame (graph)")?;
        Ok(GraphFrame {
            image: read_image(device, self.output, self.size)?,
            derived_barrier_batches,
        })
    }
}
