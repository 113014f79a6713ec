//! Occlusion queries: whether any sample of a run of draws passed the depth and stencil
//! tests, as WebGPU's `occlusionQuerySet`, `beginOcclusionQuery` and `endOcclusionQuery`.
//!
//! A render pass names an occlusion query set; inside it, one query at a time is active,
//! and each query of the set is begun at most once per pass. Vulkan wants a query reset
//! before each use and resets only outside render passes, so: the first pass of an
//! encoder that names a set resets the whole set in front of it; a query an earlier pass of
//! the same encoder wrote is reset again in front of the pass that begins it anew, in the
//! native command buffer that pass puts in front of itself when it ends (with its
//! barriers). A query is written when it ends; `resolve_query_set` resolves only queries
//! the encoder wrote, so nothing waits for a query that never ends.

use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Handle, QuerySet};
use vigil_hal::{Api, QueryType};

/// A render pass's occlusion queries.
#[derive(Clone, Debug, Default)]
pub(crate) struct Occlusion {
    /// The pass's set and how many queries it holds (`None`: the pass names none).
    set: Option<(QuerySet, u32)>,
    /// The query active now.
    active: Option<u32>,
    /// Queries begun in this pass, a bit each.
    begun: Vec<u64>,
}

impl Occlusion {
    /// A pass's queries: `set`, none begun yet.
    pub(crate) fn new(set: Option<(QuerySet, u32)>) -> Occlusion {
        Occlusion {
            set,
            ..Occlusion::default()
        }
    }

    fn begun(&self, index: u32) -> bool {
        self.begun
            .get(index as usize / 64)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    fn note_begun(&mut self, index: u32) {
        let word = index as usize / 64;
        if self.begun.len() <= word {
            self.begun.resize(word.saturating_add(1), 0);
        }
        if let Some(w) = self.begun.get_mut(word) {
            *w |= 1 << (index % 64);
        }
    }
}

impl<A: Api> CommandEncoder<A> {
    /// Begins occlusion query `index` of the open render pass's set
    /// ([`RenderPassDescriptor::occlusion_query_set`](crate::RenderPassDescriptor)): the
    /// pass's draws until [`CommandEncoder::end_occlusion_query`] count into it. Refused
    /// without a set (`occlusion.no-set`), outside it (`query.range`), while another is
    /// active (`occlusion.active`), and for a query this pass began already
    /// (`occlusion.reused`).
    pub fn begin_occlusion_query(&mut self, index: u32) -> Result<()> {
        const OP: &str = "begin_occlusion_query";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let Some((set, count)) = e.render.occlusion.set else {
                return Err(fail!(
                    OcclusionNoSet,
                    OP,
                    &e.label,
                    "the render pass names no occlusion query set (RenderPassDescriptor::occlusion_query_set)"
                ));
            };
            crate::validate::encoder::occlusion_query(OP, &e.label, index, count)?;
            if let Some(active) = e.render.occlusion.active {
                return Err(fail!(
                    OcclusionActive,
                    OP,
                    &e.label,
                    "occlusion query {active} is active; end it before beginning another"
                ));
            }
            if e.render.occlusion.begun(index) {
                return Err(fail!(
                    OcclusionReused,
                    OP,
                    &e.label,
                    "occlusion query {index} was begun already in this pass; a pass begins each query once"
                ));
            }
            if e.query_written(set.index(), index) {
                e.render.query_resets.push((set, index));
            }
            if let (true, Some(q), Some(pool)) = (
                e.open,
                e.used.query_sets.get(set.index(), set.generation()),
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool).begin_occlusion_query(&q.raw, index);
            }
            e.render.occlusion.note_begun(index);
            e.render.occlusion.active = Some(index);
            Ok(())
        })
    }

    /// Ends the active occlusion query (`occlusion.not-active` when none is).
    pub fn end_occlusion_query(&mut self) -> Result<()> {
        const OP: &str = "end_occlusion_query";
        self.step(OP, |e| {
            e.expect_pass(Pass::Render, OP)?;
            let (Some((set, _)), Some(index)) = (e.render.occlusion.set, e.render.occlusion.active)
            else {
                return Err(fail!(
                    OcclusionNotActive,
                    OP,
                    &e.label,
                    "no occlusion query is active in this pass"
                ));
            };
            if let (true, Some(q), Some(pool)) = (
                e.open,
                e.used.query_sets.get(set.index(), set.generation()),
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool).end_occlusion_query(&q.raw, index);
            }
            e.render.occlusion.active = None;
            e.note_query_written(set.index(), index);
            Ok(())
        })
    }

    /// The occlusion query set a render pass names, checked (an occlusion set, in a pass
    /// without a view mask), with its query count. Records nothing.
    pub(crate) fn pass_occlusion_set(
        &mut self,
        set: Option<QuerySet>,
        view_mask: u32,
        op: &'static str,
    ) -> Result<Option<(QuerySet, u32)>> {
        let Some(set) = set else {
            return Ok(None);
        };
        let q = find(&mut self.used.query_sets, &self.core, set, op)?;
        if q.ty != QueryType::Occlusion {
            return Err(fail!(
                QueryType,
                op,
                &self.label,
                "query set '{}' holds {:?} queries; a render pass counts occlusion into an occlusion set",
                q.label,
                q.ty
            ));
        }
        if view_mask != 0 {
            return Err(fail!(
                OcclusionMultiview,
                op,
                &self.label,
                "a multiview render pass counts no occlusion queries (each would take one query per view)"
            ));
        }
        Ok(Some((set, q.count)))
    }

    /// Refuses to end a pass while one of its occlusion queries is active.
    pub(crate) fn occlusion_closed(&self, op: &'static str) -> Result<()> {
        match self.render.occlusion.active {
            None => Ok(()),
            Some(index) => Err(fail!(
                OcclusionActive,
                op,
                &self.label,
                "occlusion query {index} is still active; end it before the pass ends"
            )),
        }
    }
}
