//! Revocation in the database, as `openssl ca -revoke`, `-valid`, `-status` and
//! `-updatedb`.
//!
//! A revoked row keeps when and why in its third field: `YYMMDDHHMMSSZ[,reason[,arg]]`,
//! where the reason is one of RFC 5280 5.3.1's (`-crl_reason`), or `holdInstruction,OID`
//! (`-crl_hold`: certificateHold with a hold instruction, 5.3.2 of RFC 3280), or
//! `keyTime,TIME` and `CAkeyTime,TIME` (`-crl_compromise`, `-crl_CA_compromise`:
//! keyCompromise or cACompromise with an invalidity date, 5.3.2). `gencrl` reads it back
//! with [`Revocation::parse`].

use super::{Ca, db, now_time, parse_time, time_string};
use crate::cmd::certio;
use crate::fail::{CmdResult, Fail};
use cryptocard_pki::cert::{self, CrlReason};
use der::Encode;
use der::asn1::{ObjectIdentifier as Oid, OctetString};
use x509_cert::ext::Extension;
use x509_cert::time::Time;

/// RFC 5280's reasons by OpenSSL's names, in its order.
const REASONS: [(&str, CrlReason); 8] = [
    ("unspecified", CrlReason::Unspecified),
    ("keyCompromise", CrlReason::KeyCompromise),
    ("CACompromise", CrlReason::CaCompromise),
    ("affiliationChanged", CrlReason::AffiliationChanged),
    ("superseded", CrlReason::Superseded),
    ("cessationOfOperation", CrlReason::CessationOfOperation),
    ("certificateHold", CrlReason::CertificateHold),
    ("removeFromCRL", CrlReason::RemoveFromCRL),
];

/// The hold instructions (RFC 3280 5.3.2) by OpenSSL's short and long names.
const HOLDS: [(&str, &str, &str); 3] = [
    ("holdInstructionNone", "Hold Instruction None", "1.2.840.10040.2.1"),
    ("holdInstructionCallIssuer", "Hold Instruction Call Issuer", "1.2.840.10040.2.2"),
    ("holdInstructionReject", "Hold Instruction Reject", "1.2.840.10040.2.3"),
];

/// A revoked row's third field, read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Revocation {
    /// When.
    pub at: Time,
    /// Why, if said.
    pub reason: Option<CrlReason>,
    /// The hold instruction of a hold.
    pub hold: Option<Oid>,
    /// When the key was compromised (the invalidity date).
    pub invalid_since: Option<Time>,
}

impl Revocation {
    /// Reads the field as OpenSSL's `unpack_revinfo` does.
    pub fn parse(field: &str) -> CmdResult<Revocation> {
        let mut parts = field.splitn(3, ',');
        let at = parse_time(parts.next().unwrap_or(""), "revocation date")?;
        let mut r = Revocation { at, reason: None, hold: None, invalid_since: None };
        let Some(name) = parts.next() else { return Ok(r) };
        let arg = parts.next();
        let need_arg = || Fail::msg(format!("revocation '{field}': {name} needs an argument"));
        match name.to_ascii_lowercase().as_str() {
            "holdinstruction" => {
                r.reason = Some(CrlReason::CertificateHold);
                r.hold = Some(hold_oid(arg.ok_or_else(need_arg)?)?);
            }
            "keytime" | "cakeytime" => {
                r.reason = Some(if name.eq_ignore_ascii_case("keyTime") {
                    CrlReason::KeyCompromise
                } else {
                    CrlReason::CaCompromise
                });
                r.invalid_since = Some(generalized(arg.ok_or_else(need_arg)?)?);
            }
            _ => r.reason = Some(reason_by_name(name)?.1),
        }
        Ok(r)
    }

    /// The extensions that say more than the reason, in OpenSSL's order: the invalidity
    /// date (RFC 5280 5.3.2) and the hold instruction code (RFC 3280 5.3.2), each if
    /// given; a CRL entry carries them after its reason code, an OCSP answer as its
    /// singleExtensions.
    pub fn detail_extensions(&self) -> cryptocard_pki::Result<Vec<Extension>> {
        let ext = |extn_id: Oid, der: Vec<u8>| -> cryptocard_pki::Result<Extension> {
            Ok(Extension { extn_id, critical: false, extn_value: OctetString::new(der)? })
        };
        let mut exts = Vec::new();
        if let Some(Time::GeneralTime(t)) = &self.invalid_since {
            exts.push(ext(INVALIDITY_DATE, t.to_der()?)?);
        }
        if let Some(hold) = &self.hold {
            exts.push(ext(HOLD_INSTRUCTION_CODE, hold.to_der()?)?);
        }
        Ok(exts)
    }
}

/// The invalidity date entry extension (RFC 5280 5.3.2).
const INVALIDITY_DATE: Oid = Oid::new_unwrap("2.5.29.24");
/// The hold instruction code entry extension (RFC 3280 5.3.2).
const HOLD_INSTRUCTION_CODE: Oid = Oid::new_unwrap("2.5.29.23");

/// A reason by name, any case, with its canonical spelling.
fn reason_by_name(name: &str) -> CmdResult<(&'static str, CrlReason)> {
    REASONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| Fail::msg(format!("unknown CRL reason {name}")))
}

fn hold_oid(s: &str) -> CmdResult<Oid> {
    if let Some((_, _, oid)) = HOLDS.iter().find(|(sn, ln, _)| *sn == s || *ln == s) {
        return Ok(Oid::new_unwrap(oid));
    }
    Oid::new(s).map_err(|_| Fail::msg(format!("invalid object identifier {s}")))
}

/// A compromise time: a GeneralizedTime, as OpenSSL requires there.
fn generalized(s: &str) -> CmdResult<Time> {
    match parse_time(s, "compromise time")? {
        t @ Time::GeneralTime(_) => Ok(t),
        Time::UtcTime(_) => {
            Err(Fail::msg(format!("compromise time '{s}': expected YYYYMMDDHHMMSSZ")))
        }
    }
}

/// The revocation field `-crl_*` asks for, dated now (OpenSSL's `make_revocation_str`).
fn revocation_field(ca: &Ca<'_>) -> CmdResult<String> {
    let a = ca.args;
    let mut field = time_string(&now_time()?);
    if let Some(r) = a.value("crl_reason") {
        field = format!("{field},{}", reason_by_name(r)?.0);
    } else if let Some(h) = a.value("crl_hold") {
        hold_oid(h)?;
        field = format!("{field},holdInstruction,{h}");
    } else if let Some(t) = a.value("crl_compromise") {
        generalized(t)?;
        field = format!("{field},keyTime,{t}");
    } else if let Some(t) = a.value("crl_CA_compromise") {
        generalized(t)?;
        field = format!("{field},CAkeyTime,{t}");
    }
    Ok(field)
}

/// `-revoke CERT` (`valid` false): marks the certificate revoked, adding it first if the
/// database lacks it. `-valid CERT` (`valid` true): adds it as valid, refusing one the
/// database already holds.
pub(super) fn revoke(ca: &Ca<'_>, path: &str, valid: bool) -> CmdResult {
    let c = certio::load_cert(Some(path), None)?;
    let tbs = c.tbs_certificate();
    let serial = db::hex(tbs.serial_number().as_bytes());
    let subject = cert::oneline(tbs.subject());
    let field = if valid { String::new() } else { revocation_field(ca)? };
    let mut index = ca.index()?;
    let i = match index.by_serial(&serial) {
        Some(_) if valid => {
            return Err(Fail::msg(format!("ERROR:Already present, serial number {serial}")));
        }
        Some(i) => i,
        None => {
            eprintln!("Adding Entry with serial number {serial} to DB for {subject}");
            index.rows.push(db::Row {
                status: 'V',
                expires: time_string(&tbs.validity().not_after),
                revoked: String::new(),
                serial: serial.clone(),
                file: "unknown".into(),
                subject: subject.clone(),
            });
            index.rows.len() - 1
        }
    };
    if !valid {
        let row = &mut index.rows[i];
        if row.subject != subject {
            return Err(Fail::msg(format!("ERROR:name does not match {subject}")));
        }
        if row.status == 'R' {
            return Err(Fail::msg(format!("ERROR:Already revoked, serial number {serial}")));
        }
        row.status = 'R';
        row.revoked = field;
        eprintln!("Revoking Certificate {serial}.");
    }
    index.save_new()?;
    index.rotate()?;
    eprintln!("Database updated");
    Ok(())
}

/// `-status SERIAL`: the row's status on stderr; a serial not in the database fails.
pub(super) fn status(ca: &Ca<'_>, serial: &str) -> CmdResult {
    let mut s = serial.to_ascii_uppercase();
    if s.len() % 2 == 1 {
        s.insert(0, '0');
    }
    let index = ca.index()?;
    let Some(i) = index.by_serial(&s) else {
        return Err(Fail::msg(format!("Serial {s} not present in db.")));
    };
    let status = index.rows[i].status;
    let word = match status {
        'V' => "Valid",
        'R' => "Revoked",
        'E' => "Expired",
        'S' => "Suspended",
        _ => "Unknown",
    };
    eprintln!("{s}={word} ({status})");
    Ok(())
}

/// `-updatedb`: valid rows past their notAfter become expired.
pub(super) fn update_db(ca: &Ca<'_>) -> CmdResult {
    let mut index = ca.index()?;
    let now = std::time::SystemTime::now();
    let mut marked = 0;
    for row in index.rows.iter_mut().filter(|r| r.status == 'V') {
        let expires = parse_time(&row.expires, "expiry date")?;
        if expires.to_system_time() <= now {
            row.status = 'E';
            row.revoked.clear();
            eprintln!("{}=Expired", row.serial);
            marked += 1;
        }
    }
    if marked == 0 {
        eprintln!("No entries found to mark expired");
        return Ok(());
    }
    index.save_new()?;
    index.rotate()?;
    eprintln!("Done. {marked} entries marked as expired");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revocation_fields_read_back() {
        let r = Revocation::parse("250101000000Z").unwrap();
        assert_eq!((r.reason, r.hold, r.invalid_since), (None, None, None));
        let r = Revocation::parse("250101000000Z,KEYCOMPROMISE").unwrap();
        assert_eq!(r.reason, Some(CrlReason::KeyCompromise));
        let r = Revocation::parse("250101000000Z,removeFromCRL").unwrap();
        assert_eq!(r.reason, Some(CrlReason::RemoveFromCRL));
        let r = Revocation::parse("250101000000Z,holdInstruction,holdInstructionReject").unwrap();
        assert_eq!(r.reason, Some(CrlReason::CertificateHold));
        assert_eq!(r.hold, Some(Oid::new_unwrap("1.2.840.10040.2.3")));
        let r = Revocation::parse("250101000000Z,CAkeyTime,20240101000000Z").unwrap();
        assert_eq!(r.reason, Some(CrlReason::CaCompromise));
        assert!(r.invalid_since.is_some());
        for bad in [
            "",
            "2501010000Z",
            "250101000000Z,noSuchReason",
            "250101000000Z,keyTime",
            "250101000000Z,keyTime,240101000000Z",
            "250101000000Z,holdInstruction,not an oid",
        ] {
            assert!(Revocation::parse(bad).is_err(), "{bad}");
        }
    }
}
