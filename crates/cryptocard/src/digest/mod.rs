//! Message digests: MD2, MD4, MD5, SHA-1, SHA-2, and HMAC over each of them.
