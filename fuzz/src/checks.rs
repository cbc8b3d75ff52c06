//! The invariants the targets check, beyond "no panic": allocation bounded by the input,
//! decode and skip agreeing, re-encoded values decoding to equal values, chunked and whole
//! delivery giving the same messages, and the transports agreeing with core's skip.
//!
//! Every failed check panics, which libFuzzer reports as a crash with the input saved.

use std::fmt::Debug;

use bytes::{Bytes, BytesMut};
use thrift_core::{skip, Binary, Compact, Decode, Encode, Limits, Protocol, Reader, TType};
use thrift_net::{TransportError, TransportErrorKind};
use thrift_net::codec::{decode_message, BufferedCodec, FramedCodec};
use tokio_util::codec::Decoder;

use crate::alloc::{assert_bounded, measure};
use crate::chunks::Chunks;
use crate::shapes::{Args, Rich, Shape, Tree};
use crate::Hex;

/// What a call that only reads headers or walks (skip, envelopes, detection) may allocate
/// whatever its input: its explicit stack (at most 64 frames of 24 bytes, doubled) and an
/// error with its message.
pub const WALK_BYTES: usize = 16 * 1024;

/// Decodes `data` as `T` in `P` (through `from_slice`, `from_bytes` and a bare `Reader`),
/// checking the allocation bound, that the three agree, and that whenever decoding succeeds
/// skipping succeeds too and ends at the same byte. Returns the `from_bytes` result, whose
/// `Bytes` fields share `input`.
pub fn decode_agrees<'a, P: Protocol, T>(input: &'a Bytes) -> thrift_core::Result<T>
where
    T: Decode<'a> + PartialEq + Debug,
{
    let data: &'a [u8] = input;
    let (from_slice, usage) = measure(|| thrift_core::from_slice::<P, T>(data));
    assert_bounded(std::any::type_name::<T>(), data.len(), usage);
    let from_bytes = thrift_core::from_bytes::<P, T>(input);
    match (&from_slice, &from_bytes) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "from_slice and from_bytes differ"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "from_slice and from_bytes fail apart"),
        (a, b) => panic!("from_slice gave {a:?}, from_bytes {b:?}"),
    }
    let mut r = Reader::new(data);
    let prefix = T::decode::<P>(&mut r);
    let mut s = Reader::new(data);
    let skipped = skip::<P>(&mut s, T::TTYPE);
    if prefix.is_ok() {
        assert!(skipped.is_ok(), "{}: decoded but skip failed: {skipped:?} on {:?}", P::NAME, Hex(data));
        assert_eq!(r.position(), s.position(), "{}: decode and skip end apart on {:?}", P::NAME, Hex(data));
    }
    // from_slice is decode plus "all input consumed".
    assert_eq!(from_slice.is_ok(), prefix.is_ok() && r.is_empty(), "{}: from_slice disagrees with decode", P::NAME);
    from_bytes
}

/// Re-encodes `v` in `P` and `Q`: each encoding has exactly the reported length, skips
/// whole, and decodes (through `same_p` / `same_q`, which compare with `v`) to an equal value.
pub fn reencodes<P: Protocol, Q: Protocol, V: Encode + Debug + ?Sized>(
    v: &V,
    same_p: impl Fn(&[u8]) -> thrift_core::Result<bool>,
    same_q: impl Fn(&[u8]) -> thrift_core::Result<bool>,
) {
    for (name, bytes, len, same) in [
        (P::NAME, thrift_core::to_vec::<P, V>(v), v.encoded_len::<P>(), &same_p as &dyn Fn(&[u8]) -> _),
        (Q::NAME, thrift_core::to_vec::<Q, V>(v), v.encoded_len::<Q>(), &same_q as &dyn Fn(&[u8]) -> _),
    ] {
        assert_eq!(bytes.len(), len, "{name}: encoded_len is not exact for {v:?}");
        match same(&bytes) {
            Ok(true) => {}
            Ok(false) => panic!("{name}: re-encoded value decodes to another value: {v:?} as {:?}", Hex(&bytes)),
            Err(e) => panic!("{name}: re-encoded value does not decode: {e}: {v:?} as {:?}", Hex(&bytes)),
        }
    }
    let bytes = thrift_core::to_vec::<P, V>(v);
    let mut r = Reader::new(&bytes);
    skip::<P>(&mut r, V::TTYPE).unwrap_or_else(|e| panic!("{}: re-encoded value does not skip: {e}", P::NAME));
    assert!(r.is_empty(), "{}: skip of a re-encoded value stops early", P::NAME);
}

/// Decodes `data` as the shape `which` (0 `Rich`, 1 `Tree`, 2 `Args`, 3 `list<Shape>`) in
/// `P`, and when it decodes, checks that it re-encodes in both protocols to equal values.
pub fn roundtrip<P: Protocol, Q: Protocol>(which: u8, data: &[u8]) {
    let input = Bytes::copy_from_slice(data);
    macro_rules! shape {
        ($t:ty) => {{
            if let Ok(v) = decode_agrees::<P, $t>(&input) {
                reencodes::<P, Q, _>(
                    &v,
                    |b| thrift_core::from_slice::<P, $t>(b).map(|w| w == v),
                    |b| thrift_core::from_slice::<Q, $t>(b).map(|w| w == v),
                );
            }
        }};
    }
    match which % 4 {
        0 => shape!(Rich<'_>),
        1 => shape!(Tree),
        2 => shape!(Args<'_>),
        _ => shape!(Vec<Shape>),
    }
}

/// Runs [`roundtrip`] in the protocol bit 0 of `sel` picks.
pub fn roundtrip_either(sel: u8, data: &[u8]) {
    if sel & 1 == 0 {
        roundtrip::<Binary, Compact>(sel >> 1, data);
    } else {
        roundtrip::<Compact, Binary>(sel >> 1, data);
    }
}

/// Skips `data` as `ttype` in `P`: at most [`WALK_BYTES`] allocated, and a value that skips
/// in `p` bytes no longer skips when cut shorter.
pub fn skip_walks<P: Protocol>(ttype: TType, data: &[u8]) {
    let mut r = Reader::new(data);
    let (res, usage) = measure(|| skip::<P>(&mut r, ttype));
    assert!(usage.total <= WALK_BYTES, "{}: skip of {ttype} allocated {usage:?}", P::NAME);
    if matches!(ttype, TType::Stop | TType::Void) {
        assert!(res.is_err(), "{}: skipped a {ttype}", P::NAME);
    }
    if res.is_ok() {
        let end = r.position();
        for cut in [end.saturating_sub(1), end / 2] {
            if cut < end {
                let res = skip::<P>(&mut Reader::new(&data[..cut]), ttype);
                assert!(
                    res.is_err(),
                    "{}: {ttype} skips in {end} bytes and in {cut} of them: {:?}",
                    P::NAME,
                    Hex(data)
                );
            }
        }
    }
}

/// What a codec made of a stream: the messages it yielded, then how it ended.
pub struct Outcome {
    /// Every message yielded, in order.
    pub messages: Vec<Bytes>,
    /// `Ok` at a clean end of stream, else the error.
    pub end: Result<(), TransportError>,
}

impl Outcome {
    /// The ending as a comparable string: the whole error, except that a stream ending
    /// mid-message is placed only by the message's stream offset. Where in that message the
    /// scanner stood depends on the delivery: after a "need N bytes" it does not walk again
    /// until N bytes are there, so a stream ending before that leaves it at the token that
    /// asked, while the same bytes delivered at once are walked up to the last whole token.
    pub fn end_text(&self) -> String {
        match &self.end {
            Ok(()) => "clean end".into(),
            Err(e) if matches!(e.kind(), TransportErrorKind::Truncated { .. }) => {
                format!("{} {:?} in the message at stream offset {:?}", e.phase(), e.kind(), e.stream_offset())
            }
            Err(e) => format!("{e} [{:?}]", e.kind()),
        }
    }
}

/// Feeds a stream to `codec` in the given chunks, taking every message as soon as it is
/// whole, then ends the stream.
pub fn run_codec<'s, D>(codec: &mut D, chunks: impl Iterator<Item = &'s [u8]>) -> Outcome
where
    D: Decoder<Item = Bytes, Error = TransportError>,
{
    let mut buf = BytesMut::new();
    let mut messages = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(m)) => messages.push(m),
                Ok(None) => break,
                Err(e) => return Outcome { messages, end: Err(e) },
            }
        }
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => return Outcome { messages, end: Ok(()) },
            Err(e) => return Outcome { messages, end: Err(e) },
        }
    }
}

/// Checks a whole message as the buffered codec yielded it: core reads its envelope and
/// skips its body, ending exactly at its end.
fn core_walks<P: Protocol>(msg: &[u8]) -> thrift_core::Result<usize> {
    let mut r = Reader::new(msg);
    P::read_message_begin(&mut r)?;
    skip::<P>(&mut r, TType::Struct)?;
    Ok(r.position())
}

/// Decodes a whole message as [`Args`], within the allocation bound.
fn decode_args<P: Protocol>(msg: &Bytes) {
    let (res, usage) = measure(|| decode_message::<P, Args<'_>>(msg, &Limits::default()).map(drop));
    assert_bounded("decode_message Args", msg.len(), usage);
    let _ = res;
}

/// The buffered codec on `stream` in `P`, fed in chunks from `seed`: it allocates within
/// the bound, examines a bounded number of bytes, yields the same messages and ending as
/// when fed the whole stream at once, and agrees with core's skip on where each message
/// ends and on whether the message it stopped in is malformed.
pub fn buffered<P: Protocol>(seed: u32, stream: &[u8]) {
    let mut codec = BufferedCodec::<P>::new();
    let (chunked, usage) = measure(|| {
        let out = run_codec(&mut codec, Chunks::new(stream, seed));
        (out, codec.bytes_examined())
    });
    let (chunked, examined) = chunked;
    assert_bounded("buffered codec", stream.len(), usage);
    assert!(
        examined <= 32 * stream.len() as u64 + 64,
        "buffered codec examined {examined} bytes for a stream of {}",
        stream.len()
    );
    let whole = run_codec(&mut BufferedCodec::<P>::new(), std::iter::once(stream));
    assert_eq!(chunked.messages, whole.messages, "chunked and whole delivery yield different messages");
    assert_eq!(chunked.end_text(), whole.end_text(), "chunked and whole delivery end differently");

    let mut at = 0;
    for msg in &whole.messages {
        assert_eq!(&stream[at..at + msg.len()], &msg[..], "a message is not the next bytes of the stream");
        let walked = core_walks::<P>(msg);
        assert_eq!(walked, Ok(msg.len()), "core does not walk a message the scanner yielded: {:?}", Hex(msg));
        decode_args::<P>(msg);
        at += msg.len();
    }
    if let Err(e) = &whole.end {
        // The scanner refused the rest of the stream: core must not walk a message there.
        let rest = &stream[at..];
        if let Ok(end) = core_walks::<P>(rest) {
            panic!("the scanner failed with {e} but core walks a {end}-byte message from {:?}", Hex(rest));
        }
    }
}

/// Frames as Apache's framed transport lays them out, read by hand: the model the framed
/// codec is checked against. Returns the frames and whether the stream ends cleanly.
fn model_frames(stream: &[u8], max: usize) -> (Vec<&[u8]>, bool) {
    let mut frames = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let Some(prefix) = rest.get(..4) else { return (frames, false) };
        let len = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
        if len <= 0 || len as usize > max {
            return (frames, false);
        }
        let Some(frame) = rest.get(4..4 + len as usize) else { return (frames, false) };
        frames.push(frame);
        rest = &rest[4 + len as usize..];
    }
    (frames, true)
}

/// The framed codec on `stream`, fed in chunks from `seed`, with the maximum frame size
/// `max`: within the allocation bound, the same frames and ending as whole delivery and as
/// the frames read by hand, each frame decoded as a message within the bound.
pub fn framed<P: Protocol>(seed: u32, max: usize, stream: &[u8]) {
    let mut codec = FramedCodec::<P>::with_max_frame_len(max);
    let (chunked, usage) = measure(|| run_codec(&mut codec, Chunks::new(stream, seed)));
    assert_bounded("framed codec", stream.len(), usage);
    let whole = run_codec(&mut FramedCodec::<P>::with_max_frame_len(max), std::iter::once(stream));
    assert_eq!(chunked.messages, whole.messages, "chunked and whole delivery yield different frames");
    assert_eq!(chunked.end_text(), whole.end_text(), "chunked and whole delivery end differently");
    let (frames, clean) = model_frames(stream, max);
    let got: Vec<&[u8]> = whole.messages.iter().map(|m| &m[..]).collect();
    assert_eq!(got, frames, "the codec's frames differ from the frames read by hand");
    assert_eq!(whole.end.is_ok(), clean, "the codec ends as {} on {:?}", whole.end_text(), Hex(stream));
    for frame in &whole.messages {
        decode_args::<P>(frame);
    }
}

/// Reads `data`'s envelope in `P`: at most [`WALK_BYTES`] allocated, and a header that reads
/// writes at its reported length and reads back equal.
pub fn envelope<P: Protocol>(data: &[u8]) {
    let mut r = Reader::new(data);
    let (res, usage) = measure(|| P::read_message_begin(&mut r));
    assert!(usage.total <= WALK_BYTES, "{}: envelope read allocated {usage:?}", P::NAME);
    if let Ok(header) = res {
        let mut again = Vec::new();
        P::write_message_begin(&mut again, &header);
        assert_eq!(again.len(), P::message_begin_len(&header), "{}: message_begin_len is not exact", P::NAME);
        assert!(again.len() <= r.position() + 3, "{}: {header:?} re-encodes longer than it read", P::NAME);
        let back = P::read_message_begin(&mut Reader::new(&again));
        assert_eq!(back, Ok(header), "{}: a re-encoded envelope reads back differently", P::NAME);
    }
}

/// Protocol detection on every prefix of `data` (the first 64, then every 16th): within
/// [`WALK_BYTES`], a `NeedMore` asks for more than it was given, and a verdict (found, or an
/// error) given on a prefix is the verdict on the whole input.
pub fn detection(data: &[u8]) {
    let limits = Limits::default();
    let (full, usage) = measure(|| thrift_net::codec::detect(data, &limits));
    assert!(usage.total <= WALK_BYTES, "detect allocated {usage:?}");
    let full_text = full.as_ref().map_err(|e| std::mem::discriminant(e.kind()));
    for n in (0..data.len()).filter(|n| *n < 64 || n % 16 == 0) {
        match thrift_net::codec::detect(&data[..n], &limits) {
            Ok(thrift_net::codec::Detection::NeedMore(more)) => {
                assert!(more > n, "detect asked for {more} bytes after {n}")
            }
            Ok(found) => assert_eq!(Ok(&found), full_text, "detect changed its answer after {n} bytes"),
            Err(e) => assert_eq!(
                Err(std::mem::discriminant(e.kind())),
                full_text,
                "detect failed with {e} after {n} bytes, then said {full:?}"
            ),
        }
    }
}

/// `data` as the JSON of a [`Rich`] and as a JSON message with a [`Tree`] body: the transcoder and the
/// decode after it allocate within the bound; what decodes re-encodes to JSON that decodes
/// to an equal value (compared after one trip, since JSON has one NaN and the input's NaN
/// payloads are not kept); and the buffered transport's message scanner never reads past
/// its limits or disagrees with the envelope reader about where a message begins.
pub fn json(data: &[u8]) {
    let limits = Limits::default();
    let ((), usage) = measure(|| {
        if let Ok(binary) = thrift_core::json::to_binary::<Rich<'static>>(data, &limits) {
            if let Ok(v) = thrift_core::from_slice::<Binary, Rich<'_>>(&binary) {
                let once = thrift_core::json::to_vec(&v);
                let b1 = thrift_core::json::to_binary::<Rich<'static>>(&once, &limits)
                    .unwrap_or_else(|e| panic!("our own JSON does not transcode: {e}: {v:?}"));
                let v1 = thrift_core::from_slice::<Binary, Rich<'_>>(&b1)
                    .unwrap_or_else(|e| panic!("our own JSON does not decode: {e}: {v:?}"));
                let twice = thrift_core::json::to_vec(&v1);
                let b2 = thrift_core::json::to_binary::<Rich<'static>>(&twice, &limits)
                    .unwrap_or_else(|e| panic!("our own JSON does not transcode: {e}: {v1:?}"));
                let v2 = thrift_core::from_slice::<Binary, Rich<'_>>(&b2)
                    .unwrap_or_else(|e| panic!("our own JSON does not decode: {e}: {v1:?}"));
                assert_eq!(v1, v2, "JSON re-encoding changed the value");
            }
        }
    });
    assert_bounded("json::to_binary + decode", data.len(), usage);

    let mut r = Reader::new(data);
    let (header, usage) = measure(|| thrift_core::json::read_message_begin(&mut r));
    assert!(usage.total <= WALK_BYTES, "json envelope read allocated {usage:?}");
    if header.is_ok() {
        let body = &data[r.position()..];
        let (_, usage) = measure(|| thrift_core::json::decode_body::<Tree>(body, &limits).is_ok());
        assert_bounded("json::decode_body", body.len(), usage);
    }
    let mut scanner = thrift_core::json::MessageScanner::new(4096, 8);
    let (end, usage) = measure(|| scanner.scan(data));
    assert!(usage.total <= WALK_BYTES, "json scanner allocated {usage:?}");
    if let Ok(Some(end)) = end {
        assert!(end <= data.len().min(4096), "the scanner ended a message at {end} of {}", data.len());
    }
}
