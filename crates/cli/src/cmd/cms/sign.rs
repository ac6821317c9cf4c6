//! `-sign`: one input to one message, or many inputs through the engine (see the module
//! docs of `cms`).

use super::{Ctx, fail};
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use crate::rsaopt::{Padding, RsaOpts};
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard_pki::cms::{self, Format, SignOptions, Signer};
use cryptocard_pki::sig::SigScheme;
use std::path::Path;
use std::sync::Arc;

pub(super) fn run(ctx: &Ctx<'_>) -> CmdResult {
    let a = ctx.a;
    let signers = signers(ctx)?;
    let opts = SignOptions {
        detached: !a.has("nodetach"),
        include_certs: !a.has("nocerts"),
        extra_certs: ctx.certs("certfile")?,
        signed_attrs: !a.has("noattr"),
        smime_capabilities: !a.has("nosmimecap"),
        ..SignOptions::default()
    };
    let inputs = inputs(ctx)?;
    if inputs.len() <= 1 {
        let content = ctx.prepare_content(&ctx.input()?);
        let der = cms::sign(&content, &signers, &opts)
            .map_err(|e| fail(3, format!("Error creating CMS structure: {e}")))?;
        let out = encode(ctx, &der, &content, &signers, opts.detached)?;
        return ctx.write(&out, Mode::Public);
    }
    many(ctx, &inputs, &signers, &opts)
}

/// The `-signer` certificates with their keys (`-inkey` in the same order, else the
/// signer file itself) and the scheme of `-md` and `-keyopt`.
fn signers(ctx: &Ctx<'_>) -> CmdResult<Vec<Signer>> {
    let a = ctx.a;
    let certs = a.values("signer");
    let keys = a.values("inkey");
    if certs.is_empty() {
        return Err(Fail::msg("no signer certificate: give -signer FILE"));
    }
    if keys.len() > certs.len() {
        return Err(Fail::msg("more -inkey than -signer"));
    }
    let hash = match a.value("md") {
        Some(name) => super::super::digest_by_name(name)?,
        None => HashAlg::Sha256,
    };
    let rsa = RsaOpts::parse(&a.values("keyopt"), "keyopt")?;
    rsa.check_for(rsa.padding(), "keyopt")?;
    let scheme = match rsa.padding() {
        Padding::Pkcs1 => SigScheme::Pkcs1v15(hash),
        Padding::Pss => SigScheme::Pss(rsa.pss(hash, true)),
        _ => return Err(Fail::msg("-keyopt: signatures take rsa_padding_mode:pkcs1 or pss")),
    };
    let mut out = Vec::with_capacity(certs.len());
    for (i, cert_path) in certs.iter().enumerate() {
        let cert = super::load_certs(cert_path)?.swap_remove(0);
        let key = ctx.key(keys.get(i).unwrap_or(cert_path))?;
        out.push(Signer { key: Arc::new(key), cert, scheme, by_key_id: a.has("keyid") });
    }
    Ok(out)
}

/// The inputs to sign: every `-in`, then the lines of `-inlist`.
fn inputs(ctx: &Ctx<'_>) -> CmdResult<Vec<String>> {
    let mut all: Vec<String> = ctx.a.values("in").into_iter().map(String::from).collect();
    if let Some(list) = ctx.a.value("inlist") {
        let text = io::read_capped(Some(list), "a list of files", io::MAX_CERT_INPUT)
            .map_err(|f| fail(2, f.to_string()))?;
        let text = String::from_utf8(text).map_err(|_| fail(2, format!("{list}: not text")))?;
        all.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from));
    }
    Ok(all)
}

/// A signed message in `-outform`.
fn encode(
    ctx: &Ctx<'_>,
    der: &[u8],
    content: &[u8],
    signers: &[Signer],
    detached: bool,
) -> CmdResult<Vec<u8>> {
    let style = ctx.flavor.style();
    match ctx.format("outform")? {
        Format::Smime if detached => {
            let hashes: Vec<HashAlg> = signers.iter().map(|s| s.scheme.hash()).collect();
            cms::smime::write_signed(der, content, &hashes, style)
                .map_err(|e| fail(3, e.to_string()))
        }
        Format::Smime => Ok(cms::smime::write_mime(der, "signed-data", style)),
        f => cms::write(der, f, ctx.flavor.pem_label()).map_err(|e| fail(3, e.to_string())),
    }
}

/// Many inputs: read them all, sign them in one batch, write each beside the others.
fn many(ctx: &Ctx<'_>, inputs: &[String], signers: &[Signer], opts: &SignOptions) -> CmdResult {
    let [signer] = signers else {
        return Err(Fail::msg("signing many inputs takes one -signer"));
    };
    if ctx.a.has("out") {
        return Err(Fail::msg("many inputs write to -outdir DIR, not -out"));
    }
    let dir = ctx.a.value("outdir").ok_or_else(|| Fail::msg("many inputs need -outdir DIR"))?;
    let mut failed = false;
    let mut contents = Vec::with_capacity(inputs.len());
    let mut names = Vec::with_capacity(inputs.len());
    for path in inputs {
        match io::read_input(Some(path)) {
            Ok(raw) => {
                contents.push(ctx.prepare_content(&raw));
                names.push(path.as_str());
            }
            Err(f) => {
                eprintln!("{f}");
                failed = true;
            }
        }
    }
    let engine = Engine::new().map_err(|e| Fail::lib("engine", e))?;
    let refs: Vec<&[u8]> = contents.iter().map(Vec::as_slice).collect();
    let ext = if opts.detached { "p7s" } else { "p7m" };
    for ((path, content), der) in
        names.iter().zip(&refs).zip(cms::sign_many(&engine, &refs, signer, opts))
    {
        let result = der
            .map_err(|e| fail(3, format!("{path}: Error creating CMS structure: {e}")))
            .and_then(|der| encode(ctx, &der, content, signers, opts.detached))
            .and_then(|bytes| {
                let file = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned());
                let target = Path::new(dir).join(format!("{}.{ext}", file.unwrap_or_default()));
                let mut out = Output::create(target.to_str(), Mode::Public)?;
                out.put(&bytes)?;
                out.commit()
            });
        if let Err(f) = result {
            eprintln!("{f}");
            failed = true;
        }
    }
    if failed { Err(Fail::silent(3)) } else { Ok(()) }
}
