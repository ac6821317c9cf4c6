/*
 * host_batch.h: a batch on the host, as the device runs it: every operation whole
 * (cc_rsa_private_at, the cc_rsa_private kernel), or split in three passes over a
 * scratch (the cc_rsa_blind, cc_rsa_exp and cc_rsa_join kernels), one thread's body
 * after the other, with the rounding of fp64.cuh's products (host_shim.h). Included
 * after the kernel headers by gpu_host.c and gpu_host_sized.c. Returns 0, or -1 if the
 * scratch could not be allocated.
 */
#include <stdlib.h>
#include <string.h>

static int cc_host_batch_rz(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                         const cc_u32 *in, cc_u32 *out, cc_u32 *status, cc_u32 count,
                         cc_u32 words, cc_u32 w, int split) {
    cc_u32 i;
    if (!split) {
        for (i = 0; i < count; i++)
            cc_rsa_private_at(keys, key_count, op_key, in, out, status, count, words, w, i);
        return 0;
    }
    {
        /* two planes of words / 2 limbs per operation, as the driver allocates them */
        size_t n = (size_t)2 * (words / 2) * count;
        cc_u32 *mid = (cc_u32 *)calloc(n ? n : 1, sizeof(cc_u32));
        if (!mid) return -1;
        for (i = 0; i < count; i++)
            cc_rsa_blind_at(keys, key_count, op_key, in, mid, count, words, w, i);
        for (i = 0; i < 2 * count; i++)
            cc_rsa_exp_at(keys, key_count, op_key, mid, count, words, w, i);
        for (i = 0; i < count; i++)
            cc_rsa_join_at(keys, key_count, op_key, in, mid, out, status, count, words, w, i);
        memset(mid, 0, n * sizeof(cc_u32));
        free(mid);
        return 0;
    }
}

static int cc_host_batch(const cc_u64 *keys, cc_u32 key_count, const cc_u32 *op_key,
                         const cc_u32 *in, cc_u32 *out, cc_u32 *status, cc_u32 count,
                         cc_u32 words, cc_u32 w, int split) {
    int mode = cc_host_rz_begin();
    int rc = cc_host_batch_rz(keys, key_count, op_key, in, out, status, count, words, w, split);
    cc_host_rz_end(mode);
    return rc;
}
