//! Choosing a digest at run time: [`HashAlg`], its names, OIDs and PKCS#1 DigestInfo
//! prefixes.
//!
//! Names: [`HashAlg::name`] spells each algorithm as OpenSSL 3's `openssl dgst` prints it
//! ("MD5", "SHA1", "SHA2-256", "SHA2-512/256", "SHA3-256", "RIPEMD-160"); [`HashAlg::from_name`] accepts
//! what users type: any case, with or without `-`, `_` or `/` ("sha256", "SHA-256",
//! "SHA2-256", "sha512-256", "SHA512/256", "sha512_256", "sha3-256", "SHA3_256").
//!
//! DigestInfo (RFC 8017 section 9.2, EMSA-PKCS1-v1_5 step 2): the DER encoding of
//! `SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING digest }` up to the digest bytes; the
//! prefixes are those of the RFC's note 1, plus MD4 (OID 1.2.840.113549.2.4, RFC 1320
//! appendix / PKCS#1 v1.5 `md4WithRSAEncryption`), SHA-3 (NIST's hashAlgs arc
//! 2.16.840.1.101.3.4.2.7 to .10, as in `id-rsassa-pkcs1-v1_5-with-sha3-*` of the NIST
//! Computer Security Objects Register) and RIPEMD-160 (TeleTrusT's 1.3.36.3.2.1, as
//! OpenSSL writes it) built the same way.

use crate::Error;

/// A digest algorithm, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlg {
    /// MD2 (RFC 1319). Legacy.
    Md2,
    /// MD4 (RFC 1320). Legacy.
    Md4,
    /// MD5 (RFC 1321). Legacy.
    Md5,
    /// SHA-1 (FIPS 180-4). Legacy for signatures.
    Sha1,
    /// SHA-224 (FIPS 180-4).
    Sha224,
    /// SHA-256 (FIPS 180-4).
    Sha256,
    /// SHA-384 (FIPS 180-4).
    Sha384,
    /// SHA-512 (FIPS 180-4).
    Sha512,
    /// SHA-512/224 (FIPS 180-4).
    Sha512_224,
    /// SHA-512/256 (FIPS 180-4).
    Sha512_256,
    /// SHA3-224 (FIPS 202).
    Sha3_224,
    /// SHA3-256 (FIPS 202).
    Sha3_256,
    /// SHA3-384 (FIPS 202).
    Sha3_384,
    /// SHA3-512 (FIPS 202).
    Sha3_512,
    /// RIPEMD-160 (Dobbertin, Bosselaers and Preneel, 1996). Legacy.
    Ripemd160,
}

/// Everything known about one algorithm, in one row.
struct Info {
    name: &'static str,
    /// The name with `-`, `_`, `/` removed and lower-cased, for parsing.
    key: &'static str,
    output_len: usize,
    block_len: usize,
    oid: &'static str,
    digest_info_prefix: &'static [u8],
    legacy: bool,
}

/// The DER prefix for an OID under rsadsi digestAlgorithm (1.2.840.113549.2.n), 16-byte
/// digest: `30 20 30 0c 06 08 <oid> 05 00 04 10`.
macro_rules! rsadsi_prefix {
    ($n:literal) => {
        &[
            0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, $n, 0x05,
            0x00, 0x04, 0x10,
        ]
    };
}

/// The DER prefix for an OID under NIST hashAlgs (2.16.840.1.101.3.4.2.n), with the outer
/// SEQUENCE length `$seq` and digest length `$len`:
/// `30 <seq> 30 0d 06 09 <oid> 05 00 04 <len>`.
macro_rules! nist_prefix {
    ($seq:literal, $n:literal, $len:literal) => {
        &[
            0x30, $seq, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, $n,
            0x05, 0x00, 0x04, $len,
        ]
    };
}

impl HashAlg {
    /// Every algorithm, in the order of the enum.
    pub const ALL: [HashAlg; 15] = [
        HashAlg::Md2,
        HashAlg::Md4,
        HashAlg::Md5,
        HashAlg::Sha1,
        HashAlg::Sha224,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
        HashAlg::Sha512_224,
        HashAlg::Sha512_256,
        HashAlg::Sha3_224,
        HashAlg::Sha3_256,
        HashAlg::Sha3_384,
        HashAlg::Sha3_512,
        HashAlg::Ripemd160,
    ];

    fn info(self) -> &'static Info {
        const fn row(
            name: &'static str,
            key: &'static str,
            output_len: usize,
            block_len: usize,
            oid: &'static str,
            digest_info_prefix: &'static [u8],
            legacy: bool,
        ) -> Info {
            Info { name, key, output_len, block_len, oid, digest_info_prefix, legacy }
        }
        const TABLE: [Info; 15] = [
            row("MD2", "md2", 16, 16, "1.2.840.113549.2.2", rsadsi_prefix!(0x02), true),
            row("MD4", "md4", 16, 64, "1.2.840.113549.2.4", rsadsi_prefix!(0x04), true),
            row("MD5", "md5", 16, 64, "1.2.840.113549.2.5", rsadsi_prefix!(0x05), true),
            row(
                "SHA1",
                "sha1",
                20,
                64,
                "1.3.14.3.2.26",
                // 30 21 30 09 06 05 <1.3.14.3.2.26> 05 00 04 14
                &[
                    0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00,
                    0x04, 0x14,
                ],
                true,
            ),
            row(
                "SHA2-224",
                "sha224",
                28,
                64,
                "2.16.840.1.101.3.4.2.4",
                nist_prefix!(0x2d, 0x04, 0x1c),
                false,
            ),
            row(
                "SHA2-256",
                "sha256",
                32,
                64,
                "2.16.840.1.101.3.4.2.1",
                nist_prefix!(0x31, 0x01, 0x20),
                false,
            ),
            row(
                "SHA2-384",
                "sha384",
                48,
                128,
                "2.16.840.1.101.3.4.2.2",
                nist_prefix!(0x41, 0x02, 0x30),
                false,
            ),
            row(
                "SHA2-512",
                "sha512",
                64,
                128,
                "2.16.840.1.101.3.4.2.3",
                nist_prefix!(0x51, 0x03, 0x40),
                false,
            ),
            row(
                "SHA2-512/224",
                "sha512224",
                28,
                128,
                "2.16.840.1.101.3.4.2.5",
                nist_prefix!(0x2d, 0x05, 0x1c),
                false,
            ),
            row(
                "SHA2-512/256",
                "sha512256",
                32,
                128,
                "2.16.840.1.101.3.4.2.6",
                nist_prefix!(0x31, 0x06, 0x20),
                false,
            ),
            // SHA-3: block = rate (FIPS 202 section 6.1); OIDs id-sha3-224 .. id-sha3-512.
            row(
                "SHA3-224",
                "sha3224",
                28,
                144,
                "2.16.840.1.101.3.4.2.7",
                nist_prefix!(0x2d, 0x07, 0x1c),
                false,
            ),
            row(
                "SHA3-256",
                "sha3256",
                32,
                136,
                "2.16.840.1.101.3.4.2.8",
                nist_prefix!(0x31, 0x08, 0x20),
                false,
            ),
            row(
                "SHA3-384",
                "sha3384",
                48,
                104,
                "2.16.840.1.101.3.4.2.9",
                nist_prefix!(0x41, 0x09, 0x30),
                false,
            ),
            row(
                "SHA3-512",
                "sha3512",
                64,
                72,
                "2.16.840.1.101.3.4.2.10",
                nist_prefix!(0x51, 0x0a, 0x40),
                false,
            ),
            row(
                "RIPEMD-160",
                "ripemd160",
                20,
                64,
                "1.3.36.3.2.1",
                // 30 21 30 09 06 05 <1.3.36.3.2.1> 05 00 04 14 (TeleTrusT's arc)
                &[
                    0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x24, 0x03, 0x02, 0x01, 0x05, 0x00,
                    0x04, 0x14,
                ],
                true,
            ),
        ];
        &TABLE[self as usize]
    }

    /// The name as OpenSSL 3's `openssl dgst` prints it: "MD5", "SHA1", "SHA2-256",
    /// "SHA2-512/256", ...
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// OpenSSL's long name of the algorithm's object (`OBJ_nid2ln`), as its text dumps
    /// print a digest: "md5", "sha1", "sha256", "sha512-256", "sha3-256", "ripemd160".
    pub fn long_name(self) -> &'static str {
        match self {
            HashAlg::Md2 => "md2",
            HashAlg::Md4 => "md4",
            HashAlg::Md5 => "md5",
            HashAlg::Sha1 => "sha1",
            HashAlg::Sha224 => "sha224",
            HashAlg::Sha256 => "sha256",
            HashAlg::Sha384 => "sha384",
            HashAlg::Sha512 => "sha512",
            HashAlg::Sha512_224 => "sha512-224",
            HashAlg::Sha512_256 => "sha512-256",
            HashAlg::Sha3_224 => "sha3-224",
            HashAlg::Sha3_256 => "sha3-256",
            HashAlg::Sha3_384 => "sha3-384",
            HashAlg::Sha3_512 => "sha3-512",
            HashAlg::Ripemd160 => "ripemd160",
        }
    }

    /// The digest length in bytes.
    pub fn output_len(self) -> usize {
        self.info().output_len
    }

    /// The block length in bytes (what HMAC pads its key to); for SHA-3 the rate.
    pub fn block_len(self) -> usize {
        self.info().block_len
    }

    /// The object identifier, dotted ("2.16.840.1.101.3.4.2.1" for SHA-256).
    pub fn oid(self) -> &'static str {
        self.info().oid
    }

    /// The DER bytes of the OID's value (what follows `06 len` in a DER encoding).
    pub fn oid_der(self) -> &'static [u8] {
        let p = self.info().digest_info_prefix;
        // The prefix is 30 L 30 L 06 len <oid> 05 00 04 len.
        &p[6..6 + p[5] as usize]
    }

    /// Whether the algorithm is legacy (broken for collision resistance, or short of what
    /// new designs want): MD2, MD4, MD5, SHA-1, RIPEMD-160.
    pub fn is_legacy(self) -> bool {
        self.info().legacy
    }

    /// The DER DigestInfo prefix of EMSA-PKCS1-v1_5 (RFC 8017 section 9.2 note 1): the
    /// encoding `T` is this prefix followed by the digest.
    pub fn digest_info_prefix(self) -> &'static [u8] {
        self.info().digest_info_prefix
    }

    /// Parses a user-typed name: any case, `-`, `_` and `/` ignored, and an optional
    /// "SHA2" family prefix on the SHA-2 members: "sha256", "SHA-256", "SHA2-256",
    /// "sha512-256", "SHA512/256", "SHA2-512/256" all parse; so do OpenSSL's "rmd160" and
    /// "ripemd" for RIPEMD-160. OpenSSL's "RSA-SHA256" style
    /// names are refused: they name signature schemes, not digests.
    pub fn from_name(name: &str) -> Result<HashAlg, Error> {
        const UNKNOWN: Error = Error::Unsupported("unknown digest name");
        if name.len() > 32 {
            return Err(UNKNOWN);
        }
        let key: String = name
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | '/'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let find = |k: &str| HashAlg::ALL.into_iter().find(|a| a.info().key == k);
        if let Some(alg) = find(&key) {
            return Ok(alg);
        }
        // OpenSSL's other names for RIPEMD-160.
        if key == "rmd160" || key == "ripemd" {
            return Ok(HashAlg::Ripemd160);
        }
        // "SHA2-256" -> "sha2256" -> "sha256"; only for the SHA-2 members.
        key.strip_prefix("sha2")
            .map(|rest| format!("sha{rest}"))
            .and_then(|k| find(&k))
            .filter(|a| !a.is_legacy())
            .ok_or(UNKNOWN)
    }

    /// The algorithm with the dotted object identifier `oid`.
    pub fn from_oid(oid: &str) -> Result<HashAlg, Error> {
        HashAlg::ALL
            .into_iter()
            .find(|a| a.oid() == oid)
            .ok_or(Error::Unsupported("unknown digest OID"))
    }

    /// The algorithm whose OID value encodes as `der` (the bytes after `06 len`).
    pub fn from_oid_der(der: &[u8]) -> Result<HashAlg, Error> {
        HashAlg::ALL
            .into_iter()
            .find(|a| a.oid_der() == der)
            .ok_or(Error::Unsupported("unknown digest OID"))
    }
}

impl core::fmt::Display for HashAlg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for HashAlg {
    type Err = Error;
    fn from_str(s: &str) -> Result<HashAlg, Error> {
        HashAlg::from_name(s)
    }
}
