/*
 * The GPU kernel's arithmetic, compiled for the host: the same headers NVRTC compiles
 * (crates/cryptocard/src/rsa/accel/gpu/kernel), after host_shim.h. The batch entry runs
 * the kernel's per-thread body once per operation, in order; the others expose the
 * primitives to the tests one by one.
 */
#include "host_shim.h"
#include "prelude.cuh"
#include "arith.cuh"
#include "exp.cuh"
#include "fp64.cuh"
#include "rsa_op.cuh"
#include "host_batch.h"

int cc_host_rsa_private(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                        const cc_u32 *in, cc_u32 *out, cc_u32 *status, cc_u32 count,
                        cc_u32 words, cc_u32 w, int split) {
    return cc_host_batch(keys, key_count, op_key, in, out, status, count, words, w, split);
}

void cc_host_mont_mul(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n, cc_u32 n0,
                      int L) {
    cc_mont_mul(r, a, b, n, n0, L);
}

void cc_host_mont_mul_chain(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n,
                            cc_u32 n0, int L) {
    cc_mont_mul_chain(r, a, b, n, n0, L);
}

void cc_host_mont_sqr_chain(cc_u32 *r, const cc_u32 *a, const cc_u32 *n, cc_u32 n0, int L) {
    cc_mont_sqr_chain(r, a, n, n0, L);
}

void cc_host_mont_sqr(cc_u32 *r, const cc_u32 *a, const cc_u32 *n, cc_u32 n0, int L) {
    cc_mont_sqr(r, a, n, n0, L);
}

void cc_host_reduce_wide(cc_u32 *r, const cc_u32 *x, const cc_u32 *n, cc_u32 n0,
                         const cc_u32 *r2, int L) {
    cc_reduce_wide(r, x, n, n0, r2, L);
}

/* cc_mont_exp_ct, or with f64 its twin on the FP64 units (fp64.cuh). */
void cc_host_mont_exp_ct(cc_u32 *r, const cc_u32 *x, const cc_u32 *e, int eL, const cc_u32 *n,
                         cc_u32 n0, const cc_u32 *r2, int L, int w, int f64) {
    int mode = cc_host_rz_begin();
    if (f64)
        cc_mont_exp_ct_f64(r, x, e, eL, n, n0, r2, L, w);
    else
        cc_mont_exp_ct(r, x, e, eL, n, n0, r2, L, w);
    cc_host_rz_end(mode);
}

/* fp64.cuh's product on 32-bit limbs: a and b (L limbs, below 2n) in 52-bit limbs, their
 * Montgomery product there (the dedicated square if sqr, which takes a only), its
 * s = CC_F64_LIMBS(L) limbs out as integers. */
void cc_host_f64_mont_mul(cc_u64 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n,
                          cc_u32 n0, int L, int sqr) {
    double ad[CC_F64_CAP], bd[CC_F64_CAP], nd[CC_F64_CAP];
    int t, s = CC_F64_LIMBS(L), mode = cc_host_rz_begin();
    cc_f64_from32(ad, a, L, s);
    cc_f64_from32(bd, b, L, s);
    cc_f64_from32(nd, n, L, s);
    if (sqr)
        cc_f64_mont_sqr(ad, ad, nd, cc_f64_n0(n, n0, L), s);
    else
        cc_f64_mont_mul(ad, ad, bd, nd, cc_f64_n0(n, n0, L), s);
    for (t = 0; t < s; t++) r[t] = cc_f64_int(ad[t]);
    cc_host_rz_end(mode);
}

cc_u32 cc_host_exp_pub_eq(const cc_u32 *m, const cc_u32 *c, cc_u32 e_lo, cc_u32 e_hi,
                          const cc_u32 *n, cc_u32 n0, const cc_u32 *r2, int L) {
    return cc_mont_exp_pub_eq(m, c, e_lo, e_hi, n, n0, r2, L);
}

cc_u32 cc_host_neg_inv32(cc_u32 m) { return cc_neg_inv32(m); }

void cc_host_sqr_wide(cc_u32 *r, const cc_u32 *a, int L) { cc_sqr_wide(r, a, L); }

void cc_host_mul_wide(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, int L) {
    cc_mul_wide(r, a, b, L);
}
