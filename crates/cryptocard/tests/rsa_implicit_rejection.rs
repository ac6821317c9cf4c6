//! PKCS#1 v1.5 decryption with implicit rejection against the test vectors of
//! draft-irtf-cfrg-rsa-guidance as OpenSSL 3.2+ carries them
//! (`tests/data/rsa/openssl_implicit_rejection.txt`): 2048-, 2049- and 3072-bit keys,
//! valid ciphertexts and invalid ones whose synthetic messages are given.
//!
//! A quoted output is a real message (valid padding): both decryption forms must return
//! it. A hex output (or an empty one) is the synthetic message of an invalid padding: the
//! implicit form must return exactly it, the explicit form `Error::Decryption`.
//! Ciphertexts shorter than k bytes (OpenSSL's API pads them) are refused by both forms,
//! as RFC 8017 7.2.2 step 1 says; the same ciphertext padded to k bytes must then give the
//! expected output.

use cryptocard::Error;
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use std::collections::HashMap;

const DATA: &str = include_str!("data/rsa/openssl_implicit_rejection.txt");

struct Case {
    key: String,
    input: Vec<u8>,
    output: Vec<u8>,
    valid: bool,
}

fn parse() -> (HashMap<String, RsaPrivateKey>, Vec<Case>) {
    let mut keys = HashMap::new();
    let mut cases = Vec::new();
    let mut lines = DATA.lines().peekable();
    let mut current_key = String::new();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix("PrivateKey = ") {
            let mut pem = String::new();
            for l in lines.by_ref() {
                pem.push_str(l);
                pem.push('\n');
                if l.starts_with("-----END") {
                    break;
                }
            }
            keys.insert(name.to_string(), RsaPrivateKey::from_pem(&pem, None).unwrap());
        } else if let Some(name) = line.strip_prefix("Decrypt = ") {
            current_key = name.to_string();
        } else if let Some(hex_input) = line.strip_prefix("Input = ") {
            let out_line = lines.next().unwrap();
            let out = out_line.strip_prefix("Output =").unwrap().trim();
            let (output, valid) = match out.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                Some(text) => (text.as_bytes().to_vec(), true),
                None => (hex::decode(out).unwrap(), false),
            };
            let input = hex::decode(hex_input).unwrap();
            cases.push(Case { key: current_key.clone(), input, output, valid });
        }
    }
    (keys, cases)
}

#[test]
fn implicit_rejection_vectors() {
    let (keys, cases) = parse();
    assert_eq!(keys.len(), 3);
    let (mut exact, mut short, mut synthetic) = (0, 0, 0);
    for (i, case) in cases.iter().enumerate() {
        let key = &keys[&case.key];
        let k = key.size();
        let mut ct = case.input.clone();
        if ct.len() < k {
            assert_eq!(key.decrypt_pkcs1v15(&ct, &mut OsRng), Err(Error::Decryption), "case {i}");
            assert_eq!(key.decrypt_pkcs1v15_explicit(&ct, &mut OsRng), Err(Error::Decryption));
            let mut padded = vec![0u8; k - ct.len()];
            padded.extend_from_slice(&ct);
            ct = padded;
            short += 1;
        } else {
            exact += 1;
        }
        assert_eq!(ct.len(), k, "case {i}");
        assert_eq!(
            key.decrypt_pkcs1v15(&ct, &mut OsRng).unwrap(),
            case.output,
            "case {i} ({})",
            case.key
        );
        let explicit = key.decrypt_pkcs1v15_explicit(&ct, &mut OsRng);
        if case.valid {
            assert_eq!(explicit.unwrap(), case.output, "case {i}");
        } else {
            assert_eq!(explicit, Err(Error::Decryption), "case {i}");
            synthetic += 1;
        }
    }
    println!(
        "implicit rejection vectors: {} cases ({exact} of k bytes, {short} shorter and refused, then padded), {synthetic} synthetic messages matched",
        cases.len()
    );
    assert_eq!(cases.len(), 48);
}
