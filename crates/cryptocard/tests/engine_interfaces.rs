//! The engine's interfaces one at a time: blocking, callback, future, batch; backpressure;
//! batching (full batches and deadline flushes of partial ones); settings.
//!
//! Expected batch counts follow from each key's `BatchClass` (`lane_batched`): on a CPU
//! without IFMA, or on the scalar backend, every request runs alone.
//!
//! Tests that need requests to pile up use an engine with one worker and keep that worker
//! inside a callback (`occupy_worker`) while they queue; releasing it lets the queue run.

mod engine_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use cryptocard::Error;
use cryptocard::engine::{Backpressure, Engine, EngineConfig, Stats};
use cryptocard::rsa::RsaPrivateKey;
use engine_common::*;

fn one_worker() -> cryptocard::engine::EngineBuilder {
    Engine::builder().workers(1)
}

#[test]
fn every_interface_answers_as_the_single_operation() {
    let engine = Engine::builder().workers(2).build().unwrap();
    for key in all_keys() {
        for id in 0..6 {
            let req = mixed_req(&key, id);
            check_mixed(&key, id, &engine.run(key.clone(), req.clone()));
            check_mixed(&key, id, &engine.submit(key.clone(), req.clone()).wait());
            check_mixed(&key, id, &block_on(engine.submit(key.clone(), req.clone())));
            check_mixed(&key, id, &engine.try_submit(key.clone(), req.clone()).unwrap().wait());
            let (tx, rx) = channel();
            engine.submit_with(key.clone(), req, move |a| tx.send(a).unwrap()).unwrap();
            check_mixed(&key, id, &rx.recv().unwrap());
        }
        let requests: Vec<_> = (0..10).map(|id| (key.clone(), mixed_req(&key, id))).collect();
        let answers = engine.sign_batch(&requests);
        assert_eq!(answers.len(), 10);
        for (id, a) in answers.iter().enumerate() {
            check_mixed(&key, id as u64, a);
        }
    }
    let s = engine.stats();
    assert_eq!(s.requests, 4 * (6 * 5 + 10));
    assert_eq!(s.answered, s.requests);
    assert_eq!(s.direct + s.singles + s.batched(), s.requests, "{s:?}");
    assert!(engine.sign_batch(&[]).is_empty());
    // One more phase, counted on its own.
    let key = key2048();
    check(&key, 1, &engine.submit(key.clone(), sign_req(1)).wait());
    let phase = engine.stats().since(&s);
    assert_eq!((phase.requests, phase.answered, phase.direct), (1, 1, 0));
    assert_eq!(phase.singles + phase.batched(), 1);
}

#[test]
fn a_failing_request_fails_alone_in_a_batch() {
    let engine = one_worker().crossover(2).deadline_us(20_000).build().unwrap();
    let key = key2048();
    let release = occupy_worker(&engine);
    let bad = cryptocard::rsa::PrivateRequest::RawPrivate { input: vec![0xff; 256] }; // >= n
    let tickets: Vec<_> = (1..=4)
        .map(|id| {
            let req = if id == 2 { bad.clone() } else { sign_req(id) };
            engine.submit(key.clone(), req)
        })
        .collect();
    drop(release);
    for (id, t) in (1..=4).zip(tickets) {
        let a = t.wait();
        if id == 2 {
            assert!(a.is_err(), "an input above the modulus must fail");
        } else {
            check(&key, id, &a);
        }
    }
    let s = engine.stats();
    if lane_batched(&key) {
        assert_eq!((s.batches[4], s.batched(), s.singles), (1, 4, 1), "{s:?}");
    } else {
        assert_eq!((s.batched(), s.singles), (0, 5), "{s:?}");
    }
}

#[test]
fn ticket_future_wakes_its_task() {
    let engine = one_worker().build().unwrap();
    let key = key2048();
    let release = occupy_worker(&engine);
    let mut ticket = engine.submit(key.clone(), sign_req(7));
    let wake = Arc::new(ThreadWaker::new());
    let waker = Waker::from(Arc::clone(&wake));
    let mut cx = Context::from_waker(&waker);
    // The worker is busy: the first poll must be pending and leave the waker.
    assert!(std::pin::Pin::new(&mut ticket).poll(&mut cx).is_pending());
    assert!(!ticket.is_ready());
    assert_eq!(wake.wakes(), 0);
    drop(release);
    while wake.wakes() == 0 {
        std::thread::park();
    }
    assert!(ticket.is_ready());
    match std::pin::Pin::new(&mut ticket).poll(&mut cx) {
        Poll::Ready(a) => check(&key, 7, &a),
        Poll::Pending => panic!("woken but not ready"),
    }
    // Polled after completion: an error, not a second answer.
    assert!(matches!(std::pin::Pin::new(&mut ticket).poll(&mut cx), Poll::Ready(Err(_))));
}

#[test]
fn futures_compose_in_an_async_block() {
    let engine = Engine::builder().workers(2).build().unwrap();
    let keys = all_keys();
    let tickets: Vec<_> =
        (0..12).map(|id| engine.submit(keys[id % 4].clone(), sign_req(id as u64))).collect();
    let answers = block_on(async move {
        let mut out = Vec::new();
        for t in tickets {
            out.push(t.await);
        }
        out
    });
    for (id, a) in answers.iter().enumerate() {
        check(&keys[id % 4], id as u64, a);
    }
}

#[test]
fn full_queue_refuses_with_busy() {
    let engine = one_worker().queue_capacity(2).backpressure(Backpressure::Reject).build().unwrap();
    let key = keys1024()[1].clone();
    let release = occupy_worker(&engine);
    let t1 = engine.try_submit(key.clone(), sign_req(1)).unwrap();
    let t2 = engine.submit(key.clone(), sign_req(2));
    assert_eq!(engine.try_submit(key.clone(), sign_req(3)).err(), Some(Error::Busy));
    assert_eq!(engine.submit(key.clone(), sign_req(4)).wait(), Err(Error::Busy));
    let called = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&called);
    let refused = engine.submit_with(key.clone(), sign_req(5), move |_| {
        c.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(refused, Err(Error::Busy));
    drop(release);
    check(&key, 1, &t1.wait());
    check(&key, 2, &t2.wait());
    // Room again.
    check(&key, 6, &engine.try_submit(key.clone(), sign_req(6)).unwrap().wait());
    engine.shutdown();
    assert_eq!(called.load(Ordering::SeqCst), 0, "a refused callback is never called");
    let s = engine.stats();
    assert_eq!(s.busy, 3);
    assert_eq!((s.requests, s.answered), (4, 4));
    assert_eq!(s.queue_high_water, 2);
}

#[test]
fn full_queue_blocks_a_blocking_submitter_until_room() {
    let engine = Arc::new(one_worker().queue_capacity(1).build().unwrap());
    let key = keys1024()[0].clone();
    let release = occupy_worker(&engine);
    let t1 = engine.submit(key.clone(), sign_req(1));
    // try_submit never waits, whatever the setting.
    assert_eq!(engine.try_submit(key.clone(), sign_req(9)).err(), Some(Error::Busy));
    let (tx, rx) = channel();
    let e = Arc::clone(&engine);
    let k = key.clone();
    let blocked = std::thread::spawn(move || {
        let t = e.submit(k, sign_req(2));
        tx.send(()).unwrap();
        t.wait()
    });
    // The queue stays full while the worker is held, so the submitter cannot get in.
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(rx.try_recv().is_err(), "submit returned while the queue was full");
    drop(release);
    check(&key, 1, &t1.wait());
    check(&key, 2, &blocked.join().unwrap());
    assert_eq!(engine.stats().busy, 1);
}

/// Queues a signing request for each `(id, key)` behind the held worker, lets the worker
/// go, checks every answer, and returns the engine's counters.
fn run_behind_held_worker(engine: &Engine, requests: &[(u64, Arc<RsaPrivateKey>)]) -> Stats {
    let release = occupy_worker(engine);
    let tickets: Vec<_> =
        requests.iter().map(|(id, k)| engine.submit(k.clone(), sign_req(*id))).collect();
    drop(release);
    for ((id, k), t) in requests.iter().zip(tickets) {
        check(k, *id, &t.wait());
    }
    engine.stats()
}

#[test]
fn full_batch_runs_as_one() {
    let engine = one_worker().deadline_us(1_000_000).build().unwrap();
    let [a, b] = keys1024();
    assert_eq!(a.batch_class(), b.batch_class());
    // Eight requests of one class, two different keys: one full batch (two mb8 calls).
    let requests: Vec<_> =
        (1..=8).map(|id| (id, if id % 2 == 0 { a.clone() } else { b.clone() })).collect();
    let s = run_behind_held_worker(&engine, &requests);
    if lane_batched(&a) {
        assert_eq!(s.batches[8], 1, "{s:?}");
        assert_eq!(s.mean_batch(), 8.0);
        assert_eq!(s.singles, 1, "only the request that held the worker ran alone: {s:?}");
    } else {
        assert_eq!((s.batched(), s.singles), (0, 9), "{s:?}");
    }
}

/// The AVX2 unit's class takes two operations to a call and pays from two: eight queued
/// requests run as one batch (four calls), three as one call and one alone.
#[test]
fn avx2_batches_take_calls_of_two() {
    if !cryptocard::rsa::Backend::Avx2.is_available() {
        println!("skipped: no AVX2 on this CPU");
        return;
    }
    let engine = one_worker().deadline_us(1_000_000).build().unwrap();
    let avx2 = (*key2048()).clone().with_backend(cryptocard::rsa::Backend::Avx2).unwrap();
    let key = Arc::new(avx2);
    let c = key.batch_class();
    assert!(c.is_lane_batched());
    assert_eq!((c.ops_per_batch(), c.min_batch_ops()), (2, 2));
    let requests: Vec<_> = (1..=8).map(|id| (id, key.clone())).collect();
    let s = run_behind_held_worker(&engine, &requests);
    assert_eq!((s.batches[8], s.batched(), s.singles), (1, 8, 1), "{s:?}");
    let before = engine.stats();
    let requests: Vec<_> = (11..=13).map(|id| (id, key.clone())).collect();
    let s = run_behind_held_worker(&engine, &requests).since(&before);
    assert_eq!(s.batched() + s.singles, 4, "{s:?}");
    assert!(s.batched() >= 2, "{s:?}");
}

#[test]
fn deadline_flushes_a_partial_batch() {
    // Three queued in a burst: a call pays, but has a free lane pair, so the worker waits
    // for a fourth (the burst predicts it); none comes, and the three run as one batch
    // when the wait gives up.
    let engine = one_worker().deadline_us(20_000).build().unwrap();
    let requests: Vec<_> = (1..=3).map(|id| (id, key2048())).collect();
    let s = run_behind_held_worker(&engine, &requests);
    if lane_batched(&key2048()) {
        assert_eq!((s.batches[3], s.batched()), (1, 3), "{s:?}");
        assert_eq!(s.singles, 1, "{s:?}");
    } else {
        assert_eq!((s.batched(), s.singles), (0, 4), "{s:?}");
    }
}

#[test]
fn below_the_crossover_requests_run_alone() {
    // Crossover 5 is above three requests for one worker whatever the class.
    let engine = one_worker().crossover(5).deadline_us(20_000).build().unwrap();
    let requests: Vec<_> = (1..=3).map(|id| (id, key2048())).collect();
    let s = run_behind_held_worker(&engine, &requests);
    assert_eq!(s.batched(), 0, "{s:?}");
    assert_eq!(s.singles, 4, "{s:?}");
}

#[test]
fn classes_without_lanes_run_alone_however_deep_the_queue() {
    let engine = one_worker().deadline_us(20_000).build().unwrap();
    let key = key2048_scalar();
    assert!(!lane_batched(&key));
    let requests: Vec<_> = (1..=8).map(|id| (id, key.clone())).collect();
    let s = run_behind_held_worker(&engine, &requests);
    assert_eq!((s.batched(), s.singles), (0, 9), "{s:?}");
}

/// Queues `n` requests for `key` behind both of a two-worker engine's held workers, lets
/// them go, checks every answer, and returns the counters of this phase.
fn burst_on_two_workers(engine: &Engine, key: &Arc<RsaPrivateKey>, n: u64) -> Stats {
    let before = engine.stats();
    let holds = [occupy_worker(engine), occupy_worker(engine)];
    let tickets: Vec<_> = (1..=n).map(|id| engine.submit(key.clone(), sign_req(id))).collect();
    drop(holds);
    for (id, t) in (1..=n).zip(tickets) {
        check(key, id, &t.wait());
    }
    engine.stats().since(&before)
}

#[test]
fn free_workers_split_a_burst_into_whole_calls() {
    // Two workers held, eight 2048-bit requests queued: the first free worker takes one
    // 4-operation call (done sooner than four single operations) and leaves the
    // other four to the second worker, never all eight. (Should the second worker be slow
    // to come back, the first finds four left for two free workers and runs them as
    // singles, so only the first call is certain.)
    let engine = Engine::builder().workers(2).deadline_us(20_000).build().unwrap();
    let key = key2048();
    let s = burst_on_two_workers(&engine, &key, 8);
    if lane_batched(&key) {
        assert!(s.batches[4] >= 1, "{s:?}");
        assert_eq!(s.batched(), 4 * s.batches[4], "only 4-operation calls: {s:?}");
        assert_eq!(s.singles + s.batched(), 10, "{s:?}");
    } else {
        assert_eq!((s.batched(), s.singles), (0, 10), "{s:?}");
    }
    // Four: two singles per worker beat one call, in every class.
    let s = burst_on_two_workers(&engine, &key, 4);
    assert_eq!((s.batched(), s.singles), (0, 6), "{s:?}");
}

#[test]
fn classes_never_share_a_batch() {
    let engine = one_worker().deadline_us(20_000).build().unwrap();
    let keys = all_keys(); // 1024, 1024, 2048, three-prime 1536
    let requests: Vec<_> = (1..=12u64).map(|id| (id, keys[id as usize % 4].clone())).collect();
    let s = run_behind_held_worker(&engine, &requests);
    // Six 1024-bit requests (one batch), three 2048-bit (one batch), three three-prime
    // (alone each), plus the one that held the worker; classes without lanes run alone.
    assert!(!lane_batched(&keys[3]));
    let mut singles = 4;
    for (size, key) in [(6, &keys[0]), (3, &keys[2])] {
        if lane_batched(key) {
            assert_eq!(s.batches[size], 1, "{s:?}");
        } else {
            singles += size as u64;
        }
    }
    assert_eq!(s.singles, singles, "{s:?}");
    assert_eq!(s.singles + s.batched(), 13, "{s:?}");
}

#[test]
fn run_computes_on_the_callers_thread_when_idle() {
    let engine = Engine::builder().workers(1).build().unwrap();
    let key = key2048();
    for id in 0..3 {
        check(&key, id, &engine.run(key.clone(), sign_req(id)));
    }
    assert_eq!(engine.stats().direct, 3);
    // With the direct path off, the worker runs it.
    let engine = Engine::builder().workers(1).direct(false).build().unwrap();
    check(&key, 3, &engine.run(key.clone(), sign_req(3)));
    let s = engine.stats();
    assert_eq!((s.direct, s.singles), (0, 1));
}

#[test]
fn callbacks_may_call_back_in_and_may_panic() {
    let engine = Arc::new(Engine::builder().workers(1).build().unwrap());
    let key = key2048();
    let got = Arc::new(Mutex::new(Vec::new()));
    let (e, k, g) = (Arc::clone(&engine), key.clone(), Arc::clone(&got));
    let (tx, rx) = channel();
    engine
        .submit_with(key.clone(), sign_req(1), move |a| {
            // On the only worker: run and sign_batch compute inline instead of waiting for
            // the worker (themselves).
            let inner = e.run(k.clone(), sign_req(2));
            let batch = e.sign_batch(&[(k.clone(), sign_req(3)), (k.clone(), sign_req(4))]);
            g.lock().unwrap().extend([a, inner].into_iter().chain(batch));
            tx.send(()).unwrap();
        })
        .unwrap();
    rx.recv().unwrap();
    for (id, a) in (1..=4).zip(got.lock().unwrap().iter()) {
        check(&key, id, a);
    }
    engine.submit_with(key.clone(), sign_req(5), |_| panic!("callback panics")).unwrap();
    // The worker survived the panic.
    check(&key, 6, &engine.submit(key.clone(), sign_req(6)).wait());
    assert_eq!(engine.stats().callback_panics, 1);
}

/// Callbacks on two workers that shut the engine down at the same time: each waits for
/// the other workers to finish, but not for those that wait in a shutdown too, so both
/// return (each used to wait for the other forever).
#[test]
fn callbacks_on_two_workers_may_shut_down_at_once() {
    let engine = Arc::new(Engine::builder().workers(2).build().unwrap());
    let key = key2048();
    let both = Arc::new(std::sync::Barrier::new(2));
    let (done, finished) = channel();
    for id in 0..2 {
        let (e, both, done) = (Arc::clone(&engine), Arc::clone(&both), done.clone());
        let (started, on_worker) = channel();
        engine
            .submit_with(key.clone(), sign_req(id), move |a| {
                started.send(()).unwrap();
                both.wait();
                e.shutdown();
                done.send(a).unwrap();
            })
            .unwrap();
        // The first callback holds its worker before the second request is queued, so
        // the second runs on the other worker.
        on_worker.recv().unwrap();
    }
    for _ in 0..2 {
        let a = finished.recv_timeout(std::time::Duration::from_secs(60));
        assert!(a.as_ref().is_ok_and(|a| a.is_ok()), "a shutdown from a callback hung: {a:?}");
    }
    assert_eq!(engine.submit(key.clone(), sign_req(3)).wait(), Err(Error::ShutDown));
}

#[test]
fn settings_are_checked() {
    for bad in [
        Engine::builder().workers(0),
        Engine::builder().queue_capacity(0),
        Engine::builder().max_batch(0),
        Engine::builder().max_batch(9),
        Engine::builder().crossover(0),
    ] {
        assert!(matches!(bad.build().err(), Some(Error::InvalidArgument(_))));
    }
    let c = Engine::builder().workers(3).config();
    assert_eq!(c.queue_capacity, 3 * cryptocard::engine::DEFAULT_QUEUE_PER_WORKER);
    let d = EngineConfig::default();
    assert!(d.workers >= 1 && d.direct && d.backpressure == Backpressure::Block);
    assert_eq!(Stats::default().batched(), 0);
    assert_eq!(Stats::default().mean_batch(), 0.0);
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Engine>();
    send_sync::<cryptocard::engine::Ticket>();
}
