//! Batches for the GPU kernel's tests, shared by the host build's
//! (`gpu_host_kernels.rs`) and the device's (`gpu_device.rs`): keys of every size, their
//! device images, operations with their blinding pairs, the interleaved planes the
//! kernel reads (built here from `kernel/rsa_op.cuh`'s description, independently of the
//! library's own packing), and what each operation must give: the scalar backend's
//! `raw_private` result and the Montgomery squares of the pair.

#![allow(dead_code)]

use super::common::{XorShift64, data_path};
use cryptocard::hazmat::gpu as layout;
use cryptocard::rng::OsRng;
use cryptocard::rsa::keygen::KeyGenOptions;
use cryptocard::rsa::{Backend, RsaPrivateKey};
use num_bigint::BigUint;
use std::sync::OnceLock;

/// A BigUint from little-endian 32-bit limbs.
pub fn big(words: &[u32]) -> BigUint {
    BigUint::from_slice(words)
}

/// `x` as `len` little-endian 32-bit limbs (x must fit).
pub fn words(x: &BigUint, len: usize) -> Vec<u32> {
    let mut w = x.to_u32_digits();
    assert!(w.len() <= len, "{} limbs do not fit {len}", w.len());
    w.resize(len, 0);
    w
}

/// A random number below `bound`, from `len` random limbs.
pub fn random_below(rng: &mut XorShift64, bound: &BigUint) -> BigUint {
    let len = bound.to_u32_digits().len() + 2;
    let w: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
    big(&w) % bound
}

/// A key as the tests use it: the key, its image, and its numbers.
pub struct TestKey {
    pub name: &'static str,
    pub key: RsaPrivateKey,
    pub image: Vec<u32>,
    pub n: BigUint,
    pub e: BigUint,
    pub p: BigUint,
    pub q: BigUint,
    /// Limbs of n (2L).
    pub nl: usize,
}

impl TestKey {
    fn new(name: &'static str, key: RsaPrivateKey) -> TestKey {
        let key = key.with_backend(Backend::Scalar).unwrap();
        let image = layout::key_image(&key).expect("a two-prime key of even length").to_vec();
        let nat = |x: &cryptocard::bignum::Nat| BigUint::from_bytes_be(&x.to_be_bytes());
        let n = nat(&key.public_key().n());
        let e = nat(key.public_key().e());
        let (p, q) = (nat(&key.primes()[0]), nat(&key.primes()[1]));
        let nl = image[2] as usize;
        assert_eq!(image[0], layout::KEY_MAGIC);
        assert_eq!(image.len(), layout::key_words(nl / 2), "{name}: image length");
        TestKey { name, key, image, n, e, p, q, nl }
    }

    /// R = 2^(32 nl), the Montgomery radix mod n.
    pub fn r(&self) -> BigUint {
        BigUint::from(1u8) << (32 * self.nl)
    }
}

/// The test keys: RSA-1024, 2048, 3072 (files), RSA-4096, and RSA-2048 with e = 3 and
/// with a 64-bit e (generated once per process).
pub fn keys() -> &'static [TestKey] {
    static KEYS: OnceLock<Vec<TestKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let pem = |f: &str| std::fs::read_to_string(data_path(&format!("rsa/{f}"))).unwrap();
        let gen_e = |bits: usize, e: u64| {
            let mut o = KeyGenOptions::new(bits);
            o.public_exponent = e;
            RsaPrivateKey::generate_with(&o, &mut OsRng).unwrap()
        };
        vec![
            TestKey::new("rsa1024", RsaPrivateKey::from_pkcs8_pem(&pem("rsa1024.pem")).unwrap()),
            TestKey::new(
                "rsa2048",
                RsaPrivateKey::from_pkcs8_pem(&pem("rsa2048_pkcs8.pem")).unwrap(),
            ),
            TestKey::new("rsa3072", RsaPrivateKey::from_pkcs8_pem(&pem("rsa3072.pem")).unwrap()),
            TestKey::new("rsa4096", RsaPrivateKey::generate(4096, &mut OsRng).unwrap()),
            TestKey::new("rsa2048-e3", gen_e(2048, 3)),
            TestKey::new("rsa2048-e64", gen_e(2048, 0xffff_ffff_ffff_ffc5)),
        ]
    })
}

/// One operation: its key, its c, its pair in Montgomery form (A R, Ai R mod n).
#[derive(Clone)]
pub struct Op {
    pub key: usize,
    pub c: BigUint,
    pub a_m: BigUint,
    pub ai_m: BigUint,
}

/// A pair (A R, Ai R) for r: A = r^e, Ai = r^-1 mod n.
pub fn pair(k: &TestKey, r: &BigUint) -> (BigUint, BigUint) {
    let a = r.modpow(&k.e, &k.n);
    let ai = r.modinv(&k.n).expect("r invertible");
    ((a * k.r()) % &k.n, (ai * k.r()) % &k.n)
}

/// A random operation on key `key`, with c drawn from the edges now and then.
pub fn random_op(rng: &mut XorShift64, keys: &[TestKey], key: usize) -> Op {
    let k = &keys[key];
    let one = BigUint::from(1u8);
    let c = match rng.below(12) {
        0 => BigUint::ZERO,
        1 => one.clone(),
        2 => &k.n - &one,
        3 => k.p.clone(),
        4 => &k.q + &one,
        5 => &k.p - &one,
        6 => k.p.clone().max(k.q.clone()) + random_below(rng, &k.p),
        _ => random_below(rng, &k.n),
    };
    let (a_m, ai_m) = match rng.below(16) {
        0 => {
            let r = k.r() % &k.n; // the pair (1, 1)
            (r.clone(), r)
        }
        _ => pair(k, &(random_below(rng, &(&k.n - 2u32)) + 2u32)),
    };
    Op { key, c, a_m, ai_m }
}

/// A batch in the kernel's format.
pub struct Batch {
    pub op_key: Vec<u32>,
    pub input: Vec<u32>,
    pub words: usize,
    pub count: usize,
}

/// Interleaves the operations' planes (c, A R, Ai R): word j of plane k of operation i
/// at (k words + j) count + i.
pub fn pack(keys: &[TestKey], ops: &[Op]) -> Batch {
    let words = ops.iter().map(|o| keys[o.key].nl).max().unwrap_or(0);
    let count = ops.len();
    let mut input = vec![0u32; 3 * words * count];
    for (i, op) in ops.iter().enumerate() {
        for (k, x) in [&op.c, &op.a_m, &op.ai_m].into_iter().enumerate() {
            for (j, w) in words_of(x).into_iter().enumerate() {
                input[(k * words + j) * count + i] = w;
            }
        }
    }
    Batch { op_key: ops.iter().map(|o| o.key as u32).collect(), input, words, count }
}

fn words_of(x: &BigUint) -> Vec<u32> {
    x.to_u32_digits()
}

/// Plane `k` of operation `i` of an output buffer.
pub fn unpack(out: &[u32], words: usize, count: usize, k: usize, i: usize) -> Vec<u32> {
    (0..words).map(|j| out[(k * words + j) * count + i]).collect()
}

/// The scalar backend's result for c (raw RSADP, blinded and checked on the CPU).
pub fn scalar_private(k: &TestKey, c: &BigUint) -> BigUint {
    let bytes = c.to_bytes_be();
    let mut input = vec![0u8; k.key.size() - bytes.len()];
    input.extend_from_slice(&bytes);
    BigUint::from_bytes_be(&k.key.raw_private(&input, &mut OsRng).unwrap())
}

/// Checks every operation's outputs against the scalar backend ([`check_output`]).
/// Returns the number of operations checked.
pub fn check_outputs(
    keys: &[TestKey],
    ops: &[Op],
    b: &Batch,
    out: &[u32],
    status: &[u32],
) -> usize {
    assert_eq!(status.len(), ops.len());
    for (i, op) in ops.iter().enumerate() {
        check_output(keys, op, b, out, status, i);
    }
    ops.len()
}

/// Checks operation `i` (`op`) of a batch against the scalar backend: status OK, m equal
/// to `raw_private`, the successor pair (A^2 R, Ai^2 R), and zero past the key's limbs.
pub fn check_output(keys: &[TestKey], op: &Op, b: &Batch, out: &[u32], status: &[u32], i: usize) {
    let k = &keys[op.key];
    assert_eq!(status[i], layout::STATUS_OK, "op {i} ({}) status", k.name);
    let m = unpack(out, b.words, b.count, 0, i);
    assert!(m[k.nl..].iter().all(|&w| w == 0), "op {i}: words past n");
    let want = scalar_private(k, &op.c);
    assert_eq!(big(&m), want, "op {i} ({}): m against the scalar backend", k.name);
    let rinv = k.r().modinv(&k.n).unwrap();
    let a2 = big(&unpack(out, b.words, b.count, 1, i));
    let ai2 = big(&unpack(out, b.words, b.count, 2, i));
    assert_eq!(a2, (&op.a_m * &op.a_m * &rinv) % &k.n, "op {i}: A^2");
    assert_eq!(ai2, (&op.ai_m * &op.ai_m * &rinv) % &k.n, "op {i}: Ai^2");
}

/// The images of `keys`, with `fault` (phase, bit) armed in key `faulty` if given.
pub fn images(keys: &[TestKey], faulty: Option<(usize, u32, u32)>) -> Vec<Vec<u32>> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            let mut img = k.image.clone();
            if let Some((f, phase, bit)) = faulty
                && f == i
            {
                img[layout::FAULT_PHASE_WORD] = phase;
                img[layout::FAULT_BIT_WORD] = bit;
            }
            img
        })
        .collect()
}
