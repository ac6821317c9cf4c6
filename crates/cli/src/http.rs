//! DER requests and answers over HTTP, as OCSP (RFC 6960 Appendix A.1) and time-stamping
//! (RFC 3161 section 3.4) carry them: the client's POST of a request and read of the
//! answer, and a server that takes requests by POST (or, for OCSP, by GET: the DER,
//! base64, URL-encoded, as the path) and answers each, one at a time ([`serve`]) or on
//! many threads at once ([`serve_concurrently`]). HTTP/1.0, one exchange a connection, as
//! `openssl ocsp` speaks it; the client speaks HTTPS too (`https`, where the `tls`
//! feature is built), the server plain HTTP only.
//!
//! Hostile peers get bounded work: the head of a message is at most [`MAX_HEAD`] bytes,
//! its body at most [`crate::io::MAX_CERT_INPUT`], and a whole message must arrive
//! within the timeout (not each read: a peer trickling bytes is cut off too). A server
//! answers a bad HTTP request with an error status and goes on.

use crate::fail::{CmdResult, Fail};
use crate::io::MAX_CERT_INPUT;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The most bytes of a message's status or request line and headers.
pub const MAX_HEAD: usize = 16 << 10;

/// A protocol carried: its media types and what its server says.
#[derive(Debug)]
pub struct Protocol {
    /// The command, for messages (`ocsp`).
    pub name: &'static str,
    /// The media type of requests.
    pub request_type: &'static str,
    /// The media type of answers.
    pub response_type: &'static str,
    /// Requests may come by GET too (OCSP's base64 path).
    pub get: bool,
    /// The server's line on stderr while it waits.
    pub waiting: &'static str,
    /// Log each request's first line on stderr (as `openssl ocsp` does).
    pub log_requests: bool,
}

/// OCSP (RFC 6960 Appendix A.1), as `openssl ocsp` speaks it.
pub const OCSP: Protocol = Protocol {
    name: "ocsp",
    request_type: "application/ocsp-request",
    response_type: "application/ocsp-response",
    get: true,
    waiting: "ocsp: waiting for OCSP client connections...",
    log_requests: true,
};

/// Time-stamping (RFC 3161 section 3.4).
pub const TSP: Protocol = Protocol {
    name: "ts",
    request_type: "application/timestamp-query",
    response_type: "application/timestamp-reply",
    get: false,
    waiting: "ts: waiting for time-stamp requests...",
    log_requests: false,
};

/// Where a request goes: host, port and path of an `http://` or `https://` URL.
#[derive(Debug, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: u16,
    pub path: String,
    /// Over TLS (`https://`).
    pub tls: bool,
}

impl Url {
    /// `http[s]://HOST[:PORT][/PATH]`, the host a name, an IPv4 address or `[IPv6]`.
    pub fn parse(url: &str) -> CmdResult<Url> {
        let bad = |why: &str| Fail::msg(format!("-url {url}: {why}"));
        let (rest, tls) = match url.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => (rest, false),
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => (rest, true),
            _ => return Err(bad("not an http:// or https:// URL")),
        };
        if tls && cfg!(not(feature = "tls")) {
            return Err(bad("HTTPS needs cryptocard built with its `tls` feature"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let default_port = if tls { 443 } else { 80 };
        let url = Url::with_port(authority, path, default_port).map_err(|e| bad(&e))?;
        Ok(Url { tls, ..url })
    }

    /// `HOST[:PORT]` (as `-host` gives it) and a path, over plain HTTP.
    pub fn from_host(authority: &str, path: &str) -> Result<Url, String> {
        Url::with_port(authority, path, 80)
    }

    /// `HOST[:PORT]` and a path, the port `default` unless given.
    fn with_port(authority: &str, path: &str, default: u16) -> Result<Url, String> {
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6.split_once(']').ok_or("an unclosed [ in the host")?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            },
        };
        if host.is_empty() || host.contains(['@', '/']) || host.contains(bad_char) {
            return Err("no valid host".into());
        }
        if path.contains(bad_char) {
            return Err("a space or control character in the path".into());
        }
        let port = match port {
            None => default,
            Some(p) => p.parse().ok().filter(|&p| p != 0).ok_or("invalid port number")?,
        };
        let path = if path.starts_with('/') { path.to_string() } else { format!("/{path}") };
        Ok(Url { host: host.to_string(), port, path, tls: false })
    }
}

/// Characters a URL's host or path may not carry into the request line: spaces and
/// controls (a line break would start a header of the URL's making).
fn bad_char(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// POSTs the DER `request` of `proto` to `url` with the extra `headers` (`name: value`)
/// and returns the DER of the answer: the connection, each write and the whole answer
/// within `timeout`.
pub fn post(
    url: &Url,
    proto: &Protocol,
    request: &[u8],
    headers: &[(String, String)],
    timeout: Duration,
) -> CmdResult<Vec<u8>> {
    let peer = format!("{}:{}", url.host, url.port);
    let fail = |e: std::io::Error| Fail::msg(format!("{peer}: {e}"));
    let addrs = (url.host.as_str(), url.port).to_socket_addrs().map_err(fail)?;
    let mut last = None;
    let mut stream = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let stream = match (stream, last) {
        (Some(s), _) => s,
        (None, Some(e)) => return Err(fail(e)),
        (None, None) => return Err(Fail::msg(format!("{peer}: no address"))),
    };
    stream.set_read_timeout(Some(timeout)).map_err(fail)?;
    stream.set_write_timeout(Some(timeout)).map_err(fail)?;
    let host = match url.host.contains(':') {
        true => format!("[{}]", url.host),
        false => url.host.clone(),
    };
    let mut head = format!("POST {} HTTP/1.0\r\nHost: {host}", url.path);
    if url.port != if url.tls { 443 } else { 80 } {
        head.push_str(&format!(":{}", url.port));
    }
    head.push_str(&format!("\r\nAccept: {}\r\n", proto.response_type));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: {}\r\nContent-Length: {}\r\n\r\n",
        proto.request_type,
        request.len()
    ));
    let message = match url.tls {
        #[cfg(feature = "tls")]
        true => {
            let socket = stream.try_clone().map_err(fail)?;
            let mut tls = crate::https::wrap(&url.host, stream)
                .map_err(|e| Fail::msg(format!("{peer}: {e}")))?;
            post_on(&mut tls, &socket, &head, request, timeout)
        }
        _ => post_on(&mut &stream, &stream, &head, request, timeout),
    }
    .map_err(|e| Fail::msg(format!("{peer}: {e}")))?;
    let mut words = message.first_line.splitn(3, ' ');
    let (version, code) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if !version.starts_with("HTTP/1.") {
        return Err(Fail::msg(format!("{peer}: not an HTTP response")));
    }
    if code != "200" {
        return Err(Fail::msg(format!("{peer}: the server answered {}", message.first_line)));
    }
    match message.header("content-type") {
        Some(t) if t.eq_ignore_ascii_case(proto.response_type) => Ok(message.body),
        other => Err(Fail::msg(format!(
            "{peer}: the answer's content type is {}, not {}",
            other.unwrap_or("missing"),
            proto.response_type
        ))),
    }
}

/// Sends the request (`head`, then `request`) on `conn` and reads the answer, the whole
/// of it within `timeout`; `socket` is the connection's socket, whose read timeout is
/// kept to what is left (`conn` is the socket itself, or TLS over it).
fn post_on<S: Read + Write>(
    conn: &mut S,
    socket: &TcpStream,
    head: &str,
    request: &[u8],
    timeout: Duration,
) -> Result<Message, String> {
    conn.write_all(head.as_bytes())
        .and_then(|()| conn.write_all(request))
        .and_then(|()| conn.flush())
        .map_err(|e| io_text(&e))?;
    read_message(&mut Deadline::after(socket, conn, timeout), true)
}

/// Reads from a connection until a deadline: each read waits at most for what is left.
struct Deadline<'a, R> {
    socket: &'a TcpStream,
    conn: R,
    until: Instant,
}

impl<'a, R: Read> Deadline<'a, R> {
    fn after(socket: &'a TcpStream, conn: R, timeout: Duration) -> Deadline<'a, R> {
        Deadline { socket, conn, until: Instant::now() + timeout }
    }
}

impl<R: Read> Read for Deadline<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.socket.set_read_timeout(Some(left))?;
        self.conn.read(buf)
    }
}

/// One HTTP message: its first line, headers and body.
#[derive(Debug)]
struct Message {
    first_line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Message {
    /// The value of the header `name` (lower case), if present.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Reads one message: the head up to the blank line (at most [`MAX_HEAD`] bytes), then
/// `Content-Length` bytes of body; without a length, a request has none and a response
/// (`to_eof`) what comes before the end of the stream (at most [`MAX_CERT_INPUT`] either
/// way).
fn read_message(stream: &mut impl Read, to_eof: bool) -> Result<Message, String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(format!("a message head over {MAX_HEAD} bytes"));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err("the connection closed before the end of the head".into()),
            Ok(k) => buf.extend_from_slice(&chunk[..k]),
            Err(e) => return Err(io_text(&e)),
        }
    };
    let head = std::str::from_utf8(&buf[..end]).map_err(|_| "a message head that is not text")?;
    let mut lines = head.split("\r\n");
    let first_line = lines.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(':').ok_or("a header line without a colon")?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut message = Message { first_line, headers, body: buf[end + 4..].to_vec() };
    let length = match message.header("content-length") {
        Some(v) => Some(v.parse::<usize>().map_err(|_| format!("Content-Length {v}"))?),
        None => None,
    };
    let (cap, extra) = match length {
        Some(n) => (n, 0),
        // One byte past the cap tells a body over it.
        None if to_eof => (MAX_CERT_INPUT, 1),
        None => {
            message.body.clear();
            return Ok(message);
        }
    };
    if cap > MAX_CERT_INPUT {
        return Err(format!("a body of {cap} bytes, over {MAX_CERT_INPUT}"));
    }
    let rest = cap.saturating_sub(message.body.len());
    stream.take(rest as u64 + extra).read_to_end(&mut message.body).map_err(|e| io_text(&e))?;
    if message.body.len() < cap && length.is_some() {
        return Err("the body is shorter than its length".into());
    }
    if message.body.len() > cap && length.is_none() {
        return Err(format!("a body over {cap} bytes"));
    }
    message.body.truncate(cap);
    Ok(message)
}

/// An I/O error in words, a timeout as one.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => "timed out".into(),
        _ => e.to_string(),
    }
}

/// A listener on `port` (every address, IPv6 and IPv4 where the system allows), its
/// address said as OpenSSL's `ACCEPT` line on stdout (useful when 0 asked the system for a
/// port) after `proto`'s waiting line on stderr.
fn listen(port: u16, proto: &Protocol) -> CmdResult<TcpListener> {
    let listener = TcpListener::bind(("::", port))
        .or_else(|_| TcpListener::bind(("0.0.0.0", port)))
        .map_err(|e| Fail::msg(format!("-port {port}: {e}")))?;
    let local = listener.local_addr().map_err(|e| Fail::msg(format!("-port {port}: {e}")))?;
    eprintln!("{}", proto.waiting);
    println!("ACCEPT {local} PID={}", std::process::id());
    std::io::stdout().flush().map_err(|e| Fail::msg(format!("stdout: {e}")))?;
    Ok(listener)
}

/// The next connection, with `timeout` on its reads and writes; `None` for one that could
/// not be set up (out of descriptors, say: after a short wait rather than a spin).
fn next_connection(listener: &TcpListener, timeout: Duration) -> Option<TcpStream> {
    let Ok((stream, _)) = listener.accept() else {
        std::thread::sleep(Duration::from_millis(50));
        return None;
    };
    stream.set_read_timeout(Some(timeout)).and(stream.set_write_timeout(Some(timeout))).ok()?;
    Some(stream)
}

/// One exchange on `stream`: the request read, `answer`'s DER (or an error status) sent.
fn exchange(
    mut stream: TcpStream,
    timeout: Duration,
    proto: &Protocol,
    answer: impl FnOnce(&[u8]) -> CmdResult<Vec<u8>>,
) {
    let reply = match read_request(&mut Deadline::after(&stream, &stream, timeout), proto) {
        Ok(der) => match answer(&der) {
            Ok(response) => ok_reply(proto, &response),
            Err(e) => {
                eprintln!("{}: {}", proto.name, e.line(proto.name).unwrap_or_default());
                b"HTTP/1.0 500 Internal Server Error\r\n\r\n".to_vec()
            }
        },
        Err(why) => {
            eprintln!("{}: a bad request: {why}", proto.name);
            b"HTTP/1.0 400 Bad Request\r\n\r\n".to_vec()
        }
    };
    // A client that went away is its own loss, not the server's.
    let _ = stream.write_all(&reply);
}

/// Serves `proto` on `port`, one connection at a time: each request's DER goes to
/// `answer`, whose DER goes back. Stops after `count` connections answered, bad requests
/// included (never if 0).
pub fn serve(
    port: u16,
    count: u64,
    timeout: Duration,
    proto: &Protocol,
    mut answer: impl FnMut(&[u8]) -> CmdResult<Vec<u8>>,
) -> CmdResult {
    let listener = listen(port, proto)?;
    let mut served = 0u64;
    while count == 0 || served < count {
        let Some(stream) = next_connection(&listener, timeout) else { continue };
        // Every connection answered counts, a bad one too.
        served += 1;
        exchange(stream, timeout, proto, &mut answer);
    }
    Ok(())
}

/// [`serve`] on `max` threads, each taking the next connection as it is free (as
/// `openssl ocsp -multi` runs its responder processes), so that the answers of many
/// clients are worked on together; threads that stay, rather than one a connection,
/// spare every connection a thread's start. After `count` connections (never if 0) the
/// threads finish those under way and stop.
pub fn serve_concurrently(
    port: u16,
    count: u64,
    timeout: Duration,
    proto: &Protocol,
    max: usize,
    answer: impl Fn(&[u8]) -> CmdResult<Vec<u8>> + Sync,
) -> CmdResult {
    let listener = listen(port, proto)?;
    // Each thread claims a connection's place before it waits for one, so that exactly
    // `count` are taken and no thread waits for a connection that will not be served.
    let claimed = std::sync::atomic::AtomicU64::new(0);
    let claim = || count == 0 || claimed.fetch_add(1, Ordering::Relaxed) < count;
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..max.max(1) {
            let (listener, answer, claim) = (&listener, &answer, &claim);
            let thread = std::thread::Builder::new().spawn_scoped(scope, move || {
                while claim() {
                    let stream = loop {
                        if let Some(s) = next_connection(listener, timeout) {
                            break s;
                        }
                    };
                    exchange(stream, timeout, proto, answer);
                }
            });
            match thread {
                Ok(_) => started += 1,
                // Out of threads: those started serve.
                Err(e) if started > 0 => {
                    eprintln!("{}: {started} threads serve ({e})", proto.name);
                    break;
                }
                Err(e) => {
                    return Err(Fail::msg(format!("{}: no thread to serve: {e}", proto.name)));
                }
            }
        }
        Ok(())
    })
}

/// The `200 OK` reply carrying `response`.
fn ok_reply(proto: &Protocol, response: &[u8]) -> Vec<u8> {
    let head = format!(
        "HTTP/1.0 200 OK\r\nContent-type: {}\r\nContent-Length: {}\r\n\r\n",
        proto.response_type,
        response.len()
    );
    [head.as_bytes(), response].concat()
}

/// The DER request of a POST (its body) or, where `proto` takes them, a GET (its path,
/// URL-encoded base64).
fn read_request(stream: &mut impl Read, proto: &Protocol) -> Result<Vec<u8>, String> {
    let message = read_message(stream, false)?;
    if proto.log_requests {
        eprintln!("{}: Received request, 1st line: {}", proto.name, message.first_line);
    }
    let mut words = message.first_line.split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    match method {
        "POST" => Ok(message.body),
        "GET" if proto.get => {
            let encoded = percent_decode(target.trim_start_matches('/'))?;
            let mut der = Vec::new();
            crate::base64::Decoder::new(encoded.as_slice())
                .read_to_end(&mut der)
                .map_err(|_| "a GET path that is not base64".to_string())?;
            Ok(der)
        }
        _ => Err(format!("the method {method:?}")),
    }
}

/// `%XX` escapes decoded.
fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b != b'%' {
            out.push(b);
            continue;
        }
        let hex: Vec<u8> = bytes.by_ref().take(2).collect();
        let v = std::str::from_utf8(&hex)
            .ok()
            .filter(|h| h.len() == 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or("a bad % escape in the path")?;
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let u = Url::parse("http://ocsp.example:8080/a/b").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("ocsp.example", 8080, "/a/b"));
        let u = Url::parse("HTTP://[::1]:9").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("::1", 9, "/"));
        assert_eq!(Url::parse("http://h").unwrap().port, 80);
        if cfg!(feature = "tls") {
            let u = Url::parse("https://ocsp.example/x").unwrap();
            assert_eq!((u.port, u.tls, u.path.as_str()), (443, true, "/x"));
            assert_eq!(Url::parse("https://h:8443").unwrap().port, 8443);
        } else {
            assert!(Url::parse("https://h/").is_err());
        }
        assert!(!Url::parse("http://h").unwrap().tls);
        for bad in [
            "https://:443/",
            "ftp://h",
            "h:80",
            "http://:80/",
            "http://h:x/",
            "http://h:0/",
            "http://[::1/",
            "http://h/a b",
            "http://h/a\r\nX: y",
            "http://h\n/",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn messages_are_bounded() {
        let ok = b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabcdef";
        let m = read_message(&mut &ok[..], true).unwrap();
        assert_eq!((m.first_line.as_str(), m.body.as_slice()), ("HTTP/1.0 200 OK", &b"abc"[..]));
        let short = b"HTTP/1.0 200 OK\r\nContent-Length: 9\r\n\r\nabc";
        assert!(read_message(&mut &short[..], true).is_err());
        let open = b"HTTP/1.0 200 OK\r\n\r\nto the end";
        assert_eq!(read_message(&mut &open[..], true).unwrap().body, b"to the end");
        // A request without a length has no body (and does not wait for one).
        let get = b"GET /x HTTP/1.0\r\n\r\nstray";
        assert!(read_message(&mut &get[..], false).unwrap().body.is_empty());
        let huge = format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", MAX_CERT_INPUT + 1);
        assert!(read_message(&mut huge.as_bytes(), true).is_err());
        let endless = vec![b'a'; MAX_HEAD + 8192];
        assert!(read_message(&mut endless.as_slice(), true).unwrap_err().contains("head over"));
        assert!(read_message(&mut &b"GET / HTTP/1.0\r\nno colon\r\n\r\n"[..], false).is_err());
    }

    #[test]
    fn a_trickling_peer_is_cut_off() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let peer = std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            // A byte every 100 ms: each read is quick, the whole head never ends.
            for _ in 0..30 {
                if s.write_all(b"a").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let (stream, _) = listener.accept().unwrap();
        let start = Instant::now();
        let err =
            read_request(&mut Deadline::after(&stream, &stream, Duration::from_millis(700)), &OCSP);
        assert_eq!(err.unwrap_err(), "timed out");
        assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
        drop(stream);
        peer.join().unwrap();
    }

    #[test]
    fn get_requests_decode() {
        let m = b"GET /MAMCAQA%3D HTTP/1.0\r\n\r\n";
        assert_eq!(read_request(&mut &m[..], &OCSP).unwrap(), [0x30, 0x03, 0x02, 0x01, 0x00]);
        assert!(read_request(&mut &b"GET /%zz HTTP/1.0\r\n\r\n"[..], &OCSP).is_err());
        assert!(read_request(&mut &b"PUT / HTTP/1.0\r\n\r\n"[..], &OCSP).is_err());
        // Time stamps come by POST only.
        assert!(read_request(&mut &m[..], &TSP).is_err());
    }
}
