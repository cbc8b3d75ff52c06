//! [`CallError`]: why a call failed, and which call it was ([`CallSite`]).

use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use thrift_core::{ApplicationException, ApplicationExceptionKind};

use crate::error::TransportError;
use crate::server::{BoxError, Peer};

/// Why a call failed. `E` is the method's declared exception type.
///
/// Every variant but a declared exception carries the [`CallSite`]: the method called and,
/// once a channel knew it, the endpoint it went to. It is the start of the message:
/// `calling Echo.echo on 127.0.0.1:9090: no reply within 100ms`.
///
/// ```
/// use std::time::Duration;
/// use thrift_net::{CallError, CallSite};
///
/// let e: CallError = CallError::Timeout(Some(Duration::from_millis(100)), CallSite::new("Echo", "echo"));
/// assert_eq!(e.to_string(), "calling Echo.echo: no reply within 100ms");
/// assert_eq!(e.site().and_then(|s| s.method()), Some("echo"));
/// assert!(!e.is_retry_safe());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError<E = thrift_core::NoException> {
    /// The handler threw one of the method's declared exceptions.
    #[error("declared exception: {0:?}")]
    Exception(E),
    /// The server answered with a `TApplicationException`.
    #[error("{1}{0}")]
    Application(ApplicationException, CallSite),
    /// The reply could not be decoded.
    #[error("{1}undecodable reply: {0}")]
    Protocol(thrift_core::Error, CallSite),
    /// The connection failed or closed before the reply came. The call may have reached the
    /// server (and run there): retry it only if it is idempotent.
    #[error("{1}transport: {0}")]
    Transport(TransportError, CallSite),
    /// The call was never written: its connection was closed, broken or closing (the server
    /// said it is shutting down) before its turn came. Safe to send again elsewhere.
    #[error("{1}not sent: {0}")]
    NotSent(TransportError, CallSite),
    /// No reply within the call's timeout: the channel's own (its limit), or a tower
    /// timeout layer's (`None`: the layer's error does not say its limit).
    #[error("{}no reply within {}", .1, match .0 { Some(limit) => format!("{limit:?}"), None => "the timeout".to_string() })]
    Timeout(Option<Duration>, CallSite),
    /// The channel had no connection to offer: see [`Unavailable`] for the reasons.
    #[error("{1}unavailable: {0}")]
    Unavailable(Unavailable, CallSite),
    /// A tower layer between the typed client and the channel failed the call (a load
    /// shedder, a rate limiter, a circuit breaker, your own).
    #[error("{1}{0}")]
    Layer(BoxError, CallSite),
}

/// Which call failed: the service and method, and the endpoint it went to once a channel
/// chose one. Displayed as the start of a [`CallError`]'s message (`calling Echo.echo on
/// 127.0.0.1:9090: `); empty when nothing is known, as for an error made by hand.
///
/// Channels fill it in as the error leaves them: a [`Client`](crate::Client) names its
/// peer, a [`Pool`](crate::Pool) the endpoint it chose, the typed client the method.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallSite(Option<Box<Site>>);

/// What a [`CallSite`] knows, boxed: a site is on every error, so it stays a pointer wide.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Site {
    service: Cow<'static, str>,
    method: Cow<'static, str>,
    endpoint: Option<Peer>,
}

impl CallSite {
    /// The site of a call of `service`'s `method`, its endpoint not known yet.
    pub fn new(service: impl Into<Cow<'static, str>>, method: impl Into<Cow<'static, str>>) -> CallSite {
        CallSite(Some(Box::new(Site { service: service.into(), method: method.into(), endpoint: None })))
    }

    /// The same site at `endpoint`.
    pub fn at(mut self, endpoint: Peer) -> CallSite {
        self.0.get_or_insert_with(Box::default).endpoint = Some(endpoint);
        self
    }

    /// The same site at `endpoint` when it is known.
    pub(crate) fn at_known(self, endpoint: Option<&Peer>) -> CallSite {
        match endpoint {
            Some(endpoint) => self.at(endpoint.clone()),
            None => self,
        }
    }

    /// The service called, when known.
    pub fn service(&self) -> Option<&str> {
        self.0.as_ref().map(|s| &*s.service).filter(|s| !s.is_empty())
    }

    /// The method called, when known.
    pub fn method(&self) -> Option<&str> {
        self.0.as_ref().map(|s| &*s.method).filter(|m| !m.is_empty())
    }

    /// Where the call went, when a channel knew it.
    pub fn endpoint(&self) -> Option<&Peer> {
        self.0.as_ref().and_then(|s| s.endpoint.as_ref())
    }

    /// Fills in what this site does not know from `other`.
    fn fill(&mut self, other: &CallSite) {
        let Some(other) = &other.0 else { return };
        let own = self.0.get_or_insert_with(Box::default);
        if own.method.is_empty() {
            own.service.clone_from(&other.service);
            own.method.clone_from(&other.method);
        }
        if own.endpoint.is_none() {
            own.endpoint.clone_from(&other.endpoint);
        }
    }
}

/// `calling Service.method on endpoint: `, or as much of it as is known.
impl fmt::Display for CallSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = match (self.service(), self.method()) {
            (Some(service), Some(method)) => write!(f, "calling {service}.{method}").map(|()| true)?,
            (None, Some(method)) => write!(f, "calling {method}").map(|()| true)?,
            _ => false,
        };
        match (self.endpoint(), known) {
            (Some(endpoint), true) => write!(f, " on {endpoint}: "),
            (Some(endpoint), false) => write!(f, "calling {endpoint}: "),
            (None, true) => f.write_str(": "),
            (None, false) => Ok(()),
        }
    }
}

/// Why a channel had no connection to offer a call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unavailable {
    /// The pool has no endpoints (none given, or discovery removed them all).
    NoEndpoints,
    /// Every endpoint tried during the call refused a connection, each for its reason.
    Refused(Vec<EndpointDown>),
    /// Every endpoint is ejected as down after its recent failures.
    AllDown(Vec<EndpointDown>),
    /// No connection to `endpoint` became free, or opened, within the pool's wait timeout.
    Busy {
        /// The endpoint whose connections were all taken.
        endpoint: SocketAddr,
        /// How long the call waited.
        waited: Duration,
        /// How many connections were taken, when the pool has a fixed number of them.
        in_use: Option<usize>,
    },
    /// An in-process service answered a call with no reply.
    NoReply,
}

/// An endpoint that could not take a call, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointDown {
    /// The endpoint.
    pub endpoint: SocketAddr,
    /// Its last error.
    pub error: String,
    /// When the pool tries it again: `Some(ZERO)` means it is being tried now; `None` that
    /// it was just refused.
    pub retry_in: Option<Duration>,
}

impl fmt::Display for EndpointDown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.endpoint, self.error)?;
        match self.retry_in {
            Some(Duration::ZERO) => f.write_str(" (being retried now)"),
            Some(retry) => write!(f, " (retried in {retry:?})"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, what: &str, downs: &[EndpointDown]| {
            f.write_str(what)?;
            for (i, down) in downs.iter().enumerate() {
                write!(f, "{}{down}", if i == 0 { ": " } else { "; " })?;
            }
            Ok(())
        };
        match self {
            Unavailable::NoEndpoints => f.write_str("the pool has no endpoints"),
            Unavailable::Refused(downs) => list(f, "no endpoint accepted a connection", downs),
            Unavailable::AllDown(downs) => list(f, "every endpoint is down", downs),
            Unavailable::Busy { endpoint, waited, in_use } => {
                write!(f, "no connection to {endpoint} free within {waited:?}")?;
                match in_use {
                    Some(n) => write!(f, " (all {n} in use)"),
                    None => Ok(()),
                }
            }
            Unavailable::NoReply => f.write_str("the service sent no reply to a call"),
        }
    }
}

impl CallError {
    /// The same error as the error type of a method declaring exceptions `E` (a channel
    /// error never holds a declared exception).
    #[doc(hidden)]
    pub fn widen<E>(self) -> CallError<E> {
        match self {
            CallError::Exception(never) => match never {},
            CallError::Application(e, site) => CallError::Application(e, site),
            CallError::Protocol(e, site) => CallError::Protocol(e, site),
            CallError::Transport(e, site) => CallError::Transport(e, site),
            CallError::NotSent(e, site) => CallError::NotSent(e, site),
            CallError::Timeout(d, site) => CallError::Timeout(d, site),
            CallError::Unavailable(why, site) => CallError::Unavailable(why, site),
            CallError::Layer(e, site) => CallError::Layer(e, site),
        }
    }

    /// The error a channel's stack failed a call with: a channel's own `CallError` as it
    /// is, tower's timeout as [`CallError::Timeout`], anything else as [`CallError::Layer`].
    pub(crate) fn from_layer(error: impl Into<BoxError>) -> Self {
        let error = error.into();
        let error = match error.downcast::<CallError>() {
            Ok(own) => return *own,
            Err(other) => other,
        };
        match error.is::<tower::timeout::error::Elapsed>() {
            true => CallError::Timeout(None, CallSite::default()),
            false => CallError::Layer(error, CallSite::default()),
        }
    }
}

/// The site of a `CallError` (by reference or mutable reference): every variant holds one
/// but a declared exception.
macro_rules! site_of {
    ($error:expr) => {
        match $error {
            CallError::Exception(_) => None,
            CallError::Application(_, site)
            | CallError::Protocol(_, site)
            | CallError::Transport(_, site)
            | CallError::NotSent(_, site)
            | CallError::Timeout(_, site)
            | CallError::Unavailable(_, site)
            | CallError::Layer(_, site) => Some(site),
        }
    };
}

impl<E> CallError<E> {
    /// Which call failed; `None` for a declared exception.
    pub fn site(&self) -> Option<&CallSite> {
        site_of!(self)
    }

    fn site_mut(&mut self) -> Option<&mut CallSite> {
        site_of!(self)
    }

    /// The error with what its site does not know yet taken from `site`: what each
    /// channel does as an error leaves it.
    #[cold]
    pub(crate) fn located(mut self, site: &CallSite) -> Self {
        if let Some(own) = self.site_mut() {
            own.fill(site);
        }
        self
    }

    /// Whether the call certainly did not run on the server, so sending it again (to
    /// another connection or endpoint) cannot run it twice: it was [never
    /// sent](CallError::NotSent), no connection was [available](CallError::Unavailable), a
    /// client-side load shedder refused it, or
    /// the server refused it unrun while shutting down, at its connection limit or
    /// overloaded (the [`SHUTTING_DOWN`](crate::server::SHUTTING_DOWN) and
    /// [`AT_CAPACITY`](crate::server::AT_CAPACITY) exceptions, and any `LOADSHEDDING` one, such as
    /// [`OVERLOADED`](crate::server::OVERLOADED)).
    pub fn is_retry_safe(&self) -> bool {
        match self {
            CallError::NotSent(..) | CallError::Unavailable(..) => true,
            CallError::Layer(e, _) => e.is::<tower::load_shed::error::Overloaded>(),
            CallError::Application(e, _) => {
                is_shutting_down(e) || is_at_capacity(e) || e.kind == ApplicationExceptionKind::Loadshedding
            }
            _ => false,
        }
    }
}

/// Whether `e` is the exception a server answers with, unrun, while shutting down.
pub(crate) fn is_shutting_down(e: &ApplicationException) -> bool {
    e.kind == ApplicationExceptionKind::Unknown && e.message == crate::server::SHUTTING_DOWN
}

/// Whether `e` is the exception a server answers with, unrun, at its connection limit.
pub(crate) fn is_at_capacity(e: &ApplicationException) -> bool {
    e.kind == ApplicationExceptionKind::Unknown && e.message == crate::server::AT_CAPACITY
}

/// A transport error of a call whose site is not known yet.
impl<E> From<TransportError> for CallError<E> {
    fn from(e: TransportError) -> Self {
        CallError::Transport(e, CallSite::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_starts_the_message_with_what_is_known() {
        let timeout = |site| CallError::<thrift_core::NoException>::Timeout(None, site).to_string();
        assert_eq!(timeout(CallSite::default()), "no reply within the timeout");
        assert_eq!(timeout(CallSite::new("", "echo")), "calling echo: no reply within the timeout");
        let tcp = Peer::Tcp("127.0.0.1:9090".parse().unwrap());
        assert_eq!(
            timeout(CallSite::new("Echo", "echo").at(tcp.clone())),
            "calling Echo.echo on 127.0.0.1:9090: no reply within the timeout"
        );
        assert_eq!(timeout(CallSite::default().at(tcp)), "calling 127.0.0.1:9090: no reply within the timeout");
    }

    #[test]
    fn located_fills_only_what_is_missing() {
        let tcp = Peer::Tcp("127.0.0.1:1".parse().unwrap());
        let e: CallError = CallError::Unavailable(Unavailable::NoEndpoints, CallSite::default().at(tcp.clone()));
        let e = e.located(&CallSite::new("Echo", "echo").at(Peer::Local));
        let site = e.site().unwrap();
        assert_eq!((site.service(), site.method(), site.endpoint()), (Some("Echo"), Some("echo"), Some(&tcp)));
        assert_eq!(e.to_string(), "calling Echo.echo on 127.0.0.1:1: unavailable: the pool has no endpoints");
    }

    #[test]
    fn unavailable_lists_each_endpoint() {
        let down = |port: u16, retry_in| EndpointDown {
            endpoint: SocketAddr::from(([127, 0, 0, 1], port)),
            error: "connection refused".into(),
            retry_in,
        };
        let why = Unavailable::AllDown(vec![down(1, Some(Duration::ZERO)), down(2, Some(Duration::from_secs(1)))]);
        assert_eq!(
            why.to_string(),
            "every endpoint is down: 127.0.0.1:1: connection refused (being retried now); \
             127.0.0.1:2: connection refused (retried in 1s)"
        );
        assert_eq!(
            Unavailable::Refused(vec![down(3, None)]).to_string(),
            "no endpoint accepted a connection: 127.0.0.1:3: connection refused"
        );
    }
}
