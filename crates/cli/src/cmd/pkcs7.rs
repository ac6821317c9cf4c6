//! `cryptocard pkcs7` and `crl2pkcs7`: certificate bundles as PKCS#7 (`.p7b`), as
//! `openssl pkcs7` and `openssl crl2pkcs7`.
//!
//! ```text
//! cryptocard pkcs7 [-in F] [-inform PEM|DER] [-out F] [-outform PEM|DER] [-noout]
//!                  [-print_certs [-text]]
//! cryptocard crl2pkcs7 [-in CRL] [-inform PEM|DER] [-nocrl] [-certfile F ...] [-out F]
//!                      [-outform PEM|DER]
//! ```
//!
//! `pkcs7` reads a SignedData (signed or certs-only, RFC 5652 5.2) and writes it again in
//! `-outform` (PEM `PKCS7`), or with `-print_certs` prints each certificate (`subject=`
//! and `issuer=` lines, or `-text`) and each CRL (`cert::crl_text`), each followed by its
//! PEM unless `-noout` and a blank line, as OpenSSL prints them. `crl2pkcs7` makes a
//! certs-only message (`cms::certs_only`) of the CRL of `-in` (none with `-nocrl`) and
//! the certificates of each `-certfile`.

use super::certio::{pki_fail, read_cert_file};
use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::keyfile::{self, Format};
use cryptocard_pki::cert::{self, Crl};
use cryptocard_pki::cms;

const PKCS7_SPEC: Spec = Spec {
    usage: "pkcs7 [options]",
    flags: &[
        Flag::value("in", "FILE").about("PKCS#7 to read (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default PEM)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("noout").about("Do not write the PKCS#7 (or the PEM of what is printed)"),
        Flag::switch("print_certs").about("Print the certificates and CRLs"),
        Flag::switch("text").about("With -print_certs: print them in full"),
    ],
    notes: "",
    more: None,
};

const CRL2PKCS7_SPEC: Spec = Spec {
    usage: "crl2pkcs7 [options]",
    flags: &[
        Flag::value("in", "FILE").about("CRL to include (default stdin)"),
        Flag::value("inform", "PEM|DER").about("CRL format (default: by content)"),
        Flag::switch("nocrl").about("No CRL: certificates only"),
        Flag::value("certfile", "FILE").about("Certificates to include (repeat)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
    ],
    notes: "",
    more: None,
};

/// Runs `pkcs7`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = PKCS7_SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?.unwrap_or(Format::Pem);
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let name = io::input_name(a.value("in")).to_string();
    let data = io::read_capped(a.value("in"), "a PKCS#7 file", io::MAX_CERT_INPUT)?;
    let format = if inform == Format::Der { cms::Format::Der } else { cms::Format::Pem };
    let unreadable =
        |e: cryptocard_pki::Error| Fail::msg(format!("{name}: could not read PKCS7: {e}"));
    let (der, _) = cms::read(&data, format).map_err(unreadable)?;
    let (certs, crls) = cms::certs_and_crls(&der).map_err(unreadable)?;
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    if a.has("print_certs") {
        for c in &certs {
            let text = if a.has("text") {
                cert::cert_text_compat(c).map_err(|e| pki_fail("printing", e))?
            } else {
                let tbs = c.tbs_certificate();
                format!(
                    "subject={}\nissuer={}\n",
                    cert::display_name(tbs.subject()),
                    cert::display_name(tbs.issuer())
                )
            };
            out.put(text.as_bytes())?;
            if !a.has("noout") {
                out.put(cert::to_pem(c).map_err(|e| pki_fail("writing", e))?.as_bytes())?;
            }
            out.put(b"\n")?;
        }
        for crl in &crls {
            out.put(cert::crl_text(crl).as_bytes())?;
            if !a.has("noout") {
                out.put(crl.to_pem().map_err(|e| pki_fail("writing", e))?.as_bytes())?;
            }
            out.put(b"\n")?;
        }
    } else if !a.has("noout") {
        out.put(&write(&der, outform)?)?;
    }
    out.commit()
}

/// Runs `crl2pkcs7`.
pub fn crl2pkcs7_main(argv: &[String]) -> CmdResult {
    let Some(a) = CRL2PKCS7_SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let mut crls: Vec<Crl> = Vec::new();
    if !a.has("nocrl") {
        crls.push(super::crl::load_crl(a.value("in"), inform)?);
    }
    let mut certs = Vec::new();
    for path in a.values("certfile") {
        certs.extend(read_cert_file(Some(path)).map_err(Fail::msg)?);
    }
    let der = cms::certs_only(&certs, &crls).map_err(|e| pki_fail("making PKCS7", e))?;
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    out.put(&write(&der, outform)?)?;
    out.commit()
}

/// A ContentInfo as PEM (`PKCS7`) or DER.
fn write(der: &[u8], outform: Format) -> CmdResult<Vec<u8>> {
    let format = if outform == Format::Der { cms::Format::Der } else { cms::Format::Pem };
    cms::write(der, format, "PKCS7").map_err(|e| pki_fail("writing", e))
}
