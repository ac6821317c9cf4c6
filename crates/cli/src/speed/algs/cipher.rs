//! DES, triple DES and AES (`des-ecb`, `des-cbc`, ..., `des-ede3-ofb`, `aes-128-cbc`,
//! `aes-256-cbc`, `aes-256-ctr`): "encrypt" and "decrypt" rows over a `-bytes` buffer, each call one pass over the buffer with the
//! chaining state carried on (as `openssl speed -evp` does). Bits per second count 8 bits
//! per byte.

#[cfg(feature = "peers")]
use super::peer_err;
use super::test_bytes;
use crate::speed::row::{Bench, Candidate, Context, Row, Who, bench};
use cryptocard::des::{Direction, Padding};
use std::sync::Arc;

/// The shared inputs: key (8, 16, 24 or 32 bytes), IV (empty for ECB) and the data buffer.
struct Inputs {
    name: String,
    key: Vec<u8>,
    iv: Vec<u8>,
    data: Vec<u8>,
}

/// The "encrypt" and "decrypt" rows of cipher `name` (an OpenSSL cipher name).
pub fn rows(name: &str, ctx: &Context<'_>) -> Vec<Row> {
    // Key, IV and block lengths from the name (`cipher::lookup`; every name of the
    // registry is there).
    let Some(spec) = cryptocard::cipher::lookup(name) else { return Vec::new() };
    let block = spec.algorithm.block_len();
    // Whole blocks, at least one.
    let len = (ctx.bytes / block).max(1) * block;
    let x = Arc::new(Inputs {
        name: name.to_string(),
        key: test_bytes(7, spec.key_len),
        iv: test_bytes(8, spec.iv_len),
        data: test_bytes(9, len),
    });
    [("encrypt", true), ("decrypt", false)]
        .into_iter()
        .map(|(op, encrypt)| {
            let mut row = Row::new(name, op, 8 * len as u64, Some(len as u64), Vec::new());
            // Ours: the cipher by its OpenSSL name, padding off.
            let x2 = x.clone();
            let dir = if encrypt { Direction::Encrypt } else { Direction::Decrypt };
            row.candidates.push(Candidate::new(Who::Ours, move || {
                let c =
                    spec.new_ctx(&x2.key, &x2.iv, dir, Padding::None).map_err(|e| e.to_string())?;
                Ok(stream(c, &x2, |c, i, o| c.update(i, o).map_err(|e| e.to_string())))
            }));
            #[cfg(feature = "peers")]
            peer_ciphers(ctx, &x, encrypt, &mut row);
            row
        })
        .collect()
}

/// The peers' candidates for one direction of cipher `x.name`.
#[cfg(feature = "peers")]
fn peer_ciphers(ctx: &Context<'_>, x: &Arc<Inputs>, encrypt: bool, row: &mut Row) {
    let name = x.name.as_str();
    for &lib in &ctx.peers.openssl {
        // Single DES needs the legacy provider, which a system OpenSSL may lack.
        if let Err(e) = lib.cipher(name, &x.key, &x.iv, encrypt) {
            row.notes.push(format!("{name}: {e}"));
            continue;
        }
        let x = x.clone();
        row.candidates.push(Candidate::peer(lib.info(), move || {
            let c = lib.cipher(&x.name, &x.key, &x.iv, encrypt).map_err(peer_err)?;
            Ok(stream(c, &x, |c, i, o| c.update(i, o).map_err(peer_err)))
        }));
    }
    // nettle has no OFB and no two-key EDE: those rows leave its column empty.
    if let Some(nettle) = ctx.peers.nettle.filter(|n| n.des(name, &x.key, &x.iv, encrypt).is_ok()) {
        let x = x.clone();
        row.candidates.push(Candidate::peer(nettle.info(), move || {
            let c = nettle.des(&x.name, &x.key, &x.iv, encrypt).map_err(peer_err)?;
            Ok(stream(c, &x, |c, i, o| c.update(i, o).map_err(peer_err)))
        }));
    }
}

/// A bench that passes the whole input buffer through `update` once per call.
fn stream<C: 'static>(
    cipher: C,
    x: &Arc<Inputs>,
    update: impl Fn(&mut C, &[u8], &mut [u8]) -> Result<usize, String> + 'static,
) -> Box<dyn Bench> {
    let x = x.clone();
    let out = vec![0u8; x.data.len()];
    bench(
        (cipher, out),
        move |(c, out)| update(c, &x.data, out).map(drop),
        |(_, out)| Some(out.clone()),
    )
}
