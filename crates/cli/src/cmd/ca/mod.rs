//! `cryptocard ca`: a certificate authority over an OpenSSL CA directory, as `openssl ca`:
//! issue certificates from requests, revoke them, list the revoked in a CRL.
//!
//! ```text
//! cryptocard ca -config F [-name SECT] -batch [-in CSR | CSR...] [-out F] [-outdir DIR]
//!               [-notext] [-subj /CN=..] [-preserveDN] [-noemailDN] [-policy SECT]
//!               [-startdate T] [-enddate T | -days N] [-extensions SECT] [-extfile F]
//!               [-md sha256] [-sigopt ..] [-cert F] [-keyfile F] [-passin ARG]
//!               [-selfsign] [-rand_serial] [-create_serial]
//! cryptocard ca -config F -revoke CERT [-crl_reason R | -crl_hold OID
//!               | -crl_compromise T | -crl_CA_compromise T]
//! cryptocard ca -config F -gencrl [-out F] [-crldays N] [-crlhours N] [-crlsec N]
//!               [-crl_lastupdate T] [-crl_nextupdate T] [-crlexts SECT]
//! cryptocard ca -config F -valid CERT | -status SERIAL | -updatedb
//! ```
//!
//! The configuration is OpenSSL's (`pki::conf`), `-config`, else `$OPENSSL_CONF`, else the
//! system's `openssl.cnf` as `openssl ca` reads it: `[ ca ] default_ca` names the CA's
//! section (or `-name`), which gives `database`, `new_certs_dir`, `certificate`,
//! `private_key`, `serial`, `crlnumber`, `default_days`, `default_startdate`,
//! `default_enddate`, `default_crl_days`, `default_crl_hours`, `default_md`, `policy`,
//! `preserve`, `email_in_dn`, `unique_subject`, `copy_extensions`, `x509_extensions` and
//! `crl_extensions`, with OpenSSL's meanings; extension sections are in the extension
//! language (`cert::section_extensions`). The files are OpenSSL's (`db`), so the same
//! directory can be run by either tool, and given the same dates (PKCS#1 v1.5 signatures
//! being deterministic) both write the same bytes.
//!
//! There is no prompting: `-batch` is required to issue. Each file is written whole and
//! put in place by renaming, the database last, so a failure leaves the CA as it was.

pub(crate) mod db;
mod gencrl;
mod issue;
pub(crate) mod revoke;

use super::Spec;
use super::certio;
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::keyfile::{self, ReadOptions};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::Certificate;
use cryptocard_pki::conf::Conf;
use cryptocard_pki::sig::SigScheme;
use der::DateTime;
use std::time::SystemTime;
use x509_cert::time::Time;

const SPEC: Spec = Spec {
    usage: "ca [options] [certreq...]",
    flags: &[
        Flag::value("config", "FILE")
            .about("The configuration file (default $OPENSSL_CONF, else the system's openssl.cnf)"),
        Flag::value("name", "SECT").about("The CA's section (default: [ ca ] default_ca)"),
        Flag::value("section", "SECT").about("As -name"),
        Flag::switch("batch").about("Do not ask questions (required to issue)"),
        Flag::value("in", "FILE").about("A request to certify"),
        Flag::value("out", "FILE").about("Where the certificates or the CRL go (default stdout)"),
        Flag::value("outdir", "DIR").about("Where new certificates are kept (new_certs_dir)"),
        Flag::switch("notext").about("Write the certificates without their text"),
        Flag::value("subj", "/CN=...").about("The subject, in place of the request's"),
        Flag::switch("preserveDN").about("Keep the request's name as it is (preserve)"),
        Flag::switch("noemailDN").about("Leave emailAddress out of the subject"),
        Flag::value("policy", "SECT").about("The policy section"),
        Flag::value("startdate", "YYMMDDHHMMSSZ").about("notBefore (default now)"),
        Flag::value("enddate", "YYMMDDHHMMSSZ").about("notAfter (in place of -days)"),
        Flag::value("days", "N").about("Days to certify for, from now (default_days)"),
        Flag::value("extensions", "SECT").about("The extension section (x509_extensions)"),
        Flag::value("extfile", "FILE").about("Read the extension section from this file"),
        Flag::value("md", "DIGEST").about("The signature's digest (default_md)"),
        Flag::value("sigopt", "OPT:VALUE").about("Signature options (rsa_padding_mode:pss, ...)"),
        Flag::value("cert", "FILE").about("The CA certificate (certificate)"),
        Flag::value("keyfile", "FILE").about("The CA private key (private_key)"),
        Flag::value("keyform", "PEM|DER").about("The key's format (default: by content)"),
        Flag::value("passin", "ARG").about("The key's password source"),
        Flag::switch("selfsign").about("Sign each request with its own key"),
        Flag::switch("rand_serial").about("A random serial; the serial file is not used"),
        Flag::switch("create_serial").about("A random serial if the serial file is missing"),
        Flag::value("revoke", "FILE").about("Revoke this certificate"),
        Flag::value("valid", "FILE").about("Add this certificate to the database as valid"),
        Flag::value("crl_reason", "REASON").about("The revocation's reason"),
        Flag::value("crl_hold", "OID").about("Revoke on hold with this hold instruction"),
        Flag::value("crl_compromise", "TIME").about("Key compromise at this time"),
        Flag::value("crl_CA_compromise", "TIME").about("CA compromise at this time"),
        Flag::switch("gencrl").about("Make a CRL of the revoked certificates"),
        Flag::value("crldays", "N").about("Days to the next CRL (default_crl_days)"),
        Flag::value("crlhours", "N").about("Hours to the next CRL (default_crl_hours)"),
        Flag::value("crlsec", "N").about("Seconds to the next CRL"),
        Flag::value("crl_lastupdate", "TIME").about("The CRL's thisUpdate (default now)"),
        Flag::value("crl_nextupdate", "TIME").about("The CRL's nextUpdate"),
        Flag::value("crlexts", "SECT").about("The CRL extension section (crl_extensions)"),
        Flag::value("status", "SERIAL").about("Say the status of a serial number"),
        Flag::switch("updatedb").about("Mark expired certificates in the database"),
        keyfile::MAX_ITER_FLAG,
    ],
    notes: "TIME: YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ. REASON: unspecified, keyCompromise,\n\
            CACompromise, affiliationChanged, superseded, cessationOfOperation,\n\
            certificateHold, removeFromCRL.\n",
    more: None,
};

/// The configuration and the CA section the run uses.
struct Ca<'a> {
    conf: Conf,
    section: String,
    args: &'a Parsed,
}

impl Ca<'_> {
    /// A value of the CA section (or `default`).
    fn value(&self, name: &str) -> Option<&str> {
        self.conf.get(&self.section, name)
    }

    /// A value the run cannot go without, with OpenSSL's words when it is missing.
    fn need(&self, name: &str) -> CmdResult<&str> {
        self.value(name).ok_or_else(|| {
            Fail::msg(format!("variable lookup failed for {}::{name}", self.section))
        })
    }

    /// The flag's value, else the section's.
    fn flag_or(&self, flag: &str, name: &str) -> Option<&str> {
        self.args.value(flag).or_else(|| self.value(name))
    }

    /// The flag's value, else the section's, which must be there.
    fn flag_or_need(&self, flag: &str, name: &str) -> CmdResult<&str> {
        match self.args.value(flag) {
            Some(v) => Ok(v),
            None => self.need(name),
        }
    }

    /// The CA's certificate.
    fn certificate(&self) -> CmdResult<Certificate> {
        certio::load_cert(Some(self.flag_or_need("cert", "certificate")?), None)
    }

    /// The CA's private key.
    fn key(&self) -> CmdResult<RsaPrivateKey> {
        let path = self.flag_or_need("keyfile", "private_key")?;
        let form = keyfile::format(self.args.value("keyform"), "keyform")?;
        let opts = ReadOptions::from_args(self.args)?;
        keyfile::load_private(Some(path), form, self.args.value("passin"), &opts)
    }

    /// The signature scheme: `-md` or `default_md` (`default`: SHA-256), `-sigopt`.
    fn scheme(&self) -> CmdResult<SigScheme> {
        let digest = match self.flag_or_need("md", "default_md")? {
            "default" => None,
            name => Some(super::digest_by_name(name)?),
        };
        certio::scheme(digest, &self.args.values("sigopt"))
    }

    /// The database.
    fn index(&self) -> CmdResult<db::Index> {
        db::Index::load(self.need("database")?, self.value("unique_subject"))
    }
}

/// Where OpenSSL keeps its configuration file (OPENSSLDIR) on the usual systems: Debian
/// and Ubuntu, their `/etc` link target, Fedora and RHEL, OpenSSL's own default.
const OPENSSL_CONFS: [&str; 4] = [
    "/usr/lib/ssl/openssl.cnf",
    "/etc/ssl/openssl.cnf",
    "/etc/pki/tls/openssl.cnf",
    "/usr/local/ssl/openssl.cnf",
];

/// The configuration `openssl ca` reads without `-config`: `$OPENSSL_CONF`, else the
/// system's `openssl.cnf` (whose `[ CA_default ]` is the `./demoCA` directory).
pub(super) fn default_config() -> CmdResult<String> {
    if let Ok(path) = std::env::var("OPENSSL_CONF") {
        return Ok(path);
    }
    OPENSSL_CONFS
        .iter()
        .find(|p| std::path::Path::new(p).is_file())
        .map(|p| (*p).to_string())
        .ok_or_else(|| Fail::msg("no openssl.cnf here: give the configuration with -config FILE"))
}

/// Runs `ca`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    let path = match a.value("config") {
        Some(p) => p.to_string(),
        None => default_config()?,
    };
    let conf = certio::load_conf(&path)?;
    eprintln!("Using configuration from {path}");
    let section = match a.value("name").or(a.value("section")) {
        Some(s) => s.to_string(),
        None => conf
            .get("ca", "default_ca")
            .ok_or_else(|| Fail::msg("variable lookup failed for ca::default_ca"))?
            .to_string(),
    };
    if conf.section(&section).is_none() {
        return Err(Fail::msg(format!("{path}: no section [ {section} ]")));
    }
    let ca = Ca { conf, section, args: &a };
    let mut did = false;
    if a.has("updatedb") {
        revoke::update_db(&ca)?;
        did = true;
    }
    if let Some(serial) = a.value("status") {
        revoke::status(&ca, serial)?;
        did = true;
    }
    let mut requests: Vec<&str> = a.values("in");
    requests.extend(a.positional.iter().map(String::as_str));
    if !requests.is_empty() {
        issue::issue(&ca, &requests)?;
        did = true;
    }
    if a.has("gencrl") {
        gencrl::gencrl(&ca)?;
        did = true;
    }
    if let Some(cert) = a.value("revoke") {
        revoke::revoke(&ca, cert, false)?;
        did = true;
    }
    if let Some(cert) = a.value("valid") {
        revoke::revoke(&ca, cert, true)?;
        did = true;
    }
    if !did {
        return Err(Fail::msg(
            "nothing to do: give requests to certify, -revoke, -valid, -gencrl, -status or -updatedb",
        ));
    }
    Ok(())
}

/// A time as `ca` takes them: `YYMMDDHHMMSSZ` (1950-2049) or `YYYYMMDDHHMMSSZ`; kept in
/// the form given.
fn parse_time(s: &str, what: &str) -> CmdResult<Time> {
    let bad = || Fail::msg(format!("{what} '{s}': expected YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ"));
    let digits = s.strip_suffix('Z').ok_or_else(bad)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n =
        |i: usize| -> u8 { (digits.as_bytes()[i] - b'0') * 10 + digits.as_bytes()[i + 1] - b'0' };
    let (year, rest) = match digits.len() {
        12 => (if n(0) < 50 { 2000 } else { 1900 } + u16::from(n(0)), 2),
        14 => (u16::from(n(0)) * 100 + u16::from(n(2)), 4),
        _ => return Err(bad()),
    };
    let dt = DateTime::new(year, n(rest), n(rest + 2), n(rest + 4), n(rest + 6), n(rest + 8))
        .map_err(|_| bad())?;
    let t = if digits.len() == 12 {
        der::asn1::UtcTime::from_date_time(dt).map(Time::UtcTime)
    } else {
        Ok(Time::GeneralTime(der::asn1::GeneralizedTime::from_date_time(dt)))
    };
    t.map_err(|_| bad())
}

/// A time's text as OpenSSL keeps it in the database: the ASN.1 string.
fn time_string(t: &Time) -> String {
    let d = t.to_date_time();
    let year = match t {
        Time::UtcTime(_) => format!("{:02}", d.year() % 100),
        Time::GeneralTime(_) => format!("{:04}", d.year()),
    };
    format!(
        "{year}{:02}{:02}{:02}{:02}{:02}Z",
        d.month(),
        d.day(),
        d.hour(),
        d.minutes(),
        d.seconds()
    )
}

/// Now, in whole seconds, as a certificate or CRL would hold it.
fn now_time() -> CmdResult<Time> {
    at_time(SystemTime::now())
}

/// A moment in whole seconds, UTCTime through 2049, GeneralizedTime after.
fn at_time(at: SystemTime) -> CmdResult<Time> {
    cryptocard_pki::cert::x509_time(at).map_err(|e| certio::pki_fail("a time", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_both_forms() {
        let t = parse_time("250101000000Z", "t").unwrap();
        assert!(matches!(t, Time::UtcTime(_)));
        assert_eq!(time_string(&t), "250101000000Z");
        let t = parse_time("20500101120000Z", "t").unwrap();
        assert_eq!(time_string(&t), "20500101120000Z");
        assert_eq!(time_string(&parse_time("991231235959Z", "t").unwrap()), "991231235959Z");
        for bad in ["2501010000Z", "250101000000", "251301000000Z", "25010100000aZ", ""] {
            assert!(parse_time(bad, "t").is_err(), "{bad}");
        }
    }
}
