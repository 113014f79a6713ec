//! A parsed and validated WGSL module: the one input every other part of this crate takes.

use crate::Diagnostic;
use crate::caps::{Needs, find_needs, naga_capabilities};
use crate::guard::guarded;
use crate::reflect::{Reflection, reflect};
use naga::valid::{ValidationFlags, Validator};
use vigil_hal::Features;

/// A WGSL module that parsed and passed naga's validation, with its reflection.
#[derive(Debug)]
pub struct Module {
    pub(crate) naga: naga::Module,
    pub(crate) info: naga::valid::ModuleInfo,
    file: String,
    reflection: Reflection,
    features: Features,
}

impl Module {
    /// Parses and validates WGSL for a device with no optional features: what every vigil
    /// device runs. `file` names the source in diagnostics.
    pub fn from_wgsl(source: &str, file: &str) -> Result<Module, Diagnostic> {
        Module::from_wgsl_with(source, file, Features::empty())
    }

    /// Parses and validates WGSL for a device with `features` enabled: the module may use
    /// the shader capabilities those features grant (`f16` with `SHADER_F16`, subgroup
    /// operations with `SUBGROUP`, …) and no others, and its translations declare no
    /// capability beyond them. A module that needs more is refused with a diagnostic
    /// naming the features to enable ([`Diagnostic::features_needed`]), or saying that no
    /// vigil feature grants what it uses yet.
    pub fn from_wgsl_with(
        source: &str,
        file: &str,
        features: Features,
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
                explain_enable(d, features)
            })?;
            let info = Validator::new(ValidationFlags::all(), naga_capabilities(features))
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
                    explain_needs(d, features, &naga)
                })?;
            let reflection = reflect(&naga, &info);
            Ok(Module {
                naga,
                info,
                file: file.to_owned(),
                reflection,
                features,
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

    /// The device features the module was checked against: it uses no shader capability
    /// beyond what they grant.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The naga IR, for tools that need more than the reflection.
    pub fn naga_module(&self) -> &naga::Module {
        &self.naga
    }

    /// The module with its `override` constants fixed, as a pipeline fixes them: each
    /// `(key, value)` names an override by its id (`"7"`) or, without one, its name (see
    /// [`crate::OverrideReflection::key`]). Refused, saying which [`OverrideProblem`], for
    /// a key the module does not declare or a key given twice, an override with no default
    /// left without a value, or a value its type cannot hold (not finite, out of range, a
    /// fraction for an integer). The result has no overrides left: its reflection has the
    /// final workgroup sizes, and it translates.
    pub fn specialize(&self, constants: &[(&str, f64)]) -> Result<Module, OverrideError> {
        self.specialize_for(None, constants)
    }

    /// The module cut down to one entry point with its `override` constants fixed, as a
    /// WebGPU pipeline stage fixes them: as [`Module::specialize`], except that only the
    /// overrides the entry point uses need values (keys must still name overrides of the
    /// module). An entry point of that stage and name must exist.
    pub fn specialize_entry(
        &self,
        stage: crate::Stage,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> Result<Module, OverrideError> {
        let naga_stage = match stage {
            crate::Stage::Vertex => naga::ShaderStage::Vertex,
            crate::Stage::Fragment => naga::ShaderStage::Fragment,
            crate::Stage::Compute => naga::ShaderStage::Compute,
            crate::Stage::Other => {
                return Err(OverrideError {
                    problem: OverrideProblem::Unknown,
                    diagnostic: Box::new(Diagnostic::new(
                        self.file(),
                        "only vertex, fragment and compute entry points are specialized",
                    )),
                });
            }
        };
        if !self
            .naga
            .entry_points
            .iter()
            .any(|e| e.stage == naga_stage && e.name == entry)
        {
            return Err(OverrideError {
                problem: OverrideProblem::Unknown,
                diagnostic: Box::new(Diagnostic::new(
                    self.file(),
                    format!("no {} entry point named '{entry}'", stage.name()),
                )),
            });
        }
        self.specialize_for(Some((naga_stage, entry)), constants)
    }

    fn specialize_for(
        &self,
        entry: Option<(naga::ShaderStage, &str)>,
        constants: &[(&str, f64)],
    ) -> Result<Module, OverrideError> {
        let refuse = |problem, message: String| OverrideError {
            problem,
            diagnostic: Box::new(Diagnostic::new(self.file(), message)),
        };
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
            return Err(refuse(
                OverrideProblem::Unknown,
                format!("the module has no override '{key}'; {known}"),
            ));
        }
        if let Some((_, (key, _))) = constants.iter().enumerate().find(|(i, (k, _))| {
            constants
                .iter()
                .skip(i.saturating_add(1))
                .any(|(other, _)| other == k)
        }) {
            return Err(refuse(
                OverrideProblem::Unknown,
                format!("override '{key}' is given more than one value"),
            ));
        }
        let missing = |o: &crate::OverrideReflection| {
            refuse(
                OverrideProblem::Missing,
                format!(
                    "override '{}' has no default, so the pipeline must give it a value (key \"{}\")",
                    o.name,
                    o.key()
                ),
            )
        };
        // With one entry point, naga finds the overrides it uses that lack a value.
        if let (None, Some(o)) = (
            entry,
            self.reflection
                .overrides
                .iter()
                .find(|o| !o.has_default && !constants.iter().any(|(k, _)| *k == o.key())),
        ) {
            return Err(missing(o));
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
                return Err(refuse(
                    OverrideProblem::Value,
                    format!("override '{key}' is {ty}; {value} is not a whole number"),
                ));
            }
        }
        let mut map = naga::back::PipelineConstants::default();
        for (key, value) in constants {
            map.insert((*key).to_owned(), *value);
        }
        let specialized = guarded(self.file(), || {
            let processed = naga::back::pipeline_constants::process_overrides(
                &self.naga, &self.info, entry, &map,
            );
            let (naga, info) = match processed {
                Ok(done) => done,
                Err(naga::back::pipeline_constants::PipelineConstantError::MissingValue(key)) => {
                    let o = self.reflection.overrides.iter().find(|o| o.key() == key);
                    return Ok(Err(o.map_or_else(
                        || {
                            refuse(
                                OverrideProblem::Missing,
                                format!("override '{key}' needs a value"),
                            )
                        },
                        missing,
                    )));
                }
                Err(e) => {
                    return Ok(Err(refuse(
                        OverrideProblem::Value,
                        format!("the override values do not fit: {e}"),
                    )));
                }
            };
            let (naga, info) = (naga.into_owned(), info.into_owned());
            let mut reflection = reflect(&naga, &info);
            // naga keeps the declarations, now resolved: nothing is left to fix.
            reflection.overrides.clear();
            Ok(Ok(Module {
                naga,
                info,
                file: self.file.clone(),
                reflection,
                features: self.features,
            }))
        });
        specialized
            .map_err(|diagnostic| OverrideError {
                problem: OverrideProblem::Value,
                diagnostic: Box::new(diagnostic),
            })
            .and_then(|r| r)
    }
}

/// Why [`Module::specialize`] refused a set of constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverrideProblem {
    /// A key names no override of the module, or names one twice.
    Unknown,
    /// An override without a default was given no value.
    Missing,
    /// A value its override's type cannot hold.
    Value,
}

/// A refused [`Module::specialize`]: the kind of problem and the diagnostic saying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    /// What is wrong.
    pub problem: OverrideProblem,
    /// The explanation (boxed: it is large, and errors travel by value).
    pub diagnostic: Box<Diagnostic>,
}

impl std::fmt::Display for OverrideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl std::error::Error for OverrideError {}

/// Turns a validation failure caused by a capability the module was not given into one
/// that says which feature to enable (the validator's own words become the first note).
fn explain_needs(mut d: Diagnostic, features: Features, naga: &naga::Module) -> Diagnostic {
    let valid = |caps| {
        Validator::new(ValidationFlags::all(), caps)
            .validate(naga)
            .is_ok()
    };
    let message = match find_needs(features, valid) {
        Needs::Nothing => return d,
        Needs::Features(needed) if needed.is_empty() => return d,
        Needs::Features(needed) => {
            d.features_needed = needed;
            format!(
                "the shader needs the device feature{} {}, which the device did not enable",
                if needed.bits().count_ones() == 1 {
                    ""
                } else {
                    "s"
                },
                needed.names().join(", ")
            )
        }
        Needs::NotOffered(names) => format!(
            "the shader uses {}, which no vigil device feature enables yet",
            names.join(", ")
        ),
    };
    let original = std::mem::replace(&mut d.message, message);
    d.notes.insert(0, original);
    d
}

/// Adds to the front end's "the `X` enable extension is not enabled" what to do about it:
/// the `enable` directive, and the device feature it needs. naga's parse error does not
/// expose its kind, so this reads its message (`tests/features.rs` fails if the wording
/// changes).
fn explain_enable(mut d: Diagnostic, features: Features) -> Diagnostic {
    let Some(name) = d
        .message
        .strip_prefix("the `")
        .and_then(|rest| rest.strip_suffix("` enable extension is not enabled"))
    else {
        return d;
    };
    let note = match crate::caps::enable_extension_feature(name) {
        Some(Some(f)) if features.intersects(f) => {
            format!("add `enable {name};` at the top of the shader")
        }
        Some(Some(f)) => {
            d.features_needed = f;
            let names = f.names();
            format!(
                "add `enable {name};` at the top of the shader; the device needs {} {} enabled too",
                if names.len() > 1 {
                    "one of the features"
                } else {
                    "the feature"
                },
                names.join(", ")
            )
        }
        Some(None) => format!("`{name}` is not offered by any vigil device feature yet"),
        None => return d,
    };
    d.notes.push(note);
    d
}
