//! **bandwidth**: a WGSL copy kernel (by default four 16-byte loads, then four stores, per
//! thread; see [`Kernel`]) over pairs of buffers adding up to the total size, timed on the
//! GPU by timestamps around the one compute pass that copies them all. Rates are bytes copied per second (each
//! byte copied is read once and written once). Each repetition then times, the same way,
//! the copy command over the same bytes, and last the fill command zeroing buffers of their
//! own as large as the destinations (bytes written per second), so the kernel's copy
//! follows what it followed before the fill was measured: PyTorch's `copy_` of 4 GiB on
//! the H200 took about 2,010 µs after an idle moment and 2,070 µs right after a `zero_`,
//! where the kernel took 2,037 µs either way.
//!
//! The sources are filled on the GPU with a pattern; the output hashes the start and the
//! end of every destination, read back after the last run.

use super::PathResult;
use crate::harness::{Plan, repeat};
use crate::raw::{Bind, Raw, RawBuffer};
use crate::wgpu_ctx::Wgpu;
use crate::workloads::writes::hash;
use ash::vk;
use std::time::{Duration, Instant};

const FILL: &str = r#"
@group(0) @binding(0) var<storage, read_write> buf: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let stride = n.x * 256u;
    let len = arrayLength(&buf);
    for (var i = id.x; i < len; i += stride) {
        let v = i * 4u;
        buf[i] = vec4<u32>(v, v + 1u, v + 2u, v + 3u) * 2654435761u;
    }
}
"#;

/// The copy kernel's shape: `loads` 16-byte loads in flight per thread before its stores,
/// each coalesced across a workgroup of `workgroup` threads, repeated `rounds` times over
/// the chunk (a grid-stride loop: the dispatch is `rounds` times smaller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// 16-byte elements each thread copies per round (all loaded before any is stored).
    pub loads: u32,
    /// Threads per workgroup.
    pub workgroup: u32,
    /// Rounds of `loads` elements each thread copies (1: no loop).
    pub rounds: u32,
    /// Each workgroup copies one contiguous block, its threads' loads a workgroup apart,
    /// instead of each load a whole dispatch apart.
    pub block: bool,
}

impl Kernel {
    /// The shape the bench uses: four loads, 256 threads, one round, unless
    /// `VIGIL_BENCH_COPY` names another as `loads,workgroup` or `loads,workgroup,rounds`,
    /// optionally followed by `,block` (for tuning runs; all powers of two, loads ≤ 16,
    /// workgroup 32 to 1024, rounds ≤ 256, at most 4 MiB a workgroup; anything else is
    /// ignored).
    pub fn chosen() -> Kernel {
        Kernel::from_setting(std::env::var("VIGIL_BENCH_COPY").ok().as_deref())
    }

    /// The shape `setting` names (`loads,workgroup`), or the default.
    fn from_setting(setting: Option<&str>) -> Kernel {
        let default = Kernel {
            loads: 4,
            workgroup: 256,
            rounds: 1,
            block: false,
        };
        let Some(v) = setting else {
            return default;
        };
        let (v, block) = match v.trim().strip_suffix(",block") {
            Some(shape) => (shape, true),
            None => (v, false),
        };
        let mut it = v.split(',').map(|n| n.trim().parse::<u32>().ok());
        let (l, w) = (it.next().flatten(), it.next().flatten());
        let r = match it.next() {
            None => Some(1),
            Some(r) => r,
        };
        match (l, w, r, it.next()) {
            (Some(l), Some(w), Some(r), None)
                if l.is_power_of_two()
                    && l <= 16
                    && w.is_power_of_two()
                    && (32..=1024).contains(&w)
                    && r.is_power_of_two()
                    && r <= 256
                    && 16 * u64::from(l) * u64::from(w) * u64::from(r) <= 4 << 20 =>
            {
                Kernel {
                    loads: l,
                    workgroup: w,
                    rounds: r,
                    block,
                }
            }
            _ => default,
        }
    }

    /// The kernel's WGSL: thread `i` of a dispatch of `n` threads in all copies, in round
    /// `r`, elements `i + (r * loads + k) * n` for `k` below `loads`, so each load is
    /// coalesced across the workgroup; the dispatch covers the buffer exactly (see
    /// [`Size::copy_dispatch`]). Workgroups are numbered across the dispatch's two
    /// dimensions. One round is straight-line code; more are a loop.
    ///
    /// With `block`, workgroup `g` copies elements `g * rounds * loads * workgroup` on,
    /// thread `t` of it in round `r` elements `t + (r * loads + k) * workgroup`: each
    /// workgroup one contiguous block, each load still coalesced.
    pub fn wgsl(&self) -> String {
        let apart = if self.block {
            format!("{}u", self.workgroup)
        } else {
            "stride".to_owned()
        };
        let mut loads = String::new();
        let mut stores = String::new();
        for k in 0..self.loads {
            loads.push_str(&format!("    let v{k} = src[i + {k}u * {apart}];\n"));
            stores.push_str(&format!("    dst[i + {k}u * {apart}] = v{k};\n"));
        }
        let head = format!(
            "@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;\n\
             @group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;\n\
             @compute @workgroup_size({w})\n\
             fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32, \
             @builtin(num_workgroups) n: vec3<u32>) {{\n\
             \x20   let stride = n.x * n.y * {w}u;\n",
            w = self.workgroup
        );
        let (first, round) = if self.block {
            let per_group = self.rounds * self.loads * self.workgroup;
            (
                format!("(wg.x + wg.y * n.x) * {per_group}u + lid"),
                format!("{}u", self.loads * self.workgroup),
            )
        } else {
            (
                format!("(wg.x + wg.y * n.x) * {}u + lid", self.workgroup),
                format!("{}u * stride", self.loads),
            )
        };
        if self.rounds == 1 {
            return format!("{head}    let i = {first};\n{loads}{stores}}}\n");
        }
        format!(
            "{head}    for (var r = 0u; r < {rounds}u; r += 1u) {{\n\
             \x20   let i = {first} + r * {round};\n{loads}{stores}    }}\n}}\n",
            rounds = self.rounds,
        )
    }
}

/// Workgroups of the fill (a grid-stride loop, not timed).
const WORKGROUPS: u32 = 4096;
/// Bytes hashed at each end of each destination.
const PROBE: u64 = 64 * 1024;

/// Most copy commands one run records (4 GiB in pieces of 64 KiB): smaller pieces copy
/// fewer bytes rather than more commands.
pub const MAX_COPIES: u64 = 65_536;

/// Workload size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Bytes copied per run, in all.
    pub total: u64,
    /// Bytes per buffer (at most the adapter's storage binding size).
    pub chunk: u64,
    /// The copy kernel.
    pub kernel: Kernel,
    /// Bytes per copy of the copy command (the whole chunk, or less: see
    /// [`Size::chosen_piece`]).
    pub piece: u64,
    /// Most copies of the copy command one run records, over all the pairs (see
    /// [`Size::chosen_copies`]).
    pub copies: u64,
}

impl Size {
    /// Bytes per copy of the copy command for buffers of `chunk` bytes: the whole chunk,
    /// or `VIGIL_BENCH_COPY_PIECE_KIB` KiB where that names a power of two from 4 up to
    /// the chunk (for measuring what a copy costs by size).
    pub fn chosen_piece(chunk: u64) -> u64 {
        crate::number_setting("VIGIL_BENCH_COPY_PIECE_KIB")
            .map(|k| k << 10)
            .filter(|p| p.is_power_of_two() && *p >= 4 << 10 && *p <= chunk)
            .unwrap_or(chunk)
    }

    /// Most copies of the copy command one run records: [`MAX_COPIES`], or
    /// `VIGIL_BENCH_COPY_COUNT` where that names a count from 1 to it (for measuring what
    /// a lone copy costs: 1 copies the start of the first pair alone).
    pub fn chosen_copies() -> u64 {
        crate::number_setting("VIGIL_BENCH_COPY_COUNT")
            .filter(|n| (1..=MAX_COPIES).contains(n))
            .unwrap_or(MAX_COPIES)
    }

    /// How many copies pair `pair` takes of the run's [`Size::copies`]: an even share,
    /// the first pairs one more where the count does not divide.
    fn share(&self, pair: u64) -> u64 {
        let pairs = self.pairs().max(1);
        let most = self.copies.clamp(1, MAX_COPIES);
        most / pairs + u64::from(pair < most % pairs)
    }

    /// The copy command's copies within buffer pair `pair`, `(offset, size)`, each of
    /// [`Size::piece`] bytes at most, and at most its share of [`Size::copies`]: pieces
    /// too small for the whole copy in that many copy only the start of the pair (the
    /// copies come after the kernel's, which wrote the same bytes, so the output is the
    /// same).
    pub fn copy_pieces(&self, pair: u64) -> impl Iterator<Item = (u64, u64)> {
        let (chunk, piece) = (self.chunk, self.piece.clamp(1, self.chunk.max(1)));
        (0..chunk.div_ceil(piece).min(self.share(pair)))
            .map(move |k| (k * piece, piece.min(chunk - k * piece)))
    }

    /// The fill command's fills of pair `pair`'s buffer, `(offset, size)`: the whole
    /// buffer (`None`) in one, or [`Size::copy_pieces`] when the piece is smaller than the
    /// buffer or the count leaves the pair none.
    pub fn fill_pieces(&self, pair: u64) -> Vec<(u64, Option<u64>)> {
        if self.piece >= self.chunk && self.share(pair) > 0 {
            vec![(0, None)]
        } else {
            self.copy_pieces(pair)
                .map(|(at, len)| (at, Some(len)))
                .collect()
        }
    }

    /// Bytes the copy command copies in one run ([`Size::copy_pieces`] of every pair).
    pub fn command_bytes(&self) -> u64 {
        (0..self.pairs())
            .flat_map(|k| self.copy_pieces(k))
            .map(|(_, len)| len)
            .sum()
    }

    /// Buffer pairs.
    pub fn pairs(&self) -> u64 {
        self.total.div_ceil(self.chunk)
    }

    /// Workgroups of one copy dispatch, `[x, y]`: `workgroup` threads of `rounds` times
    /// `loads` 16-byte elements each cover a chunk exactly (chunks are multiples of 16 MiB,
    /// so with at most 4 MiB per workgroup the count is a whole number, at least 4), split
    /// over two dimensions when it passes the 65,535 a dimension may have.
    pub fn copy_dispatch(&self) -> [u32; 2] {
        let k = self.kernel;
        let per_group = 16 * u64::from(k.loads) * u64::from(k.workgroup) * u64::from(k.rounds);
        let groups = self.chunk / per_group;
        let mut y = 1u64;
        while groups / y > 65_535 && (groups / y).is_multiple_of(2) {
            y *= 2;
        }
        [(groups / y) as u32, y as u32]
    }
}

/// The fill kernel: every element's value depends on its index alone, so each source
/// holds the same pattern.
fn fill_shader() -> String {
    FILL.to_string()
}

fn probes(
    read: &mut dyn FnMut(u64, u64) -> Result<Vec<u8>, String>,
    size: Size,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for k in 0..size.pairs() {
        bytes.extend(read(k, 0)?);
        bytes.extend(read(k, size.chunk - PROBE)?);
    }
    Ok(hash(&bytes))
}

/// What every path must produce: the pattern the fill writes, probed the same way.
pub fn expected(size: Size) -> Vec<u8> {
    let word = |w: u64| ((w as u32).wrapping_mul(2_654_435_761)).to_le_bytes();
    let range = |from: u64| -> Vec<u8> { (from / 4..(from + PROBE) / 4).flat_map(word).collect() };
    let mut bytes = Vec::new();
    for _ in 0..size.pairs() {
        bytes.extend(range(0));
        bytes.extend(range(size.chunk - PROBE));
    }
    hash(&bytes)
}

/// Through vigil.
pub fn vigil(device: &vigil::Device, size: Size, plan: Plan) -> Result<PathResult, String> {
    use vigil::*;
    let e = |e: Error| e.to_string();
    let storage = |binding, read_only| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let fill_bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "fill",
            entries: &[storage(0, false)],
        })
        .map_err(e)?;
    let copy_bgl = device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "copy",
            entries: &[storage(0, true), storage(1, false)],
        })
        .map_err(e)?;
    let pipeline = |label, wgsl: &str, bgl| -> Result<ComputePipeline, String> {
        let module = device
            .create_shader_module(&ShaderModuleDescriptor { label, wgsl })
            .map_err(e)?;
        let layout = device
            .create_pipeline_layout(&PipelineLayoutDescriptor {
                label,
                bind_group_layouts: &[bgl],
                immediate_size: 0,
            })
            .map_err(e)?;
        device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label,
                layout,
                module,
                entry_point: "main",
                constants: &[],
                cache: None,
            })
            .map_err(e)
    };
    let fill = pipeline("fill", &fill_shader(), fill_bgl)?;
    let copy = pipeline("copy", &size.kernel.wgsl(), copy_bgl)?;
    let mut pairs = Vec::new();
    for _ in 0..size.pairs() {
        let buffer = |label| {
            device.create_buffer(&BufferDescriptor {
                label,
                size: size.chunk,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
            })
        };
        let (src, dst) = (buffer("src").map_err(e)?, buffer("dst").map_err(e)?);
        let whole = |b| BindGroupEntry {
            binding: 0,
            resource: BindingResource::Buffer(BufferBinding::whole(b)),
        };
        let fill_group = device
            .create_bind_group(&BindGroupDescriptor {
                label: "fill",
                layout: fill_bgl,
                entries: &[whole(src)],
            })
            .map_err(e)?;
        let copy_group = device
            .create_bind_group(&BindGroupDescriptor {
                label: "copy",
                layout: copy_bgl,
                entries: &[
                    whole(src),
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::Buffer(BufferBinding::whole(dst)),
                    },
                ],
            })
            .map_err(e)?;
        pairs.push((src, dst, fill_group, copy_group));
    }
    let mut fills = Vec::new();
    for _ in 0..size.pairs() {
        fills.push(
            device
                .create_buffer(&BufferDescriptor {
                    label: "filled",
                    size: size.chunk,
                    usage: BufferUsages::COPY_DST,
                })
                .map_err(e)?,
        );
    }
    let queries = device.create_query_set("bandwidth", 6).map_err(e)?;
    let ticks = device
        .create_buffer(&BufferDescriptor {
            label: "ticks",
            // The copy command's two ticks at 256 (the resolve alignment), the fill's at 512.
            size: 528,
            usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        })
        .map_err(e)?;
    let mut enc = device
        .create_command_encoder(&CommandEncoderDescriptor { label: "fill" })
        .map_err(e)?;
    enc.begin_compute_pass(&ComputePassDescriptor::default())
        .map_err(e)?;
    enc.set_compute_pipeline(fill).map_err(e)?;
    for p in &pairs {
        enc.set_bind_group(0, p.2, &[]).map_err(e)?;
        enc.dispatch(WORKGROUPS, 1, 1).map_err(e)?;
    }
    enc.end_compute_pass().map_err(e)?;
    device.submit([enc.finish().map_err(e)?]).map_err(e)?;
    let period = f64::from(device.adapter_info().timestamp_period_ns);
    let [gpu, command, fill_command] = repeat(plan, || {
        let mut enc = device
            .create_command_encoder(&CommandEncoderDescriptor { label: "copy" })
            .map_err(e)?;
        enc.begin_compute_pass(&ComputePassDescriptor {
            label: "copy",
            timestamp_writes: Some(PassTimestampWrites {
                query_set: queries,
                beginning: Some(0),
                end: Some(1),
            }),
        })
        .map_err(e)?;
        enc.set_compute_pipeline(copy).map_err(e)?;
        for p in &pairs {
            enc.set_bind_group(0, p.3, &[]).map_err(e)?;
            let [x, y] = size.copy_dispatch();
            enc.dispatch(x, y, 1).map_err(e)?;
        }
        enc.end_compute_pass().map_err(e)?;
        enc.resolve_query_set(queries, 0, 2, ticks, 0).map_err(e)?;
        let s = device.submit([enc.finish().map_err(e)?]).map_err(e)?;
        device
            .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
            .map_err(e)?;
        let t = device.read_buffer(ticks, 0, 16).map_err(e)?;
        let kernel = elapsed(&t, period);
        // Commands recorded by `record` in a submission of their own, between timestamps
        // `at` and `at + 1` (resolved to byte `to` of the ticks): the GPU time between them.
        let timed =
            |label, at: u32, to: u64, record: &dyn Fn(&mut CommandEncoder) -> Result<()>| {
                let mut enc = device
                    .create_command_encoder(&CommandEncoderDescriptor { label })
                    .map_err(e)?;
                enc.write_timestamp(queries, at).map_err(e)?;
                record(&mut enc).map_err(e)?;
                enc.write_timestamp(queries, at + 1).map_err(e)?;
                enc.resolve_query_set(queries, at, 2, ticks, to)
                    .map_err(e)?;
                let s = device.submit([enc.finish().map_err(e)?]).map_err(e)?;
                device
                    .wait_for_serial_unless_stalled(s, Duration::from_secs(60))
                    .map_err(e)?;
                let t = device.read_buffer(ticks, to, 16).map_err(e)?;
                Ok::<_, String>(elapsed(&t, period))
            };
        // The same bytes through the copy command (the kernel's writes are ordered before
        // it).
        let command = timed("copy command", 2, 256, &|enc| {
            for (k, p) in (0u64..).zip(&pairs) {
                for (at, len) in size.copy_pieces(k) {
                    enc.copy_buffer_to_buffer(p.0, at, p.1, at, len)?;
                }
            }
            Ok(())
        })?;
        // Last, the fill command over buffers of their own as large as the destinations
        // (after the copies, so what the copies follow is as in earlier runs).
        let fill = timed("fill command", 4, 512, &|enc| {
            for (k, &f) in (0u64..).zip(&fills) {
                for (at, len) in size.fill_pieces(k) {
                    enc.clear_buffer(f, at, len)?;
                }
            }
            Ok(())
        })?;
        Ok([kernel, command, fill])
    })?;
    let output = probes(
        &mut |k, at| {
            device
                .read_buffer(pairs[k as usize].1, at, PROBE)
                .map_err(e)
        },
        size,
    )?;
    for (src, dst, a, b) in pairs {
        device.destroy_bind_group(a).map_err(e)?;
        device.destroy_bind_group(b).map_err(e)?;
        device.destroy_buffer(src).map_err(e)?;
        device.destroy_buffer(dst).map_err(e)?;
    }
    for f in fills {
        device.destroy_buffer(f).map_err(e)?;
    }
    device.poll().map_err(e)?;
    Ok(PathResult {
        path: "vigil",
        metrics: vec![
            ("gpu copy", gpu),
            ("copy command", command),
            ("fill command", fill_command),
        ],
        output,
    })
}

/// Two little-endian u64 ticks to the time between them.
fn elapsed(ticks: &[u8], period_ns: f64) -> Duration {
    let at = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&ticks[i * 8..i * 8 + 8]);
        u64::from_le_bytes(b)
    };
    Duration::from_secs_f64(at(1).saturating_sub(at(0)) as f64 * period_ns * 1e-9)
}

/// Through raw ash.
pub fn ash(raw: &mut Raw, size: Size, plan: Plan) -> Result<PathResult, String> {
    let err = |e: vk::Result| format!("Vulkan error {e:?}");
    let d = raw.device.clone();
    let compute = vk::ShaderStageFlags::COMPUTE;
    let sb = vk::DescriptorType::STORAGE_BUFFER;
    let fill_dsl = raw.set_layout(&[(0, sb, compute)])?;
    let copy_dsl = raw.set_layout(&[(0, sb, compute), (1, sb, compute)])?;
    let fill_pl = raw.pipeline_layout(&[fill_dsl])?;
    let copy_pl = raw.pipeline_layout(&[copy_dsl])?;
    let mut modules = Vec::new();
    let mut pipeline = |wgsl: &str, name: &str, layout| -> Result<vk::Pipeline, String> {
        let hint = raw_nontemporal();
        let words = if let Some(policy) = raw_kernel_policy() {
            spirv_with(wgsl, policy)?
        } else {
            let m = vigil_shader::Module::from_wgsl(wgsl, name).map_err(|d| d.to_string())?;
            // Nontemporal is a memory operand of SPIR-V 1.4 on.
            let version = if hint.is_some() { (1, 4) } else { (1, 3) };
            m.to_spirv(&vigil_shader::SpirvOptions {
                version,
                ..vigil_shader::SpirvOptions::default()
            })
            .map_err(|d| d.to_string())?
        };
        let words = match hint {
            Some((loads, stores)) if raw_kernel_policy().is_none() => {
                nontemporal(words, loads, stores)
            }
            _ => words,
        };
        let words = match raw_restrict() {
            Some(all) => restrict_storage(words, all),
            None => words,
        };
        let shader = raw.shader(&words)?;
        modules.push(shader);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(Raw::entry_name());
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)];
        // SAFETY: module and layout match (the same WGSL vigil checks).
        unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
            .map_err(|(_, e)| err(e))
            .map(|p| p[0])
    };
    let fill = pipeline(&fill_shader(), "fill.wgsl", fill_pl)?;
    let copy = pipeline(&size.kernel.wgsl(), "copy.wgsl", copy_pl)?;
    let n = size.pairs() as u32;
    let pool = raw.descriptor_pool(2 * n, &[(sb, 3 * n)], false)?;
    let mut pairs: Vec<(RawBuffer, RawBuffer, vk::DescriptorSet, vk::DescriptorSet)> = Vec::new();
    let mut made = Ok(());
    for _ in 0..n {
        let mk = |raw: &mut Raw| {
            raw.buffer(
                size.chunk,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                gpu_allocator::MemoryLocation::GpuOnly,
            )
        };
        let (src, dst) = match (mk(raw), mk(raw)) {
            (Ok(s), Ok(d)) => (s, d),
            (a, b) => {
                made = Err(a.err().or(b.err()).unwrap_or_default());
                break;
            }
        };
        let sets = raw
            .allocate_set(pool, fill_dsl)
            .and_then(|f| Ok((f, raw.allocate_set(pool, copy_dsl)?)));
        let (fs, cs) = match sets {
            Ok(s) => s,
            Err(e) => {
                made = Err(e);
                break;
            }
        };
        let whole = |b: &RawBuffer| Bind::Buffer(sb, b.raw, 0, vk::WHOLE_SIZE);
        raw.write_set(fs, &[(0, whole(&src))]);
        raw.write_set(cs, &[(0, whole(&src)), (1, whole(&dst))]);
        pairs.push((src, dst, fs, cs));
    }
    // Buffers as large as the destinations for the fill command.
    let mut fills = Vec::new();
    for _ in 0..n {
        match raw.buffer(
            size.chunk,
            vk::BufferUsageFlags::TRANSFER_DST,
            gpu_allocator::MemoryLocation::GpuOnly,
        ) {
            Ok(f) => fills.push(f),
            Err(err) => {
                made = made.and(Err(err));
                break;
            }
        }
    }
    let queries = raw.timestamps(6)?;
    let period = f64::from(raw.timestamp_period);
    let (cmd_pool, cb) = raw.command_buffer()?;
    let dispatch_all = |raw: &Raw, pipeline, layout, copy_sets: bool| {
        let [x, y] = if copy_sets {
            size.copy_dispatch()
        } else {
            [WORKGROUPS, 1]
        };
        // SAFETY: recording; a compute pipeline.
        unsafe { d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline) };
        for p in &pairs {
            let set = [if copy_sets { p.3 } else { p.2 }];
            // SAFETY: a set of the pipeline's layout.
            unsafe {
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &set, &[])
            };
            // SAFETY: pipeline and set bound.
            unsafe { d.cmd_dispatch(cb, x, y, 1) };
        }
        let _ = raw;
    };
    let result = made.and_then(|()| {
        raw.begin(cmd_pool, cb)?;
        raw.barrier(
            cb,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
        );
        dispatch_all(raw, fill, fill_pl, false);
        raw.end(cb)?;
        let s = raw.submit(&[cb])?;
        raw.wait(s)?;
        // One submission of `work` between timestamps `at` and `at + 1` (reset first),
        // after a barrier from everything before to `to`: the GPU time between them.
        let timed = |raw: &mut Raw, at: u32, to: vk::PipelineStageFlags2, work: &dyn Fn(&Raw)| {
            raw.begin(cmd_pool, cb)?;
            // SAFETY: recording, outside any pass.
            unsafe { d.cmd_reset_query_pool(cb, queries, at, 2) };
            raw.barrier(cb, vk::PipelineStageFlags2::ALL_COMMANDS, to);
            // SAFETY: the query was reset above.
            unsafe {
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, queries, at)
            };
            work(raw);
            // SAFETY: as above.
            unsafe {
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, queries, at + 1)
            };
            raw.end(cb)?;
            let s = raw.submit(&[cb])?;
            raw.wait(s)?;
            // Queries below `at` keep the ticks of earlier submissions of this repetition
            // (read already), so every query up to `at + 1` is available.
            let t = raw.query_results(queries, at + 2)?;
            let (start, end) = (t[at as usize], t[at as usize + 1]);
            Ok::<_, String>(Duration::from_secs_f64(
                end.saturating_sub(start) as f64 * period * 1e-9,
            ))
        };
        repeat(plan, || {
            let kernel = timed(raw, 0, vk::PipelineStageFlags2::COMPUTE_SHADER, &|raw| {
                dispatch_all(raw, copy, copy_pl, true)
            })?;
            // The copy command over the same bytes, after the kernel's writes.
            let command = timed(raw, 2, vk::PipelineStageFlags2::ALL_TRANSFER, &|_| {
                for (k, p) in (0u64..).zip(&pairs) {
                    let region: Vec<vk::BufferCopy> = size
                        .copy_pieces(k)
                        .map(|(at, len)| {
                            vk::BufferCopy::default()
                                .src_offset(at)
                                .dst_offset(at)
                                .size(len)
                        })
                        .collect();
                    if region.is_empty() {
                        continue;
                    }
                    // SAFETY: regions within two buffers of `size.chunk` bytes of this device.
                    unsafe { d.cmd_copy_buffer(cb, p.0.raw, p.1.raw, &region) };
                }
            })?;
            // Last, the fill command over buffers of their own.
            let fill_command = timed(raw, 4, vk::PipelineStageFlags2::ALL_TRANSFER, &|_| {
                for (k, f) in (0u64..).zip(&fills) {
                    for (at, len) in size.fill_pieces(k) {
                        let len = len.unwrap_or(vk::WHOLE_SIZE);
                        // SAFETY: a range of a buffer of this device (4-byte multiples), zero.
                        unsafe { d.cmd_fill_buffer(cb, f.raw, at, len, 0) };
                    }
                }
            })?;
            Ok([kernel, command, fill_command])
        })
    });
    let output = match &result {
        Ok(_) => {
            let mut read = |k: u64, at: u64| -> Result<Vec<u8>, String> {
                let probe = raw.buffer(
                    PROBE,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    gpu_allocator::MemoryLocation::GpuToCpu,
                )?;
                let (src, dst) = (pairs[k as usize].1.raw, probe.raw);
                let r = raw.one_shot(|raw, cb| {
                    let region = [vk::BufferCopy::default().src_offset(at).size(PROBE)];
                    // SAFETY: in-range copy between buffers of this device.
                    unsafe { raw.device.cmd_copy_buffer(cb, src, dst, &region) };
                });
                let out = r.and_then(|()| raw.read(&probe, 0, PROBE as usize));
                raw.destroy_buffer(probe);
                out
            };
            Some(probes(&mut read, size))
        }
        Err(_) => None,
    };
    // SAFETY: idle (every submission was waited for); objects created above.
    unsafe { d.destroy_command_pool(cmd_pool, None) };
    // SAFETY: as above.
    unsafe { d.destroy_query_pool(queries, None) };
    // SAFETY: as above.
    unsafe { d.destroy_descriptor_pool(pool, None) };
    for p in [fill, copy] {
        // SAFETY: as above.
        unsafe { d.destroy_pipeline(p, None) };
    }
    for l in [fill_pl, copy_pl] {
        // SAFETY: as above.
        unsafe { d.destroy_pipeline_layout(l, None) };
    }
    for l in [fill_dsl, copy_dsl] {
        // SAFETY: as above.
        unsafe { d.destroy_descriptor_set_layout(l, None) };
    }
    for m in modules {
        // SAFETY: as above.
        unsafe { d.destroy_shader_module(m, None) };
    }
    for (src, dst, _, _) in pairs {
        raw.destroy_buffer(src);
        raw.destroy_buffer(dst);
    }
    for f in fills {
        raw.destroy_buffer(f);
    }
    let [gpu, command, fill_command] = result?;
    Ok(PathResult {
        path: "ash",
        metrics: vec![
            ("gpu copy", gpu),
            ("copy command", command),
            ("fill command", fill_command),
        ],
        output: output.ok_or("no output")??,
    })
}

/// Through wgpu.
pub fn wgpu(w: &Wgpu, size: Size, plan: Plan) -> Result<PathResult, String> {
    let dev = &w.device;
    let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let fill_bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("fill"),
        entries: &[storage(0, false)],
    });
    let copy_bgl = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("copy"),
        entries: &[storage(0, true), storage(1, false)],
    });
    let pipeline = |label, wgsl: String, bgl: &wgpu::BindGroupLayout| {
        let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(bgl)],
            immediate_size: 0,
        });
        dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let fill = pipeline("fill", fill_shader(), &fill_bgl);
    let copy = pipeline("copy", size.kernel.wgsl(), &copy_bgl);
    let pairs: Vec<_> = (0..size.pairs())
        .map(|_| {
            let buffer = |label| {
                dev.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.chunk,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            let (src, dst) = (buffer("src"), buffer("dst"));
            let fill_group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("fill"),
                layout: &fill_bgl,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                }],
            });
            let copy_group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("copy"),
                layout: &copy_bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: src.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: dst.as_entire_binding(),
                    },
                ],
            });
            (src, dst, fill_group, copy_group)
        })
        .collect();
    // Buffers as large as the destinations for the fill command.
    let fills: Vec<wgpu::Buffer> = (0..size.pairs())
        .map(|_| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("filled"),
                size: size.chunk,
                usage: wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect();
    let queries = dev.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bandwidth"),
        ty: wgpu::QueryType::Timestamp,
        count: 6,
    });
    let resolve = dev.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ticks"),
        // The copy command's two ticks at 256 (the resolve alignment), the fill's at 512.
        size: 528,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&fill);
        for p in &pairs {
            pass.set_bind_group(0, &p.2, &[]);
            pass.dispatch_workgroups(WORKGROUPS, 1, 1);
        }
    }
    w.queue.submit([enc.finish()]);
    let period = f64::from(w.queue.get_timestamp_period());
    // Timestamps outside passes need a feature of their own: empty passes whose timestamps
    // bound the commands between them.
    let stamp = |enc: &mut wgpu::CommandEncoder, at: u32| {
        drop(enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("stamp"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(at),
                end_of_pass_write_index: None,
            }),
        }));
    };
    let [gpu, command, fill_command] = repeat(plan, || {
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("copy"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&copy);
            for p in &pairs {
                pass.set_bind_group(0, &p.3, &[]);
                let [x, y] = size.copy_dispatch();
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        enc.resolve_query_set(&queries, 0..2, &resolve, 0);
        w.queue.submit([enc.finish()]);
        let t = w.read(&resolve, 16)?;
        let kernel = elapsed(&t, period);
        // The copy command over the same bytes, between two empty passes.
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        stamp(&mut enc, 2);
        for (k, p) in (0u64..).zip(&pairs) {
            for (at, len) in size.copy_pieces(k) {
                enc.copy_buffer_to_buffer(&p.0, at, &p.1, at, len);
            }
        }
        stamp(&mut enc, 3);
        enc.resolve_query_set(&queries, 2..4, &resolve, 256);
        w.queue.submit([enc.finish()]);
        let t = w.read_range(&resolve, 256, 16)?;
        let command = elapsed(&t, period);
        // Last, the fill command over buffers of their own.
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        stamp(&mut enc, 4);
        for (k, f) in (0u64..).zip(&fills) {
            for (at, len) in size.fill_pieces(k) {
                enc.clear_buffer(f, at, len);
            }
        }
        stamp(&mut enc, 5);
        enc.resolve_query_set(&queries, 4..6, &resolve, 512);
        w.queue.submit([enc.finish()]);
        let t = w.read_range(&resolve, 512, 16)?;
        Ok([kernel, command, elapsed(&t, period)])
    })?;
    let output = probes(
        &mut |k, at| w.read_range(&pairs[k as usize].1, at, PROBE),
        size,
    )?;
    for (src, dst, _, _) in &pairs {
        src.destroy();
        dst.destroy();
    }
    for f in &fills {
        f.destroy();
    }
    drop(pairs);
    drop(fills);
    w.wait()?;
    Ok(PathResult {
        path: "wgpu",
        metrics: vec![
            ("gpu copy", gpu),
            ("copy command", command),
            ("fill command", fill_command),
        ],
        output,
    })
}

/// How raw ash's kernels check their indices, when not as vigil's do: with
/// `VIGIL_BENCH_RAW_KERNELS=unchecked` not at all, with `=clamped` by clamping each index
/// to the array (naga's `Restrict`). To measure what vigil's read-zero/skip-write checks
/// cost the copy, against the same WGSL.
fn raw_kernel_policy() -> Option<naga::proc::BoundsCheckPolicy> {
    match std::env::var("VIGIL_BENCH_RAW_KERNELS").ok().as_deref() {
        Some("unchecked") => Some(naga::proc::BoundsCheckPolicy::Unchecked),
        Some("clamped") => Some(naga::proc::BoundsCheckPolicy::Restrict),
        _ => None,
    }
}

/// Which of raw ash's storage buffers its kernels declare `Restrict` (no other binding
/// aliases them): with `VIGIL_BENCH_RAW_RESTRICT=read` the read-only ones, with `=all`
/// every one; else none. To measure whether the driver's compiler loads differently when
/// told so (on the H200 it did not: `docs/results/s39-h200/`).
fn raw_restrict() -> Option<bool> {
    match std::env::var("VIGIL_BENCH_RAW_RESTRICT").ok().as_deref() {
        Some("read") => Some(false),
        Some("all") => Some(true),
        _ => None,
    }
}

/// `(word index, opcode, operands)` of each instruction of SPIR-V `words` after the
/// five-word header.
fn instructions(words: &[u32]) -> Vec<(usize, u32, &[u32])> {
    let mut insts = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let n = (first >> 16) as usize;
        let Some(operands) = words.get(at + 1..at + n.max(1)) else {
            break;
        };
        if n == 0 {
            break;
        }
        insts.push((at, first & 0xffff, operands));
        at += n;
    }
    insts
}

/// Which of raw ash's kernel memory accesses carry SPIR-V's `Nontemporal` hint (the data
/// will not be used again soon, so caches need not keep it): with
/// `VIGIL_BENCH_RAW_NONTEMPORAL=all` loads and stores, `=loads` or `=stores` one kind;
/// else none. To measure whether the driver's compiler streams the copy past the caches
/// when told so, as CUDA's own copy may. Ignored with `VIGIL_BENCH_RAW_KERNELS`.
fn raw_nontemporal() -> Option<(bool, bool)> {
    match std::env::var("VIGIL_BENCH_RAW_NONTEMPORAL").ok().as_deref() {
        Some("all") => Some((true, true)),
        Some("loads") => Some((true, false)),
        Some("stores") => Some((false, true)),
        _ => None,
    }
}

/// `words` (SPIR-V 1.4 or later) with the `Nontemporal` memory operand on every `OpLoad`
/// (when `loads`) and `OpStore` (when `stores`) through a pointer into a storage buffer.
fn nontemporal(words: Vec<u32>, loads: bool, stores: bool) -> Vec<u32> {
    const OP_LOAD: u32 = 61;
    const OP_STORE: u32 = 62;
    const OP_ACCESS_CHAIN: u32 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    const OP_TYPE_POINTER: u32 = 32;
    const STORAGE_BUFFER: u32 = 12;
    const NONTEMPORAL: u32 = 0x4;
    let Some(header) = words.get(..5) else {
        return words;
    };
    let insts: Vec<(u32, Vec<u32>)> = instructions(&words)
        .into_iter()
        .map(|(_, op, o)| (op, o.to_vec()))
        .collect();
    // Pointer types into storage buffers, then the pointers (access chains) of those types.
    let types: Vec<u32> = insts
        .iter()
        .filter(|(op, o)| *op == OP_TYPE_POINTER && o.get(1) == Some(&STORAGE_BUFFER))
        .filter_map(|(_, o)| o.first().copied())
        .collect();
    let pointers: Vec<u32> = insts
        .iter()
        .filter(|(op, o)| {
            (*op == OP_ACCESS_CHAIN || *op == OP_IN_BOUNDS_ACCESS_CHAIN)
                && o.first().is_some_and(|t| types.contains(t))
        })
        .filter_map(|(_, o)| o.get(1).copied())
        .collect();
    let mut out = header.to_vec();
    for (op, mut o) in insts {
        // OpLoad: type, result, pointer, [memory operands]; OpStore: pointer, object, [..].
        let (hinted, mask_at) = match op {
            OP_LOAD if loads => (o.get(2).is_some_and(|p| pointers.contains(p)), 3),
            OP_STORE if stores => (o.first().is_some_and(|p| pointers.contains(p)), 2),
            _ => (false, 0),
        };
        if hinted {
            match o.get_mut(mask_at) {
                Some(m) => *m |= NONTEMPORAL,
                None => o.push(NONTEMPORAL),
            }
        }
        out.push(((o.len() as u32 + 1) << 16) | op);
        out.extend(o);
    }
    out
}

/// `words` with a `Restrict` decoration on each storage buffer variable, only the
/// `NonWritable` ones unless `all`, placed before the module's first `OpDecorate`.
fn restrict_storage(words: Vec<u32>, all: bool) -> Vec<u32> {
    const OP_DECORATE: u32 = 71;
    const OP_VARIABLE: u32 = 59;
    const OP_TYPE_POINTER: u32 = 32;
    const RESTRICT: u32 = 19;
    const NON_WRITABLE: u32 = 24;
    const STORAGE_BUFFER: u32 = 12;
    let insts = instructions(&words);
    let pointers: Vec<u32> = insts
        .iter()
        .filter(|(_, op, o)| *op == OP_TYPE_POINTER && o.get(1) == Some(&STORAGE_BUFFER))
        .filter_map(|(_, _, o)| o.first().copied())
        .collect();
    let read_only: Vec<u32> = insts
        .iter()
        .filter(|(_, op, o)| *op == OP_DECORATE && o.get(1) == Some(&NON_WRITABLE))
        .filter_map(|(_, _, o)| o.first().copied())
        .collect();
    let chosen: Vec<u32> = insts
        .iter()
        .filter(|(_, op, o)| *op == OP_VARIABLE && o.first().is_some_and(|t| pointers.contains(t)))
        .filter_map(|(_, _, o)| o.get(1).copied())
        .filter(|v| all || read_only.contains(v))
        .collect();
    let Some(&(first, _, _)) = insts.iter().find(|(_, op, _)| *op == OP_DECORATE) else {
        return words;
    };
    let mut out = words[..first].to_vec();
    for v in chosen {
        out.extend([(3 << 16) | OP_DECORATE, v, RESTRICT]);
    }
    out.extend_from_slice(&words[first..]);
    out
}

/// `wgsl` translated by naga with `policy` for every kind of index (raw ash's measuring
/// runs only: its indices stay in range by construction).
fn spirv_with(wgsl: &str, policy: naga::proc::BoundsCheckPolicy) -> Result<Vec<u32>, String> {
    use naga::proc::BoundsCheckPolicies;
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.to_string())?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .map_err(|e| e.to_string())?;
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: policy,
        },
        ..naga::back::spv::Options::default()
    };
    naga::back::spv::write_vec(&module, &info, &options, None).map_err(|e| e.to_string())
}

/// The host's reference, as a paired path named `reference`: on a machine with PyTorch
/// and CUDA, per repetition two `copy_`s of the same bytes (one against each of the paths'
/// two copies: the kernel and the copy command), then a `zero_` of a third tensor as large
/// (against the paths' fill command), timed with CUDA events (the device-to-device rate
/// `torch` reaches); else `memcpy` and `fill` of the same bytes on the host. What it was
/// goes into `what`.
pub fn reference(
    bytes: u64,
    plan: Plan,
    what: &std::sync::Mutex<String>,
) -> Result<PathResult, String> {
    use std::io::{BufRead, BufReader, Write};
    // One process for the whole phase: each line on stdin asks for one timed copy (or, for
    // `fill`, one zeroing of the destination), whose milliseconds come back as a line.
    const SCRIPT: &str = r#"
import sys, torch
n = int(sys.argv[1])
assert torch.cuda.is_available()
a = torch.empty(n, dtype=torch.uint8, device="cuda")
b = torch.empty_like(a)
c = torch.empty_like(a)
a.fill_(1)
for _ in range(3):
    b.copy_(a)
torch.cuda.synchronize()
print("ready", torch.cuda.get_device_name(0), flush=True)
for line in sys.stdin:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    if line.strip() == "fill":
        s.record(); c.zero_(); e.record(); e.synchronize()
    else:
        s.record(); b.copy_(a); e.record(); e.synchronize()
    print(s.elapsed_time(e), flush=True)
"#;
    let say = |w: String| {
        if let Ok(mut slot) = what.lock() {
            *slot = w;
        }
    };
    let child = std::process::Command::new("python3")
        .args(["-c", SCRIPT, &bytes.to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child
        && let (Some(mut input), Some(out)) = (child.stdin.take(), child.stdout.take())
    {
        let mut lines = BufReader::new(out).lines();
        if let Some(Ok(first)) = lines.next()
            && let Some(name) = first.strip_prefix("ready ")
        {
            say(format!("PyTorch copy_ on {name}"));
            let mut one = |what: &str| -> Result<Duration, String> {
                writeln!(input, "{what}").map_err(|e| format!("PyTorch reference: {e}"))?;
                let ms = lines
                    .next()
                    .and_then(Result::ok)
                    .and_then(|l| l.trim().parse::<f64>().ok())
                    .ok_or("PyTorch reference: no time")?;
                Ok(Duration::from_secs_f64(ms / 1e3))
            };
            // In the paths' order: the two copies, then the fill of a tensor of its own.
            let timed = repeat(plan, || Ok([one("go")?, one("go")?, one("fill")?]));
            drop(input);
            let _ = child.wait();
            let [copy, again, fill] = timed?;
            return Ok(PathResult {
                path: "reference",
                metrics: vec![
                    ("gpu copy", copy),
                    ("copy command", again),
                    ("fill command", fill),
                ],
                output: Vec::new(),
            });
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    // No CUDA PyTorch here: the host's own memcpy, single thread.
    say("host memcpy (one thread)".into());
    let src = vec![1u8; bytes as usize];
    let mut dst = vec![0u8; bytes as usize];
    let mut one = |fill: bool| {
        let t = Instant::now();
        if fill {
            dst.fill(0);
        } else {
            dst.copy_from_slice(&src);
        }
        std::hint::black_box(&mut dst);
        t.elapsed()
    };
    let [copy, again, fill] = repeat(plan, || Ok([one(false), one(false), one(true)]))?;
    Ok(PathResult {
        path: "reference",
        metrics: vec![
            ("gpu copy", copy),
            ("copy command", again),
            ("fill command", fill),
        ],
        output: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Restrict` goes on the copy kernel's read-only source alone, or on both of its
    /// storage buffers, and nothing else of the module changes.
    #[test]
    fn restrict_decorates_the_chosen_storage_buffers() {
        let m = vigil_shader::Module::from_wgsl(&Kernel::chosen().wgsl(), "copy").unwrap();
        let words = m.to_spirv(&vigil_shader::SpirvOptions::default()).unwrap();
        let restricts = |w: &[u32]| {
            w.windows(3)
                .filter(|x| x[0] == (3 << 16 | 71) && x[2] == 19)
                .map(|x| x[1])
                .collect::<Vec<_>>()
        };
        assert!(restricts(&words).is_empty());
        let read = restrict_storage(words.clone(), false);
        let all = restrict_storage(words.clone(), true);
        assert_eq!(read.len(), words.len() + 3);
        assert_eq!(all.len(), words.len() + 6);
        let (r, a) = (restricts(&read), restricts(&all));
        assert_eq!(r.len(), 1);
        assert_eq!(a.len(), 2);
        assert!(a.contains(&r[0]));
        // The one read-only variable is the one decorated NonWritable (24).
        assert!(
            words
                .windows(3)
                .any(|x| x[0] == (3 << 16 | 71) && x[1] == r[0] && x[2] == 24)
        );
        let mut rest = read.clone();
        let at = rest
            .windows(3)
            .position(|x| x == [3 << 16 | 71, r[0], 19])
            .unwrap();
        rest.drain(at..at + 3);
        assert_eq!(rest, words);
    }

    /// `Nontemporal` goes on the default kernel's four storage loads and four stores (and
    /// on nothing else), and the module stays valid SPIR-V 1.4 for Vulkan.
    #[test]
    fn nontemporal_marks_the_storage_loads_and_stores_and_stays_valid() {
        let m = vigil_shader::Module::from_wgsl(&Kernel::chosen().wgsl(), "copy").unwrap();
        let words = m
            .to_spirv(&vigil_shader::SpirvOptions {
                version: (1, 4),
                ..vigil_shader::SpirvOptions::default()
            })
            .unwrap();
        // (opcode, memory operand mask) of each load and store.
        let accesses = |w: &[u32]| {
            let mut found = Vec::new();
            let mut at = 5;
            while let Some(&first) = w.get(at) {
                let (n, op) = ((first >> 16) as usize, first & 0xffff);
                let mask_at = match op {
                    61 => Some(4),
                    62 => Some(3),
                    _ => None,
                };
                if let Some(k) = mask_at {
                    found.push((op, if k < n { w[at + k] } else { 0 }));
                }
                at += n.max(1);
            }
            found
        };
        let count = |w: &[u32], op: u32| {
            accesses(w)
                .iter()
                .filter(|(o, m)| *o == op && m & 4 != 0)
                .count()
        };
        assert_eq!((count(&words, 61), count(&words, 62)), (0, 0));
        let all = nontemporal(words.clone(), true, true);
        assert_eq!((count(&all, 61), count(&all, 62)), (4, 4));
        let loads = nontemporal(words.clone(), true, false);
        assert_eq!((count(&loads, 61), count(&loads, 62)), (4, 0));
        // Nothing but the masks changed: the same instructions, one word longer at most.
        assert_eq!(accesses(&all).len(), accesses(&words).len());
        assert!(all.len() <= words.len() + 8);
        let dir = std::env::temp_dir().join(format!("vigil-nt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("copy.spv");
        let bytes: Vec<u8> = all.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, bytes).unwrap();
        let out = std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.2"])
            .arg(&file)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Every shape a setting can name.
    fn shapes() -> Vec<(u32, u32, u32)> {
        let mut all = Vec::new();
        for loads in [1, 2, 4, 8, 16] {
            for workgroup in [32, 64, 128, 256, 512, 1024] {
                for rounds in [1, 2, 4, 8, 16, 32, 64, 128, 256] {
                    let k = Kernel::from_setting(Some(&format!("{loads},{workgroup},{rounds}")));
                    if k.rounds == rounds && k.loads == loads && k.workgroup == workgroup {
                        all.push((loads, workgroup, rounds));
                    }
                }
            }
        }
        all
    }

    /// A count of copies is shared over the pairs, the first ones taking one more where
    /// it does not divide; one copy is the first pair's first piece alone, and its fill
    /// the first pair's buffer alone.
    #[test]
    fn copy_counts_are_shared_over_the_pairs() {
        let size = |piece: u64, copies: u64| Size {
            total: 4 << 30,
            chunk: 512 << 20,
            kernel: Kernel::chosen(),
            piece,
            copies,
        };
        let counts = |s: Size| {
            (0..s.pairs())
                .map(|k| s.copy_pieces(k).count())
                .collect::<Vec<_>>()
        };
        let s = size(64 << 10, MAX_COPIES);
        assert_eq!(counts(s), vec![8192; 8]);
        assert_eq!(s.command_bytes(), 4 << 30);
        assert_eq!(counts(size(64 << 10, 10)), vec![2, 2, 1, 1, 1, 1, 1, 1]);
        let one = size(64 << 10, 1);
        assert_eq!(counts(one), vec![1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(one.copy_pieces(0).collect::<Vec<_>>(), vec![(0, 64 << 10)]);
        assert_eq!(one.command_bytes(), 64 << 10);
        let whole = size(512 << 20, 1);
        assert_eq!(whole.fill_pieces(0), vec![(0, None)]);
        assert!(whole.fill_pieces(1).is_empty());
        assert_eq!(size(512 << 20, MAX_COPIES).fill_pieces(7), vec![(0, None)]);
    }

    #[test]
    fn every_kernel_shape_covers_its_chunk_exactly_within_the_dispatch_limit() {
        for (loads, workgroup, rounds) in shapes() {
            for chunk_mib in [16u64, 64, 128, 512, 1024] {
                let kernel = Kernel {
                    loads,
                    workgroup,
                    rounds,
                    block: false,
                };
                let size = Size {
                    total: 4 << 30,
                    chunk: chunk_mib << 20,
                    kernel,
                    piece: chunk_mib << 20,
                    copies: MAX_COPIES,
                };
                let [x, y] = size.copy_dispatch();
                assert!(x <= 65_535 && y <= 65_535, "{kernel:?} {chunk_mib} MiB");
                let threads = u64::from(x) * u64::from(y) * u64::from(workgroup);
                assert_eq!(
                    threads * u64::from(loads) * u64::from(rounds) * 16,
                    size.chunk,
                    "{kernel:?} {chunk_mib} MiB"
                );
            }
        }
    }

    #[test]
    fn every_kernel_shape_is_valid_wgsl_with_one_load_and_store_per_element() {
        for loads in [1, 4, 16] {
            for workgroup in [32, 256, 1024] {
                for (rounds, block) in [(1, false), (8, false), (1, true), (8, true)] {
                    let wgsl = Kernel {
                        loads,
                        workgroup,
                        rounds,
                        block,
                    }
                    .wgsl();
                    assert_eq!(wgsl.matches("= src[").count() as u32, loads);
                    assert_eq!(wgsl.matches("dst[i").count() as u32, loads);
                    assert_eq!(wgsl.contains("for (var r"), rounds > 1);
                    assert_eq!(wgsl.contains("u * stride]"), !block);
                    assert!(wgsl.contains(&format!("@workgroup_size({workgroup})")));
                    if let Err(d) = vigil_shader::Module::from_wgsl(&wgsl, "copy.wgsl") {
                        panic!("{loads} x {workgroup} x {rounds} block {block}: {d}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_kernel_setting_names_a_shape_or_leaves_the_default() {
        let k = |loads, workgroup, rounds| Kernel {
            loads,
            workgroup,
            rounds,
            block: false,
        };
        assert_eq!(Kernel::from_setting(None), k(4, 256, 1));
        assert_eq!(Kernel::from_setting(Some("8,128")), k(8, 128, 1));
        assert_eq!(Kernel::from_setting(Some(" 2 , 1024 ")), k(2, 1024, 1));
        assert_eq!(Kernel::from_setting(Some("4,256,16")), k(4, 256, 16));
        assert_eq!(
            Kernel::from_setting(Some("8,128,1,block")),
            Kernel {
                block: true,
                ..k(8, 128, 1)
            }
        );
        for bad in [
            "block",
            "4,256,block,1",
            "3,256",
            "4,2048",
            "4,16",
            "32,256",
            "4",
            "4,256,3",
            "4,256,1,1",
            "16,1024,32",
            "x,y",
            "",
        ] {
            assert_eq!(Kernel::from_setting(Some(bad)), k(4, 256, 1), "{bad}");
        }
    }
}
