//! Shared set-up of the integration tests: a real Vulkan device with the Khronos
//! validation layer on; any message from the layer fails the test that produced it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod heaps;

use std::sync::Arc;
use vigil::{
    Device, DeviceDescriptor, Features, Instance, InstanceDescriptor, Validation, ValidationLog,
};

/// A device whose validation log is checked when it goes away.
pub struct Gpu {
    device: Option<Device>,
    log: Arc<ValidationLog>,
}

impl std::ops::Deref for Gpu {
    type Target = Device;
    fn deref(&self) -> &Device {
        self.device.as_ref().expect("device present until drop")
    }
}

/// Features the tests use when the adapter has them.
pub const WANTED: Features = Features::TIMESTAMP_QUERY
    .union(Features::FULL_DRAW_INDEX_UINT32)
    .union(Features::INDIRECT_FIRST_INSTANCE)
    .union(Features::SAMPLER_ANISOTROPY)
    .union(Features::TEXTURE_FORMAT_16BIT_NORM)
    .union(Features::DEPTH32FLOAT_STENCIL8)
    .union(Features::FLOAT32_FILTERABLE)
    .union(Features::ADDRESS_MODE_CLAMP_TO_BORDER)
    .union(Features::ADDRESS_MODE_CLAMP_TO_ZERO)
    .union(Features::RG11B10UFLOAT_RENDERABLE)
    .union(Features::FLOAT32_BLENDABLE)
    .union(Features::BGRA8UNORM_STORAGE)
    .union(Features::TEXTURE_ATOMIC);

/// Opens the default adapter (or `VIGIL_ADAPTER`) with validation on.
pub fn gpu() -> Gpu {
    gpu_with(|adapter| DeviceDescriptor {
        label: "test device".into(),
        required_features: adapter.features() & WANTED,
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    })
}

/// Opens a device with exactly `features` (and the adapter's limits), validation on; the
/// adapter must have them (lavapipe with Mesa 25 and the H200 have every feature the tests
/// ask for this way): a test does not skip.
pub fn gpu_requiring(features: Features, label: &str) -> Gpu {
    gpu_with(|adapter| {
        assert!(
            adapter.features().contains(features),
            "{label}: the adapter lacks {:?}: {:?}",
            features - adapter.features(),
            adapter.info()
        );
        DeviceDescriptor {
            label: label.into(),
            required_features: features,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        }
    })
}

/// Opens a device with a custom descriptor, validation on.
pub fn gpu_with(desc: impl FnOnce(&vigil::Adapter) -> DeviceDescriptor) -> Gpu {
    let instance = Instance::new(&InstanceDescriptor {
        app_name: "vigil tests".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .expect("a Vulkan instance with the Khronos validation layer (run `cargo xtask setup`)");
    let adapter = instance.default_adapter().expect("a Vulkan adapter");
    let log = instance.validation_log().expect("validation is on");
    let device = adapter.request_device(&desc(&adapter)).expect("device");
    Gpu {
        device: Some(device),
        log,
    }
}

impl Gpu {
    /// Messages so far (for tests that look before drop).
    pub fn validation_messages(&self) -> u64 {
        self.log.count()
    }

    /// Drops the device now and checks the log.
    pub fn finish(mut self) {
        self.check();
    }

    fn check(&mut self) {
        drop(self.device.take());
        if self.log.count() > 0 && !std::thread::panicking() {
            let messages: Vec<String> = self
                .log
                .messages()
                .iter()
                .map(ToString::to_string)
                .collect();
            panic!(
                "the validation layer reported {} message(s):\n{}",
                self.log.count(),
                messages.join("\n")
            );
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.check();
    }
}

/// Reads a buffer back as u32 words.
pub fn read_u32(device: &Device, buffer: vigil::Buffer, count: usize) -> Vec<u32> {
    let bytes = device
        .read_buffer(buffer, 0, count as u64 * 4)
        .expect("readback");
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Bytes of a u32 slice.
pub fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A compute kernel (entry `main`) reading storage buffer binding 0 and writing binding 1:
/// its pipeline and the layout of its one group.
pub fn src_dst_kernel(
    device: &Device,
    label: &str,
    wgsl: &str,
) -> (vigil::ComputePipeline, vigil::BindGroupLayout) {
    src_dst_kernel_with(device, label, wgsl, &[]).unwrap()
}

/// A `src_dst_kernel` whose pipeline fixes override `constants`; a refusal of the module
/// or the pipeline is returned as is.
pub fn src_dst_kernel_with(
    device: &Device,
    label: &str,
    wgsl: &str,
    constants: &[(&str, f64)],
) -> vigil::Result<(vigil::ComputePipeline, vigil::BindGroupLayout)> {
    let e = |binding, read_only| compute_entry(binding, storage_buffer(read_only));
    kernel_with_group(device, label, wgsl, &[e(0, true), e(1, false)], constants)
}

/// A compute-visible layout entry of `ty` at `binding`.
pub fn compute_entry(binding: u32, ty: vigil::BindingType) -> vigil::BindGroupLayoutEntry {
    vigil::BindGroupLayoutEntry {
        binding,
        visibility: vigil::ShaderStages::COMPUTE,
        ty,
        array: None,
    }
}

/// A storage buffer binding type (`read_only` or read-write), no dynamic offset.
pub fn storage_buffer(read_only: bool) -> vigil::BindingType {
    vigil::BindingType::Buffer {
        ty: vigil::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

/// A compute kernel (entry `main`) whose one group has `entries`: its pipeline and the
/// group's layout; a refusal of the module or the pipeline is returned as is.
pub fn kernel_with_group(
    device: &Device,
    label: &str,
    wgsl: &str,
    entries: &[vigil::BindGroupLayoutEntry],
    constants: &[(&str, f64)],
) -> vigil::Result<(vigil::ComputePipeline, vigil::BindGroupLayout)> {
    kernel_with_immediates(device, label, wgsl, entries, constants, 0)
}

/// A [`kernel_with_group`] whose pipeline layout holds `immediate_size` bytes of
/// immediate data.
pub fn kernel_with_immediates(
    device: &Device,
    label: &str,
    wgsl: &str,
    entries: &[vigil::BindGroupLayoutEntry],
    constants: &[(&str, f64)],
    immediate_size: u32,
) -> vigil::Result<(vigil::ComputePipeline, vigil::BindGroupLayout)> {
    use vigil::*;
    let module = device.create_shader_module(&ShaderModuleDescriptor { label, wgsl })?;
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor { label, entries })
        .unwrap();
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label,
            bind_group_layouts: &[bgl],
            immediate_size,
        })
        .unwrap();
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label,
        layout,
        module,
        entry_point: "main",
        constants,
        cache: None,
    })?;
    Ok((pipeline, bgl))
}

/// A compute kernel (entry `main`) whose one group is a read-write storage buffer at
/// binding 0, its layout holding `immediate_size` bytes of immediate data: its pipeline,
/// and a group (labelled `label`) binding the whole of `buffer`.
pub fn storage_kernel(
    device: &Device,
    label: &str,
    wgsl: &str,
    immediate_size: u32,
    buffer: vigil::Buffer,
) -> (vigil::ComputePipeline, vigil::BindGroup) {
    use vigil::*;
    let entries = [compute_entry(0, storage_buffer(false))];
    let (pipeline, bgl) =
        kernel_with_immediates(device, label, wgsl, &entries, &[], immediate_size).unwrap();
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label,
            layout: bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding::whole(buffer)),
            }],
        })
        .unwrap();
    (pipeline, group)
}

/// A group for a `src_dst_kernel`: `src` at binding 0, `dst` at binding 1.
pub fn src_dst_group(
    device: &Device,
    bgl: vigil::BindGroupLayout,
    src: vigil::Buffer,
    dst: vigil::Buffer,
) -> vigil::BindGroup {
    use vigil::*;
    let whole = |binding, b| BindGroupEntry {
        binding,
        resource: BindingResource::Buffer(BufferBinding::whole(b)),
    };
    device
        .create_bind_group(&BindGroupDescriptor {
            label: "src dst",
            layout: bgl,
            entries: &[whole(0, src), whole(1, dst)],
        })
        .unwrap()
}

/// A bind group layout whose binding `i` is the type of `bindings[i]`, seen by
/// `visibility`, and a group of it giving binding `i` the resource of `bindings[i]`.
pub fn group_of(
    device: &Device,
    visibility: vigil::ShaderStages,
    bindings: &[(vigil::BindingType, vigil::BindingResource)],
) -> (vigil::BindGroupLayout, vigil::BindGroup) {
    use vigil::*;
    let entries: Vec<_> = bindings
        .iter()
        .zip(0u32..)
        .map(|(&(ty, _), binding)| BindGroupLayoutEntry {
            binding,
            visibility,
            ty,
            array: None,
        })
        .collect();
    let bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "test group",
            entries: &entries,
        })
        .unwrap();
    let entries: Vec<_> = bindings
        .iter()
        .zip(0u32..)
        .map(|(&(_, resource), binding)| BindGroupEntry { binding, resource })
        .collect();
    let group = device
        .create_bind_group(&BindGroupDescriptor {
            label: "test group",
            layout: bgl,
            entries: &entries,
        })
        .unwrap();
    (bgl, group)
}

/// Runs `with` through a fresh pipeline cache, then through a second cache made from the
/// data the first saved (as an application's next run would); returns both caches and the
/// saved data.
pub fn through_saved_cache(
    device: &Device,
    mut with: impl FnMut(vigil::PipelineCache),
) -> (vigil::PipelineCache, vigil::PipelineCache, Vec<u8>) {
    use vigil::*;
    let first = device
        .create_pipeline_cache(&PipelineCacheDescriptor {
            label: "first run",
            ..Default::default()
        })
        .unwrap();
    with(first);
    let saved = device.pipeline_cache_data(first).unwrap();
    let second = device
        .create_pipeline_cache(&PipelineCacheDescriptor {
            label: "second run",
            data: Some(&saved),
            fallback: false,
        })
        .unwrap();
    with(second);
    (first, second, saved)
}

/// A sampler filtering linearly (magnifying and minifying), clamped to the edge.
pub fn linear_sampler(device: &Device) -> vigil::Sampler {
    device
        .create_sampler(&vigil::SamplerDescriptor {
            label: "linear",
            mag_filter: vigil::FilterMode::Linear,
            min_filter: vigil::FilterMode::Linear,
            ..Default::default()
        })
        .unwrap()
}

/// Submits one compute pass of `wgsl`'s `main` over `groups` workgroups, with `group` (of
/// `bgl`, the pipeline's one group) bound.
pub fn dispatch_wgsl(
    device: &Device,
    wgsl: &str,
    bgl: vigil::BindGroupLayout,
    group: vigil::BindGroup,
    groups: [u32; 3],
) {
    use vigil::*;
    let layout = device
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "dispatch",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let module = device
        .create_shader_module(&ShaderModuleDescriptor {
            label: "dispatch",
            wgsl,
        })
        .unwrap();
    let pipeline = device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "dispatch",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    dispatch_group(device, pipeline, group, groups);
}

/// Submits one compute pass dispatching `pipeline` over `groups` workgroups with `group`
/// bound at index 0.
pub fn dispatch_group(
    device: &Device,
    pipeline: vigil::ComputePipeline,
    group: vigil::BindGroup,
    groups: [u32; 3],
) {
    use vigil::*;
    let mut e = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "dispatch" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(groups[0], groups[1], groups[2]).unwrap();
    e.end_compute_pass().unwrap();
    device.submit([e.finish().unwrap()]).unwrap();
}

/// Runs a `src_dst_kernel` once over `src` with `groups` workgroups, and reads back
/// `dst_words` words of its output (which starts zeroed).
pub fn run_src_dst(
    device: &Device,
    kernel: (vigil::ComputePipeline, vigil::BindGroupLayout),
    src: &[u32],
    dst_words: usize,
    groups: u32,
) -> Vec<u32> {
    use vigil::*;
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let a = device
        .create_buffer_init(&BufferInitDescriptor {
            label: "src",
            contents: &bytes_of(src),
            usage,
        })
        .unwrap();
    let b = device
        .create_buffer(&BufferDescriptor {
            label: "dst",
            size: dst_words as u64 * 4,
            usage,
        })
        .unwrap();
    let group = src_dst_group(device, kernel.1, a, b);
    dispatch_group(device, kernel.0, group, [groups, 1, 1]);
    read_u32(device, b, dst_words)
}

/// An RGBA8 render target of `size` that can be read back, and its view.
pub fn readable_target(d: &Device, size: [u32; 2]) -> (vigil::Texture, vigil::TextureView) {
    let target = d
        .create_texture(&vigil::TextureDescriptor {
            label: "target",
            size,
            format: vigil::TextureFormat::Rgba8Unorm,
            usage: vigil::TextureUsages::RENDER_ATTACHMENT | vigil::TextureUsages::COPY_SRC,
            ..vigil::TextureDescriptor::default()
        })
        .unwrap();
    let view = d
        .create_texture_view(target, &vigil::TextureViewDescriptor::default())
        .unwrap();
    (target, view)
}

/// A color attachment that keeps what `view` holds (loaded and stored).
pub fn loaded(view: vigil::TextureView) -> vigil::RenderPassColorAttachment {
    vigil::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        load: vigil::LoadOp::Load,
        store: vigil::StoreOp::Store,
    }
}

/// An encoder with a render pass open on `view`, cleared to `clear` and stored.
pub fn clear_pass(
    d: &Device,
    label: &'static str,
    view: vigil::TextureView,
    clear: [f64; 4],
) -> vigil::CommandEncoder {
    let mut e = d
        .create_command_encoder(&vigil::CommandEncoderDescriptor { label })
        .unwrap();
    e.begin_render_pass(&vigil::RenderPassDescriptor {
        label,
        color_attachments: &[Some(vigil::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: vigil::LoadOp::Clear(clear),
            store: vigil::StoreOp::Store,
        })],
        ..vigil::RenderPassDescriptor::default()
    })
    .unwrap();
    e
}

/// Submissions held back at times by a seeded model test: paused and resumed in turn,
/// resumed after three held submissions (a GPU held back for long looks stalled) and
/// before anything is read back.
#[cfg(feature = "test-seams")]
#[derive(Default)]
pub struct Pauses {
    paused: bool,
    held: u32,
}

#[cfg(feature = "test-seams")]
impl Pauses {
    /// After a submission: resumes once three were held.
    pub fn submitted(&mut self, device: &Device) {
        if self.paused {
            self.held += 1;
            if self.held == 3 {
                self.resume(device);
            }
        }
    }

    /// Pauses submissions if they run, resumes them if paused; `log` says which.
    pub fn toggle(&mut self, device: &Device, log: &mut Vec<String>) {
        if self.paused {
            device.seams().resume_submissions().unwrap();
        } else {
            device.seams().pause_submissions().unwrap();
            self.held = 0;
        }
        self.paused = !self.paused;
        log.push(format!("paused {}", self.paused));
    }

    /// Resumes submissions if paused (before a read back).
    pub fn resume(&mut self, device: &Device) {
        if self.paused {
            device.seams().resume_submissions().unwrap();
            self.paused = false;
        }
    }
}
