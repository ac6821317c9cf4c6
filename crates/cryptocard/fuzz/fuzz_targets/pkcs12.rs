//! PKCS#12 files from hostile bytes: the body is `pki_bodies::pkcs12`.
#![no_main]

#[path = "../pki_bodies.rs"]
mod pki_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pki_bodies::pkcs12(data);
});
