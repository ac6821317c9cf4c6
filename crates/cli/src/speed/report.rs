//! Output of `speed`: an aligned table (the default), JSON lines (`--json`) or colon
//! lines (`-mr`), one row as soon as it is measured.
//!
//! Table: one line per (algorithm, operation); a column for ours, then for each peer its
//! rate and the ratio ours / peer (above 1: cryptocard is faster). Rates are operations
//! per second, or MB/s (10^6 bytes) for byte-oriented algorithms; the ratio is the same
//! either way. A row whose ours is batched says `batch N` after the operation.
//!
//! JSON: one object per implementation and row:
//! `{"alg":"modexp2048","op":"modexp","impl":"gmp","version":"6.3.0","origin":"bundled",
//! "ops_per_s":..,"bits_per_s":..,"seconds":..}`, plus `"bytes_per_s"` for byte-oriented
//! algorithms, `"batch":N` for batched rows and `"multi":N` under `-multi`.
//!
//! `-mr`: `+F:alg:op:impl:version:origin:ops_per_s:bits_per_s` per implementation and row.

use super::measure::{RowResult, Totals};
use super::row::{Candidate, Row, Who};
use compare::PeerInfo;
use serde_json::{Map, Value, json};

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned table on stdout.
    Table,
    /// One JSON object per line.
    Json,
    /// Colon-separated lines.
    MachineReadable,
}

/// Our name and version in every format.
const OURS: &str = "cryptocard";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Writes rows in one format; the table's columns are fixed at creation from all rows.
#[derive(Debug)]
pub struct Report {
    format: Format,
    multi: Option<usize>,
    peers: Vec<PeerInfo>,
    alg_w: usize,
    op_w: usize,
    rate_w: Vec<usize>,
}

/// Widths of a rate cell, a ratio cell and the unit column.
const RATE_W: usize = 12;
const RATIO_W: usize = 8;
const UNIT_W: usize = 5;

/// Width of our column: a rate, or our name and version if longer.
fn ours_w() -> usize {
    RATE_W.max(OURS.len() + 1 + VERSION.len())
}

impl Report {
    /// A report over `rows`, whose peer columns are the peers that appear in them.
    pub fn new(
        format: Format,
        multi: Option<usize>,
        rows: &[Row],
        all_peers: &[PeerInfo],
    ) -> Report {
        let used = |p: &PeerInfo| {
            rows.iter().any(|r| r.candidates.iter().any(|c| c.who == Who::Peer(p.clone())))
        };
        let peers: Vec<PeerInfo> = all_peers.iter().filter(|p| used(p)).cloned().collect();
        let alg_w = rows.iter().map(|r| r.alg.len()).max().unwrap_or(3).max(3);
        let op_w = rows.iter().map(|r| op_label(r).len()).max().unwrap_or(2).max(2);
        let rate_w = peers.iter().map(|p| p.to_string().len().max(RATE_W + RATIO_W + 1)).collect();
        Report { format, multi, peers, alg_w, op_w, rate_w }
    }

    /// The table's two header lines (nothing in the other formats).
    pub fn header(&self) -> Option<String> {
        if self.format != Format::Table {
            return None;
        }
        let lead = self.alg_w + 2 + self.op_w + 2 + UNIT_W;
        let mut top = format!("{:lead$} {:>ow$}", "", format!("{OURS} {VERSION}"), ow = ours_w());
        let mut sub = format!(
            "{:<aw$}  {:<ow$}  {:<UNIT_W$} {:>rw$}",
            "alg",
            "op",
            "unit",
            "rate",
            aw = self.alg_w,
            ow = self.op_w,
            rw = ours_w()
        );
        for (p, &w) in self.peers.iter().zip(&self.rate_w) {
            top.push_str(&format!("  {:>w$}", p.to_string()));
            sub.push_str(&format!("  {:>rw$} {:>RATIO_W$}", "rate", "ratio", rw = w - RATIO_W - 1));
        }
        Some(format!("{top}\n{sub}"))
    }

    /// The output lines for one measured row.
    pub fn row(&self, row: &Row, result: &RowResult) -> Vec<String> {
        let cells: Vec<(&Candidate, &Result<Totals, String>)> =
            row.candidates.iter().zip(&result.cells).collect();
        match self.format {
            Format::Table => vec![self.table_line(row, &cells)],
            Format::Json => cells
                .iter()
                .filter_map(|(c, r)| r.as_ref().ok().map(|t| self.json(row, c, t).to_string()))
                .collect(),
            Format::MachineReadable => cells
                .iter()
                .filter_map(|(c, r)| {
                    let t = r.as_ref().ok()?;
                    let (name, version, origin) = identity(&c.who);
                    Some(format!(
                        "+F:{}:{}:{name}:{version}:{origin}:{:.3}:{:.0}",
                        row.alg,
                        row.op,
                        t.rate(),
                        t.rate() * row.bits_per_op as f64
                    ))
                })
                .collect(),
        }
    }

    fn table_line(&self, row: &Row, cells: &[(&Candidate, &Result<Totals, String>)]) -> String {
        let unit = if row.bytes_per_op.is_some() { "MB/s" } else { "ops/s" };
        let shown = |t: &Totals| match row.bytes_per_op {
            Some(b) => format_rate(t.rate() * b as f64 / 1e6),
            None => format_rate(t.rate()),
        };
        let ours = cells.iter().find(|(c, _)| c.who == Who::Ours);
        let ours_rate = ours.and_then(|(_, r)| r.as_ref().ok()).map(Totals::rate);
        let ours_cell = match ours {
            None => "n/a".to_string(),
            Some((_, Ok(t))) => shown(t),
            Some((_, Err(_))) => "error".to_string(),
        };
        let mut line = format!(
            "{:<aw$}  {:<ow$}  {unit:<UNIT_W$} {ours_cell:>rw$}",
            row.alg,
            op_label(row),
            aw = self.alg_w,
            ow = self.op_w,
            rw = ours_w()
        );
        for (p, &w) in self.peers.iter().zip(&self.rate_w) {
            let cell = cells.iter().find(|(c, _)| c.who == Who::Peer(p.clone()));
            let (rate, ratio) = match cell {
                None => ("-".to_string(), String::new()),
                Some((_, Err(_))) => ("error".to_string(), String::new()),
                Some((_, Ok(t))) => {
                    let ratio = ours_rate
                        .filter(|_| t.rate() > 0.0)
                        .map(|o| format!("{:.2}", o / t.rate()));
                    (shown(t), ratio.unwrap_or_default())
                }
            };
            line.push_str(&format!("  {rate:>rw$} {ratio:>RATIO_W$}", rw = w - RATIO_W - 1));
        }
        line
    }

    fn json(&self, row: &Row, c: &Candidate, t: &Totals) -> Value {
        let rate = t.rate();
        let mut m = Map::new();
        m.insert("alg".into(), json!(row.alg));
        m.insert("op".into(), json!(row.op));
        identify(&mut m, &c.who);
        m.insert("ops_per_s".into(), json!(rate));
        m.insert("bits_per_s".into(), json!(rate * row.bits_per_op as f64));
        if let Some(b) = row.bytes_per_op {
            m.insert("bytes_per_s".into(), json!(rate * b as f64));
        }
        if let Some(n) = c.batch {
            m.insert("batch".into(), json!(n));
        }
        if let Some(n) = self.multi {
            m.insert("multi".into(), json!(n));
        }
        m.insert("seconds".into(), json!(t.secs));
        Value::Object(m)
    }
}

/// The table's operation cell: the operation, and `batch N` when our candidate is batched
/// (its rate then counts every operation of every batch; the peers' stay single).
fn op_label(row: &Row) -> String {
    match row.candidates.iter().find(|c| c.who == Who::Ours).and_then(|c| c.batch) {
        Some(n) => format!("{} batch {n}", row.op),
        None => row.op.to_string(),
    }
}

/// (impl, version, origin) of a candidate.
pub fn identity(who: &Who) -> (&str, &str, &str) {
    match who {
        Who::Ours => (OURS, VERSION, "ours"),
        Who::Peer(p) => (p.id, &p.version, p.origin.as_str()),
    }
}

/// A candidate's column title: "cryptocard 0.1.0", "OpenSSL 4.0.3 (vendored)".
pub fn label(who: &Who) -> String {
    match who {
        Who::Ours => format!("{OURS} {VERSION}"),
        Who::Peer(p) => p.to_string(),
    }
}

/// Adds a JSON row's `impl`, `version` and, for a peer, `origin`.
pub fn identify(m: &mut Map<String, Value>, who: &Who) {
    let (name, version, origin) = identity(who);
    m.insert("impl".into(), json!(name));
    m.insert("version".into(), json!(version));
    if *who != Who::Ours {
        m.insert("origin".into(), json!(origin));
    }
}

/// Four significant figures or so, without exponents: 1234567, 1234.6, 12.35, 0.1235.
pub fn format_rate(x: f64) -> String {
    match x {
        x if x >= 10_000.0 => format!("{x:.0}"),
        x if x >= 100.0 => format!("{x:.1}"),
        x if x >= 1.0 => format!("{x:.2}"),
        x => format!("{x:.4}"),
    }
}

/// The CPU's model name, for the headers of `--tls` and `-backend gpu`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.to_string()))
        .and_then(|l| l.split_once(':').map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into())
}
