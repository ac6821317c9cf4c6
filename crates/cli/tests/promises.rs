//! The command line's promises (README, "The command line"), each checked where a review
//! found it broken: a password line and the data share one stdin as in OpenSSL; decrypted
//! output is owner-only; replacing a file never widens its permissions and works for the
//! longest names; `/dev/stdout` and the other descriptor paths are written in place; a failing command leaves its output files as they were (`req -newkey`'s
//! key, `dgst -out`) and a signal removes its temporary file; inputs are bounded or streamed (`pkeyutl -rawin`, `mac` padding 3,
//! `speed -multi`, `cms`'s certificate files and `-inlist`); a mistyped flag does not echo a password; and `base64 -d` and
//! `enc -d -nopad` answer as OpenSSL 3.0 does.

#![cfg(unix)]

mod common;
use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

/// `cryptocard ARGS` with `stdin` through a pipe, killed (failing `ok`) after 30 s: a
/// command that waits on itself must fail the test, not hang it.
fn run_piped(args: &[&str], stdin: &[u8]) -> Output {
    cc().args(args).timeout(Duration::from_secs(30)).write_stdin(stdin.to_vec()).output().unwrap()
}

/// `cryptocard ARGS` with the regular file `file` as stdin (not a pipe), killed after 30 s.
fn run_file_stdin(args: &[&str], file: &Path) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("cryptocard");
    let mut child = std::process::Command::new(bin)
        .args(args)
        .stdin(std::fs::File::open(file).unwrap())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `cryptocard ARGS` with at most `mib` MiB of address space (`ulimit -v`): an input read
/// whole into memory cannot fit, a streamed one can.
fn run_limited(mib: u64, args: &[&str]) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("cryptocard");
    let script = format!("ulimit -v {} && exec \"$@\"", mib * 1024);
    let mut all = vec!["-c", script.as_str(), "sh", bin.to_str().unwrap()];
    all.extend_from_slice(args);
    std::process::Command::new("sh").args(&all).output().unwrap()
}

fn mode(path: &str) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn chmod(path: &str, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A sparse file of `len` zero bytes (cheap on disk, large to read).
fn sparse(path: &str, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

const PW: &str = "cryptocard"; // the password of tests/data/rsa2048.enc.pem

#[test]
fn enc_reads_the_password_line_then_the_data_from_one_stdin() {
    let dir = tempdir();
    let c = path(dir.path(), "c.bin");
    for pass in [&["-pass", "stdin"][..], &["-pass", "fd:0"], &["-kfile", "/dev/stdin"]] {
        let mut args = vec!["enc", "-aes-128-cbc", "-pbkdf2", "-out", &c];
        args.extend_from_slice(pass);
        ok(&run_piped(&args, b"pw\nhi\n"));
        let plain =
            ok(&run(&["enc", "-d", "-aes-128-cbc", "-pbkdf2", "-pass", "pass:pw", "-in", &c], b""));
        assert_eq!(plain, b"hi\n", "{pass:?}");
        // Decrypting takes its password from stdin too, ahead of the ciphertext.
        let mut stdin = b"pw\r\n".to_vec();
        stdin.extend(std::fs::read(&c).unwrap());
        let mut args = vec!["enc", "-d", "-aes-128-cbc", "-pbkdf2"];
        args.extend_from_slice(pass);
        assert_eq!(ok(&run_piped(&args, &stdin)), b"hi\n", "{pass:?}");
    }
    // stdin a regular file rather than a pipe.
    let f = path(dir.path(), "in.txt");
    std::fs::write(&f, b"pw\nfrom a file\n").unwrap();
    for pass in ["stdin", "fd:0"] {
        let out =
            run_file_stdin(&["enc", "-aes-128-cbc", "-pbkdf2", "-pass", pass, "-a"], Path::new(&f));
        let ct = ok(&out);
        let args = ["enc", "-d", "-a", "-aes-128-cbc", "-pbkdf2", "-pass", "pass:pw"];
        assert_eq!(ok(&run(&args, &ct)), b"from a file\n", "{pass}");
    }
}

#[test]
fn signing_reads_the_password_line_then_the_message_from_one_stdin() {
    let dir = tempdir();
    let enc = key("rsa2048.enc.pem");
    let msg = path(dir.path(), "msg.txt");
    std::fs::write(&msg, b"hello world\n").unwrap();
    let pw = format!("pass:{PW}");
    // PKCS#1 v1.5 signatures are deterministic: the same message gives the same bytes.
    let want = ok(&run(&["dgst", "-sha256", "-sign", &enc, "-passin", &pw, &msg], b""));
    let mut stdin = format!("{PW}\n").into_bytes();
    stdin.extend_from_slice(b"hello world\n");
    let sig = path(dir.path(), "s.sig");
    for passin in ["stdin", "fd:0", "file:/dev/stdin"] {
        ok(&run_piped(
            &["dgst", "-sha256", "-sign", &enc, "-passin", passin, "-out", &sig],
            &stdin,
        ));
        assert_eq!(std::fs::read(&sig).unwrap(), want, "dgst -passin {passin}");
        let args =
            ["pkeyutl", "-sign", "-inkey", &enc, "-passin", passin, "-rawin", "-digest", "sha256"];
        assert_eq!(ok(&run_piped(&args, &stdin)), want, "pkeyutl -passin {passin}");
    }
    let f = path(dir.path(), "stdin.txt");
    std::fs::write(&f, &stdin).unwrap();
    let out = run_file_stdin(&["dgst", "-sha256", "-sign", &enc, "-passin", "fd:0"], Path::new(&f));
    assert_eq!(ok(&out), want, "stdin a regular file");
    // The key itself on stdin, after the password line.
    let mut stdin = format!("{PW}\n").into_bytes();
    stdin.extend(std::fs::read(&enc).unwrap());
    let plain = ok(&run(&["pkey", "-in", &key("rsa2048.pem")], b""));
    assert_eq!(ok(&run_piped(&["pkey", "-in", "-", "-passin", "stdin"], &stdin)), plain);
}

#[test]
fn decrypted_output_is_owner_only() {
    let dir = tempdir();
    let (c, p) = (path(dir.path(), "c.bin"), path(dir.path(), "p.txt"));
    ok(&run(&["enc", "-aes-128-cbc", "-pbkdf2", "-pass", "pass:x", "-out", &c], b"secret"));
    ok(&run(
        &["enc", "-d", "-aes-128-cbc", "-pbkdf2", "-pass", "pass:x", "-in", &c, "-out", &p],
        b"",
    ));
    assert_eq!(std::fs::read(&p).unwrap(), b"secret");
    assert_eq!(mode(&p) & 0o077, 0, "new decrypted file: {:o}", mode(&p));
    // Over an existing file readable by all, too.
    chmod(&p, 0o644);
    ok(&run(
        &["enc", "-d", "-aes-128-cbc", "-pbkdf2", "-pass", "pass:x", "-in", &c, "-out", &p],
        b"",
    ));
    assert_eq!(mode(&p), 0o600);
}

#[test]
fn replacing_a_file_keeps_its_permissions_and_long_names_work() {
    let dir = tempdir();
    let f = path(dir.path(), "out.txt");
    for existing in [0o600, 0o640, 0o666, 0o604] {
        std::fs::write(&f, b"old").unwrap();
        chmod(&f, existing);
        ok(&run(&["rand", "-hex", "4", "-out", &f], b""));
        assert_ne!(std::fs::read(&f).unwrap(), b"old");
        assert_eq!(mode(&f), existing, "a public output over a {existing:o} file");
    }
    // Private material over an existing file: narrowed to owner-only, never widened.
    let k = path(dir.path(), "key.pem");
    for (existing, want) in [(0o644, 0o600), (0o600, 0o600), (0o400, 0o400)] {
        std::fs::write(&k, b"old").unwrap();
        chmod(&k, existing);
        ok(&run(&["pkey", "-in", &key("rsa2048.pem"), "-out", &k], b""));
        assert_eq!(mode(&k), want, "a private output over a {existing:o} file");
    }
    // A name as long as NAME_MAX allows (255 bytes), new and replaced.
    let long = "n".repeat(255);
    let lp = path(dir.path(), &long);
    ok(&run(&["rand", "-hex", "4", "-out", &lp], b""));
    ok(&run(&["rand", "-hex", "8", "-out", &lp], b""));
    assert_eq!(std::fs::read(&lp).unwrap().len(), 17);
    let mut names = listing(dir.path());
    names.retain(|n| n != &long);
    assert_eq!(names, ["key.pem", "out.txt"], "temporary files left behind");
}

/// `-out /dev/stdout` (a pipe here), `/dev/stderr` and `/dev/fd/N` are the process's own
/// descriptors, written where they stand, as OpenSSL writes them; they were refused ("No
/// such file or directory") when the output tried to resolve them to a file to replace.
#[test]
fn descriptor_paths_are_written_in_place() {
    let out = run(&["rand", "-hex", "4", "-out", "/dev/stdout"], b"");
    assert_eq!(ok(&out).len(), 9);
    let out = run(&["rand", "-hex", "4", "-out", "/dev/stderr"], b"");
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.len() == 9, "{out:?}");
    // A file the shell opened (`2>>log`): appended to, after what it held.
    let dir = tempdir();
    let log = path(dir.path(), "log");
    std::fs::write(&log, b"before\n").unwrap();
    let bin = assert_cmd::cargo::cargo_bin("cryptocard");
    let file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let status = std::process::Command::new(bin)
        .args(["rand", "-hex", "4", "-out", "/dev/fd/2"])
        .stderr(file)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("before\n") && text.len() == 16, "{text:?}");
    assert_eq!(listing(dir.path()), ["log"], "temporary files left behind");
}

#[test]
fn req_newkey_writes_its_key_only_when_it_succeeds() {
    let dir = tempdir();
    let keyfile = dir.path().join("privkey.pem");
    std::fs::write(&keyfile, b"the old key").unwrap();
    let base = ["req", "-new", "-newkey", "rsa:1024", "-nodes"];
    for (extra, needle) in [
        (&["-subj", "CN=no slash"][..], "must start with '/'"),
        (&["-x509", "-subj", "/CN=x", "-days", "many"][..], "-days"),
        (&["-subj", "/CN=x", "-addext", "keyUsage=critical"][..], "-addext"),
        (&["-subj", "/CN=x", "-sigopt", "rsa_padding_mode:nonsense"][..], "nonsense"),
        (&[][..], "-subj"),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args.extend(["-out", "req.pem"]);
        let out = run_in(dir.path(), &args);
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{extra:?}: {err}");
        assert_eq!(std::fs::read(&keyfile).unwrap(), b"the old key", "{extra:?}");
        assert_eq!(listing(dir.path()), ["privkey.pem"], "{extra:?}");
    }
    // Success writes both, the key owner-only.
    let mut args = base.to_vec();
    args.extend(["-subj", "/CN=x", "-keyout", "new.key", "-out", "req.pem"]);
    ok(&run_in(dir.path(), &args));
    let new_key = path(dir.path(), "new.key");
    assert!(std::fs::read_to_string(&new_key).unwrap().starts_with("-----BEGIN PRIVATE KEY-----"));
    assert_eq!(mode(&new_key), 0o600);
    assert!(dir.path().join("req.pem").exists());
}

#[test]
fn dgst_failing_on_an_input_leaves_the_output_file() {
    let dir = tempdir();
    let a = path(dir.path(), "a.txt");
    std::fs::write(&a, b"abc").unwrap();
    let out = path(dir.path(), "out.txt");
    std::fs::write(&out, b"old").unwrap();
    let before = listing(dir.path());
    let r = run(&["dgst", "-sha256", "-out", &out, &a, "/nonexistent/file"], b"");
    let line = fails(&r, 1, "/nonexistent/file: No such file or directory");
    assert!(line.starts_with("cryptocard dgst: "), "{line}");
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_eq!(listing(dir.path()), before);
    // To stdout, the files that were read still have their lines.
    let r = run(&["dgst", "-sha256", &a, "/nonexistent/file"], b"");
    assert!(String::from_utf8_lossy(&r.stdout).contains("a.txt)= ba7816bf"));
    fails(&r, 1, "cryptocard dgst: /nonexistent/file");
    // A verification failure is a verdict, and the verdict is the output.
    let sig = path(dir.path(), "bad.sig");
    std::fs::write(&sig, [0u8; 256]).unwrap();
    let v = ["dgst", "-sha256", "-verify", &key("rsa2048.pub.pem"), "-signature", &sig];
    let r = run(&[&v[..], &["-out", &out, &a]].concat(), b"");
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"Verification failure\n");
}

#[test]
fn pkeyutl_rawin_hashes_as_it_reads() {
    let dir = tempdir();
    let big = path(dir.path(), "big.bin");
    sparse(&big, 128 << 20);
    let k = key("rsa2048.pem");
    let sig = path(dir.path(), "s.sig");
    // 128 MiB of message in 64 MiB of address space: only a streamed hash fits.
    let args = [
        "pkeyutl", "-sign", "-inkey", &k, "-rawin", "-digest", "sha256", "-in", &big, "-out", &sig,
    ];
    ok(&run_limited(64, &args));
    let want = ok(&run(&["dgst", "-sha256", "-sign", &k, &big], b""));
    assert_eq!(std::fs::read(&sig).unwrap(), want);
    // -rev needs the whole message: bounded.
    let rev = [&args[..9], &["-rev"]].concat();
    fails(&run(&rev, b""), 1, "more than 1 MiB");
}

#[test]
fn mac_padding_3_streams_files_and_bounds_pipes() {
    let dir = tempdir();
    let key = ["-macopt", "hexkey:0123456789abcdef", "-macopt", "padding:3"];
    let big = path(dir.path(), "big.bin");
    sparse(&big, 96 << 20);
    let args = [&["mac"][..], &key, &["-in", &big, "CBC-MAC"]].concat();
    let tag = ok_text(&run_limited(64, &args));
    assert_eq!(tag.trim_end().len(), 16, "{tag}");
    // A file and the same bytes through a pipe give the same tag.
    let small = path(dir.path(), "small.bin");
    std::fs::write(&small, bytes(3, 100_000)).unwrap();
    let from_file = ok(&run(&[&["mac"][..], &key, &["-in", &small, "CBC-MAC"]].concat(), b""));
    let from_pipe = ok(&run(&[&["mac"][..], &key, &["CBC-MAC"]].concat(), &bytes(3, 100_000)));
    assert_eq!(from_file, from_pipe);
    // A pipe is held in memory only up to 16 MiB.
    let r = run(&[&["mac"][..], &key, &["CBC-MAC"]].concat(), &vec![0u8; (16 << 20) + 1]);
    fails(&r, 1, "padding:3");
}

/// `cms` reads certificate files and `-inlist` whole, up to 16 MiB.
#[test]
fn cms_certificate_files_and_lists_are_bounded() {
    let dir = tempdir();
    let big = path(dir.path(), "big.pem");
    sparse(&big, 17 << 20);
    let msg = path(dir.path(), "m.txt");
    std::fs::write(&msg, b"hello").unwrap();
    let too_large = "more than 16 MiB, too large for";
    fails(&run(&["cms", "-encrypt", "-in", &msg, &big], b""), 2, too_large);
    let (k, c) = (key("rsa2048.pem"), path(dir.path(), "signer.pem"));
    ok(&run(&["req", "-new", "-x509", "-key", &k, "-subj", "/CN=signer", "-out", &c], b""));
    let list = ["cms", "-sign", "-inlist", &big, "-signer", &c, "-inkey", &k, "-outdir", &msg];
    fails(&run(&list, b""), 2, too_large);
}

#[test]
fn speed_bounds_multi_times_bytes() {
    for multi in ["5", "1024"] {
        let args =
            ["speed", "aes-128-cbc", "-seconds", "0.01", "-multi", multi, "-bytes", "67108864"];
        fails(&run_within(30, &args), 1, "-multi");
    }
}

#[test]
fn a_mistyped_flag_does_not_echo_its_value() {
    for cmd in ["enc", "dgst", "pkeyutl"] {
        let line = fails(&run(&[cmd, "-pasin=pass:hunter2"], b""), 1, "unknown option '-pasin'");
        assert!(!line.contains("hunter2"), "{line}");
    }
}

#[test]
fn base64_and_nopad_decryption_answer_as_openssl() {
    // Invalid base64 ends the data; OpenSSL 3.0's `base64 -d` exits 0.
    for input in [&b"!!!\n"[..], b"aGVsbG8K\n!!!\n", b"Z"] {
        let out = run(&["base64", "-d"], input);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{input:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if have_openssl("base64_and_nopad_decryption_answer_as_openssl") {
            assert_eq!(openssl_raw(&["base64", "-d"], input).status.code(), Some(0));
        }
    }
    assert_eq!(ok(&run(&["base64", "-d"], b"aGVsbG8K\n")), b"hello\n");
    // A ciphertext that is not whole blocks, with -nopad: "bad decrypt", no file.
    let dir = tempdir();
    let out = path(dir.path(), "p.txt");
    let k = ["-K", "00112233445566778899aabbccddeeff", "-iv", "00112233445566778899aabbccddeeff"];
    for input in [&b"abc"[..], &[7u8; 17]] {
        let args = [&["enc", "-d", "-nopad", "-aes-128-cbc"][..], &k, &["-out", &out]].concat();
        assert_eq!(fails(&run(&args, input), 1, "bad decrypt"), "bad decrypt");
        assert!(listing(dir.path()).is_empty());
    }
}

/// `enc` writing to `out` from a stdin pipe it waits on, `prefix` run before it by
/// `sh -c` (a `trap`); returns the child, its stdin, and the temporary file once it
/// exists.
fn enc_waiting(
    prefix: &str,
    dir: &Path,
    out: &str,
) -> (std::process::Child, std::process::ChildStdin) {
    let bin = assert_cmd::cargo::cargo_bin("cryptocard");
    let script = format!(
        "{prefix} exec '{}' enc -aes-128-cbc -K 000102030405060708090a0b0c0d0e0f -iv 00 -out '{out}'",
        bin.display()
    );
    let mut child = std::process::Command::new("sh")
        .args(["-c", &script])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, &[7; 100]).unwrap();
    let start = std::time::Instant::now();
    while !listing(dir).iter().any(|n| n.ends_with(".tmp")) {
        assert!(start.elapsed() < Duration::from_secs(30), "no temporary file: {:?}", listing(dir));
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, stdin)
}

/// `kill -SIG PID`.
fn kill(signal: &str, child: &std::process::Child) {
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill").args([signal, &pid]).status().unwrap().success());
}

/// The child's exit status, or a failed test (the child killed) after 30 s.
fn wait_within_30s(child: &mut std::process::Child) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the command did not end within 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether this test process ignores `signal` (its children then start ignoring it too,
/// and a shell cannot undo that): from /proc/self/status's SigIgn mask.
fn ignored_here(signal: i32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).unwrap();
    u64::from_str_radix(line.trim(), 16).unwrap() & (1 << (signal - 1)) != 0
}

#[test]
fn a_signal_removes_the_temporary_file_and_keeps_the_old_output() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, number) in [("-INT", 2), ("-TERM", 15), ("-HUP", 1)] {
        if ignored_here(number) {
            // As under `nohup`: the command inherits the signal ignored and keeps it so.
            println!("note: {signal} is ignored by this test process; its case is skipped");
            continue;
        }
        let dir = tempdir();
        let out = path(dir.path(), "out.bin");
        std::fs::write(&out, b"old").unwrap();
        let (mut child, stdin) = enc_waiting("", dir.path(), &out);
        kill(signal, &child);
        let status = wait_within_30s(&mut child);
        drop(stdin);
        // Killed by the signal, as without a handler; nothing but the old file left.
        assert_eq!(status.signal(), Some(number), "{signal}: {status:?}");
        assert_eq!(listing(dir.path()), ["out.bin"], "{signal}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old", "{signal}");
    }
    // A signal ignored when the command started (as `nohup` ignores SIGHUP) stays ignored:
    // the command goes on and finishes its output.
    let dir = tempdir();
    let out = path(dir.path(), "out.bin");
    let (mut child, stdin) = enc_waiting("trap '' HUP;", dir.path(), &out);
    kill("-HUP", &child);
    std::thread::sleep(Duration::from_millis(200));
    drop(stdin);
    assert!(wait_within_30s(&mut child).success());
    assert_eq!(listing(dir.path()), ["out.bin"]);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 112);
}
