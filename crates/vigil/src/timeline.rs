//! A timeline of what the CPU and the GPU did, to look at in Perfetto or `chrome://tracing`.
//!
//! Off until [`Device::start_timeline`]. Then the device records, on the CPU clock, the
//! spans of object creation, of each encoder's recording (creation to `finish`) and each
//! pass in it, and of each submission; and, when the device has `TIMESTAMP_QUERY`, the GPU
//! time of every command buffer and every pass in it: timestamps of the device's own (from
//! a small pool of query sets) open and close each command buffer and bracket each pass
//! (beside any the caller asked for), and the same command buffer resolves and copies them
//! into a host-readable buffer. A submission's GPU span runs from its first command
//! buffer's start to its last one's end. [`Device::timeline`] collects
//! the results of submissions that have completed — it never waits for the GPU — and
//! returns every event so far. The same points are also `tracing` spans (target
//! `vigil`), for applications with a `tracing` subscriber of their own.
//!
//! GPU timestamps are on the GPU's clock; the timeline places them on the CPU's by
//! aligning the first timed pass's start with the moment its submission was made (the
//! GPU cannot have started earlier), and keeps the GPU's own spacing after that.

use crate::device::{Core, Device, lock};
use crate::handle::{Buffer, QuerySet};
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use vigil_hal::{Api, BufferUsages, Features};

/// Queries in one timeline slot: two per pass, so an encoder's first 32 passes are timed.
const SLOT_QUERIES: u32 = 64;

/// Which row of the timeline an event belongs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Track {
    /// A CPU thread (a small number per thread, in order of first appearance).
    Cpu(u32),
    /// The GPU's queue.
    Gpu,
}

/// One span of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEvent {
    /// What it was: `create_buffer 'label'`, `record 'encoder'`, `render pass 'label'`,
    /// `submit #7`, …
    pub name: String,
    /// `"create"`, `"record"`, `"pass"` or `"submit"`.
    pub category: &'static str,
    /// Where it happened.
    pub track: Track,
    /// Start, in nanoseconds since the timeline started (CPU clock).
    pub start_ns: u64,
    /// Duration in nanoseconds.
    pub duration_ns: u64,
}

/// The events of a timeline, in the order they were collected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// Every event.
    pub events: Vec<TimelineEvent>,
}

impl Timeline {
    /// The events as a Chrome trace (the JSON array format: one complete event, `"ph":"X"`,
    /// per span, times in microseconds), which Perfetto and `chrome://tracing` open. CPU
    /// threads and the GPU are separate rows of one process.
    pub fn to_chrome_trace(&self) -> String {
        let mut out = String::from("[\n");
        let mut names = vec![(0u32, "GPU".to_owned())];
        for e in &self.events {
            if let Track::Cpu(t) = e.track
                && !names.iter().any(|(id, _)| *id == t.saturating_add(1))
            {
                names.push((t.saturating_add(1), format!("CPU thread {t}")));
            }
        }
        for (id, name) in &names {
            let _ = writeln!(
                out,
                "{{\"ph\":\"M\",\"pid\":1,\"tid\":{id},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}},",
                json_str(name)
            );
        }
        let _ = writeln!(
            out,
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":\"vigil\"}}}}{}",
            if self.events.is_empty() { "" } else { "," }
        );
        for (i, e) in self.events.iter().enumerate() {
            let tid = match e.track {
                Track::Gpu => 0,
                Track::Cpu(t) => t.saturating_add(1),
            };
            let _ = write!(
                out,
                "{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"cat\":\"{}\",\"name\":{},\"ts\":{:.3},\"dur\":{:.3}}}",
                e.category,
                json_str(&e.name),
                e.start_ns as f64 / 1e3,
                e.duration_ns as f64 / 1e3
            );
            out.push_str(if i.saturating_add(1) < self.events.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str("]\n");
        out
    }
}

impl Timeline {
    /// The timeline drawn as an SVG picture `width` pixels wide: one row per CPU thread and
    /// one for the GPU, a bar per span (colored by category, labelled where it is wide
    /// enough), and a time axis in milliseconds. For a quick look without a trace viewer.
    pub fn to_svg(&self, width: u32) -> String {
        const ROW: f64 = 26.0;
        const LEFT: f64 = 110.0;
        let mut rows: Vec<Track> = vec![Track::Gpu];
        for e in &self.events {
            if !rows.contains(&e.track) {
                rows.push(e.track);
            }
        }
        rows[1..].sort_by_key(|t| match t {
            Track::Cpu(n) => *n,
            Track::Gpu => 0,
        });
        let start = self.events.iter().map(|e| e.start_ns).min().unwrap_or(0);
        let end = self
            .events
            .iter()
            .map(|e| e.start_ns.saturating_add(e.duration_ns))
            .max()
            .unwrap_or(1)
            .max(start.saturating_add(1));
        let span = end.saturating_sub(start) as f64;
        let plot = (f64::from(width) - LEFT - 40.0).max(10.0);
        let x = |ns: u64| LEFT + (ns.saturating_sub(start)) as f64 / span * plot;
        let height = 40.0 + ROW * rows.len() as f64;
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        );
        for (r, track) in rows.iter().enumerate() {
            let y = 10.0 + ROW * r as f64;
            let name = match track {
                Track::Gpu => "GPU".to_owned(),
                Track::Cpu(n) => format!("CPU thread {n}"),
            };
            let _ = writeln!(
                out,
                "<text x=\"4\" y=\"{:.1}\">{name}</text><line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
                y + 15.0,
                LEFT + plot,
                y + ROW - 2.0,
                y + ROW - 2.0
            );
        }
        for e in &self.events {
            let r = rows.iter().position(|t| *t == e.track).unwrap_or(0);
            let y = 10.0 + ROW * r as f64;
            let (x0, x1) = (x(e.start_ns), x(e.start_ns.saturating_add(e.duration_ns)));
            let w = (x1 - x0).max(1.0);
            // A submission's GPU span is a thin bar under its passes.
            let (y, bar) = if e.track == Track::Gpu && e.category == "submit" {
                (y + ROW - 10.0, 4.0)
            } else {
                (y, ROW - 10.0)
            };
            let color = match e.category {
                "create" => "#9ecae1",
                "record" => "#fdae6b",
                "pass" => "#74c476",
                _ => "#bcbddc",
            };
            let _ = write!(
                out,
                "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{color}\" stroke=\"#555\" stroke-width=\"0.3\"><title>{} ({:.3} ms)</title></rect>",
                y + 2.0,
                bar,
                xml(&e.name),
                e.duration_ns as f64 / 1e6
            );
            // A label where the bar has room for a few characters.
            if w > 60.0 && bar > 4.0 {
                let chars = ((w - 6.0) / 6.0) as usize;
                let label: String = e.name.chars().take(chars).collect();
                let _ = write!(
                    out,
                    "<text x=\"{:.1}\" y=\"{:.1}\" clip-path=\"none\">{}</text>",
                    x0 + 3.0,
                    y + 13.0,
                    xml(&label)
                );
            }
            out.push('\n');
        }
        let axis = 10.0 + ROW * rows.len() as f64 + 14.0;
        for k in 0..=5u32 {
            let ns = start.saturating_add((span * f64::from(k) / 5.0) as u64);
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{axis:.1}\" text-anchor=\"middle\">{:.2} ms</text>",
                x(ns),
                (ns.saturating_sub(start)) as f64 / 1e6
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len().saturating_add(2));
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The device's own query set and buffers for timing one encoder's passes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotObjects {
    pub set: QuerySet,
    /// Resolve target (`QUERY_RESOLVE | COPY_SRC`).
    pub resolve: Buffer,
    /// Host-readable copy (`MAP_READ | COPY_DST`).
    pub readback: Buffer,
}

/// A slot in use by one recording: queries 0 and 1 bound the whole command buffer, then
/// a pair per timed pass.
#[derive(Debug)]
pub(crate) struct Slot {
    pub objects: SlotObjects,
    /// The command buffer's label.
    pub label: String,
    /// Labels of the timed passes, in order (pass `i` used queries `2i + 2` and `2i + 3`).
    pub passes: Vec<String>,
}

impl Slot {
    /// The next pass's query pair, if the slot has room.
    pub fn next_pair(&self) -> Option<(u32, u32)> {
        let first = u32::try_from(self.passes.len())
            .ok()?
            .checked_add(1)?
            .checked_mul(2)?;
        (first.saturating_add(2) <= SLOT_QUERIES).then_some((first, first.saturating_add(1)))
    }

    /// Queries written: the command buffer's pair and every pass's.
    pub fn written(&self) -> u32 {
        u32::try_from(self.passes.len())
            .unwrap_or(0)
            .saturating_add(1)
            .saturating_mul(2)
    }
}

/// A submitted slot waiting for its submission to complete.
struct Pending {
    serial: u64,
    submitted_ns: u64,
    slot: Slot,
}

/// The timeline's state in a device.
pub(crate) struct TimelineState {
    on: AtomicBool,
    origin: Instant,
    events: Mutex<Vec<TimelineEvent>>,
    threads: Mutex<Vec<std::thread::ThreadId>>,
    free: Mutex<Vec<SlotObjects>>,
    pending: Mutex<Vec<Pending>>,
    /// GPU clock minus CPU clock (ns), fixed by the first timed submission.
    gpu_offset: Mutex<Option<i128>>,
}

impl Default for TimelineState {
    fn default() -> Self {
        TimelineState {
            on: AtomicBool::new(false),
            origin: Instant::now(),
            events: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
            free: Mutex::new(Vec::new()),
            pending: Mutex::new(Vec::new()),
            gpu_offset: Mutex::new(None),
        }
    }
}

impl TimelineState {
    /// Whether the timeline records.
    #[inline]
    pub fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Nanoseconds since the timeline's origin.
    pub fn now_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn thread(&self) -> u32 {
        let id = std::thread::current().id();
        let mut t = lock(&self.threads);
        match t.iter().position(|x| *x == id) {
            Some(i) => i as u32,
            None => {
                t.push(id);
                t.len().saturating_sub(1) as u32
            }
        }
    }

    /// Records a CPU span that started at `start_ns` and ends now, on this thread.
    pub fn cpu(&self, category: &'static str, name: impl FnOnce() -> String, start_ns: u64) {
        if !self.on() {
            return;
        }
        let end = self.now_ns();
        let track = Track::Cpu(self.thread());
        lock(&self.events).push(TimelineEvent {
            name: name(),
            category,
            track,
            start_ns,
            duration_ns: end.saturating_sub(start_ns),
        });
    }

    /// A submitted slot, to collect once `serial` completes.
    pub fn submitted(&self, serial: u64, submitted_ns: u64, slot: Slot) {
        lock(&self.pending).push(Pending {
            serial,
            submitted_ns,
            slot,
        });
    }

    /// A slot no recording uses any more.
    pub fn give_back(&self, objects: SlotObjects) {
        lock(&self.free).push(objects);
    }
}

/// A CPU span that records itself when dropped (if the timeline is on), and is also a
/// `tracing` span while it lives.
///
/// With the timeline off and `tracing` below debug level everywhere (the usual case) it is
/// `None`: one load of each switch and a tag, where building the disabled span and moving
/// its record about cost ~60 instructions a span (three spans per buffer and group made
/// and destroyed).
pub(crate) struct CpuSpan<'a>(Option<Active<'a>>);

/// A span that is timed, traced or both.
struct Active<'a> {
    /// What the timeline records; `None` while the timeline is off.
    timed: Option<Timed<'a>>,
    _span: tracing::span::EnteredSpan,
}

/// A timed span's record, kept until it ends.
struct Timed<'a> {
    state: &'a TimelineState,
    category: &'static str,
    op: &'static str,
    label: &'a str,
    named: Option<String>,
    start_ns: u64,
}

impl<'a> CpuSpan<'a> {
    /// Starts a span named `op 'label'`.
    #[inline]
    pub fn new(
        state: &'a TimelineState,
        category: &'static str,
        op: &'static str,
        label: &'a str,
    ) -> Self {
        // Below debug level for every subscriber the span would be disabled: not built.
        let traced = tracing::level_enabled!(tracing::Level::DEBUG);
        let on = state.on();
        if !traced && !on {
            return CpuSpan(None);
        }
        Self::active(state, category, op, label, on)
    }

    #[cold]
    fn active(
        state: &'a TimelineState,
        category: &'static str,
        op: &'static str,
        label: &'a str,
        on: bool,
    ) -> Self {
        let span = tracing::debug_span!(target: "vigil", "vigil", op, label).entered();
        let timed = on.then(|| Timed {
            state,
            category,
            op,
            label,
            named: None,
            start_ns: state.now_ns(),
        });
        CpuSpan(Some(Active { timed, _span: span }))
    }

    /// When the span started (timeline clock, ns; 0 with the timeline off).
    pub fn start_ns(&self) -> u64 {
        self.timed().map_or(0, |t| t.start_ns)
    }

    /// Names the span `name()` instead of `op 'label'` (called only while timed).
    pub fn name(&mut self, name: impl FnOnce() -> String) {
        if let Some(Active { timed: Some(t), .. }) = &mut self.0 {
            t.named = Some(name());
        }
    }

    fn timed(&self) -> Option<&Timed<'a>> {
        self.0.as_ref().and_then(|a| a.timed.as_ref())
    }
}

impl Drop for CpuSpan<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(Active { timed: Some(t), .. }) = &mut self.0 {
            let Timed {
                state,
                category,
                op,
                label,
                start_ns,
                ..
            } = *t;
            let named = t.named.take();
            state.cpu(
                category,
                || named.unwrap_or_else(|| format!("{op} '{label}'")),
                start_ns,
            );
        }
    }
}

impl<A: Api> Core<A> {
    /// A slot for a new recording, when the timeline is on and the device can time passes.
    pub(crate) fn timeline_slot(&self, label: &str) -> Option<Slot> {
        let t = &self.timeline;
        if !t.on() || !self.features.contains(Features::TIMESTAMP_QUERY) {
            return None;
        }
        let objects = lock(&t.free).pop()?;
        Some(Slot {
            objects,
            label: label.to_owned(),
            passes: Vec::new(),
        })
    }
}

impl<A: Api> Device<A> {
    /// Starts recording the timeline (see [`crate::timeline`]). With `TIMESTAMP_QUERY`
    /// enabled, passes are timed on the GPU as well. Starting again clears what was
    /// recorded.
    pub fn start_timeline(&self) -> crate::Result<()> {
        const OP: &str = "start_timeline";
        self.check_alive(OP)?;
        let t = &self.timeline;
        if self.features.contains(Features::TIMESTAMP_QUERY) {
            // Enough slots for several recordings at once; more recordings than slots are
            // recorded on the CPU track only.
            let mut free = lock(&t.free);
            while free.len() < 8 {
                let set = self.create_query_set("vigil timeline", SLOT_QUERIES)?;
                let size = u64::from(SLOT_QUERIES) * 8;
                let resolve = self.create_buffer(&crate::BufferDescriptor {
                    label: "vigil timeline resolve",
                    size,
                    usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
                })?;
                let readback = self.create_buffer(&crate::BufferDescriptor {
                    label: "vigil timeline readback",
                    size,
                    usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
                })?;
                free.push(SlotObjects {
                    set,
                    resolve,
                    readback,
                });
            }
        }
        lock(&t.events).clear();
        *lock(&t.gpu_offset) = None;
        t.on.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Stops recording; what was recorded stays until [`Device::timeline`] or a new start.
    /// The timeline's own query sets and buffers go as soon as no recording or submission
    /// holds them (those in flight go when [`Device::timeline`] collects them).
    pub fn stop_timeline(&self) {
        self.timeline.on.store(false, Ordering::Relaxed);
        self.release_idle_slots();
    }

    /// Destroys the free slots' objects while the timeline is off.
    fn release_idle_slots(&self) {
        if self.timeline.on() {
            return;
        }
        let free = std::mem::take(&mut *lock(&self.timeline.free));
        for o in free {
            // The device's own objects, idle: destroying them cannot be refused except on
            // a closed device, where they are gone anyway.
            let _ = self.destroy_query_set(o.set);
            let _ = self.destroy_buffer(o.resolve);
            let _ = self.destroy_buffer(o.readback);
        }
    }

    /// Collects the GPU times of submissions that have completed (without waiting for any
    /// that have not) and returns every event recorded since the start, draining them.
    pub fn timeline(&self) -> crate::Result<Timeline> {
        const OP: &str = "timeline";
        self.check_alive(OP)?;
        self.poll()?;
        let t = &self.timeline;
        let completed = self.completion.completed();
        let done: Vec<Pending> = {
            let mut pending = lock(&t.pending);
            let (done, waiting): (Vec<Pending>, Vec<Pending>) =
                pending.drain(..).partition(|p| p.serial <= completed);
            *pending = waiting;
            done
        };
        let period = f64::from(self.info.timestamp_period_ns.max(f32::MIN_POSITIVE));
        let mut gpu = Vec::new();
        // Per submission: the span of its command buffers on the GPU.
        let mut submissions: Vec<(u64, u64, u64)> = Vec::new();
        for p in done {
            let n = u64::from(p.slot.written());
            // Complete, so this reads the mapped memory directly.
            let bytes = self.read_buffer(p.slot.objects.readback, 0, n.saturating_mul(8))?;
            let ticks: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect();
            let ns = |tick: u64| (tick as f64 * period) as i128;
            let mut offset = lock(&t.gpu_offset);
            let first = ticks.first().copied().map(ns).unwrap_or(0);
            let off = *offset.get_or_insert(first.saturating_sub(i128::from(p.submitted_ns)));
            drop(offset);
            let to_cpu =
                |tick: u64| u64::try_from(ns(tick).saturating_sub(off).max(0)).unwrap_or(0);
            let mut pairs = ticks.chunks_exact(2);
            let span = |pair: &[u64]| {
                let (b, e) = (pair.first().copied().unwrap_or(0), pair.get(1).copied());
                let start = to_cpu(b);
                (start, to_cpu(e.unwrap_or(b).max(b)).saturating_sub(start))
            };
            if let Some(pair) = pairs.next() {
                let (start, duration) = span(pair);
                gpu.push(TimelineEvent {
                    name: format!("command buffer '{}'", p.slot.label),
                    category: "record",
                    track: Track::Gpu,
                    start_ns: start,
                    duration_ns: duration,
                });
                let end = start.saturating_add(duration);
                match submissions.iter_mut().find(|s| s.0 == p.serial) {
                    Some(s) => {
                        s.1 = s.1.min(start);
                        s.2 = s.2.max(end);
                    }
                    None => submissions.push((p.serial, start, end)),
                }
            }
            for (label, pair) in p.slot.passes.iter().zip(pairs) {
                let (start, duration) = span(pair);
                gpu.push(TimelineEvent {
                    name: label.clone(),
                    category: "pass",
                    track: Track::Gpu,
                    start_ns: start,
                    duration_ns: duration,
                });
            }
            t.give_back(p.slot.objects);
        }
        for (serial, lo, hi) in submissions {
            gpu.push(TimelineEvent {
                name: format!("submission #{serial} (GPU)"),
                category: "submit",
                track: Track::Gpu,
                start_ns: lo,
                duration_ns: hi.saturating_sub(lo),
            });
        }
        self.release_idle_slots();
        let mut events = std::mem::take(&mut *lock(&t.events));
        events.extend(gpu);
        Ok(Timeline { events })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, subscriber::Subscriber};

    /// Counts the spans it is given, and says up to which level it wants them.
    struct Counting {
        spans: Arc<AtomicUsize>,
        level: tracing::level_filters::LevelFilter,
    }

    impl Subscriber for Counting {
        fn enabled(&self, m: &Metadata<'_>) -> bool {
            self.level >= *m.level()
        }
        fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
            Some(self.level)
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64((self.spans.fetch_add(1, Ordering::Relaxed) as u64).saturating_add(1))
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    fn spans_seen(level: tracing::level_filters::LevelFilter, timeline_on: bool) -> (usize, usize) {
        let spans = Arc::new(AtomicUsize::new(0));
        let state = TimelineState::default();
        state.on.store(timeline_on, Ordering::Relaxed);
        let subscriber = Counting {
            spans: Arc::clone(&spans),
            level,
        };
        tracing::subscriber::with_default(subscriber, || {
            let mut s = CpuSpan::new(&state, "create", "create_buffer", "b");
            s.name(|| "named".to_owned());
        });
        let events = lock(&state.events);
        (spans.load(Ordering::Relaxed), events.len())
    }

    #[test]
    fn spans_are_traced_at_debug_level_and_timed_while_the_timeline_is_on() {
        use tracing::level_filters::LevelFilter;
        // A subscriber that wants debug spans gets one, timeline on or off.
        assert_eq!(spans_seen(LevelFilter::DEBUG, false), (1, 0));
        assert_eq!(spans_seen(LevelFilter::TRACE, true), (1, 1));
        // One that stops at info gets none; the timeline still records its own.
        assert_eq!(spans_seen(LevelFilter::INFO, false), (0, 0));
        assert_eq!(spans_seen(LevelFilter::INFO, true), (0, 1));
        let state = TimelineState::default();
        state.on.store(true, Ordering::Relaxed);
        {
            let mut s = CpuSpan::new(&state, "submit", "submit", "q");
            s.name(|| "submit #7".to_owned());
            assert_eq!(s.timed().map(|t| t.op), Some("submit"));
        }
        let events = lock(&state.events);
        assert_eq!(
            events.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            ["submit #7"]
        );
    }
}
