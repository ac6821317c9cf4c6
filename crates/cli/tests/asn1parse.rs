//! `cryptocard asn1parse` beside `openssl asn1parse`: every certificate, key, CRL, CMS
//! message, PKCS#12 file and OCSP message of the test data listed with each layout option
//! prints what OpenSSL prints; so do hand-made hostile encodings (bad headers, lengths past
//! their container, nesting past 128 levels, objects OpenSSL cannot name, bad integers and
//! booleans) and seeded mutations of real ones, with the same success or failure. Where
//! openssl is not installed, one listing is held against OpenSSL's committed output and
//! the hostile cases against what they must contain. `-strparse`, `-offset`, `-length`,
//! `-out` and their errors; `rsautl` and `pkeyutl -asn1parse`.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `asn1parse ARGS` here, and where installed `openssl asn1parse ARGS` with the same
/// stdout and the same success; our output.
fn both(args: &[&str], stdin: &[u8]) -> Output {
    let mut all = vec!["asn1parse"];
    all.extend_from_slice(args);
    let ours = run(&all, stdin);
    assert!(!String::from_utf8_lossy(&ours.stderr).contains("panicked"), "{args:?}");
    if have_openssl("asn1parse") {
        let theirs = openssl_raw(&all, stdin);
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "asn1parse {args:?}"
        );
        assert_eq!(ours.status.success(), theirs.status.success(), "asn1parse {args:?}");
    }
    ours
}

/// The test data of the command and library tests that OpenSSL reads as one PEM block
/// or as DER: (path, "PEM" or "DER").
fn inputs() -> Vec<(String, &'static str)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in
        ["cli/tests/data", "cli/tests/data/ca", "pki/tests/data", "cryptocard/tests/data/rsa"]
    {
        let mut names: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        names.sort();
        for p in names {
            let data = std::fs::read(&p).unwrap();
            let form = if let Some(at) = data.windows(11).position(|w| w == b"-----BEGIN ") {
                // OpenSSL 3.0 reads PEM through a base64 filter that skips what does not
                // decode, not as a PEM block (as later versions and ours do): text before
                // the block can end its listing early, and RFC 1421 headers (encrypted
                // PEM) become three octets of their own. Such files are left out.
                if at > 0 || data.windows(10).any(|w| w == b"Proc-Type:") {
                    continue;
                }
                "PEM"
            } else if data.first() == Some(&0x30) && data.len() > 16 {
                "DER"
            } else {
                continue;
            };
            out.push((p.to_str().unwrap().to_string(), form));
        }
    }
    out
}

#[test]
fn test_data_lists_as_openssl_lists_it() {
    let inputs = inputs();
    assert!(inputs.len() > 80, "{}", inputs.len());
    for (path, form) in &inputs {
        for opts in [&[][..], &["-i"], &["-dump"], &["-i", "-dlimit", "9"]] {
            let mut args = vec!["-inform", form, "-in", path];
            args.extend_from_slice(opts);
            both(&args, b"");
        }
    }
}

#[test]
fn a_certificate_lists_as_openssl_3_0_listed_it() {
    let cert = data("root-certum.pem");
    let out = both(&["-i", "-dump", "-in", cert.to_str().unwrap()], b"");
    let want = std::fs::read(data("root-certum.asn1parse.txt")).unwrap();
    assert_eq!(String::from_utf8_lossy(&ok(&out)), String::from_utf8_lossy(&want));
}

/// A TLV with a definite length.
fn tlv(tag: u8, c: &[u8]) -> Vec<u8> {
    common::paths::tlv(tag, c)
}

/// Lists `der` (as DER from stdin) with `opts`, beside OpenSSL.
fn list(der: &[u8], opts: &[&str]) -> Output {
    let mut args = vec!["-inform", "DER"];
    args.extend_from_slice(opts);
    both(&args, der)
}

#[test]
fn hostile_encodings_list_as_openssl_lists_them() {
    let mut long_oid = vec![0x2a];
    long_oid.extend([0x81; 600]);
    long_oid.push(1);
    let cases: Vec<(Vec<u8>, bool, &str)> = vec![
        // (input, lists completely, a line it must contain)
        (tlv(6, &long_oid), true, ":<INVALID>0000 - 2a 81 81"),
        (tlv(6, &[0x2a, 0x80, 1]), true, ":BAD OBJECT:[2A8001]"),
        (
            tlv(6, &[0x2a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            true,
            ":1.2.1180591620717411303423",
        ),
        (tlv(1, &[1, 2]), true, ":BAD BOOLEAN:1:[0102]"),
        (tlv(2, &[0xff, 0x00]), true, ":-0100"),
        (tlv(2, &[0x00, 0x01]), true, ":BAD INTEGER:[0001]"),
        (tlv(10, &[0xfe]), true, "ENUMERATED        :-02"),
        ([0x1f, 0x81, 0x00, 0x01, 0x41].to_vec(), true, "<ASN1 128>"),
        ([0xc1, 1, 0, 0x41, 0].to_vec(), true, "priv [ 1 ] "),
        (
            [0x30, 0x80, 0x24, 0x80, 4, 1, 0x41, 0, 0, 0, 0].to_vec(),
            true,
            "l=inf  cons: OCTET STRING",
        ),
        ([0, 0, 5, 0].to_vec(), true, "prim: EOC"),
        ([0x30, 0x05, 2, 1].to_vec(), false, "Error in encoding"),
        ([0x04, 0x81, 0x00].to_vec(), false, "Error in encoding"),
        ([0x04, 0x80, 1, 0, 0].to_vec(), false, "Error in encoding"),
        ([0x30, 0x80].repeat(130), false, "BAD RECURSION DEPTH"),
        (tlv(4, &(0..40).collect::<Vec<u8>>()), true, "[HEX DUMP]:000102"),
        (tlv(12, "h\u{e9}llo".as_bytes()), true, "UTF8STRING        :h\u{e9}llo"),
    ];
    for (der, complete, line) in &cases {
        let out = list(der, &[]);
        assert_eq!(out.status.success(), *complete, "{der:02x?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains(line), "{line}: {out:?}");
        for opts in [&["-i"][..], &["-dump"], &["-dlimit", "3"], &["-strparse", "2"]] {
            list(der, opts);
        }
    }
}

#[test]
fn mutated_encodings_list_as_openssl_lists_them() {
    if !have_openssl("mutated_encodings_list_as_openssl_lists_them") {
        return;
    }
    let seeds: Vec<Vec<u8>> = ["rsa2048.der", "rsa2048.pub.der", "rsa2048.enc.der"]
        .iter()
        .map(|n| std::fs::read(data(n)).unwrap())
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    for round in 0..240 {
        let mut d = seeds[round % seeds.len()].clone();
        for _ in 0..1 + next(3) {
            let i = next(d.len());
            match next(4) {
                0 => d[i] = next(256) as u8,
                1 => d.insert(i, [0x00, 0x80, 0x81, 0x1f, 0xff, 0x24][next(6)]),
                2 => d.drain(i..(i + 1 + next(8)).min(d.len())).for_each(drop),
                _ => d.truncate(i.max(1)),
            }
        }
        let strparse = (1 + next(d.len().max(2) - 1)).to_string();
        let opts: &[&str] = match round % 4 {
            0 => &[],
            1 => &["-i", "-dump"],
            2 => &["-dlimit", "5"],
            _ => &["-strparse", &strparse],
        };
        list(&d, opts);
    }
}

#[test]
fn selections_and_output() {
    let dir = tempdir();
    let cert = ok(&run(
        &["x509", "-in", data("root-certum.pem").to_str().unwrap(), "-outform", "DER"],
        b"",
    ));
    // The SubjectPublicKeyInfo's BIT STRING at 363, the key inside it, its modulus.
    for opts in [
        &["-strparse", "363"][..],
        &["-strparse", "363", "-strparse", "4"],
        &["-strparse", "0x16b"],
        &["-offset", "4", "-length", "30"],
        &["-offset", "010"],
        &["-strparse", "99999"],
    ] {
        list(&cert, opts);
    }
    let listed = String::from_utf8(ok(&list(&cert, &["-strparse", "363", "-i"]))).unwrap();
    assert!(listed.contains("prim:  INTEGER           :010001"), "{listed}");
    // -out writes the selection as it is, with or without a listing.
    let key = path(dir.path(), "key.der");
    ok(&run(&["asn1parse", "-inform", "DER", "-strparse", "363", "-out", &key, "-noout"], &cert));
    let spki = &cert[363 + 5..363 + 4 + 527];
    assert_eq!(std::fs::read(&key).unwrap(), spki);
    let piece = path(dir.path(), "piece.der");
    // (Thirty octets of a longer SEQUENCE: its header runs past them, exit 1.)
    let out = run(
        &["asn1parse", "-inform", "DER", "-offset", "4", "-length", "30", "-out", &piece],
        &cert,
    );
    assert_eq!(out.stdout, b"Error in encoding\n");
    fails(&out, 1, "stopped at a bad encoding");
    assert_eq!(std::fs::read(&piece).unwrap(), &cert[4..34]);
    // B64 (a later OpenSSL's format) is the DER in base64.
    let b64 = ok(&run(&["base64"], &cert));
    assert_eq!(ok(&run(&["asn1parse", "-inform", "B64"], &b64)), ok(&list(&cert, &[])));
}

#[test]
fn bad_requests_fail_with_one_line() {
    let null = tlv(0x30, &tlv(5, &[]));
    let oid = tlv(0x30, &tlv(6, &[0x2a, 3]));
    let cases: &[(&[&str], &[u8], &str)] = &[
        (&["-inform", "DER", "-strparse", "2"], &null, "Can't parse NULL type"),
        (&["-inform", "DER", "-strparse", "2"], &oid, "Can't parse OBJECT type"),
        (
            &["-inform", "DER", "-strparse", "1"],
            &[0x30, 0x05, 0x04, 0x09, 0],
            "Error parsing structure",
        ),
        (&["-inform", "DER", "-offset", "9"], &null, "offset out of range"),
        (&["-inform", "DER", "-offset", "0"], &null, "a positive number, not '0'"),
        (&["-inform", "DER", "-length", "x"], &null, "a positive number, not 'x'"),
        (&["-inform", "XML"], &null, "-inform: PEM, DER or B64"),
        (&[], b"no PEM here\n", "Error reading PEM file"),
        (
            &["-genstr", "INTEGER:x"],
            b"",
            "Error generating structure: malformed input: illegal integer",
        ),
    ];
    for (args, stdin, needle) in cases {
        let mut all = vec!["asn1parse"];
        all.extend_from_slice(args);
        fails(&run(&all, stdin), 1, needle);
    }
    // A listing that meets a bad encoding prints up to it, OpenSSL's line, and exits 1.
    let out = run(&["asn1parse", "-inform", "DER"], &[0x30, 0x05, 2, 1]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().last(), Some("Error in encoding"));
    fails(&out, 1, "stopped at a bad encoding");
}

#[test]
fn rsautl_and_pkeyutl_list_their_output() {
    let key = data("rsa2048.pem");
    let key = key.to_str().unwrap();
    let dir = tempdir();
    let sig = path(dir.path(), "sig");
    std::fs::write(path(dir.path(), "msg"), b"hello\n").unwrap();
    ok(&run(&["dgst", "-sha256", "-sign", key, "-out", &sig, &path(dir.path(), "msg")], b""));
    for cmd in [&["rsautl", "-verify"][..], &["pkeyutl", "-verifyrecover"]] {
        let mut args = cmd.to_vec();
        args.extend(["-inkey", key, "-in", &sig, "-asn1parse"]);
        let ours = ok_text(&run(&args, b""));
        assert!(ours.contains("prim:   OBJECT            :sha256\n"), "{ours}");
        assert!(ours.contains("      0000 - "), "{ours}");
        if have_openssl("rsautl_and_pkeyutl_list_their_output") {
            assert_eq!(ours, String::from_utf8(openssl(&args, b"")).unwrap());
        }
    }
}

/// A configuration for `-genconf`: nested sections, a SET to sort, tagging and wrappers,
/// every type (the string in its `asn1` value).
const GENCONF: &str = "\
asn1 = SEQUENCE:top
[top]
version = EXP:0,INT:2
serial = INT:0x0123456789abcdef
names = SET:names
when = SEQUENCE:when
flags = FORMAT:BITLIST,BITSTR:0,3,9
key = OCTWRAP,SEQWRAP,OID:rsaEncryption
empty = IMP:3A,SEQUENCE:empty
null = NULL
ok = BOOL:TRUE
[names]
c = PRINTABLE:DE
o = UTF8:Caf\u{e9}
e = IA5:e@x.example
n = FORMAT:UTF8,BMP:\u{4e2d}
[when]
a = UTC:260101000000Z
b = GENTIME:20500101000000.25Z
[empty]
";

#[test]
fn generated_structures_as_openssl_generates_them() {
    let dir = tempdir();
    let conf = path(dir.path(), "gen.cnf");
    std::fs::write(&conf, GENCONF).unwrap();
    let out = path(dir.path(), "out.der");
    for args in [
        vec!["-genconf", conf.as_str(), "-i"],
        vec!["-genconf", conf.as_str(), "-genstr", "EXP:1,SEQUENCE:names", "-i"],
        vec!["-genstr", "IMP:0,FORMAT:HEX,OCT:00ff"],
        vec!["-genstr", "SEQWRAP,SETWRAP,BITWRAP,ENUM:-1", "-i"],
        vec!["-genstr", "EXP:100A,UNIV:ab", "-dump"],
        vec!["-genstr", "GENTIME:20261203131500Z", "-out", out.as_str()],
    ] {
        let listing = ok_text(&both(&args, b""));
        assert!(listing.contains("d=0"), "{args:?}: {listing}");
    }
    // The DER written with -out, for a time the listing shows.
    assert_eq!(std::fs::read(&out).unwrap(), b"\x18\x0f20261203131500Z");
    // What it refuses, it refuses in one line, as does OpenSSL (exit status 1).
    for args in [
        vec!["-genstr", "SEQUENCE:top"],
        vec!["-genstr", "BOOL:maybe"],
        vec!["-genstr", "NOSUCH:1"],
        vec!["-genconf", conf.as_str(), "-genstr", "SEQUENCE:nosuch"],
    ] {
        let out = both(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        fails(&out, 1, "Error generating structure");
    }
    let plain = path(dir.path(), "plain.cnf");
    std::fs::write(&plain, "x = 1\n").unwrap();
    fails(&run(&["asn1parse", "-genconf", &plain], b""), 1, "Can't find 'asn1'");
}
