//! naga's own WGSL test inputs (`tests/naga-corpus`, see its README): every file either
//! translates — SPIR-V that `spirv-val` accepts for Vulkan 1.3, and MSL — or is refused with
//! the reason listed here and in `docs/shaders.md`. Without features, every refusal of a
//! file that translates with them names the features it needs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::spirv_val;
use std::path::PathBuf;
use vigil_shader::{Diagnostic, Features, Module, SpirvOptions, msl};

/// Files refused even with every feature enabled, with words their diagnostic contains.
/// `docs/shaders.md` says why for each.
const REFUSED: &[(&str, &str)] = &[
    ("6220-break-from-loop.wgsl", "no entry points"),
    ("abstract-types-const.wgsl", "no entry points"),
    ("abstract-types-operators.wgsl", "no entry points"),
    ("abstract-types-var.wgsl", "no entry points"),
    (
        "binding-arrays.wgsl",
        "`wgpu_binding_array` enable extension",
    ),
    (
        "binding-buffer-arrays.wgsl",
        "`wgpu_binding_array` enable extension",
    ),
    ("bounds-check-restrict.wgsl", "no entry points"),
    ("bounds-check-zero-atomic.wgsl", "no entry points"),
    ("bounds-check-zero.wgsl", "no entry points"),
    ("const_assert.wgsl", "no entry points"),
    (
        "debug-symbol-terrain.wgsl",
        "Entry point gen_terrain_vertex at Vertex is invalid",
    ),
    (
        "dualsource.wgsl",
        "unknown attribute: `second_blend_source`",
    ),
    ("extra.wgsl", "`primitive_index` enable extension"),
    ("interface.wgsl", "sample_mask built-in"),
    ("lexical-scopes.wgsl", "no entry points"),
    ("local-const.wgsl", "no entry points"),
    ("module-scope.wgsl", "no entry points"),
    ("multiview.wgsl", "Entry point main at Fragment is invalid"),
    (
        "multiview_webgl.wgsl",
        "Entry point main at Fragment is invalid",
    ),
    (
        "overrides-ray-query.wgsl",
        "`wgpu_ray_query` enable extension",
    ),
    (
        "pointers.wgsl",
        "cannot take the address of a vector component",
    ),
    ("policy-mix.wgsl", "no entry points"),
    (
        "push-constants.wgsl",
        "unknown address space: `push_constant`",
    ),
    ("ray-query.wgsl", "`wgpu_ray_query` enable extension"),
    ("runtime-array-in-unused-struct.wgsl", "no entry points"),
    ("shadow.wgsl", "invalid field accessor `x`"),
    ("skybox.wgsl", "invalid field accessor `x`"),
    (
        "subgroup-operations.wgsl",
        "unused return value from function annotated with @must_use",
    ),
    ("type-alias.wgsl", "no entry points"),
];

/// Files that translate only with features, and the features their refusal names.
const NEEDING: &[(&str, Features)] = &[
    (
        "atomicCompareExchange-int64.wgsl",
        Features::SHADER_INT64.union(Features::SHADER_INT64_ATOMICS),
    ),
    (
        "atomicOps-int64-min-max.wgsl",
        Features::SHADER_INT64.union(Features::SHADER_INT64_ATOMICS),
    ),
    (
        "atomicOps-int64.wgsl",
        Features::SHADER_INT64.union(Features::SHADER_INT64_ATOMICS),
    ),
    ("f64.wgsl", Features::SHADER_F64),
    ("int64.wgsl", Features::SHADER_INT64),
    ("interpolate.wgsl", Features::SAMPLE_RATE_SHADING),
    ("interpolate_compat.wgsl", Features::SAMPLE_RATE_SHADING),
];

/// Files whose SPIR-V translation succeeds but that have no MSL translation, and why.
const MSL_REFUSED: &[(&str, &str)] = &[("f64.wgsl", "f64, which Metal does not have")];

fn corpus() -> Vec<PathBuf> {
    let files = common::wgsl_files("naga-corpus", 86);
    assert_eq!(
        files.len(),
        86,
        "naga-corpus has files its README does not list"
    );
    files
}

fn name(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Parses, fixes overrides without defaults to 1 (a value every override type holds),
/// translates to SPIR-V and to MSL.
fn translate(path: &std::path::Path, features: Features) -> Result<Vec<u32>, Diagnostic> {
    let src = std::fs::read_to_string(path).unwrap();
    let mut module = Module::from_wgsl_with(&src, &name(path), features)?;
    if !module.reflection().overrides.is_empty() {
        let keys: Vec<String> = module
            .reflection()
            .overrides
            .iter()
            .filter(|o| !o.has_default)
            .map(|o| o.key())
            .collect();
        let constants: Vec<(&str, f64)> = keys.iter().map(|k| (k.as_str(), 1.0)).collect();
        module = module.specialize(&constants).map_err(|e| *e.diagnostic)?;
    }
    let words = module.to_spirv(&SpirvOptions::default())?;
    let map = msl::naga_numbering(&module, None)?;
    let file = name(path);
    match msl::to_msl(&module, &map, None) {
        Ok(source) => assert!(
            source.contains("kernel") || source.contains("vertex") || source.contains("fragment"),
            "{file}: MSL without an entry point"
        ),
        Err(d) => {
            let listed = MSL_REFUSED.iter().find(|(f, _)| *f == file);
            assert!(
                listed.is_some_and(|(_, why)| d.message.contains(why)),
                "{file}: no MSL:\n{d}"
            );
        }
    }
    Ok(words)
}

#[test]
fn every_input_translates_or_is_refused_for_its_listed_reason() {
    let mut translated = 0;
    for path in corpus() {
        let file = name(&path);
        let expected = REFUSED
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, why)| *why);
        match (translate(&path, Features::all()), expected) {
            (Ok(words), None) => {
                spirv_val(&words, &file);
                translated += 1;
            }
            (Ok(_), Some(why)) => {
                panic!("{file} now translates; take it off the refused list ({why})")
            }
            (Err(d), Some(why)) => assert!(
                d.to_string().contains(why),
                "{file} is refused for another reason than '{why}':\n{d}"
            ),
            (Err(d), None) => panic!("{file} is refused, unexpectedly:\n{d}"),
        }
    }
    assert_eq!(translated, 86 - REFUSED.len());
}

#[test]
fn without_their_features_inputs_are_refused_naming_them() {
    let mut needing = 0;
    for path in corpus() {
        let file = name(&path);
        if REFUSED.iter().any(|(f, _)| *f == file) {
            continue;
        }
        match translate(&path, Features::empty()) {
            Ok(words) => spirv_val(&words, &file),
            Err(d) => {
                needing += 1;
                let listed = NEEDING.iter().find(|(f, _)| *f == file);
                assert_eq!(
                    listed.map(|(_, f)| *f),
                    Some(d.features_needed),
                    "{file}: {d}"
                );
                assert!(
                    !d.features_needed.is_empty(),
                    "{file} is refused without naming a feature:\n{d}"
                );
                for feature in d.features_needed.names() {
                    assert!(d.message.contains(feature), "{file}: {d}");
                }
                // Exactly those features make it translate.
                let words = translate(&path, d.features_needed)
                    .unwrap_or_else(|e| panic!("{file} with {:?}:\n{e}", d.features_needed));
                spirv_val(&words, &file);
            }
        }
    }
    // The rest of the features are covered by `tests/features.rs`: this corpus predates
    // `f16`, subgroup and clip-distance inputs that parse with naga 30.
    assert_eq!(
        needing,
        NEEDING.len(),
        "the inputs that need a feature changed: {NEEDING:?}"
    );
}

#[test]
fn the_docs_give_the_reason_for_every_refused_input() {
    let docs = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/shaders.md"),
    )
    .unwrap();
    for (file, _) in REFUSED {
        assert!(
            docs.contains(&format!("`{file}`")),
            "docs/shaders.md does not list {file}"
        );
    }
}
