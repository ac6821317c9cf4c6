//! A client that opens a connection and then says nothing, or stops halfway, is cut off
//! ([`Timeouts`]): in its TLS handshake, after it waiting for an HTTP/1 request, and on
//! HTTP/2 when it stops answering pings; so is one that asks and then stops reading
//! (`idle`), while a slow reader is served to the end; one that keeps every limit is
//! closed at the end of its `lifetime`; a client that keeps to the times is served as
//! usual.
#![cfg(feature = "server")]

mod common;

use common::{
    Issued, client, connect, fetch_page, identity_parts, rsa_identity, start_server_timed,
};
use cryptocard_rustls::server::{self, Counters, Options, Timeouts};
use rustls::ClientConfig;
use rustls::crypto::aws_lc_rs::default_provider as aws_lc;
use rustls::pki_types::ServerName;
use rustls::version::TLS13;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

const SHORT: Timeouts = Timeouts {
    handshake: Duration::from_millis(300),
    request: Duration::from_millis(300),
    idle: Duration::from_secs(60),
    lifetime: Duration::from_secs(600),
};

/// An RSA-2048 server with the [`SHORT`] timeouts: its root and identity, address and
/// counters.
async fn short_server() -> (Issued, SocketAddr, Arc<Counters>) {
    let id = rsa_identity(2048);
    let (addr, counters) =
        start_server_timed(vec![identity_parts(&id.1)], &Options::default(), SHORT).await;
    (id, addr, counters)
}

/// Waits (at most 20 s) for the server to close `conn`: the time since `t`. Callers take
/// `t` before the act that starts the server's timer (the connect, the last frame sent),
/// so that a late-scheduled client cannot see the close sooner than the limit.
async fn closed_by_server(conn: &mut (impl AsyncRead + Unpin), t: Instant) -> Duration {
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
    let t = Instant::now();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let waited = closed_by_server(&mut silent, t).await;
    assert!(waited >= Duration::from_millis(250), "closed before its time: {waited:?}");
    // A ClientHello's record header that promises 512 bytes, then nothing.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01]).await.unwrap();
    closed_by_server(&mut stalled, Instant::now()).await;
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
    closed_by_server(&mut quiet, Instant::now()).await;
    let mut partial = connect(addr, config.clone()).await;
    partial.write_all(b"GET / HTTP/1.1\r\nHost: loc").await.unwrap();
    closed_by_server(&mut partial, Instant::now()).await;
    let mut kept = connect(addr, config).await;
    kept.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
    let mut head = [0u8; 15];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 OK");
    closed_by_server(&mut kept, Instant::now()).await;
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
    let t = Instant::now();
    tls.write_all(&[0, 0, 0, 0x04, 0x01, 0, 0, 0, 0]).await.unwrap();
    let waited = closed_by_server(&mut tls, t).await;
    assert!(waited >= Duration::from_millis(250), "dropped before its time: {waited:?}");
}

/// One request, kept alive.
const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

/// The socket buffer asked for on both sides of the tests of slow and stopped readers (the
/// kernel doubles it): a client that stops reading stops the server's writes after some
/// tens of kB rather than megabytes.
const SMALL_BUFFER: u32 = 16 * 1024;

/// A server with `timeouts` whose connections have small send buffers (an accepted
/// socket inherits its listener's).
async fn small_buffered_server(timeouts: Timeouts) -> (Issued, SocketAddr, Arc<Counters>) {
    let id = rsa_identity(2048);
    let config = server::config(vec![identity_parts(&id.1)], &Options::default()).unwrap();
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(SMALL_BUFFER).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener: TcpListener = socket.listen(64).unwrap();
    let addr = listener.local_addr().unwrap();
    let counters = Arc::new(Counters::default());
    tokio::spawn(server::serve(listener, config, counters.clone(), timeouts));
    (id, addr, counters)
}

/// A TLS connection to `addr` with a small receive buffer.
async fn connect_small(addr: SocketAddr, config: Arc<ClientConfig>) -> TlsStream<TcpStream> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(SMALL_BUFFER).unwrap();
    let tcp = socket.connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    TlsConnector::from(config).connect(name, tcp).await.unwrap()
}

/// The [`SHORT`] handshake with an idle limit of 400 ms; requests may wait 30 s, so no
/// timer of hyper's can end a connection within these tests.
fn idle_400ms() -> Timeouts {
    Timeouts { idle: Duration::from_millis(400), ..Timeouts::default() }
}

/// A client that pipelines requests and never reads their responses leaves the server
/// waiting to write, where hyper runs no timer: the idle limit cuts the connection, and
/// counts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_cut_off() {
    let (id, addr, counters) = small_buffered_server(idle_400ms()).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let (_unread, mut writer) = tokio::io::split(connect_small(addr, config).await);
    let asking = tokio::spawn(async move {
        let requests = GET.repeat(100);
        // Until the server's close makes a write fail.
        while writer.write_all(&requests).await.is_ok() {}
    });
    let t = Instant::now();
    while counters.timed_out.load(Ordering::Relaxed) == 0 {
        assert!(t.elapsed() < Duration::from_secs(10), "a client that does not read kept 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::timeout(Duration::from_secs(10), asking)
        .await
        .expect("the connection is still open after its idle limit")
        .unwrap();
    assert_eq!(counters.timed_out.load(Ordering::Relaxed), 1);
    assert_eq!(counters.handshakes.load(Ordering::Relaxed), 1);
}

/// A client that reads its responses slowly, so that the server waits to write many times
/// over, is served to the end: each slice it takes lets the server write on, and that is
/// progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_served_to_the_end() {
    const REQUESTS: usize = 2000; // about 440 kB of responses
    const BYTES_PER_SECOND: f64 = 200e3;
    let (id, addr, counters) = small_buffered_server(idle_400ms()).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let (mut reader, mut writer) = tokio::io::split(connect_small(addr, config).await);
    let mut requests = GET.repeat(REQUESTS - 1);
    requests.extend_from_slice(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let asking = tokio::spawn(async move {
        writer.write_all(&requests).await.unwrap();
        writer // kept open: the server closes
    });
    let t = Instant::now();
    let (mut got, mut buf) = (Vec::new(), vec![0u8; 4096]);
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), reader.read(&mut buf))
            .await
            .expect("no response for 10 s")
            .expect("the server cut a slow reader off");
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        tokio::time::sleep(Duration::from_secs_f64(n as f64 / BYTES_PER_SECOND)).await;
    }
    let took = t.elapsed();
    let responses = got.windows(15).filter(|w| w == b"HTTP/1.1 200 OK").count();
    assert_eq!(responses, REQUESTS, "{} bytes in {took:?}", got.len());
    assert!(took > Duration::from_millis(1200), "too fast to test the idle limit: {took:?}");
    assert_eq!(counters.timed_out.load(Ordering::Relaxed), 0);
    drop(asking.await.unwrap());
}

/// The [`SHORT`] handshake, pings after 200 ms without a frame, and a lifetime of 1.5 s.
const BRIEF_LIFE: Timeouts = Timeouts {
    handshake: Duration::from_millis(300),
    request: Duration::from_millis(200),
    idle: Duration::from_secs(60),
    lifetime: Duration::from_millis(1500),
};

/// One HTTP/1 response off `conn`, or `None` once the server has closed it.
async fn next_response(conn: &mut (impl AsyncRead + Unpin)) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let text = String::from_utf8_lossy(&got);
        if let Some(head) = text.find("\r\n\r\n") {
            let length = text[..head]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase().strip_prefix("content-length:")?.trim().parse().ok()
                })
                .unwrap_or(0usize);
            if got.len() >= head + 4 + length {
                return Some(text.into_owned());
            }
        }
        match conn.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// `write_all` that ignores a server which has gone.
async fn send(conn: &mut (impl AsyncWrite + Unpin), bytes: &[u8]) {
    let _ = conn.write_all(bytes).await;
}

/// A client that keeps every other limit, an HTTP/2 peer that answers each ping but asks
/// nothing, or an HTTP/1 one that asks again and again, has its connection closed at the
/// end of its lifetime: gracefully (GOAWAY on HTTP/2), so not counted as timed out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_ends_with_its_lifetime() {
    let id = rsa_identity(2048);
    let (addr, counters) =
        start_server_timed(vec![identity_parts(&id.1)], &Options::default(), BRIEF_LIFE).await;
    let (config, _) = client(aws_lc(), id.0.cert(), &[&TLS13], &[]);
    let mut h2_config = (*config).clone();
    h2_config.alpn_protocols = vec![b"h2".to_vec()];
    // Each lifetime is timed from before the connect: the server's runs from its accept.
    let h2 = tokio::spawn(async move {
        let t = Instant::now();
        let mut tls = connect(addr, Arc::new(h2_config)).await;
        send(&mut tls, H2_PREFACE).await;
        let (mut pings, mut goaway) = (0, false);
        loop {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "an HTTP/2 peer that answers pings kept"
            );
            let mut head = [0u8; 9];
            let read = tokio::time::timeout(Duration::from_secs(10), tls.read_exact(&mut head));
            if read.await.expect("no frame for 10 s").is_err() {
                break;
            }
            let mut payload = vec![0u8; usize::from(head[1]) << 8 | usize::from(head[2])];
            if tls.read_exact(&mut payload).await.is_err() {
                break;
            }
            match (head[3], head[4] & 1) {
                (0x04, 0) => send(&mut tls, &[0, 0, 0, 0x04, 0x01, 0, 0, 0, 0]).await,
                (0x06, 0) => {
                    pings += 1;
                    send(&mut tls, &[&[0, 0, 8, 0x06, 0x01, 0, 0, 0, 0][..], &payload].concat())
                        .await;
                }
                (0x07, _) => goaway = true,
                _ => {}
            }
        }
        (t.elapsed(), pings, goaway)
    });
    let h1 = tokio::spawn(async move {
        let t = Instant::now();
        let mut tls = connect(addr, config).await;
        let mut responses = 0;
        loop {
            assert!(t.elapsed() < Duration::from_secs(10), "an HTTP/1 client that asks kept");
            send(&mut tls, GET).await;
            match tokio::time::timeout(Duration::from_secs(10), next_response(&mut tls)).await {
                Err(_) => panic!("no response for 10 s"),
                Ok(None) => break,
                Ok(Some(_)) => responses += 1,
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        (t.elapsed(), responses)
    });
    let (lived, pings, goaway) = h2.await.unwrap();
    assert!(pings >= 3, "{pings} pings in {lived:?}: the peer was not kept alive by them");
    assert!(goaway, "closed without a GOAWAY");
    assert!(lived >= Duration::from_millis(1300), "closed before its lifetime: {lived:?}");
    let (lived, responses) = h1.await.unwrap();
    assert!(responses >= 5, "{responses} responses in {lived:?}");
    assert!(lived >= Duration::from_millis(1300), "closed before its lifetime: {lived:?}");
    assert_eq!(counters.timed_out.load(Ordering::Relaxed), 0);
    assert_eq!(counters.handshakes.load(Ordering::Relaxed), 2);
}
