//! A deterministic backend for validation tests: no GPU, no driver, every command recorded.
//!
//! Buffers are host memory; copies and fills are replayed at submission so results can be
//! read back. Completion is under the test's control: by default each submission completes
//! at once ([`TestDevice::set_auto_complete`] turns that off and
//! [`TestDevice::complete_through`] moves completion by hand). Every command recorded is
//! kept, so a test can assert which barriers were inserted.

mod device;
mod encoder;

pub use device::{TestAdapter, TestDevice, TestInstance};
pub use encoder::{TestCommand, TestCommandBuffer, TestCommandEncoder};

use crate::Api;
use crate::pipeline::ShaderFormat;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The test backend.
#[derive(Clone, Debug)]
pub struct TestApi;

/// Identity of a test object (unique per process).
pub type ObjectId = u64;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_id() -> ObjectId {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A test object with no contents beyond its identity and label.
#[derive(Debug)]
pub struct TestObject {
    /// Identity.
    pub id: ObjectId,
    /// Label it was created with.
    pub label: String,
}

/// A buffer backed by host memory.
#[derive(Debug)]
pub struct TestBuffer {
    /// Identity.
    pub id: ObjectId,
    /// Contents.
    pub data: Arc<Mutex<Vec<u8>>>,
}

impl Api for TestApi {
    const NAME: &'static str = "test";
    // Shaders are translated to SPIR-V as for Vulkan (and then ignored), so every check
    // on the way to the driver runs in the rule tests too.
    const SHADER_FORMAT: ShaderFormat = ShaderFormat::SpirV;
    type Instance = TestInstance;
    type Adapter = TestAdapter;
    type Device = TestDevice;
    type CommandEncoder = TestCommandEncoder;
    type CommandBuffer = TestCommandBuffer;
    type Buffer = TestBuffer;
    type Texture = TestObject;
    type TextureView = TestObject;
    type Sampler = TestObject;
    type QuerySet = TestObject;
    type BindGroupLayout = TestObject;
    type BindGroup = TestObject;
    type BindGroupKey = ObjectId;
    type PipelineLayout = TestObject;
    type ShaderModule = TestObject;
    type ComputePipeline = TestObject;
    type RenderPipeline = TestObject;
    type PipelineCache = TestObject;
    type Surface = TestSurface;
    type AccelerationStructure = TestObject;
    type TextureMemory = TestObject;

    fn bind_group_key(group: &TestObject) -> ObjectId {
        group.id
    }
}

/// A surface of the test backend: it presents into its log, and its window's size is the
/// device's ([`TestDevice::set_surface_extent`]).
#[derive(Debug)]
pub struct TestSurface {
    /// Identity.
    pub id: ObjectId,
    /// The configuration, once configured.
    pub config: Option<crate::surface::SurfaceConfiguration>,
}
