//! Override constants on pipelines and shader capabilities that follow the device's
//! enabled features: each refusal with its rule, on the test backend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

const KERNEL: &str = r#"
@id(4) override scale: f32 = 1.0;
override count: u32;
override unused: u32;
override size: u32 = 64;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(size)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < count { data[id.x] = data[id.x] * scale; }
}
@compute @workgroup_size(1)
fn other() { data[0] = f32(unused); }
"#;

fn pipeline(d: &TDevice, wgsl: &str, constants: &[(&str, f64)]) -> Result<ComputePipeline> {
    let module = d.create_shader_module(&ShaderModuleDescriptor { label: "k", wgsl })?;
    let bgl = layout(
        d,
        &[entry(
            0,
            ShaderStages::COMPUTE,
            buf_ty(BufferBindingType::Storage { read_only: false }, false),
        )],
    );
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "k",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    d.create_compute_pipeline(&ComputePipelineDescriptor {
        label: "k",
        layout,
        module,
        entry_point: "main",
        constants,
        cache: None,
    })
}

#[test]
fn constants_are_keyed_by_id_or_name_and_only_used_overrides_need_values() {
    let d = device();
    // `unused` has no default but `main` does not use it.
    pipeline(&d, KERNEL, &[("count", 10.0)]).unwrap();
    pipeline(&d, KERNEL, &[("count", 10.0), ("4", 2.5), ("size", 128.0)]).unwrap();
    // The reflection of the module lists its overrides.
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "k",
            wgsl: KERNEL,
        })
        .unwrap();
    let keys: Vec<String> = d
        .shader_reflection(module)
        .unwrap()
        .overrides
        .iter()
        .map(|o| o.key())
        .collect();
    assert_eq!(keys, ["4", "count", "unused", "size"]);
}

#[test]
fn an_unknown_or_repeated_key_is_refused() {
    let d = device();
    let e = expect_rule(
        pipeline(&d, KERNEL, &[("count", 1.0), ("scale", 2.0)]),
        Rule::OverrideUnknown,
    );
    // `scale` has an id, so its key is "4".
    assert!(e.to_string().contains("no override 'scale'"), "{e}");
    expect_rule(
        pipeline(&d, KERNEL, &[("count", 1.0), ("count", 2.0)]),
        Rule::OverrideUnknown,
    );
    // A module without overrides takes no constants.
    expect_rule(
        pipeline(
            &d,
            "@group(0) @binding(0) var<storage, read_write> data: array<f32>;
             @compute @workgroup_size(1) fn main() { data[0] = 1.0; }",
            &[("x", 1.0)],
        ),
        Rule::OverrideUnknown,
    );
}

#[test]
fn a_used_override_without_default_needs_a_value() {
    let d = device();
    let e = expect_rule(pipeline(&d, KERNEL, &[]), Rule::OverrideMissing);
    assert!(e.to_string().contains("'count'"), "{e}");
}

#[test]
fn a_value_the_type_cannot_hold_is_refused() {
    let d = device();
    for bad in [
        [("count", 1.5), ("4", 1.0)],
        [("count", -1.0), ("4", 1.0)],
        [("count", 4_294_967_296.0), ("4", 1.0)],
        [("count", 1.0), ("4", f64::NAN)],
        [("count", 1.0), ("4", f64::INFINITY)],
    ] {
        expect_rule(pipeline(&d, KERNEL, &bad), Rule::OverrideValue);
    }
}

#[test]
fn a_workgroup_size_from_an_override_is_checked_against_the_limits() {
    let d = device();
    let limit = d.limits().max_compute_invocations_per_workgroup;
    pipeline(&d, KERNEL, &[("count", 1.0), ("size", f64::from(limit))]).unwrap();
    expect_rule(
        pipeline(
            &d,
            KERNEL,
            &[("count", 1.0), ("size", f64::from(limit) + 1.0)],
        ),
        Rule::WorkgroupLimit,
    );
    // Zero is no workgroup size at all.
    expect_rule(
        pipeline(&d, KERNEL, &[("count", 1.0), ("size", 0.0)]),
        Rule::OverrideValue,
    );
}

#[test]
fn a_missing_entry_point_is_refused_before_the_constants_are_looked_at() {
    let d = device();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "k",
            wgsl: KERNEL,
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "k",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .unwrap();
    expect_rule(
        d.create_compute_pipeline(&ComputePipelineDescriptor {
            label: "k",
            layout,
            module,
            entry_point: "nope",
            constants: &[("nope", 1.0)],
            cache: None,
        }),
        Rule::EntryPointMissing,
    );
}

const F64: &str = "@group(0) @binding(0) var<storage, read_write> d: array<f64>;
    @compute @workgroup_size(1) fn main() { d[0] = d[0] * 2.0lf; }";

#[test]
fn a_shader_needing_a_feature_the_device_did_not_enable_is_refused_naming_it() {
    let d = device();
    let e = expect_rule(
        d.create_shader_module(&ShaderModuleDescriptor {
            label: "f64",
            wgsl: F64,
        }),
        Rule::ShaderFeature,
    );
    assert!(e.to_string().contains("SHADER_F64"), "{e}");
    assert_eq!(
        e.shader_diagnostic().unwrap().features_needed,
        Features::SHADER_F64
    );
    // The same device type with the feature enabled takes it.
    let d = device_with(Features::SHADER_F64);
    d.create_shader_module(&ShaderModuleDescriptor {
        label: "f64",
        wgsl: F64,
    })
    .unwrap();
}

#[test]
fn sample_rate_shading_comes_with_every_device_whose_adapter_has_it() {
    // The test adapter has it; no one asked for it.
    let d = device_with(Features::empty());
    assert!(d.features().contains(Features::SAMPLE_RATE_SHADING));
    d.create_shader_module(&ShaderModuleDescriptor {
        label: "sample",
        wgsl: "@fragment fn fs(@builtin(sample_index) i: u32) -> @location(0) vec4f {
                   return vec4f(f32(i));
               }",
    })
    .unwrap();
}

#[test]
fn what_vigil_cannot_hand_the_driver_is_refused_with_the_reason() {
    let d = device();
    let e = expect_rule(
        d.create_shader_module(&ShaderModuleDescriptor {
            label: "mask",
            wgsl: "@fragment fn fs(@builtin(sample_mask) m: u32) -> @location(0) vec4f {
                       return vec4f(f32(m));
                   }",
        }),
        Rule::ShaderTranslate,
    );
    assert!(e.to_string().contains("sample_mask"), "{e}");
    let e = expect_rule(
        d.create_shader_module(&ShaderModuleDescriptor {
            label: "library",
            wgsl: "fn helper(x: f32) -> f32 { return x * 2.0; }",
        }),
        Rule::ShaderTranslate,
    );
    assert!(e.to_string().contains("no entry points"), "{e}");
}

const DUAL: &str = "enable dual_source_blending;
    @vertex fn vs() -> @builtin(position) vec4f { return vec4f(0.0); }
    struct O { @location(0) @blend_src(0) a: vec4f, @location(0) @blend_src(1) b: vec4f }
    @fragment fn fs() -> O { return O(vec4f(1.0), vec4f(0.5)); }
    @fragment fn single() -> @location(0) vec4f { return vec4f(1.0); }";

fn src1_target() -> Option<ColorTargetState> {
    Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: Some(BlendState {
            color: BlendComponent {
                src_factor: BlendFactor::One,
                dst_factor: BlendFactor::OneMinusSrc1Alpha,
                operation: BlendOperation::Add,
            },
            alpha: BlendComponent::REPLACE,
        }),
        write_mask: ColorWrites::ALL,
    })
}

/// A render pipeline of `wgsl`'s `vs` and `fs` entry points.
fn render_pipeline(
    d: &TDevice,
    wgsl: &str,
    fs: &str,
    targets: &[Option<ColorTargetState>],
    multiview_mask: u32,
) -> Result<RenderPipeline> {
    let module = d.create_shader_module(&ShaderModuleDescriptor { label: "r", wgsl })?;
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "r",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .unwrap();
    d.create_render_pipeline(&RenderPipelineDescriptor {
        label: "r",
        layout,
        vertex: VertexState {
            module,
            entry_point: "vs",
            constants: &[],
            buffers: &[],
        },
        fragment: Some(FragmentState {
            module,
            entry_point: fs,
            constants: &[],
            targets,
        }),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        multisample: MultisampleState::default(),
        multiview_mask: std::num::NonZeroU32::new(multiview_mask),
        cache: None,
    })
}

fn dual_pipeline(
    d: &TDevice,
    fs: &str,
    targets: &[Option<ColorTargetState>],
) -> Result<RenderPipeline> {
    render_pipeline(d, DUAL, fs, targets, 0)
}

const PLAIN: &str = "@vertex fn vs() -> @builtin(position) vec4f { return vec4f(0.0); }
    @fragment fn fs() -> @location(0) vec4f { return vec4f(1.0); }";

#[test]
fn dual_source_blending_needs_its_feature_one_target_and_a_second_source() {
    // Without the feature the shader itself is refused, naming it.
    let e = expect_rule(
        dual_pipeline(&device(), "fs", &[src1_target()]),
        Rule::ShaderFeature,
    );
    assert!(e.to_string().contains("DUAL_SOURCE_BLENDING"), "{e}");
    let d = device_with(Features::DUAL_SOURCE_BLENDING);
    dual_pipeline(&d, "fs", &[src1_target()]).unwrap();
    // Two targets.
    expect_rule(
        dual_pipeline(&d, "fs", &[src1_target(), src1_target()]),
        Rule::DualSource,
    );
    // A fragment shader without @blend_src(1).
    let e = expect_rule(
        dual_pipeline(&d, "single", &[src1_target()]),
        Rule::DualSource,
    );
    assert!(e.to_string().contains("@blend_src(1)"), "{e}");
}

#[test]
fn src1_factors_without_the_feature_are_refused() {
    expect_rule(
        render_pipeline(&device(), PLAIN, "fs", &[src1_target()], 0),
        Rule::DualSourceFeature,
    );
}

const IMMEDIATE_KERNEL: &str = "struct P { scale: u32, add: u32 }
    var<immediate> p: P;
    @group(0) @binding(0) var<storage, read_write> data: array<f32>;
    @compute @workgroup_size(1) fn main() { data[0] = f32(p.scale + p.add); }";

fn immediate_pipeline(d: &TDevice, immediate_size: u32) -> Result<ComputePipeline> {
    immediate_kernel(d, immediate_size).map(|(p, _)| p)
}

fn immediate_kernel(
    d: &TDevice,
    immediate_size: u32,
) -> Result<(ComputePipeline, BindGroupLayout)> {
    let module = d.create_shader_module(&ShaderModuleDescriptor {
        label: "imm",
        wgsl: IMMEDIATE_KERNEL,
    })?;
    let bgl = layout(
        d,
        &[entry(
            0,
            ShaderStages::COMPUTE,
            buf_ty(BufferBindingType::Storage { read_only: false }, false),
        )],
    );
    let layout = d.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: "imm",
        bind_group_layouts: &[bgl],
        immediate_size,
    })?;
    let p = d.create_compute_pipeline(&ComputePipelineDescriptor {
        label: "imm",
        layout,
        module,
        entry_point: "main",
        constants: &[],
        cache: None,
    })?;
    Ok((p, bgl))
}

#[test]
fn a_layout_holds_a_whole_number_of_words_of_immediates_within_the_limit() {
    let d = device();
    let max = d.limits().max_immediate_size;
    immediate_pipeline(&d, max).unwrap();
    expect_rule(immediate_pipeline(&d, max + 4), Rule::ImmediateSizeLimit);
    expect_rule(immediate_pipeline(&d, 6), Rule::ImmediateSizeAlign);
    // The shader's 8 bytes must fit the layout's.
    let e = expect_rule(immediate_pipeline(&d, 4), Rule::ShaderImmediates);
    assert!(e.to_string().contains("8 bytes of immediate data"), "{e}");
    immediate_pipeline(&d, 8).unwrap();
}

#[test]
fn immediates_are_set_in_a_pass_in_words_within_the_limit() {
    let d = device();
    let mut e = encoder(&d);
    expect_rule(e.set_immediates(0, &[0; 4]), Rule::PassNotOpen);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    let max = d.limits().max_immediate_size;
    e.set_immediates(0, &vec![0; max as usize]).unwrap();
    e.set_immediates(max - 4, &[1; 4]).unwrap();
    for (offset, len) in [(2, 4), (0, 6), (max - 4, 8), (u32::MAX - 3, 4)] {
        let mut e = encoder(&d);
        compute_pass(&mut e);
        expect_rule(
            e.set_immediates(offset, &vec![0; len]),
            Rule::ImmediatesRange,
        );
    }
}

#[test]
fn each_dispatch_pushes_the_immediates_it_sees_zero_where_unset() {
    let d = device();
    let (p, bgl) = immediate_kernel(&d, 8).unwrap();
    let g = group(&d, bgl, &[(0, whole(storage(&d, 16)))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_immediates(4, &7u32.to_le_bytes()).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    // Unchanged: nothing pushed again.
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let pushed: Vec<Vec<u8>> = d
        .test_backend()
        .submitted_commands()
        .pop()
        .unwrap()
        .1
        .into_iter()
        .filter_map(|c| match c {
            vigil::hal_test::TestCommand::SetImmediates(bytes) => Some(bytes.to_vec()),
            _ => None,
        })
        .collect();
    assert_eq!(pushed, [vec![0; 8], [0, 0, 0, 0, 7, 0, 0, 0].to_vec()]);
}

fn multiview_pipeline(d: &TDevice, mask: u32) -> Result<RenderPipeline> {
    let target = Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    });
    render_pipeline(d, PLAIN, "fs", &[target], mask)
}

fn layered_view(d: &TDevice, layers: u32, dimension: TextureViewDimension) -> TextureView {
    let t = d
        .create_texture(&TextureDescriptor {
            label: "layers",
            size: [16, 16],
            array_layers: layers,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .unwrap();
    d.create_texture_view(
        t,
        &TextureViewDescriptor {
            dimension: Some(dimension),
            ..Default::default()
        },
    )
    .unwrap()
}

fn multiview_pass(e: &mut CommandEncoder<TestApi>, view: TextureView, mask: u32) -> Result<()> {
    multiview_pass_counting(e, view, mask, None)
}

/// [`multiview_pass`] counting occlusion into `occlusion`.
fn multiview_pass_counting(
    e: &mut CommandEncoder<TestApi>,
    view: TextureView,
    mask: u32,
    occlusion: Option<QuerySet>,
) -> Result<()> {
    e.begin_render_pass(&RenderPassDescriptor {
        label: "mv",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })],
        multiview_mask: std::num::NonZeroU32::new(mask),
        occlusion_query_set: occlusion,
        ..RenderPassDescriptor::default()
    })
}

#[test]
fn multiview_needs_its_feature_views_within_the_limit_and_layered_attachments() {
    let plain = device();
    expect_rule(multiview_pipeline(&plain, 0b11), Rule::MultiviewFeature);
    let v = layered_view(&plain, 2, TextureViewDimension::D2Array);
    expect_rule(
        multiview_pass(&mut encoder(&plain), v, 0b11),
        Rule::MultiviewFeature,
    );

    let d = device_with(Features::MULTIVIEW);
    let views = d.limits().max_multiview_view_count;
    multiview_pipeline(&d, 0b11).unwrap();
    expect_rule(multiview_pipeline(&d, 1 << views), Rule::MultiviewLimit);
    // Two views need a 2d-array view of at least two layers.
    let one = layered_view(&d, 1, TextureViewDimension::D2Array);
    let e = expect_rule(
        multiview_pass(&mut encoder(&d), one, 0b11),
        Rule::AttachmentView,
    );
    assert!(e.to_string().contains("at least 2 layers"), "{e}");
    let two = layered_view(&d, 2, TextureViewDimension::D2Array);
    let mut enc = encoder(&d);
    multiview_pass(&mut enc, two, 0b11).unwrap();
    enc.set_render_pipeline(multiview_pipeline(&d, 0b11).unwrap())
        .unwrap();
    // The pipeline's mask must be the pass's.
    let mut enc = encoder(&d);
    multiview_pass(&mut enc, two, 0b11).unwrap();
    let other = multiview_pipeline(&d, 0b01).unwrap();
    expect_rule(enc.set_render_pipeline(other), Rule::PipelineTargets);
    // An ordinary pass takes an ordinary pipeline only.
    let single = layered_view(&d, 1, TextureViewDimension::D2);
    let mut enc = encoder(&d);
    multiview_pass(&mut enc, single, 0).unwrap();
    expect_rule(
        enc.set_render_pipeline(multiview_pipeline(&d, 0b11).unwrap()),
        Rule::PipelineTargets,
    );
}

#[test]
fn a_multiview_pass_counts_no_occlusion_queries() {
    let d = device_with(Features::MULTIVIEW);
    let set = d.create_occlusion_query_set("occlusion", 2).unwrap();
    let view = layered_view(&d, 2, TextureViewDimension::D2Array);
    let err = expect_rule(
        multiview_pass_counting(&mut encoder(&d), view, 0b11, Some(set)),
        Rule::OcclusionMultiview,
    );
    assert!(err.message().contains("one query per view"), "{err}");
    // The same pass without the set begins.
    multiview_pass(&mut encoder(&d), view, 0b11).unwrap();
}

#[test]
fn a_multiview_pass_counts_no_pipeline_statistics() {
    let d = device_with(Features::MULTIVIEW | Features::PIPELINE_STATISTICS_QUERY);
    let set = d
        .create_pipeline_statistics_query_set(
            "statistics",
            2,
            PipelineStatisticsTypes::VERTEX_SHADER_INVOCATIONS,
        )
        .unwrap();
    let view = layered_view(&d, 2, TextureViewDimension::D2Array);
    let mut e = encoder(&d);
    multiview_pass(&mut e, view, 0b11).unwrap();
    let err = expect_rule(
        e.begin_pipeline_statistics_query(set, 0),
        Rule::StatisticsMultiview,
    );
    assert!(err.message().contains("one query per view"), "{err}");
}
