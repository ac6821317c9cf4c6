//! Choosing an extendable-output function at run time: [`XofAlg`] (names and OIDs of
//! SHAKE128 and SHAKE256), [`DynXof`] and [`DynXofReader`].
//!
//! What RSASSA-PSS with SHAKE needs (RFC 8702 section 3.2): the XOF as the message hash,
//! with `2 · security_len()` output bytes (32 for SHAKE128, 64 for SHAKE256), and the same
//! XOF as the mask generation function, `mask = SHAKE(seed, maskLen)`. The OIDs are
//! id-shake128 and id-shake256 of NIST's hashAlgs arc (RFC 8702 section 2).
//!
//! Names: [`XofAlg::name`] is OpenSSL 3's ("SHAKE-128"); [`XofAlg::from_name`] takes any
//! case, with or without `-` or `_` ("shake128", "SHAKE-256", "SHAKE_128").

use super::{Shake128, Shake128Reader, Shake256, Shake256Reader};
use crate::Error;

/// An extendable-output function, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XofAlg {
    /// SHAKE128 (FIPS 202 section 6.2).
    Shake128,
    /// SHAKE256 (FIPS 202 section 6.2).
    Shake256,
}

/// The OID value bytes of NIST hashAlgs `2.16.840.1.101.3.4.2.n` (what follows `06 09`).
const fn hash_algs_oid(n: u8) -> [u8; 9] {
    [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, n]
}

impl XofAlg {
    /// Both XOFs.
    pub const ALL: [XofAlg; 2] = [XofAlg::Shake128, XofAlg::Shake256];

    /// The name as OpenSSL 3 spells it: "SHAKE-128", "SHAKE-256".
    pub fn name(self) -> &'static str {
        match self {
            XofAlg::Shake128 => "SHAKE-128",
            XofAlg::Shake256 => "SHAKE-256",
        }
    }

    /// The rate in bytes (the block the sponge absorbs).
    pub fn block_len(self) -> usize {
        match self {
            XofAlg::Shake128 => Shake128::BLOCK_LEN,
            XofAlg::Shake256 => Shake256::BLOCK_LEN,
        }
    }

    /// The security strength in bytes (16, 32), reached with outputs of at least twice
    /// that many bytes (FIPS 202 appendix A.1); RFC 8702 uses exactly twice.
    pub fn security_len(self) -> usize {
        match self {
            XofAlg::Shake128 => 16,
            XofAlg::Shake256 => 32,
        }
    }

    /// The object identifier, dotted: id-shake128 "2.16.840.1.101.3.4.2.11" and
    /// id-shake256 "2.16.840.1.101.3.4.2.12" (RFC 8702 section 2).
    pub fn oid(self) -> &'static str {
        match self {
            XofAlg::Shake128 => "2.16.840.1.101.3.4.2.11",
            XofAlg::Shake256 => "2.16.840.1.101.3.4.2.12",
        }
    }

    /// The DER bytes of the OID's value (what follows `06 09`).
    pub fn oid_der(self) -> &'static [u8] {
        const SHAKE128: [u8; 9] = hash_algs_oid(11);
        const SHAKE256: [u8; 9] = hash_algs_oid(12);
        match self {
            XofAlg::Shake128 => &SHAKE128,
            XofAlg::Shake256 => &SHAKE256,
        }
    }

    /// Parses a user-typed name: any case, `-` and `_` ignored ("shake128", "SHAKE-256").
    pub fn from_name(name: &str) -> Result<XofAlg, Error> {
        let key =
            name.bytes().filter(|b| !matches!(b, b'-' | b'_')).map(|b| b.to_ascii_lowercase());
        if key.clone().eq(*b"shake128") {
            Ok(XofAlg::Shake128)
        } else if key.eq(*b"shake256") {
            Ok(XofAlg::Shake256)
        } else {
            Err(Error::Unsupported("unknown XOF name"))
        }
    }

    /// The XOF with the dotted object identifier `oid`.
    pub fn from_oid(oid: &str) -> Result<XofAlg, Error> {
        XofAlg::ALL
            .into_iter()
            .find(|a| a.oid() == oid)
            .ok_or(Error::Unsupported("unknown XOF OID"))
    }

    /// The XOF whose OID value encodes as `der` (the bytes after `06 len`).
    pub fn from_oid_der(der: &[u8]) -> Result<XofAlg, Error> {
        XofAlg::ALL
            .into_iter()
            .find(|a| a.oid_der() == der)
            .ok_or(Error::Unsupported("unknown XOF OID"))
    }

    /// Fills `out` with the XOF of `data`, in one call.
    pub fn xof(self, data: &[u8], out: &mut [u8]) {
        let mut x = DynXof::new(self);
        x.update(data);
        x.finalize_xof().read(out);
    }
}

impl core::fmt::Display for XofAlg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A streaming XOF picked at run time.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum DynXof {
    Shake128(Shake128),
    Shake256(Shake256),
}

/// The output stream of a [`DynXof`].
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum DynXofReader {
    Shake128(Shake128Reader),
    Shake256(Shake256Reader),
}

impl DynXof {
    /// The XOF `alg` at its initial state.
    pub fn new(alg: XofAlg) -> DynXof {
        match alg {
            XofAlg::Shake128 => DynXof::Shake128(Shake128::new()),
            XofAlg::Shake256 => DynXof::Shake256(Shake256::new()),
        }
    }

    /// The algorithm.
    pub fn alg(&self) -> XofAlg {
        match self {
            DynXof::Shake128(_) => XofAlg::Shake128,
            DynXof::Shake256(_) => XofAlg::Shake256,
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match self {
            DynXof::Shake128(x) => x.update(data),
            DynXof::Shake256(x) => x.update(data),
        }
    }

    /// Ends the input: the reader of the output stream.
    pub fn finalize_xof(self) -> DynXofReader {
        match self {
            DynXof::Shake128(x) => DynXofReader::Shake128(x.finalize_xof()),
            DynXof::Shake256(x) => DynXofReader::Shake256(x.finalize_xof()),
        }
    }
}

impl DynXofReader {
    /// Fills `out` with the next `out.len()` bytes of the output stream.
    pub fn read(&mut self, out: &mut [u8]) {
        match self {
            DynXofReader::Shake128(r) => r.read(out),
            DynXofReader::Shake256(r) => r.read(out),
        }
    }
}
