//! The client's side of `cryptocard ocsp`: a response (read with `-respin` or fetched
//! with `-url`) checked as `openssl ocsp` checks it (`OCSP_basic_verify` with the flags
//! its options set), and each asked certificate's status printed as it prints them, with
//! `OCSP_check_validity`'s warning where the times are not current (and its reasons on
//! stderr).

use crate::args::Parsed;
use crate::cmd::certio::{load_cert, read_cert_file};
use crate::fail::{CmdResult, Fail};
use cryptocard_pki::cert::{Certificate, time_text};
use cryptocard_pki::ocsp::{self, CertId, Relaxed, ResponseStatus, ResponseVerify, Status};
use std::fmt::Write as _;
use std::time::{Duration, SystemTime};
use x509_cert::time::Time;

/// How far thisUpdate may be ahead and nextUpdate behind unless `-validity_period` says
/// otherwise (OpenSSL's default, RFC 6960 4.2.2.1's "local clock" allowance).
const CLOCK_SLACK: Duration = Duration::from_secs(300);

/// Checks the response `der` (from `path`, for messages) and writes each asked
/// certificate's status to `out`.
pub(super) fn check_response(
    a: &Parsed,
    path: &str,
    der: &[u8],
    asked: &[(String, CertId)],
    sent_nonce: Option<[u8; 16]>,
    out: &mut String,
) -> CmdResult {
    let status = ocsp::response_status(der).map_err(|e| Fail::msg(format!("{path}: {e}")))?;
    if status != ResponseStatus::Successful {
        let _ = writeln!(out, "Responder Error: {} ({})", status.as_str(), status as u32);
        return Err(Fail::silent(1));
    }
    if a.has("resp_text") || a.has("text") {
        out.push_str(&ocsp::response_text(der).map_err(|e| Fail::msg(format!("{path}: {e}")))?);
    }
    let opts = options(a)?;
    // Read first, unchecked: the nonce is compared before the checks, as OpenSSL does.
    let unchecked = ResponseVerify { no_verify: true, ..opts.clone() };
    let verified =
        ocsp::verify_response(der, &unchecked).map_err(|e| Fail::msg(format!("{path}: {e}")))?;
    let mut failed = false;
    if !opts.no_verify {
        if let Some(sent) = sent_nonce {
            let want = [&[0x04, 0x10][..], &sent].concat();
            match verified.nonce.as_deref() {
                None => eprintln!("WARNING: no nonce in response"),
                Some(n) if n != want.as_slice() => {
                    eprintln!("Nonce Verify error");
                    return Err(Fail::silent(1));
                }
                Some(_) => {}
            }
        }
        // As OpenSSL 3.0, a response that fails is tried again with the -issuer
        // certificates trusted as responders (OCSP_TRUSTOTHER alone: no other flag).
        let issuer = a.value("issuer").map(|p| load_cert(Some(p), None)).transpose()?;
        let retried = || match &issuer {
            Some(issuer) => {
                let opts = ResponseVerify {
                    untrusted: vec![issuer.clone()],
                    trust_untrusted: true,
                    relaxed: Relaxed::default(),
                    ..opts.clone()
                };
                ocsp::verify_response(der, &opts)
            }
            None => Err(cryptocard_pki::Error::Verify("no -issuer to trust".into())),
        };
        match ocsp::verify_response(der, &opts).or_else(|e| retried().map_err(|_| e)) {
            Ok(_) => eprintln!("Response verify OK"),
            Err(e) => {
                eprintln!("Response Verify Failure\n{e}");
                failed = true;
            }
        }
    }
    let slack = a.parsed::<u64>("validity_period")?.map_or(CLOCK_SLACK, Duration::from_secs);
    let max_age = a.parsed::<u64>("status_age")?.map(Duration::from_secs);
    let now = SystemTime::now();
    for (name, id) in asked {
        let _ = write!(out, "{name}: ");
        let Some(answer) = verified.statuses.iter().find(|s| s.id.same_certificate(id)) else {
            out.push_str("ERROR: No Status found.\n");
            failed = true;
            continue;
        };
        let stale = ocsp::check_validity(answer, now, slack, max_age);
        if !stale.is_empty() {
            // The reasons go to stderr: OpenSSL writes its error queue after the warning,
            // in a form of its own.
            out.push_str("WARNING: Status times invalid.\n");
            eprintln!("{name}: {}", stale.join(", "));
        }
        let _ = writeln!(
            out,
            "{}\n\tThis Update: {}",
            answer.status.as_str(),
            when(answer.this_update)
        );
        if let Some(next) = answer.next_update {
            let _ = writeln!(out, "\tNext Update: {}", when(next));
        }
        if let Status::Revoked { at, reason } = answer.status {
            if let Some(reason) = reason {
                let _ = writeln!(out, "\tReason: {}", ocsp::reason_str(reason));
            }
            let _ = writeln!(out, "\tRevocation Time: {}", when(at));
        }
    }
    if failed { Err(Fail::silent(1)) } else { Ok(()) }
}

/// The checks the options ask for.
fn options(a: &Parsed) -> CmdResult<ResponseVerify> {
    let certs = |flag: &str| -> CmdResult<Vec<Certificate>> {
        let mut all = Vec::new();
        for p in a.values(flag) {
            all.extend(read_cert_file(Some(p)).map_err(Fail::msg)?);
        }
        Ok(all)
    };
    // -VAfile's certificates are trusted as responders, as OCSP_TRUSTOTHER trusts
    // -verify_other's.
    let mut untrusted = certs("verify_other")?;
    let va = certs("VAfile")?;
    let trust_untrusted = !va.is_empty() || a.has("trust_other");
    untrusted.extend(va);
    // The trust anchors as OpenSSL's `setup_verify` loads them: -CAfile and -CApath, or
    // the system's roots where neither is given (unless -no-CAfile).
    let (trusted, _) = crate::cmd::verify::trust_files(a)?;
    Ok(ResponseVerify {
        trusted,
        partial_chain: a.has("partial_chain"),
        untrusted,
        trust_untrusted,
        at: SystemTime::now(),
        no_verify: a.has("noverify"),
        relaxed: Relaxed {
            no_intern: a.has("no_intern"),
            no_signature: a.has("no_signature_verify"),
            no_path: a.has("no_cert_verify"),
            no_chain: a.has("no_chain"),
            no_authority: a.has("no_cert_checks"),
        },
    })
}

/// A time as OpenSSL prints a GeneralizedTime.
fn when(t: SystemTime) -> String {
    cryptocard::rsa::spki::der::asn1::GeneralizedTime::from_system_time(t)
        .map(|g| time_text(&Time::GeneralTime(g)))
        .unwrap_or_else(|_| "(out of range)".into())
}
