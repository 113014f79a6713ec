//! The validation layer is really loaded and its messages reach the log: a deliberately
//! invalid native call (bypassing vigil's checks, which only the backend can do) must be
//! reported.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use vigil_hal::{Adapter as _, Device as _, Instance as _};

/// An instance with the validation layer and native labels on, its log, and a device of
/// its first adapter.
fn validated() -> (
    vigil_vulkan::Instance,
    std::sync::Arc<vigil_hal::ValidationLog>,
    vigil_vulkan::Device,
) {
    let instance = vigil_vulkan::Instance::init(&vigil_hal::InstanceDescriptor {
        app_name: "plumbing",
        validation: true,
        native_labels: true,
    })
    .expect("instance with validation");
    let log = instance.validation_log().expect("log");
    let adapters = instance.enumerate_adapters();
    let exposed = adapters.first().expect("an adapter");
    let device = exposed
        .adapter
        .open(vigil_hal::Features::empty(), &exposed.limits)
        .expect("device");
    (instance, log, device)
}

#[test]
fn the_layer_reports_a_rule_broken_below_vigil() {
    let (_instance, log, device) = validated();
    assert_eq!(log.count(), 0, "{:?}", log.messages());
    // A zero-sized buffer breaks VUID-VkBufferCreateInfo-size-00912; vigil never sends one.
    // SAFETY: deliberately not: this breaks `create_buffer`'s contract to see the layer,
    // which sees the call before the driver, report it (the test's whole point). The
    // buffer, if the driver made one, is destroyed at once, unused.
    let result = unsafe {
        device.create_buffer(&vigil_hal::BufferDescriptor {
            label: "zero",
            size: 0,
            usage: vigil_hal::BufferUsages::COPY_SRC | vigil_hal::BufferUsages::COPY_DST,
            location: vigil_hal::MemoryLocation::GpuOnly,
        })
    };
    assert!(
        log.count() >= 1,
        "the layer stayed silent about a zero-sized buffer"
    );
    assert!(
        log.messages()
            .iter()
            .any(|m| m.text.contains("size") || m.id.contains("size")),
        "{:?}",
        log.messages()
    );
    if let Ok(b) = result {
        // SAFETY: never bound to work; this device's own buffer.
        unsafe { device.destroy_buffer(b) };
    }
}

#[test]
fn a_message_about_a_command_names_the_debug_groups_open_around_it() {
    use vigil_hal::CommandEncoder as _;
    let (_instance, log, device) = validated();
    // SAFETY: a valid descriptor for any device.
    let target = unsafe {
        device.create_buffer(&vigil_hal::BufferDescriptor {
            label: "copied",
            size: 64,
            usage: vigil_hal::BufferUsages::COPY_SRC | vigil_hal::BufferUsages::COPY_DST,
            location: vigil_hal::MemoryLocation::GpuOnly,
        })
    }
    .expect("buffer");
    let mut encoder = device.create_command_encoder("labels").expect("encoder");
    encoder.begin("labels").expect("begin");
    // SAFETY: the groups and the marker are balanced and recorded outside passes. The copy
    // is deliberately not valid (within one buffer, source and destination overlap:
    // VUID-vkCmdCopyBuffer-pRegions-00117) so the layer reports it, about this command
    // buffer, from inside the two groups; the command buffer is never submitted, and
    // recording the copy is harmless to a driver (a dispatch with no pipeline bound, tried
    // first, crashed an NVIDIA driver's recording).
    unsafe {
        encoder.push_debug_group("frame");
        encoder.insert_debug_marker("before the copy");
        encoder.push_debug_group("copies");
        encoder.copy_buffer_to_buffer(
            &target,
            &target,
            vigil_hal::BufferCopy {
                src_offset: 0,
                dst_offset: 4,
                size: 8,
            },
        );
        encoder.pop_debug_group();
        encoder.pop_debug_group();
    }
    let buffer = encoder.end().expect("end");
    let messages = log.messages();
    let about = messages
        .iter()
        .find(|m| m.text.contains("vkCmdCopyBuffer"))
        .unwrap_or_else(|| panic!("no message about the copy: {messages:?}"));
    // The layer this project installs (1.3.239) lists every label twice, each begin being
    // recorded by two of its parts; the groups and their nesting are what is checked.
    let mut path = about.labels.clone();
    path.dedup();
    assert_eq!(path, ["frame", "copies"], "{about:?}");
    assert!(
        about.to_string().contains("(in debug groups: frame > "),
        "{about}"
    );
    // SAFETY: never submitted.
    unsafe { encoder.reset_all(vec![buffer]) };
    // SAFETY: none of its command buffers was submitted.
    unsafe { device.destroy_command_encoder(encoder) };
    // SAFETY: used only by the command buffer just released.
    unsafe { device.destroy_buffer(target) };
}
