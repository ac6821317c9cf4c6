//! A helper thread (`job_thread`) kept by a process that then forks: the child, which has
//! no such thread, starts its own and the work still runs, off the calling thread.
//!
//! Alone in its test binary, so that no other test's thread holds a lock when the fork
//! comes.

#![allow(unsafe_code)]

use cryptocard_provider::job_thread;

#[test]
fn a_forked_child_starts_its_own_helper() {
    let here = std::thread::current().id();
    let parent = job_thread::run(|| std::thread::current().id()).unwrap().unwrap();
    assert_ne!(parent, here);
    // SAFETY: fork(2); the child only runs the helper code below and leaves with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // The child: a hung helper would hang the test, so an alarm ends it instead.
        // SAFETY: alarm(2) and _exit(2) take plain integers.
        unsafe { libc::alarm(20) };
        let code = match job_thread::run(|| (std::thread::current().id(), 6 * 7)) {
            Some(Ok((id, 42))) if id != std::thread::current().id() => 0,
            _ => 1,
        };
        // SAFETY: as above.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the forked child's helper failed (wait status {status:#x})"
    );
    // The parent's helper is still the one it had.
    assert_eq!(job_thread::run(|| std::thread::current().id()).unwrap().unwrap(), parent);
}
