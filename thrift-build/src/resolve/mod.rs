//! From syntax to a checked [`Program`]: includes read, names resolved, field ids and enum
//! values assigned, constants checked against their types.
//!
//! The rules are Apache's (0.17): a type may be used before its definition, a constant only
//! after its own (the compiler resolves them as it reads); `file.Name` reaches a definition
//! of an included file; ids left out are assigned -1, -2, ... with a warning; an enum
//! value without a number is the previous one plus one. Where Apache accepts what no
//! generated Rust could hold (an `i8` constant of 1000, two enum values with one number),
//! this is an error here.

mod load;
mod model;
mod values;

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

pub use model::*;

use crate::ast;
use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span};

/// Reads `roots` from disk, with what they include, and checks them.
///
/// Diagnostics go into `diags`; when it holds errors, the program is partial.
pub fn load_files(roots: &[PathBuf], include_dirs: &[PathBuf], diags: &mut Diagnostics) -> Program {
    let mut read = |path: &Path| std::fs::read_to_string(path);
    load_with(roots, include_dirs, &mut read, diags)
}

/// As [`load_files`], reading through `read` (a map of in-memory files, in tests).
pub fn load_with<'r>(
    roots: &[PathBuf],
    include_dirs: &[PathBuf],
    read: &'r mut (dyn FnMut(&Path) -> io::Result<String> + 'r),
    diags: &mut Diagnostics,
) -> Program {
    let loaded = load::load(roots, include_dirs, read, diags);
    resolve(loaded, diags)
}

/// Parses and checks one file held in memory, which includes nothing (or whose includes
/// are not found).
pub fn load_str(path: &str, text: &str, diags: &mut Diagnostics) -> Program {
    let (name, text) = (PathBuf::from(path), text.to_owned());
    let mut read = move |p: &Path| {
        if p == name {
            Ok(text.clone())
        } else {
            Err(io::Error::new(io::ErrorKind::NotFound, "not in memory"))
        }
    };
    load_with(&[PathBuf::from(path)], &[], &mut read, diags)
}

/// What a name in a file's scope is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Typedef,
    Enum,
    Struct(StructKind),
    Service,
    Const,
}

#[derive(Default)]
struct Scope {
    /// Types and services share a namespace, as in Apache's compiler.
    types: HashMap<String, (usize, Kind)>,
    consts: HashMap<String, usize>,
}

struct Resolver<'d> {
    program: Program,
    scopes: Vec<Scope>,
    docs: Vec<ast::Document>,
    includes: Vec<Vec<(String, FileId, Span)>>,
    /// Constants whose value is known: a constant may refer only to these.
    resolved_consts: HashSet<DefId>,
    diags: &'d mut Diagnostics,
}

fn resolve(loaded: load::Load, diags: &mut Diagnostics) -> Program {
    let mut program = Program { sources: loaded.sources, files: Vec::new(), roots: loaded.roots, order: loaded.order };
    let mut docs = Vec::new();
    let mut includes = Vec::new();
    for (i, file) in loaded.files.into_iter().enumerate() {
        let id = FileId(i as u32);
        let path = program.sources.file(id).path.clone();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let namespaces = file
            .document
            .headers
            .iter()
            .filter_map(|h| match h {
                ast::Header::Namespace { scope, name, .. } => Some((scope.clone(), name.clone())),
                _ => None,
            })
            .collect();
        program.files.push(File {
            id,
            path,
            name,
            doc: file.document.doc.clone(),
            includes: file
                .includes
                .iter()
                .map(|(name, file, span)| Include { file: *file, name: name.clone(), span: *span })
                .collect(),
            namespaces,
            definitions: Vec::new(),
        });
        docs.push(file.document);
        includes.push(file.includes);
    }
    let mut resolver = Resolver {
        scopes: (0..program.files.len()).map(|_| Scope::default()).collect(),
        program,
        docs,
        includes,
        resolved_consts: HashSet::new(),
        diags,
    };
    let order = resolver.program.order.clone();
    for file in order {
        resolver.file(file);
    }
    resolver.program
}

/// Where a field list is, which changes its rules.
#[derive(Clone, Copy, PartialEq)]
enum FieldsOf {
    Struct(StructKind),
    Args,
    Throws,
}

impl Resolver<'_> {
    fn file(&mut self, file: FileId) {
        let doc = std::mem::take(&mut self.docs[file.0 as usize]);
        self.index(file, &doc);
        let defs: Vec<Def> = doc.definitions.iter().map(|d| self.definition(file, d)).collect();
        self.program.files[file.0 as usize].definitions = defs;
        self.check_typedef_cycles(file);
        self.check_services(file, &doc);
        for (index, d) in doc.definitions.iter().enumerate() {
            self.values(DefId { file, index }, d);
        }
    }

    /// Names every definition of the file, reporting duplicates.
    fn index(&mut self, file: FileId, doc: &ast::Document) {
        let mut first: HashMap<String, Span> = HashMap::new();
        for (i, d) in doc.definitions.iter().enumerate() {
            let name = d.name();
            let kind = match d {
                ast::Definition::Const(_) => Kind::Const,
                ast::Definition::Typedef(_) => Kind::Typedef,
                ast::Definition::Enum(_) => Kind::Enum,
                ast::Definition::Struct(s) => Kind::Struct(s.kind),
                ast::Definition::Service(_) => Kind::Service,
            };
            let key = if kind == Kind::Const { format!("const {}", name.name) } else { name.name.clone() };
            if let Some(span) = first.get(&key) {
                let what = if kind == Kind::Const { "constant" } else { "type" };
                self.diags.push(
                    Diagnostic::error(name.span, format!("{what} `{}` is already defined", name.name))
                        .label("defined again here")
                        .with_secondary(*span, "first defined here"),
                );
                continue;
            }
            first.insert(key, name.span);
            let scope = &mut self.scopes[file.0 as usize];
            if kind == Kind::Const {
                scope.consts.insert(name.name.clone(), i);
            } else {
                scope.types.insert(name.name.clone(), (i, kind));
            }
        }
    }

    /// The definition named `name` from `file`: its own, or `include.Name`.
    fn lookup(&self, file: FileId, name: &str) -> Option<(DefId, Kind)> {
        if let Some(&(index, kind)) = self.scopes[file.0 as usize].types.get(name) {
            return Some((DefId { file, index }, kind));
        }
        for (include, target, _) in &self.includes[file.0 as usize] {
            let Some(rest) = name.strip_prefix(include.as_str()).and_then(|r| r.strip_prefix('.')) else { continue };
            if let Some(&(index, kind)) = self.scopes[target.0 as usize].types.get(rest) {
                return Some((DefId { file: *target, index }, kind));
            }
        }
        None
    }

    fn definition(&mut self, file: FileId, d: &ast::Definition) -> Def {
        match d {
            ast::Definition::Const(c) => Def::Const(Const {
                name: c.name.name.clone(),
                span: c.name.span,
                doc: c.doc.clone(),
                ty: self.ty(file, &c.ty),
                value: None,
            }),
            ast::Definition::Typedef(t) => Def::Typedef(Typedef {
                name: t.name.name.clone(),
                span: t.name.span,
                doc: t.doc.clone(),
                ty: self.ty(file, &t.ty),
            }),
            ast::Definition::Enum(e) => Def::Enum(self.enum_def(e)),
            ast::Definition::Struct(s) => Def::Struct(Struct {
                name: s.name.name.clone(),
                span: s.name.span,
                doc: s.doc.clone(),
                kind: s.kind,
                fields: self.fields(file, &s.fields, FieldsOf::Struct(s.kind), &s.name.name),
            }),
            ast::Definition::Service(s) => {
                let extends = s.extends.as_ref().and_then(|parent| match self.lookup(file, &parent.name) {
                    Some((id, Kind::Service)) => Some(id),
                    Some(_) => {
                        self.diags.push(
                            Diagnostic::error(parent.span, format!("`{}` is not a service", parent.name))
                                .label("a service extends a service"),
                        );
                        None
                    }
                    None => {
                        self.diags.push(
                            Diagnostic::error(parent.span, format!("unknown service `{}`", parent.name))
                                .label("not defined in this file or an included one"),
                        );
                        None
                    }
                });
                let functions = s
                    .functions
                    .iter()
                    .map(|f| Function {
                        name: f.name.name.clone(),
                        span: f.name.span,
                        doc: f.doc.clone(),
                        oneway: f.oneway,
                        returns: f.returns.as_ref().map(|t| self.ty(file, t)),
                        args: self.fields(file, &f.args, FieldsOf::Args, &f.name.name),
                        throws: self.fields(file, &f.throws, FieldsOf::Throws, &f.name.name),
                    })
                    .collect();
                Def::Service(Service {
                    name: s.name.name.clone(),
                    span: s.name.span,
                    doc: s.doc.clone(),
                    extends,
                    functions,
                })
            }
        }
    }

    fn ty(&mut self, file: FileId, t: &ast::Type) -> Type {
        match &t.kind {
            ast::TypeKind::Bool => Type::Bool,
            ast::TypeKind::I8 => Type::I8,
            ast::TypeKind::I16 => Type::I16,
            ast::TypeKind::I32 => Type::I32,
            ast::TypeKind::I64 => Type::I64,
            ast::TypeKind::Double => Type::Double,
            ast::TypeKind::String => Type::String,
            ast::TypeKind::Binary => Type::Binary,
            ast::TypeKind::Uuid => Type::Uuid,
            ast::TypeKind::List(e) => Type::List(Box::new(self.ty(file, e))),
            ast::TypeKind::Set(e) => Type::Set(Box::new(self.ty(file, e))),
            ast::TypeKind::Map(k, v) => Type::Map(Box::new(self.ty(file, k)), Box::new(self.ty(file, v))),
            ast::TypeKind::Named(ident) => match self.lookup(file, &ident.name) {
                Some((id, Kind::Typedef)) => Type::Typedef(id),
                Some((id, Kind::Enum)) => Type::Enum(id),
                Some((id, Kind::Struct(_))) => Type::Struct(id),
                Some((_, Kind::Service)) => {
                    self.diags.push(
                        Diagnostic::error(ident.span, format!("`{}` is a service, not a type", ident.name))
                            .label("services cannot be values"),
                    );
                    Type::Invalid
                }
                Some((_, Kind::Const)) | None => {
                    let d = self.unknown_type(file, ident);
                    self.diags.push(d);
                    Type::Invalid
                }
            },
        }
    }

    fn unknown_type(&self, file: FileId, ident: &ast::Ident) -> Diagnostic {
        let mut d = Diagnostic::error(ident.span, format!("unknown type `{}`", ident.name))
            .label("not defined in this file or an included one");
        if let Some((prefix, rest)) = ident.name.split_once('.') {
            if !self.includes[file.0 as usize].iter().any(|(name, _, _)| name == prefix) {
                d = d.note(format!("`{prefix}` is not an included file: add `include \"{prefix}.thrift\"`"));
            } else {
                d = d.note(format!("`{prefix}.thrift` defines no type `{rest}`"));
            }
        } else {
            for (include, target, _) in &self.includes[file.0 as usize] {
                if self.scopes[target.0 as usize].types.contains_key(&ident.name) {
                    d = d.note(format!("`{include}.thrift` defines it: write `{include}.{}`", ident.name));
                }
            }
        }
        d
    }

    fn enum_def(&mut self, e: &ast::Enum) -> Enum {
        let mut values: Vec<EnumValue> = Vec::new();
        let mut next: i64 = 0;
        for v in &e.values {
            let value = match v.value {
                Some((value, span)) => match i32::try_from(value) {
                    Ok(value) => value,
                    Err(_) => {
                        self.diags.push(
                            Diagnostic::error(span, format!("enum value {value} is out of range for an i32"))
                                .label("enum values are i32 on the wire")
                                .note(format!("`{}` must be between {} and {}", v.name.name, i32::MIN, i32::MAX)),
                        );
                        continue;
                    }
                },
                None => match i32::try_from(next) {
                    Ok(value) => value,
                    Err(_) => {
                        self.diags.push(
                            Diagnostic::error(
                                v.name.span,
                                format!("enum value overflow: `{}` would be {next}", v.name.name),
                            )
                            .label("one more than the previous value does not fit in an i32"),
                        );
                        continue;
                    }
                },
            };
            next = i64::from(value) + 1;
            if let Some(first) = values.iter().find(|o| o.name == v.name.name) {
                self.diags.push(
                    Diagnostic::error(v.name.span, format!("enum value `{}` is already defined", v.name.name))
                        .label("defined again here")
                        .with_secondary(first.span, "first defined here"),
                );
                continue;
            }
            values.push(EnumValue { name: v.name.name.clone(), span: v.name.span, doc: v.doc.clone(), value });
        }
        Enum { name: e.name.name.clone(), span: e.name.span, doc: e.doc.clone(), values }
    }

    /// Fields with ids assigned as Apache does: written positive ids as they are; missing
    /// or non-positive ones -1, -2, ... in order, with a warning.
    fn fields(&mut self, file: FileId, fields: &[ast::Field], of: FieldsOf, owner: &str) -> Vec<Field> {
        let mut out: Vec<Field> = Vec::new();
        let mut next_auto: i64 = -1;
        for f in fields {
            let mut auto = || {
                let id = next_auto;
                next_auto -= 1;
                id
            };
            let (id, auto_id) = match f.id {
                Some((id, _)) if id > 0 => (id, false),
                Some((id, span)) => {
                    let assigned = auto();
                    self.diags.push(
                        Diagnostic::warning(
                            span,
                            format!("field id {id} is not positive: `{}` gets id {assigned}", f.name.name),
                        )
                        .label("Apache's compiler assigns ids to non-positive ones"),
                    );
                    (assigned, true)
                }
                None => {
                    let assigned = auto();
                    self.diags.push(
                        Diagnostic::warning(
                            f.name.span,
                            format!("no field id for `{}`: it gets id {assigned}", f.name.name),
                        )
                        .label("give it an id")
                        .note("an assigned id changes when fields are added or moved, breaking compatibility"),
                    );
                    (assigned, true)
                }
            };
            let Ok(id) = i16::try_from(id) else {
                let span = f.id.map_or(f.name.span, |(_, s)| s);
                self.diags.push(
                    Diagnostic::error(span, format!("field id {id} is out of range"))
                        .label("field ids are i16: 1 to 32767"),
                );
                continue;
            };
            if let Some(first) = out.iter().find(|o| o.id == id) {
                let span = f.id.map_or(f.name.span, |(_, s)| s);
                self.diags.push(
                    Diagnostic::error(span, format!("duplicate field id {id} in `{owner}`"))
                        .label(format!("`{}` has the id of `{}`", f.name.name, first.name))
                        .with_secondary(first.span, "first used here"),
                );
                continue;
            }
            if let Some(first) = out.iter().find(|o| o.name == f.name.name) {
                self.diags.push(
                    Diagnostic::error(f.name.span, format!("duplicate field name `{}` in `{owner}`", f.name.name))
                        .label("used again here")
                        .with_secondary(first.span, "first used here"),
                );
                continue;
            }
            let mut requiredness = f.requiredness;
            if of == FieldsOf::Struct(StructKind::Union) {
                if requiredness == Requiredness::Required {
                    if let Some(span) = f.requiredness_span {
                        self.diags.push(
                            Diagnostic::warning(span, "a union field is never required")
                                .label("exactly one field of a union is set"),
                        );
                    }
                }
                // Each member is optional, as in Apache's model: only the one set is written.
                requiredness = Requiredness::Optional;
            }
            if of == FieldsOf::Throws && requiredness != Requiredness::Default {
                requiredness = Requiredness::Default;
            }
            out.push(Field {
                name: f.name.name.clone(),
                span: f.name.span,
                doc: f.doc.clone(),
                id,
                auto_id,
                requiredness,
                ty: self.ty(file, &f.ty),
                ty_span: f.ty.span,
                default: None,
            });
        }
        out
    }

    fn check_typedef_cycles(&mut self, file: FileId) {
        let defs = &self.program.files[file.0 as usize].definitions;
        let mut cyclic = Vec::new();
        for (index, def) in defs.iter().enumerate() {
            let Def::Typedef(t) = def else { continue };
            let mut seen = vec![DefId { file, index }];
            let mut ty = &t.ty;
            while let Type::Typedef(next) = ty {
                if seen.contains(next) {
                    if *next == (DefId { file, index }) {
                        cyclic.push((t.span, t.name.clone()));
                    }
                    break;
                }
                seen.push(*next);
                match self.program.def(*next) {
                    Def::Typedef(n) => ty = &n.ty,
                    _ => break,
                }
            }
        }
        for (span, name) in cyclic {
            self.diags.push(
                Diagnostic::error(span, format!("typedef `{name}` refers to itself"))
                    .label("its chain of typedefs comes back to it"),
            );
        }
    }

    /// Parents that exist and do not loop; declared exceptions that are exceptions; method
    /// names unique in the whole chain of services.
    fn check_services(&mut self, file: FileId, doc: &ast::Document) {
        let mut found = Vec::new();
        for (index, def) in self.program.files[file.0 as usize].definitions.iter().enumerate() {
            let Def::Service(service) = def else { continue };
            let ast::Definition::Service(ast_service) = &doc.definitions[index] else { continue };
            let me = DefId { file, index };
            // The chain of parents.
            let mut chain = vec![me];
            let mut parent = service.extends;
            while let Some(p) = parent {
                if chain.contains(&p) {
                    found.push(
                        Diagnostic::error(service.span, format!("service `{}` extends itself", service.name))
                            .label("its chain of parents comes back to it"),
                    );
                    break;
                }
                chain.push(p);
                parent = match self.program.def(p) {
                    Def::Service(s) => s.extends,
                    _ => None,
                };
            }
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for f in &service.functions {
                if let Some(first) = seen.get(f.name.as_str()) {
                    found.push(
                        Diagnostic::error(
                            f.span,
                            format!("method `{}` is already defined in `{}`", f.name, service.name),
                        )
                        .label("defined again here")
                        .with_secondary(*first, "first defined here"),
                    );
                }
                seen.insert(&f.name, f.span);
            }
            for ancestor in chain.iter().skip(1) {
                let Def::Service(a) = self.program.def(*ancestor) else { continue };
                for f in &service.functions {
                    if let Some(inherited) = a.functions.iter().find(|g| g.name == f.name) {
                        found.push(
                            Diagnostic::error(
                                f.span,
                                format!("method `{}` is also defined by parent service `{}`", f.name, a.name),
                            )
                            .label("a service cannot redefine an inherited method")
                            .with_secondary(inherited.span, "inherited from here"),
                        );
                    }
                }
            }
            for (f, ast_f) in service.functions.iter().zip(&ast_service.functions) {
                for (field, ast_field) in f.throws.iter().zip(&ast_f.throws) {
                    let is_exception = match self.program.true_type(&field.ty) {
                        Type::Struct(id) => {
                            self.program.struct_def(*id).is_some_and(|s| s.kind == StructKind::Exception)
                        }
                        Type::Invalid => true,
                        _ => false,
                    };
                    if !is_exception {
                        found.push(
                            Diagnostic::error(
                                ast_field.ty.span,
                                format!("`{}` throws a type that is not an exception", f.name),
                            )
                            .label("only exceptions can be thrown"),
                        );
                    }
                }
                let span = ast_f.oneway_span.unwrap_or(f.span);
                if f.oneway && !f.throws.is_empty() {
                    found.push(
                        Diagnostic::error(span, format!("oneway method `{}` cannot throw exceptions", f.name))
                            .label("a oneway call gets no reply"),
                    );
                }
                if f.oneway && f.returns.is_some() {
                    found.push(
                        Diagnostic::warning(
                            ast_f.returns_span,
                            format!("oneway method `{}` should return `void`", f.name),
                        )
                        .label("ignored: a oneway call gets no reply")
                        .with_secondary(span, "oneway"),
                    );
                }
            }
        }
        for d in found {
            self.diags.push(d);
        }
    }
}
