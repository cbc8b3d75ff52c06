//! What a caller is told when a service fails a request instead of answering it: tower's
//! layers' errors as the `TApplicationException`s Thrift clients know.

use thrift_core::{ApplicationException, ApplicationExceptionKind};

use super::named::BoxError;
use super::request::Request;
use super::response::Response;

/// The message of the `TApplicationException` (kind `LOADSHEDDING`, fbthrift's code 11) a
/// server answers a request with when a load-shedding layer turned it away: the request was
/// not run, so it is safe to send again, to another server.
/// [`CallError::is_retry_safe`](crate::CallError::is_retry_safe) tells it apart.
pub const OVERLOADED: &str = "the server is overloaded; the request was not processed";

/// The exception for `error`, failing a call of `method`.
pub(crate) fn exception_for(error: &BoxError, method: &str) -> ApplicationException {
    if let Some(exception) = error.downcast_ref::<ApplicationException>() {
        return exception.clone();
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return ApplicationException::new(ApplicationExceptionKind::Loadshedding, OVERLOADED);
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        let message = format!("{method} ran out of time on the server");
        return ApplicationException::new(ApplicationExceptionKind::Timeout, message);
    }
    ApplicationException::new(ApplicationExceptionKind::InternalError, format!("{method} failed: {error}"))
}

impl Request {
    /// The answer to this request when its service failed with `error` (none for a oneway
    /// request).
    pub(crate) fn answer_failure(&self, error: &BoxError) -> Response {
        tracing::debug!(method = self.method(), %error, "the service failed the request");
        self.exception(&exception_for(error, self.method()))
    }
}
