//! How a command fails: one line on stderr and an exit status, never a backtrace.
//!
//! Commands return [`CmdResult`]; `main` prints the [`Fail`] and exits with its status.
//! Most lines read `cryptocard CMD: what went wrong`; a few are printed bare because
//! OpenSSL prints them so and scripts look for them (`bad decrypt`); some failures have
//! already said what they had to say on stdout (`Verification failure`) and print nothing
//! more.

use crate::args::ArgError;
use std::fmt;

/// A failed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    line: Option<String>,
    bare: bool,
    /// The process exit status.
    pub code: i32,
}

/// What every command returns.
pub type CmdResult<T = ()> = Result<T, Fail>;

impl Fail {
    /// Exit status 1 with `cryptocard CMD: msg`.
    pub fn msg(msg: impl Into<String>) -> Fail {
        Fail { line: Some(msg.into()), bare: false, code: 1 }
    }

    /// Exit status 1 with `msg` alone on the line (OpenSSL's `bad decrypt`).
    pub fn bare(msg: impl Into<String>) -> Fail {
        Fail { line: Some(msg.into()), bare: true, code: 1 }
    }

    /// Exit status `code`, nothing more to print.
    pub fn silent(code: i32) -> Fail {
        Fail { line: None, bare: false, code }
    }

    /// A library error while doing `what`: `what: error`.
    pub fn lib(what: &str, e: cryptocard::Error) -> Fail {
        Fail::msg(format!("{what}: {e}"))
    }

    /// The line for stderr, if any, for command `cmd`.
    pub fn line(&self, cmd: &str) -> Option<String> {
        self.line
            .as_ref()
            .map(|l| if self.bare { l.clone() } else { format!("cryptocard {cmd}: {l}") })
    }
}

impl From<ArgError> for Fail {
    fn from(e: ArgError) -> Fail {
        Fail::msg(format!("{e} (see -help)"))
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.line.as_deref().unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_codes() {
        assert_eq!(Fail::msg("x").line("enc").as_deref(), Some("cryptocard enc: x"));
        assert_eq!(Fail::bare("bad decrypt").line("enc").as_deref(), Some("bad decrypt"));
        assert_eq!(Fail::silent(1).line("dgst"), None);
        let e = Fail::from(ArgError("unknown option '-x'".into()));
        assert_eq!(
            e.line("mac").as_deref(),
            Some("cryptocard mac: unknown option '-x' (see -help)")
        );
        assert_eq!(e.code, 1);
    }
}
