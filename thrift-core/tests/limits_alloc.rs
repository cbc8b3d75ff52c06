//! Declared lengths are checked before anything is allocated: a huge declared list, string
//! or map length with a few bytes behind it errors without allocating for it, negative
//! lengths error, and the configured `Limits` bound strings and containers.
//!
//! A counting global allocator (per thread, so parallel tests do not disturb each other)
//! measures the bytes each call allocates.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;

use bytes::Bytes;
use common::Hex;
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{
    skip, ApplicationException, Binary, Compact, Decode, DecodeOwned, ErrorKind, Limits, MessageHeader, Protocol,
    Reader, TType,
};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result and the bytes this thread allocated meanwhile.
fn allocated_by<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (out, allocated) = measure(f);
    (out, allocated.bytes)
}

/// The most a rejected hostile input may allocate: the boxed error and its message.
const BUDGET: usize = 1024;

/// Decodes `T` from `input` and skips it as `T::TTYPE`, expecting errors of a kind that
/// `check` accepts, each allocating less than [`BUDGET`].
#[track_caller]
fn rejects_cheaply<P: Protocol, T: DecodeOwned + Debug>(input: &[u8], check: impl Fn(&ErrorKind) -> bool) {
    let (res, bytes) = allocated_by(|| T::decode::<P>(&mut Reader::new(input)));
    let err = res.expect_err(&format!("{} decoded {:?} as {}", P::NAME, Hex(input), std::any::type_name::<T>()));
    assert!(check(err.kind()), "{} decode {}: {err}", P::NAME, std::any::type_name::<T>());
    assert!(bytes < BUDGET, "{} decode {} allocated {bytes} bytes for {err}", P::NAME, std::any::type_name::<T>());

    let (res, bytes) = allocated_by(|| skip::<P>(&mut Reader::new(input), T::TTYPE));
    let err = res.expect_err(&format!("{} skipped {:?}", P::NAME, Hex(input)));
    assert!(check(err.kind()), "{} skip {}: {err}", P::NAME, T::TTYPE);
    assert!(bytes < BUDGET, "{} skip {} allocated {bytes} bytes for {err}", P::NAME, T::TTYPE);
}

fn too_large(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::LengthTooLarge { .. } | ErrorKind::Truncated { .. })
}

fn negative(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::NegativeLength(_))
}

/// `header` followed by ten zero bytes.
fn with_ten(header: &[u8]) -> Vec<u8> {
    let mut v = header.to_vec();
    v.extend([0u8; 10]);
    v
}

#[test]
fn the_counter_counts() {
    let (v, bytes) = allocated_by(|| Vec::<u8>::with_capacity(4096));
    assert!(bytes >= 4096, "{bytes}");
    drop(v);
    let (_, bytes) = allocated_by(|| 1 + 1);
    assert_eq!(bytes, 0);
}

#[test]
fn huge_list_length_binary() {
    // Element type, then count 2^31-1, then ten bytes.
    rejects_cheaply::<Binary, Vec<i32>>(&with_ten(&[0x08, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<bool>>(&with_ten(&[0x02, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<i8>>(&with_ten(&[0x03, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<String>>(&with_ten(&[0x0b, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<Vec<u8>>>(&with_ten(&[0x0b, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<ApplicationException>>(&with_ten(&[0x0c, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, Vec<Vec<i64>>>(&with_ten(&[0x0f, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, BTreeSet<i32>>(&with_ten(&[0x08, 0x7f, 0xff, 0xff, 0xff]), too_large);
    rejects_cheaply::<Binary, HashSet<i32>>(&with_ten(&[0x08, 0x7f, 0xff, 0xff, 0xff]), too_large);
}

#[test]
fn huge_list_length_compact() {
    // Long-form header (size 15 marker | type), then varint 2^31-1, then ten bytes.
    let huge = |t: u8| with_ten(&[0xf0 | t, 0xff, 0xff, 0xff, 0xff, 0x07]);
    rejects_cheaply::<Compact, Vec<i32>>(&huge(0x05), too_large);
    rejects_cheaply::<Compact, Vec<bool>>(&huge(0x01), too_large);
    rejects_cheaply::<Compact, Vec<i8>>(&huge(0x03), too_large);
    rejects_cheaply::<Compact, Vec<String>>(&huge(0x08), too_large);
    rejects_cheaply::<Compact, Vec<Vec<u8>>>(&huge(0x08), too_large);
    rejects_cheaply::<Compact, Vec<ApplicationException>>(&huge(0x0c), too_large);
    rejects_cheaply::<Compact, Vec<Vec<i64>>>(&huge(0x09), too_large);
    rejects_cheaply::<Compact, BTreeSet<i32>>(&huge(0x05), too_large);
    rejects_cheaply::<Compact, HashSet<i32>>(&huge(0x05), too_large);
    rejects_cheaply::<Compact, Vec<f64>>(&huge(0x07), too_large);
}

#[test]
fn huge_string_length() {
    let binary = with_ten(&[0x7f, 0xff, 0xff, 0xff]);
    rejects_cheaply::<Binary, String>(&binary, too_large);
    rejects_cheaply::<Binary, Vec<u8>>(&binary, too_large);
    rejects_cheaply::<Binary, Bytes>(&binary, too_large);
    let compact = with_ten(&[0xff, 0xff, 0xff, 0xff, 0x07]);
    rejects_cheaply::<Compact, String>(&compact, too_large);
    rejects_cheaply::<Compact, Vec<u8>>(&compact, too_large);
    rejects_cheaply::<Compact, Bytes>(&compact, too_large);
    // Borrowed types too (they never allocate for the value anyway).
    assert!(thrift_core::from_slice::<Binary, &str>(&binary).is_err());
    assert!(thrift_core::from_slice::<Compact, &[u8]>(&compact).is_err());
}

#[test]
fn huge_map_length() {
    let binary = with_ten(&[0x08, 0x0b, 0x7f, 0xff, 0xff, 0xff]); // i32 -> string, 2^31-1 entries
    rejects_cheaply::<Binary, BTreeMap<i32, String>>(&binary, too_large);
    rejects_cheaply::<Binary, HashMap<i32, String>>(&binary, too_large);
    let compact = with_ten(&[0xff, 0xff, 0xff, 0xff, 0x07, 0x58]); // 2^31-1 entries, i32 -> binary
    rejects_cheaply::<Compact, BTreeMap<i32, String>>(&compact, too_large);
    rejects_cheaply::<Compact, HashMap<i32, String>>(&compact, too_large);
}

#[test]
fn huge_length_inside_a_struct() {
    // Rich's field 4 (list<list<i64>>) declaring 2^31-1 lists.
    let binary = with_ten(&[0x0f, 0x00, 0x04, 0x0f, 0x7f, 0xff, 0xff, 0xff]);
    rejects_cheaply::<Binary, common::Rich>(&binary, too_large);
    let compact = with_ten(&[0x49, 0xf9, 0xff, 0xff, 0xff, 0xff, 0x07]);
    rejects_cheaply::<Compact, common::Rich>(&compact, too_large);
    // An unknown field that is skipped is bounded the same way.
    let binary = with_ten(&[0x0d, 0x00, 0x63, 0x08, 0x08, 0x7f, 0xff, 0xff, 0xff]);
    rejects_cheaply::<Binary, ApplicationException>(&binary, too_large);
}

#[test]
fn huge_method_name() {
    let input = with_ten(&[0x7f, 0xff, 0xff, 0xff]);
    let (res, bytes) = allocated_by(|| Binary::read_message_begin(&mut Reader::new(&input)).map(|h| h.seqid));
    assert!(too_large(res.unwrap_err().kind()));
    assert!(bytes < BUDGET, "{bytes}");
    let input = with_ten(&[0x82, 0x21, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07]);
    let (res, bytes) = allocated_by(|| Compact::read_message_begin(&mut Reader::new(&input)).map(|h| h.seqid));
    assert!(too_large(res.unwrap_err().kind()));
    assert!(bytes < BUDGET, "{bytes}");
}

#[test]
fn negative_lengths_binary() {
    rejects_cheaply::<Binary, Vec<i32>>(&with_ten(&[0x08, 0xff, 0xff, 0xff, 0xff]), negative);
    rejects_cheaply::<Binary, BTreeSet<i8>>(&with_ten(&[0x03, 0x80, 0x00, 0x00, 0x00]), negative);
    rejects_cheaply::<Binary, String>(&with_ten(&[0x80, 0x00, 0x00, 0x00]), negative);
    rejects_cheaply::<Binary, Vec<u8>>(&with_ten(&[0xff, 0xff, 0xff, 0xfe]), negative);
    rejects_cheaply::<Binary, BTreeMap<i8, i8>>(&with_ten(&[0x03, 0x03, 0xff, 0xff, 0xff, 0xff]), negative);
    let e = thrift_core::from_slice::<Binary, Vec<i32>>(&[0x08, 0xff, 0xff, 0xff, 0xfe]).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::NegativeLength(-2));
    assert_eq!(e.to_string(), "negative length -2 at offset 5");
    let e = thrift_core::from_slice::<Binary, String>(&[0x80, 0, 0, 0]).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::NegativeLength(i32::MIN as i64));
}

#[test]
fn negative_lengths_compact() {
    // Varint lengths of 2^32-1 and 2^31 are -1 and i32::MIN as 32-bit integers.
    rejects_cheaply::<Compact, Vec<i32>>(&with_ten(&[0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f]), negative);
    rejects_cheaply::<Compact, BTreeSet<i8>>(&with_ten(&[0xf3, 0x80, 0x80, 0x80, 0x80, 0x08]), negative);
    rejects_cheaply::<Compact, String>(&with_ten(&[0xff, 0xff, 0xff, 0xff, 0x0f]), negative);
    rejects_cheaply::<Compact, Vec<u8>>(&with_ten(&[0x80, 0x80, 0x80, 0x80, 0x08]), negative);
    rejects_cheaply::<Compact, BTreeMap<i8, i8>>(&with_ten(&[0xff, 0xff, 0xff, 0xff, 0x0f, 0x33]), negative);
    let e = thrift_core::from_slice::<Compact, Vec<i32>>(&[0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::NegativeLength(-1));
}

#[test]
fn limits_bound_strings_and_containers() {
    let limits = Limits { max_string_len: 4, max_container_len: 3, ..Limits::default() };
    let cases: [(&str, Vec<u8>, TType, &str); 4] = [
        ("binary string", thrift_core::to_vec::<Binary, _>("12345"), TType::String, "max_string_len"),
        ("compact string", thrift_core::to_vec::<Compact, _>("12345"), TType::String, "max_string_len"),
        ("binary list", thrift_core::to_vec::<Binary, _>(&vec![1i8; 4]), TType::List, "max_container_len"),
        (
            "compact map",
            thrift_core::to_vec::<Compact, _>(&BTreeMap::from([(1i8, 1i8), (2, 2), (3, 3), (4, 4)])),
            TType::Map,
            "max_container_len",
        ),
    ];
    for (name, bytes, ttype, bound) in cases {
        let protocol_err = |e: thrift_core::Error| {
            assert!(
                matches!(e.kind(), ErrorKind::LengthTooLarge { len: 4 | 5, limit: 3 | 4, what } if *what == bound),
                "{name}: {e}"
            );
        };
        if name.starts_with("binary") {
            protocol_err(skip::<Binary>(&mut Reader::new(&bytes).with_limits(limits), ttype).unwrap_err());
        } else {
            protocol_err(skip::<Compact>(&mut Reader::new(&bytes).with_limits(limits), ttype).unwrap_err());
        }
    }
    // Decoding under the same limits, and at exactly the limit.
    let bytes = thrift_core::to_vec::<Binary, _>("12345");
    let err = String::decode_with::<Binary>(&bytes, limits).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthTooLarge { len: 5, limit: 4, what: "max_string_len" }), "{err}");
    assert_eq!(err.to_string(), "declared length 5 exceeds 4 (max_string_len) at offset 4");
    let bytes = thrift_core::to_vec::<Binary, _>("1234");
    assert_eq!(String::decode_with::<Binary>(&bytes, limits).unwrap(), "1234");
    let bytes = thrift_core::to_vec::<Compact, _>(&vec![1i32; 4]);
    let err = Vec::<i32>::decode_with::<Compact>(&bytes, limits).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthTooLarge { len: 4, limit: 3, what: "max_container_len" }), "{err}");
    let bytes = thrift_core::to_vec::<Compact, _>(&vec![1i32; 3]);
    assert_eq!(Vec::<i32>::decode_with::<Compact>(&bytes, limits).unwrap(), [1, 1, 1]);
    // The method name of an envelope is a string too.
    let mut bytes = Vec::new();
    Binary::write_message_begin(
        &mut bytes,
        &MessageHeader { name: "12345", kind: thrift_core::MessageType::Call, seqid: 0 },
    );
    let err = Binary::read_message_begin(&mut Reader::new(&bytes).with_limits(limits)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthTooLarge { what: "max_string_len", .. }), "{err}");
}

/// Decoding under given limits.
trait DecodeWith: Sized {
    fn decode_with<P: Protocol>(bytes: &[u8], limits: Limits) -> thrift_core::Result<Self>;
}

impl<T: DecodeOwned> DecodeWith for T {
    fn decode_with<P: Protocol>(bytes: &[u8], limits: Limits) -> thrift_core::Result<Self> {
        T::decode::<P>(&mut Reader::new(bytes).with_limits(limits))
    }
}

/// Valid input that declares as many elements as it has bytes: the allocation is the Rust
/// size of the elements, a bounded multiple of the input.
#[test]
fn allocation_is_a_small_multiple_of_the_input() {
    const N: usize = 10_000;
    // Compact: N empty structs (one stop byte each), N empty lists (one header byte each).
    let mut structs = vec![0xfc, 0x90, 0x4e]; // long form list<struct>, varint 10000
    structs.extend([0u8; N]);
    let mut lists = vec![0xf9, 0x90, 0x4e]; // long form list<list>, varint 10000
    lists.extend([0x05u8; N]); // empty list<i32>
    let mut strings = vec![0xf8, 0x90, 0x4e]; // long form list<binary>, varint 10000
    strings.extend([0x00u8; N]); // empty strings

    let (v, structs_bytes) = allocated_by(|| thrift_core::from_slice::<Compact, Vec<ApplicationException>>(&structs));
    assert_eq!(v.unwrap().len(), N);
    let (v, lists_bytes) = allocated_by(|| thrift_core::from_slice::<Compact, Vec<Vec<i32>>>(&lists));
    assert_eq!(v.unwrap().len(), N);
    let (v, strings_bytes) = allocated_by(|| thrift_core::from_slice::<Compact, Vec<String>>(&strings));
    assert_eq!(v.unwrap().len(), N);

    use std::mem::size_of;
    for (what, bytes, input, size) in [
        ("structs", structs_bytes, &structs, size_of::<ApplicationException>()),
        ("lists", lists_bytes, &lists, size_of::<Vec<i32>>()),
        ("strings", strings_bytes, &strings, size_of::<String>()),
    ] {
        let ratio = bytes as f64 / input.len() as f64;
        println!("compact list of {N} empty {what}: {} input bytes, {bytes} allocated ({ratio:.1}x)", input.len());
        // One Rust value per input byte: the factor is the element's size_of, at most doubled
        // for elements that can nest (structs, lists), whose containers reserve at most 32 KiB
        // up front and then grow by doubling (tests/regress_alloc.rs says why); never more.
        assert!(ratio <= (2 * size) as f64, "{what}: {ratio:.1}x, element size {size}");
    }

    // Truncated after the elements start: the same bound, then the error.
    let (res, bytes) =
        allocated_by(|| thrift_core::from_slice::<Compact, Vec<ApplicationException>>(&structs[..N / 2]));
    assert!(res.is_err());
    assert!(bytes <= 48 * N, "{bytes}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Corrupted encodings of a rich struct, valid or not, never allocate more than a small
    /// multiple of their size (plus a constant for a few collection nodes and the error).
    #[test]
    fn corrupted_input_allocates_a_bounded_multiple(
        flips in proptest::collection::vec((0usize..4096, 1u8..=255), 1..6),
    ) {
        for binary in [true, false] {
            let mut bytes = if binary {
                thrift_core::to_vec::<Binary, _>(&common::Rich::sample())
            } else {
                thrift_core::to_vec::<Compact, _>(&common::Rich::sample())
            };
            for &(pos, xor) in &flips {
                let i = pos % bytes.len();
                bytes[i] ^= xor;
            }
            let (res, allocated) = allocated_by(|| {
                let mut r = Reader::new(&bytes);
                if binary {
                    common::Rich::decode::<Binary>(&mut r).map(drop)
                } else {
                    common::Rich::decode::<Compact>(&mut r).map(drop)
                }
            });
            let bound = 64 * bytes.len() + 4096;
            proptest::prop_assert!(
                allocated <= bound,
                "{} bytes allocated for {} input bytes ({res:?}): {:?}", allocated, bytes.len(), Hex(&bytes)
            );
        }
    }
}
