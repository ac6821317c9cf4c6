//! ANSI X9.31 signatures against OpenSSL's (`tests/data/rsa/x931_openssl.txt`, made by
//! OpenSSL 3.0's default provider): the scheme is deterministic, so ours must be the same
//! bytes, and both directions verify; a changed signature, message or digest does not;
//! recovery gives the digest and its id byte; `private_batch` makes the same signatures
//! as the single operation.

use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, private_batch, x931};
use std::collections::HashMap;

const DATA: &str = include_str!("data/rsa/x931_openssl.txt");

struct Case {
    key: &'static str,
    hash: HashAlg,
    msg: Vec<u8>,
    sig: Vec<u8>,
}

fn key(name: &str) -> RsaPrivateKey {
    let pem = match name {
        "rsa1024.pem" => include_str!("data/rsa/rsa1024.pem"),
        "rsa2048_pkcs8.pem" => include_str!("data/rsa/rsa2048_pkcs8.pem"),
        "rsa3072.pem" => include_str!("data/rsa/rsa3072.pem"),
        other => panic!("no key {other}"),
    };
    RsaPrivateKey::from_pem(pem, None).unwrap()
}

fn cases() -> (HashMap<&'static str, RsaPrivateKey>, Vec<Case>) {
    let mut keys = HashMap::new();
    let mut cases = Vec::new();
    for block in DATA.split("\n\n").filter(|b| b.contains("Sig = ")) {
        let field = |name: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(" ="))
                .map(str::trim)
                .unwrap_or_else(|| panic!("no {name} in {block}"))
        };
        let name = field("Key");
        keys.entry(name).or_insert_with(|| key(name));
        cases.push(Case {
            key: name,
            hash: HashAlg::from_name(field("Hash")).unwrap(),
            msg: hex::decode(field("Msg")).unwrap(),
            sig: hex::decode(field("Sig")).unwrap(),
        });
    }
    (keys, cases)
}

#[test]
fn signatures_are_openssls_bytes_and_verify() {
    let (keys, cases) = cases();
    assert_eq!(cases.len(), 36);
    // Both sides of the min occur: signatures whose Σ^e mod n is IR itself (ends in the
    // nibble C) and signatures sent as n - s (Σ^e mod n is n - IR).
    let sides: Vec<bool> = cases
        .iter()
        .map(|c| keys[c.key].public_key().raw_public(&c.sig).unwrap().last().unwrap() & 0xf == 0xc)
        .collect();
    assert!(sides.contains(&true) && sides.contains(&false), "{sides:?}");
    for c in &cases {
        let k = &keys[c.key];
        let public = k.public_key();
        let sig = k.sign_x931(c.hash, &c.msg, &mut OsRng).unwrap();
        assert_eq!(sig, c.sig, "{} {:?} {}", c.key, c.hash, hex::encode(&c.msg));
        public.verify_x931(c.hash, &c.msg, &c.sig).unwrap();
        // Recovery: the digest, then its ISO/IEC 10118 id.
        let digest = Hasher::digest(c.hash, &c.msg);
        let mut framed = digest.as_bytes().to_vec();
        framed.push(x931::hash_id(c.hash).unwrap());
        assert_eq!(public.recover_x931(&c.sig).unwrap(), framed);
        assert_eq!(public.recover_x931_digest(c.hash, &c.sig).unwrap(), digest.as_bytes());
        let wrong = if c.hash == HashAlg::Sha1 { HashAlg::Sha256 } else { HashAlg::Sha1 };
        assert!(public.recover_x931_digest(wrong, &c.sig).is_err());
        // The raw form signs the framed bytes to the same signature.
        assert_eq!(k.sign_x931_raw(&framed, &mut OsRng).unwrap(), c.sig);
        // Changes that must not verify.
        let mut bad = c.sig.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(public.verify_x931(c.hash, &c.msg, &bad).is_err());
        assert!(public.verify_x931(c.hash, b"another message", &c.sig).is_err());
        let other = if c.hash == HashAlg::Sha256 { HashAlg::Sha512 } else { HashAlg::Sha256 };
        assert!(public.verify_x931(other, &c.msg, &c.sig).is_err());
        assert!(public.verify_x931(c.hash, &c.msg, &c.sig[1..]).is_err());
    }
}

#[test]
fn only_sha1_and_sha2_have_ids() {
    let k = key("rsa1024.pem");
    for h in [HashAlg::Sha224, HashAlg::Md5, HashAlg::Sha3_256] {
        assert!(k.sign_x931(h, b"m", &mut OsRng).is_err(), "{h:?}");
    }
    // A 1024-bit key has room for SHA-512's 64 bytes and the three framing bytes.
    assert!(k.sign_x931(HashAlg::Sha512, b"m", &mut OsRng).is_ok());
    // Framed data longer than k - 2 does not fit.
    assert!(k.sign_x931_raw(&[0x33; 127], &mut OsRng).is_err());
}

#[test]
fn batch_makes_the_same_signatures() {
    let (keys, cases) = cases();
    let requests: Vec<(&RsaPrivateKey, PrivateRequest)> = cases
        .iter()
        .map(|c| {
            let digest = Hasher::digest(c.hash, &c.msg).as_bytes().to_vec();
            (&keys[c.key], PrivateRequest::SignX931Prehashed { hash: c.hash, digest })
        })
        .collect();
    let calls: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        requests.iter().map(|(k, r)| (*k, r)).collect();
    let results = private_batch(&calls, &mut OsRng);
    for ((c, (_, req)), r) in cases.iter().zip(&requests).zip(results) {
        assert_eq!(r.as_ref().unwrap(), &c.sig, "{} {:?}", c.key, c.hash);
        assert_eq!(req.run(&keys[c.key], &mut OsRng).unwrap(), c.sig);
    }
}
