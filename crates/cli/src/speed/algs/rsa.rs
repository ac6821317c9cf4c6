//! `rsaN`: RSA private- and public-key operations with the fixed keys in `keys/`
//! (generated once with `openssl genpkey`, PKCS#8 and SubjectPublicKeyInfo DER, so every
//! run and every implementation uses the same key; 7680- and 15360-bit keys take minutes to
//! generate).
//!
//! Operations, as `openssl speed rsa` reports them: "sign" (PKCS#1 v1.5 over a SHA-256
//! digest), "verify" (of that signature), "encrypt" and "decrypt" (PKCS#1 v1.5, a 32-byte
//! message). Bits per second count the modulus bits per operation (the seeds' Kbit/s).
//!
//! Ours: `cryptocard::rsa` with the same keys, read by our own PKCS#8 and
//! SubjectPublicKeyInfo parsers, each call one operation from the prepared key (CRT with
//! blinding and the fault check for the private ones, as the library always does).
//! Decryption is the library's default, implicit rejection (RFC 8017 with the
//! Marvin-attack countermeasure of OpenSSL 3.2+, which the vendored OpenSSL 4.0 also
//! runs by default).
//!
//! With `-batch N`, our "sign" and "decrypt" candidates are batched instead: each call is
//! one [`private_batch`] of N requests (the same key and input, as a server signing many
//! messages with one key would send), counted as N operations, and the JSON rows carry
//! `"batch": N`. The peers stay single-operation (OpenSSL has no batch interface), so the
//! ratio compares our batched throughput with their best. Public-key rows have no batched
//! path and say so in a note.
//!
//! The Rust peers, aws-lc-rs and ring, are in the "sign" and "verify" rows, with the same
//! keys: PKCS#1 v1.5 with SHA-256, so their signatures are byte for byte ours. Their APIs
//! take the message, not its digest, so they get the message whose SHA-256 the others sign
//! (the row's name: a few bytes). A size one of them does not take (ring signs with 2048
//! to 4096 bits, neither goes below 1024 or above 8192) is an empty cell and a note; they
//! are not measured for encryption.

#[cfg(feature = "peers")]
use super::peer_err;
use super::test_bytes;
use crate::speed::row::{Candidate, Context, Row, Who, bench};
#[cfg(feature = "peers")]
use compare::openssl::{Openssl, RsaPadding};
#[cfg(feature = "peers")]
use compare::{aws_lc, ring};
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, RsaPublicKey, private_batch};
use std::sync::Arc;

/// The speed keys: (bits, PKCS#8 private key DER, SubjectPublicKeyInfo DER).
const KEYS: &[(u32, &[u8], &[u8])] = &[
    (512, include_bytes!("../keys/rsa512.p8.der"), include_bytes!("../keys/rsa512.spki.der")),
    (1024, include_bytes!("../keys/rsa1024.p8.der"), include_bytes!("../keys/rsa1024.spki.der")),
    (2048, include_bytes!("../keys/rsa2048.p8.der"), include_bytes!("../keys/rsa2048.spki.der")),
    (3072, include_bytes!("../keys/rsa3072.p8.der"), include_bytes!("../keys/rsa3072.spki.der")),
    (4096, include_bytes!("../keys/rsa4096.p8.der"), include_bytes!("../keys/rsa4096.spki.der")),
    (7680, include_bytes!("../keys/rsa7680.p8.der"), include_bytes!("../keys/rsa7680.spki.der")),
    (15360, include_bytes!("../keys/rsa15360.p8.der"), include_bytes!("../keys/rsa15360.spki.der")),
];

/// The speed key of `bits` bits: (PKCS#8 private key DER, SubjectPublicKeyInfo DER).
pub fn speed_key(bits: u32) -> Option<(&'static [u8], &'static [u8])> {
    KEYS.iter().find(|k| k.0 == bits).map(|k| (k.1, k.2))
}

#[cfg(feature = "peers")]
const SIGN: RsaPadding<'static> = RsaPadding::Pkcs1 { digest: Some("sha256") };
#[cfg(feature = "peers")]
const ENCRYPT: RsaPadding<'static> = RsaPadding::Pkcs1 { digest: None };

/// The four operations of an `rsaN` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RsaOp {
    Sign,
    Verify,
    Encrypt,
    Decrypt,
}

/// The inputs every implementation of a row gets.
struct Inputs {
    private: &'static [u8],
    public: &'static [u8],
    /// The message whose SHA-256 is signed, for the peers that hash it themselves.
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    signed: Vec<u8>,
    /// SHA-256 digest of `signed`, to sign and verify.
    hash: Vec<u8>,
    /// A valid signature over `hash`.
    signature: Vec<u8>,
    /// The message to encrypt, and a PKCS#1 v1.5 ciphertext of it.
    message: Vec<u8>,
    ciphertext: Vec<u8>,
}

/// The four rows of `rsaN`.
pub fn rows(name: &str, bits: u32, ctx: &Context<'_>) -> Result<Vec<Row>, String> {
    let &(_, private, public) =
        KEYS.iter().find(|k| k.0 == bits).ok_or("internal error: no key")?;
    // The shared signature and ciphertext, made once with our own keys. Every candidate's
    // first result is checked against the others', so a peer that disagrees is reported.
    let err = |e: cryptocard::Error| format!("rsa{bits}: {e}");
    let key = RsaPrivateKey::from_pkcs8_der(private).map_err(err)?;
    let signed = name.as_bytes().to_vec();
    let hash = HashAlg::Sha256.digest(&signed).as_ref().to_vec();
    let signature = key.sign_pkcs1v15_prehashed(HashAlg::Sha256, &hash, &mut OsRng).map_err(err)?;
    let message = test_bytes(u64::from(bits), 32);
    let ciphertext = key.public_key().encrypt_pkcs1v15(&message, &mut OsRng).map_err(err)?;
    let x = Arc::new(Inputs { private, public, signed, hash, signature, message, ciphertext });

    let ops = [RsaOp::Sign, RsaOp::Verify, RsaOp::Encrypt, RsaOp::Decrypt];
    Ok(ops
        .into_iter()
        .map(|op| {
            let batched = ctx.batch.filter(|_| matches!(op, RsaOp::Sign | RsaOp::Decrypt));
            let mut candidates =
                vec![batched.map_or_else(|| ours(op, &x), |n| ours_batched(op, n, &x))];
            #[cfg(feature = "peers")]
            candidates.extend(ctx.peers.openssl.iter().map(|&lib| openssl_candidate(lib, op, &x)));
            #[cfg_attr(not(feature = "peers"), allow(unused_mut))]
            let mut row = Row::new(name, op_name(op), u64::from(bits), None, candidates);
            #[cfg(feature = "peers")]
            rust_candidates(ctx, op, bits, &x, &mut row);
            row
        })
        .collect())
}

fn op_name(op: RsaOp) -> &'static str {
    match op {
        RsaOp::Sign => "sign",
        RsaOp::Verify => "verify",
        RsaOp::Encrypt => "encrypt",
        RsaOp::Decrypt => "decrypt",
    }
}

/// Our candidate for `op`: the key parsed once per thread, each call one operation.
fn ours(op: RsaOp, x: &Arc<Inputs>) -> Candidate {
    let x = x.clone();
    Candidate::new(Who::Ours, move || {
        let err = |e: cryptocard::Error| e.to_string();
        let private = RsaPrivateKey::from_pkcs8_der(x.private).map_err(err)?;
        let public = RsaPublicKey::from_public_key_der(x.public).map_err(err)?;
        let x = x.clone();
        Ok(bench(
            (private, public, Vec::new()),
            move |(private, public, out)| {
                *out = match op {
                    RsaOp::Sign => {
                        private.sign_pkcs1v15_prehashed(HashAlg::Sha256, &x.hash, &mut OsRng)
                    }
                    RsaOp::Verify => public
                        .verify_pkcs1v15_prehashed(HashAlg::Sha256, &x.hash, &x.signature)
                        .map(|()| vec![1]),
                    RsaOp::Encrypt => public.encrypt_pkcs1v15(&x.message, &mut OsRng),
                    RsaOp::Decrypt => private.decrypt_pkcs1v15(&x.ciphertext, &mut OsRng),
                }
                .map_err(err)?;
                Ok(())
            },
            // Encryption is randomized; the others are comparable across implementations.
            move |(_, _, out)| (op != RsaOp::Encrypt).then(|| out.clone()),
        ))
    })
}

/// Our batched candidate for a private-key `op`: each call one [`private_batch`] of `n`
/// requests with the same key and input; every result must be the one the others computed.
fn ours_batched(op: RsaOp, n: usize, x: &Arc<Inputs>) -> Candidate {
    let x = x.clone();
    let make = move || {
        let private = RsaPrivateKey::from_pkcs8_der(x.private).map_err(|e| e.to_string())?;
        let request = match op {
            RsaOp::Sign => PrivateRequest::SignPkcs1v15Prehashed {
                hash: HashAlg::Sha256,
                digest: x.hash.clone(),
            },
            RsaOp::Decrypt => PrivateRequest::DecryptPkcs1v15 { ciphertext: x.ciphertext.clone() },
            _ => return Err("internal error: no batched public-key operation".to_string()),
        };
        Ok(bench(
            (private, vec![request; n], Vec::new()),
            |(private, requests, out): &mut (RsaPrivateKey, Vec<PrivateRequest>, Vec<u8>)| {
                let batch: Vec<_> = requests.iter().map(|r| (&*private, r)).collect();
                let results = private_batch(&batch, &mut OsRng);
                if results.len() != requests.len() {
                    return Err("internal error: private_batch lost requests".into());
                }
                for r in results {
                    let r = r.map_err(|e| e.to_string())?;
                    if out.is_empty() {
                        *out = r;
                    } else if r != *out {
                        return Err("requests of one batch computed different results".into());
                    }
                }
                Ok(())
            },
            |(_, _, out)| Some(out.clone()),
        ))
    };
    Candidate { who: Who::Ours, batch: Some(n), make: Box::new(make) }
}

/// An OpenSSL copy's candidate for `op`: the key is read and the context prepared once per
/// thread; each call is one `EVP_PKEY_sign` / `verify` / `encrypt` / `decrypt`.
#[cfg(feature = "peers")]
fn openssl_candidate(lib: &'static Openssl, op: RsaOp, x: &Arc<Inputs>) -> Candidate {
    use compare::openssl::RsaOp as PeerOp;
    let x = x.clone();
    Candidate::peer(lib.info(), move || {
        let private = matches!(op, RsaOp::Sign | RsaOp::Decrypt);
        let key = if private {
            lib.rsa_private_key_der(x.private)
        } else {
            lib.rsa_public_key_der(x.public)
        };
        let padding = if matches!(op, RsaOp::Sign | RsaOp::Verify) { SIGN } else { ENCRYPT };
        let peer_op = match op {
            RsaOp::Sign => PeerOp::Sign,
            RsaOp::Verify => PeerOp::Verify,
            RsaOp::Encrypt => PeerOp::Encrypt,
            RsaOp::Decrypt => PeerOp::Decrypt,
        };
        let ctx = key.and_then(|k| k.prepare(peer_op, padding)).map_err(peer_err)?;
        let out = vec![0u8; ctx.output_len()];
        let x = x.clone();
        Ok(bench(
            (ctx, out, 0usize),
            move |(ctx, out, len)| {
                *len = match op {
                    RsaOp::Sign => ctx.run_into(&x.hash, out),
                    RsaOp::Encrypt => ctx.run_into(&x.message, out),
                    RsaOp::Decrypt => ctx.run_into(&x.ciphertext, out),
                    RsaOp::Verify => match ctx.verify(&x.hash, &x.signature) {
                        Ok(true) => {
                            out[0] = 1;
                            Ok(1)
                        }
                        Ok(false) => return Err("signature did not verify".into()),
                        Err(e) => Err(e),
                    },
                }
                .map_err(peer_err)?;
                Ok(())
            },
            // Encryption is randomized; the others are comparable across implementations.
            move |(_, out, len)| (op != RsaOp::Encrypt).then(|| out[..*len].to_vec()),
        ))
    })
}

/// The Rust peers' candidates for `op` (sign and verify), or a note where one of them has
/// none: a key size it does not take, or an operation not measured for it.
#[cfg(feature = "peers")]
fn rust_candidates(ctx: &Context<'_>, op: RsaOp, bits: u32, x: &Arc<Inputs>, row: &mut Row) {
    let selected: Vec<&str> = [(ctx.peers.aws_lc, "aws-lc-rs"), (ctx.peers.ring, "ring")]
        .into_iter()
        .filter_map(|(on, id)| on.then_some(id))
        .collect();
    if selected.is_empty() {
        return;
    }
    let signing = match op {
        RsaOp::Sign => true,
        RsaOp::Verify => false,
        RsaOp::Encrypt => {
            row.notes.push(format!(
                "{} encrypt, decrypt: {} measured for sign and verify only",
                row.alg,
                selected.join(", ")
            ));
            return;
        }
        RsaOp::Decrypt => return,
    };
    // Each peer's key is read once here: a size it rejects becomes a note, not a cell.
    let mut add = |check: compare::Result<()>, c: Candidate| match check {
        Ok(()) => row.candidates.push(c),
        Err(e) => row.notes.push(format!("{} {}: {e}", row.alg, row.op)),
    };
    if ctx.peers.aws_lc {
        let check = if signing {
            aws_lc::RsaSigner::from_pkcs8(x.private, bits).map(drop)
        } else {
            aws_lc::RsaVerifier::from_spki(x.public, bits).map(drop)
        };
        let c = if signing {
            signer(aws_lc::info(), x, move |x| {
                let key = aws_lc::RsaSigner::from_pkcs8(x.private, bits)?;
                let len = key.signature_len();
                Ok((len, Box::new(move |m: &[u8], out: &mut [u8]| key.sign_into(m, out))))
            })
        } else {
            verifier(aws_lc::info(), x, move |x| {
                let key = aws_lc::RsaVerifier::from_spki(x.public, bits)?;
                Ok(Box::new(move |m: &[u8], sig: &[u8]| key.verify(m, sig)))
            })
        };
        add(check, c);
    }
    if ctx.peers.ring {
        let check = if signing {
            ring::RsaSigner::from_pkcs8(x.private, bits).map(drop)
        } else {
            ring::RsaVerifier::from_spki(x.public, bits).map(drop)
        };
        let c = if signing {
            signer(ring::info(), x, move |x| {
                let key = ring::RsaSigner::from_pkcs8(x.private, bits)?;
                let len = key.signature_len();
                Ok((len, Box::new(move |m: &[u8], out: &mut [u8]| key.sign_into(m, out))))
            })
        } else {
            verifier(ring::info(), x, move |x| {
                let key = ring::RsaVerifier::from_spki(x.public, bits)?;
                Ok(Box::new(move |m: &[u8], sig: &[u8]| key.verify(m, sig)))
            })
        };
        add(check, c);
    }
}

/// Signs `message` into `out` (a signature's length).
#[cfg(feature = "peers")]
type SignFn = Box<dyn Fn(&[u8], &mut [u8]) -> compare::Result<()>>;
/// Whether `signature` verifies over `message`.
#[cfg(feature = "peers")]
type VerifyFn = Box<dyn Fn(&[u8], &[u8]) -> bool>;

/// A Rust peer's "sign" candidate: `prepare` reads the key once per thread and gives the
/// signature length and the signing call; each timed call signs the row's message.
#[cfg(feature = "peers")]
fn signer(
    info: &compare::PeerInfo,
    x: &Arc<Inputs>,
    prepare: impl Fn(&Inputs) -> compare::Result<(usize, SignFn)> + Send + Sync + 'static,
) -> Candidate {
    let x = x.clone();
    Candidate::peer(info, move || {
        let (len, sign) = prepare(&x).map_err(peer_err)?;
        let x = x.clone();
        Ok(bench(
            vec![0u8; len],
            move |out| sign(&x.signed, out).map_err(peer_err),
            |out| Some(out.clone()),
        ))
    })
}

/// A Rust peer's "verify" candidate: `prepare` reads the public key once per thread; each
/// timed call verifies the shared signature over the row's message.
#[cfg(feature = "peers")]
fn verifier(
    info: &compare::PeerInfo,
    x: &Arc<Inputs>,
    prepare: impl Fn(&Inputs) -> compare::Result<VerifyFn> + Send + Sync + 'static,
) -> Candidate {
    let x = x.clone();
    Candidate::peer(info, move || {
        let verify = prepare(&x).map_err(peer_err)?;
        let x = x.clone();
        Ok(bench(
            vec![0u8],
            move |out| {
                if !verify(&x.signed, &x.signature) {
                    return Err("signature did not verify".into());
                }
                out[0] = 1;
                Ok(())
            },
            |out| Some(out.clone()),
        ))
    })
}
