/*
 * One more build of the kernel source for the host, with the compile-time choices of
 * prelude.cuh that the device's modules may use: CC_FIXED_L (a module for primes of
 * that many limbs) and CC_SQR_BY_MUL, set by the file that includes this one
 * (build.rs writes one per variant). Its batch entry is named
 * cc_host_rsa_private_<CC_VARIANT> (whole or split, host_batch.h); the tests run each
 * against the run-time build.
 */
#include "host_shim.h"
#include "prelude.cuh"
#include "arith.cuh"
#include "exp.cuh"
#include "fp64.cuh"
#include "rsa_op.cuh"
#include "host_batch.h"

#define CC_CAT_(a, b) a##b
#define CC_CAT(a, b) CC_CAT_(a, b)

int CC_CAT(cc_host_rsa_private_, CC_VARIANT)(const cc_u64 *keys, cc_u32 key_count,
                                            const cc_u32 *op_key, const cc_u32 *in,
                                            cc_u32 *out, cc_u32 *status, cc_u32 count,
                                            cc_u32 words, cc_u32 w, int split) {
    return cc_host_batch(keys, key_count, op_key, in, out, status, count, words, w, split);
}
