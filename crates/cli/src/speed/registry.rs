//! The algorithm registry: from a name on the command line to the rows `speed` measures
//! ([`super::row`]), built by the family modules of [`super::algs`].

use super::algs;
use super::row::{Context, Row};
use crate::fail::{CmdResult, Fail};

/// The fixed algorithm names, in the order `speed` lists them; `modexpN` and `mulN` (N a
/// multiple of 64) come on top.
pub const NAMES: &[&str] = &[
    "rsa512",
    "rsa1024",
    "rsa2048",
    "rsa3072",
    "rsa4096",
    "rsa7680",
    "rsa15360",
    "des-ecb",
    "des-cbc",
    "des-cfb",
    "des-ofb",
    "des-ede",
    "des-ede-cbc",
    "des-ede3",
    "des-ede3-cbc",
    "des-ede3-cfb",
    "des-ede3-ofb",
    "aes-128-cbc",
    "aes-256-cbc",
    "aes-256-ctr",
    "md2",
    "md4",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha3-256",
    "sha3-512",
    "ripemd160",
    "hmac",
    "cmac",
    "cmac-des-ede3",
    "cms-sign",
    "ts-reply",
    "ocsp-reply",
];

/// The algorithms `speed` runs without arguments: the headline.
pub const DEFAULT_SET: &[&str] = &["rsa2048", "des-cbc", "sha256", "md2"];

/// The rows for algorithm `name`, or a one-line reason why there are none.
pub fn rows(name: &str, ctx: &Context<'_>) -> CmdResult<Vec<Row>> {
    let mut rows = family_rows(name, ctx)?;
    if let Some(n) = ctx.batch {
        for row in rows.iter_mut().filter(|r| !r.candidates.iter().any(|c| c.batch.is_some())) {
            row.notes.push(format!(
                "{} {}: no batched path of ours yet, -batch {n} ignored",
                row.alg, row.op
            ));
        }
    }
    Ok(rows)
}

fn family_rows(name: &str, ctx: &Context<'_>) -> CmdResult<Vec<Row>> {
    if let Some(base) = name.strip_suffix("-methods")
        && let Some(bits) = sized(base, "modexp", 128, 16384)?
    {
        return Ok(algs::bignum::modexp_methods(name, bits, ctx));
    }
    if let Some(bits) = sized(name, "modexp", 128, 16384)? {
        return Ok(vec![algs::bignum::modexp(name, bits, ctx)]);
    }
    if let Some(bits) = sized(name, "mul", 64, 1 << 20)? {
        return Ok(vec![algs::bignum::mul(name, bits, ctx)]);
    }
    if let Some(bits) = name.strip_prefix("rsa").filter(|_| NAMES.contains(&name)) {
        let bits = bits.parse().expect("listed RSA names end in digits");
        return algs::rsa::rows(name, bits, ctx).map_err(Fail::msg);
    }
    if (name.starts_with("des") || name.starts_with("aes")) && NAMES.contains(&name) {
        return Ok(algs::cipher::rows(name, ctx));
    }
    if name == "cms-sign" {
        return algs::cms::rows(ctx).map_err(Fail::msg);
    }
    if name == "ts-reply" {
        return algs::ts::rows(ctx).map_err(Fail::msg);
    }
    if name == "ocsp-reply" {
        return algs::ocsp::rows(ctx).map_err(Fail::msg);
    }
    if name == "hmac" {
        return Ok(vec![algs::digest::hmac(ctx)]);
    }
    if name == "cmac" || name == "cmac-des-ede3" {
        return Ok(vec![algs::digest::cmac(name, ctx)]);
    }
    if NAMES.contains(&name) {
        return Ok(vec![algs::digest::digest(name, ctx)]);
    }
    Err(Fail::msg(format!(
        "unknown algorithm '{name}' (known: {}, modexpN, modexpN-methods, mulN, keygenN)",
        NAMES.join(" ")
    )))
}

/// For `prefix` + N: `Ok(Some(N))` if N is a multiple of 64 in `min..=max`, an error if
/// it is a malformed size, `Ok(None)` if `name` is not of this family.
fn sized(name: &str, prefix: &str, min: u32, max: u32) -> CmdResult<Option<u32>> {
    let Some(digits) = name.strip_prefix(prefix) else { return Ok(None) };
    match digits.parse::<u32>() {
        Ok(n) if n % 64 == 0 && (min..=max).contains(&n) => Ok(Some(n)),
        _ => Err(Fail::msg(format!(
            "{prefix}N: N must be a multiple of 64 from {min} to {max}, not '{digits}'"
        ))),
    }
}
