//! Repetition, pairing and statistics.
//!
//! A workload's paths (vigil, raw ash, wgpu, …) each run in their own thread, but never at
//! the same time: a coordinator lets exactly one of them run at any moment. Each path's
//! set-up runs alone until the path reaches a timed phase ([`repeat`] or [`parallel`]);
//! when every path has reached it, the phase runs as *repetitions*: in each one every
//! path runs its timed body once, back to back, in an order that rotates by one place per
//! repetition (so each path is first, second, … equally often). The host's drift between
//! one repetition and the next then moves every path alike, and the per-repetition ratio
//! `vigil[i] / ash[i]` cancels it; [`Paired`] takes the median of those ratios and a
//! distribution-free 95% interval for it.
//!
//! **What runs just before a timed run.** Rotating keeps the paths' cyclic order, so each
//! path's timed run always follows the same other path's (in `vigil, ash, wgpu`, vigil's
//! always follows wgpu's). What that path left behind carries over: on an H100, a draws
//! frame submitted right after wgpu's frame took 0.3–0.4 of raw ash's submit time longer
//! than after raw ash's (session 59, `results/s59/run-2`). With [`Plan::lead_in`],
//! each path's turn starts with an untimed run of its own body, and the timed run follows
//! that: every path is timed in its own steady state, whatever ran before its turn.
//!
//! **Warm-up, and when it ends.** Before the timed repetitions, warm-up repetitions run
//! (rotating alike) and are discarded. Warm-up ends when every path has *settled*: the
//! median of its last three warm-up times (all metrics of the phase summed) is within 5% of
//! the median of the three before them. At least [`Plan::warmup`] warm-ups run, and at
//! most [`Plan::warmup_max`]; a phase that hit the cap is marked not settled in the results
//! ([`Stats::settled`]) rather than run forever.

//!
//! **Every path on the same CPU.** Pairing cancels drift in *time*, not differences
//! between *CPUs*: on a virtual machine each virtual CPU runs on a host core that other
//! guests load differently, so a path that happens to run on a slower one is slower in
//! every repetition and the paired ratio moves from one run to the next by more than its
//! interval (the H200 host showed draws vigil/ash from 1.4 to 2.4 across runs of one
//! binary). So the timed threads are pinned ([`pin_to`]): every path's thread to the first
//! CPU of the list, `parallel`'s worker `i` to the CPU after it, `i + 1` places on
//! (wrapping), the same CPUs for every path. The list is the CPUs the process may run on,
//! highest first (CPU 0 takes most interrupts), unless `vigil bench --cpus` names one or
//! turns pinning off. The driver's own threads are left where the system puts them.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// The CPUs timed threads are pinned to, first the paths' (empty: not pinned). Set once,
/// before any workload runs.
static CPUS: OnceLock<Vec<usize>> = OnceLock::new();

/// Pins timed threads to `cpus` (first the paths' CPU, then the parallel workers'), or
/// to none when empty. Only the first call counts; `false` when pinning was set already.
pub fn pin_to(cpus: Vec<usize>) -> bool {
    CPUS.set(cpus).is_ok()
}

/// The CPUs this process may run on, highest first.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set, the type's documented initial state.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the set is writable and its size is passed; pid 0 is the calling thread.
    let got = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if got != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        .rev()
        // SAFETY: `c` is below CPU_SETSIZE, inside the set.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// Pins the calling thread to the `slot`th CPU of the list (wrapping); nothing when
/// pinning is off. A CPU the system refuses leaves the thread where it was.
fn pin_current(slot: usize) {
    let Some(cpus) = CPUS.get().filter(|c| !c.is_empty()) else {
        return;
    };
    let cpu = cpus[slot % cpus.len()];
    // SAFETY: a zeroed cpu_set_t is an empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` came from the allowed set or the command line; CPU_SET ignores
    // numbers at or past CPU_SETSIZE.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: the set is initialised and its size is passed; pid 0 is the calling thread.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
}

/// Statistics of one timed quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Median.
    pub median: Duration,
    /// Fastest run.
    pub min: Duration,
    /// Slowest run.
    pub max: Duration,
    /// Runs timed.
    pub runs: usize,
    /// The timed samples in repetition order (sample `i` of every path of one phase comes
    /// from the same repetition).
    pub samples: Vec<Duration>,
    /// Warm-up repetitions discarded before the timed ones.
    pub warmup: usize,
    /// Whether the warm-up settled (false: it stopped at [`Plan::warmup_max`]).
    pub settled: bool,
}

impl Stats {
    /// From raw samples in repetition order (at least one).
    pub fn of(samples: Vec<Duration>) -> Stats {
        let mut sorted = samples.clone();
        sorted.sort_unstable();
        Stats {
            median: sorted.get(sorted.len() / 2).copied().unwrap_or_default(),
            min: sorted.first().copied().unwrap_or_default(),
            max: sorted.last().copied().unwrap_or_default(),
            runs: samples.len(),
            samples,
            warmup: 0,
            settled: true,
        }
    }

    /// The samples of two phases of one quantity, `self`'s then `other`'s, as one: their
    /// warm-ups add up, and it settled when both did.
    pub fn then(self, other: Stats) -> Stats {
        let mut samples = self.samples;
        samples.extend(other.samples);
        Stats {
            warmup: self.warmup + other.warmup,
            settled: self.settled && other.settled,
            ..Stats::of(samples)
        }
    }

    /// (max - min) / median, as a fraction.
    pub fn spread(&self) -> f64 {
        if self.median.is_zero() {
            return 0.0;
        }
        (self.max - self.min).as_secs_f64() / self.median.as_secs_f64()
    }
}

/// The median of paired ratios with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    /// Median of the per-repetition ratios.
    pub median: f64,
    /// Lower end of the 95% interval for that median.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Repetitions (ratios) it comes from.
    pub n: usize,
}

impl Paired {
    /// The median of `ratios` and a distribution-free 95% interval for it: the order
    /// statistics `X(j)` and `X(n+1-j)` with the largest `j` for which
    /// P(Binomial(n, ½) < j) ≤ 2.5% (so the interval covers the true median with
    /// probability at least 95% whatever the ratios' distribution). With fewer than six
    /// ratios no such `j` exists and the interval is the whole range (`min`, `max`).
    pub fn of(ratios: &[f64]) -> Option<Paired> {
        let mut r: Vec<f64> = ratios.iter().copied().filter(|x| x.is_finite()).collect();
        if r.is_empty() {
            return None;
        }
        r.sort_unstable_by(f64::total_cmp);
        let n = r.len();
        let median = if n % 2 == 1 {
            r[n / 2]
        } else {
            (r[n / 2 - 1] + r[n / 2]) / 2.0
        };
        let j = median_rank(n);
        Some(Paired {
            median,
            lo: r[j.saturating_sub(1)],
            hi: r[n - j.max(1)],
            n,
        })
    }

    /// Ratios `a[i] / b[i]` of two sample series of one phase.
    pub fn ratio(a: &[Duration], b: &[Duration]) -> Option<Paired> {
        let r: Vec<f64> = a
            .iter()
            .zip(b)
            .filter(|(_, y)| !y.is_zero())
            .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
            .collect();
        Paired::of(&r)
    }
}

/// The 1-based rank `j` of the lower end of the 95% interval for a median of `n` samples
/// (the largest `j` with P(Binomial(n, ½) ≤ j - 1) ≤ 0.025), at least 1.
fn median_rank(n: usize) -> usize {
    // P(B = k) for k = 0, 1, …, accumulated in logs to stay finite for large n.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0f64;
    let mut cdf = 0.0f64;
    let mut j = 1;
    for k in 0..n {
        if k > 0 {
            ln_choose += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        cdf += (ln_choose + ln_half_n).exp();
        // cdf = P(B ≤ k): rank k + 1 is allowed while that stays within 2.5%.
        if cdf <= 0.025 {
            j = k + 1;
        } else {
            break;
        }
    }
    j.min(n.div_ceil(2))
}

/// How many times to run.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Warm-up repetitions at least (discarded).
    pub warmup: usize,
    /// Warm-up repetitions at most, settled or not.
    pub warmup_max: usize,
    /// Timed repetitions.
    pub runs: usize,
    /// Whether each path's turn in a repetition begins with an untimed run of its body (a
    /// lead-in), so that its timed run follows a run of its own rather than another
    /// path's (see the module's notes on the order).
    pub lead_in: bool,
}

/// Settled: the median of the last three warm-up totals within 5% of the three before.
fn settled(totals: &[Duration]) -> bool {
    let n = totals.len();
    if n < 6 {
        return false;
    }
    let med3 = |s: &[Duration]| {
        let mut v = s.to_vec();
        v.sort_unstable();
        v[1].as_secs_f64()
    };
    let (before, last) = (med3(&totals[n - 6..n - 3]), med3(&totals[n - 3..]));
    before > 0.0 && (last - before).abs() / before <= 0.05
}

/// Messages from a path's thread to the coordinator.
enum Up {
    /// Reached a timed phase with this many metrics.
    Arrived(usize),
    /// One repetition's times (or its failure).
    Sample(Result<Vec<Duration>, String>),
    /// The path's function returned.
    Finished,
}

/// Messages from the coordinator to one path's thread.
enum Down {
    /// Run (the set-up until the next phase, or one repetition).
    Go,
    /// The phase is over: its statistics, one per metric.
    End(Vec<Stats>),
    /// Another path failed; stop.
    Abort,
}

/// A path thread's line to the coordinator.
struct Seat {
    me: usize,
    up: Sender<(usize, Up)>,
    down: Receiver<Down>,
}

thread_local! {
    static SEAT: RefCell<Option<Seat>> = const { RefCell::new(None) };
}

/// Runs one timed phase: `once` is one repetition's body, returning its `metrics` times.
/// Inside [`paired`] the coordinator decides when it runs; alone (no coordinator) it runs
/// the same warm-up rule and repetitions here.
fn phase(
    plan: Plan,
    metrics: usize,
    mut once: impl FnMut() -> Result<Vec<Duration>, String>,
) -> Result<Vec<Stats>, String> {
    let seated = SEAT.with(|s| s.borrow().is_some());
    if !seated {
        let mut warm = Vec::new();
        while warm.len() < plan.warmup_max && (warm.len() < plan.warmup || !settled(&warm)) {
            pause();
            warm.push(once()?.iter().sum());
        }
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); metrics];
        for _ in 0..plan.runs {
            pause();
            for (s, d) in samples.iter_mut().zip(once()?) {
                s.push(d);
            }
        }
        let done = settled(&warm) || plan.warmup_max <= plan.warmup;
        return Ok(samples
            .into_iter()
            .map(|s| Stats {
                warmup: warm.len(),
                settled: done,
                ..Stats::of(s)
            })
            .collect());
    }
    let talk = |m: Up| {
        SEAT.with(|s| {
            if let Some(seat) = s.borrow().as_ref() {
                let _ = seat.up.send((seat.me, m));
            }
        })
    };
    let listen = || {
        SEAT.with(|s| {
            s.borrow()
                .as_ref()
                .and_then(|seat| seat.down.recv().ok())
                .unwrap_or(Down::Abort)
        })
    };
    talk(Up::Arrived(metrics));
    loop {
        match listen() {
            Down::Go => {
                let r = once();
                let failed = r.as_ref().err().cloned();
                talk(Up::Sample(r));
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            Down::End(stats) => return Ok(stats),
            Down::Abort => return Err("stopped: another path of this workload failed".into()),
        }
    }
}

/// A CPU driver's worker threads may still be tidying up after the last run (on a
/// two-core machine they would share the CPU with the next run): let them.
fn pause() {
    std::thread::sleep(Duration::from_millis(2));
}

/// Runs `f` as one timed phase; `f` returns one duration per named quantity.
/// With `VIGIL_BENCH_SAMPLES` set, the timed samples go to stderr.
pub fn repeat<const N: usize>(
    plan: Plan,
    mut f: impl FnMut() -> Result<[Duration; N], String>,
) -> Result<[Stats; N], String> {
    let stats = phase(plan, N, || f().map(|a| a.to_vec()))?;
    if std::env::var_os("VIGIL_BENCH_SAMPLES").is_some() {
        let s: Vec<&Vec<Duration>> = stats.iter().map(|s| &s.samples).collect();
        eprintln!("{s:?}");
    }
    let mut it = stats.into_iter();
    let out: [Option<Stats>; N] = std::array::from_fn(|_| it.next());
    if out.iter().any(Option::is_none) {
        return Err("a phase returned fewer metrics than it timed".into());
    }
    Ok(out.map(|s| s.unwrap_or_else(|| Stats::of(Vec::new()))))
}

/// Runs each job (one per path) in its own thread, one at a time, pairing their timed
/// phases as the module describes. Returns the jobs' results in job order.
pub fn paired<'a, R: Send>(
    plan: Plan,
    jobs: Vec<Box<dyn FnOnce() -> Result<R, String> + Send + 'a>>,
) -> Result<Vec<R>, String> {
    let n = jobs.len();
    let (up_tx, up) = channel::<(usize, Up)>();
    std::thread::scope(|s| {
        let mut downs = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        for (me, job) in jobs.into_iter().enumerate() {
            let (down_tx, down) = channel::<Down>();
            downs.push(down_tx);
            let up = up_tx.clone();
            handles.push(s.spawn(move || {
                pin_current(0);
                let start = down.recv();
                SEAT.with(|s| {
                    *s.borrow_mut() = Some(Seat {
                        me,
                        up: up.clone(),
                        down,
                    })
                });
                let r = match start {
                    Ok(Down::Go) => {
                        // A panic must not leave the coordinator waiting for this path.
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
                            .unwrap_or_else(|_| Err(format!("path {me} panicked")))
                    }
                    _ => Err("stopped before it started".into()),
                };
                SEAT.with(|s| *s.borrow_mut() = None);
                let _ = up.send((me, Up::Finished));
                r
            }));
        }
        drop(up_tx);
        let failure = coordinate(plan, &downs, &up);
        drop(downs);
        let results: Vec<Result<R, String>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a path's thread died".into()))
            })
            .collect();
        if let Some(e) = failure {
            // The path that failed first says why; the others only that they stopped.
            return Err(results
                .into_iter()
                .find_map(|r| r.err().filter(|m| !m.starts_with("stopped")))
                .unwrap_or(e));
        }
        results.into_iter().collect()
    })
}

/// What one path is doing, as the coordinator sees it.
#[derive(Clone, Copy, PartialEq)]
enum At {
    Phase(usize),
    Finished,
}

/// Drives the paths: set-ups one at a time, then each phase's repetitions rotating.
/// Returns a failure, if any.
fn coordinate(plan: Plan, downs: &[Sender<Down>], up: &Receiver<(usize, Up)>) -> Option<String> {
    let n = downs.len();
    let mut at = vec![At::Finished; n];
    // Lets path `p` run until it reaches a phase or finishes.
    let advance = |p: usize, msg: Down, at: &mut Vec<At>| -> Option<String> {
        if downs[p].send(msg).is_err() {
            at[p] = At::Finished;
            return None;
        }
        match up.recv() {
            Ok((q, Up::Arrived(m))) if q == p => {
                at[p] = At::Phase(m);
                None
            }
            Ok((q, Up::Finished)) if q == p => {
                at[p] = At::Finished;
                None
            }
            Ok(_) => Some("a path ran out of turn".into()),
            Err(_) => Some("a path's thread is gone".into()),
        }
    };
    for p in 0..n {
        if let Some(e) = advance(p, Down::Go, &mut at) {
            return abort(downs, up, &at, e);
        }
    }
    let mut rotation = 0usize;
    loop {
        let waiting: Vec<usize> = (0..n).filter(|&p| at[p] != At::Finished).collect();
        if waiting.is_empty() {
            return None;
        }
        if waiting.len() != n {
            return abort(
                downs,
                up,
                &at,
                "the paths' timed phases do not match (one path ended early)".into(),
            );
        }
        let metrics = match at[0] {
            At::Phase(m) => m,
            At::Finished => 0,
        };
        if at.iter().any(|a| *a != At::Phase(metrics)) {
            return abort(
                downs,
                up,
                &at,
                format!(
                    "the paths time different numbers of metrics at one phase: {:?}",
                    at.iter()
                        .map(|a| match a {
                            At::Phase(m) => *m,
                            At::Finished => 0,
                        })
                        .collect::<Vec<_>>()
                ),
            );
        }
        // One repetition: every path once, in rotated order.
        let rep = |rotation: usize| -> Result<Vec<Vec<Duration>>, String> {
            let mut times = vec![Vec::new(); n];
            for k in 0..n {
                let p = (rotation + k) % n;
                // The lead-in's times are dropped: the timed run is the turn's last.
                for _ in 0..if plan.lead_in { 2 } else { 1 } {
                    pause();
                    downs[p]
                        .send(Down::Go)
                        .map_err(|_| "a path's thread is gone")?;
                    match up.recv() {
                        Ok((q, Up::Sample(Ok(t)))) if q == p && t.len() == metrics => times[p] = t,
                        Ok((_, Up::Sample(Err(e)))) => return Err(e),
                        _ => return Err("a path answered out of turn".into()),
                    }
                }
            }
            Ok(times)
        };
        let mut warm: Vec<Vec<Duration>> = vec![Vec::new(); n];
        let all_settled = |warm: &[Vec<Duration>]| warm.iter().all(|w| settled(w));
        while warm[0].len() < plan.warmup_max
            && (warm[0].len() < plan.warmup || !all_settled(&warm))
        {
            match rep(rotation) {
                Ok(t) => {
                    for (w, t) in warm.iter_mut().zip(t) {
                        w.push(t.iter().sum());
                    }
                }
                Err(e) => {
                    // The failing path has returned from its phase; the others wait.
                    return abort(downs, up, &at, e);
                }
            }
            rotation += 1;
        }
        let done = all_settled(&warm) || plan.warmup_max <= plan.warmup;
        let mut samples: Vec<Vec<Vec<Duration>>> = vec![vec![Vec::new(); metrics]; n];
        for _ in 0..plan.runs {
            match rep(rotation) {
                Ok(t) => {
                    for (s, t) in samples.iter_mut().zip(t) {
                        for (m, d) in s.iter_mut().zip(t) {
                            m.push(d);
                        }
                    }
                }
                Err(e) => return abort(downs, up, &at, e),
            }
            rotation += 1;
        }
        // Each path's statistics; then its set-up up to the next phase, one at a time.
        for (p, s) in samples.into_iter().enumerate() {
            let stats = s
                .into_iter()
                .map(|m| Stats {
                    warmup: warm[p].len(),
                    settled: done,
                    ..Stats::of(m)
                })
                .collect();
            if let Some(e) = advance(p, Down::End(stats), &mut at) {
                return abort(downs, up, &at, e);
            }
        }
    }
}

/// Stops every path still waiting at a phase and waits for them to finish.
fn abort(
    downs: &[Sender<Down>],
    up: &Receiver<(usize, Up)>,
    at: &[At],
    why: String,
) -> Option<String> {
    let mut open: Vec<usize> = (0..downs.len())
        .filter(|&p| at[p] != At::Finished)
        .collect();
    // Every remaining path is stopped at each phase it reaches until it finishes.
    while let Some(p) = open.pop() {
        if downs[p].send(Down::Abort).is_err() {
            continue;
        }
        loop {
            match up.recv() {
                Ok((q, Up::Finished)) if q == p => break,
                Ok((q, Up::Arrived(_))) if q == p => {
                    if downs[p].send(Down::Abort).is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    Some(why)
}

/// Rounds of `t > 1` threads per repetition in [`parallel`]; their mean is the
/// repetition's time for `t`. One round's wall time is its slowest thread's, which spreads
/// more than one thread's time (on the H200 host one run's eight-thread rate was 5.81 with
/// the interval [5.39, 6.76]); the mean of three narrows that spread without moving its
/// centre, as the one-thread time is already the mean of several rounds.
pub const WIDE_ROUNDS: u32 = 3;

/// Times up to `max(counts)` threads recording at once: in each repetition, for each count
/// `t` in `counts` in turn, threads `0..t` call `record(i)` once, all starting at one
/// barrier, [`WIDE_ROUNDS`] times (once for one thread), and the mean wall time until the
/// last of them finished is that count's time. The counts of one repetition run back to
/// back, so their ratios are paired like the paths'.
/// The threads live for the whole phase, so their start-up is not timed. `keep` receives
/// each round's results in thread order (to submit, or drop); the last call is the last
/// count's.
///
/// **One thread, on every worker's CPU.** The count 1 runs each of the `max(counts)`
/// workers alone in turn, and its time is the mean of theirs: one thread's rate averaged
/// over the CPUs the widest round uses. Virtual CPUs of one host differ in speed by up to
/// half (the H200 host: 85 against 130 ns for one loop on different CPUs of one process),
/// so a single thread on one fixed CPU made the rate of `t` threads against one depend on
/// which CPU that was, more than on the code.
pub fn parallel<T: Send>(
    counts: &[usize],
    plan: Plan,
    record: impl Fn(usize) -> Result<T, String> + Sync,
    mut keep: impl FnMut(Vec<T>),
) -> Result<Vec<Stats>, String> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Barrier, Mutex};
    let most = counts.iter().copied().max().unwrap_or(0).min(64);
    let start = Barrier::new(most + 1);
    let end = Barrier::new(most + 1);
    // Which workers record in the round: bit `i` for worker `i`.
    let active = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<T, String>>>> =
        (0..most).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for (i, slot) in slots.iter().enumerate() {
            let (start, end, record, active, stop) = (&start, &end, &record, &active, &stop);
            s.spawn(move || {
                pin_current(i + 1);
                loop {
                    start.wait();
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    if active.load(Ordering::Acquire) & (1 << i) != 0 {
                        // A panic must not leave the other threads waiting at the barrier.
                        let r =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| record(i)))
                                .unwrap_or_else(|_| Err(format!("recording thread {i} panicked")));
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                    }
                    end.wait();
                }
            });
        }
        // One round of the workers in `mask`: its wall time, and their results handed to
        // `keep` in thread order.
        let mut round = |mask: u64| -> Result<Duration, String> {
            active.store(mask, Ordering::Release);
            start.wait();
            let clock = std::time::Instant::now();
            end.wait();
            let took = clock.elapsed();
            let mut out = Vec::new();
            for (i, slot) in slots.iter().enumerate() {
                if mask & (1 << i) == 0 {
                    continue;
                }
                match slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    Some(Ok(v)) => out.push(v),
                    Some(Err(e)) => return Err(e),
                    None => return Err("a thread recorded nothing".into()),
                }
            }
            keep(out);
            Ok(took)
        };
        let result = phase(plan, counts.len(), || {
            let mut times = Vec::with_capacity(counts.len());
            for &t in counts {
                if t == 1 && most > 1 {
                    let mut sum = Duration::ZERO;
                    for i in 0..most {
                        sum += round(1 << i)?;
                    }
                    times.push(sum / most as u32);
                } else {
                    let mask = if t >= 64 { u64::MAX } else { (1 << t) - 1 };
                    let n = if t > 1 { WIDE_ROUNDS } else { 1 };
                    let mut sum = Duration::ZERO;
                    for _ in 0..n {
                        sum += round(mask)?;
                    }
                    times.push(sum / n);
                }
            }
            Ok(times)
        });
        stop.store(true, Ordering::Release);
        start.wait();
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_interval_ranks_match_the_binomial_tables() {
        // Published ranks of the 95% distribution-free interval for a median.
        assert_eq!(median_rank(6), 1);
        assert_eq!(median_rank(10), 2);
        assert_eq!(median_rank(20), 6);
        assert_eq!(median_rank(31), 10);
        assert_eq!(median_rank(41), 14);
        assert_eq!(median_rank(82), 32);
        assert_eq!(median_rank(162), 69);
        assert_eq!(median_rank(3), 1);
    }

    #[test]
    fn paired_ratio_cancels_a_drift_both_paths_share() {
        // The host slows down by 3x over the run; vigil is always 1.1x ash.
        let ash: Vec<Duration> = (0..31)
            .map(|i| Duration::from_micros(100 + 7 * i))
            .collect();
        let vigil: Vec<Duration> = ash.iter().map(|d| d.mul_f64(1.1)).collect();
        let p = Paired::ratio(&vigil, &ash).unwrap();
        assert!(
            (p.median - 1.1).abs() < 1e-6 && (p.hi - 1.1).abs() < 1e-6,
            "{p:?}"
        );
        assert_eq!(p.n, 31);
    }

    #[test]
    fn settling_needs_two_windows_within_five_percent() {
        let d = |us: u64| Duration::from_micros(us);
        assert!(!settled(&[d(100), d(100), d(100), d(100), d(100)]));
        assert!(settled(&[d(200), d(100), d(100), d(103), d(101), d(99)]));
        assert!(!settled(&[d(100), d(100), d(100), d(120), d(120), d(120)]));
    }

    #[test]
    fn paired_phases_rotate_and_line_up() {
        let plan = Plan {
            warmup: 2,
            warmup_max: 2,
            runs: 5,
            lead_in: false,
        };
        let order = std::sync::Mutex::new(Vec::new());
        let job = |name: &'static str, us: u64| {
            let order = &order;
            Box::new(move || -> Result<Vec<Stats>, String> {
                let mut out = Vec::new();
                for _ in 0..2 {
                    let [s] = repeat(plan, || {
                        order.lock().map_err(|_| "poisoned")?.push(name);
                        Ok([Duration::from_micros(us)])
                    })?;
                    out.push(s);
                }
                Ok(out)
            }) as Box<dyn FnOnce() -> Result<Vec<Stats>, String> + Send + '_>
        };
        let r = paired(plan, vec![job("a", 10), job("b", 20), job("c", 30)]).unwrap();
        assert_eq!(r.len(), 3);
        assert!(
            r.iter()
                .all(|p| p.len() == 2 && p[0].runs == 5 && p[0].warmup == 2)
        );
        let order = order.into_inner().unwrap();
        // 2 phases x 7 repetitions x 3 paths, each repetition a rotation of a, b, c.
        assert_eq!(order.len(), 42);
        assert_eq!(&order[..9], ["a", "b", "c", "b", "c", "a", "c", "a", "b"]);
    }

    #[test]
    fn with_a_lead_in_each_timed_run_follows_its_own_path_s_run() {
        let plan = Plan {
            warmup: 1,
            warmup_max: 1,
            runs: 2,
            lead_in: true,
        };
        // Each run returns its number within its path: the timed samples must be the
        // even-numbered ones' successors (the second run of each turn).
        let order = std::sync::Mutex::new(Vec::new());
        let job = |name: &'static str| {
            let order = &order;
            Box::new(move || -> Result<Stats, String> {
                let mut count = 0u64;
                let [s] = repeat(plan, || {
                    order.lock().map_err(|_| "poisoned")?.push(name);
                    count += 1;
                    Ok([Duration::from_micros(count)])
                })?;
                Ok(s)
            }) as Box<dyn FnOnce() -> Result<Stats, String> + Send + '_>
        };
        let r = paired(plan, vec![job("a"), job("b")]).unwrap();
        let order = order.into_inner().unwrap();
        // 3 repetitions (1 warm-up) x 2 paths x 2 runs, each turn a path's two runs.
        assert_eq!(
            order,
            ["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"]
        );
        // Runs 1-2 warmed up; the timed ones are each turn's second: 4 and 6.
        for p in &r {
            assert_eq!(
                p.samples,
                [Duration::from_micros(4), Duration::from_micros(6)]
            );
        }
    }

    #[test]
    fn a_failing_path_stops_the_others() {
        let plan = Plan {
            warmup: 1,
            warmup_max: 1,
            runs: 3,
            lead_in: false,
        };
        let ok = Box::new(move || repeat(plan, || Ok([Duration::from_micros(1)])).map(|_| ()))
            as Box<dyn FnOnce() -> Result<(), String> + Send>;
        let bad = Box::new(move || {
            repeat(plan, || Err::<[Duration; 1], _>("boom".to_string())).map(|_| ())
        }) as Box<dyn FnOnce() -> Result<(), String> + Send>;
        assert_eq!(paired(plan, vec![ok, bad]).unwrap_err(), "boom");
    }
}
