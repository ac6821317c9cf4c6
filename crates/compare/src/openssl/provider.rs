//! Providers loaded from a modules directory (provider(7)): a third-party provider such as
//! cryptocard's `cryptocard.so`, loaded into this copy's default library context beside
//! the `default` provider, so that an operation prepared with a property query
//! ([`RsaKey::prepare_with`](super::RsaKey::prepare_with)) runs there.

use super::fns::{OSSL_PARAM, OSSL_PARAM_UNMODIFIED, OSSL_PROVIDER};
use super::{Openssl, c_name};
use crate::{PeerError, Result};
use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

/// A provider loaded into the default library context. It stays loaded for the life of
/// the process: a provider module may run threads of its own, so it is never unloaded
/// (and its shared object never closed) behind them.
#[derive(Clone, Copy, Debug)]
pub struct Provider {
    lib: &'static Openssl,
    prov: *mut OSSL_PROVIDER,
}

// SAFETY: a loaded OSSL_PROVIDER is reference-counted and internally locked by libcrypto;
// this handle is never freed, and its functions (name, parameters) only read it.
unsafe impl Send for Provider {}
// SAFETY: as above.
unsafe impl Sync for Provider {}

impl Openssl {
    /// Makes `dir` the default library context's provider search path, then loads
    /// provider `name` (`dir/name.so`, or a provider built into libcrypto). The search
    /// path is process-wide state of this copy: later loads by name look there too.
    pub fn load_provider(&'static self, dir: &Path, name: &str) -> Result<Provider> {
        let f = &self.fns;
        let dir = CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| PeerError::InvalidInput("path contains a NUL byte"))?;
        let cname = c_name(name)?;
        // SAFETY: the default library context (NULL) and a NUL-terminated path, which
        // OpenSSL copies.
        let rc =
            unsafe { (f.OSSL_PROVIDER_set_default_search_path)(ptr::null_mut(), dir.as_ptr()) };
        self.check(rc, "OSSL_PROVIDER_set_default_search_path")?;
        // SAFETY: the default library context and a NUL-terminated name; the returned
        // handle is kept loaded for the process's life (see `Provider`).
        let prov = unsafe { (f.OSSL_PROVIDER_load)(ptr::null_mut(), cname.as_ptr()) };
        Ok(Provider { lib: self, prov: self.non_null(prov, "OSSL_PROVIDER_load")? })
    }

    /// Whether provider `name` is loaded and active in the default library context.
    pub fn provider_available(&self, name: &str) -> Result<bool> {
        let cname = c_name(name)?;
        // SAFETY: the default library context and a NUL-terminated name.
        let rc = unsafe { (self.fns.OSSL_PROVIDER_available)(ptr::null_mut(), cname.as_ptr()) };
        Ok(rc == 1)
    }
}

impl Provider {
    /// The name it was loaded by ("cryptocard").
    pub fn name(&self) -> String {
        // SAFETY: `prov` is a loaded provider, never freed; its name is a NUL-terminated
        // string owned by it.
        let name = unsafe { (self.lib.fns.OSSL_PROVIDER_get0_name)(self.prov) };
        if name.is_null() {
            return String::new();
        }
        // SAFETY: non-NULL and NUL-terminated, as above.
        unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
    }

    /// The provider's UTF-8 string parameter `key` (`OSSL_PROVIDER_get_params`), e.g.
    /// "version", or a provider's own such as cryptocard's "cryptocard-ops".
    pub fn param(&self, key: &str) -> Result<String> {
        let ckey = c_name(key)?;
        let mut buf = vec![0u8; 1024];
        let mut params = [
            OSSL_PARAM::utf8(ckey.as_ptr(), buf.as_mut_ptr().cast(), buf.len()),
            OSSL_PARAM::end(),
        ];
        // SAFETY: `prov` is a loaded provider; `params` is a terminated array whose key
        // and buffer (`data_size` writable bytes) outlive the call.
        let rc = unsafe { (self.lib.fns.OSSL_PROVIDER_get_params)(self.prov, params.as_mut_ptr()) };
        self.lib.check(rc, "OSSL_PROVIDER_get_params")?;
        let len = params[0].return_size;
        if len == OSSL_PARAM_UNMODIFIED || len >= buf.len() {
            return Err(PeerError::Unavailable(format!(
                "parameter {key} of provider {}",
                self.name()
            )));
        }
        buf.truncate(len);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}
