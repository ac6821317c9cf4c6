//! Hazardous materials: the crate's internals, public for its own tests and benchmarks
//! and for experts who build on the kernels. With the non-default `hazmat` feature only.
//!
//! These are the building blocks under [`crate::bignum::Nat`] and
//! [`crate::modular::Modulus`]: limb-slice kernels with exact length and aliasing
//! contracts (which they check with assertions, so a wrong call panics), raw Montgomery
//! products on limb slices with no type to keep a residue apart from a plain number, and
//! the tuned window-size tables. Nothing here is covered by the crate's semver promise;
//! misuse gives wrong answers, not errors; the constant-time ones are constant time only
//! under the contracts in their docs. Use the typed API unless you are measuring or
//! testing a kernel. The workspace's benchmark crate (`crates/bench`) reaches the CPU
//! kernels through it too; those still need their CPU feature token, which only run-time
//! detection makes.
//!
//! ```
//! use cryptocard::hazmat::{add_n, sub_n};
//!
//! let (a, b) = ([u64::MAX, 1], [1, 2]);
//! let mut sum = [0u64; 2];
//! let carry = add_n(&mut sum, &a, &b);
//! assert_eq!((sum, carry), ([0, 4], 0));
//! let mut back = [0u64; 2];
//! assert_eq!(sub_n(&mut back, &sum, &b), 0);
//! assert_eq!(back, a);
//! ```

// Limb kernels and Montgomery helpers
pub use crate::bignum::add::{abs_diff, add_or_sub_assign, cnd_add_n, cnd_neg_assign, cnd_sub_n};
pub use crate::bignum::cmp::lt_n;
pub use crate::bignum::div::{Reciprocal, div_qr_normalized, divrem_1};
pub use crate::bignum::shift::{lshift, lshift_assign, rshift, rshift_assign};
pub use crate::limb::{
    WideLimb, adc, adc_bit, add_1, add_limb, add_n, bit_length, cmp_vartime, mac, sbb, sbb_bit,
    sub_1, sub_limb, sub_n,
};
pub use crate::modular::exp::{CT_WINDOW_5_MIN_BITS, CT_WINDOW_6_MIN_BITS, ct_window_bits};
pub use crate::modular::exp_vartime::{VARTIME_WINDOW_THRESHOLDS, vartime_window_bits};
pub use crate::modular::modulus::{neg_inv_limb, neg_inv_limb_dusse_kaliski};
pub use crate::modular::mont::{
    Finish, finish_almost, finish_full, mont_mul_raw, normalize, redc_raw,
};
pub use crate::modular::mont_sqr::{MAX_LIMBS, mont_sqr_raw};

// Kernels for crates/bench

/// CPU feature tokens: a value proves the instructions exist (made only by `detect`).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::cpu::{Adx, Avx2, Ifma};

/// The BMI2/ADX kernels: raw Montgomery products, basecase products, the linear passes.
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::adx::hazmat as adx;

/// The AVX-512 IFMA kernels in radix 2^52 (x2, mb8, product scanning, Karatsuba).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::ifma::hazmat as ifma;

/// The four-lane AVX2 kernels in radix 2^28 (the batch unit of CPUs without IFMA).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::mb4::hazmat as mb4;

/// The benchmarks' CPU probes: the TSC and chains of known length.
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::clock;

/// The AVX2 constant-time table scan (`ct::select_from_table`'s vector twin).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::select::select_from_table as select_from_table_avx2;

/// The multiplication recursion (Karatsuba, Toom-3, Toom-4) over a basecase kernel.
pub mod mul {
    /// The BMI2/ADX basecase adapter and its thresholds (x86-64).
    #[cfg(target_arch = "x86_64")]
    pub use crate::bignum::mul::adx::{AdxBasecase, THRESHOLDS as ADX_BASECASE_THRESHOLDS};
    pub use crate::bignum::mul::linear::abs_diff;
    pub use crate::bignum::mul::{Basecase, Multiplier, Portable, Thresholds, thresholds};
}

/// The batched products modulo n of the RSA private operations (blinding, unblinding).
pub use crate::rsa::product_jobs::ProductJobs;

/// The GPU backend's data layout (`rsa/accel/gpu/layout.rs`): a key's device image and
/// the constants of the kernel's batch format, for the tests that run the kernel source
/// built for the host (`crates/gpu-host`) and on a device.
pub mod gpu {
    use crate::rsa::RsaPrivateKey;
    pub use crate::rsa::accel::gpu::layout::{
        CHUNK, FAULT_BIT_WORD, FAULT_GARNER, FAULT_MP, FAULT_MQ, FAULT_PHASE_WORD, FAULT_UNBLIND,
        IN_PLANES, KEY_HDR, KEY_MAGIC, OUT_PLANES, PRIME_MAX, STATUS_BAD_INPUT, STATUS_BAD_KEY,
        STATUS_FAULT, STATUS_OK, WINDOW, WINDOW_MAX, key_words,
    };

    /// The key's device image (the words `kernel/rsa_op.cuh` documents), or `None` for a
    /// key that runs on the CPU (multi-prime, primes of unequal length, over 4096 bits).
    /// Holds the key's secrets: wipe it.
    pub fn key_image(key: &RsaPrivateKey) -> Option<zeroize::Zeroizing<Vec<u32>>> {
        crate::rsa::accel::gpu::layout::key_image(&key.crt, &key.public.n, &key.public.e)
    }

    /// The kernel on the device for raw images and planes, as `crates/gpu-host`'s
    /// `rsa_private` runs it on the host (the same arguments: images, each operation's
    /// key index, the interleaved input planes of `words` limbs, window
    /// [`WINDOW`]): the output planes and the status words. Uploads the images for this
    /// call only. [`crate::Error::Unsupported`] without a usable GPU.
    #[cfg(feature = "gpu")]
    pub fn device_run(
        images: &[&[u32]],
        op_key: &[u32],
        input: &[u32],
        words: usize,
    ) -> crate::Result<(Vec<u32>, Vec<u32>)> {
        use crate::rsa::accel::gpu::{driver, layout};
        let count = op_key.len();
        if words > 2 * PRIME_MAX || input.len() != IN_PLANES * words * count {
            return Err(crate::Error::InvalidArgument("planes of the wrong length"));
        }
        for img in images {
            let l = img.get(1).map_or(0, |&l| l as usize);
            if img.len() < KEY_HDR || ((1..=PRIME_MAX).contains(&l) && img.len() < key_words(l)) {
                return Err(crate::Error::InvalidArgument(
                    "key image shorter than its header says",
                ));
            }
        }
        let device = driver::device()?;
        let keys = images.iter().map(|i| device.upload(i)).collect::<crate::Result<Vec<_>>>()?;
        let refs: Vec<&driver::DeviceKey> = keys.iter().collect();
        let planes = layout::Planes::from_vec(words, count, input.to_vec());
        let (out, status) = device.run(&refs, op_key, &planes)?;
        Ok((out.buf.to_vec(), status))
    }

    /// [`crate::rsa::private_batch`] as it runs a GPU batch, with a stand-in device
    /// that answers each operation with its input (so m = c: no result is a real
    /// signature or plaintext, and each blinding pair comes back unchanged) after
    /// `per_op` an operation, as a device of that rate would. With `per_op` zero: what
    /// the host's side of a batch costs (the schemes' encoding, the pairs, the planes,
    /// the decoding), the end-to-end ceiling the host sets for a device; with a
    /// device's time, how much of the host's work overlaps the device's. A request
    /// whose key the kernel does not take fails with [`crate::Error::Unsupported`].
    /// A batch of two `chunk`s or more runs as a pipeline of chunks, as a GPU batch
    /// does with its tuning's chunk ([`CHUNK`] by default).
    pub fn private_batch_stand_in(
        requests: &[(&RsaPrivateKey, &crate::rsa::PrivateRequest)],
        rng: &mut dyn crate::rng::RandomSource,
        per_op: core::time::Duration,
        chunk: usize,
    ) -> Vec<crate::Result<Vec<u8>>> {
        crate::rsa::batch::private_batch_on_stand_in(requests, rng, per_op, chunk)
    }

    /// The device in one line, or why there is none.
    #[cfg(feature = "gpu")]
    pub use crate::rsa::gpu_status;
}
