//! Page-locked host memory for a batch's planes ([`Staging`], the
//! [`PlaneBuf::Pinned`](super::layout::PlaneBuf) case): the device copies from and to
//! it directly, at the bus's speed and without the driver's bounce buffers. Page-locking
//! costs far more than reusing, so a dropped buffer is wiped and kept for a later batch.

#![allow(unsafe_code)]

use cudarc::driver::{CudaContext, PinnedHostSlice};
use std::sync::{Arc, Mutex};

/// Page-locked host memory holding a batch's planes (`PlaneBuf::Pinned`): the device
/// copies from and to it directly, at the bus's speed and without the driver's bounce
/// buffers. Dropped, it is wiped and kept for a later batch (the [`STAGING_KEPT`]
/// largest), since page-locking memory costs far more than reusing it.
pub(crate) struct Staging {
    /// Always `Some` until dropped.
    host: Option<PinnedHostSlice<u32>>,
    /// The start of `host`'s memory, and the words in use (at most its length).
    ptr: *mut u32,
    len: usize,
}

// SAFETY: a Staging owns its page-locked allocation alone (PinnedHostSlice is Send and
// Sync, and nothing else holds its pointer); the raw pointer is only read through &self
// and written through &mut self, as a Box's would be.
unsafe impl Send for Staging {}
// SAFETY: as above.
unsafe impl Sync for Staging {}

/// Page-locked buffers kept for later batches.
static STAGED: Mutex<Vec<PinnedHostSlice<u32>>> = Mutex::new(Vec::new());

/// How many [`STAGED`] keeps: the input and output planes of two batches.
const STAGING_KEPT: usize = 4;

/// Words a new page-locked buffer is rounded up to (a mebibyte), so that batches of
/// nearby sizes share buffers.
const STAGING_GRAIN: usize = 1 << 18;

impl Staging {
    /// `len` zeroed words: the smallest kept buffer that holds them, or a new one;
    /// `None` where the driver gives no page-locked memory.
    pub(super) fn take(ctx: &Arc<CudaContext>, len: usize) -> Option<Staging> {
        let kept = {
            let mut kept = STAGED.lock().unwrap_or_else(|p| p.into_inner());
            let fits = kept.iter().enumerate().filter(|(_, h)| h.len() >= len);
            let best = fits.min_by_key(|(_, h)| h.len()).map(|(i, _)| i);
            best.map(|i| kept.swap_remove(i))
        };
        let (mut host, fresh) = match kept {
            Some(host) => (host, false),
            None => {
                let words = len.max(1).next_multiple_of(STAGING_GRAIN);
                // SAFETY: the memory is uninitialised until it is zeroed just below,
                // before any slice of it is made; flags 0 (not write-combined) keeps it
                // cached, since the host reads the output planes back.
                (unsafe { ctx.alloc_pinned_with_flags::<u32>(words, 0) }.ok()?, true)
            }
        };
        let ptr = host.as_mut_ptr().ok()?;
        if fresh {
            // SAFETY: `ptr` is the start of `host`'s u32s, which nothing else references
            // yet. (Kept buffers were wiped when dropped, and no copy is in flight on
            // them.)
            unsafe { core::ptr::write_bytes(ptr, 0, host.len()) };
        }
        Some(Staging { host: Some(host), ptr, len })
    }
}

impl Staging {
    /// Leaks the page-locked memory, for `PlaneBuf::abandon`: it is neither wiped, kept
    /// nor freed, since a device copy may still write to it (a wipe could be overwritten,
    /// and a later batch or the allocator would get memory the device still writes). The
    /// context is likely lost by then; a copy that does end writes what it was given.
    pub(super) fn abandon(&mut self) {
        self.len = 0;
        if let Some(host) = self.host.take() {
            core::mem::forget(host);
        }
    }
}

impl core::ops::Deref for Staging {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        // SAFETY: `ptr` is the start of `host`'s allocation, which this Staging owns and
        // which holds at least `len` initialised (zeroed when made) words; no device copy
        // is in flight on it while a Staging exists (each batch synchronises its stream
        // before its planes are read or dropped).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl core::ops::DerefMut for Staging {
    fn deref_mut(&mut self) -> &mut [u32] {
        // SAFETY: as for `deref`, and `&mut self` makes this the only reference.
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut **self);
        let Some(host) = self.host.take() else { return };
        let mut kept = STAGED.lock().unwrap_or_else(|p| p.into_inner());
        kept.push(host);
        if kept.len() > STAGING_KEPT {
            // The smallest goes (its page-locked memory freed).
            if let Some(i) = kept.iter().enumerate().min_by_key(|(_, h)| h.len()).map(|(i, _)| i) {
                kept.swap_remove(i);
            }
        }
    }
}
