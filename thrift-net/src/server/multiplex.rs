//! Several services on one port: Apache's multiplexed protocol, where a call's name is
//! `Service:method`.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use thrift_core::{ApplicationException, ApplicationExceptionKind};

use crate::incoming::{Incoming, Outgoing, Service};

/// A boxed future, for dispatching to services of different types.
type BoxOutgoing<'a> = Pin<Box<dyn Future<Output = Outgoing> + Send + 'a>>;

/// The object-safe face of a [`Service`] (whose `call` returns `impl Future`, so it cannot
/// be a trait object itself).
trait DynService: Send + Sync + 'static {
    fn call_boxed(&self, request: Incoming) -> BoxOutgoing<'_>;
}

impl<S: Service> DynService for S {
    fn call_boxed(&self, request: Incoming) -> BoxOutgoing<'_> {
        Box::pin(self.call(request))
    }
}

/// Routes each call to a service by the `Service:` prefix of its name, as Apache's
/// `TMultiplexedProcessor` does; calls with a plain name go to the default service, if any.
///
/// Replies carry the plain method name, as Apache's do. A call naming a service that is not
/// registered, or a plain name with no default service, is answered with
/// `TApplicationException` `UNKNOWN_METHOD`.
///
/// ```
/// use thrift_net::{service, Multiplexed};
///
/// #[service]
/// trait Ping {
///     async fn ping(&self) -> i32;
/// }
/// #[service]
/// trait Echo {
///     async fn echo(&self, #[thrift(id = 1)] s: String) -> String;
/// }
/// struct Impl;
/// impl Ping for Impl {
///     async fn ping(&self) -> i32 { 1 }
/// }
/// impl Echo for Impl {
///     async fn echo(&self, s: String) -> String { s }
/// }
///
/// // `Ping:ping` and `Echo:echo` by name; plain `ping` goes to the default.
/// let router = Multiplexed::builder()
///     .with(PingServer::new(Impl))
///     .with(EchoServer::new(Impl))
///     .default(PingServer::new(Impl))
///     .build();
/// assert_eq!(router.service_names().collect::<Vec<_>>(), ["Echo", "Ping"]);
/// ```
pub struct Multiplexed {
    services: HashMap<&'static str, Box<dyn DynService>>,
    default: Option<Box<dyn DynService>>,
}

impl Multiplexed {
    /// Starts an empty router.
    pub fn builder() -> MultiplexedBuilder {
        MultiplexedBuilder { services: HashMap::new(), default: None }
    }

    /// The registered service names, sorted.
    pub fn service_names(&self) -> impl Iterator<Item = &'static str> {
        let mut names: Vec<_> = self.services.keys().copied().collect();
        names.sort_unstable();
        names.into_iter()
    }

    /// Whether a default service takes plain names.
    pub fn has_default(&self) -> bool {
        self.default.is_some()
    }
}

impl fmt::Debug for Multiplexed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Multiplexed")
            .field("services", &self.service_names().collect::<Vec<_>>())
            .field("default", &self.has_default())
            .finish()
    }
}

/// Registers the services of a [`Multiplexed`] router.
#[must_use]
pub struct MultiplexedBuilder {
    services: HashMap<&'static str, Box<dyn DynService>>,
    default: Option<Box<dyn DynService>>,
}

impl MultiplexedBuilder {
    /// Serves `service` for calls named `S::NAME:method` (the IDL service name). A later
    /// registration under the same name replaces an earlier one.
    pub fn with<S: Service>(self, service: S) -> Self {
        self.with_name(S::NAME, service)
    }

    /// Serves `service` for calls named `name:method`.
    pub fn with_name<S: Service>(mut self, name: &'static str, service: S) -> Self {
        self.services.insert(name, Box::new(service));
        self
    }

    /// Serves `service` for calls with a plain method name (no `Service:` prefix), so
    /// clients that do not multiplex keep working.
    pub fn default<S: Service>(mut self, service: S) -> Self {
        self.default = Some(Box::new(service));
        self
    }

    /// The router.
    pub fn build(self) -> Multiplexed {
        Multiplexed { services: self.services, default: self.default }
    }
}

impl Service for Multiplexed {
    /// A router has no IDL name of its own.
    const NAME: &'static str = "";

    async fn call(&self, request: Incoming) -> Outgoing {
        let target = match request.service() {
            Some(name) => self.services.get(name).ok_or_else(|| format!("unknown service {name}")),
            None => self
                .default
                .as_ref()
                .ok_or_else(|| format!("no service named in the call {}, and no default service", request.method())),
        };
        match target {
            Ok(service) => service.call_boxed(request).await,
            Err(why) => request.exception(&ApplicationException::new(ApplicationExceptionKind::UnknownMethod, why)),
        }
    }
}
