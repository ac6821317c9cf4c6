//! `-verify`: the signatures, the signers' chains to `-CAfile`, the content out.
//!
//! `-CAfile` and `-CApath` are read as `openssl cms` reads them (`cert::TrustStore`'s
//! reading), and with neither the system's roots as OpenSSL's default store (unless
//! `-no-CAfile`): a chain ends at one of their self-signed certificates, or at any of
//! them with `-partial_chain`.
//! `-crl_check` (the signers) and `-crl_check_all` (their whole paths) check revocation by
//! the CRLs of `-CAfile` and of the message, as OpenSSL's store and `CMS_verify` gather
//! them. `-attime`, `-verify_email`, `-x509_strict` and the policy options (`-policy`,
//! `-explicit_policy`, `-inhibit_any`, `-inhibit_map`) are `verify`'s, applied to each
//! signer's path.

use super::{Ctx, fail};
use crate::cmd::verify::{policy_oid, trust_files};
use crate::fail::CmdResult;
use crate::io::{self, Mode};
use cryptocard_pki::cert::TrustStore;
use cryptocard_pki::cms::{self, CrlCheck, VerifyOptions};
use std::time::{Duration, UNIX_EPOCH};

pub(super) fn run(ctx: &Ctx<'_>) -> CmdResult {
    let a = ctx.a;
    let (der, multipart_content) = ctx.read_message()?;
    ctx.certs_out(&der)?;
    let detached = match a.value("content") {
        Some(path) => Some(io::read_input(Some(path)).map_err(|f| fail(2, f.to_string()))?),
        None => multipart_content,
    };
    // Detached content is verified in canonical text form unless -binary, as OpenSSL does.
    let detached = detached.map(|c| if a.has("binary") { c } else { cms::canonical_text(&c) });
    let (cafile, crls) = trust_files(a).map_err(|e| fail(2, e.to_string()))?;
    let store = TrustStore::new(cafile, a.has("partial_chain"));
    let (trusted, mut untrusted) = store.into_parts();
    untrusted.extend(ctx.certs("certfile")?);
    let crl_check = match (a.has("crl_check_all"), a.has("crl_check")) {
        (true, _) => CrlCheck::All,
        (false, true) => CrlCheck::Signers,
        (false, false) => CrlCheck::Off,
    };
    let at = a.parsed::<u64>("attime")?.map(|secs| UNIX_EPOCH + Duration::from_secs(secs));
    let policies = a.values("policy").into_iter().map(policy_oid).collect::<CmdResult<_>>()?;
    let opts = VerifyOptions {
        trusted,
        untrusted,
        no_chain: a.has("noverify"),
        at,
        crl_check,
        crls,
        email: a.value("verify_email").map(String::from),
        policies,
        explicit_policy: a.has("explicit_policy"),
        inhibit_any: a.has("inhibit_any"),
        inhibit_map: a.has("inhibit_map"),
        strict: a.has("x509_strict"),
    };
    let verified = cms::verify(&der, detached.as_deref(), &opts)
        .map_err(|e| super::failed(ctx.flavor.failed_line(), &e))?;
    let content = ctx.output_content(&verified.content)?;
    ctx.write(content, Mode::Public)?;
    eprintln!("{}", ctx.flavor.verified_line());
    match a.value("signer") {
        Some(path) => super::write_pem_certs(path, &verified.signers),
        None => Ok(()),
    }
}
