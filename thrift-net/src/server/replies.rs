//! How a connection's replies reach its writer, which runs on the connection's own task next
//! to its reader ([`reader_then_writer`]).
//!
//! A reply made while that task is running its reader (each handler that answers in its first
//! poll, and any spawned one that happens to finish then) is queued in place: the writer runs
//! right after the reader, before the task sleeps, so the reply needs no wake-up. Any other
//! reply goes through a bounded channel, whose send wakes the task. A wake-up of another task
//! per reply was the writer's cost when it had a task of its own: with 64 one-call
//! connections it was the second task scheduled per call, often on the other worker thread.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Poll;

use tokio::sync::mpsc;
pub(crate) use tokio::sync::mpsc::error::TrySendError;

/// The replies queued in place, and whether the reader is being polled (the writer will run
/// before the task sleeps).
struct InPlace<T> {
    reader_running: bool,
    queue: VecDeque<T>,
}

type Shared<T> = Arc<Mutex<InPlace<T>>>;

fn lock<T>(shared: &Shared<T>) -> MutexGuard<'_, InPlace<T>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The sending side, cloned into every request being handled.
pub(crate) struct Replies<T> {
    tx: mpsc::Sender<T>,
    in_place: Shared<T>,
}

impl<T> Clone for Replies<T> {
    fn clone(&self) -> Self {
        Replies { tx: self.tx.clone(), in_place: self.in_place.clone() }
    }
}

/// The writer's side. The writer ends once every [`Replies`] is gone and nothing is queued.
pub(crate) struct Inbox<T> {
    rx: mpsc::Receiver<T>,
    in_place: Shared<T>,
}

/// A reply queue whose channel holds at most `bound` replies.
pub(crate) fn replies<T>(bound: usize) -> (Replies<T>, Inbox<T>) {
    let (tx, rx) = mpsc::channel(bound);
    let in_place = Arc::new(Mutex::new(InPlace { reader_running: false, queue: VecDeque::new() }));
    (Replies { tx, in_place: in_place.clone() }, Inbox { rx, in_place })
}

impl<T> Replies<T> {
    /// Queues `reply`; `Err` when the writer is gone (so is the peer).
    pub async fn send(&self, reply: T) -> Result<(), T> {
        match self.try_send(reply) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(reply)) => self.tx.send(reply).await.map_err(|e| e.0),
            Err(TrySendError::Closed(reply)) => Err(reply),
        }
    }

    /// Queues `reply` if there is room now.
    pub fn try_send(&self, reply: T) -> Result<(), TrySendError<T>> {
        let reply = {
            let mut in_place = lock(&self.in_place);
            // Under the lock that the task takes to end the reader's poll: the writer's poll,
            // which follows, sees this reply.
            if in_place.reader_running {
                in_place.queue.push_back(reply);
                return Ok(());
            }
            reply
        };
        self.tx.try_send(reply)
    }
}

impl<T> Inbox<T> {
    /// The next reply; `None` once every sender is gone and nothing is queued.
    pub async fn recv(&mut self) -> Option<T> {
        // Polled again after each poll of the reader, so the queue in place is looked at
        // every time the task runs, with no waker of its own.
        poll_fn(|cx| match lock(&self.in_place).queue.pop_front() {
            Some(reply) => Poll::Ready(Some(reply)),
            None => self.rx.poll_recv(cx),
        })
        .await
    }

    /// Takes no more replies through the channel; those queued are still received.
    pub fn close(&mut self) {
        self.rx.close();
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.rx.is_empty() && lock(&self.in_place).queue.is_empty()
    }

    /// What [`reader_then_writer`] needs to mark the reader's turns.
    pub fn turns(&self) -> Turns<T> {
        Turns(self.in_place.clone())
    }
}

/// Marks when the reader runs, so that replies made then are queued in place.
pub(crate) struct Turns<T>(Shared<T>);

/// Runs a connection's reader and writer on one task until both end: each time the task
/// runs, the reader first (with replies queued in place meanwhile), then the writer.
pub(crate) async fn reader_then_writer<T>(
    reader: impl Future<Output = ()>,
    writer: impl Future<Output = ()>,
    Turns(in_place): Turns<T>,
) {
    let (mut reader, mut writer) = (pin!(reader), pin!(writer));
    let (mut reader_done, mut writer_done) = (false, false);
    poll_fn(|cx| {
        if !reader_done {
            // Once the writer has ended, replies must not wait in place for it.
            lock(&in_place).reader_running = !writer_done;
            reader_done = reader.as_mut().poll(cx).is_ready();
            lock(&in_place).reader_running = false;
        }
        if !writer_done {
            writer_done = writer.as_mut().poll(cx).is_ready();
        }
        if reader_done && writer_done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::Context;

    use tokio::sync::oneshot;

    use super::*;
    use crate::wake_count::Wakes;

    fn poll(task: &mut Pin<&mut impl Future<Output = ()>>, wakes: &Arc<Wakes>) -> Poll<()> {
        task.as_mut().poll(&mut Context::from_waker(&wakes.waker()))
    }

    /// The writer collects what it receives until the inbox ends.
    async fn collect(mut inbox: Inbox<u32>, got: &Mutex<Vec<u32>>) {
        while let Some(reply) = inbox.recv().await {
            got.lock().unwrap().push(reply);
        }
    }

    fn now<F: Future>(f: F) -> F::Output {
        match pin!(f).poll(&mut Context::from_waker(&Wakes::new().waker())) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("a send that should not wait waited"),
        }
    }

    #[test]
    fn replies_made_in_the_readers_turn_reach_the_writer_in_that_turn_without_a_wake_up() {
        // A channel of one: a second send through it would wait for the writer.
        let (tx, inbox) = replies::<u32>(1);
        let turns = inbox.turns();
        let got = Mutex::new(Vec::new());
        let (end_tx, end_rx) = oneshot::channel::<()>();
        let outside = tx.clone();
        let reader = async move {
            for reply in 1..=3 {
                tx.send(reply).await.unwrap();
            }
            let _ = end_rx.await;
        };
        let wakes = Wakes::new();
        let mut task = pin!(reader_then_writer(reader, collect(inbox, &got), turns));
        assert!(poll(&mut task, &wakes).is_pending());
        assert_eq!(*got.lock().unwrap(), [1, 2, 3]);
        assert_eq!(wakes.count(), 0, "queued in place: no wake-up");

        // Outside the reader's turn a reply goes through the channel, which wakes the task.
        now(outside.send(4)).unwrap();
        assert_eq!(wakes.count(), 1);
        assert!(poll(&mut task, &wakes).is_pending());
        assert_eq!(*got.lock().unwrap(), [1, 2, 3, 4]);

        // The writer ends once every sender is gone, the reader's with it.
        drop(outside);
        end_tx.send(()).unwrap();
        assert!(poll(&mut task, &wakes).is_ready());
    }

    #[test]
    fn once_the_writer_has_ended_replies_are_refused_not_kept() {
        let (tx, mut inbox) = replies::<u32>(1);
        let turns = inbox.turns();
        let (end_tx, end_rx) = oneshot::channel::<()>();
        let refused = Mutex::new(None);
        let reader = async {
            let _ = end_rx.await;
            *refused.lock().unwrap() = Some(tx.send(7).await);
        };
        // A writer that ends at once, as one whose write failed does.
        let writer = async move { inbox.close() };
        let wakes = Wakes::new();
        let mut task = pin!(reader_then_writer(reader, writer, turns));
        assert!(poll(&mut task, &wakes).is_pending());
        end_tx.send(()).unwrap();
        assert!(poll(&mut task, &wakes).is_ready());
        assert_eq!(refused.lock().unwrap().take(), Some(Err(7)));
    }
}
