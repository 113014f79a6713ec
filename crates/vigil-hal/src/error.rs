//! The one error a backend reports. Backends never validate user input, so these are the
//! failures only the driver can know about: memory, loss, and features the driver refused.

use std::fmt;

/// A failure reported by a backend call.
///
/// The layer above maps each variant to its own error kind and adds the operation and the
/// object's label; a backend only says what the driver said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The driver or the allocator ran out of host or device memory.
    OutOfMemory,
    /// The native device is lost; nothing more can run on it.
    Lost,
    /// The driver does not support what was asked (a feature, a format, a shader construct).
    Unsupported(String),
    /// Any other driver failure, with the driver's own words.
    Other(String),
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::OutOfMemory => f.write_str("out of memory"),
            DeviceError::Lost => f.write_str("device lost"),
            DeviceError::Unsupported(what) => write!(f, "unsupported: {what}"),
            DeviceError::Other(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for DeviceError {}

/// A backend result.
pub type Result<T, E = DeviceError> = std::result::Result<T, E>;
