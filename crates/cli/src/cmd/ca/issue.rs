//! Issuing: requests in, certificates out, as `openssl ca` (its `certify` and `do_body`).
//!
//! Each request's self-signature is checked. Its subject (or `-subj`) is rebuilt by the
//! policy section in the policy's order, each entry its own RDN: `match` takes the CA's
//! entry and requires the request's to equal it (type and bytes), `supplied` requires the
//! entry, `optional` keeps it if present, and entries the policy does not name are
//! dropped, unless `preserve`/`-preserveDN` keeps the request's name as it is; emailAddress
//! goes unless `email_in_dn` allows it. With `unique_subject`, a subject a valid
//! certificate already has is refused, as is a serial the database holds.
//!
//! The certificate has the serial of the serial file (or a random one), notBefore now or
//! `-startdate`, notAfter `-enddate` or now plus the days, the extension section's
//! extensions, then the request's as `copy_extensions` says (`copy`: types not yet
//! present; `copyall`: all, replacing), and no extensions at all (version 1) without a
//! section, as OpenSSL 3.0 writes it.

use super::{Ca, at_time, db, now_time, parse_time, time_string};
use crate::cmd::certio::{self, pki_fail};
use crate::fail::{CmdResult, Fail};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{
    self, AttributeTypeAndValue, CertBuilder, CertReq, Certificate, ExtContext, Profile,
};
use cryptocard_pki::conf::Conf;
use cryptocard_pki::sig::SigScheme;
use std::time::{Duration, SystemTime};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoOwned;

/// The PKCS#9 emailAddress attribute.
const EMAIL_ADDRESS: der::asn1::ObjectIdentifier =
    der::asn1::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.1");

/// A certificate made, with what the database and the files need.
struct Issued {
    cert: Certificate,
    serial: String,
}

/// What every certificate of one run is made with.
struct Signer<'a> {
    /// The issuer; `None` with `-selfsign`.
    ca_cert: Option<Certificate>,
    key: RsaPrivateKey,
    /// The signing key as a SubjectPublicKeyInfo (a request of the same key is self-signed).
    own_key: SubjectPublicKeyInfoOwned,
    scheme: SigScheme,
    policy: &'a [(String, String)],
    preserve: bool,
    email_dn: bool,
    copy: cert::CopyExtensions,
    /// The configuration the extension section is in, and its name (none: version 1).
    ext: (&'a Conf, Option<&'a str>),
    start: SystemTime,
    end: SystemTime,
}

impl Signer<'_> {
    /// The subject of `requested` (the request's, or `-subj`): by the policy unless
    /// preserved, without emailAddress unless allowed.
    fn subject(&self, requested: &Name) -> CmdResult<Name> {
        let ca_name = match &self.ca_cert {
            Some(c) => c.tbs_certificate().subject(),
            None => requested,
        };
        // The policy's checks hold also when the name is kept as requested.
        let by_policy = by_policy(requested, ca_name, self.policy)?;
        let subject = if self.preserve { requested.clone() } else { by_policy };
        if self.email_dn {
            return Ok(subject);
        }
        let kept: Vec<AttributeTypeAndValue> =
            subject.iter().filter(|atv| atv.oid != EMAIL_ADDRESS).cloned().collect();
        cert::name_of(&kept).map_err(|e| pki_fail("the subject", e))
    }

    /// The certificate for `csr`'s key, named `subject`, with this serial.
    fn certify(
        &self,
        csr: &CertReq,
        subject: &Name,
        serial: &SerialNumber,
    ) -> CmdResult<Certificate> {
        let (conf, section) = self.ext;
        let ctx = ExtContext {
            conf: Some(conf),
            subject_name: Some(subject),
            subject_key: Some(&csr.info.public_key),
            issuer: self.ca_cert.as_ref(),
            serial: Some(serial),
        };
        let fail = |e| pki_fail("extensions", e);
        let mut exts = match section {
            Some(s) => cert::section_extensions(conf, s, &ctx).map_err(fail)?,
            None => Vec::new(),
        };
        cert::copy_requested(&mut exts, csr, self.copy).map_err(|e| pki_fail("the request", e))?;
        let self_signed = self.own_key == csr.info.public_key;
        cert::key_id_defaults(&mut exts, &ctx, self_signed).map_err(fail)?;
        let mut builder = CertBuilder::for_spki(subject.clone(), csr.info.public_key.clone())
            .profile(Profile::V1)
            .scheme(self.scheme)
            .not_before(self.start)
            .not_after(self.end)
            .serial(serial.as_bytes());
        for ext in exts {
            builder = builder.extension(ext);
        }
        let made = match &self.ca_cert {
            Some(c) => builder.signed_by(c, &self.key),
            None => builder.self_signed(&self.key),
        };
        made.map_err(|e| pki_fail("signing", e))
    }
}

/// Certifies each request and records the certificates.
pub(super) fn issue(ca: &Ca<'_>, requests: &[&str]) -> CmdResult {
    let a = ca.args;
    if !a.has("batch") {
        return Err(Fail::msg("give -batch: cryptocard ca does not ask before signing"));
    }
    let ext_file = match a.value("extfile") {
        Some(f) => {
            let conf = certio::load_conf(f)?;
            let section = match a.value("extensions") {
                Some(s) => s.to_string(),
                None => conf.get("default", "extensions").unwrap_or("default").to_string(),
            };
            Some((conf, section))
        }
        None => None,
    };
    let ext = match &ext_file {
        Some((conf, section)) => (conf, Some(section.as_str())),
        None => (&ca.conf, ca.flag_or("extensions", "x509_extensions")),
    };
    let policy_name = ca.flag_or_need("policy", "policy")?;
    let key = ca.key()?;
    let (start, end) = validity(ca)?;
    let signer = Signer {
        ca_cert: if a.has("selfsign") { None } else { Some(ca.certificate()?) },
        own_key: cryptocard_pki::sig::spki_of(key.public_key())
            .map_err(|e| pki_fail("the CA key", e))?,
        key,
        scheme: ca.scheme()?,
        policy: ca
            .conf
            .section(policy_name)
            .ok_or_else(|| Fail::msg(format!("unable to find policy section '{policy_name}'")))?,
        preserve: a.has("preserveDN")
            || ca.value("preserve").is_some_and(|v| db::yes_or_no(v, false)),
        email_dn: !a.has("noemailDN")
            && ca.value("email_in_dn").is_none_or(|v| db::yes_or_no(v, true)),
        copy: crate::cmd::x509::copy_mode(ca.value("copy_extensions"))?,
        ext,
        start,
        end,
    };
    let mut index = ca.index()?;
    let new_dir = ca.flag_or_need("outdir", "new_certs_dir")?;
    let serial_file = if a.has("rand_serial") { None } else { Some(ca.need("serial")?) };
    let mut next_serial = match serial_file {
        Some(f) if std::path::Path::new(f).exists() || !a.has("create_serial") => {
            Some(db::read_number(f)?)
        }
        // -create_serial without a serial file: start from a random serial and keep
        // counting in a new file, as OpenSSL does.
        Some(_) => Some(
            cert::new_serial().map_err(|e| pki_fail("a random serial", e))?.as_bytes().to_vec(),
        ),
        None => None,
    };

    let mut issued: Vec<Issued> = Vec::new();
    for path in requests {
        let csr = certio::load_csr(Some(path), None)?;
        cert::verify_csr(&csr).map_err(|_| {
            Fail::msg(format!("{path}: Signature did not match the certificate request"))
        })?;
        eprintln!("Check that the request matches the signature\nSignature ok");
        let requested = match a.value("subj") {
            Some(s) => cert::parse_subject(s).map_err(|e| pki_fail("-subj", e))?,
            None => csr.info.subject.clone(),
        };
        let subject = signer.subject(&requested)?;
        let oneline = cert::oneline(&subject);
        if index.unique_subject
            && index.rows.iter().any(|r| r.status == 'V' && r.subject == oneline)
        {
            return Err(Fail::msg(format!("ERROR:There is already a certificate for {oneline}")));
        }
        let serial_number = certio::serial_or_random(next_serial.as_deref())?;
        let serial = db::hex(serial_number.as_bytes());
        if index.by_serial(&serial).is_some() || issued.iter().any(|i| i.serial == serial) {
            return Err(Fail::msg(format!(
                "ERROR:Serial number {serial} has already been issued,\n      check the database/serial_file for corruption"
            )));
        }
        let made = signer.certify(&csr, &subject, &serial_number)?;
        let not_after = &made.tbs_certificate().validity().not_after;
        eprintln!(
            "Certificate is to be certified until {} ({} days)",
            cert::time_text(not_after),
            days_from_now(not_after.to_system_time())
        );
        index.rows.push(db::Row {
            status: 'V',
            expires: time_string(not_after),
            revoked: String::new(),
            serial: serial.clone(),
            file: "unknown".into(),
            subject: oneline,
        });
        next_serial = next_serial.map(|s| db::increment(&s));
        issued.push(Issued { cert: made, serial });
    }

    // The certificates first: until the database is renamed into place, the CA is as it
    // was.
    let mut out = crate::io::Output::create(a.value("out"), crate::io::Mode::Public)?;
    for i in &issued {
        let text = certificate_file(&i.cert, a.has("notext"))?;
        certio::write_public(Some(&format!("{new_dir}/{}.pem", i.serial)), &text)?;
        out.put(&text)?;
    }
    out.commit()?;
    eprintln!("\nWrite out database with {} new entries", issued.len());
    if let (Some(file), Some(next)) = (serial_file, &next_serial) {
        db::save_number_new(file, next)?;
    }
    index.save_new()?;
    if let (Some(file), Some(_)) = (serial_file, &next_serial) {
        db::rotate(file)?;
    }
    index.rotate()?;
    eprintln!("Database updated");
    Ok(())
}

/// notBefore and notAfter: `-startdate` (`default_startdate`) or now; `-enddate`
/// (`default_enddate`) or now plus `-days` (`default_days`).
fn validity(ca: &Ca<'_>) -> CmdResult<(SystemTime, SystemTime)> {
    let start = match ca.flag_or("startdate", "default_startdate") {
        Some(s) => parse_time(s, "startdate")?.to_system_time(),
        None => now_time()?.to_system_time(),
    };
    let end = match ca.flag_or("enddate", "default_enddate") {
        Some(s) => parse_time(s, "enddate")?.to_system_time(),
        None => {
            let days = match ca.flag_or("days", "default_days") {
                Some(d) => d
                    .parse::<u32>()
                    .map_err(|_| Fail::msg(format!("invalid number of days '{d}'")))?,
                None => 0,
            };
            if days == 0 {
                return Err(Fail::msg("cannot lookup how many days to certify for"));
            }
            now_time()?.to_system_time() + Duration::from_secs(u64::from(days) * 86_400)
        }
    };
    // Whole seconds, in the form the certificate will hold.
    Ok((at_time(start)?.to_system_time(), at_time(end)?.to_system_time()))
}

/// Whole days from now (in whole seconds, as the certificate's times) to `at`.
fn days_from_now(at: SystemTime) -> i64 {
    let now = now_time().map_or_else(|_| SystemTime::now(), |t| t.to_system_time());
    match at.duration_since(now) {
        Ok(d) => (d.as_secs() / 86_400) as i64,
        Err(e) => -((e.duration().as_secs() / 86_400) as i64),
    }
}

/// The subject the policy makes of the request's `name` (OpenSSL's `do_body`).
fn by_policy(name: &Name, ca_name: &Name, policy: &[(String, String)]) -> CmdResult<Name> {
    let mut out: Vec<AttributeTypeAndValue> = Vec::new();
    for (field, rule) in policy {
        let oid = cert::attribute_oid(field).ok_or_else(|| {
            Fail::msg(format!("{field}:unknown object type in 'policy' configuration"))
        })?;
        let present: Vec<&AttributeTypeAndValue> = name.iter().filter(|a| a.oid == oid).collect();
        match rule.as_str() {
            "optional" => out.extend(present.into_iter().cloned()),
            "supplied" => {
                if present.is_empty() {
                    return Err(Fail::msg(format!(
                        "The {field} field needed to be supplied and was missing"
                    )));
                }
                out.extend(present.into_iter().cloned());
            }
            "match" => {
                if present.is_empty() {
                    return Err(Fail::msg(format!("The mandatory {field} field was missing")));
                }
                let in_ca: Vec<&AttributeTypeAndValue> =
                    ca_name.iter().filter(|a| a.oid == oid).collect();
                if in_ca.is_empty() {
                    return Err(Fail::msg(format!(
                        "The {field} field does not exist in the CA certificate,\nthe 'policy' is misconfigured"
                    )));
                }
                for entry in present {
                    let same = in_ca.iter().find(|c| c.value == entry.value).ok_or_else(|| {
                        Fail::msg(format!(
                            "The {field} field is different between\nCA certificate ({}) and the request ({})",
                            String::from_utf8_lossy(in_ca[0].value.value()),
                            String::from_utf8_lossy(entry.value.value())
                        ))
                    })?;
                    out.push((*same).clone());
                }
            }
            other => {
                return Err(Fail::msg(format!("{other}:invalid type in 'policy' configuration")));
            }
        }
    }
    cert::name_of(&out).map_err(|e| pki_fail("the subject", e))
}

/// The certificate as `ca` writes it: its text (unless `-notext`), then its PEM.
fn certificate_file(c: &Certificate, notext: bool) -> CmdResult<Vec<u8>> {
    let mut out = Vec::new();
    if !notext {
        out.extend_from_slice(
            cert::cert_text_compat(c).map_err(|e| pki_fail("printing", e))?.as_bytes(),
        );
    }
    out.extend_from_slice(cert::to_pem(c).map_err(|e| pki_fail("writing", e))?.as_bytes());
    Ok(out)
}
