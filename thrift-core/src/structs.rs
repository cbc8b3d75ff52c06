//! Helpers that derived structs call field by field; they own the per-struct state (the
//! previous field id that compact deltas need) so generated code stays thin.

use std::marker::PhantomData;

use bytes::BufMut;

use crate::encode::{Decode, Encode};
use crate::error::{ErrorKind, Result};
use crate::protocol::{FieldHeader, Protocol};
use crate::reader::Reader;
use crate::walk::skip;
use crate::wire::TType;

/// Writes the fields of one struct, then its stop byte.
///
/// ```
/// use thrift_core::{Compact, StructEncoder, StructSizer};
/// let mut buf = Vec::new();
/// let mut s = StructEncoder::<Compact, _>::new(&mut buf);
/// s.field(1, "hi");
/// s.field(2, &true);
/// s.finish();
/// // field 1: delta 1, binary; length 2; "hi"; field 2: delta 1, true; stop
/// assert_eq!(buf, [0x18, 0x02, b'h', b'i', 0x11, 0x00]);
///
/// let mut n = StructSizer::<Compact>::new();
/// n.field(1, "hi");
/// n.field(2, &true);
/// assert_eq!(n.finish(), buf.len());
/// ```
pub struct StructEncoder<'b, P, B: ?Sized> {
    buf: &'b mut B,
    last_id: i16,
    protocol: PhantomData<P>,
}

impl<'b, P: Protocol, B: BufMut + ?Sized> StructEncoder<'b, P, B> {
    /// Starts a struct.
    #[inline]
    pub fn new(buf: &'b mut B) -> Self {
        StructEncoder { buf, last_id: 0, protocol: PhantomData }
    }

    /// Writes field `id` with value `value`.
    #[inline]
    pub fn field<T: Encode + ?Sized>(&mut self, id: i16, value: &T) {
        value.encode_field::<P, B>(id, self.last_id, self.buf);
        self.last_id = id;
    }

    /// Ends the struct.
    #[inline]
    pub fn finish(self) {
        P::write_field_stop(self.buf);
    }
}

/// Computes the exact encoded length of one struct, field by field, mirroring
/// [`StructEncoder`].
pub struct StructSizer<P> {
    len: usize,
    last_id: i16,
    protocol: PhantomData<P>,
}

impl<P: Protocol> Default for StructSizer<P> {
    fn default() -> Self {
        StructSizer { len: 0, last_id: 0, protocol: PhantomData }
    }
}

impl<P: Protocol> StructSizer<P> {
    /// Starts a struct.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts field `id` with value `value`.
    #[inline]
    pub fn field<T: Encode + ?Sized>(&mut self, id: i16, value: &T) {
        self.len += value.field_len::<P>(id, self.last_id);
        self.last_id = id;
    }

    /// The struct's length, stop byte included.
    #[inline]
    pub fn finish(self) -> usize {
        self.len + 1
    }
}

/// Reads the fields of one struct: call [`next_field`](StructDecoder::next_field) until it
/// returns `None`, and [`read`](StructDecoder::read) or [`skip`](StructDecoder::skip) each.
///
/// Entering counts one level of nesting against the depth limit; reaching the stop byte
/// leaves it.
///
/// ```
/// use thrift_core::{Binary, Reader, StructDecoder};
/// // field 1: i32 7; stop
/// let input = [0x08, 0x00, 0x01, 0, 0, 0, 7, 0x00];
/// let mut r = Reader::new(&input);
/// let mut s = StructDecoder::<Binary>::begin(&mut r).unwrap();
/// let mut value: Option<i32> = None;
/// while let Some(field) = s.next_field(&mut r).unwrap() {
///     match field.id {
///         1 => s.read(&mut r, field, &mut value).unwrap(),
///         _ => s.skip(&mut r, field).unwrap(),
///     }
/// }
/// assert_eq!(value, Some(7));
/// ```
pub struct StructDecoder<P> {
    last_id: i16,
    protocol: PhantomData<P>,
}

impl<P: Protocol> StructDecoder<P> {
    /// Enters a struct.
    #[inline]
    pub fn begin(r: &mut Reader<'_>) -> Result<Self> {
        r.enter()?;
        Ok(StructDecoder { last_id: 0, protocol: PhantomData })
    }

    /// The next field's header, or `None` after the stop byte.
    // Always inlined, as the protocols' header readers: derived decoders call it once per
    // field, and large ones would otherwise keep it out of line.
    #[inline(always)]
    pub fn next_field(&mut self, r: &mut Reader<'_>) -> Result<Option<FieldHeader>> {
        let field = P::read_field_begin(r, &mut self.last_id)?;
        if field.is_none() {
            r.leave();
        }
        Ok(field)
    }

    /// Reads the field's value into `slot` when its wire type is `T`'s (a later duplicate
    /// replaces an earlier one), and skips it otherwise, as Apache's C++ and Java libraries
    /// do (with a `tracing` debug event when the `tracing` feature is on).
    #[inline]
    pub fn read<'de, T: Decode<'de>>(
        &mut self,
        r: &mut Reader<'de>,
        field: FieldHeader,
        slot: &mut Option<T>,
    ) -> Result<()> {
        if field.ttype == T::TTYPE {
            *slot = Some(T::decode::<P>(r)?);
            Ok(())
        } else {
            skipped_wrong_type(field, T::TTYPE, r.position());
            skip::<P>(r, field.ttype)
        }
    }

    /// Like [`read`](StructDecoder::read), for a required field: another wire type is an
    /// [`ErrorKind::WrongFieldType`](crate::ErrorKind::WrongFieldType) at the field, not
    /// a skip that would later be reported as a missing field.
    ///
    /// ```
    /// use thrift_core::{Binary, ErrorKind, Reader, StructDecoder, TType};
    /// // field 1: i64 7; stop
    /// let input = [0x0a, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 7, 0x00];
    /// let mut r = Reader::new(&input);
    /// let mut s = StructDecoder::<Binary>::begin(&mut r).unwrap();
    /// let field = s.next_field(&mut r).unwrap().unwrap();
    /// let mut value: Option<i32> = None;
    /// let err = s.read_required(&mut r, field, &mut value).unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::WrongFieldType { expected: TType::I32, found: TType::I64 });
    /// ```
    #[inline]
    pub fn read_required<'de, T: Decode<'de>>(
        &mut self,
        r: &mut Reader<'de>,
        field: FieldHeader,
        slot: &mut Option<T>,
    ) -> Result<()> {
        if field.ttype == T::TTYPE {
            *slot = Some(T::decode::<P>(r)?);
            Ok(())
        } else {
            Err(r.error(ErrorKind::WrongFieldType { expected: T::TTYPE, found: field.ttype }))
        }
    }

    /// Skips a field this struct does not know.
    #[inline]
    pub fn skip(&mut self, r: &mut Reader<'_>, field: FieldHeader) -> Result<()> {
        skip::<P>(r, field.ttype)
    }
}

/// Reports a known field skipped for its wire type: the peer's schema differs from ours, which
/// the message survives but an operator wants to know about.
#[cold]
#[inline(never)]
#[allow(unused_variables)]
fn skipped_wrong_type(field: FieldHeader, expected: TType, offset: usize) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        field_id = field.id,
        found = %field.ttype,
        %expected,
        offset,
        "skipped a known field with another wire type than its Rust type"
    );
}
