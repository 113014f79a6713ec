//! Printing results: a table for people, JSON for tools.

use crate::WorkloadResult;
use crate::harness::Paired;
use std::fmt::Write as _;

/// One of the performance targets, judged on a paired figure's 95% interval.
#[derive(Clone, Debug)]
pub struct Target {
    /// What is promised, in words.
    pub what: &'static str,
    /// The workload the figure comes from.
    pub workload: &'static str,
    /// The paired figure's name (see [`WorkloadResult::paired`]).
    pub figure: &'static str,
    /// The bound.
    pub bound: f64,
    /// `true`: the figure must be at most `bound` (the interval's upper end counts);
    /// `false`: at least `bound` (its lower end counts).
    pub at_most: bool,
    /// The figure, when the run measured it.
    pub value: Option<Paired>,
}

impl Target {
    /// Met only when the whole interval is within the bound; `None` when not measured.
    pub fn met(&self) -> Option<bool> {
        self.value.map(|p| {
            if self.at_most {
                p.hi <= self.bound
            } else {
                p.lo >= self.bound
            }
        })
    }
}

/// The targets of the benchmark-method issue, each with its figure from `results`.
pub fn targets(results: &[WorkloadResult]) -> Vec<Target> {
    #[rustfmt::skip]
    const LIST: &[(&str, &str, &str, f64, bool)] = &[
        ("draws encode ≤ 1.2× raw ash", "draws", "encode: vigil/ash", 1.2, true),
        ("draws encode ≥ 5× faster than wgpu", "draws", "encode: vigil/wgpu", 0.2, true),
        ("dispatches encode ≤ 1.2× raw ash", "dispatches", "encode: vigil/ash", 1.2, true),
        ("dispatches encode ≥ 5× faster than wgpu", "dispatches", "encode: vigil/wgpu", 0.2, true),
        ("submit, 1,000 groups in the frame (draws) ≤ 1.2× raw ash", "draws", "submit: vigil/ash", 1.2, true),
        ("submit, 1,000 groups in the frame (dispatches) ≤ 1.2× raw ash", "dispatches", "submit: vigil/ash", 1.2, true),
        ("churn create ≤ 1.5× raw ash", "churn", "create: vigil/ash", 1.5, true),
        ("churn destroy ≤ 1.5× raw ash", "churn", "destroy: vigil/ash", 1.5, true),
        ("64-byte staged write ≤ 25 ns per call", "writes 64 B", "vigil ns per write call", 25.0, true),
        ("64-byte writes through to the GPU no slower than raw ash", "writes 64 B", "total: vigil/ash", 1.0, true),
        ("idle resources change encode ≤ 1.05×", "idle-resources", "encode idle/none, vigil over ash", 1.05, true),
        ("idle resources change submit ≤ 1.05×", "idle-resources", "submit idle/none, vigil over ash", 1.05, true),
        ("bandwidth ≥ 0.99 of the reference", "bandwidth", "vigil rate / reference rate", 0.99, false),
        ("8 threads record ≥ 6× one thread's rate", "parallel-record", "vigil rate x8/x1", 6.0, false),
        ("one-thread recording ≤ 1.2× raw ash", "parallel-record", "record x1: vigil/ash", 1.2, true),
        ("pointer-tier draws encode ≤ 1.1× raw ash", "tier-draws", "encode: vigil/ash", 1.1, true),
    ];
    LIST.iter()
        .map(|&(what, workload, figure, bound, at_most)| Target {
            what,
            workload,
            figure,
            bound,
            at_most,
            value: results
                .iter()
                .find(|w| w.name == workload)
                .and_then(|w| w.paired(figure)),
        })
        .collect()
}

fn interval(p: &Paired) -> String {
    format!("{:.3} [{:.3}, {:.3}] n={}", p.median, p.lo, p.hi, p.n)
}

fn us(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The ratio of two medians of a metric (`a / b`), when both paths have it.
pub fn ratio(w: &WorkloadResult, metric: &str, a: &str, b: &str) -> Option<f64> {
    let m = |p: &str| Some(w.paths.iter().find(|x| x.path == p)?.metric(metric)?.median);
    let (x, y) = (m(a)?, m(b)?);
    (!y.is_zero()).then(|| x.as_secs_f64() / y.as_secs_f64())
}

/// A human-readable table, headed by the device's name (`adapter`), the machine's
/// (`host`, [`crate::host::describe`]) and the commit the binary was built from
/// ([`crate::COMMIT`]).
pub fn table(adapter: &str, host: &str, results: &[WorkloadResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "adapter: {adapter}");
    let _ = writeln!(out, "host: {host}");
    let _ = writeln!(out, "build: {}", crate::COMMIT);
    for w in results {
        let _ = writeln!(
            out,
            "\n{} ({} x {}) — outputs {}",
            w.name,
            w.unit.1,
            w.unit.0,
            if w.outputs_agree() {
                "identical across paths"
            } else {
                "DIFFER"
            }
        );
        if let Some((start, end)) = w.load {
            let _ = writeln!(
                out,
                "  host load average (1 min): {start:.2} at the start, {end:.2} at the end"
            );
        }
        let _ = writeln!(
            out,
            "  {:<10} {:<12} {:>12} {:>12} {:>8} {:>12}",
            "metric", "path", "median µs", "per unit ns", "spread", ""
        );
        let metrics: Vec<&str> = w
            .paths
            .first()
            .map(|p| p.metrics.iter().map(|(n, _)| *n).collect())
            .unwrap_or_default();
        for m in metrics {
            for p in &w.paths {
                if let Some(s) = p.metric(m) {
                    let per = us(s.median) * 1e3 / w.unit.1.max(1) as f64;
                    let _ = writeln!(
                        out,
                        "  {:<10} {:<12} {:>12.1} {:>12.1} {:>7.0}%",
                        m,
                        p.path,
                        us(s.median),
                        per,
                        s.spread() * 100.0
                    );
                }
            }
            let ratios: Vec<String> = w
                .paths
                .iter()
                .filter(|p| p.path != "vigil")
                .filter_map(|p| {
                    ratio(w, m, "vigil", p.path).map(|r| format!("vigil/{} {r:.2}", p.path))
                })
                .collect();
            if !ratios.is_empty() {
                let _ = writeln!(out, "  {:<10} medians: {}", m, ratios.join("   "));
            }
        }
        for (name, v) in &w.derived {
            let _ = writeln!(out, "  {name}: {v:.3}");
        }
        if !w.paired.is_empty() {
            let _ = writeln!(
                out,
                "  paired (median of per-repetition ratios [95% interval]):"
            );
            for (name, p) in &w.paired {
                let _ = writeln!(out, "    {name:<40} {}", interval(p));
            }
        }
        let unsettled: Vec<&str> = w
            .paths
            .iter()
            .flat_map(|p| &p.metrics)
            .filter(|(_, s)| !s.settled)
            .map(|(n, _)| *n)
            .collect();
        if !unsettled.is_empty() {
            let _ = writeln!(
                out,
                "  warm-up did not settle for: {} (stopped at the cap)",
                unsettled.join(", ")
            );
        }
    }
    let targets = targets(results);
    if targets.iter().any(|t| t.value.is_some()) {
        let _ = writeln!(
            out,
            "\ntargets (met only when the whole 95% interval is within):"
        );
        for t in targets.iter().filter(|t| t.value.is_some()) {
            let verdict = match t.met() {
                Some(true) => "met",
                Some(false) => "NOT MET",
                None => "",
            };
            let figure = t.value.as_ref().map(interval).unwrap_or_default();
            let _ = writeln!(out, "  {:<8} {} — {} = {figure}", verdict, t.what, t.figure);
        }
    }
    out
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The results as JSON, with the device (`adapter`) and machine (`host`) they were
/// measured on and the commit the binary was built from ([`crate::COMMIT`]).
pub fn json(adapter: &str, host: &str, results: &[WorkloadResult]) -> String {
    let mut out = format!(
        "{{\"adapter\":{},\"host\":{},\"commit\":{},\"workloads\":[",
        json_str(adapter),
        json_str(host),
        json_str(crate::COMMIT)
    );
    for (i, w) in results.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"name\":{},\"unit\":{},\"units\":{},\"outputs_agree\":{},\"load_1min\":{},\"paths\":[",
            json_str(w.name),
            json_str(w.unit.0),
            w.unit.1,
            w.outputs_agree(),
            w.load
                .map_or("null".to_owned(), |(a, b)| format!("[{a:.2},{b:.2}]"))
        );
        for (j, p) in w.paths.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"path\":{},\"metrics\":{{", json_str(p.path));
            for (k, (n, s)) in p.metrics.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                let _ = write!(
                    out,
                    "{}:{{\"median_us\":{:.3},\"min_us\":{:.3},\"max_us\":{:.3},\"runs\":{},\"warmup\":{},\"settled\":{},\"samples_us\":[{}]}}",
                    json_str(n),
                    us(s.median),
                    us(s.min),
                    us(s.max),
                    s.runs,
                    s.warmup,
                    s.settled,
                    s.samples
                        .iter()
                        .map(|d| format!("{:.3}", us(*d)))
                        .collect::<Vec<_>>()
                        .join(",")
                );
            }
            out.push_str("}}");
        }
        out.push_str("],\"ratios\":{");
        let metrics: Vec<&str> = w
            .paths
            .first()
            .map(|p| p.metrics.iter().map(|(n, _)| *n).collect())
            .unwrap_or_default();
        for (k, m) in metrics.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:{{", json_str(m));
            let mut first = true;
            for p in w.paths.iter().filter(|p| p.path != "vigil") {
                if let Some(r) = ratio(w, m, "vigil", p.path) {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    let _ = write!(out, "\"vigil_over_{}\":{r:.4}", p.path);
                }
            }
            out.push('}');
        }
        out.push_str("},\"derived\":{");
        for (k, (name, v)) in w.derived.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:{v:.4}", json_str(name));
        }
        out.push_str("},\"paired\":{");
        for (k, (name, p)) in w.paired.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:{}", json_str(name), json_paired(p));
        }
        out.push_str("}}");
    }
    out.push_str("],\"targets\":[");
    for (k, t) in targets(results).iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"what\":{},\"workload\":{},\"figure\":{},\"bound\":{},\"at_most\":{},\"value\":{},\"met\":{}}}",
            json_str(t.what),
            json_str(t.workload),
            json_str(t.figure),
            t.bound,
            t.at_most,
            t.value
                .as_ref()
                .map(json_paired)
                .unwrap_or_else(|| "null".into()),
            t.met()
                .map(|m| m.to_string())
                .unwrap_or_else(|| "null".into())
        );
    }
    out.push_str("]}\n");
    out
}

fn json_paired(p: &Paired) -> String {
    format!(
        "{{\"median\":{:.4},\"lo\":{:.4},\"hi\":{:.4},\"n\":{}}}",
        p.median, p.lo, p.hi, p.n
    )
}
