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

/* The largest prime, in 32-bit limbs (RSA-4096: two 2048-bit primes). */
#define CC_PRIME_MAX 64
/* The largest modulus n, in 32-bit limbs. */
#define CC_N_MAX (2 * CC_PRIME_MAX)
/* The widest fixed window of the secret exponentiations, and its table's entries. */
#define CC_WINDOW_MAX 5
#define CC_TABLE_MAX (1 << CC_WINDOW_MAX)

/* Per-operation status words (rsa/accel/gpu/layout.rs mirrors them). */
#define CC_STATUS_OK 0u
#define CC_STATUS_FAULT 1u
#define CC_STATUS_BAD_INPUT 2u
#define CC_STATUS_BAD_KEY 3u

/* Compile-time checks that the words have the sizes the code assumes. */
typedef char cc_u32_is_4_bytes[(sizeof(cc_u32) == 4) ? 1 : -1];
typedef char cc_u64_is_8_bytes[(sizeof(cc_u64) == 8) ? 1 : -1];
