/*
 * kernel.cu: the device entry points, compiled by NVRTC after prelude.cuh, arith.cuh,
 * exp.cuh and rsa_op.cuh (rsa/accel/gpu/source.rs puts them in one string).
 *
 * cc_rsa_private runs each operation whole, one thread per operation. The split form
 * runs the same operation as three kernels over a scratch `mid` (rsa_op.cuh):
 * cc_rsa_blind (one thread per operation), cc_rsa_exp (two, one per prime) and
 * cc_rsa_join (one). A kernel's registers are the most any of its paths needs, so the
 * exponentiations, nearly all the work, then do not carry the registers of the code at
 * n's length, and twice as many threads share a batch.
 */
/* Every entry point takes the same parameters (the whole kernel ignores `mid`), so that
 * the driver launches each the same way. */
#define CC_ENTRY_PARAMS                                                                      \
    const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key, const cc_u32 *in, cc_u32 *mid, \
        cc_u32 *out, cc_u32 *status, cc_u32 count, cc_u32 words, cc_u32 w

extern "C" __global__ void cc_rsa_private(CC_ENTRY_PARAMS) {
    cc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)mid;
    if (i < count) cc_rsa_private_at(keys, key_count, op_key, in, out, status, count, words, w, i);
}

extern "C" __global__ void cc_rsa_blind(CC_ENTRY_PARAMS) {
    cc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)out;
    (void)status;
    if (i < count) cc_rsa_blind_at(keys, key_count, op_key, in, mid, count, words, w, i);
}

extern "C" __global__ void cc_rsa_exp(CC_ENTRY_PARAMS) {
    cc_u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    (void)in;
    (void)out;
    (void)status;
    if (t < 2 * count) cc_rsa_exp_at(keys, key_count, op_key, mid, count, words, w, t);
}

extern "C" __global__ void cc_rsa_join(CC_ENTRY_PARAMS) {
    cc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        cc_rsa_join_at(keys, key_count, op_key, in, mid, out, status, count, words, w, i);
}
