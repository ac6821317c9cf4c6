//! `pkcs12` without `-export`: a PKCS#12 file's certificates and key, as PEM with their
//! bag attributes, as `openssl pkcs12` writes them.

use crate::args::Parsed;
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::ReadOptions;
use crate::pass;
use crate::secret_read;
use cryptocard::pbe::{PbeScheme, TOO_MANY_ITERATIONS};
use cryptocard::rng::OsRng;
use cryptocard_pki::Error;
use cryptocard_pki::cert::{self, display_name};
use cryptocard_pki::pkcs12::{
    Bag, BagAttribute, BagContent, ParseOptions, Pkcs12, key_to_pem, parse_with,
};
use std::fmt::Write as _;
use std::io::Write;

/// The cipher flags of a key written out (the last one counts).
fn key_scheme(dynamic: &[String]) -> CmdResult<PbeScheme> {
    match dynamic.last().map(String::as_str) {
        None => Ok(PbeScheme::DEFAULT),
        Some(
            flag @ ("aes128" | "aes192" | "aes256" | "aes-128-cbc" | "aes-192-cbc" | "aes-256-cbc"
            | "des3" | "des-ede3-cbc"),
        ) => {
            PbeScheme::from_name(flag).ok_or_else(|| Fail::msg(format!("-{flag}: no such scheme")))
        }
        Some(other) => Err(Fail::msg(format!(
            "-{other}: keys are written under -aes128, -aes192, -aes256 (default) or -des3"
        ))),
    }
}

/// OpenSSL's `print_attribs`: the heading and one line per attribute.
fn attributes(text: &mut String, heading: &str, attrs: &[BagAttribute]) {
    if attrs.is_empty() {
        let _ = writeln!(text, "{heading}: <No Attributes>");
        return;
    }
    let _ = writeln!(text, "{heading}");
    for a in attrs {
        let _ = writeln!(text, "{}", a.openssl_line());
    }
}

/// What `-info` says of the file, on stderr, in file order.
fn info(p12: &Pkcs12) -> String {
    let mut text = String::new();
    if let Some(m) = &p12.mac {
        let _ = writeln!(text, "MAC: {}, Iteration {}", m.digest.long_name(), m.iterations);
        let _ = writeln!(text, "MAC length: {}, salt length: {}", m.mac_len, m.salt_len);
    }
    for safe in &p12.safes {
        match &safe.encryption {
            None => text.push_str("PKCS7 Data\n"),
            Some(scheme) => {
                let _ = writeln!(text, "PKCS7 Encrypted data: {scheme}");
            }
        }
        for bag in &safe.bags {
            let _ = match &bag.content {
                BagContent::Cert(_) => writeln!(text, "Certificate bag"),
                BagContent::Key { shrouded: Some(scheme), .. } => {
                    writeln!(text, "Shrouded Keybag: {scheme}")
                }
                BagContent::Key { shrouded: None, .. } => writeln!(text, "Key bag"),
                BagContent::Other(oid) => writeln!(text, "Warning unsupported bag type: {oid}"),
            };
        }
    }
    text
}

/// Which bags are written.
struct Select {
    keys: bool,
    certs: bool,
    clcerts: bool,
    cacerts: bool,
}

impl Select {
    fn wants(&self, bag: &Bag) -> bool {
        match &bag.content {
            BagContent::Key { .. } => self.keys,
            BagContent::Cert(_) => {
                // A certificate with a local key ID is the key's ("client") certificate.
                let client = bag.local_key_id().is_some();
                let kind_wanted = if client { !self.cacerts } else { !self.clcerts };
                self.certs && kind_wanted
            }
            BagContent::Other(_) => false,
        }
    }
}

/// One bag as `openssl pkcs12` writes it.
fn bag_text(bag: &Bag, password: Option<(&[u8], &PbeScheme)>) -> CmdResult<String> {
    let mut text = String::new();
    attributes(&mut text, "Bag Attributes", &bag.attributes);
    match &bag.content {
        BagContent::Cert(c) => {
            let tbs = c.tbs_certificate();
            let _ = writeln!(text, "subject={}", display_name(tbs.subject()));
            let _ = writeln!(text, "issuer={}", display_name(tbs.issuer()));
            text.push_str(
                &cert::to_pem(c).map_err(|e| Fail::msg(format!("writing a certificate: {e}")))?,
            );
        }
        BagContent::Key { pkcs8, attributes: key_attrs, .. } => {
            attributes(&mut text, "Key Attributes", key_attrs);
            let pem = key_to_pem(pkcs8, password, &mut OsRng)
                .map_err(|e| Fail::msg(format!("writing the private key: {e}")))?;
            text.push_str(&pem);
        }
        BagContent::Other(_) => {}
    }
    Ok(text)
}

/// Runs `pkcs12` on a file.
pub fn run(a: &Parsed) -> CmdResult {
    let opts = ReadOptions::from_args(a)?;
    let scheme = key_scheme(&a.dynamic)?;
    let noout = a.has("noout");
    let select = Select {
        keys: !noout && !a.has("nokeys"),
        certs: !noout && !a.has("nocerts"),
        clcerts: a.has("clcerts"),
        cacerts: a.has("cacerts"),
    };
    let encrypt = select.keys && !a.has("nodes") && !a.has("noenc");
    // Passwords first, as OpenSSL (a `stdin` password comes before the data).
    let passin = a.value("passin").or(a.value("password")).ok_or_else(|| {
        Fail::msg("give the file's password with -passin (pass:, env:, file:, fd:, stdin)")
    })?;
    let password = pass::resolve(passin)?;
    let passout = match a.value("passout") {
        Some(arg) if encrypt => Some(pass::resolve(arg)?),
        _ => None,
    };
    let name = io::input_name(a.value("in")).to_string();
    let data = secret_read::read_input(a.value("in"), "a PKCS#12 file")?;
    let max = opts.parse.max_iterations;
    let limits = ParseOptions {
        max_iterations: max,
        max_total_iterations: 4 * u64::from(max),
        verify_mac: !a.has("nomacver"),
    };
    let p12 = parse_with(&data, &password, &limits).map_err(|e| match e {
        Error::Verify(_) => Fail::bare("Mac verify error: invalid password?"),
        Error::Crypto(e) if e == TOO_MANY_ITERATIONS => Fail::msg(format!(
            "{name}: the file asks for more than {max} iterations: give -max-iter N to accept more"
        )),
        e => Fail::msg(format!("{name}: could not read the PKCS#12 file: {e}")),
    })?;
    if p12.mac.is_none() {
        eprintln!("Warning: MAC is absent!");
    }
    if a.has("info") {
        eprint!("{}", info(&p12));
    }
    let wanted: Vec<&Bag> = p12.bags().filter(|b| select.wants(b)).collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let has_key = wanted.iter().any(|b| matches!(b.content, BagContent::Key { .. }));
    let key_password = match (&passout, encrypt && has_key) {
        (Some(pw), true) => Some((pw.as_slice(), &scheme)),
        (None, true) => {
            return Err(Fail::msg(
                "writing the key encrypted needs a password: give -passout, or -nodes for none",
            ));
        }
        (_, false) => None,
    };
    let mut text = zeroize::Zeroizing::new(String::new());
    for bag in wanted {
        text.push_str(&bag_text(bag, key_password)?);
    }
    let mode = if has_key { Mode::Private } else { Mode::Public };
    let mut out = Output::create(a.value("out"), mode)?;
    out.write_all(text.as_bytes()).map_err(|e| out.error(&e))?;
    out.commit()
}
