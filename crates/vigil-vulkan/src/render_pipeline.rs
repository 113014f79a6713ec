//! Graphics pipeline creation for dynamic rendering.

use crate::device::{DeviceShared, RenderPipeline};
use crate::{Api, conv};
use ash::vk;
use std::ffi::CString;
use vigil_hal as hal;

pub(crate) fn create(
    s: &DeviceShared,
    desc: &hal::RenderPipelineDescriptor<'_, Api>,
) -> hal::Result<RenderPipeline> {
    let name = |n: &str| {
        CString::new(n).map_err(|_| hal::DeviceError::Other("entry point name contains NUL".into()))
    };
    let vs_name = name(desc.vertex_entry)?;
    let fs_name = match desc.fragment {
        Some((_, entry)) => Some(name(entry)?),
        None => None,
    };
    let task_name = match desc.mesh.as_ref().and_then(|m| m.task) {
        Some((_, entry)) => Some(name(entry)?),
        None => None,
    };
    let mut stages = Vec::with_capacity(3);
    if let (Some((module, _)), Some(ts)) =
        (desc.mesh.as_ref().and_then(|m| m.task), task_name.as_ref())
    {
        stages.push(
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::TASK_EXT)
                .module(module.raw)
                .name(ts),
        );
    }
    // A mesh pipeline's first module is its mesh shader.
    stages.push(
        vk::PipelineShaderStageCreateInfo::default()
            .stage(if desc.mesh.is_some() {
                vk::ShaderStageFlags::MESH_EXT
            } else {
                vk::ShaderStageFlags::VERTEX
            })
            .module(desc.vertex_module.raw)
            .name(&vs_name),
    );
    if let (Some((module, _)), Some(fs)) = (desc.fragment, fs_name.as_ref()) {
        stages.push(
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(module.raw)
                .name(fs),
        );
    }
    let mut bindings = Vec::new();
    let mut attributes = Vec::new();
    for (slot, vb) in desc.vertex_buffers.iter().enumerate() {
        bindings.push(
            vk::VertexInputBindingDescription::default()
                .binding(slot as u32)
                .stride(vb.array_stride as u32)
                .input_rate(match vb.step_mode {
                    hal::VertexStepMode::Vertex => vk::VertexInputRate::VERTEX,
                    hal::VertexStepMode::Instance => vk::VertexInputRate::INSTANCE,
                }),
        );
        for a in vb.attributes {
            attributes.push(
                vk::VertexInputAttributeDescription::default()
                    .location(a.shader_location)
                    .binding(slot as u32)
                    .format(conv::vertex_format(a.format))
                    .offset(a.offset as u32),
            );
        }
    }
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    let topology = conv::topology(desc.primitive.topology);
    // Primitive restart follows WebGPU: on exactly when a strip pipeline names its index
    // format (the all-ones index then starts a new strip).
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(topology)
        .primitive_restart_enable(desc.primitive.strip_index_format.is_some());
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let bias = desc.depth_stencil.map(|d| d.bias).unwrap_or_default();
    // The constant is WebGPU's integer count of the format's smallest resolvable
    // difference, which Vulkan takes as a float of the same unit; the clamp needs the
    // `depthBiasClamp` feature, part of the adapter baseline.
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(match desc.primitive.polygon_mode {
            hal::PolygonMode::Fill => vk::PolygonMode::FILL,
            hal::PolygonMode::Line => vk::PolygonMode::LINE,
            hal::PolygonMode::Point => vk::PolygonMode::POINT,
        })
        .depth_clamp_enable(desc.primitive.unclipped_depth)
        .cull_mode(conv::cull_mode(desc.primitive.cull_mode))
        .front_face(conv::front_face(desc.primitive.front_face))
        .depth_bias_enable(bias.is_enabled())
        .depth_bias_constant_factor(bias.constant as f32)
        .depth_bias_slope_factor(bias.slope_scale)
        .depth_bias_clamp(bias.clamp)
        .line_width(1.0);
    let ms = desc.multisample;
    // One word of mask: vigil's pipelines take at most 4 samples.
    let sample_mask = [ms.mask as u32];
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(if ms.count == 4 {
            vk::SampleCountFlags::TYPE_4
        } else {
            vk::SampleCountFlags::TYPE_1
        })
        .sample_mask(&sample_mask)
        .alpha_to_coverage_enable(ms.alpha_to_coverage_enabled);
    let mut depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
    if let Some(ds) = &desc.depth_stencil {
        let depth_test = ds.depth_compare != hal::CompareFunction::Always || ds.depth_write_enabled;
        depth_stencil = depth_stencil
            .depth_test_enable(depth_test)
            .depth_write_enable(ds.depth_write_enabled)
            .depth_compare_op(conv::compare_op(ds.depth_compare))
            .stencil_test_enable(ds.stencil_enabled())
            .front(conv::stencil_face(
                &ds.stencil.front,
                ds.stencil.read_mask,
                ds.stencil.write_mask,
            ))
            .back(conv::stencil_face(
                &ds.stencil.back,
                ds.stencil.read_mask,
                ds.stencil.write_mask,
            ));
    }
    let blend_attachments: Vec<_> = desc
        .targets
        .iter()
        .map(|t| {
            let Some(t) = t else {
                return vk::PipelineColorBlendAttachmentState::default();
            };
            let mut a = vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(conv::color_writes(t.write_mask));
            if let Some(b) = &t.blend {
                a = a
                    .blend_enable(true)
                    .src_color_blend_factor(conv::blend_factor(b.color.src_factor))
                    .dst_color_blend_factor(conv::blend_factor(b.color.dst_factor))
                    .color_blend_op(conv::blend_op(b.color.operation))
                    .src_alpha_blend_factor(conv::blend_factor(b.alpha.src_factor))
                    .dst_alpha_blend_factor(conv::blend_factor(b.alpha.dst_factor))
                    .alpha_blend_op(conv::blend_op(b.alpha.operation));
            }
            a
        })
        .collect();
    let color_blend =
        vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
    let dynamic = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::BLEND_CONSTANTS,
        vk::DynamicState::STENCIL_REFERENCE,
    ];
    let dynamic_state = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
    let color_formats: Vec<_> = desc
        .targets
        .iter()
        .map(|t| t.map_or(vk::Format::UNDEFINED, |t| s.vk_format(t.format)))
        .collect();
    let ds_format = desc.depth_stencil.map(|d| d.format);
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .view_mask(desc.view_mask)
        .color_attachment_formats(&color_formats)
        .depth_attachment_format(
            ds_format
                .filter(|f| f.info().has_depth)
                .map_or(vk::Format::UNDEFINED, |f| s.vk_format(f)),
        )
        .stencil_attachment_format(
            ds_format
                .filter(|f| f.info().has_stencil)
                .map_or(vk::Format::UNDEFINED, |f| s.vk_format(f)),
        );
    let mut info = vk::GraphicsPipelineCreateInfo::default().stages(&stages);
    if desc.mesh.is_none() {
        // Mesh pipelines have neither: the mesh shader makes the primitives.
        info = info
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly);
    }
    let info = [info
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth_stencil)
        .color_blend_state(&color_blend)
        .dynamic_state(&dynamic_state)
        .layout(desc.layout.raw)
        .push_next(&mut rendering)];
    s.check("vkCreateGraphicsPipelines")?;
    // SAFETY: the shaders, vertex layout, targets and layout were checked against each other
    // above us; every pointer refers to locals alive for the call.
    let raw = unsafe {
        s.raw.create_graphics_pipelines(
            desc.cache.map_or(vk::PipelineCache::null(), |c| c.raw),
            &info,
            None,
        )
    }
    .map_err(|(_, e)| conv::map_result(e))?;
    let raw = s.one_pipeline(raw, desc.label)?;
    Ok(RenderPipeline { raw })
}
