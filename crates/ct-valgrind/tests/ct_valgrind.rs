//! Constant-time validation under valgrind's memcheck (Langley's ctgrind; BoringSSL's
//! `CONSTTIME_SECRET`): every secret is marked undefined, so that memcheck reports any
//! branch or memory index that depends on one ("conditional jump or move depends on
//! uninitialised value", "use of uninitialised value of size 8"), and the run fails on
//! the first report. Values become public only where the library declassifies them
//! (`ct::Choice::declassify`, `ct::mark_public`).
//!
//! Four tests, each a workload that the test runs again under valgrind, on the scalar
//! backend unless said otherwise:
//! * `private_operations`: the key's secrets marked
//!   ([`RsaPrivateKey::mark_secret_for_validation`]) and every random byte secret
//!   ([`SecretRng`], so the blinding factors too): the blinding, the reductions, the CRT
//!   exponentiations, Garner, unblinding and the fault check, in PKCS#1 v1.5 and PSS
//!   signatures, PKCS#1 v1.5 decryption with implicit rejection (of a valid and of an
//!   invalid ciphertext) and OAEP decryption;
//! * `import_validation`: `from_crt_components` of a key's values with d, the primes and
//!   the CRT values marked: the range and product checks, e*d = 1 mod (r_i - 1), the
//!   coefficients' inverses, the Montgomery constants of the primes;
//! * `avx2_batch`: a batch of two signatures on the AVX2 unit, one call of its four lanes
//!   (`arch/x86_64/mb4`: the conversion to radix 2^28, the table scan, the products), the
//!   key's secrets marked, on a CPU with AVX2 (valgrind runs AVX2 but not AVX-512, so the
//!   IFMA kernels are not covered here);
//! * `key_generation`: keys from [`SecretRng`], so secret from their prime candidates
//!   on: the sieve, the acceptance check gcd(e, r - 1) = 1, Miller-Rabin, |p - q|,
//!   lambda(n) and d = e^-1 mod lambda(n), the CRT values (two primes and three).
//!
//! What the library makes public it declassifies in named places: sizes
//! (`bignum::shape`), a rejected prime candidate (`modular::prime`), a discarded prime
//! or key attempt (`rsa::keygen`), v2(p - 1) (`miller_rabin::two_adic_order`), check
//! verdicts (`Choice::declassify`) and results (`rsa::declassify`).
//!
//! Built with the `ct-validation` feature in the `ctgrind` profile (no debug assertions
//! or overflow checks, whose branches are not in the shipped code) and run by
//! `scripts/ct-valgrind`: the test re-runs itself under valgrind.

use cryptocard::bignum::Nat;
use cryptocard::ct;
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::{
    Backend, KeyGenOptions, Oaep, PrivateRequest, Pss, RsaPrivateKey, private_batch,
    set_default_backend,
};
use std::process::Command;

/// The operating system's randomness, every byte marked secret.
struct SecretRng;

impl RandomSource for SecretRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) -> cryptocard::Result<()> {
        OsRng.fill_bytes(dest)?;
        ct::mark_secret(dest);
        Ok(())
    }
}

/// Set in the child that runs under valgrind.
const CHILD: &str = "CRYPTOCARD_CT_VALGRIND_CHILD";

/// The RSA-2048 key of BoringSSL's `rsa_tests.txt` (see
/// `crates/cryptocard/tests/data/rsa/README.md`).
fn key2048() -> RsaPrivateKey {
    let der = hex::decode(include_str!("../../cryptocard/tests/data/rsa/rsa2048_pkcs1.hex").trim())
        .unwrap();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap()
}

/// Import validation: `from_crt_components` of a key's values, every one but n and e
/// marked secret. Returns the imported key.
fn import(key: &RsaPrivateKey) -> RsaPrivateKey {
    let secret = |v: &Nat| {
        let v = v.clone();
        ct::mark_secret(v.as_limbs());
        v
    };
    let public = key.public_key();
    RsaPrivateKey::from_crt_components(
        public.n(),
        public.e().clone(),
        secret(key.d()),
        key.primes().iter().map(secret).collect(),
        key.crt_exponents().iter().map(secret).collect(),
        key.crt_coefficients().iter().map(secret).collect(),
    )
    .unwrap()
}

/// Key generation from the secret source: the candidates' sieve and acceptance check,
/// Miller-Rabin, |p - q|, lambda(n), d and the CRT values; two primes and three.
fn keygen() {
    let mut rng = SecretRng;
    let key = RsaPrivateKey::generate(2048, &mut rng).unwrap();
    assert_eq!(key.bits(), 2048);
    let opts = KeyGenOptions { primes: 3, ..KeyGenOptions::new(1536) };
    let key = RsaPrivateKey::generate_with(&opts, &mut rng).unwrap();
    assert_eq!(key.primes().len(), 3);
}

/// The private operation in every scheme, with the key's secrets marked.
fn sign_and_decrypt() {
    let mut rng = SecretRng;
    let key = key2048();
    key.mark_secret_for_validation();
    let public = key.public_key();
    let sig = key.sign_pkcs1v15(HashAlg::Sha256, b"ctgrind", &mut rng).unwrap();
    public.verify_pkcs1v15(HashAlg::Sha256, b"ctgrind", &sig).unwrap();
    let pss = Pss::new(HashAlg::Sha256);
    let sig = key.sign_pss(&pss, b"ctgrind", &mut rng).unwrap();
    public.verify_pss(&pss, b"ctgrind", &sig).unwrap();
    let c = public.encrypt_pkcs1v15(b"a secret", &mut OsRng).unwrap();
    let m = key.decrypt_pkcs1v15(&c, &mut rng).unwrap();
    ct::mark_public(&m);
    assert_eq!(m, b"a secret");
    // An invalid ciphertext: the implicit rejection's synthetic message, of a length that
    // must not depend on the padding check either.
    let mut bad = c.clone();
    bad[5] ^= 1;
    key.decrypt_pkcs1v15(&bad, &mut rng).unwrap();
    let oaep = Oaep::new(HashAlg::Sha256);
    let c = public.encrypt_oaep(&oaep, b"a secret", &mut OsRng).unwrap();
    let m = key.decrypt_oaep(&oaep, &c, &mut rng).unwrap();
    ct::mark_public(&m);
    assert_eq!(m, b"a secret");
}

/// Two signatures in one batch on the AVX2 unit (one four-lane call: both CRT halves of
/// each), the key's secrets marked.
fn batch_on_avx2() {
    if !Backend::Avx2.is_available() {
        println!("AVX2 batch skipped: no AVX2 on this CPU");
        return;
    }
    let mut rng = SecretRng;
    let key = key2048().with_backend(Backend::Avx2).unwrap();
    // Marked before anything derives the unit's parameters from the primes.
    key.mark_secret_for_validation();
    assert_eq!(key.batch_class().ops_per_batch(), 2);
    let msgs = [b"ctgrind lane 1".to_vec(), b"ctgrind lane 2".to_vec()];
    let reqs: Vec<PrivateRequest> = msgs
        .iter()
        .map(|m| PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: m.clone() })
        .collect();
    let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> = reqs.iter().map(|r| (&key, r)).collect();
    for (m, sig) in msgs.iter().zip(private_batch(&batch, &mut rng)) {
        key.public_key().verify_pkcs1v15(HashAlg::Sha256, m, &sig.unwrap()).unwrap();
    }
}

/// Runs `workload` for the test `name`: here, when this process is that test's child
/// under valgrind; otherwise by starting the test again under valgrind, which fails on
/// memcheck's first report.
fn under_valgrind(name: &str, workload: fn()) {
    if std::env::var(CHILD).as_deref() == Ok(name) {
        assert!(ct::on_valgrind(), "the workload must run under valgrind");
        set_default_backend(Backend::Scalar).unwrap();
        return workload();
    }
    let exe = std::env::current_exe().unwrap();
    let run = Command::new("valgrind")
        .args(["--error-exitcode=99", "--exit-on-first-error=yes", "--track-origins=yes"])
        .arg(&exe)
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .output();
    let out = match run {
        Ok(out) => out,
        Err(e) => panic!("valgrind did not start ({e}): install it (scripts/prerequisites)"),
    };
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "memcheck found a secret-dependent branch or index:\n{log}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 passed"), "the workload did not run under valgrind:\n{stdout}");
}

#[test]
fn private_operations() {
    under_valgrind("private_operations", sign_and_decrypt);
}

#[test]
fn avx2_batch() {
    under_valgrind("avx2_batch", batch_on_avx2);
}

#[test]
fn import_validation() {
    under_valgrind("import_validation", || drop(import(&key2048())));
}

#[test]
fn key_generation() {
    under_valgrind("key_generation", keygen);
}
