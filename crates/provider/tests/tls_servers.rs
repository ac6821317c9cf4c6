//! The provider where it is meant to work: inside TLS servers. `openssl s_server` with
//! our provider against `openssl s_client` (TLS 1.3, TLS 1.2 with ECDHE-RSA, TLS 1.2 with
//! RSA key exchange, which decrypts with "pkcs1-tls" padding, and TLS 1.1 with ECDHE-RSA,
//! which signs with MD5-SHA1); Debian 12's HAProxy
//! 2.6 (ssl-provider, ssl-propquery, ssl-mode-async) and nginx 1.22 (OPENSSL_CONF, a
//! master that forks its workers after loading the provider), started by
//! scripts/serve-haproxy and scripts/serve-nginx; `openssl speed -async_jobs` (operations
//! paused in async jobs) and `-multi` (children forked after loading). Each asserts,
//! from the counters the provider prints at exit, that ours did the work. Without the
//! programs the tests print why and pass (scripts/prerequisites installs them).

mod common;

use common::{counted, have, have_openssl, ours, repo, workdir};
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A 2048-bit key and a self-signed certificate for localhost in `dir`.
fn key_and_cert(dir: &Path) -> (String, String) {
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
    let out = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"])
        .args(["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (key.to_string_lossy().into(), cert.to_string_lossy().into())
}

/// Waits until something accepts connections on `port`.
fn wait_listening(port: u16, child: &mut Child) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the server exited ({status}) before listening");
        }
        assert!(start.elapsed() < Duration::from_secs(20), "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One handshake with `openssl s_client` (and the extra `args`), which must verify the
/// server's certificate `cert`; returns what it said.
fn handshake(port: u16, cert: &str, args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(["s_client", "-connect", &format!("127.0.0.1:{port}"), "-CAfile", cert])
        .args(["-verify_return_error", "-brief", "-servername", "localhost"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            // "Q": quit after the handshake, cleanly.
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"Q\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && said.contains("Verification: OK"), "{args:?}: {said}");
    said
}

/// Stops a server started through a script (SIGTERM, which the script passes on).
fn stop(mut child: Child) {
    let _ = Command::new("kill").arg(child.id().to_string()).status();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The counters every process wrote under `prefix` (`CRYPTOCARD_PROVIDER_STATS=prefix`:
/// servers are stopped without unloading the provider, so they write files).
fn counted_files(prefix: &Path, name: &str) -> u64 {
    let dir = prefix.parent().unwrap();
    let stem = prefix.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(&format!("{stem}.")) && !n.ends_with(".tmp")
        })
        .map(|e| counted(&std::fs::read_to_string(e.path()).unwrap_or_default(), name))
        .sum()
}

/// Removes the counters' files under `prefix`.
fn remove_files(prefix: &Path) {
    let stem = prefix.file_name().unwrap().to_string_lossy().into_owned();
    for e in std::fs::read_dir(prefix.parent().unwrap()).unwrap().filter_map(|e| e.ok()) {
        if e.file_name().to_string_lossy().starts_with(&format!("{stem}.")) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[test]
fn s_server_with_our_provider_serves_tls13_and_tls12() {
    if !have_openssl() {
        return;
    }
    let (dir, modules) = workdir("provider-s-server");
    let (key, cert) = key_and_cert(&dir);
    // TLS 1.0 and 1.1 need security level 0 on both sides in OpenSSL 3.
    let legacy = ["-tls1_1", "-cipher", "ECDHE-RSA-AES128-SHA:@SECLEVEL=0"];
    let cases: [(&[&str], &[&str], &str); 4] = [
        (&["-tls1_3"], &[], "signs"),
        (&["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"], &[], "signs"),
        // RSA key exchange: the premaster secret is decrypted with "pkcs1-tls" padding.
        (&["-tls1_2", "-cipher", "AES128-GCM-SHA256"], &[], "decrypts"),
        // TLS 1.1 signs its ServerKeyExchange with MD5-SHA1.
        (&legacy, &legacy, "signs"),
    ];
    for (client, server_args, counter) in cases {
        let port = free_port();
        let mut server = Command::new("openssl")
            .args(["s_server", "-accept", &port.to_string(), "-cert", &cert, "-key", &key])
            .args(["-naccept", "1"])
            .args(server_args)
            .args(ours(&modules))
            .env("CRYPTOCARD_PROVIDER_STATS", "1")
            // Open until the end: s_server ends a connection when its stdin closes.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Not a probe connection: the server accepts one only. It says ACCEPT when ready.
        let mut stdout = BufReader::new(server.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("ACCEPT") {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "s_server ended before ACCEPT");
        }
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        handshake(port, &cert, client);
        let out: Output = server.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(counted(&err, counter), 1, "{client:?}: {err}");
    }
}

/// Runs `script PORT CERT KEY MODE` and two handshakes (TLS 1.3 and 1.2) through it;
/// returns the counters' total of signatures and of operations run inside async jobs, read
/// once they are what `want` says (or after 10 s, whatever they are then), and not before
/// 400 ms, time for a count that should not be there to show.
fn through(script: &str, mode: &str, modules: &Path, dir: &Path, want: (u64, u64)) -> (u64, u64) {
    let (key, cert) = key_and_cert(dir);
    let port = free_port();
    // In the system's temporary directory: nginx's workers (another user under a root
    // master) can write there whatever the checkout's permissions.
    let stats = std::env::temp_dir()
        .join(format!("cryptocard-stats-{}-{script}-{mode}", std::process::id()));
    let mut server = Command::new(repo().join("scripts").join(script))
        .args([&port.to_string(), &cert, &key, mode])
        .env("CRYPTOCARD_MODULES", modules)
        .env("CRYPTOCARD_PROVIDER_STATS", &stats)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(port, &mut server);
    handshake(port, &cert, &["-tls1_3"]);
    handshake(port, &cert, &["-tls1_2"]);
    // The counters' files are rewritten every 100 ms by each server process, when it is
    // scheduled: a busy machine may take longer.
    let start = Instant::now();
    let counts = loop {
        std::thread::sleep(Duration::from_millis(100));
        let counts = (counted_files(&stats, "signs"), counted_files(&stats, "in-jobs"));
        let waited = start.elapsed();
        if (counts == want && waited >= Duration::from_millis(400))
            || waited > Duration::from_secs(10)
        {
            break counts;
        }
    };
    stop(server);
    remove_files(&stats);
    counts
}

#[test]
fn haproxy_handshakes_through_our_provider() {
    let haproxy =
        if Path::new("/usr/sbin/haproxy").exists() { "/usr/sbin/haproxy" } else { "haproxy" };
    if !have_openssl() || !have(haproxy, "-v", "haproxy_handshakes_through_our_provider") {
        return;
    }
    let (dir, modules) = workdir("provider-haproxy");
    // ssl-mode-async: both signatures paused their handshake's async job.
    let through = |mode, want| through("serve-haproxy", mode, &modules, &dir, want);
    assert_eq!(through("cryptocard", (2, 2)), (2, 2));
    assert_eq!(through("cryptocard-sync", (2, 0)), (2, 0));
    // Stock: the provider is not loaded at all.
    assert_eq!(through("stock", (0, 0)), (0, 0));
}

#[test]
fn nginx_workers_forked_after_loading_sign_with_our_provider() {
    let nginx = if Path::new("/usr/sbin/nginx").exists() { "/usr/sbin/nginx" } else { "nginx" };
    if !have_openssl() || !have(nginx, "-v", "nginx_workers_forked_after_loading") {
        return;
    }
    let (dir, modules) = workdir("provider-nginx");
    // Both signatures, and no async job (nginx has no asynchronous mode).
    assert_eq!(through("serve-nginx", "cryptocard", &modules, &dir, (2, 0)), (2, 0));
}

/// `openssl speed` with our provider, and `extra` arguments; returns stdout and stderr.
fn speed(modules: &Path, extra: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let out = Command::new("openssl")
        .args(["speed", "-seconds", "1"])
        .args(extra)
        .args(ours(modules))
        .arg("rsa2048")
        .envs(env.iter().copied())
        .env("CRYPTOCARD_PROVIDER_STATS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{extra:?}: {err}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

#[test]
fn async_jobs_pause_and_forked_children_sign() {
    if !have_openssl() {
        return;
    }
    let (_, modules) = workdir("provider-speed");
    // -async_jobs: every signature runs inside a job that pauses for the engine. Eight
    // jobs, so that batches form where two workers share the queue (with four, each
    // worker's share of two runs as single operations).
    let (_, err) = speed(&modules, &["-async_jobs", "8"], &[]);
    // (speed's first, checking signature runs outside the jobs.)
    let (signs, in_jobs) = (counted(&err, "signs"), counted(&err, "in-jobs"));
    assert!(signs > 100 && in_jobs + 10 >= signs, "{err}");
    // Every signature went through the engine: on the caller's thread, alone on a
    // worker, or in a batch.
    let ran = ["direct", "singles", "batched"].map(|n| counted(&err, n));
    assert_eq!(ran.iter().sum::<u64>(), signs, "{err}");
    // The batches by size ("batches=3:1,4:2") add up to the batched operations.
    let in_batches: u64 = (err.lines())
        .filter(|l| l.starts_with("cryptocard provider:"))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|w| w.strip_prefix("batches="))
        .flat_map(|sizes| sizes.split(',').filter(|s| !s.is_empty()))
        .map(|s| {
            let (n, count) = s.split_once(':').expect("a batch size and its count");
            n.parse::<u64>().unwrap() * count.parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(in_batches, ran[2], "{err}");
    // Verifications inside the jobs, on the thread's helper (`job_thread`), all good.
    assert!(counted(&err, "verifies") > 100 && !err.contains("verify failure"), "{err}");
    // -multi 2: two children forked after the provider was loaded, each signing.
    let (out, err) = speed(&modules, &["-multi", "2"], &[]);
    assert!(out.contains("rsa 2048 bits"), "{out}");
    assert!(err.lines().filter(|l| l.starts_with("cryptocard provider:")).count() >= 2, "{err}");
    // A CPU without IFMA: the AVX2 unit (what `auto` picks there), in async jobs too, and
    // the scalar backend do the same work.
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    for backend in ["avx2", "scalar"].into_iter().filter(|&b| avx2 || b == "scalar") {
        let (_, err) = speed(&modules, &["-async_jobs", "4"], &[("CRYPTOCARD_BACKEND", backend)]);
        let (signs, in_jobs) = (counted(&err, "signs"), counted(&err, "in-jobs"));
        assert!(signs > 0 && in_jobs + 10 >= signs, "{backend}: {err}");
    }
}

#[test]
fn async_jobs_without_the_engine_run_off_the_job_stack() {
    if !have_openssl() {
        return;
    }
    let (_, modules) = workdir("provider-speed-no-engine");
    // The engine off: no worker to hand a job's operation to, so each runs on a thread
    // of its own, never on the job's 32 KiB stack; every one inside a job is counted.
    let off = [("CRYPTOCARD_PROVIDER_ENGINE", "0")];
    let (_, err) = speed(&modules, &["-async_jobs", "4"], &off);
    let (signs, in_jobs) = (counted(&err, "signs"), counted(&err, "in-jobs"));
    assert!(signs > 10 && in_jobs + 10 >= signs, "{err}");
    assert_eq!(counted(&err, "direct"), 0, "{err}");
}
