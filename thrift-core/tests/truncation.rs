//! A valid encoding cut at any byte offset is an error (never a panic, never a value) from
//! decoding and from skipping, in both protocols; the error points inside the input.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use common::{Fields, Hex, Rich};
use proptest::prelude::*;
use thrift_core::{
    skip, ApplicationException, ApplicationExceptionKind, Binary, Compact, DecodeOwned, Encode, ErrorKind, Protocol,
    Reader,
};

/// Decodes and skips every proper prefix of `value`'s encoding, expecting errors that say
/// the input ran out, at an offset within the prefix.
#[track_caller]
fn every_cut_fails<P: Protocol, T: Encode + DecodeOwned + PartialEq + Debug>(value: &T) {
    let bytes = thrift_core::to_vec::<P, _>(value);
    assert_eq!(thrift_core::from_slice::<P, T>(&bytes).unwrap(), *value, "{} full input", P::NAME);
    for cut in 0..bytes.len() {
        let prefix = &bytes[..cut];
        let context = || format!("{} cut at {cut} of {}: {:?}", P::NAME, bytes.len(), Hex(prefix));

        let err = match T::decode::<P>(&mut Reader::new(prefix)) {
            Ok(v) => panic!("{}: decoded {v:?}", context()),
            Err(e) => e,
        };
        assert!(ran_out(err.kind()), "{}: decode error {err}", context());
        assert!(err.offset().is_some_and(|o| o <= cut), "{}: decode error offset {err}", context());

        let err = match skip::<P>(&mut Reader::new(prefix), T::TTYPE) {
            Ok(()) => panic!("{}: skipped", context()),
            Err(e) => e,
        };
        assert!(ran_out(err.kind()), "{}: skip error {err}", context());
        assert!(err.offset().is_some_and(|o| o <= cut), "{}: skip error offset {err}", context());

        assert!(thrift_core::from_slice::<P, T>(prefix).is_err(), "{}: from_slice", context());
    }
}

/// Whether an error says the input ended early: directly, or as a declared length that the
/// remaining bytes cannot hold.
fn ran_out(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::Truncated { .. } | ErrorKind::LengthTooLarge { what: "bytes remaining", .. })
}

fn both<T: Encode + DecodeOwned + PartialEq + Debug>(value: &T) {
    every_cut_fails::<Binary, T>(value);
    every_cut_fails::<Compact, T>(value);
}

#[test]
fn rich_struct_cut_anywhere() {
    both(&Rich::sample());
}

#[test]
fn application_exceptions_in_containers_cut_anywhere() {
    let errors = vec![
        ApplicationException::new(ApplicationExceptionKind::InternalError, "boom"),
        ApplicationException::new(ApplicationExceptionKind::ProtocolError, "é".repeat(20)),
    ];
    both(&errors);
    both(&BTreeMap::from([("k".to_string(), errors.clone()), (String::new(), vec![])]));
    both(&Fields(vec![(1, errors.clone()), (300, errors), (-4, vec![])]));
}

#[test]
fn primitives_and_containers_cut_anywhere() {
    both(&i64::MIN);
    both(&i32::MIN);
    both(&i16::MIN);
    both(&-1.5f64);
    both(&"☕ coffee".to_string());
    both(&vec![0u8; 20]);
    both(&thrift_core::Uuid([3; 16]));
    both(&vec![true; 20]);
    both(&vec![vec![1i64 << 40; 3]; 16]);
    both(&Fields(vec![(1, true), (100, false), (-1, true)]));
}

#[test]
fn empty_input_is_truncated_for_every_type() {
    for ttype in [
        thrift_core::TType::Bool,
        thrift_core::TType::I8,
        thrift_core::TType::I16,
        thrift_core::TType::I32,
        thrift_core::TType::I64,
        thrift_core::TType::Double,
        thrift_core::TType::String,
        thrift_core::TType::Uuid,
        thrift_core::TType::Struct,
        thrift_core::TType::List,
        thrift_core::TType::Set,
        thrift_core::TType::Map,
    ] {
        for err in [common::skip_err::<Binary>(ttype, &[]), common::skip_err::<Compact>(ttype, &[])] {
            assert!(matches!(err.kind(), ErrorKind::Truncated { remaining: 0, .. }), "{ttype}: {err}");
            assert_eq!(err.offset(), Some(0));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn any_nested_value_cut_anywhere(
        v in proptest::collection::vec(
            proptest::collection::btree_map(".{0,4}", proptest::collection::vec(any::<i32>(), 0..5), 0..4),
            0..4,
        )
    ) {
        both(&v);
    }
}
