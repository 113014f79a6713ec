//! Traces a floor and three cubes with WGSL ray queries (shadows included) and writes
//! `target/vigil-examples/ray_query.png`. Needs an adapter with `RAY_QUERY` (lavapipe has
//! it); elsewhere it says which feature is missing and exits with a failure.

fn main() -> std::process::ExitCode {
    vigil_examples::run_example_with("ray_query", vigil::Features::RAY_QUERY, |d| {
        vigil_examples::ray_query::render(d, [320, 240])
    })
}
