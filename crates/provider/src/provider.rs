//! The provider itself: `OSSL_provider_init`, the provider context, the provider's own
//! functions (parameters, operation query, reason strings, teardown) and error
//! reporting through the core functions OpenSSL hands in (provider-base(7)).
//!
//! Errors are raised as OpenSSL's own providers raise them: `core_new_error`, then
//! `core_set_error_debug` (file, line, function), then `core_vset_error` with the reason
//! code and the detail. `core_vset_error` takes a C `va_list`, which stable Rust cannot
//! make; the detail is therefore passed as the format string itself, with every `%`
//! removed, so the format has no conversion and the `va_list` is never read. On x86-64
//! (System V) a `va_list` argument is a pointer to a `__va_list_tag`, and a zeroed one is
//! passed; on other targets the provider reports failures by return code only.
//!
//! The core's version (`core_get_params`, "openssl-version") is read once, at init: where
//! OpenSSL's default provider changed a default between releases, the provider takes the
//! one of the libcrypto it is loaded into (today one: the PSS salt length, `sig_ctx`).
//! So is the provider's one configuration parameter, `legacy-digests` in its section of
//! `openssl.cnf` ([`crate::digest_policy`]), which the core hands over the same way.

#![allow(unsafe_code)]

use crate::digest_policy::{DigestPolicy, LEGACY_DIGESTS_KEY};
use crate::errors::{Failure, Reason, guard};
use crate::ossl::{self, OsslAlgorithm, OsslDispatch, OsslItem, OsslParam, Table, names};
use crate::padding::Salt;
use crate::params;
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ffi::CString;

type NewErrorFn = unsafe extern "C" fn(*const c_void);
type GetParamsFn = unsafe extern "C" fn(*const c_void, *mut OsslParam) -> c_int;
type SetErrorDebugFn = unsafe extern "C" fn(*const c_void, *const c_char, c_int, *const c_char);
#[cfg(target_arch = "x86_64")]
type VsetErrorFn = unsafe extern "C" fn(*const c_void, u32, *const c_char, *mut VaListTag);

/// The System V x86-64 `__va_list_tag`; only ever passed zeroed (see the module docs).
#[cfg(target_arch = "x86_64")]
#[repr(C)]
#[derive(Debug)]
struct VaListTag {
    gp_offset: u32,
    fp_offset: u32,
    overflow_arg_area: *mut c_void,
    reg_save_area: *mut c_void,
}

/// The provider context (`provctx`): the core handle and the core's error functions.
#[derive(Debug)]
pub struct ProvCtx {
    handle: *const c_void,
    new_error: Option<NewErrorFn>,
    set_error_debug: Option<SetErrorDebugFn>,
    #[cfg(target_arch = "x86_64")]
    vset_error: Option<VsetErrorFn>,
    /// The PSS salt length signatures default to in the core's OpenSSL version.
    pss_salt: Salt,
    /// The digests operations take (`legacy-digests`).
    digests: DigestPolicy,
}

impl ProvCtx {
    /// Puts `failure` on OpenSSL's error queue (see the module docs), `func` naming the
    /// provider function that failed.
    pub fn raise(&self, func: &CStr, failure: &Failure) {
        let (Some(new_error), Some(set_debug)) = (self.new_error, self.set_error_debug) else {
            return;
        };
        // SAFETY: both are the core's functions of these numbers, called with the handle
        // the core gave us and NUL-terminated strings that outlive the calls.
        unsafe {
            new_error(self.handle);
            set_debug(self.handle, c"cryptocard-provider".as_ptr(), 0, func.as_ptr());
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(vset) = self.vset_error {
            let detail: String =
                failure.detail.chars().filter(|&c| c != '%' && c != '\0').collect();
            let detail = CString::new(detail).unwrap_or_default();
            let mut args = VaListTag {
                gp_offset: 48,
                fp_offset: 304,
                overflow_arg_area: core::ptr::null_mut(),
                reg_save_area: core::ptr::null_mut(),
            };
            // SAFETY: the core's vset_error; the format has no conversion, so `args` is
            // never read (and says every register argument is used up if it were).
            unsafe { vset(self.handle, failure.reason as u32, detail.as_ptr(), &mut args) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (failure, CString::default());
    }
}

/// The default PSS salt length of signatures under the provider context `prov`: that of
/// the core's OpenSSL (`sig_ctx`), or OpenSSL 3.1's for a null context.
pub(crate) fn default_pss_salt(prov: *const ProvCtx) -> Salt {
    // SAFETY: as in `raise`.
    unsafe { prov.as_ref() }.map_or(Salt::AutoDigestMax, |p| p.pss_salt)
}

/// The digest policy of signatures and encryption under the provider context `prov`;
/// the default (no legacy digests) for a null context.
pub(crate) fn digest_policy(prov: *const ProvCtx) -> DigestPolicy {
    // SAFETY: as in `raise`.
    unsafe { prov.as_ref() }.map_or_else(DigestPolicy::default, |p| p.digests)
}

/// The core's string parameter `key` (its version, or a parameter of the provider's
/// configuration section), if it has one.
///
/// # Safety
/// `get_params` is the core's `core_get_params`, `handle` the core handle.
unsafe fn core_string(
    get_params: GetParamsFn,
    handle: *const c_void,
    key: &CStr,
) -> Option<String> {
    let mut value: *const c_char = core::ptr::null();
    let mut params = [
        OsslParam {
            key: key.as_ptr(),
            data_type: ossl::PARAM_UTF8_PTR,
            data: (&raw mut value).cast::<c_void>(),
            data_size: 0,
            return_size: usize::MAX,
        },
        ossl::PARAM_END,
    ];
    // SAFETY: the caller's contract; `params` is an END-terminated array whose one
    // element points to a `const char *` to fill in (OSSL_PARAM_set_utf8_ptr).
    if unsafe { get_params(handle, params.as_mut_ptr()) } != 1 || value.is_null() {
        return None;
    }
    // SAFETY: the core set a pointer to a NUL-terminated string of its own (its version,
    // or its copy of the configuration's value), valid at least for this call; it is
    // copied at once.
    Some(unsafe { CStr::from_ptr(value) }.to_string_lossy().into_owned())
}

/// The core's OpenSSL version as (major, minor), from its "openssl-version"
/// (`OPENSSL_VERSION_STR`, "3.0.19").
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.split('.').map(|n| n.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// The PSS salt length OpenSSL `version`'s default provider signs with by default:
/// the maximum in 3.0, at most the digest's length since 3.1 (and when unknown).
fn pss_salt_of(version: Option<(u32, u32)>) -> Salt {
    match version {
        Some((major, minor)) if (major, minor) < (3, 1) => Salt::Auto,
        _ => Salt::AutoDigestMax,
    }
}

/// Raises `failure` through the provider context `prov` (nothing if it is null).
pub(crate) fn raise(prov: *const ProvCtx, func: &CStr, failure: &Failure) {
    // SAFETY: a non-null `prov` is the context made by `OSSL_provider_init`, alive until
    // teardown, after which OpenSSL makes no more calls into the provider.
    if let Some(p) = unsafe { prov.as_ref() } {
        p.raise(func, failure);
    }
}

/// The provider's entry point, called by OpenSSL when it loads the module.
///
/// # Safety
/// Called by OpenSSL with its core handle, its core dispatch table, and out pointers for
/// our dispatch table and context (provider-base(7)).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const c_void,
    core_in: *const OsslDispatch,
    out: *mut *const OsslDispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    guard(0, || {
        if out.is_null() || provctx.is_null() {
            return 0;
        }
        let mut ctx = ProvCtx {
            handle,
            new_error: None,
            set_error_debug: None,
            #[cfg(target_arch = "x86_64")]
            vset_error: None,
            pss_salt: Salt::AutoDigestMax,
            digests: DigestPolicy::default(),
        };
        let mut get_params: Option<GetParamsFn> = None;
        let mut f = core_in;
        // SAFETY: `core_in` is null or a dispatch table ended by function id 0; the
        // pointers of these numbers have the types core_dispatch.h gives them.
        unsafe {
            while !f.is_null() && (*f).function_id != 0 {
                let func = (*f).function;
                match (*f).function_id {
                    ossl::FUNC_CORE_GET_PARAMS => {
                        get_params = Some(core::mem::transmute::<*const c_void, GetParamsFn>(func));
                    }
                    ossl::FUNC_CORE_NEW_ERROR => {
                        ctx.new_error =
                            Some(core::mem::transmute::<*const c_void, NewErrorFn>(func));
                    }
                    ossl::FUNC_CORE_SET_ERROR_DEBUG => {
                        ctx.set_error_debug =
                            Some(core::mem::transmute::<*const c_void, SetErrorDebugFn>(func));
                    }
                    #[cfg(target_arch = "x86_64")]
                    ossl::FUNC_CORE_VSET_ERROR => {
                        ctx.vset_error =
                            Some(core::mem::transmute::<*const c_void, VsetErrorFn>(func));
                    }
                    _ => {}
                }
                f = f.add(1);
            }
        }
        // SAFETY: the core's `core_get_params`, with the handle the core gave us.
        let core = |key| get_params.and_then(|g| unsafe { core_string(g, handle, key) });
        ctx.pss_salt = pss_salt_of(core(names::CORE_VERSION).as_deref().and_then(parse_version));
        ctx.digests = DigestPolicy::from_config(core(LEGACY_DIGESTS_KEY).as_deref());
        // SAFETY: both out pointers are OpenSSL's, checked non-null above.
        unsafe {
            *out = PROVIDER_DISPATCH.as_ptr();
            *provctx = Box::into_raw(Box::new(ctx)).cast::<c_void>();
        }
        1
    })
}

/// `OSSL_FUNC_PROVIDER_TEARDOWN`: frees the context; prints the counters if asked.
unsafe extern "C" fn teardown(provctx: *mut c_void) {
    guard((), || {
        crate::stats::report_if_asked();
        if !provctx.is_null() {
            // SAFETY: the context made by `OSSL_provider_init`, freed once, here.
            drop(unsafe { Box::from_raw(provctx.cast::<ProvCtx>()) });
        }
    })
}

static PROVIDER_GETTABLE: Table<OsslParam, 6> = Table([
    ossl::describe(names::PROV_NAME, ossl::PARAM_UTF8_PTR),
    ossl::describe(names::PROV_VERSION, ossl::PARAM_UTF8_PTR),
    ossl::describe(names::PROV_BUILDINFO, ossl::PARAM_UTF8_PTR),
    ossl::describe(names::PROV_STATUS, ossl::PARAM_INTEGER),
    ossl::describe(names::PROV_OPS, ossl::PARAM_UTF8_STRING),
    ossl::PARAM_END,
]);

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    PROVIDER_GETTABLE.as_ptr()
}

const NAME: &CStr = c"cryptocard RSA provider";
const VERSION: &CStr = c"0.1.0";
const BUILDINFO: &CStr = c"cryptocard 0.1.0 (RSA: keymgmt, signature, asym_cipher)";

unsafe extern "C" fn get_params(_provctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes an END-terminated parameter array.
        for mut p in unsafe { params::elements(params) } {
            let ok = match p.key() {
                b"name" => p.set_utf8(NAME),
                b"version" => p.set_utf8(VERSION),
                b"buildinfo" => p.set_utf8(BUILDINFO),
                b"status" => p.set_i64(1),
                b"cryptocard-ops" => p.set_utf8_copy(crate::stats::summary().as_bytes()),
                _ => true,
            };
            if !ok {
                return 0;
            }
        }
        1
    })
}

/// The property every algorithm here is defined with.
const PROPERTIES: &CStr = c"provider=cryptocard";
const RSA_NAMES: &CStr = c"RSA:rsaEncryption:1.2.840.113549.1.1.1";
const RSA_PSS_NAMES: &CStr = c"RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10";

const fn algorithm(
    implementation: *const OsslDispatch,
    description: &'static CStr,
) -> OsslAlgorithm {
    named(RSA_NAMES, implementation, description)
}

const fn named(
    names: &'static CStr,
    implementation: *const OsslDispatch,
    description: &'static CStr,
) -> OsslAlgorithm {
    OsslAlgorithm {
        algorithm_names: names.as_ptr(),
        property_definition: PROPERTIES.as_ptr(),
        implementation,
        algorithm_description: description.as_ptr(),
    }
}

const ALGORITHM_END: OsslAlgorithm = OsslAlgorithm {
    algorithm_names: core::ptr::null(),
    property_definition: core::ptr::null(),
    implementation: core::ptr::null(),
    algorithm_description: core::ptr::null(),
};

static KEYMGMT_ALGS: Table<OsslAlgorithm, 3> = Table([
    algorithm(crate::keymgmt::DISPATCH.as_ptr(), c"cryptocard RSA keys"),
    named(RSA_PSS_NAMES, crate::keymgmt::PSS_DISPATCH.as_ptr(), c"cryptocard RSA-PSS keys"),
    ALGORITHM_END,
]);
static SIGNATURE_ALGS: Table<OsslAlgorithm, 2> = Table([
    algorithm(crate::signature::DISPATCH.as_ptr(), c"cryptocard RSA signatures"),
    ALGORITHM_END,
]);
static ASYM_CIPHER_ALGS: Table<OsslAlgorithm, 2> = Table([
    algorithm(crate::asym_cipher::DISPATCH.as_ptr(), c"cryptocard RSA encryption"),
    ALGORITHM_END,
]);

unsafe extern "C" fn query_operation(
    _provctx: *mut c_void,
    operation_id: c_int,
    no_cache: *mut c_int,
) -> *const OsslAlgorithm {
    guard(core::ptr::null(), || {
        if !no_cache.is_null() {
            // SAFETY: OpenSSL's out parameter.
            unsafe { *no_cache = 0 };
        }
        match operation_id {
            ossl::OP_KEYMGMT => KEYMGMT_ALGS.as_ptr(),
            ossl::OP_SIGNATURE => SIGNATURE_ALGS.as_ptr(),
            ossl::OP_ASYM_CIPHER => ASYM_CIPHER_ALGS.as_ptr(),
            _ => core::ptr::null(),
        }
    })
}

const fn item(reason: Reason, text: &'static CStr) -> OsslItem {
    OsslItem { id: reason as u32, ptr: text.as_ptr().cast::<c_void>() }
}

static REASON_STRINGS: Table<OsslItem, 9> = {
    let all = Reason::ALL;
    Table([
        item(all[0].0, all[0].1),
        item(all[1].0, all[1].1),
        item(all[2].0, all[2].1),
        item(all[3].0, all[3].1),
        item(all[4].0, all[4].1),
        item(all[5].0, all[5].1),
        item(all[6].0, all[6].1),
        item(all[7].0, all[7].1),
        OsslItem { id: 0, ptr: core::ptr::null() },
    ])
};

unsafe extern "C" fn get_reason_strings(_provctx: *mut c_void) -> *const OsslItem {
    REASON_STRINGS.as_ptr()
}

static PROVIDER_DISPATCH: Table<OsslDispatch, 6> = Table([
    ossl::entry(ossl::FUNC_PROVIDER_TEARDOWN, teardown as *const c_void),
    ossl::entry(ossl::FUNC_PROVIDER_GETTABLE_PARAMS, gettable_params as *const c_void),
    ossl::entry(ossl::FUNC_PROVIDER_GET_PARAMS, get_params as *const c_void),
    ossl::entry(ossl::FUNC_PROVIDER_QUERY_OPERATION, query_operation as *const c_void),
    ossl::entry(ossl::FUNC_PROVIDER_GET_REASON_STRINGS, get_reason_strings as *const c_void),
    ossl::DISPATCH_END,
]);
