//! The libcrypto functions the peers use, declared once (prototypes from OpenSSL 3.0's
//! headers, unchanged in 4.0) and filled from the static 4.0.3 or a `dlopen`ed libcrypto.

use std::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void};

macro_rules! opaque {
    ($($name:ident),*) => {$(
        /// An opaque libcrypto object, only ever handled through pointers.
        #[repr(C)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub(crate) struct $name {
            _private: [u8; 0],
        }
    )*};
}

opaque!(
    OSSL_LIB_CTX,
    OSSL_PROVIDER,
    EVP_MD,
    EVP_MD_CTX,
    EVP_CIPHER,
    EVP_CIPHER_CTX,
    EVP_MAC,
    EVP_MAC_CTX,
    EVP_PKEY,
    EVP_PKEY_CTX,
    PKCS8_PRIV_KEY_INFO,
    X509,
    BIO,
    CMS_ContentInfo,
    TS_RESP_CTX,
    TS_RESP,
    OCSP_REQUEST,
    OCSP_ONEREQ,
    OCSP_CERTID,
    OCSP_BASICRESP,
    OCSP_SINGLERESP,
    OCSP_RESPONSE,
    ASN1_TIME,
    ASN1_OBJECT,
    BIGNUM,
    BN_CTX,
    BN_MONT_CTX
);

/// `OSSL_PARAM` (openssl/core.h): one typed name/value pair of a parameter array.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct OSSL_PARAM {
    pub(crate) key: *const c_char,
    pub(crate) data_type: c_uint,
    pub(crate) data: *mut c_void,
    pub(crate) data_size: usize,
    pub(crate) return_size: usize,
}

impl OSSL_PARAM {
    /// A UTF-8 string parameter: `key`'s value in `size` bytes at `data` (read, or written
    /// by a getter), `return_size` unset.
    pub(crate) fn utf8(key: *const c_char, data: *mut c_void, size: usize) -> OSSL_PARAM {
        OSSL_PARAM {
            key,
            data_type: OSSL_PARAM_UTF8_STRING,
            data,
            data_size: size,
            return_size: OSSL_PARAM_UNMODIFIED,
        }
    }

    /// The terminator of a parameter array (`OSSL_PARAM_END`).
    pub(crate) fn end() -> OSSL_PARAM {
        OSSL_PARAM {
            key: core::ptr::null(),
            data_type: 0,
            data: core::ptr::null_mut(),
            data_size: 0,
            return_size: 0,
        }
    }
}

/// `OSSL_PARAM_UTF8_STRING` (openssl/core.h).
pub(crate) const OSSL_PARAM_UTF8_STRING: c_uint = 4;
/// `OSSL_PARAM_UNMODIFIED` (openssl/params.h): `return_size` before the callee sets it.
pub(crate) const OSSL_PARAM_UNMODIFIED: usize = usize::MAX;
/// `OPENSSL_VERSION_STRING` (openssl/crypto.h): "4.0.3", without the "OpenSSL " prefix.
pub(crate) const OPENSSL_VERSION_STRING: c_int = 6;

crate::ffi_table! {
    /// libcrypto entry points, one table for the static and the `dlopen`ed library.
    pub(crate) struct CryptoFns [linked] {
        fn OpenSSL_version(t: c_int) -> *const c_char;
        fn OSSL_PROVIDER_load(libctx: *mut OSSL_LIB_CTX, name: *const c_char) -> *mut OSSL_PROVIDER;
        fn OSSL_PROVIDER_set_default_search_path(libctx: *mut OSSL_LIB_CTX, path: *const c_char) -> c_int;
        fn OSSL_PROVIDER_available(libctx: *mut OSSL_LIB_CTX, name: *const c_char) -> c_int;
        fn OSSL_PROVIDER_get0_name(prov: *const OSSL_PROVIDER) -> *const c_char;
        fn OSSL_PROVIDER_get_params(prov: *const OSSL_PROVIDER, params: *mut OSSL_PARAM) -> c_int;
        fn ERR_get_error() -> c_ulong;
        fn ERR_error_string_n(e: c_ulong, buf: *mut c_char, len: usize);
        fn ERR_clear_error();

        fn EVP_MD_fetch(libctx: *mut OSSL_LIB_CTX, alg: *const c_char, props: *const c_char) -> *mut EVP_MD;
        fn EVP_MD_free(md: *mut EVP_MD);
        fn EVP_MD_get_size(md: *const EVP_MD) -> c_int;
        fn EVP_MD_CTX_new() -> *mut EVP_MD_CTX;
        fn EVP_MD_CTX_free(ctx: *mut EVP_MD_CTX);
        fn EVP_DigestInit_ex(ctx: *mut EVP_MD_CTX, md: *const EVP_MD, engine: *mut c_void) -> c_int;
        fn EVP_DigestUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, len: usize) -> c_int;
        fn EVP_DigestFinal_ex(ctx: *mut EVP_MD_CTX, out: *mut u8, len: *mut c_uint) -> c_int;

        fn EVP_CIPHER_fetch(libctx: *mut OSSL_LIB_CTX, alg: *const c_char, props: *const c_char) -> *mut EVP_CIPHER;
        fn EVP_CIPHER_free(cipher: *mut EVP_CIPHER);
        fn EVP_CIPHER_get_key_length(cipher: *const EVP_CIPHER) -> c_int;
        fn EVP_CIPHER_get_iv_length(cipher: *const EVP_CIPHER) -> c_int;
        fn EVP_CIPHER_get_block_size(cipher: *const EVP_CIPHER) -> c_int;
        fn EVP_CIPHER_CTX_new() -> *mut EVP_CIPHER_CTX;
        fn EVP_CIPHER_CTX_free(ctx: *mut EVP_CIPHER_CTX);
        fn EVP_CipherInit_ex2(
            ctx: *mut EVP_CIPHER_CTX, cipher: *const EVP_CIPHER, key: *const u8, iv: *const u8,
            enc: c_int, params: *const OSSL_PARAM
        ) -> c_int;
        fn EVP_CIPHER_CTX_set_padding(ctx: *mut EVP_CIPHER_CTX, pad: c_int) -> c_int;
        fn EVP_CipherUpdate(
            ctx: *mut EVP_CIPHER_CTX, out: *mut u8, outl: *mut c_int, inp: *const u8, inl: c_int
        ) -> c_int;
        fn EVP_CipherFinal_ex(ctx: *mut EVP_CIPHER_CTX, out: *mut u8, outl: *mut c_int) -> c_int;

        fn EVP_MAC_fetch(libctx: *mut OSSL_LIB_CTX, alg: *const c_char, props: *const c_char) -> *mut EVP_MAC;
        fn EVP_MAC_free(mac: *mut EVP_MAC);
        fn EVP_MAC_CTX_new(mac: *mut EVP_MAC) -> *mut EVP_MAC_CTX;
        fn EVP_MAC_CTX_free(ctx: *mut EVP_MAC_CTX);
        fn EVP_MAC_init(ctx: *mut EVP_MAC_CTX, key: *const u8, keylen: usize, params: *const OSSL_PARAM) -> c_int;
        fn EVP_MAC_update(ctx: *mut EVP_MAC_CTX, data: *const u8, len: usize) -> c_int;
        fn EVP_MAC_final(ctx: *mut EVP_MAC_CTX, out: *mut u8, outl: *mut usize, outsize: usize) -> c_int;

        fn d2i_AutoPrivateKey(a: *mut *mut EVP_PKEY, pp: *mut *const u8, len: c_long) -> *mut EVP_PKEY;
        fn d2i_PUBKEY(a: *mut *mut EVP_PKEY, pp: *mut *const u8, len: c_long) -> *mut EVP_PKEY;
        fn i2d_PUBKEY(a: *const EVP_PKEY, pp: *mut *mut u8) -> c_int;
        fn i2d_PrivateKey(a: *const EVP_PKEY, pp: *mut *mut u8) -> c_int;
        fn EVP_PKEY2PKCS8(pkey: *const EVP_PKEY) -> *mut PKCS8_PRIV_KEY_INFO;
        fn i2d_PKCS8_PRIV_KEY_INFO(a: *const PKCS8_PRIV_KEY_INFO, pp: *mut *mut u8) -> c_int;
        fn PKCS8_PRIV_KEY_INFO_free(a: *mut PKCS8_PRIV_KEY_INFO);
        fn EVP_PKEY_free(pkey: *mut EVP_PKEY);
        fn EVP_PKEY_get_bits(pkey: *const EVP_PKEY) -> c_int;
        fn EVP_PKEY_get_size(pkey: *const EVP_PKEY) -> c_int;
        fn EVP_PKEY_CTX_new_from_pkey(libctx: *mut OSSL_LIB_CTX, pkey: *mut EVP_PKEY, props: *const c_char) -> *mut EVP_PKEY_CTX;
        fn EVP_PKEY_CTX_new_from_name(libctx: *mut OSSL_LIB_CTX, name: *const c_char, props: *const c_char) -> *mut EVP_PKEY_CTX;
        fn EVP_PKEY_CTX_free(ctx: *mut EVP_PKEY_CTX);
        fn EVP_PKEY_keygen_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_CTX_set_rsa_keygen_bits(ctx: *mut EVP_PKEY_CTX, bits: c_int) -> c_int;
        fn EVP_PKEY_generate(ctx: *mut EVP_PKEY_CTX, pkey: *mut *mut EVP_PKEY) -> c_int;
        fn EVP_PKEY_sign_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_verify_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_encrypt_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_decrypt_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_verify_recover_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
        fn EVP_PKEY_verify_recover(ctx: *mut EVP_PKEY_CTX, out: *mut u8, outlen: *mut usize, sig: *const u8, siglen: usize) -> c_int;
        fn EVP_PKEY_sign(ctx: *mut EVP_PKEY_CTX, out: *mut u8, outlen: *mut usize, inp: *const u8, inlen: usize) -> c_int;
        fn EVP_PKEY_verify(ctx: *mut EVP_PKEY_CTX, sig: *const u8, siglen: usize, tbs: *const u8, tbslen: usize) -> c_int;
        fn EVP_PKEY_encrypt(ctx: *mut EVP_PKEY_CTX, out: *mut u8, outlen: *mut usize, inp: *const u8, inlen: usize) -> c_int;
        fn EVP_PKEY_decrypt(ctx: *mut EVP_PKEY_CTX, out: *mut u8, outlen: *mut usize, inp: *const u8, inlen: usize) -> c_int;
        fn EVP_PKEY_CTX_set_rsa_padding(ctx: *mut EVP_PKEY_CTX, pad: c_int) -> c_int;
        fn EVP_PKEY_CTX_set_signature_md(ctx: *mut EVP_PKEY_CTX, md: *const EVP_MD) -> c_int;
        fn EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx: *mut EVP_PKEY_CTX, len: c_int) -> c_int;
        fn EVP_PKEY_CTX_set_rsa_mgf1_md(ctx: *mut EVP_PKEY_CTX, md: *const EVP_MD) -> c_int;
        fn EVP_PKEY_CTX_set_rsa_oaep_md(ctx: *mut EVP_PKEY_CTX, md: *const EVP_MD) -> c_int;

        fn d2i_X509(a: *mut *mut X509, pp: *mut *const u8, len: c_long) -> *mut X509;
        fn X509_free(x: *mut X509);
        fn BIO_new_mem_buf(buf: *const c_void, len: c_int) -> *mut BIO;
        fn BIO_free(b: *mut BIO) -> c_int;
        fn CMS_sign(signcert: *mut X509, pkey: *mut EVP_PKEY, certs: *mut c_void, data: *mut BIO, flags: c_uint) -> *mut CMS_ContentInfo;
        fn i2d_CMS_ContentInfo(a: *const CMS_ContentInfo, pp: *mut *mut u8) -> c_int;
        fn CMS_ContentInfo_free(cms: *mut CMS_ContentInfo);
        fn TS_RESP_CTX_new() -> *mut TS_RESP_CTX;
        fn TS_RESP_CTX_free(ctx: *mut TS_RESP_CTX);
        fn TS_RESP_CTX_set_signer_cert(ctx: *mut TS_RESP_CTX, signer: *mut X509) -> c_int;
        fn TS_RESP_CTX_set_signer_key(ctx: *mut TS_RESP_CTX, key: *mut EVP_PKEY) -> c_int;
        fn TS_RESP_CTX_set_signer_digest(ctx: *mut TS_RESP_CTX, md: *const EVP_MD) -> c_int;
        fn TS_RESP_CTX_set_ess_cert_id_digest(ctx: *mut TS_RESP_CTX, md: *const EVP_MD) -> c_int;
        fn TS_RESP_CTX_set_def_policy(ctx: *mut TS_RESP_CTX, policy: *const ASN1_OBJECT) -> c_int;
        fn TS_RESP_CTX_add_md(ctx: *mut TS_RESP_CTX, md: *const EVP_MD) -> c_int;
        fn TS_RESP_create_response(ctx: *mut TS_RESP_CTX, req_bio: *mut BIO) -> *mut TS_RESP;
        fn i2d_TS_RESP(a: *const TS_RESP, pp: *mut *mut u8) -> c_int;
        fn TS_RESP_free(a: *mut TS_RESP);
        fn d2i_OCSP_REQUEST(a: *mut *mut OCSP_REQUEST, pp: *mut *const u8, len: c_long) -> *mut OCSP_REQUEST;
        fn OCSP_REQUEST_free(a: *mut OCSP_REQUEST);
        fn OCSP_request_onereq_count(req: *mut OCSP_REQUEST) -> c_int;
        fn OCSP_request_onereq_get0(req: *mut OCSP_REQUEST, i: c_int) -> *mut OCSP_ONEREQ;
        fn OCSP_onereq_get0_id(one: *mut OCSP_ONEREQ) -> *mut OCSP_CERTID;
        fn OCSP_BASICRESP_new() -> *mut OCSP_BASICRESP;
        fn OCSP_BASICRESP_free(a: *mut OCSP_BASICRESP);
        fn OCSP_basic_add1_status(
            rsp: *mut OCSP_BASICRESP, cid: *mut OCSP_CERTID, status: c_int, reason: c_int,
            revtime: *mut ASN1_TIME, thisupd: *mut ASN1_TIME, nextupd: *mut ASN1_TIME
        ) -> *mut OCSP_SINGLERESP;
        fn OCSP_copy_nonce(resp: *mut OCSP_BASICRESP, req: *mut OCSP_REQUEST) -> c_int;
        fn OCSP_basic_sign(
            brsp: *mut OCSP_BASICRESP, signer: *mut X509, key: *mut EVP_PKEY, dgst: *const EVP_MD,
            certs: *mut c_void, flags: c_ulong
        ) -> c_int;
        fn OCSP_response_create(status: c_int, bs: *mut OCSP_BASICRESP) -> *mut OCSP_RESPONSE;
        fn i2d_OCSP_RESPONSE(a: *const OCSP_RESPONSE, pp: *mut *mut u8) -> c_int;
        fn OCSP_RESPONSE_free(a: *mut OCSP_RESPONSE);
        fn X509_gmtime_adj(s: *mut ASN1_TIME, adj: c_long) -> *mut ASN1_TIME;
        fn ASN1_TIME_free(a: *mut ASN1_TIME);
        fn OBJ_txt2obj(s: *const c_char, no_name: c_int) -> *mut ASN1_OBJECT;
        fn ASN1_OBJECT_free(a: *mut ASN1_OBJECT);

        fn BN_free(a: *mut BIGNUM);
        fn BN_bin2bn(s: *const u8, len: c_int, ret: *mut BIGNUM) -> *mut BIGNUM;
        fn BN_bn2binpad(a: *const BIGNUM, to: *mut u8, tolen: c_int) -> c_int;
        fn BN_num_bits(a: *const BIGNUM) -> c_int;
        fn BN_is_odd(a: *const BIGNUM) -> c_int;
        fn BN_CTX_new() -> *mut BN_CTX;
        fn BN_CTX_free(ctx: *mut BN_CTX);
        fn BN_MONT_CTX_new() -> *mut BN_MONT_CTX;
        fn BN_MONT_CTX_free(mont: *mut BN_MONT_CTX);
        fn BN_MONT_CTX_set(mont: *mut BN_MONT_CTX, m: *const BIGNUM, ctx: *mut BN_CTX) -> c_int;
        fn BN_mod_exp_mont(
            r: *mut BIGNUM, a: *const BIGNUM, p: *const BIGNUM, m: *const BIGNUM, ctx: *mut BN_CTX,
            mont: *mut BN_MONT_CTX
        ) -> c_int;
        fn BN_mod_exp_mont_consttime(
            r: *mut BIGNUM, a: *const BIGNUM, p: *const BIGNUM, m: *const BIGNUM, ctx: *mut BN_CTX,
            mont: *mut BN_MONT_CTX
        ) -> c_int;
        fn BN_mul(r: *mut BIGNUM, a: *const BIGNUM, b: *const BIGNUM, ctx: *mut BN_CTX) -> c_int;
    }
}
