//! Reflection: per entry point, what it is and every resource it statically uses.

use naga::{AddressSpace, ImageClass, ImageDimension, ScalarKind, StorageAccess, TypeInner};
use std::fmt::Write as _;
use vigil_hal::{StorageTextureAccess, TextureFormat, TextureViewDimension};

/// Pipeline stage of an entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex.
    Vertex,
    /// Fragment.
    Fragment,
    /// Compute.
    Compute,
    /// Any stage vigil does not run (task, mesh, ray tracing).
    Other,
}

impl Stage {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
            Stage::Other => "other",
        }
    }

    /// The HAL stage flag (empty for `Other`).
    pub fn to_hal(self) -> vigil_hal::ShaderStages {
        match self {
            Stage::Vertex => vigil_hal::ShaderStages::VERTEX,
            Stage::Fragment => vigil_hal::ShaderStages::FRAGMENT,
            Stage::Compute => vigil_hal::ShaderStages::COMPUTE,
            Stage::Other => vigil_hal::ShaderStages::empty(),
        }
    }
}

/// Dimension of a texture binding as declared in WGSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    /// `texture_1d`.
    D1,
    /// `texture_2d`.
    D2,
    /// `texture_2d_array`.
    D2Array,
    /// `texture_3d`.
    D3,
    /// `texture_cube`.
    Cube,
    /// `texture_cube_array`.
    CubeArray,
}

impl TextureDimension {
    /// The view dimension vigil supports for it, if any.
    pub fn to_view_dimension(self) -> Option<TextureViewDimension> {
        match self {
            TextureDimension::D1 => Some(TextureViewDimension::D1),
            TextureDimension::D2 => Some(TextureViewDimension::D2),
            TextureDimension::D2Array => Some(TextureViewDimension::D2Array),
            TextureDimension::D3 => Some(TextureViewDimension::D3),
            TextureDimension::Cube => Some(TextureViewDimension::Cube),
            TextureDimension::CubeArray => Some(TextureViewDimension::CubeArray),
        }
    }

    fn name(self) -> &'static str {
        match self {
            TextureDimension::D1 => "1d",
            TextureDimension::D2 => "2d",
            TextureDimension::D2Array => "2d-array",
            TextureDimension::D3 => "3d",
            TextureDimension::Cube => "cube",
            TextureDimension::CubeArray => "cube-array",
        }
    }
}

/// Sample type of a sampled texture as declared in WGSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// `texture_*<f32>`.
    Float,
    /// `texture_*<i32>`.
    Sint,
    /// `texture_*<u32>`.
    Uint,
    /// `texture_depth_*`.
    Depth,
}

/// What a binding is, as the shader declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// `var<uniform>`.
    UniformBuffer,
    /// `var<storage, read>` or `var<storage, read_write>`.
    StorageBuffer {
        /// Declared `read`.
        read_only: bool,
    },
    /// A sampled texture.
    SampledTexture {
        /// Sample type.
        sample: SampleKind,
        /// Dimension.
        dimension: TextureDimension,
        /// `texture_multisampled_*`.
        multisampled: bool,
    },
    /// A storage texture.
    StorageTexture {
        /// Format, when vigil supports it.
        format: Option<TextureFormat>,
        /// Format name as written.
        format_name: String,
        /// Access.
        access: StorageTextureAccess,
        /// Dimension.
        dimension: TextureDimension,
    },
    /// `sampler` (`comparison: false`) or `sampler_comparison`.
    Sampler {
        /// Whether it is a comparison sampler.
        comparison: bool,
    },
    /// A top-level acceleration structure (`acceleration_structure`; `enable
    /// wgpu_ray_query;`).
    AccelerationStructure,
    /// Anything else (binding arrays of arrays, external textures).
    Unsupported(String),
}

impl BindingKind {
    /// A short human name, matching `vigil_hal::BindingType::describe` where they overlap.
    pub fn describe(&self) -> String {
        match self {
            BindingKind::UniformBuffer => "uniform buffer".into(),
            BindingKind::StorageBuffer { read_only: true } => "read-only storage buffer".into(),
            BindingKind::StorageBuffer { read_only: false } => "read-write storage buffer".into(),
            BindingKind::SampledTexture { .. } => "sampled texture".into(),
            BindingKind::StorageTexture { .. } => "storage texture".into(),
            BindingKind::Sampler { comparison: true } => "comparison sampler".into(),
            BindingKind::Sampler { comparison: false } => "sampler".into(),
            BindingKind::AccelerationStructure => "acceleration structure".into(),
            BindingKind::Unsupported(what) => format!("unsupported binding ({what})"),
        }
    }
}

/// One resource binding an entry point statically uses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BindingReflection {
    /// `@group(n)`.
    pub group: u32,
    /// `@binding(n)`.
    pub binding: u32,
    /// Variable name.
    pub name: String,
    /// What it is.
    pub kind: BindingKind,
    /// Smallest buffer range the shader needs, in bytes (0 for non-buffers). For a
    /// runtime-sized array, the size with one element.
    pub min_binding_size: u64,
    /// Whether its type holds a runtime-sized array.
    pub runtime_array: bool,
    /// Whether the entry point writes through it.
    pub written: bool,
    /// `Some` for a binding array (`binding_array<T, N>` or `binding_array<T>`); `kind`
    /// and `min_binding_size` then describe one element.
    pub array: Option<ArrayCount>,
}

/// The length of a binding array as the shader declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayCount {
    /// `binding_array<T, N>`.
    Fixed(u32),
    /// `binding_array<T>` (or a length given by an override not yet fixed).
    Runtime,
}

/// Scalar kind of a stage input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoScalar {
    /// f32 (or f16).
    Float,
    /// u32.
    Uint,
    /// i32.
    Sint,
    /// bool or anything else.
    Other,
}

/// A user-defined stage input or output (`@location(n)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IoVariable {
    /// Location.
    pub location: u32,
    /// Scalar kind.
    pub scalar: IoScalar,
    /// Components (1 to 4).
    pub components: u32,
    /// The blend source index of a fragment output (`@blend_src(n)`), for dual-source
    /// blending.
    pub blend_src: Option<u32>,
}

/// Everything about one entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointReflection {
    /// Name.
    pub name: String,
    /// Stage.
    pub stage: Stage,
    /// Workgroup size (compute), else `[0, 0, 0]`.
    pub workgroup_size: [u32; 3],
    /// Workgroup memory it uses, in bytes.
    pub workgroup_storage_size: u64,
    /// Bytes of immediate data (`var<immediate>`) it uses; 0 for none.
    pub immediate_size: u32,
    /// Bindings it statically uses, sorted by group then binding.
    pub bindings: Vec<BindingReflection>,
    /// Vertex inputs (vertex stage), sorted by location.
    pub vertex_inputs: Vec<IoVariable>,
    /// Fragment outputs (fragment stage), sorted by location.
    pub fragment_outputs: Vec<IoVariable>,
}

/// A pipeline-overridable constant (`override` in WGSL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideReflection {
    /// Its name in the source.
    pub name: String,
    /// Its numeric id (`@id(n)`), if it has one; a pipeline names it by this id then.
    pub id: Option<u16>,
    /// Its type: `"bool"`, `"i32"`, `"u32"`, `"f32"` or `"f16"`.
    pub ty: &'static str,
    /// Whether it has a default (else a pipeline must give it a value).
    pub has_default: bool,
}

impl OverrideReflection {
    /// The key a pipeline gives its value under: the id as a decimal string if it has one,
    /// else the name (as WebGPU's `constants` record).
    pub fn key(&self) -> String {
        self.id
            .map_or_else(|| self.name.clone(), |id| id.to_string())
    }
}

/// Reflection of a whole module.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Reflection {
    /// Entry points in declaration order.
    pub entry_points: Vec<EntryPointReflection>,
    /// Pipeline-overridable constants, in declaration order. A module with any must be
    /// specialized ([`crate::Module::specialize`]) before it is translated.
    pub overrides: Vec<OverrideReflection>,
}

impl Reflection {
    /// The entry point called `name`.
    pub fn entry_point(&self, name: &str) -> Option<&EntryPointReflection> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// The reflection as a JSON document.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\n  \"entry_points\": [");
        for (i, ep) in self.entry_points.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            let _ = write!(
                out,
                "    {{\n      \"name\": {},\n      \"stage\": \"{}\",\n      \"workgroup_size\": [{}, {}, {}],\n      \"workgroup_storage_size\": {},\n      \"immediate_size\": {},\n      \"bindings\": [",
                json_str(&ep.name),
                ep.stage.name(),
                ep.workgroup_size[0],
                ep.workgroup_size[1],
                ep.workgroup_size[2],
                ep.workgroup_storage_size,
                ep.immediate_size
            );
            for (j, b) in ep.bindings.iter().enumerate() {
                out.push_str(if j == 0 { "\n" } else { ",\n" });
                let _ = write!(
                    out,
                    "        {{ \"group\": {}, \"binding\": {}, \"name\": {}, {}, \"min_binding_size\": {}, \"runtime_array\": {}, \"written\": {}, \"array\": {} }}",
                    b.group,
                    b.binding,
                    json_str(&b.name),
                    kind_json(&b.kind),
                    b.min_binding_size,
                    b.runtime_array,
                    b.written,
                    match b.array {
                        None => "null".to_owned(),
                        Some(ArrayCount::Fixed(n)) => n.to_string(),
                        Some(ArrayCount::Runtime) => "\"runtime\"".to_owned(),
                    }
                );
            }
            out.push_str(if ep.bindings.is_empty() {
                "],\n"
            } else {
                "\n      ],\n"
            });
            let io = |vars: &[IoVariable]| {
                vars.iter()
                    .map(|v| {
                        format!(
                            "{{ \"location\": {}, \"scalar\": \"{}\", \"components\": {}{} }}",
                            v.location,
                            match v.scalar {
                                IoScalar::Float => "float",
                                IoScalar::Uint => "uint",
                                IoScalar::Sint => "sint",
                                IoScalar::Other => "other",
                            },
                            v.components,
                            v.blend_src
                                .map_or_else(String::new, |b| format!(", \"blend_src\": {b}"))
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = write!(
                out,
                "      \"vertex_inputs\": [{}],\n      \"fragment_outputs\": [{}]\n    }}",
                io(&ep.vertex_inputs),
                io(&ep.fragment_outputs)
            );
        }
        out.push_str(if self.entry_points.is_empty() {
            "],\n"
        } else {
            "\n  ],\n"
        });
        let overrides: Vec<String> = self
            .overrides
            .iter()
            .map(|o| {
                format!(
                    "{{ \"name\": {}, \"id\": {}, \"type\": \"{}\", \"has_default\": {} }}",
                    json_str(&o.name),
                    o.id.map_or_else(|| "null".to_owned(), |i| i.to_string()),
                    o.ty,
                    o.has_default
                )
            })
            .collect();
        let _ = write!(out, "  \"overrides\": [{}]\n}}\n", overrides.join(", "));
        out
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn kind_json(kind: &BindingKind) -> String {
    match kind {
        BindingKind::UniformBuffer => "\"kind\": \"uniform-buffer\"".into(),
        BindingKind::StorageBuffer { read_only } => {
            format!("\"kind\": \"storage-buffer\", \"read_only\": {read_only}")
        }
        BindingKind::SampledTexture {
            sample,
            dimension,
            multisampled,
        } => format!(
            "\"kind\": \"sampled-texture\", \"sample_type\": \"{}\", \"dimension\": \"{}\", \"multisampled\": {multisampled}",
            match sample {
                SampleKind::Float => "float",
                SampleKind::Sint => "sint",
                SampleKind::Uint => "uint",
                SampleKind::Depth => "depth",
            },
            dimension.name()
        ),
        BindingKind::StorageTexture {
            format_name,
            access,
            dimension,
            ..
        } => format!(
            "\"kind\": \"storage-texture\", \"format\": {}, \"access\": \"{}\", \"dimension\": \"{}\"",
            json_str(format_name),
            match access {
                StorageTextureAccess::ReadOnly => "read",
                StorageTextureAccess::WriteOnly => "write",
                StorageTextureAccess::ReadWrite => "read_write",
                StorageTextureAccess::Atomic => "atomic",
            },
            dimension.name()
        ),
        BindingKind::Sampler { comparison } => {
            format!("\"kind\": \"sampler\", \"comparison\": {comparison}")
        }
        BindingKind::AccelerationStructure => "\"kind\": \"acceleration-structure\"".into(),
        BindingKind::Unsupported(what) => {
            format!("\"kind\": \"unsupported\", \"what\": {}", json_str(what))
        }
    }
}

/// Whether the type holds a runtime-sized array (directly or as a struct's last member).
pub(crate) fn holds_runtime_array(module: &naga::Module, ty: naga::Handle<naga::Type>) -> bool {
    match &module.types[ty].inner {
        TypeInner::Array {
            size: naga::ArraySize::Dynamic,
            ..
        } => true,
        TypeInner::Struct { members, .. } => members
            .last()
            .is_some_and(|m| holds_runtime_array(module, m.ty)),
        _ => false,
    }
}

fn storage_format(format: naga::StorageFormat) -> (Option<TextureFormat>, String) {
    use naga::StorageFormat as S;
    let ours = match format {
        S::R8Unorm => Some(TextureFormat::R8Unorm),
        S::R8Snorm => Some(TextureFormat::R8Snorm),
        S::R8Uint => Some(TextureFormat::R8Uint),
        S::R8Sint => Some(TextureFormat::R8Sint),
        S::R16Uint => Some(TextureFormat::R16Uint),
        S::R16Sint => Some(TextureFormat::R16Sint),
        S::R16Float => Some(TextureFormat::R16Float),
        S::Rg8Unorm => Some(TextureFormat::Rg8Unorm),
        S::Rg8Snorm => Some(TextureFormat::Rg8Snorm),
        S::Rg8Uint => Some(TextureFormat::Rg8Uint),
        S::Rg8Sint => Some(TextureFormat::Rg8Sint),
        S::R32Uint => Some(TextureFormat::R32Uint),
        S::R32Sint => Some(TextureFormat::R32Sint),
        S::R32Float => Some(TextureFormat::R32Float),
        S::Rg16Uint => Some(TextureFormat::Rg16Uint),
        S::Rg16Sint => Some(TextureFormat::Rg16Sint),
        S::Rg16Float => Some(TextureFormat::Rg16Float),
        S::Rgba8Unorm => Some(TextureFormat::Rgba8Unorm),
        S::Rgba8Snorm => Some(TextureFormat::Rgba8Snorm),
        S::Rgba8Uint => Some(TextureFormat::Rgba8Uint),
        S::Rgba8Sint => Some(TextureFormat::Rgba8Sint),
        S::Bgra8Unorm => Some(TextureFormat::Bgra8Unorm),
        S::Rgb10a2Uint => Some(TextureFormat::Rgb10a2Uint),
        S::Rgb10a2Unorm => Some(TextureFormat::Rgb10a2Unorm),
        S::Rg11b10Ufloat => Some(TextureFormat::Rg11b10Ufloat),
        S::Rg32Uint => Some(TextureFormat::Rg32Uint),
        S::Rg32Sint => Some(TextureFormat::Rg32Sint),
        S::Rg32Float => Some(TextureFormat::Rg32Float),
        S::Rgba16Uint => Some(TextureFormat::Rgba16Uint),
        S::Rgba16Sint => Some(TextureFormat::Rgba16Sint),
        S::Rgba16Float => Some(TextureFormat::Rgba16Float),
        S::Rgba32Uint => Some(TextureFormat::Rgba32Uint),
        S::Rgba32Sint => Some(TextureFormat::Rgba32Sint),
        S::Rgba32Float => Some(TextureFormat::Rgba32Float),
        S::R16Unorm => Some(TextureFormat::R16Unorm),
        S::R16Snorm => Some(TextureFormat::R16Snorm),
        S::Rg16Unorm => Some(TextureFormat::Rg16Unorm),
        S::Rg16Snorm => Some(TextureFormat::Rg16Snorm),
        S::Rgba16Unorm => Some(TextureFormat::Rgba16Unorm),
        S::Rgba16Snorm => Some(TextureFormat::Rgba16Snorm),
        _ => None,
    };
    let name = ours.map_or_else(
        || format!("{format:?}").to_lowercase(),
        |f| f.wgsl_name().to_owned(),
    );
    (ours, name)
}

fn dimension(dim: ImageDimension, arrayed: bool) -> TextureDimension {
    match (dim, arrayed) {
        (ImageDimension::D1, _) => TextureDimension::D1,
        (ImageDimension::D2, false) => TextureDimension::D2,
        (ImageDimension::D2, true) => TextureDimension::D2Array,
        (ImageDimension::D3, _) => TextureDimension::D3,
        (ImageDimension::Cube, false) => TextureDimension::Cube,
        (ImageDimension::Cube, true) => TextureDimension::CubeArray,
    }
}

/// The element type of a binding array (or the type itself) and the array's length.
fn element_of(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
) -> (naga::Handle<naga::Type>, Option<ArrayCount>) {
    match module.types[ty].inner {
        TypeInner::BindingArray { base, size } => (
            base,
            Some(match size {
                naga::ArraySize::Constant(n) => ArrayCount::Fixed(n.get()),
                _ => ArrayCount::Runtime,
            }),
        ),
        _ => (ty, None),
    }
}

fn binding_kind(module: &naga::Module, var: &naga::GlobalVariable) -> BindingKind {
    let (ty, _) = element_of(module, var.ty);
    match var.space {
        AddressSpace::Uniform => return BindingKind::UniformBuffer,
        AddressSpace::Storage { access } => {
            return BindingKind::StorageBuffer {
                read_only: !access.contains(StorageAccess::STORE),
            };
        }
        _ => {}
    }
    match &module.types[ty].inner {
        TypeInner::Image {
            dim,
            arrayed,
            class,
        } => match class {
            ImageClass::Sampled { kind, multi } => BindingKind::SampledTexture {
                sample: match kind {
                    ScalarKind::Sint => SampleKind::Sint,
                    ScalarKind::Uint => SampleKind::Uint,
                    _ => SampleKind::Float,
                },
                dimension: dimension(*dim, *arrayed),
                multisampled: *multi,
            },
            ImageClass::Depth { multi } => BindingKind::SampledTexture {
                sample: SampleKind::Depth,
                dimension: dimension(*dim, *arrayed),
                multisampled: *multi,
            },
            ImageClass::Storage { format, access } => {
                let (format, format_name) = storage_format(*format);
                let access = match (
                    access.contains(StorageAccess::LOAD),
                    access.contains(StorageAccess::STORE),
                ) {
                    _ if access.contains(StorageAccess::ATOMIC) => StorageTextureAccess::Atomic,
                    (true, true) => StorageTextureAccess::ReadWrite,
                    (true, false) => StorageTextureAccess::ReadOnly,
                    _ => StorageTextureAccess::WriteOnly,
                };
                BindingKind::StorageTexture {
                    format,
                    format_name,
                    access,
                    dimension: dimension(*dim, *arrayed),
                }
            }
            ImageClass::External => BindingKind::Unsupported("external texture".into()),
        },
        TypeInner::Sampler { comparison } => BindingKind::Sampler {
            comparison: *comparison,
        },
        TypeInner::BindingArray { .. } => {
            BindingKind::Unsupported("binding array of binding arrays".into())
        }
        TypeInner::AccelerationStructure {
            vertex_return: false,
        } => BindingKind::AccelerationStructure,
        TypeInner::AccelerationStructure {
            vertex_return: true,
        } => BindingKind::Unsupported("acceleration structure with vertex return".into()),
        other => BindingKind::Unsupported(format!("{other:?}")),
    }
}

fn io_of(module: &naga::Module, ty: naga::Handle<naga::Type>) -> (IoScalar, u32) {
    let scalar_kind = |s: naga::Scalar| match s.kind {
        ScalarKind::Float => IoScalar::Float,
        ScalarKind::Uint => IoScalar::Uint,
        ScalarKind::Sint => IoScalar::Sint,
        _ => IoScalar::Other,
    };
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => (scalar_kind(*s), 1),
        TypeInner::Vector { size, scalar } => (scalar_kind(*scalar), *size as u32),
        _ => (IoScalar::Other, 0),
    }
}

fn collect_io(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    binding: Option<&naga::Binding>,
    out: &mut Vec<IoVariable>,
) {
    match binding {
        Some(naga::Binding::Location {
            location,
            blend_src,
            ..
        }) => {
            let (scalar, components) = io_of(module, ty);
            out.push(IoVariable {
                location: *location,
                scalar,
                components,
                blend_src: *blend_src,
            });
        }
        Some(naga::Binding::BuiltIn(_)) => {}
        None => {
            if let TypeInner::Struct { members, .. } = &module.types[ty].inner {
                for m in members {
                    collect_io(module, m.ty, m.binding.as_ref(), out);
                }
            }
        }
    }
}

/// Builds the reflection of a validated module.
pub(crate) fn reflect(module: &naga::Module, info: &naga::valid::ModuleInfo) -> Reflection {
    let gctx = module.to_ctx();
    let entry_points = module
        .entry_points
        .iter()
        .enumerate()
        .map(|(index, ep)| {
            let fun_info = info.get_entry_point(index);
            let mut bindings = Vec::new();
            let mut workgroup_storage_size = 0u64;
            let mut immediate_size = 0u32;
            for (handle, var) in module.global_variables.iter() {
                let usage = fun_info[handle];
                if usage.is_empty() {
                    continue;
                }
                if var.space == AddressSpace::WorkGroup {
                    workgroup_storage_size += u64::from(module.types[var.ty].inner.size(gctx));
                }
                if var.space == AddressSpace::Immediate {
                    immediate_size = immediate_size.max(module.types[var.ty].inner.size(gctx));
                }
                let Some(rb) = &var.binding else { continue };
                let kind = binding_kind(module, var);
                let is_buffer = matches!(
                    kind,
                    BindingKind::UniformBuffer | BindingKind::StorageBuffer { .. }
                );
                let (element, array) = element_of(module, var.ty);
                bindings.push(BindingReflection {
                    group: rb.group,
                    binding: rb.binding,
                    name: var.name.clone().unwrap_or_default(),
                    min_binding_size: if is_buffer {
                        u64::from(module.types[element].inner.size(gctx))
                    } else {
                        0
                    },
                    array,
                    runtime_array: holds_runtime_array(module, element),
                    written: usage.contains(naga::valid::GlobalUse::WRITE),
                    kind,
                });
            }
            bindings.sort_by_key(|b| (b.group, b.binding));
            let stage = match ep.stage {
                naga::ShaderStage::Vertex => Stage::Vertex,
                naga::ShaderStage::Fragment => Stage::Fragment,
                naga::ShaderStage::Compute => Stage::Compute,
                _ => Stage::Other,
            };
            let mut vertex_inputs = Vec::new();
            let mut fragment_outputs = Vec::new();
            if stage == Stage::Vertex {
                for arg in &ep.function.arguments {
                    collect_io(module, arg.ty, arg.binding.as_ref(), &mut vertex_inputs);
                }
                vertex_inputs.sort_by_key(|v| v.location);
            }
            if stage == Stage::Fragment {
                if let Some(result) = &ep.function.result {
                    collect_io(
                        module,
                        result.ty,
                        result.binding.as_ref(),
                        &mut fragment_outputs,
                    );
                }
                fragment_outputs.sort_by_key(|v| (v.location, v.blend_src));
            }
            EntryPointReflection {
                name: ep.name.clone(),
                stage,
                workgroup_size: if stage == Stage::Compute {
                    ep.workgroup_size
                } else {
                    [0; 3]
                },
                workgroup_storage_size,
                immediate_size,
                bindings,
                vertex_inputs,
                fragment_outputs,
            }
        })
        .collect();
    let overrides = module
        .overrides
        .iter()
        .map(|(_, o)| OverrideReflection {
            name: o.name.clone().unwrap_or_default(),
            id: o.id,
            ty: match &module.types[o.ty].inner {
                naga::TypeInner::Scalar(s) => match (s.kind, s.width) {
                    (naga::ScalarKind::Bool, _) => "bool",
                    (naga::ScalarKind::Sint, _) => "i32",
                    (naga::ScalarKind::Uint, _) => "u32",
                    (naga::ScalarKind::Float, 2) => "f16",
                    (naga::ScalarKind::Float, _) => "f32",
                    _ => "other",
                },
                _ => "other",
            },
            has_default: o.init.is_some(),
        })
        .collect();
    Reflection {
        entry_points,
        overrides,
    }
}
