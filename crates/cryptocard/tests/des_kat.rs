//! Known-answer tests for DES and triple-DES: the NIST TDES tables (SP 800-20 style: one
//! key used three times, so also single DES), the FIPS 81 examples, Rivest's recurrence,
//! and BoringSSL's DES cipher tests. Data in tests/data/des (see its README).

mod common;

use common::unhex;
use cryptocard::cipher::lookup;
use cryptocard::des::modes;
use cryptocard::des::{BlockCipher64, Des, Direction, Mode, Padding, Tdes, TdesEde2, TdesEde3};
use serde_json::Value;
use std::collections::HashMap;

/// A file of tests/data/des.
fn read(path: &str) -> String {
    common::read_data(&format!("des/{path}"))
}

/// One case of a NIST .rsp file.
struct RspCase {
    encrypt: bool,
    key: Vec<u8>,
    iv: Vec<u8>,
    pt: Vec<u8>,
    ct: Vec<u8>,
}

fn parse_rsp(text: &str) -> Vec<RspCase> {
    let mut cases = Vec::new();
    let mut encrypt = true;
    let mut cur: HashMap<String, String> = HashMap::new();
    let mut flush = |cur: &mut HashMap<String, String>, encrypt: bool| {
        if cur.contains_key("COUNT") {
            cases.push(RspCase {
                encrypt,
                key: unhex(&cur["KEYs"]),
                iv: cur.get("IV").map(|v| unhex(v)).unwrap_or_default(),
                pt: unhex(&cur["PLAINTEXT"]),
                ct: unhex(&cur["CIPHERTEXT"]),
            });
        }
        cur.clear();
    };
    for line in text.lines().map(str::trim) {
        if line == "[ENCRYPT]" || line == "[DECRYPT]" {
            flush(&mut cur, encrypt);
            encrypt = line == "[ENCRYPT]";
        } else if line.is_empty() {
            flush(&mut cur, encrypt);
        } else if let Some((k, v)) = line.split_once(" = ") {
            cur.insert(k.to_string(), v.to_string());
        }
    }
    flush(&mut cur, encrypt);
    cases
}

fn check_case<C: BlockCipher64>(c: &C, mode: Mode, case: &RspCase, what: &str) {
    if case.encrypt {
        let got = modes::encrypt(c, mode, &case.iv, Padding::None, &case.pt).unwrap();
        assert_eq!(hex::encode(got), hex::encode(&case.ct), "{what} encrypt");
    } else {
        let got = modes::decrypt(c, mode, &case.iv, Padding::None, &case.ct).unwrap();
        assert_eq!(hex::encode(got), hex::encode(&case.pt), "{what} decrypt");
    }
}

fn run_nist(mode: Mode, dir: &str, prefix: &str) -> usize {
    let mut n = 0;
    for table in ["invperm", "permop", "subtab", "varkey", "vartext"] {
        let file = format!("tdes-kat/{dir}/{prefix}{table}.rsp");
        let cases = parse_rsp(&read(&file));
        assert!(!cases.is_empty(), "{file}");
        for (i, case) in cases.iter().enumerate() {
            let what = format!("{file} case {i}");
            let k = &case.key;
            assert_eq!(k.len(), 8, "{what}");
            check_case(&Des::new(k).unwrap(), mode, case, &what);
            check_case(&Tdes::new(k).unwrap(), mode, case, &what);
            check_case(&TdesEde2::new(&[&k[..], k].concat()).unwrap(), mode, case, &what);
            check_case(&TdesEde3::new(&[&k[..], k, k].concat()).unwrap(), mode, case, &what);
            n += 1;
        }
    }
    n
}

#[test]
fn nist_tdes_ecb_tables() {
    assert_eq!(run_nist(Mode::Ecb, "ECB", "TECB"), 470);
}

#[test]
fn nist_tdes_cbc_tables() {
    assert_eq!(run_nist(Mode::Cbc, "CBC", "TCBC"), 470);
}

fn mac_kats() -> Vec<Value> {
    let v: Value = serde_json::from_str(&read("des-mac-kats.json")).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

#[test]
fn fips81_examples() {
    let mut seen = 0;
    for v in mac_kats() {
        let mode = match v["alg"].as_str().unwrap() {
            "des-ecb" => Mode::Ecb,
            "des-cbc" => Mode::Cbc,
            _ => continue,
        };
        let des = Des::new(&unhex(v["key"].as_str().unwrap())).unwrap();
        let iv = v.get("iv").map(|x| unhex(x.as_str().unwrap())).unwrap_or_default();
        let pt = unhex(v["pt"].as_str().unwrap());
        let ct = unhex(v["ct"].as_str().unwrap());
        assert_eq!(modes::encrypt(&des, mode, &iv, Padding::None, &pt).unwrap(), ct, "{}", v["id"]);
        assert_eq!(modes::decrypt(&des, mode, &iv, Padding::None, &ct).unwrap(), pt, "{}", v["id"]);
        seen += 1;
    }
    assert_eq!(seen, 2);
}

/// Rivest, "Testing implementations of DES" (1985): X(i+1) = E(X_i, X_i) for even i and
/// D(X_i, X_i) for odd i (the block is its own key); X16 is published.
#[test]
fn rivest_recurrence() {
    let v = mac_kats().into_iter().find(|v| v["alg"] == "des-recurrence").unwrap();
    let mut x: [u8; 8] = unhex(v["x0"].as_str().unwrap()).try_into().unwrap();
    for i in 0..16 {
        let des = Des::from_key(&x);
        if i % 2 == 0 { des.encrypt_block(&mut x) } else { des.decrypt_block(&mut x) }
    }
    assert_eq!(hex::encode(x), v["x16"].as_str().unwrap());
}

#[test]
fn boringssl_cipher_tests() {
    let text = read("boringssl-des-cipher-tests.txt");
    let mut n = 0;
    for block in text.split("\n\n") {
        let fields: HashMap<&str, &str> = block
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('=').map(|(k, v)| (k.trim(), v.trim())))
            .collect();
        let Some(name) = fields.get("Cipher") else { continue };
        let spec = lookup(name).unwrap_or_else(|| panic!("no cipher {name}"));
        let key = unhex(fields["Key"]);
        let iv = fields.get("IV").map(|v| unhex(v)).unwrap_or_default();
        let pt = unhex(fields["Plaintext"]);
        let ct = unhex(fields["Ciphertext"]);
        for (dir, input, want) in [(Direction::Encrypt, &pt, &ct), (Direction::Decrypt, &ct, &pt)] {
            let mut ctx = spec.new_ctx(&key, &iv, dir, Padding::None).unwrap();
            let mut out = vec![0u8; input.len() + 8];
            let a = ctx.update(input, &mut out).unwrap();
            let b = ctx.finalize(&mut out[a..]).unwrap();
            assert_eq!(&out[..a + b], &want[..], "{name} {dir:?} key {}", fields["Key"]);
        }
        n += 1;
    }
    assert_eq!(n, 25);
}
