//! RSA key files for `genpkey`, `genrsa`, `pkey`, `pkcs8`, `pkcs12`, `pkeyutl` and `dgst`:
//! reading any of the formats OpenSSL writes (PKCS#8, encrypted PKCS#8 under any scheme
//! of `cryptocard::pbe`, PKCS#1 "traditional", SubjectPublicKeyInfo, PKCS#1 public keys;
//! PEM or DER, told apart by content unless `-inform` says; a PEM key after certificates
//! in one file; PKCS#1 PEM under legacy encryption, `Proc-Type: 4,ENCRYPTED`) and
//! writing them as OpenSSL 3 does (PKCS#8 by default, PKCS#1 with `-traditional`,
//! encrypted PKCS#8 with PBES2 under `-aes256`, `-aes192`, `-aes128` or `-des3`, and
//! with `-traditional` PKCS#1 PEM under legacy encryption with the same ciphers).
//!
//! The parsing and encoding are the library's (`cryptocard::rsa::encoding`); this module
//! reads the file into wiped memory without leaving copies behind (`secret_read`), turns
//! the library's errors into one line naming the file, checks that a private key is given
//! where one is needed, and recognizes the key-encryption cipher flags.
//!
//! What a key file may cost to read is bounded (see [`ReadOptions`]): at most
//! [`io::MAX_SMALL_INPUT`] bytes, at most 1,000,000 PBKDF2 iterations unless `-max-iter`
//! says otherwise, and no recovery of p and q from (n, e, d) unless `-recover-primes`
//! asks for it (the library's [`KeyParseOptions`], whose docs say why these values).

use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::io;
use crate::pass;
use crate::secret_read;
use cryptocard::Error;
use cryptocard::pbe::PbeScheme;
use cryptocard::rng::OsRng;
use cryptocard::rsa::encoding::{RECOVERY_NOT_ENABLED, TOO_MANY_ITERATIONS};
use cryptocard::rsa::{
    KeyParseOptions, RsaKey, RsaPrivateKey, RsaPublicKey, key_from_der_with, key_from_pem_with,
};
use zeroize::Zeroizing;

/// `-max-iter N`, for every command that reads keys.
pub const MAX_ITER_FLAG: Flag = Flag::value("max-iter", "N")
    .about("Accept up to N PBKDF2 iterations in an encrypted key (default 1000000)");

/// `-recover-primes`, for every command that reads keys.
pub const RECOVER_PRIMES_FLAG: Flag = Flag::switch("recover-primes")
    .about("Recover p and q of a key that holds only n, e and d (bounded: up to 8192 bits)");

/// How a command reads its key files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The library's bounds: `-max-iter` and `-recover-primes`.
    pub parse: KeyParseOptions,
    /// `pkey -check` or `-pubcheck`: a key that fails validation is "Key is invalid: why".
    pub check: bool,
}

impl ReadOptions {
    /// The options of [`MAX_ITER_FLAG`] and [`RECOVER_PRIMES_FLAG`] as given.
    pub fn from_args(a: &Parsed) -> CmdResult<ReadOptions> {
        let mut parse =
            KeyParseOptions { recover_primes: a.has("recover-primes"), ..Default::default() };
        match a.parsed::<u32>("max-iter")? {
            Some(0) => return Err(Fail::msg("-max-iter: at least 1")),
            Some(n) => parse.max_iterations = n,
            None => {}
        }
        Ok(ReadOptions { parse, check: false })
    }
}

/// A key file's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 7468 text armour.
    Pem,
    /// Binary DER.
    Der,
}

/// Reads `-inform`/`-outform`/`-keyform` (PEM or DER, any case); `None` if not given.
pub fn format(value: Option<&str>, flag: &str) -> CmdResult<Option<Format>> {
    match value.map(str::to_ascii_uppercase).as_deref() {
        None => Ok(None),
        Some("PEM") => Ok(Some(Format::Pem)),
        Some("DER") => Ok(Some(Format::Der)),
        Some(_) => Err(Fail::msg(format!("-{flag}: PEM or DER, not '{}'", value.unwrap_or("")))),
    }
}

/// Which kind of key a command needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// A private key.
    Private,
    /// A public key (`-pubin`).
    Public,
    /// Either: a private key's public half serves.
    Any,
}

/// Reads a key from `path` (stdin for none or `-`), decrypting it with the `-passin`
/// argument where it is encrypted, within the bounds of `opts`.
pub fn load(
    path: Option<&str>,
    inform: Option<Format>,
    passin: Option<&str>,
    want: Want,
    opts: &ReadOptions,
) -> CmdResult<RsaKey> {
    let name = io::input_name(path).to_string();
    // The password first, as OpenSSL: `-passin stdin` with the key on stdin too reads
    // the password line, then the key.
    let password = passin.map(pass::resolve).transpose()?;
    let data = secret_read::read_input(path, "a key")?;
    parse(&name, &data, inform, password.as_deref().map(Vec::as_slice), want, opts)
}

/// Reads the key in `data` (from the file `name`): [`load`]'s work once the file is read.
pub fn parse(
    name: &str,
    data: &[u8],
    inform: Option<Format>,
    pw: Option<&[u8]>,
    want: Want,
    opts: &ReadOptions,
) -> CmdResult<RsaKey> {
    let pem = match inform {
        Some(f) => f == Format::Pem,
        None => data.windows(11).any(|w| w == b"-----BEGIN "),
    };
    let parsed = if pem {
        let text = std::str::from_utf8(data)
            .map_err(|_| Fail::msg(format!("{name}: could not read key: not PEM text")))?;
        // A PEM file may hold certificates before its key (`pkcs12 -export -in` takes
        // one such file for both): read from the first private key's block.
        let from = private_block(text).unwrap_or(0);
        key_from_pem_with(&text[from..], pw, &opts.parse)
    } else {
        key_from_der_with(data, pw, &opts.parse)
    };
    let key = parsed.map_err(|e| key_error(name, e, pw.is_some(), opts))?;
    match (want, &key) {
        (Want::Private, RsaKey::Public(_)) => Err(Fail::msg(format!(
            "{name}: holds a public key, not a private key (use -pubin for public keys)"
        ))),
        (Want::Public, RsaKey::Private(_)) => {
            Err(Fail::msg(format!("{name}: holds a private key; -pubin expects a public key")))
        }
        _ => Ok(key),
    }
}

/// Where the first PEM block of a private key ("... PRIVATE KEY") starts in `text`.
fn private_block(text: &str) -> Option<usize> {
    let mut at = 0;
    while let Some(i) = text[at..].find("-----BEGIN ") {
        let start = at + i;
        let line = text[start..].lines().next().unwrap_or("");
        if line.trim_end().ends_with("PRIVATE KEY-----") {
            return Some(start);
        }
        at = start + 11;
    }
    None
}

/// Reads a private key.
pub fn load_private(
    path: Option<&str>,
    inform: Option<Format>,
    passin: Option<&str>,
    opts: &ReadOptions,
) -> CmdResult<RsaPrivateKey> {
    match load(path, inform, passin, Want::Private, opts)? {
        RsaKey::Private(k) => Ok(k),
        RsaKey::Public(_) => Err(Fail::msg("internal error: a public key passed as private")),
    }
}

/// One line for a key that does not load.
fn key_error(name: &str, e: Error, had_password: bool, opts: &ReadOptions) -> Fail {
    match e {
        e if e == RECOVERY_NOT_ENABLED => Fail::msg(format!(
            "{name}: the key holds only n, e and d (zero CRT fields): give -recover-primes to recover p and q"
        )),
        e if e == TOO_MANY_ITERATIONS => Fail::msg(format!(
            "{name}: the key asks for more than {} PBKDF2 iterations: give -max-iter N to accept more",
            opts.parse.max_iterations
        )),
        Error::InvalidKey(why) if opts.check => Fail::msg(format!("Key is invalid: {why}")),
        Error::InvalidArgument(why) if why.contains("password") && !had_password => {
            Fail::msg(format!("{name}: the key is encrypted: give its password with -passin"))
        }
        Error::InvalidEncoding(why) if !had_password && why.contains("not an RSA key") => {
            Fail::msg(format!(
                "{name}: could not read key: {why} (an encrypted DER key needs -passin)"
            ))
        }
        Error::InvalidEncoding(why) => Fail::msg(format!("{name}: could not read key: {why}")),
        e => Fail::msg(format!("{name}: could not read key: {e}")),
    }
}

/// Whether `name` is a cipher flag of the key-writing commands (`-aes256`,
/// `-aes-256-cbc`, `-des3`, ...): recognized so that unsupported ones get a clear
/// message rather than "unknown option".
pub fn is_cipher_flag(name: &str) -> bool {
    ["aes", "des", "camellia", "aria", "sm4", "chacha", "seed", "idea", "bf", "cast"]
        .iter()
        .any(|p| name.starts_with(p))
        && !matches!(name, "aes" | "des")
}

/// The key-encryption cipher flags given (the last one counts), as the scheme a written
/// key is encrypted under: PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC (`-aes256`,
/// `-aes-256-cbc`), AES-192 or -128, or triple-DES (`-des3`, `-des-ede3-cbc`), as OpenSSL 3
/// writes PKCS#8 under them; `None` without one.
pub fn cipher(dynamic: &[String]) -> CmdResult<Option<PbeScheme>> {
    const NAMES: [&str; 8] = [
        "aes256",
        "aes-256-cbc",
        "aes192",
        "aes-192-cbc",
        "aes128",
        "aes-128-cbc",
        "des3",
        "des-ede3-cbc",
    ];
    match dynamic.last().map(String::as_str) {
        None => Ok(None),
        Some(name) if NAMES.contains(&name) => PbeScheme::from_name(name)
            .map(Some)
            .ok_or_else(|| Fail::msg(format!("internal error: -{name} names no scheme"))),
        Some(other) => Err(Fail::msg(format!(
            "-{other}: keys are encrypted with -aes256 (-aes-256-cbc), -aes192, -aes128 or -des3 only"
        ))),
    }
}

/// The password and scheme a written private key is encrypted under.
#[derive(Debug)]
pub struct KeyPassword {
    /// The password (wiped on drop).
    pub password: pass::Password,
    /// The scheme ([`cipher`]'s).
    pub scheme: PbeScheme,
}

/// Encodes a private key: PKCS#8 (encrypted under `password` if given) or, with
/// `traditional`, PKCS#1 (PEM under legacy encryption with `password`'s cipher).
pub fn encode_private(
    key: &RsaPrivateKey,
    format: Format,
    traditional: bool,
    password: Option<&KeyPassword>,
) -> CmdResult<Zeroizing<Vec<u8>>> {
    let fail = |e| Fail::lib("encoding the key", e);
    let bytes = match (format, traditional, password) {
        (Format::Der, true, Some(_)) => {
            // OpenSSL writes such a key unencrypted, without a word; we refuse.
            return Err(Fail::msg(
                "a DER PKCS#1 key cannot be encrypted: write PEM, or drop -traditional for encrypted PKCS#8",
            ));
        }
        (Format::Pem, true, Some(pw)) => {
            let cipher = pw.scheme.pbes2_cipher().ok_or_else(|| {
                Fail::msg("legacy PEM encryption takes -aes256, -aes192, -aes128 or -des3")
            })?;
            let pem = key.to_pkcs1_encrypted_pem(&pw.password, cipher, &mut OsRng).map_err(fail)?;
            Zeroizing::new(pem.as_bytes().to_vec())
        }
        (Format::Pem, false, None) => {
            Zeroizing::new(key.to_pkcs8_pem().map_err(fail)?.as_bytes().to_vec())
        }
        (Format::Pem, true, None) => {
            Zeroizing::new(key.to_pkcs1_pem().map_err(fail)?.as_bytes().to_vec())
        }
        (Format::Pem, false, Some(pw)) => Zeroizing::new(
            key.to_pkcs8_encrypted_pem_with(&pw.password, &pw.scheme, &mut OsRng)
                .map_err(fail)?
                .into_bytes(),
        ),
        (Format::Der, false, None) => key.to_pkcs8_der().map_err(fail)?,
        (Format::Der, true, None) => key.to_pkcs1_der().map_err(fail)?,
        (Format::Der, false, Some(pw)) => Zeroizing::new(
            key.to_pkcs8_encrypted_der_with(&pw.password, &pw.scheme, &mut OsRng).map_err(fail)?,
        ),
    };
    Ok(bytes)
}

/// Encodes a public key as SubjectPublicKeyInfo ("PUBLIC KEY"), or with `pkcs1` as a
/// PKCS#1 "RSA PUBLIC KEY".
pub fn encode_public(key: &RsaPublicKey, format: Format, pkcs1: bool) -> CmdResult<Vec<u8>> {
    let fail = |e| Fail::lib("encoding the key", e);
    Ok(match (format, pkcs1) {
        (Format::Pem, false) => key.to_public_key_pem().map_err(fail)?.into_bytes(),
        (Format::Pem, true) => key.to_pkcs1_pem().map_err(fail)?.into_bytes(),
        (Format::Der, false) => key.to_public_key_der().map_err(fail)?,
        (Format::Der, true) => key.to_pkcs1_der().map_err(fail)?,
    })
}

/// How `pkey` and `rsa` write the key they read.
#[derive(Clone, Copy, Debug)]
pub struct KeyOut<'a> {
    /// PEM or DER.
    pub format: Format,
    /// Write the public half even of a private key.
    pub public: bool,
    /// A private key as PKCS#1 (`-traditional`).
    pub traditional: bool,
    /// A public key as PKCS#1 `RSA PUBLIC KEY` (`-RSAPublicKey_out`).
    pub pkcs1_public: bool,
    /// Encrypt a private key under this password and scheme (`-aes256`, `-des3`, ...).
    pub password: Option<&'a KeyPassword>,
}

/// Encodes `key` as `out` says: [`encode_private`] or [`encode_public`].
pub fn encode(key: &RsaKey, out: &KeyOut<'_>) -> CmdResult<Zeroizing<Vec<u8>>> {
    match (key, out.public) {
        (RsaKey::Private(k), false) => encode_private(k, out.format, out.traditional, out.password),
        (k, _) => Ok(Zeroizing::new(encode_public(k.public_key(), out.format, out.pkcs1_public)?)),
    }
}

/// The output password for an encrypted key: required when a cipher was given.
pub fn out_password(
    cipher: Option<PbeScheme>,
    arg: Option<&str>,
    flag: &str,
) -> CmdResult<Option<KeyPassword>> {
    match (cipher, arg) {
        (None, _) => Ok(None),
        (Some(scheme), Some(a)) => Ok(Some(KeyPassword { password: pass::resolve(a)?, scheme })),
        (Some(_), None) => Err(Fail::msg(format!(
            "encrypting the key needs a password: give -{flag} (pass:, env:, file:, fd:, stdin)"
        ))),
    }
}
