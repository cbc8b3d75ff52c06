//! `TApplicationException`: the error a server sends when it cannot answer a call.

use std::fmt;

use bytes::BufMut;

use crate::encode::{Decode, Encode, ThriftType};
use crate::error::Result;
use crate::protocol::Protocol;
use crate::reader::Reader;
use crate::structs::{StructDecoder, StructEncoder, StructSizer};
use crate::wire::TType;

/// The kind of a [`ApplicationException`], with Apache Thrift's codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApplicationExceptionKind {
    /// 0: unknown.
    Unknown,
    /// 1: the server has no method by that name.
    UnknownMethod,
    /// 2: the message type was not a call or oneway.
    InvalidMessageType,
    /// 3: the reply names another method.
    WrongMethodName,
    /// 4: the reply's sequence id matches no call.
    BadSequenceId,
    /// 5: the reply carries no result.
    MissingResult,
    /// 6: the handler failed.
    InternalError,
    /// 7: the arguments could not be decoded.
    ProtocolError,
    /// 8: a transform is not supported.
    InvalidTransform,
    /// 9: the protocol is not supported.
    InvalidProtocol,
    /// 10: the client type is not supported.
    UnsupportedClientType,
    /// 11 (fbthrift's `LOADSHEDDING`): the server is overloaded and did not run the call; it
    /// is safe to send again, to another server.
    Loadshedding,
    /// 12 (fbthrift's `TIMEOUT`): the call ran out of time on the server.
    Timeout,
    /// A code this library does not know, kept as received. (A known code built by hand
    /// as `Other` decodes as its named kind.)
    Other(i32),
}

impl ApplicationExceptionKind {
    /// The wire code.
    pub fn code(self) -> i32 {
        use ApplicationExceptionKind::*;
        match self {
            Unknown => 0,
            UnknownMethod => 1,
            InvalidMessageType => 2,
            WrongMethodName => 3,
            BadSequenceId => 4,
            MissingResult => 5,
            InternalError => 6,
            ProtocolError => 7,
            InvalidTransform => 8,
            InvalidProtocol => 9,
            UnsupportedClientType => 10,
            Loadshedding => 11,
            Timeout => 12,
            Other(code) => code,
        }
    }

    /// The kind for a wire code.
    pub fn from_code(code: i32) -> Self {
        use ApplicationExceptionKind::*;
        match code {
            0 => Unknown,
            1 => UnknownMethod,
            2 => InvalidMessageType,
            3 => WrongMethodName,
            4 => BadSequenceId,
            5 => MissingResult,
            6 => InternalError,
            7 => ProtocolError,
            8 => InvalidTransform,
            9 => InvalidProtocol,
            10 => UnsupportedClientType,
            11 => Loadshedding,
            12 => Timeout,
            other => Other(other),
        }
    }
}

/// Apache Thrift's `TApplicationException`: field 1 `message` (string), field 2 `type` (i32).
///
/// ```
/// use thrift_core::{ApplicationException, ApplicationExceptionKind, Binary};
/// let e = ApplicationException::new(ApplicationExceptionKind::UnknownMethod, "no method frob");
/// let bytes = thrift_core::to_vec::<Binary, _>(&e);
/// let back: ApplicationException = thrift_core::from_slice::<Binary, _>(&bytes).unwrap();
/// assert_eq!(back, e);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ApplicationException {
    /// What happened.
    pub message: String,
    /// The kind, with its Apache code.
    pub kind: ApplicationExceptionKind,
}

impl ApplicationException {
    /// An exception of `kind` with `message`.
    pub fn new(kind: ApplicationExceptionKind, message: impl Into<String>) -> Self {
        ApplicationException { message: message.into(), kind }
    }
}

impl fmt::Display for ApplicationException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "application exception {:?} (code {}): {}", self.kind, self.kind.code(), self.message)
    }
}

impl std::error::Error for ApplicationException {}

impl ThriftType for ApplicationException {
    const TTYPE: TType = TType::Struct;
}

#[cfg(feature = "idl")]
impl crate::idl::IdlType for ApplicationException {
    fn idl_type(idl: &mut crate::idl::Idl) -> String {
        idl.define("TApplicationException", |_| {
            "exception TApplicationException {\n  1: string message\n  2: i32 type\n}\n".into()
        });
        "TApplicationException".into()
    }
}

impl Encode for ApplicationException {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        let mut s = StructEncoder::<P, B>::new(buf);
        s.field(1, self.message.as_str());
        s.field(2, &self.kind.code());
        s.finish();
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        let mut s = StructSizer::<P>::new();
        s.field(1, self.message.as_str());
        s.field(2, &self.kind.code());
        s.finish()
    }
}

impl<'de> Decode<'de> for ApplicationException {
    fn decode<P: Protocol>(r: &mut Reader<'de>) -> Result<Self> {
        let mut message: Option<String> = None;
        let mut code: Option<i32> = None;
        let mut s = StructDecoder::<P>::begin(r)?;
        while let Some(field) = s.next_field(r)? {
            match field.id {
                1 => s.read(r, field, &mut message).map_err(|e| e.in_field("TApplicationException", "message", 1))?,
                2 => s.read(r, field, &mut code).map_err(|e| e.in_field("TApplicationException", "type", 2))?,
                _ => s.skip(r, field)?,
            }
        }
        Ok(ApplicationException {
            message: message.unwrap_or_default(),
            kind: ApplicationExceptionKind::from_code(code.unwrap_or(0)),
        })
    }
}
