//! Name constraints from hostile certificates: the body is `pki_bodies::names`.
#![no_main]

#[path = "../pki_bodies.rs"]
mod pki_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pki_bodies::names(data);
});
