//! Handlers that panic: the panic is caught where the handler's future is polled, and the
//! request answered with `INTERNAL_ERROR`, by the server and by the HTTP service alike.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Runs a future, turning a panic while it is polled into an `Err`. (The future is boxed so
/// it can be polled without pin projection.)
pub(crate) struct CatchUnwind<F>(pub Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.get_mut().0;
        // The future is dropped, never polled again, after a panic.
        match catch_unwind(|| future.as_mut().poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// Runs `f`, turning a panic into an `Err`: a handler's poll, and the synchronous parts of
/// handling a request (a service's `poll_ready` and `call`). Whatever state the panic left
/// behind is dropped with the request, never used again, so asserting unwind safety is
/// sound here.
pub(crate) fn catch_unwind<T>(f: impl FnOnce() -> T) -> Result<T, Box<dyn Any + Send>> {
    std::panic::catch_unwind(AssertUnwindSafe(f))
}

pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}
