//! Running a part of a test in a forked child (`tests/rsa_fork.rs`, `tests/engine_fork.rs`).
//! Each such test is alone in its test binary, so that no other test thread runs while the
//! process forks.

use std::time::{Duration, Instant};

/// Forks, runs `child` in the child and ends it with `child`'s result as its exit status;
/// in the parent, waits for it and returns that status. Fails the test with `hang` if the
/// child has not finished within a minute (and kills it), or if it did not exit normally.
pub fn in_child(hang: &str, child: impl FnOnce() -> i32) -> i32 {
    // SAFETY: fork() has no memory-safety preconditions; the child runs only `child` on its
    // copy of the address space and leaves by _exit, without returning into the test
    // harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let code = child();
        // SAFETY: _exit ends the child at once, running no destructors or atexit hooks that
        // belong to the parent's state.
        unsafe { libc::_exit(code) };
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child, with a valid pointer to `status`.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(done >= 0, "waitpid failed");
        if done == pid {
            break;
        }
        if Instant::now() > deadline {
            // SAFETY: kill and reap our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            panic!("the child did not finish within 60 s: {hang}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(libc::WIFEXITED(status), "the child did not exit normally: {status:#x}");
    libc::WEXITSTATUS(status)
}
