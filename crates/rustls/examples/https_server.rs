//! An HTTPS server on rustls whose RSA signatures run on cryptocard.
//!
//! ```text
//! cargo run --release -p cryptocard-rustls --example https_server -- \
//!     [--cert chain.pem --key key.pem] [--addr 127.0.0.1:8443] \
//!     [--stack cryptocard|stock] [--no-resumption] [--tls12|--tls13] [--threads N]
//! ```
//!
//! Without `--cert`, it makes a root and an RSA-2048 server certificate for localhost and
//! 127.0.0.1 on the spot and writes the root to `root.pem` in the working directory, so
//! `curl --cacert root.pem https://127.0.0.1:8443/` works at once.

use cryptocard_rustls::cert::{Authority, pem};
use cryptocard_rustls::server::{self, Options, Stack, Versions};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("https_server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = Options::default();
    let (mut cert, mut key, mut addr, mut threads) = (None, None, "127.0.0.1:8443".to_string(), 0);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--cert" => cert = Some(PathBuf::from(value()?)),
            "--key" => key = Some(PathBuf::from(value()?)),
            "--addr" => addr = value()?,
            "--threads" => threads = value()?.parse().map_err(|_| "--threads takes a number")?,
            "--stack" => {
                options.stack = Stack::parse(&value()?).ok_or("--stack is cryptocard or stock")?
            }
            "--no-resumption" => options.resumption = false,
            "--tls12" => options.versions = Versions::Tls12,
            "--tls13" => options.versions = Versions::Tls13,
            _ => return Err(format!("unknown option {arg}").into()),
        }
    }
    let identity = match (cert, key) {
        (Some(cert), Some(key)) => (server::read_chain(&cert)?, server::read_key(&key)?),
        (None, None) => {
            let root = Authority::generate("cryptocard example root", 2048)?;
            let id = root.issue_rsa(2048, &["localhost", "127.0.0.1"])?;
            std::fs::write("root.pem", pem("CERTIFICATE", root.cert()))
                .map_err(|e| format!("root.pem: {e}"))?;
            eprintln!("https_server: made a certificate on the spot; its root is in root.pem");
            (id.chain, id.key)
        }
        _ => return Err("--cert and --key go together".into()),
    };
    let config = server::config(vec![identity], &options)?;
    server::run(&addr, threads, config, |bound| {
        println!("https_server: {:?} on https://{bound}/", options.stack);
    })?;
    Ok(())
}
