//! The operations: each picks its arguments (mostly valid, biased to edge values, now and
//! then invalid) and makes one call through [`World::call`].

mod accel;
mod bundles;
mod encode;
mod gpu;
mod graph;
mod heaps;
mod objects;
mod placement;
mod queue;
pub mod surfaces;
mod threads;

use crate::rng::Rng;
use crate::world::World;

/// One operation.
pub type Op = fn(&mut World<'_>, &mut Rng);

/// Every operation with its weight: how often it is chosen relative to the others.
pub const OPS: &[(u32, Op)] = &[
    // Objects.
    (6, objects::create_buffer),
    (3, objects::create_texture),
    (4, objects::create_texture_view),
    (2, objects::create_sampler),
    (1, objects::create_query_set),
    (1, objects::pipeline_cache),
    (3, objects::create_bind_group_layout),
    (6, objects::create_bind_group),
    (2, objects::write_bind_group),
    (2, objects::bind_group_pools),
    (3, objects::create_pipeline_layout),
    (2, objects::create_shader_module),
    (3, objects::create_compute_pipeline),
    (4, objects::create_render_pipeline),
    (6, objects::destroy_something),
    (1, objects::inspect),
    (1, objects::share_texture),
    (3, accel::acceleration_structures),
    (3, gpu::gpu_pointers),
    (3, heaps::descriptor_heaps),
    (2, gpu::pointer_draws),
    (3, placement::placement),
    (3, surfaces::surfaces),
    // Encoders.
    (5, encode::create_encoder),
    (4, encode::finish_encoder),
    (1, encode::drop_encoder),
    (3, encode::begin_compute_pass),
    (2, encode::end_pass),
    (3, encode::begin_render_pass),
    (5, encode::set_pipeline),
    (8, encode::set_bind_group),
    (2, encode::set_immediates),
    (4, encode::set_vertex_buffer),
    (2, encode::set_index_buffer),
    (2, encode::set_dynamic_state),
    (2, encode::debug_group),
    (2, encode::occlusion_query),
    (2, encode::statistics_query),
    (14, encode::draw),
    (10, encode::dispatch),
    (6, encode::copy),
    (3, encode::transition),
    (1, encode::timestamps),
    (2, graph::graph),
    (2, bundles::record_bundle),
    (3, bundles::execute_bundles),
    // Queue.
    (6, queue::submit),
    (1, queue::submit_after),
    (1, queue::drop_command_buffer),
    (4, queue::write_buffer),
    (3, queue::write_run),
    (1, queue::write_run_across_threads),
    (2, threads::destroys_across_threads),
    (2, queue::write_texture),
    (2, queue::read),
    (3, queue::mapping),
    (3, queue::poll_and_wait),
    (1, queue::timeline),
];

/// Chooses an operation by weight.
pub fn choose(r: &mut Rng) -> Op {
    choose_from(OPS, r)
}

/// Chooses an operation of `ops` by weight (`ops` is not empty).
fn choose_from(ops: &[(u32, Op)], r: &mut Rng) -> Op {
    let total: u64 = ops.iter().map(|(w, _)| u64::from(*w)).sum();
    let mut roll = r.below(total);
    for (w, op) in ops {
        let w = u64::from(*w);
        if roll < w {
            return *op;
        }
        roll -= w;
    }
    ops[0].1
}
