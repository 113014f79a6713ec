//! A shader indexing past the end of its storage bindings cannot touch anything outside
//! them: canary values around and beside the bound ranges survive, on a real device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bytes_of, gpu, read_u32};
use vigil::*;

const SHADER: &str = include_str!("../../vigil-shader/tests/shaders/out_of_bounds.wgsl");
const CANARY: u32 = 0xCAFE_BABE;

#[test]
fn out_of_bounds_indexing_stays_inside_the_bound_ranges() {
    let d = gpu();
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let align = u64::from(d.limits().min_storage_buffer_offset_alignment).max(256);
    // `data` is bound to the middle of a larger buffer full of canaries.
    let big_words = (align * 3 / 4) as usize;
    let big = d
        .create_buffer(&BufferDescriptor {
            label: "big",
            size: align * 3,
            usage,
        })
        .unwrap();
    d.write_buffer(big, 0, &bytes_of(&vec![CANARY; big_words]))
        .unwrap();
    let fixed = d
        .create_buffer(&BufferDescriptor {
            label: "fixed",
            size: 64,
            usage,
        })
        .unwrap();
    // Neighbours created right after, likely adjacent in memory.
    let neighbours: Vec<Buffer> = (0..4)
        .map(|_| {
            d.create_buffer(&BufferDescriptor {
                label: "neighbour",
                size: 256,
                usage,
            })
            .unwrap()
        })
        .collect();
    for n in &neighbours {
        d.write_buffer(*n, 0, &bytes_of(&[CANARY; 64])).unwrap();
    }
    let readback = d
        .create_buffer(&BufferDescriptor {
            label: "readback",
            size: 1024 * 4,
            usage,
        })
        .unwrap();
    d.write_buffer(readback, 0, &bytes_of(&[7u32; 1024]))
        .unwrap();
    let module = d
        .create_shader_module(&ShaderModuleDescriptor {
            label: "oob",
            wgsl: SHADER,
        })
        .unwrap();
    let e = |binding| BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    };
    let bgl = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "oob",
            entries: &[e(0), e(1), e(2)],
        })
        .unwrap();
    let group = d
        .create_bind_group(&BindGroupDescriptor {
            label: "oob",
            layout: bgl,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer: big,
                        offset: align,
                        size: Some(align),
                    }),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Buffer(BufferBinding::whole(fixed)),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Buffer(BufferBinding::whole(readback)),
                },
            ],
        })
        .unwrap();
    let layout = d
        .create_pipeline_layout(&PipelineLayoutDescriptor {
            label: "oob",
            bind_group_layouts: &[bgl],
            immediate_size: 0,
        })
        .unwrap();
    let p = d
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: "oob",
            layout,
            module,
            entry_point: "main",
            constants: &[],
            cache: None,
        })
        .unwrap();
    let mut enc = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "oob" })
        .unwrap();
    enc.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    enc.set_compute_pipeline(p).unwrap();
    enc.set_bind_group(0, group, &[]).unwrap();
    enc.dispatch(1024 / 64, 1, 1).unwrap();
    enc.end_compute_pass().unwrap();
    d.submit([enc.finish().unwrap()]).unwrap();
    let words = read_u32(&d, big, big_words);
    let q = (align / 4) as usize;
    assert!(
        words[..q].iter().all(|w| *w == CANARY),
        "the words before the bound range were touched"
    );
    assert!(
        words[q..2 * q].iter().all(|w| *w == 0xdead_beef),
        "the bound range was written"
    );
    assert!(
        words[2 * q..].iter().all(|w| *w == CANARY),
        "the words after the bound range were touched"
    );
    assert!(read_u32(&d, fixed, 16).iter().all(|w| *w == 0xfeed_face));
    for n in neighbours {
        assert!(
            read_u32(&d, n, 64).iter().all(|w| *w == CANARY),
            "a neighbouring buffer was touched"
        );
    }
    // Out-of-range reads yielded zero, not a neighbour's canaries.
    assert!(
        read_u32(&d, readback, 1024).iter().all(|w| *w == 0),
        "out-of-range reads must read zero"
    );
}
