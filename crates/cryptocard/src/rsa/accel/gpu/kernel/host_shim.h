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

#endif
