//! Any text as an IDL file: thrift-build's parser and resolver, and its generator when the
//! text resolves, end in a program, generated code or diagnostics that render; never a
//! panic, a hang or code the generator cannot format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thrift_build::diagnostics::Diagnostics;
use thrift_build::{resolve, Config};

fuzz_target!(|data: &[u8]| {
    // IDL files are read as UTF-8 (`read_to_string`): other bytes never reach the parser.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut diags = Diagnostics::new();
    let program = resolve::load_str("fuzz.thrift", text, &mut diags);
    if diags.has_errors() {
        assert!(diags.render(&program.sources).contains("error"));
        return;
    }
    match Config::new().generate_program(&program, diags) {
        Ok(generated) => assert!(generated.files.iter().any(|f| f.path.ends_with("mod.rs"))),
        // A mistake only the generator sees (a key type no collection can hold) is fine;
        // Rust the generator itself could not parse back is a bug.
        Err(e) => assert!(!e.rendered().contains("generated invalid Rust"), "{e}"),
    }
});
