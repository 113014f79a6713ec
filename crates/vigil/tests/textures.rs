//! Texture transfers on a real device, checked texel by texel.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::gpu;
use vigil::*;

fn texture(d: &Device, size: [u32; 2], mips: u32, layers: u32, usage: TextureUsages) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "tex",
        size,
        mip_level_count: mips,
        array_layers: layers,
        format: TextureFormat::Rgba8Unorm,
        usage,
        ..Default::default()
    })
    .unwrap()
}

fn pattern(w: u32, h: u32, seed: u8) -> Vec<u8> {
    (0..w * h * 4)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn texel(data: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [data[i], data[i + 1], data[i + 2], data[i + 3]]
}

const ALL: TextureUsages = TextureUsages::COPY_SRC
    .union(TextureUsages::COPY_DST)
    .union(TextureUsages::TEXTURE_BINDING);

#[test]
fn new_textures_read_as_zero() {
    let d = gpu();
    let t = texture(&d, [8, 8], 1, 1, ALL);
    assert!(
        d.read_texture(t, TexelCopyTextureInfo::default(), [8, 8])
            .unwrap()
            .iter()
            .all(|b| *b == 0)
    );
}

#[test]
fn a_partial_write_changes_only_its_rectangle() {
    let d = gpu();
    let (w, h) = (16, 12);
    let t = texture(&d, [w, h], 1, 1, ALL);
    let base = pattern(w, h, 7);
    d.write_texture(
        t,
        TexelCopyTextureInfo::default(),
        &base,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: w * 4,
            rows_per_image: None,
        },
        [w, h, 1],
    )
    .unwrap();
    // A 5x3 rectangle at (6, 4), from a source with padded rows and a leading offset.
    let (rw, rh, pitch, offset) = (5u32, 3u32, 32u32, 12u64);
    let mut src = vec![0xEEu8; offset as usize + (pitch * rh) as usize];
    for y in 0..rh {
        for x in 0..rw {
            let i = offset as usize + (y * pitch + x * 4) as usize;
            src[i..i + 4].copy_from_slice(&[x as u8, y as u8, 200, 255]);
        }
    }
    d.write_texture(
        t,
        TexelCopyTextureInfo {
            origin: [6, 4],
            ..Default::default()
        },
        &src,
        TexelCopyBufferLayout {
            offset,
            bytes_per_row: pitch,
            rows_per_image: None,
        },
        [rw, rh, 1],
    )
    .unwrap();
    let out = d
        .read_texture(t, TexelCopyTextureInfo::default(), [w, h])
        .unwrap();
    for y in 0..h {
        for x in 0..w {
            let inside = (6..6 + rw).contains(&x) && (4..4 + rh).contains(&y);
            let want = if inside {
                [(x - 6) as u8, (y - 4) as u8, 200, 255]
            } else {
                texel(&base, w, x, y)
            };
            assert_eq!(texel(&out, w, x, y), want, "texel ({x},{y})");
        }
    }
}

#[test]
fn writes_reach_the_mip_level_and_layer_they_name() {
    let d = gpu();
    let t = texture(&d, [8, 8], 3, 2, ALL);
    let level1 = pattern(4, 4, 99);
    d.write_texture(
        t,
        TexelCopyTextureInfo {
            mip_level: 1,
            array_layer: 1,
            ..Default::default()
        },
        &level1,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 16,
            rows_per_image: None,
        },
        [4, 4, 1],
    )
    .unwrap();
    assert_eq!(
        d.read_texture(
            t,
            TexelCopyTextureInfo {
                mip_level: 1,
                array_layer: 1,
                ..Default::default()
            },
            [4, 4]
        )
        .unwrap(),
        level1
    );
    assert!(
        d.read_texture(
            t,
            TexelCopyTextureInfo {
                mip_level: 1,
                array_layer: 0,
                ..Default::default()
            },
            [4, 4]
        )
        .unwrap()
        .iter()
        .all(|b| *b == 0)
    );
    assert!(
        d.read_texture(
            t,
            TexelCopyTextureInfo {
                mip_level: 0,
                array_layer: 1,
                ..Default::default()
            },
            [8, 8]
        )
        .unwrap()
        .iter()
        .all(|b| *b == 0)
    );
}

#[test]
fn buffer_to_texture_to_texture_to_buffer_round_trip() {
    let d = gpu();
    let (w, h) = (20, 10);
    let src = d
        .create_buffer(&BufferDescriptor {
            label: "src",
            size: 256 * h as u64,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let data = pattern(w, h, 3);
    let mut padded = vec![0u8; 256 * h as usize];
    for y in 0..h as usize {
        padded[y * 256..y * 256 + (w * 4) as usize]
            .copy_from_slice(&data[y * (w * 4) as usize..(y + 1) * (w * 4) as usize]);
    }
    d.write_buffer(src, 0, &padded).unwrap();
    let a = texture(&d, [w, h], 1, 1, ALL);
    let b = texture(&d, [32, 32], 1, 1, ALL);
    let dst = d
        .create_buffer(&BufferDescriptor {
            label: "dst",
            size: 256 * 4,
            usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "copies" })
        .unwrap();
    e.copy_buffer_to_texture(
        src,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        a,
        TexelCopyTextureInfo::default(),
        [w, h, 1],
    )
    .unwrap();
    // Move a 6x4 box from (10, 3) in `a` to (1, 2) in `b`, then read (1, 2)..(7, 6) of `b`.
    e.copy_texture_to_texture(
        a,
        TexelCopyTextureInfo {
            origin: [10, 3],
            ..Default::default()
        },
        b,
        TexelCopyTextureInfo {
            origin: [1, 2],
            ..Default::default()
        },
        [6, 4, 1],
    )
    .unwrap();
    e.copy_texture_to_buffer(
        b,
        TexelCopyTextureInfo {
            origin: [1, 2],
            ..Default::default()
        },
        dst,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        [6, 4, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let out = d.read_buffer(dst, 0, 256 * 4).unwrap();
    for y in 0..4u32 {
        for x in 0..6u32 {
            let i = (y * 256 + x * 4) as usize;
            assert_eq!(
                [out[i], out[i + 1], out[i + 2], out[i + 3]],
                texel(&data, w, x + 10, y + 3),
                "({x},{y})"
            );
        }
    }
    // The rest of `b` is untouched.
    let whole = d
        .read_texture(b, TexelCopyTextureInfo::default(), [32, 32])
        .unwrap();
    assert_eq!(texel(&whole, 32, 0, 0), [0; 4]);
    assert_eq!(texel(&whole, 32, 7, 2), [0; 4]);
}

#[test]
fn copy_rules_are_checked() {
    let d = gpu();
    let t = texture(&d, [8, 8], 1, 1, ALL);
    let buf = d
        .create_buffer(&BufferDescriptor {
            label: "b",
            size: 4096,
            usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
        .unwrap();
    let layout = |bpr| TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: bpr,
        rows_per_image: None,
    };
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    assert_eq!(
        e.copy_buffer_to_texture(
            buf,
            layout(100),
            t,
            TexelCopyTextureInfo::default(),
            [8, 8, 1]
        )
        .unwrap_err()
        .kind(),
        ErrorKind::OutOfBounds
    );
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    assert_eq!(
        e.copy_buffer_to_texture(
            buf,
            layout(256),
            t,
            TexelCopyTextureInfo {
                origin: [4, 0],
                ..Default::default()
            },
            [8, 8, 1]
        )
        .unwrap_err()
        .kind(),
        ErrorKind::OutOfBounds
    );
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    assert_eq!(
        e.copy_buffer_to_texture(
            buf,
            layout(256),
            t,
            TexelCopyTextureInfo::default(),
            [8, 32, 1]
        )
        .unwrap_err()
        .kind(),
        ErrorKind::OutOfBounds
    );
    assert_eq!(
        d.write_texture(
            t,
            TexelCopyTextureInfo::default(),
            &[0u8; 10],
            layout(32),
            [8, 8, 1]
        )
        .unwrap_err()
        .kind(),
        ErrorKind::OutOfBounds,
        "data too short"
    );
    let sampled_only = texture(&d, [8, 8], 1, 1, TextureUsages::TEXTURE_BINDING);
    assert_eq!(
        d.write_texture(
            sampled_only,
            TexelCopyTextureInfo::default(),
            &[0u8; 256],
            layout(32),
            [8, 2, 1]
        )
        .unwrap_err()
        .kind(),
        ErrorKind::UsageMismatch
    );
}

const FILL: &str = r#"
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    textureStore(img, vec2<i32>(id.xy), vec4<f32>(f32(id.x) / 255.0, f32(id.y) / 255.0, 128.0 / 255.0, 1.0));
}
"#;

#[test]
fn a_storage_texture_written_by_compute_reads_back() {
    let d = gpu();
    let t = d
        .create_texture(&TextureDescriptor {
            label: "storage",
            size: [16, 16],
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::STORAGE_BINDING
                | TextureUsages::COPY_SRC
                | TextureUsages::TEXTURE_BINDING,
            ..Default::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "fill",
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }],
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "fill",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "fill",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "fill",
            wgsl: FILL,
        })
        .unwrap();
    let p = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "fill",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(2, 2, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let out = d
        .read_texture(t, TexelCopyTextureInfo::default(), [16, 16])
        .unwrap();
    for y in 0..16 {
        for x in 0..16 {
            assert_eq!(
                texel(&out, 16, x, y),
                [x as u8, y as u8, 128, 255],
                "({x},{y})"
            );
        }
    }
}

fn write_level(d: &Device, t: Texture, mip: u32, layer: u32, data: &[u8]) {
    let w = 8 >> mip;
    d.write_texture(
        t,
        TexelCopyTextureInfo {
            mip_level: mip,
            array_layer: layer,
            ..Default::default()
        },
        data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: w * 4,
            rows_per_image: None,
        },
        [w, w, 1],
    )
    .unwrap();
}

fn read_level(d: &Device, t: Texture, mip: u32, layer: u32) -> Vec<u8> {
    let w = 8 >> mip;
    d.read_texture(
        t,
        TexelCopyTextureInfo {
            mip_level: mip,
            array_layer: layer,
            ..Default::default()
        },
        [w, w],
    )
    .unwrap()
}

#[test]
fn clear_texture_zeroes_the_levels_and_layers_it_names() {
    let d = gpu();
    let t = texture(&d, [8, 8], 3, 3, ALL);
    let seed = |mip: u32, layer: u32| (mip * 10 + layer + 1) as u8;
    for mip in 0..3 {
        for layer in 0..3 {
            let w = 8 >> mip;
            write_level(&d, t, mip, layer, &pattern(w, w, seed(mip, layer)));
        }
    }
    // Levels 1 and 2 of layer 1.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "clear" })
        .unwrap();
    e.clear_texture(
        t,
        &ImageSubresourceRange {
            base_mip_level: 1,
            base_array_layer: 1,
            array_layer_count: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    for mip in 0..3 {
        for layer in 0..3 {
            let w = 8 >> mip;
            let want = if mip >= 1 && layer == 1 {
                vec![0; (w * w * 4) as usize]
            } else {
                pattern(w, w, seed(mip, layer))
            };
            assert_eq!(
                read_level(&d, t, mip, layer),
                want,
                "mip {mip} layer {layer}"
            );
        }
    }
    // The whole texture, then a copy into level 0 of layer 2 in the same recording: the
    // copy lands after the clear.
    let src = d
        .create_buffer_init(&BufferInitDescriptor {
            label: "texels",
            contents: &pattern(8, 8, 77),
            usage: BufferUsages::COPY_SRC,
        })
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "clear all" })
        .unwrap();
    e.clear_texture(t, &ImageSubresourceRange::default())
        .unwrap();
    e.copy_buffer_to_texture(
        src,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        t,
        TexelCopyTextureInfo {
            array_layer: 2,
            ..Default::default()
        },
        [8, 1, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    for mip in 0..3 {
        for layer in 0..3 {
            let got = read_level(&d, t, mip, layer);
            if mip == 0 && layer == 2 {
                // The copied row, zeroes below it.
                assert_eq!(got[..32], pattern(8, 8, 77)[..32]);
                assert!(got[32..].iter().all(|b| *b == 0));
            } else {
                assert!(got.iter().all(|b| *b == 0), "mip {mip} layer {layer}");
            }
        }
    }
}

#[test]
fn clear_texture_needs_no_copy_dst_and_follows_a_pass() {
    // A render target without COPY_DST, drawn by a pass and cleared in the same
    // recording: the clear waits for the pass's writes and reads back as zero.
    let d = gpu();
    let (t, view) = common::readable_target(&d, [4, 4]);
    let e = common::clear_pass(&d, "first", view, [0.2, 0.4, 0.6, 1.0]);
    let mut e = e;
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let before = d
        .read_texture(t, TexelCopyTextureInfo::default(), [4, 4])
        .unwrap();
    assert_eq!(texel(&before, 4, 3, 3), [51, 102, 153, 255]);
    let mut e = common::clear_pass(&d, "second", view, [1.0, 1.0, 1.0, 1.0]);
    e.end_render_pass().unwrap();
    e.clear_texture(t, &ImageSubresourceRange::default())
        .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let after = d
        .read_texture(t, TexelCopyTextureInfo::default(), [4, 4])
        .unwrap();
    assert!(after.iter().all(|b| *b == 0), "{after:?}");
    // And a pass after the clear loads what the clear left.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "load" })
        .unwrap();
    e.clear_texture(t, &ImageSubresourceRange::default())
        .unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        label: "load",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Load,
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let loaded = d
        .read_texture(t, TexelCopyTextureInfo::default(), [4, 4])
        .unwrap();
    assert!(loaded.iter().all(|b| *b == 0), "{loaded:?}");
}
