//! `-encrypt`: an envelope for the recipient certificates (`-recip` and the positional
//! arguments).

use super::{Ctx, fail};
use crate::fail::{CmdResult, Fail};
use crate::io::Mode;
use crate::rsaopt::{Padding, RsaOpts};
use cryptocard_pki::cms::{self, ContentCipher, Format, KeyTransport, Recipient};

pub(super) fn run(ctx: &Ctx<'_>) -> CmdResult {
    let a = ctx.a;
    let cipher = match a.dynamic.last() {
        Some(name) => ContentCipher::from_name(name)
            .ok_or_else(|| Fail::msg(format!("-{name}: not a CMS content cipher")))?,
        None => ContentCipher::aes256(),
    };
    let rsa = RsaOpts::parse(&a.values("keyopt"), "keyopt")?;
    rsa.check_for(rsa.padding(), "keyopt")?;
    let transport = match rsa.padding() {
        Padding::Pkcs1 => KeyTransport::Pkcs1v15,
        Padding::Oaep => KeyTransport::Oaep(rsa.oaep()),
        _ => return Err(Fail::msg("-keyopt: key transport takes rsa_padding_mode:pkcs1 or oaep")),
    };
    let mut recipients = Vec::new();
    for path in a.values("recip").into_iter().chain(a.positional.iter().map(String::as_str)) {
        for cert in super::load_certs(path)? {
            recipients.push(Recipient {
                cert,
                transport: transport.clone(),
                by_key_id: a.has("keyid"),
            });
        }
    }
    if recipients.is_empty() {
        return Err(Fail::msg("no recipient certificate: give -recip FILE or FILE arguments"));
    }
    let content = ctx.prepare_content(&ctx.input()?);
    let der = cms::encrypt(&content, &recipients, cipher)
        .map_err(|e| fail(3, format!("Error creating CMS structure: {e}")))?;
    let out = match ctx.format("outform")? {
        Format::Smime => cms::smime::write_mime(&der, "enveloped-data", ctx.flavor.style()),
        f => cms::write(&der, f, ctx.flavor.pem_label()).map_err(|e| fail(3, e.to_string()))?,
    };
    ctx.write(&out, Mode::Public)
}
