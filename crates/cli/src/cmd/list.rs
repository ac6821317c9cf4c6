//! `cryptocard list`: the commands, digest commands and cipher commands, as `openssl
//! list -commands`, `-digest-commands` and `-cipher-commands` list theirs (sorted, in
//! columns as wide as the longest name of the three lists plus two, as many as fit in 79
//! characters; one a line with `-1`), so that a script asking what is here finds it.
//! OpenSSL's lists of provided algorithms (`-digest-algorithms`, ...) name its providers'
//! implementations, which have no counterpart here, and are not offered.

use super::{COMMANDS, Spec, dgst, no_positional, print_text};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};

const SPEC: Spec = Spec {
    usage: "list [options]",
    flags: &[
        Flag::switch("1").about("List in one column"),
        Flag::switch("commands").about("List of standard commands"),
        Flag::switch("standard-commands").about("List of standard commands"),
        Flag::switch("digest-commands").about("List of message digest commands"),
        Flag::switch("cipher-commands").about("List of cipher commands"),
    ],
    notes: "",
    more: None,
};

/// The standard commands, as `help` lists them.
fn commands() -> Vec<String> {
    let mut names: Vec<String> = COMMANDS.iter().map(|c| c.name.to_string()).collect();
    names.sort();
    names
}

/// The ciphers that run as commands: every name and alias `enc` takes.
fn cipher_commands() -> Vec<String> {
    let mut names: Vec<String> = cryptocard::cipher::names().map(String::from).collect();
    names.sort();
    names.dedup();
    names
}

/// `names` in OpenSSL's columns (`width` each, as many as fit in 79), a blank line after.
fn columns(names: &[String], width: usize) -> String {
    let per_line = (79 / width).max(1);
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 && i % per_line == 0 {
            out.push('\n');
        }
        out.push_str(&format!("{name:<width$}"));
    }
    out.push_str("\n\n");
    out
}

/// Runs `list`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let lists = [commands(), dgst::digest_names(true), cipher_commands()];
    let width = lists.iter().flatten().map(String::len).max().unwrap_or(0) + 2;
    let mut out = String::new();
    let mut any = false;
    for (flags, names) in [
        (&["commands", "standard-commands"][..], &lists[0]),
        (&["digest-commands"][..], &lists[1]),
        (&["cipher-commands"][..], &lists[2]),
    ] {
        if flags.iter().any(|f| a.has(f)) {
            any = true;
            if a.has("1") {
                names.iter().for_each(|n| out.push_str(&format!("{n}\n")));
            } else {
                out.push_str(&columns(names, width));
            }
        }
    }
    if !any {
        return Err(Fail::msg("give -commands, -digest-commands or -cipher-commands (see -help)"));
    }
    print_text(&out);
    Ok(())
}
