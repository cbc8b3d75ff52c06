//! Regression (found by a hostile-input run): sets and maps held every element the wire
//! declared before building the collection. `BTreeSet` and `BTreeMap` collected them all in
//! a `Vec` to build the tree in bulk, `HashSet` and `HashMap` reserved a table for the
//! declared count, so a set of a million copies of one element peaked at tens of MiB where
//! Apache's decoders, inserting one by one, need under a KiB.
//!
//! The peak of a decode must follow the decoded value: at most its own heap size (that of
//! the same collection built from its distinct elements) plus 64 KiB of transient buffers.
//!
//! A counting global allocator (per thread, so parallel tests do not disturb each other)
//! measures the peak of live bytes during each decode.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;

use thrift_alloc_counter::{measure, Counting};
use thrift_core::{Binary, Compact, DecodeOwned, Encode, Protocol, TType};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Copies of one element on the wire.
const COPIES: usize = 1_000_000;

/// The transient allowance beyond the value's own heap.
const TRANSIENT: usize = 64 * 1024;

/// A string long enough to have a heap of its own.
const WORD: &str = "a word repeated on the wire";

/// The most bytes live at once while `f` ran, above what was live before.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (out, allocated) = measure(f);
    (out, allocated.peak)
}

/// A set (or list) header for `n` elements of `elem`, then `n` copies of `one`.
fn set_of_copies<P: Protocol, E: Encode>(one: &E, elem: TType, n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    P::write_list_begin(&mut out, elem, n);
    for _ in 0..n {
        one.encode::<P, _>(&mut out);
    }
    out
}

/// A map header for `n` entries `key -> i`, for `i` in `0..n`: one key, `n` values.
fn map_of_copies<P: Protocol, K: Encode>(key: &K, ktype: TType, n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    P::write_map_begin(&mut out, ktype, TType::I32, n);
    for i in 0..n {
        key.encode::<P, _>(&mut out);
        (i as i32).encode::<P, _>(&mut out);
    }
    out
}

/// Decodes `T` from `input` and checks its peak against `own_heap`, the heap size of the
/// same value built from its distinct elements; returns the value.
#[track_caller]
fn within_its_own_size<P: Protocol, T: DecodeOwned + Debug>(input: &[u8], own_heap: impl Fn(&T) -> usize) -> T {
    let (value, peak) = peak_of(|| thrift_core::from_slice::<P, T>(input).unwrap());
    let heap = own_heap(&value);
    assert!(
        peak <= heap + TRANSIENT,
        "{} {}: peak {peak} bytes for a value of {heap} heap bytes (allowed {})",
        P::NAME,
        std::any::type_name::<T>(),
        heap + TRANSIENT
    );
    value
}

/// The heap a B-tree collection needs: cloning it allocates its nodes and elements, nothing else.
fn btree_heap<T: Clone>(v: &T) -> usize {
    peak_of(|| v.clone()).1
}

/// The heap a hash set of its elements needs (cloning would keep its capacity).
fn hash_set_heap<E: Clone + Eq + Hash>(v: &HashSet<E>) -> usize {
    peak_of(|| v.iter().cloned().collect::<HashSet<E>>()).1
}

/// The heap a hash map of its entries needs.
fn hash_map_heap<K: Clone + Eq + Hash, V: Clone>(m: &HashMap<K, V>) -> usize {
    peak_of(|| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<HashMap<K, V>>()).1
}

fn sets_of_copies<P: Protocol>() {
    let ints = set_of_copies::<P, _>(&7i32, TType::I32, COPIES);
    let set: BTreeSet<i32> = within_its_own_size::<P, _>(&ints, btree_heap);
    assert_eq!(set, BTreeSet::from([7]));
    let set: HashSet<i32> = within_its_own_size::<P, _>(&ints, hash_set_heap);
    assert_eq!(set, HashSet::from([7]));

    let words = set_of_copies::<P, _>(&WORD, TType::String, COPIES);
    let set: BTreeSet<String> = within_its_own_size::<P, _>(&words, btree_heap);
    assert_eq!(set, BTreeSet::from([WORD.to_string()]));
    let set: HashSet<String> = within_its_own_size::<P, _>(&words, hash_set_heap);
    assert_eq!(set, HashSet::from([WORD.to_string()]));
}

fn maps_of_copies<P: Protocol>() {
    // The last value of a repeated key wins.
    let last = COPIES as i32 - 1;
    let ints = map_of_copies::<P, _>(&7i32, TType::I32, COPIES);
    let map: BTreeMap<i32, i32> = within_its_own_size::<P, _>(&ints, btree_heap);
    assert_eq!(map, BTreeMap::from([(7, last)]));
    let map: HashMap<i32, i32> = within_its_own_size::<P, _>(&ints, hash_map_heap);
    assert_eq!(map, HashMap::from([(7, last)]));

    let words = map_of_copies::<P, _>(&WORD, TType::String, COPIES);
    let map: BTreeMap<String, i32> = within_its_own_size::<P, _>(&words, btree_heap);
    assert_eq!(map, BTreeMap::from([(WORD.to_string(), last)]));
    let map: HashMap<String, i32> = within_its_own_size::<P, _>(&words, hash_map_heap);
    assert_eq!(map, HashMap::from([(WORD.to_string(), last)]));
}

#[test]
fn the_counter_sees_a_peak() {
    let (_, peak) = peak_of(|| drop(Vec::<u8>::with_capacity(1 << 20)));
    assert!(peak >= 1 << 20, "{peak}");
}

#[test]
fn a_set_of_copies_of_one_element_peaks_at_its_own_size_compact() {
    sets_of_copies::<Compact>();
}

#[test]
fn a_set_of_copies_of_one_element_peaks_at_its_own_size_binary() {
    sets_of_copies::<Binary>();
}

#[test]
fn a_map_with_copies_of_one_key_peaks_at_its_own_size_compact() {
    maps_of_copies::<Compact>();
}

#[test]
fn a_map_with_copies_of_one_key_peaks_at_its_own_size_binary() {
    maps_of_copies::<Binary>();
}

#[test]
fn alternating_copies_of_two_elements_peak_at_their_own_size() {
    // a, b, a, b, ...: no run of equal neighbours to fold.
    let mut input = Vec::new();
    Compact::write_list_begin(&mut input, TType::String, COPIES);
    for i in 0..COPIES {
        let word = if i % 2 == 0 { "first of two words" } else { "second of two words" };
        word.encode::<Compact, _>(&mut input);
    }
    let set: BTreeSet<String> = within_its_own_size::<Compact, _>(&input, btree_heap);
    assert_eq!(set.len(), 2);
    let set: HashSet<String> = within_its_own_size::<Compact, _>(&input, hash_set_heap);
    assert_eq!(set.len(), 2);
}

#[test]
fn sets_and_maps_of_distinct_elements_in_any_order_decode_whole() {
    // Sorted, reversed and shuffled, past every bound on what is gathered before building.
    let n = 50_000i64;
    let sorted: Vec<i64> = (0..n).collect();
    let reversed: Vec<i64> = (0..n).rev().collect();
    let shuffled: Vec<i64> = (0..n).map(|i| (i * 7919) % n).collect();
    for order in [sorted, reversed, shuffled] {
        let mut input = Vec::new();
        Compact::write_list_begin(&mut input, TType::I64, order.len());
        for v in &order {
            v.encode::<Compact, _>(&mut input);
        }
        let set: BTreeSet<i64> = thrift_core::from_slice::<Compact, _>(&input).unwrap();
        assert!(set.iter().copied().eq(0..n));
        let set: HashSet<i64> = thrift_core::from_slice::<Compact, _>(&input).unwrap();
        assert_eq!(set.len(), n as usize);

        let mut input = Vec::new();
        Binary::write_map_begin(&mut input, TType::String, TType::I64, order.len());
        for v in &order {
            format!("key {v:08}").encode::<Binary, _>(&mut input);
            (v * 2).encode::<Binary, _>(&mut input);
        }
        let map: BTreeMap<String, i64> = thrift_core::from_slice::<Binary, _>(&input).unwrap();
        assert_eq!(map.len(), n as usize);
        assert!(map.iter().enumerate().all(|(i, (k, v))| *k == format!("key {i:08}") && *v == 2 * i as i64));
        let map: HashMap<String, i64> = thrift_core::from_slice::<Binary, _>(&input).unwrap();
        assert_eq!(map.len(), n as usize);
        assert_eq!(map["key 00000042"], 84);
    }
}

#[test]
fn a_repeated_key_after_a_sorted_run_keeps_its_last_value_and_sets_take_any_order() {
    // {1: 10, 2: 20, 3: 30, 2: 21, 1: 11}: the run of sorted keys ends at the second 2.
    let mut input = Vec::new();
    Binary::write_map_begin(&mut input, TType::I32, TType::I32, 5);
    for (k, v) in [(1i32, 10i32), (2, 20), (3, 30), (2, 21), (1, 11)] {
        k.encode::<Binary, _>(&mut input);
        v.encode::<Binary, _>(&mut input);
    }
    let map: BTreeMap<i32, i32> = thrift_core::from_slice::<Binary, _>(&input).unwrap();
    assert_eq!(map, BTreeMap::from([(1, 11), (2, 21), (3, 30)]));
    let map: HashMap<i32, i32> = thrift_core::from_slice::<Binary, _>(&input).unwrap();
    assert_eq!(map, HashMap::from([(1, 11), (2, 21), (3, 30)]));
    // The same with keys and values that own heap memory (gathered only while increasing).
    let mut input = Vec::new();
    Compact::write_map_begin(&mut input, TType::String, TType::String, 5);
    for (k, v) in [("a", "10"), ("b", "20"), ("c", "30"), ("b", "21"), ("a", "11")] {
        k.encode::<Compact, _>(&mut input);
        v.encode::<Compact, _>(&mut input);
    }
    let map: BTreeMap<String, String> = thrift_core::from_slice::<Compact, _>(&input).unwrap();
    let expected = [("a", "11"), ("b", "21"), ("c", "30")].map(|(k, v)| (k.to_string(), v.to_string()));
    assert_eq!(map, BTreeMap::from(expected));
    let set: BTreeSet<String> = thrift_core::from_slice::<Compact, _>(&{
        let mut set = Vec::new();
        Compact::write_list_begin(&mut set, TType::String, 4);
        for w in ["b", "c", "a", "c"] {
            w.encode::<Compact, _>(&mut set);
        }
        set
    })
    .unwrap();
    assert!(set.iter().map(String::as_str).eq(["a", "b", "c"]));
}

#[test]
fn b_tree_sets_and_maps_of_distinct_elements_peak_at_their_own_size() {
    // Sorted (bulk-built up to the run's bound, the rest inserted) and shuffled, past the
    // bound on what is gathered: the run and the sort's scratch stay within the allowance.
    let n = 20_000i64;
    for order in [(0..n).collect::<Vec<_>>(), (0..n).map(|i| (i * 7919) % n).collect()] {
        let mut ints = Vec::new();
        Compact::write_list_begin(&mut ints, TType::I64, order.len());
        for v in &order {
            v.encode::<Compact, _>(&mut ints);
        }
        let set: BTreeSet<i64> = within_its_own_size::<Compact, _>(&ints, btree_heap);
        assert_eq!(set.len(), n as usize);

        let mut words = Vec::new();
        Binary::write_map_begin(&mut words, TType::String, TType::I64, order.len() / 4);
        for v in &order[..order.len() / 4] {
            format!("key {v:08}").encode::<Binary, _>(&mut words);
            v.encode::<Binary, _>(&mut words);
        }
        let map: BTreeMap<String, i64> = within_its_own_size::<Binary, _>(&words, btree_heap);
        assert_eq!(map.len(), n as usize / 4);
    }
}
