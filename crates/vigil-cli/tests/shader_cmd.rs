//! `vigil shader` on good and bad input: outputs, diagnostics, exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;

fn vigil(args: &[&str]) -> (bool, String, String, Vec<u8>) {
    let out = Command::new(common::bin()).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.stdout,
    )
}

fn corpus(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../vigil-shader/tests")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn reflect_prints_json() {
    let (ok, out, err, _) = vigil(&[
        "shader",
        &corpus("shaders/compute_arrays.wgsl"),
        "--reflect",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("\"entry_points\""), "{out}");
    assert!(out.contains("\"runtime_array\": true"), "{out}");
}

#[test]
fn spirv_to_a_file_is_valid() {
    let path = std::env::temp_dir().join(format!("vigil-cmd-{}.spv", std::process::id()));
    let (ok, _, err, _) = vigil(&[
        "shader",
        &corpus("shaders/render_textured.wgsl"),
        "--target",
        "spirv",
        "--entry",
        "fs",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
    let val = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .expect("spirv-val installed");
    assert!(
        val.status.success(),
        "{}",
        String::from_utf8_lossy(&val.stderr)
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn msl_with_each_map() {
    let (ok, out, err, _) = vigil(&[
        "shader",
        &corpus("shaders/compute_arrays.wgsl"),
        "--target",
        "msl",
        "--sizes-slot",
        "7",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("_buffer_sizes [[buffer(7)]]"), "{out}");
    assert!(out.contains("// vigil binding map"));
    let (ok, out, err, _) = vigil(&[
        "shader",
        &corpus("shaders/compute_arrays.wgsl"),
        "--target",
        "msl",
        "--argument-table",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("_buffer_sizes [[buffer(0)]]"), "{out}");
    assert!(out.contains("params [[buffer(1)]]"), "{out}");
}

#[test]
fn bad_input_gets_a_diagnostic_and_a_failing_exit_code() {
    let (ok, _, err, _) = vigil(&[
        "shader",
        &corpus("malformed/unknown_identifiers.wgsl"),
        "--target",
        "spirv",
    ]);
    assert!(!ok);
    assert!(err.contains("unknown_identifiers.wgsl:4:"), "{err}");
    assert!(err.contains('^'), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for args in [
        vec!["shader"],
        vec!["shader", "/no/such/file.wgsl", "--reflect"],
        vec!["shader", &corpus("shaders/compute_arrays.wgsl")],
        vec![
            "shader",
            &corpus("shaders/compute_arrays.wgsl"),
            "--target",
            "hlsl",
        ],
        vec![
            "shader",
            &corpus("shaders/compute_arrays.wgsl"),
            "--target",
            "msl",
            "--sizes-slot",
            "99",
        ],
        vec![
            "shader",
            &corpus("shaders/compute_arrays.wgsl"),
            "--target",
            "msl",
            "--sizes-slot",
            "x",
        ],
        vec![
            "shader",
            &corpus("shaders/compute_arrays.wgsl"),
            "--target",
            "spirv",
            "--entry",
            "nope",
        ],
        vec![
            "shader",
            &corpus("shaders/render_textured.wgsl"),
            "--target",
            "msl",
            "--argument-table",
        ],
    ] {
        let (ok, _, err, _) = vigil(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(
            !err.is_empty() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let junk = std::env::temp_dir().join(format!("vigil-junk-{}.wgsl", std::process::id()));
    std::fs::write(&junk, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let (ok, _, err, _) = vigil(&["shader", junk.to_str().unwrap(), "--reflect"]);
    assert!(!ok && err.contains("not UTF-8"), "{err}");
    let _ = std::fs::remove_file(junk);
}
