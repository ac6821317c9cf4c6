//! Constant-time validation under valgrind's memcheck (Langley's ctgrind; BoringSSL's
//! `CONSTTIME_SECRET`): every secret is marked undefined, so that memcheck reports any
//! branch or memory index that depends on one ("conditional jump or move depends on
//! uninitialised value", "use of uninitialised value of size 8"), and the run fails on
//! the first report. Values become public only where the library declassifies them
//! (`ct::Choice::declassify`, `ct::mark_public`).
//!
//! The secrets all come from one source: a random source whose every byte is marked
//! secret ([`SecretRng`]). So a key it generates is secret from its prime candidates on,
//! and the run covers, on the scalar backend:
//! * key generation: the prime candidates' sieve and Miller-Rabin test, the inverse
//!   d = e^-1 mod lambda(n), the CRT values;
//! * import validation: `from_crt_components` of that key's values;
//! * the private operation: blinding (r from the secret source), the reductions, the CRT
//!   exponentiations, Garner, unblinding, the fault check;
//! * the schemes: PKCS#1 v1.5 and PSS signatures, PKCS#1 v1.5 decryption with implicit
//!   rejection (of a valid and of an invalid ciphertext) and OAEP decryption.
//!
//! Built with the `ct-validation` feature in the `ctgrind` profile (no debug assertions
//! or overflow checks, whose branches are not in the shipped code) and run by
//! `scripts/ct-valgrind`: the test re-runs itself under valgrind.

use cryptocard::ct;
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::{Backend, Oaep, Pss, RsaPrivateKey, set_default_backend};
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

/// The RSA-2048 key of BoringSSL's `rsa_tests.txt` (see `tests/data/rsa/README.md`).
fn key2048() -> RsaPrivateKey {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap()
}

/// What runs under valgrind.
fn workload() {
    assert!(ct::on_valgrind(), "the workload must run under valgrind");
    set_default_backend(Backend::Scalar).unwrap();
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

#[test]
fn secrets_reach_no_branch_and_no_index() {
    if std::env::var_os(CHILD).is_some() {
        return workload();
    }
    let exe = std::env::current_exe().unwrap();
    let run = Command::new("valgrind")
        .args(["--error-exitcode=99", "--exit-on-first-error=yes", "--track-origins=yes"])
        .arg(&exe)
        .args([
            "--exact",
            "secrets_reach_no_branch_and_no_index",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output();
    let out = match run {
        Ok(out) => out,
        Err(e) => panic!("valgrind did not start ({e}): install it (scripts/prerequisites)"),
    };
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "memcheck found a secret-dependent branch or index:\n{log}");
}
