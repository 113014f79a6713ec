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
        // 16-bit normalized (TEXTURE_FORMAT_16BIT_NORM): 0xFFFF is 1.0 unsigned, 0x7FFF
        // 1.0 and 0x8001 -1.0 signed, 0 is 0.
        (F::R16Unorm, le16(&[0xFFFF]), F([1.0, 0.0, 0.0, 1.0])),
        (F::R16Snorm, le16(&[0x8001]), F([-1.0, 0.0, 0.0, 1.0])),
        (F::Rg16Unorm, le16(&[0, 0xFFFF]), F([0.0, 1.0, 0.0, 1.0])),
        (
            F::Rg16Snorm,
            le16(&[0x7FFF, 0x8001]),
            F([1.0, -1.0, 0.0, 1.0]),
        ),
        (
            F::Rgba16Unorm,
            le16(&[0xFFFF, 0, 0xFFFF, 0]),
            F([1.0, 0.0, 1.0, 0.0]),
        ),
        (
            F::Rgba16Snorm,
            le16(&[0x8001, 0x7FFF, 0, 0x7FFF]),
            F([-1.0, 1.0, 0.0, 1.0]),
        ),
    ]
}

/// The texel at (1, 1) of a 2x2 texture of `format` holding `texel` everywhere, as a
/// compute shader's `textureLoad` reads it.
fn loaded(d: &Device, format: TextureFormat, texel: &[u8]) -> Value {
    let t = d
        .create_texture(&TextureDescriptor {
            label: format.wgsl_name(),
            size: [2, 2],
            format,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    load(d, filled(d, t, texel, [2, 2]), format, [1, 1], 0)
}

/// Writes `unit` (one texel, or one block of a compressed format) into every place of the
/// `units` (`[across, down]`) of mip level 0 of `t`, and returns a view of it.
fn filled(d: &Device, t: Texture, unit: &[u8], units: [u32; 2]) -> TextureView {
    let [bw, bh] = d
        .texture_descriptor(t)
        .unwrap()
        .descriptor()
        .format
        .info()
        .block;
    d.write_texture(
        t,
        TexelCopyTextureInfo::default(),
        &unit.repeat((units[0] * units[1]) as usize),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: unit.len() as u32 * units[0],
            rows_per_image: None,
        },
        [units[0] * bw, units[1] * bh, 1],
    )
    .unwrap();
    d.create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap()
}

/// The texel at `at` of mip level `mip` of `view` (of `format`), as a compute shader's
/// `textureLoad` reads it.
fn load(d: &Device, view: TextureView, format: TextureFormat, at: [u32; 2], mip: u32) -> Value {
    let info = format.info();
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
    let [x, y] = at;
    let load = if info.sample_type == TextureSampleType::Depth {
        format!("vec4<f32>(textureLoad(t, vec2<i32>({x}, {y}), {mip}), 0.0, 0.0, 0.0)")
    } else {
        format!("textureLoad(t, vec2<i32>({x}, {y}), {mip})")
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
    let (bgl, group) = common::group_of(
        d,
        ShaderStages::COMPUTE,
        &[
            (
                BindingType::Texture {
                    sample_type,
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
                BindingResource::TextureView(view),
            ),
            (
                common::storage_buffer(false),
                BindingResource::Buffer(BufferBinding::whole(out)),
            ),
        ],
    );
    common::dispatch_wgsl(d, &wgsl, bgl, group, [1, 1, 1]);
    let b = d.read_buffer(out, 0, 16).unwrap();
    let w = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    match info.sample_type {
        TextureSampleType::Uint => Value::U([0, 1, 2, 3].map(w)),
        TextureSampleType::Sint => Value::I([0, 1, 2, 3].map(|i| w(i) as i32)),
        _ => Value::F([0, 1, 2, 3].map(|i| f32::from_bits(w(i)))),
    }
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
        (F::R16Unorm, le16(&[0xFFFF])),
        (F::R16Snorm, le16(&[0x7FFF])),
        (F::Rg16Unorm, le16(&[0xFFFF, 0])),
        (F::Rg16Snorm, le16(&[0x7FFF, 0])),
        (F::Rgba16Unorm, le16(&[0xFFFF, 0, 0xFFFF, 0xFFFF])),
        (F::Rgba16Snorm, le16(&[0x7FFF, 0, 0x7FFF, 0x7FFF])),
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
fn depth16_depth24plus_and_depth32float_stencil8_attachments_test_depth() {
    // A quad at depth 0.2 over the left half, then one at 0.6 over the whole target, with
    // depth test Less against a clear of 0.4: the left half keeps the first quad's green,
    // the right half shows the clear (the second quad fails everywhere: 0.6 is behind
    // both).
    for format in [
        TextureFormat::Depth16Unorm,
        TextureFormat::Depth24Plus,
        TextureFormat::Depth32FloatStencil8,
    ] {
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
                stencil_ops: format.info().has_stencil.then_some(Operations {
                    load: LoadOp::Clear(0),
                    store: StoreOp::Store,
                }),
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
    let (bgl, group) = common::group_of(
        d,
        ShaderStages::COMPUTE,
        &[(
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format,
                view_dimension: TextureViewDimension::D2,
            },
            BindingResource::TextureView(view),
        )],
    );
    common::dispatch_wgsl(d, &wgsl, bgl, group, [1, 1, 1]);
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

#[test]
fn bgra8unorm_is_a_write_only_storage_texture_with_its_feature() {
    // Red 1, green 0.2, blue 0, alpha 1, written by a shader: stored blue first.
    let d = common::gpu_requiring(Features::BGRA8UNORM_STORAGE, "bgra8unorm storage");
    assert_eq!(
        stored(
            &d,
            TextureFormat::Bgra8Unorm,
            "vec4<f32>(1.0, 0.2, 0.0, 1.0)"
        ),
        [0, 51, 255, 255].repeat(4)
    );
    // Read access is not part of the feature.
    let e = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "read",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::ReadOnly,
                    format: TextureFormat::Bgra8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }],
        })
        .unwrap_err();
    assert_eq!(e.rule(), Rule::LayoutStorageAccess, "{e}");
    d.finish();
    // Without the feature the format is no storage texture, as in WebGPU.
    let d = common::gpu_with(|adapter| DeviceDescriptor {
        label: "no bgra8 storage".into(),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    });
    let e = d
        .create_texture(&TextureDescriptor {
            label: "bgra8",
            size: [2, 2],
            format: TextureFormat::Bgra8Unorm,
            usage: TextureUsages::STORAGE_BINDING,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.rule(), Rule::TextureFormatUsage, "{e}");
    d.finish();
}

#[test]
fn atomic_storage_textures_add_and_compare_across_invocations() {
    // 64 invocations each add 1 to texel (0, 0) and their index to (1, 0) of an r32uint
    // texture, and keep the largest of `index - 40` in an r32sint texel.
    let d = common::gpu_requiring(Features::TEXTURE_ATOMIC, "texture atomics");
    let tex = |format: TextureFormat| {
        let t = d
            .create_texture(&TextureDescriptor {
                label: format.wgsl_name(),
                size: [2, 1],
                format,
                usage: TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
                ..Default::default()
            })
            .unwrap();
        let view = d
            .create_texture_view(t, &TextureViewDescriptor::default())
            .unwrap();
        (t, view)
    };
    let ((u, uv), (i, iv)) = (tex(TextureFormat::R32Uint), tex(TextureFormat::R32Sint));
    let atomic = |format| BindingType::StorageTexture {
        access: StorageTextureAccess::Atomic,
        format,
        view_dimension: TextureViewDimension::D2,
    };
    let (bgl, group) = common::group_of(
        &d,
        ShaderStages::COMPUTE,
        &[
            (
                atomic(TextureFormat::R32Uint),
                BindingResource::TextureView(uv),
            ),
            (
                atomic(TextureFormat::R32Sint),
                BindingResource::TextureView(iv),
            ),
        ],
    );
    let wgsl = r#"
@group(0) @binding(0) var counts: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(1) var most: texture_storage_2d<r32sint, atomic>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32) {
    textureAtomicAdd(counts, vec2<i32>(0, 0), 1u);
    textureAtomicAdd(counts, vec2<i32>(1, 0), i);
    textureAtomicMax(most, vec2<i32>(0, 0), i32(i) - 40);
    textureAtomicMin(most, vec2<i32>(1, 0), i32(i) - 40);
}
"#;
    common::dispatch_wgsl(&d, wgsl, bgl, group, [1, 1, 1]);
    let read = |t| {
        d.read_texture(t, TexelCopyTextureInfo::default(), [2, 1])
            .unwrap()
    };
    assert_eq!(read(u), le32(&[64, 63 * 64 / 2]));
    // Texels start at 0: the largest is 23, the smallest -40.
    assert_eq!(read(i), le32(&[23, (-40i32) as u32]));
    d.finish();
}

/// A BC1 block: red everywhere but texel (1, 1), which is blue (4-colour mode, red 565 as
/// colour 0, blue as colour 1; two index bits a texel, texel (1, 1) is the fifth).
fn bc1_block() -> Vec<u8> {
    let mut b = le16(&[0xF800, 0x001F]);
    b.extend(le32(&[1 << 10]));
    b
}

/// A BC4 block whose values are `v0` (index 0) and `v1` (index 1): `v1` at texel (1, 1),
/// `v0` elsewhere (three index bits a texel).
fn bc4_block(v0: u8, v1: u8) -> Vec<u8> {
    let indices: u64 = 1 << 15;
    let mut b = vec![v0, v1];
    b.extend(&indices.to_le_bytes()[..6]);
    b
}

/// A BC7 mode-6 block: endpoint 0 is (255, 1, 1, 255) (7-bit red and alpha 127 with the
/// p-bit set), endpoint 1 transparent black; index 15 (all of endpoint 1) at texel (1, 1),
/// index 0 elsewhere.
fn bc7_block() -> Vec<u8> {
    let mut bits: u128 = 1 << 6; // mode 6
    bits |= 127 << 7; // R0
    bits |= 127 << 49; // A0
    bits |= 1 << 63; // P0
    bits |= 0xF << (68 + 4 * 4); // texel 5's index (texel 0's anchor index has 3 bits)
    bits.to_le_bytes().to_vec()
}

/// A BC6H mode-11 block (one region, 10-bit endpoints, no deltas): endpoint 0 is `e0`,
/// endpoint 1 `e1` (each channel's 10 bits, two's complement for the signed format); index
/// 15 (all of endpoint 1) at texel (1, 1), index 0 elsewhere.
fn bc6h_block(e0: [u32; 3], e1: [u32; 3]) -> Vec<u8> {
    let mut bits: u128 = 0b00011; // mode 11, five mode bits
    for (i, c) in e0.iter().chain(&e1).enumerate() {
        bits |= u128::from(c & 0x3FF) << (5 + 10 * i);
    }
    bits |= 0xF << (68 + 4 * 4); // texel 5's index (texel 0's anchor index has 3 bits)
    bits.to_le_bytes().to_vec()
}

/// A format, one block of it, and what its texels (0, 0) and (1, 1) read as.
type BcCase = (TextureFormat, Vec<u8>, [f32; 4], [f32; 4]);

/// One block of each BC format.
fn bc_blocks() -> Vec<BcCase> {
    use TextureFormat as F;
    let (red, blue) = ([1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]);
    // BC2: explicit 4-bit alphas, 0 at texel (1, 1); BC3: an interpolated alpha block.
    let mut bc2 = 0xFFFF_FFFF_FF0F_FFFFu64.to_le_bytes().to_vec();
    bc2.extend(bc1_block());
    let mut bc3 = bc4_block(255, 0);
    bc3.extend(bc1_block());
    let mut bc5 = bc4_block(255, 0);
    bc5.extend(bc4_block(0, 255));
    vec![
        (F::Bc1RgbaUnorm, bc1_block(), red, blue),
        (F::Bc1RgbaUnormSrgb, bc1_block(), red, blue),
        (F::Bc2RgbaUnorm, bc2.clone(), red, [0.0, 0.0, 1.0, 0.0]),
        (F::Bc2RgbaUnormSrgb, bc2, red, [0.0, 0.0, 1.0, 0.0]),
        (F::Bc3RgbaUnorm, bc3.clone(), red, [0.0, 0.0, 1.0, 0.0]),
        (F::Bc3RgbaUnormSrgb, bc3, red, [0.0, 0.0, 1.0, 0.0]),
        (F::Bc4RUnorm, bc4_block(255, 0), red, [0.0, 0.0, 0.0, 1.0]),
        // Signed: 127 is 1.0 and -127 is -1.0.
        (
            F::Bc4RSnorm,
            bc4_block(127, 0x81),
            red,
            [-1.0, 0.0, 0.0, 1.0],
        ),
        (F::Bc5RgUnorm, bc5, red, [0.0, 1.0, 0.0, 1.0]),
        (
            F::Bc7RgbaUnorm,
            bc7_block(),
            [1.0, 1.0 / 255.0, 1.0 / 255.0, 1.0],
            [0.0; 4],
        ),
        // Unsigned: 1023 is the largest half (65504); 512 unquantizes to 32800, which
        // finishes as half 0x3E0F, 1 + 527/1024.
        (
            F::Bc6hRgbUfloat,
            bc6h_block([1023, 512, 0], [0, 0, 1023]),
            [65504.0, 1.0 + 527.0 / 1024.0, 0.0, 1.0],
            [0.0, 0.0, 65504.0, 1.0],
        ),
        // Signed: 511 and -511 are the largest halves either way.
        (
            F::Bc6hRgbFloat,
            bc6h_block([511, (-511i32) as u32, 0], [0, 0, 511]),
            [65504.0, -65504.0, 0.0, 1.0],
            [0.0, 0.0, 65504.0, 1.0],
        ),
    ]
}

fn close(got: Value, want: [f32; 4]) -> bool {
    match got {
        Value::F(v) => v.iter().zip(want).all(|(a, b)| (a - b).abs() < 0.5 / 255.0),
        _ => false,
    }
}

/// A texture of `format` sampled and copied, `size` texels, `mips` levels and `layers`.
fn bc_texture(
    d: &Device,
    format: TextureFormat,
    size: [u32; 2],
    mips: u32,
    layers: u32,
) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: format.wgsl_name(),
        size,
        mip_level_count: mips,
        array_layers: layers,
        format,
        usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
        ..Default::default()
    })
    .unwrap()
}

fn bc_gpu() -> common::Gpu {
    common::gpu_requiring(Features::TEXTURE_COMPRESSION_BC, "bc")
}

#[test]
fn bc_blocks_decode_to_the_texels_they_encode() {
    let d = bc_gpu();
    for (format, block, first, fifth) in bc_blocks() {
        assert_eq!(
            format.info().bytes_per_texel as usize,
            block.len(),
            "{format:?}"
        );
        // An 8x8 texture of four blocks, each the same.
        let t = bc_texture(&d, format, [8, 8], 1, 1);
        let view = filled(&d, t, &block, [2, 2]);
        for (at, want) in [
            ([0, 0], first),
            ([1, 1], fifth),
            ([5, 5], fifth),
            ([6, 4], first),
        ] {
            let got = load(&d, view, format, at, 0);
            assert!(
                close(got, want),
                "{format:?} at {at:?}: {got:?}, want {want:?}"
            );
        }
    }
    d.finish();
}

#[test]
fn bc_mip_levels_smaller_than_a_block_are_written_and_read_whole() {
    // An 8x8 BC1 texture has levels of 8, 4, 2 and 1 texels a side; the last two are one
    // block each, copied as 4x4 boxes.
    let d = bc_gpu();
    let format = TextureFormat::Bc1RgbaUnorm;
    let t = bc_texture(&d, format, [8, 8], 4, 1);
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: 8,
        rows_per_image: None,
    };
    for mip in [2, 3] {
        let at = TexelCopyTextureInfo {
            mip_level: mip,
            ..Default::default()
        };
        d.write_texture(t, at, &bc1_block(), layout, [4, 4, 1])
            .unwrap();
        assert_eq!(
            d.read_texture(t, at, [4, 4]).unwrap(),
            bc1_block(),
            "mip {mip}"
        );
    }
    let view = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let blue = [0.0, 0.0, 1.0, 1.0];
    let got = load(&d, view, format, [1, 1], 2);
    assert!(close(got, blue), "mip 2 texel (1, 1): {got:?}");
    let got = load(&d, view, format, [0, 0], 3);
    assert!(
        close(got, [1.0, 0.0, 0.0, 1.0]),
        "mip 3 texel (0, 0): {got:?}"
    );
    d.finish();
}

#[test]
fn bc_textures_copy_through_buffers_and_textures_unchanged() {
    // Every BC format: two layers of 8x8 (2x2 blocks) from a buffer laid out with 256-byte
    // rows of blocks and three block rows an image, into a texture, on into a second
    // texture, out into a buffer laid out the same way.
    let d = bc_gpu();
    for format in TextureFormat::BC {
        let n = format.info().bytes_per_texel as usize;
        let (pitch, rows) = (256usize, 3usize);
        let len = pitch * rows * 2;
        let mut data = vec![0u8; len];
        for layer in 0..2 {
            for row in 0..2 {
                let start = layer * pitch * rows + row * pitch;
                for (i, b) in data[start..start + 2 * n].iter_mut().enumerate() {
                    *b = (layer * 101 + row * 37 + i * 7 + 1) as u8;
                }
            }
        }
        let buffer = |usage| {
            d.create_buffer(&BufferDescriptor {
                label: "bc",
                size: len as u64,
                usage,
            })
            .unwrap()
        };
        let src = buffer(BufferUsages::COPY_SRC | BufferUsages::COPY_DST);
        let dst = buffer(BufferUsages::COPY_DST | BufferUsages::MAP_READ);
        d.write_buffer(src, 0, &data).unwrap();
        let (a, b) = (
            bc_texture(&d, format, [8, 8], 1, 2),
            bc_texture(&d, format, [8, 8], 1, 2),
        );
        let layout = TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: pitch as u32,
            rows_per_image: Some(rows as u32),
        };
        let at = TexelCopyTextureInfo::default();
        let mut e = encoder(&d);
        e.copy_buffer_to_texture(src, layout, a, at, [8, 8, 2])
            .unwrap();
        e.copy_texture_to_texture(a, at, b, at, [8, 8, 2]).unwrap();
        e.copy_texture_to_buffer(b, at, dst, layout, [8, 8, 2])
            .unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        let back = d.read_buffer(dst, 0, len as u64).unwrap();
        for layer in 0..2 {
            for row in 0..2 {
                let start = layer * pitch * rows + row * pitch;
                assert_eq!(
                    back[start..start + 2 * n],
                    data[start..start + 2 * n],
                    "{format:?} layer {layer} block row {row}"
                );
            }
        }
    }
    d.finish();
}

#[test]
fn bc_textures_start_zeroed_even_on_reused_memory() {
    // A texture written with non-zero blocks and destroyed, then a new one of the same
    // shape (the allocator hands its memory out again): the new one reads back as zeroes,
    // which vigil copies in (a compressed image cannot be cleared).
    let d = bc_gpu();
    for format in TextureFormat::BC {
        let n = format.info().bytes_per_texel;
        let old = bc_texture(&d, format, [64, 64], 2, 2);
        let ones = vec![0xA5u8; (16 * 16 * n) as usize];
        for layer in 0..2 {
            d.write_texture(
                old,
                TexelCopyTextureInfo {
                    array_layer: layer,
                    ..Default::default()
                },
                &ones,
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: 16 * n,
                    rows_per_image: None,
                },
                [64, 64, 1],
            )
            .unwrap();
        }
        assert_eq!(
            d.read_texture(old, TexelCopyTextureInfo::default(), [64, 64])
                .unwrap(),
            ones
        );
        d.destroy_texture(old).unwrap();
        let new = bc_texture(&d, format, [64, 64], 2, 2);
        for (mip, layer, side) in [(0, 0, 64), (0, 1, 64), (1, 1, 32)] {
            let at = TexelCopyTextureInfo {
                mip_level: mip,
                array_layer: layer,
                ..Default::default()
            };
            let back = d.read_texture(new, at, [side, side]).unwrap();
            assert_eq!(back.len(), (side / 4 * side / 4 * n) as usize);
            assert!(
                back.iter().all(|&b| b == 0),
                "{format:?} mip {mip} layer {layer}"
            );
        }
    }
    d.finish();
}

/// A 4×2 `Depth32FloatStencil8` texture that copies both ways.
fn d32s8(d: &Device) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "d32s8",
        size: [4, 2],
        format: TextureFormat::Depth32FloatStencil8,
        usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
        ..Default::default()
    })
    .unwrap()
}

fn aspect_at(aspect: TextureAspect) -> TexelCopyTextureInfo {
    TexelCopyTextureInfo {
        aspect,
        ..Default::default()
    }
}

/// Writes one aspect of a [`d32s8`] texture: 4-byte depth texels, or stencil bytes.
fn write_aspect(d: &Device, t: Texture, aspect: TextureAspect, data: &[u8]) {
    let texel = if aspect == TextureAspect::DepthOnly {
        4
    } else {
        1
    };
    d.write_texture(
        t,
        aspect_at(aspect),
        data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 4 * texel,
            rows_per_image: None,
        },
        [4, 2, 1],
    )
    .unwrap();
}

fn read_aspect(d: &Device, t: Texture, aspect: TextureAspect) -> Vec<u8> {
    d.read_texture(t, aspect_at(aspect), [4, 2]).unwrap()
}

/// Eight depth values from `first / 8` up, as bytes, and eight stencil bytes.
fn depth_and_stencil(first: u8) -> (Vec<u8>, Vec<u8>) {
    let depth = (first..first + 8)
        .flat_map(|i| (f32::from(i) / 8.0).to_le_bytes())
        .collect();
    (depth, (0..8).map(|i| i * 31 + 1).collect())
}

#[test]
fn depth32float_stencil8_aspects_copy_apart() {
    // Depth as 4-byte floats, stencil as bytes, each written and read back on its own; the
    // whole texture (both aspects at once) is not copied.
    let d = gpu();
    let t = d32s8(&d);
    let (depth, stencil) = depth_and_stencil(0);
    write_aspect(&d, t, TextureAspect::DepthOnly, &depth);
    write_aspect(&d, t, TextureAspect::StencilOnly, &stencil);
    assert_eq!(read_aspect(&d, t, TextureAspect::DepthOnly), depth);
    assert_eq!(read_aspect(&d, t, TextureAspect::StencilOnly), stencil);
    let e = d
        .read_texture(t, aspect_at(TextureAspect::All), [4, 2])
        .unwrap_err();
    assert_eq!(e.rule(), Rule::CopyAspect, "{e}");
    d.finish();
}

#[test]
fn clear_texture_zeroes_one_aspect_or_both() {
    // Depth and stencil written, then cleared an aspect at a time: the other keeps its
    // values.
    let d = gpu();
    let t = d32s8(&d);
    let (depth, stencil) = depth_and_stencil(1);
    let clear = |a| {
        let mut e = encoder(&d);
        e.clear_texture(
            t,
            &ImageSubresourceRange {
                aspect: a,
                ..Default::default()
            },
        )
        .unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
    };
    let (depth_only, stencil_only) = (TextureAspect::DepthOnly, TextureAspect::StencilOnly);
    write_aspect(&d, t, depth_only, &depth);
    write_aspect(&d, t, stencil_only, &stencil);
    clear(stencil_only);
    assert_eq!(read_aspect(&d, t, depth_only), depth);
    assert_eq!(read_aspect(&d, t, stencil_only), vec![0; 8]);
    write_aspect(&d, t, stencil_only, &stencil);
    clear(depth_only);
    assert_eq!(read_aspect(&d, t, depth_only), vec![0; 32]);
    assert_eq!(read_aspect(&d, t, stencil_only), stencil);
    write_aspect(&d, t, depth_only, &depth);
    clear(TextureAspect::All);
    assert_eq!(read_aspect(&d, t, depth_only), vec![0; 32]);
    assert_eq!(read_aspect(&d, t, stencil_only), vec![0; 8]);
    d.finish();
}

#[test]
fn clear_texture_zeroes_compressed_blocks() {
    // Two BC1 levels of a 2-layer texture written block by block; level 0 of layer 1
    // cleared (whole blocks of zero bytes), the rest kept.
    let d = bc_gpu();
    let t = bc_texture(&d, TextureFormat::Bc1RgbaUnorm, [16, 8], 2, 2);
    let blocks = |n: usize| bc1_block().repeat(n);
    for layer in 0..2 {
        for (mip, [w, h]) in [[16u32, 8u32], [8, 4]].into_iter().enumerate() {
            d.write_texture(
                t,
                TexelCopyTextureInfo {
                    mip_level: mip as u32,
                    array_layer: layer,
                    ..Default::default()
                },
                &blocks((w / 4 * h / 4) as usize),
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: w / 4 * 8,
                    rows_per_image: None,
                },
                [w, h, 1],
            )
            .unwrap();
        }
    }
    let mut e = encoder(&d);
    e.clear_texture(
        t,
        &ImageSubresourceRange {
            mip_level_count: Some(1),
            base_array_layer: 1,
            ..Default::default()
        },
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    for layer in 0..2 {
        for (mip, [w, h]) in [[16u32, 8u32], [8, 4]].into_iter().enumerate() {
            let got = d
                .read_texture(
                    t,
                    TexelCopyTextureInfo {
                        mip_level: mip as u32,
                        array_layer: layer,
                        ..Default::default()
                    },
                    [w, h],
                )
                .unwrap();
            let n = (w / 4 * h / 4) as usize;
            let want = if layer == 1 && mip == 0 {
                vec![0; n * 8]
            } else {
                blocks(n)
            };
            assert_eq!(got, want, "layer {layer} level {mip}");
        }
    }
    d.finish();
}

/// A full-screen triangle whose fragments are `(0.5, 0.25, 0.125, 1)`, added by the blend
/// to a target of `format` cleared to `clear`; the target's texel bytes.
fn blended_texel(d: &Device, format: TextureFormat, clear_to: [f64; 4]) -> Vec<u8> {
    let wgsl = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.5, 0.25, 0.125, 1.0); }
"#;
    let add = BlendComponent {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::One,
        operation: BlendOperation::Add,
    };
    let targets = [Some(ColorTargetState {
        format,
        blend: Some(BlendState {
            color: add,
            alpha: add,
        }),
        write_mask: ColorWrites::ALL,
    })];
    let p = d
        .create_render_pipeline(&pipeline_desc(
            empty_layout(d),
            module(d, wgsl),
            &[],
            &targets,
        ))
        .unwrap();
    let t = target(d, format, 1);
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "blend",
        color_attachments: &[Some(clear(clear_to, t.view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let back = d
        .read_texture(t.texture, TexelCopyTextureInfo::default(), [W, H])
        .unwrap();
    let texels = (W * H) as usize;
    let texel = back[..back.len() / texels].to_vec();
    assert_eq!(
        back,
        texel.repeat(texels),
        "{format:?}: every texel the same"
    );
    texel
}

#[test]
fn rg11b10ufloat_and_32_bit_floats_blend_with_their_features() {
    let d = common::gpu_requiring(
        Features::RG11B10UFLOAT_RENDERABLE | Features::FLOAT32_BLENDABLE,
        "renderable and blendable",
    );
    // (0.5, 0.25, 0.125) + (0.5, 0.25, 0.125) = (1, 0.5, 0.25): as 11-, 11- and 10-bit
    // floats (5 exponent bits, bias 15), 15 << 6, 14 << 6 and 13 << 5.
    assert_eq!(
        blended_texel(&d, TextureFormat::Rg11b10Ufloat, [0.5, 0.25, 0.125, 0.0]),
        le32(&[15 << 6 | (14 << 6) << 11 | (13 << 5) << 22])
    );
    assert_eq!(
        blended_texel(&d, TextureFormat::R32Float, [0.25, 0.0, 0.0, 0.0]),
        0.75f32.to_le_bytes()
    );
    let rgba: Vec<u8> = [1.5f32, 0.75, 0.375, 1.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        blended_texel(&d, TextureFormat::Rgba32Float, [1.0, 0.5, 0.25, 0.5]),
        rgba
    );
    d.finish();
}

#[test]
fn formats_webgpu_does_not_render_to_are_refused_whatever_the_driver_does() {
    // Drivers may render to the snorm formats and to Rg11b10Ufloat, and blend the 32-bit
    // floats (lavapipe does all of it); without the features, vigil refuses them as WebGPU
    // does, so code that runs here runs on any WebGPU device.
    let d = common::gpu_with(|adapter| DeviceDescriptor {
        label: "no format features".into(),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    });
    for format in [
        TextureFormat::R8Snorm,
        TextureFormat::Rg8Snorm,
        TextureFormat::Rgba8Snorm,
        TextureFormat::Rg11b10Ufloat,
    ] {
        let e = d
            .create_texture(&TextureDescriptor {
                label: "target",
                size: [4, 4],
                format,
                usage: TextureUsages::RENDER_ATTACHMENT,
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(e.rule(), Rule::TextureFormatUsage, "{format:?}: {e}");
    }
    let e = d
        .create_render_pipeline(&pipeline_desc(
            empty_layout(&d),
            module(&d, POS_COLOR),
            &[pos_color_layout()],
            &[Some(ColorTargetState {
                format: TextureFormat::R32Float,
                blend: Some(BlendState::ALPHA_BLENDING),
                write_mask: ColorWrites::ALL,
            })],
        ))
        .unwrap_err();
    assert_eq!(e.rule(), Rule::ColorTargetFormat, "{e}");
    d.finish();
}

#[test]
fn bc_textures_are_viewed_through_their_srgb_twins() {
    // One BC1 block of mid grey (565: 16/31, 32/63, 16/31): read through the texture's own
    // view and through its sRGB twin's, the second is the first decoded from sRGB.
    let d = bc_gpu();
    let mut block = le16(&[0x8410, 0x8410]);
    block.extend(le32(&[0]));
    for (format, twin) in [
        (TextureFormat::Bc1RgbaUnorm, TextureFormat::Bc1RgbaUnormSrgb),
        (TextureFormat::Bc1RgbaUnormSrgb, TextureFormat::Bc1RgbaUnorm),
    ] {
        assert_eq!(format.srgb_twin(), Some(twin));
        let t = bc_texture(&d, format, [4, 4], 1, 1);
        filled(&d, t, &block, [1, 1]);
        let read = |f| {
            let view = d
                .create_texture_view(
                    t,
                    &TextureViewDescriptor {
                        format: Some(f),
                        ..Default::default()
                    },
                )
                .unwrap();
            match load(&d, view, f, [2, 2], 0) {
                Value::F(c) => c[0],
                other => panic!("{other:?}"),
            }
        };
        let plain = read(TextureFormat::Bc1RgbaUnorm);
        let srgb = read(TextureFormat::Bc1RgbaUnormSrgb);
        assert!((plain - 0.516).abs() < 0.01, "{format:?}: unorm {plain}");
        let decoded = ((plain + 0.055) / 1.055).powf(2.4);
        assert!(
            (srgb - decoded).abs() < 0.01,
            "{format:?}: srgb {srgb}, want {decoded}"
        );
    }
    d.finish();
}

#[test]
fn every_format_said_to_multisample_makes_a_4_sample_attachment() {
    // `multisample4` is the limits' attachment counts narrowed by what the driver makes of
    // the format, and a texture is refused where the driver would not make it with its
    // usage: each format said to multisample is made with 4 samples (sampled too where it
    // is sampled) and cleared in a render pass under the layer's eye; the others that are
    // attachments are refused with 4 samples.
    fn ops<T>(on: bool, clear: T) -> Option<Operations<T>> {
        on.then_some(Operations {
            load: LoadOp::Clear(clear),
            store: StoreOp::Discard,
        })
    }
    let d = gpu();
    let mut made = 0;
    let mut refused = 0;
    for format in TextureFormat::ALL {
        let support = d.format_support(format);
        let info = format.info();
        if !(support.color_attachment || support.depth_stencil_attachment) {
            continue;
        }
        let mut usage = TextureUsages::RENDER_ATTACHMENT;
        if support.sampled {
            usage |= TextureUsages::TEXTURE_BINDING;
        }
        let made4 = d.create_texture(&TextureDescriptor {
            label: format.wgsl_name(),
            size: [8, 8],
            format,
            sample_count: 4,
            usage,
            ..Default::default()
        });
        if !support.multisample4 {
            let e = made4.expect_err("refused with 4 samples");
            assert_eq!(e.rule(), Rule::TextureFormatUsage, "{format:?}: {e}");
            refused += 1;
            continue;
        }
        let t = made4.unwrap_or_else(|e| panic!("{format:?}: {e}"));
        let view = d
            .create_texture_view(t, &TextureViewDescriptor::default())
            .unwrap();
        let mut e = encoder(&d);
        if format.is_depth_stencil() {
            e.begin_render_pass(&RenderPassDescriptor {
                label: "multisampled",
                depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                    view,
                    depth_ops: ops(info.has_depth, 1.0),
                    stencil_ops: ops(info.has_stencil, 0),
                }),
                ..Default::default()
            })
        } else {
            e.begin_render_pass(&RenderPassDescriptor {
                label: "multisampled",
                color_attachments: &[Some(clear([0.0; 4], view))],
                ..Default::default()
            })
        }
        .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        e.end_render_pass().unwrap();
        d.submit([e.finish().unwrap()]).unwrap();
        made += 1;
    }
    // Every device multisamples WebGPU's core list (rgba8unorm and depth32float among it).
    assert!(
        d.format_support(TextureFormat::Rgba8Unorm).multisample4
            && d.format_support(TextureFormat::Depth32Float).multisample4,
        "{made} formats multisampled, {refused} attachments refused"
    );
    d.finish();
}

/// Held while a device is opened by the `Stencil8` tests: some open their device with
/// `Stencil8` kept in a depth-stencil format (a process-wide switch), the others must not.
static STENCIL8_OPENING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A device for the `Stencil8` tests, with `Stencil8` in its own format (`S8_UINT` on the
/// devices the suite runs on).
fn stencil8_gpu() -> common::Gpu {
    let _opening = STENCIL8_OPENING.lock().unwrap_or_else(|p| p.into_inner());
    gpu()
}

/// A device that keeps `Stencil8` in `D24_UNORM_S8_UINT` (or `D32_SFLOAT_S8_UINT`), as one
/// without `S8_UINT` attachments does, and as wgpu does: its depth aspect is never read,
/// every barrier names both aspects, and the rest is the stencil's. Forced by the test
/// seam on a device that has `S8_UINT`.
#[cfg(feature = "test-seams")]
fn combined_stencil8_gpu() -> common::Gpu {
    let _opening = STENCIL8_OPENING.lock().unwrap_or_else(|p| p.into_inner());
    let before = vigil::combined_stencil8_devices();
    vigil::force_combined_stencil8(true);
    let d = gpu();
    vigil::force_combined_stencil8(false);
    assert!(
        vigil::combined_stencil8_devices() > before,
        "the device keeps Stencil8 in a depth-stencil format"
    );
    d
}

#[test]
fn stencil8_attachments_are_stencil_tested_read_back_and_sampled() {
    stencil8_round_trip(stencil8_gpu());
}

#[cfg(feature = "test-seams")]
#[test]
fn stencil8_in_a_depth_stencil_format_behaves_as_stencil8() {
    // The same test as above, which the validation layer watches.
    stencil8_round_trip(combined_stencil8_gpu());
}

#[test]
fn multisampled_stencil8_tests_every_sample_across_passes() {
    stencil8_multisampled(stencil8_gpu());
}

#[cfg(feature = "test-seams")]
#[test]
fn multisampled_stencil8_in_a_depth_stencil_format_behaves_as_stencil8() {
    // Its sample counts are those of both aspects of the depth-stencil format.
    stencil8_multisampled(combined_stencil8_gpu());
}

/// A 4-sample `Stencil8` attachment beside a 4-sample colour target resolved each pass.
/// Pass 1: stencil cleared to 7, a quad over the left half replacing it with 3, then a
/// quad over the whole target drawn red where the stencil equals 3. Pass 2 loads the
/// stencil and draws white where it equals 7. The left half is red and the right white,
/// with no sample of either colour in the other half (every sample's stencil kept and
/// tested).
fn stencil8_multisampled(d: common::Gpu) {
    let format = TextureFormat::Stencil8;
    assert!(
        d.format_support(format).multisample4,
        "Stencil8 is multisampled on this device"
    );
    let target4 = target(&d, TextureFormat::Rgba8Unorm, 4);
    let resolved = target(&d, TextureFormat::Rgba8Unorm, 1);
    let s = d
        .create_texture(&TextureDescriptor {
            label: "stencil8 x4",
            size: [W, H],
            format,
            sample_count: 4,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .unwrap();
    let sv = d
        .create_texture_view(s, &TextureViewDescriptor::default())
        .unwrap();
    let replace = stencil8_pipeline(&d, CompareFunction::Always, StencilOperation::Replace, 4);
    let equal = stencil8_pipeline(&d, CompareFunction::Equal, StencilOperation::Keep, 4);
    let left = vertex_buffer(&d, &quad3(0.5, [0.0, 1.0, 0.0, 1.0], -1.0, 0.0));
    let red = vertex_buffer(&d, &quad3(0.5, [1.0, 0.0, 0.0, 1.0], -1.0, 1.0));
    let white = vertex_buffer(&d, &quad3(0.5, [1.0, 1.0, 1.0, 1.0], -1.0, 1.0));
    let pass = |e: &mut CommandEncoder, load, stencil_load| {
        e.begin_render_pass(&RenderPassDescriptor {
            label: "stencil8 x4",
            color_attachments: &[Some(RenderPassColorAttachment {
                view: target4.view,
                depth_slice: None,
                resolve_target: Some(resolved.view),
                load,
                store: StoreOp::Store,
            })],
            depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
                view: sv,
                depth_ops: None,
                stencil_ops: Some(Operations {
                    load: stencil_load,
                    store: StoreOp::Store,
                }),
            }),
            ..Default::default()
        })
        .unwrap();
    };
    let mut e = encoder(&d);
    pass(
        &mut e,
        LoadOp::Clear([0.0, 0.0, 1.0, 1.0]),
        LoadOp::Clear(7),
    );
    e.set_render_pipeline(replace).unwrap();
    e.set_stencil_reference(3).unwrap();
    e.set_vertex_buffer(0, left, 0, None).unwrap();
    e.draw(0..6, 0..1).unwrap();
    e.set_render_pipeline(equal).unwrap();
    e.set_vertex_buffer(0, red, 0, None).unwrap();
    e.draw(0..6, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(&d, resolved.texture);
    assert_eq!(at(&px, 10, 32), [255, 0, 0, 255], "pass 1, left");
    assert_eq!(at(&px, 54, 32), [0, 0, 255, 255], "pass 1, right");
    // A second submission: the stencil is loaded from the first.
    let mut e = encoder(&d);
    pass(&mut e, LoadOp::Load, LoadOp::Load);
    e.set_render_pipeline(equal).unwrap();
    e.set_stencil_reference(7).unwrap();
    e.set_vertex_buffer(0, white, 0, None).unwrap();
    e.draw(0..6, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(&d, resolved.texture);
    for y in [0, H / 2, H - 1] {
        for x in 0..W {
            let want = if x < W / 2 {
                [255, 0, 0, 255]
            } else {
                [255, 255, 255, 255]
            };
            assert_eq!(at(&px, x, y), want, "pass 2 at ({x}, {y})");
        }
    }
    d.finish();
}

/// The pipeline of [`DEPTH_SHADER`] over a `Stencil8` attachment into `samples`-sample
/// targets: both faces compare with `compare` and apply `pass_op` where it passes (the
/// reference from `set_stencil_reference`), every bit read and written.
fn stencil8_pipeline(
    d: &Device,
    compare: CompareFunction,
    pass_op: StencilOperation,
    samples: u32,
) -> RenderPipeline {
    let face = StencilFaceState {
        compare,
        fail_op: StencilOperation::Keep,
        depth_fail_op: StencilOperation::Keep,
        pass_op,
    };
    let state = DepthStencilState {
        format: TextureFormat::Stencil8,
        depth_write_enabled: false,
        depth_compare: CompareFunction::Always,
        stencil: StencilState {
            front: face,
            back: face,
            read_mask: 0xff,
            write_mask: 0xff,
        },
        bias: DepthBiasState::default(),
    };
    pos3_pipeline_sampled(
        d,
        (empty_layout(d), module(d, DEPTH_SHADER)),
        PrimitiveState::default(),
        Some(state),
        samples,
    )
}

/// Stencil cleared to 7, a quad over the left half replacing it with 3 (its colour drawn
/// where the stencil test passes: everywhere, Always); the stencil read back as bytes and
/// sampled as unsigned integers.
fn stencil8_round_trip(d: common::Gpu) {
    let format = TextureFormat::Stencil8;
    let t = target(&d, TextureFormat::Rgba8Unorm, 1);
    let s = d
        .create_texture(&TextureDescriptor {
            label: "stencil8",
            size: [W, H],
            format,
            usage: TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST
                | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap();
    let sv = d
        .create_texture_view(s, &TextureViewDescriptor::default())
        .unwrap();
    let p = stencil8_pipeline(&d, CompareFunction::Always, StencilOperation::Replace, 1);
    let left = vertex_buffer(&d, &quad3(0.5, [0.0, 1.0, 0.0, 1.0], -1.0, 0.0));
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        label: "stencil8",
        color_attachments: &[Some(clear([0.0, 0.0, 1.0, 1.0], t.view))],
        depth_stencil_attachment: Some(RenderPassDepthStencilAttachment {
            view: sv,
            depth_ops: None,
            stencil_ops: Some(Operations {
                load: LoadOp::Clear(7),
                store: StoreOp::Store,
            }),
        }),
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_stencil_reference(3).unwrap();
    e.set_vertex_buffer(0, left, 0, None).unwrap();
    e.draw(0..6, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let px = pixels(&d, t.texture);
    assert_eq!(at(&px, 10, 32), [0, 255, 0, 255]);
    assert_eq!(at(&px, 54, 32), [0, 0, 255, 255]);
    let bytes = d
        .read_texture(s, TexelCopyTextureInfo::default(), [W, H])
        .unwrap();
    for (x, want) in [(0, 3), (W / 2 - 1, 3), (W / 2, 7), (W - 1, 7)] {
        assert_eq!(bytes[(H / 2 * W + x) as usize], want, "x {x}");
    }
    let Value::U(v) = load(&d, sv, format, [W - 4, 4], 0) else {
        panic!("stencil sampled as unsigned integers")
    };
    assert_eq!(v[0], 7);
    let Value::U(v) = load(&d, sv, format, [4, 4], 0) else {
        panic!("stencil sampled as unsigned integers")
    };
    assert_eq!(v[0], 3);
    // Its stencil aspect written by a copy (one row), then the whole texture cleared by
    // its stencil aspect after the row is copied out.
    let stencil = TexelCopyTextureInfo {
        origin: [0, 5],
        aspect: TextureAspect::StencilOnly,
        ..Default::default()
    };
    let row: Vec<u8> = (0..W as u8).collect();
    let layout = TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: W,
        rows_per_image: None,
    };
    d.write_texture(s, stencil, &row, layout, [W, 1, 1])
        .unwrap();
    assert_eq!(d.read_texture(s, stencil, [W, 1]).unwrap(), row);
    let mut e = encoder(&d);
    e.clear_texture(
        s,
        &ImageSubresourceRange {
            aspect: TextureAspect::StencilOnly,
            ..Default::default()
        },
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let bytes = d
        .read_texture(s, TexelCopyTextureInfo::default(), [W, H])
        .unwrap();
    assert!(bytes.iter().all(|&b| b == 0), "cleared");
    d.finish();
}

#[test]
fn float32_textures_are_filtered_with_float32_filterable() {
    // A 2x1 texture of 0 and 1 (per channel 0, 1, 2, 3 times that), sampled linearly halfway
    // between the two texels' centres: half of each.
    let d = gpu();
    assert!(d.features().contains(Features::FLOAT32_FILTERABLE));
    let sampler = common::linear_sampler(&d);
    for (format, components) in [
        (TextureFormat::R32Float, 1),
        (TextureFormat::Rg32Float, 2),
        (TextureFormat::Rgba32Float, 4),
    ] {
        let t = d
            .create_texture(&TextureDescriptor {
                label: format.wgsl_name(),
                size: [2, 1],
                format,
                usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                ..Default::default()
            })
            .unwrap();
        let texel = |v: f32| (0..components).flat_map(move |c| (v * c as f32).to_le_bytes());
        let data: Vec<u8> = texel(0.0).chain(texel(1.0)).collect();
        d.write_texture(
            t,
            TexelCopyTextureInfo::default(),
            &data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: data.len() as u32,
                rows_per_image: None,
            },
            [2, 1, 1],
        )
        .unwrap();
        let view = d
            .create_texture_view(t, &TextureViewDescriptor::default())
            .unwrap();
        let out = d
            .create_buffer(&BufferDescriptor {
                label: "sampled",
                size: 16,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            })
            .unwrap();
        let (bgl, group) = common::group_of(
            &d,
            ShaderStages::COMPUTE,
            &[
                (
                    BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: true },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                    BindingResource::TextureView(view),
                ),
                (
                    BindingType::Sampler(SamplerBindingType::Filtering),
                    BindingResource::Sampler(sampler),
                ),
                (
                    common::storage_buffer(false),
                    BindingResource::Buffer(BufferBinding::whole(out)),
                ),
            ],
        );
        let wgsl = "@group(0) @binding(0) var t: texture_2d<f32>;
             @group(0) @binding(1) var s: sampler;
             @group(0) @binding(2) var<storage, read_write> out: vec4<f32>;
             @compute @workgroup_size(1) fn main() {
                 out = textureSampleLevel(t, s, vec2<f32>(0.5, 0.5), 0.0);
             }";
        common::dispatch_wgsl(&d, wgsl, bgl, group, [1, 1, 1]);
        let b = d.read_buffer(out, 0, 16).unwrap();
        for c in 0..components {
            let i = c as usize * 4;
            let got = f32::from_le_bytes(b[i..i + 4].try_into().unwrap());
            let want = 0.5 * c as f32;
            assert!(
                (got - want).abs() < 1e-3,
                "{format:?} channel {c}: {got}, want {want}"
            );
        }
    }
    d.finish();
}

#[test]
fn a_bc_copy_of_one_layer_takes_any_rows_per_image() {
    // With one layer the rows between images are never used, and any count is accepted;
    // Vulkan counts them in texels (four a block row), past u32 for this one.
    let d = bc_gpu();
    let t = bc_texture(&d, TextureFormat::Bc1RgbaUnorm, [8, 8], 1, 1);
    let src = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "blocks",
            contents: &[bc1_block(), vec![0; 248], bc1_block()].concat(),
            usage: BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = encoder(&d);
    e.copy_buffer_to_texture(
        src,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: Some(0x4000_0001),
        },
        t,
        TexelCopyTextureInfo::default(),
        [4, 8, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let back = d
        .read_texture(t, TexelCopyTextureInfo::default(), [4, 8])
        .unwrap();
    assert_eq!(back, [bc1_block(), bc1_block()].concat());
    d.finish();
}
