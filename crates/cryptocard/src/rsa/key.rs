//! RSA keys (RFC 8017 section 3): the public key (n, e) and the private key in its CRT
//! form (p, q, dP, dQ, qInv) with the multi-prime extension (r_i, d_i, t_i).
//!
//! A key is validated once, when it is made ([`super::validate`], which checks numbers
//! only), and assembled here (`RsaPrivateKey::assemble`) with everything the private
//! operation reuses: the [`Modulus`] of n and of every prime (Montgomery
//! constants), the CRT exponents padded to their prime's limb length (so that the
//! constant-time exponentiation leaks only that length), qInv and t_i in Montgomery form,
//! the pool of blinding factors ([`super::blinding`]) and the hashed private exponent that
//! keys PKCS#1 v1.5 implicit rejection ([`super::implicit`]). Every secret is zeroised on
//! drop: `Nat`, `Modulus` and `Elem` wipe themselves, the padded exponents are
//! `Zeroizing`.

use super::accel::{AccelKey, Backend, KeyAccel, PublicAccel, Unit};
use super::blinding::BlindingPool;
use super::crt::CrtKey;
use super::tags::N;
use super::validate::{self, PrivateValues};
use crate::bignum::Nat;
use crate::digest::{HashAlg, Hasher};
use crate::modular::Modulus;
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// An RSA public key (n, e), RFC 8017 section 3.1.
///
/// Made by [`RsaPublicKey::new`] (which validates it), by the parsers in
/// [`super::encoding`], or from a private key ([`RsaPrivateKey::public_key`]).
#[derive(Clone)]
pub struct RsaPublicKey {
    pub(crate) n: Modulus<N>,
    pub(crate) e: Nat,
    /// The units' state for the public operation ([`super::accel`]), made on first use.
    pub(crate) accel: PublicAccel,
}

impl RsaPublicKey {
    /// The key (n, e), after the checks of RFC 8017 section 3.1 and the size limits of
    /// [`super::validate`]: n odd, 512 to 16384 bits; e odd, 3 <= e < n, and at most 64
    /// bits whatever the size of n (which bounds the cost of verification and of
    /// blinding). Fails with [`crate::Error::InvalidKey`].
    pub fn new(n: Nat, e: Nat) -> Result<RsaPublicKey> {
        validate::public_key(&n, &e)?;
        let n = Modulus::from_nat(&n).map_err(|_| Error::InvalidKey("bad modulus"))?;
        Ok(RsaPublicKey { n, e, accel: PublicAccel::default() })
    }

    /// [`RsaPublicKey::new`] from big-endian byte strings (leading zeros allowed).
    pub fn from_be_bytes(n: &[u8], e: &[u8]) -> Result<RsaPublicKey> {
        RsaPublicKey::new(Nat::from_be_bytes(n), Nat::from_be_bytes(e))
    }

    /// The modulus n.
    pub fn n(&self) -> Nat {
        self.n.to_nat()
    }

    /// The public exponent e.
    pub fn e(&self) -> &Nat {
        &self.e
    }

    /// The modulus's bit length ("RSA-2048" has 2048).
    pub fn bits(&self) -> usize {
        self.n.bits()
    }

    /// k, the modulus's length in bytes: the length of every signature and ciphertext.
    pub fn size(&self) -> usize {
        self.n.byte_len()
    }

    /// The name of the kernels this key's public operations (verification, encryption)
    /// run on here: `"ifma-x2"` with AVX-512 IFMA where the process default backend
    /// allows it and n has 512 to 4096 bits, else `"scalar"`.
    pub fn backend_name(&self) -> &'static str {
        self.accel.kernel_name(&self.n)
    }
}

impl PartialEq for RsaPublicKey {
    fn eq(&self, other: &RsaPublicKey) -> bool {
        self.n.as_limbs() == other.n.as_limbs() && self.e == other.e
    }
}

impl Eq for RsaPublicKey {}

impl core::fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("bits", &self.bits())
            .field("e", &self.e)
            .finish_non_exhaustive()
    }
}

/// An RSA private key, RFC 8017 section 3.2, second representation (CRT), with u >= 2
/// primes.
///
/// Made by key generation ([`super::keygen`]), by [`RsaPrivateKey::from_components`] and
/// its siblings (which validate every value), or by the parsers in [`super::encoding`].
/// Safe to share between threads: the private operation takes `&self`.
pub struct RsaPrivateKey {
    pub(crate) public: RsaPublicKey,
    pub(crate) d: Nat,
    /// r_1 = p, r_2 = q, r_3, ..., r_u.
    pub(crate) primes: Vec<Nat>,
    /// d_i = d mod (r_i - 1), in the order of `primes`.
    pub(crate) exponents: Vec<Nat>,
    /// qInv = q^-1 mod p, then t_i = (r_1 ... r_{i-1})^-1 mod r_i for i >= 3.
    pub(crate) coefficients: Vec<Nat>,
    /// The precomputed CRT values, in the form the exponentiation uses.
    pub(crate) crt: CrtKey,
    /// The unit chosen for the key's private operations and its state there
    /// ([`super::accel`]).
    pub(crate) accel: KeyAccel,
    pub(crate) blinding: BlindingPool,
    /// SHA-256(I2OSP(d, k)), the HMAC key from which implicit rejection derives its
    /// key-derivation key per ciphertext.
    pub(crate) d_hash: Zeroizing<[u8; 32]>,
}

impl RsaPrivateKey {
    /// Builds a key from values already checked (by [`validate::private_key`], or by
    /// construction in key generation): the precomputations only, no checks.
    pub(crate) fn assemble(values: PrivateValues) -> Result<RsaPrivateKey> {
        let PrivateValues { n, e, d, primes, exponents, coefficients } = values;
        let crt = CrtKey::new(&n, &primes, &exponents, &coefficients)?;
        let n_mod = Modulus::from_nat(&n).map_err(|_| Error::InvalidKey("bad modulus"))?;
        let public = RsaPublicKey { n: n_mod, e, accel: PublicAccel::default() };
        let d_hash = hash_private_exponent(&d, public.size())?;
        Ok(RsaPrivateKey {
            public,
            d,
            primes,
            exponents,
            coefficients,
            crt,
            accel: KeyAccel::default(),
            blinding: BlindingPool::default(),
            d_hash,
        })
    }

    /// The public half.
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// The modulus's bit length.
    pub fn bits(&self) -> usize {
        self.public.bits()
    }

    /// k, the modulus's length in bytes.
    pub fn size(&self) -> usize {
        self.public.size()
    }

    /// The private exponent d. Secret.
    pub fn d(&self) -> &Nat {
        &self.d
    }

    /// The primes r_1 = p, r_2 = q, r_3, ... in key order. Secret.
    pub fn primes(&self) -> &[Nat] {
        &self.primes
    }

    /// The CRT exponents d_i = d mod (r_i - 1) (dP, dQ, d_3, ...). Secret.
    pub fn crt_exponents(&self) -> &[Nat] {
        &self.exponents
    }

    /// The CRT coefficients: qInv, then t_3, ..., t_u. Secret.
    pub fn crt_coefficients(&self) -> &[Nat] {
        &self.coefficients
    }

    /// The key with its own backend choice, which overrides the process default.
    /// [`Error::Unsupported`] for [`Backend::Ifma`] on a CPU without it.
    pub fn with_backend(mut self, backend: Backend) -> Result<RsaPrivateKey> {
        backend.resolve()?;
        self.accel.choice = Some(backend);
        Ok(self)
    }

    /// The backend this key's private operations use: its own choice, else the process
    /// default (an error as [`default_backend`](super::default_backend)).
    pub fn backend(&self) -> Result<Backend> {
        self.accel.backend()
    }

    /// The name of the kernels this key's private operation runs on here: `"scalar"`,
    /// or `"ifma-x2"` (both CRT halves in one register set).
    pub fn backend_name(&self) -> Result<&'static str> {
        Ok(self.accel_key(self.accel.unit()?).kernel_name())
    }

    /// The key as the accelerator seam sees it, on `unit`.
    pub(crate) fn accel_key(&self, unit: Unit) -> AccelKey<'_> {
        let (crt, n, e, accel) = (&self.crt, &self.public.n, &self.public.e, &self.accel);
        AccelKey { unit, crt, n, e, accel }
    }
}

impl Clone for RsaPrivateKey {
    /// A copy with its own, empty, pool of blinding factors.
    fn clone(&self) -> RsaPrivateKey {
        RsaPrivateKey {
            public: self.public.clone(),
            d: self.d.clone(),
            primes: self.primes.clone(),
            exponents: self.exponents.clone(),
            coefficients: self.coefficients.clone(),
            crt: self.crt.clone(),
            accel: self.accel.clone(),
            blinding: BlindingPool::default(),
            d_hash: self.d_hash.clone(),
        }
    }
}

impl PartialEq for RsaPrivateKey {
    /// Keys are equal when all their components are; variable-time (do not compare
    /// secret keys in front of an observer).
    fn eq(&self, other: &RsaPrivateKey) -> bool {
        self.public == other.public
            && self.d == other.d
            && self.primes == other.primes
            && self.exponents == other.exponents
            && self.coefficients == other.coefficients
    }
}

impl Eq for RsaPrivateKey {}

impl core::fmt::Debug for RsaPrivateKey {
    /// Prints the public part and the number of primes, never a secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("bits", &self.bits())
            .field("e", &self.public.e)
            .field("primes", &self.primes.len())
            .finish_non_exhaustive()
    }
}

/// SHA-256(I2OSP(d, k)): the HMAC key of implicit rejection's key-derivation key.
fn hash_private_exponent(d: &Nat, k: usize) -> Result<Zeroizing<[u8; 32]>> {
    let mut bytes = d.to_be_bytes_padded(k)?;
    let mut digest = Hasher::digest(HashAlg::Sha256, &bytes);
    bytes.zeroize();
    let mut out = Zeroizing::new([0u8; 32]);
    out.copy_from_slice(digest.as_bytes());
    digest.wipe();
    Ok(out)
}

/// The 2048-bit test key of `tests/data/rsa/rsa2048_pkcs1.hex`, for unit tests.
#[cfg(test)]
pub(crate) fn test_key_2048() -> RsaPrivateKey {
    let hex = include_str!("../../tests/data/rsa/rsa2048_pkcs1.hex").trim();
    let der: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap()
}
