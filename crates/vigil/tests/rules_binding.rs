//! Bind group layout, bind group and pipeline layout rules, with exact error kinds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::num::NonZeroU64;
use vigil::*;

const C: ShaderStages = ShaderStages::COMPUTE;

#[test]
fn layout_bindings_must_be_unique_and_within_limits() {
    let d = device();
    let r = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "dup",
        entries: &[
            entry(0, C, buf_ty(RW, false)),
            entry(0, C, buf_ty(RO, false)),
        ],
    });
    expect_rule(r, Rule::LayoutBindingDuplicate);
    let r = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "far",
        entries: &[entry(
            d.limits().max_bindings_per_bind_group,
            C,
            buf_ty(RW, false),
        )],
    });
    expect_rule(r, Rule::LayoutBindingLimit);
    let many: Vec<_> = (0..d.limits().max_storage_buffers_per_shader_stage + 1)
        .map(|i| entry(i, C, buf_ty(RW, false)))
        .collect();
    expect_rule(
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "many",
            entries: &many,
        }),
        Rule::LayoutStageLimit,
    );
}

#[test]
fn the_vertex_stage_cannot_see_writable_storage() {
    let d = device();
    let r = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "vs",
        entries: &[entry(0, ShaderStages::VERTEX, buf_ty(RW, false))],
    });
    expect_rule(r, Rule::LayoutVertexWritable);
}

#[test]
fn every_layout_binding_needs_exactly_one_entry() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let e = expect_rule(group(&d, k.bgl, &[(0, whole(a))]), Rule::GroupEntryMissing);
    assert!(e.message().contains("binding 1"), "{e}");
    expect_rule(
        group(&d, k.bgl, &[(0, whole(a)), (1, whole(b)), (1, whole(b))]),
        Rule::GroupEntryDuplicate,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, whole(a)), (1, whole(b)), (7, whole(b))]),
        Rule::GroupEntryUnknown,
    );
    assert!(
        group(&d, k.bgl, &[(1, whole(b)), (0, whole(a))]).is_ok(),
        "entry order does not matter"
    );
}

#[test]
fn entries_must_be_of_the_layouts_kind() {
    let d = device();
    let k = copy_kernel(&d);
    let s = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    let b = storage(&d, 64);
    let e = expect_rule(
        group(
            &d,
            k.bgl,
            &[(0, BindingResource::Sampler(s)), (1, whole(b))],
        ),
        Rule::GroupEntryKind,
    );
    assert!(e.message().contains("sampler"), "{e}");
}

#[test]
fn buffers_need_the_usage_of_their_binding() {
    let d = device();
    let k = copy_kernel(&d);
    let uniform_only = buffer(&d, "uniform only", 64, BufferUsages::UNIFORM);
    let b = storage(&d, 64);
    let e = expect_rule(
        group(&d, k.bgl, &[(0, whole(uniform_only)), (1, whole(b))]),
        Rule::GroupBufferUsage,
    );
    assert!(e.message().contains("uniform only"), "{e}");
    let ul = layout(&d, &[entry(0, C, buf_ty(UNIFORM, false))]);
    expect_rule(group(&d, ul, &[(0, whole(b))]), Rule::GroupBufferUsage);
}

#[test]
fn ranges_must_be_in_bounds_and_aligned() {
    let d = device();
    let k = copy_kernel(&d);
    let a = storage(&d, 1024);
    let b = storage(&d, 1024);
    let align = u64::from(d.limits().min_storage_buffer_offset_alignment);
    let at = |offset, size| {
        BindingResource::Buffer(BufferBinding {
            buffer: a,
            offset,
            size,
        })
    };
    expect_rule(
        group(&d, k.bgl, &[(0, at(4, Some(16))), (1, whole(b))]),
        Rule::GroupBufferAlignment,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, at(0, Some(2048))), (1, whole(b))]),
        Rule::GroupBufferRange,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, at(align, Some(1024))), (1, whole(b))]),
        Rule::GroupBufferRange,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, at(0, Some(0))), (1, whole(b))]),
        Rule::GroupBufferRange,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, at(0, Some(6))), (1, whole(b))]),
        Rule::GroupBufferRange,
    );
    expect_rule(
        group(&d, k.bgl, &[(0, at(2048, None)), (1, whole(b))]),
        Rule::GroupBufferRange,
    );
    assert!(group(&d, k.bgl, &[(0, at(align, Some(256))), (1, whole(b))]).is_ok());
}

#[test]
fn bound_sizes_respect_the_layout_minimum() {
    let d = device();
    let l = layout(
        &d,
        &[entry(
            0,
            C,
            BindingType::Buffer {
                ty: RW,
                has_dynamic_offset: false,
                min_binding_size: NonZeroU64::new(256),
            },
        )],
    );
    let b = storage(&d, 1024);
    let small = BindingResource::Buffer(BufferBinding {
        buffer: b,
        offset: 0,
        size: Some(128),
    });
    expect_rule(group(&d, l, &[(0, small)]), Rule::GroupBufferRange);
    assert!(group(&d, l, &[(0, whole(b))]).is_ok());
}

#[test]
fn uniform_bindings_respect_the_size_limit() {
    let d = device();
    let l = layout(&d, &[entry(0, C, buf_ty(UNIFORM, false))]);
    let big = buffer(
        &d,
        "big",
        d.limits().max_uniform_buffer_binding_size + 256,
        BufferUsages::UNIFORM,
    );
    expect_rule(group(&d, l, &[(0, whole(big))]), Rule::GroupBufferLimit);
}

#[test]
fn destroyed_resources_cannot_be_bound() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    d.destroy_buffer(a).unwrap();
    expect_rule(
        group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]),
        Rule::HandleStale,
    );
    let other = device();
    let foreign = storage(&other, 64);
    expect_rule(
        group(&d, k.bgl, &[(0, whole(foreign)), (1, whole(b))]),
        Rule::HandleForeign,
    );
}

#[test]
fn a_refused_bind_group_changes_nothing() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let live = d.live_native_objects();
    expect_rule(group(&d, k.bgl, &[(0, whole(a))]), Rule::GroupEntryMissing);
    assert_eq!(d.live_native_objects(), live);
    // `a` is not retained by the refused group: destroying it releases it at once.
    d.destroy_buffer(a).unwrap();
    assert_eq!(d.live_native_objects(), live - 1);
    let _ = b;
}

#[test]
fn pipeline_layouts_respect_group_and_dynamic_limits() {
    let d = device();
    let l = layout(&d, &[entry(0, C, buf_ty(RW, false))]);
    let too_many = vec![l; d.limits().max_bind_groups as usize + 1];
    expect_rule(
        d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "many",
            bind_group_layouts: &too_many,
            immediate_size: 0,
        }),
        Rule::PipelineLayoutGroups,
    );
    let dynamic = layout(&d, &[entry(0, C, buf_ty(RW, true))]);
    let n = d.limits().max_dynamic_storage_buffers_per_pipeline_layout as usize + 1;
    let groups = vec![dynamic; n.min(d.limits().max_bind_groups as usize)];
    if n <= d.limits().max_bind_groups as usize {
        expect_rule(
            d.create_pipeline_layout(&PipelineLayoutDescriptor {
                label: "dyn",
                bind_group_layouts: &groups,
                immediate_size: 0,
            }),
            Rule::PipelineLayoutDynamic,
        );
    }
    expect_rule(
        d.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "null",
            bind_group_layouts: &[BindGroupLayout::NULL],
            immediate_size: 0,
        }),
        Rule::HandleNull,
    );
}

#[test]
fn layouts_outlive_their_handles_while_groups_use_them() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    d.destroy_bind_group_layout(k.bgl).unwrap();
    expect_rule(
        group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]),
        Rule::HandleStale,
    );
    // The pipeline still works with a structurally equal layout's groups.
    let again = layout(
        &d,
        &[
            entry(0, C, buf_ty(RO, false)),
            entry(1, C, buf_ty(RW, false)),
        ],
    );
    let g = group(&d, again, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn bgra8unorm_storage_needs_its_feature_and_is_write_only() {
    let storage = |access| {
        entry(
            0,
            C,
            BindingType::StorageTexture {
                access,
                format: TextureFormat::Bgra8Unorm,
                view_dimension: TextureViewDimension::D2,
            },
        )
    };
    let try_layout = |d: &TDevice, access| {
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "bgra8",
            entries: &[storage(access)],
        })
    };
    let d = device();
    expect_rule(
        try_layout(&d, StorageTextureAccess::WriteOnly),
        Rule::LayoutStorageFormat,
    );
    let d = device_with(Features::BGRA8UNORM_STORAGE | Features::STORAGE_TEXTURE_READ_WRITE);
    assert!(try_layout(&d, StorageTextureAccess::WriteOnly).is_ok());
    for access in [
        StorageTextureAccess::ReadOnly,
        StorageTextureAccess::ReadWrite,
    ] {
        let e = expect_rule(try_layout(&d, access), Rule::LayoutStorageAccess);
        assert!(e.message().contains("write-only"), "{e}");
    }
    // Its sRGB twin is never a storage format.
    let srgb = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "bgra8 srgb",
        entries: &[entry(
            0,
            C,
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::Bgra8UnormSrgb,
                view_dimension: TextureViewDimension::D2,
            },
        )],
    });
    expect_rule(srgb, Rule::LayoutStorageFormat);
}

#[test]
fn atomic_storage_textures_need_their_feature_and_an_r32_integer_format() {
    let atomic = |format| {
        entry(
            0,
            C,
            BindingType::StorageTexture {
                access: StorageTextureAccess::Atomic,
                format,
                view_dimension: TextureViewDimension::D2,
            },
        )
    };
    let try_layout = |d: &TDevice, format| {
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "atomic",
            entries: &[atomic(format)],
        })
    };
    let d = device();
    let e = expect_rule(
        try_layout(&d, TextureFormat::R32Uint),
        Rule::LayoutStorageAtomic,
    );
    assert!(e.message().contains("TEXTURE_ATOMIC"), "{e}");
    let d = device_with(Features::TEXTURE_ATOMIC);
    for format in [TextureFormat::R32Uint, TextureFormat::R32Sint] {
        assert!(try_layout(&d, format).is_ok(), "{format:?}");
    }
    for format in [TextureFormat::R32Float, TextureFormat::Rgba32Uint] {
        expect_rule(try_layout(&d, format), Rule::LayoutStorageAtomic);
    }
    // Atomic bindings write: the vertex stage cannot see them.
    let vertex = d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "vertex atomic",
        entries: &[BindGroupLayoutEntry {
            visibility: ShaderStages::VERTEX,
            ..atomic(TextureFormat::R32Uint)
        }],
    });
    assert!(vertex.is_err());
}
