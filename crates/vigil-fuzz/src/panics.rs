//! Panics inside vigil are findings, not the end of the run: a hook keeps the message of
//! the last panic (instead of printing it) so the call that caused it can be reported.

use std::sync::Mutex;

static LAST: Mutex<Option<String>> = Mutex::new(None);

/// Installs the hook (once per process; later calls replace it with the same).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let text = match info.location() {
            Some(l) => format!("panicked at {}:{}: {}", l.file(), l.line(), payload(info)),
            None => format!("panicked: {}", payload(info)),
        };
        *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(text);
    }));
}

fn payload(info: &std::panic::PanicHookInfo<'_>) -> String {
    if let Some(s) = info.payload().downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = info.payload().downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string payload)".to_owned()
    }
}

/// Forgets the last panic.
pub fn clear() {
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

/// The last panic's message, taken.
pub fn take() -> Option<String> {
    LAST.lock().unwrap_or_else(|p| p.into_inner()).take()
}
