//! `vigil-shader`: the one place that knows shaders.
//!
//! It owns reading WGSL (parsed and validated by naga, errors reported as compiler-style
//! [`Diagnostic`]s), [reflection](reflect) of what each entry point uses, and translation:
//! SPIR-V for Vulkan ([`Module::to_spirv`]) and MSL for Metal with the binding maps that
//! backend needs ([`msl`]).
//!
//! It knows nothing about devices: the types it reports are `vigil-hal`'s plain types,
//! and checking a pipeline against its layout is the device's job. All front-end work runs
//! guarded (a large stack, panics caught), so malformed input yields a diagnostic, never a
//! crash.

mod caps;
mod diagnostic;
pub mod glsl;
mod guard;
mod module;
pub mod msl;
pub mod reflect;
mod spirv;
mod spirv_fix;

pub use diagnostic::{Diagnostic, SourceSpan};
pub use module::{Module, OverrideError, OverrideProblem};
pub use reflect::{
    ArrayCount, BindingKind, BindingReflection, EntryPointReflection, IoScalar, IoVariable,
    OverrideReflection, Reflection, SampleKind, Stage, TextureDimension,
};
pub use spirv::{SpirvOptions, clamping_bounds_checks, safe_bounds_checks};
/// Device features, which decide the shader capabilities a module may use.
pub use vigil_hal::Features;
