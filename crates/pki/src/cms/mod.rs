//! Cryptographic Message Syntax (RFC 5652): signatures and envelopes.
//!
//! PKCS#7 v1.5 (RFC 2315) is CMS's version 1 subset, so the same code reads and writes
//! what `openssl smime` (PKCS#7) and `openssl cms` make:
//!
//! - [`sign`] / [`sign_many`] make SignedData (RFC 5652 section 5): each signer's digest of
//!   the content inside signed attributes (content type, message digest, signing time,
//!   S/MIME capabilities; section 5.3), signed with PKCS#1 v1.5 or RSASSA-PSS (RFC 4056).
//!   [`sign_many`] signs a slice of contents with one key through the engine, and
//!   [`sign_batch`] on the calling thread, so that their RSA operations batch.
//! - [`verify`] checks every signer: its certificate's chain to a trusted root, the message
//!   digest attribute against the content, and the signature (section 5.6).
//! - [`encrypt`] / [`decrypt`] make and open EnvelopedData (section 6) with RSA key
//!   transport (section 6.2.1: PKCS#1 v1.5, or RSAES-OAEP per RFC 3560) and DES-CBC,
//!   DES-EDE3-CBC or AES-CBC content encryption (RFC 3370 section 5.1, RFC 3565).
//!   PKCS#1 v1.5 key transport decrypts with implicit rejection, and any key-transport
//!   failure continues with a random key, so a decryption service is no Bleichenbacher
//!   oracle (RFC 3218 section 2.3).
//! - [`smime`] reads and writes the S/MIME forms (RFC 8551 section 3).
//!
//! Content is bytes; OpenSSL's text mode (lines ending CRLF before signing or encryption)
//! is [`canonical_text`].

mod canon;
mod certs_only;
mod content;
mod content_cipher;
mod enveloped;
mod ident;
mod keytrans;
mod raw_set;
mod signed;
pub mod smime;
mod verify;

pub use canon::{add_text_header, canonical_text, strip_text_header};
pub use certs_only::{MAX_CERTS_ONLY, certs_and_crls, certs_only};
pub use content::{Format, Kind, kind_of, read, write};
pub use content_cipher::ContentCipher;
pub use enveloped::{MAX_TRIED_RECIPIENTS, Recipient, decrypt, encrypt};
pub use keytrans::KeyTransport;
pub use signed::{SignOptions, Signer, sign, sign_batch, sign_many};
pub use verify::{CrlCheck, MAX_CERTIFICATES, MAX_SIGNERS, Verified, VerifyOptions, verify};
pub(crate) use verify::{parse_signed, verify_for};
