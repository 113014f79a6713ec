//! Render pipelines: descriptors and the checks that tie vertex layouts, shader inputs and
//! outputs, targets and depth-stencil state together.

use crate::device::{Device, PipelineInfo, RenderPipelineObj, Retained, check_against_layout};
use crate::error::{Result, fail};
use crate::handle::{Handle, PipelineLayout, RenderPipeline, ShaderModule};
use vigil_hal::{
    Api, ColorTargetState, DepthStencilState, Device as _, PrimitiveState, TextureFormat,
    TextureSampleType, VertexBufferLayout, VertexScalar, VertexStepMode,
};
use vigil_shader::{IoScalar, Stage};

/// The vertex stage of a render pipeline.
#[derive(Clone, Copy, Debug)]
pub struct VertexState<'a> {
    /// Module holding the entry point.
    pub module: ShaderModule,
    /// Name of a `@vertex` entry point.
    pub entry_point: &'a str,
    /// Vertex buffers, by slot.
    pub buffers: &'a [VertexBufferLayout<'a>],
}

/// The fragment stage of a render pipeline.
#[derive(Clone, Copy, Debug)]
pub struct FragmentState<'a> {
    /// Module holding the entry point.
    pub module: ShaderModule,
    /// Name of a `@fragment` entry point.
    pub entry_point: &'a str,
    /// Color targets by attachment index (`None` leaves one unused).
    pub targets: &'a [Option<ColorTargetState>],
}

/// How to create a render pipeline.
#[derive(Clone, Copy, Debug)]
pub struct RenderPipelineDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Layout every stage's bindings must match.
    pub layout: PipelineLayout,
    /// Vertex stage.
    pub vertex: VertexState<'a>,
    /// Fragment stage (none for depth-only pipelines).
    pub fragment: Option<FragmentState<'a>>,
    /// Topology, winding, culling.
    pub primitive: PrimitiveState,
    /// Depth and stencil tests.
    pub depth_stencil: Option<DepthStencilState>,
    /// Samples per pixel: 1, or 4 for multisampling.
    pub sample_count: u32,
}

/// Per vertex buffer slot: what draws check ranges against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VertexBufferFacts {
    pub stride: u64,
    pub step: VertexStepMode,
    /// Bytes the last element needs (end of the furthest attribute).
    pub element_size: u64,
}

/// What render passes and draws need to know about a render pipeline.
#[derive(Clone, Debug)]
pub(crate) struct RenderPipelineFacts {
    pub vertex_buffers: Box<[VertexBufferFacts]>,
    pub color_formats: Box<[Option<TextureFormat>]>,
    pub depth_format: Option<TextureFormat>,
    pub sample_count: u32,
}

fn io_matches(scalar: IoScalar, vertex: VertexScalar) -> bool {
    matches!(
        (scalar, vertex),
        (IoScalar::Float, VertexScalar::Float)
            | (IoScalar::Uint, VertexScalar::Uint)
            | (IoScalar::Sint, VertexScalar::Sint)
    )
}

impl<A: Api> Device<A> {
    /// Creates a render pipeline after checking vertex layouts against the vertex shader's
    /// inputs, fragment outputs against the targets, every stage's bindings against the
    /// layout, and formats and sample counts against what the device supports.
    pub fn create_render_pipeline(
        &self,
        desc: &RenderPipelineDescriptor<'_>,
    ) -> Result<RenderPipeline> {
        const OP: &str = "create_render_pipeline";
        self.check_alive(OP)?;
        let l = desc.label;
        let limits = &self.limits;
        if desc.sample_count != 1 && desc.sample_count != 4 {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "sample count {}; vigil supports 1 and 4",
                desc.sample_count
            ));
        }
        // Vertex buffer layouts.
        if desc.vertex.buffers.len() > limits.max_vertex_buffers as usize {
            return Err(fail!(
                LimitExceeded,
                OP,
                l,
                "{} vertex buffers exceed max_vertex_buffers ({})",
                desc.vertex.buffers.len(),
                limits.max_vertex_buffers
            ));
        }
        let mut locations: Vec<(u32, VertexScalar)> = Vec::new();
        let mut facts = Vec::with_capacity(desc.vertex.buffers.len());
        for (slot, vb) in desc.vertex.buffers.iter().enumerate() {
            if vb.array_stride > u64::from(limits.max_vertex_buffer_array_stride) {
                return Err(fail!(
                    LimitExceeded,
                    OP,
                    l,
                    "vertex buffer {slot}: stride {} exceeds max_vertex_buffer_array_stride ({})",
                    vb.array_stride,
                    limits.max_vertex_buffer_array_stride
                ));
            }
            if vb.array_stride % 4 != 0 {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "vertex buffer {slot}: stride {} is not a multiple of 4",
                    vb.array_stride
                ));
            }
            let mut element = 0;
            for a in vb.attributes {
                let end = a.offset.saturating_add(a.format.size());
                let room = if vb.array_stride == 0 {
                    u64::from(limits.max_vertex_buffer_array_stride)
                } else {
                    vb.array_stride
                };
                if end > room {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        l,
                        "vertex buffer {slot}: attribute at @location({}) spans bytes {}..{end}, past the stride of {room}",
                        a.shader_location,
                        a.offset
                    ));
                }
                if a.offset.checked_rem(a.format.size().min(4)) != Some(0) {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        l,
                        "vertex buffer {slot}: attribute offset {} is misaligned for {:?}",
                        a.offset,
                        a.format
                    ));
                }
                if a.shader_location >= limits.max_vertex_attributes {
                    return Err(fail!(
                        LimitExceeded,
                        OP,
                        l,
                        "@location({}) is not below max_vertex_attributes ({})",
                        a.shader_location,
                        limits.max_vertex_attributes
                    ));
                }
                if locations.iter().any(|(loc, _)| *loc == a.shader_location) {
                    return Err(fail!(
                        InvalidDescriptor,
                        OP,
                        l,
                        "@location({}) is given by more than one attribute",
                        a.shader_location
                    ));
                }
                locations.push((a.shader_location, a.format.shader_type().1));
                element = element.max(end);
            }
            facts.push(VertexBufferFacts {
                stride: vb.array_stride,
                step: vb.step_mode,
                element_size: element,
            });
        }
        if locations.len() > limits.max_vertex_attributes as usize {
            return Err(fail!(
                LimitExceeded,
                OP,
                l,
                "{} vertex attributes exceed max_vertex_attributes ({})",
                locations.len(),
                limits.max_vertex_attributes
            ));
        }
        // Targets.
        let targets = desc.fragment.map_or(&[][..], |f| f.targets);
        if targets.len() > limits.max_color_attachments as usize {
            return Err(fail!(
                LimitExceeded,
                OP,
                l,
                "{} color targets exceed max_color_attachments ({})",
                targets.len(),
                limits.max_color_attachments
            ));
        }
        for (i, t) in targets.iter().enumerate() {
            let Some(t) = t else { continue };
            let support = self.hal.format_support(t.format);
            if t.format.is_depth_stencil() {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "color target {i}: {} is a depth format",
                    t.format.wgsl_name()
                ));
            }
            if !support.color_attachment {
                return Err(fail!(
                    Unsupported,
                    OP,
                    l,
                    "color target {i}: {} cannot be rendered to on this device",
                    t.format.wgsl_name()
                ));
            }
            if t.blend.is_some() && !(support.blendable && t.format.info().blendable) {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "color target {i}: {} cannot be blended",
                    t.format.wgsl_name()
                ));
            }
            if desc.sample_count == 4 && !support.multisample4 {
                return Err(fail!(
                    Unsupported,
                    OP,
                    l,
                    "color target {i}: {} cannot be multisampled on this device",
                    t.format.wgsl_name()
                ));
            }
        }
        if let Some(ds) = &desc.depth_stencil {
            if !ds.format.is_depth_stencil() {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "depth-stencil format {} is not a depth format",
                    ds.format.wgsl_name()
                ));
            }
            if !self.hal.format_support(ds.format).depth_stencil_attachment {
                return Err(fail!(
                    Unsupported,
                    OP,
                    l,
                    "{} cannot be a depth-stencil attachment on this device",
                    ds.format.wgsl_name()
                ));
            }
            if ds.stencil_enabled() && !ds.format.info().has_stencil {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "stencil state is set but {} has no stencil aspect",
                    ds.format.wgsl_name()
                ));
            }
        }
        let mut st = self.state(OP)?;
        let vmod = st.shader_modules.value(desc.vertex.module, self.id, OP)?;
        let Some(vs) = vmod
            .reflection
            .entry_point(desc.vertex.entry_point)
            .filter(|e| e.stage == Stage::Vertex)
        else {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                l,
                "module '{}' has no vertex entry point '{}'",
                vmod.label,
                desc.vertex.entry_point
            ));
        };
        for input in &vs.vertex_inputs {
            let Some((_, kind)) = locations.iter().find(|(loc, _)| *loc == input.location) else {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "the vertex shader reads @location({}) but no vertex attribute provides it",
                    input.location
                ));
            };
            if !io_matches(input.scalar, *kind) {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "@location({}) is {:?} in the shader but the attribute provides {:?}",
                    input.location,
                    input.scalar,
                    kind
                ));
            }
        }
        let layout = st.pipeline_layouts.value(desc.layout, self.id, OP)?;
        let mut late = check_against_layout(OP, l, vs, layout, &st.bind_group_layouts)?;
        let mut fragment = None;
        if let Some(f) = &desc.fragment {
            let fmod = st.shader_modules.value(f.module, self.id, OP)?;
            let Some(fs) = fmod
                .reflection
                .entry_point(f.entry_point)
                .filter(|e| e.stage == Stage::Fragment)
            else {
                return Err(fail!(
                    InvalidDescriptor,
                    OP,
                    l,
                    "module '{}' has no fragment entry point '{}'",
                    fmod.label,
                    f.entry_point
                ));
            };
            for (i, t) in f.targets.iter().enumerate() {
                let Some(t) = t else { continue };
                let out = fs.fragment_outputs.iter().find(|o| o.location == i as u32);
                match out {
                    None if !t.write_mask.is_empty() => {
                        return Err(fail!(
                            InvalidDescriptor,
                            OP,
                            l,
                            "color target {i} is written but the fragment shader has no @location({i}) output"
                        ));
                    }
                    Some(o) => {
                        let want = match t.format.info().sample_type {
                            TextureSampleType::Uint => IoScalar::Uint,
                            TextureSampleType::Sint => IoScalar::Sint,
                            _ => IoScalar::Float,
                        };
                        if o.scalar != want {
                            return Err(fail!(
                                InvalidDescriptor,
                                OP,
                                l,
                                "fragment output @location({i}) is {:?} but target format {} takes {:?}",
                                o.scalar,
                                t.format.wgsl_name(),
                                want
                            ));
                        }
                    }
                    None => {}
                }
            }
            for c in check_against_layout(OP, l, fs, layout, &st.bind_group_layouts)? {
                if !late
                    .iter()
                    .any(|x| x.group == c.group && x.binding == c.binding && x.min >= c.min)
                {
                    late.push(c);
                }
            }
            fragment = Some((&fmod.raw, f.entry_point));
        }
        // Attributes the vertex shader does not read are valid (WebGPU allows them) but have
        // no use natively, and the driver is told only of the ones it consumes.
        let consumed: Vec<Vec<vigil_hal::VertexAttribute>> = desc
            .vertex
            .buffers
            .iter()
            .map(|vb| {
                vb.attributes
                    .iter()
                    .filter(|a| {
                        vs.vertex_inputs
                            .iter()
                            .any(|i| i.location == a.shader_location)
                    })
                    .copied()
                    .collect()
            })
            .collect();
        let native_buffers: Vec<VertexBufferLayout<'_>> = desc
            .vertex
            .buffers
            .iter()
            .zip(&consumed)
            .map(|(vb, attributes)| VertexBufferLayout { attributes, ..*vb })
            .collect();
        let raw = self
            .hal
            .create_render_pipeline(&vigil_hal::RenderPipelineDescriptor {
                label: l,
                layout: &layout.raw,
                vertex_module: &vmod.raw,
                vertex_entry: desc.vertex.entry_point,
                vertex_buffers: &native_buffers,
                fragment,
                targets,
                primitive: desc.primitive,
                depth_stencil: desc.depth_stencil,
                sample_count: desc.sample_count,
            })
            .map_err(|e| self.hal_error(e, OP, l))?;
        let info = PipelineInfo {
            layout: (desc.layout.index(), desc.layout.generation()),
            group_compat: layout.compat.clone().into_boxed_slice(),
            late_checks: late.into_boxed_slice(),
        };
        let render = RenderPipelineFacts {
            vertex_buffers: facts.into_boxed_slice(),
            color_formats: targets.iter().map(|t| t.map(|t| t.format)).collect(),
            depth_format: desc.depth_stencil.map(|d| d.format),
            sample_count: desc.sample_count,
        };
        st.retain(Retained::PipelineLayout(desc.layout.index()));
        let (i, g) = st.render_pipelines.insert(RenderPipelineObj {
            raw,
            label: l.to_owned(),
            info,
            render,
        });
        drop(st);
        self.notify_created("render pipeline", l);
        Ok(RenderPipeline::from_parts(i, g, self.id))
    }

    /// Destroys a render pipeline.
    pub fn destroy_render_pipeline(&self, pipeline: RenderPipeline) -> Result<()> {
        const OP: &str = "destroy_render_pipeline";
        let mut st = self.state(OP)?;
        st.render_pipelines.get(pipeline, self.id, OP)?;
        self.retire(&mut st, Retained::RenderPipeline(pipeline.index()));
        Ok(())
    }
}
