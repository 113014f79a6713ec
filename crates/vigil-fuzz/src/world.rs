//! What the fuzzer knows: pools of the handles it made (live and deliberately stale), the
//! open encoders and finished command buffers, and the call log.
//!
//! Every call goes through [`World::call`], which logs it, runs it with panics caught,
//! counts its outcome and attributes any new validation-layer message to it.

use crate::report::{CallOutcome, Finding, FindingKind, OpStats};
use crate::rng::Rng;
use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use vigil::{
    BindGroup, BindGroupLayout, BindGroupLayoutEntry, BindGroupPool, Buffer, BufferMapping,
    BufferUsages, CommandBuffer, CommandEncoder, ComputePipeline, Device, Features, Handle, Limits,
    MapMode, PipelineLayout, QuerySet, RenderPipeline, Sampler, ShaderModule, Texture,
    TextureFormat, TextureUsages, TextureView, TextureViewDimension, ValidationLog,
};

/// How a picked handle relates to the device: the fuzzer's own expectation of validity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// Made by this device and not destroyed.
    Live,
    /// Made by this device, then destroyed.
    Stale,
    /// The null handle.
    Null,
    /// Made by another device.
    Foreign,
    /// Made up: an index and generation this device never handed out.
    Forged,
}

impl Validity {
    /// Whether every call must refuse the handle.
    pub fn invalid(self) -> bool {
        self != Validity::Live
    }
}

/// One handle the fuzzer made.
#[derive(Clone, Debug)]
pub struct Entry<H, M> {
    /// The handle.
    pub handle: H,
    /// What the fuzzer remembers of it.
    pub meta: M,
    /// Whether it was destroyed.
    pub live: bool,
}

/// Handles of one kind.
#[derive(Debug)]
pub struct Pool<H, M> {
    /// Live and stale entries.
    pub items: Vec<Entry<H, M>>,
    /// Handles another device made.
    pub foreign: Vec<H>,
}

impl<H, M> Default for Pool<H, M> {
    fn default() -> Self {
        Pool {
            items: Vec::new(),
            foreign: Vec::new(),
        }
    }
}

/// Most live objects per kind; past it creation turns into destruction.
pub const LIVE_CAP: usize = 40;
/// Most stale handles kept per kind.
const STALE_CAP: usize = 24;

impl<H: Handle, M: Clone> Pool<H, M> {
    /// Live entries.
    pub fn live_count(&self) -> usize {
        self.items.iter().filter(|e| e.live).count()
    }

    /// Whether the pool holds as many live objects as it may.
    pub fn full(&self) -> bool {
        self.live_count() >= LIVE_CAP
    }

    /// Whether `handle` is one of the pool's live handles.
    pub fn is_live(&self, handle: H) -> bool {
        self.items.iter().any(|e| e.live && e.handle == handle)
    }

    /// Remembers a new live handle.
    pub fn add(&mut self, handle: H, meta: M) {
        self.items.push(Entry {
            handle,
            meta,
            live: true,
        });
    }

    /// Marks a handle destroyed (kept as a stale handle to use later).
    pub fn kill(&mut self, handle: H) {
        if let Some(e) = self.items.iter_mut().find(|e| e.handle == handle && e.live) {
            e.live = false;
        }
        let stale = self.items.iter().filter(|e| !e.live).count();
        if stale > STALE_CAP {
            if let Some(pos) = self.items.iter().position(|e| !e.live) {
                self.items.remove(pos);
            }
        }
    }

    /// A live entry matching `want`, if any.
    pub fn live_where(&self, r: &mut Rng, want: impl Fn(&M) -> bool) -> Option<(H, M)> {
        let matching: Vec<&Entry<H, M>> = self
            .items
            .iter()
            .filter(|e| e.live && want(&e.meta))
            .collect();
        if matching.is_empty() {
            return None;
        }
        let e = matching[r.index(matching.len())];
        Some((e.handle, e.meta.clone()))
    }

    /// A live entry, if any.
    pub fn any_live(&self, r: &mut Rng) -> Option<(H, M)> {
        self.live_where(r, |_| true)
    }

    /// Mostly a live handle; sometimes stale, null, foreign or forged. The metadata is the
    /// entry's when the handle came from the pool.
    pub fn pick(&self, r: &mut Rng, device: u32) -> (H, Option<M>, Validity) {
        let roll = r.below(100);
        if roll < 6 {
            let stale: Vec<&Entry<H, M>> = self.items.iter().filter(|e| !e.live).collect();
            if !stale.is_empty() {
                let e = stale[r.index(stale.len())];
                return (e.handle, Some(e.meta.clone()), Validity::Stale);
            }
        } else if roll < 8 {
            return (H::from_parts(0, 0, 0), None, Validity::Null);
        } else if roll < 10 && !self.foreign.is_empty() {
            return (
                self.foreign[r.index(self.foreign.len())],
                None,
                Validity::Foreign,
            );
        } else if roll < 11 {
            let index = r.pick(&[1, 2, 7, 1000, u32::MAX]);
            let generation = r.pick(&[0, 99, u32::MAX]);
            return (
                H::from_parts(index, generation, device),
                None,
                Validity::Forged,
            );
        }
        match self.any_live(r) {
            Some((h, m)) => (h, Some(m), Validity::Live),
            None => (H::from_parts(0, 0, 0), None, Validity::Null),
        }
    }
}

/// A buffer.
#[derive(Clone, Copy, Debug)]
pub struct BufferMeta {
    /// Size in bytes.
    pub size: u64,
    /// Usage.
    pub usage: BufferUsages,
}

/// A texture.
#[derive(Clone, Copy, Debug)]
pub struct TextureMeta {
    /// 1D, 2D or 3D.
    pub dimension: vigil::TextureDimension,
    /// Width and height.
    pub size: [u32; 2],
    /// Layers (a 3D texture's depth).
    pub layers: u32,
    /// Mip levels.
    pub mips: u32,
    /// Samples.
    pub samples: u32,
    /// Format.
    pub format: TextureFormat,
    /// Usage.
    pub usage: TextureUsages,
}

/// A view.
#[derive(Clone, Copy, Debug)]
pub struct ViewMeta {
    /// Its texture.
    pub texture: Texture,
    /// Format.
    pub format: TextureFormat,
    /// Dimension.
    pub dimension: TextureViewDimension,
    /// Usage of the texture.
    pub usage: TextureUsages,
    /// Samples.
    pub samples: u32,
    /// Whether it is one mip level and one layer (an attachment candidate).
    pub single: bool,
    /// Extent of its first mip level.
    pub extent: [u32; 2],
}

/// A sampler.
#[derive(Clone, Copy, Debug)]
pub struct SamplerMeta {
    /// Comparison sampler.
    pub comparison: bool,
}

/// A bind group layout.
#[derive(Clone, Debug)]
pub struct LayoutMeta {
    /// Its entries.
    pub entries: Arc<[BindGroupLayoutEntry]>,
    /// The recipe it came from.
    pub recipe: Option<usize>,
}

/// A bind group.
#[derive(Clone, Debug)]
pub struct GroupMeta {
    /// Its layout's entries (for dynamic offsets).
    pub entries: Arc<[BindGroupLayoutEntry]>,
    /// The recipe its layout came from.
    pub recipe: Option<usize>,
}

impl GroupMeta {
    /// How many dynamic offsets the group takes (its layout's entries with one).
    pub fn dynamic_count(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| {
                matches!(
                    e.ty,
                    vigil::BindingType::Buffer {
                        has_dynamic_offset: true,
                        ..
                    }
                )
            })
            .count()
    }
}

/// A pipeline layout.
#[derive(Clone, Debug)]
pub struct PipelineLayoutMeta {
    /// The recipe of its one group, when it was made for one.
    pub recipe: Option<usize>,
    /// How many groups it has.
    pub groups: usize,
}

/// A shader module.
#[derive(Clone, Copy, Debug)]
pub struct ModuleMeta {
    /// The recipe it compiles.
    pub recipe: usize,
}

/// A render pipeline.
#[derive(Clone, Debug)]
pub struct RenderMeta {
    /// The recipe.
    pub recipe: usize,
    /// Samples.
    pub samples: u32,
}

/// A render bundle: the attachments it was made for.
#[derive(Clone, Debug)]
pub struct BundleMeta {
    /// Color formats.
    pub colors: Vec<Option<TextureFormat>>,
    /// Depth format.
    pub depth: Option<TextureFormat>,
    /// Samples.
    pub samples: u32,
    /// Depth and stencil read-only (`depth_read_only`, `stencil_read_only`).
    pub read_only: (bool, bool),
}

/// A surface: its configuration and the frame it has out, as far as the fuzzer knows.
#[derive(Clone, Copy, Debug, Default)]
pub struct SurfaceMeta {
    /// The last configuration it took.
    pub config: Option<vigil::SurfaceConfiguration>,
    /// The frame out (also in the world's textures until it is presented or abandoned).
    pub frame: Option<Texture>,
}

/// A mapping.
#[derive(Clone, Copy, Debug)]
pub struct MapMeta {
    /// The buffer.
    pub buffer: Buffer,
    /// Mode.
    pub mode: MapMode,
    /// Bytes mapped.
    pub size: u64,
}

/// Which pass an open encoder is in, as far as the fuzzer knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassState {
    /// No pass.
    None,
    /// A compute pass.
    Compute,
    /// A render pass with these color formats, depth format and sample count.
    Render {
        /// Color formats.
        colors: Vec<Option<TextureFormat>>,
        /// Depth format.
        depth: Option<TextureFormat>,
        /// Samples.
        samples: u32,
    },
}

/// An open encoder.
pub struct Open {
    /// The encoder.
    pub encoder: CommandEncoder,
    /// The pass it is in.
    pub pass: PassState,
    /// Number the fuzzer gave it, for the log.
    pub id: u32,
    /// What the open pass has bound, as far as the fuzzer knows.
    pub bound: Bound,
    /// Its open debug groups, as far as the fuzzer knows.
    pub debug: DebugDepth,
}

/// Debug groups an encoder (or a bundle's) has open, as far as the fuzzer knows.
#[derive(Clone, Copy, Debug, Default)]
pub struct DebugDepth {
    /// Open in the encoder.
    pub open: u32,
    /// Of those, opened before the open pass began (the pass cannot close them).
    pub before_pass: u32,
}

impl DebugDepth {
    /// How many a pop may close: inside a pass, only the pass's own.
    pub fn closable(&self, in_pass: bool) -> u32 {
        if in_pass {
            self.open.saturating_sub(self.before_pass)
        } else {
            self.open
        }
    }
}

/// What a pass has bound: the fuzzer uses it to make the call a draw or dispatch still
/// lacks (a pipeline, a group, a vertex or index buffer) before making the draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bound {
    /// Recipe of the bound pipeline.
    pub pipeline: Option<usize>,
    /// Recipe of the group bound at index 0.
    pub group: Option<usize>,
    /// Vertex buffer slots set.
    pub vertex_slots: u32,
    /// Whether an index buffer is set.
    pub index: bool,
    /// The buffer the encoder's last copy wrote: the next copy reads it now and then, which
    /// is how ordering between commands gets exercised.
    pub last_written: Option<vigil::Buffer>,
    /// The render pass's occlusion query set's query count (none named: `None`).
    pub occlusion: Option<u32>,
    /// The occlusion query active in the pass.
    pub occlusion_active: Option<u32>,
    /// The pipeline-statistics query active in the pass.
    pub statistics_active: Option<u32>,
}

/// Everything a run holds.
pub struct World<'d> {
    /// The device under test.
    pub device: &'d Device,
    /// Another device over the same native device (whose handles are the foreign ones):
    /// what explicit waits name and heaps are shared with.
    pub other: Option<&'d Device>,
    /// Its id.
    pub id: u32,
    /// Its enabled features.
    pub features: Features,
    /// Its limits.
    pub limits: Limits,
    /// Buffers.
    pub buffers: Pool<Buffer, BufferMeta>,
    /// Textures.
    pub textures: Pool<Texture, TextureMeta>,
    /// Views.
    pub views: Pool<TextureView, ViewMeta>,
    /// Samplers.
    pub samplers: Pool<Sampler, SamplerMeta>,
    /// Query sets (with their counts).
    pub query_sets: Pool<QuerySet, u32>,
    /// Occlusion query sets (their query counts).
    pub occlusion_sets: Pool<QuerySet, u32>,
    /// Pipeline-statistics query sets (their query counts).
    pub statistics_sets: Pool<QuerySet, u32>,
    /// Pipeline caches.
    pub pipeline_caches: Pool<vigil::PipelineCache, ()>,
    /// The data a pipeline cache gave last (what a later cache is created from).
    pub cache_data: Option<Vec<u8>>,
    /// Bind group layouts.
    pub layouts: Pool<BindGroupLayout, LayoutMeta>,
    /// Bind groups.
    pub groups: Pool<BindGroup, GroupMeta>,
    /// Bind group pools.
    pub bind_group_pools: Pool<BindGroupPool, ()>,
    /// Groups made in a pool since its last reset, with the pool.
    pub pool_groups: Vec<(BindGroupPool, BindGroup)>,
    /// Pipeline layouts.
    pub pipeline_layouts: Pool<PipelineLayout, PipelineLayoutMeta>,
    /// Shader modules.
    pub modules: Pool<ShaderModule, ModuleMeta>,
    /// Compute pipelines (with their recipe).
    pub compute: Pool<ComputePipeline, usize>,
    /// Render pipelines.
    pub render: Pool<RenderPipeline, RenderMeta>,
    /// Render bundles.
    pub bundles: Pool<vigil::RenderBundle, BundleMeta>,
    /// Mappings.
    pub mappings: Pool<BufferMapping, MapMeta>,
    /// Surfaces over no window.
    pub surfaces: Pool<vigil::Surface, SurfaceMeta>,
    /// Bottom-level acceleration structures, with the sizes they were made for.
    pub blas: Pool<vigil::Blas, Arc<[vigil::TriangleGeometrySize]>>,
    /// Top-level acceleration structures, with their instance counts.
    pub tlas: Pool<vigil::Tlas, u32>,
    /// GPU heaps, with their size, kind and base address.
    pub gpu_heaps: Pool<vigil::GpuHeap, (u64, vigil::HeapKind, u64)>,
    /// The pointer pipeline (adds one to the word its root points at), once made.
    pub bump: Option<ComputePipeline>,
    /// Texture heaps, with their slot counts.
    pub texture_heaps: Pool<vigil::TextureHeap, u32>,
    /// Placement heaps, with their sizes.
    pub placement_heaps: Pool<vigil::PlacementHeap, u64>,
    /// Aliasable placed textures (also in `textures`), for activations.
    pub aliases: Vec<Texture>,
    /// Sampler heaps, with their slot counts.
    pub sampler_heaps: Pool<vigil::SamplerHeap, u32>,
    /// The pointer pipeline that samples the heaps at the index its root's word holds.
    pub sample: Option<ComputePipeline>,
    /// The pointer render pipeline (a triangle lifted by its root's word).
    pub pull: Option<RenderPipeline>,
    /// The pointer render pipeline whose fragment shader samples both heaps (at a slot its
    /// pixel's column picks), drawn in passes of one `Rgba8Unorm` target.
    pub sample_draw: Option<RenderPipeline>,
    /// The mesh pipeline (one triangle per workgroup), on devices with mesh shaders.
    pub mesh_triangle: Option<RenderPipeline>,
    /// The heap of draw arguments only `pointer_draws` writes, and its address.
    pub args: Option<(vigil::GpuHeap, u64)>,
    /// Open encoders.
    pub encoders: Vec<Open>,
    /// Finished command buffers.
    pub command_buffers: Vec<CommandBuffer>,
    /// Encoders made so far.
    pub encoder_count: u32,
    /// Buffers holding indexed draw arguments past every index range the world binds
    /// (`encode::huge_draw_args`), outside the pools so that nothing else reads them;
    /// destroyed by the health check.
    pub huge_args: Vec<Buffer>,
    /// The buffer of the last run of sequential writes and where its next write starts:
    /// `queue::write_run` goes on with it after whatever came between.
    pub run: Option<(Buffer, u64)>,
    log: Option<Arc<ValidationLog>>,
    seen_messages: u64,
    /// Calls made.
    pub calls: u64,
    /// The last calls, for the report.
    pub recent: VecDeque<String>,
    /// Print every call before making it.
    pub trace: bool,
    /// Outcomes per operation.
    pub stats: BTreeMap<&'static str, OpStats>,
    /// What went wrong.
    pub findings: Vec<Finding>,
}

/// How many recent calls a report carries.
const RECENT: usize = 40;
/// Most findings of one kind kept in full.
const FINDINGS_KEPT: usize = 64;

impl<'d> World<'d> {
    /// A world over `device`.
    pub fn new(device: &'d Device, trace: bool) -> World<'d> {
        World {
            device,
            other: None,
            id: device.id(),
            features: device.features(),
            limits: device.limits().clone(),
            buffers: Pool::default(),
            textures: Pool::default(),
            views: Pool::default(),
            samplers: Pool::default(),
            query_sets: Pool::default(),
            occlusion_sets: Pool::default(),
            statistics_sets: Pool::default(),
            pipeline_caches: Pool::default(),
            cache_data: None,
            layouts: Pool::default(),
            groups: Pool::default(),
            bind_group_pools: Pool::default(),
            pool_groups: Vec::new(),
            pipeline_layouts: Pool::default(),
            modules: Pool::default(),
            compute: Pool::default(),
            render: Pool::default(),
            bundles: Pool::default(),
            mappings: Pool::default(),
            surfaces: Pool::default(),
            blas: Pool::default(),
            tlas: Pool::default(),
            gpu_heaps: Pool::default(),
            bump: None,
            texture_heaps: Pool::default(),
            placement_heaps: Pool::default(),
            aliases: Vec::new(),
            sampler_heaps: Pool::default(),
            sample: None,
            pull: None,
            sample_draw: None,
            mesh_triangle: None,
            args: None,
            encoders: Vec::new(),
            command_buffers: Vec::new(),
            encoder_count: 0,
            huge_args: Vec::new(),
            run: None,
            log: device.validation_log(),
            seen_messages: device.validation_log().map_or(0, |l| l.count()),
            calls: 0,
            recent: VecDeque::new(),
            trace,
            stats: BTreeMap::new(),
            findings: Vec::new(),
        }
    }

    /// Makes one call: logs `what`, runs `f` with panics caught, counts the outcome, and
    /// attributes new validation messages to it. `invalid` says the fuzzer knowingly
    /// made a call every device must refuse (a non-live handle; a debug group closed that
    /// is not open, or left open at a pass's end or a finish); success then is a finding.
    pub fn call<T>(
        &mut self,
        op: &'static str,
        what: String,
        invalid: bool,
        f: impl FnOnce(&mut Self) -> vigil::Result<T>,
    ) -> Option<T> {
        let index = self.calls;
        self.calls += 1;
        if self.trace {
            eprintln!("[{index}] {what}");
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(format!("[{index}] {what}"));
        crate::panics::clear();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| f(self)));
        let (outcome, value) = match result {
            Ok(Ok(v)) => (CallOutcome::Ok, Some(v)),
            Ok(Err(e)) => {
                if e.operation().is_empty() || e.message().is_empty() {
                    let detail = format!("{what}: error without operation or message: {e}");
                    self.finding(FindingKind::UnclearError, index, detail);
                }
                if self.trace {
                    eprintln!("    -> {e}");
                }
                (CallOutcome::Refused(e.kind()), None)
            }
            Err(_) => {
                let message = crate::panics::take().unwrap_or_else(|| "(no message)".into());
                let signature = format!(
                    "panic:{}",
                    message
                        .strip_prefix("panicked at ")
                        .and_then(|m| m.split(": ").next())
                        .unwrap_or("unknown")
                );
                self.finding_as(
                    FindingKind::Panic,
                    index,
                    signature,
                    format!("{what}: {message}"),
                );
                (CallOutcome::Panicked, None)
            }
        };
        self.stats.entry(op).or_default().count(outcome);
        if invalid && outcome == CallOutcome::Ok {
            self.finding(
                FindingKind::AcceptedInvalidHandle,
                index,
                format!(
                    "{what}: accepted although every device must refuse it (a handle that is not live, or debug groups that do not balance)"
                ),
            );
        }
        self.check_validation(index, &what);
        value
    }

    /// Validation messages seen so far (attributed to calls or not).
    pub fn seen_messages(&self) -> u64 {
        self.seen_messages
    }

    /// Marks buffer `h` destroyed in the books, and the mappings its destruction ended.
    pub fn kill_buffer(&mut self, h: Buffer) {
        self.buffers.kill(h);
        let maps: Vec<vigil::BufferMapping> = self
            .mappings
            .items
            .iter()
            .filter(|e| e.live && e.meta.buffer == h)
            .map(|e| e.handle)
            .collect();
        for m in maps {
            self.mappings.kill(m);
        }
    }

    /// Adds `what` to the recent calls (and prints it when tracing) without making a call:
    /// what another thread does beside this one's calls.
    pub fn note(&mut self, what: String) {
        if self.trace {
            eprintln!("[{}] {what}", self.calls);
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(format!("[{}] {what}", self.calls));
    }

    /// Records new validation messages, attributed to call `index`.
    pub fn check_validation(&mut self, index: u64, what: &str) {
        let Some(log) = self.log.clone() else {
            return;
        };
        let count = log.count();
        if count > self.seen_messages {
            let messages = log.messages();
            let first_new = usize::try_from(self.seen_messages).unwrap_or(usize::MAX);
            let text: Vec<String> = messages
                .iter()
                .skip(first_new)
                .take(3)
                .map(|m| format!("{}: {}", m.id, m.text))
                .collect();
            let mut ids: Vec<&str> = messages
                .iter()
                .skip(first_new)
                .map(|m| m.id.as_str())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let signature = if ids.is_empty() {
                "validation:(past the log's cap)".to_owned()
            } else {
                format!("validation:{}", ids.join("+"))
            };
            let detail = format!(
                "{what}: {} new message(s): {}",
                count - self.seen_messages,
                if text.is_empty() {
                    "(past the log's cap)".to_owned()
                } else {
                    text.join(" | ")
                }
            );
            self.finding_as(FindingKind::ValidationMessage, index, signature, detail);
            self.seen_messages = count;
        }
    }

    /// Records a finding under the kind's name as its signature.
    pub fn finding(&mut self, kind: FindingKind, call: u64, detail: String) {
        self.finding_as(kind, call, kind.name().to_owned(), detail);
    }

    /// Records a finding: the first of each signature in full (up to a cap per kind),
    /// later ones of the same signature counted.
    pub fn finding_as(&mut self, kind: FindingKind, call: u64, signature: String, detail: String) {
        if let Some(f) = self.findings.iter_mut().find(|f| f.signature == signature) {
            f.more += 1;
            return;
        }
        let same = self.findings.iter().filter(|f| f.kind == kind).count();
        if same < FINDINGS_KEPT {
            self.findings.push(Finding {
                kind,
                call,
                signature,
                detail,
                recent: self.recent.iter().cloned().collect(),
                more: 0,
            });
        } else if let Some(f) = self.findings.iter_mut().rev().find(|f| f.kind == kind) {
            f.more += 1;
        }
    }
}
