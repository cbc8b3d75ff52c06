//! [`LazyList`]: a borrowed `list` kept as its bytes, its elements decoded when read.
//!
//! A `Vec` of borrowed elements still costs an allocation per list, and a message made of
//! many small lists (a Parquet footer's column paths and encodings, one of each per column
//! chunk) spends more in the allocator than in decoding. A `LazyList` borrows the list's bytes
//! from the input instead. Decoding still reads every element once, with the reader's limits,
//! so a `LazyList` that decoded holds a list whose elements all decode: reading them later
//! cannot fail, and a bad element is an error of the message's decode, at the same offset as
//! for a `Vec`.

use std::fmt;
use std::marker::PhantomData;

use bytes::BufMut;

use super::containers::{nested, read_list_len};
use crate::encode::{Decode, Encode, ThriftType};
use crate::error::{ErrorKind, Result};
use crate::limits::Limits;
use crate::protocol::{Binary, Compact, Protocol};
use crate::reader::Reader;
use crate::wire::TType;

/// A `list<T>` borrowed from the input: decoding checks every element and keeps their bytes,
/// iterating decodes them again. For borrowed element types (numbers, enums, `&str`,
/// `&[u8]`, structs of those), whose decode allocates nothing.
///
/// Encoding in the protocol it was decoded from copies the bytes as they came; in another,
/// it writes each element anew. A `LazyList` only comes from decoding (an empty one is its
/// `Default`): a list to send is a `Vec`, which encodes to the same bytes.
///
/// ```
/// use thrift_core::{Compact, LazyList};
/// let wire = thrift_core::to_vec::<Compact, _>(&vec!["a", "b", "c"]);
/// let list: LazyList<'_, &str> = thrift_core::from_slice::<Compact, _>(&wire).unwrap();
/// assert_eq!(list.len(), 3);
/// assert_eq!(list.iter().collect::<Vec<_>>(), ["a", "b", "c"]);
/// assert_eq!(thrift_core::to_vec::<Compact, _>(&list), wire);
/// ```
pub struct LazyList<'de, T> {
    /// The elements as on the wire, without the list's header.
    bytes: &'de [u8],
    /// A list's count is an `i32` on the wire; `u32` and a one-byte protocol keep the value
    /// at 24 bytes, a `Vec`'s size.
    len: u32,
    /// The protocol `bytes` are in (its `Protocol::ID`).
    protocol: u8,
    /// Holds `T`s in the way a `&'de [T]` does, so a struct of borrowed fields stays covariant
    /// in its lifetime (a stored `fn(&mut Reader<'de>)` would make it invariant).
    elems: PhantomData<&'de [T]>,
}

/// What re-reading elements that have decoded once needs: no limit, since they passed the
/// decode's own (a fresh reader starts at depth 0 with its own budget).
const CHECKED: Limits = Limits {
    max_depth: u16::MAX,
    max_string_len: usize::MAX,
    max_container_len: usize::MAX,
    max_frame_len: usize::MAX,
    max_message_len: usize::MAX,
    strict_binary_envelope: false,
};

impl<'de, T> LazyList<'de, T> {
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the list has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements' bytes as they came, without the list's header.
    #[inline]
    pub fn as_bytes(&self) -> &'de [u8] {
        self.bytes
    }
}

impl<'de, T: Decode<'de>> LazyList<'de, T> {
    /// The elements, each decoded as it is reached.
    #[inline]
    pub fn iter(&self) -> LazyListIter<'de, T> {
        // `Protocol` is sealed: these are all the protocols a list can have come in.
        let decode: fn(&mut Reader<'de>) -> Result<T> =
            if self.protocol == Compact::ID { T::decode::<Compact> } else { T::decode::<Binary> };
        LazyListIter { reader: Reader::new(self.bytes).with_limits(CHECKED), left: self.len(), decode }
    }
}

/// The elements of a [`LazyList`], decoded one by one.
pub struct LazyListIter<'de, T> {
    reader: Reader<'de>,
    left: usize,
    decode: fn(&mut Reader<'de>) -> Result<T>,
}

impl<T> Iterator for LazyListIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // Each element decoded from these bytes once already, in the same protocol; an error
        // here cannot happen, and would end the iteration rather than panic.
        let item = (self.decode)(&mut self.reader).ok();
        if item.is_none() {
            self.left = 0;
        }
        item
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for LazyListIter<'_, T> {}

impl<'de, T: Decode<'de>> IntoIterator for &LazyList<'de, T> {
    type Item = T;
    type IntoIter = LazyListIter<'de, T>;

    #[inline]
    fn into_iter(self) -> LazyListIter<'de, T> {
        self.iter()
    }
}

impl<T: ThriftType> ThriftType for LazyList<'_, T> {
    const TTYPE: TType = TType::List;
    #[inline]
    fn json_shape() -> crate::json::Shape {
        crate::json::Shape::Elems(T::json_shape)
    }
}

/// Decodes from any input that outlives `'a`, as a `&'a str` does: a struct of lifetime `'a`
/// decodes its fields from a `Reader<'de>` with `'de: 'a`.
impl<'de: 'a, 'a, T: Decode<'de>> Decode<'de> for LazyList<'a, T> {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        nested(r, |r| {
            let len = read_list_len::<P>(r, T::TTYPE)?;
            // Both protocols write the count as an `i32`; a bigger one cannot be a list's.
            let Ok(count) = u32::try_from(len) else {
                let what = "a list's count";
                return Err(r.error(ErrorKind::LengthTooLarge { len: len as u64, limit: u32::MAX.into(), what }));
            };
            let (rest, before) = (r.rest(), r.remaining());
            for _ in 0..len {
                T::decode::<P>(r)?;
            }
            Ok(LazyList { bytes: &rest[..before - r.remaining()], len: count, protocol: P::ID, elems: PhantomData })
        })
    }
}

impl<'de, T: Encode + Decode<'de>> Encode for LazyList<'de, T> {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_list_begin(buf, T::TTYPE, self.len());
        if P::ID == self.protocol {
            buf.put_slice(self.bytes);
        } else {
            for item in self {
                item.encode::<P, B>(buf);
            }
        }
    }

    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        let elems = if P::ID == self.protocol {
            self.bytes.len()
        } else {
            self.iter().map(|item| item.encoded_len::<P>()).sum()
        };
        P::list_begin_len(self.len()) + elems
    }
}

/// An empty list.
impl<T> Default for LazyList<'_, T> {
    fn default() -> Self {
        LazyList { bytes: &[], len: 0, protocol: Binary::ID, elems: PhantomData }
    }
}

impl<T> Clone for LazyList<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for LazyList<'_, T> {}

/// Element by element, whatever protocol each came in.
impl<'de, T: Decode<'de> + PartialEq> PartialEq for LazyList<'de, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<'de, T: Decode<'de> + fmt::Debug> fmt::Debug for LazyList<'de, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(feature = "idl")]
impl<T: crate::idl::IdlType> crate::idl::IdlType for LazyList<'_, T> {
    fn idl_type(idl: &mut crate::idl::Idl) -> String {
        format!("list<{}>", T::idl_type(idl))
    }
}

/// As a sequence of its elements, like a `Vec`.
#[cfg(feature = "serde")]
impl<'de, T: Decode<'de> + serde::Serialize> serde::Serialize for LazyList<'de, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::LazyList;
    use crate::{Binary, Compact, Encode, ErrorKind, Limits, Protocol};

    fn decodes_like_a_vec<P: Protocol>() {
        let long = "x".repeat(300);
        let values = vec!["", "a", "héllo", &long];
        let wire = crate::to_vec::<P, _>(&values);
        let list: LazyList<'_, &str> = crate::from_slice::<P, _>(&wire).unwrap();
        assert_eq!((list.len(), list.is_empty()), (4, false));
        assert_eq!(list.iter().collect::<Vec<_>>(), values);
        assert_eq!(list.iter().len(), 4);
        // The strings are the input's, not copies.
        assert!(list.iter().all(|s| wire.as_ptr_range().contains(&s.as_ptr()) || s.is_empty()));
        assert!(wire.ends_with(list.as_bytes()));
        assert_eq!(crate::to_vec::<P, _>(&list), wire);
        assert_eq!(list.encoded_len::<P>(), wire.len());
        assert_eq!(format!("{list:?}"), format!("{values:?}"));
        assert_eq!(std::mem::size_of_val(&list), std::mem::size_of::<Vec<&str>>());
    }

    #[test]
    fn decodes_like_a_vec_and_reencodes_its_bytes() {
        decodes_like_a_vec::<Binary>();
        decodes_like_a_vec::<Compact>();
    }

    #[test]
    fn encodes_in_another_protocol_element_by_element() {
        let values: Vec<i64> = vec![0, -1, 300, i64::MIN, i64::MAX];
        let compact = crate::to_vec::<Compact, _>(&values);
        let list: LazyList<'_, i64> = crate::from_slice::<Compact, _>(&compact).unwrap();
        let binary = crate::to_vec::<Binary, _>(&values);
        assert_eq!(crate::to_vec::<Binary, _>(&list), binary);
        assert_eq!(list.encoded_len::<Binary>(), binary.len());
        let again: LazyList<'_, i64> = crate::from_slice::<Binary, _>(&binary).unwrap();
        assert_eq!(again, list);
        assert_ne!(again, LazyList::default());
    }

    #[test]
    fn a_bad_element_fails_the_decode_where_a_vec_fails() {
        // A list of two strings, the second not UTF-8.
        let wire = [0x28, 0x01, b'a', 0x02, 0xc3, 0x28];
        let lazy = crate::from_slice::<Compact, LazyList<'_, &str>>(&wire).unwrap_err();
        let vec = crate::from_slice::<Compact, Vec<&str>>(&wire).unwrap_err();
        assert_eq!((lazy.kind(), lazy.offset()), (&ErrorKind::InvalidUtf8, vec.offset()));
        // A list of i32 where strings are expected.
        let wire = crate::to_vec::<Binary, _>(&vec![1i32]);
        let err = crate::from_slice::<Binary, LazyList<'_, &str>>(&wire).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::UnexpectedElementType { .. }), "{err}");
    }

    #[test]
    fn counts_as_a_level_of_nesting_and_checks_its_elements_under_the_limits() {
        let nested = vec![vec![vec![1i32]]];
        let wire = crate::to_vec::<Binary, _>(&nested);
        let limits = |max_depth| Limits { max_depth, ..Limits::default() };
        type Lists<'a> = LazyList<'a, Vec<Vec<i32>>>;
        assert!(crate::from_slice_with_limits::<Binary, Lists<'_>>(&wire, &limits(3)).is_ok());
        let err = crate::from_slice_with_limits::<Binary, Lists<'_>>(&wire, &limits(2)).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::DepthExceeded(2));
        let lists: Lists<'_> = crate::from_slice_with_limits::<Binary, _>(&wire, &limits(3)).unwrap();
        assert_eq!(lists.iter().collect::<Vec<_>>(), nested);
    }

    /// Compiles only if a `LazyList` is covariant in its lifetime, as `&'a str` is: a struct of
    /// borrowed fields then compares with one decoded from shorter-lived input.
    #[allow(dead_code)]
    fn shorten<'short, 'long: 'short>(list: LazyList<'long, &'long str>) -> LazyList<'short, &'short str> {
        list
    }

    #[test]
    fn an_empty_list_is_the_default() {
        let wire = crate::to_vec::<Compact, _>(&Vec::<&str>::new());
        let list: LazyList<'_, &str> = crate::from_slice::<Compact, _>(&wire).unwrap();
        assert!(list.is_empty());
        assert_eq!(list, LazyList::default());
        assert_eq!(crate::to_vec::<Compact, _>(&LazyList::<&str>::default()), wire);
    }
}
