//! OpenSSL configuration files and X.509 extension sections from hostile bytes: the body
//! is `pki_bodies::conf`.
#![no_main]

#[path = "../pki_bodies.rs"]
mod pki_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pki_bodies::conf(data);
});
