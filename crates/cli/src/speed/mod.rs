//! `cryptocard speed`: cryptocard measured side by side with OpenSSL, GMP, nettle,
//! RustCrypto, aws-lc-rs and ring, in one process.
//!
//! ```text
//! cryptocard speed [ALG ...] [-seconds S] [-bytes N] [-multi N] [-batch N]
//!                  [--compare openssl,gmp,...] [--json] [-mr]
//! cryptocard speed --seeds [-seconds S] [-bytes N]
//! ```
//!
//! Each algorithm expands into rows (one per operation); each row's implementations (ours
//! and the selected peers', over the same prepared inputs) are measured interleaved, in
//! short alternating slices, so that their ratio is robust to clock drift and to whatever
//! else the machine does meanwhile (see [`measure`] for the method and why). Without
//! arguments, a short default set shows the headline ([`registry::DEFAULT_SET`]) against
//! every peer present; with algorithms named, only the peers `--compare` selects run.
//! `-batch N` makes our RSA private-key candidates batched (`rsa::private_batch` with N
//! requests per call, rows with `batch: N`; the peers stay single-operation, and rows
//! without a batched path of ours say so in a note). `-multi N` runs every candidate,
//! peers included, on N threads at once and reports the aggregate rate (`multi: N`);
//! N × `-bytes` is at most 256 MiB ([`MAX_MULTI_BYTES`]).
//! `--seeds` prints the seed papers' headline figures beside ours ([`seeds`]).
//! `keygenN` (e.g. `keygen2048`) times `-keys` RSA key generations per implementation,
//! ours against OpenSSL's, and reports median, mean and spread ([`keygen`]).
//!
//! `-backend scalar|ifma|auto` runs our RSA private operations on that backend;
//! `-backend gpu` measures the GPU backend by batch size beside the CPU on all its
//! cores ([`gpu`]); with `--engine`, the engine runs with the GPU as its offload unit
//! (`cryptocard::engine::Offload`), its crossover and batch measured first, up to
//! thousands of callers.
//!
//! `--engine` sweeps RSA signing through the batching engine over 1..64 concurrent
//! callers beside OpenSSL called from as many threads, with latency quantiles and a plot
//! ([`engine`]). `--tls` measures full TLS handshakes per second, and per server
//! CPU-second, against HTTPS servers on cryptocard and on stock rustls, and `--ocsp`
//! OCSP responses against `cryptocard ocsp` and `openssl ocsp` responders (`tls`).
//!
//! Structure: [`row`] (what a row and its candidates are), [`registry`] (names to rows),
//! [`algs`] (one module per family, ours and the peers' over shared inputs), [`peers`]
//! (the `--compare` selection), [`measure`] (the interleaved harness), [`report`] (table,
//! JSON lines, `-mr`); the modes [`seeds`], [`keygen`] and [`engine`] beside them. The
//! command's flags are a [`Spec`] as every command's; failures are [`Fail`]s.

// A build without the `peers` feature compiles the peers' candidates out of rows that are
// written to hold them (a `mut` list of one, a context whose peer set is empty).
#![cfg_attr(not(feature = "peers"), allow(unused_mut, unused_variables, dead_code))]

pub mod algs;
pub mod engine;
pub mod gpu;
mod in_flight;
pub mod keygen;
pub mod measure;
pub mod peers;
pub mod plot;
pub mod registry;
pub mod report;
pub mod row;
pub mod seeds;
#[cfg(feature = "tls")]
pub mod tls;

use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::spec::Spec;
use measure::Settings;
use peers::PeerSet;
use report::{Format, Report};
use row::{Context, Row, Who};
use std::io::{IsTerminal, Write};

const SPEC: Spec = Spec {
    usage: "speed [ALG ...] [options]\n       \
            cryptocard speed --seeds [-seconds S] [-bytes N]\n       \
            cryptocard speed --engine [rsaN] [-seconds S] [-concurrency LIST] [-plot FILE] \
            [--compare openssl] [--json]\n       \
            cryptocard speed --tls [rsaN ...] [-seconds S] [-concurrency LIST] [-servers LIST] \
            [-server NAME=COMMAND] [-connect HOST:PORT -CAfile FILE] [-tls1_2] [-sigalg NAME] [-pin] \
            [-plot FILE] [--json]\n       \
            cryptocard speed --ocsp [rsaN ...] [-seconds S] [-concurrency LIST] [-servers LIST] \
            [-server NAME=COMMAND] [-pin] [-plot FILE] [--json]\n       \
            cryptocard speed [rsaN ...] -backend gpu [-batches LIST] [-seconds S] [-plot FILE] \
            [--compare openssl] [--json]\n       \
            cryptocard speed --engine [rsaN] -backend gpu [-seconds S] [-concurrency LIST] \
            [-plot FILE] [--json]",
    flags: &[
        Flag::value("seconds", "S").about("Seconds each implementation runs per row (default 1)"),
        Flag::value("bytes", "N").about("Buffer size for ciphers, digests, HMAC (default 8192)"),
        Flag::value("multi", "N").about("Run each row (peers too) on N threads, aggregate rate"),
        Flag::value("batch", "N").about("Our RSA sign/decrypt as batches of N (rows: batch N)"),
        Flag::value("keys", "N").about("Keys per implementation for keygenN (default 20)"),
        Flag::value("backend", "NAME").about(
            "Our RSA private operations on scalar, avx2, ifma or auto; gpu: the GPU by batch size",
        ),
        Flag::value("batches", "LIST")
            .about("-backend gpu: batch sizes (default 1024,8192,65536,262144)"),
        Flag::value("compare", "LIST")
            .about("Peers beside cryptocard (default: all for the default set, else none)"),
        Flag::switch("json").about("One JSON object per implementation and row"),
        Flag::switch("mr").about("Machine-readable +F: lines"),
        Flag::switch("seeds").about("The seed papers' headline rows beside ours"),
        Flag::switch("engine")
            .about("RSA signing through the batching engine at 1..64 callers, beside OpenSSL"),
        Flag::switch("tls").about("Full TLS handshakes/s against HTTPS servers (rustls clients)"),
        Flag::switch("ocsp").about("OCSP responses/s against OCSP responders over HTTP"),
        Flag::value("concurrency", "LIST").about(
            "--engine: caller counts (default 1,2,...,64); --tls, --ocsp: clients (1,8,64,256)",
        ),
        Flag::value("plot", "FILE")
            .about("--engine, --tls, --ocsp: the SVG plot (speed-engine.svg, speed-tls.svg, ...)"),
        Flag::value("servers", "LIST")
            .about("--tls: cryptocard,stock (default); --ocsp: cryptocard,openssl (default)"),
        Flag::value("server", "NAME=CMD")
            .about("--tls, --ocsp: a server to start ({port} {cert} {key} {chain} {index})"),
        Flag::value("connect", "HOST:PORT").about("--tls: a server already running there"),
        Flag::value("CAfile", "FILE").about("--tls: the roots -connect's server chains to (PEM)"),
        Flag::switch("tls1_2").about("--tls: TLS 1.2 (default 1.3)"),
        Flag::switch("tls1_3").about("--tls: TLS 1.3"),
        Flag::value("sigalg", "NAME")
            .about("--tls: the scheme clients offer (rsa_pss_rsae_sha256)"),
        Flag::switch("pin").about("--tls, --ocsp: servers on CPU 0, clients on CPU 1"),
    ],
    notes: "Without algorithms: the headline set rsa2048 des-cbc sha256 md2 against every peer.",
    more: Some(names),
};

/// The algorithm and peer names, for `-help`.
fn names() -> String {
    format!(
        "algorithms: {} modexpN mulN (N a multiple of 64) keygenN\npeers: {}\n",
        registry::NAMES.join(" "),
        peers::NAMES.join(" ")
    )
}

/// Seconds each implementation runs per row unless `-seconds` says otherwise.
const DEFAULT_SECONDS: f64 = 1.0;
/// Buffer size of byte-oriented algorithms unless `-bytes` says otherwise.
const DEFAULT_BYTES: usize = 8192;
/// The most `-multi` × `-bytes`, 256 MiB: every measuring thread holds its own buffers of
/// `-bytes` for each implementation of a row (input, output, the warm-up's result), so
/// the memory is a small multiple of this. `-bytes` alone goes up to 64 MiB.
const MAX_MULTI_BYTES: usize = 256 << 20;

/// Everything the command line says; a new mode (`--engine`) adds its switch here and a
/// branch beside `seeds` in [`main`].
#[derive(Debug)]
struct Options {
    algs: Vec<String>,
    seconds: f64,
    bytes: usize,
    multi: Option<usize>,
    batch: Option<usize>,
    keys: usize,
    compare: String,
    format: Format,
    seeds: bool,
    engine: Option<engine::Options>,
    gpu: Option<gpu::Options>,
    #[cfg(feature = "tls")]
    tls: Option<tls::Options>,
}

fn options(p: &Parsed) -> CmdResult<Options> {
    let seconds = p.parsed::<f64>("seconds")?.unwrap_or(DEFAULT_SECONDS);
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(Fail::msg(format!(
            "-seconds: must be above 0 and at most 3600, not {seconds}"
        )));
    }
    let bytes =
        in_range(p.parsed::<usize>("bytes")?, "bytes", 1, 1 << 26)?.unwrap_or(DEFAULT_BYTES);
    let multi = in_range(p.parsed::<usize>("multi")?, "multi", 1, 1024)?;
    // Each thread holds buffers of -bytes for every implementation of a row.
    let buffers = multi.unwrap_or(1).saturating_mul(bytes);
    if buffers > MAX_MULTI_BYTES {
        return Err(Fail::msg(format!(
            "-multi {} with -bytes {bytes}: {} MiB of buffers, more than the {} MiB allowed \
             (each thread has its own -bytes buffers); lower -multi or -bytes",
            multi.unwrap_or(1),
            buffers >> 20,
            MAX_MULTI_BYTES >> 20
        )));
    }
    let batch = in_range(p.parsed::<usize>("batch")?, "batch", 1, 1024)?;
    let keys =
        in_range(p.parsed::<usize>("keys")?, "keys", 1, 10_000)?.unwrap_or(keygen::DEFAULT_KEYS);
    let format = match (p.has("json"), p.has("mr")) {
        (true, true) => return Err(Fail::msg("--json and -mr exclude each other")),
        (true, false) => Format::Json,
        (false, true) => Format::MachineReadable,
        (false, false) => Format::Table,
    };
    let defaults = p.positional.is_empty();
    let algs = if defaults {
        registry::DEFAULT_SET.iter().map(|s| s.to_string()).collect()
    } else {
        p.positional.iter().map(|a| a.to_ascii_lowercase()).collect()
    };
    let gpu_mode = backend_choice(p)? == Some(cryptocard::rsa::Backend::Gpu);
    let compare = p.value("compare").map(str::to_string).unwrap_or_else(|| {
        if p.has("engine") || gpu_mode {
            "openssl"
        } else if defaults {
            "all"
        } else {
            "none"
        }
        .into()
    });
    let seeds = p.has("seeds");
    if seeds && (!p.positional.is_empty() || p.has("compare") || p.has("multi") || p.has("batch")) {
        return Err(Fail::msg("--seeds takes only -seconds and -bytes"));
    }
    let load_mode = p.has("tls") || p.has("ocsp");
    if p.has("tls") && p.has("ocsp") {
        return Err(Fail::msg("--tls or --ocsp, not both"));
    }
    let tls_only = ["servers", "server", "connect", "CAfile", "tls1_2", "tls1_3", "sigalg", "pin"];
    if !load_mode && tls_only.iter().any(|f| p.has(f)) {
        return Err(Fail::msg(format!("-{} go with --tls (or --ocsp)", tls_only.join(", -"))));
    }
    let gpu = if gpu_mode && !p.has("engine") {
        let others = ["tls", "ocsp", "seeds", "multi", "batch", "keys", "bytes", "mr"];
        if let Some(f) = others.iter().find(|f| p.has(f)) {
            return Err(Fail::msg(format!("-backend gpu goes without -{f}")));
        }
        let algs: Vec<String> = p.positional.iter().map(|a| a.to_ascii_lowercase()).collect();
        let o = gpu::options(&algs, p.value("batches"), seconds, p.value("plot"), format);
        Some(o.map_err(|e| Fail::msg(format!("-backend gpu: {e}")))?)
    } else if p.has("batches") {
        return Err(Fail::msg("-batches goes with -backend gpu"));
    } else {
        None
    };
    let engine = if p.has("engine") {
        Some(engine_options(p, seconds, format)?)
    } else if !load_mode && (p.has("concurrency") || (p.has("plot") && !gpu_mode)) {
        return Err(Fail::msg(
            "-concurrency goes with --engine, --tls or --ocsp, -plot also with -backend gpu",
        ));
    } else {
        None
    };
    #[cfg(feature = "tls")]
    let tls = match load_mode {
        true => Some(tls_options(p, seconds, format)?),
        false => None,
    };
    #[cfg(not(feature = "tls"))]
    if load_mode {
        return Err(Fail::msg(
            "--tls, --ocsp: this cryptocard was built without TLS (cargo feature `tls`)",
        ));
    }
    Ok(Options {
        algs,
        seconds,
        bytes,
        multi,
        batch,
        keys,
        compare,
        format,
        seeds,
        engine,
        gpu,
        #[cfg(feature = "tls")]
        tls,
    })
}

/// `-backend`: the backend of our RSA private operations, checked against this machine.
fn backend_choice(p: &Parsed) -> CmdResult<Option<cryptocard::rsa::Backend>> {
    let Some(name) = p.value("backend") else { return Ok(None) };
    let b = cryptocard::rsa::Backend::parse(name).map_err(|_| {
        Fail::msg(format!("-backend: '{name}' is not scalar, avx2, ifma, gpu or auto"))
    })?;
    Ok(Some(b))
}

/// The `--tls` (or `--ocsp`) options.
#[cfg(feature = "tls")]
fn tls_options(p: &Parsed, seconds: f64, format: Format) -> CmdResult<tls::Options> {
    let mode = if p.has("ocsp") { "--ocsp" } else { "--tls" };
    if p.has("engine") || p.has("seeds") || p.has("multi") || p.has("batch") || p.has("compare") {
        return Err(Fail::msg(format!(
            "{mode} goes without --engine, --seeds, -multi, -batch, --compare"
        )));
    }
    let algs: Vec<String> = p.positional.iter().map(|a| a.to_ascii_lowercase()).collect();
    tls::options(
        &algs,
        seconds,
        p.value("concurrency").map(|l| levels(l, MAX_CONNECTIONS)).transpose()?,
        p.value("servers"),
        &p.values("server"),
        p.value("connect"),
        p.value("CAfile"),
        p.last_of(&["tls1_2", "tls1_3"]) == Some("tls1_2"),
        p.value("sigalg"),
        p.has("pin"),
        p.value("plot"),
        format,
        p.has("ocsp"),
    )
    .map_err(Fail::msg)
}

/// The most connections `--tls` opens at once.
const MAX_CONNECTIONS: usize = 1024;

/// The most callers `--engine` runs at once: from `engine::IN_FLIGHT_FROM` they are
/// requests in flight, not threads, and a GPU's batches fill from thousands.
const MAX_CALLERS: usize = 65536;

/// A `-concurrency` list: numbers from 1 to `max`.
fn levels(list: &str, max: usize) -> CmdResult<Vec<usize>> {
    list.split(',')
        .map(|w| match w.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(Fail::msg(format!("-concurrency: '{w}' is not a number from 1 to {max}"))),
        })
        .collect()
}

/// The `--engine` options: at most one `rsaN`, the concurrency levels, the plot file.
fn engine_options(p: &Parsed, seconds: f64, format: Format) -> CmdResult<engine::Options> {
    if p.has("seeds") || p.has("multi") || p.has("batch") || p.positional.len() > 1 {
        return Err(Fail::msg(
            "--engine takes one rsaN, -seconds, -concurrency, -plot, --compare and --json",
        ));
    }
    let alg = p.positional.first().map_or("rsa2048".to_string(), |a| a.to_ascii_lowercase());
    let bits = alg
        .strip_prefix("rsa")
        .and_then(|b| b.parse::<u32>().ok())
        .filter(|&b| algs::rsa::speed_key(b).is_some())
        .ok_or_else(|| Fail::msg(format!("--engine: '{alg}' is not one of the rsaN algorithms")))?;
    let levels = match p.value("concurrency") {
        None => engine::DEFAULT_LEVELS.to_vec(),
        Some(list) => levels(list, MAX_CALLERS)?,
    };
    let plot = p.value("plot").unwrap_or(engine::DEFAULT_PLOT).to_string();
    let gpu = backend_choice(p)? == Some(cryptocard::rsa::Backend::Gpu);
    let levels = match (p.value("concurrency"), gpu) {
        (None, true) => engine::GPU_LEVELS.to_vec(),
        _ => levels,
    };
    if p.has("batches") {
        return Err(Fail::msg("--engine measures the GPU's batch sizes itself: no -batches"));
    }
    Ok(engine::Options { bits, seconds, levels, plot, format, gpu })
}

fn in_range(v: Option<usize>, name: &str, min: usize, max: usize) -> CmdResult<Option<usize>> {
    match v {
        Some(n) if !(min..=max).contains(&n) => {
            Err(Fail::msg(format!("-{name}: must be from {min} to {max}, not {n}")))
        }
        v => Ok(v),
    }
}

/// Runs `speed` with the arguments after the subcommand.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(p) = SPEC.parse(argv)? else { return Ok(()) };
    let o = options(&p)?;
    let set_backend = |b: cryptocard::rsa::Backend| {
        cryptocard::rsa::set_default_backend(b).map_err(|e| Fail::msg(format!("-backend: {e}")))
    };
    match backend_choice(&p)? {
        Some(cryptocard::rsa::Backend::Gpu) | None => {}
        Some(b) => set_backend(b)?,
    }
    if let Some(g) = &o.gpu {
        let set = PeerSet::select(&o.compare).map_err(Fail::msg)?;
        for note in &set.notes {
            eprintln!("note: {note}");
        }
        return gpu::run(g, &set);
    }
    if o.seeds {
        return seeds::run(o.seconds, o.bytes);
    }
    #[cfg(feature = "tls")]
    if let Some(t) = &o.tls {
        return tls::run(t);
    }
    let set = PeerSet::select(&o.compare).map_err(Fail::msg)?;
    if let Some(e) = &o.engine {
        for note in &set.notes {
            eprintln!("note: {note}");
        }
        return engine::run(e, &set);
    }
    let ctx = Context { peers: &set, bytes: o.bytes, batch: o.batch };
    let mut rows: Vec<Row> = Vec::new();
    let mut keygens: Vec<usize> = Vec::new();
    for alg in &o.algs {
        match keygen::bits_of(alg).transpose()? {
            Some(bits) => keygens.push(bits),
            None => rows.extend(registry::rows(alg, &ctx)?),
        }
    }
    let table = o.format == Format::Table;
    if table {
        for note in set.notes.iter().chain(rows.iter().flat_map(|r| &r.notes)) {
            eprintln!("note: {note}");
        }
        let missing: Vec<&str> = rows
            .iter()
            .filter(|r| !r.candidates.iter().any(|c| c.who == Who::Ours))
            .map(|r| r.alg.as_str())
            .collect();
        if !missing.is_empty() {
            let mut m = missing.clone();
            m.dedup();
            eprintln!("note: no cryptocard implementation yet for {} (peers only)", m.join(" "));
        }
    }
    if rows.is_empty() {
        return keygen::run(&keygens, o.keys, &set, o.format);
    }
    let settings = Settings::new(o.seconds, o.multi.unwrap_or(1));
    let report = Report::new(o.format, o.multi, &rows, &set.infos());
    let mut out = std::io::stdout().lock();
    if let Some(h) = report.header() {
        let _ = writeln!(
            out,
            "{} s per implementation and row, interleaved in {} ms slices, {} thread(s), \
             {}-byte buffers; ratio = cryptocard / peer",
            o.seconds,
            settings.slice.as_millis(),
            settings.threads,
            o.bytes
        );
        let _ = writeln!(out, "{h}");
    }
    let progress = std::io::stderr().is_terminal();
    for (i, row) in rows.iter().enumerate() {
        let label = format!("[{}/{}] {} {}", i + 1, rows.len(), row.alg, row.op);
        let result = measure::measure_row(row, &settings, &mut |f| {
            if progress {
                eprint!("\r\x1b[K{label} {:3.0}%", f * 100.0);
            }
        });
        if progress {
            eprint!("\r\x1b[K");
        }
        for (cand, cell) in row.candidates.iter().zip(&result.cells) {
            if let (Err(e), true) = (cell, table) {
                eprintln!("note: {} {}: {}: {e}", row.alg, row.op, who(&cand.who));
            }
        }
        for &k in &result.mismatches {
            eprintln!(
                "warning: {} {}: {} computed a different result from the other implementations",
                row.alg,
                row.op,
                who(&row.candidates[k].who)
            );
        }
        for line in report.row(row, &result) {
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                return Ok(()); // stdout closed (e.g. piped into `head`): stop quietly
            }
        }
    }
    drop(out);
    keygen::run(&keygens, o.keys, &set, o.format)
}

fn who(w: &Who) -> String {
    match w {
        Who::Ours => "cryptocard".into(),
        Who::Peer(p) => p.to_string(),
    }
}
