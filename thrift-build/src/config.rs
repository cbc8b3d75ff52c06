//! [`Config`]: what to generate and where, as `prost_build::Config` does for protobuf.

use std::path::{Path, PathBuf};

use crate::codegen::{self, Generated};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, Severity};
use crate::resolve;

/// The Rust type of `binary`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum BinaryType {
    /// `Vec<u8>`.
    #[default]
    Vec,
    /// `bytes::Bytes` (through `thrift_core::bytes`): decoded as a slice of the input, no copy.
    Bytes,
}

/// The Rust type of `map`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum MapType {
    /// `BTreeMap`: keys need `Ord`; the struct holding it keeps `Hash` and `Ord`.
    #[default]
    BTreeMap,
    /// `HashMap` where the key is `Hash` (a map keyed by a struct with a `double` is not,
    /// and falls back to `BTreeMap` where the key is `Ord`).
    HashMap,
}

/// The Rust type of `set`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetType {
    /// `BTreeSet`.
    #[default]
    BTreeSet,
    /// `HashSet` where the element is `Hash`, else `BTreeSet`.
    HashSet,
}

/// How the generated modules are tied together (see the crate docs for both layouts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// `mod.rs` holds `pub mod name { include!("name.rs"); }` for each file: for `OUT_DIR`,
    /// mounted with `include!(concat!(env!("OUT_DIR"), "/mod.rs"))`.
    Include,
    /// `mod.rs` holds `pub mod name;` for each file: a module directory to check in.
    Modules,
}

/// What to generate from IDL files, and where.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     thrift_build::Config::new().compile(&["idl/hello.thrift"], &["idl"])?;
///     Ok(())
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) out_dir: Option<PathBuf>,
    pub(crate) layout: Option<Layout>,
    /// `None`: the core crate's `SharedStr`.
    pub(crate) string_type: Option<String>,
    pub(crate) binary_type: BinaryType,
    pub(crate) map_type: MapType,
    pub(crate) set_type: SetType,
    pub(crate) open_enums: bool,
    pub(crate) application_errors: bool,
    pub(crate) type_attributes: Vec<(String, String)>,
    pub(crate) field_attributes: Vec<(String, String)>,
    pub(crate) core_crate: String,
    pub(crate) net_crate: String,
    pub(crate) rerun_if_changed: Option<bool>,
    pub(crate) cargo_warnings: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            out_dir: None,
            layout: None,
            string_type: None,
            binary_type: BinaryType::Vec,
            map_type: MapType::BTreeMap,
            set_type: SetType::BTreeSet,
            open_enums: true,
            application_errors: false,
            type_attributes: Vec::new(),
            field_attributes: Vec::new(),
            core_crate: "thrift_core".into(),
            net_crate: "thrift_net".into(),
            rerun_if_changed: None,
            cargo_warnings: true,
        }
    }
}

impl Config {
    /// The defaults: `thrift_core::SharedStr`, `Vec<u8>`, `BTreeMap`, `BTreeSet`, open enums,
    /// into `OUT_DIR`.
    pub fn new() -> Config {
        Config::default()
    }

    /// Where to write (default: `$OUT_DIR`). Setting it makes the layout
    /// [`Layout::Modules`] unless [`Config::layout`] says otherwise.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Config {
        self.out_dir = Some(dir.into());
        self
    }

    /// How `mod.rs` ties the modules together.
    pub fn layout(&mut self, layout: Layout) -> &mut Config {
        self.layout = Some(layout);
        self
    }

    /// The Rust type of `string`. The default is thrift-core's `SharedStr` (imported from
    /// [`Config::core_crate`]): owned and `'static`, and decoded from a `Bytes` (as
    /// thrift-net's server and client decode every message) without allocating: short
    /// strings inline, longer ones sharing the message's buffer. `"String"` chooses `String`
    /// (one allocation and copy per decoded string). Another type must implement
    /// thrift-core's `ThriftType`, `Encode` and `Decode<'de>` for every `'de`, and
    /// `From<&'static str>` for default values.
    ///
    /// ```
    /// let mut config = thrift_build::Config::new();
    /// config.string_type("String");
    /// ```
    pub fn string_type(&mut self, path: &str) -> &mut Config {
        self.string_type = Some(path.to_owned());
        self
    }

    /// The Rust type of `binary`.
    pub fn binary_type(&mut self, ty: BinaryType) -> &mut Config {
        self.binary_type = ty;
        self
    }

    /// The Rust type of `map`.
    pub fn map_type(&mut self, ty: MapType) -> &mut Config {
        self.map_type = ty;
        self
    }

    /// The Rust type of `set`.
    pub fn set_type(&mut self, ty: SetType) -> &mut Config {
        self.set_type = ty;
        self
    }

    /// Whether enums and unions hold what the IDL does not name (default true): a
    /// `#[thrift(unknown)] Other(i32)` variant keeps a newer peer's enum value, and a
    /// `#[thrift(unknown)] Unknown(i16)` variant the field id of a union member it added,
    /// instead of failing the whole message. When false they are `#[thrift(closed)]`.
    pub fn open_enums(&mut self, open: bool) -> &mut Config {
        self.open_enums = open;
        self
    }

    /// Whether handlers may fail with a `TApplicationException` (default false): methods
    /// return `Result<T, ApplicationException>`, or `Result<T, OrApplication<E>>` when they
    /// declare exceptions, instead of `T` and `Result<T, E>`.
    pub fn application_errors(&mut self, on: bool) -> &mut Config {
        self.application_errors = on;
        self
    }

    /// Adds `attribute` (`#[derive(serde::Serialize)]`) to every struct, union, exception
    /// and enum whose IDL path matches `pattern`: `File.Name`, where `*` matches anything
    /// (`*` alone matches every type; `ThriftTest.X*` the types of `ThriftTest.thrift`
    /// starting with `X`).
    pub fn type_attribute(&mut self, pattern: &str, attribute: &str) -> &mut Config {
        self.type_attributes.push((pattern.to_owned(), attribute.to_owned()));
        self
    }

    /// Adds `attribute` to every field (and union member) whose IDL path `File.Type.field`
    /// matches `pattern`.
    pub fn field_attribute(&mut self, pattern: &str, attribute: &str) -> &mut Config {
        self.field_attributes.push((pattern.to_owned(), attribute.to_owned()));
        self
    }

    /// Shorthand for `type_attribute(pattern, "#[derive(derive)]")`.
    pub fn derive(&mut self, pattern: &str, derive: &str) -> &mut Config {
        self.type_attribute(pattern, &format!("#[derive({derive})]"))
    }

    /// The path of `thrift_core` in the crate using the code (default `thrift_core`), for a
    /// renamed dependency.
    pub fn core_crate(&mut self, path: &str) -> &mut Config {
        self.core_crate = path.to_owned();
        self
    }

    /// The path of `thrift_net` (default `thrift_net`), used by services.
    pub fn net_crate(&mut self, path: &str) -> &mut Config {
        self.net_crate = path.to_owned();
        self
    }

    /// Whether to print `cargo:rerun-if-changed` for every file read (default: when run by
    /// cargo as a build script).
    pub fn rerun_if_changed(&mut self, on: bool) -> &mut Config {
        self.rerun_if_changed = Some(on);
        self
    }

    /// Whether a build script passes the IDL's warnings (a field without an id...) on to
    /// cargo, one line each (default true).
    pub fn cargo_warnings(&mut self, on: bool) -> &mut Config {
        self.cargo_warnings = on;
        self
    }

    /// Generates the code for `files` and everything they include (looked up beside the
    /// including file, then in `include_dirs` in order) and writes it: one file per IDL
    /// file and a `mod.rs`. Files whose content did not change are not rewritten.
    ///
    /// # Errors
    /// Every error found in the IDL, rendered with its file, line, column and source line;
    /// or an output file that cannot be written.
    pub fn compile(&self, files: &[impl AsRef<Path>], include_dirs: &[impl AsRef<Path>]) -> Result<Generated, Error> {
        let in_build_script = std::env::var_os("OUT_DIR").is_some() && std::env::var_os("CARGO").is_some();
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::io("OUT_DIR is not set: call `out_dir` outside a build script"))?,
        };
        let generated = self.generate(files, include_dirs)?;
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Error::io(format!("cannot create {}: {e}", out_dir.display())))?;
        for file in &generated.files {
            let path = out_dir.join(&file.path);
            if std::fs::read_to_string(&path).is_ok_and(|old| old == file.contents) {
                continue;
            }
            std::fs::write(&path, &file.contents)
                .map_err(|e| Error::io(format!("cannot write {}: {e}", path.display())))?;
        }
        if self.rerun_if_changed.unwrap_or(in_build_script) {
            for path in &generated.inputs {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        if in_build_script && self.cargo_warnings {
            // One line each: cargo prints every `cargo:warning` as a warning of its own.
            for warning in &generated.warnings {
                let headline = warning.lines().next().unwrap_or_default().trim_start_matches("warning: ");
                let location = warning.lines().find_map(|l| l.trim().strip_prefix("--> ")).unwrap_or_default();
                println!("cargo:warning={location}: {headline}");
            }
        }
        Ok(generated)
    }

    /// What [`Config::compile`] would write, without writing it.
    ///
    /// # Errors
    /// Every error found in the IDL.
    pub fn generate(&self, files: &[impl AsRef<Path>], include_dirs: &[impl AsRef<Path>]) -> Result<Generated, Error> {
        let roots: Vec<PathBuf> = files.iter().map(|f| f.as_ref().to_path_buf()).collect();
        let dirs: Vec<PathBuf> = include_dirs.iter().map(|d| d.as_ref().to_path_buf()).collect();
        let mut diags = Diagnostics::new();
        let program = resolve::load_files(&roots, &dirs, &mut diags);
        self.generate_program(&program, diags)
    }

    /// Generates code for an already loaded program (whose loading reported `diags`).
    ///
    /// # Errors
    /// Every error in `diags` or found while generating.
    pub fn generate_program(&self, program: &resolve::Program, mut diags: Diagnostics) -> Result<Generated, Error> {
        if !diags.has_errors() {
            let layout = self.layout.unwrap_or(if self.out_dir.is_some() { Layout::Modules } else { Layout::Include });
            if let Some(mut generated) = codegen::generate(program, self, layout, &mut diags) {
                if !diags.has_errors() {
                    generated.warnings = diags
                        .iter()
                        .filter(|d| d.severity == Severity::Warning)
                        .map(|d: &Diagnostic| d.render(&program.sources))
                        .collect();
                    return Ok(generated);
                }
            }
        }
        Err(Error::new(diags, &program.sources))
    }
}
