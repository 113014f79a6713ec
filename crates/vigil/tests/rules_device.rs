//! Device creation, handles and lifetime rules on the deterministic test backend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::*;

#[test]
fn features_the_adapter_lacks_are_unsupported() {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    assert!(
        !adapter
            .features()
            .contains(Features::FULL_DRAW_INDEX_UINT32)
    );
    let r = adapter.request_device(&DeviceDescriptor {
        required_features: Features::FULL_DRAW_INDEX_UINT32,
        ..DeviceDescriptor::default()
    });
    let e = expect_rule(r.map(|_| ()), Rule::DeviceFeature);
    assert!(e.message().contains("FULL_DRAW_INDEX_UINT32"), "{e}");
}

#[test]
fn limits_beyond_the_adapter_are_refused() {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    let mut limits = adapter.limits().clone();
    limits.max_bind_groups += 1;
    let r = adapter.request_device(&DeviceDescriptor {
        required_limits: limits,
        ..DeviceDescriptor::default()
    });
    expect_rule(r.map(|_| ()), Rule::DeviceLimit);
}

#[test]
fn the_device_keeps_the_enabled_features_not_the_supported_ones() {
    let d = device_with(Features::empty());
    // SAMPLE_RATE_SHADING is part of WebGPU's core and comes whenever the adapter has it
    // (FULL_DRAW_INDEX_UINT32 too, which the test adapter lacks), as does
    // INDIRECT_FIRST_INSTANCE (its absence would make GPU-written arguments undefined
    // behaviour); nothing else does.
    assert_eq!(
        d.features(),
        Features::SAMPLE_RATE_SHADING | Features::INDIRECT_FIRST_INSTANCE
    );
    // The adapter supports timestamps, but they were not enabled: refused.
    expect_rule(d.create_query_set("q", 2), Rule::QueryFeature);
    let d = device_with(Features::TIMESTAMP_QUERY);
    assert!(d.create_query_set("q", 2).is_ok());
}

#[test]
fn device_ids_are_unique_and_baked_into_handles() {
    let a = device();
    let b = device();
    assert_ne!(a.id(), b.id());
    let buf = storage(&a, 16);
    assert_eq!(buf.device_id(), a.id());
}

#[test]
fn null_stale_and_foreign_handles_are_refused() {
    let a = device();
    let b = device();
    expect_rule(a.buffer_size(Buffer::NULL), Rule::HandleNull);
    let x = storage(&a, 16);
    let copy = x;
    expect_rule(b.buffer_size(x), Rule::HandleForeign);
    a.destroy_buffer(x).unwrap();
    let e = expect_rule(a.buffer_size(copy), Rule::HandleStale);
    assert!(e.message().contains("stale"), "{e}");
    expect_rule(a.destroy_buffer(copy), Rule::HandleStale);
}

#[test]
fn slots_are_reused_at_once_old_handles_stay_stale_and_memory_waits_for_the_gpu() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let x = storage(&d, 16);
    // Use it in a submission that does not complete yet.
    let mut e = encoder(&d);
    e.clear_buffer(x, 0, None).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let live = d.live_native_objects();
    d.destroy_buffer(x).unwrap();
    assert_eq!(
        d.live_native_objects(),
        live,
        "the buffer is released while the GPU may use it"
    );
    let y = storage(&d, 16);
    assert_eq!(y.index(), x.index(), "the slot is reused at once");
    assert_ne!(y.generation(), x.generation());
    let e = expect_rule(d.buffer_size(x), Rule::HandleStale);
    assert_eq!(e.rule(), Rule::HandleStale);
    assert_eq!(d.buffer_size(y).unwrap(), 16);
    d.test_backend().complete_through(d.last_submitted_serial());
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        live,
        "the old buffer went once its submission completed (the new one took its place)"
    );
}

#[test]
fn buffer_descriptors_are_checked() {
    let d = device();
    let e = expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "zero",
            size: 0,
            usage: BufferUsages::STORAGE,
        }),
        Rule::BufferSizeZero,
    );
    assert_eq!(e.label(), "zero");
    assert_eq!(e.operation(), "create_buffer");
    expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "none",
            size: 4,
            usage: BufferUsages::empty(),
        }),
        Rule::BufferUsageEmpty,
    );
    expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "map",
            size: 4,
            usage: BufferUsages::MAP_READ | BufferUsages::STORAGE,
        }),
        Rule::BufferMapReadUsage,
    );
    expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "huge",
            size: d.limits().max_buffer_size + 1,
            usage: BufferUsages::STORAGE,
        }),
        Rule::BufferSizeLimit,
    );
}

#[test]
fn destroy_while_in_flight_waits_for_completion() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let x = storage(&d, 64);
    let mut e = encoder(&d);
    e.clear_buffer(x, 0, None).unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    let in_flight = d.live_native_objects();
    d.destroy_buffer(x).unwrap();
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        in_flight,
        "released while the GPU still used it"
    );
    d.test_backend().complete_through(serial);
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        in_flight - 1,
        "released once its submission completed"
    );
}

#[test]
fn bind_groups_retain_what_they_bind() {
    let d = device();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let live = d.live_native_objects();
    d.destroy_buffer(a).unwrap();
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        live,
        "a bound buffer was released while its bind group lives"
    );
    d.destroy_bind_group(g).unwrap();
    d.poll().unwrap();
    assert_eq!(
        d.live_native_objects(),
        live - 2,
        "group and buffer released together"
    );
}

#[test]
fn dropping_the_device_releases_every_native_object() {
    let d = device();
    d.test_backend().set_auto_complete(false);
    let live = d.test_backend().live_counter();
    let k = copy_kernel(&d);
    let (a, b) = (storage(&d, 64), storage(&d, 64));
    let g = group(&d, k.bgl, &[(0, whole(a)), (1, whole(b))]).unwrap();
    let mut e = encoder(&d);
    compute_pass(&mut e);
    e.set_compute_pipeline(k.pipeline).unwrap();
    e.set_bind_group(0, g, &[]).unwrap();
    e.dispatch(1, 1, 1).unwrap();
    e.end_compute_pass().unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    d.destroy_buffer(a).unwrap();
    assert!(live.load(std::sync::atomic::Ordering::Acquire) > 0);
    // Let the drain at drop see the work complete.
    d.test_backend().complete_through(serial);
    drop(d);
    assert_eq!(
        live.load(std::sync::atomic::Ordering::Acquire),
        0,
        "native objects leaked past the device"
    );
}
