//! Creating, destroying and inspecting objects.

use crate::recipes::{BROKEN_WGSL, RECIPES, Shape};
use crate::report::FindingKind;
use crate::rng::Rng;
use crate::world::{
    BufferMeta, GroupMeta, LayoutMeta, ModuleMeta, PipelineLayoutMeta, RenderMeta, SamplerMeta,
    TextureMeta, Validity, ViewMeta, World,
};
use std::num::{NonZeroU32, NonZeroU64};
use std::sync::Arc;
use vigil::{
    AddressMode, BindGroupDescriptor, BindGroupEntry, BindGroupLayoutDescriptor,
    BindGroupLayoutEntry, BindGroupPool, BindGroupPoolDescriptor, BindGroupWrite, BindingArray,
    BindingArrayFlags, BindingResource, BindingType, BlendComponent, BlendFactor, BlendOperation,
    BlendState, BufferBinding, BufferBindingType, BufferDescriptor, BufferUsages, ColorTargetState,
    ColorWrites, CompareFunction, ComputePipelineDescriptor, CullMode, DepthBiasState,
    DepthStencilState, FilterMode, FragmentState, FrontFace, IndexFormat, PipelineLayoutDescriptor,
    PrimitiveState, PrimitiveTopology, RenderPipelineDescriptor, Sampler, SamplerBindingType,
    SamplerBorderColor, SamplerDescriptor, ShaderModuleDescriptor, ShaderStages, StencilFaceState,
    StencilOperation, StencilState, StorageTextureAccess, TextureAspect, TextureDescriptor,
    TextureDimension, TextureFormat, TextureSampleType, TextureUsages, TextureView,
    TextureViewDescriptor, TextureViewDimension, VertexAttribute, VertexBufferLayout, VertexFormat,
    VertexState, VertexStepMode,
};

/// Buffers whose contents the GPU reads as counts or indices (indirect arguments, index
/// data). The fuzzer only ever puts small values into them, so that a valid indirect draw
/// cannot ask the GPU for billions of vertices; they are never copy or storage targets.
pub fn controlled(usage: BufferUsages) -> bool {
    usage.intersects(BufferUsages::INDEX | BufferUsages::INDIRECT)
}

/// Keeps controlled buffers controlled: no storage or query-resolve writes into them.
fn tame(usage: BufferUsages) -> BufferUsages {
    if controlled(usage) {
        usage - (BufferUsages::STORAGE | BufferUsages::QUERY_RESOLVE)
    } else {
        usage
    }
}

/// A buffer size the fuzzer can afford to touch: the device limit when small, else a cap.
fn affordable_max(w: &World<'_>) -> u64 {
    w.limits.max_buffer_size.min(64 << 20)
}

pub fn create_buffer(w: &mut World<'_>, r: &mut Rng) {
    if w.buffers.full() {
        return destroy_buffer(w, r);
    }
    let max = w.limits.max_buffer_size;
    let size = match r.below(24) {
        0 => 0,
        1 => affordable_max(w),
        2 => max.saturating_add(1),
        3 => u64::MAX,
        4 => 3,
        5..=8 => 64,
        9..=13 => 256,
        14..=17 => 4096,
        18 => 65536,
        19 => 1 << 20,
        _ => r.below(8192) / 4 * 4 + 4,
    };
    let usage = match r.below(14) {
        0 | 1 => BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        2 => BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        3 => BufferUsages::VERTEX | BufferUsages::COPY_DST,
        4 => BufferUsages::INDEX | BufferUsages::COPY_DST,
        5 => BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        6 => BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        7 => BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        8 => BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        9 => {
            BufferUsages::VERTEX
                | BufferUsages::UNIFORM
                | BufferUsages::STORAGE
                | BufferUsages::COPY_SRC
                | BufferUsages::COPY_DST
        }
        10 => BufferUsages::empty(),
        11 if r.chance(50) => BufferUsages::MAP_READ | BufferUsages::MAP_WRITE,
        11 => BufferUsages::BLAS_INPUT | BufferUsages::COPY_DST | BufferUsages::STORAGE,
        _ => tame(BufferUsages::from_bits_truncate(r.bits(0x3ff))),
    };
    if r.chance(10) && !w.mappings.full() {
        // Mapped at creation: any usage, size a multiple of 4 (else refused).
        let what = format!("create_buffer_mapped(size {size}, {usage:?})");
        w.call("create_buffer_mapped", what, false, |w| {
            let (b, m) = w.device.create_buffer_mapped(&BufferDescriptor {
                label: "fuzz buffer mapped at creation",
                size,
                usage,
            })?;
            w.buffers.add(b, BufferMeta { size, usage });
            w.mappings.add(
                m,
                crate::world::MapMeta {
                    buffer: b,
                    mode: vigil::MapMode::Write,
                    size,
                },
            );
            Ok(())
        });
        return;
    }
    if r.chance(8) && size <= 1 << 20 {
        return create_buffer_init(w, r, size, usage);
    }
    make_buffer(w, size, usage);
}

/// Creates a buffer (one logged call), remembering it when accepted.
pub fn make_buffer(w: &mut World<'_>, size: u64, usage: BufferUsages) -> Option<vigil::Buffer> {
    let what = format!("create_buffer(size {size}, {usage:?})");
    w.call("create_buffer", what, false, |w| {
        let b = w.device.create_buffer(&BufferDescriptor {
            label: "fuzz buffer",
            size,
            usage,
        })?;
        w.buffers.add(b, BufferMeta { size, usage });
        Ok(b)
    })
}

/// A buffer made holding `len` bytes (up to `size`, not always a multiple of 4: the rest
/// of the last word is zero); read back when its usage lets it be, which must give the
/// contents and the zero padding. The contents keep the world's rule that every word is
/// below 16 (see `queue::small_bytes`): a buffer made with bytes of any value, read by an
/// indexed indirect draw in range, asked lavapipe for billions of instances (seed 50039).
fn create_buffer_init(w: &mut World<'_>, r: &mut Rng, size: u64, usage: BufferUsages) {
    let len = if size > 0 && r.chance(30) {
        size - 1 - r.below(size.min(3))
    } else {
        size
    };
    let seed = r.next_u64();
    let contents: Vec<u8> = (0..len)
        .map(|i| {
            let byte = (seed.wrapping_add(i.wrapping_mul(0x9e37)) >> 7) as u8;
            if i % 4 == 0 { byte & 0xf } else { 0 }
        })
        .collect();
    // The buffer's size: the contents padded to whole words.
    let padded = len.next_multiple_of(4);
    let what = format!("create_buffer_init({len} bytes, {usage:?})");
    let Some(b) = w.call("create_buffer_init", what, false, |w| {
        let b = w.device.create_buffer_init(&vigil::BufferInitDescriptor {
            label: "fuzz buffer made with contents",
            contents: &contents,
            usage,
        })?;
        w.buffers.add(
            b,
            BufferMeta {
                size: padded,
                usage,
            },
        );
        Ok(b)
    }) else {
        return;
    };
    if padded == 0
        || !usage.intersects(BufferUsages::MAP_READ | BufferUsages::COPY_SRC)
        || r.chance(50)
    {
        return;
    }
    let what = format!("read_buffer({b:?}, 0, {padded}) after create_buffer_init");
    let Some(bytes) = w.call("read_buffer", what, false, |w| {
        w.device.read_buffer(b, 0, padded)
    }) else {
        return;
    };
    let mut want = contents;
    want.resize(padded as usize, 0);
    if bytes != want {
        let first = bytes.iter().zip(&want).position(|(a, b)| a != b);
        let at = w.calls;
        w.finding(
            FindingKind::WrongData,
            at,
            format!(
                "{b:?}: made by create_buffer_init with {len} bytes ({usage:?}), reads back different from byte {first:?} on"
            ),
        );
    }
}

fn texture_format(r: &mut Rng) -> TextureFormat {
    if r.chance(50) {
        r.pick(&[
            TextureFormat::Rgba8Unorm,
            TextureFormat::Rgba8Unorm,
            TextureFormat::Depth32Float,
            TextureFormat::Depth24PlusStencil8,
        ])
    } else {
        r.pick(&TextureFormat::ALL)
    }
}

pub fn create_texture(w: &mut World<'_>, r: &mut Rng) {
    if w.textures.full() {
        return destroy_texture(w, r);
    }
    let max = w.limits.max_texture_dimension_2d;
    let side = |r: &mut Rng| match r.below(16) {
        0 => 0,
        1 => max.saturating_add(1),
        2 => 1,
        3..=6 => 16,
        7..=10 => 64,
        11 => 3,
        _ => r.pick(&[4, 8, 32]),
    };
    let mut size = [side(r), side(r)];
    if r.chance(3) {
        size = [max, 1];
    }
    let layers_max = w.limits.max_texture_array_layers;
    let layers = match r.below(16) {
        0 => 0,
        1 => layers_max.saturating_add(1),
        2 => 6,
        3 => 12,
        4 => 2,
        _ => 1,
    };
    let full_mips = 32 - size[0].max(size[1]).max(1).leading_zeros();
    let mips = match r.below(12) {
        0 => 0,
        1 => full_mips.saturating_add(1),
        2 | 3 => full_mips,
        4 => 2,
        _ => 1,
    };
    let samples = match r.below(12) {
        0 => 4,
        1 => r.pick(&[0, 2, 8, u32::MAX]),
        _ => 1,
    };
    let format = texture_format(r);
    let usage = match r.below(9) {
        0..=2 => {
            TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::TEXTURE_BINDING
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST
        }
        3 => {
            TextureUsages::STORAGE_BINDING
                | TextureUsages::TEXTURE_BINDING
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST
        }
        4 => TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
        5 => TextureUsages::RENDER_ATTACHMENT,
        6 => TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
        7 => TextureUsages::empty(),
        _ => TextureUsages::from_bits_truncate(r.bits(0x1f)),
    };
    let (mut size, mut usage, mut samples) = (size, usage, samples);
    let (mut layers, mut mips, mut format) = (layers, mips, format);
    let dimension = match r.below(16) {
        0 => TextureDimension::D1,
        1 | 2 => TextureDimension::D3,
        _ => TextureDimension::D2,
    };
    if dimension != TextureDimension::D2 && r.chance(80) {
        // Mostly what a 1D or 3D texture can be (single-sampled, an uncompressed color
        // format, no render attachment; a 1D texture one row of one level), so that its
        // copies, writes and bindings run too, not only its refusals.
        samples = 1;
        usage -= TextureUsages::RENDER_ATTACHMENT;
        if usage.is_empty() {
            usage = TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST;
        }
        let info = format.info();
        if format.is_compressed() || info.has_depth || info.has_stencil {
            format = r.pick(&[
                TextureFormat::Rgba8Unorm,
                TextureFormat::R32Uint,
                TextureFormat::R32Float,
            ]);
        }
        if dimension == TextureDimension::D1 {
            size[1] = 1;
            layers = 1;
            mips = 1;
        } else {
            layers = r.pick(&[1, 2, 4, 16]);
            let full = 32 - size[0].max(size[1]).max(layers).max(1).leading_zeros();
            mips = mips.min(full);
        }
    }
    if format.is_compressed() && r.chance(70) {
        // Mostly what a compressed texture can be (sampled and copied, whole blocks), so
        // that its copies and writes run too, not only its refusals.
        size = size.map(|s| s.checked_next_multiple_of(4).unwrap_or(s).max(4));
        usage = TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
        samples = 1;
    }
    make_texture(w, dimension, size, layers, mips, samples, format, usage);
}

/// Creates a texture (one logged call), remembering it when accepted.
#[allow(clippy::too_many_arguments)]
pub fn make_texture(
    w: &mut World<'_>,
    dimension: TextureDimension,
    size: [u32; 2],
    layers: u32,
    mips: u32,
    samples: u32,
    format: TextureFormat,
    usage: TextureUsages,
) -> Option<vigil::Texture> {
    let what = format!(
        "create_texture({dimension:?}, {}x{}, {layers} layers, {mips} mips, {samples} samples, {format:?}, {usage:?})",
        size[0], size[1]
    );
    w.call("create_texture", what, false, |w| {
        let t = w.device.create_texture(&TextureDescriptor {
            label: "fuzz texture",
            dimension,
            size,
            array_layers: layers,
            mip_level_count: mips,
            sample_count: samples,
            format,
            usage,
        })?;
        w.textures.add(
            t,
            TextureMeta {
                dimension,
                size,
                layers,
                mips,
                samples,
                format,
                usage,
            },
        );
        Ok(t)
    })
}

pub fn create_texture_view(w: &mut World<'_>, r: &mut Rng) {
    if w.views.full() {
        return destroy_view(w, r);
    }
    let (texture, meta, validity) = w.textures.pick(r, w.id);
    let m = meta.unwrap_or(TextureMeta {
        dimension: TextureDimension::D2,
        size: [4, 4],
        layers: 1,
        mips: 1,
        samples: 1,
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::all(),
    });
    let mut desc = TextureViewDescriptor {
        label: "fuzz view",
        ..TextureViewDescriptor::default()
    };
    if r.chance(15) {
        desc.format = Some(texture_format(r));
    }
    if r.chance(30) {
        desc.dimension = Some(r.pick(&[
            TextureViewDimension::D1,
            TextureViewDimension::D2,
            TextureViewDimension::D2Array,
            TextureViewDimension::Cube,
            TextureViewDimension::CubeArray,
            TextureViewDimension::D3,
        ]));
    }
    if r.chance(10) {
        desc.aspect = r.pick(&[TextureAspect::DepthOnly, TextureAspect::StencilOnly]);
    }
    if r.chance(25) {
        desc.base_mip_level = r.edge_u32(m.mips);
    }
    if r.chance(30) {
        desc.mip_level_count = Some(r.edge_u32(m.mips));
    }
    if r.chance(25) {
        desc.base_array_layer = r.edge_u32(m.layers);
    }
    if r.chance(30) {
        desc.array_layer_count = Some(r.edge_u32(m.layers));
    }
    if r.chance(15) {
        desc.usage = Some(TextureUsages::from_bits_truncate(r.bits(0x1f)));
    }
    let dimension = desc.dimension.unwrap_or(match m.dimension {
        TextureDimension::D1 => TextureViewDimension::D1,
        TextureDimension::D3 => TextureViewDimension::D3,
        TextureDimension::D2 if m.layers == 1 => TextureViewDimension::D2,
        TextureDimension::D2 => TextureViewDimension::D2Array,
    });
    let mips = desc
        .mip_level_count
        .unwrap_or(m.mips.saturating_sub(desc.base_mip_level));
    // A 3D texture has one layer; its slices are not layers.
    let tex_layers = if m.dimension == TextureDimension::D3 {
        1
    } else {
        m.layers
    };
    let layers = desc.array_layer_count.unwrap_or(match dimension {
        TextureViewDimension::D2 => 1,
        _ => tex_layers.saturating_sub(desc.base_array_layer),
    });
    let base = desc.base_mip_level.min(31);
    let view_meta = ViewMeta {
        texture,
        format: desc.format.unwrap_or(m.format),
        dimension,
        usage: desc.usage.unwrap_or(m.usage),
        samples: m.samples,
        single: mips == 1 && layers == 1 && dimension == TextureViewDimension::D2,
        extent: [(m.size[0] >> base).max(1), (m.size[1] >> base).max(1)],
    };
    let what = format!("create_texture_view({texture:?}, {desc:?})");
    w.call("create_texture_view", what, validity.invalid(), |w| {
        let v = w.device.create_texture_view(texture, &desc)?;
        w.views.add(v, view_meta);
        Ok(())
    });
}

pub fn create_sampler(w: &mut World<'_>, r: &mut Rng) {
    if w.samplers.full() {
        return destroy_sampler(w, r);
    }
    let filter = |r: &mut Rng| r.pick(&[FilterMode::Nearest, FilterMode::Linear]);
    let address = |r: &mut Rng| {
        r.pick(&[
            AddressMode::ClampToEdge,
            AddressMode::Repeat,
            AddressMode::MirrorRepeat,
            AddressMode::ClampToBorder,
        ])
    };
    let mut desc = SamplerDescriptor {
        label: "fuzz sampler",
        address_modes: [address(r), address(r), address(r)],
        mag_filter: filter(r),
        min_filter: filter(r),
        mipmap_filter: filter(r),
        ..SamplerDescriptor::default()
    };
    if r.chance(20) {
        desc.lod_min_clamp = r.edge_f32(4.0);
    }
    if r.chance(20) {
        desc.lod_max_clamp = r.edge_f32(32.0);
    }
    if r.chance(15) {
        desc.compare = Some(r.pick(&[CompareFunction::Less, CompareFunction::Always]));
    }
    if r.chance(15) {
        desc.anisotropy_clamp = r.pick(&[0, 2, 16, 17, u16::MAX]);
    }
    if r.chance(30) {
        desc.border_color = Some(r.pick(&[
            SamplerBorderColor::TransparentBlack,
            SamplerBorderColor::OpaqueBlack,
            SamplerBorderColor::OpaqueWhite,
            SamplerBorderColor::Zero,
        ]));
    }
    // Refused exactly when a border the device's features do not cover is asked for.
    let features = w.device.features();
    let unsupported = (desc.address_modes.contains(&AddressMode::ClampToBorder)
        && !features.contains(vigil::Features::ADDRESS_MODE_CLAMP_TO_BORDER))
        || (desc.border_color == Some(SamplerBorderColor::Zero)
            && !features.contains(vigil::Features::ADDRESS_MODE_CLAMP_TO_ZERO));
    let comparison = desc.compare.is_some();
    let what = format!("create_sampler({desc:?})");
    w.call("create_sampler", what, unsupported, |w| {
        let s = w.device.create_sampler(&desc)?;
        w.samplers.add(s, SamplerMeta { comparison });
        Ok(())
    });
}

/// A pipeline cache for a pipeline: mostly none, else one of the pool's (now and then a
/// destroyed, null or foreign one).
pub(super) fn some_cache(w: &World<'_>, r: &mut Rng) -> (Option<vigil::PipelineCache>, Validity) {
    if r.chance(75) {
        return (None, Validity::Live);
    }
    let (c, _, v) = w.pipeline_caches.pick(r, w.id);
    (Some(c), v)
}

/// Creates a pipeline cache (empty, from the data a cache gave last, or from that data
/// damaged, cut short, grown or replaced, with or without `fallback`), reads a cache's data,
/// or destroys one.
pub fn pipeline_cache(w: &mut World<'_>, r: &mut Rng) {
    if r.chance(30) && w.pipeline_caches.live_count() > 0 {
        let (c, _, v) = w.pipeline_caches.pick(r, w.id);
        let what = format!("pipeline_cache_data({c:?})");
        w.call("pipeline_cache_data", what, v.invalid(), |w| {
            w.cache_data = Some(w.device.pipeline_cache_data(c)?);
            Ok(())
        });
        return;
    }
    if w.pipeline_caches.full() || r.chance(15) {
        let (c, _, v) = w.pipeline_caches.pick(r, w.id);
        let what = format!("destroy_pipeline_cache({c:?})");
        w.call("destroy_pipeline_cache", what, v.invalid(), |w| {
            w.device.destroy_pipeline_cache(c)?;
            w.pipeline_caches.kill(c);
            Ok(())
        });
        return;
    }
    let saved = w.cache_data.clone();
    // `(data, whether it is what a cache gave)`.
    let (data, whole) = match (r.below(6), saved) {
        (0, _) | (_, None) => (None, true),
        (1 | 2, Some(d)) => (Some(d), true),
        (3, Some(mut d)) => {
            let at = r.below(d.len() as u64) as usize;
            if let Some(b) = d.get_mut(at) {
                *b ^= 1 << r.below(8);
            }
            (Some(d), false)
        }
        (4, Some(mut d)) => {
            if r.chance(50) {
                d.truncate(r.below(d.len() as u64) as usize);
            } else {
                d.push(0);
            }
            (Some(d), false)
        }
        (_, Some(_)) => (Some(b"vigil-pc not really".to_vec()), false),
    };
    let fallback = r.chance(50);
    let what = format!(
        "create_pipeline_cache({:?} bytes, whole {whole}, fallback {fallback})",
        data.as_ref().map(Vec::len)
    );
    w.call("create_pipeline_cache", what, !whole && !fallback, |w| {
        let c = w
            .device
            .create_pipeline_cache(&vigil::PipelineCacheDescriptor {
                label: "fuzz cache",
                data: data.as_deref(),
                fallback,
            })?;
        w.pipeline_caches.add(c, ());
        Ok(())
    });
}

pub fn create_query_set(w: &mut World<'_>, r: &mut Rng) {
    if w.query_sets.full() {
        return destroy_something(w, r);
    }
    let count = r.pick(&[0, 1, 2, 8, 64, 4096, 4097, u32::MAX]);
    if r.chance(25) {
        if w.statistics_sets.full() {
            return destroy_something(w, r);
        }
        // Any statistics, now and then none (refused) or compute invocations alone.
        let types = if r.chance(10) {
            vigil::PipelineStatisticsTypes::empty()
        } else if r.chance(20) {
            vigil::PipelineStatisticsTypes::COMPUTE_SHADER_INVOCATIONS
        } else {
            vigil::PipelineStatisticsTypes::from_bits_truncate(r.below(32) as u8 | 1)
        };
        let what = format!("create_pipeline_statistics_query_set({count}, {types:?})");
        w.call("create_pipeline_statistics_query_set", what, false, |w| {
            let q =
                w.device
                    .create_pipeline_statistics_query_set("fuzz statistics", count, types)?;
            w.statistics_sets.add(q, count);
            Ok(())
        });
        return;
    }
    if r.chance(40) {
        if w.occlusion_sets.full() {
            return destroy_something(w, r);
        }
        let what = format!("create_occlusion_query_set({count})");
        w.call("create_occlusion_query_set", what, false, |w| {
            let q = w
                .device
                .create_occlusion_query_set("fuzz occlusion", count)?;
            w.occlusion_sets.add(q, count);
            Ok(())
        });
        return;
    }
    let what = format!("create_query_set({count})");
    w.call("create_query_set", what, false, |w| {
        let q = w.device.create_query_set("fuzz queries", count)?;
        w.query_sets.add(q, count);
        Ok(())
    });
}

/// A random layout entry (for entries no recipe has).
fn random_entry(r: &mut Rng, binding: u32) -> BindGroupLayoutEntry {
    let visibility = ShaderStages::from_bits_truncate(r.bits(0x7)) | ShaderStages::COMPUTE;
    let visibility = if r.chance(30) {
        ShaderStages::from_bits_truncate(r.bits(0x7))
    } else {
        visibility
    };
    let ty = match r.below(8) {
        0 | 1 => BindingType::Buffer {
            ty: BufferBindingType::Uniform,
            has_dynamic_offset: r.chance(60),
            min_binding_size: if r.chance(30) {
                NonZeroU64::new(r.pick(&[4, 16, 256, 1 << 20, u64::MAX]))
            } else {
                None
            },
        },
        2 | 3 => BindingType::Buffer {
            ty: BufferBindingType::Storage {
                read_only: r.chance(50),
            },
            has_dynamic_offset: r.chance(50),
            min_binding_size: None,
        },
        4 => BindingType::Sampler(r.pick(&[
            SamplerBindingType::Filtering,
            SamplerBindingType::NonFiltering,
            SamplerBindingType::Comparison,
        ])),
        5 => BindingType::Texture {
            sample_type: r.pick(&[
                TextureSampleType::Float { filterable: true },
                TextureSampleType::Depth,
                TextureSampleType::Uint,
            ]),
            view_dimension: r.pick(&[
                TextureViewDimension::D2,
                TextureViewDimension::CubeArray,
                TextureViewDimension::D3,
            ]),
            multisampled: r.chance(20),
        },
        _ => BindingType::StorageTexture {
            access: r.pick(&[
                StorageTextureAccess::WriteOnly,
                StorageTextureAccess::ReadOnly,
                StorageTextureAccess::ReadWrite,
                StorageTextureAccess::Atomic,
            ]),
            format: r.pick(&TextureFormat::ALL),
            view_dimension: TextureViewDimension::D2,
        },
    };
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        array: None,
    }
}

pub fn create_bind_group_layout(w: &mut World<'_>, r: &mut Rng) {
    if w.layouts.full() {
        return destroy_something(w, r);
    }
    let (mut entries, recipe) = if r.chance(80) {
        let i = r.index(RECIPES.len());
        ((RECIPES[i].group)(), Some(i))
    } else if r.chance(50) {
        // Many dynamic offsets: past what the limits (or vigil's own tables) allow.
        let n = r.pick(&[4u32, 8, 9, 16, 17, 24]);
        let storage_from = r.below(u64::from(n) + 1) as u32;
        let entries = (0..n)
            .map(|b| BindGroupLayoutEntry {
                binding: b,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Buffer {
                    ty: if b < storage_from {
                        BufferBindingType::Uniform
                    } else {
                        BufferBindingType::Storage { read_only: true }
                    },
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                array: None,
            })
            .collect();
        (entries, None)
    } else {
        let n = r.below(6) as u32;
        ((0..n).map(|b| random_entry(r, b)).collect(), None)
    };
    let mut recipe = recipe;
    if r.chance(15) && !entries.is_empty() {
        recipe = None;
        let i = r.index(entries.len());
        match r.below(4) {
            0 => entries[i].binding = r.edge_u32(w.limits.max_bindings_per_bind_group),
            1 => {
                let e = entries[i];
                entries.push(e);
            }
            2 => entries[i].visibility = ShaderStages::VERTEX,
            _ => entries[i] = random_entry(r, entries[i].binding),
        }
    }
    if r.chance(12) && !entries.is_empty() {
        // A binding array: counts at the edges, any flags (each needs its feature, which
        // the device may or may not have enabled).
        recipe = None;
        let i = r.index(entries.len());
        entries[i].array = Some(BindingArray {
            count: NonZeroU32::new(r.pick(&[1, 2, 3, 4, 8, 1000, u32::MAX]))
                .unwrap_or(NonZeroU32::MIN),
            flags: BindingArrayFlags::from_bits_truncate(r.bits(0x7)),
        });
    }
    let what = format!("create_bind_group_layout({entries:?})");
    w.call("create_bind_group_layout", what, false, |w| {
        let l = w
            .device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: "fuzz layout",
                entries: &entries,
            })?;
        w.layouts.add(
            l,
            LayoutMeta {
                entries: Arc::from(entries.as_slice()),
                recipe,
            },
        );
        Ok(())
    });
}

/// A live buffer with `usage`, or any pick (possibly invalid).
fn buffer_with(w: &World<'_>, r: &mut Rng, usage: BufferUsages) -> (vigil::Buffer, u64, Validity) {
    if r.chance(90) {
        if let Some((b, m)) = w.buffers.live_where(r, |m| m.usage.contains(usage)) {
            return (b, m.size, Validity::Live);
        }
    }
    let (b, m, v) = w.buffers.pick(r, w.id);
    (b, m.map_or(0, |m| m.size), v)
}

/// A live view (of a live texture) matching `want`, or any pick.
fn view_where(
    w: &World<'_>,
    r: &mut Rng,
    want: impl Fn(&ViewMeta) -> bool,
) -> (vigil::TextureView, Validity) {
    if r.chance(90) {
        if let Some((v, _)) = w
            .views
            .live_where(r, |m| w.textures.is_live(m.texture) && want(m))
        {
            return (v, Validity::Live);
        }
    }
    let (v, _, validity) = w.views.pick(r, w.id);
    (v, validity)
}

/// One resource for layout entry `e`: mostly a fitting live object, at times an edge value
/// or a handle that is not live (then `invalid` is set and `notes` say why).
fn element(
    w: &World<'_>,
    r: &mut Rng,
    e: &BindGroupLayoutEntry,
    invalid: &mut bool,
    notes: &mut Vec<String>,
) -> BindingResource<'static> {
    let align = u64::from(w.limits.min_uniform_buffer_offset_alignment.max(1));
    match e.ty {
        BindingType::AccelerationStructure => {
            let (t, _, v) = w.tlas.pick(r, w.id);
            *invalid |= v.invalid();
            if v.invalid() {
                notes.push(format!("{t:?} is {v:?}"));
            }
            BindingResource::AccelerationStructure(t)
        }
        BindingType::Buffer { ty, .. } => {
            let usage = match ty {
                BufferBindingType::Uniform => BufferUsages::UNIFORM,
                BufferBindingType::Storage { .. } => BufferUsages::STORAGE,
            };
            let (buffer, size, v) = buffer_with(w, r, usage);
            *invalid |= v.invalid();
            if v.invalid() {
                notes.push(format!("{buffer:?} is {v:?}"));
            }
            let (offset, size) = if r.chance(80) {
                (
                    0,
                    if r.chance(70) {
                        None
                    } else {
                        Some(size.min(256))
                    },
                )
            } else {
                (
                    r.edge_u64(size, align),
                    if r.chance(50) {
                        None
                    } else {
                        Some(r.edge_u64(size, 4))
                    },
                )
            };
            BindingResource::Buffer(BufferBinding {
                buffer,
                offset,
                size,
            })
        }
        BindingType::Sampler(kind) => {
            let comparison = kind == SamplerBindingType::Comparison;
            let (s, v) = match w.samplers.live_where(r, |m| m.comparison == comparison) {
                Some((s, _)) if r.chance(90) => (s, Validity::Live),
                _ => {
                    let (s, _, v) = w.samplers.pick(r, w.id);
                    (s, v)
                }
            };
            *invalid |= v.invalid();
            if v.invalid() {
                notes.push(format!("{s:?} is {v:?}"));
            }
            BindingResource::Sampler(s)
        }
        BindingType::Texture { .. } => {
            let (v, validity) = view_where(w, r, |m| {
                m.usage.contains(TextureUsages::TEXTURE_BINDING)
                    && m.dimension == TextureViewDimension::D2
                    && m.samples == 1
                    && m.format == TextureFormat::Rgba8Unorm
            });
            *invalid |= validity.invalid();
            if validity.invalid() {
                notes.push(format!("{v:?} is {validity:?}"));
            }
            BindingResource::TextureView(v)
        }
        BindingType::StorageTexture { .. } => {
            let (v, validity) = view_where(w, r, |m| {
                m.usage.contains(TextureUsages::STORAGE_BINDING)
                    && m.single
                    && m.format == TextureFormat::Rgba8Unorm
            });
            *invalid |= validity.invalid();
            BindingResource::TextureView(v)
        }
    }
}

/// The elements of an array resource, owned, so entries can borrow them.
#[derive(Debug, Default)]
struct Elements {
    buffers: Vec<BufferBinding>,
    samplers: Vec<Sampler>,
    views: Vec<TextureView>,
}

impl Elements {
    /// `n` elements for entry `e` (one kind; of `element`'s making).
    fn make(
        w: &World<'_>,
        r: &mut Rng,
        e: &BindGroupLayoutEntry,
        n: u32,
        invalid: &mut bool,
        notes: &mut Vec<String>,
    ) -> Elements {
        let mut out = Elements::default();
        for _ in 0..n {
            match element(w, r, e, invalid, notes) {
                BindingResource::Buffer(b) => out.buffers.push(b),
                BindingResource::Sampler(s) => out.samplers.push(s),
                BindingResource::TextureView(v) => out.views.push(v),
                _ => {}
            }
        }
        out
    }

    fn resource(&self, ty: &BindingType) -> BindingResource<'_> {
        match ty {
            BindingType::Buffer { .. } => BindingResource::BufferArray(&self.buffers),
            BindingType::Sampler(_) => BindingResource::SamplerArray(&self.samplers),
            _ => BindingResource::TextureViewArray(&self.views),
        }
    }
}

/// How many elements to give an array of `count`: mostly all of it (at most 8), at times
/// fewer or one too many.
fn element_count(r: &mut Rng, count: u32) -> u32 {
    let cap = count.min(8);
    match r.below(10) {
        0 => r.below(u64::from(cap) + 1) as u32,
        1 => cap.saturating_add(1),
        _ => cap,
    }
}

pub fn create_bind_group(w: &mut World<'_>, r: &mut Rng) {
    create_bind_group_in(w, r, None);
}

/// A bind group, in `pool` when given.
fn create_bind_group_in(w: &mut World<'_>, r: &mut Rng, pool: Option<BindGroupPool>) {
    if w.groups.full() {
        return destroy_something(w, r);
    }
    let (layout, meta, validity) = w.layouts.pick(r, w.id);
    let Some(meta) = meta else {
        let what = format!("create_bind_group({layout:?}, no entries)");
        w.call("create_bind_group", what, validity.invalid(), |w| {
            w.device
                .create_bind_group(&BindGroupDescriptor {
                    label: "fuzz group",
                    layout,
                    entries: &[],
                })
                .map(drop)
        });
        return;
    };
    let mut invalid = validity.invalid();
    let mut notes: Vec<String> = Vec::new();
    if validity.invalid() {
        notes.push(format!("{layout:?} is {validity:?}"));
    }
    let arrays: Vec<Option<Elements>> = meta
        .entries
        .iter()
        .map(|e| {
            e.array.map(|a| {
                let n = element_count(r, a.count.get());
                Elements::make(w, r, e, n, &mut invalid, &mut notes)
            })
        })
        .collect();
    let mut entries = Vec::with_capacity(meta.entries.len());
    for (e, array) in meta.entries.iter().zip(arrays.iter()) {
        let resource = match array {
            Some(elements) => elements.resource(&e.ty),
            None => element(w, r, e, &mut invalid, &mut notes),
        };
        entries.push(BindGroupEntry {
            binding: e.binding,
            resource,
        });
    }
    if r.chance(10) {
        // Structural mistakes: a missing, duplicated or extra entry, or the wrong kind.
        // They may drop or replace the invalid handle picked above, so refusal is no
        // longer certain for that reason.
        invalid = false;
        match r.below(4) {
            0 => {
                entries.pop();
            }
            1 => {
                if let Some(e) = entries.first().copied() {
                    entries.push(e);
                }
            }
            2 => entries.push(BindGroupEntry {
                binding: r.edge_u32(16),
                resource: BindingResource::Sampler(w.samplers.pick(r, w.id).0),
            }),
            _ => {
                if let Some(e) = entries.first_mut() {
                    e.resource = BindingResource::TextureView(w.views.pick(r, w.id).0);
                }
            }
        }
    }
    let what = format!("create_bind_group({layout:?}, {pool:?}, {entries:?}) {notes:?}");
    w.call("create_bind_group", what, invalid, |w| {
        let desc = BindGroupDescriptor {
            label: "fuzz group",
            layout,
            entries: &entries,
        };
        let g = match pool {
            Some(p) => w.device.create_bind_group_in(p, &desc)?,
            None => w.device.create_bind_group(&desc)?,
        };
        w.groups.add(
            g,
            GroupMeta {
                entries: meta.entries.clone(),
                recipe: meta.recipe,
            },
        );
        if let Some(p) = pool {
            w.pool_groups.push((p, g));
        }
        Ok(())
    });
}

/// Rewrites elements of a group: mostly fitting resources inside its length, at times
/// past it, of the wrong shape, or into a group something still uses.
pub fn write_bind_group(w: &mut World<'_>, r: &mut Rng) {
    let (group, meta, validity) = w.groups.pick(r, w.id);
    let Some(meta) = meta else {
        return;
    };
    let Some(e) = meta
        .entries
        .get(r.index(meta.entries.len().max(1)))
        .copied()
    else {
        return;
    };
    let mut invalid = validity.invalid();
    let mut notes = Vec::new();
    let first_element = match e.array {
        Some(a) if r.chance(85) => r.below(u64::from(a.count.get().min(8))) as u32,
        Some(a) => r.edge_u32(a.count.get()),
        None if r.chance(90) => 0,
        None => r.edge_u32(4),
    };
    let shaped_as_array = e.array.is_some() != r.chance(5);
    let elements;
    let resource = if shaped_as_array {
        let n = r.pick(&[0, 1, 1, 2, 3]);
        elements = Elements::make(w, r, &e, n, &mut invalid, &mut notes);
        elements.resource(&e.ty)
    } else {
        element(w, r, &e, &mut invalid, &mut notes)
    };
    let writes = [BindGroupWrite {
        binding: e.binding,
        first_element,
        resource,
    }];
    let what = format!("write_bind_group({group:?}, {writes:?}) {notes:?}");
    w.call("write_bind_group", what, invalid, |w| {
        w.device.write_bind_group(group, &writes)
    });
}

/// Bind group pools: made, given groups, reset (staling their groups) and destroyed.
pub fn bind_group_pools(w: &mut World<'_>, r: &mut Rng) {
    match r.below(6) {
        0 => {
            if w.bind_group_pools.full() {
                return;
            }
            w.call(
                "create_bind_group_pool",
                "create_bind_group_pool".into(),
                false,
                |w| {
                    let p = w
                        .device
                        .create_bind_group_pool(&BindGroupPoolDescriptor { label: "fuzz pool" })?;
                    w.bind_group_pools.add(p, ());
                    Ok(())
                },
            );
        }
        1..=3 => {
            let (pool, _, validity) = w.bind_group_pools.pick(r, w.id);
            if validity.invalid() {
                let what = format!("create_bind_group_in({pool:?}) of a pool that is {validity:?}");
                let layout = w.layouts.pick(r, w.id).0;
                w.call("create_bind_group", what, true, |w| {
                    w.device
                        .create_bind_group_in(
                            pool,
                            &BindGroupDescriptor {
                                label: "fuzz group",
                                layout,
                                entries: &[],
                            },
                        )
                        .map(drop)
                });
            } else {
                create_bind_group_in(w, r, Some(pool));
            }
        }
        k => {
            let (pool, _, validity) = w.bind_group_pools.pick(r, w.id);
            let destroy = k == 5;
            let what = format!(
                "{}({pool:?})",
                if destroy {
                    "destroy_bind_group_pool"
                } else {
                    "reset_bind_group_pool"
                }
            );
            w.call("bind_group_pool", what, validity.invalid(), |w| {
                if destroy {
                    w.device.destroy_bind_group_pool(pool)?;
                    w.bind_group_pools.kill(pool);
                } else {
                    w.device.reset_bind_group_pool(pool)?;
                }
                let (gone, kept): (Vec<_>, Vec<_>) =
                    w.pool_groups.drain(..).partition(|(p, _)| *p == pool);
                w.pool_groups = kept;
                for (_, g) in gone {
                    w.groups.kill(g);
                }
                Ok(())
            });
        }
    }
}

pub fn create_pipeline_layout(w: &mut World<'_>, r: &mut Rng) {
    if w.pipeline_layouts.full() {
        return destroy_something(w, r);
    }
    let mut invalid = false;
    let (layouts, recipe) = match r.below(20) {
        0 | 1 => (Vec::new(), None),
        2..=4 => {
            let n = r.pick(&[2, 4, 5, 9]);
            let mut v = Vec::new();
            for _ in 0..n {
                let (l, _, validity) = w.layouts.pick(r, w.id);
                invalid |= validity.invalid();
                v.push(l);
            }
            (v, None)
        }
        _ => {
            let (l, m, validity) = w.layouts.pick(r, w.id);
            invalid |= validity.invalid();
            (vec![l], m.and_then(|m| m.recipe))
        }
    };
    let groups = layouts.len();
    // Mostly none; else a size every pipeline fits (no recipe reads immediates), the
    // limit, or one that is refused.
    let max = w.limits.max_immediate_size;
    let immediate_size = match r.below(10) {
        0..=5 => 0,
        6 | 7 => 16,
        8 => max,
        _ => r.pick(&[6, max.saturating_add(4), u32::MAX]),
    };
    let what = format!("create_pipeline_layout({layouts:?}, immediate_size {immediate_size})");
    w.call("create_pipeline_layout", what, invalid, |w| {
        let p = w.device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "fuzz pipeline layout",
            bind_group_layouts: &layouts,
            immediate_size,
        })?;
        w.pipeline_layouts
            .add(p, PipelineLayoutMeta { recipe, groups });
        Ok(())
    });
}

pub fn create_shader_module(w: &mut World<'_>, r: &mut Rng) {
    if w.modules.full() {
        return destroy_something(w, r);
    }
    if r.chance(10) {
        let wgsl = r.pick(BROKEN_WGSL);
        let what = format!("create_shader_module(broken {wgsl:?})");
        w.call("create_shader_module", what, false, |w| {
            let m = w.device.create_shader_module(&ShaderModuleDescriptor {
                label: "broken",
                wgsl,
            })?;
            // Some of these are valid after all (an empty module is); remember them so
            // they are destroyed like the rest. No recipe uses them (index past the end).
            w.modules.add(m, ModuleMeta { recipe: usize::MAX });
            Ok(())
        });
        return;
    }
    let recipe = r.index(RECIPES.len());
    let what = format!("create_shader_module({})", RECIPES[recipe].name);
    w.call("create_shader_module", what, false, |w| {
        let m = w.device.create_shader_module(&ShaderModuleDescriptor {
            label: RECIPES[recipe].name,
            wgsl: RECIPES[recipe].wgsl,
        })?;
        w.modules.add(m, ModuleMeta { recipe });
        Ok(())
    });
}

/// A pipeline layout fitting `recipe` (one group of its layout, or none when it has no
/// group), or any pick.
fn layout_for(w: &World<'_>, r: &mut Rng, recipe: usize) -> (vigil::PipelineLayout, Validity) {
    let empty_group = (RECIPES[recipe].group)().is_empty();
    if r.chance(90) {
        let found = w.pipeline_layouts.live_where(r, |m| {
            if empty_group {
                m.groups == 0
            } else {
                m.recipe == Some(recipe)
            }
        });
        if let Some((l, _)) = found {
            return (l, Validity::Live);
        }
    }
    let (l, _, v) = w.pipeline_layouts.pick(r, w.id);
    (l, v)
}

/// A module compiling `recipe`, or any pick.
fn module_for(w: &World<'_>, r: &mut Rng, recipe: usize) -> (vigil::ShaderModule, Validity) {
    if r.chance(90) {
        if let Some((m, _)) = w.modules.live_where(r, |m| m.recipe == recipe) {
            return (m, Validity::Live);
        }
    }
    let (m, _, v) = w.modules.pick(r, w.id);
    (m, v)
}

fn pick_recipe(r: &mut Rng, compute: bool) -> usize {
    let matching: Vec<usize> = (0..RECIPES.len())
        .filter(|&i| (RECIPES[i].shape == Shape::Compute) == compute)
        .collect();
    matching[r.index(matching.len())]
}

pub fn create_compute_pipeline(w: &mut World<'_>, r: &mut Rng) {
    if w.compute.full() {
        return destroy_something(w, r);
    }
    let recipe = pick_recipe(r, true);
    let (layout, lv) = layout_for(w, r, recipe);
    let (module, mv) = module_for(w, r, recipe);
    let entry = if r.chance(92) {
        "main"
    } else {
        r.pick(&["vs", "", "nope"])
    };
    // The override recipe needs `add` (no default): mostly values that fit it; the
    // other compute recipes declare none, so mostly none for them.
    let constants = if RECIPES[recipe].name == "override-kernel" && r.chance(75) {
        fitting_overrides(r)
    } else if r.chance(75) {
        Vec::new()
    } else {
        constants(r)
    };
    let (cache, cv) = some_cache(w, r);
    let what = format!(
        "create_compute_pipeline({}, {layout:?}, {module:?}, {entry:?}, {constants:?}, {cache:?})",
        RECIPES[recipe].name
    );
    w.call(
        "create_compute_pipeline",
        what,
        lv.invalid() || mv.invalid() || cv.invalid(),
        |w| {
            let p = w
                .device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: "fuzz compute pipeline",
                    layout,
                    module,
                    entry_point: entry,
                    constants: &constants,
                    cache,
                })?;
            w.compute.add(p, recipe);
            Ok(())
        },
    );
}

/// Constants the override recipe takes: `add` (its `@id(2)`) always, `size` (the
/// workgroup size) and `twice` now and then.
fn fitting_overrides(r: &mut Rng) -> Vec<(&'static str, f64)> {
    let mut c = vec![("2", r.below(9) as f64)];
    if r.chance(50) {
        c.push(("size", r.pick(&[1.0, 8.0, 64.0, 256.0])));
    }
    if r.chance(50) {
        c.push(("twice", r.pick(&[0.0, 1.0])));
    }
    c
}

/// Override constants for a pipeline: mostly none, else values that fit the override
/// recipe (`size`, `2` for `add`, `twice`), keys it lacks, repeated keys and values no
/// type holds, mixed.
fn constants(r: &mut Rng) -> Vec<(&'static str, f64)> {
    if r.chance(60) {
        return Vec::new();
    }
    let keys = ["size", "2", "twice", "add", "", "nope", "2"];
    let values = [
        0.0,
        1.0,
        3.0,
        8.0,
        64.0,
        256.0,
        257.0,
        1e9,
        -1.0,
        0.5,
        4_294_967_296.0,
        f64::NAN,
        f64::INFINITY,
    ];
    let n = r.below(4);
    (0..n).map(|_| (r.pick(&keys), r.pick(&values))).collect()
}

fn blend(r: &mut Rng) -> Option<BlendState> {
    let component = |r: &mut Rng| {
        let factor = |r: &mut Rng| {
            if r.chance(2) {
                // Refused: no recipe writes a second source.
                return BlendFactor::OneMinusSrc1;
            }
            r.pick(&[
                BlendFactor::One,
                BlendFactor::Zero,
                BlendFactor::SrcAlpha,
                BlendFactor::OneMinusSrcAlpha,
                BlendFactor::Constant,
                BlendFactor::OneMinusConstant,
                BlendFactor::SrcAlphaSaturated,
            ])
        };
        BlendComponent {
            src_factor: factor(r),
            dst_factor: factor(r),
            operation: r.pick(&[BlendOperation::Add, BlendOperation::Max]),
        }
    };
    match r.below(4) {
        0 => None,
        1 => Some(BlendState::ALPHA_BLENDING),
        _ => Some(BlendState {
            color: component(r),
            alpha: component(r),
        }),
    }
}

pub fn create_render_pipeline(w: &mut World<'_>, r: &mut Rng) {
    if w.render.full() {
        return destroy_something(w, r);
    }
    let recipe_index = pick_recipe(r, false);
    let recipe = &RECIPES[recipe_index];
    let (layout, lv) = layout_for(w, r, recipe_index);
    let (module, mv) = module_for(w, r, recipe_index);
    let mut attributes: Vec<Vec<VertexAttribute>> = recipe
        .vertex_buffers
        .iter()
        .map(|vb| vb.attributes.to_vec())
        .collect();
    let mut strides: Vec<u64> = recipe.vertex_buffers.iter().map(|vb| vb.stride).collect();
    let mut steps: Vec<VertexStepMode> = recipe.vertex_buffers.iter().map(|vb| vb.step).collect();
    if r.chance(12) && !attributes.is_empty() {
        let i = r.index(attributes.len());
        match r.below(4) {
            0 => strides[i] = r.pick(&[0, 3, 2048, 2052, u64::MAX]),
            1 => {
                if let Some(a) = attributes[i].first_mut() {
                    a.offset = r.pick(&[4, 2044, u64::MAX - 2, u64::MAX]);
                }
            }
            2 => {
                if let Some(a) = attributes[i].first_mut() {
                    a.format = r.pick(&[VertexFormat::Uint32, VertexFormat::Float32x4]);
                    a.shader_location = r.edge_u32(16);
                }
            }
            _ => steps[i] = VertexStepMode::Instance,
        }
    }
    let buffers: Vec<VertexBufferLayout<'_>> = attributes
        .iter()
        .zip(&strides)
        .zip(&steps)
        .map(|((a, &array_stride), &step_mode)| VertexBufferLayout {
            array_stride,
            step_mode,
            attributes: a,
        })
        .collect();
    let shared_blend = blend(r);
    let independent = r.chance(40);
    let mut targets: Vec<Option<ColorTargetState>> = recipe
        .targets
        .iter()
        .map(|&format| {
            Some(ColorTargetState {
                format,
                blend: if independent { blend(r) } else { shared_blend },
                write_mask: if independent && r.chance(50) {
                    ColorWrites::RED | ColorWrites::ALPHA
                } else {
                    ColorWrites::ALL
                },
            })
        })
        .collect();
    if recipe.blend_constant && !targets.is_empty() && r.chance(60) {
        if let Some(Some(t)) = targets.first_mut() {
            t.blend = Some(BlendState {
                color: BlendComponent {
                    src_factor: BlendFactor::Constant,
                    dst_factor: BlendFactor::Zero,
                    operation: BlendOperation::Add,
                },
                alpha: BlendComponent::REPLACE,
            });
        }
    }
    if r.chance(8) && !targets.is_empty() {
        let i = r.index(targets.len());
        targets[i] = Some(ColorTargetState {
            format: r.pick(&TextureFormat::ALL),
            blend: blend(r),
            write_mask: ColorWrites::from_bits_truncate(r.bits(0xf)),
        });
    }
    let stencil_face = |r: &mut Rng| StencilFaceState {
        compare: r.pick(&[
            CompareFunction::Always,
            CompareFunction::Equal,
            CompareFunction::Less,
        ]),
        fail_op: StencilOperation::Keep,
        depth_fail_op: StencilOperation::Keep,
        pass_op: r.pick(&[StencilOperation::Keep, StencilOperation::Replace]),
    };
    let depth_stencil = recipe.depth.map(|format| {
        let format = if r.chance(5) {
            r.pick(&TextureFormat::ALL)
        } else {
            format
        };
        DepthStencilState {
            format,
            depth_write_enabled: r.chance(50),
            depth_compare: r.pick(&[CompareFunction::Less, CompareFunction::Always]),
            stencil: StencilState {
                front: stencil_face(r),
                back: stencil_face(r),
                read_mask: 0xff,
                write_mask: 0xff,
            },
            bias: depth_bias(r),
        }
    });
    let topology = if recipe.points || r.chance(5) {
        PrimitiveTopology::PointList
    } else {
        r.pick(&[
            PrimitiveTopology::TriangleList,
            PrimitiveTopology::TriangleList,
            PrimitiveTopology::TriangleStrip,
            PrimitiveTopology::LineList,
        ])
    };
    let samples = match r.below(10) {
        0 => 4,
        1 => r.pick(&[0, 2, 3]),
        _ => 1,
    };
    let fragment_state = matches!(recipe.shape, Shape::Render { fragment: true }) || r.chance(5);
    // The render recipes declare no overrides: any constant is refused, stage by stage.
    let (vertex_constants, fragment_constants) = if r.chance(95) {
        (Vec::new(), Vec::new())
    } else {
        (constants(r), constants(r))
    };
    let (cache, cv) = some_cache(w, r);
    let desc = RenderPipelineDescriptor {
        label: "fuzz render pipeline",
        layout,
        vertex: VertexState {
            module,
            entry_point: if r.chance(97) { "vs" } else { "main" },
            constants: &vertex_constants,
            buffers: &buffers,
        },
        fragment: fragment_state.then_some(FragmentState {
            module,
            entry_point: "fs",
            constants: &fragment_constants,
            targets: &targets,
        }),
        primitive: PrimitiveState {
            topology,
            front_face: r.pick(&[FrontFace::Ccw, FrontFace::Cw]),
            cull_mode: r.pick(&[CullMode::None, CullMode::Back]),
            // Half the time on a strip; now and then on a list topology, where it is
            // refused.
            strip_index_format: if r.chance(if topology == PrimitiveTopology::TriangleStrip {
                50
            } else {
                8
            }) {
                Some(r.pick(&[IndexFormat::Uint16, IndexFormat::Uint32]))
            } else {
                None
            },
            // Now and then wireframes, points and unclipped depth; seldom where the device
            // lacks their features (and refuses them).
            polygon_mode: if r.chance(10) {
                let mut modes = Vec::new();
                if w.features.contains(vigil::Features::POLYGON_MODE_LINE) || r.chance(20) {
                    modes.push(vigil::PolygonMode::Line);
                }
                if w.features.contains(vigil::Features::POLYGON_MODE_POINT) || r.chance(20) {
                    modes.push(vigil::PolygonMode::Point);
                }
                modes.push(vigil::PolygonMode::Fill);
                modes[r.index(modes.len())]
            } else {
                vigil::PolygonMode::Fill
            },
            unclipped_depth: r.chance(8)
                && (w.features.contains(vigil::Features::DEPTH_CLIP_CONTROL) || r.chance(25)),
        },
        depth_stencil,
        // Now and then a sample mask (any bits) and alpha to coverage, which one-sample
        // pipelines and targets without alpha refuse.
        multisample: vigil::MultisampleState {
            count: samples,
            mask: if r.chance(10) {
                r.pick(&[0, 0b1, 0b1010, u64::MAX << 2])
            } else {
                !0
            },
            alpha_to_coverage_enabled: r.chance(8),
        },
        multiview_mask: if r.chance(3) {
            std::num::NonZeroU32::new(r.pick(&[0b1, 0b11, 1 << 31]))
        } else {
            None
        },
        cache,
    };
    let what = format!("create_render_pipeline({}, {desc:?})", recipe.name);
    w.call(
        "create_render_pipeline",
        what,
        lv.invalid() || mv.invalid() || cv.invalid(),
        |w| {
            let p = w.device.create_render_pipeline(&desc)?;
            w.render.add(
                p,
                RenderMeta {
                    recipe: recipe_index,
                    samples,
                },
            );
            Ok(())
        },
    );
}

fn destroy_buffer(w: &mut World<'_>, r: &mut Rng) {
    let (b, _, v) = w.buffers.pick(r, w.id);
    w.call(
        "destroy_buffer",
        format!("destroy_buffer({b:?})"),
        v.invalid(),
        |w| {
            w.device.destroy_buffer(b)?;
            // Destroying a buffer ends its mapping.
            w.kill_buffer(b);
            Ok(())
        },
    );
}

fn destroy_texture(w: &mut World<'_>, r: &mut Rng) {
    let (t, _, v) = w.textures.pick(r, w.id);
    w.call(
        "destroy_texture",
        format!("destroy_texture({t:?})"),
        v.invalid(),
        |w| {
            w.device.destroy_texture(t)?;
            w.textures.kill(t);
            Ok(())
        },
    );
}

fn destroy_view(w: &mut World<'_>, r: &mut Rng) {
    let (h, _, v) = w.views.pick(r, w.id);
    w.call(
        "destroy_texture_view",
        format!("destroy_texture_view({h:?})"),
        v.invalid(),
        |w| {
            w.device.destroy_texture_view(h)?;
            w.views.kill(h);
            Ok(())
        },
    );
}

fn destroy_sampler(w: &mut World<'_>, r: &mut Rng) {
    let (h, _, v) = w.samplers.pick(r, w.id);
    w.call(
        "destroy_sampler",
        format!("destroy_sampler({h:?})"),
        v.invalid(),
        |w| {
            w.device.destroy_sampler(h)?;
            w.samplers.kill(h);
            Ok(())
        },
    );
}

/// Destroys a random object of a random kind (live mostly; stale, null, foreign and forged
/// handles too).
pub fn destroy_something(w: &mut World<'_>, r: &mut Rng) {
    macro_rules! destroy {
        ($pool:ident, $method:ident) => {{
            let (h, _, v) = w.$pool.pick(r, w.id);
            let what = format!(concat!(stringify!($method), "({:?})"), h);
            w.call(stringify!($method), what, v.invalid(), |w| {
                w.device.$method(h)?;
                w.$pool.kill(h);
                Ok(())
            });
        }};
    }
    match r.below(12) {
        11 => destroy!(bundles, destroy_render_bundle),
        0 => destroy_buffer(w, r),
        1 => destroy_texture(w, r),
        2 => destroy_view(w, r),
        3 => destroy_sampler(w, r),
        4 if r.chance(35) => destroy!(occlusion_sets, destroy_query_set),
        4 if r.chance(40) => destroy!(statistics_sets, destroy_query_set),
        4 => destroy!(query_sets, destroy_query_set),
        5 => destroy!(layouts, destroy_bind_group_layout),
        6 | 7 => destroy!(groups, destroy_bind_group),
        8 => destroy!(pipeline_layouts, destroy_pipeline_layout),
        9 => destroy!(modules, destroy_shader_module),
        _ => {
            if r.chance(50) {
                destroy!(compute, destroy_compute_pipeline)
            } else {
                destroy!(render, destroy_render_pipeline)
            }
        }
    }
}

/// Read-only questions about objects.
pub fn inspect(w: &mut World<'_>, r: &mut Rng) {
    match r.below(5) {
        0 => {
            let (b, _, v) = w.buffers.pick(r, w.id);
            w.call(
                "buffer_size",
                format!("buffer_size({b:?})"),
                v.invalid(),
                |w| w.device.buffer_size(b).map(drop),
            );
        }
        1 => {
            let (t, _, v) = w.textures.pick(r, w.id);
            let what = format!("texture_descriptor({t:?})");
            w.call("texture_descriptor", what, v.invalid(), |w| {
                w.device.texture_descriptor(t).map(drop)
            });
        }
        2 => {
            let (m, _, v) = w.modules.pick(r, w.id);
            let what = format!("shader_reflection({m:?})");
            w.call("shader_reflection", what, v.invalid(), |w| {
                w.device.shader_reflection(m).map(drop)
            });
        }
        3 => {
            w.call("stats", "stats()".into(), false, |w| {
                let _ = w.device.stats();
                let _ = w.device.write_stats();
                let _ = w.device.live_objects();
                Ok(())
            });
        }
        _ => {
            let (b, _, v) = w.buffers.pick(r, w.id);
            w.call(
                "buffer_usage",
                format!("buffer_usage({b:?})"),
                v.invalid(),
                |w| w.device.buffer_usage(b).map(drop),
            );
        }
    }
}

/// A depth bias: mostly none; else constants and slopes of either sign, a clamp now and
/// then, and rarely a value no device takes (NaN, infinite).
fn depth_bias(r: &mut Rng) -> DepthBiasState {
    if r.chance(70) {
        return DepthBiasState::default();
    }
    let odd = |r: &mut Rng| r.pick(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    DepthBiasState {
        constant: r.pick(&[1, -1, 100, -100_000, i32::MAX, i32::MIN]),
        slope_scale: if r.chance(5) {
            odd(r)
        } else {
            r.pick(&[0.0, 1.0, -2.5, 1e6])
        },
        clamp: if r.chance(5) {
            odd(r)
        } else {
            r.pick(&[0.0, 0.0, 0.01, -0.01])
        },
    }
}

/// A texture shared with a second device over the same native device: exported (live or
/// not, a surface's frame now and then), registered there, read back through the
/// registration now and then (the read waits for this device's work on it), and the second
/// device dropped with whatever it still holds.
pub fn share_texture(w: &mut World<'_>, r: &mut Rng) {
    let (t, meta, v) = w.textures.pick(r, w.id);
    let read = r.chance(60);
    let what = format!("export_texture({t:?}) -> register on a shared device, read {read}");
    w.call("share_texture", what, v.invalid(), |w| {
        let export = w.device.export_texture(t)?;
        let other = w.device.share()?;
        let registered = other.register_texture(&export)?;
        if read {
            let size = meta.map_or([1, 1], |m| m.size);
            // Refused for formats and samples readback does not take: an answer.
            let _ = other.read_texture(registered, vigil::TexelCopyTextureInfo::default(), size);
        }
        if r.chance(50) {
            other.destroy_texture(registered)?;
        }
        drop(export);
        drop(other);
        Ok(())
    });
}
