//! A small SVG line chart for `speed --engine`, `--tls` and `-backend gpu`: throughput
//! and latency against concurrency (or the batch size), one line per implementation.
//! Hand-written SVG (no plotting dependency): two panels side by side, a log2 axis of
//! callers or requests, a linear throughput axis and a log10 latency axis (p50 solid,
//! p99 dashed).

use crate::io::{Mode, Output};
use std::fmt::Write as _;

/// One implementation's measured points.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    /// (concurrency or batch size, ops/s, p50 µs, p99 µs), the first increasing.
    pub points: Vec<(usize, f64, f64, f64)>,
}

const W: f64 = 980.0;
const H: f64 = 420.0;
const PANEL_W: f64 = 400.0;
const PANEL_H: f64 = 280.0;
const TOP: f64 = 50.0;
const LEFTS: [f64; 2] = [80.0, 560.0];
const COLORS: [&str; 5] = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];

/// The chart as an SVG document.
pub fn svg(title: &str, x_label: &str, series: &[Series]) -> String {
    let conc: Vec<usize> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    let (cmin, cmax) = (
        conc.iter().copied().min().unwrap_or(1).max(1) as f64,
        conc.iter().copied().max().unwrap_or(2).max(2) as f64,
    );
    let x_of = |left: f64, c: usize| {
        left + PANEL_W * ((c as f64).log2() - cmin.log2()) / (cmax.log2() - cmin.log2()).max(1e-9)
    };
    let tmax =
        nice_ceil(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0, f64::max));
    // A series without latencies (0: a rate measured otherwise) gets a throughput line only.
    let lats =
        series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.2, p.3])).filter(|&v| v > 0.0);
    let (lmin, lmax) = lats.fold((f64::MAX, 1.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (dmin, dmax) =
        (lmin.max(1.0).log10().floor(), lmax.log10().ceil().max(lmin.log10().floor() + 1.0));
    let yt = |v: f64| TOP + PANEL_H * (1.0 - v / tmax);
    let yl = |v: f64| TOP + PANEL_H * (1.0 - (v.max(1.0).log10() - dmin) / (dmax - dmin));

    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"#,
        W / 2.0,
        escape(title)
    );
    for (k, &left) in LEFTS.iter().enumerate() {
        let name = if k == 0 {
            "throughput (ops/s)"
        } else {
            "latency (µs, log scale): p50 solid, p99 dashed"
        };
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{TOP}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#444"/>
<text x="{}" y="{}" text-anchor="middle">{name}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>"##,
            left + PANEL_W / 2.0,
            TOP - 8.0,
            left + PANEL_W / 2.0,
            TOP + PANEL_H + 34.0,
            escape(x_label)
        );
        let mut c = 1usize;
        while c as f64 <= cmax {
            if c as f64 >= cmin {
                let x = x_of(left, c);
                let _ = writeln!(
                    s,
                    r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{c}</text>"##,
                    TOP,
                    TOP + PANEL_H,
                    TOP + PANEL_H + 16.0
                );
            }
            c *= 2;
        }
    }
    for i in 0..=5 {
        let v = tmax * i as f64 / 5.0;
        let y = yt(v);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{v:.0}</text>"##,
            LEFTS[0],
            LEFTS[0] + PANEL_W,
            LEFTS[0] - 6.0,
            y + 4.0
        );
    }
    let mut d = dmin;
    while d <= dmax {
        let y = yl(10f64.powf(d));
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFTS[1],
            LEFTS[1] + PANEL_W,
            LEFTS[1] - 6.0,
            y + 4.0,
            10f64.powf(d)
        );
        d += 1.0;
    }
    for (k, ser) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let line = |pts: Vec<(f64, f64)>, dash: &str| {
            let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            format!(
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
                p.join(" ")
            )
        };
        let thr = ser.points.iter().map(|p| (x_of(LEFTS[0], p.0), yt(p.1))).collect();
        let timed = ser.points.iter().filter(|p| p.2 > 0.0);
        let p50: Vec<_> = timed.clone().map(|p| (x_of(LEFTS[1], p.0), yl(p.2))).collect();
        let p99: Vec<_> = timed.map(|p| (x_of(LEFTS[1], p.0), yl(p.3))).collect();
        let _ = writeln!(s, "{}", line(thr, ""));
        if !p50.is_empty() {
            let _ = writeln!(s, "{}", line(p50, ""));
            let _ = writeln!(s, "{}", line(p99, r#" stroke-dasharray="5,4""#));
        }
        let y = H - 40.0 + 16.0 * (k / 3) as f64;
        let x = LEFTS[0] + 300.0 * (k % 3) as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            x + 24.0,
            x + 30.0,
            y + 4.0,
            escape(&ser.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Writes the plot to `path` whole or not at all (`--engine`'s, `--tls`'s and
/// `-backend gpu`'s).
pub fn write(path: &str, title: &str, x_label: &str, series: &[Series]) -> Result<(), String> {
    let mut file = Output::create(Some(path), Mode::Public).map_err(|f| f.to_string())?;
    file.put(svg(title, x_label, series).as_bytes()).map_err(|f| f.to_string())?;
    file.commit().map_err(|f| f.to_string())?;
    eprintln!("plot written to {path}");
    Ok(())
}

/// The smallest 1, 2 or 5 times a power of ten at or above `v`.
fn nice_ceil(v: f64) -> f64 {
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|&c| c >= v).unwrap_or(10.0 * p)
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice_ceil(3960.0), 5000.0);
        assert_eq!(nice_ceil(1000.0), 1000.0);
        assert_eq!(nice_ceil(1001.0), 2000.0);
    }

    #[test]
    fn one_polyline_per_curve_and_a_legend_entry_per_series() {
        let a = Series {
            label: "ours <engine>".into(),
            points: vec![(1, 100.0, 10.0, 20.0), (64, 900.0, 500.0, 900.0)],
        };
        let b = Series {
            label: "peer".into(),
            points: vec![(1, 80.0, 12.0, 30.0), (64, 160.0, 4000.0, 9000.0)],
        };
        let cpu = Series {
            label: "cpu".into(),
            points: vec![(1, 500.0, 0.0, 0.0), (64, 500.0, 0.0, 0.0)],
        };
        let doc = svg("t", "callers", &[a, b, cpu]);
        assert!(doc.starts_with("<svg") && doc.ends_with("</svg>\n"));
        assert_eq!(doc.matches("<polyline").count(), 7, "no latency lines for the rate only");
        assert!(doc.contains(">callers</text>"));
        assert!(doc.contains("ours &lt;engine&gt;") && doc.contains(">peer</text>"));
        assert!(!doc.contains("NaN") && !doc.contains("inf"));
    }
}
