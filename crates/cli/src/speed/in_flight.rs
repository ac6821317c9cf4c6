//! Callers as requests in flight, for `speed --engine` at thousands of callers: a few
//! driver threads each keep their share of the callers' requests submitted to the engine
//! and, as each one's [`Ticket`] completes (polled as a future, woken by the engine),
//! check its answer and submit that caller's next request.
//!
//! This is how a server holds thousands of concurrent requests: an async runtime's
//! tasks, or OpenSSL's `ASYNC_JOB`s on a few threads (the provider, issue 22), not a
//! blocked operating-system thread each. Thousands of caller threads measure the
//! scheduler instead: when a large batch answers, they all become runnable at once, and
//! a thread preempted while it holds a lock stalls the rest (on an H200's 16-core host
//! the engine fell to 1,801 signatures a second at 16,384 caller threads).

use cryptocard::engine::{Answer, Ticket};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// Every call's latency in microseconds and when the last one ended, for one driver.
pub type Calls = (Vec<f64>, Instant);

/// Runs `callers` closed-loop callers on `threads` driver threads from one common start
/// until `run` later: each caller submits (`submit`), waits for its answer, has it
/// checked (`check`), and submits again until the time is up. One result per driver.
pub fn measure<S, C>(
    callers: usize,
    threads: usize,
    run: Duration,
    submit: S,
    check: C,
) -> (Instant, Vec<Result<Calls, String>>)
where
    S: Fn() -> Ticket + Sync,
    C: Fn(Answer) -> Result<(), String> + Sync,
{
    let threads = threads.clamp(1, callers.max(1));
    let start = Instant::now();
    let results = std::thread::scope(|s| {
        let drivers: Vec<_> = (0..threads)
            .map(|t| {
                let share = callers / threads + usize::from(t < callers % threads);
                let (submit, check) = (&submit, &check);
                s.spawn(move || drive(share, start, run, submit, check))
            })
            .collect();
        drivers
            .into_iter()
            .map(|d| d.join().unwrap_or_else(|_| Err("a driver thread panicked".into())))
            .collect()
    });
    (start, results)
}

/// Wakes a driver for one of its callers: sends the caller's index to the driver.
struct CallerWaker {
    caller: usize,
    driver: Sender<usize>,
}

impl Wake for CallerWaker {
    fn wake(self: Arc<Self>) {
        // A driver that has left needs no more wake-ups.
        let _ = self.driver.send(self.caller);
    }
}

/// One driver: `share` callers, each with its ticket in flight and when it was submitted.
fn drive(
    share: usize,
    start: Instant,
    run: Duration,
    submit: &(dyn Fn() -> Ticket + Sync),
    check: &(dyn Fn(Answer) -> Result<(), String> + Sync),
) -> Result<Calls, String> {
    let (to_driver, woken) = channel::<usize>();
    let wakers: Vec<Waker> = (0..share)
        .map(|caller| Waker::from(Arc::new(CallerWaker { caller, driver: to_driver.clone() })))
        .collect();
    let mut in_flight: Vec<Option<(Ticket, Instant)>> = Vec::with_capacity(share);
    for caller in 0..share {
        in_flight.push(Some((submit(), Instant::now())));
        // Polled once below, which hands the ticket its waker.
        let _ = to_driver.send(caller);
    }
    let (mut latencies, mut last) = (Vec::new(), start);
    let mut left = share;
    while left > 0 {
        let caller = woken.recv().map_err(|_| "the driver's wake-ups stopped".to_string())?;
        // A wake-up for a caller already answered (a ticket may wake more than once).
        let Some((ticket, submitted)) = in_flight[caller].as_mut() else { continue };
        let answer = match Pin::new(ticket).poll(&mut Context::from_waker(&wakers[caller])) {
            Poll::Pending => continue,
            Poll::Ready(answer) => answer,
        };
        let submitted = *submitted;
        check(answer)?;
        last = Instant::now();
        latencies.push((last - submitted).as_secs_f64() * 1e6);
        if last.duration_since(start) < run {
            in_flight[caller] = Some((submit(), Instant::now()));
            let _ = to_driver.send(caller);
        } else {
            in_flight[caller] = None;
            left -= 1;
        }
    }
    Ok((latencies, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptocard::digest::HashAlg;
    use cryptocard::engine::Engine;
    use cryptocard::rng::OsRng;
    use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};

    fn job() -> (Arc<RsaPrivateKey>, PrivateRequest, Vec<u8>) {
        let key = Arc::new(RsaPrivateKey::generate(1024, &mut OsRng).unwrap());
        let req =
            PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: b"in flight".to_vec() };
        let want = req.run(&key, &mut OsRng).unwrap();
        (key, req, want)
    }

    /// Every caller keeps a request in flight until the time is up: more calls than
    /// callers, each answer checked, and every driver reports its calls.
    #[test]
    fn callers_keep_their_requests_in_flight() {
        let (key, req, want) = job();
        let engine = Engine::new().unwrap();
        let checked = std::sync::atomic::AtomicUsize::new(0);
        let (start, results) = measure(
            100,
            3,
            Duration::from_millis(200),
            || engine.submit(key.clone(), req.clone()),
            |answer| {
                checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match answer.map_err(|e| e.to_string())? == want {
                    true => Ok(()),
                    false => Err("a different signature".into()),
                }
            },
        );
        assert_eq!(results.len(), 3, "one result a driver");
        let calls: usize = results.iter().map(|r| r.as_ref().unwrap().0.len()).sum();
        assert_eq!(calls, checked.into_inner(), "every answer checked once");
        assert!(calls > 100, "each caller went round more than once: {calls} calls");
        for (latencies, last) in results.into_iter().map(Result::unwrap) {
            assert!(last >= start && latencies.iter().all(|&l| l > 0.0));
        }
        assert_eq!(engine.stats().answered as usize, calls);
        engine.shutdown();
    }

    /// A wrong answer stops its driver with the check's error, and the others still end.
    #[test]
    fn a_failed_check_is_the_drivers_error() {
        let (key, req, _) = job();
        let engine = Engine::new().unwrap();
        let (_, results) = measure(
            4,
            2,
            Duration::from_millis(50),
            || engine.submit(key.clone(), req.clone()),
            |_| Err("checked and refused".into()),
        );
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(|r| r.as_ref().is_err_and(|e| e == "checked and refused")));
        engine.shutdown();
    }
}
