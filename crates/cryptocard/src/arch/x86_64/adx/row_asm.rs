//! Assembly text for one row of products, shared by every kernel in this folder.
//!
//! A row adds `rdx * X[0..len]` into `T[0..len]` (Kaliski's operand scanning, one digit of
//! the multiplier against the whole multiplicand). Product `j` gives
//! `(h_j, l_j) = rdx * X[j]` by `mulx`, and the row is the sum of two shifted vectors, so
//! each gets its own carry chain:
//!
//! ```text
//! T[j] <- T[j] + l_j      + CF    (adcx: the CF chain)
//! T[j] <- T[j] + h_{j-1}  + OF    (adox: the OF chain)
//! ```
//!
//! Both chains run in parallel (an `adcx` and an `adox` can retire together, where two
//! dependent `adc`s serialise on `CF`). The high half alternates between `{h0}` and `{h1}` so that
//! `h_{j-1}` is still there when `h_j` is written; on entry `{h1}` is the "previous high
//! half" (0 at the start of a row) and on exit `{h1}` holds `h_{len-1}`, with both flags
//! still pending. The carry out of the row, `h_{len-1} + CF + OF`, cannot overflow a limb:
//! `T + rdx * X < 2^(64 len) + (2^64 - 1)(2^(64 len) - 1) < 2^(64 (len + 1))`.
//!
//! The macros expand to string literals for `asm!` templates. The operands they name are
//! `{x}` (multiplicand), `{t}` (accumulator), `{lo}`, `{h0}`, `{h1}` (scratch), and in the
//! loop form `rcx` (the trip count); `rdx` holds the multiplier digit. Only flag-neutral
//! instructions (`mov`, `lea`, `jrcxz`, `jmp`) may sit between two steps of a row, since
//! both chains live in the flags. The unrolled forms count with the assembler symbols
//! `ccj` (limb) and `ccr` (row), redefined with `.set` wherever they are used.

/// One product of an accumulating row: `T[j] += lo(rdx * X[j]) + h_prev`, leaving `h_j`
/// in `$hn`. `$off` is the byte displacement of limb `j` from `{x}` and from `{t}`.
macro_rules! addmul_step {
    ($off:expr, $hn:literal, $hp:literal) => {
        concat!(
            concat!("mulx {", $hn, "}, {lo}, qword ptr [{x} + ", $off, "]\n"),
            concat!("adcx {lo}, qword ptr [{t} + ", $off, "]\n"),
            concat!("adox {lo}, {", $hp, "}\n"),
            concat!("mov qword ptr [{t} + ", $off, "], {lo}\n"),
        )
    };
}

/// One product of a shifting row (Montgomery CIOS): like `addmul_step`, but the sum is
/// stored one limb lower, `T[j - 1] = T[j] + lo(rdx * X[j]) + h_prev`, which divides the
/// accumulator by 2^64 as it goes.
macro_rules! addmul_shift_step {
    ($off:expr, $hn:literal, $hp:literal) => {
        concat!(
            concat!("mulx {", $hn, "}, {lo}, qword ptr [{x} + ", $off, "]\n"),
            concat!("adcx {lo}, qword ptr [{t} + ", $off, "]\n"),
            concat!("adox {lo}, {", $hp, "}\n"),
            concat!("mov qword ptr [{t} + ", $off, " - 8], {lo}\n"),
        )
    };
}

/// One product of a row that writes a fresh `T` (GMP's `mul_1`):
/// `T[j] = lo(rdx * X[j]) + h_prev + CF`. Only the CF chain is used; OF stays clear.
macro_rules! mul1_step {
    ($off:expr, $hn:literal, $hp:literal) => {
        concat!(
            concat!("mulx {", $hn, "}, {lo}, qword ptr [{x} + ", $off, "]\n"),
            concat!("adcx {lo}, {", $hp, "}\n"),
            concat!("mov qword ptr [{t} + ", $off, "], {lo}\n"),
        )
    };
}

/// A whole row whose length is known only at run time, eight steps per loop trip. On
/// entry: `rdx` is the multiplier, `{x}` and `{t}` point at the row's first limb, `rcx` is
/// the row length (at least 1). On exit `{x}` and `{t}` point one past the row, `{h1}` is
/// the last high half with CF and OF pending. Clears `{h1}` and the flags first; see
/// `row_loop8_from_h1`.
macro_rules! row_loop8 {
    ($step:ident) => {
        concat!(
            "xor {h1:e}, {h1:e}\n",
            $crate::arch::x86_64::adx::row_asm::row_loop8_from_h1!($step),
        )
    };
}

/// `row_loop8` with `{h1}` as the high half carried into the first step (instead of 0),
/// e.g. a step done outside the loop. The flags need not be clear: the entry stub clears
/// them.
///
/// The first trip enters the unrolled body part-way (Duff's device): the pointers are
/// moved back by the `s = -len mod 8` skipped slots and a three-level branch tree on `s`
/// picks the entry, through a stub that clears the flags (`xor {lo}`); `{h0}` gets a copy
/// of `{h1}`, so whichever of the two the entry step reads as "previous high half" is
/// right. Addresses are base plus constant displacement only: a `mulx` or `adcx` with an
/// indexed memory operand makes the row markedly slower (`crates/bench`, `adx`). The loop counts
/// with `lea` and exits with `jrcxz`, so the flags survive it. Branches depend only on the
/// length. Uses local labels 30 to 49.
macro_rules! row_loop8_from_h1 {
    ($step:ident) => {
        concat!(
            "mov {lo}, rcx\n",
            "neg {lo}\n",
            "and {lo:e}, 7\n",
            "add rcx, 7\n",
            "shr rcx, 3\n",
            "lea {h0}, [{lo}*8]\n",
            "sub {x}, {h0}\n",
            "sub {t}, {h0}\n",
            "mov {h0}, {h1}\n",
            "test {lo:e}, 4\n",
            "jnz 34f\n",
            "test {lo:e}, 2\n",
            "jnz 32f\n",
            "test {lo:e}, 1\n",
            "jnz 31f\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 40f\n",
            "31:\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 41f\n",
            "32:\n",
            "test {lo:e}, 1\n",
            "jnz 33f\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 42f\n",
            "33:\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 43f\n",
            "34:\n",
            "test {lo:e}, 2\n",
            "jnz 36f\n",
            "test {lo:e}, 1\n",
            "jnz 35f\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 44f\n",
            "35:\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 45f\n",
            "36:\n",
            "test {lo:e}, 1\n",
            "jnz 37f\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 46f\n",
            "37:\n",
            "xor {lo:e}, {lo:e}\n",
            "jmp 47f\n",
            "40:\n",
            $step!("0", "h0", "h1"),
            "41:\n",
            $step!("8", "h1", "h0"),
            "42:\n",
            $step!("16", "h0", "h1"),
            "43:\n",
            $step!("24", "h1", "h0"),
            "44:\n",
            $step!("32", "h0", "h1"),
            "45:\n",
            $step!("40", "h1", "h0"),
            "46:\n",
            $step!("48", "h0", "h1"),
            "47:\n",
            $step!("56", "h1", "h0"),
            "lea {x}, [{x} + 64]\n",
            "lea {t}, [{t} + 64]\n",
            "lea rcx, [rcx - 1]\n",
            "jrcxz 49f\n",
            "jmp 40b\n",
            "49:\n",
        )
    };
}

/// A whole row of compile-time length `2 * {half}`, fully unrolled by the assembler
/// (`.rept`). On entry `rdx` is the multiplier and `{x}`, `{t}` point at limb 0. Clears
/// the flags and `{h1}` itself; on exit as `row_loop`. Uses the assembler symbol `ccj`.
macro_rules! row_unrolled {
    ($step:ident) => {
        concat!(
            "xor {h1:e}, {h1:e}\n",
            ".set ccj, 0\n",
            ".rept {half}\n",
            $step!("8*ccj", "h0", "h1"),
            $step!("8*ccj + 8", "h1", "h0"),
            ".set ccj, ccj + 2\n",
            ".endr\n",
        )
    };
}

/// A whole row of compile-time length `$len` (an assembler expression, may be odd or
/// zero), fully unrolled; otherwise as `row_unrolled`. Uses the assembler symbol `ccj`.
macro_rules! row_unrolled_len {
    ($step:ident, $len:literal) => {
        concat!(
            "xor {h1:e}, {h1:e}\n",
            ".set ccj, 0\n",
            ".rept (",
            $len,
            ") / 2\n",
            $step!("8*ccj", "h0", "h1"),
            $step!("8*ccj + 8", "h1", "h0"),
            ".set ccj, ccj + 2\n",
            ".endr\n",
            ".if (",
            $len,
            ") & 1\n",
            $step!("8*ccj", "h0", "h1"),
            "mov {h1}, {h0}\n",
            ".endif\n",
        )
    };
}

/// Ends a row: `{h1} += CF + OF` (the row's carry-out limb; no overflow, see above).
macro_rules! row_carry_out {
    () => {
        concat!("mov {lo:e}, 0\n", "adcx {h1}, {lo}\n", "adox {h1}, {lo}\n")
    };
}

pub(super) use {
    addmul_shift_step, addmul_step, mul1_step, row_carry_out, row_loop8, row_loop8_from_h1,
    row_unrolled, row_unrolled_len,
};
