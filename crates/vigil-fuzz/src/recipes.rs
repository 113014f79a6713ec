//! Recipes: a shader with the bind group layouts, vertex buffers and targets it needs.
//!
//! Random descriptors almost never make a pipeline, and without pipelines no draw or
//! dispatch reaches the GPU. So the fuzzer builds most objects from these coherent recipes
//! and then mutates them: the valid path is exercised deeply, the invalid paths at every
//! step of it.

use vigil::{
    BindGroupLayoutEntry, BindingType, BufferBindingType, SamplerBindingType, ShaderStages,
    StorageTextureAccess, TextureFormat, TextureSampleType, TextureViewDimension, VertexAttribute,
    VertexFormat, VertexStepMode,
};

/// What kind of pipeline a recipe makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A compute pipeline, entry point `main`.
    Compute,
    /// A render pipeline, entry points `vs` and (when `fragment`) `fs`.
    Render {
        /// Whether there is a fragment stage.
        fragment: bool,
    },
}

/// One vertex buffer of a render recipe.
#[derive(Clone, Copy, Debug)]
pub struct VertexBuffer {
    /// Bytes per element.
    pub stride: u64,
    /// Per vertex or per instance.
    pub step: VertexStepMode,
    /// Attributes.
    pub attributes: &'static [VertexAttribute],
}

/// A coherent set: shader, layouts, vertex buffers, targets.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    /// Name, for the call log.
    pub name: &'static str,
    /// WGSL source.
    pub wgsl: &'static str,
    /// Pipeline kind.
    pub shape: Shape,
    /// Entries of bind group 0 (recipes use at most one group).
    pub group: fn() -> Vec<BindGroupLayoutEntry>,
    /// Vertex buffers by slot.
    pub vertex_buffers: &'static [VertexBuffer],
    /// Color target formats.
    pub targets: &'static [TextureFormat],
    /// Depth-stencil format, if the pipeline tests depth or stencil.
    pub depth: Option<TextureFormat>,
    /// Whether the recipe is meant for point lists.
    pub points: bool,
    /// Whether the recipe wants a blend state that reads the blend constant.
    pub blend_constant: bool,
}

fn storage(binding: u32, read_only: bool, visibility: ShaderStages) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        array: None,
    }
}

fn uniform(binding: u32, dynamic: bool, visibility: ShaderStages) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        array: None,
    }
}

fn sampled(binding: u32, visibility: ShaderStages) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Float { filterable: true },
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        array: None,
    }
}

fn sampler(binding: u32, visibility: ShaderStages) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Sampler(SamplerBindingType::Filtering),
        array: None,
    }
}

const C: ShaderStages = ShaderStages::COMPUTE;
const V: ShaderStages = ShaderStages::VERTEX;
const F: ShaderStages = ShaderStages::FRAGMENT;

const POS: [VertexAttribute; 1] = [VertexAttribute {
    format: VertexFormat::Float32x2,
    offset: 0,
    shader_location: 0,
}];
const POS_COLOR: [VertexAttribute; 2] = [
    VertexAttribute {
        format: VertexFormat::Float32x2,
        offset: 0,
        shader_location: 0,
    },
    VertexAttribute {
        format: VertexFormat::Float32x4,
        offset: 8,
        shader_location: 1,
    },
];
const INSTANCE_OFFSET: [VertexAttribute; 1] = [VertexAttribute {
    format: VertexFormat::Float32x2,
    offset: 0,
    shader_location: 1,
}];

/// Every recipe.
pub const RECIPES: &[Recipe] = &[
    Recipe {
        name: "copy-kernel",
        wgsl: r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < arrayLength(&dst) && i < arrayLength(&src)) {
        dst[i] = src[i] + 1u;
    }
}
"#,
        shape: Shape::Compute,
        group: || vec![storage(0, true, C), storage(1, false, C)],
        vertex_buffers: &[],
        targets: &[],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "override-kernel",
        wgsl: r#"
override size: u32 = 8;
@id(2) override add: u32;
override twice: bool = false;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(size)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < arrayLength(&dst) && i < arrayLength(&src)) {
        dst[i] = select(src[i] + add, (src[i] + add) * 2u, twice);
    }
}
"#,
        shape: Shape::Compute,
        group: || vec![storage(0, true, C), storage(1, false, C)],
        vertex_buffers: &[],
        targets: &[],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "dynamic-uniform-kernel",
        wgsl: r#"
struct Params { add: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&data)) {
        data[id.x] = data[id.x] + params.add;
    }
}
"#,
        shape: Shape::Compute,
        group: || vec![uniform(0, true, C), storage(1, false, C)],
        vertex_buffers: &[],
        targets: &[],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "storage-texture-kernel",
        wgsl: r#"
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(img);
    if (id.x < size.x && id.y < size.y) {
        textureStore(img, vec2<i32>(id.xy), vec4<f32>(0.5, 0.25, 1.0, 1.0));
    }
}
"#,
        shape: Shape::Compute,
        group: || {
            vec![BindGroupLayoutEntry {
                binding: 0,
                visibility: C,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }]
        },
        vertex_buffers: &[],
        targets: &[],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "sampling-kernel",
        wgsl: r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&out)) {
        out[id.x] = textureSampleLevel(tex, smp, vec2<f32>(f32(id.x) * 0.1, 0.5), 0.0);
    }
}
"#,
        shape: Shape::Compute,
        group: || vec![sampled(0, C), sampler(1, C), storage(2, false, C)],
        vertex_buffers: &[],
        targets: &[],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "pos-color",
        wgsl: r#"
struct Tint { value: vec4<f32> }
@group(0) @binding(0) var<uniform> tint: Tint;
struct In { @location(0) pos: vec2<f32>, @location(1) color: vec4<f32> }
struct Out { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(v: In) -> Out { return Out(vec4<f32>(v.pos, 0.0, 1.0), v.color * tint.value); }
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return i.color; }
"#,
        shape: Shape::Render { fragment: true },
        group: || vec![uniform(0, false, V | F)],
        vertex_buffers: &[VertexBuffer {
            stride: 24,
            step: VertexStepMode::Vertex,
            attributes: &POS_COLOR,
        }],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "instanced",
        wgsl: r#"
struct Out { @builtin(position) pos: vec4<f32> }
@vertex fn vs(@location(0) pos: vec2<f32>, @location(1) offset: vec2<f32>) -> Out {
    return Out(vec4<f32>(pos + offset, 0.5, 1.0));
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.5, 0.25, 1.0); }
"#,
        shape: Shape::Render { fragment: true },
        group: Vec::new,
        vertex_buffers: &[
            VertexBuffer {
                stride: 8,
                step: VertexStepMode::Vertex,
                attributes: &POS,
            },
            VertexBuffer {
                stride: 8,
                step: VertexStepMode::Instance,
                attributes: &INSTANCE_OFFSET,
            },
        ],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: Some(TextureFormat::Depth32Float),
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "two-targets",
        wgsl: r#"
struct Out { @builtin(position) pos: vec4<f32> }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return Out(vec4<f32>(x, y, 0.0, 1.0));
}
struct Targets { @location(0) a: vec4<f32>, @location(1) b: vec4<f32> }
@fragment fn fs() -> Targets { return Targets(vec4<f32>(0.25), vec4<f32>(0.75)); }
"#,
        shape: Shape::Render { fragment: true },
        group: Vec::new,
        vertex_buffers: &[],
        targets: &[TextureFormat::Rgba8Unorm, TextureFormat::Rgba8Unorm],
        depth: None,
        points: false,
        blend_constant: true,
    },
    Recipe {
        name: "stencil-only",
        wgsl: r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.25, 1.0);
}
"#,
        shape: Shape::Render { fragment: false },
        group: Vec::new,
        vertex_buffers: &[],
        targets: &[],
        depth: Some(TextureFormat::Depth24PlusStencil8),
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "textured",
        wgsl: r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let uv = vec2<f32>(f32(i & 1u) * 2.0, f32(i >> 1u) * 2.0);
    return Out(vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0), uv);
}
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return textureSample(tex, smp, i.uv); }
"#,
        shape: Shape::Render { fragment: true },
        group: || vec![sampled(0, F), sampler(1, F)],
        vertex_buffers: &[],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "points",
        wgsl: r#"
@vertex fn vs(@location(0) pos: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(pos, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
"#,
        shape: Shape::Render { fragment: true },
        group: Vec::new,
        vertex_buffers: &[VertexBuffer {
            stride: 8,
            step: VertexStepMode::Vertex,
            attributes: &POS,
        }],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: None,
        points: true,
        blend_constant: false,
    },
    Recipe {
        name: "fragment-storage",
        wgsl: r#"
@group(0) @binding(0) var<storage, read_write> hits: array<atomic<u32>>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    if (arrayLength(&hits) > 0u) {
        atomicAdd(&hits[0], 1u);
    }
    return vec4<f32>(p.x / 64.0, 0.0, 0.0, 1.0);
}
"#,
        shape: Shape::Render { fragment: true },
        group: || vec![storage(0, false, F)],
        vertex_buffers: &[],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: None,
        points: false,
        blend_constant: false,
    },
    Recipe {
        name: "fragment-storage-texture",
        wgsl: r#"
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = textureDimensions(img);
    let at = vec2<u32>(p.xy);
    if (at.x < size.x && at.y < size.y) {
        textureStore(img, vec2<i32>(at), vec4<f32>(0.25, 0.5, 0.75, 1.0));
    }
    return vec4<f32>(1.0);
}
"#,
        shape: Shape::Render { fragment: true },
        group: || {
            vec![BindGroupLayoutEntry {
                binding: 0,
                visibility: F,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                array: None,
            }]
        },
        vertex_buffers: &[],
        targets: &[TextureFormat::Rgba8Unorm],
        depth: None,
        points: false,
        blend_constant: false,
    },
];

/// A shader that does not compile, for the malformed-input path.
pub const BROKEN_WGSL: &[&str] = &[
    "@compute @workgroup_size(1) fn main( {",
    "fn f() -> u32 { return 1.0; }",
    "@group(0) @binding(0) var<storage, read_write> x: u32;\n@compute @workgroup_size(0) fn main() { x = 1u; }",
    "",
    "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(); } @vertex fn vs() {}",
];
