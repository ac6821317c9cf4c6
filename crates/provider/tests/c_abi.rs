//! The provider's C entry points called the way libcrypto calls them, but from here:
//! `OSSL_provider_init` with a core of our own (which answers `core_get_params`'s
//! "openssl-version" as a given OpenSSL would), then the dispatch tables of the key
//! management, signature and asymmetric cipher, with `OSSL_PARAM` arrays built by hand.
//! This reaches what the `openssl` command cannot ask for: a parameter array in a chosen
//! order, an output buffer of a chosen size, any core version.

use core::ffi::{CStr, c_char, c_int, c_void};
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Pss, RsaPrivateKey, SaltLength};
use cryptocard_provider::key::KeyData;
use cryptocard_provider::ossl::{self, OsslAlgorithm, OsslDispatch, OsslParam, PARAM_END};
use cryptocard_provider::provider::OSSL_provider_init;
use std::sync::OnceLock;

/// The core's `core_get_params`: "openssl-version" is the string the handle points to
/// (as OpenSSL answers its `OPENSSL_VERSION_STR`).
unsafe extern "C" fn core_get_params(handle: *const c_void, params: *mut OsslParam) -> c_int {
    let mut p = params;
    // SAFETY: the provider passes an END-terminated array; the handle is a C string.
    unsafe {
        while !(*p).key.is_null() {
            let wanted = CStr::from_ptr((*p).key) == c"openssl-version";
            if wanted && (*p).data_type == ossl::PARAM_UTF8_PTR && !(*p).data.is_null() {
                (*p).data.cast::<*const c_char>().write_unaligned(handle.cast());
                (*p).return_size = CStr::from_ptr(handle.cast()).to_bytes().len();
            }
            p = p.add(1);
        }
    }
    1
}

/// A dispatch table of the provider.
#[derive(Clone, Copy)]
struct Table(*const OsslDispatch);

impl Table {
    /// Function `id` of the table, as the C type `F` (a function pointer).
    fn get<F: Copy>(self, id: c_int) -> F {
        assert_eq!(size_of::<F>(), size_of::<*const c_void>());
        let mut d = self.0;
        // SAFETY: the provider's tables end with function id 0, and each pointer has the
        // type provider-base(7) gives its number, which the caller names as `F`.
        unsafe {
            while (*d).function_id != 0 {
                if (*d).function_id == id {
                    return core::mem::transmute_copy::<*const c_void, F>(&(*d).function);
                }
                d = d.add(1);
            }
        }
        panic!("no function {id}");
    }
}

type NewFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type ImportFn = unsafe extern "C" fn(*mut c_void, c_int, *const OsslParam) -> c_int;
type ParamsFn = unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int;
type SetParamsFn = unsafe extern "C" fn(*mut c_void, *const OsslParam) -> c_int;
type NewCtxFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;
type InitFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *const OsslParam) -> c_int;
type RunFn =
    unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize, *const u8, usize) -> c_int;
type QueryFn = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const OsslAlgorithm;

/// The provider, initialised by a core that says it is OpenSSL `version` (or by no core).
struct Provider {
    provctx: *mut c_void,
    dispatch: Table,
}

impl Provider {
    fn load(version: Option<&'static CStr>) -> Provider {
        let core = [
            ossl::entry(ossl::FUNC_CORE_GET_PARAMS, core_get_params as *const c_void),
            ossl::DISPATCH_END,
        ];
        let (handle, core_in) = match version {
            Some(v) => (v.as_ptr().cast::<c_void>(), core.as_ptr()),
            None => (core::ptr::null(), core::ptr::null()),
        };
        let mut out: *const OsslDispatch = core::ptr::null();
        let mut provctx: *mut c_void = core::ptr::null_mut();
        // SAFETY: a core handle and dispatch table as OpenSSL passes them, and out pointers.
        let ok = unsafe { OSSL_provider_init(handle, core_in, &mut out, &mut provctx) };
        assert_eq!(ok, 1);
        Provider { provctx, dispatch: Table(out) }
    }

    /// The RSA implementation of operation `op`.
    fn rsa(&self, op: c_int) -> Table {
        let query: QueryFn = self.dispatch.get(ossl::FUNC_PROVIDER_QUERY_OPERATION);
        let mut no_cache = 0;
        // SAFETY: our provider context and an out pointer.
        let algs = unsafe { query(self.provctx, op, &mut no_cache) };
        // SAFETY: the first algorithm of a non-empty table (RSA's).
        Table(unsafe { (*algs).implementation })
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let teardown: FreeFn = self.dispatch.get(ossl::FUNC_PROVIDER_TEARDOWN);
        // SAFETY: the context `OSSL_provider_init` made, freed once.
        unsafe { teardown(self.provctx) };
    }
}

fn private_key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::generate(2048, &mut OsRng).unwrap())
}

/// A UTF-8 string parameter holding `value`.
fn utf8(key: &'static CStr, value: &'static CStr) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type: ossl::PARAM_UTF8_STRING,
        data: value.as_ptr().cast_mut().cast(),
        data_size: value.to_bytes().len(),
        return_size: usize::MAX,
    }
}

/// An integer parameter (`int` or `unsigned int`, as `data_type` says) at `value`.
fn int(key: &'static CStr, data_type: u32, value: &mut i32) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data: (value as *mut i32).cast(),
        data_size: 4,
        return_size: usize::MAX,
    }
}

/// A parameter of `data_type` to be filled into `buf`.
fn out(key: &'static CStr, data_type: u32, buf: &mut [u8]) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data: buf.as_mut_ptr().cast(),
        data_size: buf.len(),
        return_size: usize::MAX,
    }
}

/// The string a get parameter returned.
fn text(p: &OsslParam) -> String {
    assert_ne!(p.return_size, usize::MAX, "not answered");
    // SAFETY: `data` is the test's buffer of `data_size >= return_size` bytes.
    let bytes = unsafe { core::slice::from_raw_parts(p.data.cast::<u8>(), p.return_size) };
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A key object of the provider holding `key` (keymgmt new and import).
struct Key {
    keydata: *mut c_void,
    free: FreeFn,
}

impl Key {
    fn import(prov: &Provider, key: &RsaPrivateKey) -> Key {
        let keymgmt = prov.rsa(ossl::OP_KEYMGMT);
        let new: NewFn = keymgmt.get(ossl::FUNC_KEYMGMT_NEW);
        let import: ImportFn = keymgmt.get(ossl::FUNC_KEYMGMT_IMPORT);
        let values = KeyData::from_private(key.clone()).export(true);
        // OSSL_PARAM big numbers are native-endian.
        let mut le: Vec<(&'static CStr, Vec<u8>)> = values
            .named()
            .into_iter()
            .map(|(name, be)| (name, be.iter().rev().copied().collect()))
            .collect();
        let mut params: Vec<OsslParam> =
            le.iter_mut().map(|(name, v)| out(name, ossl::PARAM_UNSIGNED_INTEGER, v)).collect();
        params.push(PARAM_END);
        // SAFETY: our provider context.
        let keydata = unsafe { new(prov.provctx) };
        let selection = ossl::SELECT_PRIVATE_KEY | ossl::SELECT_PUBLIC_KEY;
        // SAFETY: a fresh key object and an END-terminated array over `le`.
        assert_eq!(unsafe { import(keydata, selection, params.as_ptr()) }, 1);
        Key { keydata, free: keymgmt.get(ossl::FUNC_KEYMGMT_FREE) }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        // SAFETY: the key object `new` made, freed once.
        unsafe { (self.free)(self.keydata) };
    }
}

/// An operation context of a signature or asymmetric cipher implementation.
struct Ctx {
    table: Table,
    ctx: *mut c_void,
    freectx: FreeFn,
}

impl Ctx {
    fn new(prov: &Provider, op: c_int) -> Ctx {
        let table = prov.rsa(op);
        // Both operations number newctx 1 and take (provctx, propq).
        let newctx: NewCtxFn = table.get(1);
        // SAFETY: our provider context, no property query.
        let ctx = unsafe { newctx(prov.provctx, core::ptr::null()) };
        assert!(!ctx.is_null());
        let free_id = match op {
            ossl::OP_SIGNATURE => ossl::FUNC_SIGNATURE_FREECTX,
            _ => ossl::FUNC_ASYM_CIPHER_FREECTX,
        };
        Ctx { table, ctx, freectx: table.get(free_id) }
    }

    fn init(&self, id: c_int, key: &Key, params: &[OsslParam]) -> c_int {
        let init: InitFn = self.table.get(id);
        // SAFETY: our context and key object; `params` ends with PARAM_END.
        unsafe { init(self.ctx, key.keydata, params.as_ptr()) }
    }

    fn set(&self, id: c_int, params: &[OsslParam]) -> c_int {
        let set: SetParamsFn = self.table.get(id);
        // SAFETY: our context; `params` ends with PARAM_END.
        unsafe { set(self.ctx, params.as_ptr()) }
    }

    fn get(&self, id: c_int, params: &mut [OsslParam]) -> c_int {
        let get: ParamsFn = self.table.get(id);
        // SAFETY: our context; `params` ends with PARAM_END.
        unsafe { get(self.ctx, params.as_mut_ptr()) }
    }

    /// sign / decrypt (function `id`) of `input` into `size` bytes (`None`: the size
    /// query with a null buffer): the return value and the output.
    fn run(&self, id: c_int, input: &[u8], size: Option<usize>) -> (c_int, Vec<u8>) {
        let run: RunFn = self.table.get(id);
        let mut buf = vec![0u8; size.unwrap_or(0)];
        let ptr = if size.is_some() { buf.as_mut_ptr() } else { core::ptr::null_mut() };
        let mut len = usize::MAX;
        // SAFETY: our context, a buffer of `buf.len()` bytes (or null), the input.
        let rc = unsafe { run(self.ctx, ptr, &mut len, buf.len(), input.as_ptr(), input.len()) };
        if rc == 1 && size.is_none() {
            return (rc, len.to_ne_bytes().to_vec());
        }
        buf.truncate(if rc == 1 { len } else { 0 });
        (rc, buf)
    }

    fn size_query(&self, id: c_int, input: &[u8]) -> usize {
        let (rc, len) = self.run(id, input, None);
        assert_eq!(rc, 1);
        usize::from_ne_bytes(len.try_into().unwrap())
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: the context `newctx` made, freed once.
        unsafe { (self.freectx)(self.ctx) };
    }
}

/// OpenSSL checks the output buffer before decrypting (rsa_enc.c `rsa_decrypt`: at least
/// k bytes), so a short plaintext and a long one, a real message and the synthetic one of
/// implicit rejection, all fail alike in a buffer below k: no padding oracle.
#[test]
fn decrypt_wants_k_bytes_of_room_before_it_decrypts() {
    let prov = Provider::load(None);
    let key = Key::import(&prov, private_key());
    let k = private_key().size();
    let public = private_key().public_key();
    let real = public.encrypt_pkcs1v15(b"a short secret of 32 bytes, say.", &mut OsRng).unwrap();
    let mut garbage = vec![0x5au8; k];
    garbage[0] = 0;
    let dec = Ctx::new(&prov, ossl::OP_ASYM_CIPHER);
    assert_eq!(dec.init(ossl::FUNC_ASYM_CIPHER_DECRYPT_INIT, &key, &[PARAM_END]), 1);
    assert_eq!(dec.size_query(ossl::FUNC_ASYM_CIPHER_DECRYPT, &real), k);
    for ct in [&real, &garbage] {
        for size in [0, 32, 100, k - 11, k - 1] {
            let (rc, _) = dec.run(ossl::FUNC_ASYM_CIPHER_DECRYPT, ct, Some(size));
            assert_eq!(rc, 0, "decrypted into {size} bytes");
        }
        let (rc, _) = dec.run(ossl::FUNC_ASYM_CIPHER_DECRYPT, ct, Some(k));
        assert_eq!(rc, 1, "implicit rejection answers every ciphertext in k bytes");
    }
    let (_, pt) = dec.run(ossl::FUNC_ASYM_CIPHER_DECRYPT, &real, Some(k));
    assert_eq!(pt, b"a short secret of 32 bytes, say.");
}

/// "pkcs1-tls" (`RSA_PKCS1_WITH_TLS_PADDING`, libssl's RSA key exchange): the size query
/// answers 48 and a 48-byte buffer is enough (a smaller one is refused first).
#[test]
fn pkcs1_tls_decrypts_into_48_bytes() {
    let prov = Provider::load(None);
    let key = Key::import(&prov, private_key());
    let mut premaster = [0x42u8; 48];
    premaster[..2].copy_from_slice(&[3, 3]);
    let ct = private_key().public_key().encrypt_pkcs1v15(&premaster, &mut OsRng).unwrap();
    let dec = Ctx::new(&prov, ossl::OP_ASYM_CIPHER);
    let (mut pad, mut version) = (7, 0x0303);
    let params = [
        int(c"pad-mode", ossl::PARAM_INTEGER, &mut pad),
        int(c"tls-client-version", ossl::PARAM_UNSIGNED_INTEGER, &mut version),
        PARAM_END,
    ];
    assert_eq!(dec.init(ossl::FUNC_ASYM_CIPHER_DECRYPT_INIT, &key, &params), 1);
    assert_eq!(dec.size_query(ossl::FUNC_ASYM_CIPHER_DECRYPT, &ct), 48);
    assert_eq!(dec.run(ossl::FUNC_ASYM_CIPHER_DECRYPT, &ct, Some(47)).0, 0);
    assert_eq!(dec.run(ossl::FUNC_ASYM_CIPHER_DECRYPT, &ct, Some(48)), (1, premaster.to_vec()));
}

/// The signature parameters are applied in OpenSSL's order, whatever the array's:
/// `{saltlen, pad-mode=pss}` and `{mgf1-digest, pad-mode=pss}` work in one call as in
/// rsa_sig.c `rsa_set_ctx_params`; and a bad value changes nothing.
#[test]
fn set_ctx_params_takes_the_padding_first() {
    let prov = Provider::load(None);
    let key = Key::import(&prov, private_key());
    let sig = Ctx::new(&prov, ossl::OP_SIGNATURE);
    assert_eq!(sig.init(ossl::FUNC_SIGNATURE_SIGN_INIT, &key, &[PARAM_END]), 1);
    let set = ossl::FUNC_SIGNATURE_SET_CTX_PARAMS;
    let get_ctx = |name: &'static CStr| {
        let mut buf = [0u8; 32];
        let mut params = [out(name, ossl::PARAM_UTF8_STRING, &mut buf), PARAM_END];
        assert_eq!(sig.get(ossl::FUNC_SIGNATURE_GET_CTX_PARAMS, &mut params), 1);
        text(&params[0])
    };
    // A bad salt length after a good padding: neither is applied.
    let bad = [utf8(c"pad-mode", c"pss"), utf8(c"saltlen", c"-7"), PARAM_END];
    assert_eq!(sig.set(set, &bad), 0);
    assert_eq!(get_ctx(c"pad-mode"), "pkcs1");
    let params = [
        utf8(c"saltlen", c"20"),
        utf8(c"mgf1-digest", c"SHA384"),
        utf8(c"digest", c"SHA256"),
        utf8(c"pad-mode", c"pss"),
        PARAM_END,
    ];
    assert_eq!(sig.set(set, &params), 1);
    assert_eq!(get_ctx(c"pad-mode"), "pss");
    assert_eq!(get_ctx(c"saltlen"), "20");
    assert_eq!(get_ctx(c"mgf1-digest"), "SHA2-384");
    let digest = [9u8; 32];
    let (rc, signature) = sig.run(ossl::FUNC_SIGNATURE_SIGN, &digest, Some(256));
    assert_eq!(rc, 1);
    let pss = Pss::new(HashAlg::Sha256).with_mgf1(HashAlg::Sha384).with_salt(SaltLength::Exact(20));
    private_key().public_key().verify_pss_prehashed(&pss, &digest, &signature).unwrap();
}

/// The salt length of a PSS signature made with the provider's defaults, under a core
/// that says it is OpenSSL `version`; and the `saltlen` the context reports.
fn default_salt(version: Option<&'static CStr>) -> (usize, String) {
    let prov = Provider::load(version);
    let key = Key::import(&prov, private_key());
    let sig = Ctx::new(&prov, ossl::OP_SIGNATURE);
    let params = [utf8(c"pad-mode", c"pss"), utf8(c"digest", c"SHA256"), PARAM_END];
    assert_eq!(sig.init(ossl::FUNC_SIGNATURE_SIGN_INIT, &key, &params), 1);
    let mut buf = [0u8; 32];
    let mut get = [out(c"saltlen", ossl::PARAM_UTF8_STRING, &mut buf), PARAM_END];
    assert_eq!(sig.get(ossl::FUNC_SIGNATURE_GET_CTX_PARAMS, &mut get), 1);
    let digest = [3u8; 32];
    let (rc, signature) = sig.run(ossl::FUNC_SIGNATURE_SIGN, &digest, Some(256));
    assert_eq!(rc, 1);
    let public = private_key().public_key();
    let salt = (0..256)
        .find(|&n| {
            let pss = Pss::new(HashAlg::Sha256).with_salt(SaltLength::Exact(n));
            public.verify_pss_prehashed(&pss, &digest, &signature).is_ok()
        })
        .unwrap();
    (salt, text(&get[0]))
}

/// The default PSS salt when signing is the one of the loading libcrypto's own default
/// provider: the maximum in OpenSSL 3.0 (`RSA_PSS_SALTLEN_AUTO`), the digest's length
/// since 3.1 (`RSA_PSS_SALTLEN_AUTO_DIGEST_MAX`).
#[test]
fn the_default_pss_salt_follows_the_cores_openssl_version() {
    let max = private_key().size() - 32 - 2;
    assert_eq!(default_salt(Some(c"3.0.19")), (max, "auto".into()));
    assert_eq!(default_salt(Some(c"3.0.2")), (max, "auto".into()));
    assert_eq!(default_salt(Some(c"3.1.0")), (32, "auto-digestmax".into()));
    assert_eq!(default_salt(Some(c"4.0.3")), (32, "auto-digestmax".into()));
    assert_eq!(default_salt(None), (32, "auto-digestmax".into()));
}

/// The key's parameters answer its size and its values, the private ones where asked
/// for by name, as OpenSSL's RSA keymgmt does.
#[test]
fn key_parameters_answer_size_and_values() {
    let prov = Provider::load(None);
    let key = Key::import(&prov, private_key());
    let get: ParamsFn = prov.rsa(ossl::OP_KEYMGMT).get(ossl::FUNC_KEYMGMT_GET_PARAMS);
    let (mut bits, mut n, mut d, mut p) = ([0u8; 4], [0u8; 256], [0u8; 256], [0u8; 128]);
    let mut e = [0xffu8; 8];
    let mut params = [
        out(c"bits", ossl::PARAM_INTEGER, &mut bits),
        out(c"n", ossl::PARAM_UNSIGNED_INTEGER, &mut n),
        out(c"d", ossl::PARAM_UNSIGNED_INTEGER, &mut d),
        out(c"rsa-factor1", ossl::PARAM_UNSIGNED_INTEGER, &mut p),
        out(c"e", ossl::PARAM_UNSIGNED_INTEGER, &mut e),
        PARAM_END,
    ];
    // SAFETY: our key object; an END-terminated array over the buffers above.
    assert_eq!(unsafe { get(key.keydata, params.as_mut_ptr()) }, 1);
    assert_eq!(i32::from_ne_bytes(bits), 2048);
    assert_eq!(params[1].return_size, 256);
    let public_n: Vec<u8> = private_key().public_key().n().to_be_bytes();
    assert_eq!(n.iter().rev().copied().collect::<Vec<u8>>(), public_n);
    let le = |v: &[u8]| v.iter().rev().copied().collect::<Vec<u8>>();
    let key_d = private_key().d().to_be_bytes();
    assert_eq!(params[2].return_size, key_d.len());
    assert_eq!(le(&d[..key_d.len()]), key_d);
    let key_p = private_key().primes()[0].to_be_bytes();
    assert_eq!(params[3].return_size, key_p.len());
    assert_eq!(le(&p[..key_p.len()]), key_p);
    // A number shorter than its buffer (d is, now and then, by a byte): its own length,
    // the buffer zero-padded, as OSSL_PARAM_set_BN answers.
    assert_eq!(params[4].return_size, 3);
    assert_eq!(u64::from_ne_bytes(e), 65537);
}
