//! What a server takes on ([`Limits`]): no more connections at once than its cap, the rest
//! waiting, not refused, until one closes; out of descriptors, an accept loop that backs
//! off rather than spins and serves again once they are freed; and a provider made once
//! for each set of options, however many configurations are made from them.
//!
//! The tests take turns ([`SERIAL`]): one lowers the process's descriptor limit.
#![cfg(feature = "server")]

mod common;

use common::{client, identity_parts, rsa_identity};
use cryptocard::rsa::Backend;
use cryptocard_rustls::Wait;
use cryptocard_rustls::server::{self, Counters, Limits, Options, Timeouts};
use rustls::crypto::aws_lc_rs::default_provider as aws_lc;
use rustls::pki_types::ServerName;
use rustls::version::TLS13;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;
use tokio_rustls::TlsConnector;

static SERIAL: Mutex<()> = Mutex::const_new(());

/// An RSA-2048 server with `limits`: its root's certificate, address and counters.
async fn limited_server(
    limits: Limits,
) -> (rustls::pki_types::CertificateDer<'static>, SocketAddr, Arc<Counters>) {
    let id = rsa_identity(2048);
    let config = server::config(vec![identity_parts(&id.1)], &Options::default()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counters = Arc::new(Counters::default());
    tokio::spawn(server::serve(listener, config, counters.clone(), limits));
    (id.0.cert().clone(), addr, counters)
}

/// `counter` once it reaches `at_least`, waiting at most 10 s.
async fn reaches(counter: &std::sync::atomic::AtomicU64, at_least: u64) -> u64 {
    let t = Instant::now();
    loop {
        let n = counter.load(Ordering::Relaxed);
        if n >= at_least || t.elapsed() > Duration::from_secs(10) {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// With a cap of two, a third client's handshake waits, unaccepted, while two connections
/// are open, and is served as soon as one of them closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_for_a_slot() {
    let _turn = SERIAL.lock().await;
    let limits = Limits { connections: 2, timeouts: Timeouts::default() };
    let (root, addr, counters) = limited_server(limits).await;
    let (config, _) = client(aws_lc(), &root, &[&TLS13], &[]);
    let first = common::connect(addr, config.clone()).await;
    let _second = common::connect(addr, config.clone()).await;
    assert_eq!(reaches(&counters.handshakes, 2).await, 2);
    let third = tokio::spawn(common::connect(addr, config));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!third.is_finished(), "a third connection was served beside two with a cap of two");
    assert_eq!(counters.handshakes.load(Ordering::Relaxed), 2);
    assert!(counters.full.load(Ordering::Relaxed) >= 1);
    drop(first);
    tokio::time::timeout(Duration::from_secs(10), third)
        .await
        .expect("the third connection still waits after the first closed")
        .unwrap();
    assert_eq!(reaches(&counters.handshakes, 3).await, 3);
}

/// The process's soft and hard descriptor limits, from /proc.
fn nofile() -> (String, String) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits.lines().find_map(|l| l.strip_prefix("Max open files")).unwrap();
    let mut words = line.split_whitespace();
    (words.next().unwrap().to_string(), words.next().unwrap().to_string())
}

/// Sets this process's descriptor limits with prlimit(1); false where there is none.
fn set_nofile(soft: &str, hard: &str) -> bool {
    let pid = std::process::id().to_string();
    std::process::Command::new("prlimit")
        .args(["--pid", &pid, &format!("--nofile={soft}:{hard}")])
        .status()
        .map(|status| status.success())
        .unwrap_or(false)
}

/// The descriptor limits as they were, put back when dropped (a failed test included).
struct Restore(String, String);

impl Drop for Restore {
    fn drop(&mut self) {
        set_nofile(&self.0, &self.1);
    }
}

/// Out of descriptors, a connection waits in the backlog and every accept fails at once
/// (EMFILE): the server backs off rather than spin, and accepts it once descriptors are
/// freed.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_descriptors_the_server_backs_off() {
    let _turn = SERIAL.lock().await;
    let (root, addr, counters) = limited_server(Limits::default()).await;
    let (config, _) = client(aws_lc(), &root, &[&TLS13], &[]);
    let name = ServerName::try_from("localhost").unwrap();
    let (soft, hard) = nofile();
    let highest = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|fd| fd.ok()?.file_name().to_str()?.parse::<usize>().ok())
        .max()
        .unwrap();
    if !set_nofile(&(highest + 8).to_string(), &hard) {
        eprintln!("no prlimit(1): the test of running out of descriptors is skipped");
        return;
    }
    let restore = Restore(soft, hard);
    // Every descriptor below the limit taken, then one given back for the client.
    let mut taken = Vec::new();
    while let Ok(file) = std::fs::File::open("/dev/null") {
        taken.push(file);
    }
    taken.pop();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let first = reaches(&counters.accept_errors, 1).await;
    assert!(first >= 1, "the server never failed to accept");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let errors = counters.accept_errors.load(Ordering::Relaxed) - first;
    drop(taken);
    drop(restore);
    assert!(errors <= 12, "{errors} failed accepts in 1.5 s: the server spins");
    tokio::time::timeout(Duration::from_secs(5), TlsConnector::from(config).connect(name, tcp))
        .await
        .expect("not served once descriptors were freed")
        .unwrap();
    assert_eq!(reaches(&counters.handshakes, 1).await, 1);
}

/// A provider with options of its own is made once: a second configuration from the
/// same options shares its key provider and verification tables (each leaked, as rustls
/// holds them `&'static`) rather than leaking new ones.
#[tokio::test]
async fn a_provider_is_made_once_for_its_options() {
    let _turn = SERIAL.lock().await;
    let options = Options { backend: Some(Backend::Scalar), ..Options::default() };
    let (a, b) = (server::provider(&options), server::provider(&options));
    assert!(std::ptr::addr_eq(a.key_provider, b.key_provider));
    let (a_all, b_all) =
        (a.signature_verification_algorithms.all, b.signature_verification_algorithms.all);
    assert!(std::ptr::eq(a_all, b_all));
    let other = Options { wait: Wait::Direct, ..options };
    assert!(!std::ptr::addr_eq(a.key_provider, server::provider(&other).key_provider));
}
