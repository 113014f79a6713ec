//! Helpers for validation-rule tests on the deterministic test backend (no GPU).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil::*;

pub type TDevice = Device<TestApi>;

/// A test-backend device with the given features and the adapter's limits.
pub fn device_with(features: Features) -> TDevice {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    adapter
        .request_device(&DeviceDescriptor {
            label: "rules".into(),
            required_features: features,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap()
}

/// A test-backend device with default features.
pub fn device() -> TDevice {
    device_with(Features::TIMESTAMP_QUERY)
}

/// Asserts `r` was refused for breaking `rule` (and so with the rule's kind).
#[track_caller]
pub fn expect_rule<T: std::fmt::Debug>(r: Result<T>, rule: Rule) -> Error {
    match r {
        Ok(v) => panic!("expected {} ({rule:?}), got Ok({v:?})", rule.code()),
        Err(e) => {
            assert_eq!(e.rule(), rule, "wrong rule: {e}");
            assert_eq!(e.kind(), rule.kind());
            e
        }
    }
}

pub fn buffer(d: &TDevice, label: &str, size: u64, usage: BufferUsages) -> Buffer {
    d.create_buffer(&BufferDescriptor { label, size, usage })
        .unwrap()
}

pub fn storage(d: &TDevice, size: u64) -> Buffer {
    buffer(
        d,
        "storage",
        size,
        BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
    )
}

pub fn entry(binding: u32, visibility: ShaderStages, ty: BindingType) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        array: None,
    }
}

pub fn buf_ty(ty: BufferBindingType, dynamic: bool) -> BindingType {
    BindingType::Buffer {
        ty,
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    }
}

pub const RW: BufferBindingType = BufferBindingType::Storage { read_only: false };
pub const RO: BufferBindingType = BufferBindingType::Storage { read_only: true };
pub const UNIFORM: BufferBindingType = BufferBindingType::Uniform;

pub fn layout(d: &TDevice, entries: &[BindGroupLayoutEntry]) -> BindGroupLayout {
    d.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: "layout",
        entries,
    })
    .unwrap()
}

pub fn whole(b: Buffer) -> BindingResource<'static> {
    BindingResource::Buffer(BufferBinding::whole(b))
}

pub fn group(
    d: &TDevice,
    layout: BindGroupLayout,
    entries: &[(u32, BindingResource<'_>)],
) -> Result<BindGroup> {
    let entries: Vec<_> = entries
        .iter()
        .map(|&(binding, resource)| BindGroupEntry { binding, resource })
        .collect();
    d.create_bind_group(&BindGroupDescriptor {
        label: "group",
        layout,
        entries: &entries,
    })
}

/// `dst[i] = src[i] + 1` over read-only `src` (binding 0) and read-write `dst` (binding 1).
pub const COPY_KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&dst) { dst[id.x] = src[id.x] + 1u; }
}
"#;

/// The pieces of a compute setup for the copy kernel.
pub struct CopyKernel {
    pub bgl: BindGroupLayout,
    pub layout: PipelineLayout,
    pub pipeline: ComputePipeline,
}

pub fn copy_kernel(d: &TDevice) -> CopyKernel {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "copy",
            wgsl: COPY_KERNEL,
        })
        .unwrap();
    let bgl = layout(
        d,
        &[
            entry(0, ShaderStages::COMPUTE, buf_ty(RO, false)),
            entry(1, ShaderStages::COMPUTE, buf_ty(RW, false)),
        ],
    );
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "copy",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "copy",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    CopyKernel {
        bgl,
        layout: pl,
        pipeline,
    }
}

pub fn encoder(d: &TDevice) -> CommandEncoder<TestApi> {
    d.create_command_encoder(&CommandEncoderDescriptor { label: "enc" })
        .unwrap()
}

/// The view of a `size` RGBA8 render target.
pub fn target_view(d: &TDevice, size: [u32; 2]) -> TextureView {
    let t = d
        .create_texture(&TextureDescriptor {
            label: "target",
            size,
            format: TextureFormat::Rgba8Unorm,
            usage: TextureUsages::RENDER_ATTACHMENT,
            ..Default::default()
        })
        .unwrap();
    d.create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap()
}

/// Opens a render pass on `view`, cleared and stored.
pub fn begin_pass(e: &mut CommandEncoder<TestApi>, view: TextureView) {
    try_begin_pass(e, view, "pass", None).unwrap();
}

/// A color attachment that keeps what `view` holds (loaded and stored).
pub fn loaded(view: TextureView) -> RenderPassColorAttachment {
    RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        load: LoadOp::Load,
        store: StoreOp::Store,
    }
}

/// Begins a render pass labelled `label` on `view`, cleared and stored, counting occlusion
/// into `occlusion` when given.
pub fn try_begin_pass(
    e: &mut CommandEncoder<TestApi>,
    view: TextureView,
    label: &str,
    occlusion: Option<QuerySet>,
) -> Result<()> {
    e.begin_render_pass(&RenderPassDescriptor {
        label,
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0; 4]),
            store: StoreOp::Store,
        })],
        occlusion_query_set: occlusion,
        ..Default::default()
    })
}

pub fn compute_pass(e: &mut CommandEncoder<TestApi>) {
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
}

/// Commands of the last submission that reached the test backend.
pub fn last_commands(d: &TDevice) -> Vec<vigil::hal_test::TestCommand> {
    d.test_backend().submitted_commands().pop().unwrap().1
}

/// Whether a command is a barrier of any kind.
pub fn is_barrier(c: &vigil::hal_test::TestCommand) -> bool {
    use vigil::hal_test::TestCommand;
    matches!(
        c,
        TestCommand::Barrier(_)
            | TestCommand::BufferBarrier { .. }
            | TestCommand::TextureBarrier { .. }
    )
}
