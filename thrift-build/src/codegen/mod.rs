//! From a checked [`Program`] to Rust source: one module per IDL file, each a `syn::File`
//! built with `quote` and formatted by `prettyplease`, and a `mod.rs` that ties them
//! together. The code is what a person would write by hand with the derives.

mod analysis;
mod items;
mod names;
mod services;
mod values;

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::config::{BinaryType, Config, Layout};
use crate::diagnostics::{Diagnostic, Diagnostics, FileId};
use crate::resolve::{Def, DefId, Program, StructKind, Type};
use analysis::{Analysis, Collection};
use names::{convert, ident, Case, Namespace};

/// What a run generates.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The files, with paths relative to the output directory.
    pub files: Vec<GeneratedFile>,
    /// Every type and service generated from an IDL definition.
    pub items: Vec<GeneratedItem>,
    /// Every IDL file read (includes too).
    pub inputs: Vec<PathBuf>,
    /// The warnings, rendered.
    pub warnings: Vec<String>,
}

/// One generated file.
#[derive(Debug, Clone)]
pub struct GeneratedFile {
    /// Relative to the output directory.
    pub path: PathBuf,
    /// The Rust source.
    pub contents: String,
}

/// What kind of definition a [`GeneratedItem`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `enum`.
    Enum,
    /// `struct`.
    Struct,
    /// `union`.
    Union,
    /// `exception`.
    Exception,
    /// `typedef`.
    Typedef,
    /// `const`.
    Const,
    /// `service`: `rust_path` is the trait; the macro adds a module beside it (the trait's
    /// name in snake case) holding `Server`, `Client` and `Definition`.
    Service,
}

/// A definition of the IDL and the Rust item generated for it.
#[derive(Debug, Clone)]
pub struct GeneratedItem {
    /// The IDL file.
    pub idl_file: PathBuf,
    /// The IDL name.
    pub idl_name: String,
    /// What it is.
    pub kind: ItemKind,
    /// Its path from the root of the generated modules: `thrift_test::Xtruct`.
    pub rust_path: String,
}

/// What the generator knows about one service's Rust names.
#[derive(Clone, Default)]
struct ServiceNames {
    trait_name: String,
    /// Per method of the service itself (not inherited).
    methods: Vec<String>,
    args: Vec<Vec<String>>,
    /// The generated union of declared exceptions, when a method needs one.
    errors: Vec<Option<ErrorUnion>>,
}

#[derive(Clone)]
struct ErrorUnion {
    name: String,
    variants: Vec<String>,
}

/// Which imports a module needs.
#[derive(Default)]
struct Uses {
    btree_map: Cell<bool>,
    btree_set: Cell<bool>,
    hash_map: Cell<bool>,
    hash_set: Cell<bool>,
    bytes: Cell<bool>,
    shared_str: Cell<bool>,
    uuid: Cell<bool>,
    lazy_lock: Cell<bool>,
    derive_struct: Cell<bool>,
    derive_enum: Cell<bool>,
    derive_union: Cell<bool>,
    or_application: Cell<bool>,
    application_exception: Cell<bool>,
    ordered_double: Cell<bool>,
}

impl Uses {
    fn reset(&self) {
        for cell in [
            &self.btree_map,
            &self.btree_set,
            &self.hash_map,
            &self.hash_set,
            &self.bytes,
            &self.shared_str,
            &self.uuid,
            &self.lazy_lock,
            &self.derive_struct,
            &self.derive_enum,
            &self.derive_union,
            &self.or_application,
            &self.application_exception,
            &self.ordered_double,
        ] {
            cell.set(false);
        }
    }
}

pub(crate) struct Gen<'a> {
    program: &'a Program,
    config: &'a Config,
    analysis: Analysis,
    core: syn::Path,
    net: syn::Path,
    modules: Vec<String>,
    names: HashMap<DefId, String>,
    fields: HashMap<(DefId, usize), String>,
    /// Per enum value: the variant (an alias gets the variant of the first value with its number).
    variants: HashMap<(DefId, usize), String>,
    /// Per enum value that repeats an earlier number: its associated constant.
    aliases: HashMap<(DefId, usize), String>,
    /// Per open enum or union: its catch-all variant.
    unknown_variant: HashMap<DefId, String>,
    services: HashMap<DefId, ServiceNames>,
    type_attributes: Vec<(String, Vec<syn::Attribute>)>,
    field_attributes: Vec<(String, Vec<syn::Attribute>)>,
    uses: Uses,
    /// The file being generated.
    current: Cell<FileId>,
    /// Generating the fields of a struct held in a set element or map key: its sets and maps
    /// are BTree ones and its doubles `OrderedDouble`s, so that it is `Ord`.
    in_key_struct: Cell<bool>,
}

/// Generates every file of `program`; `None` (with diagnostics) when something cannot be
/// expressed in Rust.
pub fn generate(program: &Program, config: &Config, layout: Layout, diags: &mut Diagnostics) -> Option<Generated> {
    let core = parse_path(&config.core_crate, "core_crate", diags)?;
    let net = parse_path(&config.net_crate, "net_crate", diags)?;
    let type_attributes = parse_attributes(&config.type_attributes, diags)?;
    let field_attributes = parse_attributes(&config.field_attributes, diags)?;
    let mut gen = Gen {
        program,
        config,
        analysis: Analysis::new(program, config.map_type, config.set_type),
        core,
        net,
        modules: Vec::new(),
        names: HashMap::new(),
        fields: HashMap::new(),
        variants: HashMap::new(),
        aliases: HashMap::new(),
        unknown_variant: HashMap::new(),
        services: HashMap::new(),
        type_attributes,
        field_attributes,
        uses: Uses::default(),
        current: Cell::new(FileId(0)),
        in_key_struct: Cell::new(false),
    };
    gen.name_everything();
    let mut files = Vec::new();
    let mut items = Vec::new();
    let mut module_entries = Vec::new();
    for &file in &program.order {
        let (contents, file_items) = gen.file(file, layout, diags)?;
        let module = gen.modules[file.0 as usize].clone();
        let file_name = format!("{}.rs", names::unraw(&module));
        files.push(GeneratedFile { path: PathBuf::from(&file_name), contents });
        items.extend(file_items);
        module_entries.push((file, module, file_name));
    }
    files.push(GeneratedFile { path: PathBuf::from("mod.rs"), contents: gen.root(&module_entries, layout) });
    let inputs = program.files.iter().map(|f| f.path.clone()).collect();
    Some(Generated { files, items, inputs, warnings: Vec::new() })
}

fn parse_path(path: &str, option: &str, diags: &mut Diagnostics) -> Option<syn::Path> {
    match syn::parse_str::<syn::Path>(path) {
        Ok(p) => Some(p),
        Err(e) => {
            diags.push(Diagnostic::global(format!("`{option}(\"{path}\")` is not a Rust path: {e}")));
            None
        }
    }
}

fn parse_attributes(list: &[(String, String)], diags: &mut Diagnostics) -> Option<Vec<(String, Vec<syn::Attribute>)>> {
    let mut out = Vec::new();
    for (pattern, text) in list {
        let parsed = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, text);
        match parsed {
            Ok(attrs) => out.push((pattern.clone(), attrs)),
            Err(e) => {
                diags.push(Diagnostic::global(format!("`{text}` (for `{pattern}`) is not a Rust attribute: {e}")));
                return None;
            }
        }
    }
    Some(out)
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// The lints each generated module allows, because they are about choices the IDL makes.
const LINT_ALLOWS: &str = "#[allow(
    clippy::approx_constant,
    clippy::doc_lazy_continuation,
    clippy::enum_variant_names,
    clippy::large_enum_variant,
    clippy::should_implement_trait,
    clippy::too_many_arguments,
    clippy::type_complexity,
    rustdoc::bare_urls,
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags
)]
";

/// prettyplease's output with a blank line between top-level items, as rustfmt'd code
/// has (the `use` lines stay together).
fn space_items(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        let Some(next) = lines.get(i + 1) else { continue };
        let ends_item = !line.starts_with(char::is_whitespace)
            && !line.starts_with("//")
            && !line.starts_with('#')
            && (line.ends_with('}') || line.ends_with(';'));
        let starts_item = !next.is_empty() && !next.starts_with(char::is_whitespace) && !next.starts_with('}');
        let both_use = line.starts_with("use ") && next.starts_with("use ");
        if ends_item && starts_item && !both_use {
            out.push('\n');
        }
    }
    out
}

/// The lines of an IDL doc comment as rustdoc should read them: text rustdoc would read as
/// a code block (indented, or fenced) is fenced as `text`, so it is never run as a doctest.
fn doc_lines(doc: &str) -> Vec<String> {
    let mut lines: Vec<String> = doc.lines().map(str::to_owned).collect();
    let code_like = lines.iter().any(|l| l.starts_with("    ") || l.starts_with('\t')) || doc.contains("```");
    if code_like {
        let fence = if doc.contains("```") { "~~~" } else { "```" };
        lines.insert(0, format!("{fence}text"));
        lines.push(fence.to_owned());
    }
    lines
}

/// `#[doc = " line"]` for each line of an IDL doc comment ([`doc_lines`]).
fn doc_attrs(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc.filter(|d| !d.trim().is_empty()) else { return TokenStream::new() };
    let lines = doc_lines(doc);
    let attrs = lines.iter().map(|l| {
        let text = if l.is_empty() { String::new() } else { format!(" {l}") };
        quote!(#[doc = #text])
    });
    quote!(#(#attrs)*)
}

impl Gen<'_> {
    /// Names every module, type, field, variant, constant and method, file by file.
    fn name_everything(&mut self) {
        let program = self.program;
        let mut modules = Namespace::with_reserved(&["super", "crate", "self"]);
        self.modules = vec![String::new(); program.files.len()];
        for &file_id in &program.order {
            let file = program.file(file_id);
            let base = file
                .namespace("rs")
                .filter(|_| file.namespaces.iter().any(|(s, _)| s == "rs"))
                .map_or_else(|| convert(&file.name, Case::Snake), |ns| convert(&ns.replace('.', "_"), Case::Snake));
            self.modules[file_id.0 as usize] = modules.claim(base);
        }
        for &file_id in &program.order {
            let file = program.file(file_id);
            let mut types = Namespace::with_reserved(names::RESERVED_TYPES);
            let mut values = Namespace::default();
            // Services first: the macro derives names from theirs that must stay free. In
            // each service's module the generated items would shadow this file's types of
            // the same names: none gets one.
            let shadowed = ["Server", "Client", "Definition", "IDEMPOTENT_METHODS"].map(String::from);
            let args = file.definitions.iter().enumerate().filter(|(_, def)| matches!(def, Def::Service(_))).flat_map(
                |(index, _)| {
                    let names = self.method_names(DefId { file: file_id, index });
                    names.iter().map(|m| format!("{}Args", names::macro_camel(m))).collect::<Vec<_>>()
                },
            );
            for name in shadowed.into_iter().chain(args) {
                if types.is_free(&name) {
                    types.take(&name);
                }
            }
            for (index, def) in file.definitions.iter().enumerate() {
                let Def::Service(s) = def else { continue };
                let id = DefId { file: file_id, index };
                let base = convert(&s.name, Case::Camel);
                let mut candidate = base.clone();
                let mut n = 1;
                loop {
                    let module = names::macro_snake(&candidate);
                    if types.is_free(&candidate) && types.is_free(&module) {
                        types.take(&candidate);
                        types.take(&module);
                        break;
                    }
                    candidate = format!("{base}Service{}", if n == 1 { String::new() } else { n.to_string() });
                    n += 1;
                }
                self.names.insert(id, candidate);
            }
            for (index, def) in file.definitions.iter().enumerate() {
                let id = DefId { file: file_id, index };
                match def {
                    Def::Service(_) => {}
                    Def::Const(c) => {
                        let name = values.claim(convert(&c.name, Case::Shouty));
                        self.names.insert(id, name);
                    }
                    _ => {
                        let name = types.claim(convert(def.name(), Case::Camel));
                        self.names.insert(id, name);
                    }
                }
                match def {
                    Def::Struct(s) => {
                        let mut ns = Namespace::default();
                        let case = if s.kind == StructKind::Union { Case::Camel } else { Case::Snake };
                        for (i, f) in s.fields.iter().enumerate() {
                            self.fields.insert((id, i), ns.claim(convert(&f.name, case)));
                        }
                        if s.kind == StructKind::Union {
                            self.unknown_variant.insert(id, ns.claim("Unknown".into()));
                        }
                    }
                    Def::Enum(e) => {
                        let mut ns = Namespace::default();
                        let mut first_with: HashMap<i32, usize> = HashMap::new();
                        for (i, v) in e.values.iter().enumerate() {
                            if let Some(&first) = first_with.get(&v.value) {
                                let name = self.variants[&(id, first)].clone();
                                self.variants.insert((id, i), name);
                            } else {
                                first_with.insert(v.value, i);
                                self.variants.insert((id, i), ns.claim(convert(&v.name, Case::Camel)));
                            }
                        }
                        for (i, v) in e.values.iter().enumerate() {
                            if first_with.get(&v.value) != Some(&i) {
                                self.aliases.insert((id, i), ns.claim(convert(&v.name, Case::Shouty)));
                            }
                        }
                        self.unknown_variant.insert(id, ns.claim("Other".into()));
                    }
                    _ => {}
                }
            }
            // Method, argument and exception-union names, now that every type has its name.
            for (index, def) in file.definitions.iter().enumerate() {
                let Def::Service(s) = def else { continue };
                let id = DefId { file: file_id, index };
                let trait_name = self.names[&id].clone();
                let mut methods = Namespace::with_reserved(&["new", "channel"]);
                for inherited in self.inherited_methods(id) {
                    methods.take(&inherited);
                }
                let mut names = ServiceNames { trait_name: trait_name.clone(), ..ServiceNames::default() };
                for f in &s.functions {
                    let method = methods.claim(convert(&f.name, Case::Snake));
                    let mut args_ns = Namespace::with_reserved(&["self"]);
                    names.args.push(f.args.iter().map(|a| args_ns.claim(convert(&a.name, Case::Snake))).collect());
                    let error = self.needs_error_union(f).then(|| {
                        let name = types.claim(format!("{trait_name}{}Error", names::macro_camel(&method)));
                        let mut variants = Namespace::default();
                        let variants = f.throws.iter().map(|t| variants.claim(convert(&t.name, Case::Camel))).collect();
                        ErrorUnion { name, variants }
                    });
                    names.errors.push(error);
                    names.methods.push(method);
                }
                self.services.insert(id, names);
            }
        }
    }

    /// The snake_case names a service's own methods will get (before uniqueness), for
    /// reserving the macro's `…Args` names.
    fn method_names(&self, id: DefId) -> Vec<String> {
        let Def::Service(s) = self.program.def(id) else { return Vec::new() };
        let mut all: Vec<String> = self.inherited_methods(id);
        let mut ns = Namespace::with_reserved(&["new", "channel"]);
        for m in &all {
            ns.take(m);
        }
        all.extend(s.functions.iter().map(|f| ns.claim(convert(&f.name, Case::Snake))));
        all
    }

    /// The Rust names of every method inherited by service `id`, from its root ancestor down.
    fn inherited_methods(&self, id: DefId) -> Vec<String> {
        let mut out = Vec::new();
        for ancestor in self.ancestors(id) {
            if let Some(names) = self.services.get(&ancestor) {
                out.extend(names.methods.iter().cloned());
            }
        }
        out
    }

    /// The parents of `id`, the root first.
    fn ancestors(&self, id: DefId) -> Vec<DefId> {
        let mut chain = Vec::new();
        let mut parent = match self.program.def(id) {
            Def::Service(s) => s.extends,
            _ => None,
        };
        while let Some(p) = parent {
            if chain.contains(&p) || p == id {
                break;
            }
            chain.push(p);
            parent = match self.program.def(p) {
                Def::Service(s) => s.extends,
                _ => None,
            };
        }
        chain.reverse();
        chain
    }

    /// Whether a method's `throws` needs a generated union: anything but one exception
    /// at id 1 named `err`, which the exception struct itself expresses.
    fn needs_error_union(&self, f: &crate::resolve::Function) -> bool {
        match f.throws.as_slice() {
            [] => false,
            [one] => !(one.id == 1 && one.name == "err"),
            _ => true,
        }
    }

    // ---- paths and types ----------------------------------------------------------------

    /// The path to definition `id` from the module being generated.
    fn def_path(&self, id: DefId) -> TokenStream {
        let name = ident(&self.names[&id]);
        if id.file == self.current.get() {
            quote!(#name)
        } else {
            let module = ident(&self.modules[id.file.0 as usize]);
            quote!(super::#module::#name)
        }
    }

    /// The Rust type of `ty`.
    fn rust_type(&self, ty: &Type) -> TokenStream {
        self.rust_type_in(ty, false)
    }

    /// The Rust type of `ty`, inside a set element or map key when `key`: there (and in
    /// the fields of a struct held in one) a `double` is an `OrderedDouble`, and a typedef
    /// holding one is spelled out.
    fn rust_type_in(&self, ty: &Type, key: bool) -> TokenStream {
        let ordered = self.ordered(key);
        match ty {
            Type::Bool => quote!(bool),
            Type::I8 => quote!(i8),
            Type::I16 => quote!(i16),
            Type::I32 => quote!(i32),
            Type::I64 => quote!(i64),
            Type::Double if ordered => {
                self.uses.ordered_double.set(true);
                quote!(OrderedDouble)
            }
            Type::Double => quote!(f64),
            Type::String => self.string_type(),
            Type::Binary => match self.config.binary_type {
                BinaryType::Vec => quote!(Vec<u8>),
                BinaryType::Bytes => {
                    self.uses.bytes.set(true);
                    quote!(Bytes)
                }
            },
            Type::Uuid => {
                self.uses.uuid.set(true);
                quote!(Uuid)
            }
            Type::List(e) => {
                let e = self.rust_type_in(e, key);
                quote!(Vec<#e>)
            }
            Type::Set(e) => {
                let collection = self.set_collection(e, key);
                let e = self.rust_type_in(e, true);
                quote!(#collection<#e>)
            }
            Type::Map(k, v) => {
                let collection = self.map_collection(k, key);
                let (k, v) = (self.rust_type_in(k, true), self.rust_type_in(v, key));
                quote!(#collection<#k, #v>)
            }
            Type::Typedef(id) if ordered && self.analysis.has_loose_double(self.program, ty) => {
                match self.program.def(*id) {
                    Def::Typedef(t) => self.rust_type_in(&t.ty, true),
                    _ => self.def_path(*id),
                }
            }
            Type::Typedef(id) | Type::Enum(id) | Type::Struct(id) => self.def_path(*id),
            Type::Invalid => quote!(()),
        }
    }

    fn string_type(&self) -> TokenStream {
        match &self.config.string_type {
            None => {
                self.uses.shared_str.set(true);
                quote!(SharedStr)
            }
            Some(path) => syn::parse_str::<syn::Type>(path).map_or_else(|_| quote!(String), |t| quote!(#t)),
        }
    }

    /// Whether a `double` is an `OrderedDouble` and a set or map a BTree one here: inside a
    /// set element or map key (`key`), or in the fields of a struct held in one.
    fn ordered(&self, key: bool) -> bool {
        key || self.in_key_struct.get()
    }

    /// Runs `f` with the collections of struct `id`'s fields chosen as its fields need.
    fn in_struct<R>(&self, id: DefId, f: impl FnOnce() -> R) -> R {
        let before = self.in_key_struct.replace(self.analysis.is_key_struct(id));
        let out = f();
        self.in_key_struct.set(before);
        out
    }

    fn set_collection(&self, elem: &Type, key: bool) -> TokenStream {
        match self.analysis.set_collection(self.program, elem, self.ordered(key)) {
            Collection::BTree => {
                self.uses.btree_set.set(true);
                quote!(BTreeSet)
            }
            Collection::Hash => {
                self.uses.hash_set.set(true);
                quote!(HashSet)
            }
        }
    }

    fn map_collection(&self, key_type: &Type, key: bool) -> TokenStream {
        match self.analysis.map_collection(self.program, key_type, self.ordered(key)) {
            Collection::BTree => {
                self.uses.btree_map.set(true);
                quote!(BTreeMap)
            }
            Collection::Hash => {
                self.uses.hash_map.set(true);
                quote!(HashMap)
            }
        }
    }

    /// The configured attributes for IDL path `path`.
    fn attributes_for(list: &[(String, Vec<syn::Attribute>)], path: &str) -> TokenStream {
        let attrs = list.iter().filter(|(pattern, _)| glob(pattern, path)).flat_map(|(_, attrs)| attrs.iter());
        quote!(#(#attrs)*)
    }

    // ---- files ----------------------------------------------------------------------------

    /// One module's source and the items it defines.
    fn file(&self, file_id: FileId, layout: Layout, diags: &mut Diagnostics) -> Option<(String, Vec<GeneratedItem>)> {
        self.current.set(file_id);
        self.uses.reset();
        let file = self.program.file(file_id);
        let module = &self.modules[file_id.0 as usize];
        let mut body = TokenStream::new();
        let mut items = Vec::new();
        for (index, def) in file.definitions.iter().enumerate() {
            let id = DefId { file: file_id, index };
            let (tokens, kind) = match def {
                Def::Const(c) => (self.constant(id, c, diags)?, ItemKind::Const),
                Def::Typedef(t) => (self.typedef(id, t), ItemKind::Typedef),
                Def::Enum(e) => (self.enumeration(id, e), ItemKind::Enum),
                Def::Struct(s) => {
                    let kind = match s.kind {
                        StructKind::Struct => ItemKind::Struct,
                        StructKind::Union => ItemKind::Union,
                        StructKind::Exception => ItemKind::Exception,
                    };
                    (self.in_struct(id, || self.structure(id, s, diags))?, kind)
                }
                Def::Service(s) => (self.service(id, s, diags), ItemKind::Service),
            };
            body.extend(tokens);
            items.push(GeneratedItem {
                idl_file: file.path.clone(),
                idl_name: def.name().to_owned(),
                kind,
                rust_path: format!("{}::{}", module, self.names[&id]),
            });
        }
        let imports = self.imports();
        let tokens = quote!(#imports #body);
        let syntax = match syn::parse2::<syn::File>(tokens) {
            Ok(f) => f,
            Err(e) => {
                // A bug of this generator, never of the input: say so rather than panic.
                diags.push(Diagnostic::global(format!(
                    "thrift-build generated invalid Rust for {}: {e}; please report this",
                    file.path.display()
                )));
                return None;
            }
        };
        let mut text = String::new();
        let source_name = file.path.file_name().map_or_else(|| file.name.clone(), |n| n.to_string_lossy().into_owned());
        match layout {
            Layout::Modules => {
                if let Some(doc) = &file.doc {
                    for line in doc_lines(doc) {
                        text.push_str(&format!("//!{}{line}\n", if line.is_empty() { "" } else { " " }));
                    }
                    text.push_str("//!\n");
                }
                text.push_str(&format!("//! Generated by thrift-build from `{source_name}`. Do not edit.\n\n"));
            }
            Layout::Include => {
                text.push_str(&format!("// Generated by thrift-build from `{source_name}`. Do not edit.\n\n"))
            }
        }
        text.push_str(&space_items(&prettyplease::unparse(&syntax)));
        Some((text, items))
    }

    /// The `use` lines the module needs, sorted.
    fn imports(&self) -> TokenStream {
        let u = &self.uses;
        let core = &self.core;
        let mut std_collections = Vec::new();
        if u.btree_map.get() {
            std_collections.push(quote!(BTreeMap));
        }
        if u.btree_set.get() {
            std_collections.push(quote!(BTreeSet));
        }
        if u.hash_map.get() {
            std_collections.push(quote!(HashMap));
        }
        if u.hash_set.get() {
            std_collections.push(quote!(HashSet));
        }
        let mut out = TokenStream::new();
        if !std_collections.is_empty() {
            out.extend(quote!(use std::collections::{#(#std_collections),*};));
        }
        if u.lazy_lock.get() {
            out.extend(quote!(
                use std::sync::LazyLock;
            ));
        }
        let mut core_items = Vec::new();
        if u.bytes.get() {
            core_items.push(quote!(bytes::Bytes));
        }
        if u.shared_str.get() {
            core_items.push(quote!(SharedStr));
        }
        if u.application_exception.get() {
            core_items.push(quote!(ApplicationException));
        }
        if u.or_application.get() {
            core_items.push(quote!(OrApplication));
        }
        if u.derive_enum.get() {
            core_items.push(quote!(ThriftEnum));
        }
        if u.derive_struct.get() {
            core_items.push(quote!(ThriftStruct));
        }
        if u.derive_union.get() {
            core_items.push(quote!(ThriftUnion));
        }
        if u.ordered_double.get() {
            core_items.push(quote!(OrderedDouble));
        }
        if u.uuid.get() {
            core_items.push(quote!(Uuid));
        }
        if !core_items.is_empty() {
            out.extend(quote!(use #core::{#(#core_items),*};));
        }
        out
    }

    /// `mod.rs`: every module, in the order of the files, with its doc comment.
    fn root(&self, modules: &[(FileId, String, String)], layout: Layout) -> String {
        let mut text = String::from("// Generated by thrift-build. Do not edit.\n");
        for (file_id, module, file_name) in modules {
            let file = self.program.file(*file_id);
            text.push('\n');
            // The IDL chooses these names, types, constants and doc comments: lints
            // about them are for whoever owns the IDL, not for the crate using the code.
            if layout == Layout::Include {
                if let Some(doc) = &file.doc {
                    for line in doc_lines(doc) {
                        text.push_str(&format!("///{}{line}\n", if line.is_empty() { "" } else { " " }));
                    }
                }
                text.push_str(LINT_ALLOWS);
                text.push_str(&format!("pub mod {module} {{\n    include!(\"{file_name}\");\n}}\n"));
            } else {
                text.push_str(LINT_ALLOWS);
                text.push_str(&format!("pub mod {module};\n"));
            }
        }
        text
    }
}
