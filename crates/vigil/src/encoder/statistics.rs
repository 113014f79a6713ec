//! Pipeline-statistics queries: counts of the vertex, clipping, fragment and compute work
//! between `begin_pipeline_statistics_query` and `end_pipeline_statistics_query` in a
//! render or compute pass, as wgpu's (`PIPELINE_STATISTICS_QUERY`).
//!
//! One such query is active at a time, it ends in the pass it began in, and a pass begins
//! each query at most once. Vulkan wants a query reset before each use, and resets only
//! outside render passes: a compute pass resets the query just before it begins it (a
//! compute pass is no Vulkan render pass); a render pass collects the queries it begins
//! and resets them in the native command buffer it puts in front of itself when it ends,
//! with its barriers. A query is written when it ends; `resolve_query_set` resolves only
//! queries the encoder wrote, one `u64` per statistic the set counts.

use super::used::find;
use super::{CommandEncoder, Pass};
use crate::error::{Result, fail};
use crate::handle::{Handle, QuerySet};
use vigil_hal::{Api, QueryType};

/// The open pass's pipeline-statistics queries.
#[derive(Clone, Debug, Default)]
pub(crate) struct Statistics {
    /// The query active now: its set and index.
    active: Option<(QuerySet, u32)>,
    /// Queries begun in this pass: `(set slot, set generation, index)`.
    begun: Vec<(u32, u32, u32)>,
}

impl<A: Api> CommandEncoder<A> {
    /// Begins pipeline-statistics query `index` of `set` (a set of
    /// [`Device::create_pipeline_statistics_query_set`](crate::Device::create_pipeline_statistics_query_set))
    /// in the open render or compute pass: its work until
    /// [`CommandEncoder::end_pipeline_statistics_query`] counts into it. Refused outside a
    /// pass, for a set of another type (`query.type`), outside the set (`query.range`),
    /// while another is active (`pipeline-statistics.active`), for a query this pass began
    /// already (`pipeline-statistics.reused`) and in a multiview render pass
    /// (`pipeline-statistics.multiview`). What vigil itself records in the pass counts
    /// too: in a compute pass, the check of an indirect dispatch whose arguments the same
    /// pass wrote runs just before that dispatch.
    pub fn begin_pipeline_statistics_query(&mut self, set: QuerySet, index: u32) -> Result<()> {
        const OP: &str = "begin_pipeline_statistics_query";
        self.step(OP, |e| {
            if e.pass == Pass::None {
                return Err(fail!(
                    PassNotOpen,
                    OP,
                    &e.label,
                    "pipeline-statistics queries count the work of a render or compute pass: begin one first"
                ));
            }
            let q = find(&mut e.used.query_sets, &e.core, set, OP)?;
            if !matches!(q.ty, QueryType::PipelineStatistics(_)) {
                return Err(fail!(
                    QueryType,
                    OP,
                    &e.label,
                    "query set '{}' holds {:?} queries; begin_pipeline_statistics_query counts into a pipeline-statistics set",
                    q.label,
                    q.ty
                ));
            }
            crate::validate::encoder::statistics_query(OP, &e.label, index, q.count)?;
            if let Some((_, active)) = e.statistics.active {
                return Err(fail!(
                    StatisticsActive,
                    OP,
                    &e.label,
                    "pipeline-statistics query {active} is active; end it before beginning another"
                ));
            }
            let key = (set.index(), set.generation(), index);
            if e.statistics.begun.contains(&key) {
                return Err(fail!(
                    StatisticsReused,
                    OP,
                    &e.label,
                    "pipeline-statistics query {index} of '{}' was begun already in this pass; a pass begins each query once",
                    q.label
                ));
            }
            if e.pass == Pass::Render {
                if e.render.multiview_mask() != 0 {
                    return Err(fail!(
                        StatisticsMultiview,
                        OP,
                        &e.label,
                        "a multiview render pass counts no pipeline statistics (each query would take one query per view)"
                    ));
                }
                e.render.query_resets.push((set, index));
            }
            if let (true, Some(q), Some(pool)) = (
                e.open,
                e.used.query_sets.get(set.index(), set.generation()),
                e.pool.as_mut(),
            ) {
                let mut r = crate::native::Rec::<A>(pool);
                if e.pass == Pass::Compute {
                    // No render pass instance is open: the reset goes just in front.
                    r.reset_queries(&q.raw, index, 1);
                }
                r.begin_pipeline_statistics_query(&q.raw, index);
            }
            e.statistics.begun.push(key);
            e.statistics.active = Some((set, index));
            Ok(())
        })
    }

    /// Ends the active pipeline-statistics query (`pipeline-statistics.not-active` when
    /// none is).
    pub fn end_pipeline_statistics_query(&mut self) -> Result<()> {
        const OP: &str = "end_pipeline_statistics_query";
        self.step(OP, |e| {
            let Some((set, index)) = e.statistics.active else {
                return Err(fail!(
                    StatisticsNotActive,
                    OP,
                    &e.label,
                    "no pipeline-statistics query is active"
                ));
            };
            if let (true, Some(q), Some(pool)) = (
                e.open,
                e.used.query_sets.get(set.index(), set.generation()),
                e.pool.as_mut(),
            ) {
                crate::native::Rec::<A>(pool).end_pipeline_statistics_query(&q.raw, index);
            }
            e.statistics.active = None;
            e.note_query_written(set.index(), index);
            Ok(())
        })
    }

    /// A pass begins: no query of it begun yet.
    pub(crate) fn pass_begins_statistics(&mut self) {
        self.statistics.begun.clear();
    }

    /// Refuses to end a pass while one of its pipeline-statistics queries is active.
    pub(crate) fn statistics_closed(&self, op: &'static str) -> Result<()> {
        match self.statistics.active {
            None => Ok(()),
            Some((_, index)) => Err(fail!(
                StatisticsActive,
                op,
                &self.label,
                "pipeline-statistics query {index} is still active; end it before the pass ends"
            )),
        }
    }
}
