//! The GPU-pointer tier's shader language: GLSL 4.60 with `GL_EXT_buffer_reference`
//! (pointers to `buffer_reference` blocks), compiled by `glslc` (shaderc) to SPIR-V,
//! checked by `spirv-val`, and translated to MSL by `spirv-cross`.
//!
//! WGSL has no pointers into device memory; GLSL's buffer references are the smallest step
//! from it that has them, and both tools are Debian packages of a few megabytes (see
//! `docs/gpu-pointers.md` for the choice against Slang). The tools run as processes: a
//! module is compiled once, at pipeline creation.
//!
//! Every module gets [`PRELUDE`] in front of it: the version, the extensions, and the root
//! block — one 64-bit pointer in push constants (Vulkan) that spirv-cross places at
//! `[[buffer(0)]]` (Metal). The source declares its root type with `VIGIL_ROOT(Type)`.

use crate::Diagnostic;
use crate::caps::{declared_capabilities, spirv_capabilities, spirv_capability_feature};
use crate::reflect::{EntryPointReflection, IoScalar, IoVariable, Stage};
use naga::back::spv::Capability as Spv;
use std::io::Write;
use std::process::{Command, Stdio};
use vigil_hal::Features;

/// What every pointer-tier module starts with. `VIGIL_ROOT(T)` declares the push-constant
/// root: `vigil.root` is a `T` reference (declare `T` as a `buffer_reference` block first).
/// `VIGIL_TEXTURE_HEAP;` and `VIGIL_SAMPLER_HEAP;` declare the heaps (arrays of
/// [`vigil_hal::TEXTURE_HEAP_SLOTS`] `texture2D` and [`vigil_hal::SAMPLER_HEAP_SLOTS`]
/// `sampler`), read as `texture(sampler2D(vigil_texture(i), vigil_sampler(j)), uv)`. The
/// macros clamp indices to the arrays, and every element of a heap's native set is
/// written, so no index reads outside it (past the heap's slots: the placeholder).
pub const PRELUDE: &str = "#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_scalar_block_layout : require
#define VIGIL_ROOT(T) layout(push_constant) uniform VigilRoot { T root; } vigil
#define VIGIL_IS_NULL(p) (uvec2(p) == uvec2(0u))
#extension GL_EXT_nonuniform_qualifier : enable
#define VIGIL_TEXTURE_HEAP layout(set = 1, binding = 0) uniform texture2D vigil_textures[65536]
#define VIGIL_SAMPLER_HEAP layout(set = 2, binding = 0) uniform sampler vigil_samplers[4096]
#define vigil_texture(i) vigil_textures[nonuniformEXT(min(uint(i), 65535u))]
#define vigil_sampler(i) vigil_samplers[nonuniformEXT(min(uint(i), 4095u))]
#line 1
";

/// Which heaps a module indexes: bit 0 the texture heap (`VIGIL_TEXTURE_HEAP`: set 1,
/// binding 0), bit 1 the sampler heap (`VIGIL_SAMPLER_HEAP`: set 2, binding 0). Tier
/// modules reach no other descriptor: any other set or binding is refused.
pub fn heap_use(file: &str, words: &[u32]) -> Result<u8, Diagnostic> {
    const OP_DECORATE: u32 = 71;
    const BINDING: u32 = 33;
    const DESCRIPTOR_SET: u32 = 34;
    let mut sets: Vec<(u32, u32)> = Vec::new();
    let mut bindings: Vec<(u32, u32)> = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let count = (first >> 16) as usize;
        if count == 0 {
            break;
        }
        if first & 0xffff == OP_DECORATE && count >= 4 {
            if let (Some(&target), Some(&decoration), Some(&value)) =
                (words.get(at + 1), words.get(at + 2), words.get(at + 3))
            {
                match decoration {
                    DESCRIPTOR_SET => sets.push((target, value)),
                    BINDING => bindings.push((target, value)),
                    _ => {}
                }
            }
        }
        at = at.saturating_add(count);
    }
    let mut out = 0u8;
    for (target, set) in sets {
        let binding = bindings
            .iter()
            .find(|(t, _)| *t == target)
            .map_or(0, |(_, b)| *b);
        match (set, binding) {
            (1, 0) => out |= 1,
            (2, 0) => out |= 2,
            _ => {
                return Err(Diagnostic::new(
                    file,
                    format!(
                        "the module declares a resource at set {set}, binding {binding}; tier shaders reach textures and samplers through the heaps only (VIGIL_TEXTURE_HEAP, VIGIL_SAMPLER_HEAP) and memory through pointers"
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// Bytes of the root: one device address.
pub const ROOT_SIZE: u32 = 8;

/// Runs `program` with `args`, `input` on stdin; its stdout, or its stderr as the error.
fn run(program: &str, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("`{program}` could not run ({e}); `cargo xtask setup` installs it (Debian package glslc, spirv-tools or spirv-cross)")
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input)
            .map_err(|e| format!("writing to `{program}`: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for `{program}`: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

/// Compiles a compute module of the pointer tier: [`PRELUDE`] then `source`, to SPIR-V
/// (1.5, as for Vulkan 1.2) that `spirv-val` accepts for Vulkan 1.3 and that declares only capabilities a device
/// with `features` enabled allows (pointers themselves need `BUFFER_DEVICE_ADDRESS`, which
/// the tier requires; 64-bit integers `SHADER_INT64`). Diagnostics keep glslc's words, with
/// line numbers of `source`.
pub fn compile_compute(
    file: &str,
    source: &str,
    features: Features,
) -> Result<Vec<u32>, Diagnostic> {
    compile(file, source, Stage::Compute, features)
}

/// As [`compile_compute`], for a vertex, fragment or compute module (entry point `main`).
pub fn compile(
    file: &str,
    source: &str,
    stage: Stage,
    features: Features,
) -> Result<Vec<u32>, Diagnostic> {
    let stage_flag = match stage {
        Stage::Vertex => "-fshader-stage=vertex",
        Stage::Fragment => "-fshader-stage=fragment",
        Stage::Compute => "-fshader-stage=compute",
        Stage::Other => {
            return Err(Diagnostic::new(
                file,
                "the pointer tier compiles vertex, fragment and compute modules (task and mesh ones with compile_mesh)",
            ));
        }
    };
    compile_as(file, &format!("{PRELUDE}{source}"), stage_flag, features)
}

/// As [`compile`], for a task (`task: true`) or mesh module: `GL_EXT_mesh_shader` is
/// enabled after the prelude, and the module's `MeshShadingEXT` capability needs the
/// `MESH_SHADER` feature.
pub fn compile_mesh(
    file: &str,
    source: &str,
    task: bool,
    features: Features,
) -> Result<Vec<u32>, Diagnostic> {
    let flag = if task {
        "-fshader-stage=task"
    } else {
        "-fshader-stage=mesh"
    };
    let prelude = PRELUDE.replacen(
        "#line 1",
        "#extension GL_EXT_mesh_shader : require\n#line 1",
        1,
    );
    compile_as(file, &format!("{prelude}{source}"), flag, features)
}

/// Compiles prelude-and-source `text` for the stage glslc's `stage_flag` names, and checks
/// it (see [`compile`]).
fn compile_as(
    file: &str,
    text: &str,
    stage_flag: &str,
    features: Features,
) -> Result<Vec<u32>, Diagnostic> {
    let bytes = run(
        "glslc",
        &[
            // Vulkan 1.2's SPIR-V (1.5): for 1.3 glslc declares the workgroup size with
            // `LocalSizeId`, which needs `maintenance4` (VUID-RuntimeSpirv-LocalSizeId-06434,
            // found by the validation layer); vigil does not enable it.
            "--target-env=vulkan1.2",
            stage_flag,
            "-std=460",
            "-",
            "-o",
            "-",
        ],
        text.as_bytes(),
    )
    .map_err(|e| {
        Diagnostic::new(
            file,
            format!("GLSL did not compile: {}", e.replace("<stdin>", file)),
        )
    })?;
    if bytes.len() % 4 != 0 || bytes.is_empty() {
        return Err(Diagnostic::new(file, "glslc produced no SPIR-V"));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    run("spirv-val", &["--target-env", "vulkan1.3", "-"], &bytes).map_err(|e| {
        Diagnostic::new(
            file,
            format!("the SPIR-V glslc produced is not valid for Vulkan 1.3: {e}"),
        )
    })?;
    if heap_use(file, &words)? != 0 && !features.contains(Features::DESCRIPTOR_HEAPS) {
        let mut d = Diagnostic::new(
            file,
            "the module indexes a texture or sampler heap, which needs the DESCRIPTOR_HEAPS feature; enable it when opening the device",
        );
        d.features_needed = Features::DESCRIPTOR_HEAPS;
        return Err(d);
    }
    let mut allowed: Vec<u32> = spirv_capabilities(features)
        .into_iter()
        .map(|c| c as u32)
        .collect();
    allowed.push(Spv::PhysicalStorageBufferAddresses as u32);
    if features.contains(Features::SHADER_INT64) {
        allowed.push(Spv::Int64 as u32);
    }
    if features.contains(Features::MESH_SHADER) {
        allowed.push(MESH_SHADING_EXT);
    }
    if features.contains(Features::DESCRIPTOR_HEAPS) {
        // `vigil_texture(i)` / `vigil_sampler(i)` index the heaps non-uniformly.
        allowed.push(Spv::ShaderNonUniform as u32);
        allowed.push(Spv::SampledImageArrayNonUniformIndexing as u32);
    }
    if has_execution_mode_id(&words) {
        return Err(Diagnostic::new(
            file,
            "the module declares an execution mode by id (LocalSizeId: a workgroup size from specialization constants), which needs maintenance4; give the size as numbers",
        ));
    }
    for cap in declared_capabilities(&words) {
        if allowed.contains(&cap) {
            continue;
        }
        let mut d = Diagnostic::new(
            file,
            format!("the module needs SPIR-V capability {cap}, which the device does not enable"),
        );
        let feature = if cap == Spv::Int64 as u32 {
            Some(Features::SHADER_INT64)
        } else if cap == MESH_SHADING_EXT {
            Some(Features::MESH_SHADER)
        } else {
            spirv_capability_feature_of(cap)
        };
        if let Some(f) = feature {
            d.message = format!(
                "the module needs the {} feature (SPIR-V capability {cap})",
                f.names().join(" | ")
            );
            d.features_needed = f;
        }
        return Err(d);
    }
    Ok(words)
}

/// SPIR-V's `MeshShadingEXT` capability (task and mesh shaders).
const MESH_SHADING_EXT: u32 = 5283;

/// Whether a module has `OpExecutionModeId` (opcode 331).
fn has_execution_mode_id(words: &[u32]) -> bool {
    const OP_EXECUTION_MODE_ID: u32 = 331;
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let count = (first >> 16) as usize;
        if count == 0 {
            return false;
        }
        if first & 0xffff == OP_EXECUTION_MODE_ID {
            return true;
        }
        at = at.saturating_add(count);
    }
    false
}

/// The device feature that allows SPIR-V capability number `cap`, if one does.
fn spirv_capability_feature_of(cap: u32) -> Option<Features> {
    SPIRV_KNOWN
        .iter()
        .find(|c| **c as u32 == cap)
        .and_then(|c| spirv_capability_feature(*c))
}

/// Capabilities a feature may grant (for naming it in a refusal).
const SPIRV_KNOWN: &[Spv] = &[
    Spv::Float16,
    Spv::Float64,
    Spv::Int64,
    Spv::Int64Atomics,
    Spv::ClipDistance,
    Spv::Geometry,
    Spv::SampleRateShading,
    Spv::DrawParameters,
    Spv::MultiView,
    Spv::ShaderNonUniform,
    Spv::GroupNonUniform,
    Spv::RayQueryKHR,
];

/// MSL 2.4 for a pointer-tier module, in the tier's Metal layout: the root at
/// `[[buffer(0)]]`, the texture heap's argument buffer at `[[buffer(1)]]` and the sampler
/// heap's at `[[buffer(2)]]`.
pub fn to_msl(file: &str, words: &[u32]) -> Result<String, Diagnostic> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let heaps = heap_use(file, words)?;
    // With heaps, each descriptor set becomes an argument buffer at `[[buffer(set)]]`:
    // the texture heap at 1, the sampler heap at 2; the root is moved to 0 below.
    let args: &[&str] = if heaps == 0 {
        &["--msl", "--msl-version", "20400", "-"]
    } else {
        &[
            "--msl",
            "--msl-version",
            "20400",
            "--msl-argument-buffers",
            "-",
        ]
    };
    let out = run("spirv-cross", args, &bytes).map_err(|e| {
        Diagnostic::new(
            file,
            format!("spirv-cross could not translate it to MSL: {e}"),
        )
    })?;
    let msl = String::from_utf8(out)
        .map_err(|_| Diagnostic::new(file, "spirv-cross wrote MSL that is not UTF-8"))?;
    if heaps == 0 {
        return Ok(msl);
    }
    root_at_buffer_zero(file, &msl)
}

/// spirv-cross numbers the push-constant root after the argument buffers; the tier's ABI
/// has it at `[[buffer(0)]]`, which argument buffers of sets 1 and 2 leave free.
fn root_at_buffer_zero(file: &str, msl: &str) -> Result<String, Diagnostic> {
    const ROOT: &str = "VigilRoot& vigil [[buffer(";
    let stray = || {
        Diagnostic::new(
            file,
            "spirv-cross placed the root or buffer 0 where the tier's MSL layout does not expect it",
        )
    };
    if msl.contains("[[buffer(0)]]") {
        return Err(stray());
    }
    let mut out = String::with_capacity(msl.len());
    let mut rest = msl;
    let mut found = false;
    while let Some(at) = rest.find(ROOT) {
        let (head, tail) = rest.split_at(at.saturating_add(ROOT.len()));
        let close = tail.find(")]]").ok_or_else(stray)?;
        let index = tail.get(..close).ok_or_else(stray)?;
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return Err(stray());
        }
        out.push_str(head);
        out.push('0');
        rest = tail.get(close..).ok_or_else(stray)?;
        found = true;
    }
    out.push_str(rest);
    if found { Ok(out) } else { Ok(msl.to_owned()) }
}

/// What pipeline checks need of a pointer-tier module: its stage inputs and outputs with a
/// `Location` (the vertex inputs vertex buffers would feed, the fragment outputs targets
/// take), read from the SPIR-V; entry point `main`, the root as its immediate data.
pub fn reflect(
    file: &str,
    words: &[u32],
    stage: Stage,
) -> Result<EntryPointReflection, Diagnostic> {
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    const OP_TYPE_VECTOR: u32 = 23;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_VARIABLE: u32 = 59;
    const OP_DECORATE: u32 = 71;
    const LOCATION: u32 = 30;
    const INPUT: u32 = 1;
    const OUTPUT: u32 = 3;
    let mut locations: Vec<(u32, u32)> = Vec::new();
    let mut scalars: Vec<(u32, IoScalar)> = Vec::new();
    let mut vectors: Vec<(u32, u32, u32)> = Vec::new();
    let mut pointers: Vec<(u32, u32)> = Vec::new();
    let mut variables: Vec<(u32, u32, u32)> = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let count = (first >> 16) as usize;
        if count == 0 {
            break;
        }
        let op = words.get(at..at.saturating_add(count)).unwrap_or(&[]);
        let w = |i: usize| op.get(i).copied().unwrap_or(0);
        match first & 0xffff {
            OP_DECORATE if w(2) == LOCATION => locations.push((w(1), w(3))),
            OP_TYPE_INT => scalars.push((
                w(1),
                if w(3) == 1 {
                    IoScalar::Sint
                } else {
                    IoScalar::Uint
                },
            )),
            OP_TYPE_FLOAT => scalars.push((w(1), IoScalar::Float)),
            OP_TYPE_VECTOR => vectors.push((w(1), w(2), w(3))),
            OP_TYPE_POINTER => pointers.push((w(1), w(3))),
            OP_VARIABLE => variables.push((w(1), w(2), w(3))),
            _ => {}
        }
        at = at.saturating_add(count);
    }
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for &(ty, id, class) in &variables {
        if class != INPUT && class != OUTPUT {
            continue;
        }
        let Some(&(_, location)) = locations.iter().find(|(v, _)| *v == id) else {
            continue;
        };
        let pointee = pointers.iter().find(|(p, _)| *p == ty).map(|(_, t)| *t);
        let vector = pointee.and_then(|t| vectors.iter().find(|(v, _, _)| *v == t));
        let (scalar_ty, components) = match vector {
            Some(&(_, component, n)) => (Some(component), n),
            None => (pointee, 1),
        };
        let scalar = scalar_ty
            .and_then(|t| scalars.iter().find(|(s, _)| *s == t))
            .map(|(_, k)| *k);
        let Some(scalar) = scalar else {
            return Err(Diagnostic::new(
                file,
                format!(
                    "the stage {} at location {location} is not a scalar or vector of numbers",
                    if class == INPUT { "input" } else { "output" }
                ),
            ));
        };
        let io = IoVariable {
            location,
            scalar,
            components,
            blend_src: None,
        };
        if class == INPUT {
            inputs.push(io);
        } else {
            outputs.push(io);
        }
    }
    inputs.sort_by_key(|i| i.location);
    outputs.sort_by_key(|o| o.location);
    Ok(EntryPointReflection {
        name: "main".into(),
        stage,
        workgroup_size: [0; 3],
        workgroup_storage_size: 0,
        immediate_size: ROOT_SIZE,
        bindings: Vec::new(),
        vertex_inputs: if stage == Stage::Vertex {
            inputs
        } else {
            Vec::new()
        },
        fragment_outputs: if stage == Stage::Fragment {
            outputs
        } else {
            Vec::new()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prelude_declares_the_heaps_with_the_slot_counts_of_the_hal() {
        let textures = format!(
            "texture2D vigil_textures[{}]",
            vigil_hal::TEXTURE_HEAP_SLOTS
        );
        let samplers = format!("sampler vigil_samplers[{}]", vigil_hal::SAMPLER_HEAP_SLOTS);
        assert!(PRELUDE.contains(&textures), "{PRELUDE}");
        assert!(PRELUDE.contains(&samplers), "{PRELUDE}");
        let clamp = |n: u32| format!("min(uint(i), {}u)", n - 1);
        assert!(PRELUDE.contains(&clamp(vigil_hal::TEXTURE_HEAP_SLOTS)));
        assert!(PRELUDE.contains(&clamp(vigil_hal::SAMPLER_HEAP_SLOTS)));
    }

    #[test]
    fn the_root_moves_to_buffer_zero_and_nothing_else_changes() {
        let msl = "fragment main0_out main0(constant spvDescriptorSetBuffer1& spvDescriptorSet1 [[buffer(1)]], constant VigilRoot& vigil [[buffer(3)]])";
        let out = root_at_buffer_zero("t", msl).unwrap_or_default();
        assert_eq!(
            out,
            "fragment main0_out main0(constant spvDescriptorSetBuffer1& spvDescriptorSet1 [[buffer(1)]], constant VigilRoot& vigil [[buffer(0)]])"
        );
        assert!(
            root_at_buffer_zero("t", "x [[buffer(0)]] VigilRoot& vigil [[buffer(3)]]").is_err()
        );
    }
}
