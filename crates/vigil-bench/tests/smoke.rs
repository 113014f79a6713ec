//! The harness runs, and the paths do the same work (their outputs are compared
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
        } else if w.name == "tier-draws" {
            assert_eq!(
                paths,
                ["vigil", "ash", "vigil-groups", "vigil-set-root"],
                "{}",
                w.name
            );
        } else if w.name == "draws" {
            // The frame through render bundles too (vigil's and wgpu's), their images the
            // others'.
            assert_eq!(
                paths,
                ["vigil", "ash", "wgpu", "vigil-bundle", "wgpu-bundle"],
                "{}",
                w.name
            );
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
    // Every metric is paired: vigil over each other path, from the same repetitions.
    let draws = results.iter().find(|w| w.name == "draws").unwrap();
    for name in [
        "encode: vigil/ash",
        "encode: vigil/wgpu",
        "submit: vigil/ash",
    ] {
        let p = draws
            .paired(name)
            .unwrap_or_else(|| panic!("{name}: {:?}", draws.paired));
        assert_eq!(p.n, 3, "{name}");
        assert!(
            p.lo <= p.median && p.median <= p.hi && p.lo > 0.0,
            "{name}: {p:?}"
        );
    }
    assert!(idle.paired("encode idle/none, vigil over ash").is_some());
    // The tier's draws paired with raw ash's and with the bind-group path's.
    let tier = results.iter().find(|w| w.name == "tier-draws").unwrap();
    for name in ["encode: vigil/ash", "encode: vigil/vigil-groups"] {
        assert!(tier.paired(name).is_some_and(|p| p.median > 0.0), "{name}");
    }
    let par = results
        .iter()
        .find(|w| w.name == "parallel-record")
        .unwrap();
    assert!(
        par.paired("vigil rate x8/x1")
            .is_some_and(|p| p.median > 0.0)
    );
    assert!(bandwidth.paired("vigil rate / reference rate").is_some());
    let writes = results.iter().find(|w| w.name == "writes 64 B").unwrap();
    assert!(
        writes
            .paired("vigil ns per write call")
            .is_some_and(|p| p.median > 0.0)
    );
    // Every target found its figure in a full set of workloads.
    let targets = vigil_bench::report::targets(&results);
    assert!(
        targets.iter().all(|t| t.value.is_some()),
        "{:?}",
        targets
            .iter()
            .filter(|t| t.value.is_none())
            .collect::<Vec<_>>()
    );
    // Linux (where this suite runs) gives each workload the host's load at its start and end.
    assert!(results.iter().all(|w| w.load.is_some()));
    let host = vigil_bench::host::describe();
    let json = vigil_bench::report::json(&paths.adapter, &host, &results);
    assert!(json.contains("\"targets\":[{") && json.contains("\"samples_us\":["));
    assert!(json.contains("\"host\":\"") && json.contains("\"load_1min\":["));
    // The build names its commit ("unknown" only outside a git checkout).
    assert!(!vigil_bench::COMMIT.is_empty());
    assert!(json.contains(&format!("\"commit\":\"{}\"", vigil_bench::COMMIT)));
    assert!(json.contains("\"vigil_over_ash\""));
    assert!(json.contains("\"vigil_over_memcpy\""));
    let table = vigil_bench::report::table(&paths.adapter, &host, &results);
    assert!(table.contains("\nhost: ") && table.contains("host load average (1 min): "));
    assert!(table.contains(&format!("\nbuild: {}\n", vigil_bench::COMMIT)));
    for name in vigil_bench::WORKLOADS {
        assert!(
            table.contains(&format!("\n{name}")) || name == &"writes",
            "{name}"
        );
    }
}

#[test]
fn graph_compile_runs_on_request_with_a_per_pass_ratio_per_size() {
    let mut paths = vigil_bench::Paths::open().expect("three paths on the default adapter");
    let results = vigil_bench::run(
        &mut paths,
        &vigil_bench::Options {
            quick: true,
            workloads: vec!["graph-compile".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let [w] = results.as_slice() else {
        panic!("{} results", results.len());
    };
    let sizes: Vec<_> = w.paths.iter().map(|p| p.path).collect();
    assert_eq!(sizes, ["100 passes", "1,000 passes", "10,000 passes"]);
    for label in ["1,000 passes", "10,000 passes"] {
        let p = w
            .paired(&format!("compile per pass: {label} / 100 passes"))
            .unwrap_or_else(|| panic!("{label}: {:?}", w.paired));
        assert!(p.lo <= p.median && p.median <= p.hi && p.lo > 0.0, "{p:?}");
    }
    assert!(
        w.derived
            .iter()
            .any(|(n, v)| n == "10,000 passes: compile ns per pass (median)" && *v > 0.0),
        "{:?}",
        w.derived
    );
}
