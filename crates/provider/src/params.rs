//! Reading and writing `OSSL_PARAM` arrays (OSSL_PARAM(3)) without libcrypto: the
//! provider may not link it, so the few conversions OpenSSL's `OSSL_PARAM_get_*` /
//! `OSSL_PARAM_set_*` do are redone here: native-endian integers of 4 or 8 bytes,
//! unsigned big numbers of any size (RSA values: native-endian, that is little-endian on
//! the platforms we build for), UTF-8 strings by value or by pointer, octet strings.
//!
//! A [`Param`] is a checked view of one element. Every accessor returns `None` on a type
//! or size the conversion cannot take, so a malformed parameter is an error, never a
//! crash.
//!
//! Big numbers are key values, private ones among them (d, the primes, the CRT values):
//! every copy made here, reversed or padded, is a [`Zeroizing`] buffer, wiped when it is
//! dropped.

#![allow(unsafe_code)]

use crate::ossl::{
    OsslParam, PARAM_INTEGER, PARAM_OCTET_PTR, PARAM_OCTET_STRING, PARAM_UNSIGNED_INTEGER,
    PARAM_UTF8_PTR, PARAM_UTF8_STRING,
};
use core::ffi::{CStr, c_char, c_uint, c_void};
use zeroize::Zeroizing;

/// One element of a caller's `OSSL_PARAM` array.
#[derive(Debug)]
pub struct Param<'a>(&'a mut OsslParam);

/// The elements of the array at `params` (none for a null pointer).
///
/// # Safety
/// `params` is null or points to an `OSSL_PARAM` array ended by an element with a null
/// key, valid and not otherwise accessed for `'a`, whose keys are C strings.
pub unsafe fn elements<'a>(params: *const OsslParam) -> Vec<Param<'a>> {
    let mut out = Vec::new();
    if params.is_null() {
        return out;
    }
    let mut p = params.cast_mut();
    // SAFETY: the caller guarantees an END-terminated array; we stop at the first null
    // key, so every `p` read here is an element of it.
    unsafe {
        while !(*p).key.is_null() {
            out.push(Param(&mut *p));
            p = p.add(1);
        }
    }
    out
}

/// The element of `params` named `name`, if any.
///
/// # Safety
/// As [`elements`].
pub unsafe fn find<'a>(params: *const OsslParam, name: &CStr) -> Option<Param<'a>> {
    // SAFETY: forwarded contract.
    unsafe { elements(params) }.into_iter().find(|p| p.key() == name.to_bytes())
}

impl Param<'_> {
    /// The name's bytes.
    pub fn key(&self) -> &[u8] {
        // SAFETY: `elements` only yields elements with a non-null key, a C string by
        // OpenSSL's contract.
        unsafe { CStr::from_ptr(self.0.key) }.to_bytes()
    }

    /// Whether the parameter is a string (by value or pointer).
    pub fn is_utf8(&self) -> bool {
        matches!(self.0.data_type, PARAM_UTF8_STRING | PARAM_UTF8_PTR)
    }

    /// The data as bytes, for by-value types.
    fn bytes(&self) -> Option<&[u8]> {
        if self.0.data.is_null() {
            return None;
        }
        // SAFETY: a by-value parameter's `data` points to `data_size` readable bytes.
        Some(unsafe { core::slice::from_raw_parts(self.0.data.cast::<u8>(), self.0.data_size) })
    }

    /// A UTF-8 string parameter (by value, with or without its NUL, or by pointer).
    pub fn get_utf8(&self) -> Option<&str> {
        let bytes = match self.0.data_type {
            PARAM_UTF8_STRING => self.bytes()?,
            PARAM_UTF8_PTR => {
                if self.0.data.is_null() {
                    return None;
                }
                // SAFETY: a UTF8_PTR's non-null data holds a `const char *` (its
                // `data_size` is the string's); it is read unaligned.
                let s = unsafe { self.0.data.cast::<*const c_char>().read_unaligned() };
                if s.is_null() {
                    return None;
                }
                // SAFETY: the pointed-to string is NUL-terminated by OpenSSL's contract.
                unsafe { CStr::from_ptr(s) }.to_bytes()
            }
            _ => return None,
        };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        core::str::from_utf8(&bytes[..end]).ok()
    }

    /// An octet string parameter (by value or by pointer).
    pub fn get_octets(&self) -> Option<&[u8]> {
        match self.0.data_type {
            PARAM_OCTET_STRING => {
                if self.0.data_size == 0 {
                    return Some(&[]);
                }
                self.bytes()
            }
            PARAM_OCTET_PTR => {
                if self.0.data.is_null() {
                    return None;
                }
                // SAFETY: an OCTET_PTR's non-null data holds a pointer (OSSL_PARAM(3)), read
                // unaligned.
                let p = unsafe { self.0.data.cast::<*const u8>().read_unaligned() };
                if p.is_null() {
                    return Some(&[]);
                }
                // SAFETY: OSSL_PARAM(3): for a pointer type being set, `data` points to
                // the pointer and `data_size` is the size of the pointed-to data.
                Some(unsafe { core::slice::from_raw_parts(p, self.0.data_size) })
            }
            _ => None,
        }
    }

    /// A signed or unsigned integer of 1 to 8 bytes (OSSL_PARAM_allocate_from_text
    /// makes them as small as the value), as i64; None if it does not fit.
    pub fn get_i64(&self) -> Option<i64> {
        let int_type = matches!(self.0.data_type, PARAM_INTEGER | PARAM_UNSIGNED_INTEGER);
        if int_type && self.0.data_size == 0 {
            // Zero as OSSL_PARAM_allocate_from_text writes it: no bytes at all.
            return Some(0);
        }
        let b = self.bytes()?;
        if b.is_empty() || b.len() > 8 {
            return None;
        }
        let negative = self.0.data_type == PARAM_INTEGER && {
            let top = if cfg!(target_endian = "little") { b[b.len() - 1] } else { b[0] };
            top & 0x80 != 0
        };
        let mut wide = [if negative { 0xff } else { 0 }; 8];
        if cfg!(target_endian = "little") {
            wide[..b.len()].copy_from_slice(b);
        } else {
            wide[8 - b.len()..].copy_from_slice(b);
        }
        match self.0.data_type {
            PARAM_INTEGER => Some(i64::from_ne_bytes(wide)),
            PARAM_UNSIGNED_INTEGER => i64::try_from(u64::from_ne_bytes(wide)).ok(),
            _ => None,
        }
    }

    /// An unsigned big number (`OSSL_PARAM_get_BN`): big-endian bytes, wiped when dropped.
    pub fn get_biguint_be(&self) -> Option<Zeroizing<Vec<u8>>> {
        if self.0.data_type != PARAM_UNSIGNED_INTEGER {
            return None;
        }
        let mut b = Zeroizing::new(self.bytes()?.to_vec());
        if cfg!(target_endian = "little") {
            b.reverse();
        }
        Some(b)
    }

    /// Sets an integer parameter of 4 or 8 bytes, signed or unsigned. False if `v` does
    /// not fit or the type is not an integer.
    pub fn set_i64(&mut self, v: i64) -> bool {
        let size = self.0.data_size;
        let bytes: Vec<u8> = match (self.0.data_type, size) {
            (PARAM_INTEGER, 4) => match i32::try_from(v) {
                Ok(x) => x.to_ne_bytes().to_vec(),
                Err(_) => return false,
            },
            (PARAM_INTEGER, 8) => v.to_ne_bytes().to_vec(),
            (PARAM_UNSIGNED_INTEGER, 4) => match u32::try_from(v) {
                Ok(x) => x.to_ne_bytes().to_vec(),
                Err(_) => return false,
            },
            (PARAM_UNSIGNED_INTEGER, 8) => match u64::try_from(v) {
                Ok(x) => x.to_ne_bytes().to_vec(),
                Err(_) => return false,
            },
            (PARAM_INTEGER | PARAM_UNSIGNED_INTEGER, _) if self.0.data.is_null() => {
                self.0.return_size = 8;
                return true;
            }
            _ => return false,
        };
        self.answer(&bytes, bytes.len())
    }

    /// Sets an unsigned big number from big-endian bytes (`OSSL_PARAM_set_BN`): a null
    /// buffer gets the size needed; a buffer is filled native-endian, zero-padded.
    pub fn set_biguint_be(&mut self, be: &[u8]) -> bool {
        if self.0.data_type != PARAM_UNSIGNED_INTEGER {
            return false;
        }
        let start = be.iter().position(|&b| b != 0).unwrap_or(be.len());
        let be = &be[start..];
        let needed = be.len().max(1);
        if self.0.data.is_null() || self.0.data_size < needed {
            // The size asked for, or the buffer is too small for the number.
            self.0.return_size = needed;
            return self.0.data.is_null();
        }
        let mut out = Zeroizing::new(vec![0u8; self.0.data_size]);
        let len = out.len();
        out[len - be.len()..].copy_from_slice(be);
        if cfg!(target_endian = "little") {
            out.reverse();
        }
        // The number's own length, not the padded buffer's, as `OSSL_PARAM_set_BN` answers.
        self.answer(&out, needed)
    }

    /// Sets a UTF-8 string: by value (the caller's buffer, NUL added) or, for a
    /// `UTF8_PTR`, as a pointer to `s`, which must then live for the program
    /// (`'static`).
    pub fn set_utf8(&mut self, s: &'static CStr) -> bool {
        if self.0.data_type == PARAM_UTF8_PTR {
            if self.0.data.is_null() {
                return false;
            }
            // SAFETY: a UTF8_PTR's data points to a `const char *` to fill in (its
            // `data_size` is that of the string, often 0: OSSL_PARAM_construct_utf8_ptr).
            unsafe { self.0.data.cast::<*const c_char>().write_unaligned(s.as_ptr()) };
            self.0.return_size = s.to_bytes().len();
            return true;
        }
        self.set_utf8_copy(s.to_bytes())
    }

    /// Sets a UTF-8 string by value only (copied into the caller's buffer), as
    /// `OSSL_PARAM_set_utf8_string` does (crypto/params.c, `set_string_internal`, the same
    /// in 3.0 and 4.0): a buffer of the string's length takes it without a NUL, a larger
    /// one gets the NUL too; `return_size` is the length without it.
    pub fn set_utf8_copy(&mut self, s: &[u8]) -> bool {
        if self.0.data_type != PARAM_UTF8_STRING {
            return false;
        }
        if !self.answer(s, s.len()) {
            return false;
        }
        if !self.0.data.is_null() && self.0.data_size > s.len() {
            // SAFETY: the caller's buffer has `data_size > s.len()` writable bytes.
            unsafe { self.0.data.cast::<u8>().add(s.len()).write(0) };
        }
        true
    }

    /// Sets an octet string by value (the caller's buffer).
    pub fn set_octets(&mut self, b: &[u8]) -> bool {
        if self.0.data_type != PARAM_OCTET_STRING {
            return false;
        }
        self.answer(b, b.len())
    }

    /// Sets an octet string: by value (the caller's buffer) or, for an `OCTET_PTR`, as a
    /// pointer to `b` itself (null when empty), as `OSSL_PARAM_set_octet_ptr` does for
    /// OpenSSL's `get0` getters (`EVP_PKEY_CTX_get0_rsa_oaep_label`, which CMS calls):
    /// `b` must then be the context's own data, which the caller reads only while the
    /// context lives unchanged (OpenSSL's contract for `get0`).
    pub fn set_octets_or_ptr(&mut self, b: &[u8]) -> bool {
        if self.0.data_type != PARAM_OCTET_PTR {
            return self.set_octets(b);
        }
        if self.0.data.is_null() {
            return false;
        }
        let ptr = if b.is_empty() { core::ptr::null() } else { b.as_ptr() };
        // SAFETY: an OCTET_PTR's data points to a `const void *` to fill in.
        unsafe { self.0.data.cast::<*const u8>().write_unaligned(ptr) };
        self.0.return_size = b.len();
        true
    }

    /// Answers `size` as the value's length (`return_size`) and copies `bytes`, the
    /// value as the caller's buffer holds it, there if it is large enough; a null buffer
    /// asks for the size only.
    fn answer(&mut self, bytes: &[u8], size: usize) -> bool {
        self.0.return_size = size;
        if self.0.data.is_null() {
            return true;
        }
        if self.0.data_size < bytes.len() {
            return false;
        }
        // SAFETY: the caller's buffer has `data_size >= bytes.len()` writable bytes and
        // does not overlap `bytes`, which is our own data (a static string or a buffer
        // made here).
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0.data.cast::<u8>(), bytes.len())
        };
        true
    }
}

/// An `OSSL_PARAM` array built here, for a callback (keymgmt export): owns the names'
/// and values' storage, so the raw array stays valid while the builder lives.
#[derive(Debug, Default)]
pub struct Builder {
    /// The values as `OSSL_PARAM` data (native-endian numbers, strings with their NUL),
    /// private ones among them: wiped when dropped.
    values: Vec<(&'static CStr, c_uint, Zeroizing<Vec<u8>>)>,
    array: Vec<OsslParam>,
}

impl Builder {
    /// Adds an unsigned big number, given big-endian.
    pub fn push_biguint_be(&mut self, name: &'static CStr, be: &[u8]) {
        let start = be.iter().position(|&b| b != 0).unwrap_or(be.len().saturating_sub(1));
        let mut v = Zeroizing::new(be[start.min(be.len())..].to_vec());
        if v.is_empty() {
            v.push(0);
        }
        if cfg!(target_endian = "little") {
            v.reverse();
        }
        self.values.push((name, PARAM_UNSIGNED_INTEGER, v));
    }

    /// Adds a signed integer (a C `int`, as `OSSL_PARAM_construct_int`).
    pub fn push_int(&mut self, name: &'static CStr, v: i32) {
        self.values.push((name, PARAM_INTEGER, Zeroizing::new(v.to_ne_bytes().to_vec())));
    }

    /// Adds a UTF-8 string (its size without the NUL, which is stored after it).
    pub fn push_utf8(&mut self, name: &'static CStr, s: &CStr) {
        self.values.push((name, PARAM_UTF8_STRING, Zeroizing::new(s.to_bytes_with_nul().to_vec())));
    }

    /// The END-terminated array; valid until the builder is dropped or changed.
    pub fn finish(&mut self) -> *const OsslParam {
        self.array = self
            .values
            .iter_mut()
            .map(|(name, data_type, v)| OsslParam {
                key: name.as_ptr(),
                data_type: *data_type,
                data: v.as_mut_ptr().cast::<c_void>(),
                // A string's size leaves its NUL out.
                data_size: v.len() - usize::from(*data_type == PARAM_UTF8_STRING),
                return_size: usize::MAX,
            })
            .collect();
        self.array.push(crate::ossl::PARAM_END);
        self.array.as_ptr()
    }
}
