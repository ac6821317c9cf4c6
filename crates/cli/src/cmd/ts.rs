//! `cryptocard ts`: time-stamping (RFC 3161) as `openssl ts` does it, on
//! `cryptocard_pki::ts`.
//!
//! ```text
//! cryptocard ts -query [-data FILE | -digest HEX] [-sha256 ...] [-tspolicy OID] [-no_nonce]
//!               [-cert] [-in REQ.tsq] [-out FILE] [-text] [-config FILE]
//! cryptocard ts -reply [-config FILE] [-section TSA] -queryfile REQ.tsq [-signer CERT]
//!               [-inkey KEY] [-passin ARG] [-chain CERTS] [-tspolicy OID] [-sha256 ...]
//!               [-out FILE] [-token_out] [-text]
//! cryptocard ts -reply -in RESP.tsr [-token_in] [-out FILE] [-token_out] [-text]
//! cryptocard ts -reply -port N [-nrequest N] [-timeout S] [-config FILE] [-section TSA] ...
//! cryptocard ts -reply -queryfile REQ.tsq -url http[s]://HOST[:PORT]/PATH [-timeout S]
//!               [-out FILE] [-token_out] [-text]
//! cryptocard ts -verify (-data FILE | -digest HEX | -queryfile REQ.tsq) -in RESP.tsr
//!               [-token_in] [-CAfile F] [-CApath DIR] [-untrusted F] [-attime SECS]
//! ```
//!
//! A query hashes `-data` (stdin without `-data` or `-digest`) with the digest flag given
//! (SHA-256 by default), asks for a 64-bit nonce unless `-no_nonce`, for the TSA's
//! certificate with `-cert`. A reply answers `-queryfile` as the TSA the configuration's
//! section describes (`-section`, else `[ tsa ] default_tsa`; OpenSSL's keys: `serial`,
//! `signer_cert`, `certs`, `signer_key`, `signer_digest`, `default_policy`,
//! `other_policies`, `digests`, `accuracy`, `clock_precision_digits`, `ordering`,
//! `tsa_name`, `ess_cert_id_chain`, `ess_cert_id_alg`; `crypto_device` must be `builtin`),
//! `-signer`, `-inkey`, `-chain`, `-tspolicy` and the digest flag overriding them; a
//! request the TSA will not serve gets a rejection response (exit status 0, as OpenSSL's),
//! a granted one the next serial number, written back to the serial file only then. The
//! configuration is `-config`, else `$OPENSSL_CONF`, else the system's `openssl.cnf`; its
//! `oid_section` names objects (the TSA's policies) for all three modes. With `-port` the
//! TSA serves requests POSTed over HTTP (RFC 3161 section 3.4, `application/timestamp-query`
//! in, `application/timestamp-reply` out), on 64 threads that each take the next connection,
//! the tokens' RSA operations through the engine so that concurrent clients' batch, serial
//! numbers reserved in the serial file 256 at a time (synced; the last one issued written
//! back on a clean stop), so that no number is issued twice even after a crash; `-url` asks
//! such a TSA (ours, or any RFC 3161 one over HTTP) for the reply to `-queryfile`, as
//! OpenSSL's `tsget` script does. `-verify` prints
//! `Verification: OK`, or `Verification: FAILED` and why (exit status 1), after the
//! checks of `ts::verify`; only `-CAfile` and `-CApath` are trusted (no system roots, as
//! in OpenSSL).

use super::certio::{load_cert, load_conf, read_cert_file, read_trust_file, write_public};
use super::{Spec, no_positional};
use crate::args::{Flag, Parsed};
use crate::cmd::ca::db;
use crate::fail::{CmdResult, Fail};
use crate::http::{self, TSP};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, ReadOptions};
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::engine::Engine;
use cryptocard_pki::asn1::ObjectNames;
use cryptocard_pki::cert::TrustStore;
use cryptocard_pki::cms::VerifyOptions;
use cryptocard_pki::conf::Conf;
use cryptocard_pki::ts::{self, Expect, QueryOptions, Request, Response, Tsa};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SPEC: Spec = Spec {
    usage: "ts -query|-reply|-verify [options]",
    flags: &[
        Flag::value("config", "FILE").about("The configuration file"),
        Flag::value("section", "NAME").about("The TSA's section (default [ tsa ] default_tsa)"),
        Flag::switch("query").about("Make a time-stamp request"),
        Flag::switch("reply").about("Answer a request as a TSA, or print a response"),
        Flag::switch("verify").about("Check a response or token"),
        Flag::value("data", "FILE").about("The data to time-stamp or check"),
        Flag::value("digest", "HEX").about("The data's hash, in hex"),
        Flag::value("queryfile", "FILE").about("A request (DER)"),
        Flag::value("tspolicy", "OID").about("The policy asked for, or the TSA's default"),
        Flag::switch("no_nonce").about("No nonce in the request"),
        Flag::switch("cert").about("Ask for the TSA's certificate in the token"),
        Flag::value("in", "FILE").about("A request (-query) or response (-reply, -verify)"),
        Flag::switch("token_in").about("-in is a token, not a response"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::switch("token_out").about("Write the token, not the response"),
        Flag::switch("text").about("Write text, not DER"),
        Flag::value("signer", "FILE").about("The TSA's certificate"),
        Flag::value("inkey", "FILE").about("The TSA's key"),
        Flag::value("passin", "ARG").about("The key's password source"),
        Flag::value("chain", "FILE").about("The TSA's CA certificates"),
        Flag::value("CAfile", "FILE").about("Trusted certificates"),
        Flag::value("CApath", "DIR").about("A hashed directory of trusted certificates"),
        Flag::value("untrusted", "FILE").about("More certificates to find the TSA's path"),
        Flag::value("attime", "SECS").about("Check the path at this time (Unix seconds)"),
        Flag::value("port", "N").about("-reply: serve time stamps over HTTP on this port"),
        Flag::value("nrequest", "N").about("With -port, stop after N requests"),
        Flag::value("url", "URL").about("-reply: ask the TSA at this http(s):// URL"),
        Flag::value("timeout", "S")
            .about("Seconds for a connection, a write or a whole message (default 30)"),
    ],
    notes: "Digest flags (-sha256, -sha512, ...) name the request's hash and the reply's signature hash.\n",
    more: None,
};

/// Runs `ts`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &|n| HashAlg::from_name(n).is_ok())? else {
        return Ok(());
    };
    no_positional(&a)?;
    let modes: Vec<&str> = ["query", "reply", "verify"].into_iter().filter(|m| a.has(m)).collect();
    let mode = match modes.as_slice() {
        [one] => *one,
        [] => return Err(Fail::msg("Must give one of -query, -reply, or -verify")),
        _ => return Err(Fail::msg("Must give only one of -query, -reply, or -verify")),
    };
    check_args(&a, mode)?;
    let digest = super::certio::digest_flag(&a.dynamic)?;
    let (conf, path) = config(&a, mode == "reply")?;
    let names = match &conf {
        Some(conf) => {
            let (names, warning) = ObjectNames::from_conf(conf);
            if let Some(w) = warning {
                eprintln!("{w}");
            }
            names
        }
        None => ObjectNames::default(),
    };
    match mode {
        "query" => query(&a, digest, &names),
        "reply" if a.value("port").is_some() => {
            let conf = conf.ok_or_else(|| Fail::msg("-port needs a configuration"))?;
            serve(&a, &conf, &path, digest, &names)
        }
        "reply" => reply(&a, conf.as_ref(), &path, digest, &names),
        _ => verify(&a),
    }
}

/// The inputs each mode needs, before anything is read.
fn check_args(a: &Parsed, mode: &str) -> CmdResult {
    let has = |flag: &str| a.value(flag).is_some();
    match mode {
        "query" if has("data") && has("digest") => {
            Err(Fail::msg("give -data or -digest, not both"))
        }
        "reply" if has("in") && has("queryfile") => {
            Err(Fail::msg("give -in or -queryfile, not both"))
        }
        "reply" if has("port") && (has("in") || has("queryfile") || has("url")) => {
            Err(Fail::msg("-port serves requests: not with -in, -queryfile or -url"))
        }
        "reply" if has("url") && !has("queryfile") => Err(Fail::msg("-url needs -queryfile")),
        "reply" if !has("in") && !has("queryfile") && !has("port") => {
            Err(Fail::msg("-reply needs -queryfile, -in or -port"))
        }
        "reply" if !has("in") && a.has("token_in") => {
            Err(Fail::msg("-token_in goes with -in, not -queryfile"))
        }
        "verify" if !has("in") => Err(Fail::msg("-verify needs -in")),
        "verify" if ["queryfile", "data", "digest"].iter().filter(|f| has(f)).count() != 1 => {
            Err(Fail::msg("-verify needs exactly one of -queryfile, -data, -digest"))
        }
        _ => Ok(()),
    }
}

/// The configuration: `-config`, else `$OPENSSL_CONF`, else the system's. Only a reply
/// needs one; for the others a missing default is no configuration.
fn config(a: &Parsed, needed: bool) -> CmdResult<(Option<Conf>, String)> {
    let path = match a.value("config") {
        Some(p) => p.to_string(),
        None => match super::ca::default_config() {
            Ok(p) => p,
            Err(e) if needed => return Err(e),
            Err(_) => return Ok((None, String::new())),
        },
    };
    let conf = load_conf(&path)?;
    eprintln!("Using configuration from {path}");
    Ok((Some(conf), path))
}

fn lib(what: &str) -> impl Fn(cryptocard_pki::Error) -> Fail + '_ {
    move |e| Fail::msg(format!("{what}: {e}"))
}

/// `-query`: a request made (or `-in`'s read), written as DER or text.
fn query(a: &Parsed, digest: Option<HashAlg>, names: &ObjectNames) -> CmdResult {
    let der = match a.value("in") {
        Some(path) => {
            let der = io::read_capped(Some(path), "a time-stamp request", io::MAX_CERT_INPUT)?;
            Request::parse(&der).map_err(lib(path))?;
            der
        }
        None => {
            let hash = digest.unwrap_or(HashAlg::Sha256);
            let imprint = match (a.value("data"), a.value("digest")) {
                (data, None) => hash_file(data, hash)?,
                (_, Some(hex)) => {
                    let bytes = hex_bytes(hex)?;
                    if bytes.len() != hash.output_len() {
                        return Err(Fail::msg(format!(
                            "bad digest, {} bytes must be specified",
                            hash.output_len()
                        )));
                    }
                    bytes
                }
            };
            let policy = a.value("tspolicy").map(|p| policy_oid(p, names)).transpose()?;
            let opts = QueryOptions { policy, nonce: !a.has("no_nonce"), cert_req: a.has("cert") };
            ts::query(hash, &imprint, &opts).map_err(lib("could not create query"))?
        }
    };
    match a.has("text") {
        true => write_public(
            a.value("out"),
            ts::request_text(&der, names).map_err(lib("the request"))?.as_bytes(),
        ),
        false => write_public(a.value("out"), &der),
    }
}

/// The hash of the file `path` (stdin for `None`), read in chunks.
fn hash_file(path: Option<&str>, hash: HashAlg) -> CmdResult<Vec<u8>> {
    let mut hasher = Hasher::new(hash);
    let mut input = io::open_input(path)?;
    io::for_each_chunk(&mut input, io::input_name(path), |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize().as_bytes().to_vec())
}

/// Hex digits, as OpenSSL's `OPENSSL_hexstr2buf` reads them (colons between bytes
/// allowed).
fn hex_bytes(text: &str) -> CmdResult<Vec<u8>> {
    crate::hex::decode(&text.replace(':', ""))
        .map_err(|why| Fail::msg(format!("-digest: invalid digest string: {why}")))
}

/// A policy by name (of the configuration or OpenSSL's table) or dotted decimal.
fn policy_oid(text: &str, names: &ObjectNames) -> CmdResult<const_oid::ObjectIdentifier> {
    names.parse(text).ok_or_else(|| Fail::msg(format!("cannot convert {text} to OID")))
}

/// `-reply`: a response made for `-queryfile`, or `-in`'s read, written as DER or text.
fn reply(
    a: &Parsed,
    conf: Option<&Conf>,
    conf_path: &str,
    digest: Option<HashAlg>,
    names: &ObjectNames,
) -> CmdResult {
    let response = match (a.value("in"), a.value("queryfile")) {
        (Some(path), _) => {
            let der = io::read_capped(Some(path), "a time-stamp response", io::MAX_CERT_INPUT)?;
            let read =
                if a.has("token_in") { Response::from_token(&der) } else { Response::parse(&der) };
            read.map_err(lib(path))?
        }
        (None, None) => return Err(Fail::msg("-reply needs -queryfile or -in")),
        (None, Some(query)) if a.value("url").is_some() => ask(a, query)?,
        (None, Some(query)) => {
            let conf = conf.ok_or_else(|| Fail::msg("-reply needs a configuration"))?;
            match respond(a, conf, conf_path, query, digest, names) {
                Ok(r) => {
                    eprintln!("Response has been generated.");
                    r
                }
                Err(e) => {
                    eprintln!("Response is not generated.");
                    return Err(e);
                }
            }
        }
    };
    let out = match (a.has("text"), a.has("token_out")) {
        (true, false) => response.text(names).into_bytes(),
        (true, true) => response
            .tst_info_text(names)
            .ok_or_else(|| Fail::msg("the response has no token"))?
            .into_bytes(),
        (false, false) => response.to_der().map_err(lib("the response"))?,
        (false, true) => {
            response.token().ok_or_else(|| Fail::msg("the response has no token"))?.to_vec()
        }
    };
    write_public(a.value("out"), &out)
}

/// The TSA of the configuration section, answering the request in `query`; the serial
/// file advanced when a token is granted.
fn respond(
    a: &Parsed,
    conf: &Conf,
    conf_path: &str,
    query: &str,
    digest: Option<HashAlg>,
    names: &ObjectNames,
) -> CmdResult<Response> {
    let request = io::read_capped(Some(query), "a time-stamp request", io::MAX_CERT_INPUT)?;
    let (tsa, serial_path) = load_tsa(a, conf, conf_path, digest, names)?;
    let mut serial = None;
    let reply = tsa
        .reply(
            &request,
            &mut || {
                serial = next_serial(&serial_path);
                serial.clone()
            },
            SystemTime::now(),
        )
        .map_err(lib("the response"))?;
    if reply.granted
        && let Some(s) = serial
    {
        save_serial(&serial_path, &s)?;
    }
    Response::parse(&reply.der).map_err(lib("the response"))
}

/// Writes `serial` (big-endian magnitude) to `path` as OpenSSL writes its serial files.
fn save_serial(path: &str, serial: &[u8]) -> CmdResult {
    let mut out = Output::create(Some(path), Mode::Public)?;
    out.put(format!("{}\n", db::hex(serial)).as_bytes())?;
    out.commit()
}

/// `-reply -port`: the TSA answers POSTed requests (RFC 3161 section 3.4) on 64 threads,
/// the tokens' RSA operations through the engine so that those of concurrent
/// clients batch; serial numbers come from [`Serials`].
fn serve(
    a: &Parsed,
    conf: &Conf,
    conf_path: &str,
    digest: Option<HashAlg>,
    names: &ObjectNames,
) -> CmdResult {
    let port = a.parsed::<u16>("port")?.unwrap_or(0);
    let count = a.parsed::<u64>("nrequest")?.unwrap_or(0);
    let timeout = Duration::from_secs(a.parsed::<u64>("timeout")?.unwrap_or(30).max(1));
    let (tsa, serial_path) = load_tsa(a, conf, conf_path, digest, names)?;
    let engine = Engine::builder().build().map_err(|e| Fail::lib("the engine", e))?;
    let serials = Mutex::new(Serials::open(serial_path)?);
    let answer = |request: &[u8]| -> CmdResult<Vec<u8>> {
        let mut serial = || {
            let mut serials = serials.lock().unwrap_or_else(|p| p.into_inner());
            serials.take().map_err(|e| eprintln!("ts: {}", e.line("ts").unwrap_or_default())).ok()
        };
        let reply = tsa.reply_on(&engine, request, &mut serial, SystemTime::now());
        Ok(reply.map_err(lib("the response"))?.der)
    };
    http::serve_concurrently(port, count, timeout, &TSP, MAX_CONNECTIONS, answer)?;
    serials.into_inner().unwrap_or_else(|p| p.into_inner()).close()
}

/// The most connections `-port` works on at once.
const MAX_CONNECTIONS: usize = 64;

/// The serial numbers a serving TSA hands out. The file is written (and synced) once a
/// block of [`SERIAL_BLOCK`] numbers, the last of the block in it, so that after a crash
/// the next run starts past every number handed out and no serial is ever issued twice;
/// a clean stop writes back the last one issued.
struct Serials {
    path: String,
    /// The next number to hand out (big-endian magnitude).
    next: Vec<u8>,
    /// How many numbers from `next` on are reserved in the file.
    reserved: u32,
    /// The last number handed out, if any.
    last: Option<Vec<u8>>,
}

/// Serial numbers reserved a file write.
const SERIAL_BLOCK: u32 = 256;

impl Serials {
    fn open(path: String) -> CmdResult<Serials> {
        let next = next_serial(&path)
            .ok_or_else(|| Fail::msg(format!("{path}: unable to load number")))?;
        Ok(Serials { path, next, reserved: 0, last: None })
    }

    /// The next serial number, a block reserved in the file first where none is left.
    fn take(&mut self) -> CmdResult<Vec<u8>> {
        if self.reserved == 0 {
            let mut end = self.next.clone();
            for _ in 1..SERIAL_BLOCK {
                end = db::increment(&end);
            }
            save_serial(&self.path, &end)?;
            self.reserved = SERIAL_BLOCK;
        }
        let serial = std::mem::take(&mut self.next);
        self.next = db::increment(&serial);
        self.reserved -= 1;
        self.last = Some(serial.clone());
        Ok(serial)
    }

    /// Writes back the last number handed out (the file then says what OpenSSL's would).
    fn close(self) -> CmdResult {
        match self.last {
            Some(last) => save_serial(&self.path, &last),
            None => Ok(()),
        }
    }
}

/// `-reply -queryfile Q -url U`: the response of the TSA at `U`.
fn ask(a: &Parsed, query: &str) -> CmdResult<Response> {
    let url = http::Url::parse(a.value("url").unwrap_or_default())?;
    let timeout = Duration::from_secs(a.parsed::<u64>("timeout")?.unwrap_or(30).max(1));
    let request = io::read_capped(Some(query), "a time-stamp request", io::MAX_CERT_INPUT)?;
    Request::parse(&request).map_err(lib(query))?;
    let der = http::post(&url, &TSP, &request, &[], timeout)?;
    Response::parse(&der).map_err(|e| Fail::msg(format!("the TSA's answer: {e}")))
}

/// The TSA of the configuration section (`-section`, else `[ tsa ] default_tsa`), and
/// its serial file.
fn load_tsa(
    a: &Parsed,
    conf: &Conf,
    conf_path: &str,
    digest: Option<HashAlg>,
    names: &ObjectNames,
) -> CmdResult<(Tsa, String)> {
    let section = match a.value("section") {
        Some(s) => s.to_string(),
        None => conf
            .get("tsa", "default_tsa")
            .ok_or_else(|| Fail::msg("variable lookup failed for tsa::default_tsa"))?
            .to_string(),
    };
    let get = |name: &str| conf.get(&section, name);
    let need = |name: &str| {
        get(name).ok_or_else(|| Fail::msg(format!("variable lookup failed for {section}::{name}")))
    };
    let invalid = |name: &str| Fail::msg(format!("invalid variable value for {section}::{name}"));
    if get("crypto_device").is_some_and(|d| d != "builtin") {
        return Err(Fail::msg(format!("{section}::crypto_device: only builtin is offered")));
    }
    let serial_path = need("serial")?.to_string();
    let signer = load_cert(Some(a.value("signer").map_or_else(|| need("signer_cert"), Ok)?), None)?;
    let chain = match a.value("chain").or(get("certs")) {
        Some(path) => read_cert_file(Some(path)).map_err(Fail::msg)?,
        None => Vec::new(),
    };
    let key_path = a.value("inkey").map_or_else(|| need("signer_key"), Ok)?;
    let key = keyfile::load_private(
        Some(key_path),
        None,
        a.value("passin"),
        &ReadOptions::from_args(a)?,
    )?;
    let signer_digest = match digest {
        Some(h) => h,
        None => HashAlg::from_name(need("signer_digest")?).map_err(|_| invalid("signer_digest"))?,
    };
    let ess_cert_id_alg = match get("ess_cert_id_alg") {
        Some(name) => HashAlg::from_name(name).map_err(|_| invalid("ess_cert_id_alg"))?,
        None => HashAlg::Sha256,
    };
    let policy_text = a.value("tspolicy").map_or_else(|| need("default_policy"), Ok)?;
    let default_policy = names.parse(policy_text).ok_or_else(|| invalid("default_policy"))?;
    let other_policies = list(get("other_policies"))
        .map(|p| names.parse(p).ok_or_else(|| invalid("other_policies")))
        .collect::<CmdResult<Vec<_>>>()?;
    let digests = list(Some(need("digests")?))
        .map(|d| HashAlg::from_name(d).map_err(|_| invalid("digests")))
        .collect::<CmdResult<Vec<_>>>()?;
    if digests.is_empty() {
        return Err(invalid("digests"));
    }
    let mut accuracy = ts::Accuracy::default();
    for item in list(get("accuracy")) {
        let (name, value) =
            item.split_once(':').map_or((item, None), |(n, v)| (n.trim(), Some(v.trim())));
        let value = value.map(atoi).unwrap_or(0);
        match name {
            "secs" => accuracy.seconds = value,
            "millisecs" => accuracy.millis = value,
            "microsecs" => accuracy.micros = value,
            _ => return Err(invalid("accuracy")),
        }
    }
    let clock_precision_digits = match get("clock_precision_digits") {
        None => 0,
        Some(v) => v
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|d| *d <= ts::MAX_CLOCK_PRECISION_DIGITS)
            .ok_or_else(|| invalid("clock_precision_digits"))?,
    };
    let flag = |name: &str| match get(name) {
        None | Some("no") => Ok(false),
        Some("yes") => Ok(true),
        Some(_) => Err(invalid(name)),
    };
    let mut tsa = Tsa::new(Arc::new(key), signer, default_policy).map_err(lib(conf_path))?;
    tsa.chain = chain;
    tsa.signer_digest = signer_digest;
    tsa.ess_cert_id_alg = ess_cert_id_alg;
    tsa.ess_cert_id_chain = flag("ess_cert_id_chain")?;
    tsa.other_policies = other_policies;
    tsa.digests = digests;
    tsa.accuracy = accuracy;
    tsa.clock_precision_digits = clock_precision_digits;
    tsa.ordering = flag("ordering")?;
    tsa.tsa_name = flag("tsa_name")?;
    Ok((tsa, serial_path))
}

/// The items of a comma-separated list (OpenSSL's `X509V3_parse_list`, values trimmed).
fn list(value: Option<&str>) -> impl Iterator<Item = &str> {
    value.unwrap_or("").split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// C's `atoi` as OpenSSL applies it to accuracy values: leading digits, 0 for none.
fn atoi(text: &str) -> u32 {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    match digits.is_empty() {
        true => 0,
        false => digits.parse().unwrap_or(u32::MAX),
    }
}

/// The serial after the one in `path` (hex), or 1 where there is no file (OpenSSL's
/// warning then); `None` for a file that does not hold a number.
fn next_serial(path: &str) -> Option<Vec<u8>> {
    if !std::path::Path::new(path).exists() {
        eprintln!("Warning: could not open file {path} for reading, using serial number: 1");
        return Some(vec![1]);
    }
    match db::read_number(path) {
        Ok(n) => Some(db::increment(&n)),
        Err(_) => {
            eprintln!("unable to load number from {path}");
            None
        }
    }
}

/// `-verify`: the checks of `ts::verify`, reported on one line.
fn verify(a: &Parsed) -> CmdResult {
    let in_path = a.value("in").ok_or_else(|| Fail::msg("-verify needs -in"))?;
    match check(a, in_path) {
        Ok(()) => {
            println!("Verification: OK");
            Ok(())
        }
        Err(e) => {
            println!("Verification: FAILED");
            eprintln!("{}", e.line("ts").unwrap_or_default());
            Err(Fail::silent(1))
        }
    }
}

fn check(a: &Parsed, in_path: &str) -> CmdResult {
    let der = io::read_capped(Some(in_path), "a time-stamp response", io::MAX_CERT_INPUT)?;
    let response = match a.has("token_in") {
        true => Response::from_token(&der),
        false => Response::parse(&der),
    }
    .map_err(lib(in_path))?;
    let mut trusted = Vec::new();
    for path in a.values("CAfile") {
        trusted.extend(read_trust_file(path).map_err(Fail::msg)?.0);
    }
    for dir in a.values("CApath") {
        trusted.extend(super::verify::hashed_dir(dir)?.0);
    }
    let (trusted, mut untrusted) = TrustStore::new(trusted, false).into_parts();
    for path in a.values("untrusted") {
        untrusted.extend(read_cert_file(Some(path)).map_err(Fail::msg)?);
    }
    let at = a.parsed::<u64>("attime")?.map(|s| UNIX_EPOCH + Duration::from_secs(s));
    let opts = VerifyOptions { trusted, untrusted, at, ..Default::default() };
    let request;
    let digest;
    let mut data;
    let expect = if let Some(path) = a.value("queryfile") {
        let der = io::read_capped(Some(path), "a time-stamp request", io::MAX_CERT_INPUT)?;
        request = Request::parse(&der).map_err(lib(path))?;
        Expect::Request(&request)
    } else if let Some(hex) = a.value("digest") {
        digest = hex_bytes(hex)?;
        Expect::Digest(&digest)
    } else {
        data = io::open_input(a.value("data"))?;
        Expect::Data(&mut data)
    };
    ts::verify(&response, expect, &opts).map_err(|e| Fail::msg(e.to_string()))?;
    Ok(())
}
