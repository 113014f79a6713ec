//! Which shader capabilities a device's enabled features allow, in naga's terms (what the
//! front end accepts) and in SPIR-V's (what the translated module may declare).
//!
//! The two gates are separate on purpose. naga's validator refuses a module that uses a
//! capability it was not given; the SPIR-V check then reads every `OpCapability` of the
//! translated words and refuses any the device has not enabled, because naga's writer
//! adds some capabilities on its own (16-bit storage access for any `f16`, for one) and
//! the driver must never see a module that needs a feature the device lacks.

use naga::back::spv::Capability as Spv;
use naga::valid::Capabilities as Naga;
use vigil_hal::Features;

/// naga capabilities every vigil device has: cube-array views are part of vigil's
/// baseline, `pack2x16float` and its kin are core SPIR-V (GLSL.std.450), early depth
/// tests are an execution mode Vulkan always accepts, and immediate data is Vulkan's push
/// constants (at least 128 bytes on every device; `max_immediate_size`).
const BASELINE: Naga = Naga::CUBE_ARRAY_TEXTURES
    .union(Naga::SHADER_FLOAT16_IN_FLOAT32)
    .union(Naga::EARLY_DEPTH_TEST)
    .union(Naga::IMMEDIATES);

/// Each device feature and the naga capabilities it grants.
const GRANTS: &[(Features, Naga)] = &[
    (Features::SHADER_F16, Naga::SHADER_FLOAT16),
    (Features::SHADER_F64, Naga::FLOAT64),
    (Features::SHADER_INT64, Naga::SHADER_INT64),
    (
        Features::SHADER_INT64_ATOMICS,
        Naga::SHADER_INT64_ATOMIC_ALL_OPS.union(Naga::SHADER_INT64_ATOMIC_MIN_MAX),
    ),
    (Features::SHADER_CLIP_DISTANCES, Naga::CLIP_DISTANCES),
    (Features::SHADER_PRIMITIVE_INDEX, Naga::PRIMITIVE_INDEX),
    (Features::SAMPLE_RATE_SHADING, Naga::MULTISAMPLED_SHADING),
    (
        Features::SUBGROUP,
        Naga::SUBGROUP.union(Naga::SUBGROUP_BARRIER),
    ),
    (Features::DUAL_SOURCE_BLENDING, Naga::DUAL_SOURCE_BLENDING),
    (Features::TEXTURE_ATOMIC, Naga::TEXTURE_ATOMIC),
    (Features::SHADER_DRAW_INDEX, Naga::DRAW_INDEX),
    (Features::MULTIVIEW, Naga::MULTIVIEW),
    (Features::RAY_QUERY, Naga::RAY_QUERY),
    (
        Features::TEXTURE_BINDING_ARRAY,
        Naga::TEXTURE_AND_SAMPLER_BINDING_ARRAY,
    ),
    (Features::BUFFER_BINDING_ARRAY, Naga::BUFFER_BINDING_ARRAY),
    (
        Features::STORAGE_RESOURCE_BINDING_ARRAY,
        Naga::STORAGE_BUFFER_BINDING_ARRAY.union(Naga::STORAGE_TEXTURE_BINDING_ARRAY),
    ),
    (
        Features::BINDING_ARRAY_NON_UNIFORM_INDEXING,
        Naga::TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING
            .union(Naga::BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING)
            .union(Naga::STORAGE_BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING)
            .union(Naga::STORAGE_TEXTURE_BINDING_ARRAY_NON_UNIFORM_INDEXING),
    ),
];

/// Every feature that allows some kind of binding array.
pub(crate) const BINDING_ARRAY_FEATURES: Features = Features::TEXTURE_BINDING_ARRAY
    .union(Features::BUFFER_BINDING_ARRAY)
    .union(Features::STORAGE_RESOURCE_BINDING_ARRAY);

/// The naga capabilities a device with `features` enabled can run.
pub(crate) fn naga_capabilities(features: Features) -> Naga {
    GRANTS
        .iter()
        .filter(|(f, _)| features.contains(*f))
        .fold(BASELINE, |caps, (_, c)| caps | *c)
}

/// Every device feature that grants a shader capability.
pub(crate) fn shader_features() -> Features {
    GRANTS
        .iter()
        .fold(Features::empty(), |all, (f, _)| all | *f)
}

/// The SPIR-V capabilities each device feature allows.
const SPIRV_BY_FEATURE: &[(Features, &[Spv])] = &[
    // naga declares the 16-bit storage capabilities for any `f16`; vigil enables
    // `storageBuffer16BitAccess` and `uniformAndStorageBuffer16BitAccess` with it.
    (
        Features::SHADER_F16,
        &[
            Spv::Float16,
            Spv::StorageBuffer16BitAccess,
            Spv::UniformAndStorageBuffer16BitAccess,
        ],
    ),
    (Features::SHADER_F64, &[Spv::Float64]),
    (Features::SHADER_INT64, &[Spv::Int64]),
    (Features::SHADER_INT64_ATOMICS, &[Spv::Int64Atomics]),
    (Features::SHADER_CLIP_DISTANCES, &[Spv::ClipDistance]),
    (Features::SHADER_PRIMITIVE_INDEX, &[Spv::Geometry]),
    (Features::SAMPLE_RATE_SHADING, &[Spv::SampleRateShading]),
    (Features::SHADER_DRAW_INDEX, &[Spv::DrawParameters]),
    (Features::MULTIVIEW, &[Spv::MultiView]),
    // `bgra8unorm` storage textures have no SPIR-V format: written without one.
    (
        Features::BGRA8UNORM_STORAGE,
        &[Spv::StorageImageWriteWithoutFormat],
    ),
    // `rayQuery`, with VK_KHR_ray_query (SPV_KHR_ray_query), enabled with RAY_QUERY.
    (Features::RAY_QUERY, &[Spv::RayQueryKHR]),
    (
        Features::BINDING_ARRAY_NON_UNIFORM_INDEXING,
        &[Spv::ShaderNonUniform],
    ),
    (
        Features::SUBGROUP,
        &[
            Spv::GroupNonUniform,
            Spv::GroupNonUniformVote,
            Spv::GroupNonUniformArithmetic,
            Spv::GroupNonUniformBallot,
            Spv::GroupNonUniformShuffle,
            Spv::GroupNonUniformShuffleRelative,
            Spv::GroupNonUniformQuad,
        ],
    ),
];

/// The SPIR-V capabilities a module may declare on a device with `features` enabled: those
/// Vulkan 1.3 accepts with no feature, and those whose feature (Vulkan's "SPIR-V
/// environment" table) vigil enables with the matching device feature. Anything else is
/// refused, so a capability naga starts emitting later is refused until it is listed here.
/// naga's writer is given this set too, and falls back to a polyfill where it has one
/// (`pack4xI8` without `Int8`, for one).
pub(crate) fn spirv_capabilities(features: Features) -> Vec<Spv> {
    let mut out = vec![
        Spv::Shader,
        Spv::Matrix,
        Spv::Sampled1D,
        Spv::Image1D,
        Spv::SampledBuffer,
        Spv::ImageBuffer,
        Spv::ImageQuery,
        Spv::DerivativeControl,
        Spv::StorageImageExtendedFormats,
        // vigil's baseline enables `imageCubeArray`.
        Spv::SampledCubeArray,
        Spv::ImageCubeArray,
    ];
    for (f, caps) in SPIRV_BY_FEATURE {
        if features.contains(*f) {
            out.extend_from_slice(caps);
        }
    }
    out
}

/// The device feature that allows SPIR-V capability `cap`, if one does.
pub(crate) fn spirv_capability_feature(cap: Spv) -> Option<Features> {
    SPIRV_BY_FEATURE
        .iter()
        .find(|(_, caps)| caps.contains(&cap))
        .map(|(f, _)| *f)
}

/// The feature each `enable` extension of WGSL needs, for the front end's "not enabled"
/// refusals: `None` where no vigil feature grants it yet.
pub(crate) fn enable_extension_feature(name: &str) -> Option<Option<Features>> {
    Some(match name {
        "f16" => Some(Features::SHADER_F16),
        "clip_distances" => Some(Features::SHADER_CLIP_DISTANCES),
        "primitive_index" => Some(Features::SHADER_PRIMITIVE_INDEX),
        "dual_source_blending" => Some(Features::DUAL_SOURCE_BLENDING),
        "draw_index" => Some(Features::SHADER_DRAW_INDEX),
        "wgpu_binding_array" => Some(BINDING_ARRAY_FEATURES),
        "wgpu_ray_query" => Some(Features::RAY_QUERY),
        "wgpu_ray_query_vertex_return"
        | "wgpu_mesh_shader"
        | "wgpu_cooperative_matrix"
        | "wgpu_per_vertex" => None,
        _ => return None,
    })
}

/// The `OpCapability` operands of a SPIR-V module (empty for words that are not one).
pub(crate) fn declared_capabilities(words: &[u32]) -> Vec<u32> {
    const OP_CAPABILITY: u32 = 17;
    const HEADER_WORDS: usize = 5;
    let mut out = Vec::new();
    let mut at = HEADER_WORDS;
    while let Some(&first) = words.get(at) {
        let count = (first >> 16) as usize;
        if count == 0 {
            break;
        }
        if first & 0xffff == OP_CAPABILITY {
            if let Some(&cap) = words.get(at.saturating_add(1)) {
                out.push(cap);
            }
        }
        at = at.saturating_add(count);
    }
    out
}

/// What a module that failed validation needs beyond what it was checked with, found by
/// validating again with more capabilities.
pub(crate) enum Needs {
    /// Device features that would make it valid (the fewest found).
    Features(Features),
    /// naga capabilities no vigil feature grants yet, by name.
    NotOffered(Vec<&'static str>),
    /// Nothing: it is invalid for another reason.
    Nothing,
}

/// Finds what `valid` (a validation with the given capabilities) needs to pass for a module
/// checked against `features`.
pub(crate) fn find_needs(features: Features, valid: impl Fn(Naga) -> bool) -> Needs {
    let offered = shader_features();
    if valid(naga_capabilities(features | offered)) {
        // Drop each feature the module turns out not to need.
        let mut needed = offered - features;
        for (f, _) in GRANTS {
            if needed.contains(*f) && valid(naga_capabilities(features | (needed - *f))) {
                needed -= *f;
            }
        }
        return Needs::Features(needed);
    }
    let base = naga_capabilities(features | offered);
    if !valid(Naga::all()) {
        return Needs::Nothing;
    }
    let mut extra = Naga::all() - base;
    for (_, flag) in Naga::all().iter_names() {
        if extra.contains(flag) && valid(base | (extra - flag)) {
            extra -= flag;
        }
    }
    Needs::NotOffered(extra.iter_names().map(|(name, _)| name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_that_grants_a_capability_is_counted() {
        assert_eq!(
            naga_capabilities(Features::all()) - BASELINE,
            GRANTS.iter().fold(Naga::empty(), |c, (_, g)| c | *g)
        );
        assert_eq!(naga_capabilities(Features::empty()), BASELINE);
    }

    #[test]
    fn capability_words_are_read_from_the_instruction_stream() {
        // Header, then OpCapability Shader, OpCapability Float64, OpMemoryModel.
        let words = [
            0x0723_0203,
            0x0001_0300,
            0,
            10,
            0,
            (2 << 16) | 17,
            1,
            (2 << 16) | 17,
            10,
            (3 << 16) | 14,
            0,
            1,
        ];
        assert_eq!(declared_capabilities(&words), [1, 10]);
        assert!(declared_capabilities(&[1, 2]).is_empty());
        // A zero word count stops the walk instead of looping.
        assert!(declared_capabilities(&[0, 0, 0, 0, 0, 0, 7]).is_empty());
    }

    #[test]
    fn spirv_capabilities_follow_the_features() {
        assert!(spirv_capabilities(Features::empty()).contains(&Spv::Shader));
        assert!(!spirv_capabilities(Features::empty()).contains(&Spv::Float64));
        assert!(spirv_capabilities(Features::SHADER_F64).contains(&Spv::Float64));
        assert!(!spirv_capabilities(Features::all()).contains(&Spv::StorageInputOutput16));
        assert!(!spirv_capabilities(Features::all()).contains(&Spv::Linkage));
        assert_eq!(
            spirv_capability_feature(Spv::UniformAndStorageBuffer16BitAccess),
            Some(Features::SHADER_F16)
        );
        assert_eq!(spirv_capability_feature(Spv::Shader), None);
        assert_eq!(spirv_capability_feature(Spv::StorageInputOutput16), None);
    }
}
