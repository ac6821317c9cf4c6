//! `cryptocard ocsp`: OCSP requests, a CA's responder, and the checks of a response
//! (RFC 6960), as `openssl ocsp` does them (`cryptocard_pki::ocsp`).
//!
//! ```text
//! cryptocard ocsp -issuer CA.pem -cert CERT.pem ... [-serial N ...] [-no_nonce] [-sha256]
//!                 [-signer S.pem [-signkey K.pem] [-sign_other F] [-no_certs]]
//!                 [-reqout REQ.der]                                  # a request
//! cryptocard ocsp -index index.txt -CA CA.pem -rsigner R.pem [-rkey K.pem] [-rother F]
//!                 [-reqin REQ.der | -issuer CA.pem -cert CERT.pem] [-ndays N] [-nmin N]
//!                 [-rmd NAME] [-rsigopt OPT:V] [-rcid NAME] [-resp_key_id]
//!                 [-resp_no_certs] [-badsig] -respout RESP.der        # a responder's answer
//! cryptocard ocsp -respin RESP.der [-CAfile F] [-CApath D] [-no-CAfile] [-verify_other F]
//!                 [-VAfile F] [-noverify]
//!                 [-partial_chain] [-issuer CA.pem -cert CERT.pem ...] [-no_nonce]
//!                 [-validity_period S] [-status_age S] [-no_signature_verify]
//!                 [-no_cert_verify] [-no_chain] [-no_cert_checks] [-no_intern] [-trust_other]
//! cryptocard ocsp -url http[s]://HOST[:PORT]/PATH [-header N=V] [-timeout S] [-respout F]
//!                 -issuer CA.pem -cert CERT.pem ... [checks as with -respin]  # a client
//! cryptocard ocsp -port N [-multi N] [-nrequest N] [-timeout S] -index index.txt -CA CA.pem
//!                 -rsigner R.pem ...                                   # a responder server
//! common: [-out FILE] [-req_text] [-resp_text] [-text]
//! ```
//!
//! A request asks about each `-cert` (or `-serial`) of the `-issuer` given last, its
//! certificate ID hashed with SHA-1 unless `-sha256` (or another digest flag) says
//! otherwise, with a 16-byte nonce unless `-no_nonce`; with `-signer` it is signed by
//! that certificate's key (RFC 6960 4.1.2; `-signkey`, else the `-signer` file), naming
//! it as the requestor and carrying it and `-sign_other`'s certificates unless
//! `-no_certs`. A request read with `-reqin` is signed too if `-signer` is given.
//!
//! As a responder (`-index`, a CA database as `ca` and `openssl ca` keep it), it answers
//! each certificate of the request (`-reqin`, or the one made from `-cert`) that `-CA`
//! issued: `good` for a valid row, `revoked` with the row's date and reason (and its
//! invalidity date or hold instruction as a single extension), `unknown` for any other
//! certificate, signed by `-rsigner` (the CA itself, or a certificate it issued for OCSP
//! signing) with `-rmd`'s digest (SHA-256) and `-rsigopt`'s padding, the nonce echoed,
//! nextUpdate `-ndays`/`-nmin` later if given, each certificate ID hashed as the
//! request's or with `-rcid`'s digest. `-badsig` flips the signature's last bit (for
//! testing clients). With `-port` the responder serves requests over HTTP (`http`),
//! rereading the database when it changes, until `-nrequest` requests if given; one
//! connection at a time, or with `-multi N` up to N at once, their signatures batched
//! through the engine (where `openssl ocsp -multi` forks N processes). A request that
//! cannot be answered never stops the server (so `-ignore_err` changes nothing).
//!
//! Reading a response (`-respin`), it says `Response verify OK` (or `Response Verify
//! Failure` and why, exit status 1) on stderr after the checks of
//! `ocsp::verify_response` against the trust anchors of `-CAfile` and `-CApath` (or, with
//! neither, the system's roots, as OpenSSL's default store; `-no-CAfile` says not), which `-no_signature_verify`, `-no_cert_verify`, `-no_chain`,
//! `-no_cert_checks`, `-no_intern` and `-trust_other` relax as OpenSSL's do
//! (`-no_explicit` changes nothing: see `ocsp::Relaxed`); then for each `-cert` its status
//! as OpenSSL prints it (`good`, the update times, a revocation's reason and time), with
//! `WARNING: Status times invalid.` and the reasons where thisUpdate is ahead or
//! nextUpdate behind by more than `-validity_period` seconds (five minutes), or thisUpdate
//! older than `-status_age` seconds if given (and `ERROR: No Status found.` for one the
//! response does not answer, exit status 1); a nonce sent and not echoed is a warning,
//! one echoed differently an error. With `-url` (or `-host` and `-path`) the request is
//! POSTed to a responder and its answer checked as `-respin` would be. `-req_text`,
//! `-resp_text` and `-text` print the request and the response as OpenSSL does
//! (`ocsp::request_text`, `ocsp::response_text`); these and the statuses go to `-out` if
//! given, written whole at the end. An `https://` URL speaks TLS to the responder
//! (`https`: its certificate unchecked, as OpenSSL's client leaves it; the response is
//! checked on its own); the responder serves plain HTTP only.

mod check;
mod responder;

use super::certio::{load_cert, write_public};
use super::{Spec, digest_by_name, no_positional};
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::http::{self, OCSP};
use crate::io;
use crate::keyfile::{self, ReadOptions};
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard_pki::cert::Certificate;
use cryptocard_pki::ocsp::{self, CertId, RequestSigner};
use cryptocard_pki::sig::SigScheme;
use responder::{Responder, lib};
use std::time::Duration;
use x509_cert::serial_number::SerialNumber;

const SPEC: Spec = Spec {
    usage: "ocsp [options]",
    flags: &[
        Flag::value("issuer", "FILE").about("The issuer of the certificates asked about"),
        Flag::value("cert", "FILE").about("A certificate to ask about (repeat)"),
        Flag::value("serial", "N").about("A serial number to ask about (repeat; 0x for hex)"),
        Flag::switch("no_nonce").about("No nonce in the request (nor its check)"),
        Flag::switch("nonce").about("A nonce in the request (the default)"),
        Flag::value("digest", "NAME").about("Hash of the certificate IDs (default sha1)"),
        Flag::value("signer", "FILE").about("Sign the request with this certificate's key"),
        Flag::value("signkey", "FILE").about("The signer's key (default: -signer's file)"),
        Flag::value("sign_other", "FILE").about("More certificates for the signed request"),
        Flag::switch("no_certs").about("No certificates in the signed request"),
        Flag::value("reqout", "FILE").about("Write the request (DER)"),
        Flag::value("reqin", "FILE").about("Read a request (DER)"),
        Flag::value("index", "FILE").about("Answer from this CA database"),
        Flag::value("CA", "FILE").about("The CA certificates the database is of"),
        Flag::value("rsigner", "FILE").about("The responder's certificate"),
        Flag::value("rkey", "FILE").about("The responder's key (default: -rsigner's file)"),
        Flag::value("rother", "FILE").about("More certificates for the response"),
        Flag::value("rmd", "NAME").about("The response signature's digest (default sha256)"),
        Flag::value("rsigopt", "OPT:VALUE")
            .about("Response signature option (rsa_padding_mode:pss, ...; repeat)"),
        Flag::value("rcid", "NAME").about("Hash the answered certificate IDs with this"),
        Flag::value("ndays", "N").about("nextUpdate this many days on"),
        Flag::value("nmin", "N").about("nextUpdate this many minutes on"),
        Flag::switch("resp_key_id").about("Name the responder by its key's hash"),
        Flag::switch("resp_no_certs").about("Leave the responder's certificate out"),
        Flag::switch("badsig").about("Corrupt the response's signature (for testing clients)"),
        Flag::value("respout", "FILE").about("Write the response (DER)"),
        Flag::value("respin", "FILE").about("Read a response (DER) and check it"),
        Flag::value("CAfile", "FILE").about("Trust anchors for the responder's path"),
        Flag::value("CApath", "DIR").about("A hashed directory of trust anchors"),
        Flag::switch("no-CAfile").about("Not the system's roots when no -CAfile is given"),
        Flag::switch("no-CApath").about("No default directory (none is read here)"),
        Flag::value("verify_other", "FILE").about("More certificates to find the responder"),
        Flag::value("VAfile", "FILE").about("Responder certificates trusted as they are"),
        Flag::switch("trust_other").about("Trust -verify_other's responder as it is"),
        Flag::switch("noverify").about("Do not check the response"),
        Flag::switch("no_signature_verify").about("Do not check the response's signature"),
        Flag::switch("no_cert_verify").about("Do not check the responder's path or authority"),
        Flag::switch("no_chain").about("No intermediates for the responder's path"),
        Flag::switch("no_cert_checks").about("Do not check the responder's authority"),
        Flag::switch("no_explicit").about("No explicit trust (none is read here)"),
        Flag::switch("no_intern").about("Find the responder among -verify_other's only"),
        Flag::switch("partial_chain").about("Any -CAfile certificate may end a path"),
        Flag::value("validity_period", "S").about("Clock slack for the status times (300)"),
        Flag::value("status_age", "S").about("The oldest thisUpdate accepted, in seconds"),
        Flag::value("passin", "ARG").about("The responder key's password source"),
        Flag::value("url", "URL").about("POST the request to this http(s):// responder"),
        Flag::value("host", "HOST:PORT").about("POST the request to this responder"),
        Flag::value("path", "PATH").about("The path with -host (default /)"),
        Flag::value("header", "NAME=VALUE").about("An HTTP header for -url (repeat)"),
        Flag::value("timeout", "S")
            .about("Seconds for a connection, a write or a whole message (default 30)"),
        Flag::value("port", "N").about("Serve -index's answers over HTTP on this port"),
        Flag::value("multi", "N").about("With -port, serve up to N connections at once"),
        Flag::value("nrequest", "N").about("With -port, stop after N requests"),
        Flag::switch("ignore_err").about("Go on after a bad request (always so here)"),
        Flag::switch("req_text").about("Print the request as text"),
        Flag::switch("resp_text").about("Print the response as text"),
        Flag::switch("text").about("Print the request and the response as text"),
        Flag::value("out", "FILE").about("Write the texts and statuses here"),
    ],
    notes: "Digest flags (-sha1, -sha256, ...) name the certificate IDs' hash too.\n",
    more: None,
};

/// The digest flags `openssl ocsp` takes for the certificate IDs' hash.
const DIGEST_FLAGS: [&str; 6] = ["sha1", "sha224", "sha256", "sha384", "sha512", "md5"];

/// The most connections `-multi` serves at once.
const MAX_MULTI: usize = 1024;

/// Runs `ocsp`.
pub fn main(argv: &[String]) -> CmdResult {
    // `-sha256` and the like stand for `-digest sha256`.
    let argv: Vec<String> = argv
        .iter()
        .flat_map(|w| match w.strip_prefix('-').filter(|d| DIGEST_FLAGS.contains(d)) {
            Some(d) => vec!["-digest".to_string(), d.to_string()],
            None => vec![w.clone()],
        })
        .collect();
    let Some(a) = SPEC.parse(&argv)? else { return Ok(()) };
    no_positional(&a)?;
    // What is printed goes out whole at the end, also when a check failed.
    let mut text = String::new();
    let result = run(&a, &mut text);
    if text.is_empty() && a.value("out").is_none() {
        return result;
    }
    let written = write_public(a.value("out"), text.as_bytes());
    result.and(written)
}

fn run(a: &Parsed, text: &mut String) -> CmdResult {
    let hash = match a.value("digest") {
        Some(name) => digest_by_name(name)?,
        None => HashAlg::Sha1,
    };
    let asked = asked_about(a, hash)?;
    let nonce = match a.has("no_nonce") {
        true => None,
        false => {
            let mut n = [0u8; 16];
            OsRng.fill_bytes(&mut n).map_err(|e| Fail::lib("nonce", e))?;
            Some(n)
        }
    };
    let made = match asked.is_empty() {
        true => None,
        false => {
            let ids: Vec<CertId> = asked.iter().map(|(_, id)| id.clone()).collect();
            Some(ocsp::request(&ids, nonce.as_ref().map(|n| &n[..])).map_err(lib)?)
        }
    };
    // The request to answer or send: -reqin's, or the one made; signed if -signer says.
    let mut request = match a.value("reqin") {
        Some(path) => Some(io::read_capped(Some(path), "an OCSP request", io::MAX_CERT_INPUT)?),
        None => made.clone(),
    };
    if let Some(path) = a.value("signer") {
        let unsigned = request
            .as_ref()
            .ok_or_else(|| Fail::msg("-signer: give -reqin, or -issuer and -cert"))?;
        request = Some(sign(a, path, unsigned)?);
    }
    if let Some(req) = request.as_ref().filter(|_| a.has("req_text") || a.has("text")) {
        text.push_str(
            &ocsp::request_text(req).map_err(|e| Fail::msg(format!("the request: {e}")))?,
        );
    }
    if let Some(path) = a.value("reqout") {
        let req = request
            .as_ref()
            .ok_or_else(|| Fail::msg("-reqout: give -reqin, or -issuer and -cert"))?;
        write_public(Some(path), req)?;
    }
    let timeout = Duration::from_secs(a.parsed::<u64>("timeout")?.unwrap_or(30).max(1));
    if a.has("multi") && !a.has("port") {
        return Err(Fail::msg("-multi goes with -port"));
    }
    if a.has("index") {
        let responder = Responder::load(a)?;
        if let Some(port) = a.parsed::<u16>("port")? {
            let count = a.parsed::<u64>("nrequest")?.unwrap_or(0);
            return match a.parsed::<usize>("multi")? {
                None => http::serve(port, count, timeout, &OCSP, |r| responder.answer(r, None)),
                Some(n) if (1..=MAX_MULTI).contains(&n) => {
                    let engine =
                        Engine::builder().build().map_err(|e| Fail::lib("the engine", e))?;
                    let answer = |r: &[u8]| responder.answer(r, Some(&engine));
                    http::serve_concurrently(port, count, timeout, &OCSP, n, answer)
                }
                Some(_) => Err(Fail::msg(format!("-multi: 1 to {MAX_MULTI} connections"))),
            };
        }
        let request =
            request.ok_or_else(|| Fail::msg("-index: give -reqin, or -issuer and -cert"))?;
        let (parsed, unreadable) = match ocsp::parse_request(&request) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        };
        let response = responder.respond(parsed, None)?;
        if let Some(out) = a.value("respout") {
            write_public(Some(out), &response)?;
        }
        if a.has("resp_text") || a.has("text") {
            text.push_str(&ocsp::response_text(&response).map_err(lib)?);
        }
        // A request that cannot be read got the status that says so, and fails.
        return match unreadable {
            None => Ok(()),
            Some(e) => Err(Fail::msg(format!("the request: {e}"))),
        };
    }
    if a.has("port") {
        return Err(Fail::msg("-port needs -index, -CA and -rsigner"));
    }
    let sent_nonce = made.is_some().then_some(nonce).flatten();
    if let Some(url) = responder_url(a)? {
        let request =
            request.ok_or_else(|| Fail::msg("-url: give -reqin, or -issuer and -cert"))?;
        let headers = a
            .values("header")
            .into_iter()
            .map(|h| match h.split_once('=') {
                Some((n, v)) if !n.is_empty() && !h.contains(['\r', '\n']) => {
                    Ok((n.to_string(), v.to_string()))
                }
                _ => Err(Fail::msg(format!("-header {h}: not NAME=VALUE"))),
            })
            .collect::<CmdResult<Vec<_>>>()?;
        let response = http::post(&url, &OCSP, &request, &headers, timeout)?;
        if let Some(path) = a.value("respout") {
            write_public(Some(path), &response)?;
        }
        return check::check_response(a, "the response", &response, &asked, sent_nonce, text);
    }
    if let Some(path) = a.value("respin") {
        let der = io::read_capped(Some(path), "an OCSP response", io::MAX_CERT_INPUT)?;
        return check::check_response(a, path, &der, &asked, sent_nonce, text);
    }
    if made.is_none() && a.value("reqin").is_none() {
        return Err(Fail::msg(
            "nothing to do: give -cert or -serial (with -issuer), -index or -respin",
        ));
    }
    Ok(())
}

/// The request `unsigned` signed by the `-signer` certificate at `path` with its key
/// (`-signkey`, else from the same file), as `OCSP_request_sign` signs it.
fn sign(a: &Parsed, path: &str, unsigned: &[u8]) -> CmdResult<Vec<u8>> {
    let cert = load_cert(Some(path), None)?;
    let opts = ReadOptions::from_args(a)?;
    let key_path = a.value("signkey").unwrap_or(path);
    let key = keyfile::load_private(Some(key_path), None, a.value("passin"), &opts)?;
    let other: Vec<Certificate> = match a.value("sign_other") {
        Some(p) => super::certio::read_cert_file(Some(p)).map_err(Fail::msg)?,
        None => Vec::new(),
    };
    let signer = RequestSigner {
        cert: &cert,
        key: &key,
        scheme: SigScheme::DEFAULT,
        other: &other,
        include_certs: !a.has("no_certs"),
    };
    ocsp::sign_request(unsigned, &signer).map_err(|e| Fail::msg(format!("-signer: {e}")))
}

/// The responder `-url`, or `-host` with `-path`, names, if any.
fn responder_url(a: &Parsed) -> CmdResult<Option<http::Url>> {
    match (a.value("url"), a.value("host")) {
        (Some(_), Some(_)) => Err(Fail::msg("give -url or -host, not both")),
        (Some(url), None) => http::Url::parse(url).map(Some),
        (None, Some(host)) => http::Url::from_host(host, a.value("path").unwrap_or("/"))
            .map(Some)
            .map_err(|e| Fail::msg(format!("-host {host}: {e}"))),
        (None, None) => Ok(None),
    }
}

/// The certificates asked about: each `-cert` (by its file name) and `-serial` (by its
/// number), with its ID under the last `-issuer`.
fn asked_about(a: &Parsed, hash: HashAlg) -> CmdResult<Vec<(String, CertId)>> {
    let (certs, serials) = (a.values("cert"), a.values("serial"));
    if certs.is_empty() && serials.is_empty() {
        return Ok(Vec::new());
    }
    let issuer = load_cert(
        Some(a.value("issuer").ok_or_else(|| Fail::msg("-cert and -serial need -issuer"))?),
        None,
    )?;
    let mut out = Vec::new();
    for path in certs {
        let cert = load_cert(Some(path), None)?;
        out.push((path.to_string(), CertId::of(&cert, &issuer, hash).map_err(lib)?));
    }
    for text in serials {
        let bytes = serial_bytes(text)?;
        let serial =
            SerialNumber::new(&bytes).map_err(|e| Fail::msg(format!("-serial {text}: {e}")))?;
        out.push((text.to_string(), CertId::new(&issuer, &serial, hash).map_err(lib)?));
    }
    Ok(out)
}

/// A serial number, decimal or `0x` hex, as DER INTEGER content (a leading zero where the
/// top bit is set).
fn serial_bytes(text: &str) -> CmdResult<Vec<u8>> {
    let bad = || Fail::msg(format!("-serial {text}: not a decimal or 0x hex number"));
    let mut magnitude = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(h) => super::ca::db::read_hex(h).map_err(|_| bad())?,
        None => {
            let n: u128 = text.parse().map_err(|_| bad())?;
            n.to_be_bytes().to_vec()
        }
    };
    let zeros = magnitude.iter().take_while(|&&b| b == 0).count().min(magnitude.len() - 1);
    magnitude.drain(..zeros);
    if magnitude[0] & 0x80 != 0 {
        magnitude.insert(0, 0);
    }
    Ok(magnitude)
}

#[cfg(test)]
mod tests {
    use super::serial_bytes;

    #[test]
    fn serials_as_der_integers() {
        assert_eq!(serial_bytes("1").unwrap(), [1]);
        assert_eq!(serial_bytes("0").unwrap(), [0]);
        assert_eq!(serial_bytes("255").unwrap(), [0, 0xff]);
        assert_eq!(serial_bytes("0x0100").unwrap(), [1, 0]);
        assert!(serial_bytes("12a").is_err());
    }
}
