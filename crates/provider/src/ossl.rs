//! The public ABI of OpenSSL 3 providers that this provider uses, and nothing more: the
//! `OSSL_DISPATCH`, `OSSL_PARAM`, `OSSL_ALGORITHM` and `OSSL_ITEM` structures
//! (`<openssl/core.h>`), the function and operation numbers (`<openssl/core_dispatch.h>`)
//! and the parameter names (`<openssl/core_names.h>`), copied from OpenSSL 3.0's headers.
//! These are the stable provider interface (provider(7), provider-base(7)); no private
//! structure of OpenSSL is copied, so a new OpenSSL release cannot break the layout
//! (QAT_Engine's provider copied private structures and broke with 3.2 and 3.6).
//!
//! `OSSL_DISPATCH::function` is `void (*)(void)` in C; it is declared here as a data
//! pointer, which has the same size and representation on every platform OpenSSL loads
//! modules on (POSIX requires it of `dlsym`), so the dispatch tables can be statics.

use core::ffi::{c_char, c_int, c_uint, c_void};

/// `OSSL_DISPATCH`: one function of an implementation, by number.
#[repr(C)]
#[derive(Debug)]
pub struct OsslDispatch {
    /// The `OSSL_FUNC_*` number; 0 ends a table.
    pub function_id: c_int,
    /// The function, as an untyped pointer (see the module docs).
    pub function: *const c_void,
}

/// `OSSL_ITEM`: a number and a pointer (reason strings).
#[repr(C)]
#[derive(Debug)]
pub struct OsslItem {
    /// The number; 0 ends a table.
    pub id: c_uint,
    /// The pointer (a NUL-terminated string for reason strings).
    pub ptr: *const c_void,
}

/// `OSSL_ALGORITHM`: names, properties and dispatch table of one implementation.
#[repr(C)]
#[derive(Debug)]
pub struct OsslAlgorithm {
    /// Colon-separated names, "RSA:rsaEncryption:1.2.840.113549.1.1.1".
    pub algorithm_names: *const c_char,
    /// The property definition, "provider=cryptocard".
    pub property_definition: *const c_char,
    /// The implementation's dispatch table.
    pub implementation: *const OsslDispatch,
    /// A description, or null.
    pub algorithm_description: *const c_char,
}

/// `OSSL_PARAM`: one named, typed parameter (provider-base(7), OSSL_PARAM(3)).
#[repr(C)]
#[derive(Debug)]
pub struct OsslParam {
    /// The name; null ends an array.
    pub key: *const c_char,
    /// One of the `PARAM_*` types below.
    pub data_type: c_uint,
    /// The data (the caller's buffer for a get).
    pub data: *mut c_void,
    /// The size of `data`.
    pub data_size: usize,
    /// The size written (or needed) by a get.
    pub return_size: usize,
}

/// A table of dispatch entries, parameters, algorithms or items in a `static`: the raw
/// pointers inside point to other statics only.
#[derive(Debug)]
pub struct Table<T, const N: usize>(pub [T; N]);

// SAFETY: a `Table` holds pointers to immutable statics (functions, C strings and other
// tables) and is itself never written, so sharing it between threads is sound.
#[allow(unsafe_code)]
unsafe impl<T, const N: usize> Sync for Table<T, N> {}

impl<T, const N: usize> Table<T, N> {
    /// The first element, as OpenSSL takes the table.
    pub const fn as_ptr(&'static self) -> *const T {
        self.0.as_ptr()
    }
}

/// A dispatch entry for function number `id`.
pub const fn entry(function_id: c_int, function: *const c_void) -> OsslDispatch {
    OsslDispatch { function_id, function }
}

/// The entry that ends a dispatch table.
pub const DISPATCH_END: OsslDispatch = entry(0, core::ptr::null());

/// A parameter description for gettable/settable lists: a name and a type, no data.
pub const fn describe(key: &'static core::ffi::CStr, data_type: c_uint) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data: core::ptr::null_mut(),
        data_size: 0,
        return_size: 0,
    }
}

/// The entry that ends a parameter array.
pub const PARAM_END: OsslParam = OsslParam {
    key: core::ptr::null(),
    data_type: 0,
    data: core::ptr::null_mut(),
    data_size: 0,
    return_size: 0,
};

// Parameter types, <openssl/core.h>.
/// `OSSL_PARAM_INTEGER`: a native-endian signed integer.
pub const PARAM_INTEGER: c_uint = 1;
/// `OSSL_PARAM_UNSIGNED_INTEGER`: a native-endian unsigned integer of any size.
pub const PARAM_UNSIGNED_INTEGER: c_uint = 2;
/// `OSSL_PARAM_UTF8_STRING`.
pub const PARAM_UTF8_STRING: c_uint = 4;
/// `OSSL_PARAM_OCTET_STRING`.
pub const PARAM_OCTET_STRING: c_uint = 5;
/// `OSSL_PARAM_UTF8_PTR`: a pointer to a string the callee owns.
pub const PARAM_UTF8_PTR: c_uint = 6;
/// `OSSL_PARAM_OCTET_PTR`.
pub const PARAM_OCTET_PTR: c_uint = 7;

// Core functions handed to OSSL_provider_init, <openssl/core_dispatch.h>.
/// `OSSL_FUNC_CORE_GET_PARAMS`: `int (const OSSL_CORE_HANDLE *, OSSL_PARAM params[])`.
pub const FUNC_CORE_GET_PARAMS: c_int = 2;
/// `OSSL_FUNC_CORE_NEW_ERROR`: `void (const OSSL_CORE_HANDLE *)`.
pub const FUNC_CORE_NEW_ERROR: c_int = 5;
/// `OSSL_FUNC_CORE_SET_ERROR_DEBUG`: `void (handle, const char *file, int line, const char *func)`.
pub const FUNC_CORE_SET_ERROR_DEBUG: c_int = 6;
/// `OSSL_FUNC_CORE_VSET_ERROR`: `void (handle, uint32_t reason, const char *fmt, va_list)`.
pub const FUNC_CORE_VSET_ERROR: c_int = 7;

// Provider functions.
/// `OSSL_FUNC_PROVIDER_TEARDOWN`.
pub const FUNC_PROVIDER_TEARDOWN: c_int = 1024;
/// `OSSL_FUNC_PROVIDER_GETTABLE_PARAMS`.
pub const FUNC_PROVIDER_GETTABLE_PARAMS: c_int = 1025;
/// `OSSL_FUNC_PROVIDER_GET_PARAMS`.
pub const FUNC_PROVIDER_GET_PARAMS: c_int = 1026;
/// `OSSL_FUNC_PROVIDER_QUERY_OPERATION`.
pub const FUNC_PROVIDER_QUERY_OPERATION: c_int = 1027;
/// `OSSL_FUNC_PROVIDER_GET_REASON_STRINGS`.
pub const FUNC_PROVIDER_GET_REASON_STRINGS: c_int = 1029;

// Operations.
/// `OSSL_OP_KEYMGMT`.
pub const OP_KEYMGMT: c_int = 10;
/// `OSSL_OP_SIGNATURE`.
pub const OP_SIGNATURE: c_int = 12;
/// `OSSL_OP_ASYM_CIPHER`.
pub const OP_ASYM_CIPHER: c_int = 13;

// Key management.
/// `OSSL_FUNC_KEYMGMT_NEW`.
/// `OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME`: which algorithm of an operation serves keys
/// of this type.
pub const FUNC_KEYMGMT_QUERY_OPERATION_NAME: c_int = 20;
pub const FUNC_KEYMGMT_NEW: c_int = 1;
/// `OSSL_FUNC_KEYMGMT_GEN_INIT`.
pub const FUNC_KEYMGMT_GEN_INIT: c_int = 2;
/// `OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS`.
pub const FUNC_KEYMGMT_GEN_SET_PARAMS: c_int = 4;
/// `OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS`.
pub const FUNC_KEYMGMT_GEN_SETTABLE_PARAMS: c_int = 5;
/// `OSSL_FUNC_KEYMGMT_GEN`.
pub const FUNC_KEYMGMT_GEN: c_int = 6;
/// `OSSL_FUNC_KEYMGMT_GEN_CLEANUP`.
pub const FUNC_KEYMGMT_GEN_CLEANUP: c_int = 7;
/// `OSSL_FUNC_KEYMGMT_FREE`.
pub const FUNC_KEYMGMT_FREE: c_int = 10;
/// `OSSL_FUNC_KEYMGMT_GET_PARAMS`.
pub const FUNC_KEYMGMT_GET_PARAMS: c_int = 11;
/// `OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS`.
pub const FUNC_KEYMGMT_GETTABLE_PARAMS: c_int = 12;
/// `OSSL_FUNC_KEYMGMT_HAS`.
pub const FUNC_KEYMGMT_HAS: c_int = 21;
/// `OSSL_FUNC_KEYMGMT_VALIDATE`.
pub const FUNC_KEYMGMT_VALIDATE: c_int = 22;
/// `OSSL_FUNC_KEYMGMT_MATCH`.
pub const FUNC_KEYMGMT_MATCH: c_int = 23;
/// `OSSL_FUNC_KEYMGMT_IMPORT`.
pub const FUNC_KEYMGMT_IMPORT: c_int = 40;
/// `OSSL_FUNC_KEYMGMT_IMPORT_TYPES`.
pub const FUNC_KEYMGMT_IMPORT_TYPES: c_int = 41;
/// `OSSL_FUNC_KEYMGMT_EXPORT`.
pub const FUNC_KEYMGMT_EXPORT: c_int = 42;
/// `OSSL_FUNC_KEYMGMT_EXPORT_TYPES`.
pub const FUNC_KEYMGMT_EXPORT_TYPES: c_int = 43;

/// `OSSL_KEYMGMT_SELECT_PRIVATE_KEY`.
pub const SELECT_PRIVATE_KEY: c_int = 0x01;
/// `OSSL_KEYMGMT_SELECT_PUBLIC_KEY`.
pub const SELECT_PUBLIC_KEY: c_int = 0x02;
/// `OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS` (an RSA-PSS key's restrictions).
pub const SELECT_OTHER_PARAMETERS: c_int = 0x80;

// Signature.
/// `OSSL_FUNC_SIGNATURE_NEWCTX`.
pub const FUNC_SIGNATURE_NEWCTX: c_int = 1;
/// `OSSL_FUNC_SIGNATURE_SIGN_INIT`.
pub const FUNC_SIGNATURE_SIGN_INIT: c_int = 2;
/// `OSSL_FUNC_SIGNATURE_SIGN`.
pub const FUNC_SIGNATURE_SIGN: c_int = 3;
/// `OSSL_FUNC_SIGNATURE_VERIFY_INIT`.
pub const FUNC_SIGNATURE_VERIFY_INIT: c_int = 4;
/// `OSSL_FUNC_SIGNATURE_VERIFY`.
pub const FUNC_SIGNATURE_VERIFY: c_int = 5;
/// `OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT`.
pub const FUNC_SIGNATURE_VERIFY_RECOVER_INIT: c_int = 6;
/// `OSSL_FUNC_SIGNATURE_VERIFY_RECOVER`.
pub const FUNC_SIGNATURE_VERIFY_RECOVER: c_int = 7;
/// `OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT`.
pub const FUNC_SIGNATURE_DIGEST_SIGN_INIT: c_int = 8;
/// `OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE`.
pub const FUNC_SIGNATURE_DIGEST_SIGN_UPDATE: c_int = 9;
/// `OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL`.
pub const FUNC_SIGNATURE_DIGEST_SIGN_FINAL: c_int = 10;
/// `OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT`.
pub const FUNC_SIGNATURE_DIGEST_VERIFY_INIT: c_int = 12;
/// `OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE`.
pub const FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE: c_int = 13;
/// `OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL`.
pub const FUNC_SIGNATURE_DIGEST_VERIFY_FINAL: c_int = 14;
/// `OSSL_FUNC_SIGNATURE_FREECTX`.
pub const FUNC_SIGNATURE_FREECTX: c_int = 16;
/// `OSSL_FUNC_SIGNATURE_DUPCTX`.
pub const FUNC_SIGNATURE_DUPCTX: c_int = 17;
/// `OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS`.
pub const FUNC_SIGNATURE_GET_CTX_PARAMS: c_int = 18;
/// `OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS`.
pub const FUNC_SIGNATURE_GETTABLE_CTX_PARAMS: c_int = 19;
/// `OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS`.
pub const FUNC_SIGNATURE_SET_CTX_PARAMS: c_int = 20;
/// `OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS`.
pub const FUNC_SIGNATURE_SETTABLE_CTX_PARAMS: c_int = 21;

// Asymmetric cipher.
/// `OSSL_FUNC_ASYM_CIPHER_NEWCTX`.
pub const FUNC_ASYM_CIPHER_NEWCTX: c_int = 1;
/// `OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT`.
pub const FUNC_ASYM_CIPHER_ENCRYPT_INIT: c_int = 2;
/// `OSSL_FUNC_ASYM_CIPHER_ENCRYPT`.
pub const FUNC_ASYM_CIPHER_ENCRYPT: c_int = 3;
/// `OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT`.
pub const FUNC_ASYM_CIPHER_DECRYPT_INIT: c_int = 4;
/// `OSSL_FUNC_ASYM_CIPHER_DECRYPT`.
pub const FUNC_ASYM_CIPHER_DECRYPT: c_int = 5;
/// `OSSL_FUNC_ASYM_CIPHER_FREECTX`.
pub const FUNC_ASYM_CIPHER_FREECTX: c_int = 6;
/// `OSSL_FUNC_ASYM_CIPHER_DUPCTX`.
pub const FUNC_ASYM_CIPHER_DUPCTX: c_int = 7;
/// `OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS`.
pub const FUNC_ASYM_CIPHER_GET_CTX_PARAMS: c_int = 8;
/// `OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS`.
pub const FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS: c_int = 9;
/// `OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS`.
pub const FUNC_ASYM_CIPHER_SET_CTX_PARAMS: c_int = 10;
/// `OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS`.
pub const FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS: c_int = 11;

/// Parameter names, <openssl/core_names.h>.
pub mod names {
    use core::ffi::CStr;

    /// `OSSL_PROV_PARAM_NAME`.
    pub const PROV_NAME: &CStr = c"name";
    /// `OSSL_PROV_PARAM_VERSION`.
    pub const PROV_VERSION: &CStr = c"version";
    /// `OSSL_PROV_PARAM_BUILDINFO`.
    pub const PROV_BUILDINFO: &CStr = c"buildinfo";
    /// `OSSL_PROV_PARAM_STATUS`.
    pub const PROV_STATUS: &CStr = c"status";
    /// `OSSL_PROV_PARAM_CORE_VERSION`: the core's `OPENSSL_VERSION_STR` (a UTF8 pointer).
    pub const CORE_VERSION: &CStr = c"openssl-version";
    /// Ours: the operation counters, "signs=.. verifies=.. ...".
    pub const PROV_OPS: &CStr = c"cryptocard-ops";

    /// `OSSL_PKEY_PARAM_BITS`.
    pub const BITS: &CStr = c"bits";
    /// `OSSL_PKEY_PARAM_SECURITY_BITS`.
    pub const SECURITY_BITS: &CStr = c"security-bits";
    /// `OSSL_PKEY_PARAM_MAX_SIZE`.
    pub const MAX_SIZE: &CStr = c"max-size";
    /// `OSSL_PKEY_PARAM_DEFAULT_DIGEST`.
    pub const DEFAULT_DIGEST: &CStr = c"default-digest";
    /// `OSSL_PKEY_PARAM_MANDATORY_DIGEST`.
    pub const MANDATORY_DIGEST: &CStr = c"mandatory-digest";
    /// `OSSL_PKEY_PARAM_RSA_MASKGENFUNC` (an RSA-PSS key's mask generation function).
    pub const MASKGENFUNC: &CStr = c"mgf";
    /// `OSSL_PKEY_PARAM_RSA_PRIMES`.
    pub const PRIMES: &CStr = c"primes";
    /// `OSSL_PKEY_PARAM_RSA_N`.
    pub const N: &CStr = c"n";
    /// `OSSL_PKEY_PARAM_RSA_E`.
    pub const E: &CStr = c"e";
    /// `OSSL_PKEY_PARAM_RSA_D`.
    pub const D: &CStr = c"d";
    /// `OSSL_PKEY_PARAM_RSA_FACTOR1` ... `FACTOR10`.
    pub const FACTORS: [&CStr; 10] = [
        c"rsa-factor1",
        c"rsa-factor2",
        c"rsa-factor3",
        c"rsa-factor4",
        c"rsa-factor5",
        c"rsa-factor6",
        c"rsa-factor7",
        c"rsa-factor8",
        c"rsa-factor9",
        c"rsa-factor10",
    ];
    /// `OSSL_PKEY_PARAM_RSA_EXPONENT1` ... `EXPONENT10`.
    pub const EXPONENTS: [&CStr; 10] = [
        c"rsa-exponent1",
        c"rsa-exponent2",
        c"rsa-exponent3",
        c"rsa-exponent4",
        c"rsa-exponent5",
        c"rsa-exponent6",
        c"rsa-exponent7",
        c"rsa-exponent8",
        c"rsa-exponent9",
        c"rsa-exponent10",
    ];
    /// `OSSL_PKEY_PARAM_RSA_COEFFICIENT1` ... `COEFFICIENT9`.
    pub const COEFFICIENTS: [&CStr; 9] = [
        c"rsa-coefficient1",
        c"rsa-coefficient2",
        c"rsa-coefficient3",
        c"rsa-coefficient4",
        c"rsa-coefficient5",
        c"rsa-coefficient6",
        c"rsa-coefficient7",
        c"rsa-coefficient8",
        c"rsa-coefficient9",
    ];

    /// `OSSL_SIGNATURE_PARAM_PAD_MODE`, `OSSL_ASYM_CIPHER_PARAM_PAD_MODE`.
    pub const PAD_MODE: &CStr = c"pad-mode";
    /// `OSSL_SIGNATURE_PARAM_DIGEST`, `OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST`.
    pub const DIGEST: &CStr = c"digest";
    /// `OSSL_SIGNATURE_PARAM_PROPERTIES` (accepted, not used: we hash ourselves).
    pub const PROPERTIES: &CStr = c"properties";
    /// `OSSL_SIGNATURE_PARAM_PSS_SALTLEN`.
    pub const SALTLEN: &CStr = c"saltlen";
    /// `OSSL_SIGNATURE_PARAM_MGF1_DIGEST`, `OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST`.
    pub const MGF1_DIGEST: &CStr = c"mgf1-digest";
    /// `OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES`.
    pub const MGF1_PROPERTIES: &CStr = c"mgf1-properties";
    /// `OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS`.
    pub const DIGEST_PROPS: &CStr = c"digest-props";
    /// `OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS`.
    pub const MGF1_DIGEST_PROPS: &CStr = c"mgf1-digest-props";
    /// `OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL`.
    pub const OAEP_LABEL: &CStr = c"oaep-label";
    /// `OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION` (OpenSSL 3.2).
    /// `OSSL_SIGNATURE_PARAM_ALGORITHM_ID`: the DER AlgorithmIdentifier of a signature.
    pub const ALGORITHM_ID: &CStr = c"algorithm-id";
    pub const IMPLICIT_REJECTION: &CStr = c"implicit-rejection";
    /// `OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION`.
    pub const TLS_CLIENT_VERSION: &CStr = c"tls-client-version";
    /// `OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION`.
    pub const TLS_NEGOTIATED_VERSION: &CStr = c"tls-negotiated-version";
}

// RSA padding numbers, <openssl/rsa.h>, as the integer form of "pad-mode".
/// `RSA_PKCS1_PADDING`.
pub const RSA_PKCS1_PADDING: i64 = 1;
/// `RSA_NO_PADDING`.
pub const RSA_NO_PADDING: i64 = 3;
/// `RSA_PKCS1_OAEP_PADDING`.
pub const RSA_PKCS1_OAEP_PADDING: i64 = 4;
/// `RSA_X931_PADDING`.
pub const RSA_X931_PADDING: i64 = 5;
/// `RSA_PKCS1_PSS_PADDING`.
pub const RSA_PKCS1_PSS_PADDING: i64 = 6;
/// `RSA_PKCS1_WITH_TLS_PADDING`.
pub const RSA_PKCS1_WITH_TLS_PADDING: i64 = 7;

// PSS salt length specials, <openssl/rsa.h>.
/// `RSA_PSS_SALTLEN_DIGEST`.
pub const RSA_PSS_SALTLEN_DIGEST: i64 = -1;
/// `RSA_PSS_SALTLEN_AUTO` (also `RSA_PSS_SALTLEN_MAX_SIGN` when signing).
pub const RSA_PSS_SALTLEN_AUTO: i64 = -2;
/// `RSA_PSS_SALTLEN_MAX`.
pub const RSA_PSS_SALTLEN_MAX: i64 = -3;
/// `RSA_PSS_SALTLEN_AUTO_DIGEST_MAX` (OpenSSL 3.1).
pub const RSA_PSS_SALTLEN_AUTO_DIGEST_MAX: i64 = -4;
