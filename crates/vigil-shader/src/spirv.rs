//! SPIR-V out, with bounds checks chosen so that no index in a shader can reach memory
//! outside what is bound to it.

use crate::caps::{declared_capabilities, spirv_capabilities, spirv_capability_feature};
use crate::guard::guarded;
use crate::{Diagnostic, Module};
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};

/// How to emit SPIR-V.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpirvOptions {
    /// SPIR-V version `(major, minor)`; 1.3 is what Vulkan 1.1 and later accept.
    pub version: (u8, u8),
    /// Emit names and source-level debug information.
    pub debug: bool,
}

impl Default for SpirvOptions {
    fn default() -> Self {
        SpirvOptions {
            version: (1, 3),
            debug: false,
        }
    }
}

/// Clamping bounds checks: an out-of-range index is clamped to the last element. Used
/// where naga cannot lower [`safe_bounds_checks`] (atomics on runtime-sized arrays);
/// every access still stays inside the bound range.
pub fn clamping_bounds_checks() -> BoundsCheckPolicies {
    BoundsCheckPolicies {
        index: BoundsCheckPolicy::Restrict,
        buffer: BoundsCheckPolicy::Restrict,
        image_load: BoundsCheckPolicy::ReadZeroSkipWrite,
        binding_array: BoundsCheckPolicy::Restrict,
    }
}

/// The bounds-check policies every backend output uses.
///
/// Indices into arrays, vectors and matrices, in buffers and elsewhere, and texel loads:
/// an out-of-range read yields zero and an out-of-range write is dropped. For runtime-sized
/// arrays the length comes from the bound range, so a shader cannot touch a neighbouring
/// buffer or the bytes outside its bound range. Binding-array indices are clamped.
pub fn safe_bounds_checks() -> BoundsCheckPolicies {
    BoundsCheckPolicies {
        index: BoundsCheckPolicy::ReadZeroSkipWrite,
        buffer: BoundsCheckPolicy::ReadZeroSkipWrite,
        image_load: BoundsCheckPolicy::ReadZeroSkipWrite,
        binding_array: BoundsCheckPolicy::Restrict,
    }
}

impl Module {
    /// Translates the whole module (every entry point) to SPIR-V words.
    pub fn to_spirv(&self, options: &SpirvOptions) -> Result<Vec<u32>, Diagnostic> {
        self.to_spirv_for(options, None)
    }

    /// Translates one entry point (or all, for `None`) to SPIR-V words.
    pub fn to_spirv_for(
        &self,
        options: &SpirvOptions,
        entry: Option<&str>,
    ) -> Result<Vec<u32>, Diagnostic> {
        if !self.reflection().overrides.is_empty() {
            let names: Vec<String> = self
                .reflection()
                .overrides
                .iter()
                .map(|o| o.key())
                .collect();
            return Err(Diagnostic::new(
                self.file(),
                format!(
                    "the module declares override constants ({}); fix their values first (Module::specialize, or a pipeline's constants)",
                    names.join(", ")
                ),
            ));
        }
        if self.naga.entry_points.is_empty() {
            return Err(Diagnostic::new(
                self.file(),
                "the module has no entry points, so there is nothing for Vulkan to run (SPIR-V without one is a linkable library, which Vulkan does not accept)",
            ));
        }
        if let Some(ep) = self.naga.entry_points.iter().find(|e| {
            (entry.is_none() || entry == Some(e.name.as_str())) && uses_sample_mask(&self.naga, e)
        }) {
            // naga (through version 30) declares the SampleMask built-in as a scalar where
            // Vulkan requires an array of 32-bit integers (VUID-SampleMask-SampleMask-04359);
            // the driver must not be handed such a module, so it is refused here.
            return Err(Diagnostic::new(
                self.file(),
                format!(
                    "entry point '{}' uses the sample_mask built-in, which vigil cannot translate for Vulkan yet: naga writes it as a scalar where Vulkan requires an array",
                    ep.name
                ),
            ));
        }
        if let Some(var) = self.naga.global_variables.iter().find_map(|(_, v)| {
            matches!(
                self.naga.types[v.ty].inner,
                naga::TypeInner::BindingArray {
                    size: naga::ArraySize::Dynamic,
                    ..
                }
            )
            .then_some(v)
        }) {
            // vigil clamps every binding-array index to the array's length (naga's
            // `Restrict` policy), which needs the length in the shader; naga cannot bound an
            // index into an array without one, and an unchecked index may reach past the
            // descriptors the group has. Refused rather than emitted unchecked.
            return Err(Diagnostic::new(
                self.file(),
                format!(
                    "binding array '{}' has no length (`binding_array<T>`); vigil bounds every binding-array index, which needs the length: write `binding_array<T, N>` with N at most the layout's count",
                    var.name.as_deref().unwrap_or("")
                ),
            ));
        }
        let pipeline = match entry {
            None => None,
            Some(name) => {
                let ep = self
                    .naga
                    .entry_points
                    .iter()
                    .find(|e| e.name == name)
                    .ok_or_else(|| {
                        Diagnostic::new(self.file(), format!("no entry point named '{name}'"))
                    })?;
                Some(naga::back::spv::PipelineOptions {
                    shader_stage: ep.stage,
                    entry_point: name.to_owned(),
                })
            }
        };
        guarded(self.file(), || {
            // FORCE_POINT_SIZE: every vertex stage writes PointSize = 1, as WebGPU defines
            // it, so a point-list pipeline meets Vulkan's rule that its vertex stage writes
            // one (VUID-VkGraphicsPipelineCreateInfo-Vertex-07722); other topologies ignore it.
            let mut flags = naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE
                | naga::back::spv::WriterFlags::LABEL_VARYINGS
                | naga::back::spv::WriterFlags::CLAMP_FRAG_DEPTH
                | naga::back::spv::WriterFlags::FORCE_POINT_SIZE;
            if options.debug {
                flags |= naga::back::spv::WriterFlags::DEBUG;
            }
            let write = |policies| {
                let spv_options = naga::back::spv::Options {
                    lang_version: options.version,
                    flags,
                    bounds_check_policies: policies,
                    // `f16` inputs and outputs pass as `f32` and convert, so no module
                    // needs `storageInputOutput16`, which vigil does not enable.
                    use_storage_input_output_16: false,
                    capabilities: Some(spirv_capabilities(self.features()).into_iter().collect()),
                    ..naga::back::spv::Options::default()
                };
                naga::back::spv::write_vec(&self.naga, &self.info, &spv_options, pipeline.as_ref())
            };
            // Read-zero/skip-write first; naga lowers it for everything but atomics, where
            // clamping (just as contained) is used instead.
            let mut words = write(safe_bounds_checks())
                .or_else(|_| write(clamping_bounds_checks()))
                .map_err(|e| {
                    let message = e.to_string();
                    let mut d = Diagnostic::new(
                        self.file(),
                        format!("SPIR-V generation failed: {message}"),
                    );
                    if message.contains("[ShaderNonUniform]") {
                        // naga decorates an index its uniformity analysis cannot prove
                        // uniform (any loop counter or other function variable) as
                        // non-uniform, which needs the device feature.
                        d.features_needed = vigil_hal::Features::BINDING_ARRAY_NON_UNIFORM_INDEXING;
                        d.notes.push("a binding array is indexed by a value naga cannot prove uniform (a loop counter or other function variable counts as non-uniform); enable BINDING_ARRAY_NON_UNIFORM_INDEXING on the device".to_owned());
                    }
                    d
                })?;
            crate::spirv_fix::block_decorate_uniform_arrays(&mut words)
                .map_err(|m| Diagnostic::new(self.file(), m))?;
            self.check_capabilities(&words)?;
            Ok(words)
        })
    }

    /// Refuses SPIR-V that declares a capability the module's features do not allow,
    /// naming the features that would ([`Diagnostic::features_needed`]) where there are
    /// some.
    fn check_capabilities(&self, words: &[u32]) -> Result<(), Diagnostic> {
        let allowed = spirv_capabilities(self.features());
        let mut needed = vigil_hal::Features::empty();
        let refused: Vec<String> = declared_capabilities(words)
            .into_iter()
            .filter_map(|c| match naga::back::spv::Capability::from_u32(c) {
                Some(cap) if allowed.contains(&cap) => None,
                Some(cap) => {
                    needed |= spirv_capability_feature(cap).unwrap_or_default();
                    Some(format!("{cap:?}"))
                }
                None => Some(format!("capability {c}")),
            })
            .collect();
        if refused.is_empty() {
            return Ok(());
        }
        let mut d = Diagnostic::new(
            self.file(),
            format!(
                "the SPIR-V translation declares {}, which the device's enabled features do not allow",
                refused.join(", ")
            ),
        );
        d.features_needed = needed;
        d.notes.push(format!(
            "checked against the features: {}",
            if self.features().is_empty() {
                "none".to_owned()
            } else {
                self.features().names().join(", ")
            }
        ));
        Err(d)
    }
}

/// Whether an entry point reads or writes the `sample_mask` built-in.
fn uses_sample_mask(module: &naga::Module, ep: &naga::EntryPoint) -> bool {
    let is_mask = |b: &Option<naga::Binding>| {
        matches!(b, Some(naga::Binding::BuiltIn(naga::BuiltIn::SampleMask)))
    };
    let in_type = |ty: naga::Handle<naga::Type>| match &module.types[ty].inner {
        naga::TypeInner::Struct { members, .. } => members.iter().any(|m| is_mask(&m.binding)),
        _ => false,
    };
    ep.function
        .arguments
        .iter()
        .any(|a| is_mask(&a.binding) || in_type(a.ty))
        || ep
            .function
            .result
            .as_ref()
            .is_some_and(|r| is_mask(&r.binding) || in_type(r.ty))
}
