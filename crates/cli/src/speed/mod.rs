//! `cryptocard speed`: cryptocard measured side by side with OpenSSL, GMP, nettle and
//! RustCrypto, in one process.
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
//! peers included, on N threads at once and reports the aggregate rate (`multi: N`).
//! `--seeds` prints the seed papers' headline figures beside ours ([`seeds`]).
//! `keygenN` (e.g. `keygen2048`) times `-keys` RSA key generations per implementation,
//! ours against OpenSSL's, and reports median, mean and spread ([`keygen`]).
//!
//! Structure: [`registry`] (names to rows and candidates), [`algs`] (one module per family,
//! ours and the peers' over shared inputs), [`peers`] (the `--compare` selection),
//! [`measure`] (the interleaved harness), [`report`] (table, JSON lines, `-mr`).
//!
//! Where `--engine` goes (not yet: `cryptocard::engine::Engine` is not on main). Two
//! pieces, neither of which touches the harness above:
//! - Throughput: the engine is one more candidate of ours in the RSA private rows, built
//!   in `algs::rsa` next to `ours_batched` (a factory that submits `-batch` requests to a
//!   shared `Engine` and waits for them); rows and reports need nothing new.
//! - The concurrency sweep (1..64 submitters, p50/p99 latency, an SVG plot): a mode of its
//!   own beside `--seeds`, dispatched in [`main`] like it (`if o.engine { return
//!   engine::run(..) }`), in a new `engine.rs` that times each request separately (the
//!   harness's chunked timing gives rates, not latencies) and writes the plot.

// A build without the `peers` feature compiles the peers' candidates out of rows that are
// written to hold them (a `mut` list of one, a context whose peer set is empty).
#![cfg_attr(not(feature = "peers"), allow(unused_mut, unused_variables, dead_code))]

pub mod algs;
pub mod engine;
pub mod keygen;
pub mod measure;
pub mod peers;
pub mod plot;
pub mod registry;
pub mod report;
pub mod seeds;

use crate::args::{self, ArgError, Flag};
use measure::Settings;
use peers::PeerSet;
use registry::{Context, Row};
use report::{Format, Report};
use std::io::{IsTerminal, Write};

const FLAGS: &[Flag] = &[
    Flag::value("seconds", "S"),
    Flag::value("bytes", "N"),
    Flag::value("multi", "N"),
    Flag::value("batch", "N"),
    Flag::value("keys", "N"),
    Flag::value("concurrency", "LIST"),
    Flag::value("plot", "FILE"),
    Flag::switch("engine"),
    Flag::value("compare", "LIST"),
    Flag::switch("json"),
    Flag::switch("mr"),
    Flag::switch("seeds"),
    Flag::switch("help"),
    Flag::switch("h"),
];

/// Seconds each implementation runs per row unless `-seconds` says otherwise.
const DEFAULT_SECONDS: f64 = 1.0;
/// Buffer size of byte-oriented algorithms unless `-bytes` says otherwise.
const DEFAULT_BYTES: usize = 8192;

const USAGE: &str =
    "usage: cryptocard speed [ALG ...] [-seconds S] [-bytes N] [-multi N] [-batch N] [-keys N] \
[--compare openssl,gmp,nettle,rustcrypto|all] [--json] [-mr]
       cryptocard speed --seeds [-seconds S] [-bytes N]
       cryptocard speed --engine [rsaN] [-seconds S] [-concurrency LIST] [-plot FILE]
                        [--compare openssl] [--json]

 -seconds S      seconds each implementation runs per row (default 1)
 -bytes N        buffer size for ciphers, digests and HMAC (default 8192)
 -multi N        run each row (peers too) on N threads at once, aggregate rate
 -batch N        our RSA sign/decrypt as batches of N (rows with batch: N)
 -keys N         keys per implementation for keygenN (default 20)
 --compare LIST  peers to measure beside cryptocard (default: all for the default set,
                 none when algorithms are named)
 --json          one JSON object per implementation and row
 -mr             machine-readable +F: lines
 --seeds         the seed papers' headline rows beside ours, in their units
 --engine        RSA signing through the batching engine at 1..64 concurrent callers
                 (-concurrency 1,2,4,...), throughput and p50/p99 latency beside OpenSSL
                 called from as many threads; the plot goes to -plot FILE
                 (default speed-engine.svg)

Without algorithms: the headline set rsa2048 des-cbc sha256 md2 against every peer.";

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
}

fn options(argv: &[String]) -> Result<Option<Options>, ArgError> {
    let p = args::parse(argv, FLAGS)?;
    if p.has("help") || p.has("h") {
        return Ok(None);
    }
    let seconds = p.parsed::<f64>("seconds")?.unwrap_or(DEFAULT_SECONDS);
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(ArgError(format!("-seconds: must be above 0 and at most 3600, not {seconds}")));
    }
    let bytes =
        in_range(p.parsed::<usize>("bytes")?, "bytes", 1, 1 << 26)?.unwrap_or(DEFAULT_BYTES);
    let multi = in_range(p.parsed::<usize>("multi")?, "multi", 1, 1024)?;
    let batch = in_range(p.parsed::<usize>("batch")?, "batch", 1, 1024)?;
    let keys =
        in_range(p.parsed::<usize>("keys")?, "keys", 1, 10_000)?.unwrap_or(keygen::DEFAULT_KEYS);
    let format = match (p.has("json"), p.has("mr")) {
        (true, true) => return Err(ArgError("--json and -mr exclude each other".into())),
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
    let compare = p.value("compare").map(str::to_string).unwrap_or_else(|| {
        if p.has("engine") {
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
        return Err(ArgError("--seeds takes only -seconds and -bytes".into()));
    }
    let engine = if p.has("engine") {
        Some(engine_options(&p, seconds, format)?)
    } else if p.has("concurrency") || p.has("plot") {
        return Err(ArgError("-concurrency and -plot go with --engine".into()));
    } else {
        None
    };
    Ok(Some(Options { algs, seconds, bytes, multi, batch, keys, compare, format, seeds, engine }))
}

/// The `--engine` options: at most one `rsaN`, the concurrency levels, the plot file.
fn engine_options(
    p: &args::Parsed,
    seconds: f64,
    format: Format,
) -> Result<engine::Options, ArgError> {
    if p.has("seeds") || p.has("multi") || p.has("batch") || p.positional.len() > 1 {
        return Err(ArgError(
            "--engine takes one rsaN, -seconds, -concurrency, -plot, --compare and --json".into(),
        ));
    }
    let alg = p.positional.first().map_or("rsa2048".to_string(), |a| a.to_ascii_lowercase());
    let bits = alg
        .strip_prefix("rsa")
        .and_then(|b| b.parse::<u32>().ok())
        .filter(|&b| algs::rsa::speed_key(b).is_some())
        .ok_or_else(|| ArgError(format!("--engine: '{alg}' is not one of the rsaN algorithms")))?;
    let levels = match p.value("concurrency") {
        None => engine::DEFAULT_LEVELS.to_vec(),
        Some(list) => list
            .split(',')
            .map(|w| match w.trim().parse::<usize>() {
                Ok(n) if (1..=1024).contains(&n) => Ok(n),
                _ => Err(ArgError(format!("-concurrency: '{w}' is not a number from 1 to 1024"))),
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let plot = p.value("plot").unwrap_or(engine::DEFAULT_PLOT).to_string();
    Ok(engine::Options { bits, seconds, levels, plot, format })
}

fn in_range(
    v: Option<usize>,
    name: &str,
    min: usize,
    max: usize,
) -> Result<Option<usize>, ArgError> {
    match v {
        Some(n) if !(min..=max).contains(&n) => {
            Err(ArgError(format!("-{name}: must be from {min} to {max}, not {n}")))
        }
        v => Ok(v),
    }
}

/// Runs `speed` with the arguments after the subcommand; returns the exit status.
pub fn main(argv: &[String]) -> i32 {
    let o = match options(argv) {
        Ok(Some(o)) => o,
        Ok(None) => {
            crate::cmd::print_text(&format!(
                "{USAGE}\nalgorithms: {} modexpN mulN (N a multiple of 64) keygenN\npeers: {}\n",
                registry::NAMES.join(" "),
                peers::NAMES.join(" ")
            ));
            return 0;
        }
        Err(e) => return fail(&e.to_string()),
    };
    if o.seeds {
        return seeds::run(o.seconds, o.bytes);
    }
    let set = match PeerSet::select(&o.compare) {
        Ok(set) => set,
        Err(e) => return fail(&e),
    };
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
        match keygen::bits_of(alg) {
            Some(Ok(bits)) => {
                keygens.push(bits);
                continue;
            }
            Some(Err(e)) => return fail(&e),
            None => {}
        }
        match registry::rows(alg, &ctx) {
            Ok(r) => rows.extend(r),
            Err(e) => return fail(&e),
        }
    }
    let table = o.format == Format::Table;
    if table {
        for note in set.notes.iter().chain(rows.iter().flat_map(|r| &r.notes)) {
            eprintln!("note: {note}");
        }
        let missing: Vec<&str> = rows
            .iter()
            .filter(|r| !r.candidates.iter().any(|c| c.who == registry::Who::Ours))
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
                return 0; // stdout closed (e.g. piped into `head`): stop quietly
            }
        }
    }
    drop(out);
    keygen::run(&keygens, o.keys, &set, o.format)
}

fn who(w: &registry::Who) -> String {
    match w {
        registry::Who::Ours => "cryptocard".into(),
        registry::Who::Peer(p) => p.to_string(),
    }
}

/// Reports a usage error as one line and returns the exit status.
fn fail(msg: &str) -> i32 {
    eprintln!("cryptocard speed: {msg}");
    1
}
