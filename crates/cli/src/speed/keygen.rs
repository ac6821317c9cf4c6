//! `cryptocard speed keygenN`: RSA key generation, ours against OpenSSL's, key by key.
//!
//! The time to generate a key is a random variable (it is dominated by how many
//! candidates the prime search tests before it finds two primes), so a rate over a fixed
//! time says little; what users feel is the distribution. Each implementation generates
//! `-keys` keys (20 by default) of N bits with e = 65537, interleaved one key at a time
//! (the order rotates every round, so no implementation always runs first), and the row
//! reports the median, mean, standard deviation, minimum and maximum in milliseconds. The
//! ratio is the peer's median over ours (above 1: cryptocard is faster). Every generated
//! key is checked to have the requested size, so a broken generator cannot look fast.
//!
//! JSON: `{"alg":"keygen2048","op":"keygen","impl":..,"version":..,"keys":20,
//! "median_ms":..,"mean_ms":..,"sd_ms":..,"min_ms":..,"max_ms":..,"ops_per_s":..}`
//! (`ops_per_s` is 1000 / mean, the long-run rate).

use super::peers::PeerSet;
use super::report::{Format, format_rate, identify, identity, label};
use super::row::Who;
use crate::fail::{CmdResult, Fail};
#[cfg(feature = "peers")]
use compare::openssl::Openssl;
use cryptocard::rsa::RsaPrivateKey;
use serde_json::{Value, json};
use std::io::Write;
use std::time::Instant;

/// Keys per implementation unless `-keys` says otherwise (issue 3 asks for at least 20).
pub const DEFAULT_KEYS: usize = 20;

/// The key size of a `keygenN` algorithm name, if it is one.
pub fn bits_of(alg: &str) -> Option<CmdResult<usize>> {
    let n = alg.strip_prefix("keygen")?;
    Some(match n.parse::<usize>() {
        Ok(b) if (1024..=16384).contains(&b) && b % 64 == 0 => Ok(b),
        _ => Err(Fail::msg(format!("{alg}: key size must be a multiple of 64 from 1024 to 16384"))),
    })
}

/// One implementation's key generator.
struct Generator {
    who: Who,
    run: Box<dyn Fn(usize) -> Result<(), String>>,
}

fn ours() -> Generator {
    Generator {
        who: Who::Ours,
        run: Box::new(|bits| {
            let key = RsaPrivateKey::generate(bits, &mut cryptocard::rng::OsRng)
                .map_err(|e| e.to_string())?;
            check_size(key.bits(), bits)
        }),
    }
}

#[cfg(feature = "peers")]
fn openssl(lib: &'static Openssl) -> Generator {
    Generator {
        who: Who::Peer(lib.info().clone()),
        run: Box::new(move |bits| {
            let key = lib.rsa_generate(bits as u32).map_err(|e| e.to_string())?;
            check_size(key.bits(), bits)
        }),
    }
}

fn check_size(got: usize, want: usize) -> Result<(), String> {
    if got == want { Ok(()) } else { Err(format!("generated a {got}-bit key, not {want}")) }
}

/// Order statistics of one implementation's times, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// The summary of a non-empty sample (sample standard deviation, n - 1).
    pub fn of(times: &[f64]) -> Summary {
        let mut v = times.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Summary { median, mean, sd: var.sqrt(), min: v[0], max: v[n - 1] }
    }
}

/// Measures every `keygenN` in `sizes` for ours and the selected OpenSSL copies.
pub fn run(sizes: &[usize], keys: usize, peers: &PeerSet, format: Format) -> CmdResult {
    let mut gens = vec![ours()];
    #[cfg(feature = "peers")]
    gens.extend(peers.openssl.iter().map(|&lib| openssl(lib)));
    let mut out = std::io::stdout().lock();
    for &bits in sizes {
        let alg = format!("keygen{bits}");
        let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(keys); gens.len()];
        for round in 0..keys {
            for k in 0..gens.len() {
                let g = (round + k) % gens.len();
                let start = Instant::now();
                if let Err(e) = (gens[g].run)(bits) {
                    return Err(Fail::msg(format!("{alg}: {}: {e}", label(&gens[g].who))));
                }
                times[g].push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
        let sums: Vec<Summary> = times.iter().map(|t| Summary::of(t)).collect();
        let lines = match format {
            Format::Table => table(&alg, keys, &gens, &sums),
            Format::Json => json_lines(&alg, keys, &gens, &sums),
            Format::MachineReadable => gens
                .iter()
                .zip(&sums)
                .map(|(g, s)| {
                    let (name, version, origin) = identity(&g.who);
                    format!(
                        "+K:{alg}:{name}:{version}:{origin}:{keys}:{:.3}:{:.3}",
                        s.median, s.mean
                    )
                })
                .collect(),
        };
        for line in lines {
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                return Ok(()); // stdout closed (piped into `head`): stop quietly
            }
        }
    }
    Ok(())
}

fn table(alg: &str, keys: usize, gens: &[Generator], sums: &[Summary]) -> Vec<String> {
    let labels: Vec<String> = gens.iter().map(|g| label(&g.who)).collect();
    let w = labels.iter().map(String::len).max().unwrap_or(10).max(10);
    let mut v = vec![format!(
        "{alg}: {keys} keys each, e = 65537, interleaved; times in ms; ratio = peer median / ours"
    )];
    v.push(format!(
        "  {:<w$} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "implementation", "median", "mean", "sd", "min", "max", "ratio"
    ));
    for ((g, s), l) in gens.iter().zip(sums).zip(&labels) {
        let ratio = if g.who == Who::Ours {
            String::new()
        } else {
            format!("{:.2}", s.median / sums[0].median)
        };
        v.push(format!(
            "  {:<w$} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
            l,
            format_rate(s.median),
            format_rate(s.mean),
            format_rate(s.sd),
            format_rate(s.min),
            format_rate(s.max),
            ratio
        ));
    }
    v
}

fn json_lines(alg: &str, keys: usize, gens: &[Generator], sums: &[Summary]) -> Vec<String> {
    gens.iter()
        .zip(sums)
        .map(|(g, s)| {
            let mut o = json!({
                "alg": alg, "op": "keygen", "keys": keys,
                "median_ms": s.median, "mean_ms": s.mean, "sd_ms": s.sd,
                "min_ms": s.min, "max_ms": s.max, "ops_per_s": 1000.0 / s.mean,
            });
            if let Value::Object(m) = &mut o {
                identify(m, &g.who);
            }
            o.to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(bits_of("keygen2048"), Some(Ok(2048)));
        assert!(matches!(bits_of("keygen512"), Some(Err(_))));
        assert!(matches!(bits_of("keygen2050"), Some(Err(_))));
        assert!(matches!(bits_of("keygenx"), Some(Err(_))));
        assert_eq!(bits_of("rsa2048"), None);
    }

    #[test]
    fn summary_statistics() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.median, s.mean, s.min, s.max), (2.5, 2.5, 1.0, 4.0));
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let s = Summary::of(&[7.0, 1.0, 5.0]);
        assert_eq!((s.median, s.sd > 0.0), (5.0, true));
        assert_eq!(Summary::of(&[3.0]).sd, 0.0);
    }
}
