//! The key object behind OpenSSL's `keydata` pointer: an RSA public key, with its private
//! half when there is one, made empty by `new` and filled by `import` or `gen`.
//!
//! Import takes the standard parameters of OpenSSL's RSA keymgmt (`n`, `e`, `d`,
//! `rsa-factor<i>`, `rsa-exponent<i>`, `rsa-coefficient<i>`; provider-keymgmt(7),
//! EVP_PKEY-RSA(7)), so a key decoded by the default provider (PEM, DER, encrypted
//! PKCS#8) moves to ours, and export gives the same back, so a key made by our
//! generator can be written by the default provider's encoders. Every value goes through
//! the library's validation (`RsaPrivateKey::from_crt_components` and siblings): a bad key
//! is refused at import, not found out at the first signature. The values cross in
//! [`KeyBytes`], buffers wiped when dropped (the library's `Nat` wipes its own).
//!
//! Fork: the private key's blinding pairs must not be shared by two processes (the same
//! r would blind both processes' operations). The key remembers the pid that made it; a
//! child's first private operation replaces it with a clone, whose pool starts empty.

use crate::errors::{Failure, Outcome, Reason};
use crate::ossl::names;
use crate::pss_key::PssRestriction;
use core::ffi::CStr;
use cryptocard::bignum::Nat;
use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// A value of a key, big-endian, wiped when dropped (d, the primes and the CRT values
/// are secrets; n and e share the type).
pub type KeyBytes = Zeroizing<Vec<u8>>;

/// A key's values as big-endian bytes, as import receives them and export gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyValues {
    /// The modulus.
    pub n: Option<KeyBytes>,
    /// The public exponent.
    pub e: Option<KeyBytes>,
    /// The private exponent.
    pub d: Option<KeyBytes>,
    /// p, q, r_3, ...
    pub factors: Vec<KeyBytes>,
    /// dP, dQ, d_3, ...
    pub exponents: Vec<KeyBytes>,
    /// qInv, t_3, ...
    pub coefficients: Vec<KeyBytes>,
}

impl KeyValues {
    /// The values as (parameter name, big-endian bytes), in OpenSSL's order; borrowed, not
    /// copied.
    pub fn named(&self) -> Vec<(&'static CStr, &[u8])> {
        let mut out = Vec::new();
        for (name, v) in [(names::N, &self.n), (names::E, &self.e), (names::D, &self.d)] {
            if let Some(v) = v {
                out.push((name, v.as_slice()));
            }
        }
        let lists: [(&[&'static CStr], &Vec<KeyBytes>); 3] = [
            (&names::FACTORS, &self.factors),
            (&names::EXPONENTS, &self.exponents),
            (&names::COEFFICIENTS, &self.coefficients),
        ];
        for (list, values) in lists {
            out.extend(list.iter().zip(values.iter()).map(|(n, v)| (*n, v.as_slice())));
        }
        out
    }
}

/// The key held: the public half always, the private half when there is one.
#[derive(Clone, Debug)]
struct Held {
    public: Arc<RsaPublicKey>,
    private: Option<Arc<RsaPrivateKey>>,
    /// The process that made `private` (its blinding pool).
    pid: u32,
    /// An RSA-PSS key's restrictions, if it has any.
    restriction: Option<PssRestriction>,
}

/// OpenSSL's `keydata`: empty until imported or generated.
#[derive(Debug, Default)]
pub struct KeyData {
    held: Mutex<Option<Held>>,
    /// An RSA-PSS key (RFC 4055 id-RSASSA-PSS): it signs with PSS only and never
    /// encrypts. Set when the object is made, by the RSA-PSS key management.
    pub pss: bool,
}

impl KeyData {
    /// An empty RSA-PSS key object.
    pub fn new_pss() -> KeyData {
        KeyData { pss: true, ..KeyData::default() }
    }

    /// An RSA key object holding `key`.
    pub fn from_private(key: RsaPrivateKey) -> KeyData {
        KeyData::generated(key, false, None)
    }

    /// A key object holding `key`: an RSA key, or an RSA-PSS key (`pss`) with
    /// `restriction` if it has any.
    pub fn generated(
        key: RsaPrivateKey,
        pss: bool,
        restriction: Option<PssRestriction>,
    ) -> KeyData {
        let data = KeyData { pss, ..KeyData::default() };
        data.set_private(key, restriction.filter(|_| pss));
        data
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Held>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_private(&self, key: RsaPrivateKey, restriction: Option<PssRestriction>) {
        let public = Arc::new(key.public_key().clone());
        let private = Some(Arc::new(key));
        *self.lock() = Some(Held { public, private, pid: std::process::id(), restriction });
    }

    /// An RSA-PSS key's restrictions (none for an RSA key).
    pub fn restriction(&self) -> Option<PssRestriction> {
        self.lock().as_ref().and_then(|h| h.restriction)
    }

    /// Sets an RSA-PSS key's restrictions on the key held (an import of its "other
    /// parameters" alone); nothing to do without any or for an RSA key.
    pub fn set_restriction(&self, restriction: Option<PssRestriction>) -> Outcome<()> {
        let Some(r) = restriction.filter(|_| self.pss) else { return Ok(()) };
        match self.lock().as_mut() {
            Some(h) => {
                h.restriction = Some(r);
                Ok(())
            }
            None => Err(Failure::new(Reason::InvalidKey, "restrictions without a key")),
        }
    }

    /// The public key, if any.
    pub fn public(&self) -> Option<Arc<RsaPublicKey>> {
        self.lock().as_ref().map(|h| h.public.clone())
    }

    /// The private key, if any; in a forked child, a copy with its own blinding pool.
    pub fn private(&self) -> Option<Arc<RsaPrivateKey>> {
        let mut held = self.lock();
        let h = held.as_mut()?;
        let key = h.private.as_ref()?;
        let pid = std::process::id();
        if h.pid != pid {
            let fresh = Arc::new(RsaPrivateKey::clone(key));
            h.private = Some(fresh);
            h.pid = pid;
        }
        h.private.clone()
    }

    /// Whether the key has what `want_private` / `want_public` ask.
    pub fn has(&self, want_private: bool, want_public: bool) -> bool {
        let held = self.lock();
        match held.as_ref() {
            None => !want_private && !want_public,
            Some(h) => !want_private || h.private.is_some(),
        }
    }

    /// Imports `values`; the private half only if `private` and `d` is there.
    pub fn import(&self, values: &KeyValues, private: bool) -> Outcome<()> {
        self.import_restricted(values, private, None)
    }

    /// [`KeyData::import`], and for an RSA-PSS key its `restriction` (an RSA key has
    /// none).
    pub fn import_restricted(
        &self,
        values: &KeyValues,
        private: bool,
        restriction: Option<PssRestriction>,
    ) -> Outcome<()> {
        let restriction = restriction.filter(|_| self.pss);
        let nat = |v: &Option<KeyBytes>, what: &str| {
            v.as_deref()
                .map(|b| Nat::from_be_bytes(b))
                .ok_or_else(|| Failure::new(Reason::InvalidKey, format!("missing {what}")))
        };
        let n = nat(&values.n, "n")?;
        let e = nat(&values.e, "e")?;
        if private && values.d.is_some() {
            let d = nat(&values.d, "d")?;
            let list = |l: &[KeyBytes]| l.iter().map(|v| Nat::from_be_bytes(v)).collect::<Vec<_>>();
            let primes = list(&values.factors);
            let key = if primes.is_empty() {
                RsaPrivateKey::from_n_e_d(n, e, d)
            } else if values.exponents.len() == primes.len()
                && values.coefficients.len() + 1 == primes.len()
            {
                let (exps, coefs) = (list(&values.exponents), list(&values.coefficients));
                RsaPrivateKey::from_crt_components(n, e, d, primes, exps, coefs)
            } else {
                RsaPrivateKey::from_components(n, e, d, primes)
            }?;
            self.set_private(key, restriction);
        } else {
            let public = Arc::new(RsaPublicKey::new(n, e)?);
            let pid = std::process::id();
            *self.lock() = Some(Held { public, private: None, pid, restriction });
        }
        Ok(())
    }

    /// The values to export: public ones, and the private ones if `private` (each in a
    /// buffer wiped when dropped).
    pub fn export(&self, private: bool) -> KeyValues {
        let held = self.lock();
        let Some(h) = held.as_ref() else { return KeyValues::default() };
        let be = |n: &Nat| Zeroizing::new(n.to_be_bytes());
        let mut v = KeyValues {
            n: Some(be(&h.public.n())),
            e: Some(be(h.public.e())),
            ..KeyValues::default()
        };
        if let (true, Some(k)) = (private, h.private.as_ref()) {
            v.d = Some(be(k.d()));
            v.factors = k.primes().iter().map(be).collect();
            v.exponents = k.crt_exponents().iter().map(be).collect();
            v.coefficients = k.crt_coefficients().iter().map(be).collect();
        }
        v
    }

    /// Whether two keys have the same public key (`match` on the public selection;
    /// private keys with the same public key are the same key).
    pub fn same_public(&self, other: &KeyData) -> bool {
        match (self.public(), other.public()) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}

/// The key's strength in bits, as OpenSSL computes it (NIST SP 800-57 part 1 table 2 for
/// the common sizes, the same step function between them).
pub fn security_bits(bits: usize) -> i64 {
    match bits {
        15360.. => 256,
        8192.. => 200,
        7680.. => 192,
        6144.. => 176,
        4096.. => 152,
        3072.. => 128,
        2048.. => 112,
        1024.. => 80,
        _ => 0,
    }
}
