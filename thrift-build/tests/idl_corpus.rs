//! The IDL corpus (`thrift_tests::idl_corpus`: the `.thrift` files six other projects
//! publish) and Apache's own test IDLs against Apache's compiler 0.17:
//!
//! - every file Apache accepts, thrift-build generates, and the Rust compiles with warnings
//!   denied (the `thrift-build-corpus` fixture crate);
//! - every file Apache rejects, thrift-build rejects too, except where the reason is one
//!   of the few it accepts on purpose ([`ACCEPTED_ON_PURPOSE`]);
//! - for every file both accept, thrift-build's resolved model equals the one Apache's
//!   compiler writes with `thrift --gen json`, field by field;
//! - a model with one field id flipped does not.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use thrift_build::diagnostics::Diagnostics;
use thrift_build::resolve::{self, Def, Program};
use thrift_tests::apache_model::{self, Verdict};
use thrift_tests::{apache_src, idl_corpus};

/// Apache 0.17 rejects these, and thrift-build reads them on purpose: by the start of
/// Apache's message, and why.
const ACCEPTED_ON_PURPOSE: &[(&str, &str)] = &[
    ("Type \"uuid\" not defined", "`uuid` is Apache's type from 0.19 on"),
    ("\"senum\" is no longer supported", "Apache's compilers before 0.17 read `senum` (as a string), with a warning"),
    ("\"slist\" is no longer supported", "Apache's compilers before 0.17 read `slist` (as a string), with a warning"),
    (
        "Cannot use reserved language keyword",
        "a word every generator of Apache's reserves for its language; generated Rust escapes it (`r#fn`, or `self_` with `#[thrift(name)]`)",
    ),
];

/// The corpus, by path relative to its folder.
fn corpus_files() -> (PathBuf, Vec<PathBuf>) {
    let root = idl_corpus::corpus().unwrap_or_else(|e| panic!("{e}")).clone();
    let files = idl_corpus::thrift_files(&root);
    assert!(files.len() > 100, "only {} files in {}", files.len(), root.display());
    for (project, _) in idl_corpus::PROJECTS {
        assert!(!idl_corpus::thrift_files(&root.join(project)).is_empty(), "no files of {project}");
    }
    (root, files)
}

fn load(file: &Path, include_dirs: &[PathBuf]) -> (Program, Diagnostics) {
    let mut diags = Diagnostics::new();
    let program = resolve::load_files(&[file.to_path_buf()], include_dirs, &mut diags);
    (program, diags)
}

#[test]
fn every_corpus_idl_apache_accepts_generates_and_compiles_and_what_it_rejects_is_rejected() {
    let root = idl_corpus::corpus().unwrap_or_else(|e| panic!("{e}"));
    let generated = thrift_build_corpus::GENERATED;
    let mut failures = Vec::new();
    let mut accepted = 0;
    let mut files = 0;
    for (file, _, verdict) in verdicts().iter().filter(|(file, ..)| file.starts_with(root)) {
        files += 1;
        let relative = file.strip_prefix(root).unwrap().display().to_string();
        let ours = generated.contains(&relative.as_str());
        match verdict {
            Verdict::Model(_) | Verdict::AcceptedWithoutModel(_) => {
                accepted += 1;
                if !ours {
                    let (program, diags) = load(file, &[]);
                    failures.push(format!(
                        "{relative}: Apache accepts it, thrift-build does not:\n{}",
                        diags.render(&program.sources)
                    ));
                }
            }
            Verdict::Rejected(message) => {
                let on_purpose = ACCEPTED_ON_PURPOSE.iter().find(|(start, _)| message.contains(start));
                if ours && on_purpose.is_none() {
                    failures.push(format!("{relative}: Apache rejects it, thrift-build accepts it:\n{message}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(accepted > 70, "Apache accepts only {accepted} of {files} files");
}

/// The corpus and Apache's compiler test IDLs and tutorial, each with the include path
/// Apache's own build gives it and Apache's verdict, asked once for every test.
fn verdicts() -> &'static [(PathBuf, Vec<PathBuf>, Verdict)] {
    static VERDICTS: OnceLock<Vec<(PathBuf, Vec<PathBuf>, Verdict)>> = OnceLock::new();
    VERDICTS.get_or_init(|| {
        files()
            .into_iter()
            .map(|(file, include_dirs)| {
                let verdict = apache_model::verdict(&file, &include_dirs);
                (file, include_dirs, verdict)
            })
            .collect()
    })
}

fn files() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let (_, corpus) = corpus_files();
    let apache = apache_src::apache_source().unwrap_or_else(|e| panic!("{e}")).clone();
    let mut out: Vec<(PathBuf, Vec<PathBuf>)> = corpus.into_iter().map(|f| (f, Vec::new())).collect();
    for dir in ["test", "tutorial"] {
        let files = idl_corpus::thrift_files(&apache.join(dir));
        out.extend(
            files.into_iter().filter(|f| f.parent() == Some(&apache.join(dir))).map(|f| (f, vec![apache.join("test")])),
        );
    }
    out
}

#[test]
fn our_model_of_every_file_equals_apaches() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for (file, include_dirs, verdict) in verdicts() {
        let Verdict::Model(apache) = verdict else { continue };
        let (program, diags) = load(file, include_dirs);
        if diags.has_errors() {
            continue; // the test above names it
        }
        let ours = apache_model::ours(&program, program.roots[0]);
        let differences = apache_model::diff(apache, &ours);
        if !differences.is_empty() {
            failures.push(format!("{}:\n  {}", file.display(), differences.join("\n  ")));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{} of {compared} files differ:\n{}", failures.len(), failures.join("\n\n"));
    assert!(compared > 90, "only {compared} files compared");
}

/// The comparison can fail: one field id changed in our model is named.
#[test]
fn a_flipped_field_id_fails_the_comparison() {
    let file = apache_src::apache_file("test/ThriftTest.thrift");
    let include_dirs = [file.parent().unwrap().to_path_buf()];
    let Verdict::Model(apache) = apache_model::verdict(&file, &include_dirs) else {
        panic!("Apache rejects {}", file.display())
    };
    let (mut program, _) = load(&file, &include_dirs);
    let root = program.roots[0];
    assert!(apache_model::diff(&apache, &apache_model::ours(&program, root)).is_empty());
    let xtruct = program.files[root.0 as usize]
        .definitions
        .iter_mut()
        .find_map(|d| match d {
            Def::Struct(s) if s.name == "Xtruct" => Some(s),
            _ => None,
        })
        .unwrap();
    xtruct.fields[1].id = 5;
    let differences = apache_model::diff(&apache, &apache_model::ours(&program, root));
    assert_eq!(differences, [".structs[Xtruct].fields[byte_thing].key: apache 4, ours 5"]);
}
