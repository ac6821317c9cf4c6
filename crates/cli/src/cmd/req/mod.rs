//! `cryptocard req`: certificate requests (PKCS#10) and self-signed certificates, as
//! `openssl req`.
//!
//! ```text
//! cryptocard req -new [-x509] (-key F [-passin ARG] | -newkey rsa:N [-nodes] [-keyout F])
//!                -subj /CN=.../O=... [-days N] [-set_serial N] [-sha256 ...] [-addext EXT]...
//!                [-sigopt rsa_padding_mode:pss ...] [-out F] [-outform PEM|DER] [-text] [-noout]
//! cryptocard req -new -config F [-key F | -newkey rsa[:N]] [-subj ..] [-x509 [-extensions S]]
//!                [-reqexts S] ...
//! cryptocard req -in CSR [-inform PEM|DER] [-verify] [-text] [-noout] [-pubkey] [-out F]
//! ```
//!
//! `-x509` makes a self-signed CA certificate with OpenSSL 3's default extensions (key
//! identifiers, basicConstraints CA:TRUE) and a keyUsage for certificate signing, valid
//! for 30 days unless `-days` says; without it a request is written. Signatures are
//! PKCS#1 v1.5 with SHA-256 unless a digest flag or `-sigopt` says otherwise (PSS with
//! OpenSSL 3.0's maximum salt length by default). `-newkey rsa:N` makes a key and writes
//! it (PKCS#8, owner-only, unencrypted: there is no prompt) to `-keyout`, `privkey.pem` by
//! default as OpenSSL does. `-verify` checks a request's self-signature and says so on
//! stderr (`Certificate request self-signature verify OK`), exit 1 if it fails. The
//! subject must be given with `-subj`: there is no prompting. `-addext NAME=VALUE` adds an
//! extension in OpenSSL's extension language (`subjectAltName=DNS:a,IP:b`,
//! `keyUsage=critical,digitalSignature`, ...): to the request's extensionRequest, or to
//! the `-x509` certificate in place of a default of its type.
//!
//! `-config F` reads OpenSSL's `[ req ]` section (`conf`): the subject of `prompt = no`,
//! `default_md`, `default_bits` (a key is made when neither `-key` nor `-newkey` is
//! given, written to `-keyout`, `default_keyfile` or `privkey.pem`), and the extension
//! sections `req_extensions` (`-reqexts`) and `x509_extensions` (`-extensions`), then
//! `-addext`. With a configuration, a `-x509` certificate has OpenSSL's extensions, not
//! ours: the section's, `-addext`'s and the subject key identifier OpenSSL 3.0 adds
//! (none at all: version 1), the same bytes as `openssl req -x509 -config` for the same
//! serial and dates. A request may have both a section and `-addext`, which OpenSSL 3.0
//! refuses ("duplicate attribute").

mod conf;

use super::certio::{self, pki_fail};
use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use crate::keyfile::{self, Format, ReadOptions};
use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};
use cryptocard_pki::cert::{self, CertBuilder};

const SPEC: Spec = Spec {
    usage: "req [options]",
    flags: &[
        Flag::switch("new").about("Make a new request"),
        Flag::switch("x509").about("Make a self-signed certificate instead of a request"),
        Flag::value("key", "FILE").about("The private key to use"),
        Flag::value("keyform", "PEM|DER").about("Key format (default: by content)"),
        Flag::value("passin", "ARG").about("Private key password source"),
        Flag::value("newkey", "rsa:BITS").about("Make a new RSA key of BITS bits"),
        Flag::value("keyout", "FILE").about("Where -newkey writes the key (default privkey.pem)"),
        Flag::switch("nodes").about("Do not encrypt the new key (always so)"),
        Flag::switch("noenc").about("Do not encrypt the new key (always so)"),
        Flag::value("subj", "/CN=...").about("The subject name"),
        Flag::value("days", "N").about("Days a -x509 certificate is valid (default 30)"),
        Flag::value("set_serial", "N").about("Serial number of a -x509 certificate"),
        Flag::value("sigopt", "OPT:VALUE").about("Signature options (rsa_padding_mode:pss, ...)"),
        Flag::value("addext", "EXT")
            .about("Add an extension: subjectAltName=DNS:name,IP:addr,... (any of x509v3_config)"),
        Flag::value("config", "FILE").about("OpenSSL configuration: its [ req ] section"),
        Flag::value("extensions", "SECT").about("-x509: the extension section (x509_extensions)"),
        Flag::value("reqexts", "SECT").about("The request's extension section (req_extensions)"),
        Flag::value("in", "FILE").about("Read a request (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("verify").about("Check the request's self-signature"),
        Flag::switch("text").about("Print the request or certificate as text"),
        Flag::switch("pubkey").about("Print the public key"),
        Flag::switch("subject").about("Print the subject name"),
        Flag::switch("modulus").about("Print the RSA modulus"),
        certio::NAMEOPT_FLAG,
        Flag::switch("noout").about("Do not write the request or certificate"),
        keyfile::MAX_ITER_FLAG,
    ],
    notes: "-sha256, -sha384, ...: the signature's digest (default SHA-256)\n",
    more: None,
};

/// Runs `req`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &super::dgst::is_digest)? else { return Ok(()) };
    no_positional(&a)?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let making = a.has("new") || a.has("x509") || a.has("newkey");
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    if !making {
        let csr = certio::load_csr(a.value("in"), keyfile::format(a.value("inform"), "inform")?)?;
        if a.has("verify") {
            verify(&csr)?;
        }
        put_request(&mut out, &a, &csr, outform)?;
        return out.commit();
    }
    let rc = match a.value("config") {
        Some(path) => Some(conf::ReqConf::new(certio::load_conf(path)?)?),
        None => None,
    };
    let default_bits = rc.as_ref().map(conf::ReqConf::default_bits).transpose()?.flatten();
    let key = match (a.value("key"), a.value("newkey")) {
        (Some(_), Some(_)) => return Err(Fail::msg("give -key or -newkey, not both")),
        (Some(path), None) => {
            let read = ReadOptions::from_args(&a)?;
            let keyform = keyfile::format(a.value("keyform"), "keyform")?;
            keyfile::load_private(Some(path), keyform, a.value("passin"), &read)?
        }
        (None, Some(spec)) => new_key(spec, default_bits)?,
        // With a configuration, OpenSSL makes a key of its default_bits.
        (None, None) if rc.is_some() => new_key("rsa", default_bits)?,
        (None, None) => return Err(Fail::msg("a new request needs -key FILE or -newkey rsa:BITS")),
    };
    let new = a.value("key").is_none();
    let subject = match (a.value("subj"), rc.as_ref()) {
        (Some(s), _) => cert::parse_subject(s).map_err(|e| pki_fail("-subj", e))?,
        (None, Some(rc)) => rc.subject()?.ok_or_else(|| {
            Fail::msg("give the subject with -subj /CN=... (or prompt = no in the configuration)")
        })?,
        (None, None) => return Err(Fail::msg("give the subject with -subj /CN=...")),
    };
    let digest = match certio::digest_flag(&a.dynamic)? {
        Some(d) => Some(d),
        None => rc.as_ref().map(conf::ReqConf::digest).transpose()?.flatten(),
    };
    let scheme = certio::scheme(digest, &a.values("sigopt"))?;
    let spki =
        cryptocard_pki::sig::spki_of(key.public_key()).map_err(|e| pki_fail("the key", e))?;
    let given = a.value("set_serial").map(parse_serial).transpose()?;
    let serial = certio::serial_or_random(given.as_deref())?;
    let ctx = cert::ExtContext {
        conf: rc.as_ref().map(conf::ReqConf::conf),
        subject_name: Some(&subject),
        subject_key: Some(&spki),
        issuer: None,
        serial: Some(&serial),
    };
    // The configuration's section (as OpenSSL: then -addext, each replacing its type).
    let (flag, key_name) = if a.has("x509") {
        ("extensions", "x509_extensions")
    } else {
        ("reqexts", "req_extensions")
    };
    let mut extensions = match (&rc, a.value(flag).or(rc.as_ref().and_then(|r| r.value(key_name))))
    {
        (Some(rc), Some(section)) => cert::section_extensions(rc.conf(), section, &ctx)
            .map_err(|e| pki_fail(&format!("[ {section} ]"), e))?,
        (None, Some(_)) => {
            return Err(Fail::msg(format!("-{flag} names a section of -config: give -config")));
        }
        _ => Vec::new(),
    };
    for spec in a.values("addext") {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| Fail::msg(format!("-addext '{spec}': expected NAME=VALUE")))?;
        if let Some(ext) = cert::conf_extension(name.trim(), value.trim(), &ctx, &extensions)
            .map_err(|e| pki_fail("-addext", e))?
        {
            cert::add_replacing(&mut extensions, ext);
        }
    }
    if a.has("x509") {
        let days = a.parsed::<u32>("days")?.unwrap_or(30);
        let mut b = CertBuilder::for_spki(subject.clone(), spki.clone())
            .days(days)
            .scheme(scheme)
            .serial(serial.as_bytes());
        if rc.is_some() {
            // OpenSSL's way: the section's and -addext's extensions, then the subject
            // key identifier OpenSSL 3.0 adds (no extensions: version 1).
            cert::key_id_defaults(&mut extensions, &ctx, true)
                .map_err(|e| pki_fail("extensions", e))?;
            b = b.profile(cert::Profile::V1);
        } else {
            cert::drop_disabled(&mut extensions);
        }
        for ext in extensions {
            b = b.extension(ext);
        }
        let c = b.self_signed(&key).map_err(|e| pki_fail("signing the certificate", e))?;
        if a.has("pubkey") {
            out.put(&pubkey_pem(c.tbs_certificate().subject_public_key_info())?)?;
        }
        let names = certio::name_opt(&a)?;
        if a.has("text") {
            let text = cert::cert_text_with(&c, names).map_err(|e| pki_fail("printing", e))?;
            out.put(text.as_bytes())?;
        }
        if a.has("subject") {
            out.put(&cert::print_titled("subject=", c.tbs_certificate().subject(), names))?;
        }
        put_modulus(&mut out, &a, c.tbs_certificate().subject_public_key_info())?;
        if !a.has("noout") {
            out.put(&certio::cert_bytes(&c, outform)?)?;
        }
    } else {
        cert::drop_disabled(&mut extensions);
        let csr = cert::make_csr_with(&key, subject.clone(), &scheme, &extensions)
            .map_err(|e| pki_fail("signing the request", e))?;
        put_request(&mut out, &a, &csr, outform)?;
    }
    // Everything is checked and made: only now the new key is written, then the output.
    if new {
        let keyout = a
            .value("keyout")
            .or(rc.as_ref().and_then(|r| r.value("default_keyfile")))
            .unwrap_or("privkey.pem");
        super::genpkey::write_key(&key, Some(keyout), Format::Pem, false, None, false)?;
    }
    out.commit()
}

/// Writes what the flags ask of a request: its public key, its text, its subject, its
/// modulus, itself.
fn put_request(
    out: &mut Output,
    a: &crate::args::Parsed,
    csr: &cert::CertReq,
    outform: Format,
) -> CmdResult {
    if a.has("pubkey") {
        out.put(&pubkey_pem(&csr.info.public_key)?)?;
    }
    let names = certio::name_opt(a)?;
    if a.has("text") {
        out.put(cert::csr_text_with(csr, names).map_err(|e| pki_fail("printing", e))?.as_bytes())?;
    }
    if a.has("subject") {
        out.put(&cert::print_titled("subject=", &csr.info.subject, names))?;
    }
    put_modulus(out, a, &csr.info.public_key)?;
    if !a.has("noout") {
        out.put(&certio::csr_bytes(csr, outform)?)?;
    }
    Ok(())
}

/// `-modulus`: the RSA modulus of `spki`, as `x509 -modulus` prints it.
fn put_modulus(
    out: &mut Output,
    a: &crate::args::Parsed,
    spki: &cryptocard::rsa::spki::SubjectPublicKeyInfoOwned,
) -> CmdResult {
    if !a.has("modulus") {
        return Ok(());
    }
    match cryptocard_pki::sig::public_key_from_spki(spki) {
        Ok(key) => out.put(super::rsa::modulus_line(&key).as_bytes()),
        Err(_) => out.put(b"Modulus=Wrong Algorithm type\n"),
    }
}

/// Checks a request's self-signature, saying so on stderr as OpenSSL 3.0 does.
pub(super) fn verify(csr: &cert::CertReq) -> CmdResult {
    match cert::verify_csr(csr) {
        Ok(()) => {
            eprintln!("Certificate request self-signature verify OK");
            Ok(())
        }
        Err(_) => Err(Fail::bare("Certificate request self-signature verify failure")),
    }
}

/// The public key of a SubjectPublicKeyInfo as PEM.
pub(super) fn pubkey_pem(
    spki: &cryptocard::rsa::spki::SubjectPublicKeyInfoOwned,
) -> CmdResult<Vec<u8>> {
    let key = cryptocard_pki::sig::public_key_from_spki(spki)
        .map_err(|e| pki_fail("reading the public key", e))?;
    keyfile::encode_public(&key, Format::Pem, false)
}

/// `-newkey rsa:BITS` (or `rsa` for `default_bits`, 2048 without): makes the key, which
/// `main` writes to `-keyout` once the request or certificate is made.
fn new_key(spec: &str, default_bits: Option<usize>) -> CmdResult<RsaPrivateKey> {
    let bits = match spec.split_once(':') {
        Some((alg, bits)) if alg.eq_ignore_ascii_case("rsa") => {
            bits.parse().map_err(|_| Fail::msg(format!("-newkey: invalid key size '{bits}'")))?
        }
        None if spec.eq_ignore_ascii_case("rsa") => {
            default_bits.unwrap_or(super::genpkey::DEFAULT_BITS)
        }
        _ => return Err(Fail::msg(format!("-newkey {spec}: only rsa:BITS keys are made"))),
    };
    super::genpkey::generate(KeyGenOptions::new(bits))
}

/// `-set_serial`: decimal, or hex after `0x`, as OpenSSL reads it; big-endian bytes.
pub(super) fn parse_serial(s: &str) -> CmdResult<Vec<u8>> {
    let bad = || Fail::msg(format!("-set_serial: invalid serial '{s}'"));
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16u32),
        None => (s, 10),
    };
    if digits.is_empty() || digits.len() > 48 {
        return Err(bad());
    }
    // Big-endian bytes by repeated multiply-add: serials are at most 20 bytes.
    let mut bytes: Vec<u8> = vec![0];
    for c in digits.chars() {
        let mut carry = c.to_digit(radix).ok_or_else(bad)?;
        for b in bytes.iter_mut().rev() {
            let v = u32::from(*b) * radix + carry;
            *b = v as u8;
            carry = v >> 8;
        }
        while carry > 0 {
            bytes.insert(0, carry as u8);
            carry >>= 8;
        }
    }
    if bytes.len() > 20 {
        return Err(bad());
    }
    Ok(bytes)
}
