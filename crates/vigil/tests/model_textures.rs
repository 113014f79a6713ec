//! Seeded random texture work on a real device compared with a CPU model of every texel:
//! texture writes, copies between textures, between a buffer and textures, and render
//! passes that clear one mip level of one layer, over three textures of two mip levels
//! and two layers, several commands per command buffer, submissions paused at times.
//! Each subresource keeps its own layout in the tracker; a wrong layout or a missing
//! barrier shows as a validation message (the layer is on, with synchronization
//! validation), a wrong order as different texels.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Pauses, gpu};
use std::collections::HashMap;
use vigil::*;

const SIZE: u32 = 8;
const MIPS: u32 = 2;
const LAYERS: u32 = 2;
const TEXTURES: usize = 3;
/// Bytes per row of the buffer side of buffer-texture copies (their required alignment).
const ROW: u32 = 256;

/// A small deterministic generator (xorshift64*), so a failing sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
    /// A subresource `(mip, layer)`.
    fn sub(&mut self) -> (u32, u32) {
        (self.below(MIPS), self.below(LAYERS))
    }
    /// A rectangle `(origin, size)` inside a `side`-square level.
    fn rect(&mut self, side: u32) -> ([u32; 2], [u32; 2]) {
        let (w, h) = (1 + self.below(side), 1 + self.below(side));
        ([self.below(side - w + 1), self.below(side - h + 1)], [w, h])
    }
}

fn side(mip: u32) -> u32 {
    SIZE >> mip
}

/// Texels of one texture: `[mip][layer]`, each `side × side` packed RGBA8 words.
type Texels = Vec<Vec<Vec<u32>>>;

fn blank() -> Texels {
    (0..MIPS)
        .map(|m| {
            (0..LAYERS)
                .map(|_| vec![0; (side(m) * side(m)) as usize])
                .collect()
        })
        .collect()
}

fn at(mip: u32, layer: u32, origin: [u32; 2]) -> TexelCopyTextureInfo {
    TexelCopyTextureInfo {
        mip_level: mip,
        origin,
        array_layer: layer,
        aspect: TextureAspect::All,
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn random_texture_writes_copies_and_clears_match_a_model() {
    for seed in 1..=6u64 {
        let d = gpu();
        let textures: Vec<Texture> = (0..TEXTURES)
            .map(|_| {
                d.create_texture(&TextureDescriptor {
                    label: "model texture",
                    size: [SIZE, SIZE],
                    format: TextureFormat::Rgba8Unorm,
                    usage: TextureUsages::COPY_SRC
                        | TextureUsages::COPY_DST
                        | TextureUsages::RENDER_ATTACHMENT,
                    mip_level_count: MIPS,
                    array_layers: LAYERS,
                    ..TextureDescriptor::default()
                })
                .unwrap()
            })
            .collect();
        let staging = d
            .create_buffer(&BufferDescriptor {
                label: "model rows",
                size: u64::from(ROW * SIZE),
                usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
            })
            .unwrap();
        let mut views: HashMap<(usize, u32, u32), TextureView> = HashMap::new();
        let mut model: Vec<Texels> = (0..TEXTURES).map(|_| blank()).collect();
        // The buffer's rows, as words: `ROW / 4` per row.
        let mut rows = vec![0u32; (ROW / 4 * SIZE) as usize];
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut pauses = Pauses::default();
        let mut log: Vec<String> = Vec::new();
        let mut value = seed as u32;
        for step in 0..200 {
            match r.below(8) {
                0 | 1 => {
                    let t = r.below(TEXTURES as u32) as usize;
                    let (mip, layer) = r.sub();
                    let (origin, [w, h]) = r.rect(side(mip));
                    let texels: Vec<u32> = (0..w * h)
                        .map(|_| {
                            value = value.wrapping_mul(2_654_435_761).wrapping_add(7);
                            value
                        })
                        .collect();
                    let bytes: Vec<u8> = texels.iter().flat_map(|v| v.to_le_bytes()).collect();
                    d.write_texture(
                        textures[t],
                        at(mip, layer, origin),
                        &bytes,
                        TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: w * 4,
                            rows_per_image: None,
                        },
                        [w, h, 1],
                    )
                    .unwrap();
                    let level = &mut model[t][mip as usize][layer as usize];
                    for y in 0..h {
                        for x in 0..w {
                            level[((origin[1] + y) * side(mip) + origin[0] + x) as usize] =
                                texels[(y * w + x) as usize];
                        }
                    }
                    log.push(format!("write t{t} m{mip} l{layer} {origin:?} {w}x{h}"));
                }
                2..=4 => {
                    let mut cbs = Vec::new();
                    let mut ops: Vec<String> = Vec::new();
                    // The model after this submission, built as its commands are recorded.
                    let mut next = model.clone();
                    let mut next_rows = rows.clone();
                    for _ in 0..1 + r.below(2) {
                        let mut e = d
                            .create_command_encoder(&CommandEncoderDescriptor { label: "model" })
                            .unwrap();
                        for _ in 0..1 + r.below(3) {
                            let t = r.below(TEXTURES as u32) as usize;
                            let (mip, layer) = r.sub();
                            match r.below(4) {
                                0 => {
                                    // Into another texture (vigil refuses a copy within
                                    // one), at a level of the same size.
                                    let u =
                                        (t + 1 + r.below(TEXTURES as u32 - 1) as usize) % TEXTURES;
                                    let ul = r.below(LAYERS);
                                    let s = side(mip);
                                    let (from, [w, h]) = r.rect(s);
                                    let to = [r.below(s - w + 1), r.below(s - h + 1)];
                                    e.copy_texture_to_texture(
                                        textures[t],
                                        at(mip, layer, from),
                                        textures[u],
                                        at(mip, ul, to),
                                        [w, h, 1],
                                    )
                                    .unwrap();
                                    let src = next[t][mip as usize][layer as usize].clone();
                                    let dst = &mut next[u][mip as usize][ul as usize];
                                    for y in 0..h {
                                        for x in 0..w {
                                            dst[((to[1] + y) * s + to[0] + x) as usize] =
                                                src[((from[1] + y) * s + from[0] + x) as usize];
                                        }
                                    }
                                    ops.push(format!(
                                        "t2t t{t} m{mip} l{layer} {from:?} -> t{u} l{ul} {to:?} {w}x{h}"
                                    ));
                                }
                                1 => {
                                    let s = side(mip);
                                    let (origin, [w, h]) = r.rect(s);
                                    e.copy_texture_to_buffer(
                                        textures[t],
                                        at(mip, layer, origin),
                                        staging,
                                        TexelCopyBufferLayout {
                                            offset: 0,
                                            bytes_per_row: ROW,
                                            rows_per_image: None,
                                        },
                                        [w, h, 1],
                                    )
                                    .unwrap();
                                    let src = &next[t][mip as usize][layer as usize];
                                    for y in 0..h {
                                        for x in 0..w {
                                            next_rows[(y * ROW / 4 + x) as usize] =
                                                src[((origin[1] + y) * s + origin[0] + x) as usize];
                                        }
                                    }
                                    ops.push(format!(
                                        "t2b t{t} m{mip} l{layer} {origin:?} {w}x{h}"
                                    ));
                                }
                                2 => {
                                    let s = side(mip);
                                    let (origin, [w, h]) = r.rect(s);
                                    e.copy_buffer_to_texture(
                                        staging,
                                        TexelCopyBufferLayout {
                                            offset: 0,
                                            bytes_per_row: ROW,
                                            rows_per_image: None,
                                        },
                                        textures[t],
                                        at(mip, layer, origin),
                                        [w, h, 1],
                                    )
                                    .unwrap();
                                    let dst = &mut next[t][mip as usize][layer as usize];
                                    for y in 0..h {
                                        for x in 0..w {
                                            dst[((origin[1] + y) * s + origin[0] + x) as usize] =
                                                next_rows[(y * ROW / 4 + x) as usize];
                                        }
                                    }
                                    ops.push(format!(
                                        "b2t t{t} m{mip} l{layer} {origin:?} {w}x{h}"
                                    ));
                                }
                                _ => {
                                    // A render pass that only clears one mip level of one
                                    // layer, to a color unorm8 holds exactly.
                                    let c: [u32; 4] = std::array::from_fn(|_| r.below(6) * 51);
                                    let view = *views.entry((t, mip, layer)).or_insert_with(|| {
                                        d.create_texture_view(
                                            textures[t],
                                            &TextureViewDescriptor {
                                                label: "model view",
                                                dimension: Some(TextureViewDimension::D2),
                                                base_mip_level: mip,
                                                mip_level_count: Some(1),
                                                base_array_layer: layer,
                                                array_layer_count: Some(1),
                                                ..TextureViewDescriptor::default()
                                            },
                                        )
                                        .unwrap()
                                    });
                                    e.begin_render_pass(&RenderPassDescriptor {
                                        label: "model clear",
                                        color_attachments: &[Some(RenderPassColorAttachment {
                                            view,
                                            depth_slice: None,
                                            resolve_target: None,
                                            load: LoadOp::Clear(c.map(|v| f64::from(v) / 255.0)),
                                            store: StoreOp::Store,
                                        })],
                                        ..RenderPassDescriptor::default()
                                    })
                                    .unwrap();
                                    e.end_render_pass().unwrap();
                                    let packed = c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24;
                                    next[t][mip as usize][layer as usize].fill(packed);
                                    ops.push(format!("clear t{t} m{mip} l{layer} {c:?}"));
                                }
                            }
                        }
                        cbs.push(e.finish().unwrap());
                    }
                    d.submit(cbs).unwrap();
                    model = next;
                    rows = next_rows;
                    log.push(format!("submit {ops:?}"));
                    pauses.submitted(&d);
                }
                5 => {
                    pauses.toggle(&d, &mut log);
                }
                _ => {
                    pauses.resume(&d);
                    let t = r.below(TEXTURES as u32) as usize;
                    let (mip, layer) = r.sub();
                    let got = words(
                        &d.read_texture(textures[t], at(mip, layer, [0, 0]), [side(mip); 2])
                            .unwrap(),
                    );
                    assert!(
                        got == model[t][mip as usize][layer as usize],
                        "seed {seed} step {step}: texture {t} mip {mip} layer {layer} differs\n got {got:x?}\nwant {:x?}\nafter:\n{}",
                        model[t][mip as usize][layer as usize],
                        log.join("\n")
                    );
                    log.push(format!("read t{t} m{mip} l{layer}"));
                }
            }
        }
        d.seams().resume_submissions().unwrap();
        for (t, texels) in model.iter().enumerate() {
            for mip in 0..MIPS {
                for layer in 0..LAYERS {
                    let got = words(
                        &d.read_texture(textures[t], at(mip, layer, [0, 0]), [side(mip); 2])
                            .unwrap(),
                    );
                    assert_eq!(
                        got, texels[mip as usize][layer as usize],
                        "seed {seed}: texture {t} mip {mip} layer {layer} at the end"
                    );
                }
            }
        }
        let bytes = d.read_buffer(staging, 0, u64::from(ROW * SIZE)).unwrap();
        assert_eq!(words(&bytes), rows, "seed {seed}: the buffer at the end");
    }
}
