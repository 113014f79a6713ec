//! Deferred release: a destroyed object's native object goes once the last submission that
//! used it has completed and no live object retains it; releasing it lets go of what it
//! retains in turn.

use super::{Device, DeviceState};
use vigil_hal::Api;

/// A destroyed object waiting to be released, by kind and slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retained {
    Buffer(u32),
    Texture(u32),
    View(u32),
    Sampler(u32),
    QuerySet(u32),
    BindGroupLayout(u32),
    BindGroup(u32),
    PipelineLayout(u32),
    ShaderModule(u32),
    ComputePipeline(u32),
    RenderPipeline(u32),
}

macro_rules! registry_of {
    ($st:expr, $item:expr, |$reg:ident, $i:ident| $body:expr) => {
        match $item {
            Retained::Buffer($i) => {
                let $reg = &mut $st.buffers;
                $body
            }
            Retained::Texture($i) => {
                let $reg = &mut $st.textures;
                $body
            }
            Retained::View($i) => {
                let $reg = &mut $st.views;
                $body
            }
            Retained::Sampler($i) => {
                let $reg = &mut $st.samplers;
                $body
            }
            Retained::QuerySet($i) => {
                let $reg = &mut $st.query_sets;
                $body
            }
            Retained::BindGroupLayout($i) => {
                let $reg = &mut $st.bind_group_layouts;
                $body
            }
            Retained::BindGroup($i) => {
                let $reg = &mut $st.bind_groups;
                $body
            }
            Retained::PipelineLayout($i) => {
                let $reg = &mut $st.pipeline_layouts;
                $body
            }
            Retained::ShaderModule($i) => {
                let $reg = &mut $st.shader_modules;
                $body
            }
            Retained::ComputePipeline($i) => {
                let $reg = &mut $st.compute_pipelines;
                $body
            }
            Retained::RenderPipeline($i) => {
                let $reg = &mut $st.render_pipelines;
                $body
            }
        }
    };
}

impl<A: Api> DeviceState<A> {
    fn releasable(&mut self, item: Retained, completed: u64) -> bool {
        let oldest_open = self.recordings.oldest_open();
        registry_of!(self, item, |r, i| r.releasable(i, completed, oldest_open))
    }

    /// Adds one retainer to an object.
    pub(crate) fn retain(&mut self, item: Retained) {
        registry_of!(self, item, |r, i| if let Some(s) = r.slot_mut(i) {
            s.refs = s.refs.saturating_add(1);
        })
    }

    fn unretain(&mut self, item: Retained) {
        registry_of!(self, item, |r, i| if let Some(s) = r.slot_mut(i) {
            s.refs = s.refs.saturating_sub(1);
        })
    }
}

impl<A: Api> Device<A> {
    /// Marks a destroyed object for release and releases it now if nothing holds it.
    pub(crate) fn retire(&self, st: &mut DeviceState<A>, item: Retained) {
        st.destroy_epoch = st.destroy_epoch.wrapping_add(1);
        if let Retained::BindGroup(i) = item {
            // Command buffers do not stamp the groups they use (there can be thousands);
            // a destroyed group waits for everything submitted so far instead.
            if let Some(s) = st.bind_groups.slot_mut(i) {
                s.last_use = s.last_use.max(self.last_submitted.get());
            }
        }
        registry_of!(st, item, |r, i| r.retire(i));
        let hold = st.recordings.hold_for_destroy();
        registry_of!(st, item, |r, i| if let Some(s) = r.slot_mut(i) {
            s.hold = hold;
        });
        let completed = self.completion.completed();
        if st.releasable(item, completed) {
            self.release_cascade(st, item, completed);
        } else {
            st.retiring.push(item);
        }
    }

    /// Releases every retiring object that can go at serial `completed`.
    pub(crate) fn release_retired(&self, st: &mut DeviceState<A>, completed: u64) {
        if st.retiring.is_empty() {
            return;
        }
        loop {
            let mut released_any = false;
            let mut i = 0;
            while i < st.retiring.len() {
                let item = st.retiring[i];
                if st.releasable(item, completed) {
                    st.retiring.swap_remove(i);
                    self.release_cascade(st, item, completed);
                    released_any = true;
                } else {
                    i = i.saturating_add(1);
                }
            }
            if !released_any {
                break;
            }
        }
    }

    /// Releases `item` and anything it alone kept alive.
    fn release_cascade(&self, st: &mut DeviceState<A>, item: Retained, completed: u64) {
        let mut work = vec![item];
        while let Some(item) = work.pop() {
            for child in self.release_one(st, item) {
                st.unretain(child);
                if st.releasable(child, completed) {
                    if let Some(pos) = st.retiring.iter().position(|r| *r == child) {
                        st.retiring.swap_remove(pos);
                    }
                    work.push(child);
                }
            }
        }
    }

    /// Destroys the native object of a releasable slot; returns what it retained.
    fn release_one(&self, st: &mut DeviceState<A>, item: Retained) -> Vec<Retained> {
        let h = &self.hal;
        match item {
            Retained::Buffer(i) => {
                if let Some(o) = st.buffers.release(i) {
                    h.destroy_buffer(o.raw);
                }
                Vec::new()
            }
            Retained::Texture(i) => {
                if let Some(o) = st.textures.release(i) {
                    h.destroy_texture(o.raw);
                }
                Vec::new()
            }
            Retained::View(i) => match st.views.release(i) {
                Some(o) => {
                    h.destroy_texture_view(o.raw);
                    vec![Retained::Texture(o.texture.0)]
                }
                None => Vec::new(),
            },
            Retained::Sampler(i) => {
                if let Some(o) = st.samplers.release(i) {
                    h.destroy_sampler(o.raw);
                }
                Vec::new()
            }
            Retained::QuerySet(i) => {
                if let Some(o) = st.query_sets.release(i) {
                    h.destroy_query_set(o.raw);
                }
                Vec::new()
            }
            Retained::BindGroupLayout(i) => {
                if let Some(o) = st.bind_group_layouts.release(i) {
                    h.destroy_bind_group_layout(o.raw);
                }
                Vec::new()
            }
            Retained::BindGroup(i) => match st.bind_groups.release(i) {
                Some(o) => {
                    h.destroy_bind_group(o.raw);
                    let mut out: Vec<Retained> = o
                        .uses
                        .iter()
                        .map(|u| match u.member {
                            super::Member::Buffer(i, _) => Retained::Buffer(i),
                            super::Member::View(i, _) => Retained::View(i),
                            super::Member::Sampler(i, _) => Retained::Sampler(i),
                        })
                        .collect();
                    out.push(Retained::BindGroupLayout(crate::Handle::index(&o.layout)));
                    out
                }
                None => Vec::new(),
            },
            Retained::PipelineLayout(i) => match st.pipeline_layouts.release(i) {
                Some(o) => {
                    h.destroy_pipeline_layout(o.raw);
                    o.groups
                        .iter()
                        .map(|g| Retained::BindGroupLayout(crate::Handle::index(g)))
                        .collect()
                }
                None => Vec::new(),
            },
            Retained::ShaderModule(i) => {
                if let Some(o) = st.shader_modules.release(i) {
                    h.destroy_shader_module(o.raw);
                }
                Vec::new()
            }
            Retained::ComputePipeline(i) => match st.compute_pipelines.release(i) {
                Some(o) => {
                    h.destroy_compute_pipeline(o.raw);
                    vec![Retained::PipelineLayout(o.info.layout.0)]
                }
                None => Vec::new(),
            },
            Retained::RenderPipeline(i) => match st.render_pipelines.release(i) {
                Some(o) => {
                    h.destroy_render_pipeline(o.raw);
                    vec![Retained::PipelineLayout(o.info.layout.0)]
                }
                None => Vec::new(),
            },
        }
    }

    /// Releases every native object the device still holds (after its work drained).
    pub(crate) fn release_everything(&self, st: &mut DeviceState<A>) {
        let h = &self.hal;
        for o in st.bind_groups.drain() {
            h.destroy_bind_group(o.raw);
        }
        for o in st.compute_pipelines.drain() {
            h.destroy_compute_pipeline(o.raw);
        }
        for o in st.render_pipelines.drain() {
            h.destroy_render_pipeline(o.raw);
        }
        for o in st.pipeline_layouts.drain() {
            h.destroy_pipeline_layout(o.raw);
        }
        for o in st.bind_group_layouts.drain() {
            h.destroy_bind_group_layout(o.raw);
        }
        for o in st.shader_modules.drain() {
            h.destroy_shader_module(o.raw);
        }
        for o in st.views.drain() {
            h.destroy_texture_view(o.raw);
        }
        for o in st.textures.drain() {
            h.destroy_texture(o.raw);
        }
        for o in st.samplers.drain() {
            h.destroy_sampler(o.raw);
        }
        for o in st.query_sets.drain() {
            h.destroy_query_set(o.raw);
        }
        for o in st.buffers.drain() {
            h.destroy_buffer(o.raw);
        }
        st.retiring.clear();
    }
}
