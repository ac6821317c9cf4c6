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

/* The key's parts, at the offsets of the image above. */
#define CC_KEY_P(key, L) ((key) + CC_KEY_HDR)
#define CC_KEY_Q(key, L) ((key) + CC_KEY_HDR + (L))
#define CC_KEY_DP(key, L) ((key) + CC_KEY_HDR + 2 * (L))
#define CC_KEY_DQ(key, L) ((key) + CC_KEY_HDR + 3 * (L))
#define CC_KEY_QINV(key, L) ((key) + CC_KEY_HDR + 4 * (L))
#define CC_KEY_R2P(key, L) ((key) + CC_KEY_HDR + 5 * (L))
#define CC_KEY_R2Q(key, L) ((key) + CC_KEY_HDR + 6 * (L))
#define CC_KEY_N(key, L) ((key) + CC_KEY_HDR + 7 * (L))
#define CC_KEY_R2N(key, L) ((key) + CC_KEY_HDR + 9 * (L))

/*
 * The limbs L of the key's primes if this build takes the key and the window w, else 0
 * (the operation then fails with CC_STATUS_BAD_KEY). A sized build takes its own L only.
 */
CC_INLINE int cc_key_limbs(const cc_u32 *key, int w) {
    if (key[0] != CC_KEY_MAGIC || key[1] < 1 || key[1] > CC_PRIME_MAX || key[2] != 2 * key[1] ||
        w < 1 || w > CC_WINDOW_MAX)
        return 0;
#ifdef CC_FIXED_L
    return key[1] == CC_FIXED_L ? CC_FIXED_L : 0; /* a module for one size */
#else
    return (int)key[1];
#endif
}

/*
 * The operation in three phases, so that the device may run each as a kernel of its own
 * (the exponentiations then have registers of their own, and two threads per
 * operation); cc_rsa_private_one runs them in a row. Constant time in everything
 * secret; the branches are on the key's public header (its sizes) and on e.
 *
 * Phase 1: c' = c A mod n (blinding), then cp = c' mod p and cq = c' mod q (L limbs).
 */
CC_FN void cc_rsa_blind_split(const cc_u32 *key, int L, const cc_u32 *c, const cc_u32 *a_m,
                              cc_u32 *cp, cc_u32 *cq) {
    cc_u32 cb[CC_N_CAP];
    CC_SIZED_L(L);
    /* c' = (A R) c / R = c A mod n */
    cc_mont_mul(cb, a_m, c, CC_KEY_N(key, L), key[5], 2 * L);
    /* c' mod p and mod q: c' < p q < p R and < q R */
    cc_reduce_wide(cp, cb, CC_KEY_P(key, L), key[3], CC_KEY_R2P(key, L), L);
    cc_reduce_wide(cq, cb, CC_KEY_Q(key, L), key[4], CC_KEY_R2Q(key, L), L);
    cc_zero(cb, 2 * L);
}

/* Phase 2, for one prime (q_half 0: p, 1: q): x = x^d mod that prime, in place, with
 * the integer products (exp.cuh) or, with CC_EXP_F64, the FP64 ones (fp64.cuh). */
CC_FN void cc_rsa_exp_half(const cc_u32 *key, int L, cc_u32 *x, int q_half, int w) {
    CC_SIZED_L(L);
    if (q_half) {
        cc_mont_exp_secret(x, x, CC_KEY_DQ(key, L), L, CC_KEY_Q(key, L), key[4],
                           CC_KEY_R2Q(key, L), L, w);
        cc_fault(x, L, key, CC_FAULT_MQ);
    } else {
        cc_mont_exp_secret(x, x, CC_KEY_DP(key, L), L, CC_KEY_P(key, L), key[3],
                           CC_KEY_R2P(key, L), L, w);
        cc_fault(x, L, key, CC_FAULT_MP);
    }
}

/*
 * Phase 3, from m_p and m_q: Garner, the unblinding, the pair's successor and the fault
 * check over the whole operation. m is written only when the check passes (else
 * zeros). Returns the status.
 */
CC_FN cc_u32 cc_rsa_join(const cc_u32 *key, int L, const cc_u32 *c, const cc_u32 *a_m,
                         const cc_u32 *ai_m, const cc_u32 *mp, const cc_u32 *mq, cc_u32 *m,
                         cc_u32 *a2, cc_u32 *ai2) {
    int NL;
    const cc_u32 *p, *n;
    /* zero-initialised for host compilers that cannot see the copy below fill it */
    cc_u32 wide[CC_N_CAP] = {0}, t[CC_PRIME_CAP];
    cc_u32 ok, in_range;

    CC_SIZED_L(L);
    NL = 2 * L;
    p = CC_KEY_P(key, L);
    n = CC_KEY_N(key, L);
    in_range = cc_lt_mask(c, n, NL) & cc_lt_mask(a_m, n, NL) & cc_lt_mask(ai_m, n, NL);
    /* Garner: h = (m_p - (m_q mod p)) qInv mod p; m_q < q < R <= p R */
    cc_copy(wide, mq, L);
    cc_zero(wide + L, L);
    cc_reduce_wide(t, wide, p, key[3], CC_KEY_R2P(key, L), L);
    {
        cc_u32 br = cc_sub_n(t, mp, t, L);
        (void)cc_cnd_add_n(t, p, (cc_u32)0 - br, L);
    }
    cc_mont_mul(t, t, CC_KEY_QINV(key, L), p, key[3], L); /* (qInv R) x / R */
    /* m' = m_q + h q < n */
    cc_mul_wide(wide, t, CC_KEY_Q(key, L), L);
    {
        cc_u32 carry = 0;
        int j;
        CC_UNROLL for (j = 0; j < L; j++) wide[j] = cc_adc(wide[j], mq[j], &carry);
        CC_UNROLL for (j = L; j < NL; j++) wide[j] = cc_adc(wide[j], 0, &carry);
    }
    cc_fault(wide, NL, key, CC_FAULT_GARNER);
    /* unblinding: m = (Ai R) m' / R = m' Ai mod n */
    cc_mont_mul(m, ai_m, wide, n, key[5], NL);
    cc_fault(m, NL, key, CC_FAULT_UNBLIND);
    /* the pair's successor */
    cc_mont_sqr(a2, a_m, n, key[5], NL);
    cc_mont_sqr(ai2, ai_m, n, key[5], NL);
    /* the fault check over the whole operation */
    ok = cc_mont_exp_pub_eq(m, c, key[6], key[7], n, key[5], CC_KEY_R2N(key, L), NL) & in_range;
    {
        int j;
        CC_UNROLL for (j = 0; j < NL; j++) m[j] &= ok;
    }
    cc_zero(wide, NL);
    cc_zero(t, L);
    return (ok & CC_STATUS_OK) | (~ok & ((in_range & CC_STATUS_FAULT) | (~in_range & CC_STATUS_BAD_INPUT)));
}

/*
 * One operation on plain arrays of 2L limbs (c, a_m, ai_m in; m, a2, ai2 out): the three
 * phases in a row. Returns the status.
 */
CC_FN cc_u32 cc_rsa_private_one(const cc_u32 *key, const cc_u32 *c, const cc_u32 *a_m,
                                const cc_u32 *ai_m, cc_u32 *m, cc_u32 *a2, cc_u32 *ai2,
                                int w) {
    cc_u32 cp[CC_PRIME_CAP], cq[CC_PRIME_CAP], st;
    int L = cc_key_limbs(key, w);
    if (L == 0) return CC_STATUS_BAD_KEY;
    cc_rsa_blind_split(key, L, c, a_m, cp, cq);
    cc_rsa_exp_half(key, L, cp, 0, w);
    cc_rsa_exp_half(key, L, cq, 1, w);
    st = cc_rsa_join(key, L, c, a_m, ai_m, cp, cq, m, a2, ai2);
    cc_zero(cp, L);
    cc_zero(cq, L);
    return st;
}

/*
 * Operation i's key among the batch's (`keys` holds the address of every key image of
 * the batch, device addresses on the device; op_key[i] indexes it) and its primes'
 * limbs L, or 0 where it cannot run here: an index past the keys, a key this build does
 * not take (cc_key_limbs), or one wider than the batch's `words` (the widest n in limbs;
 * each operation uses its own key's 2L of them) or this build's arrays.
 */
CC_INLINE int cc_op_limbs(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                          cc_u32 words, cc_u32 w, cc_u32 i, const cc_u32 **key) {
    cc_u32 k = op_key[i];
    int L;
    *key = 0;
    if (k >= key_count) return 0;
    L = cc_key_limbs((const cc_u32 *)keys[k], (int)w);
    if (L == 0 || 2 * (cc_u32)L > words || 2 * L > CC_N_CAP) return 0;
    *key = (const cc_u32 *)keys[k];
    return L;
}

/* Words 0..len of plane `plane` (of `words` words) of operation i into x, and back. */
CC_INLINE void cc_gather(cc_u32 *x, const cc_u32 *buf, cc_u32 plane, cc_u32 words, cc_u32 count,
                         cc_u32 i, int len) {
    int j;
    for (j = 0; j < len; j++) x[j] = buf[((cc_u64)plane * words + (cc_u32)j) * count + i];
}
CC_INLINE void cc_scatter(cc_u32 *buf, const cc_u32 *x, cc_u32 plane, cc_u32 words, cc_u32 count,
                          cc_u32 i, int len) {
    int j;
    for (j = 0; j < len; j++) buf[((cc_u64)plane * words + (cc_u32)j) * count + i] = x[j];
}

/* Operation i's outputs: NL words of m, a2, ai2, then zeros to the batch's width. */
CC_INLINE void cc_put_outputs(cc_u32 *out, cc_u32 words, cc_u32 count, cc_u32 i, const cc_u32 *m,
                              const cc_u32 *a2, const cc_u32 *ai2, int NL) {
    cc_u32 j, nl = NL > 0 ? (cc_u32)NL : 0;
    for (j = 0; j < words; j++) {
        int mine = j < nl;
        out[((cc_u64)CC_OUT_M * words + j) * count + i] = mine ? m[j] : 0;
        out[((cc_u64)CC_OUT_A2 * words + j) * count + i] = mine ? a2[j] : 0;
        out[((cc_u64)CC_OUT_AI2 * words + j) * count + i] = mine ? ai2[j] : 0;
    }
}

/* Operation i's inputs c, A R and Ai R (NL words each) from the planes of `in`. */
CC_INLINE void cc_gather_inputs(cc_u32 *c, cc_u32 *a_m, cc_u32 *ai_m, const cc_u32 *in,
                                cc_u32 words, cc_u32 count, cc_u32 i, int NL) {
    cc_gather(c, in, CC_IN_C, words, count, i, NL);
    cc_gather(a_m, in, CC_IN_A, words, count, i, NL);
    cc_gather(ai_m, in, CC_IN_AI, words, count, i, NL);
}

/* Operation i cannot run here (cc_op_limbs): CC_STATUS_BAD_KEY and zero output. */
CC_INLINE void cc_refuse(cc_u32 *out, cc_u32 *status, cc_u32 words, cc_u32 count, cc_u32 i) {
    status[i] = CC_STATUS_BAD_KEY;
    cc_put_outputs(out, words, count, i, 0, 0, 0, 0); /* no word is read at length 0 */
}

/*
 * Operation i's end: its status and results out, then its inputs and results (NL
 * words each, all secrets) wiped.
 */
CC_INLINE void cc_finish(cc_u32 *out, cc_u32 *status, cc_u32 st, cc_u32 words, cc_u32 count,
                         cc_u32 i, cc_u32 *c, cc_u32 *a_m, cc_u32 *ai_m, cc_u32 *m, cc_u32 *a2,
                         cc_u32 *ai2, int NL) {
    status[i] = st;
    cc_put_outputs(out, words, count, i, m, a2, ai2, NL);
    cc_zero(c, NL);
    cc_zero(a_m, NL);
    cc_zero(ai_m, NL);
    cc_zero(m, NL);
    cc_zero(a2, NL);
    cc_zero(ai2, NL);
}

/*
 * Operation i of a batch, whole: gathers its planes, runs it, scatters the results.
 * An operation that cannot run here (cc_op_limbs) fails alone with CC_STATUS_BAD_KEY
 * and zero output.
 */
CC_FN void cc_rsa_private_at(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                             const cc_u32 *in, cc_u32 *out, cc_u32 *status, cc_u32 count,
                             cc_u32 words, cc_u32 w, cc_u32 i) {
    cc_u32 c[CC_N_CAP], a_m[CC_N_CAP], ai_m[CC_N_CAP];
    cc_u32 m[CC_N_CAP], a2[CC_N_CAP], ai2[CC_N_CAP];
    const cc_u32 *key;
    int L = cc_op_limbs(keys, key_count, op_key, words, w, i, &key), NL = 2 * L;
    if (L == 0) {
        cc_refuse(out, status, words, count, i);
        return;
    }
    cc_gather_inputs(c, a_m, ai_m, in, words, count, i, NL);
    cc_finish(out, status, cc_rsa_private_one(key, c, a_m, ai_m, m, a2, ai2, (int)w), words,
              count, i, c, a_m, ai_m, m, a2, ai2, NL);
}

/*
 * The same batch in three passes (the split kernels): `mid` holds two planes of
 * words / 2 words per operation, c' mod p then m_p (plane 0) and c' mod q then m_q
 * (plane 1). Pass 1 is cc_rsa_blind_at for every operation i, pass 2 cc_rsa_exp_at for
 * every t below 2 count (t < count: operation t's p half; else operation t - count's q
 * half), pass 3 cc_rsa_join_at for every i. They compute what cc_rsa_private_at does;
 * `mid` holds secrets between the passes, and the caller zeroes it afterwards.
 */
CC_FN void cc_rsa_blind_at(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                           const cc_u32 *in, cc_u32 *mid, cc_u32 count, cc_u32 words, cc_u32 w,
                           cc_u32 i) {
    cc_u32 c[CC_N_CAP], a_m[CC_N_CAP], cp[CC_PRIME_CAP], cq[CC_PRIME_CAP];
    const cc_u32 *key;
    int L = cc_op_limbs(keys, key_count, op_key, words, w, i, &key), NL = 2 * L;
    if (L == 0) return;
    cc_gather(c, in, CC_IN_C, words, count, i, NL);
    cc_gather(a_m, in, CC_IN_A, words, count, i, NL);
    cc_rsa_blind_split(key, L, c, a_m, cp, cq);
    cc_scatter(mid, cp, 0, words / 2, count, i, L);
    cc_scatter(mid, cq, 1, words / 2, count, i, L);
    cc_zero(c, NL);
    cc_zero(a_m, NL);
    cc_zero(cp, L);
    cc_zero(cq, L);
}

CC_FN void cc_rsa_exp_at(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                         cc_u32 *mid, cc_u32 count, cc_u32 words, cc_u32 w, cc_u32 t) {
    cc_u32 x[CC_PRIME_CAP];
    cc_u32 q_half = t >= count, i = t - q_half * count;
    const cc_u32 *key;
    int L = cc_op_limbs(keys, key_count, op_key, words, w, i, &key);
    if (L == 0) return;
    cc_gather(x, mid, q_half, words / 2, count, i, L);
    cc_rsa_exp_half(key, L, x, (int)q_half, (int)w);
    cc_scatter(mid, x, q_half, words / 2, count, i, L);
    cc_zero(x, L);
}

/* (Apart from cc_rsa_private_at, so that the join kernel holds no exponentiation:
 * ptxas would reserve its table's frame there too.) */
CC_FN void cc_rsa_join_at(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                          const cc_u32 *in, const cc_u32 *mid, cc_u32 *out, cc_u32 *status,
                          cc_u32 count, cc_u32 words, cc_u32 w, cc_u32 i) {
    cc_u32 c[CC_N_CAP], a_m[CC_N_CAP], ai_m[CC_N_CAP], mp[CC_PRIME_CAP], mq[CC_PRIME_CAP];
    cc_u32 m[CC_N_CAP], a2[CC_N_CAP], ai2[CC_N_CAP];
    const cc_u32 *key;
    int L = cc_op_limbs(keys, key_count, op_key, words, w, i, &key), NL = 2 * L;
    if (L == 0) {
        cc_refuse(out, status, words, count, i);
        return;
    }
    cc_gather_inputs(c, a_m, ai_m, in, words, count, i, NL);
    cc_gather(mp, mid, 0, words / 2, count, i, L);
    cc_gather(mq, mid, 1, words / 2, count, i, L);
    cc_finish(out, status, cc_rsa_join(key, L, c, a_m, ai_m, mp, mq, m, a2, ai2), words, count,
              i, c, a_m, ai_m, m, a2, ai2, NL);
    cc_zero(mp, L);
    cc_zero(mq, L);
}
