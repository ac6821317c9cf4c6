//! `cryptocard speed --tls`: full TLS handshakes per second against HTTPS servers, the
//! measure of issue 20's targets; and `speed --ocsp`: OCSP responses per second against
//! OCSP responders over HTTP.
//!
//! ```text
//! cryptocard speed --tls [rsa2048 rsa3072 rsa4096] [-seconds S] [-concurrency 1,8,64,256]
//!     [-servers cryptocard,stock] [-server NAME=COMMAND ...] [-connect HOST:PORT -CAfile FILE]
//!     [-tls1_2|-tls1_3] [-sigalg NAME] [-pin] [-plot FILE] [--json]
//! cryptocard speed --ocsp [rsa2048 ...] [-seconds S] [-concurrency LIST]
//!     [-servers cryptocard,openssl] [-server NAME=COMMAND ...] [-pin] [-plot FILE] [--json]
//! ```
//!
//! For each key size a root and a server certificate are made on the spot (cryptocard's
//! keys and `cryptocard_rustls::cert`) and every server is started on 127.0.0.1 with them
//! (`servers`): by default `cryptocard s_server` on cryptocard and on stock rustls with
//! aws-lc-rs, both with resumption off. Then, for each concurrency level and server in
//! turn, C clients open new connections for `-seconds` (`load`): each handshake full,
//! each verifying the chain and the server's signature, which is made with the one scheme
//! the clients offer (`-sigalg`, default `rsa_pss_rsae_sha256`); each server's time is
//! two halves, taken in A B B A order, as `speed` interleaves its rows. Reported per level and
//! server: handshakes/s, handshakes per server CPU-second (the server's utime + stime
//! from /proc over the level, `cpu`; client and server share the machine, so this is the
//! fair measure of the server's work), p50/p99 latency and failures; a plot of
//! handshakes/s and latency against concurrency goes to `-plot` (`speed-tls.svg`).
//!
//! `--ocsp` does the same for OCSP responders (RFC 6960 A.1): a CA of the key size with a
//! database that holds one valid certificate, and a request about it (SHA-1 certificate
//! ID, a nonce) that every client POSTs on a new connection, checking that a successful
//! response comes back. The built-in responders are `cryptocard ocsp -multi 64` (threads
//! taking connections, the signatures batched through the engine) and `openssl ocsp
//! -multi N` (a process a core, as OpenSSL's responder scales), where `openssl` is on the
//! PATH.
//!
//! `-pin` puts the servers on CPU 0 and the clients on CPU 1 (taskset(1)), so that the
//! two do not take turns on the same core.

mod cpu;
mod load;
mod servers;

use super::plot::{self, Series};
use super::report::{Format, cpu_model, format_rate};
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, CertBuilder, Profile};
use cryptocard_pki::ocsp;
use cryptocard_rustls::rustls::pki_types::ServerName;
use cryptocard_rustls::rustls::{self, SignatureScheme, SupportedProtocolVersion};
use serde_json::json;
use servers::{Files, Running, Spec};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Concurrency levels unless `-concurrency` says otherwise.
pub const DEFAULT_LEVELS: &[usize] = &[1, 8, 64, 256];
/// Where the plot goes unless `-plot` says otherwise.
pub const DEFAULT_PLOT: &str = "speed-tls.svg";
/// Where `--ocsp`'s plot goes unless `-plot` says otherwise.
pub const DEFAULT_OCSP_PLOT: &str = "speed-ocsp.svg";
/// The key sizes certificates are made for.
pub const SIZES: &[usize] = &[2048, 3072, 4096];

/// The schemes `-sigalg` takes, in OpenSSL's names (RFC 8446 section 4.2.3).
const SIGALGS: [(&str, SignatureScheme); 6] = [
    ("rsa_pss_rsae_sha256", SignatureScheme::RSA_PSS_SHA256),
    ("rsa_pss_rsae_sha384", SignatureScheme::RSA_PSS_SHA384),
    ("rsa_pss_rsae_sha512", SignatureScheme::RSA_PSS_SHA512),
    ("rsa_pkcs1_sha256", SignatureScheme::RSA_PKCS1_SHA256),
    ("rsa_pkcs1_sha384", SignatureScheme::RSA_PKCS1_SHA384),
    ("rsa_pkcs1_sha512", SignatureScheme::RSA_PKCS1_SHA512),
];

/// What `--tls` was asked for.
#[derive(Debug)]
pub struct Options {
    pub sizes: Vec<usize>,
    pub seconds: f64,
    pub levels: Vec<usize>,
    pub servers: Vec<Spec>,
    pub tls13: bool,
    pub sigalg: &'static str,
    pub pin: bool,
    pub plot: String,
    pub format: Format,
    /// OCSP responses rather than TLS handshakes (`--ocsp`).
    pub ocsp: bool,
}

/// Builds the options from the parsed pieces.
#[allow(clippy::too_many_arguments)]
pub fn options(
    algs: &[String],
    seconds: f64,
    levels: Option<Vec<usize>>,
    builtin: Option<&str>,
    custom: &[&str],
    connect: Option<&str>,
    ca_file: Option<&str>,
    tls12: bool,
    sigalg: Option<&str>,
    pin: bool,
    plot: Option<&str>,
    format: Format,
    ocsp: bool,
) -> Result<Options, String> {
    if ocsp && (connect.is_some() || ca_file.is_some() || tls12 || sigalg.is_some()) {
        return Err("--ocsp takes no -connect, -CAfile, -tls1_2 or -sigalg".into());
    }
    let sizes = algs
        .iter()
        .map(|a| {
            a.strip_prefix("rsa")
                .and_then(|b| b.parse::<usize>().ok())
                .filter(|b| SIZES.contains(b))
                .ok_or_else(|| format!("--tls: '{a}' is not rsa2048, rsa3072 or rsa4096"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sizes = if sizes.is_empty() { vec![2048] } else { sizes };
    let version_flag = if tls12 { "-tls1_2" } else { "-tls1_3" };
    let mut servers = Vec::new();
    let builtin = match (builtin, connect, custom.is_empty()) {
        (Some(list), _, _) => list.split(',').map(str::trim).collect(),
        (None, None, true) if ocsp && on_path("openssl") => vec!["cryptocard", "openssl"],
        (None, None, true) if ocsp => vec!["cryptocard"],
        (None, None, true) => vec!["cryptocard", "stock"],
        (None, _, _) => vec![],
    };
    for name in builtin {
        match name {
            _ if ocsp => servers.push(Spec::ocsp(name)?),
            "cryptocard" | "stock" => servers.push(Spec::builtin(name, version_flag)?),
            _ => return Err(format!("-servers: '{name}' is not cryptocard or stock")),
        }
    }
    for c in custom {
        servers.push(Spec::custom(c)?);
    }
    match (connect, ca_file) {
        (Some(addr), Some(file)) => servers.push(Spec::Connect {
            name: format!("server at {addr}"),
            addr: addr.to_string(),
            server_name: connect_host(addr)?,
            roots: cryptocard_rustls::server::read_chain(std::path::Path::new(file))
                .map_err(|e| format!("-CAfile {e}"))?,
        }),
        (Some(_), None) => {
            return Err("-connect: give the root of the server's certificate with -CAfile \
                        FILE (the clients verify every chain)"
                .into());
        }
        (None, Some(_)) => return Err("-CAfile goes with -connect".into()),
        (None, None) => {}
    }
    let sigalg = match sigalg {
        None => "rsa_pss_rsae_sha256",
        Some(s) => SIGALGS
            .iter()
            .map(|(n, _)| *n)
            .find(|n| *n == s)
            .ok_or_else(|| format!("-sigalg: '{s}' is not one of {}", names(&SIGALGS)))?,
    };
    if !tls12 && sigalg.starts_with("rsa_pkcs1") {
        return Err("-sigalg: TLS 1.3 signs handshakes with PSS only (RFC 8446 4.4.3); \
                    add -tls1_2 for PKCS#1 v1.5"
            .into());
    }
    Ok(Options {
        sizes,
        seconds,
        levels: levels.unwrap_or_else(|| DEFAULT_LEVELS.to_vec()),
        servers,
        tls13: !tls12,
        sigalg,
        pin,
        plot: plot.unwrap_or(if ocsp { DEFAULT_OCSP_PLOT } else { DEFAULT_PLOT }).to_string(),
        format,
        ocsp,
    })
}

/// Whether `program` is an executable file in a directory of `$PATH`.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// The host of `-connect HOST:PORT` (an IPv6 address in brackets without them), which
/// the server's certificate must name.
fn connect_host(addr: &str) -> Result<ServerName<'static>, String> {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    ServerName::try_from(host.to_string())
        .map_err(|_| format!("-connect {addr}: '{host}' is not a host name or an address"))
}

fn names(list: &[(&str, SignatureScheme)]) -> String {
    list.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Runs the measurement.
pub fn run(o: &Options) -> CmdResult {
    let mode = if o.ocsp { "--ocsp" } else { "--tls" };
    measure(o).map_err(|e| Fail::msg(format!("{mode}: {e}")))
}

fn measure(o: &Options) -> Result<(), String> {
    let (server_cpu, client_cpu) = if o.pin { pin_self()? } else { (None, None) };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the client runtime: {e}"))?;
    let scheme = SIGALGS
        .iter()
        .find(|(n, _)| *n == o.sigalg)
        .map(|s| s.1)
        .unwrap_or(SignatureScheme::RSA_PSS_SHA256);
    let version: &'static SupportedProtocolVersion =
        if o.tls13 { &rustls::version::TLS13 } else { &rustls::version::TLS12 };
    let dir = TempDir::new()?;
    let mut out = Reporter {
        format: o.format,
        out: std::io::stdout().lock(),
        total: 0,
        failed: 0,
        units: o.units(),
        op: if o.ocsp { "ocsp-response" } else { "handshake" },
    };
    for &bits in &o.sizes {
        let alg = match o.ocsp {
            true => format!("ocsp-rsa{bits}"),
            false => format!("tls1.{}-rsa{bits}", if o.tls13 { 3 } else { 2 }),
        };
        let (files, ours) = match o.ocsp {
            true => {
                let (files, request) = responder_files(bits, &dir.0)?;
                (files, load::Work::OcspPost(Arc::new(request)))
            }
            false => {
                let (files, root) = certificates(bits, &dir.0)?;
                let client = load::Client {
                    config: load::client_config(&[root], version, scheme)?,
                    name: ServerName::try_from("localhost").map_err(|e| e.to_string())?,
                };
                (files, load::Work::Handshake(client))
            }
        };
        let mut running = Vec::new();
        let mut clients = Vec::new();
        for (i, spec) in o.servers.iter().enumerate() {
            let log = dir.0.join(format!("server-{i}.log"));
            running.push(Running::start(spec, &files, server_cpu, &log)?);
            clients.push(match spec {
                // A server of its own: its chain is the -CAfile's, for its host's name.
                Spec::Connect { server_name, roots, .. } => load::Work::Handshake(load::Client {
                    config: load::client_config(roots, version, scheme)?,
                    name: server_name.clone(),
                }),
                Spec::Start { .. } => ours.clone(),
            });
        }
        out.header(&alg, o, server_cpu.zip(client_cpu));
        // A few handshakes first, so that no server's first level pays its start-up.
        for (server, client) in running.iter().zip(&clients) {
            let warm = load::run(&runtime, server.addr, client, 4, 0.2);
            if warm.handshakes == 0 {
                let why = warm.first_error.unwrap_or_default();
                return Err(format!("{}: no {} succeeded: {why}", server.name, o.unit()));
            }
        }
        let mut series: Vec<Series> =
            running.iter().map(|r| Series { label: r.name.clone(), points: vec![] }).collect();
        for &c in &o.levels {
            // The level's time in two halves, the servers taking turns in A B B A order,
            // so that drift (clock, caches, the allocator's growth) falls on all alike.
            // Halves rather than shorter turns: each turn starts C connections at once
            // and ends with their stragglers, which must stay a small part of a turn.
            let rounds = 2;
            let slice = o.seconds / rounds as f64;
            let mut outcomes: Vec<load::Outcome> =
                running.iter().map(|_| load::Outcome::empty()).collect();
            let mut cpu: Vec<Option<f64>> = vec![Some(0.0); running.len()];
            for round in 0..rounds {
                let mut order: Vec<usize> = (0..running.len()).collect();
                if round % 2 == 1 {
                    order.reverse();
                }
                for i in order {
                    let server = &running[i];
                    let before = server.cpu_seconds();
                    outcomes[i].absorb(load::run(&runtime, server.addr, &clients[i], c, slice));
                    let used = before.zip(server.cpu_seconds()).map(|(b, a)| a - b);
                    cpu[i] = cpu[i].zip(used).map(|(t, u)| t + u);
                }
            }
            let mut points = Vec::new();
            for ((server, s), (outcome, cpu)) in
                running.iter().zip(&mut series).zip(outcomes.iter().zip(cpu))
            {
                let point = Point::new(outcome, cpu);
                out.point(&alg, &server.name, c, outcome, &point);
                s.points.push((c, point.per_s, outcome.quantile(0.5), outcome.quantile(0.99)));
                points.push((server.name.clone(), point));
            }
            out.ratios(&points);
        }
        let title = match o.ocsp {
            true => format!("OCSP responses by an RSA-{bits} responder, a request a connection"),
            false => format!("{alg} full handshakes ({}), no resumption", o.sigalg),
        };
        plot::write(
            &plot_path(&o.plot, bits, o.sizes.len()),
            &title,
            "concurrent clients",
            &series,
        )?;
    }
    out.total();
    Ok(())
}

impl Options {
    /// What is counted, plural.
    fn units(&self) -> &'static str {
        if self.ocsp { "responses" } else { "handshakes" }
    }

    /// What is counted, singular.
    fn unit(&self) -> &'static str {
        if self.ocsp { "response" } else { "handshake" }
    }
}

/// A level's figures for one server.
#[derive(Debug, Clone, Copy)]
struct Point {
    per_s: f64,
    per_cpu_s: Option<f64>,
}

impl Point {
    fn new(o: &load::Outcome, cpu: Option<f64>) -> Point {
        let per_s = o.handshakes as f64 / o.elapsed.as_secs_f64().max(1e-9);
        let per_cpu_s = cpu.filter(|&c| c > 0.0).map(|c| o.handshakes as f64 / c);
        Point { per_s, per_cpu_s }
    }
}

/// Pins this process (all its threads, and those it starts) to CPU 1 and says that the
/// servers go on CPU 0.
fn pin_self() -> Result<(Option<usize>, Option<usize>), String> {
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    if cpus < 2 {
        return Err("-pin needs two CPUs".into());
    }
    let status = std::process::Command::new("taskset")
        .args(["-a", "-p", "-c", "1", &std::process::id().to_string()])
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("-pin: cannot run taskset: {e}"))?;
    if !status.success() {
        return Err(format!("-pin: taskset failed ({status})"));
    }
    Ok((Some(0), Some(1)))
}

/// A root and a server certificate for RSA keys of `bits` bits, made by our own
/// `cryptocard_pki` (so every handshake's WebPKI verification in the clients checks the
/// certificates `req` and `x509` make), written as PEM files for the servers; returns
/// them and the root, which the clients trust.
fn certificates(
    bits: usize,
    dir: &Path,
) -> Result<(Files, cryptocard_rustls::rustls::pki_types::CertificateDer<'static>), String> {
    let e = |e: &dyn std::fmt::Display| format!("making certificates: {e}");
    let name = |n: &str| cert::parse_subject(n).map_err(|x| e(&x));
    let root_key = RsaPrivateKey::generate(bits, &mut OsRng).map_err(|x| e(&x))?;
    let root = CertBuilder::new(name("/CN=cryptocard speed root")?, root_key.public_key())
        .and_then(|b| b.days(2).self_signed(&root_key))
        .map_err(|x| e(&x))?;
    let key = RsaPrivateKey::generate(bits, &mut OsRng).map_err(|x| e(&x))?;
    let leaf = CertBuilder::new(name("/CN=localhost")?, key.public_key())
        .and_then(|b| {
            let san = cert::subject_alt_name("DNS:localhost,IP:127.0.0.1")?;
            b.days(2).profile(Profile::Leaf).extension(san).signed_by(&root, &root_key)
        })
        .map_err(|x| e(&x))?;
    let pem = |c: &cert::Certificate| cert::to_pem(c).map_err(|x| e(&x));
    let files = Files {
        chain: dir.join(format!("chain-{bits}.pem")),
        cert: dir.join(format!("cert-{bits}.pem")),
        key: dir.join(format!("key-{bits}.pem")),
        index: PathBuf::new(),
    };
    write(&files.chain, &(pem(&leaf)? + &pem(&root)?), Mode::Public)?;
    write(&files.cert, &pem(&leaf)?, Mode::Public)?;
    write(&files.key, &key.to_pkcs8_pem().map_err(|x| e(&x))?, Mode::Private)?;
    let root_der = cert::to_der(&root).map_err(|x| e(&x))?;
    Ok((files, root_der.into()))
}

/// An OCSP responder's files for RSA keys of `bits` bits: a CA (its certificate and
/// key, PEM) whose database (`index.txt`, as `ca` keeps it) holds one valid certificate
/// it issued, and a request about that certificate (SHA-1 ID, a 16-byte nonce), DER.
fn responder_files(bits: usize, dir: &Path) -> Result<(Files, Vec<u8>), String> {
    let e = |e: &dyn std::fmt::Display| format!("making the CA: {e}");
    let name = |n: &str| cert::parse_subject(n).map_err(|x| e(&x));
    let key = RsaPrivateKey::generate(bits, &mut OsRng).map_err(|x| e(&x))?;
    let ca = CertBuilder::new(name("/CN=cryptocard speed OCSP CA")?, key.public_key())
        .and_then(|b| b.days(2).profile(Profile::Ca).self_signed(&key))
        .map_err(|x| e(&x))?;
    // The certificate asked about (on the CA's key: only its serial and issuer matter).
    let leaf = CertBuilder::new(name("/CN=asked about")?, key.public_key())
        .and_then(|b| b.days(2).profile(Profile::Leaf).signed_by(&ca, &key))
        .map_err(|x| e(&x))?;
    // The serial as OpenSSL's database writes it (BN_bn2hex: no leading zero bytes).
    let serial = leaf.tbs_certificate().serial_number().as_bytes();
    let start = serial.iter().position(|&b| b != 0).unwrap_or(serial.len().saturating_sub(1));
    let hex: String = serial[start..].iter().map(|b| format!("{b:02X}")).collect();
    let files = Files {
        chain: dir.join(format!("ca-{bits}.pem")),
        cert: dir.join(format!("ca-{bits}.pem")),
        key: dir.join(format!("ca-{bits}.key")),
        index: dir.join(format!("index-{bits}.txt")),
    };
    write(&files.cert, &cert::to_pem(&ca).map_err(|x| e(&x))?, Mode::Public)?;
    write(&files.key, &key.to_pkcs8_pem().map_err(|x| e(&x))?, Mode::Private)?;
    write(
        &files.index,
        &format!("V\t491231235959Z\t\t{hex}\tunknown\t/CN=asked about\n"),
        Mode::Public,
    )?;
    let id = ocsp::CertId::of(&leaf, &ca, HashAlg::Sha1).map_err(|x| e(&x))?;
    let mut nonce = [0u8; 16];
    OsRng.fill_bytes(&mut nonce).map_err(|x| e(&x))?;
    let request = ocsp::request(&[id], Some(&nonce)).map_err(|x| e(&x))?;
    Ok((files, request))
}

/// Writes `text` to `path` whole.
fn write(path: &Path, text: &str, mode: Mode) -> Result<(), String> {
    let mut file =
        Output::create(Some(&path.to_string_lossy()), mode).map_err(|f| f.to_string())?;
    file.put(text.as_bytes()).map_err(|f| f.to_string())?;
    file.commit().map_err(|f| f.to_string())
}

/// The plot's file: `-plot` as given for one key size, with `-rsaN` before the extension
/// for several.
fn plot_path(plot: &str, bits: usize, sizes: usize) -> String {
    if sizes == 1 {
        return plot.to_string();
    }
    match plot.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}-rsa{bits}.{ext}"),
        None => format!("{plot}-rsa{bits}"),
    }
}

/// A directory of this run's own, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        let dir = std::env::temp_dir().join(format!("cryptocard-speed-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The report, line by line to stdout as it is measured.
struct Reporter {
    format: Format,
    out: std::io::StdoutLock<'static>,
    total: u64,
    failed: u64,
    /// What is counted, plural: `handshakes` or `responses`.
    units: &'static str,
    /// The JSON rows' `op`.
    op: &'static str,
}

impl Reporter {
    fn emit(&mut self, line: String) {
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn header(&mut self, alg: &str, o: &Options, pinned: Option<(usize, usize)>) {
        if self.format != Format::Table {
            return;
        }
        let placement = match pinned {
            Some((s, c)) => format!("servers on CPU {s}, clients on CPU {c}"),
            None => "servers and clients unpinned".into(),
        };
        let what = match o.ocsp {
            true => "OCSP responses (a request a connection)".to_string(),
            false => format!("full handshakes ({}, no resumption)", o.sigalg),
        };
        self.emit(format!("{alg} {what}, {} s per point; {placement}; {}", o.seconds, cpu_model()));
        self.emit(format!(
            "{:>11}  {:<20} {:>12} {:>16} {:>10} {:>10} {:>7}",
            "concurrency",
            "server",
            format!("{}/s", self.units),
            "per server CPU-s",
            "p50 µs",
            "p99 µs",
            "failed"
        ));
    }

    fn point(&mut self, alg: &str, name: &str, c: usize, o: &load::Outcome, p: &Point) {
        self.total += o.handshakes;
        self.failed += o.failed;
        if let (Some(e), true) = (&o.first_error, self.format == Format::Table) {
            eprintln!("note: {name} at {c}: {} failed, the first: {e}", o.failed);
        }
        match self.format {
            Format::Table => {
                let cpu = p.per_cpu_s.map_or("-".to_string(), format_rate);
                self.emit(format!(
                    "{c:>11}  {name:<20} {:>12} {cpu:>16} {:>10} {:>10} {:>7}",
                    format_rate(p.per_s),
                    format_rate(o.quantile(0.5)),
                    format_rate(o.quantile(0.99)),
                    o.failed
                ));
            }
            Format::Json | Format::MachineReadable => {
                let mut v = json!({"alg": alg, "op": self.op, "impl": name, "concurrency": c,
                    "seconds": o.elapsed.as_secs_f64(),
                    "ops_per_s": p.per_s, "ops_per_server_cpu_s": p.per_cpu_s,
                    "p50_us": o.quantile(0.5), "p99_us": o.quantile(0.99), "failed": o.failed});
                v[self.units] = json!(o.handshakes);
                self.emit(v.to_string());
            }
        }
    }

    /// cryptocard against each other server at one level.
    fn ratios(&mut self, points: &[(String, Point)]) {
        if self.format != Format::Table {
            return;
        }
        let Some((_, ours)) = points.iter().find(|(n, _)| n == "cryptocard") else { return };
        let ours = *ours;
        for (name, p) in points.iter().filter(|(n, _)| n != "cryptocard") {
            let cpu = match (ours.per_cpu_s, p.per_cpu_s) {
                (Some(a), Some(b)) => format!(", {:.2}x per server CPU-s", a / b),
                _ => String::new(),
            };
            let line = format!(
                "{:>11}  cryptocard / {name}: {:.2}x {}/s{cpu}",
                "",
                ours.per_s / p.per_s,
                self.units
            );
            self.emit(line);
        }
    }

    fn total(&mut self) {
        if self.format == Format::Table {
            let (total, failed) = (self.total, self.failed);
            self.emit(format!("{total} {} in all, {failed} failed", self.units));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, connect_host, options, plot_path};

    /// The name the clients check is `-connect`'s host: a DNS name, or an address (IPv6
    /// without its brackets).
    #[test]
    fn connect_host_is_the_name_checked() {
        let host = |addr: &str| connect_host(addr).unwrap().to_str().into_owned();
        assert_eq!(host("example.com:443"), "example.com");
        assert_eq!(host("127.0.0.1:8443"), "127.0.0.1");
        assert_eq!(host("[::1]:8443"), "::1");
        assert!(connect_host("bad host:443").unwrap_err().contains("not a host name"));
        assert!(connect_host(":443").is_err());
    }

    #[test]
    fn options_say_what_is_wrong() {
        let with = |algs: &[&str], servers: Option<&str>, sigalg, tls12, ocsp| {
            let algs: Vec<String> = algs.iter().map(|s| s.to_string()).collect();
            options(
                &algs,
                1.0,
                None,
                servers,
                &[],
                None,
                None,
                tls12,
                sigalg,
                false,
                None,
                Format::Table,
                ocsp,
            )
        };
        let o = |algs: &[&str], sigalg, tls12| with(algs, None, sigalg, tls12, false);
        let ok = o(&[], None, false).unwrap();
        assert_eq!(
            (ok.sizes.as_slice(), ok.servers.len(), ok.sigalg),
            (&[2048][..], 2, "rsa_pss_rsae_sha256")
        );
        assert!(o(&["rsa1024"], None, false).unwrap_err().contains("rsa1024"));
        assert!(o(&[], Some("rsa_pkcs1_sha256"), false).unwrap_err().contains("PSS only"));
        assert!(o(&[], Some("rsa_pkcs1_sha256"), true).is_ok());
        assert!(o(&[], Some("ed25519"), false).unwrap_err().contains("not one of"));
        // --ocsp: responders, no TLS options; its own plot.
        let ocsp = with(&["rsa3072"], Some("cryptocard,openssl"), None, false, true).unwrap();
        assert_eq!((ocsp.servers.len(), ocsp.plot.as_str()), (2, "speed-ocsp.svg"));
        assert!(with(&[], Some("stock"), None, false, true).unwrap_err().contains("'stock'"));
        assert!(with(&[], None, Some("rsa_pss_rsae_sha256"), false, true).is_err());
        assert!(with(&[], None, None, true, true).unwrap_err().contains("--ocsp takes no"));
    }

    #[test]
    fn one_plot_per_size() {
        assert_eq!(plot_path("t.svg", 2048, 1), "t.svg");
        assert_eq!(plot_path("t.svg", 3072, 2), "t-rsa3072.svg");
    }
}
