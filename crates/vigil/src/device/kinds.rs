//! One entry per kind of object: its handle type, its object type, its registry, and the
//! name diagnostics use. Everything that needs "every kind" (the registries, live counts,
//! teardown) is generated from the list below, so a new kind is one line here plus its
//! object type.

use super::objects::*;
use crate::encoder::RenderBundleObj;
use crate::handle::*;
use crate::registry::Registry;
use vigil_hal::Api;

/// A handle type and the object it names.
pub(crate) trait Kind<A: Api>: Handle {
    /// The object.
    type Obj;
    /// The registry of such objects.
    fn registry(r: &Registries<A>) -> &Registry<Self::Obj>;
}

macro_rules! kinds {
    ($($field:ident: $handle:ident => $obj:ident, $name:literal;)*) => {
        /// Every registry of a device.
        pub(crate) struct Registries<A: Api> {
            $(pub $field: Registry<$obj<A>>,)*
        }

        impl<A: Api> Default for Registries<A> {
            fn default() -> Self {
                Registries { $($field: Registry::default(),)* }
            }
        }

        impl<A: Api> Registries<A> {
            /// Objects currently live per kind, for diagnostics: `(kind, count)`.
            pub fn live_counts(&self) -> Vec<(&'static str, usize)> {
                vec![$(($name, self.$field.live_count()),)*]
            }

            /// Takes every live object out of every registry (teardown); dropping the
            /// result releases whatever nothing else holds.
            pub fn drain(&self) -> Drained<A> {
                Drained { $($field: self.$field.drain(),)* }
            }
        }

        /// Objects taken out at teardown, held until dropped.
        #[allow(dead_code)]
        pub(crate) struct Drained<A: Api> {
            $($field: Vec<std::sync::Arc<$obj<A>>>,)*
        }

        $(
            impl<A: Api> Kind<A> for $handle {
                type Obj = $obj<A>;
                #[inline]
                fn registry(r: &Registries<A>) -> &Registry<$obj<A>> {
                    &r.$field
                }
            }
        )*
    };
}

kinds! {
    // Dropped in this order at teardown: what retains comes before what it retains.
    render_bundles: RenderBundle => RenderBundleObj, "render bundles";
    surfaces: Surface => SurfaceObj, "surfaces";
    mappings: BufferMapping => MappingObj, "buffer mappings";
    bind_groups: BindGroup => BindGroupObj, "bind groups";
    tlas: Tlas => TlasObj, "top-level acceleration structures";
    blas: Blas => BlasObj, "bottom-level acceleration structures";
    gpu_heaps: GpuHeap => GpuHeapObj, "GPU heaps";
    texture_heaps: TextureHeap => TextureHeapObj, "texture heaps";
    sampler_heaps: SamplerHeap => SamplerHeapObj, "sampler heaps";
    bind_group_pools: BindGroupPool => BindGroupPoolObj, "bind group pools";
    compute_pipelines: ComputePipeline => ComputePipelineObj, "compute pipelines";
    render_pipelines: RenderPipeline => RenderPipelineObj, "render pipelines";
    pipeline_caches: PipelineCache => PipelineCacheObj, "pipeline caches";
    pipeline_layouts: PipelineLayout => PipelineLayoutObj, "pipeline layouts";
    bind_group_layouts: BindGroupLayout => BindGroupLayoutObj, "bind group layouts";
    shader_modules: ShaderModule => ShaderModuleObj, "shader modules";
    views: TextureView => ViewObj, "texture views";
    textures: Texture => TextureObj, "textures";
    placement_heaps: PlacementHeap => PlacementHeapObj, "placement heaps";
    samplers: Sampler => SamplerObj, "samplers";
    query_sets: QuerySet => QuerySetObj, "query sets";
    buffers: Buffer => BufferObj, "buffers";
}
