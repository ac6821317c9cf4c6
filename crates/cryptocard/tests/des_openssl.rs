//! Differential tests against OpenSSL's libcrypto (the system's OpenSSL 3, single DES from
//! its legacy provider): every DES, triple-DES and AES cipher OpenSSL has (every name of
//! `cipher::CIPHERS` but the DES CTR ones), random keys, IVs and lengths, padding on and off, both directions, and ciphertext made by one side decrypted
//! by the other.

use cryptocard::cipher::{CIPHERS, CipherSpec, lookup};
use cryptocard::des::{Direction, Mode, Padding};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx as OsslCtx;
use openssl::provider::Provider;
use proptest::prelude::*;
use std::sync::OnceLock;

/// Loads OpenSSL's legacy provider (single DES lives there in OpenSSL 3) once, keeping the
/// default provider available.
fn providers() {
    static P: OnceLock<Provider> = OnceLock::new();
    P.get_or_init(|| Provider::try_load(None, "legacy", true).expect("OpenSSL legacy provider"));
}

fn openssl(
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    dir: Direction,
    pad: bool,
    data: &[u8],
) -> Result<Vec<u8>, openssl::error::ErrorStack> {
    providers();
    let cipher = Cipher::fetch(None, spec.name, None)?;
    let mut ctx = OsslCtx::new()?;
    let iv = if iv.is_empty() { None } else { Some(iv) };
    match dir {
        Direction::Encrypt => ctx.encrypt_init(Some(&cipher), Some(key), iv)?,
        Direction::Decrypt => ctx.decrypt_init(Some(&cipher), Some(key), iv)?,
    }
    ctx.set_padding(pad);
    let mut out = vec![0u8; data.len() + 16];
    let n = ctx.cipher_update(data, Some(&mut out))?;
    let m = ctx.cipher_final(&mut out[n..])?;
    out.truncate(n + m);
    Ok(out)
}

fn ours(
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    dir: Direction,
    pad: Padding,
    data: &[u8],
) -> cryptocard::Result<Vec<u8>> {
    let mut ctx = spec.new_ctx(key, iv, dir, pad)?;
    let mut out = vec![0u8; ctx.update_len(data.len()) + spec.algorithm.block_len()];
    let n = ctx.update(data, &mut out)?;
    let m = ctx.finalize(&mut out[n..])?;
    out.truncate(n + m);
    Ok(out)
}

/// The ciphers OpenSSL also has (all but our DES CTR).
fn shared() -> impl Iterator<Item = &'static CipherSpec> {
    CIPHERS.iter().filter(|s| s.mode != Mode::Ctr || s.algorithm.block_len() == 16)
}

#[test]
fn openssl_has_every_name_we_share() {
    let mut n = 0;
    for spec in shared() {
        providers();
        let c =
            Cipher::fetch(None, spec.name, None).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        assert_eq!(c.key_length(), spec.key_len, "{}", spec.name);
        assert_eq!(c.iv_length(), spec.iv_len, "{}", spec.name);
        n += 1;
    }
    assert_eq!(n, 14 + 18, "14 DES and triple-DES, 18 AES");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn agrees_with_openssl(
        key in any::<[u8; 32]>(),
        iv in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<u8>(), 0..200),
        pad in any::<bool>(),
    ) {
        for spec in shared() {
            let key = &key[..spec.key_len];
            let iv = &iv[..spec.iv_len];
            let block = spec.mode.is_block_mode();
            let b = spec.algorithm.block_len();
            let padding = if pad { Padding::Pkcs7 } else { Padding::None };
            // Without padding the block modes take whole blocks only (both libraries
            // refuse the rest).
            let data = if block && !pad { &data[..data.len() / b * b] } else { &data[..] };
            let theirs = openssl(spec, key, iv, Direction::Encrypt, pad, data).unwrap();
            let mine = ours(spec, key, iv, Direction::Encrypt, padding, data).unwrap();
            prop_assert_eq!(&mine, &theirs, "{} encrypt", spec.name);
            prop_assert_eq!(ours(spec, key, iv, Direction::Decrypt, padding, &theirs).unwrap(), data.to_vec(), "{} decrypt theirs", spec.name);
            prop_assert_eq!(openssl(spec, key, iv, Direction::Decrypt, pad, &mine).unwrap(), data.to_vec(), "{} openssl decrypts ours", spec.name);
            // Decrypting random bytes: the same output, or both refuse.
            let junk_len = if block { data.len() / b * b } else { data.len() };
            let junk = &data[..junk_len];
            let a = ours(spec, key, iv, Direction::Decrypt, padding, junk).ok();
            let b = openssl(spec, key, iv, Direction::Decrypt, pad, junk).ok();
            prop_assert_eq!(a, b, "{} decrypt junk", spec.name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Long inputs: the serial kernels work in stages of 64 blocks.
    #[test]
    fn agrees_with_openssl_on_long_inputs(
        key in any::<[u8; 32]>(),
        iv in any::<[u8; 16]>(),
        len in 500usize..3000,
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(key[i % 24] | 1)).collect();
        for spec in shared() {
            let key = &key[..spec.key_len];
            let iv = &iv[..spec.iv_len];
            let theirs = openssl(spec, key, iv, Direction::Encrypt, true, &data).unwrap();
            prop_assert_eq!(&ours(spec, key, iv, Direction::Encrypt, Padding::Pkcs7, &data).unwrap(), &theirs, "{}", spec.name);
            prop_assert_eq!(ours(spec, key, iv, Direction::Decrypt, Padding::Pkcs7, &theirs).unwrap(), data.clone(), "{}", spec.name);
        }
    }
}

#[test]
fn partial_blocks_without_padding_are_refused_by_both() {
    let spec = lookup("des-ede3-cbc").unwrap();
    let (key, iv) = ([3u8; 24], [4u8; 8]);
    for dir in [Direction::Encrypt, Direction::Decrypt] {
        assert!(openssl(&spec, &key, &iv, dir, false, &[0; 13]).is_err());
        assert!(ours(&spec, &key, &iv, dir, Padding::None, &[0; 13]).is_err());
    }
}
