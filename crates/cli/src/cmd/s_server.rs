//! `cryptocard s_server`: an HTTPS server, in the manner of `openssl s_server -www`, on
//! rustls whose RSA signatures run on cryptocard's engine (`cryptocard_rustls`).
//!
//! ```text
//! cryptocard s_server -cert FILE -key FILE [-dcert FILE -dkey FILE] [-accept [HOST:]PORT]
//!                     [-provider cryptocard|stock] [-no_resumption] [-tls1_2|-tls1_3]
//!                     [-threads N] [-backend scalar|ifma|auto] [-wait MODE]
//!                     [-status_file FILE]
//! ```
//!
//! It serves a small page over HTTP/1.1 or HTTP/2 to every connection until stopped,
//! printing `ACCEPT HOST:PORT` once it listens (port 0 picks a free one). `-dcert`/`-dkey`
//! add a second certificate (an ECDSA one beside RSA, say): each client gets the first
//! whose key signs a scheme it offers. `-provider stock` runs the same server on rustls's
//! own aws-lc-rs, the yardstick of `speed --tls`. `-status_file` staples an OCSP
//! response (DER, as `openssl ocsp -respout` writes one) to `-cert`'s chain for clients
//! that ask (RFC 6066 section 8, in TLS 1.2 and 1.3). Default: port 4433, both TLS
//! versions, resumption on.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io;
use cryptocard::rsa::Backend;
use cryptocard_rustls::Wait;
use cryptocard_rustls::server::{self, Options, Stack, Versions};
use std::io::Write;
use std::path::Path;

const SPEC: Spec = Spec {
    usage: "s_server -cert FILE -key FILE [options]",
    flags: &[
        Flag::value("accept", "[HOST:]PORT").about("Where to listen (default 127.0.0.1:4433)"),
        Flag::value("cert", "FILE").about("The certificate chain, PEM, the server's first"),
        Flag::value("key", "FILE").about("Its private key, PEM (PKCS#8, PKCS#1 or SEC 1)"),
        Flag::value("dcert", "FILE").about("A second certificate chain (e.g. ECDSA)"),
        Flag::value("status_file", "FILE")
            .about("An OCSP response (DER) stapled to -cert's chain for clients that ask"),
        Flag::value("dkey", "FILE").about("Its private key"),
        Flag::value("provider", "NAME").about("cryptocard (default) or stock (rustls + aws-lc-rs)"),
        Flag::switch("no_resumption").about("No session tickets or cache: every handshake full"),
        Flag::switch("tls1_2").about("TLS 1.2 only"),
        Flag::switch("tls1_3").about("TLS 1.3 only"),
        Flag::value("threads", "N").about("Runtime worker threads (default: one per core)"),
        Flag::value("backend", "NAME")
            .about("The RSA keys' backend: scalar, avx2, ifma, gpu or auto"),
        Flag::value("wait", "MODE")
            .about("How a signature waits for its batch: block (default), block_in_place, direct"),
    ],
    notes: "Prints ACCEPT HOST:PORT when listening; serves until stopped.",
    more: None,
};

/// Runs `s_server`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let mut options = Options::default();
    if let Some(p) = a.value("provider") {
        options.stack = Stack::parse(p)
            .ok_or_else(|| Fail::msg(format!("-provider: '{p}' is not cryptocard or stock")))?;
    }
    options.resumption = !a.has("no_resumption");
    options.versions = match a.last_of(&["tls1_2", "tls1_3"]) {
        Some("tls1_2") => Versions::Tls12,
        Some(_) => Versions::Tls13,
        None => Versions::Both,
    };
    if let Some(b) = a.value("backend") {
        options.backend = Some(Backend::parse(b).map_err(|e| Fail::lib("-backend", e))?);
    }
    options.wait = match a.value("wait") {
        Some("block_in_place") => Wait::BlockInPlace,
        None | Some("block") => Wait::Block,
        Some("direct") => Wait::Direct,
        Some(w) => {
            return Err(Fail::msg(format!("-wait: '{w}' is not block_in_place, block or direct")));
        }
    };
    let threads = a.parsed::<usize>("threads")?.unwrap_or(0);
    if threads > 1024 {
        return Err(Fail::msg("-threads: at most 1024"));
    }
    if let Some(path) = a.value("status_file") {
        options.ocsp_staple = Some(ocsp_response(path)?);
    }
    let mut identities = vec![identity(a.value("cert"), a.value("key"), "-cert", "-key")?];
    if a.has("dcert") || a.has("dkey") {
        identities.push(identity(a.value("dcert"), a.value("dkey"), "-dcert", "-dkey")?);
    }
    let accept = a.value("accept").unwrap_or("4433");
    let addr =
        if accept.contains(':') { accept.to_string() } else { format!("127.0.0.1:{accept}") };
    let config = server::config(identities, &options).map_err(|e| Fail::msg(e.to_string()))?;
    server::run(&addr, threads, config, |bound| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "ACCEPT {bound}");
        let _ = out.flush();
    })
    .map_err(|e| Fail::msg(e.to_string()))
}

/// The OCSP response of `-status_file`: one DER `OCSPResponse` (RFC 6960 section 4.2.1, a
/// SEQUENCE whose first element is the ENUMERATED responseStatus), nothing after it.
fn ocsp_response(path: &str) -> CmdResult<Vec<u8>> {
    use cryptocard::rsa::spki::der::{Decode, Tag, Tagged, asn1::AnyRef};
    let der = io::read_capped(Some(path), "an OCSP response", io::MAX_CERT_INPUT)?;
    let shaped = AnyRef::from_der(&der)
        .ok()
        .filter(|outer| outer.tag() == Tag::Sequence)
        .is_some_and(|outer| {
            let inner = outer.value();
            inner.len() >= 3 && inner[0] == 0x0a && inner[1] == 0x01
        });
    if !shaped {
        return Err(Fail::msg(format!("-status_file {path}: not a DER OCSP response")));
    }
    Ok(der)
}

type Identity = (
    Vec<cryptocard_rustls::rustls::pki_types::CertificateDer<'static>>,
    cryptocard_rustls::rustls::pki_types::PrivateKeyDer<'static>,
);

/// A chain and its key from two PEM files, both named.
fn identity(
    cert: Option<&str>,
    key: Option<&str>,
    cflag: &str,
    kflag: &str,
) -> CmdResult<Identity> {
    let (Some(cert), Some(key)) = (cert, key) else {
        return Err(Fail::msg(format!("{cflag} and {kflag} go together, and {cflag} is needed")));
    };
    let chain = server::read_chain(Path::new(cert)).map_err(|e| Fail::msg(e.to_string()))?;
    let key = server::read_key(Path::new(key)).map_err(|e| Fail::msg(e.to_string()))?;
    Ok((chain, key))
}
