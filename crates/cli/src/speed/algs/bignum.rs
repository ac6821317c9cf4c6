//! `modexpN` and `mulN`: the arithmetic kernels under RSA, on N-bit operands.
//!
//! `modexpN` raises an N-bit base to an N-bit exponent modulo an odd N-bit modulus (a
//! secret-exponent exponentiation without CRT): the peers are GMP's `mpz_powm_sec` and
//! OpenSSL's `BN_mod_exp_mont_consttime`, both constant-time like ours must be. `mulN`
//! multiplies two N-bit numbers: GMP's `mpz_mul` and OpenSSL's `BN_mul`. Bits per second
//! count N bits per operation.
//!
//! `modexpN-methods` shows what each exponentiation technique of the seed papers buys, on
//! the same operands: the constant-time fixed window (our default, against `mpz_powm_sec`
//! and `BN_mod_exp_mont_consttime`), the constant-time 2^k-ary method with k = 4 and with
//! k = 2 (Kaliski's quaternary method on the Z80180), the variable-time sliding window
//! (against `mpz_powm` and `BN_mod_exp_mont`, for public exponents) and left-to-right
//! binary square-and-multiply (Dusse-Kaliski's baseline).

#[cfg(feature = "peers")]
use super::peer_err;
use super::test_bytes;
use crate::speed::row::{Candidate, Context, Row, Who, bench};
use cryptocard::bignum::mul::{mul_scratch_len, mul_with_scratch};
use cryptocard::bignum::{Limb, Nat};
use cryptocard::modular::{Anon, Elem, Modulus, Mont};
use std::sync::Arc;

/// Same-size operands for a row: modulus (odd, top bit set), base (below the modulus) and
/// exponent (top bit set), big-endian.
struct Operands {
    m: Vec<u8>,
    a: Vec<u8>,
    e: Vec<u8>,
}

fn operands(bits: u32) -> Arc<Operands> {
    let len = bits as usize / 8;
    let mut m = test_bytes(u64::from(bits), len);
    m[0] |= 0x80;
    m[len - 1] |= 1;
    let mut a = test_bytes(u64::from(bits) + 1, len);
    a[0] &= 0x7f;
    let mut e = test_bytes(u64::from(bits) + 2, len);
    e[0] |= 0x80;
    Arc::new(Operands { m, a, e })
}

/// The `modexpN` row.
pub fn modexp(name: &str, bits: u32, ctx: &Context<'_>) -> Row {
    let x = operands(bits);
    let mut candidates = vec![ours_modexp(&x)];
    #[cfg(feature = "peers")]
    for &gmp in &ctx.peers.gmp {
        let x = x.clone();
        candidates.push(Candidate::peer(gmp.info(), move || {
            let op = gmp.modexp(&x.a, &x.e, &x.m).map_err(peer_err)?;
            Ok(bench(
                op,
                |op| {
                    op.run_sec();
                    Ok(())
                },
                |op| Some(op.result()),
            ))
        }));
    }
    #[cfg(feature = "peers")]
    for &ossl in &ctx.peers.openssl {
        let x = x.clone();
        candidates.push(Candidate::peer(ossl.info(), move || {
            let op = ossl.modexp(&x.a, &x.e, &x.m).map_err(peer_err)?;
            Ok(bench(op, |op| op.run_consttime().map_err(peer_err), |op| op.result().ok()))
        }));
    }
    Row::new(name, "modexp", u64::from(bits), None, candidates)
}

/// An exponentiation method of ours: modulus, base in Montgomery form, exponent.
type PowFn = fn(&Modulus, &Elem<Anon, Mont>, &Nat) -> Elem<Anon, Mont>;

/// The `modexpN-methods` rows, fastest technique first.
pub fn modexp_methods(name: &str, bits: u32, ctx: &Context<'_>) -> Vec<Row> {
    let x = operands(bits);
    let methods: [(&'static str, PowFn); 5] = [
        ("fixed-window-ct", |m, b, e| m.pow(b, e)),
        ("kary4-ct", |m, b, e| kary(m, b, e, 4)),
        ("quaternary-ct", |m, b, e| kary(m, b, e, 2)),
        ("sliding-vartime", |m, b, e| m.pow_vartime(b, e)),
        ("binary-vartime", |m, b, e| m.pow_binary_vartime(b, e)),
    ];
    let mut rows = Vec::new();
    for (op, f) in methods {
        let mut candidates = vec![ours_pow(&x, f)];
        let (ct, vartime) = (op == "fixed-window-ct", op == "sliding-vartime");
        #[cfg(feature = "peers")]
        for &gmp in ctx.peers.gmp.iter().filter(|_| ct || vartime) {
            let x = x.clone();
            candidates.push(Candidate::peer(gmp.info(), move || {
                let op = gmp.modexp(&x.a, &x.e, &x.m).map_err(peer_err)?;
                Ok(bench(
                    op,
                    move |op| {
                        if ct {
                            op.run_sec()
                        } else {
                            op.run()
                        }
                        Ok(())
                    },
                    |op| Some(op.result()),
                ))
            }));
        }
        #[cfg(feature = "peers")]
        for &ossl in ctx.peers.openssl.iter().filter(|_| ct || vartime) {
            let x = x.clone();
            candidates.push(Candidate::peer(ossl.info(), move || {
                let op = ossl.modexp(&x.a, &x.e, &x.m).map_err(peer_err)?;
                Ok(bench(
                    op,
                    move |op| {
                        if ct { op.run_consttime() } else { op.run_vartime() }.map_err(peer_err)
                    },
                    |op| op.result().ok(),
                ))
            }));
        }
        rows.push(Row::new(name, op, u64::from(bits), None, candidates));
    }
    rows
}

/// The constant-time 2^w-ary method (`w` is in range, so it cannot fail).
fn kary(m: &Modulus, b: &Elem<Anon, Mont>, e: &Nat, w: usize) -> Elem<Anon, Mont> {
    m.pow_kary(b, e, w).expect("internal error: window in range")
}

/// The `mulN` row.
pub fn mul(name: &str, bits: u32, ctx: &Context<'_>) -> Row {
    let x = operands(bits);
    let mut candidates = vec![ours_mul(&x)];
    #[cfg(feature = "peers")]
    for &gmp in &ctx.peers.gmp {
        let x = x.clone();
        candidates.push(Candidate::peer(gmp.info(), move || {
            let op = gmp.mul(&x.a, &x.m);
            Ok(bench(
                op,
                |op| {
                    op.run();
                    Ok(())
                },
                |op| Some(op.result()),
            ))
        }));
    }
    #[cfg(feature = "peers")]
    for &ossl in &ctx.peers.openssl {
        let x = x.clone();
        candidates.push(Candidate::peer(ossl.info(), move || {
            let op = ossl.bn_mul(&x.a, &x.m).map_err(peer_err)?;
            Ok(bench(op, |op| op.run().map_err(peer_err), |op| op.result().ok()))
        }));
    }
    Row::new(name, "mul", u64::from(bits), None, candidates)
}

/// Ours: `modular::Modulus::pow` (fixed window, constant-time table scans), the modulus
/// and the base in Montgomery form prepared once per thread, as OpenSSL's Montgomery
/// context is; each call is one exponentiation, leaving Montgomery form only for the
/// cross-check.
fn ours_modexp(x: &Arc<Operands>) -> Candidate {
    ours_pow(x, |m, b, e| m.pow(b, e))
}

/// Ours with any exponentiation method, prepared as [`ours_modexp`] describes.
fn ours_pow(x: &Arc<Operands>, pow: PowFn) -> Candidate {
    let x = x.clone();
    Candidate::new(Who::Ours, move || {
        let m: Modulus = Modulus::from_be_bytes(&x.m).map_err(|e| e.to_string())?;
        let base = m.to_mont(&m.elem_reduce_be_bytes(&x.a));
        let e = Nat::from_be_bytes(&x.e);
        let r = pow(&m, &base, &e);
        Ok(bench(
            (m, base, e, r),
            move |(m, base, e, r)| {
                *r = pow(m, base, e);
                Ok(())
            },
            |(m, _, _, r)| Some(m.to_be_bytes(&m.from_mont(r))),
        ))
    })
}

/// Ours: `bignum::mul::mul_with_scratch` (basecase, Karatsuba or Toom-3 by the tuned
/// thresholds) into a result and scratch space allocated once per thread, as `mpz_mul`
/// reuses its destination's limbs.
fn ours_mul(x: &Arc<Operands>) -> Candidate {
    let x = x.clone();
    Candidate::new(Who::Ours, move || {
        let limbs = x.m.len() / 8;
        let a = Nat::from_be_bytes(&x.a).to_limbs_padded(limbs).map_err(|e| e.to_string())?;
        let b = Nat::from_be_bytes(&x.m).to_limbs_padded(limbs).map_err(|e| e.to_string())?;
        let r: Vec<Limb> = vec![0; 2 * limbs];
        let scratch: Vec<Limb> = vec![0; mul_scratch_len(limbs, limbs)];
        Ok(bench(
            (a, b, r, scratch),
            |(a, b, r, s)| {
                mul_with_scratch(r, a, b, s);
                Ok(())
            },
            |(_, _, r, _)| Some(Nat::from_slice(r).to_be_bytes()),
        ))
    })
}
