//! 1D and 3D textures on a real device: volumes written from the CPU and read back by
//! slices and sub-boxes, at mip levels whose depth halves; loaded, sampled and stored by
//! shaders (1D textures loaded, stored, and sampled with a filter in a fragment shader);
//! copied to and from 2D arrays (layers to slices); zeroed before first use; rendered into
//! a slice at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/draw.rs"]
mod draw;

use common::{bytes_of, gpu, read_u32};
use draw::*;
use vigil::*;

/// The value of texel `(x, y, z)` of mip level `mip` in these tests.
fn texel(mip: u32, x: u32, y: u32, z: u32) -> u32 {
    (0x0100_0000 * (mip + 1)) | (z << 16) | (y << 8) | x
}

/// The `[w, h, d]` box of [`texel`] values from `(x, y, z)` of `mip`, in x, y, z order.
fn expected(mip: u32, at: [u32; 3], size: [u32; 3]) -> Vec<u32> {
    let mut out = Vec::new();
    for z in at[2]..at[2] + size[2] {
        for y in at[1]..at[1] + size[1] {
            for x in at[0]..at[0] + size[0] {
                out.push(texel(mip, x, y, z));
            }
        }
    }
    out
}

/// An `R32Uint` texture of `dimension`: `[w, h]`, and `depth` slices (or layers).
fn texture(
    d: &Device,
    dimension: TextureDimension,
    size: [u32; 2],
    depth: u32,
    mips: u32,
    usage: TextureUsages,
) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "shaped",
        dimension,
        size,
        array_layers: depth,
        mip_level_count: mips,
        format: TextureFormat::R32Uint,
        usage,
        ..Default::default()
    })
    .unwrap()
}

fn at(mip: u32, x: u32, y: u32, z: u32) -> TexelCopyTextureInfo {
    TexelCopyTextureInfo {
        mip_level: mip,
        origin: [x, y],
        array_layer: z,
        aspect: TextureAspect::All,
    }
}

/// Writes [`texel`] values into all of mip level `mip` (`size` at that level).
fn fill(d: &Device, t: Texture, mip: u32, size: [u32; 3]) {
    let words = expected(mip, [0; 3], size);
    d.write_texture(
        t,
        at(mip, 0, 0, 0),
        &bytes_of(&words),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: size[0] * 4,
            rows_per_image: Some(size[1]),
        },
        size,
    )
    .unwrap();
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Copies the `size` box at `from` of `t` into a buffer (256-byte rows, `size[1]` rows an
/// image) and returns its words, packed.
fn copied_out(d: &Device, t: Texture, from: TexelCopyTextureInfo, size: [u32; 3]) -> Vec<u32> {
    let bytes = u64::from(256 * size[1] * size[2]);
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "copied out",
            size: bytes,
            usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
        })
        .unwrap();
    let mut e = encoder(d);
    e.copy_texture_to_buffer(
        t,
        from,
        b,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: Some(size[1]),
        },
        size,
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let all = d.read_buffer(b, 0, bytes).unwrap();
    let mut out = Vec::new();
    for row in all.chunks_exact(256) {
        out.extend(words(&row[..size[0] as usize * 4]));
    }
    out
}

#[test]
fn volumes_are_written_and_read_back_by_slices_and_boxes() {
    let d = gpu();
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
    // 8x4x6 with levels 4x2x3 and 2x1x1: each level halves the depth too.
    let t = texture(&d, TextureDimension::D3, [8, 4], 6, 3, usage);
    let sizes = [[8, 4, 6], [4, 2, 3], [2, 1, 1]];
    for (mip, size) in sizes.iter().enumerate() {
        fill(&d, t, mip as u32, *size);
    }
    // Every slice of every level, one at a time.
    for (mip, &[w, h, depth]) in sizes.iter().enumerate() {
        let mip = mip as u32;
        for z in 0..depth {
            let got = words(&d.read_texture(t, at(mip, 0, 0, z), [w, h]).unwrap());
            assert_eq!(
                got,
                expected(mip, [0, 0, z], [w, h, 1]),
                "mip {mip} slice {z}"
            );
        }
    }
    // A box inside the volume, through an encoder's copy.
    let got = copied_out(&d, t, at(0, 1, 1, 2), [3, 2, 3]);
    assert_eq!(got, expected(0, [1, 1, 2], [3, 2, 3]));
    // The last slice of level 1 is 2; the box past it is refused and changes nothing.
    let e = d.read_texture(t, at(1, 0, 0, 3), [4, 2]).unwrap_err();
    assert_eq!(e.rule(), Rule::CopyBox);
    // A fresh volume reads as zeros in every slice.
    let fresh = texture(&d, TextureDimension::D3, [4, 4], 5, 1, usage);
    assert_eq!(
        copied_out(&d, fresh, at(0, 0, 0, 0), [4, 4, 5]),
        vec![0; 80]
    );
    d.finish();
}

#[test]
fn clear_texture_zeroes_every_slice_of_a_volume_level() {
    let d = gpu();
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
    let t = texture(&d, TextureDimension::D3, [8, 4], 6, 2, usage);
    let sizes = [[8, 4, 6], [4, 2, 3]];
    for (mip, size) in sizes.iter().enumerate() {
        fill(&d, t, mip as u32, *size);
    }
    // Level 0: one layer, its six slices together.
    let mut e = encoder(&d);
    e.clear_texture(
        t,
        &ImageSubresourceRange {
            mip_level_count: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(copied_out(&d, t, at(0, 0, 0, 0), [8, 4, 6]), vec![0; 192]);
    assert_eq!(
        copied_out(&d, t, at(1, 0, 0, 0), [4, 2, 3]),
        expected(1, [0; 3], [4, 2, 3])
    );
    d.finish();
}

#[test]
fn volumes_copy_to_and_from_2d_arrays_slice_by_layer() {
    let d = gpu();
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
    let volume = texture(&d, TextureDimension::D3, [4, 4], 3, 1, usage);
    fill(&d, volume, 0, [4, 4, 3]);
    // Slices 1 and 2 into layers 0 and 1 of a 2D array, at (1, 0).
    let array = texture(&d, TextureDimension::D2, [8, 4], 2, 1, usage);
    let mut e = encoder(&d);
    e.copy_texture_to_texture(volume, at(0, 0, 0, 1), array, at(0, 1, 0, 0), [4, 4, 2])
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    for layer in 0..2 {
        let got = words(&d.read_texture(array, at(0, 1, 0, layer), [4, 4]).unwrap());
        assert_eq!(
            got,
            expected(0, [0, 0, layer + 1], [4, 4, 1]),
            "layer {layer}"
        );
        // The column left of the box stays zero.
        let left = words(&d.read_texture(array, at(0, 0, 0, layer), [1, 4]).unwrap());
        assert_eq!(left, vec![0; 4]);
    }
    // And back: both layers into slices 0 and 1 of a second volume, its slice 2 untouched.
    let back = texture(&d, TextureDimension::D3, [4, 4], 3, 1, usage);
    let mut e = encoder(&d);
    e.copy_texture_to_texture(array, at(0, 1, 0, 0), back, at(0, 0, 0, 0), [4, 4, 2])
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let got = copied_out(&d, back, at(0, 0, 0, 0), [4, 4, 3]);
    let mut want = expected(0, [0, 0, 1], [4, 4, 2]);
    want.extend([0; 16]);
    assert_eq!(got, want);
    // Volume to volume, a box between different slices.
    let mut e = encoder(&d);
    e.copy_texture_to_texture(volume, at(0, 2, 2, 0), back, at(0, 0, 0, 1), [2, 2, 2])
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let got = copied_out(&d, back, at(0, 0, 0, 1), [2, 2, 2]);
    assert_eq!(got, expected(0, [2, 2, 0], [2, 2, 2]));
    d.finish();
}

/// One dispatch of `wgsl`'s `main` over `groups` workgroups, with one group whose binding
/// `i` is `bindings[i]`.
fn dispatch(d: &Device, wgsl: &str, bindings: &[(BindingType, BindingResource)], groups: [u32; 3]) {
    let (bgl, group) = common::group_of(d, ShaderStages::COMPUTE, bindings);
    common::dispatch_wgsl(d, wgsl, bgl, group, groups);
}

fn out_buffer(d: &Device, words: u64) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label: "out",
        size: words * 4,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
    })
    .unwrap()
}

fn view(d: &Device, t: Texture) -> TextureView {
    d.create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap()
}

/// A vertex shader (`vs`) drawing one triangle over the whole target.
const FULL_SCREEN: &str =
    "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i & 1u) * 4.0 - 1.0;
    let y = f32(i >> 1u) * 4.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}";

/// An `Rgba8Unorm` 1D row of four texels whose red is 0, 64, 128 and 255, written; with
/// its texels' bytes.
fn red_row(d: &Device, usage: TextureUsages) -> (Texture, Vec<u8>) {
    let t = d
        .create_texture(&TextureDescriptor {
            label: "row",
            dimension: TextureDimension::D1,
            size: [4, 1],
            format: TextureFormat::Rgba8Unorm,
            usage: usage | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    let texels: Vec<u8> = [0u8, 64, 128, 255]
        .iter()
        .flat_map(|&r| [r, 0, 0, 255])
        .collect();
    d.write_texture(
        t,
        at(0, 0, 0, 0),
        &texels,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 16,
            rows_per_image: None,
        },
        [4, 1, 1],
    )
    .unwrap();
    (t, texels)
}

#[test]
fn volumes_are_loaded_stored_and_sampled_by_shaders() {
    let d = gpu();
    // Loaded: every texel of both levels of a 4x2x4 volume (level 1: 2x1x2).
    let t = texture(
        &d,
        TextureDimension::D3,
        [4, 2],
        4,
        2,
        TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
    );
    fill(&d, t, 0, [4, 2, 4]);
    fill(&d, t, 1, [2, 1, 2]);
    let out = out_buffer(&d, 36);
    dispatch(
        &d,
        "@group(0) @binding(0) var t: texture_3d<u32>;
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(4, 2, 4) fn main(@builtin(local_invocation_id) id: vec3<u32>) {
             out[id.z * 8u + id.y * 4u + id.x] = textureLoad(t, id, 0).r;
             if (id.x < 2u && id.y < 1u && id.z < 2u) {
                 out[32u + id.z * 2u + id.x] = textureLoad(t, id, 1).r;
             }
         }",
        &[
            (
                BindingType::Texture {
                    sample_type: TextureSampleType::Uint,
                    view_dimension: TextureViewDimension::D3,
                    multisampled: false,
                },
                BindingResource::TextureView(view(&d, t)),
            ),
            (
                common::storage_buffer(false),
                BindingResource::Buffer(BufferBinding::whole(out)),
            ),
        ],
        [1, 1, 1],
    );
    let mut want = expected(0, [0; 3], [4, 2, 4]);
    want.extend(expected(1, [0; 3], [2, 1, 2]));
    assert_eq!(read_u32(&d, out, 36), want);

    // Stored: a storage volume written by a shader, read back by a copy.
    let s = texture(
        &d,
        TextureDimension::D3,
        [4, 4],
        2,
        1,
        TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
    );
    dispatch(
        &d,
        "@group(0) @binding(0) var s: texture_storage_3d<r32uint, write>;
         @compute @workgroup_size(4, 4, 2) fn main(@builtin(local_invocation_id) id: vec3<u32>) {
             textureStore(s, id, vec4<u32>(0x01000000u | (id.z << 16u) | (id.y << 8u) | id.x));
         }",
        &[(
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::R32Uint,
                view_dimension: TextureViewDimension::D3,
            },
            BindingResource::TextureView(view(&d, s)),
        )],
        [1, 1, 1],
    );
    assert_eq!(
        copied_out(&d, s, at(0, 0, 0, 0), [4, 4, 2]),
        expected(0, [0; 3], [4, 4, 2])
    );

    // Sampled: halfway between two slices, a linear sampler blends them.
    let f = d
        .create_texture(&TextureDescriptor {
            label: "blend",
            dimension: TextureDimension::D3,
            size: [2, 2],
            array_layers: 2,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    let mut rgba = vec![0u8; 16];
    rgba.extend([255u8, 64, 0, 255].repeat(4));
    d.write_texture(
        f,
        at(0, 0, 0, 0),
        &rgba,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 8,
            rows_per_image: Some(2),
        },
        [2, 2, 2],
    )
    .unwrap();
    let sampler = common::linear_sampler(&d);
    let out = out_buffer(&d, 8);
    dispatch(
        &d,
        "@group(0) @binding(0) var t: texture_3d<f32>;
         @group(0) @binding(1) var s: sampler;
         @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>, 2>;
         @compute @workgroup_size(1) fn main() {
             out[0] = textureSampleLevel(t, s, vec3<f32>(0.5, 0.5, 0.5), 0.0);
             out[1] = textureSampleLevel(t, s, vec3<f32>(0.5, 0.5, 0.75), 0.0);
         }",
        &[
            (
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D3,
                    multisampled: false,
                },
                BindingResource::TextureView(view(&d, f)),
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
        [1, 1, 1],
    );
    let got: Vec<f32> = read_u32(&d, out, 8)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    // z = 0.5 is halfway between the slices' centres (the first slice is all zero); 0.75
    // is the second slice's centre.
    let want = [0.5, 32.0 / 255.0, 0.0, 0.5, 1.0, 64.0 / 255.0, 0.0, 1.0];
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 0.01, "channel {i}: {g} against {w}");
    }
    d.finish();
}

#[test]
fn rows_are_loaded_stored_and_copied() {
    let d = gpu();
    // A 1D row of four texels whose red is 0, 64, 128 and 255.
    let (t, texels) = red_row(&d, TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC);
    assert_eq!(d.read_texture(t, at(0, 0, 0, 0), [4, 1]).unwrap(), texels);
    // Loaded by a shader, which sees its width. (WGSL samples 1D textures only with
    // implicit derivatives, in fragment shaders.)
    let out = out_buffer(&d, 2);
    dispatch(
        &d,
        "@group(0) @binding(0) var t: texture_1d<f32>;
         @group(0) @binding(1) var<storage, read_write> out: array<f32, 2>;
         @compute @workgroup_size(1) fn main() {
             out[0] = textureLoad(t, 2, 0).r;
             out[1] = f32(textureDimensions(t));
         }",
        &[
            (
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D1,
                    multisampled: false,
                },
                BindingResource::TextureView(view(&d, t)),
            ),
            (
                common::storage_buffer(false),
                BindingResource::Buffer(BufferBinding::whole(out)),
            ),
        ],
        [1, 1, 1],
    );
    let got: Vec<f32> = read_u32(&d, out, 2)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    assert!((got[0] - 128.0 / 255.0).abs() < 1e-6, "{got:?}");
    assert_eq!(got[1], 4.0);

    // Stored by a shader, then copied to a second row.
    let s = texture(
        &d,
        TextureDimension::D1,
        [8, 1],
        1,
        1,
        TextureUsages::STORAGE_BINDING | TextureUsages::COPY_SRC,
    );
    dispatch(
        &d,
        "@group(0) @binding(0) var s: texture_storage_1d<r32uint, write>;
         @compute @workgroup_size(8) fn main(@builtin(local_invocation_id) id: vec3<u32>) {
             textureStore(s, id.x, vec4<u32>(id.x * 3u + 1u));
         }",
        &[(
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::R32Uint,
                view_dimension: TextureViewDimension::D1,
            },
            BindingResource::TextureView(view(&d, s)),
        )],
        [1, 1, 1],
    );
    let copy = texture(
        &d,
        TextureDimension::D1,
        [8, 1],
        1,
        1,
        TextureUsages::COPY_SRC | TextureUsages::COPY_DST,
    );
    let mut e = encoder(&d);
    e.copy_texture_to_texture(s, at(0, 2, 0, 0), copy, at(0, 0, 0, 0), [6, 1, 1])
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let got = words(&d.read_texture(copy, at(0, 0, 0, 0), [8, 1]).unwrap());
    assert_eq!(got, [7, 10, 13, 16, 19, 22, 0, 0]);
    d.finish();
}

#[test]
fn passes_render_into_slices_of_a_volume() {
    let d = gpu();
    // A 4x4x3 volume, every texel of every slice first written as (10, 20, 30, 40).
    let t = d
        .create_texture(&TextureDescriptor {
            label: "rendered volume",
            dimension: TextureDimension::D3,
            size: [4, 4],
            array_layers: 3,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::COPY_SRC
                | TextureUsages::COPY_DST,
            ..Default::default()
        })
        .unwrap();
    let before = [10u8, 20, 30, 40];
    d.write_texture(
        t,
        at(0, 0, 0, 0),
        &before.repeat(48),
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 16,
            rows_per_image: Some(4),
        },
        [4, 4, 3],
    )
    .unwrap();
    let v = view(&d, t);
    let wgsl = FULL_SCREEN.to_owned()
        + "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0, 1.0, 0.0, 1.0); }";
    let targets = [color_target(TextureFormat::Rgba8Unorm)];
    let p = d
        .create_render_pipeline(&pipeline_desc(
            empty_layout(&d),
            module(&d, &wgsl),
            &[],
            &targets,
        ))
        .unwrap();
    let mut e = encoder(&d);
    // Slice 1 cleared to red; slice 2 kept and drawn over in green; slice 0 not named.
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(RenderPassColorAttachment {
            depth_slice: Some(1),
            ..clear([1.0, 0.0, 0.0, 1.0], v)
        })],
        ..Default::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(RenderPassColorAttachment {
            view: v,
            depth_slice: Some(2),
            resolve_target: None,
            load: LoadOp::Load,
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let slice = |z| d.read_texture(t, at(0, 0, 0, z), [4, 4]).unwrap();
    assert_eq!(slice(0), before.repeat(16), "slice 0 keeps its texels");
    assert_eq!(slice(1), [255u8, 0, 0, 255].repeat(16), "slice 1 cleared");
    assert_eq!(slice(2), [0u8, 255, 0, 255].repeat(16), "slice 2 drawn");
    // Two slices of the volume as two attachments of one pass; the same slice twice is
    // refused.
    let two = |slices: [u32; 2]| {
        let mut e = encoder(&d);
        e.begin_render_pass(&RenderPassDescriptor {
            color_attachments: &[
                Some(RenderPassColorAttachment {
                    depth_slice: Some(slices[0]),
                    ..clear([0.0, 0.0, 1.0, 1.0], v)
                }),
                Some(RenderPassColorAttachment {
                    depth_slice: Some(slices[1]),
                    ..clear([1.0, 1.0, 1.0, 1.0], v)
                }),
            ],
            ..Default::default()
        })
        .map(|()| e)
    };
    let err = two([1, 1]).map(|_| ()).unwrap_err();
    assert_eq!(err.rule(), Rule::AttachmentView);
    let mut e = two([0, 1]).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    assert_eq!(
        slice(0),
        [0u8, 0, 255, 255].repeat(16),
        "slice 0 cleared blue"
    );
    assert_eq!(slice(1), [255u8; 4].repeat(16), "slice 1 cleared white");
    assert_eq!(slice(2), [0u8, 255, 0, 255].repeat(16), "slice 2 kept");
    // A slice past the volume, or none named, is refused.
    for depth_slice in [Some(3), None] {
        let mut e = encoder(&d);
        let err = e
            .begin_render_pass(&RenderPassDescriptor {
                color_attachments: &[Some(RenderPassColorAttachment {
                    depth_slice,
                    ..clear([0.0; 4], v)
                })],
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(err.rule(), Rule::AttachmentDepthSlice);
    }
    d.finish();
}

#[test]
fn rows_are_sampled_with_a_filter_in_fragment_shaders() {
    let d = gpu();
    // A row of four texels whose red is 0, 64, 128 and 255, sampled linearly across an
    // 8x1 target: pixel x samples at u = (x + 0.5) / 8, texel coordinate x / 2 - 0.25.
    let (t, _) = red_row(&d, TextureUsages::TEXTURE_BINDING);
    let (bgl, group) = common::group_of(
        &d,
        ShaderStages::FRAGMENT,
        &[
            (
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D1,
                    multisampled: false,
                },
                BindingResource::TextureView(view(&d, t)),
            ),
            (
                BindingType::Sampler(SamplerBindingType::Filtering),
                BindingResource::Sampler(common::linear_sampler(&d)),
            ),
        ],
    );
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "row",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let wgsl = FULL_SCREEN.to_owned()
        + "@group(0) @binding(0) var t: texture_1d<f32>;
                @group(0) @binding(1) var s: sampler;
                @fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
                    return textureSample(t, s, p.x / 8.0);
                }";
    let targets = [color_target(TextureFormat::Rgba8Unorm)];
    let p = d
        .create_render_pipeline(&pipeline_desc(layout, module(&d, &wgsl), &[], &targets))
        .unwrap();
    let (target, target_view) = common::readable_target(&d, [8, 1]);
    let mut e = encoder(&d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(clear([0.0; 4], target_view))],
        ..Default::default()
    })
    .unwrap();
    e.set_render_pipeline(p).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.draw(0..3, 0..1).unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let got: Vec<u8> = d
        .read_texture(target, at(0, 0, 0, 0), [8, 1])
        .unwrap()
        .chunks_exact(4)
        .map(|c| c[0])
        .collect();
    // Clamped at both ends; between texels, a quarter and three quarters of the way.
    let want = [0.0, 16.0, 48.0, 80.0, 112.0, 159.75, 223.25, 255.0];
    for (x, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (f32::from(*g) - w).abs() <= 2.0,
            "pixel {x}: red {g}, want about {w} (all: {got:?})"
        );
    }
    d.finish();
}
