//! Printing results: a table for people, JSON for tools.

use crate::WorkloadResult;
use std::fmt::Write as _;

fn us(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The ratio of two medians of a metric (`a / b`), when both paths have it.
pub fn ratio(w: &WorkloadResult, metric: &str, a: &str, b: &str) -> Option<f64> {
    let m = |p: &str| {
        w.paths
            .iter()
            .find(|x| x.path == p)?
            .metrics
            .iter()
            .find(|(n, _)| *n == metric)
            .map(|(_, s)| s.median)
    };
    let (x, y) = (m(a)?, m(b)?);
    (!y.is_zero()).then(|| x.as_secs_f64() / y.as_secs_f64())
}

/// A human-readable table.
pub fn table(adapter: &str, results: &[WorkloadResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "adapter: {adapter}");
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
        let _ = writeln!(
            out,
            "  {:<10} {:<6} {:>12} {:>12} {:>8} {:>12}",
            "metric", "path", "median µs", "per unit ns", "spread", ""
        );
        let metrics: Vec<&str> = w
            .paths
            .first()
            .map(|p| p.metrics.iter().map(|(n, _)| *n).collect())
            .unwrap_or_default();
        for m in metrics {
            for p in &w.paths {
                if let Some((_, s)) = p.metrics.iter().find(|(n, _)| *n == m) {
                    let per = us(s.median) * 1e3 / w.unit.1.max(1) as f64;
                    let _ = writeln!(
                        out,
                        "  {:<10} {:<6} {:>12.1} {:>12.1} {:>7.0}%",
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
                let _ = writeln!(out, "  {:<10} {}", m, ratios.join("   "));
            }
        }
        for (name, v) in &w.derived {
            let _ = writeln!(out, "  {name}: {v:.3}");
        }
    }
    out
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The results as JSON.
pub fn json(adapter: &str, results: &[WorkloadResult]) -> String {
    let mut out = format!("{{\"adapter\":{},\"workloads\":[", json_str(adapter));
    for (i, w) in results.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"name\":{},\"unit\":{},\"units\":{},\"outputs_agree\":{},\"paths\":[",
            json_str(w.name),
            json_str(w.unit.0),
            w.unit.1,
            w.outputs_agree()
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
                    "{}:{{\"median_us\":{:.3},\"min_us\":{:.3},\"max_us\":{:.3},\"runs\":{}}}",
                    json_str(n),
                    us(s.median),
                    us(s.min),
                    us(s.max),
                    s.runs
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
        out.push_str("}}");
    }
    out.push_str("]}\n");
    out
}
