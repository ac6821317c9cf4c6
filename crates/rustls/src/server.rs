//! An HTTPS server: tokio, rustls through tokio-rustls, and hyper serving HTTP/1.1 and
//! HTTP/2 (ALPN, RFC 7301) on one small page. It runs on stock rustls with aws-lc-rs or on
//! cryptocard ([`Stack`]), with session resumption on or off, so that `cryptocard speed
//! --tls` can measure one against the other; the example `https_server` and the CLI's
//! `s_server` run it.
//!
//! One server may hold several certificates (an RSA and an ECDSA one, say): each
//! connection gets the first whose key can sign with a scheme the client offers.
//!
//! A client cannot hold a connection by saying nothing, nor by asking and then not
//! reading ([`Timeouts`]): its TLS handshake must end within 10 s of the accept, each
//! HTTP/1 request's header must arrive within 30 s (the wait for the next request on a
//! kept-alive connection included), an HTTP/2 peer that stops answering pings is dropped,
//! a connection on which no byte moves either way for 60 s fails (`idle`: a response
//! waiting for a client that stopped reading; a slow transfer that moves is not cut), and
//! every connection is closed gracefully 10 minutes after its accept (`lifetime`: the
//! bound on a peer that keeps every other limit, an HTTP/2 one answering pings without
//! asking anything, say). Nor can clients open connections without end ([`Limits`]): at
//! most 4096 are served at once (fewer where the descriptor limit would run out first);
//! the rest wait in the listen backlog, not accepted, until one closes. Were the server to
//! run out of descriptors all the same, it backs off (up to a second) rather than spin on
//! the failing accept.

use crate::{CryptocardKeys, Wait, shared_engine, with_cryptocard};
use cryptocard::rsa::Backend;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, NoServerSessionStorage, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::{ServerConfig, SupportedProtocolVersion};
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;

mod idle;

use idle::Idle;

/// Whose cryptography signs the handshakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    /// rustls with aws-lc-rs, as shipped (`rustls::crypto::aws_lc_rs::default_provider`).
    Stock,
    /// The same with cryptocard's key provider and RSA verification ([`crate::provider`]).
    Cryptocard,
}

impl Stack {
    /// Parses `stock` or `cryptocard`.
    pub fn parse(s: &str) -> Option<Stack> {
        match s {
            "stock" | "aws-lc-rs" => Some(Stack::Stock),
            "cryptocard" => Some(Stack::Cryptocard),
            _ => None,
        }
    }
}

/// The TLS versions a server speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Versions {
    /// TLS 1.2 and 1.3.
    #[default]
    Both,
    /// TLS 1.2 only.
    Tls12,
    /// TLS 1.3 only.
    Tls13,
}

impl Versions {
    /// rustls's list.
    pub fn list(self) -> &'static [&'static SupportedProtocolVersion] {
        static BOTH: [&SupportedProtocolVersion; 2] =
            [&rustls::version::TLS13, &rustls::version::TLS12];
        static TLS12: [&SupportedProtocolVersion; 1] = [&rustls::version::TLS12];
        static TLS13: [&SupportedProtocolVersion; 1] = [&rustls::version::TLS13];
        match self {
            Versions::Both => &BOTH,
            Versions::Tls12 => &TLS12,
            Versions::Tls13 => &TLS13,
        }
    }
}

/// How a server is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// Whose cryptography signs.
    pub stack: Stack,
    /// The versions spoken.
    pub versions: Versions,
    /// Session resumption (tickets and the session cache); off makes every connection a
    /// full handshake.
    pub resumption: bool,
    /// With [`Stack::Cryptocard`]: the backend of the RSA keys (the process default when
    /// `None`).
    pub backend: Option<Backend>,
    /// With [`Stack::Cryptocard`]: how a signature waits for its batch.
    pub wait: Wait,
    /// An OCSP response (RFC 6960, DER) stapled to the first certificate chain for the
    /// clients that ask for one (RFC 6066 section 8; OpenSSL `s_server`'s `-status_file`).
    pub ocsp_staple: Option<Vec<u8>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            stack: Stack::Cryptocard,
            versions: Versions::Both,
            resumption: true,
            backend: None,
            wait: Wait::default(),
            ocsp_staple: None,
        }
    }
}

/// A server setup error, said in words.
#[derive(Debug)]
pub struct SetupError(pub String);

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

fn setup(what: impl fmt::Display) -> SetupError {
    SetupError(what.to_string())
}

/// The provider of `options`.
///
/// A cryptocard provider leaks its key provider and verification tables (rustls holds
/// them as `&'static`; see [`with_cryptocard`]), so each one is built once per process,
/// for each backend and wait, and handed out again after: a program that makes
/// configurations again and again (one per certificate reload, say) leaks a bounded
/// amount, a few hundred bytes for each of the few combinations it uses.
pub fn provider(options: &Options) -> CryptoProvider {
    type Made = Vec<((Option<Backend>, Wait), CryptoProvider)>;
    static MADE: OnceLock<Mutex<Made>> = OnceLock::new();
    let base = rustls::crypto::aws_lc_rs::default_provider();
    match options.stack {
        Stack::Stock => base,
        Stack::Cryptocard if options.backend.is_none() && options.wait == Wait::default() => {
            crate::provider()
        }
        Stack::Cryptocard => {
            let made = MADE.get_or_init(Mutex::default);
            // Only pushes happen under the lock: a panic cannot leave the list half-made.
            let mut made = made.lock().unwrap_or_else(PoisonError::into_inner);
            let wanted = (options.backend, options.wait);
            if let Some((_, provider)) = made.iter().find(|(made, _)| *made == wanted) {
                return provider.clone();
            }
            let mut keys =
                CryptocardKeys::new(shared_engine(), base.key_provider).with_wait(options.wait);
            if let Some(backend) = options.backend {
                keys = keys.with_backend(backend);
            }
            let provider = with_cryptocard(base, keys);
            made.push((wanted, provider.clone()));
            provider
        }
    }
}

/// Reads a PEM certificate chain (the server's certificate first).
pub fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, SetupError> {
    let chain: Vec<_> = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| setup(format_args!("{}: {e}", path.display())))?;
    if chain.is_empty() {
        return Err(setup(format_args!("{}: no CERTIFICATE in the file", path.display())));
    }
    Ok(chain)
}

/// Reads a PEM private key (PKCS#8 "PRIVATE KEY", PKCS#1 "RSA PRIVATE KEY" or SEC 1 "EC
/// PRIVATE KEY").
pub fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, SetupError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| setup(format_args!("{}: {e}", path.display())))
}

/// The certificates of a server, each connection served with the first one whose key
/// can sign with a scheme the client offers.
#[derive(Debug)]
struct FirstThatSigns(Vec<Arc<CertifiedKey>>);

impl ResolvesServerCert for FirstThatSigns {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let offered = hello.signature_schemes();
        self.0.iter().find(|ck| ck.key.choose_scheme(offered).is_some()).cloned()
    }
}

/// A rustls server configuration for `identities` (each a chain and its key): keys are
/// loaded by the provider of `options`, and each is checked against its certificate.
pub fn config(
    identities: Vec<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
    options: &Options,
) -> Result<Arc<ServerConfig>, SetupError> {
    if identities.is_empty() {
        return Err(setup("a server needs at least one certificate and key"));
    }
    let provider = Arc::new(provider(options));
    let mut keys = Vec::with_capacity(identities.len());
    for (n, (chain, key)) in identities.into_iter().enumerate() {
        let signing = provider.key_provider.load_private_key(key).map_err(setup)?;
        let mut certified = CertifiedKey::new(chain, signing);
        certified
            .keys_match()
            .map_err(|e| setup(format_args!("the key does not match its certificate: {e}")))?;
        if n == 0 {
            certified.ocsp.clone_from(&options.ocsp_staple);
        }
        keys.push(Arc::new(certified));
    }
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(options.versions.list())
        .map_err(setup)?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(FirstThatSigns(keys)));
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    if !options.resumption {
        config.session_storage = Arc::new(NoServerSessionStorage {});
        config.send_tls13_tickets = 0;
    }
    Ok(Arc::new(config))
}

/// What a server has done so far.
#[derive(Debug, Default)]
pub struct Counters {
    /// Handshakes completed.
    pub handshakes: AtomicU64,
    /// Handshakes that failed (the peer's fault or ours), the timed out included.
    pub failed: AtomicU64,
    /// Connections cut for a time limit: handshakes the client did not finish in time
    /// ([`Timeouts::handshake`]), connections on which nothing moved for
    /// [`Timeouts::idle`], and those still open [`Timeouts::request`] after the graceful
    /// close at the end of their [`Timeouts::lifetime`]. A late HTTP/1 request header and
    /// a graceful close that ends in time are not counted.
    pub timed_out: AtomicU64,
    /// Times the server found [`Limits::connections`] connections open and stopped
    /// accepting until one closed.
    pub full: AtomicU64,
    /// Accepts that failed: a connection reset while it waited in the backlog, or the
    /// process out of descriptors (then the server backs off before it tries again).
    pub accept_errors: AtomicU64,
}

/// How long a client may keep a connection waiting, so that one that opens connections
/// and then says nothing cannot hold the server's descriptors and tasks.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// From the accept to the end of the TLS handshake.
    pub handshake: Duration,
    /// For each HTTP/1 request's header, from the moment the server waits for it (on a
    /// kept-alive connection, from the end of the previous response); and for an
    /// HTTP/2 peer's answer to a keep-alive ping, sent after this long without a frame.
    pub request: Duration,
    /// From the last byte that moved on a connection, either way: the connection fails.
    /// It bounds a response waiting for a client that has stopped reading, where no other
    /// timer runs; a slow transfer that keeps moving is not cut.
    pub idle: Duration,
    /// From the accept to a graceful close: HTTP/1 finishes the request in progress and
    /// closes, HTTP/2 sends GOAWAY and finishes its open streams; whatever is still open
    /// [`request`](Timeouts::request) later is dropped. It bounds a connection that keeps
    /// every other limit: an HTTP/2 peer answering pings without asking anything, say.
    pub lifetime: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(10),
            request: Duration::from_secs(30),
            idle: Duration::from_secs(60),
            lifetime: Duration::from_secs(600),
        }
    }
}

/// The most connections a server serves at once by default, where the descriptor limit
/// allows (at 50-100 kB of TLS and HTTP buffers each, some hundreds of MB).
pub const MAX_CONNECTIONS: usize = 4096;

/// Descriptors the default connection cap leaves to the rest of the process.
const RESERVED_FDS: usize = 64;

/// How much a server takes on: how long each client may keep it waiting, and how many
/// connections it holds at once, so that clients cannot exhaust its descriptors.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How long a client may keep a connection waiting.
    pub timeouts: Timeouts,
    /// Connections served at once (at least one). When this many are open the server
    /// accepts no more until one closes: new ones wait in the listen backlog, and when
    /// that is full the kernel holds off their clients. By default [`MAX_CONNECTIONS`],
    /// or fewer where the process's descriptor limit (RLIMIT_NOFILE's soft value, read
    /// from /proc on Linux) would run out first, 64 descriptors kept for the rest.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { timeouts: Timeouts::default(), connections: default_connections() }
    }
}

impl From<Timeouts> for Limits {
    /// `timeouts` with the default connection cap.
    fn from(timeouts: Timeouts) -> Limits {
        Limits { timeouts, ..Limits::default() }
    }
}

/// [`Limits::connections`]'s default.
fn default_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits").ok().and_then(|limits| {
        let rest = limits.lines().find_map(|line| line.strip_prefix("Max open files"))?;
        rest.split_whitespace().next()?.parse::<usize>().ok() // None when "unlimited"
    });
    match soft {
        Some(soft) => soft.saturating_sub(RESERVED_FDS).max(soft / 2).clamp(1, MAX_CONNECTIONS),
        None => MAX_CONNECTIONS,
    }
}

/// The first and the longest wait after an accept that failed for want of resources.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// Whether a failed accept was about one connection only (reset while it waited in the
/// backlog), so that the next may be accepted at once; any other failure (EMFILE, ENFILE,
/// ENOBUFS, ENOMEM) lasts until something is freed, and is waited out.
fn only_that_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// The page served at every path.
const PAGE: &str = "<!doctype html>\n<title>cryptocard</title>\n<p>Served over TLS by rustls \
                    and cryptocard.</p>\n";

async fn page(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::new(Full::new(Bytes::from_static(PAGE.as_bytes())));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    Ok(response)
}

/// `wait` after `from`; a wait too long for the clock (`Duration::MAX`: never) ends some
/// thirty years on.
fn later(from: Instant, wait: Duration) -> Instant {
    from.checked_add(wait).unwrap_or_else(|| from + Duration::from_secs(30 * 365 * 24 * 3600))
}

/// Drives `conn` until it ends or `end` comes; then `close` asks it to end gracefully,
/// and it is dropped if it has not `grace` later. Whether it was dropped.
async fn within_lifetime<C: Future>(
    conn: C,
    close: impl FnOnce(Pin<&mut C>),
    end: Instant,
    grace: Duration,
) -> bool {
    let mut conn = pin!(conn);
    if tokio::time::timeout_at(end, conn.as_mut()).await.is_ok() {
        return false;
    }
    close(conn.as_mut());
    tokio::time::timeout(grace, conn).await.is_err()
}

/// Accepts connections on `listener` until the task is dropped: a TLS handshake, then
/// HTTP/2 if ALPN chose it, else HTTP/1.1, each connection on a task of its own, within
/// `limits` (a [`Timeouts`] alone: with the default connection cap). (ALPN decides,
/// rather than a look at the first bytes, which would wait without a limit for a client
/// that sends none.)
pub async fn serve(
    listener: TcpListener,
    config: Arc<ServerConfig>,
    counters: Arc<Counters>,
    limits: impl Into<Limits>,
) {
    let Limits { timeouts, connections } = limits.into();
    let slots = Arc::new(Semaphore::new(connections.clamp(1, Semaphore::MAX_PERMITS)));
    let mut backoff = ACCEPT_BACKOFF.0;
    let acceptor = TlsAcceptor::from(config);
    let mut h1 = http1::Builder::new();
    h1.timer(TokioTimer::new()).header_read_timeout(timeouts.request);
    let mut h2 = http2::Builder::new(TokioExecutor::new());
    h2.timer(TokioTimer::new())
        .keep_alive_interval(timeouts.request)
        .keep_alive_timeout(timeouts.request);
    loop {
        // A slot before the accept: a full server leaves new connections in the kernel's
        // backlog rather than take on what it has no room for.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                counters.full.fetch_add(1, Ordering::Relaxed);
                match slots.clone().acquire_owned().await {
                    Ok(slot) => slot,
                    Err(_) => return, // closed: never, the semaphore is this function's
                }
            }
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                backoff = ACCEPT_BACKOFF.0;
                stream
            }
            // The listener itself is fine: go on, at once after a connection reset before
            // it was accepted, else (out of descriptors, say, where the next accept would
            // fail at once again) after a wait that doubles while the failures go on.
            Err(e) => {
                counters.accept_errors.fetch_add(1, Ordering::Relaxed);
                if !only_that_connection(&e) {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF.1);
                }
                continue;
            }
        };
        let accepted = Instant::now();
        let _ = stream.set_nodelay(true);
        let stream = Idle::new(stream, timeouts.idle, counters.clone());
        let (acceptor, counters) = (acceptor.clone(), counters.clone());
        let (h1, h2) = (h1.clone(), h2.clone());
        tokio::spawn(async move {
            let _slot = slot; // freed when the connection ends
            let tls = match tokio::time::timeout(timeouts.handshake, acceptor.accept(stream)).await
            {
                Ok(Ok(tls)) => tls,
                late_or_failed => {
                    if late_or_failed.is_err() {
                        counters.timed_out.fetch_add(1, Ordering::Relaxed);
                    }
                    counters.failed.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            };
            counters.handshakes.fetch_add(1, Ordering::Relaxed);
            // A client that closes after its handshake (the load client does) ends here.
            let is_h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            let io = TokioIo::new(tls);
            let (end, grace) = (later(accepted, timeouts.lifetime), timeouts.request);
            let dropped = if is_h2 {
                let conn = h2.serve_connection(io, service_fn(page));
                within_lifetime(conn, |conn| conn.graceful_shutdown(), end, grace).await
            } else {
                let conn = h1.serve_connection(io, service_fn(page));
                within_lifetime(conn, |conn| conn.graceful_shutdown(), end, grace).await
            };
            if dropped {
                counters.timed_out.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
}

/// Runs a server on `addr` with `threads` runtime workers (one per core when 0) until
/// the process is stopped; `ready` is told the bound address first (port 0 picks one).
pub fn run(
    addr: &str,
    threads: usize,
    config: Arc<ServerConfig>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), SetupError> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if threads > 0 {
        builder.worker_threads(threads);
    }
    let runtime = builder.enable_all().build().map_err(setup)?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| setup(format_args!("cannot listen on {addr}: {e}")))?;
        ready(listener.local_addr().map_err(setup)?);
        serve(listener, config, Arc::new(Counters::default()), Limits::default()).await;
        Ok(())
    })
}
