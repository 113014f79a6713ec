//! `override` constants: reflected, fixed per pipeline by id or name, checked, and the
//! specialized module translates to SPIR-V that `spirv-val` accepts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::spirv_val;
use vigil_shader::{Module, SpirvOptions};

const SRC: &str = r#"
@id(7) override scale: f32 = 2.0;
override offset: u32;
override size: u32 = 64;
override enabled: bool = true;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(size)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if enabled { data[id.x] = data[id.x] * scale + f32(offset); }
}
"#;

#[test]
fn overrides_are_reflected_with_their_keys_types_and_defaults() {
    let m = Module::from_wgsl(SRC, "overrides.wgsl").unwrap();
    let o: Vec<(String, String, &str, bool)> = m
        .reflection()
        .overrides
        .iter()
        .map(|o| (o.name.clone(), o.key(), o.ty, o.has_default))
        .collect();
    assert_eq!(
        o,
        [
            ("scale".into(), "7".into(), "f32", true),
            ("offset".into(), "offset".into(), "u32", false),
            ("size".into(), "size".into(), "u32", true),
            ("enabled".into(), "enabled".into(), "bool", true),
        ]
    );
    assert!(
        m.reflection()
            .to_json()
            .contains("\"overrides\": [{ \"name\": \"scale\", \"id\": 7")
    );
    // Unspecialized, it does not translate, and says why.
    let e = m.to_spirv(&SpirvOptions::default()).unwrap_err();
    assert!(
        e.message
            .contains("override constants (7, offset, size, enabled)"),
        "{e}"
    );
}

#[test]
fn a_specialized_module_has_the_values_and_translates() {
    let m = Module::from_wgsl(SRC, "overrides.wgsl").unwrap();
    let s = m
        .specialize(&[("7", 3.0), ("offset", 5.0), ("size", 32.0)])
        .unwrap();
    assert!(s.reflection().overrides.is_empty());
    assert_eq!(
        s.reflection().entry_point("main").unwrap().workgroup_size,
        [32, 1, 1]
    );
    spirv_val(
        &s.to_spirv(&SpirvOptions::default()).unwrap(),
        "specialized",
    );
    // Defaults fill what is not given.
    let d = m.specialize(&[("offset", 0.0)]).unwrap();
    assert_eq!(
        d.reflection().entry_point("main").unwrap().workgroup_size,
        [64, 1, 1]
    );
    spirv_val(
        &d.to_spirv(&SpirvOptions::default()).unwrap(),
        "with defaults",
    );
}

#[test]
fn wrong_constants_are_refused_with_the_reason() {
    let m = Module::from_wgsl(SRC, "overrides.wgsl").unwrap();
    let why = |c: &[(&str, f64)]| m.specialize(c).unwrap_err().diagnostic.message;
    assert!(why(&[("offset", 1.0), ("nope", 1.0)]).contains("no override 'nope'"));
    // With an id, the key is the id, not the name.
    assert!(why(&[("offset", 1.0), ("scale", 1.0)]).contains("no override 'scale'"));
    assert!(why(&[]).contains("override 'offset' has no default"));
    assert!(why(&[("offset", 1.5)]).contains("not a whole number"));
    assert!(
        why(&[("offset", -1.0)]).contains("do not fit"),
        "{}",
        why(&[("offset", -1.0)])
    );
    assert!(why(&[("offset", 1.0), ("7", f64::NAN)]).contains("do not fit"));
}
