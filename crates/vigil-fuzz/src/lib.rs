//! `vigil-fuzz`: an API-sequence fuzzer over vigil's public API.
//!
//! A run is named by a seed. It opens a real device with the Khronos validation layer (and
//! synchronization validation) on, then makes a stream of random calls: creation with valid
//! and invalid descriptors, every command inside and outside passes, destruction at every
//! moment (while recording, after finishing, in flight), submissions, queue writes,
//! readbacks, mappings, polls and bounded waits. Arguments are biased to edge values (0,
//! 1, alignment ± 1, size − 1, size, size + 4, `u32::MAX`, `u64::MAX`, inverted ranges), and
//! handles are drawn from pools of live, stale, null, foreign and forged ones.
//!
//! Every call runs with panics caught. A run is clean when, afterwards:
//! - no call panicked, and no call accepted a handle that is not live;
//! - the validation layer said nothing;
//! - after destroying everything and draining, no vigil object is left and the native
//!   object count is back to its baseline (plus the pools the device keeps for reuse), and
//!   closing the device leaves no native object at all;
//! - the device is not lost and still runs a small compute job whose result is checked.
//!
//! A failure prints the seed and the calls before it; `--trace` replays a seed printing
//! every call as it is made (the last line before a crash names the call that crashed).
//! The command line (`vigil-fuzz`, or `cargo xtask fuzz`) runs each seed in a child
//! process, so a crash or a hang inside the driver or the layer is reported, not fatal.

mod health;
mod ops;
pub mod panics;
pub mod recipes;
pub mod report;
pub mod rng;
pub mod world;

pub use report::{FindingKind, Report};

use rng::Rng;
use std::time::Instant;
use vigil::{DeviceDescriptor, Features, Instance, InstanceDescriptor, Validation};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The seed naming the run.
    pub seed: u64,
    /// Calls to make (the health check's calls come on top).
    pub calls: u64,
    /// Print every call before making it.
    pub trace: bool,
}

/// Features the fuzzer turns on, each for about half the seeds, when the adapter has them:
/// the checks of a feature are exercised both ways.
const OPTIONAL: Features = Features::TIMESTAMP_QUERY
    .union(Features::FULL_DRAW_INDEX_UINT32)
    .union(Features::INDIRECT_FIRST_INSTANCE)
    .union(Features::SAMPLER_ANISOTROPY)
    .union(Features::MULTIVIEW)
    .union(Features::TEXTURE_BINDING_ARRAY)
    .union(Features::BUFFER_BINDING_ARRAY)
    .union(Features::STORAGE_RESOURCE_BINDING_ARRAY)
    .union(Features::PARTIALLY_BOUND_BINDING_ARRAY)
    .union(Features::VARIABLE_COUNT_BINDING_ARRAY)
    .union(Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS)
    .union(Features::UPDATE_AFTER_BIND_SAMPLED_TEXTURES)
    .union(Features::RAY_QUERY)
    .union(Features::ACCELERATION_STRUCTURE)
    .union(Features::BUFFER_DEVICE_ADDRESS)
    .union(Features::DESCRIPTOR_HEAPS)
    .union(Features::MESH_SHADER)
    .union(Features::ASYNC_COMPUTE)
    .union(Features::POLYGON_MODE_LINE)
    .union(Features::POLYGON_MODE_POINT)
    .union(Features::DEPTH_CLIP_CONTROL)
    .union(Features::MULTI_DRAW_INDIRECT)
    .union(Features::MULTI_DRAW_INDIRECT_COUNT)
    .union(Features::PIPELINE_STATISTICS_QUERY)
    .union(Features::TEXTURE_COMPRESSION_BC)
    .union(Features::TEXTURE_FORMAT_16BIT_NORM)
    .union(Features::DEPTH32FLOAT_STENCIL8)
    .union(Features::FLOAT32_FILTERABLE)
    .union(Features::ADDRESS_MODE_CLAMP_TO_BORDER)
    .union(Features::ADDRESS_MODE_CLAMP_TO_ZERO)
    .union(Features::RG11B10UFLOAT_RENDERABLE)
    .union(Features::FLOAT32_BLENDABLE)
    .union(Features::BGRA8UNORM_STORAGE)
    .union(Features::TEXTURE_ATOMIC);

/// Runs one seed on the default adapter (or `VIGIL_ADAPTER`) and reports what it found.
/// `Err` only when no device could be opened at all.
pub fn run(config: &Config) -> Result<Report, String> {
    panics::install();
    let start = Instant::now();
    let instance = Instance::new(&InstanceDescriptor {
        app_name: "vigil-fuzz".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .map_err(|e| format!("no Vulkan instance with the validation layer: {e}"))?;
    let adapter = instance
        .default_adapter()
        .map_err(|e| format!("no adapter: {e}"))?;
    // The device's shape comes from its own stream, so the call stream of a seed does not
    // depend on which features the adapter has.
    let mut shape = Rng::new(config.seed ^ 0xD5E1_CE5E);
    let features = adapter.features() & Features::from_bits_truncate(shape.next_u64()) & OPTIONAL;
    let required_limits = if shape.chance(50) {
        adapter.limits().clone()
    } else {
        vigil::Limits::default()
    };
    // A third keep Stencil8 in a depth-stencil format, as a device without S8_UINT
    // attachments does (the switch is the process's; set either way for each seed).
    vigil::force_combined_stencil8(shape.chance(33));
    let device = adapter
        .request_device(&DeviceDescriptor {
            label: "fuzz device".into(),
            required_features: features,
            required_limits,
            ..DeviceDescriptor::default()
        })
        .map_err(|e| format!("no device: {e}"))?;
    // Half the seeds make granted runs of writes go light after a few writes (the default
    // is after 256, which the fuzzer's runs seldom reach).
    if shape.chance(50) {
        device.seams().set_locked_run_writes(1 + shape.below(8));
    }
    // A third check indirect draws' arguments on the GPU as a device without
    // INDIRECT_FIRST_INSTANCE does (the test devices all have it).
    if shape.chance(33) {
        device.seams().check_indirect_first_instance();
    }
    // A third copy buffers through vigil's copy kernel from 16 bytes (as a discrete GPU
    // does from 64 KiB), half of those in windows of 4 KiB, and half of those (apart) with
    // windows from multiples of 256 bytes, as on a device with that storage alignment.
    if shape.chance(33) {
        let window = if shape.chance(50) { 4096 } else { 0 };
        device.seams().copy_by_kernel(16, window);
        if shape.chance(50) {
            device.seams().align_kernel_windows(256);
        }
    }
    let native_baseline = device.live_native_objects();
    // With a compute-only queue the other device is on it for half the seeds: explicit waits
    // then cross queues, and heaps are shared across queue families.
    let other = if features.contains(Features::ASYNC_COMPUTE) && shape.chance(50) {
        device.share_on_compute_queue()
    } else {
        device.share()
    }
    .map_err(|e| format!("no second device: {e}"))?;
    let mut report = Report {
        seed: config.seed,
        adapter: adapter.info().name.clone(),
        native_baseline,
        ..Report::default()
    };
    let mut r = Rng::new(config.seed);
    {
        let mut w = world::World::new(&device, config.trace);
        health::make_foreign(&mut w, &other);
        for _ in 0..config.calls {
            let op = ops::choose(&mut r);
            op(&mut w, &mut r);
            if device.is_lost() {
                let why = device
                    .loss_snapshot()
                    .map_or_else(|| "no snapshot".to_owned(), |s| s.to_string());
                let at = w.calls.saturating_sub(1);
                w.finding(
                    FindingKind::DeviceLost,
                    at,
                    format!("the device is lost: {why}"),
                );
                break;
            }
        }
        report.calls = w.calls;
        health::drain_and_check(&mut w, &mut report);
        report.validation_messages = w.seen_messages();
        report.stats = std::mem::take(&mut w.stats);
        report.findings = std::mem::take(&mut w.findings);
    }
    let _ = other.close();
    health::native_counts(&device, &mut report);
    let close = device.close();
    report.native_after_close = close.live_native_objects;
    if close.live_native_objects != 0 {
        report.findings.push(report::Finding {
            kind: FindingKind::Leak,
            call: report.calls,
            signature: "leak:native-after-close".into(),
            detail: format!(
                "{} native object(s) alive after the device closed",
                close.live_native_objects
            ),
            recent: Vec::new(),
            more: 0,
        });
    }
    if let Some(log) = instance.validation_log() {
        let seen = report.validation_messages;
        report.validation_messages = log.count();
        if log.count() > seen {
            let text: Vec<String> = log
                .messages()
                .iter()
                .skip(usize::try_from(seen).unwrap_or(usize::MAX))
                .take(3)
                .map(|m| format!("{}: {}", m.id, m.text))
                .collect();
            report.findings.push(report::Finding {
                kind: FindingKind::ValidationMessage,
                call: report.calls,
                signature: "validation:at-close".into(),
                detail: format!(
                    "{} message(s) at device close: {}",
                    log.count() - seen,
                    text.join(" | ")
                ),
                recent: Vec::new(),
                more: 0,
            });
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}
