//! Full TLS handshakes against the HTTPS server on cryptocard, with rustls clients: every
//! scheme at each version and key size, verified by aws-lc-rs and by cryptocard; 500 at
//! once; the scalar backend; a current-thread runtime; an ECDSA certificate beside the
//! RSA one; and the page itself over HTTP/1.1.
#![cfg(feature = "server")]

mod common;

use common::{
    client, connect, fetch_page, handshake, identity_parts, rsa_identity, settled, start_server,
};
use cryptocard::rsa::Backend;
use cryptocard_rustls::Wait;
use cryptocard_rustls::server::{Options, Stack, Versions};
use rustls::SignatureScheme as S;
use rustls::crypto::aws_lc_rs::default_provider as aws_lc;
use rustls::version::{TLS12, TLS13};

const PSS: [S; 3] = [S::RSA_PSS_SHA256, S::RSA_PSS_SHA384, S::RSA_PSS_SHA512];
const PKCS1: [S; 3] = [S::RSA_PKCS1_SHA256, S::RSA_PKCS1_SHA384, S::RSA_PKCS1_SHA512];

/// Each scheme alone, at TLS 1.2 (PSS and PKCS#1 v1.5) and TLS 1.3 (PSS only: RFC 8446
/// section 4.4.3 forbids PKCS#1 v1.5 in CertificateVerify), with clients verifying on
/// aws-lc-rs and on cryptocard; the server must sign with exactly the offered scheme.
async fn every_scheme(bits: usize) {
    let id = rsa_identity(bits);
    let (addr, counters) = start_server(vec![identity_parts(&id.1)], &Options::default()).await;
    let mut runs = 0;
    for (version, schemes) in [(&TLS12, [PSS, PKCS1].concat()), (&TLS13, PSS.to_vec())] {
        for scheme in schemes {
            for verifier in [aws_lc(), cryptocard_rustls::provider()] {
                let (config, seen) = client(verifier, id.0.cert(), &[version], &[scheme]);
                handshake(addr, config).await.unwrap_or_else(|e| {
                    panic!("RSA-{bits} {version:?} {scheme:?}: {e}");
                });
                assert_eq!(*seen.seen_scheme.lock().unwrap(), Some(scheme));
                runs += 1;
            }
        }
    }
    assert_eq!(settled(&counters, runs).await, (runs, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scheme_rsa2048() {
    every_scheme(2048).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scheme_rsa3072() {
    every_scheme(3072).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scheme_rsa4096() {
    every_scheme(4096).await;
}

/// With everything offered, the server takes rustls's own first choice: PSS with SHA-512.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_choice_follows_rustls() {
    let id = rsa_identity(2048);
    let (addr, _) = start_server(vec![identity_parts(&id.1)], &Options::default()).await;
    let offer = [PKCS1, PSS].concat();
    for (version, want) in [(&TLS12, S::RSA_PSS_SHA512), (&TLS13, S::RSA_PSS_SHA512)] {
        let (config, seen) = client(aws_lc(), id.0.cert(), &[version], &offer);
        handshake(addr, config).await.unwrap();
        assert_eq!(*seen.seen_scheme.lock().unwrap(), Some(want));
    }
    // A client that offers PKCS#1 v1.5 alone at TLS 1.2 gets PKCS#1, longest hash first.
    let (config, seen) = client(aws_lc(), id.0.cert(), &[&TLS12], &PKCS1);
    handshake(addr, config).await.unwrap();
    assert_eq!(*seen.seen_scheme.lock().unwrap(), Some(S::RSA_PKCS1_SHA512));
}

/// 500 handshakes at once, every one verified by the client, none failed, with the
/// default wait (a worker blocks; the engine runs signatures on it while it has room).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_at_once() {
    five_hundred(&Options { resumption: false, ..Options::default() }, false).await;
}

/// The same with `Wait::BlockInPlace`: workers hand their tasks on while they wait, so
/// signatures queue up in the engine and, with IFMA, run in mb8 batches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_at_once_block_in_place() {
    let options = Options { resumption: false, wait: Wait::BlockInPlace, ..Options::default() };
    five_hundred(&options, true).await;
}

/// The default wait on a runtime with more worker threads than the engine has workers:
/// more signatures arrive at once than it runs, and with IFMA they batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 16)]
async fn five_hundred_at_once_on_more_threads_than_engine_workers() {
    five_hundred(&Options { resumption: false, ..Options::default() }, true).await;
}

/// One 500-handshake test at a time, so that the shared engine's counts are its own.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// 500 concurrent handshakes against a server with `options`, all verified; with IFMA
/// and `batches`, at least one signature ran in an mb8 batch.
async fn five_hundred(options: &Options, batches: bool) {
    let _alone = ONE_AT_A_TIME.lock().await;
    let id = rsa_identity(2048);
    let (addr, counters) = start_server(vec![identity_parts(&id.1)], options).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let before = cryptocard_rustls::shared_engine().stats();
    let clients: Vec<_> = (0..500).map(|_| tokio::spawn(handshake(addr, config.clone()))).collect();
    let mut failed = Vec::new();
    for c in clients {
        if let Err(e) = c.await.unwrap() {
            failed.push(e);
        }
    }
    assert!(failed.is_empty(), "{} of 500 failed, first: {}", failed.len(), failed[0]);
    assert_eq!(settled(&counters, 500).await, (500, 0));
    let stats = cryptocard_rustls::shared_engine().stats().since(&before);
    println!("engine over 500 handshakes ({:?}): {stats:?}", options.wait);
    if batches && Backend::Ifma.is_available() {
        assert!(stats.batched() > 0, "no signature was batched: {stats:?}");
    }
}

/// The scalar backend, chosen for the server's keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scalar_backend() {
    let id = rsa_identity(2048);
    let options = Options { backend: Some(Backend::Scalar), ..Options::default() };
    let (addr, counters) = start_server(vec![identity_parts(&id.1)], &options).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let clients: Vec<_> = (0..16).map(|_| tokio::spawn(handshake(addr, config.clone()))).collect();
    for c in clients {
        c.await.unwrap().unwrap();
    }
    assert_eq!(settled(&counters, 16).await, (16, 0));
}

/// A server on a current-thread runtime signs alone, on its only thread, and never
/// panics; its clients run on another runtime, all at once.
#[test]
fn current_thread_server() {
    let id = rsa_identity(2048);
    let server_rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (addr, counters) =
        server_rt.block_on(start_server(vec![identity_parts(&id.1)], &Options::default()));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server_thread = std::thread::spawn(move || {
        server_rt.block_on(async { stopped.await.ok() });
    });
    let client_rt = tokio::runtime::Runtime::new().unwrap();
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    client_rt.block_on(async {
        let clients: Vec<_> =
            (0..24).map(|_| tokio::spawn(handshake(addr, config.clone()))).collect();
        for c in clients {
            c.await.unwrap().unwrap();
        }
        assert_eq!(settled(&counters, 24).await, (24, 0));
    });
    assert!(!server_thread.is_finished(), "the server's thread ended: it panicked");
    stop.send(()).unwrap();
    server_thread.join().unwrap();
}

/// An ECDSA certificate beside the RSA one: a client that verifies only ECDSA gets the
/// ECDSA certificate, one that verifies only RSA gets the RSA one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ecdsa_key_beside_ours() {
    let id = rsa_identity(2048);
    let ec_key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let ec_cert = id.0.issue(&ec_key, &["localhost"]).unwrap();
    let ec_der = rustls::pki_types::PrivateKeyDer::Pkcs8(ec_key.serialize_der().into());
    let ec = (vec![ec_cert.clone(), id.0.cert().clone()], ec_der);
    let (addr, counters) = start_server(vec![ec, identity_parts(&id.1)], &Options::default()).await;
    for (offer, want) in
        [([S::ECDSA_NISTP256_SHA256], &ec_cert), ([S::RSA_PSS_SHA256], &id.1.chain[0])]
    {
        let (config, seen) = client(cryptocard_rustls::provider(), id.0.cert(), &[&TLS13], &offer);
        handshake(addr, config).await.unwrap();
        assert_eq!(seen.seen_cert.lock().unwrap().as_ref(), Some(want));
        assert_eq!(*seen.seen_scheme.lock().unwrap(), Some(offer[0]));
    }
    assert_eq!(settled(&counters, 2).await, (2, 0));
}

/// The same server on stock rustls: the yardstick `speed --tls` compares with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_stack_serves_too() {
    let id = rsa_identity(2048);
    let options = Options { stack: Stack::Stock, versions: Versions::Tls12, ..Options::default() };
    let (addr, _) = start_server(vec![identity_parts(&id.1)], &options).await;
    let (config, seen) = client(cryptocard_rustls::provider(), id.0.cert(), &[&TLS12], &PSS);
    handshake(addr, config).await.unwrap();
    assert!(seen.seen_scheme.lock().unwrap().is_some());
}

/// The page, over HTTP/1.1 after the handshake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_the_page() {
    let id = rsa_identity(2048);
    let (addr, _) = start_server(vec![identity_parts(&id.1)], &Options::default()).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let response = fetch_page(&mut connect(addr, config).await).await;
    assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
    assert!(response.contains("Served over TLS by rustls and cryptocard"), "{response}");
}
