//! The demo's frame through the render graph: the same image, pixel for pixel, as the
//! immediate-mode frame, on the device (validation, synchronization included, on).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use vigil_examples::scene::Scene;

#[test]
fn the_graph_frame_equals_the_immediate_frame() {
    let (device, log) = common::device();
    let scene = Scene::new(&device, [160, 120]).unwrap();
    let mut graph = scene.graph(&device).unwrap();
    let plan = graph.plan();
    // Pattern, one pass per mip level, scene: nothing culled.
    assert!(plan.culled.is_empty());
    let names: Vec<&str> = plan.passes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"pattern"));
    assert_eq!(names.last(), Some(&"scene"));
    assert!(names.contains(&"mip 1"), "{names:?}");
    assert!(graph.to_dot().contains("mip 1"));
    for index in [0, 3] {
        let immediate = scene.frame(&device, index).unwrap().image;
        let through_graph = scene.frame_with_graph(&device, &mut graph, index).unwrap();
        // The plan's barriers were the only ones recorded in the frame.
        assert_eq!(through_graph.derived_barrier_batches, 0);
        let through_graph = through_graph.image;
        assert_eq!(
            (immediate.width, immediate.height),
            (through_graph.width, through_graph.height)
        );
        assert!(
            immediate.rgba == through_graph.rgba,
            "frame {index} differs between the graph and immediate mode"
        );
    }
    drop(graph);
    drop(scene);
    drop(device);
    assert_eq!(log.count(), 0, "{:?}", log.messages());
}
