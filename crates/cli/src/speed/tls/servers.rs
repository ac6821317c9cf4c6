//! The servers `speed --tls` and `speed --ocsp` measure: a command to start (or an
//! address to connect to), a port, and the processes whose CPU time counts. Built in:
//! `cryptocard s_server` on cryptocard and on stock rustls; for OCSP, `cryptocard ocsp`
//! and `openssl ocsp` as responders. Any other server comes as a command template
//! (`-server NAME=COMMAND`, with `{port}`, `{cert}`, `{key}`, `{chain}` and, for OCSP,
//! `{index}` filled in), so that HAProxy, nginx or `openssl s_server` are measured the
//! same way.

use cryptocard_rustls::rustls::pki_types::{CertificateDer, ServerName};
use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a started server has to accept its first connection.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// A server to measure.
#[derive(Debug, Clone)]
pub enum Spec {
    /// A command to start; its words, with placeholders.
    Start { name: String, words: Vec<String> },
    /// A server already running at an address (no CPU time: its processes are unknown),
    /// whose chain the clients check against `roots` (`-CAfile`) for `server_name`.
    Connect {
        name: String,
        addr: String,
        server_name: ServerName<'static>,
        roots: Vec<CertificateDer<'static>>,
    },
}

impl Spec {
    /// `cryptocard s_server` on `provider` (cryptocard or stock), resumption off.
    pub fn builtin(provider: &str, version_flag: &str) -> Result<Spec, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let words = [
            &exe.to_string_lossy(),
            "s_server",
            "-accept",
            "127.0.0.1:{port}",
            "-cert",
            "{chain}",
            "-key",
            "{key}",
            "-provider",
            provider,
            "-no_resumption",
            version_flag,
        ];
        let name = if provider == "stock" { "rustls+aws-lc-rs" } else { "cryptocard" };
        Ok(Spec::Start { name: name.into(), words: words.iter().map(|w| w.to_string()).collect() })
    }

    /// An OCSP responder answering from the CA database `{index}` as the CA `{cert}`
    /// (key `{key}`): `cryptocard ocsp` on 64 threads with its signatures batched through
    /// the engine, or `openssl ocsp` forking a responder process a core (`-multi`).
    pub fn ocsp(name: &str) -> Result<Spec, String> {
        let responder = "-index {index} -CA {cert} -rsigner {cert} -rkey {key} -port {port}";
        let (program, multi) = match name {
            "cryptocard" => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find this program: {e}"))?;
                (exe.to_string_lossy().into_owned(), 64)
            }
            "openssl" => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                ("openssl".to_string(), cores)
            }
            _ => return Err(format!("-servers: '{name}' is not cryptocard or openssl")),
        };
        let mut words = vec![program, "ocsp".into()];
        words.extend(responder.split(' ').map(str::to_string));
        words.extend(["-multi".to_string(), multi.to_string()]);
        Ok(Spec::Start { name: name.into(), words })
    }

    /// `NAME=COMMAND` from `-server`.
    pub fn custom(arg: &str) -> Result<Spec, String> {
        let (name, command) =
            arg.split_once('=').ok_or_else(|| format!("-server: '{arg}' is not NAME=COMMAND"))?;
        let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if name.is_empty() || words.is_empty() {
            return Err(format!("-server: '{arg}' is not NAME=COMMAND"));
        }
        if !command.contains("{port}") {
            return Err(format!("-server {name}: the command must listen on {{port}}"));
        }
        Ok(Spec::Start { name: name.into(), words })
    }
}

/// The files a started server reads: its certificate chain, the server certificate alone
/// and the key, all PEM; for an OCSP responder the CA's certificate and key and its
/// database.
#[derive(Debug)]
pub struct Files {
    pub chain: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    pub index: PathBuf,
}

/// A server being measured; a started one is stopped when this is dropped.
#[derive(Debug)]
pub struct Running {
    pub name: String,
    pub addr: SocketAddr,
    child: Option<Child>,
}

impl Running {
    /// Starts (or finds) the server of `spec`, pinned to `cpu` when given, and waits
    /// until it accepts connections. Its output goes to `log`, shown if it fails.
    pub fn start(
        spec: &Spec,
        files: &Files,
        cpu: Option<usize>,
        log: &Path,
    ) -> Result<Running, String> {
        let (name, words) = match spec {
            Spec::Connect { name, addr, .. } => {
                let addr = resolve(addr)?;
                wait_ready(addr, None, log)?;
                return Ok(Running { name: name.clone(), addr, child: None });
            }
            Spec::Start { name, words } => (name, words),
        };
        let port = free_port()?;
        let fill = |w: &String| {
            w.replace("{port}", &port.to_string())
                .replace("{chain}", &files.chain.to_string_lossy())
                .replace("{cert}", &files.cert.to_string_lossy())
                .replace("{key}", &files.key.to_string_lossy())
                .replace("{index}", &files.index.to_string_lossy())
        };
        let mut words: Vec<String> = words.iter().map(fill).collect();
        if let Some(cpu) = cpu {
            words.splice(0..0, ["taskset".to_string(), "-c".into(), cpu.to_string()]);
        }
        let out = File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
        // In a process group of its own, so that stopping it stops what it started too
        // (a script's server, nginx's workers).
        let child = Command::new(&words[0])
            .args(&words[1..])
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("{name}: cannot start {}: {e}", words[0]))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut running = Running { name: name.clone(), addr, child: Some(child) };
        wait_ready(addr, running.child.as_mut(), log).map_err(|e| format!("{name}: {e}"))?;
        Ok(running)
    }

    /// The CPU seconds (user + system) that the server's process and its descendants
    /// have used so far; `None` for a server this run did not start.
    pub fn cpu_seconds(&self) -> Option<f64> {
        let pid = self.child.as_ref()?.id();
        super::cpu::tree_seconds(pid)
    }
}

impl Drop for Running {
    /// Stops the server's process group: SIGTERM, so that scripts clean up (their key
    /// files) and servers exit through their handlers, then SIGKILL after 5 s.
    fn drop(&mut self) {
        let Some(child) = &mut self.child else { return };
        let group = format!("-{}", child.id());
        let signal = |sig: &str| {
            let _ = Command::new("kill").args([sig, "--", &group]).stderr(Stdio::null()).status();
        };
        signal("-TERM");
        let start = Instant::now();
        while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        signal("-KILL");
        let _ = child.wait();
    }
}

/// A port nobody listens on now (the kernel's pick for a bound, then closed, socket).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    addr.to_socket_addrs()
        .map_err(|e| format!("-connect {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("-connect {addr}: no address"))
}

/// Waits until `addr` accepts a TCP connection, or the server exits, or time runs out.
fn wait_ready(addr: SocketAddr, mut child: Option<&mut Child>, log: &Path) -> Result<(), String> {
    let start = Instant::now();
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Some(Ok(Some(status))) = child.as_deref_mut().map(Child::try_wait) {
            let said = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!("the server exited ({status}) before listening: {}", said.trim()));
        }
        if start.elapsed() > READY_TIMEOUT {
            return Err(format!("nothing accepts connections on {addr} after {READY_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
