//! What `req` and `x509` share: reading certificates and requests (PEM or DER, by
//! content unless `-inform` says), writing them, the signature scheme from a digest flag
//! and `-sigopt`, `-nameopt` (with `crl`), and the library's errors as one line.

use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::Format;
use crate::rsaopt::{Padding, RsaOpts};
use cryptocard::digest::HashAlg;
use cryptocard_pki::cert::{self, CertReq, Certificate, Crl, NameOpt};
use cryptocard_pki::sig::SigScheme;

/// `-nameopt` (`x509`, `req`, `crl`): how names are printed.
pub const NAMEOPT_FLAG: Flag = Flag::value("nameopt", "OPTS")
    .about("How names print: oneline (default), RFC2253, multiline, utf8, ...");

/// The names' form `-nameopt` asks for (repeatable, as in OpenSSL), else OpenSSL 3.0's
/// one-line form.
pub fn name_opt(a: &Parsed) -> CmdResult<NameOpt> {
    NameOpt::from_args(&a.values("nameopt")).map_err(|e| pki_fail("-nameopt", e))
}

/// A library error while doing `what`.
pub fn pki_fail(what: &str, e: cryptocard_pki::Error) -> Fail {
    Fail::msg(format!("{what}: {e}"))
}

/// Reads one certificate (the first of a PEM bundle).
pub fn load_cert(path: Option<&str>, inform: Option<Format>) -> CmdResult<Certificate> {
    let name = io::input_name(path).to_string();
    let data = io::read_small(path, "a certificate")?;
    let certs = match inform {
        Some(Format::Der) => cert::cert_from_der(&data).map(|c| vec![c]),
        Some(Format::Pem) => cert::certs_from_pem(&data),
        None => cert::read_certs(&data),
    }
    .map_err(|e| Fail::msg(format!("{name}: could not read certificate: {e}")))?;
    certs.into_iter().next().ok_or_else(|| Fail::msg(format!("{name}: no certificate")))
}

/// The certificates in a PEM or DER file (stdin for `None`), at most
/// [`io::MAX_CERT_INPUT`] bytes; or why they cannot be read, naming the file.
pub fn read_cert_file(path: Option<&str>) -> Result<Vec<Certificate>, String> {
    let data = read_cert_input(path)?;
    certs_of(path, &data)
}

/// [`read_cert_file`] for a file of trusted certificates (`-CAfile`): the certificates and
/// the CRLs beside them (`cert::crls_beside_certs`), which OpenSSL's store reads too.
pub fn read_trust_file(path: &str) -> Result<(Vec<Certificate>, Vec<Crl>), String> {
    let data = read_cert_input(Some(path))?;
    let crls = cert::crls_beside_certs(&data).map_err(|e| format!("{path}: {e}"))?;
    Ok((certs_of(Some(path), &data)?, crls))
}

fn read_cert_input(path: Option<&str>) -> Result<Vec<u8>, String> {
    io::read_capped(path, "certificates", io::MAX_CERT_INPUT).map_err(|f| f.to_string())
}

/// The certificates of `data`, read from `path`: at least one.
fn certs_of(path: Option<&str>, data: &[u8]) -> Result<Vec<Certificate>, String> {
    let name = io::input_name(path);
    let certs = cert::read_certs(data).map_err(|e| format!("{name}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{name}: no certificate in the file"));
    }
    Ok(certs)
}

/// Reads a certificate request.
pub fn load_csr(path: Option<&str>, inform: Option<Format>) -> CmdResult<CertReq> {
    let name = io::input_name(path).to_string();
    let data = io::read_small(path, "a certificate request")?;
    match inform {
        Some(Format::Der) => cert::csr_from_der(&data),
        Some(Format::Pem) => cert::csr_from_pem(&data),
        None => cert::read_csr(&data),
    }
    .map_err(|e| Fail::msg(format!("{name}: could not read certificate request: {e}")))
}

/// A certificate's encoding.
pub fn cert_bytes(c: &Certificate, format: Format) -> CmdResult<Vec<u8>> {
    let bytes = match format {
        Format::Pem => cert::to_pem(c).map(String::into_bytes),
        Format::Der => cert::to_der(c),
    };
    bytes.map_err(|e| pki_fail("encoding the certificate", e))
}

/// A request's encoding.
pub fn csr_bytes(c: &CertReq, format: Format) -> CmdResult<Vec<u8>> {
    let bytes = match format {
        Format::Pem => cert::csr_to_pem(c).map(String::into_bytes),
        Format::Der => cert::csr_to_der(c),
    };
    bytes.map_err(|e| pki_fail("encoding the request", e))
}

/// The digest named by the last digest switch, if any.
pub fn digest_flag(dynamic: &[String]) -> CmdResult<Option<HashAlg>> {
    dynamic.last().map(|d| super::digest_by_name(d)).transpose()
}

/// The signature scheme: PKCS#1 v1.5 with the digest (SHA-256 by default), or PSS with
/// `-sigopt rsa_padding_mode:pss` (salt length `max` by default, as OpenSSL 3.0 signs).
pub fn scheme(digest: Option<HashAlg>, sigopts: &[&str]) -> CmdResult<SigScheme> {
    let opts = RsaOpts::parse(sigopts, "sigopt")?;
    let hash = digest.or(opts.digest).unwrap_or(HashAlg::Sha256);
    match opts.padding() {
        Padding::Pkcs1 => {
            opts.check_for(Padding::Pkcs1, "sigopt")?;
            Ok(SigScheme::Pkcs1v15(hash))
        }
        Padding::Pss => Ok(SigScheme::Pss(opts.pss(hash, true))),
        _ => Err(Fail::msg("-sigopt: certificates are signed with pkcs1 or pss padding")),
    }
}

/// Writes `data` to `-out` (stdout by default).
pub fn write_public(path: Option<&str>, data: &[u8]) -> CmdResult {
    let mut out = Output::create(path, Mode::Public)?;
    out.put(data)?;
    out.commit()
}

/// A serial number of this magnitude (positive: a leading zero byte where the top bit is
/// set, as DER wants).
pub fn serial_of(magnitude: &[u8]) -> CmdResult<x509_cert::serial_number::SerialNumber> {
    let start = magnitude.iter().position(|&b| b != 0).unwrap_or(magnitude.len().saturating_sub(1));
    let mut bytes = magnitude[start..].to_vec();
    if bytes.first().is_none_or(|b| b & 0x80 != 0) {
        bytes.insert(0, 0);
    }
    x509_cert::serial_number::SerialNumber::new(&bytes)
        .map_err(|e| Fail::msg(format!("serial number: {e}")))
}

/// The serial number of this magnitude, else a random one as OpenSSL draws them.
pub fn serial_or_random(
    magnitude: Option<&[u8]>,
) -> CmdResult<x509_cert::serial_number::SerialNumber> {
    match magnitude {
        Some(m) => serial_of(m),
        None => cryptocard_pki::cert::new_serial().map_err(|e| pki_fail("a random serial", e)),
    }
}

/// An OpenSSL configuration file (`ca -config`, `x509 -extfile`, `req -config`), with the
/// files its `.include` lines name.
pub fn load_conf(path: &str) -> CmdResult<cryptocard_pki::conf::Conf> {
    cryptocard_pki::conf::Conf::load(std::path::Path::new(path)).map_err(|e| match e {
        cryptocard_pki::Error::Malformed(why) => Fail::msg(why),
        other => Fail::msg(format!("{path}: {other}")),
    })
}
