//! `cryptocard`: an OpenSSL-compatible command line, and `speed`, which measures cryptocard
//! side by side with OpenSSL and GMP.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("version") => println!("cryptocard {}", env!("CARGO_PKG_VERSION")),
        _ => {
            eprintln!("usage: cryptocard version");
            std::process::exit(1);
        }
    }
}
