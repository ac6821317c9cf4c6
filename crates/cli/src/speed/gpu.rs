//! `cryptocard speed [rsaN ...] -backend gpu`: the GPU backend (issue 19) by batch size,
//! beside this machine's CPU on all its cores, in one run.
//!
//! For each `rsaN` (default RSA-2048, 3072 and 4096) and each batch size (`-batches`,
//! default 1,024, 8,192, 65,536 and 262,144): batches of PKCS#1 v1.5 SHA-256 signature
//! requests through [`private_batch`] with the speed key on [`Backend::Gpu`], end to
//! end: the messages in (64 distinct ones, cycled), hashing, padding, blinding pairs,
//! the device's whole private operation with its fault check, the signatures out. Every
//! signature is compared with the one the CPU made for its message. Each batch is timed
//! on its own (p50 and p99 of a batch); the rate is every operation over the time of
//! every batch. The kernel-only rate is the device's own count of seconds in the kernel
//! over the same batches ([`cryptocard::rsa::gpu_counters`]). The first batch of each
//! size is not counted: it compiles the module of that prime length (NVRTC) and uploads
//! the key. A size is measured for `-seconds` and at least two batches.
//!
//! Beside them, the same run measures the CPU on every core with the harness of every
//! `speed` row: cryptocard's best CPU path (batches of 8, the default backend: IFMA
//! where the CPU has it) and, with `--compare openssl`, OpenSSL's single signatures
//! (`-multi` = the core count). The crossover is the smallest batch from which the GPU
//! signs faster end to end than cryptocard on all the cores. The table or JSON lines go
//! to stdout, the plot of operations per second against the batch size (GPU and CPU) to
//! `-plot FILE` (`speed-gpu.svg`), written whole or not at all.
//!
//! Without a usable GPU the mode stops at once with the reason (no driver, no device, no
//! NVRTC), exit status 1.

use super::algs::rsa::{rows as rsa_rows, speed_key};
use super::measure::{Settings, measure_row};
use super::peers::PeerSet;
use super::plot::{self, Series};
use super::report::{Format, cpu_model, format_rate, identify, label};
use super::row::{Context, Who};
use crate::fail::{CmdResult, Fail};
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, PrivateRequest, RsaPrivateKey, gpu_counters, private_batch};
use serde_json::{Value, json};
use std::io::Write;
use std::time::Instant;

/// Batch sizes unless `-batches` says otherwise.
pub const DEFAULT_BATCHES: &[usize] = &[1024, 8192, 65536, 262144];
/// The largest batch `-batches` takes (about 1.6 GB of planes for RSA-4096).
pub const MAX_BATCH: usize = 1 << 20;
/// Keys unless named.
pub const DEFAULT_BITS: &[u32] = &[2048, 3072, 4096];
/// Where the plot goes unless `-plot` says otherwise.
pub const DEFAULT_PLOT: &str = "speed-gpu.svg";
/// Distinct messages a batch cycles through (each signature is checked against its own).
const MESSAGES: usize = 64;
/// Requests per call of our CPU candidate.
const CPU_BATCH: usize = 8;

/// What `-backend gpu` was asked for.
#[derive(Debug)]
pub struct Options {
    pub bits: Vec<u32>,
    pub batches: Vec<usize>,
    pub seconds: f64,
    pub plot: String,
    pub format: Format,
}

/// The options from `rsaN` names, `-batches`, `-seconds`, `-plot`.
pub fn options(
    algs: &[String],
    batches: Option<&str>,
    seconds: f64,
    plot: Option<&str>,
    format: Format,
) -> Result<Options, String> {
    let bits = if algs.is_empty() {
        DEFAULT_BITS.to_vec()
    } else {
        algs.iter()
            .map(|a| {
                a.strip_prefix("rsa")
                    .and_then(|b| b.parse::<u32>().ok())
                    .filter(|&b| speed_key(b).is_some())
                    .ok_or_else(|| format!("'{a}' is not one of the rsaN algorithms"))
            })
            .collect::<Result<_, _>>()?
    };
    let batches = match batches {
        None => DEFAULT_BATCHES.to_vec(),
        Some(list) => list
            .split(',')
            .map(|w| match w.trim().parse::<usize>() {
                Ok(n) if (1..=MAX_BATCH).contains(&n) => Ok(n),
                _ => Err(format!("-batches: '{w}' is not a number from 1 to {MAX_BATCH}")),
            })
            .collect::<Result<_, _>>()?,
    };
    let plot = plot.unwrap_or(DEFAULT_PLOT).to_string();
    Ok(Options { bits, batches, seconds, plot, format })
}

/// One batch size's figures.
#[derive(Debug, Clone, Copy)]
pub(super) struct Point {
    batch: usize,
    pub(super) ops_per_s: f64,
    kernel_ops_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// Runs the mode.
pub fn run(o: &Options, peers: &PeerSet) -> CmdResult {
    sweep(o, peers).map_err(|e| Fail::msg(format!("-backend gpu: {e}")))
}

fn sweep(o: &Options, peers: &PeerSet) -> Result<(), String> {
    let device = Backend::Gpu.is_available().then(cryptocard::rsa::gpu_status);
    let device = device.ok_or_else(cryptocard::rsa::gpu_status)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = std::io::stdout().lock();
    let table = o.format == Format::Table;
    if table {
        let _ = writeln!(out, "GPU: {device}");
        let _ = writeln!(out, "CPU: {} ({cores} cores)", cpu_model());
        let _ = writeln!(
            out,
            "{:<9} {:<40} {:>8} {:>12} {:>13} {:>9} {:>9}",
            "alg", "implementation", "batch", "ops/s", "kernel ops/s", "p50 ms", "p99 ms"
        );
    }
    let mut series = Vec::new();
    for &bits in &o.bits {
        let alg = format!("rsa{bits}");
        let job = Job::new(bits)?;
        let mut points = Vec::new();
        for &batch in &o.batches {
            let p = job.measure(batch, o.seconds)?;
            emit(&mut out, o.format, &alg, "cryptocard gpu", &device, &p);
            points.push(p);
        }
        series.push(Series {
            label: format!("{alg} GPU"),
            points: points
                .iter()
                .map(|p| (p.batch, p.ops_per_s, p.p50_ms * 1e3, p.p99_ms * 1e3))
                .collect(),
        });
        let cpu = cpu_rates(&alg, bits, cores, o.seconds, peers)?;
        for (who, rate) in &cpu {
            let name = format!("{} cpu, {cores} threads", label(who));
            let p = Point {
                batch: 0,
                ops_per_s: *rate,
                kernel_ops_per_s: 0.0,
                p50_ms: 0.0,
                p99_ms: 0.0,
            };
            emit(&mut out, o.format, &alg, &name, &device, &p);
            series.push(Series {
                label: format!("{alg} {} ({cores} cores)", label(who)),
                points: o.batches.iter().map(|&b| (b, *rate, 0.0, 0.0)).collect(),
            });
        }
        if let Some((_, ours)) = cpu.iter().find(|(w, _)| *w == Who::Ours) {
            let cross = points.iter().find(|p| p.ops_per_s > *ours);
            let line = match (o.format, cross) {
                (Format::Json, _) => {
                    json!({"alg": alg, "crossover_batch": cross.map(|p| p.batch), "cpu_threads": cores})
                        .to_string()
                }
                (_, Some(p)) => format!(
                    "{alg}: the GPU signs faster than cryptocard on all {cores} cores from a \
                     batch of {} ({:.2}x; p50 {:.2} ms, p99 {:.2} ms a batch)",
                    p.batch,
                    p.ops_per_s / ours,
                    p.p50_ms,
                    p.p99_ms
                ),
                (_, None) => format!(
                    "{alg}: the GPU did not beat cryptocard on all {cores} cores at these batch sizes"
                ),
            };
            let _ = writeln!(out, "{line}");
        }
    }
    drop(out);
    let title = "RSA signatures per second against the batch size: the GPU and the CPU";
    plot::write(&o.plot, title, "requests per batch", &series)
}

/// One table line or JSON object.
fn emit(out: &mut impl Write, format: Format, alg: &str, name: &str, device: &str, p: &Point) {
    let ms = |x: f64| if x > 0.0 { format!("{x:.2}") } else { "-".into() };
    let line = match format {
        Format::Json => {
            let mut m = serde_json::Map::new();
            identify(&mut m, &Who::Ours);
            m.insert("alg".into(), json!(alg));
            m.insert("op".into(), json!("sign"));
            m.insert("implementation".into(), json!(name));
            m.insert("ops_per_s".into(), json!(p.ops_per_s));
            if p.batch > 0 {
                m.insert("backend".into(), json!("gpu"));
                m.insert("device".into(), json!(device));
                m.insert("batch".into(), json!(p.batch));
                m.insert("kernel_ops_per_s".into(), json!(p.kernel_ops_per_s));
                m.insert("p50_ms".into(), json!(p.p50_ms));
                m.insert("p99_ms".into(), json!(p.p99_ms));
            }
            Value::Object(m).to_string()
        }
        _ => format!(
            "{alg:<9} {name:<40} {:>8} {:>12} {:>13} {:>9} {:>9}",
            if p.batch > 0 { p.batch.to_string() } else { "-".into() },
            format_rate(p.ops_per_s),
            if p.batch > 0 { format_rate(p.kernel_ops_per_s) } else { "-".into() },
            ms(p.p50_ms),
            ms(p.p99_ms)
        ),
    };
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The key on the GPU and the messages with the signatures they must get (also
/// `--engine -backend gpu`'s measurement of the offload's crossover).
pub(super) struct Job {
    key: RsaPrivateKey,
    messages: Vec<Vec<u8>>,
    expected: Vec<Vec<u8>>,
}

impl Job {
    pub(super) fn new(bits: u32) -> Result<Job, String> {
        let err = |e: cryptocard::Error| format!("rsa{bits}: {e}");
        let (private, _) = speed_key(bits).ok_or("internal error: no key")?;
        let cpu = RsaPrivateKey::from_pkcs8_der(private).map_err(err)?;
        let messages: Vec<Vec<u8>> =
            (0..MESSAGES).map(|i| format!("rsa{bits} GPU message {i}").into_bytes()).collect();
        let expected = messages
            .iter()
            .map(|m| cpu.sign_pkcs1v15(HashAlg::Sha256, m, &mut OsRng))
            .collect::<cryptocard::Result<Vec<_>>>()
            .map_err(err)?;
        let key = cpu.with_backend(Backend::Gpu).map_err(err)?;
        Ok(Job { key, messages, expected })
    }

    /// One batch of `n`: its seconds; every signature checked.
    fn batch(&self, requests: &[PrivateRequest]) -> Result<f64, String> {
        let calls: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            requests.iter().map(|r| (&self.key, r)).collect();
        let t = Instant::now();
        let results = private_batch(&calls, &mut OsRng);
        let secs = t.elapsed().as_secs_f64();
        if results.len() != requests.len() {
            return Err("internal error: private_batch lost requests".into());
        }
        for (i, r) in results.into_iter().enumerate() {
            let sig = r.map_err(|e| format!("request {i}: {e}"))?;
            if sig != self.expected[i % MESSAGES] {
                return Err(format!(
                    "request {i}: the GPU's signature differs from the CPU's ({})",
                    cryptocard::rsa::gpu_status()
                ));
            }
        }
        Ok(secs)
    }

    /// Batches of `n` for `seconds` (at least two after the warm-up).
    pub(super) fn measure(&self, n: usize, seconds: f64) -> Result<Point, String> {
        let requests: Vec<PrivateRequest> = (0..n)
            .map(|i| PrivateRequest::SignPkcs1v15 {
                hash: HashAlg::Sha256,
                msg: self.messages[i % MESSAGES].clone(),
            })
            .collect();
        self.batch(&requests)?; // warm-up: the module of this size, the key's upload
        let before = gpu_counters();
        let mut times = Vec::new();
        while times.len() < 2 || times.iter().sum::<f64>() < seconds {
            times.push(self.batch(&requests)?);
        }
        let after = gpu_counters();
        let total: f64 = times.iter().sum();
        times.sort_by(f64::total_cmp);
        let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize] * 1e3;
        let kernel_ops = (after.operations - before.operations) as f64;
        let kernel_secs = after.kernel_seconds - before.kernel_seconds;
        Ok(Point {
            batch: n,
            ops_per_s: (n * times.len()) as f64 / total,
            kernel_ops_per_s: if kernel_secs > 0.0 { kernel_ops / kernel_secs } else { 0.0 },
            p50_ms: q(0.5),
            p99_ms: q(0.99),
        })
    }
}

/// The CPU on `cores` threads, the `rsaN` sign row's candidates: ours batched by
/// [`CPU_BATCH`] on the default backend, and the selected peers.
fn cpu_rates(
    alg: &str,
    bits: u32,
    cores: usize,
    seconds: f64,
    peers: &PeerSet,
) -> Result<Vec<(Who, f64)>, String> {
    let ctx = Context { peers, bytes: 0, batch: Some(CPU_BATCH) };
    let rows = rsa_rows(alg, bits, &ctx)?;
    let row = rows.into_iter().find(|r| r.op == "sign").ok_or("internal error: no sign row")?;
    let result = measure_row(&row, &Settings::new(seconds, cores), &mut |_| {});
    row.candidates
        .iter()
        .zip(result.cells)
        .map(|(c, cell)| {
            let totals = cell.map_err(|e| format!("{alg} on the CPU, {}: {e}", label(&c.who)))?;
            Ok((c.who.clone(), totals.rate()))
        })
        .collect()
}
