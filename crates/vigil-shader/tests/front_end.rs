//! Parsing, diagnostics, reflection and SPIR-V of ordinary shaders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil_shader::{BindingKind, Module, SampleKind, SpirvOptions, Stage, TextureDimension};

const COMPUTE: &str = r#"
struct Params { scale: f32, count: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(1) @binding(0) var<storage, read_write> unused_here: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.count {
        dst[id.x] = src[id.x] * params.scale;
    }
}

@compute @workgroup_size(8, 8, 1)
fn other() {
    unused_here[0] = 1u;
}
"#;

#[test]
fn reflects_compute_bindings_per_entry_point() {
    let m = Module::from_wgsl(COMPUTE, "c.wgsl").unwrap();
    let main = m.reflection().entry_point("main").unwrap();
    assert_eq!(main.stage, Stage::Compute);
    assert_eq!(main.workgroup_size, [64, 1, 1]);
    let kinds: Vec<_> = main
        .bindings
        .iter()
        .map(|b| (b.group, b.binding, b.kind.clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (0, 0, BindingKind::UniformBuffer),
            (0, 1, BindingKind::StorageBuffer { read_only: true }),
            (0, 2, BindingKind::StorageBuffer { read_only: false }),
        ]
    );
    assert_eq!(main.bindings[0].min_binding_size, 8);
    assert_eq!(main.bindings[1].min_binding_size, 4);
    assert!(main.bindings[1].runtime_array);
    assert!(!main.bindings[0].runtime_array);
    assert!(main.bindings[2].written && !main.bindings[1].written);
    let other = m.reflection().entry_point("other").unwrap();
    assert_eq!(other.workgroup_size, [8, 8, 1]);
    assert_eq!(other.bindings.len(), 1);
    assert_eq!((other.bindings[0].group, other.bindings[0].binding), (1, 0));
}

#[test]
fn reflects_render_io_and_textures() {
    let src = r#"
struct VsIn { @location(0) pos: vec3<f32>, @location(1) uv: vec2<f32>, @location(3) id: u32 }
struct VsOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var shadow: texture_depth_2d;
@group(0) @binding(3) var cmp: sampler_comparison;
@group(1) @binding(0) var out_img: texture_storage_2d<rgba8unorm, write>;
@vertex fn vs(v: VsIn) -> VsOut { return VsOut(vec4<f32>(v.pos, f32(v.id)), v.uv); }
struct FsOut { @location(0) color: vec4<f32>, @location(1) extra: vec4<u32> }
@fragment fn fs(i: VsOut) -> FsOut {
    let c = textureSample(tex, samp, i.uv);
    let d = textureSampleCompare(shadow, cmp, i.uv, 0.5);
    return FsOut(c * d, vec4<u32>(1u));
}
@compute @workgroup_size(1) fn cs() { textureStore(out_img, vec2<i32>(0, 0), vec4<f32>(1.0)); }
"#;
    let m = Module::from_wgsl(src, "r.wgsl").unwrap();
    let vs = m.reflection().entry_point("vs").unwrap();
    assert_eq!(vs.stage, Stage::Vertex);
    assert_eq!(
        vs.vertex_inputs
            .iter()
            .map(|v| (v.location, v.components))
            .collect::<Vec<_>>(),
        [(0, 3), (1, 2), (3, 1)]
    );
    assert!(vs.bindings.is_empty());
    let fs = m.reflection().entry_point("fs").unwrap();
    assert_eq!(fs.fragment_outputs.len(), 2);
    assert_eq!(fs.fragment_outputs[1].scalar, vigil_shader::IoScalar::Uint);
    assert_eq!(
        fs.bindings
            .iter()
            .map(|b| b.kind.clone())
            .collect::<Vec<_>>(),
        vec![
            BindingKind::SampledTexture {
                sample: SampleKind::Float,
                dimension: TextureDimension::D2,
                multisampled: false
            },
            BindingKind::Sampler { comparison: false },
            BindingKind::SampledTexture {
                sample: SampleKind::Depth,
                dimension: TextureDimension::D2,
                multisampled: false
            },
            BindingKind::Sampler { comparison: true },
        ]
    );
    let cs = m.reflection().entry_point("cs").unwrap();
    match &cs.bindings[0].kind {
        BindingKind::StorageTexture { format, access, .. } => {
            assert_eq!(*format, Some(vigil_hal::TextureFormat::Rgba8Unorm));
            assert_eq!(*access, vigil_hal::StorageTextureAccess::WriteOnly);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_carry_line_and_column() {
    let src = "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = nope;\n}\n";
    let err = Module::from_wgsl(src, "bad.wgsl").unwrap_err();
    assert_eq!((err.line(), err.column()), (Some(3), Some(18)));
    let text = err.to_string();
    assert!(text.starts_with("bad.wgsl:3:18: error:"), "{text}");
    assert!(text.contains("nope"), "{text}");
}

#[test]
fn validation_errors_carry_a_position_too() {
    let src = "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = 1.5;\n}\n";
    let err = Module::from_wgsl(src, "ty.wgsl").unwrap_err();
    assert_eq!(err.line(), Some(3), "{err}");
}

#[test]
fn spirv_starts_with_the_magic_number() {
    let m = Module::from_wgsl(COMPUTE, "c.wgsl").unwrap();
    let words = m.to_spirv(&SpirvOptions::default()).unwrap();
    assert_eq!(words[0], 0x0723_0203);
    assert_eq!(words[1], 0x0001_0300);
}

#[test]
fn reflects_every_binding_kind() {
    use vigil_hal::{StorageTextureAccess as A, TextureFormat as F};
    let m = Module::from_wgsl(include_str!("shaders/storage_textures.wgsl"), "st.wgsl").unwrap();
    let ep = m.reflection().entry_point("main").unwrap();
    let kinds: Vec<_> = ep
        .bindings
        .iter()
        .map(|b| (b.binding, b.kind.clone()))
        .collect();
    let storage = |format: F, access, name: &str| BindingKind::StorageTexture {
        format: Some(format),
        format_name: name.to_owned(),
        access,
        dimension: TextureDimension::D2,
    };
    assert_eq!(
        kinds,
        vec![
            (0, storage(F::Rgba8Unorm, A::ReadOnly, "rgba8unorm")),
            (1, storage(F::Rgba32Float, A::WriteOnly, "rgba32float")),
            (2, storage(F::R32Uint, A::ReadWrite, "r32uint")),
            (
                3,
                BindingKind::SampledTexture {
                    sample: SampleKind::Uint,
                    dimension: TextureDimension::D2Array,
                    multisampled: false
                }
            ),
            (
                4,
                BindingKind::SampledTexture {
                    sample: SampleKind::Float,
                    dimension: TextureDimension::Cube,
                    multisampled: false
                }
            ),
            (
                5,
                BindingKind::SampledTexture {
                    sample: SampleKind::Float,
                    dimension: TextureDimension::D2,
                    multisampled: true
                }
            ),
            (6, BindingKind::Sampler { comparison: false }),
        ]
    );
    assert!(ep.bindings[1].written && ep.bindings[2].written && !ep.bindings[0].written);
    let r = Module::from_wgsl(include_str!("shaders/render_textured.wgsl"), "r.wgsl").unwrap();
    let fs = r.reflection().entry_point("fs").unwrap();
    let depth = fs.bindings.iter().find(|b| b.name == "shadow").unwrap();
    assert_eq!(
        depth.kind,
        BindingKind::SampledTexture {
            sample: SampleKind::Depth,
            dimension: TextureDimension::D2,
            multisampled: false
        }
    );
    let cmp = fs
        .bindings
        .iter()
        .find(|b| b.name == "shadow_samp")
        .unwrap();
    assert_eq!(cmp.kind, BindingKind::Sampler { comparison: true });
    let cam = fs.bindings.iter().find(|b| b.name == "cam").unwrap();
    assert_eq!(
        (cam.kind.clone(), cam.min_binding_size),
        (BindingKind::UniformBuffer, 80)
    );
    // The vertex stage uses only the camera.
    let vs = r.reflection().entry_point("vs").unwrap();
    assert_eq!(
        vs.bindings
            .iter()
            .map(|b| b.name.as_str())
            .collect::<Vec<_>>(),
        ["cam"]
    );
    assert_eq!(vs.vertex_inputs.len(), 3);
}

#[test]
fn reflects_runtime_array_sizes_and_workgroup_memory() {
    let m = Module::from_wgsl(include_str!("shaders/compute_arrays.wgsl"), "c.wgsl").unwrap();
    let ep = m.reflection().entry_point("main").unwrap();
    let dst = ep.bindings.iter().find(|b| b.name == "dst").unwrap();
    assert!(dst.runtime_array);
    assert_eq!(dst.min_binding_size, 8, "header plus one element");
    let w = Module::from_wgsl(include_str!("shaders/workgroup_atomics.wgsl"), "w.wgsl").unwrap();
    let ep = w.reflection().entry_point("reduce").unwrap();
    assert_eq!(ep.workgroup_storage_size, 256 * 4 + 4);
    assert_eq!(ep.workgroup_size, [256, 1, 1]);
    let json = w.reflection().to_json();
    assert!(json.contains("\"workgroup_storage_size\": 1028"), "{json}");
    assert!(
        json.contains("\"kind\": \"storage-buffer\", \"read_only\": false"),
        "{json}"
    );
}

#[test]
fn every_vertex_stage_writes_point_size_so_point_lists_are_legal() {
    // Vulkan requires a point-list pipeline's vertex stage to write PointSize
    // (VUID-VkGraphicsPipelineCreateInfo-Vertex-07722); WebGPU defines it as 1.
    let m = Module::from_wgsl(
        "@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> { return vec4<f32>(p, 0.0, 1.0); }",
        "points.wgsl",
    )
    .unwrap();
    let words = m.to_spirv(&SpirvOptions::default()).unwrap();
    // OpDecorate (4 words, opcode 71) <id> BuiltIn(11) PointSize(1).
    let decorated = words
        .windows(4)
        .any(|w| w[0] == (4 << 16 | 71) && w[2] == 11 && w[3] == 1);
    assert!(decorated, "no PointSize built-in in the vertex stage");
}
