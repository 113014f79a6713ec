//! The demo's deferred frame (G-buffer, lighting, bloom, composite): through the render
//! graph, with transient textures sharing memory and groups the graph makes over them, it
//! equals the immediate-mode frame pixel for pixel, on the device (validation,
//! synchronization included, on).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use vigil_examples::scene::{Deferred, Scene};

#[test]
fn the_deferred_graph_frame_equals_the_immediate_frame_in_less_memory() {
    let (device, log) = common::device();
    let size = [160, 120];
    let scene = Scene::new(&device, size).unwrap();
    let deferred = Deferred::new(&device, &scene).unwrap();
    let mut graph = deferred.graph(&device, &scene).unwrap();
    let plan = graph.plan().clone();
    assert!(plan.culled.is_empty());
    let names: Vec<&str> = plan.passes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names[names.len() - 6..],
        [
            "g-buffer",
            "lighting",
            "bright",
            "blur h",
            "blur v",
            "composite"
        ]
    );
    // Seven intermediates (six 16-bit float color targets and a depth buffer) in four
    // textures: bright reuses albedo's, blur a normal's, blur b albedo's again.
    let texels = u64::from(size[0] * size[1]);
    assert_eq!(plan.transient_bytes_unaliased, texels * (6 * 8 + 4));
    assert_eq!(plan.transient_bytes_unaliased, deferred.immediate_bytes());
    assert_eq!(plan.transient_bytes(), texels * (3 * 8 + 4));
    assert_eq!(plan.backings.len(), 4);
    let id = |name: &str| {
        graph
            .graph()
            .resources()
            .find_map(|(id, n)| (n == name).then_some(id))
            .unwrap()
    };
    let slot = |name: &str| plan.aliases.iter().find(|(r, _)| *r == id(name)).unwrap().1;
    assert_eq!(slot("bright"), slot("albedo"));
    assert_eq!(slot("blur a"), slot("normal"));
    assert_eq!(slot("blur b"), slot("albedo"));
    assert_ne!(slot("hdr"), slot("albedo"));
    assert_ne!(slot("hdr"), slot("normal"));
    for index in [0, 3] {
        let immediate = deferred.frame(&device, &scene, index).unwrap();
        let through_graph = deferred
            .frame_with_graph(&device, &scene, &mut graph, index)
            .unwrap();
        // The plan's barriers were the only ones recorded in the frame.
        assert_eq!(through_graph.derived_barrier_batches, 0);
        let through_graph = through_graph.image;
        assert!(
            immediate.rgba == through_graph.rgba,
            "deferred frame {index} differs between the graph and immediate mode"
        );
        // Not an empty frame: the cubes and their bloom are in it (lit pixels brighter
        // than any the background gives).
        let brightest = immediate
            .rgba
            .chunks(4)
            .map(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]))
            .max()
            .unwrap();
        let corner = immediate.rgba[..3]
            .iter()
            .map(|&c| u32::from(c))
            .sum::<u32>();
        assert!(brightest > corner + 300, "{brightest} vs {corner}");
    }
    drop(graph);
    drop(scene);
    drop(device);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}
