//! Every check vigil makes, in one place per kind of object or command.
//!
//! Each function here is pure: it takes a descriptor (or a command's arguments), the facts
//! of the objects it names and the device's limits and features, and answers `Ok` or the
//! [`crate::Rule`] broken, as an [`crate::Error`]. Each check is one `ensure!` line naming
//! its rule; `docs/rules.md` lists the rules. The device and the encoders look objects up,
//! call these, and only then touch the backend.
//!
//! Arithmetic on values a caller chooses is checked or saturating throughout (the crate
//! denies wrapping arithmetic), so no check can be passed by overflowing it.

pub(crate) mod accel;
pub(crate) mod binding;
pub(crate) mod buffer;
pub(crate) mod copy;
pub(crate) mod encoder;
pub(crate) mod pipeline;
pub(crate) mod pipeline_cache;
pub(crate) mod render_pass;
pub(crate) mod texture;
pub(crate) mod transition;

/// Returns the error for breaking `$rule` unless `$cond` holds. The error is built out of
/// line ([`refuse`]), so a check costs a compare and a branch on the path that passes.
macro_rules! ensure {
    ($cond:expr, $rule:ident, $op:expr, $label:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::validate::refuse(|| $crate::error::fail!($rule, $op, $label, $($fmt)+)));
        }
    };
}
pub(crate) use ensure;

/// Builds a refusal, away from the checks' fast path.
#[cold]
#[inline(never)]
pub(crate) fn refuse(make: impl FnOnce() -> crate::Error) -> crate::Error {
    make()
}

/// Whether `offset..offset + size` lies in `0..len` (without overflow).
#[inline]
pub(crate) fn inside(offset: u64, size: u64, len: u64) -> bool {
    offset.checked_add(size).is_some_and(|end| end <= len)
}
