//! Shader modules, compute and render pipelines: entry points against layouts, workgroups
//! against limits, vertex layouts against shader inputs, targets against outputs.

use super::ensure;
use crate::device::LateSizeCheck;
use crate::error::{Result, fail};
use crate::render::{RenderPipelineDescriptor, VertexBufferFacts};
use vigil_hal::{
    BindGroupLayoutEntry, BindingType, BufferBindingType, FormatSupport, Limits, PrimitiveTopology,
    SamplerBindingType, TextureFormat, TextureSampleType, VertexScalar,
};
use vigil_shader::{BindingKind, EntryPointReflection, IoScalar, Reflection, SampleKind, Stage};

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
        (BindingKind::AccelerationStructure, BindingType::AccelerationStructure) => true,
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

/// One group layout as a pipeline sees it: its label and entries (sorted by binding).
pub(crate) type GroupFacts<'a> = (&'a str, &'a [BindGroupLayoutEntry]);

/// Every binding an entry point uses against a pipeline layout's groups; returns the size
/// checks left for draw or dispatch time (bindings whose layout gives no minimum size).
/// The immediate data an entry point declares against its layout's immediate size.
pub(crate) fn immediates(
    op: &'static str,
    label: &str,
    ep: &EntryPointReflection,
    layout_label: &str,
    layout_size: u32,
) -> Result<()> {
    ensure!(
        ep.immediate_size <= layout_size,
        ShaderImmediates,
        op,
        label,
        "{} entry point '{}' uses {} bytes of immediate data, but layout '{layout_label}' has immediate_size {layout_size}",
        ep.stage.name(),
        ep.name,
        ep.immediate_size
    );
    Ok(())
}

pub(crate) fn against_layout(
    op: &'static str,
    label: &str,
    ep: &EntryPointReflection,
    layout_label: &str,
    groups: &[GroupFacts<'_>],
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
                ShaderBindingUnsupported,
                op,
                label,
                "{place}, a {what}, which vigil does not bind"
            ));
        }
        let group = groups.get(b.group as usize);
        ensure!(
            group.is_some(),
            ShaderBindingLayout,
            op,
            label,
            "{place}, but the pipeline layout '{layout_label}' has only {} bind group(s)",
            groups.len()
        );
        let Some(&(bgl, entries)) = group else {
            continue;
        };
        let found = entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.binding == b.binding);
        ensure!(
            found.is_some(),
            ShaderBindingLayout,
            op,
            label,
            "{place}, but bind group layout '{bgl}' (group {}) has no binding {}",
            b.group,
            b.binding
        );
        let Some((entry_index, entry)) = found else {
            continue;
        };
        ensure!(
            entry.visibility.contains(stage),
            ShaderBindingLayout,
            op,
            label,
            "{place}, but binding {} of layout '{bgl}' is visible to {:?}, not to the {} stage",
            b.binding,
            entry.visibility,
            ep.stage.name()
        );
        if let Err(why) = binding_fits(&b.kind, &entry.ty) {
            return Err(fail!(ShaderBindingLayout, op, label, "{place}: {why}"));
        }
        match (b.array, entry.array) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(fail!(
                    ShaderBindingLayout,
                    op,
                    label,
                    "{place}, a binding array, but binding {} of layout '{bgl}' holds one resource",
                    b.binding
                ));
            }
            (None, Some(a)) => {
                return Err(fail!(
                    ShaderBindingLayout,
                    op,
                    label,
                    "{place}, a single resource, but binding {} of layout '{bgl}' is an array of {}",
                    b.binding,
                    a.count
                ));
            }
            (Some(shader), Some(a)) => {
                let n = match shader {
                    vigil_shader::ArrayCount::Fixed(n) => n,
                    // Refused when the module is translated; nothing to compare here.
                    vigil_shader::ArrayCount::Runtime => 0,
                };
                ensure!(
                    n <= a.count.get(),
                    ShaderBindingLayout,
                    op,
                    label,
                    "{place}, an array of {n}, but binding {} of layout '{bgl}' holds only {}",
                    b.binding,
                    a.count
                );
                if a.flags
                    .contains(vigil_hal::BindingArrayFlags::VARIABLE_COUNT)
                {
                    late.push(LateSizeCheck {
                        group: b.group,
                        entry: u32::try_from(entries.len().saturating_add(entry_index))
                            .unwrap_or(u32::MAX),
                        binding: b.binding,
                        min: u64::from(n),
                        elements: true,
                    });
                }
            }
        }
        if let BindingType::Buffer {
            min_binding_size, ..
        } = entry.ty
        {
            match min_binding_size {
                Some(min) => ensure!(
                    min.get() >= b.min_binding_size,
                    ShaderBindingLayout,
                    op,
                    label,
                    "{place}, which needs at least {} bytes, but the layout's min_binding_size is {}",
                    b.min_binding_size,
                    min.get()
                ),
                None => late.push(LateSizeCheck {
                    group: b.group,
                    entry: entry_index as u32,
                    binding: b.binding,
                    min: b.min_binding_size,
                    elements: false,
                }),
            }
        }
    }
    Ok(late)
}

/// The entry point `name` of `stage` in a module.
pub(crate) fn entry_point<'r>(
    op: &'static str,
    label: &str,
    module_label: &str,
    reflection: &'r Reflection,
    name: &str,
    stage: Stage,
) -> Result<&'r EntryPointReflection> {
    let Some(ep) = reflection.entry_point(name) else {
        let names: Vec<_> = reflection
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        return Err(fail!(
            EntryPointMissing,
            op,
            label,
            "module '{module_label}' has no entry point '{name}' (it has: {})",
            names.join(", ")
        ));
    };
    ensure!(
        ep.stage == stage,
        EntryPointMissing,
        op,
        label,
        "entry point '{}' is a {} entry point, not {}",
        ep.name,
        ep.stage.name(),
        stage.name()
    );
    Ok(ep)
}

/// A compute entry point's workgroup against the limits.
pub(crate) fn workgroup(
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
        ensure!(
            size <= cap,
            WorkgroupLimit,
            op,
            label,
            "workgroup size {axis} = {size} exceeds the limit of {cap}"
        );
    }
    // Three u32 factors fit in 96 bits; saturating keeps the comparison right.
    let invocations = u64::from(x)
        .saturating_mul(u64::from(y))
        .saturating_mul(u64::from(z));
    let max = limits.max_compute_invocations_per_workgroup;
    ensure!(
        invocations <= u64::from(max),
        WorkgroupLimit,
        op,
        label,
        "{invocations} invocations per workgroup exceed the limit of {max}"
    );
    let mem = limits.max_compute_workgroup_storage_size;
    ensure!(
        ep.workgroup_storage_size <= u64::from(mem),
        WorkgroupLimit,
        op,
        label,
        "{} bytes of workgroup memory exceed the limit of {mem}",
        ep.workgroup_storage_size
    );
    Ok(())
}

const RENDER: &str = "create_render_pipeline";

/// What the vertex layouts give: each location's scalar type, and per slot what draws
/// check ranges against.
pub(crate) struct VertexLayouts {
    pub locations: Vec<(u32, VertexScalar)>,
    pub buffers: Vec<VertexBufferFacts>,
}

/// A render pipeline's fixed-function parts: sample count, vertex layouts, targets and
/// depth-stencil state, against the limits and what the device does with each format.
pub(crate) fn render_fixed(
    desc: &RenderPipelineDescriptor<'_>,
    features: vigil_hal::Features,
    limits: &Limits,
    support: &dyn Fn(TextureFormat) -> FormatSupport,
) -> Result<VertexLayouts> {
    let l = desc.label;
    let needs = match desc.primitive.polygon_mode {
        vigil_hal::PolygonMode::Fill => vigil_hal::Features::empty(),
        vigil_hal::PolygonMode::Line => vigil_hal::Features::POLYGON_MODE_LINE,
        vigil_hal::PolygonMode::Point => vigil_hal::Features::POLYGON_MODE_POINT,
    };
    ensure!(
        features.contains(needs),
        PolygonModeFeature,
        RENDER,
        l,
        "polygon mode {:?} needs the {} feature, which the device was not opened with",
        desc.primitive.polygon_mode,
        needs.names().join("")
    );
    ensure!(
        !desc.primitive.unclipped_depth
            || features.contains(vigil_hal::Features::DEPTH_CLIP_CONTROL),
        UnclippedDepthFeature,
        RENDER,
        l,
        "unclipped_depth needs the DEPTH_CLIP_CONTROL feature, which the device was not opened with"
    );
    ensure!(
        matches!(desc.multisample.count, 1 | 4),
        RenderSampleCount,
        RENDER,
        l,
        "sample count {}; vigil supports 1 and 4",
        desc.multisample.count
    );
    ensure!(
        desc.primitive.strip_index_format.is_none()
            || matches!(
                desc.primitive.topology,
                PrimitiveTopology::LineStrip | PrimitiveTopology::TriangleStrip
            ),
        StripIndexFormatTopology,
        RENDER,
        l,
        "strip_index_format is {:?} but the topology {:?} is not a strip; leave it None",
        desc.primitive.strip_index_format,
        desc.primitive.topology
    );
    let vbs = desc.vertex.buffers;
    ensure!(
        vbs.len() <= limits.max_vertex_buffers as usize,
        VertexBufferLimit,
        RENDER,
        l,
        "{} vertex buffers exceed max_vertex_buffers ({})",
        vbs.len(),
        limits.max_vertex_buffers
    );
    let max_stride = u64::from(limits.max_vertex_buffer_array_stride);
    let mut out = VertexLayouts {
        locations: Vec::new(),
        buffers: Vec::with_capacity(vbs.len()),
    };
    for (slot, vb) in vbs.iter().enumerate() {
        let stride = vb.array_stride;
        ensure!(
            stride <= max_stride,
            VertexBufferLimit,
            RENDER,
            l,
            "vertex buffer {slot}: stride {stride} exceeds max_vertex_buffer_array_stride ({max_stride})"
        );
        ensure!(
            stride % 4 == 0,
            VertexLayout,
            RENDER,
            l,
            "vertex buffer {slot}: stride {stride} is not a multiple of 4"
        );
        let mut element = 0;
        for a in vb.attributes {
            let loc = a.shader_location;
            let end = a.offset.saturating_add(a.format.size());
            let room = if stride == 0 { max_stride } else { stride };
            ensure!(
                end <= room,
                VertexLayout,
                RENDER,
                l,
                "vertex buffer {slot}: attribute at @location({loc}) spans bytes {}..{end}, past the stride of {room}",
                a.offset
            );
            ensure!(
                a.offset.checked_rem(a.format.size().min(4)) == Some(0),
                VertexLayout,
                RENDER,
                l,
                "vertex buffer {slot}: attribute offset {} is misaligned for {:?}",
                a.offset,
                a.format
            );
            ensure!(
                loc < limits.max_vertex_attributes,
                VertexBufferLimit,
                RENDER,
                l,
                "@location({loc}) is not below max_vertex_attributes ({})",
                limits.max_vertex_attributes
            );
            ensure!(
                !out.locations.iter().any(|(x, _)| *x == loc),
                VertexLayout,
                RENDER,
                l,
                "@location({loc}) is given by more than one attribute"
            );
            out.locations.push((loc, a.format.shader_type().1));
            element = element.max(end);
        }
        out.buffers.push(VertexBufferFacts {
            stride,
            step: vb.step_mode,
            element_size: element,
        });
    }
    ensure!(
        out.locations.len() <= limits.max_vertex_attributes as usize,
        VertexBufferLimit,
        RENDER,
        l,
        "{} vertex attributes exceed max_vertex_attributes ({})",
        out.locations.len(),
        limits.max_vertex_attributes
    );
    let targets = desc.fragment.map_or(&[][..], |f| f.targets);
    ensure!(
        targets.len() <= limits.max_color_attachments as usize,
        ColorTargetLimit,
        RENDER,
        l,
        "{} color targets exceed max_color_attachments ({})",
        targets.len(),
        limits.max_color_attachments
    );
    for (i, t) in targets.iter().enumerate() {
        let Some(t) = t else { continue };
        let s = support(t.format);
        let name = t.format.wgsl_name();
        ensure!(
            !t.format.is_depth_stencil(),
            ColorTargetFormat,
            RENDER,
            l,
            "color target {i}: {name} is a depth format"
        );
        ensure!(
            s.color_attachment,
            ColorTargetSupport,
            RENDER,
            l,
            "color target {i}: {name} cannot be rendered to on this device"
        );
        ensure!(
            t.blend.is_none() || s.blendable,
            ColorTargetFormat,
            RENDER,
            l,
            "color target {i}: {name} cannot be blended"
        );
        ensure!(
            desc.multisample.count != 4 || s.multisample4,
            ColorTargetSupport,
            RENDER,
            l,
            "color target {i}: {name} cannot be multisampled on this device"
        );
    }
    if let Some(ds) = &desc.depth_stencil {
        let name = ds.format.wgsl_name();
        ensure!(
            ds.format.is_depth_stencil(),
            DepthStencilFormat,
            RENDER,
            l,
            "depth-stencil format {name} is not a depth format"
        );
        ensure!(
            support(ds.format).depth_stencil_attachment,
            DepthStencilSupport,
            RENDER,
            l,
            "{name} cannot be a depth-stencil attachment on this device"
        );
        ensure!(
            !ds.stencil_enabled() || ds.format.info().has_stencil,
            DepthStencilFormat,
            RENDER,
            l,
            "stencil state is set but {name} has no stencil aspect"
        );
        ensure!(
            ds.format.info().has_depth
                || (!ds.depth_write_enabled
                    && ds.depth_compare == vigil_hal::CompareFunction::Always),
            DepthStencilFormat,
            RENDER,
            l,
            "{name} has no depth aspect: depth_write_enabled must be false and depth_compare Always (got {} and {:?})",
            ds.depth_write_enabled,
            ds.depth_compare
        );
        let b = ds.bias;
        ensure!(
            b.slope_scale.is_finite() && b.clamp.is_finite(),
            DepthBiasFinite,
            RENDER,
            l,
            "depth bias slope scale {} and clamp {} must both be finite",
            b.slope_scale,
            b.clamp
        );
        ensure!(
            !b.is_enabled()
                || !matches!(
                    desc.primitive.topology,
                    PrimitiveTopology::PointList
                        | PrimitiveTopology::LineList
                        | PrimitiveTopology::LineStrip
                ),
            DepthBiasTopology,
            RENDER,
            l,
            "a depth bias is set ({b:?}) but the topology {:?} draws no triangles; leave it at DepthBiasState::default()",
            desc.primitive.topology
        );
    }
    Ok(out)
}

fn io_matches(scalar: IoScalar, vertex: VertexScalar) -> bool {
    matches!(
        (scalar, vertex),
        (IoScalar::Float, VertexScalar::Float)
            | (IoScalar::Uint, VertexScalar::Uint)
            | (IoScalar::Sint, VertexScalar::Sint)
    )
}

/// The vertex shader's inputs against the attributes.
pub(crate) fn vertex_inputs(
    label: &str,
    vs: &EntryPointReflection,
    locations: &[(u32, VertexScalar)],
) -> Result<()> {
    for input in &vs.vertex_inputs {
        let loc = input.location;
        let given = locations.iter().find(|(x, _)| *x == loc);
        ensure!(
            given.is_some(),
            VertexInput,
            RENDER,
            label,
            "the vertex shader reads @location({loc}) but no vertex attribute provides it"
        );
        if let Some((_, kind)) = given {
            ensure!(
                io_matches(input.scalar, *kind),
                VertexInput,
                RENDER,
                label,
                "@location({loc}) is {:?} in the shader but the attribute provides {kind:?}",
                input.scalar
            );
        }
    }
    Ok(())
}

/// Dual-source blending: a target whose blend reads the second source needs the feature,
/// must be the only target, and the fragment shader must write that source.
pub(crate) fn dual_source(
    label: &str,
    features: vigil_hal::Features,
    fs: &EntryPointReflection,
    targets: &[Option<vigil_hal::ColorTargetState>],
) -> Result<()> {
    let uses_src1 = targets.iter().flatten().filter_map(|t| t.blend).any(|b| {
        [b.color, b.alpha]
            .iter()
            .any(|c| c.src_factor.uses_src1() || c.dst_factor.uses_src1())
    });
    if !uses_src1 {
        return Ok(());
    }
    ensure!(
        features.contains(vigil_hal::Features::DUAL_SOURCE_BLENDING),
        DualSourceFeature,
        RENDER,
        label,
        "a blend factor reads the second source (Src1*), which needs the DUAL_SOURCE_BLENDING feature"
    );
    ensure!(
        targets.len() == 1,
        DualSource,
        RENDER,
        label,
        "dual-source blending writes one color target; this pipeline has {}",
        targets.len()
    );
    let writes_src1 = fs
        .fragment_outputs
        .iter()
        .any(|o| o.location == 0 && o.blend_src == Some(1));
    ensure!(
        writes_src1,
        DualSource,
        RENDER,
        label,
        "a blend factor reads the second source, but the fragment shader has no @location(0) @blend_src(1) output"
    );
    Ok(())
}

/// Alpha to coverage (WebGPU's `alphaToCoverageEnabled`): a multisampled pipeline whose
/// fragment shader writes a four-component output at location 0, into a color target 0
/// that has alpha. `fs` is the fragment stage's reflection, `None` without one.
pub(crate) fn alpha_to_coverage(
    label: &str,
    ms: &vigil_hal::MultisampleState,
    fs: Option<&EntryPointReflection>,
    targets: &[Option<vigil_hal::ColorTargetState>],
) -> Result<()> {
    if !ms.alpha_to_coverage_enabled {
        return Ok(());
    }
    ensure!(
        ms.count > 1,
        AlphaToCoverage,
        RENDER,
        label,
        "alpha to coverage needs a multisampled pipeline; this one takes {} sample",
        ms.count
    );
    let target = targets.first().copied().flatten();
    ensure!(
        target.is_some_and(|t| t.format.info().components == 4),
        AlphaToCoverage,
        RENDER,
        label,
        "alpha to coverage reads the alpha written to color target 0, and {}",
        match target {
            Some(t) => format!("its format {} has no alpha", t.format.wgsl_name()),
            None => "the pipeline has no color target 0".to_owned(),
        }
    );
    let out = fs.and_then(|fs| fs.fragment_outputs.iter().find(|o| o.location == 0));
    ensure!(
        out.is_some_and(|o| o.components == 4),
        AlphaToCoverage,
        RENDER,
        label,
        "alpha to coverage reads the alpha of the fragment shader's @location(0) output, and {}",
        match (fs, out) {
            (None, _) => "the pipeline has no fragment stage".to_owned(),
            (Some(_), None) => "it has none".to_owned(),
            (Some(_), Some(o)) => format!("that output has {} components", o.components),
        }
    );
    Ok(())
}

/// The fragment shader's outputs against the color targets.
pub(crate) fn fragment_outputs(
    label: &str,
    fs: &EntryPointReflection,
    targets: &[Option<vigil_hal::ColorTargetState>],
) -> Result<()> {
    for (i, t) in targets.iter().enumerate() {
        let Some(t) = t else { continue };
        let out = fs.fragment_outputs.iter().find(|o| o.location == i as u32);
        ensure!(
            out.is_some() || t.write_mask.is_empty(),
            FragmentOutput,
            RENDER,
            label,
            "color target {i} is written but the fragment shader has no @location({i}) output"
        );
        if let Some(o) = out {
            let want = match t.format.info().sample_type {
                TextureSampleType::Uint => IoScalar::Uint,
                TextureSampleType::Sint => IoScalar::Sint,
                _ => IoScalar::Float,
            };
            ensure!(
                o.scalar == want,
                FragmentOutput,
                RENDER,
                label,
                "fragment output @location({i}) is {:?} but target format {} takes {want:?}",
                o.scalar,
                t.format.wgsl_name()
            );
        }
    }
    Ok(())
}
