//! MSL binding maps: naga numbering, the sizes slot, the argument-table scheme, and the
//! emitted `[[buffer(N)]]` attributes parsed back out of the MSL text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use vigil_shader::Module;
use vigil_shader::msl::{Slot, argument_table, naga_numbering, runtime_array_bindings, to_msl};

/// `name -> slot` for every `NAME [[kind(n)]]` argument in the MSL, per entry point
/// (keyed by the MSL function name).
fn attributes(msl: &str) -> BTreeMap<String, BTreeMap<String, Slot>> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in msl.lines() {
        let t = line.trim();
        let is_entry =
            t.contains("kernel void ") || t.starts_with("vertex ") || t.starts_with("fragment ");
        if is_entry && t.ends_with('(') {
            let name = t
                .trim_end_matches('(')
                .split_whitespace()
                .last()
                .unwrap_or("")
                .to_owned();
            out.insert(name.clone(), BTreeMap::new());
            current = Some(name);
            continue;
        }
        if t.starts_with(')') {
            current = None;
            continue;
        }
        let Some(ep) = current.as_ref() else { continue };
        let Some(open) = t.find("[[") else { continue };
        let name = t[..open]
            .split_whitespace()
            .last()
            .unwrap_or("")
            .trim_start_matches('&')
            .to_owned();
        let attr = &t[open + 2..t.find("]]").unwrap()];
        let (kind, rest) = attr.split_once('(').unwrap_or((attr, ""));
        let n: u8 = match rest.trim_end_matches(')').parse() {
            Ok(n) => n,
            Err(_) => continue,
        };
        let slot = match kind {
            "buffer" => Slot::Buffer(n),
            "texture" => Slot::Texture(n),
            "sampler" => Slot::Sampler(n),
            _ => continue,
        };
        out.get_mut(ep).unwrap().insert(name, slot);
    }
    out
}

const MIXED: &str = r#"
struct Params { scale: f32 }
struct Data { header: u32, values: array<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: Data;
@group(0) @binding(2) var tex: texture_2d<f32>;
@group(0) @binding(3) var samp: sampler;
@group(1) @binding(0) var<storage, read> extra: array<u32>;
@group(1) @binding(1) var other_tex: texture_2d<f32>;

@compute @workgroup_size(64)
fn uses_arrays(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&data.values);
    if id.x < n { data.values[id.x] = params.scale * f32(extra[id.x % arrayLength(&extra)]); }
}

@compute @workgroup_size(1)
fn no_arrays() {
    data.header = u32(params.scale);
}

@fragment
fn shade(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSample(tex, samp, p.xy) + textureSample(other_tex, samp, p.xy) * params.scale;
}
"#;

fn module(src: &str) -> Module {
    Module::from_wgsl(src, "test.wgsl").unwrap()
}

#[test]
fn naga_numbering_counts_each_kind_in_group_then_binding_order() {
    let m = module(MIXED);
    let map = naga_numbering(&m, None).unwrap();
    let want: BTreeMap<(u32, u32), Slot> = [
        ((0, 0), Slot::Buffer(0)),
        ((0, 1), Slot::Buffer(1)),
        ((0, 2), Slot::Texture(0)),
        ((0, 3), Slot::Sampler(0)),
        ((1, 0), Slot::Buffer(2)),
        ((1, 1), Slot::Texture(1)),
    ]
    .into_iter()
    .collect();
    assert_eq!(map.resources, want);
    assert_eq!(map.sizes_slot, 3, "the first free buffer index");
}

#[test]
fn emitted_attributes_match_the_map_for_every_resource() {
    let m = module(MIXED);
    for map in [
        naga_numbering(&m, None).unwrap(),
        naga_numbering(&m, Some(9)).unwrap(),
    ] {
        let msl = to_msl(&m, &map, None).unwrap();
        let attrs = attributes(&msl);
        assert_eq!(attrs.len(), 3, "three entry points: {:?}", attrs.keys());
        let names = [
            ((0, 0), "params"),
            ((0, 1), "data"),
            ((0, 2), "tex"),
            ((0, 3), "samp"),
            ((1, 0), "extra"),
            ((1, 1), "other_tex"),
        ];
        for (ep, args) in &attrs {
            for (key, name) in names {
                if let Some(slot) = args.get(name) {
                    assert_eq!(*slot, map.resources[&key], "{ep}: {name}");
                }
            }
        }
        // Each resource an entry point uses appears with its slot.
        assert_eq!(attrs["uses_arrays"]["data"], Slot::Buffer(1));
        assert_eq!(attrs["uses_arrays"]["extra"], Slot::Buffer(2));
        assert_eq!(attrs["shade"]["other_tex"], Slot::Texture(1));
        assert_eq!(attrs["shade"]["samp"], Slot::Sampler(0));
    }
}

#[test]
fn buffer_sizes_lands_at_the_sizes_slot_and_nowhere_else() {
    let m = module(MIXED);
    for slot in [None, Some(5), Some(30)] {
        let map = naga_numbering(&m, slot).unwrap();
        let msl = to_msl(&m, &map, None).unwrap();
        let attrs = attributes(&msl);
        let with_sizes: Vec<&String> = attrs
            .iter()
            .filter(|(_, a)| a.contains_key("_buffer_sizes"))
            .map(|(n, _)| n)
            .collect();
        // Entry points that use a global holding a runtime-sized array take the table (its
        // bounds checks need the length even without arrayLength); `shade` uses none.
        assert_eq!(with_sizes, ["no_arrays", "uses_arrays"]);
        assert_eq!(
            attrs["uses_arrays"]["_buffer_sizes"],
            Slot::Buffer(map.sizes_slot)
        );
        for (ep, args) in &attrs {
            let holders: Vec<_> = args
                .iter()
                .filter(|(_, s)| **s == Slot::Buffer(map.sizes_slot))
                .map(|(n, _)| n.as_str())
                .collect();
            assert!(
                holders.is_empty() || holders == ["_buffer_sizes"],
                "{ep}: {holders:?} share the sizes slot"
            );
        }
        assert_eq!(msl.matches("_buffer_sizes [[buffer(").count(), 2);
    }
    // A sizes slot that collides with a resource is refused.
    assert!(naga_numbering(&m, Some(1)).is_err());
    assert!(naga_numbering(&m, Some(31)).is_err());
}

#[test]
fn runtime_arrays_are_listed_in_declaration_order() {
    let src = r#"
@group(0) @binding(4) var<storage, read_write> late: array<u32>;
@group(0) @binding(0) var<storage, read_write> fixed: array<u32, 4>;
struct Tail { n: u32, items: array<vec4<f32>> }
@group(0) @binding(2) var<storage, read> tail: Tail;
@group(0) @binding(1) var<storage, read> early: array<f32>;
@compute @workgroup_size(1) fn main() {
    late[0] = arrayLength(&late) + arrayLength(&tail.items) + arrayLength(&early) + fixed[0];
}
"#;
    let m = module(src);
    assert_eq!(runtime_array_bindings(&m), vec![(0, 4), (0, 2), (0, 1)]);
    // The fields of `_mslBufferSizes` follow the same order.
    let msl = to_msl(&m, &naga_numbering(&m, None).unwrap(), None).unwrap();
    let start = msl.find("struct _mslBufferSizes").unwrap();
    let body = &msl[start..start + msl[start..].find("};").unwrap()];
    let fields = body
        .lines()
        .filter(|l| l.trim().starts_with("uint "))
        .count();
    assert_eq!(fields, 3);
}

#[test]
fn one_entry_point_alone() {
    let m = module(MIXED);
    let map = naga_numbering(&m, None).unwrap();
    let msl = to_msl(&m, &map, Some("shade")).unwrap();
    let attrs = attributes(&msl);
    assert_eq!(attrs.keys().collect::<Vec<_>>(), ["shade"]);
    assert!(
        !attrs["shade"].contains_key("_buffer_sizes"),
        "shade uses no runtime-sized array"
    );
    assert_eq!(attrs["shade"]["tex"], Slot::Texture(0));
    assert!(to_msl(&m, &map, Some("missing")).is_err());
}

const GROUP0: &str = r#"
struct Data { values: array<f32> }
@group(0) @binding(0) var<uniform> params: vec4<f32>;
@group(0) @binding(2) var<storage, read> data: Data;
@group(0) @binding(3) var tex: texture_2d<f32>;
@group(0) @binding(5) var samp: sampler;
struct VOut { @builtin(position) p: vec4<f32> }
@vertex fn vs(@location(0) pos: vec2<f32>) -> VOut {
    return VOut(vec4<f32>(pos * params.x + data.values[arrayLength(&data.values) - 1u], 0.0, 1.0));
}
@fragment fn fs(v: VOut) -> @location(0) vec4<f32> { return textureSample(tex, samp, v.p.xy); }
"#;

#[test]
fn the_argument_table_scheme() {
    let m = module(GROUP0);
    let map = argument_table(&m, 3).unwrap();
    assert_eq!(map.sizes_slot, 0);
    assert_eq!(map.resources[&(0, 0)], Slot::Buffer(1));
    assert_eq!(map.resources[&(0, 2)], Slot::Buffer(3));
    assert_eq!(map.resources[&(0, 3)], Slot::Texture(3));
    assert_eq!(map.resources[&(0, 5)], Slot::Sampler(5));
    assert_eq!(map.vertex_buffers, vec![30, 29, 28]);
    let msl = to_msl(&m, &map, None).unwrap();
    let attrs = attributes(&msl);
    assert_eq!(attrs["vs"]["params"], Slot::Buffer(1));
    assert_eq!(attrs["vs"]["data"], Slot::Buffer(3));
    assert_eq!(attrs["vs"]["_buffer_sizes"], Slot::Buffer(0));
    assert_eq!(attrs["fs"]["tex"], Slot::Texture(3));
    assert_eq!(attrs["fs"]["samp"], Slot::Sampler(5));
}

#[test]
fn vertex_buffers_skip_vertex_visible_resource_buffers_and_must_fit() {
    // Buffer bindings 27 and 29 land at indices 28 and 30, both used by the vertex stage.
    let src = r#"
@group(0) @binding(27) var<uniform> a: vec4<f32>;
@group(0) @binding(29) var<uniform> b: vec4<f32>;
@vertex fn vs() -> @builtin(position) vec4<f32> { return a + b; }
"#;
    let m = module(src);
    let map = argument_table(&m, 2).unwrap();
    assert_eq!(map.vertex_buffers, vec![29, 27]);
    // 31 indices, 0 for the length table, 2 resource buffers: 28 left for vertex buffers.
    assert_eq!(argument_table(&m, 28).unwrap().vertex_buffers.len(), 28);
    let e = argument_table(&m, 29).unwrap_err();
    assert!(e.message.contains("do not fit"), "{e}");
}

#[test]
fn the_argument_table_binds_group_zero_only() {
    let m = module(MIXED);
    let e = argument_table(&m, 0).unwrap_err();
    assert!(e.message.contains("group 0 only"), "{e}");
}

#[test]
fn modules_without_runtime_arrays_take_no_table() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32, 8>;\n@compute @workgroup_size(1) fn main() { out[0] = 1u; }\n";
    let m = module(src);
    assert!(runtime_array_bindings(&m).is_empty());
    let msl = to_msl(&m, &naga_numbering(&m, None).unwrap(), None).unwrap();
    assert!(!msl.contains("_buffer_sizes"));
    // `main` is reserved in MSL; naga renames the entry point.
    assert_eq!(attributes(&msl)["main_"]["out"], Slot::Buffer(0));
}

#[test]
fn immediate_data_gets_a_buffer_index_of_its_own() {
    let m = module(
        "struct P { scale: u32, add: u32 }
        var<immediate> p: P;
        @group(0) @binding(0) var<storage, read_write> d: array<u32>;
        @compute @workgroup_size(1) fn main() { d[0] = d[0] * p.scale + p.add; }",
    );
    assert_eq!(
        m.reflection().entry_point("main").unwrap().immediate_size,
        8
    );
    // naga numbering: after the resource buffers and the sizes table.
    let map = naga_numbering(&m, None).unwrap();
    assert_eq!(
        (map.resources[&(0, 0)], map.sizes_slot, map.immediates_slot),
        (Slot::Buffer(0), 1, Some(2))
    );
    let msl = to_msl(&m, &map, None).unwrap();
    assert!(msl.contains("[[buffer(2)]]"), "{msl}");
    assert!(map.describe().contains("immediates -> buffer(2)"));
    // Argument table: the highest index, vertex buffers below it.
    let map = argument_table(&m, 1).unwrap();
    assert_eq!(
        (map.immediates_slot, map.vertex_buffers.as_slice()),
        (Some(30), &[29][..])
    );
    // Without immediate data, no slot.
    let plain = module("@compute @workgroup_size(1) fn main() {}");
    assert_eq!(naga_numbering(&plain, None).unwrap().immediates_slot, None);
}
