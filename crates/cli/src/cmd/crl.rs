//! `cryptocard crl`: print, convert and verify certificate revocation lists, as
//! `openssl crl`.
//!
//! ```text
//! cryptocard crl [-in F] [-inform PEM|DER] [-out F] [-outform PEM|DER] [-noout] [-text]
//!                [-issuer] [-crlnumber] [-hash] [-hash_old] [-lastupdate] [-nextupdate]
//!                [-fingerprint [-sha256 ...]] [-verify] [-CAfile F] [-CApath DIR]
//!                [-no-CAfile]
//! ```
//!
//! The CRL is the first of `-in` (stdin without it), PEM or DER by content unless
//! `-inform` says. The printing options print on stdout in the order given, as OpenSSL's
//! do: `issuer=CN = ...`, `crlNumber=0x01` (`<NONE>` without one), `issuer name hash=`
//! and `issuer name old hash=` (`cert::name_hash`), `lastUpdate=`, `nextUpdate=` (`NONE`
//! without one), `SHA1 Fingerprint=AB:...` (OpenSSL's name of the digest flag's digest,
//! `SHA2-256`, ...); then `-text` (`cert::crl_text`) and the CRL, unless `-noout`, go to
//! `-out`.
//!
//! `-verify`, or `-CAfile`/`-CApath` alone, checks the CRL's signature (RFC 5280 5.1.1.3)
//! with the key of a trusted certificate named as its issuer (the system's roots without
//! either) and says `verify OK` or `verify failure` on stderr first. A failure exits 1,
//! where OpenSSL 3.0 goes on and exits 0: a script must be able to tell. No trusted
//! certificate of that name is OpenSSL's `Error getting CRL issuer certificate`, exit 1.

use super::certio::{self, pki_fail};
use super::{Spec, no_positional};
use crate::args::{Flag, Parsed};
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, Format};
use cryptocard::digest::HashAlg;
use cryptocard_pki::cert::{self, Crl, NameOpt};

const SPEC: Spec = Spec {
    usage: "crl [options]",
    flags: &[
        Flag::value("in", "FILE").about("CRL to read (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("noout").about("Do not write the CRL"),
        Flag::switch("text").about("Print the CRL as text"),
        Flag::switch("issuer").about("Print the issuer name"),
        Flag::switch("crlnumber").about("Print the CRL number"),
        Flag::switch("hash").about("Print the issuer name's hash (OpenSSL 1.0+)"),
        Flag::switch("hash_old").about("Print the issuer name's hash before 1.0"),
        Flag::switch("lastupdate").about("Print thisUpdate"),
        Flag::switch("nextupdate").about("Print nextUpdate"),
        Flag::switch("fingerprint").about("Print the fingerprint (SHA-1 unless a digest flag)"),
        Flag::switch("verify").about("Verify the CRL's signature with a trusted issuer"),
        Flag::value("CAfile", "FILE").about("Trusted certificates (repeat; implies -verify)"),
        Flag::value("CApath", "DIR").about("A hashed directory of trusted certificates"),
        Flag::switch("no-CAfile").about("Do not load the system's trusted certificates"),
        Flag::switch("no-CApath").about("Accepted for OpenSSL compatibility"),
        Flag::switch("no-CAstore").about("Accepted for OpenSSL compatibility"),
        certio::NAMEOPT_FLAG,
    ],
    notes: "-sha1, -sha256, ...: the fingerprint's digest\n",
    more: None,
};

/// The printing switches, printed in the order given.
const PRINTERS: &[&str] =
    &["issuer", "crlnumber", "hash", "hash_old", "lastupdate", "nextupdate", "fingerprint"];

/// Runs `crl`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &super::dgst::is_digest)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let digest = certio::digest_flag(&a.dynamic)?.unwrap_or(HashAlg::Sha1);
    let crl = load_crl(a.value("in"), inform)?;
    if a.has("verify") || !a.values("CAfile").is_empty() || !a.values("CApath").is_empty() {
        verify(&a, &crl)?;
    }
    let names = certio::name_opt(&a)?;
    let mut lines = String::new();
    for word in argv.iter().filter_map(|w| w.strip_prefix('-')) {
        let word = word.strip_prefix('-').unwrap_or(word);
        if PRINTERS.contains(&word) {
            lines.push_str(&print(&crl, word, digest, names)?);
        }
    }
    super::print_text(&lines);
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    if a.has("text") {
        out.put(cert::crl_text_with(&crl, names).as_bytes())?;
    }
    if !a.has("noout") {
        match outform {
            Format::Pem => out.put(crl.to_pem().map_err(|e| pki_fail("writing", e))?.as_bytes())?,
            Format::Der => out.put(crl.to_der())?,
        }
    }
    out.commit()
}

/// The first CRL of a PEM or DER file (stdin for `None`), by content unless `inform`
/// says (`crl`, `crl2pkcs7`).
pub(super) fn load_crl(path: Option<&str>, inform: Option<Format>) -> CmdResult<Crl> {
    let name = io::input_name(path).to_string();
    let data = io::read_capped(path, "a CRL", io::MAX_CERT_INPUT)?;
    let crls = match inform {
        Some(Format::Der) => Crl::from_der(&data).map(|c| vec![c]),
        Some(Format::Pem) => cert::crls_from_pem(&data),
        None => cert::read_crls(&data),
    }
    .map_err(|e| Fail::msg(format!("{name}: could not read CRL: {e}")))?;
    crls.into_iter().next().ok_or_else(|| Fail::msg(format!("{name}: no CRL")))
}

/// `-verify`: the CRL's signature against the key of a trusted certificate named as its
/// issuer.
fn verify(a: &Parsed, crl: &Crl) -> CmdResult {
    let trusted = super::verify::trusted_certs(a)?;
    let mut issuers =
        trusted.iter().filter(|c| c.tbs_certificate().subject() == crl.issuer()).peekable();
    if issuers.peek().is_none() {
        return Err(Fail::msg("Error getting CRL issuer certificate"));
    }
    // Of several certificates of the issuer's name (a re-keyed CA), any whose key
    // verifies it.
    if issuers.any(|issuer| crl.signed_by(issuer)) {
        eprintln!("verify OK");
        Ok(())
    } else {
        Err(Fail::msg("verify failure"))
    }
}

fn print(crl: &Crl, what: &str, digest: HashAlg, names: NameOpt) -> CmdResult<String> {
    let (this_update, next_update) = crl.update_times();
    Ok(match what {
        "issuer" => {
            String::from_utf8_lossy(&cert::print_titled("issuer=", crl.issuer(), names)).into()
        }
        "crlnumber" => match crl.number_hex() {
            Some(n) => format!("crlNumber=0x{n}\n"),
            None => "crlNumber=<NONE>\n".to_string(),
        },
        "hash" | "hash_old" => {
            let (label, hash) = if what == "hash" {
                ("issuer name hash", cert::name_hash(crl.issuer()))
            } else {
                ("issuer name old hash", cert::name_hash_old(crl.issuer()))
            };
            format!("{label}={:08x}\n", hash.map_err(|e| pki_fail("hashing the name", e))?)
        }
        "lastupdate" => format!("lastUpdate={}\n", cert::time_text(this_update)),
        "nextupdate" => match next_update {
            Some(t) => format!("nextUpdate={}\n", cert::time_text(t)),
            None => "nextUpdate=NONE\n".to_string(),
        },
        _ => format!("{}\n", crl.fingerprint_line(digest)),
    })
}
