//! `cryptocard`: an OpenSSL-compatible command line, and `speed`, which measures cryptocard
//! side by side with OpenSSL and GMP.
//!
//! Subcommands take OpenSSL-style flags, parsed by [`args`].

mod args;
mod speed;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let status = match argv.first().map(String::as_str) {
        Some("version") => {
            println!("cryptocard {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Some("speed") => speed::main(&argv[1..]),
        Some(other) => {
            eprintln!("cryptocard: unknown command '{other}' (commands: speed, version)");
            1
        }
        None => {
            eprintln!("usage: cryptocard speed [ALG ...] [options] | cryptocard version");
            1
        }
    };
    std::process::exit(status);
}
