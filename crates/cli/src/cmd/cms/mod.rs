//! `cryptocard cms` and `cryptocard smime`: CMS (RFC 5652) and PKCS#7 signatures and
//! envelopes, as `openssl cms` and `openssl smime`.
//!
//! ```text
//! cryptocard cms -sign -in F [-in F2 ... | -inlist LIST -outdir DIR] -signer CERT
//!                [-inkey KEY] [-md NAME] [-keyopt rsa_padding_mode:pss] [-nodetach]
//!                [-certfile F] [-nocerts] [-noattr] [-nosmimecap] [-keyid]
//! cryptocard cms -verify -in F [-content F] [-CAfile F] [-CApath D] [-no-CAfile]
//!                [-certfile F] [-noverify]
//!                [-partial_chain] [-signer OUT]
//! cryptocard cms -encrypt -in F [-des|-des3|-aes128|-aes192|-aes256] [-recip] CERT...
//!                [-keyopt rsa_padding_mode:oaep] [-keyid]
//! cryptocard cms -decrypt -in F -inkey KEY [-recip CERT]
//! cryptocard cms -cmsout -in F -inform .. -outform ..
//! common: [-inform|-outform SMIME|PEM|DER] [-binary] [-text] [-out F] [-passin ARG]
//! ```
//!
//! As in OpenSSL: signatures are detached unless `-nodetach`; S/MIME is the default
//! format; without `-binary` the content is signed or encrypted in canonical text form
//! (lines end CRLF, `cryptocard_pki::cms::canonical_text`); `-text` adds (when signing or
//! encrypting) or strips and checks (when verifying or decrypting) a `text/plain` MIME
//! header. Exit status: 1 bad options, 2 an input that cannot be read, 3 a message that
//! cannot be made or parsed, 4 verification or decryption failed, 5 the signers'
//! certificates could not be written.
//!
//! Many documents at once (`-in` repeated, or `-inlist` with one path a line) sign
//! through one engine, so their RSA operations batch: each output goes to `-outdir` as
//! the input's file name with `.p7s` (detached) or `.p7m` added. An input that fails is
//! reported and the others are still written; the exit status is then 3.

mod decrypt;
mod encrypt;
mod sign;
mod verify;

use super::Spec;
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, ReadOptions};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::Certificate;
use cryptocard_pki::cms::smime::Style;
use cryptocard_pki::cms::{ContentCipher, Format, Kind};

/// `cms` or `smime`: the header style, PEM label and messages differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    Cms,
    Smime,
}

impl Flavor {
    fn style(self) -> Style {
        match self {
            Flavor::Cms => Style::Cms,
            Flavor::Smime => Style::Pkcs7,
        }
    }

    fn pem_label(self) -> &'static str {
        match self {
            Flavor::Cms => "CMS",
            Flavor::Smime => "PKCS7",
        }
    }

    fn verified_line(self) -> &'static str {
        match self {
            Flavor::Cms => "CMS Verification successful",
            Flavor::Smime => "Verification successful",
        }
    }

    fn failed_line(self) -> &'static str {
        match self {
            Flavor::Cms => "CMS Verification failure",
            Flavor::Smime => "Verification failure",
        }
    }
}

const FLAGS: &[Flag] = &[
    Flag::switch("sign").about("Sign the input"),
    Flag::switch("verify").about("Verify a signed message"),
    Flag::switch("encrypt").about("Encrypt the input for the recipient certificates"),
    Flag::switch("decrypt").about("Decrypt an enveloped message"),
    Flag::switch("cmsout").about("Read a message and write it in -outform"),
    Flag::switch("pk7out").about("As -cmsout, always PEM (smime's name)"),
    Flag::value("in", "FILE").about("Input file (repeat, or -inlist, to sign many)"),
    Flag::value("inlist", "FILE").about("A file naming one input to sign per line"),
    Flag::value("outdir", "DIR").about("Directory for the outputs of many inputs"),
    Flag::value("out", "FILE").about("Output file (default stdout)"),
    Flag::value("inform", "SMIME|PEM|DER").about("Input format (default SMIME)"),
    Flag::value("outform", "SMIME|PEM|DER").about("Output format (default SMIME)"),
    Flag::value("content", "FILE").about("The content of a detached signature"),
    Flag::switch("binary").about("Content is binary: no CRLF canonical form"),
    Flag::switch("text").about("Add (sign, encrypt) or strip a text/plain MIME header"),
    Flag::switch("nodetach").about("Put the content inside the signed message"),
    Flag::switch("detached").about("Leave the content out (the default)"),
    Flag::value("signer", "FILE").about("Signer certificate (repeat); with -verify, output file"),
    Flag::value("certsout", "FILE").about("-verify, -cmsout: write the message's certificates"),
    Flag::value("inkey", "FILE").about("Private key (one per -signer; default: the signer file)"),
    Flag::value("keyform", "PEM|DER").about("Key format (default: by content)"),
    Flag::value("passin", "ARG").about("Key password source"),
    Flag::value("md", "NAME").about("Signing digest (default sha256)"),
    Flag::value("keyopt", "OPT:VALUE").about("RSA option: rsa_padding_mode:pss|oaep, ..."),
    Flag::value("certfile", "FILE").about("More certificates (sign: include; verify: search)"),
    Flag::value("CAfile", "FILE").about("Trusted root certificates"),
    Flag::value("CApath", "DIR").about("A hashed directory of trusted certificates"),
    Flag::switch("no-CAfile").about("Not the system's roots when no -CAfile is given"),
    Flag::switch("no-CApath").about("No default directory (none is read here)"),
    Flag::switch("noverify").about("Do not verify the signers' certificate chains"),
    Flag::switch("partial_chain").about("Any -CAfile certificate may end a chain"),
    Flag::switch("crl_check").about("Check the signers' certificates against CRLs"),
    Flag::switch("crl_check_all").about("Check the signers' whole paths against CRLs"),
    Flag::value("attime", "SECONDS").about("Check the chains at this time (seconds since 1970)"),
    Flag::value("verify_email", "ADDRESS").about("The signers must be for this email address"),
    Flag::value("policy", "OID").about("A policy acceptable for the signers' paths (repeat)"),
    Flag::switch("explicit_policy").about("Require a valid policy for the signers' paths"),
    Flag::switch("inhibit_any").about("anyPolicy does not stand for other policies"),
    Flag::switch("inhibit_map").about("Policy mappings are not followed"),
    Flag::switch("policy_check").about("Accepted for OpenSSL compatibility (always on)"),
    Flag::switch("x509_strict").about("RFC 5280's rules for conforming CAs' certificates"),
    Flag::switch("nocerts").about("Do not include the signer's certificate"),
    Flag::switch("noattr").about("No signed attributes"),
    Flag::switch("nosmimecap").about("No S/MIME capabilities attribute"),
    Flag::value("recip", "FILE").about("Recipient certificate (encrypt: repeat; decrypt: which)"),
    Flag::switch("keyid").about("Name signers and recipients by subject key identifier"),
    Flag::switch("stream").about("Accepted for OpenSSL compatibility (output is DER)"),
    Flag::switch("indef").about("Accepted for OpenSSL compatibility (output is DER)"),
    Flag::switch("noindef").about("Accepted for OpenSSL compatibility"),
];

const NOTES: &str = "Content ciphers (-encrypt): -des -des3 -aes128 -aes192 -aes256 (default), \
or any of those names in full (-aes-256-cbc).\n\
RSA options (-keyopt): rsa_padding_mode:pkcs1|pss|oaep, rsa_pss_saltlen:, rsa_mgf1_md:,\n\
rsa_oaep_md:, rsa_oaep_label:, as pkeyutl takes them.\n";

const CMS_SPEC: Spec = Spec {
    usage: "cms [options] [recipient certificates...]",
    flags: FLAGS,
    notes: NOTES,
    more: None,
};
const SMIME_SPEC: Spec = Spec {
    usage: "smime [options] [recipient certificates...]",
    flags: FLAGS,
    notes: NOTES,
    more: None,
};

/// Runs `cms`.
pub fn main(argv: &[String]) -> CmdResult {
    run(argv, Flavor::Cms)
}

/// Runs `smime`.
pub fn smime_main(argv: &[String]) -> CmdResult {
    run(argv, Flavor::Smime)
}

fn run(argv: &[String], flavor: Flavor) -> CmdResult {
    let spec = if flavor == Flavor::Cms { &CMS_SPEC } else { &SMIME_SPEC };
    let Some(a) = spec.parse_with(argv, &|name| ContentCipher::from_name(name).is_some())? else {
        return Ok(());
    };
    if flavor == Flavor::Smime && a.has("keyopt") {
        // PKCS#7 (RFC 2315) knows PKCS#1 v1.5 only: `openssl smime` has no -keyopt, and
        // reads an OAEP envelope as PKCS#1 v1.5 (and fails to decrypt it).
        return Err(Fail::msg("-keyopt (PSS, OAEP) is for cms: PKCS#7 has only PKCS#1 v1.5"));
    }
    let ops = ["sign", "verify", "encrypt", "decrypt", "cmsout", "pk7out"];
    let given: Vec<&str> = ops.iter().copied().filter(|op| a.has(op)).collect();
    let ctx = Ctx { a: &a, flavor };
    match given.as_slice() {
        ["sign"] => sign::run(&ctx),
        ["verify"] => verify::run(&ctx),
        ["encrypt"] => encrypt::run(&ctx),
        ["decrypt"] => decrypt::run(&ctx),
        ["cmsout" | "pk7out"] => convert(&ctx),
        [] => Err(Fail::msg("no operation: give -sign, -verify, -encrypt, -decrypt or -cmsout")),
        _ => Err(Fail::msg(format!("more than one operation: -{}", given.join(" -")))),
    }
}

/// A verification or decryption failure: exit status 3 for a structure that does not
/// parse, 4 for one that parses but fails, as OpenSSL separates them.
pub(crate) fn failed(what: &str, e: &cryptocard_pki::Error) -> Fail {
    match e {
        cryptocard_pki::Error::Malformed(_) => fail(3, format!("Error reading CMS structure\n{e}")),
        _ => fail(4, format!("{what}\n{e}")),
    }
}

/// What every operation reads its options from.
pub(crate) struct Ctx<'a> {
    a: &'a Parsed,
    flavor: Flavor,
}

/// A failure with OpenSSL's exit status for its kind.
pub(crate) fn fail(code: i32, line: impl Into<String>) -> Fail {
    let mut f = Fail::bare(line);
    f.code = code;
    f
}

impl Ctx<'_> {
    /// `-inform`/`-outform`: SMIME (the default), PEM or DER.
    fn format(&self, flag: &str) -> CmdResult<Format> {
        match self.a.value(flag).map(str::to_ascii_uppercase).as_deref() {
            None | Some("SMIME") => Ok(Format::Smime),
            Some("PEM") => Ok(Format::Pem),
            Some("DER") => Ok(Format::Der),
            Some(other) => Err(Fail::msg(format!("-{flag}: SMIME, PEM or DER, not '{other}'"))),
        }
    }

    /// The one input (`-in`, stdin without it).
    fn input(&self) -> CmdResult<Vec<u8>> {
        io::read_input(self.a.value("in")).map_err(|f| fail(2, f.to_string()))
    }

    /// Reads the message in `-inform`: its DER and a multipart's detached content.
    fn read_message(&self) -> CmdResult<(Vec<u8>, Option<Vec<u8>>)> {
        let input = self.input()?;
        cryptocard_pki::cms::read(&input, self.format("inform")?)
            .map_err(|e| fail(3, format!("Error reading S/MIME message: {e}")))
    }

    /// `-certsout`: every certificate the message carries, written before the message is
    /// checked, as `openssl cms` writes them (an empty file for a message that carries
    /// none).
    fn certs_out(&self, der: &[u8]) -> CmdResult {
        let Some(path) = self.a.value("certsout") else { return Ok(()) };
        let (certs, _) = cryptocard_pki::cms::certs_and_crls(der).unwrap_or_default();
        write_pem_certs(path, &certs)
    }

    /// Writes `data` to `-out` (stdout without it) as a whole, or nothing.
    fn write(&self, data: &[u8], mode: Mode) -> CmdResult {
        let mut out = Output::create(self.a.value("out"), mode)?;
        out.put(data)?;
        out.commit()
    }

    /// Every certificate in the files `flag` names, in order.
    fn certs(&self, flag: &str) -> CmdResult<Vec<Certificate>> {
        let mut all = Vec::new();
        for path in self.a.values(flag) {
            all.extend(load_certs(path)?);
        }
        Ok(all)
    }

    /// The private key in `path` (`-keyform`, `-passin`).
    fn key(&self, path: &str) -> CmdResult<RsaPrivateKey> {
        let keyform = keyfile::format(self.a.value("keyform"), "keyform")?;
        keyfile::load_private(Some(path), keyform, self.a.value("passin"), &ReadOptions::default())
            .map_err(|f| fail(2, f.to_string()))
    }

    /// The content as given, or in canonical text form (no `-binary`), with `-text`'s
    /// header.
    fn prepare_content(&self, raw: &[u8]) -> Vec<u8> {
        if self.a.has("binary") {
            return raw.to_vec();
        }
        let canonical = cryptocard_pki::cms::canonical_text(raw);
        if self.a.has("text") {
            cryptocard_pki::cms::add_text_header(&canonical)
        } else {
            canonical
        }
    }

    /// Content for output: with `-text`, without its `text/plain` header (an error if it
    /// has none).
    fn output_content<'c>(&self, content: &'c [u8]) -> CmdResult<&'c [u8]> {
        if !self.a.has("text") {
            return Ok(content);
        }
        cryptocard_pki::cms::strip_text_header(content)
            .ok_or_else(|| fail(4, "invalid mime type: the content is not text/plain"))
    }
}

/// Writes `certs` to `path` as PEM (`-signer` and `-certsout` of `-verify`), exit status 5
/// if they cannot be written.
fn write_pem_certs(path: &str, certs: &[Certificate]) -> CmdResult {
    let mut pem = String::new();
    for cert in certs {
        pem.push_str(&cryptocard_pki::cert::to_pem(cert).map_err(|e| fail(5, e.to_string()))?);
    }
    let mut out = Output::create(Some(path), Mode::Public).map_err(|f| fail(5, f.to_string()))?;
    out.put(pem.as_bytes()).map_err(|f| fail(5, f.to_string()))?;
    out.commit().map_err(|f| fail(5, f.to_string()))
}

/// The certificates in a PEM or DER file (exit status 2 if it cannot be read, or holds
/// more than [`io::MAX_CERT_INPUT`] bytes).
fn load_certs(path: &str) -> CmdResult<Vec<Certificate>> {
    super::certio::read_cert_file(Some(path)).map_err(|e| fail(2, e))
}

/// `-cmsout`: read in `-inform`, write in `-outform`; S/MIME (the default) is one
/// `application/pkcs7-mime` entity, as OpenSSL's `SMIME_write_CMS` writes it. smime's
/// `-pk7out` writes PEM whatever `-outform` says, as `openssl smime` does.
fn convert(ctx: &Ctx<'_>) -> CmdResult {
    let (der, _) = ctx.read_message()?;
    let kind = cryptocard_pki::cms::kind_of(&der).map_err(|e| fail(3, e.to_string()))?;
    ctx.certs_out(&der)?;
    let format = if ctx.a.has("pk7out") { Format::Pem } else { ctx.format("outform")? };
    let out = if format == Format::Smime {
        let smime_type = match kind {
            Kind::Signed => "signed-data",
            Kind::Enveloped => "enveloped-data",
        };
        cryptocard_pki::cms::smime::write_mime(&der, smime_type, ctx.flavor.style())
    } else {
        cryptocard_pki::cms::write(&der, format, ctx.flavor.pem_label())
            .map_err(|e| fail(3, e.to_string()))?
    };
    ctx.write(&out, Mode::Public)
}
