//! Skipping a value of the type the first byte picks (STOP and VOID included) in the
//! protocol it picks: no panic, no allocation beyond the walk's stack, and a value that
//! skips in N bytes fails to skip when cut shorter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thrift_core::{Binary, Compact};
use thrift_fuzz::checks::skip_walks;
use thrift_fuzz::seeds::{Selector, SKIP_TYPES};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let sel = Selector(sel);
    let ttype = SKIP_TYPES[sel.rest() as usize % SKIP_TYPES.len()];
    if sel.compact() {
        skip_walks::<Compact>(ttype, rest);
    } else {
        skip_walks::<Binary>(ttype, rest);
    }
});
