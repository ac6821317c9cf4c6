//! RSA (RFC 8017): keys, key generation, CRT private operations, PKCS#1 v1.5, OAEP, PSS.
