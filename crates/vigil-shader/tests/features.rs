//! The capabilities a module may use follow the device features it is checked against:
//! without the feature a shader is refused naming it, with it the SPIR-V passes
//! `spirv-val`; what no feature grants is refused saying so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::spirv_val;
use vigil_shader::{Features, Module, SpirvOptions};

/// One shader per feature that grants a capability naga's corpus does not exercise.
const NEEDS: &[(&str, Features, &str)] = &[
    (
        "f16 in storage and uniform buffers",
        Features::SHADER_F16,
        "enable f16;
        @group(0) @binding(0) var<storage, read_write> d: array<f16>;
        @group(0) @binding(1) var<uniform> u: vec4<f16>;
        @compute @workgroup_size(1) fn main() { d[0] = d[0] * u.x + 1.0h; }",
    ),
    (
        "f16 between stages",
        Features::SHADER_F16,
        "enable f16;
        struct V { @builtin(position) p: vec4f, @location(0) h: f16 }
        @vertex fn vs() -> V { return V(vec4f(0.0), 1.0h); }
        @fragment fn fs(v: V) -> @location(0) vec4f { return vec4f(f32(v.h)); }",
    ),
    (
        "subgroup operations",
        Features::SUBGROUP,
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
        @compute @workgroup_size(64)
        fn main(@builtin(subgroup_invocation_id) i: u32, @builtin(subgroup_size) n: u32) {
            let sum = subgroupAdd(i);
            let first = subgroupBroadcastFirst(i);
            let ballot = subgroupBallot(i % 2u == 0u);
            let q = quadSwapX(i);
            d[i] = sum + first + ballot.x + n + q + subgroupShuffle(i, 0u);
            subgroupBarrier();
        }",
    ),
    (
        "clip distances",
        Features::SHADER_CLIP_DISTANCES,
        "enable clip_distances;
        struct V { @builtin(position) p: vec4f, @builtin(clip_distances) c: array<f32, 2> }
        @vertex fn vs() -> V { return V(vec4f(0.0), array<f32, 2>(1.0, -1.0)); }",
    ),
    (
        "primitive index",
        Features::SHADER_PRIMITIVE_INDEX,
        "enable primitive_index;
        @fragment fn fs(@builtin(primitive_index) i: u32) -> @location(0) vec4f {
            return vec4f(f32(i));
        }",
    ),
    (
        "dual-source blending",
        Features::DUAL_SOURCE_BLENDING,
        "enable dual_source_blending;
        struct O { @location(0) @blend_src(0) a: vec4f, @location(0) @blend_src(1) b: vec4f }
        @fragment fn fs() -> O { return O(vec4f(1.0), vec4f(0.5)); }",
    ),
    (
        "draw index",
        Features::SHADER_DRAW_INDEX,
        "enable draw_index;
        @vertex fn vs(@builtin(draw_index) d: u32) -> @builtin(position) vec4f {
            return vec4f(f32(d));
        }",
    ),
    (
        "texture and sampler arrays",
        Features::TEXTURE_BINDING_ARRAY,
        "enable wgpu_binding_array;
        @group(0) @binding(0) var t: binding_array<texture_2d<f32>, 3>;
        @group(0) @binding(1) var s: binding_array<sampler, 2>;
        @group(0) @binding(2) var<storage, read_write> d: array<f32>;
        @compute @workgroup_size(1) fn main() {
            d[0] = textureSampleLevel(t[2], s[1], vec2f(0.5), 0.0).x;
        }",
    ),
    (
        "uniform buffer arrays",
        Features::BUFFER_BINDING_ARRAY,
        "enable wgpu_binding_array;
        struct U { v: vec4<u32> }
        @group(0) @binding(0) var<uniform> u: binding_array<U, 4>;
        @group(0) @binding(1) var<storage, read_write> d: array<u32>;
        @compute @workgroup_size(1) fn main() { d[0] = u[3].v.x; }",
    ),
    (
        "storage buffer and storage texture arrays",
        Features::STORAGE_RESOURCE_BINDING_ARRAY,
        "enable wgpu_binding_array;
        struct B { v: array<u32, 4> }
        @group(0) @binding(0) var<storage, read_write> b: binding_array<B, 2>;
        @group(0) @binding(1) var t: binding_array<texture_storage_2d<rgba8unorm, write>, 2>;
        @compute @workgroup_size(1) fn main() {
            b[1].v[0] = b[0].v[1];
            textureStore(t[1], vec2(0), vec4f(1.0));
        }",
    ),
    (
        "sample index",
        Features::SAMPLE_RATE_SHADING,
        "@fragment fn fs(@builtin(sample_index) i: u32) -> @location(0) vec4f {
            return vec4f(f32(i));
        }",
    ),
];

#[test]
fn each_feature_is_named_when_missing_and_enough_when_given() {
    for (what, feature, src) in NEEDS {
        let d = Module::from_wgsl(src, "f.wgsl").unwrap_err();
        assert_eq!(d.features_needed, *feature, "{what}: {d}");
        assert!(
            d.message
                .contains(&format!("needs the device feature {}", feature.names()[0])),
            "{what}: {d}"
        );
        // Other features do not help.
        let others = Features::all() - *feature;
        let d = Module::from_wgsl_with(src, "f.wgsl", others).unwrap_err();
        assert_eq!(d.features_needed, *feature, "{what}: {d}");
        // The feature does, and the SPIR-V declares what it grants and passes spirv-val.
        let m = Module::from_wgsl_with(src, "f.wgsl", *feature)
            .unwrap_or_else(|d| panic!("{what}: {d}"));
        spirv_val(&m.to_spirv(&SpirvOptions::default()).unwrap(), what);
    }
}

#[test]
fn pack2x16float_needs_no_feature() {
    // The issue that started this: every Vulkan device packs halves into a u32.
    let m = Module::from_wgsl(
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
        @compute @workgroup_size(1) fn main() {
            d[0] = pack2x16float(vec2f(1.0, 2.0));
            d[1] = pack2x16float(unpack2x16float(d[0]));
            d[2] = bitcast<u32>(quantizeToF16(1.1));
        }",
        "pack.wgsl",
    )
    .unwrap();
    spirv_val(
        &m.to_spirv(&SpirvOptions::default()).unwrap(),
        "pack2x16float",
    );
}

#[test]
fn a_missing_enable_directive_is_explained_with_its_feature() {
    let src = "@group(0) @binding(0) var<storage, read_write> d: array<f16>;
        @compute @workgroup_size(1) fn main() { d[0] = 1.0h; }";
    let d = Module::from_wgsl(src, "f.wgsl").unwrap_err();
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("add `enable f16;`") && n.contains("needs the feature SHADER_F16")),
        "{d}"
    );
    assert_eq!(d.features_needed, Features::SHADER_F16);
    // With the feature, only the directive is missing.
    let d = Module::from_wgsl_with(src, "f.wgsl", Features::SHADER_F16).unwrap_err();
    assert!(
        d.notes
            .iter()
            .any(|n| n == "add `enable f16;` at the top of the shader"),
        "{d}"
    );
    assert!(d.features_needed.is_empty());
}

#[test]
fn what_no_feature_grants_is_refused_saying_so() {
    // Subgroup operations in the vertex stage: vigil's SUBGROUP covers compute and
    // fragment only.
    let d = Module::from_wgsl_with(
        "@vertex fn vs(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {
            return vec4f(f32(subgroupAdd(v)));
        }",
        "v.wgsl",
        Features::all(),
    )
    .unwrap_err();
    assert!(
        d.message
            .contains("uses SUBGROUP_VERTEX_STAGE, which no vigil device feature enables yet"),
        "{d}"
    );
    assert!(d.features_needed.is_empty());
}

#[test]
fn a_module_keeps_the_features_it_was_checked_against() {
    let m = Module::from_wgsl_with(
        "@compute @workgroup_size(1) fn main() {}",
        "m.wgsl",
        Features::SUBGROUP,
    )
    .unwrap();
    assert_eq!(m.features(), Features::SUBGROUP);
    let s = Module::from_wgsl(
        "override n: u32 = 1; @compute @workgroup_size(n) fn main() {}",
        "o.wgsl",
    )
    .unwrap()
    .specialize(&[])
    .unwrap();
    assert_eq!(s.features(), Features::empty());
}

#[test]
fn a_non_uniform_binding_array_index_needs_its_own_feature() {
    let src = "enable wgpu_binding_array;
        @group(0) @binding(0) var t: binding_array<texture_2d<f32>, 4>;
        @group(0) @binding(1) var<storage, read_write> d: array<f32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            d[id.x] = textureLoad(t[id.x % 4u], vec2(0), 0).x;
        }";
    let d = Module::from_wgsl_with(src, "n.wgsl", Features::TEXTURE_BINDING_ARRAY).unwrap_err();
    assert_eq!(
        d.features_needed,
        Features::BINDING_ARRAY_NON_UNIFORM_INDEXING,
        "{d}"
    );
    let both = Features::TEXTURE_BINDING_ARRAY | Features::BINDING_ARRAY_NON_UNIFORM_INDEXING;
    let m = Module::from_wgsl_with(src, "n.wgsl", both).unwrap();
    spirv_val(
        &m.to_spirv(&SpirvOptions::default()).unwrap(),
        "non-uniform",
    );
}

#[test]
fn a_binding_array_without_a_length_is_refused() {
    let m = Module::from_wgsl_with(
        "enable wgpu_binding_array;
        @group(0) @binding(0) var t: binding_array<texture_2d<f32>>;
        @group(0) @binding(1) var<storage, read_write> d: array<f32>;
        @compute @workgroup_size(1) fn main() { d[0] = textureLoad(t[0], vec2(0), 0).x; }",
        "r.wgsl",
        Features::all(),
    )
    .unwrap();
    let d = m.to_spirv(&SpirvOptions::default()).unwrap_err();
    assert!(d.message.contains("binding array 't' has no length"), "{d}");
}

/// naga's own binding-array inputs, with the `enable` directive naga 30 wants and the
/// `@interpolate(flat)` it requires of integer stage inputs added.
fn corpus_with_enable(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/naga-corpus")
        .join(name);
    let src = std::fs::read_to_string(path).unwrap();
    format!(
        "enable wgpu_binding_array;\n{}",
        src.replace(
            "@location(0) index: u32",
            "@location(0) @interpolate(flat) index: u32"
        )
    )
}

#[test]
fn the_corpus_binding_arrays_translate_once_enabled() {
    let src = corpus_with_enable("binding-buffer-arrays.wgsl");
    let m = Module::from_wgsl_with(&src, "binding-buffer-arrays.wgsl", Features::all()).unwrap();
    spirv_val(
        &m.to_spirv(&SpirvOptions::default()).unwrap(),
        "binding-buffer-arrays",
    );
    // Its texture twin declares an array without a length: refused for that alone.
    let src = corpus_with_enable("binding-arrays.wgsl");
    let m = Module::from_wgsl_with(&src, "binding-arrays.wgsl", Features::all()).unwrap();
    let d = m.to_spirv(&SpirvOptions::default()).unwrap_err();
    assert!(
        d.message
            .contains("binding array 'texture_array_unbounded' has no length"),
        "{d}"
    );
}

/// The corpus's two ray-query files with the `enable` naga 30 wants: refused without
/// `RAY_QUERY` naming it, and with it SPIR-V that `spirv-val` accepts and MSL.
#[test]
fn the_corpus_ray_queries_translate_with_ray_query() {
    for name in ["ray-query.wgsl", "overrides-ray-query.wgsl"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/naga-corpus")
            .join(name);
        let src = format!(
            "enable wgpu_ray_query;\n{}",
            std::fs::read_to_string(path).unwrap()
        );
        let refused = Module::from_wgsl_with(&src, name, Features::empty()).unwrap_err();
        assert!(
            refused.features_needed.contains(Features::RAY_QUERY),
            "{name}: {refused}"
        );
        let mut m = Module::from_wgsl_with(&src, name, Features::RAY_QUERY).unwrap();
        let overrides: Vec<String> = m
            .reflection()
            .overrides
            .iter()
            .filter(|o| !o.has_default)
            .map(|o| o.key())
            .collect();
        if !overrides.is_empty() {
            let pairs: Vec<(&str, f64)> = overrides.iter().map(|k| (k.as_str(), 1.0)).collect();
            m = m.specialize(&pairs).map_err(|e| *e.diagnostic).unwrap();
        }
        let b = m
            .reflection()
            .entry_points
            .iter()
            .flat_map(|e| e.bindings.iter())
            .find(|b| b.name == "acc_struct")
            .unwrap();
        assert_eq!(b.kind, vigil_shader::BindingKind::AccelerationStructure);
        spirv_val(&m.to_spirv(&SpirvOptions::default()).unwrap(), name);
        let map = vigil_shader::msl::naga_numbering(&m, None).unwrap();
        let msl = vigil_shader::msl::to_msl(&m, &map, None).unwrap();
        assert!(msl.contains("instance_acceleration_structure"), "{msl}");
    }
}
