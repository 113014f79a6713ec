//! Texture formats on a real device: each format's texels, written from the CPU, read back
//! by a shader as the values they encode (which checks the native format each maps to, its
//! channel order and packing); render targets cleared and read back as bytes; depth formats
//! tested against.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::gpu;
use draw::*;
use vigil::*;

/// What a shader reads a format's texels as.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    F([f32; 4]),
    U([u32; 4]),
    I([i32; 4]),
}

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One texel of each format the session added, and what it reads as: channels the format
/// lacks read as 0, and alpha as 1.
fn texels() -> Vec<(TextureFormat, Vec<u8>, Value)> {
    use TextureFormat as F;
    use Value::*;
    vec![
        (F::R8Snorm, vec![0x81], F([-1.0, 0.0, 0.0, 1.0])),
        (F::R8Sint, vec![0xFE], I([-2, 0, 0, 1])),
        (F::Rg8Snorm, vec![0x7F, 0x81], F([1.0, -1.0, 0.0, 1.0])),
        (F::Rg8Uint, vec![3, 250], U([3, 250, 0, 1])),
        (F::Rg8Sint, vec![0xFF, 5], I([-1, 5, 0, 1])),
        (
            F::Rgba8Snorm,
            vec![0x7F, 0x81, 0, 0x7F],
            F([1.0, -1.0, 0.0, 1.0]),
        ),
        (F::Rgba8Sint, vec![0x80, 1, 2, 3], I([-128, 1, 2, 3])),
        (F::R16Uint, le16(&[65534]), U([65534, 0, 0, 1])),
        (F::R16Sint, le16(&[(-300i16) as u16]), I([-300, 0, 0, 1])),
        (F::R16Float, le16(&[0xC000]), F([-2.0, 0.0, 0.0, 1.0])),
        (F::Rg16Uint, le16(&[1, 60000]), U([1, 60000, 0, 1])),
        (F::Rg16Sint, le16(&[u16::MAX, 30000]), I([-1, 30000, 0, 1])),
        (
            F::Rg16Float,
            le16(&[0x3800, 0x4200]),
            F([0.5, 3.0, 0.0, 1.0]),
        ),
        (F::Rgba16Uint, le16(&[1, 2, 3, 65535]), U([1, 2, 3, 65535])),
        (
            F::Rgba16Sint,
            le16(&[u16::MAX, 0xFFFE, 3, 0x8000]),
            I([-1, -2, 3, -32768]),
        ),
        (F::Rg32Uint, le32(&[u32::MAX, 7]), U([u32::MAX, 7, 0, 1])),
        (
            F::Rg32Sint,
            le32(&[(-5i32) as u32, i32::MAX as u32]),
            I([-5, i32::MAX, 0, 1]),
        ),
        (
            F::Rgba32Sint,
            le32(&[u32::MAX, 2, (-3i32) as u32, 0x8000_0000]),
            I([-1, 2, -3, i32::MIN]),
        ),
        // Red in the low bits, then green, blue and the 2-bit alpha.
        (
            F::Rgb10a2Uint,
            le32(&[1 | 2 << 10 | 1023 << 20 | 3 << 30]),
            U([1, 2, 1023, 3]),
        ),
        (
            F::Rgb10a2Unorm,
            le32(&[1023 | 3 << 30]),
            F([1.0, 0.0, 0.0, 1.0]),
        ),
        // Red and green 11-bit floats (5-bit exponent, 6-bit mantissa), blue 10-bit: red
        // 1.0, green 2.0, blue 0.
        (
            F::Rg11b10Ufloat,
            le32(&[0x3C0 | 0x400 << 11]),
            F([1.0, 2.0, 0.0, 1.0]),
        ),
        // 9-bit mantissas and a shared exponent of 16: red 256/256, green 128/256, blue 0.
        (
            F::Rgb9e5Ufloat,
            le32(&[256 | 128 << 9 | 16 << 27]),
            F([1.0, 0.5, 0.0, 1.0]),
        ),
        (F::Depth16Unorm, le16(&[0xFFFF]), F([1.0, 0.0, 0.0, 0.0])),
    ]
}

/// The texel at (1, 1) of a 2x2 texture of `format` holding `texel` everywhere, as a
/// compute shader's `textureLoad` reads it.
fn loaded(d: &Device, format: TextureFormat, texel: &[u8]) -> Value {
    let info = format.info();
    let t = d
        .create_texture(&TextureDescriptor {
            label: format.wgsl_name(),
            size: [2, 2],
            format,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    d.write_texture(
        t,
        TexelCopyTextureInfo::default(),
        &texel.repeat(4),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: texel.len() as u32 * 2,
            rows_per_image: None,
        },
        [2, 2, 1],
    )
    .unwrap();
    let view = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let (texture, scalar, sample_type) = match info.sample_type {
        TextureSampleType::Uint => ("texture_2d<u32>", "u32", TextureSampleType::Uint),
        TextureSampleType::Sint => ("texture_2d<i32>", "i32", TextureSampleType::Sint),
        TextureSampleType::Depth => ("texture_depth_2d", "f32", TextureSampleType::Depth),
        TextureSampleType::Float { .. } => (
            "texture_2d<f32>",
            "f32",
            TextureSampleType::Float { filterable: false },
        ),
    };
    let load = if info.sample_type == TextureSampleType::Depth {
        "vec4<f32>(textureLoad(t, vec2<i32>(1, 1), 0), 0.0, 0.0, 0.0)"
    } else {
        "textureLoad(t, vec2<i32>(1, 1), 0)"
    };
    let wgsl = format!(
        "@group(0) @binding(0) var t: {texture};
         @group(0) @binding(1) var<storage, read_write> out: vec4<{scalar}>;
         @compute @workgroup_size(1) fn main() {{ out = {load}; }}"
    );
    let out = d
        .create_buffer(&BufferDescriptor {
            label: "loaded",
            size: 16,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
        .unwrap();
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "load",
            entries: &[
                BindGroupLayoutEntry {
                    binding: 0,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::Texture {
                        sample_type,
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    array: None,
                },
                BindGroupLayoutEntry {
                    binding: 1,
                    visibility: ShaderStages::COMPUTE,
                    ty: BindingType::Buffer {
                        ty: BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    array: None,
                },
            ],
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "load",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(view),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(out)),
                },
            ],
        })
        .unwrap();
    dispatch_once(d, &wgsl, bgl, group);
    let b = d.read_buffer(out, 0, 16).unwrap();
    let w = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    match info.sample_type {
        TextureSampleType::Uint => Value::U([0, 1, 2, 3].map(w)),
        TextureSampleType::Sint => Value::I([0, 1, 2, 3].map(|i| w(i) as i32)),
        _ => Value::F([0, 1, 2, 3].map(|i| f32::from_bits(w(i)))),
    }
}

/// Submits one dispatch of one workgroup of `wgsl`'s `main`, with `group` (of `bgl`) bound.
fn dispatch_once(d: &Device, wgsl: &str, bgl: BindGroupLayout, group: BindGroup) {
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "formats",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let p = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "formats",
            layout,
            module: module(d, wgsl),
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let mut e = encoder(d);
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn each_format_s_texels_read_as_the_values_they_encode() {
    let d = gpu();
    for (format, texel, want) in texels() {
        assert_eq!(
            format.info().bytes_per_texel as usize,
            texel.len(),
            "{format:?}"
        );
        assert_eq!(loaded(&d, format, &texel), want, "{format:?}");
    }
    d.finish();
}

#[test]
fn each_format_s_texels_copy_back_unchanged() {
    let d = gpu();
    for (format, texel, _) in texels() {
        let n = texel.len();
        // Four different texels, so that a copy that moves bytes shows.
        let data: Vec<u8> = (0..4u8)
            .flat_map(|k| texel.iter().map(move |b| b ^ ((k * 0x11) & 0x33)))
            .collect();
        let t = d
            .create_texture(&TextureDescriptor {
                label: format.wgsl_name(),
                size: [2, 2],
                format,
                usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
                ..Default::default()
            })
            .unwrap();
        d.write_texture(
            t,
            TexelCopyTextureInfo::default(),
            &data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: n as u32 * 2,
                rows_per_image: None,
            },
            [2, 2, 1],
        )
        .unwrap();
        let back = d
            .read_texture(t, TexelCopyTextureInfo::default(), [2, 2])
            .unwrap();
        assert_eq!(back, data, "{format:?}");
        if format.info().has_depth {
            // The depth aspect alone: the same bytes.
            let depth_only = TexelCopyTextureInfo {
                aspect: TextureAspect::DepthOnly,
                ..Default::default()
            };
            let back = d.read_texture(t, depth_only, [2, 2]).unwrap();
            assert_eq!(back, data, "{format:?} depth aspect");
        }
    }
    d.finish();
}

#[test]
fn render_targets_of_each_renderable_format_clear_to_their_encoding() {
    use TextureFormat as F;
    let d = gpu();
    // Unsigned targets cleared to (1, 2, 3, 1), signed ones to (-1, 2, -3, 1), float ones
    // to (1, 0, 1, 1): one texel's bytes.
    let cases: Vec<(TextureFormat, Vec<u8>)> = vec![
        (F::R8Sint, vec![0xFF]),
        (F::Rg8Uint, vec![1, 2]),
        (F::Rg8Sint, vec![0xFF, 2]),
        (F::Rgba8Sint, vec![0xFF, 2, 0xFD, 1]),
        (F::R16Uint, le16(&[1])),
        (F::R16Sint, le16(&[u16::MAX])),
        (F::R16Float, le16(&[0x3C00])),
        (F::Rg16Uint, le16(&[1, 2])),
        (F::Rg16Sint, le16(&[u16::MAX, 2])),
        (F::Rg16Float, le16(&[0x3C00, 0])),
        (F::Rgba16Uint, le16(&[1, 2, 3, 1])),
        (F::Rgba16Sint, le16(&[u16::MAX, 2, 0xFFFD, 1])),
        (F::Rg32Uint, le32(&[1, 2])),
        (F::Rg32Sint, le32(&[u32::MAX, 2])),
        (F::Rgba32Sint, le32(&[u32::MAX, 2, (-3i32) as u32, 1])),
        (F::Rgb10a2Uint, le32(&[1 | 2 << 10 | 3 << 20 | 1 << 30])),
        (F::Rgb10a2Unorm, le32(&[1023 | 1023 << 20 | 3 << 30])),
    ];
    for (format, want) in cases {
        assert!(format.info().renderable, "{format:?}");
        let value = match format.info().sample_type {
            TextureSampleType::Uint => [1.0, 2.0, 3.0, 1.0],
            TextureSampleType::Sint => [-1.0, 2.0, -3.0, 1.0],
            _ => [1.0, 0.0, 1.0, 1.0],
        };
        let t = d
            .create_texture(&TextureDescriptor {
                label: format.wgsl_name(),
                size: [4, 4],
                format,
                usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
                ..Default::default()
            })
            .unwrap();
        let view = d
            .create_texture_view(t, &TextureViewDescriptor::default())
            .unwrap();
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "clear",
            color_attachments: &[Some(clear(value, view))],
            ..Default::default()
        })
        .unwrap();
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let back = d
            .read_texture(t, TexelCopyTextureInfo::default(), [4, 4])
            .unwrap();
        assert_eq!(back, want.repeat(16), "{format:?}");
    }
    d.finish();
}

#[test]
fn depth16_and_depth24plus_attachments_test_depth() {
    // A quad at depth 0.2 over the left half, then one at 0.6 over the whole target, with
    // depth test Less against a clear of 0.4: the left half keeps the first quad's green,
    // the right half shows the clear (the second quad fails everywhere: 0.6 is behind
    // both).
    for format in [TextureFormat::Depth16Unorm, TextureFormat::Depth24Plus] {
        let d = gpu();
        let t = target(&d, TextureFormat::Rgba8Unorm, 1);
        let (_dt, dv) = depth(&d, format);
        let p = depth_pipeline(&d, format);
        let near = vertex_buffer(&d, &quad3(0.2, [0.0, 1.0, 0.0, 1.0], -1.0, 0.0));
        let far = vertex_buffer(&d, &quad3(0.6, [1.0, 0.0, 0.0, 1.0], -1.0, 1.0));
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            label: "depth",
            color_attachments: &[Some(clear([0.0, 0.0, 1.0, 1.0], t.view))],
            depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                view: dv,
                depth_ops: Some(Operations {
                    load: LoadOp::Clear(0.4),
                    store: StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        })
        .unwrap();
        e.set_render_pipeline(p).unwrap();
        for vb in [near, far] {
            e.set_vertex_buffer(0, vb, 0, None).unwrap();
            e.draw(0..6, 0..1).unwrap();
        }
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let px = pixels(&d, t.texture);
        assert_eq!(at(&px, 10, 32), [0, 255, 0, 255], "{format:?}");
        assert_eq!(at(&px, 54, 32), [0, 0, 255, 255], "{format:?}");
        d.finish();
    }
}

/// A 2x2 storage texture of `format` that a compute shader wrote `value` (a WGSL
/// expression) into at every texel, read back.
fn stored(d: &Device, format: TextureFormat, value: &str) -> Vec<u8> {
    let t = d
        .create_texture(&TextureDescriptor {
            label: format.wgsl_name(),
            size: [2, 2],
            format,
            usage: TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
            ..Default::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let wgsl = format!(
        "@group(0) @binding(0) var t: texture_storage_2d<{}, write>;
         @compute @workgroup_size(2, 2) fn main(@builtin(local_invocation_id) id: vec3<u32>) {{
             textureStore(t, vec2<i32>(id.xy), {value});
         }}",
        format.wgsl_name()
    );
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "store",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }],
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "store",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
        .unwrap();
    dispatch_once(d, &wgsl, bgl, group);
    d.read_texture(t, TexelCopyTextureInfo::default(), [2, 2])
        .unwrap()
}

#[test]
fn storage_formats_store_what_they_encode() {
    use TextureFormat as F;
    let d = gpu();
    // The same texels as `texels`, written by a shader this time.
    let values = [
        (F::Rgba8Snorm, "vec4<f32>(1.0, -1.0, 0.0, 1.0)"),
        (F::Rgba8Sint, "vec4<i32>(-128, 1, 2, 3)"),
        (F::Rgba16Uint, "vec4<u32>(1u, 2u, 3u, 65535u)"),
        (F::Rgba16Sint, "vec4<i32>(-1, -2, 3, -32768)"),
        (F::Rg32Uint, "vec4<u32>(4294967295u, 7u, 0u, 1u)"),
        (F::Rg32Sint, "vec4<i32>(-5, 2147483647, 0, 1)"),
        (F::Rgba32Sint, "vec4<i32>(-1, 2, -3, -2147483648)"),
    ];
    let texels = texels();
    for (format, value) in values {
        assert!(format.info().storage, "{format:?}");
        let texel = &texels.iter().find(|t| t.0 == format).unwrap().1;
        assert_eq!(stored(&d, format, value), texel.repeat(4), "{format:?}");
    }
    d.finish();
}
