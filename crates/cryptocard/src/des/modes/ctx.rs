//! The streaming encryption/decryption context, shaped like OpenSSL's EVP cipher API:
//! [`CipherCtx::update`] takes input in pieces of any size and writes what it can,
//! [`CipherCtx::finalize`] adds or removes the padding. Encrypting in pieces gives the same
//! bytes as in one call: partial blocks are buffered, and the stream modes keep their
//! keystream position (OpenSSL's `num`) across calls.
//!
//! Padding (ECB and CBC only): PKCS#7 (RFC 5652 section 6.3; 1 to 8 bytes of value n) or
//! none. Without padding, input whose total length is not a multiple of 8 is an error at
//! finalize. With padding, decryption holds back the last block until finalize, then
//! checks the padding in constant time and on failure returns only [`Error::Decryption`]:
//! no padding oracle (Vaudenay, EUROCRYPT 2002).
//!
//! The buffering and padding live in `pending`, generic over the block size and shared
//! with the AES context.
//!
//! What leaks: the input and output lengths (the plaintext length is the output), never
//! which padding byte was wrong.

use super::kernels;
use super::pending::Pending;
use super::{Direction, Mode, Padding};
use crate::des::BlockCipher64;
use crate::{Error, Result};
use zeroize::Zeroize;

/// An encryption or decryption in progress: cipher, mode, chaining state and buffered
/// bytes. Secrets (key schedule, chaining value, buffered plaintext) are zeroized on drop.
pub struct CipherCtx<C: BlockCipher64> {
    cipher: C,
    mode: Mode,
    dir: Direction,
    padding: Padding,
    /// The chaining value: CBC's previous ciphertext, CFB's register, OFB's last output
    /// block, CTR's next counter block (big-endian).
    reg: u64,
    /// The keystream block in use (CFB-64, OFB, CTR) and the position in it.
    ks: [u8; 8],
    num: usize,
    /// Buffered input of ECB and CBC (at most one block).
    pending: Pending<8>,
}

impl<C: BlockCipher64> core::fmt::Debug for CipherCtx<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CipherCtx")
            .field("cipher", &C::NAME)
            .field("mode", &self.mode)
            .field("direction", &self.dir)
            .field("padding", &self.padding)
            .finish_non_exhaustive()
    }
}

impl<C: BlockCipher64> Drop for CipherCtx<C> {
    fn drop(&mut self) {
        self.reg.zeroize();
        self.ks.zeroize();
    }
}

impl<C: BlockCipher64> CipherCtx<C> {
    /// A context for `mode` in direction `dir`. `iv` is empty for ECB and 8 bytes for every
    /// other mode (for CTR, the initial counter block). `padding` applies to ECB and CBC;
    /// the stream modes ignore it. Errors: `InvalidArgument` for a wrong IV length.
    pub fn new(cipher: C, mode: Mode, dir: Direction, iv: &[u8], padding: Padding) -> Result<Self> {
        let reg = match (mode, iv.len()) {
            (Mode::Ecb, 0) => 0,
            (Mode::Ecb, _) => return Err(Error::InvalidArgument("ECB takes no IV")),
            (_, 8) => u64::from_be_bytes(iv.try_into().map_err(|_| Error::InvalidArgument("IV"))?),
            _ => return Err(Error::InvalidArgument("the IV of a DES mode is 8 bytes")),
        };
        let padding = if mode.is_block_mode() { padding } else { Padding::None };
        Ok(CipherCtx {
            cipher,
            mode,
            dir,
            padding,
            reg,
            ks: [0; 8],
            num: 0,
            pending: Pending::new(dir, padding),
        })
    }

    /// An encryption context; see [`CipherCtx::new`].
    pub fn encryptor(cipher: C, mode: Mode, iv: &[u8], padding: Padding) -> Result<Self> {
        Self::new(cipher, mode, Direction::Encrypt, iv, padding)
    }

    /// A decryption context; see [`CipherCtx::new`].
    pub fn decryptor(cipher: C, mode: Mode, iv: &[u8], padding: Padding) -> Result<Self> {
        Self::new(cipher, mode, Direction::Decrypt, iv, padding)
    }

    /// The number of bytes the next [`CipherCtx::update`] with `input_len` bytes of input
    /// writes (exactly). At most `input_len + 7`.
    pub fn update_len(&self, input_len: usize) -> usize {
        if !self.mode.is_block_mode() {
            return input_len;
        }
        self.pending.update_len(input_len)
    }

    /// Processes `input` and writes [`CipherCtx::update_len`]`(input.len())` bytes to the
    /// front of `output`; returns that count. Errors: `InvalidArgument` if `output` is too
    /// short (nothing is consumed then).
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        let n_out = self.update_len(input.len());
        if output.len() < n_out {
            return Err(Error::InvalidArgument("output buffer too small for update"));
        }
        let output = &mut output[..n_out];
        if self.mode.is_block_mode() {
            let (c, mode, dir, reg) = (&self.cipher, self.mode, self.dir, &mut self.reg);
            self.pending.feed(input, output, |i, o| run_blocks(c, mode, dir, reg, i, o));
        } else if self.mode == Mode::Cfb8 {
            self.update_cfb8(input, output);
        } else {
            self.update_stream(input, output);
        }
        Ok(n_out)
    }

    /// CFB-64, OFB and CTR: bytes up to the end of the current keystream block, then whole
    /// blocks through the kernels, then the start of a new keystream block.
    fn update_stream(&mut self, input: &[u8], output: &mut [u8]) {
        let mut pos = 0;
        while self.num != 0 && pos < input.len() {
            output[pos] = self.stream_byte(input[pos]);
            pos += 1;
        }
        // Here num == 0, or the input is used up and bulk is 0.
        let bulk = (input.len() - pos) / 8 * 8;
        let (c, mode, dir, reg) = (&self.cipher, self.mode, self.dir, &mut self.reg);
        run_blocks(c, mode, dir, reg, &input[pos..pos + bulk], &mut output[pos..pos + bulk]);
        pos += bulk;
        for (o, &x) in output[pos..].iter_mut().zip(&input[pos..]) {
            *o = self.stream_byte(x);
        }
    }

    /// One byte of CFB-64, OFB or CTR at keystream position `num`.
    #[inline]
    fn stream_byte(&mut self, x: u8) -> u8 {
        if self.num == 0 {
            self.next_keystream();
        }
        let y = x ^ self.ks[self.num];
        if self.mode == Mode::Cfb64 {
            // The register collects the ciphertext bytes as they appear.
            self.ks[self.num] = if self.dir == Direction::Encrypt { y } else { x };
        }
        self.num = (self.num + 1) % 8;
        if self.num == 0 {
            self.end_keystream();
        }
        y
    }

    /// Starts a keystream block: `E(register)` for CFB-64 and OFB, `E(counter)` for CTR.
    fn next_keystream(&mut self) {
        self.ks = self.cipher.encrypt_u64(self.reg).to_be_bytes();
        if self.mode == Mode::Ctr {
            self.reg = self.reg.wrapping_add(1);
        }
    }

    /// Ends a keystream block: CFB-64's register becomes the ciphertext block just
    /// finished, OFB's the output block; CTR already advanced.
    fn end_keystream(&mut self) {
        if self.mode != Mode::Ctr {
            self.reg = u64::from_be_bytes(self.ks);
        }
    }

    /// CFB-8 (SP 800-38A 6.3, s = 8): one block encryption per byte, the register shifted
    /// left by a byte and the ciphertext byte shifted in. Encryption is serial (the
    /// register takes each new ciphertext byte); decryption runs several bytes at once.
    fn update_cfb8(&mut self, input: &[u8], output: &mut [u8]) {
        if self.dir == Direction::Decrypt {
            kernels::cfb8_decrypt(&self.cipher, &mut self.reg, input, output);
            return;
        }
        for (o, &x) in output.iter_mut().zip(input) {
            *o = x ^ (self.cipher.encrypt_u64(self.reg) >> 56) as u8;
            self.reg = (self.reg << 8) | *o as u64;
        }
    }

    /// Finishes: for ECB and CBC with PKCS#7, encryption writes the padded last block (8
    /// bytes) and decryption checks and strips the padding (0 to 7 bytes); without padding
    /// nothing is written. Returns the number of bytes written; give it 8 bytes of room.
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
fn run_blocks<C: BlockCipher64>(
    c: &C,
    mode: Mode,
    dir: Direction,
    reg: &mut u64,
    input: &[u8],
    output: &mut [u8],
) {
    match (mode, dir) {
        (Mode::Ecb, Direction::Encrypt) => kernels::ecb::<C, false>(c, input, output),
        (Mode::Ecb, Direction::Decrypt) => kernels::ecb::<C, true>(c, input, output),
        (Mode::Cbc, Direction::Encrypt) => kernels::cbc_encrypt(c, reg, input, output),
        (Mode::Cbc, Direction::Decrypt) => kernels::cbc_decrypt(c, reg, input, output),
        (Mode::Cfb64, Direction::Encrypt) => kernels::cfb64_encrypt(c, reg, input, output),
        (Mode::Cfb64, Direction::Decrypt) => kernels::cfb64_decrypt(c, reg, input, output),
        (Mode::Ofb, _) => kernels::ofb(c, reg, input, output),
        (Mode::Ctr, _) => kernels::ctr(c, reg, input, output),
        (Mode::Cfb8, _) => unreachable!("internal error: CFB-8 has no block kernel"),
    }
}
