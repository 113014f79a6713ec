//! Render passes: attachments, the pipeline against them, vertex and index buffers,
//! viewport and scissor, draws.

use super::{ensure, inside};
use crate::error::Result;
use crate::render::VertexBufferFacts;
use vigil_hal::{
    BufferUsages, IndexFormat, Limits, TextureFormat, TextureUsages, TextureViewDimension,
    VertexStepMode,
};

const BEGIN: &str = "begin_render_pass";

/// The number of attachments.
pub(crate) fn attachment_count(
    label: &str,
    colors: usize,
    any: bool,
    limits: &Limits,
) -> Result<()> {
    ensure!(
        any,
        PassAttachmentNone,
        BEGIN,
        label,
        "a render pass needs at least one attachment"
    );
    ensure!(
        colors <= limits.max_color_attachments as usize,
        PassAttachmentLimit,
        BEGIN,
        label,
        "{colors} color attachments exceed max_color_attachments ({})",
        limits.max_color_attachments
    );
    Ok(())
}

/// What an attachment checks of its view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttachmentFacts<'a> {
    pub label: &'a str,
    pub usage: TextureUsages,
    pub dimension: TextureViewDimension,
    pub mips: u32,
    pub layers: u32,
    pub format: TextureFormat,
    pub sample_count: u32,
    pub extent: [u32; 2],
}

/// The layers a multiview mask renders into (its highest view plus one); 0 for none.
pub(crate) fn multiview_layers(mask: u32) -> u32 {
    32u32.saturating_sub(mask.leading_zeros())
}

/// A multiview mask of a pass or pipeline (`op`): the feature is enabled and every view is
/// below the limit.
pub(crate) fn multiview(
    op: &'static str,
    label: &str,
    mask: u32,
    features: vigil_hal::Features,
    limits: &vigil_hal::Limits,
) -> Result<()> {
    if mask == 0 {
        return Ok(());
    }
    ensure!(
        features.contains(vigil_hal::Features::MULTIVIEW),
        MultiviewFeature,
        op,
        label,
        "a multiview mask ({mask:#b}) needs the MULTIVIEW feature"
    );
    ensure!(
        multiview_layers(mask) <= limits.max_multiview_view_count,
        MultiviewLimit,
        op,
        label,
        "multiview mask {mask:#b} names view {}, but max_multiview_view_count is {}",
        multiview_layers(mask).saturating_sub(1),
        limits.max_multiview_view_count
    );
    Ok(())
}

/// One attachment's view (`what` names it in messages); `seen` says whether its texture
/// is already an attachment of the pass; `views` is the layers a multiview pass renders
/// (0 for an ordinary pass).
pub(crate) fn attachment(
    label: &str,
    what: &str,
    v: &AttachmentFacts<'_>,
    want_depth: bool,
    seen: bool,
    views: u32,
) -> Result<()> {
    let n = v.label;
    ensure!(
        v.usage.contains(TextureUsages::RENDER_ATTACHMENT),
        AttachmentUsage,
        BEGIN,
        label,
        "{what}: view '{n}' lacks RENDER_ATTACHMENT usage ({:?})",
        v.usage
    );
    if views == 0 {
        // A color attachment may be a 3d view, one slice of which it renders.
        let volume = v.dimension == TextureViewDimension::D3 && !want_depth;
        ensure!(
            (v.dimension == TextureViewDimension::D2 || volume) && v.mips == 1 && v.layers == 1,
            AttachmentView,
            BEGIN,
            label,
            "{what}: view '{n}' must be 2d (or, for color, 3d) with one mip level and one layer"
        );
    } else {
        ensure!(
            v.dimension == TextureViewDimension::D2Array && v.mips == 1 && v.layers >= views,
            AttachmentView,
            BEGIN,
            label,
            "{what}: a multiview pass rendering {views} views needs a 2d-array view with one mip level and at least {views} layers; view '{n}' is {:?} with {} layers",
            v.dimension,
            v.layers
        );
    }
    ensure!(
        v.format.is_depth_stencil() == want_depth,
        AttachmentView,
        BEGIN,
        label,
        "{what}: view '{n}' has format {}, which is {}a depth format",
        v.format.wgsl_name(),
        if want_depth { "not " } else { "" }
    );
    ensure!(
        !seen,
        AttachmentView,
        BEGIN,
        label,
        "{what}: the texture of view '{n}' is already an attachment of this pass (only a volume's different slices may be two)"
    );
    Ok(())
}

/// The depth slice a color attachment names: a slice inside `depth`, the slices of its 3d
/// view's mip level; none for any other view.
pub(crate) fn depth_slice(
    label: &str,
    what: &str,
    view: &str,
    dimension: TextureViewDimension,
    slice: Option<u32>,
    depth: u32,
) -> Result<()> {
    let d3 = dimension == TextureViewDimension::D3;
    ensure!(
        d3 == slice.is_some(),
        AttachmentDepthSlice,
        BEGIN,
        label,
        "{what}: view '{view}' is {dimension:?}; {}",
        if d3 {
            "name the slice it renders (depth_slice)"
        } else {
            "only a 3d view names a depth slice"
        }
    );
    if let Some(z) = slice {
        ensure!(
            z < depth,
            AttachmentDepthSlice,
            BEGIN,
            label,
            "{what}: depth slice {z} of view '{view}' is outside its mip level's {depth} slices"
        );
    }
    Ok(())
}

/// Attachments agree in size and sample count.
pub(crate) fn same_shape(
    label: &str,
    what: &str,
    v: &AttachmentFacts<'_>,
    extent: [u32; 2],
    samples: u32,
) -> Result<()> {
    ensure!(
        v.extent == extent,
        AttachmentExtent,
        BEGIN,
        label,
        "{what}: view '{}' is {}x{}, other attachments are {}x{}",
        v.label,
        v.extent[0],
        v.extent[1],
        extent[0],
        extent[1]
    );
    ensure!(
        v.sample_count == samples,
        AttachmentExtent,
        BEGIN,
        label,
        "{what} has {} samples, other attachments {samples}",
        v.sample_count
    );
    Ok(())
}

/// A resolve target of color attachment `i` (of `samples` samples and `format`).
pub(crate) fn resolve_target(
    label: &str,
    i: usize,
    samples: u32,
    format: TextureFormat,
    r: &AttachmentFacts<'_>,
) -> Result<()> {
    ensure!(
        samples > 1,
        ResolveTarget,
        BEGIN,
        label,
        "color attachment {i} is not multisampled, so it cannot resolve"
    );
    ensure!(
        r.sample_count == 1 && r.format == format,
        ResolveTarget,
        BEGIN,
        label,
        "resolve target {i} must be single-sampled {} (it is {} with {} samples)",
        format.wgsl_name(),
        r.format.wgsl_name(),
        r.sample_count
    );
    Ok(())
}

/// A render bundle's attachment formats and sample count (`support` says what the device
/// renders to).
pub(crate) fn bundle_descriptor(
    label: &str,
    colors: &[Option<TextureFormat>],
    depth: Option<TextureFormat>,
    samples: u32,
    limits: &vigil_hal::Limits,
    support: &dyn Fn(TextureFormat) -> vigil_hal::FormatSupport,
) -> Result<()> {
    const OP: &str = "create_render_bundle_encoder";
    ensure!(
        matches!(samples, 1 | 4),
        BundleSampleCount,
        OP,
        label,
        "sample count {samples}; vigil supports 1 and 4"
    );
    ensure!(
        colors.iter().any(Option::is_some) || depth.is_some(),
        BundleAttachments,
        OP,
        label,
        "a render bundle names at least one color or depth-stencil format"
    );
    ensure!(
        colors.len() <= limits.max_color_attachments as usize,
        BundleAttachments,
        OP,
        label,
        "{} color formats exceed max_color_attachments ({})",
        colors.len(),
        limits.max_color_attachments
    );
    for (i, f) in colors.iter().enumerate() {
        let Some(f) = *f else { continue };
        ensure!(
            !f.is_depth_stencil() && support(f).color_attachment,
            BundleAttachments,
            OP,
            label,
            "color format {i}: {} is not a color format this device renders to",
            f.wgsl_name()
        );
    }
    if let Some(f) = depth {
        ensure!(
            f.is_depth_stencil() && support(f).depth_stencil_attachment,
            BundleAttachments,
            OP,
            label,
            "{} is not a depth-stencil format this device renders to",
            f.wgsl_name()
        );
    }
    Ok(())
}

/// A render bundle's targets against the pass it executes in.
pub(crate) fn bundle_targets(
    label: &str,
    bundle: &str,
    b: &PassTargets,
    pass: &PassTargets,
) -> Result<()> {
    let n = b.colors.len().max(pass.colors.len());
    let fmt = |v: &[Option<TextureFormat>], i: usize| v.get(i).copied().flatten();
    let same = (0..n).all(|i| fmt(&b.colors, i) == fmt(&pass.colors, i))
        && b.depth == pass.depth
        && b.samples == pass.samples
        && b.multiview_mask == pass.multiview_mask;
    ensure!(
        same,
        BundleTargets,
        "execute_bundles",
        label,
        "bundle '{bundle}' renders to {:?} / depth {:?} with {} samples, view mask {:#b}, but the pass has {:?} / depth {:?} with {} samples, view mask {:#b}",
        b.colors,
        b.depth,
        b.samples,
        b.multiview_mask,
        pass.colors,
        pass.depth,
        pass.samples,
        pass.multiview_mask
    );
    for (aspect, bundle_ro, pass_ro) in [
        ("depth", b.depth_read_only, pass.depth_read_only),
        ("stencil", b.stencil_read_only, pass.stencil_read_only),
    ] {
        ensure!(
            bundle_ro || !pass_ro,
            BundleReadOnly,
            "execute_bundles",
            label,
            "bundle '{bundle}' may write {aspect} ({aspect}_read_only is false in its descriptor), and this pass's {aspect} is read-only"
        );
    }
    Ok(())
}

/// The shape of a pass a pipeline must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PassTargets {
    pub colors: Vec<Option<TextureFormat>>,
    pub depth: Option<TextureFormat>,
    pub samples: u32,
    pub multiview_mask: u32,
    /// The depth aspect is read-only: no pipeline that writes depth.
    pub depth_read_only: bool,
    /// The stencil aspect is read-only: no pipeline that writes stencil.
    pub stencil_read_only: bool,
}

/// A pipeline's targets against the pass's.
#[inline]
pub(crate) fn pipeline_targets(
    label: &str,
    pipeline: &str,
    p: &crate::render::RenderPipelineFacts,
    pass: &PassTargets,
) -> Result<()> {
    let n = p.color_formats.len().max(pass.colors.len());
    let fmt = |v: &[Option<TextureFormat>], i: usize| v.get(i).copied().flatten();
    let same = (0..n).all(|i| fmt(&p.color_formats, i) == fmt(&pass.colors, i))
        && p.depth_format == pass.depth
        && p.sample_count == pass.samples
        && p.multiview_mask == pass.multiview_mask;
    ensure!(
        same,
        PipelineTargets,
        "set_render_pipeline",
        label,
        "pipeline '{pipeline}' renders to {:?} / depth {:?} with {} samples, view mask {:#b}, but the pass has {:?} / depth {:?} with {} samples, view mask {:#b}",
        p.color_formats,
        p.depth_format,
        p.sample_count,
        p.multiview_mask,
        pass.colors,
        pass.depth,
        pass.samples,
        pass.multiview_mask
    );
    ensure!(
        !(p.writes_depth && pass.depth_read_only),
        DepthReadOnly,
        "set_render_pipeline",
        label,
        "pipeline '{pipeline}' writes depth (depth_write_enabled), and the depth of this pass's depth-stencil attachment is read-only (its depth_ops are None); give the attachment depth_ops, or use a pipeline that does not write depth"
    );
    ensure!(
        !(p.writes_stencil && pass.stencil_read_only),
        StencilReadOnly,
        "set_render_pipeline",
        label,
        "pipeline '{pipeline}' may write stencil (a nonzero write mask and an operation other than Keep), and the stencil of this pass's depth-stencil attachment is read-only (its stencil_ops are None); give the attachment stencil_ops, or use a pipeline that keeps stencil"
    );
    Ok(())
}

/// A vertex buffer binding; returns the bound size.
#[inline]
pub(crate) fn vertex_buffer(
    label: &str,
    slot: u32,
    cap: usize,
    b: super::buffer::Shape<'_>,
    offset: u64,
    size: Option<u64>,
) -> Result<u64> {
    const OP: &str = "set_vertex_buffer";
    ensure!(
        (slot as usize) < cap,
        VertexSlot,
        OP,
        label,
        "vertex buffer slot {slot} is not below max_vertex_buffers ({cap})"
    );
    ensure!(
        b.usage.contains(BufferUsages::VERTEX),
        VertexBufferUsage,
        OP,
        label,
        "buffer '{}' lacks VERTEX usage ({:?})",
        b.label,
        b.usage
    );
    ensure!(
        offset % 4 == 0,
        VertexBufferRange,
        OP,
        label,
        "vertex buffer offset {offset} is not a multiple of 4"
    );
    // Vulkan binds a vertex buffer at an offset inside it (VUID-vkCmdBindVertexBuffers-pOffsets-00626);
    // an empty binding at the very end has no native form.
    ensure!(
        offset < b.size,
        VertexBufferRange,
        OP,
        label,
        "offset {offset} is not inside buffer '{}' ({} bytes); a vertex buffer binding must start inside its buffer",
        b.label,
        b.size
    );
    let size = size.unwrap_or(b.size.saturating_sub(offset));
    ensure!(
        inside(offset, size, b.size),
        VertexBufferRange,
        OP,
        label,
        "vertex buffer range of {size} bytes at offset {offset} is outside buffer '{}' ({} bytes)",
        b.label,
        b.size
    );
    Ok(size)
}

/// [`vertex_buffer`]'s rules as a yes or no, for the recording's short path: the bound
/// size when every rule holds, `None` when one does not (the checked path then says
/// which). The unit tests hold the two to the same answers.
#[inline(always)]
pub(crate) fn vertex_buffer_fits(
    slot: u32,
    cap: usize,
    usage: BufferUsages,
    len: u64,
    offset: u64,
    size: Option<u64>,
) -> Option<u64> {
    ((slot as usize) < cap && usage.contains(BufferUsages::VERTEX) && offset % 4 == 0)
        .then(|| binding_fits(len, offset, size))
        .flatten()
}

/// [`index_buffer`]'s rules as a yes or no, as [`vertex_buffer_fits`] is
/// [`vertex_buffer`]'s.
#[inline(always)]
pub(crate) fn index_buffer_fits(
    usage: BufferUsages,
    len: u64,
    format: IndexFormat,
    offset: u64,
    size: Option<u64>,
) -> Option<u64> {
    (usage.contains(BufferUsages::INDEX) && offset.checked_rem(format.size()) == Some(0))
        .then(|| binding_fits(len, offset, size))
        .flatten()
}

/// The range rules the vertex and index bindings share, as a yes or no: the binding
/// starts inside the buffer (Vulkan binds at an offset inside it) and `size` bytes
/// (default: to the end) end within it. The bound size, or `None`.
#[inline(always)]
fn binding_fits(len: u64, offset: u64, size: Option<u64>) -> Option<u64> {
    let size = size.unwrap_or(len.saturating_sub(offset));
    (offset < len && inside(offset, size, len)).then_some(size)
}

/// An indexed draw's own rules ([`range_order`] of its indices and instances,
/// [`index_range`], [`strip_format`]) as a yes or no, for the recording's short path.
#[inline(always)]
pub(crate) fn indexed_fits(
    indices: &std::ops::Range<u32>,
    instances: &std::ops::Range<u32>,
    format: IndexFormat,
    bound: u64,
    strip: Option<IndexFormat>,
) -> bool {
    indices.end >= indices.start
        && instances.end >= instances.start
        && u64::from(indices.end).saturating_mul(format.size()) <= bound
        && strip.is_none_or(|f| f == format)
}

/// An index buffer binding; returns the bound size.
#[inline]
pub(crate) fn index_buffer(
    label: &str,
    b: super::buffer::Shape<'_>,
    format: IndexFormat,
    offset: u64,
    size: Option<u64>,
) -> Result<u64> {
    const OP: &str = "set_index_buffer";
    ensure!(
        b.usage.contains(BufferUsages::INDEX),
        IndexBufferUsage,
        OP,
        label,
        "buffer '{}' lacks INDEX usage ({:?})",
        b.label,
        b.usage
    );
    ensure!(
        offset.checked_rem(format.size()) == Some(0),
        IndexBufferRange,
        OP,
        label,
        "index buffer offset {offset} is not a multiple of {}",
        format.size()
    );
    // As for vertex buffers, Vulkan needs the offset inside the buffer (VUID-vkCmdBindIndexBuffer-offset-00431).
    ensure!(
        offset < b.size,
        IndexBufferRange,
        OP,
        label,
        "offset {offset} is not inside buffer '{}' ({} bytes); an index buffer binding must start inside its buffer",
        b.label,
        b.size
    );
    let size = size.unwrap_or(b.size.saturating_sub(offset));
    ensure!(
        inside(offset, size, b.size),
        IndexBufferRange,
        OP,
        label,
        "index buffer range of {size} bytes at offset {offset} is outside buffer '{}' ({} bytes)",
        b.label,
        b.size
    );
    Ok(size)
}

/// A viewport.
#[inline]
pub(crate) fn viewport(
    label: &str,
    [x, y, width, height]: [f32; 4],
    [min_depth, max_depth]: [f32; 2],
    limits: &Limits,
) -> Result<()> {
    const OP: &str = "set_viewport";
    let max = 2.0 * limits.max_texture_dimension_2d as f32;
    let finite = [x, y, width, height, min_depth, max_depth]
        .iter()
        .all(|v| v.is_finite());
    let inside = width > 0.0
        && height > 0.0
        && x >= -max
        && y >= -max
        && x + width <= max
        && y + height <= max;
    ensure!(
        finite && inside,
        ViewportRange,
        OP,
        label,
        "viewport ({x}, {y}, {width}, {height}) must be finite with a positive size within ±{max}"
    );
    let depth = (0.0..=1.0).contains(&min_depth)
        && (0.0..=1.0).contains(&max_depth)
        && min_depth <= max_depth;
    ensure!(
        depth,
        ViewportRange,
        OP,
        label,
        "depth range {min_depth}..{max_depth} must lie in 0..1 with min <= max"
    );
    Ok(())
}

/// A scissor rectangle inside attachments of `extent`.
#[inline]
pub(crate) fn scissor(
    label: &str,
    [x, y, width, height]: [u32; 4],
    [w, h]: [u32; 2],
) -> Result<()> {
    let fits =
        |start: u32, len: u32, limit: u32| start.checked_add(len).is_some_and(|end| end <= limit);
    ensure!(
        fits(x, width, w) && fits(y, height, h),
        ScissorRange,
        "set_scissor_rect",
        label,
        "scissor ({x}, {y}, {width}, {height}) leaves the {w}x{h} attachments"
    );
    Ok(())
}

/// A draw's range ends at or after its start: the native call takes a count, and
/// `end - start` would wrap to about four billion.
#[inline]
pub(crate) fn range_order(
    op: &'static str,
    label: &str,
    what: &str,
    range: &std::ops::Range<u32>,
) -> Result<()> {
    ensure!(
        range.end >= range.start,
        RangeInverted,
        op,
        label,
        "{what} {}..{} end below their start",
        range.start,
        range.end
    );
    Ok(())
}

/// Indices `indices` inside an index binding of `bound` bytes.
#[inline]
pub(crate) fn index_range(
    op: &'static str,
    label: &str,
    indices: &std::ops::Range<u32>,
    format: IndexFormat,
    bound: u64,
) -> Result<()> {
    let end = u64::from(indices.end).saturating_mul(format.size());
    ensure!(
        end <= bound,
        IndexRange,
        op,
        label,
        "indices {}..{} need {end} bytes of index buffer; {bound} are bound",
        indices.start,
        indices.end
    );
    Ok(())
}

/// The vertices or instances of a draw inside vertex buffer `slot` of `bound` bytes.
#[inline]
pub(crate) fn vertex_range(
    op: &'static str,
    label: &str,
    slot: usize,
    vb: &VertexBufferFacts,
    bound: u64,
    vertices: Option<&std::ops::Range<u32>>,
    instances: &std::ops::Range<u32>,
) -> Result<()> {
    let range = match vb.step {
        VertexStepMode::Vertex => match vertices {
            Some(v) => v.clone(),
            None => return Ok(()),
        },
        VertexStepMode::Instance => instances.clone(),
    };
    if range.end <= range.start || vb.element_size == 0 {
        return Ok(());
    }
    // `range.end > range.start >= 0` here, so `end - 1` does not wrap.
    let need = u64::from(range.end.saturating_sub(1))
        .saturating_mul(vb.stride)
        .saturating_add(vb.element_size);
    let what = if vb.step == VertexStepMode::Vertex {
        "vertices"
    } else {
        "instances"
    };
    ensure!(
        need <= bound,
        VertexRange,
        op,
        label,
        "vertex buffer slot {slot} holds {bound} bytes but {what} {}..{} need {need}",
        range.start,
        range.end
    );
    Ok(())
}

/// An indexed draw's index format against the pipeline's strip index format.
#[inline]
pub(crate) fn strip_format(
    op: &'static str,
    label: &str,
    strip: Option<IndexFormat>,
    bound: IndexFormat,
) -> Result<()> {
    ensure!(
        strip.is_none_or(|f| f == bound),
        StripIndexFormat,
        op,
        label,
        "the pipeline's strip index format is {:?} but the index buffer holds {:?} indices",
        strip,
        bound
    );
    Ok(())
}

/// A depth-stencil attachment's operations against its format's aspects.
pub(crate) fn aspect_ops(
    label: &str,
    format: TextureFormat,
    depth: bool,
    stencil: bool,
) -> Result<()> {
    let info = format.info();
    ensure!(
        !stencil || info.has_stencil,
        AspectOps,
        "begin_render_pass",
        label,
        "stencil_ops are given but {format:?} has no stencil; leave them None"
    );
    ensure!(
        !depth || info.has_depth,
        AspectOps,
        "begin_render_pass",
        label,
        "depth_ops are given but {format:?} has no depth; leave them None"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{
        index_buffer, index_buffer_fits, index_range, indexed_fits, range_order, strip_format,
        vertex_buffer, vertex_buffer_fits,
    };
    use crate::label::Label;
    use crate::validate::buffer::Shape;
    use vigil_hal::{BufferUsages, IndexFormat};

    /// Counts the rules' answers over a sweep and, at the end, requires both outcomes to
    /// have been met, so the sweep compared each.
    #[derive(Default)]
    struct Tally(usize, usize);

    impl Tally {
        fn add(&mut self, accepted: bool) {
            if accepted {
                self.0 = self.0.wrapping_add(1);
            } else {
                self.1 = self.1.wrapping_add(1);
            }
        }

        fn check(&self) {
            assert!(
                self.0 > 0 && self.1 > 0,
                "{} accepted, {} refused",
                self.0,
                self.1
            );
        }
    }

    /// Calls `f` with every buffer binding of the sweep: a buffer's usage and length, and
    /// the binding's offset and size.
    fn each_binding(mut f: impl FnMut(BufferUsages, u64, u64, Option<u64>)) {
        let usages = [
            BufferUsages::VERTEX,
            BufferUsages::INDEX,
            BufferUsages::VERTEX | BufferUsages::INDEX,
            BufferUsages::STORAGE,
        ];
        let edges = [0, 1, 2, 3, 4, 6, 8, 60, 64, 68, u64::MAX - 3, u64::MAX];
        let sizes = [
            None,
            Some(0),
            Some(2),
            Some(4),
            Some(60),
            Some(64),
            Some(u64::MAX),
        ];
        for usage in usages {
            for len in [0, 4, 64, 66] {
                for offset in edges {
                    for size in sizes {
                        f(usage, len, offset, size);
                    }
                }
            }
        }
    }

    /// The short path's test accepts exactly what the vertex buffer rules accept, and
    /// binds the same size.
    #[test]
    fn vertex_buffer_fits_agrees_with_vertex_buffer() {
        let label = Label::new("b");
        let mut tally = Tally::default();
        each_binding(|usage, len, offset, size| {
            for slot in [0, 1, 7, 8] {
                let b = Shape {
                    label: &label,
                    size: len,
                    usage,
                };
                let rules = vertex_buffer("e", slot, 8, b, offset, size).ok();
                let fits = vertex_buffer_fits(slot, 8, usage, len, offset, size);
                assert_eq!(fits, rules, "{usage:?} {len} {slot} {offset} {size:?}");
                tally.add(rules.is_some());
            }
        });
        tally.check();
    }

    /// The same for the index buffer rules, in both formats.
    #[test]
    fn index_buffer_fits_agrees_with_index_buffer() {
        let label = Label::new("b");
        let mut tally = Tally::default();
        each_binding(|usage, len, offset, size| {
            for format in [IndexFormat::Uint16, IndexFormat::Uint32] {
                let b = Shape {
                    label: &label,
                    size: len,
                    usage,
                };
                let rules = index_buffer("e", b, format, offset, size).ok();
                let fits = index_buffer_fits(usage, len, format, offset, size);
                assert_eq!(fits, rules, "{usage:?} {len} {format:?} {offset} {size:?}");
                tally.add(rules.is_some());
            }
        });
        tally.check();
    }

    /// An indexed draw's short test accepts exactly what its four rules accept.
    #[test]
    fn indexed_fits_agrees_with_the_draw_rules() {
        let ends = [0u32, 1, 5, 6, 7, 32, u32::MAX];
        let mut tally = Tally::default();
        for format in [IndexFormat::Uint16, IndexFormat::Uint32] {
            for strip in [None, Some(IndexFormat::Uint16), Some(IndexFormat::Uint32)] {
                for bound in [0u64, 12, 14, 24, 64, u64::MAX] {
                    for (i0, i1) in ends.iter().flat_map(|&a| ends.map(|b| (a, b))) {
                        for (n0, n1) in [(0u32, 0u32), (0, 1), (1, 0), (3, 9)] {
                            let (indices, instances) = (i0..i1, n0..n1);
                            let rules = range_order("draw_indexed", "e", "indices", &indices)
                                .and(range_order("draw_indexed", "e", "instances", &instances))
                                .and(index_range("draw_indexed", "e", &indices, format, bound))
                                .and(strip_format("draw_indexed", "e", strip, format))
                                .is_ok();
                            let fits = indexed_fits(&indices, &instances, format, bound, strip);
                            assert_eq!(
                                fits, rules,
                                "{indices:?} {instances:?} {format:?} {bound} {strip:?}"
                            );
                            tally.add(rules);
                        }
                    }
                }
            }
        }
        tally.check();
    }
}
