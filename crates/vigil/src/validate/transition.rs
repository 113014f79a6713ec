//! Resource transitions recorded ahead of the uses they prepare
//! ([`crate::CommandEncoder::transition_resources`]).

use super::{ensure, inside};
use crate::error::Result;
use crate::texture::TextureDescriptorOwned;
use vigil_hal::{Access, Stages, TextureLayout, TextureUsages};

/// The stages one access can happen in; `None` for accesses no transition names.
fn stages_of(access: Access) -> Option<Stages> {
    let shaders = Stages::VERTEX_SHADER | Stages::FRAGMENT_SHADER | Stages::COMPUTE;
    Some(match access {
        Access::INDIRECT_READ => Stages::DRAW_INDIRECT,
        Access::INDEX_READ | Access::VERTEX_READ => Stages::VERTEX_INPUT,
        Access::UNIFORM_READ | Access::SHADER_READ | Access::SHADER_WRITE => shaders,
        Access::COLOR_READ | Access::COLOR_WRITE => Stages::COLOR_ATTACHMENT,
        Access::DEPTH_STENCIL_READ | Access::DEPTH_STENCIL_WRITE => Stages::DEPTH_STENCIL,
        Access::TRANSFER_READ | Access::TRANSFER_WRITE => Stages::TRANSFER,
        _ => return None,
    })
}

/// A transition's stages and accesses: at least one stage, only the stages of commands
/// (no host, no "all commands"), and each access in one of them.
pub(crate) fn scope(op: &'static str, label: &str, stages: Stages, access: Access) -> Result<()> {
    let commands = Stages::ALL_GRAPHICS | Stages::COMPUTE | Stages::TRANSFER;
    ensure!(
        !stages.is_empty() && commands.contains(stages),
        TransitionStages,
        op,
        label,
        "stages {stages:?}: a transition names at least one stage of commands (not HOST or ALL_COMMANDS)"
    );
    for one in access.iter() {
        let allowed = stages_of(one);
        ensure!(
            allowed.is_some_and(|a| a.intersects(stages)),
            TransitionStages,
            op,
            label,
            "access {one:?} happens in none of the stages {stages:?}{}",
            match allowed {
                Some(a) => format!(" (it belongs to {a:?})"),
                None => " (host accesses are not transitioned)".to_owned(),
            }
        );
    }
    Ok(())
}

/// A texture transition's layout and subresources.
#[allow(clippy::too_many_arguments)]
pub(crate) fn texture(
    op: &'static str,
    label: &str,
    texture: &str,
    desc: &TextureDescriptorOwned,
    layout: TextureLayout,
    base_mip: u32,
    mips: u32,
    base_layer: u32,
    layers: u32,
) -> Result<()> {
    let depth = desc.format.is_depth_stencil();
    let (allowed, needs) = match layout {
        TextureLayout::General => (true, ""),
        TextureLayout::ShaderReadOnly => (
            desc.usage.contains(TextureUsages::TEXTURE_BINDING),
            "TEXTURE_BINDING usage",
        ),
        TextureLayout::ColorAttachment => (
            desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && !depth,
            "RENDER_ATTACHMENT usage and a color format",
        ),
        TextureLayout::DepthStencilAttachment => (
            desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && depth,
            "RENDER_ATTACHMENT usage and a depth format",
        ),
        TextureLayout::TransferSrc => (
            desc.usage.contains(TextureUsages::COPY_SRC),
            "COPY_SRC usage",
        ),
        TextureLayout::TransferDst => (
            desc.usage.contains(TextureUsages::COPY_DST),
            "COPY_DST usage",
        ),
        TextureLayout::Undefined | TextureLayout::Present => {
            (false, "nothing: it is never a transition's target")
        }
    };
    ensure!(
        allowed,
        TransitionLayout,
        op,
        label,
        "texture '{texture}' ({:?}, usage {:?}) cannot be put in layout {layout:?}: it needs {needs}",
        desc.format,
        desc.usage
    );
    ensure!(
        mips > 0
            && inside(
                u64::from(base_mip),
                u64::from(mips),
                u64::from(desc.mip_level_count)
            ),
        ViewMipRange,
        op,
        label,
        "mip levels {base_mip}..+{mips} of texture '{texture}', which has {}",
        desc.mip_level_count
    );
    ensure!(
        layers > 0
            && inside(
                u64::from(base_layer),
                u64::from(layers),
                u64::from(desc.layers())
            ),
        ViewLayerRange,
        op,
        label,
        "layers {base_layer}..+{layers} of texture '{texture}', which has {}",
        desc.layers()
    );
    Ok(())
}
