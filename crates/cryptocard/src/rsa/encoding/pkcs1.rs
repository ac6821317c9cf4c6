//! PKCS#1 key syntax (RFC 8017 appendix A.1): `RSAPublicKey` and `RSAPrivateKey`
//! (version 0 with two primes, version 1 "multi" with `otherPrimeInfos`), DER and PEM
//! ("RSA PUBLIC KEY", "RSA PRIVATE KEY"), through the RustCrypto `pkcs1` crate.
//!
//! A private key whose CRT fields are all zero (some tools write only n, e, d) is read
//! only when the caller asks for the recovery of its primes
//! ([`KeyParseOptions::recover_primes`], then [`RsaPrivateKey::from_n_e_d`]); otherwise
//! it fails with [`RECOVERY_NOT_ENABLED`]. Any other key is checked in full
//! ([`RsaPrivateKey::from_crt_components`]).

use super::{
    DER_ERROR, KeyParseOptions, RECOVERY_NOT_ENABLED, from_pem_with, nat, secret_bytes, to_pem,
};
use crate::bignum::Nat;
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use crate::{Error, Result};
use der::asn1::UintRef;
use der::{Decode, Encode};
use pkcs1::{OtherPrimeInfo, RsaPrivateKeyRef, RsaPublicKeyRef};
use zeroize::Zeroizing;

/// The PEM label of PKCS#1 private keys.
pub const PRIVATE_LABEL: &str = "RSA PRIVATE KEY";
/// The PEM label of PKCS#1 public keys.
pub const PUBLIC_LABEL: &str = "RSA PUBLIC KEY";

fn uint(bytes: &[u8]) -> Result<UintRef<'_>> {
    UintRef::new(bytes).map_err(|_| Error::InvalidEncoding("integer too long"))
}

impl RsaPublicKey {
    /// Parses a DER `RSAPublicKey`.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<RsaPublicKey> {
        let key = RsaPublicKeyRef::from_der(der).map_err(|_| DER_ERROR)?;
        RsaPublicKey::from_be_bytes(key.modulus.as_bytes(), key.public_exponent.as_bytes())
    }

    /// Encodes the key as a DER `RSAPublicKey`.
    pub fn to_pkcs1_der(&self) -> Result<Vec<u8>> {
        let (n, e) = (self.n().to_be_bytes(), self.e.to_be_bytes());
        RsaPublicKeyRef { modulus: uint(&n)?, public_exponent: uint(&e)? }
            .to_der()
            .map_err(|_| DER_ERROR)
    }

    /// Parses a PEM "RSA PUBLIC KEY".
    pub fn from_pkcs1_pem(pem: &str) -> Result<RsaPublicKey> {
        from_pem_with(pem, PUBLIC_LABEL, RsaPublicKey::from_pkcs1_der)
    }

    /// Encodes the key as a PEM "RSA PUBLIC KEY" (LF line endings).
    pub fn to_pkcs1_pem(&self) -> Result<String> {
        to_pem(PUBLIC_LABEL, &self.to_pkcs1_der()?).map(|s| s.to_string())
    }
}

impl RsaPrivateKey {
    /// Parses a DER `RSAPrivateKey` (two-prime or multi-prime) and checks the key.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<RsaPrivateKey> {
        RsaPrivateKey::from_pkcs1_der_with(der, &KeyParseOptions::default())
    }

    /// As [`RsaPrivateKey::from_pkcs1_der`], with `opts` (the recovery of p and q).
    pub fn from_pkcs1_der_with(der: &[u8], opts: &KeyParseOptions) -> Result<RsaPrivateKey> {
        let key = RsaPrivateKeyRef::from_der(der).map_err(|_| DER_ERROR)?;
        let n = nat(key.modulus);
        let e = nat(key.public_exponent);
        let d = nat(key.private_exponent);
        let mut primes = vec![nat(key.prime1), nat(key.prime2)];
        let mut exponents = vec![nat(key.exponent1), nat(key.exponent2)];
        let mut coefficients = vec![nat(key.coefficient)];
        for info in key.other_prime_infos.iter().flatten() {
            primes.push(nat(info.prime));
            exponents.push(nat(info.exponent));
            coefficients.push(nat(info.coefficient));
        }
        let all_zero = |v: &[Nat]| v.iter().all(Nat::is_zero);
        if primes.len() == 2 && all_zero(&primes) && all_zero(&exponents) && all_zero(&coefficients)
        {
            if !opts.recover_primes {
                return Err(RECOVERY_NOT_ENABLED);
            }
            return RsaPrivateKey::from_n_e_d(n, e, d);
        }
        RsaPrivateKey::from_crt_components(n, e, d, primes, exponents, coefficients)
    }

    /// Encodes the key as a DER `RSAPrivateKey` (version 1 with `otherPrimeInfos` for
    /// more than two primes).
    pub fn to_pkcs1_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        let n = self.public.n().to_be_bytes();
        let e = self.public.e.to_be_bytes();
        let d = secret_bytes(&self.d);
        let primes: Vec<_> = self.primes.iter().map(secret_bytes).collect();
        let exps: Vec<_> = self.exponents.iter().map(secret_bytes).collect();
        let coeffs: Vec<_> = self.coefficients.iter().map(secret_bytes).collect();
        let other_prime_infos = if primes.len() > 2 {
            let mut infos = Vec::with_capacity(primes.len() - 2);
            for i in 2..primes.len() {
                infos.push(OtherPrimeInfo {
                    prime: uint(&primes[i])?,
                    exponent: uint(&exps[i])?,
                    coefficient: uint(&coeffs[i - 1])?,
                });
            }
            Some(infos)
        } else {
            None
        };
        let key = RsaPrivateKeyRef {
            modulus: uint(&n)?,
            public_exponent: uint(&e)?,
            private_exponent: uint(&d)?,
            prime1: uint(&primes[0])?,
            prime2: uint(&primes[1])?,
            exponent1: uint(&exps[0])?,
            exponent2: uint(&exps[1])?,
            coefficient: uint(&coeffs[0])?,
            other_prime_infos,
        };
        key.to_der().map(Zeroizing::new).map_err(|_| DER_ERROR)
    }

    /// Parses a PEM "RSA PRIVATE KEY" (unencrypted; one under legacy encryption,
    /// `Proc-Type: 4,ENCRYPTED`, is for [`RsaPrivateKey::from_pkcs1_encrypted_pem`]).
    pub fn from_pkcs1_pem(pem: &str) -> Result<RsaPrivateKey> {
        from_pem_with(pem, PRIVATE_LABEL, RsaPrivateKey::from_pkcs1_der)
    }

    /// Encodes the key as a PEM "RSA PRIVATE KEY" (LF line endings).
    pub fn to_pkcs1_pem(&self) -> Result<Zeroizing<String>> {
        to_pem(PRIVATE_LABEL, &self.to_pkcs1_der()?)
    }
}
