//! Generates Rust for every test IDL of Apache's compiler (`test/*.thrift`, the keyword
//! samples) that Apache accepts, with the default options; and for a few of them again
//! with every option turned the other way. Also writes `registry.rs`: for each IDL file,
//! the IDL its generated types and services export, for the round-trip test.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use thrift_build::{BinaryType, Config, ItemKind, Layout, MapType, SetType};

/// Deliberately broken: Apache's compiler rejects it too.
const BROKEN: &[&str] = &["BrokenConstants.thrift"];

/// The files generated a second time with the other options.
const ALT: &[&str] =
    &["ThriftTest.thrift", "Recursive.thrift", "ConstantsDemo.thrift", "EnumTest.thrift", "SmallTest.thrift"];

fn main() {
    let apache = thrift_tests::apache_src::apache_source().unwrap_or_else(|e| panic!("{e}"));
    let test = apache.join("test");
    let keywords = apache.join("compiler/cpp/test/keyword-samples");
    let mut files = thrift_files(&test);
    files.retain(|f| !BROKEN.iter().any(|b| f.ends_with(b)));
    files.extend(thrift_files(&keywords));
    // The snapshot test's IDL, so the code it pins is known to compile.
    let snapshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../snapshots");
    files.extend(thrift_files(&snapshots));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));

    // Apache's files warn (ids left out, `byte`): true, and not this crate's concern.
    let generated =
        Config::new().cargo_warnings(false).compile(&files, &[&test, &snapshots]).unwrap_or_else(|e| panic!("{e}"));

    let alt_files: Vec<PathBuf> = ALT.iter().map(|f| test.join(f)).collect();
    Config::new()
        .cargo_warnings(false)
        .out_dir(out.join("alt"))
        .layout(Layout::Include)
        .string_type("String")
        .binary_type(BinaryType::Bytes)
        .map_type(MapType::HashMap)
        .set_type(SetType::HashSet)
        .open_enums(false)
        .application_errors(true)
        .type_attribute("ThriftTest.Xtruct*", "#[doc = \"A type attribute from the config.\"]")
        .field_attribute("ThriftTest.Xtruct.string_thing", "#[doc = \"A field attribute from the config.\"]")
        .compile(&alt_files, &[&test])
        .unwrap_or_else(|e| panic!("{e}"));

    // For each IDL file: `Idl::new().add::<T>()...` over its types and services.
    let mut registry = String::from("/// The IDL each generated file's types and services export, by IDL file name.\n");
    registry.push_str("pub fn exported() -> Vec<(&'static str, String)> {\n    let mut out = Vec::new();\n");
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let mut adds = String::new();
        for item in generated.items.iter().filter(|i| i.idl_file.file_name() == file.file_name()) {
            match item.kind {
                ItemKind::Enum | ItemKind::Struct | ItemKind::Union | ItemKind::Exception => {
                    let _ = writeln!(adds, "        idl.add::<crate::gen::{}>();", item.rust_path);
                }
                ItemKind::Service => {
                    let (module, service) = item.rust_path.rsplit_once("::").unwrap_or(("", &item.rust_path));
                    let path = format!("{module}::{}", service_module(service)).trim_start_matches("::").to_owned();
                    let _ = writeln!(adds, "        idl.add_service::<crate::gen::{path}::Definition>();");
                }
                ItemKind::Typedef | ItemKind::Const => {}
            }
        }
        let mutable = if adds.is_empty() { "" } else { "mut " };
        let _ = writeln!(
            registry,
            "    {{\n        let {mutable}idl = thrift_core::Idl::new();\n{adds}        out.push(({name:?}, idl.render()));\n    }}"
        );
    }
    registry.push_str("    out\n}\n");
    std::fs::write(out.join("registry.rs"), registry).expect("OUT_DIR is writable");
}

fn thrift_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "thrift"))
        .collect();
    files.sort();
    files
}

/// The module `#[service]` puts a service's generated items in: its trait's name in snake
/// case, a word starting at each capital.
fn service_module(service: &str) -> String {
    let mut module = String::new();
    for c in service.chars() {
        if c.is_uppercase() && !module.is_empty() && !module.ends_with('_') {
            module.push('_');
        }
        module.extend(c.to_lowercase());
    }
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for",
        "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct",
        "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
        "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    match KEYWORDS.contains(&module.as_str()) {
        true => format!("r#{module}"),
        false => module,
    }
}
