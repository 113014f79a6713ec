//! The demo's compute-generated texture and its compute-built mip chain, checked texel by
//! texel on a real device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil::*;
use vigil_examples::scene;

fn device() -> Device {
    let instance = Instance::<DefaultApi>::new(&InstanceDescriptor {
        app_name: "scene test".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .unwrap();
    let adapter = instance.default_adapter().unwrap();
    adapter
        .request_device(&DeviceDescriptor {
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap()
}

fn pattern_texel(x: u32, y: u32, phase: f32) -> [f32; 3] {
    let size = scene::TEXTURE_SIZE as f32;
    let (u, v) = ((x as f32 + 0.5) / size, (y as f32 + 0.5) / size);
    let checker = if ((x / 64) + (y / 64)).is_multiple_of(2) {
        1.0
    } else {
        0.35
    };
    let wave = 0.5 + 0.5 * ((u + v) * 12.566 + phase).sin();
    [0.9 * checker, 0.45 + 0.4 * wave, 0.3 + 0.6 * v]
}

#[test]
fn level_zero_is_the_pattern_and_each_mip_averages_the_level_above() {
    let d = device();
    let s = scene::Scene::new(&d, [64, 48]).unwrap();
    s.frame(&d, 2).unwrap();
    let phase = 2.0 * 0.25 * 4.0;
    let size = scene::TEXTURE_SIZE;
    let level0 = d
        .read_texture(s.texture(), TexelCopyTextureInfo::default(), [size, size])
        .unwrap();
    for y in (0..size).step_by(7) {
        for x in (0..size).step_by(5) {
            let want = pattern_texel(x, y, phase);
            let i = ((y * size + x) * 4) as usize;
            for c in 0..3 {
                let got = f32::from(level0[i + c]) / 255.0;
                assert!(
                    (got - want[c]).abs() <= 1.5 / 255.0,
                    "level 0 texel ({x},{y}) channel {c}: {got} vs {}",
                    want[c]
                );
            }
        }
    }
    let mut above = level0;
    let mut w = size;
    let mips = 32 - size.leading_zeros();
    for mip in 1..mips {
        let nw = w / 2;
        let level = d
            .read_texture(
                s.texture(),
                TexelCopyTextureInfo {
                    mip_level: mip,
                    ..Default::default()
                },
                [nw, nw],
            )
            .unwrap();
        for y in 0..nw {
            for x in 0..nw {
                for c in 0..4 {
                    let at = |xx: u32, yy: u32| {
                        f32::from(above[((yy * w + xx) * 4 + c) as usize]) / 255.0
                    };
                    let avg = (at(2 * x, 2 * y)
                        + at(2 * x + 1, 2 * y)
                        + at(2 * x, 2 * y + 1)
                        + at(2 * x + 1, 2 * y + 1))
                        / 4.0;
                    let got = f32::from(level[((y * nw + x) * 4 + c) as usize]) / 255.0;
                    assert!(
                        (got - avg).abs() <= 1.0 / 255.0 + 1e-4,
                        "mip {mip} texel ({x},{y}) channel {c}: {got} vs {avg}"
                    );
                }
            }
        }
        above = level;
        w = nw;
    }
}
