//! Which peers `--compare` selects, and which of them are present on this machine.
//!
//! `--compare` takes a comma-separated list: `openssl` (the vendored 4.0.3 and the system's
//! libcrypto), `openssl-vendored`, `openssl-system`, `gmp` (bundled and system),
//! `gmp-bundled`, `gmp-system`, `nettle`, `rustcrypto`, `aws-lc-rs`, `ring` (the two Rust
//! TLS providers: RSA PKCS#1 v1.5 sign and verify, the SHA digests), `all` or `none`. A
//! selected system library that is not installed is left out with a note, never an error;
//! so is a size or algorithm a peer does not have (ring signs with 2048 to 4096 bits only).
//!
//! The peers come from the `compare` crate, behind this crate's `peers` feature (on by
//! default). A `cryptocard` built without it (`cargo install --path crates/cli
//! --no-default-features`) has no FFI and no C builds; its `speed` measures cryptocard alone
//! and says so in one note when peers were asked for.

use compare::PeerInfo;
#[cfg(feature = "peers")]
use compare::{aws_lc, gmp::Gmp, nettle::Nettle, openssl::Openssl, ring, rustcrypto};

/// The note of a build without peers, shown when `--compare` (or the default run) asks
/// for them.
#[cfg(not(feature = "peers"))]
pub const NO_PEERS: &str = "this cryptocard was built without the peers (OpenSSL, GMP, nettle, \
     aws-lc-rs, ring); \
     `cargo run --release -- speed` in the repository, or `cargo install --path crates/cli`, \
     measures them beside it";

/// The peers selected and present.
#[derive(Debug, Default)]
pub struct PeerSet {
    /// OpenSSL copies, vendored first.
    #[cfg(feature = "peers")]
    pub openssl: Vec<&'static Openssl>,
    /// GMP copies, bundled first.
    #[cfg(feature = "peers")]
    pub gmp: Vec<&'static Gmp>,
    /// The system's nettle.
    #[cfg(feature = "peers")]
    pub nettle: Option<&'static Nettle>,
    /// Whether RustCrypto's crates are selected (MD2).
    #[cfg(feature = "peers")]
    pub rustcrypto: bool,
    /// Whether aws-lc-rs is selected.
    #[cfg(feature = "peers")]
    pub aws_lc: bool,
    /// Whether ring is selected.
    #[cfg(feature = "peers")]
    pub ring: bool,
    /// One line for each selected peer that is missing, for stderr.
    pub notes: Vec<String>,
}

/// The words `--compare` accepts.
pub const NAMES: &[&str] = &[
    "openssl",
    "openssl-vendored",
    "openssl-system",
    "gmp",
    "gmp-bundled",
    "gmp-system",
    "nettle",
    "rustcrypto",
    "aws-lc-rs",
    "ring",
    "all",
    "none",
];

impl PeerSet {
    /// Selects peers by the `--compare` list and loads them.
    pub fn select(list: &str) -> Result<PeerSet, String> {
        let mut want = [false; 8]; // openssl v/s, gmp b/s, nettle, rustcrypto, aws-lc-rs, ring
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let picks: &[usize] = match word {
                "openssl" => &[0, 1],
                "openssl-vendored" => &[0],
                "openssl-system" => &[1],
                "gmp" => &[2, 3],
                "gmp-bundled" => &[2],
                "gmp-system" => &[3],
                "nettle" => &[4],
                "rustcrypto" => &[5],
                "aws-lc-rs" => &[6],
                "ring" => &[7],
                "all" => &[0, 1, 2, 3, 4, 5, 6, 7],
                "none" => &[],
                _ => {
                    return Err(format!(
                        "--compare: unknown peer '{word}' (known: {})",
                        NAMES.join(" ")
                    ));
                }
            };
            for &i in picks {
                want[i] = true;
            }
        }
        Ok(PeerSet::load(want))
    }

    /// Loads the peers picked in `want` (OpenSSL vendored/system, GMP bundled/system,
    /// nettle, RustCrypto, aws-lc-rs, ring).
    #[cfg(not(feature = "peers"))]
    fn load(want: [bool; 8]) -> PeerSet {
        let notes = if want.contains(&true) { vec![NO_PEERS.to_string()] } else { vec![] };
        PeerSet { notes }
    }

    /// Loads the peers picked in `want` (OpenSSL vendored/system, GMP bundled/system,
    /// nettle, RustCrypto, aws-lc-rs, ring).
    #[cfg(feature = "peers")]
    fn load(want: [bool; 8]) -> PeerSet {
        let mut set =
            PeerSet { rustcrypto: want[5], aws_lc: want[6], ring: want[7], ..PeerSet::default() };
        if want[0] {
            match Openssl::vendored() {
                Ok(o) => set.openssl.push(o),
                Err(e) => set.notes.push(format!("vendored OpenSSL unusable: {e}")),
            }
        }
        if want[1] {
            set.add(Openssl::system(), compare::openssl::SYSTEM_LIBCRYPTO, |s, o| {
                s.openssl.push(o)
            });
        }
        if want[2] {
            match Gmp::bundled() {
                Ok(g) => set.gmp.push(g),
                Err(e) => set.notes.push(format!("GMP 6.3.0 (bundled) skipped: {e}")),
            }
        }
        if want[3] {
            set.add(Gmp::system(), compare::gmp::SYSTEM_LIBGMP, |s, g| s.gmp.push(g));
        }
        if want[4] {
            set.add(Nettle::system(), compare::nettle::SYSTEM_LIBNETTLE, |s, n| s.nettle = Some(n));
        }
        set
    }

    /// Adds a system peer if present, or a note saying why not.
    #[cfg(feature = "peers")]
    fn add<T>(
        &mut self,
        found: compare::Result<Option<T>>,
        soname: &str,
        put: impl FnOnce(&mut Self, T),
    ) {
        match found {
            Ok(Some(peer)) => put(self, peer),
            Ok(None) => self.notes.push(format!("{soname} not found: that system peer is skipped")),
            Err(e) => {
                self.notes.push(format!("{soname} unusable ({e}): that system peer is skipped"))
            }
        }
    }

    /// Every present peer, in column order (none in a build without peers).
    #[cfg(not(feature = "peers"))]
    pub fn infos(&self) -> Vec<PeerInfo> {
        Vec::new()
    }

    /// Every present peer, in column order.
    #[cfg(feature = "peers")]
    pub fn infos(&self) -> Vec<PeerInfo> {
        let mut v: Vec<PeerInfo> = self.openssl.iter().map(|o| o.info().clone()).collect();
        v.extend(self.gmp.iter().map(|g| g.info().clone()));
        v.extend(self.nettle.map(|n| n.info().clone()));
        if self.rustcrypto {
            v.push(rustcrypto::md2_info().clone());
        }
        if self.aws_lc {
            v.push(aws_lc::info().clone());
        }
        if self.ring {
            v.push(ring::info().clone());
        }
        v
    }
}
