/*
 * kernel.cu: the device entry point, compiled by NVRTC after prelude.cuh, arith.cuh,
 * exp.cuh and rsa_op.cuh (rsa/accel/gpu/source.rs puts them in one string). One thread
 * per operation.
 */
extern "C" __global__ void cc_rsa_private(const cc_u64 *keys, cc_u32 key_count,
                                          const cc_u32 *op_key, const cc_u32 *in, cc_u32 *out,
                                          cc_u32 *status, cc_u32 count, cc_u32 words,
                                          cc_u32 w) {
    cc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) cc_rsa_private_at(keys, key_count, op_key, in, out, status, count, words, w, i);
}
