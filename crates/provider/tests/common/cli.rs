//! The `openssl` command in a work directory, with our provider preferred or with the
//! default provider alone: what the command-line tests share. Every run asks the
//! provider for its counters (`CRYPTOCARD_PROVIDER_STATS=1`), which prove that it did the
//! work, since a wrong property query would silently use the default provider.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A work directory with `ossl-modules/cryptocard.so`.
pub struct Cli {
    pub dir: PathBuf,
    pub modules: PathBuf,
}

impl Cli {
    /// A fresh work directory `tag` (see [`super::workdir`]).
    pub fn new(tag: &str) -> Cli {
        let (dir, modules) = super::workdir(tag);
        Cli { dir, modules }
    }

    /// `openssl <args>` in the work directory, whatever its outcome.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("openssl")
            .args(args)
            .current_dir(&self.dir)
            .env("CRYPTOCARD_PROVIDER_STATS", "1")
            .output()
            .expect("run openssl")
    }

    /// `openssl <args>` under the configuration file `conf` (`OPENSSL_CONF`), whatever
    /// its outcome.
    pub fn under(&self, conf: &std::path::Path, args: &[&str]) -> Output {
        Command::new("openssl")
            .args(args)
            .current_dir(&self.dir)
            .env("OPENSSL_CONF", conf)
            .env("CRYPTOCARD_PROVIDER_STATS", "1")
            .output()
            .expect("run openssl")
    }

    /// The configuration of `scripts/provider-conf` (ours loaded beside the default
    /// provider and preferred), with `extra` lines in our provider's section, written as
    /// `name` in the work directory.
    pub fn conf(&self, name: &str, extra: &str) -> PathBuf {
        let script = super::repo().join("scripts/provider-conf");
        let out = Command::new(script).arg(&self.modules).output().expect("scripts/provider-conf");
        assert!(out.status.success(), "scripts/provider-conf failed");
        let text = String::from_utf8(out.stdout).unwrap();
        let with_extra =
            text.replace("[cryptocard_sect]\n", &format!("[cryptocard_sect]\n{extra}\n"));
        assert_ne!(with_extra, text, "no [cryptocard_sect] in scripts/provider-conf's output");
        let path = self.dir.join(name);
        std::fs::write(&path, with_extra).unwrap();
        path
    }

    /// `openssl <args>`, which must succeed.
    pub fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "openssl {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `openssl <cmd> <our provider's arguments> <args>`.
    fn run_ours(&self, cmd: &str, args: &[&str]) -> (Vec<String>, Output) {
        let mut all: Vec<String> = vec![cmd.to_string()];
        all.extend(super::ours(&self.modules));
        all.extend(args.iter().map(|a| a.to_string()));
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = self.run(&refs);
        (all, out)
    }

    /// `openssl <cmd>` with our provider preferred, which must succeed, and whose
    /// counters must show `counter` (e.g. "signs=1").
    pub fn ours(&self, cmd: &str, args: &[&str], counter: &str) -> Output {
        let (all, out) = self.run_ours(cmd, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "openssl {} failed: {err}", all.join(" "));
        assert!(err.contains(counter), "our provider did not do it ({counter}): {err}");
        out
    }

    /// `openssl <cmd> <args>` with the default provider alone, which must succeed.
    pub fn theirs(&self, cmd: &str, args: &[&str]) -> Output {
        let mut all = vec![cmd];
        all.extend_from_slice(args);
        self.ok(&all)
    }

    /// `openssl <cmd>` with our provider preferred, which must fail cleanly: an exit
    /// status (not a signal), and an error message containing `expect`.
    pub fn fails_cleanly(&self, cmd: &str, args: &[&str], expect: &str) {
        let (all, out) = self.run_ours(cmd, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code().is_some_and(|c| c != 0), "{all:?}: {:?} {err}", out.status);
        assert!(err.contains(expect), "{all:?}: expected {expect:?} in {err}");
    }
}
