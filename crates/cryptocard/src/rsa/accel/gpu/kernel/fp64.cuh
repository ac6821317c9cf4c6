/*
 * fp64.cuh: the secret exponentiation with its word products on the FP64 units
 * (CC_EXP_F64=1; the driver's CRYPTOCARD_GPU_ARITH=f64).
 *
 * Emmart, Zheng and Weems, "Faster Modular Exponentiation Using Double Precision
 * Floating Point Arithmetic on the GPU" (ARITH 2018): a GPU's 32-bit multiply-add
 * carry chains cost two integer instructions a 32x32-bit product (the IMAD and the
 * carry add that ptxas makes of mad.lo.cc / madc.hi), while its FP64 units, idle in
 * the integer kernel, give a 52x52-bit product in two fused multiply-adds. An H100 or
 * H200 SM has as many FP64 lanes as IMAD lanes, and a 52-bit word holds 2.6 times the
 * product of a 32-bit one, so the FP64 units alone multiply about 1.7 times faster.
 *
 * Numbers are held in s limbs of 52 bits, each an integer-valued double in [0, 2^52),
 * with R = 2^(52 s) and 52 s >= 32 L + 2, so that 4 p < R for a prime below 2^(32 L).
 * The product of two limbs a b < 2^104 splits exactly, with rounding toward zero:
 *
 *   hi = fma_rz(a, b, 2^104)              = 2^104 + H 2^52,  H = floor(a b / 2^52)
 *   lo = fma_rz(a, b, (2^104 + 2^52) - hi) = 2^52 + L,        L = a b mod 2^52
 *
 * (the subtraction is exact: (1 - H) 2^52). Both results sit at a fixed exponent, so
 * their bit patterns are H and L plus a constant (CC_F64_HI, CC_F64_LO): they are
 * summed as 64-bit integers, with no conversion, and the constants taken out once per
 * column. Column sums stay below 2^61 (in the product at most four parts below 2^52 a
 * column an iteration, for at most s + 1 iterations; the square's columns, at most
 * 4 s parts, then REDC's two an iteration), so nothing overflows for s <= 40.
 *
 * The Montgomery product is CIOS (Koc, Acar and Kaliski 1996) in radix 2^52, the shape
 * of AVX-512 IFMA's vpmadd52luq/vpmadd52huq kernels (arch/x86_64/ifma): for each limb
 * a_i, add a_i b and q n with q = (column 0) (-n^-1) mod 2^52, then move the columns
 * down one, carrying column 0's top bits. Inputs below 2 p give a result below 2 p
 * (4 p < R), so the exponentiation never subtracts; its end takes the product by 1 and
 * one masked subtraction. The fixed window, the masked table scan and the exponent's
 * reading are those of exp.cuh's cc_mont_exp_ct, with the same signature: 32-bit limbs
 * in and out. The table's entries are packed in 32-bit words, not kept as doubles: the
 * tables outgrow the caches, so each window's scan reads memory, and packing reads a
 * fifth less of it for one unpacking a window. R^2 mod p for the new R comes from the
 * key's (R')^2 mod p, R' = 2^(32 L), by 104 s - 64 L (fewer than 108) modular
 * doublings. Without CC_SQR_BY_MUL the squarings take the dedicated square
 * (cc_f64_mont_sqr): s (s + 1) / 2 products and REDC's s^2 instead of 2 s^2.
 *
 * Constant time as exp.cuh: every loop runs over s and w (public), the table is read
 * whole by mask, the final subtraction is a mask. The device's FP64 multiply-add takes
 * the same time for every operand (it has no slow path for zeros or denormals, and
 * none arise here: every operand is an integer below 2^53 or one of the constants).
 *
 * On the host (host_shim.h) __fma_rz is C's fma under FE_TOWARDZERO, which the host
 * entries set, so the tests check the very splitting the device does.
 */

#ifndef CC_EXP_F64
#define CC_EXP_F64 0
#endif

/* 52-bit limbs for primes of L 32-bit limbs: 52 s >= 32 L + 2. */
#define CC_F64_LIMBS(L) ((32 * (L) + 2 + 51) / 52)
#define CC_F64_CAP CC_F64_LIMBS(CC_PRIME_CAP)
/* 32-bit words of a table entry: an s-limb value's 52 s bits, packed. */
#define CC_F64_WORDS(s) ((52 * (s) + 31) / 32)
#define CC_F64_MASK 0x000fffffffffffffull
/* The bit patterns of 2^52 and 2^104: lo and hi of a product, less these, are L and H. */
#define CC_F64_LO 0x4330000000000000ull
#define CC_F64_HI 0x4670000000000000ull
/* What one iteration of the product adds to a middle column: two lo, two hi. */
#define CC_F64_K (2ull * (CC_F64_LO + CC_F64_HI))
#define CC_F64_TWO52 4503599627370496.0
#define CC_F64_TWO104 20282409603651670423947251286016.0
#define CC_F64_TWO104_52 20282409603651674927546878656512.0 /* 2^104 + 2^52 */

/* The double of v, for v < 2^52: 2^52 + v has v as its mantissa. */
CC_INLINE double cc_f64_of(cc_u64 v) {
    return __longlong_as_double((long long)(v | CC_F64_LO)) - CC_F64_TWO52;
}

/* The integer of a limb d in [0, 2^52). */
CC_INLINE cc_u64 cc_f64_int(double d) {
    return (cc_u64)__double_as_longlong(d + CC_F64_TWO52) & CC_F64_MASK;
}

/* a b = (*hi - CC_F64_HI) 2^52 + (*lo - CC_F64_LO), for limbs a, b (the module docs). */
CC_INLINE void cc_f64_prod(double a, double b, cc_u64 *lo, cc_u64 *hi) {
    double h = __fma_rz(a, b, CC_F64_TWO104);
    double l = __fma_rz(a, b, CC_F64_TWO104_52 - h);
    *hi = (cc_u64)__double_as_longlong(h);
    *lo = (cc_u64)__double_as_longlong(l);
}

/* -n^-1 mod 2^52 from n's two low words and n0 = -n^-1 mod 2^32 (one Newton step). */
CC_INLINE cc_u64 cc_f64_n0(const cc_u32 *n, cc_u32 n0, int L) {
    cc_u64 lo = (cc_u64)n[0] | ((L > 1) ? (cc_u64)n[1] << 32 : 0);
    cc_u64 inv = (cc_u64)((cc_u32)0 - n0); /* n^-1 mod 2^32 */
    inv *= 2 - lo * inv;                   /* n^-1 mod 2^64 */
    return ((cc_u64)0 - inv) & CC_F64_MASK;
}

/* d (s 52-bit limbs) = x (L 32-bit limbs), for x < 2^(52 s). */
CC_LIMB_FN void cc_f64_from32(double *d, const cc_u32 *x, int L, int s) {
    int t;
    CC_UNROLL for (t = 0; t < s; t++) {
        int k = (52 * t) >> 5, sh = (52 * t) & 31;
        cc_u64 v = 0;
        if (k < L) v = (cc_u64)(x[k] >> sh);
        if (k + 1 < L) v |= (cc_u64)x[k + 1] << (32 - sh);
        if (k + 2 < L && sh > 12) v |= (cc_u64)x[k + 2] << (64 - sh);
        d[t] = cc_f64_of(v & CC_F64_MASK);
    }
}

/* r (L 32-bit limbs) = d (s 52-bit limbs) mod 2^(32 L). */
CC_LIMB_FN void cc_f64_to32(cc_u32 *r, const double *d, int s, int L) {
    int k;
    CC_UNROLL for (k = 0; k < L; k++) {
        int t = (32 * k) / 52, sh = (32 * k) % 52;
        cc_u64 v = cc_f64_int(d[t]) >> sh;
        if (sh > 20 && t + 1 < s) v |= cc_f64_int(d[t + 1]) << (52 - sh);
        r[k] = (cc_u32)v;
    }
}

CC_LIMB_FN void cc_f64_zero(double *r, int s) {
    int t;
    CC_UNROLL for (t = 0; t < s; t++) r[t] = 0.0;
}

/*
 * One REDC row on the window acc[0..s]: q = (column 0) (-n^-1) mod 2^52, add q n, carry
 * column 0 (then 0 mod 2^52) into column 1 and move the columns down one, acc[s] = 0.
 * `before` and `after` are the constants column 0 holds before and after q n's lo part
 * is added (after = before + CC_F64_LO, passed as the caller holds it).
 */
CC_LIMB_FN void cc_f64_redc_row(cc_u64 *acc, const double *n, cc_u64 n0, cc_u64 before,
                                cc_u64 after, int s) {
    cc_u64 lo, hi, carry, q = ((acc[0] - before) * n0) & CC_F64_MASK;
    double qd = cc_f64_of(q);
    int j;
    CC_UNROLL for (j = 0; j < s; j++) {
        cc_f64_prod(qd, n[j], &lo, &hi);
        acc[j] += lo;
        acc[j + 1] += hi;
    }
    carry = (acc[0] - after) >> 52;
    CC_UNROLL for (j = 0; j < s; j++) acc[j] = acc[j + 1];
    acc[s] = 0;
    acc[0] += carry;
}

/* r = the columns acc[0..s) as 52-bit limbs, column t less its constant fix - t step. */
CC_LIMB_FN void cc_f64_finish(double *r, const cc_u64 *acc, cc_u64 fix, cc_u64 step, int s) {
    cc_u64 carry = 0;
    int j;
    CC_UNROLL for (j = 0; j < s; j++) {
        cc_u64 v = acc[j] - fix + carry;
        r[j] = cc_f64_of(v & CC_F64_MASK);
        carry = v >> 52;
        fix -= step;
    }
}

/*
 * The multiplier's limb j, in the product's inner loop. Up to 32 limbs the compiler
 * keeps b in registers for the whole product (RSA-2048: 168 registers, no spill).
 * Beyond (RSA-4096's 40 limbs) b, n and the columns need more than 255 registers:
 * ptxas then spilled in the loop and moved the columns with an IMAD each (523 to 599
 * instructions an iteration); reading b's limb from memory each time (local memory,
 * in L1) frees 80 registers and leaves 460 instructions, 41 of them loads.
 */
#if CC_F64_CAP > 32
#define CC_F64_B(b, j) (((volatile const double *)(b))[j])
#else
#define CC_F64_B(b, j) ((b)[j])
#endif
/*
 * r = a b R^-1 mod n, below 2 n, for a, b < 2 n (s limbs each), 4 n < R, n0 =
 * -n^-1 mod 2^52. r may alias a or b. Column t of `acc` holds, besides its value, the
 * constants of the parts added to it: at the extraction in iteration i column 0 has
 * had 2 lo + i K (it has moved down from position i), and at the end column t has had
 * 2 hi + (s - 1 - t) K.
 */
CC_LIMB_FN void cc_f64_mont_mul(double *r, const double *a, const double *b, const double *n,
                                cc_u64 n0, int s) {
    cc_u64 acc[CC_F64_CAP + 1];
    cc_u64 ext = 2 * CC_F64_LO, lo, hi;
    int i, j;
    CC_UNROLL for (j = 0; j <= s; j++) acc[j] = 0;
    for (i = 0; i < s; i++) {
        double ai = a[i];
        CC_UNROLL for (j = 0; j < s; j++) {
            cc_f64_prod(ai, CC_F64_B(b, j), &lo, &hi);
            acc[j] += lo;
            acc[j + 1] += hi;
        }
        /* column 0 has one lo of this iteration so far */
        cc_f64_redc_row(acc, n, n0, ext - CC_F64_LO, ext, s);
        ext += CC_F64_K;
    }
    cc_f64_finish(r, acc, 2 * CC_F64_HI + (cc_u64)(s - 1) * CC_F64_K, CC_F64_K, s);
}

/* Ordered pairs (i, j) of limb indices below s with i + j = c. */
CC_INLINE int cc_f64_pairs(int c, int s) {
    if (c < 0 || c > 2 * s - 2) return 0;
    return 1 + ((c < 2 * s - 2 - c) ? c : 2 * s - 2 - c);
}

/*
 * r = a^2 R^-1 mod n, below 2 n, for a < 2 n: the dedicated squaring (each a_i a_j,
 * i < j, once, its parts added twice) into 2 s columns, unrolled whole in a sized
 * build, then REDC over a window of s + 1 columns that takes the square's upper
 * columns in one an iteration (separated operand scanning, Koc, Acar and Kaliski
 * 1996): about s^2 / 2 + s^2 products against the product's 2 s^2. r may alias a.
 * The square's constants come out of its columns at once; REDC's as in the product,
 * with one lo and one hi a middle column an iteration.
 */
CC_LIMB_FN void cc_f64_mont_sqr(double *r, const double *a, const double *n, cc_u64 n0, int s) {
    /* the square's columns 0..s in registers (REDC's first window), s+1..2s-1 in `up`,
     * which REDC reads one an iteration */
    cc_u64 acc[CC_F64_CAP + 1], up[CC_F64_CAP];
    cc_u64 ext = 0, lo, hi, cur = 0, next;
    double av[CC_F64_CAP];
    int i, j, c;
    /* a copied to an array the unrolled square indexes by constants only (registers) */
    CC_UNROLL for (j = 0; j < s; j++) av[j] = a[j];
    /* column by column (product scanning): `cur` collects column c, `next` the high
     * parts for column c + 1, and each column is written once, finished. The inner
     * loop runs over every i with a test that the unrolling decides, so that its trip
     * count is a constant before the outer loop is unrolled too. */
    CC_UNROLL_SQR for (c = 0; c < 2 * s; c++) {
        next = 0;
        CC_UNROLL_SQR for (i = 0; i < s; i++) {
            if (2 * i > c || c - i >= s) continue;
            cc_f64_prod(av[i], av[c - i], &lo, &hi);
            if (2 * i == c) {
                cur += lo;
                next += hi;
            } else {
                cur += lo + lo;
                next += hi + hi;
            }
        }
        cur -= (cc_u64)cc_f64_pairs(c, s) * CC_F64_LO + (cc_u64)cc_f64_pairs(c - 1, s) * CC_F64_HI;
        if (c <= s)
            acc[c] = cur;
        else
            up[c - s - 1] = cur;
        cur = next;
    }
    for (i = 0; i < s; i++) {
        cc_f64_redc_row(acc, n, n0, ext, ext + CC_F64_LO, s);
        if (i + 1 < s) acc[s] = up[i];
        ext += CC_F64_LO + CC_F64_HI;
    }
    cc_f64_finish(r, acc, CC_F64_HI + (cc_u64)(s - 1) * (CC_F64_LO + CC_F64_HI),
                  CC_F64_LO + CC_F64_HI, s);
}

/* The exponentiation's squaring: the product's (CC_SQR_BY_MUL) or the dedicated one. */
CC_LIMB_FN void cc_f64_sqr(double *r, const double *a, const double *n, cc_u64 n0, int s) {
#if CC_SQR_BY_MUL
    cc_f64_mont_mul(r, a, a, n, n0, s);
#else
    cc_f64_mont_sqr(r, a, n, n0, s);
#endif
}

/*
 * out (s limbs) = entry idx of tab, whose entries hold s-limb values packed in
 * CC_F64_WORDS(s) 32-bit words: exp.cuh's scan over every entry, then one unpacking.
 * Packed, an entry is a fifth smaller than in doubles (33 words against 40 at
 * RSA-2048), and the scans stream the tables from memory (docs/gpu.md).
 */
CC_LIMB_FN void cc_f64_select(double *out, const cc_u32 *tab, int entries, int s, cc_u32 idx) {
    cc_u32 o[CC_F64_WORDS(CC_F64_CAP)];
    int W = CC_F64_WORDS(s);
    cc_table_select(o, tab, entries, W, idx);
    cc_f64_from32(out, o, W, s);
}

/* t = 2 t mod n for t < n (L limbs); u is scratch. */
CC_LIMB_FN void cc_double_mod(cc_u32 *t, cc_u32 *u, const cc_u32 *n, int L) {
    cc_u32 top = t[L - 1] >> 31;
    int j;
    for (j = L - 1; j > 0; j--) u[j] = (t[j] << 1) | (t[j - 1] >> 31);
    u[0] = t[0] << 1;
    cc_cond_sub(t, u, top, n, L);
}

/*
 * r = x^e mod n, as cc_mont_exp_ct (same arguments, same result, constant time in x
 * and e), with the products in radix 2^52 on the FP64 units. r may alias x.
 */
CC_EXP_FN void cc_mont_exp_ct_f64(cc_u32 *r, const cc_u32 *x, const cc_u32 *e, int eL,
                                  const cc_u32 *n, cc_u32 n0, const cc_u32 *r2, int L, int w) {
    CC_SIZED_L(L);
    CC_SIZED_L(eL);
    cc_u32 tab[CC_TABLE_MAX * CC_F64_WORDS(CC_F64_CAP)];
    double nd[CC_F64_CAP], acc[CC_F64_CAP], sel[CC_F64_CAP];
    cc_u32 t[CC_PRIME_CAP], u[CC_PRIME_CAP];
    int s = CC_F64_LIMBS(L), W = CC_F64_WORDS(s), entries = 1 << w, bits = 32 * eL;
    int windows = (bits + w - 1) / w;
    int i, k, d = 104 * s - 64 * L;
    cc_u64 m0 = cc_f64_n0(n, n0, L);
    /* R^2 mod n for R = 2^(52 s): the key's 2^(64 L) mod n, doubled d times */
    cc_copy(t, r2, L);
    for (i = 0; i < d; i++) cc_double_mod(t, u, n, L);
    cc_f64_from32(nd, n, L, s);
    cc_f64_from32(sel, t, L, s);
    cc_f64_zero(acc, s);
    acc[0] = 1.0;
    cc_f64_mont_mul(acc, acc, sel, nd, m0, s);    /* x^0 = R mod n */
    cc_f64_to32(tab, acc, s, W);
    cc_f64_from32(acc, x, L, s);
    cc_f64_mont_mul(acc, acc, sel, nd, m0, s);    /* x^1 = x R mod n */
    cc_f64_to32(tab + W, acc, s, W);
    /* sel, free once R^2 is used, carries the powers: a fourth array of s doubles took
     * RSA-2048's kernel from 168 registers to 255, with spills (the kernel lint) */
    CC_UNROLL for (i = 0; i < s; i++) sel[i] = acc[i];
    for (i = 2; i < entries; i++) {               /* x^i = x^(i-1) x */
        cc_f64_mont_mul(sel, sel, acc, nd, m0, s);
        cc_f64_to32(tab + i * W, sel, s, W);
    }
    cc_f64_select(acc, tab, entries, s, cc_window_at(e, eL, (windows - 1) * w, w));
    for (k = windows - 2; k >= 0; k--) {
        for (i = 0; i < w; i++) cc_f64_sqr(acc, acc, nd, m0, s);
        cc_f64_select(sel, tab, entries, s, cc_window_at(e, eL, k * w, w));
        cc_f64_mont_mul(acc, acc, sel, nd, m0, s);
    }
    /* out of Montgomery form: a product by 1 gives a value <= n; one masked subtraction */
    cc_f64_zero(sel, s);
    sel[0] = 1.0;
    cc_f64_mont_mul(acc, acc, sel, nd, m0, s);
    cc_f64_to32(u, acc, s, L);
    cc_cond_sub(r, u, 0, n, L);
    cc_zero(tab, entries * W); /* the table holds powers of a secret */
    cc_f64_zero(acc, s);
    cc_f64_zero(sel, s);
    cc_zero(t, L);
    cc_zero(u, L);
}

/* The secret exponentiation the operation runs (rsa_op.cuh). */
#if CC_EXP_F64
#define cc_mont_exp_secret cc_mont_exp_ct_f64
#else
#define cc_mont_exp_secret cc_mont_exp_ct
#endif
