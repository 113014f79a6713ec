//! A texture shared between two devices over one native device, on the real device with the
//! validation layer (synchronization validation included) on: frame after frame the
//! producer writes the texture and the consumer reads it through its registration, and
//! reads exactly what the producer wrote last.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use vigil::*;

#[test]
fn the_consumer_reads_what_the_producer_wrote_last() {
    let gpu = common::gpu();
    let producer: &Device = &gpu;
    let consumer = producer.share().unwrap();
    let t = producer
        .create_texture(&TextureDescriptor {
            label: "shared frame",
            size: [32, 8],
            usage: TextureUsages::COPY_DST
                | TextureUsages::COPY_SRC
                | TextureUsages::RENDER_ATTACHMENT
                | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let export = producer.export_texture(t).unwrap();
    let r = consumer.register_texture(&export).unwrap();
    let view = producer
        .create_texture_view(t, &TextureViewDescriptor::default())
        .unwrap();
    for frame in 0..4u8 {
        // The producer draws the frame: a clear to a color of its own, then a copy over
        // the top rows.
        let mut e = producer
            .create_command_encoder(&CommandEncoderDescriptor { label: "produce" })
            .unwrap();
        let shade = f64::from(frame) * 60.0 / 255.0;
        e.begin_render_pass(&RenderPassDescriptor {
            color_attachments: &[Some(RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                load: LoadOp::Clear([shade, 1.0 - shade, 0.5, 1.0]),
                store: StoreOp::Store,
            })],
            ..RenderPassDescriptor::default()
        })
        .unwrap();
        e.end_render_pass().unwrap();
        producer.submit([e.finish().unwrap()]).unwrap();
        producer
            .write_texture(
                t,
                TexelCopyTextureInfo::default(),
                &vec![frame; 32 * 4 * 2],
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: 32 * 4,
                    rows_per_image: None,
                },
                [32, 2, 1],
            )
            .unwrap();
        producer.submit(std::iter::empty()).unwrap();
        // The consumer reads it through its registration.
        let got = consumer
            .read_texture(r, TexelCopyTextureInfo::default(), [32, 8])
            .unwrap();
        assert!(
            got[..32 * 4 * 2].iter().all(|&b| b == frame),
            "frame {frame}: top rows"
        );
        let want = [frame * 60, 255 - frame * 60, 128, 255];
        for px in got[32 * 4 * 2..].chunks_exact(4) {
            for (c, (&g, &w)) in px.iter().zip(&want).enumerate() {
                assert!(
                    g.abs_diff(w) <= 1,
                    "frame {frame}: channel {c} is {g}, wanted {w}"
                );
            }
        }
    }
    // The producer lets its texture go; the registration keeps it, and that is the tail.
    producer.destroy_texture_view(view).unwrap();
    producer.destroy_texture(t).unwrap();
    assert_eq!(producer.shared_texture_tail_bytes(), 32 * 8 * 4);
    let again = consumer
        .read_texture(r, TexelCopyTextureInfo::default(), [32, 8])
        .unwrap();
    assert!(again[..32 * 4 * 2].iter().all(|&b| b == 3));
    drop(export);
    consumer.destroy_texture(r).unwrap();
    // Completed work lets go of what it used on both devices.
    consumer.poll().unwrap();
    producer.poll().unwrap();
    assert_eq!(producer.shared_texture_tail_bytes(), 0);
    drop(consumer);
}
