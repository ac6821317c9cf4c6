/*
 * rsa_op.cuh: the whole RSA private operation but padding, for one operation, as
 * cryptocard's private.rs does it on the host (RFC 8017 5.1.2 step 2.b with base
 * blinding and the fault check over the whole operation):
 *
 *   c'  = c A mod n             A = r^e, given in Montgomery form A R mod n, as the
 *                               key's BlindingPool keeps it (blinding.rs)
 *   c_p = c' mod p, c_q = c' mod q
 *   m_p = c_p^dP mod p, m_q = c_q^dQ mod q        constant-time fixed window
 *   h   = (m_p - m_q) qInv mod p, m' = m_q + h q  Garner
 *   m   = m' Ai mod n           Ai = r^-1, in Montgomery form as A
 *   A2  = A^2, Ai2 = Ai^2 (Montgomery squares mod n: the pair's successor)
 *   ok  = (m^e mod n == c)      the fault check, e public
 *
 * m is written only when the check passes (else zeros), with a status word.
 *
 * The key image (words; rsa/accel/gpu/layout.rs writes it, with L the limbs of each
 * prime and 2L those of n; both primes below R = 2^(32 L)):
 *   [0] CC_KEY_MAGIC  [1] L  [2] 2L  [3] -p^-1 mod 2^32  [4] -q^-1  [5] -n^-1
 *   [6] e mod 2^32  [7] e >> 32  [8] fault phase  [9] fault bit  [10..16) zero
 *   then p, q, dP, dQ (zero-padded to L limbs), qInv R mod p, R^2 mod p, R^2 mod q
 *   (L limbs each), n, R^2 mod n (2L limbs each).
 *
 * The operations of a batch are interleaved ("column-major"): word j of plane k of
 * operation i is at buf[(k words + j) count + i], so the threads of a warp, one
 * operation each, read consecutive words.
 */

#define CC_KEY_MAGIC 0x43430001u
#define CC_KEY_HDR 16
#define CC_KEY_WORDS(L) (CC_KEY_HDR + 11 * (L))

/*
 * The fault check's test hook: an image whose word 8 names a phase (CC_FAULT_*) has
 * bit `word 9` of that phase's value flipped, on the device as on the host, so that the
 * tests see the check catch it. The library's images have 0 there (no fault); the
 * branch-free XOR costs a few instructions per operation.
 */
#define CC_FAULT_MP 1u
#define CC_FAULT_MQ 2u
#define CC_FAULT_GARNER 3u
#define CC_FAULT_UNBLIND 4u

CC_INLINE void cc_fault(cc_u32 *x, int limbs, const cc_u32 *key, cc_u32 phase) {
    cc_u32 bit = key[9] % (cc_u32)(32 * limbs);
    x[bit >> 5] ^= (cc_u32)(key[8] == phase) << (bit & 31u);
}

/* Planes of the input and output buffers. */
#define CC_IN_C 0
#define CC_IN_A 1
#define CC_IN_AI 2
#define CC_IN_PLANES 3
#define CC_OUT_M 0
#define CC_OUT_A2 1
#define CC_OUT_AI2 2
#define CC_OUT_PLANES 3

/*
 * One operation on plain arrays of 2L limbs (c, a_m, ai_m in; m, a2, ai2 out). Returns
 * the status. Constant time in everything secret; the branches are on the key's public
 * header (its sizes) and on e.
 */
CC_FN cc_u32 cc_rsa_private_one(const cc_u32 *key, const cc_u32 *c, const cc_u32 *a_m,
                                const cc_u32 *ai_m, cc_u32 *m, cc_u32 *a2, cc_u32 *ai2,
                                int w) {
    int L, NL;
    cc_u32 p0, q0, n0, ok, in_range;
    const cc_u32 *p, *q, *dp, *dq, *qinv, *r2p, *r2q, *n, *r2n;
    cc_u32 cb[CC_N_CAP], wide[CC_N_CAP];
    cc_u32 cp[CC_PRIME_CAP], cq[CC_PRIME_CAP], t[CC_PRIME_CAP];

    if (key[0] != CC_KEY_MAGIC || key[1] < 1 || key[1] > CC_PRIME_MAX || key[2] != 2 * key[1] ||
        w < 1 || w > CC_WINDOW_MAX)
        return CC_STATUS_BAD_KEY;
#ifdef CC_FIXED_L
    if (key[1] != CC_FIXED_L) return CC_STATUS_BAD_KEY; /* a module for one size */
    L = CC_FIXED_L;
#else
    L = (int)key[1];
#endif
    NL = 2 * L;
    p0 = key[3];
    q0 = key[4];
    n0 = key[5];
    p = key + CC_KEY_HDR;
    q = p + L;
    dp = q + L;
    dq = dp + L;
    qinv = dq + L;
    r2p = qinv + L;
    r2q = r2p + L;
    n = r2q + L;
    r2n = n + NL;

    in_range = cc_lt_mask(c, n, NL) & cc_lt_mask(a_m, n, NL) & cc_lt_mask(ai_m, n, NL);

    /* blinding: c' = (A R) c / R = c A mod n */
    cc_mont_mul(cb, a_m, c, n, n0, NL);
    /* c' mod p and mod q: c' < p q < p R and < q R */
    cc_reduce_wide(cp, cb, p, p0, r2p, L);
    cc_reduce_wide(cq, cb, q, q0, r2q, L);
    /* the two exponentiations */
    cc_mont_exp_ct(cp, cp, dp, L, p, p0, r2p, L, w);
    cc_mont_exp_ct(cq, cq, dq, L, q, q0, r2q, L, w);
    cc_fault(cp, L, key, CC_FAULT_MP);
    cc_fault(cq, L, key, CC_FAULT_MQ);
    /* Garner: h = (m_p - (m_q mod p)) qInv mod p; m_q < q < R <= p R */
    cc_zero(wide, NL);
    cc_copy(wide, cq, L);
    cc_reduce_wide(t, wide, p, p0, r2p, L);
    {
        cc_u32 br = cc_sub_n(t, cp, t, L);
        (void)cc_cnd_add_n(t, p, (cc_u32)0 - br, L);
    }
    cc_mont_mul(t, t, qinv, p, p0, L); /* (qInv R) x / R */
    /* m' = m_q + h q < n */
    cc_mul_wide(wide, t, q, L);
    {
        cc_u32 carry = 0;
        int j;
        CC_UNROLL for (j = 0; j < L; j++) wide[j] = cc_adc(wide[j], cq[j], &carry);
        CC_UNROLL for (j = L; j < NL; j++) wide[j] = cc_adc(wide[j], 0, &carry);
    }
    cc_fault(wide, NL, key, CC_FAULT_GARNER);
    /* unblinding: m = (Ai R) m' / R = m' Ai mod n */
    cc_mont_mul(m, ai_m, wide, n, n0, NL);
    cc_fault(m, NL, key, CC_FAULT_UNBLIND);
    /* the pair's successor */
    cc_mont_sqr(a2, a_m, n, n0, NL);
    cc_mont_sqr(ai2, ai_m, n, n0, NL);
    /* the fault check over the whole operation */
    ok = cc_mont_exp_pub_eq(m, c, key[6], key[7], n, n0, r2n, NL) & in_range;
    {
        int j;
        CC_UNROLL for (j = 0; j < NL; j++) m[j] &= ok;
    }
    cc_zero(cb, NL);
    cc_zero(wide, NL);
    cc_zero(cp, L);
    cc_zero(cq, L);
    cc_zero(t, L);
    return (ok & CC_STATUS_OK) | (~ok & ((in_range & CC_STATUS_FAULT) | (~in_range & CC_STATUS_BAD_INPUT)));
}

/*
 * Operation i of a batch: gathers its planes, runs it, scatters the results. `keys`
 * holds the address of every key image of the batch (device addresses on the device);
 * op_key[i] indexes it. `words` is the batch's widest n in limbs (each operation uses
 * its own key's 2L of them; the rest of its slot is zero on output). An operation whose
 * key is longer than the module's arrays (CC_N_CAP) fails alone with CC_STATUS_BAD_KEY.
 */
CC_FN void cc_rsa_private_at(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                             const cc_u32 *in, cc_u32 *out, cc_u32 *status, cc_u32 count,
                             cc_u32 words, cc_u32 w, cc_u32 i) {
    cc_u32 c[CC_N_CAP], a_m[CC_N_CAP], ai_m[CC_N_CAP];
    cc_u32 m[CC_N_CAP], a2[CC_N_CAP], ai2[CC_N_CAP];
    cc_u32 k = op_key[i], st, j, NL = 0;
    cc_zero(m, CC_N_CAP);
    cc_zero(a2, CC_N_CAP);
    cc_zero(ai2, CC_N_CAP);
    if (k >= key_count) {
        st = CC_STATUS_BAD_KEY;
    } else {
        const cc_u32 *key = (const cc_u32 *)keys[k];
        NL = key[2];
        if (NL > words || NL > CC_N_CAP) {
            st = CC_STATUS_BAD_KEY;
            NL = 0;
        } else {
            for (j = 0; j < NL; j++) {
                c[j] = in[((cc_u64)CC_IN_C * words + j) * count + i];
                a_m[j] = in[((cc_u64)CC_IN_A * words + j) * count + i];
                ai_m[j] = in[((cc_u64)CC_IN_AI * words + j) * count + i];
            }
            st = cc_rsa_private_one(key, c, a_m, ai_m, m, a2, ai2, (int)w);
            if (st == CC_STATUS_BAD_KEY) NL = 0;
        }
    }
    /* words past the arrays (a batch wider than this module's keys) are zeros */
    for (j = 0; j < words; j++) {
        int in_arrays = j < CC_N_CAP;
        out[((cc_u64)CC_OUT_M * words + j) * count + i] = in_arrays ? m[j] : 0;
        out[((cc_u64)CC_OUT_A2 * words + j) * count + i] = in_arrays ? a2[j] : 0;
        out[((cc_u64)CC_OUT_AI2 * words + j) * count + i] = in_arrays ? ai2[j] : 0;
    }
    status[i] = st;
    cc_zero(c, NL);
    cc_zero(a_m, NL);
    cc_zero(ai_m, NL);
    cc_zero(m, NL);
    cc_zero(a2, NL);
    cc_zero(ai2, NL);
}
