//! `vigil demo`: the main job. Picks the default adapter, runs real work through the
//! validated device, verifies every result, and reports timings and what the validation
//! layer said.

mod compute;

use std::time::Instant;
use vigil::{Device, DeviceDescriptor, Features, Instance, InstanceDescriptor, Validation};

pub struct Options {
    pub validation: bool,
    pub frames: u32,
    pub out: std::path::PathBuf,
    /// Where to write the CPU/GPU timeline as a Chrome trace, if anywhere.
    pub trace: Option<std::path::PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        validation: true,
        frames: 4,
        out: "target/vigil-demo".into(),
        trace: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--no-validation" => o.validation = false,
            "--frames" => {
                o.frames = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--frames needs a number")?;
            }
            "--out" => o.out = it.next().ok_or("--out needs a directory")?.into(),
            "--trace" => o.trace = Some(it.next().ok_or("--trace needs a file name")?.into()),
            other => return Err(format!("unknown demo option '{other}'")),
        }
    }
    Ok(o)
}

/// Frame size of the demo's scene (and of its golden images).
pub const FRAME_SIZE: [u32; 2] = [320, 240];

fn render_frames(device: &Device, opts: &Options) -> Result<(), String> {
    use vigil_examples::scene;
    println!(
        "scene: {}x{} frames, a {tex}x{tex} texture generated and mipmapped by compute, {} lit cubes in one instanced draw",
        FRAME_SIZE[0],
        FRAME_SIZE[1],
        scene::INSTANCES,
        tex = scene::TEXTURE_SIZE
    );
    let t = Instant::now();
    let s = scene::Scene::new(device, FRAME_SIZE)?;
    println!("  scene setup {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut images = Vec::new();
    for i in 0..opts.frames {
        let frame = s.frame(device, i)?;
        let path = opts.out.join(format!("frame_{i}.png"));
        frame.image.save(&path)?;
        images.push(frame.image.clone());
        let gpu = frame.gpu_ms.map_or_else(
            || "GPU timestamps unavailable".to_owned(),
            |[p, m, r]| format!("GPU pattern {p:.3} ms, mipmaps {m:.3} ms, render {r:.3} ms"),
        );
        println!(
            "  frame {i}: CPU {:.3} ms (update+encode+submit), {gpu} -> {}",
            frame.cpu_ms,
            path.display()
        );
    }
    // The same frames through the render graph (vigil-graph): every bind group imported
    // whole, barriers planned per mip and layer; the images must be the same, pixel for
    // pixel.
    let t = Instant::now();
    let mut graph = s.graph(device)?;
    let plan = graph.plan();
    println!(
        "graph: {} passes, {} barriers planned, compiled in {:.2} ms (`vigil graph --dot` draws it)",
        plan.passes.len(),
        plan.barrier_count(),
        t.elapsed().as_secs_f64() * 1e3
    );
    for (i, immediate) in (0..opts.frames).zip(&images) {
        let t = Instant::now();
        let frame = s.frame_with_graph(device, &mut graph, i)?;
        plan_only(&frame)?;
        let image = frame.image;
        if image.rgba != immediate.rgba {
            return Err(format!(
                "frame {i} through the graph differs from the immediate-mode frame"
            ));
        }
        println!(
            "  graph frame {i}: CPU+readback {:.3} ms, identical to the immediate-mode frame, barriers from the plan only",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    deferred_frames(device, &s, opts)
}

/// Fails unless vigil's tracker needed no barrier beyond the graph's plan.
fn plan_only(frame: &vigil_examples::scene::GraphFrame) -> Result<(), String> {
    match frame.derived_barrier_batches {
        0 => Ok(()),
        n => Err(format!(
            "the tracker added {n} barrier batch(es) the graph's plan did not cover"
        )),
    }
}

/// The deferred frame (G-buffer, lighting, bloom, composite), in immediate mode and as a
/// render graph whose intermediate textures are transients sharing memory; the images
/// must be the same, pixel for pixel.
fn deferred_frames(
    device: &Device,
    s: &vigil_examples::scene::Scene,
    opts: &Options,
) -> Result<(), String> {
    let deferred = vigil_examples::scene::Deferred::new(device, s)?;
    let t = Instant::now();
    let mut graph = deferred.graph(device, s)?;
    let plan = graph.plan();
    let kib = |b: u64| b as f64 / 1024.0;
    println!(
        "deferred graph: {} passes, {} barriers planned, compiled in {:.2} ms; {} transient textures in {} (`vigil graph --dot` draws it)",
        plan.passes.len(),
        plan.barrier_count(),
        t.elapsed().as_secs_f64() * 1e3,
        plan.aliases.len(),
        plan.backings.len(),
    );
    println!(
        "  transient memory: {:.0} KiB unshared (one texture each, as the immediate-mode frame makes them) -> {:.0} KiB shared ({:.0}% less)",
        kib(plan.transient_bytes_unaliased),
        kib(plan.transient_bytes()),
        100.0
            * (1.0 - plan.transient_bytes() as f64 / plan.transient_bytes_unaliased.max(1) as f64)
    );
    for i in 0..opts.frames {
        let immediate = deferred.frame(device, s, i)?;
        let path = opts.out.join(format!("deferred_{i}.png"));
        immediate.save(&path)?;
        let frame = deferred.frame_with_graph(device, s, &mut graph, i)?;
        plan_only(&frame)?;
        let image = frame.image;
        if image.rgba != immediate.rgba {
            return Err(format!(
                "deferred frame {i} through the graph differs from the immediate-mode frame"
            ));
        }
        println!(
            "  deferred frame {i}: identical through the graph and in immediate mode, barriers from the plan only -> {}",
            path.display()
        );
    }
    Ok(())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse(args)?;
    let start = Instant::now();
    let instance = Instance::<vigil::DefaultApi>::new(&InstanceDescriptor {
        app_name: "vigil demo".into(),
        validation: if opts.validation {
            Validation::On
        } else {
            Validation::Off
        },
        ..Default::default()
    })
    .map_err(|e| e.to_string())?;
    let adapter = instance.default_adapter().map_err(|e| e.to_string())?;
    let info = adapter.info().clone();
    println!(
        "adapter: {} ({}, {} {}, Vulkan {}.{}.{})",
        info.name,
        info.device_type,
        info.driver,
        info.driver_info,
        info.api_version.0,
        info.api_version.1,
        info.api_version.2
    );
    let wanted =
        Features::TIMESTAMP_QUERY | Features::FULL_DRAW_INDEX_UINT32 | Features::SAMPLER_ANISOTROPY;
    let device: Device = adapter
        .request_device(&DeviceDescriptor {
            label: "demo".into(),
            required_features: adapter.features() & wanted,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .map_err(|e| e.to_string())?;
    println!(
        "validation layer: {}",
        if opts.validation { "on" } else { "off" }
    );
    compute::run(&device)?;
    // The timeline covers the rendered frames (scene set-up included).
    if opts.trace.is_some() {
        device.start_timeline().map_err(|e| e.to_string())?;
    }
    render_frames(&device, &opts)?;
    if let Some(path) = &opts.trace {
        // Every frame was read back, so every submission has completed: nothing waits.
        let timeline = device.timeline().map_err(|e| e.to_string())?;
        std::fs::write(path, timeline.to_chrome_trace())
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        let picture = path.with_extension("svg");
        std::fs::write(&picture, timeline.to_svg(1200))
            .map_err(|e| format!("writing {}: {e}", picture.display()))?;
        let gpu = timeline
            .events
            .iter()
            .filter(|e| e.track == vigil::Track::Gpu)
            .count();
        println!(
            "timeline: {} events ({gpu} on the GPU) -> {} (open it in Perfetto or chrome://tracing), drawn in {}",
            timeline.events.len(),
            path.display(),
            picture.display()
        );
    }
    let stats = device.stats();
    let log = device.validation_log();
    drop(device);
    println!(
        "submissions: {}, command buffers: {}, dispatches: {}, draws: {}",
        stats.submissions, stats.command_buffers, stats.dispatches, stats.draws
    );
    match log {
        Some(log) => {
            println!(
                "validation summary: {} message(s) from the Khronos validation layer",
                log.count()
            );
            for m in log.messages().iter().take(10) {
                println!("  {m}");
            }
            if log.count() > 0 {
                return Err("the validation layer reported problems".into());
            }
        }
        None => println!("validation summary: layer off"),
    }
    println!("total: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    Ok(())
}
