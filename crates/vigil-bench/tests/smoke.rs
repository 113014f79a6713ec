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
    // Every workload reports, writes in two parts (64-byte and 1 MiB pieces).
    assert_eq!(results.len(), vigil_bench::WORKLOADS.len() + 1);
    for w in &results {
        let paths: Vec<_> = w.paths.iter().map(|p| p.path).collect();
        if w.name.starts_with("writes") {
            assert_eq!(paths, ["vigil", "ash", "wgpu", "memcpy"], "{}", w.name);
        } else {
            assert_eq!(paths, ["vigil", "ash", "wgpu"], "{}", w.name);
        }
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
    let idle = results.iter().find(|w| w.name == "idle-resources").unwrap();
    assert!(
        idle.derived
            .iter()
            .any(|(n, v)| n == "vigil encode idle/none" && *v > 0.0),
        "{:?}",
        idle.derived
    );
    let bandwidth = results.iter().find(|w| w.name == "bandwidth").unwrap();
    assert!(
        bandwidth
            .derived
            .iter()
            .any(|(n, v)| n.starts_with("reference GB/s") && *v > 0.0),
        "{:?}",
        bandwidth.derived
    );
    let json = vigil_bench::report::json(&paths.adapter, &results);
    assert!(json.contains("\"vigil_over_ash\""));
    assert!(json.contains("\"vigil_over_memcpy\""));
    let table = vigil_bench::report::table(&paths.adapter, &results);
    for name in vigil_bench::WORKLOADS {
        assert!(
            table.contains(&format!("\n{name}")) || name == &"writes",
            "{name}"
        );
    }
}
