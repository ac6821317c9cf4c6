//! `cryptocard speed --engine`: RSA signing under concurrency, through
//! [`cryptocard::engine::Engine`], against OpenSSL called directly from the same number of
//! threads.
//!
//! For each concurrency c (1, 2, 4, ..., 64 by default) c callers sign in a loop for
//! `-seconds`, each request a PKCS#1 v1.5 SHA-256 signature with the `rsaN` speed key,
//! and every call is timed on its own: throughput is all calls over the elapsed time, and
//! p50/p99 are over every call's latency. Ours: one shared engine (one worker per core,
//! its defaults). Below [`IN_FLIGHT_FROM`] callers each is a thread calling
//! [`Engine::run`], the blocking interface a server thread would use; from there on they
//! are requests in flight, [`Engine::submit`]'s tickets polled as futures by one driver
//! thread a worker ([`in_flight`]), as an async server or OpenSSL's async jobs hold
//! thousands of them.
//! OpenSSL: each caller thread signs with its own prepared `EVP_PKEY_CTX`, which is how a
//! threaded OpenSSL server uses it (OpenSSL has no batching), up to
//! [`PEER_CALLERS_MAX`] callers; `-concurrency` takes up to 65,536 for ours.
//!
//! Two references of ours come first, for the engine's targets: the plain single
//! operation on one thread (the engine at concurrency 1 should be within 1.1x of its
//! latency) and [`private_batch`] of 8 requests on one thread per core (the engine at
//! concurrency 64 should be within 10% of its throughput). The table and JSON lines go to
//! stdout; the plot (SVG) to `-plot FILE`, `speed-engine.svg` by default, written whole or
//! not at all.
//!
//! With `-backend gpu` the engine gets the GPU as its offload unit
//! ([`cryptocard::engine::Offload::gpu`]). Its crossover and batch size are measured
//! first, not guessed: the GPU's end-to-end rate at batches of 256 to 65,536 against the
//! batched reference on every core; the crossover is the smallest batch at which the GPU
//! is faster, the batch the fastest size. The levels then go up to 16,384 callers (fewer
//! rarely queue past the crossover an H200 measured, 1,024 to 16,384 by the kernel), and
//! the sweep ends with how many requests the GPU took, in how many batches and how long,
//! at each level. Without a GPU it stops at once.

use super::algs::rsa::speed_key;
use super::in_flight;
use super::peers::PeerSet;
use super::plot::{self, Series};
use super::report::{Format, format_rate, identify, identity, label};
use super::row::Who;
use crate::fail::{CmdResult, Fail};
#[cfg(feature = "peers")]
use compare::openssl::{RsaOp, RsaPadding};
use cryptocard::digest::HashAlg;
use cryptocard::engine::{Engine, EngineConfig, Offload};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, private_batch};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Concurrency levels unless `-concurrency` says otherwise.
pub const DEFAULT_LEVELS: &[usize] = &[1, 2, 4, 8, 16, 32, 64];
/// With `-backend gpu`: up to thousands of callers, where the GPU's batches fill.
pub const GPU_LEVELS: &[usize] = &[1, 16, 256, 1024, 4096, 16384];
/// Callers from which ours are requests in flight on one driver thread a worker
/// ([`in_flight`]), as an async server holds them, rather than a blocked thread each.
pub const IN_FLIGHT_FROM: usize = 256;
/// The most callers the peers are measured at (a thread each).
pub const PEER_CALLERS_MAX: usize = 1024;
/// A caller's stack: callers only wait on the engine or sign through a peer, and
/// [`GPU_LEVELS`] starts thousands of them.
const CALLER_STACK: usize = 1 << 20;
/// The batch sizes measured on the GPU to choose the offload's crossover and batch.
const GPU_CANDIDATES: &[usize] = &[256, 1024, 4096, 16384, 65536];
/// Where the plot goes unless `-plot` says otherwise.
pub const DEFAULT_PLOT: &str = "speed-engine.svg";

/// What `--engine` was asked for.
#[derive(Debug)]
pub struct Options {
    pub bits: u32,
    pub seconds: f64,
    pub levels: Vec<usize>,
    pub plot: String,
    pub format: Format,
    /// `-backend gpu`: the engine with the GPU as its offload unit.
    pub gpu: bool,
}

/// One measured point: throughput and latency quantiles.
#[derive(Debug, Clone, Copy)]
struct Point {
    ops_per_s: f64,
    p50_us: f64,
    p99_us: f64,
}

/// Runs `threads` callers of `op` (made per thread by `make`) from one common start until
/// one common deadline `secs` later; every call is timed. Throughput divides the calls by
/// the time from the start to the last call's end, so callers the scheduler starts late
/// (more callers than cores) cannot stretch the window unseen.
fn measure<F, M>(threads: usize, secs: f64, make: M) -> Result<Point, String>
where
    M: Fn() -> Result<F, String> + Sync,
    F: FnMut() -> Result<(), String>,
{
    // Every caller makes its op, then waits for the common start (none: a caller could
    // not be started, and the level stops).
    let ready = std::sync::atomic::AtomicUsize::new(0);
    let start = std::sync::OnceLock::<Option<Instant>>::new();
    let run = Duration::from_secs_f64(secs);
    let results: Vec<Result<(Vec<f64>, Instant), String>> = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for _ in 0..threads {
            let caller =
                std::thread::Builder::new().stack_size(CALLER_STACK).spawn_scoped(s, || {
                    let op = make();
                    ready.fetch_add(1, std::sync::atomic::Ordering::Release);
                    let Some(start) = *start.wait() else { return Err("not started".into()) };
                    let mut op = op?;
                    let (mut lat, mut end) = (Vec::new(), start);
                    while end.duration_since(start) < run {
                        let t = Instant::now();
                        op()?;
                        end = Instant::now();
                        lat.push((end - t).as_secs_f64() * 1e6);
                    }
                    Ok((lat, end))
                });
            match caller {
                Ok(h) => handles.push(h),
                Err(e) => {
                    let _ = start.set(None);
                    return vec![Err(format!(
                        "{threads} callers: thread {} would not start: {e}",
                        handles.len()
                    ))];
                }
            }
        }
        while ready.load(std::sync::atomic::Ordering::Acquire) < threads {
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = start.set(Some(Instant::now()));
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a caller panicked".into())))
            .collect()
    });
    let t0 = start.get().copied().flatten().ok_or("internal error: no start")?;
    point(t0, results)
}

/// A point from every caller's (or driver's) latencies and when its last call ended,
/// measured from `t0`.
fn point(t0: Instant, results: Vec<Result<in_flight::Calls, String>>) -> Result<Point, String> {
    let (mut all, mut last) = (Vec::new(), t0);
    for r in results {
        let (lat, end) = r?;
        all.extend(lat);
        last = last.max(end);
    }
    if all.is_empty() {
        return Err("no call completed".into());
    }
    all.sort_by(f64::total_cmp);
    let q = |p: f64| all[((all.len() - 1) as f64 * p).round() as usize];
    let elapsed = (last - t0).as_secs_f64();
    Ok(Point { ops_per_s: all.len() as f64 / elapsed, p50_us: q(0.50), p99_us: q(0.99) })
}

/// Runs the sweep: the references, then each concurrency level (measured, then reported),
/// then the plot.
pub fn run(o: &Options, peers: &PeerSet) -> CmdResult {
    sweep(o, peers).map_err(|e| Fail::msg(format!("--engine: {e}")))
}

fn sweep(o: &Options, peers: &PeerSet) -> Result<(), String> {
    if o.gpu && !cryptocard::rsa::Backend::Gpu.is_available() {
        return Err(cryptocard::rsa::gpu_status());
    }
    let job = Job::new(o.bits)?;
    let workers = EngineConfig::default().workers;
    let whos: Vec<Who> = std::iter::once(Who::Ours)
        .chain(peers.infos().into_iter().filter(|p| p.id == "openssl").map(Who::Peer))
        .collect();
    let mut report = Reporter::new(o, &whos);
    let refs = references(&job, workers, o.seconds)?;
    report.references(&refs);
    let engine = match o.gpu {
        false => Engine::new(),
        true => {
            let (crossover, batch) = gpu_route(o.bits, refs.batched.ops_per_s, &mut report)?;
            let unit = Offload::gpu(crossover, batch).map_err(|e| e.to_string())?;
            Engine::builder().offload(unit).build()
        }
    }
    .map_err(|e| e.to_string())?;
    report.header();
    let mut series: Vec<Series> =
        whos.iter().map(|w| Series { label: label(w), points: vec![] }).collect();
    series[0].label.push_str(" engine");
    let mut offload_lines = Vec::new();
    for &c in &o.levels {
        let before = engine.stats();
        let points = level(&job, &engine, peers, c, o.seconds)?;
        report.level(c, &points);
        let s = engine.stats().since(&before);
        if o.gpu && s.offload_batches > 0 {
            offload_lines.push(format!(
                "offload at {c} callers: {} of {} requests in {} batches (mean {}), the GPU's \
                 batches {:.2} s end to end together, the longest so far {:.1} ms",
                s.offloaded,
                s.answered,
                s.offload_batches,
                s.offloaded / s.offload_batches,
                s.offload_micros as f64 / 1e6,
                s.offload_longest_micros as f64 / 1e3,
            ));
        }
        for (s, p) in series.iter_mut().zip(points) {
            s.points.push((c, p.ops_per_s, p.p50_us, p.p99_us));
        }
    }
    report.summary(&series[0], &refs);
    if o.gpu {
        let s = engine.stats();
        report.emit(format!(
            "offloaded to the GPU: {} of {} requests, in {} batches",
            s.offloaded, s.answered, s.offload_batches
        ));
        offload_lines.into_iter().for_each(|l| report.emit(l));
    }
    engine.shutdown();
    let title = format!(
        "{} sign under concurrency: cryptocard engine ({workers} workers{}){}",
        report.alg,
        if o.gpu { ", the GPU as its offload unit" } else { "" },
        if whos.len() > 1 { " and OpenSSL" } else { "" }
    );
    plot::write(&o.plot, &title, "concurrent callers", &series)
}

/// The offload's crossover and batch size, measured: the GPU's end-to-end rate at each of
/// [`GPU_CANDIDATES`]; the crossover is the smallest batch at which it beats `cpu`
/// (the batched reference on every core), the batch the fastest size.
fn gpu_route(bits: u32, cpu: f64, report: &mut Reporter<'_>) -> Result<(usize, usize), String> {
    let job = super::gpu::Job::new(bits)?;
    let mut rates = Vec::new();
    for &b in GPU_CANDIDATES {
        rates.push((b, job.measure(b, 0.3)?.ops_per_s));
    }
    let batch = rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map_or(65536, |r| r.0);
    let Some(&(crossover, rate)) = rates.iter().find(|r| r.1 > cpu) else {
        return Err(format!(
            "the GPU beat the CPU's {} signatures/s at none of the batch sizes {GPU_CANDIDATES:?}",
            format_rate(cpu)
        ));
    };
    let line = match report.format {
        Format::Json => json!({"offload": "gpu", "crossover": crossover, "batch": batch,
            "gpu_ops_per_s": rates.iter().map(|r| json!({"batch": r.0, "ops_per_s": r.1})).collect::<Vec<_>>(),
            "cpu_ops_per_s": cpu})
        .to_string(),
        _ => format!(
            "offload  the GPU takes a queue of {crossover} or more in batches of up to {batch} \
             (measured: {} signatures/s at {crossover} against the CPU's {}; {}): {}",
            format_rate(rate),
            format_rate(cpu),
            rates.iter().map(|r| format!("{} at {}", format_rate(r.1), r.0)).collect::<Vec<_>>().join(", "),
            cryptocard::rsa::gpu_status()
        ),
    };
    report.emit(line);
    Ok((crossover, batch.max(crossover)))
}

/// The signature every caller makes, and the check of its result.
struct Job {
    key: Arc<RsaPrivateKey>,
    /// The key's PKCS#8 DER, for the peers.
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    private_der: &'static [u8],
    digest: Vec<u8>,
    request: PrivateRequest,
    expected: Vec<u8>,
}

impl Job {
    fn new(bits: u32) -> Result<Job, String> {
        let (private_der, _) = speed_key(bits).ok_or_else(|| format!("no rsa{bits} speed key"))?;
        let key = Arc::new(RsaPrivateKey::from_pkcs8_der(private_der).map_err(|e| e.to_string())?);
        let msg = format!("speed --engine rsa{bits}").into_bytes();
        let digest = HashAlg::Sha256.digest(&msg).as_ref().to_vec();
        let request =
            PrivateRequest::SignPkcs1v15Prehashed { hash: HashAlg::Sha256, digest: digest.clone() };
        let expected = key
            .sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng)
            .map_err(|e| e.to_string())?;
        Ok(Job { key, private_der, digest, request, expected })
    }

    /// Whether a signature is the single operation's.
    fn check(&self, sig: &[u8]) -> Result<(), String> {
        match sig == self.expected {
            true => Ok(()),
            false => Err("a signature differs from the single-operation one".to_string()),
        }
    }
}

/// Our references: the single operation on one thread, and 8-request batches on one
/// thread per worker (counted per operation; a batch call's latency is the batch's).
struct References {
    single: Point,
    batched: Point,
    workers: usize,
}

fn references(job: &Job, workers: usize, secs: f64) -> Result<References, String> {
    let single = measure(1, secs, || {
        Ok(|| {
            let sig = job.key.sign_pkcs1v15_prehashed(HashAlg::Sha256, &job.digest, &mut OsRng);
            job.check(&sig.map_err(|e| e.to_string())?)
        })
    })?;
    let batched = measure(workers, secs, || {
        let reqs = vec![job.request.clone(); 8];
        Ok(move || {
            let batch: Vec<_> = reqs.iter().map(|r| (&*job.key, r)).collect();
            for r in private_batch(&batch, &mut OsRng) {
                job.check(&r.map_err(|e| e.to_string())?)?;
            }
            Ok(())
        })
    })?;
    let batched = Point { ops_per_s: batched.ops_per_s * 8.0, ..batched };
    Ok(References { single, batched, workers })
}

/// One concurrency level: ours through the engine, then each selected OpenSSL.
fn level(
    job: &Job,
    engine: &Engine,
    peers: &PeerSet,
    callers: usize,
    secs: f64,
) -> Result<Vec<Point>, String> {
    let mut points = Vec::new();
    if callers >= IN_FLIGHT_FROM {
        let (t0, calls) = in_flight::measure(
            callers,
            engine.config().workers,
            Duration::from_secs_f64(secs),
            || engine.submit(job.key.clone(), job.request.clone()),
            |answer| job.check(&answer.map_err(|e| e.to_string())?),
        );
        points.push(point(t0, calls)?);
    } else {
        points.push(measure(callers, secs, || {
            let (key, req) = (job.key.clone(), job.request.clone());
            Ok(move || job.check(&engine.run(key.clone(), req.clone()).map_err(|e| e.to_string())?))
        })?);
    }
    // OpenSSL's callers are threads, each with its own context: past a thousand of them
    // the level measures the scheduler, and ours alone are measured.
    #[cfg(feature = "peers")]
    for &lib in peers.openssl.iter().filter(|_| callers <= PEER_CALLERS_MAX) {
        points.push(measure(callers, secs, || {
            let mut ctx = lib
                .rsa_private_key_der(job.private_der)
                .and_then(|k| k.prepare(RsaOp::Sign, RsaPadding::Pkcs1 { digest: Some("sha256") }))
                .map_err(|e| e.to_string())?;
            let mut sig = vec![0u8; ctx.output_len()];
            Ok(move || {
                let n = ctx.run_into(&job.digest, &mut sig).map_err(|e| e.to_string())?;
                job.check(&sig[..n])
            })
        })?);
    }
    Ok(points)
}

/// The sweep's output in the chosen format, line by line to stdout as it is measured.
struct Reporter<'a> {
    format: Format,
    alg: String,
    seconds: f64,
    whos: &'a [Who],
    out: std::io::StdoutLock<'static>,
}

impl<'a> Reporter<'a> {
    fn new(o: &Options, whos: &'a [Who]) -> Reporter<'a> {
        let (format, alg, seconds) = (o.format, format!("rsa{}", o.bits), o.seconds);
        Reporter { format, alg, seconds, whos, out: std::io::stdout().lock() }
    }

    fn emit(&mut self, line: String) {
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn references(&mut self, r: &References) {
        let (alg, workers) = (self.alg.clone(), r.workers);
        match self.format {
            Format::Table => {
                self.emit(format!(
                    "{alg} sign (PKCS#1 v1.5, SHA-256): {} s per point; cryptocard through the engine ({workers} workers; a thread a caller in Engine::run, from {IN_FLIGHT_FROM} callers requests in flight on {workers} driver threads), OpenSSL called from each thread",
                    self.seconds
                ));
                self.emit(format!(
                    "reference  cryptocard single operation, 1 thread: {} ops/s, p50 {} µs",
                    format_rate(r.single.ops_per_s),
                    format_rate(r.single.p50_us)
                ));
                self.emit(format!(
                    "reference  cryptocard private_batch of 8 on {workers} threads: {} ops/s",
                    format_rate(r.batched.ops_per_s)
                ));
            }
            Format::Json => {
                for (mode, p, threads) in [("single", r.single, 1), ("batched", r.batched, workers)]
                {
                    let mut v = json!({"alg": alg, "op": "sign", "mode": mode, "multi": threads,
                        "ops_per_s": p.ops_per_s, "p50_us": p.p50_us, "p99_us": p.p99_us});
                    if let Value::Object(m) = &mut v {
                        identify(m, &Who::Ours);
                    }
                    self.emit(v.to_string());
                }
            }
            Format::MachineReadable => {}
        }
    }

    fn header(&mut self) {
        if self.format != Format::Table {
            return;
        }
        let labels: Vec<String> = self.whos.iter().map(label).collect();
        let mut head = format!("{:>11}", "callers");
        for (i, l) in labels.iter().enumerate() {
            let l = if i == 0 { format!("{l} engine") } else { l.clone() };
            head.push_str(&format!("  {l:>34}"));
        }
        self.emit(head);
        let mut sub = format!("{:>11}", "");
        for _ in self.whos {
            sub.push_str(&format!("  {:>12} {:>10} {:>10}", "ops/s", "p50 µs", "p99 µs"));
        }
        self.emit(sub);
    }

    fn level(&mut self, c: usize, points: &[Point]) {
        let alg = self.alg.clone();
        match self.format {
            Format::Table => {
                let mut line = format!("{c:>11}");
                for p in points {
                    line.push_str(&format!(
                        "  {:>12} {:>10} {:>10}",
                        format_rate(p.ops_per_s),
                        format_rate(p.p50_us),
                        format_rate(p.p99_us)
                    ));
                }
                self.emit(line);
            }
            Format::Json => {
                for (who, p) in self.whos.iter().zip(points) {
                    let mut v = json!({"alg": alg, "op": "sign", "mode": "engine", "concurrency": c,
                        "ops_per_s": p.ops_per_s, "p50_us": p.p50_us, "p99_us": p.p99_us});
                    if let Value::Object(m) = &mut v {
                        identify(m, who);
                    }
                    let line = v.to_string();
                    self.emit(line);
                }
            }
            Format::MachineReadable => {
                for (who, p) in self.whos.iter().zip(points) {
                    let (name, version, origin) = identity(who);
                    let line = format!(
                        "+E:{alg}:{name}:{version}:{origin}:{c}:{:.3}:{:.1}:{:.1}",
                        p.ops_per_s, p.p50_us, p.p99_us
                    );
                    self.emit(line);
                }
            }
        }
    }

    /// The engine against the references: latency at the fewest callers, throughput at
    /// the most.
    fn summary(&mut self, ours: &Series, r: &References) {
        if self.format != Format::Table {
            return;
        }
        if let (Some(first), Some(last)) = (ours.points.first(), ours.points.last()) {
            self.emit(format!(
                "engine at {} caller(s): p50 latency {:.2}x the single operation's; at {} callers: throughput {:.2}x the batched reference",
                first.0,
                first.2 / r.single.p50_us,
                last.0,
                last.1 / r.batched.ops_per_s
            ));
        }
    }
}
