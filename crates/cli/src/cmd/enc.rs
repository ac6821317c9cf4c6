//! `cryptocard enc`: AES, DES and triple-DES encryption, file-compatible with OpenSSL
//! 3.0's `openssl enc`.
//!
//! ```text
//! cryptocard enc -CIPHER [-e|-d] [-in F] [-out F] [-a|-base64 [-A]] [-nopad] [-p|-P]
//!                (-K HEX [-iv HEX] | -pass ARG|-k WORD|-kfile F [-pbkdf2] [-iter N]
//!                 [-md NAME] [-S HEX|-nosalt])
//! ```
//!
//! CIPHER is any name `cipher::lookup` knows: `aes-{128,192,256}-{ecb,cbc,cfb,cfb8,
//! ofb,ctr}` (`aes128`, `aes192`, `aes256` are CBC; `-cfb` is CFB-128; `-ctr` counts on
//! the whole 16-byte IV, as OpenSSL), `des-ecb`, `des-cbc` (`des`), `des-cfb`,
//! `des-cfb8`, `des-ofb`, `des-ede`, `des-ede-cbc`, `des-ede3`, `des-ede3-cbc` (`des3`),
//! ... (`-list`). Keys are 16, 24 or 32 bytes for AES, IVs 16 (8 for DES). Without a cipher (or with `-none`) the data is copied (with `-a`, base64 only).
//!
//! Key and IV: from `-K`/`-iv` in hex (too short is zero-padded and too long truncated,
//! with OpenSSL's warnings), or derived from a password. Derivation, as OpenSSL's
//! `enc.c`: with `-pbkdf2` or `-iter N`, PBKDF2-HMAC (RFC 8018 section 5.2) with `-md`
//! (default SHA-256) and N iterations (default 10000) gives key || IV; otherwise the
//! legacy `EVP_BytesToKey` with one iteration, `D_i = H(D_{i-1} || password || salt)`,
//! and OpenSSL's warning. The salt is 8 random bytes written after the magic `Salted__`
//! (read back from there when decrypting) unless `-nosalt`; a salt given with `-S` is used
//! as OpenSSL 3.0 uses it: no header is written, nor expected when decrypting.
//!
//! A ciphertext that does not decrypt (bad padding, a wrong password, not whole blocks)
//! prints `bad decrypt`, exits 1 and leaves no output file (an existing one is
//! untouched). Decrypted output is written owner-only. The password (`-pass`, `-kfile`)
//! is read before the input, so `-pass stdin` takes the first line of stdin and the data
//! is the rest, as in OpenSSL. Without a cipher, `-d -a` (`base64 -d`) stops at invalid
//! base64 without an error, as OpenSSL does; with a cipher invalid base64 is an error.

use super::{Spec, digest_by_name, no_positional};
use crate::args::Flag;
use crate::base64;
use crate::fail::{CmdResult, Fail};
use crate::hex::{self, Fit};
use crate::io::{self, Mode, Output};
use crate::pass::{self, Password};
use cryptocard::cipher::{CipherSpec, lookup};
use cryptocard::des::{Direction, Padding};
use cryptocard::digest::{HashAlg, Hasher, pbkdf2_hmac_alg};
use cryptocard::rng::{OsRng, RandomSource};
use std::io::{Read, Write};
use zeroize::Zeroizing;

const SPEC: Spec = Spec {
    usage: "enc -CIPHER [options]",
    flags: &[
        Flag::switch("list").about("List the ciphers"),
        Flag::switch("ciphers").about("Alias for -list"),
        Flag::switch("none").about("No cipher: copy (with -a, base64 only)"),
        Flag::switch("e").about("Encrypt (the default)"),
        Flag::switch("d").about("Decrypt"),
        Flag::value("in", "FILE").about("Input file (default stdin)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("pass", "ARG").about("Password source (pass:, env:, file:, fd:, stdin)"),
        Flag::value("k", "WORD").about("Password (legacy; prefer -pass)"),
        Flag::value("kfile", "FILE")
            .about("Read the password from the first line of FILE (legacy)"),
        Flag::value("K", "HEX").about("Raw key, in hex"),
        Flag::value("iv", "HEX").about("IV, in hex"),
        Flag::value("S", "HEX").about("Salt, in hex (no Salted__ header is written then)"),
        Flag::switch("salt").about("Use a salt in the key derivation (the default)"),
        Flag::switch("nosalt").about("Do not use a salt"),
        Flag::switch("p").about("Print the salt, key and IV"),
        Flag::switch("P").about("Print the salt, key and IV and exit"),
        Flag::switch("pbkdf2").about("Derive the key with PBKDF2"),
        Flag::value("iter", "N").about("PBKDF2 iterations (implies -pbkdf2; default 10000)"),
        Flag::value("md", "NAME").about("Digest for the key derivation (default sha256)"),
        Flag::switch("nopad").about("Disable standard block padding"),
        Flag::switch("a").about("Base64 encode/decode, depending on the direction"),
        Flag::switch("base64").about("Same as -a"),
        Flag::switch("A").about("With -a, base64 on one line"),
        Flag::switch("v").about("Verbose: print the byte counts"),
    ],
    notes: "Ciphers: -aes-128-ecb -aes-128-cbc -aes-128-cfb -aes-128-cfb8 -aes-128-ofb\n\
-aes-128-ctr, the same for -aes-192-* and -aes-256-*; aliases -aes128 -aes192 -aes256\n\
(CBC) -aes-128-cfb128 ...\n\
-des-ecb -des-cbc -des-cfb -des-cfb8 -des-ofb -des-ctr -des-ede -des-ede-cbc\n\
-des-ede-cfb -des-ede-ofb -des-ede-ctr -des-ede3 -des-ede3-cbc -des-ede3-cfb -des-ede3-cfb8\n\
-des-ede3-ofb -des-ede3-ctr; aliases -des -des3 -des-ede-ecb -des-ede3-ecb -des-cfb64 ...\n\
(the -ctr modes are cryptocard's: OpenSSL has no DES CTR)\n",
    more: None,
};

/// The magic that starts a salted file.
const MAGIC: &[u8; 8] = b"Salted__";
const SALT_LEN: usize = 8;
const DEFAULT_ITER: u32 = 10_000;
const CHUNK: usize = 64 * 1024;

/// Runs `enc`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &|n| lookup(n).is_some())? else { return Ok(()) };
    no_positional(&a)?;
    if a.has("list") || a.has("ciphers") {
        let mut names: Vec<String> = cryptocard::cipher::names().map(String::from).collect();
        names.sort();
        names.dedup();
        super::print_text(&super::flag_table("Supported ciphers:", &names));
        return Ok(());
    }
    let cipher = match a.dynamic.last() {
        Some(_) if a.has("none") => return Err(Fail::msg("-none and a cipher exclude each other")),
        Some(n) => Some(lookup(n).ok_or_else(|| Fail::msg(format!("unknown cipher '{n}'")))?),
        None => None,
    };
    let decrypt = a.last_of(&["e", "d"]) == Some("d");
    let base64 = a.has("a") || a.has("base64");
    // The password first: its line may come down stdin ahead of the data, as in OpenSSL.
    let password = match cipher {
        Some(_) => password(&a)?,
        None => None,
    };
    let input = a.value("in");
    let mut reader: Box<dyn Read> = io::open_input(input)?;
    if base64 && decrypt {
        // Without a cipher, `base64 -d` as OpenSSL's: invalid base64 ends the data and
        // is no error. Ciphertext must be whole: there it fails.
        let decoder = base64::Decoder::new(reader);
        reader = Box::new(if cipher.is_none() { decoder.stop_at_garbage() } else { decoder });
    }
    // Decrypted output is private material (README): owner-only, as keys are.
    let mode = if decrypt && cipher.is_some() { Mode::Private } else { Mode::Public };
    let mut out = Output::create(a.value("out"), mode)?;
    let mut header = Vec::new();
    let ctx = match cipher {
        None => None,
        Some(spec) => {
            let keys = keys(&a, spec, password, decrypt, &mut reader, input, &mut header)?;
            if a.has("p") || a.has("P") {
                let mut text = String::new();
                if let Some(salt) = &keys.salt {
                    text += &format!("salt={}\n", hex::upper(salt));
                }
                text += &format!("key={}\n", hex::upper(&keys.key));
                if spec.iv_len > 0 {
                    text += &format!("iv ={}\n", hex::upper(&keys.iv));
                }
                if a.has("P") {
                    super::print_text(&text);
                    return Ok(());
                }
                // As OpenSSL, on stdout even when the data goes there too.
                super::print_text(&text);
            }
            let dir = if decrypt { Direction::Decrypt } else { Direction::Encrypt };
            let padding = if a.has("nopad") { Padding::None } else { Padding::Pkcs7 };
            Some(
                spec.new_ctx(&keys.key, &keys.iv, dir, padding)
                    .map_err(|e| Fail::lib("cipher", e))?,
            )
        }
    };
    let (read, written) = if base64 && !decrypt {
        let mut enc = base64::Encoder::new(&mut out, !a.has("A"));
        let n = pump(ctx, &header, &mut reader, &mut enc, input, decrypt)?;
        enc.finish().map_err(|e| Fail::msg(format!("write error: {}", io::reason(&e))))?;
        n
    } else {
        pump(ctx, &header, &mut reader, &mut out, input, decrypt)?
    };
    if a.has("v") {
        eprintln!("bytes read   : {read:8}\nbytes written: {written:8}");
    }
    out.commit()
}

/// Key, IV and salt of a run.
struct Keys {
    key: Zeroizing<Vec<u8>>,
    iv: Vec<u8>,
    salt: Option<Vec<u8>>,
}

/// The password of `-pass`, `-k` or `-kfile`, if any.
fn password(a: &crate::args::Parsed) -> CmdResult<Option<Password>> {
    Ok(if let Some(arg) = a.value("pass") {
        Some(pass::resolve(arg)?)
    } else if let Some(word) = a.value("k") {
        Some(Zeroizing::new(word.as_bytes().to_vec()))
    } else if let Some(file) = a.value("kfile") {
        Some(pass::resolve(&format!("file:{file}"))?)
    } else {
        None
    })
}

/// Works out the key and IV as `openssl enc` does, from `password` or `-K`/`-iv`; reads
/// the salt header when decrypting, and leaves the header to write in `header` when
/// encrypting.
fn keys(
    a: &crate::args::Parsed,
    spec: CipherSpec,
    password: Option<Password>,
    decrypt: bool,
    reader: &mut Box<dyn Read>,
    input: Option<&str>,
    header: &mut Vec<u8>,
) -> CmdResult<Keys> {
    let mut k =
        Keys { key: Zeroizing::new(vec![0; spec.key_len]), iv: vec![0; spec.iv_len], salt: None };
    if password.is_none() && a.value("K").is_none() {
        return Err(Fail::msg(
            "no key: give -K HEX, or a password with -pass (pass:, env:, file:, fd:, stdin)",
        ));
    }
    let iter = a.parsed::<u32>("iter")?;
    if iter == Some(0) {
        return Err(Fail::msg("-iter: must be at least 1"));
    }
    let md = a.value("md").map(digest_by_name).transpose()?.unwrap_or(HashAlg::Sha256);
    if let Some(pw) = &password {
        if !a.has("nosalt") {
            let mut salt = vec![0u8; SALT_LEN];
            // A salt given with -S is neither written nor read: the file has no header.
            if let Some(s) = a.value("S") {
                salt = fixed_hex(s, SALT_LEN, "salt")?;
            } else if decrypt {
                let mut head = [0u8; 16];
                let n = io::read_full(reader.as_mut(), &mut head)
                    .map_err(|e| io::read_error(input, &e))?;
                if n < head.len() {
                    return Err(Fail::msg("error reading input file"));
                }
                if &head[..8] != MAGIC {
                    return Err(Fail::msg("bad magic number"));
                }
                salt.copy_from_slice(&head[8..]);
            } else {
                OsRng.fill_bytes(&mut salt).map_err(|e| Fail::lib("salt", e))?;
                header.extend_from_slice(MAGIC);
                header.extend_from_slice(&salt);
            }
            k.salt = Some(salt);
        }
        let salt = k.salt.as_deref().unwrap_or(&[]);
        let mut keyiv = Zeroizing::new(vec![0u8; spec.key_len + spec.iv_len]);
        if a.has("pbkdf2") || iter.is_some() {
            pbkdf2_hmac_alg(md, pw, salt, iter.unwrap_or(DEFAULT_ITER), &mut keyiv)
                .map_err(|e| Fail::lib("PBKDF2", e))?;
        } else {
            eprintln!(
                "*** WARNING : deprecated key derivation used.\nUsing -iter or -pbkdf2 would be better."
            );
            bytes_to_key(md, pw, salt, &mut keyiv);
        }
        k.key.copy_from_slice(&keyiv[..spec.key_len]);
        k.iv.copy_from_slice(&keyiv[spec.key_len..]);
    }
    if let Some(iv) = a.value("iv") {
        if spec.iv_len == 0 {
            eprintln!("warning: iv not used by this cipher");
        } else {
            k.iv = fixed_hex(iv, spec.iv_len, "iv")?;
        }
    } else if password.is_none() && spec.iv_len > 0 {
        return Err(Fail::msg("iv undefined: give -iv HEX with -K"));
    }
    if let Some(hexkey) = a.value("K") {
        k.key = Zeroizing::new(fixed_hex(hexkey, spec.key_len, "key")?);
    }
    Ok(k)
}

/// A hex key, IV or salt of `len` bytes, with OpenSSL's warnings for the wrong length.
fn fixed_hex(s: &str, len: usize, what: &str) -> CmdResult<Vec<u8>> {
    let (bytes, fit) =
        hex::fixed(s, len).map_err(|e| Fail::msg(format!("invalid hex {what} value: {e}")))?;
    match fit {
        Fit::Exact => {}
        Fit::Padded => eprintln!("hex string is too short, padding with zero bytes to length"),
        Fit::Truncated => eprintln!("hex string is too long, ignoring excess"),
    }
    Ok(bytes)
}

/// OpenSSL's `EVP_BytesToKey` with one iteration: `D_1 = H(password || salt)`,
/// `D_i = H(D_{i-1} || password || salt)`, concatenated until `out` is full.
fn bytes_to_key(md: HashAlg, password: &[u8], salt: &[u8], out: &mut [u8]) {
    let mut prev: Option<Zeroizing<Vec<u8>>> = None;
    let mut filled = 0;
    while filled < out.len() {
        let mut h = Hasher::new(md);
        if let Some(p) = &prev {
            h.update(p);
        }
        h.update(password);
        h.update(salt);
        let d = Zeroizing::new(h.finalize().as_bytes().to_vec());
        let take = d.len().min(out.len() - filled);
        out[filled..filled + take].copy_from_slice(&d[..take]);
        filled += take;
        prev = Some(d);
    }
}

/// Streams `reader` through the cipher (or copies it) into `w`, after `header`; returns
/// the bytes read (after any salt header) and written (before any base64).
fn pump(
    mut ctx: Option<cryptocard::cipher::AnyCipherCtx>,
    header: &[u8],
    reader: &mut Box<dyn Read>,
    w: &mut dyn Write,
    input: Option<&str>,
    decrypt: bool,
) -> CmdResult<(u64, u64)> {
    let write_err = |e: std::io::Error| Fail::msg(format!("write error: {}", io::reason(&e)));
    w.write_all(header).map_err(write_err)?;
    let mut written = header.len() as u64;
    let mut read = 0u64;
    let mut inbuf = vec![0u8; CHUNK];
    let mut outbuf = Zeroizing::new(vec![0u8; CHUNK + 16]);
    loop {
        let k = match reader.read(&mut inbuf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io::read_error(input, &e)),
        };
        read += k as u64;
        let n = match ctx.as_mut() {
            Some(c) => c.update(&inbuf[..k], &mut outbuf).map_err(|e| Fail::lib("cipher", e))?,
            None => {
                outbuf[..k].copy_from_slice(&inbuf[..k]);
                k
            }
        };
        w.write_all(&outbuf[..n]).map_err(write_err)?;
        written += n as u64;
    }
    if let Some(c) = ctx {
        // A ciphertext that is not whole blocks (with -nopad too) is OpenSSL's "bad
        // decrypt"; plaintext that is not whole blocks with -nopad keeps our words.
        let n = c.finalize(&mut outbuf).map_err(|e| match e {
            cryptocard::Error::Decryption => Fail::bare("bad decrypt"),
            cryptocard::Error::InvalidArgument(_) if decrypt => Fail::bare("bad decrypt"),
            e => Fail::lib("cipher", e),
        })?;
        w.write_all(&outbuf[..n]).map_err(write_err)?;
        written += n as u64;
    }
    Ok((read, written))
}
