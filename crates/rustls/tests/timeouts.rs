//! A client that opens a connection and then says nothing, or stops halfway, is cut off
//! ([`Timeouts`]): in its TLS handshake, after it waiting for an HTTP/1 request, and on
//! HTTP/2 when it stops answering pings; a client that keeps to the times is served as
//! usual.
#![cfg(feature = "server")]

mod common;

use common::{
    Issued, client, connect, fetch_page, identity_parts, rsa_identity, start_server_timed,
};
use cryptocard_rustls::server::{Counters, Options, Timeouts};
use rustls::crypto::aws_lc_rs::default_provider as aws_lc;
use rustls::version::TLS13;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SHORT: Timeouts =
    Timeouts { handshake: Duration::from_millis(300), request: Duration::from_millis(300) };

/// An RSA-2048 server with the [`SHORT`] timeouts: its root and identity, address and
/// counters.
async fn short_server() -> (Issued, SocketAddr, Arc<Counters>) {
    let id = rsa_identity(2048);
    let (addr, counters) =
        start_server_timed(vec![identity_parts(&id.1)], &Options::default(), SHORT).await;
    (id, addr, counters)
}

/// Waits (at most 20 s) for the server to close `conn`: the time it took.
async fn closed_by_server(conn: &mut (impl AsyncRead + Unpin)) -> Duration {
    let t = Instant::now();
    let mut buf = [0u8; 256];
    loop {
        match tokio::time::timeout(Duration::from_secs(20), conn.read(&mut buf)).await {
            Err(_) => panic!("the server kept a silent connection for 20 s"),
            Ok(Ok(0)) | Ok(Err(_)) => return t.elapsed(),
            Ok(Ok(_)) => {} // an alert, say; read on to the close
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_or_stalled_handshake_is_cut_off() {
    let (id, addr, counters) = short_server().await;
    // Nothing at all.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let waited = closed_by_server(&mut silent).await;
    assert!(waited >= Duration::from_millis(250), "closed before its time: {waited:?}");
    // A ClientHello's record header that promises 512 bytes, then nothing.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01]).await.unwrap();
    closed_by_server(&mut stalled).await;
    assert_eq!(counters.timed_out.load(Ordering::Relaxed), 2);
    assert_eq!(counters.failed.load(Ordering::Relaxed), 2);
    assert_eq!(counters.handshakes.load(Ordering::Relaxed), 0);
    // A client that keeps to the times still gets its handshake and the page.
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let response = fetch_page(&mut connect(addr, config).await).await;
    assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
}

/// After the handshake, a client that sends no request, or only part of its header, is
/// cut off too; and so is one that keeps its connection alive after a response without
/// asking for more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_without_a_request_is_cut_off() {
    let (id, addr, counters) = short_server().await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let mut quiet = connect(addr, config.clone()).await;
    closed_by_server(&mut quiet).await;
    let mut partial = connect(addr, config.clone()).await;
    partial.write_all(b"GET / HTTP/1.1\r\nHost: loc").await.unwrap();
    closed_by_server(&mut partial).await;
    let mut kept = connect(addr, config).await;
    kept.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
    let mut head = [0u8; 15];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 OK");
    closed_by_server(&mut kept).await;
    assert_eq!(counters.handshakes.load(Ordering::Relaxed), 3);
    assert_eq!(counters.timed_out.load(Ordering::Relaxed), 0);
}

/// HTTP/2's connection preface (RFC 9113 section 3.4) and an empty SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";

/// With ALPN's "h2" the server speaks HTTP/2 (its first frame is a SETTINGS frame), and
/// drops a peer that stops answering its keep-alive pings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_by_alpn_and_a_mute_peer_is_dropped() {
    let (id, addr, _) = short_server().await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let mut config = (*config).clone();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let mut tls = connect(addr, Arc::new(config)).await;
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    tls.write_all(H2_PREFACE).await.unwrap();
    let mut frame = [0u8; 9];
    tls.read_exact(&mut frame).await.unwrap();
    assert_eq!(frame[3], 0x04, "the server's first frame is SETTINGS: {frame:?}");
    // Its SETTINGS acknowledged, then silence: its pings go unanswered.
    tls.write_all(&[0, 0, 0, 0x04, 0x01, 0, 0, 0, 0]).await.unwrap();
    let waited = closed_by_server(&mut tls).await;
    assert!(waited >= Duration::from_millis(250), "dropped before its time: {waited:?}");
}
