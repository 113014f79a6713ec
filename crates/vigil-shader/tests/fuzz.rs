//! Property test over the front end: generated and mutated WGSL never panics, and whatever
//! parses also translates (SPIR-V and MSL) without panicking. Bounded so CI stays quick;
//! `PROPTEST_CASES` raises the count.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use vigil_shader::{Module, SpirvOptions, msl};

const SEEDS: &[&str] = &[
    include_str!("shaders/compute_arrays.wgsl"),
    include_str!("shaders/render_textured.wgsl"),
    include_str!("shaders/storage_textures.wgsl"),
    include_str!("shaders/loops_and_functions.wgsl"),
    include_str!("shaders/instanced.wgsl"),
];

const TOKENS: &[&str] = &[
    "fn",
    "let",
    "var",
    "struct",
    "return",
    "if",
    "else",
    "loop",
    "for",
    "break",
    "continue",
    "@compute",
    "@vertex",
    "@fragment",
    "@workgroup_size(1)",
    "@group(0)",
    "@binding(0)",
    "@location(0)",
    "@builtin(position)",
    "var<storage, read_write>",
    "var<uniform>",
    "array<u32>",
    "array<f32, 4>",
    "vec4<f32>",
    "mat4x4<f32>",
    "u32",
    "f32",
    "i32",
    "bool",
    "texture_2d<f32>",
    "sampler",
    "main",
    "x",
    "y",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ";",
    ":",
    ",",
    ".",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "!",
    "->",
    "0",
    "1u",
    "2.5",
    "-1",
    "0xffffffffu",
    "1e38",
    "true",
    "arrayLength",
    "textureSample",
    "\n",
];

fn check(src: &str) {
    match Module::from_wgsl(src, "fuzz.wgsl") {
        Err(d) => {
            assert!(!d.message.is_empty());
            let _ = d.to_string();
        }
        Ok(m) => {
            let _ = m.to_spirv(&SpirvOptions::default());
            if let Ok(map) = msl::naga_numbering(&m, None) {
                let _ = msl::to_msl(&m, &map, None);
            }
            let _ = msl::argument_table(&m, 2);
            let _ = m.reflection().to_json();
        }
    }
}

fn mutate(seed: &str, edits: &[(usize, u8, usize)]) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    for &(pos, kind, token) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = pos % bytes.len();
        match kind % 3 {
            0 => {
                bytes.remove(at);
            }
            1 => {
                let t = TOKENS[token % TOKENS.len()].as_bytes();
                bytes.splice(at..at, t.iter().copied());
            }
            _ => {
                let end = (at + 1 + token % 16).min(bytes.len());
                bytes.drain(at..end);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_shaders_never_panic(seed in 0usize..SEEDS.len(), edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..12)) {
        check(&mutate(SEEDS[seed], &edits));
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(0usize..TOKENS.len(), 0..120)) {
        let src: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        check(&src.join(" "));
    }

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,400}") {
        check(&src);
    }
}
