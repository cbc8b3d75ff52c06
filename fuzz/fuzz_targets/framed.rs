//! The framed transport's codec fed a hostile stream in arbitrary chunks, its frames
//! decoded as messages.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thrift_core::{Binary, Compact, Limits};
use thrift_fuzz::seeds::stream_input;

fuzz_target!(|data: &[u8]| {
    let Some((sel, seed, stream)) = stream_input(data) else { return };
    // Bit 1 of the selector: a small maximum frame size, so oversized frames are reachable.
    let max = if sel.rest() & 1 == 1 { 512 } else { Limits::DEFAULT_MAX_FRAME_LEN };
    if sel.compact() {
        thrift_fuzz::checks::framed::<Compact>(seed, max, stream);
    } else {
        thrift_fuzz::checks::framed::<Binary>(seed, max, stream);
    }
});
