//! `-decrypt`: the content of an envelope, with `-inkey` (and `-recip` to say which
//! recipient it is). The output is written owner-readable only, and only on success.

use super::Ctx;
use crate::fail::{CmdResult, Fail};
use crate::io::Mode;
use cryptocard_pki::cms;

pub(super) fn run(ctx: &Ctx<'_>) -> CmdResult {
    let a = ctx.a;
    let recip = match a.value("recip") {
        Some(path) => Some(super::load_certs(path)?.swap_remove(0)),
        None => None,
    };
    let key_path = a
        .value("inkey")
        .or(a.value("recip"))
        .ok_or_else(|| Fail::msg("no key: give -inkey FILE"))?;
    let key = ctx.key(key_path)?;
    let (der, _) = ctx.read_message()?;
    let content = cms::decrypt(&der, &key, recip.as_ref())
        .map_err(|e| super::failed("Error decrypting CMS structure", &e))?;
    let content = ctx.output_content(&content)?;
    ctx.write(content, Mode::Private)
}
