//! Override constants and immediate data: one pipeline draws a grid of tiles whose size is
//! fixed when the pipeline is made (`override grid`), and each draw says which tile and
//! which color through immediate data (`var<immediate>`, set with
//! [`vigil::CommandEncoder::set_immediates`]), with no buffer or bind group at all.
//! [`render_bundled`] records the same draws once into a render bundle and executes it.

use crate::image::Image;
use crate::{Result, err, read_image, render_target};
use vigil::*;

const SHADER: &str = r#"
// Tiles per row and column: each pipeline fixes it (the default is 4).
override grid: u32 = 4;
// The gap between tiles, as a fraction of a tile.
@id(0) override gap: f32 = 0.1;

struct Tile { color: vec4<f32>, index: u32 }
var<immediate> tile: Tile;

@vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> {
    let corner = array(vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
                       vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0))[v];
    let cell = vec2<f32>(f32(tile.index % grid), f32(tile.index / grid));
    let inner = gap * 0.5 + corner * (1.0 - gap);
    let uv = (cell + inner) / f32(grid);
    // uv (0, 0) is the top left of the image.
    return vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
}

@fragment fn fs() -> @location(0) vec4<f32> { return tile.color; }
"#;

/// The background.
pub const CLEAR: [f64; 4] = [0.05, 0.05, 0.08, 1.0];

/// The color of tile `i` of `grid * grid`: red grows to the right, green downwards.
pub fn color(i: u32, grid: u32) -> [f32; 4] {
    let (x, y) = (i % grid, i / grid);
    let step = |k: u32| k as f32 / (grid - 1).max(1) as f32;
    [step(x), step(y), 0.5, 1.0]
}

/// Draws a `grid` x `grid` board of tiles at `size`, one draw per tile, and reads it back.
pub fn render(device: &Device, size: [u32; 2], grid: u32) -> Result<Image> {
    draw(device, size, grid, false)
}

/// [`render()`] with the tiles' draws recorded once into a render bundle (every call checked
/// then), which the pass executes.
pub fn render_bundled(device: &Device, size: [u32; 2], grid: u32) -> Result<Image> {
    draw(device, size, grid, true)
}

fn draw(device: &Device, size: [u32; 2], grid: u32, bundled: bool) -> Result<Image> {
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "tiles",
            wgsl: SHADER,
        })
        .map_err(err)?;
    // `Tile` is 32 bytes: a vec4 and a u32, padded to the vec4's alignment.
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "tiles",
            bind_group_layouts: &[],
            immediate_size: 32,
        })
        .map_err(err)?;
    let targets = [Some(ColorTargetState {
        format: TextureFormat::Rgba8Unorm,
        blend: None,
        write_mask: ColorWrites::ALL,
    })];
    let grid_value = f64::from(grid);
    let constants = [("grid", grid_value), ("0", 0.2)];
    let pipeline = device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: "tiles",
            layout,
            vertex: VertexState {
                module,
                entry_point: "vs",
                constants: &constants,
                buffers: &[],
            },
            fragment: Some(FragmentState {
                module,
                entry_point: "fs",
                constants: &[],
                targets: &targets,
            }),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: vigil::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
        .map_err(err)?;
    let (texture, view) = render_target(device, "tiles target", size)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "tiles" })
        .map_err(err)?;
    enc.begin_render_pass(&RenderPassDescriptor {
        label: "tiles",
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear(CLEAR),
            store: StoreOp::Store,
        })],
        ..Default::default()
    })
    .map_err(err)?;
    // Each tile's draw, with its color and index as immediate data, on the pass's encoder
    // or on a bundle's.
    macro_rules! tiles {
        ($enc:expr) => {
            $enc.set_render_pipeline(pipeline).map_err(err)?;
            for i in 0..grid * grid {
                let mut data = [0u8; 32];
                for (k, c) in color(i, grid).iter().enumerate() {
                    data[k * 4..k * 4 + 4].copy_from_slice(&c.to_le_bytes());
                }
                data[16..20].copy_from_slice(&i.to_le_bytes());
                $enc.set_immediates(0, &data).map_err(err)?;
                $enc.draw(0..6, 0..1).map_err(err)?;
            }
        };
    }
    if bundled {
        let mut b = device
            .create_render_bundle_encoder(&RenderBundleEncoderDescriptor {
                label: "tiles",
                color_formats: &[Some(TextureFormat::Rgba8Unorm)],
                ..Default::default()
            })
            .map_err(err)?;
        tiles!(b);
        let bundle = b.finish().map_err(err)?;
        enc.execute_bundles(&[bundle]).map_err(err)?;
        device.destroy_render_bundle(bundle).map_err(err)?;
    } else {
        tiles!(enc);
    }
    enc.end_render_pass().map_err(err)?;
    device.submit([enc.finish().map_err(err)?]).map_err(err)?;
    read_image(device, texture, size)
}
