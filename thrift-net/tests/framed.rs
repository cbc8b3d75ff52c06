//! The framed transport over real TCP connections: frames of every shape in random chunks
//! come out whole and decode equal; the frame limit is checked from the prefix alone.

mod common;

use bytes::BytesMut;
use common::net::{in_memory, over_tcp, End};
use common::value::{any_chunks, any_msg, cut, Msg, Value};
use proptest::prelude::*;
use thrift_core::{
    ApplicationException, ApplicationExceptionKind, Binary, Compact, MessageHeader, MessageType, Protocol,
};
use thrift_net::codec::{decode_message, FramedCodec, Message};
use thrift_net::{Phase, TransportErrorKind};
use tokio_util::codec::Encoder;

fn framed(msgs: &[Vec<u8>]) -> Vec<u8> {
    let mut wire = Vec::new();
    for m in msgs {
        wire.extend_from_slice(&(m.len() as u32).to_be_bytes());
        wire.extend_from_slice(m);
    }
    wire
}

fn roundtrip_tcp<P: Protocol>(msgs: &[Msg], sizes: &[usize]) {
    let encoded: Vec<Vec<u8>> = msgs.iter().map(Msg::encode::<P>).collect();
    let chunks = cut(&framed(&encoded), sizes).into_iter().map(<[u8]>::to_vec).collect();
    let got = over_tcp(chunks, End::Close, FramedCodec::<P>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(got.messages.len(), msgs.len());
    for ((bytes, msg), enc) in got.messages.iter().zip(msgs).zip(&encoded) {
        assert_eq!(&bytes[..], &enc[..]);
        assert_eq!(Msg::decode::<P>(bytes).unwrap().normalized(), msg.normalized());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn frames_of_every_shape_cross_tcp_in_random_chunks(
        msgs in proptest::collection::vec(any_msg(), 1..4),
        sizes in any_chunks(),
        compact in any::<bool>(),
    ) {
        if compact {
            roundtrip_tcp::<Compact>(&msgs, &sizes);
        } else {
            roundtrip_tcp::<Binary>(&msgs, &sizes);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random bytes over a real connection, then its end: frames or an error, within the
    /// deadline.
    #[test]
    fn garbage_over_tcp_ends_in_an_error(garbage in proptest::collection::vec(any::<u8>(), 1..400), sizes in any_chunks()) {
        let pieces = cut(&garbage, &sizes).into_iter().map(<[u8]>::to_vec).collect();
        let got = over_tcp(pieces, End::Close, FramedCodec::<Binary>::with_max_frame_len(1000));
        let taken: usize = got.messages.iter().map(|m| m.len() + 4).sum();
        prop_assert!(got.error.is_some() || taken == garbage.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random bytes: frames or an error, never a panic.
    #[test]
    fn garbage_gives_errors_not_panics(garbage in proptest::collection::vec(any::<u8>(), 0..600), sizes in any_chunks()) {
        let got = in_memory(&cut(&garbage, &sizes), &mut FramedCodec::<Binary>::with_max_frame_len(1000));
        let taken: usize = got.messages.iter().map(|m| m.len() + 4).sum();
        prop_assert!(taken <= garbage.len());
        prop_assert!(got.error.is_some() || taken == garbage.len());
    }
}

#[test]
fn encoder_writes_frames_the_decoder_and_the_derived_code_read_back() {
    let mut codec = FramedCodec::<Compact>::new();
    let mut wire = BytesMut::new();
    let exc = ApplicationException::new(ApplicationExceptionKind::InternalError, "boom");
    for seqid in 0..3 {
        let header = MessageHeader { name: "frob", kind: MessageType::Exception, seqid };
        codec.encode(Message::new(header, &exc), &mut wire).unwrap();
    }
    let got = over_tcp(vec![wire.to_vec()], End::Close, FramedCodec::<Compact>::new());
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(got.messages.len(), 3);
    for (seqid, m) in got.messages.iter().enumerate() {
        let (h, body): (_, ApplicationException) = decode_message::<Compact, _>(m, &Default::default()).unwrap();
        assert_eq!((h.name, h.seqid, &body), ("frob", seqid as i32, &exc));
    }
}

#[test]
fn an_oversized_frame_errors_from_its_prefix_before_the_payload_arrives() {
    let mut wire = (20_000_000u32).to_be_bytes().to_vec();
    wire.extend_from_slice(&[0x80, 0x01, 0x00, 0x01]);
    let got = over_tcp(vec![wire], End::KeepOpen, FramedCodec::<Binary>::new());
    let e = got.error.expect("frame too large");
    assert!(matches!(e.kind(), TransportErrorKind::FrameTooLarge { len: 20_000_000, max: 16_384_000 }), "{e}");
    assert_eq!(e.phase(), Phase::Frame);

    // After whole frames, the stream offset of the bad prefix is reported.
    let ok = Msg::new("a", Value::Struct(Vec::new())).encode::<Binary>();
    let mut wire = framed(std::slice::from_ref(&ok));
    wire.extend_from_slice(&(-1i32).to_be_bytes());
    let got = over_tcp(vec![wire], End::KeepOpen, FramedCodec::<Binary>::new());
    assert_eq!(got.messages.len(), 1);
    let e = got.error.expect("negative length");
    assert!(matches!(e.kind(), TransportErrorKind::NegativeFrameLength(-1)), "{e}");
    assert_eq!(e.stream_offset(), Some(ok.len() as u64 + 4));
}

#[test]
fn a_truncated_frame_is_an_error_at_eof() {
    let ok = Msg::new("a", Value::Struct(vec![(1, Value::I64(9))])).encode::<Binary>();
    let wire = framed(&[ok.clone(), ok]);
    for keep in [1, 3, 4, 10, wire.len() - 1] {
        let got = over_tcp(vec![wire[..keep].to_vec()], End::Close, FramedCodec::<Binary>::new());
        let e = got.error.expect("truncated");
        assert!(matches!(e.kind(), TransportErrorKind::Truncated { .. }), "{keep}: {e}");
    }
}
