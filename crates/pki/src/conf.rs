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
//! `.include FILE|DIR` is followed when the configuration is read from a file
//! ([`Conf::load`]), as the system files of Fedora and RHEL need; `.pragma` lines are read
//! and ignored. Work is bounded: a file over [`MAX_CONF_LEN`] bytes, a value that expands
//! past [`MAX_VALUE_LEN`] bytes, values past [`MAX_TOTAL_LEN`] in all, includes deeper
//! than [`MAX_INCLUDE_DEPTH`] or more than [`MAX_INCLUDED`] files are refused.

use crate::{Error, Result};
use std::cell::Cell;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The longest configuration file read.
pub const MAX_CONF_LEN: usize = 1 << 20;
/// The longest value after expansion (OpenSSL's own limit is 64 KiB).
pub const MAX_VALUE_LEN: usize = 1 << 16;
/// How deep `.include` files may nest.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// The most files `.include` lines may bring in, in all.
pub const MAX_INCLUDED: usize = 64;
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
    /// Reads a configuration from its text; an error names the line. `.include` is
    /// refused: there is no file to resolve it against (see [`Conf::load`]).
    pub fn parse(text: &str) -> Result<Conf> {
        let mut conf = Conf::empty();
        conf.feed("configuration", text, &mut DEFAULT.to_string(), None, 0)?;
        Ok(conf)
    }

    /// Reads the configuration file at `path`, with the files its `.include` lines name
    /// (a file, or every `.cnf` and `.conf` file of a directory in name order; a relative
    /// path under `$OPENSSL_CONF_INCLUDE` if set, as OpenSSL resolves it), at most
    /// [`MAX_INCLUDE_DEPTH`] deep and [`MAX_INCLUDED`] files in all.
    pub fn load(path: &Path) -> Result<Conf> {
        let text = read_conf_file(path)?;
        let count = Cell::new(0usize);
        let include = |target: &str| -> std::result::Result<Vec<(String, String)>, String> {
            included_files(target, &count)
        };
        let mut conf = Conf::empty();
        let name = path.display().to_string();
        conf.feed(&name, &text, &mut DEFAULT.to_string(), Some(&include), 0)?;
        Ok(conf)
    }

    /// No values yet: the `default` section alone.
    fn empty() -> Conf {
        Conf { sections: vec![(DEFAULT.to_string(), Vec::new())], total: 0 }
    }

    /// Reads the lines of one file (`name` for errors) into the configuration.
    fn feed(
        &mut self,
        name: &str,
        text: &str,
        current: &mut String,
        include: Includer<'_>,
        depth: usize,
    ) -> Result<()> {
        if text.len() > MAX_CONF_LEN {
            return Err(Error::Unsupported(format!("{name}: a file over {MAX_CONF_LEN} bytes")));
        }
        let mut pending = String::new();
        let mut first_line = 0;
        let mut lines = text.lines().enumerate().peekable();
        while let Some((i, raw)) = lines.next() {
            if pending.is_empty() {
                first_line = i + 1;
            }
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if let Some(head) = continued(raw)
                && lines.peek().is_some()
            {
                pending.push_str(head);
                continue;
            }
            pending.push_str(continued(raw).unwrap_or(raw));
            let line = std::mem::take(&mut pending);
            let at = |e: String| Error::Malformed(format!("{name} line {first_line}: {e}"));
            if let Some(target) = include_target(&line) {
                let include =
                    include.ok_or_else(|| at(".include needs a file to read from".into()))?;
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(at(format!("includes nest deeper than {MAX_INCLUDE_DEPTH}")));
                }
                for (file, text) in include(target).map_err(at)? {
                    self.feed(&file, &text, current, Some(include), depth + 1)?;
                }
                continue;
            }
            self.line(&line, current).map_err(at)?;
        }
        Ok(())
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
            return if directive.starts_with("pragma") {
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

/// Where `.include` lines are read from: the files a target names, each with its name.
type Includer<'a> = Option<&'a dyn Fn(&str) -> std::result::Result<Vec<(String, String)>, String>>;

/// The path of an `.include` line (`.include path` or `.include = path`), if it is one.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix(".include")?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim();
    // A comment may follow.
    Some(rest.split('#').next().unwrap_or("").trim())
}

/// The files an `.include` names, read (bounded by [`MAX_INCLUDED`] in all).
fn included_files(
    target: &str,
    count: &Cell<usize>,
) -> std::result::Result<Vec<(String, String)>, String> {
    if target.is_empty() {
        return Err(".include without a path".into());
    }
    let mut path = PathBuf::from(target);
    if path.is_relative()
        && let Ok(base) = std::env::var("OPENSSL_CONF_INCLUDE")
    {
        path = Path::new(&base).join(path);
    }
    let files = if path.is_dir() {
        let entries = std::fs::read_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                p.is_file() && (ext.eq_ignore_ascii_case("cnf") || ext.eq_ignore_ascii_case("conf"))
            })
            .collect();
        files.sort();
        files
    } else {
        vec![path]
    };
    let mut out = Vec::new();
    for file in files {
        count.set(count.get() + 1);
        if count.get() > MAX_INCLUDED {
            return Err(format!("more than {MAX_INCLUDED} included files"));
        }
        let text = read_conf_file(&file).map_err(|e| e.to_string())?;
        out.push((file.display().to_string(), text));
    }
    Ok(out)
}

/// A configuration file's text, at most [`MAX_CONF_LEN`] bytes.
fn read_conf_file(path: &Path) -> Result<String> {
    let fail = |why: String| Error::Malformed(format!("{}: {why}", path.display()));
    // The system's words without Rust's "(os error N)".
    let reason = |e: std::io::Error| {
        let text = e.to_string();
        fail(text.split(" (os error").next().unwrap_or(&text).to_string())
    };
    let file = std::fs::File::open(path).map_err(reason)?;
    let mut text = String::new();
    file.take(MAX_CONF_LEN as u64 + 1).read_to_string(&mut text).map_err(reason)?;
    if text.len() > MAX_CONF_LEN {
        return Err(fail(format!("over {MAX_CONF_LEN} bytes")));
    }
    Ok(text)
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

    #[test]
    fn includes_files_and_directories_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sub = d.join("conf.d");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("b.cnf"), "[ b ]\nv = from b\n").unwrap();
        std::fs::write(sub.join("a.conf"), "[ a ]\nv = from a\n").unwrap();
        std::fs::write(sub.join("ignored.txt"), "[ c ]\nv = x\n").unwrap();
        std::fs::write(d.join("one.cnf"), "[ one ]\nv = $top::v-one\n").unwrap();
        let main = d.join("main.cnf");
        std::fs::write(
            &main,
            format!(
                "[ top ]\nv = top\n.include {}\n.include = {} # all of it\n[ after ]\nv = 1\n",
                d.join("one.cnf").display(),
                sub.display()
            ),
        )
        .unwrap();
        let conf = Conf::load(&main).unwrap();
        assert_eq!(conf.get("one", "v"), Some("top-one"));
        assert_eq!((conf.get("a", "v"), conf.get("b", "v")), (Some("from a"), Some("from b")));
        assert!(conf.section("c").is_none());
        let names: Vec<&str> = conf.section_names().collect();
        assert_eq!(names, ["default", "top", "one", "a", "b", "after"], "a.conf before b.cnf");
        // A file that includes itself stops at the depth bound; a missing file is named.
        let looped = d.join("loop.cnf");
        std::fs::write(&looped, format!(".include {}\n", looped.display())).unwrap();
        let err = Conf::load(&looped).unwrap_err().to_string();
        assert!(err.contains("nest deeper than 8"), "{err}");
        std::fs::write(&looped, ".include /no/such/file.cnf\n").unwrap();
        let err = Conf::load(&looped).unwrap_err().to_string();
        assert!(err.contains("/no/such/file.cnf"), "{err}");
        // Text alone has no place to include from.
        assert!(Conf::parse(".include x.cnf\n").is_err());
    }
}
