//! bool, the integers and double.

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::wire::TType;

impl ThriftType for bool {
    const TTYPE: TType = TType::Bool;
}

impl Encode for bool {
    #[inline]
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        P::write_bool(buf, *self);
    }
    #[inline]
    fn encoded_len<P: Protocol>(&self) -> usize {
        1
    }
    #[inline]
    fn fixed_len<P: Protocol>() -> Option<usize> {
        Some(1)
    }
    #[inline]
    fn encode_field<P: Protocol, B: BufMut + ?Sized>(&self, id: i16, last_id: i16, buf: &mut B) {
        P::write_bool_field(buf, id, last_id, *self);
    }
    #[inline]
    fn field_len<P: Protocol>(&self, id: i16, last_id: i16) -> usize {
        P::bool_field_len(id, last_id)
    }
}

impl<'de> Decode<'de> for bool {
    #[inline]
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        P::read_bool(r)
    }
}

/// The longest encoding of a number: a ten-byte varint.
const MAX_NUMBER_LEN: usize = 10;

/// Implements the traits for a number type from its protocol functions.
macro_rules! number {
    // `varint_seq`: the protocol's `store_*` for the type, which has varints in the compact
    // protocol (i8 and double are fixed-width in both, and take the default `encode_seq`).
    ($ty:ty, $ttype:ident, $write:ident, $read:ident, |$v:ident| $len:expr, $fixed:expr $(, varint_seq: $store:ident)?) => {
        impl ThriftType for $ty {
            const TTYPE: TType = TType::$ttype;
        }

        impl Encode for $ty {
            #[inline]
            fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
                P::$write(buf, *self);
            }
            #[inline]
            fn encoded_len<P: Protocol>(&self) -> usize {
                let $v = *self;
                $len
            }
            #[inline]
            fn fixed_len<P: Protocol>() -> Option<usize> {
                $fixed
            }
            $(
            #[inline]
            fn encode_seq<'a, P: Protocol, B: BufMut + ?Sized>(items: impl Iterator<Item = &'a Self>, buf: &mut B) {
                // Fixed-width values gain nothing: one put per value already.
                if Self::fixed_len::<P>().is_some() {
                    items.for_each(|item| P::$write(buf, *item));
                    return;
                }
                // Varints go to a stack chunk, whose length is held in a register (`buf`'s
                // lives in memory), each stored whole by the protocol, then to `buf` in one put.
                const CHUNK: usize = 256;
                let mut chunk = [0u8; CHUNK];
                let mut len = 0;
                for item in items {
                    if len > CHUNK - MAX_NUMBER_LEN {
                        buf.put_slice(&chunk[..len]);
                        len = 0;
                    }
                    len += P::$store(&mut chunk[len..], *item);
                }
                buf.put_slice(&chunk[..len]);
            }
            )?
        }

        impl<'de> Decode<'de> for $ty {
            // Always inlined, as the protocols' readers it wraps: large derived decoders
            // otherwise call it once per number field.
            #[inline(always)]
            fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
                P::$read(r)
            }
            #[inline]
            fn decode_seq<P: Protocol>(r: &mut Reader<'de>, len: usize, out: &mut Vec<Self>) -> Result<()> {
                <$ty as FixedSeq>::decode_fixed_seq::<P>(r, len, out)
            }
        }
    };
}

number!(i8, I8, write_i8, read_i8, |_v| 1, Some(1));
#[rustfmt::skip]
number!(i16, I16, write_i16, read_i16, |v| P::i16_len(v), P::FIXED_WIDTH_INTEGERS.then_some(2), varint_seq: store_i16);
#[rustfmt::skip]
number!(i32, I32, write_i32, read_i32, |v| P::i32_len(v), P::FIXED_WIDTH_INTEGERS.then_some(4), varint_seq: store_i32);
#[rustfmt::skip]
number!(i64, I64, write_i64, read_i64, |v| P::i64_len(v), P::FIXED_WIDTH_INTEGERS.then_some(8), varint_seq: store_i64);
number!(f64, Double, write_double, read_double, |_v| 8, Some(8));

/// Overrides [`Decode::decode_seq`] for a number type with a fixed-width big-endian
/// encoding in the binary protocol: the run's bytes are bounds-checked once, then
/// converted in a loop without checks (which the compiler can vectorize).
macro_rules! fixed_seq {
    ($ty:ty, $width:literal, |$bytes:ident| $from_be:expr) => {
        impl FixedSeq for $ty {
            #[inline]
            fn decode_fixed_seq<P: Protocol>(r: &mut Reader<'_>, len: usize, out: &mut Vec<Self>) -> Result<()> {
                // Only the binary protocol has fixed-width integers, and it is big-endian.
                if !P::FIXED_WIDTH_INTEGERS {
                    for _ in 0..len {
                        out.push(<$ty as Decode<'_>>::decode::<P>(r)?);
                    }
                    return Ok(());
                }
                let run = r.read_slice(len.saturating_mul($width))?;
                out.extend(run.chunks_exact($width).map(|chunk| {
                    let mut $bytes = [0u8; $width];
                    $bytes.copy_from_slice(chunk);
                    $from_be
                }));
                Ok(())
            }
        }
    };
}

/// The fixed-width path of [`Decode::decode_seq`] for the number types.
trait FixedSeq: Sized {
    fn decode_fixed_seq<P: Protocol>(r: &mut Reader<'_>, len: usize, out: &mut Vec<Self>) -> Result<()>;
}

fixed_seq!(i8, 1, |b| b[0] as i8);
fixed_seq!(i16, 2, |b| i16::from_be_bytes(b));
fixed_seq!(i32, 4, |b| i32::from_be_bytes(b));
fixed_seq!(i64, 8, |b| i64::from_be_bytes(b));
fixed_seq!(f64, 8, |b| f64::from_bits(u64::from_be_bytes(b)));

#[cfg(test)]
mod tests {
    use crate::{Binary, Compact, Encode, Protocol};

    /// Values of every varint length, more of them than one stack chunk holds.
    fn values() -> Vec<i64> {
        (0..2000)
            .map(|i: i64| {
                (i.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64) >> (i % 64)) * if i % 2 == 0 { 1 } else { -1 }
            })
            .collect()
    }

    fn one_by_one<P: Protocol, T: Encode>(items: &[T]) -> Vec<u8> {
        let mut buf = Vec::new();
        items.iter().for_each(|item| item.encode::<P, _>(&mut buf));
        buf
    }

    fn in_a_run<P: Protocol, T: Encode>(items: &[T]) -> Vec<u8> {
        let mut buf = Vec::new();
        T::encode_seq::<P, _>(items.iter(), &mut buf);
        buf
    }

    #[test]
    fn a_run_writes_what_its_values_write_one_by_one() {
        let longs = values();
        let ints: Vec<i32> = longs.iter().map(|&v| v as i32).collect();
        let shorts: Vec<i16> = longs.iter().map(|&v| v as i16).collect();
        let doubles: Vec<f64> = longs.iter().map(|&v| v as f64).collect();
        assert_eq!(in_a_run::<Compact, _>(&longs), one_by_one::<Compact, _>(&longs));
        assert_eq!(in_a_run::<Compact, _>(&ints), one_by_one::<Compact, _>(&ints));
        assert_eq!(in_a_run::<Compact, _>(&shorts), one_by_one::<Compact, _>(&shorts));
        assert_eq!(in_a_run::<Compact, _>(&doubles), one_by_one::<Compact, _>(&doubles));
        assert_eq!(in_a_run::<Binary, _>(&longs), one_by_one::<Binary, _>(&longs));
        assert_eq!(in_a_run::<Binary, _>(&ints), one_by_one::<Binary, _>(&ints));
        let len: usize = longs.iter().map(|v| v.encoded_len::<Compact>()).sum();
        assert_eq!(in_a_run::<Compact, _>(&longs).len(), len);
    }
}
