//! Binding arrays, bind group writes, pools and untracked groups on a real device, with
//! the validation layer on: results are read back from the GPU.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Gpu, bytes_of, gpu_with, read_u32};
use std::num::NonZeroU32;
use std::time::Duration;
use vigil::*;

const ARRAY_FEATURES: Features = Features::TEXTURE_BINDING_ARRAY
    .union(Features::BUFFER_BINDING_ARRAY)
    .union(Features::STORAGE_RESOURCE_BINDING_ARRAY)
    .union(Features::BINDING_ARRAY_NON_UNIFORM_INDEXING)
    .union(Features::PARTIALLY_BOUND_BINDING_ARRAY)
    .union(Features::VARIABLE_COUNT_BINDING_ARRAY)
    .union(Features::UPDATE_AFTER_BIND_STORAGE_BUFFERS);

fn device() -> Gpu {
    gpu_with(|adapter| DeviceDescriptor {
        label: "binding arrays".into(),
        required_features: adapter.features() & ARRAY_FEATURES,
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    })
}

const STORAGE: BufferUsages = BufferUsages::STORAGE
    .union(BufferUsages::COPY_SRC)
    .union(BufferUsages::COPY_DST);

fn filled(d: &Device, words: &[u32]) -> Buffer {
    d.create_buffer_init(&BufferInitDescriptor {
        label: "data",
        contents: &bytes_of(words),
        usage: STORAGE,
    })
    .unwrap()
}

fn zeroed(d: &Device, words: u64) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label: "out",
        size: words * 4,
        usage: STORAGE,
    })
    .unwrap()
}

fn storage_entry(binding: u32, read_only: bool) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    }
}

fn array_of(
    entry: BindGroupLayoutEntry,
    count: u32,
    flags: BindingArrayFlags,
) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        array: Some(BindingArray {
            count: NonZeroU32::new(count).unwrap(),
            flags,
        }),
        ..entry
    }
}

/// A compute pipeline over one group with `entries`, entry point `main`.
fn kernel(
    d: &Device,
    wgsl: &str,
    entries: &[BindGroupLayoutEntry],
) -> (ComputePipeline, BindGroupLayout) {
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "arrays",
            wgsl,
        })
        .unwrap();
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "arrays",
            entries,
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "arrays",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "arrays",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    (pipeline, bgl)
}

/// A group of `layout` with the output buffer `out` at binding 0 and `array` at
/// binding 1, the shape of most kernels here.
fn out_and_array(
    d: &Device,
    layout: BindGroupLayout,
    label: &str,
    out: Buffer,
    array: BindingResource<'_>,
) -> BindGroup {
    d.create_bind_group(&BindGroupDescriptor {
        label,
        layout,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding::whole(out)),
            },
            BindGroupEntry {
                binding: 1,
                resource: array,
            },
        ],
    })
    .unwrap()
}

fn dispatch(d: &Device, pipeline: ComputePipeline, group: BindGroup, x: u32) -> u64 {
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "arrays" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(x, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

fn wait(d: &Device, serial: u64) {
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(20))
        .unwrap();
}

#[test]
fn each_invocation_reads_the_storage_buffer_its_own_index_picks() {
    let d = device();
    let (pipeline, bgl) = kernel(
        &d,
        "enable wgpu_binding_array;
        struct Data { v: array<u32, 4> }
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @group(0) @binding(1) var<storage, read> bufs: binding_array<Data, 4>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let k = id.x % 4u;
            out[id.x] = bufs[k].v[(id.x / 4u) % 4u];
        }",
        &[
            storage_entry(0, false),
            array_of(storage_entry(1, true), 4, BindingArrayFlags::empty()),
        ],
    );
    let bufs: Vec<Buffer> = (0..4u32)
        .map(|k| filled(&d, &[k * 10, k * 10 + 1, k * 10 + 2, k * 10 + 3]))
        .collect();
    let ranges: Vec<BufferBinding> = bufs.iter().map(|&b| BufferBinding::whole(b)).collect();
    let out = zeroed(&d, 64);
    let group = out_and_array(
        &d,
        bgl,
        "per invocation",
        out,
        BindingResource::BufferArray(&ranges),
    );
    wait(&d, dispatch(&d, pipeline, group, 1));
    let got = read_u32(&d, out, 64);
    let want: Vec<u32> = (0..64u32).map(|i| (i % 4) * 10 + (i / 4) % 4).collect();
    assert_eq!(got, want);
    // An element's buffer destroyed: work using the group is refused, as for any binding.
    d.destroy_buffer(bufs[2]).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "after" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, group, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let err = d.submit([e.finish().unwrap()]).unwrap_err();
    assert_eq!(err.rule(), Rule::SubmitDestroyed, "{err}");
}

#[test]
fn uniform_buffer_arrays_reach_the_driver_with_their_block_decoration() {
    // naga 30 leaves the array's struct without `Block`; vigil adds it (see
    // vigil-shader's spirv_fix), and the validation layer checks the module here.
    let d = device();
    let uniform = BindGroupLayoutEntry {
        binding: 1,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let (pipeline, bgl) = kernel(
        &d,
        "enable wgpu_binding_array;
        struct U { v: vec4<u32> }
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @group(0) @binding(1) var<uniform> u: binding_array<U, 3>;
        @compute @workgroup_size(1) fn main() {
            out[0] = u[0].v.x;
            out[1] = u[1].v.y;
            out[2] = u[2].v.w;
        }",
        &[
            storage_entry(0, false),
            array_of(uniform, 3, BindingArrayFlags::empty()),
        ],
    );
    let ranges: Vec<BufferBinding> = (0..3u32)
        .map(|k| {
            let b = d
                .create_buffer_init(&BufferInitDescriptor {
                    label: "uniform",
                    contents: &bytes_of(&[k, k + 10, k + 20, k + 30]),
                    usage: BufferUsages::UNIFORM,
                })
                .unwrap();
            BufferBinding::whole(b)
        })
        .collect();
    let out = zeroed(&d, 3);
    let group = out_and_array(
        &d,
        bgl,
        "uniforms",
        out,
        BindingResource::BufferArray(&ranges),
    );
    wait(&d, dispatch(&d, pipeline, group, 1));
    assert_eq!(read_u32(&d, out, 3), vec![0, 11, 32]);
}

#[test]
fn textures_and_samplers_are_read_through_their_arrays() {
    let d = device();
    let sampled = BindGroupLayoutEntry {
        binding: 1,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Float { filterable: true },
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        array: None,
    };
    let sampler = BindGroupLayoutEntry {
        binding: 2,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Sampler(SamplerBindingType::Filtering),
        array: None,
    };
    let (pipeline, bgl) = kernel(
        &d,
        "enable wgpu_binding_array;
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @group(0) @binding(1) var texs: binding_array<texture_2d<f32>, 3>;
        @group(0) @binding(2) var samps: binding_array<sampler, 2>;
        @compute @workgroup_size(1) fn main() {
            for (var i = 0u; i < 3u; i++) {
                out[i] = u32(textureLoad(texs[i], vec2(0u), 0).r * 255.0 + 0.5);
                let s = textureSampleLevel(texs[i], samps[i % 2u], vec2(0.5), 0.0);
                out[3u + i] = u32(s.g * 255.0 + 0.5);
            }
        }",
        &[
            storage_entry(0, false),
            array_of(sampled, 3, BindingArrayFlags::empty()),
            array_of(sampler, 2, BindingArrayFlags::empty()),
        ],
    );
    let views: Vec<TextureView> = (0..3u8)
        .map(|k| {
            let t = d
                .create_texture(&TextureDescriptor {
                    label: "texel",
                    usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
                    ..TextureDescriptor::default()
                })
                .unwrap();
            d.write_texture(
                t,
                TexelCopyTextureInfo::default(),
                &[40 * (k + 1), 7 * (k + 1), 0, 255],
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: 4,
                    rows_per_image: None,
                },
                [1, 1, 1],
            )
            .unwrap();
            d.create_texture_view(t, &TextureViewDescriptor::default())
                .unwrap()
        })
        .collect();
    let samplers: Vec<Sampler> = (0..2)
        .map(|_| {
            d.create_sampler(&SamplerDescriptor {
                mag_filter: FilterMode::Linear,
                min_filter: FilterMode::Linear,
                ..SamplerDescriptor::default()
            })
            .unwrap()
        })
        .collect();
    let out = zeroed(&d, 6);
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "textures",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(out)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureViewArray(&views),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::SamplerArray(&samplers),
                },
            ],
        })
        .unwrap();
    wait(&d, dispatch(&d, pipeline, group, 1));
    assert_eq!(read_u32(&d, out, 6), vec![40, 80, 120, 7, 14, 21]);
}

/// `out[0] = sum of bufs[k].v[0]` for `k < N`, over a partially bound array of 4.
fn sum_kernel(
    d: &Device,
    n: u32,
    bgl_flags: BindingArrayFlags,
) -> (ComputePipeline, BindGroupLayout) {
    kernel(
        d,
        &format!(
            "enable wgpu_binding_array;
            struct Data {{ v: array<u32, 4> }}
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @group(0) @binding(1) var<storage, read> bufs: binding_array<Data, {n}>;
            @compute @workgroup_size(1) fn main() {{
                var s = 0u;
                for (var k = 0u; k < {n}u; k++) {{ s += bufs[k].v[0]; }}
                out[0] = s;
            }}"
        ),
        &[
            storage_entry(0, false),
            array_of(storage_entry(1, true), 4, bgl_flags),
        ],
    )
}

fn write(d: &Device, g: BindGroup, first_element: u32, buffers: &[Buffer]) -> vigil::Result<()> {
    let ranges: Vec<BufferBinding> = buffers.iter().map(|&b| BufferBinding::whole(b)).collect();
    d.write_bind_group(
        g,
        &[BindGroupWrite {
            binding: 1,
            first_element,
            resource: BindingResource::BufferArray(&ranges),
        }],
    )
}

#[test]
fn a_partially_bound_group_is_filled_in_by_writes_between_submissions() {
    let d = device();
    let flags = BindingArrayFlags::PARTIALLY_BOUND;
    let (sum2, bgl) = sum_kernel(&d, 2, flags);
    let (sum4, bgl4) = sum_kernel(&d, 4, flags);
    let data: Vec<Buffer> = [1u32, 2, 3, 4, 10]
        .iter()
        .map(|&v| filled(&d, &[v, 0, 0, 0]))
        .collect();
    let (out_a, out_b) = (zeroed(&d, 1), zeroed(&d, 1));
    let make = |layout, out| {
        d.create_bind_group(&BindGroupDescriptor {
            label: "bindless",
            layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding::whole(out)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::BufferArray(&[
                        BufferBinding::whole(data[0]),
                        BufferBinding::whole(data[1]),
                    ]),
                },
            ],
        })
        .unwrap()
    };
    // Two elements of four bound: a shader reading those two runs.
    let g = make(bgl, out_a);
    let first = dispatch(&d, sum2, g, 1);
    wait(&d, first);
    assert_eq!(read_u32(&d, out_a, 1), vec![3]);
    // Elements 2 and 3 filled in, element 0 replaced; an open encoder that recorded the
    // group keeps it from being written.
    let g4 = make(bgl4, out_b);
    let mut open = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "open" })
        .unwrap();
    open.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    open.set_compute_pipeline(sum4).unwrap();
    open.set_bind_group(0, g4, &[]).unwrap();
    let refused = write(&d, g4, 2, &data[2..4]).unwrap_err();
    assert_eq!(refused.rule(), Rule::GroupWriteInUse);
    drop(open);
    write(&d, g4, 2, &data[2..4]).unwrap();
    write(&d, g4, 0, &data[4..5]).unwrap();
    // The group let go of data[0]; the buffer handle can go, the group does not need it.
    d.destroy_buffer(data[0]).unwrap();
    wait(&d, dispatch(&d, sum4, g4, 1));
    assert_eq!(read_u32(&d, out_b, 1), vec![10 + 2 + 3 + 4]);
}

#[test]
fn a_variable_count_group_allocates_its_own_length() {
    let d = device();
    let (sum3, bgl) = sum_kernel(&d, 3, BindingArrayFlags::VARIABLE_COUNT);
    let data: Vec<BufferBinding> = [5u32, 6, 7]
        .iter()
        .map(|&v| BufferBinding::whole(filled(&d, &[v, 0, 0, 0])))
        .collect();
    let out = zeroed(&d, 1);
    let g = out_and_array(
        &d,
        bgl,
        "variable",
        out,
        BindingResource::BufferArray(&data),
    );
    wait(&d, dispatch(&d, sum3, g, 1));
    assert_eq!(read_u32(&d, out, 1), vec![18]);
    // Writing past the group's own length (3, not the layout's 4) is refused.
    let extra = filled(&d, &[1, 0, 0, 0]);
    assert_eq!(
        write(&d, g, 3, &[extra]).unwrap_err().rule(),
        Rule::GroupArrayLength
    );
}

#[test]
fn update_after_bind_bindings_are_created_and_written() {
    let d = device();
    let (sum4, bgl) = sum_kernel(&d, 4, BindingArrayFlags::UPDATE_AFTER_BIND);
    let data: Vec<Buffer> = (1..=5u32).map(|v| filled(&d, &[v, 0, 0, 0])).collect();
    let ranges: Vec<BufferBinding> = data[..4].iter().map(|&b| BufferBinding::whole(b)).collect();
    let out = zeroed(&d, 1);
    let g = out_and_array(
        &d,
        bgl,
        "update after bind",
        out,
        BindingResource::BufferArray(&ranges),
    );
    wait(&d, dispatch(&d, sum4, g, 1));
    assert_eq!(read_u32(&d, out, 1), vec![10]);
    write(&d, g, 3, &data[4..5]).unwrap();
    wait(&d, dispatch(&d, sum4, g, 1));
    assert_eq!(read_u32(&d, out, 1), vec![11]);
}

const COPY: &str = "
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] * 2u;
}";

fn copy_entries(dst: Buffer, src: Buffer) -> [BindGroupEntry<'static>; 2] {
    [
        BindGroupEntry {
            binding: 0,
            resource: BindingResource::Buffer(BufferBinding::whole(dst)),
        },
        BindGroupEntry {
            binding: 1,
            resource: BindingResource::Buffer(BufferBinding::whole(src)),
        },
    ]
}

#[test]
fn work_in_flight_survives_a_reset_of_its_groups_pool() {
    let d = device();
    let (pipeline, bgl) = kernel(&d, COPY, &[storage_entry(0, false), storage_entry(1, true)]);
    let src = filled(&d, &(0..64).collect::<Vec<u32>>());
    let dst = zeroed(&d, 64);
    let pool = d
        .create_bind_group_pool(&BindGroupPoolDescriptor { label: "frame" })
        .unwrap();
    let entries = copy_entries(dst, src);
    let desc = BindGroupDescriptor {
        label: "copy",
        layout: bgl,
        entries: &entries,
    };
    let g = d.create_bind_group_in(pool, &desc).unwrap();
    let serial = dispatch(&d, pipeline, g, 1);
    assert_eq!(d.reset_bind_group_pool(pool).unwrap(), 1);
    wait(&d, serial);
    let want: Vec<u32> = (0..64).map(|i| i * 2).collect();
    assert_eq!(read_u32(&d, dst, 64), want);
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "stale" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    assert_eq!(
        e.set_bind_group(0, g, &[]).unwrap_err().rule(),
        Rule::GroupPoolReset
    );
    // The next frame's group from the same pool works as the first did.
    drop(e);
    let dst2 = zeroed(&d, 64);
    let entries = copy_entries(dst2, src);
    let g2 = d
        .create_bind_group_in(
            pool,
            &BindGroupDescriptor {
                entries: &entries,
                ..desc
            },
        )
        .unwrap();
    wait(&d, dispatch(&d, pipeline, g2, 1));
    assert_eq!(read_u32(&d, dst2, 64), want);
    d.destroy_bind_group_pool(pool).unwrap();
}

#[test]
fn an_untracked_group_binds_what_the_caller_keeps_alive() {
    let d = device();
    // Group 0 (tracked) holds the output, group 1 the input.
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "two groups",
            wgsl: "
            @group(0) @binding(0) var<storage, read_write> dst: array<u32>;
            @group(1) @binding(0) var<storage, read> src: array<u32>;
            @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
                dst[id.x] = src[id.x] * 2u;
            }",
        })
        .unwrap();
    let out_layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "out",
            entries: &[storage_entry(0, false)],
        })
        .unwrap();
    let in_layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "in",
            entries: &[storage_entry(0, true)],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "two groups",
            bind_group_layouts: &[out_layout, in_layout],
            immediate_size: 0,
        })
        .unwrap();
    let pipeline = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "two groups",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let src = filled(&d, &(0..64).collect::<Vec<u32>>());
    let one = |layout, buffer| {
        d.create_bind_group(&BindGroupDescriptor {
            label: "one",
            layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding::whole(buffer)),
            }],
        })
        .unwrap()
    };
    let (first, second) = (zeroed(&d, 64), zeroed(&d, 64));
    let (out1, out2, tracked_in) = (
        one(out_layout, first),
        one(out_layout, second),
        one(in_layout, src),
    );
    let in_desc = [BindGroupEntry {
        binding: 0,
        resource: BindingResource::Buffer(BufferBinding::whole(src)),
    }];
    // SAFETY: `src` stays alive until the submission below completed, and is only read:
    // the tracked dispatch before, in the same pass, brings vigil's barrier between its
    // upload and the reads.
    let untracked_in = unsafe {
        d.create_bind_group_untracked(&BindGroupDescriptor {
            label: "untracked in",
            layout: in_layout,
            entries: &in_desc,
        })
    }
    .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "untracked" })
        .unwrap();
    e.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    e.set_compute_pipeline(pipeline).unwrap();
    e.set_bind_group(0, out1, &[]).unwrap();
    e.set_bind_group(1, tracked_in, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.set_bind_group(0, out2, &[]).unwrap();
    e.set_bind_group(1, untracked_in, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    wait(&d, d.submit([e.finish().unwrap()]).unwrap());
    let want: Vec<u32> = (0..64).map(|i| i * 2).collect();
    assert_eq!(read_u32(&d, first, 64), want);
    assert_eq!(read_u32(&d, second, 64), want);
}
