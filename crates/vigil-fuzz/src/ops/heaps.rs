//! Texture and sampler heaps of the pointer tier: heaps made (sizes at the edges), slots
//! written with views and samplers the world holds (live, stale, foreign, of every format
//! and usage), copied, and heaps destroyed while command buffers that set them wait; and
//! dispatches of a pointer pipeline that samples both heaps at whatever index its root's
//! word holds (the shader macros clamp it, the heaps' native sets have every slot).
//!
//! Textures the heaps name are copied into and rendered to by the other operations, so
//! submissions meet `gpu.heap-resident` refusals as the stream goes. Draws of a pointer
//! pipeline whose fragment shader samples both heaps put heap reads in render passes,
//! beside the other operations' draws (a storage texture written by a fragment shader
//! among them).

use super::encode::{on_encoder, outside_pass, pick_encoder};
use crate::rng::Rng;
use crate::world::{PassState, Pool, Validity, World};
use vigil::{
    GpuPtr, PointerComputePipelineDescriptor, SamplerHeapDescriptor, TextureHeapDescriptor,
};

const SAMPLE: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint value; };
VIGIL_ROOT(Counter);
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(local_size_x = 1) in;
void main() {
    uint i = vigil.root.value;
    vec4 c = textureLod(sampler2D(vigil_texture(i), vigil_sampler(i)), vec2(0.5), 0.0);
    vigil.root.value = i + uint(c.x >= 0.0);
}
";

/// Samples both heaps at a slot its pixel's column picks (the macros clamp it).
const SAMPLE_FS: &str = "
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(location = 0) out vec4 color;
void main() {
    uint i = uint(gl_FragCoord.x) % 8u;
    color = textureLod(sampler2D(vigil_texture(i), vigil_sampler(i)), vec2(0.5), 0.0);
}
";

/// Mostly a live handle of `pool` (when it has one), else whatever `pick` gives: stale,
/// null, foreign or forged now and then.
fn mostly_live<H: vigil::Handle, M: Clone>(
    pool: &Pool<H, M>,
    r: &mut Rng,
    device: u32,
) -> (H, Option<M>, Validity) {
    match pool.live_where(r, |_| true) {
        Some((h, m)) if r.chance(85) => (h, Some(m), Validity::Live),
        _ => pool.pick(r, device),
    }
}

/// One of the operations below.
pub fn descriptor_heaps(w: &mut World<'_>, r: &mut Rng) {
    if (w.texture_heaps.live_count() == 0 || w.sampler_heaps.live_count() == 0) && r.chance(50) {
        return create(w, r);
    }
    match r.below(12) {
        0 => create(w, r),
        1 | 2 => write_textures(w, r),
        3 => write_samplers(w, r),
        4 => copy(w, r),
        5 => {
            let (h, _, v) = w.texture_heaps.pick(r, w.id);
            w.call(
                "destroy_texture_heap",
                format!("destroy_texture_heap({h:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_texture_heap(h)?;
                    w.texture_heaps.kill(h);
                    Ok(())
                },
            );
        }
        6 => {
            let (h, _, v) = w.sampler_heaps.pick(r, w.id);
            w.call(
                "destroy_sampler_heap",
                format!("destroy_sampler_heap({h:?})"),
                v.invalid(),
                |w| {
                    w.device.destroy_sampler_heap(h)?;
                    w.sampler_heaps.kill(h);
                    Ok(())
                },
            );
        }
        7 | 8 => draw(w, r),
        _ => dispatch(w, r),
    }
}

/// A draw in a render pass whose fragment shader samples both heaps: mostly in a pass
/// the pipeline fits (one `Rgba8Unorm` target, one sample, no depth), now and then in
/// any (refused for the mismatch); heaps mostly live, now and then not, or not set.
fn draw(w: &mut World<'_>, r: &mut Rng) {
    if w.sample_draw.is_none() {
        if !w.features.contains(vigil::Features::DESCRIPTOR_HEAPS) && !r.chance(5) {
            return;
        }
        let (cache, cv) = super::objects::some_cache(w, r);
        w.call(
            "create_pointer_render_pipeline",
            format!("sample heaps in a draw, cache {cache:?}"),
            cv.invalid(),
            |w| {
                let p = super::gpu::pull_pipeline(w, "fuzz draw sampling heaps", SAMPLE_FS, cache)?;
                w.sample_draw = Some(p);
                Ok(())
            },
        );
        return;
    }
    let Some(pipeline) = w.sample_draw else {
        return;
    };
    let fits = r.chance(85);
    let Some(i) = pick_encoder(w, r, |p| super::gpu::one_target_pass(p, fits)) else {
        return outside_pass(w, r);
    };
    let Some(heaps) = HeapUse::pick(w, r) else {
        return;
    };
    let draws = 1 + r.below(3);
    let what = format!("set_render_pipeline(sample), {heaps}, {draws} draws");
    on_encoder(w, i, "heap_draw", what, heaps.invalid, |o| {
        o.bound.pipeline = None;
        o.bound.group = None;
        o.encoder.set_render_pipeline(pipeline)?;
        heaps.set(&mut o.encoder)?;
        (0..draws).try_for_each(|_| o.encoder.draw(0..3, 0..1))
    });
}

/// What a heap-reading draw or dispatch sets: a root in a live heap, and the texture and
/// sampler heaps (mostly live), one of them now and then left unset (`skip` 1 or 2).
struct HeapUse {
    root: GpuPtr<u32>,
    textures: vigil::TextureHeap,
    samplers: vigil::SamplerHeap,
    skip: u64,
    invalid: bool,
}

impl HeapUse {
    fn pick(w: &World<'_>, r: &mut Rng) -> Option<HeapUse> {
        let (_, (size, _, base)) = w.gpu_heaps.live_where(r, |m| m.0 >= 4)?;
        let root = GpuPtr::<u32>::from_address(base + r.below(size / 4) * 4);
        let (textures, _, tv) = mostly_live(&w.texture_heaps, r, w.id);
        let (samplers, _, sv) = mostly_live(&w.sampler_heaps, r, w.id);
        let skip = r.below(4);
        let invalid = (skip != 1 && tv.invalid()) || (skip != 2 && sv.invalid());
        Some(HeapUse {
            root,
            textures,
            samplers,
            skip,
            invalid,
        })
    }

    fn set(&self, e: &mut vigil::CommandEncoder) -> vigil::Result<()> {
        e.set_root(self.root)?;
        if self.skip != 1 {
            e.set_texture_heap(self.textures)?;
        }
        if self.skip != 2 {
            e.set_sampler_heap(self.samplers)?;
        }
        Ok(())
    }
}

impl std::fmt::Display for HeapUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "set_root({:?}), heaps {:?} {:?} (skip {})",
            self.root, self.textures, self.samplers, self.skip
        )
    }
}

fn create(w: &mut World<'_>, r: &mut Rng) {
    let slots = r.pick(&[1u32, 4, 64, 0, vigil_hal_slots(true) + 1, 1024]);
    if r.chance(60) {
        if w.texture_heaps.full() {
            return;
        }
        w.call(
            "create_texture_heap",
            format!("create_texture_heap({slots})"),
            false,
            |w| {
                let h = w.device.create_texture_heap(&TextureHeapDescriptor {
                    label: "fuzz textures",
                    slots,
                })?;
                w.texture_heaps.add(h, slots);
                Ok(())
            },
        );
    } else {
        if w.sampler_heaps.full() {
            return;
        }
        let slots = slots.min(vigil_hal_slots(false) + 1);
        w.call(
            "create_sampler_heap",
            format!("create_sampler_heap({slots})"),
            false,
            |w| {
                let h = w.device.create_sampler_heap(&SamplerHeapDescriptor {
                    label: "fuzz samplers",
                    slots,
                })?;
                w.sampler_heaps.add(h, slots);
                Ok(())
            },
        );
    }
}

/// The heaps' most slots (textures, or samplers).
fn vigil_hal_slots(textures: bool) -> u32 {
    if textures { 65_536 } else { 4_096 }
}

fn write_textures(w: &mut World<'_>, r: &mut Rng) {
    let (h, slots, hv) = mostly_live(&w.texture_heaps, r, w.id);
    let n = r.pick(&[1usize, 2, 3]);
    let mut views = Vec::with_capacity(n);
    let mut invalid = hv.invalid();
    for _ in 0..n {
        let (v, _, vv) = mostly_live(&w.views, r, w.id);
        invalid |= vv.invalid();
        views.push(v);
    }
    let slots = u64::from(slots.unwrap_or(4));
    let first = if r.chance(85) {
        r.below(slots.max(1)) as u32
    } else {
        r.edge_u64(slots, 1) as u32
    };
    let what = format!("write_texture_heap({h:?}, {first}, {views:?})");
    w.call("write_texture_heap", what, invalid, |w| {
        w.device.write_texture_heap(h, first, &views)
    });
}

fn write_samplers(w: &mut World<'_>, r: &mut Rng) {
    let (h, slots, hv) = mostly_live(&w.sampler_heaps, r, w.id);
    let (s, _, sv) = mostly_live(&w.samplers, r, w.id);
    let slots = u64::from(slots.unwrap_or(4));
    let first = if r.chance(85) {
        r.below(slots.max(1)) as u32
    } else {
        r.edge_u64(slots, 1) as u32
    };
    let what = format!("write_sampler_heap({h:?}, {first}, [{s:?}])");
    w.call(
        "write_sampler_heap",
        what,
        hv.invalid() || sv.invalid(),
        |w| w.device.write_sampler_heap(h, first, &[s]),
    );
}

fn copy(w: &mut World<'_>, r: &mut Rng) {
    let (src, src_slots, sv) = mostly_live(&w.texture_heaps, r, w.id);
    let (dst, dst_slots, dv) = mostly_live(&w.texture_heaps, r, w.id);
    let count = r.pick(&[1u32, 2, 8]);
    let src_first = r.edge_u64(u64::from(src_slots.unwrap_or(4)), 1) as u32;
    let dst_first = r.edge_u64(u64::from(dst_slots.unwrap_or(4)), 1) as u32;
    let what = format!("copy_texture_heap({src:?}, {src_first}, {dst:?}, {dst_first}, {count})");
    w.call(
        "copy_texture_heap",
        what,
        sv.invalid() || dv.invalid(),
        |w| {
            w.device
                .copy_texture_heap(src, src_first, dst, dst_first, count)
        },
    );
}

fn dispatch(w: &mut World<'_>, r: &mut Rng) {
    if w.sample.is_none() {
        if !w.features.contains(vigil::Features::DESCRIPTOR_HEAPS) && !r.chance(5) {
            return;
        }
        w.call(
            "create_pointer_compute_pipeline",
            "sample heaps".into(),
            false,
            |w| {
                let p = w.device.create_pointer_compute_pipeline(
                    &PointerComputePipelineDescriptor {
                        label: "fuzz sample heaps",
                        glsl: SAMPLE,
                        cache: None,
                    },
                )?;
                w.sample = Some(p);
                Ok(())
            },
        );
        return;
    }
    let Some(pipeline) = w.sample else { return };
    let Some(i) = pick_encoder(w, r, |p| *p == PassState::Compute) else {
        return outside_pass(w, r);
    };
    let Some(heaps) = HeapUse::pick(w, r) else {
        return;
    };
    let what = format!("set_compute_pipeline(sample), {heaps}, dispatch");
    on_encoder(w, i, "heap_dispatch", what, heaps.invalid, |o| {
        o.bound.pipeline = None;
        o.bound.group = None;
        o.encoder.set_compute_pipeline(pipeline)?;
        heaps.set(&mut o.encoder)?;
        o.encoder.dispatch(1, 1, 1)
    });
}
