//! `cryptocard pkeyutl`: RSA signatures and encryption on small inputs, as `openssl
//! pkeyutl`.
//!
//! ```text
//! cryptocard pkeyutl -sign|-verify|-verifyrecover|-encrypt|-decrypt -inkey F [-pubin|-certin]
//!                    [-keyform PEM|DER] [-passin ARG] [-in F] [-out F] [-sigfile F]
//!                    [-rawin -digest NAME] [-pkeyopt OPT:VALUE ...] [-hexdump|-asn1parse] [-rev]
//!                    [-max-iter N] [-recover-primes]
//! ```
//!
//! As in OpenSSL, the input of `-sign`/`-verify` is what is signed: with
//! `-pkeyopt digest:NAME` a digest of that length (wrapped in a DigestInfo for PKCS#1
//! v1.5), without it raw data (PKCS#1 v1.5 type 1 padding of the data itself); with
//! `-rawin -digest NAME` the message, hashed here as it is read (any length; SHA-256
//! without `-digest`, as OpenSSL 3 defaults it for RSA). Other
//! inputs are read whole, up to 1 MiB. `-verify` prints `Signature Verified
//! Successfully` or `Signature Verification Failure` (exit 1). Paddings and their
//! options: see `rsaopt` (`-pkeyopt rsa_padding_mode:pkcs1|pss|oaep|none|x931`, ...).
//!
//! PKCS#1 v1.5 decryption uses implicit rejection unless
//! `-pkeyopt rsa_pkcs1_implicit_rejection:0` asks for the explicit error (see `rsaopt`:
//! the explicit error is a padding oracle). Decrypted output is written owner-readable
//! only, and only when decryption succeeded.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, ReadOptions, Want};
use crate::rsaopt::{Padding, RsaOpts};
use cryptocard::Error;
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaKey, RsaPrivateKey, RsaPublicKey, x931};
use cryptocard_pki::asn1::{self, Dump};

const SPEC: Spec = Spec {
    usage: "pkeyutl [options]",
    flags: &[
        Flag::switch("sign").about("Sign the input with the private key (the default)"),
        Flag::switch("verify").about("Verify the signature in -sigfile over the input"),
        Flag::switch("verifyrecover").about("Verify a signature and output the signed data"),
        Flag::switch("encrypt").about("Encrypt the input with the public key"),
        Flag::switch("decrypt").about("Decrypt the input with the private key"),
        Flag::value("inkey", "FILE").about("The key"),
        Flag::value("keyform", "PEM|DER").about("Key format (default: by content)"),
        Flag::switch("pubin").about("The key is a public key"),
        Flag::switch("certin").about("The key is a certificate's public key"),
        Flag::value("passin", "ARG").about("Key password source"),
        Flag::value("in", "FILE").about("Input file (default stdin)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("sigfile", "FILE").about("Signature file (-verify)"),
        Flag::switch("rawin").about("The input is the message, hashed with -digest (SHA-256)"),
        Flag::value("digest", "NAME").about("Digest of the message with -rawin"),
        Flag::value("pkeyopt", "OPT:VALUE").about("RSA option (rsa_padding_mode:, digest:, ...)"),
        Flag::switch("hexdump").about("Print the output as a hex dump"),
        Flag::switch("asn1parse").about("List the output as ASN.1 (asn1parse -i -dump)"),
        Flag::switch("rev").about("Reverse the order of the input bytes"),
        keyfile::MAX_ITER_FLAG,
        keyfile::RECOVER_PRIMES_FLAG,
    ],
    notes: "RSA options (-pkeyopt):\n \
rsa_padding_mode:pkcs1|pss|oaep|none|x931   default pkcs1; x931: SHA-1/SHA-2 digests only\n \
digest:NAME                                 the input is a NAME digest (signatures)\n \
rsa_pss_saltlen:digest|max|auto|N           default max (sign), auto (verify)\n \
rsa_mgf1_md:NAME                            default: the signature or OAEP digest\n \
rsa_oaep_md:NAME                            default sha1\n \
rsa_oaep_label:HEX                          default empty\n \
rsa_pkcs1_implicit_rejection:0|1            default 1 (OpenSSL 3.2+); 0: bad PKCS#1 v1.5 padding is an error\n",
    more: None,
};

/// The operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Sign,
    Verify,
    VerifyRecover,
    Encrypt,
    Decrypt,
}

/// Runs `pkeyutl`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let op = match a.last_of(&["sign", "verify", "verifyrecover", "encrypt", "decrypt"]) {
        Some("verify") => Op::Verify,
        Some("verifyrecover") => Op::VerifyRecover,
        Some("encrypt") => Op::Encrypt,
        Some("decrypt") => Op::Decrypt,
        _ => Op::Sign,
    };
    let opts = RsaOpts::parse(&a.values("pkeyopt"), "pkeyopt")?;
    let padding = opts.padding();
    opts.check_for(padding, "pkeyopt")?;
    let keyfile = a.value("inkey").ok_or_else(|| Fail::msg("no key: give -inkey FILE"))?;
    let public_only = a.has("pubin") || a.has("certin");
    let want = match (op, public_only) {
        (Op::Sign | Op::Decrypt, true) => {
            return Err(Fail::msg(
                "a private key is needed to sign or decrypt, not -pubin or -certin",
            ));
        }
        (Op::Sign | Op::Decrypt, false) => Want::Private,
        (_, true) => Want::Public,
        (_, false) => Want::Any,
    };
    let keyform = keyfile::format(a.value("keyform"), "keyform")?;
    let read = ReadOptions::from_args(&a)?;
    let key = if a.has("certin") {
        let c = super::certio::load_cert(Some(keyfile), keyform)?;
        let spki = c.tbs_certificate().subject_public_key_info();
        RsaKey::Public(
            cryptocard_pki::sig::public_key_from_spki(spki)
                .map_err(|e| super::certio::pki_fail(keyfile, e))?,
        )
    } else {
        keyfile::load(Some(keyfile), keyform, a.value("passin"), want, &read)?
    };
    // With -rawin the input is a message, hashed here as it is read: with -digest's
    // hash, else SHA-256, RSA's default digest in OpenSSL 3.
    let rawin = match (a.has("rawin"), a.value("digest")) {
        (true, Some(name)) => Some(super::digest_by_name(name)?),
        (true, None) => Some(HashAlg::Sha256),
        (false, Some(_)) => return Err(Fail::msg("-digest needs -rawin")),
        (false, None) => None,
    };
    if rawin.is_some() && !matches!(op, Op::Sign | Op::Verify) {
        return Err(Fail::msg("-rawin is for -sign and -verify"));
    }
    // What is signed: the input as given (at most a modulus long, read up to 1 MiB), or
    // the digest of the message with -rawin (streamed; reversed with -rev, the message
    // is read whole, up to 1 MiB).
    let input = match rawin {
        Some(alg) if !a.has("rev") => {
            let name = io::input_name(a.value("in"));
            super::dgst::digest_reader(alg, &mut io::open_input(a.value("in"))?, name)?
        }
        _ => {
            let what = if rawin.is_some() { "a message reversed by -rev" } else { "an RSA input" };
            let mut input = io::read_small(a.value("in"), what)?;
            if a.has("rev") {
                input.reverse();
            }
            match rawin {
                Some(alg) => Hasher::digest(alg, &input).as_bytes().to_vec(),
                None => input,
            }
        }
    };
    let hash = rawin.or(opts.digest);
    let output = match op {
        Op::Sign => sign(private(&key)?, &input, hash, &opts)?,
        Op::Verify => {
            let sigfile =
                a.value("sigfile").ok_or_else(|| Fail::msg("-verify needs -sigfile FILE"))?;
            let sig = io::read_small(Some(sigfile), "a signature")?;
            let ok = verify(key.public_key(), &input, &sig, hash, &opts)?;
            let mut out = Output::create(a.value("out"), Mode::Public)?;
            let verdict = if ok {
                "Signature Verified Successfully\n"
            } else {
                "Signature Verification Failure\n"
            };
            out.put(verdict.as_bytes())?;
            out.commit()?;
            return if ok { Ok(()) } else { Err(Fail::silent(1)) };
        }
        Op::VerifyRecover => recover(key.public_key(), &input, hash, padding)?,
        Op::Encrypt => encrypt(key.public_key(), &input, &opts)?,
        Op::Decrypt => decrypt(private(&key)?, &input, &opts)?,
    };
    let mode = if op == Op::Decrypt { Mode::Private } else { Mode::Public };
    let mut out = Output::create(a.value("out"), mode)?;
    if a.has("asn1parse") {
        // As OpenSSL's: the listing, up to a bad encoding if there is one.
        out.put(&asn1::list(&output, true, Dump::All).text)?;
    } else if a.has("hexdump") {
        out.put(asn1::hex_dump(&output, 0).as_bytes())?;
    } else {
        out.put(&output)?;
    }
    out.commit()
}

fn private(key: &RsaKey) -> CmdResult<&RsaPrivateKey> {
    match key {
        RsaKey::Private(k) => Ok(k),
        RsaKey::Public(_) => Err(Fail::msg("a private key is needed")),
    }
}

/// A library error in operation `what`, in words for the user.
fn op_error(what: &str, e: Error) -> Fail {
    match e {
        Error::MessageTooLong => Fail::msg(format!("{what}: data too large for the key size")),
        Error::Decryption => {
            Fail::msg(format!("{what}: decryption failed (wrong key, padding or corrupt data)"))
        }
        Error::InvalidArgument(why) => Fail::msg(format!("{what}: {why}")),
        e => Fail::lib(what, e),
    }
}

/// Raw RSA needs exactly k bytes, as OpenSSL's `RSA_NO_PADDING`.
fn exactly_k(data: &[u8], k: usize) -> CmdResult {
    if data.len() == k {
        Ok(())
    } else {
        Err(Fail::msg(format!(
            "rsa_padding_mode:none needs exactly {k} bytes of input, not {}",
            data.len()
        )))
    }
}

fn sign(
    key: &RsaPrivateKey,
    data: &[u8],
    hash: Option<HashAlg>,
    o: &RsaOpts,
) -> CmdResult<Vec<u8>> {
    let err = |e| op_error("signing", e);
    match o.padding() {
        Padding::Pkcs1 => match hash {
            Some(h) => key.sign_pkcs1v15_prehashed(h, data, &mut OsRng).map_err(err),
            None => key.sign_pkcs1v15_raw(data, &mut OsRng).map_err(err),
        },
        Padding::Pss => {
            let params = o.pss(hash.unwrap_or(HashAlg::Sha1), true);
            key.sign_pss_prehashed(&params, data, &mut OsRng).map_err(err)
        }
        Padding::None => {
            exactly_k(data, key.size())?;
            key.raw_private(data, &mut OsRng).map_err(err)
        }
        Padding::X931 => key.sign_x931_prehashed(x931_digest(hash)?, data, &mut OsRng).map_err(err),
        Padding::Oaep => Err(Fail::msg("rsa_padding_mode:oaep is for encryption, not signatures")),
    }
}

/// Whether `sig` is a good signature over `data`; other problems are errors.
fn verify(
    key: &RsaPublicKey,
    data: &[u8],
    sig: &[u8],
    hash: Option<HashAlg>,
    o: &RsaOpts,
) -> CmdResult<bool> {
    let result = match o.padding() {
        Padding::Pkcs1 => match hash {
            Some(h) => key.verify_pkcs1v15_prehashed(h, data, sig),
            None => key.verify_pkcs1v15_raw(data, sig),
        },
        Padding::Pss => {
            key.verify_pss_prehashed(&o.pss(hash.unwrap_or(HashAlg::Sha1), false), data, sig)
        }
        Padding::X931 => key.verify_x931_prehashed(x931_digest(hash)?, data, sig),
        Padding::None => {
            exactly_k(data, key.size())?;
            key.raw_public(sig)
                .map(|m| m == data)
                .and_then(|ok| if ok { Ok(()) } else { Err(Error::Verification) })
        }
        Padding::Oaep => {
            return Err(Fail::msg("rsa_padding_mode:oaep is for encryption, not signatures"));
        }
    };
    match result {
        Ok(()) => Ok(true),
        Err(Error::Verification | Error::InvalidArgument(_)) => Ok(false),
        Err(e) => Err(op_error("verifying", e)),
    }
}

fn recover(
    key: &RsaPublicKey,
    sig: &[u8],
    hash: Option<HashAlg>,
    padding: Padding,
) -> CmdResult<Vec<u8>> {
    let err = |e| op_error("verifyrecover", e);
    match padding {
        // Without a digest the data inside the padding; with one, as OpenSSL, the digest,
        // once the DigestInfo (or X9.31's id byte) shows it is one of that kind.
        Padding::Pkcs1 => match hash {
            None => key.recover_pkcs1v15_raw(sig).map_err(err),
            Some(h) => key.recover_pkcs1v15_digest(h, sig).map_err(|_| {
                Fail::msg("verifyrecover: the signature does not hold a DigestInfo of that digest")
            }),
        },
        Padding::None => key.raw_public(sig).map_err(err),
        Padding::X931 => key.recover_x931_digest(x931_digest(hash)?, sig).map_err(|_| {
            Fail::msg("verifyrecover: the signature does not hold a digest of that kind")
        }),
        Padding::Pss | Padding::Oaep => {
            Err(Fail::msg("-verifyrecover works with rsa_padding_mode:pkcs1, x931 or none"))
        }
    }
}

/// X9.31's digest: one must be given (`-digest` or `-pkeyopt digest:`), and be SHA-1 or
/// SHA-2, as OpenSSL wants (X9.31 names it in the signature).
fn x931_digest(hash: Option<HashAlg>) -> CmdResult<HashAlg> {
    hash.filter(|&h| x931::hash_id(h).is_some()).ok_or_else(|| {
        Fail::msg("rsa_padding_mode:x931 needs a SHA-1 or SHA-2 digest (digest:sha256)")
    })
}

fn encrypt(key: &RsaPublicKey, data: &[u8], o: &RsaOpts) -> CmdResult<Vec<u8>> {
    let err = |e| op_error("encrypting", e);
    match o.padding() {
        Padding::Pkcs1 => key.encrypt_pkcs1v15(data, &mut OsRng).map_err(err),
        Padding::Oaep => key.encrypt_oaep(&o.oaep(), data, &mut OsRng).map_err(err),
        Padding::None => {
            exactly_k(data, key.size())?;
            key.raw_public(data).map_err(err)
        }
        Padding::Pss | Padding::X931 => {
            Err(Fail::msg("rsa_padding_mode:pss and x931 are for signatures, not encryption"))
        }
    }
}

fn decrypt(key: &RsaPrivateKey, data: &[u8], o: &RsaOpts) -> CmdResult<Vec<u8>> {
    let err = |e| op_error("decrypting", e);
    match o.padding() {
        Padding::Pkcs1 if o.explicit_rejection => {
            key.decrypt_pkcs1v15_explicit(data, &mut OsRng).map_err(err)
        }
        Padding::Pkcs1 => key.decrypt_pkcs1v15(data, &mut OsRng).map_err(err),
        Padding::Oaep => key.decrypt_oaep(&o.oaep(), data, &mut OsRng).map_err(err),
        Padding::None => {
            exactly_k(data, key.size())?;
            key.raw_private(data, &mut OsRng).map_err(err)
        }
        Padding::Pss | Padding::X931 => {
            Err(Fail::msg("rsa_padding_mode:pss and x931 are for signatures, not encryption"))
        }
    }
}
