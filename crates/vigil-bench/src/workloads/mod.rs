//! The workloads, each run three ways: through vigil, through raw ash, through wgpu.

pub mod bandwidth;
pub mod churn;
pub mod dispatches;
pub mod draws;
pub mod graph_compile;
pub mod round_trip;
pub mod tier_draws;
pub mod writes;

use crate::harness::{Paired, Stats};
use std::time::{Duration, Instant};

/// Submits `cb`, a frame vigil recorded in `encode`, and waits for the GPU to finish it:
/// `[encode, submit]`, the submit call timed alone.
pub(crate) fn vigil_submit_timed(
    device: &vigil::Device,
    (cb, encode): (vigil::CommandBuffer, Duration),
) -> Result<[Duration; 2], String> {
    let e = |e: vigil::Error| e.to_string();
    let t = Instant::now();
    let serial = device.submit([cb]).map_err(e)?;
    let submit = t.elapsed();
    device
        .wait_for_serial_unless_stalled(serial, Duration::from_secs(60))
        .map_err(e)?;
    Ok([encode, submit])
}

/// One path's results for one workload.
#[derive(Clone, Debug)]
pub struct PathResult {
    /// "vigil", "ash" or "wgpu".
    pub path: &'static str,
    /// Named timed quantities.
    pub metrics: Vec<(&'static str, Stats)>,
    /// What the work produced, read back, for comparing the paths.
    pub output: Vec<u8>,
}

/// A workload's results across the paths.
#[derive(Clone, Debug)]
pub struct WorkloadResult {
    /// Workload name.
    pub name: &'static str,
    /// What one unit is (for per-unit figures), and how many units one run does.
    pub unit: (&'static str, u64),
    /// Per path.
    pub paths: Vec<PathResult>,
    /// Figures derived from the medians (ratios within a path, rates), named.
    pub derived: Vec<(String, f64)>,
    /// Paired figures: medians of per-repetition ratios with their 95% intervals, named
    /// (`"encode: vigil/ash"`, `"vigil rate x8/x1"`, …).
    pub paired: Vec<(String, Paired)>,
    /// The host's one-minute load average when the workload began and when it ended
    /// ([`crate::host::load_1min`]); `None` where it cannot be read.
    pub load: Option<(f64, f64)>,
}

impl WorkloadResult {
    /// A paired figure by name.
    pub fn paired(&self, name: &str) -> Option<Paired> {
        self.paired.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }
}

impl PathResult {
    /// A metric's statistics by name.
    pub fn metric(&self, name: &str) -> Option<&Stats> {
        self.metrics
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s)
    }
}

impl WorkloadResult {
    /// Whether every path produced the same output.
    pub fn outputs_agree(&self) -> bool {
        self.paths.windows(2).all(|w| w[0].output == w[1].output)
    }
}
