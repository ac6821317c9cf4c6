//! Command-line flags in OpenSSL's style, shared by every subcommand.
//!
//! OpenSSL's tools take single-dash long flags (`-seconds 3`, `-in key.pem`, `-mr`); the
//! GNU style (`--compare openssl,gmp`, `--compare=openssl`, `--json`) is accepted for the
//! same flags too, so `-json` and `--seconds 3` work as well. Each subcommand declares its
//! flags as a table of [`Flag`]s; [`parse`] splits the arguments into flags and positional
//! words and reports the first problem as one [`ArgError`] line. `--` ends the flags.
//!
//! Some OpenSSL commands take flags whose names are data: `dgst -sha256`, `enc -des-cbc`.
//! [`parse_with`] accepts such switches through a predicate and keeps them, in order, in
//! [`Parsed::dynamic`]. Flags that may repeat (`-pkeyopt`, `-macopt`) give all their
//! values through [`Parsed::values`]; where OpenSSL lets the last of two exclusive
//! switches win (`dgst -hex -binary`), [`Parsed::last_of`] says which came last.
//! [`help`] writes a command's flag table the way `openssl CMD -help` does.

use std::fmt;
use std::str::FromStr;

/// One flag a subcommand accepts.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// The name without dashes: "seconds", "compare", "json".
    pub name: &'static str,
    /// For a flag that takes a value, the value's name in messages ("S", "LIST"); `None`
    /// for a switch.
    pub value: Option<&'static str>,
    /// One line for `-help` ("" for none).
    pub about: &'static str,
}

impl Flag {
    /// A flag that takes a value.
    pub const fn value(name: &'static str, value: &'static str) -> Flag {
        Flag { name, value: Some(value), about: "" }
    }

    /// A switch.
    pub const fn switch(name: &'static str) -> Flag {
        Flag { name, value: None, about: "" }
    }

    /// The same flag with its `-help` line.
    pub const fn about(self, about: &'static str) -> Flag {
        Flag { about, ..self }
    }
}

/// A bad command line, as one line for stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// The parsed command line: positional words in order, and the flags that were given.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// Words that are not flags or flag values, in order.
    pub positional: Vec<String>,
    /// Switches accepted by [`parse_with`]'s predicate, without the dashes, in order.
    pub dynamic: Vec<String>,
    flags: Vec<(&'static str, Option<String>)>,
}

impl Parsed {
    /// Whether the switch (or value flag) `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| *n == name)
    }

    /// The value of flag `name` (the last one if repeated).
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| *n == name).and_then(|(_, v)| v.as_deref())
    }

    /// Every value of flag `name`, in order (for flags that may repeat).
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.flags.iter().filter(|(n, _)| *n == name).filter_map(|(_, v)| v.as_deref()).collect()
    }

    /// Which of `names` was given last, if any.
    pub fn last_of(&self, names: &[&str]) -> Option<&'static str> {
        self.flags.iter().rev().map(|(n, _)| *n).find(|n| names.contains(n))
    }

    /// The value of flag `name` parsed as `T`; a value that does not parse is an error
    /// naming the flag and the value.
    pub fn parsed<T: FromStr>(&self, name: &str) -> Result<Option<T>, ArgError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => {
                v.parse().map(Some).map_err(|_| ArgError(format!("-{name}: invalid value '{v}'")))
            }
        }
    }
}

/// Splits `args` (without the program and subcommand names) by the `flags` table (the
/// commands go through [`crate::spec::Spec`], which adds `-help`; the tests use this).
#[cfg(test)]
pub fn parse(args: &[String], flags: &[Flag]) -> Result<Parsed, ArgError> {
    parse_with(args, flags, &|_| false)
}

/// As [`parse`], also accepting as a switch any other single-dash word whose name
/// `dynamic` accepts (`-sha256`, `-des-ede3-cbc`); those go to [`Parsed::dynamic`].
pub fn parse_with(
    args: &[String],
    flags: &[Flag],
    dynamic: &dyn Fn(&str) -> bool,
) -> Result<Parsed, ArgError> {
    let mut parsed = Parsed::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            parsed.positional.extend(words.by_ref().cloned());
            break;
        }
        let Some(body) = word.strip_prefix("--").or_else(|| word.strip_prefix('-')) else {
            parsed.positional.push(word.clone());
            continue;
        };
        if body.is_empty() {
            // A lone "-" conventionally means stdin/stdout: a word, not a flag.
            parsed.positional.push(word.clone());
            continue;
        }
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            if inline.is_none() && !word.starts_with("--") && dynamic(name) {
                parsed.dynamic.push(name.to_string());
                continue;
            }
            // The name only: a mistyped `-pasin=pass:secret` must not echo the secret.
            let dashes = &word[..word.len() - body.len()];
            return Err(ArgError(format!("unknown option '{dashes}{name}'")));
        };
        let value = match (flag.value, inline) {
            (None, None) => None,
            (None, Some(_)) => return Err(ArgError(format!("-{name} takes no value"))),
            (Some(_), Some(v)) => Some(v),
            (Some(what), None) => match words.next() {
                Some(v) => Some(v.clone()),
                None => return Err(ArgError(format!("-{name} needs a value ({what})"))),
            },
        };
        parsed.flags.push((flag.name, value));
    }
    Ok(parsed)
}

/// The `-help` text: the usage line, then one line per flag (`-name VALUE  about`), as
/// `openssl CMD -help` lays them out.
pub fn help(usage: &str, flags: &[Flag]) -> String {
    let mut out = format!("Usage: {usage}\n");
    for f in flags {
        let left = match f.value {
            Some(v) => format!("-{} {v}", f.name),
            None => format!("-{}", f.name),
        };
        let line = format!(" {left:<24} {}", f.about);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] =
        &[Flag::value("seconds", "S"), Flag::value("compare", "LIST"), Flag::switch("json")];

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn single_and_double_dash_with_values() {
        let p = parse(&args("rsa2048 -seconds 3 --compare openssl,gmp --json md5"), FLAGS).unwrap();
        assert_eq!(p.positional, ["rsa2048", "md5"]);
        assert_eq!(p.parsed::<f64>("seconds").unwrap(), Some(3.0));
        assert_eq!(p.value("compare"), Some("openssl,gmp"));
        assert!(p.has("json"));
        let p = parse(&args("--seconds=0.5 -compare=gmp -json"), FLAGS).unwrap();
        assert_eq!(p.value("seconds"), Some("0.5"));
        assert_eq!(p.value("compare"), Some("gmp"));
        assert!(p.has("json") && p.positional.is_empty());
    }

    #[test]
    fn last_value_wins_and_double_dash_ends_flags() {
        let p = parse(&args("-seconds 1 -seconds 2 -- -json -"), FLAGS).unwrap();
        assert_eq!(p.value("seconds"), Some("2"));
        assert_eq!(p.positional, ["-json", "-"]);
        assert!(!p.has("json"));
    }

    #[test]
    fn dynamic_switches_repeats_and_order() {
        let dynamic = |n: &str| n.starts_with("sha");
        let p = parse_with(&args("-sha256 -json -seconds 1 -seconds 2 -sha1 x"), FLAGS, &dynamic)
            .unwrap();
        assert_eq!(p.dynamic, ["sha256", "sha1"]);
        assert_eq!(p.values("seconds"), ["1", "2"]);
        assert_eq!(p.last_of(&["json", "seconds"]), Some("seconds"));
        assert_eq!(p.last_of(&["compare"]), None);
        assert_eq!(p.positional, ["x"]);
        // Not accepted by the predicate, or in GNU style, or with a value: still unknown.
        for bad in ["-md5", "--sha256", "-sha256=1"] {
            assert!(parse_with(&args(bad), FLAGS, &dynamic).is_err(), "{bad}");
        }
    }

    #[test]
    fn help_lists_every_flag() {
        let flags = [Flag::value("in", "FILE").about("Input file"), Flag::switch("r")];
        let h = help("x [options]", &flags);
        assert_eq!(h.lines().next(), Some("Usage: x [options]"));
        assert!(h.lines().any(|l| l.starts_with(" -in FILE") && l.ends_with("Input file")));
        assert!(h.lines().any(|l| l == " -r"));
    }

    #[test]
    fn errors_are_one_line() {
        for (line, want) in [
            ("-bogus", "unknown option '-bogus'"),
            ("-seconds", "-seconds needs a value (S)"),
            ("-json=1", "-json takes no value"),
            ("-pasin=pass:hunter2", "unknown option '-pasin'"),
            ("--pasin=hunter2", "unknown option '--pasin'"),
        ] {
            assert_eq!(parse(&args(line), FLAGS).unwrap_err().0, want);
        }
        let p = parse(&args("-seconds abc"), FLAGS).unwrap();
        assert_eq!(p.parsed::<f64>("seconds").unwrap_err().0, "-seconds: invalid value 'abc'");
    }
}
