//! `cryptocard mac`: message authentication codes in OpenSSL 3's `openssl mac` syntax.
//!
//! ```text
//! cryptocard mac [-digest NAME] [-cipher NAME] [-macopt OPT:VALUE ...] [-in F] [-out F]
//!                [-binary] MAC_NAME
//! ```
//!
//! The tag is printed in upper-case hex and a newline, as `openssl mac` prints it, or raw
//! with `-binary`. MAC names (any case):
//!
//! * `HMAC` (RFC 2104, FIPS 198-1): `-digest` or `-macopt digest:NAME` picks the hash.
//! * `CBC-MAC` (also `DES-MAC`, `FIPS113`, `ISO9797-ALG1`): the FIPS 113 Data
//!   Authentication Algorithm, ISO/IEC 9797-1 MAC algorithm 1, over DES with an 8-byte key
//!   or triple-DES with a 16- or 24-byte key (or as `-cipher des-cbc|des-ede-cbc|
//!   des-ede3-cbc` says). OpenSSL has no such MAC; the name is ours.
//! * `RETAIL-MAC` (also `ISO9797-ALG3`, `X9.19`): ISO/IEC 9797-1 MAC algorithm 3, the
//!   ANSI X9.19 retail MAC, with a 16-byte key K || K'. Ours too.
//! * `CMAC` (NIST SP 800-38B, `cryptocard::cmac`), as OpenSSL's: `-cipher` (or `-macopt
//!   cipher:NAME`) names a CBC cipher (`aes-128-cbc`, `aes-192-cbc`, `aes-256-cbc`,
//!   `des-ede3-cbc`, `des-ede-cbc`, `des-cbc`), whose key length the key must have.
//!
//! Options (`-macopt`): `key:STRING`, `hexkey:HEX`, `digest:NAME` (HMAC), `cipher:NAME`
//! (CBC-MAC, CMAC), `size:N` (DES MACs: tag bytes, 2 to 8, default 8), `padding:1|2|3|pkcs7`
//! (DES MACs: ISO/IEC 9797-1 padding method, default 1, FIPS 113's zero padding).
//!
//! [`Params`] and [`compute`] are shared with `dgst -hmac/-mac`.

use super::{Spec, digest_by_name};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::hex;
use crate::io::{self, Mode, Output};
use cryptocard::cipher::{Algorithm, CipherSpec, lookup};
use cryptocard::cmac::Cmac;
use cryptocard::des::Mode as CipherMode;
use cryptocard::des::mac::{CbcMac, MacPadding, RetailMac};
use cryptocard::des::{Des, Tdes};
use cryptocard::digest::{DynHmac, HashAlg};
use std::io::Read;
use zeroize::Zeroizing;

const SPEC: Spec = Spec {
    usage: "mac [options] MAC_NAME",
    flags: &[
        Flag::value("macopt", "OPT:VALUE")
            .about("MAC parameter (key:, hexkey:, digest:, cipher:, size:, padding:)"),
        Flag::value("digest", "NAME").about("Digest for HMAC"),
        Flag::value("cipher", "NAME")
            .about("Cipher for CBC-MAC (des-*-cbc) and CMAC (also aes-*-cbc)"),
        Flag::value("in", "FILE").about("Input file (default stdin)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::switch("binary").about("Output the tag in binary (default upper-case hex)"),
    ],
    notes: "MAC names:\n \
HMAC                 HMAC (RFC 2104) with -digest NAME\n \
CBC-MAC              FIPS 113 DAA / ISO/IEC 9797-1 algorithm 1 over DES (8-byte key)\n                      \
or triple-DES (16- or 24-byte key); also DES-MAC, FIPS113, ISO9797-ALG1\n \
RETAIL-MAC           ISO/IEC 9797-1 algorithm 3, ANSI X9.19 (16-byte key K||K');\n                      \
also ISO9797-ALG3, X9.19\n \
CMAC                 NIST SP 800-38B with -cipher aes-128-cbc, des-ede3-cbc, ...\n\
DES MAC options: -macopt size:N (tag bytes, 2-8, default 8),\n \
-macopt padding:1|2|3|pkcs7 (ISO/IEC 9797-1 padding method, default 1: zeros)\n",
    more: None,
};

/// Which MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// HMAC.
    Hmac,
    /// ISO/IEC 9797-1 algorithm 1 (FIPS 113).
    CbcMac,
    /// ISO/IEC 9797-1 algorithm 3 (X9.19).
    Retail,
    /// NIST SP 800-38B.
    Cmac,
}

impl Kind {
    /// The MAC named `name` (any case), if we have it.
    pub fn from_name(name: &str) -> Option<Kind> {
        let n = name.to_ascii_uppercase();
        match n.as_str() {
            "HMAC" => Some(Kind::Hmac),
            "CBC-MAC" | "DES-MAC" | "FIPS113" | "ISO9797-ALG1" => Some(Kind::CbcMac),
            "RETAIL-MAC" | "ISO9797-ALG3" | "X9.19" => Some(Kind::Retail),
            "CMAC" => Some(Kind::Cmac),
            _ => None,
        }
    }

    /// The canonical name, as `dgst -mac` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Hmac => "HMAC",
            Kind::CbcMac => "CBC-MAC",
            Kind::Retail => "RETAIL-MAC",
            Kind::Cmac => "CMAC",
        }
    }
}

/// Padding methods the DES MACs take (`padding:3` needs the data length up front).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pad {
    Method1,
    Method2,
    Method3,
    Pkcs7,
}

/// A MAC with its key and options, ready to run.
pub struct Params {
    /// Which MAC.
    pub kind: Kind,
    /// HMAC's digest.
    pub digest: Option<HashAlg>,
    key: Zeroizing<Vec<u8>>,
    cipher: Option<CipherSpec>,
    size: usize,
    pad: Pad,
}

impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Params").field("kind", &self.kind).finish_non_exhaustive()
    }
}

impl Params {
    /// Reads the MAC `name`, its `-digest`/`-cipher` flags and `-macopt`s; `key` is a key
    /// given some other way (`dgst -hmac KEY`).
    pub fn new(
        name: &str,
        digest: Option<&str>,
        cipher: Option<&str>,
        opts: &[&str],
        key: Option<&[u8]>,
    ) -> CmdResult<Params> {
        let kind = Kind::from_name(name).ok_or_else(|| {
            Fail::msg(format!("unknown MAC '{name}' (HMAC, CBC-MAC, RETAIL-MAC, CMAC; see -help)"))
        })?;
        let mut p = Params {
            kind,
            digest: digest.map(digest_by_name).transpose()?,
            key: Zeroizing::new(key.map(<[u8]>::to_vec).unwrap_or_default()),
            cipher: cipher.map(|c| cipher_by_name(c, kind)).transpose()?,
            size: 8,
            pad: Pad::Method1,
        };
        let mut have_key = key.is_some();
        for opt in opts {
            let (k, v) = opt
                .split_once(':')
                .ok_or_else(|| Fail::msg(format!("-macopt '{opt}': expected OPT:VALUE")))?;
            match k {
                "key" => p.key = Zeroizing::new(v.as_bytes().to_vec()),
                "hexkey" => {
                    p.key = Zeroizing::new(
                        hex::decode(v).map_err(|e| Fail::msg(format!("-macopt hexkey: {e}")))?,
                    )
                }
                "digest" => p.digest = Some(digest_by_name(v)?),
                "cipher" if matches!(kind, Kind::CbcMac | Kind::Cmac) => {
                    p.cipher = Some(cipher_by_name(v, kind)?)
                }
                "size" if matches!(kind, Kind::CbcMac | Kind::Retail) => {
                    p.size = v
                        .parse()
                        .ok()
                        .filter(|n| (2..=8).contains(n))
                        .ok_or_else(|| Fail::msg(format!("-macopt size:{v}: 2 to 8 bytes")))?
                }
                "padding" if matches!(kind, Kind::CbcMac | Kind::Retail) => {
                    p.pad = match v.to_ascii_lowercase().as_str() {
                        "1" => Pad::Method1,
                        "2" => Pad::Method2,
                        "3" => Pad::Method3,
                        "pkcs7" => Pad::Pkcs7,
                        _ => {
                            return Err(Fail::msg(format!(
                                "-macopt padding:{v}: 1, 2, 3 or pkcs7"
                            )));
                        }
                    }
                }
                _ => {
                    return Err(Fail::msg(format!(
                        "-macopt '{k}' is not a parameter of {}",
                        kind.name()
                    )));
                }
            }
            have_key |= matches!(k, "key" | "hexkey");
        }
        if !have_key {
            return Err(Fail::msg(format!(
                "{} needs a key: -macopt key:STRING or hexkey:HEX",
                kind.name()
            )));
        }
        if kind == Kind::Hmac && p.digest.is_none() {
            return Err(Fail::msg("HMAC needs a digest: -digest NAME or -macopt digest:NAME"));
        }
        if kind != Kind::Hmac && p.digest.is_some() {
            return Err(Fail::msg(format!("{} takes no digest", kind.name())));
        }
        if kind == Kind::Cmac && p.cipher.is_none() {
            return Err(Fail::msg("CMAC needs a cipher: -cipher NAME or -macopt cipher:NAME"));
        }
        Ok(p)
    }
}

/// The CBC cipher `name` for `kind`: CBC-MAC here is DES's (FIPS 113); CMAC takes AES too.
fn cipher_by_name(name: &str, kind: Kind) -> CmdResult<CipherSpec> {
    let (des_only, known) = match kind {
        Kind::Cmac => (false, "aes-128-cbc, aes-192-cbc, aes-256-cbc, des-ede3-cbc, ..."),
        _ => (true, "des-cbc, des-ede-cbc, des-ede3-cbc"),
    };
    lookup(name)
        .filter(|s| s.mode == CipherMode::Cbc && (!des_only || s.algorithm.block_len() == 8))
        .ok_or_else(|| Fail::msg(format!("unknown cipher '{name}' ({known})")))
}

/// A MAC in progress. One lives per input, so the HMAC variant's size does not matter.
#[allow(clippy::large_enum_variant)]
enum State {
    Hmac(DynHmac),
    Des(CbcMac<Des>),
    Tdes(CbcMac<Tdes>),
    Retail(RetailMac),
    Cmac(Cmac),
}

fn start(p: &Params, len: Option<u64>) -> CmdResult<State> {
    let bad = |e| Fail::lib(p.kind.name(), e);
    let padding = match (p.pad, len) {
        (Pad::Method1, _) => MacPadding::Zeros,
        (Pad::Method2, _) => MacPadding::OneAndZeros,
        (Pad::Method3, Some(n)) => MacPadding::LengthPrefixed(n),
        (Pad::Method3, None) => {
            return Err(Fail::msg("internal error: padding 3 without a length"));
        }
        (Pad::Pkcs7, _) => MacPadding::Pkcs7,
    };
    Ok(match p.kind {
        Kind::Hmac => {
            let alg = p.digest.ok_or_else(|| Fail::msg("HMAC needs a digest"))?;
            State::Hmac(DynHmac::new(alg, &p.key))
        }
        Kind::CbcMac => {
            let alg = match (p.cipher, p.key.len()) {
                // The key is what the named cipher takes: des-ede3-cbc with an 8-byte key
                // would quietly be single DES.
                (Some(s), n) if n == s.key_len => s.algorithm,
                (Some(s), n) => {
                    return Err(Fail::msg(format!(
                        "CBC-MAC key is {n} bytes: {} takes {}",
                        s.name, s.key_len
                    )));
                }
                (None, 8) => Algorithm::Des,
                (None, 16 | 24) => Algorithm::DesEde3,
                (None, n) => {
                    return Err(Fail::msg(format!(
                        "CBC-MAC key is {n} bytes: use 8 (DES), 16 or 24 (triple-DES)"
                    )));
                }
            };
            if alg == Algorithm::Des {
                State::Des(
                    CbcMac::new(Des::new(&p.key).map_err(bad)?, padding, p.size).map_err(bad)?,
                )
            } else {
                State::Tdes(
                    CbcMac::new(Tdes::new(&p.key).map_err(bad)?, padding, p.size).map_err(bad)?,
                )
            }
        }
        Kind::Retail => State::Retail(RetailMac::new(&p.key, padding, p.size).map_err(bad)?),
        Kind::Cmac => {
            let s = p.cipher.ok_or_else(|| Fail::msg("CMAC needs a cipher"))?;
            if p.key.len() != s.key_len {
                return Err(Fail::msg(format!(
                    "CMAC key is {} bytes: {} takes {}",
                    p.key.len(),
                    s.name,
                    s.key_len
                )));
            }
            State::Cmac(Cmac::new(s.algorithm, &p.key).map_err(bad)?)
        }
    })
}

impl State {
    fn update(&mut self, data: &[u8]) {
        match self {
            State::Hmac(m) => m.update(data),
            State::Des(m) => m.update(data),
            State::Tdes(m) => m.update(data),
            State::Retail(m) => m.update(data),
            State::Cmac(m) => m.update(data),
        }
    }

    fn finalize(self, kind: Kind) -> CmdResult<Vec<u8>> {
        let bad = |e| Fail::lib(kind.name(), e);
        Ok(match self {
            State::Hmac(m) => m.finalize().as_bytes().to_vec(),
            State::Des(m) => m.finalize().map_err(bad)?.as_bytes().to_vec(),
            State::Tdes(m) => m.finalize().map_err(bad)?.as_bytes().to_vec(),
            State::Retail(m) => m.finalize().map_err(bad)?.as_bytes().to_vec(),
            State::Cmac(m) => m.finalize().as_bytes().to_vec(),
        })
    }
}

/// The most bytes padding method 3 holds in memory for an input whose length is not
/// known before it is read (a pipe, stdin), 16 MiB.
const MAX_UNSIZED_PADDING3: usize = 16 << 20;

/// The tag of everything `input` holds (`name` for read errors); `len` is the input's
/// length where it is known before reading (a regular file's size, [`io::input_len`]).
/// Streams, except that padding method 3, which starts with the length, holds an input
/// of unknown length in memory, up to [`MAX_UNSIZED_PADDING3`]. A file whose length
/// changes while it is read fails (the library checks the declared length).
pub fn compute(
    p: &Params,
    input: &mut dyn Read,
    name: &str,
    len: Option<u64>,
) -> CmdResult<Vec<u8>> {
    let read_err = |e: std::io::Error| Fail::msg(format!("{name}: {}", io::reason(&e)));
    let needs_len = p.pad == Pad::Method3 && p.kind != Kind::Hmac;
    if needs_len && len.is_none() {
        let mut all = Vec::new();
        input.take(MAX_UNSIZED_PADDING3 as u64 + 1).read_to_end(&mut all).map_err(read_err)?;
        if all.len() > MAX_UNSIZED_PADDING3 {
            return Err(Fail::msg(format!(
                "{name}: padding:3 needs the length first: input of unknown length (a pipe) \
                 is read up to 16 MiB; give a file with -in for more"
            )));
        }
        let mut s = start(p, Some(all.len() as u64))?;
        s.update(&all);
        return s.finalize(p.kind);
    }
    let mut s = start(p, len.filter(|_| needs_len))?;
    io::for_each_chunk(input, name, |chunk| s.update(chunk))?;
    s.finalize(p.kind)
}

/// Runs `mac`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    let name = match a.positional.as_slice() {
        [n] => n.as_str(),
        [] => {
            return Err(Fail::msg(
                "no MAC name given (HMAC, CBC-MAC, RETAIL-MAC, CMAC; see -help)",
            ));
        }
        [_, extra, ..] => {
            return Err(Fail::msg(format!("unexpected argument '{extra}' (see -help)")));
        }
    };
    let params =
        Params::new(name, a.value("digest"), a.value("cipher"), &a.values("macopt"), None)?;
    let input = a.value("in");
    let mut r = io::open_input(input)?;
    let tag = compute(&params, &mut r, io::input_name(input), io::input_len(input))?;
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    if a.has("binary") {
        out.put(&tag)?;
    } else {
        // A line on stdout; in an -out file the hex alone, as openssl mac writes it.
        let end = if a.value("out").is_some() { "" } else { "\n" };
        out.put(format!("{}{end}", hex::upper(&tag)).as_bytes())?;
    }
    out.commit()
}
