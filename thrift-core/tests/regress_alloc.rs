//! Regression (found while deriving the fuzz targets' allocation bound, `fuzz/src/alloc.rs`): nested
//! containers each checked their declared count against the same remaining bytes and reserved
//! that many elements before reading any, so a list of structs whose first struct holds a
//! list of structs, and so on to the depth limit, reserved the input's worth of elements at
//! every level at once: about a thousand bytes per input byte. Lists whose elements can nest
//! now share one budget for up-front reservations, 16 bytes per input byte over the decode;
//! past it they reserve at most 32 KiB and grow as elements arrive. Within it, a list with a
//! declared count reserves exactly that (`lists_with_declared_counts_reserve_once_and_exactly`).
//!
//! A counting global allocator (per thread, so parallel tests do not disturb each other)
//! measures the peak of live bytes during each decode.

use std::collections::{BTreeMap, HashMap};

use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, Decode, Protocol, Reader, ThriftStruct};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live at once while `f` ran, above what was live before.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (out, allocated) = measure(f);
    (out, allocated.peak)
}

/// A recursive struct nesting through a list.
#[derive(ThriftStruct, Debug, Default)]
struct Tree {
    #[thrift(id = 1)]
    value: i64,
    #[thrift(id = 2)]
    children: Vec<Tree>,
}

/// A recursive struct nesting through a hash map's values.
#[derive(ThriftStruct, Debug, Default)]
struct HashTree {
    #[thrift(id = 1)]
    children: HashMap<i8, HashTree>,
}

/// A recursive struct nesting through a B-tree map's values.
#[derive(ThriftStruct, Debug, Default)]
struct BTreeTree {
    #[thrift(id = 1)]
    children: BTreeMap<i8, BTreeTree>,
}

/// `levels` levels written by `open`, each declaring as many elements as `tail` bytes let
/// through its check against the bytes remaining, then `tail` zero bytes (empty structs and
/// stop bytes).
fn hostile(levels: usize, tail: usize, open: impl Fn(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..levels {
        open(&mut out, tail);
    }
    out.resize(out.len() + tail, 0);
    out
}

fn compact_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Compact: field 2, list of `n` structs.
fn compact_tree_level(out: &mut Vec<u8>, n: usize) {
    out.extend([0x29, 0xfc]);
    compact_varint(out, n as u64);
}

/// Binary: field 2, list of `n` structs.
fn binary_tree_level(out: &mut Vec<u8>, n: usize) {
    out.extend([0x0f, 0x00, 0x02, 0x0c]);
    out.extend((n as i32).to_be_bytes());
}

/// Compact: field 1, map of `tail / 2` entries i8 -> struct (2 bytes each at least), the
/// first key.
fn compact_map_level(out: &mut Vec<u8>, tail: usize) {
    out.push(0x1b);
    compact_varint(out, tail as u64 / 2);
    out.extend([0x3c, 0x07]);
}

/// Binary: field 1, map of `tail / 2` entries i8 -> struct, the first key.
fn binary_map_level(out: &mut Vec<u8>, tail: usize) {
    out.extend([0x0d, 0x00, 0x01, 0x03, 0x0c]);
    out.extend((tail as i32 / 2).to_be_bytes());
    out.push(0x07);
}

/// Decodes `input` as `T` and checks the peak of live bytes: at most 64 per input byte (the
/// elements that do arrive, in lists grown by doubling, and the 16 per input byte lists may
/// reserve ahead of their elements) plus 2 MiB (32 KiB reserved up front at each of at most
/// 64 open levels once that budget is spent). Before the fix these inputs peaked at hundreds
/// of times more.
#[track_caller]
fn bounded<P: Protocol, T: for<'de> Decode<'de> + std::fmt::Debug>(input: &[u8]) {
    let (res, peak) = peak_of(|| T::decode::<P>(&mut Reader::new(input)).map(drop));
    let bound = 64 * input.len() + 2 * 1024 * 1024;
    println!("{} {}: peak {peak} for {} input bytes", P::NAME, std::any::type_name::<T>(), input.len());
    assert!(
        peak <= bound,
        "{} {}: peak {peak} bytes live for {} input bytes (bound {bound}); decode gave {res:?}",
        P::NAME,
        std::any::type_name::<T>(),
        input.len()
    );
}

#[test]
fn the_counter_sees_a_peak() {
    let (_, peak) = peak_of(|| drop(Vec::<u8>::with_capacity(1 << 20)));
    assert!(peak >= 1 << 20, "{peak}");
}

#[test]
fn nested_lists_of_structs_reserve_within_a_bound() {
    // The depth limit is 64 and each level is a struct and a list: 31 levels fit.
    for tail in [1_000, 100_000, 400_000] {
        bounded::<Compact, Tree>(&hostile(31, tail, compact_tree_level));
        bounded::<Binary, Tree>(&hostile(31, tail, binary_tree_level));
        // Counts small enough for the outermost list to reserve its whole count from the
        // decode's budget: the budget's worth is then spent on elements that never come.
        bounded::<Compact, Tree>(&hostile(31, tail, |out, n| compact_tree_level(out, n / 2)));
        bounded::<Binary, Tree>(&hostile(31, tail, |out, n| binary_tree_level(out, n / 8)));
    }
}

#[test]
fn nested_maps_of_structs_reserve_within_a_bound() {
    for tail in [1_000, 100_000, 400_000] {
        bounded::<Compact, HashTree>(&hostile(31, tail, compact_map_level));
        bounded::<Binary, HashTree>(&hostile(31, tail, binary_map_level));
        bounded::<Compact, BTreeTree>(&hostile(31, tail, compact_map_level));
        bounded::<Binary, BTreeTree>(&hostile(31, tail, binary_map_level));
    }
}

#[test]
fn large_containers_of_structs_still_decode_whole() {
    // Past the up-front reservation: the containers grow as the elements arrive.
    let tree = Tree { value: 1, children: (0..20_000).map(|i| Tree { value: i, children: vec![] }).collect() };
    let binary: Tree = thrift_core::from_slice::<Binary, _>(&thrift_core::to_vec::<Binary, _>(&tree)).unwrap();
    let compact: Tree = thrift_core::from_slice::<Compact, _>(&thrift_core::to_vec::<Compact, _>(&tree)).unwrap();
    for back in [binary, compact] {
        assert_eq!(back.children.len(), 20_000);
        assert!(back.children.iter().enumerate().all(|(i, c)| c.value == i as i64));
    }
    let map = HashTree { children: (0..100).map(|i| (i as i8, HashTree::default())).collect() };
    let back: HashTree = thrift_core::from_slice::<Compact, _>(&thrift_core::to_vec::<Compact, _>(&map)).unwrap();
    assert_eq!(back.children.len(), 100);
}

/// The shape of a Parquet footer, borrowed: lists of nested structs of optional fields.
#[derive(ThriftStruct, Debug, Default, PartialEq)]
struct Footer<'a> {
    #[thrift(id = 1)]
    version: i32,
    #[thrift(id = 2)]
    row_groups: Vec<RowGroup<'a>>,
    #[thrift(id = 3)]
    created_by: Option<&'a str>,
}

#[derive(ThriftStruct, Debug, Default, PartialEq)]
struct RowGroup<'a> {
    #[thrift(id = 1)]
    columns: Vec<ColumnChunk<'a>>,
    #[thrift(id = 2)]
    num_rows: i64,
}

#[derive(ThriftStruct, Debug, Default, PartialEq)]
struct ColumnChunk<'a> {
    #[thrift(id = 1)]
    file_offset: i64,
    #[thrift(id = 2)]
    meta: Option<ColumnMeta<'a>>,
}

#[derive(ThriftStruct, Debug, Default, PartialEq)]
struct ColumnMeta<'a> {
    #[thrift(id = 1)]
    path_in_schema: Vec<&'a str>,
    #[thrift(id = 2)]
    encodings: Vec<i32>,
    #[thrift(id = 3)]
    num_values: i64,
    #[thrift(id = 4)]
    min: Option<&'a [u8]>,
    #[thrift(id = 5)]
    max: Option<&'a [u8]>,
}

/// `row_groups` row groups of `columns` columns each.
fn footer(row_groups: usize, columns: usize) -> Footer<'static> {
    const NAMES: [&str; 4] = ["user", "address", "city", "postcode"];
    Footer {
        version: 2,
        row_groups: (0..row_groups)
            .map(|g| RowGroup {
                columns: (0..columns)
                    .map(|c| ColumnChunk {
                        file_offset: (g * columns + c) as i64 * 4096,
                        meta: Some(ColumnMeta {
                            path_in_schema: NAMES[..1 + c % 3].to_vec(),
                            encodings: vec![0, 8],
                            num_values: 10_000,
                            min: Some(b"aa"),
                            max: (c % 2 == 0).then_some(b"zz".as_slice()),
                        }),
                    })
                    .collect(),
                num_rows: 10_000,
            })
            .collect(),
        created_by: Some("parquet-rs"),
    }
}

/// The allocations a decoded `footer` owns: one per non-empty list, of exactly its elements.
fn heap_of(footer: &Footer<'_>) -> (usize, usize) {
    fn list<T>(v: &[T]) -> (usize, usize) {
        (usize::from(!v.is_empty()), std::mem::size_of_val(v))
    }
    let mut all = vec![list(&footer.row_groups)];
    for group in &footer.row_groups {
        all.push(list(&group.columns));
        for meta in group.columns.iter().filter_map(|c| c.meta.as_ref()) {
            all.extend([list(&meta.path_in_schema), list(&meta.encodings)]);
        }
    }
    all.into_iter().fold((0, 0), |(n, b), (dn, db)| (n + dn, b + db))
}

#[test]
fn lists_with_declared_counts_reserve_once_and_exactly() {
    // 1,000 columns of about 100 bytes each: past the 32 KiB that nestable lists reserved up
    // front before the decode's budget, when this list grew by doubling (10 reallocations and
    // capacity for 1,024 kept).
    for (groups, columns) in [(1, 20), (4, 250), (1, 1_000)] {
        let value = footer(groups, columns);
        let (count, bytes) = heap_of(&value);
        for (name, encoded) in [
            ("binary", thrift_core::to_vec::<Binary, _>(&value)),
            ("compact", thrift_core::to_vec::<Compact, _>(&value)),
        ] {
            let (back, allocated) = measure(|| {
                let (name, encoded) = (name, &encoded);
                if name == "binary" {
                    thrift_core::from_slice::<Binary, Footer<'_>>(encoded)
                } else {
                    thrift_core::from_slice::<Compact, Footer<'_>>(encoded)
                }
            });
            let back = back.unwrap();
            assert_eq!(back, value, "{name}");
            assert_eq!(
                (allocated.count, allocated.bytes),
                (count, bytes),
                "{name} {groups}x{columns}: allocations (calls, bytes) against the value's lists"
            );
            assert!(back.row_groups.iter().all(|g| g.columns.capacity() == g.columns.len()), "{name}: slack kept");
        }
    }
}
