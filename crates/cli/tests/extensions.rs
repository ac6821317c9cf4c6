//! The X.509 extension language of `req -addext` and `x509 -req -extfile` beside
//! OpenSSL's: a request is deterministic, so each `-addext` must give OpenSSL's bytes; an
//! issued certificate is dated now, so its text less the dates and signature must be
//! OpenSSL's (where OpenSSL is installed; elsewhere the text must hold the extensions).
//! The CA and requests are tests/data/ca's (see its make.sh).

mod common;

use common::*;
use std::path::Path;

fn ca_file(name: &str) -> String {
    data(&format!("ca/{name}")).to_str().unwrap().to_string()
}

const ADDEXT: &[(&str, &str)] = &[
    ("subjectAltName=DNS:a.example,IP:::1", "DNS:a.example, IP Address:0:0:0:0:0:0:0:1"),
    ("keyUsage=critical,digitalSignature,keyEncipherment", "Digital Signature, Key Encipherment"),
    ("extendedKeyUsage=serverAuth,clientAuth", "TLS Web Server Authentication, TLS Web Client"),
    ("basicConstraints=critical,CA:TRUE,pathlen:1", "CA:TRUE, pathlen:1"),
    ("subjectKeyIdentifier=hash", "X509v3 Subject Key Identifier"),
    ("nsComment=hello there", "hello there"),
    // Extensions printed undecoded, under OpenSSL's long names for their OIDs.
    ("1.3.6.1.5.5.7.1.3=DER:0c0378797a", "qcStatements: \n"),
    ("2.5.29.9=DER:0c0378797a", "X509v3 Subject Directory Attributes: \n"),
    ("1.3.6.1.4.1.11129.2.4.4=DER:0c0378797a", "CT Precertificate Signer: \n"),
    ("1.3.6.1.4.1.311.20.2=DER:0c0378797a", "1.3.6.1.4.1.311.20.2: \n"),
    // Any extension from a generator string (ASN1_generate_nconf).
    ("1.2.3.4=critical,ASN1:UTF8String:hello", "1.2.3.4: critical\n"),
    ("1.3.6.1.4.1.311.20.2=ASN1:PRINTABLESTRING:SubCA", "1.3.6.1.4.1.311.20.2: \n"),
    ("1.2.3.5=ASN1:SEQWRAP,EXP:0,INT:-5", "1.2.3.5: \n"),
    (
        "subjectAltName=otherName:1.3.6.1.4.1.311.20.2.3;UTF8:user@example.com,otherName:1.2.3.4;INT:5,otherName:1.2.3.5;IA5:x",
        "othername: UPN::user@example.com, othername: 1.2.3.4::<unsupported>, othername: 1.2.3.5::x",
    ),
    ("subjectAltName=email:copy", "email:e@x.example"),
    ("crlDistributionPoints=URI:http://crl.example/a.crl", "URI:http://crl.example/a.crl"),
];

#[test]
fn addext_requests_as_openssl_writes_them() {
    let dir = tempdir();
    let key = ca_file("leaf1.key");
    let have = have_openssl("addext");
    for (ext, shown) in ADDEXT {
        let out = path(dir.path(), "u.csr");
        let args = [
            "req",
            "-new",
            "-key",
            &key,
            "-subj",
            "/CN=x/emailAddress=e@x.example",
            "-addext",
            ext,
        ];
        let mut ours = args.to_vec();
        ours.extend_from_slice(&["-out", &out]);
        ok(&run(&ours, b""));
        let text = ok_text(&run(&["req", "-in", &out, "-noout", "-text"], b""));
        assert!(text.contains(shown), "{ext}: {text}");
        if have {
            let theirs = openssl(&args, b"");
            assert!(std::fs::read(&out).unwrap() == theirs, "{ext}: not OpenSSL's request");
        }
    }
    let out =
        run(&["req", "-new", "-key", &key, "-subj", "/CN=x", "-addext", "keyUsage=sometimes"], b"");
    fails(&out, 1, "unknown key usage 'sometimes'");
    let out = run(&["req", "-new", "-key", &key, "-subj", "/CN=x", "-addext", "keyUsage"], b"");
    fails(&out, 1, "expected NAME=VALUE");
}

/// The certificate's text less what depends on the time it was made.
fn undated_text(cert: &Path) -> String {
    let text = ok_text(&run(&["x509", "-in", cert.to_str().unwrap(), "-noout", "-text"], b""));
    let body = text.split("    Signature Value:").next().unwrap();
    body.lines()
        .filter(|l| !l.contains("Not Before:") && !l.contains("Not After :"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Issues with `args` (and where `have`, with OpenSSL's); the certificate's text must hold
/// `shown` and be OpenSSL's but for the dates.
fn issued_alike(d: &Path, args: &[&str], shown: &[&str], have: bool) {
    let ours = d.join("ours.pem");
    let mut a = args.to_vec();
    a.extend_from_slice(&["-out", ours.to_str().unwrap()]);
    ok(&run(&a, b""));
    let text = undated_text(&ours);
    for s in shown {
        assert!(text.contains(s), "{args:?}: {s} not in {text}");
    }
    if have {
        let theirs = d.join("theirs.pem");
        let mut b = args.to_vec();
        b.extend_from_slice(&["-out", theirs.to_str().unwrap()]);
        openssl(&b, b"");
        assert_eq!(text, undated_text(&theirs), "{args:?}");
    }
}

#[test]
fn extfile_issues_as_openssl_does() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(
        d.join("ext.cnf"),
        "extensions = server\n\
         [ server ]\n\
         basicConstraints = critical,CA:FALSE\n\
         subjectAltName = @alts\n\
         extendedKeyUsage = clientAuth\n\
         authorityKeyIdentifier = keyid:always,issuer\n\
         [ alts ]\n\
         DNS.1 = x.example\n\
         IP.1 = 10.0.0.1\n\
         [ self ]\n\
         subjectKeyIdentifier = hash\n\
         authorityKeyIdentifier = keyid:always,issuer:always\n\
         basicConstraints = CA:TRUE\n\
         [ bare ]\n\
         extendedKeyUsage = codeSigning\n\
         [ policies ]\n\
         certificatePolicies = 1.2.3.4, @polsect, ia5org, @pol2\n\
         [ polsect ]\n\
         policyIdentifier = 1.3.5.8\n\
         CPS.1 = \"http://cps.example/\"\n\
         userNotice.1 = @notice\n\
         [ notice ]\n\
         explicitText = \"Explicit Text Here\"\n\
         organization = \"Organisation Name\"\n\
         noticeNumbers = 1, 2, 3\n\
         [ pol2 ]\n\
         policyIdentifier = 2.23.140.1.2.1\n\
         userNotice.1 = @notice2\n\
         [ constrained ]\n\
         basicConstraints = critical,CA:TRUE\n\
         nameConstraints = critical, permitted;DNS:.example.com, excluded;IP:10.0.0.0/255.0.0.0, permitted;IP:2001:db8::/ffff:ffff::, permitted;email:.example.com, excluded;URI:.bad.example, permitted;dirName:dir_sect\n\
         [ dirnames ]\n\
         subjectAltName = dirName:dir_sect, DNS:d.example\n\
         issuerAltName = @ian\n\
         authorityKeyIdentifier = keyid,issuer:always\n\
         [ dir_sect ]\n\
         C = UK\n\
         O = My Organization\n\
         0.OU = First Unit\n\
         +CN = joined\n\
         1.OU = Second/Unit\n\
         [ ian ]\n\
         dirName.1 = dir_sect\n\
         URI.2 = http://ian.example/\n\
         [ pathpolicy ]\n\
         basicConstraints = critical,CA:TRUE\n\
         certificatePolicies = 1.2.3.4, anyPolicy\n\
         policyConstraints = critical, requireExplicitPolicy:0, inhibitPolicyMapping:0x2\n\
         inhibitAnyPolicy = critical, 1\n\
         policyMappings = critical, 1.2.3.4:1.2.3.5, 1.2.3.6:anyPolicy\n\
         [ mapsection ]\n\
         policyMappings = @maps\n\
         policyConstraints = inhibitPolicyMapping:0\n\
         [ maps ]\n\
         1.2.3.4 = 1.2.3.7\n\
         [ access ]\n\
         subjectInfoAccess = caRepository;URI:http://repo.example/ca/, 1.3.6.1.5.5.7.48.5;URI:rsync://r.example/\n\
         tlsfeature = status_request, status_request_v2\n\
         authorityInfoAccess = OCSP;URI:http://ocsp.example/, caIssuers;URI:http://ca.example/ca.crt\n\
         [ access2 ]\n\
         subjectInfoAccess = timeStamping;URI:http://ts.example/, ad_timestamping;URI:http://t2.example/\n\
         tlsfeature = 17, 5, 99\n\
         [ notice2 ]\n\
         explicitText = \"UTF8:only text\"\n\
         organization = org\n\
         noticeNumbers = 7\n",
    )
    .unwrap();
    let (ca, cakey, leaf1, r1) =
        (ca_file("ca.pem"), ca_file("ca.key"), ca_file("leaf1.key"), ca_file("r1.csr"));
    let ext = path(d, "ext.cnf");
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (vec!["-CA", &ca, "-CAkey", &cakey], &["DNS:x.example, IP Address:10.0.0.1", "CA:FALSE"]),
        (vec!["-CA", &ca, "-CAkey", &cakey, "-copy_extensions", "copy"], &["Digital Signature"]),
        (vec!["-CA", &ca, "-CAkey", &cakey, "-copy_extensions", "copyall"], &["DNS:x.example"]),
        (
            vec!["-signkey", &leaf1, "-extensions", "self"],
            &["DirName:/C=US/O=Leaf/CN=leaf.example"],
        ),
        (vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "bare"], &["Subject Key Identifier"]),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "pathpolicy"],
            &[
                "X509v3 Policy Constraints: critical\n                Require Explicit Policy:0, Inhibit Policy Mapping:2\n",
                "X509v3 Inhibit Any Policy: critical\n                1\n",
                "X509v3 Policy Mappings: critical\n                1.2.3.4:1.2.3.5, 1.2.3.6:X509v3 Any Policy\n",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "access"],
            &[
                "Subject Information Access: \n                CA Repository - URI:http://repo.example/ca/\n",
                "TLS Feature: \n                status_request, status_request_v2\n",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "access2"],
            &[
                "Time Stamping - URI:http://ts.example/\n",
                "status_request_v2, status_request, 99\n",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "mapsection"],
            &[
                "X509v3 Policy Mappings: \n                1.2.3.4:1.2.3.7\n",
                "Inhibit Policy Mapping:0\n",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "constrained"],
            &[
                "X509v3 Name Constraints: critical\n                Permitted:\n                  DNS:.example.com\n",
                "                  IP:2001:DB8:0:0:0:0:0:0/FFFF:FFFF:0:0:0:0:0:0\n",
                "                Excluded:\n                  IP:10.0.0.0/255.0.0.0\n                  URI:.bad.example\n",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "dirnames"],
            &[
                "DirName:/C=UK/O=My Organization/CN=joined+OU=First Unit/OU=Second\\/Unit, DNS:d.example",
                "DirName:/C=US/O=Test Org/CN=Test CA",
            ],
        ),
        (
            vec!["-CA", &ca, "-CAkey", &cakey, "-extensions", "policies"],
            &["CPS: http://cps.example/", "Numbers: 1, 2, 3", "Explicit Text: only text"],
        ),
    ];
    let have = have_openssl("extfile");
    for (extra, shown) in &cases {
        let mut args = vec!["x509", "-req", "-in", &r1, "-extfile", &ext, "-set_serial", "0x7777"];
        args.extend_from_slice(extra);
        issued_alike(d, &args, shown, have);
    }
    // Path validation processes critical name constraints (tests/name_constraints.rs);
    // an end entity's own constrain nothing.
    let nc = path(d, "nc.pem");
    let args = ["x509", "-req", "-in", &r1, "-extfile", &ext, "-extensions", "constrained"];
    let mut a = args.to_vec();
    a.extend_from_slice(&["-CA", &ca, "-CAkey", &cakey, "-out", &nc]);
    ok(&run(&a, b""));
    let out = run(&["verify", "-CAfile", &ca, &nc], b"");
    assert_eq!(ok_text(&out), format!("{nc}: OK\n"));
    let out = run(&["x509", "-req", "-in", &r1, "-signkey", &leaf1, "-extensions", "self"], b"");
    fails(&out, 1, "give -extfile");
    let out = run(
        &["x509", "-req", "-in", &r1, "-signkey", &leaf1, "-extfile", &ext, "-extensions", "none"],
        b"",
    );
    fails(&out, 1, "no extension section 'none'");
}

/// `req -config`: the subject of `prompt = no`, the request's and the certificate's
/// extension sections, `default_md`; OpenSSL's request bytes, its certificate's text.
#[test]
fn req_config_as_openssl_reads_it() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(
        d.join("req.cnf"),
        "[ req ]\n\
         prompt = no\n\
         distinguished_name = dn\n\
         req_extensions = req_ext\n\
         x509_extensions = v3_ca\n\
         default_md = sha384\n\
         [ dn ]\n\
         countryName = US\n\
         0.organizationName = Org/With+Slash\n\
         +OU = joined\n\
         1.organizationName = Second\n\
         CN = name.example\n\
         [ req_ext ]\n\
         subjectAltName = @alt\n\
         keyUsage = critical, digitalSignature\n\
         [ alt ]\n\
         DNS.1 = name.example\n\
         DNS.2 = www.name.example\n\
         [ v3_ca ]\n\
         subjectKeyIdentifier = hash\n\
         authorityKeyIdentifier = keyid:always,issuer\n\
         basicConstraints = critical,CA:true\n\
         [ bare ]\n\
         nsComment = bare\n\
         [ empty ]\n",
    )
    .unwrap();
    let cnf = path(d, "req.cnf");
    let key = ca_file("leaf1.key");
    let have = have_openssl("req -config");
    let base = ["req", "-new", "-config", cnf.as_str(), "-key", key.as_str()];
    let csr = path(d, "u.csr");
    let mut args = base.to_vec();
    args.extend_from_slice(&["-out", &csr]);
    ok(&run(&args, b""));
    let text = ok_text(&run(&["req", "-in", &csr, "-noout", "-text"], b""));
    for line in [
        "Subject: C = US, OU = joined + O = \"Org/With+Slash\", O = Second, CN = name.example",
        "DNS:name.example, DNS:www.name.example",
        "Signature Algorithm: sha384WithRSAEncryption",
    ] {
        assert!(text.contains(line), "{line} not in {text}");
    }
    if have {
        assert!(std::fs::read(&csr).unwrap() == openssl(&base, b""), "not OpenSSL's request");
    }
    for (extra, shown) in [
        (
            &["-set_serial", "7"][..],
            &["CA:TRUE", "Subject Key Identifier", "Authority Key Identifier"][..],
        ),
        (
            &["-set_serial", "8", "-extensions", "bare"][..],
            &["Netscape Comment", "Subject Key Identifier"][..],
        ),
        (&["-set_serial", "9", "-extensions", "empty"][..], &["Version: 1 (0x0)"][..]),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(&["-x509", "-days", "2"]);
        args.extend_from_slice(extra);
        issued_alike(d, &args, shown, have);
    }
    // No prompting; sections that are not there; request attributes.
    std::fs::write(d.join("prompt.cnf"), "[ req ]\ndistinguished_name = dn\n[ dn ]\nCN = x\n")
        .unwrap();
    let p = path(d, "prompt.cnf");
    fails(&run(&["req", "-new", "-config", &p, "-key", &key], b""), 1, "prompt = no");
    fails(
        &run(&["req", "-new", "-key", &key, "-subj", "/CN=x", "-reqexts", "r"], b""),
        1,
        "give -config",
    );
    let mut args = base.to_vec();
    args.extend_from_slice(&["-reqexts", "nothere"]);
    fails(&run(&args, b""), 1, "no extension section 'nothere'");
    std::fs::write(
        d.join("attr.cnf"),
        "[ req ]\nprompt = no\ndistinguished_name = dn\nattributes = attrs\n[ dn ]\nCN = x\n[ attrs ]\nchallengePassword = secret\n",
    )
    .unwrap();
    fails(
        &run(&["req", "-new", "-config", &path(d, "attr.cnf"), "-key", &key], b""),
        1,
        "attributes are not supported",
    );
}
