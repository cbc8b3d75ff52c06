//! Calls whose arguments are already encoded: what the client's `tower::Service` takes.

use std::borrow::Cow;

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Encode, Protocol, TType, ThriftType};

use crate::detect::ProtocolKind;
use crate::protocol::with_protocol;

/// One call for the [`tower_service::Service`] face of a [`Client`](super::Client): names, and the args
/// struct already encoded in the client's protocol. Cheap to clone (the args are shared),
/// so tower's retry layer can resend it.
///
/// ```
/// use thrift_net::{ProtocolKind, RawRequest};
///
/// #[derive(thrift_core::ThriftStruct)]
/// struct AddArgs {
///     #[thrift(id = 1)] a: i32,
///     #[thrift(id = 2)] b: i32,
/// }
/// let args = RawRequest::encode_args(ProtocolKind::Binary, &AddArgs { a: 1, b: 2 });
/// let request = RawRequest::call("Calculator", "add", args);
/// assert!(!request.oneway);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRequest {
    /// The service name: the `Service:` prefix when the client is multiplexed (empty: none).
    pub service: Cow<'static, str>,
    /// The method name.
    pub method: Cow<'static, str>,
    /// A oneway message: no reply is waited for.
    pub oneway: bool,
    /// The encoded args struct, in the client's protocol.
    pub args: Bytes,
}

impl RawRequest {
    /// A call, answered with a [`Reply`](crate::Reply).
    pub fn call(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: Bytes) -> Self {
        RawRequest { service: service.into(), method: method.into(), oneway: false, args }
    }

    /// A oneway message, answered with nothing once written.
    pub fn oneway(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: Bytes) -> Self {
        RawRequest { oneway: true, ..RawRequest::call(service, method, args) }
    }

    /// Encodes an args struct in `protocol`, in one buffer of its exact size.
    pub fn encode_args<A: Encode + ?Sized>(protocol: ProtocolKind, args: &A) -> Bytes {
        with_protocol!(protocol, P => encode_exact::<P, A>(args))
    }
}

fn encode_exact<P: Protocol, A: Encode + ?Sized>(args: &A) -> Bytes {
    let mut buf = BytesMut::with_capacity(args.encoded_len::<P>());
    args.encode::<P, _>(&mut buf);
    buf.freeze()
}

/// Bytes already encoded, written as they are where a message body goes.
pub(super) struct RawArgs<'a>(pub &'a [u8]);

impl ThriftType for RawArgs<'_> {
    const TTYPE: TType = TType::Struct;
}

impl Encode for RawArgs<'_> {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        buf.put_slice(self.0);
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.len()
    }
}
