//! An HTTPS server: tokio, rustls through tokio-rustls, and hyper serving HTTP/1.1 and
//! HTTP/2 (ALPN, RFC 7301) on one small page. It runs on stock rustls with aws-lc-rs or on
//! cryptocard ([`Stack`]), with session resumption on or off, so that `cryptocard speed
//! --tls` can measure one against the other; the example `https_server` and the CLI's
//! `s_server` run it.
//!
//! One server may hold several certificates (an RSA and an ECDSA one, say): each
//! connection gets the first whose key can sign with a scheme the client offers.
//!
//! A client cannot hold a connection by saying nothing ([`Timeouts`]): its TLS handshake
//! must end within 10 s of the accept, each HTTP/1 request's header must arrive within
//! 30 s (the wait for the next request on a kept-alive connection included), and an
//! HTTP/2 peer that stops answering pings is dropped.

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
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

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
}

impl Default for Options {
    fn default() -> Options {
        Options {
            stack: Stack::Cryptocard,
            versions: Versions::Both,
            resumption: true,
            backend: None,
            wait: Wait::default(),
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
pub fn provider(options: &Options) -> CryptoProvider {
    let base = rustls::crypto::aws_lc_rs::default_provider();
    match options.stack {
        Stack::Stock => base,
        Stack::Cryptocard if options.backend.is_none() && options.wait == Wait::default() => {
            crate::provider()
        }
        Stack::Cryptocard => {
            let mut keys =
                CryptocardKeys::new(shared_engine(), base.key_provider).with_wait(options.wait);
            if let Some(backend) = options.backend {
                keys = keys.with_backend(backend);
            }
            with_cryptocard(base, keys)
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
    for (chain, key) in identities {
        let signing = provider.key_provider.load_private_key(key).map_err(setup)?;
        let certified = CertifiedKey::new(chain, signing);
        certified
            .keys_match()
            .map_err(|e| setup(format_args!("the key does not match its certificate: {e}")))?;
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
    /// Handshakes the client did not finish in time ([`Timeouts::handshake`]).
    pub timed_out: AtomicU64,
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
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts { handshake: Duration::from_secs(10), request: Duration::from_secs(30) }
    }
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

/// Accepts connections on `listener` until the task is dropped: a TLS handshake, then
/// HTTP/2 if ALPN chose it, else HTTP/1.1, each connection on a task of its own, within
/// `timeouts`. (ALPN decides, rather than a look at the first bytes, which would wait
/// without a limit for a client that sends none.)
pub async fn serve(
    listener: TcpListener,
    config: Arc<ServerConfig>,
    counters: Arc<Counters>,
    timeouts: Timeouts,
) {
    let acceptor = TlsAcceptor::from(config);
    let mut h1 = http1::Builder::new();
    h1.timer(TokioTimer::new()).header_read_timeout(timeouts.request);
    let mut h2 = http2::Builder::new(TokioExecutor::new());
    h2.timer(TokioTimer::new())
        .keep_alive_interval(timeouts.request)
        .keep_alive_timeout(timeouts.request);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors or a connection reset before it was accepted: the
            // listener itself is fine, so wait a moment and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (acceptor, counters) = (acceptor.clone(), counters.clone());
        let (h1, h2) = (h1.clone(), h2.clone());
        tokio::spawn(async move {
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
            let _ = if is_h2 {
                h2.serve_connection(io, service_fn(page)).await
            } else {
                h1.serve_connection(io, service_fn(page)).await
            };
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
        serve(listener, config, Arc::new(Counters::default()), Timeouts::default()).await;
        Ok(())
    })
}
