//! The handshake load: C clients at once, each opening a new TLS connection (no
//! resumption), completing the handshake with the chain and the handshake signature
//! verified (rustls with aws-lc-rs, the same client for every server), closing it, and
//! starting the next, until the time is up. Every handshake is timed on its own.

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

/// How long one handshake may take before it counts as failed.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

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
    /// Handshakes completed.
    pub handshakes: u64,
    /// Handshakes that failed (refused, reset, timed out, or a verification failure).
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

/// One handshake with `addr`, then the connection is closed.
async fn handshake(
    addr: SocketAddr,
    connector: &TlsConnector,
    name: &ServerName<'static>,
) -> Result<(), String> {
    let work = async {
        let tcp = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        let _ = tcp.set_nodelay(true);
        connector.connect(name.clone(), tcp).await.map(drop).map_err(|e| format!("handshake: {e}"))
    };
    tokio::time::timeout(HANDSHAKE_TIMEOUT, work)
        .await
        .unwrap_or_else(|_| Err(format!("no handshake within {HANDSHAKE_TIMEOUT:?}")))
}

/// How the clients reach one server: their configuration (its roots among it) and the
/// name they check its certificate for.
#[derive(Clone)]
pub struct Client {
    pub config: Arc<ClientConfig>,
    pub name: ServerName<'static>,
}

/// Runs `clients` clients of `client` against `addr` for `seconds` on `runtime`.
pub fn run(
    runtime: &tokio::runtime::Runtime,
    addr: SocketAddr,
    client: &Client,
    clients: usize,
    seconds: f64,
) -> Outcome {
    let connector = TlsConnector::from(client.config.clone());
    let name = client.name.clone();
    runtime.block_on(async move {
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(seconds);
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                let (connector, name) = (connector.clone(), name.clone());
                tokio::spawn(async move {
                    let (mut lat, mut failed, mut first_error) = (Vec::new(), 0u64, None);
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        match handshake(addr, &connector, &name).await {
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
