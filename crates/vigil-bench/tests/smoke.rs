//! The harness runs, and the three paths do the same work (their outputs are compared
//! byte for byte and against the expected values). Speed is not checked here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[test]
fn quick_run_produces_identical_results_on_every_path() {
    let mut paths = vigil_bench::Paths::open().expect("three paths on the default adapter");
    let results = vigil_bench::run(
        &mut paths,
        &vigil_bench::Options {
            quick: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(results.len(), vigil_bench::WORKLOADS.len());
    for w in &results {
        assert_eq!(
            w.paths.iter().map(|p| p.path).collect::<Vec<_>>(),
            ["vigil", "ash", "wgpu"],
            "{}",
            w.name
        );
        assert!(w.outputs_agree(), "{}: outputs differ", w.name);
        assert!(
            w.paths.iter().all(|p| !p.output.is_empty()),
            "{}: a path produced nothing",
            w.name
        );
        assert!(
            w.paths
                .iter()
                .all(|p| p.metrics.iter().all(|(_, s)| s.runs > 0))
        );
    }
    let json = vigil_bench::report::json(&paths.adapter, &results);
    assert!(json.contains("\"vigil_over_ash\""));
}
