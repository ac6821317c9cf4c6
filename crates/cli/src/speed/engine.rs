//! `cryptocard speed --engine`: RSA signing under concurrency, through
//! [`cryptocard::engine::Engine`], against OpenSSL called directly from the same number of
//! threads.
//!
//! For each concurrency c (1, 2, 4, ..., 64 by default) c caller threads sign in a loop
//! for `-seconds`, each request a PKCS#1 v1.5 SHA-256 signature with the `rsaN` speed key,
//! and every call is timed on its own: throughput is all calls over the elapsed time, and
//! p50/p99 are over every call's latency. Ours: one shared engine (one worker per core,
//! its defaults) and [`Engine::run`], the blocking interface a server thread would use.
//! OpenSSL: each caller thread signs with its own prepared `EVP_PKEY_CTX`, which is how a
//! threaded OpenSSL server uses it (OpenSSL has no batching).
//!
//! Two references of ours come first, for the engine's targets: the plain single
//! operation on one thread (the engine at concurrency 1 should be within 1.1x of its
//! latency) and [`private_batch`] of 8 requests on one thread per core (the engine at
//! concurrency 64 should be within 10% of its throughput). The table and JSON lines go to
//! stdout; the plot (SVG) to `-plot FILE`, `speed-engine.svg` by default, written whole or
//! not at all.

use super::algs::rsa::speed_key;
use super::peers::PeerSet;
use super::plot::{self, Series};
use super::registry::Who;
use super::report::{Format, format_rate, identify, identity, label};
use crate::io::{Mode, Output};
#[cfg(feature = "peers")]
use compare::openssl::{RsaOp, RsaPadding};
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, private_batch};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Concurrency levels unless `-concurrency` says otherwise.
pub const DEFAULT_LEVELS: &[usize] = &[1, 2, 4, 8, 16, 32, 64];
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
    let barrier = Barrier::new(threads + 1);
    let start = std::sync::OnceLock::<Instant>::new();
    let run = Duration::from_secs_f64(secs);
    let results: Vec<Result<(Vec<f64>, Instant), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let op = make();
                    barrier.wait();
                    let mut op = op?;
                    let start = *start.wait();
                    let (mut lat, mut end) = (Vec::new(), start);
                    while end.duration_since(start) < run {
                        let t = Instant::now();
                        op()?;
                        end = Instant::now();
                        lat.push((end - t).as_secs_f64() * 1e6);
                    }
                    Ok((lat, end))
                })
            })
            .collect();
        let _ = start.set(Instant::now());
        barrier.wait();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a caller panicked".into())))
            .collect()
    });
    let t0 = *start.get().ok_or("internal error: no start")?;
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

/// Runs the sweep; returns the exit status.
pub fn run(o: &Options, peers: &PeerSet) -> i32 {
    match sweep(o, peers) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cryptocard speed: --engine: {e}");
            1
        }
    }
}

fn sweep(o: &Options, peers: &PeerSet) -> Result<(), String> {
    let (private_der, _) =
        speed_key(o.bits).ok_or_else(|| format!("no rsa{} speed key", o.bits))?;
    let key = Arc::new(RsaPrivateKey::from_pkcs8_der(private_der).map_err(|e| e.to_string())?);
    let msg = format!("speed --engine rsa{}", o.bits).into_bytes();
    let digest = HashAlg::Sha256.digest(&msg).as_ref().to_vec();
    let request =
        PrivateRequest::SignPkcs1v15Prehashed { hash: HashAlg::Sha256, digest: digest.clone() };
    let expected = key
        .sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng)
        .map_err(|e| e.to_string())?;
    let check = |sig: &[u8]| {
        if sig == expected {
            Ok(())
        } else {
            Err("a signature differs from the single-operation one".to_string())
        }
    };
    let engine = Engine::new().map_err(|e| e.to_string())?;
    let workers = engine.config().workers;
    let alg = format!("rsa{}", o.bits);
    let mut out = std::io::stdout().lock();
    let mut emit = |line: String| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };

    // References: the single operation, and 8-request batches on one thread per worker.
    let single = measure(1, o.seconds, || {
        let (key, digest) = (key.clone(), digest.clone());
        Ok(move || {
            check(
                &key.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng)
                    .map_err(|e| e.to_string())?,
            )
        })
    })?;
    let batched = measure(workers, o.seconds, || {
        let (key, reqs) = (key.clone(), vec![request.clone(); 8]);
        Ok(move || {
            let batch: Vec<_> = reqs.iter().map(|r| (&*key, r)).collect();
            for r in private_batch(&batch, &mut OsRng) {
                check(&r.map_err(|e| e.to_string())?)?;
            }
            Ok(())
        })
    })?;
    // Latency of a batch call is the batch's; per operation, the throughput is what counts.
    let batched = Point { ops_per_s: batched.ops_per_s * 8.0, ..batched };
    if o.format == Format::Table {
        emit(format!(
            "{alg} sign (PKCS#1 v1.5, SHA-256): {} s per point; cryptocard through Engine::run ({workers} workers), OpenSSL called from each thread",
            o.seconds
        ));
        emit(format!(
            "reference  cryptocard single operation, 1 thread: {} ops/s, p50 {} µs",
            format_rate(single.ops_per_s),
            format_rate(single.p50_us)
        ));
        emit(format!(
            "reference  cryptocard private_batch of 8 on {workers} threads: {} ops/s",
            format_rate(batched.ops_per_s)
        ));
    } else if o.format == Format::Json {
        for (mode, p, threads) in [("single", single, 1), ("batched", batched, workers)] {
            let mut v = json!({"alg": alg, "op": "sign", "mode": mode, "multi": threads,
                "ops_per_s": p.ops_per_s, "p50_us": p.p50_us, "p99_us": p.p99_us});
            if let Value::Object(m) = &mut v {
                identify(m, &Who::Ours);
            }
            emit(v.to_string());
        }
    }

    let whos: Vec<Who> = std::iter::once(Who::Ours)
        .chain(peers.infos().into_iter().filter(|p| p.id == "openssl").map(Who::Peer))
        .collect();
    let mut series: Vec<Series> =
        whos.iter().map(|w| Series { label: label(w), points: vec![] }).collect();
    series[0].label.push_str(" engine");
    if o.format == Format::Table {
        let mut head = format!("{:>11}", "callers");
        for s in &series {
            head.push_str(&format!("  {:>34}", s.label));
        }
        emit(head);
        let mut sub = format!("{:>11}", "");
        for _ in &series {
            sub.push_str(&format!("  {:>12} {:>10} {:>10}", "ops/s", "p50 µs", "p99 µs"));
        }
        emit(sub);
    }
    for &c in &o.levels {
        let mut points = Vec::new();
        let p = measure(c, o.seconds, || {
            let (engine, key, req) = (&engine, key.clone(), request.clone());
            Ok(move || check(&engine.run(key.clone(), req.clone()).map_err(|e| e.to_string())?))
        })?;
        points.push(p);
        #[cfg(feature = "peers")]
        for &lib in &peers.openssl {
            let p = measure(c, o.seconds, || {
                let ctx = lib
                    .rsa_private_key_der(private_der)
                    .and_then(|k| {
                        k.prepare(RsaOp::Sign, RsaPadding::Pkcs1 { digest: Some("sha256") })
                    })
                    .map_err(|e| e.to_string())?;
                let mut ctx = ctx;
                let mut sig = vec![0u8; ctx.output_len()];
                let digest = digest.clone();
                Ok(move || {
                    let n = ctx.run_into(&digest, &mut sig).map_err(|e| e.to_string())?;
                    check(&sig[..n])
                })
            })?;
            points.push(p);
        }
        match o.format {
            Format::Table => {
                let mut line = format!("{c:>11}");
                for p in &points {
                    line.push_str(&format!(
                        "  {:>12} {:>10} {:>10}",
                        format_rate(p.ops_per_s),
                        format_rate(p.p50_us),
                        format_rate(p.p99_us)
                    ));
                }
                emit(line);
            }
            Format::Json => {
                for (who, p) in whos.iter().zip(&points) {
                    let mut v = json!({"alg": alg, "op": "sign", "mode": "engine", "concurrency": c,
                        "ops_per_s": p.ops_per_s, "p50_us": p.p50_us, "p99_us": p.p99_us});
                    if let Value::Object(m) = &mut v {
                        identify(m, who);
                    }
                    emit(v.to_string());
                }
            }
            Format::MachineReadable => {
                for (who, p) in whos.iter().zip(&points) {
                    let (name, version, origin) = identity(who);
                    emit(format!(
                        "+E:{alg}:{name}:{version}:{origin}:{c}:{:.3}:{:.1}:{:.1}",
                        p.ops_per_s, p.p50_us, p.p99_us
                    ));
                }
            }
        }
        for (s, p) in series.iter_mut().zip(points) {
            s.points.push((c, p.ops_per_s, p.p50_us, p.p99_us));
        }
    }
    if o.format == Format::Table {
        let ours = &series[0].points;
        if let (Some(first), Some(last)) = (ours.first(), ours.last()) {
            emit(format!(
                "engine at {} caller(s): p50 latency {:.2}x the single operation's; at {} callers: throughput {:.2}x the batched reference",
                first.0,
                first.2 / single.p50_us,
                last.0,
                last.1 / batched.ops_per_s
            ));
        }
    }
    engine.shutdown();
    let title =
        format!("{alg} sign under concurrency: cryptocard engine ({workers} workers) and OpenSSL");
    let mut file = Output::create(Some(&o.plot), Mode::Public).map_err(|f| f.to_string())?;
    file.put(plot::svg(&title, &series).as_bytes()).map_err(|f| f.to_string())?;
    file.commit().map_err(|f| f.to_string())?;
    eprintln!("plot written to {}", o.plot);
    Ok(())
}
