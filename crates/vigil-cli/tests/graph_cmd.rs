//! `vigil graph`: the demo frame's render graph, as a plan and as Graphviz DOT.

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
    assert!(plan.trim_end().ends_with("0 culled"), "{plan}");
    let dot = vigil(&["graph", "--dot"]);
    assert!(dot.starts_with("digraph vigil_graph {"), "{dot}");
    assert!(dot.contains("scene\\n(render)"), "{dot}");
    assert!(
        dot.contains("barrier generated texture (mips 0-7)"),
        "{dot}"
    );
    assert!(dot.trim_end().ends_with('}'));
}
