//! Shader module and compute pipeline rules: diagnostics and pipeline-vs-layout checks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::num::NonZeroU64;
use vigil::*;

const C: ShaderStages = ShaderStages::COMPUTE;

fn pipeline_for(
    d: &TDevice,
    wgsl: &str,
    entries: &[BindGroupLayoutEntry],
) -> Result<ComputePipeline> {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor { label: "k", wgsl })
        .unwrap();
    let bgl = layout(d, entries);
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "k",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    d.create_compute_pipeline(&ComputePipelineDescriptor {
        label: "k",
        layout: pl,
        module,
        entry_point: "main",
        constants: &[],
        cache: None,
    })
}

#[test]
fn bad_wgsl_is_refused_with_line_and_column() {
    let d = device();
    let src = "@compute @workgroup_size(1)\nfn main() {\n  let x = undefined_thing;\n}\n";
    let e = expect_rule(
        d.create_shader_module(&ShaderModuleDescriptor {
            label: "broken",
            wgsl: src,
        }),
        Rule::ShaderCompile,
    );
    let diag = e.shader_diagnostic().expect("a diagnostic");
    assert_eq!((diag.line(), diag.column()), (Some(3), Some(11)));
    assert_eq!(diag.file, "broken.wgsl");
    assert!(e.to_string().contains("undefined_thing"), "{e}");
}

#[test]
fn a_matching_layout_is_accepted() {
    let d = device();
    assert!(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, C, buf_ty(RO, false)),
                entry(1, C, buf_ty(RW, false))
            ]
        )
        .is_ok()
    );
}

#[test]
fn read_only_versus_read_write_must_match() {
    let d = device();
    let e = expect_rule(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, C, buf_ty(RW, false)),
                entry(1, C, buf_ty(RW, false)),
            ],
        ),
        Rule::ShaderBindingLayout,
    );
    assert!(e.message().contains("@group(0) @binding(0)"), "{e}");
    expect_rule(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, C, buf_ty(RO, false)),
                entry(1, C, buf_ty(RO, false)),
            ],
        ),
        Rule::ShaderBindingLayout,
    );
}

#[test]
fn binding_kinds_must_match() {
    let d = device();
    expect_rule(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, C, buf_ty(UNIFORM, false)),
                entry(1, C, buf_ty(RW, false)),
            ],
        ),
        Rule::ShaderBindingLayout,
    );
    expect_rule(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, C, BindingType::Sampler(SamplerBindingType::Filtering)),
                entry(1, C, buf_ty(RW, false)),
            ],
        ),
        Rule::ShaderBindingLayout,
    );
}

#[test]
fn bindings_must_be_visible_to_the_stage() {
    let d = device();
    let e = expect_rule(
        pipeline_for(
            &d,
            COPY_KERNEL,
            &[
                entry(0, ShaderStages::FRAGMENT, buf_ty(RO, false)),
                entry(1, C, buf_ty(RW, false)),
            ],
        ),
        Rule::ShaderBindingLayout,
    );
    assert!(e.message().contains("visible"), "{e}");
}

#[test]
fn every_used_binding_must_be_in_the_layout() {
    let d = device();
    let e = expect_rule(
        pipeline_for(&d, COPY_KERNEL, &[entry(1, C, buf_ty(RW, false))]),
        Rule::ShaderBindingLayout,
    );
    assert!(e.message().contains("no binding 0"), "{e}");
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "k",
            wgsl: COPY_KERNEL,
        })
        .unwrap();
    let empty = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "empty",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .unwrap();
    expect_rule(
        d.create_compute_pipeline(&ComputePipelineDescriptor {
            label: "k",
            layout: empty,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        }),
        Rule::ShaderBindingLayout,
    );
}

#[test]
fn layout_minimum_sizes_must_cover_the_shader() {
    let d = device();
    let wgsl = "struct P { a: vec4<f32>, b: vec4<f32> }\n@group(0) @binding(0) var<uniform> p: P;\n@group(0) @binding(1) var<storage, read_write> o: vec4<f32>;\n@compute @workgroup_size(1) fn main() { o = p.a + p.b; }\n";
    let sized = |n| BindingType::Buffer {
        ty: UNIFORM,
        has_dynamic_offset: false,
        min_binding_size: NonZeroU64::new(n),
    };
    expect_rule(
        pipeline_for(
            &d,
            wgsl,
            &[entry(0, C, sized(16)), entry(1, C, buf_ty(RW, false))],
        ),
        Rule::ShaderBindingLayout,
    );
    assert!(
        pipeline_for(
            &d,
            wgsl,
            &[entry(0, C, sized(32)), entry(1, C, buf_ty(RW, false))]
        )
        .is_ok()
    );
}

#[test]
fn entry_points_must_exist_and_be_compute() {
    let d = device();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "k",
            wgsl: COPY_KERNEL,
        })
        .unwrap();
    let bgl = layout(
        &d,
        &[
            entry(0, C, buf_ty(RO, false)),
            entry(1, C, buf_ty(RW, false)),
        ],
    );
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "k",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    expect_rule(
        d.create_compute_pipeline(&ComputePipelineDescriptor {
            label: "k",
            layout: pl,
            module,
            entry_point: "nope",
            constants: &[],
            cache: None,
        }),
        Rule::EntryPointMissing,
    );
    let vs = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "vs",
            wgsl: "@vertex fn main() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }",
        })
        .unwrap();
    expect_rule(
        d.create_compute_pipeline(&ComputePipelineDescriptor {
            label: "k",
            layout: pl,
            module: vs,
            entry_point: "main",
            constants: &[],
            cache: None,
        }),
        Rule::EntryPointMissing,
    );
}

#[test]
fn workgroups_respect_the_limits() {
    let d = device();
    let wgsl = format!(
        "@compute @workgroup_size({}) fn main() {{}}",
        d.limits().max_compute_invocations_per_workgroup + 1
    );
    expect_rule(pipeline_for(&d, &wgsl, &[]), Rule::WorkgroupLimit);
    let big = "var<workgroup> scratch: array<u32, 8192>;\n@compute @workgroup_size(1) fn main() { scratch[0] = 1u; }";
    expect_rule(pipeline_for(&d, big, &[]), Rule::WorkgroupLimit);
}

#[test]
fn late_size_checks_run_at_dispatch() {
    let d = device();
    let wgsl = "@group(0) @binding(0) var<storage, read_write> o: array<vec4<u32>, 4>;\n@compute @workgroup_size(1) fn main() { o[0] = vec4<u32>(1u); }\n";
    let p = pipeline_for(&d, wgsl, &[entry(0, C, buf_ty(RW, false))]).unwrap();
    let bgl = layout(&d, &[entry(0, C, buf_ty(RW, false))]);
    let small = storage(&d, 32);
    let g = group(&d, bgl, &[(0, whole(small))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    let err = expect_rule(e.dispatch(1, 1, 1), Rule::GroupTooSmall);
    assert!(err.message().contains("64"), "{err}");
}

#[test]
fn a_group_that_met_one_pipelines_late_sizes_is_checked_again_for_another() {
    // The recording remembers which pipeline's late size checks a group met; another
    // pipeline with the same layout but larger needs checks it again.
    let d = device();
    let needs = |words: u32| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> o: array<vec4<u32>, {words}>;\n@compute @workgroup_size(1) fn main() {{ o[0] = vec4<u32>(1u); }}\n"
        )
    };
    let rw = [entry(0, C, buf_ty(RW, false))];
    let p16 = pipeline_for(&d, &needs(1), &rw).unwrap();
    let p64 = pipeline_for(&d, &needs(4), &rw).unwrap();
    let bgl = layout(&d, &rw);
    let g = group(&d, bgl, &[(0, whole(storage(&d, 32)))]).unwrap();
    let other = group(&d, bgl, &[(0, whole(storage(&d, 64)))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(p16).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_compute_pipeline(p64).unwrap();
    e.set_bind_group(0, other, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    let err = expect_rule(e.dispatch(1, 1, 1), Rule::GroupTooSmall);
    assert!(err.message().contains("64"), "{err}");
}

/// The copy kernel's pipeline created with `cache`.
fn cached_pipeline(d: &TDevice, cache: Option<PipelineCache>) -> Result<ComputePipeline> {
    let k = copy_kernel(d);
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "copy",
            wgsl: COPY_KERNEL,
        })
        .unwrap();
    d.create_compute_pipeline(&ComputePipelineDescriptor {
        label: "cached",
        layout: k.layout,
        module,
        entry_point: "main",
        constants: &[],
        cache,
    })
}

#[test]
fn pipeline_cache_data_comes_back_only_whole_and_from_this_device() {
    let d = device();
    let empty = d
        .create_pipeline_cache(&PipelineCacheDescriptor {
            label: "empty",
            ..Default::default()
        })
        .unwrap();
    cached_pipeline(&d, Some(empty)).unwrap();
    let data = d.pipeline_cache_data(empty).unwrap();
    // What was written is taken back.
    let from = |data: &[u8], fallback: bool| {
        d.create_pipeline_cache(&PipelineCacheDescriptor {
            label: "loaded",
            data: Some(data),
            fallback,
        })
    };
    let loaded = from(&data, false).unwrap();
    cached_pipeline(&d, Some(loaded)).unwrap();
    assert_eq!(d.pipeline_cache_data(loaded).unwrap(), data);
    // Anything else is refused, saying what is wrong with it; with `fallback`, an empty
    // cache takes its place.
    let mut flipped = data.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let mut other_device = data.clone();
    other_device[16] ^= 1;
    let mut newer = data.clone();
    newer[8] = 2;
    let mut longer = data.clone();
    longer.push(0);
    for (bad, says) in [
        (&b"not a cache"[..], "not pipeline-cache data"),
        (&[][..], "not pipeline-cache data"),
        (&data[..7], "not pipeline-cache data"),
        (&newer, "format Some(2)"),
        (&other_device, "another device or driver"),
        (&data[..data.len() - 1], "cut short"),
        (&longer, "cut short"),
        (&flipped, "damaged"),
    ] {
        let err = expect_rule(from(bad, false), Rule::PipelineCacheData);
        assert!(err.message().contains(says), "{says}: {err}");
        let fresh = from(bad, true).unwrap();
        cached_pipeline(&d, Some(fresh)).unwrap();
    }
    // The handle is checked as any other: destroyed, null or another device's.
    d.destroy_pipeline_cache(loaded).unwrap();
    expect_rule(cached_pipeline(&d, Some(loaded)), Rule::HandleStale);
    expect_rule(d.pipeline_cache_data(loaded), Rule::HandleStale);
    expect_rule(
        cached_pipeline(&d, Some(PipelineCache::NULL)),
        Rule::HandleNull,
    );
    let other = device();
    let theirs = other
        .create_pipeline_cache(&PipelineCacheDescriptor::default())
        .unwrap();
    expect_rule(cached_pipeline(&d, Some(theirs)), Rule::HandleForeign);
}
