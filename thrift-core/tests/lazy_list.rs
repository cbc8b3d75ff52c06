//! `LazyList` fields in a derived struct: decoding allocates nothing (counted by a per-thread
//! counting allocator) where `Vec` fields allocate once each, the elements read back as
//! written, the struct re-encodes to its input in the protocol it came in and to the `Vec`
//! struct's bytes in the other, its IDL spells the fields `list<...>`, and corrupted input
//! fails to decode exactly where the `Vec` struct fails.

use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, Idl, LazyList, Protocol, ThriftStruct};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// What a column chunk's metadata looks like, with `Vec`s (no doc comment: the IDLs compare).
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct Column<'a> {
    #[thrift(id = 1)]
    path: Vec<&'a str>,
    #[thrift(id = 2)]
    encodings: Vec<i32>,
    #[thrift(id = 3)]
    values: i64,
    #[thrift(id = 4)]
    tags: Option<Vec<&'a str>>,
}

// The same struct on the wire, with `LazyList`s.
#[derive(ThriftStruct, Debug, Clone, PartialEq, Default)]
struct LazyColumn<'a> {
    #[thrift(id = 1)]
    path: LazyList<'a, &'a str>,
    #[thrift(id = 2)]
    encodings: LazyList<'a, i32>,
    #[thrift(id = 3)]
    values: i64,
    #[thrift(id = 4)]
    tags: Option<LazyList<'a, &'a str>>,
}

fn column() -> Column<'static> {
    Column {
        path: vec!["trip", "pickup", "location with a name longer than most"],
        encodings: vec![0, 3, 8, -1],
        values: 1 << 40,
        tags: Some(vec![]),
    }
}

fn decodes_without_allocating<P: Protocol, Q: Protocol>() {
    let value = column();
    let input = thrift_core::to_vec::<P, _>(&value);
    let ((), vecs) = measure(|| drop(thrift_core::from_slice::<P, Column<'_>>(&input).unwrap()));
    assert_eq!(vecs.count, 2, "{}: the two non-empty `Vec`s", P::NAME);

    let (lazy, allocated) = measure(|| thrift_core::from_slice::<P, LazyColumn<'_>>(&input).unwrap());
    assert_eq!(allocated.count, 0, "{}: {allocated:?}", P::NAME);
    assert_eq!(lazy.path.iter().collect::<Vec<_>>(), value.path);
    assert_eq!(lazy.encodings.iter().collect::<Vec<_>>(), value.encodings);
    assert_eq!(lazy.values, value.values);
    assert!(lazy.tags.is_some_and(|t| t.is_empty()));
    let ((), allocated) = measure(|| assert!(lazy.path.iter().eq(value.path.iter().copied())));
    assert_eq!(allocated.count, 0, "reading the elements again allocates nothing either");

    assert_eq!(thrift_core::to_vec::<P, _>(&lazy), input);
    assert_eq!(thrift_core::to_vec::<Q, _>(&lazy), thrift_core::to_vec::<Q, _>(&value));
}

#[test]
fn binary_lazy_lists_decode_without_allocating_and_reencode() {
    decodes_without_allocating::<Binary, Compact>();
}

#[test]
fn compact_lazy_lists_decode_without_allocating_and_reencode() {
    decodes_without_allocating::<Compact, Binary>();
}

#[test]
fn a_missing_lazy_list_is_empty_and_its_idl_is_a_list() {
    let input = thrift_core::to_vec::<Compact, _>(&Column { values: 7, ..Column::default() });
    let lazy: LazyColumn<'_> = thrift_core::from_slice::<Compact, _>(&input).unwrap();
    assert!(lazy.path.is_empty() && lazy.tags.is_none());
    assert_eq!(lazy, LazyColumn { values: 7, ..LazyColumn::default() });
    let lazy = Idl::new().add::<LazyColumn<'_>>().render();
    assert!(lazy.contains("1: list<string> path"), "{lazy}");
    assert_eq!(lazy.replace("LazyColumn", "Column"), Idl::new().add::<Column<'_>>().render());
}

/// Whether the lazy struct decoded `input` as the `Vec` one did: the same elements, or an
/// error at the same offset.
fn agree<P: Protocol>(input: &[u8]) {
    let vecs = thrift_core::from_slice::<P, Column<'_>>(input);
    let lazy = thrift_core::from_slice::<P, LazyColumn<'_>>(input);
    match (vecs, lazy) {
        (Ok(vecs), Ok(lazy)) => {
            assert!(lazy.path.iter().eq(vecs.path.iter().copied()), "{}: {input:?}", P::NAME);
            assert!(lazy.encodings.iter().eq(vecs.encodings.iter().copied()), "{}: {input:?}", P::NAME);
            assert_eq!(lazy.tags.map(|t| t.iter().collect::<Vec<_>>()), vecs.tags, "{}: {input:?}", P::NAME);
        }
        (Err(vecs), Err(lazy)) => assert_eq!(lazy.offset(), vecs.offset(), "{}: {input:?}", P::NAME),
        (vecs, lazy) => panic!("{}: {input:?}: Vec {vecs:?}, LazyList {lazy:?}", P::NAME),
    }
}

proptest::proptest! {
    #[test]
    fn corrupted_input_fails_where_vecs_fail(flips in proptest::collection::vec((0usize..256, 1u8..=255), 1..4)) {
        for (compact, mut bytes) in [(false, thrift_core::to_vec::<Binary, _>(&column())), (true, thrift_core::to_vec::<Compact, _>(&column()))] {
            for &(pos, xor) in &flips {
                let i = pos % bytes.len();
                bytes[i] ^= xor;
            }
            if compact { agree::<Compact>(&bytes) } else { agree::<Binary>(&bytes) }
        }
    }
}
