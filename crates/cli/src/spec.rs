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

/// OpenSSL 3's provider options, which scripts written for it pass to every command
/// (`-provider legacy -provider default` to reach DES and MD4). Every algorithm here is
/// built in, so the providers that hold OpenSSL's own algorithms are accepted and change
/// nothing; any other (FIPS, a third party's module) is refused, since what it would bring
/// is not here. A command with its own `-provider` (s_server) keeps its meaning.
const PROVIDER_FLAGS: [Flag; 3] = [
    Flag::value("provider", "NAME").about("default, legacy or base: accepted, all built in"),
    Flag::value("provider-path", "DIR").about("Accepted for OpenSSL 3's scripts; unused"),
    Flag::value("propquery", "QUERY")
        .about("Accepted; one asking for FIPS or another provider is refused"),
];

/// The providers whose algorithms are built in.
const BUILT_IN_PROVIDERS: [&str; 3] = ["default", "legacy", "base"];

/// Refuses a `-provider` or `-propquery` that asks for what is not here; `own` names the
/// options the command defines itself, which are its own to check.
fn check_providers(p: &Parsed, own: &dyn Fn(&str) -> bool) -> CmdResult {
    for name in p.values("provider").into_iter().filter(|_| !own("provider")) {
        if !BUILT_IN_PROVIDERS.contains(&name) {
            return Err(Fail::msg(format!(
                "-provider {name}: not available (the algorithms of OpenSSL's default, \
                 legacy and base providers are built in)"
            )));
        }
    }
    for query in p.values("propquery").into_iter().filter(|_| !own("propquery")) {
        for clause in query.split(',').map(str::trim) {
            if clause.starts_with('?') || clause.is_empty() {
                continue;
            }
            let (name, value) = clause.split_once('=').unwrap_or((clause, "yes"));
            let (name, value) = (name.trim(), value.trim().trim_matches('"'));
            let refused = match name {
                "fips" => !matches!(value, "no" | "false"),
                "provider" => !BUILT_IN_PROVIDERS.contains(&value),
                _ => false,
            };
            if refused {
                return Err(Fail::msg(format!("-propquery {query}: '{clause}' is not available")));
            }
        }
    }
    Ok(())
}

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
        flags.extend_from_slice(&self.all_flags());
        let p = args::parse_with(argv, &flags, dynamic)?;
        if p.has("help") || p.has("h") || p.has("?") {
            print_text(&self.help());
            return Ok(None);
        }
        check_providers(&p, &|name| self.flags.iter().any(|f| f.name == name))?;
        Ok(Some(p))
    }

    /// The command's flags, then the provider options it does not define itself.
    fn all_flags(&self) -> Vec<Flag> {
        let mut flags = self.flags.to_vec();
        let own = |name: &str| self.flags.iter().any(|f| f.name == name);
        flags.extend(PROVIDER_FLAGS.iter().filter(|f| !own(f.name)).copied());
        flags
    }

    /// The `-help` text.
    pub fn help(&self) -> String {
        let mut flags = vec![HELP];
        flags.extend_from_slice(&self.all_flags());
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
