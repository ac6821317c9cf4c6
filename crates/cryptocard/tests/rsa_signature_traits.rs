//! The RustCrypto traits on our RSA keys, used as generic code written for the `rsa`
//! crate would use them: every check goes through `Signer`, `RandomizedSigner`,
//! `Verifier`, `Keypair`, `DecodePrivateKey` and the rest, never through our inherent
//! methods (except to compare with them).

use cryptocard::digest::{HashFunction, Sha256, Sha384, Sha512};
use cryptocard::engine::{AsyncPssSigningKey, AsyncSigningKey, Engine};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaPrivateKey, pkcs1v15, pss};
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Padding;
use openssl::sign::RsaPssSaltlen;
use pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use signature::hazmat::{PrehashSigner, PrehashVerifier};
use signature::rand_core::{Infallible, TryCryptoRng, TryRng};
use signature::{
    AsyncSigner, DigestSigner, Keypair, RandomizedSigner, SignatureEncoding, Signer, Verifier,
};
use spki::{DecodePublicKey, EncodePublicKey};
use std::sync::Arc;

const KEY_PEM: &str = include_str!("data/rsa/rsa2048_pkcs8.pem");
const MSG: &[u8] = b"code written for the rsa crate";

/// A deterministic `rand_core` generator: SHA-256 of a seed and a counter. Not for keys;
/// here to show that any `rand_core` generator is accepted, and to make PSS repeatable.
struct CounterRng {
    seed: u64,
    counter: u64,
}

impl TryRng for CounterRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(32) {
            let mut h = Sha256::new();
            HashFunction::update(&mut h, &self.seed.to_le_bytes());
            HashFunction::update(&mut h, &self.counter.to_le_bytes());
            self.counter += 1;
            chunk.copy_from_slice(&HashFunction::finalize(h)[..chunk.len()]);
        }
        Ok(())
    }
}

impl TryCryptoRng for CounterRng {}

fn load<K: DecodePrivateKey>() -> K {
    K::from_pkcs8_pem(KEY_PEM).expect("the test key parses")
}

/// Signs with both signer traits and checks both signatures, a changed message and a
/// changed signature; returns the `Signer` signature's bytes.
fn round_trip<K, S>(key: &K) -> Vec<u8>
where
    K: Signer<S> + RandomizedSigner<S> + Keypair,
    K::VerifyingKey: Verifier<S>,
    S: SignatureEncoding + core::fmt::Debug,
{
    let vk = key.verifying_key();
    let sig = key.sign(MSG);
    assert!(vk.verify(MSG, &sig).is_ok());
    let sig2 = key.sign_with_rng(&mut CounterRng { seed: 1, counter: 0 }, MSG);
    assert!(vk.verify(MSG, &sig2).is_ok());
    assert!(vk.verify(b"another message", &sig).is_err());

    let mut bad = sig.to_vec();
    bad[17] ^= 0x40;
    let bad = S::try_from(&bad[..]).ok().expect("any bytes make a signature");
    assert!(vk.verify(MSG, &bad).is_err());
    let short = S::try_from(&sig.to_vec()[1..]).ok().unwrap();
    assert!(vk.verify(MSG, &short).is_err());
    assert_eq!(sig.encoded_len(), 256);
    sig.to_vec()
}

fn openssl_verifies(sig: &[u8], md: MessageDigest, pss: bool) -> bool {
    let vk: pkcs1v15::VerifyingKey<Sha256> = load::<pkcs1v15::SigningKey<Sha256>>().verifying_key();
    let der = vk.to_public_key_der().unwrap();
    let pkey = PKey::public_key_from_der(der.as_bytes()).unwrap();
    let mut v = openssl::sign::Verifier::new(md, &pkey).unwrap();
    if pss {
        v.set_rsa_padding(Padding::PKCS1_PSS).unwrap();
        v.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH).unwrap();
    }
    v.update(MSG).unwrap();
    v.verify(sig).unwrap()
}

fn pkcs1v15_case<D: HashFunction>(md: MessageDigest) {
    let key: pkcs1v15::SigningKey<D> = load();
    let sig = round_trip(&key);
    // Deterministic: what the inherent method signs, whatever the generator.
    let inherent = key.as_ref().sign_pkcs1v15(D::ALG, MSG, &mut OsRng).unwrap();
    assert_eq!(sig, inherent);
    assert!(openssl_verifies(&sig, md, false));
    assert!(!openssl_verifies(&sig, md, true));
}

fn pss_case<D: HashFunction>(md: MessageDigest) {
    let key: pss::SigningKey<D> = load();
    let sig = round_trip(&key);
    assert!(openssl_verifies(&sig, md, true));
    assert!(!openssl_verifies(&sig, md, false));
    // The generator's salt: the same generator state, the same signature.
    let a = key.sign_with_rng(&mut CounterRng { seed: 7, counter: 0 }, MSG);
    let b = key.sign_with_rng(&mut CounterRng { seed: 7, counter: 0 }, MSG);
    let c = key.sign_with_rng(&mut CounterRng { seed: 8, counter: 0 }, MSG);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn pkcs1v15_sha256_384_512() {
    pkcs1v15_case::<Sha256>(MessageDigest::sha256());
    pkcs1v15_case::<Sha384>(MessageDigest::sha384());
    pkcs1v15_case::<Sha512>(MessageDigest::sha512());
}

#[test]
fn pss_sha256_384_512() {
    pss_case::<Sha256>(MessageDigest::sha256());
    pss_case::<Sha384>(MessageDigest::sha384());
    pss_case::<Sha512>(MessageDigest::sha512());
}

#[test]
fn pss_verifying_key_takes_openssl_default_salt() {
    let key: pss::SigningKey<Sha256> = load();
    let der = EncodePrivateKey::to_pkcs8_der(&key).unwrap();
    let pkey = PKey::private_key_from_der(der.as_bytes()).unwrap();
    let mut s = openssl::sign::Signer::new(MessageDigest::sha256(), &pkey).unwrap();
    s.set_rsa_padding(Padding::PKCS1_PSS).unwrap();
    s.set_rsa_pss_saltlen(RsaPssSaltlen::MAXIMUM_LENGTH).unwrap();
    s.update(MSG).unwrap();
    let sig = pss::Signature::try_from(&s.sign_to_vec().unwrap()[..]).unwrap();
    assert!(key.verifying_key().verify(MSG, &sig).is_ok());
    let strict =
        pss::VerifyingKey::<Sha256>::new_with_salt_len(key.as_ref().public_key().clone(), 32);
    assert!(strict.verify(MSG, &sig).is_err());
}

#[test]
fn prehash_and_digest_signers_agree_with_signer() {
    let key: pkcs1v15::SigningKey<Sha384> = load();
    let vk = key.verifying_key();
    let sig = key.sign(MSG);
    let prehash = Sha384::digest(MSG);
    assert_eq!(key.sign_prehash(&prehash).unwrap(), sig);
    assert!(vk.verify_prehash(&prehash, &sig).is_ok());
    assert!(vk.verify_prehash(&Sha384::digest(b"x"), &sig).is_err());
    let by_digest = key.sign_digest(|d: &mut Sha384| digest::Update::update(d, MSG));
    assert_eq!(by_digest, sig);
}

#[test]
fn keys_through_pkcs8_and_spki_traits() {
    let key: RsaPrivateKey = load();
    let pem = EncodePrivateKey::to_pkcs8_pem(&key, LineEnding::LF).unwrap();
    assert_eq!(RsaPrivateKey::from_pkcs8_pem(&pem).unwrap(), key);
    let sk: pss::SigningKey<Sha256> =
        pss::SigningKey::from_pkcs8_der(EncodePrivateKey::to_pkcs8_der(&key).unwrap().as_bytes())
            .unwrap();
    let vk_pem = sk.verifying_key().to_public_key_pem(LineEnding::LF).unwrap();
    let vk = pss::VerifyingKey::<Sha256>::from_public_key_pem(&vk_pem).unwrap();
    assert_eq!(vk, sk.verifying_key());
    assert!(vk.verify(MSG, &sk.sign(MSG)).is_ok());
    // OpenSSL reads what the traits wrote.
    assert!(PKey::private_key_from_pem(pem.as_bytes()).is_ok());
    assert!(PKey::public_key_from_pem(vk_pem.as_bytes()).is_ok());
    assert!(pkcs1v15::SigningKey::<Sha256>::from_pkcs8_pem("not a key").is_err());
}

#[test]
fn engine_signs_through_async_signer() {
    let engine = Arc::new(Engine::new().unwrap());
    let key = Arc::new(load::<RsaPrivateKey>());
    let signer = AsyncSigningKey::<Sha256>::new(engine.clone(), key.clone());
    let sig = block_on(signer.sign_async(MSG)).unwrap();
    assert_eq!(sig, pkcs1v15::SigningKey::<Sha256>::new((*key).clone()).sign(MSG));
    assert!(signer.verifying_key().verify(MSG, &sig).is_ok());

    let signer = AsyncPssSigningKey::<Sha512>::new(engine.clone(), key);
    let sig = block_on(signer.sign_async(MSG)).unwrap();
    assert!(signer.verifying_key().verify(MSG, &sig).is_ok());
    assert!(openssl_verifies(&sig.to_vec(), MessageDigest::sha512(), true));

    engine.shutdown();
    let refused = block_on(signer.sign_async(MSG)).unwrap_err();
    let source = std::error::Error::source(&refused).and_then(|e| e.downcast_ref());
    assert_eq!(source, Some(&cryptocard::Error::ShutDown));
}

/// The smallest executor: poll, park until woken.
fn block_on<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Arc::new(Unpark(std::thread::current())).into();
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
