//! Reading the files asked for and everything they include, each once, as Apache's
//! compiler finds them: an included path is tried beside the including file, then in
//! each include directory in order.

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::ast::{Document, Header};
use crate::diagnostics::{Diagnostic, Diagnostics, FileId, SourceMap, Span, MAX_FILE_LEN};
use crate::parser::parse;

/// The deepest chain of includes followed (`a` includes `b` includes `c`...).
const MAX_INCLUDE_DEPTH: usize = 256;

/// Reads a file's text; `io::ErrorKind::NotFound` means "try the next directory".
pub type Reader<'r> = dyn FnMut(&Path) -> io::Result<String> + 'r;

/// A file read and parsed, with the files its includes resolved to.
pub struct Loaded {
    pub document: Document,
    /// For each `include`, in order: the name references use, the file, where it is.
    pub includes: Vec<(String, FileId, Span)>,
}

/// Every file read: the sources, the parsed documents (indexed by `FileId`), the roots and
/// an order where each file comes after the files it includes.
pub struct Load {
    pub sources: SourceMap,
    pub files: Vec<Loaded>,
    pub roots: Vec<FileId>,
    pub order: Vec<FileId>,
}

struct Loader<'r, 'd> {
    include_dirs: Vec<PathBuf>,
    read: &'r mut Reader<'r>,
    diags: &'d mut Diagnostics,
    sources: SourceMap,
    files: Vec<Option<Loaded>>,
    by_path: HashMap<PathBuf, FileId>,
    /// Files being loaded, for cycle detection.
    stack: Vec<FileId>,
    order: Vec<FileId>,
}

/// Reads `roots` and what they include.
pub fn load<'r>(
    roots: &[PathBuf],
    include_dirs: &[PathBuf],
    read: &'r mut Reader<'r>,
    diags: &mut Diagnostics,
) -> Load {
    let mut loader = Loader {
        include_dirs: include_dirs.to_vec(),
        read,
        diags,
        sources: SourceMap::new(),
        files: Vec::new(),
        by_path: HashMap::new(),
        stack: Vec::new(),
        order: Vec::new(),
    };
    let mut root_ids = Vec::new();
    for root in roots {
        let path = normalize(root);
        match loader.open(&path) {
            Ok(text) => {
                if let Some(id) = loader.load(path, text) {
                    if !root_ids.contains(&id) {
                        root_ids.push(id);
                    }
                }
            }
            Err(e) => loader.diags.push(Diagnostic::global(format!("cannot read {}: {e}", root.display()))),
        }
    }
    let files = loader
        .files
        .into_iter()
        .map(|f| f.unwrap_or(Loaded { document: Document::default(), includes: Vec::new() }))
        .collect();
    Load { sources: loader.sources, files, roots: root_ids, order: loader.order }
}

impl Loader<'_, '_> {
    /// The text of `path`, refusing files too big to be IDL.
    fn open(&mut self, path: &Path) -> io::Result<String> {
        let text = (self.read)(path)?;
        if text.len() > MAX_FILE_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} bytes is more than the {MAX_FILE_LEN} an IDL file may have", text.len()),
            ));
        }
        Ok(text)
    }

    /// Parses the file at `path` (already read as `text`) and loads what it includes.
    fn load(&mut self, path: PathBuf, text: String) -> Option<FileId> {
        if let Some(&id) = self.by_path.get(&path) {
            return Some(id);
        }
        let id = self.sources.add(path.clone(), text);
        self.by_path.insert(path.clone(), id);
        self.files.push(None);
        let document = parse(id, &self.sources.file(id).text, self.diags);
        self.stack.push(id);
        let mut includes = Vec::new();
        for header in &document.headers {
            let Header::Include { path: included, span } = header else { continue };
            if let Some(file) = self.include(&path, included, *span) {
                let name = Path::new(included)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| included.clone());
                includes.push((name, file, *span));
            }
        }
        self.stack.pop();
        self.order.push(id);
        self.files[id.0 as usize] = Some(Loaded { document, includes });
        Some(id)
    }

    /// Finds, reads and loads one include of the file at `from`.
    fn include(&mut self, from: &Path, included: &str, span: Span) -> Option<FileId> {
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            self.diags.push(Diagnostic::error(span, format!("includes nested more than {MAX_INCLUDE_DEPTH} deep")));
            return None;
        }
        let mut candidates = Vec::new();
        if Path::new(included).is_absolute() {
            candidates.push(normalize(Path::new(included)));
        } else {
            let dir = from.parent().unwrap_or(Path::new(""));
            candidates.push(normalize(&dir.join(included)));
            candidates.extend(self.include_dirs.iter().map(|d| normalize(&d.join(included))));
        }
        for candidate in &candidates {
            if let Some(&id) = self.by_path.get(candidate) {
                if let Some(pos) = self.stack.iter().position(|&f| f == id) {
                    let mut chain: Vec<String> =
                        self.stack[pos..].iter().map(|f| self.sources.file(*f).path.display().to_string()).collect();
                    chain.push(candidate.display().to_string());
                    self.diags.push(
                        Diagnostic::error(span, format!("include cycle: {}", chain.join(" includes ")))
                            .label("this include leads back to the including file"),
                    );
                    return None;
                }
                return Some(id);
            }
            match self.open(candidate) {
                Ok(text) => return self.load(candidate.clone(), text),
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    self.diags.push(Diagnostic::error(span, format!("cannot read {}: {e}", candidate.display())));
                    return None;
                }
            }
        }
        let searched: Vec<String> = candidates
            .iter()
            .map(|c| c.parent().map(|p| p.display().to_string()).unwrap_or_default())
            .map(|p| if p.is_empty() { ".".to_owned() } else { p })
            .collect();
        // A warning, as Apache's compiler gives: a file that names nothing of the missing
        // one still compiles, and a name that needs it is an error where it is used.
        self.diags.push(
            Diagnostic::warning(span, format!("include not found: `{included}`"))
                .label("no such file; what it defines is unknown here")
                .note(format!("searched {}", searched.join(", ")))
                .note("add the directory that holds it to the include path (`-I dir`, or `compile`'s second argument)"),
        );
        None
    }
}

/// `path` without `.` components and with `..` applied where it can be, so one file
/// reached by two spellings is read once.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let can_pop = matches!(out.components().next_back(), Some(Component::Normal(_)));
                if can_pop {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_removes_dots() {
        assert_eq!(normalize(Path::new("./a/../b/./c.thrift")), PathBuf::from("b/c.thrift"));
        assert_eq!(normalize(Path::new("../x.thrift")), PathBuf::from("../x.thrift"));
    }
}
