//! vigil-graph: a render graph over vigil's device.
//!
//! Resources are imported with the state they are in before the graph runs (or created by
//! the graph, transient); bind groups are imported whole, and through them every resource
//! they bind, so a pass that binds a group never declares by hand what the group reads and
//! writes. Passes run in the order they are added; compiling culls the passes nobody's
//! output reaches and plans the barriers before each pass per resource. A compiled graph
//! records into a vigil command encoder any number of times, re-checking every imported
//! group first.
//!
//! What it owns: identity of imported resources (one graph resource per handle, however it
//! was reached; a second import with another initial state is an error, never a merge),
//! the access scopes a group's layout implies, dynamic offsets, culling, the barrier plan,
//! and the DOT export. What it does not: native barriers (vigil's encoder records them
//! from the same uses) and any call into the driver (it uses vigil only).

#![forbid(unsafe_code)]

mod compile;
mod dot;
mod error;
mod graph;
mod state;

pub use compile::{Barrier, CompiledGraph, Plan, PlannedPass};
pub use error::{GraphError, Result};
pub use graph::{
    Graph, GraphGroupEntry, GraphResource, GroupId, PassContext, PassGroups, PassId, PassKind,
    Range, Recorder, ResourceId, ResourceKey, Scope, Transient, TransientBuffer, TransientTexture,
};
pub use state::{Access, Layout, ResourceState, Stages, Usage, reads_of, shader_stages, writes_of};
