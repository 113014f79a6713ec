//! `vigil graph`: the demo frame's render graph, as a plan and as Graphviz DOT.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

fn vigil(args: &[&str]) -> String {
    let bin = std::env::var_os("VIGIL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vigil")));
    let out = Command::new(bin).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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
