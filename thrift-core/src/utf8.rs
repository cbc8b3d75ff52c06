//! The UTF-8 check every decoded string passes, and this crate's only `unsafe`.
//!
//! `std::str::from_utf8` walks a short string byte by byte (its word-at-a-time path starts
//! only past 16 bytes, and aligned), and `simdutf8` hands strings under 64 bytes to it: a
//! third of the instructions of decoding a message of short strings went there. Thrift's
//! strings are mostly short and mostly ASCII, so this check reads ASCII eight bytes at a
//! time at any length and alignment, and each multi-byte character by the table of
//! well-formed sequences (Unicode 15, table 3-7), the rules `from_utf8` applies. When the
//! check fails, `from_utf8` runs to say where. Turning checked bytes into a `str` without
//! checking them again takes `unsafe`; the two functions below hold all of it.

#![allow(unsafe_code)]

use std::str::Utf8Error;

use bytes::Bytes;
use bytestring::ByteString;

/// `bytes` as a `str`, if they are UTF-8.
///
/// The same answer as `std::str::from_utf8`, errors included (the tests check it against
/// every sequence of one or two bytes, every three-byte one led by a byte of 0xC0 or
/// more, four-byte ones, and random text).
#[inline(always)]
pub(crate) fn to_str(bytes: &[u8]) -> Result<&str, Utf8Error> {
    if is_utf8(bytes) {
        // SAFETY: `is_utf8` accepts exactly the well-formed UTF-8 sequences.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

/// Whether `bytes` are well-formed UTF-8.
#[inline(always)]
fn is_utf8(bytes: &[u8]) -> bool {
    let mut at = ascii_prefix(bytes);
    while at < bytes.len() {
        if !bytes[at].is_ascii() {
            match multi_byte_len(&bytes[at..]) {
                Some(len) => at += len,
                None => return false,
            }
        }
        at += ascii_prefix(&bytes[at..]);
    }
    true
}

/// The length of the multi-byte character `bytes` starts with, if it is well formed.
#[inline]
fn multi_byte_len(bytes: &[u8]) -> Option<usize> {
    let first = bytes[0];
    let (len, second) = match first {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
        0xED => (3, 0x80..=0x9F), // not the surrogates U+D800..U+DFFF
        0xF0 => (4, 0x90..=0xBF),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        0xF4 => (4, 0x80..=0x8F), // nothing past U+10FFFF
        _ => return None,
    };
    let sequence = bytes.get(..len)?;
    let continued = sequence[2..].iter().all(|b| b & 0xC0 == 0x80);
    (second.contains(&sequence[1]) && continued).then_some(len)
}

/// How many bytes `bytes` starts with that are ASCII, read eight at a time.
#[inline(always)]
fn ascii_prefix(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut len = 0;
    for word in &mut words {
        let high = u64::from_le_bytes(word.try_into().expect("eight bytes")) & 0x8080_8080_8080_8080;
        if high != 0 {
            return len + high.trailing_zeros() as usize / 8;
        }
        len += 8;
    }
    len + words.remainder().iter().take_while(|b| b.is_ascii()).count()
}

/// `bytes` as a `ByteString` sharing their buffer, if they are UTF-8.
#[inline]
pub(crate) fn to_byte_string(bytes: Bytes) -> Result<ByteString, Utf8Error> {
    to_str(&bytes)?;
    // SAFETY: `to_str` just checked that these bytes are UTF-8.
    Ok(unsafe { ByteString::from_bytes_unchecked(bytes) })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Mostly ASCII, with multi-byte characters, stray continuation bytes and cut sequences
    /// mixed in at every position.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            4 => 0x20u8..0x7f,
            1 => any::<u8>(),
        ];
        let piece = prop_oneof![
            8 => prop::collection::vec(byte, 1..4),
            1 => "[é€😀]".prop_map(|s| s.into_bytes()),
            1 => "[é€😀]".prop_map(|s| s.as_bytes()[..s.len() - 1].to_vec()),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn answers_as_std_does(bytes in text()) {
            let ours = to_str(&bytes);
            let std = std::str::from_utf8(&bytes);
            prop_assert_eq!(ours, std);
            let shared = to_byte_string(Bytes::from(bytes.clone()));
            prop_assert_eq!(shared.as_deref().map_err(|e| *e), std);
        }
    }

    #[test]
    fn every_sequence_of_up_to_three_bytes_is_judged_as_std_judges_it() {
        let judge = |bytes: &[u8]| assert_eq!(to_str(bytes), std::str::from_utf8(bytes), "{bytes:02x?}");
        for a in 0..=255u8 {
            judge(&[a]);
            for b in 0..=255u8 {
                judge(&[a, b]);
                if a >= 0xC0 {
                    for c in 0..=255u8 {
                        judge(&[a, b, c]);
                    }
                }
            }
        }
    }

    #[test]
    fn four_byte_sequences_are_judged_as_std_judges_them() {
        let tails = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0, 0xFF];
        for a in 0xF0..=0xF7u8 {
            for b in 0..=255u8 {
                for c in tails {
                    for d in tails {
                        let bytes = [a, b, c, d];
                        assert_eq!(to_str(&bytes), std::str::from_utf8(&bytes), "{bytes:02x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn ascii_at_every_length_and_alignment_is_a_str() {
        let text = b"the quick brown fox jumps over the lazy dog, twice over";
        for start in 0..8 {
            for end in start..text.len() {
                assert_eq!(to_str(&text[start..end]).unwrap().as_bytes(), &text[start..end]);
            }
        }
    }

    #[test]
    fn one_high_byte_anywhere_is_found() {
        let mut text = vec![b'a'; 40];
        for at in 0..text.len() {
            text[at] = 0xff;
            assert_eq!(to_str(&text).unwrap_err().valid_up_to(), at);
            text[at] = b'a';
        }
    }
}
