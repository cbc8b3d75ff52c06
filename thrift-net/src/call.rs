//! [`Call`]: what a client sends, the request type of every client-side `tower::Service`.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use thrift_core::{Encode, Limits, MessageHeader, Protocol, TType, ThriftType};

use crate::call_error::CallSite;
use crate::error::TransportError;
use crate::framing::Framing;
use crate::header::Headers;
use crate::message::Message;
use crate::protocol::with_protocol;
use crate::wire::ProtocolKind;

/// One call of a method: the service and method names, whether a reply is awaited, whether
/// the method is idempotent, and its arguments.
///
/// The arguments stay a typed value until the channel at the bottom of the stack writes the
/// message: it encodes them, once, straight into the frame, in the protocol it speaks, so a
/// typed client over `ServiceBuilder::new().timeout(..).service(pool)` never has to know
/// that protocol. A `Call` is cheap to clone (the arguments are shared), so tower's retry
/// layer can send it again.
///
/// The generated clients build these; a proxy that holds arguments already encoded builds
/// them with [`Call::encoded`].
///
/// ```
/// use thrift_net::Call;
///
/// #[derive(thrift_core::ThriftStruct)]
/// struct AddArgs {
///     #[thrift(id = 1)] a: i32,
///     #[thrift(id = 2)] b: i32,
/// }
/// let call = Call::new("Calculator", "add", AddArgs { a: 1, b: 2 }).idempotent();
/// assert_eq!((call.method(), call.is_oneway(), call.is_idempotent()), ("add", false, true));
/// ```
#[derive(Clone)]
pub struct Call {
    service: Cow<'static, str>,
    method: Cow<'static, str>,
    oneway: bool,
    idempotent: bool,
    args: Arc<dyn Args>,
}

impl Call {
    /// A call of `service`'s `method` with its args struct, answered with a
    /// [`Reply`](crate::Reply).
    pub fn new<A>(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: A) -> Self
    where
        A: Encode + Send + Sync + 'static,
    {
        Call { service: service.into(), method: method.into(), oneway: false, idempotent: false, args: Arc::new(args) }
    }

    /// A call whose args struct is already encoded, in the protocol of the channel it goes
    /// over (see [`Call::encode_args`]); the bytes are written as they are.
    pub fn encoded(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>, args: Bytes) -> Self {
        Call::new(service, method, Encoded(args))
    }

    /// Encodes an args struct in `protocol`, in one buffer of its exact size, for
    /// [`Call::encoded`].
    pub fn encode_args<A: Encode + ?Sized>(protocol: ProtocolKind, args: &A) -> Bytes {
        Bytes::from(with_protocol!(protocol, P => P::to_vec::<A>(args)))
    }

    /// The same call as a oneway message: no reply is awaited, it completes once written.
    pub fn oneway(self) -> Self {
        Call { oneway: true, ..self }
    }

    /// The same call of a method that does no harm when it runs twice, which a channel may
    /// send again after a failure that leaves its outcome unknown (a [`Pool`](crate::Pool)
    /// does, within its retry budget).
    pub fn idempotent(self) -> Self {
        Call { idempotent: true, ..self }
    }

    /// The service name, the `Service:` prefix of a multiplexed client.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// The method name.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// Which call this is, as its errors name it (no copy of the names when they are static,
    /// as generated clients' are; the site itself is one small allocation, so callers make
    /// it only for an error).
    pub fn site(&self) -> CallSite {
        self.names().site()
    }

    /// The service and method names, kept for the errors of a call handed on.
    pub(crate) fn names(&self) -> CallNames {
        CallNames { service: self.service.clone(), method: self.method.clone() }
    }

    /// Whether it is a oneway message.
    pub fn is_oneway(&self) -> bool {
        self.oneway
    }

    /// Whether the method was marked idempotent.
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The whole message in one buffer of its exact size, framing included.
    pub(crate) fn encode(
        &self,
        protocol: ProtocolKind,
        header: MessageHeader<'_>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
    ) -> Result<Bytes, TransportError> {
        let mut buf = BytesMut::new();
        self.encode_into(protocol, header, framing, headers, limits, &mut buf)?;
        Ok(buf.freeze())
    }

    /// The whole message, framing included, appended to `dst` (which grows once, by the
    /// message's exact size unless compressed): for a connection that reuses one buffer.
    pub(crate) fn encode_into(
        &self,
        protocol: ProtocolKind,
        header: MessageHeader<'_>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError> {
        self.args.encode_message(protocol, header, framing, headers, limits, dst)
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("service", &self.service)
            .field("method", &self.method)
            .field("oneway", &self.oneway)
            .field("idempotent", &self.idempotent)
            .finish_non_exhaustive()
    }
}

/// An args struct of any type, encoded when its message is written. One method per message,
/// so the encoding is monomorphized for the args type and the channel's protocol.
trait Args: Send + Sync {
    fn encode_message(
        &self,
        protocol: ProtocolKind,
        header: MessageHeader<'_>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError>;
}

impl<A: Encode + Send + Sync> Args for A {
    fn encode_message(
        &self,
        protocol: ProtocolKind,
        header: MessageHeader<'_>,
        framing: &Framing,
        headers: &Headers,
        limits: &Limits,
        dst: &mut BytesMut,
    ) -> Result<(), TransportError> {
        let message = Message::new(header, self);
        with_protocol!(protocol, P => P::encode_message::<A>(&message, framing, headers, limits, dst))
    }
}

/// Bytes already encoded, written as they are where a message body goes.
struct Encoded(Bytes);

impl ThriftType for Encoded {
    const TTYPE: TType = TType::Struct;
    // Already in the channel's protocol: JSON copies it as it is too.
    fn json_shape() -> thrift_core::json::Shape {
        thrift_core::json::Shape::Verbatim
    }
}

impl Encode for Encoded {
    fn encode<P: Protocol, B: BufMut + ?Sized>(&self, buf: &mut B) {
        buf.put_slice(&self.0);
    }
    fn encoded_len<P: Protocol>(&self) -> usize {
        self.0.len()
    }
}

/// A call's names, kept while the call itself is handed on; a [`CallSite`] is made from them
/// only when an error needs one.
#[derive(Clone)]
pub(crate) struct CallNames {
    service: Cow<'static, str>,
    method: Cow<'static, str>,
}

impl CallNames {
    #[cfg(feature = "client")]
    pub(crate) fn service(&self) -> &str {
        &self.service
    }

    #[cfg(feature = "client")]
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    /// The site of the call.
    #[cold]
    pub(crate) fn site(&self) -> CallSite {
        CallSite::new(self.service.clone(), self.method.clone())
    }
}
