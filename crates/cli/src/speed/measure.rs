//! Interleaved measurement of one row's implementations.
//!
//! Every implementation of a row runs in the same process, in alternating short slices:
//! ours for a slice, then each peer for a slice, then again in the reverse order (A B C,
//! C B A, A B C, ...), until each has run `-seconds` in total. A clock that drifts (turbo
//! budgets, thermal limits), a neighbour that starts a build, a page-cache flush: whatever
//! changes the machine's speed during the run lands on all implementations alike, because
//! none of them runs for long before the others get a turn, and the reversed order cancels
//! a linear drift within each pair of rounds. The ratios, computed from totals taken over
//! the same wall-clock span, are therefore far steadier than the figures of two separate
//! runs (`openssl speed` now, `cryptocard speed` later), which is the point of measuring
//! side by side.
//!
//! With `-multi N` every slice runs on N threads at once, each with its own instance
//! (contexts are never shared); a slice's operations are summed over the threads and its
//! time is the longest thread's. Inside a slice the clock is read once per chunk of calls,
//! the chunk doubling while a chunk takes under [`CHUNK_TARGET`], so clock reads cost
//! nothing measurable even for the fastest operations.
//!
//! Before timing, each instance runs once (a warm-up that also catches failures), and the
//! first thread's results are compared across implementations: a row whose implementations
//! disagree is reported, so a fast wrong answer cannot pass for a fast right one.

use super::row::{Bench, Row};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Wall time under which a chunk of calls is doubled.
const CHUNK_TARGET: Duration = Duration::from_micros(200);

/// How long and how wide to measure.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Seconds of running time each implementation gets in total.
    pub seconds: f64,
    /// Length of one slice.
    pub slice: Duration,
    /// Threads running each slice (`-multi`).
    pub threads: usize,
}

impl Settings {
    /// Slices of a tenth of the total, between 10 ms and 100 ms: at least ten turns per
    /// implementation for runs of a second and more, and still several for tiny `-seconds`.
    pub fn new(seconds: f64, threads: usize) -> Settings {
        let slice = Duration::from_secs_f64((seconds / 10.0).clamp(0.01, 0.1));
        Settings { seconds, slice, threads }
    }
}

/// The totals of one implementation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    /// Operations completed (calls × operations per call, summed over threads).
    pub ops: u64,
    /// Seconds of measured running time.
    pub secs: f64,
}

impl Totals {
    /// Operations per second.
    pub fn rate(&self) -> f64 {
        if self.secs > 0.0 { self.ops as f64 / self.secs } else { 0.0 }
    }
}

/// A row's outcome: per candidate, totals or why it could not be measured.
#[derive(Debug)]
pub struct RowResult {
    /// In the row's candidate order.
    pub cells: Vec<Result<Totals, String>>,
    /// Candidates whose first result differs from the first comparable candidate's.
    pub mismatches: Vec<usize>,
}

enum Cmd {
    Run { k: usize, slice: Duration },
}

enum Report {
    Ready { outputs: Vec<Result<Option<Vec<u8>>, String>> },
    Done { ops: u64, secs: f64 },
    Failed { error: String },
}

/// Measures every candidate of `row`; `progress` gets the fraction done after each round.
pub fn measure_row(row: &Row, s: &Settings, progress: &mut dyn FnMut(f64)) -> RowResult {
    let n = row.candidates.len();
    let threads = s.threads.max(1);
    std::thread::scope(|scope| {
        let (report_tx, report_rx) = mpsc::channel::<(usize, Report)>();
        let mut cmd_txs = Vec::with_capacity(threads);
        for t in 0..threads {
            let (cmd_tx, cmd_rx) = mpsc::channel::<Cmd>();
            cmd_txs.push(cmd_tx);
            let report_tx = report_tx.clone();
            scope.spawn(move || worker(row, t, cmd_rx, report_tx));
        }
        drop(report_tx);

        // Gather every thread's warm-up results; thread 0's outputs are cross-checked.
        let mut cells: Vec<Result<Totals, String>> = vec![Ok(Totals { ops: 0, secs: 0.0 }); n];
        let mut first_outputs = Vec::new();
        for _ in 0..threads {
            let Ok((t, Report::Ready { outputs })) = report_rx.recv() else {
                return RowResult {
                    cells: vec![Err("internal error: worker lost".into()); n],
                    mismatches: Vec::new(),
                };
            };
            for (cell, out) in cells.iter_mut().zip(&outputs) {
                if let (Ok(_), Err(e)) = (&cell, out) {
                    *cell = Err(e.clone());
                }
            }
            if t == 0 {
                first_outputs = outputs;
            }
        }
        let mismatches = cross_check(&first_outputs);

        let mut round = 0usize;
        loop {
            let mut order: Vec<usize> = (0..n).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            round += 1;
            let pending: Vec<usize> = order
                .into_iter()
                .filter(|&k| matches!(&cells[k], Ok(t) if t.secs < s.seconds))
                .collect();
            if pending.is_empty() {
                break;
            }
            for k in pending {
                for tx in &cmd_txs {
                    let _ = tx.send(Cmd::Run { k, slice: s.slice });
                }
                let mut slice = (0u64, 0f64, None::<String>);
                for _ in 0..threads {
                    match report_rx.recv() {
                        Ok((_, Report::Done { ops, secs })) => {
                            slice.0 += ops;
                            slice.1 = slice.1.max(secs);
                        }
                        Ok((_, Report::Failed { error })) => slice.2 = Some(error),
                        _ => slice.2 = Some("internal error: worker lost".into()),
                    }
                }
                match (&mut cells[k], slice.2) {
                    (cell, Some(e)) => *cell = Err(e),
                    (Ok(t), None) => {
                        t.ops += slice.0;
                        t.secs += slice.1;
                    }
                    (Err(_), None) => {}
                }
            }
            let done: f64 =
                cells.iter().map(|c| c.as_ref().map_or(s.seconds, |t| t.secs.min(s.seconds))).sum();
            progress(done / (s.seconds * n.max(1) as f64));
        }
        drop(cmd_txs); // workers see their channel close and return
        RowResult { cells, mismatches }
    })
}

/// One measuring thread: builds and warms up its own instance of every candidate, then runs
/// the slices it is told to.
fn worker(row: &Row, t: usize, cmds: mpsc::Receiver<Cmd>, reports: mpsc::Sender<(usize, Report)>) {
    let mut benches: Vec<Option<Box<dyn Bench>>> = Vec::new();
    let mut outputs = Vec::new();
    for c in &row.candidates {
        match guarded(|| (c.make)().and_then(|mut b| b.run().map(|()| b))) {
            Ok(b) => {
                outputs.push(Ok(b.output()));
                benches.push(Some(b));
            }
            Err(e) => {
                outputs.push(Err(e));
                benches.push(None);
            }
        }
    }
    let _ = reports.send((t, Report::Ready { outputs }));
    let mut chunks = vec![1u64; benches.len()];
    while let Ok(Cmd::Run { k, slice }) = cmds.recv() {
        let report = match benches[k].as_mut() {
            None => Report::Failed { error: "not available".into() },
            Some(b) => match guarded(|| run_slice(b.as_mut(), &mut chunks[k], slice)) {
                Ok((calls, secs)) => {
                    Report::Done { ops: calls * row.candidates[k].ops_per_call(), secs }
                }
                Err(error) => Report::Failed { error },
            },
        };
        let _ = reports.send((t, report));
    }
}

/// Runs `f`, turning a panic (a bug in an implementation) into an error for its cell, so
/// that one broken implementation cannot take the harness down or leave it waiting.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err("internal error: the implementation panicked".into()))
}

/// Calls `b` in chunks until `slice` has passed; returns (calls, seconds).
fn run_slice(b: &mut dyn Bench, chunk: &mut u64, slice: Duration) -> Result<(u64, f64), String> {
    let start = Instant::now();
    let deadline = start + slice;
    let mut calls = 0u64;
    loop {
        let t = Instant::now();
        for _ in 0..*chunk {
            b.run()?;
        }
        calls += *chunk;
        let now = Instant::now();
        if now >= deadline {
            return Ok((calls, (now - start).as_secs_f64()));
        }
        if now - t < CHUNK_TARGET {
            *chunk *= 2;
        }
    }
}

/// Indices of candidates whose output differs from the first comparable one (leading zero
/// bytes ignored: some libraries pad numbers to the modulus length, some do not).
fn cross_check(outputs: &[Result<Option<Vec<u8>>, String>]) -> Vec<usize> {
    let trim = |v: &[u8]| v[v.iter().position(|&b| b != 0).unwrap_or(v.len())..].to_vec();
    let mut reference = None;
    let mut bad = Vec::new();
    for (k, out) in outputs.iter().enumerate() {
        if let Ok(Some(v)) = out {
            match &reference {
                None => reference = Some(trim(v)),
                Some(r) if *r != trim(v) => bad.push(k),
                Some(_) => {}
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speed::row::{Candidate, Who, bench};

    fn row(candidates: Vec<Candidate>) -> Row {
        Row::new("test", "op", 8, None, candidates)
    }

    fn counter(out: u8) -> Candidate {
        Candidate::new(Who::Ours, move || {
            Ok(bench(
                0u64,
                |n| {
                    *n += 1;
                    Ok(())
                },
                move |_| Some(vec![out]),
            ))
        })
    }

    #[test]
    fn every_candidate_runs_its_share_and_mismatches_are_flagged() {
        let mut c3 = counter(9);
        c3.batch = Some(4);
        let failing = Candidate::new(Who::Ours, || Err("no such thing".into()));
        let r = row(vec![counter(1), counter(1), c3, failing]);
        let mut last = 0.0;
        let res = measure_row(&r, &Settings::new(0.03, 2), &mut |f| last = f);
        assert_eq!(last, 1.0);
        for cell in &res.cells[..3] {
            let t = cell.as_ref().unwrap();
            assert!(t.secs >= 0.03 && t.ops > 0, "{t:?}");
        }
        assert_eq!(res.cells[2].as_ref().unwrap().ops % 4, 0, "batched calls count 4 ops each");
        assert_eq!(res.cells[3], Err("no such thing".to_string()));
        assert_eq!(res.mismatches, [2]);
    }

    #[test]
    fn cross_check_ignores_leading_zeros_and_randomized_outputs() {
        let outs = vec![
            Ok(None),
            Ok(Some(vec![0, 0, 5])),
            Ok(Some(vec![5])),
            Err("x".into()),
            Ok(Some(vec![6])),
        ];
        assert_eq!(cross_check(&outs), [4]);
    }
}
