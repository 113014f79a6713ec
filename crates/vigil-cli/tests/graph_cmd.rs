//! `vigil graph`: the demo's deferred frame as a render graph, as a plan and as Graphviz
//! DOT.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

fn vigil(args: &[&str]) -> String {
    common::run_ok(args)
}

#[test]
fn graph_prints_the_plan_and_the_dot() {
    let plan = vigil(&["graph"]);
    assert!(plan.starts_with("pattern:"), "{plan}");
    assert!(plan.contains("mip 1:"), "{plan}");
    assert!(plan.contains("composite:"), "{plan}");
    // 320x240: six 16-bit float targets and a depth buffer, in three and one.
    let texels = 320 * 240;
    assert!(
        plan.trim_end().ends_with(&format!(
            "0 culled; transients {} bytes unshared, {} shared",
            texels * (6 * 8 + 4),
            texels * (3 * 8 + 4)
        )),
        "{plan}"
    );
    let dot = vigil(&["graph", "--dot"]);
    assert!(dot.starts_with("digraph vigil_graph {"), "{dot}");
    assert!(dot.contains("g-buffer\\n(render)"), "{dot}");
    assert!(dot.contains("bright\\n(transient, backing 0)"), "{dot}");
    assert!(
        dot.contains("barrier generated texture (mips 0-8)"),
        "{dot}"
    );
    assert!(dot.trim_end().ends_with('}'));
}
