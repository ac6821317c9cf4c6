//! The buffering of ECB and CBC that the DES and AES contexts share, generic over the
//! block size `B` (8 for DES and triple-DES, 16 for AES): input that does not fill a block
//! waits for the next `update`; decryption with PKCS#7 holds back the last whole block for
//! `finalize`, which pads (encryption) or checks and strips the padding in constant time
//! (decryption; RFC 5652 section 6.3, 1 to `B` bytes of value n). The cipher itself is a
//! closure that runs whole blocks in the context's mode, so this file knows no cipher.

use super::{Direction, Padding};
use crate::{Error, Result, ct};
use zeroize::Zeroize;

/// At most one block of input waiting for the rest of its block or for `finalize`.
/// Zeroized on drop.
pub(crate) struct Pending<const B: usize> {
    buf: [u8; B],
    len: usize,
    dir: Direction,
    padding: Padding,
}

impl<const B: usize> Drop for Pending<B> {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

impl<const B: usize> Pending<B> {
    pub(crate) fn new(dir: Direction, padding: Padding) -> Self {
        Pending { buf: [0; B], len: 0, dir, padding }
    }

    /// The exact number of bytes [`Pending::feed`] writes for `input_len` more bytes:
    /// the whole blocks available, less one held back when decrypting with PKCS#7.
    pub(crate) fn update_len(&self, input_len: usize) -> usize {
        let total = self.len.saturating_add(input_len);
        let hold_back = self.dir == Direction::Decrypt && self.padding == Padding::Pkcs7;
        if hold_back { total.saturating_sub(1) / B * B } else { total / B * B }
    }

    /// Fills the buffered block, runs whole blocks straight from `input` through `run`,
    /// and buffers the rest. `output.len()` must be `update_len(input.len())`.
    pub(crate) fn feed(
        &mut self,
        mut input: &[u8],
        output: &mut [u8],
        mut run: impl FnMut(&[u8], &mut [u8]),
    ) {
        let mut out_pos = 0;
        if self.len > 0 && !output.is_empty() {
            let take = B - self.len;
            self.buf[self.len..].copy_from_slice(&input[..take]);
            input = &input[take..];
            run(&self.buf, &mut output[..B]);
            self.len = 0;
            out_pos = B;
        }
        let bulk = output.len() - out_pos;
        run(&input[..bulk], &mut output[out_pos..]);
        let rest = &input[bulk..];
        if !rest.is_empty() {
            self.buf[self.len..self.len + rest.len()].copy_from_slice(rest);
            self.len += rest.len();
        }
    }

    /// Finishes: with PKCS#7, encryption writes the padded last block (`B` bytes) and
    /// decryption checks and strips the padding (0 to `B - 1` bytes); without padding
    /// nothing is written. Returns the number of bytes written.
    ///
    /// Errors: `Decryption` for bad padding or a ciphertext that is not whole blocks
    /// (decryption with PKCS#7; no further detail), `InvalidArgument` for input that is not
    /// whole blocks without padding or an `output` shorter than `B`.
    pub(crate) fn finish(
        &mut self,
        output: &mut [u8],
        mut run: impl FnMut(&[u8], &mut [u8]),
    ) -> Result<usize> {
        match (self.padding, self.dir) {
            (Padding::None, _) if self.len == 0 => Ok(0),
            (Padding::None, _) if B == 8 => {
                Err(Error::InvalidArgument("input is not a multiple of 8 bytes"))
            }
            (Padding::None, _) => {
                Err(Error::InvalidArgument("input is not a multiple of 16 bytes"))
            }
            _ if output.len() < B => {
                Err(Error::InvalidArgument("finalize needs a block of output"))
            }
            (Padding::Pkcs7, Direction::Encrypt) => {
                let pad = (B - self.len) as u8;
                self.buf[self.len..].fill(pad);
                run(&self.buf, &mut output[..B]);
                Ok(B)
            }
            (Padding::Pkcs7, Direction::Decrypt) => {
                if self.len != B {
                    return Err(Error::Decryption);
                }
                let mut block = [0u8; B];
                run(&self.buf, &mut block);
                let result = unpad_pkcs7(&block);
                if let Some(n) = result {
                    output[..n].copy_from_slice(&block[..n]);
                }
                block.zeroize();
                result.ok_or(Error::Decryption)
            }
        }
    }
}

/// The length of the message in a PKCS#7-padded last block of `N` bytes, or `None` if the
/// padding is bad. Constant time: every byte is examined whatever the pad value, and the
/// only branch is on the overall verdict.
pub(crate) fn unpad_pkcs7<const N: usize>(block: &[u8; N]) -> Option<usize> {
    let n = N as u64;
    let pad = block[N - 1] as u64;
    // 1 <= pad <= N
    let mut good = !ct::is_zero(pad) & !ct::lt(n, pad);
    for (i, &b) in block.iter().enumerate() {
        // Bytes at positions >= N - pad must equal pad.
        let in_pad = !ct::lt(i as u64 + pad, n);
        good = good & (!in_pad | ct::eq(b as u64, pad));
    }
    good.declassify().then(|| N - pad as usize)
}

#[cfg(test)]
mod tests {
    use super::unpad_pkcs7;

    #[test]
    fn pkcs7_unpadding_accepts_exactly_the_valid_paddings() {
        for pad in 0..=255u8 {
            for fill in [0u8, 1, 7, 8, 0xff] {
                let mut b = [fill; 8];
                b[7] = pad;
                let n = pad as usize;
                let valid = (1..=8).contains(&n) && b[8 - n..].iter().all(|&x| x == pad);
                assert_eq!(unpad_pkcs7(&b), valid.then(|| 8 - n), "{b:?}");
            }
        }
        assert_eq!(unpad_pkcs7(&[8; 8]), Some(0));
        assert_eq!(unpad_pkcs7(&[9, 2, 2, 2, 2, 2, 2, 2]), Some(6));
        assert_eq!(unpad_pkcs7(&[9, 7, 7, 7, 7, 7, 7, 7]), Some(1));
        assert_eq!(unpad_pkcs7(&[1, 1, 1, 1, 1, 1, 3, 3]), None);
        // The 16-byte blocks of AES.
        assert_eq!(unpad_pkcs7(&[16u8; 16]), Some(0));
        assert_eq!(unpad_pkcs7(&[17u8; 16]), None);
        let mut b = [9u8; 16];
        assert_eq!(unpad_pkcs7(&b), Some(7));
        b[7] = 8;
        assert_eq!(unpad_pkcs7(&b), None);
    }
}
