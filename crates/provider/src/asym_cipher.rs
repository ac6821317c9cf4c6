//! The C side of the RSA asymmetric cipher (provider-asym_cipher(7)): the dispatch
//! table and one `extern "C"` function per entry over [`CipherCtx`], inside [`guard`].

#![allow(unsafe_code)]

use crate::buffers::{input, key_ref, output, output_len};
use crate::cipher_ctx::CipherCtx;
use crate::errors::{Failure, Outcome, Reason, guard};
use crate::ossl::{self, OsslDispatch, OsslParam, Table, describe, entry, names};
use crate::padding::{Pad, digest_from_param, digest_name};
use crate::params;
use crate::provider::{ProvCtx, raise};
use core::ffi::{CStr, c_char, c_int, c_void};

/// The context OpenSSL holds: ours and the provider context for errors.
#[derive(Clone, Debug)]
struct Ctx {
    prov: *const ProvCtx,
    cipher: CipherCtx,
}

/// Runs `f` on the context behind `ctx`, reporting a failure as `func`: 1 or 0.
fn with_ctx(ctx: *mut c_void, func: &CStr, f: impl FnOnce(&mut Ctx) -> Outcome<()>) -> c_int {
    guard(0, || {
        // SAFETY: a non-null `ctx` is a `Box<Ctx>` from `newctx`/`dupctx`, not yet freed,
        // used by one thread at a time.
        let Some(c) = (unsafe { ctx.cast::<Ctx>().as_mut() }) else { return 0 };
        match f(c) {
            Ok(()) => 1,
            Err(failure) => {
                raise(c.prov, func, &failure);
                0
            }
        }
    })
}

unsafe extern "C" fn newctx(provctx: *mut c_void, _propq: *const c_char) -> *mut c_void {
    guard(core::ptr::null_mut(), || {
        let prov = provctx.cast_const().cast::<ProvCtx>();
        let cipher = CipherCtx::with_digest_policy(crate::provider::digest_policy(prov));
        let ctx = Ctx { prov, cipher };
        Box::into_raw(Box::new(ctx)).cast::<c_void>()
    })
}

unsafe extern "C" fn freectx(ctx: *mut c_void) {
    guard((), || {
        if !ctx.is_null() {
            // SAFETY: a `Box<Ctx>` from `newctx`/`dupctx`, freed once.
            drop(unsafe { Box::from_raw(ctx.cast::<Ctx>()) });
        }
    })
}

unsafe extern "C" fn dupctx(ctx: *mut c_void) -> *mut c_void {
    guard(core::ptr::null_mut(), || {
        // SAFETY: as in `with_ctx`.
        match unsafe { ctx.cast::<Ctx>().as_ref() } {
            Some(c) => Box::into_raw(Box::new(c.clone())).cast::<c_void>(),
            None => core::ptr::null_mut(),
        }
    })
}

fn init(
    c: &mut Ctx,
    provkey: *mut c_void,
    decrypting: bool,
    params: *const OsslParam,
) -> Outcome<()> {
    // SAFETY: `provkey` is our keydata or null.
    c.cipher.init(unsafe { key_ref(provkey) }, decrypting)?;
    set_params(&mut c.cipher, params)
}

unsafe extern "C" fn encrypt_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"encrypt_init", |c| init(c, provkey, false, params))
}

unsafe extern "C" fn decrypt_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"decrypt_init", |c| init(c, provkey, true, params))
}

/// encrypt and decrypt: with a null `out`, the output size; else, once `outsize` is found
/// large enough (before any work: see `cipher_ctx`), `op` on the `inlen` input bytes,
/// written to `out`.
///
/// # Safety
/// OpenSSL's arguments: `outlen` writable, `inp` readable for `inlen` bytes, `out` null or
/// writable for `outsize` bytes.
unsafe fn transform<T: AsRef<[u8]>>(
    ctx: *mut c_void,
    func: &CStr,
    (out, outlen, outsize): (*mut u8, *mut usize, usize),
    (inp, inlen): (*const u8, usize),
    op: fn(&CipherCtx, &[u8]) -> Outcome<T>,
) -> c_int {
    with_ctx(ctx, func, |c| {
        let needed = c.cipher.out_size()?;
        if out.is_null() {
            // SAFETY: OpenSSL's length out pointer.
            return unsafe { output_len(outlen, needed) };
        }
        if outsize < needed {
            return Err(Failure::new(Reason::BufferTooSmall, format!("{needed} bytes needed")));
        }
        // SAFETY: OpenSSL's input of `inlen` bytes.
        let result = op(&c.cipher, unsafe { input(inp, inlen) })?;
        // SAFETY: `out` holds `outsize` writable bytes.
        unsafe { output(out, outlen, outsize, result.as_ref()) }
    })
}

unsafe extern "C" fn encrypt(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    inp: *const u8,
    inlen: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, passed on as they came.
    unsafe { transform(ctx, c"encrypt", (out, outlen, outsize), (inp, inlen), CipherCtx::encrypt) }
}

unsafe extern "C" fn decrypt(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    inp: *const u8,
    inlen: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, passed on as they came.
    unsafe { transform(ctx, c"decrypt", (out, outlen, outsize), (inp, inlen), CipherCtx::decrypt) }
}

/// Applies OpenSSL's asymmetric cipher parameters; unknown names are ignored.
fn set_params(cipher: &mut CipherCtx, params: *const OsslParam) -> Outcome<()> {
    // SAFETY: OpenSSL passes null or an END-terminated array.
    for p in unsafe { params::elements(params) } {
        match p.key() {
            b"pad-mode" => cipher.set_pad(Pad::from_param(&p)?)?,
            b"digest" => cipher.set_oaep_md(digest_from_param(&p, "digest")?)?,
            b"mgf1-digest" => cipher.set_mgf1(digest_from_param(&p, "mgf1-digest")?)?,
            b"oaep-label" => {
                let label =
                    p.get_octets().ok_or_else(|| Failure::param("oaep-label: not octets"))?;
                cipher.label = label.to_vec();
            }
            b"implicit-rejection" => {
                let v = p
                    .get_i64()
                    .ok_or_else(|| Failure::param("implicit-rejection: not an integer"))?;
                cipher.implicit_rejection = v != 0;
            }
            b"tls-client-version" => cipher.tls_client_version = tls_version(&p)?,
            b"tls-negotiated-version" => cipher.tls_negotiated_version = tls_version(&p)?,
            _ => {}
        }
    }
    Ok(())
}

/// A TLS protocol version parameter (0x0300 to 0x0304, or 0 for none).
fn tls_version(p: &params::Param<'_>) -> Outcome<u16> {
    p.get_i64()
        .and_then(|v| u16::try_from(v).ok())
        .ok_or_else(|| Failure::param("TLS version: not a 16-bit integer"))
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
    with_ctx(ctx, c"set_ctx_params", |c| set_params(&mut c.cipher, params))
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
    with_ctx(ctx, c"get_ctx_params", |c| {
        let x = &c.cipher;
        let md = x.oaep_md.unwrap_or(cryptocard::digest::HashAlg::Sha1);
        // SAFETY: OpenSSL passes an END-terminated array.
        for mut p in unsafe { params::elements(params) } {
            let ok = match p.key() {
                b"pad-mode" => x.pad.to_param(&mut p),
                b"digest" => p.set_utf8(digest_name(md)),
                b"mgf1-digest" => p.set_utf8(digest_name(x.mgf1.unwrap_or(md))),
                b"oaep-label" => p.set_octets_or_ptr(&x.label),
                b"implicit-rejection" => p.set_i64(i64::from(x.implicit_rejection)),
                b"tls-client-version" => p.set_i64(i64::from(x.tls_client_version)),
                b"tls-negotiated-version" => p.set_i64(i64::from(x.tls_negotiated_version)),
                _ => true,
            };
            if !ok {
                return Err(Failure::param("a gettable parameter has the wrong type or size"));
            }
        }
        Ok(())
    })
}

static SETTABLE: Table<OsslParam, 11> = Table([
    describe(names::PAD_MODE, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST_PROPS, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST_PROPS, ossl::PARAM_UTF8_STRING),
    describe(names::OAEP_LABEL, ossl::PARAM_OCTET_STRING),
    describe(names::IMPLICIT_REJECTION, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::TLS_CLIENT_VERSION, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::TLS_NEGOTIATED_VERSION, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::PROPERTIES, ossl::PARAM_UTF8_STRING),
    ossl::PARAM_END,
]);

static GETTABLE: Table<OsslParam, 8> = Table([
    describe(names::PAD_MODE, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::OAEP_LABEL, ossl::PARAM_OCTET_PTR),
    describe(names::IMPLICIT_REJECTION, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::TLS_CLIENT_VERSION, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::TLS_NEGOTIATED_VERSION, ossl::PARAM_UNSIGNED_INTEGER),
    ossl::PARAM_END,
]);

unsafe extern "C" fn settable_ctx_params(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    SETTABLE.as_ptr()
}

unsafe extern "C" fn gettable_ctx_params(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    GETTABLE.as_ptr()
}

/// The RSA asymmetric cipher's dispatch table.
pub static DISPATCH: Table<OsslDispatch, 12> = Table([
    entry(ossl::FUNC_ASYM_CIPHER_NEWCTX, newctx as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_FREECTX, freectx as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_DUPCTX, dupctx as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_ENCRYPT_INIT, encrypt_init as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_ENCRYPT, encrypt as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_DECRYPT_INIT, decrypt_init as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_DECRYPT, decrypt as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_GET_CTX_PARAMS, get_ctx_params as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS, gettable_ctx_params as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_SET_CTX_PARAMS, set_ctx_params as *const c_void),
    entry(ossl::FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS, settable_ctx_params as *const c_void),
    ossl::DISPATCH_END,
]);
