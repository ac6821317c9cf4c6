//! Where the device runs batches: lanes, each a stream with the device memory its
//! batches reuse ([`Scratch`]: kept from one batch to the next, grown to the largest so
//! far, zeroed after each), one batch at a time on each. One lane is the context's
//! default stream; with `CRYPTOCARD_GPU_STREAMS=2` two lanes on non-blocking streams
//! of their own let one batch's copies overlap another's kernel, and two launches
//! smaller than the device fill it together (cudarc orders each buffer's uses across
//! streams by the events it records for it). [`KernelClock`] counts the time some
//! kernel ran, the union of the lanes' kernels, for the kernel-only rates.

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The time some kernel ran: from a launch while none ran to the end of the last one
/// running, summed (the union of the kernels' times, so two lanes at once count once).
#[derive(Default)]
pub(super) struct KernelClock {
    running: u32,
    since: Option<Instant>,
    /// The seconds counted so far.
    pub(super) seconds: f64,
}

/// A kernel counted on a [`KernelClock`] from its launch until this is dropped.
pub(super) struct KernelsRunning<'a>(&'a Mutex<KernelClock>);

impl KernelClock {
    /// Counts a kernel from now until the guard is dropped.
    pub(super) fn start(clock: &Mutex<KernelClock>) -> KernelsRunning<'_> {
        clock.lock().unwrap_or_else(|p| p.into_inner()).begin(Instant::now());
        KernelsRunning(clock)
    }

    fn begin(&mut self, now: Instant) {
        if self.running == 0 {
            self.since = Some(now);
        }
        self.running += 1;
    }

    fn end(&mut self, now: Instant) {
        self.running = self.running.saturating_sub(1);
        if self.running == 0 {
            let since = self.since.take();
            self.seconds += since.map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
        }
    }
}

impl Drop for KernelsRunning<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).end(Instant::now());
    }
}

/// A stream and the device memory of the batches that run on it, one at a time.
pub(super) struct Lane {
    pub(super) stream: Arc<CudaStream>,
    pub(super) scratch: Mutex<Scratch>,
}

impl Lane {
    pub(super) fn new(stream: Arc<CudaStream>) -> Lane {
        Lane { stream, scratch: Mutex::new(Scratch::default()) }
    }
}

/// The device memory of a batch, kept from one batch to the next (each grown to the
/// largest batch so far) under its lane's lock, so that a batch neither allocates nor
/// frees: the key pointers, the key indices, the input and output planes, the split
/// form's middle planes and the status words. The planes are zeroed after each batch.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) keys: Option<CudaSlice<u64>>,
    pub(super) op_key: Option<CudaSlice<u32>>,
    pub(super) input: Option<CudaSlice<u32>>,
    pub(super) output: Option<CudaSlice<u32>>,
    pub(super) mid: Option<CudaSlice<u32>>,
    pub(super) status: Option<CudaSlice<u32>>,
}

impl Scratch {
    /// After a batch failed midway: waits for what is still in flight on `s`, then
    /// zeroes the planes (blinded inputs, results and the pairs' successors may be
    /// there), best effort, since a failed call may mean a lost context, whose memory
    /// goes with it.
    pub(super) fn wipe_after_failure(&mut self, s: &Arc<CudaStream>) {
        let _ = s.synchronize();
        for buf in [&mut self.input, &mut self.output, &mut self.mid].into_iter().flatten() {
            let _ = s.memset_zeros(buf);
        }
        let _ = s.synchronize();
    }
}

/// `slot`'s buffer with room for `len` elements: the one kept, or a larger one in its
/// place (the old one freed first).
pub(super) fn room<'a, T: DeviceRepr + ValidAsZeroBits>(
    slot: &'a mut Option<CudaSlice<T>>,
    len: usize,
    s: &Arc<CudaStream>,
) -> Result<&'a mut CudaSlice<T>, DriverError> {
    // A kept buffer too small is dropped (freed) here, before the new one is made.
    let buf = match slot.take().filter(|b| b.len() >= len) {
        Some(kept) => kept,
        None => s.alloc_zeros::<T>(len.max(1))?,
    };
    Ok(slot.insert(buf))
}

#[cfg(test)]
mod tests {
    use super::KernelClock;
    use std::time::{Duration, Instant};

    /// Kernels of two lanes that overlap count their time once; apart, each counts.
    #[test]
    fn kernel_clock_counts_overlapping_kernels_once() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut c = KernelClock::default();
        c.begin(at(0));
        c.begin(at(20)); // the second lane's, while the first runs
        c.end(at(40)); // the first ends; the second still runs
        assert_eq!(c.seconds, 0.0);
        c.end(at(60));
        assert!((c.seconds - 0.060).abs() < 1e-9, "{}", c.seconds);
        c.begin(at(100)); // alone: its own 10 ms
        c.end(at(110));
        assert!((c.seconds - 0.070).abs() < 1e-9, "{}", c.seconds);
        c.end(at(120)); // an end without a start changes nothing
        assert!((c.seconds - 0.070).abs() < 1e-9, "{}", c.seconds);
    }
}
