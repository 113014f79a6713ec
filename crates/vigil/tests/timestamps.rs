//! Timestamps a command buffer writes of its own, read after its submission completed
//! (never waiting), on a real device with the validation layer on.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{gpu_with, storage_kernel};
use std::time::Duration;
use vigil::*;

const BUSY: &str = "
@group(0) @binding(0) var<storage, read_write> words: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var x = id.x;
    for (var i = 0u; i < 256u; i++) { x = x * 1664525u + 1013904223u; }
    words[id.x] = x;
}";

#[test]
fn command_buffers_time_themselves_and_are_read_after_completion() {
    let d = gpu_with(|adapter| {
        assert!(adapter.features().contains(Features::TIMESTAMP_QUERY));
        DeviceDescriptor {
            label: "timestamps".into(),
            required_features: Features::TIMESTAMP_QUERY,
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        }
    });
    let words = d
        .create_buffer(&BufferDescriptor {
            label: "words",
            size: 4 * 4096,
            usage: BufferUsages::STORAGE,
        })
        .unwrap();
    let (pipeline, group) = storage_kernel(&d, "busy", BUSY, 0, words);

    let mut a = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "timed" })
        .unwrap();
    a.timestamp("start").unwrap();
    a.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    a.set_compute_pipeline(pipeline).unwrap();
    a.set_bind_group(0, group, &[]).unwrap();
    a.timestamp("in the pass").unwrap();
    a.dispatch(64, 1, 1).unwrap();
    a.end_compute_pass().unwrap();
    a.timestamp("end").unwrap();
    let mut b = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "untimed" })
        .unwrap();
    b.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    b.end_compute_pass().unwrap();
    let serial = d
        .submit([a.finish().unwrap(), b.finish().unwrap()])
        .unwrap();
    // A submission not complete yet is refused, not waited for.
    let err = d.timestamps(serial + 1000).unwrap_err();
    assert_eq!(err.rule(), Rule::TimestampPending, "{err}");
    d.wait_for_serial_unless_stalled(serial, Duration::from_secs(30))
        .unwrap();
    let stamps = d.timestamps(serial).unwrap();
    assert_eq!(
        stamps.len(),
        1,
        "one command buffer wrote timestamps: {stamps:?}"
    );
    let labels: Vec<&str> = stamps[0].iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["start", "in the pass", "end"]);
    let ticks: Vec<u64> = stamps[0].iter().map(|t| t.ticks).collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{ticks:?}");
    assert!(ticks[2] > ticks[0], "the dispatch took time: {ticks:?}");
    let period = f64::from(d.adapter_info().timestamp_period_ns);
    for t in &stamps[0] {
        assert!((t.ns - t.ticks as f64 * period).abs() < 1e-3 * t.ns.max(1.0));
    }
    // A submission without timestamps has none.
    let mut c = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "plain" })
        .unwrap();
    c.begin_compute_pass(&ComputePassDescriptor::default())
        .unwrap();
    c.end_compute_pass().unwrap();
    let plain = d.submit([c.finish().unwrap()]).unwrap();
    d.wait_for_serial_unless_stalled(plain, Duration::from_secs(30))
        .unwrap();
    assert!(d.timestamps(plain).unwrap().is_empty());
    // At most 256 per command buffer.
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "many" })
        .unwrap();
    for i in 0..256 {
        e.timestamp(&format!("t{i}")).unwrap();
    }
    assert_eq!(
        e.timestamp("one more").unwrap_err().rule(),
        Rule::TimestampCount
    );
    d.finish();

    // Without the feature.
    let plain = gpu_with(|adapter| DeviceDescriptor {
        label: "no timestamps".into(),
        required_limits: adapter.limits().clone(),
        ..DeviceDescriptor::default()
    });
    let mut e = plain
        .create_command_encoder(&CommandEncoderDescriptor { label: "t" })
        .unwrap();
    assert_eq!(e.timestamp("t").unwrap_err().rule(), Rule::QueryFeature);
    plain.finish();
}
