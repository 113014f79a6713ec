//! Shader modules and pipelines, and the check that a pipeline's shaders use only what its
//! layout declares, in the way the layout declares it.

use super::{
    BindGroupLayoutObj, ComputePipelineObj, Device, LateSizeCheck, PipelineInfo, PipelineLayoutObj,
    Retained, ShaderModuleObj,
};
use crate::error::{Error, ErrorKind, Result, fail};
use crate::handle::{ComputePipeline, Handle, PipelineLayout, ShaderModule};
use crate::registry::Registry;
use vigil_hal::{
    Api, BindingType, BufferBindingType, Limits, SamplerBindingType, ShaderFormat,
    TextureSampleType,
};
use vigil_shader::{BindingKind, EntryPointReflection, SampleKind, Stage};

/// How to create a pipeline layout.
#[derive(Clone, Debug, Default)]
pub struct PipelineLayoutDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// Bind group layouts, in group order.
    pub bind_group_layouts: &'a [crate::BindGroupLayout],
}

/// How to create a shader module.
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

/// Whether a shader's view of a binding fits the layout's entry; `Err` says how it does not.
pub(crate) fn binding_fits(
    shader: &BindingKind,
    layout: &BindingType,
) -> std::result::Result<(), String> {
    let ok = match (shader, layout) {
        (
            BindingKind::UniformBuffer,
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                ..
            },
        ) => true,
        (
            BindingKind::StorageBuffer { read_only },
            BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only: l },
                ..
            },
        ) => read_only == l,
        (
            BindingKind::SampledTexture {
                sample,
                dimension,
                multisampled,
            },
            BindingType::Texture {
                sample_type,
                view_dimension,
                multisampled: lm,
            },
        ) => {
            let sample_ok = matches!(
                (sample, sample_type),
                (SampleKind::Float, TextureSampleType::Float { .. })
                    | (SampleKind::Depth, TextureSampleType::Depth)
                    | (SampleKind::Uint, TextureSampleType::Uint)
                    | (SampleKind::Sint, TextureSampleType::Sint)
            );
            sample_ok
                && dimension.to_view_dimension() == Some(*view_dimension)
                && multisampled == lm
        }
        (
            BindingKind::StorageTexture {
                format,
                access,
                dimension,
                ..
            },
            BindingType::StorageTexture {
                access: la,
                format: lf,
                view_dimension,
            },
        ) => {
            *format == Some(*lf)
                && access == la
                && dimension.to_view_dimension() == Some(*view_dimension)
        }
        (BindingKind::Sampler { comparison }, BindingType::Sampler(kind)) => {
            *comparison == (*kind == SamplerBindingType::Comparison)
        }
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let layout_desc = match layout {
        BindingType::Texture {
            sample_type,
            view_dimension,
            multisampled,
        } => {
            format!(
                "sampled texture ({sample_type:?}, {view_dimension:?}, multisampled: {multisampled})"
            )
        }
        BindingType::StorageTexture {
            access,
            format,
            view_dimension,
        } => {
            format!(
                "storage texture ({}, {access:?}, {view_dimension:?})",
                format.wgsl_name()
            )
        }
        other => other.describe().to_owned(),
    };
    Err(format!(
        "the shader declares a {} ({shader:?}) but the layout has a {layout_desc}",
        shader.describe()
    ))
}

/// Checks every binding an entry point uses against a pipeline layout; returns the size
/// checks left for draw or dispatch time.
pub(crate) fn check_against_layout<A: Api>(
    op: &'static str,
    label: &str,
    ep: &EntryPointReflection,
    layout: &PipelineLayoutObj<A>,
    bgls: &Registry<BindGroupLayoutObj<A>>,
) -> Result<Vec<LateSizeCheck>> {
    let stage = ep.stage.to_hal();
    let mut late = Vec::new();
    for b in &ep.bindings {
        let place = format!(
            "{} entry point '{}' uses @group({}) @binding({}) '{}'",
            ep.stage.name(),
            ep.name,
            b.group,
            b.binding,
            b.name
        );
        if let BindingKind::Unsupported(what) = &b.kind {
            return Err(fail!(
                Unsupported,
                op,
                label,
                "{place}, a {what}, which vigil does not bind"
            ));
        }
        let Some(group) = layout.groups.get(b.group as usize) else {
            return Err(fail!(
                InvalidDescriptor,
                op,
                label,
                "{place}, but the pipeline layout '{}' has only {} bind group(s)",
                layout.label,
                layout.groups.len()
            ));
        };
        // The pipeline layout retains its group layouts, so the slot holds the object even
        // when the user destroyed its handle.
        let Some(bgl) = bgls.slot(group.index()).and_then(|s| s.value.as_ref()) else {
            return Err(fail!(
                InvalidHandle,
                op,
                label,
                "group {} layout of '{}' is gone",
                b.group,
                layout.label
            ));
        };
        let Some((entry_index, entry)) = bgl
            .entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.binding == b.binding)
        else {
            return Err(fail!(
                InvalidDescriptor,
                op,
                label,
                "{place}, but bind group layout '{}' (group {}) has no binding {}",
                bgl.label,
                b.group,
                b.binding
            ));
        };
        if !entry.visibility.contains(stage) {
            return Err(fail!(
                InvalidDescriptor,
                op,
                label,
                "{place}, but binding {} of layout '{}' is visible to {:?}, not to the {} stage",
                b.binding,
                bgl.label,
                entry.visibility,
                ep.stage.name()
            ));
        }
        if let Err(why) = binding_fits(&b.kind, &entry.ty) {
            return Err(fail!(InvalidDescriptor, op, label, "{place}: {why}"));
        }
        if let BindingType::Buffer {
            min_binding_size, ..
        } = entry.ty
        {
            match min_binding_size {
                Some(min) if min.get() < b.min_binding_size => {
                    return Err(fail!(
                        InvalidDescriptor,
                        op,
                        label,
                        "{place}, which needs at least {} bytes, but the layout's min_binding_size is {}",
                        b.min_binding_size,
                        min.get()
                    ));
                }
                Some(_) => {}
                None => late.push(LateSizeCheck {
                    group: b.group,
                    entry: entry_index as u32,
                    binding: b.binding,
                    min: b.min_binding_size,
                }),
            }
        }
    }
    Ok(late)
}

/// Checks a compute entry point's workgroup against the limits.
pub(crate) fn check_workgroup(
    op: &'static str,
    label: &str,
    ep: &EntryPointReflection,
    limits: &Limits,
) -> Result<()> {
    let [x, y, z] = ep.workgroup_size;
    let caps = [
        limits.max_compute_workgroup_size_x,
        limits.max_compute_workgroup_size_y,
        limits.max_compute_workgroup_size_z,
    ];
    for (axis, (size, cap)) in ["x", "y", "z"].iter().zip([x, y, z].into_iter().zip(caps)) {
        if size > cap {
            return Err(fail!(
                LimitExceeded,
                op,
                label,
                "workgroup size {axis} = {size} exceeds the limit of {cap}"
            ));
        }
    }
    // Three u32 factors fit in 96 bits; saturating keeps the comparison right.
    let invocations = u64::from(x)
        .saturating_mul(u64::from(y))
        .saturating_mul(u64::from(z));
    if invocations > u64::from(limits.max_compute_invocations_per_workgroup) {
        return Err(fail!(
            LimitExceeded,
            op,
            label,
            "{invocations} invocations per workgroup exceed the limit of {}",
            limits.max_compute_invocations_per_workgroup
        ));
    }
    if ep.workgroup_storage_size > u64::from(limits.max_compute_workgroup_storage_size) {
        return Err(fail!(
            LimitExceeded,
            op,
            label,
            "{} bytes of workgroup memory exceed the limit of {}",
            ep.workgroup_storage_size,
            limits.max_compute_workgroup_storage_size
        ));
    }
    Ok(())
}

impl<A: Api> Device<A> {
    /// Creates a shader module from WGSL. Parse and validation errors carry a compiler
    /// diagnostic (file, line, column) in [`Error::shader_diagnostic`].
    pub fn create_shader_module(&self, desc: &ShaderModuleDescriptor<'_>) -> Result<ShaderModule> {
        const OP: &str = "create_shader_module";
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
                ErrorKind::InvalidDescriptor,
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
                        Error::new(
                            ErrorKind::InvalidDescriptor,
                            OP,
                            desc.label,
                            d.message.clone(),
                        )
                        .with_diagnostic(d)
                    })?;
                vigil_hal::ShaderCode::SpirV(&words)
            }
            ShaderFormat::Msl => {
                return Err(fail!(
                    Unsupported,
                    OP,
                    desc.label,
                    "MSL modules are made per pipeline by the Metal backend"
                ));
            }
            ShaderFormat::None => vigil_hal::ShaderCode::None,
        };
        let mut st = self.state(OP)?;
        let raw = self
            .hal
            .create_shader_module(&vigil_hal::ShaderModuleDescriptor {
                label: desc.label,
                code,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let (i, g) = st.shader_modules.insert(ShaderModuleObj {
            raw,
            label: desc.label.to_owned(),
            reflection: module.reflection().clone(),
        });
        drop(st);
        self.notify_created("shader module", desc.label);
        Ok(ShaderModule::from_parts(i, g, self.id))
    }

    /// Destroys a shader module (pipelines made from it keep working).
    pub fn destroy_shader_module(&self, module: ShaderModule) -> Result<()> {
        const OP: &str = "destroy_shader_module";
        let mut st = self.state(OP)?;
        st.shader_modules.get(module, self.id, OP)?;
        self.retire(&mut st, Retained::ShaderModule(module.index()));
        Ok(())
    }

    /// The reflection of a shader module (what each entry point uses).
    pub fn shader_reflection(&self, module: ShaderModule) -> Result<vigil_shader::Reflection> {
        const OP: &str = "shader_reflection";
        let st = self.state(OP)?;
        Ok(st
            .shader_modules
            .value(module, self.id, OP)?
            .reflection
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
        self.check_alive(OP)?;
        let mut st = self.state(OP)?;
        let module = st.shader_modules.value(desc.module, self.id, OP)?;
        let Some(ep) = module.reflection.entry_point(desc.entry_point) else {
            let names: Vec<_> = module
                .reflection
                .entry_points
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            return Err(fail!(
                InvalidDescriptor,
                OP,
                desc.label,
                "module '{}' has no entry point '{}' (it has: {})",
                module.label,
                desc.entry_point,
                names.join(", ")
            ));
        };
        if ep.stage != Stage::Compute {
            return Err(fail!(
                InvalidDescriptor,
                OP,
                desc.label,
                "entry point '{}' is a {} entry point, not compute",
                ep.name,
                ep.stage.name()
            ));
        }
        check_workgroup(OP, desc.label, ep, &self.limits)?;
        let layout = st.pipeline_layouts.value(desc.layout, self.id, OP)?;
        let late = check_against_layout(OP, desc.label, ep, layout, &st.bind_group_layouts)?;
        let raw = self
            .hal
            .create_compute_pipeline(&vigil_hal::ComputePipelineDescriptor {
                label: desc.label,
                layout: &layout.raw,
                module: &module.raw,
                entry_point: desc.entry_point,
            })
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let info = PipelineInfo {
            layout: (desc.layout.index(), desc.layout.generation()),
            group_compat: layout.compat.clone().into_boxed_slice(),
            late_checks: late.into_boxed_slice(),
        };
        st.retain(Retained::PipelineLayout(desc.layout.index()));
        let (i, g) = st.compute_pipelines.insert(ComputePipelineObj {
            raw,
            label: desc.label.to_owned(),
            info,
        });
        drop(st);
        self.notify_created("compute pipeline", desc.label);
        Ok(ComputePipeline::from_parts(i, g, self.id))
    }

    /// Destroys a compute pipeline.
    pub fn destroy_compute_pipeline(&self, pipeline: ComputePipeline) -> Result<()> {
        const OP: &str = "destroy_compute_pipeline";
        let mut st = self.state(OP)?;
        st.compute_pipelines.get(pipeline, self.id, OP)?;
        self.retire(&mut st, Retained::ComputePipeline(pipeline.index()));
        Ok(())
    }
}
