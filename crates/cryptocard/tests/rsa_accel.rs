//! The IFMA backend of the private operation against the scalar backend (and OpenSSL's
//! libcrypto as an independent reference) on keys made by OpenSSL, random ones but at
//! 8192 bits (a fixed key, `data/rsa/rsa8192.pem`: OpenSSL takes 10 to 40 s to make
//! one, longer than the rest of this file's run): raw RSADP,
//! PKCS#1 v1.5 and PSS signatures, OAEP and PKCS#1 v1.5 decryption must give the same
//! bytes on both backends. Without AVX-512 IFMA the IFMA half prints a note and passes;
//! the forced scalar path and the backend selection are tested everywhere.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, Oaep, Pss, RsaPrivateKey};
use openssl::rsa::{Padding, Rsa};

/// A key of `bits` bits made by OpenSSL (a random one, or the fixed one at 8192 bits),
/// with both backends (`None` for IFMA when the CPU lacks it).
fn keys(bits: u32) -> (Rsa<openssl::pkey::Private>, RsaPrivateKey, Option<RsaPrivateKey>) {
    let rsa = match bits {
        8192 => Rsa::private_key_from_pem(include_bytes!("data/rsa/rsa8192.pem")).unwrap(),
        _ => Rsa::generate(bits).unwrap(),
    };
    assert_eq!(rsa.size() * 8, bits);
    let key = RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap();
    let scalar = key.clone().with_backend(Backend::Scalar).unwrap();
    assert_eq!(scalar.backend_name().unwrap(), "scalar");
    let ifma = match key.with_backend(Backend::Ifma) {
        Ok(k) => Some(k),
        Err(e) => {
            assert!(matches!(e, cryptocard::Error::Unsupported(_)), "{e:?}");
            assert!(!Backend::Ifma.is_available());
            println!("note: no AVX-512 IFMA on this CPU; IFMA comparisons skipped");
            None
        }
    };
    (rsa, scalar, ifma)
}

fn random_below_n(rsa: &Rsa<openssl::pkey::Private>, k: usize) -> Vec<u8> {
    let mut x = vec![0u8; k];
    openssl::rand::rand_bytes(&mut x).unwrap();
    x[0] &= 0x7f; // below 2^(8k - 1) <= n
    let _ = rsa;
    x
}

fn compare(bits: u32, rounds: usize) {
    let (rsa, scalar, ifma) = keys(bits);
    let k = scalar.size();
    let mut rng = OsRng;
    // Raw RSADP: scalar = OpenSSL's RSA_NO_PADDING = IFMA.
    for _ in 0..rounds {
        let x = random_below_n(&rsa, k);
        let ours = scalar.raw_private(&x, &mut rng).unwrap();
        let mut theirs = vec![0u8; k];
        rsa.private_decrypt(&x, &mut theirs, Padding::NONE).unwrap();
        assert_eq!(ours, theirs, "scalar vs OpenSSL, {bits} bits");
        if let Some(ifma) = &ifma {
            assert_eq!(ifma.raw_private(&x, &mut rng).unwrap(), ours, "ifma vs scalar, {bits}");
        }
    }
    let Some(ifma) = ifma else { return };
    let name = ifma.backend_name().unwrap();
    assert!(name.starts_with("ifma"), "{bits}-bit key runs on {name}");
    // Edge inputs: 0, 1, n - 1.
    let n = scalar.public_key().n().to_be_bytes_padded(k).unwrap();
    let mut n1 = n.clone();
    *n1.last_mut().unwrap() -= 1; // n is odd
    let one = {
        let mut v = vec![0u8; k];
        v[k - 1] = 1;
        v
    };
    for x in [vec![0u8; k], one, n1] {
        assert_eq!(
            ifma.raw_private(&x, &mut rng).unwrap(),
            scalar.raw_private(&x, &mut rng).unwrap()
        );
    }
    // Input n is out of range on both.
    assert!(ifma.raw_private(&n, &mut rng).is_err());
    // Schemes: deterministic ones give the same bytes, PSS verifies.
    let msg = b"cryptocard accel";
    let s1 = ifma.sign_pkcs1v15(HashAlg::Sha256, msg, &mut rng).unwrap();
    assert_eq!(s1, scalar.sign_pkcs1v15(HashAlg::Sha256, msg, &mut rng).unwrap());
    let pss = Pss::new(HashAlg::Sha256);
    let s2 = ifma.sign_pss(&pss, msg, &mut rng).unwrap();
    scalar.public_key().verify_pss(&pss, msg, &s2).unwrap();
    let oaep = Oaep::new(HashAlg::Sha256);
    let ct = scalar.public_key().encrypt_oaep(&oaep, msg, &mut rng).unwrap();
    assert_eq!(ifma.decrypt_oaep(&oaep, &ct, &mut rng).unwrap(), msg);
    let ct = scalar.public_key().encrypt_pkcs1v15(msg, &mut rng).unwrap();
    assert_eq!(ifma.decrypt_pkcs1v15(&ct, &mut rng).unwrap(), msg);
    // A random ciphertext: implicit rejection's synthetic message, the same on both.
    let junk = random_below_n(&rsa, k);
    assert_eq!(
        ifma.decrypt_pkcs1v15(&junk, &mut rng).unwrap(),
        scalar.decrypt_pkcs1v15(&junk, &mut rng).unwrap()
    );
}

#[test]
fn ifma_matches_scalar_1024() {
    compare(1024, 40);
}

#[test]
fn ifma_matches_scalar_2048() {
    compare(2048, 30);
}

#[test]
fn ifma_matches_scalar_3072() {
    compare(3072, 10);
}

#[test]
fn ifma_matches_scalar_4096() {
    compare(4096, 6);
}

#[test]
fn ifma_matches_scalar_8192() {
    compare(8192, 2);
}

/// Keys whose primes fall between the kernels' size classes run in the class above.
#[test]
fn ifma_matches_scalar_between_classes() {
    compare(1536, 10);
    compare(2560, 6);
}

#[test]
fn short_and_multi_prime_keys_stay_scalar() {
    // 384-bit primes are below the smallest class; a 3-prime key never runs on IFMA.
    let (_, _, ifma) = keys(768);
    if let Some(k) = ifma {
        assert_eq!(k.backend_name().unwrap(), "scalar");
    }
    let mut opts = cryptocard::rsa::KeyGenOptions::new(2048);
    opts.primes = 3;
    let key = RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap();
    assert_eq!(key.primes().len(), 3);
    if let Ok(k) = key.clone().with_backend(Backend::Ifma) {
        assert_eq!(k.backend_name().unwrap(), "scalar");
        let x = vec![0x42u8; k.size()];
        assert_eq!(
            k.raw_private(&x, &mut OsRng).unwrap(),
            key.raw_private(&x, &mut OsRng).unwrap()
        );
    }
}

#[test]
fn backend_choices() {
    assert_eq!(Backend::parse("scalar").unwrap(), Backend::Scalar);
    assert_eq!(Backend::parse(" IFMA ").unwrap(), Backend::Ifma);
    assert_eq!(Backend::parse("auto").unwrap(), Backend::Auto);
    assert_eq!(Backend::parse("gpu").unwrap(), Backend::Gpu);
    assert_eq!(Backend::parse("AVX2").unwrap(), Backend::Avx2);
    assert!(matches!(Backend::parse("cuda"), Err(cryptocard::Error::Unsupported(_))));
    assert!(Backend::Scalar.is_available() && Backend::Auto.is_available());
    let (_, scalar, _) = keys(1024);
    assert_eq!(scalar.backend().unwrap(), Backend::Scalar);
    let auto = scalar.clone().with_backend(Backend::Auto).unwrap();
    let want = if Backend::Ifma.is_available() { "ifma-x2" } else { "scalar" };
    assert_eq!(auto.backend_name().unwrap(), want);
    // Forcing IFMA is an error exactly where the CPU lacks it, never a panic.
    assert_eq!(scalar.with_backend(Backend::Ifma).is_ok(), Backend::Ifma.is_available());
    assert_eq!(
        cryptocard::rsa::set_default_backend(Backend::Ifma).is_ok(),
        Backend::Ifma.is_available()
    );
    cryptocard::rsa::set_default_backend(Backend::Auto).unwrap();
}

/// The child half of `environment_variable_picks_the_default`: reports what the key runs
/// on under the environment its parent set (ignored when run directly).
#[test]
#[ignore]
fn child_reports_backend() {
    let (_, scalar, _) = keys(1024);
    let key = RsaPrivateKey::from_pkcs1_der(&scalar.to_pkcs1_der().unwrap()).unwrap();
    match key.raw_private(&vec![3u8; key.size()], &mut OsRng) {
        Ok(_) => println!("BACKEND={}", key.backend_name().unwrap()),
        Err(e) => println!("BACKEND-ERROR={e:?}"),
    }
    // Public operations never fail for the backend's sake.
    let public = key.public_key();
    let y = public.raw_public(&vec![3u8; key.size()]).unwrap();
    assert_eq!(
        key.raw_private(&y, &mut OsRng).ok(),
        key.backend().ok().map(|_| vec![3u8; key.size()])
    );
    println!("PUBLIC={}", public.backend_name());
}

#[test]
fn environment_variable_picks_the_default() {
    let run = |value: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "child_reports_backend", "--nocapture"])
            .env(cryptocard::rsa::BACKEND_VAR, value)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{text}");
        text
    };
    assert!(run("scalar").contains("BACKEND=scalar"));
    // Public operations follow the default too; where it is unusable they run on the core.
    assert!(run("scalar").contains("PUBLIC=scalar"));
    assert!(run("cuda").contains("PUBLIC=scalar"));
    if Backend::Gpu.is_available() {
        assert!(run("gpu").contains("BACKEND=gpu"));
    } else {
        assert!(run("gpu").contains("BACKEND-ERROR=Unsupported"));
    }
    assert!(run("cuda").contains("BACKEND-ERROR=Unsupported"));
    // AVX2: single operations on the scalar core (batches in its lanes).
    if Backend::Avx2.is_available() {
        assert!(run("avx2").contains("BACKEND=scalar"));
    } else {
        assert!(run("avx2").contains("BACKEND-ERROR=Unsupported"));
    }
    if Backend::Ifma.is_available() {
        assert!(run("ifma").contains("BACKEND=ifma-x2"));
        assert!(run("auto").contains("BACKEND=ifma-x2"));
        assert!(run("auto").contains("PUBLIC=ifma-x2"));
        assert!(run("avx2").contains("PUBLIC=scalar"));
    } else {
        assert!(run("ifma").contains("BACKEND-ERROR=Unsupported"));
        assert!(run("auto").contains("BACKEND=scalar"));
    }
}
