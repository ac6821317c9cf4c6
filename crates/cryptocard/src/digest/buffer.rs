//! The block buffer shared by every digest: a partial-block buffer, a block counter,
//! Merkle-Damgård strengthening (the "pad with 1, zeros, then the length" rule) and the
//! sponge's pad10*1 (SHA-3, SHAKE: FIPS 202 section 5.1, where the block is the rate).
//!
//! MD4 (RFC 1320 section 3.1-3.2), MD5 (RFC 1321 section 3.1-3.2), SHA-1 and SHA-2 (FIPS
//! 180-4 section 5.1) all pad a message of `l` bits with one `1` bit, then zeros up to
//! `l + 1 + k ≡ B - L (mod B)` bits, then `l` itself in `L` bits, where the block is `B`
//! bits and the length field `L` is 64 bits (128 for SHA-384/512). MD4/MD5 write the
//! length little-endian, SHA big-endian. MD2 (RFC 1319) pads differently and uses only the
//! buffer.
//!
//! The buffer never holds a full block between calls: whole blocks of the input go to the
//! compression function straight from the caller's slice, with no copy, and several at a
//! time, so a kernel can keep its state in registers across a long run of blocks.

use zeroize::Zeroize;

/// The first padding byte: a single `1` bit followed by seven `0` bits (RFC 1321 section
/// 3.1, FIPS 180-4 section 5.1.1).
const PAD_START: u8 = 0x80;

/// The last bit of the sponge's pad10*1, as the final byte of a block holds it (FIPS 202
/// section 5.1; bytes are read least significant bit first, appendix B.1).
const SPONGE_PAD_END: u8 = 0x80;

/// A compression function over `B`-byte blocks.
pub(crate) trait BlockCompress<const B: usize> {
    /// Absorbs `blocks` in order into the chaining state.
    fn compress(&mut self, blocks: &[[u8; B]]);
}

/// The bytes of an unfinished block, `pos < B` of them in use.
#[derive(Clone)]
pub(crate) struct BlockBuffer<const B: usize> {
    bytes: [u8; B],
    pos: usize,
}

impl<const B: usize> BlockBuffer<B> {
    pub(crate) const fn new() -> Self {
        BlockBuffer { bytes: [0; B], pos: 0 }
    }

    /// How many bytes of an unfinished block are buffered (`< B`).
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The buffered bytes.
    #[cfg(test)]
    pub(crate) fn data(&self) -> &[u8] {
        &self.bytes[..self.pos]
    }

    /// Feeds `data`; every completed block goes to `core`. Returns how many blocks were
    /// compressed, for the length counter.
    #[inline]
    pub(crate) fn update<C: BlockCompress<B>>(&mut self, core: &mut C, mut data: &[u8]) -> u64 {
        let mut count = 0u64;
        if self.pos > 0 {
            let take = (B - self.pos).min(data.len());
            self.bytes[self.pos..self.pos + take].copy_from_slice(&data[..take]);
            self.pos += take;
            data = &data[take..];
            if self.pos < B {
                return 0;
            }
            core.compress(core::slice::from_ref(&self.bytes));
            self.pos = 0;
            count = 1;
        }
        let (blocks, rest) = data.as_chunks::<B>();
        if !blocks.is_empty() {
            core.compress(blocks);
        }
        self.bytes[..rest.len()].copy_from_slice(rest);
        self.pos = rest.len();
        count + blocks.len() as u64
    }

    /// Merkle-Damgård strengthening: appends `1`, zeros and the `len_field` bytes (the
    /// message length in bits, already encoded in the algorithm's byte order, 8 or 16
    /// bytes), compressing one or two final blocks. Leaves the buffer empty.
    pub(crate) fn finish_md<C: BlockCompress<B>>(&mut self, core: &mut C, len_field: &[u8]) {
        let pos = self.pos;
        self.bytes[pos] = PAD_START;
        self.bytes[pos + 1..].fill(0);
        if B - (pos + 1) < len_field.len() {
            core.compress(core::slice::from_ref(&self.bytes));
            self.bytes.fill(0);
        }
        self.bytes[B - len_field.len()..].copy_from_slice(len_field);
        core.compress(core::slice::from_ref(&self.bytes));
        self.clear();
    }

    /// The sponge's last block (FIPS 202 section 5.1 and Algorithm 8 step 1): the
    /// message's unfinished block, then `domain` (the domain-separation suffix bits and
    /// the first bit of pad10*1, least significant bit first), zeros, and a final `1` bit
    /// in the block's last byte; absorbed by `core`. Leaves the buffer empty.
    ///
    /// `domain` is 0x06 for SHA-3 (suffix `01`, section 6.1) and 0x1f for SHAKE (suffix
    /// `1111`, section 6.2); when the block has one free byte, both padding ends share it.
    pub(crate) fn finish_sponge<C: BlockCompress<B>>(&mut self, core: &mut C, domain: u8) {
        self.bytes[self.pos] = domain;
        self.bytes[self.pos + 1..].fill(0);
        self.bytes[B - 1] |= SPONGE_PAD_END;
        core.compress(core::slice::from_ref(&self.bytes));
        self.clear();
    }

    /// Pads the unfinished block with `B - pos` bytes of value `B - pos` (RFC 1319 section
    /// 3.1, also PKCS#7) and returns it. Leaves the buffer empty.
    pub(crate) fn take_padded_md2(&mut self) -> [u8; B] {
        let fill = B - self.pos;
        // B is 16 for MD2, so `fill` is in 1..=16 and fits a byte.
        self.bytes[self.pos..].fill(fill as u8);
        let block = self.bytes;
        self.clear();
        block
    }

    /// Empties the buffer and overwrites its bytes (plain stores: the buffer stays in
    /// use; the hashers' `Drop` wipes it with [`Zeroize`], which the compiler may not
    /// elide).
    pub(crate) fn clear(&mut self) {
        self.bytes = [0; B];
        self.pos = 0;
    }
}

impl<const B: usize> Zeroize for BlockBuffer<B> {
    fn zeroize(&mut self) {
        self.bytes.zeroize();
        self.pos = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the blocks it sees.
    struct Recorder(Vec<[u8; 8]>);

    impl BlockCompress<8> for Recorder {
        fn compress(&mut self, blocks: &[[u8; 8]]) {
            self.0.extend_from_slice(blocks);
        }
    }

    #[test]
    fn every_split_gives_the_same_blocks() {
        let data: Vec<u8> = (0..29).collect();
        let mut whole = Recorder(Vec::new());
        let mut buf = BlockBuffer::<8>::new();
        assert_eq!(buf.update(&mut whole, &data), 3);
        assert_eq!(buf.data(), &data[24..]);
        for split in 0..=data.len() {
            let mut rec = Recorder(Vec::new());
            let mut buf = BlockBuffer::<8>::new();
            let n = buf.update(&mut rec, &data[..split]) + buf.update(&mut rec, &data[split..]);
            assert_eq!(n, 3);
            assert_eq!(rec.0, whole.0);
            assert_eq!(buf.data(), &data[24..]);
        }
    }

    #[test]
    fn strengthening_spills_into_a_second_block_when_needed() {
        // 8-byte blocks with a 2-byte length field: 5 bytes leave room (5 + 1 + 2 = 8),
        // 6 bytes do not.
        for (len, blocks) in [(5usize, 1usize), (6, 2), (0, 1), (7, 2)] {
            let mut rec = Recorder(Vec::new());
            let mut buf = BlockBuffer::<8>::new();
            buf.update(&mut rec, &vec![0xaa; len]);
            buf.finish_md(&mut rec, &[0x12, 0x34]);
            assert_eq!(rec.0.len(), blocks, "len {len}");
            let last = rec.0.last().unwrap();
            assert_eq!(&last[6..], &[0x12, 0x34]);
            let flat: Vec<u8> = rec.0.concat();
            assert_eq!(flat[len], PAD_START);
            assert!(flat[len + 1..flat.len() - 2].iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn sponge_padding_puts_the_domain_after_the_message_and_ends_with_0x80() {
        for (len, last) in
            [(0usize, [0x1f, 0, 0, 0, 0, 0, 0, 0x80]), (7, [9, 9, 9, 9, 9, 9, 9, 0x9f])]
        {
            let mut rec = Recorder(Vec::new());
            let mut buf = BlockBuffer::<8>::new();
            buf.update(&mut rec, &vec![9; len]);
            buf.finish_sponge(&mut rec, 0x1f);
            assert_eq!(rec.0, vec![last], "len {len}");
            assert_eq!(buf.pos(), 0);
        }
    }

    #[test]
    fn md2_padding_is_pkcs7_style() {
        let mut rec = Recorder(Vec::new());
        let mut buf = BlockBuffer::<8>::new();
        buf.update(&mut rec, &[1, 2, 3]);
        assert_eq!(buf.take_padded_md2(), [1, 2, 3, 5, 5, 5, 5, 5]);
        assert_eq!(buf.take_padded_md2(), [8; 8]);
    }
}
