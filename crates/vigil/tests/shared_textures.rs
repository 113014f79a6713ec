//! Textures shared between devices over one native device: export and register rules, writes
//! refused through a registration, the consumer's work waiting for the producer's (and
//! giving up, bounded by the producer's progress), the tail a producer's destroyed texture
//! leaves while registered, and loss seen by both — on the test backend; plus the same
//! producer/consumer frames on the real device, read back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use std::time::Duration;
use vigil::*;

fn pair() -> (TDevice, TDevice) {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    let producer = adapter
        .request_device(&DeviceDescriptor {
            label: "producer".into(),
            required_limits: adapter.limits().clone(),
            stall_timeout: Duration::from_millis(100),
            ..DeviceDescriptor::default()
        })
        .unwrap();
    let consumer = producer.share().unwrap();
    (producer, consumer)
}

fn texture(d: &TDevice) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "shared",
        size: [16, 16],
        usage: TextureUsages::TEXTURE_BINDING
            | TextureUsages::COPY_SRC
            | TextureUsages::COPY_DST
            | TextureUsages::RENDER_ATTACHMENT,
        ..TextureDescriptor::default()
    })
    .unwrap()
}

/// Writes the texture on `d` by a copy from a buffer; returns the serial.
fn fill(d: &TDevice, t: Texture) -> u64 {
    let src = buffer(d, "src", 4096, BufferUsages::COPY_SRC);
    let mut e = encoder(d);
    e.copy_buffer_to_texture(
        src,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        t,
        TexelCopyTextureInfo::default(),
        [16, 16, 1],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap()
}

/// Reads the texture on `d` by a copy into a buffer (the submission's result).
fn read(d: &TDevice, t: Texture) -> Result<u64> {
    let dst = buffer(d, "dst", 4096, BufferUsages::COPY_DST);
    let mut e = encoder(d);
    e.copy_texture_to_buffer(
        t,
        TexelCopyTextureInfo::default(),
        dst,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: 256,
            rows_per_image: None,
        },
        [16, 16, 1],
    )?;
    d.submit([e.finish()?])
}

#[test]
fn a_registration_is_a_read_only_texture_of_the_consumer() {
    let (p, c) = pair();
    let t = texture(&p);
    let export = p.export_texture(t).unwrap();
    let r = c.register_texture(&export).unwrap();
    let desc = c.texture_descriptor(r).unwrap();
    assert_eq!(desc.size, [16, 16]);
    assert_eq!(
        desc.usage,
        TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC
    );
    read(&c, r).unwrap();
    // Writes through the registration are refused by its usages.
    let src = buffer(&c, "src", 4096, BufferUsages::COPY_SRC);
    let mut e = encoder(&c);
    expect_rule(
        e.copy_buffer_to_texture(
            src,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 256,
                rows_per_image: None,
            },
            r,
            TexelCopyTextureInfo::default(),
            [16, 16, 1],
        ),
        Rule::CopyUsage,
    );
    let err = c
        .write_texture(
            r,
            TexelCopyTextureInfo::default(),
            &[0; 1024],
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: 64,
                rows_per_image: None,
            },
            [16, 16, 1],
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UsageMismatch, "{err}");
    // Registering one's own export, exporting a registration, and registering across
    // native devices are refused.
    expect_rule(p.register_texture(&export), Rule::TextureExportForeign);
    expect_rule(c.export_texture(r), Rule::TextureExportForeign);
    let other = device();
    expect_rule(other.register_texture(&export), Rule::TextureExportForeign);
}

#[test]
fn the_consumer_waits_for_the_producers_last_work() {
    let (p, c) = pair();
    let t = texture(&p);
    let r = c.register_texture(&p.export_texture(t).unwrap()).unwrap();
    p.test_backend().set_auto_complete(false);
    let written = fill(&p, t);
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(40));
            p.test_backend().complete_through(written);
        });
        // Refused to run before the producer's write completed: it waited.
        read(&c, r).unwrap();
    });
    assert!(start.elapsed() >= Duration::from_millis(40));
    // The explicit wait: returns at once now.
    c.wait_for_texture_source_unless_stalled(r, Duration::from_millis(100))
        .unwrap();
    // A producer that makes no progress: the wait gives up at the bound, and the native
    // device (both devices) is lost.
    fill(&p, t);
    let err = expect_rule(read(&c, r), Rule::DeviceLost);
    assert_eq!(err.kind(), ErrorKind::DeviceLost);
    assert!(c.is_lost() && p.is_lost());
    expect_rule(
        c.wait_for_texture_source_unless_stalled(r, Duration::from_millis(10)),
        Rule::DeviceLost,
    );
    p.test_backend().set_auto_complete(true);
}

#[test]
fn a_destroyed_producer_texture_lives_on_for_its_registrations() {
    let (p, c) = pair();
    let t = texture(&p);
    let export = p.export_texture(t).unwrap();
    let r = c.register_texture(&export).unwrap();
    assert_eq!(p.shared_texture_tail_bytes(), 0);
    fill(&p, t);
    p.destroy_texture(t).unwrap();
    // Held by the token and the registration: the tail.
    assert_eq!(p.shared_texture_tail_bytes(), 16 * 16 * 4);
    read(&c, r).unwrap();
    drop(export);
    assert_eq!(p.shared_texture_tail_bytes(), 16 * 16 * 4);
    c.destroy_texture(r).unwrap();
    c.poll().unwrap();
    // The producer's fill was its last submission, so nothing after it looked at its
    // completion: its poll lets the fill's uses go.
    p.poll().unwrap();
    assert_eq!(p.shared_texture_tail_bytes(), 0);
}

#[test]
fn loss_of_either_device_is_seen_by_both() {
    let (p, c) = pair();
    let t = texture(&p);
    let r = c.register_texture(&p.export_texture(t).unwrap()).unwrap();
    p.test_backend().set_lost();
    let _ = p.poll();
    assert!(p.is_lost());
    assert!(c.is_lost());
    expect_rule(c.submit(std::iter::empty()), Rule::DeviceLost);
    expect_rule(
        c.wait_for_texture_source_unless_stalled(r, Duration::from_millis(10)),
        Rule::DeviceLost,
    );
}
