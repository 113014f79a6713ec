//! The GPU-pointer tier's GLSL: compiled by glslc, checked by spirv-val and against the
//! device's features, and translated to MSL with the root at `[[buffer(0)]]`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::spirv_val;
use vigil_shader::{Features, glsl};

const WALK: &str = "
layout(buffer_reference) buffer Node;
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Node { uint value; uint pad; Node next; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { Node head; uint sum; };
VIGIL_ROOT(Root);
layout(local_size_x = 1) in;
void main() {
    Node n = vigil.root.head;
    uint sum = 0u;
    while (!VIGIL_IS_NULL(n)) { sum += n.value; n = n.next; }
    vigil.root.sum = sum;
}
";

#[test]
fn pointer_modules_compile_validate_and_place_the_root_at_buffer_zero() {
    let words = glsl::compile_compute("walk.comp", WALK, Features::BUFFER_DEVICE_ADDRESS).unwrap();
    spirv_val(&words, "walk.comp");
    let msl = glsl::to_msl("walk.comp", &words).unwrap();
    assert!(msl.contains("[[buffer(0)]]"), "{msl}");
    assert!(msl.contains("device Node* next"), "{msl}");
    assert!(msl.contains("kernel void"), "{msl}");
}

#[test]
fn capabilities_follow_the_devices_features() {
    let int64 = "
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Root { uint64_t value; };
VIGIL_ROOT(Root);
layout(local_size_x = 1) in;
void main() { vigil.root.value = vigil.root.value + 1ul; }
";
    let d =
        glsl::compile_compute("int64.comp", int64, Features::BUFFER_DEVICE_ADDRESS).unwrap_err();
    assert_eq!(d.features_needed, Features::SHADER_INT64, "{d}");
    let words = glsl::compile_compute(
        "int64.comp",
        int64,
        Features::BUFFER_DEVICE_ADDRESS | Features::SHADER_INT64,
    )
    .unwrap();
    spirv_val(&words, "int64.comp");
}

#[test]
fn compile_errors_keep_the_compilers_words_and_the_sources_lines() {
    let d = glsl::compile_compute(
        "broken.comp",
        "layout(local_size_x = 1) in;\nvoid main() {\n    nope = 1;\n}\n",
        Features::BUFFER_DEVICE_ADDRESS,
    )
    .unwrap_err();
    assert!(d.message.contains("broken.comp:3"), "{d}");
    assert!(d.message.contains("nope"), "{d}");
}

/// A fragment shader indexing both heaps from numbers in its root.
const HEAPS: &str = "
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Root { uint tex; uint smp; };
VIGIL_ROOT(Root);
VIGIL_TEXTURE_HEAP;
VIGIL_SAMPLER_HEAP;
layout(location = 0) out vec4 color;
void main() {
    color = texture(sampler2D(vigil_texture(vigil.root.tex), vigil_sampler(vigil.root.smp)), vec2(0.5));
}
";

#[test]
fn heap_modules_place_the_root_at_buffer_zero_textures_at_one_and_samplers_at_two() {
    let features = Features::DESCRIPTOR_HEAPS | Features::BUFFER_DEVICE_ADDRESS;
    let words =
        glsl::compile("heaps.frag", HEAPS, vigil_shader::Stage::Fragment, features).unwrap();
    spirv_val(&words, "heaps.frag");
    assert_eq!(glsl::heap_use("heaps.frag", &words).unwrap(), 0b11);
    let msl = glsl::to_msl("heaps.frag", &words).unwrap();
    let entry = msl
        .lines()
        .find(|l| l.starts_with("fragment "))
        .unwrap_or_else(|| panic!("no fragment entry point in:\n{msl}"));
    assert!(entry.contains("VigilRoot& vigil [[buffer(0)]]"), "{entry}");
    assert!(entry.contains("spvDescriptorSet1 [[buffer(1)]]"), "{entry}");
    assert!(entry.contains("spvDescriptorSet2 [[buffer(2)]]"), "{entry}");
    assert!(
        msl.contains("array<texture2d<float>, 65536> vigil_textures"),
        "{msl}"
    );
    assert!(msl.contains("array<sampler, 4096> vigil_samplers"), "{msl}");
    // Without the feature, the module is refused naming it.
    let err = glsl::compile(
        "heaps.frag",
        HEAPS,
        vigil_shader::Stage::Fragment,
        Features::BUFFER_DEVICE_ADDRESS,
    )
    .unwrap_err();
    assert_eq!(
        err.features_needed,
        Features::DESCRIPTOR_HEAPS,
        "{}",
        err.message
    );
    // Other descriptors than the heaps are refused.
    let stray = "layout(set = 0, binding = 3) uniform sampler2D t; layout(location = 0) out vec4 c; void main() { c = texture(t, vec2(0.5)); }";
    let err =
        glsl::compile("stray.frag", stray, vigil_shader::Stage::Fragment, features).unwrap_err();
    assert!(err.message.contains("set 0, binding 3"), "{}", err.message);
}
