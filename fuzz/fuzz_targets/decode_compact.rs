//! A [`Rich`](thrift_fuzz::shapes::Rich) struct decoded from hostile compact input: bounded
//! allocation, decode and skip agree, and what decodes re-encodes to an equal value.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use thrift_core::{Binary, Compact};
use thrift_fuzz::checks::{decode_agrees, reencodes};
use thrift_fuzz::shapes::Rich;

fuzz_target!(|data: &[u8]| {
    let input = Bytes::copy_from_slice(data);
    if let Ok(v) = decode_agrees::<Compact, Rich<'_>>(&input) {
        reencodes::<Binary, Compact, _>(
            &v,
            |b| thrift_core::from_slice::<Binary, Rich<'_>>(b).map(|w| w == v),
            |b| thrift_core::from_slice::<Compact, Rich<'_>>(b).map(|w| w == v),
        );
    }
});
