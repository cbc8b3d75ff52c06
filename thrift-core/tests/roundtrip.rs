//! Property tests: for primitives, nested containers and structs, in both protocols,
//! `encoded_len` equals the bytes written, `decode(encode(x)) == x`, and `skip` consumes
//! exactly the encoded length (`thrift_core::testing::roundtrip`, hence the `proptest`
//! feature this test requires).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use common::{Fields, Inner, Rich};
use proptest::collection::{btree_map, btree_set, hash_map, hash_set, vec};
use proptest::prelude::*;
use thrift_core::testing::roundtrip;
use thrift_core::{
    skip, ApplicationException, ApplicationExceptionKind, Binary, Compact, Encode, Protocol, Reader, Uuid,
};

/// Doubles compared by bits, so every NaN payload must survive.
fn roundtrip_f64s_in<P: Protocol>(v: &Vec<f64>) -> Result<(), TestCaseError> {
    let buf = thrift_core::to_vec::<P, _>(v);
    prop_assert_eq!(buf.len(), v.encoded_len::<P>());
    let back: Vec<f64> = thrift_core::from_slice::<P, _>(&buf).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let bits = |v: &[f64]| v.iter().map(|d| d.to_bits()).collect::<Vec<u64>>();
    prop_assert_eq!(bits(&back), bits(v));
    let mut r = Reader::new(&buf);
    skip::<P>(&mut r, thrift_core::TType::List).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(r.position(), buf.len());
    for d in v {
        let buf = thrift_core::to_vec::<P, _>(d);
        prop_assert_eq!(buf.len(), 8);
        let back: f64 = thrift_core::from_slice::<P, _>(&buf).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.to_bits(), d.to_bits());
    }
    Ok(())
}

fn any_f64() -> impl Strategy<Value = f64> {
    // Every bit pattern: infinities, subnormals, both zeros, quiet and signalling NaNs.
    any::<u64>().prop_map(f64::from_bits)
}

fn any_app_exception() -> impl Strategy<Value = ApplicationException> {
    (any::<i32>(), ".{0,20}")
        .prop_map(|(code, msg)| ApplicationException::new(ApplicationExceptionKind::from_code(code), msg))
}

fn any_inner() -> impl Strategy<Value = Inner> {
    // Finite doubles: Inner compares with PartialEq.
    (any::<bool>(), -1e300f64..1e300, any::<Uuid>(), vec(any::<u8>(), 0..40), any::<bool>())
        .prop_map(|(on, ratio, uuid, blob, off)| Inner { on, ratio, uuid, blob, off })
}

fn any_rich() -> impl Strategy<Value = Rich> {
    (
        any::<i32>(),
        any::<String>(),
        any::<bool>(),
        vec(vec(any::<i64>(), 0..20), 0..20),
        btree_map(any::<String>(), vec(any::<i32>(), 0..20), 0..8),
        any_inner(),
        vec(any_app_exception(), 0..4),
        btree_set(any::<i16>(), 0..20),
        vec(any::<bool>(), 0..20),
        any::<i8>(),
    )
        .prop_map(|(id, name, flag, matrix, index, inner, errors, tags, bits, small)| Rich {
            id,
            name,
            flag,
            matrix,
            index,
            inner,
            errors,
            tags,
            bits,
            small,
        })
}

proptest! {
    #[test]
    fn bools(v in any::<bool>()) {
        roundtrip(&v)?;
    }

    #[test]
    fn integers(a in any::<i8>(), b in any::<i16>(), c in any::<i32>(), d in any::<i64>()) {
        roundtrip(&a)?;
        roundtrip(&b)?;
        roundtrip(&c)?;
        roundtrip(&d)?;
    }

    #[test]
    fn doubles_by_bits(v in vec(any_f64(), 0..20)) {
        roundtrip_f64s_in::<Binary>(&v)?;
        roundtrip_f64s_in::<Compact>(&v)?;
    }

    #[test]
    fn strings_with_any_unicode(v in any::<String>()) {
        roundtrip(&v)?;
        // Borrowed decoding gives the same text.
        let buf = thrift_core::to_vec::<Binary, _>(&v);
        prop_assert_eq!(thrift_core::from_slice::<Binary, &str>(&buf).unwrap(), v.as_str());
        let buf = thrift_core::to_vec::<Compact, _>(&v);
        prop_assert_eq!(thrift_core::from_slice::<Compact, &str>(&buf).unwrap(), v.as_str());
    }

    #[test]
    fn binaries(v in vec(any::<u8>(), 0..300)) {
        roundtrip(&v)?;
        roundtrip(&bytes::Bytes::from(v))?;
    }

    #[test]
    fn uuids(v in any::<Uuid>()) {
        roundtrip(&v)?;
    }

    #[test]
    fn nested_lists(v in vec(vec(any::<i64>(), 0..20), 0..20)) {
        roundtrip(&v)?;
    }

    #[test]
    fn maps_of_strings_to_lists(v in btree_map(any::<String>(), vec(any::<i32>(), 0..20), 0..20)) {
        roundtrip(&v)?;
    }

    #[test]
    fn sets(v in btree_set(any::<i16>(), 0..40), h in hash_set(".{0,8}", 0..20)) {
        roundtrip(&v)?;
        roundtrip::<HashSet<String>>(&h)?;
    }

    #[test]
    fn hash_maps(v in hash_map(any::<i32>(), any::<String>(), 0..20)) {
        roundtrip::<HashMap<i32, String>>(&v)?;
    }

    #[test]
    fn lists_of_binaries_bools_and_bytes(
        a in vec(vec(any::<u8>(), 0..20), 0..20),
        b in vec(any::<bool>(), 0..40),
        c in vec(any::<i8>(), 0..40),
    ) {
        roundtrip(&a)?;
        roundtrip(&b)?;
        roundtrip(&c)?;
    }

    #[test]
    fn deeper_nesting(v in vec(btree_map(any::<i8>(), vec(btree_set(any::<i64>(), 0..4), 0..4), 0..4), 0..4)) {
        roundtrip::<Vec<BTreeMap<i8, Vec<BTreeSet<i64>>>>>(&v)?;
    }

    #[test]
    fn fields_with_any_ids(
        bools in vec((any::<i16>(), any::<bool>()), 0..20),
        ints in vec((any::<i16>(), any::<i32>()), 0..20),
        nested in vec((any::<i16>(), vec((any::<i16>(), any::<bool>()), 0..4).prop_map(Fields)), 0..6),
    ) {
        // Any id sequence: negative, zero, decreasing, repeated, far apart; compact picks the
        // short or long header form each time, and bools fold into it.
        roundtrip(&Fields(bools))?;
        roundtrip(&Fields(ints))?;
        roundtrip(&Fields(nested))?;
    }

    #[test]
    fn application_exceptions(v in vec(any_app_exception(), 0..5)) {
        roundtrip(&v)?;
    }

    #[test]
    fn rich_structs(v in any_rich()) {
        roundtrip(&v)?;
    }
}
