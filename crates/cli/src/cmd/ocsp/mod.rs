//! `cryptocard ocsp`: OCSP requests, a CA's responder, and the checks of a response
//! (RFC 6960), as `openssl ocsp` does them without a network (`cryptocard_pki::ocsp`).
//!
//! ```text
//! cryptocard ocsp -issuer CA.pem -cert CERT.pem ... [-serial N ...] [-no_nonce] [-sha256]
//!                 [-reqout REQ.der]                                  # a request
//! cryptocard ocsp -index index.txt -CA CA.pem -rsigner R.pem [-rkey K.pem] [-rother F]
//!                 [-reqin REQ.der | -issuer CA.pem -cert CERT.pem] [-ndays N] [-nmin N]
//!                 [-resp_key_id] [-resp_no_certs] -respout RESP.der  # a responder's answer
//! cryptocard ocsp -respin RESP.der [-CAfile F] [-verify_other F] [-VAfile F] [-noverify]
//!                 [-partial_chain] [-issuer CA.pem -cert CERT.pem ...] [-no_nonce]
//! cryptocard ocsp -url http://HOST[:PORT]/PATH [-header N=V] [-timeout S] [-respout F]
//!                 -issuer CA.pem -cert CERT.pem ... [checks as with -respin]  # a client
//! cryptocard ocsp -port N [-nrequest N] [-timeout S] -index index.txt -CA CA.pem
//!                 -rsigner R.pem ...                                   # a responder server
//! ```
//!
//! A request asks about each `-cert` (or `-serial`) of the `-issuer` given last, its
//! certificate ID hashed with SHA-1 unless `-sha256` (or another digest flag) says
//! otherwise, with a 16-byte nonce unless `-no_nonce`. As a responder (`-index`, a CA
//! database as `ca` and `openssl ca` keep it), it answers each certificate of the request
//! (`-reqin`, or the one made from `-cert`) that `-CA` issued: `good` for a valid row,
//! `revoked` with the row's date and reason, `unknown` for any other certificate, signed
//! by `-rsigner` (the CA itself, or a certificate it issued for OCSP signing), the nonce
//! echoed, nextUpdate `-ndays`/`-nmin` later if given. Reading a response (`-respin`), it
//! says `Response verify OK` (or `Response Verify Failure` and why, exit status 1) on
//! stderr after the checks of `ocsp::verify_response`, then for each `-cert` its status as
//! OpenSSL prints it (`good`, the update times, a revocation's reason and time), with
//! `WARNING: Status times invalid.` where thisUpdate is ahead or nextUpdate behind by more
//! than five minutes (and `ERROR: No Status found.` for one the response does not
//! answer, exit status 1); a nonce sent and not echoed is a warning, one echoed
//! differently an error. With `-url` (or `-host` and `-path`) the request is POSTed to a
//! responder and its answer checked as `-respin` would be; with `-port` the responder
//! serves requests over HTTP (`http`), rereading the database when it changes, until
//! `-nrequest` requests if given. `-req_text`, `-resp_text` and `-text` print the request
//! and the response as OpenSSL does (`ocsp::request_text`, `ocsp::response_text`). Not
//! offered: HTTPS and signed requests (`-signer`).

use super::ca::db::{Index, hex};
use super::ca::revoke::Revocation;
use super::certio::{load_cert, read_cert_file, write_public};
use super::{Spec, digest_by_name, no_positional};
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::http::{self, OCSP};
use crate::io;
use crate::keyfile::{self, ReadOptions};
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard_pki::cert::{Certificate, time_text};
use cryptocard_pki::ocsp::{self, CertId, ResponseBuilder, ResponseStatus, ResponseVerify, Status};
use std::time::{Duration, SystemTime};
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

const SPEC: Spec = Spec {
    usage: "ocsp [options]",
    flags: &[
        Flag::value("issuer", "FILE").about("The issuer of the certificates asked about"),
        Flag::value("cert", "FILE").about("A certificate to ask about (repeat)"),
        Flag::value("serial", "N").about("A serial number to ask about (repeat; 0x for hex)"),
        Flag::switch("no_nonce").about("No nonce in the request (nor its check)"),
        Flag::switch("nonce").about("A nonce in the request (the default)"),
        Flag::value("digest", "NAME").about("Hash of the certificate IDs (default sha1)"),
        Flag::value("reqout", "FILE").about("Write the request (DER)"),
        Flag::value("reqin", "FILE").about("Read a request (DER)"),
        Flag::value("index", "FILE").about("Answer from this CA database"),
        Flag::value("CA", "FILE").about("The CA certificates the database is of"),
        Flag::value("rsigner", "FILE").about("The responder's certificate"),
        Flag::value("rkey", "FILE").about("The responder's key (default: -rsigner's file)"),
        Flag::value("rother", "FILE").about("More certificates for the response"),
        Flag::value("ndays", "N").about("nextUpdate this many days on"),
        Flag::value("nmin", "N").about("nextUpdate this many minutes on"),
        Flag::switch("resp_key_id").about("Name the responder by its key's hash"),
        Flag::switch("resp_no_certs").about("Leave the responder's certificate out"),
        Flag::value("respout", "FILE").about("Write the response (DER)"),
        Flag::value("respin", "FILE").about("Read a response (DER) and check it"),
        Flag::value("CAfile", "FILE").about("Trust anchors for the responder's path"),
        Flag::value("verify_other", "FILE").about("More certificates to find the responder"),
        Flag::value("VAfile", "FILE").about("Responder certificates trusted as they are"),
        Flag::switch("noverify").about("Do not check the response"),
        Flag::switch("partial_chain").about("Any -CAfile certificate may end a path"),
        Flag::value("passin", "ARG").about("The responder key's password source"),
        Flag::value("url", "URL").about("POST the request to this http:// responder"),
        Flag::value("host", "HOST:PORT").about("POST the request to this responder"),
        Flag::value("path", "PATH").about("The path with -host (default /)"),
        Flag::value("header", "NAME=VALUE").about("An HTTP header for -url (repeat)"),
        Flag::value("timeout", "S")
            .about("Seconds for a connection, a write or a whole message (default 30)"),
        Flag::value("port", "N").about("Serve -index's answers over HTTP on this port"),
        Flag::value("nrequest", "N").about("With -port, stop after N requests"),
        Flag::switch("req_text").about("Print the request as text"),
        Flag::switch("resp_text").about("Print the response as text"),
        Flag::switch("text").about("Print the request and the response as text"),
    ],
    notes: "Digest flags (-sha1, -sha256, ...) name the certificate IDs' hash too.\n",
    more: None,
};

/// The digest flags `openssl ocsp` takes for the certificate IDs' hash.
const DIGEST_FLAGS: [&str; 6] = ["sha1", "sha224", "sha256", "sha384", "sha512", "md5"];

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
    let hash = match a.value("digest") {
        Some(name) => digest_by_name(name)?,
        None => HashAlg::Sha1,
    };
    let asked = asked_about(&a, hash)?;
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
    if let Some(path) = a.value("reqout") {
        let req = made.as_ref().ok_or_else(|| Fail::msg("-reqout: give -issuer and -cert"))?;
        write_public(Some(path), req)?;
    }
    // The request to answer or send: -reqin's, or the one made.
    let request = match a.value("reqin") {
        Some(path) => Some(io::read_capped(Some(path), "an OCSP request", io::MAX_CERT_INPUT)?),
        None => made.clone(),
    };
    if let Some(req) = request.as_ref().filter(|_| a.has("req_text") || a.has("text")) {
        print!("{}", ocsp::request_text(req).map_err(|e| Fail::msg(format!("the request: {e}")))?);
    }
    let timeout = Duration::from_secs(a.parsed::<u64>("timeout")?.unwrap_or(30).max(1));
    if a.has("index") {
        let mut responder = Responder::load(&a)?;
        if let Some(port) = a.parsed::<u16>("port")? {
            let count = a.parsed::<u64>("nrequest")?.unwrap_or(0);
            return http::serve(port, count, timeout, &OCSP, |request| responder.answer(request));
        }
        let request =
            request.ok_or_else(|| Fail::msg("-index: give -reqin, or -issuer and -cert"))?;
        let out = a.value("respout").ok_or_else(|| Fail::msg("-index needs -respout"))?;
        let (parsed, unreadable) = match ocsp::parse_request(&request) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        };
        let response = responder.respond(parsed)?;
        write_public(Some(out), &response)?;
        if a.has("resp_text") || a.has("text") {
            print!("{}", ocsp::response_text(&response).map_err(lib)?);
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
    if let Some(url) = responder_url(&a)? {
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
        let sent_nonce = made.is_some().then_some(nonce).flatten();
        return check_response(&a, "the response", &response, &asked, sent_nonce);
    }
    if let Some(path) = a.value("respin") {
        let der = io::read_capped(Some(path), "an OCSP response", io::MAX_CERT_INPUT)?;
        let sent_nonce = made.is_some().then_some(nonce).flatten();
        return check_response(&a, path, &der, &asked, sent_nonce);
    }
    if made.is_none() && a.value("reqin").is_none() {
        return Err(Fail::msg(
            "nothing to do: give -cert or -serial (with -issuer), -index or -respin",
        ));
    }
    Ok(())
}

fn lib(e: cryptocard_pki::Error) -> Fail {
    Fail::msg(e.to_string())
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

/// A responder: the CA database `-index` of the `-CA` certificates, answering as
/// `-rsigner` with its key.
struct Responder {
    index_path: String,
    index: Index,
    /// When `index_path` was last read (a changed file is read again).
    read_at: Option<SystemTime>,
    cas: Vec<Certificate>,
    signer: Certificate,
    key: cryptocard::rsa::RsaPrivateKey,
    other: Vec<Certificate>,
    next_update: Option<Duration>,
    by_key: bool,
    include_certs: bool,
}

impl Responder {
    fn load(a: &Parsed) -> CmdResult<Responder> {
        let need =
            |flag: &str| a.value(flag).ok_or_else(|| Fail::msg(format!("-index needs -{flag}")));
        let index_path = need("index")?.to_string();
        let index = Index::load(&index_path, None)?;
        let cas = read_cert_file(Some(need("CA")?)).map_err(Fail::msg)?;
        let signer_path = need("rsigner")?;
        let signer = load_cert(Some(signer_path), None)?;
        let opts = ReadOptions::from_args(a)?;
        let key_path = a.value("rkey").unwrap_or(signer_path);
        let key = keyfile::load_private(Some(key_path), None, a.value("passin"), &opts)?;
        let other = match a.value("rother") {
            Some(path) => read_cert_file(Some(path)).map_err(Fail::msg)?,
            None => Vec::new(),
        };
        let days = a.parsed::<u32>("ndays")?;
        let minutes = a.parsed::<u32>("nmin")?;
        let next_update = (days.is_some() || minutes.is_some()).then(|| {
            Duration::from_secs(
                u64::from(days.unwrap_or(0)) * 86_400 + u64::from(minutes.unwrap_or(0)) * 60,
            )
        });
        Ok(Responder {
            read_at: modified(&index_path),
            index_path,
            index,
            cas,
            signer,
            key,
            other,
            next_update,
            by_key: a.has("resp_key_id"),
            include_certs: !a.has("resp_no_certs"),
        })
    }

    /// The response to `request` (DER), as [`Responder::respond`] gives it.
    fn answer(&mut self, request: &[u8]) -> CmdResult<Vec<u8>> {
        self.respond(ocsp::parse_request(request).ok())
    }

    /// The response to a request read (`None`: one that could not be): each certificate's
    /// status, signed, or the malformedRequest status.
    fn respond(&mut self, request: Option<ocsp::ParsedRequest>) -> CmdResult<Vec<u8>> {
        let Some(parsed) = request else {
            return ocsp::error_response(ResponseStatus::MalformedRequest).map_err(lib);
        };
        self.reread();
        let now = SystemTime::now();
        let mut builder = ResponseBuilder::new(now)
            .nonce(parsed.nonce)
            .by_key(self.by_key)
            .include_certs(self.include_certs);
        if let Some(after) = self.next_update {
            builder = builder.next_update(now + after);
        }
        for id in parsed.ids {
            let status = match self.cas.iter().any(|ca| id.issued_by(ca)) {
                false => Status::Unknown,
                true => row_status(&self.index, &id)?,
            };
            builder = builder.answer(id, status);
        }
        builder.sign(&self.signer, &self.key, &self.other).map_err(lib)
    }

    /// Reads the database again if its file changed since (a revocation while serving);
    /// one that cannot be read now leaves the last one in use, with a warning.
    fn reread(&mut self) {
        let now = modified(&self.index_path);
        if now == self.read_at {
            return;
        }
        match Index::load(&self.index_path, None) {
            Ok(index) => (self.index, self.read_at) = (index, now),
            Err(e) => {
                eprintln!("ocsp: kept the last database: {}", e.line("ocsp").unwrap_or_default())
            }
        }
    }
}

/// When `path` was last modified, if it can be told.
fn modified(path: &str) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The status the database gives the certificate `id` names.
fn row_status(index: &Index, id: &CertId) -> CmdResult<Status> {
    let serial = hex(id.serial_number.as_bytes());
    let Some(row) = index.by_serial(&serial).map(|i| &index.rows[i]) else {
        return Ok(Status::Unknown);
    };
    match row.status {
        'V' => Ok(Status::Good),
        'R' => {
            let r = Revocation::parse(&row.revoked)?;
            Ok(Status::Revoked { at: r.at.to_system_time(), reason: r.reason })
        }
        _ => Ok(Status::Unknown),
    }
}

/// How far thisUpdate may be ahead and nextUpdate behind (OpenSSL's `-validity_period`
/// default, RFC 6960 4.2.2.1's "local clock" allowance).
const CLOCK_SLACK: Duration = Duration::from_secs(300);

/// Checks the response `der` (from `path`, for messages) and prints each asked
/// certificate's status.
fn check_response(
    a: &Parsed,
    path: &str,
    der: &[u8],
    asked: &[(String, CertId)],
    sent_nonce: Option<[u8; 16]>,
) -> CmdResult {
    let status = ocsp::response_status(der).map_err(|e| Fail::msg(format!("{path}: {e}")))?;
    if status != ResponseStatus::Successful {
        println!("Responder Error: {} ({})", status.as_str(), status as u32);
        return Err(Fail::silent(1));
    }
    if a.has("resp_text") || a.has("text") {
        print!("{}", ocsp::response_text(der).map_err(|e| Fail::msg(format!("{path}: {e}")))?);
    }
    let certs = |flag: &str| -> CmdResult<Vec<Certificate>> {
        let mut all = Vec::new();
        for p in a.values(flag) {
            all.extend(read_cert_file(Some(p)).map_err(Fail::msg)?);
        }
        Ok(all)
    };
    let mut untrusted = certs("verify_other")?;
    let va = certs("VAfile")?;
    let trust_untrusted = !va.is_empty();
    untrusted.extend(va);
    let opts = ResponseVerify {
        trusted: certs("CAfile")?,
        partial_chain: a.has("partial_chain"),
        untrusted,
        trust_untrusted,
        at: SystemTime::now(),
        no_verify: a.has("noverify"),
    };
    // Read first, unchecked: the nonce is compared before the checks, as OpenSSL does.
    let unchecked = ResponseVerify { no_verify: true, ..opts.clone() };
    let verified =
        ocsp::verify_response(der, &unchecked).map_err(|e| Fail::msg(format!("{path}: {e}")))?;
    let mut failed = false;
    if !opts.no_verify {
        if let Some(sent) = sent_nonce {
            let want = [&[0x04, 0x10][..], &sent].concat();
            match verified.nonce.as_deref() {
                None => eprintln!("WARNING: no nonce in response"),
                Some(n) if n != want.as_slice() => {
                    eprintln!("Nonce Verify error");
                    return Err(Fail::silent(1));
                }
                Some(_) => {}
            }
        }
        // As OpenSSL, a response that fails is tried again with the -issuer certificates
        // trusted as responders.
        let issuer = a.value("issuer").map(|p| load_cert(Some(p), None)).transpose()?;
        let retried = || match &issuer {
            Some(issuer) => {
                let opts = ResponseVerify {
                    untrusted: vec![issuer.clone()],
                    trust_untrusted: true,
                    ..opts.clone()
                };
                ocsp::verify_response(der, &opts)
            }
            None => Err(cryptocard_pki::Error::Verify("no -issuer to trust".into())),
        };
        match ocsp::verify_response(der, &opts).or_else(|e| retried().map_err(|_| e)) {
            Ok(_) => eprintln!("Response verify OK"),
            Err(e) => {
                eprintln!("Response Verify Failure\n{e}");
                failed = true;
            }
        }
    }
    let now = SystemTime::now();
    let mut out = String::new();
    for (name, id) in asked {
        out.push_str(&format!("{name}: "));
        let Some(answer) = verified.statuses.iter().find(|s| s.id.same_certificate(id)) else {
            out.push_str("ERROR: No Status found.\n");
            failed = true;
            continue;
        };
        let ahead = answer.this_update > now + CLOCK_SLACK;
        let behind = answer.next_update.is_some_and(|n| n + CLOCK_SLACK < now);
        if ahead || behind {
            out.push_str("WARNING: Status times invalid.\n");
        }
        out.push_str(&format!(
            "{}\n\tThis Update: {}\n",
            answer.status.as_str(),
            when(answer.this_update)
        ));
        if let Some(next) = answer.next_update {
            out.push_str(&format!("\tNext Update: {}\n", when(next)));
        }
        if let Status::Revoked { at, reason } = answer.status {
            if let Some(reason) = reason {
                out.push_str(&format!("\tReason: {}\n", ocsp::reason_str(reason)));
            }
            out.push_str(&format!("\tRevocation Time: {}\n", when(at)));
        }
    }
    print!("{out}");
    if failed { Err(Fail::silent(1)) } else { Ok(()) }
}

/// A time as OpenSSL prints a GeneralizedTime.
fn when(t: SystemTime) -> String {
    cryptocard::rsa::spki::der::asn1::GeneralizedTime::from_system_time(t)
        .map(|g| time_text(&Time::GeneralTime(g)))
        .unwrap_or_else(|_| "(out of range)".into())
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
