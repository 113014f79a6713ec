//! Pipeline caches: compiled pipelines the driver keeps, saved as bytes so that a later run
//! of the application creates the same pipelines faster (wgpu's `PipelineCache`).

use super::{Device, PipelineCacheObj};
use crate::error::Result;
use crate::handle::{Handle, PipelineCache};
use crate::native::Owned;
use crate::validate;
use vigil_hal::Api;

/// How to create a pipeline cache (wgpu's `PipelineCacheDescriptor`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PipelineCacheDescriptor<'a> {
    /// Label.
    pub label: &'a str,
    /// What an earlier [`Device::pipeline_cache_data`] returned (read back from a file, for
    /// instance), or `None` for an empty cache. Data of another device or driver, of
    /// another format, cut short or damaged is refused (`pipeline-cache.data`), or with
    /// `fallback` replaced by an empty cache.
    pub data: Option<&'a [u8]>,
    /// An empty cache in place of data that cannot be used, instead of a refusal: what an
    /// application that loads its cache at start wants after a driver update.
    pub fallback: bool,
}

impl<A: Api> Device<A> {
    /// Creates a pipeline cache, empty or holding `desc.data`. Pipelines created with it
    /// ([`crate::ComputePipelineDescriptor::cache`], [`crate::RenderPipelineDescriptor::cache`])
    /// are looked up in it and added to it; [`Device::pipeline_cache_data`] gives its
    /// contents back as bytes to save. The data is checked before the driver sees it: it
    /// must be what vigil wrote on a device and driver of the same identity, with its length
    /// and checksum intact. A cache may be used by several threads at once.
    pub fn create_pipeline_cache(
        &self,
        desc: &PipelineCacheDescriptor<'_>,
    ) -> Result<PipelineCache> {
        const OP: &str = "create_pipeline_cache";
        let _span = crate::timeline::CpuSpan::new(&self.timeline, "create", OP, desc.label);
        self.check_alive(OP)?;
        let body = match desc.data {
            None => &[][..],
            Some(data) => {
                match validate::pipeline_cache::body(
                    desc.label,
                    data,
                    &self.hal.pipeline_cache_key(),
                ) {
                    Ok(body) => body,
                    Err(_) if desc.fallback => &[][..],
                    Err(e) => return Err(e),
                }
            }
        };
        let raw = self
            .hal
            .create_pipeline_cache(desc.label, body)
            .map_err(|e| self.hal_error(e, OP, desc.label))?;
        let raw = Owned::new(&self.hal, raw);
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .pipeline_caches
            .insert(|index, generation| PipelineCacheObj {
                raw,
                handle: PipelineCache::from_parts(index, generation, id),
                label: crate::label::Label::new(desc.label),
            })
            .ok_or_else(|| super::buffer::registry_full(OP, desc.label, "pipeline cache"))?;
        self.notify_created("pipeline cache", desc.label);
        Ok(obj.handle)
    }

    /// What `cache` holds, as bytes to save and give to a later
    /// [`Device::create_pipeline_cache`] (on this device and driver; see
    /// [`PipelineCacheDescriptor::data`]). The driver's data, framed by vigil with the
    /// device's identity, its length and a checksum.
    pub fn pipeline_cache_data(&self, cache: PipelineCache) -> Result<Vec<u8>> {
        const OP: &str = "pipeline_cache_data";
        self.check_alive(OP)?;
        let c = self.lookup(cache, OP)?;
        let body = self
            .hal
            .pipeline_cache_data(&c.raw)
            .map_err(|e| self.hal_error(e, OP, &c.label))?;
        Ok(validate::pipeline_cache::frame(
            &self.hal.pipeline_cache_key(),
            &body,
        ))
    }

    /// The cache a pipeline descriptor names, held while the pipeline is created (a
    /// destroyed, null or foreign handle refused as any other).
    pub(crate) fn pipeline_cache_of(
        &self,
        cache: Option<PipelineCache>,
        op: &'static str,
    ) -> Result<Option<std::sync::Arc<PipelineCacheObj<A>>>> {
        cache.map(|c| self.lookup(c, op)).transpose()
    }

    /// Destroys a pipeline cache (pipelines created with it keep working).
    pub fn destroy_pipeline_cache(&self, cache: PipelineCache) -> Result<()> {
        drop(self.remove(cache, "destroy_pipeline_cache")?);
        Ok(())
    }
}
