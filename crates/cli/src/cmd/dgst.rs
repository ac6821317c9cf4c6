//! `cryptocard dgst`: message digests and MACs of files, as OpenSSL 3's `openssl dgst`.
//!
//! ```text
//! cryptocard dgst [-md2|-md4|-md5|-sha1|-sha224|-sha256|-sha384|-sha512|-sha512-224|
//!                  -sha512-256] [-r|-c] [-hex|-binary] [-hmac KEY] [-mac NAME -macopt ...]
//!                 [-out F] [FILE ...]
//! cryptocard dgst [-DIGEST] -sign KEY [-passin ARG] [-keyform PEM|DER] [-sigopt OPT:VALUE ...]
//!                 [-max-iter N] [-recover-primes] [-hex] [-out F] FILE
//! cryptocard dgst [-DIGEST] (-verify PUBKEY | -prverify KEY) -signature F [-sigopt ...] FILE
//! ```
//!
//! Output lines as OpenSSL 3.0 prints them: `SHA2-256(file)= hex`, `(stdin)` for standard
//! input, `HMAC-SHA2-256(file)= hex` with a MAC or `RSA-SHA2-256(file)` with `-sign -hex`
//! (standard input's line names the digest alone: `SHA2-256(stdin)`, or nothing for a MAC
//! without a digest flag), `hex *file` with `-r`, colon-separated
//! bytes with `-c`, raw bytes with `-binary` (of `-hex`/`-binary` and of `-r`/`-c`, the last
//! given wins, as in OpenSSL). Without a digest flag the digest is SHA-256, printed under
//! OpenSSL's legacy name `SHA256`. A file that cannot be read is reported on stderr and
//! the others are still processed; the exit status is then 1, and an `-out` file is not
//! written (an existing one is left untouched), as no failing command replaces one.
//!
//! Signatures are RSA over the file's digest: PKCS#1 v1.5, or PSS with
//! `-sigopt rsa_padding_mode:pss` (options as `pkeyutl -pkeyopt`, see `rsaopt`). A
//! signature is written in binary unless `-hex` asks for `RSA-SHA2-256(file)= hex`;
//! verification prints `Verified OK`, or `Verification failure` and exits 1.

use super::Spec;
use super::mac::{self, Kind, Params};
use crate::args::Flag;
use crate::args::Parsed;
use crate::fail::{CmdResult, Fail};
use crate::hex;
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, ReadOptions, Want};
use crate::rsaopt::{Padding, RsaOpts};
use cryptocard::digest::{DynXof, HashAlg, Hasher, XofAlg};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};
use std::io::{Read, Write};

/// The longest `-xoflen` (a sanity bound, not a limit of the XOF).
const MAX_XOF_LEN: usize = 1 << 20;

const SPEC: Spec = Spec {
    usage: "dgst [options] [FILE ...]",
    flags: &[
        Flag::switch("list").about("List the digests"),
        Flag::switch("r").about("Output the digest in coreutils format (hex *file)"),
        Flag::switch("c").about("Print the digest with separating colons"),
        Flag::switch("hex").about("Print as hex dump (the default)"),
        Flag::switch("binary").about("Print in binary form"),
        Flag::value("out", "FILE").about("Output to FILE rather than stdout"),
        Flag::value("hmac", "KEY").about("Create a hashed MAC with KEY"),
        Flag::value("mac", "NAME")
            .about("Create a MAC (HMAC, CMAC, CBC-MAC, RETAIL-MAC; see mac -help)"),
        Flag::value("macopt", "OPT:VALUE").about("MAC parameter (key:, hexkey:, ...)"),
        Flag::value("xoflen", "N").about("Output length in bytes of -shake128/-shake256"),
        Flag::value("sign", "KEY").about("Sign the digest with the private key in KEY"),
        Flag::value("verify", "KEY").about("Verify a signature with the public key in KEY"),
        Flag::value("prverify", "KEY").about("Verify a signature with the private key in KEY"),
        Flag::value("signature", "FILE").about("The signature to verify"),
        Flag::value("sigopt", "OPT:VALUE").about("Signature option (rsa_padding_mode:pss, ...)"),
        Flag::value("passin", "ARG").about("Private key password source"),
        Flag::value("keyform", "PEM|DER").about("Key format (default: by content)"),
        keyfile::MAX_ITER_FLAG,
        keyfile::RECOVER_PRIMES_FLAG,
    ],
    notes: "Digests: -md2 -md4 -md5 -sha1 -sha224 -sha256 -sha384 -sha512 -sha512-224 -sha512-256\n\
-sha3-224 -sha3-256 -sha3-384 -sha3-512 (also spelled -sha2-256, -sha512/256, ...);\n\
XOFs -shake128 (16 bytes unless -xoflen) -shake256 (32 bytes unless -xoflen)\n",
    more: None,
};

/// What is computed over each file.
enum Job {
    Digest(HashAlg),
    Xof(XofAlg, usize),
    Mac(Params),
    Sign(Box<RsaPrivateKey>, HashAlg, RsaOpts),
    Verify(RsaPublicKey, HashAlg, RsaOpts, Vec<u8>),
}

/// Whether `name` is a digest or XOF flag (`-sha256`, `-shake128`).
pub fn is_digest(name: &str) -> bool {
    HashAlg::from_name(name).is_ok() || XofAlg::from_name(name).is_ok()
}

/// The digests by OpenSSL's lower-case names, sorted: what `openssl dgst -list` prints
/// (RIPEMD-160 also as `ripemd` and `rmd160`), or with `commands` what `openssl list
/// -digest-commands` prints (RIPEMD-160 as its command `rmd160` alone).
pub fn digest_names(commands: bool) -> Vec<String> {
    let mut names: Vec<String> = HashAlg::ALL
        .iter()
        .filter(|h| !(commands && **h == HashAlg::Ripemd160))
        .map(|h| h.long_name().to_string())
        .chain(XofAlg::ALL.iter().map(|x| x.name().to_ascii_lowercase().replace('-', "")))
        .chain(["rmd160".to_string()])
        .chain((!commands).then(|| "ripemd".to_string()))
        .collect();
    names.sort();
    names
}

/// Runs `dgst`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &is_digest)? else {
        return Ok(());
    };
    if a.has("list") {
        let text = super::flag_table("Supported digests:", &digest_names(false));
        super::print_text(&text);
        return Ok(());
    }
    let (job, labels) = job(&a)?;
    let signing = matches!(job, Job::Sign(..) | Job::Verify(..));
    if signing && a.positional.len() > 1 {
        return Err(Fail::msg("can only sign or verify one file"));
    }
    // Signatures are binary unless -hex asks otherwise, as in OpenSSL.
    let binary = match a.last_of(&["hex", "binary"]) {
        Some(last) => last == "binary",
        None => matches!(job, Job::Sign(..)),
    };
    let style = a.last_of(&["r", "c"]);
    let files: Vec<Option<&str>> = if a.positional.is_empty() {
        vec![None]
    } else {
        a.positional.iter().map(|s| Some(s.as_str())).collect()
    };
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    let mut failed = false;
    for file in files {
        let name = io::input_name(file);
        let result = io::open_input(file).and_then(|mut r| match &job {
            Job::Digest(alg) => digest_reader(*alg, &mut r, name),
            Job::Xof(alg, len) => {
                let mut x = DynXof::new(*alg);
                io::for_each_chunk(&mut r, name, |chunk| x.update(chunk))?;
                let mut out = vec![0u8; *len];
                x.finalize_xof().read(&mut out);
                Ok(out)
            }
            Job::Mac(p) => mac::compute(p, &mut r, name, io::input_len(file)),
            Job::Sign(key, alg, o) => {
                let digest = digest_reader(*alg, &mut r, name)?;
                sign(key, *alg, o, &digest)
            }
            Job::Verify(key, alg, o, sig) => {
                let digest = digest_reader(*alg, &mut r, name)?;
                let ok = verify(key, *alg, o, &digest, sig)?;
                Ok(if ok { b"Verified OK\n".to_vec() } else { Vec::new() })
            }
        });
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                if let Some(line) = e.line("dgst") {
                    eprintln!("{line}");
                }
                failed = true;
                continue;
            }
        };
        if let Job::Verify(..) = job {
            if value.is_empty() {
                out.put(b"Verification failure\n")?;
                out.commit()?;
                return Err(Fail::silent(1));
            }
            out.put(&value)?;
        } else if binary {
            out.put(&value)?;
        } else {
            let label = if file.is_none() { &labels.stdin } else { &labels.file };
            let line = match style {
                Some("r") => format!("{} *{name}\n", hex::lower(&value)),
                Some("c") => format!("{label}({})= {}\n", shown(file), hex::colons(&value)),
                _ => format!("{label}({})= {}\n", shown(file), hex::lower(&value)),
            };
            out.put(line.as_bytes())?;
        }
    }
    if failed {
        // The other files' lines reach stdout; an output file is left as it was.
        out.flush().map_err(|e| out.error(&e))?;
        return Err(Fail::silent(1));
    }
    out.commit()
}

/// The names that label output lines: a file's, and stdin's, which OpenSSL labels with
/// the digest alone (`SHA2-256(stdin)`, `(stdin)` for a MAC without one) where a file's
/// line names the MAC or signature too (`HMAC-SHA2-256(f)`, `RSA-SHA2-256(f)`).
struct Labels {
    file: String,
    stdin: String,
}

impl Labels {
    fn both(name: &str) -> Labels {
        Labels { file: name.to_string(), stdin: name.to_string() }
    }
}

/// What to compute, and the names that label its output lines.
fn job(a: &Parsed) -> CmdResult<(Job, Labels)> {
    let last = a.dynamic.last().map(String::as_str);
    let xof = last.and_then(|n| XofAlg::from_name(n).ok());
    let xoflen = a.parsed::<usize>("xoflen")?;
    if let Some(x) = xof {
        if a.has("hmac") || a.has("mac") {
            return Err(Fail::msg(format!("{} cannot make a MAC here", x.name())));
        }
        let len = xoflen.unwrap_or(x.security_len());
        if !(1..=MAX_XOF_LEN).contains(&len) {
            return Err(Fail::msg(format!("-xoflen: 1 to {MAX_XOF_LEN} bytes")));
        }
        return Ok((Job::Xof(x, len), Labels::both(x.name())));
    }
    if xoflen.is_some() {
        return Err(Fail::msg(
            "-xoflen: length can only be specified for an XOF (-shake128, -shake256)",
        ));
    }
    let chosen = last.map(super::digest_by_name).transpose()?;
    if let Some(job) = signature_job(a, chosen.unwrap_or(HashAlg::Sha256))? {
        return Ok(job);
    }
    // OpenSSL 3.0 prints its default digest under the legacy name.
    let md_name = chosen.map_or("SHA256", HashAlg::name);
    let alg = chosen.unwrap_or(HashAlg::Sha256);
    Ok(match (a.value("hmac"), a.value("mac")) {
        (Some(_), Some(_)) => return Err(Fail::msg("-hmac and -mac exclude each other")),
        (Some(key), None) => {
            let p = Params::new("HMAC", Some(alg.name()), None, &[], Some(key.as_bytes()))?;
            (Job::Mac(p), Labels { file: format!("HMAC-{md_name}"), stdin: md_name.into() })
        }
        (None, Some(name)) => {
            let kind =
                Kind::from_name(name).ok_or_else(|| Fail::msg(format!("unknown MAC '{name}'")))?;
            let digest = (kind == Kind::Hmac).then_some(alg.name()).filter(|_| chosen.is_some());
            let p = Params::new(name, digest, None, &a.values("macopt"), None)?;
            // A digest flag names the label even for a MAC that uses none, as in OpenSSL.
            let file = match p.digest.or(chosen) {
                Some(d) => format!("{}-{}", kind.name(), d.name()),
                None => kind.name().to_string(),
            };
            let stdin = chosen.map_or("", HashAlg::name).to_string();
            (Job::Mac(p), Labels { file, stdin })
        }
        (None, None) => {
            if a.has("macopt") {
                return Err(Fail::msg("-macopt needs -mac"));
            }
            (Job::Digest(alg), Labels::both(md_name))
        }
    })
}

/// The signing or verifying job, if `-sign`, `-verify` or `-prverify` was given.
fn signature_job(a: &Parsed, alg: HashAlg) -> CmdResult<Option<(Job, Labels)>> {
    let keyform = keyfile::format(a.value("keyform"), "keyform")?;
    let read = ReadOptions::from_args(a)?;
    let opts = RsaOpts::parse(&a.values("sigopt"), "sigopt")?;
    let label = Labels { file: format!("RSA-{}", alg.name()), stdin: alg.name().to_string() };
    let given = [a.has("sign"), a.has("verify"), a.has("prverify")].iter().filter(|&&b| b).count();
    if given > 1 {
        return Err(Fail::msg("-sign, -verify and -prverify exclude each other"));
    }
    if given == 0 {
        if a.has("sigopt") || a.has("signature") {
            return Err(Fail::msg("-sigopt and -signature need -sign, -verify or -prverify"));
        }
        return Ok(None);
    }
    if a.has("hmac") || a.has("mac") {
        return Err(Fail::msg("a MAC and a signature exclude each other"));
    }
    let padding = opts.padding();
    if !matches!(padding, Padding::Pkcs1 | Padding::Pss | Padding::X931) {
        return Err(Fail::msg("-sigopt rsa_padding_mode: pkcs1, pss or x931 for signatures"));
    }
    if padding == Padding::X931 && cryptocard::rsa::x931::hash_id(alg).is_none() {
        return Err(Fail::msg("rsa_padding_mode:x931 signs SHA-1 and SHA-2 digests only"));
    }
    opts.check_for(padding, "sigopt")?;
    if opts.digest.is_some_and(|d| d != alg) {
        return Err(Fail::msg("-sigopt digest: give the digest as a flag (-sha256, ...)"));
    }
    if let Some(path) = a.value("sign") {
        let key = keyfile::load_private(Some(path), keyform, a.value("passin"), &read)?;
        return Ok(Some((Job::Sign(Box::new(key), alg, opts), label)));
    }
    let sig_path = a
        .value("signature")
        .ok_or_else(|| Fail::msg("no signature to verify: give -signature FILE"))?;
    let sig = io::read_small(Some(sig_path), "a signature")?;
    let (path, want) = match (a.value("verify"), a.value("prverify")) {
        (Some(p), _) => (p, Want::Public),
        (_, Some(p)) => (p, Want::Private),
        _ => return Err(Fail::msg("internal error: no verification key")),
    };
    let key = keyfile::load(Some(path), keyform, a.value("passin"), want, &read)?;
    Ok(Some((Job::Verify(key.public_key().clone(), alg, opts, sig), label)))
}

fn sign(key: &RsaPrivateKey, alg: HashAlg, o: &RsaOpts, digest: &[u8]) -> CmdResult<Vec<u8>> {
    let r = match o.padding() {
        Padding::Pss => key.sign_pss_prehashed(&o.pss(alg, true), digest, &mut OsRng),
        Padding::X931 => key.sign_x931_prehashed(alg, digest, &mut OsRng),
        _ => key.sign_pkcs1v15_prehashed(alg, digest, &mut OsRng),
    };
    r.map_err(|e| match e {
        cryptocard::Error::MessageTooLong => {
            Fail::msg("signing: the key is too small for this digest")
        }
        e => Fail::lib("signing", e),
    })
}

fn verify(
    key: &RsaPublicKey,
    alg: HashAlg,
    o: &RsaOpts,
    digest: &[u8],
    sig: &[u8],
) -> CmdResult<bool> {
    let r = match o.padding() {
        Padding::Pss => key.verify_pss_prehashed(&o.pss(alg, false), digest, sig),
        Padding::X931 => key.verify_x931_prehashed(alg, digest, sig),
        _ => key.verify_pkcs1v15_prehashed(alg, digest, sig),
    };
    match r {
        Ok(()) => Ok(true),
        Err(cryptocard::Error::Verification | cryptocard::Error::InvalidArgument(_)) => Ok(false),
        Err(e) => Err(Fail::lib("verifying", e)),
    }
}

/// The name inside the parentheses: the path, or `stdin`.
fn shown(file: Option<&str>) -> &str {
    io::input_name(file)
}

/// The digest of everything `r` holds.
pub fn digest_reader(alg: HashAlg, r: &mut dyn Read, name: &str) -> CmdResult<Vec<u8>> {
    let mut h = Hasher::new(alg);
    io::for_each_chunk(r, name, |chunk| h.update(chunk))?;
    Ok(h.finalize().as_bytes().to_vec())
}
