//! The C side of the RSA key management (provider-keymgmt(7)): new/free, has, validate,
//! match, import/export of the standard RSA parameters and their type lists, the key's
//! parameters (bits, security bits, maximum output size, default digest, and the numbers
//! themselves), and key generation on the library's generator (FIPS 186-5 A.1.3). The
//! key object is [`KeyData`] (`key.rs`).

#![allow(unsafe_code)]

use crate::buffers::{into_keydata, key_ref, release_keydata};
use crate::errors::{Failure, Outcome, Reason, guard};
use crate::key::{KeyBytes, KeyData, KeyValues, security_bits};
use crate::ossl::{self, OsslDispatch, OsslParam, Table, describe, entry, names};
use crate::params::{self, Builder};
use crate::provider::{ProvCtx, raise};
use crate::pss_key::PssRestriction;
use crate::stats::{self, Op};
use core::ffi::{c_int, c_void};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};

fn wants(selection: c_int) -> (bool, bool) {
    (selection & ossl::SELECT_PRIVATE_KEY != 0, selection & ossl::SELECT_PUBLIC_KEY != 0)
}

unsafe extern "C" fn new(_provctx: *mut c_void) -> *mut c_void {
    guard(core::ptr::null_mut(), || into_keydata(KeyData::default()))
}

unsafe extern "C" fn new_pss(_provctx: *mut c_void) -> *mut c_void {
    guard(core::ptr::null_mut(), || into_keydata(KeyData::new_pss()))
}

/// Both key types sign and encrypt with the "RSA" algorithms (which pad RSA-PSS keys with
/// PSS only and refuse to encrypt with them).
unsafe extern "C" fn query_operation_name(_operation_id: c_int) -> *const core::ffi::c_char {
    c"RSA".as_ptr()
}

unsafe extern "C" fn free(keydata: *mut c_void) {
    // SAFETY: OpenSSL frees each keydata it got from `new` or `gen` once.
    guard((), || unsafe { release_keydata(keydata) })
}

unsafe extern "C" fn has(keydata: *const c_void, selection: c_int) -> c_int {
    guard(0, || {
        // SAFETY: our keydata or null.
        let Some(key) = (unsafe { key_ref(keydata.cast_mut()) }) else { return 0 };
        let (private, public) = wants(selection);
        c_int::from(key.has(private, public))
    })
}

unsafe extern "C" fn validate(
    keydata: *const c_void,
    selection: c_int,
    _checktype: c_int,
) -> c_int {
    // Keys are validated when made (import, generation): having the parts is enough.
    // SAFETY: forwarded to `has` with the same arguments.
    unsafe { has(keydata, selection) }
}

unsafe extern "C" fn matches(k1: *const c_void, k2: *const c_void, _selection: c_int) -> c_int {
    guard(0, || {
        // SAFETY: our keydata or null.
        let (a, b) = unsafe { (key_ref(k1.cast_mut()), key_ref(k2.cast_mut())) };
        match (a, b) {
            (Some(a), Some(b)) => c_int::from(a.same_public(&b)),
            _ => 0,
        }
    })
}

/// The key values among an import's parameters.
fn values_from(elements: &[params::Param<'_>]) -> Outcome<KeyValues> {
    let mut v = KeyValues::default();
    let bad =
        |name: &str| Failure::new(Reason::InvalidKey, format!("{name}: not an unsigned integer"));
    let get = |name: &core::ffi::CStr| -> Outcome<Option<KeyBytes>> {
        match elements.iter().find(|p| p.key() == name.to_bytes()) {
            None => Ok(None),
            Some(p) => p.get_biguint_be().map(Some).ok_or_else(|| bad(&name.to_string_lossy())),
        }
    };
    v.n = get(names::N)?;
    v.e = get(names::E)?;
    v.d = get(names::D)?;
    let list = |names: &[&core::ffi::CStr]| -> Outcome<Vec<KeyBytes>> {
        let mut out = Vec::new();
        for name in names {
            match get(name)? {
                Some(x) => out.push(x),
                None => break,
            }
        }
        Ok(out)
    };
    v.factors = list(&names::FACTORS)?;
    v.exponents = list(&names::EXPONENTS)?;
    v.coefficients = list(&names::COEFFICIENTS)?;
    Ok(v)
}

unsafe extern "C" fn import(
    keydata: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
) -> c_int {
    guard(0, || {
        // SAFETY: our keydata or null.
        let Some(key) = (unsafe { key_ref(keydata) }) else { return 0 };
        let (private, public) = wants(selection);
        // SAFETY: OpenSSL passes an END-terminated array.
        let elements = unsafe { params::elements(params) };
        // An RSA-PSS key's restrictions come as its "other parameters".
        let restriction = match selection & ossl::SELECT_OTHER_PARAMETERS {
            0 => Ok(None),
            _ => PssRestriction::from_params(&elements, None),
        };
        let ok = restriction.and_then(|restriction| {
            if !private && !public {
                // RSA has no domain parameters; the restrictions alone, on the key held.
                return key.set_restriction(restriction);
            }
            key.import_restricted(&values_from(&elements)?, private, restriction)
        });
        c_int::from(ok.is_ok())
    })
}

type ExportCb = unsafe extern "C" fn(*const OsslParam, *mut c_void) -> c_int;

unsafe extern "C" fn export(
    keydata: *mut c_void,
    selection: c_int,
    cb: Option<ExportCb>,
    cbarg: *mut c_void,
) -> c_int {
    guard(0, || {
        // SAFETY: our keydata or null.
        let (Some(key), Some(cb)) = (unsafe { key_ref(keydata) }, cb) else { return 0 };
        let (private, public) = wants(selection);
        let mut b = Builder::default();
        if private || public {
            for (name, value) in key.export(private).named() {
                b.push_biguint_be(name, value);
            }
        }
        if selection & ossl::SELECT_OTHER_PARAMETERS != 0
            && let Some(r) = key.restriction()
        {
            r.push_params(&mut b);
        }
        let array = b.finish();
        // SAFETY: OpenSSL's callback with its argument; `array` lives in `b` until after
        // the call returns.
        unsafe { cb(array, cbarg) }
    })
}

static KEY_TYPES: Table<OsslParam, 33> = {
    const U: core::ffi::c_uint = ossl::PARAM_UNSIGNED_INTEGER;
    let f = names::FACTORS;
    let x = names::EXPONENTS;
    let c = names::COEFFICIENTS;
    Table([
        describe(names::N, U),
        describe(names::E, U),
        describe(names::D, U),
        describe(f[0], U),
        describe(f[1], U),
        describe(f[2], U),
        describe(f[3], U),
        describe(f[4], U),
        describe(f[5], U),
        describe(f[6], U),
        describe(f[7], U),
        describe(f[8], U),
        describe(f[9], U),
        describe(x[0], U),
        describe(x[1], U),
        describe(x[2], U),
        describe(x[3], U),
        describe(x[4], U),
        describe(x[5], U),
        describe(x[6], U),
        describe(x[7], U),
        describe(x[8], U),
        describe(x[9], U),
        describe(c[0], U),
        describe(c[1], U),
        describe(c[2], U),
        describe(c[3], U),
        describe(c[4], U),
        describe(c[5], U),
        describe(c[6], U),
        describe(c[7], U),
        describe(c[8], U),
        ossl::PARAM_END,
    ])
};

unsafe extern "C" fn key_types(selection: c_int) -> *const OsslParam {
    let (private, public) = wants(selection);
    if private || public { KEY_TYPES.as_ptr() } else { KEY_TYPES.0[32..].as_ptr() }
}

/// The key's parameters: its size and strength, its default digest, and its values, the
/// private ones too where asked for by name, as OpenSSL's own RSA keymgmt answers them
/// (`EVP_PKEY_get_bn_param`). The private values are copied (into buffers wiped when
/// dropped) only when one is asked for: OpenSSL asks for the size ones at every import.
unsafe extern "C" fn get_params(keydata: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: our keydata or null.
        let Some(key) = (unsafe { key_ref(keydata) }) else { return 0 };
        let Some(public) = key.public() else { return 0 };
        let mut private = None;
        let restriction = key.restriction();
        // SAFETY: OpenSSL passes an END-terminated array.
        for mut p in unsafe { params::elements(params) } {
            // A restricted RSA-PSS key names its digest (its default and mandatory one),
            // MGF1 digest and least salt length.
            if let Some(ok) = restriction.and_then(|r| r.answer(&mut p)) {
                if !ok {
                    return 0;
                }
                continue;
            }
            let ok = match p.key() {
                b"bits" => p.set_i64(public.bits() as i64),
                b"security-bits" => p.set_i64(security_bits(public.bits())),
                b"max-size" => p.set_i64(public.size() as i64),
                b"default-digest" => p.set_utf8(c"SHA256"),
                b"n" => p.set_biguint_be(&public.n().to_be_bytes()),
                b"e" => p.set_biguint_be(&public.e().to_be_bytes()),
                name => {
                    let values = private.get_or_insert_with(|| key.export(true));
                    match values.named().iter().find(|(n, _)| n.to_bytes() == name) {
                        Some((_, v)) => p.set_biguint_be(v),
                        None => true,
                    }
                }
            };
            if !ok {
                return 0;
            }
        }
        1
    })
}

static GETTABLE: Table<OsslParam, 11> = Table([
    describe(names::BITS, ossl::PARAM_INTEGER),
    describe(names::SECURITY_BITS, ossl::PARAM_INTEGER),
    describe(names::MAX_SIZE, ossl::PARAM_INTEGER),
    describe(names::DEFAULT_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MANDATORY_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::SALTLEN, ossl::PARAM_INTEGER),
    describe(names::N, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::E, ossl::PARAM_UNSIGNED_INTEGER),
    ossl::PARAM_END,
]);

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    GETTABLE.as_ptr()
}

/// Key generation settings: bits, primes and e, as OpenSSL's RSA keymgmt takes them,
/// and an RSA-PSS key's restrictions.
#[derive(Debug)]
struct GenCtx {
    /// The provider context, for errors.
    prov: *const ProvCtx,
    opts: KeyGenOptions,
    /// Make an RSA-PSS key.
    pss: bool,
    /// Its restrictions, once a setting names one.
    restriction: Option<PssRestriction>,
}

fn gen_params(g: &mut GenCtx, params: *const OsslParam) -> Outcome<()> {
    // SAFETY: OpenSSL passes null or an END-terminated array.
    let elements = unsafe { params::elements(params) };
    if g.pss {
        g.restriction = PssRestriction::from_params(&elements, g.restriction)?;
    }
    for p in elements {
        let int = || p.get_i64().ok_or_else(|| Failure::param("not an integer"));
        match p.key() {
            b"bits" => g.opts.bits = usize::try_from(int()?).map_err(|_| Failure::param("bits"))?,
            b"primes" => {
                g.opts.primes = usize::try_from(int()?).map_err(|_| Failure::param("primes"))?
            }
            b"e" => {
                let be = p.get_biguint_be().ok_or_else(|| Failure::param("e: not an integer"))?;
                let start = be.iter().position(|&b| b != 0).unwrap_or(be.len());
                if be.len() - start > 8 {
                    return Err(Failure::param("e: more than 64 bits"));
                }
                g.opts.public_exponent =
                    be[start..].iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
            }
            _ => {}
        }
    }
    // OpenSSL takes 512-bit keys; so do we, when asked.
    g.opts.allow_small = g.opts.bits < 1024;
    Ok(())
}

/// gen_init of both key types: an RSA-PSS key's when `pss`.
fn gen_init_of(
    provctx: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
    pss: bool,
) -> *mut c_void {
    guard(core::ptr::null_mut(), || {
        if selection & (ossl::SELECT_PRIVATE_KEY | ossl::SELECT_PUBLIC_KEY) == 0 {
            return core::ptr::null_mut();
        }
        let prov = provctx.cast_const().cast::<ProvCtx>();
        let mut g = GenCtx { prov, opts: KeyGenOptions::new(2048), pss, restriction: None };
        if let Err(failure) = gen_params(&mut g, params) {
            raise(prov, c"gen_init", &failure);
            return core::ptr::null_mut();
        }
        Box::into_raw(Box::new(g)).cast::<c_void>()
    })
}

unsafe extern "C" fn gen_init(
    provctx: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
) -> *mut c_void {
    gen_init_of(provctx, selection, params, false)
}

unsafe extern "C" fn gen_set_params(genctx: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: a `Box<GenCtx>` from `gen_init`, not yet cleaned up.
        let Some(g) = (unsafe { genctx.cast::<GenCtx>().as_mut() }) else { return 0 };
        match gen_params(g, params) {
            Ok(()) => 1,
            Err(failure) => {
                raise(g.prov, c"gen_set_params", &failure);
                0
            }
        }
    })
}

static GEN_SETTABLE: Table<OsslParam, 4> = Table([
    describe(names::BITS, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::PRIMES, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::E, ossl::PARAM_UNSIGNED_INTEGER),
    ossl::PARAM_END,
]);

/// The RSA-PSS key generation's settings: RSA's and the restrictions.
static GEN_SETTABLE_PSS: Table<OsslParam, 8> = Table([
    describe(names::BITS, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::PRIMES, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::E, ossl::PARAM_UNSIGNED_INTEGER),
    describe(names::DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::MASKGENFUNC, ossl::PARAM_UTF8_STRING),
    describe(names::MGF1_DIGEST, ossl::PARAM_UTF8_STRING),
    describe(names::SALTLEN, ossl::PARAM_INTEGER),
    ossl::PARAM_END,
]);

unsafe extern "C" fn gen_settable_params_pss(
    _genctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    GEN_SETTABLE_PSS.as_ptr()
}

unsafe extern "C" fn gen_settable_params(
    _genctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    GEN_SETTABLE.as_ptr()
}

unsafe extern "C" fn generate(
    genctx: *mut c_void,
    _cb: *const c_void,
    _cbarg: *mut c_void,
) -> *mut c_void {
    guard(core::ptr::null_mut(), || {
        // SAFETY: a `Box<GenCtx>` from `gen_init`, not yet cleaned up.
        let Some(g) = (unsafe { genctx.cast::<GenCtx>().as_ref() }) else {
            return core::ptr::null_mut();
        };
        // Inside an async job, off the job's small stack: Miller-Rabin runs on the IFMA
        // kernels (`async_job::off_job_stack`).
        let opts = &g.opts;
        match crate::async_job::off_job_stack(|| RsaPrivateKey::generate_with(opts, &mut OsRng)) {
            Ok(key) => {
                stats::count(Op::Keygen);
                into_keydata(KeyData::generated(key, g.pss, g.restriction))
            }
            Err(e) => {
                raise(g.prov, c"gen", &Failure::from(e));
                core::ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn gen_init_pss(
    provctx: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
) -> *mut c_void {
    gen_init_of(provctx, selection, params, true)
}

unsafe extern "C" fn gen_cleanup(genctx: *mut c_void) {
    guard((), || {
        if !genctx.is_null() {
            // SAFETY: a `Box<GenCtx>` from `gen_init`, cleaned up once.
            drop(unsafe { Box::from_raw(genctx.cast::<GenCtx>()) });
        }
    })
}

/// A key management dispatch table: RSA's functions with the constructor, the
/// generator's init and its settings list that make RSA or RSA-PSS objects.
const fn table(
    new: *const c_void,
    gen_init: *const c_void,
    gen_settable: *const c_void,
) -> Table<OsslDispatch, 18> {
    Table([
        entry(ossl::FUNC_KEYMGMT_NEW, new),
        entry(ossl::FUNC_KEYMGMT_FREE, free as *const c_void),
        entry(ossl::FUNC_KEYMGMT_HAS, has as *const c_void),
        entry(ossl::FUNC_KEYMGMT_VALIDATE, validate as *const c_void),
        entry(ossl::FUNC_KEYMGMT_MATCH, matches as *const c_void),
        entry(ossl::FUNC_KEYMGMT_IMPORT, import as *const c_void),
        entry(ossl::FUNC_KEYMGMT_IMPORT_TYPES, key_types as *const c_void),
        entry(ossl::FUNC_KEYMGMT_EXPORT, export as *const c_void),
        entry(ossl::FUNC_KEYMGMT_EXPORT_TYPES, key_types as *const c_void),
        entry(ossl::FUNC_KEYMGMT_GET_PARAMS, get_params as *const c_void),
        entry(ossl::FUNC_KEYMGMT_GETTABLE_PARAMS, gettable_params as *const c_void),
        entry(ossl::FUNC_KEYMGMT_GEN_INIT, gen_init),
        entry(ossl::FUNC_KEYMGMT_GEN_SET_PARAMS, gen_set_params as *const c_void),
        entry(ossl::FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, gen_settable),
        entry(ossl::FUNC_KEYMGMT_GEN, generate as *const c_void),
        entry(ossl::FUNC_KEYMGMT_GEN_CLEANUP, gen_cleanup as *const c_void),
        entry(ossl::FUNC_KEYMGMT_QUERY_OPERATION_NAME, query_operation_name as *const c_void),
        ossl::DISPATCH_END,
    ])
}

/// The RSA key management's dispatch table.
pub static DISPATCH: Table<OsslDispatch, 18> =
    table(new as *const c_void, gen_init as *const c_void, gen_settable_params as *const c_void);

/// The RSA-PSS key management's dispatch table: RSA's, with RSA-PSS objects, which keep
/// the restrictions a key carries (`pss_key.rs`).
pub static PSS_DISPATCH: Table<OsslDispatch, 18> = table(
    new_pss as *const c_void,
    gen_init_pss as *const c_void,
    gen_settable_params_pss as *const c_void,
);
