//! Three of wgpu's own examples (`hello_triangle`, `cube`, `boids` in wgpu's repository),
//! ported as a wgpu user would write them in vigil: the same shaders, buffers, layouts and
//! passes, each rendering offscreen so a test can check its image. What changed from the
//! wgpu version is said in each module's documentation; `docs/porting-from-wgpu.md` has
//! the full table.

pub mod boids;
pub mod cube;
pub mod hello_triangle;
