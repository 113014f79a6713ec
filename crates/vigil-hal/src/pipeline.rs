//! Plain pipeline types: shader code handed to backends, and compute pipeline descriptors.

use crate::Api;

/// Shader code in the form a backend consumes, produced by `vigil-shader` from WGSL.
#[derive(Clone, Copy, Debug)]
pub enum ShaderCode<'a> {
    /// SPIR-V words (Vulkan).
    SpirV(&'a [u32]),
    /// Metal Shading Language source (a future Metal backend).
    Msl(&'a str),
    /// No native code: the deterministic test backend needs none.
    None,
}

/// The shader representation a backend wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderFormat {
    /// SPIR-V.
    SpirV,
    /// MSL.
    Msl,
    /// Nothing: a backend that runs no shaders and needs none translated.
    None,
}

/// What the backend needs to create a shader module.
#[derive(Clone, Debug)]
pub struct ShaderModuleDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// The code.
    pub code: ShaderCode<'a>,
}

/// What the backend needs to create a pipeline layout.
pub struct PipelineLayoutDescriptor<'a, A: Api> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Bind group layouts, in group order.
    pub bind_group_layouts: &'a [&'a A::BindGroupLayout],
    /// Bytes of immediate data (push constants); 0 for none.
    pub immediate_size: u32,
    /// The stages that see the immediate data: the pipelines the layout serves, as few as
    /// they need, since pushing to stages no pipeline has still costs a driver time per
    /// push. The backend leaves `MESH` out on a device without mesh shaders.
    pub immediate_stages: crate::ShaderStages,
}

/// What the backend needs to create a compute pipeline.
pub struct ComputePipelineDescriptor<'a, A: Api> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Layout the pipeline's bindings follow.
    pub layout: &'a A::PipelineLayout,
    /// Module holding the entry point.
    pub module: &'a A::ShaderModule,
    /// Entry point name.
    pub entry_point: &'a str,
    /// A pipeline cache to look the pipeline up in and add it to.
    pub cache: Option<&'a A::PipelineCache>,
}
