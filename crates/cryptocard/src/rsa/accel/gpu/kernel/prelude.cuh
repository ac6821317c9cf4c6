/*
 * prelude.cuh: the words, the qualifiers and the sizes shared by the device (NVRTC,
 * C++) and the host (a C compiler, after host_shim.h). Everything in the kernel
 * headers is C that both accept: no templates, no references, no bool, no
 * variable-length arrays, no headers (NVRTC has no libc).
 */

typedef unsigned int cc_u32;
typedef unsigned long long cc_u64;

/* Small helpers that must be inlined (masks, one multiply-add). */
#define CC_INLINE static __host__ __device__ __forceinline__
/* Loops over limbs: the compiler decides. */
#define CC_FN static __host__ __device__

/*
 * Unrolling hints, for the sized builds below: NVRTC unrolls a loop of constant trip
 * count fully and leaves any other alone, so a limb loop inside a function compiled
 * before it is inlined keeps its shape until the caller's constant length reaches it.
 * Clang's CUDA mode (the kernel lint in tests/gpu_host_kernels.rs) reads a bare
 * "unroll" as "unroll somehow", which unrolls such a loop by its run-time length first
 * and forbids the full unrolling later; "unroll(full)" is NVRTC's meaning there.
 * Elsewhere (the run-time build, whose trip counts are not constant, and a host C
 * compiler) the compiler's own heuristics decide.
 */
#if defined(CC_FIXED_L) && defined(__clang__) && defined(__CUDA__)
#define CC_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(CC_FIXED_L) && (defined(__CUDACC_RTC__) || defined(__CUDACC__))
#define CC_UNROLL _Pragma("unroll")
#else
#define CC_UNROLL
#endif

/*
 * Sized builds. Without CC_FIXED_L the code takes every length at run time: one module
 * serves every key, and each limb array lives in local memory, since a loop of unknown
 * length indexes it. With -DCC_FIXED_L=K (the driver compiles one module per prime
 * length, K limbs) the functions on limb arrays are inlined where they are called
 * (CC_LIMB_FN), the exponentiations and the operation take their lengths from the
 * macro, so every limb loop has a constant trip count: NVRTC unrolls the inner loops
 * and keeps the arrays they index by constants (the running sum, the multiplier) in
 * registers. The exponentiations stay functions of their own (CC_EXP_FN), so that the
 * two of one operation share their code. A sized module takes keys of K-limb primes
 * only; any other key gets CC_STATUS_BAD_KEY there.
 *
 * CC_MUL_CHAIN=1 writes the product's rows, and in a sized build the dedicated
 * squaring, as PTX carry chains (arith.cuh); the driver's modules have it. CC_FULL_UNROLL=1
 * unrolls the outer loops of the products too: no array is then indexed by a variable,
 * at the price of code size (a 32-limb product is about 2,000 chained instructions in a
 * row). CC_SQR_BY_MUL=1 squares with the general product. Each is measured on the
 * device (scripts/gpu-check --sweep) rather than guessed; every combination computes the
 * same words (tests/gpu_host_kernels.rs).
 */
#ifdef CC_FIXED_L
#define CC_LIMB_FN CC_INLINE
#define CC_EXP_FN static __host__ __device__ __noinline__
#else
#define CC_LIMB_FN CC_FN
#define CC_EXP_FN CC_FN
#endif
/*
 * In a sized build a function given a prime length by its caller takes the module's
 * instead (the caller has checked they are the same: cc_key_limbs), so that its limb
 * loops have constant trip counts after inlining.
 */
#ifdef CC_FIXED_L
#define CC_SIZED_L(L) ((L) = CC_FIXED_L)
#else
#define CC_SIZED_L(L) ((void)0)
#endif
#if defined(CC_FIXED_L) && defined(CC_FULL_UNROLL) && CC_FULL_UNROLL
#define CC_UNROLL_OUTER CC_UNROLL
#else
#define CC_UNROLL_OUTER
#endif
/* The chained dedicated squaring (arith.cuh) is unrolled whole in every sized build. */
#define CC_UNROLL_SQR CC_UNROLL
#ifndef CC_SQR_BY_MUL
#define CC_SQR_BY_MUL 0
#endif
#ifndef CC_MUL_CHAIN
#define CC_MUL_CHAIN 0
#endif

/* The largest prime, in 32-bit limbs (RSA-4096: two 2048-bit primes). */
#define CC_PRIME_MAX 64
/* The largest modulus n, in 32-bit limbs. */
#define CC_N_MAX (2 * CC_PRIME_MAX)
/* The widest fixed window of the secret exponentiations, and its table's entries. */
#define CC_WINDOW_MAX 5
#define CC_TABLE_MAX (1 << CC_WINDOW_MAX)
/*
 * The lengths the limb arrays are declared with: the largest sizes in the run-time
 * build, the module's own in a sized one. Each thread's arrays are local memory, and
 * the driver reserves that for every thread the device can hold, so a module for
 * RSA-2048 does not carry arrays for RSA-4096.
 */
#ifdef CC_FIXED_L
#define CC_PRIME_CAP CC_FIXED_L
#else
#define CC_PRIME_CAP CC_PRIME_MAX
#endif
#define CC_N_CAP (2 * CC_PRIME_CAP)

/* Per-operation status words (rsa/accel/gpu/layout.rs mirrors them). */
#define CC_STATUS_OK 0u
#define CC_STATUS_FAULT 1u
#define CC_STATUS_BAD_INPUT 2u
#define CC_STATUS_BAD_KEY 3u

/* Compile-time checks that the words have the sizes the code assumes. */
typedef char cc_u32_is_4_bytes[(sizeof(cc_u32) == 4) ? 1 : -1];
typedef char cc_u64_is_8_bytes[(sizeof(cc_u64) == 8) ? 1 : -1];
