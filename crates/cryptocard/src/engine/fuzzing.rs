//! The body of the `private_batch` fuzz target (`crates/cryptocard/fuzz`, cargo-fuzz): a
//! differential test of the batch paths against the single operation on the scalar
//! backend, for requests with mixed keys, schemes and invalid inputs cut from arbitrary
//! bytes. It drives [`private_batch`] and an [`Engine`], so it lives in the engine's layer
//! (the top one); the other targets' bodies are in `rsa::fuzzing`. An ordinary test
//! (`tests/fuzz_corpus.rs`) runs it over the target's seed corpus.
//!
//! Every request runs four ways: alone on a scalar copy of its key (the reference), alone
//! on the key's own backend (IFMA x2 where the CPU has it), in one [`private_batch`] call
//! with all the others (mb8 lanes, keys of different sizes and moduli side by side), and
//! through [`Engine::sign_batch`]. Deterministic schemes (PKCS#1 v1.5 signatures, every
//! decryption, raw RSA) must give the reference's bytes or its error; PSS signatures,
//! whose salt is random, must verify where the reference succeeded and fail with its
//! error where it failed. The paths differ only in where the arithmetic runs, so any
//! difference is a bug: a lane that leaks into another, a bad request failing its batch,
//! a kernel that disagrees with the scalar code.
//!
//! The input is a list of requests, four bytes and a payload each:
//!
//! ```text
//! key  kind  shape  len  payload[len]  key  kind ...
//! ```
//!
//! `key` picks a key, `kind` one of the nine [`PrivateRequest`] kinds; `shape`'s low
//! three bits say how the payload becomes the input (for decryptions: a valid ciphertext
//! of the payload, one of the other padding, one with a byte flipped, the payload spread
//! to k bytes below n, n itself, a value above n, or the payload as it is, usually of the
//! wrong length), bit 3 whether a digest is computed or taken as it is, and the high
//! four bits the hash.

use std::sync::Arc;

use super::Engine;
use crate::digest::{HashAlg, Hasher};
use crate::rng::{OsRng, RandomSource};
use crate::rsa::fuzzing::hash;
use crate::rsa::{
    Backend, Oaep, PrivateRequest, Pss, RsaPrivateKey, RsaPublicKey, SaltLength, private_batch,
};
use crate::{Error, Result};

/// The most requests one input makes (more than one mb8 call's worth of any class).
pub const MAX_REQUESTS: usize = 12;

/// The request kinds, [`PrivateRequest`]'s variants.
pub const KINDS: u8 = 9;

/// What became of one request, for a test to check what a corpus reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The index of its key.
    pub key: usize,
    /// Its kind, 0 to 8 in the order of [`PrivateRequest`]'s variants.
    pub kind: u8,
    /// Whether the reference (and so every path) succeeded.
    pub ok: bool,
}

/// Keys, their scalar twins and an engine, made once and reused for every input.
#[derive(Debug)]
pub struct BatchHarness {
    keys: Vec<Arc<RsaPrivateKey>>,
    scalar: Vec<RsaPrivateKey>,
    engine: Engine,
}

impl BatchHarness {
    /// A harness over `keys` (on their default backend) with a two-worker engine.
    pub fn new(keys: Vec<RsaPrivateKey>) -> Result<BatchHarness> {
        if keys.is_empty() {
            return Err(Error::InvalidArgument("the harness needs at least one key"));
        }
        let scalar =
            keys.iter().map(|k| k.clone().with_backend(Backend::Scalar)).collect::<Result<_>>()?;
        let keys = keys.into_iter().map(Arc::new).collect();
        Ok(BatchHarness { keys, scalar, engine: Engine::builder().workers(2).build()? })
    }

    /// Runs the requests `data` describes every way and checks the answers agree (see
    /// the module docs); panics on a disagreement. Returns what became of each request.
    pub fn run(&self, data: &[u8]) -> Vec<Outcome> {
        let requests = self.decode(data);
        if requests.is_empty() {
            return Vec::new();
        }
        let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            requests.iter().map(|(i, _, r)| (&*self.keys[*i], r)).collect();
        let batch = private_batch(&pairs, &mut OsRng);
        let queued: Vec<(Arc<RsaPrivateKey>, PrivateRequest)> =
            requests.iter().map(|(i, _, r)| (Arc::clone(&self.keys[*i]), r.clone())).collect();
        let engine = self.engine.sign_batch(&queued);
        assert_eq!((batch.len(), engine.len()), (requests.len(), requests.len()));
        let mut outcomes = Vec::with_capacity(requests.len());
        for (j, (i, kind, req)) in requests.iter().enumerate() {
            let reference = req.run(&self.scalar[*i], &mut OsRng);
            let public = self.scalar[*i].public_key();
            let own = req.run(&self.keys[*i], &mut OsRng);
            let paths = [("single", &own), ("private_batch", &batch[j]), ("engine", &engine[j])];
            for (path, answer) in paths {
                agree(public, req, &reference, answer, path, j);
            }
            outcomes.push(Outcome { key: *i, kind: *kind, ok: reference.is_ok() });
        }
        outcomes
    }

    /// The requests `data` describes, each with its key's index and its kind.
    fn decode(&self, mut data: &[u8]) -> Vec<(usize, u8, PrivateRequest)> {
        let mut out = Vec::new();
        while out.len() < MAX_REQUESTS {
            let Some((&[key, kind, shape, len], rest)) = data.split_first_chunk::<4>() else {
                break;
            };
            let (payload, rest) = rest.split_at(usize::from(len).min(rest.len()));
            data = rest;
            let i = usize::from(key) % self.keys.len();
            let kind = kind % KINDS;
            out.push((i, kind, request(self.scalar[i].public_key(), kind, shape, payload)));
        }
        out
    }
}

/// Fails unless `answer` (from `path`) is what the scalar single operation gave.
fn agree(
    public: &RsaPublicKey,
    req: &PrivateRequest,
    reference: &Result<Vec<u8>>,
    answer: &Result<Vec<u8>>,
    path: &str,
    j: usize,
) {
    let verified = match (req, answer) {
        (PrivateRequest::SignPss { params, msg }, Ok(sig)) => public.verify_pss(params, msg, sig),
        (PrivateRequest::SignPssPrehashed { params, digest }, Ok(sig)) => {
            public.verify_pss_prehashed(params, digest, sig)
        }
        _ => {
            assert_eq!(answer, reference, "request {j} ({req:?}): {path} differs from scalar");
            return;
        }
    };
    assert!(reference.is_ok(), "request {j} ({req:?}): {path} signed, scalar failed");
    assert_eq!(verified, Ok(()), "request {j} ({req:?}): {path}'s PSS signature fails");
}

/// One request of kind `kind` for `public`'s key, its input made from `payload` as
/// `shape` says (module docs).
fn request(public: &RsaPublicKey, kind: u8, shape: u8, payload: &[u8]) -> PrivateRequest {
    use PrivateRequest as R;
    let h = hash(shape >> 4);
    let digest = || match shape & 8 {
        0 => Hasher::digest(h, payload).as_bytes().to_vec(),
        _ => payload.to_vec(),
    };
    let pss = || {
        let salt = match (shape >> 1) & 3 {
            0 => SaltLength::DigestLength,
            1 => SaltLength::Maximum,
            2 => SaltLength::Exact(payload.len() % 80),
            _ => SaltLength::Auto,
        };
        Pss::new(h).with_mgf1(hash(shape)).with_salt(salt)
    };
    let oaep = || Oaep::new(h).with_label(&payload[..payload.len().min(usize::from(shape & 3))]);
    let ct = |scheme| input(public, scheme, shape, payload);
    match kind % KINDS {
        0 => R::SignPkcs1v15 { hash: h, msg: payload.to_vec() },
        1 => R::SignPkcs1v15Prehashed { hash: h, digest: digest() },
        2 => R::SignPkcs1v15Raw { data: payload.to_vec() },
        3 => R::SignPss { params: pss(), msg: payload.to_vec() },
        4 => R::SignPssPrehashed { params: pss(), digest: digest() },
        5 => R::DecryptOaep { ciphertext: ct(Scheme::Oaep(oaep())), params: oaep() },
        6 => R::DecryptPkcs1v15 { ciphertext: ct(Scheme::Pkcs1) },
        7 => R::DecryptPkcs1v15Explicit { ciphertext: ct(Scheme::Pkcs1) },
        _ => R::RawPrivate { input: ct(Scheme::Raw) },
    }
}

/// The padding a decryption input is made for.
enum Scheme {
    Pkcs1,
    Oaep(Oaep),
    Raw,
}

/// A decryption input from `payload`, shaped by the low three bits of `shape`.
fn input(public: &RsaPublicKey, scheme: Scheme, shape: u8, payload: &[u8]) -> Vec<u8> {
    let k = public.size();
    let n = public.n().to_be_bytes();
    // Encryption's randomness from the payload, so that an input always makes the same
    // requests (a crash reproduces).
    let mut rng =
        SplitMix(payload.iter().fold(0x9e37_79b9_7f4a_7c15, |s, &b| {
            (s ^ u64::from(b)).wrapping_mul(0x1000_0000_01b3)
        }));
    let encrypt = |scheme: &Scheme, rng: &mut SplitMix| -> Option<Vec<u8>> {
        let msg = &payload[..payload.len().min(k.saturating_sub(11))];
        match scheme {
            Scheme::Pkcs1 => public.encrypt_pkcs1v15(msg, rng).ok(),
            Scheme::Oaep(o) => public.encrypt_oaep(o, msg, rng).ok().or_else(|| {
                // Too long for OAEP with this hash: the longest message that fits.
                let max = k.checked_sub(2 * o.hash.output_len() + 2)?;
                public.encrypt_oaep(o, &msg[..msg.len().min(max)], rng).ok()
            }),
            Scheme::Raw => {
                let mut m = spread(payload, k);
                m[0] = 0;
                public.raw_public(&m).ok()
            }
        }
    };
    let valid = |rng: &mut SplitMix| encrypt(&scheme, rng).unwrap_or_else(|| payload.to_vec());
    match shape & 7 {
        0 | 1 => valid(&mut rng),
        2 => {
            // The other padding: an OAEP ciphertext for PKCS#1 v1.5 and raw, and the
            // other way round.
            let other = match &scheme {
                Scheme::Oaep(_) => Scheme::Pkcs1,
                _ => Scheme::Oaep(Oaep::new(HashAlg::Sha1)),
            };
            encrypt(&other, &mut rng).unwrap_or_else(|| payload.to_vec())
        }
        3 => {
            let mut c = valid(&mut rng);
            if let Some(b) = c.get_mut(payload.len() % k.max(1)) {
                *b ^= 1 << (payload.len() % 8);
            }
            c
        }
        4 => {
            // Below n: a top byte of zero (n's is not).
            let mut c = spread(payload, k);
            c[0] = 0;
            c
        }
        5 => n,
        6 => {
            // Above n, still k bytes: n's top byte raised, or all ones if it is 0xff.
            let mut c = spread(payload, k);
            match n[0].checked_add(1) {
                Some(top) => c[0] = top,
                None => c.fill(0xff),
            }
            c
        }
        _ => payload.to_vec(),
    }
}

/// `payload` repeated (each copy xored with its position) to `k` bytes.
fn spread(payload: &[u8], k: usize) -> Vec<u8> {
    (0..k).map(|i| payload.get(i % payload.len().max(1)).copied().unwrap_or(0) ^ i as u8).collect()
}

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): the deterministic randomness of the
/// encryptions that make valid ciphertexts. Never used for the operations under test.
struct SplitMix(u64);

impl RandomSource for SplitMix {
    fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()> {
        for chunk in dest.chunks_mut(8) {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}
