//! `SharedStr` and `Bytes` fields, owned and `'static`, decoded from a `Bytes` input: the
//! binaries and long strings are slices of the input and short strings are held inline, so
//! a struct of them allocates only for its containers (counted by a per-thread counting
//! allocator); from a `&[u8]` each binary and long string is copied once. Also: generated
//! structs of them roundtrip in both protocols.

use bytes::{Bytes, BytesMut};
use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, Protocol, SharedStr, ThriftStruct};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Five strings, a binary and a list of three strings, all owned.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Profile {
    #[thrift(id = 1)]
    name: SharedStr,
    #[thrift(id = 2)]
    email: SharedStr,
    #[thrift(id = 3)]
    city: SharedStr,
    #[thrift(id = 4)]
    bio: SharedStr,
    #[thrift(id = 5)]
    note: Option<SharedStr>,
    #[thrift(id = 6)]
    avatar: Bytes,
    #[thrift(id = 7)]
    tags: Vec<SharedStr>,
}

fn profile() -> Profile {
    Profile {
        name: "Ada Lovelace".into(),
        email: SharedStr::from(format!("ada{}@example.invalid", 1815)),
        city: "London".into(),
        bio: SharedStr::from("analyst ".repeat(40)),
        note: Some("née Byron".into()),
        avatar: Bytes::from(vec![0x89, b'P', b'N', b'G', 0, 1, 2, 3]),
        tags: vec!["math".into(), "engines".into(), "poetry".into()],
    }
}

/// `value` encoded as a frame from a connection's read buffer: a `Bytes` split off a
/// `BytesMut`, as thrift-net's transports hand messages to the decoder.
fn frame<P: Protocol>(value: &Profile) -> Bytes {
    let mut read_buf = BytesMut::with_capacity(4096);
    read_buf.extend_from_slice(&thrift_core::to_vec::<P, _>(value));
    read_buf.split().freeze()
}

fn decodes_from_bytes_allocating_only_the_list<P: Protocol>() {
    let value = profile();
    let input = frame::<P>(&value);
    let (decoded, allocated) = measure(|| thrift_core::from_bytes::<P, Profile>(&input).unwrap());
    assert_eq!(decoded, value);
    // The `Vec` of tags, nothing else: the binary and the long strings point into the input,
    // the short strings are inline.
    assert_eq!(allocated.count, 1, "{}: {allocated:?}", P::NAME);
    assert_eq!(allocated.bytes, 3 * std::mem::size_of::<SharedStr>(), "{}", P::NAME);
    let within = |p: *const u8| input.as_ptr_range().contains(&p);
    assert!(within(decoded.email.as_ptr()) && within(decoded.bio.as_ptr()) && within(decoded.avatar.as_ptr()));
    assert!(!within(decoded.name.as_ptr()) && decoded.tags.iter().all(|t| !within(t.as_ptr())));
    // They are `'static` and outlive the handle they were decoded from.
    drop(input);
    assert_eq!(decoded.tags[2], "poetry");
}

#[test]
fn binary_decode_from_bytes_allocates_only_for_containers() {
    decodes_from_bytes_allocating_only_the_list::<Binary>();
}

#[test]
fn compact_decode_from_bytes_allocates_only_for_containers() {
    decodes_from_bytes_allocating_only_the_list::<Compact>();
}

fn decode_from_slice_copies_each_once<P: Protocol>() {
    let value = profile();
    let input = thrift_core::to_vec::<P, _>(&value);
    let (decoded, allocated) = measure(|| thrift_core::from_slice::<P, Profile>(&input).unwrap());
    assert_eq!(decoded, value);
    // The list, then one copy for each string longer than the inline capacity (the email
    // and the bio) and for the binary.
    assert!(decoded.email.len() > SharedStr::INLINE_CAPACITY && decoded.city.len() <= SharedStr::INLINE_CAPACITY);
    assert_eq!(allocated.count, 1 + 2 + 1, "{}: {allocated:?}", P::NAME);
    let within = |p: *const u8| input.as_ptr_range().contains(&p);
    assert!(!within(decoded.email.as_ptr()) && !within(decoded.bio.as_ptr()));
}

#[test]
fn decode_from_a_slice_copies_each_long_string_once() {
    decode_from_slice_copies_each_once::<Binary>();
    decode_from_slice_copies_each_once::<Compact>();
}

#[test]
fn static_and_empty_strings_do_not_allocate() {
    let ((), allocated) = measure(|| {
        let fixed = SharedStr::from("a literal");
        let copy = fixed.clone();
        assert_eq!(copy, "a literal");
        assert!(SharedStr::new().is_empty() && SharedStr::default().is_empty());
    });
    assert_eq!(allocated.count, 0);
    // Nor does decoding an empty string, from a slice or from `Bytes`.
    let input = Bytes::from_static(&[0, 0, 0, 0]);
    let (s, allocated) = measure(|| thrift_core::from_slice::<Binary, SharedStr>(&input).unwrap());
    assert!(s.is_empty());
    assert_eq!(allocated.count, 0);
}

/// A field with a literal default.
#[derive(ThriftStruct, Debug, PartialEq)]
struct Greeting {
    #[thrift(id = 1, default = "guest")]
    user: SharedStr,
}

#[test]
fn a_literal_default_points_at_the_literal() {
    let empty_struct = Bytes::from_static(&[0]);
    let (greeting, allocated) = measure(|| thrift_core::from_bytes::<Binary, Greeting>(&empty_struct).unwrap());
    assert_eq!(greeting.user, "guest");
    assert_eq!(allocated.count, 0);
}

#[test]
fn clones_share_the_buffer() {
    let input = frame::<Binary>(&profile());
    let decoded = thrift_core::from_bytes::<Binary, Profile>(&input).unwrap();
    let (copy, allocated) = measure(|| decoded.bio.clone());
    assert_eq!(allocated.count, 0);
    assert_eq!(copy.as_ptr(), decoded.bio.as_ptr());
}

#[cfg(feature = "proptest")]
mod properties {
    use thrift_core::testing::check_roundtrips;
    use thrift_core::{SharedStr, ThriftArbitrary, ThriftStruct};

    #[derive(ThriftStruct, ThriftArbitrary, Debug, Clone, PartialEq)]
    struct Record {
        #[thrift(id = 1, required)]
        key: SharedStr,
        #[thrift(id = 2)]
        values: Vec<SharedStr>,
        #[thrift(id = 3)]
        index: std::collections::BTreeMap<SharedStr, SharedStr>,
        #[thrift(id = 4)]
        blob: Option<bytes::Bytes>,
    }

    #[test]
    fn records_of_shared_strings_roundtrip() {
        check_roundtrips::<Record>();
    }

    /// The same struct with `String` fields (and without the map and blob).
    #[derive(ThriftStruct, Debug, PartialEq)]
    #[thrift(name = "Record")]
    struct RecordOfStrings {
        #[thrift(id = 1, required)]
        key: String,
        #[thrift(id = 2)]
        values: Vec<String>,
    }

    #[test]
    fn reads_and_is_read_by_the_string_form() {
        let shared =
            Record { key: "k".into(), values: vec!["a".into(), "ü".into()], index: Default::default(), blob: None };
        let bytes = thrift_core::to_vec::<thrift_core::Compact, _>(&shared);
        let strings: RecordOfStrings = thrift_core::from_slice::<thrift_core::Compact, _>(&bytes).unwrap();
        assert_eq!(strings, RecordOfStrings { key: "k".into(), values: vec!["a".into(), "ü".into()] });
        let back: Record = thrift_core::from_slice::<thrift_core::Compact, _>(&thrift_core::to_vec::<
            thrift_core::Compact,
            _,
        >(&strings))
        .unwrap();
        assert_eq!(back, shared);
    }
}

#[cfg(feature = "idl")]
#[test]
fn exports_as_string_in_idl() {
    let mut idl = thrift_core::Idl::new();
    assert_eq!(idl.type_name::<Vec<SharedStr>>(), "list<string>");
    let rendered = idl.add::<Greeting>().render();
    assert!(rendered.contains("1: string user = \"guest\""), "{rendered}");
}
