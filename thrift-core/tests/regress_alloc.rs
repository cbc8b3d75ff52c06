//! Regression (found while deriving the fuzz targets' allocation bound, `fuzz/src/alloc.rs`): nested
//! containers each checked their declared count against the same remaining bytes and reserved
//! that many elements before reading any, so a list of structs whose first struct holds a
//! list of structs, and so on to the depth limit, reserved the input's worth of elements at
//! every level at once: about a thousand bytes per input byte. Containers whose elements can
//! nest now reserve at most 32 KiB up front and grow as elements arrive.
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

/// Decodes `input` as `T` and checks the peak of live bytes: at most 64 per input byte plus
/// 2 MiB (32 KiB reserved up front at each of at most 64 open levels). Before the fix these
/// inputs peaked at hundreds of times more.
#[track_caller]
fn bounded<P: Protocol, T: for<'de> Decode<'de> + std::fmt::Debug>(input: &[u8]) {
    let (res, peak) = peak_of(|| T::decode::<P>(&mut Reader::new(input)).map(drop));
    let bound = 64 * input.len() + 2 * 1024 * 1024;
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
