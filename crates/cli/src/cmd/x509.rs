//! `cryptocard x509`: print, convert and issue certificates, as `openssl x509`.
//!
//! ```text
//! cryptocard x509 [-in F] [-inform PEM|DER] [-out F] [-outform PEM|DER] [-noout]
//!                 [-text] [-pubkey] [-fingerprint [-sha256 ...]] [-subject] [-issuer]
//!                 [-serial] [-dates] [-startdate] [-enddate] [-modulus] [-checkend N]
//!                 [-hash] [-subject_hash] [-issuer_hash] [-subject_hash_old] [-issuer_hash_old]
//!                 [-ext NAMES] [-email] [-ocsp_uri] [-ocspid] [-purpose] [-next_serial] [-nocert]
//!                 [-nameopt OPTS] [-certopt OPTS] [-dateopt rfc_822|iso_8601]
//!                 [-checkhost NAME] [-checkemail ADDR] [-checkip ADDR]
//! cryptocard x509 -req -in CSR (-CA CERT -CAkey KEY | -signkey KEY) [-days N]
//!                 [-set_serial N | -CAcreateserial] [-sha256 ...] [-sigopt ...] [-out F]
//!                 [-copy_extensions none|copy|copyall] [-extfile F [-extensions SECT]]
//! ```
//!
//! The printing options print in the order given, as OpenSSL's do (one given twice
//! where it was last given; `-hash` is `-subject_hash`, `-dates` `-startdate -enddate`):
//! `subject=C = US, ...` (in the form `-nameopt` asks for),
//! `issuer=...`, `serial=0A1B...`, `notBefore=Nov 27 10:53:54 2026 GMT` and `notAfter=`,
//! `SHA1 Fingerprint=AB:CD:...` (labelled with the digest flag as typed when one is
//! given), `Modulus=C3A1...`, the extensions `-ext` names (as in `-text`, less its indent;
//! `No extensions in certificate` on stderr if it has none of them), the name hashes (`cert::name_hash`, `9d66eef0`), the
//! public key (PEM), the `-text` dump, the email addresses and OCSP responders one a
//! line, `-ocspid`'s hashes, the purposes it may serve (`cert::purposes_text`), the
//! serial after this one; then the
//! certificate, unless `-noout` or `-nocert`. `-checkend N` instead ends with `Certificate will
//! expire` (exit status 1) if notAfter is at most N seconds away, else `Certificate will
//! not expire`, and writes no certificate, as OpenSSL does. `-checkhost`, `-checkemail`
//! and `-checkip` say whether the certificate is for that name (`Hostname NAME does
//! match certificate`, or `does NOT match`) and, as in OpenSSL 3.0, leave the exit status
//! alone. `-certopt` leaves parts of `-text` out as OpenSSL's does (`no_header`,
//! `no_version`, `no_serial`, `no_signame`, `no_issuer`, `no_validity`, `no_subject`,
//! `no_pubkey`, `no_extensions`, `no_sigdump`; `ca_default`, `compatible`) and prints the
//! extensions it does not decode as `<Not Supported>`, listed or dumped (`ext_error`,
//! `ext_parse`, `ext_dump`).
//!
//! `-req` issues a certificate from a request whose self-signature verifies, with the
//! request's subject and key and an end-entity profile (key identifiers, basicConstraints
//! CA:FALSE; requested extensions are not copied), signed by `-CA`/`-CAkey` (whose key
//! must match) or self-signed with `-signkey`; 30 days unless `-days`, a random 20-byte
//! serial unless `-set_serial`. `-CAcreateserial` is accepted and writes the serial
//! used to `CA.srl` beside the CA certificate, as OpenSSL does (we never read it back:
//! serials are random). With `-extfile F` the extensions are instead OpenSSL's: the
//! requested ones as `-copy_extensions` says, then those of the section `-extensions`
//! names (else the file's `extensions` value, else `default`) in the extension language
//! (`cert::add_section`), each replacing one of its type, and the key identifiers OpenSSL 3.0 adds to a certificate
//! with extensions; the same bytes as `openssl x509 -req -extfile` for the same serial
//! and dates.

use super::certio::{self, pki_fail};
use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use crate::keyfile::{self, Format, ReadOptions};
use cryptocard::digest::HashAlg;
use cryptocard_pki::cert::{
    self, CertBuilder, CertOpt, Certificate, CopyExtensions, NameOpt, Profile,
};

const SPEC: Spec = Spec {
    usage: "x509 [options]",
    flags: &[
        Flag::value("in", "FILE").about("Certificate (or request with -req) to read"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("noout").about("Do not write the certificate"),
        Flag::switch("text").about("Print the certificate as text"),
        Flag::switch("pubkey").about("Print the public key"),
        Flag::switch("fingerprint").about("Print the fingerprint (SHA-1 unless a digest flag)"),
        Flag::switch("subject").about("Print the subject name"),
        Flag::switch("issuer").about("Print the issuer name"),
        Flag::switch("serial").about("Print the serial number"),
        Flag::switch("dates").about("Print the validity period"),
        Flag::switch("startdate").about("Print notBefore"),
        Flag::switch("enddate").about("Print notAfter"),
        Flag::switch("modulus").about("Print the RSA modulus"),
        Flag::value("ext", "NAMES").about("Print these extensions (basicConstraints,...)"),
        Flag::switch("email").about("Print the email addresses"),
        Flag::switch("ocsp_uri").about("Print the OCSP responders' URIs"),
        Flag::switch("ocspid").about("Print the OCSP hashes of the subject and key"),
        Flag::switch("purpose").about("Print the purposes the certificate may serve"),
        Flag::switch("next_serial").about("Print the serial number plus one"),
        Flag::value("dateopt", "FORMAT").about("Dates as rfc_822 (default) or iso_8601"),
        Flag::switch("nocert").about("Do not write the certificate (print what is asked)"),
        Flag::value("checkhost", "NAME").about("Say whether the certificate is for this host"),
        Flag::value("checkemail", "ADDR").about("Say whether it is for this email address"),
        Flag::value("checkip", "ADDR").about("Say whether it is for this IP address"),
        Flag::switch("hash").about("As -subject_hash"),
        Flag::switch("subject_hash").about("Print the subject name's hash (OpenSSL 1.0+)"),
        Flag::switch("issuer_hash").about("Print the issuer name's hash"),
        Flag::switch("subject_hash_old").about("Print the subject name's hash before 1.0"),
        Flag::switch("issuer_hash_old").about("Print the issuer name's hash before 1.0"),
        Flag::value("checkend", "N").about("Whether the certificate expires within N seconds"),
        Flag::switch("req").about("The input is a request: issue a certificate"),
        Flag::value("CA", "FILE").about("Issuer certificate (with -req)"),
        Flag::value("CAkey", "FILE").about("Issuer private key (default: -CA's file)"),
        Flag::value("CAform", "PEM|DER").about("Issuer certificate format"),
        Flag::value("CAkeyform", "PEM|DER").about("Issuer key format"),
        Flag::value("signkey", "FILE").about("Self-sign with this key (with -req)"),
        Flag::value("passin", "ARG").about("Private key password source"),
        Flag::value("days", "N").about("Days the issued certificate is valid (default 30)"),
        Flag::value("set_serial", "N").about("Serial number of the issued certificate"),
        Flag::value("copy_extensions", "MODE")
            .about("-req: copy the request's extensions: none, copy, copyall"),
        Flag::switch("CAcreateserial").about("Write the serial used to CA.srl"),
        Flag::value("extfile", "FILE").about("-req: the extensions of a configuration section"),
        Flag::value("extensions", "SECT").about("-extfile's section (default: default)"),
        Flag::value("sigopt", "OPT:VALUE").about("Signature options (rsa_padding_mode:pss, ...)"),
        certio::NAMEOPT_FLAG,
        Flag::value("certopt", "OPTS").about("-text leaves out: no_pubkey,no_sigdump,... (repeat)"),
        keyfile::MAX_ITER_FLAG,
    ],
    notes: "-sha1, -sha256, ...: the fingerprint's digest and the signature's digest\n",
    more: None,
};

/// The printing switches, each printed where it was last given.
const PRINTERS: &[&str] = &[
    "subject",
    "issuer",
    "serial",
    "next_serial",
    "email",
    "ocsp_uri",
    "startdate",
    "enddate",
    "fingerprint",
    "modulus",
    "subject_hash",
    "issuer_hash",
    "subject_hash_old",
    "issuer_hash_old",
    "pubkey",
    "text",
    "ocspid",
    "purpose",
    "ext",
];

/// The printing options in the order they print: OpenSSL numbers each as it comes, a
/// later mention renumbering it, and prints them by number; `-hash` is `-subject_hash`,
/// `-dates` is `-startdate -enddate`.
fn print_order(argv: &[String]) -> Vec<&'static str> {
    let mut order: Vec<&'static str> = Vec::new();
    for word in argv.iter().filter_map(|w| w.strip_prefix('-')) {
        let word = word.strip_prefix('-').unwrap_or(word);
        let word = word.split_once('=').map_or(word, |(name, _)| name);
        let keys: Vec<&'static str> = match word {
            "hash" => vec!["subject_hash"],
            "dates" => vec!["startdate", "enddate"],
            _ => PRINTERS.iter().copied().filter(|p| *p == word).collect(),
        };
        for key in keys {
            order.retain(|k| *k != key);
            order.push(key);
        }
    }
    order
}

/// How `-dateopt` asks dates to be printed: ISO 8601 or not.
fn iso_dates(a: &crate::args::Parsed) -> CmdResult<bool> {
    match a.value("dateopt").map(str::to_ascii_lowercase).as_deref() {
        None | Some("rfc_822") => Ok(false),
        Some("iso_8601") => Ok(true),
        Some(other) => Err(Fail::msg(format!("-dateopt: rfc_822 or iso_8601, not '{other}'"))),
    }
}

/// `-checkhost`, `-checkemail`, `-checkip`: whether the certificate is for each.
fn cert_checks(a: &crate::args::Parsed, c: &Certificate) -> CmdResult<String> {
    let mut out = String::new();
    let mut say = |what: &str, value: &str, matches: bool| {
        let not = if matches { "" } else { " NOT" };
        out.push_str(&format!("{what} {value} does{not} match certificate\n"));
    };
    if let Some(host) = a.value("checkhost") {
        say("Hostname", host, cert::host_matches(c, host));
    }
    if let Some(email) = a.value("checkemail") {
        say("Email", email, cert::email_matches(c, email));
    }
    if let Some(ip) = a.value("checkip") {
        let octets = cert::ip_octets(ip)
            .ok_or_else(|| Fail::msg(format!("-checkip {ip}: not an IPv4 or IPv6 address")))?;
        say("IP", ip, cert::ip_matches(c, &octets));
    }
    Ok(out)
}

/// Runs `x509`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &super::dgst::is_digest)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let digest = certio::digest_flag(&a.dynamic)?;
    let cert = if a.has("req") {
        issue(&a, inform, digest)?
    } else {
        certio::load_cert(a.value("in"), inform)?
    };
    let certopt = CertOpt::from_args(&a.values("certopt")).map_err(|e| pki_fail("-certopt", e))?;
    let how = How { names: certio::name_opt(&a)?, iso_dates: iso_dates(&a)?, certopt };
    let checks = cert_checks(&a, &cert)?;
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    for word in print_order(argv) {
        if word == "ext" {
            let names: Vec<&str> = a.values("ext").iter().flat_map(|v| v.split(',')).collect();
            match cert::extensions_text(&cert, &names) {
                Some(text) => out.put(text.as_bytes())?,
                None => eprintln!("No extensions in certificate"),
            }
        } else {
            out.put(&print(&cert, word, digest, a.dynamic.last(), how)?)?;
        }
    }
    if let Some(secs) = a.parsed::<i64>("checkend")? {
        let expires = will_expire(&cert, secs);
        let verdict = if expires { "will expire" } else { "will not expire" };
        out.put(format!("Certificate {verdict}\n").as_bytes())?;
        out.commit()?;
        return if expires { Err(Fail::silent(1)) } else { Ok(()) };
    }
    out.put(checks.as_bytes())?;
    if !a.has("noout") && !a.has("nocert") {
        out.put(&certio::cert_bytes(&cert, outform)?)?;
    }
    out.commit()
}

/// How names, dates and the text dump print.
#[derive(Clone, Copy)]
struct How {
    names: NameOpt,
    iso_dates: bool,
    certopt: CertOpt,
}

/// Whether notAfter is at most `secs` seconds from now (OpenSSL's `X509_cmp_time` of
/// notAfter against now + `secs` at or below 0).
fn will_expire(c: &Certificate, secs: i64) -> bool {
    let now = std::time::SystemTime::now();
    let offset = std::time::Duration::from_secs(secs.unsigned_abs());
    let at = if secs >= 0 { now.checked_add(offset) } else { now.checked_sub(offset) };
    // Past what the clock can hold, every certificate has expired.
    at.is_none_or(|at| c.tbs_certificate().validity().not_after.to_system_time() <= at)
}

fn print(
    c: &Certificate,
    what: &str,
    digest: Option<HashAlg>,
    label: Option<&String>,
    how: How,
) -> CmdResult<Vec<u8>> {
    let tbs = c.tbs_certificate();
    let v = tbs.validity();
    let time = |t| if how.iso_dates { cert::time_text_iso(t) } else { cert::time_text(t) };
    let lines = |items: Vec<String>| items.iter().map(|i| format!("{i}\n")).collect();
    Ok(match what {
        "subject" => return Ok(cert::print_titled("subject=", tbs.subject(), how.names)),
        "issuer" => return Ok(cert::print_titled("issuer=", tbs.issuer(), how.names)),
        "serial" => format!("serial={}\n", cert::serial_hex(tbs.serial_number())),
        "next_serial" => format!("{}\n", cert::next_serial_hex(tbs.serial_number())),
        "email" => lines(cert::emails(c)),
        "ocsp_uri" => lines(cert::ocsp_uris(c)),
        "ocspid" => cert::ocspid_text(c).map_err(|e| pki_fail("-ocspid", e))?,
        "purpose" => cert::purposes_text(c),
        "startdate" => format!("notBefore={}\n", time(&v.not_before)),
        "enddate" => format!("notAfter={}\n", time(&v.not_after)),
        "fingerprint" => {
            let label = label.map_or("SHA1", String::as_str);
            let line = cert::fingerprint_line(c, digest.unwrap_or(HashAlg::Sha1), label)
                .map_err(|e| pki_fail("fingerprint", e))?;
            format!("{line}\n")
        }
        "subject_hash" | "issuer_hash" | "subject_hash_old" | "issuer_hash_old" => {
            let name = if what.starts_with("issuer") { tbs.issuer() } else { tbs.subject() };
            let hash = if what.ends_with("_old") {
                cert::name_hash_old(name)
            } else {
                cert::name_hash(name)
            };
            format!("{:08x}\n", hash.map_err(|e| pki_fail("hashing the name", e))?)
        }
        "modulus" => match cryptocard_pki::sig::public_key_from_spki(tbs.subject_public_key_info())
        {
            Ok(key) => super::rsa::modulus_line(&key),
            Err(_) => "Modulus=No modulus for this public key type\n".to_string(),
        },
        "pubkey" => {
            String::from_utf8_lossy(&super::req::pubkey_pem(tbs.subject_public_key_info())?)
                .into_owned()
        }
        _ => {
            cert::cert_text_opts(c, how.names, how.certopt).map_err(|e| pki_fail("printing", e))?
        }
    }
    .into_bytes())
}

/// `-req`: a certificate from the request `-in`.
fn issue(
    a: &crate::args::Parsed,
    inform: Option<Format>,
    digest: Option<HashAlg>,
) -> CmdResult<Certificate> {
    let csr = certio::load_csr(a.value("in"), inform)?;
    if cert::verify_csr(&csr).is_err() {
        return Err(Fail::msg("Certificate request self-signature did not match"));
    }
    let read = ReadOptions::from_args(a)?;
    let scheme = certio::scheme(digest, &a.values("sigopt"))?;
    let copy = copy_mode(a.value("copy_extensions"))?;
    // The issuer and its key, or the key a self-signed certificate is signed with.
    let (ca, key) = match (a.value("CA"), a.value("signkey")) {
        (Some(ca_path), None) => {
            let ca =
                certio::load_cert(Some(ca_path), keyfile::format(a.value("CAform"), "CAform")?)?;
            let key_path = a.value("CAkey").unwrap_or(ca_path);
            let keyform = keyfile::format(a.value("CAkeyform"), "CAkeyform")?;
            (Some(ca), keyfile::load_private(Some(key_path), keyform, a.value("passin"), &read)?)
        }
        (None, Some(key_path)) => {
            (None, keyfile::load_private(Some(key_path), None, a.value("passin"), &read)?)
        }
        (Some(_), Some(_)) => return Err(Fail::msg("give -CA or -signkey, not both")),
        (None, None) => return Err(Fail::msg("-req needs -CA CERT (with -CAkey) or -signkey KEY")),
    };
    let given = a.value("set_serial").map(super::req::parse_serial).transpose()?;
    let serial = certio::serial_or_random(given.as_deref())?;
    let subject = &csr.info.subject;
    let mut b = CertBuilder::for_spki(subject.clone(), csr.info.public_key.clone())
        .days(a.parsed::<u32>("days")?.unwrap_or(30))
        .scheme(scheme)
        .serial(serial.as_bytes());
    match a.value("extfile") {
        // OpenSSL's way: the section's extensions, the requested ones, the key
        // identifiers OpenSSL 3.0 adds.
        Some(file) => {
            let conf = certio::load_conf(file)?;
            let section = match a.value("extensions") {
                Some(s) => s.to_string(),
                None => conf.get("default", "extensions").unwrap_or("default").to_string(),
            };
            let ctx = cert::ExtContext {
                conf: Some(&conf),
                subject_name: Some(subject),
                subject_key: Some(&csr.info.public_key),
                issuer: ca.as_ref(),
                serial: Some(&serial),
            };
            let fail = |e| pki_fail(&format!("{file} [{section}]"), e);
            // Unlike `ca`, `x509` copies the requested extensions first, then the
            // section's replace those of their type.
            let mut exts = Vec::new();
            cert::copy_requested(&mut exts, &csr, copy).map_err(|e| pki_fail("request", e))?;
            cert::add_section(&conf, &section, &ctx, &mut exts).map_err(fail)?;
            let own = cryptocard_pki::sig::spki_of(key.public_key())
                .map_err(|e| pki_fail("the signing key", e))?;
            cert::key_id_defaults(&mut exts, &ctx, own == csr.info.public_key).map_err(fail)?;
            b = b.profile(Profile::V1);
            for ext in exts {
                b = b.extension(ext);
            }
        }
        None if a.has("extensions") => {
            return Err(Fail::msg("-extensions names a section of -extfile: give -extfile"));
        }
        None => {
            b = b.profile(if ca.is_some() { Profile::Leaf } else { Profile::Ca });
            b = b.requested_extensions(&csr, copy).map_err(|e| pki_fail("request", e))?;
        }
    }
    let issued = match &ca {
        Some(ca) => b.signed_by(ca, &key),
        None => b.self_signed(&key),
    };
    let issued = issued.map_err(|e| pki_fail("signing the certificate", e))?;
    if let (Some(ca_path), true) = (a.value("CA"), a.has("CAcreateserial")) {
        let stem = ca_path.rsplit_once('.').map_or(ca_path, |(s, _)| s);
        let line = format!("{}\n", cert::serial_hex(issued.tbs_certificate().serial_number()));
        certio::write_public(Some(&format!("{stem}.srl")), line.as_bytes())?;
    }
    Ok(issued)
}

/// `-copy_extensions` (and `ca`'s `copy_extensions`): none (the default), copy, copyall.
pub(crate) fn copy_mode(value: Option<&str>) -> CmdResult<CopyExtensions> {
    match value.unwrap_or("none") {
        "none" => Ok(CopyExtensions::None),
        "copy" => Ok(CopyExtensions::Copy),
        "copyall" => Ok(CopyExtensions::CopyAll),
        other => Err(Fail::msg(format!("copy_extensions: none, copy or copyall, not '{other}'"))),
    }
}
