//! `modexpN` and `mulN`: the arithmetic kernels under RSA, on N-bit operands.
//!
//! `modexpN` raises an N-bit base to an N-bit exponent modulo an odd N-bit modulus (a
//! secret-exponent exponentiation without CRT): the peers are GMP's `mpz_powm_sec` and
//! OpenSSL's `BN_mod_exp_mont_consttime`, both constant-time like ours must be. `mulN`
//! multiplies two N-bit numbers: GMP's `mpz_mul` and OpenSSL's `BN_mul`. Bits per second
//! count N bits per operation.

use super::{peer_err, test_bytes};
use crate::speed::registry::{Candidate, Context, Row, Who, bench};
use cryptocard::bignum::mul::{mul_scratch_len, mul_with_scratch};
use cryptocard::bignum::{Limb, Nat};
use cryptocard::modular::Modulus;
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
    for &ossl in &ctx.peers.openssl {
        let x = x.clone();
        candidates.push(Candidate::peer(ossl.info(), move || {
            let op = ossl.modexp(&x.a, &x.e, &x.m).map_err(peer_err)?;
            Ok(bench(op, |op| op.run_consttime().map_err(peer_err), |op| op.result().ok()))
        }));
    }
    Row::new(name, "modexp", u64::from(bits), None, candidates)
}

/// The `mulN` row.
pub fn mul(name: &str, bits: u32, ctx: &Context<'_>) -> Row {
    let x = operands(bits);
    let mut candidates = vec![ours_mul(&x)];
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
    let x = x.clone();
    Candidate::new(Who::Ours, move || {
        let m: Modulus = Modulus::from_be_bytes(&x.m).map_err(|e| e.to_string())?;
        let base = m.to_mont(&m.elem_reduce_be_bytes(&x.a));
        let e = Nat::from_be_bytes(&x.e);
        let r = m.pow(&base, &e);
        Ok(bench(
            (m, base, e, r),
            |(m, base, e, r)| {
                *r = m.pow(base, e);
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
