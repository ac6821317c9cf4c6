//! The accelerator engine: a bounded queue, a batcher that fills AVX-512 IFMA lanes, and a
//! worker pool, for RSA private-key operations submitted by many callers.
