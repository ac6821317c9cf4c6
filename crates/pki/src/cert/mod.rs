//! Certificates (filled in next).
