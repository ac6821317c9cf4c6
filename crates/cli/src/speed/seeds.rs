//! `cryptocard speed --seeds`: the seed papers' headline figures beside what cryptocard
//! measures for the same operation on this machine, in the paper's own unit.
//!
//! | paper | where in it | figure |
//! |---|---|---|
//! | Dusse & Kaliski, "A cryptographic library for the Motorola DSP56000", EUROCRYPT '90 | section 6 | RSA-512 with CRT 11.6 Kbit/s ("private key" exponentiation; the OCR text in `shared/seeds` has lost the digit after the point: "11.K bits/s"), DES-CBC 350 Kbit/s for large blocks, MD2 190 Kbit/s |
//! | Shand, Bertin & Vuillemin, "Hardware speedups in long integer multiplication", 1990 | section 3, Table 1 "The RSA Story" | 226 Kbit/s (226,000 baud) RSA decryption with CRT, 508-bit modulus, host with three PAM boards |
//! | Tang, Tsui & Leong, "Modular exponentiation using parallel multipliers", FPT 2003 | abstract, Table 5 | 1024-bit RSA decryption with CRT in 0.66 ms, Xilinx XC2V3000-6 at 90 MHz |
//! | Markovic, Unkasevic & Djordjevic, "RSA algorithm optimization on assembler of TI TMS320C54x" | Table 5, conclusion | about 30 RSA-1024 private-key operations per second (31.48 ms with CRT at a 1.875 ns cycle) |
//!
//! Ours: the `decrypt` row of `rsa512` / `rsa1024` (one private-key operation with CRT:
//! the papers' "decryption" or "private key exponentiation"; Shand-Bertin-Vuillemin's
//! 508-bit modulus is compared with our 512-bit key), the `encrypt` row of `des-cbc`
//! over `-bytes` (8192 by default: the papers' "large blocks"), and the `md2` row. Kbit/s
//! count modulus bits per RSA operation, as the papers do, and 1000 bits per Kbit.

use super::measure::{Settings, measure_row};
use super::peers::PeerSet;
use super::registry;
use super::report::format_rate as figure;
use super::row::{Context, Who};
use crate::fail::CmdResult;
use std::fmt::Write as _;

/// The unit a paper states its figure in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// Thousands of bits per second (modulus bits per RSA operation; data bits otherwise).
    KbitPerS,
    /// Milliseconds per operation (lower is faster).
    Ms,
    /// Operations per second.
    OpsPerS,
}

impl Unit {
    fn label(self) -> &'static str {
        match self {
            Unit::KbitPerS => "Kbit/s",
            Unit::Ms => "ms/op",
            Unit::OpsPerS => "ops/s",
        }
    }

    /// The figure in this unit from an operation rate and the bits each operation counts.
    fn of_rate(self, ops_per_s: f64, bits_per_op: u64) -> f64 {
        match self {
            Unit::KbitPerS => ops_per_s * bits_per_op as f64 / 1000.0,
            Unit::Ms => 1000.0 / ops_per_s,
            Unit::OpsPerS => ops_per_s,
        }
    }

    /// How many times faster `ours` is than `paper`.
    fn speedup(self, ours: f64, paper: f64) -> f64 {
        if self == Unit::Ms { paper / ours } else { ours / paper }
    }
}

/// A speed-up for the "x paper" column: whole numbers from ten up, and otherwise the
/// significant digits of [`figure`], so that a run slower than the paper (a loaded
/// machine, a tiny `-seconds`) reads 0.40 rather than rounding to 0.
fn times(x: f64) -> String {
    if x >= 10.0 { format!("{x:.0}") } else { figure(x) }
}

/// One headline figure of a seed paper.
#[derive(Debug)]
struct Seed {
    cite: &'static str,
    platform: &'static str,
    what: &'static str,
    figure: f64,
    unit: Unit,
    /// Our row: algorithm and operation.
    alg: &'static str,
    op: &'static str,
}

const SEEDS: &[Seed] = &[
    Seed {
        cite: "Dusse-Kaliski 1990, sec. 6",
        platform: "Motorola DSP56000",
        what: "RSA-512 private op, CRT",
        figure: 11.6,
        unit: Unit::KbitPerS,
        alg: "rsa512",
        op: "decrypt",
    },
    Seed {
        cite: "Shand-Bertin-Vuillemin 1990, Table 1",
        platform: "host + 3 PAM boards",
        what: "RSA-508 decryption, CRT",
        figure: 226.0,
        unit: Unit::KbitPerS,
        alg: "rsa512",
        op: "decrypt",
    },
    Seed {
        cite: "Tang-Tsui-Leong 2003, Table 5",
        platform: "Xilinx XC2V3000 FPGA",
        what: "RSA-1024 decryption, CRT",
        figure: 0.66,
        unit: Unit::Ms,
        alg: "rsa1024",
        op: "decrypt",
    },
    Seed {
        cite: "Markovic et al., Table 5",
        platform: "TI TMS320C54x DSP",
        what: "RSA-1024 private op, CRT",
        figure: 30.0,
        unit: Unit::OpsPerS,
        alg: "rsa1024",
        op: "decrypt",
    },
    Seed {
        cite: "Dusse-Kaliski 1990, sec. 6",
        platform: "Motorola DSP56000",
        what: "DES-CBC, large blocks",
        figure: 350.0,
        unit: Unit::KbitPerS,
        alg: "des-cbc",
        op: "encrypt",
    },
    Seed {
        cite: "Dusse-Kaliski 1990, sec. 6",
        platform: "Motorola DSP56000",
        what: "MD2",
        figure: 190.0,
        unit: Unit::KbitPerS,
        alg: "md2",
        op: "digest",
    },
];

/// A measured row of ours: (operations per second, bits per operation), or why not.
type Measured = Result<(f64, u64), String>;

/// Measures our side of every seed row (each distinct row once) and prints the table.
pub fn run(seconds: f64, bytes: usize) -> CmdResult {
    let peers = PeerSet::default();
    let ctx = Context { peers: &peers, bytes, batch: None };
    let settings = Settings::new(seconds, 1);
    // (alg, op) -> (ops/s, bits per op), or why there is no figure.
    let mut measured: Vec<((&str, &str), Measured)> = Vec::new();
    for s in SEEDS {
        if measured.iter().any(|(k, _)| *k == (s.alg, s.op)) {
            continue;
        }
        let result = registry::rows(s.alg, &ctx).map_err(|f| f.to_string()).and_then(|rows| {
            let mut row = rows
                .into_iter()
                .find(|r| r.op == s.op)
                .ok_or_else(|| format!("no {} row", s.op))?;
            row.candidates.retain(|c| c.who == Who::Ours);
            if row.candidates.is_empty() {
                return Err("no cryptocard implementation yet".into());
            }
            let result = measure_row(&row, &settings, &mut |_| {});
            let totals = result.cells[0].clone()?;
            Ok((totals.rate(), row.bits_per_op))
        });
        if let Err(e) = &result {
            eprintln!("note: {} {}: {e}", s.alg, s.op);
        }
        measured.push(((s.alg, s.op), result));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "The seed papers' headline figures beside cryptocard {} on this machine \
         (one thread, {seconds} s per row, {bytes}-byte buffers for DES and MD2)",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        out,
        "{:<37} {:<21} {:<25} {:>7} {:>12} {:<6} {:>9}",
        "paper", "platform", "operation", "paper", "cryptocard", "unit", "x paper"
    );
    for s in SEEDS {
        let Some((_, result)) = measured.iter().find(|(k, _)| *k == (s.alg, s.op)) else {
            continue;
        };
        let (ours, times) = match result {
            Ok((rate, bits)) => {
                let v = s.unit.of_rate(*rate, *bits);
                (figure(v), times(s.unit.speedup(v, s.figure)))
            }
            Err(_) => ("n/a".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "{:<37} {:<21} {:<25} {:>7} {:>12} {:<6} {:>9}",
            s.cite,
            s.platform,
            s.what,
            figure(s.figure),
            ours,
            s.unit.label(),
            times
        );
    }
    crate::spec::print_text(&out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert_rates_and_speedups() {
        // 100 RSA-512 operations a second are 51.2 Kbit/s, 10 ms each.
        assert_eq!(Unit::KbitPerS.of_rate(100.0, 512), 51.2);
        assert_eq!(Unit::Ms.of_rate(100.0, 512), 10.0);
        assert_eq!(Unit::OpsPerS.of_rate(100.0, 512), 100.0);
        // Faster means a larger rate or a shorter time.
        assert_eq!(Unit::KbitPerS.speedup(20.0, 10.0), 2.0);
        assert_eq!(Unit::Ms.speedup(0.5, 1.0), 2.0);
    }

    #[test]
    fn speedups_below_one_keep_their_digits() {
        assert_eq!(times(819.4), "819");
        assert_eq!(times(7.04), "7.04");
        // 0.66 ms in the paper, 1.63 ms measured on a loaded CI machine.
        assert_eq!(times(0.66 / 1.63), "0.4049");
    }

    #[test]
    fn every_seed_names_a_registered_row() {
        for s in SEEDS {
            assert!(registry::NAMES.contains(&s.alg), "{}", s.alg);
            assert!(s.figure > 0.0);
        }
    }
}
