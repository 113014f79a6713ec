//! Seeded random work on a real device compared with a CPU model of the bytes: queue
//! writes, copies, clears and compute dispatches over four buffers, several commands per
//! command buffer and several command buffers per submission, with submissions paused at
//! times. The model applies a write at its call (it lands before the next submission) and
//! a submission's commands in order at the submission. A wrong order shows as different
//! bytes; a missing barrier as a synchronization-validation message (the layer is on).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Pauses, bytes_of, gpu};
use std::collections::HashMap;
use vigil::*;

const WORDS: u32 = 64;
const BUFFERS: usize = 4;
/// Parameter buffers: one per dispatch of a submission.
const PARAMS: usize = 8;

const KERNEL: &str = r#"
struct P { mul: u32, add: u32, start: u32, count: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < p.count {
        dst[p.start + id.x] = src[p.start + id.x] * p.mul + p.add;
    }
}
"#;

/// A small deterministic generator (xorshift64*), so a failing sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A range of words `(start, count)`, count at least 1.
    fn range(&mut self) -> (u32, u32) {
        let count = 1 + self.below(u64::from(WORDS)) as u32;
        (self.below(u64::from(WORDS - count) + 1) as u32, count)
    }
}

/// One command of a submission, as the model applies it.
#[derive(Debug)]
enum Op {
    Copy {
        from: usize,
        to: usize,
        src: u32,
        dst: u32,
        count: u32,
    },
    Clear {
        buffer: usize,
        start: u32,
        count: u32,
    },
    Dispatch {
        from: usize,
        to: usize,
        mul: u32,
        add: u32,
        start: u32,
        count: u32,
    },
}

fn apply(model: &mut [Vec<u32>; BUFFERS], op: &Op) {
    match *op {
        Op::Copy {
            from,
            to,
            src,
            dst,
            count,
        } => {
            let moved: Vec<u32> = model[from][src as usize..][..count as usize].to_vec();
            model[to][dst as usize..][..count as usize].copy_from_slice(&moved);
        }
        Op::Clear {
            buffer,
            start,
            count,
        } => model[buffer][start as usize..][..count as usize].fill(0),
        Op::Dispatch {
            from,
            to,
            mul,
            add,
            start,
            count,
        } => {
            let range = start as usize..(start + count) as usize;
            let computed: Vec<u32> = model[from][range.clone()]
                .iter()
                .map(|v| v.wrapping_mul(mul).wrapping_add(add))
                .collect();
            model[to][range].copy_from_slice(&computed);
        }
    }
}

struct Kernel {
    pipeline: ComputePipeline,
    layout: BindGroupLayout,
}

fn kernel(d: &Device) -> Kernel {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "model kernel",
            wgsl: KERNEL,
        })
        .unwrap();
    let entry = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "model kernel",
            entries: &[
                entry(0, BufferBindingType::Uniform),
                entry(1, BufferBindingType::Storage { read_only: true }),
                entry(2, BufferBindingType::Storage { read_only: false }),
            ],
        })
        .unwrap();
    let pl = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "model kernel",
            bind_group_layouts: &[layout],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "model kernel",
            layout: pl,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    Kernel { pipeline, layout }
}

fn buffer(d: &Device, label: &str, size: u64, usage: BufferUsages) -> Buffer {
    d.create_buffer(&BufferDescriptor { label, size, usage })
        .unwrap()
}

#[test]
fn random_writes_copies_clears_and_dispatches_match_a_model() {
    for seed in 1..=8u64 {
        let d = gpu();
        let k = kernel(&d);
        let bufs: Vec<Buffer> = (0..BUFFERS)
            .map(|_| {
                buffer(
                    &d,
                    "data",
                    u64::from(WORDS) * 4,
                    BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
                )
            })
            .collect();
        let params: Vec<Buffer> = (0..PARAMS)
            .map(|_| {
                buffer(
                    &d,
                    "params",
                    16,
                    BufferUsages::UNIFORM | BufferUsages::COPY_DST,
                )
            })
            .collect();
        let mut groups: HashMap<(usize, usize, usize), BindGroup> = HashMap::new();
        let mut group = |p: usize, from: usize, to: usize| {
            *groups.entry((p, from, to)).or_insert_with(|| {
                d.create_bind_group(&BindGroupDescriptor {
                    label: "model group",
                    layout: k.layout,
                    entries: &[
                        BindGroupEntry {
                            binding: 0,
                            resource: BindingResource::Buffer(BufferBinding::whole(params[p])),
                        },
                        BindGroupEntry {
                            binding: 1,
                            resource: BindingResource::Buffer(BufferBinding::whole(bufs[from])),
                        },
                        BindGroupEntry {
                            binding: 2,
                            resource: BindingResource::Buffer(BufferBinding::whole(bufs[to])),
                        },
                    ],
                })
                .unwrap()
            })
        };
        let mut model: [Vec<u32>; BUFFERS] = std::array::from_fn(|_| vec![0; WORDS as usize]);
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut pauses = Pauses::default();
        let mut log: Vec<String> = Vec::new();
        let mut value = seed as u32;
        let mut write =
            |d: &Device, r: &mut Rng, model: &mut [Vec<u32>; BUFFERS], log: &mut Vec<String>| {
                let b = r.below(BUFFERS as u64) as usize;
                let (start, count) = r.range();
                let words: Vec<u32> = (0..count)
                    .map(|_| {
                        value = value.wrapping_mul(2_654_435_761).wrapping_add(1);
                        value
                    })
                    .collect();
                d.write_buffer(bufs[b], u64::from(start) * 4, &bytes_of(&words))
                    .unwrap();
                model[b][start as usize..][..count as usize].copy_from_slice(&words);
                log.push(format!("write {b} @{start} x{count}"));
            };
        for step in 0..250 {
            match r.below(8) {
                0..=2 => write(&d, &mut r, &mut model, &mut log),
                3..=5 => {
                    // A submission of 1 to 3 command buffers of 1 to 4 commands each; writes
                    // made while it is built land before it.
                    let mut ops = Vec::new();
                    let mut cbs = Vec::new();
                    let mut next_param = 0;
                    for _ in 0..1 + r.below(3) {
                        let mut e = d
                            .create_command_encoder(&CommandEncoderDescriptor { label: "model" })
                            .unwrap();
                        for _ in 0..1 + r.below(4) {
                            let pick = r.below(4);
                            let from = r.below(BUFFERS as u64) as usize;
                            let to = (from + 1 + r.below(BUFFERS as u64 - 1) as usize) % BUFFERS;
                            let (start, count) = r.range();
                            let op = if pick == 0 {
                                e.clear_buffer(
                                    bufs[to],
                                    u64::from(start) * 4,
                                    Some(u64::from(count) * 4),
                                )
                                .unwrap();
                                Op::Clear {
                                    buffer: to,
                                    start,
                                    count,
                                }
                            } else if pick == 1 && next_param < PARAMS {
                                let (mul, add) = (1 + r.below(5) as u32, r.below(1000) as u32);
                                d.write_buffer(
                                    params[next_param],
                                    0,
                                    &bytes_of(&[mul, add, start, count]),
                                )
                                .unwrap();
                                e.begin_compute_pass(&ComputePassDescriptor::default())
                                    .unwrap();
                                e.set_compute_pipeline(k.pipeline).unwrap();
                                e.set_bind_group(0, group(next_param, from, to), &[])
                                    .unwrap();
                                e.dispatch(1, 1, 1).unwrap();
                                e.end_compute_pass().unwrap();
                                next_param += 1;
                                Op::Dispatch {
                                    from,
                                    to,
                                    mul,
                                    add,
                                    start,
                                    count,
                                }
                            } else {
                                let dst = r.below(u64::from(WORDS - count) + 1) as u32;
                                e.copy_buffer_to_buffer(
                                    bufs[from],
                                    u64::from(start) * 4,
                                    bufs[to],
                                    u64::from(dst) * 4,
                                    u64::from(count) * 4,
                                )
                                .unwrap();
                                Op::Copy {
                                    from,
                                    to,
                                    src: start,
                                    dst,
                                    count,
                                }
                            };
                            ops.push(op);
                        }
                        cbs.push(e.finish().unwrap());
                        if r.below(4) == 0 {
                            write(&d, &mut r, &mut model, &mut log);
                        }
                    }
                    d.submit(cbs).unwrap();
                    for op in &ops {
                        apply(&mut model, op);
                    }
                    log.push(format!("submit {ops:?}"));
                    pauses.submitted(&d);
                }
                6 => {
                    pauses.toggle(&d, &mut log);
                }
                _ => {
                    pauses.resume(&d);
                    let b = r.below(BUFFERS as u64) as usize;
                    let got = common::read_u32(&d, bufs[b], WORDS as usize);
                    assert!(
                        got == model[b],
                        "seed {seed} step {step}: buffer {b} differs from the model\n got {got:?}\nwant {:?}\nafter:\n{}",
                        model[b],
                        log.join("\n")
                    );
                    log.push(format!("read {b}"));
                }
            }
        }
        d.seams().resume_submissions().unwrap();
        for (b, want) in model.iter().enumerate() {
            assert_eq!(
                &common::read_u32(&d, bufs[b], WORDS as usize),
                want,
                "seed {seed}: buffer {b} at the end"
            );
        }
    }
}
