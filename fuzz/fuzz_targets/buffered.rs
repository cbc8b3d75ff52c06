//! The buffered transport's skip-decoding codec fed a hostile stream in arbitrary chunks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thrift_core::{Binary, Compact};
use thrift_fuzz::seeds::stream_input;

fuzz_target!(|data: &[u8]| {
    let Some((sel, seed, stream)) = stream_input(data) else { return };
    if sel.compact() {
        thrift_fuzz::checks::buffered::<Compact>(seed, stream);
    } else {
        thrift_fuzz::checks::buffered::<Binary>(seed, stream);
    }
});
