//! What `req -config FILE` takes from OpenSSL's `[ req ]` section (req(1), "CONFIGURATION
//! FILE FORMAT"): `prompt = no` with the `distinguished_name` section's entries as the
//! subject (`C = US`, `0.OU = ...`: the name after the last `.`, `,` or `:` prefix; `+`
//! before a name joins the previous RDN), `req_extensions` and `x509_extensions` (the
//! extension sections of a request and of a `-x509` certificate), `default_md` and
//! `default_bits`. There is no prompting: without `prompt = no` the subject comes from
//! `-subj`. An `attributes` section (a challenge password) is refused, not dropped.

use super::super::certio::pki_fail;
use crate::fail::{CmdResult, Fail};
use cryptocard::digest::HashAlg;
use cryptocard_pki::cert;
use cryptocard_pki::conf::Conf;
use x509_cert::name::Name;

/// The `[ req ]` section of a configuration file.
pub(super) struct ReqConf {
    conf: Conf,
}

impl ReqConf {
    pub(super) fn new(conf: Conf) -> CmdResult<ReqConf> {
        let rc = ReqConf { conf };
        if let Some(section) = rc.value("attributes")
            && rc.conf.section(section).is_some_and(|v| !v.is_empty())
        {
            return Err(Fail::msg(format!(
                "the [ {section} ] request attributes are not supported"
            )));
        }
        Ok(rc)
    }

    /// The configuration (extension sections refer to its other sections).
    pub(super) fn conf(&self) -> &Conf {
        &self.conf
    }

    /// A value of `[ req ]` (or `default`).
    pub(super) fn value(&self, name: &str) -> Option<&str> {
        self.conf.get("req", name)
    }

    /// The subject of `prompt = no`, if the file says so.
    pub(super) fn subject(&self) -> CmdResult<Option<Name>> {
        if self.value("prompt") != Some("no") {
            return Ok(None);
        }
        let section = self
            .value("distinguished_name")
            .ok_or_else(|| Fail::msg("unable to find 'distinguished_name' in config"))?;
        let entries = self
            .conf
            .section(section)
            .ok_or_else(|| Fail::msg(format!("unable to get '{section}' section")))?;
        cert::name_from_section(entries).map(Some).map_err(|e| pki_fail(section, e))
    }

    /// `default_md`, unless it is `default`.
    pub(super) fn digest(&self) -> CmdResult<Option<HashAlg>> {
        match self.value("default_md") {
            None | Some("default") => Ok(None),
            Some(name) => super::super::digest_by_name(name).map(Some),
        }
    }

    /// `default_bits`, for a key made without `-newkey rsa:BITS`.
    pub(super) fn default_bits(&self) -> CmdResult<Option<usize>> {
        self.value("default_bits")
            .map(|b| b.parse().map_err(|_| Fail::msg(format!("invalid default_bits '{b}'"))))
            .transpose()
    }
}
