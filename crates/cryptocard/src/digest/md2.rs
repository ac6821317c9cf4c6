//! MD2 (RFC 1319), the digest of the Dusse-Kaliski DSP56000 library.
//!
//! **Legacy.** MD2 is broken: preimages in about 2^73 work (Knudsen, Mathiassen, Muller
//! and Thomsen, 2009) and collisions of the compression function (Rogier and Chauvaud,
//! 1997); RFC 6149 moved it to Historic. It is here to verify old signatures and
//! certificates (PKCS#1 `md2WithRSAEncryption`), never for new designs. It is not
//! constant-time: its S-box is indexed by the data, so what it hashes can leak through the
//! cache.
//!
//! The algorithm (RFC 1319 section 3): pad with `i` bytes of value `i` to a multiple of
//! 16 bytes (3.1); compute a 16-byte checksum `C[j] ^= S[M[j] ^ L]; L = C[j]` over the
//! blocks and append it (3.2, with the erratum: the RFC's text says "set" where its
//! reference code XORs); then process each 16-byte block into the 48-byte state
//! `X = H | M | H ^ M` by 18 rounds of 48 steps `t = X[k] ^= S[t]`, `t += round` (3.4).
//! The digest is `X[0..16]`. `S` is a permutation of 0..=255 built from the digits of π.
//!
//! Dusse and Kaliski ran it at 190 Kbit/s on the 20 MHz DSP56000 (about 840 cycles per
//! byte), twice their PC software.
//!
//! Speed: the 864 steps of a block are one dependency chain through `t`: a byte load
//! `S[t]` then an XOR. The code keeps `t` a full-width integer (so the load indexes with
//! no zero-extension), loads `X[k]` off the chain and XORs the two, so each step costs
//! one L1 load-to-use plus one ALU latency; the checksum, an independent chain, overlaps
//! it. That puts it ahead of nettle's and RustCrypto's `md2` (the `md2` row of
//! `docs/performance.md`).

use super::buffer::{BlockBuffer, BlockCompress};

/// MD2 block size in bytes (RFC 1319 section 3.1).
pub const MD2_BLOCK_LEN: usize = 16;
/// MD2 digest size in bytes (RFC 1319 section 3.5).
pub const MD2_OUTPUT_LEN: usize = 16;
/// The rounds of the block transform (RFC 1319 section 3.4).
const ROUNDS: usize = 18;
/// The state X: the chaining value, the block, and their XOR (RFC 1319 section 3.3).
const STATE_LEN: usize = 3 * MD2_BLOCK_LEN;

/// The "random" permutation of 0..=255 built from the digits of π (RFC 1319 section 3.2).
const S: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// The MD2 state: the chaining value `X[0..16]` and the running checksum.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Md2Core {
    x: [u8; MD2_BLOCK_LEN],
    checksum: [u8; MD2_BLOCK_LEN],
}

impl BlockCompress<MD2_BLOCK_LEN> for Md2Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; MD2_BLOCK_LEN]]) {
        for block in blocks {
            update_checksum(&mut self.checksum, block);
            transform(&mut self.x, block);
        }
    }
}

/// The checksum step of RFC 1319 section 3.2 for one block.
#[inline(always)]
fn update_checksum(checksum: &mut [u8; MD2_BLOCK_LEN], block: &[u8; MD2_BLOCK_LEN]) {
    let mut l = checksum[MD2_BLOCK_LEN - 1] as usize;
    for (c, &m) in checksum.iter_mut().zip(block) {
        l = (*c ^ S[m as usize ^ l]) as usize;
        *c = l as u8;
    }
}

/// The block transform of RFC 1319 section 3.4: `h` becomes `X[0..16]` after 18 rounds
/// over `X = h | m | h ^ m`.
///
/// `X` is held as 32-bit words, each below 256, and `t` as a full-width integer: each
/// step is then a byte load `S[t]` and a 32-bit XOR with `X[k]` (loaded off the chain),
/// with no zero-extension between the XOR and the next load, which LLVM inserts when the
/// state is bytes (one more cycle on each of the 864 dependent steps).
#[inline(always)]
fn transform(h: &mut [u8; MD2_BLOCK_LEN], m: &[u8; MD2_BLOCK_LEN]) {
    let mut x = [0u32; STATE_LEN];
    for j in 0..MD2_BLOCK_LEN {
        x[j] = u32::from(h[j]);
        x[MD2_BLOCK_LEN + j] = u32::from(m[j]);
        x[2 * MD2_BLOCK_LEN + j] = u32::from(h[j] ^ m[j]);
    }
    // Below 256 throughout: a byte XOR a byte; the round sum is reduced mod 256.
    let mut t = 0u32;
    for round in 0..ROUNDS as u32 {
        for xk in x.iter_mut() {
            t = *xk ^ u32::from(S[t as usize]);
            *xk = t;
        }
        t = (t + round) & 0xff;
    }
    for (hj, xj) in h.iter_mut().zip(&x[..MD2_BLOCK_LEN]) {
        // Each word is below 256.
        *hj = *xj as u8;
    }
}

/// MD2 hasher (RFC 1319). **Legacy** and not constant-time: see the module docs.
#[derive(Clone)]
pub struct Md2 {
    core: Md2Core,
    buffer: BlockBuffer<MD2_BLOCK_LEN>,
}

impl Md2 {
    /// A hasher at the initial state (all-zero chaining value and checksum).
    pub fn new() -> Self {
        Md2 {
            core: Md2Core { x: [0; MD2_BLOCK_LEN], checksum: [0; MD2_BLOCK_LEN] },
            buffer: BlockBuffer::new(),
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.buffer.update(&mut self.core, data);
    }

    /// The digest of everything absorbed so far; the hasher starts over.
    pub fn finalize_reset(&mut self) -> [u8; MD2_OUTPUT_LEN] {
        let last = self.buffer.take_padded_md2();
        self.core.compress(core::slice::from_ref(&last));
        // The checksum is appended as one more block (section 3.2 end); it is not
        // itself checksummed, so only the transform runs.
        let checksum = self.core.checksum;
        transform(&mut self.core.x, &checksum);
        let out = self.core.x;
        self.reset();
        out
    }

    /// Returns to the initial state, overwriting the old one.
    pub fn reset(&mut self) {
        self.core = Md2Core { x: [0; MD2_BLOCK_LEN], checksum: [0; MD2_BLOCK_LEN] };
        self.buffer.clear();
    }

    /// A hasher at the initial state; MD2 has one implementation, whatever `kernels`.
    pub fn with_kernels(_backend: super::Kernels) -> Self {
        Md2::new()
    }

    /// Always false: MD2 has no accelerated kernel (its speed is one load and one XOR
    /// per step of a serial chain).
    pub fn is_accelerated(&self) -> bool {
        false
    }
}

super::hasher_common!(Md2, Md2, MD2_BLOCK_LEN, MD2_OUTPUT_LEN, "MD2");
