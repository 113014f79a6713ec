//! Malformed WGSL gets a diagnostic, never a panic: truncated files, wrong types, unknown
//! identifiers, huge literals, deep nesting and more.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use vigil_shader::Module;

#[test]
fn every_malformed_file_gets_a_diagnostic() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 8);
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let err = Module::from_wgsl(&src, &name)
            .err()
            .unwrap_or_else(|| panic!("{name} was accepted"));
        assert!(!err.message.is_empty(), "{name}: empty message");
        assert!(
            !err.message.contains("internal compiler error"),
            "{name}: {err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with(&name),
            "{name}: diagnostic names the file: {text}"
        );
        if let Some(span) = &err.span {
            assert!(span.line >= 1 && span.column >= 1, "{name}: {text}");
            assert!(
                text.contains(&format!("{}:{}:{}", name, span.line, span.column)),
                "{text}"
            );
            assert!(
                text.contains('^'),
                "{name}: the offending line is marked: {text}"
            );
        }
    }
}

#[test]
fn positions_point_at_the_offending_token() {
    let src = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/malformed/unknown_identifiers.wgsl"),
    )
    .unwrap();
    let err = Module::from_wgsl(&src, "u.wgsl").unwrap_err();
    let span = err.span.expect("a position");
    assert_eq!(span.line, 4);
    assert!(span.line_text.contains("mystery_function"));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for depth in [300usize, 10_000, 200_000] {
        let expr = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        let src = format!("@compute @workgroup_size(1) fn main() {{ let x = {expr}; }}");
        let err = Module::from_wgsl(&src, "deep.wgsl").unwrap_err();
        assert!(!err.message.is_empty(), "depth {depth}");
        let blocks = format!(
            "@compute @workgroup_size(1) fn main() {{ {} {} }}",
            "{".repeat(depth),
            "}".repeat(depth)
        );
        assert!(
            Module::from_wgsl(&blocks, "blocks.wgsl").is_err(),
            "depth {depth}"
        );
    }
}

#[test]
fn empty_and_whitespace_modules_are_valid_and_have_no_entry_points() {
    for src in ["", "   \n\t\n", "// just a comment\n"] {
        let m = Module::from_wgsl(src, "empty.wgsl").unwrap();
        assert!(m.reflection().entry_points.is_empty());
    }
}

#[test]
fn huge_sources_are_handled() {
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n@compute @workgroup_size(1) fn main() {\n",
    );
    for i in 0..20_000 {
        src.push_str(&format!("    out[{i}u] = {i}u;\n"));
    }
    src.push_str("}\n");
    assert!(Module::from_wgsl(&src, "huge.wgsl").is_ok());
    let broken = src.replace("out[19999u] = 19999u;", "out[19999u] = ;");
    let err = Module::from_wgsl(&broken, "huge.wgsl").unwrap_err();
    assert_eq!(err.line(), Some(20_002));
}
