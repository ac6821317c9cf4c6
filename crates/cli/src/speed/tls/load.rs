//! The load: C clients at once, each opening a new connection for one piece of [`Work`]
//! and starting the next when it is done, until the time is up; each timed on its own.
//! The work is a TLS handshake (no resumption) with the chain and the handshake
//! signature verified (rustls with aws-lc-rs, the same client for every server), or an
//! OCSP request POSTed over HTTP/1.0 (RFC 6960 A.1, as `openssl ocsp -url` sends it) and
//! its answer read whole and found to be a successful response.

use cryptocard_rustls::rustls;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme, SupportedProtocolVersion,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// How long one handshake or exchange may take before it counts as failed.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes of an OCSP answer read (a response with its certificate is a few KiB).
const MAX_ANSWER: u64 = 1 << 20;

/// webpki's verification that offers one signature scheme only, so that the server must
/// sign with the scheme being measured.
#[derive(Debug)]
struct OneScheme {
    inner: Arc<WebPkiServerVerifier>,
    scheme: SignatureScheme,
}

impl ServerCertVerifier for OneScheme {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![self.scheme]
    }
}

/// The client: trusts `roots`, speaks `version`, offers `scheme`, never resumes.
pub fn client_config(
    roots: &[CertificateDer<'static>],
    version: &'static SupportedProtocolVersion,
    scheme: SignatureScheme,
) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut store = RootCertStore::empty();
    for root in roots {
        store.add(root.clone()).map_err(|e| format!("a root: {e}"))?;
    }
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
        .build()
        .map_err(|e| e.to_string())?;
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(OneScheme { inner, scheme }))
        .with_no_client_auth();
    config.resumption = rustls::client::Resumption::disabled();
    Ok(Arc::new(config))
}

/// What one level of load measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Handshakes (or exchanges) completed.
    pub handshakes: u64,
    /// Those that failed (refused, reset, timed out, or a verification failure).
    pub failed: u64,
    /// From the start to the last handshake's end.
    pub elapsed: Duration,
    /// Each completed handshake's latency, µs, sorted.
    pub latencies_us: Vec<f64>,
    /// The first failure's message, for the report.
    pub first_error: Option<String>,
}

impl Outcome {
    /// Nothing measured yet.
    pub fn empty() -> Outcome {
        Outcome {
            handshakes: 0,
            failed: 0,
            elapsed: Duration::ZERO,
            latencies_us: Vec::new(),
            first_error: None,
        }
    }

    /// Adds another slice's figures to these.
    pub fn absorb(&mut self, other: Outcome) {
        self.handshakes += other.handshakes;
        self.failed += other.failed;
        self.elapsed += other.elapsed;
        self.latencies_us.extend(other.latencies_us);
        self.latencies_us.sort_by(f64::total_cmp);
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    /// The `p` quantile of the latencies (0 when none completed).
    pub fn quantile(&self, p: f64) -> f64 {
        let n = self.latencies_us.len();
        if n == 0 {
            return 0.0;
        }
        self.latencies_us[((n - 1) as f64 * p).round() as usize]
    }
}

/// How the clients reach one server: their configuration (its roots among it) and the
/// name they check its certificate for.
#[derive(Clone)]
pub struct Client {
    pub config: Arc<ClientConfig>,
    pub name: ServerName<'static>,
}

/// What a client does on each connection.
#[derive(Clone)]
pub enum Work {
    /// A TLS handshake.
    Handshake(Client),
    /// POSTs this DER OCSP request and reads the answer.
    OcspPost(Arc<Vec<u8>>),
}

/// [`Work`] ready to run: the TLS connector made once for all the clients.
#[derive(Clone)]
enum Op {
    Handshake(TlsConnector, ServerName<'static>),
    OcspPost(Arc<Vec<u8>>),
}

impl Op {
    fn of(work: &Work) -> Op {
        match work {
            Work::Handshake(c) => {
                Op::Handshake(TlsConnector::from(c.config.clone()), c.name.clone())
            }
            Work::OcspPost(request) => Op::OcspPost(request.clone()),
        }
    }

    /// One piece of the work with `addr`, on a connection of its own.
    async fn once(&self, addr: SocketAddr) -> Result<(), String> {
        let work = async {
            let tcp = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
            let _ = tcp.set_nodelay(true);
            match self {
                Op::Handshake(connector, name) => connector
                    .connect(name.clone(), tcp)
                    .await
                    .map(drop)
                    .map_err(|e| format!("handshake: {e}")),
                Op::OcspPost(request) => ocsp_post(tcp, request).await,
            }
        };
        tokio::time::timeout(HANDSHAKE_TIMEOUT, work)
            .await
            .unwrap_or_else(|_| Err(format!("not done within {HANDSHAKE_TIMEOUT:?}")))
    }
}

/// POSTs `request` on `tcp` and checks that the answer is `200` with a successful OCSP
/// response.
async fn ocsp_post(mut tcp: TcpStream, request: &[u8]) -> Result<(), String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let head = format!(
        "POST / HTTP/1.0\r\nContent-Type: application/ocsp-request\r\nContent-Length: {}\r\n\r\n",
        request.len()
    );
    tcp.write_all(&[head.as_bytes(), request].concat()).await.map_err(|e| format!("send: {e}"))?;
    let mut answer = Vec::new();
    tcp.take(MAX_ANSWER).read_to_end(&mut answer).await.map_err(|e| format!("read: {e}"))?;
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no HTTP answer")?;
    let status = String::from_utf8_lossy(&answer[..end.min(64)]).into_owned();
    if status.split(' ').nth(1) != Some("200") {
        return Err(format!("the responder said {}", status.lines().next().unwrap_or("")));
    }
    match cryptocard_pki::ocsp::response_status(&answer[end + 4..]) {
        Ok(cryptocard_pki::ocsp::ResponseStatus::Successful) => Ok(()),
        Ok(s) => Err(format!("the responder answered {}", s.as_str())),
        Err(e) => Err(format!("not an OCSP response: {e}")),
    }
}

/// Runs `clients` clients doing `work` against `addr` for `seconds` on `runtime`.
pub fn run(
    runtime: &tokio::runtime::Runtime,
    addr: SocketAddr,
    work: &Work,
    clients: usize,
    seconds: f64,
) -> Outcome {
    let op = Op::of(work);
    runtime.block_on(async move {
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(seconds);
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                let op = op.clone();
                tokio::spawn(async move {
                    let (mut lat, mut failed, mut first_error) = (Vec::new(), 0u64, None);
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        match op.once(addr).await {
                            Ok(()) => lat.push(t.elapsed().as_secs_f64() * 1e6),
                            Err(e) => {
                                failed += 1;
                                first_error.get_or_insert(e);
                            }
                        }
                    }
                    (lat, failed, first_error, Instant::now())
                })
            })
            .collect();
        let mut outcome = Outcome::empty();
        let mut last = start;
        for task in tasks {
            match task.await {
                Ok((lat, failed, first_error, end)) => {
                    outcome.latencies_us.extend(lat);
                    outcome.failed += failed;
                    if outcome.first_error.is_none() {
                        outcome.first_error = first_error;
                    }
                    last = last.max(end);
                }
                Err(e) => {
                    outcome.failed += 1;
                    outcome.first_error.get_or_insert(format!("a client task ended: {e}"));
                }
            }
        }
        outcome.handshakes = outcome.latencies_us.len() as u64;
        outcome.latencies_us.sort_by(f64::total_cmp);
        outcome.elapsed = last - start;
        outcome
    })
}
