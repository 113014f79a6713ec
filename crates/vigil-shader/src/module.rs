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
}
