//! Where a backend puts what the driver's validation layer said, so tests can fail on any
//! message and tools can print a summary.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Severity of a validation message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Diagnostic chatter.
    Verbose,
    /// Informational.
    Info,
    /// Likely a mistake.
    Warning,
    /// A rule of the API was broken.
    Error,
}

/// One message from the validation layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationMessage {
    /// Severity.
    pub severity: Severity,
    /// The message id name (a VUID or a layer-specific name).
    pub id: String,
    /// The full text.
    pub text: String,
    /// The debug groups open in the command buffer the message is about, outermost first,
    /// as the layer lists them (vigil's pass labels and the application's
    /// `push_debug_group`s; empty when the message is about no command buffer or none is
    /// open): where in a frame it was. Some layer versions list each label twice.
    pub labels: Vec<String>,
}

impl std::fmt::Display for ValidationMessage {
    /// `[severity] id: text`, then the debug groups open around the command it is about,
    /// outermost first, when there are any.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{:?}] {}: {}", self.severity, self.id, self.text)?;
        if !self.labels.is_empty() {
            write!(f, " (in debug groups: {})", self.labels.join(" > "))?;
        }
        Ok(())
    }
}

/// Messages of one instance, kept up to a cap (the count keeps going past it).
#[derive(Debug, Default)]
pub struct ValidationLog {
    count: AtomicU64,
    filtered: AtomicU64,
    messages: Mutex<Vec<ValidationMessage>>,
}

/// How many messages are kept in full; later ones are only counted.
const KEEP: usize = 256;

impl ValidationLog {
    /// Records a message.
    pub fn push(&self, message: ValidationMessage) {
        self.count.fetch_add(1, Ordering::AcqRel);
        let mut messages = self.messages.lock().unwrap_or_else(|p| p.into_inner());
        if messages.len() < KEEP {
            messages.push(message);
        }
    }

    /// Counts a message deliberately ignored (see the backend's filter for which and why).
    pub fn note_filtered(&self) {
        self.filtered.fetch_add(1, Ordering::AcqRel);
    }

    /// Messages recorded so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Acquire)
    }

    /// Messages deliberately ignored so far.
    pub fn filtered_count(&self) -> u64 {
        self.filtered.load(Ordering::Acquire)
    }

    /// A copy of the kept messages.
    pub fn messages(&self) -> Vec<ValidationMessage> {
        self.messages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
