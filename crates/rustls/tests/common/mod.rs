//! What the handshake tests share: certificates made once per size, a server on
//! 127.0.0.1 in the test process, and a rustls client that offers chosen schemes and
//! records what the server signed with.
#![allow(dead_code)]

use cryptocard_rustls::cert::{Authority, ServerIdentity};
use cryptocard_rustls::server::{self, Counters, Options, Timeouts};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, Error, RootCertStore, SignatureScheme};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// A root and the server identity it issued.
pub type Issued = Arc<(Authority, ServerIdentity)>;

/// A root and an RSA server identity of `bits` bits, made once per size and process.
pub fn rsa_identity(bits: usize) -> Issued {
    static MADE: OnceLock<Mutex<HashMap<usize, Issued>>> = OnceLock::new();
    let mut made = MADE.get_or_init(Default::default).lock().unwrap();
    made.entry(bits)
        .or_insert_with(|| {
            let root = Authority::generate("cryptocard test root", bits).unwrap();
            let id = root.issue_rsa(bits, &["localhost", "127.0.0.1"]).unwrap();
            Arc::new((root, id))
        })
        .clone()
}

/// The chain and key of an identity, owned.
pub fn identity_parts(
    id: &ServerIdentity,
) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
    (id.chain.clone(), id.key.clone_key())
}

/// A server on 127.0.0.1 (an unused port) on the current runtime, with `identities`.
pub async fn start_server(
    identities: Vec<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
    options: &Options,
) -> (SocketAddr, Arc<Counters>) {
    start_server_timed(identities, options, Timeouts::default()).await
}

/// [`start_server`] with `timeouts`.
pub async fn start_server_timed(
    identities: Vec<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
    options: &Options,
    timeouts: Timeouts,
) -> (SocketAddr, Arc<Counters>) {
    let config = server::config(identities, options).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counters = Arc::new(Counters::default());
    tokio::spawn(server::serve(listener, config, counters.clone(), timeouts));
    (addr, counters)
}

/// The server's counts once it has caught up: a client's handshake ends when it sends
/// its Finished, the server's when it has read it, a moment later.
pub async fn settled(counters: &Counters, expected: u64) -> (u64, u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let done = counters.handshakes.load(Ordering::Relaxed);
        let failed = counters.failed.load(Ordering::Relaxed);
        if done + failed >= expected || std::time::Instant::now() > deadline {
            return (done, failed);
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A verifier that checks as webpki does, offers only `offer`, and records the scheme
/// and the certificate the server used.
#[derive(Debug)]
pub struct Recording {
    inner: Arc<WebPkiServerVerifier>,
    offer: Vec<SignatureScheme>,
    pub seen_scheme: Mutex<Option<SignatureScheme>>,
    pub seen_cert: Mutex<Option<CertificateDer<'static>>>,
}

impl ServerCertVerifier for Recording {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        *self.seen_cert.lock().unwrap() = Some(end_entity.clone().into_owned());
        self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        *self.seen_scheme.lock().unwrap() = Some(dss.scheme);
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        *self.seen_scheme.lock().unwrap() = Some(dss.scheme);
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.offer.clone()
    }
}

/// A client on `provider` that trusts `root`, speaks `versions`, and offers `offer`
/// (everything the provider verifies when empty).
pub fn client(
    provider: CryptoProvider,
    root: &CertificateDer<'static>,
    versions: &[&'static rustls::SupportedProtocolVersion],
    offer: &[SignatureScheme],
) -> (Arc<ClientConfig>, Arc<Recording>) {
    let provider = Arc::new(provider);
    let mut roots = RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .unwrap();
    let offer = if offer.is_empty() { inner.supported_verify_schemes() } else { offer.to_vec() };
    let recording = Arc::new(Recording {
        inner,
        offer,
        seen_scheme: Mutex::new(None),
        seen_cert: Mutex::new(None),
    });
    let config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(recording.clone())
        .with_no_client_auth();
    (Arc::new(config), recording)
}

/// One full handshake with the server at `addr`; the connection is closed after it.
/// A TLS connection to the server at `addr`, as "localhost".
pub async fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    TlsConnector::from(config).connect(name, tcp).await.unwrap()
}

/// The page over `tls` (HTTP/1.1, the connection closed after it): the whole response.
pub async fn fetch_page(tls: &mut TlsStream<TcpStream>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let get = b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    tls.write_all(get).await.unwrap();
    let mut response = String::new();
    tls.read_to_string(&mut response).await.unwrap();
    response
}

pub async fn handshake(addr: SocketAddr, config: Arc<ClientConfig>) -> Result<(), String> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let name = ServerName::try_from("localhost").unwrap();
    TlsConnector::from(config).connect(name, tcp).await.map(drop).map_err(|e| e.to_string())
}
