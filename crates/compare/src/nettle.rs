//! nettle as a peer, for the digests OpenSSL builds without (MD2 above all) and for DES:
//! the system's `libnettle.so.8`, opened at run time (there is no vendored nettle).
//!
//! Digests go through nettle's own algorithm descriptors (`const struct nettle_hash
//! nettle_md2`, ...), which carry the context size and the init/update/digest functions, so
//! one generic [`NettleHash`] serves every digest. DES and triple DES run in ECB, CBC and
//! 64-bit CFB through nettle's generic `cbc_*`/`cfb_*` mode functions.

use crate::{Origin, PeerError, PeerInfo, Result};
use libloading::os::unix::Library;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

/// The system nettle this peer looks for.
pub const SYSTEM_LIBNETTLE: &str = "libnettle.so.8";

/// `struct nettle_hash` (nettle-meta.h, nettle 3.x; nettle 4 changed `digest`).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct NettleHashMeta {
    name: *const c_char,
    context_size: c_uint,
    digest_size: c_uint,
    block_size: c_uint,
    init: unsafe extern "C" fn(ctx: *mut c_void),
    update: unsafe extern "C" fn(ctx: *mut c_void, len: usize, data: *const u8),
    digest: unsafe extern "C" fn(ctx: *mut c_void, len: usize, out: *mut u8),
}

/// `nettle_cipher_func`: one block function over `len` bytes.
type CipherFunc =
    unsafe extern "C" fn(ctx: *const c_void, len: usize, dst: *mut u8, src: *const u8);
/// `cbc_encrypt`, `cbc_decrypt`, `cfb_encrypt`, `cfb_decrypt` share this shape.
type ModeFunc = unsafe extern "C" fn(
    ctx: *const c_void,
    f: CipherFunc,
    block: usize,
    iv: *mut u8,
    len: usize,
    dst: *mut u8,
    src: *const u8,
);

crate::ffi_table! {
    /// The nettle entry points used here (run-time only: nothing is linked).
    pub(crate) struct NettleFns [dynamic] {
        fn nettle_version_major() -> c_int;
        fn nettle_version_minor() -> c_int;
        fn nettle_des_set_key(ctx: *mut c_void, key: *const u8) -> c_int;
        fn nettle_des_encrypt(ctx: *const c_void, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_des_decrypt(ctx: *const c_void, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_des3_set_key(ctx: *mut c_void, key: *const u8) -> c_int;
        fn nettle_des3_encrypt(ctx: *const c_void, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_des3_decrypt(ctx: *const c_void, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_cbc_encrypt(ctx: *const c_void, f: CipherFunc, block: usize, iv: *mut u8, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_cbc_decrypt(ctx: *const c_void, f: CipherFunc, block: usize, iv: *mut u8, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_cfb_encrypt(ctx: *const c_void, f: CipherFunc, block: usize, iv: *mut u8, len: usize, dst: *mut u8, src: *const u8);
        fn nettle_cfb_decrypt(ctx: *const c_void, f: CipherFunc, block: usize, iv: *mut u8, len: usize, dst: *mut u8, src: *const u8);
        static nettle_md2: NettleHashMeta;
        static nettle_md4: NettleHashMeta;
        static nettle_md5: NettleHashMeta;
        static nettle_sha1: NettleHashMeta;
        static nettle_sha224: NettleHashMeta;
        static nettle_sha256: NettleHashMeta;
        static nettle_sha384: NettleHashMeta;
        static nettle_sha512: NettleHashMeta;
        static nettle_ripemd160: NettleHashMeta;
    }
}

/// The system's nettle.
pub struct Nettle {
    fns: NettleFns,
    info: PeerInfo,
    _lib: Library,
}

impl std::fmt::Debug for Nettle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nettle").field("info", &self.info).finish()
    }
}

impl Nettle {
    /// The system's `libnettle.so.8`; `Ok(None)` if it is not installed.
    pub fn system() -> Result<Option<&'static Nettle>> {
        static SYSTEM: OnceLock<Result<Option<Nettle>>> = OnceLock::new();
        crate::ffi::system_peer(&SYSTEM, SYSTEM_LIBNETTLE, |lib| {
            let fns = NettleFns::load(&lib).map_err(PeerError::Unavailable)?;
            // SAFETY: two argument-less functions returning constants.
            let (major, minor) =
                unsafe { ((fns.nettle_version_major)(), (fns.nettle_version_minor)()) };
            if major != 3 {
                return Err(PeerError::Unavailable(format!(
                    "nettle {major}.{minor}: only the 3.x ABI is supported"
                )));
            }
            let info = PeerInfo {
                id: "nettle",
                name: "nettle",
                version: format!("{major}.{minor}"),
                origin: Origin::System,
            };
            Ok(Nettle { fns, info, _lib: lib })
        })
    }

    /// Version and origin, e.g. "nettle 3.8 (system)".
    pub fn info(&self) -> &PeerInfo {
        &self.info
    }

    /// The digest `name`: "md2", "md4", "md5", "sha1", "sha224", "sha256", "sha384",
    /// "sha512", "ripemd160" (case-insensitive, dashes ignored).
    pub fn hash(&'static self, name: &str) -> Result<NettleHash> {
        let f = &self.fns;
        let meta = match name.to_ascii_lowercase().replace('-', "").as_str() {
            "md2" => f.nettle_md2,
            "md4" => f.nettle_md4,
            "md5" => f.nettle_md5,
            "sha1" => f.nettle_sha1,
            "sha224" => f.nettle_sha224,
            "sha256" => f.nettle_sha256,
            "sha384" => f.nettle_sha384,
            "sha512" => f.nettle_sha512,
            "ripemd160" => f.nettle_ripemd160,
            _ => return Err(PeerError::Unavailable(format!("digest {name} in {}", self.info))),
        };
        // SAFETY: the table entry is the address of nettle's static, immutable descriptor.
        let meta: &'static NettleHashMeta = unsafe { &*meta };
        let words = (meta.context_size as usize).div_ceil(16);
        Ok(NettleHash { meta, ctx: vec![0u128; words.max(1)] })
    }

    /// DES or triple DES by OpenSSL name: "des-ecb", "des-cbc", "des-cfb", "des-ede3",
    /// "des-ede3-cbc", "des-ede3-cfb" (case-insensitive). Key 8 or 24 bytes, IV 8 bytes
    /// (empty for ECB).
    pub fn des(
        &'static self,
        name: &str,
        key: &[u8],
        iv: &[u8],
        encrypt: bool,
    ) -> Result<NettleDes> {
        let f = &self.fns;
        let name = name.to_ascii_lowercase();
        let (triple, mode) = match name.as_str() {
            "des-ecb" => (false, Mode::Ecb),
            "des-cbc" => (false, Mode::Cbc),
            "des-cfb" => (false, Mode::Cfb),
            "des-ede3" | "des-ede3-ecb" => (true, Mode::Ecb),
            "des-ede3-cbc" => (true, Mode::Cbc),
            "des-ede3-cfb" => (true, Mode::Cfb),
            _ => return Err(PeerError::Unavailable(format!("cipher {name} in {}", self.info))),
        };
        if key.len() != if triple { 24 } else { 8 } {
            return Err(PeerError::InvalidInput("key length does not match the cipher"));
        }
        let iv: [u8; 8] = match (mode, iv.len()) {
            (Mode::Ecb, 0) => [0; 8],
            (Mode::Cbc | Mode::Cfb, 8) => iv.try_into().expect("length checked"),
            _ => return Err(PeerError::InvalidInput("IV length does not match the cipher mode")),
        };
        let mut ctx = Box::new([0u32; 96]);
        let (set_key, enc, dec) = if triple {
            (f.nettle_des3_set_key, f.nettle_des3_encrypt, f.nettle_des3_decrypt)
        } else {
            (f.nettle_des_set_key, f.nettle_des_encrypt, f.nettle_des_decrypt)
        };
        // SAFETY: `ctx` (384 bytes) is as large as `struct des3_ctx` and larger than
        // `struct des_ctx`; the key length was checked above.
        if unsafe { set_key(ctx.as_mut_ptr().cast(), key.as_ptr()) } != 1 {
            return Err(PeerError::InvalidInput("weak DES key"));
        }
        // CFB runs the block cipher forwards in both directions.
        let block = if encrypt || mode == Mode::Cfb { enc } else { dec };
        let mode_fn = match (mode, encrypt) {
            (Mode::Ecb, _) => None,
            (Mode::Cbc, true) => Some(f.nettle_cbc_encrypt as ModeFunc),
            (Mode::Cbc, false) => Some(f.nettle_cbc_decrypt as ModeFunc),
            (Mode::Cfb, true) => Some(f.nettle_cfb_encrypt as ModeFunc),
            (Mode::Cfb, false) => Some(f.nettle_cfb_decrypt as ModeFunc),
        };
        Ok(NettleDes { ctx, block, mode_fn, iv, stream: mode == Mode::Cfb })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Ecb,
    Cbc,
    Cfb,
}

/// A nettle digest with its own context.
pub struct NettleHash {
    meta: &'static NettleHashMeta,
    ctx: Vec<u128>,
}

impl std::fmt::Debug for NettleHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NettleHash").field("digest_size", &self.meta.digest_size).finish()
    }
}

// SAFETY: the descriptor is immutable static data and the context a plain buffer owned by
// this value; nettle's hash functions keep no global state.
unsafe impl Send for NettleHash {}

impl NettleHash {
    /// Output length in bytes.
    pub fn size(&self) -> usize {
        self.meta.digest_size as usize
    }

    /// Hashes `data` into the front of `out` (at least [`size`](Self::size) bytes).
    pub fn digest_into(&mut self, data: &[u8], out: &mut [u8]) -> Result<usize> {
        let n = self.size();
        if out.len() < n {
            return Err(PeerError::InvalidInput("digest output buffer too small"));
        }
        let ctx = self.ctx.as_mut_ptr().cast::<c_void>();
        // SAFETY: `ctx` has at least `context_size` bytes, 16-byte aligned; `data` is
        // readable for its length; `out` has room for the `n` bytes requested.
        unsafe {
            (self.meta.init)(ctx);
            (self.meta.update)(ctx, data.len(), data.as_ptr());
            (self.meta.digest)(ctx, n, out.as_mut_ptr());
        }
        Ok(n)
    }

    /// The digest of `data`.
    pub fn digest(&mut self, data: &[u8]) -> Vec<u8> {
        let mut out = vec![0; self.size()];
        self.digest_into(data, &mut out).expect("internal error: buffer sized from the digest");
        out
    }
}

/// A keyed nettle DES / triple-DES context in one direction.
pub struct NettleDes {
    ctx: Box<[u32; 96]>,
    block: CipherFunc,
    mode_fn: Option<ModeFunc>,
    iv: [u8; 8],
    stream: bool,
}

impl std::fmt::Debug for NettleDes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NettleDes").field("stream", &self.stream).finish_non_exhaustive()
    }
}

// SAFETY: the key schedule is a plain buffer owned by this value and the function pointers
// refer to nettle's reentrant code.
unsafe impl Send for NettleDes {}

impl NettleDes {
    /// Continues the stream: `input` (whole 8-byte blocks, except in CFB) into the front of
    /// `output`; returns the bytes written. The chaining value carries over between calls.
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        if !self.stream && !input.len().is_multiple_of(8) {
            return Err(PeerError::InvalidInput("input is not a whole number of blocks"));
        }
        if output.len() < input.len() {
            return Err(PeerError::InvalidInput("output buffer shorter than input"));
        }
        let ctx = self.ctx.as_ptr().cast::<c_void>();
        // SAFETY: `ctx` holds the key schedule set up in `Nettle::des`; `output` has room
        // for `input.len()` bytes; the slices do not overlap; `iv` is 8 bytes, the block.
        unsafe {
            match self.mode_fn {
                None => (self.block)(ctx, input.len(), output.as_mut_ptr(), input.as_ptr()),
                Some(mode) => mode(
                    ctx,
                    self.block,
                    8,
                    self.iv.as_mut_ptr(),
                    input.len(),
                    output.as_mut_ptr(),
                    input.as_ptr(),
                ),
            }
        }
        Ok(input.len())
    }

    /// `input` transformed as one message, as a new vector.
    pub fn apply(&mut self, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; input.len()];
        self.update(input, &mut out)?;
        Ok(out)
    }
}
