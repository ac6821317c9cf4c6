//! Links the provider with `-z nodelete`: OpenSSL `dlclose`s a provider module when it
//! unloads it, but the engine's worker threads and Rust's thread-local destructors may
//! still run code from it then; a module that is never unmapped cannot crash that way
//! (QAT_Engine and OpenSSL's own engines hit the same problem with their threads).

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
