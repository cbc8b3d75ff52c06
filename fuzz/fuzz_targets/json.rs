//! Hostile input to the JSON protocol: the transcoder to binary under the default limits
//! (bounded allocation, no panic), JSON re-encoding of what decodes, the message envelope
//! and body, and the buffered transport's message scanner.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    thrift_fuzz::checks::json(data);
});
