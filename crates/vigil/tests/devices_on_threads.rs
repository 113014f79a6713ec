//! Instances and devices made, used and dropped on several threads at once, as a test
//! harness running tests in parallel does. The Vulkan loader does not lock every path of
//! its process-wide device lists (device creation walks a list that device destruction
//! frees from), so vigil serialises instance and device creation and destruction itself;
//! each device here must still work and leave the validation layer silent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Barrier;
use vigil::*;

const THREADS: usize = 6;
const ROUNDS: u32 = 6;

#[test]
fn devices_made_used_and_dropped_on_many_threads_at_once() {
    let start = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let start = &start;
            s.spawn(move || {
                start.wait();
                for r in 0..ROUNDS {
                    let gpu = common::gpu();
                    let value = (t as u32) << 16 | r;
                    let b = gpu
                        .create_buffer(&BufferDescriptor {
                            label: "word",
                            size: 16,
                            usage: BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
                        })
                        .unwrap();
                    gpu.write_buffer(b, 0, &[value; 4].map(u32::to_le_bytes).concat())
                        .unwrap();
                    let back = gpu.read_buffer(b, 0, 16).unwrap();
                    assert_eq!(back, [value; 4].map(u32::to_le_bytes).concat());
                    gpu.finish();
                }
            });
        }
    });
}
