//! `TApplicationException`: golden bytes (field 1 message: string, field 2 type: i32), every
//! kind's code, roundtrips in both protocols and inside an exception message.

mod common;

use common::{golden, Hex};
use thrift_core::{
    ApplicationException, ApplicationExceptionKind as Kind, Binary, Compact, Decode, MessageHeader, MessageType,
    Protocol, Reader,
};

#[test]
fn golden_binary() {
    golden::<Binary, _>(
        &ApplicationException::new(Kind::InternalError, "boom"),
        &[
            0x0b, 0x00, 0x01, // string field 1 (message)
            0x00, 0x00, 0x00, 0x04, b'b', b'o', b'o', b'm', // "boom"
            0x08, 0x00, 0x02, // i32 field 2 (type)
            0x00, 0x00, 0x00, 0x06, // 6: internal error
            0x00, // stop
        ],
    );
    golden::<Binary, _>(
        &ApplicationException::new(Kind::Other(-2), ""),
        &[0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x02, 0xff, 0xff, 0xff, 0xfe, 0x00],
    );
}

#[test]
fn golden_compact() {
    golden::<Compact, _>(
        &ApplicationException::new(Kind::UnknownMethod, "boom"),
        &[
            0x18, // delta 1, binary (message)
            0x04, b'b', b'o', b'o', b'm', // "boom"
            0x15, // delta 1, i32 (type)
            0x02, // 1 (zigzag): unknown method
            0x00, // stop
        ],
    );
}

#[test]
fn every_kind_has_apache_code_and_roundtrips() {
    let kinds = [
        (Kind::Unknown, 0),
        (Kind::UnknownMethod, 1),
        (Kind::InvalidMessageType, 2),
        (Kind::WrongMethodName, 3),
        (Kind::BadSequenceId, 4),
        (Kind::MissingResult, 5),
        (Kind::InternalError, 6),
        (Kind::ProtocolError, 7),
        (Kind::InvalidTransform, 8),
        (Kind::InvalidProtocol, 9),
        (Kind::UnsupportedClientType, 10),
        (Kind::Loadshedding, 11),
        (Kind::Timeout, 12),
        (Kind::Other(13), 13),
        (Kind::Other(-1), -1),
        (Kind::Other(i32::MAX), i32::MAX),
    ];
    for (kind, code) in kinds {
        assert_eq!(kind.code(), code);
        assert_eq!(Kind::from_code(code), kind);
        let e = ApplicationException::new(kind, format!("kind {code} ✓"));
        let b = thrift_core::to_vec::<Binary, _>(&e);
        assert_eq!(thrift_core::from_slice::<Binary, ApplicationException>(&b).unwrap(), e);
        let c = thrift_core::to_vec::<Compact, _>(&e);
        assert_eq!(thrift_core::from_slice::<Compact, ApplicationException>(&c).unwrap(), e);
        common::assert_skips::<Binary>(thrift_core::TType::Struct, &b);
        common::assert_skips::<Compact>(thrift_core::TType::Struct, &c);
    }
}

#[test]
fn missing_fields_default_to_empty_and_unknown() {
    let e: ApplicationException = thrift_core::from_slice::<Binary, _>(&[0x00]).unwrap();
    assert_eq!(e, ApplicationException::new(Kind::Unknown, ""));
    // Only field 2 (delta 2 from 0), zigzag 8: code 4.
    let e: ApplicationException = thrift_core::from_slice::<Compact, _>(&[0x25, 0x08, 0x00]).unwrap();
    assert_eq!(e, ApplicationException::new(Kind::BadSequenceId, ""));
}

#[test]
fn display_names_kind_code_and_message() {
    let e = ApplicationException::new(Kind::UnknownMethod, "no method frob");
    assert_eq!(e.to_string(), "application exception UnknownMethod (code 1): no method frob");
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("frob"));
}

fn exception_message_in<P: Protocol>() {
    // An exception reply: envelope (type exception), then the struct.
    let header = MessageHeader { name: "frob", kind: MessageType::Exception, seqid: 42 };
    let e = ApplicationException::new(Kind::UnknownMethod, "Invalid method name: 'frob'");
    let mut buf = Vec::with_capacity(P::message_begin_len(&header) + thrift_core::Encode::encoded_len::<P>(&e));
    P::write_message_begin(&mut buf, &header);
    thrift_core::Encode::encode::<P, _>(&e, &mut buf);
    assert_eq!(buf.len(), buf.capacity(), "{} exact size", P::NAME);

    let mut r = Reader::new(&buf);
    assert_eq!(P::read_message_begin(&mut r).unwrap(), header);
    assert_eq!(ApplicationException::decode::<P>(&mut r).unwrap(), e);
    assert!(r.is_empty(), "{}: {:?} left", P::NAME, Hex(r.rest()));
}

#[test]
fn exception_message_roundtrips() {
    exception_message_in::<Binary>();
    exception_message_in::<Compact>();
}

#[test]
fn exception_message_golden_binary() {
    let header = MessageHeader { name: "ping", kind: MessageType::Exception, seqid: 7 };
    let mut buf = Vec::new();
    Binary::write_message_begin(&mut buf, &header);
    thrift_core::Encode::encode::<Binary, _>(&ApplicationException::new(Kind::InternalError, "x"), &mut buf);
    assert_eq!(
        Hex(&buf),
        Hex(&[
            0x80, 0x01, 0x00, 0x03, // version 1, type exception
            0x00, 0x00, 0x00, 0x04, b'p', b'i', b'n', b'g', // name
            0x00, 0x00, 0x00, 0x07, // seqid
            0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, b'x', // message "x"
            0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, // type 6
            0x00, // stop
        ])
    );
}
