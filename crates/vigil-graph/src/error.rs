//! The graph's one error type.

use crate::state::{Layout, ResourceState};

/// Why a graph call or an execution was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum GraphError {
    /// The device refused something the graph asked of it (a stale or untracked bind
    /// group, a destroyed resource): its error, with the rule it broke.
    Device(vigil::Error),
    /// A resource imported again with another initial state. States are never merged.
    ConflictingInitialState {
        /// The resource's name in the graph.
        resource: String,
        /// The state it was imported with first.
        first: ResourceState,
        /// The state given now.
        second: ResourceState,
    },
    /// Two uses of overlapping parts of one texture in one pass need different layouts.
    LayoutConflict {
        /// The pass.
        pass: String,
        /// The texture's name in the graph.
        resource: String,
        /// One layout.
        first: Layout,
        /// The other.
        second: Layout,
    },
    /// A group imported with the wrong number of dynamic offsets.
    DynamicOffsetCount {
        /// Dynamic bindings the group has.
        expected: usize,
        /// Offsets given.
        given: usize,
    },
    /// A dynamic offset that is not a multiple of its binding kind's alignment.
    DynamicOffsetAlignment {
        /// The binding.
        binding: u32,
        /// The offset.
        offset: u32,
        /// The alignment.
        alignment: u32,
    },
    /// A dynamic offset that moves its binding past the end of its buffer (or overflows).
    DynamicOffsetRange {
        /// The binding.
        binding: u32,
        /// The offset.
        offset: u32,
        /// The binding's base offset.
        base: u64,
        /// The binding's size.
        size: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// An entry of a group the graph is asked to make that does not fit its layout.
    GroupEntry {
        /// The group's label.
        group: String,
        /// The binding.
        binding: u32,
        /// What is wrong.
        reason: String,
    },
    /// An id that this graph did not hand out.
    UnknownId(&'static str, u32),
    /// A pass's recording closure returned an error.
    Recording {
        /// The pass.
        pass: String,
        /// What it returned.
        error: vigil::Error,
    },
}

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphError::Device(e) => write!(f, "the device refused: {e}"),
            GraphError::ConflictingInitialState {
                resource,
                first,
                second,
            } => write!(
                f,
                "'{resource}' is imported again with initial state {second:?}, but it was imported with {first:?}; states are never merged"
            ),
            GraphError::LayoutConflict {
                pass,
                resource,
                first,
                second,
            } => write!(
                f,
                "pass '{pass}' uses overlapping parts of '{resource}' in layouts {first:?} and {second:?}"
            ),
            GraphError::DynamicOffsetCount { expected, given } => write!(
                f,
                "the group has {expected} dynamic bindings, but {given} dynamic offsets were given"
            ),
            GraphError::DynamicOffsetAlignment {
                binding,
                offset,
                alignment,
            } => write!(
                f,
                "binding {binding}: dynamic offset {offset} is not a multiple of {alignment}"
            ),
            GraphError::DynamicOffsetRange {
                binding,
                offset,
                base,
                size,
                buffer_size,
            } => write!(
                f,
                "binding {binding}: {size} bytes at {base} + dynamic offset {offset} pass the end of the buffer ({buffer_size} bytes)"
            ),
            GraphError::GroupEntry {
                group,
                binding,
                reason,
            } => write!(f, "group '{group}', binding {binding}: {reason}"),
            GraphError::UnknownId(kind, id) => write!(f, "{kind} {id} is not one of this graph's"),
            GraphError::Recording { pass, error } => {
                write!(f, "pass '{pass}' failed while recording: {error}")
            }
        }
    }
}

impl std::error::Error for GraphError {}

impl From<vigil::Error> for GraphError {
    fn from(e: vigil::Error) -> Self {
        GraphError::Device(e)
    }
}

/// The graph's result type.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;
