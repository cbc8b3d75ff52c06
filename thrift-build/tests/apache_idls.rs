//! Every IDL file of Apache Thrift 0.17's source tree (the compiler's test IDLs, the
//! language libraries' test IDLs, the tutorial...) parses and resolves, except the ones
//! Apache's own compiler rejects, which fail with a diagnostic that says why.
//!
//! Every truncation of the compiler's test IDLs (`test/*.thrift`) parses and resolves
//! without a panic: to a program or to errors.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve;

/// Files Apache's compiler rejects too, and the start of the first error each gives.
const REJECTED: &[(&str, &str)] = &[
    ("test/BrokenConstants.thrift", "integer too big: `9876543210987654321` does not fit in an i64"),
    // These include files by names that are only found with include paths Apache's own
    // build passes for them (one per directory of lib/rs/test_recursive/src). Without them
    // Apache warns of each missing include, as we do, and fails on the first name that
    // needs one.
    ("lib/rs/test_recursive/src/maintenance/MaintenanceFacility.thrift", "unknown service `Streetcars.Barn`"),
    ("lib/rs/test_recursive/src/transit/Buses.thrift", "unknown type `Vehicles.Capacity`"),
    ("lib/rs/test_recursive/src/transit/Transporters.thrift", "unknown type `Vehicles.Capacity`"),
    ("lib/rs/test_recursive/src/transit/light/LightRail.thrift", "unknown type `Vehicles.Material`"),
    ("lib/rs/test_recursive/src/transit/light/Streetcars.thrift", "unknown type `Vehicles.Material`"),
];

fn apache() -> PathBuf {
    thrift_tests::apache_src::apache_source().unwrap_or_else(|e| panic!("{e}")).clone()
}

#[test]
fn every_apache_idl_resolves_or_is_rejected_as_apache_rejects_it() {
    let root = apache();
    let files = thrift_tests::idl_corpus::thrift_files(&root);
    assert!(files.len() > 150, "only {} IDL files under {}", files.len(), root.display());
    let include_dirs = [root.join("test")];
    let mut failures = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let mut diags = Diagnostics::new();
        let program = resolve::load_files(std::slice::from_ref(file), &include_dirs, &mut diags);
        let first_error = diags.errors().next().map(|d| d.message.clone());
        match (REJECTED.iter().find(|(f, _)| *f == relative), first_error) {
            (None, None) => {}
            (None, Some(_)) => failures.push(format!("{relative} was rejected:\n{}", diags.render(&program.sources))),
            (Some(_), None) => failures.push(format!("{relative} was accepted, but Apache rejects it")),
            (Some((_, expected)), Some(message)) => {
                if !message.starts_with(expected) {
                    failures.push(format!("{relative}: first error `{message}`, expected `{expected}`"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn broken_constants_reports_each_mistake_with_its_place() {
    let file = apache().join("test/BrokenConstants.thrift");
    let mut diags = Diagnostics::new();
    let program = resolve::load_files(&[file], &[] as &[PathBuf], &mut diags);
    let rendered = diags.render(&program.sources);
    let errors: Vec<&str> = diags.errors().map(|d| d.message.as_str()).collect();
    assert_eq!(
        errors,
        [
            "integer too big: `9876543210987654321` does not fit in an i64",
            "enum value 68719476736 is out of range for an i32"
        ],
        "{rendered}"
    );
    assert!(rendered.contains("BrokenConstants.thrift:21:20"), "{rendered}");
    assert!(rendered.contains("const i64 broken = 9876543210987654321"), "{rendered}");
}

/// Reads from memory, so each truncation is parsed without touching the disk.
fn in_memory(files: &HashMap<PathBuf, String>) -> impl FnMut(&Path) -> io::Result<String> + '_ {
    move |p: &Path| files.get(p).cloned().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
}

#[test]
fn every_truncation_of_every_test_idl_ends_in_a_program_or_errors() {
    let test = apache().join("test");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&test)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "thrift"))
        .collect();
    paths.sort();
    let originals: HashMap<PathBuf, String> =
        paths.iter().map(|p| (p.clone(), std::fs::read_to_string(p).unwrap())).collect();
    let mut prefixes = 0usize;
    for path in &paths {
        let text = &originals[path];
        let mut files = originals.clone();
        // Every prefix that ends on a character boundary.
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            files.insert(path.clone(), text[..end].to_owned());
            let mut read = in_memory(&files);
            let mut diags = Diagnostics::new();
            let program =
                resolve::load_with(std::slice::from_ref(path), std::slice::from_ref(&test), &mut read, &mut diags);
            // Errors point inside their files (and a sample of them renders), or there
            // is a program.
            if diags.has_errors() {
                for d in diags.iter() {
                    if let Some((span, _)) = &d.primary {
                        assert!(
                            span.start <= span.end && span.end as usize <= program.sources.file(span.file).text.len()
                        );
                    }
                }
                if end % 101 == 0 {
                    assert!(diags.render(&program.sources).contains("error"));
                }
            } else {
                assert_eq!(program.roots.len(), 1, "{} cut at {end}", path.display());
            }
            prefixes += 1;
        }
    }
    assert!(prefixes > 50_000, "only {prefixes} prefixes");
}
