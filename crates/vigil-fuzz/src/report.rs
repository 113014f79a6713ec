//! What a run found, in a form a person reads and a parent process parses.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use vigil::ErrorKind;

/// How one call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// Accepted.
    Ok,
    /// Refused with an error of this kind.
    Refused(ErrorKind),
    /// Panicked inside vigil.
    Panicked,
}

/// Outcomes of one operation.
#[derive(Clone, Debug, Default)]
pub struct OpStats {
    /// Accepted calls.
    pub ok: u64,
    /// Refused calls per error kind.
    pub refused: BTreeMap<&'static str, u64>,
    /// Calls that panicked.
    pub panicked: u64,
}

impl OpStats {
    /// Counts one outcome.
    pub fn count(&mut self, outcome: CallOutcome) {
        match outcome {
            CallOutcome::Ok => self.ok += 1,
            CallOutcome::Refused(kind) => *self.refused.entry(kind.name()).or_default() += 1,
            CallOutcome::Panicked => self.panicked += 1,
        }
    }

    /// Every call of the operation.
    pub fn total(&self) -> u64 {
        self.ok + self.panicked + self.refused.values().sum::<u64>()
    }
}

/// What kind of defect a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FindingKind {
    /// vigil panicked.
    Panic,
    /// The validation layer spoke.
    ValidationMessage,
    /// A call accepted a stale, null, foreign or forged handle, or debug groups that do
    /// not balance.
    AcceptedInvalidHandle,
    /// A refusal without an operation or message.
    UnclearError,
    /// The device was lost although nothing was injected.
    DeviceLost,
    /// Native objects or vigil objects were left after destroying everything.
    Leak,
    /// The device could not run and verify a small compute job afterwards.
    HealthCheck,
    /// Bytes read back were not the bytes written.
    WrongData,
}

impl FindingKind {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Panic => "panic",
            FindingKind::ValidationMessage => "validation-message",
            FindingKind::AcceptedInvalidHandle => "accepted-invalid-handle",
            FindingKind::UnclearError => "unclear-error",
            FindingKind::DeviceLost => "device-lost",
            FindingKind::Leak => "leak",
            FindingKind::HealthCheck => "health-check",
            FindingKind::WrongData => "wrong-data",
        }
    }
}

/// One defect, with the calls that led to it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// Index of the call it was seen at.
    pub call: u64,
    /// What identifies the defect across runs: a panic's location, the validation
    /// message ids, or the kind.
    pub signature: String,
    /// What happened.
    pub detail: String,
    /// The calls before it, newest last.
    pub recent: Vec<String>,
    /// Further findings of this kind not kept in full.
    pub more: u64,
}

/// A whole run of one seed.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The seed.
    pub seed: u64,
    /// Calls made (not counting the health check).
    pub calls: u64,
    /// Adapter name.
    pub adapter: String,
    /// Seconds the run took.
    pub seconds: f64,
    /// Outcomes per operation.
    pub stats: BTreeMap<&'static str, OpStats>,
    /// Defects.
    pub findings: Vec<Finding>,
    /// Validation messages in all.
    pub validation_messages: u64,
    /// Native objects alive when the device was new.
    pub native_baseline: u64,
    /// Native objects alive after destroying everything and draining (before close).
    pub native_after: u64,
    /// Native objects the device keeps for reuse at that point (command pools, staging).
    pub native_pooled: u64,
    /// Native objects alive after closing the device (must be 0).
    pub native_after_close: u64,
    /// Whether the health check's compute job produced the right result.
    pub health_ok: bool,
}

impl Report {
    /// Findings of one kind, counting those not kept in full.
    pub fn count(&self, kind: FindingKind) -> u64 {
        self.findings
            .iter()
            .filter(|f| f.kind == kind)
            .map(|f| 1 + f.more)
            .sum()
    }

    /// No defect of any kind.
    pub fn clean(&self) -> bool {
        self.findings.is_empty() && self.health_ok
    }

    /// One line per finding, for a parent process to tally across seeds.
    pub fn finding_lines(&self) -> String {
        let mut s = String::new();
        for f in &self.findings {
            let _ = writeln!(
                s,
                "FUZZ-FINDING seed={} call={} count={} kind={} sig={}",
                self.seed,
                f.call,
                1 + f.more,
                f.kind.name(),
                f.signature
            );
        }
        s
    }

    /// The one line a parent process parses.
    pub fn summary_line(&self) -> String {
        format!(
            "FUZZ-RESULT seed={} calls={} panics={} validation={} accepted-invalid={} unclear={} lost={} leaks={} wrong-data={} health={} seconds={:.1}",
            self.seed,
            self.calls,
            self.count(FindingKind::Panic),
            self.count(FindingKind::ValidationMessage),
            self.count(FindingKind::AcceptedInvalidHandle),
            self.count(FindingKind::UnclearError),
            self.count(FindingKind::DeviceLost),
            self.count(FindingKind::Leak),
            self.count(FindingKind::WrongData),
            if self.health_ok { "ok" } else { "FAILED" },
            self.seconds
        )
    }

    /// A readable report: the outcome table and every finding with the calls before it.
    pub fn render(&self, verbose: bool) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "seed {}: {} calls on {} in {:.1} s; native objects: {} at start, {} after destroying everything ({} pooled), {} after close",
            self.seed,
            self.calls,
            self.adapter,
            self.seconds,
            self.native_baseline,
            self.native_after,
            self.native_pooled,
            self.native_after_close
        );
        if verbose {
            let _ = writeln!(
                s,
                "{:<32} {:>7} {:>7}  refused by kind",
                "operation", "calls", "ok"
            );
            for (op, st) in &self.stats {
                let refused: Vec<String> =
                    st.refused.iter().map(|(k, n)| format!("{k} {n}")).collect();
                let _ = writeln!(
                    s,
                    "{op:<32} {:>7} {:>7}  {}{}",
                    st.total(),
                    st.ok,
                    refused.join(", "),
                    if st.panicked > 0 {
                        format!(", PANICKED {}", st.panicked)
                    } else {
                        String::new()
                    }
                );
            }
        }
        for f in &self.findings {
            let _ = writeln!(s, "\n{} at call {}: {}", f.kind.name(), f.call, f.detail);
            if f.more > 0 {
                let _ = writeln!(s, "  (and {} more of this kind)", f.more);
            }
            if verbose {
                let _ = writeln!(s, "  calls before it:");
                for c in &f.recent {
                    let _ = writeln!(s, "    {c}");
                }
            }
        }
        s.push_str(&self.finding_lines());
        let _ = writeln!(s, "{}", self.summary_line());
        s
    }
}
