//! Texture, view, sampler, render pipeline and render pass rules with exact error kinds,
//! on the deterministic test backend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

fn tex(d: &TDevice, desc: TextureDescriptor<'_>) -> Result<Texture> {
    d.create_texture(&desc)
}

fn rt(d: &TDevice, format: TextureFormat, samples: u32) -> (Texture, TextureView) {
    let t = tex(
        d,
        TextureDescriptor {
            label: "rt",
            size: [16, 16],
            sample_count: samples,
            format,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        },
    )
    .unwrap();
    let v = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    (t, v)
}

#[test]
fn texture_descriptors_are_checked() {
    let d = device();
    let ok = TextureDescriptor {
        label: "t",
        size: [64, 32],
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::TEXTURE_BINDING,
        ..Default::default()
    };
    assert!(tex(&d, ok).is_ok());
    expect_rule(
        tex(&d, TextureDescriptor { size: [0, 4], ..ok }),
        Rule::TextureSizeZero,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                usage: TextureUsages::empty(),
                ..ok
            },
        ),
        Rule::TextureUsageEmpty,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                size: [d.limits().max_texture_dimension_2d + 1, 4],
                ..ok
            },
        ),
        Rule::TextureSizeLimit,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                array_layers: d.limits().max_texture_array_layers + 1,
                ..ok
            },
        ),
        Rule::TextureLayerLimit,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                mip_level_count: 8,
                ..ok
            },
        ),
        Rule::TextureMipCount,
    );
    assert!(
        tex(
            &d,
            TextureDescriptor {
                mip_level_count: 7,
                ..ok
            }
        )
        .is_ok()
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                sample_count: 2,
                ..ok
            },
        ),
        Rule::TextureSampleCount,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                sample_count: 4,
                ..ok
            },
        ),
        Rule::TextureMultisampleUsage,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                sample_count: 4,
                usage: TextureUsages::RENDER_ATTACHMENT,
                mip_level_count: 2,
                ..ok
            },
        ),
        Rule::TextureMultisampleShape,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                format: TextureFormat::Rgba8UnormSrgb,
                usage: TextureUsages::STORAGE_BINDING,
                ..ok
            },
        ),
        Rule::TextureFormatUsage,
    );
    expect_rule(
        tex(
            &d,
            TextureDescriptor {
                format: TextureFormat::Depth24PlusStencil8,
                usage: TextureUsages::COPY_SRC,
                ..ok
            },
        ),
        Rule::TextureDepthStencilCopy,
    );
}

#[test]
fn every_listed_format_can_be_created() {
    // BC formats with their feature; without it they are refused (below).
    let d = device_with(
        Features::TEXTURE_COMPRESSION_BC
            | Features::TEXTURE_FORMAT_16BIT_NORM
            | Features::DEPTH32FLOAT_STENCIL8,
    );
    for format in TextureFormat::ALL {
        let usage = if format.is_depth_stencil() {
            TextureUsages::RENDER_ATTACHMENT
        } else {
            TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST
        };
        let t = tex(
            &d,
            TextureDescriptor {
                label: format.wgsl_name(),
                size: [4, 4],
                format,
                usage,
                ..Default::default()
            },
        );
        assert!(t.is_ok(), "{format:?}: {t:?}");
    }
}

#[test]
fn texture_descriptor_returns_what_it_was_created_with() {
    let d = device();
    let desc = TextureDescriptor {
        label: "kept",
        dimension: TextureDimension::D2,
        size: [32, 16],
        array_layers: 3,
        mip_level_count: 4,
        sample_count: 1,
        format: TextureFormat::Rgba16Float,
        usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
    };
    let t = tex(&d, desc).unwrap();
    assert_eq!(d.texture_descriptor(t).unwrap().descriptor(), desc);
}

#[test]
fn views_outside_the_texture_are_refused() {
    let d = device();
    let t = tex(
        &d,
        TextureDescriptor {
            label: "t",
            size: [16, 16],
            mip_level_count: 3,
            array_layers: 6,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        },
    )
    .unwrap();
    let v = |desc: TextureViewDescriptor<'_>| d.create_texture_view(t, &desc);
    assert!(
        v(TextureViewDescriptor::default()).is_ok(),
        "defaults to a 2d-array view of everything"
    );
    expect_rule(
        v(TextureViewDescriptor {
            base_mip_level: 3,
            ..Default::default()
        }),
        Rule::ViewMipRange,
    );
    expect_rule(
        v(TextureViewDescriptor {
            base_mip_level: 1,
            mip_level_count: Some(3),
            ..Default::default()
        }),
        Rule::ViewMipRange,
    );
    expect_rule(
        v(TextureViewDescriptor {
            base_array_layer: 6,
            ..Default::default()
        }),
        Rule::ViewLayerRange,
    );
    expect_rule(
        v(TextureViewDescriptor {
            base_array_layer: 4,
            array_layer_count: Some(3),
            ..Default::default()
        }),
        Rule::ViewLayerRange,
    );
    expect_rule(
        v(TextureViewDescriptor {
            dimension: Some(TextureViewDimension::D2),
            array_layer_count: Some(2),
            ..Default::default()
        }),
        Rule::ViewDimension,
    );
    assert!(
        v(TextureViewDescriptor {
            dimension: Some(TextureViewDimension::Cube),
            ..Default::default()
        })
        .is_ok()
    );
    expect_rule(
        v(TextureViewDescriptor {
            dimension: Some(TextureViewDimension::Cube),
            base_array_layer: 1,
            ..Default::default()
        }),
        Rule::ViewLayerRange,
    );
    expect_rule(
        v(TextureViewDescriptor {
            format: Some(TextureFormat::R32Float),
            ..Default::default()
        }),
        Rule::ViewFormat,
    );
    assert!(
        v(TextureViewDescriptor {
            format: Some(TextureFormat::Rgba8UnormSrgb),
            ..Default::default()
        })
        .is_ok()
    );
    expect_rule(
        v(TextureViewDescriptor {
            aspect: TextureAspect::DepthOnly,
            ..Default::default()
        }),
        Rule::ViewAspect,
    );
    expect_rule(
        v(TextureViewDescriptor {
            usage: Some(TextureUsages::STORAGE_BINDING),
            ..Default::default()
        }),
        Rule::ViewUsageSubset,
    );
    let flat = tex(
        &d,
        TextureDescriptor {
            label: "flat",
            size: [16, 8],
            array_layers: 6,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        },
    )
    .unwrap();
    expect_rule(
        d.create_texture_view(
            flat,
            &TextureViewDescriptor {
                dimension: Some(TextureViewDimension::Cube),
                ..Default::default()
            },
        ),
        Rule::ViewDimension,
    );
}

#[test]
fn sampler_descriptors_are_checked() {
    let d = device();
    expect_rule(
        d.create_sampler(&SamplerDescriptor {
            lod_min_clamp: -1.0,
            ..Default::default()
        }),
        Rule::SamplerLodClamp,
    );
    expect_rule(
        d.create_sampler(&SamplerDescriptor {
            lod_min_clamp: 4.0,
            lod_max_clamp: 2.0,
            ..Default::default()
        }),
        Rule::SamplerLodClamp,
    );
    expect_rule(
        d.create_sampler(&SamplerDescriptor {
            lod_max_clamp: f32::NAN,
            ..Default::default()
        }),
        Rule::SamplerLodClamp,
    );
    expect_rule(
        d.create_sampler(&SamplerDescriptor {
            anisotropy_clamp: 0,
            ..Default::default()
        }),
        Rule::SamplerAnisotropy,
    );
    let linear = SamplerDescriptor {
        mag_filter: FilterMode::Linear,
        min_filter: FilterMode::Linear,
        mipmap_filter: FilterMode::Linear,
        anisotropy_clamp: 8,
        ..Default::default()
    };
    // Anisotropy needs the feature on this device.
    expect_rule(d.create_sampler(&linear), Rule::SamplerAnisotropyFeature);
    let d = device_with(Features::SAMPLER_ANISOTROPY);
    assert!(d.create_sampler(&linear).is_ok());
    expect_rule(
        d.create_sampler(&SamplerDescriptor {
            min_filter: FilterMode::Nearest,
            ..linear
        }),
        Rule::SamplerAnisotropy,
    );
}

#[test]
fn border_colors_need_their_features() {
    let border = SamplerDescriptor {
        address_modes: [
            AddressMode::ClampToEdge,
            AddressMode::ClampToBorder,
            AddressMode::Repeat,
        ],
        border_color: Some(SamplerBorderColor::OpaqueWhite),
        ..Default::default()
    };
    let zero = SamplerDescriptor {
        border_color: Some(SamplerBorderColor::Zero),
        ..border
    };
    let d = device();
    let e = expect_rule(d.create_sampler(&border), Rule::SamplerBorderFeature);
    assert!(e.message().contains("ADDRESS_MODE_CLAMP_TO_BORDER"), "{e}");
    // A border color without a mode that uses it is ignored, as in wgpu.
    assert!(
        d.create_sampler(&SamplerDescriptor {
            border_color: Some(SamplerBorderColor::OpaqueBlack),
            ..Default::default()
        })
        .is_ok()
    );
    let d = device_with(Features::ADDRESS_MODE_CLAMP_TO_BORDER);
    assert!(d.create_sampler(&border).is_ok());
    let e = expect_rule(d.create_sampler(&zero), Rule::SamplerBorderFeature);
    assert!(e.message().contains("ADDRESS_MODE_CLAMP_TO_ZERO"), "{e}");
    let d =
        device_with(Features::ADDRESS_MODE_CLAMP_TO_BORDER | Features::ADDRESS_MODE_CLAMP_TO_ZERO);
    assert!(d.create_sampler(&zero).is_ok());
}

#[test]
fn sampled_views_must_match_the_layout() {
    let d = device();
    let entry = |ty| BindGroupLayoutEntry {
        binding: 0,
        visibility: ShaderStages::FRAGMENT,
        ty,
        array: None,
    };
    let float2d = entry(BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: true },
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    });
    let l = layout(&d, &[float2d]);
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    assert!(group(&d, l, &[(0, BindingResource::TextureView(rgba))]).is_ok());
    let (_, uint) = rt(&d, TextureFormat::R32Uint, 1);
    expect_rule(
        group(&d, l, &[(0, BindingResource::TextureView(uint))]),
        Rule::GroupViewSampleType,
    );
    // A depth-stencil view sampled names one aspect: depth as depth, stencil as uint.
    let (ds, both) = rt(&d, TextureFormat::Depth24PlusStencil8, 1);
    let aspect = |aspect| {
        d.create_texture_view(
            ds,
            &TextureViewDescriptor {
                aspect,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let sampled = |sample_type| {
        layout(
            &d,
            &[entry(BindingType::Texture {
                sample_type,
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            })],
        )
    };
    let (depth_l, uint_l) = (
        sampled(TextureSampleType::Depth),
        sampled(TextureSampleType::Uint),
    );
    expect_rule(
        group(&d, depth_l, &[(0, BindingResource::TextureView(both))]),
        Rule::GroupViewAspect,
    );
    let depth_only = aspect(TextureAspect::DepthOnly);
    assert!(
        group(
            &d,
            depth_l,
            &[(0, BindingResource::TextureView(depth_only))]
        )
        .is_ok()
    );
    let stencil_only = aspect(TextureAspect::StencilOnly);
    assert!(
        group(
            &d,
            uint_l,
            &[(0, BindingResource::TextureView(stencil_only))]
        )
        .is_ok()
    );
    let copy_only = tex(
        &d,
        TextureDescriptor {
            label: "c",
            size: [4, 4],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::COPY_DST,
            ..Default::default()
        },
    )
    .unwrap();
    // A view of a texture no view can be used for is refused already (Vulkan has no
    // native view for it), so it never reaches a bind group.
    expect_rule(
        d.create_texture_view(copy_only, &TextureViewDescriptor::default()),
        Rule::ViewUsageNone,
    );
    let s = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    let cmp = d
        .create_sampler(&SamplerDescriptor {
            compare: Some(CompareFunction::Less),
            ..Default::default()
        })
        .unwrap();
    let sl = layout(
        &d,
        &[entry(BindingType::Sampler(SamplerBindingType::Comparison))],
    );
    expect_rule(
        group(&d, sl, &[(0, BindingResource::Sampler(s))]),
        Rule::GroupSamplerKind,
    );
    assert!(group(&d, sl, &[(0, BindingResource::Sampler(cmp))]).is_ok());
}

const TRI: &str = r#"
struct V { @location(0) pos: vec2<f32>, @location(1) tint: vec4<f32> }
@vertex fn vs(v: V) -> @builtin(position) vec4<f32> { return vec4<f32>(v.pos * v.tint.x, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
@fragment fn fs_uint() -> @location(0) vec4<u32> { return vec4<u32>(1u); }
@fragment fn fs_rgb() -> @location(0) vec3<f32> { return vec3<f32>(1.0); }
"#;

fn attrs() -> [VertexAttribute; 2] {
    [
        VertexAttribute {
            format: VertexFormat::Float32x2,
            offset: 0,
            shader_location: 0,
        },
        VertexAttribute {
            format: VertexFormat::Float32x4,
            offset: 8,
            shader_location: 1,
        },
    ]
}

fn pipeline(
    d: &TDevice,
    buffers: &[VertexBufferLayout<'_>],
    targets: &[Option<ColorTargetState>],
    fs: &str,
    samples: u32,
) -> Result<RenderPipeline> {
    pipeline_with(d, buffers, targets, fs, samples, PrimitiveState::default())
}

fn pipeline_with(
    d: &TDevice,
    buffers: &[VertexBufferLayout<'_>],
    targets: &[Option<ColorTargetState>],
    fs: &str,
    samples: u32,
    primitive: PrimitiveState,
) -> Result<RenderPipeline> {
    pipeline_with_depth(d, buffers, targets, fs, samples, primitive, None)
}

/// [`pipeline_with`] with a depth-stencil state.
fn pipeline_with_depth(
    d: &TDevice,
    buffers: &[VertexBufferLayout<'_>],
    targets: &[Option<ColorTargetState>],
    fs: &str,
    samples: u32,
    primitive: PrimitiveState,
    depth_stencil: Option<DepthStencilState>,
) -> Result<RenderPipeline> {
    let ms = MultisampleState {
        count: samples,
        ..Default::default()
    };
    tri_pipeline(
        d,
        buffers,
        targets,
        Some(fs),
        (primitive, depth_stencil, ms),
    )
}

/// A pipeline of [`TRI`]'s `vs` and fragment entry point `fs` (no fragment stage for
/// `None`) with the given fixed-function states.
fn tri_pipeline(
    d: &TDevice,
    buffers: &[VertexBufferLayout<'_>],
    targets: &[Option<ColorTargetState>],
    fs: Option<&str>,
    (primitive, depth_stencil, multisample): (
        PrimitiveState,
        Option<DepthStencilState>,
        MultisampleState,
    ),
) -> Result<RenderPipeline> {
    let m = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "tri",
            wgsl: TRI,
        })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "tri",
            bind_group_layouts: &[],
            immediate_size: 0,
        })
        .unwrap();
    d.create_render_pipeline(&RenderPipelineDescriptor {
        label: "tri",
        layout: pl,
        vertex: VertexState {
            module: m,
            entry_point: "vs",
            constants: &[],
            buffers,
        },
        fragment: fs.map(|entry_point| FragmentState {
            module: m,
            entry_point,
            constants: &[],
            targets,
        }),
        primitive,
        depth_stencil,
        multisample,
        multiview_mask: None,
        cache: None,
    })
}

fn target(format: TextureFormat) -> [Option<ColorTargetState>; 1] {
    [Some(ColorTargetState {
        format,
        blend: None,
        write_mask: ColorWrites::ALL,
    })]
}

#[test]
fn vertex_layouts_are_checked_against_limits_and_the_shader() {
    let d = device();
    let a = attrs();
    let good = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    assert!(pipeline(&d, &good, &target(TextureFormat::Rgba8Unorm), "fs", 1).is_ok());
    let overflow = [VertexBufferLayout {
        array_stride: 20,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    expect_rule(
        pipeline(&d, &overflow, &target(TextureFormat::Rgba8Unorm), "fs", 1),
        Rule::VertexLayout,
    );
    let dup = [
        VertexAttribute {
            shader_location: 0,
            ..a[1]
        },
        a[0],
    ];
    let dup_l = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &dup,
    }];
    expect_rule(
        pipeline(&d, &dup_l, &target(TextureFormat::Rgba8Unorm), "fs", 1),
        Rule::VertexLayout,
    );
    let missing = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a[..1],
    }];
    let e = expect_rule(
        pipeline(&d, &missing, &target(TextureFormat::Rgba8Unorm), "fs", 1),
        Rule::VertexInput,
    );
    assert!(e.message().contains("@location(1)"), "{e}");
    let wrong_kind = [
        a[0],
        VertexAttribute {
            format: VertexFormat::Uint32x4,
            ..a[1]
        },
    ];
    let wk = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &wrong_kind,
    }];
    expect_rule(
        pipeline(&d, &wk, &target(TextureFormat::Rgba8Unorm), "fs", 1),
        Rule::VertexInput,
    );
    let wide = [VertexBufferLayout {
        array_stride: u64::from(d.limits().max_vertex_buffer_array_stride) + 4,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    expect_rule(
        pipeline(&d, &wide, &target(TextureFormat::Rgba8Unorm), "fs", 1),
        Rule::VertexBufferLimit,
    );
}

#[test]
fn fragment_outputs_must_suit_the_targets() {
    let d = device();
    let a = attrs();
    let vb = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    expect_rule(
        pipeline(&d, &vb, &target(TextureFormat::R32Uint), "fs", 1),
        Rule::FragmentOutput,
    );
    assert!(pipeline(&d, &vb, &target(TextureFormat::R32Uint), "fs_uint", 1).is_ok());
    let blended = [Some(ColorTargetState {
        format: TextureFormat::R32Float,
        blend: Some(BlendState::ALPHA_BLENDING),
        write_mask: ColorWrites::ALL,
    })];
    expect_rule(
        pipeline(&d, &vb, &blended, "fs", 1),
        Rule::ColorTargetFormat,
    );
    let two = [
        target(TextureFormat::Rgba8Unorm)[0],
        target(TextureFormat::Rgba8Unorm)[0],
    ];
    expect_rule(pipeline(&d, &vb, &two, "fs", 1), Rule::FragmentOutput);
    expect_rule(
        pipeline(&d, &vb, &target(TextureFormat::Depth32Float), "fs", 1),
        Rule::ColorTargetFormat,
    );
    expect_rule(
        pipeline(&d, &vb, &target(TextureFormat::Rgba8Unorm), "fs", 3),
        Rule::RenderSampleCount,
    );
}

#[test]
fn formats_do_what_webgpu_lets_them_whatever_the_device_does() {
    // The test backend, as lavapipe and the GPUs tested, renders to, blends and
    // multisamples every color format; WebGPU's table decides, widened by its features.
    let a = attrs();
    let vb = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    let attachment = |d: &TDevice, format, samples| {
        tex(
            d,
            TextureDescriptor {
                label: "attachment",
                size: [16, 16],
                sample_count: samples,
                format,
                usage: TextureUsages::RENDER_ATTACHMENT,
                ..Default::default()
            },
        )
    };
    let blended = |format| {
        [Some(ColorTargetState {
            format,
            blend: Some(BlendState::ALPHA_BLENDING),
            write_mask: ColorWrites::ALL,
        })]
    };
    let d = device();
    for format in [
        TextureFormat::R8Snorm,
        TextureFormat::Rgba8Snorm,
        TextureFormat::Rg11b10Ufloat,
    ] {
        let e = expect_rule(attachment(&d, format, 1), Rule::TextureFormatUsage);
        assert!(e.message().contains("render attachment"), "{e}");
        expect_rule(
            pipeline(&d, &vb, &target(format), "fs", 1),
            Rule::ColorTargetSupport,
        );
    }
    expect_rule(
        attachment(&d, TextureFormat::R32Float, 4),
        Rule::TextureFormatUsage,
    );
    for format in [TextureFormat::R32Float, TextureFormat::Rgba32Float] {
        expect_rule(
            pipeline(&d, &vb, &blended(format), "fs", 1),
            Rule::ColorTargetFormat,
        );
    }
    let d = device_with(Features::RG11B10UFLOAT_RENDERABLE | Features::FLOAT32_BLENDABLE);
    attachment(&d, TextureFormat::Rg11b10Ufloat, 1).unwrap();
    attachment(&d, TextureFormat::Rg11b10Ufloat, 4).unwrap();
    pipeline(&d, &vb, &blended(TextureFormat::Rg11b10Ufloat), "fs", 4).unwrap();
    for format in [TextureFormat::R32Float, TextureFormat::Rgba32Float] {
        pipeline(&d, &vb, &blended(format), "fs", 1).unwrap();
    }
    // Neither feature widens anything else.
    expect_rule(
        attachment(&d, TextureFormat::R8Snorm, 1),
        Rule::TextureFormatUsage,
    );
    expect_rule(
        attachment(&d, TextureFormat::R32Float, 4),
        Rule::TextureFormatUsage,
    );
}

#[test]
fn render_passes_check_their_attachments() {
    let d = device();
    let (_, a) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let small = tex(
        &d,
        TextureDescriptor {
            label: "small",
            size: [8, 8],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        },
    )
    .unwrap();
    let sv = d
        .create_texture_view(small, &TextureViewDescriptor::default())
        .unwrap();
    let sampled = tex(
        &d,
        TextureDescriptor {
            label: "sampled",
            size: [16, 16],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        },
    )
    .unwrap();
    let nv = d
        .create_texture_view(sampled, &TextureViewDescriptor::default())
        .unwrap();
    let color = |view| {
        Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })
    };
    let begin = |atts: &[Option<RenderPassColorAttachment>]| {
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "p",
            color_attachments: atts,
            ..Default::default()
        })
        .map(|_| ())
    };
    assert!(begin(&[color(a)]).is_ok());
    expect_rule(begin(&[]), Rule::PassAttachmentNone);
    expect_rule(begin(&[color(a), color(sv)]), Rule::AttachmentExtent);
    expect_rule(begin(&[color(nv)]), Rule::AttachmentUsage);
    expect_rule(begin(&[color(a), color(a)]), Rule::AttachmentView);
    let (_, ms) = rt(&d, TextureFormat::Rgba8Unorm, 4);
    let resolve = |view, target| {
        Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: Some(target),
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })
    };
    expect_rule(begin(&[resolve(a, ms)]), Rule::ResolveTarget);
    let (_, other) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    assert!(begin(&[resolve(ms, other)]).is_ok());
}

#[test]
fn pipelines_must_match_the_pass_and_draws_their_state() {
    let d = device();
    let a = attrs();
    let vb = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    let p = pipeline(&d, &vb, &target(TextureFormat::Rgba8Unorm), "fs", 1).unwrap();
    let (_, bgra) = rt(&d, TextureFormat::Bgra8Unorm, 1);
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let pass = |e: &mut CommandEncoder<TestApi>, view| {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "p",
            color_attachments: &[Some(loaded(view))],
            ..Default::default()
        })
        .unwrap();
    };
    let mut e = encoder(&d);
    pass(&mut e, bgra);
    expect_rule(e.set_render_pipeline(p), Rule::PipelineTargets);
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    expect_rule(e.draw(0..3, 0..1), Rule::PipelineNotSet);
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    e.set_render_pipeline(p).unwrap();
    let err = expect_rule(e.draw(0..3, 0..1), Rule::VertexBufferNotSet);
    assert!(err.message().contains("vertex buffer slot 0"), "{err}");
    let vbuf = buffer(&d, "vb", 72, BufferUsages::VERTEX);
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vbuf, 0, None).unwrap();
    e.draw(0..3, 0..1).unwrap();
    expect_rule(e.draw(0..4, 0..1), Rule::VertexRange);
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    expect_rule(
        e.set_vertex_buffer(0, storage(&d, 64), 0, None),
        Rule::VertexBufferUsage,
    );
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    expect_rule(e.set_scissor_rect(8, 8, 16, 16), Rule::ScissorRange);
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    expect_rule(
        e.set_viewport(0.0, 0.0, 16.0, 16.0, 0.5, 0.2),
        Rule::ViewportRange,
    );
    let mut e = encoder(&d);
    pass(&mut e, rgba);
    expect_rule(e.draw_indexed(0..3, 0, 0..1), Rule::IndexBufferNotSet);
}

fn color_pass(e: &mut CommandEncoder<TestApi>, view: TextureView) {
    e.begin_render_pass(&RenderPassDescriptor {
        label: "p",
        color_attachments: &[Some(loaded(view))],
        ..Default::default()
    })
    .unwrap();
}

#[test]
fn thirty_two_bit_indices_are_accepted_everywhere() {
    // The test adapter lacks FULL_DRAW_INDEX_UINT32, as Vulkan devices without
    // fullDrawIndexUint32 do; 32-bit indices are accepted all the same, as in WebGPU.
    let d = device();
    assert!(!d.features().contains(Features::FULL_DRAW_INDEX_UINT32));
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let ib = buffer(&d, "ib", 64, BufferUsages::INDEX);
    let mut e = encoder(&d);
    color_pass(&mut e, rgba);
    e.set_index_buffer(ib, IndexFormat::Uint32, 0, None)
        .unwrap();
    e.set_index_buffer(ib, IndexFormat::Uint16, 2, None)
        .unwrap();
    // The offset must still be a multiple of the index size.
    expect_rule(
        e.set_index_buffer(ib, IndexFormat::Uint32, 2, None),
        Rule::IndexBufferRange,
    );
}

fn strip_pipeline(
    d: &TDevice,
    topology: PrimitiveTopology,
    strip: Option<IndexFormat>,
) -> Result<RenderPipeline> {
    let primitive = PrimitiveState {
        topology,
        strip_index_format: strip,
        ..Default::default()
    };
    one_buffer_pipeline(d, primitive, None)
}

/// A pipeline of one vertex buffer of [`attrs`] into one RGBA8 target, with `primitive`
/// and `depth_stencil`.
fn one_buffer_pipeline(
    d: &TDevice,
    primitive: PrimitiveState,
    depth_stencil: Option<DepthStencilState>,
) -> Result<RenderPipeline> {
    let a = attrs();
    let vb = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    pipeline_with_depth(
        d,
        &vb,
        &target(TextureFormat::Rgba8Unorm),
        "fs",
        1,
        primitive,
        depth_stencil,
    )
}

#[test]
fn a_strip_index_format_belongs_to_strips_and_must_match_the_index_buffer() {
    let d = device();
    expect_rule(
        strip_pipeline(
            &d,
            PrimitiveTopology::TriangleList,
            Some(IndexFormat::Uint16),
        ),
        Rule::StripIndexFormatTopology,
    );
    let p = strip_pipeline(
        &d,
        PrimitiveTopology::TriangleStrip,
        Some(IndexFormat::Uint16),
    )
    .unwrap();
    let q = strip_pipeline(&d, PrimitiveTopology::TriangleStrip, None).unwrap();
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let ib = buffer(&d, "ib", 64, BufferUsages::INDEX | BufferUsages::INDIRECT);
    let vb = buffer(&d, "vb", 24 * 16, BufferUsages::VERTEX);
    // A refusal poisons its encoder: one encoder per case.
    let bound = |pipeline, format| {
        let mut e = encoder(&d);
        color_pass(&mut e, rgba);
        e.set_render_pipeline(pipeline).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e.set_index_buffer(ib, format, 0, None).unwrap();
        e
    };
    let mut e = bound(p, IndexFormat::Uint32);
    expect_rule(e.draw_indexed(0..4, 0, 0..1), Rule::StripIndexFormat);
    let mut e = bound(p, IndexFormat::Uint32);
    expect_rule(e.draw_indexed_indirect(ib, 0), Rule::StripIndexFormat);
    let mut e = bound(p, IndexFormat::Uint16);
    e.draw_indexed(0..4, 0, 0..1).unwrap();
    e.draw_indexed_indirect(ib, 0).unwrap();
    // Without a strip index format any index buffer draws (no primitive restart).
    let mut e = bound(q, IndexFormat::Uint32);
    e.draw_indexed(0..4, 0, 0..1).unwrap();
}

#[test]
fn depth_only_attachments_take_no_stencil_operations() {
    let d = device();
    for (format, stencil_ok) in [
        (TextureFormat::Depth32Float, false),
        (TextureFormat::Depth24PlusStencil8, true),
    ] {
        let (_, view) = rt(&d, format, 1);
        let begin = |depth_ops: Option<Operations<f32>>, stencil_ops: Option<Operations<u32>>| {
            let mut e = encoder(&d);
            e.begin_render_pass(&RenderPassDescriptor {
                label: "depth",
                depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                    view,
                    depth_ops,
                    stencil_ops,
                }),
                ..Default::default()
            })
            .map(|()| e)
        };
        let clear = Some(Operations {
            load: LoadOp::Clear(1.0),
            store: StoreOp::Store,
        });
        let stencil = Some(Operations {
            load: LoadOp::Clear(0),
            store: StoreOp::Store,
        });
        // Leaving both out makes the attachment read-only.
        assert!(begin(None, None).is_ok());
        assert!(begin(clear, None).is_ok());
        let r = begin(clear, stencil);
        if stencil_ok {
            assert!(r.is_ok());
        } else {
            expect_rule(r, Rule::AspectOps);
        }
    }
}

#[test]
fn an_attachment_cannot_be_sampled_in_its_own_pass() {
    let d = device();
    let (_, v) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let l = fragment_texture_layout(&d, TextureSampleType::Float { filterable: true });
    let g = group(&d, l, &[(0, BindingResource::TextureView(v))]).unwrap();
    let wgsl = "@group(0) @binding(0) var t: texture_2d<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(t, vec2<i32>(0, 0), 0); }";
    let p = bound_pipeline(&d, l, wgsl, None);
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "p",
        color_attachments: &[Some(loaded(v))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    expect_rule(e.draw(0..3, 0..1), Rule::PassUsageConflict);
}

/// A group layout of one 2D texture of `sample_type` at binding 0, read by fragment shaders.
fn fragment_texture_layout(d: &TDevice, sample_type: TextureSampleType) -> BindGroupLayout {
    layout(
        d,
        &[BindGroupLayoutEntry {
            binding: 0,
            visibility: ShaderStages::FRAGMENT,
            ty: BindingType::Texture {
                sample_type,
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            },
            array: None,
        }],
    )
}

/// A pipeline of `wgsl`'s `vs` and `fs` (no vertex buffers) under a layout of group `l`,
/// into one RGBA8 target, with `depth_stencil`.
fn bound_pipeline(
    d: &TDevice,
    l: BindGroupLayout,
    wgsl: &str,
    depth_stencil: Option<DepthStencilState>,
) -> RenderPipeline {
    let m = d
        .create_shader_module(&ShaderModuleDescriptor { label: "s", wgsl })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "s",
            bind_group_layouts: &[l],
            immediate_size: 0,
        })
        .unwrap();
    let targets = target(TextureFormat::Rgba8Unorm);
    d.create_render_pipeline(&RenderPipelineDescriptor {
        label: "s",
        layout: pl,
        vertex: VertexState {
            module: m,
            entry_point: "vs",
            constants: &[],
            buffers: &[],
        },
        fragment: Some(FragmentState {
            module: m,
            entry_point: "fs",
            constants: &[],
            targets: &targets,
        }),
        primitive: PrimitiveState::default(),
        depth_stencil,
        multisample: MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    })
    .unwrap()
}

/// The strip test's pipeline of `topology` over a `Depth32Float` attachment with `bias`.
fn biased_pipeline(
    d: &TDevice,
    topology: PrimitiveTopology,
    bias: DepthBiasState,
) -> Result<RenderPipeline> {
    let primitive = PrimitiveState {
        topology,
        ..Default::default()
    };
    let depth = DepthStencilState {
        format: TextureFormat::Depth32Float,
        depth_write_enabled: true,
        depth_compare: CompareFunction::Less,
        stencil: StencilState::default(),
        bias,
    };
    one_buffer_pipeline(d, primitive, Some(depth))
}

#[test]
fn a_depth_bias_is_finite_and_only_for_triangles() {
    let d = device();
    let bias = DepthBiasState {
        constant: -4,
        slope_scale: 1.5,
        clamp: 0.01,
    };
    for topology in [
        PrimitiveTopology::TriangleList,
        PrimitiveTopology::TriangleStrip,
    ] {
        biased_pipeline(&d, topology, bias).unwrap();
    }
    for topology in [
        PrimitiveTopology::PointList,
        PrimitiveTopology::LineList,
        PrimitiveTopology::LineStrip,
    ] {
        // Any of the three set counts as a bias; none set is no bias.
        for one in [
            DepthBiasState {
                constant: 1,
                ..DepthBiasState::default()
            },
            DepthBiasState {
                slope_scale: -1.0,
                ..DepthBiasState::default()
            },
            DepthBiasState {
                clamp: 0.5,
                ..DepthBiasState::default()
            },
        ] {
            let err = expect_rule(biased_pipeline(&d, topology, one), Rule::DepthBiasTopology);
            assert!(err.message().contains("draws no triangles"), "{err}");
        }
        biased_pipeline(&d, topology, DepthBiasState::default()).unwrap();
    }
    for odd in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        for bias in [
            DepthBiasState {
                slope_scale: odd,
                ..bias
            },
            DepthBiasState { clamp: odd, ..bias },
        ] {
            expect_rule(
                biased_pipeline(&d, PrimitiveTopology::TriangleList, bias),
                Rule::DepthBiasFinite,
            );
        }
    }
}

/// Opens a render pass on `view` that counts occlusion into `set`.
fn occlusion_pass(e: &mut CommandEncoder<TestApi>, view: TextureView, set: QuerySet) -> Result<()> {
    try_begin_pass(e, view, "counted", Some(set))
}

#[test]
fn occlusion_queries_follow_webgpu_s_rules() {
    let d = device();
    let (_, view) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let set = d.create_occlusion_query_set("occlusion", 4).unwrap();
    expect_rule(d.create_occlusion_query_set("none", 0), Rule::QueryCount);
    expect_rule(
        d.create_occlusion_query_set("too many", 4097),
        Rule::QueryCount,
    );
    // A pass that names no set counts nothing.
    let mut e = encoder(&d);
    color_pass(&mut e, view);
    expect_rule(e.begin_occlusion_query(0), Rule::OcclusionNoSet);
    // Sets are used for their type, both ways.
    let stamps = d.create_query_set("stamps", 2).unwrap();
    let err = expect_rule(
        occlusion_pass(&mut encoder(&d), view, stamps),
        Rule::QueryType,
    );
    assert!(err.message().contains("Timestamp queries"), "{err}");
    expect_rule(encoder(&d).write_timestamp(set, 0), Rule::QueryType);
    // Inside the set, one at a time, each once per pass.
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    expect_rule(e.begin_occlusion_query(4), Rule::QueryRange);
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    expect_rule(e.end_occlusion_query(), Rule::OcclusionNotActive);
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    e.begin_occlusion_query(1).unwrap();
    let err = expect_rule(e.begin_occlusion_query(2), Rule::OcclusionActive);
    assert!(err.message().contains("query 1 is active"), "{err}");
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    e.begin_occlusion_query(1).unwrap();
    e.end_occlusion_query().unwrap();
    expect_rule(e.begin_occlusion_query(1), Rule::OcclusionReused);
    // A pass ends with no query active.
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    e.begin_occlusion_query(3).unwrap();
    let err = expect_rule(e.end_render_pass(), Rule::OcclusionActive);
    assert!(err.message().contains("before the pass ends"), "{err}");
    // Only queries this encoder ended are resolved by it.
    let dst = buffer(
        &d,
        "results",
        256,
        BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
    );
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, set).unwrap();
    e.begin_occlusion_query(0).unwrap();
    e.end_occlusion_query().unwrap();
    e.end_render_pass().unwrap();
    expect_rule(
        e.resolve_query_set(set, 0, 2, dst, 0),
        Rule::QueryNotWritten,
    );
}

#[test]
fn pipeline_statistics_queries_follow_their_rules() {
    use PipelineStatisticsTypes as T;
    let both = T::VERTEX_SHADER_INVOCATIONS | T::FRAGMENT_SHADER_INVOCATIONS;
    // The feature, at least one statistic, 1 to 4,096 queries.
    let err = expect_rule(
        device().create_pipeline_statistics_query_set("s", 2, both),
        Rule::StatisticsFeature,
    );
    assert!(err.message().contains("PIPELINE_STATISTICS_QUERY"), "{err}");
    let d = device_with(Features::PIPELINE_STATISTICS_QUERY);
    expect_rule(
        d.create_pipeline_statistics_query_set("none", 2, T::empty()),
        Rule::StatisticsTypes,
    );
    for count in [0, 4097] {
        expect_rule(
            d.create_pipeline_statistics_query_set("count", count, both),
            Rule::QueryCount,
        );
    }
    let (_, view) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let set = d
        .create_pipeline_statistics_query_set("s", 2, both)
        .unwrap();
    let pass = || {
        let mut e = encoder(&d);
        color_pass(&mut e, view);
        e
    };
    // Inside a pass only, of a statistics set, inside it.
    expect_rule(
        encoder(&d).begin_pipeline_statistics_query(set, 0),
        Rule::PassNotOpen,
    );
    let occlusion = d.create_occlusion_query_set("occlusion", 2).unwrap();
    let err = expect_rule(
        pass().begin_pipeline_statistics_query(occlusion, 0),
        Rule::QueryType,
    );
    assert!(err.message().contains("Occlusion queries"), "{err}");
    expect_rule(occlusion_pass(&mut encoder(&d), view, set), Rule::QueryType);
    expect_rule(encoder(&d).write_timestamp(set, 0), Rule::QueryType);
    expect_rule(
        pass().begin_pipeline_statistics_query(set, 2),
        Rule::QueryRange,
    );
    // One at a time, each once per pass, none active when the pass ends; in a compute pass
    // as in a render pass.
    expect_rule(
        pass().end_pipeline_statistics_query(),
        Rule::StatisticsNotActive,
    );
    let mut e = pass();
    e.begin_pipeline_statistics_query(set, 0).unwrap();
    let err = expect_rule(
        e.begin_pipeline_statistics_query(set, 1),
        Rule::StatisticsActive,
    );
    assert!(err.message().contains("query 0 is active"), "{err}");
    let mut e = pass();
    e.begin_pipeline_statistics_query(set, 1).unwrap();
    e.end_pipeline_statistics_query().unwrap();
    expect_rule(
        e.begin_pipeline_statistics_query(set, 1),
        Rule::StatisticsReused,
    );
    let mut e = pass();
    e.begin_pipeline_statistics_query(set, 1).unwrap();
    let err = expect_rule(e.end_render_pass(), Rule::StatisticsActive);
    assert!(err.message().contains("before the pass ends"), "{err}");
    let mut e = encoder(&d);
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.begin_pipeline_statistics_query(set, 0).unwrap();
    expect_rule(e.end_compute_pass(), Rule::StatisticsActive);
    // An occlusion query may be active beside it (another query type).
    let mut e = encoder(&d);
    occlusion_pass(&mut e, view, occlusion).unwrap();
    e.begin_pipeline_statistics_query(set, 0).unwrap();
    e.begin_occlusion_query(0).unwrap();
    e.end_occlusion_query().unwrap();
    e.end_pipeline_statistics_query().unwrap();
    e.end_render_pass().unwrap();
    // Each query resolves to a u64 per statistic: two queries of two are 32 bytes.
    let dst = buffer(
        &d,
        "results",
        280,
        BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
    );
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.begin_pipeline_statistics_query(set, 1).unwrap();
    e.end_pipeline_statistics_query().unwrap();
    e.end_compute_pass().unwrap();
    expect_rule(e.resolve_query_set(set, 0, 2, dst, 256), Rule::BufferRange);
    let mut e = encoder(&d);
    color_pass(&mut e, view);
    for q in [0, 1] {
        e.begin_pipeline_statistics_query(set, q).unwrap();
        e.end_pipeline_statistics_query().unwrap();
    }
    e.end_render_pass().unwrap();
    e.resolve_query_set(set, 0, 2, dst, 0).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn pipeline_statistics_queries_are_reset_before_every_use() {
    use vigil::hal_test::TestCommand;
    let d = device_with(Features::PIPELINE_STATISTICS_QUERY);
    let (_, view) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let set = d
        .create_pipeline_statistics_query_set(
            "statistics",
            3,
            PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS,
        )
        .unwrap();
    // A render pass resets the queries it begins in front of itself; a compute pass
    // resets each just before it begins it.
    let mut e = encoder(&d);
    color_pass(&mut e, view);
    for q in [0, 1] {
        e.begin_pipeline_statistics_query(set, q).unwrap();
        e.end_pipeline_statistics_query().unwrap();
    }
    e.end_render_pass().unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    for q in [1, 2] {
        e.begin_pipeline_statistics_query(set, q).unwrap();
        e.end_pipeline_statistics_query().unwrap();
    }
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let seen: Vec<String> = last_commands(&d)
        .iter()
        .filter_map(|c| match c {
            TestCommand::BeginPipelineStatisticsQuery(_, q) => Some(format!("begin {q}")),
            TestCommand::EndPipelineStatisticsQuery(_, q) => Some(format!("end {q}")),
            TestCommand::ResetQueries(_, first, n) => Some(format!("reset {first}+{n}")),
            TestCommand::BeginRenderPass(_) => Some("render".into()),
            TestCommand::EndRenderPass => Some("end render".into()),
            TestCommand::BeginComputePass(_) => Some("compute".into()),
            _ => None,
        })
        .collect();
    assert_eq!(
        seen,
        [
            "reset 0+1",
            "reset 1+1",
            "render",
            "begin 0",
            "end 0",
            "begin 1",
            "end 1",
            "end render",
            "compute",
            "reset 1+1",
            "begin 1",
            "end 1",
            "reset 2+1",
            "begin 2",
            "end 2",
        ]
    );
}

#[test]
fn occlusion_queries_are_reset_before_every_use() {
    use vigil::hal_test::TestCommand;
    let d = device();
    let (_, view) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let set = d.create_occlusion_query_set("occlusion", 3).unwrap();
    let dst = buffer(
        &d,
        "results",
        256,
        BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
    );
    let mut e = encoder(&d);
    // The first pass resets the whole set in front of it; the second begins query 1
    // again, so query 1 alone is reset in front of that pass.
    for queries in [&[0, 1][..], &[1, 2]] {
        occlusion_pass(&mut e, view, set).unwrap();
        for &q in queries {
            e.begin_occlusion_query(q).unwrap();
            e.end_occlusion_query().unwrap();
        }
        e.end_render_pass().unwrap();
    }
    e.resolve_query_set(set, 0, 3, dst, 0).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let seen: Vec<String> = last_commands(&d)
        .iter()
        .filter(|c| {
            matches!(
                c,
                TestCommand::ResetQueries(..)
                    | TestCommand::BeginRenderPass(_)
                    | TestCommand::EndRenderPass
                    | TestCommand::BeginOcclusionQuery(..)
                    | TestCommand::EndOcclusionQuery(..)
                    | TestCommand::ResolveQueries(_)
            )
        })
        .map(|c| match c {
            // The set's id is the same throughout; leave it out.
            TestCommand::BeginOcclusionQuery(_, q) => format!("begin {q}"),
            TestCommand::EndOcclusionQuery(_, q) => format!("end {q}"),
            TestCommand::ResetQueries(_, first, n) => format!("reset {first}+{n}"),
            TestCommand::ResolveQueries(_) => "resolve".into(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        seen,
        [
            "reset 0+3",
            r#"BeginRenderPass("counted")"#,
            "begin 0",
            "end 0",
            "begin 1",
            "end 1",
            "EndRenderPass",
            "reset 1+1",
            r#"BeginRenderPass("counted")"#,
            "begin 1",
            "end 1",
            "begin 2",
            "end 2",
            "EndRenderPass",
            "resolve",
        ]
    );
}

/// A depth-stencil pass on `view` (a `Depth24PlusStencil8` target's) with a color target,
/// its aspects read-only where `depth` or `stencil` is false (no operations given).
fn depth_stencil_pass(
    d: &TDevice,
    color: TextureView,
    view: TextureView,
    depth: bool,
    stencil: bool,
) -> CommandEncoder<TestApi> {
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "ds",
        color_attachments: &[Some(loaded(color))],
        depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
            view,
            depth_ops: depth.then_some(Operations {
                load: LoadOp::Load,
                store: StoreOp::Store,
            }),
            stencil_ops: stencil.then_some(Operations {
                load: LoadOp::Load,
                store: StoreOp::Store,
            }),
        }),
        ..Default::default()
    })
    .unwrap();
    e
}

/// A `Depth24PlusStencil8` pipeline that writes depth if `depth`, stencil if `stencil`.
fn ds_writer(d: &TDevice, depth: bool, stencil: bool) -> RenderPipeline {
    let op = if stencil {
        StencilOperation::Replace
    } else {
        StencilOperation::Keep
    };
    let face = StencilFaceState {
        compare: CompareFunction::Always,
        fail_op: StencilOperation::Keep,
        depth_fail_op: StencilOperation::Keep,
        pass_op: op,
    };
    let ds = DepthStencilState {
        format: TextureFormat::Depth24PlusStencil8,
        depth_write_enabled: depth,
        depth_compare: CompareFunction::LessEqual,
        stencil: StencilState {
            front: face,
            back: face,
            ..StencilState::default()
        },
        bias: DepthBiasState::default(),
    };
    one_buffer_pipeline(d, PrimitiveState::default(), Some(ds)).unwrap()
}

#[test]
fn read_only_aspects_refuse_pipelines_that_write_them() {
    let d = device();
    let (_, color) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let (_, ds) = rt(&d, TextureFormat::Depth24PlusStencil8, 1);
    let writes_depth = ds_writer(&d, true, false);
    let writes_stencil = ds_writer(&d, false, true);
    let writes_neither = ds_writer(&d, false, false);
    // A stencil write mask of 0 writes no stencil, whatever the operations.
    let masked = {
        let face = StencilFaceState {
            compare: CompareFunction::Always,
            fail_op: StencilOperation::Zero,
            depth_fail_op: StencilOperation::Zero,
            pass_op: StencilOperation::Replace,
        };
        let ds = DepthStencilState {
            format: TextureFormat::Depth24PlusStencil8,
            depth_write_enabled: false,
            depth_compare: CompareFunction::Always,
            stencil: StencilState {
                front: face,
                back: face,
                read_mask: u32::MAX,
                write_mask: 0,
            },
            bias: DepthBiasState::default(),
        };
        one_buffer_pipeline(&d, PrimitiveState::default(), Some(ds)).unwrap()
    };
    // (depth ops given, stencil ops given) → what each pipeline gets.
    for (depth, stencil) in [(true, true), (false, true), (true, false), (false, false)] {
        for (p, rule) in [
            (writes_depth, (!depth).then_some(Rule::DepthReadOnly)),
            (writes_stencil, (!stencil).then_some(Rule::StencilReadOnly)),
            (writes_neither, None),
            (masked, None),
        ] {
            let mut e = depth_stencil_pass(&d, color, ds, depth, stencil);
            match rule {
                Some(rule) => {
                    expect_rule(e.set_render_pipeline(p), rule);
                }
                None => {
                    e.set_render_pipeline(p).unwrap();
                    e.end_render_pass().unwrap();
                    d.submit([e.finish().unwrap()]).unwrap();
                }
            }
        }
    }
}

#[test]
fn a_read_only_depth_attachment_is_sampled_in_its_own_pass() {
    let d = device();
    let (_, color) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let l = fragment_texture_layout(&d, TextureSampleType::Depth);
    let wgsl = "@group(0) @binding(0) var t: texture_depth_2d;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(textureLoad(t, vec2<i32>(0, 0), 0)); }";
    let pipeline = |format: TextureFormat| {
        let depth = DepthStencilState {
            format,
            depth_write_enabled: false,
            depth_compare: CompareFunction::Less,
            stencil: StencilState::default(),
            bias: DepthBiasState::default(),
        };
        bound_pipeline(&d, l, wgsl, Some(depth))
    };
    for format in [
        TextureFormat::Depth32Float,
        TextureFormat::Depth24PlusStencil8,
    ] {
        let (t, ds) = rt(&d, format, 1);
        let depth_view = d
            .create_texture_view(
                t,
                &TextureViewDescriptor {
                    aspect: TextureAspect::DepthOnly,
                    ..Default::default()
                },
            )
            .unwrap();
        let g = group(&d, l, &[(0, BindingResource::TextureView(depth_view))]).unwrap();
        let p = pipeline(format);
        let stencil_ops = format.info().has_stencil.then_some(Operations {
            load: LoadOp::Load,
            store: StoreOp::Store,
        });
        let draw = |depth_ops: Option<Operations<f32>>, stencil_ops: Option<Operations<u32>>| {
            let mut e = encoder(&d);
            e.begin_render_pass(&RenderPassDescriptor {
                label: "read-only",
                color_attachments: &[Some(loaded(color))],
                depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                    view: ds,
                    depth_ops,
                    stencil_ops,
                }),
                ..Default::default()
            })
            .unwrap();
            e.set_render_pipeline(p).unwrap();
            e.set_bind_group(0, g, &[]).unwrap();
            e.draw(0..3, 0..1).map(|()| e)
        };
        // Every aspect read-only: the attachment and the binding are both reads, in the
        // one layout both are in (moved there in front of the pass).
        let mut e = draw(None, None).unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let all = last_commands(&d);
        let pass = all
            .iter()
            .position(|c| matches!(c, hal_test::TestCommand::BeginRenderPass(_)))
            .unwrap();
        let moved = all[..pass].iter().any(|c| {
            matches!(
                c,
                hal_test::TestCommand::TextureBarrier { new, dst, .. }
                    if *new == TextureLayout::ShaderReadOnly
                        && dst.contains(hal_test::Stages::FRAGMENT_SHADER)
                        && dst.intersects(hal_test::Stages::DEPTH_STENCIL)
            )
        });
        assert!(
            moved,
            "{format:?}: no barrier into the shared read-only layout: {all:?}"
        );
        // Depth written: the binding's read conflicts with the attachment's write.
        let write = Some(Operations {
            load: LoadOp::Load,
            store: StoreOp::Store,
        });
        expect_rule(draw(write, stencil_ops).map(drop), Rule::PassUsageConflict);
        if format.info().has_stencil {
            // Depth read-only but stencil written: the attachment is written as a whole.
            expect_rule(draw(None, stencil_ops).map(drop), Rule::PassUsageConflict);
        }
    }
}

#[test]
fn bundles_state_what_they_leave_read_only() {
    let d = device();
    let (_, color) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let (_, ds) = rt(&d, TextureFormat::Depth24PlusStencil8, 1);
    let bundle = |depth_read_only: bool, stencil_read_only: bool| {
        d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
            label: "b",
            color_formats: &[Some(TextureFormat::Rgba8Unorm)],
            depth_stencil_format: Some(TextureFormat::Depth24PlusStencil8),
            depth_read_only,
            stencil_read_only,
            ..Default::default()
        })
        .unwrap()
    };
    // The bundle's own pipelines are held to its flags.
    expect_rule(
        bundle(true, false).set_render_pipeline(ds_writer(&d, true, false)),
        Rule::DepthReadOnly,
    );
    expect_rule(
        bundle(false, true).set_render_pipeline(ds_writer(&d, false, true)),
        Rule::StencilReadOnly,
    );
    let mut b = bundle(true, true);
    b.set_render_pipeline(ds_writer(&d, false, false)).unwrap();
    let reads = b.finish().unwrap();
    let mut b = bundle(false, false);
    b.set_render_pipeline(ds_writer(&d, true, true)).unwrap();
    let writes = b.finish().unwrap();
    let mut b = bundle(true, false);
    b.set_render_pipeline(ds_writer(&d, false, true)).unwrap();
    let writes_stencil = b.finish().unwrap();
    // (pass depth written, pass stencil written, bundle) → refused with.
    for (depth, stencil, b, rule) in [
        (true, true, reads, None),
        (true, true, writes, None),
        (false, false, reads, None),
        (false, true, writes, Some(Rule::BundleReadOnly)),
        (true, false, writes, Some(Rule::BundleReadOnly)),
        (false, true, writes_stencil, None),
        (true, false, writes_stencil, Some(Rule::BundleReadOnly)),
    ] {
        let mut e = depth_stencil_pass(&d, color, ds, depth, stencil);
        match rule {
            Some(rule) => {
                expect_rule(e.execute_bundles(&[b]), rule);
            }
            None => {
                e.execute_bundles(&[b]).unwrap();
                e.end_render_pass().unwrap();
                d.submit([e.finish().unwrap()]).unwrap();
            }
        }
    }
}

/// A pipeline of [`TRI`] with `ms`, drawing into `targets` with fragment entry point `fs`
/// (no fragment stage for `None`).
fn multisampled(
    d: &TDevice,
    targets: &[Option<ColorTargetState>],
    fs: Option<&str>,
    ms: MultisampleState,
) -> Result<RenderPipeline> {
    let a = attrs();
    let vb = [VertexBufferLayout {
        array_stride: 24,
        step_mode: VertexStepMode::Vertex,
        attributes: &a,
    }];
    tri_pipeline(d, &vb, targets, fs, (PrimitiveState::default(), None, ms))
}

#[test]
fn alpha_to_coverage_needs_samples_and_an_alpha_to_read() {
    let d = device();
    let a2c = |count| MultisampleState {
        count,
        mask: !0,
        alpha_to_coverage_enabled: true,
    };
    let rgba = target(TextureFormat::Rgba8Unorm);
    multisampled(&d, &rgba, Some("fs"), a2c(4)).unwrap();
    // Any mask is taken (bits past the count mean nothing).
    let masked = MultisampleState {
        count: 4,
        mask: 0b0101,
        alpha_to_coverage_enabled: false,
    };
    multisampled(&d, &rgba, Some("fs"), masked).unwrap();
    // A target at index 1 only (unwritten, so the shader needs no output for it).
    let unwritten = [
        None,
        Some(ColorTargetState {
            format: TextureFormat::Rgba8Unorm,
            blend: None,
            write_mask: ColorWrites::empty(),
        }),
    ];
    for (targets, fs, count, why) in [
        (&rgba[..], Some("fs"), 1, "one sample"),
        (
            &target(TextureFormat::Rg8Unorm)[..],
            Some("fs"),
            4,
            "no alpha in the target",
        ),
        (&rgba[..], Some("fs_rgb"), 4, "no alpha in the output"),
        (&[][..], None, 4, "no fragment stage"),
        (&unwritten[..], Some("fs"), 4, "no color target 0"),
    ] {
        let err = expect_rule(
            multisampled(&d, targets, fs, a2c(count)),
            Rule::AlphaToCoverage,
        );
        assert!(
            err.to_string().contains("alpha to coverage"),
            "{why}: {err}"
        );
    }
    // Without alpha to coverage the same pipelines are fine.
    multisampled(
        &d,
        &target(TextureFormat::Rg8Unorm),
        Some("fs"),
        MultisampleState::default(),
    )
    .unwrap();
    multisampled(&d, &rgba, Some("fs_rgb"), MultisampleState::default()).unwrap();
}

#[test]
fn wireframes_points_and_unclipped_depth_need_their_features() {
    let prim = |polygon_mode, unclipped_depth| PrimitiveState {
        polygon_mode,
        unclipped_depth,
        ..Default::default()
    };
    let without = device();
    for (p, rule) in [
        (prim(PolygonMode::Line, false), Rule::PolygonModeFeature),
        (prim(PolygonMode::Point, false), Rule::PolygonModeFeature),
        (prim(PolygonMode::Fill, true), Rule::UnclippedDepthFeature),
    ] {
        let err = expect_rule(one_buffer_pipeline(&without, p, None), rule);
        assert!(
            err.to_string().contains("POLYGON_MODE") || err.to_string().contains("DEPTH_CLIP"),
            "{err}"
        );
    }
    one_buffer_pipeline(&without, prim(PolygonMode::Fill, false), None).unwrap();
    // Each feature grants only its own.
    let line = device_with(Features::POLYGON_MODE_LINE);
    one_buffer_pipeline(&line, prim(PolygonMode::Line, false), None).unwrap();
    expect_rule(
        one_buffer_pipeline(&line, prim(PolygonMode::Point, false), None),
        Rule::PolygonModeFeature,
    );
    let point = device_with(Features::POLYGON_MODE_POINT);
    one_buffer_pipeline(&point, prim(PolygonMode::Point, false), None).unwrap();
    let clip = device_with(Features::DEPTH_CLIP_CONTROL);
    one_buffer_pipeline(&clip, prim(PolygonMode::Fill, true), None).unwrap();
    expect_rule(
        one_buffer_pipeline(&clip, prim(PolygonMode::Line, true), None),
        Rule::PolygonModeFeature,
    );
}

#[test]
fn counted_draws_need_their_features_and_lie_in_their_buffers() {
    let counted = Features::MULTI_DRAW_INDIRECT_COUNT | Features::INDIRECT_FIRST_INSTANCE;
    // A pass with a pipeline, a vertex buffer and an index buffer bound on `d`.
    let bound_on = |d: &TDevice, args: Buffer| {
        let p = one_buffer_pipeline(d, PrimitiveState::default(), None).unwrap();
        let (_, rgba) = rt(d, TextureFormat::Rgba8Unorm, 1);
        let vb = buffer(d, "vb", 24 * 16, BufferUsages::VERTEX);
        let mut e = encoder(d);
        color_pass(&mut e, rgba);
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e.set_index_buffer(args, IndexFormat::Uint32, 0, None)
            .unwrap();
        e
    };
    let usage = BufferUsages::INDEX | BufferUsages::INDIRECT;
    // Without the feature.
    {
        let d = device_with(Features::INDIRECT_FIRST_INSTANCE);
        let args = buffer(&d, "args", 64, usage);
        let err = expect_rule(
            bound_on(&d, args).multi_draw_indirect_count(args, 0, args, 60, 1),
            Rule::DrawCountFeature,
        );
        assert!(
            err.to_string().contains("MULTI_DRAW_INDIRECT_COUNT"),
            "{err}"
        );
        expect_rule(
            bound_on(&d, args).multi_draw_indexed_indirect_count(args, 0, args, 60, 1),
            Rule::DrawCountFeature,
        );
    }
    let d = device_with(counted);
    let args = buffer(&d, "args", 64, usage);
    let count = buffer(&d, "count", 8, BufferUsages::INDIRECT);
    let plain = buffer(&d, "plain", 8, BufferUsages::COPY_DST);
    let many = buffer(&d, "many", 1025 * 20, usage);
    let bound = || bound_on(&d, args);
    // 64 bytes hold four 16-byte draws or three 20-byte indexed ones; the count is 4 bytes
    // at a multiple of 4 inside an INDIRECT buffer.
    for (result, rule) in [
        (
            bound().multi_draw_indirect_count(args, 0, count, 0, 5),
            Rule::BufferRange,
        ),
        (
            bound().multi_draw_indexed_indirect_count(args, 0, count, 0, 4),
            Rule::BufferRange,
        ),
        (
            bound().multi_draw_indirect_count(args, 0, count, 6, 1),
            Rule::IndirectAlignment,
        ),
        (
            bound().multi_draw_indirect_count(args, 0, count, 8, 1),
            Rule::BufferRange,
        ),
        (
            bound().multi_draw_indirect_count(args, 0, plain, 0, 1),
            Rule::IndirectUsage,
        ),
        (
            bound().multi_draw_indirect_count(args, 0, count, 0, MAX_MULTI_DRAW_COUNT + 1),
            Rule::MultiDrawCount,
        ),
        // Indexed draws are checked one by one into one scratch buffer's 1,024 slots.
        (
            bound_on(&d, many).multi_draw_indexed_indirect_count(many, 0, count, 0, 1025),
            Rule::DrawCountCheckedMost,
        ),
    ] {
        expect_rule(result, rule);
    }
    bound_on(&d, many)
        .multi_draw_indexed_indirect_count(many, 0, count, 0, 1024)
        .unwrap();
    // The count is clamped on the GPU in front of the pass: a check dispatch reads the
    // count's word and writes at most the call's most into a scratch slot, and one native
    // counted draw reads the slot. None for a most of 0. The count may lie in the
    // arguments' buffer.
    use hal_test::TestCommand as C;
    for (indexed, offset, count_buffer, count_offset, max) in [
        (false, 16, count, 4, 3),
        (true, 20, count, 0, 2),
        (false, 0, args, 60, 1),
        (false, 0, count, 0, 0),
    ] {
        let mut e = bound();
        if indexed {
            e.multi_draw_indexed_indirect_count(args, offset, count_buffer, count_offset, max)
                .unwrap();
        } else {
            e.multi_draw_indirect_count(args, offset, count_buffer, count_offset, max)
                .unwrap();
        }
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let cmds = last_commands(&d);
        let draws: Vec<_> = cmds
            .iter()
            .filter_map(|c| match c {
                C::DrawIndirectCount {
                    offset,
                    max_count,
                    stride,
                    indexed,
                    ..
                } => Some((*offset, *max_count, *stride, *indexed)),
                _ => None,
            })
            .collect();
        let checks = cmds
            .iter()
            .filter(|c| matches!(c, C::Dispatch([1, 1, 1])))
            .count();
        if max == 0 {
            assert_eq!((draws.len(), checks), (0, 0));
            continue;
        }
        if indexed {
            // Read from the checked copies: scratch slots one after another.
            let [(_, most, stride, true)] = draws[..] else {
                panic!("{draws:?}")
            };
            assert_eq!(most, max);
            assert!(stride >= 32 && stride % 4 == 0, "{stride}");
        } else {
            assert_eq!(draws, [(offset, max, 16, indexed)]);
        }
        // One clamp in front of the pass; indexed, each draw's check too, all in one run
        // (one dispatch, an invocation a draw).
        let runs: Vec<u32> = check_runs(&cmds).iter().map(|r| r[8]).collect();
        let want = if indexed { vec![1, max] } else { vec![1] };
        assert_eq!(runs, want);
        assert_eq!(checks, want.len(), "a workgroup covers each run");
        // The check's immediate data: the count's word, then 0, the most, 0, 0, 0 (the
        // clamp); for indexed draws, then each draw's arguments checked against the bound
        // index range (64 bytes of Uint32: 16 indices).
        let limits = check_immediates(&cmds);
        let mut want = vec![[count_offset as u32 / 4, 0, max, 0, 0, 0]];
        if indexed {
            let first = offset as u32 / 4;
            want.extend((0..max).map(|i| [first + i * 5, 0, 5, 5, 1, 16]));
        }
        assert_eq!(limits, want);
        // The check runs before the pass, the draw in it.
        let at = |f: &dyn Fn(&C) -> bool| cmds.iter().position(f).unwrap();
        assert!(
            at(&|c| matches!(c, C::Dispatch([1, 1, 1])))
                < at(&|c| matches!(c, C::BeginRenderPass(_)))
        );
    }
}

// The seam is the `test-seams` feature's (the suite's command builds with it).
#[cfg(feature = "test-seams")]
#[test]
fn counted_draws_where_first_instances_are_checked_check_each_draw() {
    // As on a device without INDIRECT_FIRST_INSTANCE: each of the most draws' arguments is
    // checked into its own slot, one after another, and the counted draw reads them at the
    // slots' stride; at most 1,024 a call.
    use hal_test::TestCommand as C;
    let d = device_with(Features::MULTI_DRAW_INDIRECT_COUNT | Features::INDIRECT_FIRST_INSTANCE);
    d.seams().check_indirect_first_instance();
    let p = one_buffer_pipeline(&d, PrimitiveState::default(), None).unwrap();
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let vb = buffer(&d, "vb", 24 * 16, BufferUsages::VERTEX);
    let args = buffer(&d, "args", 1025 * 16, BufferUsages::INDIRECT);
    let count = buffer(&d, "count", 8, BufferUsages::INDIRECT);
    let bound = || {
        let mut e = encoder(&d);
        color_pass(&mut e, rgba);
        e.set_render_pipeline(p).unwrap();
        e.set_vertex_buffer(0, vb, 0, None).unwrap();
        e
    };
    expect_rule(
        bound().multi_draw_indirect_count(args, 0, count, 0, 1025),
        Rule::DrawCountCheckedMost,
    );
    let mut e = bound();
    e.multi_draw_indirect_count(args, 32, count, 4, 2).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    // The clamp of the count, then each draw: its word, 0, the first instance's word 3,
    // four words, not indexed.
    assert_eq!(
        check_immediates(&cmds),
        [[1, 0, 2, 0, 0, 0], [8, 0, 3, 4, 0, 0], [12, 0, 3, 4, 0, 0]]
    );
    // The draws' two checks are one run: one dispatch, their slots one after another.
    let runs = check_runs(&cmds);
    assert_eq!(runs.iter().map(|r| r[8]).collect::<Vec<_>>(), [1, 2]);
    let draws: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            C::DrawIndirectCount {
                max_count,
                stride,
                indexed,
                ..
            } => Some((*max_count, *stride, *indexed)),
            _ => None,
        })
        .collect();
    let [(2, stride, false)] = draws[..] else {
        panic!("{draws:?}")
    };
    assert!(stride >= 32 && stride % 4 == 0, "{stride}");
}

/// The immediate data of each indirect check recorded (six words each), in order.
fn check_immediates(cmds: &[hal_test::TestCommand]) -> Vec<[u32; 6]> {
    check_runs(cmds)
        .into_iter()
        .flat_map(|[at, a, b, c, d, e, _, _, count, stride]| {
            (0..count).map(move |i| [at + i * stride, a, b, c, d, e])
        })
        .collect()
}

/// The indirect checks' runs in `cmds`: each dispatch's immediate data (the first check's
/// word and limits, its slot's word, the words between slots, the run's count and the
/// words between its arguments).
fn check_runs(cmds: &[hal_test::TestCommand]) -> Vec<[u32; 10]> {
    cmds.iter()
        .filter_map(|c| match c {
            hal_test::TestCommand::SetImmediates(b) if b.len() == 40 => {
                let word = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
                Some(std::array::from_fn(word))
            }
            _ => None,
        })
        .collect()
}

/// An encoder in a pass on `view` with `p`, vertex buffer `vb` and `indices` (32-bit, whole)
/// bound.
fn indexed_pass(
    d: &TDevice,
    p: RenderPipeline,
    view: TextureView,
    vb: Buffer,
    indices: Buffer,
) -> CommandEncoder<TestApi> {
    let mut e = encoder(d);
    color_pass(&mut e, view);
    e.set_render_pipeline(p).unwrap();
    e.set_vertex_buffer(0, vb, 0, None).unwrap();
    e.set_index_buffer(indices, IndexFormat::Uint32, 0, None)
        .unwrap();
    e
}

#[test]
fn indexed_indirect_checks_go_in_runs_of_one_stride_one_buffer_and_one_index_range() {
    // Draws at 0, 20, 40 (words 0, 5, 10) are one run of three; at 100 and 120 the stride
    // breaks (word 25) and a second run starts; a new index buffer (other limits) starts a
    // third, as does another argument buffer. Each run is one dispatch.
    let d = device_with(Features::INDIRECT_FIRST_INSTANCE);
    let p = one_buffer_pipeline(&d, PrimitiveState::default(), None).unwrap();
    let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
    let usage = BufferUsages::INDEX | BufferUsages::INDIRECT;
    let args = buffer(&d, "args", 256, usage);
    let other = buffer(&d, "other", 256, usage);
    let vb = buffer(&d, "vb", 24 * 16, BufferUsages::VERTEX);
    let mut e = indexed_pass(&d, p, rgba, vb, args);
    for at in [0, 20, 40, 100, 120] {
        e.draw_indexed_indirect(args, at).unwrap();
    }
    e.set_index_buffer(args, IndexFormat::Uint32, 0, Some(64))
        .unwrap();
    e.draw_indexed_indirect(args, 140).unwrap();
    e.draw_indexed_indirect(other, 160).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let runs: Vec<[u32; 3]> = check_runs(&cmds)
        .iter()
        .map(|r| [r[0], r[8], r[9]])
        .collect();
    // (first word, count, stride in words): 64 indices bound, then 16.
    assert_eq!(runs, [[0, 3, 5], [25, 2, 5], [35, 1, 0], [40, 1, 0]]);
    let limits: Vec<u32> = check_runs(&cmds).iter().map(|r| r[5]).collect();
    assert_eq!(limits, [64, 64, 16, 16]);
    // Their slots one after another, the draws reading them in order.
    let slots: Vec<u32> = check_runs(&cmds).iter().map(|r| r[6]).collect();
    let step = check_runs(&cmds)[0][7];
    assert_eq!(slots, [0, 3 * step, 5 * step, 6 * step]);
    let dispatches = cmds
        .iter()
        .filter(|c| matches!(c, hal_test::TestCommand::Dispatch([1, 1, 1])))
        .count();
    assert_eq!(dispatches, 4);
}

#[test]
fn multi_draws_lie_in_their_buffer_and_record_each_draw() {
    for features in [
        Features::MULTI_DRAW_INDIRECT | Features::INDIRECT_FIRST_INSTANCE,
        Features::INDIRECT_FIRST_INSTANCE,
    ] {
        let d = device_with(features);
        let p = one_buffer_pipeline(&d, PrimitiveState::default(), None).unwrap();
        let (_, rgba) = rt(&d, TextureFormat::Rgba8Unorm, 1);
        let args = buffer(&d, "args", 64, BufferUsages::INDEX | BufferUsages::INDIRECT);
        let vb = buffer(&d, "vb", 24 * 16, BufferUsages::VERTEX);
        // A refusal poisons its encoder: one encoder per case.
        let bound = || indexed_pass(&d, p, rgba, vb, args);
        // 64 bytes hold four 16-byte draws or three 20-byte indexed ones.
        expect_rule(bound().multi_draw_indirect(args, 0, 5), Rule::BufferRange);
        expect_rule(bound().multi_draw_indirect(args, 16, 4), Rule::BufferRange);
        expect_rule(
            bound().multi_draw_indexed_indirect(args, 0, 4),
            Rule::BufferRange,
        );
        expect_rule(
            bound().multi_draw_indirect(args, 0, MAX_MULTI_DRAW_COUNT + 1),
            Rule::MultiDrawCount,
        );
        // Each draw is recorded, at its own offset; none for a count of 0. Indexed draws'
        // arguments are checked against the bound index range (16 indices) in front of
        // the pass, one check each, and each draw reads its checked copy: slots one after
        // another of a scratch buffer.
        for (indexed, count, stride) in [(false, 4, 16), (true, 3, 20), (false, 0, 16)] {
            let mut e = bound();
            if indexed {
                e.multi_draw_indexed_indirect(args, 0, count).unwrap();
            } else {
                e.multi_draw_indirect(args, 0, count).unwrap();
            }
            e.end_render_pass().unwrap();
            d.submit([e.finish().unwrap()]).unwrap();
            let cmds = last_commands(&d);
            let draws: Vec<(_, u64)> = cmds
                .iter()
                .filter_map(|c| match c {
                    hal_test::TestCommand::DrawIndirect(b, o) if !indexed => Some((*b, *o)),
                    hal_test::TestCommand::DrawIndexedIndirect(b, o) if indexed => Some((*b, *o)),
                    _ => None,
                })
                .collect();
            let offsets: Vec<u64> = draws.iter().map(|&(_, o)| o).collect();
            let checks = check_immediates(&cmds);
            if !indexed {
                let want: Vec<u64> = (0..u64::from(count)).map(|i| i * stride).collect();
                assert_eq!(offsets, want, "{features:?} indexed {indexed}");
                assert!(checks.is_empty());
                continue;
            }
            assert_eq!(draws.len(), 3);
            assert!(draws.iter().all(|&(b, _)| b == draws[0].0));
            let step = offsets[1] - offsets[0];
            assert!(step >= 20 && offsets[2] - offsets[1] == step, "{offsets:?}");
            // Word, 0, first instance unchecked (its word is the count of words), five
            // words, indexed, 16 indices.
            let want: Vec<[u32; 6]> = (0..3).map(|i| [i * 5, 0, 5, 5, 1, 16]).collect();
            assert_eq!(checks, want, "{features:?}");
        }
    }
}

fn bc(d: &TDevice, format: TextureFormat, size: [u32; 2], mips: u32) -> Result<Texture> {
    tex(
        d,
        TextureDescriptor {
            label: "bc",
            size,
            mip_level_count: mips,
            format,
            usage: TextureUsages::TEXTURE_BINDING
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST,
            ..Default::default()
        },
    )
}

#[test]
fn bc_textures_need_their_feature_whole_blocks_and_sampling_usages() {
    let plain = device();
    for format in TextureFormat::BC {
        assert!(format.is_compressed() && format.info().block == [4, 4]);
        let e = expect_rule(bc(&plain, format, [8, 8], 1), Rule::TextureFormatFeature);
        assert!(e.to_string().contains("TEXTURE_COMPRESSION_BC"), "{e}");
    }
    let d = device_with(Features::TEXTURE_COMPRESSION_BC);
    let f = TextureFormat::Bc7RgbaUnorm;
    bc(&d, f, [8, 8], 4).unwrap();
    for size in [[6, 8], [8, 2], [1, 1]] {
        expect_rule(bc(&d, f, size, 1), Rule::TextureBlockSize);
    }
    for usage in [
        TextureUsages::RENDER_ATTACHMENT,
        TextureUsages::STORAGE_BINDING,
    ] {
        let t = tex(
            &d,
            TextureDescriptor {
                label: "bc",
                size: [8, 8],
                format: f,
                usage: usage | TextureUsages::TEXTURE_BINDING,
                ..Default::default()
            },
        );
        expect_rule(t, Rule::TextureFormatUsage);
    }
}

#[test]
fn bc_copies_are_whole_blocks_inside_the_mip_s_blocks() {
    let d = device_with(Features::TEXTURE_COMPRESSION_BC);
    let f = TextureFormat::Bc1RgbaUnorm;
    // 8x8 with levels 8, 4, 2, 1: the last two are one block each.
    let t = bc(&d, f, [8, 8], 4).unwrap();
    let at = |x, y, mip| TexelCopyTextureInfo {
        mip_level: mip,
        origin: [x, y],
        ..Default::default()
    };
    let tight = |bytes_per_row| TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row,
        rows_per_image: None,
    };
    let blocks = vec![7u8; 8 * 4];
    // Whole blocks: two block rows of two blocks.
    d.write_texture(t, at(0, 0, 0), &blocks, tight(16), [8, 8, 1])
        .unwrap();
    // Off a block's corner, or part of a block.
    expect_rule(
        d.write_texture(t, at(2, 0, 0), &blocks, tight(16), [4, 4, 1]),
        Rule::CopyBlock,
    );
    expect_rule(
        d.write_texture(t, at(0, 0, 0), &blocks, tight(16), [6, 8, 1]),
        Rule::CopyBlock,
    );
    // A level smaller than a block is copied as the whole block, and no more.
    for mip in [2, 3] {
        d.write_texture(t, at(0, 0, mip), &blocks[..8], tight(8), [4, 4, 1])
            .unwrap();
        assert_eq!(d.read_texture(t, at(0, 0, mip), [4, 4]).unwrap().len(), 8);
        expect_rule(
            d.write_texture(t, at(0, 0, mip), &blocks, tight(16), [8, 4, 1]),
            Rule::CopyBox,
        );
    }
    // Data is counted in blocks: two block rows of 16 bytes need 32.
    expect_rule(
        d.write_texture(t, at(0, 0, 0), &blocks[..31], tight(16), [8, 8, 1]),
        Rule::TextureWriteData,
    );
    // Encoder copies: a buffer offset that is a multiple of 4 but not of the block's 8
    // bytes; rows of blocks between images.
    let b = buffer(&d, "b", 1024, BufferUsages::COPY_SRC);
    let layout = |offset, rows_per_image| TexelCopyBufferLayout {
        offset,
        bytes_per_row: 256,
        rows_per_image,
    };
    // (A refused call poisons its encoder: each refusal gets a fresh one.)
    let copy = |layout, t, size| {
        let mut e = encoder(&d);
        e.copy_buffer_to_texture(b, layout, t, at(0, 0, 0), size)?;
        e.finish().map(|_| ())
    };
    expect_rule(copy(layout(4, None), t, [8, 8, 1]), Rule::CopyAlignment);
    copy(layout(8, None), t, [8, 8, 1]).unwrap();
    // Two block rows end 256 + 16 bytes after the offset: 1024 - 752 is just enough.
    copy(layout(752, None), t, [8, 8, 1]).unwrap();
    expect_rule(copy(layout(760, None), t, [8, 8, 1]), Rule::CopyLayout);
    // Layers need images of at least the box's block rows (2).
    let layered = tex(
        &d,
        TextureDescriptor {
            label: "layers",
            size: [8, 8],
            array_layers: 2,
            format: f,
            usage: TextureUsages::COPY_DST,
            ..Default::default()
        },
    )
    .unwrap();
    copy(layout(0, Some(2)), layered, [8, 8, 2]).unwrap();
    expect_rule(
        copy(layout(0, Some(1)), layered, [8, 8, 2]),
        Rule::CopyLayout,
    );
}

#[test]
fn bc_texture_copies_run_past_both_edges_or_neither() {
    let d = device_with(Features::TEXTURE_COMPRESSION_BC);
    let f = TextureFormat::Bc1RgbaUnorm;
    // Level 1 of an 8x8 texture is 4x4 (whole); level 2 of a 12x12 is 3x3 (one block
    // reaching past it); level 2 of an 8x8 is 2x2.
    let a = bc(&d, f, [8, 8], 3).unwrap();
    let b = bc(&d, f, [12, 12], 3).unwrap();
    let at = |mip| TexelCopyTextureInfo {
        mip_level: mip,
        ..Default::default()
    };
    let copy = |src, src_mip, dst, dst_mip| {
        let mut e = encoder(&d);
        e.copy_texture_to_texture(src, at(src_mip), dst, at(dst_mip), [4, 4, 1])?;
        e.finish().map(|_| ())
    };
    copy(a, 1, b, 0).unwrap();
    // 2x2 texels of one level, 3x3 of the other; 4x4 of one, 3x3 of the other.
    expect_rule(copy(a, 2, b, 2), Rule::CopyBlock);
    expect_rule(copy(a, 1, b, 2), Rule::CopyBlock);
    let c = bc(&d, f, [8, 8], 3).unwrap();
    copy(a, 2, c, 2).unwrap();
}

#[test]
fn sixteen_bit_norm_formats_need_their_feature() {
    let plain = device();
    let d = device_with(Features::TEXTURE_FORMAT_16BIT_NORM);
    for format in TextureFormat::NORM16 {
        let desc = TextureDescriptor {
            label: "norm16",
            size: [4, 4],
            format,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        };
        let e = expect_rule(tex(&plain, desc), Rule::TextureFormatFeature);
        assert!(e.to_string().contains("TEXTURE_FORMAT_16BIT_NORM"), "{e}");
        tex(&d, desc).unwrap();
        // Nor, without the feature, a bundle's (or a pipeline's) target format.
        let bundle = |d: &TDevice| {
            d.create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                label: "norm16",
                color_formats: &[Some(format)],
                ..Default::default()
            })
            .map(|_| ())
        };
        expect_rule(bundle(&plain), Rule::BundleAttachments);
        bundle(&d).unwrap();
        // Never a storage texture: WGSL has no such storage format.
        let storage = TextureDescriptor {
            usage: TextureUsages::STORAGE_BINDING,
            ..desc
        };
        expect_rule(tex(&d, storage), Rule::TextureFormatUsage);
    }
}

#[test]
fn depth32float_stencil8_needs_its_feature() {
    let desc = TextureDescriptor {
        label: "d32s8",
        size: [4, 4],
        format: TextureFormat::Depth32FloatStencil8,
        usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
        ..Default::default()
    };
    let e = expect_rule(tex(&device(), desc), Rule::TextureFormatFeature);
    assert!(e.to_string().contains("DEPTH32FLOAT_STENCIL8"), "{e}");
    tex(&device_with(Features::DEPTH32FLOAT_STENCIL8), desc).unwrap();
}

#[test]
fn bc_srgb_twins_view_and_copy_as_one_format() {
    let d = device_with(Features::TEXTURE_COMPRESSION_BC);
    let a = bc(&d, TextureFormat::Bc7RgbaUnorm, [8, 8], 1).unwrap();
    let b = bc(&d, TextureFormat::Bc7RgbaUnormSrgb, [8, 8], 1).unwrap();
    let c = bc(&d, TextureFormat::Bc3RgbaUnorm, [8, 8], 1).unwrap();
    let view = |t, f| {
        d.create_texture_view(
            t,
            &TextureViewDescriptor {
                format: Some(f),
                ..Default::default()
            },
        )
    };
    view(a, TextureFormat::Bc7RgbaUnormSrgb).unwrap();
    view(b, TextureFormat::Bc7RgbaUnorm).unwrap();
    expect_rule(view(a, TextureFormat::Bc3RgbaUnormSrgb), Rule::ViewFormat);
    // BC4 to BC6H have no twin.
    let r = bc(&d, TextureFormat::Bc4RUnorm, [8, 8], 1).unwrap();
    expect_rule(view(r, TextureFormat::Bc4RSnorm), Rule::ViewFormat);
    let at = TexelCopyTextureInfo::default();
    let copy = |s, t| {
        let mut e = encoder(&d);
        e.copy_texture_to_texture(s, at, t, at, [8, 8, 1])?;
        e.finish().map(|_| ())
    };
    copy(a, b).unwrap();
    expect_rule(copy(a, c), Rule::CopyFormat);
}

#[test]
fn stencil8_has_no_depth_to_test_write_or_copy() {
    let d = device();
    let pipeline = |depth_write_enabled, depth_compare| {
        let state = DepthStencilState {
            format: TextureFormat::Stencil8,
            depth_write_enabled,
            depth_compare,
            stencil: StencilState::default(),
            bias: DepthBiasState::default(),
        };
        one_buffer_pipeline(&d, PrimitiveState::default(), Some(state))
    };
    pipeline(false, CompareFunction::Always).unwrap();
    expect_rule(
        pipeline(true, CompareFunction::Always),
        Rule::DepthStencilFormat,
    );
    expect_rule(
        pipeline(false, CompareFunction::Less),
        Rule::DepthStencilFormat,
    );
    // Copied whole (its one aspect, a byte a texel) or by its stencil aspect; it has no depth.
    let t = tex(
        &d,
        TextureDescriptor {
            label: "s8",
            size: [4, 4],
            format: TextureFormat::Stencil8,
            usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
            ..Default::default()
        },
    )
    .unwrap();
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: 4,
        rows_per_image: None,
    };
    let aspect = |aspect| TexelCopyTextureInfo {
        aspect,
        ..Default::default()
    };
    d.write_texture(t, aspect(TextureAspect::All), &[1; 16], layout, [4, 4, 1])
        .unwrap();
    d.write_texture(
        t,
        aspect(TextureAspect::StencilOnly),
        &[1; 16],
        layout,
        [4, 4, 1],
    )
    .unwrap();
    expect_rule(
        d.write_texture(
            t,
            aspect(TextureAspect::DepthOnly),
            &[1; 64],
            layout,
            [4, 4, 1],
        ),
        Rule::CopyAspect,
    );
}

#[test]
fn float32_formats_filter_only_with_float32_filterable() {
    for (features, filters) in [
        (Features::empty(), false),
        (Features::FLOAT32_FILTERABLE, true),
    ] {
        let d = device_with(features);
        let layout = |filterable| {
            d.create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: "sampled",
                entries: &[BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    array: None,
                }],
            })
            .unwrap()
        };
        for format in [
            TextureFormat::R32Float,
            TextureFormat::Rg32Float,
            TextureFormat::Rgba32Float,
        ] {
            let t = tex(
                &d,
                TextureDescriptor {
                    label: "f32",
                    size: [4, 4],
                    format,
                    usage: TextureUsages::TEXTURE_BINDING,
                    ..Default::default()
                },
            )
            .unwrap();
            let view = d
                .create_texture_view(t, &TextureViewDescriptor::default())
                .unwrap();
            let group = |layout| {
                d.create_bind_group(&BindGroupDescriptor {
                    label: "f32",
                    layout,
                    entries: &[BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::TextureView(view),
                    }],
                })
            };
            // Unfilterable float layouts take them either way.
            group(layout(false)).unwrap();
            let filtering = group(layout(true));
            if filters {
                filtering.unwrap();
            } else {
                expect_rule(filtering, Rule::GroupViewSampleType);
            }
        }
    }
}

fn shaped(
    d: &TDevice,
    dimension: TextureDimension,
    size: [u32; 2],
    layers: u32,
    mips: u32,
) -> Result<Texture> {
    tex(
        d,
        TextureDescriptor {
            label: "shaped",
            dimension,
            size,
            array_layers: layers,
            mip_level_count: mips,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST,
            ..Default::default()
        },
    )
}

#[test]
fn one_and_three_dimensional_textures_are_checked() {
    use TextureDimension::{D1, D2, D3};
    let d = device();
    let l = d.limits().clone();
    // A 3D texture's depth counts toward its mip levels and is within the 3D limit, not
    // max_texture_array_layers.
    assert!(shaped(&d, D3, [4, 4], 16, 5).is_ok());
    expect_rule(shaped(&d, D3, [4, 4], 16, 6), Rule::TextureMipCount);
    assert!(shaped(&d, D3, [2, 2], l.max_texture_array_layers + 1, 1).is_ok());
    expect_rule(
        shaped(&d, D3, [2, 2], l.max_texture_dimension_3d + 1, 1),
        Rule::TextureSizeLimit,
    );
    expect_rule(
        shaped(&d, D3, [l.max_texture_dimension_3d + 1, 2], 2, 1),
        Rule::TextureSizeLimit,
    );
    expect_rule(shaped(&d, D3, [4, 4], 0, 1), Rule::TextureSizeZero);
    // A 1D texture is one row of one layer and one mip level, within its own limit.
    assert!(shaped(&d, D1, [l.max_texture_dimension_1d, 1], 1, 1).is_ok());
    expect_rule(
        shaped(&d, D1, [l.max_texture_dimension_1d + 1, 1], 1, 1),
        Rule::TextureSizeLimit,
    );
    for (size, layers, mips) in [([8, 2], 1, 1), ([8, 1], 2, 1), ([8, 1], 1, 2)] {
        expect_rule(shaped(&d, D1, size, layers, mips), Rule::TextureDimension);
    }
    // Neither is multisampled, depth or compressed; a 1D texture is no render attachment.
    let base = TextureDescriptor {
        label: "t",
        dimension: D3,
        size: [8, 8],
        array_layers: 4,
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::TEXTURE_BINDING,
        ..Default::default()
    };
    for dimension in [D1, D3] {
        let size = if dimension == D1 { [8, 1] } else { [8, 8] };
        let layers = if dimension == D1 { 1 } else { 4 };
        let base = TextureDescriptor {
            dimension,
            size,
            array_layers: layers,
            ..base
        };
        assert!(tex(&d, base).is_ok());
        for bad in [
            TextureDescriptor {
                sample_count: 4,
                usage: TextureUsages::RENDER_ATTACHMENT,
                ..base
            },
            TextureDescriptor {
                format: TextureFormat::Depth32Float,
                ..base
            },
        ] {
            expect_rule(tex(&d, bad), Rule::TextureDimension);
        }
        let rendered = tex(
            &d,
            TextureDescriptor {
                usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
                ..base
            },
        );
        if dimension == D1 {
            expect_rule(rendered, Rule::TextureDimension);
        } else {
            assert!(rendered.is_ok(), "{rendered:?}");
        }
    }
    let bc = device_with(Features::TEXTURE_COMPRESSION_BC);
    expect_rule(
        tex(
            &bc,
            TextureDescriptor {
                format: TextureFormat::Bc1RgbaUnorm,
                ..base
            },
        ),
        Rule::TextureDimension,
    );
    // What it was created with comes back, the dimension among it.
    let t = tex(&d, base).unwrap();
    assert_eq!(d.texture_descriptor(t).unwrap().descriptor(), base);

    // Views: a 1D or 3D texture is viewed whole in its own dimension, and only it so.
    let volume = shaped(&d, D3, [8, 8], 4, 2).unwrap();
    let row = shaped(&d, D1, [8, 1], 1, 1).unwrap();
    let flat = shaped(&d, D2, [8, 8], 4, 1).unwrap();
    let view = |t, dimension, base_array_layer, array_layer_count| {
        d.create_texture_view(
            t,
            &TextureViewDescriptor {
                dimension,
                base_array_layer,
                array_layer_count,
                ..Default::default()
            },
        )
    };
    assert!(view(volume, None, 0, None).is_ok());
    assert!(view(volume, Some(TextureViewDimension::D3), 0, Some(1)).is_ok());
    assert!(view(row, None, 0, None).is_ok());
    assert!(view(row, Some(TextureViewDimension::D1), 0, None).is_ok());
    for (t, dimension) in [
        (volume, TextureViewDimension::D2),
        (volume, TextureViewDimension::D2Array),
        (volume, TextureViewDimension::D1),
        (row, TextureViewDimension::D2),
        (row, TextureViewDimension::D3),
        (flat, TextureViewDimension::D3),
        (flat, TextureViewDimension::D1),
    ] {
        expect_rule(view(t, Some(dimension), 0, None), Rule::ViewDimension);
    }
    // A volume's slices are not layers.
    expect_rule(view(volume, None, 1, None), Rule::ViewLayerRange);
    expect_rule(view(volume, None, 0, Some(4)), Rule::ViewLayerRange);

    // Copies: a volume's third coordinate is its slices, which each mip level halves.
    let at = |z, mip| TexelCopyTextureInfo {
        mip_level: mip,
        array_layer: z,
        ..Default::default()
    };
    let texel = [7u8; 4];
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: 4,
        rows_per_image: Some(1),
    };
    assert!(
        d.write_texture(volume, at(3, 0), &texel, layout, [1, 1, 1])
            .is_ok()
    );
    assert!(
        d.write_texture(volume, at(1, 1), &texel, layout, [1, 1, 1])
            .is_ok()
    );
    expect_rule(
        d.write_texture(volume, at(2, 1), &texel, layout, [1, 1, 1]),
        Rule::CopyBox,
    );
    expect_rule(
        d.write_texture(volume, at(4, 0), &texel, layout, [1, 1, 1]),
        Rule::CopyBox,
    );
    // (The test backend keeps no texels: a device test reads them back.)
    assert_eq!(d.read_texture(volume, at(3, 0), [1, 1]).unwrap().len(), 4);
    // Copies join textures of one dimension, or 2D and 3D ones.
    let copy = |src, dst, size: [u32; 3]| {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .unwrap();
        e.copy_texture_to_texture(src, at(0, 0), dst, at(0, 0), size)
    };
    assert!(copy(volume, flat, [8, 8, 4]).is_ok());
    assert!(copy(flat, volume, [8, 8, 4]).is_ok());
    expect_rule(copy(volume, flat, [8, 8, 5]), Rule::CopyBox);
    let row2 = shaped(&d, D1, [8, 1], 1, 1).unwrap();
    assert!(copy(row, row2, [8, 1, 1]).is_ok());
    expect_rule(copy(row, flat, [8, 1, 1]), Rule::CopyDimension);
    expect_rule(copy(volume, row, [8, 1, 1]), Rule::CopyDimension);

    // A pass renders one slice of a 3d view's level, named; other views name none.
    let target = |dimension, layers| {
        let t = tex(
            &d,
            TextureDescriptor {
                label: "target",
                dimension,
                size: [8, 8],
                array_layers: layers,
                mip_level_count: 2,
                format: TextureFormat::Rgba8Unorm,
                usage: TextureUsages::RENDER_ATTACHMENT,
                ..Default::default()
            },
        )
        .unwrap();
        let view = |base_mip_level| {
            d.create_texture_view(
                t,
                &TextureViewDescriptor {
                    base_mip_level,
                    mip_level_count: Some(1),
                    ..Default::default()
                },
            )
            .unwrap()
        };
        (view(0), view(1))
    };
    let (volume0, volume1) = target(D3, 4);
    let (flat0, _) = target(D2, 1);
    let pass = |view, depth_slice| {
        let mut e = d
            .create_command_encoder(&CommandEncoderDescriptor { label: "pass" })
            .unwrap();
        e.begin_render_pass(&RenderPassDescriptor {
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice,
                resolve_target: None,
                load: LoadOp::Clear([0.0; 4]),
                store: StoreOp::Store,
            })],
            ..Default::default()
        })
        .map(|()| e)
    };
    assert!(pass(volume0, Some(3)).is_ok());
    assert!(pass(volume1, Some(1)).is_ok());
    assert!(pass(flat0, None).is_ok());
    // Level 1 has 2 slices; a 3d view names one; a 2d view names none.
    for (view, depth_slice) in [
        (volume0, Some(4)),
        (volume1, Some(2)),
        (volume0, None),
        (flat0, Some(0)),
    ] {
        expect_rule(pass(view, depth_slice), Rule::AttachmentDepthSlice);
    }
    // A 3d view is no depth-stencil attachment.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "depth" })
        .unwrap();
    expect_rule(
        e.begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                view: volume0,
                depth_ops: None,
                stencil_ops: None,
            }),
            ..Default::default()
        }),
        Rule::AttachmentView,
    );
}
