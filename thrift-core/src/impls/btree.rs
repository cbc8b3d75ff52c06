//! Building B-tree sets and maps from the wire in bulk, holding little beyond the value.
//!
//! `FromIterator` builds a B-tree from a `Vec` without a search per element (it sorts, which
//! is linear on the sorted order writers produce from sorted collections, then fills the
//! nodes left to right), several times faster than inserting one by one. But the `Vec` and
//! the sort's scratch buffer (as large as the `Vec`) are transient, and elements that turn
//! out to be repeats are dropped only then: a set of a million copies of one element would
//! hold a million elements to build a set of one. So only a bounded run is gathered, and the
//! elements after it are inserted one by one:
//! - elements that own no heap memory (no drop glue: numbers, bools, borrowed strings) are
//!   gathered as they come, at most [`PLAIN_GATHER_BYTES`] of them: with the sort's
//!   scratch, that bounds what a decode holds beyond the value whatever repeats they hold;
//! - other elements (strings, structs, containers) only while each is above the one before,
//!   at most [`RUN_GATHER_BYTES`] of them: every element gathered is then distinct and part
//!   of the value, so gathering adds at most the run itself (the value holds the same
//!   elements), and a repeat, however large, is never held twice. The check is one
//!   comparison per element: about 5% of decoding a map with short string keys.
//!
//! Sets and maps larger than the run pay a search per element beyond it, several times the
//! cost of the bulk build per element (a `BTreeMap` has no stable way to build from a
//! sorted stream without holding all of it).

use std::collections::{BTreeMap, BTreeSet};
use std::mem::{needs_drop, size_of};

use crate::encode::Decode;
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;

/// The most bytes of elements that own nothing on the heap gathered before building; with
/// the sort's scratch, 60 KiB at most.
const PLAIN_GATHER_BYTES: usize = 30 * 1024;

/// The most bytes of an increasing run of other elements gathered before building.
const RUN_GATHER_BYTES: usize = 48 * 1024;

/// How many elements of `T` to gather, given the declared count and the most the caller
/// would reserve for it.
#[inline]
fn gather_len<T>(len: usize, reserve: usize) -> usize {
    let bytes = if needs_drop::<T>() { RUN_GATHER_BYTES } else { PLAIN_GATHER_BYTES };
    len.min(reserve).min(bytes / size_of::<T>().max(1))
}

/// Decodes the `len` elements of a set (its header read).
#[inline]
pub(super) fn set<'de, P: Protocol, T: Decode<'de> + Ord>(
    r: &mut Reader<'de>,
    len: usize,
    reserve: usize,
) -> Result<BTreeSet<T>> {
    let most = gather_len::<T>(len, reserve);
    let mut run: Vec<T> = Vec::with_capacity(most);
    let mut read = most;
    if !needs_drop::<T>() {
        // Read at once: the number types check the bounds of a fixed-width run only once.
        T::decode_seq::<P>(r, most, &mut run)?;
    } else {
        read = 0;
        while read < most {
            let v = T::decode::<P>(r)?;
            read += 1;
            if run.last().is_some_and(|last| *last >= v) {
                let mut out: BTreeSet<T> = run.into_iter().collect();
                out.insert(v);
                return insert_rest::<P, T>(r, out, len - read);
            }
            run.push(v);
        }
    }
    let out = run.into_iter().collect();
    insert_rest::<P, T>(r, out, len - read)
}

#[inline]
fn insert_rest<'de, P: Protocol, T: Decode<'de> + Ord>(
    r: &mut Reader<'de>,
    mut out: BTreeSet<T>,
    left: usize,
) -> Result<BTreeSet<T>> {
    for _ in 0..left {
        out.insert(T::decode::<P>(r)?);
    }
    Ok(out)
}

/// Decodes the `len` entries of a map (its header read). A repeated key keeps its last value,
/// in the bulk build (which keeps the last of equal keys) as in an insert (which replaces).
#[inline]
pub(super) fn map<'de, P: Protocol, K: Decode<'de> + Ord, V: Decode<'de>>(
    r: &mut Reader<'de>,
    len: usize,
    reserve: usize,
) -> Result<BTreeMap<K, V>> {
    let most = gather_len::<(K, V)>(len, reserve);
    let plain = !needs_drop::<(K, V)>();
    let mut run: Vec<(K, V)> = Vec::with_capacity(most);
    let mut read = 0;
    while read < most {
        let k = K::decode::<P>(r)?;
        let v = V::decode::<P>(r)?;
        read += 1;
        if !plain && run.last().is_some_and(|(last, _)| *last >= k) {
            let mut out: BTreeMap<K, V> = run.into_iter().collect();
            out.insert(k, v);
            return insert_rest_entries::<P, K, V>(r, out, len - read);
        }
        run.push((k, v));
    }
    let out = run.into_iter().collect();
    insert_rest_entries::<P, K, V>(r, out, len - read)
}

#[inline]
fn insert_rest_entries<'de, P: Protocol, K: Decode<'de> + Ord, V: Decode<'de>>(
    r: &mut Reader<'de>,
    mut out: BTreeMap<K, V>,
    left: usize,
) -> Result<BTreeMap<K, V>> {
    for _ in 0..left {
        let k = K::decode::<P>(r)?;
        out.insert(k, V::decode::<P>(r)?);
    }
    Ok(out)
}
