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
}

/// How to create a shader module.
///
/// Differs from WebGPU's: WGSL source only (no SPIR-V or other languages), and no
/// `override` constants yet.
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
        let caps = vigil_shader::Capabilities16And64 {
            shader_f16: self.features.contains(vigil_hal::Features::SHADER_F16),
            shader_int64: self.features.contains(vigil_hal::Features::SHADER_INT64),
        };
        let module = vigil_shader::Module::from_wgsl_with(desc.wgsl, &file, caps).map_err(|d| {
            Error::new(
                Rule::ShaderCompile,
                OP,
                desc.label,
                format!("the WGSL does not compile: {}", d.message),
            )
            .with_diagnostic(d)
        })?;
        let words;
        let code = match A::SHADER_FORMAT {
            ShaderFormat::SpirV => {
                words = module
                    .to_spirv(&vigil_shader::SpirvOptions::default())
                    .map_err(|d| {
                        Error::new(Rule::ShaderTranslate, OP, desc.label, d.message.clone())
                            .with_diagnostic(d)
                    })?;
                vigil_hal::ShaderCode::SpirV(&words)
            }
            ShaderFormat::Msl => {
                return Err(fail!(
                    ShaderForm,
                    OP,
                    desc.label,
                    "MSL modules are made per pipeline by the Metal backend"
                ));
            }
            ShaderFormat::None => vigil_hal::ShaderCode::None,
        };
        let raw = self
            .hal
            .create_shader_module(&vigil_hal::ShaderModuleDescriptor {
                label: desc.label,
                code,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .shader_modules
            .insert(|index, generation| ShaderModuleObj {
                raw,
                handle: ShaderModule::from_parts(index, generation, id),
                label: desc.label.to_owned(),
                reflection: module.reflection().clone(),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "shader module"))?;
        self.notify_created("shader module", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a shader module (pipelines made from it keep working).
    pub fn destroy_shader_module(&self, module: ShaderModule) -> Result<()> {
        drop(self.remove(module, "destroy_shader_module")?);
        Ok(())
    }

    /// The reflection of a shader module (what each entry point uses).
    pub fn shader_reflection(&self, module: ShaderModule) -> Result<vigil_shader::Reflection> {
        Ok(self.lookup(module, "shader_reflection")?.reflection.clone())
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
        let ep = validate::pipeline::entry_point(
            OP,
            desc.label,
            &module.label,
            &module.reflection,
            desc.entry_point,
            Stage::Compute,
        )?;
        validate::pipeline::workgroup(OP, desc.label, ep, &self.limits)?;
        let layout = self.lookup(desc.layout, OP)?;
        let late = validate::pipeline::against_layout(
            OP,
            desc.label,
            ep,
            &layout.label,
            &group_facts(&layout),
        )?;
        let raw = self
            .hal
            .create_compute_pipeline(&vigil_hal::ComputePipelineDescriptor {
                label: desc.label,
                layout: &layout.raw,
                module: &module.raw,
                entry_point: desc.entry_point,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let info = PipelineInfo {
            group_compat: layout.compat.clone().into_boxed_slice(),
            late_checks: late.into_boxed_slice(),
            layout,
        };
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .compute_pipelines
            .insert(|index, generation| ComputePipelineObj {
                raw,
                handle: ComputePipeline::from_parts(index, generation, id),
                label: desc.label.to_owned(),
                info,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "compute pipeline"))?;
        self.notify_created("compute pipeline", desc.label);
        Ok(obj.handle)
    }

    /// Destroys a compute pipeline.
    pub fn destroy_compute_pipeline(&self, pipeline: ComputePipeline) -> Result<()> {
        drop(self.remove(pipeline, "destroy_compute_pipeline")?);
        Ok(())
    }
}
