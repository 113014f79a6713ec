//! Repetition and statistics: warm-up runs are discarded, then the median and spread of
//! the timed runs are reported.

use std::time::Duration;

/// Statistics of one timed quantity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Median.
    pub median: Duration,
    /// Fastest run.
    pub min: Duration,
    /// Slowest run.
    pub max: Duration,
    /// Runs timed.
    pub runs: usize,
}

impl Stats {
    /// From raw samples (at least one).
    pub fn of(samples: &mut [Duration]) -> Stats {
        samples.sort_unstable();
        let n = samples.len().max(1);
        Stats {
            median: samples.get(samples.len() / 2).copied().unwrap_or_default(),
            min: samples.first().copied().unwrap_or_default(),
            max: samples.last().copied().unwrap_or_default(),
            runs: n,
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

/// How many times to run.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Discarded warm-up runs.
    pub warmup: usize,
    /// Timed runs.
    pub runs: usize,
}

/// Runs `f` `plan.warmup + plan.runs` times; `f` returns one duration per named quantity.
/// With `VIGIL_BENCH_SAMPLES` set, the raw samples go to stderr (to see a distribution
/// rather than its median).
pub fn repeat<const N: usize>(
    plan: Plan,
    mut f: impl FnMut() -> Result<[Duration; N], String>,
) -> Result<[Stats; N], String> {
    for _ in 0..plan.warmup {
        f()?;
    }
    let mut samples: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(plan.runs));
    for _ in 0..plan.runs {
        // A CPU driver's worker threads may still be tidying up after the last run (on
        // a two-core machine they would share the CPU with the next run): let them.
        std::thread::sleep(std::time::Duration::from_millis(5));
        let r = f()?;
        for (s, d) in samples.iter_mut().zip(r) {
            s.push(d);
        }
    }
    if std::env::var_os("VIGIL_BENCH_SAMPLES").is_some() {
        eprintln!("{samples:?}");
    }
    Ok(samples.map(|mut s| Stats::of(&mut s)))
}

/// Times `threads` threads that each call `record(i)` once per round, all starting at one
/// barrier: the wall time from the start until the last thread finished, per round (after
/// `plan.warmup` discarded rounds). The threads live for all rounds, so their start-up is
/// not timed. `keep` receives each round's results in thread order (to submit, or drop).
pub fn parallel<T: Send>(
    threads: usize,
    plan: Plan,
    record: impl Fn(usize) -> Result<T, String> + Sync,
    mut keep: impl FnMut(Vec<T>),
) -> Result<Stats, String> {
    use std::sync::{Barrier, Mutex};
    let rounds = plan.warmup + plan.runs;
    let start = Barrier::new(threads + 1);
    let end = Barrier::new(threads + 1);
    let slots: Vec<Mutex<Option<Result<T, String>>>> =
        (0..threads).map(|_| Mutex::new(None)).collect();
    let mut samples = Vec::with_capacity(plan.runs);
    let mut failure = None;
    std::thread::scope(|s| {
        for (i, slot) in slots.iter().enumerate() {
            let (start, end, record) = (&start, &end, &record);
            s.spawn(move || {
                for _ in 0..rounds {
                    start.wait();
                    // A panic must not leave the other threads waiting at the barrier.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| record(i)))
                        .unwrap_or_else(|_| Err(format!("recording thread {i} panicked")));
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                    end.wait();
                }
            });
        }
        for round in 0..rounds {
            std::thread::sleep(Duration::from_millis(2));
            start.wait();
            let t = std::time::Instant::now();
            end.wait();
            let wall = t.elapsed();
            let mut out = Vec::with_capacity(threads);
            for slot in &slots {
                match slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    Some(Ok(v)) => out.push(v),
                    Some(Err(e)) => failure = Some(e),
                    None => failure = Some("a thread recorded nothing".into()),
                }
            }
            keep(out);
            if round >= plan.warmup {
                samples.push(wall);
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(Stats::of(&mut samples)),
    }
}
