//! The C buffers of the operation functions: input slices from (pointer, length) and
//! outputs written with their length, checked against the caller's buffer size; and the
//! `keydata` pointer, which is an `Arc<KeyData>` handed to OpenSSL by `Arc::into_raw`.

#![allow(unsafe_code)]

use crate::errors::{Failure, Outcome, Reason};
use crate::key::KeyData;
use core::ffi::c_void;
use std::sync::Arc;

/// The input at (`ptr`, `len`); empty for a null pointer.
///
/// # Safety
/// A non-null `ptr` points to `len` readable bytes that stay valid and unchanged for
/// `'a`.
pub unsafe fn input<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// Writes `data` to `out` (of `size` bytes) and its length to `out_len`.
///
/// # Safety
/// `out` is null or points to `size` writable bytes; `out_len` is null or writable.
pub unsafe fn output(out: *mut u8, out_len: *mut usize, size: usize, data: &[u8]) -> Outcome<()> {
    if data.len() > size || out.is_null() {
        return Err(Failure::new(Reason::BufferTooSmall, format!("{} bytes needed", data.len())));
    }
    // SAFETY: `out` has `size >= data.len()` writable bytes (caller's contract, checked
    // above), distinct from our own `data`; `out_len` is writable if non-null.
    unsafe {
        core::ptr::copy_nonoverlapping(data.as_ptr(), out, data.len());
        if !out_len.is_null() {
            *out_len = data.len();
        }
    }
    Ok(())
}

/// Writes only a length (the size query of sign/encrypt/decrypt with a null buffer).
///
/// # Safety
/// `out_len` is null or writable.
pub unsafe fn output_len(out_len: *mut usize, len: usize) -> Outcome<()> {
    if out_len.is_null() {
        return Err(Failure::new(Reason::OperationFailed, "no length pointer"));
    }
    // SAFETY: caller's contract.
    unsafe { *out_len = len };
    Ok(())
}

/// The key behind a `keydata` pointer, with one more reference (None for null).
///
/// # Safety
/// A non-null `keydata` came from [`into_keydata`] and has not been released.
pub unsafe fn key_ref(keydata: *mut c_void) -> Option<Arc<KeyData>> {
    if keydata.is_null() {
        return None;
    }
    let p = keydata.cast_const().cast::<KeyData>();
    // SAFETY: `p` is a live `Arc::into_raw` pointer (caller's contract); the count is
    // raised before the new `Arc` is made, so the keymgmt's own reference stays.
    unsafe {
        Arc::increment_strong_count(p);
        Some(Arc::from_raw(p))
    }
}

/// A key handed to OpenSSL as `keydata`.
pub fn into_keydata(key: KeyData) -> *mut c_void {
    Arc::into_raw(Arc::new(key)).cast_mut().cast::<c_void>()
}

/// Releases OpenSSL's reference to a `keydata` (keymgmt free).
///
/// # Safety
/// A non-null `keydata` came from [`into_keydata`] and is released once.
pub unsafe fn release_keydata(keydata: *mut c_void) {
    if !keydata.is_null() {
        // SAFETY: the caller's contract: this is the reference `into_keydata` made.
        drop(unsafe { Arc::from_raw(keydata.cast_const().cast::<KeyData>()) });
    }
}
