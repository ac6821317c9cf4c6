//! The constant-time validation of cryptocard under valgrind's memcheck: the test is
//! `tests/ct_valgrind.rs`, built with the `ct-validation` feature in the `ctgrind`
//! profile and run by `scripts/ct-valgrind`. This library is empty; the package exists
//! so that building that test builds the library and nothing of its other tests.
