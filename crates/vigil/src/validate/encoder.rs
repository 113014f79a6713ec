//! Commands every pass shares: bind groups and their dynamic offsets, pipelines' needs at
//! draw or dispatch time, indirect arguments, dispatch sizes, timestamps.

use super::{ensure, inside};
use crate::device::{DynamicBinding, LateSizeCheck};
use crate::error::{Error, Result, fail};
use vigil_hal::{BufferUsages, Limits};

/// A bind group index below the device's and vigil's limit.
#[inline]
pub(crate) fn group_index(
    op: &'static str,
    label: &str,
    index: u32,
    limits: &Limits,
    cap: usize,
) -> Result<()> {
    let max = (limits.max_bind_groups as usize).min(cap);
    ensure!(
        group_index_fits(index, limits, cap),
        BindGroupIndex,
        op,
        label,
        "group index {index} is not below max_bind_groups ({max})"
    );
    Ok(())
}

/// [`group_index`]'s test alone (the recording's short path asks it, and takes the
/// checked path, which refuses with the rule, when it fails).
#[inline(always)]
pub(crate) fn group_index_fits(index: u32, limits: &Limits, cap: usize) -> bool {
    (index as usize) < (limits.max_bind_groups as usize).min(cap)
}

/// Dynamic offsets for a group's dynamic bindings: one each, aligned, in bounds.
#[inline]
pub(crate) fn dynamic_offsets(
    op: &'static str,
    label: &str,
    group: &str,
    dynamic: &[DynamicBinding],
    offsets: &[u32],
) -> Result<()> {
    ensure!(
        offsets.len() == dynamic.len(),
        DynamicOffsetCount,
        op,
        label,
        "bind group '{group}' has {} dynamic binding(s) but {} offset(s) were given",
        dynamic.len(),
        offsets.len()
    );
    for (&o, d) in offsets.iter().zip(dynamic) {
        ensure!(
            o.checked_rem(d.alignment) == Some(0),
            DynamicOffsetAlignment,
            op,
            label,
            "dynamic offset {o} for binding {} of '{group}' is not a multiple of {}",
            d.binding,
            d.alignment
        );
        let start = d.offset.saturating_add(u64::from(o));
        ensure!(
            inside(start, d.size, d.buffer_size),
            DynamicOffsetRange,
            op,
            label,
            "dynamic offset {o} moves the {} bytes of binding {} of '{group}' from offset {} past the buffer's {} bytes",
            d.size,
            d.binding,
            d.offset,
            d.buffer_size
        );
    }
    Ok(())
}

/// `len` bytes of immediate data at `offset`: aligned and within the limit.
pub(crate) fn immediates(label: &str, offset: u32, len: usize, limits: &Limits) -> Result<()> {
    let end = u64::from(offset).saturating_add(len as u64);
    ensure!(
        offset % 4 == 0 && len % 4 == 0 && end <= u64::from(limits.max_immediate_size),
        ImmediatesRange,
        "set_immediates",
        label,
        "{len} bytes at offset {offset}: both must be multiples of 4 and the end within max_immediate_size ({})",
        limits.max_immediate_size
    );
    Ok(())
}

/// Workgroup counts within the limit.
#[inline]
pub(crate) fn dispatch(label: &str, [x, y, z]: [u32; 3], limits: &Limits) -> Result<()> {
    let max = limits.max_compute_workgroups_per_dimension;
    ensure!(
        x <= max && y <= max && z <= max,
        DispatchLimit,
        "dispatch",
        label,
        "dispatch of {x}x{y}x{z} exceeds max_compute_workgroups_per_dimension ({max})"
    );
    Ok(())
}

/// `size` bytes of indirect arguments at `offset` of a buffer.
#[inline]
pub(crate) fn indirect(
    op: &'static str,
    label: &str,
    b: super::buffer::Shape<'_>,
    offset: u64,
    size: u64,
) -> Result<()> {
    ensure!(
        b.usage.contains(BufferUsages::INDIRECT),
        IndirectUsage,
        op,
        label,
        "indirect arguments need INDIRECT usage; buffer '{}' has {:?}",
        b.label,
        b.usage
    );
    ensure!(
        offset % 4 == 0,
        IndirectAlignment,
        op,
        label,
        "indirect offset {offset} is not a multiple of 4"
    );
    super::buffer::range(op, label, "indirect arguments", offset, size, b.size)
}

/// The facts of a bound group a pipeline checks.
pub(crate) struct BoundFacts<'a> {
    pub label: &'a str,
    pub compat: u32,
    pub sizes: &'a [u64],
}

/// Why the bound groups do not fit a pipeline (the slow path of the binder's bit test).
#[cold]
pub(crate) fn groups_not_ready<'b>(
    op: &'static str,
    label: &str,
    pipeline: &str,
    compat: &[u32],
    late: &[LateSizeCheck],
    bound: &dyn Fn(usize) -> Option<BoundFacts<'b>>,
) -> Error {
    for (g, &c) in compat.iter().enumerate() {
        let Some(b) = bound(g) else {
            return fail!(
                GroupNotSet,
                op,
                label,
                "pipeline '{pipeline}' uses bind group {g}, but none is set at index {g}"
            );
        };
        if b.compat != c {
            return fail!(
                GroupNotSet,
                op,
                label,
                "bind group '{}' at index {g} follows a layout that does not match group {g} of pipeline '{pipeline}'",
                b.label
            );
        }
    }
    for c in late {
        let Some(b) = bound(c.group as usize) else {
            continue;
        };
        let size = b.sizes.get(c.entry as usize).copied().unwrap_or(0);
        if size < c.min && c.elements {
            return fail!(
                GroupTooSmall,
                op,
                label,
                "bind group '{}' has {size} elements at @group({}) @binding({}), but pipeline '{pipeline}' declares the array with {}",
                b.label,
                c.group,
                c.binding,
                c.min
            );
        }
        if size < c.min {
            return fail!(
                GroupTooSmall,
                op,
                label,
                "bind group '{}' binds {size} bytes at @group({}) @binding({}), but pipeline '{pipeline}' needs at least {}",
                b.label,
                c.group,
                c.binding,
                c.min
            );
        }
    }
    fail!(
        GroupNotSet,
        op,
        label,
        "the bound groups do not fit pipeline '{pipeline}'"
    )
}

/// Queries `first..first + count` of a set of `set_count`.
pub(crate) fn queries(
    op: &'static str,
    label: &str,
    set: &str,
    set_count: u32,
    first: u32,
    count: u32,
) -> Result<()> {
    let ok = first < set_count && first.checked_add(count).is_some_and(|end| end <= set_count);
    ensure!(
        ok,
        QueryRange,
        op,
        label,
        "{count} queries from query {first} are outside query set '{set}' ({set_count} queries)"
    );
    Ok(())
}

/// A set timestamps are written into: a timestamp set.
pub(crate) fn timestamp_set(
    op: &'static str,
    label: &str,
    set: &str,
    ty: vigil_hal::QueryType,
) -> Result<()> {
    ensure!(
        ty == vigil_hal::QueryType::Timestamp,
        QueryType,
        op,
        label,
        "query set '{set}' holds {ty:?} queries; timestamps are written into a timestamp set"
    );
    Ok(())
}

/// An occlusion query's index against its pass's set.
pub(crate) fn occlusion_query(op: &'static str, label: &str, index: u32, count: u32) -> Result<()> {
    ensure!(
        index < count,
        QueryRange,
        op,
        label,
        "occlusion query {index} is outside the pass's occlusion query set ({count} queries)"
    );
    Ok(())
}

/// A pipeline-statistics query's index against its set.
pub(crate) fn statistics_query(
    op: &'static str,
    label: &str,
    index: u32,
    count: u32,
) -> Result<()> {
    ensure!(
        index < count,
        QueryRange,
        op,
        label,
        "pipeline-statistics query {index} is outside its set ({count} queries)"
    );
    Ok(())
}

/// A pass's timestamp writes.
pub(crate) fn pass_timestamps(
    op: &'static str,
    label: &str,
    set: &str,
    set_count: u32,
    beginning: Option<u32>,
    end: Option<u32>,
) -> Result<()> {
    for q in [beginning, end].into_iter().flatten() {
        ensure!(
            q < set_count,
            QueryRange,
            op,
            label,
            "query {q} is outside query set '{set}' ({set_count} queries)"
        );
    }
    ensure!(
        beginning.is_none() || beginning != end,
        QuerySameTwice,
        op,
        label,
        "the beginning and end timestamps name the same query"
    );
    Ok(())
}
