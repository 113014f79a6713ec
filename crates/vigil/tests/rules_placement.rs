//! Placement heaps and aliasable textures on the test backend, each refusal by its code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

fn texture_desc(label: &str) -> TextureDescriptor<'_> {
    TextureDescriptor {
        label,
        size: [16, 16],
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::COPY_SRC | TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
        ..TextureDescriptor::default()
    }
}

fn heap(d: &TDevice, size: u64) -> PlacementHeap {
    d.create_placement_heap(&PlacementHeapDescriptor {
        label: "heap",
        size,
    })
    .unwrap()
}

fn place(
    d: &TDevice,
    label: &'static str,
    heap: PlacementHeap,
    offset: u64,
    aliasable: bool,
) -> Result<Texture> {
    d.create_placed_texture(&PlacedTextureDescriptor {
        texture: texture_desc(label),
        heap,
        offset,
        aliasable,
    })
}

/// A copy of `texture`'s first texel into a fresh buffer, recorded in `e`.
fn read_texel(d: &TDevice, e: &mut CommandEncoder<TestApi>, texture: Texture) -> Result<()> {
    let b = buffer(d, "texel", 256, BufferUsages::COPY_DST);
    e.copy_texture_to_buffer(
        texture,
        TexelCopyTextureInfo::default(),
        b,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        [1, 1, 1],
    )
}

#[test]
fn heaps_are_sized_and_textures_fit_aligned() {
    let d = device();
    for size in [0, MAX_PLACEMENT_HEAP_SIZE + 1] {
        expect_rule(
            d.create_placement_heap(&PlacementHeapDescriptor { label: "h", size }),
            Rule::PlacementHeapSize,
        );
    }
    let need = d.texture_placement(&texture_desc("t")).unwrap();
    assert!(need.size >= 16 * 16 * 4 && need.alignment.is_power_of_two());
    let h = heap(&d, need.size * 2);
    // Misaligned, past the end, and a descriptor the device refuses anyway.
    expect_rule(place(&d, "odd", h, 1, false), Rule::PlacementRange);
    expect_rule(
        place(&d, "late", h, need.size * 2, false),
        Rule::PlacementRange,
    );
    let mut bad = texture_desc("zero");
    bad.size = [0, 0];
    assert!(
        d.create_placed_texture(&PlacedTextureDescriptor {
            texture: bad,
            heap: h,
            offset: 0,
            aliasable: false,
        })
        .is_err()
    );
    // Two side by side fit; a third over either does not, aliasable or not.
    let a = place(&d, "a", h, 0, false).unwrap();
    let b = place(&d, "b", h, need.size, false).unwrap();
    expect_rule(place(&d, "c", h, 0, false), Rule::PlacementOverlap);
    expect_rule(place(&d, "c", h, need.size, true), Rule::PlacementOverlap);
    // A destroyed texture's bytes are free once no work holds it; a destroyed heap's
    // handle is stale, but its textures live on.
    d.destroy_texture(a).unwrap();
    let c = place(&d, "c", h, 0, false).unwrap();
    d.destroy_placement_heap(h).unwrap();
    assert_eq!(
        place(&d, "d", h, 0, false).unwrap_err().kind(),
        ErrorKind::InvalidHandle
    );
    let mut e = encoder(&d);
    read_texel(&d, &mut e, b).unwrap();
    read_texel(&d, &mut e, c).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn bytes_used_by_work_in_flight_stay_taken() {
    let d = device();
    let need = d.texture_placement(&texture_desc("t")).unwrap();
    let h = heap(&d, need.size);
    let a = place(&d, "a", h, 0, false).unwrap();
    let mut e = encoder(&d);
    read_texel(&d, &mut e, a).unwrap();
    d.seams().hold_next_completion();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.destroy_texture(a).unwrap();
    let err = expect_rule(place(&d, "b", h, 0, false), Rule::PlacementOverlap);
    assert!(err.to_string().contains("in flight"), "{err}");
    d.seams().release_held_completion();
    assert!(
        d.wait_for_serial(serial, std::time::Duration::from_secs(10))
            .unwrap()
    );
    place(&d, "b", h, 0, false).unwrap();
}

#[test]
fn only_one_alias_is_active_and_only_it_is_used() {
    let d = device();
    let need = d.texture_placement(&texture_desc("t")).unwrap();
    let h = heap(&d, need.size);
    let a = place(&d, "a", h, 0, true).unwrap();
    let b = place(&d, "b", h, 0, true).unwrap();
    let plain = d.create_texture(&texture_desc("plain")).unwrap();
    // Only aliasable placed textures are activated; activation is outside passes.
    let mut e = encoder(&d);
    expect_rule(e.activate_texture_alias(plain), Rule::PlacementNotAliasable);
    let mut e = encoder(&d);
    compute_pass(&mut e);
    assert_eq!(
        e.activate_texture_alias(a).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    // Neither is active yet: queue writes and reads, and a command buffer using one before
    // activating it, are refused.
    expect_rule(
        d.write_texture(
            a,
            TexelCopyTextureInfo::default(),
            &[0; 4],
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 4,
                rows_per_image: None,
            },
            [1, 1, 1],
        ),
        Rule::PlacementInactiveAlias,
    );
    expect_rule(
        d.read_texture(a, TexelCopyTextureInfo::default(), [1, 1]),
        Rule::PlacementInactiveAlias,
    );
    let mut e = encoder(&d);
    read_texel(&d, &mut e, a).unwrap();
    expect_rule(
        d.submit([e.finish().unwrap()]),
        Rule::PlacementInactiveAlias,
    );
    // Activated then used: accepted. Inside the recording, once b is activated, a is
    // refused until it is activated again.
    let mut e = encoder(&d);
    e.activate_texture_alias(a).unwrap();
    read_texel(&d, &mut e, a).unwrap();
    e.activate_texture_alias(b).unwrap();
    read_texel(&d, &mut e, b).unwrap();
    let err = read_texel(&d, &mut e, a).unwrap_err();
    assert_eq!(err.rule(), Rule::PlacementInactiveAlias);
    assert!(err.to_string().contains("'a'"), "{err}");
    // Two aliases used in one recording with no activation between: they cannot both be
    // active when it is submitted, and their commands would reach the same bytes
    // unordered, so the second is refused at once (found by the fuzzer, seed 36081: two
    // copies into aliases, a write-after-write hazard in the validation layer).
    let mut e = encoder(&d);
    read_texel(&d, &mut e, a).unwrap();
    let err = read_texel(&d, &mut e, b).unwrap_err();
    assert_eq!(err.rule(), Rule::PlacementInactiveAlias);
    assert!(err.to_string().contains("'b'"), "{err}");
    // After an activation (which records a barrier) the other alias is used again.
    let mut e = encoder(&d);
    read_texel(&d, &mut e, a).unwrap();
    e.activate_texture_alias(b).unwrap();
    read_texel(&d, &mut e, b).unwrap();
}

#[test]
fn submissions_follow_which_alias_is_active() {
    let d = device();
    let need = d.texture_placement(&texture_desc("t")).unwrap();
    let h = heap(&d, need.size);
    let a = place(&d, "a", h, 0, true).unwrap();
    let b = place(&d, "b", h, 0, true).unwrap();
    // Side by side with the aliases, not over them: unaffected.
    let h2 = heap(&d, need.size * 2);
    let c = place(&d, "c", h2, need.size, true).unwrap();
    let activate = |t: Texture| {
        let mut e = encoder(&d);
        e.activate_texture_alias(t).unwrap();
        e.finish().unwrap()
    };
    let reading = |t: Texture| {
        let mut e = encoder(&d);
        read_texel(&d, &mut e, t).unwrap();
        e.finish().unwrap()
    };
    // Recorded before any activation, submitted after one: order is the submission's.
    let early_a = reading(a);
    let early_b = reading(b);
    d.submit([activate(a), early_a]).unwrap();
    expect_rule(d.submit([early_b]), Rule::PlacementInactiveAlias);
    d.read_texture(a, TexelCopyTextureInfo::default(), [1, 1])
        .unwrap();
    // b activated: a is inactive for queue reads and later command buffers; c is not.
    d.submit([activate(b), reading(b), activate(c), reading(c)])
        .unwrap();
    expect_rule(
        d.read_texture(a, TexelCopyTextureInfo::default(), [1, 1]),
        Rule::PlacementInactiveAlias,
    );
    expect_rule(d.submit([reading(a)]), Rule::PlacementInactiveAlias);
    d.read_texture(c, TexelCopyTextureInfo::default(), [1, 1])
        .unwrap();
    // Aliasable textures are not exported or put in heaps.
    expect_rule(d.export_texture(b), Rule::PlacementNotAliasable);
}

#[test]
fn a_group_naming_an_inactive_alias_is_refused_at_the_dispatch() {
    let d = device();
    let need = d.texture_placement(&texture_desc("t")).unwrap();
    let h = heap(&d, need.size);
    let a = place(&d, "a", h, 0, true).unwrap();
    let b = place(&d, "b", h, 0, true).unwrap();
    let bgl = layout(
        &d,
        &[entry(
            0,
            ShaderStages::COMPUTE,
            BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            },
        )],
    );
    let view = d
        .create_texture_view(a, &TextureViewDescriptor::default())
        .unwrap();
    let g = d
        .create_bind_group(&BindGroupDescriptor {
            label: "a",
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
        .unwrap();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "load",
            wgsl: "@group(0) @binding(0) var t: texture_2d<f32>;
@compute @workgroup_size(1) fn main() { _ = textureLoad(t, vec2<i32>(0), 0); }",
        })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "load",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let p = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "load",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let mut e = encoder(&d);
    e.activate_texture_alias(a).unwrap();
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    e.activate_texture_alias(b).unwrap();
    compute_pass(&mut e);
    e.set_compute_pipeline(p).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    expect_rule(e.dispatch(1, 1, 1), Rule::PlacementInactiveAlias);
}
