//! Corrupted and random input: decoding and skipping never panic, and whenever a value
//! decodes, skipping the same bytes as its type succeeds and ends at the same offset.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use common::{Hex, Rich};
use proptest::prelude::*;
use thrift_core::{
    skip, ApplicationException, Binary, Compact, DecodeOwned, Encode, MessageHeader, MessageType, Protocol, Reader,
    TType,
};

/// Decodes and skips `input` as `T`; when decoding succeeds, skipping must too, at the same
/// end, and re-encoding the value must decode to an equal value.
fn consistent<P: Protocol, T>(input: &[u8]) -> Result<(), TestCaseError>
where
    T: Encode + DecodeOwned + PartialEq + Debug,
{
    let mut r = Reader::new(input);
    let decoded = T::decode::<P>(&mut r);
    let decoded_end = r.position();
    let mut r = Reader::new(input);
    let skipped = skip::<P>(&mut r, T::TTYPE);
    if let Ok(value) = decoded {
        prop_assert!(skipped.is_ok(), "{}: decoded {:?} but skip failed: {:?}", P::NAME, Hex(input), skipped);
        prop_assert_eq!(r.position(), decoded_end, "{}: decode and skip end apart on {:?}", P::NAME, Hex(input));
        let again = thrift_core::to_vec::<P, _>(&value);
        prop_assert_eq!(again.len(), value.encoded_len::<P>());
        let back: T = thrift_core::from_slice::<P, T>(&again).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, value);
    }
    Ok(())
}

/// Applies `(position, xor)` flips to a copy of `bytes`.
fn mutate(bytes: &[u8], flips: &[(usize, u8)]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for &(pos, xor) in flips {
        if !out.is_empty() {
            let i = pos % out.len();
            out[i] ^= xor;
        }
    }
    out
}

fn flips() -> impl Strategy<Value = Vec<(usize, u8)>> {
    proptest::collection::vec((any::<usize>(), 1u8..=255), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn corrupted_rich_structs(flips in flips(), cut in any::<prop::sample::Index>()) {
        for bytes in [thrift_core::to_vec::<Binary, _>(&Rich::sample()), thrift_core::to_vec::<Compact, _>(&Rich::sample())] {
            let m = mutate(&bytes, &flips);
            let m = &m[..cut.index(m.len() + 1)];
            if bytes[0] == 0x08 {
                consistent::<Binary, Rich>(m)?;
            } else {
                consistent::<Compact, Rich>(m)?;
            }
        }
    }

    #[test]
    fn corrupted_containers(flips in flips()) {
        let v: Vec<BTreeMap<String, Vec<i32>>> =
            vec![[("a".to_string(), vec![1, -1, 300]), ("é".to_string(), vec![])].into(), BTreeMap::new()];
        consistent::<Binary, Vec<BTreeMap<String, Vec<i32>>>>(&mutate(&thrift_core::to_vec::<Binary, _>(&v), &flips))?;
        consistent::<Compact, Vec<BTreeMap<String, Vec<i32>>>>(&mutate(&thrift_core::to_vec::<Compact, _>(&v), &flips))?;
        let e = vec![ApplicationException::new(thrift_core::ApplicationExceptionKind::InternalError, "x"); 3];
        consistent::<Binary, Vec<ApplicationException>>(&mutate(&thrift_core::to_vec::<Binary, _>(&e), &flips))?;
        consistent::<Compact, Vec<ApplicationException>>(&mutate(&thrift_core::to_vec::<Compact, _>(&e), &flips))?;
    }

    #[test]
    fn random_bytes(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        consistent::<Binary, Rich>(&input)?;
        consistent::<Compact, Rich>(&input)?;
        consistent::<Binary, Vec<Vec<bool>>>(&input)?;
        consistent::<Compact, Vec<Vec<bool>>>(&input)?;
        consistent::<Compact, BTreeMap<i16, Vec<u8>>>(&input)?;
        for ttype in [TType::Struct, TType::List, TType::Set, TType::Map, TType::String, TType::Bool, TType::Double] {
            let _ = skip::<Binary>(&mut Reader::new(&input), ttype);
            let _ = skip::<Compact>(&mut Reader::new(&input), ttype);
        }
        let _ = Binary::read_message_begin(&mut Reader::new(&input));
        let _ = Compact::read_message_begin(&mut Reader::new(&input));
    }

    #[test]
    fn corrupted_envelopes(flips in flips(), name in ".{0,8}", seqid in any::<i32>()) {
        let header = MessageHeader { name: &name, kind: MessageType::Call, seqid };
        let mut b = Vec::new();
        Binary::write_message_begin(&mut b, &header);
        let m = mutate(&b, &flips);
        let mut r = Reader::new(&m);
        if let Ok(h) = Binary::read_message_begin(&mut r) {
            // Whatever was read re-encodes to the bytes it came from, when strict, except
            // byte 2 of the version word, which is unused and ignored (as Apache does).
            if m[0] & 0x80 != 0 {
                let mut again = Vec::new();
                Binary::write_message_begin(&mut again, &h);
                let mut read = m[..r.position()].to_vec();
                read[2] = 0;
                prop_assert_eq!(again, read);
            }
        }
        let mut c = Vec::new();
        Compact::write_message_begin(&mut c, &header);
        let _ = Compact::read_message_begin(&mut Reader::new(&mutate(&c, &flips)));
    }
}
