//! AES known answers and cross-checks:
//!
//! * FIPS 197 Appendix C (C.1 AES-128, C.2 AES-192, C.3 AES-256), inline below;
//! * NIST SP 800-38A Appendix F (ECB, CBC, CFB8, CFB128, OFB, CTR for all three key
//!   sizes), from `data/aes/sp800-38a-f.txt` (see that directory's README), encrypting and
//!   decrypting, one-shot and streamed in odd-sized pieces, on every implementation this
//!   CPU runs;
//! * each accelerated implementation (AES-NI, VAES) against the portable constant-time
//!   one on random keys and blocks, and CTR's counter carrying at every position of the
//!   kernels' batches;
//! * streaming in random pieces equals one-shot, for every mode, both directions;
//! * PKCS#7 and IV edge cases, and that `Debug` shows no key material.

use cryptocard::Error;
use cryptocard::aes::{Aes, AesCtx, Direction, Implementation, Mode, Padding, modes};

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// A small deterministic generator (splitmix64) for the random cross-checks.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The key on every implementation this CPU runs, fastest first, portable last.
fn every(key: &[u8]) -> Vec<Aes> {
    let all: Vec<Aes> = Implementation::available()
        .into_iter()
        .map(|i| Aes::with_implementation(key, i).unwrap())
        .collect();
    assert_eq!(all.last().unwrap().implementation(), Implementation::Portable);
    all
}

#[test]
fn fips197_appendix_c() {
    let pt: [u8; 16] = hex("00112233445566778899aabbccddeeff").try_into().unwrap();
    let cases = [
        ("000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"),
        ("000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ];
    for (key, ct) in cases {
        for aes in every(&hex(key)) {
            let mut b = pt;
            aes.encrypt_block(&mut b);
            assert_eq!(b.to_vec(), hex(ct), "{key} {aes:?}");
            aes.decrypt_block(&mut b);
            assert_eq!(b, pt, "{key} {aes:?}");
            assert_eq!(aes.key_len(), key.len() / 2);
        }
    }
}

fn mode_of(name: &str) -> Mode {
    match name {
        "ecb" => Mode::Ecb,
        "cbc" => Mode::Cbc,
        "cfb" => Mode::Cfb64,
        "cfb8" => Mode::Cfb8,
        "ofb" => Mode::Ofb,
        "ctr" => Mode::Ctr,
        _ => panic!("unknown mode {name}"),
    }
}

/// Streams `data` through a fresh context in pieces of the given sizes (cycled).
fn streamed(
    aes: &Aes,
    mode: Mode,
    dir: Direction,
    iv: &[u8],
    pad: Padding,
    data: &[u8],
    pieces: &[usize],
) -> Vec<u8> {
    let mut ctx = AesCtx::new(aes.clone(), mode, dir, iv, pad).unwrap();
    let mut out = Vec::new();
    let mut rest = data;
    for &p in pieces.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (x, r) = rest.split_at(p.min(rest.len()));
        rest = r;
        let mut buf = vec![0u8; ctx.update_len(x.len())];
        assert_eq!(ctx.update(x, &mut buf).unwrap(), buf.len());
        out.extend_from_slice(&buf);
    }
    let mut tail = [0u8; 16];
    let n = ctx.finalize(&mut tail).unwrap();
    out.extend_from_slice(&tail[..n]);
    out
}

#[test]
fn sp800_38a_appendix_f() {
    let text = include_str!("data/aes/sp800-38a-f.txt");
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (section, mode, key) = (f[0], mode_of(f[2]), hex(f[3]));
        let iv = if f[4] == "-" { Vec::new() } else { hex(f[4]) };
        let (pt, ct) = (hex(f[5]), hex(f[6]));
        assert_eq!(key.len() * 8, f[1].parse::<usize>().unwrap());
        for aes in every(&key) {
            let id = format!("{section} AES-{} {aes:?}", f[1]);
            assert_eq!(modes::encrypt(&aes, mode, &iv, Padding::None, &pt).unwrap(), ct, "{id}");
            assert_eq!(modes::decrypt(&aes, mode, &iv, Padding::None, &ct).unwrap(), pt, "{id}");
            for pieces in [&[1usize][..], &[5, 17, 3], &[15, 16, 33]] {
                let e = streamed(&aes, mode, Direction::Encrypt, &iv, Padding::None, &pt, pieces);
                assert_eq!(e, ct, "{id} streamed {pieces:?}");
                let d = streamed(&aes, mode, Direction::Decrypt, &iv, Padding::None, &ct, pieces);
                assert_eq!(d, pt, "{id} streamed {pieces:?}");
            }
        }
        count += 1;
    }
    assert_eq!(count, 18, "six modes times three key sizes");
}

#[test]
fn accelerated_match_portable_on_random_keys_and_blocks() {
    let available = Implementation::available();
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(
            available.contains(&Implementation::AesNi),
            std::is_x86_feature_detected!("aes")
        );
        assert_eq!(
            available.contains(&Implementation::Vaes),
            std::is_x86_feature_detected!("aes")
                && std::is_x86_feature_detected!("vaes")
                && std::is_x86_feature_detected!("avx2")
        );
    }
    assert_eq!(Aes::new(&[0; 16]).unwrap().implementation(), available[0]);
    assert_eq!(Aes::new(&[0; 16]).unwrap().is_accelerated(), available.len() > 1);
    assert!(!Aes::new_portable(&[0; 16]).unwrap().is_accelerated());
    for i in [Implementation::AesNi, Implementation::Vaes] {
        if !available.contains(&i) {
            assert!(matches!(Aes::with_implementation(&[0; 16], i), Err(Error::Unsupported(_))));
        }
    }
    let mut rng = Rng(1);
    for i in 0..300 {
        let key = rng.bytes([16, 24, 32][i % 3]);
        let slow = Aes::new_portable(&key).unwrap();
        for fast in every(&key) {
            cross_check(&fast, &slow, &mut rng, &key);
        }
    }
}

/// One random block and one random run of up to 60 blocks (the kernels' batches of 8
/// and 16, their pairs and lone blocks) through `fast` and `slow`, in every mode.
fn cross_check(fast: &Aes, slow: &Aes, rng: &mut Rng, key: &[u8]) {
    let mut a: [u8; 16] = rng.bytes(16).try_into().unwrap();
    let mut b = a;
    fast.encrypt_block(&mut a);
    slow.encrypt_block(&mut b);
    assert_eq!(a, b, "encrypt, key {key:02x?}");
    fast.decrypt_block(&mut a);
    slow.decrypt_block(&mut b);
    assert_eq!(a, b, "decrypt, key {key:02x?}");
    // Many blocks at once take the kernels' interleaved paths.
    let n = 16 * rng.below(61);
    let data = rng.bytes(n);
    let iv = rng.bytes(16);
    for mode in [Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Cfb64, Mode::Cfb8, Mode::Ofb] {
        let iv = if mode == Mode::Ecb { &[][..] } else { &iv[..] };
        let x = modes::encrypt(fast, mode, iv, Padding::None, &data).unwrap();
        let id = format!("{mode:?} {n} bytes {fast:?}");
        assert_eq!(x, modes::encrypt(slow, mode, iv, Padding::None, &data).unwrap(), "{id}");
        assert_eq!(modes::decrypt(fast, mode, iv, Padding::None, &x).unwrap(), data, "{id}");
        assert_eq!(modes::decrypt(slow, mode, iv, Padding::None, &x).unwrap(), data, "{id}");
    }
}

#[test]
fn every_length_up_to_twenty_blocks_on_every_implementation() {
    // Each length from none to twenty blocks with each key size: the AES-NI kernels'
    // passes of 8, 4, 2 and 1 blocks for every round count, and a VAES key's switch from
    // AES-NI to VAES at nine blocks (`VAES_MIN_BYTES`), must all equal the portable cipher.
    let mut rng = Rng(3);
    for key_len in [16, 24, 32] {
        let key = rng.bytes(key_len);
        let slow = Aes::new_portable(&key).unwrap();
        for blocks in 0..=20 {
            let data = rng.bytes(16 * blocks);
            let iv = rng.bytes(16);
            for mode in [Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Cfb64, Mode::Ofb] {
                let iv = if mode == Mode::Ecb { &[][..] } else { &iv[..] };
                let want = modes::encrypt(&slow, mode, iv, Padding::None, &data).unwrap();
                for fast in every(&key) {
                    let id = format!("{mode:?}, {blocks} blocks, {fast:?}");
                    let got = modes::encrypt(&fast, mode, iv, Padding::None, &data).unwrap();
                    assert_eq!(got, want, "encrypt: {id}");
                    let back = modes::decrypt(&fast, mode, iv, Padding::None, &want).unwrap();
                    assert_eq!(back, data, "decrypt: {id}");
                }
            }
        }
    }
}

#[test]
fn ctr_carries_at_every_position_of_a_batch() {
    // A run of 40 blocks whose counter's low 64 bits carry (or whose whole counter wraps)
    // after block `at`: inside the kernels' batches of 8 and 16, at their edges, and in the
    // tail. Each implementation must equal the portable one, which counts in a u128.
    let key = [7u8; 32];
    let slow = Aes::new_portable(&key).unwrap();
    let data: Vec<u8> = (0..40 * 16).map(|i| i as u8).collect();
    for at in 0..40u64 {
        for high in [0u64, 0x0123_4567_89ab_cdef, u64::MAX] {
            let mut iv = [0u8; 16];
            iv[..8].copy_from_slice(&high.to_be_bytes());
            iv[8..].copy_from_slice(&(u64::MAX - at).to_be_bytes());
            let want = modes::encrypt(&slow, Mode::Ctr, &iv, Padding::None, &data).unwrap();
            for fast in every(&key) {
                let got = modes::encrypt(&fast, Mode::Ctr, &iv, Padding::None, &data).unwrap();
                assert_eq!(got, want, "carry at block {at}, high {high:x}, {fast:?}");
            }
        }
    }
}

#[test]
fn streaming_in_odd_pieces_equals_one_shot() {
    let mut rng = Rng(2);
    let all = [Mode::Ecb, Mode::Cbc, Mode::Cfb64, Mode::Cfb8, Mode::Ofb, Mode::Ctr];
    for round in 0..60 {
        let key = rng.bytes([16, 24, 32][round % 3]);
        let mode = all[round % all.len()];
        let iv = if mode == Mode::Ecb { Vec::new() } else { rng.bytes(16) };
        let pad = if mode.is_block_mode() { Padding::Pkcs7 } else { Padding::None };
        let n = rng.below(300);
        let data = rng.bytes(n);
        let pieces: Vec<usize> = (0..4).map(|_| 1 + rng.below(37)).collect();
        // Every implementation the CPU has: each mode's context feeds the kernels whole
        // blocks between the pieces' partial ones.
        for aes in every(&key) {
            let ct = modes::encrypt(&aes, mode, &iv, pad, &data).unwrap();
            if mode.is_block_mode() {
                assert_eq!(ct.len(), data.len() / 16 * 16 + 16);
            } else {
                assert_eq!(ct.len(), data.len());
            }
            let id = format!("{mode:?} {aes:?}");
            let encrypted = streamed(&aes, mode, Direction::Encrypt, &iv, pad, &data, &pieces);
            assert_eq!(encrypted, ct, "{id}");
            let decrypted = streamed(&aes, mode, Direction::Decrypt, &iv, pad, &ct, &pieces);
            assert_eq!(decrypted, data, "{id}");
        }
    }
}

#[test]
fn ctr_counter_is_the_whole_block_big_endian() {
    // The counter carries out of the low 64 bits and wraps at 2^128, as OpenSSL.
    let aes = Aes::new(&[9; 16]).unwrap();
    let mut iv = [0u8; 16];
    iv[8..].fill(0xff);
    let ks = modes::encrypt(&aes, Mode::Ctr, &iv, Padding::None, &[0; 32]).unwrap();
    let mut b1 = [0u8; 16];
    b1[7] = 1;
    let mut want = iv;
    aes.encrypt_block(&mut want);
    aes.encrypt_block(&mut b1);
    assert_eq!(&ks[..16], &want);
    assert_eq!(&ks[16..], &b1);
    let ks = modes::encrypt(&aes, Mode::Ctr, &[0xff; 16], Padding::None, &[0; 32]).unwrap();
    let mut zero = [0u8; 16];
    aes.encrypt_block(&mut zero);
    assert_eq!(&ks[16..], &zero);
}

#[test]
fn padding_and_arguments() {
    let aes = Aes::new(&[1; 24]).unwrap();
    let iv = [2u8; 16];
    // A whole block of input gets a whole block of padding.
    let ct = modes::encrypt(&aes, Mode::Cbc, &iv, Padding::Pkcs7, &[0x41; 16]).unwrap();
    assert_eq!(ct.len(), 32);
    let raw = modes::decrypt(&aes, Mode::Cbc, &iv, Padding::None, &ct).unwrap();
    assert_eq!(&raw[16..], &[16u8; 16]);
    // Tampering with the last block's padding: only `Decryption`.
    let mut bad = ct.clone();
    bad[31] ^= 0x55;
    assert_eq!(modes::decrypt(&aes, Mode::Cbc, &iv, Padding::Pkcs7, &bad), Err(Error::Decryption));
    assert_eq!(
        modes::decrypt(&aes, Mode::Cbc, &iv, Padding::Pkcs7, &ct[..31]),
        Err(Error::Decryption)
    );
    assert!(matches!(
        modes::encrypt(&aes, Mode::Ecb, &[], Padding::None, &[0; 15]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        modes::encrypt(&aes, Mode::Cbc, &[0; 8], Padding::None, &[]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        modes::encrypt(&aes, Mode::Ecb, &iv, Padding::None, &[]),
        Err(Error::InvalidArgument(_))
    ));
    for len in [0, 1, 15, 17, 23, 31, 33, 64] {
        assert!(matches!(Aes::new(&vec![0; len]), Err(Error::InvalidKey(_))), "{len}");
    }
}

#[test]
fn debug_shows_no_key_material() {
    let key = [0xabu8; 32];
    let aes = Aes::new(&key).unwrap();
    let ctx = AesCtx::encryptor(aes.clone(), Mode::Cbc, &[0xcd; 16], Padding::Pkcs7).unwrap();
    for text in [format!("{aes:?}"), format!("{ctx:?}"), format!("{aes:#?}")] {
        assert!(text.contains("256"), "{text}");
        let lower = text.to_lowercase();
        assert!(!lower.contains("ab") && !lower.contains("171") && !lower.contains("cd"), "{text}");
    }
}
