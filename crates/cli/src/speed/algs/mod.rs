//! The algorithms `speed` knows, one module per family, each building its rows' candidates
//! (ours and the peers') over one set of prepared inputs.

pub mod bignum;
pub mod cipher;
pub mod cms;
pub mod digest;
pub mod ocsp;
pub mod rsa;
pub mod ts;

/// The key sizes of the PKI rows (`cms-sign`, `ts-reply`, `ocsp-reply`), with their
/// row names.
pub const PKI_SIZES: [(u32, &str); 3] = [(2048, "rsa2048"), (3072, "rsa3072"), (4096, "rsa4096")];

/// `len` reproducible pseudo-random bytes (xorshift64*), so every run and every
/// implementation measures the same inputs. Not for keys: only benchmark data.
pub fn test_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// A peer's error as the harness's one-line message.
#[cfg(feature = "peers")]
pub fn peer_err(e: compare::PeerError) -> String {
    e.to_string()
}
