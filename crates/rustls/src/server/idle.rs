//! The idle limit of a connection ([`Timeouts::idle`](super::Timeouts)): a wrapper around
//! its TCP stream that fails the connection once neither a read nor a write has moved a
//! byte for the limit.
//!
//! hyper's own timers cover the wait for a request's header and, on HTTP/2, an unanswered
//! ping; no timer runs while a response waits for a client that has stopped reading, so
//! without this a client could hold a connection (its descriptor, its task, its buffers)
//! for good by asking and never reading. The wrapper sits below TLS, on the socket, so
//! that progress is bytes on the wire: a response that drains slowly into a slow reader's
//! window resets the limit at every step, even while rustls and hyper still wait for
//! their flush to end, and is never cut; only a connection where nothing moves is.
//!
//! The clock is one [`Sleep`], moved forward lazily: progress only notes the time, and the
//! deadline is set again when a read or write has to wait, so a busy connection costs no
//! timer work per byte. Tripping counts the connection in
//! [`Counters::timed_out`](super::Counters), once, and every later call fails at once.

use super::{Counters, later};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `io` failed after `limit` without progress either way.
#[derive(Debug)]
pub(super) struct Idle<S> {
    io: S,
    limit: Duration,
    /// When a byte last moved (or the wrapper was made).
    last: Instant,
    timer: Pin<Box<Sleep>>,
    counters: Arc<Counters>,
    tripped: bool,
}

impl<S> Idle<S> {
    pub(super) fn new(io: S, limit: Duration, counters: Arc<Counters>) -> Idle<S> {
        let last = Instant::now();
        Idle {
            io,
            limit,
            last,
            timer: Box::pin(tokio::time::sleep_until(later(last, limit))),
            counters,
            tripped: false,
        }
    }

    fn progressed(&mut self) {
        self.last = Instant::now();
    }

    /// Called when the stream must wait: an error once the limit has passed since the
    /// last progress, else `Pending` with the timer armed to wake the task at the limit.
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let due = later(self.last, self.limit);
        if self.timer.deadline() != due {
            self.timer.as_mut().reset(due);
        }
        ready!(self.timer.as_mut().poll(cx));
        Poll::Ready(self.trip())
    }

    fn trip(&mut self) -> io::Error {
        if !self.tripped {
            self.tripped = true;
            self.counters.timed_out.fetch_add(1, Ordering::Relaxed);
        }
        io::Error::new(io::ErrorKind::TimedOut, "no progress within the connection's idle limit")
    }

    /// One call on the stream: refused at once once tripped; else `poll`ed (which says
    /// with its result whether a byte moved, noted as progress), a wait bounded by the
    /// limit.
    fn poll_io<T>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<(T, bool)>>,
    ) -> Poll<io::Result<T>>
    where
        S: Unpin,
    {
        let this = self.get_mut();
        if this.tripped {
            return Poll::Ready(Err(this.trip()));
        }
        match poll(Pin::new(&mut this.io), cx) {
            Poll::Ready(Ok((t, moved))) => {
                if moved {
                    this.progressed();
                }
                Poll::Ready(Ok(t))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.wait(cx).map(Err),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.poll_io(cx, |io, cx| {
            let before = buf.filled().len();
            io.poll_read(cx, buf).map_ok(|()| ((), buf.filled().len() > before))
        })
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, |io, cx| io.poll_write(cx, buf).map_ok(|n| (n, n > 0)))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, |io, cx| io.poll_write_vectored(cx, bufs).map_ok(|n| (n, n > 0)))
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_io(cx, |io, cx| io.poll_flush(cx).map_ok(|()| ((), false)))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_io(cx, |io, cx| io.poll_shutdown(cx).map_ok(|()| ((), false)))
    }
}
