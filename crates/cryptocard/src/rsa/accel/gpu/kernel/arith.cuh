/*
 * arith.cuh: 32-bit limb arithmetic, little-endian limb arrays of runtime length L.
 *
 * Montgomery multiplication (Montgomery 1985) by CIOS, coarsely integrated operand
 * scanning, and a dedicated squaring followed by a separate reduction (SOS), both from
 * Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication
 * Algorithms" (IEEE Micro, 1996). R = 2^(32 L). Every function is constant time in the
 * values of its operands: the loops run over L (public) only, the final subtractions
 * are selected by mask, never by branch.
 *
 * On the device (__CUDA_ARCH__) with CC_USE_PTX (the default) one multiply-add
 * a*b + t + c is a PTX carry chain (mad.lo.cc.u32 / madc.hi.u32, the instructions
 * sDPF-RSA, Emmart et al. and CGBN build on); elsewhere it is a 64-bit product. Both
 * compute the same 64-bit value, which never overflows: (2^32-1)^2 + 2 (2^32-1) =
 * 2^64 - 1.
 */

#ifndef CC_USE_PTX
#define CC_USE_PTX 1
#endif

/* ---- constant-time masks ---- */

/* All ones if x != 0, else 0. */
CC_INLINE cc_u32 cc_mask_nz(cc_u32 x) { return (cc_u32)0 - ((x | ((cc_u32)0 - x)) >> 31); }

/* All ones if a == b, else 0. */
CC_INLINE cc_u32 cc_mask_eq(cc_u32 a, cc_u32 b) { return ~cc_mask_nz(a ^ b); }

/* All ones if the low bit of b is set, else 0. */
CC_INLINE cc_u32 cc_mask_bit(cc_u32 b) { return (cc_u32)0 - (b & 1u); }

/* ---- one word ---- */

/* Returns the low word of a*b + t + *c and leaves the high word in *c. */
CC_INLINE cc_u32 cc_mac(cc_u32 a, cc_u32 b, cc_u32 t, cc_u32 *c) {
#if defined(__CUDA_ARCH__) && CC_USE_PTX
    cc_u32 lo, hi, zero = 0;
    asm("{\n\t"
        "mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
        "madc.hi.u32 %1, %2, %3, %6;\n\t"
        "add.cc.u32 %0, %0, %5;\n\t"
        "addc.u32 %1, %1, %6;\n\t"
        "}"
        : "=r"(lo), "=r"(hi)
        : "r"(a), "r"(b), "r"(t), "r"(*c), "r"(zero));
    *c = hi;
    return lo;
#else
    cc_u64 s = (cc_u64)a * b + t + *c;
    *c = (cc_u32)(s >> 32);
    return (cc_u32)s;
#endif
}

/* a + b + *c (carry in 0 or 1); the carry out in *c. */
CC_INLINE cc_u32 cc_adc(cc_u32 a, cc_u32 b, cc_u32 *c) {
    cc_u64 s = (cc_u64)a + b + *c;
    *c = (cc_u32)(s >> 32);
    return (cc_u32)s;
}

/* a - b - *br (borrow in 0 or 1); the borrow out in *br. */
CC_INLINE cc_u32 cc_sbb(cc_u32 a, cc_u32 b, cc_u32 *br) {
    cc_u64 d = (cc_u64)a - b - *br;
    *br = (cc_u32)(d >> 63);
    return (cc_u32)d;
}

/* -m^-1 mod 2^32 for odd m (Newton: each step doubles the correct low bits, from 3). */
CC_INLINE cc_u32 cc_neg_inv32(cc_u32 m) {
    cc_u32 x = m; /* m * m = 1 mod 8 */
    x *= 2u - m * x;
    x *= 2u - m * x;
    x *= 2u - m * x;
    x *= 2u - m * x;
    return (cc_u32)0 - x;
}

/* ---- limb arrays ---- */

CC_LIMB_FN void cc_copy(cc_u32 *r, const cc_u32 *a, int L) {
    int j;
    CC_UNROLL for (j = 0; j < L; j++) r[j] = a[j];
}

CC_LIMB_FN void cc_zero(cc_u32 *r, int L) {
    int j;
    CC_UNROLL for (j = 0; j < L; j++) r[j] = 0;
}

/* r = a - b, returns the borrow. r may alias a or b. */
CC_LIMB_FN cc_u32 cc_sub_n(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, int L) {
    cc_u32 br = 0;
    int j;
    CC_UNROLL for (j = 0; j < L; j++) r[j] = cc_sbb(a[j], b[j], &br);
    return br;
}

/* r += b & mask, returns the carry (of the masked add). */
CC_LIMB_FN cc_u32 cc_cnd_add_n(cc_u32 *r, const cc_u32 *b, cc_u32 mask, int L) {
    cc_u32 c = 0;
    int j;
    CC_UNROLL for (j = 0; j < L; j++) r[j] = cc_adc(r[j], b[j] & mask, &c);
    return c;
}

/* All ones if a < b (as L-limb numbers), else 0; constant time. */
CC_LIMB_FN cc_u32 cc_lt_mask(const cc_u32 *a, const cc_u32 *b, int L) {
    cc_u32 br = 0;
    int j;
    CC_UNROLL for (j = 0; j < L; j++) (void)cc_sbb(a[j], b[j], &br);
    return (cc_u32)0 - br;
}

/* All ones if a == b, else 0; constant time. */
CC_LIMB_FN cc_u32 cc_eq_mask(const cc_u32 *a, const cc_u32 *b, int L) {
    cc_u32 d = 0;
    int j;
    CC_UNROLL for (j = 0; j < L; j++) d |= a[j] ^ b[j];
    return ~cc_mask_nz(d);
}

/*
 * r = t + top 2^(32 L) - n if that is >= 0, else t, for t + top 2^(32 L) < 2 n
 * (top is 0 or 1). The subtraction always runs; the choice is a mask. r must not
 * alias t or n.
 */
CC_LIMB_FN void cc_cond_sub(cc_u32 *r, const cc_u32 *t, cc_u32 top, const cc_u32 *n, int L) {
    cc_u32 br = cc_sub_n(r, t, n, L);
    /* keep the difference when there was a top word or no borrow */
    cc_u32 keep = cc_mask_nz(top | (br ^ 1u));
    int j;
    CC_UNROLL for (j = 0; j < L; j++) r[j] = (r[j] & keep) | (t[j] & ~keep);
}

/* r (2L limbs) = a * b, schoolbook. r must not alias a or b. */
CC_LIMB_FN void cc_mul_wide(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, int L) {
    int i, j;
    cc_zero(r, 2 * L);
    CC_UNROLL_OUTER for (i = 0; i < L; i++) {
        cc_u32 c = 0, ai = a[i];
        CC_UNROLL for (j = 0; j < L; j++) r[i + j] = cc_mac(ai, b[j], r[i + j], &c);
        r[i + L] = c;
    }
}

/*
 * r (2L limbs) = a^2: the products a_i a_j (i < j) once, doubled by a shift, plus the
 * squares a_i^2 on the diagonal: L (L - 1) / 2 + L products instead of L^2. r must not
 * alias a.
 */
CC_LIMB_FN void cc_sqr_wide(cc_u32 *r, const cc_u32 *a, int L) {
    int i, j;
    cc_u32 c, hi;
    cc_zero(r, 2 * L);
    CC_UNROLL_OUTER for (i = 0; i + 1 < L; i++) {
        cc_u32 ai = a[i];
        c = 0;
        CC_UNROLL_OUTER for (j = i + 1; j < L; j++) r[i + j] = cc_mac(ai, a[j], r[i + j], &c);
        r[i + L] = c; /* no earlier row reached this word */
    }
    /* double: the off-diagonal sum is below a^2 / 2, so no bit leaves the 2L limbs */
    hi = 0;
    CC_UNROLL for (j = 0; j < 2 * L; j++) {
        cc_u32 w = r[j];
        r[j] = (w << 1) | hi;
        hi = w >> 31;
    }
    /* the diagonal */
    c = 0;
    CC_UNROLL for (i = 0; i < L; i++) {
        cc_u32 h = 0;
        cc_u32 lo = cc_mac(a[i], a[i], 0, &h);
        r[2 * i] = cc_adc(r[2 * i], lo, &c);
        r[2 * i + 1] = cc_adc(r[2 * i + 1], h, &c);
    }
}

/*
 * Montgomery reduction: r = t R^-1 mod n, fully reduced, for t (2L limbs) < n R.
 * t is overwritten. r must not alias t. The carry out of row i belongs to word i + L + 1,
 * which is where row i + 1 adds its own carry, so one word carries it along; after the
 * last row it is the top bit of (t + M n) / R < 2 n.
 */
CC_LIMB_FN void cc_redc(cc_u32 *r, cc_u32 *t, const cc_u32 *n, cc_u32 n0, int L) {
    cc_u32 carry = 0;
    int i, j;
    CC_UNROLL_OUTER for (i = 0; i < L; i++) {
        cc_u32 m = t[i] * n0, c = 0;
        CC_UNROLL for (j = 0; j < L; j++) t[i + j] = cc_mac(m, n[j], t[i + j], &c);
        {
            cc_u64 s = (cc_u64)t[i + L] + c + carry;
            t[i + L] = (cc_u32)s;
            carry = (cc_u32)(s >> 32);
        }
    }
    cc_cond_sub(r, t + L, carry, n, L);
}

/*
 * Montgomery product by CIOS: r = a b R^-1 mod n, fully reduced, for a < R and b < n
 * (or a < n and b < R). r may alias a or b. The running sum stays below 2 n + 2^32 n,
 * in L + 2 words.
 */
CC_LIMB_FN void cc_mont_mul(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n, cc_u32 n0,
                       int L) {
    cc_u32 t[CC_N_MAX + 2];
    int i, j;
    cc_zero(t, L + 2);
    CC_UNROLL_OUTER for (i = 0; i < L; i++) {
        cc_u32 c = 0, c2 = 0, ai = a[i], m;
        CC_UNROLL for (j = 0; j < L; j++) t[j] = cc_mac(ai, b[j], t[j], &c);
        t[L] = cc_adc(t[L], c, &c2);
        t[L + 1] = c2;
        m = t[0] * n0;
        c = 0;
        (void)cc_mac(m, n[0], t[0], &c); /* the low word becomes 0 */
        CC_UNROLL for (j = 1; j < L; j++) t[j - 1] = cc_mac(m, n[j], t[j], &c);
        c2 = 0;
        t[L - 1] = cc_adc(t[L], c, &c2);
        t[L] = t[L + 1] + c2;
    }
    cc_cond_sub(r, t, t[L], n, L);
}

/*
 * Montgomery square: r = a^2 R^-1 mod n, fully reduced, for a < n. r may alias a. The
 * dedicated squaring and REDC, or with CC_SQR_BY_MUL the general product.
 */
CC_LIMB_FN void cc_mont_sqr(cc_u32 *r, const cc_u32 *a, const cc_u32 *n, cc_u32 n0, int L) {
#if CC_SQR_BY_MUL
    cc_mont_mul(r, a, a, n, n0, L);
#else
    cc_u32 t[2 * CC_N_MAX];
    cc_sqr_wide(t, a, L);
    cc_redc(r, t, n, n0, L);
#endif
}

/*
 * r = x mod n for x of 2L limbs with x < n R (so a CRT input c' < p q reduces mod p
 * when q < R): REDC gives x R^-1 mod n, and a product by R^2 mod n puts back R.
 * Constant time. x is left unchanged. r must not alias x.
 */
CC_LIMB_FN void cc_reduce_wide(cc_u32 *r, const cc_u32 *x, const cc_u32 *n, cc_u32 n0,
                          const cc_u32 *r2, int L) {
    cc_u32 t[2 * CC_N_MAX];
    cc_copy(t, x, 2 * L);
    cc_redc(r, t, n, n0, L);
    cc_mont_mul(r, r, r2, n, n0, L);
}
