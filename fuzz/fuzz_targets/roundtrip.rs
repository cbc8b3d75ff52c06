//! Decode, encode, decode: any value of the shapes that decodes from hostile input (in the
//! protocol and shape the first byte picks) re-encodes, in both protocols, at its reported
//! length, to bytes that decode to an equal value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((&sel, rest)) = data.split_first() {
        thrift_fuzz::checks::roundtrip_either(sel, rest);
    }
});
