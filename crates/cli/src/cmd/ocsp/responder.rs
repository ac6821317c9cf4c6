//! The responder of `cryptocard ocsp -index`: a CA database's answers, signed as
//! `openssl ocsp -rsigner -rkey [-rmd] [-rsigopt] [-rcid]` signs them, for one request or
//! for each request of an HTTP server, which may serve many clients at once (`-multi`)
//! with their signatures batched through the engine.

use crate::args::Parsed;
use crate::cmd::ca::db::{Index, hex};
use crate::cmd::ca::revoke::Revocation;
use crate::cmd::certio::{self, load_cert, read_cert_file};
use crate::cmd::digest_by_name;
use crate::fail::{CmdResult, Fail};
use crate::keyfile::{self, ReadOptions};
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::Certificate;
use cryptocard_pki::ocsp::{self, CertId, ResponseBuilder, ResponseStatus, Status};
use cryptocard_pki::sig::SigScheme;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use x509_cert::ext::Extension;

/// A responder: the CA database `-index` of the `-CA` certificates, answering as
/// `-rsigner` with its key.
pub(super) struct Responder {
    index_path: String,
    /// The database and when its file was last read (a changed file is read again).
    index: Mutex<(Index, Option<SystemTime>)>,
    cas: Vec<Certificate>,
    signer: Certificate,
    key: Arc<RsaPrivateKey>,
    other: Vec<Certificate>,
    next_update: Option<Duration>,
    by_key: bool,
    include_certs: bool,
    scheme: SigScheme,
    /// The hash of the certificate IDs answered (`-rcid`), else the request's.
    answer_hash: Option<HashAlg>,
    corrupt: bool,
}

impl Responder {
    pub(super) fn load(a: &Parsed) -> CmdResult<Responder> {
        let need =
            |flag: &str| a.value(flag).ok_or_else(|| Fail::msg(format!("-index needs -{flag}")));
        let index_path = need("index")?.to_string();
        let index = Index::load(&index_path, None)?;
        let cas = read_cert_file(Some(need("CA")?)).map_err(Fail::msg)?;
        let signer_path = need("rsigner")?;
        let signer = load_cert(Some(signer_path), None)?;
        let opts = ReadOptions::from_args(a)?;
        let key_path = a.value("rkey").unwrap_or(signer_path);
        let key = keyfile::load_private(Some(key_path), None, a.value("passin"), &opts)?;
        let other = match a.value("rother") {
            Some(path) => read_cert_file(Some(path)).map_err(Fail::msg)?,
            None => Vec::new(),
        };
        let days = a.parsed::<u32>("ndays")?;
        let minutes = a.parsed::<u32>("nmin")?;
        let next_update = (days.is_some() || minutes.is_some()).then(|| {
            Duration::from_secs(
                u64::from(days.unwrap_or(0)) * 86_400 + u64::from(minutes.unwrap_or(0)) * 60,
            )
        });
        let rmd = a.value("rmd").map(digest_by_name).transpose()?;
        let scheme = certio::scheme(rmd, &a.values("rsigopt"))
            .map_err(|e| Fail::msg(e.to_string().replace("-sigopt", "-rsigopt")))?;
        Ok(Responder {
            index: Mutex::new((index, modified(&index_path))),
            index_path,
            cas,
            signer,
            key: Arc::new(key),
            other,
            next_update,
            by_key: a.has("resp_key_id"),
            include_certs: !a.has("resp_no_certs"),
            scheme,
            answer_hash: a.value("rcid").map(digest_by_name).transpose()?,
            corrupt: a.has("badsig"),
        })
    }

    /// The response to `request` (DER), as [`Responder::respond`] gives it, signed
    /// through `engine` if given.
    pub(super) fn answer(&self, request: &[u8], engine: Option<&Engine>) -> CmdResult<Vec<u8>> {
        self.respond(ocsp::parse_request(request).ok(), engine)
    }

    /// The response to a request read (`None`: one that could not be): each certificate's
    /// status, signed (through `engine` if given), or the malformedRequest status.
    pub(super) fn respond(
        &self,
        request: Option<ocsp::ParsedRequest>,
        engine: Option<&Engine>,
    ) -> CmdResult<Vec<u8>> {
        let Some(parsed) = request else {
            return ocsp::error_response(ResponseStatus::MalformedRequest).map_err(lib);
        };
        let now = SystemTime::now();
        let mut builder = ResponseBuilder::new(now)
            .nonce(parsed.nonce)
            .by_key(self.by_key)
            .include_certs(self.include_certs)
            .scheme(self.scheme)
            .corrupt_signature(self.corrupt);
        if let Some(after) = self.next_update {
            builder = builder.next_update(now + after);
        }
        {
            let mut guard = self.index.lock().unwrap_or_else(|p| p.into_inner());
            self.reread(&mut guard);
            for id in parsed.ids {
                let Some(ca) = self.cas.iter().find(|ca| id.issued_by(ca)) else {
                    builder = builder.answer(id, Status::Unknown);
                    continue;
                };
                let (status, extensions) = row_status(&guard.0, &id)?;
                let id = match self.answer_hash {
                    Some(hash) => CertId::new(ca, &id.serial_number, hash).map_err(lib)?,
                    None => id,
                };
                builder = builder.answer_with(id, status, extensions);
            }
        }
        match engine {
            Some(engine) => builder.sign_on(engine, &self.signer, &self.key, &self.other),
            None => builder.sign(&self.signer, &self.key, &self.other),
        }
        .map_err(lib)
    }

    /// Reads the database again if its file changed since (a revocation while serving);
    /// one that cannot be read now leaves the last one in use, with a warning.
    fn reread(&self, loaded: &mut (Index, Option<SystemTime>)) {
        let now = modified(&self.index_path);
        if now == loaded.1 {
            return;
        }
        match Index::load(&self.index_path, None) {
            Ok(index) => *loaded = (index, now),
            Err(e) => {
                eprintln!("ocsp: kept the last database: {}", e.line("ocsp").unwrap_or_default())
            }
        }
    }
}

/// A library error as the command's message.
pub(super) fn lib(e: cryptocard_pki::Error) -> Fail {
    Fail::msg(e.to_string())
}

/// When `path` was last modified, if it can be told.
fn modified(path: &str) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The status the database gives the certificate `id` names, and the singleExtensions
/// OpenSSL's responder adds to a revocation: its invalidity date, or its hold
/// instruction.
fn row_status(index: &Index, id: &CertId) -> CmdResult<(Status, Vec<Extension>)> {
    let serial = hex(id.serial_number.as_bytes());
    let Some(row) = index.by_serial(&serial).map(|i| &index.rows[i]) else {
        return Ok((Status::Unknown, Vec::new()));
    };
    match row.status {
        'V' => Ok((Status::Good, Vec::new())),
        'R' => {
            let r = Revocation::parse(&row.revoked)?;
            let extensions = r.detail_extensions().map_err(lib)?;
            Ok((Status::Revoked { at: r.at.to_system_time(), reason: r.reason }, extensions))
        }
        _ => Ok((Status::Unknown, Vec::new())),
    }
}
