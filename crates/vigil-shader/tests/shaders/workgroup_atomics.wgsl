var<workgroup> tile: array<u32, 256>;
var<workgroup> total: atomic<u32>;
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<atomic<u32>>;

@compute @workgroup_size(256)
fn reduce(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let i = wg.x * 256u + lid;
    tile[lid] = select(0u, input[i], i < arrayLength(&input));
    workgroupBarrier();
    atomicAdd(&total, tile[lid]);
    workgroupBarrier();
    if lid == 0u { atomicAdd(&sums[wg.x % arrayLength(&sums)], atomicLoad(&total)); }
}
