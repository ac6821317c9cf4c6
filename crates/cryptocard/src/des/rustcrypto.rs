//! The RustCrypto `cipher` 0.5 block-cipher traits for [`Des`], [`TdesEde2`] and
//! [`TdesEde3`] (feature `rustcrypto-traits`): `KeyInit`, `BlockCipherEncrypt`,
//! `BlockCipherDecrypt` and `AlgorithmName`, so the types plug into RustCrypto's mode
//! crates (`cbc`, `ctr`, ...). The backends process three blocks at a time
//! (`ParBlocksSize = U3`), interleaved as in this crate's own ECB.

use super::cipher::BlockCipher64;
use super::feistel::{fp_contract, ip_expand};
use super::{Des, TdesEde2, TdesEde3};
use cipher::consts::{U3, U8, U16, U24};
use cipher::{
    AlgorithmName, Array, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut, Key,
    KeyInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
};

/// A borrowed cipher as an encryption or decryption backend.
struct BorrowedCipher<'a, C>(&'a C);

impl<C> BlockSizeUser for BorrowedCipher<'_, C> {
    type BlockSize = U8;
}

impl<C> ParBlocksSizeUser for BorrowedCipher<'_, C> {
    type ParBlocksSize = U3;
}

fn load(block: &InOut<'_, '_, Array<u8, U8>>) -> u64 {
    u64::from_be_bytes(block.clone_in().into())
}

fn store(mut block: InOut<'_, '_, Array<u8, U8>>, v: u64) {
    *block.get_out() = v.to_be_bytes().into();
}

/// Both directions on three blocks, interleaved: `DEC` picks decryption.
fn par<C: BlockCipher64, const DEC: bool>(
    c: &C,
    mut blocks: InOut<'_, '_, ParBlocks<BorrowedCipher<'_, C>>>,
) {
    let mut s = [0, 1, 2].map(|i| ip_expand(load(&blocks.get(i))));
    if DEC {
        c.decrypt_inner_par(&mut s)
    } else {
        c.encrypt_inner_par(&mut s)
    }
    for (i, h) in s.iter().enumerate() {
        store(blocks.get(i), fp_contract(*h));
    }
}

impl<C: BlockCipher64> BlockCipherEncBackend for BorrowedCipher<'_, C> {
    #[inline]
    fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        let v = self.0.encrypt_u64(load(&block));
        store(block, v);
    }

    #[inline]
    fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        par::<C, false>(self.0, blocks);
    }
}

impl<C: BlockCipher64> BlockCipherDecBackend for BorrowedCipher<'_, C> {
    #[inline]
    fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        let v = self.0.decrypt_u64(load(&block));
        store(block, v);
    }

    #[inline]
    fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        par::<C, true>(self.0, blocks);
    }
}

macro_rules! rustcrypto_cipher {
    ($ty:ty, $key_size:ty, $name:literal) => {
        impl BlockSizeUser for $ty {
            type BlockSize = U8;
        }

        impl KeySizeUser for $ty {
            type KeySize = $key_size;
        }

        impl KeyInit for $ty {
            /// Parity bits are ignored and weak keys accepted, as in `from_key`.
            fn new(key: &Key<Self>) -> Self {
                <$ty>::from_key(&key.clone().into())
            }
        }

        impl BlockCipherEncrypt for $ty {
            fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U8>) {
                f.call(&BorrowedCipher(self))
            }
        }

        impl BlockCipherDecrypt for $ty {
            fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U8>) {
                f.call(&BorrowedCipher(self))
            }
        }

        impl AlgorithmName for $ty {
            fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($name)
            }
        }
    };
}

rustcrypto_cipher!(Des, U8, "Des");
rustcrypto_cipher!(TdesEde2, U16, "TdesEde2");
rustcrypto_cipher!(TdesEde3, U24, "TdesEde3");
