//! `cryptocard verify`: certificate paths checked as `openssl verify` checks them.
//!
//! ```text
//! cryptocard verify [-CAfile F ... | -trusted F ...] [-CApath DIR ...] [-no-CAfile]
//!                   [-untrusted F ...]
//!                   [-partial_chain] [-purpose NAME] [-verify_name NAME]
//!                   [-attime SECONDS] [-verify_hostname NAME] [-verify_email ADDRESS]
//!                   [-verify_ip ADDRESS] [-policy OID ...] [-explicit_policy]
//!                   [-inhibit_any] [-inhibit_map] [-policy_check] [-no_check_time]
//!                   [-ignore_critical] [-x509_strict] [-auth_level N]
//!                   [-verify_depth N] [-check_ss_sig] [-show_chain]
//!                   [-CRLfile F ...] [-crl_check | -crl_check_all] [CERT ...]
//! ```
//!
//! Each file's first certificate (stdin without files) is checked for a path through the
//! `-untrusted` certificates to a trust anchor of `-CAfile` and of the hashed directories
//! of `-CApath`, or of `-trusted` alone (`cert::TrustStore`: their self-signed
//! certificates, or any of them with `-partial_chain`), at `-attime` (Unix seconds) or now, by `cryptocard-pki`'s RFC 5280
//! subset (`cert::verify_chain_report`), for `-verify_hostname`'s DNS name if given
//! (`cert::host_matches`, RFC 6125), `-verify_email`'s email address and `-verify_ip`'s
//! IPv4 or IPv6 address (`cert::email_matches`, `cert::ip_matches`), for the policies of
//! `-policy` (RFC 5280 6.1: policies are always processed; `-explicit_policy`,
//! `-inhibit_any` and `-inhibit_map` set its initial inputs; `-policy_check`, which
//! OpenSSL needs to process them at all, changes nothing), without the certificates'
//! and CRLs' times with `-no_check_time` and their unhandled critical extensions with
//! `-ignore_critical`, with RFC 5280's rules for what conforming CAs issue under
//! `-x509_strict` (`PathChecks::strict`), keys and digests of `-auth_level`'s security
//! level, at most `-verify_depth` intermediate CAs, the trust anchor's own signature with
//! `-check_ss_sig`, and with `-crl_check` (the end entity) or
//! `-crl_check_all` (every certificate) for revocation by the CRLs of `-CRLfile` and those
//! beside the trusted certificates (`-CAfile`'s CRL blocks, `-CApath`'s `HASH.rN` files)
//! (`cert::Revocation`, RFC 5280 section 6.3). Without `-CAfile` or `-CApath` the system's roots
//! are the store, as OpenSSL's default verify locations are: `$SSL_CERT_FILE`, else the
//! distribution's bundle. `-purpose` (or the purpose of `-verify_name`'s named parameter
//! set) checks the path's keyUsage and extendedKeyUsage for a use (`cert::Purpose`).
//!
//! Output as OpenSSL's: `FILE: OK` on stdout (and the path with `-show_chain`); on failure
//! the certificate's subject and `error N at D depth lookup: WORDS` with OpenSSL's
//! `X509_V_ERR_*` number (`cert::PathFailure`) for each failure found, up to the first
//! that stops OpenSSL's checks (those before it, an expired certificate, a CA flag, do
//! not), then `error FILE: verification failed`, on stderr. Exit status 0 when every
//! certificate verified, 2 when one failed or could not be read, 1 for bad options or an
//! unreadable `-CAfile`, `-CApath` or `-untrusted`.

use super::Spec;
use super::certio::{read_cert_file, read_trust_file};
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::io;
use cryptocard_pki::cert::{
    self, Certificate, Crl, NameOpt, PathBudget, PathChecks, PathFailure, PolicyInputs, Purpose,
    Revocation, TrustStore, name_text,
};
use der::asn1::ObjectIdentifier as Oid;
use std::time::{Duration, SystemTime};

const SPEC: Spec = Spec {
    usage: "verify [options] [certificates...]",
    flags: &[
        Flag::value("CAfile", "FILE").about("Trusted certificates (repeat; default: the system's)"),
        Flag::value("trusted", "FILE").about("The only trusted certificates (repeat; no -CAfile)"),
        Flag::switch("no-CAfile").about("Do not load the system's trusted certificates"),
        Flag::value("CApath", "DIR").about("A hashed directory of trusted certificates"),
        Flag::switch("no-CApath").about("Accepted for OpenSSL compatibility"),
        Flag::switch("no-CAstore").about("Accepted for OpenSSL compatibility"),
        Flag::value("untrusted", "FILE").about("Intermediate certificates (repeat)"),
        Flag::switch("partial_chain").about("Any trusted certificate may end a path"),
        Flag::value("purpose", "NAME").about("any (default) or one of OpenSSL 3.0's purposes"),
        Flag::value("verify_name", "NAME")
            .about("OpenSSL's named checks: default, pkcs7, smime_sign, ssl_client, ssl_server"),
        Flag::value("attime", "SECONDS").about("Check at this time (seconds since 1970)"),
        Flag::value("verify_hostname", "NAME").about("The end entity must be for this DNS name"),
        Flag::value("verify_email", "ADDRESS")
            .about("The end entity must be for this email address"),
        Flag::value("verify_ip", "ADDRESS").about("The end entity must be for this IP address"),
        Flag::value("policy", "OID").about("A policy acceptable for the path (repeat)"),
        Flag::switch("explicit_policy").about("Require a valid policy for the path"),
        Flag::switch("inhibit_any").about("anyPolicy does not stand for other policies"),
        Flag::switch("inhibit_map").about("Policy mappings are not followed"),
        Flag::switch("policy_check").about("Accepted for OpenSSL compatibility (always on)"),
        Flag::switch("no_check_time").about("Do not check certificates' and CRLs' times"),
        Flag::switch("ignore_critical").about("Let unhandled critical extensions by"),
        Flag::switch("x509_strict").about("RFC 5280's rules for conforming CAs' certificates"),
        Flag::value("auth_level", "N").about("Security level of keys and digests (0 to 5)"),
        Flag::value("verify_depth", "N").about("The most intermediate CAs in a path"),
        Flag::switch("check_ss_sig").about("Check the trust anchor's own signature"),
        Flag::switch("trusted_first").about("Accepted for OpenSSL compatibility (always so)"),
        Flag::switch("no_alt_chains").about("Accepted for OpenSSL compatibility"),
        Flag::switch("issuer_checks").about("Accepted for OpenSSL compatibility (no effect)"),
        Flag::switch("show_chain").about("Print the path of each verified certificate"),
        super::certio::NAMEOPT_FLAG,
        Flag::value("CRLfile", "FILE").about("CRLs, PEM or DER (repeat)"),
        Flag::switch("crl_check").about("Check the end entity against its issuer's CRL"),
        Flag::switch("crl_check_all").about("Check every certificate of the path against CRLs"),
        Flag::switch("verbose").about("Accepted for OpenSSL compatibility"),
    ],
    notes: "Without certificates, one is read from stdin.\n",
    more: None,
};

/// Where distributions keep the roots, tried in order when `$SSL_CERT_FILE` is unset:
/// Debian and Ubuntu, Fedora and RHEL, Alpine, then OpenSSL's own default.
const SYSTEM_ROOTS: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
    "/usr/lib/ssl/cert.pem",
];

/// The purpose of one of OpenSSL 3.0's named verification parameter sets
/// (`X509_VERIFY_PARAM_lookup`'s table), `None` for an unknown name: `default` sets none
/// (`Some(None)`), `pkcs7` and `smime_sign` S/MIME signing, `ssl_client` and `ssl_server`
/// TLS. (Their trust settings matter only for certificates with OpenSSL's auxiliary
/// trust, which are not read here.)
fn named_purpose(name: &str) -> Option<Option<Purpose>> {
    Some(Some(match name {
        "default" => return Some(None),
        "pkcs7" | "smime_sign" => Purpose::SmimeSign,
        "ssl_client" => Purpose::SslClient,
        "ssl_server" => Purpose::SslServer,
        _ => return None,
    }))
}

/// Runs `verify`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    let named = match a.value("verify_name") {
        None => None,
        Some(name) => named_purpose(name).ok_or_else(|| {
            Fail::msg(format!(
                "Invalid verify name {name} (default, pkcs7, smime_sign, ssl_client, ssl_server)"
            ))
        })?,
    };
    let explicit = match a.value("purpose") {
        None => None,
        Some(name) => Some(Purpose::from_name(name).ok_or_else(|| {
            Fail::msg(format!(
                "-purpose: {name} is not supported (any, sslclient, sslserver, nssslserver, \
                 smimesign, smimeencrypt, crlsign, ocsphelper, timestampsign)"
            ))
        })?),
    };
    // The one given last wins, as OpenSSL sets a named set's purpose over an earlier one.
    let purpose = match (explicit, named) {
        (Some(_), Some(n)) if a.last_of(&["purpose", "verify_name"]) == Some("verify_name") => n,
        (Some(p), _) | (None, Some(p)) => p,
        (None, None) => Purpose::Any,
    };
    let at = match a.parsed::<u64>("attime")? {
        Some(secs) => SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
        None => SystemTime::now(),
    };
    let (trusted, mut crls) = if a.values("trusted").is_empty() {
        trust_files(&a)?
    } else {
        if !a.values("CAfile").is_empty() || !a.values("CApath").is_empty() {
            return Err(Fail::msg("Cannot use -trusted with -CAfile, -CApath or -CAstore"));
        }
        let mut certs = Vec::new();
        for path in a.values("trusted") {
            certs.extend(read_cert_file(Some(path)).map_err(Fail::msg)?);
        }
        (certs, Vec::new())
    };
    let store = TrustStore::new(trusted, a.has("partial_chain"));
    let mut untrusted = Vec::new();
    for path in a.values("untrusted") {
        untrusted.extend(read_cert_file(Some(path)).map_err(Fail::msg)?);
    }
    let inputs: Vec<Option<&str>> = if a.positional.is_empty() {
        vec![None]
    } else {
        a.positional.iter().map(|p| Some(p.as_str())).collect()
    };
    for path in a.values("CRLfile") {
        crls.extend(read_crl_file(path)?);
    }
    let revocation = (a.has("crl_check") || a.has("crl_check_all"))
        .then(|| Revocation { crls: &crls, all: a.has("crl_check_all") });
    let ip = match a.value("verify_ip") {
        None => None,
        Some(text) => Some(
            cert::ip_octets(text)
                .ok_or_else(|| Fail::msg(format!("-verify_ip: '{text}' is not an IP address")))?,
        ),
    };
    let user_policies =
        a.values("policy").into_iter().map(policy_oid).collect::<CmdResult<Vec<Oid>>>()?;
    let policy = PolicyInputs {
        user_policies: (!user_policies.is_empty()).then_some(user_policies.as_slice()),
        explicit: a.has("explicit_policy"),
        inhibit_any: a.has("inhibit_any"),
        inhibit_map: a.has("inhibit_map"),
    };
    let checks = PathChecks {
        host: a.value("verify_hostname"),
        email: a.value("verify_email"),
        ip: ip.as_deref(),
        go_on: &goes_on,
        revocation,
        policy,
        check_time: !a.has("no_check_time"),
        ignore_critical: a.has("ignore_critical"),
        strict: a.has("x509_strict"),
        auth_level: a.parsed::<u32>("auth_level")?.map(|l| l.min(5) as u8),
        depth_limit: a.parsed::<usize>("verify_depth")?,
        check_self_signature: a.has("check_ss_sig"),
        ..PathChecks::new(at, purpose)
    };
    let report = Report { show_chain: a.has("show_chain"), names: super::certio::name_opt(&a)? };
    let mut all_ok = true;
    for path in inputs {
        all_ok &= verify_one(path, &store, &untrusted, &checks, report);
    }
    if all_ok { Ok(()) } else { Err(Fail::silent(2)) }
}

/// The trusted certificates of `-CAfile` (repeat) and `-CApath` (repeat), or without
/// either (and without `-no-CAfile`) the system's, as OpenSSL's `setup_verify` loads them
/// for `verify`, `pkcs12 -chain` and the rest.
pub(super) fn trusted_certs(a: &Parsed) -> CmdResult<Vec<Certificate>> {
    Ok(trust_files(a)?.0)
}

/// [`trusted_certs`], and the CRLs beside them: the `X509 CRL` blocks of each `-CAfile`
/// and the `HASH.rN` files of each `-CApath`, which OpenSSL's store loads too.
pub(super) fn trust_files(a: &Parsed) -> CmdResult<(Vec<Certificate>, Vec<Crl>)> {
    let mut trusted = Vec::new();
    let mut crls = Vec::new();
    for path in a.values("CAfile") {
        let (certs, file_crls) = read_trust_file(path).map_err(Fail::msg)?;
        trusted.extend(certs);
        crls.extend(file_crls);
    }
    for dir in a.values("CApath") {
        let (certs, dir_crls) = hashed_dir(dir)?;
        trusted.extend(certs);
        crls.extend(dir_crls);
    }
    if a.values("CAfile").is_empty()
        && a.values("CApath").is_empty()
        && !a.has("no-CAfile")
        && let Some(path) = system_roots()
    {
        trusted.extend(read_cert_file(Some(&path)).map_err(Fail::msg)?);
    }
    Ok((trusted, crls))
}

/// The CRLs of a `-CRLfile`: every `X509 CRL` block of a PEM file, or one DER CRL.
fn read_crl_file(path: &str) -> CmdResult<Vec<Crl>> {
    let data = io::read_capped(Some(path), "CRLs", io::MAX_CERT_INPUT)?;
    let crls = cert::read_crls(&data).map_err(|e| Fail::msg(format!("-CRLfile {path}: {e}")))?;
    if crls.is_empty() {
        return Err(Fail::msg(format!("-CRLfile {path}: no CRL in the file")));
    }
    Ok(crls)
}

/// The most files of a `-CApath` directory read: far more than any system's roots.
const MAX_HASHED_FILES: usize = 10_000;

/// The certificates and CRLs of a hashed directory (`openssl rehash`, `c_rehash`): each
/// file named `HASH.N` (eight hex digits, a number) gives the certificates in it whose
/// subject hashes to `HASH` (`cert::name_hash`), and each named `HASH.rN` the CRLs whose
/// issuer does: those OpenSSL's lookup by name would find there. Files that do not parse
/// are passed over, as OpenSSL's lookup passes them over.
pub(super) fn hashed_dir(dir: &str) -> CmdResult<(Vec<Certificate>, Vec<Crl>)> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Fail::msg(format!("-CApath {dir}: {}", io::reason(&e))))?;
    let mut certs = Vec::new();
    let mut crls = Vec::new();
    for (count, entry) in entries.enumerate() {
        if count >= MAX_HASHED_FILES {
            return Err(Fail::msg(format!("-CApath {dir}: more than {MAX_HASHED_FILES} files")));
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some((hash, kind)) = name.to_str().and_then(hash_of_file_name) else { continue };
        let path = entry.path();
        match kind {
            Hashed::Cert => {
                let Ok(found) = read_cert_file(path.to_str()) else { continue };
                let subject_hash =
                    |c: &Certificate| cert::name_hash(c.tbs_certificate().subject()).ok();
                certs.extend(found.into_iter().filter(|c| subject_hash(c) == Some(hash)));
            }
            Hashed::Crl => {
                let Ok(data) = io::read_capped(path.to_str(), "CRLs", io::MAX_CERT_INPUT) else {
                    continue;
                };
                let Ok(found) = cert::read_crls(&data) else { continue };
                crls.extend(
                    found.into_iter().filter(|c| cert::name_hash(c.issuer()).ok() == Some(hash)),
                );
            }
        }
    }
    Ok((certs, crls))
}

/// What a file of a hashed directory holds, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hashed {
    /// `HASH.N`: certificates.
    Cert,
    /// `HASH.rN`: CRLs.
    Crl,
}

/// `HASH` of a file named `HASH.N` or `HASH.rN` (eight lower-case hex digits, a decimal
/// number), and which of the two it is.
fn hash_of_file_name(name: &str) -> Option<(u32, Hashed)> {
    let (hash, n) = name.split_once('.')?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    if hash.len() != 8 || !hash.chars().all(hex) {
        return None;
    }
    let (n, kind) = match n.strip_prefix('r') {
        Some(n) => (n, Hashed::Crl),
        None => (n, Hashed::Cert),
    };
    if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((u32::from_str_radix(hash, 16).ok()?, kind))
}

/// The system's roots: `$SSL_CERT_FILE`, else the first bundle of [`SYSTEM_ROOTS`] that
/// exists.
fn system_roots() -> Option<String> {
    if let Some(path) = std::env::var_os("SSL_CERT_FILE") {
        return Some(path.to_string_lossy().into_owned());
    }
    SYSTEM_ROOTS.iter().find(|p| std::path::Path::new(p).is_file()).map(|p| p.to_string())
}

/// What a report prints: the path too (`-show_chain`), names in which form (`-nameopt`).
#[derive(Clone, Copy)]
struct Report {
    show_chain: bool,
    names: NameOpt,
}

/// Verifies the first certificate of `path` and reports it; whether it verified.
fn verify_one(
    path: Option<&str>,
    store: &TrustStore,
    untrusted: &[Certificate],
    checks: &PathChecks<'_>,
    how: Report,
) -> bool {
    let name = io::input_name(path);
    let first = read_cert_file(path)
        .and_then(|certs| certs.into_iter().next().ok_or_else(|| format!("{name}: empty")));
    let leaf = match first {
        Ok(leaf) => leaf,
        Err(e) => {
            // `e` starts with the file's name.
            eprintln!("Could not read certificate from {e}\nUnable to load certificate file");
            return false;
        }
    };
    let report = store.verify_report(&leaf, untrusted, checks, &mut PathBudget::new());
    match report {
        Ok(report) if report.failures.is_empty() => {
            let mut text = format!("{name}: OK\n");
            if how.show_chain {
                text.push_str("Chain:\n");
                for (depth, cert) in report.path.iter().enumerate() {
                    let subject = name_text(cert.tbs_certificate().subject(), 0, how.names);
                    let label = if store.contains(cert) { "" } else { " (untrusted)" };
                    text.push_str(&format!("depth={depth}: {subject}{label}\n"));
                }
            }
            super::print_text(&text);
            true
        }
        Ok(report) => {
            let mut text = String::new();
            for e in &report.failures {
                let detail = e.detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
                // OpenSSL names no certificate for a path without an explicit policy (and
                // prints the policy tree after the error: the failure's note).
                if e.failure != PathFailure::NoExplicitPolicy {
                    let subject = name_text(e.cert.tbs_certificate().subject(), 0, how.names);
                    text.push_str(&format!("{subject}\n"));
                }
                text.push_str(&format!(
                    "error {} at {} depth lookup: {}{detail}\n",
                    e.failure.code(),
                    e.depth,
                    e.failure,
                ));
                text.push_str(e.note.as_deref().unwrap_or_default());
            }
            eprintln!("{text}error {name}: verification failed");
            false
        }
        Err(e) => {
            eprintln!("{name}: {e}\nerror {name}: verification failed");
            false
        }
    }
}

/// A policy named by `-policy`: dotted, or `anyPolicy`.
pub(super) fn policy_oid(text: &str) -> CmdResult<Oid> {
    if text == "anyPolicy" {
        return Ok(cert::ANY_POLICY);
    }
    Oid::new(text).map_err(|_| Fail::msg(format!("verify: Invalid Policy {text}")))
}

/// The failures after which `openssl verify` goes on checking the path (its callback
/// `cb` in `apps/verify.c` passes them), reporting each: the rest stop it.
fn goes_on(failure: PathFailure) -> bool {
    matches!(
        failure,
        PathFailure::Expired
            | PathFailure::SelfSignedLeaf
            | PathFailure::InvalidCa
            | PathFailure::PathLength
            | PathFailure::CriticalExtension
            | PathFailure::Purpose
            | PathFailure::CrlExpired
            | PathFailure::CrlNotYetValid
            | PathFailure::NoExplicitPolicy
            | PathFailure::PathLenForNonCa
            | PathFailure::PathLenWithoutCertSign
            | PathFailure::CaBasicConstraintsNotCritical
            | PathFailure::CaWithoutKeyUsage
            | PathFailure::CertSignForNonCa
            | PathFailure::IssuerNameEmpty
            | PathFailure::SubjectNameEmpty
            | PathFailure::EmptySubjectSanNotCritical
            | PathFailure::EmptySubjectAltName
            | PathFailure::SignatureAlgorithmInconsistency
            | PathFailure::MissingAuthorityKeyId
            | PathFailure::MissingSubjectKeyId
            | PathFailure::ExtensionsNeedV3
    )
}

#[cfg(test)]
mod tests {
    use super::hash_of_file_name;

    #[test]
    fn hashed_file_names() {
        use super::Hashed::{Cert, Crl};
        assert_eq!(hash_of_file_name("997c7fbe.0"), Some((0x997c_7fbe, Cert)));
        assert_eq!(hash_of_file_name("997c7fbe.12"), Some((0x997c_7fbe, Cert)));
        assert_eq!(hash_of_file_name("997c7fbe.r0"), Some((0x997c_7fbe, Crl)));
        assert_eq!(hash_of_file_name("997c7fbe.r12"), Some((0x997c_7fbe, Crl)));
        for name in [
            "997C7FBE.0",
            "997c7fb.0",
            "997c7fbe.",
            "997c7fbe.r",
            "997c7fbe.x0",
            "997c7fbe",
            "root.pem",
        ] {
            assert_eq!(hash_of_file_name(name), None, "{name}");
        }
    }
}
