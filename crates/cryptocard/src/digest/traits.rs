//! The RustCrypto `digest` 0.11 traits for our hashers (feature `rustcrypto-traits`).
//!
//! Each hasher implements `HashMarker`, `OutputSizeUser`, `BlockSizeUser`, `Update`,
//! `FixedOutput`, `FixedOutputReset`, `Reset` and `AlgorithmName`; `Default` and `Clone`
//! it has already. The `digest` crate's blanket impls then give `Digest` and `DynDigest`,
//! so generic RustCrypto code (`fn f<D: Digest>`, `Box<dyn DynDigest>`) runs on our types.
//!
//! The block-level API (`digest::block_api`) is implemented too, with each hasher as its
//! own core: `UpdateCore` absorbs whole blocks, `FixedOutputCore` absorbs the caller's
//! partial block and finishes, `BufferKindUser` is `Eager`, and `CoreProxy` composes by
//! absorbing the buffer's bytes and decomposes into the hasher and an empty buffer (our
//! hasher keeps its partial block itself). That makes each hasher an `EagerHash`, which
//! is what `hmac::Hmac<D>` and `pbkdf2::pbkdf2_hmac::<D>` require.
//!
//! SHAKE128 and SHAKE256 implement the XOF side instead: `ExtendableOutput`,
//! `ExtendableOutputReset` and `CollisionResistance`, with `XofReader` on their readers.

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

        impl ::digest::block_api::BufferKindUser for $ty {
            type BufferKind = ::digest::block_api::Eager;
        }

        impl ::digest::block_api::UpdateCore for $ty {
            fn update_blocks(&mut self, blocks: &[::digest::block_api::Block<Self>]) {
                $ty::update(self, ::digest::array::Array::slice_as_flattened(blocks))
            }
        }

        impl ::digest::block_api::FixedOutputCore for $ty {
            fn finalize_fixed_core(
                &mut self,
                buffer: &mut ::digest::block_api::Buffer<Self>,
                out: &mut ::digest::Output<Self>,
            ) {
                $ty::update(self, buffer.get_data());
                buffer.reset();
                out.copy_from_slice(&$ty::finalize_reset(self));
            }
        }

        impl ::digest::block_api::CoreProxy for $ty {
            type Core = $ty;

            fn compose(mut core: $ty, buffer: ::digest::block_api::Buffer<$ty>) -> Self {
                $ty::update(&mut core, buffer.get_data());
                core
            }

            fn decompose(self) -> ($ty, ::digest::block_api::Buffer<$ty>) {
                (self, Default::default())
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

/// Implements the RustCrypto XOF traits for the SHAKE type `$ty` and its reader
/// `$reader`: `HashMarker`, `BlockSizeUser`, `Update`, `ExtendableOutput`,
/// `ExtendableOutputReset`, `Reset`, `CollisionResistance` (`$security` bytes) and
/// `AlgorithmName`; `XofReader` for the reader.
macro_rules! rustcrypto_xof_impls {
    ($ty:ident, $reader:ident, $block:expr, $security:ty, $name:expr) => {
        impl ::digest::HashMarker for $ty {}

        impl ::digest::common::BlockSizeUser for $ty {
            type BlockSize = ::digest::typenum::U<{ $block }>;
        }

        impl ::digest::Update for $ty {
            fn update(&mut self, data: &[u8]) {
                $ty::update(self, data)
            }
        }

        impl ::digest::ExtendableOutput for $ty {
            type Reader = $reader;

            fn finalize_xof(self) -> $reader {
                $ty::finalize_xof(self)
            }
        }

        impl ::digest::ExtendableOutputReset for $ty {
            fn finalize_xof_reset(&mut self) -> $reader {
                $ty::finalize_xof_reset(self)
            }
        }

        impl ::digest::Reset for $ty {
            fn reset(&mut self) {
                $ty::reset(self)
            }
        }

        impl ::digest::CollisionResistance for $ty {
            type CollisionResistance = $security;
        }

        impl ::digest::common::AlgorithmName for $ty {
            fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($name)
            }
        }

        impl ::digest::XofReader for $reader {
            fn read(&mut self, buffer: &mut [u8]) {
                $reader::read(self, buffer)
            }
        }
    };
}
pub(crate) use rustcrypto_xof_impls;
