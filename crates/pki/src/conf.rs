//! OpenSSL's configuration files (`openssl.cnf`, config(5)), read as its NCONF reader reads
//! them, for the sections `ca` and the X.509 extension language (`ext_conf`) consult.
//!
//! A file is lines of `name = value` under `[ section ]` headers (those before the first
//! header belong to `default`). `#` starts a comment outside quotes; a line ending in `\`
//! goes on on the next; a value may quote with `"` or `'`, escape with `\` (`\n`, `\r`,
//! `\b`, `\t`, or the character itself), and name other values: `$name`, `${name}`,
//! `$(name)`, `$section::name`, `$ENV::VAR` (the environment), looked up in the current
//! section and then `default`, as written so far. A name may also carry its section
//! (`sect::name = value`). Lookups (`get`) fall back to `default` as NCONF_get_string does.
//!
//! `.include` is refused (a CA's configuration should be one file we can show); `.pragma`
//! lines are read and ignored. Work is bounded: a file over [`MAX_CONF_LEN`] bytes, or a
//! value that expands past [`MAX_VALUE_LEN`] bytes, is refused.

use crate::{Error, Result};

/// The longest configuration file read.
pub const MAX_CONF_LEN: usize = 1 << 20;
/// The longest value after expansion (OpenSSL's own limit is 64 KiB).
pub const MAX_VALUE_LEN: usize = 1 << 16;
/// The most bytes all values may hold after expansion: a small file of values that each
/// expand to [`MAX_VALUE_LEN`] would otherwise take gigabytes.
pub const MAX_TOTAL_LEN: usize = 16 << 20;

/// The section of names outside any `[section]`, and the fallback of lookups.
const DEFAULT: &str = "default";

/// A configuration file: its sections, each with its values in file order.
#[derive(Clone, Debug, Default)]
pub struct Conf {
    sections: Vec<(String, Vec<(String, String)>)>,
    /// The bytes of all values so far.
    total: usize,
}

impl Conf {
    /// Reads a configuration from its text; an error names the line.
    pub fn parse(text: &str) -> Result<Conf> {
        if text.len() > MAX_CONF_LEN {
            return Err(Error::Unsupported(format!(
                "a configuration file over {MAX_CONF_LEN} bytes"
            )));
        }
        let mut conf = Conf { sections: vec![(DEFAULT.to_string(), Vec::new())], total: 0 };
        let mut current = DEFAULT.to_string();
        let mut pending = String::new();
        let mut first_line = 0;
        for (i, raw) in text.lines().enumerate() {
            if pending.is_empty() {
                first_line = i + 1;
            }
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if let Some(head) = continued(raw) {
                pending.push_str(head);
                continue;
            }
            pending.push_str(raw);
            let line = std::mem::take(&mut pending);
            conf.line(&line, &mut current)
                .map_err(|e| Error::Malformed(format!("configuration line {first_line}: {e}")))?;
        }
        if !pending.is_empty() {
            let line = std::mem::take(&mut pending);
            conf.line(&line, &mut current)
                .map_err(|e| Error::Malformed(format!("configuration line {first_line}: {e}")))?;
        }
        Ok(conf)
    }

    /// The value of `name` in `section`, else in `default`.
    pub fn get(&self, section: &str, name: &str) -> Option<&str> {
        self.lookup(section, name).or_else(|| self.lookup(DEFAULT, name))
    }

    /// The values of `section` in file order, if it exists.
    pub fn section(&self, name: &str) -> Option<&[(String, String)]> {
        self.sections.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }

    /// The sections' names in file order (`default` first).
    pub fn section_names(&self) -> impl Iterator<Item = &str> {
        self.sections.iter().map(|(n, _)| n.as_str())
    }

    fn lookup(&self, section: &str, name: &str) -> Option<&str> {
        let values = self.section(section)?;
        // A later assignment wins, as in OpenSSL's hash.
        values.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn line(&mut self, line: &str, current: &mut String) -> std::result::Result<(), String> {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix('[') {
            let end = rest.find(']').ok_or("a section header without ']'")?;
            let name = rest[..end].trim();
            if name.is_empty() || !name.chars().all(is_name_char) {
                return Err(format!("bad section name '{name}'"));
            }
            if self.section(name).is_none() {
                self.sections.push((name.to_string(), Vec::new()));
            }
            *current = name.to_string();
            return Ok(());
        }
        if let Some(directive) = line.strip_prefix('.') {
            return if directive.starts_with("include") {
                Err(".include is not supported; put the sections in one file".into())
            } else if directive.starts_with("pragma") {
                Ok(())
            } else {
                Err(format!("unknown directive '.{directive}'"))
            };
        }
        let eq = line.find('=').ok_or("expected 'name = value'")?;
        let full_name = line[..eq].trim();
        let (section, name) = match full_name.split_once("::") {
            Some((s, n)) => (s.trim().to_string(), n.trim()),
            None => (current.clone(), full_name),
        };
        if name.is_empty() || !name.chars().all(is_name_char) {
            return Err(format!("bad name '{full_name}'"));
        }
        let value = self.value(line[eq + 1..].trim_start(), &section)?;
        self.total += value.len();
        if self.total > MAX_TOTAL_LEN {
            return Err(format!("the values come to over {MAX_TOTAL_LEN} bytes"));
        }
        if self.section(&section).is_none() {
            self.sections.push((section.clone(), Vec::new()));
        }
        let values = self.sections.iter_mut().find(|(n, _)| *n == section).map(|(_, v)| v);
        values.expect("just made").push((name.to_string(), value));
        Ok(())
    }

    /// A value's text: quotes and escapes resolved, variables expanded, the comment and
    /// trailing blanks dropped.
    fn value(&self, text: &str, section: &str) -> std::result::Result<String, String> {
        let mut out = String::new();
        // Length of `out` that trailing-blank trimming may not cut into (quoted text).
        let mut kept = 0;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '#' => break,
                '"' | '\'' => {
                    loop {
                        match chars.next() {
                            None => break,
                            Some(q) if q == c => break,
                            Some('\\') if c == '"' => match chars.next() {
                                Some(e) => out.push(escape(e)),
                                None => break,
                            },
                            Some(other) => out.push(other),
                        }
                    }
                    kept = out.len();
                }
                '\\' => {
                    if let Some(e) = chars.next() {
                        out.push(escape(e));
                        kept = out.len();
                    }
                }
                '$' => {
                    let value = self.variable(&mut chars, section)?;
                    out.push_str(&value);
                    kept = out.len();
                }
                other => out.push(other),
            }
            if out.len() > MAX_VALUE_LEN {
                return Err(format!("a value over {MAX_VALUE_LEN} bytes"));
            }
        }
        let trimmed = out[kept..].trim_end().len();
        out.truncate(kept + trimmed);
        Ok(out)
    }

    /// The value of the variable after a `$`.
    fn variable(
        &self,
        chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
        section: &str,
    ) -> std::result::Result<String, String> {
        let close = match chars.peek() {
            Some('{') => Some('}'),
            Some('(') => Some(')'),
            _ => None,
        };
        if close.is_some() {
            chars.next();
        }
        let take_name = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    break;
                }
                name.push(c);
                chars.next();
            }
            name
        };
        let mut name = take_name(chars);
        let mut from = section.to_string();
        if chars.peek() == Some(&':') {
            let mut ahead = chars.clone();
            ahead.next();
            if ahead.peek() == Some(&':') {
                chars.next();
                chars.next();
                from = name;
                name = take_name(chars);
            }
        }
        if let Some(close) = close
            && chars.next() != Some(close)
        {
            return Err(format!("no close brace '{close}' after ${name}"));
        }
        if name.is_empty() {
            return Err("'$' without a variable name".into());
        }
        let value = if from == "ENV" {
            std::env::var(&name).ok()
        } else {
            self.get(&from, &name).map(str::to_string)
        };
        value.ok_or_else(|| format!("variable {from}::{name} has no value"))
    }
}

/// A line's text before a continuing `\` (one not itself escaped), if it ends in one.
fn continued(line: &str) -> Option<&str> {
    let trailing = line.len() - line.trim_end_matches('\\').len();
    (trailing % 2 == 1).then(|| &line[..line.len() - 1])
}

/// The character a backslash escape stands for.
fn escape(c: char) -> char {
    match c {
        'n' => '\n',
        'r' => '\r',
        'b' => '\u{8}',
        't' => '\t',
        other => other,
    }
}

/// Characters of section and value names: OpenSSL's alphanumerics and punctuation.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.;!%&*+,-/:@^`|~ ".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_values_and_expansion() {
        // $ENV of an unset variable has no value: an error.
        assert!(Conf::parse("a = $ENV::CRYPTOCARD_TEST_SURELY_UNSET\n").is_err());
        if let Ok(path) = std::env::var("PATH") {
            let conf = Conf::parse("a = ${ENV::PATH}\n").unwrap();
            assert_eq!(conf.get("default", "a"), Some(path.as_str()));
        }
        let conf = Conf::parse(
            "HOME = /home/ca # a comment\n\
             [ ca ]\n\
             default_ca = CA_default\n\
             [CA_default]\n\
             dir = ./demoCA\n\
             certs = $dir/certs\n\
             crl = ${dir}/crl.pem\n\
             key = $(dir)/private/key.pem\n\
             home = $HOME\n\
             other = $ca::default_ca\n\
             quoted = \"a # not a comment \"  # but this is\n\
             escaped = a\\#b\\n\n\
             long = one \\\n  two\n\
             [alt]\n\
             DNS.1 = a.example\n\
             DNS.2 = b.example\n\
             alt::late = x\n",
        )
        .unwrap();
        assert_eq!(conf.get("ca", "default_ca"), Some("CA_default"));
        assert_eq!(conf.get("CA_default", "certs"), Some("./demoCA/certs"));
        assert_eq!(conf.get("CA_default", "crl"), Some("./demoCA/crl.pem"));
        assert_eq!(conf.get("CA_default", "key"), Some("./demoCA/private/key.pem"));
        assert_eq!(conf.get("CA_default", "home"), Some("/home/ca"));
        assert_eq!(conf.get("CA_default", "HOME"), Some("/home/ca"), "default is the fallback");
        assert_eq!(conf.get("CA_default", "other"), Some("CA_default"));
        assert_eq!(conf.get("CA_default", "quoted"), Some("a # not a comment "));
        assert_eq!(conf.get("CA_default", "escaped"), Some("a#b\n"));
        assert_eq!(conf.get("CA_default", "long"), Some("one   two"));
        let alt: Vec<_> = conf.section("alt").unwrap().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(alt, ["DNS.1", "DNS.2", "late"]);
        assert_eq!(conf.get("alt", "nothing"), None);
        assert!(conf.section("none").is_none());
    }

    #[test]
    fn errors_name_the_line() {
        for (text, line) in [
            ("a = 1\n[broken\n", 2),
            ("a = 1\nno equals sign\n", 2),
            ("a = $missing\n", 1),
            ("a = ${unclosed\n", 1),
            (".include other.cnf\n", 1),
            ("[s]\n\n = empty name\n", 3),
        ] {
            let err = Conf::parse(text).unwrap_err().to_string();
            assert!(err.contains(&format!("line {line}:")), "{text:?}: {err}");
        }
        assert!(Conf::parse(".pragma dollarid:on\n").is_ok());
        // Expansion is bounded: doubling 20 times would be 1 MiB.
        let mut text = String::from("v0 = 0123456789abcdef0123456789abcdef\n");
        for i in 1..=20 {
            text.push_str(&format!("v{i} = $v{}$v{}\n", i - 1, i - 1));
        }
        assert!(Conf::parse(&text).unwrap_err().to_string().contains("over 65536 bytes"));
        // And in all: 300 values of 64 KiB each are refused.
        let mut text = String::from("v0 = 0123456789abcdef0123456789abcdef\n");
        for i in 1..=11 {
            text.push_str(&format!("v{i} = $v{}$v{}\n", i - 1, i - 1));
        }
        for i in 0..300 {
            text.push_str(&format!("w{i} = $v11\n"));
        }
        let err = Conf::parse(&text).unwrap_err().to_string();
        assert!(err.contains("over 16777216 bytes"), "{err}");
    }
}
