//! The one error type: a kind a program can match on, and a message a person can act on.

use crate::rules::Rule;
use std::fmt;

/// What rule a refused call broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A descriptor is malformed or inconsistent (sizes, counts, shader code).
    InvalidDescriptor,
    /// A handle is null, stale (its object was destroyed) or of the wrong kind.
    InvalidHandle,
    /// A handle belongs to another device.
    DeviceMismatch,
    /// An object is used in a way its usage flags do not allow.
    UsageMismatch,
    /// An offset, size or index lies outside the object or is misaligned.
    OutOfBounds,
    /// A device limit or a budget would be exceeded.
    LimitExceeded,
    /// The call is not valid in the current state (nested pass, poisoned encoder, mapped
    /// buffer, …).
    InvalidState,
    /// The device or adapter does not support what was asked.
    Unsupported,
    /// The device is lost; nothing more runs on it.
    DeviceLost,
    /// Host or device memory ran out.
    OutOfMemory,
}

impl ErrorKind {
    /// The kind's name.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidDescriptor => "InvalidDescriptor",
            ErrorKind::InvalidHandle => "InvalidHandle",
            ErrorKind::DeviceMismatch => "DeviceMismatch",
            ErrorKind::UsageMismatch => "UsageMismatch",
            ErrorKind::OutOfBounds => "OutOfBounds",
            ErrorKind::LimitExceeded => "LimitExceeded",
            ErrorKind::InvalidState => "InvalidState",
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::DeviceLost => "DeviceLost",
            ErrorKind::OutOfMemory => "OutOfMemory",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug)]
struct Inner {
    rule: Rule,
    operation: &'static str,
    label: String,
    message: String,
    diagnostic: Option<vigil_shader::Diagnostic>,
}

/// A refused call: which operation, on which object (by label), and the rule it broke
/// ([`Error::rule`], one of [`Rule`]; its [`ErrorKind`] follows from the rule).
///
/// Boxed inside so `Result<(), Error>` stays one pointer wide on hot paths.
#[derive(Clone)]
pub struct Error(Box<Inner>);

/// Result of every fallible vigil call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error for breaking `rule`. `label` is the label of the object the call was
    /// about (may be empty).
    #[cold]
    pub fn new(
        rule: Rule,
        operation: &'static str,
        label: &str,
        message: impl Into<String>,
    ) -> Error {
        Error(Box::new(Inner {
            rule,
            operation,
            label: label.to_owned(),
            message: message.into(),
            diagnostic: None,
        }))
    }

    /// Attaches a shader diagnostic.
    pub(crate) fn with_diagnostic(mut self, d: vigil_shader::Diagnostic) -> Error {
        self.0.diagnostic = Some(d);
        self
    }

    /// The kind of rule broken.
    pub fn kind(&self) -> ErrorKind {
        self.0.rule.kind()
    }

    /// The rule broken.
    pub fn rule(&self) -> Rule {
        self.0.rule
    }

    /// The operation that refused, e.g. `"create_bind_group"`.
    pub fn operation(&self) -> &'static str {
        self.0.operation
    }

    /// Label of the object concerned ("" when it had none).
    pub fn label(&self) -> &str {
        &self.0.label
    }

    /// The rule broken, in words.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The shader diagnostic (file, line, column), for shader errors.
    pub fn shader_diagnostic(&self) -> Option<&vigil_shader::Diagnostic> {
        self.0.diagnostic.as_ref()
    }

    /// Maps a backend failure.
    #[cold]
    pub(crate) fn from_hal(
        e: vigil_hal::DeviceError,
        operation: &'static str,
        label: &str,
    ) -> Error {
        let (rule, message) = match e {
            vigil_hal::DeviceError::OutOfMemory => (
                Rule::DriverOutOfMemory,
                "the driver ran out of memory".to_owned(),
            ),
            vigil_hal::DeviceError::Lost => (Rule::DeviceLost, "the device is lost".to_owned()),
            vigil_hal::DeviceError::Unsupported(what) => (Rule::DriverUnsupported, what),
            vigil_hal::DeviceError::Other(what) => {
                (Rule::DriverRefused, format!("the driver refused: {what}"))
            }
        };
        Error::new(rule, operation, label, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        write!(
            f,
            "{} refused ({}, {})",
            i.operation,
            i.rule.kind(),
            i.rule.code()
        )?;
        if !i.label.is_empty() {
            write!(f, " for '{}'", i.label)?;
        }
        write!(f, ": {}", i.message)?;
        if let Some(d) = &i.diagnostic {
            write!(f, "\n{d}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

/// Builds an error for breaking rule `$rule` in `op`, about the object labelled `label`.
macro_rules! fail {
    ($rule:ident, $op:expr, $label:expr, $($fmt:tt)+) => {
        $crate::Error::new($crate::Rule::$rule, $op, $label, format!($($fmt)+))
    };
}
pub(crate) use fail;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_operation_label_kind_and_rule() {
        let e = Error::new(
            Rule::GroupBufferUsage,
            "create_bind_group",
            "lights",
            "binding 1 needs STORAGE",
        );
        assert_eq!(e.kind(), ErrorKind::UsageMismatch);
        assert_eq!(
            e.to_string(),
            "create_bind_group refused (UsageMismatch, group.buffer-usage) for 'lights': binding 1 needs STORAGE"
        );
        assert_eq!(
            std::mem::size_of::<Result<()>>(),
            std::mem::size_of::<usize>()
        );
    }
}
