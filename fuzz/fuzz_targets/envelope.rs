//! Message envelopes from hostile input, in both protocols, and protocol detection on
//! every prefix.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thrift_core::{Binary, Compact};
use thrift_fuzz::checks::{detection, envelope};

fuzz_target!(|data: &[u8]| {
    envelope::<Binary>(data);
    envelope::<Compact>(data);
    // The same bytes after a frame prefix, as the framed transport hands them over.
    envelope::<Binary>(data.get(4..).unwrap_or_default());
    detection(data);
});
