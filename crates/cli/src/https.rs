//! The client side of HTTPS (RFC 2818) for `ocsp -url` and `ts -url`: TLS over the
//! connection [`crate::http::post`] opened, as OpenSSL's `ocsp` speaks it. As there, the
//! server's certificate is not checked (OpenSSL's `SSL_CTX` for it verifies nothing):
//! what comes back is a signed OCSP response or time-stamp token, checked on its own
//! against the trust anchors. The handshake's signatures are checked, by rustls's default
//! provider (aws-lc-rs), so that the connection is at least one TLS session end to end.

use cryptocard_rustls::rustls;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme, StreamOwned};
use std::net::TcpStream;
use std::sync::Arc;

/// Any server certificate, with the handshake signed by its key.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `stream`, connected to `host`, as a TLS client connection (TLS 1.2 or 1.3, the name
/// sent as SNI where it is a DNS name); the handshake runs on the first read or write.
pub fn wrap(
    host: &str,
    stream: TcpStream,
) -> Result<StreamOwned<ClientConnection, TcpStream>, String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string())
        .map_err(|_| format!("'{host}' is not a host name or an address"))?;
    let conn = ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    Ok(StreamOwned::new(conn, stream))
}
