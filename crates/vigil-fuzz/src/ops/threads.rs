//! Two threads on one device at once: objects destroyed, the queue polled and an encoder
//! recorded, finished and submitted on another thread, while the fuzzer's own thread goes
//! on with its usual calls (recording into its other encoders, submitting, destroying).
//!
//! What this reaches that one thread cannot: an object destroyed while an encoder on
//! another thread is between naming it and finishing (its native object must outlive that
//! encoder and its submission), a submission made on one thread while another records
//! and destroys, and recording on a thread other than the encoder's maker's. Refusals are
//! expected (an object may be gone by the time a call names it); a panic, a validation
//! message, a lost device or a health check that fails afterwards is a finding, as on
//! one thread.
//!
//! The interleaving is the operating system's, so a seed repeats the calls, not always
//! their order between the two threads.

use super::{Op, choose_from, encode, objects, queue};
use crate::recipes::RECIPES;
use crate::report::FindingKind;
use crate::rng::Rng;
use crate::world::{Bound, Open, PassState, World};
use vigil::{
    BindGroup, Buffer, CommandEncoderDescriptor, ComputePassDescriptor, ComputePipeline,
    RenderPipeline, Sampler, Texture, TextureView,
};

/// What the fuzzer's own thread does meanwhile: its usual calls, destroys more often.
const BESIDE: &[(u32, Op)] = &[
    (2, objects::destroy_something),
    (3, encode::set_bind_group),
    (4, encode::draw),
    (4, encode::dispatch),
    (2, encode::copy),
    (1, encode::set_pipeline),
    (1, encode::create_encoder),
    (1, encode::finish_encoder),
    (2, queue::submit),
    (1, queue::write_buffer),
    (1, queue::poll_and_wait),
];

/// One thing the other thread does.
#[derive(Clone, Copy, Debug)]
enum Step {
    Buffer(Buffer),
    Texture(Texture),
    View(TextureView),
    Sampler(Sampler),
    Group(BindGroup),
    Compute(ComputePipeline),
    Render(RenderPipeline),
    Poll,
}

impl Step {
    /// Makes the call on `device`: whether it was accepted.
    fn run(self, device: &vigil::Device) -> bool {
        match self {
            Step::Buffer(h) => device.destroy_buffer(h).is_ok(),
            Step::Texture(h) => device.destroy_texture(h).is_ok(),
            Step::View(h) => device.destroy_texture_view(h).is_ok(),
            Step::Sampler(h) => device.destroy_sampler(h).is_ok(),
            Step::Group(h) => device.destroy_bind_group(h).is_ok(),
            Step::Compute(h) => device.destroy_compute_pipeline(h).is_ok(),
            Step::Render(h) => device.destroy_render_pipeline(h).is_ok(),
            Step::Poll => device.poll().is_ok(),
        }
    }
}

/// What the other thread did with the encoder it was given.
#[derive(Debug, Default)]
struct Moved {
    /// Draws or dispatches it recorded (accepted).
    recorded: u32,
    /// What became of it: "submitted", or the refusal of its finish or submission.
    outcome: String,
}

/// The other thread: destroys objects and polls (`steps`), and, given an encoder in a
/// pass, records `repeats` draws or dispatches into it (spread between the steps), ends
/// the pass, finishes and submits.
/// Each call runs with panics caught: `Err` carries the first panic's message.
fn other_thread(
    device: &vigil::Device,
    steps: &[Step],
    encoder: Option<Open>,
    repeats: u32,
) -> Result<(Vec<bool>, Option<Moved>), String> {
    let mut accepted = Vec::with_capacity(steps.len());
    let mut moved = encoder.map(|o| (o, Moved::default()));
    // The steps interleaved with the encoder's calls, so destruction lands between them.
    let per_step = repeats / (steps.len() as u32 + 1);
    for step in steps {
        if let Some((open, m)) = moved.as_mut() {
            for _ in 0..per_step {
                m.recorded += u32::from(caught(|| record_one(open))?);
            }
        }
        accepted.push(caught(|| step.run(device))?);
        std::thread::yield_now();
    }
    let Some((open, mut m)) = moved else {
        return Ok((accepted, None));
    };
    let mut open = open;
    for _ in 0..repeats.saturating_sub(per_step * steps.len() as u32) {
        m.recorded += u32::from(caught(|| record_one(&mut open))?);
    }
    let Open {
        mut encoder, pass, ..
    } = open;
    m.outcome = caught(move || {
        // Refused if a draw or dispatch was (the encoder is poisoned); the finish says so.
        let _ = match pass {
            PassState::Render { .. } => encoder.end_render_pass(),
            _ => encoder.end_compute_pass(),
        };
        match encoder.finish().and_then(|cb| device.submit([cb])) {
            Ok(_) => "submitted".to_owned(),
            Err(e) => format!("refused ({:?}, {:?})", e.kind(), e.rule()),
        }
    })?;
    Ok((accepted, Some(m)))
}

/// Runs `f` with panics caught: `Err` carries the panic's message.
pub(super) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(non-string payload)".to_owned())
    })
}

/// A new encoder in a compute pass with a live compute pipeline and (when its recipe has
/// one) a live group of its recipe bound, each call made through the world: the encoder,
/// the pipeline and the group, or `None` when there is no such pair or a call was refused.
/// `before` records into the encoder first, outside any pass (`what` says what it does).
pub(super) fn ready_encoder(
    w: &mut World<'_>,
    r: &mut Rng,
    what: &str,
    before: impl FnOnce(&mut vigil::CommandEncoder) -> vigil::Result<()>,
) -> Option<(Open, ComputePipeline, Option<BindGroup>)> {
    let (pipeline, recipe) = w.compute.live_where(r, |_| true)?;
    let needs_group = !(RECIPES[recipe].group)().is_empty();
    let group = if needs_group {
        Some(w.groups.live_where(r, |m| m.recipe == Some(recipe))?)
    } else {
        None
    };
    let id = w.encoder_count;
    w.encoder_count += 1;
    let what = format!(
        "enc{id}: create, {what}begin_compute_pass, set_compute_pipeline({pipeline:?}){} for another thread",
        group.as_ref().map_or(String::new(), |(g, _)| format!(
            ", set_bind_group(0, {g:?})"
        ))
    );
    w.call("ready_encoder", what, false, |w| {
        let mut encoder = w.device.create_command_encoder(&CommandEncoderDescriptor {
            label: "fuzz encoder for another thread",
        })?;
        before(&mut encoder)?;
        encoder.begin_compute_pass(&ComputePassDescriptor {
            label: "fuzz pass for another thread",
            timestamp_writes: None,
        })?;
        encoder.set_compute_pipeline(pipeline)?;
        if let Some((g, meta)) = &group {
            // Dynamic offsets of zero, one per dynamic entry.
            encoder.set_bind_group(0, *g, &vec![0; meta.dynamic_count()])?;
        }
        Ok((
            Open {
                encoder,
                pass: PassState::Compute,
                id,
                bound: Bound {
                    pipeline: Some(recipe),
                    group: group.as_ref().map(|_| recipe),
                    ..Bound::default()
                },
                debug: Default::default(),
            },
            pipeline,
            group.map(|(g, _)| g),
        ))
    })
}

/// One draw (a triangle) or dispatch (one workgroup) into `open`'s pass: whether
/// accepted.
fn record_one(open: &mut Open) -> bool {
    match open.pass {
        PassState::Render { .. } => open.encoder.draw(0..3, 0..1).is_ok(),
        _ => open.encoder.dispatch(1, 1, 1).is_ok(),
    }
}

/// An open encoder of the world in a render pass, not poisoned, with a pipeline and what
/// its recipe draws with (its group, its vertex buffers) bound, taken out of the world.
fn take_render_encoder(w: &mut World<'_>, r: &mut Rng) -> Option<Open> {
    let ready: Vec<usize> = (0..w.encoders.len())
        .filter(|&i| {
            let o = &w.encoders[i];
            let Some(recipe) = o.bound.pipeline else {
                return false;
            };
            let slots = RECIPES[recipe].vertex_buffers.len() as u32;
            let group_ok = (RECIPES[recipe].group)().is_empty() || o.bound.group == Some(recipe);
            matches!(o.pass, PassState::Render { .. })
                && !o.encoder.is_poisoned()
                && group_ok
                && (0..slots).all(|s| o.bound.vertex_slots & (1 << s) != 0)
        })
        .collect();
    if ready.is_empty() {
        return None;
    }
    Some(w.encoders.remove(ready[r.index(ready.len())]))
}

/// Objects destroyed and the queue polled on another thread, which is also handed, now
/// and then, an encoder to draw or dispatch with, finish and submit, while this thread
/// makes 3–14 of its usual calls (see [`BESIDE`]).
pub fn destroys_across_threads(w: &mut World<'_>, r: &mut Rng) {
    let mut steps = Vec::new();
    for _ in 0..r.below(5) {
        let step = match r.below(9) {
            0 => w
                .buffers
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Buffer(h)),
            1 => w
                .textures
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Texture(h)),
            2 => w.views.live_where(r, |_| true).map(|(h, _)| Step::View(h)),
            3 => w
                .samplers
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Sampler(h)),
            4 | 5 => w
                .groups
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Group(h)),
            6 => w
                .compute
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Compute(h)),
            7 => w
                .render
                .live_where(r, |_| true)
                .map(|(h, _)| Step::Render(h)),
            _ => Some(Step::Poll),
        };
        steps.extend(step);
    }
    // An encoder goes over too, now and then: a quarter of the time one of the world's
    // render passes that is ready to draw (when there is one), which the other thread
    // draws with; otherwise half the time a new one in a compute pass with a live
    // pipeline and group bound, which it dispatches with while (now and then) those very
    // objects are destroyed here or there.
    let mut encoder = if r.chance(25) {
        take_render_encoder(w, r)
    } else {
        None
    };
    if encoder.is_none() && r.chance(50) {
        encoder = ready_encoder(w, r, "", |_| Ok(())).map(|(open, pipeline, group)| {
            if r.chance(25) {
                steps.insert(r.index(steps.len() + 1), Step::Compute(pipeline));
            }
            if let Some(g) = group.filter(|_| r.chance(25)) {
                steps.insert(r.index(steps.len() + 1), Step::Group(g));
            }
            open
        });
    }
    let repeats = 1 + r.below(40) as u32;
    let calls = 3 + r.below(12);
    let described = format!(
        "on another thread: {steps:?}{}",
        encoder.as_ref().map_or(String::new(), |o| format!(
            ", enc{} ({} {}, finish, submit)",
            o.id,
            repeats,
            if matches!(o.pass, PassState::Render { .. }) {
                "draws"
            } else {
                "dispatches"
            }
        ))
    );
    w.note(described.clone());
    let device = w.device;
    let joined = std::thread::scope(|s| {
        let steps = &steps;
        let other = s.spawn(move || other_thread(device, steps, encoder, repeats));
        for _ in 0..calls {
            choose_from(BESIDE, r)(w, r);
        }
        other.join()
    });
    let at = w.calls;
    let (accepted, moved) = match joined {
        Ok(Ok(done)) => done,
        Ok(Err(message)) => {
            w.finding(
                FindingKind::Panic,
                at,
                format!("{described}: panicked: {message}"),
            );
            return;
        }
        Err(_) => {
            w.finding(
                FindingKind::Panic,
                at,
                format!("{described}: the thread panicked outside a call"),
            );
            return;
        }
    };
    // What the other thread destroyed is gone for this one's later calls.
    for (step, ok) in steps.iter().zip(&accepted) {
        if !ok {
            continue;
        }
        match *step {
            Step::Buffer(h) => w.kill_buffer(h),
            Step::Texture(h) => w.textures.kill(h),
            Step::View(h) => w.views.kill(h),
            Step::Sampler(h) => w.samplers.kill(h),
            Step::Group(h) => w.groups.kill(h),
            Step::Compute(h) => w.compute.kill(h),
            Step::Render(h) => w.render.kill(h),
            Step::Poll => {}
        }
    }
    w.note(format!(
        "the other thread: {} of {} steps accepted{}",
        accepted.iter().filter(|a| **a).count(),
        accepted.len(),
        moved.map_or(String::new(), |m| format!(
            ", {} recorded, {}",
            m.recorded, m.outcome
        ))
    ));
    // Whatever the other thread did must leave the device free of validation messages.
    w.check_validation(at, &described);
}
