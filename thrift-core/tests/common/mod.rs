//! Helpers shared by the integration tests: golden-byte checks and hand-written struct types
//! built on `StructEncoder` / `StructSizer` / `StructDecoder`, the same API derived code uses.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use bytes::BufMut;
use thrift_core::{
    skip, ApplicationException, ApplicationExceptionKind, Decode, DecodeOwned, Encode, Error, ErrorKind, Protocol,
    Reader, Result, StructDecoder, StructEncoder, StructSizer, TType, ThriftType, Uuid,
};

/// Bytes shown as hex, so a golden mismatch reads like the specification.
#[derive(PartialEq, Eq)]
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Checks that `value` encodes to exactly `expected` in protocol `P` (through `encode`,
/// `to_vec` and into a slice of exactly `encoded_len` bytes), that `expected` decodes back to
/// `value` consuming all of it, and that skipping it consumes exactly its length.
#[track_caller]
pub fn golden<P: Protocol, T>(value: &T, expected: &[u8])
where
    T: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    golden_encode::<P, T>(value, expected);
    let back: T = thrift_core::from_slice::<P, T>(expected)
        .unwrap_or_else(|e| panic!("{} decode of {:?} failed: {e}", P::NAME, Hex(expected)));
    assert_eq!(&back, value, "{} decode of {:?}", P::NAME, Hex(expected));
    assert_skips::<P>(T::TTYPE, expected);
}

/// The encoding half of [`golden`], for values that do not decode to their own type.
#[track_caller]
pub fn golden_encode<P: Protocol, T: Encode + ?Sized + fmt::Debug>(value: &T, expected: &[u8]) {
    let mut buf = Vec::new();
    value.encode::<P, _>(&mut buf);
    assert_eq!(Hex(&buf), Hex(expected), "{} encoding of {value:?}", P::NAME);
    assert_eq!(value.encoded_len::<P>(), expected.len(), "{} encoded_len of {value:?}", P::NAME);
    assert_eq!(thrift_core::to_vec::<P, T>(value), expected);
    // A slice of exactly encoded_len bytes: BufMut for &mut [u8] panics if it is too short,
    // and the assertion catches a length that is too long.
    let mut exact = vec![0u8; value.encoded_len::<P>()];
    let mut slice = &mut exact[..];
    value.encode::<P, _>(&mut slice);
    assert_eq!(slice.remaining_mut(), 0, "{} encoded_len of {value:?} too large", P::NAME);
    assert_eq!(Hex(&exact), Hex(expected));
}

/// Checks that skipping one value of type `ttype` from `bytes` consumes all of them.
#[track_caller]
pub fn assert_skips<P: Protocol>(ttype: TType, bytes: &[u8]) {
    let mut r = Reader::new(bytes);
    skip::<P>(&mut r, ttype).unwrap_or_else(|e| panic!("{} skip of {:?} failed: {e}", P::NAME, Hex(bytes)));
    assert_eq!(r.position(), bytes.len(), "{} skip of {:?} stopped early", P::NAME, Hex(bytes));
}

/// Decodes a `T` from `bytes` that must span all of them; the error otherwise.
pub fn decode_err<P: Protocol, T: DecodeOwned + fmt::Debug>(bytes: &[u8]) -> Error {
    match thrift_core::from_slice::<P, T>(bytes) {
        Ok(v) => panic!("{} decoded {:?} as {v:?}, expected an error", P::NAME, Hex(bytes)),
        Err(e) => e,
    }
}

/// Skips one value of type `ttype` from `bytes`, returning the error it must fail with.
pub fn skip_err<P: Protocol>(ttype: TType, bytes: &[u8]) -> Error {
    let mut r = Reader::new(bytes);
    match skip::<P>(&mut r, ttype) {
        Ok(()) => panic!("{} skipped {:?} as {ttype}, expected an error", P::NAME, Hex(bytes)),
        Err(e) => e,
    }
}

/// A struct whose fields all have type `T`, written in the given order with the given ids
/// (any ids, repeated or decreasing), so tests control every field header.
///
/// Decoding keeps the fields in wire order and fails on a field of another wire type, so a
/// golden test notices a wrong type byte.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Fields<T>(pub Vec<(i16, T)>);

impl<T: ThriftType> ThriftType for Fields<T> {
    const TTYPE: TType = TType::Struct;
}

impl<T: Encode> Encode for Fields<T> {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        for (id, v) in &self.0 {
            s.field(*id, v);
        }
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        for (id, v) in &self.0 {
            s.field(*id, v);
        }
        s.finish()
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Fields<T> {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let mut out = Vec::new();
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            let mut slot = None;
            s.read(r, field, &mut slot)?;
            match slot {
                Some(v) => out.push((field.id, v)),
                None => {
                    let msg = format!("field {} has wire type {}, expected {}", field.id, field.ttype, T::TTYPE);
                    return Err(Error::at(ErrorKind::InvalidData(msg), r.position()));
                }
            }
        }
        Ok(Fields(out))
    }
}

/// A nested struct with bools folded into compact headers, long-form and decreasing ids.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Inner {
    /// Field 5.
    pub on: bool,
    /// Field 2 (id decreases from 5: compact long form).
    pub ratio: f64,
    /// Field 3.
    pub uuid: Uuid,
    /// Field 40 (delta 37: compact long form).
    pub blob: Vec<u8>,
    /// Field -1 (negative id).
    pub off: bool,
}

impl ThriftType for Inner {
    const TTYPE: TType = TType::Struct;
}

impl Encode for Inner {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        s.field(5, &self.on);
        s.field(2, &self.ratio);
        s.field(3, &self.uuid);
        s.field(40, &self.blob);
        s.field(-1, &self.off);
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        s.field(5, &self.on);
        s.field(2, &self.ratio);
        s.field(3, &self.uuid);
        s.field(40, &self.blob);
        s.field(-1, &self.off);
        s.finish()
    }
}

impl<'de> Decode<'de> for Inner {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let (mut on, mut ratio, mut uuid, mut blob, mut off) = (None, None, None, None, None);
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            match field.id {
                5 => s.read(r, field, &mut on)?,
                2 => s.read(r, field, &mut ratio)?,
                3 => s.read(r, field, &mut uuid)?,
                40 => s.read(r, field, &mut blob)?,
                -1 => s.read(r, field, &mut off)?,
                _ => s.skip(r, field)?,
            }
        }
        Ok(Inner {
            on: on.unwrap_or_default(),
            ratio: ratio.unwrap_or_default(),
            uuid: uuid.unwrap_or_default(),
            blob: blob.unwrap_or_default(),
            off: off.unwrap_or_default(),
        })
    }
}

/// A struct with one field of most kinds: nested lists, maps, sets, strings, bools, a nested
/// struct and `ApplicationException`s inside a list.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Rich {
    /// Field 1.
    pub id: i32,
    /// Field 2.
    pub name: String,
    /// Field 3.
    pub flag: bool,
    /// Field 4.
    pub matrix: Vec<Vec<i64>>,
    /// Field 5.
    pub index: BTreeMap<String, Vec<i32>>,
    /// Field 6.
    pub inner: Inner,
    /// Field 7.
    pub errors: Vec<ApplicationException>,
    /// Field 8.
    pub tags: BTreeSet<i16>,
    /// Field 9.
    pub bits: Vec<bool>,
    /// Field 10.
    pub small: i8,
}

impl Rich {
    /// A value with every field non-empty.
    pub fn sample() -> Rich {
        Rich {
            id: -123_456,
            name: "naïve café ☕".into(),
            flag: true,
            matrix: vec![vec![1, -2, 3], vec![], vec![i64::MIN, i64::MAX]],
            index: [("ä".to_string(), vec![1, 2]), ("b".to_string(), vec![]), ("long".repeat(5), vec![-7; 16])].into(),
            inner: Inner {
                on: true,
                ratio: -0.125,
                uuid: Uuid(*b"0123456789abcdef"),
                blob: vec![0, 0xff, 0x80, 0x7f],
                off: false,
            },
            errors: vec![
                ApplicationException::new(ApplicationExceptionKind::UnknownMethod, "frob"),
                ApplicationException::new(ApplicationExceptionKind::Other(-9), ""),
            ],
            tags: [-300, 0, 7, 300].into(),
            bits: vec![true, false, false, true, true],
            small: -128,
        }
    }
}

impl ThriftType for Rich {
    const TTYPE: TType = TType::Struct;
}

/// Visits Rich's fields in declaration order with `$s.field(id, value)`.
macro_rules! rich_fields {
    ($self:ident, $s:ident) => {
        $s.field(1, &$self.id);
        $s.field(2, &$self.name);
        $s.field(3, &$self.flag);
        $s.field(4, &$self.matrix);
        $s.field(5, &$self.index);
        $s.field(6, &$self.inner);
        $s.field(7, &$self.errors);
        $s.field(8, &$self.tags);
        $s.field(9, &$self.bits);
        $s.field(10, &$self.small);
    };
}

impl Encode for Rich {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        rich_fields!(self, s);
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        rich_fields!(self, s);
        s.finish()
    }
}

impl<'de> Decode<'de> for Rich {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let mut v = Rich::default();
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            // Each slot starts empty so a field of the wrong wire type leaves the default.
            match field.id {
                1 => read_into(&mut s, r, field, &mut v.id)?,
                2 => read_into(&mut s, r, field, &mut v.name)?,
                3 => read_into(&mut s, r, field, &mut v.flag)?,
                4 => read_into(&mut s, r, field, &mut v.matrix)?,
                5 => read_into(&mut s, r, field, &mut v.index)?,
                6 => read_into(&mut s, r, field, &mut v.inner)?,
                7 => read_into(&mut s, r, field, &mut v.errors)?,
                8 => read_into(&mut s, r, field, &mut v.tags)?,
                9 => read_into(&mut s, r, field, &mut v.bits)?,
                10 => read_into(&mut s, r, field, &mut v.small)?,
                _ => s.skip(r, field)?,
            }
        }
        Ok(v)
    }
}

/// Reads one field into `out` when its wire type matches, as derived code does.
fn read_into<'de, P: Protocol, T: Decode<'de>>(
    s: &mut StructDecoder<P>,
    r: &mut Reader<'de>,
    field: thrift_core::FieldHeader,
    out: &mut T,
) -> Result<()> {
    let mut slot = None;
    s.read(r, field, &mut slot)?;
    if let Some(v) = slot {
        *out = v;
    }
    Ok(())
}
