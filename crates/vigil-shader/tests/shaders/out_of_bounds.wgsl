// Indexes past the end of its bindings on purpose: the generated code must keep every
// access inside the bound ranges.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> fixed: array<u32, 16>;
@group(0) @binding(2) var<storage, read_write> readback: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    data[i] = 0xdeadbeefu;
    fixed[i] = 0xfeedfaceu;
    readback[i % arrayLength(&readback)] = data[i + 100000u] + fixed[i + 64u];
}
