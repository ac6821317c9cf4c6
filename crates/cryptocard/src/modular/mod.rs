//! Modular arithmetic: `Modulus`, Montgomery multiplication and reduction, constant-time
//! and variable-time exponentiation, and Garner CRT recombination.
