//! `vigil-bench`: the same workloads run three ways in one process — through vigil,
//! through a hand-written raw ash path making the same Vulkan calls without validation,
//! and through wgpu 30 — with medians, spreads and the ratios vigil/ash and vigil/wgpu.
//!
//! Each workload's three paths also return what their work produced, read back from the
//! GPU, so a run shows they did the same work (the smoke test checks that, not speed).

pub mod harness;
pub mod raw;
pub mod report;
pub mod wgpu_ctx;
pub mod workloads;

use harness::Plan;
pub use workloads::{PathResult, WorkloadResult};

/// Every workload's name, in run order.
pub const WORKLOADS: &[&str] = &["dispatches"];

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Reduced sizes and repetitions (seconds in all).
    pub quick: bool,
    /// Only this workload.
    pub workload: Option<String>,
    /// Only these paths ("vigil", "ash", "wgpu"); all when empty. For profiling one path.
    pub paths: Vec<String>,
}

impl Options {
    /// Whether `path` is selected.
    pub fn runs_path(&self, path: &str) -> bool {
        self.paths.is_empty() || self.paths.iter().any(|p| p == path)
    }
}

/// Devices of the three paths, on one adapter.
pub struct Paths {
    /// vigil, validation off.
    pub vigil: vigil::Device,
    /// Raw ash.
    pub raw: raw::Raw,
    /// wgpu.
    pub wgpu: wgpu_ctx::Wgpu,
    /// The adapter's name.
    pub adapter: String,
}

impl Paths {
    /// Opens the default adapter three ways.
    pub fn open() -> Result<Paths, String> {
        let instance = vigil::Instance::<vigil::DefaultApi>::new(&vigil::InstanceDescriptor {
            app_name: "vigil bench".into(),
            validation: vigil::Validation::Off,
        })
        .map_err(|e| e.to_string())?;
        let adapter = instance.default_adapter().map_err(|e| e.to_string())?;
        let name = adapter.info().name.clone();
        let vigil = adapter
            .request_device(&vigil::DeviceDescriptor {
                label: "bench".into(),
                required_features: adapter.features() & vigil::Features::TIMESTAMP_QUERY,
                required_limits: adapter.limits().clone(),
                ..vigil::DeviceDescriptor::default()
            })
            .map_err(|e| e.to_string())?;
        let raw = raw::Raw::new(&name)?;
        let wgpu = wgpu_ctx::Wgpu::new(&name)?;
        Ok(Paths {
            vigil,
            raw,
            wgpu,
            adapter: name,
        })
    }
}

/// Runs the selected workloads.
pub fn run(paths: &mut Paths, opts: &Options) -> Result<Vec<WorkloadResult>, String> {
    let plan = if opts.quick {
        Plan { warmup: 1, runs: 3 }
    } else {
        Plan {
            warmup: 3,
            runs: 15,
        }
    };
    let wanted = |name: &str| opts.workload.as_deref().is_none_or(|w| w == name);
    if let Some(w) = &opts.workload
        && !WORKLOADS.contains(&w.as_str())
    {
        return Err(format!(
            "unknown workload '{w}'; workloads: {}",
            WORKLOADS.join(", ")
        ));
    }
    let mut results = Vec::new();
    if wanted("dispatches") {
        use workloads::dispatches as d;
        let size = if opts.quick {
            d::Size {
                groups: 100,
                dispatches: 1000,
            }
        } else {
            d::Size {
                groups: 1000,
                dispatches: 10_000,
            }
        };
        let mut runs = Vec::new();
        if opts.runs_path("vigil") {
            runs.push(d::vigil(&paths.vigil, size, plan)?);
        }
        if opts.runs_path("ash") {
            runs.push(d::ash(&mut paths.raw, size, plan)?);
        }
        if opts.runs_path("wgpu") {
            runs.push(d::wgpu(&paths.wgpu, size, plan)?);
        }
        results.push(WorkloadResult {
            name: "dispatches",
            unit: ("dispatch", u64::from(size.dispatches)),
            paths: runs,
        });
        let expected = d::expected(size);
        if let Some(p) = results
            .last()
            .and_then(|r| r.paths.iter().find(|p| p.output != expected))
        {
            return Err(format!(
                "dispatches: the {} path produced a wrong result",
                p.path
            ));
        }
    }
    Ok(results)
}

/// The command line: `[--json] [--quick] [--workload NAME]`.
pub fn cli(args: &[String]) -> Result<(), String> {
    let mut opts = Options::default();
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--quick" => opts.quick = true,
            "--workload" => {
                opts.workload = Some(it.next().ok_or("--workload needs a name")?.clone())
            }
            "--path" => opts
                .paths
                .push(it.next().ok_or("--path needs vigil, ash or wgpu")?.clone()),
            other => {
                return Err(format!(
                    "unknown option '{other}'; usage: bench [--json] [--quick] [--workload NAME] [--path vigil|ash|wgpu]"
                ));
            }
        }
    }
    let mut paths = Paths::open()?;
    let results = run(&mut paths, &opts)?;
    if json {
        print!("{}", report::json(&paths.adapter, &results));
    } else {
        print!("{}", report::table(&paths.adapter, &results));
    }
    if results.iter().any(|w| !w.outputs_agree()) {
        return Err("the paths produced different results".into());
    }
    Ok(())
}
