//! Cycle counts of the constant-time modular exponentiation against OpenSSL's
//! `BN_mod_exp_mont_consttime` (the system libcrypto 3.0, what `RSA_sign` runs per CRT
//! half), in one process, interleaved, the minimum of many calls each: robust on a machine
//! that other jobs share. Tuning aid, run by hand:
//!
//! ```text
//! cargo test --release -p cryptocard --test modexp_cycles -- --ignored --nocapture
//! OPENSSL_ia32cap=:~0x200000 cargo test ...   # OpenSSL without its AVX-512 IFMA code
//! WINDOWS=1 cargo test ...                     # also ours with windows of 4, 5, 6 bits
//! ```
//!
//! Both sides get the same odd modulus with its top bit set, a base below it and a
//! full-length exponent; both have the modulus's Montgomery constants ready and convert
//! the base into Montgomery form inside the call (OpenSSL does; ours is handed the base in
//! Montgomery form, one product, about 0.1% of the call). Nothing is asserted about time.

#![cfg(target_arch = "x86_64")]

use cryptocard::bignum::Nat;
use cryptocard::modular::Modulus;
use std::ffi::{c_int, c_void};

#[link(name = "crypto")]
unsafe extern "C" {
    fn BN_bin2bn(s: *const u8, len: c_int, ret: *mut c_void) -> *mut c_void;
    fn BN_new() -> *mut c_void;
    fn BN_free(a: *mut c_void);
    fn BN_CTX_new() -> *mut c_void;
    fn BN_CTX_free(c: *mut c_void);
    fn BN_MONT_CTX_new() -> *mut c_void;
    fn BN_MONT_CTX_set(mont: *mut c_void, m: *const c_void, ctx: *mut c_void) -> c_int;
    fn BN_MONT_CTX_free(mont: *mut c_void);
    fn BN_mod_exp_mont_consttime(
        r: *mut c_void,
        a: *const c_void,
        p: *const c_void,
        m: *const c_void,
        ctx: *mut c_void,
        mont: *mut c_void,
    ) -> c_int;
    fn BN_bn2binpad(a: *const c_void, to: *mut u8, len: c_int) -> c_int;
}

fn ticks() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 CPU and has no memory effects.
    unsafe { core::arch::x86_64::_rdtsc() }
}

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 33) as u8
        })
        .collect()
}

/// TSC ticks per core cycle: 1000 dependent `add`s take 1000 cycles.
fn ticks_per_cycle() -> f64 {
    let mut best = u64::MAX;
    for _ in 0..2000 {
        let t = ticks();
        let mut x: u64 = 1;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!(".rept 1000", "add {x}, {x}", ".endr", x = inout(reg) x, options(nomem, nostack));
        }
        std::hint::black_box(x);
        best = best.min(ticks() - t);
    }
    best as f64 / 1000.0
}

#[test]
#[ignore = "prints cycle counts; run by hand"]
fn modexp_against_openssl() {
    let tpc = ticks_per_cycle();
    println!("{tpc:.3} TSC ticks per core cycle; kcycles per call, minimum of interleaved calls");
    for bits in [1024usize, 1536, 2048, 3072, 4096] {
        let len = bits / 8;
        let mut m = bytes(bits as u64, len);
        m[0] |= 0x80;
        m[len - 1] |= 1;
        let mut a = bytes(bits as u64 + 1, len);
        a[0] &= 0x7f;
        let mut e = bytes(bits as u64 + 2, len);
        e[0] |= 0x80;

        let modulus: Modulus = Modulus::from_be_bytes(&m).unwrap();
        let base = modulus.to_mont(&modulus.elem_reduce_be_bytes(&a));
        let exp = Nat::from_be_bytes(&e);
        let ours = modulus.to_be_bytes(&modulus.from_mont(&modulus.pow(&base, &exp)));

        // SAFETY: plain libcrypto calls on objects created here and freed below; the
        // modulus is odd, as Montgomery contexts need.
        let (theirs, ossl) = unsafe {
            let bm = BN_bin2bn(m.as_ptr(), len as c_int, core::ptr::null_mut());
            let ba = BN_bin2bn(a.as_ptr(), len as c_int, core::ptr::null_mut());
            let be = BN_bin2bn(e.as_ptr(), len as c_int, core::ptr::null_mut());
            let br = BN_new();
            let ctx = BN_CTX_new();
            let mont = BN_MONT_CTX_new();
            assert_eq!(BN_MONT_CTX_set(mont, bm, ctx), 1);
            let run = move || {
                assert_eq!(BN_mod_exp_mont_consttime(br, ba, be, bm, ctx, mont), 1);
            };
            run();
            let mut out = vec![0u8; len];
            assert_eq!(BN_bn2binpad(br, out.as_mut_ptr(), len as c_int), len as c_int);
            (out, (run, [bm, ba, be, br], ctx, mont))
        };
        assert_eq!(ours, theirs, "{bits} bits: results differ");

        let reps = (2_000_000 / bits).clamp(20, 2000);
        let (mut t_ours, mut t_ossl) = (u64::MAX, u64::MAX);
        let mut t_win = [u64::MAX; 3];
        let sweep = std::env::var_os("WINDOWS").is_some();
        for _ in 0..reps {
            let t = ticks();
            std::hint::black_box(modulus.pow(&base, &exp));
            t_ours = t_ours.min(ticks() - t);
            let t = ticks();
            (ossl.0)();
            t_ossl = t_ossl.min(ticks() - t);
            for (w, best) in (4..).zip(t_win.iter_mut()).filter(|_| sweep) {
                let t = ticks();
                std::hint::black_box(modulus.pow_kary(&base, &exp, w).unwrap());
                *best = (*best).min(ticks() - t);
            }
        }
        let kc = |t: u64| t as f64 / tpc / 1e3;
        println!(
            "{bits:>5} bits: ours {:>8.1}  OpenSSL {:>8.1}  ratio (OpenSSL time / ours) {:.3}",
            kc(t_ours),
            kc(t_ossl),
            t_ossl as f64 / t_ours as f64
        );
        if sweep {
            println!(
                "       windows 4/5/6: {:.1} / {:.1} / {:.1}",
                kc(t_win[0]),
                kc(t_win[1]),
                kc(t_win[2])
            );
        }
        // SAFETY: each object is freed once, after its last use.
        unsafe {
            for b in ossl.1 {
                BN_free(b);
            }
            BN_CTX_free(ossl.2);
            BN_MONT_CTX_free(ossl.3);
        }
    }
}
