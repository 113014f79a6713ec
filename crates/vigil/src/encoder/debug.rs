//! Debug groups and markers: names around and between commands, for the tools that show
//! a command stream (RenderDoc, Nsight, the validation layer's messages), as WebGPU's
//! `pushDebugGroup`, `popDebugGroup` and `insertDebugMarker`.
//!
//! The rules are WebGPU's: a group is closed where it was opened. One opened outside
//! passes is closed before the encoder finishes, one opened inside a pass before the pass
//! ends (a pass cannot close a group opened before it), one opened in a render bundle
//! before the bundle finishes. On Vulkan the groups are `VK_EXT_debug_utils` labels when
//! the instance has the extension (with the validation layer on it does); without it the
//! calls record nothing and the rules still hold, so code behaves the same either way.

use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use vigil_hal::Api;

impl<A: Api> CommandEncoder<A> {
    /// Opens a debug group named `label` (which may be empty) around the commands that
    /// follow, until the matching [`CommandEncoder::pop_debug_group`]. Inside a pass it
    /// belongs to the pass and is closed before the pass ends; outside passes it is closed
    /// before [`CommandEncoder::finish`] (`encoder.debug-group-open`). Groups nest.
    pub fn push_debug_group(&mut self, label: &str) -> Result<()> {
        const OP: &str = "push_debug_group";
        self.step(OP, |e| {
            if let Some(mut r) = e.label_rec(OP)? {
                r.push_debug_group(label);
            }
            e.debug_groups = e.debug_groups.saturating_add(1);
            Ok(())
        })
    }

    /// Closes the debug group opened last: one opened by this encoder, inside the open
    /// pass when one is open (`encoder.debug-group-empty`).
    pub fn pop_debug_group(&mut self) -> Result<()> {
        const OP: &str = "pop_debug_group";
        self.step(OP, |e| {
            if e.debug_groups <= e.open_before_pass() {
                let what = match (e.pass, e.pool.is_some()) {
                    (Pass::None, _) => "no debug group is open",
                    (_, true) => {
                        "no debug group opened in this pass is open (one opened before the pass is closed after the pass ends)"
                    }
                    // A render bundle's encoder records into no pool of its own.
                    (_, false) => "no debug group opened in this render bundle is open",
                };
                return Err(fail!(DebugGroupEmpty, OP, &e.label, "{what}"));
            }
            if let Some(mut r) = e.label_rec(OP)? {
                r.pop_debug_group();
            }
            e.debug_groups = e.debug_groups.saturating_sub(1);
            Ok(())
        })
    }

    /// Marks the point between the commands before and after with `label`.
    pub fn insert_debug_marker(&mut self, label: &str) -> Result<()> {
        const OP: &str = "insert_debug_marker";
        self.step(OP, |e| {
            if let Some(mut r) = e.label_rec(OP)? {
                r.insert_debug_marker(label);
            }
            Ok(())
        })
    }

    /// Where a debug command goes: the native command buffer being recorded, begun first
    /// outside passes (inside one it is open; a render bundle's encoder records into
    /// none).
    fn label_rec(&mut self, op: &'static str) -> Result<Option<crate::native::Rec<'_, A>>> {
        if self.pass == Pass::None {
            self.ensure_open(op)?;
        }
        Ok(self.rec())
    }

    /// How many of the open debug groups were opened before the open pass (all of them
    /// outside passes): those the pass cannot close.
    fn open_before_pass(&self) -> u64 {
        match self.pass {
            Pass::None => 0,
            _ => self.pass_debug_groups,
        }
    }

    /// Refuses to end the open pass, or (`what` "the render bundle" or "the encoder") to
    /// finish, while debug groups opened in it are open.
    pub(crate) fn debug_groups_closed(&self, op: &'static str, what: &str) -> Result<()> {
        let open = self.debug_groups.saturating_sub(self.open_before_pass());
        if open == 0 {
            return Ok(());
        }
        Err(fail!(
            DebugGroupOpen,
            op,
            &self.label,
            "{open} debug group(s) opened in {what} are still open; pop them first (a group is closed where it was opened)"
        ))
    }

    /// Notes the debug groups open as a pass begins (the pass cannot close them).
    pub(crate) fn pass_begins_debug(&mut self) {
        self.pass_debug_groups = self.debug_groups;
    }
}
