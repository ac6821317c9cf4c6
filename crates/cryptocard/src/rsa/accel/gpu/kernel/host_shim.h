/*
 * host_shim.h: lets the kernel source (prelude.cuh, arith.cuh, exp.cuh, rsa_op.cuh)
 * compile as plain C on the host, for the tests that check the device arithmetic
 * without a GPU (crates/gpu-host). Include it first, then the kernel headers in the
 * order of cryptocard's `KERNEL_SOURCE` (rsa/accel/gpu/source.rs).
 *
 * NVRTC never sees this file: there the CUDA qualifiers are keywords, and the PTX
 * carry chains of arith.cuh (behind __CUDA_ARCH__) replace the 64-bit products that
 * the host computes. Both give the same words.
 */
#ifndef CC_HOST_SHIM_H
#define CC_HOST_SHIM_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#error "host_shim.h is for the host C compiler only"
#endif

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__

/*
 * fp64.cuh's device intrinsics. The device's __fma_rz rounds toward zero by itself;
 * here it is C's fma (correctly rounded in the current mode), and every host entry
 * point runs its kernel code between cc_host_rz_begin and cc_host_rz_end, which set
 * and restore FE_TOWARDZERO. The kernel's other double operations are exact, so the
 * mode changes nothing else.
 */
#include <fenv.h>
#include <math.h>
#include <string.h>

static inline long long __double_as_longlong(double x) {
    long long v;
    memcpy(&v, &x, sizeof v);
    return v;
}
static inline double __longlong_as_double(long long v) {
    double x;
    memcpy(&x, &v, sizeof x);
    return x;
}
#define __fma_rz(a, b, c) fma((a), (b), (c))

static inline int cc_host_rz_begin(void) {
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    return old;
}
static inline void cc_host_rz_end(int old) { fesetround(old); }

#endif
