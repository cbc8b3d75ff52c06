//! Several services on one port: Apache's multiplexed protocol, where a call's name is
//! `Service:method`.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use thrift_core::{ApplicationException, ApplicationExceptionKind};

use super::{ready_call, BoxError, NamedService, Request, Response, ThriftService};

/// A boxed answer, for dispatching to services of different types.
type BoxAnswer = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

/// The object-safe face of a [`ThriftService`]: each call drives a clone of it.
trait Route: Send + Sync + 'static {
    fn route(&self, request: Request) -> BoxAnswer;
}

/// A service behind a route. Calls clone it out of the lock-free `Arc` they share, as tower
/// services are cloned per request.
struct Routed<S>(S);

impl<S: ThriftService + Sync> Route for Routed<S> {
    fn route(&self, request: Request) -> BoxAnswer {
        let mut service = self.0.clone();
        Box::pin(async move { ready_call(&mut service, request).await })
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
/// # fn main() {
/// let router = Multiplexed::builder()
///     .with(ping::Server::new(Impl))
///     .with(echo::Server::new(Impl))
///     .default(ping::Server::new(Impl))
///     .build();
/// assert_eq!(router.service_names().collect::<Vec<_>>(), ["Echo", "Ping"]);
/// # }
/// ```
#[derive(Clone)]
pub struct Multiplexed {
    routes: Arc<Routes>,
}

struct Routes {
    services: HashMap<&'static str, Box<dyn Route>>,
    default: Option<Box<dyn Route>>,
}

impl Multiplexed {
    /// Starts an empty router.
    pub fn builder() -> MultiplexedBuilder {
        MultiplexedBuilder { services: HashMap::new(), default: None }
    }

    /// The registered service names, sorted.
    pub fn service_names(&self) -> impl Iterator<Item = &'static str> {
        let mut names: Vec<_> = self.routes.services.keys().copied().collect();
        names.sort_unstable();
        names.into_iter()
    }

    /// Whether a default service takes plain names.
    pub fn has_default(&self) -> bool {
        self.routes.default.is_some()
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
    services: HashMap<&'static str, Box<dyn Route>>,
    default: Option<Box<dyn Route>>,
}

impl MultiplexedBuilder {
    /// Serves `service` for calls named `S::NAME:method` (the IDL service name). A later
    /// registration under the same name replaces an earlier one.
    pub fn with<S: ThriftService + NamedService + Sync>(self, service: S) -> Self {
        self.with_name(S::NAME, service)
    }

    /// Serves `service` for calls named `name:method`.
    pub fn with_name<S: ThriftService + Sync>(mut self, name: &'static str, service: S) -> Self {
        self.services.insert(name, Box::new(Routed(service)));
        self
    }

    /// Serves `service` for calls with a plain method name (no `Service:` prefix), so
    /// clients that do not multiplex keep working.
    pub fn default<S: ThriftService + Sync>(mut self, service: S) -> Self {
        self.default = Some(Box::new(Routed(service)));
        self
    }

    /// The router.
    pub fn build(self) -> Multiplexed {
        Multiplexed { routes: Arc::new(Routes { services: self.services, default: self.default }) }
    }
}

impl NamedService for Multiplexed {
    /// A router has no IDL name of its own.
    const NAME: &'static str = "";
}

impl tower_service::Service<Request> for Multiplexed {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxAnswer;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Each route waits for its own service's readiness when called.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> BoxAnswer {
        let routes = &self.routes;
        let target = match request.service() {
            Some(name) => routes.services.get(name).ok_or_else(|| format!("unknown service {name}")),
            None => routes
                .default
                .as_ref()
                .ok_or_else(|| format!("no service named in the call {}, and no default service", request.method())),
        };
        match target {
            Ok(route) => route.route(request),
            Err(why) => {
                let exception = ApplicationException::new(ApplicationExceptionKind::UnknownMethod, why);
                let answer = request.exception(&exception);
                Box::pin(async move { Ok::<_, BoxError>(answer) })
            }
        }
    }
}
