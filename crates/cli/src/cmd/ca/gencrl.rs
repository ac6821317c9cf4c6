//! `ca -gencrl`: a CRL of the database's revoked rows (RFC 5280 section 5), as OpenSSL
//! makes it: thisUpdate now (or `-crl_lastupdate`), nextUpdate `-crl_nextupdate` or now
//! plus the days, hours and seconds asked (`default_crl_days`, `default_crl_hours`); each
//! revoked serial with its date and the entry extensions its row asks for (reason code,
//! invalidity date, hold instruction code, in that order); the `crl_extensions` section's
//! extensions, then a cRLNumber from the `crlnumber` file, which is advanced. Version 2
//! when anything asks for an extension, else version 1.

use super::revoke::Revocation;
use super::{Ca, at_time, db, now_time, parse_time};
use crate::cmd::certio::{self, pki_fail};
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use cryptocard_pki::cert::{self, CrlBuilder, ExtContext, Extension};
use der::Encode;
use der::asn1::OctetString;
use std::time::Duration;
use x509_cert::Version;

/// Makes the CRL, writes it to `-out` and advances the CRL number.
pub(super) fn gencrl(ca: &Ca<'_>) -> CmdResult {
    let a = ca.args;
    let ca_cert = ca.certificate()?;
    let key = ca.key()?;
    let scheme = ca.scheme()?;
    let index = ca.index()?;
    let number_file = ca.value("crlnumber");
    let number = number_file.map(db::read_number).transpose()?;
    let this_update = match a.value("crl_lastupdate") {
        Some(t) => parse_time(t, "crl_lastupdate")?,
        None => now_time()?,
    };
    let next_update = match a.value("crl_nextupdate") {
        Some(t) => parse_time(t, "crl_nextupdate")?,
        None => at_time(now_time()?.to_system_time() + interval(ca)?)?,
    };
    let exts_section = ca.flag_or("crlexts", "crl_extensions");
    let mut builder = CrlBuilder::new(this_update.to_system_time())
        .next_update(next_update.to_system_time())
        .scheme(scheme);
    let mut entries_extended = false;
    for row in index.rows.iter().filter(|r| r.status == 'R') {
        let r = Revocation::parse(&row.revoked)?;
        let exts = entry_extensions(&r).map_err(|e| pki_fail("a CRL entry", e))?;
        entries_extended |= !exts.is_empty();
        let serial = certio::serial_of(&db::read_hex(&row.serial)?)?;
        builder = builder.revoke_entry(&serial, r.at, exts);
    }
    let ctx = ExtContext { conf: Some(&ca.conf), issuer: Some(&ca_cert), ..ExtContext::NONE };
    let mut exts = match exts_section {
        Some(s) => cert::section_extensions(&ca.conf, s, &ctx)
            .map_err(|e| pki_fail("crl_extensions", e))?,
        None => Vec::new(),
    };
    cert::drop_disabled(&mut exts);
    builder = builder.extensions(exts);
    if let Some(n) = &number {
        builder = builder.number(crl_number(n)?);
    }
    if exts_section.is_none() && number.is_none() && !entries_extended {
        builder = builder.version(Version::V1);
    }
    let crl = builder.sign(&ca_cert, &key).map_err(|e| pki_fail("making the CRL", e))?;
    let pem = crl.to_pem().map_err(|e| pki_fail("writing", e))?;
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    out.put(pem.as_bytes())?;
    out.commit()?;
    if let (Some(file), Some(n)) = (number_file, &number) {
        db::save_number_new(file, &db::increment(n))?;
        db::rotate(file)?;
    }
    Ok(())
}

/// How long until the next CRL: days, hours and seconds from the flags, or the
/// section's `default_crl_days` and `default_crl_hours`.
fn interval(ca: &Ca<'_>) -> CmdResult<Duration> {
    let a = ca.args;
    let num = |v: Option<&str>, what: &str| -> CmdResult<u64> {
        v.map(|s| s.parse::<u64>().map_err(|_| Fail::msg(format!("invalid {what} '{s}'"))))
            .transpose()
            .map(Option::unwrap_or_default)
    };
    let (mut days, mut hours) =
        (num(a.value("crldays"), "crldays")?, num(a.value("crlhours"), "crlhours")?);
    let secs = num(a.value("crlsec"), "crlsec")?;
    if days == 0 && hours == 0 && secs == 0 {
        days = num(ca.value("default_crl_days"), "default_crl_days")?;
        hours = num(ca.value("default_crl_hours"), "default_crl_hours")?;
    }
    if days == 0 && hours == 0 && secs == 0 {
        return Err(Fail::msg("cannot lookup how long until the next CRL is issued"));
    }
    let total = days
        .checked_mul(86_400)
        .and_then(|d| hours.checked_mul(3_600).and_then(|h| d.checked_add(h)))
        .and_then(|t| t.checked_add(secs))
        .ok_or_else(|| Fail::msg("the next CRL is too far away"))?;
    Ok(Duration::from_secs(total))
}

/// The CRL number from its file, which must fit 64 bits.
fn crl_number(magnitude: &[u8]) -> CmdResult<u64> {
    let start = magnitude.iter().position(|&b| b != 0).unwrap_or(magnitude.len());
    let digits = &magnitude[start..];
    if digits.len() > 8 {
        return Err(Fail::msg("the CRL number does not fit 64 bits"));
    }
    Ok(digits.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b)))
}

/// A row's entry extensions: reason, invalidity date, hold instruction (OpenSSL's order).
fn entry_extensions(r: &Revocation) -> cryptocard_pki::Result<Vec<Extension>> {
    let mut exts = Vec::new();
    if let Some(reason) = r.reason {
        exts.push(Extension {
            extn_id: const_oid::db::rfc5280::ID_CE_CRL_REASONS,
            critical: false,
            extn_value: OctetString::new(reason.to_der()?)?,
        });
    }
    exts.extend(r.detail_extensions()?);
    Ok(exts)
}
