//! Readers for the files in `tests/data/` and the few standard answers kept inline.

use serde_json::Value;

/// (digest name, message, expected digest hex) from RFC 1319/1320/1321.
pub fn rfc_digests() -> Vec<(String, Vec<u8>, String)> {
    let text = include_str!("../data/rfc-digests.json");
    let json: Value = serde_json::from_str(text).expect("valid JSON");
    json.as_array()
        .expect("an array")
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().expect("string field").to_string();
            (s("alg"), s("msg").into_bytes(), s("digest"))
        })
        .collect()
}

/// SHA-1 and SHA-2 of "abc" (FIPS 180-2, appendices A to C and the SHA-224 / SHA-384
/// change-notice examples).
pub const SHA_ABC: &[(&str, &str)] = &[
    ("sha1", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("sha224", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
    ("sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
        "sha384",
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
    ),
    (
        "sha512",
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    ),
];

/// One DES example: (OpenSSL cipher name, key, iv, plaintext, ciphertext), all hex.
pub struct DesCase {
    pub alg: String,
    pub key: String,
    pub iv: String,
    pub pt: String,
    pub ct: String,
}

/// FIPS 81's ECB and CBC examples from `des-mac-kats.json`, plus its 64-bit CFB and OFB
/// examples on the same key, IV and plaintext (as in OpenSSL's destest.c, and checked with
/// `openssl enc` of the system's OpenSSL 3.0).
pub fn des_cases() -> Vec<DesCase> {
    let text = include_str!("../data/des-mac-kats.json");
    let json: Value = serde_json::from_str(text).expect("valid JSON");
    let mut cases: Vec<DesCase> = json["vectors"]
        .as_array()
        .expect("an array")
        .iter()
        .filter(|v| matches!(v["alg"].as_str(), Some("des-ecb" | "des-cbc")))
        .map(|v| DesCase {
            alg: v["alg"].as_str().unwrap().to_string(),
            key: v["key"].as_str().unwrap().to_string(),
            iv: v["iv"].as_str().unwrap_or("").to_string(),
            pt: v["pt"].as_str().unwrap().to_string(),
            ct: v["ct"].as_str().unwrap().to_string(),
        })
        .collect();
    assert_eq!(cases.len(), 2, "FIPS 81 ECB and CBC examples present");
    let pt = "4e6f77206973207468652074696d6520666f7220616c6c20"; // "Now is the time for all "
    for (alg, ct) in [
        ("des-cfb", "f3096249c7f46e51a69e839b1a92f78403467133898ea622"),
        ("des-ofb", "f3096249c7f46e5135f24a242eeb3d3f3d6d5be3255af8c3"),
    ] {
        let (key, iv) = ("0123456789abcdef".to_string(), "1234567890abcdef".to_string());
        cases.push(DesCase { alg: alg.into(), key, iv, pt: pt.into(), ct: ct.into() });
    }
    cases
}

/// The cases of a BoringSSL bignum test file whose first key is `kind` ("ModExp",
/// "Product"...): each a map from key ("A", "E", "M", "ModExp", "B", "Product") to a
/// non-negative value as big-endian bytes; cases with a negative value are left out (the
/// peers take magnitudes only).
pub fn bn_cases(text: &str, kind: &str) -> Vec<std::collections::HashMap<String, Vec<u8>>> {
    let mut cases = Vec::new();
    for block in text.split("\n\n") {
        let mut case = std::collections::HashMap::new();
        let mut negative = false;
        for line in block.lines().filter(|l| !l.starts_with('#') && l.contains(" = ")) {
            let (k, v) = line.split_once(" = ").unwrap();
            let v = v.trim();
            negative |= v.starts_with('-');
            let v = v.trim_start_matches('-');
            let v = if v.len() % 2 == 1 { format!("0{v}") } else { v.to_string() };
            case.insert(k.trim().to_string(), hex::decode(v).expect("hex value"));
        }
        if case.contains_key(kind) && !negative {
            cases.push(case);
        }
    }
    cases
}

/// Strips leading zero bytes (the files pad some values).
pub fn trim(v: &[u8]) -> &[u8] {
    let first = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    &v[first..]
}

/// The triple-DES counterpart of a single-DES OpenSSL cipher name ("des-cbc" →
/// "des-ede3-cbc"; ECB is plain "des-ede3").
pub fn ede3_name(alg: &str) -> String {
    if alg == "des-ecb" { "des-ede3".to_string() } else { alg.replacen("des-", "des-ede3-", 1) }
}
