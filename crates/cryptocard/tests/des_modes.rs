//! The modes of operation and their context: streaming in pieces equals one call, padding
//! errors carry no detail, bad arguments are errors (never panics), names resolve, weak
//! keys are found, parity bits are ignored.

use cryptocard::Error;
use cryptocard::cipher::{CIPHERS, lookup};
use cryptocard::des::modes;
use cryptocard::des::{
    BlockCipher64, CipherCtx, Des, Direction, Mode, Padding, Tdes, TdesEde2, TdesEde3, key,
};
use proptest::prelude::*;

const MODES: [Mode; 6] = [Mode::Ecb, Mode::Cbc, Mode::Cfb64, Mode::Cfb8, Mode::Ofb, Mode::Ctr];

/// Runs `data` through a context in the pieces given by `cuts`.
fn run_pieces(
    spec_name: &str,
    key: &[u8],
    iv: &[u8],
    dir: Direction,
    pad: Padding,
    data: &[u8],
    cuts: &[usize],
) -> Result<Vec<u8>, Error> {
    let spec = lookup(spec_name).unwrap();
    let mut ctx = spec.new_ctx(key, &iv[..spec.iv_len], dir, pad)?;
    let mut out = Vec::new();
    let mut start = 0;
    let mut points: Vec<usize> = cuts.iter().map(|&c| c % (data.len() + 1)).collect();
    points.sort_unstable();
    points.push(data.len());
    for end in points {
        let piece = &data[start..end];
        let mut buf = vec![0u8; ctx.update_len(piece.len())];
        assert!(buf.len() < piece.len() + spec.algorithm.block_len());
        let n = ctx.update(piece, &mut buf)?;
        assert_eq!(n, buf.len());
        out.extend_from_slice(&buf);
        start = end;
    }
    let mut tail = [0u8; 16];
    let n = ctx.finalize(&mut tail[..spec.algorithm.block_len()])?;
    out.extend_from_slice(&tail[..n]);
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_split_gives_the_same_bytes_in_every_mode(
        key in any::<[u8; 32]>(),
        iv in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<u8>(), 0..90),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        for spec in CIPHERS {
            let key = &key[..spec.key_len];
            let b = spec.algorithm.block_len();
            let pads: &[Padding] = if spec.mode.is_block_mode() { &[Padding::Pkcs7, Padding::None] } else { &[Padding::None] };
            for &pad in pads {
                let data = if pad == Padding::None && spec.mode.is_block_mode() { &data[..data.len() / b * b] } else { &data[..] };
                let whole = run_pieces(spec.name, key, &iv, Direction::Encrypt, pad, data, &[]).unwrap();
                let split = run_pieces(spec.name, key, &iv, Direction::Encrypt, pad, data, &cuts).unwrap();
                prop_assert_eq!(&whole, &split, "{} encrypt", spec.name);
                let back = run_pieces(spec.name, key, &iv, Direction::Decrypt, pad, &whole, &cuts).unwrap();
                prop_assert_eq!(&back[..], data, "{} decrypt", spec.name);
                let expect_len = if pad == Padding::Pkcs7 { data.len() / b * b + b } else { data.len() };
                prop_assert_eq!(whole.len(), expect_len);
            }
        }
    }

    #[test]
    fn byte_at_a_time_equals_one_call(
        key in any::<[u8; 8]>(),
        iv in any::<[u8; 8]>(),
        data in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        for mode in MODES {
            let des = Des::from_key(&key);
            let iv = &iv[..mode.iv_len()];
            let pad = if mode.is_block_mode() { Padding::Pkcs7 } else { Padding::None };
            let whole = modes::encrypt(&des, mode, iv, pad, &data).unwrap();
            let mut ctx = CipherCtx::encryptor(des, mode, iv, pad).unwrap();
            let mut out = Vec::new();
            for b in &data {
                let mut o = [0u8; 8];
                let n = ctx.update(std::slice::from_ref(b), &mut o).unwrap();
                out.extend_from_slice(&o[..n]);
            }
            let mut o = [0u8; 8];
            let n = ctx.finalize(&mut o).unwrap();
            out.extend_from_slice(&o[..n]);
            prop_assert_eq!(out, whole, "{:?}", mode);
        }
    }
}

#[test]
fn modes_match_their_definitions_on_blocks() {
    // Each mode written out with single-block calls, against the context.
    let tdes = Tdes::new(b"0123456789abcdefFEDCBA98").unwrap();
    let iv = 0x0011_2233_4455_6677u64;
    // 150 blocks: more than one stage (64 blocks) of the serial kernels.
    let p: Vec<u64> = (0..150u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let bytes: Vec<u8> = p.iter().flat_map(|x| x.to_be_bytes()).collect();
    let e = |x: u64| tdes.encrypt_u64(x);
    let (mut cbc, mut cfb, mut ofb, mut ctr) = (vec![], vec![], vec![], vec![]);
    let (mut c, mut f, mut o) = (iv, iv, iv);
    for (i, &x) in p.iter().enumerate() {
        c = e(x ^ c);
        cbc.push(c);
        f = x ^ e(f);
        cfb.push(f);
        o = e(o);
        ofb.push(x ^ o);
        ctr.push(x ^ e(iv.wrapping_add(i as u64)));
    }
    for (mode, want) in [(Mode::Cbc, cbc), (Mode::Cfb64, cfb), (Mode::Ofb, ofb), (Mode::Ctr, ctr)] {
        let got = modes::encrypt(&tdes, mode, &iv.to_be_bytes(), Padding::None, &bytes).unwrap();
        let want: Vec<u8> = want.iter().flat_map(|x| x.to_be_bytes()).collect();
        assert_eq!(got, want, "{mode:?}");
    }
    // CFB-8: one block encryption per byte, the register shifted by a byte.
    let mut reg = iv;
    let mut want = vec![];
    for &x in &bytes {
        let c = x ^ (e(reg) >> 56) as u8;
        want.push(c);
        reg = (reg << 8) | c as u64;
    }
    assert_eq!(
        modes::encrypt(&tdes, Mode::Cfb8, &iv.to_be_bytes(), Padding::None, &bytes).unwrap(),
        want
    );
}

#[test]
fn ctr_counter_wraps_modulo_2_64() {
    let des = Des::new(&[0x13; 8]).unwrap();
    let out = modes::encrypt(&des, Mode::Ctr, &[0xff; 8], Padding::None, &[0; 16]).unwrap();
    assert_eq!(out[..8], des.encrypt_u64(u64::MAX).to_be_bytes());
    assert_eq!(out[8..], des.encrypt_u64(0).to_be_bytes());
}

#[test]
fn bad_padding_is_a_bare_decryption_error_at_every_position() {
    let des = TdesEde3::new(&[0x42; 24]).unwrap();
    let iv = [7u8; 8];
    // A whole-block message: the last plaintext block is all padding (eight 0x08 bytes),
    // so changing any of its bytes (through the previous ciphertext block) breaks it.
    let msg = [0x5au8; 24];
    let ct = modes::encrypt(&des, Mode::Cbc, &iv, Padding::Pkcs7, &msg).unwrap();
    assert_eq!(ct.len(), 32);
    assert_eq!(modes::decrypt(&des, Mode::Cbc, &iv, Padding::Pkcs7, &ct).unwrap(), msg);
    for pos in 16..24 {
        for delta in [0x01u8, 0x08, 0x09, 0x80, 0xff] {
            let mut bad = ct.clone();
            bad[pos] ^= delta;
            let got = modes::decrypt(&des, Mode::Cbc, &iv, Padding::Pkcs7, &bad);
            // The padding block now reads [8; 8] with one byte changed; only a last byte of
            // 1 is valid padding then (one byte of padding).
            if pos == 23 && 8 ^ delta == 1 {
                let pt = got.unwrap();
                assert_eq!((pt.len(), &pt[..16], &pt[24..]), (31, &msg[..16], &[8u8; 7][..]));
            } else {
                assert_eq!(got, Err(Error::Decryption), "pos {pos} delta {delta:#x}");
            }
        }
    }
    // Tampering with the last block itself: any outcome but a panic or the old message.
    for pos in 24..32 {
        let mut bad = ct.clone();
        bad[pos] ^= 0x10;
        match modes::decrypt(&des, Mode::Cbc, &iv, Padding::Pkcs7, &bad) {
            Err(e) => assert_eq!(e, Error::Decryption),
            Ok(pt) => assert_ne!(pt, msg),
        }
    }
    // Lengths that cannot be padded ciphertext.
    for len in [0, 1, 7, 9, 31, 33] {
        let data = vec![0u8; len];
        assert_eq!(
            modes::decrypt(&des, Mode::Cbc, &iv, Padding::Pkcs7, &data),
            Err(Error::Decryption),
            "len {len}"
        );
        assert_eq!(
            modes::decrypt(&des, Mode::Ecb, &[], Padding::Pkcs7, &data),
            Err(Error::Decryption),
            "len {len}"
        );
    }
}

#[test]
fn arguments_out_of_domain_are_errors() {
    let des = Des::new(&[1; 8]).unwrap();
    for len in [0, 7, 9, 16] {
        assert!(matches!(Des::new(&vec![0; len]), Err(Error::InvalidKey(_))));
    }
    for len in [0, 7, 9, 15, 17, 23, 25, 32] {
        assert!(matches!(Tdes::new(&vec![0; len]), Err(Error::InvalidKey(_))), "{len}");
    }
    assert!(matches!(TdesEde2::new(&[0; 24]), Err(Error::InvalidKey(_))));
    assert!(matches!(TdesEde3::new(&[0; 16]), Err(Error::InvalidKey(_))));
    assert!(matches!(
        CipherCtx::encryptor(des.clone(), Mode::Cbc, &[0; 7], Padding::None),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        CipherCtx::encryptor(des.clone(), Mode::Ecb, &[0; 8], Padding::None),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        CipherCtx::encryptor(des.clone(), Mode::Ctr, &[], Padding::None),
        Err(Error::InvalidArgument(_))
    ));
    // No padding and a partial block at the end.
    for mode in [Mode::Ecb, Mode::Cbc] {
        let iv = vec![0; mode.iv_len()];
        for dir in [Direction::Encrypt, Direction::Decrypt] {
            let mut ctx = CipherCtx::new(des.clone(), mode, dir, &iv, Padding::None).unwrap();
            let mut out = [0u8; 16];
            assert_eq!(ctx.update(&[0; 11], &mut out), Ok(8));
            assert!(matches!(ctx.finalize(&mut out), Err(Error::InvalidArgument(_))));
        }
    }
    // An output buffer that is too small is refused and nothing is consumed.
    let mut ctx = CipherCtx::encryptor(des.clone(), Mode::Cbc, &[0; 8], Padding::Pkcs7).unwrap();
    let mut small = [0u8; 15];
    assert!(matches!(ctx.update(&[0; 16], &mut small), Err(Error::InvalidArgument(_))));
    let mut out = [0u8; 16];
    assert_eq!(ctx.update(&[0; 16], &mut out), Ok(16));
    assert!(matches!(ctx.finalize(&mut small[..7]), Err(Error::InvalidArgument(_))));
    // Names: key and IV lengths are checked.
    let spec = lookup("des-ede3-cbc").unwrap();
    assert!(matches!(
        spec.new_ctx(&[0; 16], &[0; 8], Direction::Encrypt, Padding::Pkcs7),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        spec.new_ctx(&[0; 24], &[0; 4], Direction::Encrypt, Padding::Pkcs7),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn openssl_names_resolve() {
    let want = [
        ("des-ecb", 8, 0),
        ("des-cbc", 8, 8),
        ("des", 8, 8),
        ("DES-CFB", 8, 8),
        ("des-cfb8", 8, 8),
        ("des-ofb", 8, 8),
        ("des-ede", 16, 0),
        ("des-ede-ecb", 16, 0),
        ("des-ede-cbc", 16, 8),
        ("des-ede-cfb", 16, 8),
        ("des-ede-ofb", 16, 8),
        ("des-ede3", 24, 0),
        ("des-ede3-ecb", 24, 0),
        ("des-ede3-cbc", 24, 8),
        ("des3", 24, 8),
        ("-des-ede3-cbc", 24, 8),
        ("des-ede3-cfb", 24, 8),
        ("des-ede3-cfb8", 24, 8),
        ("des-ede3-ofb", 24, 8),
        ("des-ctr", 8, 8),
        ("des-ede3-ctr", 24, 8),
    ];
    for (name, key_len, iv_len) in want {
        let spec = lookup(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!((spec.key_len, spec.iv_len), (key_len, iv_len), "{name}");
        assert_eq!(spec.iv_len, spec.mode.iv_len());
    }
    // The AES names (and OpenSSL's aliases): 16-byte IVs, keys by the name.
    for (name, key_len, iv_len, mode) in [
        ("aes-128-cbc", 16, 16, Mode::Cbc),
        ("aes128", 16, 16, Mode::Cbc),
        ("AES192", 24, 16, Mode::Cbc),
        ("-aes256", 32, 16, Mode::Cbc),
        ("aes-128-ecb", 16, 0, Mode::Ecb),
        ("aes-192-cfb", 24, 16, Mode::Cfb64),
        ("aes-192-cfb128", 24, 16, Mode::Cfb64),
        ("aes-256-cfb8", 32, 16, Mode::Cfb8),
        ("aes-256-ofb", 32, 16, Mode::Ofb),
        ("aes-256-ctr", 32, 16, Mode::Ctr),
    ] {
        let spec = lookup(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!((spec.key_len, spec.iv_len, spec.mode), (key_len, iv_len, mode), "{name}");
        assert_eq!(spec.algorithm.block_len(), 16);
    }
    assert_eq!(lookup("des").unwrap().mode, Mode::Cbc);
    assert_eq!(lookup("des-cfb").unwrap().mode, Mode::Cfb64);
    assert_eq!(lookup("des-ede").unwrap().mode, Mode::Ecb);
    for bad in ["", "aes-128-gcm", "aes-512-cbc", "aes", "des-cbc-x", "desx", "des-ede3-cfb1"] {
        assert!(lookup(bad).is_none(), "{bad}");
    }
}

#[test]
fn weak_and_semi_weak_keys() {
    for &w in &key::WEAK_KEYS {
        let k = w.to_be_bytes();
        assert!(key::is_weak_key(&k));
        assert_eq!(Des::new_checked(&k).unwrap_err(), Error::InvalidKey("weak DES key"));
        // Weak: encryption is an involution.
        let des = Des::from_key(&k);
        for x in [0u64, 0x0123_4567_89ab_cdef, u64::MAX] {
            assert_eq!(des.encrypt_u64(des.encrypt_u64(x)), x);
        }
    }
    for &(a, b) in &key::SEMI_WEAK_KEY_PAIRS {
        let (ka, kb) = (Des::from_key(&a.to_be_bytes()), Des::from_key(&b.to_be_bytes()));
        assert!(
            Des::new_checked(&a.to_be_bytes()).is_err()
                && Des::new_checked(&b.to_be_bytes()).is_err()
        );
        // Semi-weak pair: one key decrypts what the other encrypts.
        for x in [0u64, 0x0123_4567_89ab_cdef, u64::MAX] {
            assert_eq!(ka.encrypt_u64(kb.encrypt_u64(x)), x);
            assert_eq!(kb.encrypt_u64(ka.encrypt_u64(x)), x);
        }
    }
    // A weak key with other parity bits is still weak; an ordinary key is fine.
    assert!(Des::new_checked(&[0x00; 8]).is_err());
    assert!(Des::new_checked(b"\x01\x23\x45\x67\x89\xab\xcd\xef").is_ok());
    // Triple-DES: weak parts and repeated parts.
    let good = b"\x01\x23\x45\x67\x89\xab\xcd\xef\xfe\xdc\xba\x98\x76\x54\x32\x10\x89\xab\xcd\xef\x01\x23\x45\x67";
    assert!(Tdes::new_checked(good).is_ok() && TdesEde3::new_checked(good).is_ok());
    assert!(TdesEde2::new_checked(&good[..16]).is_ok());
    let mut weak = *good;
    weak[8..16].copy_from_slice(&[0x1f, 0x1f, 0x1f, 0x1f, 0x0e, 0x0e, 0x0e, 0x0e]);
    assert!(matches!(Tdes::new_checked(&weak), Err(Error::InvalidKey(_))));
    let mut rep = *good;
    rep.copy_within(0..8, 8);
    rep[15] ^= 1; // differs only in a parity bit
    assert!(matches!(Tdes::new_checked(&rep), Err(Error::InvalidKey(_))));
    assert!(matches!(Tdes::new_checked(&good[..8]), Err(Error::InvalidKey(_))));
}

#[test]
fn parity_bits_are_ignored_and_option_3_is_single_des() {
    let k = *b"\x01\x23\x45\x67\x89\xab\xcd\xef";
    let mut flipped = k;
    for b in flipped.iter_mut() {
        *b ^= 1;
    }
    assert!(key::has_odd_parity(&k) && !key::has_odd_parity(&flipped));
    let mut fixed = flipped;
    key::set_odd_parity(&mut fixed);
    assert_eq!(fixed, k);
    let (a, b) = (Des::from_key(&k), Des::from_key(&flipped));
    let t = Tdes::new(&k).unwrap();
    for x in [0u64, 1, 0x4e6f_7720_6973_2074, u64::MAX] {
        assert_eq!(a.encrypt_u64(x), b.encrypt_u64(x));
        assert_eq!(a.encrypt_u64(x), t.encrypt_u64(x));
        assert_eq!(t.decrypt_u64(t.encrypt_u64(x)), x);
    }
    // Option 2 is option 1 with K3 = K1.
    let k2 = b"0123456789abcdef";
    let e2 = TdesEde2::new(k2).unwrap();
    let e3 = TdesEde3::new(&[&k2[..], &k2[..8]].concat()).unwrap();
    assert_eq!(e2.encrypt_u64(0x1234), e3.encrypt_u64(0x1234));
}
