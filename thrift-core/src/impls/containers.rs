//! `list` (Vec), `set` (HashSet, BTreeSet) and `map` (HashMap, BTreeMap).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

use bytes::BufMut;

use super::btree;
use crate::encode::{Decode, Encode, ThriftType};
use crate::error::{ErrorKind, Result};
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

/// Checks a declared element type: a non-empty container must declare the type the Rust
/// value holds. An empty one is accepted whatever it declares (compact writes no types for
/// an empty map).
#[inline]
fn check_elem(r: &Reader<'_>, declared: Result<TType, u8>, expected: TType) -> Result<()> {
    match declared {
        Ok(t) if t == expected => Ok(()),
        Ok(found) => Err(r.error(ErrorKind::UnexpectedElementType { expected, found })),
        Err(raw) => Err(r.error(ErrorKind::InvalidType(raw))),
    }
}

/// The most bytes reserved up front for the elements of one container whose elements can
/// themselves hold containers (structs, lists, sets, maps), past the decode's budget
/// ([`RESERVE_PER_INPUT_BYTE`](crate::reader::RESERVE_PER_INPUT_BYTE), which says why
/// there is one); such a container then grows as its elements arrive, each having consumed
/// input (`tests/regress_alloc.rs`). Sets and maps, whose repeated elements are not all in
/// the value, are always bounded so: by this, then by [`HASH_RESERVE_BYTES`] and `btree`.
const NESTED_RESERVE_BYTES: usize = 32 * 1024;

/// How many elements of `size` bytes to reserve room for before reading `len` of them,
/// outside the budget. Scalars and strings, which cannot nest, reserve the count in full:
/// their elements are all in the value.
#[inline]
fn reserve_for(len: usize, nested: bool, size: usize) -> usize {
    if nested {
        len.min(NESTED_RESERVE_BYTES / size.max(1))
    } else {
        len
    }
}

/// How many of a list's `len` elements to reserve room for: all of them while the decode's
/// budget lasts, so a list with a declared count never reallocates and keeps no slack.
#[inline]
fn reserve_list<T: ThriftType>(r: &mut Reader<'_>, len: usize) -> usize {
    let size = std::mem::size_of::<T>();
    if !nests(T::TTYPE) || r.take_reserve(len.saturating_mul(size)) {
        len
    } else {
        reserve_for(len, true, size)
    }
}

/// The most bytes a hash set or map reserves for a declared count, so that its decode peaks
/// at the decoded value's own size plus a small constant, never at what the wire declares (a
/// million copies of one element make a set of one). A table for more distinct elements
/// grows as they arrive.
const HASH_RESERVE_BYTES: usize = 48 * 1024;

/// How many entries of `size` bytes a hash table may reserve of `reserve`, within
/// [`HASH_RESERVE_BYTES`]: hashbrown gives a table for `n` entries the next power of two at
/// or above `n * 8 / 7` buckets of `size + 1` bytes, so up to `2 * 8 / 7` times `n` entries.
#[inline]
fn hash_reserve(reserve: usize, size: usize) -> usize {
    reserve.min(HASH_RESERVE_BYTES * 7 / 16 / (size + 1))
}

/// Whether values of `ttype` can hold containers.
#[inline]
const fn nests(ttype: TType) -> bool {
    matches!(ttype, TType::Struct | TType::List | TType::Set | TType::Map)
}

/// [`reserve_for`] a list or set of `T`.
#[inline]
fn reserve_elems<T: ThriftType>(len: usize) -> usize {
    reserve_for(len, nests(T::TTYPE), std::mem::size_of::<T>())
}

/// [`reserve_for`] a map of `K` to `V`.
#[inline]
fn reserve_entries<K: ThriftType, V: ThriftType>(len: usize) -> usize {
    reserve_for(len, nests(K::TTYPE) || nests(V::TTYPE), std::mem::size_of::<(K, V)>())
}

/// Reads a list or set header for elements of type `elem`, returning the validated count.
#[inline]
pub(crate) fn read_list_len<P: Protocol>(r: &mut Reader<'_>, elem: TType) -> Result<usize> {
    let header = P::read_list_begin(r)?;
    // The declared type first: a mismatch is then reported as such, not as a count that
    // the expected type's sizes cannot fit in the bytes remaining.
    if header.len > 0 {
        check_elem(r, header.elem, elem)?;
    }
    r.check_container_len(header.len, P::min_len(elem))
}

/// Reads a map header for the given key and value types, returning the validated count.
#[inline]
pub(crate) fn read_map_len<P: Protocol>(r: &mut Reader<'_>, key: TType, value: TType) -> Result<usize> {
    let header = P::read_map_begin(r)?;
    // The declared types first, as for lists.
    if header.len > 0 {
        check_elem(r, header.key, key)?;
        check_elem(r, header.value, value)?;
    }
    r.check_container_len(header.len, P::min_len(key) + P::min_len(value))
}

/// Encoded length of `len` elements from `iter`, without visiting them when they all have
/// the same size.
#[inline]
pub(super) fn elems_len<'a, P: Protocol, T: Encode + 'a>(len: usize, iter: impl Iterator<Item = &'a T>) -> usize {
    match T::fixed_len::<P>() {
        Some(each) => each * len,
        None => iter.map(T::encoded_len::<P>).sum(),
    }
}

/// Decodes `len` values with `f` inside one level of nesting.
#[inline]
pub(super) fn nested<'de, R>(r: &mut Reader<'de>, f: impl FnOnce(&mut Reader<'de>) -> Result<R>) -> Result<R> {
    r.enter()?;
    let out = f(r)?;
    r.leave();
    Ok(out)
}

impl<T: ThriftType> ThriftType for Vec<T> {
    const TTYPE: TType = TType::List;
    #[inline]
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Elems(T::json_shape)
    }
}

impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_list_begin(buf, T::TTYPE, self.len());
        T::encode_seq::<P, B>(self.iter(), buf);
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        P::list_begin_len(self.len()) + elems_len::<P, T>(self.len(), self.iter())
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_list_len::<P>(r, T::TTYPE)?;
            let mut out = Vec::with_capacity(reserve_list::<T>(r, len));
            T::decode_seq::<P>(r, len, &mut out)?;
            Ok(out)
        })
    }
}

/// Implements `ThriftType` and `Encode` for a set type.
macro_rules! set {
    ($set:ident < T $(, $s:ident)? >; [$($extra:tt)*]) => {
        impl<T: ThriftType, $($extra)*> ThriftType for $set<T $(, $s)?> {
            const TTYPE: TType = TType::Set;
            #[inline]
            fn json_shape() -> crate::json::Shape {
                crate::json::Shape::Elems(T::json_shape)
            }
        }

        impl<T: Encode, $($extra)*> Encode for $set<T $(, $s)?> {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                P::write_list_begin(buf, T::TTYPE, self.len());
                T::encode_seq::<P, B>(self.iter(), buf);
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                P::list_begin_len(self.len()) + elems_len::<P, T>(self.len(), self.iter())
            }
        }

    };
}

set!(HashSet<T, S>; [S: BuildHasher + Default]);
set!(BTreeSet<T>; []);

impl<'de, T: Decode<'de> + Eq + Hash, S: BuildHasher + Default> Decode<'de> for HashSet<T, S> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_list_len::<P>(r, T::TTYPE)?;
            // Sized once for a set of a common size; a larger one grows as distinct elements
            // arrive, so copies of one element never make a large table.
            let reserve = hash_reserve(reserve_elems::<T>(len), std::mem::size_of::<T>());
            let mut out = HashSet::with_capacity_and_hasher(reserve, S::default());
            for _ in 0..len {
                out.insert(T::decode::<P>(r)?);
            }
            Ok(out)
        })
    }
}

impl<'de, T: Decode<'de> + Ord> Decode<'de> for BTreeSet<T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_list_len::<P>(r, T::TTYPE)?;
            // A bounded run built in bulk, the rest inserted: see `btree`.
            btree::set::<P, T>(r, len, reserve_elems::<T>(len))
        })
    }
}

/// Implements `ThriftType` and `Encode` for a map type.
macro_rules! map {
    ($map:ident < K, V $(, $s:ident)? >; [$($extra:tt)*]) => {
        impl<K: ThriftType, V: ThriftType, $($extra)*> ThriftType for $map<K, V $(, $s)?> {
            const TTYPE: TType = TType::Map;
            #[inline]
            fn json_shape() -> crate::json::Shape {
                crate::json::Shape::Map(K::json_shape, V::json_shape)
            }
        }

        impl<K: Encode, V: Encode, $($extra)*> Encode for $map<K, V $(, $s)?> {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                P::write_map_begin(buf, K::TTYPE, V::TTYPE, self.len());
                for (k, v) in self {
                    k.encode::<P, B>(buf);
                    v.encode::<P, B>(buf);
                }
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                P::map_begin_len(self.len())
                    + elems_len::<P, K>(self.len(), self.keys())
                    + elems_len::<P, V>(self.len(), self.values())
            }
        }

    };
}

map!(HashMap<K, V, S>; [S: BuildHasher + Default]);
map!(BTreeMap<K, V>; []);

impl<'de, K: Decode<'de> + Eq + Hash, V: Decode<'de>, S: BuildHasher + Default> Decode<'de> for HashMap<K, V, S> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_map_len::<P>(r, K::TTYPE, V::TTYPE)?;
            // Sized as for `HashSet`.
            let reserve = hash_reserve(reserve_entries::<K, V>(len), std::mem::size_of::<(K, V)>());
            let mut out = HashMap::with_capacity_and_hasher(reserve, S::default());
            for _ in 0..len {
                let k = K::decode::<P>(r)?;
                out.insert(k, V::decode::<P>(r)?);
            }
            Ok(out)
        })
    }
}

impl<'de, K: Decode<'de> + Ord, V: Decode<'de>> Decode<'de> for BTreeMap<K, V> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_map_len::<P>(r, K::TTYPE, V::TTYPE)?;
            // As for `BTreeSet`; a repeated key keeps its last value.
            btree::map::<P, K, V>(r, len, reserve_entries::<K, V>(len))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use crate::{Binary, Compact};

    /// A map with a repeated key, as another writer might send: `{1: 10, 1: 20}`.
    const REPEATED_KEY: [u8; 22] = [8, 8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 20];

    #[test]
    fn a_repeated_map_key_keeps_its_last_value() {
        let b: BTreeMap<i32, i32> = crate::from_slice::<Binary, _>(&REPEATED_KEY).unwrap();
        assert_eq!(b, BTreeMap::from([(1, 20)]));
        let h: HashMap<i32, i32> = crate::from_slice::<Binary, _>(&REPEATED_KEY).unwrap();
        assert_eq!(h, HashMap::from([(1, 20)]));
    }

    #[test]
    fn sets_decode_unsorted_and_repeated_elements() {
        // set<i32> {3, 1, 3, 2} in compact: header (4 elements, i32), zigzag varints.
        let input = [0x45, 6, 2, 6, 4];
        let s: BTreeSet<i32> = crate::from_slice::<Compact, _>(&input).unwrap();
        assert_eq!(s.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    }
}
