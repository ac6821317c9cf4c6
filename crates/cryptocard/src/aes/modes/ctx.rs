//! The streaming AES context, the 16-byte-block twin of the DES [`crate::des::CipherCtx`]
//! (see its docs): [`AesCtx::update`] takes input in pieces of any size, [`AesCtx::finalize`]
//! adds or removes the PKCS#7 padding (ECB and CBC; 1 to 16 bytes), checked in constant
//! time on decryption (the buffering and padding are `des::modes::pending`, shared with
//! DES), with only [`Error::Decryption`] on
//! failure. Encrypting in pieces gives the same bytes as in one call.
//!
//! What leaks: the input and output lengths, never which padding byte was wrong.

use super::kernels;
use crate::aes::{Aes, Direction, Mode, Padding};
use crate::des::modes::pending::Pending;
use crate::{Error, Result};
use zeroize::Zeroize;

/// The block size in bytes.
const B: usize = 16;

/// An AES encryption or decryption in progress. Secrets (key schedule, chaining value,
/// keystream, buffered bytes) are zeroized on drop; `Debug` shows no secret.
pub struct AesCtx {
    cipher: Aes,
    mode: Mode,
    dir: Direction,
    padding: Padding,
    /// CBC's previous ciphertext, CFB's register, OFB's last output block, CTR's next
    /// counter block (big-endian).
    reg: [u8; B],
    /// The keystream block in use (CFB-128, OFB, CTR) and the position in it (`num`).
    ks: [u8; B],
    num: usize,
    /// Buffered input of ECB and CBC (at most one block).
    pending: Pending<B>,
}

impl core::fmt::Debug for AesCtx {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AesCtx")
            .field("bits", &(8 * self.cipher.key_len()))
            .field("mode", &self.mode)
            .field("direction", &self.dir)
            .field("padding", &self.padding)
            .finish_non_exhaustive()
    }
}

impl Drop for AesCtx {
    fn drop(&mut self) {
        self.reg.zeroize();
        self.ks.zeroize();
    }
}

impl AesCtx {
    /// A context for `mode` in direction `dir`. `iv` is empty for ECB and 16 bytes for
    /// every other mode (for CTR, the initial counter block; [`Mode::Cfb64`] is full-block
    /// feedback, CFB-128 here). `padding` applies to ECB and CBC. Errors:
    /// `InvalidArgument` for a wrong IV length.
    pub fn new(
        cipher: Aes,
        mode: Mode,
        dir: Direction,
        iv: &[u8],
        padding: Padding,
    ) -> Result<Self> {
        let reg = match (mode, iv.len()) {
            (Mode::Ecb, 0) => [0; B],
            (Mode::Ecb, _) => return Err(Error::InvalidArgument("ECB takes no IV")),
            (_, B) => iv.try_into().map_err(|_| Error::InvalidArgument("IV"))?,
            _ => return Err(Error::InvalidArgument("the IV of an AES mode is 16 bytes")),
        };
        let padding = if mode.is_block_mode() { padding } else { Padding::None };
        let pending = Pending::new(dir, padding);
        Ok(AesCtx { cipher, mode, dir, padding, reg, ks: [0; B], num: 0, pending })
    }

    /// The number of bytes the next [`AesCtx::update`] with `input_len` bytes of input
    /// writes (exactly). At most `input_len + 15`.
    pub fn update_len(&self, input_len: usize) -> usize {
        if !self.mode.is_block_mode() {
            return input_len;
        }
        self.pending.update_len(input_len)
    }

    /// Processes `input` and writes [`AesCtx::update_len`]`(input.len())` bytes to the
    /// front of `output`; returns that count. Errors: `InvalidArgument` if `output` is too
    /// short (nothing is consumed then).
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        let n_out = self.update_len(input.len());
        if output.len() < n_out {
            return Err(Error::InvalidArgument("output buffer too small for update"));
        }
        let output = &mut output[..n_out];
        match (self.mode, self.dir) {
            (Mode::Ecb | Mode::Cbc, _) => {
                let (c, mode, dir, reg) = (&self.cipher, self.mode, self.dir, &mut self.reg);
                self.pending.feed(input, output, |i, o| run_blocks(c, mode, dir, reg, i, o));
            }
            (Mode::Cfb8, Direction::Encrypt) => {
                kernels::cfb8_encrypt(&self.cipher, &mut self.reg, input, output)
            }
            (Mode::Cfb8, Direction::Decrypt) => {
                kernels::cfb8_decrypt(&self.cipher, &mut self.reg, input, output)
            }
            _ => self.update_stream(input, output),
        }
        Ok(n_out)
    }

    /// CFB-128, OFB and CTR: bytes up to the end of the current keystream block, whole
    /// blocks through the kernels, then the start of a new keystream block.
    fn update_stream(&mut self, input: &[u8], output: &mut [u8]) {
        let mut pos = 0;
        while self.num != 0 && pos < input.len() {
            output[pos] = self.stream_byte(input[pos]);
            pos += 1;
        }
        let bulk = (input.len() - pos) / B * B;
        let (c, mode, dir, reg) = (&self.cipher, self.mode, self.dir, &mut self.reg);
        run_blocks(c, mode, dir, reg, &input[pos..pos + bulk], &mut output[pos..pos + bulk]);
        pos += bulk;
        for (o, &x) in output[pos..].iter_mut().zip(&input[pos..]) {
            *o = self.stream_byte(x);
        }
    }

    /// One byte of CFB-128, OFB or CTR at keystream position `num`. A keystream block
    /// starts as `E(register)`, the counter advancing for CTR; at its end CFB's register
    /// becomes the ciphertext block just finished and OFB's the output block.
    #[inline]
    fn stream_byte(&mut self, x: u8) -> u8 {
        if self.num == 0 {
            self.ks = self.reg;
            self.cipher.encrypt_block(&mut self.ks);
            if self.mode == Mode::Ctr {
                self.reg = u128::from_be_bytes(self.reg).wrapping_add(1).to_be_bytes();
            }
        }
        let y = x ^ self.ks[self.num];
        if self.mode == Mode::Cfb64 {
            self.ks[self.num] = if self.dir == Direction::Encrypt { y } else { x };
        }
        self.num = (self.num + 1) % B;
        if self.num == 0 && self.mode != Mode::Ctr {
            self.reg = self.ks;
        }
        y
    }

    /// Finishes: for ECB and CBC with PKCS#7, encryption writes the padded last block (16
    /// bytes) and decryption checks and strips the padding (0 to 15 bytes); without
    /// padding nothing is written. Returns the number of bytes written; give it 16 bytes
    /// of room.
    ///
    /// Errors: `Decryption` for bad padding or a ciphertext that is not whole blocks
    /// (decryption with PKCS#7; no further detail), `InvalidArgument` for input that is
    /// not whole blocks without padding or an `output` shorter than needed.
    pub fn finalize(mut self, output: &mut [u8]) -> Result<usize> {
        if !self.mode.is_block_mode() {
            return Ok(0);
        }
        let (c, mode, dir, reg) = (&self.cipher, self.mode, self.dir, &mut self.reg);
        self.pending.finish(output, |i, o| run_blocks(c, mode, dir, reg, i, o))
    }
}

/// Whole blocks of `input` through the kernel of `mode` and `dir` into `output`.
fn run_blocks(
    c: &Aes,
    mode: Mode,
    dir: Direction,
    r: &mut [u8; B],
    input: &[u8],
    output: &mut [u8],
) {
    match (mode, dir) {
        (Mode::Ecb, Direction::Encrypt) => kernels::ecb::<false>(c, input, output),
        (Mode::Ecb, Direction::Decrypt) => kernels::ecb::<true>(c, input, output),
        (Mode::Cbc, Direction::Encrypt) => kernels::cbc_encrypt(c, r, input, output),
        (Mode::Cbc, Direction::Decrypt) => kernels::cbc_decrypt(c, r, input, output),
        (Mode::Cfb64, Direction::Encrypt) => kernels::cfb_encrypt(c, r, input, output),
        (Mode::Cfb64, Direction::Decrypt) => kernels::cfb_decrypt(c, r, input, output),
        (Mode::Ofb, _) => kernels::ofb(c, r, input, output),
        (Mode::Ctr, _) => kernels::ctr(c, r, input, output),
        (Mode::Cfb8, _) => unreachable!("internal error: CFB-8 has no block kernel"),
    }
}
