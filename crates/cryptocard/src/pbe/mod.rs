//! Password-based encryption, the schemes of encrypted PKCS#8 keys and of PKCS#12 files:
//!
//! | scheme | standard | derivation | ciphers | written by |
//! |---|---|---|---|---|
//! | PBES2 | RFC 8018 section 6.2 | PBKDF2-HMAC (SHA-1, SHA-2) | AES-CBC, DES-EDE3-CBC, DES-CBC | OpenSSL 1.1 and later (`-v2`), the default here |
//! | PKCS#12 PBE | RFC 7292 appendix C | PKCS#12's own on SHA-1 ([`pkcs12_kdf()`]) | 3DES (3 or 2 keys), RC2-128, RC2-40 | OpenSSL 1.0 (`pkcs8 -topk8`, `pkcs12`), Windows, Java; `pkcs12 -legacy` |
//! | PBES1 | RFC 8018 section 6.1 | PBKDF1 (MD2, MD5, SHA-1) | DES-CBC, RC2-CBC (64 bits) | OpenSSL's `-v1 PBE-MD5-DES`, old Java |
//! | PEM `DEK-Info` | RFC 1421 section 4.6.1.3 | OpenSSL's `EVP_BytesToKey` (MD5, once) | AES-CBC, DES-EDE3-CBC, DES-EDE-CBC, DES-CBC | OpenSSL 1.x's `genrsa -des3`, 3.x's `-traditional` ([`pem_decrypt`]) |
//!
//! [`decrypt`] takes the `AlgorithmIdentifier` a file carries (DER) and the ciphertext;
//! [`encrypt`] makes both for a [`PbeScheme`]. The older schemes are here to read old
//! keys and `.pfx` files and to write files for consumers that know nothing newer: their
//! ciphers are weak (DES, 40-bit RC2) and their derivations fast. The default,
//! [`PbeScheme::DEFAULT`], is what OpenSSL 3 writes: PBES2 with PBKDF2-HMAC-SHA256 over
//! [`PBKDF2_ITERATIONS`] iterations and AES-256-CBC.
//!
//! A file names its own iteration count, the one costly step; [`decrypt`] refuses a count
//! above the caller's ceiling ([`TOO_MANY_ITERATIONS`]) and every other fault it can see
//! without the password (an unknown scheme, a ciphertext that is no whole number of
//! blocks) before deriving anything. A wrong password shows as bad padding or, one time
//! in 256, as a plaintext that does not parse; both are [`WRONG_PASSWORD`] here or at the
//! caller. (The padding is no oracle: the password is the secret, and the file is the
//! attacker's only input.)
//!
//! Passwords are bytes: PBES1 and PBES2 hash them as given, PKCS#12 as a BMPString made
//! from their UTF-8 ([`bmp_password`]). `None` is OpenSSL's absent (NULL) password, which
//! differs from the empty one only under PKCS#12 (no terminator at all).

mod cbc;
mod legacy_pem;
mod params;
mod pkcs12_kdf;

pub use legacy_pem::{pem_decrypt, pem_encrypt};
pub use pkcs12_kdf::{Purpose, bmp_password, pkcs12_kdf};

use self::cbc::Cbc;
use crate::des::Direction;
use crate::digest::{HashAlg, Hasher, pbkdf2_hmac_alg};
use crate::rng::RandomSource;
use crate::{Error, Result};
use params::{Derivation, Scheme};
use zeroize::Zeroizing;

/// Iterations when writing (OpenSSL's `PKCS5_DEFAULT_ITER`, and its `pkcs12` default).
pub const PBKDF2_ITERATIONS: u32 = 2048;
/// PBKDF2 salt length when writing (OpenSSL 3.2's `PKCS5_DEFAULT_PBE2_SALT_LEN`; 3.0 used
/// 8). PKCS#12 and PBES1 salts are 8 bytes.
pub const SALT_LEN: usize = 16;
/// The most iterations [`decrypt`]'s callers in this crate accept by default. OpenSSL 3
/// writes 2048, Java's keytool 10,000, tools that follow OWASP's 2023 advice for
/// PBKDF2-HMAC-SHA256 600,000; a million leaves a margin over all of them.
pub const DEFAULT_MAX_ITERATIONS: u32 = 1_000_000;
/// The error of a file that asks for more iterations than its reader allows.
pub const TOO_MANY_ITERATIONS: Error =
    Error::Unsupported("PBKDF2 iteration count above the limit (KeyParseOptions::max_iterations)");
/// The error of a wrong password (or a corrupt ciphertext: the two look alike).
pub const WRONG_PASSWORD: Error = Error::InvalidEncoding("wrong password or corrupt data");

/// A scheme to encrypt with: derivation, cipher and iteration count (the salt and IV are
/// drawn fresh by [`encrypt`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbeScheme {
    derivation: Derivation,
    cipher: Cbc,
    iterations: u32,
}

/// OpenSSL's short names of the PKCS#12 and PBES1 schemes (`-keypbe`, `-certpbe`, `-v1`),
/// and their long names.
const SHORT_NAMES: &[(&str, &str)] = &[
    ("PBE-SHA1-3DES", "pbeWithSHA1And3-KeyTripleDES-CBC"),
    ("PBE-SHA1-2DES", "pbeWithSHA1And2-KeyTripleDES-CBC"),
    ("PBE-SHA1-RC2-128", "pbeWithSHA1And128BitRC2-CBC"),
    ("PBE-SHA1-RC2-40", "pbeWithSHA1And40BitRC2-CBC"),
    ("PBE-MD2-DES", "pbeWithMD2AndDES-CBC"),
    ("PBE-MD5-DES", "pbeWithMD5AndDES-CBC"),
    ("PBE-SHA1-DES", "pbeWithSHA1AndDES-CBC"),
    ("PBE-MD2-RC2-64", "pbeWithMD2AndRC2-CBC"),
    ("PBE-MD5-RC2-64", "pbeWithMD5AndRC2-CBC"),
    ("PBE-SHA1-RC2-64", "pbeWithSHA1AndRC2-CBC"),
];

impl PbeScheme {
    /// PBES2, PBKDF2-HMAC-SHA256 over 2048 iterations, AES-256-CBC: OpenSSL 3's choice.
    pub const DEFAULT: PbeScheme = PbeScheme {
        derivation: Derivation::Pbkdf2(HashAlg::Sha256),
        cipher: Cbc::Aes256,
        iterations: PBKDF2_ITERATIONS,
    };

    /// The scheme OpenSSL names so (`-keypbe`, `-certpbe`, `pkcs8 -v1` and `-v2`),
    /// case-insensitive: `PBE-SHA1-3DES` and the other short names, the long names
    /// (`pbeWithSHA1And40BitRC2-CBC`), or a cipher name or alias for PBES2 with
    /// PBKDF2-HMAC-SHA256 (`aes-256-cbc`, `aes128`, `des3`, `des-cbc`); `None` otherwise.
    pub fn from_name(name: &str) -> Option<PbeScheme> {
        let long =
            SHORT_NAMES.iter().find(|(s, _)| s.eq_ignore_ascii_case(name)).map_or(name, |e| e.1);
        let canonical = crate::cipher::lookup(long).map_or(long, |spec| spec.name);
        let (derivation, cipher) = params::by_name(canonical)?;
        Some(PbeScheme { derivation, cipher, iterations: PBKDF2_ITERATIONS })
    }

    /// The same scheme with `iterations` (at least 1).
    pub fn with_iterations(self, iterations: u32) -> Result<PbeScheme> {
        if iterations == 0 {
            return Err(Error::InvalidArgument("a password-based scheme needs an iteration"));
        }
        Ok(PbeScheme { iterations, ..self })
    }

    /// The same PBES2 scheme with PBKDF2 over HMAC-`prf` (SHA-1 or SHA-2). Errors:
    /// `InvalidArgument` for a scheme that is not PBES2 or a hash PBKDF2 has no OID for.
    pub fn with_prf(self, prf: HashAlg) -> Result<PbeScheme> {
        match self.derivation {
            Derivation::Pbkdf2(_) if params::has_prf(prf) => {
                Ok(PbeScheme { derivation: Derivation::Pbkdf2(prf), ..self })
            }
            _ => Err(Error::InvalidArgument("only PBES2 takes a PRF, and of SHA-1 or SHA-2")),
        }
    }

    /// The PRF OpenSSL names so (`hmacWithSHA256`, for `-v2prf`), or `None`.
    pub fn prf_from_name(name: &str) -> Option<HashAlg> {
        params::prf_by_name(name)
    }

    /// Whether the scheme is PBES2 (OpenSSL's `-v2`), not one of the older ones (`-v1`).
    pub fn is_pbes2(&self) -> bool {
        matches!(self.derivation, Derivation::Pbkdf2(_))
    }

    /// The iteration count.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The block cipher of a PBES2 scheme (DES, triple-DES or AES, in CBC mode), for
    /// legacy PEM encryption under the same flag (OpenSSL's `-traditional -des3`):
    /// [`pem_encrypt`]; `None` for the older schemes.
    pub fn pbes2_cipher(&self) -> Option<crate::cipher::Algorithm> {
        if self.is_pbes2() { self.cipher.algorithm() } else { None }
    }
}

impl Default for PbeScheme {
    fn default() -> PbeScheme {
        PbeScheme::DEFAULT
    }
}

/// The key and IV a scheme derives from the password (PBES2's IV comes from the file).
fn derive(scheme: &Scheme, password: Option<&[u8]>) -> Result<(Zeroizing<Vec<u8>>, Vec<u8>)> {
    let mut key = Zeroizing::new(vec![0u8; scheme.cipher.key_len()]);
    match scheme.derivation {
        Derivation::Pbkdf2(prf) => {
            pbkdf2_hmac_alg(
                prf,
                password.unwrap_or(&[]),
                &scheme.salt,
                scheme.iterations,
                &mut key,
            )?;
            Ok((key, scheme.iv.clone()))
        }
        Derivation::Pbkdf1(hash) => {
            // RFC 8018 section 5.1: T = H^c(P || S); key and IV are its first 16 bytes.
            let mut h = Hasher::new(hash);
            h.update(password.unwrap_or(&[]));
            h.update(&scheme.salt);
            let mut t = h.finalize_reset();
            for _ in 1..scheme.iterations {
                h.update(t.as_bytes());
                t = h.finalize_reset();
            }
            key.copy_from_slice(&t.as_bytes()[..8]);
            Ok((key, t.as_bytes()[8..16].to_vec()))
        }
        Derivation::Pkcs12 => {
            let bmp = bmp_password(password);
            let (salt, n) = (&scheme.salt, scheme.iterations);
            pkcs12_kdf(HashAlg::Sha1, &bmp, salt, Purpose::Key, n, &mut key)?;
            let mut iv = vec![0u8; scheme.cipher.block_len()];
            pkcs12_kdf(HashAlg::Sha1, &bmp, salt, Purpose::Iv, n, &mut iv)?;
            Ok((key, iv))
        }
    }
}

/// Decrypts `ciphertext` under the scheme of `algorithm` (a DER `AlgorithmIdentifier`)
/// and `password`, refusing more than `max_iterations` before deriving anything.
///
/// Errors: [`TOO_MANY_ITERATIONS`]; `Unsupported` for a scheme, PRF or cipher not in the
/// module's table; `InvalidEncoding` for malformed parameters, a zero iteration count, a
/// ciphertext that is empty or not whole blocks, and [`WRONG_PASSWORD`] for bad padding.
pub fn decrypt(
    algorithm: &[u8],
    password: Option<&[u8]>,
    ciphertext: &[u8],
    max_iterations: u32,
) -> Result<Zeroizing<Vec<u8>>> {
    let scheme = Scheme::from_der(algorithm)?;
    if scheme.iterations == 0 {
        return Err(Error::InvalidEncoding("password-based encryption: iteration count is zero"));
    }
    if scheme.iterations > max_iterations {
        return Err(TOO_MANY_ITERATIONS);
    }
    if ciphertext.is_empty() || !ciphertext.len().is_multiple_of(scheme.cipher.block_len()) {
        return Err(Error::InvalidEncoding(
            "password-encrypted data is empty or not a whole number of cipher blocks",
        ));
    }
    let (key, iv) = derive(&scheme, password)?;
    scheme.cipher.run(&key, &iv, Direction::Decrypt, ciphertext).map_err(|e| match e {
        Error::Decryption => WRONG_PASSWORD,
        other => other,
    })
}

/// Encrypts `plaintext` under `scheme` and `password` with a fresh salt (and IV) from
/// `rng`: the DER `AlgorithmIdentifier` to store beside it, and the ciphertext.
pub fn encrypt(
    scheme: &PbeScheme,
    password: Option<&[u8]>,
    plaintext: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let salt_len = if matches!(scheme.derivation, Derivation::Pbkdf2(_)) { SALT_LEN } else { 8 };
    let mut salt = vec![0u8; salt_len];
    rng.fill_bytes(&mut salt)?;
    let mut iv = Vec::new();
    if matches!(scheme.derivation, Derivation::Pbkdf2(_)) {
        iv.resize(scheme.cipher.block_len(), 0);
        rng.fill_bytes(&mut iv)?;
    }
    let full = Scheme {
        derivation: scheme.derivation,
        cipher: scheme.cipher,
        salt,
        iterations: scheme.iterations,
        iv,
    };
    let algorithm = full.to_der()?;
    let (key, iv) = derive(&full, password)?;
    let ciphertext = scheme.cipher.run(&key, &iv, Direction::Encrypt, plaintext)?;
    Ok((algorithm, ciphertext.to_vec()))
}

/// The iteration count a scheme (a DER `AlgorithmIdentifier`) asks for, read without
/// deriving anything: for a caller that bounds the sum over many decryptions. Errors as
/// [`decrypt`]'s for the scheme.
pub fn iterations(algorithm: &[u8]) -> Result<u32> {
    Ok(Scheme::from_der(algorithm)?.iterations)
}

/// What OpenSSL's `pkcs12 -info` prints of a scheme (a DER `AlgorithmIdentifier`):
/// `PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256`,
/// `pbeWithSHA1And40BitRC2-CBC, Iteration 2048`. Errors as [`decrypt`]'s for the scheme.
pub fn describe(algorithm: &[u8]) -> Result<String> {
    Ok(Scheme::from_der(algorithm)?.describe())
}

#[cfg(test)]
mod tests;
