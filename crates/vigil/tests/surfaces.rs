//! Surface rules on the test backend (its surfaces present into its command log, and its
//! window's size is set by the test): configuration against capabilities, one frame out
//! at a time with a bounded stall, out-of-date frames, presenting after the frame's work,
//! stale frames, frames kept out of bind groups, and a lost device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::time::Duration;
use vigil::hal_test::TestCommand;
use vigil::*;

fn short_device() -> TDevice {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    adapter
        .request_device(&DeviceDescriptor {
            label: "surfaces".into(),
            required_limits: adapter.limits().clone(),
            // The bound every wait (present, acquire stall) uses, short for the tests.
            stall_timeout: Duration::from_millis(100),
            ..DeviceDescriptor::default()
        })
        .unwrap()
}

fn config(extent: [u32; 2]) -> SurfaceConfiguration {
    SurfaceConfiguration {
        format: TextureFormat::Bgra8Unorm,
        extent,
        present_mode: PresentMode::Fifo,
        alpha_mode: CompositeAlphaMode::Opaque,
        usage: TextureUsages::RENDER_ATTACHMENT,
    }
}

/// Clears the frame with a render pass and submits; returns the submission's serial.
fn draw_into(d: &TDevice, frame: Texture) -> u64 {
    let view = d
        .create_texture_view(frame, &TextureViewDescriptor::default())
        .unwrap();
    let mut e = encoder(d);
    e.begin_render_pass(&RenderPassDescriptor {
        color_attachments: &[Some(RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            load: LoadOp::Clear([0.0, 0.5, 1.0, 1.0]),
            store: StoreOp::Store,
        })],
        ..RenderPassDescriptor::default()
    })
    .unwrap();
    e.end_render_pass().unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

fn presents(d: &TDevice) -> usize {
    d.test_backend()
        .submitted_commands()
        .iter()
        .flat_map(|(_, c)| c.iter())
        .filter(|c| matches!(c, TestCommand::Present { .. }))
        .count()
}

#[test]
fn a_frame_is_acquired_drawn_presented_and_then_stale() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    let caps = d.surface_capabilities(s).unwrap();
    assert_eq!(caps.current_extent, Some([64, 64]));
    expect_rule(d.acquire_current_texture(s), Rule::SurfaceNotConfigured);
    d.configure_surface(s, &config([64, 64])).unwrap();
    for n in 1..=3 {
        let frame = d.acquire_current_texture(s).unwrap();
        assert_eq!(frame.status, SurfaceStatus::Good);
        let texture = frame.texture.unwrap();
        let desc = d.texture_descriptor(texture).unwrap();
        assert_eq!(
            (desc.size, desc.format),
            ([64, 64], TextureFormat::Bgra8Unorm)
        );
        assert!(desc.usage.contains(TextureUsages::COPY_SRC));
        draw_into(&d, texture);
        assert_eq!(d.present_surface(s).unwrap(), SurfaceStatus::Good);
        assert_eq!(presents(&d), n);
        // The frame's handle is stale now, with the reason.
        let err = expect_rule(d.texture_descriptor(texture), Rule::SurfaceNoFrame);
        assert!(err.message().contains("presented or abandoned"), "{err}");
    }
    // Presenting or abandoning with no frame out.
    expect_rule(d.present_surface(s), Rule::SurfaceNoFrame);
    expect_rule(d.abandon_current_texture(s), Rule::SurfaceNoFrame);
    // Abandoned: nothing presented, handle stale.
    let texture = d.acquire_current_texture(s).unwrap().texture.unwrap();
    d.abandon_current_texture(s).unwrap();
    assert_eq!(presents(&d), 3);
    expect_rule(d.texture_descriptor(texture), Rule::SurfaceNoFrame);
    d.destroy_surface(s).unwrap();
    expect_rule(d.surface_capabilities(s), Rule::HandleStale);
}

#[test]
fn configurations_outside_the_capabilities_are_refused() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    let bad = [
        SurfaceConfiguration {
            format: TextureFormat::Rgba16Float,
            ..config([64, 64])
        },
        SurfaceConfiguration {
            present_mode: PresentMode::Immediate,
            ..config([64, 64])
        },
        SurfaceConfiguration {
            alpha_mode: CompositeAlphaMode::PreMultiplied,
            ..config([64, 64])
        },
        config([0, 64]),
        config([64, 1 << 20]),
        SurfaceConfiguration {
            usage: TextureUsages::TEXTURE_BINDING,
            ..config([64, 64])
        },
        SurfaceConfiguration {
            usage: TextureUsages::empty(),
            ..config([64, 64])
        },
    ];
    for c in bad {
        expect_rule(d.configure_surface(s, &c), Rule::SurfaceConfiguration);
    }
    // Refused configurations changed nothing: still unconfigured.
    expect_rule(d.acquire_current_texture(s), Rule::SurfaceNotConfigured);
}

#[test]
fn frames_stay_out_of_groups_and_are_not_destroyed_directly() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    d.configure_surface(s, &config([64, 64])).unwrap();
    let frame = d.acquire_current_texture(s).unwrap().texture.unwrap();
    expect_rule(d.destroy_texture(frame), Rule::SurfaceFrameTexture);
    let view = d
        .create_texture_view(frame, &TextureViewDescriptor::default())
        .unwrap();
    let l = layout(
        &d,
        &[entry(
            0,
            ShaderStages::FRAGMENT,
            BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            },
        )],
    );
    let err = expect_rule(
        group(&d, l, &[(0, BindingResource::TextureView(view))]),
        Rule::SurfaceFrameTexture,
    );
    assert!(err.message().contains("never bound in a group"), "{err}");
    d.abandon_current_texture(s).unwrap();
}

#[test]
fn one_frame_out_at_a_time_and_the_next_acquire_stalls_then_gives_up() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    d.configure_surface(s, &config([64, 64])).unwrap();
    let first = d.acquire_current_texture(s).unwrap().texture.unwrap();
    let start = std::time::Instant::now();
    let err = expect_rule(d.acquire_current_texture(s), Rule::SurfaceFrameOutstanding);
    assert!(start.elapsed() >= Duration::from_millis(100), "{err}");
    // Reconfiguring waits the same way.
    expect_rule(
        d.configure_surface(s, &config([64, 64])),
        Rule::SurfaceFrameOutstanding,
    );
    // Another thread presenting the frame out lets a waiting acquire through.
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            draw_into(&d, first);
            d.present_surface(s).unwrap();
        });
        let next = d.acquire_current_texture(s).unwrap();
        assert_eq!(next.status, SurfaceStatus::Good);
    });
    d.abandon_current_texture(s).unwrap();
}

#[test]
fn a_resized_window_makes_frames_out_of_date_until_reconfigured() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    d.configure_surface(s, &config([64, 64])).unwrap();
    d.test_backend().set_surface_extent([80, 48]);
    let frame = d.acquire_current_texture(s).unwrap();
    assert_eq!(
        (frame.status, frame.texture),
        (SurfaceStatus::OutOfDate, None)
    );
    // The application's one-line response.
    d.configure_surface(s, &config([80, 48])).unwrap();
    let frame = d.acquire_current_texture(s).unwrap();
    assert_eq!(frame.status, SurfaceStatus::Good);
    let texture = frame.texture.unwrap();
    assert_eq!(d.texture_descriptor(texture).unwrap().size, [80, 48]);
    // Resized between acquiring and presenting: nothing is shown, the frame is gone.
    d.test_backend().set_surface_extent([100, 100]);
    draw_into(&d, texture);
    assert_eq!(d.present_surface(s).unwrap(), SurfaceStatus::OutOfDate);
    assert_eq!(presents(&d), 0);
    expect_rule(d.texture_descriptor(texture), Rule::SurfaceNoFrame);
}

#[test]
fn presenting_waits_for_the_frames_work_bounded_by_progress() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    d.configure_surface(s, &config([64, 64])).unwrap();
    // Submissions complete only when the test says so.
    d.test_backend().set_auto_complete(false);
    let texture = d.acquire_current_texture(s).unwrap().texture.unwrap();
    let serial = draw_into(&d, texture);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(30));
            // Progress: the frame's work completes, so the present goes ahead.
            d.test_backend().complete_through(serial);
        });
        assert_eq!(d.present_surface(s).unwrap(), SurfaceStatus::Good);
    });
    assert_eq!(presents(&d), 1);
    // Work that never completes: the present's wait gives up at the stall bound, declares
    // the device lost, and reports it; the frame is abandoned.
    let present_serial = d.test_backend().submitted_commands().last().unwrap().0;
    d.test_backend().complete_through(present_serial);
    let texture = d.acquire_current_texture(s).unwrap().texture.unwrap();
    draw_into(&d, texture);
    assert_eq!(d.present_surface(s).unwrap(), SurfaceStatus::DeviceLost);
    assert!(d.is_lost());
    assert_eq!(presents(&d), 1);
    // On a lost device no frame is handed out.
    let frame = d.acquire_current_texture(s).unwrap();
    assert_eq!(
        (frame.status, frame.texture),
        (SurfaceStatus::DeviceLost, None)
    );
    // Let the held work finish, so the device's drop has nothing to wait for.
    d.test_backend().set_auto_complete(true);
}

#[test]
fn a_lost_device_hands_out_no_frame_and_presents_nothing() {
    let d = short_device();
    let s = d.create_test_surface("window").unwrap();
    d.configure_surface(s, &config([64, 64])).unwrap();
    let texture = d.acquire_current_texture(s).unwrap().texture.unwrap();
    d.test_backend().set_lost();
    let _ = d.poll();
    assert_eq!(d.present_surface(s).unwrap(), SurfaceStatus::DeviceLost);
    expect_rule(d.texture_descriptor(texture), Rule::SurfaceNoFrame);
    let frame = d.acquire_current_texture(s).unwrap();
    assert_eq!(frame.status, SurfaceStatus::DeviceLost);
    d.destroy_surface(s).unwrap();
}
