//! Graph rules and barrier plans on vigil's test backend: identity of imported resources,
//! conflicting initial states, access scopes derived from group layouts, dynamic offsets,
//! stale and untracked groups, culling, and the planned barriers of reference graphs
//! against hand-derived lists.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::num::NonZeroU64;
use vigil::*;
use vigil_graph::{
    Access, Barrier, Graph, GraphError, GraphGroupEntry, GraphResource, Layout, PassKind, Range,
    ResourceKey, ResourceState, Scope, Stages, Transient, TransientBuffer, TransientTexture, Usage,
};

type TDevice = Device<TestApi>;
type TGraph = Graph<TestApi>;

fn device() -> TDevice {
    let instance = Instance::<TestApi>::new(&InstanceDescriptor::default()).unwrap();
    let adapter = instance.adapters().into_iter().next().unwrap();
    adapter
        .request_device(&DeviceDescriptor {
            label: "graph".into(),
            required_limits: adapter.limits().clone(),
            ..DeviceDescriptor::default()
        })
        .unwrap()
}

fn buffer(d: &TDevice, size: u64) -> Buffer {
    d.create_buffer(&BufferDescriptor {
        label: "buf",
        size,
        usage: BufferUsages::STORAGE | BufferUsages::UNIFORM | BufferUsages::COPY_DST,
    })
    .unwrap()
}

fn entry(binding: u32, ty: BindingType) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE | ShaderStages::FRAGMENT,
        ty,
        array: None,
    }
}

fn storage(read_only: bool, dynamic: bool) -> BindingType {
    BindingType::Buffer {
        ty: BufferBindingType::Storage { read_only },
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    }
}

fn uniform(dynamic: bool) -> BindingType {
    BindingType::Buffer {
        ty: BufferBindingType::Uniform,
        has_dynamic_offset: dynamic,
        min_binding_size: NonZeroU64::new(16),
    }
}

fn group(
    d: &TDevice,
    entries: &[BindGroupLayoutEntry],
    resources: &[BindingResource<'_>],
) -> BindGroup {
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "layout",
            entries,
        })
        .unwrap();
    let entries: Vec<BindGroupEntry<'_>> = entries
        .iter()
        .zip(resources)
        .map(|(e, &resource)| BindGroupEntry {
            binding: e.binding,
            resource,
        })
        .collect();
    d.create_bind_group(&BindGroupDescriptor {
        label: "group",
        layout,
        entries: &entries,
    })
    .unwrap()
}

fn whole(b: Buffer) -> BindingResource<'static> {
    BindingResource::Buffer(BufferBinding::whole(b))
}

const READ: ResourceState =
    ResourceState::new(Stages::COMPUTE, Access::SHADER_READ, Layout::Undefined);

#[test]
fn one_resource_however_it_is_imported_in_either_order() {
    let d = device();
    let (a, b) = (buffer(&d, 256), buffer(&d, 256));
    let g1 = group(&d, &[entry(0, storage(true, false))], &[whole(a)]);
    let g2 = group(
        &d,
        &[
            entry(0, storage(true, false)),
            entry(1, storage(false, false)),
        ],
        &[whole(a), whole(b)],
    );
    // Direct first, then through two groups.
    let mut graph = TGraph::new();
    let direct = graph.import_buffer("a", a, READ).unwrap();
    graph.import_bind_group(&d, g1, &[], |_| READ).unwrap();
    graph.import_bind_group(&d, g2, &[], |_| READ).unwrap();
    assert_eq!(graph.resource_of(ResourceKey::Buffer(a)), Some(direct));
    // Groups first, then direct.
    let mut graph = TGraph::new();
    graph.import_bind_group(&d, g2, &[], |_| READ).unwrap();
    let first = graph.resource_of(ResourceKey::Buffer(a)).unwrap();
    assert_eq!(graph.import_buffer("a", a, READ).unwrap(), first);
    graph.import_bind_group(&d, g1, &[], |_| READ).unwrap();
    assert_eq!(graph.resource_of(ResourceKey::Buffer(a)), Some(first));
    // Another initial state is an error in either order, never a merge.
    let other = ResourceState::TRANSFER_WRITTEN;
    assert!(matches!(
        graph.import_buffer("a", a, other),
        Err(GraphError::ConflictingInitialState { .. })
    ));
    let mut graph = TGraph::new();
    graph.import_buffer("a", a, other).unwrap();
    assert!(matches!(
        graph.import_bind_group(&d, g1, &[], |_| READ),
        Err(GraphError::ConflictingInitialState { .. })
    ));
    // The refused import changed nothing: the state is still the first one.
    let id = graph.resource_of(ResourceKey::Buffer(a)).unwrap();
    assert_eq!(graph.describe(id).unwrap().1, other);
}

#[test]
fn scopes_follow_the_group_layout() {
    let d = device();
    let (u, ro, rw) = (buffer(&d, 1024), buffer(&d, 512), buffer(&d, 512));
    let sampler = d.create_sampler(&SamplerDescriptor::default()).unwrap();
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "tex",
            size: [4, 4],
            array_layers: 2,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let layer1 = d
        .create_texture_view(
            tex,
            &TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2),
                base_array_layer: 1,
                array_layer_count: Some(1),
                ..TextureViewDescriptor::default()
            },
        )
        .unwrap();
    let sampled_only = d
        .create_texture(&TextureDescriptor {
            label: "sampled only",
            size: [4, 4],
            usage: TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let sampled_view = d
        .create_texture_view(sampled_only, &TextureViewDescriptor::default())
        .unwrap();
    let sampled = BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: true },
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    };
    let g = group(
        &d,
        &[
            entry(0, uniform(true)),
            entry(1, storage(true, false)),
            entry(2, storage(false, false)),
            entry(3, BindingType::Sampler(SamplerBindingType::Filtering)),
            entry(4, sampled),
            entry(5, sampled),
        ],
        &[
            BindingResource::Buffer(BufferBinding {
                buffer: u,
                offset: 256,
                size: Some(64),
            }),
            whole(ro),
            whole(rw),
            BindingResource::Sampler(sampler),
            BindingResource::TextureView(layer1),
            BindingResource::TextureView(sampled_view),
        ],
    );
    let mut graph = TGraph::new();
    let id = graph
        .import_bind_group(&d, g, &[512], |_| ResourceState::UNUSED)
        .unwrap();
    let scopes = graph.group_scopes(id).unwrap();
    // The sampler has no scope.
    assert_eq!(scopes.len(), 5);
    let stages = Stages::COMPUTE | Stages::FRAGMENT_SHADER;
    let of = |b: Buffer| graph.resource_of(ResourceKey::Buffer(b)).unwrap();
    assert_eq!(scopes[0].resource, of(u));
    assert_eq!(
        scopes[0].range,
        Range::Bytes {
            offset: 256 + 512,
            size: 64
        }
    );
    assert_eq!(
        scopes[0].state,
        ResourceState::new(stages, Access::UNIFORM_READ, Layout::Undefined)
    );
    assert_eq!(scopes[1].state.access, Access::SHADER_READ);
    assert_eq!(
        scopes[2].state.access,
        Access::SHADER_READ | Access::SHADER_WRITE
    );
    assert_eq!(
        scopes[3].resource,
        graph.resource_of(ResourceKey::Texture(tex)).unwrap()
    );
    assert_eq!(
        scopes[3].range,
        Range::Subresources {
            base_mip_level: 0,
            mip_level_count: 1,
            base_array_layer: 1,
            array_layer_count: 1
        }
    );
    // Sampled in the layout the group's descriptor names: vigil samples a texture that
    // can also be a storage texture in the general layout, others read-only.
    assert_eq!(
        scopes[3].state,
        ResourceState::new(stages, Access::SHADER_READ, Layout::General)
    );
    assert_eq!(
        scopes[4].state,
        ResourceState::new(stages, Access::SHADER_READ, Layout::ShaderReadOnly)
    );
}

#[test]
fn dynamic_offsets_are_counted_aligned_and_kept_in_range() {
    let d = device();
    let u = buffer(&d, 1024);
    let g = group(
        &d,
        &[entry(0, uniform(true))],
        &[BindingResource::Buffer(BufferBinding {
            buffer: u,
            offset: 0,
            size: Some(256),
        })],
    );
    let mut graph = TGraph::new();
    let unused = |_| ResourceState::UNUSED;
    assert!(matches!(
        graph.import_bind_group(&d, g, &[], unused),
        Err(GraphError::DynamicOffsetCount {
            expected: 1,
            given: 0
        })
    ));
    assert!(matches!(
        graph.import_bind_group(&d, g, &[4], unused),
        Err(GraphError::DynamicOffsetAlignment { .. })
    ));
    assert!(matches!(
        graph.import_bind_group(&d, g, &[1024], unused),
        Err(GraphError::DynamicOffsetRange { .. })
    ));
    assert!(matches!(
        graph.import_bind_group(&d, g, &[u32::MAX - 255], unused),
        Err(GraphError::DynamicOffsetAlignment { .. } | GraphError::DynamicOffsetRange { .. })
    ));
    graph.import_bind_group(&d, g, &[768], unused).unwrap();
}

#[test]
fn untracked_stale_and_destroyed_groups_are_refused() {
    let d = device();
    let a = buffer(&d, 256);
    let layout_entries = [entry(0, storage(true, false))];
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "layout",
            entries: &layout_entries,
        })
        .unwrap();
    let entries = [BindGroupEntry {
        binding: 0,
        resource: whole(a),
    }];
    let desc = BindGroupDescriptor {
        label: "g",
        layout,
        entries: &entries,
    };
    // SAFETY: `a` lives until the device goes; the group is never submitted.
    let untracked = unsafe { d.create_bind_group_untracked(&desc) }.unwrap();
    let err = TGraph::new()
        .import_bind_group(&d, untracked, &[], |_| READ)
        .unwrap_err();
    assert!(
        matches!(&err, GraphError::Device(e) if e.rule() == Rule::GroupUntracked),
        "{err}"
    );
    // A pool reset after compiling: the execution is refused before anything is recorded.
    let pool = d
        .create_bind_group_pool(&BindGroupPoolDescriptor { label: "frame" })
        .unwrap();
    let pooled = d.create_bind_group_in(pool, &desc).unwrap();
    let mut graph = TGraph::new();
    let gid = graph.import_bind_group(&d, pooled, &[], |_| READ).unwrap();
    let pass = graph.add_pass("reads", PassKind::Compute);
    graph.use_group(pass, 0, gid).unwrap();
    graph.keep(pass).unwrap();
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = ran.clone();
    graph
        .record(pass, move |_ctx| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
    let mut compiled = graph.compile().unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .unwrap();
    compiled.execute(&d, &mut e).unwrap();
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 1);
    d.reset_bind_group_pool(pool).unwrap();
    let err = compiled.execute(&d, &mut e).unwrap_err();
    assert!(
        matches!(&err, GraphError::Device(e) if e.rule() == Rule::GroupPoolReset),
        "{err}"
    );
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 1);
    // A group whose buffer was destroyed is refused too.
    let g = d.create_bind_group(&desc).unwrap();
    d.destroy_buffer(a).unwrap();
    let err = TGraph::new()
        .import_bind_group(&d, g, &[], |_| READ)
        .unwrap_err();
    assert!(
        matches!(&err, GraphError::Device(e) if e.rule() == Rule::GroupMemberDestroyed),
        "{err}"
    );
}

#[test]
fn overlapping_texture_uses_in_one_pass_need_one_layout() {
    let d = device();
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "t",
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let mut graph = TGraph::new();
    let t = graph
        .import_texture("t", tex, ResourceState::UNUSED)
        .unwrap();
    let p = graph.add_pass("both", PassKind::Compute);
    graph
        .uses(p, t, Usage::ShaderRead(Stages::COMPUTE))
        .unwrap();
    graph
        .uses(p, t, Usage::ShaderWrite(Stages::COMPUTE))
        .unwrap();
    assert!(matches!(
        graph.pass_scopes(p),
        Err(GraphError::LayoutConflict { .. })
    ));
    // Disjoint mips may differ.
    let q = graph.add_pass("disjoint", PassKind::Compute);
    let mip = |m| Range::Subresources {
        base_mip_level: m,
        mip_level_count: 1,
        base_array_layer: 0,
        array_layer_count: 1,
    };
    graph
        .uses_range(q, t, mip(0), Usage::ShaderRead(Stages::COMPUTE))
        .unwrap();
    graph
        .uses_range(q, t, mip(1), Usage::ShaderWrite(Stages::COMPUTE))
        .unwrap();
    assert_eq!(graph.pass_scopes(q).unwrap().len(), 2);
    // Uses of one buffer in one pass merge into one scope.
    let b = graph
        .import_buffer("b", buffer(&d, 64), ResourceState::UNUSED)
        .unwrap();
    let r = graph.add_pass("merge", PassKind::Compute);
    graph
        .uses(r, b, Usage::Uniform(Stages::VERTEX_SHADER))
        .unwrap();
    graph
        .uses(r, b, Usage::ShaderRead(Stages::FRAGMENT_SHADER))
        .unwrap();
    let merged = graph.pass_scopes(r).unwrap();
    assert_eq!(merged.len(), 1);
    assert_eq!(
        merged[0].state.stages,
        Stages::VERTEX_SHADER | Stages::FRAGMENT_SHADER
    );
    assert_eq!(
        merged[0].state.access,
        Access::UNIFORM_READ | Access::SHADER_READ
    );
}

#[test]
fn a_read_only_depth_pass_tests_and_samples_its_depth_in_one_layout() {
    let d = device();
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "depth",
            format: TextureFormat::Depth32Float,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let mut g = TGraph::new();
    let t = g
        .import_texture("depth", tex, ResourceState::UNUSED)
        .unwrap();
    let writes = g.add_pass("writes", PassKind::Render);
    g.uses(writes, t, Usage::DepthAttachment).unwrap();
    let reads = g.add_pass("reads", PassKind::Render);
    g.uses(reads, t, Usage::DepthReadOnly).unwrap();
    g.uses(reads, t, Usage::ShaderRead(F)).unwrap();
    g.keep(reads).unwrap();
    // The two reads share the pass's one scope (no layout conflict, as a write would be).
    let scopes = g.pass_scopes(reads).unwrap();
    assert_eq!(scopes.len(), 1);
    let both = (
        Stages::DEPTH_STENCIL | F,
        Access::DEPTH_STENCIL_READ | Access::SHADER_READ,
    );
    assert_eq!((scopes[0].state.stages, scopes[0].state.access), both);
    assert_eq!(scopes[0].state.layout, Layout::ShaderReadOnly);
    // One barrier between the passes: the depth writes before both reads, into that layout.
    let plan = g.compile().unwrap().plan().clone();
    assert_eq!(
        plan.passes[1].barriers,
        vec![barrier(
            t,
            (Stages::DEPTH_STENCIL, Access::DEPTH_STENCIL_WRITE),
            both,
            (Layout::DepthStencilAttachment, Layout::ShaderReadOnly)
        )]
    );
}

fn barrier(
    resource: vigil_graph::ResourceId,
    src: (Stages, Access),
    dst: (Stages, Access),
    layouts: (Layout, Layout),
) -> Barrier {
    Barrier {
        resource,
        range: Range::Whole,
        src_stages: src.0,
        src_access: src.1,
        dst_stages: dst.0,
        dst_access: dst.1,
        old_layout: layouts.0,
        new_layout: layouts.1,
    }
}

const C: Stages = Stages::COMPUTE;
const F: Stages = Stages::FRAGMENT_SHADER;
const R: Access = Access::SHADER_READ;
const RW: Access = Access::SHADER_READ.union(Access::SHADER_WRITE);
const W: Access = Access::SHADER_WRITE;
const U: Layout = Layout::Undefined;

#[test]
fn reference_graphs_plan_the_hand_derived_barriers() {
    let d = device();
    // 1. A chain: upload -> read A, write B -> read B, write C.
    let mut g = TGraph::new();
    let a = g
        .import_buffer("a", buffer(&d, 64), ResourceState::TRANSFER_WRITTEN)
        .unwrap();
    let b = g
        .import_buffer("b", buffer(&d, 64), ResourceState::UNUSED)
        .unwrap();
    let c = g
        .import_buffer("c", buffer(&d, 64), ResourceState::UNUSED)
        .unwrap();
    let p1 = g.add_pass("p1", PassKind::Compute);
    g.uses(p1, a, Usage::ShaderRead(C)).unwrap();
    g.uses(p1, b, Usage::ShaderWrite(C)).unwrap();
    let p2 = g.add_pass("p2", PassKind::Compute);
    g.uses(p2, b, Usage::ShaderRead(C)).unwrap();
    g.uses(p2, c, Usage::ShaderWrite(C)).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    assert_eq!(
        plan.passes[0].barriers,
        vec![barrier(
            a,
            (Stages::TRANSFER, Access::TRANSFER_WRITE),
            (C, R),
            (U, U)
        )]
    );
    assert_eq!(
        plan.passes[1].barriers,
        vec![barrier(b, (C, W), (C, R), (U, U))]
    );
    assert_eq!(plan.barrier_count(), 2);

    // 2. Reads after reads: none again for a stage already covered, one for a new stage.
    let mut g = TGraph::new();
    let a = g
        .import_buffer("a", buffer(&d, 64), ResourceState::TRANSFER_WRITTEN)
        .unwrap();
    let out = g
        .import_buffer("out", buffer(&d, 64), ResourceState::UNUSED)
        .unwrap();
    for (name, stage) in [("r1", C), ("r2", C), ("r3", F)] {
        let p = g.add_pass(name, PassKind::Compute);
        g.uses(p, a, Usage::ShaderRead(stage)).unwrap();
        g.uses(p, out, Usage::ShaderWrite(C)).unwrap();
    }
    let plan = g.compile().unwrap().plan().clone();
    let on_a: Vec<Vec<Barrier>> = plan
        .passes
        .iter()
        .map(|p| {
            p.barriers
                .iter()
                .filter(|b| b.resource == a)
                .copied()
                .collect()
        })
        .collect();
    assert_eq!(on_a[0].len(), 1);
    assert!(on_a[1].is_empty());
    assert_eq!(
        on_a[2],
        vec![barrier(
            a,
            (Stages::TRANSFER, Access::TRANSFER_WRITE),
            (F, R),
            (U, U)
        )]
    );

    // 3. A write after reads waits for them (execution only), and a write after a write
    // makes the first available.
    let mut g = TGraph::new();
    let a = g.import_buffer("a", buffer(&d, 64), READ).unwrap();
    let p1 = g.add_pass("w1", PassKind::Compute);
    g.uses(p1, a, Usage::ShaderWrite(C)).unwrap();
    let p2 = g.add_pass("w2", PassKind::Compute);
    g.uses(p2, a, Usage::ShaderWrite(F)).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    assert_eq!(
        plan.passes[0].barriers,
        vec![barrier(a, (C, Access::empty()), (C, RW), (U, U))]
    );
    assert_eq!(
        plan.passes[1].barriers,
        vec![barrier(a, (C, W), (F, RW), (U, U))]
    );

    // 4. A texture: storage-written in general layout, then sampled by fragment and
    // compute shaders in the read-only layout (one transition, then one more barrier for
    // the stage the transition did not cover).
    let mut g = TGraph::new();
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "t",
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let t = g.import_texture("t", tex, ResourceState::UNUSED).unwrap();
    let p1 = g.add_pass("fill", PassKind::Compute);
    g.uses(p1, t, Usage::ShaderWrite(C)).unwrap();
    let p2 = g.add_pass("shade", PassKind::Render);
    g.uses(p2, t, Usage::ShaderRead(F)).unwrap();
    let p3 = g.add_pass("reduce", PassKind::Compute);
    g.uses(p3, t, Usage::ShaderRead(C)).unwrap();
    g.keep(p2).unwrap();
    g.keep(p3).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    assert_eq!(
        plan.passes[0].barriers,
        vec![barrier(
            t,
            (Stages::empty(), Access::empty()),
            (C, RW),
            (U, Layout::General)
        )]
    );
    assert_eq!(
        plan.passes[1].barriers,
        vec![barrier(
            t,
            (C, W),
            (F, R),
            (Layout::General, Layout::ShaderReadOnly)
        )]
    );
    assert_eq!(
        plan.passes[2].barriers,
        vec![barrier(
            t,
            (F, Access::empty()),
            (C, R),
            (Layout::ShaderReadOnly, Layout::ShaderReadOnly)
        )]
    );
    assert_eq!(plan.barrier_count(), 3);
}

#[test]
fn passes_nobody_needs_are_culled() {
    let d = device();
    let mut g = TGraph::new();
    let out = g
        .import_buffer("out", buffer(&d, 64), ResourceState::UNUSED)
        .unwrap();
    let used = g.create_buffer(
        "used",
        TransientBuffer {
            size: 64,
            usage: BufferUsages::STORAGE,
        },
    );
    let unused = g.create_buffer(
        "unused",
        TransientBuffer {
            size: 64,
            usage: BufferUsages::STORAGE,
        },
    );
    let make = g.add_pass("make", PassKind::Compute);
    g.uses(make, used, Usage::ShaderWrite(C)).unwrap();
    let waste = g.add_pass("waste", PassKind::Compute);
    g.uses(waste, unused, Usage::ShaderWrite(C)).unwrap();
    let finish = g.add_pass("finish", PassKind::Compute);
    g.uses(finish, used, Usage::ShaderRead(C)).unwrap();
    g.uses(finish, out, Usage::ShaderWrite(C)).unwrap();
    let compiled = g.compile().unwrap();
    let plan = compiled.plan();
    assert_eq!(plan.culled, vec![waste]);
    let names: Vec<&str> = plan.passes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["make", "finish"]);
    let dot = compiled.to_dot();
    assert!(dot.starts_with("digraph vigil_graph {"), "{dot}");
    assert!(dot.contains("waste (culled)"), "{dot}");
    assert!(dot.contains("barrier used"), "{dot}");
}

#[test]
fn transients_whose_lifetimes_do_not_overlap_share_a_buffer() {
    let d = device();
    let mut g = TGraph::new();
    let input = g
        .import_buffer("input", buffer(&d, 1024), ResourceState::TRANSFER_WRITTEN)
        .unwrap();
    let (out1, out2) = (
        g.import_buffer("out1", buffer(&d, 1024), ResourceState::UNUSED)
            .unwrap(),
        g.import_buffer("out2", buffer(&d, 1024), ResourceState::UNUSED)
            .unwrap(),
    );
    let t = |g: &mut TGraph, name, size| {
        g.create_buffer(
            name,
            TransientBuffer {
                size,
                usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
            },
        )
    };
    let (t1, t2, t3) = (
        t(&mut g, "t1", 1024),
        t(&mut g, "t2", 512),
        t(&mut g, "t3", 256),
    );
    // t3 lives across the others: it gets a buffer of its own.
    let p = g.add_pass("t3 across", PassKind::Copy);
    g.uses(p, t3, Usage::CopyDst).unwrap();
    g.uses(p, input, Usage::CopySrc).unwrap();
    let chain = [
        ("fill t1", input, t1),
        ("drain t1", t1, out1),
        ("fill t2", input, t2),
        ("drain t2", t2, out2),
    ];
    for (name, src, dst) in chain {
        let p = g.add_pass(name, PassKind::Copy);
        g.uses(p, src, Usage::CopySrc).unwrap();
        g.uses(p, dst, Usage::CopyDst).unwrap();
    }
    let q = g.add_pass("t3 read", PassKind::Copy);
    g.uses(q, t3, Usage::CopySrc).unwrap();
    g.uses(q, out1, Usage::CopyDst).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    let slot = |r| plan.aliases.iter().find(|(t, _)| *t == r).unwrap().1;
    assert_eq!(slot(t1), slot(t2));
    assert_ne!(slot(t1), slot(t3));
    assert_eq!(plan.backings.len(), 2);
    assert_eq!(plan.transient_bytes_unaliased, 1024 + 512 + 256);
    assert_eq!(plan.transient_bytes(), 1024 + 256);
    // t2's first write waits for t1's last read of the shared buffer.
    let fill_t2 = &plan.passes[3];
    assert!(
        fill_t2.barriers.contains(&Barrier {
            resource: t2,
            range: Range::Whole,
            src_stages: Stages::TRANSFER,
            src_access: Access::empty(),
            dst_stages: Stages::TRANSFER,
            dst_access: Access::TRANSFER_WRITE,
            old_layout: U,
            new_layout: U,
        }),
        "{:#?}",
        fill_t2.barriers
    );
}

#[test]
fn texture_barriers_are_planned_per_mip_and_layer() {
    let d = device();
    let tex = d
        .create_texture(&TextureDescriptor {
            label: "mipped",
            size: [8, 8],
            mip_level_count: 3,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..TextureDescriptor::default()
        })
        .unwrap();
    let mut g = TGraph::new();
    let t = g.import_texture("t", tex, ResourceState::UNUSED).unwrap();
    let mips = |base, count| Range::Subresources {
        base_mip_level: base,
        mip_level_count: count,
        base_array_layer: 0,
        array_layer_count: 1,
    };
    // A mip chain: each pass reads one level and writes the next, as the demo's do.
    for (name, level) in [("mip 1", 1), ("mip 2", 2)] {
        let p = g.add_pass(name, PassKind::Compute);
        g.uses_range(p, t, mips(level - 1, 1), Usage::ShaderRead(C))
            .unwrap();
        g.uses_range(p, t, mips(level, 1), Usage::ShaderWrite(C))
            .unwrap();
    }
    let shade = g.add_pass("shade", PassKind::Render);
    g.uses_range(shade, t, mips(0, 3), Usage::ShaderRead(F))
        .unwrap();
    g.keep(shade).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    let sro = Layout::ShaderReadOnly;
    let general = Layout::General;
    let with =
        |range, src: (Stages, Access), dst: (Stages, Access), layouts: (Layout, Layout)| Barrier {
            range,
            ..barrier(t, src, dst, layouts)
        };
    let none = (Stages::empty(), Access::empty());
    // Level 0 goes read-only, level 1 general: each from undefined, nothing to wait for.
    assert_eq!(
        plan.passes[0].barriers,
        vec![
            with(mips(0, 1), none, (C, R), (U, sro)),
            with(mips(1, 1), none, (C, RW), (U, general)),
        ]
    );
    // Level 1, just written, goes read-only; level 2 general.
    assert_eq!(
        plan.passes[1].barriers,
        vec![
            with(mips(1, 1), (C, W), (C, R), (general, sro)),
            with(mips(2, 1), none, (C, RW), (U, general)),
        ]
    );
    // The fragment read: levels 0 and 1 were read by compute shaders in the read-only
    // layout (one barrier over both); level 2 was written (a transition).
    assert_eq!(
        plan.passes[2].barriers,
        vec![
            with(mips(0, 2), (C, Access::empty()), (F, R), (sro, sro)),
            with(mips(2, 1), (C, W), (F, R), (general, sro)),
        ]
    );
}

fn target(format: TextureFormat) -> TransientTexture {
    TransientTexture {
        size: [64, 32],
        array_layers: 1,
        mip_level_count: 1,
        sample_count: 1,
        format,
        usage: TextureUsages::RENDER_ATTACHMENT,
    }
}

#[test]
fn transient_textures_share_only_with_textures_that_fit() {
    let d = device();
    let mut g = TGraph::new();
    let out = g
        .import_buffer("out", buffer(&d, 1024), ResourceState::UNUSED)
        .unwrap();
    let a = g.create_texture("a", target(TextureFormat::Rgba16Float));
    let b = g.create_texture("b", target(TextureFormat::Rgba8Unorm));
    let c = g.create_texture(
        "c",
        TransientTexture {
            usage: TextureUsages::TEXTURE_BINDING,
            ..target(TextureFormat::Rgba16Float)
        },
    );
    let small = g.create_texture(
        "small",
        TransientTexture {
            size: [32, 32],
            ..target(TextureFormat::Rgba16Float)
        },
    );
    // a lives in passes 0-1; b, c and small start after it.
    let chain = [(None, a), (Some(a), b), (Some(b), c), (Some(c), small)];
    for (k, (src, dst)) in chain.into_iter().enumerate() {
        let p = g.add_pass(&format!("p{k}"), PassKind::Render);
        if let Some(src) = src {
            g.uses(p, src, Usage::ShaderRead(F)).unwrap();
        }
        g.uses(p, dst, Usage::ColorAttachment).unwrap();
    }
    let last = g.add_pass("last", PassKind::Compute);
    g.uses(last, small, Usage::ShaderRead(C)).unwrap();
    g.uses(last, out, Usage::ShaderWrite(C)).unwrap();
    let plan = g.compile().unwrap().plan().clone();
    let slot = |r| plan.aliases.iter().find(|(t, _)| *t == r).unwrap().1;
    // c fits a (same shape and format; usages join), b has another format, small another
    // size: neither shares.
    assert_eq!(slot(a), slot(c));
    assert_ne!(slot(b), slot(a));
    assert_ne!(slot(small), slot(a));
    assert_ne!(slot(small), slot(b));
    assert_eq!(plan.backings.len(), 3);
    assert_eq!(
        plan.backings[slot(a)],
        Transient::Texture(TransientTexture {
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..target(TextureFormat::Rgba16Float)
        })
    );
    let (big16, big8, small16) = (64 * 32 * 8, 64 * 32 * 4, 32 * 32 * 8);
    assert_eq!(target(TextureFormat::Rgba16Float).bytes(), big16);
    assert_eq!(
        plan.transient_bytes_unaliased,
        big16 + big8 + big16 + small16
    );
    assert_eq!(plan.transient_bytes(), big16 + big8 + small16);
    // c's first use waits for a's last read of the shared texture and moves it from the
    // layout a left it in.
    assert!(
        plan.passes[2].barriers.contains(&Barrier {
            resource: c,
            range: Range::Subresources {
                base_mip_level: 0,
                mip_level_count: 1,
                base_array_layer: 0,
                array_layer_count: 1,
            },
            src_stages: F,
            src_access: Access::empty(),
            dst_stages: Stages::COLOR_ATTACHMENT,
            dst_access: Access::COLOR_READ | Access::COLOR_WRITE,
            old_layout: Layout::ShaderReadOnly,
            new_layout: Layout::ColorAttachment,
        }),
        "{:#?}",
        plan.passes[2].barriers
    );
    // Mipped and layered textures count every level and layer.
    let mipped = TransientTexture {
        size: [8, 4],
        array_layers: 2,
        mip_level_count: 4,
        sample_count: 1,
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::TEXTURE_BINDING,
    };
    assert_eq!(mipped.bytes(), (32 + 8 + 2 + 1) * 4 * 2);
}

#[test]
fn groups_the_graph_makes_derive_their_uses_from_the_layout() {
    let d = device();
    let layout = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "made",
            entries: &[
                entry(
                    0,
                    BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: false },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(1, uniform(false)),
                entry(2, storage(false, false)),
            ],
        })
        .unwrap();
    let mut g = TGraph::new();
    let params = g
        .import_buffer("params", buffer(&d, 256), ResourceState::TRANSFER_WRITTEN)
        .unwrap();
    let tex = g.create_texture(
        "tex",
        TransientTexture {
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
            ..target(TextureFormat::Rgba16Float)
        },
    );
    let scratch = g.create_buffer(
        "scratch",
        TransientBuffer {
            size: 512,
            usage: BufferUsages::STORAGE,
        },
    );
    let entries = [
        GraphGroupEntry {
            binding: 0,
            resource: GraphResource::Texture(tex),
        },
        GraphGroupEntry {
            binding: 1,
            resource: GraphResource::Buffer {
                resource: params,
                offset: 0,
                size: Some(64),
            },
        },
        GraphGroupEntry {
            binding: 2,
            resource: GraphResource::Buffer {
                resource: scratch,
                offset: 256,
                size: None,
            },
        },
    ];
    let made = g.create_bind_group(&d, "made", layout, &entries).unwrap();
    let stages = C | F;
    assert_eq!(
        g.group_scopes(made).unwrap(),
        &[
            Scope {
                resource: tex,
                range: Range::Subresources {
                    base_mip_level: 0,
                    mip_level_count: 1,
                    base_array_layer: 0,
                    array_layer_count: 1,
                },
                state: ResourceState::new(stages, R, Layout::ShaderReadOnly),
            },
            Scope {
                resource: params,
                range: Range::Bytes {
                    offset: 0,
                    size: 64
                },
                state: ResourceState::new(stages, Access::UNIFORM_READ, U),
            },
            Scope {
                resource: scratch,
                range: Range::Bytes {
                    offset: 256,
                    size: 256
                },
                state: ResourceState::new(stages, RW, U),
            },
        ]
    );

    // Refusals: each names the group and binding.
    let refused = |g: &mut TGraph, entries: &[GraphGroupEntry], binding: u32, why: &str| match g
        .create_bind_group(&d, "bad", layout, entries)
    {
        Err(GraphError::GroupEntry {
            group,
            binding: b,
            reason,
        }) => {
            assert_eq!((group.as_str(), b), ("bad", binding));
            assert!(reason.contains(why), "{reason}");
        }
        other => panic!("expected a GroupEntry refusal, got {:?}", other.map(|_| ())),
    };
    refused(&mut g, &entries[..2], 2, "exactly one entry");
    let mut doubled = entries.to_vec();
    doubled.push(entries[0]);
    refused(&mut g, &doubled, 0, "exactly one entry");
    let mut stray = entries.to_vec();
    stray.push(GraphGroupEntry {
        binding: 9,
        ..entries[0]
    });
    refused(&mut g, &stray, 9, "no such binding");
    let mut swapped = entries.to_vec();
    swapped[0].resource = entries[1].resource;
    refused(&mut g, &swapped, 0, "not of the binding's kind");
    let mut texture_as_buffer = entries.to_vec();
    texture_as_buffer[1].resource = GraphResource::Buffer {
        resource: tex,
        offset: 0,
        size: None,
    };
    refused(
        &mut g,
        &texture_as_buffer,
        1,
        "a buffer binding given a texture",
    );
    let imported = g
        .import_texture("imported", texture(&d), ResourceState::UNUSED)
        .unwrap();
    let mut not_made = entries.to_vec();
    not_made[0].resource = GraphResource::Texture(imported);
    refused(&mut g, &not_made, 0, "a texture the graph makes");
    let dynamic = d
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: "dynamic",
            entries: &[entry(0, uniform(true))],
        })
        .unwrap();
    let at0 = [GraphGroupEntry {
        binding: 0,
        ..entries[1]
    }];
    match g.create_bind_group(&d, "bad", dynamic, &at0) {
        Err(GraphError::GroupEntry { reason, .. }) => {
            assert!(reason.contains("dynamic offsets"), "{reason}")
        }
        other => panic!("expected a GroupEntry refusal, got {:?}", other.map(|_| ())),
    }
    // A destroyed layout is the device's refusal.
    d.destroy_bind_group_layout(dynamic).unwrap();
    assert!(matches!(
        g.create_bind_group(&d, "bad", dynamic, &at0),
        Err(GraphError::Device(_))
    ));
}

fn texture(d: &TDevice) -> Texture {
    d.create_texture(&TextureDescriptor {
        label: "t",
        size: [4, 4],
        usage: TextureUsages::TEXTURE_BINDING,
        ..TextureDescriptor::default()
    })
    .unwrap()
}

#[test]
fn uses_of_different_mips_in_one_pass_stay_apart() {
    let d = device();
    let mut g = TGraph::new();
    let out = g
        .import_buffer("out", buffer(&d, 256), ResourceState::UNUSED)
        .unwrap();
    // Can be a storage texture: vigil samples it in the general layout, so the read of one
    // level and the write of the next share a layout, and still stay two uses.
    let t = g.create_texture(
        "chain",
        TransientTexture {
            mip_level_count: 2,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::STORAGE_BINDING,
            ..target(TextureFormat::Rgba8Unorm)
        },
    );
    let mip = |m| Range::Subresources {
        base_mip_level: m,
        mip_level_count: 1,
        base_array_layer: 0,
        array_layer_count: 1,
    };
    let first = g.add_pass("level 0", PassKind::Compute);
    g.uses_range(first, t, mip(0), Usage::ShaderWrite(C))
        .unwrap();
    let second = g.add_pass("level 1", PassKind::Compute);
    g.uses_range(second, t, mip(0), Usage::ShaderRead(C))
        .unwrap();
    g.uses_range(second, t, mip(1), Usage::ShaderWrite(C))
        .unwrap();
    let last = g.add_pass("read", PassKind::Compute);
    g.uses(last, t, Usage::ShaderRead(C)).unwrap();
    g.uses(last, out, Usage::ShaderWrite(C)).unwrap();
    let scopes = g.pass_scopes(second).unwrap();
    assert_eq!(scopes.len(), 2, "{scopes:#?}");
    assert_eq!(scopes[0].state, ResourceState::new(C, R, Layout::General));
    assert_eq!(scopes[1].state, ResourceState::new(C, RW, Layout::General));
    let plan = g.compile().unwrap().plan().clone();
    assert_eq!(
        plan.passes[1].barriers,
        vec![
            Barrier {
                resource: t,
                range: mip(0),
                src_stages: C,
                src_access: W,
                dst_stages: C,
                dst_access: R,
                old_layout: Layout::General,
                new_layout: Layout::General,
            },
            Barrier {
                resource: t,
                range: mip(1),
                src_stages: Stages::empty(),
                src_access: Access::empty(),
                dst_stages: C,
                dst_access: RW,
                old_layout: Layout::Undefined,
                new_layout: Layout::General,
            },
        ]
    );
    // The last pass reads both levels: one barrier over both, for level 1's write (level
    // 0's reads were made visible to compute already).
    assert_eq!(plan.passes[2].barriers.len(), 1, "{:#?}", plan.passes[2]);
    assert_eq!(plan.passes[2].barriers[0].range, mip(1));
}

#[test]
fn each_pass_records_inside_a_debug_group_named_after_it() {
    use vigil::hal_test::TestCommand;
    let d = device();
    let mut graph = TGraph::new();
    for name in ["first", "second"] {
        let pass = graph.add_pass(name, PassKind::Compute);
        graph.keep(pass).unwrap();
        graph
            .record(pass, move |ctx| {
                ctx.encoder.insert_debug_marker(&format!("inside {name}"))
            })
            .unwrap();
    }
    let mut compiled = graph.compile().unwrap();
    let debug = |cbs: Vec<CommandBuffer<TestApi>>| {
        d.submit(cbs).unwrap();
        let (_, commands) = d.test_backend().submitted_commands().pop().unwrap();
        commands
            .iter()
            .filter(|c| {
                matches!(
                    c,
                    TestCommand::PushDebugGroup(_)
                        | TestCommand::PopDebugGroup
                        | TestCommand::InsertDebugMarker(_)
                )
            })
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
    };
    let expected = [
        r#"PushDebugGroup("first")"#,
        r#"InsertDebugMarker("inside first")"#,
        "PopDebugGroup",
        r#"PushDebugGroup("second")"#,
        r#"InsertDebugMarker("inside second")"#,
        "PopDebugGroup",
    ];
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .unwrap();
    compiled.execute(&d, &mut e).unwrap();
    assert_eq!(debug(vec![e.finish().unwrap()]), expected);
    // On two threads, each pass in the command buffer of its thread.
    assert_eq!(debug(compiled.execute_parallel(&d, 2).unwrap()), expected);
    // A recorder that leaves a group of its own open: the pass's group cannot close
    // around it, and the encoder refuses to finish.
    let mut graph = TGraph::new();
    let pass = graph.add_pass("leaky", PassKind::Compute);
    graph.keep(pass).unwrap();
    graph
        .record(pass, |ctx| ctx.encoder.push_debug_group("never closed"))
        .unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor { label: "frame" })
        .unwrap();
    graph.compile().unwrap().execute(&d, &mut e).unwrap();
    assert_eq!(e.finish().unwrap_err().rule(), Rule::DebugGroupOpen);
}
