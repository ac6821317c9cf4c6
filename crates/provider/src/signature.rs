//! The C side of the RSA signature (provider-signature(7)): the dispatch table and one
//! `extern "C"` function per entry, each a thin wrapper over [`SigCtx`] inside
//! [`guard`], raising failures on OpenSSL's error queue.

#![allow(unsafe_code)]

use crate::buffers::{input, key_ref, output, output_len};
use crate::errors::{Failure, Outcome, guard};
use crate::ossl::{self, OsslDispatch, OsslParam, Table, describe, entry, names};
use crate::padding::{Pad, Salt, digest_from_param, digest_name};
use crate::params;
use crate::provider::{ProvCtx, raise};
use crate::sig_ctx::{Purpose, SigCtx};
use crate::sig_digest::SigMd;
use core::ffi::{CStr, c_char, c_int, c_void};

/// The context OpenSSL holds: ours and the provider context for errors.
#[derive(Clone, Debug)]
struct Ctx {
    prov: *const ProvCtx,
    sig: SigCtx,
}

/// Runs `f` on the context behind `ctx`, reporting a failure as `func`: 1 or 0.
fn with_ctx(ctx: *mut c_void, func: &CStr, f: impl FnOnce(&mut Ctx) -> Outcome<()>) -> c_int {
    guard(0, || {
        // SAFETY: a non-null `ctx` is a `Box<Ctx>` from `newctx`/`dupctx`, not yet freed,
        // used by one thread at a time (OpenSSL's rule for operation contexts).
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
        // The PSS salt default of the libcrypto we were loaded into (`sig_ctx`).
        let sig = SigCtx::with_default_salt(crate::provider::default_pss_salt(prov))
            .with_digest_policy(crate::provider::digest_policy(prov));
        Box::into_raw(Box::new(Ctx { prov, sig })).cast::<c_void>()
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

/// sign_init / verify_init / digest_*_init: the key (or the one already set), the
/// purpose, the digest for the digest variants, then the parameters.
fn init(
    c: &mut Ctx,
    provkey: *mut c_void,
    purpose: Purpose,
    md: Option<*const c_char>,
    params: *const OsslParam,
) -> Outcome<()> {
    // SAFETY: `provkey` is our keydata (OpenSSL passes the key of our keymgmt) or null.
    let key = unsafe { key_ref(provkey) }
        .or_else(|| c.sig.key_data())
        .ok_or_else(|| Failure::new(crate::errors::Reason::InvalidKey, "no key"))?;
    match md {
        Some(md) => {
            let name = if md.is_null() {
                None
            } else {
                // SAFETY: a non-null digest name is a C string.
                Some(
                    unsafe { CStr::from_ptr(md) }
                        .to_str()
                        .map_err(|_| Failure::param("digest name"))?,
                )
            };
            c.sig.init_digest(key, purpose, name)?
        }
        None => c.sig.init(key, purpose)?,
    }
    set_params(&mut c.sig, params)
}

unsafe extern "C" fn sign_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"sign_init", |c| init(c, provkey, Purpose::Sign, None, params))
}

unsafe extern "C" fn verify_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"verify_init", |c| init(c, provkey, Purpose::Verify, None, params))
}

unsafe extern "C" fn sign(
    ctx: *mut c_void,
    sig: *mut u8,
    siglen: *mut usize,
    sigsize: usize,
    tbs: *const u8,
    tbslen: usize,
) -> c_int {
    with_ctx(ctx, c"sign", |c| {
        if sig.is_null() {
            // SAFETY: OpenSSL's length out pointer.
            return unsafe { output_len(siglen, c.sig.sig_len()?) };
        }
        // SAFETY: `tbs` holds `tbslen` bytes.
        let s = c.sig.sign(unsafe { input(tbs, tbslen) })?;
        // SAFETY: `sig` holds `sigsize` writable bytes.
        unsafe { output(sig, siglen, sigsize, &s) }
    })
}

unsafe extern "C" fn verify(
    ctx: *mut c_void,
    sig: *const u8,
    siglen: usize,
    tbs: *const u8,
    tbslen: usize,
) -> c_int {
    with_ctx(ctx, c"verify", |c| {
        // SAFETY: OpenSSL's buffers of the lengths it gives.
        let (sig, tbs) = unsafe { (input(sig, siglen), input(tbs, tbslen)) };
        c.sig.verify(sig, tbs)
    })
}

unsafe extern "C" fn verify_recover_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"verify_recover_init", |c| {
        init(c, provkey, Purpose::VerifyRecover, None, params)
    })
}

unsafe extern "C" fn verify_recover(
    ctx: *mut c_void,
    rout: *mut u8,
    routlen: *mut usize,
    routsize: usize,
    sig: *const u8,
    siglen: usize,
) -> c_int {
    with_ctx(ctx, c"verify_recover", |c| {
        if rout.is_null() {
            // SAFETY: OpenSSL's length out pointer.
            return unsafe { output_len(routlen, c.sig.sig_len()?) };
        }
        // SAFETY: OpenSSL's buffer of `siglen` bytes.
        let data = c.sig.verify_recover(unsafe { input(sig, siglen) })?;
        // SAFETY: `rout` holds `routsize` writable bytes.
        unsafe { output(rout, routlen, routsize, &data) }
    })
}

unsafe extern "C" fn digest_sign_init(
    ctx: *mut c_void,
    mdname: *const c_char,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"digest_sign_init", |c| init(c, provkey, Purpose::Sign, Some(mdname), params))
}

unsafe extern "C" fn digest_verify_init(
    ctx: *mut c_void,
    mdname: *const c_char,
    provkey: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    with_ctx(ctx, c"digest_verify_init", |c| {
        init(c, provkey, Purpose::Verify, Some(mdname), params)
    })
}

unsafe extern "C" fn digest_update(ctx: *mut c_void, data: *const u8, len: usize) -> c_int {
    // SAFETY: OpenSSL's buffer of `len` bytes.
    with_ctx(ctx, c"digest_update", |c| c.sig.update(unsafe { input(data, len) }))
}

unsafe extern "C" fn digest_sign_final(
    ctx: *mut c_void,
    sig: *mut u8,
    siglen: *mut usize,
    sigsize: usize,
) -> c_int {
    with_ctx(ctx, c"digest_sign_final", |c| {
        if sig.is_null() {
            // SAFETY: OpenSSL's length out pointer.
            return unsafe { output_len(siglen, c.sig.sig_len()?) };
        }
        let s = c.sig.digest_sign_final()?;
        // SAFETY: `sig` holds `sigsize` writable bytes.
        unsafe { output(sig, siglen, sigsize, &s) }
    })
}

unsafe extern "C" fn digest_verify_final(ctx: *mut c_void, sig: *const u8, siglen: usize) -> c_int {
    with_ctx(ctx, c"digest_verify_final", |c| {
        // SAFETY: OpenSSL's buffer of `siglen` bytes.
        c.sig.digest_verify_final(unsafe { input(sig, siglen) })
    })
}

/// Applies OpenSSL's signature parameters to `sig`; unknown names are ignored (as every
/// provider does), known ones with a bad value fail.
///
/// As rsa_sig.c's `rsa_set_ctx_params` (OpenSSL 3.0 to 4.0), whatever their order in the
/// array: the padding first, then the digest, the salt length and the MGF1 digest, which
/// are checked against the new padding (so `{saltlen, pad-mode=pss}` works in one call);
/// and all or nothing, on a copy kept only if every value is good.
fn set_params(sig: &mut SigCtx, params: *const OsslParam) -> Outcome<()> {
    // SAFETY: OpenSSL passes null or an END-terminated array.
    let elements = unsafe { params::elements(params) };
    if elements.is_empty() {
        return Ok(());
    }
    let find = |name: &[u8]| elements.iter().find(|p| p.key() == name);
    let mut next = sig.clone();
    if let Some(p) = find(b"pad-mode") {
        next.set_pad(Pad::from_param(p)?)?;
    }
    if let Some(p) = find(b"digest") {
        next.set_md(SigMd::from_param(p)?)?;
    }
    if let Some(p) = find(b"saltlen") {
        next.set_salt(Salt::from_param(p)?)?;
    }
    if let Some(p) = find(b"mgf1-digest") {
        next.set_mgf1(digest_from_param(p, "mgf1-digest")?)?;
    }
    next.check_digest()?;
    *sig = next;
    Ok(())
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
    with_ctx(ctx, c"set_ctx_params", |c| set_params(&mut c.sig, params))
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
    with_ctx(ctx, c"get_ctx_params", |c| {
        // SAFETY: OpenSSL passes an END-terminated array.
        for mut p in unsafe { params::elements(params) } {
            let ok = match p.key() {
                b"pad-mode" => c.sig.pad.to_param(&mut p),
                b"digest" => p.set_utf8(c.sig.md.map_or(c"", SigMd::name)),
                b"mgf1-digest" => p.set_utf8(match c.sig.mgf1 {
                    Some(mgf1) => digest_name(mgf1),
                    None => c.sig.md.map_or(c"", SigMd::name),
                }),
                b"saltlen" => c.sig.salt.to_param(&mut p),
                b"algorithm-id" => p.set_octets(&c.sig.algorithm_id()?),
                _ => true,
            };
            if !ok {
                return Err(Failure::param("a gettable parameter has the wrong type or size"));
            }
        }
        Ok(())
    })
}

static SETTABLE: Table<OsslParam, 7> = Table([
    describe(names::PAD_MODE, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::PROPERTIES, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_PROPERTIES, ossl::PARAM_UTF8_STRING),
    describe(names::SALTLEN, ossl::PARAM_UTF8_STRING),
    ossl::PARAM_END,
]);

static GETTABLE: Table<OsslParam, 6> = Table([
    describe(names::PAD_MODE, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::SALTLEN, ossl::PARAM_UTF8_STRING),
    describe(names::ALGORITHM_ID, ossl::PARAM_OCTET_STRING),
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

/// The RSA signature's dispatch table.
pub static DISPATCH: Table<OsslDispatch, 20> = Table([
    entry(ossl::FUNC_SIGNATURE_NEWCTX, newctx as *const c_void),
    entry(ossl::FUNC_SIGNATURE_FREECTX, freectx as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DUPCTX, dupctx as *const c_void),
    entry(ossl::FUNC_SIGNATURE_SIGN_INIT, sign_init as *const c_void),
    entry(ossl::FUNC_SIGNATURE_SIGN, sign as *const c_void),
    entry(ossl::FUNC_SIGNATURE_VERIFY_INIT, verify_init as *const c_void),
    entry(ossl::FUNC_SIGNATURE_VERIFY, verify as *const c_void),
    entry(ossl::FUNC_SIGNATURE_VERIFY_RECOVER_INIT, verify_recover_init as *const c_void),
    entry(ossl::FUNC_SIGNATURE_VERIFY_RECOVER, verify_recover as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_SIGN_INIT, digest_sign_init as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, digest_update as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_SIGN_FINAL, digest_sign_final as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_VERIFY_INIT, digest_verify_init as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, digest_update as *const c_void),
    entry(ossl::FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, digest_verify_final as *const c_void),
    entry(ossl::FUNC_SIGNATURE_GET_CTX_PARAMS, get_ctx_params as *const c_void),
    entry(ossl::FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, gettable_ctx_params as *const c_void),
    entry(ossl::FUNC_SIGNATURE_SET_CTX_PARAMS, set_ctx_params as *const c_void),
    entry(ossl::FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, settable_ctx_params as *const c_void),
    ossl::DISPATCH_END,
]);
