//! Errors and warnings that point at the mistake: `file:line:col`, the source line and a
//! caret, rendered as rustc renders its own (by `annotate-snippets`).
//!
//! Every stage (lexer, parser, resolver, generator) pushes into one [`Diagnostics`] and
//! goes on where it can, so a run reports every mistake it finds, not only the first.

use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// One source file of a run, by its index in the [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range of one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// The first byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The range `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        // Files are capped at `MAX_FILE_LEN` when read, so offsets fit in u32.
        Span { file, start: to_u32(start), end: to_u32(end.max(start)) }
    }

    /// From the start of `self` to the end of `other` (same file).
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The largest IDL file read (16 MiB): far above any real IDL, and it keeps every offset
/// in a `u32`.
pub const MAX_FILE_LEN: usize = 16 << 20;

/// One file's path and text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as given or found on the include path.
    pub path: PathBuf,
    /// The text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// The 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset).saturating_sub(1);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let col = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
}

/// Every file read during a run, so diagnostics can show their lines.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        self.files.push(SourceFile { path: path.into(), text, line_starts });
        FileId(to_u32(self.files.len() - 1))
    }

    /// The file `id`.
    ///
    /// # Panics
    /// When `id` does not come from this map (a bug in the caller, not bad input).
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The file holding `path`, if it was read.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files.iter().position(|f| f.path == path).map(|i| FileId(to_u32(i)))
    }

    /// The source text under `span`.
    pub fn text(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// `path:line:col` of the start of `span`.
    pub fn location(&self, span: Span) -> String {
        let file = self.file(span.file);
        let (line, col) = file.line_col(span.start as usize);
        format!("{}:{line}:{col}", file.path.display())
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The run fails.
    Error,
    /// Something Apache's compiler warns about too; the run goes on.
    Warning,
}

/// One message, with the span it is about.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// Where, with a label under the caret.
    pub primary: Option<(Span, String)>,
    /// Related places (the first definition of a duplicate, the include of a cycle).
    pub secondary: Vec<(Span, String)>,
    /// Closing notes: why, and what to do.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, Some(span), message)
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, Some(span), message)
    }

    /// An error about no place in particular (a file that cannot be read).
    pub fn global(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, None, message)
    }

    fn new(severity: Severity, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            primary: span.map(|s| (s, String::new())),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Sets the label under the caret.
    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        if let Some((_, l)) = &mut self.primary {
            *l = label.into();
        }
        self
    }

    /// Adds a related place.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a closing note.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The diagnostic as rustc would print it: `error: ...`, ` --> file:line:col`, the
    /// source line and a caret under the span.
    pub fn render(&self, sources: &SourceMap) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let mut groups = Vec::new();
        let title = level.primary_title(self.message.as_str());
        match &self.primary {
            Some((span, label)) => {
                // One snippet per file: the primary's, with the secondaries of the same file;
                // secondaries elsewhere get their own snippet.
                let file = sources.file(span.file);
                let path = file.path.display().to_string();
                let mut snippet = Snippet::source(file.text.as_str()).path(path).annotation(annotation(
                    AnnotationKind::Primary,
                    *span,
                    label,
                    &file.text,
                ));
                let mut others = Vec::new();
                for (other, label) in &self.secondary {
                    if other.file == span.file {
                        snippet = snippet.annotation(annotation(AnnotationKind::Context, *other, label, &file.text));
                    } else {
                        others.push((other, label));
                    }
                }
                let mut group = title.element(snippet);
                for (other, label) in others {
                    let file = sources.file(other.file);
                    group = group.element(
                        Snippet::source(file.text.as_str())
                            .path(file.path.display().to_string())
                            .annotation(annotation(AnnotationKind::Context, *other, label, &file.text)),
                    );
                }
                groups.push(group);
            }
            None => groups.push(Group::with_title(title)),
        }
        for note in &self.notes {
            groups.push(Group::with_title(Level::NOTE.secondary_title(note.as_str())));
        }
        Renderer::plain().render(&groups)
    }
}

/// An annotation over `span`, kept on character boundaries and at least one character wide
/// (an empty span at the end of the file points at its last character).
fn annotation<'a>(kind: AnnotationKind, span: Span, label: &'a str, text: &str) -> annotate_snippets::Annotation<'a> {
    let mut start = (span.start as usize).min(text.len());
    let mut end = (span.end as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    if start == end {
        if end < text.len() {
            end += text[end..].chars().next().map_or(1, char::len_utf8);
        } else if let Some(c) = text[..start].chars().next_back() {
            start -= c.len_utf8();
        }
    }
    let annotation = kind.span(start..end);
    if label.is_empty() {
        annotation
    } else {
        annotation.label(label)
    }
}

/// The diagnostics of a run, in the order they were found.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// None yet.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds one.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    /// Whether any is an error.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    /// All of them.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Every diagnostic rendered, separated by blank lines.
    pub fn render(&self, sources: &SourceMap) -> String {
        let rendered: Vec<String> = self.list.iter().map(|d| d.render(sources)).collect();
        rendered.join("\n\n")
    }
}

/// A failed run: every diagnostic, rendered against the files it read.
///
/// `Display` and `Debug` both print the rendered diagnostics, so a `build.rs` returning
/// `Result<(), Box<dyn Error>>` shows them as they are.
pub struct Error {
    rendered: String,
    diagnostics: Diagnostics,
}

impl Error {
    /// The error of a run whose `diagnostics` hold errors.
    pub fn new(diagnostics: Diagnostics, sources: &SourceMap) -> Error {
        let mut rendered = diagnostics.render(sources);
        let errors = diagnostics.errors().count();
        rendered
            .push_str(&format!("\n\nerror: thrift-build found {errors} error{}", if errors == 1 { "" } else { "s" }));
        Error { rendered, diagnostics }
    }

    /// An error that has no source location (an output file that cannot be written).
    pub fn io(message: impl Into<String>) -> Error {
        let mut diagnostics = Diagnostics::new();
        let message = message.into();
        diagnostics.push(Diagnostic::global(message.clone()));
        Error { rendered: format!("error: {message}"), diagnostics }
    }

    /// The diagnostics, errors and warnings.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The rendered text.
    pub fn rendered(&self) -> &str {
        &self.rendered
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_source_line_and_caret() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.thrift", "struct A {\n  1: Foo x\n}\n".into());
        let d = Diagnostic::error(Span::new(file, 16, 19), "unknown type `Foo`").label("not defined");
        let text = d.render(&sources);
        assert!(text.contains("error: unknown type `Foo`"), "{text}");
        assert!(text.contains("a.thrift:2:6"), "{text}");
        assert!(text.contains("  1: Foo x"), "{text}");
        assert!(text.contains("^^^ not defined"), "{text}");
    }

    #[test]
    fn line_col_counts_characters() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.thrift", "// é\nx".into());
        assert_eq!(sources.file(file).line_col(3), (1, 4));
        assert_eq!(sources.file(file).line_col(6), (2, 1));
        assert_eq!(sources.file(file).line_col(999), (2, 2));
    }

    #[test]
    fn empty_span_at_end_of_file_still_renders() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.thrift", "struct A {".into());
        let d = Diagnostic::error(Span::new(file, 10, 10), "unexpected end of file");
        assert!(d.render(&sources).contains('^'));
        let empty = sources.add("b.thrift", String::new());
        let d = Diagnostic::error(Span::new(empty, 0, 0), "empty");
        assert!(d.render(&sources).contains("b.thrift"));
    }
}
