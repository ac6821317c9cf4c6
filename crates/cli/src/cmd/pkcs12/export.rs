//! `pkcs12 -export`: a key and certificates into a PKCS#12 file.

use crate::args::Parsed;
use crate::cmd::certio::{pki_fail, read_cert_file};
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, ReadOptions, Want};
use crate::pass;
use crate::secret_read;
use cryptocard::digest::HashAlg;
use cryptocard::pbe::{PBKDF2_ITERATIONS, PbeScheme};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaKey, RsaPrivateKey};
use cryptocard_pki::cert::{self, Certificate, PathBudget, PathChecks, Purpose, TrustStore};
use cryptocard_pki::pkcs12::Pkcs12Builder;
use cryptocard_pki::sig::public_key_from_spki;
use std::io::Write;
use std::time::SystemTime;

/// A scheme flag's value: `NONE`, or a scheme [`PbeScheme::from_name`] knows.
fn scheme(value: &str, flag: &str) -> CmdResult<Option<PbeScheme>> {
    if value.eq_ignore_ascii_case("NONE") {
        return Ok(None);
    }
    PbeScheme::from_name(value).map(Some).ok_or_else(|| {
        Fail::msg(format!("-{flag}: unknown or unsupported scheme '{value}' (see -help)"))
    })
}

/// The iteration count of the schemes: `-iter N`, `-noiter` (1), or 2048.
fn iterations(a: &Parsed) -> CmdResult<u32> {
    if a.has("noiter") {
        return Ok(1);
    }
    match a.parsed::<u32>("iter")? {
        Some(0) => Err(Fail::msg("-iter: at least 1")),
        Some(n) => Ok(n),
        None => Ok(PBKDF2_ITERATIONS),
    }
}

fn builder_schemes<'a>(a: &Parsed, b: Pkcs12Builder<'a>) -> CmdResult<Pkcs12Builder<'a>> {
    let mut b = if a.has("legacy") { b.legacy() } else { b };
    let n = iterations(a)?;
    let with_iter = |s: Option<PbeScheme>| -> CmdResult<Option<PbeScheme>> {
        s.map(|s| s.with_iterations(n).map_err(|e| Fail::lib("-iter", e))).transpose()
    };
    let legacy_cert = if a.has("legacy") { "PBE-SHA1-RC2-40" } else { "AES-256-CBC" };
    let legacy_key = if a.has("legacy") { "PBE-SHA1-3DES" } else { "AES-256-CBC" };
    let cert_name =
        if a.has("descert") { "PBE-SHA1-3DES" } else { a.value("certpbe").unwrap_or(legacy_cert) };
    b = b.cert_scheme(with_iter(scheme(cert_name, "certpbe")?)?);
    b = b.key_scheme(with_iter(scheme(a.value("keypbe").unwrap_or(legacy_key), "keypbe")?)?);
    let mac_iter = if a.has("nomaciter") { 1 } else { PBKDF2_ITERATIONS };
    let mac_hash = match a.value("macalg") {
        Some(name) => HashAlg::from_name(name)
            .ok()
            .filter(|h| h.output_len() >= 20 && !matches!(h, HashAlg::Ripemd160))
            .ok_or_else(|| {
                Fail::msg(format!(
                    "-macalg: '{name}' is not a MAC digest here (sha1, sha256, sha384, sha512, ...)"
                ))
            })?,
        None if a.has("legacy") => HashAlg::Sha1,
        None => HashAlg::Sha256,
    };
    Ok(b.mac((!a.has("nomac")).then_some((mac_hash, mac_iter))))
}

/// Whether `cert` holds `key`'s public key.
fn matches(cert: &Certificate, key: &RsaPrivateKey) -> bool {
    public_key_from_spki(cert.tbs_certificate().subject_public_key_info())
        .is_ok_and(|p| &p == key.public_key())
}

/// The certificates above `ee` on its verified path (its issuer first, the root last):
/// `-chain`, as OpenSSL's `get_cert_chain` finds them, through `-untrusted` alone to the
/// trusted certificates of `-CAfile` and `-CApath` (or the system's), for any purpose,
/// now. A path that does not verify is its failure in OpenSSL's words.
fn chain(a: &Parsed, ee: &Certificate) -> CmdResult<Vec<Certificate>> {
    let store = TrustStore::new(super::super::verify::trusted_certs(a)?, false);
    let mut untrusted = Vec::new();
    for path in a.values("untrusted") {
        untrusted.extend(read_cert_file(Some(path)).map_err(Fail::msg)?);
    }
    let checks = PathChecks::new(SystemTime::now(), Purpose::Any);
    let report = store
        .verify_report(ee, &untrusted, &checks, &mut PathBudget::new())
        .map_err(|e| pki_fail("-chain", e))?;
    match report.failures.first() {
        None => Ok(report.path.into_iter().skip(1).collect()),
        Some(e) => Err(Fail::bare(format!("Error getting chain: {}", e.failure))),
    }
}

/// Runs `pkcs12 -export`.
pub fn run(a: &Parsed) -> CmdResult {
    let opts = ReadOptions::from_args(a)?;
    // Passwords first, as OpenSSL (a `stdin` password comes before the data).
    let passin = a.value("passin").map(pass::resolve).transpose()?;
    let passout = a.value("passout").or(a.value("password")).ok_or_else(|| {
        Fail::msg(
            "-export needs the file's password: give -passout (pass:, env:, file:, fd:, stdin)",
        )
    })?;
    let password = pass::resolve(passout)?;
    let in_path = a.value("in");
    let in_name = io::input_name(in_path).to_string();
    let input = secret_read::read_input(in_path, "certificates and a key")?;
    let mut certs = if a.has("nocerts") {
        Vec::new()
    } else {
        cert::certs_from_pem(&input).map_err(|e| Fail::msg(format!("{in_name}: {e}")))?
    };
    let key = if a.has("nokeys") {
        None
    } else {
        let pw = passin.as_deref().map(Vec::as_slice);
        let key = match a.value("inkey") {
            Some(path) => {
                let data = secret_read::read_input(Some(path), "a key")?;
                keyfile::parse(io::input_name(Some(path)), &data, None, pw, Want::Private, &opts)?
            }
            None => keyfile::parse(&in_name, &input, None, pw, Want::Private, &opts)?,
        };
        match key {
            RsaKey::Private(k) => Some(k),
            RsaKey::Public(_) => return Err(Fail::msg("internal error: a public key as private")),
        }
    };
    let leaf = match &key {
        Some(k) if !a.has("nocerts") => {
            let i = certs
                .iter()
                .position(|c| matches(c, k))
                .ok_or_else(|| Fail::msg("No certificate matches private key"))?;
            Some(certs.remove(i))
        }
        _ => None,
    };
    if a.has("chain") && a.has("nocerts") {
        eprintln!("Warning: -chain option ignored with -nocerts");
    } else if a.has("chain") {
        let ee = leaf
            .as_ref()
            .or(certs.first())
            .ok_or_else(|| Fail::msg("No end entity certificate to check with -chain"))?;
        for c in chain(a, ee)? {
            if !certs.contains(&c) {
                certs.push(c);
            }
        }
    }
    for path in a.values("certfile") {
        let more = read_cert_file(Some(path)).map_err(Fail::msg)?;
        certs.extend(more);
    }
    if key.is_none() && leaf.is_none() && certs.is_empty() {
        return Err(Fail::msg(format!("{in_name}: nothing to export (no key, no certificate)")));
    }
    let mut b = Pkcs12Builder::new().ca_certs(certs.iter());
    if let Some(k) = &key {
        b = b.key(k);
    }
    if let Some(c) = &leaf {
        b = b.cert(c);
    }
    if let Some(name) = a.value("name") {
        b = b.name(name);
    }
    b = b.ca_names(a.values("caname").into_iter().map(String::from).collect());
    let der = builder_schemes(a, b)?
        .build(&password, &mut OsRng)
        .map_err(|e| pki_fail("writing the PKCS#12 file", e))?;
    let mut out = Output::create(a.value("out"), Mode::Private)?;
    out.write_all(&der).map_err(|e| out.error(&e))?;
    out.commit()
}
