/*
 * exp.cuh: exponentiation modulo an odd n of L 32-bit limbs.
 *
 * cc_mont_exp_ct: x^e mod n for a secret e, by the fixed window of w bits (1 <= w <=
 * CC_WINDOW_MAX): the table x^0 .. x^(2^w - 1) in Montgomery form, then for every
 * window w squarings and one product by the entry the window's bits name. The entry is
 * read by a full scan of the table, each word kept or dropped by a mask
 * (cc_table_select), so the memory addresses and the branches depend on L and w only:
 * on the device a secret-indexed read of local or shared memory would leak through
 * bank conflicts and caches (sDPF-RSA, Dong et al. 2018, does the same; CGBN indexes
 * its table by the secret). The exponent is read over all its eL limbs, so its length
 * as stored (the prime's length, zero-padded by the host) is all that leaks.
 *
 * cc_mont_exp_pub_eq: whether m^e = c mod n for a PUBLIC e of up to 64 bits (the fault
 * check): left-to-right square-and-multiply, whose sequence of products depends on e.
 */

/* The w bits of e (eL limbs) from bit pos up; bits past the end read as 0. pos and w
 * are public: only they decide which words are read. */
CC_INLINE cc_u32 cc_window_at(const cc_u32 *e, int eL, int pos, int w) {
    int word = pos >> 5, sh = pos & 31;
    cc_u32 v = e[word] >> sh;
    if (sh + w > 32 && word + 1 < eL) v |= e[word + 1] << (32 - sh);
    return v & ((1u << w) - 1u);
}

/* out = tab[idx] (entries of L limbs, `entries` of them), reading every entry. */
CC_LIMB_FN void cc_table_select(cc_u32 *out, const cc_u32 *tab, int entries, int L, cc_u32 idx) {
    int i, j;
    cc_zero(out, L);
    for (i = 0; i < entries; i++) {
        cc_u32 mask = cc_mask_eq((cc_u32)i, idx);
        CC_UNROLL for (j = 0; j < L; j++) out[j] |= tab[i * L + j] & mask;
    }
}

/*
 * r = x^e mod n, plain in and out (x < n), e of eL limbs (secret; every bit read),
 * window w in 1..CC_WINDOW_MAX, r2 = R^2 mod n. Constant time in x and e. r may alias x.
 * In a sized build (prelude.cuh) L and eL are CC_FIXED_L whatever is passed: its one
 * caller, the operation, passes that.
 */
CC_EXP_FN void cc_mont_exp_ct(cc_u32 *r, const cc_u32 *x, const cc_u32 *e, int eL,
                              const cc_u32 *n, cc_u32 n0, const cc_u32 *r2, int L, int w) {
    CC_SIZED_L(L);
    CC_SIZED_L(eL);
    cc_u32 tab[CC_TABLE_MAX * CC_PRIME_CAP];
    cc_u32 acc[CC_PRIME_CAP], sel[CC_PRIME_CAP], one[CC_PRIME_CAP];
    int entries = 1 << w, bits = 32 * eL, windows = (bits + w - 1) / w;
    int i, k;
    cc_zero(one, L);
    one[0] = 1;
    cc_mont_mul(tab, r2, one, n, n0, L);   /* x^0 = R mod n */
    cc_mont_mul(tab + L, x, r2, n, n0, L); /* x^1 = x R mod n */
    /* x^i = x^(i-1) x: one product in the code (a squaring for the even entries would
     * be a second copy of the unrolled squaring, for 15 of about 1,250 products) */
    for (i = 2; i < entries; i++) cc_mont_mul(tab + i * L, tab + (i - 1) * L, tab + L, n, n0, L);
    cc_table_select(acc, tab, entries, L, cc_window_at(e, eL, (windows - 1) * w, w));
    for (k = windows - 2; k >= 0; k--) {
        for (i = 0; i < w; i++) cc_mont_sqr(acc, acc, n, n0, L);
        cc_table_select(sel, tab, entries, L, cc_window_at(e, eL, k * w, w));
        cc_mont_mul(acc, acc, sel, n, n0, L);
    }
    cc_mont_mul(r, acc, one, n, n0, L); /* out of Montgomery form */
    cc_zero(tab, entries * L);          /* the table holds powers of a secret */
    cc_zero(acc, L);
    cc_zero(sel, L);
}

/*
 * All ones if m^e = c mod n, else 0, for a public e = e_hi 2^32 + e_lo >= 1, m and c
 * plain, m < n. Variable time in e only. In a sized build L is 2 CC_FIXED_L (n's
 * length) whatever is passed.
 */
CC_EXP_FN cc_u32 cc_mont_exp_pub_eq(const cc_u32 *m, const cc_u32 *c, cc_u32 e_lo, cc_u32 e_hi,
                                    const cc_u32 *n, cc_u32 n0, const cc_u32 *r2, int L) {
#ifdef CC_FIXED_L
    L = 2 * CC_FIXED_L;
#endif
    cc_u32 mm[CC_N_CAP], acc[CC_N_CAP], one[CC_N_CAP];
    int top, b;
    cc_mont_mul(mm, m, r2, n, n0, L);
    cc_copy(acc, mm, L);
    top = 63;
    while (top > 0 && !(((top >= 32) ? (e_hi >> (top - 32)) : (e_lo >> top)) & 1u)) top--;
    for (b = top - 1; b >= 0; b--) {
        cc_u32 bit = (b >= 32) ? (e_hi >> (b - 32)) & 1u : (e_lo >> b) & 1u;
        cc_mont_sqr(acc, acc, n, n0, L);
        if (bit) cc_mont_mul(acc, acc, mm, n, n0, L);
    }
    cc_zero(one, L);
    one[0] = 1;
    cc_mont_mul(acc, acc, one, n, n0, L);
    return cc_eq_mask(acc, c, L);
}
