//! Textures placed in placement heaps on a real device (validation and synchronization
//! validation on): textures side by side keep their own texels; aliasable textures sharing
//! bytes, activated in turn inside one command buffer and across submissions, each hold
//! what was written through them since their activation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::gpu;
use vigil::*;

const SIZE: [u32; 2] = [64, 32];
const TEXELS: usize = (SIZE[0] * SIZE[1]) as usize;

fn desc(label: &str) -> TextureDescriptor<'_> {
    TextureDescriptor {
        label,
        size: SIZE,
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::RENDER_ATTACHMENT
            | TextureUsages::COPY_SRC
            | TextureUsages::COPY_DST
            | TextureUsages::TEXTURE_BINDING,
        ..TextureDescriptor::default()
    }
}

fn place(
    d: &Device,
    label: &'static str,
    heap: PlacementHeap,
    offset: u64,
    aliasable: bool,
) -> Texture {
    d.create_placed_texture(&PlacedTextureDescriptor {
        texture: desc(label),
        heap,
        offset,
        aliasable,
    })
    .unwrap()
}

fn heap(d: &Device, size: u64) -> PlacementHeap {
    d.create_placement_heap(&PlacementHeapDescriptor {
        label: "placement",
        size,
    })
    .unwrap()
}

/// Every texel of `bytes` (RGBA8) equals `texel`.
fn all(bytes: &[u8], texel: [u8; 4]) -> bool {
    bytes.len() == TEXELS * 4 && bytes.chunks_exact(4).all(|c| c == texel)
}

/// Records a render pass clearing `texture` to `color`.
fn clear(d: &Device, e: &mut CommandEncoder, texture: Texture, color: [f64; 4]) {
    let view = d
        .create_texture_view(texture, &TextureViewDescriptor::default())
        .unwrap();
    e.begin_render_pass(&RenderPassDescriptor {
        label: "clear",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear(color),
            store: StoreOp::Store,
        })],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
}

/// Records a copy of all of `texture` into a new readback buffer, returned.
fn copy_out(d: &Device, e: &mut CommandEncoder, texture: Texture) -> Buffer {
    let (b, copied) = try_copy_out(d, e, texture);
    copied.unwrap();
    b
}

/// As [`copy_out`], with what the encoder said.
fn try_copy_out(d: &Device, e: &mut CommandEncoder, texture: Texture) -> (Buffer, Result<()>) {
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "texels",
            size: (TEXELS * 4) as u64,
            usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
        })
        .unwrap();
    let copied = e.copy_texture_to_buffer(
        texture,
        TexelCopyTextureInfo::default(),
        b,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: SIZE[0] * 4,
            rows_per_image: None,
        },
        [SIZE[0], SIZE[1], 1],
    );
    (b, copied)
}

fn read(d: &Device, b: Buffer) -> Vec<u8> {
    d.read_buffer(b, 0, (TEXELS * 4) as u64).unwrap()
}

#[test]
fn textures_side_by_side_keep_their_own_texels() {
    let d = gpu();
    let need = d.texture_placement(&desc("t")).unwrap();
    let stride = need.size.next_multiple_of(need.alignment);
    let h = heap(&d, stride * 2);
    let a = place(&d, "a", h, 0, false);
    let b = place(&d, "b", h, stride, false);
    // Zeroed at first use, like every texture that is not aliasable.
    let zeros = d
        .read_texture(b, TexelCopyTextureInfo::default(), SIZE)
        .unwrap();
    assert!(all(&zeros, [0; 4]));
    let write = |t: Texture, texel: [u8; 4]| {
        let data: Vec<u8> = texel.repeat(TEXELS);
        d.write_texture(
            t,
            TexelCopyTextureInfo::default(),
            &data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: SIZE[0] * 4,
                rows_per_image: None,
            },
            [SIZE[0], SIZE[1], 1],
        )
        .unwrap();
    };
    write(a, [1, 2, 3, 4]);
    write(b, [200, 100, 50, 25]);
    let read_back = |t| {
        d.read_texture(t, TexelCopyTextureInfo::default(), SIZE)
            .unwrap()
    };
    assert!(all(&read_back(a), [1, 2, 3, 4]));
    assert!(all(&read_back(b), [200, 100, 50, 25]));
    d.destroy_placement_heap(h).unwrap();
    // The heap's memory lives on with its textures.
    assert!(all(&read_back(a), [1, 2, 3, 4]));
    d.finish();
}

#[test]
fn aliases_activated_in_turn_each_hold_what_was_written_since() {
    let d = gpu();
    let need = d.texture_placement(&desc("t")).unwrap();
    let h = heap(&d, need.size);
    let a = place(&d, "a", h, 0, true);
    let b = place(&d, "b", h, 0, true);
    // In a recording, once b is activated over a, a is refused (the refusal poisons that
    // encoder, so it is shown in one of its own).
    let mut probe = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "probe" })
        .unwrap();
    probe.activate_texture_alias(a).unwrap();
    probe.activate_texture_alias(b).unwrap();
    assert_eq!(
        try_copy_out(&d, &mut probe, a).1.unwrap_err().rule(),
        Rule::PlacementInactiveAlias
    );
    drop(probe);
    // One command buffer: a cleared red and copied out, b activated over it, cleared blue
    // and copied out, a activated again and cleared green.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "aliases" })
        .unwrap();
    e.activate_texture_alias(a).unwrap();
    clear(&d, &mut e, a, [1.0, 0.0, 0.0, 1.0]);
    let red = copy_out(&d, &mut e, a);
    e.activate_texture_alias(b).unwrap();
    clear(&d, &mut e, b, [0.0, 0.0, 1.0, 1.0]);
    let blue = copy_out(&d, &mut e, b);
    e.activate_texture_alias(a).unwrap();
    clear(&d, &mut e, a, [0.0, 1.0, 0.0, 1.0]);
    let green = copy_out(&d, &mut e, a);
    d.submit([e.finish().unwrap()]).unwrap();
    assert!(all(&read(&d, red), [255, 0, 0, 255]));
    assert!(all(&read(&d, blue), [0, 0, 255, 255]));
    assert!(all(&read(&d, green), [0, 255, 0, 255]));
    // a is the active alias now: queue reads see it; b is refused until activated.
    let a_now = d
        .read_texture(a, TexelCopyTextureInfo::default(), SIZE)
        .unwrap();
    assert!(all(&a_now, [0, 255, 0, 255]));
    assert_eq!(
        d.read_texture(b, TexelCopyTextureInfo::default(), SIZE)
            .unwrap_err()
            .rule(),
        Rule::PlacementInactiveAlias
    );
    // Across submissions: b activated and cleared in one, read in the next.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "b" })
        .unwrap();
    e.activate_texture_alias(b).unwrap();
    clear(&d, &mut e, b, [1.0, 1.0, 0.0, 1.0]);
    d.submit([e.finish().unwrap()]).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "later" })
        .unwrap();
    let yellow = copy_out(&d, &mut e, b);
    d.submit([e.finish().unwrap()]).unwrap();
    assert!(all(&read(&d, yellow), [255, 255, 0, 255]));
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "stale" })
        .unwrap();
    let _ = copy_out(&d, &mut e, a);
    assert_eq!(
        d.submit([e.finish().unwrap()]).unwrap_err().rule(),
        Rule::PlacementInactiveAlias
    );
    d.finish();
}
