//! Plain binding types: shader stages, binding kinds and bind group layout entries.

use crate::texture::{TextureFormat, TextureSampleType, TextureViewDimension};
use bitflags::bitflags;
use std::num::{NonZeroU32, NonZeroU64};

bitflags! {
    /// Shader stages that may see a binding.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct ShaderStages: u32 {
        /// Vertex stage.
        const VERTEX = 1 << 0;
        /// Fragment stage.
        const FRAGMENT = 1 << 1;
        /// Compute stage.
        const COMPUTE = 1 << 2;
        /// Task and mesh stages (devices with `MESH_SHADER`).
        const MESH = 1 << 3;
        /// Vertex and fragment stages.
        const VERTEX_FRAGMENT = Self::VERTEX.bits() | Self::FRAGMENT.bits();
    }
}

/// Kind of buffer binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferBindingType {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>` (`read_only: true`) or `var<storage, read_write>`.
    Storage {
        /// Whether the shader only reads it.
        read_only: bool,
    },
}

/// Kind of sampler binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerBindingType {
    /// A sampler that may filter (linear min/mag/mipmap).
    Filtering,
    /// A sampler that only takes the nearest texel.
    NonFiltering,
    /// A depth-comparison sampler (`sampler_comparison`).
    Comparison,
}

/// Access of a storage texture binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageTextureAccess {
    /// `texture_storage_*<F, read>`.
    ReadOnly,
    /// `texture_storage_*<F, write>`.
    WriteOnly,
    /// `texture_storage_*<F, read_write>`.
    ReadWrite,
    /// `texture_storage_*<F, atomic>`: read, written and changed by `textureAtomic*`
    /// (`r32uint` and `r32sint`, with `TEXTURE_ATOMIC`; wgpu's `Atomic`).
    Atomic,
}

/// What one binding of a bind group layout holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingType {
    /// A buffer range.
    Buffer {
        /// Uniform or storage, and storage access.
        ty: BufferBindingType,
        /// Whether the offset is given at bind time (`set_bind_group`'s dynamic offsets).
        has_dynamic_offset: bool,
        /// Smallest range a bind group may bind here; `None` defers the check to each
        /// dispatch or draw, against what the pipeline's shader needs.
        min_binding_size: Option<NonZeroU64>,
    },
    /// A sampler.
    Sampler(SamplerBindingType),
    /// A sampled texture view.
    Texture {
        /// What the shader reads from it.
        sample_type: TextureSampleType,
        /// The view's dimension.
        view_dimension: TextureViewDimension,
        /// Whether the view is multisampled.
        multisampled: bool,
    },
    /// A storage texture view.
    StorageTexture {
        /// Read, write or both.
        access: StorageTextureAccess,
        /// The view's format.
        format: TextureFormat,
        /// The view's dimension.
        view_dimension: TextureViewDimension,
    },
    /// A top-level acceleration structure (WGSL `acceleration_structure`; needs
    /// `RAY_QUERY`).
    AccelerationStructure,
}

impl BindingType {
    /// Whether a shader may write through this binding.
    pub fn is_writable(&self) -> bool {
        match self {
            BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only },
                ..
            } => !read_only,
            BindingType::StorageTexture { access, .. } => *access != StorageTextureAccess::ReadOnly,
            _ => false,
        }
    }

    /// A short human name of the kind, for error messages.
    pub fn describe(&self) -> &'static str {
        match self {
            BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                ..
            } => "uniform buffer",
            BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only: true },
                ..
            } => "read-only storage buffer",
            BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only: false },
                ..
            } => "read-write storage buffer",
            BindingType::Sampler(SamplerBindingType::Comparison) => "comparison sampler",
            BindingType::Sampler(_) => "sampler",
            BindingType::Texture { .. } => "sampled texture",
            BindingType::StorageTexture { .. } => "storage texture",
            BindingType::AccelerationStructure => "acceleration structure",
        }
    }
}

bitflags! {
    /// How the elements of a binding array may be bound and written. Each flag needs its
    /// device feature enabled (for update-after-bind, the one for the binding's kind).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct BindingArrayFlags: u32 {
        /// Elements may be left empty; a shader must not read an empty one
        /// (`PARTIALLY_BOUND_BINDING_ARRAY`).
        const PARTIALLY_BOUND = 1 << 0;
        /// The binding is created update-after-bind (one of the `UPDATE_AFTER_BIND_*`
        /// features for its kind; no binding of the layout may then have dynamic offsets).
        /// vigil still writes a group only while nothing holds it (see
        /// `Device::write_bind_group`).
        const UPDATE_AFTER_BIND = 1 << 1;
        /// The last binding of the layout whose length each bind group chooses, up to the
        /// count (`VARIABLE_COUNT_BINDING_ARRAY`).
        const VARIABLE_COUNT = 1 << 2;
    }
}

/// Slots of every texture heap's binding (`Features::DESCRIPTOR_HEAPS`): what tier shaders
/// declare (set 1, binding 0, `texture2D[TEXTURE_HEAP_SLOTS]`); each heap has up to this
/// many.
pub const TEXTURE_HEAP_SLOTS: u32 = 65_536;

/// Slots of every sampler heap's binding (set 2, binding 0, `sampler[SAMPLER_HEAP_SLOTS]`).
pub const SAMPLER_HEAP_SLOTS: u32 = 4_096;

/// A binding that holds an array of resources (`binding_array<T, N>` in WGSL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BindingArray {
    /// Number of elements; with [`BindingArrayFlags::VARIABLE_COUNT`], the most a bind
    /// group may have.
    pub count: NonZeroU32,
    /// How the elements may be bound.
    pub flags: BindingArrayFlags,
}

impl BindingArray {
    /// An array of `count` elements, every one bound (`count` 0 is taken as 1).
    pub fn of(count: u32) -> Option<BindingArray> {
        Some(BindingArray {
            count: NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN),
            flags: BindingArrayFlags::empty(),
        })
    }
}

/// One binding of a bind group layout.
///
/// Differs from wgpu's: `array` instead of `count`, carrying the binding's array flags
/// (wgpu sets partially-bound itself whenever its feature is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BindGroupLayoutEntry {
    /// Binding number, as in `@binding(n)`.
    pub binding: u32,
    /// Stages that may use it.
    pub visibility: ShaderStages,
    /// What it holds.
    pub ty: BindingType,
    /// `Some` for a binding array; `None` for a single resource.
    pub array: Option<BindingArray>,
}

impl BindGroupLayoutEntry {
    /// Elements the binding holds at most (1 unless it is an array).
    pub fn count(&self) -> u32 {
        self.array.map_or(1, |a| a.count.get())
    }

    /// The binding's array flags (empty unless it is an array).
    pub fn array_flags(&self) -> BindingArrayFlags {
        self.array.map_or(BindingArrayFlags::empty(), |a| a.flags)
    }
}

/// What the backend needs to create a bind group layout. Entries are sorted by binding.
#[derive(Clone, Debug)]
pub struct BindGroupLayoutDescriptor<'a> {
    /// Debug name given to the native object.
    pub label: &'a str,
    /// Bindings, sorted by binding number, no duplicates.
    pub entries: &'a [BindGroupLayoutEntry],
}
