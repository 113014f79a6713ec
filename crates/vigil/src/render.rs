//! Render pipelines: descriptors, and creation after the checks in
//! `validate::pipeline` tie vertex layouts, shader inputs and outputs, targets and
//! depth-stencil state together.

use crate::device::{Device, PipelineInfo, group_facts};
use crate::error::Result;
use crate::handle::{PipelineLayout, RenderPipeline, ShaderModule};
use crate::native::Owned;
use crate::validate;
use vigil_hal::{
    Api, ColorTargetState, DepthStencilState, PrimitiveState, TextureFormat, VertexBufferLayout,
    VertexStepMode,
};
use vigil_shader::Stage;

/// The vertex stage of a render pipeline.
#[derive(Clone, Copy, Debug)]
pub struct VertexState<'a> {
    /// Module holding the entry point.
    pub module: ShaderModule,
    /// Name of a `@vertex` entry point.
    pub entry_point: &'a str,
    /// Values for the module's `override` constants, keyed by `@id` where the override
    /// has one, else by name; as in [`crate::ComputePipelineDescriptor::constants`].
    pub constants: &'a [(&'a str, f64)],
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
    /// Values for the module's `override` constants, keyed by `@id` where the override
    /// has one, else by name; as in [`crate::ComputePipelineDescriptor::constants`].
    pub constants: &'a [(&'a str, f64)],
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
    /// Samples per pixel (1, or 4 for multisampling), which of them are written, and
    /// alpha to coverage, as wgpu's `multisample` (`MultisampleState::default()`: one
    /// sample).
    pub multisample: vigil_hal::MultisampleState,
    /// The multiview mask of the passes it draws in (`None` for ordinary passes); needs
    /// the `MULTIVIEW` feature. As wgpu's `multiview_mask`.
    pub multiview_mask: Option<std::num::NonZeroU32>,
    /// A pipeline cache to look the pipeline up in and add it to (`None`: none), as wgpu's
    /// `cache`.
    pub cache: Option<crate::PipelineCache>,
}

/// Per vertex buffer slot: what draws check ranges against.
#[derive(Clone, Copy, Debug, Default)]
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
    /// Whether its draws write depth (`depth_write_enabled`): refused in passes whose depth
    /// is read-only.
    pub writes_depth: bool,
    /// Whether its draws may write stencil ([`vigil_hal::DepthStencilState::writes_stencil`]):
    /// refused in passes whose stencil is read-only.
    pub writes_stencil: bool,
    pub sample_count: u32,
    /// The strip index format, which indexed draws must match.
    pub strip_index_format: Option<vigil_hal::IndexFormat>,
    /// The multiview mask (0 for none), which the pass's must equal.
    pub multiview_mask: u32,
    /// A mesh pipeline (drawn only by mesh draws): `Some(true)` with a task shader.
    pub mesh: Option<bool>,
}

impl<A: Api> Device<A> {
    /// Creates a render pipeline after checking vertex layouts against the vertex shader's
    /// inputs, fragment outputs against the targets, every stage's bindings against the
    /// layout, and formats and sample counts against what the device supports.
    ///
    /// Differs from WebGPU's `createRenderPipeline`: the layout is always explicit (no
    /// `"auto"`), the sample count is 1 or 4, and there is no depth bias or
    /// alpha-to-coverage; multiview (wgpu's `multiview_mask`) is there with the `MULTIVIEW`
    /// feature.
    pub fn create_render_pipeline(
        &self,
        desc: &RenderPipelineDescriptor<'_>,
    ) -> Result<RenderPipeline> {
        const OP: &str = "create_render_pipeline";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let l = desc.label;
        let vertex = validate::pipeline::render_fixed(desc, self.features, &self.limits, &|f| {
            self.format_support(f)
        })?;
        let view_mask = desc.multiview_mask.map_or(0, std::num::NonZeroU32::get);
        validate::render_pass::multiview(OP, l, view_mask, self.features, &self.limits)?;
        let vmod = self.lookup(desc.vertex.module, OP)?;
        let vcode = self.stage_code(
            OP,
            l,
            &vmod,
            (desc.vertex.entry_point, Stage::Vertex),
            desc.vertex.constants,
        )?;
        let vs = validate::pipeline::entry_point(
            OP,
            l,
            &vmod.label,
            vcode.reflection(),
            desc.vertex.entry_point,
            Stage::Vertex,
        )?;
        validate::pipeline::vertex_inputs(l, vs, &vertex.locations)?;
        let layout = self.lookup(desc.layout, OP)?;
        let groups = group_facts(&layout);
        validate::pipeline::immediates(OP, l, vs, &layout.label, layout.immediate_size)?;
        let mut late = validate::pipeline::against_layout(OP, l, vs, &layout.label, &groups)?;
        let targets = desc.fragment.map_or(&[][..], |f| f.targets);
        let fmod = match &desc.fragment {
            Some(f) => Some(self.lookup(f.module, OP)?),
            None => None,
        };
        let fcode = match (&desc.fragment, &fmod) {
            (Some(f), Some(m)) => {
                Some(self.stage_code(OP, l, m, (f.entry_point, Stage::Fragment), f.constants)?)
            }
            _ => None,
        };
        if fcode.is_none() {
            validate::pipeline::alpha_to_coverage(l, &desc.multisample, None, targets)?;
        }
        if let (Some(f), Some(fmod), Some(fcode)) = (&desc.fragment, &fmod, &fcode) {
            let fs = validate::pipeline::entry_point(
                OP,
                l,
                &fmod.label,
                fcode.reflection(),
                f.entry_point,
                Stage::Fragment,
            )?;
            validate::pipeline::immediates(OP, l, fs, &layout.label, layout.immediate_size)?;
            validate::pipeline::dual_source(l, self.features, fs, f.targets)?;
            validate::pipeline::fragment_outputs(l, fs, f.targets)?;
            validate::pipeline::alpha_to_coverage(l, &desc.multisample, Some(fs), f.targets)?;
            for c in validate::pipeline::against_layout(OP, l, fs, &layout.label, &groups)? {
                if !late
                    .iter()
                    .any(|x| x.group == c.group && x.binding == c.binding && x.min >= c.min)
                {
                    late.push(c);
                }
            }
        }
        drop(groups);
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
        let fragment = match (&desc.fragment, &fcode) {
            (Some(f), Some(c)) => Some((c.raw(), f.entry_point)),
            _ => None,
        };
        let cache = self.pipeline_cache_of(desc.cache, OP)?;
        let raw = self
            .hal
            .create_render_pipeline(&vigil_hal::RenderPipelineDescriptor {
                label: l,
                layout: &layout.raw,
                vertex_module: vcode.raw(),
                vertex_entry: desc.vertex.entry_point,
                vertex_buffers: &native_buffers,
                fragment,
                targets,
                primitive: desc.primitive,
                depth_stencil: desc.depth_stencil,
                multisample: desc.multisample,
                view_mask,
                mesh: None,
                cache: cache.as_deref().map(|c| &*c.raw),
            })
            .map_err(|e| self.hal_error(e, OP, l))?;
        let raw = Owned::new(&self.hal, raw);
        let render = RenderPipelineFacts {
            vertex_buffers: vertex.buffers.into_boxed_slice(),
            color_formats: targets.iter().map(|t| t.map(|t| t.format)).collect(),
            depth_format: desc.depth_stencil.map(|d| d.format),
            writes_depth: desc.depth_stencil.is_some_and(|d| d.depth_write_enabled),
            writes_stencil: desc.depth_stencil.is_some_and(|d| d.writes_stencil()),
            sample_count: desc.multisample.count,
            strip_index_format: desc.primitive.strip_index_format,
            multiview_mask: view_mask,
            mesh: None,
        };
        let info = PipelineInfo {
            group_compat: layout.compat.clone().into_boxed_slice(),
            late_checks: late.into_boxed_slice(),
            layout,
            pointer: false,
            heaps: 0,
        };
        self.register_render_pipeline(OP, l, raw, info, render)
    }

    /// Destroys a render pipeline.
    pub fn destroy_render_pipeline(&self, pipeline: RenderPipeline) -> Result<()> {
        drop(self.remove(pipeline, "destroy_render_pipeline")?);
        Ok(())
    }
}
