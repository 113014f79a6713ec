//! A parsed and validated WGSL module: the one input every other part of this crate takes.

use crate::Diagnostic;
use crate::guard::guarded;
use crate::reflect::{Reflection, reflect};
use naga::valid::{Capabilities, ValidationFlags, Validator};

/// Optional language capabilities a module may use; each needs the matching device feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities16And64 {
    /// `f16` values (`enable f16;`).
    pub shader_f16: bool,
    /// 64-bit integers.
    pub shader_int64: bool,
}

/// A WGSL module that parsed and passed naga's validation, with its reflection.
#[derive(Debug)]
pub struct Module {
    pub(crate) naga: naga::Module,
    pub(crate) info: naga::valid::ModuleInfo,
    file: String,
    reflection: Reflection,
}

impl Module {
    /// Parses and validates WGSL. `file` names the source in diagnostics.
    pub fn from_wgsl(source: &str, file: &str) -> Result<Module, Diagnostic> {
        Module::from_wgsl_with(source, file, Capabilities16And64::default())
    }

    /// Parses and validates WGSL allowing the given optional capabilities.
    pub fn from_wgsl_with(
        source: &str,
        file: &str,
        extra: Capabilities16And64,
    ) -> Result<Module, Diagnostic> {
        guarded(file, || {
            let naga = naga::front::wgsl::parse_str(source).map_err(|e| {
                let mut d = Diagnostic::new(file, e.message().to_owned());
                if let Some((span, _)) = e.labels().next() {
                    if let Some(r) = span.to_range() {
                        d = d.at(source, r.start, r.end.saturating_sub(r.start));
                    }
                }
                d.notes = e
                    .labels()
                    .filter(|(_, text)| !text.is_empty())
                    .map(|(_, text)| text.to_owned())
                    .chain(e.notes().map(str::to_owned))
                    .collect();
                d
            })?;
            let mut caps = Capabilities::default();
            if extra.shader_f16 {
                caps |= Capabilities::SHADER_FLOAT16;
            }
            if extra.shader_int64 {
                caps |= Capabilities::SHADER_INT64;
            }
            let info = Validator::new(ValidationFlags::all(), caps)
                .validate(&naga)
                .map_err(|e| {
                    let mut d = Diagnostic::new(file, e.as_inner().to_string());
                    if let Some((span, _)) = e.spans().next() {
                        if let Some(r) = span.to_range() {
                            d = d.at(source, r.start, r.end.saturating_sub(r.start));
                        }
                    }
                    let mut notes: Vec<String> = e
                        .spans()
                        .filter(|(_, text)| !text.is_empty())
                        .map(|(_, text)| text.clone())
                        .collect();
                    let mut cause: Option<&dyn std::error::Error> =
                        std::error::Error::source(e.as_inner());
                    while let Some(c) = cause {
                        notes.push(c.to_string());
                        cause = c.source();
                    }
                    d.notes = notes;
                    d
                })?;
            let reflection = reflect(&naga, &info);
            Ok(Module {
                naga,
                info,
                file: file.to_owned(),
                reflection,
            })
        })
    }

    /// What each entry point uses.
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// The file name diagnostics use.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The naga IR, for tools that need more than the reflection.
    pub fn naga_module(&self) -> &naga::Module {
        &self.naga
    }

    /// The module with its `override` constants fixed, as a pipeline fixes them: each
    /// `(key, value)` names an override by its id (`"7"`) or, without one, its name (see
    /// [`crate::OverrideReflection::key`]). Refused, with a diagnostic, for a key the module
    /// does not declare, an override with no default left without a value, or a value its
    /// type cannot hold (not finite, out of range, a fraction for an integer). The result
    /// has no overrides left: its reflection has the final workgroup sizes, and it
    /// translates.
    pub fn specialize(&self, constants: &[(&str, f64)]) -> Result<Module, Diagnostic> {
        let declared: Vec<String> = self.reflection.overrides.iter().map(|o| o.key()).collect();
        if let Some((key, _)) = constants
            .iter()
            .find(|(k, _)| !declared.iter().any(|d| d == k))
        {
            let known = if declared.is_empty() {
                "it declares none".to_owned()
            } else {
                format!("it declares {}", declared.join(", "))
            };
            return Err(Diagnostic::new(
                self.file(),
                format!("the module has no override '{key}'; {known}"),
            ));
        }
        if let Some(o) = self
            .reflection
            .overrides
            .iter()
            .find(|o| !o.has_default && !constants.iter().any(|(k, _)| *k == o.key()))
        {
            return Err(Diagnostic::new(
                self.file(),
                format!(
                    "override '{}' has no default, so the pipeline must give it a value (key \"{}\")",
                    o.name,
                    o.key()
                ),
            ));
        }
        for (key, value) in constants {
            let ty = self
                .reflection
                .overrides
                .iter()
                .find(|o| o.key() == *key)
                .map_or("", |o| o.ty);
            let integral = matches!(ty, "i32" | "u32");
            if integral && value.fract() != 0.0 {
                return Err(Diagnostic::new(
                    self.file(),
                    format!("override '{key}' is {ty}; {value} is not a whole number"),
                ));
            }
        }
        let mut map = naga::back::PipelineConstants::default();
        for (key, value) in constants {
            map.insert((*key).to_owned(), *value);
        }
        guarded(self.file(), || {
            let (naga, info) = naga::back::pipeline_constants::process_overrides(
                &self.naga, &self.info, None, &map,
            )
            .map_err(|e| {
                Diagnostic::new(self.file(), format!("the override values do not fit: {e}"))
            })?;
            let (naga, info) = (naga.into_owned(), info.into_owned());
            let mut reflection = reflect(&naga, &info);
            // naga keeps the declarations, now resolved: nothing is left to fix.
            reflection.overrides.clear();
            Ok(Module {
                naga,
                info,
                file: self.file.clone(),
                reflection,
            })
        })
    }
}
