//! `cryptocard speed` end to end: the binary run as a user would, with tiny `-seconds` so
//! the suite stays fast. Nothing here asserts how fast anything is.

use assert_cmd::Command;
use serde_json::Value;
use std::time::Instant;

fn speed(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("cryptocard").unwrap().arg("speed").args(args).output().unwrap()
}

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Equal up to floating-point rounding.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn json_rows_carry_the_schema() {
    let out = speed(&[
        "mul1024",
        "modexp512",
        "md5",
        "-seconds",
        "0.02",
        "-bytes",
        "1024",
        "--compare",
        "openssl,gmp",
        "--json",
    ]);
    let rows = json_lines(&out);
    let mut seen = std::collections::HashSet::new();
    for r in &rows {
        let (alg, imp) = (r["alg"].as_str().unwrap(), r["impl"].as_str().unwrap());
        seen.insert((alg.to_string(), imp.to_string()));
        assert!(r["op"].is_string() && r["version"].is_string(), "{r}");
        assert!(num(r, "ops_per_s") > 0.0 && num(r, "bits_per_s") > 0.0, "{r}");
        assert!(num(r, "seconds") >= 0.02, "{r}");
        assert!(r.get("multi").is_none() && r.get("batch").is_none(), "{r}");
        if alg == "md5" {
            assert!(close(num(r, "bytes_per_s"), num(r, "ops_per_s") * 1024.0), "{r}");
            assert!(close(num(r, "bits_per_s"), num(r, "bytes_per_s") * 8.0), "{r}");
        } else {
            assert!(r.get("bytes_per_s").is_none(), "{r}");
        }
        if alg == "mul1024" {
            assert!(close(num(r, "bits_per_s"), num(r, "ops_per_s") * 1024.0), "{r}");
        }
        if imp != "cryptocard" {
            assert!(matches!(r["origin"].as_str(), Some("vendored" | "bundled" | "system")), "{r}");
        }
    }
    for want in [
        ("mul1024", "cryptocard"),
        ("mul1024", "gmp"),
        ("mul1024", "openssl"),
        ("modexp512", "gmp"),
        ("md5", "openssl"),
    ] {
        assert!(seen.contains(&(want.0.to_string(), want.1.to_string())), "no row for {want:?}");
    }
    assert!(!seen.iter().any(|(_, i)| i == "nettle"), "nettle was not selected");
}

#[test]
fn rsa_rows_name_their_operations_and_multi_is_reported() {
    let out = speed(&[
        "rsa512",
        "-seconds",
        "0.01",
        "--compare",
        "openssl-vendored",
        "--json",
        "-multi",
        "2",
    ]);
    let rows = json_lines(&out);
    let ops: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["op"].as_str().unwrap(), r["impl"].as_str().unwrap())).collect();
    let mut want = Vec::new();
    for op in ["sign", "verify", "encrypt", "decrypt"] {
        want.extend([(op, "cryptocard"), (op, "openssl")]);
    }
    assert_eq!(ops, want);
    for r in &rows {
        assert_eq!(r["alg"].as_str(), Some("rsa512"));
        assert_eq!(r["multi"].as_u64(), Some(2));
        assert!(close(num(r, "bits_per_s"), num(r, "ops_per_s") * 512.0), "{r}");
    }
}

#[test]
fn rust_peers_sign_verify_and_hash_what_ours_does() {
    let out =
        speed(&["rsa2048", "sha256", "--compare", "aws-lc-rs,ring", "--json", "-seconds", "0.02"]);
    let rows = json_lines(&out);
    for (alg, op) in [("rsa2048", "sign"), ("rsa2048", "verify"), ("sha256", "digest")] {
        for imp in ["cryptocard", "aws-lc-rs", "ring"] {
            let r = rows
                .iter()
                .find(|r| r["alg"] == alg && r["op"] == op && r["impl"] == imp)
                .unwrap_or_else(|| panic!("no {alg} {op} row for {imp}: {rows:?}"));
            assert!(num(r, "ops_per_s") > 0.0, "{r}");
            if imp != "cryptocard" {
                assert_eq!(r["origin"].as_str(), Some("crate"), "{r}");
                assert!(r["version"].as_str().is_some_and(|v| !v.is_empty()), "{r}");
            }
        }
    }
    // Neither is measured for encryption.
    assert!(!rows.iter().any(|r| r["op"] == "encrypt" && r["impl"] != "cryptocard"), "{rows:?}");
    // PKCS#1 v1.5 signatures are deterministic: theirs equal ours (else a warning).
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("different result") && !err.contains("warning"), "{err}");

    // A size ring does not sign with is an empty cell and a note, never an error.
    let out = speed(&["rsa7680", "-seconds", "0.01", "--compare", "ring"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("rsa7680 sign: not available: ring signs with 2048- to 4096-bit"),
        "{err}"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let verify = text.lines().find(|l| l.starts_with("rsa7680") && l.contains("verify"));
    assert!(verify.is_some_and(|l| !l.contains("error")), "{text}");
}

#[test]
fn rsa_private_rows_are_batched_with_batch_and_peers_stay_single() {
    let args = ["rsa512", "-seconds", "0.01", "--compare", "openssl-vendored", "-batch", "3"];
    let out = speed(&[&args[..], &["--json", "-multi", "2"]].concat());
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 8);
    for r in &rows {
        let ours = r["impl"].as_str() == Some("cryptocard");
        let private = matches!(r["op"].as_str(), Some("sign" | "decrypt"));
        assert_eq!(r["batch"].as_u64(), (ours && private).then_some(3), "{r}");
        assert_eq!(r["multi"].as_u64(), Some(2), "{r}");
        // Batched calls count three operations each, summed over both threads.
        assert!(num(r, "ops_per_s") > 0.0 && num(r, "seconds") >= 0.01, "{r}");
    }
    // The batched results equal OpenSSL's (the harness warns on a mismatch).
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("warning"), "{err}");

    let out = speed(&args);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for op in ["sign batch 3", "decrypt batch 3"] {
        assert!(text.lines().any(|l| l.starts_with("rsa512") && l.contains(op)), "{text}");
    }
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("rsa512 verify: no batched path of ours yet, -batch 3 ignored"), "{err}");
    assert!(!err.contains("rsa512 sign: no batched"), "{err}");
}

#[test]
fn table_names_each_peer_and_its_version() {
    let out = speed(&["mul2048", "-seconds", "0.02", "--compare", "gmp-bundled,openssl-vendored"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("GMP 6.3"), "{text}");
    assert!(text.contains("OpenSSL 4.0"), "{text}");
    assert!(text.contains("(bundled)") && text.contains("(vendored)"), "{text}");
    let line = text.lines().find(|l| l.starts_with("mul2048")).expect("a mul2048 line");
    // ours, then rate and ratio for each of the two peers.
    assert_eq!(line.split_whitespace().count(), 3 + 1 + 4, "{line}");
    // No progress indicator when stderr is not a terminal.
    assert!(!String::from_utf8(out.stderr).unwrap().contains('\r'));
}

#[test]
fn progress_indicator_on_a_terminal() {
    // `script` gives the command a pseudo-terminal (stdout and stderr both on it).
    let bin = assert_cmd::cargo::cargo_bin("cryptocard");
    let cmd = format!("{} speed mul256 -seconds 0.05", bin.display());
    let Ok(out) = std::process::Command::new("script").args(["-qec", &cmd, "/dev/null"]).output()
    else {
        eprintln!("progress_indicator_on_a_terminal: skipped: `script` is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("\r\x1b[K[1/1] mul256 mul 100%"), "{text:?}");
    // The indicator is erased before the row is written.
    let row = text.rsplit("\x1b[K").next().unwrap();
    assert!(row.starts_with("mul256 ") && !row.contains('%'), "{text:?}");
}

#[test]
fn seconds_is_respected() {
    let start = Instant::now();
    let rows = json_lines(&speed(&["mul4096", "-seconds", "0.3", "--json"]));
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(rows.len(), 1);
    let measured = num(&rows[0], "seconds");
    assert!(measured >= 0.3, "ran {measured} s");
    // Generous: warm-up, process start and a loaded machine, but not several times over.
    assert!(measured < 3.0 && wall < 30.0, "measured {measured} s, wall {wall} s");
}

#[test]
fn bad_arguments_fail_with_one_line() {
    for args in [
        &["nosuchalg"][..],
        &["mul100"],
        &["modexp0"],
        &["-seconds", "abc"],
        &["-seconds", "0"],
        &["-seconds", "-1"],
        &["-seconds"],
        &["-bytes", "0"],
        &["-multi", "x"],
        &["--compare", "bogus"],
        &["-frobnicate"],
        &["--json", "-mr"],
    ] {
        let out = speed(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("cryptocard speed: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn default_set_is_the_headline_against_every_peer() {
    let rows = json_lines(&speed(&["-seconds", "0.01", "--json"]));
    let algs: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["alg"].as_str().unwrap()).collect();
    assert_eq!(algs, ["des-cbc", "md2", "rsa2048", "sha256"].into_iter().collect());
    let peers: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["impl"].as_str().unwrap()).collect();
    assert!(peers.contains("openssl") && peers.contains("rustcrypto"), "{peers:?}");
}

#[test]
fn machine_readable_lines_and_batch_note() {
    let out = speed(&["mul256", "-seconds", "0.01", "-mr", "-batch", "8"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let fields: Vec<&str> = text.trim().split(':').collect();
    assert_eq!(
        &fields[..6],
        ["+F", "mul256", "mul", "cryptocard", env!("CARGO_PKG_VERSION"), "ours"],
        "{text}"
    );
    let ops: f64 = fields[6].parse().unwrap();
    let bits: f64 = fields[7].parse().unwrap();
    assert!(ops > 0.0 && (bits / ops - 256.0).abs() < 1.0, "{text}");
    // -mr is for machines: no notes on stderr.
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn ours_computes_what_the_peers_compute() {
    // The harness compares every implementation's first result; a mismatch is a warning.
    let algs = [
        "rsa512",
        "rsa1024",
        "mul1024",
        "mul65536",
        "md2",
        "md5",
        "sha1",
        "sha256",
        "sha512",
        "sha3-256",
        "hmac",
        "des-ecb",
        "des-cbc",
        "des-cfb",
        "des-ofb",
        "des-ede-cbc",
        "des-ede3",
        "des-ede3-cbc",
        "des-ede3-cfb",
        "aes-128-cbc",
        "aes-256-cbc",
        "aes-256-ctr",
        "cms-sign",
        "ts-reply",
        "ocsp-reply",
    ];
    let mut args = algs.to_vec();
    args.extend(["-seconds", "0.01", "-bytes", "1000", "--compare", "all"]);
    let out = speed(&args);
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("warning:"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    for alg in algs {
        let lines: Vec<&str> =
            text.lines().filter(|l| l.split_whitespace().next() == Some(alg)).collect();
        assert!(!lines.is_empty(), "{alg}: {text}");
        for line in lines {
            assert!(
                !line.contains("n/a") && !line.contains("error"),
                "ours runs for {alg}: {line}"
            );
        }
    }
}

#[test]
fn seeds_view_cites_each_paper_with_our_figure() {
    let out = speed(&["--seeds", "-seconds", "0.01", "-bytes", "1024"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for (paper, figure, unit) in [
        ("Dusse-Kaliski 1990, sec. 6", "11.6", "Kbit/s"),
        ("Shand-Bertin-Vuillemin 1990, Table 1", "226.0", "Kbit/s"),
        ("Tang-Tsui-Leong 2003, Table 5", "0.66", "ms/op"),
        ("Markovic et al., Table 5", "30.0", "ops/s"),
        ("Dusse-Kaliski 1990, sec. 6", "350.0", "Kbit/s"),
        ("Dusse-Kaliski 1990, sec. 6", "190.0", "Kbit/s"),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(paper) && l.contains(figure) && l.contains(unit)),
            "{paper} {figure} {unit}: {text}"
        );
    }
    // Every row has a figure of ours: a number, and a speed-up over the paper.
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(rows.len(), 6, "{text}");
    for line in rows {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let ours: f64 = fields[fields.len() - 3].parse().unwrap_or_else(|_| panic!("{line}"));
        let times: f64 = fields[fields.len() - 1].parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(ours > 0.0 && times > 0.0, "{line}");
    }
    for bad in
        [&["--seeds", "md5"][..], &["--seeds", "--compare", "gmp"], &["--seeds", "-multi", "2"]]
    {
        let out = speed(bad);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
    }
}

#[test]
fn keygen_rows_report_the_distribution_per_implementation() {
    let out = speed(&["keygen1024", "-keys", "3", "--compare", "openssl-vendored", "--json"]);
    let rows = json_lines(&out);
    let impls: Vec<&str> = rows.iter().map(|r| r["impl"].as_str().unwrap()).collect();
    assert_eq!(impls, ["cryptocard", "openssl"], "{rows:?}");
    for r in &rows {
        assert_eq!(
            (r["alg"].as_str(), r["op"].as_str(), r["keys"].as_u64()),
            (Some("keygen1024"), Some("keygen"), Some(3)),
            "{r}"
        );
        let (min, med, max, mean) =
            (num(r, "min_ms"), num(r, "median_ms"), num(r, "max_ms"), num(r, "mean_ms"));
        assert!(0.0 < min && min <= med && med <= max && min <= mean && mean <= max, "{r}");
        assert!(num(r, "sd_ms") >= 0.0, "{r}");
        assert!(close(num(r, "ops_per_s"), 1000.0 / mean), "{r}");
    }
}

#[test]
fn keygen_sizes_out_of_range_are_refused() {
    for alg in ["keygen512", "keygen2050", "keygenx"] {
        let out = speed(&[alg, "-keys", "1"]);
        assert_eq!(out.status.code(), Some(1), "{alg}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("multiple of 64 from 1024 to 16384") && err.lines().count() == 1,
            "{err}"
        );
    }
}

#[test]
fn modexp_methods_rows_name_each_technique_and_agree_with_the_peers() {
    let out =
        speed(&["modexp512-methods", "-seconds", "0.02", "--compare", "gmp-bundled", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let rows = json_lines(&out);
    assert!(!err.contains("different result"), "{err}");
    let ops = |who: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["impl"] == who)
            .map(|r| r["op"].as_str().unwrap().to_string())
            .collect()
    };
    let ours = ops("cryptocard");
    assert_eq!(
        ours,
        ["fixed-window-ct", "kary4-ct", "quaternary-ct", "sliding-vartime", "binary-vartime"]
    );
    assert_eq!(ops("gmp"), ["fixed-window-ct", "sliding-vartime"]);
    assert!(rows.iter().all(|r| r["alg"] == "modexp512-methods" && num(r, "ops_per_s") > 0.0));
}

#[test]
fn engine_sweep_reports_every_level_for_every_implementation_and_writes_the_plot() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("engine.svg");
    let out = speed(&[
        "--engine",
        "rsa1024",
        "-seconds",
        "0.05",
        "-concurrency",
        "1,4,1100",
        "-plot",
        plot.to_str().unwrap(),
        "--compare",
        "openssl-vendored",
        "--json",
    ]);
    let rows = json_lines(&out);
    let modes: Vec<(String, String, Option<u64>)> = rows
        .iter()
        .map(|r| {
            (
                r["impl"].as_str().unwrap().to_string(),
                r["mode"].as_str().unwrap().to_string(),
                r["concurrency"].as_u64(),
            )
        })
        .collect();
    let want = |i: &str, m: &str, c: Option<u64>| (i.to_string(), m.to_string(), c);
    assert_eq!(
        modes,
        [
            want("cryptocard", "single", None),
            want("cryptocard", "batched", None),
            want("cryptocard", "engine", Some(1)),
            want("openssl", "engine", Some(1)),
            want("cryptocard", "engine", Some(4)),
            want("openssl", "engine", Some(4)),
            // Requests in flight (from 256 callers); OpenSSL, a thread a caller, stops
            // at 1,024.
            want("cryptocard", "engine", Some(1100)),
        ]
    );
    for r in &rows {
        assert_eq!((r["alg"].as_str(), r["op"].as_str()), (Some("rsa1024"), Some("sign")), "{r}");
        assert!(num(r, "ops_per_s") > 0.0 && 0.0 < num(r, "p50_us"), "{r}");
        assert!(num(r, "p50_us") <= num(r, "p99_us"), "{r}");
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    assert_eq!(svg.matches("<polyline").count(), 6, "three curves per implementation");
}

#[test]
fn engine_options_are_checked() {
    for args in [
        &["--engine", "rsa1000"][..],
        &["--engine", "sha256"],
        &["--engine", "-concurrency", "0"],
        &["--engine", "-concurrency", "1,x"],
        &["--engine", "-concurrency", "65537"],
        &["--engine", "rsa2048", "rsa4096"],
        &["--engine", "-batch", "8"],
        &["rsa2048", "-plot", "x.svg"],
    ] {
        let out = speed(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

/// `-backend`: a backend's rows where it runs; the GPU mode's options checked before
/// anything runs; without a GPU, the GPU mode stops at once with the reason and writes
/// no plot (a machine with one runs it in scripts/gpu-check instead).
#[test]
fn backend_choice_and_the_gpu_mode() {
    let out = speed(&["rsa1024", "-backend", "scalar", "-seconds", "0.02", "--json"]);
    let rows = json_lines(&out);
    assert!(rows.iter().any(|r| r["op"] == "sign" && r["impl"] == "cryptocard"), "{rows:?}");
    for args in [
        &["rsa2048", "-backend", "fpga"][..],
        &["-batches", "1024"],
        &["-backend", "gpu", "-batches", "0"],
        &["-backend", "gpu", "-batches", "1024,x"],
        &["-backend", "gpu", "sha256"],
        &["-backend", "gpu", "-multi", "2"],
        &["-backend", "gpu", "--engine", "-batches", "1024"],
        &["-backend", "gpu", "-batch", "8"],
    ] {
        let out = speed(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("gpu.svg");
    let out = speed(&["rsa2048", "-backend", "gpu", "-plot", plot.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        // A GPU here after all: the mode ran; its table names the device.
        assert!(String::from_utf8_lossy(&out.stdout).contains("GPU: "));
        return;
    }
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("-backend gpu") && err.contains("GPU backend"), "{err}");
    assert!(!plot.exists(), "no plot without measurements");
    // The engine sweep with the GPU as its offload unit: refused the same way, at once.
    let out = speed(&["--engine", "-backend", "gpu", "-plot", plot.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--engine") && err.contains("GPU backend"), "{err}");
    assert!(!plot.exists(), "no plot without measurements");
}
