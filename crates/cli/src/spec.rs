//! A command's flags and `-help` text ([`Spec`]), and the small helpers every command
//! uses with it. Below both the command table (`cmd`) and `speed`, which use it.

use crate::args::{self, Flag, Parsed};
use crate::fail::{CmdResult, Fail};

/// A command's flags and `-help` text.
#[derive(Debug)]
pub struct Spec {
    /// The usage line after "Usage: cryptocard ".
    pub usage: &'static str,
    /// The flags.
    pub flags: &'static [Flag],
    /// Lines after the flag table (dynamic flags, names, notes); "" for none.
    pub notes: &'static str,
    /// Lines made at run time after `notes` (lists of names a table holds), if any.
    pub more: Option<fn() -> String>,
}

const HELP: Flag = Flag::switch("help").about("Display this summary");

impl Spec {
    /// Parses `argv`; `None` when `-help` was given (the help is printed then).
    pub fn parse(&self, argv: &[String]) -> CmdResult<Option<Parsed>> {
        self.parse_with(argv, &|_| false)
    }

    /// As [`Spec::parse`], with dynamic switches (see [`args::parse_with`]).
    pub fn parse_with(
        &self,
        argv: &[String],
        dynamic: &dyn Fn(&str) -> bool,
    ) -> CmdResult<Option<Parsed>> {
        let mut flags = vec![HELP, Flag::switch("h"), Flag::switch("?")];
        flags.extend_from_slice(self.flags);
        let p = args::parse_with(argv, &flags, dynamic)?;
        if p.has("help") || p.has("h") || p.has("?") {
            print_text(&self.help());
            return Ok(None);
        }
        Ok(Some(p))
    }

    /// The `-help` text.
    pub fn help(&self) -> String {
        let mut flags = vec![HELP];
        flags.extend_from_slice(self.flags);
        let mut text = args::help(&format!("cryptocard {}", self.usage), &flags);
        let more = self.more.map(|f| f()).unwrap_or_default();
        for notes in [self.notes, &more] {
            if !notes.is_empty() {
                text.push('\n');
                text.push_str(notes);
                if !notes.ends_with('\n') {
                    text.push('\n');
                }
            }
        }
        text
    }
}

/// Writes `text` to stdout, ignoring a closed pipe (help piped into `head`).
pub fn print_text(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Fails unless `p` has no positional words.
pub fn no_positional(p: &Parsed) -> CmdResult {
    match p.positional.first() {
        Some(w) => Err(Fail::msg(format!("unexpected argument '{w}' (see -help)"))),
        None => Ok(()),
    }
}
