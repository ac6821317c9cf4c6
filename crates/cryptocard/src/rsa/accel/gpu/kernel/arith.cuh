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

/*
 * Returns the low word of a*b + t + *c and leaves the high word in *c. On the device the
 * four instructions keep their sums in registers of their own and write the outputs
 * last: an output may share a register with an input (the compiler may give *c's old
 * and new values one register in a loop, and did, in the module for every size on an
 * H200), so no output is written while an input is still to be read.
 */
CC_INLINE cc_u32 cc_mac(cc_u32 a, cc_u32 b, cc_u32 t, cc_u32 *c) {
#if defined(__CUDA_ARCH__) && CC_USE_PTX
    cc_u32 lo, hi;
    asm("{\n\t"
        ".reg .u32 l, h;\n\t"
        "mad.lo.cc.u32 l, %2, %3, %4;\n\t"
        "madc.hi.u32 h, %2, %3, 0;\n\t"
        "add.cc.u32 %0, l, %5;\n\t"
        "addc.u32 %1, h, 0;\n\t"
        "}"
        : "=r"(lo), "=r"(hi)
        : "r"(a), "r"(b), "r"(t), "r"(*c));
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

/*
 * ---- carry chains ----
 *
 * One row of a product as PTX writes it (sDPF-RSA, CGBN): the low halves of a_i b_j
 * added along the row in one chain of mad.lo.cc / madc.lo.cc, the high halves in a
 * second chain of mad.hi.cc / madc.hi.cc one word up, so each word product costs two
 * instructions instead of cc_mac's four. The carry between the instructions of a chain
 * is the device's carry flag, which only these instructions touch (each its own
 * volatile asm, kept in order); on the host, and with CC_USE_PTX=0, it is *cf, so the
 * same code computes the same words everywhere. The device ignores cf.
 */
#if defined(__CUDA_ARCH__) && CC_USE_PTX
#define CC_CHAIN_OP(name, insn)                                                              \
    CC_INLINE cc_u32 name(cc_u32 a, cc_u32 b, cc_u32 c, cc_u32 *cf) {                        \
        cc_u32 r;                                                                            \
        (void)cf;                                                                            \
        asm volatile(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));          \
        return r;                                                                            \
    }
CC_CHAIN_OP(cc_lo_cc, "mad.lo.cc.u32")   /* lo(a b) + c, carry out */
CC_CHAIN_OP(cc_loc_cc, "madc.lo.cc.u32") /* lo(a b) + c + carry, carry out */
CC_CHAIN_OP(cc_hi_cc, "mad.hi.cc.u32")   /* hi(a b) + c, carry out */
CC_CHAIN_OP(cc_hic_cc, "madc.hi.cc.u32") /* hi(a b) + c + carry, carry out */
/* a + b + carry, carry out */
CC_INLINE cc_u32 cc_addc_cc(cc_u32 a, cc_u32 b, cc_u32 *cf) {
    cc_u32 r;
    (void)cf;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
/* a + b + carry, the carry dropped (the caller knows there is none) */
CC_INLINE cc_u32 cc_addc(cc_u32 a, cc_u32 b, cc_u32 *cf) {
    cc_u32 r;
    (void)cf;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#else
CC_INLINE cc_u32 cc_chain(cc_u64 s, cc_u32 *cf) {
    *cf = (cc_u32)(s >> 32);
    return (cc_u32)s;
}
CC_INLINE cc_u32 cc_lo_cc(cc_u32 a, cc_u32 b, cc_u32 c, cc_u32 *cf) {
    return cc_chain((cc_u64)(cc_u32)(a * b) + c, cf);
}
CC_INLINE cc_u32 cc_loc_cc(cc_u32 a, cc_u32 b, cc_u32 c, cc_u32 *cf) {
    return cc_chain((cc_u64)(cc_u32)(a * b) + c + *cf, cf);
}
CC_INLINE cc_u32 cc_hi_cc(cc_u32 a, cc_u32 b, cc_u32 c, cc_u32 *cf) {
    return cc_chain((((cc_u64)a * b) >> 32) + c, cf);
}
CC_INLINE cc_u32 cc_hic_cc(cc_u32 a, cc_u32 b, cc_u32 c, cc_u32 *cf) {
    return cc_chain((((cc_u64)a * b) >> 32) + c + *cf, cf);
}
CC_INLINE cc_u32 cc_addc_cc(cc_u32 a, cc_u32 b, cc_u32 *cf) {
    return cc_chain((cc_u64)a + b + *cf, cf);
}
CC_INLINE cc_u32 cc_addc(cc_u32 a, cc_u32 b, cc_u32 *cf) { return a + b + *cf; }
#endif

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
CC_LIMB_FN void cc_mont_mul_cios(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n,
                            cc_u32 n0, int L) {
    cc_u32 t[CC_N_CAP + 2];
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
 * The same product with the rows as carry chains (above): per row, t += a_i b (low
 * halves, then high halves one word up), m = t_0 n0, t = (t + m n) / 2^32 (the shift
 * folded into the chains' destinations). Two instructions per word product instead of
 * four. b and n are copied once per product into arrays the unrolled loops index by
 * constants (registers in a sized build: read through their pointers in every row, the
 * compiler keeps the running sum in local memory too), and a into one read a word per
 * row; so r may alias a or b. The running sum stays below 2 n in L + 1 words between rows, below
 * 2^(32 (L + 2)) within one, as in CIOS.
 */
CC_LIMB_FN void cc_mont_mul_chain(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n,
                             cc_u32 n0, int L) {
    cc_u32 t[CC_N_CAP + 2], av[CC_N_CAP], bv[CC_N_CAP], nv[CC_N_CAP];
    cc_u32 cf = 0; /* the host's carry flag */
    int i, j;
    cc_copy(av, a, L);
    cc_copy(bv, b, L);
    cc_copy(nv, n, L);
    cc_zero(t, L + 1);
    CC_UNROLL_OUTER for (i = 0; i < L; i++) {
        cc_u32 ai = av[i], m;
        /* t += ai b */
        t[0] = cc_lo_cc(ai, bv[0], t[0], &cf);
        CC_UNROLL for (j = 1; j < L; j++) t[j] = cc_loc_cc(ai, bv[j], t[j], &cf);
        t[L] = cc_addc_cc(t[L], 0, &cf);
        t[L + 1] = cc_addc(0, 0, &cf);
        t[1] = cc_hi_cc(ai, bv[0], t[1], &cf);
        CC_UNROLL for (j = 1; j < L; j++) t[j + 1] = cc_hic_cc(ai, bv[j], t[j + 1], &cf);
        t[L + 1] = cc_addc(t[L + 1], 0, &cf);
        /* t = (t + m n) / 2^32: the low word of t + m n is 0 */
        m = t[0] * n0;
        (void)cc_lo_cc(m, nv[0], t[0], &cf);
        CC_UNROLL for (j = 1; j < L; j++) t[j - 1] = cc_loc_cc(m, nv[j], t[j], &cf);
        t[L - 1] = cc_addc_cc(t[L], 0, &cf);
        t[L] = cc_addc(t[L + 1], 0, &cf);
        t[0] = cc_hi_cc(m, nv[0], t[0], &cf);
        CC_UNROLL for (j = 1; j < L; j++) t[j] = cc_hic_cc(m, nv[j], t[j], &cf);
        t[L] = cc_addc(t[L], 0, &cf);
    }
    cc_cond_sub(r, t, t[L], n, L);
}

/*
 * The Montgomery product: CIOS, or with CC_MUL_CHAIN its carry-chain form. The PTX ISA
 * promises its carry flag within straight-line code only (add.cc: "mainly intended for
 * use in straight-line code sequences"), and a chain whose limb loop stays a loop
 * carries the flag across a branch at every word. So on the device the chains run in
 * sized builds only, where every limb loop they span is unrolled; the module for every
 * size, whose loops have run-time trip counts, multiplies by CIOS, whose multiply-add
 * (cc_mac) keeps its carry inside one asm statement.
 */
#if defined(__CUDA_ARCH__) && CC_USE_PTX && !defined(CC_FIXED_L)
#define CC_CHAIN_PRODUCT 0
#else
#define CC_CHAIN_PRODUCT CC_MUL_CHAIN
#endif
CC_LIMB_FN void cc_mont_mul(cc_u32 *r, const cc_u32 *a, const cc_u32 *b, const cc_u32 *n, cc_u32 n0,
                       int L) {
#if CC_CHAIN_PRODUCT
    cc_mont_mul_chain(r, a, b, n, n0, L);
#else
    cc_mont_mul_cios(r, a, b, n, n0, L);
#endif
}

/*
 * The dedicated squaring as carry chains, then REDC as carry chains: r = a^2 R^-1 mod n,
 * fully reduced, for a < n; r may alias a. About L (L - 1) / 2 + L word products for the
 * square and L^2 for the reduction, against 2 L^2 for the general product: the
 * squarings are five in six of an exponentiation's products.
 *
 * The square: row i adds a_i a_j (j > i) at word i + j (low halves, one chain, its
 * carry into word i + L, then i + L + 1) and at i + j + 1 (high halves, a second chain,
 * its carry into i + L + 1), a word no earlier row has reached; the off-diagonal sum is
 * then doubled by a shift and the squares a_i^2 added in one chain over the 2L words.
 * Its word indices move with both loops, so it is unrolled whole (CC_UNROLL_SQR) to keep
 * the 2L words in registers.
 *
 * The reduction keeps CIOS's shape, so that its rows can stay a loop: the low half of
 * the square is the window w, the high half waits in u (memory, a word read per row).
 * Row i adds m n (m = w_0 n0) with the shift by a word folded into the chains'
 * destinations, the way cc_mont_mul_chain reduces; the word entering the window's top
 * is u_i plus the carry c held over from the row before. After the last row w + c R
 * = a^2 / R mod n + (0 or n), below 2 n.
 */
CC_LIMB_FN void cc_mont_sqr_chain(cc_u32 *r, const cc_u32 *a, const cc_u32 *n, cc_u32 n0,
                                  int L) {
    cc_u32 t[2 * CC_N_CAP], u[CC_N_CAP], av[CC_N_CAP], nv[CC_N_CAP];
    cc_u32 cf = 0, c = 0;
    int i, j;
    av[0] = 0; /* L >= 1, which a C compiler cannot see: the copy below writes it */
    cc_copy(av, a, L);
    cc_copy(nv, n, L);
    cc_zero(t, 2 * L);
    CC_UNROLL_SQR for (i = 0; i + 1 < L; i++) {
        t[2 * i + 1] = cc_lo_cc(av[i], av[i + 1], t[2 * i + 1], &cf);
        CC_UNROLL_SQR for (j = i + 2; j < L; j++) t[i + j] = cc_loc_cc(av[i], av[j], t[i + j], &cf);
        t[i + L] = cc_addc_cc(t[i + L], 0, &cf);
        t[i + L + 1] = cc_addc(0, 0, &cf);
        t[2 * i + 2] = cc_hi_cc(av[i], av[i + 1], t[2 * i + 2], &cf);
        CC_UNROLL_SQR for (j = i + 2; j < L; j++)
            t[i + j + 1] = cc_hic_cc(av[i], av[j], t[i + j + 1], &cf);
        t[i + L + 1] = cc_addc(t[i + L + 1], 0, &cf);
    }
    /* double: the off-diagonal sum is below a^2 / 2 */
    CC_UNROLL_SQR for (j = 2 * L - 1; j > 0; j--) t[j] = (t[j] << 1) | (t[j - 1] >> 31);
    t[0] <<= 1;
    /* the diagonal */
    t[0] = cc_lo_cc(av[0], av[0], t[0], &cf);
    t[1] = cc_hic_cc(av[0], av[0], t[1], &cf);
    CC_UNROLL_SQR for (i = 1; i < L; i++) {
        t[2 * i] = cc_loc_cc(av[i], av[i], t[2 * i], &cf);
        t[2 * i + 1] = cc_hic_cc(av[i], av[i], t[2 * i + 1], &cf);
    }
    /* REDC: w = t[0..L), u = t[L..2L) */
    cc_copy(u, t + L, L);
    CC_UNROLL_OUTER for (i = 0; i < L; i++) {
        cc_u32 m = t[0] * n0, top, c2;
        (void)cc_lo_cc(m, nv[0], t[0], &cf);
        CC_UNROLL for (j = 1; j < L; j++) t[j - 1] = cc_loc_cc(m, nv[j], t[j], &cf);
        top = cc_addc_cc(u[i], c, &cf);
        c2 = cc_addc(0, 0, &cf);
        if (L == 1) {
            top = cc_hi_cc(m, nv[0], top, &cf);
        } else {
            t[0] = cc_hi_cc(m, nv[0], t[0], &cf);
            CC_UNROLL for (j = 1; j < L - 1; j++) t[j] = cc_hic_cc(m, nv[j], t[j], &cf);
            top = cc_hic_cc(m, nv[L - 1], top, &cf);
        }
        c = cc_addc(c2, 0, &cf);
        t[L - 1] = top;
    }
    cc_cond_sub(r, t, c, n, L);
}

/*
 * Montgomery square: r = a^2 R^-1 mod n, fully reduced, for a < n. r may alias a. By
 * the general product with CC_SQR_BY_MUL; else the dedicated squaring, as carry chains
 * (above) in a sized build with CC_MUL_CHAIN where L is the primes' length (the mod-n
 * squarings, a few per operation, keep the rolled product: fully unrolled at 2L they
 * would be four times the code), else with cc_mac and a separate REDC.
 */
CC_LIMB_FN void cc_mont_sqr(cc_u32 *r, const cc_u32 *a, const cc_u32 *n, cc_u32 n0, int L) {
#if CC_SQR_BY_MUL
    cc_mont_mul(r, a, a, n, n0, L);
#elif defined(CC_FIXED_L) && CC_MUL_CHAIN
    if (L == CC_FIXED_L)
        cc_mont_sqr_chain(r, a, n, n0, L);
    else
        cc_mont_mul(r, a, a, n, n0, L);
#else
    cc_u32 t[2 * CC_N_CAP];
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
    cc_u32 t[2 * CC_N_CAP];
    cc_copy(t, x, 2 * L);
    cc_redc(r, t, n, n0, L);
    cc_mont_mul(r, r, r2, n, n0, L);
}
