//! DES and triple-DES (FIPS 46-3), their modes of operation (FIPS 81, SP 800-38A), and the
//! FIPS 113 / ISO/IEC 9797-1 MACs.
