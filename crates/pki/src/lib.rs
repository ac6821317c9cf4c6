//! X.509 certificates and CMS messages on cryptocard's RSA.
//!
//! The application objects of the fifth seed paper (Itoh, Takenaka, Torii, Temma, Kurihara:
//! RSA on a TMS320C54x, 2000/2003): PKCS#1 is the primitive; what users exchange are
//! PKCS#7 digital signatures (a digest signed with the signer's key, content and signature
//! carried together) and digital envelopes (content under a fresh symmetric key, that key
//! under each recipient's RSA key), with X.509 certificates to name signers and recipients.
//!
//! - [`asn1`]: any DER or BER listed element by element as `openssl asn1parse` lists
//!   it.
//! - [`sig`]: the signature algorithms of certificates and CMS signers (PKCS#1 v1.5 and
//!   RSASSA-PSS, RFC 4055) as `AlgorithmIdentifier`s, signing and verifying with them.
//! - [`cert`]: certificates (RFC 5280): parse PEM/DER and chains, verify an issuer's
//!   signature and a chain to a trusted root, make self-signed and CA-signed certificates
//!   and requests (PKCS#10, RFC 2986), print them as `openssl x509 -text` does.
//! - [`cms`]: RFC 5652 SignedData and EnvelopedData, DER, PEM and S/MIME (RFC 8551).
//! - [`conf`]: OpenSSL's configuration files, whose sections `ca` and the X.509
//!   extension language read.
//! - [`ocsp`]: OCSP (RFC 6960): requests, responses as a CA's responder makes them, and
//!   their checks as a relying party makes them.
//! - [`pkcs12`]: PKCS#12 files (RFC 7292), a key and its certificates under a password:
//!   read, with OpenSSL 1.x's and 3's schemes, and written as OpenSSL writes them.
//! - [`ts`]: time stamps (RFC 3161): requests, a time-stamping authority's tokens (CMS
//!   SignedData over a TSTInfo, bound to the TSA's certificate by ESS attributes), and
//!   their checks, as `openssl ts` makes them.
//!
//! The ASN.1 structures and their DER come from RustCrypto's `x509-cert` and `cms` crates;
//! every RSA operation, digest and cipher is cryptocard's, so no second RSA implementation
//! enters a build.

#![deny(unsafe_code)]

pub mod asn1;
pub mod cert;
pub mod cms;
pub mod conf;
mod error;
pub mod ocsp;
pub mod pkcs12;
pub mod sig;
pub mod ts;

pub use error::{Error, Result};
