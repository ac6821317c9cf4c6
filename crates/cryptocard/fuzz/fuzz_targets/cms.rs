//! Certificates and CMS messages from hostile bytes: the body is `pki_bodies::cms`.
#![no_main]

#[path = "../pki_bodies.rs"]
mod pki_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pki_bodies::cms(data);
});
