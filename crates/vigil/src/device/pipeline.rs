//! Shader modules and pipelines; the checks that a pipeline's shaders use only what its
//! layout declares are in [`crate::validate::pipeline`].

use super::{ComputePipelineObj, Device, PipelineInfo, PipelineLayoutObj, ShaderModuleObj};
use crate::error::{Error, Result, fail};
use crate::handle::{ComputePipeline, Handle, PipelineLayout, ShaderModule};
use crate::native::Owned;
use crate::rules::Rule;
use crate::validate::{self, pipeline::GroupFacts};
use vigil_hal::{Api, ShaderFormat};
use vigil_shader::Stage;

/// How to create a pipeline layout.
#[derive(Clone, Debug, Default)]
pub struct PipelineLayoutDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bind group layouts, in group order.
    pub bind_group_layouts: &'a [crate::BindGroupLayout],
    /// Bytes of immediate data (`var<immediate>` in WGSL; Vulkan push constants) every
    /// stage sees: a multiple of 4 within `max_immediate_size`; 0 for none. Set with
    /// [`crate::CommandEncoder::set_immediates`] in a pass.
    pub immediate_size: u32,
}

/// How to create a shader module.
///
/// Differs from WebGPU's: WGSL source only (no SPIR-V or other languages). A module that
/// declares `override` constants is translated by each pipeline made from it, with that
/// pipeline's `constants`.
#[derive(Clone, Debug, Default)]
pub struct ShaderModuleDescriptor<'a> {
    /// Label; also the file name diagnostics report (`<label>.wgsl` when it has no dot).
    pub label: &'a str,
    /// WGSL source.
    pub wgsl: &'a str,
}

/// How to create a compute pipeline.
#[derive(Clone, Debug)]
pub struct ComputePipelineDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Layout the shader's bindings must match.
    pub layout: PipelineLayout,
    /// Module holding the entry point.
    pub module: ShaderModule,
    /// Name of a `@compute` entry point.
    pub entry_point: &'a str,
    /// Values for the module's `override` constants, keyed by `@id` where the override
    /// has one, else by name (WebGPU's `constants`; wgpu has them in
    /// `compilation_options`). Overrides with a default may be left out.
    pub constants: &'a [(&'a str, f64)],
    /// A pipeline cache to look the pipeline up in and add it to (`None`: none), as wgpu's
    /// `cache`.
    pub cache: Option<crate::PipelineCache>,
}

/// A pipeline stage's native code and the reflection it is checked against.
pub(crate) enum StageCode<'m, A: Api> {
    /// The module's own (it has no overrides and the stage gives no constants).
    Shared {
        raw: &'m Owned<A, crate::native::ShaderModuleKind>,
        reflection: &'m vigil_shader::Reflection,
    },
    /// Made for this pipeline with its constants fixed.
    Specialized {
        raw: Owned<A, crate::native::ShaderModuleKind>,
        reflection: vigil_shader::Reflection,
    },
}

impl<A: Api> StageCode<'_, A> {
    /// The native module.
    pub fn raw(&self) -> &A::ShaderModule {
        match self {
            StageCode::Shared { raw, .. } => raw,
            StageCode::Specialized { raw, .. } => raw,
        }
    }

    /// The reflection, with final workgroup sizes.
    pub fn reflection(&self) -> &vigil_shader::Reflection {
        match self {
            StageCode::Shared { reflection, .. } => reflection,
            StageCode::Specialized { reflection, .. } => reflection,
        }
    }
}

/// A pipeline layout's groups as the checks see them.
pub(crate) fn group_facts<A: Api>(layout: &PipelineLayoutObj<A>) -> Vec<GroupFacts<'_>> {
    layout
        .groups
        .iter()
        .map(|g| (g.label.as_str(), g.entries.as_slice()))
        .collect()
}

impl<A: Api> Device<A> {
    /// Creates a shader module from WGSL. Parse and validation errors carry a compiler
    /// diagnostic (file, line, column) in [`Error::shader_diagnostic`].
    pub fn create_shader_module(&self, desc: &ShaderModuleDescriptor<'_>) -> Result<ShaderModule> {
        const OP: &str = "create_shader_module";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let file = if desc.label.is_empty() {
            "shader.wgsl".to_owned()
        } else if desc.label.contains('.') {
            desc.label.to_owned()
        } else {
            format!("{}.wgsl", desc.label)
        };
        let module = vigil_shader::Module::from_wgsl_with(desc.wgsl, &file, self.features)
            .map_err(|d| {
                let rule = if d.features_needed.is_empty() {
                    Rule::ShaderCompile
                } else {
                    Rule::ShaderFeature
                };
                Error::new(
                    rule,
                    OP,
                    desc.label,
                    format!("the WGSL does not compile: {}", d.message),
                )
                .with_diagnostic(d)
            })?;
        // A module with overrides is translated by each pipeline, once its values are known.
        let raw = if module.reflection().overrides.is_empty() {
            Some(self.native_module(OP, desc.label, &module)?)
        } else {
            None
        };
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .shader_modules
            .insert(|index, generation| ShaderModuleObj {
                raw,
                handle: ShaderModule::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
                module,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "shader module"))?;
        self.notify_created("shader module", desc.label);
        Ok(obj.handle)
    }

    /// Translates a checked module (with no overrides left) and makes its native module.
    fn native_module(
        &self,
        op: &'static str,
        label: &str,
        module: &vigil_shader::Module,
    ) -> Result<Owned<A, crate::native::ShaderModuleKind>> {
        let words;
        let code = match A::SHADER_FORMAT {
            ShaderFormat::SpirV => {
                words = module
                    .to_spirv(&vigil_shader::SpirvOptions::default())
                    .map_err(|d| {
                        // A capability a device feature would allow: that feature is named.
                        let rule = if d.features_needed.is_empty() {
                            Rule::ShaderTranslate
                        } else {
                            Rule::ShaderFeature
                        };
                        Error::new(rule, op, label, d.message.clone()).with_diagnostic(d)
                    })?;
                vigil_hal::ShaderCode::SpirV(&words)
            }
            ShaderFormat::Msl => {
                return Err(fail!(
                    ShaderForm,
                    op,
                    label,
                    "MSL modules are made per pipeline by the Metal backend"
                ));
            }
            ShaderFormat::None => vigil_hal::ShaderCode::None,
        };
        let raw = self
            .hal
            .create_shader_module(&vigil_hal::ShaderModuleDescriptor { label, code })
            .map_err(|e| self.hal_error(e, op, label))?;
        Ok(Owned::new(&self.hal, raw))
    }

    /// A pipeline stage's code: the module's own native module when it needs no constants,
    /// else the module cut down to the entry point, specialized with `constants` and
    /// translated for this pipeline alone (the native module is released once the
    /// pipeline exists). The entry point is checked to exist first.
    pub(crate) fn stage_code<'m>(
        &self,
        op: &'static str,
        label: &str,
        module: &'m ShaderModuleObj<A>,
        (entry, stage): (&str, Stage),
        constants: &[(&str, f64)],
    ) -> Result<StageCode<'m, A>> {
        validate::pipeline::entry_point(
            op,
            label,
            &module.label,
            module.module.reflection(),
            entry,
            stage,
        )?;
        if let (Some(raw), true) = (&module.raw, constants.is_empty()) {
            return Ok(StageCode::Shared {
                raw,
                reflection: module.module.reflection(),
            });
        }
        let specialized = module
            .module
            .specialize_entry(stage, entry, constants)
            .map_err(|e| {
                let rule = match e.problem {
                    vigil_shader::OverrideProblem::Unknown => Rule::OverrideUnknown,
                    vigil_shader::OverrideProblem::Missing => Rule::OverrideMissing,
                    vigil_shader::OverrideProblem::Value => Rule::OverrideValue,
                };
                Error::new(
                    rule,
                    op,
                    label,
                    format!(
                        "the constants for module '{}' are refused: {}",
                        module.label, e.diagnostic.message
                    ),
                )
                .with_diagnostic(*e.diagnostic)
            })?;
        let raw = self.native_module(op, label, &specialized)?;
        Ok(StageCode::Specialized {
            raw,
            reflection: specialized.reflection().clone(),
        })
    }

    /// Destroys a shader module (pipelines made from it keep working).
    pub fn destroy_shader_module(&self, module: ShaderModule) -> Result<()> {
        drop(self.remove(module, "destroy_shader_module")?);
        Ok(())
    }

    /// The reflection of a shader module (what each entry point uses).
    /// A module with `override` constants reports them in `overrides`; its entry points'
    /// workgroup sizes are final only in a pipeline, where the constants are known.
    pub fn shader_reflection(&self, module: ShaderModule) -> Result<vigil_shader::Reflection> {
        Ok(self
            .lookup(module, "shader_reflection")?
            .module
            .reflection()
            .clone())
    }

    /// Creates a compute pipeline after checking its entry point against the layout
    /// (binding kind, read-only or read-write storage, visibility, minimum sizes) and the
    /// workgroup limits.
    pub fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor<'_>,
    ) -> Result<ComputePipeline> {
        const OP: &str = "create_compute_pipeline";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let module = self.lookup(desc.module, OP)?;
        let code = self.stage_code(
            OP,
            desc.label,
            &module,
            (desc.entry_point, Stage::Compute),
            desc.constants,
        )?;
        let ep = validate::pipeline::entry_point(
            OP,
            desc.label,
            &module.label,
            code.reflection(),
            desc.entry_point,
            Stage::Compute,
        )?;
        validate::pipeline::workgroup(OP, desc.label, ep, &self.limits)?;
        let layout = self.lookup(desc.layout, OP)?;
        validate::pipeline::immediates(OP, desc.label, ep, &layout.label, layout.immediate_size)?;
        let late = validate::pipeline::against_layout(
            OP,
            desc.label,
            ep,
            &layout.label,
            &group_facts(&layout),
        )?;
        let cache = self.pipeline_cache_of(desc.cache, OP)?;
        let raw = self
            .hal
            .create_compute_pipeline(&vigil_hal::ComputePipelineDescriptor {
                label: desc.label,
                layout: &layout.raw,
                module: code.raw(),
                entry_point: desc.entry_point,
                cache: cache.as_deref().map(|c| &*c.raw),
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        drop(code);
        let info = PipelineInfo {
            group_compat: layout.compat.clone().into_boxed_slice(),
            late_checks: late.into_boxed_slice(),
            layout,
            pointer: false,
            heaps: 0,
        };
        self.register_compute_pipeline(OP, desc.label, raw, info)
    }

    /// Puts a made compute pipeline in the registry (ordinary and pointer pipelines).
    pub(crate) fn register_compute_pipeline(
        &self,
        op: &'static str,
        label: &str,
        raw: Owned<A, crate::native::ComputePipelineKind>,
        info: PipelineInfo<A>,
    ) -> Result<ComputePipeline> {
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .compute_pipelines
            .insert(|index, generation| ComputePipelineObj {
                raw,
                handle: ComputePipeline::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                info,
            })
            .ok_or_else(|| super::buffer::registry_full(op, label, "compute pipeline"))?;
        self.notify_created("compute pipeline", label);
        Ok(obj.handle)
    }

    /// Puts a made render pipeline in the registry (ordinary and pointer pipelines).
    pub(crate) fn register_render_pipeline(
        &self,
        op: &'static str,
        label: &str,
        raw: Owned<A, crate::native::RenderPipelineKind>,
        info: PipelineInfo<A>,
        render: crate::render::RenderPipelineFacts,
    ) -> Result<crate::handle::RenderPipeline> {
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .render_pipelines
            .insert(|index, generation| super::RenderPipelineObj {
                raw,
                handle: crate::handle::RenderPipeline::from_parts(index, generation, id),
                label: crate::label::Label::new(label),
                info,
                render,
            })
            .ok_or_else(|| super::buffer::registry_full(op, label, "render pipeline"))?;
        self.notify_created("render pipeline", label);
        Ok(obj.handle)
    }

    /// Destroys a compute pipeline.
    pub fn destroy_compute_pipeline(&self, pipeline: ComputePipeline) -> Result<()> {
        drop(self.remove(pipeline, "destroy_compute_pipeline")?);
        Ok(())
    }
}
