//! Acceleration structure rules on the test backend: each refusal by its rule code, and
//! what a build records (fences on both sides of the builds).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/rules.rs"]
mod rules;

use rules::*;
use vigil::hal_test::TestCommand;
use vigil::*;

fn rq() -> TDevice {
    device_with(Features::RAY_QUERY)
}

const INPUT: BufferUsages = BufferUsages::BLAS_INPUT.union(BufferUsages::COPY_DST);

fn size(index: Option<IndexFormat>, vertices: u32, primitives: u32) -> TriangleGeometrySize {
    TriangleGeometrySize {
        vertex_format: VertexFormat::Float32x3,
        max_vertex_count: vertices,
        index_format: index,
        max_primitive_count: primitives,
        opaque: true,
    }
}

fn blas(d: &TDevice, sizes: &[TriangleGeometrySize]) -> Result<Blas> {
    d.create_blas(&BlasDescriptor {
        label: "blas",
        geometries: sizes,
        flags: AccelerationStructureFlags::empty(),
    })
}

fn tlas(d: &TDevice, max_instances: u32) -> Result<Tlas> {
    d.create_tlas(&TlasDescriptor {
        label: "tlas",
        max_instances,
        flags: AccelerationStructureFlags::empty(),
    })
}

/// An unindexed geometry of `vertices` positions (`primitives` triangles) from a buffer
/// with room for 8 positions.
fn unindexed(vb: Buffer, vertices: u32, primitives: u32) -> BlasTriangleGeometry {
    BlasTriangleGeometry {
        vertex_buffer: vb,
        first_vertex: 0,
        vertex_stride: 12,
        vertex_count: vertices,
        index_buffer: None,
        first_index: 0,
        primitive_count: primitives,
    }
}

fn build_blas(
    e: &mut CommandEncoder<TestApi>,
    b: Blas,
    geometries: &[BlasTriangleGeometry],
) -> Result<()> {
    e.build_acceleration_structures(
        &[BlasBuildEntry {
            blas: b,
            geometries,
        }],
        &[],
    )
}

#[test]
fn every_call_needs_ray_query() {
    let d = device();
    expect_rule(blas(&d, &[size(None, 3, 1)]), Rule::AccelFeature);
    expect_rule(tlas(&d, 1), Rule::AccelFeature);
    expect_rule(
        d.create_buffer(&BufferDescriptor {
            label: "input",
            size: 64,
            usage: BufferUsages::BLAS_INPUT,
        }),
        Rule::AccelFeature,
    );
    expect_rule(
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "l",
            entries: &[entry(
                0,
                ShaderStages::COMPUTE,
                BindingType::AccelerationStructure,
            )],
        }),
        Rule::AccelFeature,
    );
    let mut e = encoder(&d);
    expect_rule(
        e.build_acceleration_structures(&[], &[]),
        Rule::AccelFeature,
    );
}

#[test]
fn descriptors_are_checked_against_vigils_caps() {
    let d = rq();
    expect_rule(blas(&d, &[]), Rule::BlasDescriptor);
    let mut wrong = size(None, 3, 1);
    wrong.vertex_format = VertexFormat::Float32x2;
    expect_rule(blas(&d, &[wrong]), Rule::BlasDescriptor);
    expect_rule(blas(&d, &[size(None, 3, 0)]), Rule::BlasDescriptor);
    expect_rule(blas(&d, &[size(None, 0, 1)]), Rule::BlasDescriptor);
    // Unindexed: three vertices per triangle.
    expect_rule(blas(&d, &[size(None, 5, 2)]), Rule::BlasDescriptor);
    blas(&d, &[size(Some(IndexFormat::Uint16), 4, 2)]).unwrap();
    expect_rule(
        blas(
            &d,
            &[
                size(Some(IndexFormat::Uint32), 3, 1 << 29),
                size(None, 3, 1),
            ],
        ),
        Rule::BlasDescriptor,
    );
    expect_rule(tlas(&d, 0), Rule::TlasDescriptor);
    expect_rule(tlas(&d, (1 << 24) + 1), Rule::TlasDescriptor);
    tlas(&d, 1 << 24).unwrap();
}

#[test]
fn bottom_level_builds_match_what_the_structure_was_made_for() {
    let d = rq();
    let vb = buffer(&d, "vertices", 8 * 12, INPUT);
    let ib = buffer(&d, "indices", 12, INPUT);
    let plain = blas(&d, &[size(None, 6, 2)]).unwrap();
    let indexed = blas(&d, &[size(Some(IndexFormat::Uint16), 4, 2)]).unwrap();
    let geometry_count = |g: &[BlasTriangleGeometry]| {
        let mut e = encoder(&d);
        build_blas(&mut e, plain, g)
    };
    expect_rule(geometry_count(&[]), Rule::BlasBuildGeometry);
    expect_rule(
        geometry_count(&[unindexed(vb, 3, 1), unindexed(vb, 3, 1)]),
        Rule::BlasBuildGeometry,
    );
    // More vertices or triangles than made for; too few vertices for the triangles.
    expect_rule(
        geometry_count(&[unindexed(vb, 7, 2)]),
        Rule::BlasBuildGeometry,
    );
    expect_rule(
        geometry_count(&[unindexed(vb, 6, 3)]),
        Rule::BlasBuildGeometry,
    );
    expect_rule(
        geometry_count(&[unindexed(vb, 5, 2)]),
        Rule::BlasBuildGeometry,
    );
    // Indexed exactly when made indexed.
    let mut e = encoder(&d);
    expect_rule(
        build_blas(&mut e, indexed, &[unindexed(vb, 3, 1)]),
        Rule::BlasBuildGeometry,
    );
    let mut e = encoder(&d);
    let with_indices = BlasTriangleGeometry {
        index_buffer: Some(ib),
        ..unindexed(vb, 4, 2)
    };
    expect_rule(
        build_blas(&mut e, plain, &[with_indices]),
        Rule::BlasBuildGeometry,
    );
    let mut e = encoder(&d);
    build_blas(&mut e, indexed, &[with_indices]).unwrap();
    build_blas(&mut e, plain, &[unindexed(vb, 6, 2)]).unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn inputs_need_blas_input_usage_and_lie_inside_their_buffers() {
    let d = rq();
    let vb = buffer(&d, "vertices", 8 * 12, INPUT);
    let plain_vb = storage(&d, 8 * 12);
    let ib = buffer(&d, "indices", 12, INPUT);
    let plain_ib = storage(&d, 12);
    let plain = blas(&d, &[size(None, 8, 2)]).unwrap();
    let indexed = blas(&d, &[size(Some(IndexFormat::Uint16), 8, 2)]).unwrap();
    let run = |b: Blas, g: BlasTriangleGeometry| {
        let mut e = encoder(&d);
        build_blas(&mut e, b, &[g])
    };
    expect_rule(run(plain, unindexed(plain_vb, 6, 2)), Rule::BlasInputUsage);
    expect_rule(
        run(
            indexed,
            BlasTriangleGeometry {
                index_buffer: Some(plain_ib),
                ..unindexed(vb, 4, 2)
            },
        ),
        Rule::BlasInputUsage,
    );
    // Strides: at least 12, a multiple of 4.
    for stride in [8, 14] {
        expect_rule(
            run(
                plain,
                BlasTriangleGeometry {
                    vertex_stride: stride,
                    ..unindexed(vb, 6, 2)
                },
            ),
            Rule::BlasInputRange,
        );
    }
    // Eight positions fit; from position 3 on, six do not.
    run(plain, unindexed(vb, 8, 2)).unwrap();
    expect_rule(
        run(
            plain,
            BlasTriangleGeometry {
                first_vertex: 3,
                ..unindexed(vb, 6, 2)
            },
        ),
        Rule::BlasInputRange,
    );
    // Six 16-bit indices fill the 12 bytes; from index 1 they run past the end.
    expect_rule(
        run(
            indexed,
            BlasTriangleGeometry {
                index_buffer: Some(ib),
                first_index: 1,
                ..unindexed(vb, 4, 2)
            },
        ),
        Rule::BlasInputRange,
    );
    // A first vertex so far out that its offset overflows: refused, not wrapped.
    expect_rule(
        run(
            plain,
            BlasTriangleGeometry {
                first_vertex: u32::MAX,
                vertex_stride: u64::from(u32::MAX) & !3,
                ..unindexed(vb, 6, 2)
            },
        ),
        Rule::BlasInputRange,
    );
}

#[test]
fn top_level_builds_check_their_instances() {
    let d = rq();
    let vb = buffer(&d, "vertices", 3 * 12, INPUT);
    let b = blas(&d, &[size(None, 3, 1)]).unwrap();
    let t = tlas(&d, 2).unwrap();
    let inst = |custom: u32| TlasInstance::new(b, TlasInstance::IDENTITY, custom, 0xFF);
    let run = |instances: &[TlasInstance]| {
        let mut e = encoder(&d);
        e.build_acceleration_structures(&[], &[TlasBuildEntry { tlas: t, instances }])
    };
    expect_rule(run(&[inst(0), inst(1), inst(2)]), Rule::TlasBuildInstances);
    expect_rule(run(&[inst(1 << 24)]), Rule::TlasBuildInstances);
    let mut bad = inst(0);
    bad.transform[3] = f32::NAN;
    expect_rule(run(&[bad]), Rule::TlasBuildInstances);
    // The same structure twice in one call.
    let mut e = encoder(&d);
    expect_rule(
        e.build_acceleration_structures(
            &[],
            &[
                TlasBuildEntry {
                    tlas: t,
                    instances: &[],
                },
                TlasBuildEntry {
                    tlas: t,
                    instances: &[],
                },
            ],
        ),
        Rule::AccelBuildDuplicate,
    );
    // A destroyed bottom-level structure is a stale handle.
    let gone = blas(&d, &[size(None, 3, 1)]).unwrap();
    d.destroy_blas(gone).unwrap();
    expect_rule(
        run(&[TlasInstance::new(gone, TlasInstance::IDENTITY, 0, 0xFF)]),
        Rule::HandleStale,
    );
    // Built in the same command buffer first: accepted; an empty build too.
    let mut e = encoder(&d);
    build_blas(&mut e, b, &[unindexed(vb, 3, 1)]).unwrap();
    e.build_acceleration_structures(
        &[],
        &[TlasBuildEntry {
            tlas: t,
            instances: &[inst(5)],
        }],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let mut e = encoder(&d);
    e.build_acceleration_structures(
        &[],
        &[TlasBuildEntry {
            tlas: t,
            instances: &[],
        }],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
}

#[test]
fn builds_are_fenced_on_both_sides() {
    let d = rq();
    let vb = buffer(&d, "vertices", 3 * 12, INPUT);
    let b = blas(&d, &[size(None, 3, 1)]).unwrap();
    let t = tlas(&d, 1).unwrap();
    let mut e = encoder(&d);
    e.build_acceleration_structures(
        &[BlasBuildEntry {
            blas: b,
            geometries: &[unindexed(vb, 3, 1)],
        }],
        &[TlasBuildEntry {
            tlas: t,
            instances: &[TlasInstance::new(b, TlasInstance::IDENTITY, 0, 0xFF)],
        }],
    )
    .unwrap();
    d.submit([e.finish().unwrap()]).unwrap();
    let cmds = last_commands(&d);
    let builds: Vec<(usize, bool)> = cmds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match *c {
            TestCommand::BuildAccelerationStructure { top_level, .. } => Some((i, top_level)),
            _ => None,
        })
        .collect();
    assert_eq!(builds.len(), 2, "{cmds:?}");
    assert!(!builds[0].1 && builds[1].1, "bottom level first: {cmds:?}");
    let barrier = |range: std::ops::Range<usize>| {
        cmds[range].iter().find_map(|c| match *c {
            TestCommand::Barrier(m) => Some(m),
            _ => None,
        })
    };
    let build = Stages::ACCELERATION_STRUCTURE_BUILD;
    let before = barrier(0..builds[0].0).expect("a fence before the builds");
    assert!(before.dst.contains(build) && before.src.contains(Stages::COMPUTE | build));
    let between = barrier(builds[0].0..builds[1].0).expect("a fence between the levels");
    assert!(between.src.contains(build) && between.dst.contains(build));
    let after = barrier(builds[1].0..cmds.len()).expect("a fence after the builds");
    assert!(after.src.contains(build));
    assert!(
        after
            .dst
            .contains(Stages::COMPUTE | Stages::FRAGMENT_SHADER | build)
    );
}

#[test]
fn layouts_and_groups_hold_single_top_level_structures() {
    let d = rq();
    let as_entry = |b| entry(b, ShaderStages::COMPUTE, BindingType::AccelerationStructure);
    let mut arrayed = as_entry(0);
    arrayed.array = BindingArray::of(2);
    expect_rule(
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "l",
            entries: &[arrayed],
        }),
        Rule::LayoutArrayFeature,
    );
    let many: Vec<_> = (0..17).map(as_entry).collect();
    expect_rule(
        d.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "l",
            entries: &many,
        }),
        Rule::LayoutStageLimit,
    );
    let l = layout(&d, &[as_entry(0)]);
    let t = tlas(&d, 1).unwrap();
    expect_rule(
        group(&d, l, &[(0, whole(storage(&d, 16)))]),
        Rule::GroupEntryKind,
    );
    let g = group(&d, l, &[(0, BindingResource::AccelerationStructure(t))]).unwrap();
    // The group holds the structure: destroyed, its handle is stale, and work using the
    // group is refused at submission, as for any member.
    d.destroy_tlas(t).unwrap();
    expect_rule(
        group(&d, l, &[(0, BindingResource::AccelerationStructure(t))]),
        Rule::HandleStale,
    );
    let bindings = d.bind_group_bindings(g);
    expect_rule(bindings, Rule::GroupMemberDestroyed);
}

#[test]
fn a_structure_used_before_any_build_is_refused_at_submission() {
    let d = rq();
    let vb = buffer(&d, "vertices", 3 * 12, INPUT);
    let b = blas(&d, &[size(None, 3, 1)]).unwrap();
    let t = tlas(&d, 1).unwrap();
    let inst = [TlasInstance::new(b, TlasInstance::IDENTITY, 0, 0xFF)];
    let tlas_build = |e: &mut CommandEncoder<TestApi>| {
        e.build_acceleration_structures(
            &[],
            &[TlasBuildEntry {
                tlas: t,
                instances: &inst,
            }],
        )
        .unwrap()
    };
    // The top-level build first, the bottom-level one in a later command buffer: refused,
    // and nothing of it ran (the structures stay unbuilt).
    let mut first = encoder(&d);
    tlas_build(&mut first);
    let mut second = encoder(&d);
    build_blas(&mut second, b, &[unindexed(vb, 3, 1)]).unwrap();
    let err = expect_rule(
        d.submit([first.finish().unwrap(), second.finish().unwrap()]),
        Rule::AccelUnbuilt,
    );
    assert!(err.to_string().contains("'blas'"), "{err}");
    let mut again = encoder(&d);
    tlas_build(&mut again);
    expect_rule(d.submit([again.finish().unwrap()]), Rule::AccelUnbuilt);
    // In order, in one submission: accepted; afterwards both count as built.
    let mut first = encoder(&d);
    build_blas(&mut first, b, &[unindexed(vb, 3, 1)]).unwrap();
    let mut second = encoder(&d);
    tlas_build(&mut second);
    d.submit([first.finish().unwrap(), second.finish().unwrap()])
        .unwrap();
    let mut later = encoder(&d);
    tlas_build(&mut later);
    d.submit([later.finish().unwrap()]).unwrap();
    // A bottom-level structure destroyed after recording a build that names it: the
    // submission is refused, as for any object destroyed after recording.
    let mut stale = encoder(&d);
    tlas_build(&mut stale);
    d.destroy_blas(b).unwrap();
    expect_rule(d.submit([stale.finish().unwrap()]), Rule::SubmitDestroyed);
}

#[test]
fn structures_alone_do_not_grant_ray_queries() {
    let d = device_with(Features::ACCELERATION_STRUCTURE);
    assert!(!d.features().contains(Features::RAY_QUERY));
    tlas(&d, 1).unwrap();
    let err = expect_rule(
        d.create_shader_module(&ShaderModuleDescriptor {
            label: "trace",
            wgsl: "enable wgpu_ray_query;
            @group(0) @binding(0) var acc: acceleration_structure;
            @compute @workgroup_size(1) fn main() {
                var rq: ray_query;
                rayQueryInitialize(&rq, acc, RayDesc(0u, 0xFFu, 0.0, 1.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
            }",
        }),
        Rule::ShaderFeature,
    );
    assert!(err.to_string().contains("RAY_QUERY"), "{err}");
    // Asking for ray queries brings structures.
    let d = device_with(Features::RAY_QUERY);
    assert!(d.features().contains(Features::ACCELERATION_STRUCTURE));
}
