//! Binding arrays, bind group writes, bind group pools and untracked groups on the test
//! backend: each rule's exact refusal, and that each array flag is judged against the
//! device's *enabled* features (the test adapter supports every one of them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::num::NonZeroU32;
use vigil::*;

const ARRAYS: Features = Features::TEXTURE_BINDING_ARRAY
    .union(Features::BUFFER_BINDING_ARRAY)
    .union(Features::STORAGE_RESOURCE_BINDING_ARRAY)
    .union(Features::BINDING_ARRAY_NON_UNIFORM_INDEXING);

fn array(count: u32, flags: BindingArrayFlags) -> Option<BindingArray> {
    Some(BindingArray {
        count: NonZeroU32::new(count).unwrap(),
        flags,
    })
}

fn storage_array(binding: u32, count: u32, flags: BindingArrayFlags) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        array: array(count, flags),
        ..entry(binding, ShaderStages::COMPUTE, buf_ty(RO, false))
    }
}

fn try_layout(d: &TDevice, entries: &[BindGroupLayoutEntry]) -> Result<BindGroupLayout> {
    d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "arrays",
        entries,
    })
}

fn sampled() -> BindingType {
    BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: true },
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    }
}

#[test]
fn each_kind_of_array_needs_its_enabled_feature() {
    let none = device_with(Features::TIMESTAMP_QUERY);
    let all = device_with(ARRAYS);
    let kinds = [
        (buf_ty(UNIFORM, false), "BUFFER_BINDING_ARRAY"),
        (buf_ty(RO, false), "STORAGE_RESOURCE_BINDING_ARRAY"),
        (sampled(), "TEXTURE_BINDING_ARRAY"),
        (
            BindingType::Sampler(SamplerBindingType::Filtering),
            "TEXTURE_BINDING_ARRAY",
        ),
        (
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::Rgba8Unorm,
                view_dimension: TextureViewDimension::D2,
            },
            "STORAGE_RESOURCE_BINDING_ARRAY",
        ),
    ];
    for (ty, feature) in kinds {
        let e = BindGroupLayoutEntry {
            array: array(2, BindingArrayFlags::empty()),
            ..entry(0, ShaderStages::COMPUTE, ty)
        };
        let err = expect_rule(try_layout(&none, &[e]), Rule::LayoutArrayFeature);
        assert!(err.to_string().contains(feature), "{err}");
        try_layout(&all, &[e]).unwrap();
    }
}

#[test]
fn each_array_flag_needs_its_enabled_feature_for_the_binding_kind() {
    let flags = [
        (
            BindingArrayFlags::PARTIALLY_BOUND,
            Features::PARTIALLY_BOUND_BINDING_ARRAY,
        ),
        (
            BindingArrayFlags::VARIABLE_COUNT,
            Features::VARIABLE_COUNT_BINDING_ARRAY,
        ),
        (
            BindingArrayFlags::UPDATE_AFTER_BIND,
            Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS,
        ),
    ];
    for (flag, feature) in flags {
        // The test adapter supports the feature; only the device's enabled set counts.
        let without = device_with(ARRAYS);
        expect_rule(
            try_layout(&without, &[storage_array(0, 4, flag)]),
            Rule::LayoutArrayFlagFeature,
        );
        let with = device_with(ARRAYS | feature);
        try_layout(&with, &[storage_array(0, 4, flag)]).unwrap();
    }
    // Update-after-bind is judged per kind: the storage-buffer feature does not cover a
    // sampled texture array.
    let d = device_with(ARRAYS | Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS);
    let textures = BindGroupLayoutEntry {
        array: array(4, BindingArrayFlags::UPDATE_AFTER_BIND),
        ..entry(0, ShaderStages::COMPUTE, sampled())
    };
    let e = expect_rule(try_layout(&d, &[textures]), Rule::LayoutArrayFlagFeature);
    assert!(
        e.to_string().contains("UPDATE_AFTER_BIND_SAMPLED_TEXTURES"),
        "{e}"
    );
}

#[test]
fn arrays_have_no_dynamic_offsets_and_only_the_last_binding_is_variable() {
    let d = device_with(ARRAYS | Features::VARIABLE_COUNT_BINDING_ARRAY);
    let dynamic = BindGroupLayoutEntry {
        array: array(2, BindingArrayFlags::empty()),
        ..entry(0, ShaderStages::COMPUTE, buf_ty(RO, true))
    };
    expect_rule(try_layout(&d, &[dynamic]), Rule::LayoutArrayDynamic);
    // Update-after-bind anywhere rules out dynamic offsets everywhere in the layout (a
    // fuzzer finding on the H200: the layer reported VUID-...-descriptorType-03001).
    let d2 = device_with(ARRAYS | Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS);
    let uniform_dynamic = entry(0, ShaderStages::COMPUTE, buf_ty(UNIFORM, true));
    let update_after_bind = storage_array(1, 2, BindingArrayFlags::UPDATE_AFTER_BIND);
    expect_rule(
        try_layout(&d2, &[uniform_dynamic, update_after_bind]),
        Rule::LayoutArrayDynamic,
    );
    try_layout(&d2, &[update_after_bind]).unwrap();
    let variable = storage_array(0, 4, BindingArrayFlags::VARIABLE_COUNT);
    let after = entry(1, ShaderStages::COMPUTE, buf_ty(RW, false));
    expect_rule(
        try_layout(&d, &[variable, after]),
        Rule::LayoutArrayVariableLast,
    );
    let last = storage_array(2, 4, BindingArrayFlags::VARIABLE_COUNT);
    try_layout(&d, &[after, last]).unwrap();
}

#[test]
fn every_element_counts_against_the_per_stage_limits() {
    let d = device_with(ARRAYS);
    let max = d.limits().max_storage_buffers_per_shader_stage;
    try_layout(&d, &[storage_array(0, max, BindingArrayFlags::empty())]).unwrap();
    expect_rule(
        try_layout(&d, &[storage_array(0, max + 1, BindingArrayFlags::empty())]),
        Rule::LayoutStageLimit,
    );
    // A binding no stage sees is held to the same limits: its descriptors are made all
    // the same (the fuzzer's seed 22025 on lavapipe made 2^32 - 1 samplers visible to no
    // stage, and making a group of them threw in the driver and aborted the process).
    let unseen = |count| BindGroupLayoutEntry {
        visibility: ShaderStages::empty(),
        ..storage_array(0, count, BindingArrayFlags::empty())
    };
    try_layout(&d, &[unseen(max)]).unwrap();
    let err = expect_rule(try_layout(&d, &[unseen(max + 1)]), Rule::LayoutStageLimit);
    assert!(err.message().contains("visible to no stage"), "{err}");
    expect_rule(try_layout(&d, &[unseen(u32::MAX)]), Rule::LayoutStageLimit);
}

#[test]
fn a_group_gives_an_array_its_count_of_elements_unless_partial_or_variable() {
    let d = device_with(
        ARRAYS | Features::PARTIALLY_BOUND_BINDING_ARRAY | Features::VARIABLE_COUNT_BINDING_ARRAY,
    );
    let bufs: Vec<Buffer> = (0..5).map(|_| storage(&d, 64)).collect();
    let ranges: Vec<BufferBinding> = bufs.iter().map(|&b| BufferBinding::whole(b)).collect();
    let full = layout(&d, &[storage_array(0, 4, BindingArrayFlags::empty())]);
    group(&d, full, &[(0, BindingResource::BufferArray(&ranges[..4]))]).unwrap();
    expect_rule(
        group(&d, full, &[(0, BindingResource::BufferArray(&ranges[..3]))]),
        Rule::GroupArrayLength,
    );
    expect_rule(
        group(&d, full, &[(0, BindingResource::BufferArray(&ranges))]),
        Rule::GroupArrayLength,
    );
    // A single resource for an array binding, and an array for a single one.
    expect_rule(
        group(&d, full, &[(0, whole(bufs[0]))]),
        Rule::GroupEntryKind,
    );
    let single = layout(&d, &[entry(0, ShaderStages::COMPUTE, buf_ty(RO, false))]);
    expect_rule(
        group(
            &d,
            single,
            &[(0, BindingResource::BufferArray(&ranges[..1]))],
        ),
        Rule::GroupEntryKind,
    );
    // An element of the wrong kind is refused as a single entry would be.
    let sampler = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    expect_rule(
        group(
            &d,
            full,
            &[(0, BindingResource::SamplerArray(&[sampler; 4]))],
        ),
        Rule::GroupEntryKind,
    );
    let partial = layout(
        &d,
        &[storage_array(0, 4, BindingArrayFlags::PARTIALLY_BOUND)],
    );
    group(
        &d,
        partial,
        &[(0, BindingResource::BufferArray(&ranges[..1]))],
    )
    .unwrap();
    group(&d, partial, &[(0, BindingResource::BufferArray(&[]))]).unwrap();
    let variable = layout(
        &d,
        &[storage_array(0, 4, BindingArrayFlags::VARIABLE_COUNT)],
    );
    group(
        &d,
        variable,
        &[(0, BindingResource::BufferArray(&ranges[..2]))],
    )
    .unwrap();
    expect_rule(
        group(&d, variable, &[(0, BindingResource::BufferArray(&ranges))]),
        Rule::GroupArrayLength,
    );
}

/// `out[0] = sum of bufs[k][0]` over a fixed-size array of `n` read-only buffers.
fn sum_kernel(n: u32) -> String {
    format!(
        "enable wgpu_binding_array;
        struct Data {{ v: array<u32, 4> }}
        @group(0) @binding(2) var<storage, read> bufs: binding_array<Data, {n}>;
        @group(0) @binding(1) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(1) fn main() {{
            var s = 0u;
            for (var k = 0u; k < {n}u; k++) {{ s += bufs[k].v[0]; }}
            out[0] = s;
        }}"
    )
}

fn sum_pipeline(
    d: &TDevice,
    n: u32,
    bgl: BindGroupLayout,
) -> std::result::Result<ComputePipeline, Error> {
    let module = d.create_shader_module(&ShaderModuleDescriptor {
        label: "sum",
        wgsl: &sum_kernel(n),
    })?;
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "sum",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    d.create_compute_pipeline(&ComputePipelineDescriptor {
        label: "sum",
        layout,
        module,
        entry_point: "main",
        constants: &[],
        cache: None,
    })
}

fn sum_layout(d: &TDevice, count: u32, flags: BindingArrayFlags) -> BindGroupLayout {
    layout(
        d,
        &[
            entry(1, ShaderStages::COMPUTE, buf_ty(RW, false)),
            BindGroupLayoutEntry {
                array: array(count, flags),
                ..entry(2, ShaderStages::COMPUTE, buf_ty(RO, false))
            },
        ],
    )
}

#[test]
fn a_shader_array_must_fit_its_layout_binding() {
    let d = device_with(ARRAYS | Features::VARIABLE_COUNT_BINDING_ARRAY);
    sum_pipeline(&d, 4, sum_layout(&d, 4, BindingArrayFlags::empty())).unwrap();
    sum_pipeline(&d, 3, sum_layout(&d, 4, BindingArrayFlags::empty())).unwrap();
    expect_rule(
        sum_pipeline(&d, 4, sum_layout(&d, 3, BindingArrayFlags::empty())),
        Rule::ShaderBindingLayout,
    );
    let single = layout(
        &d,
        &[
            entry(1, ShaderStages::COMPUTE, buf_ty(RW, false)),
            entry(2, ShaderStages::COMPUTE, buf_ty(RO, false)),
        ],
    );
    expect_rule(sum_pipeline(&d, 1, single), Rule::ShaderBindingLayout);
    // A binding array without a length cannot have its indices bounded: refused.
    let e = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "runtime",
            wgsl: "enable wgpu_binding_array;
            @group(0) @binding(0) var texs: binding_array<texture_2d<f32>>;
            @group(0) @binding(1) var<storage, read_write> out: array<f32>;
            @compute @workgroup_size(1) fn main() { out[0] = textureLoad(texs[0], vec2(0), 0).x; }",
        })
        .and_then(|module| {
            let bgl = layout(
                &d,
                &[
                    BindGroupLayoutEntry {
                        array: array(2, BindingArrayFlags::empty()),
                        ..entry(0, ShaderStages::COMPUTE, sampled())
                    },
                    entry(1, ShaderStages::COMPUTE, buf_ty(RW, false)),
                ],
            );
            let layout = d.create_pipeline_layout(&PipelineLayoutDescriptor {
                label: "runtime",
                bind_group_layouts: &[bgl],
                immediate_size: 0,
            })?;
            d.create_compute_pipeline(&ComputePipelineDescriptor {
                label: "runtime",
                layout,
                module,
                entry_point: "main",
                constants: &[],
                cache: None,
            })
        })
        .unwrap_err();
    assert!(e.to_string().contains("has no length"), "{e}");
}

#[test]
fn a_variable_count_group_shorter_than_the_shader_array_is_refused_at_dispatch() {
    let d = device_with(ARRAYS | Features::VARIABLE_COUNT_BINDING_ARRAY);
    let bgl = sum_layout(&d, 6, BindingArrayFlags::VARIABLE_COUNT);
    let pipeline = sum_pipeline(&d, 4, bgl).unwrap();
    let bufs: Vec<BufferBinding> = (0..4)
        .map(|_| BufferBinding::whole(storage(&d, 64)))
        .collect();
    let out = storage(&d, 64);
    let short = d
        .create_bind_group(&BindGroupDescriptor {
            label: "short",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::BufferArray(&bufs[..3]),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: whole(out),
                },
            ],
        })
        .unwrap();
    let enough = d
        .create_bind_group(&BindGroupDescriptor {
            label: "enough",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::BufferArray(&bufs),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: whole(out),
                },
            ],
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "v" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, enough, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_bind_group(0, short, &[]).unwrap();
    let err = expect_rule(e.dispatch(1, 1, 1), Rule::GroupTooSmall);
    assert!(err.to_string().contains("3 elements"), "{err}");
}

fn write(
    d: &TDevice,
    g: BindGroup,
    binding: u32,
    first_element: u32,
    resource: BindingResource<'_>,
) -> Result<()> {
    d.write_bind_group(
        g,
        &[BindGroupWrite {
            binding,
            first_element,
            resource,
        }],
    )
}

#[test]
fn writes_stay_inside_the_group_and_wait_for_nothing_to_use_it() {
    let d = device_with(ARRAYS | Features::PARTIALLY_BOUND_BINDING_ARRAY);
    let bgl = sum_layout(&d, 4, BindingArrayFlags::PARTIALLY_BOUND);
    let pipeline = sum_pipeline(&d, 2, bgl).unwrap();
    let a = storage(&d, 64);
    let b = storage(&d, 64);
    let out = storage(&d, 64);
    let g = d
        .create_bind_group(&BindGroupDescriptor {
            label: "bindless",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::BufferArray(&[BufferBinding::whole(a)]),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: whole(out),
                },
            ],
        })
        .unwrap();
    let two = [BufferBinding::whole(a), BufferBinding::whole(b)];
    write(&d, g, 2, 2, BindingResource::BufferArray(&two)).unwrap();
    expect_rule(
        write(&d, g, 2, 3, BindingResource::BufferArray(&two)),
        Rule::GroupArrayLength,
    );
    expect_rule(write(&d, g, 2, 0, whole(a)), Rule::GroupEntryKind);
    expect_rule(write(&d, g, 1, 1, whole(a)), Rule::GroupArrayLength);
    expect_rule(write(&d, g, 7, 0, whole(a)), Rule::GroupEntryUnknown);
    // Recorded by an open encoder: refused until the encoder is gone and its work done.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "user" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    expect_rule(
        write(&d, g, 2, 1, BindingResource::BufferArray(&two[1..])),
        Rule::GroupWriteInUse,
    );
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(5))
        .unwrap();
    write(&d, g, 2, 1, BindingResource::BufferArray(&two[1..])).unwrap();
    // A write the backend fails leaves the group as it was: it still holds `b` at element
    // 1, so destroying `b` makes a submission using the group refused.
    d.seams()
        .inject_fault("update_bind_group", FaultKind::OutOfMemory, FaultMode::Once);
    let c = storage(&d, 64);
    expect_rule(
        write(
            &d,
            g,
            2,
            1,
            BindingResource::BufferArray(&[BufferBinding::whole(c)]),
        ),
        Rule::DriverOutOfMemory,
    );
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "after" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let cb = e.finish().unwrap();
    d.destroy_buffer(b).unwrap();
    expect_rule(d.submit([cb]), Rule::SubmitDestroyed);
}

#[test]
fn a_pool_reset_makes_every_group_of_the_pool_stale() {
    let d = device();
    let k = copy_kernel(&d);
    let pool = d
        .create_bind_group_pool(&BindGroupPoolDescriptor { label: "frame" })
        .unwrap();
    let (src, dst) = (storage(&d, 256), storage(&d, 256));
    let make = || {
        d.create_bind_group_in(
            pool,
            &BindGroupDescriptor {
                label: "per-frame",
                layout: k.bgl,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: whole(src),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: whole(dst),
                    },
                ],
            },
        )
    };
    let g = make().unwrap();
    let destroyed_first = make().unwrap();
    d.destroy_bind_group(destroyed_first).unwrap();
    assert_eq!(d.bind_group_pool_of(g).unwrap(), Some((pool, 0)));
    // In flight across the reset: the submission still runs to completion.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(d.reset_bind_group_pool(pool).unwrap(), 1);
    d.wait_for_serial_unless_stalled(serial, std::time::Duration::from_secs(5))
        .unwrap();
    let err = expect_rule(d.bind_group_pool_of(g), Rule::GroupPoolReset);
    assert!(err.to_string().contains("generation 0"), "{err}");
    assert!(err.to_string().contains("'frame'"), "{err}");
    expect_rule(d.destroy_bind_group(g), Rule::GroupPoolReset);
    expect_rule(write(&d, g, 0, 0, whole(src)), Rule::GroupPoolReset);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "stale" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    expect_rule(e.set_bind_group(0, g, &[]), Rule::GroupPoolReset);
    // The pool goes on: new groups in generation 1; destroying the pool stales them too.
    let next = make().unwrap();
    assert_eq!(d.bind_group_pool_of(next).unwrap(), Some((pool, 1)));
    d.destroy_bind_group_pool(pool).unwrap();
    expect_rule(d.bind_group_pool_of(next), Rule::GroupPoolReset);
    expect_rule(make(), Rule::HandleStale);
    expect_rule(d.reset_bind_group_pool(pool), Rule::HandleStale);
}

#[test]
fn an_untracked_group_is_never_written() {
    let d = device();
    let k = copy_kernel(&d);
    let (src, dst) = (storage(&d, 256), storage(&d, 256));
    let desc = BindGroupDescriptor {
        label: "untracked",
        layout: k.bgl,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: whole(src),
            },
            BindGroupEntry {
                binding: 1,
                resource: whole(dst),
            },
        ],
    };
    // SAFETY: the buffers live until the device goes, and the group is never submitted.
    let g = unsafe { d.create_bind_group_untracked(&desc) }.unwrap();
    expect_rule(write(&d, g, 0, 0, whole(src)), Rule::GroupUntracked);
    // Validated at creation like any group.
    let bad = BindGroupDescriptor {
        entries: &desc.entries[..1],
        ..desc.clone()
    };
    // SAFETY: refused, so nothing is made.
    expect_rule(
        unsafe { d.create_bind_group_untracked(&bad) },
        Rule::GroupEntryMissing,
    );
}

#[test]
fn a_rewritten_dynamic_binding_keeps_its_own_offset_slot() {
    let d = device();
    let bgl = layout(
        &d,
        &[
            entry(0, ShaderStages::COMPUTE, buf_ty(UNIFORM, true)),
            entry(1, ShaderStages::COMPUTE, buf_ty(UNIFORM, true)),
        ],
    );
    let usage = BufferUsages::UNIFORM;
    let (a, b, c) = (
        buffer(&d, "a", 512, usage),
        buffer(&d, "b", 256, usage),
        buffer(&d, "c", 1024, usage),
    );
    let range = |buffer| {
        BindingResource::Buffer(BufferBinding {
            buffer,
            offset: 0,
            size: Some(256),
        })
    };
    let g = group(&d, bgl, &[(0, range(a)), (1, range(b))]).unwrap();
    write(&d, g, 1, 0, range(c)).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "offsets" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    // Binding 0 still ranges over `a` (512 bytes), binding 1 now over `c` (1024).
    e.set_bind_group(0, g, &[256, 768]).unwrap();
    expect_rule(e.set_bind_group(0, g, &[512, 0]), Rule::DynamicOffsetRange);
}
