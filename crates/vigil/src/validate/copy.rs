//! Copies, clears, texel layouts and query resolves.

use super::{ensure, inside};
use crate::error::Result;
use crate::texture::{TexelCopyBufferLayout, TexelCopyTextureInfo, TextureDescriptorOwned};
use vigil_hal::{BufferUsages, TextureAspect, TextureDimension, TextureFormat, TextureUsages};

/// Bytes-per-row alignment of buffer-texture copies recorded in encoders.
pub const COPY_BYTES_PER_ROW_ALIGNMENT: u32 = 256;
/// Offset alignment of query resolves.
pub const QUERY_RESOLVE_ALIGNMENT: u64 = 256;

/// A buffer-to-buffer copy.
#[inline]
pub(crate) fn buffers(
    label: &str,
    same: bool,
    s: super::buffer::Facts<'_>,
    src_offset: u64,
    d: super::buffer::Facts<'_>,
    dst_offset: u64,
    size: u64,
) -> Result<()> {
    const OP: &str = "copy_buffer_to_buffer";
    ensure!(
        !same,
        CopySame,
        OP,
        label,
        "source and destination are the same buffer '{}'",
        s.label
    );
    ensure!(
        s.usage.contains(BufferUsages::COPY_SRC),
        CopyUsage,
        OP,
        label,
        "source '{}' lacks COPY_SRC usage ({:?})",
        s.label,
        s.usage
    );
    ensure!(
        d.usage.contains(BufferUsages::COPY_DST),
        CopyUsage,
        OP,
        label,
        "destination '{}' lacks COPY_DST usage ({:?})",
        d.label,
        d.usage
    );
    ensure!(
        src_offset % 4 == 0 && dst_offset % 4 == 0 && size % 4 == 0,
        CopyAlignment,
        OP,
        label,
        "offsets {src_offset}, {dst_offset} and size {size} must be multiples of 4"
    );
    super::buffer::range(OP, label, "source", src_offset, size, s.size)?;
    super::buffer::range(OP, label, "destination", dst_offset, size, d.size)
}

/// A buffer clear; returns its size.
#[inline]
pub(crate) fn clear(
    label: &str,
    b: super::buffer::Facts<'_>,
    offset: u64,
    size: Option<u64>,
) -> Result<u64> {
    const OP: &str = "clear_buffer";
    ensure!(
        b.usage.contains(BufferUsages::COPY_DST),
        CopyUsage,
        OP,
        label,
        "clearing needs COPY_DST usage; buffer '{}' has {:?}",
        b.label,
        b.usage
    );
    ensure!(
        offset <= b.size,
        BufferRange,
        OP,
        label,
        "offset {offset} is past the end of buffer '{}' ({} bytes)",
        b.label,
        b.size
    );
    let size = size.unwrap_or(b.size.saturating_sub(offset));
    ensure!(
        offset % 4 == 0 && size % 4 == 0,
        CopyAlignment,
        OP,
        label,
        "offset {offset} and size {size} must be multiples of 4"
    );
    super::buffer::range(OP, label, "clear", offset, size, b.size)?;
    Ok(size)
}

/// Bytes per texel of a format's aspect, when it can be copied.
pub(crate) fn copy_texel_bytes(format: TextureFormat, aspect: TextureAspect) -> Option<u32> {
    let info = format.info();
    match (aspect, format) {
        (TextureAspect::StencilOnly, _) if info.has_stencil => Some(1),
        (TextureAspect::All, TextureFormat::Stencil8) => Some(1),
        (TextureAspect::DepthOnly | TextureAspect::All, TextureFormat::Depth32Float) => Some(4),
        (TextureAspect::DepthOnly, TextureFormat::Depth32FloatStencil8) => Some(4),
        (TextureAspect::DepthOnly | TextureAspect::All, TextureFormat::Depth16Unorm) => Some(2),
        (TextureAspect::All, f) if !f.is_depth_stencil() => Some(info.bytes_per_texel),
        _ => None,
    }
}

/// A copy box `size` at `at` lies in the texture and its aspect is copyable; returns bytes
/// per texel.
pub(crate) fn texture_box(
    op: &'static str,
    label: &str,
    desc: &TextureDescriptorOwned,
    at: &TexelCopyTextureInfo,
    size: [u32; 3],
) -> Result<u32> {
    ensure!(
        desc.sample_count == 1,
        CopyMultisampled,
        op,
        label,
        "multisampled textures cannot be copied; resolve them first"
    );
    let texel = copy_texel_bytes(desc.format, at.aspect);
    ensure!(
        texel.is_some(),
        CopyAspect,
        op,
        label,
        "the {:?} aspect of {} cannot be copied",
        at.aspect,
        desc.format.wgsl_name()
    );
    ensure!(
        at.mip_level < desc.mip_level_count,
        CopyBox,
        op,
        label,
        "mip level {} is outside the texture's {} levels",
        at.mip_level,
        desc.mip_level_count
    );
    let [bw, bh] = desc.format.info().block;
    let whole = |v: u32, block: u32| v.checked_rem(block) == Some(0);
    ensure!(
        whole(at.origin[0], bw)
            && whole(at.origin[1], bh)
            && whole(size[0], bw)
            && whole(size[1], bh),
        CopyBlock,
        op,
        label,
        "the box at ({}, {}) of {}x{} is not whole {bw}x{bh} blocks of {}",
        at.origin[0],
        at.origin[1],
        size[0],
        size[1],
        desc.format.wgsl_name()
    );
    // A compressed mip level's last blocks may reach past its edge, and are copied whole.
    let [mw, mh] = desc.mip_size(at.mip_level);
    let [mw, mh] = [
        mw.checked_next_multiple_of(bw).unwrap_or(mw),
        mh.checked_next_multiple_of(bh).unwrap_or(mh),
    ];
    let fits =
        |start: u32, len: u32, limit: u32| start.checked_add(len).is_some_and(|end| end <= limit);
    // Layers, or a 3D texture's slices at this level.
    let layers = desc.mip_layers(at.mip_level);
    let ok = fits(at.origin[0], size[0], mw)
        && fits(at.origin[1], size[1], mh)
        && fits(at.array_layer, size[2], layers);
    let (one, many) = if desc.dimension == TextureDimension::D3 {
        ("slice", "slices")
    } else {
        ("layer", "layers")
    };
    ensure!(
        ok,
        CopyBox,
        op,
        label,
        "the box at ({}, {}) from {one} {} of {}x{}x{} leaves mip level {} ({mw}x{mh}, {layers} {many})",
        at.origin[0],
        at.origin[1],
        at.array_layer,
        size[0],
        size[1],
        size[2],
        at.mip_level,
    );
    Ok(texel.unwrap_or(1))
}

/// A copy box's `[width, height, layers]` in texel blocks of `format` (the box itself for
/// uncompressed formats; `texture_box` checked that it is whole blocks).
pub(crate) fn blocks(format: TextureFormat, size: [u32; 3]) -> [u32; 3] {
    let [bw, bh] = format.info().block;
    [size[0].div_ceil(bw), size[1].div_ceil(bh), size[2]]
}

/// Where a texel copy's rows lie in linear memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TexelFootprint {
    /// Bytes of one row of texels.
    pub row: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Bytes from one layer to the next.
    pub image: u64,
    /// Bytes of linear memory the copy touches from the layout's offset on (0 when empty).
    pub len: u64,
}

/// The linear footprint of copying a `size` box of `texel`-byte texels laid out as
/// `layout` says; `None` when it does not fit in 64 bits (so no such buffer or slice can
/// hold it). Rows are at least `row` bytes apart and images at least `size[1]` rows.
pub(crate) fn texel_footprint(
    layout: &TexelCopyBufferLayout,
    texel: u32,
    size: [u32; 3],
) -> Option<TexelFootprint> {
    let row = u64::from(size[0]).checked_mul(u64::from(texel))?;
    let pitch = u64::from(layout.bytes_per_row).max(row);
    let rows = layout.rows_per_image.unwrap_or(size[1]).max(size[1]);
    let image = pitch.checked_mul(u64::from(rows))?;
    let len = if size.contains(&0) {
        0
    } else {
        image
            .checked_mul(u64::from(size[2].saturating_sub(1)))?
            .checked_add(pitch.checked_mul(u64::from(size[1].saturating_sub(1)))?)?
            .checked_add(row)?
    };
    layout.offset.checked_add(len)?;
    Some(TexelFootprint {
        row,
        pitch,
        image,
        len,
    })
}

/// A texel layout for a `size` box of `texel`-byte texels: rows at least a row long,
/// images at least the box's height, the footprint inside 64 bits.
pub(crate) fn texel_layout(
    op: &'static str,
    label: &str,
    layout: &TexelCopyBufferLayout,
    texel: u32,
    size: [u32; 3],
) -> Result<TexelFootprint> {
    let fp = texel_footprint(layout, texel, size);
    ensure!(
        fp.is_some(),
        CopyLayout,
        op,
        label,
        "the data layout {layout:?} puts the {}x{}x{} box past the end of any memory",
        size[0],
        size[1],
        size[2]
    );
    let fp = fp.unwrap_or(TexelFootprint {
        row: 0,
        pitch: 0,
        image: 0,
        len: 0,
    });
    let rows_per_image = layout.rows_per_image.unwrap_or(size[1]);
    ensure!(
        !(size[1] > 1 || size[2] > 1) || u64::from(layout.bytes_per_row) >= fp.row,
        CopyLayout,
        op,
        label,
        "bytes_per_row {} is less than a row of {} bytes",
        layout.bytes_per_row,
        fp.row
    );
    ensure!(
        size[2] <= 1 || rows_per_image >= size[1],
        CopyLayout,
        op,
        label,
        "rows_per_image {rows_per_image} is less than the height {}",
        size[1]
    );
    Ok(fp)
}

/// A buffer-texture copy in an encoder (either direction); returns the footprint.
#[allow(clippy::too_many_arguments)]
pub(crate) fn buffer_texture(
    op: &'static str,
    label: &str,
    to_texture: bool,
    b: super::buffer::Facts<'_>,
    layout: &TexelCopyBufferLayout,
    t_label: &str,
    t: &TextureDescriptorOwned,
    at: &TexelCopyTextureInfo,
    size: [u32; 3],
) -> Result<TexelFootprint> {
    let (bu, tu) = if to_texture {
        (BufferUsages::COPY_SRC, TextureUsages::COPY_DST)
    } else {
        (BufferUsages::COPY_DST, TextureUsages::COPY_SRC)
    };
    ensure!(
        b.usage.contains(bu),
        CopyUsage,
        op,
        label,
        "buffer '{}' lacks {bu:?} usage ({:?})",
        b.label,
        b.usage
    );
    ensure!(
        t.usage.contains(tu),
        CopyUsage,
        op,
        label,
        "texture '{t_label}' lacks {tu:?} usage ({:?})",
        t.usage
    );
    let texel = texture_box(op, t_label, t, at, size)?;
    ensure!(
        layout.bytes_per_row % COPY_BYTES_PER_ROW_ALIGNMENT == 0,
        CopyAlignment,
        op,
        label,
        "bytes_per_row {} is not a multiple of {COPY_BYTES_PER_ROW_ALIGNMENT}",
        layout.bytes_per_row
    );
    let align = u64::from(texel.max(4));
    ensure!(
        layout.offset.checked_rem(align) == Some(0),
        CopyAlignment,
        op,
        label,
        "buffer offset {} is not a multiple of {align}",
        layout.offset
    );
    // Rows and images are counted in blocks from here on.
    let size = blocks(t.format, size);
    let fp = texel_layout(op, label, layout, texel, size)?;
    ensure!(
        u64::from(layout.bytes_per_row) >= fp.row,
        CopyLayout,
        op,
        label,
        "bytes_per_row {} is less than a row of {} bytes",
        layout.bytes_per_row,
        fp.row
    );
    // The native copy takes the image height as given (VUID-VkBufferImageCopy-bufferImageHeight-00196).
    let rows_per_image = layout.rows_per_image.unwrap_or(size[1]);
    ensure!(
        rows_per_image >= size[1],
        CopyLayout,
        op,
        label,
        "rows_per_image {rows_per_image} is less than the height {}",
        size[1]
    );
    // Between layers, Vulkan counts the rows in texels: that count must exist.
    let [_, bh] = t.format.info().block;
    ensure!(
        size[2] <= 1 || rows_per_image.checked_mul(bh).is_some(),
        CopyLayout,
        op,
        label,
        "rows_per_image {rows_per_image} is more rows of {bh}-texel blocks than a copy can count"
    );
    if !size.contains(&0) {
        ensure!(
            inside(layout.offset, fp.len, b.size),
            CopyLayout,
            op,
            label,
            "the copy reaches {} bytes from offset {} of buffer '{}' ({} bytes)",
            fp.len,
            layout.offset,
            b.label,
            b.size
        );
    }
    Ok(fp)
}

/// A texture-to-texture copy.
#[allow(clippy::too_many_arguments)]
pub(crate) fn textures(
    label: &str,
    same: bool,
    s_label: &str,
    s: &TextureDescriptorOwned,
    s_at: &TexelCopyTextureInfo,
    d_label: &str,
    d: &TextureDescriptorOwned,
    d_at: &TexelCopyTextureInfo,
    size: [u32; 3],
) -> Result<()> {
    const OP: &str = "copy_texture_to_texture";
    ensure!(
        !same,
        CopySame,
        OP,
        label,
        "source and destination are the same texture '{s_label}'"
    );
    ensure!(
        s.usage.contains(TextureUsages::COPY_SRC),
        CopyUsage,
        OP,
        label,
        "source '{s_label}' lacks COPY_SRC usage ({:?})",
        s.usage
    );
    ensure!(
        d.usage.contains(TextureUsages::COPY_DST),
        CopyUsage,
        OP,
        label,
        "destination '{d_label}' lacks COPY_DST usage ({:?})",
        d.usage
    );
    ensure!(
        s.format == d.format || s.format.srgb_twin() == Some(d.format),
        CopyFormat,
        OP,
        label,
        "formats differ: {} and {}",
        s.format.wgsl_name(),
        d.format.wgsl_name()
    );
    // Vulkan copies between images of one type, or between 2D and 3D ones (a 2D array's
    // layers to a volume's slices and back) (VUID-vkCmdCopyImage-srcImage-07743).
    let (sd, dd) = (s.dimension, d.dimension);
    ensure!(
        sd == dd
            || matches!(
                (sd, dd),
                (TextureDimension::D2, TextureDimension::D3)
                    | (TextureDimension::D3, TextureDimension::D2)
            ),
        CopyDimension,
        OP,
        label,
        "a {sd:?} texture and a {dd:?} texture cannot be copied between; copies join textures of one dimension, or 2D and 3D ones"
    );
    texture_box(OP, s_label, s, s_at, size)?;
    texture_box(OP, d_label, d, d_at, size)?;
    // One extent serves both sides natively: a box that runs past one mip level's edge
    // (into its last blocks) must run as far past the other's.
    let inside = |t: &TextureDescriptorOwned, at: &TexelCopyTextureInfo| {
        let [mw, mh] = t.mip_size(at.mip_level);
        [
            size[0].min(mw.saturating_sub(at.origin[0])),
            size[1].min(mh.saturating_sub(at.origin[1])),
        ]
    };
    ensure!(
        !s.format.is_compressed() || inside(s, s_at) == inside(d, d_at),
        CopyBlock,
        OP,
        label,
        "the {}x{} box covers {:?} texels of the source's mip level {} but {:?} of the destination's {}",
        size[0],
        size[1],
        inside(s, s_at),
        s_at.mip_level,
        inside(d, d_at),
        d_at.mip_level
    );
    Ok(())
}

/// A query resolve of `count` queries from `first` of a set into a buffer at `offset`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(
    label: &str,
    set: &str,
    set_count: u32,
    (first, count, per): (u32, u32, u64),
    b: super::buffer::Facts<'_>,
    offset: u64,
) -> Result<()> {
    const OP: &str = "resolve_query_set";
    super::encoder::queries(OP, label, set, set_count, first, count)?;
    ensure!(
        b.usage.contains(BufferUsages::QUERY_RESOLVE),
        QueryResolveUsage,
        OP,
        label,
        "buffer '{}' lacks QUERY_RESOLVE usage ({:?})",
        b.label,
        b.usage
    );
    ensure!(
        offset % QUERY_RESOLVE_ALIGNMENT == 0,
        QueryResolveAlignment,
        OP,
        label,
        "resolve offset {offset} is not a multiple of {QUERY_RESOLVE_ALIGNMENT}"
    );
    super::buffer::range(
        OP,
        label,
        "resolve",
        offset,
        u64::from(count).saturating_mul(per),
        b.size,
    )
}
