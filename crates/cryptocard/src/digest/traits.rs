//! The RustCrypto `digest` 0.11 traits for our hashers (feature `rustcrypto-traits`).
//!
//! Each hasher implements `HashMarker`, `OutputSizeUser`, `BlockSizeUser`, `Update`,
//! `FixedOutput`, `FixedOutputReset`, `Reset` and `AlgorithmName`; `Default` and `Clone`
//! it has already. The `digest` crate's blanket impls then give `Digest` and `DynDigest`,
//! so generic RustCrypto code (`fn f<D: Digest>`, `Box<dyn DynDigest>`, `hmac::SimpleHmac`)
//! can run on our types. The block-level `block_api` (`CoreProxy`, the `EagerHash` that
//! `hmac::Hmac` wants) is not implemented: our hashers keep their own buffer.

/// Implements the RustCrypto traits for `$ty`, whose inherent `update`,
/// `finalize_reset` and `reset` do the work.
macro_rules! rustcrypto_impls {
    ($ty:ident, $block:expr, $out:expr, $name:expr) => {
        impl ::digest::HashMarker for $ty {}

        impl ::digest::OutputSizeUser for $ty {
            type OutputSize = ::digest::typenum::U<{ $out }>;
        }

        impl ::digest::common::BlockSizeUser for $ty {
            type BlockSize = ::digest::typenum::U<{ $block }>;
        }

        impl ::digest::Update for $ty {
            fn update(&mut self, data: &[u8]) {
                $ty::update(self, data)
            }
        }

        impl ::digest::FixedOutput for $ty {
            fn finalize_into(mut self, out: &mut ::digest::Output<Self>) {
                out.copy_from_slice(&$ty::finalize_reset(&mut self));
            }
        }

        impl ::digest::FixedOutputReset for $ty {
            fn finalize_into_reset(&mut self, out: &mut ::digest::Output<Self>) {
                out.copy_from_slice(&$ty::finalize_reset(self));
            }
        }

        impl ::digest::Reset for $ty {
            fn reset(&mut self) {
                $ty::reset(self)
            }
        }

        impl ::digest::common::AlgorithmName for $ty {
            fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($name)
            }
        }
    };
}
pub(crate) use rustcrypto_impls;
