//! Zero-copy decoding, measured: a counting global allocator shows that `&str`, `&[u8]`,
//! `Cow<str>` and `Bytes` fields decode without allocating, while their owned counterparts
//! (`String`, `Vec<u8>`) allocate for every non-empty value.

use std::borrow::Cow;

use bytes::{Bytes, BytesMut};
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, Protocol, ThriftStruct};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Header<'a> {
    #[thrift(id = 1)]
    key: &'a str,
    #[thrift(id = 2)]
    value: &'a [u8],
}

/// Only borrowed string and binary fields, `Bytes`, scalars and a nested borrowed struct.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Borrowed<'a> {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2, required)]
    name: &'a str,
    #[thrift(id = 3)]
    payload: &'a [u8],
    #[thrift(id = 4)]
    shared: Bytes,
    #[thrift(id = 5)]
    note: Cow<'a, str>,
    #[thrift(id = 6)]
    comment: Option<&'a str>,
    #[thrift(id = 7, required)]
    header: Header<'a>,
    #[thrift(id = 8)]
    urgent: bool,
    #[thrift(id = 9)]
    ratio: f64,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct OwnedHeader {
    #[thrift(id = 1)]
    key: String,
    #[thrift(id = 2)]
    value: Vec<u8>,
}

/// The same wire shape with owned fields.
#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Owned {
    #[thrift(id = 1)]
    id: i64,
    #[thrift(id = 2, required)]
    name: String,
    #[thrift(id = 3)]
    payload: Vec<u8>,
    #[thrift(id = 4)]
    shared: Vec<u8>,
    #[thrift(id = 5)]
    note: String,
    #[thrift(id = 6)]
    comment: Option<String>,
    #[thrift(id = 7, required)]
    header: OwnedHeader,
    #[thrift(id = 8)]
    urgent: bool,
    #[thrift(id = 9)]
    ratio: f64,
}

fn sample() -> Borrowed<'static> {
    Borrowed {
        id: 42,
        name: "a name long enough to matter",
        payload: &[0xab; 100],
        shared: Bytes::from_static(&[0xcd; 200]),
        note: Cow::Borrowed("a note"),
        comment: Some("a comment"),
        header: Header { key: "content-type", value: b"application/x-thrift" },
        urgent: true,
        ratio: 0.5,
    }
}

/// The owned and borrowed fields hold this many string and binary bytes in all.
const PAYLOAD_BYTES: usize = 28 + 100 + 200 + 6 + 9 + 12 + 20;

/// The encoding as a transport hands it over: a frozen slice split off a receive buffer.
/// (Such `Bytes` are already shared, so slicing them is a refcount increment; a `Bytes`
/// made straight from a `Vec` allocates its shared header on its first clone.)
fn received<P: Protocol>(value: &Borrowed<'_>) -> Bytes {
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&thrift_core::to_vec::<P, _>(value));
    buf.extend_from_slice(b"next message");
    let len = buf.len() - b"next message".len();
    buf.split_to(len).freeze()
}

fn borrowed_decodes_without_allocating<P: Protocol>() {
    let expected = sample();
    let input = received::<P>(&expected);
    let (decoded, allocated) = measure(|| thrift_core::from_bytes::<P, Borrowed<'_>>(&input));
    let decoded = decoded.unwrap();
    assert_eq!(decoded, expected);
    assert_eq!((allocated.count, allocated.bytes), (0, 0), "{}", P::NAME);
    // The fields point into the input rather than at copies.
    let range = input.as_ptr_range();
    for field in [decoded.name.as_bytes(), decoded.payload, &decoded.shared, decoded.header.key.as_bytes()] {
        assert!(range.contains(&field.as_ptr()), "{}: a field was copied", P::NAME);
    }
}

fn owned_decoding_allocates<P: Protocol>() {
    let input = received::<P>(&sample());
    let (decoded, allocated) = measure(|| thrift_core::from_bytes::<P, Owned>(&input));
    let decoded = decoded.unwrap();
    assert_eq!(decoded.name, sample().name);
    // One allocation per non-empty string or binary, holding at least its bytes.
    assert!(allocated.count >= 7, "{}: {allocated:?}", P::NAME);
    assert!(allocated.bytes >= PAYLOAD_BYTES, "{}: {allocated:?}", P::NAME);
}

/// `Bytes` fields share the input only when the input is `Bytes`: from a plain slice they
/// are copied, which the counter sees.
fn bytes_field_copies_from_a_slice<P: Protocol>() {
    let input = received::<P>(&sample());
    let slice: &[u8] = &input;
    let (decoded, allocated) = measure(|| thrift_core::from_slice::<P, Borrowed<'_>>(slice));
    assert_eq!(decoded.unwrap().shared.len(), 200);
    assert!(allocated.count >= 1 && allocated.bytes >= 200, "{}: {allocated:?}", P::NAME);
}

#[test]
fn borrowed_fields_decode_without_allocating_in_binary() {
    borrowed_decodes_without_allocating::<Binary>();
}

#[test]
fn borrowed_fields_decode_without_allocating_in_compact() {
    borrowed_decodes_without_allocating::<Compact>();
}

#[test]
fn owned_fields_allocate_in_binary() {
    owned_decoding_allocates::<Binary>();
}

#[test]
fn owned_fields_allocate_in_compact() {
    owned_decoding_allocates::<Compact>();
}

#[test]
fn bytes_fields_copy_when_decoded_from_a_slice() {
    bytes_field_copies_from_a_slice::<Binary>();
    bytes_field_copies_from_a_slice::<Compact>();
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the measurement itself: if counting broke, the zero above would prove nothing.
    let (v, allocated) = measure(|| vec![0u8; 64]);
    assert_eq!(v.len(), 64);
    assert_eq!((allocated.count, allocated.bytes), (1, 64));
}
