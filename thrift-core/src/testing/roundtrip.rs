//! Roundtrip checks: a value survives encode → decode in both protocols, at its reported
//! length, and `skip` steps over exactly its encoding.

use std::fmt;

use bytes::Bytes;

use super::hex_dump::hex_dump;
use crate::encode::{Decode, DecodeOwned, Encode};
use crate::error::Result;
use crate::protocol::{Binary, Compact, Protocol};
use crate::reader::Reader;

/// A failed check: what went wrong, in which protocol, for which value, with the bytes and
/// the offset where it showed.
///
/// Its `Display` is the whole report: the value's `Debug`, the protocol and a hex dump with
/// the failing byte in brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The protocol's name ([`Protocol::NAME`]).
    pub protocol: &'static str,
    /// What went wrong.
    pub what: String,
    /// The value checked, as `Debug` prints it.
    pub value: String,
    /// The encoding involved.
    pub bytes: Vec<u8>,
    /// Where in `bytes` the failure showed, when known.
    pub offset: Option<usize>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "in {}: {}", self.protocol, self.what)?;
        writeln!(f, "value: {}", self.value)?;
        match self.offset {
            Some(offset) => writeln!(f, "at offset {offset} of {} bytes:", self.bytes.len())?,
            None => writeln!(f, "{} bytes:", self.bytes.len())?,
        }
        f.write_str(&hex_dump(&self.bytes, self.offset))
    }
}

impl std::error::Error for Failure {}

// A `Failure` ends a proptest case with `?`: proptest turns any `Error` into a
// `TestCaseError` carrying its `Display`.
/// How a check reads a value back from its encoding: from a slice, and from a shared
/// `Bytes` buffer (where `Bytes` fields share it instead of copying).
pub(super) trait DecodeFrom<T> {
    fn decode_slice<P: Protocol>(&self, bytes: &[u8]) -> Result<T>;
    fn decode_bytes<P: Protocol>(&self, bytes: Bytes) -> Result<T>;
}

/// Decodes a type that owns its data.
pub(super) struct Owned;

impl<T: DecodeOwned> DecodeFrom<T> for Owned {
    fn decode_slice<P: Protocol>(&self, bytes: &[u8]) -> Result<T> {
        crate::from_slice::<P, T>(bytes)
    }
    fn decode_bytes<P: Protocol>(&self, bytes: Bytes) -> Result<T> {
        crate::from_bytes::<P, T>(&bytes)
    }
}

/// Decodes a type that borrows for `'static` from a leaked copy of the input: a check
/// cannot name the lifetime of a buffer it makes itself.
pub(super) struct Leaked;

impl<T: Decode<'static>> DecodeFrom<T> for Leaked {
    fn decode_slice<P: Protocol>(&self, bytes: &[u8]) -> Result<T> {
        crate::from_slice::<P, T>(Box::leak(bytes.to_vec().into_boxed_slice()))
    }
    fn decode_bytes<P: Protocol>(&self, bytes: Bytes) -> Result<T> {
        crate::from_bytes::<P, T>(Box::leak(Box::new(bytes)))
    }
}

/// `value` encoded with `P`, checked to be exactly `encoded_len` long.
pub(super) fn encode_exact<P: Protocol, T: Encode + fmt::Debug + ?Sized>(value: &T) -> Result<Vec<u8>, Failure> {
    let reported = value.encoded_len::<P>();
    let mut bytes = Vec::with_capacity(reported);
    value.encode::<P, _>(&mut bytes);
    if bytes.len() != reported {
        let written = bytes.len();
        return Err(failure::<P>(
            format!("encoded_len reported {reported} bytes, encode wrote {written}"),
            value,
            bytes,
            Some(reported.min(written)),
        ));
    }
    Ok(bytes)
}

/// A [`Failure`] in protocol `P`.
pub(super) fn failure<P: Protocol>(
    what: String,
    value: &(impl fmt::Debug + ?Sized),
    bytes: Vec<u8>,
    offset: Option<usize>,
) -> Failure {
    Failure { protocol: P::NAME, what, value: format!("{value:?}"), bytes, offset }
}

/// The first offset where two encodings differ.
pub(super) fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// Checks `decoded` (read back from `bytes`) against `expected`, which `bytes` encodes.
pub(super) fn compare<P: Protocol, T: Encode + PartialEq + fmt::Debug>(
    how: &str,
    decoded: Result<T>,
    expected: &T,
    bytes: &[u8],
) -> Result<(), Failure> {
    match decoded {
        Err(e) => Err(failure::<P>(format!("decoding {how} failed: {e}"), expected, bytes.to_vec(), e.offset())),
        Ok(back) if back == *expected => Ok(()),
        Ok(back) => {
            // Where the decoded value's own encoding departs from the input is where the
            // decoder went wrong (or the encoder wrote something it cannot read).
            let again = crate::to_vec::<P, T>(&back);
            let at = first_difference(bytes, &again);
            Err(failure::<P>(
                format!("decoding {how} gave another value: {back:?}"),
                expected,
                bytes.to_vec(),
                Some(at),
            ))
        }
    }
}

/// Every check of one protocol.
fn roundtrip_in<P: Protocol, T, D>(value: &T, decode: &D) -> Result<(), Failure>
where
    T: Encode + PartialEq + fmt::Debug,
    D: DecodeFrom<T>,
{
    let bytes = encode_exact::<P, T>(value)?;

    let mut r = Reader::new(&bytes);
    match crate::skip::<P>(&mut r, T::TTYPE) {
        Err(e) => return Err(failure::<P>(format!("skip failed: {e}"), value, bytes.clone(), e.offset())),
        Ok(()) if r.position() != bytes.len() => {
            let at = r.position();
            return Err(failure::<P>(
                format!("skip consumed {at} of the {} bytes", bytes.len()),
                value,
                bytes.clone(),
                Some(at),
            ));
        }
        Ok(()) => {}
    }

    compare::<P, T>("from a slice", decode.decode_slice::<P>(&bytes), value, &bytes)?;
    compare::<P, T>("from Bytes", decode.decode_bytes::<P>(Bytes::from(bytes.clone())), value, &bytes)
}

/// Both protocols' checks.
pub(super) fn roundtrip_with<T, D>(value: &T, decode: &D) -> Result<(), Failure>
where
    T: Encode + PartialEq + fmt::Debug,
    D: DecodeFrom<T>,
{
    roundtrip_in::<Binary, T, D>(value, decode)?;
    roundtrip_in::<Compact, T, D>(value, decode)
}

/// Checks, in the binary and the compact protocol, that `value` encodes to exactly
/// `encoded_len` bytes, that `skip` consumes exactly those bytes, and that they decode back
/// to `value` both from a slice and from a shared [`Bytes`] buffer.
///
/// The [`Failure`] says which check failed; use it with `?` in a `proptest!` body.
///
/// ```
/// use std::collections::BTreeMap;
/// let scores: BTreeMap<String, Vec<i64>> = [("ada".to_string(), vec![3, 1, 4])].into();
/// thrift_core::testing::roundtrip(&scores).unwrap();
/// ```
pub fn roundtrip<T>(value: &T) -> Result<(), Failure>
where
    T: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    roundtrip_with(value, &Owned)
}

/// [`roundtrip`] for a type that borrows from its input (`&'static str` fields): it decodes
/// from a leaked copy of each encoding, since a check cannot name the lifetime of a buffer
/// it makes itself. Meant for tests, which leak a few small buffers per case.
pub fn roundtrip_borrowed<T>(value: &T) -> Result<(), Failure>
where
    T: Encode + Decode<'static> + PartialEq + fmt::Debug,
{
    roundtrip_with(value, &Leaked)
}

/// Panics with the report of the first check of [`roundtrip`] that fails.
///
/// ```should_panic
/// // An i64 read back as an i32 does not roundtrip:
/// #[derive(Debug, PartialEq)]
/// struct Wide(i64);
/// # impl thrift_core::ThriftType for Wide { const TTYPE: thrift_core::TType = thrift_core::TType::I32; }
/// # impl thrift_core::Encode for Wide {
/// #     fn encode<P: thrift_core::Protocol, B: bytes::BufMut + ?Sized>(&self, buf: &mut B) { self.0.encode::<P, B>(buf) }
/// #     fn encoded_len<P: thrift_core::Protocol>(&self) -> usize { self.0.encoded_len::<P>() }
/// # }
/// # impl<'de> thrift_core::Decode<'de> for Wide {
/// #     fn decode<P: thrift_core::Protocol>(r: &mut thrift_core::Reader<'de>) -> thrift_core::Result<Self> {
/// #         i32::decode::<P>(r).map(|v| Wide(v.into()))
/// #     }
/// # }
/// thrift_core::testing::assert_roundtrip(&Wide(1 << 40));
/// ```
#[track_caller]
pub fn assert_roundtrip<T>(value: &T)
where
    T: Encode + DecodeOwned + PartialEq + fmt::Debug,
{
    if let Err(failure) = roundtrip(value) {
        panic!("roundtrip failed {failure}");
    }
}

/// [`assert_roundtrip`] for a type that borrows from its input; see [`roundtrip_borrowed`].
#[track_caller]
pub fn assert_roundtrip_borrowed<T>(value: &T)
where
    T: Encode + Decode<'static> + PartialEq + fmt::Debug,
{
    if let Err(failure) = roundtrip_borrowed(value) {
        panic!("roundtrip failed {failure}");
    }
}

/// Checks that `value`'s encoding decodes as `Other` (another form of the same Thrift type:
/// the owned twin of a borrowing struct, an `Arc<str>` for a `&str`) and that `Other`
/// writes the same bytes again, in both protocols.
///
/// ```
/// use std::sync::Arc;
/// thrift_core::testing::assert_same_encoding::<Vec<Arc<str>>, _>(&vec!["a", "b"]);
/// ```
#[track_caller]
pub fn assert_same_encoding<Other, T>(value: &T)
where
    Other: Encode + DecodeOwned + fmt::Debug,
    T: Encode + fmt::Debug + ?Sized,
{
    fn check<P: Protocol, Other: Encode + DecodeOwned + fmt::Debug, T: Encode + fmt::Debug + ?Sized>(
        value: &T,
    ) -> Result<(), Failure> {
        let bytes = encode_exact::<P, T>(value)?;
        let other = crate::from_slice::<P, Other>(&bytes).map_err(|e| {
            failure::<P>(
                format!("decoding as {} failed: {e}", std::any::type_name::<Other>()),
                value,
                bytes.clone(),
                e.offset(),
            )
        })?;
        let again = encode_exact::<P, Other>(&other)?;
        if again != bytes {
            let at = first_difference(&bytes, &again);
            return Err(failure::<P>(format!("{other:?} writes other bytes"), value, bytes, Some(at)));
        }
        Ok(())
    }
    if let Err(failure) = check::<Binary, Other, T>(value).and_then(|()| check::<Compact, Other, T>(value)) {
        panic!("the forms disagree {failure}");
    }
}
