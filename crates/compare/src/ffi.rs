//! One Rust-side function table per C library, filled either from the statically linked
//! build or from a shared library opened at run time.
//!
//! The vendored OpenSSL 4.0.3 and the system's OpenSSL 3.0 export the same symbol names,
//! and so do the bundled and the system GMP. Linking both into one process would make one
//! copy's symbols win silently. Instead the static build is linked normally and the system
//! library is opened with `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)`: `RTLD_LOCAL`
//! keeps its symbols out of the global namespace, and `RTLD_DEEPBIND` makes the library
//! resolve its own references inside itself first, so neither copy ever calls into the
//! other. [`ffi_table!`](crate::ffi_table) declares the table once; `linked()` fills it from
//! the static symbols and `load()` from `dlsym`, so the code that calls the library through
//! the table is written once for both.

use crate::{PeerError, Result};
use libloading::os::unix::Library;
use std::ffi::c_int;
use std::sync::OnceLock;

/// The system peer built from shared library `soname`, made once per process: `make` gets
/// the opened library (and keeps it alive inside the peer). `Ok(None)` if the library is
/// not installed.
pub(crate) fn system_peer<T>(
    cell: &'static OnceLock<Result<Option<T>>>,
    soname: &str,
    make: impl FnOnce(Library) -> Result<T>,
) -> Result<Option<&'static T>> {
    cell.get_or_init(|| match open_isolated(soname).map_err(PeerError::Unavailable)? {
        None => Ok(None),
        Some(lib) => make(lib).map(Some),
    })
    .as_ref()
    .map(Option::as_ref)
    .map_err(Clone::clone)
}

/// Opens a shared library so that its symbols stay private to it (see the module docs).
/// A library that is not installed is `Ok(None)`: an absent peer, not an error.
pub(crate) fn open_isolated(name: &str) -> Result<Option<Library>, String> {
    let flags: c_int = libc::RTLD_NOW | libc::RTLD_LOCAL | deepbind();
    // SAFETY: loading runs the library's ELF constructors. The libraries opened here
    // (libcrypto, libgmp, libnettle) are ordinary system libraries whose constructors only
    // initialise their own state, and they are never unloaded while a table built from
    // them is alive (the `Library` is kept inside the owning peer, which lives in a static).
    match unsafe { Library::open(Some(name), flags) } {
        Ok(lib) => Ok(Some(lib)),
        Err(e) => {
            let text = e.to_string();
            if text.contains("No such file") || text.contains("cannot open shared object") {
                Ok(None)
            } else {
                Err(format!("{name}: {text}"))
            }
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn deepbind() -> c_int {
    libc::RTLD_DEEPBIND
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn deepbind() -> c_int {
    0
}

/// The C symbol of a table entry: the explicit `as "symbol"` if given, else the field name.
#[doc(hidden)]
#[macro_export]
macro_rules! ffi_symbol {
    ($name:ident) => {
        stringify!($name)
    };
    ($name:ident $sym:literal) => {
        $sym
    };
}

/// Declares a table of C functions (and addresses of C data objects) of one library.
///
/// ```text
/// ffi_table! {
///     /// docs
///     pub(crate) struct Fns [linked] {   // or [linked if some_cfg], [dynamic]
///         fn name(arg: Type, ...) -> Ret;               // symbol `name`
///         fn other(arg: Type) as "__real_symbol";       // symbol `__real_symbol`
///         static version: *const c_char as "__gmp_version";
///     }
/// }
/// ```
///
/// Generates `struct Fns` with one `unsafe extern "C" fn` field per function and one
/// `*const T` field per data object, and `Fns::load(&Library)`, which fills it by `dlsym`.
/// With `[linked]`, also `Fns::linked()`, which fills it from the symbols linked into this
/// binary (an `extern "C"` block with the same names); `[linked if CFG]` does the same
/// only where `cfg(CFG)` is set (a static build that may be absent, as the bundled GMP);
/// with `[dynamic]` (a library only ever opened at run time) nothing is linked.
#[macro_export]
macro_rules! ffi_table {
    (
        $(#[$meta:meta])*
        $vis:vis struct $table:ident [$($linked:tt)+] {
            $(fn $name:ident($($arg:ident: $aty:ty),* $(,)?) $(-> $ret:ty)? $(as $sym:literal)?;)*
            $(static $sname:ident: $sty:ty $(as $ssym:literal)?;)*
        }
    ) => {
        $(#[$meta])*
        #[allow(non_snake_case, missing_debug_implementations)]
        $vis struct $table {
            $(pub(crate) $name: unsafe extern "C" fn($($aty),*) $(-> $ret)?,)*
            $(pub(crate) $sname: *const $sty,)*
        }

        // SAFETY: the table holds only function pointers and addresses of immutable C data
        // objects, which may be used from any thread; thread safety of the calls themselves
        // is the business of the code that makes them.
        unsafe impl Send for $table {}
        // SAFETY: as above; the table is never mutated after it is filled.
        unsafe impl Sync for $table {}

        impl $table {
            /// Fills the table from a library opened at run time. Fails, naming the symbol,
            /// if the library lacks one of the entries.
            #[allow(non_snake_case)]
            pub(crate) fn load(lib: &::libloading::os::unix::Library) -> Result<Self, String> {
                Ok(Self {
                    $($name: {
                        let sym = $crate::ffi_symbol!($name $($sym)?);
                        // SAFETY: the field's type is the C prototype of `sym` as declared
                        // by the library's headers; the pointer is copied out of the
                        // `Symbol` and stays valid while the library stays loaded, which
                        // the owner of the table guarantees.
                        unsafe {
                            *lib.get::<unsafe extern "C" fn($($aty),*) $(-> $ret)?>(sym)
                                .map_err(|e| format!("{sym}: {e}"))?
                        }
                    },)*
                    $($sname: {
                        let sym = $crate::ffi_symbol!($sname $($ssym)?);
                        // SAFETY: as above, for the address of a data object of type `$sty`.
                        unsafe {
                            *lib.get::<*const $sty>(sym).map_err(|e| format!("{sym}: {e}"))?
                        }
                    },)*
                })
            }
        }

        $crate::ffi_table!(@linked [$($linked)+] $table {
            $(fn $name($($arg: $aty),*) $(-> $ret)? $(as $sym)?;)*
            $(static $sname: $sty $(as $ssym)?;)*
        });
    };

    (@linked [dynamic] $table:ident { $($entries:tt)* }) => {};

    (@linked [linked] $table:ident { $($entries:tt)* }) => {
        $crate::ffi_table!(@emit [] $table { $($entries)* });
    };

    (@linked [linked if $cfg:ident] $table:ident { $($entries:tt)* }) => {
        $crate::ffi_table!(@emit [#[cfg($cfg)]] $table { $($entries)* });
    };

    (@emit [$(#[$cfg:meta])?] $table:ident {
        $(fn $name:ident($($arg:ident: $aty:ty),*) $(-> $ret:ty)? $(as $sym:literal)?;)*
        $(static $sname:ident: $sty:ty $(as $ssym:literal)?;)*
    }) => {
        $(#[$cfg])?
        #[allow(non_snake_case, non_upper_case_globals, clippy::missing_safety_doc)]
        mod linked_symbols {
            #[allow(unused_imports)]
            use super::*;
            unsafe extern "C" {
                $(
                    #[link_name = $crate::ffi_symbol!($name $($sym)?)]
                    pub(super) fn $name($($arg: $aty),*) $(-> $ret)?;
                )*
                $(
                    #[link_name = $crate::ffi_symbol!($sname $($ssym)?)]
                    pub(super) static $sname: $sty;
                )*
            }
        }

        $(#[$cfg])?
        impl $table {
            /// Fills the table from the statically linked library.
            pub(crate) fn linked() -> Self {
                Self {
                    $($name: linked_symbols::$name,)*
                    $($sname: &raw const linked_symbols::$sname,)*
                }
            }
        }
    };
}
