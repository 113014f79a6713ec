//! Every corpus shader's SPIR-V passes `spirv-val` for the Vulkan version vigil targets.
//! `spirv-val` comes with SPIRV-Tools, which `cargo xtask setup` installs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::spirv_val;
use std::path::PathBuf;
use vigil_shader::{Module, SpirvOptions};

fn corpus() -> Vec<PathBuf> {
    common::wgsl_files("shaders", 6)
}

#[test]
fn every_corpus_shader_passes_spirv_val() {
    for path in corpus() {
        let src = std::fs::read_to_string(&path).unwrap();
        let module =
            Module::from_wgsl(&src, &path.display().to_string()).unwrap_or_else(|d| panic!("{d}"));
        for debug in [false, true] {
            let words = module
                .to_spirv(&SpirvOptions {
                    debug,
                    ..SpirvOptions::default()
                })
                .unwrap();
            spirv_val(&words, &format!("{} (debug: {debug})", path.display()));
        }
    }
}

#[test]
fn every_corpus_shader_translates_to_msl() {
    for path in corpus() {
        let src = std::fs::read_to_string(&path).unwrap();
        let module = Module::from_wgsl(&src, "corpus.wgsl").unwrap();
        let map = vigil_shader::msl::naga_numbering(&module, None).unwrap();
        let msl = vigil_shader::msl::to_msl(&module, &map, None)
            .unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        assert!(msl.contains("#include <metal_stdlib>"));
    }
}
