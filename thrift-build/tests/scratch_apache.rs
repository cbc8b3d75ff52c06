use std::path::PathBuf;
use thrift_build::diagnostics::Diagnostics;

#[test]
fn scratch() {
    let root = thrift_tests::apache_src::apache_source().unwrap().clone();
    let mut files: Vec<PathBuf> = Vec::new();
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out)
            } else if p.extension().is_some_and(|e| e == "thrift") {
                out.push(p)
            }
        }
    }
    walk(&root, &mut files);
    files.sort();
    let incs = vec![root.join("test"), root.join("lib/rs/test_recursive/src")];
    for f in &files {
        let mut d = Diagnostics::new();
        let p = thrift_build::resolve::load_files(&[f.clone()], &incs, &mut d);
        if d.has_errors() {
            println!("=== {}\n{}", f.display(), d.render(&p.sources));
        }
    }
}
