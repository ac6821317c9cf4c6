//! Message digests (`md2` ... `sha512`), `hmac` (HMAC-SHA-256 under a 32-byte key) and
//! `cmac`/`cmac-des-ede3` (CMAC over AES-128 or three-key triple-DES): one "digest" (or
//! "mac") row over a `-bytes` buffer, each call hashing the whole buffer from a fresh
//! state (a MAC's keyed state kept between calls, as OpenSSL's `EVP_MAC_init` with no key
//! keeps it). Bits per second count 8 bits per byte. The Rust peers (aws-lc-rs,
//! ring) hash one-shot too (`digest::digest`); a digest one of them lacks is a note.

#[cfg(feature = "peers")]
use super::peer_err;
use super::test_bytes;
use crate::speed::row::{Bench, Candidate, Context, Row, Who, bench};
#[cfg(feature = "peers")]
use compare::{aws_lc, ring, rustcrypto};
use cryptocard::cipher::Algorithm;
use cryptocard::cmac::Cmac;
use cryptocard::digest::{HashAlg, Hasher, Hmac, Sha256};
use std::sync::Arc;

/// The `md2` ... `sha512` row.
pub fn digest(name: &str, ctx: &Context<'_>) -> Row {
    let data = Arc::new(test_bytes(11, ctx.bytes));
    let mut row =
        Row::new(name, "digest", 8 * ctx.bytes as u64, Some(ctx.bytes as u64), Vec::new());
    // Ours: the run-time-dispatched `digest::Hasher` (the enum costs one branch per call).
    if let Ok(alg) = HashAlg::from_name(name) {
        let data = data.clone();
        row.candidates.push(Candidate::new(Who::Ours, move || {
            Ok(hashing(vec![0u8; alg.output_len()], Hasher::new(alg), &data, |h, m, out| {
                h.update(m);
                out.copy_from_slice(h.finalize_reset().as_bytes());
                Ok::<_, String>(out.len())
            }))
        }));
    }
    #[cfg(feature = "peers")]
    peer_digests(name, ctx, &data, &mut row);
    row
}

/// The peers' candidates for digest `name`.
#[cfg(feature = "peers")]
fn peer_digests(name: &str, ctx: &Context<'_>, data: &Arc<Vec<u8>>, row: &mut Row) {
    for &lib in &ctx.peers.openssl {
        if let Err(e) = lib.digest(name) {
            row.notes.push(format!("{name}: {e}"));
            continue;
        }
        let (data, name) = (data.clone(), name.to_string());
        row.candidates.push(Candidate::peer(lib.info(), move || {
            let d = lib.digest(&name).map_err(peer_err)?;
            Ok(hashing(vec![0u8; d.size()], d, &data, |d, m, out| d.digest_into(m, out)))
        }));
    }
    if let Some(nettle) = ctx.peers.nettle.filter(|n| n.hash(name).is_ok()) {
        let (data, name) = (data.clone(), name.to_string());
        row.candidates.push(Candidate::peer(nettle.info(), move || {
            let h = nettle.hash(&name).map_err(peer_err)?;
            Ok(hashing(vec![0u8; h.size()], h, &data, |h, m, out| h.digest_into(m, out)))
        }));
    }
    if ctx.peers.rustcrypto && name == "md2" {
        let data = data.clone();
        row.candidates.push(Candidate::peer(rustcrypto::md2_info(), move || {
            let data = data.clone();
            Ok(bench(
                [0u8; 16],
                move |out| {
                    *out = rustcrypto::md2(&data);
                    Ok(())
                },
                |out| Some(out.to_vec()),
            ))
        }));
    }
    if ctx.peers.aws_lc {
        match aws_lc::Hash::by_name(name) {
            Ok(h) => {
                let data = data.clone();
                row.candidates.push(Candidate::peer(aws_lc::info(), move || {
                    Ok(hashing(vec![0u8; h.size()], h, &data, |h, m, out| h.digest_into(m, out)))
                }));
            }
            Err(e) => row.notes.push(format!("{name}: {e}")),
        }
    }
    if ctx.peers.ring {
        match ring::Hash::by_name(name) {
            Ok(h) => {
                let data = data.clone();
                row.candidates.push(Candidate::peer(ring::info(), move || {
                    Ok(hashing(vec![0u8; h.size()], h, &data, |h, m, out| h.digest_into(m, out)))
                }));
            }
            Err(e) => row.notes.push(format!("{name}: {e}")),
        }
    }
}

/// The `hmac` row: HMAC-SHA-256, keyed once, one tag per call.
pub fn hmac(ctx: &Context<'_>) -> Row {
    let data = Arc::new(test_bytes(12, ctx.bytes));
    let key = Arc::new(test_bytes(13, 32));
    let mut row = Row::new("hmac", "mac", 8 * ctx.bytes as u64, Some(ctx.bytes as u64), Vec::new());
    // Ours: `digest::Hmac<Sha256>`, keyed once; each tag restarts from the keyed state.
    {
        let (data, key) = (data.clone(), key.clone());
        row.candidates.push(Candidate::new(Who::Ours, move || {
            Ok(hashing(vec![0u8; 32], Hmac::<Sha256>::new(&key), &data, |h, m, out| {
                h.update(m);
                out.copy_from_slice(&h.finalize_reset());
                Ok::<_, String>(out.len())
            }))
        }));
    }
    #[cfg(feature = "peers")]
    for &lib in &ctx.peers.openssl {
        let (data, key) = (data.clone(), key.clone());
        row.candidates.push(Candidate::peer(lib.info(), move || {
            let h = lib.hmac("sha256", &key).map_err(peer_err)?;
            Ok(hashing(vec![0u8; h.size()], h, &data, |h, m, out| h.mac_into(m, out)))
        }));
    }
    row
}

/// The `cmac` (AES-128) and `cmac-des-ede3` rows: ours beside OpenSSL's `EVP_MAC` CMAC.
pub fn cmac(name: &str, ctx: &Context<'_>) -> Row {
    let (algorithm, cipher) = match name {
        "cmac-des-ede3" => (Algorithm::DesEde3, "DES-EDE3-CBC"),
        _ => (Algorithm::Aes128, "AES-128-CBC"),
    };
    let data = Arc::new(test_bytes(14, ctx.bytes));
    let key = Arc::new(test_bytes(15, algorithm.key_len()));
    let mut row = Row::new(name, "mac", 8 * ctx.bytes as u64, Some(ctx.bytes as u64), Vec::new());
    {
        let (data, key) = (data.clone(), key.clone());
        row.candidates.push(Candidate::new(Who::Ours, move || {
            let mac = Cmac::new(algorithm, &key).map_err(|e| e.to_string())?;
            let out = vec![0u8; mac.block_len()];
            Ok(hashing(out, mac, &data, |m, msg, out| {
                m.update(msg);
                out.copy_from_slice(m.finalize_reset().as_bytes());
                Ok::<_, String>(out.len())
            }))
        }));
    }
    #[cfg(feature = "peers")]
    for &lib in &ctx.peers.openssl {
        let (data, key) = (data.clone(), key.clone());
        row.candidates.push(Candidate::peer(lib.info(), move || {
            let m = lib.cmac(cipher, &key, algorithm.block_len()).map_err(peer_err)?;
            Ok(hashing(vec![0u8; m.size()], m, &data, |m, msg, out| m.mac_into(msg, out)))
        }));
    }
    #[cfg(not(feature = "peers"))]
    let _ = cipher;
    row
}

/// A bench that hashes (or MACs) the whole buffer into `out` once per call, with any
/// implementation's `hash_into(state, message, out)`.
fn hashing<H: 'static, E: ToString>(
    out: Vec<u8>,
    state: H,
    data: &Arc<Vec<u8>>,
    hash_into: impl Fn(&mut H, &[u8], &mut [u8]) -> Result<usize, E> + 'static,
) -> Box<dyn Bench> {
    let data = data.clone();
    bench(
        (state, out),
        move |(h, out)| hash_into(h, &data, out).map(drop).map_err(|e| e.to_string()),
        |(_, out)| Some(out.clone()),
    )
}
