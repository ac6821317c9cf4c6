//! Signature algorithms (filled in next).
