//! Compiler-style diagnostics: file, line, column, the offending line with a marker, and
//! the message.

use std::fmt;

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceSpan {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
    /// Length of the marked text, in bytes (at least 1 when shown).
    pub length: u32,
    /// The whole source line the span starts on.
    pub line_text: String,
}

/// One problem found in a shader, reported the way a compiler reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file name given by the caller (or `"<wgsl>"`).
    pub file: String,
    /// The main message.
    pub message: String,
    /// Where it points, when the front end gave a place.
    pub span: Option<SourceSpan>,
    /// Further explanation: labels and causes, innermost last.
    pub notes: Vec<String>,
    /// Device features the module needs that it was not checked with: enabling them
    /// (and nothing else) makes it valid. Empty for every other problem.
    pub features_needed: vigil_hal::Features,
}

impl Diagnostic {
    /// A diagnostic with no position.
    pub fn new(file: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_owned(),
            message: message.into(),
            span: None,
            notes: Vec::new(),
            features_needed: vigil_hal::Features::empty(),
        }
    }

    /// Points the diagnostic at `offset..offset + length` of `source`.
    pub fn at(mut self, source: &str, offset: usize, length: usize) -> Diagnostic {
        self.span = span_of(source, offset, length);
        self
    }

    /// 1-based line, if known.
    pub fn line(&self) -> Option<u32> {
        self.span.as_ref().map(|s| s.line)
    }

    /// 1-based column, if known.
    pub fn column(&self) -> Option<u32> {
        self.span.as_ref().map(|s| s.column)
    }
}

/// Line, column and line text of a byte range of `source`, clamped to the source.
pub(crate) fn span_of(source: &str, offset: usize, length: usize) -> Option<SourceSpan> {
    if source.is_empty() {
        return None;
    }
    let mut offset = offset.min(source.len());
    while offset > 0 && !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    let line = source[..offset].matches('\n').count() as u32 + 1;
    let line_text = source[line_start..line_end]
        .trim_end_matches('\r')
        .to_owned();
    let column = (offset - line_start) as u32 + 1;
    let length = length.min(line_end.saturating_sub(offset)).max(1) as u32;
    Some(SourceSpan {
        line,
        column,
        length,
        line_text,
    })
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Some(span) => {
                writeln!(
                    f,
                    "{}:{}:{}: error: {}",
                    self.file, span.line, span.column, self.message
                )?;
                let gutter = span.line.to_string();
                writeln!(f, "{} |", " ".repeat(gutter.len()))?;
                writeln!(f, "{gutter} | {}", span.line_text)?;
                let pad: String = span
                    .line_text
                    .bytes()
                    .take(span.column as usize - 1)
                    .map(|b| if b == b'\t' { '\t' } else { ' ' })
                    .collect();
                write!(
                    f,
                    "{} | {pad}{}",
                    " ".repeat(gutter.len()),
                    "^".repeat(span.length as usize)
                )?;
            }
            None => write!(f, "{}: error: {}", self.file, self.message)?,
        }
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_line_and_column() {
        let src = "fn a() {}\nfn b() { let x = y; }\n";
        let offset = src.find('y').unwrap();
        let d = Diagnostic::new("s.wgsl", "no definition in scope for identifier: 'y'")
            .at(src, offset, 1);
        assert_eq!((d.line(), d.column()), (Some(2), Some(18)));
        let text = d.to_string();
        assert!(
            text.starts_with("s.wgsl:2:18: error: no definition"),
            "{text}"
        );
        assert!(text.contains("2 | fn b() { let x = y; }"), "{text}");
        assert!(text.contains("  |                  ^"), "{text}");
    }

    #[test]
    fn clamps_offsets_past_the_end() {
        let d = Diagnostic::new("s.wgsl", "x").at("abc", 99, 5);
        assert_eq!((d.line(), d.column()), (Some(1), Some(4)));
    }
}
