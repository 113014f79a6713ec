//! Instances and devices made, used and dropped on several threads at once, as a test
//! harness running tests in parallel does. The Vulkan loader does not lock every path of
//! its process-wide device lists, and drivers keep process-wide state there too, so vigil
//! serialises instance and device lifecycles itself (`loader_lock` in vigil-vulkan).
//!
//! This test runs without the validation layer, unlike the others: what it stresses is the
//! layer's own weak spot. With the layer (1.3.239, the version Debian 12 ships) on, six
//! threads making, using and dropping devices crash inside the layer on the H200 — 4 of 6,
//! 9 of 12 and, with creation and destruction in phases while no device was in use, 6 of
//! 6 runs — where without it 8 of 8 passed. vigil's own checks are the same either way;
//! every other test keeps the layer on.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Barrier;
use vigil::*;

const THREADS: usize = 6;
const ROUNDS: u32 = 6;

/// Six threads, each making an instance and a device, writing and reading a buffer, and
/// dropping both, six times over, all at once (without the layer: see the module's note).
#[test]
fn devices_made_used_and_dropped_on_many_threads_at_once() {
    let start = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let start = &start;
            s.spawn(move || {
                start.wait();
                for r in 0..ROUNDS {
                    let instance: Instance = Instance::new(&InstanceDescriptor {
                        app_name: "threads".into(),
                        validation: Validation::Off,
                        ..Default::default()
                    })
                    .unwrap();
                    let adapter = instance.default_adapter().unwrap();
                    let d = adapter
                        .request_device(&DeviceDescriptor::default())
                        .unwrap();
                    let value = (t as u32) << 16 | r;
                    let b = d
                        .create_buffer(&BufferDescriptor {
                            label: "word",
                            size: 16,
                            usage: BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
                        })
                        .unwrap();
                    let bytes = [value; 4].map(u32::to_le_bytes).concat();
                    d.write_buffer(b, 0, &bytes).unwrap();
                    assert_eq!(d.read_buffer(b, 0, 16).unwrap(), bytes);
                }
            });
        }
    });
}
