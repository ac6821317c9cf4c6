//! The GPU kernel's arithmetic, built for the host by the C compiler
//! (`crates/gpu-host`, the same headers NVRTC compiles: `src/rsa/accel/gpu/kernel`),
//! against num-bigint (the primitives, at every limb count up to RSA-4096's n and on
//! edge operands) and against the scalar backend (the whole private operation: every
//! size, e = 3, 65537 and a 64-bit e, edge inputs, mixed keys in one batch, every
//! window). The fault check: a bit flipped in each phase, a corrupted key parameter and
//! a mismatched blinding pair each fail their operation alone, with no result.
//! Runs on every machine: no GPU needed.

mod common;
mod gpu_common;

use common::XorShift64;
use cryptocard::hazmat::gpu as layout;
use cryptocard_gpu_host as host;
use gpu_common::{Op, TestKey, big, keys, pack, random_below, random_op, unpack, words};
use num_bigint::BigUint;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Odd moduli of `l` limbs: random ones, 2^(32 l) - 1, and one with a top limb of 1.
fn moduli(rng: &mut XorShift64, l: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for _ in 0..3 {
        let mut n: Vec<u32> = (0..l).map(|_| rng.next_u64() as u32).collect();
        n[0] |= 1;
        n[l - 1] |= 1 << 31;
        out.push(n);
    }
    out.push(vec![u32::MAX; l]);
    let mut small_top: Vec<u32> = (0..l).map(|_| rng.next_u64() as u32 | 1).collect();
    small_top[l - 1] = 1;
    if l == 1 {
        small_top[0] = 3;
    }
    out.push(small_top);
    out
}

/// Operands below n: 0, 1, n - 1 and random ones.
fn operands(rng: &mut XorShift64, n: &BigUint) -> Vec<BigUint> {
    let mut v = vec![BigUint::ZERO, BigUint::from(1u8), n - 1u32];
    v.extend((0..4).map(|_| random_below(rng, n)));
    v
}

#[test]
fn neg_inv32_inverts() {
    let mut rng = XorShift64(0x9e37_79b9_7f4a_7c15);
    for m in [1u32, 3, u32::MAX, 0x8000_0001]
        .into_iter()
        .chain((0..1000).map(|_| rng.next_u64() as u32 | 1))
    {
        assert_eq!(m.wrapping_mul(host::neg_inv32(m)), u32::MAX, "-m^-1 * m = -1 for {m:#x}");
    }
}

#[test]
fn products_match_bigint() {
    let mut rng = XorShift64(0x1234_5678_9abc_def1);
    for l in [1, 2, 3, 16, 32, 48, 64, 96, 128] {
        for n_words in moduli(&mut rng, l) {
            let n = big(&n_words);
            let r = BigUint::from(1u8) << (32 * l);
            let rinv = (&r % &n).modinv(&n).unwrap();
            let ops = operands(&mut rng, &n);
            for a in &ops {
                let aw = words(a, l);
                assert_eq!(big(&host::sqr_wide(&aw)), a * a, "sqr_wide, {l} limbs");
                let want = (a * a * &rinv) % &n;
                assert_eq!(big(&host::mont_sqr(&aw, &n_words)), want, "mont_sqr {l}");
                assert_eq!(big(&host::mont_sqr_chain(&aw, &n_words)), want, "mont_sqr_chain {l}");
                for b in &ops {
                    let bw = words(b, l);
                    assert_eq!(big(&host::mul_wide(&aw, &bw)), a * b, "mul_wide, {l} limbs");
                    let want = (a * b * &rinv) % &n;
                    let got = big(&host::mont_mul(&aw, &bw, &n_words));
                    assert_eq!(got, want, "mont_mul, {l} limbs");
                    let got = big(&host::mont_mul_chain(&aw, &bw, &n_words));
                    assert_eq!(got, want, "mont_mul_chain, {l} limbs");
                }
                // a < R but not below n: the bound of CIOS holds with b < n.
                let top = &r - 1u32;
                let want = (&top * a * &rinv) % &n;
                let got = big(&host::mont_mul(&words(&top, l), &aw, &n_words));
                assert_eq!(got, want, "mont_mul of R - 1, {l} limbs");
                let got = big(&host::mont_mul_chain(&words(&top, l), &aw, &n_words));
                assert_eq!(got, want, "mont_mul_chain of R - 1, {l} limbs");
            }
            let all_ones = vec![u32::MAX; l];
            assert_eq!(big(&host::sqr_wide(&all_ones)), (&r - 1u32) * (&r - 1u32));
        }
    }
}

#[test]
fn wide_reduction_matches_bigint() {
    let mut rng = XorShift64(0x0bad_cafe_f00d_0001);
    for l in [1, 2, 16, 32, 48, 64] {
        for n_words in moduli(&mut rng, l) {
            let n = big(&n_words);
            let r = BigUint::from(1u8) << (32 * l);
            let r2 = words(&((&r * &r) % &n), l);
            let bound = &n * &r; // the reduction's contract: x < n R
            let mut xs = vec![BigUint::ZERO, &bound - 1u32, n.clone(), &n * &n % &bound];
            xs.extend((0..6).map(|_| random_below(&mut rng, &bound)));
            for x in xs {
                let got = big(&host::reduce_wide(&words(&x, 2 * l), &n_words, &r2));
                assert_eq!(got, &x % &n, "reduce_wide, {l} limbs");
            }
        }
    }
}

#[test]
fn secret_exponentiation_matches_bigint() {
    let mut rng = XorShift64(0x5eed_0000_0000_0007);
    for l in [1, 2, 16, 32, 48, 64] {
        let ms = moduli(&mut rng, l);
        for (t, n_words) in ms.iter().enumerate() {
            let n = big(n_words);
            let r = BigUint::from(1u8) << (32 * l);
            let r2 = words(&((&r * &r) % &n), l);
            let exps: Vec<Vec<u32>> = vec![
                vec![0; l],
                words(&BigUint::from(1u8), l),
                vec![u32::MAX; l],
                (0..l).map(|_| rng.next_u64() as u32).collect(),
            ];
            // The large sizes on two moduli only: each run is a few milliseconds.
            if l >= 32 && t >= 2 {
                continue;
            }
            for x in operands(&mut rng, &n).into_iter().take(if l >= 32 { 4 } else { 7 }) {
                for e in &exps {
                    let want = x.modpow(&big(e), &n);
                    for w in 1..=host::WINDOW_MAX {
                        if l >= 48 && w < 4 {
                            continue;
                        }
                        let x = words(&x, l);
                        let got = big(&host::mont_exp_ct(&x, e, n_words, &r2, w));
                        assert_eq!(got, want, "x^e mod n, {l} limbs, window {w}");
                        let got = big(&host::mont_exp_ct_f64(&x, e, n_words, &r2, w));
                        assert_eq!(got, want, "FP64: x^e mod n, {l} limbs, window {w}");
                    }
                }
            }
        }
    }
}

/// fp64.cuh's Montgomery product and dedicated square in radix 2^52 (the products split
/// by fused multiply-adds rounding toward zero, summed as integers): every limb below
/// 2^52, the value below 2n and equal to a b / 2^(52 s) mod n, at every length up to
/// RSA-4096's primes, on the edge moduli and operands.
#[test]
fn fp64_products_match_bigint() {
    let mut rng = XorShift64(0xf640_0000_0000_0052);
    for l in [1, 2, 3, 5, 13, 16, 32, 48, 64] {
        let s = host::f64_limbs(l);
        assert!(52 * s >= 32 * l + 2, "4n < R");
        for n_words in moduli(&mut rng, l) {
            let n = big(&n_words);
            let r = BigUint::from(1u8) << (52 * s);
            let check = |got: Vec<u64>, want: BigUint, what: &str| {
                assert!(got.iter().all(|&t| t < 1 << 52), "{l} limbs, {what}: a limb of 52 bits");
                let v = got
                    .iter()
                    .rev()
                    .fold(BigUint::ZERO, |acc, &t| (acc << 52u32) + BigUint::from(t));
                assert!(v < &n + &n, "{l} limbs, {what}: below 2n");
                assert_eq!((&v * &r) % &n, want, "{l} limbs, {what}: times R mod n");
            };
            for a in operands(&mut rng, &n) {
                let aw = words(&a, l);
                check(host::f64_mont_sqr(&aw, &n_words), (&a * &a) % &n, "a^2");
                for b in operands(&mut rng, &n) {
                    check(host::f64_mont_mul(&aw, &words(&b, l), &n_words), (&a * &b) % &n, "a b");
                }
            }
        }
    }
}

#[test]
fn public_exponent_check_matches_bigint() {
    let mut rng = XorShift64(0x7777_1111_2222_3333);
    for l in [1, 32, 64, 96, 128] {
        for n_words in moduli(&mut rng, l).into_iter().take(2) {
            let n = big(&n_words);
            let r = BigUint::from(1u8) << (32 * l);
            let r2 = words(&((&r * &r) % &n), l);
            for e in [1u64, 3, 65537, 0xffff_ffff_ffff_ffc5, u64::MAX] {
                for m in operands(&mut rng, &n) {
                    let c = m.modpow(&BigUint::from(e), &n);
                    let (mw, cw) = (words(&m, l), words(&c, l));
                    assert!(host::exp_pub_eq(&mw, &cw, e, &n_words, &r2), "m^{e} = c, {l} limbs");
                    let wrong = words(&((&c + 1u32) % &n), l);
                    assert!(!host::exp_pub_eq(&mw, &wrong, e, &n_words, &r2), "m^{e} != c + 1");
                }
            }
        }
    }
}

/// Runs a batch through the host build with the images of `keys` (or `images`).
fn run(
    keys: &[TestKey],
    images: &[Vec<u32>],
    ops: &[Op],
    w: u32,
) -> (gpu_common::Batch, host::BatchOut) {
    let b = pack(keys, ops);
    let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
    let out = host::rsa_private(&refs, &b.op_key, &b.input, b.words, w);
    (b, out)
}

#[test]
fn private_operation_matches_scalar_each_size() {
    let keys = keys();
    let images = gpu_common::images(keys, None);
    let mut rng = XorShift64(0xfeed_beef_0000_0001);
    for (ki, k) in keys.iter().enumerate() {
        let count = if k.nl >= 96 { 10 } else { 24 };
        let ops: Vec<Op> = (0..count).map(|_| random_op(&mut rng, keys, ki)).collect();
        let (b, out) = run(keys, &images, &ops, layout::WINDOW);
        let checked = gpu_common::check_outputs(keys, &ops, &b, &out.out, &out.status);
        assert_eq!(checked, count, "{}", k.name);
    }
}

#[test]
fn mixed_keys_in_one_batch_and_every_window() {
    let keys = keys();
    let images = gpu_common::images(keys, None);
    let mut rng = XorShift64(0xabcd_ef01_2345_6789);
    // Every key, interleaved, the edge inputs of each among them.
    let ops: Vec<Op> =
        (0..2 * keys.len()).map(|i| random_op(&mut rng, keys, i % keys.len())).collect();
    for w in 1..=host::WINDOW_MAX {
        let (b, out) = run(keys, &images, &ops, w);
        assert_eq!(b.words, 128, "the widest key sets the slot");
        gpu_common::check_outputs(keys, &ops, &b, &out.out, &out.status);
    }
}

/// Every compile-time variant the device may run (prelude.cuh: a module per prime size,
/// squaring by the general product) in one batch of every key: the operations of its
/// size (all of them for the run-time build) match the scalar backend with their pairs'
/// successors; the others fail alone with STATUS_BAD_KEY and no output; and a fault
/// injected into a key of its size is caught there too.
#[test]
fn sized_variants_match_scalar_and_refuse_other_sizes() {
    let keys = keys();
    let images = gpu_common::images(keys, None);
    let mut rng = XorShift64(0x5a5a_0101_c3c3_7e7e);
    let ops: Vec<Op> =
        (0..2 * keys.len()).map(|i| random_op(&mut rng, keys, i % keys.len())).collect();
    let b = pack(keys, &ops);
    let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
    for v in host::VARIANTS {
        let takes = |op: &Op| v.fixed_l.is_none_or(|l| keys[op.key].nl == 2 * l);
        assert!(ops.iter().any(takes), "{v:?}: no key of its size among the test keys");
        type Indexed<'a> = Vec<(usize, &'a Op)>;
        let (ok, refused): (Indexed<'_>, Indexed<'_>) =
            ops.iter().enumerate().partition(|(_, op)| takes(op));
        for w in [4, 5] {
            let out = host::rsa_private_variant(v, &refs, &b.op_key, &b.input, b.words, w);
            for (i, op) in &ok {
                gpu_common::check_output(keys, op, &b, &out.out, &out.status, *i);
            }
            for (i, op) in &refused {
                assert_eq!(out.status[*i], layout::STATUS_BAD_KEY, "{v:?}: {}", keys[op.key].name);
                for plane in 0..3 {
                    let words = unpack(&out.out, b.words, b.count, plane, *i);
                    assert!(words.iter().all(|&x| x == 0), "{v:?}: output of a refused key");
                }
            }
        }
        // A fault in the first key of the variant's size, in the unblinded result.
        let faulty = ok[0].1.key;
        let images = gpu_common::images(keys, Some((faulty, layout::FAULT_UNBLIND, 77)));
        let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
        let out = host::rsa_private_variant(v, &refs, &b.op_key, &b.input, b.words, layout::WINDOW);
        for (i, op) in ops.iter().enumerate().filter(|(_, op)| op.key == faulty) {
            assert_eq!(
                out.status[i],
                layout::STATUS_FAULT,
                "{v:?}: fault in op {i} ({})",
                keys[op.key].name
            );
        }
    }
}

/// The split kernels (blinding and reductions; one thread per exponentiation; Garner to
/// the fault check, over a scratch) compute exactly what the whole kernel does, in every
/// compile-time variant: the same words and statuses for a batch of every key with a
/// bad input, a key index past the table, every window, and a fault in each phase.
///
/// The variants are independent, so they run on every core: one at a time they take
/// most of this file's run.
#[test]
fn split_kernels_compute_what_the_whole_one_does() {
    let keys = keys();
    let mut rng = XorShift64(0x5b11_7000_0000_0003);
    let mut ops: Vec<Op> =
        (0..2 * keys.len()).map(|i| random_op(&mut rng, keys, i % keys.len())).collect();
    ops[1].c = keys[ops[1].key].n.clone(); // c = n: STATUS_BAD_INPUT
    let mut b = pack(keys, &ops);
    b.op_key[2] = keys.len() as u32; // STATUS_BAD_KEY
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads.min(host::VARIANTS.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(v) = host::VARIANTS.get(i) else { break };
                    split_matches_whole(keys, &b, v, 0x5b11_7000_0000_0100 + i as u64);
                }
            });
        }
    });
}

/// One variant of [`split_kernels_compute_what_the_whole_one_does`]: the batch `b` with
/// a fault in each phase and every window, then random operations (drawn from `seed`)
/// against the scalar backend.
fn split_matches_whole(keys: &[TestKey], b: &gpu_common::Batch, v: &host::Variant, seed: u64) {
    let faults = [
        None,
        Some((1, layout::FAULT_MP, 5)),
        Some((1, layout::FAULT_MQ, 300)),
        Some((1, layout::FAULT_GARNER, 1000)),
        Some((1, layout::FAULT_UNBLIND, 9)),
    ];
    for (f, fault) in faults.iter().enumerate() {
        let images = gpu_common::images(keys, *fault);
        let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
        let windows: &[u32] = if f == 0 { &[1, 4, 5] } else { &[layout::WINDOW] };
        for &w in windows {
            let whole = host::rsa_private_variant(v, &refs, &b.op_key, &b.input, b.words, w);
            let split = host::rsa_private_split(v, &refs, &b.op_key, &b.input, b.words, w);
            assert_eq!(split.status, whole.status, "{v:?}, fault {fault:?}, w = {w}");
            assert!(split.out == whole.out, "{v:?}, fault {fault:?}, w = {w}: outputs differ");
            let want = |s: u32| whole.status.contains(&s);
            assert!(want(layout::STATUS_BAD_KEY), "{v:?}: the index past the keys");
            if v.fixed_l.is_none_or(|l| keys[1].nl == 2 * l) {
                assert!(want(layout::STATUS_BAD_INPUT), "{v:?}: c = n");
                let fault_seen = want(layout::STATUS_FAULT);
                assert_eq!(fault_seen, fault.is_some(), "{v:?}, fault {fault:?}");
                assert!(want(layout::STATUS_OK), "{v:?}: no operation succeeded");
            }
        }
    }
    // And against the scalar backend, the operations the variant takes.
    let mut rng = XorShift64(seed);
    let images = gpu_common::images(keys, None);
    let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
    let ops: Vec<Op> = (0..keys.len()).map(|i| random_op(&mut rng, keys, i)).collect();
    let b = pack(keys, &ops);
    let out = host::rsa_private_split(v, &refs, &b.op_key, &b.input, b.words, layout::WINDOW);
    for (i, op) in ops.iter().enumerate() {
        if v.fixed_l.is_none_or(|l| keys[op.key].nl == 2 * l) {
            gpu_common::check_output(keys, op, &b, &out.out, &out.status, i);
        } else {
            assert_eq!(out.status[i], layout::STATUS_BAD_KEY, "{v:?}");
        }
    }
}

/// Every operation of key `faulty` fails with STATUS_FAULT and zero output; the
/// operations of the other keys in the same batch succeed.
fn assert_faults_alone(
    keys: &[TestKey],
    images: &[Vec<u32>],
    ops: &[Op],
    faulty: usize,
    what: &str,
) {
    let (b, out) = run(keys, images, ops, layout::WINDOW);
    let mut good: Vec<Op> = Vec::new();
    let mut good_idx = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        if op.key == faulty {
            assert_eq!(out.status[i], layout::STATUS_FAULT, "{what}: op {i} not caught");
            assert!(
                unpack(&out.out, b.words, b.count, 0, i).iter().all(|&w| w == 0),
                "{what}: a faulty m left"
            );
        } else {
            good.push(op.clone());
            good_idx.push(i);
        }
    }
    for (g, &i) in good.iter().zip(&good_idx) {
        assert_eq!(out.status[i], layout::STATUS_OK, "{what}: a healthy op failed");
        let m = big(&unpack(&out.out, b.words, b.count, 0, i));
        assert_eq!(m, gpu_common::scalar_private(&keys[g.key], &g.c), "{what}: healthy op {i}");
    }
}

#[test]
fn injected_faults_are_caught_in_every_phase() {
    let keys = keys();
    let mut rng = XorShift64(0x0f0f_0f0f_1234_4321);
    let (small, faulty) = (0, 1); // RSA-1024 stays healthy, RSA-2048 takes the faults
    let ops: Vec<Op> = (0..8)
        .map(|i| random_op(&mut rng, keys, if i % 2 == 0 { faulty } else { small }))
        .collect();
    for phase in [layout::FAULT_MP, layout::FAULT_MQ, layout::FAULT_GARNER, layout::FAULT_UNBLIND] {
        for bit in [0u32, 31, 1000, rng.next_u64() as u32] {
            let images = gpu_common::images(keys, Some((faulty, phase, bit)));
            assert_faults_alone(keys, &images, &ops, faulty, &format!("phase {phase} bit {bit}"));
        }
    }
}

#[test]
fn corrupted_key_parameters_are_caught() {
    let keys = keys();
    let mut rng = XorShift64(0x1357_9bdf_2468_ace0);
    let (healthy, faulty) = (0, 2); // RSA-3072 corrupted beside a healthy RSA-1024
    // Random c only: c = 0 or 1 raised to a wrong exponent is still right.
    let k = &keys[faulty];
    let l = k.nl / 2;
    let mut ops: Vec<Op> = Vec::new();
    for i in 0..6 {
        let key = if i % 2 == 0 { faulty } else { healthy };
        let c = random_below(&mut rng, &keys[key].n);
        let (a_m, ai_m) =
            gpu_common::pair(&keys[key], &(random_below(&mut rng, &keys[key].n) + 2u32));
        ops.push(Op { key, c, a_m, ai_m });
    }
    // Word offsets (kernel/rsa_op.cuh): dP at 16 + 2L, dQ at 16 + 3L, qInv R at 16 + 4L,
    // R^2 mod p at 16 + 5L, R^2 mod n at 16 + 9L.
    let hdr = layout::KEY_HDR;
    for (what, word) in [
        ("dP low bit", hdr + 2 * l),
        ("dP high word", hdr + 3 * l - 1),
        ("dQ", hdr + 3 * l + 7),
        ("qInv", hdr + 4 * l + 3),
        ("R^2 mod p", hdr + 5 * l),
    ] {
        let mut images = gpu_common::images(keys, None);
        images[faulty][word] ^= 1 << (rng.next_u64() % 32);
        assert_faults_alone(keys, &images, &ops, faulty, what);
    }
    // A mismatched blinding pair: A for one r, Ai for another.
    let mut bad = ops.clone();
    for op in bad.iter_mut().filter(|o| o.key == faulty) {
        let (_, ai_m) = gpu_common::pair(k, &(random_below(&mut rng, &k.n) + 2u32));
        op.ai_m = ai_m;
    }
    assert_faults_alone(keys, &gpu_common::images(keys, None), &bad, faulty, "mismatched pair");
}

#[test]
fn bad_inputs_and_keys_fail_alone() {
    let keys = keys();
    let images = gpu_common::images(keys, None);
    let mut rng = XorShift64(0x2222_4444_6666_8888);
    let k = &keys[1];
    let mut ops: Vec<Op> = (0..4).map(|_| random_op(&mut rng, keys, 1)).collect();
    ops[1].c = k.n.clone(); // c = n
    ops[2].c = &k.r() - 1u32; // c = R - 1 > n
    let (b, out) = run(keys, &images, &ops, layout::WINDOW);
    for i in [1, 2] {
        assert_eq!(out.status[i], layout::STATUS_BAD_INPUT, "op {i}");
        assert!(unpack(&out.out, b.words, b.count, 0, i).iter().all(|&w| w == 0));
    }
    for i in [0, 3] {
        assert_eq!(out.status[i], layout::STATUS_OK);
        let m = big(&unpack(&out.out, b.words, b.count, 0, i));
        assert_eq!(m, gpu_common::scalar_private(k, &ops[i].c));
    }
    // A key index past the table, and an image with a wrong magic or L.
    let mut b = pack(keys, &ops);
    b.op_key[0] = keys.len() as u32;
    let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
    let out = host::rsa_private(&refs, &b.op_key, &b.input, b.words, layout::WINDOW);
    assert_eq!(out.status[0], layout::STATUS_BAD_KEY);
    assert_eq!(out.status[3], layout::STATUS_OK);
    for (word, value) in [(0, 0u32), (1, 65), (2, 7)] {
        let mut images = images.clone();
        images[1][word] = value;
        let (_, out) = run(keys, &images, &ops, layout::WINDOW);
        assert!(out.status.iter().all(|&s| s == layout::STATUS_BAD_KEY), "word {word} = {value}");
    }
    // A window outside 1..=5.
    let (_, out) = run(keys, &images, &ops[..1], 6);
    assert_eq!(out.status[0], layout::STATUS_BAD_KEY);
}

#[test]
fn images_describe_the_key() {
    for k in keys() {
        let l = k.nl / 2;
        let img = &k.image;
        let at = |off: usize, len: usize| big(&img[off..off + len]);
        let hdr = layout::KEY_HDR;
        assert_eq!(img[1] as usize, l);
        assert_eq!(at(hdr, l), k.p, "{}: p", k.name);
        assert_eq!(at(hdr + l, l), k.q, "{}: q", k.name);
        assert_eq!(at(hdr + 7 * l, 2 * l), k.n, "{}: n", k.name);
        let e = u64::from(img[6]) | (u64::from(img[7]) << 32);
        assert_eq!(BigUint::from(e), k.e, "{}: e", k.name);
        assert_eq!(img[layout::FAULT_PHASE_WORD], 0, "no fault armed");
        let rp = BigUint::from(1u8) << (32 * l);
        assert_eq!(at(hdr + 5 * l, l), (&rp * &rp) % &k.p, "{}: R^2 mod p", k.name);
        assert_eq!(at(hdr + 9 * l, 2 * l), (k.r() * k.r()) % &k.n, "{}: R^2 mod n", k.name);
        assert_eq!(k.p.bits().div_ceil(32) as usize, l, "{}: p fills L limbs", k.name);
    }
    // Multi-prime keys run on the CPU: no image.
    let mut o = cryptocard::rsa::keygen::KeyGenOptions::new(2048);
    o.primes = 3;
    let three =
        cryptocard::rsa::RsaPrivateKey::generate_with(&o, &mut cryptocard::rng::OsRng).unwrap();
    assert!(layout::key_image(&three).is_none());
}

/// The kernel source as NVRTC gets it (`rsa/accel/gpu/source.rs`: these files, in this
/// order).
fn device_source() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/rsa/accel/gpu/kernel");
    ["prelude.cuh", "arith.cuh", "exp.cuh", "fp64.cuh", "rsa_op.cuh", "kernel.cu"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{dir}/{f}")).unwrap() + "\n")
        .collect()
}

/// The kernel source compiles for the device in every kind of module the driver builds
/// (`rsa/accel/gpu/tuning.rs`), with clang's CUDA mode where clang has the NVPTX target
/// (NVRTC itself needs a GPU machine): the entry point is there, and the chained modules
/// use the carry-chain instructions. Catches what a C compiler accepts and a CUDA one does
/// not (the inline PTX, the qualifiers) before a device run. Skipped, with the reason,
/// without such a clang (`CLANG` names another).
/// The inline asm blocks of `ptx` in which an instruction reads a register that an
/// earlier instruction of the same block wrote, where that register is one the
/// compiler chose (`%r...`): the compiler may give an output the register of an input
/// still to be read (it did to `cc_mac` in NVRTC's module for every size), so an asm
/// block must write its operands last and keep its sums in registers of its own.
fn early_clobbers(ptx: &str) -> Vec<String> {
    let mut found = Vec::new();
    for block in ptx.split("// begin inline asm").skip(1) {
        let body = block.split("// end inline asm").next().unwrap_or_default();
        let mut written: Vec<&str> = Vec::new();
        for line in body.lines().map(str::trim) {
            let Some((_, operands)) =
                line.strip_suffix(';').and_then(|l| l.split_once(char::is_whitespace))
            else {
                continue;
            };
            if line.starts_with('.') {
                continue; // a declaration
            }
            let ops: Vec<&str> = operands.split(',').map(str::trim).collect();
            if ops[1..].iter().any(|o| written.contains(o)) {
                found.push(body.trim().to_string());
                break;
            }
            if ops[0].starts_with('%') {
                written.push(ops[0]);
            }
        }
    }
    found
}

#[test]
fn early_clobbers_are_found() {
    let bad = "// begin inline asm\n{\nmad.lo.cc.u32 %r1, %r2, %r3, %r4;\nadd.cc.u32 %r5, %r6, %r1;\n}\n// end inline asm\n";
    assert_eq!(early_clobbers(bad).len(), 1);
    let good = "// begin inline asm\n{\n.reg .u32 l, h;\nmad.lo.cc.u32 l, %r2, %r3, %r4;\nmadc.hi.u32 h, %r2, %r3, 0;\nadd.cc.u32 %r1, l, %r5;\naddc.u32 %r5, h, 0;\n}\n// end inline asm\n";
    assert!(early_clobbers(good).is_empty());
}

#[test]
fn kernel_compiles_for_the_device_with_clang() {
    use std::process::Command;
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let has_nvptx = Command::new(&clang)
        .arg("-print-targets")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("nvptx64"));
    if !has_nvptx {
        println!("skipped: no {clang} with the NVPTX target");
        return;
    }
    let out = Command::new(&clang).arg("-print-resource-dir").output().unwrap();
    let resource = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let dir = std::env::temp_dir().join(format!("cryptocard-kernel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("kernel.cu");
    std::fs::write(&src, device_source()).unwrap();
    // (defines, whether the module's products are carry chains). The module for every
    // size multiplies by CIOS on the device even when chains are asked for: its loops
    // stay loops, and the PTX ISA keeps the carry flag in straight-line code only.
    let modules: &[(&[&str], bool)] = &[
        (&["-DCC_MUL_CHAIN=1"], false),
        (&["-DCC_FIXED_L=16", "-DCC_MUL_CHAIN=1"], true),
        (&["-DCC_FIXED_L=32", "-DCC_MUL_CHAIN=1"], true),
        (&["-DCC_FIXED_L=48", "-DCC_MUL_CHAIN=1", "-DCC_SQR_BY_MUL=1"], true),
        (&["-DCC_FIXED_L=64", "-DCC_MUL_CHAIN=1"], true),
        (&["-DCC_FIXED_L=16", "-DCC_MUL_CHAIN=0", "-DCC_FULL_UNROLL=1"], false),
        (&["-DCC_FIXED_L=32", "-DCC_MUL_CHAIN=1", "-DCC_USE_PTX=0"], false),
        (&["-DCC_FIXED_L=32", "-DCC_MUL_CHAIN=1", "-DCC_SQR_BY_MUL=1", "-DCC_EXP_F64=1"], true),
        (&["-DCC_EXP_F64=1"], false),
    ];
    for (defines, chained) in modules {
        let ptx = dir.join("kernel.ptx");
        let out = Command::new(&clang)
            .args(["-x", "cuda", "--cuda-gpu-arch=sm_80", "--cuda-device-only"])
            .args(["-nocudainc", "-nocudalib", "-O3", "-S", "-Werror"])
            .arg("-include")
            .arg(format!("{resource}/include/__clang_cuda_builtin_vars.h"))
            // What CUDA's headers would define; NVRTC has them built in.
            .args([
                "-D__host__=__attribute__((host))",
                "-D__device__=__attribute__((device))",
                "-D__global__=__attribute__((global))",
                "-D__forceinline__=__inline__ __attribute__((always_inline))",
                "-D__noinline__=__attribute__((noinline))",
                // fp64.cuh's intrinsics, as clang's NVVM builtins
                "-D__fma_rz=__nvvm_fma_rz_d",
                "-D__double_as_longlong=__nvvm_bitcast_d2ll",
                "-D__longlong_as_double=__nvvm_bitcast_ll2d",
            ])
            .args(*defines)
            .arg("-o")
            .arg(&ptx)
            .arg(&src)
            .output()
            .unwrap();
        assert!(out.status.success(), "{defines:?}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&ptx).unwrap();
        assert!(text.contains(".entry cc_rsa_private("), "{defines:?}: no entry point");
        assert_eq!(text.contains("madc.hi.cc.u32"), *chained, "{defines:?}: carry chains");
        let f64 = defines.contains(&"-DCC_EXP_F64=1");
        assert_eq!(text.contains("fma.rz.f64"), f64, "{defines:?}: the FP64 products");
        let clobbers = early_clobbers(&text);
        assert!(
            clobbers.is_empty(),
            "{defines:?}: an asm output read after it was written: {clobbers:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
