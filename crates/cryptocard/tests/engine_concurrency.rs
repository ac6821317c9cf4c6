//! Many threads at once: every request answered exactly once and correctly, with mixed
//! key sizes and schemes and every interface; shutdown that drains or cancels with
//! nothing lost.

mod engine_common;

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};

use cryptocard::Error;
use cryptocard::engine::{Answer, Backpressure, Engine, ShutdownMode, Ticket};
use engine_common::*;

const THREADS: u64 = 8;
const PER_THREAD: u64 = 12;

/// Each of `THREADS` threads submits `PER_THREAD` requests through the interfaces in turn
/// and records every answer it gets against its request id; callbacks record theirs too.
/// Returns, per id, the answers received (each id must end up with exactly one).
fn hammer(engine: &Arc<Engine>) -> Vec<Vec<Answer>> {
    let keys = all_keys();
    let total = (THREADS * PER_THREAD) as usize;
    let answers: Arc<Mutex<Vec<Vec<Answer>>>> = Arc::new(Mutex::new(vec![Vec::new(); total]));
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (engine, keys, answers) = (Arc::clone(engine), keys.clone(), Arc::clone(&answers));
            s.spawn(move || {
                let record = |id: u64, a: Answer| answers.lock().unwrap()[id as usize].push(a);
                let (tx, rx) = channel();
                let mut callbacks = 0;
                let mut pending = Vec::new();
                let ids: Vec<u64> = (0..PER_THREAD).map(|i| t * PER_THREAD + i).collect();
                for chunk in ids.chunks(4) {
                    let key_of = |id: u64| keys[(id % 4) as usize].clone();
                    let req = |id: u64| mixed_req(&key_of(id), id);
                    match chunk[0] / 4 % 4 {
                        0 => {
                            chunk.iter().for_each(|&id| record(id, engine.run(key_of(id), req(id))))
                        }
                        1 => pending.extend(
                            chunk.iter().map(|&id| (id, engine.submit(key_of(id), req(id)))),
                        ),
                        2 => {
                            for &id in chunk {
                                let tx = tx.clone();
                                engine
                                    .submit_with(key_of(id), req(id), move |a| {
                                        tx.send((id, a)).unwrap()
                                    })
                                    .unwrap();
                                callbacks += 1;
                            }
                        }
                        _ => {
                            let batch: Vec<_> =
                                chunk.iter().map(|&id| (key_of(id), req(id))).collect();
                            for (&id, a) in chunk.iter().zip(engine.sign_batch(&batch)) {
                                record(id, a);
                            }
                        }
                    }
                }
                for (id, ticket) in pending {
                    record(id, block_on(ticket));
                }
                for _ in 0..callbacks {
                    let (id, a) = rx.recv().unwrap();
                    record(id, a);
                }
            });
        }
    });
    Arc::try_unwrap(answers).unwrap().into_inner().unwrap()
}

#[test]
fn many_threads_every_request_answered_once_and_right() {
    let engine =
        Arc::new(Engine::builder().workers(2).queue_capacity(16).crossover(2).build().unwrap());
    let keys = all_keys();
    let answers = hammer(&engine);
    for (id, got) in answers.iter().enumerate() {
        assert_eq!(got.len(), 1, "request {id} answered {} times", got.len());
        check_mixed(&keys[id % 4], id as u64, &got[0]);
    }
    let s = engine.stats();
    assert_eq!(s.requests, THREADS * PER_THREAD);
    assert_eq!(s.answered, s.requests);
    assert_eq!(s.direct + s.singles + s.batched(), s.requests, "{s:?}");
    assert!(s.queue_high_water <= 16);
}

#[test]
fn many_threads_against_a_small_rejecting_queue() {
    // Every refusal is reported to its submitter and the request is never answered; every
    // accepted one is answered once.
    let engine = Arc::new(
        Engine::builder()
            .workers(2)
            .queue_capacity(2)
            .backpressure(Backpressure::Reject)
            .build()
            .unwrap(),
    );
    let key = keys1024()[0].clone();
    let (accepted, refused) = (AtomicU32::new(0), AtomicU32::new(0));
    std::thread::scope(|s| {
        for t in 0..6u64 {
            let (engine, key, accepted, refused) = (&engine, &key, &accepted, &refused);
            s.spawn(move || {
                let mut tickets = Vec::new();
                for i in 0..8 {
                    let id = t * 8 + i;
                    match engine.try_submit(key.clone(), sign_req(id)) {
                        Ok(ticket) => tickets.push((id, ticket)),
                        Err(e) => {
                            assert_eq!(e, Error::Busy);
                            refused.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                for (id, ticket) in tickets {
                    check(key, id, &ticket.wait());
                    accepted.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let s = engine.stats();
    assert_eq!(s.busy, u64::from(refused.load(Ordering::Relaxed)));
    assert_eq!(s.requests, u64::from(accepted.load(Ordering::Relaxed)));
    assert_eq!(s.answered, s.requests);
    assert_eq!(s.requests + s.busy, 48);
}

/// What `queue_behind` queued: tickets by id, callback calls by id, callback answers.
struct Queued {
    tickets: Vec<(u64, Ticket)>,
    calls: Arc<Vec<AtomicU32>>,
    answers: Receiver<(u64, Answer)>,
}

/// Queues `n` tickets (ids 0..n) and `n` callbacks (ids n..2n, counting their calls)
/// behind a held worker.
fn queue_behind(engine: &Engine, n: u64) -> Queued {
    let keys = all_keys();
    let calls: Arc<Vec<AtomicU32>> = Arc::new((0..2 * n).map(|_| AtomicU32::new(0)).collect());
    let (tx, rx) = channel();
    let mut tickets = Vec::new();
    for id in 0..n {
        let k = keys[(id % 4) as usize].clone();
        tickets.push((id, engine.submit(k, sign_req(id))));
    }
    for id in n..2 * n {
        let k = keys[(id % 4) as usize].clone();
        let (calls, tx) = (Arc::clone(&calls), tx.clone());
        engine
            .submit_with(k, sign_req(id), move |a| {
                calls[id as usize].fetch_add(1, Ordering::SeqCst);
                tx.send((id, a)).unwrap();
            })
            .unwrap();
    }
    Queued { tickets, calls, answers: rx }
}

fn refuses_everything(engine: &Engine) {
    let key = keys1024()[0].clone();
    assert_eq!(engine.run(key.clone(), sign_req(0)), Err(Error::ShutDown));
    assert_eq!(engine.submit(key.clone(), sign_req(0)).wait(), Err(Error::ShutDown));
    assert_eq!(engine.try_submit(key.clone(), sign_req(0)).err(), Some(Error::ShutDown));
    assert_eq!(
        engine.submit_with(key.clone(), sign_req(0), |_| panic!("called")),
        Err(Error::ShutDown)
    );
    assert_eq!(engine.sign_batch(&[(key, sign_req(0))]), vec![Err(Error::ShutDown)]);
}

#[test]
fn shutdown_drain_completes_everything_queued() {
    let engine = Engine::builder().workers(1).crossover(2).build().unwrap();
    let release = occupy_worker(&engine);
    let Queued { tickets, calls, answers: rx } = queue_behind(&engine, 10);
    drop(release);
    engine.shutdown();
    let keys = all_keys();
    // After a drain every ticket is ready and every callback has run, exactly once.
    for (id, t) in tickets {
        assert!(t.is_ready(), "ticket {id} not answered by the drain");
        check(&keys[(id % 4) as usize], id, &t.wait());
    }
    let got: Vec<_> = rx.try_iter().collect();
    assert_eq!(got.len(), 10);
    for (id, a) in &got {
        check(&keys[(id % 4) as usize], *id, a);
    }
    assert!(calls[10..].iter().all(|c| c.load(Ordering::SeqCst) == 1));
    let s = engine.stats();
    assert_eq!((s.requests, s.answered), (21, 21));
    refuses_everything(&engine);
}

#[test]
fn dropping_the_engine_drains_it() {
    let engine = Engine::builder().workers(1).crossover(2).build().unwrap();
    let release = occupy_worker(&engine);
    let Queued { tickets, calls, answers: rx } = queue_behind(&engine, 6);
    // Let the worker go from another thread once the drop has begun.
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        drop(release);
    });
    drop(engine);
    releaser.join().unwrap();
    let keys = all_keys();
    for (id, t) in tickets {
        assert!(t.is_ready(), "ticket {id} not answered by the drop");
        check(&keys[(id % 4) as usize], id, &t.wait());
    }
    for (id, a) in rx.try_iter() {
        check(&keys[(id % 4) as usize], id, &a);
    }
    assert!(calls[6..].iter().all(|c| c.load(Ordering::SeqCst) == 1));
}

#[test]
fn shutdown_cancel_answers_everything_queued_with_shut_down() {
    let engine = Arc::new(Engine::builder().workers(1).build().unwrap());
    let release = occupy_worker(&engine);
    let Queued { tickets, calls, answers: rx } = queue_behind(&engine, 10);
    // Cancel while the worker is held: the queue is answered at once; shutdown then waits
    // for the worker, so it runs on another thread until the worker is let go.
    let e = Arc::clone(&engine);
    let stopper = std::thread::spawn(move || e.shutdown_with(ShutdownMode::Cancel));
    for (id, t) in tickets {
        assert_eq!(t.wait(), Err(Error::ShutDown), "ticket {id}");
    }
    let got: Vec<_> = (0..10).map(|_| rx.recv().unwrap()).collect();
    assert!(got.iter().all(|(_, a)| *a == Err(Error::ShutDown)));
    drop(release);
    stopper.join().unwrap();
    assert!(calls[10..].iter().all(|c| c.load(Ordering::SeqCst) == 1));
    assert!(rx.try_recv().is_err(), "a callback was called twice");
    let s = engine.stats();
    assert_eq!((s.requests, s.answered), (21, 21));
    refuses_everything(&engine);
}

#[test]
fn shutdown_cancel_under_load_loses_nothing() {
    // Threads keep submitting while another thread cancels: each accepted request gets
    // one answer, a correct result or ShutDown; each refused one is refused at submission.
    let engine =
        Arc::new(Engine::builder().workers(2).queue_capacity(8).crossover(2).build().unwrap());
    let keys = all_keys();
    let (done, cancelled, refused) = (AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0));
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (engine, keys, done, cancelled, refused) =
                (&engine, &keys, &done, &cancelled, &refused);
            s.spawn(move || {
                let mut tickets = Vec::new();
                for i in 0..16 {
                    let id = t * 16 + i;
                    let key = keys[(id % 4) as usize].clone();
                    match engine.try_submit(key, sign_req(id)) {
                        Ok(ticket) => tickets.push((id, ticket)),
                        Err(Error::Busy | Error::ShutDown) => {
                            refused.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
                for (id, ticket) in tickets {
                    match ticket.wait() {
                        Err(Error::ShutDown) => cancelled.fetch_add(1, Ordering::Relaxed),
                        a => {
                            check(&keys[(id % 4) as usize], id, &a);
                            done.fetch_add(1, Ordering::Relaxed)
                        }
                    };
                }
            });
        }
        s.spawn(|| {
            // Cancel once some work has been done.
            while engine.stats().answered < 4 {
                std::thread::yield_now();
            }
            engine.shutdown_with(ShutdownMode::Cancel);
        });
    });
    let s = engine.stats();
    let (done, cancelled, refused) =
        (done.into_inner(), cancelled.into_inner(), refused.into_inner());
    assert_eq!(u64::from(done + cancelled), s.requests);
    assert_eq!(s.answered, s.requests);
    assert_eq!(done + cancelled + refused, 64);
    assert!(done >= 4);
}

/// A one-thread executor: runs every task to completion, polling a task again only when
/// its waker has been called (so a ticket that forgets to wake its task hangs the test).
fn run_tasks(tasks: Vec<Pin<Box<dyn Future<Output = ()>>>>) {
    struct TaskWaker {
        id: usize,
        ready: Arc<Mutex<VecDeque<usize>>>,
        thread: std::thread::Thread,
    }
    impl Wake for TaskWaker {
        fn wake(self: Arc<Self>) {
            self.ready.lock().unwrap().push_back(self.id);
            self.thread.unpark();
        }
    }
    let ready = Arc::new(Mutex::new((0..tasks.len()).collect::<VecDeque<_>>()));
    let mut tasks: Vec<_> = tasks.into_iter().map(Some).collect();
    let mut left = tasks.len();
    while left > 0 {
        let next = ready.lock().unwrap().pop_front();
        let Some(id) = next else {
            std::thread::park();
            continue;
        };
        let Some(task) = tasks[id].as_mut() else { continue };
        let waker = Waker::from(Arc::new(TaskWaker {
            id,
            ready: Arc::clone(&ready),
            thread: std::thread::current(),
        }));
        if task.as_mut().poll(&mut Context::from_waker(&waker)).is_ready() {
            tasks[id] = None;
            left -= 1;
        }
    }
}

#[test]
fn many_async_tasks_on_one_thread() {
    // 16 tasks, each awaiting three requests in turn, all pending at once on one thread.
    let engine = Arc::new(Engine::builder().workers(2).crossover(2).build().unwrap());
    let keys = all_keys();
    let answered = Arc::new(AtomicU32::new(0));
    let tasks = (0..16u64)
        .map(|t| {
            let (engine, keys, answered) =
                (Arc::clone(&engine), keys.clone(), Arc::clone(&answered));
            Box::pin(async move {
                for i in 0..3 {
                    let id = t * 3 + i;
                    let key = keys[(id % 4) as usize].clone();
                    let answer = engine.submit(key.clone(), mixed_req(&key, id)).await;
                    check_mixed(&key, id, &answer);
                    answered.fetch_add(1, Ordering::Relaxed);
                }
            }) as Pin<Box<dyn Future<Output = ()>>>
        })
        .collect();
    run_tasks(tasks);
    assert_eq!(answered.load(Ordering::Relaxed), 48);
    let s = engine.stats();
    assert_eq!((s.requests, s.answered), (48, 48));
}
