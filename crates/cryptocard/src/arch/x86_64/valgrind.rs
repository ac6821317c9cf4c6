//! Valgrind client requests, for the constant-time validation (feature `ct-validation`):
//! tell memcheck that bytes are secret (undefined, so that a branch or memory index that
//! depends on them is reported) or public again (defined). The technique of Langley's
//! ctgrind and of BoringSSL's `CONSTTIME_SECRET` / `CONSTTIME_DECLASSIFY`.
//!
//! A client request is the instruction sequence of `valgrind.h`
//! (`VALGRIND_DO_CLIENT_REQUEST_EXPR` for amd64): four rotations of rdi by 128 bits in
//! all, which change nothing, then `xchg rbx, rbx`; valgrind recognises the sequence and
//! reads the request from the array rax points at. Run natively, the sequence does
//! nothing and leaves the default in rdx.

use core::arch::asm;

/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// Memcheck's requests: `VG_USERREQ_TOOL_BASE('M', 'C')` + 1 and + 2.
const MAKE_MEM_UNDEFINED: u64 = 0x4d43_0001;
const MAKE_MEM_DEFINED: u64 = 0x4d43_0002;

/// One client request with two arguments; `default` when not under valgrind.
fn request(code: u64, arg1: u64, arg2: u64, default: u64) -> u64 {
    let args: [u64; 6] = [code, arg1, arg2, 0, 0, 0];
    let mut result = default;
    // SAFETY: the rotations leave rdi as it was (declared clobbered anyway) and the
    // exchange of rbx with itself changes nothing; natively the block only reads `args`.
    // Under valgrind the request reads `args` and changes memcheck's shadow state, never
    // the program's memory.
    unsafe {
        asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
    result
}

/// Whether the process runs under valgrind.
pub(crate) fn running_on_valgrind() -> bool {
    request(RUNNING_ON_VALGRIND, 0, 0, 0) != 0
}

/// Marks `len` bytes at `ptr` secret (undefined for memcheck).
pub(crate) fn mark_secret(ptr: *const u8, len: usize) {
    request(MAKE_MEM_UNDEFINED, ptr as u64, len as u64, 0);
}

/// Marks `len` bytes at `ptr` public (defined for memcheck).
pub(crate) fn mark_public(ptr: *const u8, len: usize) {
    request(MAKE_MEM_DEFINED, ptr as u64, len as u64, 0);
}
